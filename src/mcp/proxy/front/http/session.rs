//! One HTTP session: its own [`Toolbox`] (its own server processes, started with this
//! client's capabilities) and its own stdio [`serve`] front, over an in-memory pipe. What the
//! front writes is routed to the HTTP responses waiting for it, without waiting for any
//! client: each open stream has an [`Outbox`] the router fills and the stream's body empties,
//! and everything held for the client counts against [`SESSION_BYTES`].

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::OwnedSemaphorePermit;

use super::outbox::{Inbox, Outbox};
use super::pipe::FrontPipe;
use super::short;
use super::stream::Out;

use crate::mcp::proxy::front::serve::Mode;
use crate::mcp::proxy::log::PROXY;
use crate::mcp::proxy::servers::toolbox::Toolbox;
use crate::mcp::proxy::sync::lock;
use crate::mcp::proxy::transport::wire::token_key;
use crate::mcp::proxy::transport::wire::{Kind, Message};

/// Bytes of server messages a session holds for its client at most, besides one message
/// and each waiting POST's own response: kept while no stream is open for them (the
/// backlog), or queued on a stream its client has not read yet. Beyond it a GET stream
/// behind is cut (what it had not read is kept for the next one), then the oldest kept
/// messages are dropped, then the new one.
pub(super) const SESSION_BYTES: usize = 4 << 20;

/// A POST waiting for its request's response, and for what the servers send meanwhile.
struct SessionPost {
    to: Arc<Outbox>,
    /// The request's id (JSON text), for an answer the proxy makes itself (`drain.rs`).
    id: String,
    /// The `progressToken` of the request (as [`token_key`]), if it gave one.
    progress: Option<String>,
    /// When it was sent: server requests with nowhere else to go ride on the newest.
    since: Instant,
}

/// Where the session's messages for its client go. One lock, so that a message is routed,
/// kept or moved onto a new stream in one step: a new stream gets what was kept, in order,
/// before anything newer.
#[derive(Default)]
struct Outlets {
    pending: HashMap<String, SessionPost>,
    /// The GET stream (§ "Listening for Messages from the Server"), when one was opened.
    standalone: Option<Arc<Outbox>>,
    /// Messages for a stream not open yet, oldest first.
    backlog: VecDeque<String>,
    /// Messages dropped for want of room (logged as they start).
    dropped: u64,
}

/// One client's session: `Mcp-Session-Id` → this.
pub(super) struct Session {
    pub(super) id: String,
    toolbox: Arc<Toolbox>,
    /// Its front.
    pipe: FrontPipe,
    outlets: Mutex<Outlets>,
    /// Bytes of server messages held for the client (the backlog and what streams queue).
    held: Arc<AtomicUsize>,
    last_used: Mutex<Instant>,
    closed: AtomicBool,
    /// The session's place among `--http-max-sessions`, given back when it is dropped.
    _slot: OwnedSemaphorePermit,
}

/// Why a message could not be handed to the session's front.
#[derive(Debug, thiserror::Error)]
pub(super) enum Closed {
    /// The session ended (DELETE, idle timeout, shutdown) or its front did.
    #[error("the session has ended")]
    Ended,
}

impl Session {
    /// Starts a session: the toolbox's servers start when the client's `initialize` reaches
    /// the front (so with its capabilities).
    pub(super) fn start(
        id: String,
        toolbox: Arc<Toolbox>,
        mode: Mode,
        slot: OwnedSemaphorePermit,
    ) -> Arc<Session> {
        let (pipe, ends) = FrontPipe::new();
        let session = Arc::new(Session {
            id,
            toolbox: toolbox.clone(),
            pipe,
            outlets: Mutex::default(),
            held: Arc::default(),
            last_used: Mutex::new(Instant::now()),
            closed: AtomicBool::new(false),
            _slot: slot,
        });
        session.pipe.run(
            ends,
            (toolbox, mode, false),
            Arc::downgrade(&session),
            |session: Arc<Session>, text| async move { session.route(text) },
            |_| {},
        );
        session
    }

    /// Marks the session as used now (for the idle timeout).
    pub(super) fn touch(&self) {
        *lock(&self.last_used) = Instant::now();
    }

    /// Whether nothing has used the session for `idle`: no request, no response in
    /// progress, no GET stream open.
    pub(super) fn idle_for(&self, idle: std::time::Duration) -> bool {
        let busy = {
            let outlets = lock(&self.outlets);
            !outlets.pending.is_empty() || outlets.standalone.as_ref().is_some_and(|s| s.is_open())
        };
        !busy && lock(&self.last_used).elapsed() >= idle
    }

    /// Hands one message (a JSON object, any newlines in it already whitespace) to the
    /// front.
    pub(super) async fn send(&self, line: &str) -> Result<(), Closed> {
        self.touch();
        if self.pipe.send(line).await {
            Ok(())
        } else {
            Err(Closed::Ended)
        }
    }

    /// Registers a request's POST, before the request goes to the front: its response, and
    /// what the servers send meanwhile, come on the returned stream. `None` when a request
    /// with that id is already waiting (JSON-RPC ids are unique per session).
    pub(super) fn expect(&self, id: &str, progress: Option<&str>) -> Option<Inbox> {
        let key = token_key(id);
        let mut outlets = lock(&self.outlets);
        if outlets.pending.contains_key(&key) {
            return None;
        }
        let (to, from) = Outbox::new(self.held.clone());
        // With no GET stream to carry them, what waits for the client goes on this request's.
        if outlets.standalone().is_none() {
            self.hand_over(&mut outlets.backlog, &to);
        }
        outlets.pending.insert(
            key,
            SessionPost {
                to,
                id: id.to_owned(),
                progress: progress.map(token_key),
                since: Instant::now(),
            },
        );
        Some(from)
    }

    /// Forgets a request's POST (its client went away before the response came): what its
    /// stream had not written waits for the next stream.
    pub(super) fn forget(&self, id: &str) {
        let mut outlets = lock(&self.outlets);
        if let Some(pending) = outlets.pending.remove(&token_key(id)) {
            outlets.reclaim(pending.to.cut());
        }
    }

    /// Opens the GET stream; `None` when one is open already (the caller answers 409). It
    /// gets everything kept for the client, in order, before anything newer.
    pub(super) fn listen(&self) -> Option<Inbox> {
        let mut outlets = lock(&self.outlets);
        if outlets.standalone().is_some() {
            return None;
        }
        let (to, from) = Outbox::new(self.held.clone());
        self.hand_over(&mut outlets.backlog, &to);
        outlets.standalone = Some(to);
        self.touch();
        Some(from)
    }

    /// Moves the backlog onto a new stream (whose queue counts it from then on).
    fn hand_over(&self, backlog: &mut VecDeque<String>, to: &Outbox) {
        for text in backlog.drain(..) {
            self.held.fetch_sub(text.len(), Ordering::Relaxed);
            // A new stream is open: `push` cannot fail.
            let _ = to.push(Out { text, last: false });
        }
    }

    /// Where one line the front wrote goes: a response to the POST of its request; progress
    /// to the stream of the request that asked for it; anything else (a server's request,
    /// log message, list_changed…) to the GET stream, else to the newest request's stream,
    /// else into the backlog until a stream opens (2025-11-25 transports: "The server MAY
    /// send JSON-RPC requests and notifications" on either stream; each message on one).
    /// Never waits: a client that reads slowly costs room (`SESSION_BYTES`), not time.
    fn route(&self, text: String) {
        let Ok(message) = Message::parse(text.clone()) else {
            return;
        };
        let mut outlets = lock(&self.outlets);
        match message.kind() {
            Kind::Response { id } => {
                if let Some(waiting) = outlets.pending.remove(&token_key(id)) {
                    let _ = waiting.to.push(Out { text, last: true });
                }
                return;
            }
            Kind::Notification {
                method: "notifications/progress",
            } => {
                let token = message.progress_token().map(|t| token_key(&t));
                let to = token.and_then(|token| {
                    outlets
                        .pending
                        .values()
                        .find(|p| p.progress.as_deref() == Some(token.as_str()))
                        .map(|p| p.to.clone())
                });
                // Advisory, like the stdio front's: dropped when the client reads slowly.
                if let Some(to) = to {
                    if self.over(text.len()) || to.push(Out { text, last: false }).is_err() {
                        self.dropped(&mut outlets, 1);
                    }
                    return;
                }
            }
            _ => {}
        }
        self.deliver(&mut outlets, text);
    }

    /// A server message for whichever stream is open (see [`route`](Self::route)), within
    /// the session's room.
    fn deliver(&self, outlets: &mut Outlets, text: String) {
        if self.over(text.len()) {
            // The GET stream is behind: cut, what it had not read becomes the oldest kept.
            if let Some(get) = outlets.standalone.take_if(|s| s.queued() > 0) {
                tracing::warn!(
                    target: PROXY,
                    session = short(&self.id),
                    "toon: http: session {}: its GET stream fell {} bytes behind, closed",
                    short(&self.id),
                    get.queued()
                );
                outlets.reclaim(get.cut());
            }
            let mut dropped = 0;
            while self.over(text.len()) {
                let Some(old) = outlets.backlog.pop_front() else {
                    break;
                };
                self.held.fetch_sub(old.len(), Ordering::Relaxed);
                dropped += 1;
            }
            if self.over(text.len()) {
                return self.dropped(outlets, dropped + 1);
            }
            self.dropped(outlets, dropped);
        }
        let to = outlets.standalone().or_else(|| {
            outlets
                .pending
                .values()
                .filter(|p| p.to.is_open())
                .max_by_key(|p| p.since)
                .map(|p| p.to.clone())
        });
        let kept = match to {
            Some(to) => to.push(Out { text, last: false }).err().map(|out| out.text),
            None => Some(text),
        };
        if let Some(text) = kept {
            self.held.fetch_add(text.len(), Ordering::Relaxed);
            outlets.backlog.push_back(text);
        }
    }

    /// Whether a message of `len` bytes would take the session past its room (one message
    /// always fits).
    fn over(&self, len: usize) -> bool {
        let held = self.held.load(Ordering::Relaxed);
        held > 0 && held + len > SESSION_BYTES
    }

    /// Counts messages dropped for want of room; says so when dropping starts.
    fn dropped(&self, outlets: &mut Outlets, n: u64) {
        if n > 0 && outlets.dropped == 0 {
            tracing::warn!(
                target: PROXY,
                session = short(&self.id),
                "toon: http: session {}: its client reads too slowly, messages for it dropped \
                 past {SESSION_BYTES} bytes",
                short(&self.id)
            );
        }
        outlets.dropped += n;
    }

    /// At shutdown, once the drain has given up: each request still waiting is answered that
    /// the proxy stopped while it was in progress (`drain.rs`), its response's place taken.
    pub(super) fn cut_in_flight(&self) {
        let mut outlets = lock(&self.outlets);
        for (_, pending) in outlets.pending.drain() {
            let text = super::drain::cut_off(&pending.id, false);
            let _ = pending.to.push(Out { text, last: true });
            pending.to.close();
        }
    }

    /// Ends the session: the front's input closes, open responses end, the servers are shut
    /// down cleanly (each given its time to exit, then stopped). Idempotent.
    pub(super) async fn close(&self) {
        if self.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        self.pipe.close_input().await;
        let dropped = {
            let mut outlets = lock(&self.outlets);
            for (_, pending) in outlets.pending.drain() {
                pending.to.close();
            }
            if let Some(get) = outlets.standalone.take() {
                get.close();
            }
            outlets.dropped
        };
        if dropped > 0 {
            tracing::warn!(
                target: PROXY,
                session = short(&self.id),
                "toon: http: session {}: {dropped} messages for its client were dropped",
                short(&self.id)
            );
        }
        self.toolbox.shutdown().await;
        self.pipe.abort();
    }
}

impl Outlets {
    /// The GET stream while it is open; one whose client went away is let go, what it had
    /// not written kept for the next.
    fn standalone(&mut self) -> Option<Arc<Outbox>> {
        if let Some(gone) = self.standalone.take_if(|s| !s.is_open()) {
            self.reclaim(gone.cut());
        }
        self.standalone.clone()
    }

    /// Keeps what a stream had not written, before what was kept since (older, as it was
    /// routed first); a response's stream loses its response with its client.
    fn reclaim(&mut self, left: VecDeque<Out>) {
        for out in left.into_iter().rev().filter(|o| !o.last) {
            self.backlog.push_front(out.text);
        }
    }
}
