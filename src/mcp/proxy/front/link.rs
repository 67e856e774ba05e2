//! Links: how the dispatch core ([`serve`](super::serve)) reaches a client. A front hands
//! the core each message it parsed, with the link that message came over; the core sends what
//! is for the client through a link as an [`Outgoing`]: the message's text and, as data, what
//! it carries and the client request it belongs to. A link routes by those fields (a line
//! writer for stdio ignores them; an HTTP session puts a request's messages on that request's
//! stream; a stateless POST is its request's link), never by reading the text again.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures_util::future::BoxFuture;

use crate::mcp::proxy::error::CallError;
use crate::mcp::proxy::transport::peer::{ClientId, Peer};
use crate::mcp::proxy::transport::wire::Message;

/// What a message to a client is, as routing needs it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Carries {
    /// The response to its request: the last message for it.
    Reply,
    /// Progress of its request (advisory).
    Progress,
    /// A server's log message its request caused (advisory).
    Log,
    /// A listen's acknowledgement or one of its notifications (its request is the listen).
    Update,
    /// A request of the proxy's to the client (a server's question), asked within its request
    /// when it names one (only an HTTP session's link makes these: stdio's peer writes its own).
    #[cfg_attr(
        not(feature = "mcp-http"),
        expect(
            dead_code,
            reason = "without mcp-http only the line link, which writes its own"
        )
    )]
    Question,
    /// A notification of the connection's, about no request: a list change, a task's status,
    /// a log message of a 2025 client's session.
    Notice,
}

/// One message for a client.
#[derive(Debug)]
#[cfg_attr(
    all(not(feature = "mcp-http"), not(test)),
    expect(
        dead_code,
        reason = "without mcp-http only the line link, which routes by nothing"
    )
)]
pub(crate) struct Outgoing {
    /// The message, JSON text on one line.
    pub(crate) text: String,
    pub(crate) carries: Carries,
    /// The client request it belongs to: its id as the client sent it (JSON text), or none.
    pub(crate) request: Option<String>,
}

impl Outgoing {
    pub(crate) fn reply(id: &str, text: String) -> Outgoing {
        Outgoing::of(Carries::Reply, Some(id), text)
    }

    pub(crate) fn notice(text: String) -> Outgoing {
        Outgoing::of(Carries::Notice, None, text)
    }

    pub(crate) fn of(carries: Carries, request: Option<&str>, text: String) -> Outgoing {
        Outgoing {
            text,
            carries,
            request: request.map(str::to_owned),
        }
    }
}

/// Which link a request came over: ids are the client's own, unique only on their link.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct LinkId(u64);

impl LinkId {
    pub(crate) fn new() -> LinkId {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        LinkId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// Where the core sends what is for one client (or, on the stateless front, one request).
pub(crate) trait Link: Send + Sync {
    /// Its identity among the core's links.
    fn id(&self) -> LinkId;

    /// Sends a message that must arrive (a reply), waiting for room where the link has a
    /// bound of its own.
    fn send(&self, out: Outgoing) -> BoxFuture<'_, ()>;

    /// An advisory message (progress, a log message, a notice): taken if there is room now,
    /// else dropped, counted by the link; whether it was taken.
    fn offer(&self, out: Outgoing) -> bool;

    /// Puts a request of the proxy's to the client (within request `within`, when known) and
    /// waits at most `timeout` for the client's answer.
    fn ask<'a>(
        &'a self,
        method: &'a str,
        params: Option<&'a str>,
        within: Option<&'a str>,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Message, CallError>>;

    /// The client's response to one of [`ask`](Self::ask)'s requests, when the link does not
    /// read responses itself.
    fn answered(&self, message: Message);

    /// The client it is known to speak for, on a core whose requests come from several
    /// (a stateless POST with the client's cookie); `None`: a client of its own.
    fn client(&self) -> Option<ClientId> {
        None
    }
}

/// The stdio front's link: one message per line through the client connection's [`Peer`]
/// (its byte-bounded writer, and its table of the proxy's requests to the client).
pub(crate) struct LineLink {
    id: LinkId,
    peer: Peer,
}

impl LineLink {
    pub(crate) fn new(peer: Peer) -> LineLink {
        LineLink {
            id: LinkId::new(),
            peer,
        }
    }
}

impl Link for LineLink {
    fn id(&self) -> LinkId {
        self.id
    }

    fn send(&self, out: Outgoing) -> BoxFuture<'_, ()> {
        Box::pin(self.peer.send(out.text))
    }

    fn offer(&self, out: Outgoing) -> bool {
        self.peer.try_send(out.text)
    }

    fn ask<'a>(
        &'a self,
        method: &'a str,
        params: Option<&'a str>,
        _within: Option<&'a str>,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Message, CallError>> {
        Box::pin(self.peer.request(method, params, timeout))
    }

    // The peer's reader matches the client's responses itself.
    fn answered(&self, _message: Message) {}
}
