//! `tools/list` results as the front writes them (and `toon mcp inspect` prices them): the
//! servers' definitions kept as sent, or definitions the proxy makes (lean mode's meta-tools,
//! compact mode's cut ones).

use crate::Value;
use crate::mcp::proxy::servers::mode::{Mode, ServerModes};
use crate::mcp::{
    Catalog, CompactTools, DISCOVER_TOOLS, EXECUTE_TOOL, GET_TOOL_SPEC, MetaTools, Server, Tool,
    compact, raw,
};

/// `{"tools":[...]}` around definitions kept as sent.
pub(crate) fn tools_list_json(tools: &[&str]) -> String {
    let mut s = String::from("{\"tools\":[");
    s.push_str(&tools.join(","));
    s.push_str("]}");
    s
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

/// How one client is shown the catalog's tools: each server's [`Mode`], and which tools are
/// for this client at all (a 2026-07-28 client is not shown a tool that runs only as a task).
pub(crate) struct Showing<'a> {
    pub modes: &'a ServerModes,
    pub lists: &'a dyn Fn(&Tool) -> bool,
    /// Whether `outputSchema` is left out (`structuredContent` dropped).
    pub drop_output_schema: bool,
}

/// Lean mode's meta-tools, whose names win over a server's tool of the same name while a
/// server is in lean mode (that tool is then reached through `execute_tool`).
const META_TOOLS: [&str; 3] = [DISCOVER_TOOLS, GET_TOOL_SPEC, EXECUTE_TOOL];

impl Showing<'_> {
    /// The mode `tool` is shown in: its server's.
    pub(crate) fn mode(&self, tool: &Tool) -> Mode {
        self.modes.of(tool.server())
    }

    /// Whether `tool` is listed under its own name (passthrough or compact).
    pub(crate) fn direct(&self, tool: &Tool) -> bool {
        let shadowed = self.modes.uses(Mode::Lean) && META_TOOLS.contains(&tool.name());
        (self.lists)(tool) && self.mode(tool) != Mode::Lean && !shadowed
    }

    /// Whether the full-definition tool describes `tool`: one listed to this client, or one
    /// reached through `execute_tool`.
    pub(crate) fn describes(&self, tool: &Tool) -> bool {
        (self.lists)(tool) || self.mode(tool) == Mode::Lean
    }

    /// What lean mode's meta-tools find and run: the tools of the lean servers (the others
    /// are listed already), under the names the whole catalog gives them; `None` when that
    /// is the whole catalog.
    pub(crate) fn lean_only(&self, catalog: &Catalog) -> Option<Catalog> {
        let lean = |server: &Server| self.modes.of(server.name()) == Mode::Lean;
        let all = catalog.servers().iter().all(lean);
        (!all).then(|| catalog.only(&lean))
    }

    /// The name of the full-definition tool, if one is listed: lean mode's `get_tool_spec`,
    /// or compact mode's ([`CompactTools::spec_name`]).
    pub(crate) fn spec_name(&self, catalog: &Catalog) -> Option<&'static str> {
        if self.modes.uses(Mode::Lean) {
            return Some(GET_TOOL_SPEC);
        }
        let compact = self.modes.uses(Mode::Compact);
        compact
            .then(|| CompactTools::new(catalog).spec_name())
            .flatten()
    }

    /// The `tools/list` result: in catalog order, each tool listed directly as its mode
    /// shows it, then the proxy's own tools: `discover_tools`, the full-definition tool (with
    /// the signatures' legend when a server is compact) and `execute_tool`, as the modes in
    /// use need them.
    pub(crate) fn tools_list(&self, catalog: &Catalog) -> crate::mcp::Result<String> {
        let mut tools: Vec<String> = Vec::new();
        for tool in catalog.tools().filter(|t| self.direct(t)) {
            tools.push(match self.mode(tool) {
                Mode::Compact => value_json(&compact::definition(tool)?),
                _ => exposed_definition(tool, self.drop_output_schema),
            });
        }
        let spec = self.spec_name(catalog);
        let compact_spec = spec
            .filter(|_| self.modes.uses(Mode::Compact))
            .map(compact::spec_definition);
        let meta = match self.modes.uses(Mode::Lean) {
            true => {
                let own = self.lean_only(catalog);
                MetaTools::new(own.as_ref().unwrap_or(catalog)).definition_values()?
            }
            false => Vec::new(),
        };
        for definition in meta {
            let own_spec = definition["name"].as_str() == Some(GET_TOOL_SPEC);
            match (&compact_spec, own_spec) {
                (Some(legend), true) => tools.push(value_json(legend)),
                _ => tools.push(value_json(&definition)),
            }
        }
        if let Some(spec) = compact_spec.filter(|_| !self.modes.uses(Mode::Lean)) {
            tools.push(value_json(&spec));
        }
        let tools: Vec<&str> = tools.iter().map(String::as_str).collect();
        Ok(tools_list_json(&tools))
    }
}

/// A definition the proxy made, as JSON text with its keys in order.
fn value_json(definition: &Value) -> String {
    serde_json::to_string(definition).unwrap_or_default()
}
