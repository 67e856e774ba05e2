//! JSON-RPC 2.0 messages as the text they came in, framed one per line (MCP's stdio
//! transport).
//!
//! A message is kept as its line: the proxy reads the envelope (`id`, `method`, and where
//! `params`, `result` and `error` lie) and forwards everything it does not change byte for
//! byte. Parsing into `serde_json::Value` and printing again would change numbers beyond
//! `f64` (an id `123456789012345678901234567890` would come back as another number, and the
//! client could not match the reply) and would refuse text `Value` cannot hold (a lone
//! surrogate, `1e400`, deep nesting), which is the server's business, not the proxy's.
//!
//! Framing is a plain line splitter with a length limit ([`Lines`]): a longer line is skipped
//! without being buffered, and what the proxy needs to answer for it (its size, and the `id`
//! read from its first bytes) is kept.

use std::ops::Range;

use bytes::{Buf, BytesMut};
use serde::Deserialize;
use serde_json::Value as Json;
use serde_json::value::RawValue;
use tokio_util::codec::{Decoder, Encoder};

/// Longest message accepted (16 MiB, as rmcp's stdio transport); a longer line is skipped
/// whole, never buffered, and answered (see [`Bad::TooLong`]).
pub const MAX_MESSAGE_BYTES: usize = 16 << 20;

/// How much of an over-long or malformed line is kept to find its `id`.
pub(crate) const HEAD_BYTES: usize = 4096;

pub use crate::mcp::proxy::error::code;

/// One line that is not a message, with what could be read of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bad {
    /// Longer than [`MAX_MESSAGE_BYTES`]: skipped.
    TooLong {
        /// Its length in bytes.
        size: usize,
        /// Its `id` (as JSON text), when its first bytes show one.
        id: Option<String>,
    },
    /// JSON, but not a JSON-RPC message (`"method": 5`, `"id"` twice).
    NotMessage {
        /// Why.
        why: String,
        /// Its `id` (as JSON text), when its first bytes show one.
        id: Option<String>,
    },
    /// Not a JSON object (or not UTF-8).
    NotJson {
        /// Why, with line and column.
        why: String,
        /// Its `id` (as JSON text), when its first bytes show one.
        id: Option<String>,
    },
}

impl Bad {
    /// The `id` read from the line, as JSON text.
    #[must_use]
    pub fn id(&self) -> Option<&str> {
        match self {
            Bad::TooLong { id, .. } | Bad::NotJson { id, .. } | Bad::NotMessage { id, .. } => {
                id.as_deref()
            }
        }
    }
}

impl std::fmt::Display for Bad {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Bad::TooLong { size, .. } => write!(
                f,
                "a message of {size} bytes, over the proxy's limit of {MAX_MESSAGE_BYTES} bytes (16 MiB)"
            ),
            Bad::NotJson { why, .. } => write!(f, "a message that is not JSON: {why}"),
            Bad::NotMessage { why, .. } => write!(f, "a message that is not JSON-RPC: {why}"),
        }
    }
}

/// One line of the stream: a message, or why the line was not one.
pub type Frame = Result<Message, Bad>;

/// Why a connection closed, in words: what a transport's stream of frames ends with, and
/// the reason a [`CallError::Closed`](crate::mcp::proxy::error::CallError::Closed) gives.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct Hangup(pub(crate) String);

/// A JSON-RPC error response refusing a request, as the text to write (made by [`error`]):
/// what a check gives when its request is answered at once instead of served.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Refusal(pub(crate) String);

/// A JSON-RPC message: its text as received, and where its envelope's parts are.
#[derive(Clone, PartialEq, Eq)]
pub struct Message {
    text: String,
    id: Option<Range<usize>>,
    method: Option<String>,
    params: Option<Range<usize>>,
    result: Option<Range<usize>>,
    error: Option<Range<usize>>,
    /// The id of the request on whose answer stream a peer's own request or notification
    /// came (Streamable HTTP), when the transport can tell.
    answering: Option<u64>,
}

impl std::fmt::Debug for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

#[derive(Deserialize)]
struct Outline<'t> {
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'t RawValue>,
    #[serde(default)]
    method: Option<std::borrow::Cow<'t, str>>,
    #[serde(borrow, default, deserialize_with = "present")]
    params: Option<&'t RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    result: Option<&'t RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    error: Option<&'t RawValue>,
}

/// A member that is there, `null` included (`"id": null` is not a notification).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

impl Message {
    /// Reads the envelope of one line.
    ///
    /// # Errors
    /// When the text is not a JSON object.
    pub fn parse(text: String) -> Result<Message, Bad> {
        // serde reads a struct from an array too; a message is an object.
        if !text.trim_start().starts_with('{') {
            return Err(Bad::NotJson {
                why: "not a JSON object".to_owned(),
                id: None,
            });
        }
        let envelope: Outline<'_> = match serde_json::from_str(&text) {
            Ok(e) => e,
            Err(e) => {
                let id = head_id(text.as_bytes());
                let why = e.to_string();
                return Err(if e.is_data() {
                    Bad::NotMessage { why, id }
                } else {
                    Bad::NotJson { why, id }
                });
            }
        };
        let at = |raw: Option<&RawValue>| raw.map(|r| crate::mcp::raw::span(&text, r.get()));
        let (id, params, result, error) = (
            at(envelope.id),
            at(envelope.params),
            at(envelope.result),
            at(envelope.error),
        );
        let method = envelope.method.map(std::borrow::Cow::into_owned);
        Ok(Message {
            id,
            method,
            params,
            result,
            error,
            text,
            answering: None,
        })
    }

    /// Says that it came on the answer stream of the request `id` (a number: the proxy's
    /// ids are): a request or a notification there is about that request
    /// (`// 2025-11-25 basic/transports` "Sending Messages to the Server": a server's
    /// requests and notifications on that stream SHOULD relate to the client's request).
    #[cfg(feature = "mcp-http")]
    pub(crate) fn came_answering(&mut self, id: &str) {
        if self.id.is_none() || self.method.is_some() {
            self.answering = id.parse().ok();
        }
    }

    /// The request on whose answer stream it came, if the transport said ([`Self::came_answering`]).
    #[must_use]
    pub(crate) fn answering(&self) -> Option<u64> {
        self.answering
    }

    /// A message built by the proxy (it must be a JSON object).
    ///
    /// # Panics
    /// When `value` is not a JSON object (a bug of the caller).
    #[must_use]
    pub fn from_json(value: &Json) -> Message {
        Message::parse(value.to_string()).expect("a JSON object")
    }

    /// The whole text, as received.
    #[must_use]
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Its `id` as JSON text (`7`, `"a"`, `null`), if it has one.
    #[must_use]
    pub fn id(&self) -> Option<&str> {
        self.id.clone().map(|r| &self.text[r])
    }

    /// Its `method`, if it has one.
    #[must_use]
    pub fn method(&self) -> Option<&str> {
        self.method.as_deref()
    }

    /// Its `params` as JSON text.
    #[must_use]
    pub fn params(&self) -> Option<&str> {
        self.params.clone().map(|r| &self.text[r])
    }

    /// Its `result` as JSON text.
    #[must_use]
    pub fn result(&self) -> Option<&str> {
        self.result.clone().map(|r| &self.text[r])
    }

    /// Its `error` as JSON text.
    #[must_use]
    pub fn error(&self) -> Option<&str> {
        self.error.clone().map(|r| &self.text[r])
    }

    /// Its `params` parsed (lossy for numbers beyond `f64`: for reading, never forwarding);
    /// `Null` when absent or unreadable.
    #[must_use]
    pub fn params_json(&self) -> Json {
        self.params()
            .and_then(|p| serde_json::from_str(p).ok())
            .unwrap_or(Json::Null)
    }

    /// The progress token it carries, as JSON text: a progress notification's
    /// `params.progressToken`, any other message's `params._meta.progressToken`.
    #[must_use]
    pub fn progress_token(&self) -> Option<String> {
        let params = self.params()?;
        if self.method() == Some("notifications/progress") && self.id.is_none() {
            return crate::mcp::raw::get_path(params, &["progressToken"]).map(|t| t.to_owned());
        }
        request_progress_token(params)
    }

    /// What kind of JSON-RPC message it is.
    #[must_use]
    pub fn kind(&self) -> Kind<'_> {
        // JSON-RPC ids are strings or numbers; `null` only answers what could not be read.
        let id = self.id().filter(|id| {
            id.starts_with(['"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9'])
        });
        match (self.method(), id) {
            (Some(method), Some(id)) => Kind::Request { id, method },
            (Some(method), None) if self.id.is_none() => Kind::Notification { method },
            (None, Some(id)) if self.result.is_some() || self.error.is_some() => {
                Kind::Response { id }
            }
            _ => Kind::Invalid,
        }
    }
}

/// The `_meta.progressToken` of request params (JSON text), as JSON text.
#[must_use]
pub fn request_progress_token(params: &str) -> Option<String> {
    crate::mcp::raw::get_path(params, &["_meta", "progressToken"]).map(|t| t.to_owned())
}

/// What a message is, as JSON-RPC.
#[derive(Debug, PartialEq, Eq)]
pub enum Kind<'a> {
    /// A request: `id` (as JSON text) and `method`.
    Request {
        /// Its id, as JSON text.
        id: &'a str,
        /// Its method.
        method: &'a str,
    },
    /// A notification: `method`, no `id`.
    Notification {
        /// Its method.
        method: &'a str,
    },
    /// A response: `id` and `result` or `error`.
    Response {
        /// The id of the request it answers, as JSON text.
        id: &'a str,
    },
    /// None of these.
    Invalid,
}

/// The `"id"` of a line that could not be parsed whole, read from its first bytes: the value
/// of the first top-level key `id`, when it is a number or a string without escapes.
pub(crate) fn head_id(line: &[u8]) -> Option<String> {
    let head = &line[..line.len().min(HEAD_BYTES)];
    let mut depth = 0usize;
    let mut at = 0;
    let mut key_next = false;
    while at < head.len() {
        match head[at] {
            b'"' => {
                let end = crate::mcp::json_text::string_end(head, at + 1);
                let is_key = depth == 1 && key_next;
                if is_key && &head[at..end] == b"\"id\"" {
                    let mut v = end;
                    while v < head.len() && matches!(head[v], b' ' | b'\t' | b'\r' | b':') {
                        v += 1;
                    }
                    let start = v;
                    let end = if head.get(v) == Some(&b'"') {
                        crate::mcp::json_text::string_end(head, v + 1)
                    } else {
                        // A number that reaches the end of what was read may go on beyond.
                        Some(crate::mcp::json_text::number_end(head, v))
                            .filter(|&e| e < head.len())?
                    };
                    return valid_id(&head[start..end.min(head.len())]);
                }
                key_next = false;
                at = end;
                continue;
            }
            b'{' => {
                depth += 1;
                key_next = true;
            }
            b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b',' => key_next = true,
            _ => {}
        }
        at += 1;
    }
    None
}

/// `candidate` when it is a whole JSON string or number, the only ids a reply may carry:
/// whatever the first bytes of a broken line hold goes into a reply, which must stay JSON.
fn valid_id(candidate: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(candidate).ok()?;
    // serde_json takes exactly one whole value: no open string, no `01`, `1.` or `1-2`.
    let raw: &RawValue = serde_json::from_str(text).ok()?;
    let is_id = raw
        .get()
        .starts_with(['"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    (is_id && raw.get().len() == text.len()).then(|| text.to_owned())
}

/// Splits a byte stream into lines of at most [`MAX_MESSAGE_BYTES`] (or the limit given to
/// [`with_limit`](Self::with_limit)) and reads each as a [`Message`]; a line that is too long
/// or not JSON becomes a [`Bad`] frame and the stream goes on. Writes messages one per line.
#[derive(Debug)]
pub struct Lines {
    /// The longest line read.
    limit: usize,
    /// Bytes of the current line already searched for a newline.
    searched: usize,
    /// Skipping an over-long line: its size so far and its first bytes.
    skipping: Option<(usize, Vec<u8>)>,
}

impl Default for Lines {
    fn default() -> Self {
        Lines::with_limit(MAX_MESSAGE_BYTES)
    }
}

impl Lines {
    /// Lines of at most `limit` bytes (at least 4 KiB, so that a skipped line's
    /// first bytes are there to read its id from).
    #[must_use]
    pub fn with_limit(limit: usize) -> Lines {
        Lines {
            limit: limit.max(HEAD_BYTES),
            searched: 0,
            skipping: None,
        }
    }
}

impl Decoder for Lines {
    type Item = Frame;
    type Error = std::io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> std::io::Result<Option<Frame>> {
        loop {
            if let Some((size, head)) = &mut self.skipping {
                match memchr::memchr(b'\n', buf) {
                    Some(i) => {
                        *size += i;
                        let (size, head) = (*size, std::mem::take(head));
                        buf.advance(i + 1);
                        self.skipping = None;
                        return Ok(Some(Err(Bad::TooLong {
                            size,
                            id: head_id(&head),
                        })));
                    }
                    None => {
                        *size += buf.len();
                        buf.clear();
                        return Ok(None);
                    }
                }
            }
            match memchr::memchr(b'\n', &buf[self.searched..]) {
                Some(i) if self.searched + i > self.limit => {
                    let size = self.searched + i;
                    self.searched = 0;
                    let id = head_id(&buf[..HEAD_BYTES]);
                    buf.advance(size + 1);
                    return Ok(Some(Err(Bad::TooLong { size, id })));
                }
                Some(i) => {
                    let end = self.searched + i;
                    self.searched = 0;
                    let line = buf.split_to(end + 1);
                    let line = &line[..end];
                    let line = line.strip_suffix(b"\r").unwrap_or(line);
                    if line.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    return Ok(Some(frame(line)));
                }
                None if buf.len() > self.limit => {
                    let head = buf[..HEAD_BYTES].to_vec();
                    self.skipping = Some((buf.len(), head));
                    buf.clear();
                    self.searched = 0;
                }
                None => {
                    self.searched = buf.len();
                    return Ok(None);
                }
            }
        }
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> std::io::Result<Option<Frame>> {
        if let Some(frame) = self.decode(buf)? {
            return Ok(Some(frame));
        }
        if let Some((size, head)) = self.skipping.take() {
            return Ok(Some(Err(Bad::TooLong {
                size,
                id: head_id(&head),
            })));
        }
        // A last line without its newline.
        let line = buf.split();
        self.searched = 0;
        let line = line.strip_suffix(b"\r").unwrap_or(&line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        Ok(Some(frame(line)))
    }
}

pub(crate) fn frame(line: &[u8]) -> Frame {
    match std::str::from_utf8(line) {
        Ok(text) => Message::parse(text.to_owned()),
        Err(e) => Err(Bad::NotJson {
            why: format!("not UTF-8: {e}"),
            id: head_id(line),
        }),
    }
}

impl Encoder<&str> for Lines {
    type Error = std::io::Error;

    fn encode(&mut self, line: &str, buf: &mut BytesMut) -> std::io::Result<()> {
        buf.reserve(line.len() + 1);
        buf.extend_from_slice(line.as_bytes());
        buf.extend_from_slice(b"\n");
        Ok(())
    }
}

impl Encoder<String> for Lines {
    type Error = std::io::Error;

    fn encode(&mut self, line: String, buf: &mut BytesMut) -> std::io::Result<()> {
        self.encode(line.as_str(), buf)
    }
}

/// `_meta` keys of revision 2026-07-28's per-request envelope (`// 2026-07-28 basic/index`
/// "Request metadata"), which both the fronts and the proxy's client side of servers write.
pub(crate) mod meta {
    /// The request's revision (required).
    pub(crate) const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
    /// The client's capabilities for this request (required).
    pub(crate) const CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
    /// The client's name and version.
    pub(crate) const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
    /// The log level the request opts in to (`// 2026-07-28 server/utilities/logging`).
    pub(crate) const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";
    /// Of a result: the server's name and version.
    pub(crate) const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";
    /// Of a notification on a `subscriptions/listen` stream: the listen request's id.
    pub(crate) const SUBSCRIPTION_ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";
}

/// A request with the proxy's own id.
#[must_use]
pub fn request(id: u64, method: &str, params: Option<&str>) -> String {
    match params {
        Some(p) => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":{},"params":{p}}}"#,
            quote(method)
        ),
        None => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":{}}}"#,
            quote(method)
        ),
    }
}

/// A notification; `params` is JSON text, written as it is.
#[must_use]
pub fn notification(method: &str, params: Option<&str>) -> String {
    match params {
        Some(p) => format!(
            r#"{{"jsonrpc":"2.0","method":{},"params":{p}}}"#,
            quote(method)
        ),
        None => format!(r#"{{"jsonrpc":"2.0","method":{}}}"#, quote(method)),
    }
}

/// A successful response; `id` and `result` are JSON text, written as they are.
#[must_use]
pub fn response(id: &str, result: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#)
}

/// An error response; `id` is JSON text (`null` when the request's id could not be read).
#[must_use]
pub fn error(id: &str, code: i64, message: &str, data: Option<&str>) -> String {
    let data = data.map(|d| format!(r#","data":{d}"#)).unwrap_or_default();
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":{}{data}}}}}"#,
        quote(message)
    )
}

fn quote(text: &str) -> String {
    crate::mcp::raw::quote(text)
}

/// A progress token (JSON text) as a key that a server re-printing it does not change: a
/// string by its unescaped text (`"\u00e9"` is `"é"`), a number by its exact value (`1.0`
/// is `1`).
pub(crate) fn token_key(token: &str) -> String {
    if token.starts_with('"') {
        if let Some(text) = crate::mcp::raw::unquote(token) {
            return format!("s{text}");
        }
    } else if let Some(number) = crate::json::canonical_number(token) {
        return format!("n{number}");
    }
    format!("r{token}")
}

/// A progress notification (a whole line) under `token` (JSON text) instead of its own; as it
/// is when it has none; `None` (not sent) when `token` is `None`: the client waits on no token
/// (`// 2026-07-28 basic/patterns/progress`: progress only under a token the request gave).
pub(crate) fn retoken(text: &str, token: Option<&str>) -> Option<String> {
    let token = token?;
    let Ok(message) = Message::parse(text.to_owned()) else {
        return Some(text.to_owned());
    };
    let Some(params) = message.params() else {
        return Some(text.to_owned());
    };
    let entries = crate::mcp::raw::entries(params).unwrap_or_default();
    let Some(old) = crate::mcp::raw::get(&entries, "progressToken") else {
        return Some(text.to_owned());
    };
    let mut splice = crate::mcp::raw::Splice::new(message.text());
    splice.replace(old, token.to_owned());
    Some(splice.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Message {
        Message::parse(text.to_owned()).unwrap()
    }

    #[test]
    fn kinds() {
        let r = parse(r#"{"jsonrpc": "2.0", "id": 1, "method": "ping"}"#);
        assert_eq!(
            r.kind(),
            Kind::Request {
                id: "1",
                method: "ping"
            }
        );
        let n = parse(r#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#);
        assert_eq!(
            n.kind(),
            Kind::Notification {
                method: "notifications/initialized"
            }
        );
        let ok = parse(r#"{"jsonrpc": "2.0", "id": "a", "result": {}}"#);
        assert_eq!(ok.kind(), Kind::Response { id: "\"a\"" });
        assert_eq!(
            parse(r#"{"id": null, "method": "x"}"#).kind(),
            Kind::Invalid
        );
        assert!(Message::parse("[1]".into()).is_err());
    }

    #[test]
    fn what_is_not_read_stays_as_sent() {
        let text = r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"tools/call","params":{"name":"x","arguments":{"s":"\ud83d","n":1e400,"d":0.1000000000000000055511151231257827}}}"#;
        let m = parse(text);
        assert_eq!(
            m.kind(),
            Kind::Request {
                id: "123456789012345678901234567890",
                method: "tools/call"
            }
        );
        assert!(
            m.params()
                .unwrap()
                .contains(r#""n":1e400,"d":0.1000000000000000055511151231257827"#)
        );
        assert_eq!(
            response(m.id().unwrap(), "{}"),
            r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{}}"#
        );
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":4,"result":{}{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        assert_eq!(parse(&deep).kind(), Kind::Response { id: "4" });
    }

    #[test]
    fn bad_lines_do_not_end_the_stream_and_keep_their_id() {
        let mut lines = Lines::default();
        let mut buf = BytesMut::from(
            &b"not json\n{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"x\":NaN}}\n\n{\"id\":1,\"result\":{}}\r\n"[..],
        );
        assert!(matches!(
            lines.decode(&mut buf).unwrap().unwrap(),
            Err(Bad::NotJson { id: None, .. })
        ));
        let bad = lines.decode(&mut buf).unwrap().unwrap().unwrap_err();
        assert_eq!(bad.id(), Some("7"));
        let ok = lines.decode(&mut buf).unwrap().unwrap().unwrap();
        assert_eq!(ok.id(), Some("1"));
        assert!(lines.decode(&mut buf).unwrap().is_none());
    }

    #[test]
    fn an_over_long_line_is_skipped_with_its_size_and_id() {
        let mut lines = Lines::default();
        let big = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":\"r-9\",\"result\":{{\"text\":\"{}\"}}}}\n{{\"id\":2,\"result\":{{}}}}\n",
            "x".repeat(MAX_MESSAGE_BYTES)
        );
        let size = big.find('\n').unwrap();
        let mut out = Vec::new();
        // Fed in chunks, as a pipe delivers it.
        let mut buf = BytesMut::new();
        for chunk in big.as_bytes().chunks(1 << 20) {
            buf.extend_from_slice(chunk);
            while let Some(frame) = lines.decode(&mut buf).unwrap() {
                out.push(frame);
            }
            assert!(buf.len() <= MAX_MESSAGE_BYTES + (1 << 20));
        }
        assert_eq!(
            out[0],
            Err(Bad::TooLong {
                size,
                id: Some("\"r-9\"".into())
            })
        );
        assert_eq!(out[1].as_ref().unwrap().id(), Some("2"));
    }

    #[test]
    fn head_ids() {
        assert_eq!(
            head_id(br#"{"a":{"id":5},"id":6,"x":NaN}"#),
            Some("6".into())
        );
        assert_eq!(
            head_id(br#"{"jsonrpc":"2.0","id":"q\"","x"#),
            Some(r#""q\"""#.into())
        );
        // Only a whole string or number: a reply built from it must stay JSON.
        for broken in [
            &br#"{"jsonrpc":"2.0","id":"abc"#[..],
            b"{\"id\":\"a\tb\",\"method\":\"ping\"}",
            br#"{"id":--,"x":NaN}"#,
            br#"{"id":01,"x":NaN}"#,
            br#"{"id":1.,"x":NaN}"#,
            br#"{"id":123-456,"x":NaN}"#,
            br#"{"id":5"#,
        ] {
            assert_eq!(head_id(broken), None, "{}", String::from_utf8_lossy(broken));
        }
        assert_eq!(
            head_id(br#"{"x":"\"id\":3","id":-4e2,"#),
            Some("-4e2".into())
        );
        assert_eq!(head_id(b"garbage"), None);
    }
}
