//! One configured server: started, initialized, listed, called, and shut down. A stdio server
//! is a child process (shut down by closing its stdin, waiting, `SIGTERM`, then kill — the
//! stdio shutdown the MCP specification describes); on Unix the child leads its own process
//! group, so servers run through `npx` or `uvx` go with all their descendants (see
//! [`process`](crate::mcp::proxy::transport::process)). A `url` server is spoken to over Streamable HTTP or the
//! HTTP+SSE transport (see [`http`](crate::mcp::proxy::transport::http)), through the same [`Peer`]: everything below works
//! alike for both.

use std::time::Duration;

use process_wrap::tokio::{CommandWrap, KillOnDrop};
use serde_json::{Value as Json, json};
use tokio::io::AsyncReadExt;
use tokio::sync::mpsc;

use super::config::{Launch, PROXY_ENV, ServerConfig};
use super::modern::{self, Modern};
use super::revision::Revision;
use crate::mcp::proxy::error::CallError;
use crate::mcp::proxy::log::SERVER;
use crate::mcp::proxy::transport::inbound::{self, Inbound, InboundSender};
use crate::mcp::proxy::transport::orphans;
use crate::mcp::proxy::transport::orphans::EXIT_GRACE;
use crate::mcp::proxy::transport::peer::{Peer, ProgressRoute, ProgressSink};
use crate::mcp::proxy::transport::process::{ExitWatch, Process};
use crate::mcp::proxy::transport::wire::{self, Kind, Message, code};
use crate::mcp::registry::next_cursor;

/// The protocol revision the proxy asks servers for and offers clients that ask for one it
/// does not know.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// The proxy's `clientInfo` (JSON text), at `initialize` and in 2026-07-28's envelope.
pub(super) fn client_info() -> String {
    format!(
        r#"{{"name":"toon-mcp-proxy","version":{}}}"#,
        crate::mcp::raw::quote(env!("CARGO_PKG_VERSION"))
    )
}

/// How long a closed connection may wait for the server's exit status (it usually follows
/// within milliseconds; a server that closed its stdout and lives on does not give one).
const EXIT_STATUS_WAIT: Duration = Duration::from_millis(500);

/// Longest stderr line passed on whole; the rest of a longer line is cut.
const MAX_LOG_LINE: usize = 4096;

/// Why a server did not start (or, for a `url` server, could not be reached and initialized):
/// the reason the catalog and the log give when it is marked unavailable.
///
/// The message ([`Display`](std::fmt::Display)) is that reason; the variant says which step
/// failed, and keeps what caused it as its [`source`](std::error::Error::source) (the
/// spawn's `io::Error`, the server's [`CallError`], the catalog's error).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartError {
    /// A transport the proxy does not speak, or one this build has no feature for: the
    /// configuration's reason ([`Launch::Unsupported`]).
    #[error("{0}")]
    Unsupported(String),
    /// The entry's `cwd` is missing or not a directory (checked before spawning).
    #[error(
        "working directory {} {}",
        .path.display(),
        if *.exists { "is not a directory" } else { "does not exist" }
    )]
    WorkingDirectory {
        /// The directory.
        path: std::path::PathBuf,
        /// Whether something else is there.
        exists: bool,
    },
    /// The program could not be spawned.
    #[error("cannot run {command:?}: {source}")]
    Spawn {
        /// The command, as configured.
        command: String,
        /// The spawn's error.
        #[source]
        source: std::io::Error,
    },
    /// The child came without its stdin or stdout.
    #[error("no stdio pipes")]
    NoPipes,
    /// A `url` server's transport could not be opened.
    #[cfg(feature = "mcp-http")]
    #[error(transparent)]
    Open(#[from] crate::mcp::proxy::transport::http::OpenError),
    /// Starting (`initialize`, and for a toolbox listing the tools) took longer than allowed.
    #[error("did not finish starting within {:.1} s", .after.as_secs_f64())]
    Timeout {
        /// How long the proxy waited.
        after: Duration,
    },
    /// The stdio server exited before it completed `initialize`.
    #[error("{exit} while starting")]
    Exited {
        /// Its exit status, in words (`exited with status 7`).
        exit: String,
    },
    /// The stdio server closed its stdout before it completed `initialize`, and gave no exit
    /// status.
    #[error("closed its stdout while starting")]
    ClosedStdout,
    /// A `url` server's connection ended before it completed `initialize`.
    #[error("{reason}")]
    Disconnected {
        /// Why the connection ended.
        reason: String,
    },
    /// The server refused `initialize` (or `server/discover`, each that was tried), or
    /// answered it with nonsense: the last one's error.
    #[error("the handshake failed: {source}")]
    Handshake {
        /// The failed request.
        #[source]
        source: CallError,
    },
    /// The toolbox was shut down while it waited for its client's capabilities.
    #[error("stopped before a client came")]
    NoClient,
    /// The server's `tools/list` failed.
    #[error("tools/list failed: {source}")]
    Listing {
        /// The failed request.
        #[source]
        source: CallError,
    },
    /// The server's `tools/list` result is not one the catalog reads.
    #[error("bad tools/list: {source}")]
    BadListing {
        /// The catalog's error.
        #[source]
        source: crate::mcp::Error,
    },
}

/// What a running server said, or that it went away.
#[derive(Clone, Debug, PartialEq)]
pub enum ServerEvent {
    /// A notification from `server` (`notifications/tools/list_changed`,
    /// `notifications/progress`, ...), as sent.
    Notification {
        /// The server.
        server: String,
        /// The whole JSON-RPC message, as its text came.
        message: Message,
    },
    /// A request from `server` to the client (`sampling/createMessage`, `elicitation/create`,
    /// `roots/list`), as sent; answer it with [`Upstream::notify`] and the server's own id.
    Request {
        /// The server.
        server: String,
        /// The whole JSON-RPC request, as its text came.
        message: Message,
    },
    /// `server` was started after a client was answered without it (the toolbox's own
    /// event: [`Change::ServerUp`](super::toolbox::Change::ServerUp)).
    Started {
        /// The server.
        server: String,
        /// Whether its tools differ from those the catalog had for it while it started.
        tools_changed: bool,
    },
    /// `server` failed to start after a client was answered without it (the toolbox's own
    /// event: [`Change::ServerGone`](super::toolbox::Change::ServerGone) when the client had
    /// its tools from the catalog cache).
    StartFailed {
        /// The server.
        server: String,
        /// Why.
        reason: String,
        /// Whether the catalog had tools for it while it started.
        tools_changed: bool,
    },
    /// `server`'s connection closed: it exited or closed its stdout.
    Exited {
        /// The server.
        server: String,
        /// What happened.
        reason: String,
    },
}

/// A started, initialized server.
pub struct Upstream {
    name: String,
    peer: Peer,
    transport: Transport,
    initialize: Json,
    /// The 2026-07-28 side of the connection, when `server/discover` opened it.
    modern: Option<Modern>,
}

/// What carries a server's messages.
enum Transport {
    /// A child process's stdin and stdout.
    Process(Process),
    /// Streamable HTTP, or the HTTP+SSE transport of 2024-11-05 (dropped, it stops its tasks).
    #[cfg_attr(
        not(feature = "mcp-http"),
        expect(dead_code, reason = "without mcp-http no server is reached over HTTP")
    )]
    Http(Connection),
}

#[cfg(feature = "mcp-http")]
use crate::mcp::proxy::transport::http::Connection;

/// A build without `mcp-http` reaches no server over HTTP: no such connection exists.
#[cfg(not(feature = "mcp-http"))]
#[derive(Debug)]
enum Connection {}

#[cfg(not(feature = "mcp-http"))]
impl Connection {
    async fn ended_within(&self, _: Duration) {
        match *self {}
    }

    fn opened_stateless(&self) {
        match *self {}
    }
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Upstream {
    /// Spawns the server (or, for a `url` server, connects to it) and opens the connection as
    /// its entry's [`Revision`] says (`server/discover`, `initialize`, or the first of the two
    /// the server takes), all within `startup`. Notifications and its exit (for a `url` server: the
    /// end of its connection) go to `events`; its stderr lines to ours as `[NAME] line`.
    ///
    /// # Errors
    /// A [`StartError`], why it did not start: a transport the proxy does not speak, its
    /// working directory missing, the program failed to spawn, it exited, the URL could not be
    /// reached or refused every opening tried, or it did not complete one in time. The child
    /// is being stopped (with its process group) when this returns an error.
    pub async fn start(
        config: &ServerConfig,
        startup: Duration,
        events: mpsc::Sender<ServerEvent>,
    ) -> Result<Upstream, StartError> {
        Upstream::start_for(config, startup, events, "{}").await
    }

    /// As [`start`](Self::start), declaring `capabilities` (JSON text: the client's
    /// `roots`, `sampling`, `elicitation`) at `initialize` or in the envelope: the server may
    /// then send the
    /// requests they allow, which reach `events` as [`ServerEvent::Request`].
    ///
    /// # Errors
    /// As [`start`](Self::start).
    pub async fn start_for(
        config: &ServerConfig,
        startup: Duration,
        events: mpsc::Sender<ServerEvent>,
        capabilities: &str,
    ) -> Result<Upstream, StartError> {
        let client = ClientOpening {
            capabilities: capabilities.to_owned(),
            initialized: false,
        };
        Upstream::start_as(config, startup, events, &client).await
    }

    /// As [`start_for`](Self::start_for), for a client that opened as `client` did.
    pub(crate) async fn start_as(
        config: &ServerConfig,
        startup: Duration,
        events: mpsc::Sender<ServerEvent>,
        client: &ClientOpening,
    ) -> Result<Upstream, StartError> {
        let capabilities = client.capabilities.as_str();
        let name = config.name.clone();
        let (inbound_tx, inbound) = inbound::queue();
        let (peer, transport) = connect(&name, &config.launch, inbound_tx)?;
        let exited = match &transport {
            Transport::Process(process) => Some(process.exit_watch()),
            Transport::Http(_) => None,
        };
        // A call whose server waits for the client's answer waits with it.
        peer.hold_while_asking();
        let questions = events.clone();
        tokio::spawn(handle_inbound(peer.clone(), inbound, events, exited));

        let mut server = Upstream {
            name,
            peer,
            transport,
            initialize: Json::Null,
            modern: None,
        };
        let opened = match config.revision {
            Revision::Legacy => server.handshake(capabilities, startup).await,
            revision => {
                let modern =
                    Modern::new(server.peer.clone(), &server.name, capabilities, questions);
                if revision == Revision::Modern {
                    server.discover(modern, startup).await
                } else if client.initialized {
                    server.initialize_first(modern, capabilities, startup).await
                } else {
                    server.discover_first(modern, capabilities, startup).await
                }
            }
        };
        match opened {
            Ok(()) => Ok(server),
            Err(e) => Err(server.not_started_stop(e).await),
        }
    }

    /// `server/discover`, then `initialize` if the server refuses it, all within `startup`
    /// (`// 2026-07-28 basic/versioning` "Backward compatibility"). A server that has not
    /// answered within [`DISCOVER_PROBE`] is sent `initialize` beside it, and the first of the
    /// two to succeed (`server/discover` when both have) opens the connection: a 2025-11-25
    /// server that ignores a method it does not know costs the probe's time, not the
    /// start-up's.
    async fn discover_first(
        &mut self,
        modern: Modern,
        capabilities: &str,
        startup: Duration,
    ) -> Result<(), CallError> {
        let deadline = tokio::time::Instant::now() + startup;
        let (peer, name) = (self.peer.clone(), self.name.clone());
        let params = modern.discover_params();
        let discover = discovered(&peer, &name, &params, startup);
        tokio::pin!(discover);
        let early = tokio::select! {
            // An answer that came with the probe's end counts.
            biased;
            result = &mut discover => Some(result),
            () = tokio::time::sleep(DISCOVER_PROBE.min(startup)) => None,
        };
        let left = || deadline.saturating_duration_since(tokio::time::Instant::now());
        match early {
            Some(Ok(result)) => {
                self.discovered_as(modern, result);
                return Ok(());
            }
            Some(Err(e)) if refused(&e) => return self.handshake(capabilities, left()).await,
            Some(Err(e)) => return Err(e),
            None => {}
        }
        let initialize = initialized(&peer, capabilities, left());
        tokio::pin!(initialize);
        let (mut discover_failed, mut initialize_failed) = (None, None);
        loop {
            tokio::select! {
                // Both answered by now: the connection is a 2026-07-28 one.
                biased;
                result = &mut discover, if discover_failed.is_none() => match result {
                    Ok(result) => {
                        self.discovered_as(modern, result);
                        return Ok(());
                    }
                    Err(e) => discover_failed = Some(e),
                },
                result = &mut initialize, if initialize_failed.is_none() => match result {
                    Ok(result) => return self.initialized_as(result).await,
                    Err(e) => initialize_failed = Some(e),
                },
            }
            if let (Some(discover), Some(initialize)) = (&discover_failed, &initialize_failed) {
                // A refusal says less than why the other opening failed (a timeout, an exit).
                let e = if refused(discover) {
                    initialize
                } else {
                    discover
                };
                return Err(e.clone());
            }
        }
    }

    /// `initialize`, then `server/discover` if the server refuses it, all within `startup`:
    /// for a client of 2025-11-25, which reaches a server of both revisions in its own.
    async fn initialize_first(
        &mut self,
        modern: Modern,
        capabilities: &str,
        startup: Duration,
    ) -> Result<(), CallError> {
        let deadline = tokio::time::Instant::now() + startup;
        match self.handshake(capabilities, startup).await {
            Err(e) if refused(&e) => {
                let left = deadline.saturating_duration_since(tokio::time::Instant::now());
                self.discover(modern, left).await
            }
            opened => opened,
        }
    }

    /// `server/discover` within `startup`: the connection is a 2026-07-28 one.
    async fn discover(&mut self, modern: Modern, startup: Duration) -> Result<(), CallError> {
        let params = modern.discover_params();
        let result = discovered(&self.peer, &self.name, &params, startup).await?;
        self.discovered_as(modern, result);
        Ok(())
    }

    /// The connection as a 2026-07-28 one, `server/discover` having answered what reads as
    /// the `initialize` result `result`; its list changes are listened for.
    fn discovered_as(&mut self, modern: Modern, result: Json) {
        // An `initialize` sent beside `server/discover` gives the connection no session.
        if let Transport::Http(connection) = &self.transport {
            connection.opened_stateless();
        }
        self.initialize = result;
        modern.listen(&self.initialize["capabilities"]);
        self.modern = Some(modern);
    }

    /// Why the server did not start, the child being stopped.
    async fn not_started_stop(&self, e: CallError) -> StartError {
        let reason = self.not_started(e).await;
        if let Transport::Process(process) = &self.transport {
            process.stop();
        }
        reason
    }

    /// The `initialize` handshake, within `startup`, declaring `capabilities`.
    async fn handshake(&mut self, capabilities: &str, startup: Duration) -> Result<(), CallError> {
        let result = initialized(&self.peer, capabilities, startup).await?;
        self.initialized_as(result).await
    }

    /// The connection as a 2025-11-25 one, `initialize` having answered `result`.
    async fn initialized_as(&mut self, result: Json) -> Result<(), CallError> {
        // Read, not forwarded: what the proxy learns of the server.
        self.initialize = result;
        self.peer
            .send(wire::notification("notifications/initialized", None))
            .await;
        Ok(())
    }

    /// Why the server did not start, from how its `initialize` failed: in time, its exit (a
    /// stdio server's status), or the server's refusal.
    async fn not_started(&self, e: CallError) -> StartError {
        match e {
            CallError::Timeout { after, .. } => StartError::Timeout { after },
            CallError::Closed { reason, .. } => match &self.transport {
                Transport::Process(process) => match process.exit_within(EXIT_STATUS_WAIT).await {
                    Some(exit) => StartError::Exited { exit },
                    None => StartError::ClosedStdout,
                },
                Transport::Http(_) => StartError::Disconnected { reason },
            },
            source => StartError::Handshake { source },
        }
    }

    /// The server's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Sends the server's notifications to `sink` as they are read (in the order it sent
    /// them, and with its responses).
    pub(crate) fn route_notifications(
        &self,
        sink: crate::mcp::proxy::transport::peer::NotificationSink,
    ) {
        self.peer.route_notifications(sink);
    }

    /// Whether a request in flight to the server gave the progress token `token` (as
    /// [`token_key`](crate::mcp::proxy::transport::wire::token_key)).
    pub(crate) fn was_given(&self, token: &str) -> bool {
        self.peer.was_given(token)
    }

    /// Which client request the server's request `id` (JSON text, not answered yet) came
    /// for, as far as the proxy can tell (see [`Cause`](crate::mcp::proxy::transport::peer::Cause)).
    pub(crate) fn cause_of(&self, id: &str) -> crate::mcp::proxy::transport::peer::Cause {
        self.peer.cause_of(id)
    }

    /// The server's `initialize` result (its `serverInfo`, `capabilities`, `instructions`).
    #[must_use]
    pub fn initialize_result(&self) -> &Json {
        &self.initialize
    }

    /// The child's process id (the process group's, on Unix); `None` for a server reached
    /// over HTTP.
    #[must_use]
    pub fn pid(&self) -> Option<u32> {
        match &self.transport {
            Transport::Process(process) => process.pid(),
            Transport::Http(_) => None,
        }
    }

    /// Whether the server is reached over HTTP (the toolbox reconnects it when it goes).
    #[must_use]
    pub fn is_remote(&self) -> bool {
        matches!(self.transport, Transport::Http(_))
    }

    /// Why the connection closed, once it has.
    #[must_use]
    pub fn closed(&self) -> Option<String> {
        self.peer.closed()
    }

    /// Every page of `tools/list` (following `nextCursor`), as JSON text.
    ///
    /// # Errors
    /// A failed request, or a listing that loops (one cut at `MAX_PAGES` is returned whole).
    pub async fn list_tools(&self, timeout: Duration) -> Result<Vec<String>, CallError> {
        let mut pages = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let params = cursor.as_ref().map(|c| json!({"cursor": c}).to_string());
            let reply = self
                .request("tools/list", params.as_deref(), timeout)
                .await?;
            let page = reply.result().unwrap_or("{}");
            let next = crate::mcp::raw::entries(page).and_then(|e| {
                crate::mcp::raw::get(&e, "nextCursor").and_then(crate::mcp::raw::string)
            });
            pages.push(page.to_owned());
            cursor = next_cursor(&self.name, pages.len(), cursor.as_deref(), next)
                .map_err(|e| CallError::internal(&self.name, e.to_string()))?;
            if cursor.is_none() {
                self.tools_listed(&pages);
                return Ok(pages);
            }
        }
    }

    /// What a 2026-07-28 server over HTTP listed: its tools' annotated parameters, whose
    /// values its calls then repeat in headers.
    fn tools_listed(&self, pages: &[String]) {
        #[cfg(feature = "mcp-http")]
        if let (Some(_), Transport::Http(connection)) = (&self.modern, &self.transport) {
            connection.tools_listed(pages);
        }
        #[cfg(not(feature = "mcp-http"))]
        let _ = pages;
    }

    /// Sends a request (`params` as JSON text, forwarded as it is) and waits for its reply
    /// (at most `timeout`); the result is the reply's [`Message::result`], as sent.
    ///
    /// # Errors
    /// The server's error, a timeout, a reply that cannot be passed on, or the server gone.
    pub async fn request(
        &self,
        method: &str,
        params: Option<&str>,
        timeout: Duration,
    ) -> Result<Message, CallError> {
        self.request_watched(method, params, timeout, None).await
    }

    /// As [`request`](Self::request), the timeout started again by each signal of
    /// `activity`, a progress notification of the request, up to ten times the timeout in
    /// all.
    ///
    /// # Errors
    /// As [`request`](Self::request).
    pub async fn request_watched(
        &self,
        method: &str,
        params: Option<&str>,
        timeout: Duration,
        activity: Option<&tokio::sync::Notify>,
    ) -> Result<Message, CallError> {
        let reply = match &self.modern {
            Some(modern) => modern.request(method, params, timeout, activity).await,
            None => {
                self.peer
                    .request_watched(method, params, timeout, activity)
                    .await
            }
        };
        match reply {
            Err(CallError::Closed { server, reason }) => {
                let Transport::Process(process) = &self.transport else {
                    return Err(CallError::Closed { server, reason });
                };
                // The exit status may trail the closed pipe by a moment.
                let _ = process.exit_within(EXIT_STATUS_WAIT).await;
                Err(CallError::Closed {
                    server,
                    reason: format!("{reason} ({})", self.exit_status()),
                })
            }
            other => other,
        }
    }

    /// Routes the progress notifications of `token` (JSON text) to `sink` while the returned
    /// guard lives: each reaches the sink as the server's output is read, before any later
    /// reply.
    pub fn route_progress(&self, token: String, sink: ProgressSink) -> ProgressRoute {
        self.peer.route_progress(token, sink)
    }

    /// Sends a notification or a response (JSON text). An answer to a question the proxy put
    /// for a 2026-07-28 server (its input request) goes to the round waiting for it instead.
    pub async fn notify(&self, message: String) {
        if self
            .modern
            .as_ref()
            .is_some_and(|modern| modern.take_answer(&message))
        {
            return;
        }
        self.peer.send(message).await;
    }

    /// Whether the connection speaks revision 2026-07-28 (it opened with `server/discover`).
    #[must_use]
    pub fn is_modern(&self) -> bool {
        self.modern.is_some()
    }

    /// Closes its stdin and waits for it to exit; after a grace period sends `SIGTERM`, after
    /// another kills it. The grace is 2 s each. On Unix, whatever is left of its process group
    /// once it has exited gets the same `SIGTERM` and `SIGKILL`; this returns when the group is
    /// gone.
    ///
    /// A server reached over HTTP is sent `DELETE` for its session (at most the grace).
    pub async fn shutdown(&self) {
        self.peer.close().await;
        let process = match &self.transport {
            Transport::Process(process) => process,
            Transport::Http(connection) => return connection.ended_within(EXIT_GRACE).await,
        };
        if process.exit_within(EXIT_GRACE).await.is_none() {
            process.stop();
        }
        // Bounded by the watcher's own escalation (the server, its group, its orphans); the
        // margin covers a process that takes a while to die after `SIGKILL`.
        let _ = tokio::time::timeout(EXIT_GRACE * 6, process.cleared()).await;
    }

    /// `exited with status 7`, `killed by signal 9`, or `still running`; for a server over
    /// HTTP, `disconnected`.
    pub(crate) fn exit_status(&self) -> String {
        match &self.transport {
            Transport::Process(process) => {
                process.exit().unwrap_or_else(|| "still running".to_owned())
            }
            Transport::Http(_) => "disconnected".to_owned(),
        }
    }
}

/// How the client a server is started for opened, which the server's opening follows.
#[derive(Clone, Debug)]
pub(crate) struct ClientOpening {
    /// The capabilities servers are told of (a JSON object's text).
    pub(crate) capabilities: String,
    /// Whether it opened with `initialize` (revision 2025-11-25 or older): a server of both
    /// revisions is then spoken to in that one ([`Revision::DiscoverFirst`]).
    pub(crate) initialized: bool,
}

impl Default for ClientOpening {
    /// A client not known yet: no capability, and not one of 2025-11-25.
    fn default() -> Self {
        ClientOpening {
            capabilities: "{}".to_owned(),
            initialized: false,
        }
    }
}

/// How long a server opened with `server/discover` first is given to answer it before
/// `initialize` is sent beside it ([`Revision::DiscoverFirst`]).
const DISCOVER_PROBE: Duration = Duration::from_secs(2);

/// A `server/discover` result within `timeout`, read as an `initialize` result (one that
/// does not list 2026-07-28 is a [`CallError::BadReply`]). A -32022 that lists 2026-07-28
/// among the versions supported is answered by asking once more (`// 2026-07-28
/// basic/versioning`: the client retries with a version of the list).
async fn discovered(
    peer: &Peer,
    server: &str,
    params: &str,
    timeout: Duration,
) -> Result<Json, CallError> {
    let deadline = tokio::time::Instant::now() + timeout;
    let mut retried = false;
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        match peer.request("server/discover", Some(params), left).await {
            Ok(reply) => {
                let result = reply.result().unwrap_or("{}");
                return modern::initialize_of(result).map_err(|why| CallError::BadReply {
                    server: server.to_owned(),
                    method: "server/discover".into(),
                    why,
                });
            }
            Err(e) if !retried && supports_modern(&e) => retried = true,
            Err(e) => return Err(e),
        }
    }
}

/// Whether `e` is a -32022 whose `data.supported` lists the revision the proxy speaks.
fn supports_modern(e: &CallError) -> bool {
    let CallError::Remote { code, data, .. } = e else {
        return false;
    };
    let supported = data
        .as_deref()
        .and_then(|d| crate::json::from_str::<Json>(d).ok());
    *code == code::UNSUPPORTED_PROTOCOL_VERSION
        && supported.is_some_and(|d| {
            d["supported"]
                .as_array()
                .is_some_and(|v| v.iter().any(|v| v == modern::VERSION))
        })
}

/// An `initialize` result within `timeout`, declaring `capabilities`.
async fn initialized(
    peer: &Peer,
    capabilities: &str,
    timeout: Duration,
) -> Result<Json, CallError> {
    let params = format!(
        r#"{{"protocolVersion":{},"capabilities":{capabilities},"clientInfo":{}}}"#,
        crate::mcp::raw::quote(PROTOCOL_VERSION),
        client_info()
    );
    let reply = peer.request("initialize", Some(&params), timeout).await?;
    Ok(reply
        .result()
        .and_then(|r| crate::json::from_str(r).ok())
        .unwrap_or(Json::Null))
}

/// Whether an opening failed because the server refused it (an error answer, or an answer
/// that is no result of that opening): the other opening is tried then.
fn refused(e: &CallError) -> bool {
    matches!(e, CallError::Remote { .. } | CallError::BadReply { .. })
}

/// Answers the server's `ping`, hands its requests for the client (sampling, elicitation,
/// roots, and `tasks/*` about tasks the client runs for it) on as [`ServerEvent::Request`], refuses any other request, and passes its notifications
/// on (log messages also to stderr). Ends with [`ServerEvent::Exited`] when the connection closes.
///
/// Events are a bounded queue: a change of its tools waits for room (it must not be lost),
/// other notifications that find it full are dropped and counted, as the peer drops them.
async fn handle_inbound(
    peer: Peer,
    mut inbound: Inbound,
    events: mpsc::Sender<ServerEvent>,
    exited: Option<ExitWatch>,
) {
    let server = peer.name().to_owned();
    while let Some(message) = inbound.recv().await {
        match message.kind() {
            Kind::Request { id, method: "ping" } => peer.send(wire::response(id, "{}")).await,
            Kind::Request {
                method:
                    "sampling/createMessage"
                    | "elicitation/create"
                    | "roots/list"
                    // About tasks the client runs for the server (its task-augmented
                    // sampling or elicitation).
                    | "tasks/get"
                    | "tasks/result"
                    | "tasks/list"
                    | "tasks/cancel",
                ..
            } => {
                let event = ServerEvent::Request {
                    server: server.clone(),
                    message,
                };
                if events.send(event).await.is_err() {
                    break;
                }
            }
            Kind::Request { id, method } => {
                let text = format!("the toon proxy does not offer {method}");
                peer.send(wire::error(id, code::METHOD_NOT_FOUND, &text, None))
                    .await;
            }
            Kind::Notification {
                method: "notifications/message",
            } => {
                // On stderr; to the client (tagged with the server) by the front, which got it
                // as it was read (`route_notifications`).
                tracing::info!(target: SERVER, server, "{}", log_line(&message));
            }
            Kind::Notification {
                method: crate::mcp::LIST_CHANGED,
            } => {
                let event = ServerEvent::Notification {
                    server: server.clone(),
                    message,
                };
                if events.send(event).await.is_err() {
                    break;
                }
            }
            // The front got it as it was read, in order (`route_notifications`).
            Kind::Notification { .. } | Kind::Response { .. } | Kind::Invalid => {}
        }
    }
    let reason = peer.wait_closed().await;
    // So that whoever hears of the exit can say how it ended.
    if let Some(exited) = exited {
        exited.wait(EXIT_STATUS_WAIT).await;
    }
    let _ = events.send(ServerEvent::Exited { server, reason }).await;
}

/// The server's transport, as its entry says: a stdio server spawned, or a `url` server's
/// HTTP connection opened (Streamable HTTP, or the 2024-11-05 HTTP+SSE one); its peer
/// started on it, handing what the server sends to `inbound_tx`.
fn connect(
    name: &str,
    launch: &Launch,
    inbound_tx: InboundSender,
) -> Result<(Peer, Transport), StartError> {
    Ok(match launch {
        Launch::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let (peer, process) = spawn(name, command, args, env, cwd.as_deref(), inbound_tx)?;
            (peer, Transport::Process(process))
        }
        #[cfg(feature = "mcp-http")]
        Launch::Http { url, headers } | Launch::Sse { url, headers } => {
            let sse = matches!(launch, Launch::Sse { .. });
            let (frames, outgoing, connection) = if sse {
                crate::mcp::proxy::transport::http::open_http_sse(name, url, headers)?
            } else {
                crate::mcp::proxy::transport::http::open(name, url, headers)?
            };
            let sink = tokio_util::sync::PollSender::new(outgoing);
            let peer = Peer::start_with(name, frames, sink, inbound_tx, None);
            // Streamable HTTP answers each request on a stream of its own; the legacy SSE
            // transport has one stream for everything.
            if !sse {
                peer.streams_tell_requests();
            }
            (peer, Transport::Http(connection))
        }
        // Without `mcp-http` the configuration makes no HTTP launch (`config::http`).
        #[cfg(not(feature = "mcp-http"))]
        Launch::Http { .. } | Launch::Sse { .. } => {
            return Err(StartError::Unsupported(super::config::NO_HTTP.into()));
        }
        Launch::Unsupported(why) => return Err(StartError::Unsupported(why.clone())),
    })
}

/// Spawns a stdio server (in its own process group on Unix; with the proxy's environment
/// but for [`PROXY_ENV`], its entry's `env`, and its [`orphans::TAG_ENV`]) and starts its peer;
/// its stderr lines go to ours.
fn spawn(
    name: &str,
    command: &str,
    args: &[String],
    env: &std::collections::BTreeMap<String, String>,
    cwd: Option<&std::path::Path>,
    inbound: InboundSender,
) -> Result<(Peer, Process), StartError> {
    // Checked first: spawn's own error would name the command, not the directory.
    if let Some(cwd) = cwd.filter(|d| !d.is_dir()) {
        return Err(StartError::WorkingDirectory {
            path: cwd.to_owned(),
            exists: cwd.exists(),
        });
    }
    let mut cmd = tokio::process::Command::new(command);
    // The proxy's own variables (its HTTP token) are not the server's business, unless its
    // entry gives them.
    for own in PROXY_ENV.iter().filter(|v| !env.contains_key(**v)) {
        cmd.env_remove(own);
    }
    let tag = orphans::new_tag();
    cmd.args(args)
        .envs(env)
        .env(orphans::TAG_ENV, &tag)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    if let Some(cwd) = cwd {
        cmd.current_dir(cwd);
    }
    let mut wrap = CommandWrap::from(cmd);
    #[cfg(unix)]
    wrap.wrap(process_wrap::tokio::ProcessGroup::leader());
    wrap.wrap(KillOnDrop);
    let mut child = orphans::spawned(|| wrap.spawn(), |child| child.id()).map_err(|source| {
        StartError::Spawn {
            command: command.to_owned(),
            source,
        }
    })?;
    let pipes = (child.stdin().take(), child.stdout().take());
    let stderr = child.stderr().take();
    let process = Process::watch(child, Some(tag));
    let (Some(stdin), Some(stdout)) = pipes else {
        return Err(StartError::NoPipes);
    };
    if let Some(stderr) = stderr {
        tokio::spawn(pump_stderr(name.to_owned(), stderr));
    }
    Ok((Peer::start(name, stdout, stdin, inbound, None), process))
}

/// `level: data` of a `notifications/message`.
fn log_line(message: &Message) -> String {
    let params = message.params_json();
    let level = params["level"].as_str().unwrap_or("info");
    let data = match &params["data"] {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    };
    format!("{level}: {data}")
}

/// Copies the child's stderr to ours, each line labelled with the server's name.
async fn pump_stderr(name: String, mut stderr: tokio::process::ChildStderr) {
    let mut buf = vec![0u8; 8192];
    let mut line: Vec<u8> = Vec::new();
    let mut cut = false;
    loop {
        let n = match stderr.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        for &b in &buf[..n] {
            if b == b'\n' {
                emit(&name, &line, cut);
                line.clear();
                cut = false;
            } else if line.len() < MAX_LOG_LINE {
                line.push(b);
            } else {
                cut = true;
            }
        }
    }
    if !line.is_empty() {
        emit(&name, &line, cut);
    }
}

fn emit(name: &str, line: &[u8], cut: bool) {
    let text = String::from_utf8_lossy(line);
    let text = text.trim_end_matches('\r');
    if cut {
        tracing::info!(target: SERVER, server = name, "{text}…");
    } else {
        tracing::info!(target: SERVER, server = name, "{text}");
    }
}
