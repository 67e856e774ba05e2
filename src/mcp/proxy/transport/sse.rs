//! A server-sent events parser for the streams of Streamable HTTP (the event stream format of
//! the WHATWG HTML standard, § 9.2.6, which the MCP transport refers to): lines end with CRLF,
//! LF or CR; `data:` lines of one event are joined with `\n`; `id:` sets the last event id
//! (kept for resuming with `Last-SseEvent-ID`), `retry:` the reconnection delay; lines starting
//! with `:` are comments (keep-alives); an event is dispatched at an empty line, and one with
//! empty data (a priming event) is not.
//!
//! Events of other types are handed on by name (the HTTP+SSE transport's `endpoint`).
//!
//! Bounded: an event whose data grows past the limit is not buffered further; what is kept is
//! its first bytes (to find its JSON-RPC `id`) and its size, and it is dispatched as too long.
//!
//! A `data:` line cannot hold a CR or LF (either ends the line: a bare CR in a message split
//! its event), so a message is written as [`one_line`] makes it, with the same JSON value.

use std::borrow::Cow;

use crate::mcp::proxy::transport::wire::HEAD_BYTES;

/// `text` (a JSON message) without CR or LF, with the same JSON value: outside strings they
/// are whitespace and become spaces; inside a string (where JSON wants them escaped, and a
/// lenient reader would take them as they are) they become `\r` and `\n`. Messages the
/// proxy forwards are valid JSON, so only the first happens; borrowed when there is neither.
pub(crate) fn one_line(text: &[u8]) -> Cow<'_, [u8]> {
    if memchr::memchr2(b'\n', b'\r', text).is_none() {
        return Cow::Borrowed(text);
    }
    let mut out = Vec::with_capacity(text.len() + 8);
    let (mut in_string, mut escaped) = (false, false);
    for &b in text {
        match b {
            b'\r' | b'\n' if in_string => {
                // Right after a backslash the escape's letter alone completes it.
                if !escaped {
                    out.push(b'\\');
                }
                out.push(if b == b'\r' { b'r' } else { b'n' });
                escaped = false;
                continue;
            }
            b'\r' | b'\n' => out.push(b' '),
            _ => out.push(b),
        }
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if b == b'"' {
            in_string = true;
        }
    }
    Cow::Owned(out)
}

/// One dispatched event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SseEvent {
    /// A `message` event (or one without `event:`): its data.
    Message(String),
    /// An event of another type (`event: endpoint` of the HTTP+SSE transport): its
    /// type and data. One longer than the limit is dropped.
    Named {
        /// Its `event:` field.
        name: String,
        /// Its data.
        data: String,
    },
    /// A `message` event whose data was longer than the limit: its size and its first bytes.
    TooLong {
        /// Bytes of data seen.
        size: usize,
        /// The first bytes of its data.
        head: Vec<u8>,
    },
}

/// The parser's state between chunks.
#[derive(Debug)]
pub(crate) struct EventParser {
    /// Largest data of one event.
    limit: usize,
    /// The line being read (at most `limit` bytes plus a field name are kept).
    line: Vec<u8>,
    /// Bytes of the current line beyond what `line` keeps.
    line_cut: usize,
    /// The last byte seen was a CR: a LF right after it ends nothing.
    after_cr: bool,
    /// At the very start: a byte order mark is skipped.
    at_start: bool,
    data: Vec<u8>,
    /// Data bytes beyond the limit (the event is too long).
    data_cut: usize,
    has_data: bool,
    event_type: Vec<u8>,
    last_id: Option<String>,
    retry: Option<u64>,
}

impl EventParser {
    /// A parser for events of at most `limit` bytes of data.
    pub(crate) fn new(limit: usize) -> EventParser {
        EventParser {
            limit,
            line: Vec::new(),
            line_cut: 0,
            after_cr: false,
            at_start: true,
            data: Vec::new(),
            data_cut: 0,
            has_data: false,
            event_type: Vec::new(),
            last_id: None,
            retry: None,
        }
    }

    /// The id of the last event dispatched (or of the last `id:` line before an empty event),
    /// as `Last-SseEvent-ID` wants it.
    pub(crate) fn last_id(&self) -> Option<&str> {
        self.last_id.as_deref().filter(|id| !id.is_empty())
    }

    /// The reconnection delay the server asked for, in milliseconds.
    pub(crate) fn retry(&self) -> Option<u64> {
        self.retry
    }

    /// Reads a chunk; the events it completes go to `out`, in order.
    pub(crate) fn feed(&mut self, mut chunk: &[u8], out: &mut Vec<SseEvent>) {
        if self.at_start && !chunk.is_empty() {
            let bom = b"\xEF\xBB\xBF";
            // A BOM split over chunks is not expected from a server; one whole is skipped.
            if let Some(rest) = chunk.strip_prefix(bom) {
                chunk = rest;
            }
            self.at_start = false;
        }
        while !chunk.is_empty() {
            if self.after_cr {
                self.after_cr = false;
                if chunk[0] == b'\n' {
                    chunk = &chunk[1..];
                    continue;
                }
            }
            match memchr::memchr2(b'\n', b'\r', chunk) {
                Some(i) => {
                    self.push_line(&chunk[..i]);
                    self.after_cr = chunk[i] == b'\r';
                    chunk = &chunk[i + 1..];
                    self.end_line(out);
                }
                None => {
                    self.push_line(chunk);
                    chunk = &[];
                }
            }
        }
    }

    /// Keeps bytes of the current line, up to the limit (plus room for a field name).
    fn push_line(&mut self, bytes: &[u8]) {
        let room = (self.limit + 16).saturating_sub(self.line.len());
        let kept = bytes.len().min(room);
        self.line.extend_from_slice(&bytes[..kept]);
        self.line_cut += bytes.len() - kept;
    }

    fn end_line(&mut self, out: &mut Vec<SseEvent>) {
        let line = std::mem::take(&mut self.line);
        let cut = std::mem::replace(&mut self.line_cut, 0);
        if line.is_empty() && cut == 0 {
            self.dispatch(out);
            return;
        }
        if line.first() == Some(&b':') {
            return;
        }
        let (field, value) = match memchr::memchr(b':', &line) {
            Some(i) => {
                let value = &line[i + 1..];
                (&line[..i], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (&line[..], &[][..]),
        };
        match field {
            b"data" => {
                if self.has_data {
                    self.push_data(b"\n", 0);
                }
                self.has_data = true;
                self.push_data(value, cut);
            }
            b"event" => self.event_type = value.to_vec(),
            b"id" if !value.contains(&0) => {
                self.last_id = Some(String::from_utf8_lossy(value).into_owned());
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                self.retry = std::str::from_utf8(value).ok().and_then(|v| v.parse().ok());
            }
            _ => {}
        }
    }

    fn push_data(&mut self, bytes: &[u8], cut: usize) {
        let room = self.limit.saturating_sub(self.data.len());
        if self.data_cut == 0 && bytes.len() <= room && cut == 0 {
            self.data.extend_from_slice(bytes);
            return;
        }
        // Too long: keep the head only, count the rest.
        let head_room = HEAD_BYTES.saturating_sub(self.data.len().min(HEAD_BYTES));
        if self.data.len() > HEAD_BYTES {
            self.data_cut += self.data.len() - HEAD_BYTES;
            self.data.truncate(HEAD_BYTES);
        }
        let kept = bytes.len().min(head_room);
        self.data.extend_from_slice(&bytes[..kept]);
        self.data_cut += bytes.len() - kept + cut;
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        let data = std::mem::take(&mut self.data);
        let cut = std::mem::replace(&mut self.data_cut, 0);
        let has_data = std::mem::replace(&mut self.has_data, false);
        let event_type = std::mem::take(&mut self.event_type);
        if !has_data || (data.is_empty() && cut == 0) {
            return;
        }
        if !(event_type.is_empty() || event_type == b"message") {
            if cut == 0 {
                out.push(SseEvent::Named {
                    name: String::from_utf8_lossy(&event_type).into_owned(),
                    data: String::from_utf8_lossy(&data).into_owned(),
                });
            }
            return;
        }
        if cut > 0 {
            out.push(SseEvent::TooLong {
                size: data.len() + cut,
                head: data,
            });
            return;
        }
        match String::from_utf8(data) {
            Ok(text) => out.push(SseEvent::Message(text)),
            // Handed on as bytes would be; the reader says it is not UTF-8.
            Err(e) => out.push(SseEvent::Message(
                String::from_utf8_lossy(e.as_bytes()).into_owned(),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(chunks: &[&[u8]], limit: usize) -> (Vec<SseEvent>, EventParser) {
        let mut p = EventParser::new(limit);
        let mut out = Vec::new();
        for c in chunks {
            p.feed(c, &mut out);
        }
        (out, p)
    }

    fn msg(s: &str) -> SseEvent {
        SseEvent::Message(s.to_owned())
    }

    #[test]
    fn events_as_servers_send_them() {
        // A priming event (id, empty data), then a message, as the TypeScript SDK sends them.
        let (out, p) = parse(
            &[b"id: 1\ndata: \n\nevent: message\nid: 2\ndata: {\"id\":1}\n\n"],
            1 << 20,
        );
        assert_eq!(out, [msg("{\"id\":1}")]);
        assert_eq!(p.last_id(), Some("2"));
    }

    #[test]
    fn line_endings_comments_multi_line_data_retry() {
        let text: &[u8] =
            b"\xEF\xBB\xBF: keep-alive\r\nretry: 2500\r\ndata:{\"a\":\r\ndata: 1}\r\n\r\nevent: other\ndata: x\n\ndata: y\r\rdata:z\n\n";
        // Whole, and byte by byte (a CRLF split over chunks is one line end).
        let (out, p) = parse(&[text], 1 << 20);
        let bytes: Vec<&[u8]> = text.chunks(1).collect();
        let (out1, _) = parse(&bytes, 1 << 20);
        let other = SseEvent::Named {
            name: "other".into(),
            data: "x".into(),
        };
        assert_eq!(out, [msg("{\"a\":\n1}"), other, msg("y"), msg("z")]);
        assert_eq!(out1, out);
        assert_eq!(p.retry(), Some(2500));
        assert_eq!(p.last_id(), None);
    }

    #[test]
    fn one_line_keeps_the_json_value() {
        let cases: [(&[u8], &[u8]); 4] = [
            (b"{\"a\":1}", b"{\"a\":1}"),
            (b"{\r\"a\":\r\n[1,\r2]}\r", b"{ \"a\":  [1, 2]} "),
            // Raw in a string (not JSON): the escape a lenient reader's value has.
            (b"{\"s\":\"x\ry\\\"\n\"}", b"{\"s\":\"x\\ry\\\"\\n\"}"),
            (b"{\"s\":\"\\\\\"\r}", b"{\"s\":\"\\\\\" }"),
        ];
        for (text, want) in cases {
            let got = one_line(text);
            assert_eq!(String::from_utf8_lossy(&got), String::from_utf8_lossy(want));
            assert!(matches!(got, Cow::Borrowed(_)) == !text.contains(&b'\r'));
        }
        let pretty = b"{\"id\":1,\r\"result\":{\"t\":\"a\\rb\"}}";
        let read: serde_json::Value = serde_json::from_slice(&one_line(pretty)).unwrap();
        let want: serde_json::Value = serde_json::from_slice(pretty).unwrap();
        assert_eq!(read, want);
    }

    #[test]
    fn an_incomplete_event_is_not_dispatched() {
        let (out, _) = parse(&[b"data: {\"id\":1}\n"], 1 << 20);
        assert!(out.is_empty());
    }

    #[test]
    fn an_event_over_the_limit_keeps_its_head_only() {
        let big = format!("data: {{\"id\":7,\"x\":\"{}\"}}\n\n", "a".repeat(10_000));
        for chunk in [big.len(), 100, 7] {
            let chunks: Vec<&[u8]> = big.as_bytes().chunks(chunk).collect();
            let (out, p) = parse(&chunks, 5000);
            let [SseEvent::TooLong { size, head }] = &out[..] else {
                panic!("{out:?}")
            };
            assert_eq!(*size, big.len() - 8);
            assert_eq!(head.len(), HEAD_BYTES);
            assert!(head.starts_with(b"{\"id\":7,"));
            assert!(p.line.capacity() < 6000);
        }
        // The stream goes on.
        let (out, _) = parse(&[big.as_bytes(), b"data: 2\n\n"], 5000);
        assert_eq!(out[1], msg("2"));
    }
}
