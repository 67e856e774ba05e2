//! A connection's outgoing queue: what waits for its writer, bounded by bytes. A burst of
//! small messages (a server's 600 log lines read in one go) fits whole, where a bound in
//! messages would drop most of it while the writer is still at its first; a peer that does
//! not read is held to [`OUTGOING_BYTES`]. Senders that may wait ([`WriteQueue::send`]) are slowed
//! down; advisory messages ([`WriteQueue::try_send`]) past the bound are dropped and counted.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::{Notify, mpsc};

use crate::mcp::proxy::sync::lock;

/// Bytes of messages a connection holds for its writer at most (one message always fits).
pub(crate) const OUTGOING_BYTES: usize = 4 << 20;

/// What the writer task is given: a message to write, or the end of the connection.
pub(crate) enum ForWriter {
    Message(String),
    Close,
}

/// The senders' side; the writer takes from the receiver [`WriteQueue::new`] gives, and calls
/// [`WriteQueue::written`] after each message.
pub(crate) struct WriteQueue {
    tx: mpsc::UnboundedSender<ForWriter>,
    /// Bytes queued and not written yet.
    bytes: Mutex<usize>,
    room: Notify,
    dropped: AtomicU64,
    bound: usize,
}

impl WriteQueue {
    pub(crate) fn new() -> (Arc<WriteQueue>, mpsc::UnboundedReceiver<ForWriter>) {
        WriteQueue::with_bound(OUTGOING_BYTES)
    }

    fn with_bound(bound: usize) -> (Arc<WriteQueue>, mpsc::UnboundedReceiver<ForWriter>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let queue = WriteQueue {
            tx,
            bytes: Mutex::new(0),
            room: Notify::new(),
            dropped: AtomicU64::new(0),
            bound,
        };
        (Arc::new(queue), rx)
    }

    /// Reserves room for `len` bytes if there is some.
    fn reserve(&self, len: usize) -> bool {
        let mut bytes = lock(&self.bytes);
        if *bytes > 0 && *bytes + len > self.bound {
            return false;
        }
        *bytes += len;
        true
    }

    /// Queues `outgoing`, waiting for room; `false` once the writer is gone.
    pub(crate) async fn send(&self, outgoing: ForWriter) -> bool {
        let len = size(&outgoing);
        loop {
            // Registered before the check, so that room made between the two is not missed.
            let room = self.room.notified();
            tokio::pin!(room);
            room.as_mut().enable();
            if self.tx.is_closed() {
                return false;
            }
            if self.reserve(len) {
                return self.tx.send(outgoing).is_ok();
            }
            room.await;
        }
    }

    /// Queues `message` if there is room; `false` when it was dropped (counted).
    pub(crate) fn try_send(&self, message: String) -> bool {
        if !self.reserve(message.len()) {
            self.dropped.fetch_add(1, Ordering::Relaxed);
            return false;
        }
        self.tx.send(ForWriter::Message(message)).is_ok()
    }

    /// The writer wrote (or gave up on) `outgoing`: its room is free again.
    pub(crate) fn written(&self, outgoing: &ForWriter) {
        let mut bytes = lock(&self.bytes);
        *bytes = bytes.saturating_sub(size(outgoing));
        drop(bytes);
        self.room.notify_waiters();
    }

    /// Messages [`try_send`](Self::try_send) dropped so far.
    pub(crate) fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

fn size(outgoing: &ForWriter) -> usize {
    match outgoing {
        ForWriter::Message(text) => text.len(),
        ForWriter::Close => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_burst_fits_by_bytes_and_what_overflows_is_dropped_and_counted() {
        let (queue, mut rx) = WriteQueue::with_bound(1000);
        // 600 small messages: more than any message count bound, far less than the bytes.
        let (fits, overflows) = ("x".to_owned(), "y".repeat(10));
        for _ in 0..600 {
            assert!(queue.try_send(fits.clone()));
        }
        for _ in 0..100 {
            queue.try_send(overflows.clone());
        }
        // 600 + 40 × 10 = 1000 bytes fit; the other 60 were dropped.
        assert_eq!(queue.dropped(), 60);
        let mut taken = 0;
        while let Ok(outgoing) = rx.try_recv() {
            queue.written(&outgoing);
            taken += 1;
        }
        assert_eq!(taken, 640);
        // One message always fits, whatever its size.
        assert!(queue.try_send("z".repeat(5000)));
    }

    #[tokio::test]
    async fn a_sender_waits_for_room_and_goes_on_once_the_writer_made_some() {
        let (queue, mut rx) = WriteQueue::with_bound(10);
        assert!(
            queue
                .send(ForWriter::Message("0123456789".to_owned()))
                .await
        );
        let waiting = {
            let queue = queue.clone();
            tokio::spawn(async move { queue.send(ForWriter::Message("next".to_owned())).await })
        };
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        assert!(!waiting.is_finished(), "sent past the bound");
        let first = rx.recv().await.unwrap();
        queue.written(&first);
        assert!(waiting.await.unwrap());
        drop(rx);
        assert!(
            !queue.send(ForWriter::Close).await,
            "sent to a writer that is gone"
        );
    }
}
