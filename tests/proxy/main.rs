//! End-to-end tests of the MCP proxy (`toon mcp serve|inspect`, run as a child process) against
//! real servers and client SDKs: over stdio (`stdio`, `revision_2026`) and, with `mcp-http`,
//! servers reached over HTTP (`http_servers`) and the HTTP front (`http_front`); `toon mcp
//! install` into a client's configuration and the gateway it wrote started (`install`); the
//! official MCP conformance suite directly and through the HTTP gateway (`conformance`).
#![cfg(unix)]
// A test reads as a script: some run past the 80 lines a function is held to.
#![allow(clippy::too_many_lines)]

#[path = "../mcp_servers/mod.rs"]
mod mcp_servers;

#[cfg(feature = "mcp-http")]
mod conformance;
mod fuzz_regressions;
#[cfg(feature = "mcp-http")]
mod http_front;
#[cfg(feature = "mcp-http")]
mod http_servers;
mod install;
mod modern_servers;
#[cfg(feature = "mcp-http")]
mod observe;
mod revision_2026;
#[cfg(feature = "mcp-http")]
mod scale_out;
mod startup;
mod stdio;
