//! The fronts: the MCP server the proxy is to its clients. [`serve`] is one client's front
//! (passthrough or lean, ids, progress, cancellation, logs; its 2026-07-28 requests in
//! `serve/modern.rs`), with [`routes`] for everything but tools and [`tasks`] for
//! task-augmented calls; [`http`] puts fronts behind Streamable HTTP (a session each, or one
//! shared by stateless requests).

#[cfg(feature = "mcp-http")]
pub(super) mod http;
pub(super) mod link;
pub(super) mod listing;
pub(super) mod routes;
pub(super) mod serve;
pub(super) mod tasks;
