//! `toon::stream`'s three readers against each other and against the decoder.
//!
//! `events`: `Events` over a reader with a small buffer and over the whole text, `from_str`,
//! and `toon::from_str_with` into a `Value`: the same events (folded into a value, the decoded
//! one), an error exactly when the decoder fails, at its line and column with its message;
//! `stream::transcode` writes the JSON `json::transcode` writes, or fails alike.
//!
//! `parser`: `Parser` fed pieces cut anywhere (inside UTF-8 sequences too) gives the events
//! and the error of `Events` on the whole text, and of `from_str` where it is UTF-8.

use std::io::BufReader;

use toon::stream::{Event, Events, Parser, Primitive};
use toon::{Category, DecodeOptions, Error, Value};

use super::input::{Input, assert_within, pieces, split};

/// Events and the error that ended them, if one did.
type Run = (Vec<Event<'static>>, Option<Error>);

/// What two errors must share: line, column, kind and message.
fn place(err: &Error) -> (usize, usize, Category, String) {
    (err.line(), err.column(), err.classify(), err.to_string())
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

fn assert_same(a: &Run, b: &Run, what: &str, text: &[u8]) {
    let show = String::from_utf8_lossy(text);
    assert_eq!(a.0, b.0, "{what}: other events for {show:?}");
    assert_eq!(
        a.1.as_ref().map(place),
        b.1.as_ref().map(place),
        "{what}: another error for {show:?}"
    );
}

/// The events of the whole text through `Events` (a `&[u8]` is a reader).
fn whole(input: &Input<'_>) -> Run {
    collect(Events::with_options(input.text, &input.options))
}

/// The value the events describe, keys last-write-wins at the first key's place (§14.3), as
/// `toon::Value` resolves them; and whether every declared `[N]` was the real count.
fn fold(events: &[Event<'_>]) -> (Value, bool) {
    enum Open {
        Array(Vec<Value>, usize),
        Object(toon::Map, Option<String>),
    }
    let mut stack: Vec<Open> = Vec::new();
    let mut root = None;
    let mut exact = true;
    for event in events {
        let done = match event {
            Event::StartObject => {
                stack.push(Open::Object(toon::Map::new(), None));
                None
            }
            Event::StartArray { length } => {
                stack.push(Open::Array(Vec::new(), *length));
                None
            }
            Event::EndObject | Event::EndArray => match stack.pop() {
                Some(Open::Object(map, None)) if *event == Event::EndObject => {
                    Some(Value::Object(map))
                }
                Some(Open::Array(items, length)) if *event == Event::EndArray => {
                    exact &= items.len() == length;
                    Some(Value::Array(items))
                }
                _ => panic!("unbalanced events: {events:?}"),
            },
            Event::Key(key) => {
                match stack.last_mut() {
                    Some(Open::Object(_, slot @ None)) => *slot = Some(key.to_string()),
                    _ => panic!("a key outside an object, or two in a row: {events:?}"),
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
                None => {
                    assert!(root.is_none(), "two roots: {events:?}");
                    root = Some(value);
                }
                Some(Open::Array(items, _)) => items.push(value),
                Some(Open::Object(map, slot)) => {
                    let key = slot.take().expect("a value without a key");
                    map.insert(key, value);
                }
            }
        }
    }
    assert!(stack.is_empty(), "unclosed containers: {events:?}");
    (root.expect("no value"), exact)
}

/// Equal, objects in the same key order (`Value`'s `==` ignores order).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((k1, v1), (k2, v2))| k1 == k2 && same(v1, v2))
        }
        _ => a == b,
    }
}

/// The events against the decoder's answer for the same text.
fn agree_with_decoder(text: &str, run: &Run, options: &DecodeOptions) {
    match (toon::from_str_with::<Value>(text, options), &run.1) {
        (Ok(value), None) => {
            let (folded, exact) = fold(&run.0);
            assert!(
                same(&folded, &value),
                "events fold to {folded:?}, the decoder gives {value:?}: {text:?}"
            );
            assert!(
                exact || !options.is_strict(),
                "strict, yet a declared count is not the real one: {text:?}"
            );
        }
        (Err(want), Some(got)) => {
            assert_eq!(
                place(got),
                place(&want),
                "another error than the decoder's: {text:?}"
            );
            assert_within(text, got.line(), got.column(), got);
        }
        (Ok(value), Some(err)) => {
            panic!("events end in {err}, the decoder gives {value:?}: {text:?}")
        }
        (Err(want), None) => panic!("events end without error, the decoder says {want}: {text:?}"),
    }
}

/// `stream::transcode` against `json::transcode`: the same JSON text, or errors alike.
fn transcodes_alike(text: &str, options: &DecodeOptions) {
    let mut streamed = Vec::new();
    let a = toon::stream::transcode(text.as_bytes(), &mut streamed, 0, options);
    let mut decoded = Vec::new();
    let mut de = toon::Deserializer::from_str_with(text, options);
    let b = toon::json::transcode(&mut de, &mut decoded, 0);
    match (a, b) {
        (Ok(()), Ok(())) => {
            let shown = String::from_utf8_lossy(&streamed);
            assert_eq!(
                shown,
                String::from_utf8_lossy(&decoded),
                "other JSON for {text:?}"
            );
            serde_json::from_slice::<serde::de::IgnoredAny>(&streamed)
                .unwrap_or_else(|e| panic!("not JSON ({e}): {shown} for {text:?}"));
        }
        (Err(a), Err(b)) => assert_eq!(place(&a), place(&b), "other errors for {text:?}"),
        (a, b) => panic!("stream::transcode {a:?}, json::transcode {b:?} for {text:?}"),
    }
}

/// The `events` target.
pub fn events(data: &[u8]) {
    let Some(input) = split(data) else {
        return;
    };
    let capacity = [1, 7, 64, 8192][usize::from(input.flags >> 6)];
    let buffered = collect(Events::with_options(
        BufReader::with_capacity(capacity, input.text),
        &input.options,
    ));
    let whole = whole(&input);
    assert_same(&buffered, &whole, "Events with a small buffer", input.text);
    let Ok(text) = std::str::from_utf8(input.text) else {
        return;
    };
    let borrowed = collect(
        toon::stream::from_str_with(text, &input.options).map(|e| e.map(Event::into_owned)),
    );
    assert_same(&borrowed, &whole, "from_str", input.text);
    agree_with_decoder(text, &whole, &input.options);
    transcodes_alike(text, &input.options);
}

/// The `parser` target.
pub fn parser(data: &[u8]) {
    let Some(input) = split(data) else {
        return;
    };
    let mut parser = Parser::with_options(&input.options);
    let mut fed = (Vec::new(), None);
    for piece in pieces(input.text, input.flags) {
        match parser.feed_bytes(piece) {
            Ok(events) => fed.0.extend(events),
            Err(err) => {
                fed.1 = Some(err);
                break;
            }
        }
    }
    if fed.1.is_some() {
        // After an error every call fails.
        assert!(
            parser.feed_bytes(b"a: 1\n").is_err(),
            "a feed after an error"
        );
        assert!(parser.finish().is_err(), "finish after an error");
    } else {
        // `end`, then `finish`: the last line's events, then the end's error.
        match parser.end() {
            Ok(events) => fed.0.extend(events),
            Err(err) => fed.1 = Some(err),
        }
        match (parser.finish(), &fed.1) {
            (Ok(events), None) => assert!(events.is_empty(), "events after the end"),
            (Err(err), None) => fed.1 = Some(err),
            (Err(_), Some(_)) => {}
            (Ok(events), Some(err)) => panic!("finish gives {events:?} after {err}"),
        }
    }
    let whole = whole(&input);
    assert_same(&fed, &whole, "Parser in pieces", input.text);
    if let Ok(text) = std::str::from_utf8(input.text) {
        let borrowed = collect(
            toon::stream::from_str_with(text, &input.options).map(|e| e.map(Event::into_owned)),
        );
        assert_same(
            &fed,
            &borrowed,
            "Parser in pieces against from_str",
            input.text,
        );
        if let Some(err) = &fed.1 {
            assert_within(text, err.line(), err.column(), err);
        }
    }
}
