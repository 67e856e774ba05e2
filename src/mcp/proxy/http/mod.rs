//! MCP's Streamable HTTP transport (revision 2025-11-25, `basic/transports`), both sides:
//! `client` speaks it to the `"url"` servers behind the proxy (and the legacy HTTP+SSE
//! transport of 2024-11-05); `server` is the proxy's own front, `toon mcp serve --http`
//! ([`serve_http`]); `sse` reads Server-Sent Events.

pub(super) mod client;
mod server;
pub(crate) mod sse;

pub use server::{HttpError, HttpOptions, ToolboxFactory, bind, serve_http};
