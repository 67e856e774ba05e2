//! The dispatch core in front of a [`Toolbox`]: what `toon mcp serve` runs, and what every
//! front hands its clients' messages to.
//!
//! A front parses each client message once and hands it to [`Front::receive`] with the
//! [`Link`] it came over; everything for the client leaves through a link as an
//! [`Outgoing`](super::link::Outgoing), which says as data which request it belongs to.
//! Requests are handled concurrently (one task each), so a slow server never holds up calls
//! to the others; `notifications/cancelled` from the client aborts the call and is passed to
//! the server; progress notifications come back; a server's `tools/list_changed` re-lists it
//! and is passed on. Resources, prompts, completion and logging go through `routes.rs`; a
//! server's requests to the client (sampling, elicitation, roots) reach the client under the
//! proxy's ids and the answers go back under the server's (`questions.rs`); one the client
//! did not declare the capability for is refused to the server at once (-32601). Every
//! request's work runs under a [`Behalf`] tag, so that a server's question or log message
//! reaches only the client request it came for ([`Cause`]), or none.
//!
//! The parts, by concern: `dispatch.rs` (what comes from the client), `initialize.rs` (what the
//! client is told of the proxy), `calls.rs` (tools), `questions.rs` (servers' requests to the
//! client), `notifications.rs` (servers' notifications and list changes), `modern.rs` (a
//! request of revision 2026-07-28, translated for the servers, which speak 2025-11-25 or
//! older, and back: the module `era` says how).

mod calls;
mod dispatch;
mod initialize;
mod modern;
mod notifications;
mod questions;
#[cfg(test)]
mod testing;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use super::link::{Carries, LineLink, Link, LinkId, Outgoing};
use super::routes::Routes;
use super::tasks::Tasks;
use crate::mcp::Pages;
use crate::mcp::proxy::revisions::listen::Listens;
use crate::mcp::proxy::revisions::mrtr::{ProgressAs, Rounds};
pub use crate::mcp::proxy::servers::mode::Mode;
use crate::mcp::proxy::servers::mode::ServerModes;
use crate::mcp::proxy::servers::toolbox::Toolbox;
use crate::mcp::proxy::sync::lock;
use crate::mcp::proxy::transport::inbound::{self, INBOUND_QUEUE};
use crate::mcp::proxy::transport::peer::{Behalf, Cause, ClientId, Peer};
use crate::mcp::proxy::transport::wire::{Lines, MAX_MESSAGE_BYTES, Message};

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
    let (inbound_tx, mut inbound) = inbound::queue();
    let (bad_tx, mut bad) = mpsc::channel(INBOUND_QUEUE);
    let lines = Lines::with_limit(MAX_MESSAGE_BYTES);
    let client = Peer::start_lines("client", reader, writer, lines, inbound_tx, Some(bad_tx));
    let link: Arc<dyn Link> = Arc::new(LineLink::new(client));
    let front = Front::start(toolbox, mode, Some(link.clone()));
    // One message at a time, in the order the client sent them.
    loop {
        tokio::select! {
            message = inbound.recv() => match message {
                Some(message) => front.receive(message, &link).await,
                None => break,
            },
            Some(line) = bad.recv() => front.refuse(&line, &link).await,
        }
    }
    front.stop();
    Ok(())
}

/// The dispatch core of one front: its toolbox, its clients' requests in progress, and what
/// the servers ask and tell them.
pub(crate) struct Front {
    toolbox: Arc<Toolbox>,
    /// How each server's tools are shown (`calls.rs`).
    modes: ServerModes,
    /// Where what belongs to no request goes (list changes, a 2025 client's log messages and
    /// questions): the stdio client, an HTTP session; none on the stateless front, whose
    /// clients hear only within their requests.
    home: Option<Arc<dyn Link>>,
    /// Who it serves, and what they declared (`dispatch.rs`, `initialize.rs`, `questions.rs`).
    clients: Clients,
    /// The client requests in progress, and the room for more (`dispatch.rs`, `calls.rs`).
    requests: Requests,
    /// What lasts across a 2026-07-28 client's requests (`modern.rs`).
    modern: Modern,
    /// Lean mode's results kept for `execute_tool`'s later pages (`calls.rs`).
    pages: Pages,
    /// Where resources, templates and prompts were listed.
    routes: Routes,
    /// Which tool each task the client created runs.
    tasks: Tasks,
    /// Servers' requests being put to the client, by server and the server's id (as
    /// [`token_key`]), so that a server's `notifications/cancelled` can withdraw them
    /// (`questions.rs`).
    ///
    /// [`token_key`]: crate::mcp::proxy::transport::wire::token_key
    asking: Mutex<HashMap<(String, String), AbortHandle>>,
    /// Servers' log messages no client request could be told to have caused
    /// (`notifications.rs`).
    unheard: AtomicU64,
    /// The task that carries the toolbox's events (list changes, servers' requests).
    events: Mutex<Option<AbortHandle>>,
}

/// Who a front serves, and what they declared.
struct Clients {
    /// The client every request comes from (stdio, an HTTP session); `None` on the HTTP
    /// front's stateless one, where only a link can say whose a request is.
    one: Option<ClientId>,
    /// Whether the client has been answered `initialize`: servers' log messages before that
    /// go to stderr only.
    initialized: AtomicBool,
    /// Whether a 2026-07-28 request came: without `initialize` too, servers' requests and
    /// notifications then reach the client only as that revision allows.
    serves_2026: AtomicBool,
    /// The capabilities of the client's `initialize` (JSON text): what it may be asked.
    declared: Mutex<Option<String>>,
}

/// The client requests in progress, and the room for more.
struct Requests {
    /// Requests being worked on, by their link and the client's id (as [`token_key`]), for
    /// cancellation and for what their servers send meanwhile.
    ///
    /// [`token_key`]: crate::mcp::proxy::transport::wire::token_key
    in_flight: Mutex<HashMap<(LinkId, String), InFlight>>,
    /// Permits for requests in progress ([`MAX_IN_FLIGHT`]), listens aside.
    limit: Arc<tokio::sync::Semaphore>,
    /// Permits for open `subscriptions/listen` streams ([`MAX_LISTENS`]).
    listens_limit: Arc<tokio::sync::Semaphore>,
}

/// What lasts across a 2026-07-28 client's requests.
#[derive(Default)]
struct Modern {
    /// Requests whose server calls run across the client's rounds.
    rounds: Rounds,
    /// Open `subscriptions/listen` streams.
    listens: Listens,
    /// The log level last set on the servers for a request.
    log_level: Mutex<Option<String>>,
}

tokio::task_local! {
    /// Set while a 2026-07-28 request's server call runs across its rounds: each retry
    /// carries a new progress token, the server's call keeps the first.
    static PROGRESS_AS: ProgressAs;
}

/// A client request, as what is about it is sent: its link and its id (JSON text).
type Route = (Arc<dyn Link>, String);

/// Client requests in progress at once, open listens aside; more are refused with an error
/// until one ends.
pub const MAX_IN_FLIGHT: usize = 256;

/// `subscriptions/listen` streams (revision 2026-07-28) open at once, apart from
/// [`MAX_IN_FLIGHT`]; more are refused with an error until one ends.
pub const MAX_LISTENS: usize = 256;

/// A client request being worked on.
struct InFlight {
    task: AbortHandle,
    /// The link it came over: where what belongs to it goes.
    link: Arc<dyn Link>,
    /// Its id (JSON text).
    id: String,
    /// What the requests made for it to servers carry ([`Behalf::tag`]).
    ///
    /// [`Behalf::tag`]: crate::mcp::proxy::transport::peer::Behalf::tag
    tag: u64,
    /// The client that sent it ([`Behalf::client`]).
    ///
    /// [`Behalf::client`]: crate::mcp::proxy::transport::peer::Behalf::client
    client: ClientId,
    /// The exchange (its [`Behalf::tag`]) whose round it waits for, for a 2026-07-28
    /// request that takes rounds.
    ///
    /// [`Behalf::tag`]: crate::mcp::proxy::transport::peer::Behalf::tag
    exchange: Option<u64>,
    /// The `progressToken` the client gave it (as JSON text), if any.
    progress_token: Option<String>,
    /// For a 2026-07-28 request that opted in to log messages, the least severe level it
    /// wants ([`severity`]): the servers' level is shared, the request's is its own.
    log_level: Option<u8>,
}

impl InFlight {
    /// Whether what a server sends for `tag` ([`Behalf::tag`]) is this request's: its own
    /// work's, or that of the exchange whose round it waits for.
    ///
    /// [`Behalf::tag`]: crate::mcp::proxy::transport::peer::Behalf::tag
    fn is_for(&self, tag: u64) -> bool {
        self.tag == tag || self.exchange == Some(tag)
    }
}

impl Front {
    /// Whether some server's tools are called by their names (not every server is lean).
    #[cfg(feature = "mcp-http")]
    pub(crate) fn lists_tools(&self) -> bool {
        self.modes.lists_tools()
    }

    /// A core for `toolbox`'s servers, with `home` for what belongs to no request (see
    /// [`Front::home`]); every request it receives is from one client when it has a home.
    pub(crate) fn start(
        toolbox: Arc<Toolbox>,
        mode: Mode,
        home: Option<Arc<dyn Link>>,
    ) -> Arc<Front> {
        let home_client = home.is_some().then(ClientId::new);
        let front = Arc::new(Front {
            modes: toolbox.modes(mode),
            toolbox,
            home,
            clients: Clients {
                one: home_client,
                initialized: AtomicBool::new(false),
                serves_2026: AtomicBool::new(false),
                declared: Mutex::default(),
            },
            requests: Requests {
                in_flight: Mutex::default(),
                limit: Arc::new(tokio::sync::Semaphore::new(MAX_IN_FLIGHT)),
                listens_limit: Arc::new(tokio::sync::Semaphore::new(MAX_LISTENS)),
            },
            modern: Modern::default(),
            pages: Pages::new(),
            routes: Routes::default(),
            tasks: Tasks::default(),
            asking: Mutex::default(),
            unheard: AtomicU64::new(0),
            events: Mutex::default(),
        });
        // Servers' notifications reach the client as their readers read them, in the order
        // each server sent them: a request's log messages before its answer (on HTTP, its
        // response stream closes with the answer).
        let weak = Arc::downgrade(&front);
        front.toolbox.route_notifications(Arc::new(
            move |server: &str, message: &Message, cause| {
                if let Some(front) = weak.upgrade() {
                    front.on_notification(server, message, cause);
                }
            },
        ));
        // Its own task: a re-listing in progress is never cut short by a client message.
        let weak = Arc::downgrade(&front);
        let toolbox = front.toolbox.clone();
        let events = tokio::spawn(async move {
            while let Some(change) = toolbox.next_event().await {
                let Some(front) = weak.upgrade() else { break };
                front.on_change(change).await;
            }
        });
        *lock(&front.events) = Some(events.abort_handle());
        front
    }

    /// Stops everything in progress: the requests (their servers are told), the exchanges,
    /// the task carrying the toolbox's events. The caller shuts the toolbox down.
    pub(crate) fn stop(&self) {
        if let Some(events) = lock(&self.events).take() {
            events.abort();
        }
        for (_, call) in lock(&self.requests.in_flight).drain() {
            call.task.abort();
        }
        self.modern.rounds.clear();
    }

    /// The client a new request of this front's over `link` comes from: the front's
    /// one client ([`Clients::one`]), else the one the link speaks for, else a new one.
    fn client_of(&self, link: Option<&dyn Link>) -> ClientId {
        (self.clients.one)
            .or_else(|| link.and_then(|link| link.client()))
            .unwrap_or_else(ClientId::new)
    }

    /// Where a message about the request the current task works for goes (the task's
    /// [`Behalf`]): that request's link and id; for an exchange's server call, its latest
    /// round's request, if one waits.
    ///
    /// [`Behalf`]: crate::mcp::proxy::transport::peer::Behalf
    fn here(&self) -> Option<Route> {
        let tag = Behalf::current()?.tag;
        self.request_of(Cause::Request(tag))
    }

    /// The request in flight `cause` names (or whose round its exchange waits for): its
    /// link and id.
    fn request_of(&self, cause: Cause) -> Option<Route> {
        let Cause::Request(tag) = cause else {
            return None;
        };
        lock(&self.requests.in_flight)
            .values()
            .find(|call| call.is_for(tag))
            .map(|call| (call.link.clone(), call.id.clone()))
    }

    /// Offers an advisory message about no request to the home link, if there is one.
    fn notify_home(&self, text: String) {
        if let Some(home) = &self.home {
            home.offer(Outgoing::notice(text));
        }
    }

    /// Offers an advisory message about request `to` (its link and id), or, when it names
    /// none, to the home link as the connection's.
    fn offer_about(&self, carries: Carries, to: Option<Route>, text: String) {
        match to {
            Some((link, id)) => {
                link.offer(Outgoing::of(carries, Some(&id), text));
            }
            None => self.notify_home(text),
        }
    }
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
