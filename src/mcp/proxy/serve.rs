//! The stdio MCP server in front of a [`Toolbox`]: what `toon mcp serve` runs.
//!
//! Requests are handled concurrently (one task each), so a slow server never holds up calls
//! to the others; `notifications/cancelled` from the client aborts the call and is passed to
//! the server; progress notifications come back; a server's `tools/list_changed` re-lists it
//! and is passed on.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{Value as Json, json};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use super::error::CallError;
use super::peer::{Peer, lock};
use super::toolbox::{Change, Toolbox};
use super::wire::{self, Kind, code};
use super::{PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS};
use crate::mcp::{
    Format, Grouping, LIST_CHANGED, MetaCall, MetaTools, PRIMER, Structured, error_result,
};

/// Which tools the client sees.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Every server's tools with their own definitions (shared names as `SERVER__NAME`).
    #[default]
    Passthrough,
    /// Only `discover_tools`, `get_tool_spec` and `execute_tool`.
    Lean,
}

impl Mode {
    /// Parses `passthrough` or `lean`.
    #[must_use]
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "passthrough" => Some(Mode::Passthrough),
            "lean" => Some(Mode::Lean),
            _ => None,
        }
    }
}

/// Serves MCP over `reader`/`writer` (the proxy's stdin and stdout) until the client closes
/// its side; the caller then shuts the toolbox down.
///
/// # Errors
/// None so far: a broken client connection ends the loop normally.
pub async fn serve<R, W>(
    toolbox: Arc<Toolbox>,
    mode: Mode,
    reader: R,
    writer: W,
) -> std::io::Result<()>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (inbound_tx, mut inbound) = mpsc::unbounded_channel();
    let (bad_tx, mut bad) = mpsc::unbounded_channel();
    let client = Peer::start("client", reader, writer, inbound_tx, Some(bad_tx));
    let front = Arc::new(Front {
        toolbox,
        mode,
        client,
        in_flight: Mutex::default(),
    });
    // Its own task: a re-listing in progress is never cut short by a client message.
    let changes = {
        let front = front.clone();
        tokio::spawn(async move {
            while let Some(change) = front.toolbox.next_event().await {
                front.on_change(change).await;
            }
        })
    };
    loop {
        tokio::select! {
            message = inbound.recv() => match message {
                Some(message) => front.clone().dispatch(message).await,
                None => break,
            },
            Some(why) = bad.recv() => {
                front.client.send(wire::error(&Json::Null, code::PARSE_ERROR, &why, None)).await;
            }
        }
    }
    changes.abort();
    for (_, task) in lock(&front.in_flight).drain() {
        task.abort();
    }
    Ok(())
}

struct Front {
    toolbox: Arc<Toolbox>,
    mode: Mode,
    client: Peer,
    /// Requests being worked on, by the client's id (as JSON text), for cancellation.
    in_flight: Mutex<HashMap<String, AbortHandle>>,
}

impl Front {
    async fn dispatch(self: Arc<Self>, message: Json) {
        match wire::kind(&message) {
            Kind::Request { id, method } => {
                let key = id.to_string();
                let (id, method) = (id.clone(), method.to_owned());
                let this = self.clone();
                let mut in_flight = lock(&self.in_flight);
                let task = tokio::spawn(async move {
                    let reply = this.answer(&id, &method, message).await;
                    lock(&this.in_flight).remove(&id.to_string());
                    this.client.send(reply).await;
                });
                in_flight.insert(key, task.abort_handle());
            }
            Kind::Notification {
                method: "notifications/cancelled",
            } => {
                let request = message.pointer("/params/requestId").map(Json::to_string);
                if let Some(task) = request.and_then(|id| lock(&self.in_flight).remove(&id)) {
                    // Dropping the call's future tells its server (notifications/cancelled).
                    task.abort();
                }
            }
            Kind::Notification { .. } | Kind::Response { .. } => {}
            Kind::Invalid => {
                let id = message.get("id").cloned().unwrap_or(Json::Null);
                let text = "not a JSON-RPC 2.0 request or notification";
                self.client
                    .send(wire::error(&id, code::INVALID_REQUEST, text, None))
                    .await;
            }
        }
    }

    async fn answer(&self, id: &Json, method: &str, message: Json) -> Json {
        let mut message = message;
        let params = message
            .get_mut("params")
            .map(Json::take)
            .unwrap_or(Json::Null);
        let outcome = match method {
            "initialize" => Ok(self.initialize(&params)),
            "ping" => Ok(json!({})),
            "tools/list" => self.tools_list().await,
            "tools/call" => self.tools_call(params).await,
            _ => {
                let text = format!("method not found: {method} (the toon proxy serves tools only)");
                return wire::error(id, code::METHOD_NOT_FOUND, &text, None);
            }
        };
        match outcome {
            Ok(result) => wire::response(id, result),
            Err(e @ (CallError::Remote { .. } | CallError::UnknownTool { .. })) => {
                let data = match &e {
                    CallError::Remote { data, .. } => data.as_deref().cloned(),
                    _ => None,
                };
                let text = match &e {
                    CallError::Remote { message, .. } => message.clone(),
                    other => other.to_string(),
                };
                wire::error(id, e.code(), &text, data)
            }
            // A server gone or slow is the tool failing, which the model should see.
            Err(e) => wire::response(id, error_result(&e.to_string())),
        }
    }

    fn initialize(&self, params: &Json) -> Json {
        let asked = params.get("protocolVersion").and_then(Json::as_str);
        let version = asked
            .filter(|v| SUPPORTED_PROTOCOL_VERSIONS.contains(v))
            .unwrap_or(PROTOCOL_VERSION);
        let mut result = json!({
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": true}},
            "serverInfo": {
                "name": "toon-mcp-proxy",
                "title": "TOON proxy",
                "version": env!("CARGO_PKG_VERSION")
            }
        });
        if self.toolbox.options().policy.format != Format::Json {
            result["instructions"] = Json::String(PRIMER.to_owned());
        }
        result
    }

    async fn tools_list(&self) -> Result<Json, CallError> {
        self.toolbox.ready().await;
        let catalog = self.toolbox.catalog();
        let tools = match self.mode {
            Mode::Lean => MetaTools::new(&catalog)
                .grouping(Grouping::Server)
                .definitions()
                .map_err(|e| internal(&e.to_string()))?,
            Mode::Passthrough => {
                let drop = self.toolbox.options().policy.structured == Structured::Drop;
                catalog
                    .tools()
                    .map(|tool| exposed_definition(tool, drop))
                    .collect::<Result<Vec<_>, _>>()?
            }
        };
        Ok(json!({ "tools": tools }))
    }

    async fn tools_call(&self, params: Json) -> Result<Json, CallError> {
        let name = params
            .get("name")
            .and_then(Json::as_str)
            .unwrap_or_default();
        if self.mode == Mode::Passthrough {
            return self.toolbox.call_with(params).await;
        }
        self.toolbox.ready().await;
        let arguments = params
            .get("arguments")
            .cloned()
            .unwrap_or_else(|| json!({}));
        let call = MetaTools::new(&self.toolbox.catalog()).call(name, &arguments);
        match call {
            MetaCall::Answer(result) => Ok(result),
            MetaCall::NotMeta => Err(CallError::UnknownTool {
                name: name.to_owned(),
                suggestions: vec![
                    crate::mcp::DISCOVER_TOOLS.to_owned(),
                    crate::mcp::EXECUTE_TOOL.to_owned(),
                ],
            }),
            MetaCall::Execute(plan) => {
                let mut forwarded = json!({"name": plan.tool, "arguments": plan.arguments});
                if let Some(meta) = params.get("_meta") {
                    forwarded["_meta"] = meta.clone();
                }
                let result = self
                    .toolbox
                    .request(&plan.server, "tools/call", Some(forwarded))
                    .await?;
                Ok(plan.finish(self.toolbox.encoder(), result))
            }
        }
    }

    async fn on_change(&self, change: Change) {
        match change {
            Change::ToolsChanged { .. } | Change::ServerGone { .. } => {
                self.client
                    .send(wire::notification(LIST_CHANGED, None))
                    .await;
            }
            Change::Notification { message, .. } => {
                // Progress for a call the client made (its token came with the call).
                if message.get("method").and_then(Json::as_str) == Some("notifications/progress") {
                    self.client.send(message).await;
                }
            }
        }
    }
}

/// A tool's definition as the server sent it (every field kept, in order), under the name the
/// catalog exposes; without `outputSchema` when `structuredContent` is dropped (a client told
/// of an output schema expects structured results).
pub(super) fn exposed_definition(
    tool: &crate::mcp::Tool,
    drop_output_schema: bool,
) -> Result<Json, CallError> {
    let mut definition: Json = serde_json::from_str(tool.raw_json())
        .map_err(|e| internal(&format!("tool {}: {e}", tool.name())))?;
    if let Some(object) = definition.as_object_mut() {
        if tool.name() != tool.original_name() {
            object.insert("name".into(), Json::String(tool.name().to_owned()));
        }
        if drop_output_schema {
            object.shift_remove("outputSchema");
        }
    }
    Ok(definition)
}

fn internal(message: &str) -> CallError {
    CallError::internal("proxy", message)
}
