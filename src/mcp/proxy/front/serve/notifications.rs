//! A server's notifications on their way to the client, and the toolbox's changes (a server's
//! tool list changed, a server gone, a server's request), handed over as the server's
//! connection reads them (`Toolbox::route_notifications`), so that they reach the client in
//! the order the server sent them, log messages and updates alike, and a request's log
//! messages and progress before its answer. Nothing here waits: what the client's connection
//! cannot take within its byte bound is dropped there, counted and logged, and no server is
//! held up by a client that reads slowly.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::{Front, severity};
use crate::mcp::LIST_CHANGED;
use crate::mcp::proxy::front::link::{Carries, Outgoing};
use crate::mcp::proxy::front::routes;
use crate::mcp::proxy::front::tasks;
use crate::mcp::proxy::log::PROXY;
use crate::mcp::proxy::servers::toolbox::Change;
use crate::mcp::proxy::sync::lock;
use crate::mcp::proxy::transport::peer::Cause;
use crate::mcp::proxy::transport::wire::{self, Message, token_key};
use crate::mcp::raw;

/// The lists besides tools a server may offer, by capability, and their change notices.
const OTHER_LISTS: [(&str, &str); 2] = [
    ("prompts", "notifications/prompts/list_changed"),
    ("resources", "notifications/resources/list_changed"),
];

impl Front {
    /// A change the toolbox reports: list changes to the client (and its listens), a
    /// server's request to [`on_request`](Self::on_request).
    pub(super) async fn on_change(self: &Arc<Self>, change: Change) {
        match change {
            Change::ToolsChanged { .. } => self.lists_changed(&[LIST_CHANGED]),
            Change::ServerGone { capabilities, .. } => {
                let mut changed = vec![LIST_CHANGED];
                // Its routes stay until the client lists again: what it names of the server
                // fails saying why, not as unknown.
                for (capability, method) in OTHER_LISTS {
                    if capabilities.iter().any(|c| c == capability) {
                        changed.push(method);
                    }
                }
                self.lists_changed(&changed);
            }
            Change::ServerUp {
                server,
                tools_changed,
            } => self.server_up(&server, tools_changed),
            Change::Request { server, message } => self.on_request(server, message).await,
        }
    }

    /// A server that was still starting when the client was answered is up: its tools
    /// (unless the cached ones the client had are the same), and its prompts and resources if
    /// it has them, are new to the client (#60).
    fn server_up(&self, server: &str, tools_changed: bool) {
        let mut changed = Vec::new();
        if tools_changed {
            changed.push(LIST_CHANGED);
        }
        for (capability, method) in OTHER_LISTS {
            if routes::server_declares(&self.toolbox, server, &[capability]) {
                self.routes.forget(method);
                changed.push(method);
            }
        }
        self.lists_changed(&changed);
    }

    /// Each of these lists changed: said to the client's listens, and to the client itself
    /// when it may hear unsolicited notifications.
    fn lists_changed(&self, methods: &[&str]) {
        for method in methods {
            self.to_listens(method, None);
            if self.unsolicited() {
                self.notify_home(wire::notification(method, None));
            }
        }
    }

    /// Where a server's notification goes (`cause`: the request it may be about, for log
    /// messages). A server's `tools/list_changed` is not here: the toolbox lists the server
    /// again first, then the front tells the client.
    pub(super) fn on_notification(&self, server: &str, message: &Message, cause: Cause) {
        match message.method() {
            Some("notifications/message") => self.forward_log(server, message, cause),
            Some(
                method @ ("notifications/resources/list_changed"
                | "notifications/prompts/list_changed"),
            ) => {
                self.routes.forget(method);
                self.to_listens(method, message.params());
                self.unsolicited_to_client(message.text().to_owned());
            }
            Some("notifications/cancelled") => self.withdrawn(server, message),
            Some("notifications/resources/updated") => {
                self.to_listens("notifications/resources/updated", message.params());
                self.unsolicited_to_client(message.text().to_owned());
            }
            // Tasks are not in revision 2026-07-28's core: its clients hold none. Advisory
            // (the client polls).
            Some("notifications/tasks/status") if self.unsolicited() => {
                let status = self.tasks.status_for_client(server, message.text());
                self.notify_home(status);
            }
            Some("notifications/progress") => self.forward_progress(server, message),
            // Revision 2026-07-28 has no `elicitation/complete` (the client learns the outcome
            // by retrying); nothing else is the client's.
            _ => {}
        }
    }

    /// A notification the client did not ask for, when it may have one ([`Front::unsolicited`]).
    fn unsolicited_to_client(&self, text: String) {
        if self.unsolicited() {
            self.notify_home(text);
        }
    }

    /// A notification to every open listen that asked for it, tagged with its id.
    pub(super) fn to_listens(&self, method: &str, params: Option<&str>) {
        for (tag, notification) in self.modern.listens.fan_out(method, params) {
            let to = self.request_of(Cause::Request(tag));
            if let Some((link, id)) = to {
                link.offer(Outgoing::of(Carries::Update, Some(&id), notification));
            }
        }
    }

    /// The server withdrew a request put to the client: the client is told so under the
    /// proxy's id (dropping the wait sends it).
    fn withdrawn(&self, server: &str, message: &Message) {
        let request = message
            .params()
            .and_then(raw::entries)
            .and_then(|e| raw::get(&e, "requestId").map(token_key));
        if let Some(id) = &request {
            self.modern.rounds.withdraw(server, id);
        }
        let asked = request.and_then(|id| lock(&self.asking).remove(&(server.to_owned(), id)));
        if let Some(task) = asked {
            task.abort();
        }
    }

    /// Progress only for a call the client is waiting on, under the token it gave, from a
    /// server that call went to: a server's progress for anything else (another request's,
    /// another client's on the HTTP front) is nobody's business. (A call's own progress
    /// mostly takes its route, `Peer::route_progress`, and never comes here.)
    fn forward_progress(&self, server: &str, message: &Message) {
        let expected = message
            .progress_token()
            .and_then(|token| self.expects_progress(server, &token_key(&token)));
        if let Some(to) = expected {
            // A task's progress names the task as the client knows it.
            let text = tasks::notification_for_client(server, message.text());
            self.offer_about(Carries::Progress, to, text);
        }
    }

    /// A server's log message to the client, tagged with the server, when the client may
    /// hear it: once initialized (a 2025 client's logging is the session's), else the
    /// 2026-07-28 request it came for, if it opted in; one that no request can be told to
    /// have caused reaches none (it is on stderr).
    fn forward_log(&self, server: &str, message: &Message, cause: Cause) {
        if self.clients.initialized.load(Ordering::Relaxed) {
            // Advisory, like progress: dropped when the client reads slowly. On the request's
            // stream when it names one (an HTTP session's POST), else the connection's.
            let to = self.request_of(cause);
            self.offer_about(Carries::Log, to, tagged_log(server, message));
            return;
        }
        if !self.clients.serves_2026.load(Ordering::Relaxed) {
            return;
        }
        let level = message
            .params()
            .and_then(|params| raw::get_path(params, &["level"]))
            .and_then(raw::string);
        // A level the spec does not name is passed on: the client may know it.
        let level = level.as_deref().and_then(severity).unwrap_or(u8::MAX);
        let Some((link, id)) = self.log_owner(cause, level) else {
            if matches!(cause, Cause::Unknown { in_flight } if in_flight > 1) {
                let n = self.unheard.fetch_add(1, Ordering::Relaxed) + 1;
                if n.is_power_of_two() {
                    let why = "they came while several requests were in flight to the server";
                    tracing::warn!(
                        target: PROXY,
                        server,
                        "{n} log messages reached no client: {why}"
                    );
                }
            }
            return;
        };
        let line = tagged_log(server, message);
        link.offer(Outgoing::of(Carries::Log, Some(&id), line));
    }
}

/// A server's `notifications/message` for the client, its `logger` prefixed with the server's
/// name (`SERVER` alone when it named none); every other byte as sent.
fn tagged_log(server: &str, message: &Message) -> String {
    let text = message.text();
    let Some(params) = message.params() else {
        return text.to_owned();
    };
    let entries = raw::entries(params).unwrap_or_default();
    let logger = match raw::get(&entries, "logger").and_then(raw::string) {
        Some(logger) => format!("{server}/{logger}"),
        None => server.to_owned(),
    };
    let mut splice = raw::Splice::new(params);
    splice.set(params, &entries, "logger", raw::quote(&logger));
    wire::notification("notifications/message", Some(&splice.finish()))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::testing::{RecordingLink, listen, message, taken, toolbox};
    use super::super::{Front, Mode};
    use crate::mcp::proxy::front::link::{Carries, Link};
    use crate::mcp::proxy::servers::toolbox::Change;

    #[tokio::test]
    async fn a_list_change_reaches_each_listen_on_its_own_link_and_the_home_once_initialized() {
        let home = RecordingLink::new();
        let front = Front::start(toolbox(), Mode::Passthrough, Some(home.clone()));
        let (a, b) = (RecordingLink::new(), RecordingLink::new());
        let (la, lb): (Arc<dyn Link>, Arc<dyn Link>) = (a.clone(), b.clone());
        front.receive(listen("1"), &la).await;
        front.receive(listen("\"x\""), &lb).await;
        taken(&a, 1).await;
        taken(&b, 1).await;
        let change = Change::ServerGone {
            server: "s".to_owned(),
            reason: "test".to_owned(),
            capabilities: Vec::new(),
        };
        front.on_change(change).await;
        let (got_a, got_b) = (taken(&a, 1).await, taken(&b, 1).await);
        assert_eq!(got_a.len(), 1);
        assert_eq!(
            (got_a[0].0, got_a[0].1.as_deref()),
            (Carries::Update, Some("1"))
        );
        assert!(got_a[0].2.contains(r#"/subscriptionId":1}"#), "{got_a:?}");
        assert_eq!(got_b[0].1.as_deref(), Some("\"x\""));
        // A 2026-07-28 client that did not initialize hears list changes only on its listens.
        assert!(home.taken().is_empty());
        let init = r#"{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}"#;
        let home_link: Arc<dyn Link> = home.clone();
        front.receive(message(init), &home_link).await;
        assert_eq!(taken(&home, 1).await[0].0, Carries::Reply);
        front
            .on_change(Change::ServerGone {
                server: "s".to_owned(),
                reason: "test".to_owned(),
                capabilities: Vec::new(),
            })
            .await;
        let notices = taken(&home, 1).await;
        assert_eq!(notices.len(), 1);
        assert_eq!(
            (notices[0].0, notices[0].1.as_deref()),
            (Carries::Notice, None)
        );
        front.stop();
    }
}
