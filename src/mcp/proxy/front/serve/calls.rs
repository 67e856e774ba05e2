//! Tools: `tools/list` as each server's mode shows them, and `tools/call`, passed through to
//! the tool's server, checked first (compact), or through lean mode's meta-tools (their later
//! pages cut from the result kept at the first); a call's progress reaches the request it is
//! for.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::{Front, Mode, PROGRESS_AS, Route};
use crate::Value;
use crate::mcp::meta::{Disposition, MetaError, result_text};
use crate::mcp::proxy::error::CallError;
use crate::mcp::proxy::front::link::Carries;
use crate::mcp::proxy::front::listing::Showing;
use crate::mcp::proxy::front::tasks;
use crate::mcp::proxy::sync::lock;
use crate::mcp::proxy::transport::peer::{Behalf, Cause, ProgressSink};
use crate::mcp::proxy::transport::wire::{self, token_key};
use crate::mcp::raw;
use crate::mcp::{
    CompactTools, DISCOVER_TOOLS, EXECUTE_TOOL, GET_TOOL_SPEC, MetaTools, Plan, Structured,
};

/// Where a `tools/call` goes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum CallPath {
    /// Straight to the server: a passthrough tool, or a name the proxy does not answer (a
    /// tool not listed to this client, or none: the server or the toolbox says so).
    Server,
    /// A compact tool: its arguments checked first, then to its server.
    Checked,
    /// The proxy's full-definition tool (`get_tool_spec`), answered by the proxy.
    Spec,
    /// Lean mode's `discover_tools` or `execute_tool`, or a name only they reach.
    Meta,
}

impl Front {
    pub(super) async fn tools_list(&self) -> Result<String, CallError> {
        // The servers up so far: each later one comes with a list change (#60).
        self.toolbox.settled().await;
        let catalog = self.toolbox.catalog();
        let lists = |tool: &crate::mcp::Tool| self.lists(tool);
        (self.showing(&lists).tools_list(&catalog))
            .map_err(|e| CallError::internal("proxy", e.to_string()))
    }

    /// How this client is shown the tools.
    fn showing<'a>(&'a self, lists: &'a dyn Fn(&crate::mcp::Tool) -> bool) -> Showing<'a> {
        Showing {
            modes: &self.modes,
            lists,
            drop_output_schema: self.toolbox.options().policy.structured == Structured::Drop,
        }
    }

    /// Whether a server's tool is listed to this client: a 2026-07-28 client has no tasks,
    /// so a tool that runs only as one is not for it.
    fn lists(&self, tool: &crate::mcp::Tool) -> bool {
        let no_tasks = self.clients.serves_2026.load(Ordering::Relaxed);
        !(no_tasks && tasks::runs_only_as_task(tool.raw_json()))
    }

    /// Whether a call of `name` reaches the server's tool of that name (not a tool the proxy
    /// answers, nor a lean server's): what the HTTP front checks headers against.
    #[cfg(feature = "mcp-http")]
    pub(crate) fn calls_server_tool(&self, name: &str) -> bool {
        let path = self.call_path(name);
        let known = self.toolbox.catalog().get(name).is_some();
        known && matches!(path, Some(CallPath::Server | CallPath::Checked))
    }

    /// Where a call of `name` goes, by the mode of its tool's server. `None` while the
    /// catalog is not known yet and the answer depends on it.
    pub(super) fn call_path(&self, name: &str) -> Option<CallPath> {
        if self.modes.only_passthrough() {
            return Some(CallPath::Server);
        }
        let lean = self.modes.uses(Mode::Lean);
        if lean && (name == DISCOVER_TOOLS || name == EXECUTE_TOOL) {
            return Some(CallPath::Meta);
        }
        if lean && name == GET_TOOL_SPEC {
            return Some(CallPath::Spec);
        }
        let catalog = self.toolbox.catalog();
        let lists = |tool: &crate::mcp::Tool| self.lists(tool);
        let showing = self.showing(&lists);
        if showing.spec_name(&catalog) == Some(name) {
            return Some(CallPath::Spec);
        }
        // A tool of a server still starting: known once it is listed.
        if !self.toolbox.is_ready() && catalog.get(name).is_none() {
            return None;
        }
        Some(match catalog.get(name) {
            Some(tool) if showing.direct(tool) && showing.mode(tool) == Mode::Compact => {
                CallPath::Checked
            }
            Some(tool) if showing.direct(tool) => CallPath::Server,
            // A lean server's tool is reached through `execute_tool`, as in lean mode.
            Some(tool) if showing.mode(tool) == Mode::Lean => CallPath::Meta,
            Some(_) => CallPath::Server,
            None if lean => CallPath::Meta,
            None => CallPath::Server,
        })
    }

    /// The proxy's own answer to a compact tool's call ([`CallPath::Checked`]: arguments surely
    /// not fitting the tool's schema get every problem and the full definition) or to the
    /// full-definition tool's ([`CallPath::Spec`]); `None`: the call goes to the server.
    async fn compact_answer(&self, path: CallPath, entries: &[raw::Member<'_>]) -> Option<String> {
        let name = raw::get(entries, "name").and_then(raw::string)?;
        let spec = path == CallPath::Spec;
        // The definitions asked for may be of servers still starting (and lean's
        // `get_tool_spec` is routed before the catalog is known); a checked tool is listed.
        if spec {
            self.toolbox.ready().await;
        }
        let text = raw::get(entries, "arguments").filter(|t| t.trim() != "null");
        // Arguments are checked only where the answer is sure to be the server's: a call
        // that asks for a task gets one from the server (a plain result would not do), and
        // text a strict reader cannot take whole (`1e400`) may still be the server's to read.
        let unsure = raw::get(entries, "task").is_some()
            || text.is_some_and(|t| crate::mcp::json_text::readable(t).is_some());
        if unsure && !spec {
            return None;
        }
        // `"arguments": null` is no arguments, as the SDKs read it.
        let arguments = match read_arguments(&name, text) {
            Ok(arguments) => arguments,
            Err(e) => return Some(result_text(&e.to_string(), true)),
        };
        let catalog = self.toolbox.catalog();
        let lists = |tool: &crate::mcp::Tool| self.lists(tool);
        let showing = self.showing(&lists);
        let describes = |tool: &crate::mcp::Tool| showing.describes(tool);
        let compact = CompactTools::new(&catalog).listing(&describes);
        let (text, is_error) = match spec {
            true => compact.spec(&arguments),
            false => (compact.check(&name, &arguments)?, true),
        };
        Some(result_text(&text, is_error))
    }

    /// The result of a `tools/call` (JSON text).
    pub(super) async fn tools_call(self: &Arc<Self>, params: &str) -> Result<String, CallError> {
        // Read once: whether it asks for a task, where it goes, and (lean) what it runs.
        let entries = raw::entries(params).unwrap_or_default();
        let name = raw::get(&entries, "name")
            .and_then(raw::string)
            .unwrap_or_default();
        let path = match self.call_path(&name) {
            Some(path) => path,
            None => {
                self.toolbox.ready().await;
                self.call_path(&name).unwrap_or(CallPath::Server)
            }
        };
        if matches!(path, CallPath::Checked | CallPath::Spec)
            && let Some(answer) = self.compact_answer(path, &entries).await
        {
            return Ok(answer);
        }
        if path != CallPath::Meta && raw::get(&entries, "task").is_some() {
            let token = wire::request_progress_token(params).map(|t| token_key(&t));
            return self
                .tasks
                .call(&self.toolbox, (params, &entries), token)
                .await;
        }
        if path != CallPath::Meta {
            let progress = Some(self.progress_to_client());
            return self.toolbox.call_read(params, &entries, progress).await;
        }
        self.meta_call(name, &entries).await
    }

    /// A call of lean mode's meta-tools: `discover_tools` answered from the catalog,
    /// `execute_tool` run on its tool's server and its result shaped as asked.
    async fn meta_call(
        self: &Arc<Self>,
        name: String,
        entries: &[raw::Member<'_>],
    ) -> Result<String, CallError> {
        // Read to validate and plan; what reaches the server is the text the model sent.
        let arguments_text = raw::get(entries, "arguments");
        // A search shows what is up so far; a tool run may be of a server still starting
        // (only that one is waited for); a spec, of a tool not listed yet.
        let tool = (arguments_text.and_then(raw::entries))
            .and_then(|e| raw::get(&e, "name").and_then(raw::string))
            .unwrap_or_default();
        if name == crate::mcp::DISCOVER_TOOLS {
            self.toolbox.settled().await;
        } else if name == crate::mcp::EXECUTE_TOOL
            && let Some((server, original)) = self.toolbox.until_routable(&tool).await
        {
            // A cached tool runs on its own server, under the name the model gave, or not.
            let now = self.toolbox.route_pinned(&tool, &server, &original)?;
            if now != tool {
                let suggestions = vec![now];
                return Err(CallError::UnknownTool {
                    name: tool,
                    suggestions,
                });
            }
        } else if self.toolbox.catalog().get(&tool).is_none() {
            self.toolbox.ready().await;
        }
        let arguments = match read_arguments(&name, arguments_text) {
            Ok(arguments) => arguments,
            Err(e) => return Ok(result_text(&e.to_string(), true)),
        };
        let call = {
            let catalog = self.toolbox.catalog();
            let lists = |tool: &crate::mcp::Tool| self.lists(tool);
            let own = self.showing(&lists).lean_only(&catalog);
            MetaTools::new(own.as_ref().unwrap_or(&catalog)).disposition(&name, &arguments)
        };
        match call {
            Disposition::Answer { text, is_error } => Ok(result_text(&text, is_error)),
            Disposition::NotMeta => Err(CallError::UnknownTool {
                name,
                suggestions: vec![
                    crate::mcp::DISCOVER_TOOLS.to_owned(),
                    crate::mcp::EXECUTE_TOOL.to_owned(),
                ],
            }),
            Disposition::Execute(mut plan) => {
                // A later page comes from the result kept at the first: never a new run.
                if let Some(answer) = self.kept_page(&mut plan) {
                    return Ok(answer);
                }
                let forwarded = forwarded_call(&plan, arguments_text, entries);
                let runs_as_task = self
                    .toolbox
                    .catalog()
                    .get(&plan.exposed)
                    .is_some_and(|tool| tasks::runs_only_as_task(tool.raw_json()));
                let reply;
                let result = if runs_as_task {
                    // Lean mode's client cannot hold a task: the proxy does, to its end.
                    &tasks::run_to_end(&self.toolbox, &plan.server, &forwarded).await?
                } else {
                    reply = self
                        .toolbox
                        .request_with(
                            &plan.server,
                            "tools/call",
                            Some(&forwarded),
                            Some(self.progress_to_client()),
                        )
                        .await?;
                    reply.result().unwrap_or("{}")
                };
                if plan.shaping.limit.is_some() {
                    self.keep_for_pages(&mut plan, result);
                }
                Ok(plan.finish_text(self.toolbox.encoder(), result))
            }
        }
    }

    /// The answer to a call for a later page (its cursor names a result kept at the first
    /// page), or why there is none; `None` for a first call.
    fn kept_page(&self, plan: &mut Plan) -> Option<String> {
        match plan.shaping.cursor_key() {
            Ok(Some(key)) => {
                let kept = self.pages.get(&key, &plan.exposed, &plan.arguments);
                Some(match kept {
                    Ok(result) => {
                        plan.shaping.kept_as = Some(key);
                        plan.finish_text(self.toolbox.encoder(), &result)
                    }
                    Err(why) => result_text(&why.to_string(), true),
                })
            }
            Ok(None) if plan.shaping.cursor.is_some() => {
                let why = "this cursor names no result the proxy kept: call without cursor";
                Some(result_text(why, true))
            }
            Ok(None) => None,
            Err(e) => Some(result_text(&e.to_string(), true)),
        }
    }

    /// Keeps a result that is paged, so later pages are cut from it.
    fn keep_for_pages(&self, plan: &mut Plan, result: &str) {
        let failed = raw::entries(result)
            .and_then(|e| raw::get(&e, "isError").map(|v| v == "true"))
            .unwrap_or(false);
        if !failed {
            plan.shaping.kept_as =
                self.pages
                    .keep(&plan.exposed, &plan.arguments, result.to_owned());
        }
    }

    /// Progress of a call, straight to the request it is for as the server's reader reads
    /// it: ahead of the call's result, which takes the slower path through the call's task.
    /// Advisory: a client that reads slowly misses progress, not results. Within a
    /// 2026-07-28 request's rounds ([`PROGRESS_AS`]), to the latest round's request under its
    /// token.
    fn progress_to_client(self: &Arc<Self>) -> ProgressSink {
        let current = PROGRESS_AS.try_with(Arc::clone).ok();
        let front = Arc::downgrade(self);
        // The request this call is for, looked up as each progress comes: for an exchange's
        // call, the request of its latest round.
        let tag = Behalf::current().map(|b| b.tag);
        Arc::new(move |text: &str| {
            let text = match &current {
                Some(current) => match wire::retoken(text, lock(current).as_deref()) {
                    Some(text) => text,
                    None => return,
                },
                None => text.to_owned(),
            };
            let Some(front) = front.upgrade() else { return };
            let to = tag.and_then(|tag| front.request_of(Cause::Request(tag)));
            front.offer_about(Carries::Progress, to, text);
        })
    }

    /// Whether progress under `token` from `server` is for a request the client is waiting
    /// on (that request's link and id), or for one of the client's tasks (the connection's).
    pub(super) fn expects_progress(&self, server: &str, token: &str) -> Option<Option<Route>> {
        let asked = lock(&self.requests.in_flight)
            .values()
            .find(|call| call.progress_token.as_deref() == Some(token))
            .map(|call| (call.link.clone(), call.id.clone()));
        let sent = || {
            self.toolbox
                .server(server)
                .is_some_and(|s| s.was_given(token))
        };
        match asked {
            Some(to) if sent() => Some(Some(to)),
            _ => self.tasks.expects_progress(server, token).then_some(None),
        }
    }
}

/// A meta-tool call's `arguments` (JSON text; none is `{}`) as a [`Value`], or why they could
/// not be read (the tool result's text).
fn read_arguments(name: &str, text: Option<&str>) -> Result<Value, MetaError> {
    // Read through a readable copy (a lone surrogate as U+FFFD, `1e400` as null), so that
    // validation speaks of the value, not of a parse failure; into a `toon::Value`, so
    // that problems are listed in the order the model sent the arguments.
    match text {
        None => Ok(Value::Object(crate::Map::new())),
        Some(text) => {
            let readable = crate::mcp::json_text::readable(text);
            match crate::json::from_str(readable.as_deref().unwrap_or(text)) {
                Ok(arguments) => Ok(arguments),
                Err(source) => Err(MetaError::UnreadableArguments {
                    tool: name.to_owned(),
                    source,
                }),
            }
        }
    }
}

/// The `tools/call` params an `execute_tool` call sends its server: the tool's name, its
/// arguments as the model sent them (`arguments_text` is `execute_tool`'s), and the call's
/// `_meta` (from `entries`, its params).
fn forwarded_call(
    plan: &Plan,
    arguments_text: Option<&str>,
    entries: &[raw::Member<'_>],
) -> String {
    let tool_arguments = arguments_text
        .and_then(raw::entries)
        .and_then(|e| raw::get(&e, "arguments").map(|a| a.to_owned()))
        .unwrap_or_else(|| "{}".to_owned());
    let mut forwarded = format!(
        r#"{{"name":{},"arguments":{tool_arguments}"#,
        raw::quote(&plan.tool)
    );
    if let Some(meta) = raw::get(entries, "_meta") {
        forwarded.push_str(r#","_meta":"#);
        forwarded.push_str(meta);
    }
    forwarded.push('}');
    forwarded
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::testing::{RecordingLink, message, taken, toolbox};
    use super::super::{Front, Mode};
    use crate::mcp::proxy::front::link::Link;

    #[tokio::test]
    async fn lean_mode_lists_its_meta_tools_and_calls_only_them() {
        let home = RecordingLink::new();
        let front = Front::start(toolbox(), Mode::Lean, Some(home.clone()));
        let link: Arc<dyn Link> = home.clone();
        let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        front.receive(message(list), &link).await;
        let listed: serde_json::Value = serde_json::from_str(&taken(&home, 1).await[0].2).unwrap();
        let names: Vec<&str> = listed["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["discover_tools", "get_tool_spec", "execute_tool"]);
        let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":{}}}"#;
        front.receive(message(call), &link).await;
        let reply: serde_json::Value = serde_json::from_str(&taken(&home, 1).await[0].2).unwrap();
        assert_eq!(reply["id"], 2);
        let error = reply["error"]["message"].as_str().unwrap();
        assert!(
            error.contains("read_file") && error.contains("execute_tool"),
            "{reply}"
        );
        front.stop();
    }

    #[tokio::test]
    async fn compact_mode_lists_get_tool_spec_beside_the_tools_and_answers_it_itself() {
        let home = RecordingLink::new();
        let front = Front::start(toolbox(), Mode::Compact, Some(home.clone()));
        let link: Arc<dyn Link> = home.clone();
        let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        front.receive(message(list), &link).await;
        let listed: serde_json::Value = serde_json::from_str(&taken(&home, 1).await[0].2).unwrap();
        assert_eq!(
            listed["result"]["tools"][0]["name"], "get_tool_spec",
            "{listed}"
        );
        let spec = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_tool_spec","arguments":{"name":"nope"}}}"#;
        front.receive(message(spec), &link).await;
        let reply: serde_json::Value = serde_json::from_str(&taken(&home, 1).await[0].2).unwrap();
        assert_eq!(reply["result"]["isError"], true, "{reply}");
        assert!(
            reply["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("nope"),
            "{reply}"
        );
        // A tool no server has fails as in passthrough: a JSON-RPC error, not a result.
        let call = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_file","arguments":{}}}"#;
        front.receive(message(call), &link).await;
        let reply: serde_json::Value = serde_json::from_str(&taken(&home, 1).await[0].2).unwrap();
        assert_eq!(reply["id"], 3);
        assert!(
            reply["error"]["message"]
                .as_str()
                .unwrap()
                .contains("read_file"),
            "{reply}"
        );
        front.stop();
    }
}
