//! What the client is told of the proxy: the `initialize` result (the capabilities the
//! servers offer between them, the primer beside each server's own instructions), which
//! 2026-07-28's `server/discover` repeats (`modern.rs`).

use serde_json::Value as Json;

use super::Front;
use crate::mcp::proxy::front::routes::offering;
use crate::mcp::proxy::front::tasks;
use crate::mcp::proxy::revisions::era::SUPPORTED_PROTOCOL_VERSIONS;
use crate::mcp::proxy::servers::upstream::PROTOCOL_VERSION;
use crate::mcp::raw;
use crate::mcp::{Format, PRIMER};

impl Front {
    /// The `initialize` result (JSON text, its keys in this order): the capabilities the
    /// servers offer between them, and the primer beside each server's own instructions.
    pub(super) fn initialize(&self, params: &Json) -> String {
        let asked = params.get("protocolVersion").and_then(Json::as_str);
        let version = asked
            .filter(|v| SUPPORTED_PROTOCOL_VERSIONS.contains(v))
            .unwrap_or(PROTOCOL_VERSION);
        let server_info = server_info();
        let mut result = format!(
            r#"{{"protocolVersion":{},"capabilities":{},"serverInfo":{server_info}"#,
            raw::quote(version),
            // Lean mode's meta-tools cannot be task-augmented.
            self.capabilities(self.modes.lists_tools())
        );
        self.push_instructions(&mut result);
        result.push('}');
        result
    }

    /// The union of what the servers offer besides tools (each only if one of them does);
    /// `tasks` too when `with_tasks` (revision 2026-07-28 has them only as an extension).
    pub(super) fn capabilities(&self, with_tasks: bool) -> String {
        let declared = |capability: &str, flag: &str| self.any_declares(capability, flag);
        let mut capabilities = vec![r#""tools":{"listChanged":true}"#.to_owned()];
        // Servers still starting may offer them: said, and listed once they are up (#60).
        let starting = !self.toolbox.is_ready();
        if starting || !offering(&self.toolbox, "resources").is_empty() {
            capabilities.push(format!(
                r#""resources":{{"subscribe":{},"listChanged":{}}}"#,
                declared("resources", "subscribe"),
                starting || declared("resources", "listChanged")
            ));
        }
        if starting || !offering(&self.toolbox, "prompts").is_empty() {
            capabilities.push(format!(
                r#""prompts":{{"listChanged":{}}}"#,
                starting || declared("prompts", "listChanged")
            ));
        }
        for capability in ["completions", "logging"] {
            if !offering(&self.toolbox, capability).is_empty() {
                capabilities.push(format!("{}:{{}}", raw::quote(capability)));
            }
        }
        if let Some(tasks) = tasks::capability(&self.toolbox).filter(|_| with_tasks) {
            capabilities.push(format!(r#""tasks":{tasks}"#));
        }
        format!("{{{}}}", capabilities.join(","))
    }

    /// `,"instructions":…` for a result being written: the primer (unless results are
    /// always JSON) and each server's own instructions under its name; nothing when there are
    /// none.
    pub(super) fn push_instructions(&self, result: &mut String) {
        let primer = self.toolbox.options().policy.format != Format::CompactJson;
        if let Some(instructions) =
            merged_instructions(primer.then_some(PRIMER), &self.servers_instructions())
        {
            result.push_str(r#","instructions":"#);
            result.push_str(&raw::quote(&instructions));
        }
    }

    /// Whether a running server sets the boolean `flag` of `capability` in its `initialize`
    /// result (`resources.subscribe`, `prompts.listChanged`).
    pub(super) fn any_declares(&self, capability: &str, flag: &str) -> bool {
        self.toolbox.running_in_order().iter().any(|(_, server)| {
            server.initialize_result()["capabilities"][capability][flag] == Json::Bool(true)
        })
    }

    /// Each running server's `instructions`, in configuration order.
    fn servers_instructions(&self) -> Vec<(String, String)> {
        self.toolbox
            .running_in_order()
            .into_iter()
            .filter_map(|(name, server)| {
                let text = server.initialize_result()["instructions"]
                    .as_str()?
                    .trim()
                    .to_owned();
                (!text.is_empty()).then_some((name, text))
            })
            .collect()
    }
}

/// The proxy's `serverInfo` (JSON text).
pub(super) fn server_info() -> String {
    serde_json::to_string(&crate::toon!({
        "name": "toon-mcp-proxy",
        "title": "TOON proxy",
        "version": env!("CARGO_PKG_VERSION")
    }))
    .unwrap_or_default()
}

/// The instructions of the proxy's `initialize` result: the primer (if any), then each
/// server's own under its name.
fn merged_instructions(primer: Option<&str>, servers: &[(String, String)]) -> Option<String> {
    let mut parts: Vec<String> = primer.map(str::to_owned).into_iter().collect();
    if !servers.is_empty() {
        let mut text = "# Instructions of the servers behind this proxy".to_owned();
        for (name, instructions) in servers {
            text.push_str(&format!("\n\n## Server `{name}`\n\n{instructions}"));
        }
        parts.push(text);
    }
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::testing::{RecordingLink, message, taken, toolbox};
    use super::super::{Front, Mode};
    use crate::mcp::proxy::front::link::Link;

    #[tokio::test]
    async fn initialize_answers_the_revision_asked_for_with_the_primer() {
        let home = RecordingLink::new();
        let front = Front::start(toolbox(), Mode::Passthrough, Some(home.clone()));
        let link: Arc<dyn Link> = home.clone();
        let init = r#"{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}"#;
        front.receive(message(init), &link).await;
        let reply = taken(&home, 1).await;
        let result: serde_json::Value = serde_json::from_str(&reply[0].2).unwrap();
        assert_eq!(result["id"], "i");
        assert_eq!(result["result"]["protocolVersion"], "2025-06-18");
        assert_eq!(
            result["result"]["capabilities"]["tools"]["listChanged"],
            true
        );
        let instructions = result["result"]["instructions"].as_str().unwrap();
        assert!(instructions.contains("TOON"), "{instructions}");
        front.stop();
    }
}
