//! A client toolbox for `mcpServers` configurations and a stdio MCP proxy in front of them
//! (feature `mcp-proxy`; the CLI's `toon mcp serve` and `toon mcp inspect`).
//!
//! - [`Config`]: the `{"mcpServers": {...}}` file most MCP clients use.
//! - [`Toolbox`]: every configured server started in parallel (a child process over stdio, or
//!   a `url` reached over Streamable HTTP or legacy HTTP+SSE: see [`Config`]), each within a
//!   start-up timeout; tools listed (through `nextCursor`) into one
//!   [`Catalog`](crate::mcp::Catalog); calls routed, each with a timeout, results through the
//!   [`ResultEncoder`](crate::mcp::ResultEncoder). A server that fails to start, times out or
//!   dies is reported and marked unavailable; the others keep working; one reached over HTTP
//!   is reconnected when it is back. Children are shut down cleanly, and stopped if the
//!   toolbox is dropped first; whenever a server exits, whatever is left of its process group
//!   is terminated too, and on Linux, once [`adopt_orphans`] was called, what it started
//!   outside its group (a `setsid` daemon). At the end, [`stop_children`] stops every server
//!   no toolbox stopped (one still starting), then those orphans. A stdio server does not inherit the proxy's own
//!   variables ([`PROXY_ENV`]) unless its entry's `env` names them. Their stderr lines, like
//!   the proxy's own notes, are `tracing` events ([`log`]): the library writes no stderr
//!   itself, and the CLI writes them as `[NAME] line` through [`log::StderrLayer`], which never
//!   blocks.
//! - [`serve`]: the MCP server side, each server in its [`Mode`]: passthrough (every tool,
//!   results encoded), compact (every tool, definitions cut) or lean (three meta-tools).
//! - [`http`]: the same server over MCP Streamable HTTP, a session (own toolbox, own servers)
//!   per client (`toon mcp serve --http`).
//! - [`Inspection`]: what a setup's tool lists cost, per server and per view.
//! - [`install`]: a client's servers moved behind the gateway, and back (`toon mcp install`).
//!
//! Messages are forwarded as the text they came as ([`wire::Message`]): the proxy reads what it
//! needs and changes only what it must, so fields no SDK knows (a tool's `execution`, `_meta`
//! keys, newer revisions' fields) and numbers with more digits than `f64` reach the other side
//! byte for byte.

mod error;
mod front;
mod inspect;
pub mod install;
pub mod log;
pub mod metrics;
mod revisions;
mod servers;
#[cfg(feature = "mcp-http")]
mod status_page;
mod sync;
mod transport;

/// MCP's Streamable HTTP transport (revision 2025-11-25, `basic/transports`) on the proxy's
/// front: `toon mcp serve --http` ([`serve_http`](http::serve_http)), a session (own toolbox,
/// own servers) per client. The client side, for `url` servers, is internal to [`Toolbox`].
#[cfg(feature = "mcp-http")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp-http")))]
pub mod http {
    pub use super::front::http::{
        HttpError, HttpOptions, ToolboxFactory, bind, serve_http, serve_metrics,
    };
}
pub use transport::wire;

pub use error::CallError;
pub use front::serve::{MAX_IN_FLIGHT, MAX_LISTENS, serve};
pub use inspect::{Inspection, ServerCost, ToolResults, WholeSchema};
pub use revisions::era::{MODERN_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS};
pub use revisions::mrtr::MAX_WAITING;
pub use servers::cache::{CacheError, Cached, CatalogCache};
pub use servers::config::{
    CONFIG_ENV, Config, ConfigError, HTTP_TOKEN_ENV, Launch, MAX_CONFIG_BYTES, PROXY_ENV,
    ReadError, ServerConfig, default_path,
};
pub use servers::mode::{Mode, ServerModes};
pub use servers::revision::Revision;
pub use servers::toolbox::{Change, Options, STARTUP_GRACE, Toolbox};
pub use servers::upstream::{PROTOCOL_VERSION, ServerEvent, StartError, Upstream};
#[cfg(feature = "mcp-http")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp-http")))]
pub use transport::http::OpenError;
pub use transport::orphans::{TAG_ENV, adopt_orphans, stop_orphans};
pub use transport::peer::{MAX_EXTENSIONS, ProgressRoute, ProgressSink};
pub use transport::process::stop_children;
