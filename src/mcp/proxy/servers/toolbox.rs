//! The client toolbox: every server of an `mcpServers` configuration started in parallel,
//! their tools in one [`Catalog`], calls routed to the server that has the tool, and results
//! through part 1's [`ResultEncoder`].

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard, Weak};
use std::time::{Duration, Instant};

use serde_json::Value as Json;
use tokio::sync::{Mutex as AsyncMutex, mpsc, watch};

use super::cache::{Cached, CatalogCache};
use super::config::{Config, Launch, ServerConfig};
use super::upstream::{ClientOpening, ServerEvent, StartError, Upstream};
use crate::mcp::proxy::error::CallError;
use crate::mcp::proxy::log::PROXY;
use crate::mcp::proxy::metrics;
use crate::mcp::proxy::servers::mode::{Mode, ServerModes};
use crate::mcp::proxy::sync::lock;
use crate::mcp::proxy::transport::inbound::INBOUND_QUEUE;
use crate::mcp::proxy::transport::peer::{NotificationSink, ProgressSink};
use crate::mcp::proxy::transport::wire::Message;
use crate::mcp::raw;
use crate::mcp::{Catalog, Decision, LIST_CHANGED, Policy, ResultEncoder, Shaping};

/// Timeouts and the result policy of a [`Toolbox`]: the defaults with fields set (it may
/// gain fields: `#[non_exhaustive]`).
///
/// ```
/// let mut options = toon::mcp::proxy::Options::default();
/// options.request_timeout = std::time::Duration::from_secs(120);
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Options {
    /// How long a server may take to start and list its tools (default 30 s; `npx` and
    /// `uvx` may download on first use).
    pub startup_timeout: Duration,
    /// How long any request to a server may take (default 60 s).
    pub request_timeout: Duration,
    /// How long a client's `initialize` and its first lists wait for servers still starting
    /// ([`Toolbox::settled`]; default [`STARTUP_GRACE`]): then they are answered with the
    /// servers up by then, and each server that comes up later is announced as
    /// [`Change::ServerUp`] (the client hears a list change). `None`: they wait until every
    /// server has started or failed, within [`startup_timeout`](Self::startup_timeout).
    pub startup_grace: Option<Duration>,
    /// How results are encoded.
    pub policy: Policy,
    /// Start the servers only once [`Toolbox::client_connected`] gives the client's
    /// capabilities, which they are initialised with (default `false`: at once, with none).
    pub await_client: bool,
    /// Where each server's last tool list is kept (default `None`: nowhere; the CLI's is
    /// [`CatalogCache::default_dir`]). A server with a list there is in the catalog with it
    /// from the start, so [`Toolbox::settled`] does not wait for it; a call to one of its
    /// tools waits until the server has listed its tools again, and runs only if it did list
    /// that one. Once up, its own list replaces the cached one ([`Change::ServerUp`] says
    /// whether they differ) and is kept for the next start.
    pub catalog_cache: Option<CatalogCache>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            startup_timeout: Duration::from_secs(30),
            request_timeout: Duration::from_secs(60),
            startup_grace: Some(STARTUP_GRACE),
            policy: Policy::default(),
            await_client: false,
            catalog_cache: None,
        }
    }
}

/// [`Options::startup_grace`]'s default. Of the eleven real servers of
/// `benches/mcp/startup.py`, most list their tools within it when started together; a host's
/// client is answered by then whatever the slowest one does (benches/README.md).
pub const STARTUP_GRACE: Duration = Duration::from_secs(1);

/// What changed in a [`Toolbox`], from [`Toolbox::next_event`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Change {
    /// The server's tools changed and the catalog has been re-listed.
    ToolsChanged {
        /// The server.
        server: String,
    },
    /// The server was still starting when a client was answered without it
    /// ([`Toolbox::settled`]) and is up now: its tools are in the catalog, its prompts and
    /// resources can be listed.
    ServerUp {
        /// The server.
        server: String,
        /// Whether its tools differ from what the catalog had for it while it started
        /// (nothing, or its [cached](Options::catalog_cache) list).
        tools_changed: bool,
    },
    /// The server is gone; it is in the catalog as unavailable and its calls fail at once.
    ServerGone {
        /// The server.
        server: String,
        /// Why.
        reason: String,
        /// Which of `prompts` and `resources` it offered (declared, or as the catalog cache
        /// kept them): those lists changed with it too.
        capabilities: Vec<String>,
    },
    /// A request from a server to the client (`sampling/createMessage`,
    /// `elicitation/create`, `roots/list`), as sent: answer it with the server's own id
    /// through [`Upstream::notify`].
    Request {
        /// The server.
        server: String,
        /// The JSON-RPC request, as its text came.
        message: Message,
    },
}

/// The servers of one configuration, their tools and their calls.
///
/// Created with [`Toolbox::start`], which returns at once while the servers start in
/// parallel; [`ready`](Toolbox::ready) waits for all of them (each within
/// [`Options::startup_timeout`]), so start-up takes as long as the slowest server, not the
/// sum. A server that fails to start, times out or dies is in the catalog as unavailable, and
/// the others carry on. A server reached over HTTP that cannot be reached (at start or later)
/// or whose session ends is tried again with growing delays (about a minute and a half in
/// all); once back, its tools are listed again and [`Change::ToolsChanged`] says so.
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use toon::mcp::proxy::{Config, Options, Toolbox};
/// let (config, _) = Config::load(None)?;
/// let toolbox = Toolbox::start(&config, Options::default());
/// toolbox.ready().await;
/// println!("{}", toolbox.catalog().full()?);
/// let result = toolbox.call_tool("read_graph", serde_json::json!({})).await?;
/// toolbox.shutdown().await;
/// # Ok(()) }
/// ```
pub struct Toolbox {
    servers: RwLock<HashMap<String, Arc<Upstream>>>,
    catalog: RwLock<Catalog>,
    encoder: ResultEncoder,
    options: Options,
    ready: watch::Receiver<bool>,
    /// Whether a client was answered while servers were still starting ([`Toolbox::settled`]):
    /// each that comes up after is announced.
    answered_early: AtomicBool,
    /// Tools of servers that went away, by exposed name, so calls to them say which server
    /// is gone instead of "unknown tool".
    former: RwLock<HashMap<String, String>>,
    /// The servers still on their first start.
    starting: watch::Sender<HashSet<String>>,
    /// What the catalog cache held at start, by server: their tools are in the catalog from
    /// the start, their other lists answered from it while they start.
    cached: HashMap<String, Cached>,
    /// Each server's other lists (prompts, resources, templates) as last listed whole, by
    /// method, for the cache.
    lists: Mutex<HashMap<String, BTreeMap<String, Vec<String>>>>,
    /// Cache files being written ([`shutdown`](Toolbox::shutdown) waits for them).
    writes: Mutex<Vec<tokio::task::JoinHandle<()>>>,
    events: AsyncMutex<mpsc::Receiver<ServerEvent>>,
    events_tx: mpsc::Sender<ServerEvent>,
    /// How the client opened (the capabilities servers are initialised with), once known.
    client: watch::Sender<Option<ClientOpening>>,
    /// Itself, for the tasks that reconnect servers.
    me: Weak<Toolbox>,
    /// The enabled servers' configurations, to reconnect them.
    configs: HashMap<String, ServerConfig>,
    /// Set by [`shutdown`](Toolbox::shutdown): nothing reconnects after.
    stopping: watch::Sender<bool>,
    /// Where servers' notifications go as they are read
    /// ([`route_notifications`](Toolbox::route_notifications)).
    notifications: Mutex<Option<NotificationSink>>,
}

/// Delays before each attempt to reconnect a server reached over HTTP that went away (or
/// could not be reached at start): about a minute and a half in all, then it stays
/// unavailable.
const RECONNECT_DELAYS: [Duration; 10] = [
    Duration::from_millis(250),
    Duration::from_millis(500),
    Duration::from_secs(1),
    Duration::from_secs(2),
    Duration::from_secs(4),
    Duration::from_secs(8),
    Duration::from_secs(16),
    Duration::from_secs(20),
    Duration::from_secs(20),
    Duration::from_secs(20),
];

impl std::fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Toolbox")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// A `tools/call` on its way: the tool's exposed name and its server's own, the server, and
/// the params as that server takes them.
#[derive(Clone, Debug)]
pub(crate) struct RoutedCall {
    pub(crate) exposed: String,
    pub(crate) original: String,
    pub(crate) server: String,
    pub(crate) params: String,
}

impl Toolbox {
    /// Starts every enabled server of `config` in parallel and returns at once. Must be
    /// called within a tokio runtime.
    #[must_use]
    pub fn start(config: &Config, options: Options) -> Arc<Toolbox> {
        let (events_tx, events) = mpsc::channel(INBOUND_QUEUE);
        let (ready_tx, ready) = watch::channel(false);
        let mut catalog = Catalog::new();
        let mut cached = HashMap::new();
        for server in config.enabled() {
            // In the catalog from the start, in file order; replaced once listed.
            if let Some(held) = from_cache(&mut catalog, options.catalog_cache.as_ref(), server) {
                cached.insert(server.name.clone(), held);
            } else {
                catalog.add_unavailable(&server.name, "starting");
            }
            metrics::global().server_starting(&server.name);
        }
        let starting = config.enabled().map(|s| s.name.clone()).collect();
        let configs = config
            .enabled()
            .map(|s| (s.name.clone(), s.clone()))
            .collect();
        let toolbox = Arc::new_cyclic(|me| Toolbox {
            servers: RwLock::default(),
            catalog: RwLock::new(catalog),
            encoder: ResultEncoder::new(options.policy.clone()).with_observer(observer(me)),
            options,
            ready,
            answered_early: AtomicBool::new(false),
            former: RwLock::default(),
            starting: watch::channel(starting).0,
            lists: Mutex::new(
                (cached.iter())
                    .map(|(name, held)| (name.clone(), held.lists.clone()))
                    .collect(),
            ),
            cached,
            writes: Mutex::default(),
            events: AsyncMutex::new(events),
            events_tx,
            client: watch::channel(None).0,
            me: me.clone(),
            configs,
            stopping: watch::channel(false).0,
            notifications: Mutex::default(),
        });
        let starts: Vec<_> = config
            .enabled()
            .cloned()
            .map(|server| {
                let toolbox = toolbox.clone();
                tokio::spawn(async move { toolbox.start_one(server).await })
            })
            .collect();
        tokio::spawn(async move {
            for start in starts {
                let _ = start.await;
            }
            let _ = ready_tx.send(true);
        });
        toolbox
    }

    async fn start_one(&self, config: ServerConfig) {
        let name = &config.name;
        let before = self.tool_texts(name);
        let started = self.connect(&config).await;
        let event = match started {
            Ok(()) => {
                self.count_up(name, false);
                let tools_changed = self.tool_texts(name) != before;
                ServerEvent::Started {
                    server: name.clone(),
                    tools_changed,
                }
            }
            Err(why) => {
                let reason = why.to_string();
                // Its cached tools are gone with it: calls say why.
                self.retire(name, &reason);
                if matches!(config.launch, Launch::Http { .. } | Launch::Sse { .. }) {
                    self.reconnect_later(name);
                }
                ServerEvent::StartFailed {
                    server: name.clone(),
                    reason,
                    tools_changed: !before.is_empty(),
                }
            }
        };
        self.starting.send_modify(|starting| {
            starting.remove(name);
        });
        // After its tools are in the catalog (or gone) and it is no longer starting: a client
        // answered before this reads them, or hears of them here.
        if self.answered_early.load(Ordering::SeqCst) {
            let _ = self.events_tx.send(event).await;
        }
    }

    /// The definitions of `server`'s tools in the catalog, as its server sent them.
    fn tool_texts(&self, server: &str) -> Vec<String> {
        self.catalog().server(server).map_or_else(Vec::new, |s| {
            s.tools().iter().map(|t| t.raw_json().to_owned()).collect()
        })
    }

    /// Marks `server` unavailable for `why`, its tools kept as former ones: calls of them say
    /// why, not "unknown tool".
    fn retire(&self, server: &str, why: &str) {
        let names: Vec<String> = (self.catalog().tools())
            .filter(|t| t.server() == server)
            .map(|t| t.name().to_owned())
            .collect();
        write(&self.former).extend(names.into_iter().map(|n| (n, server.to_owned())));
        self.unavailable(server, why);
    }

    /// Keeps `server`'s tools, as listed now, in the catalog cache (if any), off the runtime.
    fn remember(&self, server: &str) {
        let (Some(cache), Some(config)) = (&self.options.catalog_cache, self.configs.get(server))
        else {
            return;
        };
        let (cache, config) = (cache.clone(), config.clone());
        let held = Cached {
            tools: self.tool_texts(server),
            lists: lock(&self.lists).get(server).cloned().unwrap_or_default(),
            capabilities: self
                .server(server)
                .map(|s| s.initialize_result()["capabilities"].to_string())
                .or_else(|| self.cached.get(server)?.capabilities.clone()),
            written: std::time::UNIX_EPOCH,
        };
        let write = tokio::task::spawn_blocking(move || {
            if let Err(e) = cache.store(&config, &held) {
                tracing::warn!(target: PROXY, server = config.name, "{e}");
            }
        });
        let mut writes = lock(&self.writes);
        writes.retain(|w| !w.is_finished());
        writes.push(write);
    }

    /// Starts a server and lists its tools into the catalog.
    async fn connect(&self, config: &ServerConfig) -> Result<(), StartError> {
        let name = config.name.clone();
        if let Launch::Unsupported(why) = &config.launch {
            return Err(StartError::Unsupported(why.clone()));
        }
        let client = if self.options.await_client {
            let mut client = self.client.subscribe();
            match client.wait_for(Option::is_some).await {
                Ok(client) => client.clone().unwrap_or_default(),
                Err(_) => return Err(StartError::NoClient),
            }
        } else {
            ClientOpening::default()
        };
        let timeout = self.options.startup_timeout;
        let (server, pages) = tokio::time::timeout(timeout, async {
            let events = self.events_tx.clone();
            let server = Upstream::start_as(config, timeout, events, &client).await?;
            if let Some(sink) = lock(&self.notifications).clone() {
                server.route_notifications(sink);
            }
            let pages = server
                .list_tools(self.options.request_timeout)
                .await
                .map_err(|source| StartError::Listing { source })?;
            Ok::<_, StartError>((server, pages))
        })
        .await
        .unwrap_or(Err(StartError::Timeout { after: timeout }))?;
        let refs: Vec<&str> = pages.iter().map(String::as_str).collect();
        let listed = write(&self.catalog).add_server_pages(&name, &refs);
        if let Err(e) = listed {
            server.shutdown().await;
            return Err(StartError::BadListing { source: e });
        }
        self.log_warnings(&name);
        let server = Arc::new(server);
        {
            // Under `notifications`, as `route_notifications` runs: a sink given while this
            // server started reaches it either here or there.
            let notifications = lock(&self.notifications);
            if let Some(sink) = notifications.clone() {
                server.route_notifications(sink);
            }
            write(&self.servers).insert(name.clone(), server.clone());
        }
        // Once registered: its capabilities are kept too.
        self.remember(&name);
        write(&self.former).retain(|_, s| *s != name);
        if *self.stopping.borrow() {
            // Shut down while it started: not left running.
            write(&self.servers).remove(&name);
            server.shutdown().await;
        }
        Ok(())
    }

    /// Tries again, with growing delays, to connect a server reached over HTTP; once it is
    /// back, its tools are listed again and a change is reported as for a server whose tools
    /// changed.
    fn reconnect_later(&self, name: &str) {
        let Some(config) = self.configs.get(name).cloned() else {
            return;
        };
        // Weak: a toolbox dropped without `shutdown` is not kept alive by its reconnections
        // (its `stopping` sender goes with it, which ends them).
        let weak = self.me.clone();
        let mut stopping = self.stopping.subscribe();
        tokio::spawn(async move {
            let attempts = RECONNECT_DELAYS.len();
            for (attempt, delay) in RECONNECT_DELAYS.into_iter().enumerate() {
                let stopped = tokio::time::timeout(delay, stopping.wait_for(|s| *s))
                    .await
                    .is_ok();
                if stopped || *stopping.borrow() {
                    return;
                }
                let name = &config.name;
                let Some(toolbox) = weak.upgrade() else {
                    return;
                };
                match toolbox.connect(&config).await {
                    Ok(()) => {
                        toolbox.count_up(name, true);
                        tracing::info!(
                            target: PROXY,
                            server = name,
                            "reconnected (attempt {} of {attempts})",
                            attempt + 1
                        );
                        let changed =
                            crate::mcp::proxy::transport::wire::notification(LIST_CHANGED, None);
                        if let Ok(message) = Message::parse(changed) {
                            let event = ServerEvent::Notification {
                                server: name.clone(),
                                message,
                            };
                            let _ = toolbox.events_tx.send(event).await;
                        }
                        return;
                    }
                    Err(why) => {
                        let next = if attempt + 1 < attempts {
                            "will try again"
                        } else {
                            "giving up"
                        };
                        write(&toolbox.catalog).add_unavailable(name, &why.to_string());
                        tracing::warn!(
                            target: PROXY,
                            server = name,
                            "reconnecting failed (attempt {} of {attempts}): {why}; {next}",
                            attempt + 1
                        );
                    }
                }
            }
        });
    }

    /// Counts `server` up (`again`: reconnected), with the tools it listed.
    fn count_up(&self, server: &str, again: bool) {
        let tools = self.catalog().server(server).map_or(0, |s| s.tools().len());
        metrics::global().server_up(server, tools, again);
    }

    /// What the catalog skipped or ignored in `server`'s listing, one stderr line each.
    fn log_warnings(&self, server: &str) {
        if let Some(listed) = self.catalog().server(server) {
            for warning in listed.warnings() {
                tracing::warn!(target: PROXY, server, "tools/list: {warning}");
            }
        }
    }

    /// Marks `server` unavailable, then says so: whoever reads the line and asks finds the
    /// reason in the catalog (said first, a request could still hear "not running").
    fn unavailable(&self, server: &str, why: &str) {
        write(&self.catalog).add_unavailable(server, why);
        metrics::global().server_unavailable(server, why);
        tracing::error!(target: PROXY, server, "unavailable: {why}");
    }

    /// Gives the capabilities of the client (the `capabilities` of its `initialize`, or of
    /// its first 2026-07-28 request's envelope, JSON text) that servers are initialised with:
    /// its `roots`, `sampling`, `elicitation` and `tasks` (nothing else the proxy could not
    /// pass on). With [`Options::await_client`], servers start now. Only the first call (of
    /// this or [`client_initialized`](Self::client_initialized)) counts.
    pub fn client_connected(&self, capabilities: &str) {
        self.client_is(capabilities, false);
    }

    /// As [`client_connected`](Self::client_connected), for a client that opened with
    /// `initialize` (revision 2025-11-25 or older): a server of both revisions is then opened
    /// with `initialize` too ([`Revision::DiscoverFirst`](super::revision::Revision)), so that
    /// the client reaches what the server offers that revision.
    pub fn client_initialized(&self, capabilities: &str) {
        self.client_is(capabilities, true);
    }

    fn client_is(&self, capabilities: &str, initialized: bool) {
        let entries = raw::entries(capabilities).unwrap_or_default();
        let kept: Vec<String> = ["roots", "sampling", "elicitation", "tasks"]
            .iter()
            .filter_map(|key| raw::get(&entries, key).map(|v| format!("{}:{}", raw::quote(key), v)))
            .collect();
        let declared = format!("{{{}}}", kept.join(","));
        self.client.send_if_modified(|client| {
            if client.is_some() {
                return false;
            }
            *client = Some(ClientOpening {
                capabilities: declared,
                initialized,
            });
            true
        });
    }

    /// Sends every server's notifications (server name, message, the request it may be
    /// about) to `sink` as its reader reads them, in the order it sent them and with its
    /// responses: a front forwards a request's log messages ahead of its answer, and no kind of
    /// notification overtakes another. A server's `tools/list_changed` also comes as
    /// [`Change::ToolsChanged`] once it is listed again. Servers started later get it too.
    pub(crate) fn route_notifications(&self, sink: NotificationSink) {
        let mut notifications = lock(&self.notifications);
        *notifications = Some(sink.clone());
        for (_, server) in self.running_in_order() {
            server.route_notifications(sink.clone());
        }
    }

    /// Whether [`client_connected`](Self::client_connected) has been called.
    #[must_use]
    pub fn has_client(&self) -> bool {
        self.client.borrow().is_some()
    }

    /// Waits until every server has started or failed to.
    pub async fn ready(&self) {
        let mut ready = self.ready.clone();
        let _ = ready.wait_for(|r| *r).await;
    }

    /// Whether every server has started or failed to.
    #[must_use]
    pub fn is_ready(&self) -> bool {
        *self.ready.borrow()
    }

    /// Waits until every server has started or failed to, for at most
    /// [`Options::startup_grace`]: what a client's `initialize` and lists are answered after.
    /// A server whose tools came from the [catalog cache](Options::catalog_cache) is not
    /// waited for. Once the grace has run out (or only cached servers are left), no caller
    /// waits again, and each server that comes up later is announced as [`Change::ServerUp`].
    pub async fn settled(&self) {
        if self.is_ready() || self.answered_early() {
            return;
        }
        let Some(grace) = self.options.startup_grace else {
            return self.ready().await;
        };
        let mut starting = self.starting.subscribe();
        let known =
            |starting: &HashSet<String>| starting.iter().all(|s| self.cached.contains_key(s));
        let waited = tokio::time::timeout(grace, starting.wait_for(known)).await;
        if !matches!(waited, Ok(Ok(ref s)) if s.is_empty()) {
            // Before the caller reads the catalog: a server up after this is announced.
            self.answered_early.store(true, Ordering::SeqCst);
        }
    }

    /// Whether `server` is still on its first start.
    fn still_starting(&self, server: &str) -> bool {
        self.starting.borrow().contains(server)
    }

    /// What the catalog cache held for `server`'s list `method` (`prompts/list`, ...), while
    /// `server` is still on its first start: what a list is answered with for it until then.
    pub(crate) fn cached_list(&self, server: &str, method: &str) -> Option<Vec<String>> {
        let held = self.cached.get(server)?;
        let items = held.lists.get(method)?;
        self.still_starting(server).then(|| items.clone())
    }

    /// Whether the catalog cache says `server`, still on its first start, declares
    /// `capability` (`prompts`, `resources`).
    pub(crate) fn cached_declares(&self, server: &str, capability: &str) -> bool {
        self.cached
            .get(server)
            .is_some_and(|held| held.declares(capability) && self.still_starting(server))
    }

    /// `server`'s whole list `method` as it just listed it (each item's JSON text): kept for
    /// the catalog cache.
    pub(crate) fn listed(&self, server: &str, method: &str, items: &[String]) {
        if self.options.catalog_cache.is_none() {
            return;
        }
        let changed = {
            let mut lists = lock(&self.lists);
            let lists = lists.entry(server.to_owned()).or_default();
            let changed = lists.get(method).is_none_or(|old| old != items);
            lists.insert(method.to_owned(), items.to_vec());
            changed
        };
        if changed {
            self.remember(server);
        }
    }

    /// Waits until `server` is no longer on its first start (up or failed).
    async fn started(&self, server: &str) {
        let mut starting = self.starting.subscribe();
        let _ = starting.wait_for(|s| !s.contains(server)).await;
    }

    /// Whether a client may have been answered without servers still starting
    /// ([`settled`](Self::settled)'s grace ran out before every server was up).
    #[must_use]
    pub fn answered_early(&self) -> bool {
        self.answered_early.load(Ordering::SeqCst)
    }

    /// The catalog as it stands. Do not hold it across an `.await`.
    pub fn catalog(&self) -> RwLockReadGuard<'_, Catalog> {
        self.catalog
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The encoder results go through (its [`stats`](ResultEncoder::stats) are the proxy's).
    #[must_use]
    pub fn encoder(&self) -> &ResultEncoder {
        &self.encoder
    }

    /// The mode of each configured server's tools: its configuration's, else `default`.
    #[must_use]
    pub fn modes(&self, default: Mode) -> ServerModes {
        let mut names: Vec<&String> = self.configs.keys().collect();
        names.sort();
        names
            .into_iter()
            .fold(ServerModes::new(default), |modes, name| {
                let own = self.configs[name].mode;
                modes.with(name, own.unwrap_or(default))
            })
    }

    /// The options it runs with.
    #[must_use]
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The running servers with their names, in configuration order (the catalog's).
    pub(crate) fn running_in_order(&self) -> Vec<(String, Arc<Upstream>)> {
        let names: Vec<String> = self
            .catalog()
            .servers()
            .iter()
            .map(|s| s.name().to_owned())
            .collect();
        names
            .into_iter()
            .filter_map(|name| {
                let server = self.server(&name)?;
                Some((name, server))
            })
            .collect()
    }

    /// A running server.
    #[must_use]
    pub fn server(&self, name: &str) -> Option<Arc<Upstream>> {
        self.servers
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(name)
            .cloned()
    }

    /// Calls a tool by the name the catalog exposes (`SERVER__NAME` for shared names) and
    /// encodes its result. `arguments` is the call's `arguments` object.
    ///
    /// # Errors
    /// Unknown tool, server unavailable or gone, timeout, or the server's own JSON-RPC error.
    /// A tool that fails *as a tool* is not an error: its result has `isError: true`.
    pub async fn call_tool(&self, name: &str, arguments: Json) -> Result<Json, CallError> {
        // Written in this order whatever serde_json's map keeps (the arguments are the
        // caller's value, in its order).
        let params = format!(r#"{{"name":{},"arguments":{arguments}}}"#, raw::quote(name));
        let result = self.call_text(&params).await?;
        crate::json::from_str(&result).map_err(|e| {
            CallError::internal("proxy", format!("the result of {name} is not JSON: {e}"))
        })
    }

    /// As [`call_tool`](Self::call_tool) with the whole `tools/call` params as JSON text
    /// (`name`, `arguments`, `_meta` with a `progressToken`, fields of newer revisions):
    /// only the name is changed to the server's own, every other byte goes to the server as
    /// sent, and the result comes back as its text with only the converted blocks changed.
    ///
    /// # Errors
    /// As [`call_tool`](Self::call_tool); params that are not an object with a string `name`
    /// are an unknown tool `""`.
    pub async fn call_text(&self, params: &str) -> Result<String, CallError> {
        self.call_text_with(params, None).await
    }

    /// As [`call_text`](Self::call_text), with the call's progress notifications (for the
    /// `_meta.progressToken` of `params`) handed to `progress` in order, each before the
    /// result: a client that stops listening for a token once the result is in hears its
    /// last progress.
    ///
    /// # Errors
    /// As [`call_tool`](Self::call_tool).
    pub async fn call_text_with(
        &self,
        params: &str,
        progress: Option<ProgressSink>,
    ) -> Result<String, CallError> {
        let entries = raw::entries(params).unwrap_or_default();
        self.call_read(params, &entries, progress).await
    }

    /// As [`call_text_with`](Self::call_text_with), with `params` already read into their
    /// `entries` (the front reads a call's params once).
    pub(crate) async fn call_read(
        &self,
        params: &str,
        entries: &[raw::Member<'_>],
        progress: Option<ProgressSink>,
    ) -> Result<String, CallError> {
        let call = self.route_call(params, entries).await?;
        let reply = self
            .request_with(&call.server, "tools/call", Some(&call.params), progress)
            .await?;
        self.convert_result(Some(&call), reply.result().unwrap_or("{}"))
    }

    /// Waits until a call of the tool exposed as `exposed` can go where it belongs: for a
    /// cached tool of a server still starting, until that server has listed its tools again,
    /// and then gives that server and the tool's own name there (the call runs there or
    /// nowhere: [`route_pinned`](Self::route_pinned)); for a name no server lists yet
    /// (perhaps a tool of one still starting), until every server has started or failed;
    /// otherwise not at all.
    pub(crate) async fn until_routable(&self, exposed: &str) -> Option<(String, String)> {
        let tool = (self.catalog().get(exposed))
            .map(|t| (t.server().to_owned(), t.original_name().to_owned()));
        match tool {
            None => {
                self.ready().await;
                None
            }
            Some((server, original)) if self.still_starting(&server) => {
                self.started(&server).await;
                Some((server, original))
            }
            Some(_) => None,
        }
    }

    /// The name the catalog exposes `server`'s tool `original` under now, for a call made to
    /// it as `exposed` while it was cached: never another server's tool of that name.
    ///
    /// # Errors
    /// The server did not start, or no longer lists the tool (an unknown tool `exposed`).
    pub(crate) fn route_pinned(
        &self,
        exposed: &str,
        server: &str,
        original: &str,
    ) -> Result<String, CallError> {
        let catalog = self.catalog();
        let now = (catalog.tools())
            .find(|t| t.server() == server && t.original_name() == original)
            .map(|t| t.name().to_owned());
        match now {
            Some(now) => Ok(now),
            None if self.server(server).is_none() => {
                drop(catalog);
                Err(CallError::Unavailable {
                    server: server.to_owned(),
                    reason: self.unavailable_reason(server),
                })
            }
            None => Err(CallError::UnknownTool {
                name: exposed.to_owned(),
                suggestions: (catalog.suggest(exposed).into_iter())
                    .map(str::to_owned)
                    .collect(),
            }),
        }
    }

    /// Where a `tools/call` (its `params` as sent, read into their `entries`) goes: the
    /// tool's server, and the params as that server takes them (the tool under its own name,
    /// all else as sent).
    pub(crate) async fn route_call(
        &self,
        params: &str,
        entries: &[raw::Member<'_>],
    ) -> Result<RoutedCall, CallError> {
        let exposed = raw::get(entries, "name")
            .and_then(raw::string)
            .unwrap_or_default();
        let (now, server, original) = match self.until_routable(&exposed).await {
            Some((server, original)) => {
                let now = self.route_pinned(&exposed, &server, &original)?;
                (now, server, original)
            }
            None => {
                let (server, original) = self.route(&exposed)?;
                (exposed.clone(), server, original)
            }
        };
        let params = if original == exposed {
            params.to_owned()
        } else {
            let mut splice = raw::Splice::new(params);
            splice.set(params, entries, "name", raw::quote(&original));
            splice.finish()
        };
        Ok(RoutedCall {
            exposed: now,
            original,
            server,
            params,
        })
    }

    /// A result of the routed call as the client gets it, converted as its tool's results
    /// are ([`converts`](Self::converts)) by [`ResultEncoder::convert`], as lean mode's are.
    /// With no call (a task the proxy did not see created) there is no tool to judge: the
    /// result is kept as sent, as a tool's no longer listed is.
    pub(crate) fn convert_result(
        &self,
        call: Option<&RoutedCall>,
        result: &str,
    ) -> Result<String, CallError> {
        let (tool, decision) = match call {
            Some(call) => (call.exposed.as_str(), self.converts(&call.exposed)),
            None => ("", Decision::Verbatim("its call is not known".into())),
        };
        self.encoder
            .convert(tool, &decision, result, &Shaping::default())
            .map_err(|e| match call {
                Some(call) => CallError::internal(
                    &call.server,
                    format!("cannot encode the result of {}: {e}", call.original),
                ),
                None => CallError::internal("proxy", format!("cannot encode a result: {e}")),
            })
    }

    /// Whether results of the tool exposed as `exposed` are converted, and why: the content
    /// rule ([`Decision::of`]) with the policy's `exclude_tools` / `include_tools` /
    /// `convert_tools`. A tool no longer listed gets its result verbatim.
    #[must_use]
    pub fn converts(&self, exposed: &str) -> Decision {
        match self.catalog().get(exposed) {
            Some(tool) => Decision::of(tool).with_policy(&self.options.policy, exposed),
            None => Decision::Verbatim("no longer listed".into()),
        }
    }

    /// The server and the server's own name for an exposed tool name.
    pub(crate) fn route(&self, exposed: &str) -> Result<(String, String), CallError> {
        let catalog = self.catalog();
        let former = self
            .former
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match catalog.get(exposed) {
            Some(tool) => Ok((tool.server().to_owned(), tool.original_name().to_owned())),
            None if former.contains_key(exposed) => {
                let server = former[exposed].clone();
                drop((catalog, former));
                Err(CallError::Unavailable {
                    reason: self.unavailable_reason(&server),
                    server,
                })
            }
            None => Err(CallError::UnknownTool {
                name: exposed.to_owned(),
                suggestions: catalog
                    .suggest(exposed)
                    .into_iter()
                    .map(str::to_owned)
                    .collect(),
            }),
        }
    }

    /// Sends any request to a server (`params` as JSON text, forwarded as it is), unencoded,
    /// with the request timeout; returns the whole reply (its result is
    /// [`Message::result`]).
    ///
    /// # Errors
    /// Server unavailable or gone, timeout, a reply that cannot be passed on, or its JSON-RPC
    /// error.
    pub async fn request(
        &self,
        server: &str,
        method: &str,
        params: Option<&str>,
    ) -> Result<Message, CallError> {
        self.running(server)?
            .request(method, params, self.options.request_timeout)
            .await
    }

    /// As [`request`](Self::request), with the progress notifications of the request's
    /// `_meta.progressToken` handed to `progress` as they come, each before the reply; each
    /// starts the request timeout again, up to ten times it in all.
    ///
    /// # Errors
    /// As [`request`](Self::request).
    pub async fn request_with(
        &self,
        server: &str,
        method: &str,
        params: Option<&str>,
        progress: Option<ProgressSink>,
    ) -> Result<Message, CallError> {
        // Off (`--no-metrics`): not even the tool's name is read.
        if method != "tools/call" || !metrics::global().enabled() {
            return self
                .request_unmeasured(server, method, params, progress)
                .await;
        }
        let started = Instant::now();
        let reply = self
            .request_unmeasured(server, method, params, progress)
            .await;
        // The tool as the server names it: routed here, so one it listed.
        let tool = params
            .and_then(raw::entries)
            .and_then(|e| raw::get(&e, "name").and_then(raw::string))
            .unwrap_or_default();
        // Read whole only when the key is there at all: most results have no `isError`, and
        // reading a large result's members is most of what counting a call would cost.
        let failed = reply.as_ref().map_or(true, |reply| {
            reply
                .result()
                .filter(|r| memchr::memmem::find(r.as_bytes(), b"\"isError\"").is_some())
                .and_then(raw::entries)
                .is_some_and(|e| raw::get(&e, "isError") == Some("true"))
        });
        metrics::global().call(server, &tool, started.elapsed(), failed);
        reply
    }

    /// [`request_with`](Self::request_with) without counting the call in the metrics.
    async fn request_unmeasured(
        &self,
        server: &str,
        method: &str,
        params: Option<&str>,
        progress: Option<ProgressSink>,
    ) -> Result<Message, CallError> {
        let server = self.running(server)?;
        let token = progress
            .is_some()
            .then(|| params.and_then(crate::mcp::proxy::transport::wire::request_progress_token))
            .flatten();
        // Progress shows the tool is working: each one starts the timeout again.
        let activity = Arc::new(tokio::sync::Notify::new());
        let route = token.zip(progress).map(|(token, sink)| {
            let activity = activity.clone();
            let sink: ProgressSink = Arc::new(move |text: &str| {
                activity.notify_one();
                sink(text);
            });
            server.route_progress(token, sink)
        });
        // A token in use by another request in flight is replaced by the route's own.
        let renamed = route
            .as_ref()
            .and_then(|route| route.renamed())
            .zip(params)
            .map(|(own, params)| with_progress_token(params, own));
        let params = renamed.as_deref().or(params);
        server
            .request_watched(
                method,
                params,
                self.options.request_timeout,
                route.as_ref().map(|_| &*activity),
            )
            .await
    }

    /// The running server, or why it is not running.
    fn running(&self, server: &str) -> Result<Arc<Upstream>, CallError> {
        self.server(server).ok_or_else(|| CallError::Unavailable {
            server: server.to_owned(),
            reason: self.unavailable_reason(server),
        })
    }

    fn unavailable_reason(&self, server: &str) -> String {
        let catalog = self.catalog();
        match catalog
            .servers()
            .iter()
            .find(|s| s.name() == server)
            .map(|s| s.status())
        {
            Some(crate::mcp::Status::Unavailable(why)) => why.clone(),
            _ => "not running".to_owned(),
        }
    }

    /// Waits for the next change: a server's tools changed (the catalog is re-listed before
    /// this returns), a server went away, or another notification arrived. `None` after
    /// [`shutdown`](Self::shutdown). Changes are only applied while someone waits here.
    pub async fn next_event(&self) -> Option<Change> {
        let mut events = self.events.lock().await;
        loop {
            match events.recv().await? {
                ServerEvent::Notification { server, message }
                    if message.method() == Some(LIST_CHANGED) =>
                {
                    // A server still starting (tools registered right after `initialize`, as
                    // server-everything does for the client's capabilities) is listed again
                    // once it has started, not dropped as unavailable; meanwhile the other
                    // servers' events go on (one that never starts held them all).
                    if self.still_starting(&server) {
                        self.relist_once_started(server, message);
                        continue;
                    }
                    match self.relist(&server).await {
                        Ok(()) => return Some(Change::ToolsChanged { server }),
                        Err(e) => {
                            tracing::warn!(target: PROXY, server, "re-listing tools failed: {e}");
                        }
                    }
                }
                // Every other notification went to the front as it was read
                // (`route_notifications`).
                ServerEvent::Notification { .. } => {}
                ServerEvent::Started {
                    server,
                    tools_changed,
                } => {
                    return Some(Change::ServerUp {
                        server,
                        tools_changed,
                    });
                }
                // A client heard of its cached lists: they are gone.
                ServerEvent::StartFailed {
                    server,
                    reason,
                    tools_changed,
                } => {
                    let held = self.cached.get(&server);
                    let capabilities = offered(|c| held.is_some_and(|h| h.declares(c)));
                    if tools_changed || !capabilities.is_empty() {
                        return Some(Change::ServerGone {
                            server,
                            reason,
                            capabilities,
                        });
                    }
                }
                ServerEvent::Request { server, message } => {
                    return Some(Change::Request { server, message });
                }
                ServerEvent::Exited { server, reason } => {
                    // A server shut down by us is no longer registered: nothing to report.
                    let Some(gone) = write(&self.servers).remove(&server) else {
                        continue;
                    };
                    let reason = if gone.is_remote() {
                        self.reconnect_later(&server);
                        format!("{reason}; reconnecting")
                    } else {
                        format!("{reason} ({})", gone.exit_status())
                    };
                    self.retire(&server, &reason);
                    let declared = &gone.initialize_result()["capabilities"];
                    let capabilities = offered(|c| declared[c].is_object());
                    return Some(Change::ServerGone {
                        server,
                        reason,
                        capabilities,
                    });
                }
            }
        }
    }

    /// Hands `server`'s `tools/list_changed` back to [`next_event`](Self::next_event) once
    /// the server has started (dropped if it did not).
    fn relist_once_started(&self, server: String, message: Message) {
        let Some(toolbox) = self.me.upgrade() else {
            return;
        };
        tokio::spawn(async move {
            toolbox.started(&server).await;
            if toolbox.server(&server).is_some() {
                let again = ServerEvent::Notification { server, message };
                let _ = toolbox.events_tx.send(again).await;
            }
        });
    }

    /// Lists `server` again and replaces its tools in the catalog.
    ///
    /// # Errors
    /// When the listing fails (the old tools stay).
    pub async fn relist(&self, server: &str) -> Result<(), CallError> {
        let pages = self
            .running(server)?
            .list_tools(self.options.request_timeout)
            .await?;
        let refs: Vec<&str> = pages.iter().map(String::as_str).collect();
        write(&self.catalog)
            .add_server_pages(server, &refs)
            .map_err(|e| CallError::internal(server, format!("bad tools/list: {e}")))?;
        self.log_warnings(server);
        self.remember(server);
        Ok(())
    }

    /// Shuts every server down in parallel (close stdin, wait, terminate).
    pub async fn shutdown(&self) {
        self.stopping.send_replace(true);
        let servers: Vec<Arc<Upstream>> = write(&self.servers).drain().map(|(_, s)| s).collect();
        let stops: Vec<_> = servers
            .into_iter()
            .map(|s| tokio::spawn(async move { s.shutdown().await }))
            .collect();
        for stop in stops {
            let _ = stop.await;
        }
        let writes = std::mem::take(&mut *lock(&self.writes));
        for write in writes {
            let _ = write.await;
        }
    }
}

/// Which of `prompts` and `resources` `declares` says a server offers.
fn offered(declares: impl Fn(&str) -> bool) -> Vec<String> {
    ["prompts", "resources"]
        .into_iter()
        .filter(|c| declares(c))
        .map(str::to_owned)
        .collect()
}

/// Puts `server`'s cached tools in `catalog`; what the cache held, if it was used. A cache
/// that cannot be read is warned about and not used.
fn from_cache(
    catalog: &mut Catalog,
    cache: Option<&CatalogCache>,
    server: &ServerConfig,
) -> Option<Cached> {
    let name = &server.name;
    let cached = match cache?.load(server) {
        Ok(cached) => cached?,
        Err(e) => {
            tracing::warn!(target: PROXY, server = name, "{e}");
            return None;
        }
    };
    if let Err(e) = catalog.add_server_pages(name, &[&cached.page()]) {
        tracing::warn!(target: PROXY, server = name, "catalog cache: {e}; ignored");
        return None;
    }
    for warning in catalog.server(name).map_or(&[][..], |s| s.warnings()) {
        tracing::warn!(target: PROXY, server = name, "catalog cache: {warning}");
    }
    tracing::debug!(
        target: PROXY,
        server = name,
        "{} tools from the catalog cache, written {} s ago",
        cached.tools.len(),
        cached.age().as_secs()
    );
    Some(cached)
}

/// Tells the metrics what each result a toolbox's encoder counts came to, under the server of
/// the tool it names (a result kept verbatim names none).
fn observer(toolbox: &Weak<Toolbox>) -> crate::mcp::result::Observer {
    use crate::mcp::result::Outcome;
    let toolbox = toolbox.clone();
    Arc::new(move |tool, outcome| {
        if !metrics::global().enabled() {
            return;
        }
        // Only converted results are counted per server.
        let server = matches!(outcome, Outcome::Converted { .. })
            .then(|| toolbox.upgrade())
            .flatten()
            .and_then(|t| t.catalog().get(tool).map(|t| t.server().to_owned()));
        metrics::global().result(server.as_deref(), outcome);
    })
}

fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `params` (JSON text) with `token` (JSON text) as its `_meta.progressToken`.
fn with_progress_token(params: &str, token: &str) -> String {
    let Some(old) = crate::mcp::raw::get_path(params, &["_meta", "progressToken"]) else {
        return params.to_owned();
    };
    let mut splice = crate::mcp::raw::Splice::new(params);
    splice.replace(old, token.to_owned());
    splice.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server that never answers `initialize`.
    const STUCK: &str =
        r#"{"mcpServers": {"stuck": {"command": "sh", "args": ["-c", "sleep 30"]}}}"#;

    #[tokio::test]
    async fn settled_gives_up_on_a_server_still_starting_after_the_grace_once() {
        let options = Options {
            startup_grace: Some(Duration::from_millis(100)),
            ..Options::default()
        };
        let toolbox = Toolbox::start(&Config::from_str(STUCK).unwrap(), options);
        assert!(!toolbox.answered_early());
        toolbox.settled().await;
        assert!(!toolbox.is_ready());
        assert!(toolbox.answered_early());
        // Once given up, nobody waits again.
        let again = tokio::time::timeout(Duration::from_millis(50), toolbox.settled()).await;
        assert!(again.is_ok());
        toolbox.shutdown().await;
    }

    #[tokio::test]
    async fn without_a_grace_settled_waits_for_every_server() {
        let options = Options {
            startup_grace: None,
            ..Options::default()
        };
        let toolbox = Toolbox::start(&Config::from_str(STUCK).unwrap(), options);
        let waited = tokio::time::timeout(Duration::from_millis(300), toolbox.settled()).await;
        assert!(waited.is_err(), "settled before the server started");
        assert!(!toolbox.answered_early());
        toolbox.shutdown().await;
    }
}
