//! What comes from a client: each message, parsed once by its front, is handed here with the
//! link it came over. A request becomes a task of its own, recorded by its link and id until
//! it is answered or cancelled; a response answers one of the proxy's questions; a line that
//! is not a message is answered with the error it earns.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::{Front, InFlight, severity};
use crate::mcp::meta::result_text;
use crate::mcp::proxy::error::CallError;
use crate::mcp::proxy::front::link::{Link, LinkId, Outgoing};
use crate::mcp::proxy::front::routes;
use crate::mcp::proxy::front::tasks;
use crate::mcp::proxy::revisions::era::{self, Declared, Envelope};
use crate::mcp::proxy::sync::lock;
use crate::mcp::proxy::transport::peer::{BEHALF, Behalf};
use crate::mcp::proxy::transport::wire::{self, Bad, Kind, Message, Refusal, code, token_key};
use crate::mcp::raw;

impl Front {
    /// Handles one message from the client over `link`. Never waits for a request's work:
    /// only for room to answer at once (a refusal) on a link that bounds what it holds.
    pub(crate) async fn receive(self: &Arc<Self>, message: Message, link: &Arc<dyn Link>) {
        match message.kind() {
            Kind::Request { .. } => {
                if let Err(refusal) = self.clone().start_request(message, link) {
                    link.send(refusal).await;
                }
            }
            Kind::Notification {
                method: "notifications/cancelled",
            } => {
                let request = message
                    .params()
                    .and_then(raw::entries)
                    .and_then(|e| raw::get(&e, "requestId").map(str::to_owned));
                if let Some(id) = request {
                    self.cancel(link.id(), &id);
                }
            }
            Kind::Notification {
                method: "notifications/roots/list_changed",
            } => {
                for (_, server) in self.toolbox.running_in_order() {
                    server.notify(message.text().to_owned()).await;
                }
            }
            Kind::Response { .. } => link.answered(message),
            Kind::Notification { .. } => {}
            Kind::Invalid => {
                let id = message.id().unwrap_or("null");
                let text = "not a JSON-RPC 2.0 request or notification";
                let reply = wire::error(id, code::INVALID_REQUEST, text, None);
                link.send(Outgoing::reply(id, reply)).await;
            }
        }
    }

    /// Request `id` (JSON text) of `link` stops: its task is dropped, which tells its
    /// servers (`notifications/cancelled`). Whether it was in flight.
    pub(crate) fn cancel(&self, link: LinkId, id: &str) -> bool {
        let call = lock(&self.requests.in_flight).remove(&(link, token_key(id)));
        call.map(|call| call.task.abort()).is_some()
    }

    /// Starts a request's task, or says why not (the reply to send).
    fn start_request(
        self: Arc<Self>,
        message: Message,
        link: &Arc<dyn Link>,
    ) -> Result<(), Outgoing> {
        let (id, method) = match message.kind() {
            Kind::Request { id, method } => (id.to_owned(), method.to_owned()),
            _ => return Ok(()),
        };
        let refused =
            |why: String| Outgoing::reply(&id, wire::error(&id, code::INVALID_REQUEST, &why, None));
        let declared = declared_revision(&id, &method, message.params())
            .map_err(|Refusal(reply)| Outgoing::reply(&id, reply))?;
        self.connect_client(&method, &message, declared.as_ref());
        // Each request holds its message while it runs: a client that sends faster than its
        // servers answer is told so, instead of growing the proxy's memory.
        let listen = declared.is_some() && method == "subscriptions/listen";
        let permit = self
            .permit(listen)
            .map_err(|busy| refused(busy.to_string()))?;
        let held = crate::mcp::proxy::metrics::global().request(listen);
        let key = (link.id(), token_key(&id));
        // Held until the task is recorded, so that it cannot end before it is, and so that no
        // other request with its id comes between the check and the insert.
        let mut in_flight = lock(&self.requests.in_flight);
        if in_flight.contains_key(&key) {
            return Err(refused(format!(
                "request id {id} is already in use by a request in progress"
            )));
        }
        let log_level = declared
            .as_ref()
            .and_then(|d| d.log_level.as_deref())
            .map(|level| severity(level).unwrap_or(0));
        let progress_token = message.progress_token().map(|t| token_key(&t));
        let reply_id = id.to_owned();
        // What its servers send can be told to be this request's.
        let behalf = Behalf::new(false, self.client_of(Some(link.as_ref())));
        let (this, task_key, to) = (self.clone(), key.clone(), link.clone());
        let work = async move {
            let reply = match &declared {
                Some(declared) => this.answer_modern(&id, &method, &message, declared).await,
                None => this.answer(&id, &method, &message).await,
            };
            lock(&this.requests.in_flight).remove(&task_key);
            drop((permit, held));
            to.send(Outgoing::reply(&id, reply)).await;
        };
        let task = tokio::spawn(BEHALF.scope(behalf, work));
        in_flight.insert(
            key,
            InFlight {
                task: task.abort_handle(),
                link: link.clone(),
                id: reply_id,
                tag: behalf.tag,
                client: behalf.client,
                exchange: None,
                progress_token,
                log_level,
            },
        );
        Ok(())
    }

    /// Servers start with what the client declared at `initialize`, or in the first
    /// 2026-07-28 request (`declared`: it has no `initialize`, the capabilities are its
    /// `_meta`'s); a client that asks for their tools (or anything else of theirs) without
    /// either gets servers told of no capability. A probe such as a 2025 `server/discover` or
    /// `ping` first starts nothing.
    fn connect_client(&self, method: &str, message: &Message, declared: Option<&Declared>) {
        if declared.is_some() {
            // Before any server starts: none of their requests may reach this client
            // as a request (`// 2026-07-28 basic/transports/stdio`).
            self.clients.serves_2026.store(true, Ordering::Relaxed);
        }
        if !self.toolbox.has_client() {
            if let Some(declared) = declared {
                self.toolbox.client_connected(&declared.capabilities);
            } else if method == "initialize" {
                let capabilities = message.params_json()["capabilities"].to_string();
                self.toolbox.client_initialized(&capabilities);
            } else if needs_servers(method) {
                self.toolbox.client_connected("{}");
            }
        }
    }

    /// A permit for a new request, or why there is none. A listen lasts until its client ends
    /// it: listens have a bound of their own ([`MAX_LISTENS`](super::MAX_LISTENS)), apart
    /// from the other requests' ([`MAX_IN_FLIGHT`](super::MAX_IN_FLIGHT)), so that open ones
    /// never take the room of calls.
    fn permit(&self, listen: bool) -> Result<tokio::sync::OwnedSemaphorePermit, AtLimit> {
        if listen {
            return self
                .requests
                .listens_limit
                .clone()
                .try_acquire_owned()
                .map_err(|_| AtLimit::Listens);
        }
        self.requests
            .limit
            .clone()
            .try_acquire_owned()
            .map_err(|_| AtLimit::Requests)
    }

    /// Answers a line that is not a message, with its id when its first bytes show one.
    pub(crate) async fn refuse(&self, line: &Bad, link: &Arc<dyn Link>) {
        let (code, text) = match line {
            Bad::TooLong { .. } => (code::INVALID_REQUEST, format!("the proxy refused {line}")),
            Bad::NotJson { why, .. } => (code::PARSE_ERROR, format!("not JSON: {why}")),
            Bad::NotMessage { why, .. } => (
                code::INVALID_REQUEST,
                format!("not a JSON-RPC 2.0 request or notification: {why}"),
            ),
        };
        let id = line.id().unwrap_or("null");
        let reply = wire::error(id, code, &text, None);
        link.send(Outgoing::reply(id, reply)).await;
    }

    /// The reply to a request of revision 2025-11-25 or older (the whole message).
    pub(super) async fn answer(
        self: &Arc<Self>,
        id: &str,
        method: &str,
        message: &Message,
    ) -> String {
        let outcome = match method {
            "initialize" => {
                let params = message.params_json();
                *lock(&self.clients.declared) = Some(params["capabilities"].to_string());
                // Answered with the servers up within the grace; the rest by list changes.
                self.toolbox.settled().await;
                let result = self.initialize(&params);
                self.clients.initialized.store(true, Ordering::Relaxed);
                Ok(result)
            }
            "ping" => Ok("{}".to_owned()),
            "tools/list" => self.tools_list().await,
            "tools/call" => self.tools_call(message.params().unwrap_or("{}")).await,
            _ if routes::serves(method) || tasks::serves(method) => {
                let params = message.params().unwrap_or("{}");
                let answer = if tasks::serves(method) {
                    self.tasks.answer(&self.toolbox, method, params).await
                } else {
                    self.routes.answer(&self.toolbox, method, params).await
                };
                return match answer {
                    Ok(result) => wire::response(id, &result),
                    Err(e) => error_reply(id, &e),
                };
            }
            _ => {
                let text = format!("method not found: {method}");
                return wire::error(id, code::METHOD_NOT_FOUND, &text, None);
            }
        };
        match outcome {
            Ok(result) => wire::response(id, &result),
            Err(
                e @ (CallError::Remote { .. }
                | CallError::UnknownTool { .. }
                | CallError::BadReply { .. }),
            ) => error_reply(id, &e),
            // A server gone or slow is the tool failing, which the model should see.
            Err(e) => wire::response(id, &result_text(&e.to_string(), true)),
        }
    }
}

/// A JSON-RPC error reply to request `id` for `e`: a server's error as it sent it, the
/// proxy's own with its code and message.
fn error_reply(id: &str, e: &CallError) -> String {
    match e {
        CallError::Remote {
            code,
            message,
            data,
            ..
        } => wire::error(id, *code, message, data.as_deref()),
        e => wire::error(id, e.code(), &e.to_string(), None),
    }
}

/// Why a front takes no new request now: it is at one of its bounds (the client is told,
/// `-32600`).
#[derive(Debug, thiserror::Error)]
enum AtLimit {
    /// [`MAX_LISTENS`](super::MAX_LISTENS) listens are open.
    #[error(
        "{} subscriptions/listen streams are open, the proxy's limit: retry when one has ended",
        super::MAX_LISTENS
    )]
    Listens,
    /// [`MAX_IN_FLIGHT`](super::MAX_IN_FLIGHT) requests are in progress.
    #[error(
        "{} requests are in progress, the proxy's limit: retry when one has been answered",
        super::MAX_IN_FLIGHT
    )]
    Requests,
}

/// The revision a request declares (`// 2026-07-28 basic/versioning`: each request says its
/// own): `None` for a legacy request, what a 2026-07-28 one declares, or the reply refusing
/// a revision the proxy does not serve or a malformed envelope.
fn declared_revision(
    id: &str,
    method: &str,
    params: Option<&str>,
) -> Result<Option<Declared>, Refusal> {
    match era::envelope(method, params) {
        Envelope::Legacy => Ok(None),
        Envelope::Modern(declared) => Ok(Some(declared)),
        Envelope::Unsupported(version) => Err(Refusal(era::unsupported(id, &version))),
        Envelope::Malformed(why) => Err(Refusal(wire::error(id, code::INVALID_PARAMS, &why, None))),
    }
}

/// Whether a request is served by the servers (so they must be started to answer it).
fn needs_servers(method: &str) -> bool {
    method.starts_with("tools/") || routes::serves(method)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::testing::{RecordingLink, listen, message, taken, toolbox};
    use super::super::{Front, Mode};
    use crate::mcp::proxy::front::link::{Carries, Link};

    #[tokio::test]
    async fn each_reply_goes_to_the_link_its_request_came_over_under_its_own_id() {
        let front = Front::start(toolbox(), Mode::Passthrough, None);
        let (a, b) = (RecordingLink::new(), RecordingLink::new());
        let (la, lb): (Arc<dyn Link>, Arc<dyn Link>) = (a.clone(), b.clone());
        // Two clients may both send id 1: each is answered its own.
        front
            .receive(message(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), &la)
            .await;
        front
            .receive(message(r#"{"jsonrpc":"2.0","id":1,"method":"nope"}"#), &lb)
            .await;
        let got_a = taken(&a, 1).await;
        let got_b = taken(&b, 1).await;
        assert_eq!(
            got_a,
            [(
                Carries::Reply,
                Some("1".to_owned()),
                r#"{"jsonrpc":"2.0","id":1,"result":{}}"#.to_owned()
            )]
        );
        assert_eq!(got_b.len(), 1);
        assert!(got_b[0].2.contains("-32601"), "{got_b:?}");
        front.stop();
    }

    #[tokio::test]
    async fn an_id_in_use_is_refused_on_its_own_link_only_and_a_cancel_frees_it() {
        let front = Front::start(toolbox(), Mode::Passthrough, None);
        let (a, b) = (RecordingLink::new(), RecordingLink::new());
        let (la, lb): (Arc<dyn Link>, Arc<dyn Link>) = (a.clone(), b.clone());
        front.receive(listen("7"), &la).await;
        let ack = taken(&a, 1).await;
        assert_eq!(ack.len(), 1, "{ack:?}");
        assert_eq!(
            (ack[0].0, ack[0].1.as_deref()),
            (Carries::Update, Some("7"))
        );
        // The same id on the same link, while the listen is open: refused.
        front.receive(listen("7"), &la).await;
        let refused = taken(&a, 1).await;
        assert_eq!(refused[0].0, Carries::Reply);
        assert!(refused[0].2.contains("already in use"), "{refused:?}");
        // On another link it is another request.
        front.receive(listen("7"), &lb).await;
        assert_eq!(taken(&b, 1).await[0].0, Carries::Update);
        assert!(front.cancel(la.id(), "7"));
        assert!(!front.cancel(la.id(), "7"), "cancelled twice");
        front.receive(listen("7"), &la).await;
        assert_eq!(taken(&a, 1).await[0].0, Carries::Update);
        front.stop();
    }

    #[tokio::test]
    async fn a_line_that_is_no_message_is_answered_with_its_id() {
        let home = RecordingLink::new();
        let front = Front::start(toolbox(), Mode::Passthrough, Some(home.clone()));
        let link: Arc<dyn Link> = home.clone();
        let bad =
            crate::mcp::proxy::transport::wire::frame(br#"{"jsonrpc":"2.0","id":5,"method":"#);
        let Err(bad) = bad else {
            panic!("read as a message")
        };
        front.refuse(&bad, &link).await;
        let reply = taken(&home, 1).await;
        assert_eq!(
            (reply[0].0, reply[0].1.as_deref()),
            (Carries::Reply, Some("5"))
        );
        assert!(reply[0].2.contains("-32700"), "{reply:?}");
        front.stop();
    }
}
