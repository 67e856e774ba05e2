//! A connection's inbound queue: the requests and notifications its peer sent that the layer
//! above has not taken yet, bounded by count and by bytes. A bound in messages alone let a
//! server flooding 1 MB log messages, while the layer above was held up, keep a thousand of
//! them (the proxy grew to 400 MB); the byte bound holds it to [`INBOUND_BYTES`] and one
//! message. Senders that may wait ([`InboundSender::send`], for requests) are slowed down;
//! notifications ([`InboundSender::try_send`]) past either bound are the sender's to drop.

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

use crate::mcp::proxy::transport::wire::Message;

/// Messages a connection holds for the layer above at most.
pub(crate) const INBOUND_QUEUE: usize = 1024;

/// Bytes of messages a connection holds for the layer above at most (one message always fits,
/// whatever its size, once the queue is empty).
pub(crate) const INBOUND_BYTES: usize = 4 << 20;

/// A message in the queue, with the room it takes: given back when it is taken out.
struct Queued {
    message: Message,
    _room: OwnedSemaphorePermit,
}

/// The reader's side of an inbound queue (cloned where several tasks feed one queue).
#[derive(Clone)]
pub(crate) struct InboundSender {
    tx: mpsc::Sender<Queued>,
    /// One permit per byte of room.
    room: Arc<Semaphore>,
    bound: u32,
}

/// The side the layer above reads.
pub(crate) struct Inbound {
    rx: mpsc::Receiver<Queued>,
}

/// Why a message was not queued.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum NotQueued {
    /// No room (by count or bytes) for a message that must not wait.
    Full,
    /// Nobody reads the queue any more.
    Closed,
}

/// A new inbound queue with the proxy's bounds.
pub(crate) fn queue() -> (InboundSender, Inbound) {
    with_bounds(INBOUND_QUEUE, INBOUND_BYTES)
}

pub(super) fn with_bounds(count: usize, bytes: usize) -> (InboundSender, Inbound) {
    let (tx, rx) = mpsc::channel(count);
    let bound = u32::try_from(bytes).unwrap_or(u32::MAX);
    let room = Arc::new(Semaphore::new(bound as usize));
    (InboundSender { tx, room, bound }, Inbound { rx })
}

impl InboundSender {
    /// The room `message` takes: its bytes, at least one, at most the whole bound (so that a
    /// message larger than the bound passes once the queue is empty).
    fn room_for(&self, message: &Message) -> u32 {
        let len = u32::try_from(message.text().len()).unwrap_or(u32::MAX);
        len.clamp(1, self.bound)
    }

    /// Queues `message`, waiting for room by count and by bytes.
    pub(crate) async fn send(&self, message: Message) -> Result<(), NotQueued> {
        let room = Arc::clone(&self.room)
            .acquire_many_owned(self.room_for(&message))
            .await
            .map_err(|_| NotQueued::Closed)?;
        let held = Queued {
            message,
            _room: room,
        };
        self.tx.send(held).await.map_err(|_| NotQueued::Closed)
    }

    /// Queues `message` if there is room for it now.
    pub(crate) fn try_send(&self, message: Message) -> Result<(), NotQueued> {
        if self.tx.is_closed() {
            return Err(NotQueued::Closed);
        }
        let room = Arc::clone(&self.room)
            .try_acquire_many_owned(self.room_for(&message))
            .map_err(|_| NotQueued::Full)?;
        let held = Queued {
            message,
            _room: room,
        };
        self.tx.try_send(held).map_err(|e| match e {
            mpsc::error::TrySendError::Full(_) => NotQueued::Full,
            mpsc::error::TrySendError::Closed(_) => NotQueued::Closed,
        })
    }
}

impl Inbound {
    /// The next message, once there is one; `None` when every sender is gone and the queue
    /// is empty. Its room is free again as it is returned.
    pub(crate) async fn recv(&mut self) -> Option<Message> {
        self.rx.recv().await.map(|held| held.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_message(bytes: usize) -> Message {
        let data = "x".repeat(bytes);
        let text = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"{data}"}}}}"#
        );
        Message::parse(text).unwrap()
    }

    #[tokio::test]
    async fn notifications_past_the_byte_bound_are_refused_not_kept() {
        let (tx, mut rx) = with_bounds(1024, 10_000);
        let mut queued = 0;
        for _ in 0..100 {
            if tx.try_send(log_message(1_000)).is_ok() {
                queued += 1;
            }
        }
        // Each message is a little over 1,000 bytes: nine fit in 10,000, not a hundred.
        assert_eq!(queued, 9);
        assert_eq!(tx.try_send(log_message(1_000)), Err(NotQueued::Full));
        rx.recv().await.unwrap();
        assert_eq!(tx.try_send(log_message(1_000)), Ok(()));
    }

    #[tokio::test]
    async fn the_count_bound_holds_for_small_messages() {
        let (tx, _rx) = with_bounds(3, 1 << 20);
        for _ in 0..3 {
            tx.try_send(log_message(1)).unwrap();
        }
        assert_eq!(tx.try_send(log_message(1)), Err(NotQueued::Full));
    }

    #[tokio::test]
    async fn a_request_waits_for_room_and_a_message_over_the_bound_passes_alone() {
        let (tx, mut rx) = with_bounds(16, 2_000);
        tx.send(log_message(1_500)).await.unwrap();
        let big = tx.clone();
        let waiting = tokio::spawn(async move { big.send(log_message(50_000)).await });
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        assert!(!waiting.is_finished(), "sent with the queue not empty");
        assert_eq!(rx.recv().await.unwrap().text().len(), 1_500 + 86);
        waiting.await.unwrap().unwrap();
        assert!(rx.recv().await.unwrap().text().len() > 50_000);
    }

    #[tokio::test]
    async fn a_queue_nobody_reads_says_so() {
        let (tx, rx) = with_bounds(16, 2_000);
        drop(rx);
        assert_eq!(tx.try_send(log_message(1)), Err(NotQueued::Closed));
        assert_eq!(tx.send(log_message(1)).await, Err(NotQueued::Closed));
    }
}
