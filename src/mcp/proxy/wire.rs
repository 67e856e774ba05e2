//! JSON-RPC 2.0 messages as `serde_json::Value`, framed one per line (MCP's stdio transport)
//! by rmcp's codec.
//!
//! Messages stay untyped on purpose: rmcp's typed model drops fields it does not know (a
//! tool's `execution`, `_meta` keys, fields of newer protocol revisions), and a proxy that drops
//! them breaks clients that rely on them.

use bytes::BytesMut;
use rmcp::transport::async_rw::{JsonRpcMessageCodec, JsonRpcMessageCodecError};
use serde_json::{Value as Json, json};
use tokio_util::codec::{Decoder, Encoder};

/// Longest message accepted, as rmcp's own stdio transport (16 MiB); a longer line is skipped
/// whole and reported, never buffered without bound.
pub const MAX_MESSAGE_BYTES: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// JSON-RPC error codes used by the proxy.
pub mod code {
    /// The line is not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// JSON, but not a JSON-RPC request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// The method is not served.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Wrong parameters, an unknown tool among them (as the MCP specification says).
    pub const INVALID_PARAMS: i64 = -32602;
    /// The proxy failed (a server is gone, timed out, sent nonsense).
    pub const INTERNAL_ERROR: i64 = -32603;
}

/// One line of the stream: a JSON value, or why the line was not one.
pub type Frame = Result<Json, String>;

/// rmcp's line codec, made lenient: a line that is not JSON, or too long, becomes an
/// `Err(frame)` and the stream goes on (a plain codec error would end it).
#[derive(Debug)]
pub struct Lines(JsonRpcMessageCodec<Json>);

impl Default for Lines {
    fn default() -> Self {
        Lines(JsonRpcMessageCodec::new_with_max_length(MAX_MESSAGE_BYTES))
    }
}

impl Decoder for Lines {
    type Item = Frame;
    type Error = std::io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> std::io::Result<Option<Frame>> {
        lenient(self.0.decode(buf))
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> std::io::Result<Option<Frame>> {
        lenient(self.0.decode_eof(buf))
    }
}

impl Encoder<Json> for Lines {
    type Error = std::io::Error;

    fn encode(&mut self, item: Json, buf: &mut BytesMut) -> std::io::Result<()> {
        self.0.encode(item, buf).map_err(Into::into)
    }
}

fn lenient(r: Result<Option<Json>, JsonRpcMessageCodecError>) -> std::io::Result<Option<Frame>> {
    match r {
        Ok(v) => Ok(v.map(Ok)),
        Err(JsonRpcMessageCodecError::Io(e)) => Err(e),
        Err(JsonRpcMessageCodecError::MaxLineLengthExceeded) => Ok(Some(Err(format!(
            "a message longer than {MAX_MESSAGE_BYTES} bytes was skipped"
        )))),
        Err(e) => Ok(Some(Err(e.to_string()))),
    }
}

/// What a JSON value is, as a JSON-RPC message.
#[derive(Debug, PartialEq)]
pub enum Kind<'a> {
    /// A request: `id` and `method`.
    Request {
        /// Its id (a number or a string).
        id: &'a Json,
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
        /// The id of the request it answers.
        id: &'a Json,
    },
    /// None of these.
    Invalid,
}

/// Classifies a message.
#[must_use]
pub fn kind(message: &Json) -> Kind<'_> {
    let id = message
        .get("id")
        .filter(|id| id.is_string() || id.is_number());
    match (message.get("method").and_then(Json::as_str), id) {
        (Some(method), Some(id)) => Kind::Request { id, method },
        (Some(method), None) if message.get("id").is_none() => Kind::Notification { method },
        (None, Some(id)) if message.get("result").is_some() || message.get("error").is_some() => {
            Kind::Response { id }
        }
        _ => Kind::Invalid,
    }
}

/// A request.
#[must_use]
pub fn request(id: u64, method: &str, params: Option<Json>) -> Json {
    let mut m = json!({"jsonrpc": "2.0", "id": id, "method": method});
    if let Some(p) = params {
        m["params"] = p;
    }
    m
}

/// A notification.
#[must_use]
pub fn notification(method: &str, params: Option<Json>) -> Json {
    let mut m = json!({"jsonrpc": "2.0", "method": method});
    if let Some(p) = params {
        m["params"] = p;
    }
    m
}

/// A successful response.
#[must_use]
pub fn response(id: &Json, result: Json) -> Json {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// An error response (`id` is `null` when the request's id could not be read).
#[must_use]
pub fn error(id: &Json, code: i64, message: &str, data: Option<Json>) -> Json {
    let mut e = json!({"code": code, "message": message});
    if let Some(d) = data {
        e["data"] = d;
    }
    json!({"jsonrpc": "2.0", "id": id, "error": e})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        let r = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
        assert_eq!(
            kind(&r),
            Kind::Request {
                id: &json!(1),
                method: "ping"
            }
        );
        let n = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(
            kind(&n),
            Kind::Notification {
                method: "notifications/initialized"
            }
        );
        let ok = json!({"jsonrpc": "2.0", "id": "a", "result": {}});
        assert_eq!(kind(&ok), Kind::Response { id: &json!("a") });
        assert_eq!(kind(&json!({"id": null, "method": "x"})), Kind::Invalid);
        assert_eq!(kind(&json!([1])), Kind::Invalid);
    }

    #[test]
    fn bad_lines_do_not_end_the_stream() {
        let mut lines = Lines::default();
        let mut buf = BytesMut::from(&b"not json\n{\"id\":1,\"result\":{}}\n"[..]);
        assert!(lines.decode(&mut buf).unwrap().unwrap().is_err());
        let ok = lines.decode(&mut buf).unwrap().unwrap().unwrap();
        assert_eq!(ok["id"], 1);
        assert!(lines.decode(&mut buf).unwrap().is_none());
    }
}
