//! The stdio MCP server in front of a [`Toolbox`]: what `toon mcp serve` runs.
//!
//! Requests are handled concurrently (one task each), so a slow server never holds up calls
//! to the others; `notifications/cancelled` from the client aborts the call and is passed to
//! the server; progress notifications come back; a server's `tools/list_changed` re-lists it
//! and is passed on. Resources, prompts, completion and logging go through `routes.rs`; a
//! server's requests to the client (sampling, elicitation, roots) reach the client under the
//! proxy's ids and the answers go back under the server's; one the client did not declare the
//! capability for is refused to the server at once (-32601). Every request's work runs under
//! a [`Behalf`] tag, so that a server's question or log message reaches only the client
//! request it came for ([`Cause`]), or none.
//!
//! A request of revision 2026-07-28 (its `_meta` says so) is answered by `modern.rs`:
//! translated for the servers, which speak 2025-11-25 or older, and back (the module `era`
//! says how).

mod modern;
mod notifications;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value as Json;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use super::routes::{self, Routes, offering};
use super::tasks::{self, Tasks};
use crate::Value;
use crate::mcp::meta::{Disposition, MetaError, result_text};
use crate::mcp::proxy::error::CallError;
use crate::mcp::proxy::front::listing::{exposed_definition, lean_tools_list, tools_list_json};
use crate::mcp::proxy::revisions::era::SUPPORTED_PROTOCOL_VERSIONS;
use crate::mcp::proxy::revisions::era::{self, Declared, Envelope};
use crate::mcp::proxy::revisions::listen::Listens;
use crate::mcp::proxy::revisions::mrtr::{self, Claim, ProgressAs, Rounds};
use crate::mcp::proxy::servers::toolbox::{Change, Toolbox};
use crate::mcp::proxy::servers::upstream::PROTOCOL_VERSION;
use crate::mcp::proxy::sync::lock;
use crate::mcp::proxy::transport::peer::{
    BEHALF, Behalf, Cause, ClientId, INBOUND_QUEUE, Peer, ProgressSink,
};
use crate::mcp::proxy::transport::wire::token_key;
use crate::mcp::proxy::transport::wire::{
    self, Bad, Kind, Lines, MAX_MESSAGE_BYTES, Message, Refusal, code,
};
use crate::mcp::raw;
use crate::mcp::{Format, Grouping, LIST_CHANGED, MetaTools, PRIMER, Pages, Plan, Structured};

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
/// its side; the caller then shuts the toolbox down. A toolbox started with
/// [`Options::await_client`](crate::mcp::proxy::servers::toolbox::Options::await_client) starts its servers at the client's
/// `initialize`, with the client's capabilities (as `toon mcp serve` does); otherwise they
/// have started without any, and tools that need them are not listed.
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
    serve_with(toolbox, mode, reader, writer, MAX_MESSAGE_BYTES, false).await
}

/// As [`serve`], reading client lines of up to `max_line` bytes (the HTTP front's pipe, whose
/// lines its own size check has bounded, may carry a few bytes more than a client sent);
/// when `related`, a log message for a 2026-07-28 request names it under [`RELATED_KEY`]
/// (the HTTP front's stateless router routes it by that, and removes it).
///
/// # Errors
/// As [`serve`].
pub(crate) async fn serve_with<R, W>(
    toolbox: Arc<Toolbox>,
    mode: Mode,
    reader: R,
    writer: W,
    max_line: usize,
    related: bool,
) -> std::io::Result<()>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (inbound_tx, mut inbound) = mpsc::channel(INBOUND_QUEUE);
    let (bad_tx, mut bad) = mpsc::channel(INBOUND_QUEUE);
    let lines = Lines::with_limit(max_line);
    let client = Peer::start_lines("client", reader, writer, lines, inbound_tx, Some(bad_tx));
    let front = Arc::new(Front {
        toolbox,
        mode,
        client,
        in_flight: Mutex::default(),
        pages: Pages::new(),
        routes: Routes::default(),
        tasks: Tasks::default(),
        asking: Mutex::default(),
        initialized: AtomicBool::new(false),
        limit: Arc::new(tokio::sync::Semaphore::new(MAX_IN_FLIGHT)),
        listens_limit: Arc::new(tokio::sync::Semaphore::new(MAX_LISTENS)),
        serves_2026: AtomicBool::new(false),
        rounds: Rounds::default(),
        listens: Listens::default(),
        log_level: Mutex::default(),
        declared: Mutex::default(),
        related,
        // The stateless front's requests may each be another client's.
        one_client: (!related).then(ClientId::new),
        unheard: AtomicU64::new(0),
    });
    // Servers' notifications reach the client as their readers read them, in the order each
    // server sent them: a request's log messages before its answer (on HTTP, its response
    // stream closes with the answer).
    let weak = Arc::downgrade(&front);
    front
        .toolbox
        .route_notifications(Arc::new(move |server: &str, message: &Message, cause| {
            if let Some(front) = weak.upgrade() {
                front.on_notification(server, message, cause);
            }
        }));
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
            Some(line) = bad.recv() => front.refuse(&line).await,
        }
    }
    changes.abort();
    for (_, call) in lock(&front.in_flight).drain() {
        call.task.abort();
    }
    front.rounds.clear();
    Ok(())
}

struct Front {
    toolbox: Arc<Toolbox>,
    mode: Mode,
    client: Peer,
    /// Requests being worked on, by the client's id (as JSON text), for cancellation and
    /// for progress notifications.
    in_flight: Mutex<HashMap<String, InFlight>>,
    /// Lean mode's results kept for `execute_tool`'s later pages.
    pages: Pages,
    /// Permits for requests in progress ([`MAX_IN_FLIGHT`]), listens aside.
    limit: Arc<tokio::sync::Semaphore>,
    /// Permits for open `subscriptions/listen` streams ([`MAX_LISTENS`]).
    listens_limit: Arc<tokio::sync::Semaphore>,
    /// Where resources, templates and prompts were listed.
    routes: Routes,
    /// Which tool each task the client created runs.
    tasks: Tasks,
    /// Servers' requests being put to the client, by server and the server's id (as
    /// [`token_key`]), so that a server's `notifications/cancelled` can withdraw them.
    asking: Mutex<HashMap<(String, String), AbortHandle>>,
    /// Whether the client has been answered `initialize`: servers' log messages before that
    /// go to stderr only.
    initialized: AtomicBool,
    /// Whether a 2026-07-28 request came: without `initialize` too, servers' requests and
    /// notifications then reach the client only as that revision allows.
    serves_2026: AtomicBool,
    /// 2026-07-28 requests whose server calls run across the client's rounds.
    rounds: Rounds,
    /// Open `subscriptions/listen` streams.
    listens: Listens,
    /// The log level last set on the servers for a 2026-07-28 request.
    log_level: Mutex<Option<String>>,
    /// The capabilities of the client's `initialize` (JSON text): what it may be asked.
    declared: Mutex<Option<String>>,
    /// Whether a 2026-07-28 request's log messages name it ([`serve_with`]).
    related: bool,
    /// The client every request comes from (stdio, an HTTP session); `None` on the HTTP
    /// front's stateless one, where nothing ties one request to another's client.
    one_client: Option<ClientId>,
    /// Servers' log messages no client request could be told to have caused.
    unheard: AtomicU64,
}

/// The member a log message for a 2026-07-28 request names it under (the request's id) on a
/// front that [`serve_with`] was told to: never sent to a client.
pub(crate) const RELATED_KEY: &str = "toon/relatedRequestId";

tokio::task_local! {
    /// Set while a 2026-07-28 request's server call runs across its rounds: each retry
    /// carries a new progress token, the server's call keeps the first.
    static PROGRESS_AS: ProgressAs;
}

/// Client requests in progress at once, open listens aside; more are refused with an error
/// until one ends.
pub const MAX_IN_FLIGHT: usize = 256;

/// `subscriptions/listen` streams (revision 2026-07-28) open at once, apart from
/// [`MAX_IN_FLIGHT`]; more are refused with an error until one ends.
pub const MAX_LISTENS: usize = 256;

/// A client request being worked on.
struct InFlight {
    task: AbortHandle,
    /// Its id (JSON text).
    id: String,
    /// What the requests made for it to servers carry ([`Behalf::tag`]).
    tag: u64,
    /// The client that sent it ([`Behalf::client`]).
    client: ClientId,
    /// The exchange (its [`Behalf::tag`]) whose round it waits for, for a 2026-07-28
    /// request that takes rounds.
    exchange: Option<u64>,
    /// The `progressToken` the client gave it (as JSON text), if any.
    progress_token: Option<String>,
    /// For a 2026-07-28 request that opted in to log messages, the least severe level it
    /// wants ([`severity`]): the servers' level is shared, the request's is its own.
    log_level: Option<u8>,
}

impl Front {
    async fn dispatch(self: Arc<Self>, message: Message) {
        match message.kind() {
            Kind::Request { id, method } => {
                let declared = match declared_revision(id, method, message.params()) {
                    Ok(declared) => declared,
                    Err(Refusal(reply)) => return self.client.send(reply).await,
                };
                self.connect_client(method, &message, declared.as_ref());
                let key = token_key(id);
                let reply_id = id.to_owned();
                let refused =
                    |why: String| wire::error(&reply_id, code::INVALID_REQUEST, &why, None);
                // Each request holds its message while it runs: a client that sends faster
                // than its servers answer is told so, instead of growing the proxy's memory.
                let listen = declared.is_some() && method == "subscriptions/listen";
                let permit = match self.permit(listen) {
                    Ok(permit) => permit,
                    Err(busy) => return self.client.send(refused(busy.to_string())).await,
                };
                let held = crate::mcp::proxy::metrics::global().request(listen);
                let progress_token = message.progress_token().map(|t| token_key(&t));
                let (id, method) = (id.to_owned(), method.to_owned());
                let this = self.clone();
                // Requests are dispatched one at a time: nothing comes between this check and
                // the insert below.
                if lock(&self.in_flight).contains_key(&key) {
                    let why = format!("request id {id} is already in use by a request in progress");
                    return self.client.send(refused(why)).await;
                }
                // Held until the task is recorded, so that it cannot end before it is.
                let mut in_flight = lock(&self.in_flight);
                let task_key = key.clone();
                let log_level = declared
                    .as_ref()
                    .and_then(|d| d.log_level.as_deref())
                    .map(|level| severity(level).unwrap_or(0));
                let reply_id = id.clone();
                // What its servers send can be told to be this request's.
                let behalf = Behalf::new(false, self.client_of_request());
                let task = tokio::spawn(BEHALF.scope(behalf, async move {
                    let reply = match &declared {
                        Some(declared) => {
                            this.answer_modern(&id, &method, &message, declared).await
                        }
                        None => this.answer(&id, &method, &message).await,
                    };
                    lock(&this.in_flight).remove(&task_key);
                    drop((permit, held));
                    this.client.send(reply).await;
                }));
                in_flight.insert(
                    key,
                    InFlight {
                        task: task.abort_handle(),
                        id: reply_id,
                        tag: behalf.tag,
                        client: behalf.client,
                        exchange: None,
                        progress_token,
                        log_level,
                    },
                );
            }
            Kind::Notification {
                method: "notifications/cancelled",
            } => self.cancel(&message),
            Kind::Notification {
                method: "notifications/roots/list_changed",
            } => {
                for (_, server) in self.toolbox.running_in_order() {
                    server.notify(message.text().to_owned()).await;
                }
            }
            Kind::Notification { .. } | Kind::Response { .. } => {}
            Kind::Invalid => {
                let id = message.id().unwrap_or("null");
                let text = "not a JSON-RPC 2.0 request or notification";
                self.client
                    .send(wire::error(id, code::INVALID_REQUEST, text, None))
                    .await;
            }
        }
    }

    /// Servers start with what the client declared at `initialize`, or in the first
    /// 2026-07-28 request (`declared`: it has no `initialize`, the capabilities are its
    /// `_meta`'s); a client that asks for their tools (or anything else of theirs) without
    /// either gets servers told of no capability. A probe such as a 2025 `server/discover` or
    /// `ping` first starts nothing.
    fn connect_client(&self, method: &str, message: &Message, declared: Option<&Declared>) {
        if declared.is_some() {
            // Before any server starts: none of their requests may reach this client
            // as a request (`// 2026-07-28 basic/transports/stdio`).
            self.serves_2026.store(true, Ordering::Relaxed);
        }
        if !self.toolbox.has_client() {
            if let Some(declared) = declared {
                self.toolbox.client_connected(&declared.capabilities);
            } else if method == "initialize" {
                let capabilities = message.params_json()["capabilities"].to_string();
                self.toolbox.client_connected(&capabilities);
            } else if needs_servers(method) {
                self.toolbox.client_connected("{}");
            }
        }
    }

    /// The client's `notifications/cancelled`: the request it names stops.
    fn cancel(&self, message: &Message) {
        let request = message
            .params()
            .and_then(raw::entries)
            .and_then(|e| raw::get(&e, "requestId").map(token_key));
        if let Some(call) = request.and_then(|id| lock(&self.in_flight).remove(&id)) {
            // Dropping the call's future tells its server (notifications/cancelled).
            call.task.abort();
        }
    }

    /// A permit for a new request, or why there is none. A listen lasts until its client ends
    /// it: listens have a bound of their own ([`MAX_LISTENS`]), apart from the other
    /// requests' ([`MAX_IN_FLIGHT`]), so that open ones never take the room of calls.
    fn permit(&self, listen: bool) -> Result<tokio::sync::OwnedSemaphorePermit, AtLimit> {
        if listen {
            return self
                .listens_limit
                .clone()
                .try_acquire_owned()
                .map_err(|_| AtLimit::Listens);
        }
        self.limit
            .clone()
            .try_acquire_owned()
            .map_err(|_| AtLimit::Requests)
    }

    /// Answers a line that is not a message, with its id when its first bytes show one.
    async fn refuse(&self, line: &Bad) {
        let (code, text) = match line {
            Bad::TooLong { .. } => (code::INVALID_REQUEST, format!("the proxy refused {line}")),
            Bad::NotJson { why, .. } => (code::PARSE_ERROR, format!("not JSON: {why}")),
            Bad::NotMessage { why, .. } => (
                code::INVALID_REQUEST,
                format!("not a JSON-RPC 2.0 request or notification: {why}"),
            ),
        };
        let id = line.id().unwrap_or("null");
        self.client.send(wire::error(id, code, &text, None)).await;
    }

    async fn answer(&self, id: &str, method: &str, message: &Message) -> String {
        let outcome = match method {
            "initialize" => {
                let params = message.params_json();
                *lock(&self.declared) = Some(params["capabilities"].to_string());
                self.toolbox.ready().await;
                let result = self.initialize(&params);
                self.initialized.store(true, Ordering::Relaxed);
                Ok(result)
            }
            "ping" => Ok("{}".to_owned()),
            "tools/list" => self.tools_list().await,
            "tools/call" => self.tools_call(message.params().unwrap_or("{}")).await,
            _ if routes::serves(method) || tasks::serves(method) => {
                let params = message.params().unwrap_or("{}");
                let answer = if tasks::serves(method) {
                    self.tasks.answer(&self.toolbox, method, params).await
                } else {
                    self.routes.answer(&self.toolbox, method, params).await
                };
                return match answer {
                    Ok(result) => wire::response(id, &result),
                    Err(e) => error_reply(id, &e),
                };
            }
            _ => {
                let text = format!("method not found: {method}");
                return wire::error(id, code::METHOD_NOT_FOUND, &text, None);
            }
        };
        match outcome {
            Ok(result) => wire::response(id, &result),
            Err(
                e @ (CallError::Remote { .. }
                | CallError::UnknownTool { .. }
                | CallError::BadReply { .. }),
            ) => error_reply(id, &e),
            // A server gone or slow is the tool failing, which the model should see.
            Err(e) => wire::response(id, &result_text(&e.to_string(), true)),
        }
    }

    /// The `initialize` result (JSON text, its keys in this order): the capabilities the
    /// servers offer between them, and the primer beside each server's own instructions.
    fn initialize(&self, params: &Json) -> String {
        let asked = params.get("protocolVersion").and_then(Json::as_str);
        let version = asked
            .filter(|v| SUPPORTED_PROTOCOL_VERSIONS.contains(v))
            .unwrap_or(PROTOCOL_VERSION);
        let server_info = server_info();
        let mut result = format!(
            r#"{{"protocolVersion":{},"capabilities":{},"serverInfo":{server_info}"#,
            raw::quote(version),
            // Lean mode's meta-tools cannot be task-augmented.
            self.capabilities(self.mode == Mode::Passthrough)
        );
        self.push_instructions(&mut result);
        result.push('}');
        result
    }

    /// The union of what the servers offer besides tools (each only if one of them does);
    /// `tasks` too when `with_tasks` (revision 2026-07-28 has them only as an extension).
    fn capabilities(&self, with_tasks: bool) -> String {
        let declared = |capability: &str, flag: &str| self.any_declares(capability, flag);
        let mut capabilities = vec![r#""tools":{"listChanged":true}"#.to_owned()];
        if !offering(&self.toolbox, "resources").is_empty() {
            capabilities.push(format!(
                r#""resources":{{"subscribe":{},"listChanged":{}}}"#,
                declared("resources", "subscribe"),
                declared("resources", "listChanged")
            ));
        }
        if !offering(&self.toolbox, "prompts").is_empty() {
            capabilities.push(format!(
                r#""prompts":{{"listChanged":{}}}"#,
                declared("prompts", "listChanged")
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
    fn push_instructions(&self, result: &mut String) {
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
    fn any_declares(&self, capability: &str, flag: &str) -> bool {
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

    async fn tools_list(&self) -> Result<String, CallError> {
        self.toolbox.ready().await;
        let catalog = self.toolbox.catalog();
        match self.mode {
            Mode::Lean => {
                let tools = MetaTools::new(&catalog)
                    .grouping(Grouping::Server)
                    .definition_values()
                    .map_err(|e| CallError::internal("proxy", e.to_string()))?;
                Ok(lean_tools_list(tools))
            }
            Mode::Passthrough => {
                let drop = self.toolbox.options().policy.structured == Structured::Drop;
                // A 2026-07-28 client has no tasks: a tool that runs only as one is not for it.
                let no_tasks = self.serves_2026.load(Ordering::Relaxed);
                let tools: Vec<String> = catalog
                    .tools()
                    .filter(|tool| !(no_tasks && tasks::runs_only_as_task(tool.raw_json())))
                    .map(|tool| exposed_definition(tool, drop))
                    .collect();
                let tools: Vec<&str> = tools.iter().map(String::as_str).collect();
                Ok(tools_list_json(&tools))
            }
        }
    }

    /// The result of a `tools/call` (JSON text).
    async fn tools_call(&self, params: &str) -> Result<String, CallError> {
        if self.mode == Mode::Passthrough
            && raw::entries(params).is_some_and(|e| raw::get(&e, "task").is_some())
        {
            let token = wire::request_progress_token(params).map(|t| token_key(&t));
            return self.tasks.call(&self.toolbox, params, token).await;
        }
        if self.mode == Mode::Passthrough {
            return self
                .toolbox
                .call_text_with(params, Some(self.progress_to_client()))
                .await;
        }
        let entries = raw::entries(params).unwrap_or_default();
        let name = raw::get(&entries, "name")
            .and_then(raw::string)
            .unwrap_or_default();
        self.toolbox.ready().await;
        // Read to validate and plan; what reaches the server is the text the model sent.
        let arguments_text = raw::get(&entries, "arguments");
        let arguments = match read_arguments(&name, arguments_text) {
            Ok(arguments) => arguments,
            Err(e) => return Ok(result_text(&e.to_string(), true)),
        };
        let call = MetaTools::new(&self.toolbox.catalog()).disposition(&name, &arguments);
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
                let forwarded = forwarded_call(&plan, arguments_text, &entries);
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

    async fn on_change(self: &Arc<Self>, change: Change) {
        match change {
            Change::ToolsChanged { .. } | Change::ServerGone { .. } => {
                self.to_listens(LIST_CHANGED, None);
                if self.unsolicited() {
                    self.client
                        .send(wire::notification(LIST_CHANGED, None))
                        .await;
                }
            }
            Change::Request { server, message } => self.on_request(server, message).await,
        }
    }

    /// A server's request to the client: put to the request it came for (2026-07-28), or to
    /// the client (2025), or refused to the server at once.
    async fn on_request(self: &Arc<Self>, server: String, message: Message) {
        // The client request it came for, as the server's connection read it.
        let cause = message
            .id()
            .and_then(|id| Some(self.toolbox.server(&server)?.cause_of(id)))
            .unwrap_or(Cause::Unknown { in_flight: 0 });
        // A 2026-07-28 client is asked within its request (`mrtr.rs`), else not.
        // Never waits on a round: this task carries every server's events.
        let message = if self.serves_2026.load(Ordering::Relaxed) {
            match self.rounds.claim(&server, message, cause) {
                Claim::Taken => return,
                Claim::Refused(message, code, why) => {
                    return self.refuse_question(&server, &message, code, &why).await;
                }
                Claim::Unclaimed(message) if !self.initialized.load(Ordering::Relaxed) => {
                    return self.refuse_unclaimed(&server, &message, cause).await;
                }
                Claim::Unclaimed(message) => message,
            }
        } else {
            message
        };
        if let Some(why) = self.undeclared(&message) {
            let code = code::METHOD_NOT_FOUND;
            return self.refuse_question(&server, &message, code, &why).await;
        }
        let Some(id) = message.id() else { return };
        let key = (server.clone(), token_key(id));
        // Its own task: a person answering an elicitation holds up nothing else.
        // Held until the task is recorded, so that it cannot end before it is.
        let mut asking = lock(&self.asking);
        let this = self.clone();
        let task_key = key.clone();
        let task = tokio::spawn(async move {
            this.ask_client(&server, &message).await;
            lock(&this.asking).remove(&task_key);
        });
        asking.insert(key, task.abort_handle());
    }

    /// The client a new request of this front's comes from ([`one_client`](Self::one_client)).
    fn client_of_request(&self) -> ClientId {
        self.one_client.unwrap_or_else(ClientId::new)
    }

    /// Whether notifications the client did not ask for may be sent: not to a 2026-07-28
    /// client (`// 2026-07-28 basic/patterns/subscriptions`: list changes and resource
    /// updates only on a `subscriptions/listen` that asked), unless it also initialized.
    fn unsolicited(&self) -> bool {
        !self.serves_2026.load(Ordering::Relaxed) || self.initialized.load(Ordering::Relaxed)
    }

    /// Refuses a server's request no 2026-07-28 request of the client claims: that client
    /// cannot be asked outside its requests. (server-everything asks for roots right after
    /// `initialize`; refused, it asks again within the call that needs them.)
    async fn refuse_unclaimed(&self, server: &str, message: &Message, cause: Cause) {
        let Some(method) = message.method() else {
            return;
        };
        let why = match (mrtr::capability_of(method), cause) {
            // Stdio names no request: the proxy does not guess.
            (Some(_), Cause::Unknown { in_flight }) if in_flight > 1 => format!(
                "{in_flight} requests are in flight to this server (or were just answered or given \
                 up) and the proxy cannot tell which one {method} was asked within: it does not \
                 guess"
            ),
            (Some(capability), _) => format!(
                "the client (revision 2026-07-28) can be asked {method} only while one of its \
                 requests to this server that declares the {capability} capability runs"
            ),
            // `tasks/*` about tasks the client runs: a 2026-07-28 client runs none.
            (None, _) => format!("the client (revision 2026-07-28) does not offer {method}"),
        };
        self.refuse_question(server, message, code::METHOD_NOT_FOUND, &why)
            .await;
    }

    /// Answers a server's request to the client with an error.
    async fn refuse_question(&self, server: &str, message: &Message, code: i64, why: &str) {
        let Some(id) = message.id() else {
            return;
        };
        if let Some(server) = self.toolbox.server(server) {
            server.notify(wire::error(id, code, why, None)).await;
        }
    }

    /// Why the client may not be asked a server's request (`// 2025-11-25
    /// client/sampling`, `client/elicitation`, `client/roots`: a client that supports them
    /// MUST declare the capability), answered at once: the client did not declare the
    /// capability it needs at `initialize` (for a URL elicitation, `elicitation.url`).
    fn undeclared(&self, message: &Message) -> Option<String> {
        let method = message.method()?;
        let capability = match method {
            _ if method.starts_with("tasks/") => "tasks",
            _ => mrtr::capability_of(method)?,
        };
        let declared = lock(&self.declared).clone().unwrap_or_default();
        if !era::declares(&declared, capability) {
            return Some(format!(
                "the client did not declare the {capability} capability: it cannot be asked \
                 {method}"
            ));
        }
        let mode = message
            .params()
            .and_then(|p| raw::get_path(p, &["mode"]))
            .and_then(raw::string);
        let url = raw::get_path(&declared, &["elicitation", "url"]).is_some();
        (method == "elicitation/create" && mode.as_deref() == Some("url") && !url).then(|| {
            "the client did not declare the elicitation.url capability: it cannot be asked \
             for a URL elicitation"
                .to_owned()
        })
    }

    /// Passes a server's request to the client under the proxy's own id, and the client's
    /// answer (or error, as it sent it) back to the server under the server's id.
    async fn ask_client(&self, server: &str, request: &Message) {
        let (Some(id), Some(method)) = (request.id(), request.method()) else {
            return;
        };
        // A person may be answering: as long as a call that reports progress may run.
        let timeout = self
            .toolbox
            .options()
            .request_timeout
            .saturating_mul(crate::mcp::proxy::transport::peer::MAX_EXTENSIONS);
        // A request that is part of one of the server's tasks names it as the client knows it.
        let params = request
            .params()
            .map(|params| tasks::request_for_client(server, params));
        let reply = match self
            .client
            .request(method, params.as_deref(), timeout)
            .await
        {
            // The task the answer names (if any) in the server's own words again.
            Ok(reply) => wire::response(
                id,
                &tasks::result_for_server(server, reply.result().unwrap_or("{}")),
            ),
            Err(CallError::Remote {
                code,
                message,
                data,
                ..
            }) => wire::error(id, code, &message, data.as_deref()),
            Err(e) => wire::error(id, code::INTERNAL_ERROR, &format!("the client: {e}"), None),
        };
        if let Some(server) = self.toolbox.server(server) {
            server.notify(reply).await;
        }
    }

    /// Progress of a call, straight to the client as the server's reader reads it: ahead of
    /// the call's result, which takes the slower path through the call's task. Advisory: a
    /// client that reads slowly misses progress, not results.
    /// Within a 2026-07-28 request's rounds ([`PROGRESS_AS`]), under the latest round's token.
    fn progress_to_client(&self) -> ProgressSink {
        let client = self.client.clone();
        let current = PROGRESS_AS.try_with(Arc::clone).ok();
        Arc::new(move |text: &str| {
            let text = match &current {
                Some(current) => match mrtr::retoken(text, lock(current).as_deref()) {
                    Some(text) => text,
                    None => return,
                },
                None => text.to_owned(),
            };
            let _ = client.try_send(text);
        })
    }

    fn expects_progress(&self, server: &str, token: &str) -> bool {
        let asked = lock(&self.in_flight)
            .values()
            .any(|call| call.progress_token.as_deref() == Some(token));
        let sent = || {
            self.toolbox
                .server(server)
                .is_some_and(|s| s.was_given(token))
        };
        (asked && sent()) || self.tasks.expects_progress(server, token)
    }
}

/// The proxy's `serverInfo` (JSON text).
fn server_info() -> String {
    serde_json::to_string(&crate::toon!({
        "name": "toon-mcp-proxy",
        "title": "TOON proxy",
        "version": env!("CARGO_PKG_VERSION")
    }))
    .unwrap_or_default()
}

/// The instructions of the proxy's `initialize` result: the primer (if any), then each
/// server's own under its name.
pub(crate) fn merged_instructions(
    primer: Option<&str>,
    servers: &[(String, String)],
) -> Option<String> {
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

/// A JSON-RPC error reply to request `id` for `e`: a server's error as it sent it, the
/// proxy's own with its code and message.
fn error_reply(id: &str, e: &CallError) -> String {
    match e {
        CallError::Remote {
            code,
            message,
            data,
            ..
        } => wire::error(id, *code, message, data.as_deref()),
        e => wire::error(id, e.code(), &e.to_string(), None),
    }
}

/// Why a front takes no new request now: it is at one of its bounds (the client is told,
/// `-32600`).
#[derive(Debug, thiserror::Error)]
enum AtLimit {
    /// [`MAX_LISTENS`] listens are open.
    #[error(
        "{MAX_LISTENS} subscriptions/listen streams are open, the proxy's limit: retry when one \
         has ended"
    )]
    Listens,
    /// [`MAX_IN_FLIGHT`] requests are in progress.
    #[error(
        "{MAX_IN_FLIGHT} requests are in progress, the proxy's limit: retry when one has been \
         answered"
    )]
    Requests,
}

/// The revision a request declares (`// 2026-07-28 basic/versioning`: each request says its
/// own): `None` for a legacy request, what a 2026-07-28 one declares, or the reply refusing
/// a revision the proxy does not serve or a malformed envelope.
fn declared_revision(
    id: &str,
    method: &str,
    params: Option<&str>,
) -> Result<Option<Declared>, Refusal> {
    match era::envelope(method, params) {
        Envelope::Legacy => Ok(None),
        Envelope::Modern(declared) => Ok(Some(declared)),
        Envelope::Unsupported(version) => Err(Refusal(era::unsupported(id, &version))),
        Envelope::Malformed(why) => Err(Refusal(wire::error(id, code::INVALID_PARAMS, &why, None))),
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

/// Whether a request is served by the servers (so they must be started to answer it).
fn needs_servers(method: &str) -> bool {
    method.starts_with("tools/") || routes::serves(method)
}

/// A log level's rank, least severe first (`// 2025-11-25 server/utilities/logging`: the
/// syslog severities of RFC 5424); `None` for a name the spec does not give.
fn severity(level: &str) -> Option<u8> {
    const LEVELS: [&str; 8] = [
        "debug",
        "info",
        "notice",
        "warning",
        "error",
        "critical",
        "alert",
        "emergency",
    ];
    LEVELS
        .iter()
        .position(|l| *l == level)
        .and_then(|i| u8::try_from(i).ok())
}
