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
//! [`REMEMBERED`] of them).
//!
//! Tasks the client runs for a server (a server's task-augmented `sampling/createMessage` or
//! `elicitation/create`, then its `tasks/*` requests) are the client's to number: the proxy
//! forwards those requests as it forwards the server's other requests, ids untouched.

use std::collections::VecDeque;
use std::sync::Mutex;

use serde_json::value::RawValue;

use super::error::CallError;
use super::peer::lock;
use super::routes::{gather, offering};
use super::toolbox::Toolbox;
use super::wire::code;
use crate::mcp::raw;
use crate::mcp::{COLLISION_SEPARATOR, Shaping};

/// The `_meta` key that ties a message to a task.
pub(super) const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// Tasks created through the proxy whose tool is remembered, to convert their results.
pub(super) const REMEMBERED: usize = 1024;

/// Whether [`Tasks::answer`] serves `method`.
pub(super) fn serves(method: &str) -> bool {
    matches!(
        method,
        "tasks/get" | "tasks/result" | "tasks/list" | "tasks/cancel"
    )
}

/// The tasks the client created through the proxy: which tool each runs.
#[derive(Debug, Default)]
pub(super) struct Tasks {
    /// Task id as the client knows it → the tool's exposed name, oldest first.
    tools: Mutex<VecDeque<(String, String)>>,
}

impl Tasks {
    /// A task-augmented `tools/call` (passthrough): sent to the tool's server as it came (the
    /// tool under its own name); the task it creates is named for the client. A server that
    /// runs the call at once instead answers with the call's result, converted as any other.
    ///
    /// # Errors
    /// As [`Toolbox::call_text`]: an unknown tool, the server's error as sent, the server
    /// unavailable, gone or slow.
    pub(super) async fn call(&self, toolbox: &Toolbox, params: &str) -> Result<String, CallError> {
        let entries = raw::entries(params).unwrap_or_default();
        let exposed = raw::get(&entries, "name")
            .and_then(raw::string)
            .unwrap_or_default();
        toolbox.ready().await;
        let (server, original) = toolbox.route(&exposed)?;
        let forwarded = if original == exposed {
            params.to_owned()
        } else {
            let mut splice = raw::Splice::new(params);
            splice.set(params, &entries, "name", raw::quote(&original));
            splice.finish()
        };
        let reply = toolbox
            .request(&server, "tools/call", Some(&forwarded))
            .await?;
        let result = reply.result().unwrap_or("{}");
        match rewrite(result, &["task", "taskId"], |id| {
            Some(exposed_id(&server, id))
        }) {
            Some((created, id)) => {
                self.remember(id, exposed);
                Ok(created)
            }
            // Run at once (the server does not do this tool as a task): a plain result.
            None => converted(toolbox, &exposed, &server, result),
        }
    }

    /// Answers a `tasks/*` request of the client ([`serves`]): its result as JSON text.
    ///
    /// # Errors
    /// The server's own error as it sent it; no server offering tasks (`-32601`); a task id
    /// no server behind the proxy could have minted (`-32602`); the server unavailable, gone
    /// or slow.
    pub(super) async fn answer(
        &self,
        toolbox: &Toolbox,
        method: &str,
        params: &str,
    ) -> Result<String, CallError> {
        toolbox.ready().await;
        let servers = offering(toolbox, "tasks");
        if servers.is_empty() {
            return Err(refusal(
                code::METHOD_NOT_FOUND,
                format!("method not found: {method} (no server behind the proxy offers tasks)"),
            ));
        }
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
        let reply = toolbox
            .request(&server, method, Some(&splice.finish()))
            .await?;
        let result = reply.result().unwrap_or("{}");
        let named = |own: &str| Some(exposed_id(&server, own));
        if method == "tasks/result" {
            // What the call would have returned, tied to the task by its `_meta`.
            let result = rewrite(result, &["_meta", RELATED_TASK, "taskId"], named)
                .map_or_else(|| result.to_owned(), |(text, _)| text);
            return match self.tool(&id) {
                Some(tool) => converted(toolbox, &tool, &server, &result),
                None => Ok(toolbox.encoder().keep_text(&result)),
            };
        }
        Ok(rewrite(result, &["taskId"], named).map_or_else(|| result.to_owned(), |(text, _)| text))
    }

    fn remember(&self, id: String, tool: String) {
        let mut tools = lock(&self.tools);
        if tools.len() == REMEMBERED {
            tools.pop_front();
        }
        tools.push_back((id, tool));
    }

    fn tool(&self, id: &str) -> Option<String> {
        lock(&self.tools)
            .iter()
            .rev()
            .find(|(known, _)| known == id)
            .map(|(_, tool)| tool.clone())
    }
}

/// `tasks/list`: every server's tasks (all pages), named for the client, as one page.
async fn list(toolbox: &Toolbox, servers: &[String]) -> String {
    let listing: Vec<String> = servers
        .iter()
        .filter(|name| {
            toolbox.server(name).is_some_and(|s| {
                s.initialize_result()["capabilities"]["tasks"]
                    .get("list")
                    .is_some_and(serde_json::Value::is_object)
            })
        })
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
pub(super) fn capability(toolbox: &Toolbox) -> Option<String> {
    let servers = offering(toolbox, "tasks");
    if servers.is_empty() {
        return None;
    }
    let declares = |path: &[&str]| {
        servers.iter().any(|name| {
            toolbox.server(name).is_some_and(|s| {
                let mut at = &s.initialize_result()["capabilities"]["tasks"];
                for key in path {
                    at = &at[*key];
                }
                at.is_object()
            })
        })
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

/// A server's `notifications/tasks/status` (a task in its `params`), named for the client.
pub(super) fn status_for_client(server: &str, message: &str) -> String {
    rewrite(message, &["params", "taskId"], |id| {
        Some(exposed_id(server, id))
    })
    .map_or_else(|| message.to_owned(), |(text, _)| text)
}

/// The params of a server's request to the client, with the task it is part of (its
/// `related-task`, if any) named for the client.
pub(super) fn request_for_client(server: &str, params: &str) -> String {
    rewrite(params, &["_meta", RELATED_TASK, "taskId"], |id| {
        Some(exposed_id(server, id))
    })
    .map_or_else(|| params.to_owned(), |(text, _)| text)
}

/// Whether a tool's definition (JSON text) says it runs only as a task
/// (`execution.taskSupport: "required"`).
pub(super) fn required(definition: &str) -> bool {
    member_at(definition, &["execution", "taskSupport"])
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
pub(super) async fn run_to_end(
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
    let Some(id) = member_at(created, &["task", "taskId"]).and_then(raw::string) else {
        // Run at once after all.
        return Ok(created.to_owned());
    };
    let result = toolbox
        .request(
            server,
            "tasks/result",
            Some(&format!(r#"{{"taskId":{}}}"#, raw::quote(&id))),
        )
        .await?;
    Ok(result.result().unwrap_or("{}").to_owned())
}

/// `result` converted as the tool `exposed`'s results are.
fn converted(
    toolbox: &Toolbox,
    exposed: &str,
    server: &str,
    result: &str,
) -> Result<String, CallError> {
    if !toolbox.converts(exposed).converts() {
        return Ok(toolbox.encoder().keep_text(result));
    }
    toolbox
        .encoder()
        .encode_text(exposed, result, &Shaping::default())
        .map_err(|e| {
            CallError::internal(server, format!("cannot encode a result of {exposed}: {e}"))
        })
}

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

/// The value at `path` (object keys) in `text`, as sent.
fn member_at<'t>(text: &'t str, path: &[&str]) -> Option<&'t RawValue> {
    let (last, parents) = path.split_last()?;
    let mut object = text;
    for key in parents {
        let entries = raw::entries(object)?;
        object = raw::get(&entries, key)?.get();
    }
    let entries = raw::entries(object)?;
    raw::get(&entries, last)
}

/// `text` with the string at `path` replaced by what `rename` makes of it, and the new string;
/// `None` when there is no string there (or `rename` declines).
fn rewrite(
    text: &str,
    path: &[&str],
    rename: impl FnOnce(&str) -> Option<String>,
) -> Option<(String, String)> {
    let at = member_at(text, path)?;
    let renamed = rename(&raw::string(at)?)?;
    let mut splice = raw::Splice::new(text);
    splice.replace(at.get(), raw::quote(&renamed));
    Some((splice.finish(), renamed))
}

fn refusal(code: i64, message: String) -> CallError {
    CallError::Remote {
        server: "proxy".to_owned(),
        code,
        message,
        data: None,
    }
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
        assert!(status_for_client("s", status).contains(r#""taskId":"s__t1""#));
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
        assert!(required(
            r#"{"name":"r","execution":{"taskSupport":"required"}}"#
        ));
        assert!(!required(
            r#"{"name":"r","execution":{"taskSupport":"optional"}}"#
        ));
        assert!(!required(r#"{"name":"r"}"#));
    }
}
