//! One JSON-RPC connection (a server's stdio, or the client's): a writer task, a reader task,
//! and requests matched to their responses by id, each with a timeout. Each request carries
//! the client request it is made for, and that request's client ([`Behalf`]), so that what
//! the peer asks or logs can be told to be that request's, or at least that client's
//! ([`Cause`]), when nothing else is in flight to it.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{Notify, mpsc, oneshot, watch};
use tokio_util::codec::{FramedRead, FramedWrite};

use super::inbound::{InboundSender, NotQueued};
use super::outgoing::{ForWriter, WriteQueue};
use super::wire::{self, Bad, Kind, Lines, Message, token_key};
use crate::mcp::proxy::error::CallError;
use crate::mcp::proxy::log::PROXY;
use crate::mcp::proxy::sync::lock;
use crate::mcp::raw;

/// How long after its reply a peer's log messages may still be about a request (a server
/// that logs "done" after answering): until then they cannot be told to be another request's.
/// A question cannot be about a request already answered (its answer would have had nowhere
/// to go), so questions do not wait for this. A request given up on (cancelled, timed out)
/// counts for both for its whole timeout, since a server may go on with it regardless.
const AFTER_REPLY: Duration = Duration::from_secs(2);

/// A request that reports progress may run this many times the request timeout in all.
pub const MAX_EXTENSIONS: u32 = 10;

/// Where the progress notifications of one token go: called on the reader's task, in the
/// order the peer sent them, before any later response is handed over.
pub type ProgressSink = Arc<dyn Fn(&str) + Send + Sync>;

/// Where a peer's notifications go as they are read (its name, the message, the request it
/// may be about: [`Cause`], as for a log message), besides its inbound queue: in the order the
/// peer sent them and with its responses, so that a request's log messages reach the client
/// before its answer and no kind of notification overtakes another. Called on the reader's
/// task: it must not wait. (Progress taken by a route, [`Peer::route_progress`], is not
/// given to it.)
pub(crate) type NotificationSink = Arc<dyn Fn(&str, &Message, Cause) + Send + Sync>;

/// The notifications that go to the inbound queue too when a sink took them: a server's log
/// message (its line on stderr) and its tool list's change (listed again first). The rest
/// would only fill the queue.
const QUEUED_WHEN_ROUTED: [&str; 2] = ["notifications/message", crate::mcp::LIST_CHANGED];

/// ProgressRoutes by [`token_key`], each with how many calls hold it.
type ProgressRoutes = Arc<Mutex<HashMap<String, (ProgressSink, usize)>>>;

/// Unique in the process: request tags and client ids are drawn from it.
fn next_unique() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// One client of the proxy, as far as isolation goes: the stdio front's client, one HTTP
/// session, or the stateless 2026-07-28 POSTs that carry one client cookie (each POST
/// without one is a client of its own).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct ClientId(u64);

impl ClientId {
    /// A client not seen before.
    pub(crate) fn new() -> ClientId {
        ClientId(next_unique())
    }

    /// The client `name` stands for (a stateless client's cookie): the same name, the same
    /// client, in this process. Keyed at random per process, so that a client's id tells
    /// nothing of its name; the top bit set, so that no [`ClientId::new`] is one.
    #[cfg(feature = "mcp-http")]
    pub(crate) fn named(name: &str) -> ClientId {
        use std::hash::BuildHasher;
        static KEY: std::sync::OnceLock<std::collections::hash_map::RandomState> =
            std::sync::OnceLock::new();
        let hash = KEY.get_or_init(Default::default).hash_one(name);
        ClientId(hash | 1 << 63)
    }
}

/// The client request a task works for, which the requests it sends to servers are made for
/// (the task-local [`BEHALF`], set by the front around each client request).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Behalf {
    /// Unique in the process.
    pub(crate) tag: u64,
    /// The client that sent it.
    pub(crate) client: ClientId,
    /// Whether a server's questions may be put to it (a 2026-07-28 request that declared
    /// sampling, elicitation or roots): it then starts on a server only once nothing else is
    /// in flight there and no other client's request was just answered (waiting at most its
    /// timeout), so that the questions asked while it runs can be told to be its own.
    pub(crate) alone: bool,
}

impl Behalf {
    /// A new request of `client`'s.
    pub(crate) fn new(alone: bool, client: ClientId) -> Behalf {
        Behalf {
            tag: next_unique(),
            client,
            alone,
        }
    }

    /// Who made it, as the peer's books keep it.
    fn owner(self) -> Owner {
        Owner {
            tag: self.tag,
            client: self.client,
        }
    }

    /// The task's, if it works for a client request.
    pub(crate) fn current() -> Option<Behalf> {
        BEHALF.try_with(|b| *b).ok()
    }
}

tokio::task_local! {
    /// The client request the task works for.
    pub(crate) static BEHALF: Behalf;
}

/// Which client request a peer's question or log message came for, as far as the proxy can
/// tell: stdio names none, so only when every request the message may be about was made for
/// the same client request (or, a log message, by the same client). A question may be about a
/// request in flight (sent and not answered, or given up on within its timeout), and about one
/// of *another* client's answered within [`AFTER_REPLY`] (a server may go on with a call after
/// answering it, and ask then: never to be put to the next client); a log message also about
/// any answered within [`AFTER_REPLY`]. (A server that talks about a request longer than that
/// after answering it is beyond what stdio lets the proxy tell.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cause {
    /// That client request's [`Behalf::tag`].
    Request(u64),
    /// A log message while `in_flight` requests of one client, and no other's or the
    /// proxy's, were in flight or just answered: it is that client's to hear.
    Client {
        /// Whose.
        client: ClientId,
        /// How many of its requests.
        in_flight: usize,
    },
    /// Unknown: `in_flight` requests were in flight or just answered (none, or several of
    /// several clients).
    Unknown {
        /// How many.
        in_flight: usize,
    },
}

/// What of the peer's the proxy places: a question (a request), or a log message, which may
/// come just after its request's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum About {
    Question,
    Log,
}

/// The client request a request to the peer was made for, and its client.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Owner {
    tag: u64,
    client: ClientId,
}

/// A request waiting for its response: its method (for messages), who it was made for
/// (`None`: the proxy's own), and who waits.
struct Waiter {
    method: String,
    owner: Option<Owner>,
    /// The request's `progressToken` (as [`token_key`]), if it gave one.
    token: Option<String>,
    to: oneshot::Sender<Result<Message, CallError>>,
}

/// A request no longer waited for that the peer may still be talking about, until `until`.
struct Lingering {
    owner: Option<Owner>,
    until: Instant,
    /// Answered, rather than given up on (the peer may still be at work on it).
    answered: bool,
}

/// The requests in flight to the peer.
#[derive(Default)]
struct Calls {
    waiting: HashMap<u64, Waiter>,
    /// Requests answered or given up (cancelled or timed out) that the peer may still be
    /// talking about.
    given_up: HashMap<u64, Lingering>,
}

/// Distinct owners, and how many requests they stand for.
fn distinct(mut owners: Vec<Option<Owner>>) -> (Vec<Option<Owner>>, usize) {
    let count = owners.len();
    owners.sort_unstable();
    owners.dedup();
    (owners, count)
}

impl Calls {
    /// Forgets what the peer can no longer be talking about.
    fn prune(&mut self) {
        let now = Instant::now();
        self.given_up.retain(|_, l| l.until > now);
    }

    /// Who the client requests the peer is still at work on were made for: in flight, or
    /// given up on within their timeout (the proxy's own left out).
    fn live(&self) -> impl Iterator<Item = Owner> + '_ {
        let given_up = self.given_up.values().filter(|l| !l.answered);
        (self.waiting.values().map(|w| w.owner))
            .chain(given_up.map(|l| l.owner))
            .flatten()
    }

    /// The client requests a question may be about now: those in flight or given up on (the
    /// proxy's own ask nothing of a client, and are left out), and those of another client
    /// than theirs answered within [`AFTER_REPLY`].
    fn question_owners(&mut self) -> (Vec<Option<Owner>>, usize) {
        self.prune();
        let live: Vec<Owner> = self.live().collect();
        let others = self.given_up.values().filter_map(|l| l.owner).filter(|o| {
            let answered_of_another = !live.iter().any(|l| l.client == o.client);
            answered_of_another && !live.is_empty()
        });
        let others: Vec<Owner> = others.collect();
        distinct(live.into_iter().chain(others).map(Some).collect())
    }

    /// The client requests a log message may be about now (the proxy's own, listing and the
    /// like, are no client's business: a server's log about them is told to nobody, or to the
    /// client whose request is the only other one).
    fn log_owners(&mut self) -> (Vec<Option<Owner>>, usize) {
        self.prune();
        let waiting = self.waiting.values().map(|w| w.owner);
        let all = waiting.chain(self.given_up.values().map(|l| l.owner));
        distinct(all.filter(Option::is_some).collect())
    }

    /// What `message` (a question or a log message of the peer's) is about: the request on
    /// whose answer stream it came, when the transport said (nobody's when that request is
    /// the proxy's own or forgotten); else as far as [`cause`](Self::cause) can tell.
    fn cause_of(&mut self, message: &Message, about: About) -> Cause {
        let Some(id) = message.answering() else {
            return self.cause(about);
        };
        let waiting = self.waiting.get(&id).map(|w| w.owner);
        let owner = waiting.or_else(|| self.given_up.get(&id).map(|l| l.owner));
        match owner.flatten() {
            Some(owner) => Cause::Request(owner.tag),
            None => Cause::Unknown { in_flight: 0 },
        }
    }

    fn cause(&mut self, about: About) -> Cause {
        let (owners, in_flight) = match about {
            About::Question => self.question_owners(),
            About::Log => self.log_owners(),
        };
        let client = owners.first().copied().flatten().map(|o| o.client);
        match (&owners[..], client) {
            ([Some(owner)], _) => Cause::Request(owner.tag),
            (_, Some(client))
                if about == About::Log
                    && owners.iter().all(|o| o.is_some_and(|o| o.client == client)) =>
            {
                Cause::Client { client, in_flight }
            }
            _ => Cause::Unknown { in_flight },
        }
    }

    /// A reply came for `id`: the waiter, if one waits. The peer may still log about it, and
    /// ask another client about it, for [`AFTER_REPLY`].
    fn answered(&mut self, id: u64) -> Option<Waiter> {
        let until = Instant::now() + AFTER_REPLY;
        let waiter = self.waiting.remove(&id);
        let owner = match (&waiter, self.given_up.remove(&id)) {
            (Some(w), _) => w.owner,
            (None, Some(lingering)) => lingering.owner,
            (None, None) => None,
        };
        // The proxy's own requests (listing, start-up) have no client request to talk about.
        if owner.is_some() {
            let answered = true;
            let lingering = Lingering {
                owner,
                until,
                answered,
            };
            self.given_up.insert(id, lingering);
        }
        waiter
    }

    /// Whether a question asked now could be another's than `owner`'s: another request is in
    /// flight, or another client's was answered or given up on within its time. Its own
    /// client's requests given up on (cancelled, timed out) do not hold it: what the peer
    /// still says of them is no other client's business, and their questions are refused.
    fn others_than(&mut self, owner: Owner) -> bool {
        self.prune();
        let mut in_flight = self.waiting.values().filter_map(|w| w.owner);
        let mut lingering = self.given_up.values().filter_map(|l| l.owner);
        in_flight.any(|o| o.tag != owner.tag) || lingering.any(|o| o.client != owner.client)
    }
}

/// The requests in flight, and a signal when one ends.
#[derive(Default)]
struct Waiters {
    calls: Mutex<Calls>,
    fewer: Notify,
    /// Whether the transport tells which request each question of the peer's is about
    /// ([`Peer::streams_tell_requests`]): then a call need not wait to be alone.
    streams_tell: AtomicBool,
}

impl Waiters {
    fn calls(&self) -> std::sync::MutexGuard<'_, Calls> {
        lock(&self.calls)
    }

    /// A reply came for `id`: the waiter, if one waits.
    fn answered(&self, id: u64) -> Option<Waiter> {
        let waiter = self.calls().answered(id);
        self.fewer.notify_waiters();
        waiter
    }

    /// Forgets `id`'s waiter; when `given_up`, the peer may still work on it for `linger`.
    fn forget(&self, id: u64, given_up: bool, linger: Duration) -> bool {
        let mut calls = self.calls();
        let Some(waiter) = calls.waiting.remove(&id) else {
            return false;
        };
        if given_up {
            let now = Instant::now();
            // Those whose peer never answers are forgotten in time.
            calls.given_up.retain(|_, l| l.until > now);
            let (owner, until, answered) = (waiter.owner, now + linger, false);
            calls.given_up.insert(
                id,
                Lingering {
                    owner,
                    until,
                    answered,
                },
            );
        }
        drop(calls);
        self.fewer.notify_waiters();
        true
    }
}

/// A JSON-RPC peer. Incoming requests and notifications go to the channel given to
/// [`Peer::start`]; responses complete the matching [`Peer::request`].
#[derive(Clone)]
pub(crate) struct Peer {
    name: Arc<str>,
    /// What waits for the writer, bounded by bytes (back-pressure on a peer that does not
    /// read; advisory messages past the bound are dropped).
    outgoing: Arc<WriteQueue>,
    waiters: Arc<Waiters>,
    next_id: Arc<AtomicU64>,
    closed: watch::Receiver<Option<String>>,
    routes: ProgressRoutes,
    /// Notifications dropped because the inbound queue was full (the reader logs the count;
    /// tests read it).
    #[cfg_attr(not(test), allow(dead_code))]
    dropped: Arc<AtomicU64>,
    /// The peer's own requests not answered yet (see [`Peer::hold_while_asking`]).
    asking: Arc<Asking>,
    /// See [`route_notifications`](Self::route_notifications).
    notifications: Arc<Mutex<Option<NotificationSink>>>,
}

/// The requests a peer sent that the proxy has not answered yet (by [`token_key`] of their
/// ids), with the client request each came for: while a server waits for its question to be
/// answered (a person may be answering an elicitation, a 2026-07-28 client coming back with
/// its retry), its calls are not timed out.
#[derive(Default)]
struct Asking {
    /// Whether calls wait for the peer's questions ([`Peer::hold_while_asking`]).
    holds: AtomicBool,
    open: Mutex<HashMap<String, Cause>>,
    /// Signalled when one is answered: the calls' timeout starts again.
    answered: Notify,
    /// When one was last answered: a call whose timeout ran out just as it was (the signal
    /// and the timeout at once) still has its timeout from then.
    last_answer: Mutex<Option<tokio::time::Instant>>,
}

impl Asking {
    fn asked(&self, id: &str, cause: Cause) {
        if self.holds.load(Ordering::Relaxed) {
            let key = token_key(id);
            let mut open = lock(&self.open);
            // Two questions open under one id (a peer whose ids count per request, or that
            // lies), of two requests: which is which cannot be told, so neither is placed.
            let cause = match open.get(&key) {
                Some(was) if *was != cause => Cause::Unknown { in_flight: 2 },
                _ => cause,
            };
            open.insert(key, cause);
        }
    }

    /// The question `id` (JSON text) is answered (by a response the proxy sends) or withdrawn
    /// (by the peer's `notifications/cancelled`).
    fn settled(&self, id: &str) {
        if lock(&self.open).remove(&token_key(id)).is_some() {
            *lock(&self.last_answer) = Some(tokio::time::Instant::now());
            self.answered.notify_waiters();
        }
    }

    fn is_waiting(&self) -> bool {
        !lock(&self.open).is_empty()
    }

    /// When a call's timeout runs out at `now`: the new deadline, if the peer still waits
    /// for an answer of ours or got one less than `timeout` ago.
    fn holds_until(
        &self,
        now: tokio::time::Instant,
        timeout: Duration,
    ) -> Option<tokio::time::Instant> {
        if self.is_waiting() {
            return Some(now + timeout);
        }
        let last = (*lock(&self.last_answer))?;
        (now < last + timeout).then_some(last + timeout)
    }
}

impl std::fmt::Debug for Peer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Peer")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Peer {
    /// Starts the reader and writer tasks. `name` labels log lines and errors. Lines that are
    /// not messages go to `bad_frames` (the client side answers them) or, when it is `None`,
    /// fail the request whose id they show (a server's reply the proxy cannot pass on is
    /// answered at once, not waited for) and are logged.
    pub(crate) fn start<R, W>(
        name: &str,
        reader: R,
        writer: W,
        inbound: InboundSender,
        bad_frames: Option<mpsc::Sender<Bad>>,
    ) -> Peer
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        Peer::start_lines(name, reader, writer, Lines::default(), inbound, bad_frames)
    }

    /// As [`start`](Self::start), reading with `lines` (its own line limit).
    pub(crate) fn start_lines<R, W>(
        name: &str,
        reader: R,
        writer: W,
        lines: Lines,
        inbound: InboundSender,
        bad_frames: Option<mpsc::Sender<Bad>>,
    ) -> Peer
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let frames = FramedRead::new(reader, lines)
            .map(|read| read.map_err(|e| wire::Hangup(format!("read failed: {e}"))));
        let sink = FramedWrite::new(writer, Lines::default());
        Peer::start_with(name, frames, sink, inbound, bad_frames)
    }

    /// As [`start`](Self::start), on any transport: `frames` are what the peer sent (ending
    /// with `Err(why)` when the transport ends with a reason), `sink` takes each message to
    /// send, and is closed at [`close`](Self::close).
    pub(crate) fn start_with<F, K>(
        name: &str,
        frames: F,
        sink: K,
        inbound: InboundSender,
        bad_frames: Option<mpsc::Sender<Bad>>,
    ) -> Peer
    where
        F: futures_util::Stream<Item = Result<wire::Frame, wire::Hangup>> + Send + Unpin + 'static,
        K: futures_util::Sink<String> + Send + Unpin + 'static,
    {
        let (outgoing, outgoing_rx) = WriteQueue::new();
        let (closed_tx, closed) = watch::channel(None);
        let waiters: Arc<Waiters> = Arc::default();
        let name: Arc<str> = Arc::from(name);
        let dropped = Arc::new(AtomicU64::new(0));
        let routes: ProgressRoutes = Arc::default();
        let asking: Arc<Asking> = Arc::default();
        let notifications: Arc<Mutex<Option<NotificationSink>>> = Arc::default();

        spawn_writer(sink, outgoing_rx, outgoing.clone());

        let reader = ReaderTask {
            waiters: waiters.clone(),
            name: name.clone(),
            dropped: dropped.clone(),
            routes: routes.clone(),
            asking: asking.clone(),
            notifications: notifications.clone(),
            inbound,
            bad_frames,
        };
        tokio::spawn(async move {
            let reason = reader.read(frames).await;
            let _ = closed_tx.send(Some(reason.clone()));
            reader.fail_waiting(&reason);
        });

        Peer {
            name,
            outgoing,
            waiters,
            next_id: Arc::new(AtomicU64::new(1)),
            closed,
            routes,
            dropped,
            asking,
            notifications,
        }
    }

    /// Sends the peer's notifications to `sink` as they are read, besides the inbound queue,
    /// from now on.
    pub(crate) fn route_notifications(&self, sink: NotificationSink) {
        *lock(&self.notifications) = Some(sink);
    }

    /// From now on, while the peer (a server) waits for an answer to one of its own requests
    /// (sampling, elicitation, roots: put to the client, who may take a person's time), the
    /// proxy's requests to it do not time out, up to [`MAX_EXTENSIONS`] times the timeout in
    /// all; each answer starts the timeout again. Stdio says nothing of which call a question
    /// belongs to, so every call to the peer waits.
    pub(crate) fn hold_while_asking(&self) {
        self.asking.holds.store(true, Ordering::Relaxed);
    }

    /// Says that the transport tells which request each of the peer's questions and log
    /// messages is about (Streamable HTTP: the request's answer stream,
    /// [`Message::came_answering`]): a call that may be asked need not wait until it is alone
    /// on the peer ([`Behalf::alone`]). A question on no request's stream (the GET stream,
    /// for messages "unrelated to any request") is placed as over stdio, and refused when
    /// several requests are in flight.
    #[cfg(feature = "mcp-http")]
    pub(crate) fn streams_tell_requests(&self) {
        self.waiters.streams_tell.store(true, Ordering::Relaxed);
    }

    /// Sends the progress notifications of `token` (its JSON text, as the request's
    /// `_meta.progressToken` has it) to `sink` as they are read, until the returned guard is
    /// dropped. Read in order with responses, a request's last progress reaches its sink
    /// before the response reaches the caller. A token another request in flight to the peer
    /// already gave (two clients of the stateless HTTP front may both say `1`) is not shared:
    /// the request is to carry a token of the proxy's own instead
    /// ([`ProgressRoute::renamed`]), whose progress reaches `sink` under `token` again.
    pub(crate) fn route_progress(&self, token: String, sink: ProgressSink) -> ProgressRoute {
        let key = token_key(&token);
        let mut routes = lock(&self.routes);
        if !routes.contains_key(&key) {
            routes.insert(key.clone(), (sink, 1));
            return ProgressRoute {
                routes: self.routes.clone(),
                token: key,
                renamed: None,
            };
        }
        let own = format!("\"toon-progress-{}\"", next_unique());
        let sink: ProgressSink = Arc::new(move |text: &str| {
            if let Some(text) = wire::retoken(text, Some(&token)) {
                sink(&text);
            }
        });
        let own_key = token_key(&own);
        routes.insert(own_key.clone(), (sink, 1));
        ProgressRoute {
            routes: self.routes.clone(),
            token: own_key,
            renamed: Some(own),
        }
    }

    /// The label given at start.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// Notifications dropped so far because the inbound queue was full.
    #[cfg(test)]
    pub fn dropped_notifications(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Why the connection closed, once it has.
    pub(crate) fn closed(&self) -> Option<String> {
        self.closed.borrow().clone()
    }

    /// Waits until the connection closes; returns why.
    pub(crate) async fn wait_closed(&self) -> String {
        let mut rx = self.closed.clone();
        loop {
            if let Some(reason) = rx.borrow_and_update().clone() {
                return reason;
            }
            if rx.changed().await.is_err() {
                return "stopped".to_owned();
            }
        }
    }

    /// Sends a message (a response or a notification), as JSON text on one line.
    pub(crate) async fn send(&self, message: String) {
        self.answering(&message);
        let _ = self.outgoing.send(ForWriter::Message(message)).await;
    }

    /// Sends a message if the outgoing queue has room (by bytes); `false` when it was dropped,
    /// which is counted and logged.
    pub(crate) fn try_send(&self, message: String) -> bool {
        self.answering(&message);
        let sent = self.outgoing.try_send(message);
        let dropped = self.outgoing.dropped();
        if !sent && dropped.is_power_of_two() {
            tracing::warn!(
                target: PROXY,
                peer = &*self.name,
                "{dropped} messages to it dropped: it reads too slowly"
            );
        }
        sent
    }

    /// Notes the answer `message` may be to one of the peer's open questions.
    fn answering(&self, message: &str) {
        if !self.asking.is_waiting() {
            return;
        }
        if let Ok(message) = Message::parse(message.to_owned())
            && let Kind::Response { id } = message.kind()
        {
            self.asking.settled(id);
        }
    }

    /// Whether a request in flight to the peer gave the progress token `token` (as
    /// [`token_key`]): the peer's progress under any other token is not its to send.
    pub(crate) fn was_given(&self, token: &str) -> bool {
        self.waiters
            .calls()
            .waiting
            .values()
            .any(|w| w.token.as_deref() == Some(token))
    }

    /// Records a question put for the peer under `id` (JSON text) that it did not send on the
    /// wire: a 2026-07-28 server's input request, whose request (`cause`) is known exactly.
    /// It holds the peer's calls as its own questions do, until [`settle`](Self::settle).
    pub(crate) fn asked_for(&self, id: &str, cause: Cause) {
        self.asking.asked(id, cause);
    }

    /// The question `id` recorded by [`asked_for`](Self::asked_for) is answered or dropped.
    pub(crate) fn settle(&self, id: &str) {
        self.asking.settled(id);
    }

    /// The question `id` recorded by [`asked_for`](Self::asked_for) is withdrawn, unanswered:
    /// the proxy hears `notifications/cancelled` for it as if the peer had sent it, so that
    /// whoever was asked is told.
    pub(crate) fn withdraw(&self, id: &str, reason: &str) {
        self.asking.settled(id);
        let params = format!(r#"{{"requestId":{id},"reason":{}}}"#, raw::quote(reason));
        let text = wire::notification("notifications/cancelled", Some(&params));
        let sink = lock(&self.notifications).clone();
        if let (Some(sink), Ok(message)) = (sink, Message::parse(text)) {
            sink(&self.name, &message, Cause::Unknown { in_flight: 0 });
        }
    }

    /// Which client request the peer's request `id` (JSON text, not answered yet) came for.
    pub(crate) fn cause_of(&self, id: &str) -> Cause {
        lock(&self.asking.open)
            .get(&token_key(id))
            .copied()
            .unwrap_or(Cause::Unknown { in_flight: 0 })
    }

    /// Records request `id` as in flight for `behalf`'s client request. A request that may
    /// be asked questions ([`Behalf::alone`]) first waits, at most `timeout`, until no other
    /// request is in flight and no other client's was answered within [`AFTER_REPLY`]: then
    /// what the peer asks meanwhile can be told to be its own; past that it goes on, and the
    /// peer's questions are refused (a busy server is shared, never held by one client for
    /// another's whole timeout). Its own client's answered requests never hold it: a client's
    /// sequential calls start at once.
    async fn enter(
        &self,
        id: u64,
        method: &str,
        params: Option<&str>,
        to: oneshot::Sender<Result<Message, CallError>>,
        timeout: Duration,
    ) {
        let behalf = Behalf::current();
        let waiter = Waiter {
            method: method.to_owned(),
            owner: behalf.map(Behalf::owner),
            token: params
                .and_then(wire::request_progress_token)
                .map(|t| token_key(&t)),
            to,
        };
        // Only a call the peer may ask within waits to be alone: listing on the way does not,
        // nor any call when the transport tells whose each question is.
        let streams_tell = self.waiters.streams_tell.load(Ordering::Relaxed);
        let alone = behalf
            .filter(|b| {
                b.alone
                    && !streams_tell
                    && matches!(method, "tools/call" | "prompts/get" | "resources/read")
            })
            .map(Behalf::owner);
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let fewer = self.waiters.fewer.notified();
            tokio::pin!(fewer);
            fewer.as_mut().enable();
            {
                let mut calls = self.waiters.calls();
                let others = alone.is_some_and(|owner| calls.others_than(owner));
                if !others || tokio::time::Instant::now() >= deadline {
                    calls.waiting.insert(id, waiter);
                    return;
                }
            }
            tokio::select! {
                () = fewer => {}
                () = tokio::time::sleep_until(deadline) => {}
                // What is given up on is forgotten by time, not signalled.
                () = tokio::time::sleep(AFTER_REPLY / 8) => {}
            }
        }
    }

    /// Closes the writing side (the peer reads end of input).
    pub(crate) async fn close(&self) {
        let _ = self.outgoing.send(ForWriter::Close).await;
    }

    /// Sends a request (`params` as JSON text, forwarded as it is) and waits at most
    /// `timeout` for its response, which it returns whole (its `result` is
    /// [`Message::result`]). On timeout (or when the caller stops waiting) the peer is sent
    /// `notifications/cancelled`.
    ///
    /// # Errors
    /// The peer's error response, a timeout, a reply the proxy cannot read or pass on, or the
    /// connection closing first.
    pub(crate) async fn request(
        &self,
        method: &str,
        params: Option<&str>,
        timeout: Duration,
    ) -> Result<Message, CallError> {
        self.request_watched(method, params, timeout, None).await
    }

    /// As [`request`](Self::request), where each signal of `activity` (a progress
    /// notification of the request) starts the timeout again, up to [`MAX_EXTENSIONS`] times
    /// the timeout in all: a tool that reports progress is not cut off while it works, and
    /// one that reports forever still ends.
    ///
    /// # Errors
    /// As [`request`](Self::request).
    pub(crate) async fn request_watched(
        &self,
        method: &str,
        params: Option<&str>,
        timeout: Duration,
        activity: Option<&Notify>,
    ) -> Result<Message, CallError> {
        if let Some(reason) = self.closed() {
            return Err(CallError::Closed {
                server: self.name.to_string(),
                reason,
            });
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, mut rx) = oneshot::channel();
        self.enter(id, method, params, tx, timeout).await;
        // The reader may have closed (and drained the waiters) between the check and the insert.
        if let Some(reason) = self.closed() {
            self.waiters.forget(id, false, timeout);
            return Err(CallError::Closed {
                server: self.name.to_string(),
                reason,
            });
        }
        let mut guard = WaitGuard {
            peer: self,
            id,
            done: false,
            // Cancelled: a server may go on with it regardless.
            linger: timeout,
            // `// 2025-11-25 basic/utilities/cancellation`: "The `initialize` request MUST
            // NOT be cancelled by clients" (one outrun by `server/discover` is left pending).
            cancel: method != "initialize",
        };
        self.send(wire::request(id, method, params)).await;
        let started = tokio::time::Instant::now();
        let last = started + timeout.saturating_mul(MAX_EXTENSIONS);
        let mut deadline = started + timeout;
        let answer = loop {
            tokio::select! {
                answer = &mut rx => break Some(answer),
                () = tokio::time::sleep_until(deadline) => {
                    // The peer waits for an answer of ours, or just got one: so does its
                    // call.
                    let now = tokio::time::Instant::now();
                    match self.asking.holds_until(now, timeout) {
                        Some(until) if now < last => deadline = until.min(last),
                        _ => {
                            // Timed out, the peer is likely still at work on it.
                            guard.linger = timeout;
                            break None;
                        }
                    }
                }
                () = signalled(activity) => {
                    deadline = (tokio::time::Instant::now() + timeout).min(last);
                }
                () = self.asking.answered.notified() => {
                    deadline = (tokio::time::Instant::now() + timeout).min(last);
                }
            }
        };
        guard.done = answer.as_ref().is_some_and(Result::is_ok);
        match answer {
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(CallError::Closed {
                server: self.name.to_string(),
                reason: self.closed().unwrap_or_else(|| "stopped".to_owned()),
            }),
            None => Err(CallError::Timeout {
                server: self.name.to_string(),
                method: method.to_owned(),
                after: started.elapsed(),
            }),
        }
    }
}

/// A signal of `activity`, or never.
async fn signalled(activity: Option<&Notify>) {
    match activity {
        Some(n) => n.notified().await,
        None => std::future::pending().await,
    }
}

/// Hands a progress notification to the sink its token is routed to; `false` when none is.
fn routed(routes: &ProgressRoutes, message: &Message) -> bool {
    let token = message.progress_token().map(|t| token_key(&t));
    let sink = token.and_then(|t| lock(routes).get(&t).map(|(sink, _)| sink.clone()));
    match sink {
        Some(sink) => {
            sink(message.text());
            true
        }
        None => false,
    }
}

/// A progress route (`Upstream::route_progress`), removed when dropped.
pub struct ProgressRoute {
    routes: ProgressRoutes,
    token: String,
    renamed: Option<String>,
}

impl ProgressRoute {
    /// The token (JSON text) the request is to carry instead of its own, when its own was in
    /// use by another request in flight.
    #[must_use]
    pub fn renamed(&self) -> Option<&str> {
        self.renamed.as_deref()
    }
}

impl Drop for ProgressRoute {
    fn drop(&mut self) {
        let mut routes = lock(&self.routes);
        if let Some((_, holders)) = routes.get_mut(&self.token) {
            *holders -= 1;
            if *holders == 0 {
                routes.remove(&self.token);
            }
        }
    }
}

/// The writer task: writes each outgoing message to `sink` in order, until the connection
/// is closed (by [`Peer::close`] or every sender gone) or the sink fails.
fn spawn_writer<K>(
    mut sink: K,
    mut outgoing_rx: tokio::sync::mpsc::UnboundedReceiver<ForWriter>,
    queue: Arc<WriteQueue>,
) where
    K: futures_util::Sink<String> + Send + Unpin + 'static,
{
    tokio::spawn(async move {
        while let Some(msg) = outgoing_rx.recv().await {
            queue.written(&msg);
            match msg {
                ForWriter::Message(m) => {
                    if sink.send(m).await.is_err() {
                        break;
                    }
                }
                ForWriter::Close => break,
            }
        }
        // Dropping the sink closes the pipe: a stdio server reads EOF and exits.
        let _ = sink.close().await;
    });
}

/// The reader task's share of a [`Peer`]: where each message the peer sends goes.
struct ReaderTask {
    waiters: Arc<Waiters>,
    name: Arc<str>,
    dropped: Arc<AtomicU64>,
    routes: ProgressRoutes,
    asking: Arc<Asking>,
    notifications: Arc<Mutex<Option<NotificationSink>>>,
    inbound: InboundSender,
    bad_frames: Option<mpsc::Sender<Bad>>,
}

impl ReaderTask {
    /// Reads `frames` until the connection ends; returns why it ended.
    async fn read<F>(&self, mut frames: F) -> String
    where
        F: futures_util::Stream<Item = Result<wire::Frame, wire::Hangup>> + Unpin,
    {
        loop {
            let flow = match frames.next().await {
                None => break "closed its output".to_owned(),
                Some(Err(wire::Hangup(why))) => break why,
                Some(Ok(Err(bad))) => self.bad_frame(bad).await,
                Some(Ok(Ok(message))) => match message.kind() {
                    Kind::Response { id } => {
                        let waiter = id
                            .parse::<u64>()
                            .ok()
                            .and_then(|id| self.waiters.answered(id));
                        if let Some(waiter) = waiter {
                            let _ = waiter.to.send(outcome(&self.name, message));
                        }
                        ControlFlow::Continue(())
                    }
                    Kind::Invalid if self.bad_frames.is_none() => {
                        tracing::warn!(
                            target: PROXY,
                            server = &*self.name,
                            "ignored a message that is not JSON-RPC"
                        );
                        ControlFlow::Continue(())
                    }
                    Kind::Notification {
                        method: "notifications/progress",
                    } if routed(&self.routes, &message) => ControlFlow::Continue(()),
                    Kind::Notification { method } => {
                        let routed = self.route_notification(&message);
                        if method == "notifications/cancelled" {
                            self.withdrawn(&message);
                        }
                        if routed && !QUEUED_WHEN_ROUTED.contains(&method) {
                            ControlFlow::Continue(())
                        } else {
                            self.queue_notification(message)
                        }
                    }
                    _ => self.queue_request(message).await,
                },
            };
            if let ControlFlow::Break(why) = flow {
                break why;
            }
        }
    }

    /// A line that is not a message: to `bad_frames` when given, else it fails the request
    /// whose id it shows.
    async fn bad_frame(&self, bad: Bad) -> ControlFlow<String> {
        match &self.bad_frames {
            // Waits for room: a peer sending garbage is slowed, not buffered.
            Some(tx) => {
                if tx.send(bad).await.is_err() {
                    return ControlFlow::Break("stopped".to_owned());
                }
            }
            None => fail_waiter(&self.name, &self.waiters, &bad),
        }
        ControlFlow::Continue(())
    }

    /// A notification to the sink, if one is routed (see [`Peer::route_notifications`]).
    /// Whether a sink took it.
    fn route_notification(&self, message: &Message) -> bool {
        let Some(to) = lock(&self.notifications).clone() else {
            return false;
        };
        // Which request it came for, as the request's replies are read.
        let cause = self.waiters.calls().cause_of(message, About::Log);
        to(&self.name, message, cause);
        true
    }

    /// A `notifications/cancelled`: the peer withdrew a question, it no longer waits for it.
    fn withdrawn(&self, message: &Message) {
        let entries = message.params().and_then(raw::entries);
        let id = entries
            .as_deref()
            .and_then(|e| raw::get(e, "requestId"))
            .map(|id| id.to_owned());
        if let Some(id) = id {
            self.asking.settled(&id);
        }
    }
    /// A notification to the inbound queue, dropped (and counted) when the queue is full (by
    /// count or by bytes: [`super::inbound`]).
    /// A notification to the inbound queue, dropped (and counted) when the queue is full.
    fn queue_notification(&self, message: Message) -> ControlFlow<String> {
        match self.inbound.try_send(message) {
            Ok(()) => {}
            Err(NotQueued::Full) => {
                let n = self.dropped.fetch_add(1, Ordering::Relaxed) + 1;
                if n.is_power_of_two() {
                    tracing::warn!(
                        target: PROXY,
                        server = &*self.name,
                        "{n} notifications dropped: not read fast enough"
                    );
                }
            }
            Err(NotQueued::Closed) => {
                return ControlFlow::Break("stopped".to_owned());
            }
        }
        ControlFlow::Continue(())
    }

    /// A request (or, with `bad_frames`, a message that is not JSON-RPC) to the inbound
    /// queue, waiting for room.
    async fn queue_request(&self, message: Message) -> ControlFlow<String> {
        if let Kind::Request { id, .. } = message.kind() {
            // Which request it came for: told now, in order with the replies, not when it is
            // handled.
            let cause = self.waiters.calls().cause_of(&message, About::Question);
            self.asking.asked(id, cause);
        }
        if self.inbound.send(message).await.is_err() {
            return ControlFlow::Break("stopped".to_owned());
        }
        ControlFlow::Continue(())
    }

    /// The connection closed for `reason`: every request still waiting fails with it.
    fn fail_waiting(&self, reason: &str) {
        let waiting: Vec<Waiter> = {
            let mut calls = self.waiters.calls();
            calls.given_up.clear();
            calls.waiting.drain().map(|(_, w)| w).collect()
        };
        self.waiters.fewer.notify_waiters();
        for waiter in waiting {
            let _ = waiter.to.send(Err(CallError::Closed {
                server: self.name.to_string(),
                reason: reason.to_owned(),
            }));
        }
    }
}

/// A line from a server that is not a message: the request it answers (by the id its first
/// bytes show) fails at once, saying why, instead of waiting out its timeout.
fn fail_waiter(server: &str, waiters: &Waiters, bad: &Bad) {
    let waiter = bad
        .id()
        .and_then(|id| id.parse::<u64>().ok())
        .and_then(|id| waiters.answered(id));
    match waiter {
        Some(waiter) => {
            let method = waiter.method;
            tracing::warn!(target: PROXY, server, "its reply to {method} was {bad}");
            let _ = waiter.to.send(Err(CallError::BadReply {
                server: server.to_owned(),
                method,
                why: bad.to_string(),
            }));
        }
        None => tracing::warn!(target: PROXY, server, "ignored {bad}"),
    }
}

/// A request being waited for: when dropped before its answer came (the caller stopped
/// waiting), it forgets the request and tells the peer it may stop working.
struct WaitGuard<'p> {
    peer: &'p Peer,
    id: u64,
    done: bool,
    /// How long the peer may still work on it once given up.
    linger: Duration,
    /// Whether the peer is told `notifications/cancelled` when it is given up.
    cancel: bool,
}

impl Drop for WaitGuard<'_> {
    fn drop(&mut self) {
        let forgotten = self.peer.waiters.forget(self.id, !self.done, self.linger);
        if forgotten && !self.done && self.cancel {
            let params = format!(
                r#"{{"requestId":{},"reason":"the proxy stopped waiting"}}"#,
                self.id
            );
            let _ = self
                .peer
                .outgoing
                .try_send(wire::notification("notifications/cancelled", Some(&params)));
        }
    }
}

/// A peer's response as the result it is, or the error it says.
pub(crate) fn outcome(server: &str, message: Message) -> Result<Message, CallError> {
    if message.result().is_some() {
        return Ok(message);
    }
    // Read as text: `data` is passed on as sent (without whitespace), key order and digits
    // included.
    let error = message.error().and_then(raw::entries).unwrap_or_default();
    Err(CallError::Remote {
        server: server.to_owned(),
        code: raw::get(&error, "code")
            .and_then(|c| serde_json::from_str::<i64>(c).ok())
            .unwrap_or(wire::code::INTERNAL_ERROR),
        message: raw::get(&error, "message")
            .and_then(raw::string)
            .unwrap_or_else(|| "error without a message".to_owned()),
        data: raw::get(&error, "data").map(crate::mcp::json_text::minify),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::proxy::transport::inbound;

    fn pair() -> (Peer, Peer, inbound::Inbound) {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (cr, cw) = tokio::io::split(client);
        let (sr, sw) = tokio::io::split(server);
        let (tx, _rx) = inbound::queue();
        let peer = Peer::start("s", cr, cw, tx, None);
        let (stx, srx) = inbound::queue();
        let other = Peer::start("c", sr, sw, stx, None);
        (peer, other, srx)
    }

    /// A call's timeout that runs out just as the peer's question is answered (the answer's
    /// signal and the timeout at once: a person who answers in a whole number of timeouts)
    /// still runs from the answer.
    #[test]
    fn a_question_answered_as_the_timeout_runs_out_still_holds_the_call() {
        let asking = Asking::default();
        asking.holds.store(true, Ordering::Relaxed);
        let timeout = Duration::from_secs(1);
        let t0 = tokio::time::Instant::now();
        assert_eq!(asking.holds_until(t0, timeout), None, "never asked");
        asking.asked("7", Cause::Unknown { in_flight: 1 });
        assert_eq!(asking.holds_until(t0, timeout), Some(t0 + timeout), "open");
        asking.settled("7");
        let answered = (*lock(&asking.last_answer)).unwrap();
        let now = answered + Duration::from_millis(500);
        assert_eq!(asking.holds_until(now, timeout), Some(answered + timeout));
        assert_eq!(
            asking.holds_until(answered + timeout, timeout),
            None,
            "past it"
        );
    }

    #[tokio::test]
    async fn a_token_another_request_gave_is_not_shared_and_its_progress_comes_back_as_given() {
        let (peer, _other, _srx) = pair();
        type Heard = Arc<Mutex<Vec<String>>>;
        let heard = |into: &Heard| -> ProgressSink {
            let into = into.clone();
            Arc::new(move |text: &str| lock(&into).push(text.to_owned()))
        };
        let (a, b) = (Heard::default(), Heard::default());
        let first = peer.route_progress("1".to_owned(), heard(&a));
        let second = peer.route_progress("1".to_owned(), heard(&b));
        assert_eq!(first.renamed(), None);
        let own = second.renamed().expect("renamed").to_owned();
        let progress = |token: &str| {
            Message::parse(format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{token},"progress":1}}}}"#
            ))
            .unwrap()
        };
        assert!(routed(&peer.routes, &progress("1")));
        assert!(routed(&peer.routes, &progress(&own)));
        assert_eq!(lock(&a).len(), 1);
        assert_eq!(
            *lock(&b),
            [
                r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#
            ]
        );
        drop((first, second));
        assert!(!routed(&peer.routes, &progress("1")));
    }

    #[tokio::test]
    async fn matches_responses_and_times_out() {
        let (peer, other, mut srx) = pair();
        // The far side answers "echo" requests only.
        tokio::spawn(async move {
            while let Some(m) = srx.recv().await {
                if let Kind::Request { id, method: "echo" } = m.kind() {
                    other.send(wire::response(id, m.params().unwrap())).await;
                }
            }
        });
        let params = r#"{"a": 1234567890123456789012}"#;
        let r = peer
            .request("echo", Some(params), Duration::from_secs(5))
            .await
            .unwrap();
        assert_eq!(r.result(), Some(params));
        let e = peer
            .request("slow", None, Duration::from_millis(50))
            .await
            .unwrap_err();
        assert!(matches!(e, CallError::Timeout { .. }), "{e}");
        assert!(peer.waiters.calls().waiting.is_empty());
    }

    #[tokio::test]
    async fn a_reply_that_cannot_be_read_fails_its_request_at_once() {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (cr, cw) = tokio::io::split(client);
        let (tx, _rx) = inbound::queue();
        let peer = Peer::start("s", cr, cw, tx, None);
        let (mut sr, mut sw) = tokio::io::split(server);
        tokio::spawn(async move {
            use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
            let mut lines = BufReader::new(&mut sr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let id = Message::parse(line).unwrap().id().unwrap().to_owned();
                let reply =
                    format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"x\":NaN}}}}\n");
                sw.write_all(reply.as_bytes()).await.unwrap();
            }
        });
        let started = std::time::Instant::now();
        let e = peer
            .request("tools/call", None, Duration::from_secs(30))
            .await
            .unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(10));
        assert!(matches!(e, CallError::BadReply { .. }), "{e}");
        assert!(e.to_string().contains("not JSON"), "{e}");
    }

    #[tokio::test]
    async fn closing_fails_what_is_pending() {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (cr, cw) = tokio::io::split(client);
        let (tx, _rx) = inbound::queue();
        let peer = Peer::start("s", cr, cw, tx, None);
        let p2 = peer.clone();
        let call =
            tokio::spawn(async move { p2.request("x", None, Duration::from_secs(30)).await });
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(server);
        let e = call.await.unwrap().unwrap_err();
        assert!(matches!(e, CallError::Closed { .. }), "{e}");
        assert!(peer.closed().is_some());
    }

    #[tokio::test]
    async fn a_call_waits_while_its_peer_waits_for_an_answer_of_ours() {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (cr, cw) = tokio::io::split(client);
        let (tx, mut rx) = inbound::queue();
        let peer = Peer::start("s", cr, cw, tx, None);
        peer.hold_while_asking();
        let (mut sr, mut sw) = tokio::io::split(server);
        // The far side asks a question at each call, and answers the call once answered.
        tokio::spawn(async move {
            use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
            let mut lines = BufReader::new(&mut sr).lines();
            let mut call = None;
            while let Ok(Some(line)) = lines.next_line().await {
                let message = Message::parse(line).unwrap();
                let reply = match message.kind() {
                    Kind::Request { id, .. } => {
                        call = Some(id.to_owned());
                        r#"{"jsonrpc":"2.0","id":"q1","method":"elicitation/create"}"#.to_owned()
                    }
                    Kind::Response { .. } => wire::response(call.as_deref().unwrap(), "{}"),
                    _ => continue,
                };
                sw.write_all(format!("{reply}\n").as_bytes()).await.unwrap();
            }
        });
        let answering = peer.clone();
        tokio::spawn(async move {
            while let Some(question) = rx.recv().await {
                // A person takes four timeouts to answer.
                tokio::time::sleep(Duration::from_millis(400)).await;
                let id = question.id().unwrap().to_owned();
                answering.send(wire::response(&id, "{}")).await;
            }
        });
        let r = peer
            .request("tools/call", None, Duration::from_millis(100))
            .await;
        assert!(r.is_ok(), "{r:?}");
        assert!(!peer.asking.is_waiting());
        // Never longer than MAX_EXTENSIONS timeouts.
        let started = std::time::Instant::now();
        let (tx, _unanswered) = inbound::queue();
        let (client, server) = tokio::io::duplex(1 << 16);
        let (cr, cw) = tokio::io::split(client);
        let peer = Peer::start("s", cr, cw, tx, None);
        peer.hold_while_asking();
        let (_sr, mut sw) = tokio::io::split(server);
        use tokio::io::AsyncWriteExt;
        let question = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"roots/list\"}\n";
        sw.write_all(question.as_bytes()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
        let e = peer
            .request("tools/call", None, Duration::from_millis(50))
            .await
            .unwrap_err();
        assert!(matches!(e, CallError::Timeout { .. }), "{e}");
        let took = started.elapsed();
        assert!(took >= Duration::from_millis(450), "{took:?}");
        assert!(took < Duration::from_secs(3), "{took:?}");
    }

    /// A peer that holds its calls while asked, the server's ends of its connection (lines
    /// it was sent, and its writer), its inbound queue, and a `tools/call` made on its behalf.
    type AskedPeer = (
        Peer,
        tokio::io::BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>,
        tokio::io::WriteHalf<tokio::io::DuplexStream>,
        inbound::Inbound,
    );

    fn asked_peer() -> AskedPeer {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (cr, cw) = tokio::io::split(client);
        let (tx, rx) = inbound::queue();
        let peer = Peer::start("s", cr, cw, tx, None);
        peer.hold_while_asking();
        let (sr, sw) = tokio::io::split(server);
        (peer, tokio::io::BufReader::new(sr), sw, rx)
    }

    fn call_for(peer: &Peer, behalf: Behalf) -> tokio::task::JoinHandle<()> {
        let peer = peer.clone();
        tokio::spawn(BEHALF.scope(behalf, async move {
            let _ = peer
                .request("tools/call", None, Duration::from_secs(30))
                .await;
        }))
    }

    #[tokio::test]
    async fn a_question_is_a_request_s_only_when_nothing_else_is_in_flight() {
        let (peer, mut lines, mut sw, mut rx) = asked_peer();
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
        let mut line = String::new();
        let call = |behalf: Behalf| call_for(&peer, behalf);
        let mut ask = async |id: &str| {
            let question =
                format!("{{\"jsonrpc\":\"2.0\",\"id\":\"{id}\",\"method\":\"roots/list\"}}\n");
            sw.write_all(question.as_bytes()).await.unwrap();
            let asked = rx.recv().await.unwrap();
            peer.cause_of(asked.id().unwrap())
        };
        // Two clients' requests.
        let (a, b) = (
            Behalf::new(true, ClientId::new()),
            Behalf::new(false, ClientId::new()),
        );
        let first = call(a);
        lines.read_line(&mut line).await.unwrap();
        assert_eq!(ask("q1").await, Cause::Request(a.tag));
        let second = call(b);
        line.clear();
        lines.read_line(&mut line).await.unwrap();
        assert_eq!(ask("q2").await, Cause::Unknown { in_flight: 2 });
        // Given up on, a request may still be the peer's reason to ask, for a while.
        first.abort();
        let _ = first.await;
        assert_eq!(ask("q3").await, Cause::Unknown { in_flight: 2 });
        second.abort();
        let _ = second.await;
        // One that may be asked waits while requests of others may still be talked about
        // (given up on: for their timeout), so that what the peer asks then is not told its.
        let third = call(Behalf::new(true, ClientId::new()));
        for _ in 0..2 {
            // The two cancellations.
            line.clear();
            lines.read_line(&mut line).await.unwrap();
            assert!(line.contains("notifications/cancelled"), "{line}");
        }
        line.clear();
        let started = tokio::time::timeout(Duration::from_millis(500), lines.read_line(&mut line));
        assert!(started.await.is_err(), "started beside others: {line}");
        third.abort();
    }

    /// A peer on frames the test hands it, as the HTTP transport does (its questions told
    /// which request's stream they came on): the peer, where the test sends frames, what the
    /// peer writes, and the peer's inbound queue.
    #[cfg(feature = "mcp-http")]
    fn streamed_peer() -> (
        Peer,
        mpsc::Sender<Result<wire::Frame, wire::Hangup>>,
        mpsc::Receiver<String>,
        inbound::Inbound,
    ) {
        let (frames_tx, frames_rx) = mpsc::channel::<Result<wire::Frame, wire::Hangup>>(8);
        let frames = futures_util::stream::unfold(frames_rx, |mut rx| async move {
            rx.recv().await.map(|frame| (frame, rx))
        });
        let (out_tx, out_rx) = mpsc::channel::<String>(8);
        let (tx, rx) = inbound::queue();
        let sink = tokio_util::sync::PollSender::new(out_tx);
        let peer = Peer::start_with("s", Box::pin(frames), sink, tx, None);
        peer.hold_while_asking();
        peer.streams_tell_requests();
        (peer, frames_tx, out_rx, rx)
    }

    /// Over a transport that says on which request's answer stream a question came
    /// (Streamable HTTP), the question is that request's though another client's is in
    /// flight, and a call that may be asked does not wait to be alone; a question on no
    /// request's stream (a GET stream) is placed as over stdio: nobody's, here.
    #[tokio::test]
    #[cfg(feature = "mcp-http")]
    async fn a_question_on_a_request_s_answer_stream_is_that_request_s() {
        let (peer, frames_tx, mut out_rx, mut rx) = streamed_peer();
        let (a, b) = (
            Behalf::new(true, ClientId::new()),
            Behalf::new(true, ClientId::new()),
        );
        let _first = call_for(&peer, a);
        let sent = out_rx.recv().await.unwrap();
        let a_id = Message::parse(sent).unwrap().id().unwrap().to_owned();
        // B's call goes out while A's is in flight (without the streams it would wait until
        // A's is answered, or its timeout).
        let _second = call_for(&peer, b);
        let b_sent = tokio::time::timeout(Duration::from_secs(10), out_rx.recv()).await;
        assert!(b_sent.is_ok_and(|m| m.is_some()), "B's call waited for A's");
        let mut ask = async |id: &str, on: Option<&str>| {
            let text = format!("{{\"jsonrpc\":\"2.0\",\"id\":\"{id}\",\"method\":\"roots/list\"}}");
            let mut question = Message::parse(text).unwrap();
            if let Some(on) = on {
                question.came_answering(on);
            }
            frames_tx.send(Ok(Ok(question))).await.unwrap();
            let asked = rx.recv().await.unwrap();
            peer.cause_of(asked.id().unwrap())
        };
        assert_eq!(ask("q1", Some(&a_id)).await, Cause::Request(a.tag));
        // On no request's stream: two clients' requests in flight, nobody's to be told.
        assert_eq!(ask("q2", None).await, Cause::Unknown { in_flight: 2 });
        // On the stream of a request the proxy never made: nobody's.
        assert_eq!(
            ask("q3", Some("999")).await,
            Cause::Unknown { in_flight: 0 }
        );
    }

    /// Two questions under one id, on the answer streams of two clients' requests, are
    /// neither's: the second does not make the first (not handled yet) the other's, nor is
    /// it the first's.
    #[tokio::test]
    #[cfg(feature = "mcp-http")]
    async fn two_questions_under_one_id_on_two_requests_streams_are_neither_s() {
        let (peer, frames_tx, mut out_rx, mut rx) = streamed_peer();
        let (a, b) = (
            Behalf::new(true, ClientId::new()),
            Behalf::new(true, ClientId::new()),
        );
        let _first = call_for(&peer, a);
        let a_id = Message::parse(out_rx.recv().await.unwrap()).unwrap();
        let a_id = a_id.id().unwrap().to_owned();
        let _second = call_for(&peer, b);
        let b_id = Message::parse(out_rx.recv().await.unwrap()).unwrap();
        let b_id = b_id.id().unwrap().to_owned();
        for on in [&a_id, &b_id] {
            let text = r#"{"jsonrpc":"2.0","id":4,"method":"roots/list"}"#.to_owned();
            let mut question = Message::parse(text).unwrap();
            question.came_answering(on);
            frames_tx.send(Ok(Ok(question))).await.unwrap();
            rx.recv().await.unwrap();
        }
        assert_eq!(peer.cause_of("4"), Cause::Unknown { in_flight: 2 });
    }

    /// Requests A and B in flight, B answered; then a log message and a question: (the log
    /// message's cause, the question's).
    async fn causes_after_an_answer(a: Behalf, b: Behalf) -> (Cause, Cause) {
        let (peer, mut lines, mut sw, mut rx) = asked_peer();
        let causes = Arc::new(Mutex::new(Vec::new()));
        let logged = causes.clone();
        peer.route_notifications(Arc::new(move |_: &str, _: &Message, cause: Cause| {
            lock(&logged).push(cause);
        }));
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
        let _first = call_for(&peer, a);
        let mut line = String::new();
        lines.read_line(&mut line).await.unwrap();
        let second = call_for(&peer, b);
        line.clear();
        lines.read_line(&mut line).await.unwrap();
        answer(&mut sw, &line).await;
        let _ = second.await;
        let log = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"done"}}"#;
        sw.write_all(format!("{log}\n").as_bytes()).await.unwrap();
        sw.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":\"q\",\"method\":\"roots/list\"}\n")
            .await
            .unwrap();
        let mut asked = rx.recv().await.unwrap();
        while asked.id().is_none() {
            asked = rx.recv().await.unwrap();
        }
        let question = peer.cause_of(asked.id().unwrap());
        let log = lock(&causes)[0];
        (log, question)
    }

    #[tokio::test]
    async fn a_request_that_shared_the_peer_with_another_client_s_is_never_told_the_cause() {
        let (a, b) = (
            Behalf::new(false, ClientId::new()),
            Behalf::new(false, ClientId::new()),
        );
        // B's request is answered: A's is the only one left, but B's server may still talk
        // about B's (a log line, or a question it asks as it goes on), and A's shared the
        // peer with it.
        let (log, question) = causes_after_an_answer(a, b).await;
        assert!(matches!(log, Cause::Unknown { in_flight: 2.. }), "{log:?}");
        assert!(
            matches!(question, Cause::Unknown { in_flight: 2.. }),
            "{question:?}"
        );
    }

    #[tokio::test]
    async fn after_its_own_client_s_answer_a_question_is_the_call_in_flight_s_and_a_log_the_client_s()
     {
        let client = ClientId::new();
        let (a, b) = (Behalf::new(false, client), Behalf::new(false, client));
        let (log, question) = causes_after_an_answer(a, b).await;
        assert_eq!(question, Cause::Request(a.tag));
        assert_eq!(
            log,
            Cause::Client {
                client,
                in_flight: 2
            }
        );
    }

    /// Answers the request on `line` with an empty result.
    async fn answer(sw: &mut tokio::io::WriteHalf<tokio::io::DuplexStream>, line: &str) {
        use tokio::io::AsyncWriteExt;
        let id = serde_json::from_str::<serde_json::Value>(line).unwrap()["id"].clone();
        let reply = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}}}}\n");
        sw.write_all(reply.as_bytes()).await.unwrap();
    }

    /// A call that may be asked waits while another request is in flight, or another
    /// client's was just answered: never for its own client's answered calls.
    #[tokio::test]
    async fn a_call_that_may_be_asked_waits_only_while_a_question_could_be_another_s() {
        let (peer, mut lines, mut sw, _rx) = asked_peer();
        use tokio::io::AsyncBufReadExt;
        let call = |behalf: Behalf| call_for(&peer, behalf);
        let (one, other) = (ClientId::new(), ClientId::new());
        let mut line = String::new();
        // A client's sequential calls pay nothing for the one before.
        for _ in 0..3 {
            let started = std::time::Instant::now();
            let done = call(Behalf::new(true, one));
            line.clear();
            lines.read_line(&mut line).await.unwrap();
            assert!(started.elapsed() < Duration::from_millis(500), "waited");
            answer(&mut sw, &line).await;
            done.await.unwrap();
        }
        // Another client's call just answered holds it, for AFTER_REPLY.
        let started = std::time::Instant::now();
        let done = call(Behalf::new(true, other));
        line.clear();
        lines.read_line(&mut line).await.unwrap();
        assert!(
            started.elapsed() >= AFTER_REPLY / 2,
            "started beside one's answered call"
        );
        answer(&mut sw, &line).await;
        done.await.unwrap();
        // Any other call in flight holds it, its own client's too, until it is answered.
        let _first = call(Behalf::new(false, other));
        line.clear();
        lines.read_line(&mut line).await.unwrap();
        let first_line = line.clone();
        let _second = call(Behalf::new(true, other));
        line.clear();
        let started = tokio::time::timeout(Duration::from_millis(300), lines.read_line(&mut line));
        assert!(
            started.await.is_err(),
            "started beside a call in flight: {line}"
        );
        answer(&mut sw, &first_line).await;
        let started = std::time::Instant::now();
        lines.read_line(&mut line).await.unwrap();
        assert!(line.contains("tools/call"), "{line}");
        assert!(
            started.elapsed() < Duration::from_millis(500),
            "waited after the answer"
        );
    }

    #[tokio::test]
    async fn the_proxy_s_own_request_in_flight_makes_no_question_ambiguous() {
        let (peer, mut lines, mut sw, mut rx) = asked_peer();
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
        let mut line = String::new();
        // A listing of the proxy's own (no client request behind it), as after a list change.
        let listing = {
            let peer = peer.clone();
            tokio::spawn(async move {
                let _ = peer
                    .request("tools/list", None, Duration::from_secs(30))
                    .await;
            })
        };
        lines.read_line(&mut line).await.unwrap();
        let asker = Behalf::new(true, ClientId::new());
        let _call = call_for(&peer, asker);
        line.clear();
        let started = tokio::time::timeout(Duration::from_millis(500), lines.read_line(&mut line));
        assert!(started.await.is_ok(), "waited for the proxy's own listing");
        sw.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":\"q\",\"method\":\"roots/list\"}\n")
            .await
            .unwrap();
        let asked = rx.recv().await.unwrap();
        assert_eq!(
            peer.cause_of(asked.id().unwrap()),
            Cause::Request(asker.tag)
        );
        listing.abort();
    }

    #[tokio::test]
    async fn a_notification_flood_is_bounded() {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (cr, cw) = tokio::io::split(client);
        // Nobody reads the inbound queue.
        let (tx, _rx) = inbound::with_bounds(8, inbound::INBOUND_BYTES);
        let peer = Peer::start("s", cr, cw, tx, None);
        let (_sr, mut sw) = tokio::io::split(server);
        use tokio::io::AsyncWriteExt;
        let line = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n";
        for _ in 0..1000 {
            sw.write_all(line.as_bytes()).await.unwrap();
        }
        sw.flush().await.unwrap();
        for _ in 0..100 {
            if peer.dropped_notifications() == 992 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(peer.dropped_notifications(), 992);
    }

    #[tokio::test]
    async fn a_flood_of_large_log_messages_is_held_to_the_byte_bound() {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (cr, cw) = tokio::io::split(client);
        // Nobody reads the inbound queue: 8 of 1,024 places would hold 4 MiB.
        let (tx, _rx) = inbound::queue();
        let peer = Peer::start("s", cr, cw, tx, None);
        let (_sr, mut sw) = tokio::io::split(server);
        use tokio::io::AsyncWriteExt;
        let data = "x".repeat(512 << 10);
        let line = format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{\"level\":\"info\",\"data\":\"{data}\"}}}}\n"
        );
        for _ in 0..20 {
            sw.write_all(line.as_bytes()).await.unwrap();
        }
        sw.flush().await.unwrap();
        for _ in 0..200 {
            if peer.dropped_notifications() == 13 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        // Seven messages of a little over 512 KiB fit in 4 MiB; the other 13 are dropped.
        assert_eq!(peer.dropped_notifications(), 13);
    }
}
