//! One JSON-RPC connection (a server's stdio, or the client's): a writer task, a reader task,
//! and requests matched to their responses by id, each with a timeout.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value as Json, json};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::codec::{FramedRead, FramedWrite};

use super::error::CallError;
use super::log::log;
use super::wire::{self, Kind, Lines};

/// Messages waiting for the writer; when full, senders wait (back-pressure on a peer that
/// does not read).
const OUTGOING_QUEUE: usize = 256;

enum Out {
    Message(Json),
    Close,
}

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Result<Json, CallError>>>>>;

/// A JSON-RPC peer. Incoming requests and notifications go to the channel given to
/// [`Peer::start`]; responses complete the matching [`Peer::request`].
#[derive(Clone)]
pub struct Peer {
    name: Arc<str>,
    out: mpsc::Sender<Out>,
    pending: Pending,
    next_id: Arc<AtomicU64>,
    closed: watch::Receiver<Option<String>>,
}

impl std::fmt::Debug for Peer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Peer")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Peer {
    /// Starts the reader and writer tasks. `name` labels log lines and errors; frames that are
    /// not JSON are reported to `bad_frames` (the upstream side answers them with a parse
    /// error) or logged to stderr when it is `None`.
    pub fn start<R, W>(
        name: &str,
        reader: R,
        writer: W,
        inbound: mpsc::UnboundedSender<Json>,
        bad_frames: Option<mpsc::UnboundedSender<String>>,
    ) -> Peer
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let (out, mut out_rx) = mpsc::channel::<Out>(OUTGOING_QUEUE);
        let (closed_tx, closed) = watch::channel(None);
        let pending: Pending = Arc::default();
        let name: Arc<str> = Arc::from(name);

        let mut sink = FramedWrite::new(writer, Lines::default());
        tokio::spawn(async move {
            while let Some(msg) = out_rx.recv().await {
                match msg {
                    Out::Message(m) => {
                        if sink.send(m).await.is_err() {
                            break;
                        }
                    }
                    Out::Close => break,
                }
            }
            // Dropping the sink closes the pipe: a stdio server reads EOF and exits.
            let _ = sink.close().await;
        });

        let reader_pending = pending.clone();
        let reader_name = name.clone();
        tokio::spawn(async move {
            let mut frames = FramedRead::new(reader, Lines::default());
            let reason = loop {
                match frames.next().await {
                    None => break "closed its output".to_owned(),
                    Some(Err(e)) => break format!("read failed: {e}"),
                    Some(Ok(Err(bad))) => match &bad_frames {
                        Some(tx) => {
                            let _ = tx.send(bad);
                        }
                        None => log(
                            &reader_name,
                            &format!("ignored output that is not JSON-RPC: {bad}"),
                        ),
                    },
                    Some(Ok(Ok(message))) => match wire::kind(&message) {
                        Kind::Response { id } => {
                            let waiter =
                                id.as_u64().and_then(|id| lock(&reader_pending).remove(&id));
                            if let Some(waiter) = waiter {
                                let _ = waiter.send(outcome(&reader_name, message));
                            }
                        }
                        Kind::Invalid if bad_frames.is_none() => {
                            log(&reader_name, "ignored a message that is not JSON-RPC");
                        }
                        _ => {
                            if inbound.send(message).is_err() {
                                break "stopped".to_owned();
                            }
                        }
                    },
                }
            };
            let _ = closed_tx.send(Some(reason.clone()));
            for (_, waiter) in lock(&reader_pending).drain() {
                let _ = waiter.send(Err(CallError::Closed {
                    server: reader_name.to_string(),
                    reason: reason.clone(),
                }));
            }
        });

        Peer {
            name,
            out,
            pending,
            next_id: Arc::new(AtomicU64::new(1)),
            closed,
        }
    }

    /// The label given at start.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Why the connection closed, once it has.
    pub fn closed(&self) -> Option<String> {
        self.closed.borrow().clone()
    }

    /// Waits until the connection closes; returns why.
    pub async fn wait_closed(&self) -> String {
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

    /// Sends a message (a response or a notification).
    pub async fn send(&self, message: Json) {
        let _ = self.out.send(Out::Message(message)).await;
    }

    /// Closes the writing side (the peer reads end of input).
    pub async fn close(&self) {
        let _ = self.out.send(Out::Close).await;
    }

    /// Sends a request and waits at most `timeout` for its response. On timeout (or when the
    /// caller stops waiting) the peer is sent `notifications/cancelled`.
    ///
    /// # Errors
    /// The peer's error response, a timeout, or the connection closing first.
    pub async fn request(
        &self,
        method: &str,
        params: Option<Json>,
        timeout: Duration,
    ) -> Result<Json, CallError> {
        if let Some(reason) = self.closed() {
            return Err(CallError::Closed {
                server: self.name.to_string(),
                reason,
            });
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id, tx);
        // The reader may have closed (and drained `pending`) between the check and the insert.
        if let Some(reason) = self.closed() {
            lock(&self.pending).remove(&id);
            return Err(CallError::Closed {
                server: self.name.to_string(),
                reason,
            });
        }
        let mut guard = InFlight {
            peer: self,
            id,
            done: false,
        };
        self.send(wire::request(id, method, params)).await;
        let answer = tokio::time::timeout(timeout, rx).await;
        guard.done = answer.as_ref().is_ok_and(|r| r.is_ok());
        match answer {
            Ok(Ok(result)) => result,
            Ok(Err(_)) => Err(CallError::Closed {
                server: self.name.to_string(),
                reason: self.closed().unwrap_or_else(|| "stopped".to_owned()),
            }),
            Err(_) => Err(CallError::Timeout {
                server: self.name.to_string(),
                method: method.to_owned(),
                after: timeout,
            }),
        }
    }
}

/// Forgets a request whose caller stopped waiting, and tells the peer it may stop working.
struct InFlight<'p> {
    peer: &'p Peer,
    id: u64,
    done: bool,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if lock(&self.peer.pending).remove(&self.id).is_some() && !self.done {
            let _ = self.peer.out.try_send(Out::Message(wire::notification(
                "notifications/cancelled",
                Some(json!({"requestId": self.id, "reason": "the proxy stopped waiting"})),
            )));
        }
    }
}

fn outcome(server: &str, mut message: Json) -> Result<Json, CallError> {
    if let Some(result) = message.get_mut("result") {
        return Ok(result.take());
    }
    let error = message
        .get_mut("error")
        .map(Json::take)
        .unwrap_or(Json::Null);
    Err(CallError::Remote {
        server: server.to_owned(),
        code: error
            .get("code")
            .and_then(Json::as_i64)
            .unwrap_or(wire::code::INTERNAL_ERROR),
        message: error
            .get("message")
            .and_then(Json::as_str)
            .unwrap_or("error without a message")
            .to_owned(),
        data: error.get("data").cloned().map(Box::new),
    })
}

/// Locks, ignoring poisoning (the data stays consistent: every critical section is one map
/// operation).
pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn matches_responses_and_times_out() {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (cr, cw) = tokio::io::split(client);
        let (sr, sw) = tokio::io::split(server);
        let (tx, _rx) = mpsc::unbounded_channel();
        let peer = Peer::start("s", cr, cw, tx, None);
        let (stx, mut srx) = mpsc::unbounded_channel();
        let other = Peer::start("c", sr, sw, stx, None);
        // The far side answers "echo" requests only.
        tokio::spawn(async move {
            while let Some(m) = srx.recv().await {
                if let Kind::Request { id, method: "echo" } = wire::kind(&m) {
                    other.send(wire::response(id, m["params"].clone())).await;
                }
            }
        });
        let r = peer
            .request("echo", Some(json!({"a": 1})), Duration::from_secs(5))
            .await
            .unwrap();
        assert_eq!(r, json!({"a": 1}));
        let e = peer
            .request("slow", None, Duration::from_millis(50))
            .await
            .unwrap_err();
        assert!(matches!(e, CallError::Timeout { .. }), "{e}");
        assert!(lock(&peer.pending).is_empty());
    }

    #[tokio::test]
    async fn closing_fails_what_is_pending() {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (cr, cw) = tokio::io::split(client);
        let (tx, _rx) = mpsc::unbounded_channel();
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
}
