//! Multi round-trip requests for 2026-07-28 clients (`// 2026-07-28 basic/patterns/mrtr`): a
//! legacy server's `sampling/createMessage`, `elicitation/create` or `roots/list`, sent while
//! it works on a modern client's `tools/call`, `prompts/get` or `resources/read`, becomes that
//! request's `input_required` result; the client's retry (a new id, the same params,
//! `inputResponses` and the `requestState` echoed) answers the server's request, and waits
//! for the next question or the final result.
//!
//! The server's call goes on in its own task between rounds (an [`Exchange`]). Which
//! exchange a server's question belongs to is not on the wire (stdio has no related-request
//! id): the server's connection tells it ([`Cause`]) only when every request the question may
//! be about was made for one client request. A question goes to that request's exchange, and
//! never to another client's request (the HTTP front's stateless requests share one front,
//! each its own client unless its client cookie names one); a question a server asks just
//! after answering one client's request may go to that same client's next one. An
//! exchange whose round declared a
//! capability a question may need starts its server call once no other request is in flight
//! to that server and no other client's was just answered ([`Behalf::alone`]), so that its
//! questions can be told to be its own; its own client's answered requests never hold it. A question whose
//! request the proxy cannot tell, whose request did not declare what it needs, or past
//! [`QUEUED_STEPS`] waiting in its exchange, is refused to the server with an error that says
//! why (a modern client can only be asked within one of its requests), and so are the
//! questions still open when their exchange's call ends. Only `sampling/createMessage`,
//! `elicitation/create` and `roots/list` are claimed: nothing else can be an input request
//! (`// 2026-07-28 basic/patterns/mrtr`).
//!
//! A legacy server's `-32042` (URL elicitation required, 2025-11-25 only) ends its call asking
//! the user to visit URLs: its `error.data.elicitations` become a round, and the retry makes
//! the call again, as a 2025-11-25 client does once the user has been there
//! (`// 2026-07-28 client/elicitation` "URL Mode Flow").
//!
//! `requestState` is `toon1.` and 128 random bits (hex) from the operating system, new every
//! round and good for one retry: a key into state the proxy keeps, so nothing in it is
//! trusted, and a forged or replayed one names nothing. The exchange remembers the request's
//! method and params (less `_meta` and the round-trip fields); a retry that differs is
//! refused (`// 2026-07-28 basic/patterns/mrtr` "Security considerations").
//!
//! Bounds: an exchange waits for its retry as long as a person may take to answer (the
//! request timeout times [`MAX_EXTENSIONS`](crate::mcp::proxy::transport::peer::MAX_EXTENSIONS)); then, or when
//! [`MAX_WAITING`] others are waiting and it is the oldest, or when the client cancels the
//! retry it was waiting under, the server's questions are answered with an error and its call
//! is cancelled (`notifications/cancelled`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value as Json;
use tokio::sync::mpsc::{self, error::TryRecvError, error::TrySendError};
use tokio::task::AbortHandle;

use super::era;

/// Why a retry's `requestState` continues no exchange (the retry is refused, `-32602`).
#[derive(Debug, thiserror::Error)]
pub(crate) enum StateError {
    /// It names no exchange the proxy holds.
    #[error(
        "requestState names no request the proxy is holding (expired, already used, or not the \
         proxy's): send the request again without it"
    )]
    Unknown,
    /// It names another request's exchange.
    #[error(
        "requestState belongs to another request: a retry repeats the request's method and params"
    )]
    OtherRequest,
}
use crate::mcp::proxy::servers::toolbox::Toolbox;
use crate::mcp::proxy::sync::lock;
use crate::mcp::proxy::transport::peer::{Behalf, Cause, ClientId};
use crate::mcp::proxy::transport::wire::{self, Message, code};
use crate::mcp::raw;

/// Exchanges waiting for their client's retry at once; a new one past this ends the oldest.
pub const MAX_WAITING: usize = 64;

/// How long after a server's question its next one still joins the same round.
const TOGETHER: Duration = Duration::from_millis(50);

/// Questions one exchange may have queued (not yet read by a round); more are refused.
const QUEUED_STEPS: usize = 32;

/// A server's question put to the client.
#[derive(Debug)]
struct Question {
    /// Its key in `inputRequests`.
    key: String,
    server: String,
    /// The server's id for it (JSON text); `None` for a URL elicitation of the proxy's own
    /// (from a `-32042`), which no server waits on.
    id: Option<String>,
    method: String,
    params: Option<String>,
}

/// What an exchange's server did next.
enum Next {
    Question(Question),
    /// The reply to the request (a whole response line, any id).
    Done(String),
}

/// One modern request whose server call runs across the client's rounds.
pub(crate) struct Exchange {
    serial: u64,
    /// The client request its server call is made for.
    behalf: Behalf,
    method: String,
    fingerprint: Json,
    /// The capabilities of the latest round (JSON text): what the client may be asked.
    capabilities: Mutex<String>,
    /// Where questions are queued: only the [`Worker`] holds the channel open, so it closes
    /// when the server call ends or is aborted.
    steps_tx: Mutex<mpsc::WeakSender<Next>>,
    /// Whether the retry makes the server call again: it ended with a `-32042` (URL
    /// elicitation required), put to the client as rounds.
    again: std::sync::atomic::AtomicBool,
    steps: tokio::sync::Mutex<mpsc::Receiver<Next>>,
    /// Questions put to the client and not answered yet.
    pending: Mutex<Vec<Question>>,
    work: Mutex<Option<AbortHandle>>,
    keys: AtomicU64,
    /// The progress token of the latest round (JSON text): the server's call keeps the first
    /// round's, and its progress reaches the client under this one; none while the exchange
    /// waits for a retry, or when the latest round gave none.
    progress: ProgressAs,
}

/// The server call's end of an exchange: the task doing the call holds it (the only sender of
/// the exchange's steps), and hands over the reply.
pub(crate) struct Worker(mpsc::Sender<Next>);

impl Worker {
    /// The server call's reply (a whole response line): the end of the exchange.
    pub(crate) async fn done(self, reply: String) {
        let _ = self.0.send(Next::Done(reply)).await;
    }
}

/// What became of a server's request put to the rounds ([`Rounds::claim`]).
pub(crate) enum Claim {
    /// Its exchange took it: the client is asked in its next round.
    Taken,
    /// Its exchange cannot take it: the server is to be answered with this error (code,
    /// message).
    Refused(Message, i64, String),
    /// It came for no running exchange, or the proxy cannot tell which.
    Unclaimed(Message),
}

/// Where a call's progress notifications are to be re-addressed: the token (JSON text) the
/// client waits on now.
pub(crate) type ProgressAs = Arc<Mutex<Option<String>>>;

impl Exchange {
    /// Records the task doing the server call.
    pub(crate) fn set_work(&self, work: AbortHandle) {
        *lock(&self.work) = Some(work);
    }

    /// The token its server call's progress is to reach the client under.
    pub(crate) fn progress_as(&self) -> ProgressAs {
        self.progress.clone()
    }

    /// The client request its server call is made for ([`Behalf`]: set on the task doing it).
    pub(crate) fn behalf(&self) -> Behalf {
        self.behalf
    }

    /// Whether the latest round declared what `method` needs.
    fn can_take(&self, method: &str) -> bool {
        capability_of(method).is_some_and(|c| era::declares(&lock(&self.capabilities), c))
    }

    /// Queues a question for the next round, under a key of this exchange; never waits.
    fn queue(&self, mut asked: Question) -> Result<(), TrySendError<()>> {
        let steps = lock(&self.steps_tx).upgrade();
        let Some(steps) = steps else {
            return Err(TrySendError::Closed(()));
        };
        asked.key = format!(
            "{}-{}",
            asked.method.split('/').next().unwrap_or("input"),
            self.keys.fetch_add(1, Ordering::Relaxed)
        );
        steps.try_send(Next::Question(asked)).map_err(|e| match e {
            TrySendError::Full(_) => TrySendError::Full(()),
            TrySendError::Closed(_) => TrySendError::Closed(()),
        })
    }

    /// Answers the questions of a call that has ended (asked late, still open or queued) with
    /// an error, closing its queue of steps.
    async fn refuse_late(&self, toolbox: &Toolbox, steps: &mut mpsc::Receiver<Next>) {
        steps.close();
        let mut open: Vec<Question> = lock(&self.pending).drain(..).collect();
        while let Ok(step) = steps.try_recv() {
            if let Next::Question(asked) = step {
                open.push(asked);
            }
        }
        for asked in open {
            refuse(toolbox, &asked, "the request this was asked for has ended").await;
        }
    }

    /// A legacy server's URL elicitations (its `-32042`) as the next round's questions, the
    /// call to be made again on the retry; the answer to the client's request `id` instead
    /// when the request does not declare the elicitation capability.
    fn url_round(&self, id: &str, elicitations: Vec<String>) -> Result<(), wire::Refusal> {
        if !self.can_take("elicitation/create") {
            let why = "the server requires a URL elicitation, and the request does not declare \
                       the client's elicitation capability";
            let data = r#"{"requiredCapabilities":{"elicitation":{"url":{}}}}"#;
            return Err(wire::Refusal(wire::error(
                id,
                code::MISSING_REQUIRED_CLIENT_CAPABILITY,
                why,
                Some(data),
            )));
        }
        let mut pending = lock(&self.pending);
        for params in elicitations {
            let n = self.keys.fetch_add(1, Ordering::Relaxed);
            pending.push(Question {
                key: format!("elicitation-{n}"),
                server: String::new(),
                id: None,
                method: "elicitation/create".to_owned(),
                params: Some(params),
            });
        }
        self.again.store(true, Ordering::Relaxed);
        Ok(())
    }

    /// The open questions as the members of an `input_required` result's `inputRequests`.
    fn input_requests(&self) -> Vec<String> {
        lock(&self.pending)
            .iter()
            .map(|a| {
                format!(
                    r#"{}:{{"method":{},"params":{}}}"#,
                    raw::quote(&a.key),
                    raw::quote(&a.method),
                    client_params(&a.method, a.params.as_deref())
                )
            })
            .collect()
    }
}

/// Exchanges waiting for a retry, by `requestState`, with the timers that end them.
type Waiting = Arc<Mutex<HashMap<String, (Arc<Exchange>, AbortHandle)>>>;

/// Exchanges whose server call runs.
type Running = Arc<Mutex<Vec<Arc<Exchange>>>>;

/// The exchanges of one client connection.
#[derive(Default)]
pub(crate) struct Rounds {
    running: Running,
    /// By `requestState`: exchanges waiting for a retry, with their timers.
    waiting: Waiting,
    serial: AtomicU64,
}

impl Rounds {
    /// A new exchange for a modern request (its method, params as sent, its capabilities),
    /// running until [`finished`](Self::finished); and the [`Worker`] for the task doing its
    /// server call.
    pub(crate) fn start(
        &self,
        method: &str,
        params: &str,
        capabilities: &str,
        client: ClientId,
    ) -> (Arc<Exchange>, Worker) {
        let (steps_tx, steps) = mpsc::channel(QUEUED_STEPS);
        // A request that may be asked runs alone on its server: its questions are then known
        // to be its own.
        let askable = ["sampling", "elicitation", "roots"]
            .iter()
            .any(|c| era::declares(capabilities, c));
        let exchange = Arc::new(Exchange {
            serial: self.serial.fetch_add(1, Ordering::Relaxed),
            behalf: Behalf::new(askable, client),
            method: method.to_owned(),
            fingerprint: era::fingerprint(params),
            capabilities: Mutex::new(capabilities.to_owned()),
            steps_tx: Mutex::new(steps_tx.downgrade()),
            again: std::sync::atomic::AtomicBool::new(false),
            steps: tokio::sync::Mutex::new(steps),
            pending: Mutex::default(),
            work: Mutex::default(),
            keys: AtomicU64::new(1),
            progress: Arc::new(Mutex::new(wire::request_progress_token(params))),
        });
        lock(&self.running).push(exchange.clone());
        (exchange, Worker(steps_tx))
    }

    /// The exchange's server call has ended: its server's questions are no longer its.
    pub(crate) fn finished(&self, exchange: &Arc<Exchange>) {
        lock(&self.running).retain(|e| !Arc::ptr_eq(e, exchange));
    }

    /// Puts a server's question (`sampling/createMessage`, `elicitation/create`,
    /// `roots/list`) into the exchange of the client request it came for (`cause`), if that
    /// request's latest round declared the capability it needs. Never waits: what an exchange
    /// cannot queue is refused.
    pub(crate) fn claim(&self, server: &str, message: Message, cause: Cause) -> Claim {
        let (Some(id), Some(method)) = (message.id(), message.method()) else {
            return Claim::Unclaimed(message);
        };
        let (Some(capability), Cause::Request(tag)) = (capability_of(method), cause) else {
            return Claim::Unclaimed(message);
        };
        let exchange = lock(&self.running)
            .iter()
            .find(|e| e.behalf.tag == tag)
            .cloned();
        let Some(exchange) = exchange else {
            return Claim::Unclaimed(message);
        };
        if !exchange.can_take(method) {
            // `// 2026-07-28 basic/index` "Request metadata": an undeclared capability is
            // never relied on.
            let why = format!(
                "the client's request this was asked within does not declare the {capability} \
                 capability"
            );
            return Claim::Refused(message, code::METHOD_NOT_FOUND, why);
        }
        let asked = Question {
            key: String::new(),
            server: server.to_owned(),
            id: Some(id.to_owned()),
            method: method.to_owned(),
            params: message.params().map(str::to_owned),
        };
        match exchange.queue(asked) {
            Ok(()) => Claim::Taken,
            Err(TrySendError::Full(())) => {
                let why = format!(
                    "{QUEUED_STEPS} questions of this server already wait for the client's next \
                     round"
                );
                Claim::Refused(message, code::INTERNAL_ERROR, why)
            }
            // Its call has just ended.
            Err(TrySendError::Closed(())) => Claim::Unclaimed(message),
        }
    }

    /// A server withdrew its question (`notifications/cancelled`): it is not asked again.
    pub(crate) fn withdraw(&self, server: &str, id: &str) {
        let exchanges: Vec<Arc<Exchange>> = lock(&self.running).clone();
        for exchange in exchanges {
            lock(&exchange.pending).retain(|a| {
                !(a.server == server
                    && a.id
                        .as_deref()
                        .map(crate::mcp::proxy::transport::wire::token_key)
                        == Some(crate::mcp::proxy::transport::wire::token_key(id)))
            });
        }
    }

    /// The exchange a retry's `requestState` names, its questions answered from the retry's
    /// `inputResponses`. The retry's own capabilities replace the earlier round's.
    ///
    /// # Errors
    /// Why the state names no exchange, or not this request's ([`StateError`]).
    pub(crate) async fn resume(
        &self,
        toolbox: &Toolbox,
        state: &str,
        method: &str,
        params: &str,
        capabilities: &str,
    ) -> Result<Arc<Exchange>, StateError> {
        let exchange = {
            let mut waiting = lock(&self.waiting);
            let Some((exchange, _)) = waiting.get(state) else {
                return Err(StateError::Unknown);
            };
            if exchange.method != method || exchange.fingerprint != era::fingerprint(params) {
                return Err(StateError::OtherRequest);
            }
            let (exchange, timer) = waiting.remove(state).expect("just found");
            timer.abort();
            exchange
        };
        *lock(&exchange.capabilities) = capabilities.to_owned();
        *lock(&exchange.progress) = wire::request_progress_token(params);
        let responses = raw::entries(params)
            .and_then(|e| raw::get(&e, "inputResponses").map(|r| r.to_owned()))
            .unwrap_or_default();
        let responses = raw::entries(&responses).unwrap_or_default();
        // `// 2026-07-28 basic/patterns/mrtr`: an `InputResponse` is a result, an object; any
        // other value answers nothing, and the question is asked again.
        let answers =
            |key: &str| raw::get(&responses, key).filter(|r| r.trim_start().starts_with('{'));
        let answered: Vec<Question> = {
            let mut pending = lock(&exchange.pending);
            let (answered, open) = pending.drain(..).partition(|a| answers(&a.key).is_some());
            *pending = open;
            answered
        };
        for asked in answered {
            let (Some(result), Some(id)) = (answers(&asked.key), &asked.id) else {
                continue;
            };
            if let Some(server) = toolbox.server(&asked.server) {
                server.notify(wire::response(id, result)).await;
            }
        }
        Ok(exchange)
    }

    /// Waits for the exchange's next step and answers the client's request `id` with it:
    /// the final result, or `input_required` with every open question and a new
    /// `requestState` (the exchange then waits for the retry, at most `patience`). When this
    /// future is dropped first (the client cancelled), the exchange ends.
    pub(crate) async fn wait(
        &self,
        toolbox: &Arc<Toolbox>,
        exchange: &Arc<Exchange>,
        id: &str,
        patience: Duration,
    ) -> String {
        let mut guard = Abandon {
            rounds: self,
            toolbox: toolbox.clone(),
            exchange: Some(exchange.clone()),
        };
        let mut steps = exchange.steps.lock().await;
        loop {
            // What came while nobody waited; then (when no question is open) the next step;
            // with a question open, a moment for the server's next one, so that questions
            // asked together go in one round.
            let next = match steps.try_recv() {
                Ok(step) => Some(step),
                Err(TryRecvError::Disconnected) => None,
                Err(TryRecvError::Empty) if lock(&exchange.pending).is_empty() => {
                    steps.recv().await
                }
                Err(TryRecvError::Empty) => {
                    match tokio::time::timeout(TOGETHER, steps.recv()).await {
                        Ok(step) => step,
                        Err(_) => break,
                    }
                }
            };
            match next {
                Some(Next::Question(asked)) if exchange.can_take(&asked.method) => {
                    lock(&exchange.pending).push(asked);
                }
                Some(Next::Question(asked)) => {
                    // The retry declared less than the round that took it: the server is told
                    // (`// 2026-07-28 basic/index` "Request metadata": an undeclared
                    // capability is never relied on).
                    let why = "the client's request no longer declares the capability this needs";
                    refuse(toolbox, &asked, why).await;
                }
                Some(Next::Done(reply)) => {
                    guard.exchange = None;
                    // Questions of a request that has ended (asked late) are answered: never
                    // left open on their server, never put to another request.
                    exchange.refuse_late(toolbox, &mut steps).await;
                    // `// 2026-07-28 client/elicitation` "URL Mode Flow": a legacy server's
                    // -32042 (2025-11-25 only) becomes a round of URL elicitations, and the
                    // retry sends the request again, as a 2025-11-25 client does once the
                    // user has been to the URL.
                    if let Some(elicitations) = url_elicitations(&reply) {
                        if let Err(wire::Refusal(refusal)) = exchange.url_round(id, elicitations) {
                            return refusal;
                        }
                        break;
                    }
                    let uri = exchange.fingerprint["uri"].as_str();
                    return era::complete_reply(&reply, id, &exchange.method, uri);
                }
                None => {
                    // The task doing the server call is gone without a reply.
                    guard.exchange = None;
                    drop(steps);
                    let why = "the proxy lost the server's call";
                    end(toolbox, &self.running, exchange, why).await;
                    return wire::error(id, code::INTERNAL_ERROR, why, None);
                }
            }
        }
        drop(steps);
        let Some(state) = token() else {
            let why = "the proxy could not draw a random requestState";
            return wire::error(id, code::INTERNAL_ERROR, why, None);
        };
        let requests = exchange.input_requests();
        // No progress reaches the client between rounds: it waits on no token now.
        *lock(&exchange.progress) = None;
        self.park(toolbox, &state, exchange.clone(), patience);
        guard.exchange = None;
        let result = format!(
            r#"{{"resultType":"input_required","inputRequests":{{{}}},"requestState":{}}}"#,
            requests.join(","),
            raw::quote(&state)
        );
        wire::response(id, &result)
    }

    /// When the exchange's server call is to be made again ([`Exchange`]'s `again`): a new
    /// [`Worker`] for it, the exchange running again and its questions forgotten (the server
    /// asks again what it still needs).
    pub(crate) fn again(&self, exchange: &Arc<Exchange>) -> Option<Worker> {
        if !exchange.again.swap(false, Ordering::Relaxed) {
            return None;
        }
        let (steps_tx, steps) = mpsc::channel(QUEUED_STEPS);
        // Nobody waits on an exchange that was just resumed.
        *exchange.steps.try_lock().ok()? = steps;
        *lock(&exchange.steps_tx) = steps_tx.downgrade();
        lock(&exchange.pending).clear();
        lock(&self.running).push(exchange.clone());
        Some(Worker(steps_tx))
    }

    /// Keeps `exchange` for the retry carrying `state`, for at most `patience`; the oldest
    /// waiting exchange ends when [`MAX_WAITING`] are.
    fn park(
        &self,
        toolbox: &Arc<Toolbox>,
        state: &str,
        exchange: Arc<Exchange>,
        patience: Duration,
    ) {
        let evicted = {
            let mut waiting = lock(&self.waiting);
            let oldest = (waiting.len() >= MAX_WAITING)
                .then(|| {
                    waiting
                        .iter()
                        .min_by_key(|(_, (e, _))| e.serial)
                        .map(|(k, _)| k.clone())
                })
                .flatten();
            let evicted = oldest.and_then(|k| waiting.remove(&k));
            let timer = {
                let waiting = self.waiting.clone();
                let running = self.running.clone();
                let toolbox = toolbox.clone();
                let state = state.to_owned();
                tokio::spawn(async move {
                    tokio::time::sleep(patience).await;
                    let expired = lock(&waiting).remove(&state);
                    if let Some((exchange, _)) = expired {
                        let why = "the client did not come back with an answer";
                        end(&toolbox, &running, &exchange, why).await;
                    }
                })
            };
            waiting.insert(state.to_owned(), (exchange, timer.abort_handle()));
            evicted
        };
        if let Some((exchange, timer)) = evicted {
            timer.abort();
            let (toolbox, running) = (toolbox.clone(), self.running.clone());
            tokio::spawn(async move {
                let why = "too many requests of the client were waiting for its answers";
                end(&toolbox, &running, &exchange, why).await;
            });
        }
    }

    /// Ends every exchange (the client is gone).
    pub(crate) fn clear(&self) {
        for (_, (exchange, timer)) in lock(&self.waiting).drain() {
            timer.abort();
            if let Some(work) = lock(&exchange.work).take() {
                work.abort();
            }
        }
        for exchange in lock(&self.running).drain(..) {
            if let Some(work) = lock(&exchange.work).take() {
                work.abort();
            }
        }
    }
}

/// Ends an exchange nobody will continue: its server's open questions (put to the client, or
/// still queued) are answered with an error, and its call is cancelled (dropping the call's
/// future tells the server, and closes the exchange's queue).
async fn end(toolbox: &Toolbox, running: &Running, exchange: &Arc<Exchange>, why: &str) {
    lock(running).retain(|e| !Arc::ptr_eq(e, exchange));
    if let Some(work) = lock(&exchange.work).take() {
        work.abort();
    }
    let mut open: Vec<Question> = lock(&exchange.pending).drain(..).collect();
    // Nobody waits on an exchange that ends, so its queue is free.
    if let Ok(mut steps) = exchange.steps.try_lock() {
        steps.close();
        while let Ok(step) = steps.try_recv() {
            if let Next::Question(asked) = step {
                open.push(asked);
            }
        }
    }
    for asked in open {
        refuse(toolbox, &asked, why).await;
    }
}

/// Answers a server's question with an error.
async fn refuse(toolbox: &Toolbox, asked: &Question, why: &str) {
    let Some(id) = &asked.id else {
        return;
    };
    if let Some(server) = toolbox.server(&asked.server) {
        let reply = wire::error(id, code::INTERNAL_ERROR, why, None);
        server.notify(reply).await;
    }
}

/// Ends the exchange when a wait is dropped before it answered (the client cancelled).
struct Abandon<'r> {
    rounds: &'r Rounds,
    toolbox: Arc<Toolbox>,
    exchange: Option<Arc<Exchange>>,
}

impl Drop for Abandon<'_> {
    fn drop(&mut self) {
        let Some(exchange) = self.exchange.take() else {
            return;
        };
        let (toolbox, running) = (self.toolbox.clone(), self.rounds.running.clone());
        tokio::spawn(async move {
            end(
                &toolbox,
                &running,
                &exchange,
                "the client cancelled its request",
            )
            .await;
        });
    }
}

/// The client capability a server's question needs; `None` for a request that cannot be an
/// input request (`// 2026-07-28 basic/patterns/mrtr`: `InputRequest` is sampling, roots or
/// elicitation).
pub(crate) fn capability_of(method: &str) -> Option<&'static str> {
    match method {
        "sampling/createMessage" => Some("sampling"),
        "elicitation/create" => Some("elicitation"),
        "roots/list" => Some("roots"),
        _ => None,
    }
}

/// The URL elicitations (params as a 2026-07-28 client takes them) of a legacy server's
/// `-32042` reply (a whole response line): its `error.data.elicitations`.
fn url_elicitations(reply: &str) -> Option<Vec<String>> {
    let message = Message::parse(reply.to_owned()).ok()?;
    let error = raw::entries(message.error()?)?;
    if raw::get(&error, "code")? != code::URL_ELICITATION_REQUIRED.to_string() {
        return None;
    }
    let elicitations = raw::get_path(message.error()?, &["data", "elicitations"])?;
    let elicitations: Vec<String> = raw::items(elicitations)?
        .into_iter()
        .filter(|e| e.get().trim_start().starts_with('{'))
        .map(|e| client_params("elicitation/create", Some(e.get())))
        .collect();
    (!elicitations.is_empty()).then_some(elicitations)
}

/// A new `requestState`: `toon1.` and 128 random bits in hex.
fn token() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    let mut out = String::from("toon1.");
    for b in bytes {
        out.push_str(&format!("{b:02x}"));
    }
    Some(out)
}

/// A server's question's params as a 2026-07-28 client takes them: an `elicitation/create`
/// without `elicitationId` (URL elicitation has none in 2026-07-28: the client learns the
/// outcome by retrying); the rest as sent.
fn client_params(method: &str, params: Option<&str>) -> String {
    let params = params.unwrap_or("{}");
    if method != "elicitation/create" {
        return params.to_owned();
    }
    let Some(entries) = raw::entries(params) else {
        return params.to_owned();
    };
    if raw::get(&entries, "elicitationId").is_none() {
        return params.to_owned();
    }
    let mut splice = raw::Splice::new(params);
    splice.remove(params, &entries, "elicitationId");
    splice.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_are_fresh_and_long() {
        let (a, b) = (token().unwrap(), token().unwrap());
        assert_ne!(a, b);
        assert_eq!(a.len(), "toon1.".len() + 32);
    }

    #[tokio::test]
    async fn at_most_max_waiting_exchanges_wait_and_the_oldest_goes_first() {
        let config =
            crate::mcp::proxy::servers::config::Config::from_str(r#"{"mcpServers":{}}"#).unwrap();
        let toolbox = Toolbox::start(
            &config,
            crate::mcp::proxy::servers::toolbox::Options::default(),
        );
        let rounds = Rounds::default();
        let patience = Duration::from_secs(60);
        let mut states = Vec::new();
        for n in 0..=MAX_WAITING {
            let params = format!(r#"{{"name":"t","arguments":{{"n":{n}}}}}"#);
            let (exchange, _worker) = rounds.start("tools/call", &params, "{}", ClientId::new());
            let state = token().unwrap();
            rounds.park(&toolbox, &state, exchange, patience);
            states.push((state, params));
        }
        assert_eq!(lock(&rounds.waiting).len(), MAX_WAITING);
        let (oldest, params) = &states[0];
        let gone = rounds
            .resume(&toolbox, oldest, "tools/call", params, "{}")
            .await;
        assert!(gone.is_err());
        // The evicted exchange no longer claims anything.
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(lock(&rounds.running).len(), MAX_WAITING);
        let (newest, params) = &states[MAX_WAITING];
        let wrong = rounds
            .resume(&toolbox, newest, "prompts/get", params, "{}")
            .await;
        assert!(wrong.is_err());
        let resumed = rounds
            .resume(&toolbox, newest, "tools/call", params, "{}")
            .await;
        assert!(resumed.is_ok());
        assert!(
            rounds
                .resume(&toolbox, newest, "tools/call", params, "{}")
                .await
                .is_err()
        );
    }

    #[tokio::test]
    async fn questions_go_only_to_the_request_they_came_for() {
        let config =
            crate::mcp::proxy::servers::config::Config::from_str(r#"{"mcpServers":{}}"#).unwrap();
        let toolbox = Toolbox::start(
            &config,
            crate::mcp::proxy::servers::toolbox::Options::default(),
        );
        let rounds = Rounds::default();
        let elicits = r#"{"elicitation":{}}"#;
        // Three clients' requests.
        let (none, _w0) = rounds.start("tools/call", "{}", "{}", ClientId::new());
        let (first, worker) = rounds.start("tools/call", "{}", elicits, ClientId::new());
        let (other, w2) = rounds.start("tools/call", "{}", elicits, ClientId::new());
        assert!(!none.behalf().alone && first.behalf().alone);
        let ask = |id: u32, method: &str| {
            let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"}}"#);
            Message::parse(text).unwrap()
        };
        let of = |e: &Arc<Exchange>| Cause::Request(e.behalf().tag);
        // Not an input request; a request the proxy cannot tell; one it made for nobody.
        assert!(matches!(
            rounds.claim("s", ask(1, "tasks/get"), of(&first)),
            Claim::Unclaimed(_)
        ));
        let unknown = Cause::Unknown { in_flight: 2 };
        assert!(matches!(
            rounds.claim("s", ask(2, "elicitation/create"), unknown),
            Claim::Unclaimed(_)
        ));
        assert!(matches!(
            rounds.claim("s", ask(3, "elicitation/create"), Cause::Request(u64::MAX)),
            Claim::Unclaimed(_)
        ));
        // Its request did not declare what it needs: refused, not put to another.
        assert!(matches!(
            rounds.claim("s", ask(4, "elicitation/create"), of(&none)),
            Claim::Refused(_, code::METHOD_NOT_FOUND, _)
        ));
        assert!(matches!(
            rounds.claim("s", ask(5, "elicitation/create"), of(&first)),
            Claim::Taken
        ));
        let queued = |e: &Arc<Exchange>| e.steps.try_lock().unwrap().len();
        assert_eq!((queued(&none), queued(&first), queued(&other)), (0, 1, 0));
        // Its call ends with the question open: the question goes to nobody else.
        rounds.finished(&first);
        worker.done(wire::response("0", "{}")).await;
        let reply = rounds
            .wait(&toolbox, &first, "9", Duration::from_secs(60))
            .await;
        assert!(reply.contains(r#""resultType":"complete""#), "{reply}");
        assert_eq!(queued(&other), 0);
        assert!(matches!(
            rounds.claim("s", ask(6, "elicitation/create"), of(&first)),
            Claim::Unclaimed(_)
        ));
        // A call that is gone: its round says so instead of waiting forever.
        drop(w2);
        let reply = rounds
            .wait(&toolbox, &other, "10", Duration::from_secs(60))
            .await;
        assert!(reply.contains("lost the server's call"), "{reply}");
    }

    #[test]
    fn progress_goes_under_the_latest_round_s_token() {
        let text = r#"{"method":"notifications/progress","params":{"progress":1,"progressToken":4},"jsonrpc":"2.0"}"#;
        assert_eq!(
            wire::retoken(text, Some("\"r5\"")).unwrap(),
            r#"{"method":"notifications/progress","params":{"progress":1,"progressToken":"r5"},"jsonrpc":"2.0"}"#
        );
        // A round without a token (or between rounds): nothing goes out.
        assert_eq!(wire::retoken(text, None), None);
    }

    #[test]
    fn url_elicitation_loses_its_id() {
        let params = r#"{"mode":"url","elicitationId":"e1","url":"https://x","message":"m"}"#;
        assert_eq!(
            client_params("elicitation/create", Some(params)),
            r#"{"mode":"url","url":"https://x","message":"m"}"#
        );
        assert_eq!(client_params("roots/list", None), "{}");
    }
}
