//! Revision 2026-07-28 towards a server (`// 2026-07-28 basic/index`, `server/discover`,
//! `basic/patterns/mrtr`, `basic/patterns/subscriptions`), for an [`Upstream`] whose
//! [`Revision`] chose it:
//!
//! - the connection opens with `server/discover` instead of `initialize`, and its result is
//!   read as an `initialize` result would be (capabilities, `serverInfo`, instructions);
//! - every request carries the `_meta` envelope: the revision, the proxy's `clientInfo` and
//!   the capabilities its client declared (a log level once a client set one: 2026-07-28 has
//!   no `logging/setLevel`, no `ping` and no `resources/subscribe`, which are answered here);
//! - a result's `resultType` is read. `input_required` is a round: each of its input requests
//!   is put to the client as the request a 2025-11-25 server would have sent
//!   (`sampling/createMessage`, `elicitation/create`, `roots/list`), as a
//!   [`ServerEvent::Request`] whose cause is exactly the request being served (never
//!   guessed), and the request is sent again with the answers as `inputResponses` and the
//!   server's `requestState` as it gave it. The fronts above serve these questions as they
//!   serve any server's: a 2025-11-25 client is asked on its session, a 2026-07-28 client gets
//!   its own `input_required` rounds;
//! - list changes, and updates of the resources a client subscribed to, come on a
//!   `subscriptions/listen` stream opened after discovery (and again with each subscription),
//!   as the notifications a 2025-11-25 server sends.
//!
//! A server that breaks the revision gets a clear error on the request concerned: rounds past
//! [`MAX_ROUNDS`], none or more than [`MAX_INPUT_REQUESTS`] questions in one, a method that is
//! not an input request, a `resultType` the revision does not have. A result without
//! `resultType` is complete (the suite's reference server sends none on tool results).
//!
//! [`Upstream`]: super::upstream::Upstream
//! [`Revision`]: super::revision::Revision

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{Value as Json, json};
use tokio::sync::{Notify, mpsc, oneshot};
use tokio::task::AbortHandle;

use super::upstream::{ServerEvent, client_info};
use crate::mcp::proxy::error::CallError;
use crate::mcp::proxy::sync::lock;
use crate::mcp::proxy::transport::peer::{Behalf, Cause, MAX_EXTENSIONS, Peer, outcome};
use crate::mcp::proxy::transport::wire::Message;
use crate::mcp::proxy::transport::wire::meta::{
    CAPABILITIES_KEY, CLIENT_INFO_KEY, LOG_LEVEL_KEY, SERVER_INFO_KEY, VERSION_KEY,
};
use crate::mcp::raw;

/// The revision spoken to such a server.
pub(crate) const VERSION: &str = "2026-07-28";

/// Rounds of `input_required` one request may take before it fails.
pub const MAX_ROUNDS: usize = 16;

/// Input requests one round may carry.
pub const MAX_INPUT_REQUESTS: usize = 16;

/// The start of the ids under which a server's input requests are put to the client, then
/// 128 random bits of the connection's ([`Modern::prefix`]): a server cannot send a request of
/// its own under such an id, whose answer would then be taken for a round's.
const QUESTION_ID: &str = "toon-input-";

/// Resource subscriptions one connection carries on its listen stream.
pub const MAX_SUBSCRIPTIONS: usize = 1024;

/// How long a listen stream that ended at once waits before it is opened again, at first.
const LISTEN_AGAIN: Duration = Duration::from_millis(500);
/// The longest such wait; a stream open longer than this starts the delay over.
const LISTEN_AGAIN_MAX: Duration = Duration::from_secs(60);

/// A 2026-07-28 client's request made to a 2026-07-28 server on its behalf: the server is told
/// the client's own capabilities, and the rounds are the client's (`input_required` goes back
/// to it as the server sent it, keys and `requestState` included; its retry's
/// `inputResponses` and `requestState` go on as it sent them). Set by the front around such a
/// request ([`CLIENT_ROUNDS`]).
#[derive(Clone, Debug)]
pub(crate) struct ClientRounds {
    /// The capabilities the client's request declared (JSON text).
    pub(crate) capabilities: String,
}

tokio::task_local! {
    /// The 2026-07-28 client request whose rounds the task passes on (see [`ClientRounds`]).
    pub(crate) static CLIENT_ROUNDS: ClientRounds;
}

/// The 2026-07-28 side of one server's connection.
pub(crate) struct Modern {
    server: String,
    /// The server's connection.
    peer: Peer,
    /// The client capabilities declared on every request (JSON text).
    capabilities: String,
    /// The log level the client asked for (`logging/setLevel`), sent on every request.
    log_level: Mutex<Option<String>>,
    events: mpsc::Sender<ServerEvent>,
    /// Questions put to the client and not answered, by id (JSON text).
    questions: Mutex<HashMap<String, oneshot::Sender<Message>>>,
    /// `toon-input-`, 32 random hex digits and `-`: the start of this connection's question
    /// ids.
    prefix: String,
    next: AtomicU64,
    /// The open listen stream's task, and the server's capabilities it was opened for.
    listen: Mutex<Option<AbortHandle>>,
    listening: Mutex<Option<Json>>,
    /// The resources a 2025-11-25 client subscribed to (`resources/subscribe`), on the listen.
    subscribed: Mutex<Vec<String>>,
}

impl std::fmt::Debug for Modern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Modern")
            .field("server", &self.server)
            .finish_non_exhaustive()
    }
}

impl Drop for Modern {
    fn drop(&mut self) {
        if let Some(listen) = lock(&self.listen).take() {
            listen.abort();
        }
    }
}

impl Modern {
    pub(crate) fn new(
        peer: Peer,
        server: &str,
        capabilities: &str,
        events: mpsc::Sender<ServerEvent>,
    ) -> Self {
        Modern {
            server: server.to_owned(),
            peer,
            capabilities: capabilities.to_owned(),
            log_level: Mutex::new(None),
            events,
            questions: Mutex::new(HashMap::new()),
            prefix: question_prefix(),
            next: AtomicU64::new(1),
            listen: Mutex::new(None),
            listening: Mutex::new(None),
            subscribed: Mutex::new(Vec::new()),
        }
    }

    /// The envelope's `_meta` members (JSON text without the braces), declaring the
    /// capabilities of the client the connection was opened for.
    fn envelope(&self) -> String {
        self.envelope_declaring(&self.capabilities)
    }

    /// The envelope's members declaring `capabilities` (JSON text).
    fn envelope_declaring(&self, capabilities: &str) -> String {
        let client_info = client_info();
        let mut members = format!(
            "{}:{},{}:{},{}:{}",
            raw::quote(VERSION_KEY),
            raw::quote(VERSION),
            raw::quote(CLIENT_INFO_KEY),
            client_info,
            raw::quote(CAPABILITIES_KEY),
            capabilities
        );
        if let Some(level) = lock(&self.log_level).as_deref() {
            members.push_str(&format!(
                ",{}:{}",
                raw::quote(LOG_LEVEL_KEY),
                raw::quote(level)
            ));
        }
        members
    }

    /// `server/discover`'s params: the envelope alone.
    pub(crate) fn discover_params(&self) -> String {
        format!(r#"{{"_meta":{{{}}}}}"#, self.envelope())
    }

    /// `params` (JSON text; none is `{}`) with the envelope in its `_meta`, beside what the
    /// request had there (a progress token); an envelope key it had is the proxy's now.
    pub(crate) fn enveloped(&self, params: Option<&str>) -> String {
        self.enveloped_as(params, &self.envelope())
    }

    /// `params` with `envelope` (the members of [`envelope`](Self::envelope)) in its `_meta`.
    fn enveloped_as(&self, params: Option<&str>, envelope: &str) -> String {
        let params = params.unwrap_or("{}");
        let Some(entries) = raw::entries(params) else {
            return params.to_owned();
        };
        let kept: Vec<String> = raw::get(&entries, "_meta")
            .and_then(raw::entries)
            .unwrap_or_default()
            .iter()
            .filter(|m| !m.key.starts_with("io.modelcontextprotocol/"))
            .map(|m| format!("{}:{}", raw::quote(&m.key), m.value))
            .collect();
        let mut meta = format!("{{{envelope}");
        for member in kept {
            meta.push(',');
            meta.push_str(&member);
        }
        meta.push('}');
        let mut splice = raw::Splice::new(params);
        splice.set(params, &entries, "_meta", meta);
        splice.finish()
    }

    /// Sends a request and serves its `input_required` rounds; the final reply.
    ///
    /// # Errors
    /// As the peer's, and a server that breaks the revision's rounds (a clear
    /// [`CallError::BadReply`]), or the client's error to one of its questions.
    pub(crate) async fn request(
        &self,
        method: &str,
        params: Option<&str>,
        timeout: Duration,
        activity: Option<&Notify>,
    ) -> Result<Message, CallError> {
        // Removed in 2026-07-28: what they did is the envelope's (`// 2026-07-28 changelog`).
        if let Some(answer) = self.answered_here(method, params) {
            return answer;
        }
        // The client's own rounds: one request, its reply as the server sent it.
        if let Ok(rounds) = CLIENT_ROUNDS.try_with(Clone::clone) {
            let envelope = self.envelope_declaring(&rounds.capabilities);
            let params = self.enveloped_as(params, &envelope);
            let reply = self
                .peer
                .request_watched(method, Some(&params), timeout, activity)
                .await?;
            return self.checked_round(method, reply);
        }
        let mut params = self.enveloped(params);
        for _ in 0..MAX_ROUNDS {
            let reply = self
                .peer
                .request_watched(method, Some(&params), timeout, activity)
                .await?;
            let Some(result) = reply.result() else {
                return Ok(reply);
            };
            let entries = raw::entries(result).unwrap_or_default();
            if !self.input_required(method, &entries)? {
                return Ok(reply);
            }
            let responses = self
                .ask(method, raw::get(&entries, "inputRequests"), timeout)
                .await?;
            params = retry(&params, &responses, raw::get(&entries, "requestState"));
        }
        Err(self.broke(
            method,
            format!("input_required more than {MAX_ROUNDS} times for one request"),
        ))
    }

    /// Whether a result (its members) is an `input_required` round, by its `resultType`;
    /// absent is complete (the conformance suite's reference server sends none on a tool's
    /// result, and a client reads it so), one the revision does not have is an error.
    fn input_required(&self, method: &str, result: &[raw::Member<'_>]) -> Result<bool, CallError> {
        let Some(kind) = raw::get(result, "resultType") else {
            return Ok(false);
        };
        match raw::string(kind).as_deref() {
            Some("complete") => Ok(false),
            Some("input_required") => Ok(true),
            _ => Err(self.broke(method, format!("a result of resultType {kind}"))),
        }
    }

    fn broke(&self, method: &str, why: String) -> CallError {
        CallError::BadReply {
            server: self.server.clone(),
            method: method.to_owned(),
            why,
        }
    }

    /// What a 2026-07-28 server does not have, answered by the proxy: `ping`;
    /// `logging/setLevel` (the level goes on every later request's envelope);
    /// `resources/subscribe` and `resources/unsubscribe` (the listen stream is opened again
    /// with the resources subscribed to: `// 2026-07-28 basic/patterns/subscriptions`).
    fn answered_here(
        &self,
        method: &str,
        params: Option<&str>,
    ) -> Option<Result<Message, CallError>> {
        let member =
            |key: &str| params.and_then(|p| raw::get_path(p, &[key]).and_then(raw::string));
        match method {
            "ping" => {}
            "logging/setLevel" => *lock(&self.log_level) = member("level"),
            "resources/subscribe" | "resources/unsubscribe" => {
                let uri = member("uri").unwrap_or_default();
                {
                    let mut subscribed = lock(&self.subscribed);
                    subscribed.retain(|u| *u != uri);
                    if method == "resources/subscribe" {
                        if subscribed.len() >= MAX_SUBSCRIPTIONS {
                            return Some(Err(CallError::Remote {
                                server: self.server.clone(),
                                code: crate::mcp::proxy::transport::wire::code::INVALID_PARAMS,
                                message: format!(
                                    "more than {MAX_SUBSCRIPTIONS} resource subscriptions on \
                                     one server"
                                ),
                                data: None,
                            }));
                        }
                        subscribed.push(uri);
                    }
                }
                let listening = lock(&self.listening).clone();
                if let Some(capabilities) = listening {
                    self.listen(&capabilities);
                }
            }
            _ => return None,
        }
        Message::parse(r#"{"jsonrpc":"2.0","id":0,"result":{}}"#.to_owned())
            .ok()
            .map(Ok)
    }

    /// Puts a round's input requests (`requests`, JSON text of an object) to the client and
    /// waits for every answer: the `inputResponses` object (JSON text).
    async fn ask(
        &self,
        method: &str,
        requests: Option<&str>,
        timeout: Duration,
    ) -> Result<String, CallError> {
        let requests = self.round(method, requests)?;
        // The request being served is the questions' cause, exactly.
        let cause =
            Behalf::current().map_or(Cause::Unknown { in_flight: 0 }, |b| Cause::Request(b.tag));
        let mut open = Open {
            modern: self,
            ids: Vec::new(),
        };
        let mut waiting = Vec::new();
        for request in &requests {
            let (id, message) = self.question(method, request)?;
            let (tx, rx) = oneshot::channel();
            lock(&self.questions).insert(id.clone(), tx);
            self.peer.asked_for(&id, cause);
            open.ids.push(id);
            let event = ServerEvent::Request {
                server: self.server.clone(),
                message,
            };
            if self.events.send(event).await.is_err() {
                return Err(CallError::internal(&self.server, "the proxy is stopping"));
            }
            waiting.push((&request.key, rx));
        }
        // A person may be answering: as long as a legacy server's question may wait.
        let wait = timeout.saturating_mul(MAX_EXTENSIONS);
        let mut responses = Vec::with_capacity(waiting.len());
        for (key, rx) in waiting {
            let answer = match tokio::time::timeout(wait, rx).await {
                Ok(Ok(answer)) => answer,
                Ok(Err(_)) => return Err(CallError::internal(&self.server, "a question was lost")),
                Err(_) => {
                    return Err(CallError::Timeout {
                        server: self.server.clone(),
                        method: method.to_owned(),
                        after: wait,
                    });
                }
            };
            let Some(result) = answer.result() else {
                if answer.error().is_some() {
                    return Err(outcome(&self.server, answer).unwrap_err());
                }
                let why = "the client answered its question with neither a result nor an error";
                return Err(CallError::internal(&self.server, why));
            };
            responses.push(format!("{}:{result}", raw::quote(key)));
        }
        Ok(format!("{{{}}}", responses.join(",")))
    }

    /// A round's input requests (`requests`: the `inputRequests` object, JSON text), or why
    /// the server broke the revision: none, more than [`MAX_INPUT_REQUESTS`], a key twice
    /// (one answer would be lost), or one that is not an object naming an input request's
    /// method, with object params if any.
    fn round<'t>(
        &self,
        method: &str,
        requests: Option<&'t str>,
    ) -> Result<Vec<InputRequest<'t>>, CallError> {
        let requests = requests.and_then(raw::entries).unwrap_or_default();
        if requests.is_empty() || requests.len() > MAX_INPUT_REQUESTS {
            let why = format!(
                "input_required with {} input requests (1 to {MAX_INPUT_REQUESTS} expected)",
                requests.len()
            );
            return Err(self.broke(method, why));
        }
        let mut keys: Vec<&str> = requests.iter().map(|r| r.key.as_ref()).collect();
        keys.sort_unstable();
        if keys.windows(2).any(|pair| pair[0] == pair[1]) {
            let why = "input_required naming one input request key twice".to_owned();
            return Err(self.broke(method, why));
        }
        let mut checked = Vec::with_capacity(requests.len());
        for request in requests {
            let entries = raw::entries(request.value).unwrap_or_default();
            let Some(asked) = input_method(&entries) else {
                let why = "an input request that is none of sampling/createMessage, \
                           elicitation/create and roots/list";
                return Err(self.broke(method, why.into()));
            };
            let params = raw::get(&entries, "params");
            if params.is_some_and(|p| !p.trim_start().starts_with('{')) {
                let why = "an input request whose params are not an object";
                return Err(self.broke(method, why.into()));
            }
            checked.push(InputRequest {
                key: request.key.into_owned(),
                method: asked,
                params,
            });
        }
        Ok(checked)
    }

    /// A 2026-07-28 client's own round, passed on as the server sent it once it is one the
    /// revision allows (else a clear error, as for any client).
    fn checked_round(&self, method: &str, reply: Message) -> Result<Message, CallError> {
        let Some(result) = reply.result() else {
            return Ok(reply);
        };
        let entries = raw::entries(result).unwrap_or_default();
        if self.input_required(method, &entries)? {
            self.round(method, raw::get(&entries, "inputRequests"))?;
        }
        Ok(reply)
    }

    /// One input request (checked by [`round`](Self::round)) as a server request to put to
    /// the client, under an id of the proxy's.
    fn question(
        &self,
        method: &str,
        request: &InputRequest<'_>,
    ) -> Result<(String, Message), CallError> {
        let id = raw::quote(&format!(
            "{}{}",
            self.prefix,
            self.next.fetch_add(1, Ordering::Relaxed)
        ));
        let params = request
            .params
            .map(|p| format!(r#","params":{p}"#))
            .unwrap_or_default();
        let text = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":{}{params}}}"#,
            raw::quote(&request.method)
        );
        let message = Message::parse(text)
            .map_err(|_| self.broke(method, "an input request the proxy cannot read".into()))?;
        Ok((id, message))
    }

    /// Takes `text`, a message the front sends the server, when it answers one of the
    /// proxy's questions (`true`): it goes to the round waiting for it, not to the server.
    pub(crate) fn take_answer(&self, text: &str) -> bool {
        if memchr::memmem::find(text.as_bytes(), self.prefix.as_bytes()).is_none() {
            return false;
        }
        let Ok(message) = Message::parse(text.to_owned()) else {
            return false;
        };
        // Any message under such an id is the client's answer, well formed or not.
        let Some(id) = message.id().filter(|_| message.method().is_none()) else {
            return false;
        };
        let Some(waiting) = lock(&self.questions).remove(id) else {
            // Not a question open now: a late answer is dropped, never sent to the server.
            return id.contains(&self.prefix);
        };
        let _ = waiting.send(message);
        true
    }

    /// Opens a `subscriptions/listen` stream for the list changes the server's capabilities
    /// (`initialize`-like JSON) say it sends, and the resources subscribed to; its
    /// notifications reach the proxy as any server's do. Opened again when it ends, until the
    /// server's connection closes; a stream open before is closed (cancelled).
    pub(crate) fn listen(&self, capabilities: &Json) {
        *lock(&self.listening) = Some(capabilities.clone());
        let changes = |key: &str| capabilities[key]["listChanged"] == json!(true);
        let subscribed = lock(&self.subscribed).clone();
        let mut filter = json!({
            "toolsListChanged": changes("tools"),
            "promptsListChanged": changes("prompts"),
            "resourcesListChanged": changes("resources"),
        });
        if !subscribed.is_empty() {
            filter["resourceSubscriptions"] = json!(subscribed);
        }
        if let Some(open) = lock(&self.listen).take() {
            open.abort();
        }
        let wanted = filter
            .as_object()
            .is_some_and(|f| f.values().any(|v| v != false));
        if !wanted {
            return;
        }
        let params = format!(
            r#"{{"_meta":{{{}}},"notifications":{filter}}}"#,
            self.envelope()
        );
        let task = tokio::spawn(keep_listening(self.peer.clone(), params));
        *lock(&self.listen) = Some(task.abort_handle());
    }
}

/// A listen stream kept open until the connection closes: opened again when it ends, after a
/// delay that doubles (up to [`LISTEN_AGAIN_MAX`]) while it keeps ending at once; never again
/// when the server does not have the method.
async fn keep_listening(peer: Peer, params: String) {
    // Open until the server ends it (a year stands for ever on a timer).
    let forever = Duration::from_secs(365 * 24 * 3600);
    let mut delay = LISTEN_AGAIN;
    while peer.closed().is_none() {
        let opened = tokio::time::Instant::now();
        let ended = peer
            .request("subscriptions/listen", Some(&params), forever)
            .await;
        if let Err(CallError::Remote { code, .. }) = ended
            && code == crate::mcp::proxy::transport::wire::code::METHOD_NOT_FOUND
        {
            return;
        }
        delay = if opened.elapsed() > LISTEN_AGAIN_MAX {
            LISTEN_AGAIN
        } else {
            delay.saturating_mul(2).min(LISTEN_AGAIN_MAX)
        };
        tokio::time::sleep(delay).await;
    }
}

/// The `initialize` result a `server/discover` result (JSON text) stands for, or why it does
/// not: it must list revision 2026-07-28.
pub(crate) fn initialize_of(result: &str) -> Result<Json, String> {
    let discovered: Json =
        serde_json::from_str(result).map_err(|e| format!("server/discover's result: {e}"))?;
    let versions = &discovered["supportedVersions"];
    if !versions
        .as_array()
        .is_some_and(|v| v.iter().any(|v| v == VERSION))
    {
        return Err(format!(
            "supportedVersions {versions}, which does not name {VERSION}"
        ));
    }
    let mut initialize = json!({
        "protocolVersion": VERSION,
        "capabilities": discovered.get("capabilities").cloned().unwrap_or(json!({})),
    });
    if let Some(info) = discovered["_meta"].get(SERVER_INFO_KEY) {
        initialize["serverInfo"] = info.clone();
    }
    if let Some(instructions) = discovered.get("instructions") {
        initialize["instructions"] = instructions.clone();
    }
    Ok(initialize)
}

/// The retry of a request (`params`, JSON text): `inputResponses` the answers, and
/// `requestState` the server's as it gave it (none: none).
fn retry(params: &str, responses: &str, state: Option<&str>) -> String {
    let entries = raw::entries(params).unwrap_or_default();
    let mut splice = raw::Splice::new(params);
    splice.set(params, &entries, "inputResponses", responses.to_owned());
    let with_answers = splice.finish();
    let entries = raw::entries(&with_answers).unwrap_or_default();
    let mut splice = raw::Splice::new(&with_answers);
    match state {
        Some(state) => splice.set(&with_answers, &entries, "requestState", state.to_owned()),
        None => splice.remove(&with_answers, &entries, "requestState"),
    }
    splice.finish()
}

/// One input request of a round, checked ([`Modern::round`]).
struct InputRequest<'t> {
    /// Its key in `inputRequests` (its answer's in `inputResponses`).
    key: String,
    method: String,
    /// Its params (JSON text, an object), if any.
    params: Option<&'t str>,
}

/// The proxy's questions of one round, forgotten when the round ends however it ends.
struct Open<'m> {
    modern: &'m Modern,
    ids: Vec<String>,
}

impl Drop for Open<'_> {
    fn drop(&mut self) {
        let unanswered: Vec<&String> = {
            let mut questions = lock(&self.modern.questions);
            self.ids
                .iter()
                .filter(|id| questions.remove(*id).is_some())
                .collect()
        };
        for id in &self.ids {
            if unanswered.contains(&id) {
                // The round ended first (cancelled, failed, timed out): the client is told.
                let why = "the request it was asked for has ended";
                self.modern.peer.withdraw(id, why);
            } else {
                self.modern.peer.settle(id);
            }
        }
    }
}

/// The method of an input request (its members), when it is one a client may be asked
/// (`// 2026-07-28 basic/patterns/mrtr`).
fn input_method(entries: &[raw::Member<'_>]) -> Option<String> {
    raw::get(entries, "method")
        .and_then(raw::string)
        .filter(|m| {
            matches!(
                m.as_str(),
                "sampling/createMessage" | "elicitation/create" | "roots/list"
            )
        })
}

/// `toon-input-`, 128 random bits in hex, `-`: the start of one connection's question ids
/// (from the clock and the process when the system has no randomness to give).
fn question_prefix() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        bytes = (nanos ^ u128::from(std::process::id()) << 64).to_le_bytes();
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{QUESTION_ID}{hex}-")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connection's 2026-07-28 side over a pipe nobody reads (the tests send nothing).
    fn modern() -> Modern {
        let (events, _) = mpsc::channel(1);
        let (ours, _theirs) = tokio::io::duplex(1 << 10);
        let (reader, writer) = tokio::io::split(ours);
        let (inbound, _) = crate::mcp::proxy::transport::inbound::queue();
        let peer = Peer::start("s", reader, writer, inbound, None);
        Modern::new(peer, "s", r#"{"sampling":{}}"#, events)
    }

    #[tokio::test]
    async fn every_request_carries_the_envelope_beside_its_own_meta() {
        let m = modern();
        let params: Json =
            serde_json::from_str(&m.enveloped(Some(r#"{"name":"t","_meta":{"progressToken":3}}"#)))
                .unwrap();
        let meta = &params["_meta"];
        assert_eq!(meta[VERSION_KEY], VERSION);
        assert_eq!(meta[CAPABILITIES_KEY], json!({"sampling": {}}));
        assert_eq!(meta[CLIENT_INFO_KEY]["name"], "toon-mcp-proxy");
        assert_eq!(meta["progressToken"], 3);
        assert_eq!(params["name"], "t");
        let bare: Json = serde_json::from_str(&m.enveloped(None)).unwrap();
        assert_eq!(bare["_meta"][VERSION_KEY], VERSION);
        // A client's own envelope keys never go through: the proxy's are sent.
        let forged = format!(r#"{{"_meta":{{"{VERSION_KEY}":"1999-01-01"}}}}"#);
        let sent: Json = serde_json::from_str(&m.enveloped(Some(&forged))).unwrap();
        assert_eq!(sent["_meta"][VERSION_KEY], VERSION);
        assert!(
            m.answered_here("logging/setLevel", Some(r#"{"level":"debug"}"#))
                .is_some()
        );
        let leveled: Json = serde_json::from_str(&m.enveloped(None)).unwrap();
        assert_eq!(leveled["_meta"][LOG_LEVEL_KEY], "debug");
    }

    #[test]
    fn a_retry_carries_the_answers_and_the_server_s_state_untouched() {
        let first = retry(r#"{"name":"t"}"#, r#"{"a":{"x":1}}"#, Some(r#""s1""#));
        let first: Json = serde_json::from_str(&first).unwrap();
        assert_eq!(first["inputResponses"], json!({"a": {"x": 1}}));
        assert_eq!(first["requestState"], "s1");
        let second = retry(&first.to_string(), r#"{"b":{}}"#, None);
        let second: Json = serde_json::from_str(&second).unwrap();
        assert_eq!(second["inputResponses"], json!({"b": {}}));
        assert!(second.get("requestState").is_none());
        assert_eq!(second["name"], "t");
    }

    #[test]
    fn discovery_stands_for_initialize_only_with_the_revision_listed() {
        let result = format!(
            r#"{{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{{"tools":{{}}}},"instructions":"i","_meta":{{"{SERVER_INFO_KEY}":{{"name":"n","version":"1"}}}}}}"#
        );
        let init = initialize_of(&result).unwrap();
        assert_eq!(init["capabilities"], json!({"tools": {}}));
        assert_eq!(init["serverInfo"]["name"], "n");
        assert_eq!(init["instructions"], "i");
        let old = initialize_of(r#"{"supportedVersions":["2025-11-25"]}"#).unwrap_err();
        assert!(old.contains("does not name 2026-07-28"), "{old}");
    }

    #[tokio::test]
    async fn only_input_requests_become_questions_and_answers_are_taken_once() {
        let m = modern();
        let round = m
            .round(
                "tools/call",
                Some(r#"{"r":{"method":"roots/list","params":{}}}"#),
            )
            .unwrap();
        let (id, message) = m.question("tools/call", &round[0]).unwrap();
        assert_eq!(message.method(), Some("roots/list"));
        assert!(
            m.round("tools/call", Some(r#"{"x":{"method":"tools/call"}}"#))
                .is_err()
        );
        let (tx, mut rx) = oneshot::channel();
        lock(&m.questions).insert(id.clone(), tx);
        let answer = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"roots":[]}}}}"#);
        assert!(m.take_answer(&answer));
        assert!(rx.try_recv().is_ok());
        // Late: dropped, not sent on to the server.
        assert!(m.take_answer(&answer));
        assert!(!m.take_answer(r#"{"jsonrpc":"2.0","id":7,"result":{}}"#));
        // An id a server may choose for a request of its own is never taken for a question's:
        // the prefix is random per connection.
        assert!(id.len() > QUESTION_ID.len() + 32, "{id}");
        assert!(!m.take_answer(r#"{"jsonrpc":"2.0","id":"toon-input-1","result":{}}"#));
        assert_ne!(m.prefix, modern().prefix);
    }

    #[tokio::test]
    async fn a_round_the_revision_does_not_allow_is_refused() {
        let m = modern();
        let round = |requests: &str| m.round("tools/call", Some(requests)).map(|r| r.len());
        assert_eq!(round(r#"{"a":{"method":"roots/list"}}"#).unwrap(), 1);
        for bad in [
            "{}",
            r#"{"a":{"method":"roots/list"},"a":{"method":"roots/list"}}"#,
            r#"{"a":{"method":"roots/list","params":5}}"#,
            r#"{"a":{"method":"tools/list"}}"#,
            r#"{"a":7}"#,
        ] {
            let e = round(bad).unwrap_err();
            assert!(matches!(e, CallError::BadReply { .. }), "{bad}: {e}");
        }
        let many: Vec<String> = (0..=MAX_INPUT_REQUESTS)
            .map(|i| format!(r#""k{i}":{{"method":"roots/list"}}"#))
            .collect();
        assert!(round(&format!("{{{}}}", many.join(","))).is_err());
    }
}
