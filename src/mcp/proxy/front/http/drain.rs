//! Stopping without dropping work. At shutdown the front first closes its listener, so a
//! load balancer's next connection is refused and goes to another replica, then waits for
//! the POSTs in progress to be answered ([`HttpOptions::drain`](super::HttpOptions::drain)
//! at most), and only then closes its sessions. A request that was already sent to this
//! replica is answered here, not cut off with its connection (which a balancer could not
//! retry elsewhere: a POST is not idempotent). Requests that come after that, on
//! connections kept alive, are answered 503.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::Notify;

/// The POSTs in progress.
#[derive(Default)]
pub(super) struct Drain {
    posts: AtomicUsize,
    settled: Notify,
    /// Set once the front closes its sessions: nothing more is served.
    closed: AtomicBool,
}

/// A POST in progress, until dropped (with its response's body, once written).
pub(super) struct Post(Arc<Drain>);

impl Drop for Post {
    fn drop(&mut self) {
        if self.0.posts.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.settled.notify_waiters();
        }
    }
}

impl Drain {
    /// Counts a POST until the returned guard is dropped.
    pub(super) fn post(self: &Arc<Self>) -> Post {
        self.posts.fetch_add(1, Ordering::AcqRel);
        Post(self.clone())
    }

    /// From now on, requests are refused.
    pub(super) fn close(&self) {
        self.closed.store(true, Ordering::Release);
    }

    /// Whether the front has closed.
    pub(super) fn closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// The POSTs in progress now.
    pub(super) fn in_progress(&self) -> usize {
        self.posts.load(Ordering::Acquire)
    }

    /// Waits until no POST is in progress, for `within` at most; whether none is.
    pub(super) async fn settled(&self, within: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let settled = self.settled.notified();
            tokio::pin!(settled);
            // Registered before the count is read, so a last drop in between still wakes it.
            settled.as_mut().enable();
            if self.in_progress() == 0 {
                return true;
            }
            if tokio::time::timeout_at(deadline, settled).await.is_err() {
                return self.in_progress() == 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn settles_when_the_last_post_is_answered_and_not_before() {
        let drain = Arc::new(Drain::default());
        assert!(drain.settled(Duration::ZERO).await, "nothing in progress");
        let (a, b) = (drain.post(), drain.post());
        assert!(!drain.settled(Duration::from_millis(20)).await);
        drop(a);
        assert_eq!(drain.in_progress(), 1);
        let waiting = tokio::spawn({
            let drain = drain.clone();
            async move { drain.settled(Duration::from_secs(30)).await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(b);
        assert!(waiting.await.unwrap(), "woken by the last answer");
    }
}
