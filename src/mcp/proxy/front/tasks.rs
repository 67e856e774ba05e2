//! Tasks (2025-11-25 `basic/utilities/tasks`): task-augmented `tools/call`, `tasks/get`,
//! `tasks/result`, `tasks/list`, `tasks/cancel` and `notifications/tasks/status`, across the
//! servers that offer them.
//!
//! A task id is minted by the server that runs the task and is unique only there, so the
//! client sees it as `SERVER__ID` (the tools' collision separator): the proxy keeps no table to
//! route by, and a task listed by `tasks/list` is as routable as one it created. Every place a
//! server writes a task id is rewritten on the way out (the created task, a task, a listed
//! task, the `related-task` of a result or of a request it puts to the client) and the
//! client's ids are turned back on the way in; everything else passes as sent.
//!
//! A task's result (`tasks/result`) is what the call would have returned, so it is converted
//! as the tool's results are, when the proxy saw the call that created it (the last
//! [`REMEMBERED`] of them). `tasks/result` blocks until the task ends, so it waits as long as
//! a person answering may take (ten times the request timeout), not one request timeout. The
//! `progressToken` of the creating call stays good for the task's life: its progress still
//! reaches the client after the call has answered.
//!
//! Tasks the client runs for a server (a server's task-augmented `sampling/createMessage` or
//! `elicitation/create`, then its `tasks/*` requests) are the client's to number: the proxy
//! forwards those requests as it forwards the server's other requests, ids untouched.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::routes::{gather, offering, refusal, server_declares, servers_for};
use crate::mcp::COLLISION_SEPARATOR;
use crate::mcp::proxy::error::CallError;
use crate::mcp::proxy::servers::toolbox::{RoutedCall, Toolbox};
use crate::mcp::proxy::servers::upstream::Upstream;
use crate::mcp::proxy::sync::lock;
use crate::mcp::proxy::transport::peer::MAX_EXTENSIONS;
use crate::mcp::proxy::transport::wire::code;
use crate::mcp::raw;

/// The `_meta` key that ties a message to a task.
pub(crate) const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// Tasks created through the proxy whose tool is remembered, to convert their results.
pub(crate) const REMEMBERED: usize = 1024;

/// Whether [`Tasks::answer`] serves `method`.
pub(crate) fn serves(method: &str) -> bool {
    matches!(
        method,
        "tasks/get" | "tasks/result" | "tasks/list" | "tasks/cancel"
    )
}

/// The tasks the client created through the proxy: which tool each runs, and the progress
/// token of the call that created it.
#[derive(Debug, Default)]
pub(crate) struct Tasks {
    /// Oldest first, at most [`REMEMBERED`].
    created: Mutex<VecDeque<Created>>,
}

#[derive(Debug)]
struct Created {
    /// The task id as the client knows it.
    id: String,
    /// The routed call that created it.
    call: RoutedCall,
    /// The creating call's `progressToken` (as [`token_key`](crate::mcp::proxy::transport::wire::token_key)), until
    /// the task has ended.
    progress_token: Option<String>,
}

impl Tasks {
    /// A task-augmented `tools/call` (passthrough): sent to the tool's server as it came (the
    /// tool under its own name); the task it creates is named for the client. A server that
    /// runs the call at once instead answers with the call's result, converted as any other.
    ///
    /// # Errors
    /// As [`Toolbox::call_text`]: an unknown tool, the server's error as sent, the server
    /// unavailable, gone or slow.
    pub(crate) async fn call(
        &self,
        toolbox: &Toolbox,
        (params, entries): (&str, &[raw::Member<'_>]),
        progress_token: Option<String>,
    ) -> Result<String, CallError> {
        let call = toolbox.route_call(params, entries).await?;
        let reply = toolbox
            .request(&call.server, "tools/call", Some(&call.params))
            .await?;
        let result = reply.result().unwrap_or("{}");
        let server = call.server.clone();
        match rewrite(result, &["task", "taskId"], |id| {
            Some(exposed_id(&server, id))
        }) {
            Some((created, id)) => {
                self.remember(Created {
                    id,
                    call,
                    progress_token,
                });
                Ok(created)
            }
            // Run at once (the server does not do this tool as a task): a plain result.
            None => toolbox.convert_result(Some(&call), result),
        }
    }

    /// Whether `token` (as [`token_key`](crate::mcp::proxy::transport::wire::token_key)) is the progress token of a
    /// task of `server` that has not ended: its progress is the client's.
    pub(crate) fn expects_progress(&self, server: &str, token: &str) -> bool {
        lock(&self.created)
            .iter()
            .any(|task| task.call.server == server && task.progress_token.as_deref() == Some(token))
    }

    /// Answers a `tasks/*` request of the client ([`serves`]): its result as JSON text.
    ///
    /// # Errors
    /// The server's own error as it sent it; no server offering tasks (`-32601`); a task id
    /// no server behind the proxy could have minted (`-32602`); the server unavailable, gone
    /// or slow.
    pub(crate) async fn answer(
        &self,
        toolbox: &Toolbox,
        method: &str,
        params: &str,
    ) -> Result<String, CallError> {
        let servers = servers_for(toolbox, method, "tasks", "tasks").await?;
        if method == "tasks/list" {
            return Ok(list(toolbox, &servers).await);
        }
        let entries = raw::entries(params).unwrap_or_default();
        let id = raw::get(&entries, "taskId")
            .and_then(raw::string)
            .unwrap_or_default();
        let Some((server, original)) = route(&servers, &id) else {
            return Err(refusal(
                code::INVALID_PARAMS,
                format!("unknown task: {id:?} (no server behind the proxy minted it)"),
            ));
        };
        let mut splice = raw::Splice::new(params);
        splice.set(params, &entries, "taskId", raw::quote(&original));
        let params = splice.finish();
        let reply = if method == "tasks/result" {
            // It blocks until the task ends (2025-11-25 tasks: "tasks/result").
            let running = toolbox
                .server(&server)
                .ok_or_else(|| refusal(code::INTERNAL_ERROR, format!("{server} is not running")))?;
            running
                .request(method, Some(&params), task_wait(toolbox))
                .await?
        } else {
            toolbox.request(&server, method, Some(&params)).await?
        };
        let result = reply.result().unwrap_or("{}");
        let named = |own: &str| Some(exposed_id(&server, own));
        if method == "tasks/result" {
            self.ended(&id);
            // What the call would have returned, tied to the task by its `_meta`.
            let result = rewrite(result, &["_meta", RELATED_TASK, "taskId"], named)
                .map_or_else(|| result.to_owned(), |(text, _)| text);
            return toolbox.convert_result(self.call_of(&id).as_ref(), &result);
        }
        if raw::get_path(result, &["status"])
            .and_then(raw::string)
            .is_some_and(|status| TERMINAL.contains(&status.as_str()))
        {
            self.ended(&id);
        }
        Ok(rewrite(result, &["taskId"], named).map_or_else(|| result.to_owned(), |(text, _)| text))
    }

    /// A server's `notifications/tasks/status` (a task in its `params`), named for the
    /// client; a task it says has ended no longer takes progress.
    pub(crate) fn status_for_client(&self, server: &str, message: &str) -> String {
        let renamed = rewrite(message, &["params", "taskId"], |id| {
            Some(exposed_id(server, id))
        });
        let Some((text, id)) = renamed else {
            return message.to_owned();
        };
        if raw::get_path(&text, &["params", "status"])
            .and_then(raw::string)
            .is_some_and(|status| TERMINAL.contains(&status.as_str()))
        {
            self.ended(&id);
        }
        text
    }

    fn remember(&self, task: Created) {
        let mut created = lock(&self.created);
        if created.len() == REMEMBERED {
            created.pop_front();
        }
        created.push_back(task);
    }

    fn call_of(&self, id: &str) -> Option<RoutedCall> {
        lock(&self.created)
            .iter()
            .rev()
            .find(|task| task.id == id)
            .map(|task| task.call.clone())
    }

    /// The task has ended: its progress token is done with.
    fn ended(&self, id: &str) {
        for task in lock(&self.created).iter_mut().filter(|task| task.id == id) {
            task.progress_token = None;
        }
    }
}

/// The statuses after which a task changes no more.
const TERMINAL: [&str; 3] = ["completed", "failed", "cancelled"];

/// How long the proxy waits for a task to end: as long as a person answering may take.
fn task_wait(toolbox: &Toolbox) -> Duration {
    toolbox
        .options()
        .request_timeout
        .saturating_mul(MAX_EXTENSIONS)
}

/// `tasks/list`: every server's tasks (all pages), named for the client, as one page.
async fn list(toolbox: &Toolbox, servers: &[String]) -> String {
    let listing: Vec<String> = servers
        .iter()
        .filter(|name| server_declares(toolbox, name, &["tasks", "list"]))
        .cloned()
        .collect();
    let mut tasks = Vec::new();
    for (server, items) in gather(toolbox, &listing, "tasks/list", "tasks").await {
        for item in items {
            let named = rewrite(&item, &["taskId"], |id| Some(exposed_id(&server, id)));
            tasks.push(named.map_or(item, |(text, _)| text));
        }
    }
    format!(r#"{{"tasks":[{}]}}"#, tasks.join(","))
}

/// The `tasks` capability the proxy declares: what at least one server declares of `list`,
/// `cancel` and `requests.tools.call` (JSON text), or `None` when none offers tasks.
pub(crate) fn capability(toolbox: &Toolbox) -> Option<String> {
    let servers = offering(toolbox, "tasks");
    if servers.is_empty() {
        return None;
    }
    let declares = |path: &[&str]| {
        let path: Vec<&str> = ["tasks"].iter().chain(path).copied().collect();
        servers
            .iter()
            .any(|name| server_declares(toolbox, name, &path))
    };
    let mut parts = Vec::new();
    for flag in ["list", "cancel"] {
        if declares(&[flag]) {
            parts.push(format!(r#""{flag}":{{}}"#));
        }
    }
    if declares(&["requests", "tools", "call"]) {
        parts.push(r#""requests":{"tools":{"call":{}}}"#.to_owned());
    }
    Some(format!("{{{}}}", parts.join(",")))
}

/// The params of a server's request to the client, with the task it is part of (its
/// `related-task`, if any) named for the client.
pub(crate) fn request_for_client(server: &str, params: &str) -> String {
    rewrite(params, &["_meta", RELATED_TASK, "taskId"], |id| {
        Some(exposed_id(server, id))
    })
    .map_or_else(|| params.to_owned(), |(text, _)| text)
}

/// A server's notification (progress, a log message) with the task it is about (its
/// `related-task`, if any) named for the client.
pub(crate) fn notification_for_client(server: &str, message: &str) -> String {
    rewrite(
        message,
        &["params", "_meta", RELATED_TASK, "taskId"],
        |id| Some(exposed_id(server, id)),
    )
    .map_or_else(|| message.to_owned(), |(text, _)| text)
}

/// The client's answer (a result) to a request of `server`, with the task it names (its
/// `related-task`) in the server's own words again.
pub(crate) fn result_for_server(server: &str, result: &str) -> String {
    rewrite(result, &["_meta", RELATED_TASK, "taskId"], |id| {
        id.strip_prefix(server)?
            .strip_prefix(COLLISION_SEPARATOR)
            .map(str::to_owned)
    })
    .map_or_else(|| result.to_owned(), |(text, _)| text)
}

/// Whether a tool's definition (JSON text) says it runs only as a task
/// (`execution.taskSupport: "required"`).
pub(crate) fn runs_only_as_task(definition: &str) -> bool {
    raw::get_path(definition, &["execution", "taskSupport"])
        .and_then(raw::string)
        .is_some_and(|support| support == "required")
}

/// Runs a `tools/call` (params as the server takes them) as a task on `server` and waits for
/// its result: for a client that cannot (lean mode's `execute_tool`), a tool that runs only
/// as a task works as any other.
///
/// # Errors
/// The server's error as sent, for the call or for its result; the server unavailable, gone
/// or slow.
pub(crate) async fn run_to_end(
    toolbox: &Toolbox,
    server: &str,
    params: &str,
) -> Result<String, CallError> {
    let entries = raw::entries(params).unwrap_or_default();
    let mut splice = raw::Splice::new(params);
    splice.set(params, &entries, "task", "{}".to_owned());
    let reply = toolbox
        .request(server, "tools/call", Some(&splice.finish()))
        .await?;
    let created = reply.result().unwrap_or("{}");
    let Some(id) = raw::get_path(created, &["task", "taskId"]).and_then(raw::string) else {
        // Run at once after all.
        return Ok(created.to_owned());
    };
    let running = toolbox
        .server(server)
        .ok_or_else(|| refusal(code::INTERNAL_ERROR, format!("{server} is not running")))?;
    let params = format!(r#"{{"taskId":{}}}"#, raw::quote(&id));
    // Cancelled on the server if this ends first: the call was cancelled, or timed out.
    let mut guard = CancelOnDrop {
        server: Some(running.clone()),
        params: params.clone(),
    };
    let result = running
        .request("tasks/result", Some(&params), task_wait(toolbox))
        .await?;
    guard.server = None;
    Ok(result.result().unwrap_or("{}").to_owned())
}

/// Sends `tasks/cancel` for a task nobody waits for any more, unless disarmed (`server`
/// taken).
struct CancelOnDrop {
    server: Option<Arc<Upstream>>,
    params: String,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(server) = self.server.take() else {
            return;
        };
        let params = std::mem::take(&mut self.params);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = server
                    .request("tasks/cancel", Some(&params), CANCEL_WAIT)
                    .await;
            });
        }
    }
}

/// How long a `tasks/cancel` sent on the proxy's own account may take.
const CANCEL_WAIT: Duration = Duration::from_secs(10);

/// A task id as the client knows it.
fn exposed_id(server: &str, id: &str) -> String {
    format!("{server}{COLLISION_SEPARATOR}{id}")
}

/// The server (of `servers`) and its own id for a task id the client knows: the longest
/// server name it starts with, followed by the separator.
fn route(servers: &[String], id: &str) -> Option<(String, String)> {
    servers
        .iter()
        .filter_map(|server| {
            let own = id.strip_prefix(server.as_str())?;
            let own = own.strip_prefix(COLLISION_SEPARATOR)?;
            Some((server.clone(), own.to_owned()))
        })
        .max_by_key(|(server, _)| server.len())
}

/// `text` with the string at `path` replaced by what `rename` makes of it, and the new string;
/// `None` when there is no string there (or `rename` declines).
fn rewrite(
    text: &str,
    path: &[&str],
    rename: impl FnOnce(&str) -> Option<String>,
) -> Option<(String, String)> {
    let at = raw::get_path(text, path)?;
    let renamed = rename(&raw::string(at)?)?;
    let mut splice = raw::Splice::new(text);
    splice.replace(at, raw::quote(&renamed));
    Some((splice.finish(), renamed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_ids_name_their_server_and_route_back() {
        let servers = vec!["a".to_owned(), "a__b".to_owned()];
        assert_eq!(exposed_id("a", "x__y"), "a__x__y");
        assert_eq!(
            route(&servers, "a__x__y"),
            Some(("a".into(), "x__y".into()))
        );
        // The longest server name wins.
        assert_eq!(
            route(&servers, "a__b__7"),
            Some(("a__b".into(), "7".into()))
        );
        assert_eq!(route(&servers, "b__7"), None);
        assert_eq!(route(&servers, "a"), None);
    }

    #[test]
    fn ids_are_rewritten_where_servers_write_them_and_nothing_else_moves() {
        let created = r#"{"task": {"taskId":"t1","status":"working","ttl":60000}, "n": 1.50}"#;
        let (text, id) =
            rewrite(created, &["task", "taskId"], |id| Some(format!("s__{id}"))).unwrap();
        assert_eq!(id, "s__t1");
        assert_eq!(
            text,
            r#"{"task": {"taskId":"s__t1","status":"working","ttl":60000}, "n": 1.50}"#
        );
        let status = r#"{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t\u0031","status":"completed"}}"#;
        assert!(
            Tasks::default()
                .status_for_client("s", status)
                .contains(r#""taskId":"s__t1""#)
        );
        let answer = r#"{"action":"accept","_meta":{"io.modelcontextprotocol/related-task":{"taskId":"s__t1"}}}"#;
        assert_eq!(
            result_for_server("s", answer),
            r#"{"action":"accept","_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}}}"#
        );
        let asked =
            r#"{"message":"?","_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}}}"#;
        assert_eq!(
            request_for_client("s", asked),
            r#"{"message":"?","_meta":{"io.modelcontextprotocol/related-task":{"taskId":"s__t1"}}}"#
        );
        // Nothing to rewrite: as sent.
        assert_eq!(
            request_for_client("s", r#"{"message":"?"}"#),
            r#"{"message":"?"}"#
        );
        assert!(
            rewrite(r#"{"task":{"taskId":5}}"#, &["task", "taskId"], |id| Some(
                id.into()
            ))
            .is_none()
        );
    }

    #[test]
    fn a_tool_that_runs_only_as_a_task_says_so() {
        assert!(runs_only_as_task(
            r#"{"name":"r","execution":{"taskSupport":"required"}}"#
        ));
        assert!(!runs_only_as_task(
            r#"{"name":"r","execution":{"taskSupport":"optional"}}"#
        ));
        assert!(!runs_only_as_task(r#"{"name":"r"}"#));
    }
}
