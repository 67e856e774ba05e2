//! Why a call through the proxy failed.

use std::time::Duration;

use crate::mcp::error::Quoted;
use crate::mcp::error::did_you_mean;

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
    /// A legacy server's "resource not found" (2025-11-25); revision 2026-07-28 says
    /// [`INVALID_PARAMS`] instead.
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
    /// Revision 2026-07-28: serving the request needs a client capability its
    /// `clientCapabilities` do not declare (`data.requiredCapabilities`).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// URL elicitation required (2025-11-25 only; revision 2026-07-28 asks in rounds).
    pub const URL_ELICITATION_REQUIRED: i64 = -32042;
    /// Revision 2026-07-28: the request's `protocolVersion` is not served (`data` lists the
    /// supported ones).
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
    /// The HTTP front shut down while the request was in progress, past its drain: the
    /// request reached the proxy and its server may have acted on it (JSON-RPC 2.0 § 5.1, a
    /// server error of the proxy's own; answered with HTTP 503).
    pub const STOPPED_IN_FLIGHT: i64 = -32004;
}

/// A failed request to an upstream server (or for a tool no server has).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CallError {
    /// No answer within the request timeout.
    #[error("server {server:?} did not answer {method} within {:.1} s", .after.as_secs_f64())]
    Timeout {
        /// The server asked.
        server: String,
        /// The method asked.
        method: String,
        /// How long the proxy waited.
        after: Duration,
    },
    /// The server's connection closed (it exited, or never started) before it answered.
    #[error("server {server:?} is gone: {reason}")]
    Closed {
        /// The server.
        server: String,
        /// What happened.
        reason: String,
    },
    /// The server answered with a JSON-RPC error.
    #[error("server {server:?} answered error {code}: {message}")]
    Remote {
        /// The server.
        server: String,
        /// Its error code.
        code: i64,
        /// Its message.
        message: String,
        /// Its `data`, if any, as the JSON text it sent (passed on as it came).
        data: Option<String>,
    },
    /// The server's reply could not be passed on (not JSON, or over the message size limit);
    /// the request fails at once instead of waiting out its timeout.
    #[error("server {server:?} answered {method} with {why}; the proxy cannot pass it on")]
    BadReply {
        /// The server.
        server: String,
        /// The method it answered.
        method: String,
        /// What was wrong with the reply.
        why: String,
    },
    /// The server is configured but not running (failed to start, or timed out starting).
    #[error("server {server:?} is unavailable: {reason}")]
    Unavailable {
        /// The server.
        server: String,
        /// Why.
        reason: String,
    },
    /// No server has a tool of this name.
    #[error("unknown tool {}{}", Quoted(.name), did_you_mean(.suggestions))]
    UnknownTool {
        /// The name asked for.
        name: String,
        /// Close names that do exist.
        suggestions: Vec<String>,
    },
}

impl CallError {
    /// A failure of the proxy itself while handling `server`'s answer (JSON-RPC internal error).
    #[must_use]
    pub fn internal(server: &str, message: impl Into<String>) -> CallError {
        CallError::Remote {
            server: server.to_owned(),
            code: code::INTERNAL_ERROR,
            message: message.into(),
            data: None,
        }
    }

    /// The JSON-RPC error code to answer a client with.
    #[must_use]
    pub fn code(&self) -> i64 {
        match self {
            CallError::Remote { code, .. } => *code,
            CallError::UnknownTool { .. } => code::INVALID_PARAMS,
            _ => code::INTERNAL_ERROR,
        }
    }

    /// The server concerned, if any.
    #[must_use]
    pub fn server(&self) -> Option<&str> {
        match self {
            CallError::Timeout { server, .. }
            | CallError::Closed { server, .. }
            | CallError::Remote { server, .. }
            | CallError::BadReply { server, .. }
            | CallError::Unavailable { server, .. } => Some(server),
            CallError::UnknownTool { .. } => None,
        }
    }
}
