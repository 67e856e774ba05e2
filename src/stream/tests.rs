//! The event reader's own promises; `tests/codec/stream.rs` holds it against the decoder.

use std::borrow::Cow;

use super::*;

fn events(text: &str) -> Vec<Event<'_>> {
    from_str(text).collect::<Result<_>>().unwrap()
}

/// Keys and strings borrow from the input, except what escapes made new.
#[test]
fn payloads_borrow_from_the_input() {
    let got = events("plain: text\n\"q\\tkey\": \"x\\ny\"\nrows[1]{id}:\n  \"a\"");
    let borrowed = |e: &Event<'_>| match e {
        Event::Key(k) => Some(matches!(k, Cow::Borrowed(_))),
        Event::Primitive(Primitive::String(s)) => Some(matches!(s, Cow::Borrowed(_))),
        _ => None,
    };
    let flags: Vec<bool> = got.iter().filter_map(borrowed).collect();
    // plain, text, "q\tkey" (escaped), "x\ny" (escaped), rows, id, "a"
    assert_eq!(flags, [true, true, false, false, true, true, true]);
}

/// A line's events come out with its newline; a scope's end with the line after it.
#[test]
fn events_come_out_when_their_line_decides_them() {
    let mut parser = Parser::new();
    assert_eq!(parser.feed("a:").unwrap(), []);
    assert_eq!(
        parser.feed("\n").unwrap(),
        [Event::StartObject, Event::Key("a".into())]
    );
    // The block's object starts with its first line, and ends with a line not in it.
    assert_eq!(
        parser.feed("  b: 1\n").unwrap(),
        [
            Event::StartObject,
            Event::Key("b".into()),
            Event::Primitive(Primitive::Number(1.into()))
        ]
    );
    assert_eq!(
        parser.feed("c: x\n").unwrap(),
        [
            Event::EndObject,
            Event::Key("c".into()),
            Event::Primitive(Primitive::String("x".into()))
        ]
    );
    assert_eq!(parser.finish().unwrap(), [Event::EndObject]);

    // A lone first line without a colon is a primitive only at the end.
    let mut parser = Parser::new();
    assert_eq!(parser.feed("hello\n").unwrap(), []);
    assert_eq!(
        parser.finish().unwrap(),
        [Event::Primitive(Primitive::String("hello".into()))]
    );
}

/// A piece that completes lines and then an error: the lines' events now, the error next.
#[test]
fn a_parser_returns_events_before_their_error() {
    let mut parser = Parser::new();
    let events = parser.feed("a: 1\nb: \"open\nc: 3\n").unwrap();
    assert_eq!(events.len(), 3);
    let err = parser.feed("d: 4\n").unwrap_err();
    assert_eq!((err.line(), err.column()), (2, 4), "{err}");
    assert!(parser.feed("e: 5\n").is_err());
    assert!(parser.finish().is_err());
}

/// Strict counts and the §12 blank-line rule are checked where the decoder checks them,
/// and reported on the line the decoder names.
#[test]
fn counts_and_blank_lines_are_checked_when_a_scope_ends() {
    let err = from_str("a[3]:\n  - 1\n  - 2\nb: 1")
        .find_map(Result::err)
        .unwrap();
    assert_eq!((err.line(), err.column()), (3, 3), "{err}");
    assert!(
        err.message().contains("expected 3 list items, found 2"),
        "{err}"
    );
    let err = from_str("a[3]:\n  - 1").find_map(Result::err).unwrap();
    assert!(err.is_eof(), "{err}");
    let err = from_str("a[2]:\n  - 1\n\n  - 2")
        .find_map(Result::err)
        .unwrap();
    assert_eq!((err.line(), err.column()), (3, 1), "{err}");
    let lenient = DecodeOptions::new().strict(false);
    assert!(from_str_with("a[2]:\n  - 1\n\n  - 2\n  - 3", &lenient).all(|e| e.is_ok()));
}

/// The nesting limit counts every container, rows and their field groups included.
#[test]
fn the_nesting_limit_counts_containers() {
    let text = "a[1]{b{c}}:\n  1";
    let limit = |n| DecodeOptions::new().max_depth(n);
    assert!(from_str_with(text, &limit(4)).all(|e| e.is_ok()));
    let err = from_str_with(text, &limit(3))
        .find_map(Result::err)
        .unwrap();
    assert_eq!((err.line(), err.column()), (2, 3), "{err}");
    let err = toon::from_str_with::<crate::Value>(text, &limit(3)).unwrap_err();
    assert_eq!((err.line(), err.column()), (2, 3), "{err}");
}

/// A UTF-8 BOM and CRLF line ends are not content; a bad byte is placed as the decoder
/// places it.
#[test]
fn bom_crlf_and_bad_bytes() {
    let text = "\u{feff}a: 1\r\nb: 2\r\n";
    assert_eq!(events(text), events("a: 1\nb: 2"));
    let bytes = b"a: 1\nb: \xff\n";
    let err = Events::new(&bytes[..]).find_map(Result::err).unwrap();
    let want = toon::from_slice::<crate::Value>(bytes).unwrap_err();
    assert_eq!(err.to_string(), want.to_string());
}

use crate as toon;
