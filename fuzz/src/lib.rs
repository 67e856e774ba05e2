//! The checks behind the fuzz targets, shared with the crate's regression tests.
pub mod checks;
pub use checks::input;
/// The `wire` target's check (the MCP proxy's wire reader).
#[cfg(feature = "mcp-stdio")]
pub mod wire;
