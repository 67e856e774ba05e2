//! MCP (Model Context Protocol) integration: compact tool catalogs, keyword discovery, the
//! three "lean MCP" meta-tools, and TOON tool results with a gateway policy (feature `mcp`).
//!
//! Everything works on the JSON wire types of MCP (revision 2025-11-25) as text or
//! `serde_json::Value`, with no async runtime and no MCP SDK, so any Rust MCP server, client or
//! gateway can call it.
//!
//! - [`Catalog`]: the tools of one or many servers, kept byte-for-byte as sent, with views for
//!   a model: [`full`](Catalog::full) (a table per server with one-line signatures),
//!   [`categories`](Catalog::categories), [`lean`](Catalog::lean),
//!   [`describe`](Catalog::describe) and [`search`](Catalog::search). The tables are TOON
//!   indented one space a level, which is cheaper: decode them with [`table_decode_options`].
//! - [`Registry`]: a catalog kept current from its servers, re-listed after
//!   `notifications/tools/list_changed`; schemas parsed on first use and cached.
//! - [`MetaTools`]: `discover_tools`, `get_tool_spec` and `execute_tool`: three small tools in
//!   place of N large ones, with argument validation against each tool's `inputSchema`.
//! - [`CompactTools`]: every tool under its own name with a definition cut to its first
//!   sentence and a signature line, `get_tool_spec` beside them, and arguments checked against
//!   the server's schema before a call (the gateway's `--mode compact`).
//! - [`ResultEncoder`]: rewrites the JSON text blocks of `tools/call` results as TOON or
//!   compact JSON, whichever costs fewer tokens, under a [`Policy`], with per-call
//!   [`Shaping`]s (fields, pages, token budgets) and running [`Stats`].
//! - [`Decision`]: which tools return document content (file reads, fetched pages, diffs),
//!   whose results reach the model verbatim so it can quote them back.
//! - [`PRIMER`]: the system-prompt lines that teach a model to read TOON.
//!
//! Why views and not `toon::encode(tools)`: JSON Schema is deep and non-uniform, so plain TOON
//! of a `tools/list` result costs *more* tokens than its compact JSON (1.12× over seven real
//! servers); a table with one line per tool costs about a tenth.
//!
//! ## Signature notation (the `full` view)
//! Chosen by counting o200k tokens on seven real servers' tool lists:
//! - `name:type`, `!` after the type when required; parameters separated by one space.
//! - Types `string`, `int`, `number`, `bool`, `null`, `any`; arrays `T[]`; unions `a|b`.
//! - An `enum` replaces the type (`mode:fast|slow`); past eight values it ends in `|…`.
//! - Nested objects are summarised two levels deep and up to eight fields,
//!   `opts:{recursive:bool,depth:int}`, else `object`. Local `$ref`s are followed.
//! - Defaults whose JSON is at most 16 bytes follow as `=value` (`depth:int=3`).
//! - Descriptions, titles, formats and bounds are left to `get_tool_spec`: they are what makes
//!   schemas expensive.

mod catalog;
mod compact;
mod content;
#[cfg(feature = "mcp-semantic")]
mod embedding;
mod error;
mod json_text;
mod mcp_header;
mod meta;
mod pages;
mod primer;
#[cfg(feature = "mcp-stdio")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp-stdio")))]
pub mod proxy;
mod raw;
mod registry;
mod result;
mod schema;
mod search;
mod shaping;
mod structured;
mod validate;
mod view;

pub use catalog::{
    Annotations, COLLISION_SEPARATOR, Catalog, Hit, SUMMARY_CHARS, Server, Status, Tool,
};
pub use compact::{CompactTools, Form, TOON_GET_TOOL_SPEC, form_of};
pub use content::Decision;
pub use error::{Error, Result};
pub use meta::{
    DISCOVER_TOOLS, EXECUTE_TOOL, GET_TOOL_SPEC, MetaCall, MetaTools, Plan, error_result,
    text_result,
};
pub use pages::Pages;
pub use primer::PRIMER;
pub use registry::{LIST_CHANGED, ListingResult, MAX_PAGES, Registry, ToolSource};
pub use result::{Format, MAX_SIZE_BYTES, Policy, ResultEncoder, SkipReason, Stats, Structured};
pub use shaping::Shaping;
pub use validate::{Violation, validate_arguments};
pub use view::{Grouping, TABLE_INDENT, table_decode_options};

/// The `_meta` key of a converted content block (`{"format": "toon"}`) and of a converted
/// result (sizes before and after). MCP reserves unprefixed and `modelcontextprotocol` keys;
/// content annotations allow only `audience`, `priority` and `lastModified`.
pub const META_KEY: &str = "rs.toon-codec/conversion";
