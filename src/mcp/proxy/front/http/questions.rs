//! The proxy's requests to an HTTP session's client (a server's sampling, elicitation or roots
//! request passed on): sent on one of the client's streams, answered in a POST of the
//! client's, so matched here by the proxy's own ids.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::oneshot;

use crate::mcp::proxy::error::CallError;
use crate::mcp::proxy::sync::lock;
use crate::mcp::proxy::transport::peer::outcome;
use crate::mcp::proxy::transport::wire::{self, Kind, Message, token_key};

/// The proxy's questions to one client waiting for their answers, by the proxy's ids.
#[derive(Default)]
pub(crate) struct Questions {
    next: AtomicU64,
    waiting: Mutex<HashMap<String, oneshot::Sender<Message>>>,
}

impl Questions {
    /// A new question's request (its text, and the id it is asked under) and the answer to
    /// come.
    pub(crate) fn open(
        &self,
        method: &str,
        params: Option<&str>,
    ) -> (String, String, oneshot::Receiver<Message>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let (tx, rx) = oneshot::channel();
        let text = id.to_string();
        lock(&self.waiting).insert(token_key(&text), tx);
        (wire::request(id, method, params), text, rx)
    }

    /// Waits at most `timeout` for question `id`'s answer (`name` says whose in errors).
    ///
    /// # Errors
    /// The client's error response, the timeout, or the link closing first.
    pub(crate) async fn wait(
        &self,
        name: &str,
        method: &str,
        id: &str,
        answer: oneshot::Receiver<Message>,
        timeout: Duration,
    ) -> Result<Message, CallError> {
        let started = tokio::time::Instant::now();
        let answer = tokio::time::timeout(timeout, answer).await;
        lock(&self.waiting).remove(&token_key(id));
        match answer {
            Ok(Ok(message)) => outcome(name, message),
            Ok(Err(_)) => Err(CallError::Closed {
                server: name.to_owned(),
                reason: "closed".to_owned(),
            }),
            Err(_) => Err(CallError::Timeout {
                server: name.to_owned(),
                method: method.to_owned(),
                after: started.elapsed(),
            }),
        }
    }

    /// A client's response: to the question it answers, if one waits for it.
    pub(crate) fn answered(&self, message: Message) {
        let Kind::Response { id } = message.kind() else {
            return;
        };
        if let Some(waiting) = lock(&self.waiting).remove(&token_key(id)) {
            let _ = waiting.send(message);
        }
    }

    /// Every question fails (the link closed).
    pub(crate) fn clear(&self) {
        lock(&self.waiting).clear();
    }
}
