//! `toon::stream` against the decoder (oracle 1): on every official decode fixture and the
//! eight data sets, strict and not, the events of every entry point (`from_str`, `Events`
//! over a reader, `Parser` fed whole, by lines, a byte and a character at a time) are the
//! events of walking the `toon::Value` that `toon::from_str_with` returns, and every input
//! the decoder refuses ends the events with the decoder's error, at its line and column.
//! Then random bytes and mutated fixtures: no entry point panics, and all agree.

use crate::common;

use std::io::BufReader;

use toon::stream::{Event, Events, Parser, Primitive};
use toon::{DecodeOptions, Error, Value};

/// Events and the error that ended them, if one did.
type Run = (Vec<Event<'static>>, Option<Error>);

/// The events of walking a decoded value, as the reader should give them for a document
/// whose declared counts are its real ones.
fn walk(value: &Value, out: &mut Vec<Event<'static>>) {
    match value {
        Value::Null => out.push(Event::Primitive(Primitive::Null)),
        Value::Bool(b) => out.push(Event::Primitive(Primitive::Bool(*b))),
        Value::Number(n) => out.push(Event::Primitive(Primitive::Number(*n))),
        Value::String(s) => out.push(Event::Primitive(Primitive::String(s.clone().into()))),
        Value::Array(items) => {
            out.push(Event::StartArray {
                length: items.len(),
            });
            items.iter().for_each(|item| walk(item, out));
            out.push(Event::EndArray);
        }
        Value::Object(map) => {
            out.push(Event::StartObject);
            for (key, value) in map {
                out.push(Event::Key(key.to_string().into()));
                walk(value, out);
            }
            out.push(Event::EndObject);
        }
    }
}

/// The value the events describe, keys last-write-wins (§14.3) as `toon::Value` resolves
/// them, and whether a key was repeated.
fn fold(events: &[Event<'_>]) -> (Value, bool) {
    enum Open {
        Array(Vec<Value>),
        Object(toon::Map, Option<String>),
    }
    let mut stack: Vec<Open> = Vec::new();
    let mut root = None;
    let mut repeated = false;
    for event in events {
        let done = match event {
            Event::StartObject => {
                stack.push(Open::Object(toon::Map::new(), None));
                None
            }
            Event::StartArray { .. } => {
                stack.push(Open::Array(Vec::new()));
                None
            }
            Event::EndObject | Event::EndArray => match stack.pop() {
                Some(Open::Object(map, _)) => Some(Value::Object(map)),
                Some(Open::Array(items)) => Some(Value::Array(items)),
                None => panic!("unbalanced"),
            },
            Event::Key(key) => {
                match stack.last_mut() {
                    Some(Open::Object(_, slot)) => *slot = Some(key.to_string()),
                    _ => panic!("a key outside an object"),
                }
                None
            }
            Event::Primitive(p) => Some(match p {
                Primitive::Null => Value::Null,
                Primitive::Bool(b) => Value::Bool(*b),
                Primitive::Number(n) => Value::Number(*n),
                Primitive::String(s) => Value::String(s.to_string()),
            }),
        };
        if let Some(value) = done {
            match stack.last_mut() {
                None => root = Some(value),
                Some(Open::Array(items)) => items.push(value),
                Some(Open::Object(map, slot)) => {
                    let key = slot.take().expect("a value without a key");
                    repeated |= map.insert(key, value).is_some();
                }
            }
        }
    }
    assert!(stack.is_empty(), "unclosed containers");
    (root.expect("no value"), repeated)
}

/// `StartArray` lengths replaced by the real element counts, and whether every declared
/// count was the real one.
fn real_lengths(events: &[Event<'static>]) -> (Vec<Event<'static>>, bool) {
    let mut out = events.to_vec();
    let mut open: Vec<(usize, usize)> = Vec::new(); // (index of StartArray, elements)
    let mut depth_values: Vec<bool> = Vec::new(); // per container: is an array
    let mut exact = true;
    for (i, event) in events.iter().enumerate() {
        let starts_value = !matches!(event, Event::EndObject | Event::EndArray | Event::Key(_));
        if starts_value && depth_values.last() == Some(&true) {
            open.last_mut().unwrap().1 += 1;
        }
        match event {
            Event::StartArray { .. } => {
                open.push((i, 0));
                depth_values.push(true);
            }
            Event::StartObject => depth_values.push(false),
            Event::EndObject => {
                depth_values.pop();
            }
            Event::EndArray => {
                depth_values.pop();
                let (at, count) = open.pop().unwrap();
                if let Event::StartArray { length } = &mut out[at] {
                    exact &= *length == count;
                    *length = count;
                }
            }
            _ => {}
        }
    }
    (out, exact)
}

fn collect<I: Iterator<Item = toon::Result<Event<'static>>>>(events: I) -> Run {
    let mut out = Vec::new();
    for event in events {
        match event {
            Ok(event) => out.push(event),
            Err(err) => return (out, Some(err)),
        }
    }
    (out, None)
}

/// A parser fed `pieces`, then finished.
fn fed<'p>(pieces: impl IntoIterator<Item = &'p [u8]>, options: &DecodeOptions) -> Run {
    let mut parser = Parser::with_options(options);
    let mut out = Vec::new();
    for piece in pieces {
        match parser.feed_bytes(piece) {
            Ok(events) => out.extend(events),
            Err(err) => return (out, Some(err)),
        }
    }
    match parser.finish() {
        Ok(events) => {
            out.extend(events);
            (out, None)
        }
        Err(err) => (out, Some(err)),
    }
}

/// Every entry point's events for `text`, labelled.
fn every_way(text: &str, options: &DecodeOptions) -> Vec<(&'static str, Run)> {
    let bytes = text.as_bytes();
    let mut runs = vec![
        (
            "from_str",
            collect(toon::stream::from_str_with(text, options).map(|e| e.map(Event::into_owned))),
        ),
        ("Events", collect(Events::with_options(bytes, options))),
        (
            "Events, 1-byte buffer",
            collect(Events::with_options(
                BufReader::with_capacity(1, bytes),
                options,
            )),
        ),
        ("Parser, whole", fed([bytes], options)),
        (
            "Parser, by lines",
            fed(bytes.split_inclusive(|&b| b == b'\n'), options),
        ),
        ("Parser, bytes", fed(bytes.chunks(1), options)),
    ];
    // `feed` with `&str` pieces cut at every character.
    let mut parser = Parser::with_options(options);
    let mut out = Vec::new();
    let mut failed = None;
    for (at, c) in text.char_indices() {
        match parser.feed(&text[at..at + c.len_utf8()]) {
            Ok(events) => out.extend(events),
            Err(err) => {
                failed = Some(err);
                break;
            }
        }
    }
    let chars = match failed {
        Some(err) => (out, Some(err)),
        None => match parser.finish() {
            Ok(events) => {
                out.extend(events);
                (out, None)
            }
            Err(err) => (out, Some(err)),
        },
    };
    runs.push(("Parser, chars", chars));
    runs
}

fn place(err: &Error) -> (usize, usize, toon::Category, String) {
    (err.line(), err.column(), err.classify(), err.to_string())
}

/// Checks the stream against the decoder on one input; `Err` says how they differ.
fn agree(text: &str, options: &DecodeOptions) -> Result<(), String> {
    let decoded = toon::from_str_with::<Value>(text, options);
    for (how, (events, err)) in every_way(text, options) {
        match (&decoded, err) {
            (Ok(value), None) => {
                let (real, exact) = real_lengths(&events);
                let (folded, repeated) = fold(&events);
                if !common::same(&folded, value) {
                    return Err(format!(
                        "{how}: events fold to {folded:?}, decoded {value:?}"
                    ));
                }
                if options.is_strict() && !exact {
                    return Err(format!("{how}: strict, yet a declared count is off"));
                }
                let mut walked = Vec::new();
                walk(value, &mut walked);
                if !repeated && real != walked {
                    return Err(format!("{how}: events {events:?}\nwalked {walked:?}"));
                }
            }
            (Ok(value), Some(err)) => {
                return Err(format!("{how}: error {err}, decoded {value:?}"));
            }
            (Err(want), None) => return Err(format!("{how}: no error, decoder says {want}")),
            (Err(want), Some(got)) => {
                if place(want) != place(&got) {
                    return Err(format!("{how}: error\n  {got}\nwant\n  {want}"));
                }
            }
        }
    }
    Ok(())
}

#[test]
fn fixtures_stream_as_they_decode() {
    let cases = common::all_decode_cases();
    assert!(cases.len() > 300, "{} cases", cases.len());
    let (mut errors, mut failures) = (0, Vec::new());
    for (name, input, options) in &cases {
        // Each case under its own options, and under the other strictness.
        for options in [
            options.clone(),
            options.clone().strict(!options.is_strict()),
        ] {
            errors += usize::from(toon::from_str_with::<Value>(input, &options).is_err());
            if let Err(why) = agree(input, &options) {
                failures.push(format!("{name} (strict {}): {why}", options.is_strict()));
            }
        }
    }
    for f in &failures {
        eprintln!("FAIL {f}\n");
    }
    assert!(errors > 50, "{errors} cases error");
    assert!(failures.is_empty(), "{} failures", failures.len());
}

#[test]
fn data_sets_stream_as_they_decode() {
    for (name, text) in common::dataset_texts() {
        for strict in [true, false] {
            let options = DecodeOptions::new().strict(strict);
            toon::from_str_with::<Value>(&text, &options).unwrap();
            agree(&text, &options).unwrap_or_else(|why| panic!("{name}: {why}"));
        }
    }
}

/// The line a reader stops on: an error on line 3 comes after the events of lines 1 and 2.
#[test]
fn an_error_comes_after_the_events_of_the_lines_before_it() {
    let text = "a: 1\nb: 2\nc: \"x\nd: 4";
    for (how, (events, err)) in every_way(text, &DecodeOptions::new()) {
        let err = err.unwrap_or_else(|| panic!("{how}: no error"));
        assert_eq!((err.line(), err.column()), (3, 4), "{how}: {err}");
        assert_eq!(events.len(), 5, "{how}: {events:?}");
    }
}

/// A last line without its newline whose events come before the end of input's error (a
/// list short of its count after its item): `Parser::end` returns them and `finish` the error,
/// as `Events` gives them, however the text was cut; `finish` alone returns the error only
/// (found by the `parser` fuzz target, which compares the events).
#[test]
fn parser_end_gives_the_last_line_events_before_the_end_error() {
    let text = "items[2]:\n  - a";
    let (want, want_err) = collect(Events::new(text.as_bytes()));
    let want_err = want_err.expect("one item of two");
    assert_eq!(want.len(), 4, "{want:?}");
    for size in [1, 2, 5, text.len()] {
        let mut parser = Parser::new();
        let mut events = Vec::new();
        for piece in text.as_bytes().chunks(size) {
            events.extend(parser.feed_bytes(piece).unwrap());
        }
        events.extend(parser.end().unwrap());
        assert_eq!(events, want, "pieces of {size}");
        let err = parser.finish().unwrap_err();
        assert_eq!(place(&err), place(&want_err), "pieces of {size}");
    }
    let mut parser = Parser::new();
    assert_eq!(parser.feed(text).unwrap().len(), 3);
    assert_eq!(place(&parser.finish().unwrap_err()), place(&want_err));
    // A valid text: `end` gives the rest, `finish` nothing more.
    let mut parser = Parser::new();
    parser.feed("a: 1").unwrap();
    assert_eq!(parser.end().unwrap().len(), 4);
    assert!(parser.end().unwrap().is_empty());
    assert!(parser.feed("b: 1\n").is_err(), "a feed after the end");
    assert!(parser.finish().unwrap().is_empty());
}

/// A CR left before a line's end once CRLF's is taken off (`" 12\r\r\n"`) is the line's own:
/// every reader quotes it in the error, as the decoder does (the stream's readers once took it
/// off a second time; found by the `events` fuzz target).
#[test]
fn a_line_own_carriage_return_is_quoted_as_the_decoder_quotes_it() {
    let text = "a:: b\n 12\r\r\n";
    let want = toon::from_str::<Value>(text).unwrap_err();
    assert!(want.to_string().ends_with(r#"found 1: " 12\r""#), "{want}");
    for (how, (_, err)) in every_way(text, &DecodeOptions::new()) {
        let err = err.unwrap_or_else(|| panic!("{how}: no error"));
        assert_eq!(place(&err), place(&want), "{how}");
    }
}

/// Random bytes and mutated fixtures through every entry point: none panics, and all give
/// the same events and the same error; where the text is UTF-8, `from_str` too, and where
/// the decoder accepts it, the same value.
#[test]
fn random_and_mutated_inputs_agree_everywhere() {
    let cases = common::all_decode_cases();
    let mut pick = common::rng(0x9e37_79b9_7f4a_7c15);
    const PIECES: [&[u8]; 14] = [
        b"\n", b"  ", b"- ", b":", b",", b"|", b"\t", b"\"", b"[2]", b"{a,b}", b"\r\n", b"#",
        b"\xc3", b"\xff",
    ];
    for round in 0..1500 {
        let mut bytes = if round % 3 == 0 {
            (0..pick(40)).map(|_| pick(256) as u8).collect::<Vec<u8>>()
        } else {
            cases[pick(cases.len())].1.clone().into_bytes()
        };
        for _ in 0..1 + pick(4) {
            let at = pick(bytes.len() + 1);
            match pick(3) {
                0 => {
                    let piece = PIECES[pick(PIECES.len())];
                    bytes.splice(at..at, piece.iter().copied());
                }
                1 if at < bytes.len() => {
                    bytes.remove(at);
                }
                _ => bytes.insert(at, pick(256) as u8),
            }
        }
        let strict = pick(2) == 0;
        let options = DecodeOptions::new()
            .strict(strict)
            .indent_size(1 + pick(3))
            .max_depth(1 + pick(6));
        let readers = [
            collect(Events::with_options(bytes.as_slice(), &options)),
            fed([bytes.as_slice()], &options),
            fed(bytes.chunks(1), &options),
            fed(bytes.chunks(3), &options),
        ];
        let show = String::from_utf8_lossy(&bytes);
        let first = &readers[0];
        for other in &readers[1..] {
            assert_eq!(first.0, other.0, "{show:?}");
            assert_eq!(
                first.1.as_ref().map(place),
                other.1.as_ref().map(place),
                "{show:?}"
            );
        }
        if let Ok(text) = std::str::from_utf8(&bytes) {
            agree(text, &options).unwrap_or_else(|why| panic!("{text:?} strict {strict}: {why}"));
        }
    }
}

/// A reader's I/O error ends the events with a `Category::Io` error.
#[test]
fn io_errors_end_the_events() {
    struct Failing(usize);
    impl std::io::Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0 == 0 {
                return Err(std::io::Error::other("disk on fire"));
            }
            self.0 -= 1;
            buf[..5].copy_from_slice(b"a: 1\n");
            Ok(5)
        }
    }
    let reader = BufReader::new(Failing(1));
    assert!(reader.buffer().is_empty());
    let (events, err) = collect(Events::new(reader));
    assert_eq!(events.len(), 3);
    assert!(err.unwrap().is_io());
}

/// Documents made of TOON-shaped lines (headers of every form, list items, rows, entries,
/// blank and comment lines, odd indentation) under small limits: the stream decides each
/// as the decoder does.
#[test]
fn generated_documents_stream_as_they_decode() {
    const INDENTS: [&str; 6] = ["", "  ", "    ", "      ", " ", "\t"];
    // One line each, `¦` between them.
    const LINES: &str = concat!(
        "a: 1",
        "¦",
        "b:",
        "¦",
        "c: []",
        "¦",
        "d[2]: x,y",
        "¦",
        "e[2]:",
        "¦",
        "f[2]{x,y}:",
        "¦",
        "g[2:]{x}:",
        "¦",
        "- 1",
        "¦",
        "- a: 1",
        "¦",
        "- b:",
        "¦",
        "- [2]: 1,2",
        "¦",
        "- [1]:",
        "¦",
        "-",
        "¦",
        "1,2",
        "¦",
        "3",
        "¦",
        "k: 5",
        "¦",
        "k: 6,7",
        "¦",
        "\"q\": \"s\"",
        "¦",
        "[2]: 1,2",
        "¦",
        "[1]{x}:",
        "¦",
        "[1:]{x}:",
        "¦",
        "h[1]{x{y,z}}:",
        "¦",
        "1,2,3",
        "¦",
        "",
        "¦",
        "# note",
        "¦",
        "x",
        "¦",
        "a[1]{x}: 1",
        "¦",
        "n[0]:",
        "¦",
        "- x[1]{y}:",
        "¦",
        "a: \"b\\q\"",
        "¦",
    );
    let lines: Vec<&str> = LINES
        .strip_suffix('¦')
        .unwrap_or(LINES)
        .split('¦')
        .collect();
    let mut next = common::rng(0x2545_f491_4f6c_dd1d);
    let (mut failures, mut decoded) = (Vec::new(), 0);
    for _ in 0..12_000 {
        let mut text = String::new();
        let mut depth = 0;
        for line in 0..1 + next(8) {
            // Mostly a depth the line could have: up to one deeper than the last.
            depth = if line == 0 { 0 } else { next(depth + 2) };
            match next(10) {
                0 => text.push_str(INDENTS[next(INDENTS.len())]),
                _ => text.push_str(&"  ".repeat(depth)),
            }
            text.push_str(lines[next(lines.len())]);
            text.push_str(["\n", "\n", "\r\n", " \n"][next(4)]);
        }
        if next(2) == 0 {
            text.pop();
        }
        let options = DecodeOptions::new()
            .strict(next(2) == 0)
            .max_depth([1, 2, 3, 5, 128][next(5)]);
        decoded += usize::from(toon::from_str_with::<Value>(&text, &options).is_ok());
        if let Err(why) = agree(&text, &options) {
            failures.push(format!("{text:?} strict {}: {why}", options.is_strict()));
        }
    }
    assert!(decoded > 1200, "{decoded} decoded");
    for f in failures.iter().take(10) {
        eprintln!("FAIL {f}\n");
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
}

/// `stream::transcode` writes the bytes `json::transcode` writes (exact numbers too), and
/// fails where it fails, on every fixture and data set.
#[test]
fn transcode_writes_what_json_transcode_writes() {
    let mut inputs: Vec<(String, DecodeOptions)> = common::all_decode_cases()
        .into_iter()
        .map(|(_, input, options)| (input, options))
        .collect();
    for (_, text) in common::dataset_texts() {
        inputs.push((text, DecodeOptions::new()));
    }
    inputs.push((
        "big: 18446744073709551616\nsmall: 0.1000000000000000055511151231257827\n\
         row[2]: 1e-400,1.5\nx[1]{n}:\n  123456789012345678901234567890"
            .into(),
        DecodeOptions::new(),
    ));
    inputs.push(("12345678901234567890123".into(), DecodeOptions::new()));
    for (text, options) in &inputs {
        for indent in [0, 2, 4] {
            let mut de = toon::Deserializer::from_str_with(text, options);
            let mut want = Vec::new();
            let wanted = toon::json::transcode(&mut de, &mut want, indent);
            let mut got = Vec::new();
            let result = toon::stream::transcode(text.as_bytes(), &mut got, indent, options);
            match (wanted, result) {
                (Ok(()), Ok(())) => assert_eq!(
                    String::from_utf8_lossy(&got),
                    String::from_utf8_lossy(&want),
                    "{text:?}"
                ),
                (Err(want), Err(got)) => assert_eq!(place(&got), place(&want), "{text:?}"),
                (want, got) => panic!("{text:?}: {got:?}, want {want:?}"),
            }
        }
    }
}
