//! The transport layer: one connection to one MCP server, whatever carries it. A [`peer`]
//! matches requests to replies by id and routes progress by token over any stream of frames;
//! [`wire`] keeps each message as the text it came as; a server that is a command runs as a
//! child [`process`] (and its [`orphans`] are stopped after it); a server at a `url` is reached
//! over Streamable HTTP or the 2024-11-05 HTTP+SSE transport ([`http`], [`sse`]).
//!
//! Nothing here knows about tools, clients or revisions: the layers above ([`servers`],
//! [`front`]) give it messages and read what comes back.
//!
//! [`servers`]: super::servers
//! [`front`]: super::front

#[cfg(feature = "mcp-http")]
pub(super) mod http;
pub(super) mod inbound;
pub(super) mod orphans;
pub(super) mod outgoing;
pub(super) mod peer;
pub(super) mod process;
#[cfg(feature = "mcp-http")]
pub(super) mod sse;
pub mod wire;
