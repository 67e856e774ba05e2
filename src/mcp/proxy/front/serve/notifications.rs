//! A server's notifications on their way to the client, handed over as the server's
//! connection reads them (`Toolbox::route_notifications`), so that they reach the client in
//! the order the server sent them, log messages and updates alike, and a request's log
//! messages and progress before its answer. Nothing here waits: what the client's connection
//! cannot take within its byte bound is dropped there, counted and logged, and no server is
//! held up by a client that reads slowly.

use std::sync::atomic::Ordering;

use super::{Front, RELATED_KEY, severity, tasks};
use crate::mcp::proxy::log::PROXY;
use crate::mcp::proxy::sync::lock;
use crate::mcp::proxy::transport::peer::Cause;
use crate::mcp::proxy::transport::wire::{self, Message, token_key};
use crate::mcp::raw;

impl Front {
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
                let _ = self.client.try_send(status);
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
            let _ = self.client.try_send(text);
        }
    }

    /// A notification to every open listen that asked for it, tagged with its id.
    pub(super) fn to_listens(&self, method: &str, params: Option<&str>) {
        for notification in self.listens.fan_out(method, params) {
            let _ = self.client.try_send(notification);
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
            self.rounds.withdraw(server, id);
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
            .is_some_and(|token| self.expects_progress(server, &token_key(&token)));
        if expected {
            // A task's progress names the task as the client knows it.
            let text = tasks::notification_for_client(server, message.text());
            let _ = self.client.try_send(text);
        }
    }

    /// A server's log message to the client, tagged with the server, when the client may
    /// hear it: once initialized (a 2025 client's logging is the session's), else the
    /// 2026-07-28 request it came for, if it opted in; one that no request can be told to
    /// have caused reaches none (it is on stderr).
    fn forward_log(&self, server: &str, message: &Message, cause: Cause) {
        if self.initialized.load(Ordering::Relaxed) {
            // Advisory, like progress: dropped when the client reads slowly.
            let _ = self.client.try_send(tagged_log(server, message));
            return;
        }
        if !self.serves_2026.load(Ordering::Relaxed) {
            return;
        }
        let level = message
            .params()
            .and_then(|params| raw::get_path(params, &["level"]))
            .and_then(raw::string);
        // A level the spec does not name is passed on: the client may know it.
        let level = level.as_deref().and_then(severity).unwrap_or(u8::MAX);
        let Some(id) = self.log_owner(cause, level) else {
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
        let mut line = tagged_log(server, message);
        if self.related {
            line = format!("{{{}:{id},{}", raw::quote(RELATED_KEY), &line[1..]);
        }
        let _ = self.client.try_send(line);
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
