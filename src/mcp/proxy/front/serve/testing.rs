//! What the core's parts are tested with: a toolbox without servers, and links that record
//! what they are sent, so that where each message goes is read from the data the core gives
//! it.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::BoxFuture;

use crate::mcp::proxy::error::CallError;
use crate::mcp::proxy::front::link::{Carries, Link, LinkId, Outgoing};
use crate::mcp::proxy::servers::config::Config;
use crate::mcp::proxy::servers::toolbox::{Options, Toolbox};
use crate::mcp::proxy::sync::lock;
use crate::mcp::proxy::transport::wire::Message;

/// What a link was sent: what each message carries, for which request, and its text.
pub(super) type Sent = Vec<(Carries, Option<String>, String)>;

/// A link that keeps what it is sent.
pub(super) struct RecordingLink {
    id: LinkId,
    sent: Mutex<Vec<Outgoing>>,
}

impl RecordingLink {
    pub(super) fn new() -> Arc<RecordingLink> {
        Arc::new(RecordingLink {
            id: LinkId::new(),
            sent: Mutex::default(),
        })
    }

    /// What it was sent so far: what each carries, for which request, and its text.
    pub(super) fn taken(&self) -> Sent {
        lock(&self.sent)
            .drain(..)
            .map(|out| (out.carries, out.request, out.text))
            .collect()
    }
}

impl Link for RecordingLink {
    fn id(&self) -> LinkId {
        self.id
    }

    fn send(&self, out: Outgoing) -> BoxFuture<'_, ()> {
        lock(&self.sent).push(out);
        Box::pin(std::future::ready(()))
    }

    fn offer(&self, out: Outgoing) -> bool {
        lock(&self.sent).push(out);
        true
    }

    fn ask<'a>(
        &'a self,
        _method: &'a str,
        _params: Option<&'a str>,
        _within: Option<&'a str>,
        _timeout: Duration,
    ) -> BoxFuture<'a, Result<Message, CallError>> {
        Box::pin(std::future::ready(Err(CallError::internal("test", "no"))))
    }

    fn answered(&self, _message: Message) {}
}

pub(super) fn toolbox() -> Arc<Toolbox> {
    let config = Config::from_str(r#"{"mcpServers":{}}"#).unwrap();
    Toolbox::start(&config, Options::default())
}

pub(super) fn message(text: &str) -> Message {
    Message::parse(text.to_owned()).unwrap()
}

/// A 2026-07-28 `subscriptions/listen` for tool list changes, under `id`.
pub(super) fn listen(id: &str) -> Message {
    message(&format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"subscriptions/listen","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}},"notifications":{{"toolsListChanged":true}}}}}}"#
    ))
}

/// Waits until `link` has been sent `n` messages, then takes them.
pub(super) async fn taken(link: &RecordingLink, n: usize) -> Sent {
    for _ in 0..200 {
        if lock(&link.sent).len() >= n {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    link.taken()
}
