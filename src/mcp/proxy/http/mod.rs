//! MCP's Streamable HTTP transport (revision 2025-11-25, `basic/transports`): [`client`] speaks
//! it to the `"url"` servers behind the proxy (and the legacy HTTP+SSE transport of
//! 2024-11-05); [`sse`] reads Server-Sent Events.

pub(super) mod client;
pub(crate) mod sse;
