//! The front's answers to 2026-07-28 requests (see the module `era`): each request translated
//! for the legacy servers, served by the same code as a 2025-11-25 client's, and its reply
//! completed for the modern client; `server/discover`, `subscriptions/listen` and the multi
//! round-trip requests (the module `mrtr`) on top.

use std::sync::Arc;

use super::super::routes::offering;
use super::calls::CallPath;
use super::{Front, InFlight, Route};
use crate::mcp::EXECUTE_TOOL;
use crate::mcp::proxy::front::link::{Carries, Outgoing};
use crate::mcp::proxy::revisions::era::{self, Declared, SERVER_INFO_KEY};
use crate::mcp::proxy::revisions::listen::Filter;
use crate::mcp::proxy::revisions::mrtr::{Exchange, Worker};
use crate::mcp::proxy::servers::modern::{CLIENT_ROUNDS, ClientRounds};
use crate::mcp::proxy::sync::lock;
use crate::mcp::proxy::transport::peer::{BEHALF, Behalf, Cause, MAX_EXTENSIONS};
use crate::mcp::proxy::transport::wire::{self, Message, code};
use crate::mcp::raw;

impl Front {
    /// Answers a 2026-07-28 request (`id` as JSON text): the whole reply line; for
    /// `subscriptions/listen`, never (it lasts until the client cancels it).
    pub(super) async fn answer_modern(
        self: &Arc<Self>,
        id: &str,
        method: &str,
        message: &Message,
        declared: &Declared,
    ) -> String {
        let params = message.params().unwrap_or("{}");
        // `// 2026-07-28 changelog`: removed methods are unknown methods now.
        if era::legacy_only(method) {
            let text = format!("method not found: {method} (removed in revision 2026-07-28)");
            return wire::error(id, code::METHOD_NOT_FOUND, &text, None);
        }
        // `// 2026-07-28 server/utilities/logging`: a request opts in to log messages.
        if let Some(level) = &declared.log_level {
            self.set_log_level(level).await;
        }
        match method {
            "server/discover" => {
                self.toolbox.settled().await;
                wire::response(id, &self.discover())
            }
            "subscriptions/listen" => self.listen(id, params).await,
            // A 2026-07-28 server's rounds are the client's own, passed on as they come.
            "tools/call" | "prompts/get" | "resources/read"
                if self.reaches_a_modern_server(method, params).await =>
            {
                let forwarded = server_request(id, method, params);
                let rounds = ClientRounds {
                    capabilities: declared.capabilities.clone(),
                };
                let reply = CLIENT_ROUNDS
                    .scope(rounds, self.answer(id, method, &forwarded))
                    .await;
                completed(&reply, id, method, params)
            }
            // `// 2026-07-28 basic/patterns/mrtr`: the methods that may need the client's
            // input (lean mode's own meta-tools but `execute_tool` ask no server).
            "tools/call" | "prompts/get" | "resources/read"
                if self.reaches_a_server(method, params) =>
            {
                self.round_trip(id, method, params, declared).await
            }
            _ => {
                let forwarded = legacy_request(id, method, params);
                let reply = self.answer(id, method, &forwarded).await;
                completed(&reply, id, method, params)
            }
        }
    }

    /// `server/discover` (`// 2026-07-28 server/discover`): what `initialize` says, as a
    /// cacheable result.
    fn discover(&self) -> String {
        let versions: Vec<String> = era::served_versions().map(raw::quote).collect();
        let mut result = format!(
            r#"{{"resultType":"complete","supportedVersions":[{}],"capabilities":{}"#,
            versions.join(","),
            self.capabilities(false)
        );
        self.push_instructions(&mut result);
        result.push_str(&format!(
            r#","ttlMs":0,"cacheScope":"private","_meta":{{{}:{}}}}}"#,
            raw::quote(SERVER_INFO_KEY),
            super::initialize::server_info()
        ));
        result
    }

    /// A request that may take rounds: a new exchange, or the one its `requestState` names.
    async fn round_trip(
        self: &Arc<Self>,
        id: &str,
        method: &str,
        params: &str,
        declared: &Declared,
    ) -> String {
        let state =
            raw::entries(params).and_then(|e| raw::get(&e, "requestState").and_then(raw::string));
        let exchange = match state {
            Some(state) => {
                let resumed = self
                    .modern
                    .rounds
                    .resume(
                        &self.toolbox,
                        &state,
                        method,
                        params,
                        &declared.capabilities,
                    )
                    .await;
                match resumed {
                    Ok(exchange) => {
                        self.hears_for(&exchange);
                        // The server's call ended asking for URL elicitations: made again.
                        if let Some(worker) = self.modern.rounds.again(&exchange) {
                            self.run(&exchange, worker, method, params);
                        }
                        exchange
                    }
                    Err(why) => {
                        return wire::error(id, code::INVALID_PARAMS, &why.to_string(), None);
                    }
                }
            }
            None => {
                // The client of the request this round is (the task runs on its behalf).
                let client = Behalf::current().map_or_else(|| self.client_of(None), |b| b.client);
                let capabilities = &declared.capabilities;
                let (exchange, worker) =
                    self.modern
                        .rounds
                        .start(method, params, capabilities, client);
                self.hears_for(&exchange);
                self.run(&exchange, worker, method, params);
                exchange
            }
        };
        // As long as a person may take to answer, as for a 2025-11-25 client's questions.
        let patience = self
            .toolbox
            .options()
            .request_timeout
            .saturating_mul(MAX_EXTENSIONS);
        self.modern
            .rounds
            .wait(&self.toolbox, &exchange, id, patience)
            .await
    }

    /// What the exchange's call sends (log messages, progress) reaches the request this task
    /// answers from now on: set before the call is made, so that nothing it sends first finds
    /// no request to reach.
    fn hears_for(&self, exchange: &Exchange) {
        let Some(tag) = Behalf::current().map(|b| b.tag) else {
            return;
        };
        let mut in_flight = lock(&self.requests.in_flight);
        if let Some(call) = in_flight.values_mut().find(|call| call.tag == tag) {
            call.exchange = Some(exchange.behalf().tag);
        }
    }

    /// Starts an exchange's server call in its own task.
    fn run(self: &Arc<Self>, exchange: &Arc<Exchange>, worker: Worker, method: &str, params: &str) {
        let forwarded = legacy_request("0", method, params);
        let (this, method, running) = (self.clone(), method.to_owned(), exchange.clone());
        let progress_as = exchange.progress_as();
        let call = async move {
            let reply = this.answer("0", &method, &forwarded).await;
            this.modern.rounds.finished(&running);
            worker.done(reply).await;
        };
        let call = BEHALF.scope(exchange.behalf(), call);
        let work = tokio::spawn(super::PROGRESS_AS.scope(progress_as, call));
        exchange.set_work(work.abort_handle());
    }

    /// Whether a request may be sent to a server (all but lean mode's `discover_tools` and
    /// the full-definition tool, which the proxy answers itself). Before the catalog is
    /// known, whether a name is a server's tool is not: the way that lets a server ask the
    /// client is the one that is right either way.
    fn reaches_a_server(&self, method: &str, params: &str) -> bool {
        if method != "tools/call" {
            return true;
        }
        let name = raw::entries(params).and_then(|e| raw::get(&e, "name").and_then(raw::string));
        let Some(name) = name else {
            return true;
        };
        match self.call_path(&name) {
            Some(CallPath::Spec) => false,
            Some(CallPath::Meta) => name == EXECUTE_TOOL,
            Some(CallPath::Server | CallPath::Checked) | None => true,
        }
    }

    /// Whether the request goes to a server that speaks 2026-07-28 (as far as what was
    /// listed tells: an unknown name takes the proxy's own rounds, right either way).
    async fn reaches_a_modern_server(&self, method: &str, params: &str) -> bool {
        let member = |key: &str| raw::get_path(params, &[key]).and_then(raw::string);
        let server = match method {
            "tools/call" => match member("name") {
                Some(name) => {
                    // A tool of a server still starting is waited for, as its call would be.
                    self.toolbox.until_routable(&name).await;
                    let tool = self
                        .toolbox
                        .catalog()
                        .get(&name)
                        .map(|t| t.server().to_owned());
                    tool.filter(|_| matches!(self.call_path(&name), Some(CallPath::Server)))
                }
                None => None,
            },
            "prompts/get" => member("name").and_then(|name| self.routes.known_prompt(&name)),
            "resources/read" => member("uri").and_then(|uri| self.routes.known_resource(&uri)),
            _ => None,
        };
        server
            .and_then(|server| self.toolbox.server(&server))
            .is_some_and(|upstream| upstream.is_modern())
    }

    /// `subscriptions/listen` (`// 2026-07-28 basic/patterns/subscriptions`): acknowledged
    /// with what the proxy honours, then open until the client cancels it; the servers are
    /// subscribed to its resources meanwhile.
    async fn listen(self: &Arc<Self>, id: &str, params: &str) -> String {
        self.toolbox.settled().await;
        // A server still starting may send them: honoured as asked (#60).
        let starting = !self.toolbox.is_ready();
        let asked = Filter::of_request(params);
        // Tool list changes come from the proxy's own catalog; the others only from a server
        // that says it sends them.
        let mut honoured = Filter {
            tools: asked.tools,
            prompts: asked.prompts && (starting || self.any_declares("prompts", "listChanged")),
            resources: asked.resources
                && (starting || self.any_declares("resources", "listChanged")),
            uris: Vec::new(),
        };
        let mut subscribe = Vec::new();
        // The servers are listed again at most once for the whole listen, however many URIs
        // nobody listed.
        let mut listed = false;
        for uri in asked.uris {
            if self.modern.listens.watches(&uri) {
                honoured.uris.push(uri);
            } else if self.subscribable(&uri, &mut listed).await {
                subscribe.push(uri.clone());
                honoured.uris.push(uri);
            }
        }
        // The acknowledgement first, then the servers' updates (which may come at once).
        let tag = Behalf::current().map_or(0, |b| b.tag);
        let ack = self.modern.listens.open(tag, id, honoured);
        let _closing = Closing {
            front: self.clone(),
            tag,
        };
        if let Some((link, id)) = self.here() {
            link.send(Outgoing::of(Carries::Update, Some(&id), ack))
                .await;
        }
        self.modern.listens.acknowledged(tag);
        for uri in subscribe {
            let params = format!(r#"{{"uri":{}}}"#, raw::quote(&uri));
            let subscribed = self
                .routes
                .answer(&self.toolbox, "resources/subscribe", &params)
                .await;
            if let Err(e) = subscribed {
                tracing::warn!(
                    target: crate::mcp::proxy::log::PROXY,
                    "[proxy] resources/subscribe {uri}: {e}"
                );
            }
        }
        // Its end is the client's `notifications/cancelled`, which drops this future.
        std::future::pending().await
    }

    /// Whether a server that offers subscriptions serves `uri`: by what was listed, or (when
    /// `listed` is still `false`, which it then becomes) by listing the servers again.
    async fn subscribable(&self, uri: &str, listed: &mut bool) -> bool {
        let server = match self.routes.known_resource(uri) {
            Some(server) => Some(server),
            None if !*listed => {
                *listed = true;
                let servers = offering(&self.toolbox, "resources");
                self.routes
                    .resource_server(&self.toolbox, &servers, uri)
                    .await
            }
            None => None,
        };
        let Some(server) = server else {
            return false;
        };
        self.toolbox.server(&server).is_some_and(|s| {
            s.initialize_result()["capabilities"]["resources"]["subscribe"]
                == serde_json::Value::Bool(true)
        })
    }

    /// Sets the servers' log level for an opted-in request (once per level change).
    async fn set_log_level(&self, level: &str) {
        {
            let mut last = lock(&self.modern.log_level);
            if last.as_deref() == Some(level) {
                return;
            }
            *last = Some(level.to_owned());
        }
        let params = format!(r#"{{"level":{}}}"#, raw::quote(level));
        let _ = self
            .routes
            .answer(&self.toolbox, "logging/setLevel", &params)
            .await;
    }

    /// The 2026-07-28 request (its id, JSON text) a server's log message is for: the request
    /// it came for (`cause`: it is read in order with the replies, so before that request's
    /// own), if that request opted in at `level` ([`severity`](super::severity)) or below
    /// (`// 2026-07-28 server/utilities/logging`).
    ///
    /// A log message that may be about any of one client's requests (its last call was just
    /// answered, its next one runs) is that client's, on a front with one client (stdio, a
    /// session): the first of its requests in flight that opted in hears it. On the stateless
    /// front, where each request is answered on its own POST, it reaches only the request it
    /// came for (requests of one client cookie do not hear one another's).
    pub(super) fn log_owner(&self, cause: Cause, level: u8) -> Option<Route> {
        let one_client = self.clients.one.is_some();
        let of = |call: &InFlight| match cause {
            Cause::Request(tag) => call.is_for(tag),
            Cause::Client { client, .. } => one_client && call.client == client,
            Cause::Unknown { .. } => false,
        };
        lock(&self.requests.in_flight)
            .values()
            .find(|call| call.log_level.is_some_and(|least| level >= least) && of(call))
            .map(|call| (call.link.clone(), call.id.clone()))
    }
}

/// Ends a listen when its task is dropped (the client cancelled it): the servers are
/// unsubscribed from the resources no other listen wants.
struct Closing {
    front: Arc<Front>,
    /// The listen's request ([`Behalf::tag`]).
    tag: u64,
}

impl Drop for Closing {
    fn drop(&mut self) {
        let uris = self.front.modern.listens.close(self.tag);
        if uris.is_empty() {
            return;
        }
        let front = self.front.clone();
        tokio::spawn(async move {
            for uri in uris {
                let params = format!(r#"{{"uri":{}}}"#, raw::quote(&uri));
                let _ = front
                    .routes
                    .answer(&front.toolbox, "resources/unsubscribe", &params)
                    .await;
            }
        });
    }
}

/// A server's reply to the request (`method`, `params` as the client sent them) as the
/// 2026-07-28 client's, under `id` ([`era::complete_reply`], the resource's URI its own).
fn completed(reply: &str, id: &str, method: &str, params: &str) -> String {
    let uri = raw::get_path(params, &["uri"]).and_then(raw::string);
    era::complete_reply(reply, id, method, uri.as_deref())
}

/// The request as a 2026-07-28 server takes it, under `id`: as sent but `task` (the proxy
/// offers no tasks extension); the server's connection writes its own envelope.
fn server_request(id: &str, method: &str, params: &str) -> Message {
    let entries = raw::entries(params).unwrap_or_default();
    let mut splice = raw::Splice::new(params);
    splice.remove(params, &entries, "task");
    let text = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":{},"params":{}}}"#,
        raw::quote(method),
        splice.finish()
    );
    Message::parse(text).unwrap_or_else(|_| legacy_request(id, method, "{}"))
}

/// The request as a legacy server takes it (see [`era::legacy_params`]), under `id`.
fn legacy_request(id: &str, method: &str, params: &str) -> Message {
    let text = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":{},"params":{}}}"#,
        raw::quote(method),
        era::legacy_params(params)
    );
    Message::parse(text).unwrap_or_else(|_| {
        Message::parse(format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":{}}}"#,
            raw::quote(method)
        ))
        .expect("a JSON object")
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::testing::{RecordingLink, toolbox};
    use super::super::{Front, InFlight, Mode};
    use crate::mcp::proxy::front::link::Link;
    use crate::mcp::proxy::sync::lock;
    use crate::mcp::proxy::transport::peer::{Cause, ClientId};

    /// Two requests of one client in flight, each opted in to log messages at any level.
    fn two_requests(front: &Front, client: ClientId) {
        for (tag, id) in [(1, "1"), (2, "2")] {
            let link: Arc<dyn Link> = RecordingLink::new();
            let task = tokio::spawn(std::future::pending::<()>()).abort_handle();
            let call = InFlight {
                task,
                link: link.clone(),
                id: id.to_owned(),
                tag,
                client,
                exchange: None,
                progress_token: None,
                log_level: Some(0),
            };
            lock(&front.requests.in_flight).insert((link.id(), id.to_owned()), call);
        }
    }

    #[tokio::test]
    async fn a_log_message_of_one_client_s_requests_reaches_one_only_on_a_one_client_front() {
        let client = ClientId::new();
        let either = Cause::Client {
            client,
            in_flight: 2,
        };
        // Stdio, a session: the client's first request that opted in hears it.
        let one = Front::start(toolbox(), Mode::Passthrough, Some(RecordingLink::new()));
        let mine = one.clients.one.unwrap();
        two_requests(&one, mine);
        let either_of_mine = Cause::Client {
            client: mine,
            in_flight: 2,
        };
        assert!(one.log_owner(either_of_mine, 3).is_some());
        // Stateless: requests of one cookie hear only their own, never one another's.
        let shared = Front::start(toolbox(), Mode::Passthrough, None);
        two_requests(&shared, client);
        assert!(shared.log_owner(either, 3).is_none());
        let (_, id) = shared.log_owner(Cause::Request(2), 3).expect("its own");
        assert_eq!(id, "2");
    }
}
