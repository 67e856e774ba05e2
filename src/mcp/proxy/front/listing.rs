//! `tools/list` results as the front writes them (and `toon mcp inspect` prices them): the
//! servers' definitions kept as sent, or definitions the proxy makes (lean mode's meta-tools,
//! compact mode's cut ones).

use crate::Value;
use crate::mcp::raw;

/// `{"tools":[...]}` around definitions kept as sent.
pub(crate) fn tools_list_json(tools: &[&str]) -> String {
    let mut s = String::from("{\"tools\":[");
    s.push_str(&tools.join(","));
    s.push_str("]}");
    s
}

/// A `tools/list` result of definitions made by the proxy (lean mode's meta-tools, compact
/// mode's cut definitions), their keys in order.
pub(crate) fn definitions_list(definitions: Vec<Value>) -> String {
    let mut result = crate::Map::new();
    result.insert("tools".to_owned(), Value::Array(definitions));
    serde_json::to_string(&result).unwrap_or_default()
}

/// A tool's definition as the server sent it (every byte kept but what changes), under the
/// name the catalog exposes; without `outputSchema` when `structuredContent` is dropped (a
/// client told of an output schema expects structured results).
pub(crate) fn exposed_definition(tool: &crate::mcp::Tool, drop_output_schema: bool) -> String {
    let text = tool.raw_json();
    let Some(entries) = raw::entries(text) else {
        return text.to_owned();
    };
    let mut splice = raw::Splice::new(text);
    if tool.name() != tool.original_name() {
        splice.set(text, &entries, "name", raw::quote(tool.name()));
    }
    if drop_output_schema {
        splice.remove(text, &entries, "outputSchema");
    }
    splice.finish()
}
