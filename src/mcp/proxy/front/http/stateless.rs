//! Revision 2026-07-28's stateless requests on the HTTP front (`// 2026-07-28
//! basic/transports/streamable-http`): no session, no GET stream; every request is its own
//! POST, answered on that POST's response (JSON, or an SSE stream of the notifications that
//! relate to it and then the response); `subscriptions/listen` is a POST whose SSE response
//! stays open; closing a response stream cancels its request.
//!
//! **One shared core.** Every 2026-07-28 POST without a session goes to one [`Stateless`]:
//! a [`Toolbox`] and a dispatch core ([`Front`]), as a session has, started at the first such
//! request. Its servers start with that request's `clientCapabilities`, as the stdio front's
//! do at its first 2026-07-28 request (a legacy server fixes what it offers at its
//! `initialize`). Several clients share it: each POST is its request's own link
//! ([`PostLink`]), so two clients may both send id 1 and the core tells them apart by link;
//! the POSTs that carry one client cookie are one client's (`client_cookie.rs`), which is
//! what lets its sequential calls that may be asked start at once.
//! The multi round-trip requests need nothing per client beyond `requestState`, which each
//! retry carries. The shared core closes after
//! [`HttpOptions::idle_timeout`](super::HttpOptions::idle_timeout) without a request, and at
//! shutdown.
//!
//! **What the core sends** comes to the POST of the request it belongs to, by construction:
//! its response, its progress (under the token it gave: a token another request in flight
//! gave too is replaced on the server's leg), its log messages if it opted in with a
//! `logLevel`, a listen's acknowledgement and notifications. Nothing else has a client to go
//! to: dropped. A server's question reaches only the request it was asked within (see the
//! module `mrtr`): the clients share the servers and what the servers keep, never one
//! another's questions, answers, log messages or progress. Nothing waits for a client, so
//! that one that does not read holds up no one else: each POST's queue (an [`Outbox`]) takes
//! [`STREAM_QUEUE`] notifications of [`STREAM_BYTES`] in all (one always), and its last
//! message whatever their size; past that, progress and log messages are dropped (counted, in
//! the log) and a listen is ended with an error and cancelled.
//! A POST that gets nothing within [`answer_within`] is answered with an error and its
//! request cancelled.
//!
//! **Checks** (§ Request Metadata, § Server Validation), in the order of the Python SDK's
//! server: the `_meta` envelope (`-32602`), then the `MCP-Protocol-Version`, `Mcp-Method`
//! and `Mcp-Name` headers against the body (`-32020`), then the revision (`-32022`), each
//! with 400; an unknown method is 404 with `-32601`. A `tools/call` of a tool whose
//! `inputSchema` annotates parameters with `x-mcp-header` must carry each given one as
//! `Mcp-Param-{Name}` (§ Custom Headers from Tool Parameters), else 400 with `-32020`; checked
//! against the tools the servers list, always (a cold front's servers are started and listed
//! first), an integer exactly.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use hyper::header::HeaderMap;
use hyper::{Response, StatusCode};

use super::outbox::{Inbox, Outbox};
use super::stream::Out;
use super::{Body, Forget, PROTOCOL_VERSION_HEADER, stream};
use crate::mcp::proxy::error::CallError;
use crate::mcp::proxy::front::link::{Carries, Link, LinkId, Outgoing};
use crate::mcp::proxy::front::serve::{Front, Mode};
use crate::mcp::proxy::log::PROXY;
use crate::mcp::proxy::revisions::era::{self, Envelope};
use crate::mcp::proxy::servers::toolbox::{Options, Toolbox};
use crate::mcp::proxy::sync::lock;
use crate::mcp::proxy::transport::http::{annotations, name_key};
use crate::mcp::proxy::transport::peer::{ClientId, MAX_EXTENSIONS};
use crate::mcp::proxy::transport::wire::{self, Kind, Message, code};
use crate::mcp::raw;

/// `HeaderMismatch` (`// 2026-07-28 basic/transports/streamable-http` § Server Validation).
const HEADER_MISMATCH: i64 = -32020;
/// The method header (§ Standard Request Headers).
const MCP_METHOD: &str = "mcp-method";
/// The name header: `params.name` or `params.uri` (§ Standard Request Headers).
const MCP_NAME: &str = "mcp-name";

/// Notifications queued for one open response. Its last message (the response, or a
/// listen's cut-off) is queued beyond it: the router never waits for a client, so one that
/// does not read cannot hold up the others' answers.
const STREAM_QUEUE: usize = 256;

/// Bytes of notifications queued for one open response (one notification always fits; its
/// last message is not counted), as a session's [`SESSION_BYTES`](super::session::SESSION_BYTES).
const STREAM_BYTES: usize = 4 << 20;

/// The error that ends a listen whose client does not read it (JSON-RPC 2.0 § 5.1: a server
/// error of the implementation's own).
const CUT_OFF: i64 = -32000;

/// A POST waiting for its request's response (and, for a listen, its notifications): the
/// request's link, so that what the core sends for the request comes here by construction.
struct PostLink {
    id: LinkId,
    /// Closed when the request is answered or cut off: its reader gets what is queued, then
    /// the end.
    to: Arc<Outbox>,
    /// The client's id of the request (JSON text).
    request: String,
    /// Whether the request opted in to log messages (`_meta` `logLevel`).
    logs: bool,
    /// Whether it is a `subscriptions/listen`, open until it is cut off or cancelled.
    listen: bool,
    /// Whether its last message was queued (its answer, or a listen's cut-off).
    ended: AtomicBool,
    /// Progress and log messages dropped for want of room.
    dropped: AtomicU64,
    /// The core, to cancel a listen whose client does not read it.
    front: Weak<Front>,
    /// The client its cookie names (`client_cookie.rs`), if it came with one.
    client: Option<ClientId>,
}

impl PostLink {
    fn new(
        request: &str,
        (logs, listen): (bool, bool),
        client: Option<ClientId>,
        front: &Arc<Front>,
    ) -> (Arc<PostLink>, Inbox) {
        let (to, from) = Outbox::new(Arc::default());
        let link = PostLink {
            id: LinkId::new(),
            to,
            request: request.to_owned(),
            logs,
            listen,
            ended: AtomicBool::new(false),
            dropped: AtomicU64::new(0),
            front: Arc::downgrade(front),
            client,
        };
        (Arc::new(link), from)
    }

    /// Queues its last message, once.
    fn end_with(&self, text: String) {
        if !self.ended.swap(true, Ordering::SeqCst) {
            let _ = self.to.push(Out { text, last: true });
        }
    }

    /// Ends a listen whose client does not read what comes for it, rather than drop its
    /// updates unseen: an error in the place kept for it, and the listen cancelled in the
    /// core (its servers unsubscribed). The client may listen again.
    fn cut_off(&self) {
        let why = format!(
            "the listen was ended: its client did not read its stream ({STREAM_QUEUE} \
             notifications or {STREAM_BYTES} bytes were waiting); listen again"
        );
        self.end_with(wire::error(&self.request, CUT_OFF, &why, None));
        tracing::warn!(
            target: PROXY,
            "toon: http: a 2026-07-28 listen ended: its client did not read its stream"
        );
        if let Some(front) = self.front.upgrade() {
            front.cancel(self.id, &self.request);
        }
    }
}

impl Drop for PostLink {
    fn drop(&mut self) {
        self.to.close();
        let dropped = *self.dropped.get_mut();
        if dropped > 0 {
            tracing::warn!(
                target: PROXY,
                "toon: http: a 2026-07-28 request's client read too slowly: {dropped} progress \
                 or log messages for it were dropped"
            );
        }
    }
}

impl Link for PostLink {
    fn id(&self) -> LinkId {
        self.id
    }

    fn send(&self, out: Outgoing) -> BoxFuture<'_, ()> {
        match out.carries {
            Carries::Reply => self.end_with(out.text),
            // A listen's acknowledgement: its first message, which always fits.
            _ => {
                let _ = self.to.push(Out {
                    text: out.text,
                    last: false,
                });
            }
        }
        Box::pin(std::future::ready(()))
    }

    /// Progress and the request's log messages are advisory, as on the stdio front: dropped
    /// (and counted) when its client reads too slowly; a listen's update that finds no room
    /// ends the listen instead.
    fn offer(&self, out: Outgoing) -> bool {
        match out.carries {
            Carries::Reply => {
                self.end_with(out.text);
                true
            }
            Carries::Log if !self.logs => false,
            Carries::Update => {
                let taken = offer(&self.to, out.text);
                if !taken && self.listen {
                    self.cut_off();
                }
                taken
            }
            Carries::Progress | Carries::Log => {
                let taken = offer(&self.to, out.text);
                if !taken && self.to.is_open() {
                    self.dropped.fetch_add(1, Ordering::Relaxed);
                }
                taken
            }
            // Nothing of a connection's reaches a stateless request.
            Carries::Question | Carries::Notice => false,
        }
    }

    fn ask<'a>(
        &'a self,
        method: &'a str,
        _params: Option<&'a str>,
        _within: Option<&'a str>,
        _timeout: Duration,
    ) -> BoxFuture<'a, Result<Message, CallError>> {
        // A 2026-07-28 client is asked within its request's result (`mrtr.rs`), never so.
        let why = format!("a 2026-07-28 request's client cannot be asked {method} on its POST");
        Box::pin(std::future::ready(Err(CallError::internal("client", why))))
    }

    // A stateless POST carries no response of the client's.
    fn answered(&self, _message: Message) {}

    fn client(&self) -> Option<ClientId> {
        self.client
    }
}

/// The core every 2026-07-28 client without a session shares.
pub(super) struct Stateless {
    toolbox: Arc<Toolbox>,
    front: Arc<Front>,
    /// The POSTs waiting for their requests.
    pending: Mutex<HashMap<LinkId, Arc<PostLink>>>,
    last_used: Mutex<Instant>,
    closed: AtomicBool,
    /// How long a POST waits for the first thing of its request (see [`answer_within`]).
    answer_within: Duration,
}

/// A POST's place among the waiting: when it goes (answered, its client gone, timed out),
/// the request is forgotten, and cancelled in the core if it was not answered (§
/// Cancellation: "Closing the SSE response stream MUST be treated by the server as
/// cancellation of that request"; a JSON answer's POST, too, when its client goes).
struct Posted {
    stateless: Arc<Stateless>,
    link: Arc<PostLink>,
}

impl Drop for Posted {
    fn drop(&mut self) {
        lock(&self.stateless.pending).remove(&self.link.id);
        if !self.link.ended.load(Ordering::SeqCst) {
            self.stateless
                .front
                .cancel(self.link.id, &self.link.request);
        }
    }
}

impl Stateless {
    /// Starts the shared core; its servers start at the first request that needs them, with
    /// that request's `clientCapabilities`.
    pub(super) fn start(toolbox: Arc<Toolbox>, mode: Mode) -> Arc<Stateless> {
        Arc::new(Stateless {
            front: Front::start(toolbox.clone(), mode, None),
            answer_within: answer_within(toolbox.options()),
            toolbox,
            pending: Mutex::default(),
            last_used: Mutex::new(Instant::now()),
            closed: AtomicBool::new(false),
        })
    }

    /// Whether it is closed (then a new one is started for the next request).
    pub(super) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Whether no request has come for `idle` and none is in progress.
    pub(super) fn idle_for(&self, idle: Duration) -> bool {
        lock(&self.pending).is_empty() && lock(&self.last_used).elapsed() >= idle
    }

    /// A `tools/call` whose `Mcp-Param-{Name}` headers are not what the tool's
    /// `x-mcp-header` annotations and the call's arguments make them: the refusal.
    pub(super) async fn params_refused(
        self: &Arc<Self>,
        headers: &HeaderMap,
        message: &Message,
    ) -> Option<Box<Response<Body>>> {
        // Lean mode's tools are the proxy's own, with no annotation.
        if message.method() != Some("tools/call") || !self.front.lists_tools() {
            return None;
        }
        let params = message.params()?;
        let name = raw::get_path(params, &["name"]).and_then(raw::string)?;
        // § Server Behavior for Custom Headers: a server "MUST validate", so the tool's
        // annotations are known first: a cold front (the first request, or the first after an
        // idle close) has its servers started and listed now.
        if !self.toolbox.is_ready() {
            self.listed(message).await;
            // Listed within the start-up grace; a tool of a server still starting is waited for.
            if self.toolbox.catalog().get(&name).is_none() {
                self.toolbox.ready().await;
            }
        }
        // A tool the proxy answers itself, or reaches through `execute_tool`, is not the
        // server's tool of that name.
        if !self.front.calls_server_tool(&name) {
            return None;
        }
        let schema = {
            let catalog = self.toolbox.catalog();
            // A tool the proxy does not list is refused by the front itself.
            let tool = catalog.get(&name)?;
            let definition: serde_json::Value = serde_json::from_str(tool.raw_json()).ok()?;
            definition["inputSchema"].clone()
        };
        let why = param_mismatch(headers, &schema, params)?;
        let id = message.id().unwrap_or("null");
        let text = wire::error(id, HEADER_MISMATCH, &why, None);
        Some(Box::new(stream::json(StatusCode::BAD_REQUEST, text)))
    }

    /// Starts the core's servers as `message` would (with its envelope's capabilities) and
    /// waits until they are listed: an internal `server/discover`, whose answer goes nowhere.
    async fn listed(self: &Arc<Self>, message: &Message) {
        let meta = message
            .params()
            .and_then(|params| raw::get_path(params, &["_meta"]))
            .and_then(|meta| raw::entries(meta))
            .unwrap_or_default();
        let envelope: Vec<String> = [era::VERSION_KEY, era::CAPABILITIES_KEY]
            .iter()
            .filter_map(|key| raw::get(&meta, key).map(|v| format!("{}:{}", raw::quote(key), v)))
            .collect();
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{{"_meta":{{{}}}}}}}"#,
            envelope.join(",")
        );
        let Ok(discover) = Message::parse(line) else {
            return;
        };
        let (link, mut answer) = PostLink::new("0", (false, false), None, &self.front);
        let _posted = self.post(&link);
        let to: Arc<dyn Link> = link;
        self.front.receive(discover, &to).await;
        let _ = tokio::time::timeout(self.answer_within, answer.recv()).await;
    }

    /// Records a POST as waiting.
    fn post(self: &Arc<Self>, link: &Arc<PostLink>) -> Posted {
        *lock(&self.last_used) = Instant::now();
        lock(&self.pending).insert(link.id, link.clone());
        Posted {
            stateless: self.clone(),
            link: link.clone(),
        }
    }

    /// Serves one checked request of `client`'s (its cookie's, when it had one) and answers
    /// its POST.
    pub(super) async fn exchange(
        self: &Arc<Self>,
        message: Message,
        logs: bool,
        client: Option<ClientId>,
    ) -> Response<Body> {
        let Some(id) = message.id().map(str::to_owned) else {
            return super::rpc_status(StatusCode::BAD_REQUEST, code::INVALID_REQUEST, "no id");
        };
        let listen = message.method() == Some("subscriptions/listen");
        let (link, mut answers) = PostLink::new(&id, (logs, listen), client, &self.front);
        let posted = self.post(&link);
        let to: Arc<dyn Link> = link.clone();
        self.front.receive(message, &to).await;
        let first = match tokio::time::timeout(self.answer_within, answers.recv()).await {
            Ok(Some(first)) => first,
            Ok(None) => {
                return super::rpc_status(
                    StatusCode::SERVICE_UNAVAILABLE,
                    code::INTERNAL_ERROR,
                    "the proxy's front for 2026-07-28 requests has ended: retry",
                );
            }
            Err(_) => {
                // Dropped, `posted` cancels the request in the core and forgets the POST.
                drop(posted);
                let why = format!(
                    "the proxy did not answer within {} s (its servers' start-up timeout and \
                     twelve times their request timeout): the request was cancelled",
                    self.answer_within.as_secs()
                );
                return stream::json(
                    StatusCode::OK,
                    wire::error(&id, code::INTERNAL_ERROR, &why, None),
                );
            }
        };
        if first.last {
            let status = status_of(&first.text);
            return stream::json(status, first.text);
        }
        let mut response = stream::stream(
            Some(first),
            answers,
            Some(Forget::new(move || drop(posted))),
        );
        if listen {
            response.extensions_mut().insert(super::drain::Listening);
        }
        response
    }

    /// At shutdown, once the drain has given up: each request still waiting, and each open
    /// listen, is answered for its id that the proxy stopped (`drain.rs`).
    pub(super) fn cut_in_flight(&self) {
        let cut: Vec<Arc<PostLink>> = lock(&self.pending).values().cloned().collect();
        for waiting in cut {
            waiting.end_with(super::drain::cut_off(&waiting.request, waiting.listen));
            waiting.to.close();
        }
    }

    /// Ends the core: open responses end, the servers are shut down cleanly. Idempotent.
    pub(super) async fn close(&self) {
        if self.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        self.front.stop();
        for waiting in lock(&self.pending).drain().map(|(_, p)| p) {
            waiting.to.close();
        }
        self.toolbox.shutdown().await;
    }
}

/// Queues a notification for a response, if its queue has room for it (see [`STREAM_QUEUE`]
/// and [`STREAM_BYTES`]); whether it was queued.
fn offer(to: &Outbox, text: String) -> bool {
    let queued = to.queued();
    let room = to.len() < STREAM_QUEUE && (queued == 0 || queued + text.len() <= STREAM_BYTES);
    room && to.push(Out { text, last: false }).is_ok()
}

/// How long a POST waits for the first thing of its request before it is answered with an
/// error and the request cancelled: longer than the front takes to answer anything (a server's
/// start-up, then its longest call: lean mode's task run to its end, one request timeout and
/// [`MAX_EXTENSIONS`] more), so that only a request the front lost meets it; every accepted
/// request is answered.
fn answer_within(options: &Options) -> Duration {
    options
        .request_timeout
        .saturating_mul(MAX_EXTENSIONS + 2)
        .saturating_add(options.startup_timeout)
}

/// The HTTP status of a JSON answer: 404 for an unknown method (§ Protocol Version Header:
/// "MUST respond with 404 Not Found and a JSON-RPC error with code -32601"), 400 for the
/// errors the revision pairs with it (malformed request, header mismatch, missing
/// capability, unsupported version), 503 for a request cut off at shutdown (`drain.rs`),
/// else 200.
fn status_of(text: &str) -> StatusCode {
    match super::error_code(text) {
        Some(code::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(
            code::PARSE_ERROR
            | code::INVALID_REQUEST
            | code::INVALID_PARAMS
            | HEADER_MISMATCH
            | code::MISSING_REQUIRED_CLIENT_CAPABILITY
            | code::UNSUPPORTED_PROTOCOL_VERSION,
        ) => StatusCode::BAD_REQUEST,
        Some(code::STOPPED_IN_FLIGHT) => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::OK,
    }
}

/// Whether a POST is a 2026-07-28 one: its `MCP-Protocol-Version` is a modern revision, or
/// its body a request with the modern envelope (`// 2026-07-28 basic/versioning`: the
/// envelope is what marks the era). An `initialize` opens a session unless it carries the
/// modern envelope: then it is 2026-07-28's removed method (404, `-32601`).
pub(super) fn is_modern(headers: &HeaderMap, message: &Message) -> bool {
    let enveloped = matches!(message.kind(), Kind::Request { method, .. }
        if era::envelope(method, message.params()) != Envelope::Legacy);
    if message.method() == Some("initialize") {
        return enveloped;
    }
    let header = headers
        .get(PROTOCOL_VERSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| era::MODERN_VERSIONS.contains(&v));
    header || enveloped
}

/// What a checked 2026-07-28 request declares of itself.
pub(super) struct Checked {
    /// Whether it opted in to log messages.
    pub(super) logs: bool,
}

/// Checks a 2026-07-28 request's envelope and headers (§ Server Validation); the refusal is
/// the whole HTTP answer.
pub(super) fn check(
    headers: &HeaderMap,
    message: &Message,
) -> Result<Checked, Box<Response<Body>>> {
    let refuse = |status: StatusCode, code: i64, why: &str, data: Option<&str>| {
        let id = message.id().unwrap_or("null");
        Box::new(stream::json(status, wire::error(id, code, why, data)))
    };
    let Kind::Request { id, method } = message.kind() else {
        return Err(refuse(
            StatusCode::BAD_REQUEST,
            code::INVALID_REQUEST,
            "a 2026-07-28 POST carries one JSON-RPC request",
            None,
        ));
    };
    // Rung 1: the envelope (`// 2026-07-28 basic/index` "Request metadata").
    let envelope = era::envelope(method, message.params());
    let version = envelope_version(message, &envelope).map_err(|why| {
        let why = why.to_string();
        refuse(StatusCode::BAD_REQUEST, code::INVALID_PARAMS, &why, None)
    })?;
    // Rung 2: the headers mirror the body (§ Server Validation).
    if let Some(why) = header_mismatch(headers, message, method, &version) {
        return Err(refuse(StatusCode::BAD_REQUEST, HEADER_MISMATCH, &why, None));
    }
    // Rung 3: the revision (`// 2026-07-28 basic/versioning` "Unsupported versions").
    match envelope {
        Envelope::Unsupported(version) => {
            let text = era::unsupported(id, &version);
            Err(Box::new(stream::json(StatusCode::BAD_REQUEST, text)))
        }
        Envelope::Modern(modern) => Ok(Checked {
            logs: modern.log_level.is_some(),
        }),
        Envelope::Legacy | Envelope::Malformed(_) => unreachable!("refused above"),
    }
}

/// Why a stateless POST's envelope is refused (`-32602`).
#[derive(Debug, thiserror::Error)]
enum BadEnvelope {
    /// A legacy request: the envelope's keys are missing.
    #[error(
        "params._meta is missing the required envelope key(s): {}, {}",
        era::VERSION_KEY,
        era::CAPABILITIES_KEY
    )]
    Missing,
    /// The envelope is malformed: why.
    #[error("{0}")]
    Malformed(String),
}

/// The protocol version a request's envelope declares (rung 1 of [`check`]), or why the
/// envelope is refused (missing or malformed).
fn envelope_version(message: &Message, envelope: &Envelope) -> Result<String, BadEnvelope> {
    match envelope {
        Envelope::Legacy => Err(BadEnvelope::Missing),
        Envelope::Malformed(why) => Err(BadEnvelope::Malformed(why.clone())),
        Envelope::Modern(_) => Ok(body_version(message).unwrap_or_default()),
        Envelope::Unsupported(version) => Ok(version.clone()),
    }
}

/// Why the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers do not mirror the
/// body's `version` and `method` (rung 2 of [`check`], § Server Validation), or `None` when
/// they do.
fn header_mismatch(
    headers: &HeaderMap,
    message: &Message,
    method: &str,
    version: &str,
) -> Option<String> {
    for name in [PROTOCOL_VERSION_HEADER, MCP_METHOD, MCP_NAME] {
        if headers.get_all(name).iter().count() > 1 {
            return Some(format!("Header mismatch: {name} is given more than once"));
        }
    }
    match header_text(headers, PROTOCOL_VERSION_HEADER) {
        Some(v) if v == version => {}
        Some(v) => {
            return Some(format!(
                "Header mismatch: MCP-Protocol-Version header value '{v}' does not match body \
                 value '{version}'"
            ));
        }
        None => {
            return Some(
                "Header mismatch: the MCP-Protocol-Version header is missing or malformed".into(),
            );
        }
    }
    match header_text(headers, MCP_METHOD) {
        Some(v) if v == method => {}
        Some(v) => {
            return Some(format!(
                "Header mismatch: Mcp-Method header value '{v}' does not match body value \
                 '{method}'"
            ));
        }
        None => {
            return Some("Header mismatch: the Mcp-Method header is missing or malformed".into());
        }
    }
    name_mismatch(headers, message, method)
}

/// Why the `Mcp-Name` header does not mirror the tool or prompt `name` or resource `uri` in
/// the body, or `None` when it does (or the method names nothing).
fn name_mismatch(headers: &HeaderMap, message: &Message, method: &str) -> Option<String> {
    let key = name_key(method)?;
    let body = message
        .params()
        .and_then(raw::entries)
        .and_then(|e| raw::get(&e, key).and_then(raw::string))?;
    match header_text(headers, MCP_NAME).and_then(decode) {
        Some(given) if given == body => None,
        Some(given) => Some(format!(
            "Header mismatch: Mcp-Name header value '{given}' does not match body value '{body}'"
        )),
        None => Some("Header mismatch: the Mcp-Name header is missing or malformed".into()),
    }
}

/// A header's value as text; `None` when it is missing or not visible ASCII.
fn header_text<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Why the `Mcp-Param-{Name}` headers do not match the arguments of a call's `params` (JSON
/// text) (§ Server Behavior for Custom Headers: each annotated parameter with a value needs its
/// header, decoded equal to the value: see [`same_value`]), or `None` when they do.
fn param_mismatch(headers: &HeaderMap, schema: &serde_json::Value, params: &str) -> Option<String> {
    for (path, name) in annotations(schema) {
        let at: Vec<&str> = std::iter::once("arguments")
            .chain(path.iter().map(String::as_str))
            .collect();
        let Some(value) = raw::get_path(params, &at).filter(|v| *v != "null") else {
            continue;
        };
        let header = format!("mcp-param-{}", name.to_ascii_lowercase());
        let Ok(header) = hyper::header::HeaderName::from_bytes(header.as_bytes()) else {
            // Not a field name: the annotation is invalid (clients drop such tools).
            continue;
        };
        let mut given = headers.get_all(&header).iter();
        let (Some(first), None) = (given.next(), given.next()) else {
            return Some(format!(
                "Header mismatch: {header} is required once for the tool's parameter {}",
                path.join(".")
            ));
        };
        let Some(given) = first.to_str().ok().and_then(decode) else {
            return Some(format!("Header mismatch: {header} has invalid characters"));
        };
        if !same_value(value, &given) {
            return Some(format!(
                "Header mismatch: {header} header value '{given}' does not match body value \
                 '{}'",
                value
            ));
        }
    }
    None
}

/// Whether a header's decoded text is the argument `value` as § Value Encoding writes it: a
/// string as it is, a boolean as `true` or `false`, an integer in decimal, compared as a
/// number (§ Server Validation: "`42.0` and `42` are considered equal") and exactly, from the
/// texts: through `f64`, 9007199254740993 would pass for 9007199254740992.
fn same_value(text: &str, given: &str) -> bool {
    match text.as_bytes().first() {
        Some(b'"') => raw::string(text).is_some_and(|s| s == given),
        Some(b't' | b'f') => text == given,
        Some(b'-' | b'0'..=b'9') => {
            let exact = crate::json::canonical_number;
            exact(text).is_some_and(|body| exact(given) == Some(body))
        }
        // An object or array: no header can stand for it (§ Schema Extension allows
        // primitives only).
        _ => false,
    }
}

fn body_version(message: &Message) -> Option<String> {
    raw::get_path(message.params()?, &["_meta", era::VERSION_KEY]).and_then(raw::string)
}

/// A header value as meant: `=?base64?…?=` decoded (§ Value Encoding), else as given;
/// `None` when it does not decode to UTF-8.
fn decode(value: &str) -> Option<String> {
    let Some(encoded) = value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    else {
        return Some(value.to_owned());
    };
    let mut bits = 0u32;
    let mut count = 0;
    let mut out = Vec::with_capacity(encoded.len() * 3 / 4);
    for c in encoded.bytes().filter(|&c| c != b'=') {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(v);
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
            bits &= (1 << count) - 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    #[test]
    fn header_values_decode_as_the_spec_encodes_them() {
        assert_eq!(decode("us-west1").as_deref(), Some("us-west1"));
        assert_eq!(
            decode("=?base64?SGVsbG8sIOS4lueVjA==?=").as_deref(),
            Some("Hello, 世界")
        );
        assert_eq!(
            decode("=?base64?IHBhZGRlZCA=?=").as_deref(),
            Some(" padded ")
        );
        assert_eq!(
            decode("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=").as_deref(),
            Some("=?base64?literal?=")
        );
        assert_eq!(decode("=?base64?!!?="), None);
    }

    fn request(method: &str, extra: &str) -> Message {
        Message::parse(format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{{extra}"_meta":{{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        ))
        .unwrap()
    }

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (n, v) in pairs {
            h.append(*n, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn requests_are_checked_against_their_headers() {
        let call = request("tools/call", r#""name":"echo","#);
        let good = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "echo"),
        ];
        assert!(check(&headers(&good), &call).is_ok());
        assert!(is_modern(&HeaderMap::new(), &call));
        for bad in [
            &good[..2],
            &[good[0], good[1], ("mcp-name", "other")][..],
            &[good[0], ("mcp-method", "tools/list"), good[2]][..],
            &[good[1], good[2]][..],
            &[("mcp-protocol-version", "2025-11-25"), good[1], good[2]][..],
            &[good[0], good[0], good[1], good[2]][..],
        ] {
            let refused = check(&headers(bad), &call).err().unwrap();
            assert_eq!(refused.status(), StatusCode::BAD_REQUEST, "{bad:?}");
        }
        let list = request("tools/list", "");
        assert!(check(&headers(&good[..1]), &list).is_err());
        assert!(check(&headers(&[good[0], ("mcp-method", "tools/list")]), &list).is_ok());
        let legacy =
            Message::parse(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.into()).unwrap();
        assert!(!is_modern(&HeaderMap::new(), &legacy));
        assert!(is_modern(&headers(&good[..1]), &legacy));
        assert!(check(&headers(&good[..1]), &legacy).is_err());
        let initialize =
            Message::parse(r#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#.into()).unwrap();
        assert!(!is_modern(&headers(&good[..1]), &initialize));
        // With the modern envelope, `initialize` is 2026-07-28's removed method.
        let enveloped = request("initialize", "");
        assert!(is_modern(&headers(&good[..1]), &enveloped));
        assert!(is_modern(&HeaderMap::new(), &enveloped));
    }

    #[test]
    fn annotated_parameters_need_their_headers() {
        let schema = serde_json::json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "N"},
            "deep": {"type": "object", "properties": {"on": {"type": "boolean", "x-mcp-header": "On"}}},
            "list": {"type": "array", "items": {"properties": {"x": {"x-mcp-header": "X"}}}}}});
        let args = r#"{"name":"t","arguments":{"region":"Hello, 世界","n":42,"deep":{"on":true},
                       "list":[{"x":"ignored"}]}}"#;
        let good = headers(&[
            ("mcp-param-region", "=?base64?SGVsbG8sIOS4lueVjA==?="),
            ("mcp-param-n", "42.0"),
            ("mcp-param-on", "true"),
        ]);
        assert_eq!(param_mismatch(&good, &schema, args), None);
        assert!(param_mismatch(&good, &schema, r#"{"arguments":{}}"#).is_none());
        assert!(param_mismatch(&good, &schema, r#"{"arguments":{"n":null}}"#).is_none());
        // Compared exactly: these two are one `f64`.
        let big = r#"{"arguments":{"n":9007199254740993}}"#;
        let n = |v: &'static str| headers(&[("mcp-param-n", v)]);
        assert!(param_mismatch(&n("9007199254740992"), &schema, big).is_some());
        assert!(param_mismatch(&n("9007199254740993"), &schema, big).is_none());
        assert!(param_mismatch(&n("9007199254740993.0"), &schema, big).is_none());
        assert!(param_mismatch(&n("+9007199254740993"), &schema, big).is_some());
        assert!(param_mismatch(&n("4.2e1"), &schema, r#"{"arguments":{"n":42}}"#).is_none());
        for bad in [
            &[("mcp-param-n", "42"), ("mcp-param-on", "true")][..],
            &[
                ("mcp-param-region", "Hello"),
                ("mcp-param-n", "42"),
                ("mcp-param-on", "true"),
            ][..],
            &[
                ("mcp-param-region", "=?base64?SGVsbG8sIOS4lueVjA==?="),
                ("mcp-param-n", "43"),
                ("mcp-param-on", "true"),
            ][..],
        ] {
            assert!(
                param_mismatch(&headers(bad), &schema, args).is_some(),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn answers_take_the_status_their_error_code_pairs_with() {
        assert_eq!(
            status_of(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}"#),
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            status_of(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            StatusCode::OK
        );
    }
}
