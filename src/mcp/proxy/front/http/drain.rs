//! Stopping without dropping work. At shutdown the front first closes its listener, so a
//! load balancer's next connection is refused and goes to another replica, then waits for
//! the POSTs in progress to be answered ([`HttpOptions::drain`](super::HttpOptions::drain)
//! at most), and only then closes its sessions. A request that was already sent to this
//! replica is answered here, not cut off with its connection (which a balancer could not
//! retry elsewhere: a POST is not idempotent). An open `subscriptions/listen` is no work to
//! wait for: it does not hold the drain, and ends when the sessions close, with an answer
//! that says so, which is given its moment to be written. Requests that come after that, on
//! connections kept alive, are answered 503.
//!
//! A request still in progress when the drain gives up is answered, not left without a word
//! (nor told its session has ended, which would have its client initialize and perhaps send
//! it again): a JSON-RPC error for its id, [`STOPPED_IN_FLIGHT`], that says its server may
//! have run it, as HTTP 503 without `Retry-After` when nothing was sent for it yet, else as
//! its stream's last event. A listen ends so too.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use hyper::StatusCode;
use tokio::sync::Notify;

use super::{Body, stream};
use crate::mcp::proxy::transport::wire::{self, code::STOPPED_IN_FLIGHT};

/// Marks the response of an open `subscriptions/listen` (an extension), for the drain.
#[derive(Clone, Copy, Debug)]
pub(super) struct Listening;

/// The POSTs in progress, and the open listens (which are no work to wait for: they end
/// when the front closes, with an answer that says so, and are only given time to write it).
#[derive(Default)]
pub(super) struct Drain {
    posts: AtomicUsize,
    listens: AtomicUsize,
    settled: Notify,
    /// Set once the front closes its sessions: nothing more is served.
    closed: AtomicBool,
}

/// A POST in progress, until dropped (with its response's body, once written); a listen's
/// once [`listening`](Post::listening).
pub(super) struct Post {
    drain: Arc<Drain>,
    listen: bool,
}

impl Drop for Post {
    fn drop(&mut self) {
        self.drain.leave(self.listen);
    }
}

impl Post {
    /// The POST is an open listen: the drain does not wait for it, only for what it is
    /// told at the end to be written.
    pub(super) fn listening(mut self) -> Post {
        if !self.listen {
            self.drain.listens.fetch_add(1, Ordering::AcqRel);
            self.drain.leave(false);
            self.listen = true;
        }
        self
    }
}

impl Drain {
    /// Counts a POST until the returned guard is dropped.
    pub(super) fn post(self: &Arc<Self>) -> Post {
        self.posts.fetch_add(1, Ordering::AcqRel);
        Post {
            drain: self.clone(),
            listen: false,
        }
    }

    fn leave(&self, listen: bool) {
        let count = if listen { &self.listens } else { &self.posts };
        if count.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.settled.notify_waiters();
        }
    }

    /// From now on, requests are refused.
    pub(super) fn close(&self) {
        self.closed.store(true, Ordering::Release);
    }

    /// Whether the front has closed.
    pub(super) fn closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// The POSTs in progress now, listens aside.
    pub(super) fn in_progress(&self) -> usize {
        self.posts.load(Ordering::Acquire)
    }

    /// Waits until no POST is in progress, for `within` at most; whether none is.
    pub(super) async fn settled(&self, within: Duration) -> bool {
        self.until(within, || self.in_progress() == 0).await
    }

    /// Waits until every POST's response, a listen's too, has been written, for `within` at
    /// most; whether all have.
    pub(super) async fn written(&self, within: Duration) -> bool {
        let all = || self.in_progress() + self.listens.load(Ordering::Acquire) == 0;
        self.until(within, all).await
    }

    async fn until(&self, within: Duration, done: impl Fn() -> bool) -> bool {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let settled = self.settled.notified();
            tokio::pin!(settled);
            // Registered before the count is read, so a last drop in between still wakes it.
            settled.as_mut().enable();
            if done() {
                return true;
            }
            if tokio::time::timeout_at(deadline, settled).await.is_err() {
                return done();
            }
        }
    }
}

/// The answer for a request (its id, JSON text) cut off at shutdown; `listen` for a listen,
/// which ends rather than being cut off.
pub(super) fn cut_off(id: &str, listen: bool) -> String {
    let why = if listen {
        "the proxy shut down: this listen has ended; listen again (at another replica)"
    } else {
        "the proxy shut down while this request was in progress: its server may have run it, \
         so do not assume it did not before sending it again"
    };
    wire::error(id, STOPPED_IN_FLIGHT, why, None)
}

/// A session's JSON answer's HTTP status: 503 for [`cut_off`]'s, else 200.
pub(super) fn status_of(text: &str) -> StatusCode {
    if super::error_code(text) == Some(STOPPED_IN_FLIGHT) {
        StatusCode::SERVICE_UNAVAILABLE
    } else {
        StatusCode::OK
    }
}

/// [`cut_off`] as a whole answer (503).
pub(super) fn cut_off_answer(id: &str) -> hyper::Response<Body> {
    stream::json(StatusCode::SERVICE_UNAVAILABLE, cut_off(id, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_off_request_is_answered_for_its_id_with_503() {
        let text = cut_off(r#""a-1""#, false);
        let answer: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(answer["id"], "a-1");
        assert_eq!(answer["error"]["code"], STOPPED_IN_FLIGHT);
        assert_eq!(status_of(&text), StatusCode::SERVICE_UNAVAILABLE);
        let listen: serde_json::Value = serde_json::from_str(&cut_off("7", true)).unwrap();
        assert_eq!(
            (&listen["id"], &listen["error"]["code"]),
            (&7.into(), &(-32004).into())
        );
        // Only that code: not a server's error that mentions it, nor a result.
        let other = wire::error("1", -32603, "-32004", None);
        assert_eq!(status_of(&other), StatusCode::OK);
        assert_eq!(
            status_of(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            StatusCode::OK
        );
    }

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

    #[tokio::test]
    async fn a_listen_holds_only_the_writing_of_its_end() {
        let drain = Arc::new(Drain::default());
        let listen = drain.post().listening();
        let call = drain.post();
        assert_eq!(drain.in_progress(), 1, "the listen is not work in progress");
        drop(call);
        assert!(drain.settled(Duration::ZERO).await);
        assert!(
            !drain.written(Duration::from_millis(20)).await,
            "its end not written"
        );
        let waiting = tokio::spawn({
            let drain = drain.clone();
            async move { drain.written(Duration::from_secs(30)).await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(listen.listening());
        assert!(waiting.await.unwrap(), "woken by the listen's end");
        assert_eq!(drain.in_progress(), 0);
    }
}
