//! The proxy's Streamable HTTP front (`toon mcp serve --http ADDR`): MCP 2025-11-25
//! "Streamable HTTP" (`basic/transports`, § Streamable HTTP) at one path, `/mcp` by default,
//! and revision 2026-07-28's stateless requests at the same path (`stateless.rs`).
//!
//! **Sessions.** An `initialize` POST without `Mcp-Session-Id` opens a session and its
//! response carries the new id (128 random bits, hex). Each session has its own
//! [`Toolbox`] and its own dispatch core (`front::serve`'s `Front`), exactly as one stdio
//! client has:
//! its own server processes, started with *this* client's capabilities (a server such as
//! server-everything decides which tools exist from them), its own requests, cancellations,
//! progress, sampling/elicitation/roots questions, resource subscriptions, log level and
//! lean-mode pages. Nothing but the listening socket and the configuration is shared between
//! sessions. The cost is one set of server processes per session, so sessions are bounded
//! ([`HttpOptions::max_sessions`]): an `initialize` beyond it waits for a session to end
//! (up to [`HttpOptions::session_wait`], then 503 with `Retry-After`). Sessions end on
//! DELETE, after [`HttpOptions::idle_timeout`] without use, and at shutdown; their servers
//! are shut down cleanly.
//!
//! **Messages.** POST carries one JSON-RPC message. A notification or response is answered
//! 202. A request is answered `application/json` when its response is the first thing for
//! it, or `text/event-stream` when something comes first (progress, a server's request to
//! the client made within it, anything else while no GET stream is open), the response then
//! ending the stream. GET opens
//! the session's stream for server messages (one at a time: 409). Messages are forwarded as
//! the text they came as; resumability (event ids, `Last-Event-ID`) is not offered. What a
//! session keeps for its client is bounded in bytes, and a client that reads slowly never
//! holds up its session's other answers (`session.rs`). A session whose `initialize` answer
//! is not delivered is closed at once.
//!
//! **Security** (§ Security Warning): `Origin`, when present, must be the bound address's
//! own (loopback names are one another's) or listed in [`HttpOptions::allowed_origins`],
//! else 403; with a loopback bind, `Host` must name loopback (DNS rebinding), else 403; with
//! a token, `Authorization: Bearer TOKEN` is required (the scheme in any case; the token
//! compared in constant time), else 401
//! with `WWW-Authenticate: Bearer`. Bodies over [`MAX_MESSAGE_BYTES`] are refused with 413,
//! a body that stops coming for [`BODY_TIMEOUT`] with 408. Connections are kept in two
//! rooms, unauthenticated and authenticated (`connections.rs`), so that connections without
//! the token cannot crowd out those with it.
//!
//! **Why hyper, not rmcp's `StreamableHttpService`**: rmcp's service needs typed handlers
//! (`ServerHandler`) and re-serialises every message through its model, which drops fields it
//! does not know and loses digits; here a body is bytes handed to [`wire`], parsed once, and
//! an SSE event is the text the core sent.
//!
//! **2026-07-28.** A POST without a session whose `MCP-Protocol-Version` is 2026-07-28 or
//! whose body carries that revision's `_meta` envelope is served statelessly by one core
//! all such clients share (`stateless.rs`): `// 2026-07-28 basic/transports/streamable-http`,
//! "Removal of protocol-level sessions". GET and DELETE with that revision's header and no
//! session: 405. A session's own requests stay of the revision its `initialize` chose (a
//! 2026-07-28 header there is refused with `-32022`, as before).

mod client_cookie;
mod connections;
mod drain;
mod observe;
mod outbox;
mod questions;

mod session;
mod stateless;
mod stream;

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Frame, Incoming, SizeHint};
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use crate::mcp::proxy::front::serve::Mode;
use crate::mcp::proxy::log::PROXY;
use crate::mcp::proxy::revisions::era::{self, MODERN_VERSIONS};
use crate::mcp::proxy::servers::toolbox::Toolbox;
use crate::mcp::proxy::sync::lock;
use crate::mcp::proxy::transport::wire::{self, Kind, MAX_MESSAGE_BYTES, Message, code};
use connections::{Busy, Conn, Connections};
use drain::{Drain, Post};
use session::Session;
use stateless::Stateless;

pub use observe::serve_metrics;

/// The session header (2025-11-25 transports, § Session Management).
const SESSION_ID: &str = "mcp-session-id";
/// The revision header (§ Protocol Version Header).
const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";

/// How long a client may take to send a request's headers, and how long an authenticated
/// keep-alive connection may stay idle.
const HEADER_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a request's body may pause (no byte received) before the request is answered
/// 408 and its connection closed; also its allowance before [`BODY_RATE`] applies.
const BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// The slowest a body may come on average, in bytes a second, past [`BODY_TIMEOUT`]: a body
/// trickled a byte at a time, never pausing long, would otherwise hold its connection (and
/// its room among the authenticated ones) for as long as its length allows.
const BODY_RATE: u64 = 64 << 10;

/// How long the answers of requests cut off at shutdown get to be written (`drain.rs`).
const CUT_WRITE: Duration = Duration::from_secs(1);

/// How `toon mcp serve --http` serves: the defaults with fields set (it may gain fields:
/// `#[non_exhaustive]`).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct HttpOptions {
    /// The endpoint's path (default `/mcp`).
    pub path: String,
    /// When set, every request must carry `Authorization: Bearer TOKEN`.
    pub token: Option<String>,
    /// `Origin` values allowed besides the bound address's own (exact, e.g.
    /// `http://localhost:5173`).
    pub allowed_origins: Vec<String>,
    /// Sessions open at once (default 32); each has its own server processes.
    pub max_sessions: usize,
    /// How long an `initialize` beyond [`max_sessions`](Self::max_sessions) waits for a
    /// session to end before it is answered 503 (default 30 s).
    pub session_wait: Duration,
    /// A session unused this long (no request, no response in progress, no GET stream
    /// open) is closed (default 30 min); its client then gets 404 and initializes anew.
    pub idle_timeout: Duration,
    /// Connections that made an authenticated request (the token, when one is set), kept
    /// open at once (default 512): keep-alive connections and streams. One more closes the
    /// oldest idle one, or is answered 503 when all are busy.
    pub max_connections: usize,
    /// Connections that have not made an authenticated request yet, kept open at once
    /// (default 128); each has 10 s to make one. One more closes the oldest idle one.
    pub max_unauthenticated: usize,
    /// This replica's name among several behind a load balancer: session ids then start
    /// with `NAME.`, so that the balancer can send a session's requests to the replica that
    /// holds it (docs/deployment.md). ASCII letters, digits, `-` and `_`, at most 63 (a Kubernetes pod name fits).
    pub replica: Option<String>,
    /// At shutdown, how long POSTs in progress may take to be answered after the listener
    /// has closed, before sessions are closed (default 10 s); those still in progress then
    /// are answered that the proxy stopped while they were (`drain.rs`).
    pub drain: Duration,
    /// `/metrics` answers without the token (default `false`: it needs it as MCP does;
    /// `/healthz` and `/readyz` never do). See `observe.rs`.
    pub metrics_public: bool,
    /// Whether 2026-07-28 requests without a session are told apart by the proxy's client
    /// cookie (default `true`): the requests of a client that keeps cookies are then one
    /// client's, as a session's are, and its calls that may be asked start at once. Off,
    /// each such request is a client of its own (for a backend that serves several users
    /// through one HTTP client and cookie jar). See `client_cookie.rs`.
    pub client_cookie: bool,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            path: "/mcp".to_owned(),
            token: None,
            allowed_origins: Vec::new(),
            max_sessions: 32,
            session_wait: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(30 * 60),
            max_connections: 512,
            max_unauthenticated: 128,
            replica: None,
            drain: Duration::from_secs(10),
            metrics_public: false,
            client_cookie: true,
        }
    }
}

/// Why the HTTP front could not serve.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HttpError {
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The options cannot work.
    #[error("invalid HTTP option: {0}")]
    Options(String),
}

/// Builds each session's toolbox (started with
/// [`Options::await_client`](crate::mcp::proxy::servers::toolbox::Options::await_client), so its servers start at the
/// client's `initialize`).
pub type ToolboxFactory = Arc<dyn Fn() -> Arc<Toolbox> + Send + Sync>;

/// Binds `addr` (not checked for loopback here: the caller decides what it allows).
///
/// # Errors
/// [`HttpError::Bind`] when the address cannot be bound.
pub async fn bind(addr: SocketAddr) -> Result<TcpListener, HttpError> {
    TcpListener::bind(addr)
        .await
        .map_err(|source| HttpError::Bind { addr, source })
}

/// Serves MCP Streamable HTTP on `listener` until `shutdown` completes, then closes every
/// session (their servers shut down cleanly) and returns.
///
/// # Errors
/// [`HttpError::Options`] for options that cannot work (no sessions, a path not starting
/// with `/`).
pub async fn serve_http(
    listener: TcpListener,
    toolboxes: ToolboxFactory,
    mode: Mode,
    options: HttpOptions,
    shutdown: impl Future<Output = ()>,
) -> Result<(), HttpError> {
    serve(listener, Some(toolboxes), mode, options, shutdown).await
}

/// Serves the front on `listener` until `shutdown` completes; without `toolboxes`, only the
/// pages beside MCP (a stdio proxy's `--metrics` listener, `observe.rs`), under the same
/// rules: Host, Origin, token, connection rooms and timeouts.
async fn serve(
    listener: TcpListener,
    toolboxes: Option<ToolboxFactory>,
    mode: Mode,
    options: HttpOptions,
    shutdown: impl Future<Output = ()>,
) -> Result<(), HttpError> {
    check(&options)?;
    let local = listener
        .local_addr()
        .map_err(|source| HttpError::Options(format!("the listener has no address: {source}")))?;
    let front = Arc::new(HttpFront {
        local,
        toolboxes,
        mode,
        slots: Arc::new(Semaphore::new(options.max_sessions)),
        connections: Connections::new(options.max_unauthenticated, options.max_connections),
        options,
        sessions: Mutex::default(),
        stateless: Mutex::default(),
        drain: Arc::default(),
    });
    let reaper = tokio::spawn(reap(Arc::downgrade(&front)));
    accept(&front, &listener, shutdown).await;
    last_accepts(&front, listener);
    reaper.abort();
    front.stop().await;
    Ok(())
}

/// Options that cannot work.
fn check(options: &HttpOptions) -> Result<(), HttpError> {
    for (flag, n) in [
        ("--http-max-sessions", options.max_sessions),
        ("--http-max-connections", options.max_connections),
        ("--http-max-unauthenticated", options.max_unauthenticated),
    ] {
        if n == 0 {
            return Err(HttpError::Options(format!("{flag} must be at least 1")));
        }
    }
    if !options.path.starts_with('/') {
        return Err(HttpError::Options(format!(
            "the path {:?} must start with /",
            options.path
        )));
    }
    if let Some(name) = &options.replica
        && !replica_name_ok(name)
    {
        return Err(HttpError::Options(format!(
            "the replica name {name:?} must be 1 to 63 ASCII letters, digits, - or _"
        )));
    }
    Ok(())
}

/// Takes connections in until `shutdown` completes.
async fn accept(
    front: &Arc<HttpFront>,
    listener: &TcpListener,
    shutdown: impl Future<Output = ()>,
) {
    tokio::pin!(shutdown);
    loop {
        // A new connection pushes an idle one out of its room (`connections.rs`).
        let (stream, _) = tokio::select! {
            () = &mut shutdown => break,
            accepted = async {
                front.connections.make_room().await;
                listener.accept().await
            } => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    tracing::warn!(target: PROXY, "toon: http: accept: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        take(front, stream, None);
        // Lets the connections accepted make their first request before more are taken in.
        tokio::task::yield_now().await;
    }
    // Connections the kernel completed before the listener closes are served, not reset
    // with it (a balancer has sent them a request it cannot resend elsewhere); their first
    // request counts as in progress from now (`drain.rs`).
    // (The short wait lets the reactor see those that came last; the bound, that a
    // balancer still sending here does not keep the listener open.)
    let until = tokio::time::Instant::now() + Duration::from_millis(50);
    while let Ok(Ok((stream, _))) = tokio::time::timeout_at(
        until.min(tokio::time::Instant::now() + Duration::from_millis(5)),
        listener.accept(),
    )
    .await
    {
        take(front, stream, Some(front.drain.post()));
    }
}

/// At most this many connections are taken by [`last_accepts`].
const LAST_ACCEPTS: usize = 1024;

/// Takes what the kernel completed since the reactor last looked, by `accept` calls straight
/// to the socket (tokio's readiness can be a turn of the runtime old, milliseconds on a busy
/// machine), until none is left, then closes the listener: what a balancer sent in between
/// is a window of two system calls, not of a runtime turn.
fn last_accepts(front: &Arc<HttpFront>, listener: TcpListener) {
    let listener = match listener.into_std() {
        Ok(listener) => listener,
        Err(e) => return tracing::warn!(target: PROXY, "toon: http: closing the listener: {e}"),
    };
    // Bounded: a balancer still sending here does not keep the listener open.
    for _ in 0..LAST_ACCEPTS {
        let Ok((stream, _)) = listener.accept() else {
            break;
        };
        // An accepted socket does not inherit the listener's non-blocking mode.
        let stream = stream
            .set_nonblocking(true)
            .and_then(|()| tokio::net::TcpStream::from_std(stream));
        match stream {
            Ok(stream) => take(front, stream, Some(front.drain.post())),
            Err(e) => tracing::warn!(target: PROXY, "toon: http: accept: {e}"),
        }
    }
}

/// Serves an accepted connection, `first` held until its first request is answered.
fn take(front: &Arc<HttpFront>, stream: tokio::net::TcpStream, first: Option<Post>) {
    let _ = stream.set_nodelay(true);
    match front.connections.admit(stream) {
        Ok((stream, conn)) => {
            tokio::spawn(connection(front.clone(), stream, conn, first));
        }
        Err(e) => tracing::warn!(target: PROXY, "toon: http: accept: {e}"),
    }
}

/// Serves one connection until it ends or is dismissed (see `connections.rs`).
async fn connection(
    front: Arc<HttpFront>,
    stream: tokio::net::TcpStream,
    conn: Arc<Conn>,
    first: Option<Post>,
) {
    let first = Arc::new(Mutex::new(first));
    let service = {
        let (front, conn) = (front.clone(), conn.clone());
        hyper::service::service_fn(move |request| {
            let (front, conn) = (front.clone(), conn.clone());
            let first = lock(&first).take();
            async move {
                let mut response = front.handle(request, &conn).await;
                drop(first);
                // Every answer, here where they all pass: none is for a cache to keep (a
                // session id, a server's state, a refusal that a token would change).
                response
                    .headers_mut()
                    .entry(header::CACHE_CONTROL)
                    .or_insert(HeaderValue::from_static("no-store"));
                Ok::<_, Infallible>(response)
            }
        })
    };
    let served = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT)
        .serve_connection(TokioIo::new(stream), service);
    tokio::select! {
        _ = served => {}
        () = conn.dismissed() => {}
    }
    front.connections.leave(&conn);
}

/// Closes idle sessions, every so often.
async fn reap(front: std::sync::Weak<HttpFront>) {
    loop {
        let every = match front.upgrade() {
            Some(front) => (front.options.idle_timeout / 4)
                .clamp(Duration::from_millis(100), Duration::from_secs(30)),
            None => return,
        };
        tokio::time::sleep(every).await;
        let Some(front) = front.upgrade() else { return };
        let idle: Vec<Arc<Session>> = {
            let mut sessions = lock(&front.sessions);
            let ids: Vec<String> = sessions
                .iter()
                .filter(|(_, s)| s.idle_for(front.options.idle_timeout))
                .map(|(id, _)| id.clone())
                .collect();
            ids.iter().filter_map(|id| sessions.remove(id)).collect()
        };
        for session in idle {
            tracing::info!(
                target: PROXY,
                session = short(&session.id),
                "toon: http: session {} idle, closed",
                short(&session.id)
            );
            tokio::spawn(async move { session.close().await });
        }
        let idle = {
            let mut stateless = lock(&front.stateless);
            let idle = stateless
                .as_ref()
                .is_some_and(|s| s.idle_for(front.options.idle_timeout));
            if idle { stateless.take() } else { None }
        };
        if let Some(stateless) = idle {
            tracing::info!(
                target: PROXY,
                "toon: http: the front for 2026-07-28 requests idle, closed"
            );
            tokio::spawn(async move { stateless.close().await });
        }
    }
}

/// A session id's first characters, for logs (the whole id is a credential of sorts).
fn short(id: &str) -> &str {
    &id[..id.len().min(8)]
}

type Body = UnsyncBoxBody<Bytes, Infallible>;

struct HttpFront {
    local: SocketAddr,
    /// Each session's toolbox; `None` on a listener with no MCP endpoint, pages only.
    toolboxes: Option<ToolboxFactory>,
    mode: Mode,
    options: HttpOptions,
    slots: Arc<Semaphore>,
    connections: Connections,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    /// The front 2026-07-28 requests without a session share, once one came.
    stateless: Mutex<Option<Arc<Stateless>>>,
    /// The POSTs in progress, waited for at shutdown (`drain.rs`).
    drain: Arc<Drain>,
}

impl HttpFront {
    /// After the listener has closed: lets the POSTs in progress be answered
    /// ([`HttpOptions::drain`] at most), then closes every session and the stateless front.
    async fn stop(&self) {
        let posts = self.drain.in_progress();
        if posts > 0 {
            tracing::info!(
                target: PROXY,
                posts,
                "toon: http: stopping: {posts} requests in progress, answered first"
            );
        }
        if !self.drain.settled(self.options.drain).await {
            tracing::warn!(
                target: PROXY,
                "toon: http: stopping: {} requests still in progress after {:?}, cut off",
                self.drain.in_progress(),
                self.options.drain
            );
        }
        self.drain.close();
        let sessions: Vec<_> = lock(&self.sessions).drain().map(|(_, s)| s).collect();
        let stateless = lock(&self.stateless).take();
        // What is still in progress is answered (`drain.rs`), and given a moment to be
        // written before the servers, then the process, go.
        for session in &sessions {
            session.cut_in_flight();
        }
        if let Some(stateless) = &stateless {
            stateless.cut_in_flight();
        }
        let _ = self.drain.written(CUT_WRITE).await;
        futures_util::future::join_all(sessions.iter().map(|s| s.close())).await;
        if let Some(stateless) = stateless {
            stateless.close().await;
        }
    }

    async fn handle(
        self: Arc<Self>,
        request: Request<Incoming>,
        conn: &Arc<Conn>,
    ) -> Response<Body> {
        let busy = conn.busy();
        if self.drain.closed() {
            return closing(StatusCode::SERVICE_UNAVAILABLE, "the proxy is stopping");
        }
        let post = (request.method() == Method::POST).then(|| self.drain.post());
        // Probes come without the token, and take no room among authenticated connections.
        let page = self.page(request.uri().path());
        let open = page.is_some_and(|(_, open)| open);
        if let Some(refused) = self.refuse(request.headers(), !open) {
            return refused;
        }
        if let Some((page, true)) = page {
            return Guarded::wrap(self.answer_page(page, request.method()), busy);
        }
        if !self.connections.authenticate(conn) {
            return closing(
                StatusCode::SERVICE_UNAVAILABLE,
                &format!(
                    "{} connections are busy, the proxy's limit: retry later",
                    self.options.max_connections
                ),
            );
        }
        let response = self.answer(request).await;
        // An open listen holds the drain no longer (`drain.rs`).
        let post = match response.extensions().get::<drain::Listening>() {
            Some(_) => post.map(Post::listening),
            None => post,
        };
        // The connection is busy until the response has been written.
        Guarded::wrap(response, (busy, post))
    }

    async fn answer(self: Arc<Self>, request: Request<Incoming>) -> Response<Body> {
        if let Some((page, _)) = self.page(request.uri().path()) {
            return self.answer_page(page, request.method());
        }
        let Some(toolboxes) = self.toolboxes.clone() else {
            return status(StatusCode::NOT_FOUND, "/metrics, /healthz, /readyz");
        };
        if request.uri().path() != self.options.path {
            return status(StatusCode::NOT_FOUND, "no MCP endpoint here");
        }
        match *request.method() {
            Method::POST => self.post(request, &toolboxes).await,
            // `// 2026-07-28 basic/transports/streamable-http` § Backward Compatibility:
            // "HTTP GET or DELETE to the MCP endpoint: respond with 405 Method Not Allowed"
            // (a 2026-07-28 client, without a session).
            Method::GET | Method::DELETE if stateless_only(request.headers()) => {
                let mut response = status(
                    StatusCode::METHOD_NOT_ALLOWED,
                    "revision 2026-07-28 has no GET stream and no sessions: POST each request",
                );
                response
                    .headers_mut()
                    .insert(header::ALLOW, HeaderValue::from_static("POST"));
                response
            }
            Method::GET => self.get(&request),
            Method::DELETE => self.delete(&request).await,
            _ => {
                let mut response =
                    status(StatusCode::METHOD_NOT_ALLOWED, "use POST, GET or DELETE");
                response
                    .headers_mut()
                    .insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
                response
            }
        }
    }

    /// The checks every request passes first: token (401, when `token`), `Origin` and
    /// `Host` (403).
    fn refuse(&self, headers: &HeaderMap, token: bool) -> Option<Response<Body>> {
        if token && let Some(token) = &self.options.token {
            let given = headers
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(bearer);
            if !given.is_some_and(|given| same(given.as_bytes(), token.as_bytes())) {
                let mut response = status(StatusCode::UNAUTHORIZED, "a bearer token is required");
                response
                    .headers_mut()
                    .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
                return Some(response);
            }
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("null");
            if !self.origin_allowed(origin) {
                return Some(status(
                    StatusCode::FORBIDDEN,
                    &format!("Origin {origin} is not allowed"),
                ));
            }
        }
        if self.local.ip().is_loopback() {
            let host = headers
                .get(header::HOST)
                .and_then(|v| v.to_str().ok())
                .map(host_of);
            if host.is_some_and(|h| !is_loopback_name(h)) {
                return Some(status(StatusCode::FORBIDDEN, "Host must name this machine"));
            }
        }
        None
    }

    /// The bound address's own origin (any scheme; loopback names stand for one another),
    /// or one listed.
    fn origin_allowed(&self, origin: &str) -> bool {
        if self.options.allowed_origins.iter().any(|o| o == origin) {
            return true;
        }
        let Some(authority) = origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"))
        else {
            return false;
        };
        let (host, port) = match authority.rsplit_once(':') {
            Some((host, port)) if !port.contains(']') => (host, port.parse::<u16>().ok()),
            _ => (authority, None),
        };
        if port != Some(self.local.port()) {
            return false;
        }
        let ip = self.local.ip();
        if ip.is_loopback() {
            is_loopback_name(host)
        } else {
            host.trim_start_matches('[').trim_end_matches(']') == ip.to_string()
        }
    }

    fn session(&self, headers: &HeaderMap) -> Result<Option<Arc<Session>>, Box<Response<Body>>> {
        let Some(id) = headers.get(SESSION_ID) else {
            return Ok(None);
        };
        let id = id.to_str().unwrap_or_default();
        match lock(&self.sessions).get(id) {
            Some(session) => Ok(Some(session.clone())),
            // § Session Management: "MUST respond … with HTTP 404 Not Found".
            None => Err(Box::new(rpc_status(
                StatusCode::NOT_FOUND,
                -32001,
                "Session not found: initialize a new session",
            ))),
        }
    }

    async fn post(
        self: Arc<Self>,
        request: Request<Incoming>,
        toolboxes: &ToolboxFactory,
    ) -> Response<Body> {
        let headers = request.headers().clone();
        if let Some(refused) = post_headers_refused(&headers) {
            return refused;
        }
        let message = match read_message(request.into_body()).await {
            Ok(message) => message,
            Err(refused) => return *refused,
        };
        // Read after the body, so that the refusal carries the request's own id.
        let id = message.id().unwrap_or("null");
        if let Some(refused) = version_refused(&headers, id) {
            return refused;
        }
        let session = match self.session(&headers) {
            Ok(session) => session,
            // § Backward Compatibility: a 2026-07-28 request's `Mcp-Session-Id` is ignored.
            Err(_) if stateless::is_modern(&headers, &message) => None,
            Err(refused) => return *refused,
        };
        if session.is_none() && stateless::is_modern(&headers, &message) {
            return self.stateless(&headers, &message, toolboxes).await;
        }
        // A session's requests are of the revision its `initialize` chose.
        if session.is_some() && modern_header(&headers) {
            return refused_version(headers_version(&headers), id);
        }
        let (session, created) = match (session, message.kind()) {
            (Some(session), _) => (session, false),
            (
                None,
                Kind::Request {
                    method: "initialize",
                    ..
                },
            ) => match self.open(toolboxes).await {
                Ok(session) => (session, true),
                Err(refused) => return *refused,
            },
            (None, _) => {
                return rpc_status(
                    StatusCode::BAD_REQUEST,
                    -32000,
                    "Bad Request: Mcp-Session-Id header is required (initialize first)",
                );
            }
        };
        if created {
            self.initialize(&session, message).await
        } else {
            self.exchange(&session, message).await
        }
    }

    /// Answers the `initialize` that opened `session`, which ends unless it succeeds and its
    /// answer is delivered (else it would hold its slot and servers until the idle timeout).
    async fn initialize(
        self: Arc<Self>,
        session: &Arc<Session>,
        message: Message,
    ) -> Response<Body> {
        let undelivered = {
            let (front, id) = (self.clone(), session.id.clone());
            Forget::new(move || {
                tracing::warn!(
                    target: PROXY,
                    session = short(&id),
                    "toon: http: session {}: its initialize answer was not delivered",
                    short(&id)
                );
                tokio::spawn(async move { front.end(&id).await });
            })
        };
        let mut response = self.exchange(session, message).await;
        if let Ok(id) = HeaderValue::from_str(&session.id) {
            response.headers_mut().insert(SESSION_ID, id);
        }
        if !response.status().is_success() {
            undelivered.disarm();
            self.end(&session.id).await;
            return response;
        }
        Guarded::wrap(response, undelivered)
    }

    /// Passes one message to the session's front and answers the POST.
    async fn exchange(&self, session: &Arc<Session>, message: Message) -> Response<Body> {
        let Kind::Request { id, .. } = message.kind() else {
            if matches!(message.kind(), Kind::Invalid) {
                return rpc_status(
                    StatusCode::BAD_REQUEST,
                    code::INVALID_REQUEST,
                    "not a JSON-RPC 2.0 request, notification or response",
                );
            }
            // § Sending Messages to the Server: "202 Accepted with no body".
            return match session.send(message).await {
                Ok(()) => status(StatusCode::ACCEPTED, ""),
                Err(e) => rpc_status(StatusCode::NOT_FOUND, -32001, &e.to_string()),
            };
        };
        let id = id.to_owned();
        let Some(mut answers) = session.expect(&id) else {
            let why = format!("request id {id} is already in use by a request in progress");
            let text = wire::error(&id, code::INVALID_REQUEST, &why, None);
            return stream::json(StatusCode::OK, text);
        };
        // The POST's client may go away before the answer: the request is not cancelled
        // (§ "disconnection SHOULD NOT be interpreted as the client cancelling its
        // request"), its answer is dropped when it comes.
        let forget = {
            let (session, id) = (session.clone(), id.clone());
            Forget::new(move || session.forget(&id))
        };
        if let Err(e) = session.send(message).await {
            if self.drain.closed() {
                // Not sent: safe to send again, elsewhere.
                return closing(StatusCode::SERVICE_UNAVAILABLE, "the proxy is stopping");
            }
            return rpc_status(StatusCode::NOT_FOUND, -32001, &e.to_string());
        }
        let Some(first) = answers.recv().await else {
            // Sent, then cut off with its session at shutdown: not a session that ended.
            if self.drain.closed() {
                return drain::cut_off_answer(&id);
            }
            return rpc_status(StatusCode::NOT_FOUND, -32001, "the session has ended");
        };
        if first.last {
            forget.disarm();
            let code = if self.drain.closed() {
                drain::status_of(&first.text)
            } else {
                StatusCode::OK
            };
            return stream::json(code, first.text);
        }
        // Something came before the response: the rest goes as a stream the response ends.
        stream::stream(Some(first), answers, Some(forget))
    }

    /// A 2026-07-28 request without a session: checked, then served by the shared front.
    async fn stateless(
        &self,
        headers: &HeaderMap,
        message: &Message,
        toolboxes: &ToolboxFactory,
    ) -> Response<Body> {
        if let Kind::Notification { .. } = message.kind() {
            // § Sending Messages: "202 Accepted"; the revision defines no client notification
            // over HTTP (closing a response stream cancels its request), so none has an effect.
            return status(StatusCode::ACCEPTED, "");
        }
        let checked = match stateless::check(headers, message) {
            Ok(checked) => checked,
            Err(refused) => return *refused,
        };
        let front = {
            let mut shared = lock(&self.stateless);
            match shared.as_ref().filter(|s| !s.is_closed()) {
                Some(front) => front.clone(),
                None => {
                    let front = Stateless::start(toolboxes(), self.mode);
                    if let Some(old) = shared.replace(front.clone()) {
                        tokio::spawn(async move { old.close().await });
                    }
                    tracing::info!(
                        target: PROXY,
                        "toon: http: the front for 2026-07-28 requests started"
                    );
                    front
                }
            }
        };
        if let Some(refused) = front.params_refused(headers, message).await {
            return *refused;
        }
        // POSTs that carry the proxy's cookie are one client's (`client_cookie.rs`).
        let cookies = self.options.client_cookie;
        let sent = cookies.then(|| client_cookie::client_of(headers)).flatten();
        let minted = (cookies && sent.is_none())
            .then(|| client_cookie::mint(&self.options.path))
            .flatten();
        let client = sent.or(minted.as_ref().map(|(_, client)| *client));
        let mut response = front.exchange(message.clone(), checked.logs, client).await;
        if let Some((cookie, _)) = minted {
            response.headers_mut().append(header::SET_COOKIE, cookie);
        }
        response
    }

    /// A new session, when a slot is free within [`HttpOptions::session_wait`].
    async fn open(&self, toolboxes: &ToolboxFactory) -> Result<Arc<Session>, Box<Response<Body>>> {
        let slot = tokio::time::timeout(
            self.options.session_wait,
            self.slots.clone().acquire_owned(),
        )
        .await;
        let Ok(Ok(slot)) = slot else {
            let mut response = rpc_status(
                StatusCode::SERVICE_UNAVAILABLE,
                -32000,
                &format!(
                    "{} sessions are open, the proxy's limit: retry later",
                    self.options.max_sessions
                ),
            );
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
            return Err(Box::new(response));
        };
        let id = session_id(self.options.replica.as_deref()).map_err(|e| {
            Box::new(status(
                StatusCode::INTERNAL_SERVER_ERROR,
                &format!("no random session id: {e}"),
            ))
        })?;
        let session = Session::start(id.clone(), toolboxes(), self.mode, slot);
        let open = {
            let mut sessions = lock(&self.sessions);
            sessions.insert(id, session.clone());
            sessions.len()
        };
        tracing::info!(
            target: PROXY,
            session = short(&session.id),
            open,
            "toon: http: session {} opened ({open} open)",
            short(&session.id)
        );
        Ok(session)
    }

    /// Ends a session and shuts its servers down.
    async fn end(&self, id: &str) {
        let session = lock(&self.sessions).remove(id);
        if let Some(session) = session {
            session.close().await;
            tracing::info!(
                target: PROXY,
                session = short(id),
                "toon: http: session {} closed",
                short(id)
            );
        }
    }

    fn get(&self, request: &Request<Incoming>) -> Response<Body> {
        let headers = request.headers();
        if !accepts(headers, "text/event-stream") {
            return status(
                StatusCode::NOT_ACCEPTABLE,
                "Accept must list text/event-stream",
            );
        }
        if let Some(refused) = version_refused(headers, "null") {
            return refused;
        }
        let session = match self.session(headers) {
            Ok(Some(session)) => session,
            Ok(None) => {
                return rpc_status(
                    StatusCode::BAD_REQUEST,
                    -32000,
                    "Bad Request: Mcp-Session-Id header is required",
                );
            }
            Err(refused) => return *refused,
        };
        match session.listen() {
            Some(messages) => stream::stream(None, messages, None),
            None => status(
                StatusCode::CONFLICT,
                "a GET stream is already open for this session",
            ),
        }
    }

    async fn delete(&self, request: &Request<Incoming>) -> Response<Body> {
        match self.session(request.headers()) {
            Ok(Some(session)) => {
                self.end(&session.id).await;
                status(StatusCode::OK, "")
            }
            Ok(None) => rpc_status(
                StatusCode::BAD_REQUEST,
                -32000,
                "Bad Request: Mcp-Session-Id header is required",
            ),
            Err(refused) => *refused,
        }
    }
}

/// What a response body holds until it has been written to its end (or is dropped
/// unfinished, as hyper does when its connection fails).
trait Guard: Send + Unpin + 'static {
    /// The body was written to its end.
    fn delivered(self);
}

/// A connection is busy until its response is written.
impl Guard for Busy {
    fn delivered(self) {}
}

/// A POST is in progress until its response is written (`drain.rs`).
impl Guard for Option<Post> {
    fn delivered(self) {}
}

/// Both guards, for one body.
impl<A: Guard, B: Guard> Guard for (A, B) {
    fn delivered(self) {
        self.0.delivered();
        self.1.delivered();
    }
}

/// A session's initialize is undone unless its answer is written.
impl Guard for Forget {
    fn delivered(self) {
        self.disarm();
    }
}

/// A response body with its [`Guard`] (size and end as the body's own: a JSON answer keeps
/// its `Content-Length`).
struct Guarded<G> {
    body: Body,
    guard: Option<G>,
}

impl<G: Guard> Guarded<G> {
    fn wrap(response: Response<Body>, guard: G) -> Response<Body> {
        response.map(|body| {
            Guarded {
                body,
                guard: Some(guard),
            }
            .boxed_unsync()
        })
    }
}

impl<G: Guard> hyper::body::Body for Guarded<G> {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let polled = Pin::new(&mut self.body).poll_frame(cx);
        if (matches!(polled, Poll::Ready(None)) || self.body.is_end_stream())
            && let Some(guard) = self.guard.take()
        {
            guard.delivered();
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// The checks of a POST's headers, before its body is read (§ Sending Messages to the
/// Server): `Accept` (406), `Content-Type` (415), `Content-Length` (413). Its
/// `MCP-Protocol-Version` is checked once the body gives the request's id.
fn post_headers_refused(headers: &HeaderMap) -> Option<Response<Body>> {
    if !accepts(headers, "application/json") || !accepts(headers, "text/event-stream") {
        return Some(status(
            StatusCode::NOT_ACCEPTABLE,
            "Accept must list application/json and text/event-stream",
        ));
    }
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(';')
                .next()
                .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
        });
    if !json {
        return Some(status(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Content-Type must be application/json",
        ));
    }
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_MESSAGE_BYTES as u64) {
        return Some(too_large());
    }
    None
}

/// A POST's body read as one JSON-RPC message, or the answer refusing it (not UTF-8, a
/// batch, not a message).
async fn read_message(body: Incoming) -> Result<Message, Box<Response<Body>>> {
    let body = read_body(body).await?;
    let Ok(text) = String::from_utf8(body.to_vec()) else {
        return Err(Box::new(rpc_status(
            StatusCode::BAD_REQUEST,
            code::PARSE_ERROR,
            "the body is not UTF-8",
        )));
    };
    if text.trim_start().starts_with('[') {
        return Err(Box::new(rpc_status(
            StatusCode::BAD_REQUEST,
            code::INVALID_REQUEST,
            "JSON-RPC batches are not supported (removed in 2025-06-18): one message per POST",
        )));
    }
    // Newlines in JSON can only be whitespace between tokens: the front reads lines.
    let line = text.replace(['\n', '\r'], " ");
    Message::parse(line).map_err(|bad| {
        Box::new(rpc_status(
            StatusCode::BAD_REQUEST,
            code::PARSE_ERROR,
            &bad.to_string(),
        ))
    })
}

/// A 413 for a body over [`MAX_MESSAGE_BYTES`].
fn too_large() -> Response<Body> {
    status(
        StatusCode::PAYLOAD_TOO_LARGE,
        &format!("a message may have at most {MAX_MESSAGE_BYTES} bytes"),
    )
}

/// A request's body, of at most [`MAX_MESSAGE_BYTES`], each part within [`BODY_TIMEOUT`]
/// of the one before and the whole within [`BODY_TIMEOUT`] and a second per [`BODY_RATE`]
/// bytes of its length (a body that stops coming, or trickles, would hold its connection).
async fn read_body(body: Incoming) -> Result<Bytes, Box<Response<Body>>> {
    use hyper::body::Body as _;
    let length = body
        .size_hint()
        .exact()
        .unwrap_or(MAX_MESSAGE_BYTES as u64)
        .min(MAX_MESSAGE_BYTES as u64);
    let deadline =
        tokio::time::Instant::now() + BODY_TIMEOUT + Duration::from_secs(length / BODY_RATE);
    let mut body = Limited::new(body, MAX_MESSAGE_BYTES);
    let mut bytes = Vec::new();
    loop {
        let part = tokio::time::timeout(BODY_TIMEOUT, body.frame());
        let part = tokio::time::timeout_at(deadline, part)
            .await
            .and_then(|p| p);
        match part {
            Ok(None) => return Ok(Bytes::from(bytes)),
            Ok(Some(Ok(frame))) => {
                if let Ok(data) = frame.into_data() {
                    bytes.extend_from_slice(&data);
                }
            }
            Ok(Some(Err(e))) if e.is::<http_body_util::LengthLimitError>() => {
                return Err(Box::new(too_large()));
            }
            Ok(Some(Err(_))) => {
                return Err(Box::new(status(
                    StatusCode::BAD_REQUEST,
                    "the body could not be read",
                )));
            }
            Err(_) => {
                return Err(Box::new(closing(
                    StatusCode::REQUEST_TIMEOUT,
                    &format!(
                        "the body stopped coming for {BODY_TIMEOUT:?}, or came slower than \
                         {BODY_RATE} bytes a second"
                    ),
                )));
            }
        }
    }
}

/// What is done if a request's response is never written (its POST's client went away):
/// a session forgets the POST, the stateless front cancels the request.
pub(super) struct Forget(Option<Box<dyn FnOnce() + Send>>);

impl Forget {
    pub(super) fn new(undo: impl FnOnce() + Send + 'static) -> Forget {
        Forget(Some(Box::new(undo)))
    }

    pub(super) fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for Forget {
    fn drop(&mut self) {
        if let Some(undo) = self.0.take() {
            undo();
        }
    }
}

/// A 400 for a `MCP-Protocol-Version` the proxy does not serve (§ Protocol Version Header:
/// "the server MUST respond with 400 Bad Request"), answering the request `id` (JSON text).
fn version_refused(headers: &HeaderMap, id: &str) -> Option<Response<Body>> {
    let version = headers_version(headers);
    if headers.get(PROTOCOL_VERSION_HEADER).is_none()
        || era::served_versions().any(|served| served == version)
    {
        return None;
    }
    Some(refused_version(version, id))
}

/// The `MCP-Protocol-Version` header's value (`?` when unreadable, empty when absent).
fn headers_version(headers: &HeaderMap) -> &str {
    headers
        .get(PROTOCOL_VERSION_HEADER)
        .map_or("", |v| v.to_str().unwrap_or("?"))
}

/// Whether `MCP-Protocol-Version` names a revision of the stateless era (2026-07-28).
fn modern_header(headers: &HeaderMap) -> bool {
    MODERN_VERSIONS.contains(&headers_version(headers))
}

/// Whether a GET or DELETE comes from a 2026-07-28 client: a modern `MCP-Protocol-Version`
/// and no session.
fn stateless_only(headers: &HeaderMap) -> bool {
    modern_header(headers) && headers.get(SESSION_ID).is_none()
}

/// The `-32022` answer to request `id` naming every revision served: 2026-07-28 statelessly,
/// the others with an `initialize` session.
fn refused_version(version: &str, id: &str) -> Response<Body> {
    stream::json(StatusCode::BAD_REQUEST, era::unsupported(id, version))
}

/// Whether `Accept` lists `media` (or a wildcard that covers it).
fn accepts(headers: &HeaderMap, media: &str) -> bool {
    let (kind, _) = media.split_once('/').unwrap_or((media, ""));
    headers.get_all(header::ACCEPT).iter().any(|v| {
        v.to_str().unwrap_or_default().split(',').any(|item| {
            let item = item.split(';').next().unwrap_or_default().trim();
            item.eq_ignore_ascii_case(media)
                || item == "*/*"
                || item.eq_ignore_ascii_case(&format!("{kind}/*"))
        })
    })
}

/// The host of a `Host` header value (without its port; IPv6 in brackets kept).
fn host_of(value: &str) -> &str {
    if value.starts_with('[') {
        return value
            .split_once(']')
            .map_or(value, |(h, _)| h)
            .trim_start_matches('[');
    }
    value.split(':').next().unwrap_or(value)
}

fn is_loopback_name(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The token of an `Authorization` value of the `Bearer` scheme, whose name is
/// case-insensitive (RFC 9110 § 11.1), as is `BEARER`; one or more spaces after it.
fn bearer(value: &str) -> Option<&str> {
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// Compares two secrets in time that depends on their lengths only.
fn same(given: &[u8], expected: &[u8]) -> bool {
    let mut differ = u8::from(given.len() != expected.len());
    for (i, e) in expected.iter().enumerate() {
        differ |= e ^ given.get(i).copied().unwrap_or(!e);
    }
    differ == 0
}

/// 128 random bits as 32 hex digits (visible ASCII, § Session Management), after
/// `REPLICA.` when the front has a replica name.
fn session_id(replica: Option<&str>) -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    let mut id = replica.map(|name| format!("{name}.")).unwrap_or_default();
    id.extend(bytes.iter().map(|b| format!("{b:02x}")));
    Ok(id)
}

/// A replica name fits a session id and a load balancer's pattern as it is.
fn replica_name_ok(name: &str) -> bool {
    (1..=63).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// A plain-text answer after which the connection closes.
fn closing(code: StatusCode, text: &str) -> Response<Body> {
    let mut response = status(code, text);
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// A plain-text answer.
fn status(status: StatusCode, text: &str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(text.to_owned())).boxed_unsync());
    *response.status_mut() = status;
    if !text.is_empty() {
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
    }
    response
}

/// The `error.code` of a JSON-RPC error's text, if it is one.
fn error_code(text: &str) -> Option<i64> {
    let message = Message::parse(text.to_owned()).ok()?;
    let entries = crate::mcp::raw::entries(message.error()?)?;
    crate::mcp::raw::get(&entries, "code")?.parse().ok()
}

/// A JSON-RPC error without id, as an HTTP answer.
fn rpc_status(status: StatusCode, code: i64, text: &str) -> Response<Body> {
    stream::json(status, wire::error("null", code, text, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn front(addr: &str, allowed: &[&str]) -> HttpFront {
        let options = HttpOptions {
            allowed_origins: allowed.iter().map(|o| (*o).to_owned()).collect(),
            ..HttpOptions::default()
        };
        HttpFront {
            local: addr.parse().unwrap(),
            toolboxes: None,
            mode: Mode::Passthrough,
            options,
            slots: Arc::new(Semaphore::new(1)),
            connections: Connections::new(1, 1),
            sessions: Mutex::default(),
            stateless: Mutex::default(),
            drain: Arc::default(),
        }
    }

    /// Connections the kernel completed but the runtime has not yet seen, each with its
    /// request sent, are served when the listener closes, not reset with it; later ones are
    /// refused.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn connections_completed_before_the_listener_closes_are_served() {
        use std::io::{BufRead, Write};
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut f = front(&addr.to_string(), &[]);
        f.connections = Connections::new(8, 8);
        let front = Arc::new(f);
        let clients: Vec<std::net::TcpStream> = (0..3)
            .map(|_| {
                let mut c = std::net::TcpStream::connect(addr).unwrap();
                c.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    .unwrap();
                c
            })
            .collect();
        last_accepts(&front, listener);
        assert!(
            std::net::TcpStream::connect(addr).is_err(),
            "still listening"
        );
        let lines = tokio::task::spawn_blocking(move || {
            clients
                .into_iter()
                .map(|c| {
                    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
                    let mut line = String::new();
                    let _ = std::io::BufReader::new(c).read_line(&mut line);
                    line
                })
                .collect::<Vec<_>>()
        })
        .await
        .unwrap();
        for line in lines {
            assert_eq!(line.trim_end(), "HTTP/1.1 200 OK");
        }
        assert_eq!(front.drain.in_progress(), 0, "each first request answered");
    }

    #[test]
    fn origins_are_the_bound_address_s_own_or_listed() {
        let f = front("127.0.0.1:8808", &["http://localhost:5173"]);
        for ok in [
            "http://127.0.0.1:8808",
            "http://localhost:8808",
            "https://LOCALHOST:8808",
            "http://[::1]:8808",
            "http://localhost:5173",
        ] {
            assert!(f.origin_allowed(ok), "{ok}");
        }
        for refused in [
            "null",
            "http://localhost",
            "http://localhost:8809",
            "http://evil.example:8808",
            "http://127.0.0.1.evil.example:8808",
            "file://",
            "http://[::1]",
        ] {
            assert!(!f.origin_allowed(refused), "{refused}");
        }
        let f = front("[::1]:9000", &[]);
        assert!(f.origin_allowed("http://[::1]:9000"));
        assert!(f.origin_allowed("http://localhost:9000"));
        let f = front("192.168.1.5:9000", &[]);
        assert!(f.origin_allowed("http://192.168.1.5:9000"));
        assert!(!f.origin_allowed("http://localhost:9000"));
    }

    #[test]
    fn the_bearer_scheme_is_case_insensitive() {
        let mut f = front("127.0.0.1:8808", &[]);
        f.options.token = Some("s3cret".to_owned());
        let answer = |authorization: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(
                header::AUTHORIZATION,
                HeaderValue::from_str(authorization).unwrap(),
            );
            f.refuse(&headers, true).map(|r| r.status())
        };
        for ok in [
            "Bearer s3cret",
            "bearer s3cret",
            "BEARER s3cret",
            "bEaReR s3cret",
            "Bearer  s3cret ",
        ] {
            assert_eq!(answer(ok), None, "{ok}");
        }
        for refused in [
            "Bearer s3cre",
            "Basic s3cret",
            "Bearers3cret",
            "s3cret",
            "Bearer",
        ] {
            assert_eq!(answer(refused), Some(StatusCode::UNAUTHORIZED), "{refused}");
        }
        assert_eq!(
            f.refuse(&HeaderMap::new(), true).map(|r| r.status()),
            Some(StatusCode::UNAUTHORIZED)
        );
    }

    #[test]
    fn hosts_accept_types_and_secrets() {
        assert_eq!(host_of("localhost:8808"), "localhost");
        assert_eq!(host_of("[::1]:8808"), "::1");
        assert!(is_loopback_name("[::1]") && is_loopback_name("127.0.0.2"));
        assert!(!is_loopback_name("localhost.evil.example"));
        let mut headers = HeaderMap::new();
        headers.insert(
            header::ACCEPT,
            HeaderValue::from_static("application/json;q=0.9, text/event-stream"),
        );
        assert!(accepts(&headers, "application/json") && accepts(&headers, "text/event-stream"));
        assert!(!accepts(&HeaderMap::new(), "application/json"));
        headers.insert(header::ACCEPT, HeaderValue::from_static("text/*"));
        assert!(accepts(&headers, "text/event-stream") && !accepts(&headers, "application/json"));
        assert!(same(b"token", b"token"));
        for other in [&b"toke"[..], b"tokens", b"tokem", b""] {
            assert!(!same(other, b"token"));
        }
        let id = session_id(None).unwrap();
        assert_eq!(id.len(), 32);
        assert_ne!(id, session_id(None).unwrap());
    }

    #[test]
    fn a_replica_names_its_session_ids() {
        let id = session_id(Some("r-2_b")).unwrap();
        let (name, random) = id.split_once('.').unwrap();
        assert_eq!(name, "r-2_b");
        assert!(random.len() == 32 && random.bytes().all(|b| b.is_ascii_hexdigit()));
        for ok in ["a", "r1", "web-3", "A_b", &"x".repeat(63)] {
            assert!(replica_name_ok(ok), "{ok}");
        }
        for bad in ["", "r.1", "r 1", "é", "r/1", "r1\n", &"x".repeat(64)] {
            assert!(!replica_name_ok(bad), "{bad:?}");
        }
    }
}
