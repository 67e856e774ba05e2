//! One HTTP session: its own [`Toolbox`] (its own server processes, started with this
//! client's capabilities) and its own stdio [`serve`] front, over an in-memory pipe. What the
//! front writes is routed to the HTTP responses waiting for it.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::{OwnedSemaphorePermit, mpsc};

use super::pipe::FrontPipe;

use crate::mcp::proxy::peer::{lock, token_key};
use crate::mcp::proxy::serve::Mode;
use crate::mcp::proxy::toolbox::Toolbox;
use crate::mcp::proxy::wire::{Kind, Message};

/// Messages kept for a client that has no stream open for them yet (a server's request or
/// notification that came while no request and no GET stream was open); beyond it the oldest
/// is dropped.
pub(super) const BACKLOG: usize = 1024;

/// Messages queued for one open response stream before the session waits for its client.
const STREAM_QUEUE: usize = 256;

/// A message for an open response, and whether it ends that response.
#[derive(Debug)]
pub(super) struct Out {
    pub(super) text: String,
    pub(super) last: bool,
}

/// A POST waiting for its request's response, and for what the servers send meanwhile.
struct Pending {
    to: mpsc::Sender<Out>,
    /// The `progressToken` of the request (as [`token_key`]), if it gave one.
    progress: Option<String>,
    /// When it was sent: server requests with nowhere else to go ride on the newest.
    since: Instant,
}

/// One client's session: `Mcp-Session-Id` → this.
pub(super) struct Session {
    pub(super) id: String,
    toolbox: Arc<Toolbox>,
    /// Its front.
    pipe: FrontPipe,
    pending: Mutex<HashMap<String, Pending>>,
    /// The GET stream (§ "Listening for Messages from the Server"), when one is open.
    standalone: Mutex<Option<mpsc::Sender<Out>>>,
    backlog: Mutex<VecDeque<String>>,
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
            pending: Mutex::default(),
            standalone: Mutex::default(),
            backlog: Mutex::default(),
            last_used: Mutex::new(Instant::now()),
            closed: AtomicBool::new(false),
            _slot: slot,
        });
        session.pipe.run(
            ends,
            (toolbox, mode, false),
            Arc::downgrade(&session),
            |session: Arc<Session>, text| async move { session.route(text).await },
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
        !self.streaming()
            && lock(&self.pending).is_empty()
            && lock(&self.last_used).elapsed() >= idle
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
    /// what the servers send meanwhile, come on the returned channel. `None` when a request
    /// with that id is already waiting (JSON-RPC ids are unique per session).
    pub(super) fn expect(&self, id: &str, progress: Option<&str>) -> Option<mpsc::Receiver<Out>> {
        let key = token_key(id);
        // Locks: `backlog` first, then `standalone` or `pending`, never those two at once;
        // holding `backlog` while a stream is registered means `route` either sees the new
        // stream or has put its message in the backlog this drains.
        let mut backlog = lock(&self.backlog);
        let streaming = self.streaming();
        let mut pending = lock(&self.pending);
        if pending.contains_key(&key) {
            return None;
        }
        let (to, from) = mpsc::channel(STREAM_QUEUE);
        // With no GET stream to carry them, what waits for the client goes on this request's.
        if !streaming {
            drain(&mut backlog, &to);
        }
        pending.insert(
            key,
            Pending {
                to,
                progress: progress.map(token_key),
                since: Instant::now(),
            },
        );
        Some(from)
    }

    /// Forgets a request's POST (its client went away before the response came).
    pub(super) fn forget(&self, id: &str) {
        lock(&self.pending).remove(&token_key(id));
    }

    fn streaming(&self) -> bool {
        lock(&self.standalone)
            .as_ref()
            .is_some_and(|s| !s.is_closed())
    }

    /// Opens the GET stream; `None` when one is open already (the caller answers 409).
    pub(super) fn listen(&self) -> Option<mpsc::Receiver<Out>> {
        let mut backlog = lock(&self.backlog);
        let mut standalone = lock(&self.standalone);
        if standalone.as_ref().is_some_and(|s| !s.is_closed()) {
            return None;
        }
        let (to, from) = mpsc::channel(STREAM_QUEUE);
        drain(&mut backlog, &to);
        *standalone = Some(to);
        self.touch();
        Some(from)
    }

    /// Where one line the front wrote goes: a response to the POST of its request; progress
    /// to the stream of the request that asked for it; anything else (a server's request,
    /// log message, list_changed…) to the GET stream, else to the newest request's stream,
    /// else into the backlog until a stream opens (2025-11-25 transports: "The server MAY
    /// send JSON-RPC requests and notifications" on either stream; each message on one).
    async fn route(&self, text: String) {
        let Ok(message) = Message::parse(text.clone()) else {
            return;
        };
        match message.kind() {
            Kind::Response { id } => {
                let waiting = lock(&self.pending).remove(&token_key(id));
                if let Some(waiting) = waiting {
                    let _ = waiting.to.send(Out { text, last: true }).await;
                }
                return;
            }
            Kind::Notification {
                method: "notifications/progress",
            } => {
                let token = message.progress_token().map(|t| token_key(&t));
                let to = token.and_then(|token| {
                    lock(&self.pending)
                        .values()
                        .find(|p| p.progress.as_deref() == Some(token.as_str()))
                        .map(|p| p.to.clone())
                });
                // Advisory, like the stdio front's: dropped when the client reads slowly.
                if let Some(to) = to {
                    let _ = to.try_send(Out { text, last: false });
                    return;
                }
            }
            _ => {}
        }
        let to = {
            let mut backlog = lock(&self.backlog);
            let standalone = lock(&self.standalone)
                .as_ref()
                .filter(|s| !s.is_closed())
                .cloned();
            let to = standalone.or_else(|| {
                lock(&self.pending)
                    .values()
                    .filter(|p| !p.to.is_closed())
                    .max_by_key(|p| p.since)
                    .map(|p| p.to.clone())
            });
            match to {
                Some(to) => to,
                None => return keep(&mut backlog, text),
            }
        };
        // The stream may have closed since: then the message waits for the next one.
        if let Err(mpsc::error::SendError(out)) = to.send(Out { text, last: false }).await {
            keep(&mut lock(&self.backlog), out.text);
        }
    }

    /// Ends the session: the front's input closes, open responses end, the servers are shut
    /// down cleanly (each given its time to exit, then stopped). Idempotent.
    pub(super) async fn close(&self) {
        if self.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        self.pipe.close_input().await;
        lock(&self.pending).clear();
        lock(&self.standalone).take();
        self.toolbox.shutdown().await;
        self.pipe.abort();
    }
}

/// Keeps a message for the next stream, the oldest dropped past [`BACKLOG`].
fn keep(backlog: &mut VecDeque<String>, text: String) {
    if backlog.len() >= BACKLOG {
        backlog.pop_front();
    }
    backlog.push_back(text);
}

/// Moves what waits in the backlog onto a new stream, as far as its queue takes.
fn drain(backlog: &mut VecDeque<String>, to: &mpsc::Sender<Out>) {
    while let Some(text) = backlog.pop_front() {
        if let Err(mpsc::error::TrySendError::Full(out) | mpsc::error::TrySendError::Closed(out)) =
            to.try_send(Out { text, last: false })
        {
            backlog.push_front(out.text);
            break;
        }
    }
}
