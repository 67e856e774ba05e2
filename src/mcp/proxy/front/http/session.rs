//! One HTTP session: its own [`Toolbox`] (its own server processes, started with this
//! client's capabilities) and its own dispatch core ([`Front`]), which it hands each message
//! its POSTs carry. What the core sends comes through the session's link, which routes it by
//! what it says it is (the request it belongs to, what it carries) to the HTTP responses
//! waiting for it, without waiting for any client: each open stream has an [`Outbox`] the
//! link fills and the stream's body empties, and everything held for the client counts
//! against [`SESSION_BYTES`].

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use tokio::sync::OwnedSemaphorePermit;

use super::outbox::{Inbox, Outbox};
use super::short;
use super::stream::Out;

use super::questions::Questions;
use crate::mcp::proxy::error::CallError;
use crate::mcp::proxy::front::link::{Carries, Link, LinkId, Outgoing};
use crate::mcp::proxy::front::serve::{Front, Mode};
use crate::mcp::proxy::log::PROXY;
use crate::mcp::proxy::servers::toolbox::Toolbox;
use crate::mcp::proxy::sync::lock;
use crate::mcp::proxy::transport::wire::{self, Message, token_key};

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
    /// Its dispatch core.
    front: Arc<Front>,
    /// Where the core's messages for the client go.
    link: Arc<SessionLink>,
    last_used: Mutex<Instant>,
    closed: AtomicBool,
    /// The session's place among `--http-max-sessions`, given back when it is dropped.
    _slot: OwnedSemaphorePermit,
}

/// The session's link: the streams its client has open, and what is kept for the next.
struct SessionLink {
    id: LinkId,
    /// The session's id, for the log.
    session: String,
    outlets: Mutex<Outlets>,
    /// Bytes of server messages held for the client (the backlog and what streams queue).
    held: Arc<AtomicUsize>,
    /// The proxy's requests to the client, answered in its POSTs.
    questions: Questions,
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
        let link = Arc::new(SessionLink {
            id: LinkId::new(),
            session: id.clone(),
            outlets: Mutex::default(),
            held: Arc::default(),
            questions: Questions::default(),
        });
        let home: Arc<dyn Link> = link.clone();
        Arc::new(Session {
            id,
            front: Front::start(toolbox.clone(), mode, Some(home)),
            toolbox,
            link,
            last_used: Mutex::new(Instant::now()),
            closed: AtomicBool::new(false),
            _slot: slot,
        })
    }

    /// Marks the session as used now (for the idle timeout).
    pub(super) fn touch(&self) {
        *lock(&self.last_used) = Instant::now();
    }

    /// Whether nothing has used the session for `idle`: no request, no response in
    /// progress, no GET stream open.
    pub(super) fn idle_for(&self, idle: std::time::Duration) -> bool {
        let busy = {
            let outlets = lock(&self.link.outlets);
            !outlets.pending.is_empty() || outlets.standalone.as_ref().is_some_and(|s| s.is_open())
        };
        !busy && lock(&self.last_used).elapsed() >= idle
    }

    /// Hands one message to the session's core.
    pub(super) async fn send(&self, message: Message) -> Result<(), Closed> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(Closed::Ended);
        }
        self.touch();
        let link: Arc<dyn Link> = self.link.clone();
        self.front.receive(message, &link).await;
        Ok(())
    }

    /// Registers a request's POST, before the request goes to the front: its response, and
    /// what the servers send meanwhile, come on the returned stream. `None` when a request
    /// with that id is already waiting (JSON-RPC ids are unique per session).
    pub(super) fn expect(&self, id: &str) -> Option<Inbox> {
        self.link.expect(id)
    }

    /// Forgets a request's POST (its client went away before the response came): what its
    /// stream had not written waits for the next stream.
    pub(super) fn forget(&self, id: &str) {
        let mut outlets = lock(&self.link.outlets);
        if let Some(pending) = outlets.pending.remove(&token_key(id)) {
            outlets.reclaim(pending.to.cut());
        }
    }

    /// Opens the GET stream; `None` when one is open already (the caller answers 409). It
    /// gets everything kept for the client, in order, before anything newer.
    pub(super) fn listen(&self) -> Option<Inbox> {
        let inbox = self.link.listen()?;
        self.touch();
        Some(inbox)
    }

    /// At shutdown, once the drain has given up: each request still waiting is answered that
    /// the proxy stopped while it was in progress (`drain.rs`), its response's place taken.
    pub(super) fn cut_in_flight(&self) {
        let mut outlets = lock(&self.link.outlets);
        for (_, pending) in outlets.pending.drain() {
            let text = super::drain::cut_off(&pending.id, false);
            let _ = pending.to.push(Out { text, last: true });
            pending.to.close();
        }
    }

    /// Ends the session: its core stops, open responses end, the servers are shut down
    /// cleanly (each given its time to exit, then stopped). Idempotent.
    pub(super) async fn close(&self) {
        if self.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        self.front.stop();
        self.link.questions.clear();
        let dropped = {
            let mut outlets = lock(&self.link.outlets);
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
    }
}

impl SessionLink {
    /// See [`Session::expect`].
    fn expect(&self, id: &str) -> Option<Inbox> {
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
                since: Instant::now(),
            },
        );
        Some(from)
    }

    /// See [`Session::listen`].
    fn listen(&self) -> Option<Inbox> {
        let mut outlets = lock(&self.outlets);
        if outlets.standalone().is_some() {
            return None;
        }
        let (to, from) = Outbox::new(self.held.clone());
        self.hand_over(&mut outlets.backlog, &to);
        outlets.standalone = Some(to);
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

    /// Where one message of the core's goes, by what it says it is: a response to the POST of
    /// its request; progress, and a server's question, to the stream of the request it
    /// belongs to while that is open; anything else (a log message, list_changed…) to the GET
    /// stream, else to the newest request's stream, else into the backlog until a stream
    /// opens (2025-11-25 transports: "The server MAY send JSON-RPC requests and
    /// notifications" on either stream; each message on one). Never waits: a client that
    /// reads slowly costs room (`SESSION_BYTES`), not time. Whether it was taken.
    fn route(&self, out: Outgoing) -> bool {
        let mut outlets = lock(&self.outlets);
        let on_request = out.request.as_deref().map(token_key).and_then(|key| {
            let to = outlets.pending.get(&key).map(|p| p.to.clone());
            Some((key, to?))
        });
        match (out.carries, on_request) {
            (Carries::Reply, Some((key, to))) => {
                outlets.pending.remove(&key);
                to.push(Out {
                    text: out.text,
                    last: true,
                })
                .is_ok()
            }
            // Its POST went away: the answer with it.
            (Carries::Reply, None) => false,
            // Advisory, like the stdio front's: dropped when the client reads slowly.
            (Carries::Progress, Some((_, to))) if to.is_open() => {
                let taken = !self.over(out.text.len())
                    && to
                        .push(Out {
                            text: out.text,
                            last: false,
                        })
                        .is_ok();
                if !taken {
                    self.dropped(&mut outlets, 1);
                }
                taken
            }
            (Carries::Question, Some((_, to))) if to.is_open() => {
                match to.push(Out {
                    text: out.text,
                    last: false,
                }) {
                    Ok(()) => true,
                    Err(out) => self.deliver(&mut outlets, out.text),
                }
            }
            _ => self.deliver(&mut outlets, out.text),
        }
    }

    /// A server message for whichever stream is open (see [`route`](Self::route)), within
    /// the session's room; whether it was kept.
    fn deliver(&self, outlets: &mut Outlets, text: String) -> bool {
        if self.over(text.len()) {
            // The GET stream is behind: cut, what it had not read becomes the oldest kept.
            if let Some(get) = outlets.standalone.take_if(|s| s.queued() > 0) {
                tracing::warn!(
                    target: PROXY,
                    session = short(&self.session),
                    "toon: http: session {}: its GET stream fell {} bytes behind, closed",
                    short(&self.session),
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
                self.dropped(outlets, dropped + 1);
                return false;
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
        true
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
                session = short(&self.session),
                "toon: http: session {}: its client reads too slowly, messages for it dropped \
                 past {SESSION_BYTES} bytes",
                short(&self.session)
            );
        }
        outlets.dropped += n;
    }
}

impl Link for SessionLink {
    fn id(&self) -> LinkId {
        self.id
    }

    fn send(&self, out: Outgoing) -> BoxFuture<'_, ()> {
        self.route(out);
        Box::pin(std::future::ready(()))
    }

    fn offer(&self, out: Outgoing) -> bool {
        self.route(out)
    }

    fn ask<'a>(
        &'a self,
        method: &'a str,
        params: Option<&'a str>,
        within: Option<&'a str>,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Message, CallError>> {
        Box::pin(async move {
            let (text, id, answer) = self.questions.open(method, params);
            self.route(Outgoing::of(Carries::Question, within, text));
            let answer = self
                .questions
                .wait("client", method, &id, answer, timeout)
                .await;
            if let Err(CallError::Timeout { .. }) = &answer {
                // The client is told it need not answer any more.
                let params = format!(r#"{{"requestId":{id},"reason":"timed out"}}"#);
                let cancelled = wire::notification("notifications/cancelled", Some(&params));
                self.route(Outgoing::of(Carries::Question, within, cancelled));
            }
            answer
        })
    }

    fn answered(&self, message: Message) {
        self.questions.answered(message);
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
