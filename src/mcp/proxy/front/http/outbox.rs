//! A session's queue for one open response stream (a POST's, or the GET stream): filled by
//! the session's router without ever waiting, emptied by the stream's body as its client
//! reads. What it holds counts against the session's [`SESSION_BYTES`](super::session::SESSION_BYTES),
//! so a client that stops reading costs memory up to that bound, never a blocked router.

use std::collections::VecDeque;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

use super::stream::{Messages, Out};
use crate::mcp::proxy::sync::lock;

/// The sending side, kept by the session.
pub(super) struct Outbox {
    state: Mutex<Queued>,
    ready: Notify,
    /// The session's count of bytes held for its client (responses are not counted: each
    /// POST waits for exactly one).
    held: Arc<AtomicUsize>,
}

#[derive(Default)]
struct Queued {
    queue: VecDeque<Out>,
    /// Bytes of the queue's messages that are not responses.
    bytes: usize,
    /// No more messages: the reader gets what is queued, then the end.
    closed: bool,
    /// The reader is gone (its client went away).
    gone: bool,
}

/// The reading side, a stream body's source; dropping it tells the session the stream is
/// gone.
pub(super) struct Inbox(Arc<Outbox>);

impl Outbox {
    pub(super) fn new(held: Arc<AtomicUsize>) -> (Arc<Outbox>, Inbox) {
        let outbox = Arc::new(Outbox {
            state: Mutex::default(),
            ready: Notify::new(),
            held,
        });
        (outbox.clone(), Inbox(outbox))
    }

    /// Queues a message; gives it back when the stream is closed or its reader gone.
    pub(super) fn push(&self, out: Out) -> Result<(), Out> {
        let mut state = lock(&self.state);
        if state.closed || state.gone {
            return Err(out);
        }
        if !out.last {
            self.held.fetch_add(out.text.len(), Ordering::Relaxed);
            state.bytes += out.text.len();
        }
        state.queue.push_back(out);
        drop(state);
        self.ready.notify_one();
        Ok(())
    }

    /// Whether messages pushed now can still reach a reader.
    pub(super) fn is_open(&self) -> bool {
        let state = lock(&self.state);
        !state.closed && !state.gone
    }

    /// Bytes of server messages queued, not read yet.
    pub(super) fn queued(&self) -> usize {
        lock(&self.state).bytes
    }

    /// Messages queued, not read yet.
    pub(super) fn len(&self) -> usize {
        lock(&self.state).queue.len()
    }

    /// Ends the stream now, and gives back what its reader has not taken (still counted as
    /// held: the caller keeps or drops it).
    pub(super) fn cut(&self) -> VecDeque<Out> {
        let mut state = lock(&self.state);
        state.closed = true;
        state.bytes = 0;
        let left = std::mem::take(&mut state.queue);
        drop(state);
        self.ready.notify_one();
        left
    }

    /// Ends the stream once its reader has taken what is queued.
    pub(super) fn close(&self) {
        lock(&self.state).closed = true;
        self.ready.notify_one();
    }
}

impl Inbox {
    /// The next message; `None` once the stream is closed and empty.
    pub(super) async fn recv(&mut self) -> Option<Out> {
        loop {
            // Registered before the check, so that a push between the two is not missed.
            let ready = self.0.ready.notified();
            {
                let mut state = lock(&self.0.state);
                if let Some(out) = state.queue.pop_front() {
                    if !out.last {
                        self.0.held.fetch_sub(out.text.len(), Ordering::Relaxed);
                        state.bytes -= out.text.len();
                    }
                    return Some(out);
                }
                if state.closed {
                    return None;
                }
            }
            ready.await;
        }
    }
}

impl Drop for Inbox {
    fn drop(&mut self) {
        lock(&self.0.state).gone = true;
    }
}

impl Messages for Inbox {
    fn next(&mut self) -> impl Future<Output = Option<Out>> + Send {
        self.recv()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(text: &str, last: bool) -> Out {
        Out {
            text: text.to_owned(),
            last,
        }
    }

    #[tokio::test]
    async fn what_is_queued_counts_until_read_and_a_cut_gives_it_back() {
        let held = Arc::new(AtomicUsize::new(0));
        let (outbox, mut inbox) = Outbox::new(held.clone());
        outbox.push(out("abc", false)).unwrap();
        outbox.push(out("de", false)).unwrap();
        outbox.push(out("response", true)).unwrap();
        // Responses are not counted: each POST waits for exactly one.
        assert_eq!((held.load(Ordering::Relaxed), outbox.queued()), (5, 5));
        assert_eq!(inbox.recv().await.unwrap().text, "abc");
        assert_eq!((held.load(Ordering::Relaxed), outbox.queued()), (2, 2));
        let left: Vec<String> = outbox.cut().into_iter().map(|o| o.text).collect();
        assert_eq!(left, ["de", "response"]);
        // What was cut stays counted until its new owner keeps or drops it.
        assert_eq!((held.load(Ordering::Relaxed), outbox.queued()), (2, 0));
        assert!(inbox.recv().await.is_none());
        assert!(!outbox.is_open());
        assert!(outbox.push(out("late", false)).is_err());
    }

    #[tokio::test]
    async fn a_closed_outbox_is_read_to_its_end_and_a_dropped_inbox_closes_it() {
        let (outbox, mut inbox) = Outbox::new(Arc::default());
        outbox.push(out("one", false)).unwrap();
        outbox.close();
        assert_eq!(inbox.recv().await.unwrap().text, "one");
        assert!(inbox.recv().await.is_none());
        let (outbox, inbox) = Outbox::new(Arc::default());
        assert!(outbox.is_open());
        drop(inbox);
        assert!(!outbox.is_open());
        assert!(outbox.push(out("nobody", false)).is_err());
    }
}
