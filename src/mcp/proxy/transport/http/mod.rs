//! The client side of MCP's Streamable HTTP transport (revision 2025-11-25,
//! `basic/transports` § Streamable HTTP), for `"url"` servers.
//!
//! The [`Peer`](crate::mcp::proxy::transport::peer::Peer) that speaks JSON-RPC to a server does not know the
//! transport: it writes messages and reads [`Frame`]s. Here, each message it writes is POSTed
//! to the endpoint, and every message the server sends back — the JSON body of a response, or
//! the `message` events of an SSE stream, on a POST or on the standalone GET stream — is read
//! as a frame, its text as it came (line breaks, which JSON allows only as whitespace, become
//! spaces: a message is one line on the client's stdio). So matching replies to requests,
//! timeouts, progress, cancellation and the server's own requests work as for a stdio server.
//!
//! The transport's rules, as the specification gives them:
//! - every POST has `Accept: application/json, text/event-stream`; a request is answered with
//!   `application/json` (one message) or `text/event-stream` (messages, ending with the
//!   response); a notification or a response with `202 Accepted`;
//! - the `Mcp-Session-Id` the server returns with the `initialize` result is sent on every
//!   later request, with `MCP-Protocol-Version: <negotiated>`;
//! - after `notifications/initialized` a GET opens the stream of the server's own requests and
//!   notifications (`405`: the server has none); it is reopened when it drops, after the
//!   server's `retry:` delay or a backoff, with `Last-Event-ID` to resume where it stopped;
//! - a POST stream that ends before its response is resumed the same way (GET with
//!   `Last-Event-ID`), a few times, before the request fails;
//! - `404` to a request with a session id: the session is gone ("the client MUST start a new
//!   session"). server-everything's express wrapper answers an unknown session with `400`
//!   "No valid session ID provided"; a `400` whose body speaks of the session counts too;
//! - on shutdown, `DELETE` with the session id ends the session.
//!
//! Servers on the HTTP+SSE transport (2024-11-05) are spoken by [`http_sse`] with the
//! same pieces.
//!
//! The connection ends (and the peer reads its end, failing what waits) when the server cannot
//! be reached, or its session is gone; the toolbox reconnects. Bodies and events are bounded by
//! [`MAX_MESSAGE_BYTES`]: a longer one is not buffered, and the request it answers fails saying
//! so. Requests go out on pooled keep-alive connections (`TCP_NODELAY`).

mod http_sse;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, Response, StatusCode, Uri};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use tokio::sync::{mpsc, watch};
use tokio::task::AbortHandle;

use super::sse;
use crate::mcp::proxy::log::PROXY;
use crate::mcp::proxy::sync::lock;
use crate::mcp::proxy::transport::wire::token_key;
use crate::mcp::proxy::transport::wire::{
    self, Bad, Frame, Hangup, Kind, MAX_MESSAGE_BYTES, Message, code,
};

type HttpClient = Client<hyper_rustls::HttpsConnector<HttpConnector>, Full<Bytes>>;

/// How long connecting (TCP and TLS) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a notification's or a response's POST, the GET that opens a stream, and the
/// `DELETE` at shutdown may take.
const SHORT_WAIT: Duration = Duration::from_secs(10);
/// How long a stream whose response has come may take to end before it is dropped.
const AFTER_ANSWER: Duration = Duration::from_secs(1);
/// First delay before a dropped stream is reopened (unless the server said `retry:`), doubled
/// each time up to [`RETRY_MAX`].
const RETRY_FIRST: Duration = Duration::from_millis(500);
const RETRY_MAX: Duration = Duration::from_secs(30);
/// Times a POST stream that ended before its response is resumed.
const RESUMES: u32 = 3;
/// Times in a row the GET stream may fail to open (not counting `405`) before it is given up.
const STREAM_FAILURES: u32 = 5;
/// Frames read but not yet taken by the peer (back-pressure on the server beyond).
const FRAMES_QUEUE: usize = 64;
/// The part of an error body kept for the message.
const ERROR_BODY: usize = 64 << 10;

const ACCEPT_BOTH: &str = "application/json, text/event-stream";
const EVENT_STREAM: &str = "text/event-stream";
const SESSION_ID: &str = "mcp-session-id";
const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";
const LAST_EVENT_ID: &str = "last-event-id";

/// Why a URL cannot be a server's endpoint (for the configuration's errors; never quotes it).
pub(in crate::mcp::proxy) fn check_url(url: &str) -> Result<(), &'static str> {
    const WHY: &str = "expected an http:// or https:// URL with a host";
    let uri: Uri = url.parse().map_err(|_| WHY)?;
    match (uri.scheme_str(), uri.host()) {
        (Some("http" | "https"), Some(host)) if !host.is_empty() => Ok(()),
        _ => Err(WHY),
    }
}

/// Why a configured header cannot be sent (never quotes it).
pub(in crate::mcp::proxy) fn check_header(name: &str, value: &str) -> Result<(), &'static str> {
    HeaderName::from_bytes(name.as_bytes()).map_err(|_| "not a valid HTTP header name")?;
    HeaderValue::from_str(value)
        .map_err(|_| "not a valid HTTP header value (visible ASCII, no line breaks)")?;
    Ok(())
}

/// What the peer reads: frames, then why the connection ended.
pub(in crate::mcp::proxy) type Frames =
    std::pin::Pin<Box<dyn futures_util::Stream<Item = Result<Frame, Hangup>> + Send + 'static>>;

/// Why a `url` server's transport could not be opened (nothing was sent yet); never quotes
/// the URL or a header's value.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OpenError {
    /// The URL does not parse as an absolute URI.
    #[error("the URL is not valid")]
    Url,
    /// The URL's userinfo makes no `Authorization` header.
    #[error("the URL's credentials cannot be sent")]
    Credentials,
    /// The URL's host, once its userinfo is taken out, does not parse.
    #[error("the URL's host is not valid")]
    Host,
    /// A configured header's name is not an HTTP header name.
    #[error("header {name:?} is not a valid name")]
    HeaderName {
        /// The header's name as configured.
        name: String,
    },
    /// A configured header's value is not an HTTP header value.
    #[error("the value of header {name:?} is not valid")]
    HeaderValue {
        /// The header's name.
        name: String,
    },
    /// rustls refused the protocol versions.
    #[error("TLS set-up failed: {source}")]
    Tls {
        /// rustls's error.
        #[source]
        source: rustls::Error,
    },
    /// The `SSL_CERT_FILE` file could not be read as PEM.
    #[error("cannot use {CERT_FILE_ENV} ({}): {source}", .path.display())]
    CertFile {
        /// The file.
        path: std::path::PathBuf,
        /// The PEM reader's error.
        #[source]
        source: rustls::pki_types::pem::Error,
    },
    /// A certificate of the `SSL_CERT_FILE` file is not one rustls can trust.
    #[error("cannot use {CERT_FILE_ENV} ({}): {source}", .path.display())]
    Certificate {
        /// The file.
        path: std::path::PathBuf,
        /// rustls's error.
        #[source]
        source: rustls::Error,
    },
    /// The `SSL_CERT_FILE` file holds no certificate.
    #[error("cannot use {CERT_FILE_ENV} ({}): no certificate in it", .path.display())]
    NoCertificate {
        /// The file.
        path: std::path::PathBuf,
    },
}

/// An open connection's handle: ends it when dropped (the dispatcher also ends when the
/// peer's writer closes).
#[derive(Debug)]
pub(in crate::mcp::proxy) struct Connection {
    shared: Arc<Shared>,
}

impl Connection {
    /// Says that the connection opened as a 2026-07-28 one (`server/discover`), which has no
    /// session: an `initialize` sent beside it that the server answers (before or after)
    /// leaves no session id nor protocol version on the connection's later requests.
    pub(in crate::mcp::proxy) fn opened_stateless(&self) {
        let mut session = lock(&self.shared.session);
        self.shared.stateless.store(true, Ordering::SeqCst);
        *session = None;
        *lock(&self.shared.version) = None;
    }

    /// Takes the annotated parameters of a 2026-07-28 server's tools (`pages`: its
    /// `tools/list` results, JSON text), whose values its `tools/call` POSTs then repeat in
    /// `Mcp-Param-{Name}` headers (`// 2026-07-28 basic/transports` § Custom Headers).
    pub(in crate::mcp::proxy) fn tools_listed(&self, pages: &[String]) {
        let mut annotated = HashMap::new();
        for page in pages {
            let Ok(page) = serde_json::from_str::<serde_json::Value>(page) else {
                continue;
            };
            for tool in page["tools"].as_array().into_iter().flatten() {
                let found = annotations(&tool["inputSchema"]);
                if let (Some(name), false) = (tool["name"].as_str(), found.is_empty()) {
                    annotated.insert(name.to_owned(), found);
                }
            }
        }
        *lock(&self.shared.param_headers) = annotated;
    }

    /// Waits (at most `within`) for the transport to have ended: after the peer closed its
    /// writer, the session's `DELETE` has been sent.
    pub(in crate::mcp::proxy) async fn ended_within(&self, within: Duration) {
        let mut end = self.shared.end.subscribe();
        let _ = tokio::time::timeout(within, end.wait_for(Option::is_some)).await;
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.shared.abort_all();
    }
}

/// Opens the transport to `url` (nothing is sent yet): the frames for the peer's reader, the
/// channel its writer sends messages to (closing it ends the session), and the handle.
///
/// # Errors
/// The URL does not parse, a header is invalid, or TLS cannot be set up.
pub(in crate::mcp::proxy) fn open(
    name: &str,
    url: &str,
    headers: &[(String, String)],
) -> Result<(Frames, mpsc::Sender<String>, Connection), OpenError> {
    let (shared, out_rx, out_tx, frames_rx) = shared(name, url, headers)?;
    let dispatcher = tokio::spawn(dispatch(shared.clone(), out_rx));
    lock(&shared.tasks).insert(String::new(), dispatcher.abort_handle());
    Ok((frames(&shared, frames_rx), out_tx, Connection { shared }))
}

/// As [`open`], for a server on the HTTP+SSE transport (2024-11-05) at `url`, its
/// event stream (see [`http_sse`]).
///
/// # Errors
/// As [`open`].
pub(in crate::mcp::proxy) fn open_http_sse(
    name: &str,
    url: &str,
    headers: &[(String, String)],
) -> Result<(Frames, mpsc::Sender<String>, Connection), OpenError> {
    let (shared, out_rx, out_tx, frames_rx) = shared(name, url, headers)?;
    let dispatcher = tokio::spawn(http_sse::run(shared.clone(), out_rx));
    lock(&shared.tasks).insert(String::new(), dispatcher.abort_handle());
    Ok((frames(&shared, frames_rx), out_tx, Connection { shared }))
}

/// A connection's shared state, the channel the peer's writer feeds (both ends), and the
/// receiving end of the frames.
type Parts = (
    Arc<Shared>,
    mpsc::Receiver<String>,
    mpsc::Sender<String>,
    mpsc::Receiver<Frame>,
);

/// The state a connection's tasks share, and the channels between them and the peer.
fn shared(name: &str, url: &str, headers: &[(String, String)]) -> Result<Parts, OpenError> {
    let uri: Uri = url.parse().map_err(|_| OpenError::Url)?;
    let (uri, basic) = userinfo_as_basic(uri)?;
    let mut map = HeaderMap::new();
    map.insert(
        header::USER_AGENT,
        HeaderValue::from_static(concat!("toon-mcp-proxy/", env!("CARGO_PKG_VERSION"))),
    );
    for (k, v) in headers {
        let name = HeaderName::from_bytes(k.as_bytes())
            .map_err(|_| OpenError::HeaderName { name: k.clone() })?;
        let mut value =
            HeaderValue::from_str(v).map_err(|_| OpenError::HeaderValue { name: k.clone() })?;
        value.set_sensitive(true);
        map.insert(name, value);
    }
    // A configured `Authorization` is the one meant; the URL's credentials only stand in
    // for it.
    if let Some(basic) = basic {
        map.entry(header::AUTHORIZATION).or_insert(basic);
    }
    let (frames_tx, frames_rx) = mpsc::channel(FRAMES_QUEUE);
    let (out_tx, out_rx) = mpsc::channel::<String>(FRAMES_QUEUE);
    let shared = Arc::new(Shared {
        name: Arc::from(name),
        client: client()?,
        uri,
        headers: map,
        session: Mutex::new(None),
        version: Mutex::new(None),
        stateless: AtomicBool::new(false),
        frames: frames_tx,
        end: watch::channel(None).0,
        tasks: Mutex::default(),
        listening: Mutex::new(None),
        param_headers: Mutex::default(),
    });
    Ok((shared, out_rx, out_tx, frames_rx))
}

/// `uri` without its userinfo, and that userinfo as the `Authorization: Basic` header it
/// means (RFC 3986 §3.2.1, RFC 7617: percent-decoded, `user:password` in base64). hyper is
/// never given a URI with credentials in it: its connection pool's key is the authority,
/// which hyper-util's trace lines print.
fn userinfo_as_basic(uri: Uri) -> Result<(Uri, Option<HeaderValue>), OpenError> {
    let split = uri.authority().and_then(|a| a.as_str().rsplit_once('@'));
    let Some((userinfo, host)) = split.map(|(u, h)| (u.to_owned(), h.to_owned())) else {
        return Ok((uri, None));
    };
    let mut credentials = percent_decoded(&userinfo);
    if !credentials.contains(&b':') {
        // A user alone: an empty password (RFC 7617 §2 always has the colon).
        credentials.push(b':');
    }
    let mut value = HeaderValue::from_str(&format!("Basic {}", base64(&credentials)))
        .map_err(|_| OpenError::Credentials)?;
    value.set_sensitive(true);
    let mut parts = uri.into_parts();
    parts.authority = Some(host.parse().map_err(|_| OpenError::Host)?);
    let uri = Uri::from_parts(parts).map_err(|_| OpenError::Url)?;
    Ok((uri, Some(value)))
}

/// `text` with each `%XX` as the byte it stands for (any other `%` as it is).
fn percent_decoded(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match hex
            .filter(|_| bytes[i] == b'%')
            .map(|h| u8::from_str_radix(h, 16))
        {
            Some(Ok(b)) => {
                out.push(b);
                i += 3;
            }
            _ => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    out
}

/// The headers a 2026-07-28 request (`message`, one whose `_meta` names its revision)
/// carries (`// 2026-07-28 basic/transports` § Standard Headers): `MCP-Protocol-Version`,
/// `Mcp-Method`, for a tool call, a prompt or a resource `Mcp-Name`, and for a tool call the
/// `Mcp-Param-{Name}` of each annotated parameter it gives a value (`annotated`, by tool:
/// § Custom Headers). None for any other message.
fn modern_headers(
    message: &Message,
    annotated: &HashMap<String, Annotated>,
) -> Vec<(HeaderName, HeaderValue)> {
    use crate::mcp::proxy::transport::wire::meta::VERSION_KEY;
    // Most requests are 2025-11-25 ones: their params are not read.
    if memchr::memmem::find(message.text().as_bytes(), VERSION_KEY.as_bytes()).is_none() {
        return Vec::new();
    }
    let Kind::Request { method, .. } = message.kind() else {
        return Vec::new();
    };
    let params = message.params().unwrap_or("{}");
    let Some(version) = crate::mcp::raw::get_path(params, &["_meta", VERSION_KEY])
        .and_then(crate::mcp::raw::string)
    else {
        return Vec::new();
    };
    let mut headers = Vec::new();
    let mut add = |name: &'static str, value: &str| {
        if let Ok(value) = HeaderValue::from_str(value) {
            headers.push((HeaderName::from_static(name), value));
        }
    };
    add(PROTOCOL_VERSION_HEADER, &version);
    add("mcp-method", method);
    let key = name_key(method);
    let name =
        key.and_then(|k| crate::mcp::raw::get_path(params, &[k]).and_then(crate::mcp::raw::string));
    if let Some(name) = &name {
        add("mcp-name", &header_value(name));
    }
    let tool = name.filter(|_| method == "tools/call");
    for (path, header) in tool.and_then(|t| annotated.get(&t)).into_iter().flatten() {
        let at: Vec<&str> = std::iter::once("arguments")
            .chain(path.iter().map(String::as_str))
            .collect();
        let value = crate::mcp::raw::get_path(params, &at).and_then(param_value);
        let name = HeaderName::from_bytes(format!("mcp-param-{header}").as_bytes()).ok();
        if let (Some(name), Some(value)) =
            (name, value.and_then(|v| HeaderValue::from_str(&v).ok()))
        {
            headers.push((name, value));
        }
    }
    headers
}

/// The member of a request's params that `Mcp-Name` repeats (§ Standard Headers): a tool's
/// or prompt's `name`, a resource's `uri`; `None` for other methods.
pub(in crate::mcp::proxy) fn name_key(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        _ => None,
    }
}

/// An argument's value (JSON text) as § Value Encoding writes it in a header: a string as
/// [`header_value`] writes it, a number as it is, a boolean as `true` or `false`; `None` for
/// `null`, an object or an array, which no header stands for.
fn param_value(text: &str) -> Option<String> {
    match text.as_bytes().first()? {
        b'"' => crate::mcp::raw::string(text).map(|s| header_value(&s)),
        b't' | b'f' | b'-' | b'0'..=b'9' => Some(text.to_owned()),
        _ => None,
    }
}

/// The parameters of a tool's input schema annotated `x-mcp-header` (§ Schema Extension):
/// each one's path of property names, and the header name it gives (`Mcp-Param-` and this).
/// Nested objects are followed to a depth of 32.
pub(in crate::mcp::proxy) fn annotations(schema: &serde_json::Value) -> Annotated {
    let mut found = Vec::new();
    let mut stack = vec![(Vec::new(), schema)];
    while let Some((path, schema)) = stack.pop() {
        let Some(properties) = schema["properties"].as_object() else {
            continue;
        };
        for (key, property) in properties {
            let mut at = path.clone();
            at.push(key.clone());
            if let Some(header) = property["x-mcp-header"].as_str() {
                found.push((at.clone(), header.to_owned()));
            }
            // The depth of a real schema; a hostile one stops here.
            if at.len() < 32 {
                stack.push((at, property));
            }
        }
    }
    found
}

/// A header's value as § Value Encoding writes it: as it is when it is visible ASCII and
/// spaces without spaces at its ends, else `=?base64?…?=` of its UTF-8.
fn header_value(text: &str) -> String {
    let plain = text.bytes().all(|b| (0x20..0x7f).contains(&b))
        && !text.starts_with(' ')
        && !text.ends_with(' ')
        && !text.starts_with("=?base64?");
    if plain {
        text.to_owned()
    } else {
        format!("=?base64?{}?=", base64(text.as_bytes()))
    }
}

/// `bytes` in base64 (RFC 4648 §4, padded): the one place the client encodes it, so no crate.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The frames the peer reads: what the tasks deliver, then the end's reason.
fn frames(shared: &Shared, frames_rx: mpsc::Receiver<Frame>) -> Frames {
    let end = shared.end.subscribe();
    let frames: Frames = Box::pin(futures_util::stream::unfold(
        (frames_rx, end, false),
        |(mut rx, mut end, done)| async move {
            if done {
                return None;
            }
            // Queued frames first: a response read before the end still reaches its caller.
            let next = tokio::select! {
                biased;
                frame = rx.recv() => frame,
                () = ended(&mut end) => None,
            };
            let item = next.ok_or_else(|| {
                Hangup(
                    end.borrow()
                        .clone()
                        .unwrap_or_else(|| "disconnected".to_owned()),
                )
            });
            let done = item.is_err();
            Some((item, (rx, end, done)))
        },
    ));
    frames
}

/// Until the connection has ended.
async fn ended(end: &mut watch::Receiver<Option<String>>) {
    let _ = end.wait_for(Option::is_some).await;
}

/// The HTTPS-or-HTTP client: keep-alive pool, `TCP_NODELAY`, rustls on ring trusting the
/// Mozilla roots and the certificates of the PEM file `SSL_CERT_FILE` names (a company's own
/// CA, a test CA).
fn client() -> Result<HttpClient, OpenError> {
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    http.set_nodelay(true);
    http.set_connect_timeout(Some(CONNECT_TIMEOUT));
    let tls = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|source| OpenError::Tls { source })?
    .with_root_certificates(roots()?)
    .with_no_client_auth();
    let https = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls)
        .https_or_http()
        .enable_http1()
        .wrap_connector(http);
    Ok(Client::builder(TokioExecutor::new()).build(https))
}

/// The environment variable naming a PEM file of certificates to trust besides the Mozilla
/// roots (as OpenSSL, Python and curl read it).
pub(in crate::mcp::proxy) const CERT_FILE_ENV: &str = "SSL_CERT_FILE";

/// The root certificates: Mozilla's, and those of `SSL_CERT_FILE`.
fn roots() -> Result<rustls::RootCertStore, OpenError> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    let Some(path) = std::env::var_os(CERT_FILE_ENV).filter(|p| !p.is_empty()) else {
        return Ok(roots);
    };
    let path = std::path::PathBuf::from(path);
    let pem = |source| OpenError::CertFile {
        path: path.clone(),
        source,
    };
    let certs = CertificateDer::pem_file_iter(&path).map_err(pem)?;
    let mut added = 0;
    for cert in certs {
        roots
            .add(cert.map_err(pem)?)
            .map_err(|source| OpenError::Certificate {
                path: path.clone(),
                source,
            })?;
        added += 1;
    }
    if added == 0 {
        return Err(OpenError::NoCertificate { path });
    }
    Ok(roots)
}

/// What the connection's tasks share.
struct Shared {
    name: Arc<str>,
    client: HttpClient,
    uri: Uri,
    headers: HeaderMap,
    session: Mutex<Option<HeaderValue>>,
    version: Mutex<Option<HeaderValue>>,
    /// Opened with `server/discover` ([`Connection::opened_stateless`]): an `initialize`'s
    /// session id and protocol version are not kept.
    stateless: AtomicBool,
    frames: mpsc::Sender<Frame>,
    /// Why the connection ended, once it has.
    end: watch::Sender<Option<String>>,
    /// Running tasks: each request's (by its id's key), the dispatcher's (key "").
    tasks: Mutex<HashMap<String, AbortHandle>>,
    /// The GET stream's task.
    listening: Mutex<Option<AbortHandle>>,
    /// A 2026-07-28 server's tools whose parameters are repeated in headers: by tool name,
    /// each parameter's path in `arguments` and its header's name ([`annotations`]).
    param_headers: Mutex<HashMap<String, Annotated>>,
}

/// A tool's parameters repeated in headers: each one's path in `arguments` and its header's
/// name after `Mcp-Param-` ([`annotations`]).
type Annotated = Vec<(Vec<String>, String)>;

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// An HTTP exchange that did not give a response.
enum Failed {
    /// Nothing could be sent: the server is not there.
    Unreachable(String),
    /// Sent, and something went wrong after.
    Other(String),
}

impl Shared {
    /// Ends the connection (first reason wins): the peer reads `reason` after what is queued,
    /// and every task stops.
    fn end(&self, reason: String) {
        let first = self.end.send_if_modified(|end| {
            if end.is_some() {
                return false;
            }
            *end = Some(reason);
            true
        });
        if first {
            self.abort_all();
        }
    }

    fn abort_all(&self) {
        for (_, task) in lock(&self.tasks).drain() {
            task.abort();
        }
        if let Some(task) = lock(&self.listening).take() {
            task.abort();
        }
    }

    fn has_session(&self) -> bool {
        lock(&self.session).is_some()
    }

    /// Sends one HTTP request to the endpoint with the configured headers, the session's and
    /// `accept`.
    async fn send(
        &self,
        method: Method,
        body: Option<String>,
        accept: &'static str,
        last_event_id: Option<&str>,
    ) -> Result<Response<Incoming>, Failed> {
        self.send_to(&self.uri, method, body, accept, last_event_id, &[])
            .await
    }

    /// As [`send`](Self::send), to `to` (the HTTP+SSE transport's message endpoint), with
    /// `extra` headers besides (a 2026-07-28 request's: [`modern_headers`]).
    async fn send_to(
        &self,
        to: &Uri,
        method: Method,
        body: Option<String>,
        accept: &'static str,
        last_event_id: Option<&str>,
        extra: &[(HeaderName, HeaderValue)],
    ) -> Result<Response<Incoming>, Failed> {
        let mut request = Request::builder().method(method).uri(to.clone());
        if let Some(headers) = request.headers_mut() {
            headers.clone_from(&self.headers);
            headers.insert(header::ACCEPT, HeaderValue::from_static(accept));
            if body.is_some() {
                headers.insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                );
            }
            if let Some(session) = lock(&self.session).clone() {
                headers.insert(SESSION_ID, session);
            }
            if let Some(version) = lock(&self.version).clone() {
                headers.insert(PROTOCOL_VERSION_HEADER, version);
            }
            for (name, value) in extra {
                headers.insert(name, value.clone());
            }
            if let Some(id) = last_event_id.and_then(|id| HeaderValue::from_str(id).ok()) {
                headers.insert(LAST_EVENT_ID, id);
            }
        }
        let request = request
            .body(Full::new(Bytes::from(body.unwrap_or_default())))
            .map_err(|e| Failed::Other(format!("cannot build the request: {e}")))?;
        self.client.request(request).await.map_err(|e| {
            // hyper-util's own text ("client error (Connect)") says less than its causes.
            let why = match std::error::Error::source(&e) {
                Some(cause) => describe(cause),
                None => e.to_string(),
            };
            if e.is_connect() {
                Failed::Unreachable(why)
            } else {
                Failed::Other(why)
            }
        })
    }

    /// A response for the peer: a frame, waiting for room. `false` when the peer is gone.
    async fn deliver(&self, frame: Frame) -> bool {
        self.frames.send(frame).await.is_ok()
    }

    /// Answers request `id` with an error of the proxy's.
    async fn fail(&self, id: &str, code: i64, message: &str) {
        self.fail_with(id, code, message, None).await;
    }

    /// As [`fail`](Self::fail), the error's `data` (JSON text) given.
    async fn fail_with(&self, id: &str, code: i64, message: &str, data: Option<&str>) {
        let text = wire::error(id, code, message, data);
        if let Ok(message) = Message::parse(text) {
            self.deliver(Ok(message)).await;
        }
    }

    /// A status that says the session is gone: `404` with a session id, or a `400` about it.
    fn session_lost(&self, status: StatusCode, body: &str) -> Option<String> {
        if !self.has_session() {
            return None;
        }
        if status == StatusCode::NOT_FOUND {
            return Some("the server ended the session (HTTP 404)".to_owned());
        }
        (status == StatusCode::BAD_REQUEST && body.to_ascii_lowercase().contains("session"))
            .then(|| "the server no longer knows the session (HTTP 400)".to_owned())
    }

    /// Whether a refusal says the session is gone ([`session_lost`](Self::session_lost),
    /// its body read for a `400`).
    async fn lost_by(&self, response: Response<Incoming>) -> Option<String> {
        let status = response.status();
        let body = read_body(response.into_body(), ERROR_BODY)
            .await
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        self.session_lost(status, &body)
    }

    /// POSTs request `id` and hands its answer (and whatever the server sends with it) to
    /// the peer; fails it with a JSON-RPC error when the exchange gives none.
    async fn post_request(&self, id: &str, method: &str, message: &Message) {
        // A 2026-07-28 request says in headers what its body says (§ Standard Headers).
        let extra = modern_headers(message, &lock(&self.param_headers));
        let text = Some(message.text().to_owned());
        let sent = self.send_to(&self.uri, Method::POST, text, ACCEPT_BOTH, None, &extra);
        let response = match sent.await {
            Ok(r) => r,
            Err(Failed::Unreachable(why)) => {
                return self.end(format!("cannot reach the server: {why}"));
            }
            Err(Failed::Other(why)) => {
                let message = format!("the HTTP request for {method} failed: {why}");
                return self.fail(id, code::INTERNAL_ERROR, &message).await;
            }
        };
        let status = response.status();
        if method == "initialize" && status.is_success() {
            // "MAY assign a session ID at initialization time, by including it in an
            // Mcp-Session-Id header on the HTTP response containing the InitializeResult."
            let mut session = lock(&self.session);
            if !self.stateless.load(Ordering::SeqCst) {
                *session = response.headers().get(SESSION_ID).cloned();
            }
        }
        if !status.is_success() {
            return self.refused(id, method, response).await;
        }
        if status == StatusCode::ACCEPTED || status == StatusCode::NO_CONTENT {
            let message =
                format!("the server accepted {method} without answering it (HTTP {status})");
            return self.fail(id, code::INTERNAL_ERROR, &message).await;
        }
        if is_event_stream(&response) {
            self.answer_from_stream(id, method, response).await;
        } else {
            self.answer_from_body(id, method, response).await;
        }
    }

    /// The answer to request `id` as an SSE stream: its events to the peer, the stream
    /// resumed with `Last-Event-ID` when it ends before the answer (§ Resumability and
    /// Redelivery); the request fails when it never comes.
    async fn answer_from_stream(&self, id: &str, method: &str, response: Response<Incoming>) {
        let answer = Some((id, method));
        let mut parser = sse::EventParser::new(MAX_MESSAGE_BYTES);
        let mut read = self
            .read_events(response.into_body(), &mut parser, answer)
            .await;
        // "the client MAY ... resume the stream by issuing an HTTP GET ... with the
        // Last-Event-ID header."
        let mut resumes = 0;
        let mut delay = RETRY_FIRST;
        while !read.answered && resumes < RESUMES && read.peer_there {
            let Some(last) = parser.last_id().map(str::to_owned) else {
                break;
            };
            resumes += 1;
            tokio::time::sleep(parser.retry().map_or(delay, Duration::from_millis)).await;
            delay = (delay * 2).min(RETRY_MAX);
            match self
                .send(Method::GET, None, EVENT_STREAM, Some(&last))
                .await
            {
                Ok(r) if r.status().is_success() && is_event_stream(&r) => {
                    read = self.read_events(r.into_body(), &mut parser, answer).await;
                }
                Ok(r) => {
                    if let Some(lost) = self.lost_by(r).await {
                        return self.end(lost);
                    }
                }
                Err(Failed::Unreachable(why)) => {
                    return self.end(format!("cannot reach the server: {why}"));
                }
                Err(Failed::Other(_)) => {}
            }
        }
        if !read.answered && read.peer_there {
            let why = read.error.map_or_else(String::new, |e| format!(": {e}"));
            let message = format!(
                "the server ended the response stream of {method} without answering it{why}"
            );
            self.fail(id, code::INTERNAL_ERROR, &message).await;
        }
    }

    /// The answer to request `id` as a JSON body (one message), within
    /// [`MAX_MESSAGE_BYTES`].
    async fn answer_from_body(&self, id: &str, method: &str, response: Response<Incoming>) {
        let answer = Some((id, method));
        let declared = response
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
        match read_body(response.into_body(), MAX_MESSAGE_BYTES).await {
            Ok(body) => {
                self.answer(text_frame(&body, Some(id)), answer).await;
            }
            Err(BodyError::TooLong { size }) => {
                // Its whole size when the server said it; what was read otherwise.
                let bad = Bad::TooLong {
                    size: declared.unwrap_or(size).max(size),
                    id: Some(id.to_owned()),
                };
                self.deliver(Err(bad)).await;
            }
            Err(BodyError::Failed(why)) => {
                let message = format!("reading the answer to {method} failed: {why}");
                self.fail(id, code::INTERNAL_ERROR, &message).await;
            }
        }
    }

    /// A request the server refused with an HTTP error: the JSON-RPC error its body holds
    /// (under the request's id), else one saying the status. A status that says the session
    /// is gone ends the connection.
    async fn refused(&self, id: &str, method: &str, response: Response<Incoming>) {
        let status = response.status();
        let body = match read_body(response.into_body(), ERROR_BODY).await {
            Ok(body) => String::from_utf8_lossy(&body).into_owned(),
            Err(_) => String::new(),
        };
        if let Some(lost) = self.session_lost(status, &body) {
            return self.end(lost);
        }
        let parsed = Message::parse(body.replace(['\r', '\n'], " ")).ok();
        let error = parsed
            .as_ref()
            .and_then(|m| m.error().and_then(crate::mcp::raw::entries));
        // The server's JSON-RPC error, its `data` kept (2026-07-28's errors carry what to do
        // in it: the revisions served, the capabilities required).
        let from_body = error.as_ref().and_then(|e| {
            let code = crate::mcp::raw::get(e, "code")
                .and_then(|c| serde_json::from_str::<i64>(c).ok())?;
            let message = crate::mcp::raw::get(e, "message").and_then(crate::mcp::raw::string)?;
            Some((code, message, crate::mcp::raw::get(e, "data")))
        });
        let (code, message, data) = from_body.unwrap_or_else(|| {
            let text: String = body.trim().chars().take(200).collect();
            let message = if text.is_empty() {
                format!("the server refused {method}: HTTP {status}")
            } else {
                format!("the server refused {method}: HTTP {status}: {text}")
            };
            (code::INTERNAL_ERROR, message, None)
        });
        self.fail_with(id, code, &message, data).await;
    }

    /// Hands a frame to the peer; `true` when it is the response to `answer`'s request.
    async fn answer(&self, frame: Frame, answer: Option<(&str, &str)>) -> bool {
        let answered = match (&frame, answer) {
            (Ok(message), Some((id, method))) => {
                let is_answer = matches!(message.kind(), Kind::Response { id: got } if got == id);
                if is_answer && method == "initialize" {
                    self.negotiated(message);
                }
                is_answer
            }
            (Err(bad), Some((id, _))) => bad.id() == Some(id),
            _ => false,
        };
        self.deliver(frame).await && answered
    }

    /// Keeps the protocol version of the `initialize` result, for `MCP-Protocol-Version`.
    fn negotiated(&self, reply: &Message) {
        let version = reply
            .result()
            .and_then(crate::mcp::raw::entries)
            .and_then(|e| {
                crate::mcp::raw::get(&e, "protocolVersion").and_then(crate::mcp::raw::string)
            })
            .and_then(|v| HeaderValue::from_str(&v).ok());
        let _session = lock(&self.session);
        if !self.stateless.load(Ordering::SeqCst) {
            *lock(&self.version) = version;
        }
    }

    /// Reads an SSE body, handing each message to the peer; stops once `answer`'s response
    /// has come (and the server has had a moment to end the stream).
    async fn read_events(
        &self,
        mut body: Incoming,
        parser: &mut sse::EventParser,
        answer: Option<(&str, &str)>,
    ) -> Read {
        let mut read = Read {
            answered: false,
            peer_there: true,
            error: None,
        };
        let mut events = Vec::new();
        loop {
            let next = if read.answered {
                match tokio::time::timeout(AFTER_ANSWER, body.frame()).await {
                    Ok(next) => next,
                    Err(_) => return read,
                }
            } else {
                body.frame().await
            };
            let chunk = match next {
                None => return read,
                Some(Err(e)) => {
                    read.error = Some(describe(&e));
                    return read;
                }
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(data) => data,
                    Err(_) => continue,
                },
            };
            parser.feed(&chunk, &mut events);
            for event in events.drain(..) {
                let fallback = answer.map(|(id, _)| id);
                let mut frame = match event {
                    sse::SseEvent::Message(text) => text_frame(text.as_bytes(), fallback),
                    sse::SseEvent::TooLong { size, head } => Err(Bad::TooLong {
                        size,
                        id: wire::head_id(&head).or_else(|| fallback.map(str::to_owned)),
                    }),
                    sse::SseEvent::Named { .. } => continue,
                };
                // A question or log message on a request's answer stream is that request's.
                if let (Ok(message), Some(id)) = (&mut frame, fallback) {
                    message.came_answering(id);
                }
                if self.answer(frame, answer).await {
                    read.answered = true;
                }
                if self.frames.is_closed() {
                    read.peer_there = false;
                    return read;
                }
            }
        }
    }

    /// The standalone GET stream: the server's requests and notifications that belong to no
    /// request. Reopened when it drops, resuming after the last event seen.
    async fn listen(self: Arc<Self>) {
        let mut parser = sse::EventParser::new(MAX_MESSAGE_BYTES);
        let mut delay = RETRY_FIRST;
        let mut failures = 0;
        loop {
            let last = parser.last_id().map(str::to_owned);
            match self
                .send(Method::GET, None, EVENT_STREAM, last.as_deref())
                .await
            {
                Ok(r) if r.status() == StatusCode::METHOD_NOT_ALLOWED => return,
                Ok(r) if r.status().is_success() && is_event_stream(&r) => {
                    failures = 0;
                    delay = RETRY_FIRST;
                    let read = self.read_events(r.into_body(), &mut parser, None).await;
                    if !read.peer_there {
                        return;
                    }
                }
                Ok(r) => {
                    let status = r.status();
                    if let Some(lost) = self.lost_by(r).await {
                        return self.end(lost);
                    }
                    failures += 1;
                    if failures >= STREAM_FAILURES {
                        tracing::warn!(
                            target: PROXY,
                            server = &*self.name,
                            "the server's stream (GET) was refused {failures} times, last with HTTP {status}; its notifications come only with answers now"
                        );
                        return;
                    }
                }
                Err(Failed::Unreachable(why)) => {
                    return self.end(format!("cannot reach the server: {why}"));
                }
                Err(Failed::Other(_)) => failures += 1,
            }
            let wait = parser.retry().map_or(delay, Duration::from_millis);
            tokio::time::sleep(wait).await;
            delay = (delay * 2).min(RETRY_MAX);
        }
    }

    /// POSTs a notification or a response: `202 Accepted` expected. A refusal is logged; a
    /// lost session or an unreachable server ends the connection.
    async fn post_message(&self, what: &str, text: String) {
        self.post_message_to(&self.uri, what, text).await;
    }

    /// As [`post_message`](Self::post_message), to `to`.
    async fn post_message_to(&self, to: &Uri, what: &str, text: String) {
        let sent = tokio::time::timeout(
            SHORT_WAIT,
            self.send_to(to, Method::POST, Some(text), ACCEPT_BOTH, None, &[]),
        )
        .await;
        match sent {
            Err(_) => tracing::warn!(
                target: PROXY,
                server = &*self.name,
                "{what}: no HTTP answer within {SHORT_WAIT:?}"
            ),
            Ok(Err(Failed::Unreachable(why))) => {
                self.end(format!("cannot reach the server: {why}"));
            }
            Ok(Err(Failed::Other(why))) => {
                tracing::warn!(target: PROXY, server = &*self.name, "{what} not sent: {why}");
            }
            Ok(Ok(r)) if r.status().is_success() => {
                // Drained so the connection goes back to the pool.
                let _ = read_body(r.into_body(), ERROR_BODY).await;
            }
            Ok(Ok(r)) => {
                let status = r.status();
                let body = read_body(r.into_body(), ERROR_BODY)
                    .await
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_default();
                match self.session_lost(status, &body) {
                    Some(lost) => self.end(lost),
                    None => {
                        tracing::warn!(target: PROXY, server = &*self.name, "{what} refused: HTTP {status}");
                    }
                }
            }
        }
    }

    /// The peer closed its writer: `DELETE` the session (a server may answer `405`), and end.
    async fn close(&self) {
        if self.has_session() && self.end.borrow().is_none() {
            let _ = tokio::time::timeout(SHORT_WAIT, async {
                if let Ok(r) = self.send(Method::DELETE, None, ACCEPT_BOTH, None).await {
                    let _ = read_body(r.into_body(), ERROR_BODY).await;
                }
            })
            .await;
        }
        self.end("closed by the proxy".to_owned());
    }
}

/// How reading one SSE body went.
struct Read {
    answered: bool,
    peer_there: bool,
    error: Option<String>,
}

/// Sends what the peer writes: a request on its own task (its answer may take long, and
/// `notifications/cancelled` stops it), `notifications/initialized` in order (then the GET
/// stream opens), other messages on their own tasks.
async fn dispatch(shared: Arc<Shared>, mut outgoing: mpsc::Receiver<String>) {
    while let Some(text) = outgoing.recv().await {
        let Ok(message) = Message::parse(text) else {
            continue;
        };
        match message.kind() {
            Kind::Request { id, method } => {
                let (id, method) = (id.to_owned(), method.to_owned());
                let key = token_key(&id);
                let this = shared.clone();
                let done_key = key.clone();
                // Held while spawning: the task cannot remove itself before it is recorded.
                let mut tasks = lock(&shared.tasks);
                let task = tokio::spawn(async move {
                    this.post_request(&id, &method, &message).await;
                    lock(&this.tasks).remove(&done_key);
                });
                tasks.insert(key, task.abort_handle());
            }
            Kind::Notification {
                method: "notifications/initialized",
            } => {
                shared
                    .post_message("notifications/initialized", message.text().to_owned())
                    .await;
                let listen = tokio::spawn(shared.clone().listen());
                *lock(&shared.listening) = Some(listen.abort_handle());
            }
            Kind::Notification {
                method: "notifications/cancelled",
            } => {
                // The request's POST is no longer waited for (a server that honours the
                // cancellation sends no response on it).
                let cancelled = message
                    .params()
                    .and_then(crate::mcp::raw::entries)
                    .and_then(|e| crate::mcp::raw::get(&e, "requestId").map(token_key));
                if let Some(task) = cancelled.and_then(|key| lock(&shared.tasks).remove(&key)) {
                    task.abort();
                }
                let this = shared.clone();
                tokio::spawn(async move {
                    this.post_message("notifications/cancelled", message.text().to_owned())
                        .await;
                });
            }
            _ => {
                let this = shared.clone();
                tokio::spawn(async move {
                    let what = message.method().unwrap_or("a response").to_owned();
                    this.post_message(&what, message.text().to_owned()).await;
                });
            }
        }
    }
    shared.close().await;
}

fn is_event_stream(response: &Response<Incoming>) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(';')
                .next()
                .is_some_and(|t| t.trim().eq_ignore_ascii_case(EVENT_STREAM))
        })
}

/// A message's text as a frame: line breaks become spaces (whitespace in JSON) or, inside a
/// string, their escapes ([`sse::one_line`]), so that it stays one line on stdio. Text that does not read, with no id of its own, is charged to
/// `fallback` (the request whose answer it was).
fn text_frame(text: &[u8], fallback: Option<&str>) -> Frame {
    let frame = wire::frame(&sse::one_line(text));
    frame.map_err(|bad| match (bad, fallback) {
        (Bad::NotJson { why, id: None }, Some(id)) => Bad::NotJson {
            why,
            id: Some(id.to_owned()),
        },
        (Bad::NotMessage { why, id: None }, Some(id)) => Bad::NotMessage {
            why,
            id: Some(id.to_owned()),
        },
        (bad, _) => bad,
    })
}

enum BodyError {
    TooLong { size: usize },
    Failed(String),
}

/// A whole body, at most `limit` bytes (reading stops past it).
async fn read_body(mut body: Incoming, limit: usize) -> Result<Vec<u8>, BodyError> {
    let mut out = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| BodyError::Failed(describe(&e)))?;
        if let Ok(data) = frame.into_data() {
            if out.len() + data.len() > limit {
                return Err(BodyError::TooLong {
                    size: out.len() + data.len(),
                });
            }
            out.extend_from_slice(&data);
        }
    }
    Ok(out)
}

/// An error with its causes (`connection refused` is hyper's source's source).
fn describe(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_s_credentials_become_a_basic_authorization_header() {
        let split = |url: &str| {
            let (uri, basic) = userinfo_as_basic(url.parse().unwrap()).unwrap();
            (
                uri.to_string(),
                basic.map(|v| v.to_str().unwrap().to_owned()),
            )
        };
        // `us@er:p:ss`, percent-encoded as a URL must have it.
        let (uri, basic) = split("https://us%40er:p%3Ass@example.com:8443/mcp?x=1");
        assert_eq!(uri, "https://example.com:8443/mcp?x=1");
        assert_eq!(basic.as_deref(), Some("Basic dXNAZXI6cDpzcw=="));
        let (uri, basic) = split("http://user:secret@127.0.0.1:3000/mcp");
        assert_eq!(uri, "http://127.0.0.1:3000/mcp");
        assert_eq!(basic.as_deref(), Some("Basic dXNlcjpzZWNyZXQ="));
        // A user alone has an empty password; a lone `%` is itself.
        let (_, basic) = split("http://a%@h/");
        assert_eq!(basic.as_deref(), Some("Basic YSU6"));
        assert_eq!(split("http://h:1/m"), ("http://h:1/m".to_owned(), None));
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn urls_and_headers_are_checked() {
        assert!(check_url("http://127.0.0.1:3001/mcp").is_ok());
        assert!(check_url("https://mcp.example.com/mcp?x=1").is_ok());
        for bad in ["/mcp", "ftp://x/mcp", "http://", "not a url", "ws://x/mcp"] {
            assert!(check_url(bad).is_err(), "{bad}");
        }
        assert!(check_header("Authorization", "Bearer x").is_ok());
        assert!(check_header("Bad Name", "x").is_err());
        assert!(check_header("X", "a\nb").is_err());
    }

    use crate::mcp::proxy::error::CallError;
    use crate::mcp::proxy::transport::inbound;
    use crate::mcp::proxy::transport::peer::Peer;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A scripted server: each connection's request (head and body) goes to `answer`, whose
    /// text is written back before the connection closes. Returns the URL and the requests
    /// seen.
    async fn scripted(
        answer: impl Fn(&str, &str) -> String + Send + Sync + 'static,
    ) -> (String, Arc<Mutex<Vec<String>>>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let answer = Arc::new(answer);
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let (answer, log) = (answer.clone(), log.clone());
                tokio::spawn(async move {
                    let mut buf = Vec::new();
                    let mut chunk = [0u8; 4096];
                    let (head, body) = loop {
                        let n = socket.read(&mut chunk).await.unwrap_or(0);
                        if n == 0 {
                            return;
                        }
                        buf.extend_from_slice(&chunk[..n]);
                        let text = String::from_utf8_lossy(&buf).into_owned();
                        if let Some(end) = text.find("\r\n\r\n") {
                            let head = text[..end].to_ascii_lowercase();
                            let length = head
                                .lines()
                                .find_map(|l| l.strip_prefix("content-length:"))
                                .map_or(0, |v| v.trim().parse::<usize>().unwrap());
                            if buf.len() >= end + 4 + length {
                                break (head, text[end + 4..end + 4 + length].to_owned());
                            }
                        }
                    };
                    lock(&log).push(format!("{head}\n\n{body}"));
                    let reply = answer(&head, &body);
                    let _ = socket.write_all(reply.as_bytes()).await;
                    let _ = socket.shutdown().await;
                });
            }
        });
        (url, seen)
    }

    fn response(status: &str, headers: &str, body: &str) -> String {
        format!("HTTP/1.1 {status}\r\nconnection: close\r\n{headers}\r\n{body}")
    }

    fn peer(url: &str) -> (Peer, Connection) {
        let (frames, outgoing, connection) = open("s", url, &[]).unwrap();
        let (tx, _rx) = inbound::queue();
        let sink = tokio_util::sync::PollSender::new(outgoing);
        (Peer::start_with("s", frames, sink, tx, None), connection)
    }

    const INIT: &str = r#"{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}"#;

    fn init_reply(body: &str) -> Option<String> {
        body.contains("\"initialize\"").then(|| {
            let id = Message::parse(body.to_owned()).unwrap().id().unwrap().to_owned();
            let result = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"protocolVersion":"2025-06-18","capabilities":{{}}}}}}"#
            );
            response(
                "200 OK",
                &format!("content-type: application/json\r\nmcp-session-id: s1\r\ncontent-length: {}\r\n", result.len()),
                &result,
            )
        })
    }

    #[tokio::test]
    async fn a_broken_answer_stream_is_resumed_after_its_last_event() {
        let (url, seen) = scripted(|head, body| {
            if let Some(reply) = init_reply(body) {
                return reply;
            }
            let sse = "content-type: text/event-stream\r\n";
            if head.starts_with("post") {
                // A priming event, then the connection drops: no answer.
                return response("200 OK", sse, ": hi\r\nid: e1\r\ndata:\r\n\r\n");
            }
            if head.starts_with("get") && head.contains("last-event-id: e1") {
                return response(
                    "200 OK",
                    sse,
                    "id: e2\ndata: {\"jsonrpc\":\"2.0\",\ndata: \"id\":2,\"result\":{\"ok\":1}}\n\n",
                );
            }
            response("405 Method Not Allowed", "content-length: 0\r\n", "")
        })
        .await;
        let (peer, _connection) = peer(&url);
        let wait = Duration::from_secs(20);
        peer.request("initialize", Some(INIT), wait).await.unwrap();
        let reply = peer.request("tools/call", Some("{}"), wait).await.unwrap();
        assert_eq!(reply.result(), Some(r#"{"ok":1}"#));
        let seen = lock(&seen).clone();
        let resumed = seen.iter().find(|r| r.starts_with("get")).unwrap();
        assert!(resumed.contains("mcp-session-id: s1"), "{resumed}");
        assert!(
            resumed.contains("mcp-protocol-version: 2025-06-18"),
            "{resumed}"
        );
        assert!(resumed.contains("accept: text/event-stream"), "{resumed}");
    }

    #[tokio::test]
    async fn refusals_fail_their_request_and_a_lost_session_ends_the_connection() {
        let (url, _) = scripted(|_, body| {
            if let Some(reply) = init_reply(body) {
                return reply;
            }
            let error =
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no such thing"}}"#;
            if body.contains("bad") {
                let headers = format!(
                    "content-type: application/json\r\ncontent-length: {}\r\n",
                    error.len()
                );
                return response("400 Bad Request", &headers, error);
            }
            if body.contains("html") {
                return response("502 Bad Gateway", "content-length: 9\r\n", "<h1>x</h1>");
            }
            response("404 Not Found", "content-length: 0\r\n", "")
        })
        .await;
        let (peer, _connection) = peer(&url);
        let wait = Duration::from_secs(20);
        peer.request("initialize", Some(INIT), wait).await.unwrap();
        let e = peer.request("bad", None, wait).await.unwrap_err();
        assert!(
            matches!(&e, CallError::Remote { code: -32600, message, .. } if message == "no such thing"),
            "{e}"
        );
        let e = peer.request("html", None, wait).await.unwrap_err();
        assert!(
            e.to_string()
                .contains("the server refused html: HTTP 502 Bad Gateway: <h1>x</h1"),
            "{e}"
        );
        let e = peer.request("tools/list", None, wait).await.unwrap_err();
        assert_eq!(
            e,
            CallError::Closed {
                server: "s".into(),
                reason: "the server ended the session (HTTP 404)".into()
            }
        );
        assert!(peer.closed().is_some());
    }

    #[tokio::test]
    async fn a_stream_refused_for_an_unknown_session_ends_the_connection() {
        // server-everything's answer to a session it does not know (after a restart).
        let (url, _) = scripted(|head, body| {
            if let Some(reply) = init_reply(body) {
                return reply;
            }
            if head.starts_with("get") {
                let error = r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}"#;
                let headers = format!("content-length: {}\r\n", error.len());
                return response("400 Bad Request", &headers, error);
            }
            response("202 Accepted", "content-length: 0\r\n", "")
        })
        .await;
        let (peer, _connection) = peer(&url);
        let wait = Duration::from_secs(20);
        peer.request("initialize", Some(INIT), wait).await.unwrap();
        peer.send(wire::notification("notifications/initialized", None))
            .await;
        let reason = tokio::time::timeout(wait, peer.wait_closed())
            .await
            .unwrap();
        assert_eq!(reason, "the server no longer knows the session (HTTP 400)");
    }

    #[test]
    fn a_2026_request_says_in_headers_what_its_body_says() {
        let schema = serde_json::json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "opts": {"type": "object", "properties": {"n": {"type": "integer", "x-mcp-header": "N"}}},
            "plain": {"type": "string"}}});
        let annotated = HashMap::from([("deploy".to_owned(), annotations(&schema))]);
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"region":"eu wést","opts":{"n":3},"plain":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        let body = Message::parse(body.to_owned()).unwrap();
        let headers: HashMap<String, String> = modern_headers(&body, &annotated)
            .into_iter()
            .map(|(n, v)| (n.to_string(), v.to_str().unwrap().to_owned()))
            .collect();
        assert_eq!(headers["mcp-protocol-version"], "2026-07-28");
        assert_eq!(headers["mcp-method"], "tools/call");
        assert_eq!(headers["mcp-name"], "deploy");
        assert_eq!(
            headers["mcp-param-region"],
            format!("=?base64?{}?=", base64("eu wést".as_bytes()))
        );
        assert_eq!(headers["mcp-param-n"], "3");
        assert_eq!(headers.len(), 5, "{headers:?}");
        // A 2025-11-25 request, or a notification, says nothing more.
        let legacy = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy"}}"#;
        let legacy = Message::parse(legacy.to_owned()).unwrap();
        assert!(modern_headers(&legacy, &annotated).is_empty());
        assert_eq!(
            header_value(" padded"),
            format!("=?base64?{}?=", base64(b" padded"))
        );
        assert_eq!(header_value("plain-name"), "plain-name");
    }

    #[test]
    fn pretty_printed_messages_become_one_line() {
        let frame = text_frame(
            b"{\r\n  \"jsonrpc\": \"2.0\",\n  \"id\": 3,\n  \"result\": {}\n}",
            None,
        );
        let message = frame.unwrap();
        assert!(!message.text().contains('\n'));
        assert_eq!(message.id(), Some("3"));
        let bad = text_frame(b"<html>502</html>", Some("9")).unwrap_err();
        assert_eq!(bad.id(), Some("9"));
    }
}
