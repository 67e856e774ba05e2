//! Servers' requests to the client (sampling, elicitation, roots, a task's questions): put to
//! a 2026-07-28 client within the request it came for (`mrtr.rs`), to a 2025 client under the
//! proxy's id over the link of the request that caused it (or the connection's), or refused
//! to the server at once when the client may not be asked.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::Front;
use crate::mcp::proxy::error::CallError;
use crate::mcp::proxy::front::tasks;
use crate::mcp::proxy::revisions::era;
use crate::mcp::proxy::revisions::mrtr::{self, Claim};
use crate::mcp::proxy::sync::lock;
use crate::mcp::proxy::transport::peer::Cause;
use crate::mcp::proxy::transport::wire::{self, Message, code, token_key};
use crate::mcp::raw;

impl Front {
    /// A server's request to the client: put to the request it came for (2026-07-28), or to
    /// the client (2025), or refused to the server at once.
    pub(super) async fn on_request(self: &Arc<Self>, server: String, message: Message) {
        // The client request it came for, as the server's connection read it.
        let cause = message
            .id()
            .and_then(|id| Some(self.toolbox.server(&server)?.cause_of(id)))
            .unwrap_or(Cause::Unknown { in_flight: 0 });
        // A 2026-07-28 client is asked within its request (`mrtr.rs`), else not.
        // Never waits on a round: this task carries every server's events.
        let message = if self.clients.serves_2026.load(Ordering::Relaxed) {
            match self.modern.rounds.claim(&server, message, cause) {
                Claim::Taken => return,
                Claim::Refused(message, code, why) => {
                    return self.refuse_question(&server, &message, code, &why).await;
                }
                Claim::Unclaimed(message) if !self.clients.initialized.load(Ordering::Relaxed) => {
                    return self.refuse_unclaimed(&server, &message, cause).await;
                }
                Claim::Unclaimed(message) => message,
            }
        } else {
            message
        };
        if let Some(why) = self.undeclared(&message) {
            let code = code::METHOD_NOT_FOUND;
            return self.refuse_question(&server, &message, code, &why).await;
        }
        let Some(id) = message.id() else { return };
        let key = (server.clone(), token_key(id));
        // Its own task: a person answering an elicitation holds up nothing else.
        // Held until the task is recorded, so that it cannot end before it is.
        let mut asking = lock(&self.asking);
        let this = self.clone();
        let task_key = key.clone();
        let task = tokio::spawn(async move {
            this.ask_client(&server, &message, cause).await;
            lock(&this.asking).remove(&task_key);
        });
        asking.insert(key, task.abort_handle());
    }

    /// Whether notifications the client did not ask for may be sent: not to a 2026-07-28
    /// client (`// 2026-07-28 basic/patterns/subscriptions`: list changes and resource
    /// updates only on a `subscriptions/listen` that asked), unless it also initialized.
    pub(super) fn unsolicited(&self) -> bool {
        !self.clients.serves_2026.load(Ordering::Relaxed)
            || self.clients.initialized.load(Ordering::Relaxed)
    }

    /// Refuses a server's request no 2026-07-28 request of the client claims: that client
    /// cannot be asked outside its requests. (server-everything asks for roots right after
    /// `initialize`; refused, it asks again within the call that needs them.)
    async fn refuse_unclaimed(&self, server: &str, message: &Message, cause: Cause) {
        let Some(method) = message.method() else {
            return;
        };
        let why = match (mrtr::capability_of(method), cause) {
            // Stdio names no request: the proxy does not guess.
            (Some(_), Cause::Unknown { in_flight }) if in_flight > 1 => format!(
                "{in_flight} requests are in flight to this server (or were just answered or given \
                 up) and the proxy cannot tell which one {method} was asked within: it does not \
                 guess"
            ),
            (Some(capability), _) => format!(
                "the client (revision 2026-07-28) can be asked {method} only while one of its \
                 requests to this server that declares the {capability} capability runs"
            ),
            // `tasks/*` about tasks the client runs: a 2026-07-28 client runs none.
            (None, _) => format!("the client (revision 2026-07-28) does not offer {method}"),
        };
        self.refuse_question(server, message, code::METHOD_NOT_FOUND, &why)
            .await;
    }

    /// Answers a server's request to the client with an error.
    async fn refuse_question(&self, server: &str, message: &Message, code: i64, why: &str) {
        let Some(id) = message.id() else {
            return;
        };
        if let Some(server) = self.toolbox.server(server) {
            server.notify(wire::error(id, code, why, None)).await;
        }
    }

    /// Why the client may not be asked a server's request (`// 2025-11-25
    /// client/sampling`, `client/elicitation`, `client/roots`: a client that supports them
    /// MUST declare the capability), answered at once: the client did not declare the
    /// capability it needs at `initialize` (for a URL elicitation, `elicitation.url`).
    fn undeclared(&self, message: &Message) -> Option<String> {
        let method = message.method()?;
        let capability = match method {
            _ if method.starts_with("tasks/") => "tasks",
            _ => mrtr::capability_of(method)?,
        };
        let declared = lock(&self.clients.declared).clone().unwrap_or_default();
        if !era::declares(&declared, capability) {
            return Some(format!(
                "the client did not declare the {capability} capability: it cannot be asked \
                 {method}"
            ));
        }
        let mode = message
            .params()
            .and_then(|p| raw::get_path(p, &["mode"]))
            .and_then(raw::string);
        let url = raw::get_path(&declared, &["elicitation", "url"]).is_some();
        (method == "elicitation/create" && mode.as_deref() == Some("url") && !url).then(|| {
            "the client did not declare the elicitation.url capability: it cannot be asked \
             for a URL elicitation"
                .to_owned()
        })
    }

    /// Passes a server's request to the client under the proxy's own id, over the link of the
    /// request it came for (`cause`) or the connection's, and the client's answer (or error,
    /// as it sent it) back to the server under the server's id.
    async fn ask_client(&self, server: &str, request: &Message, cause: Cause) {
        let (Some(id), Some(method)) = (request.id(), request.method()) else {
            return;
        };
        let Some((link, within)) = self
            .request_of(cause)
            .map(|(link, id)| (link, Some(id)))
            .or_else(|| self.home.clone().map(|home| (home, None)))
        else {
            let why = "the client can be asked nothing outside its requests";
            return self
                .refuse_question(server, request, code::METHOD_NOT_FOUND, why)
                .await;
        };
        // A person may be answering: as long as a call that reports progress may run.
        let timeout = self
            .toolbox
            .options()
            .request_timeout
            .saturating_mul(crate::mcp::proxy::transport::peer::MAX_EXTENSIONS);
        // A request that is part of one of the server's tasks names it as the client knows it.
        let params = request
            .params()
            .map(|params| tasks::request_for_client(server, params));
        let asked = link
            .ask(method, params.as_deref(), within.as_deref(), timeout)
            .await;
        let reply = match asked {
            // The task the answer names (if any) in the server's own words again.
            Ok(reply) => wire::response(
                id,
                &tasks::result_for_server(server, reply.result().unwrap_or("{}")),
            ),
            Err(CallError::Remote {
                code,
                message,
                data,
                ..
            }) => wire::error(id, code, &message, data.as_deref()),
            Err(e) => wire::error(id, code::INTERNAL_ERROR, &format!("the client: {e}"), None),
        };
        if let Some(server) = self.toolbox.server(server) {
            server.notify(reply).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::testing::{RecordingLink, message, taken, toolbox};
    use super::super::{Front, Mode};
    use crate::mcp::proxy::front::link::Link;

    #[tokio::test]
    async fn a_question_needs_the_capability_the_client_declared_at_initialize() {
        let home = RecordingLink::new();
        let front = Front::start(toolbox(), Mode::Passthrough, Some(home.clone()));
        let link: Arc<dyn Link> = home.clone();
        let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}}}}"#;
        front.receive(message(init), &link).await;
        taken(&home, 1).await;
        let asked = |method: &str, params: &str| {
            message(&format!(
                r#"{{"jsonrpc":"2.0","id":"q","method":"{method}","params":{params}}}"#
            ))
        };
        let form = asked("elicitation/create", r#"{"message":"Name?"}"#);
        assert_eq!(front.undeclared(&form), None);
        let url = asked("elicitation/create", r#"{"mode":"url","url":"https://x"}"#);
        let why = front.undeclared(&url).unwrap();
        assert!(why.contains("elicitation.url"), "{why}");
        let sampling = asked("sampling/createMessage", "{}");
        let why = front.undeclared(&sampling).unwrap();
        assert!(
            why.contains("did not declare the sampling capability"),
            "{why}"
        );
        assert_eq!(front.undeclared(&asked("ping", "{}")), None);
        front.stop();
    }
}
