//! The MCP proxy's wire reader (`toon::mcp::proxy::wire`): what it reads of every line a
//! server or a client sends (stdio framing; the HTTP transports hand it each body and SSE
//! event's data the same way, through `Message::parse`).
//!
//! `Message::parse` keeps the line as sent, and its `id`, `params`, `result` and `error` are
//! JSON values of that line, the values serde_json finds there; a line it refuses keeps only
//! an `id` that is a whole JSON string or number (it goes into the reply). `Lines` gives the
//! same frames however the stream is cut, and each is what its line alone gives.

use bytes::BytesMut;
use serde::de::IgnoredAny;
use tokio_util::codec::Decoder;
use toon::mcp::proxy::wire::{Bad, Frame, Lines, Message};

use super::input::pieces;

/// The line limit the target runs `Lines` with: the least there is, so that an over-long
/// line fits in an input.
const LIMIT: usize = 4096;

/// Checks the reader on one input: a stream of lines after a first byte that says how to
/// cut it.
pub fn check(data: &[u8]) {
    let Some((&flags, stream)) = data.split_first() else {
        return;
    };
    let whole = frames([stream]);
    let cut = frames(pieces(stream, flags));
    assert_eq!(
        whole,
        cut,
        "other frames when cut: {:?}",
        String::from_utf8_lossy(stream)
    );
    alone(stream, &whole);
}

/// The frames of a stream fed in `pieces`, as tokio's `FramedRead` takes them.
fn frames<'a>(pieces: impl IntoIterator<Item = &'a [u8]>) -> Vec<Frame> {
    let mut lines = Lines::with_limit(LIMIT);
    let mut buf = BytesMut::new();
    let mut out = Vec::new();
    for piece in pieces {
        buf.extend_from_slice(piece);
        while let Some(frame) = lines.decode(&mut buf).expect("decoding never fails") {
            out.push(frame);
        }
    }
    while let Some(frame) = lines.decode_eof(&mut buf).expect("decoding never fails") {
        out.push(frame);
    }
    out
}

/// Each frame is its line's: the stream split at `\n`, a CR before it dropped, blank lines
/// passed over, a line over the limit too long (its size counting a CR).
fn alone(stream: &[u8], frames: &[Frame]) {
    let mut expected = Vec::new();
    for line in stream.split(|&b| b == b'\n') {
        if line.len() > LIMIT {
            expected.push(None);
            continue;
        }
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        expected.push(Some(line));
    }
    assert_eq!(
        expected.len(),
        frames.len(),
        "{frames:?} for {:?}",
        String::from_utf8_lossy(stream)
    );
    for (line, frame) in expected.into_iter().zip(frames) {
        match (line, frame) {
            (None, Err(Bad::TooLong { size, .. })) => assert!(*size > LIMIT),
            (Some(line), frame) => match std::str::from_utf8(line) {
                Ok(text) => {
                    assert_eq!(&Message::parse(text.to_owned()), frame);
                    message(text);
                }
                Err(_) => assert!(matches!(frame, Err(Bad::NotJson { .. })), "{frame:?}"),
            },
            (None, frame) => panic!("a line over the limit read as {frame:?}"),
        }
    }
}

/// `Message::parse` on one line.
fn message(text: &str) {
    match Message::parse(text.to_owned()) {
        Ok(m) => parsed(text, &m),
        Err(bad) => {
            if let Some(id) = bad.id() {
                let is_id =
                    id.starts_with(['"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
                assert!(
                    is_id && serde_json::from_str::<IgnoredAny>(id).is_ok(),
                    "id {id} of {bad}"
                );
            }
            let _ = bad.to_string();
            if let Bad::NotJson { .. } = bad {
                let object = text.trim_start().starts_with('{')
                    && serde_json::from_str::<IgnoredAny>(text).is_ok();
                assert!(!object, "{bad}, yet serde_json reads an object: {text:?}");
            }
        }
    }
}

fn parsed(text: &str, m: &Message) {
    assert_eq!(m.text(), text);
    let object = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(text).ok();
    let parts = [
        ("id", m.id()),
        ("params", m.params()),
        ("result", m.result()),
        ("error", m.error()),
    ];
    for (name, part) in parts {
        let Some(part) = part else {
            if let Some(object) = &object {
                assert!(!object.contains_key(name), "{name} missed in {text:?}");
            }
            continue;
        };
        assert_eq!(part.trim(), part, "{name} with spaces around it");
        serde_json::from_str::<IgnoredAny>(part).unwrap_or_else(|e| panic!("{name} {part:?}: {e}"));
        if let (Some(object), Ok(value)) =
            (&object, serde_json::from_str::<serde_json::Value>(part))
        {
            assert_eq!(object.get(name), Some(&value), "{name} in {text:?}");
        }
    }
    if let Some(object) = &object {
        let method = object.get("method").and_then(serde_json::Value::as_str);
        assert_eq!(m.method(), method, "method of {text:?}");
    }
    let _ = (m.kind(), m.progress_token(), m.params_json());
}
