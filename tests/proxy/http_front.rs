//! End-to-end tests of `toon mcp serve --http` (MCP Streamable HTTP: 2025-11-25 sessions and
//! 2026-07-28 stateless requests): the official
//! Python (`mcp` 2.3.0) and TypeScript (`@modelcontextprotocol/sdk` 1.32.2) client SDKs in front
//! of the proxy over HTTP, with server-everything and a repo fixture server behind it; and the
//! transport's rules checked on the wire with a plain HTTP/1.1 client (status codes, token,
//! Origin, sessions, limits, shutdown).
//!
//! The SDKs and servers come from `scripts/install-mcp-servers.sh`, as for tests/proxy/stdio.rs
//! (`TOON_MCP_SERVERS`, `TOON_MCP_SKIP_REAL_SERVERS=1`). The wire tests need only Python 3.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::mcp_servers::{self, Scratch, descendants, servers_dir};
use crate::modern_servers::REVISIONS;
use crate::stdio::{CompactAgent, check_compact_run, compact_agent};
use serde_json::{Value as Json, json};

/// `toon mcp serve --http 127.0.0.1:0 ARGS`, and the address it printed.
pub(super) struct Proxy {
    child: Child,
    pub(super) addr: String,
}

impl Proxy {
    pub(super) fn start(config: &Path, args: &[&str]) -> Proxy {
        let (child, addr) =
            mcp_servers::http_proxy(Path::new(env!("CARGO_BIN_EXE_toon")), config, args);
        Proxy { child, addr }
    }

    fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// One HTTP/1.1 exchange: (status, headers in lower case, body).
    fn http(&self, method: &str, headers: &[(&str, &str)], body: &str) -> Reply {
        http(&self.addr, method, "/mcp", headers, body)
    }

    pub(super) fn interrupt(&mut self) {
        self.signal("-INT");
    }

    /// Sends `signal` (`-TERM`) and waits for the proxy to exit.
    pub(super) fn signal(&mut self, signal: &str) {
        mcp_servers::signal_and_wait(&mut self.child, signal);
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[derive(Debug)]
pub(super) struct Reply {
    pub(super) status: u16,
    headers: Vec<(String, String)>,
    pub(super) body: String,
}

impl Reply {
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The JSON-RPC message of a JSON body, or the last `data:` of an event stream.
    pub(super) fn message(&self) -> Json {
        if self.header("content-type") == Some("text/event-stream") {
            let data = self
                .body
                .lines()
                .filter_map(|l| l.strip_prefix("data: "))
                .next_back()
                .unwrap_or("null");
            return serde_json::from_str(data).unwrap();
        }
        serde_json::from_str(&self.body).unwrap_or(Json::Null)
    }
}

pub(super) fn http(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Reply {
    http_within(addr, method, path, headers, body, Duration::from_secs(60))
}

/// [`http`], the answer read for at most `within` (status 0 and what came when it ran out).
fn http_within(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
    within: Duration,
) -> Reply {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(within)).unwrap();
    let mut request = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        request.push_str(&format!("Host: {addr}\r\n"));
    }
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    // A body refused for its declared size may be cut short by the answer (413).
    let _ = stream.write_all(request.as_bytes());
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let body = if headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v == "chunked")
    {
        dechunk(body)
    } else {
        body.to_owned()
    };
    Reply {
        status,
        headers,
        body,
    }
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        body = rest[n..].trim_start_matches("\r\n");
    }
    out
}

pub(super) const POST: [(&str, &str); 2] = [
    ("Accept", "application/json, text/event-stream"),
    ("Content-Type", "application/json"),
];

pub(super) fn initialize(proxy: &Proxy, extra: &[(&str, &str)]) -> String {
    let mut headers = POST.to_vec();
    headers.extend_from_slice(extra);
    let r = proxy.http("POST", &headers, &initialize_body());
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(
        r.message()["result"]["protocolVersion"],
        "2025-11-25",
        "{r:?}"
    );
    let id = r.header("mcp-session-id").unwrap().to_owned();
    let mut headers = POST.to_vec();
    headers.extend_from_slice(extra);
    headers.push(("Mcp-Session-Id", &id));
    let r = proxy.http(
        "POST",
        &headers,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    assert_eq!(r.status, 202, "{r:?}");
    id
}

fn initialize_body() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
           "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                      "clientInfo": {"name": "raw", "version": "1"}}})
    .to_string()
}

/// A configuration with the repo's wild fixture server only (Python 3, no install needed).
pub(super) fn wild_config(scratch: &Path) -> PathBuf {
    let script = mcp_servers::root().join("tests/fixtures/mcp/servers/wild_server.py");
    let path = scratch.join("mcp.json");
    let config = json!({"mcpServers": {"wild": {"command": "python3", "args": [script]}}});
    std::fs::write(&path, config.to_string()).unwrap();
    path
}

/// server-everything and the wild fixture.
fn everything_config(scratch: &Path) -> Option<PathBuf> {
    let servers = servers_dir()?;
    let script = mcp_servers::root().join("tests/fixtures/mcp/servers/wild_server.py");
    let path = scratch.join("mcp.json");
    let text = format!(
        r#"{{"mcpServers":{{"everything":{},"wild":{}}}}}"#,
        mcp_servers::entry(servers, scratch, "everything"),
        json!({"command": "python3", "args": [script]})
    );
    std::fs::write(&path, text).unwrap();
    Some(path)
}

pub(super) fn wait_until(what: &str, within: Duration, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < within, "{what}: not within {within:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn python_sdk_clients_two_sessions_at_once_with_sampling_elicitation_roots_and_progress() {
    let scratch = Scratch::new("http-py");
    let Some(config) = everything_config(&scratch.0) else {
        return;
    };
    let proxy = Proxy::start(&config, &["--http-token", "s3cret"]);
    let python = servers_dir().unwrap().join("venv/bin/python");
    let agent = mcp_servers::root().join("tests/fixtures/mcp/clients/py_http_agent.py");
    let out = Command::new(&python)
        .args(["-W", "ignore::DeprecationWarning"])
        .arg(&agent)
        .arg(proxy.url())
        .arg("s3cret")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // The SDK ends its sessions with DELETE: their servers are gone.
    let pid = proxy.child.id();
    wait_until("servers stopped", Duration::from_secs(10), || {
        descendants(pid).is_empty()
    });
}

#[test]
fn typescript_sdk_client_with_sampling_progress_concurrent_calls_and_delete() {
    let scratch = Scratch::new("http-ts");
    let Some(config) = everything_config(&scratch.0) else {
        return;
    };
    let proxy = Proxy::start(&config, &[]);
    let agent = mcp_servers::root().join("tests/fixtures/mcp/clients/sdk_http_agent.mjs");
    let sdk = mcp_servers::sdk_dir(servers_dir().unwrap());
    let out = Command::new("node")
        .arg(&agent)
        .arg(&sdk)
        .arg(proxy.url())
        .arg("")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let pid = proxy.child.id();
    wait_until("servers stopped", Duration::from_secs(10), || {
        descendants(pid).is_empty()
    });
}

#[test]
fn status_codes_token_origin_and_sessions_on_the_wire() {
    let scratch = Scratch::new("http-wire");
    let config = wild_config(&scratch.0);
    let proxy = Proxy::start(&config, &["--http-token", "tok"]);
    let auth = ("Authorization", "Bearer tok");
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut h = POST.to_vec();
        h.push(auth);
        h.extend_from_slice(extra);
        h
    };

    // 401 without the token, or with another; it says how to authenticate.
    for headers in [POST.to_vec(), {
        let mut h = POST.to_vec();
        h.push(("Authorization", "Bearer tok2"));
        h
    }] {
        let r = proxy.http("POST", &headers, &initialize_body());
        assert_eq!(r.status, 401, "{r:?}");
        assert_eq!(r.header("www-authenticate"), Some("Bearer"), "{r:?}");
    }
    // 403 for a foreign Origin (DNS rebinding, a web page), and for a foreign Host.
    let r = proxy.http(
        "POST",
        &with(&[("Origin", "http://evil.example")]),
        &initialize_body(),
    );
    assert_eq!(r.status, 403, "{r:?}");
    let r = proxy.http(
        "POST",
        &with(&[("Host", "evil.example")]),
        &initialize_body(),
    );
    assert_eq!(r.status, 403, "{r:?}");
    // The proxy's own origin is fine.
    let own = format!(
        "http://localhost:{}",
        proxy.addr.rsplit(':').next().unwrap()
    );
    let mut headers = with(&[]);
    headers.push(("Origin", &own));
    let session = initialize(&proxy, &headers[2..]);
    assert_eq!(session.len(), 32, "{session}");
    assert!(session.bytes().all(|b| b.is_ascii_hexdigit()), "{session}");

    let sid = ("Mcp-Session-Id", session.as_str());
    let mut in_session = with(&[]);
    in_session.push(sid);
    // A request: its answer, as JSON, every byte as the server sent it.
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                      "params": {"name": "exact", "arguments": {}}})
    .to_string();
    let r = proxy.http("POST", &in_session, &call);
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.message()["id"], 7, "{r:?}");
    // A notification, a response: 202.
    let r = proxy.http(
        "POST",
        &in_session,
        r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#,
    );
    assert_eq!(r.status, 202, "{r:?}");
    // 400: no session id; a batch; not JSON.
    let r = proxy.http("POST", &with(&[]), &call);
    assert_eq!(r.status, 400, "{r:?}");
    let r = proxy.http("POST", &in_session, &format!("[{call}]"));
    assert_eq!(r.status, 400, "{r:?}");
    let r = proxy.http("POST", &in_session, "{not json");
    assert_eq!(r.status, 400, "{r:?}");
    assert_eq!(r.message()["error"]["code"], -32700, "{r:?}");
    // 404: an unknown session.
    let mut unknown = with(&[]);
    unknown.push(("Mcp-Session-Id", "0123456789abcdef0123456789abcdef"));
    let r = proxy.http("POST", &unknown, &call);
    assert_eq!(r.status, 404, "{r:?}");
    // 406, 415, 405, 413.
    let r = proxy.http(
        "POST",
        &[auth, sid, ("Accept", "application/json"), POST[1]],
        &call,
    );
    assert_eq!(r.status, 406, "{r:?}");
    let r = proxy.http(
        "POST",
        &[auth, sid, POST[0], ("Content-Type", "text/plain")],
        &call,
    );
    assert_eq!(r.status, 415, "{r:?}");
    let r = proxy.http("PUT", &in_session, &call);
    assert_eq!(r.status, 405, "{r:?}");
    assert!(
        r.header("allow").is_some_and(|a| a.contains("POST")),
        "{r:?}"
    );
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{{"name":"echo_request","arguments":{{"x":"{}"}}}}}}"#,
        "a".repeat(17 << 20)
    );
    let r = proxy.http("POST", &in_session, &big);
    assert_eq!(r.status, 413, "{r:?}");
    // An MCP-Protocol-Version the session was not initialized with, such as 2026-07-28's:
    // 400 and -32022 naming what is served.
    let mut modern = with(&[("MCP-Protocol-Version", "2026-07-28")]);
    modern.push(sid);
    let r = proxy.http("POST", &modern, &call);
    assert_eq!(r.status, 400, "{r:?}");
    assert_eq!(r.message()["error"]["code"], -32022, "{r:?}");
    // A second GET stream on the session: 409 while the first is open.
    let mut get_headers = vec![auth, sid, ("Accept", "text/event-stream")];
    let addr = proxy.addr.clone();
    let mut stream = TcpStream::connect(&addr).unwrap();
    write!(
        stream,
        "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer tok\r\nAccept: text/event-stream\r\nMcp-Session-Id: {session}\r\n\r\n"
    )
    .unwrap();
    let mut first = BufReader::new(stream.try_clone().unwrap());
    let mut status_line = String::new();
    first.read_line(&mut status_line).unwrap();
    assert!(status_line.contains(" 200 "), "{status_line}");
    let r = proxy.http("GET", &get_headers, "");
    assert_eq!(r.status, 409, "{r:?}");
    drop((first, stream));
    get_headers[2] = ("Accept", "application/json");
    assert_eq!(proxy.http("GET", &get_headers, "").status, 406);
    // DELETE ends the session: its server stops, its id is unknown from then on.
    let pid = proxy.child.id();
    assert!(!descendants(pid).is_empty());
    let r = proxy.http("DELETE", &[auth, sid], "");
    assert_eq!(r.status, 200, "{r:?}");
    wait_until(
        "the session's server stopped",
        Duration::from_secs(10),
        || descendants(pid).is_empty(),
    );
    let r = proxy.http("POST", &in_session, &call);
    assert_eq!(r.status, 404, "{r:?}");
    // Another path: 404.
    let r = http(&proxy.addr, "POST", "/other", &with(&[]), &call);
    assert_eq!(r.status, 404, "{r:?}");
}

#[test]
fn sessions_are_bounded_idle_ones_closed_and_all_stopped_on_sigint() {
    let scratch = Scratch::new("http-limits");
    let config = wild_config(&scratch.0);
    let mut proxy = Proxy::start(
        &config,
        &[
            "--http-max-sessions",
            "1",
            "--http-session-wait",
            "1.5",
            "--http-idle-timeout",
            "3",
        ],
    );
    let pid = proxy.child.id();
    let first = initialize(&proxy, &[]);
    // A second initialize waits for the first session to end.
    let addr = proxy.addr.clone();
    let second = std::thread::spawn(move || {
        let started = Instant::now();
        let r = http(&addr, "POST", "/mcp", &POST, &initialize_body());
        (r, started.elapsed())
    });
    std::thread::sleep(Duration::from_millis(400));
    assert!(!second.is_finished());
    let r = proxy.http("DELETE", &[("Mcp-Session-Id", &first)], "");
    assert_eq!(r.status, 200, "{r:?}");
    let (r, waited) = second.join().unwrap();
    assert_eq!(r.status, 200, "{r:?}");
    assert!(waited >= Duration::from_millis(300), "{waited:?}");
    let second = r.header("mcp-session-id").unwrap().to_owned();
    // One more waits --http-session-wait, then is told to come back.
    let started = Instant::now();
    let r = proxy.http("POST", &POST, &initialize_body());
    assert_eq!(r.status, 503, "{r:?}");
    assert!(r.header("retry-after").is_some(), "{r:?}");
    assert!(started.elapsed() >= Duration::from_millis(1400), "{r:?}");
    // Unused for the idle timeout: closed, its server stopped, its client told 404.
    wait_until(
        "the idle session's server stopped",
        Duration::from_secs(10),
        || descendants(pid).is_empty(),
    );
    let r = proxy.http(
        "POST",
        &[POST[0], POST[1], ("Mcp-Session-Id", &second)],
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
    );
    assert_eq!(r.status, 404, "{r:?}");
    // SIGINT: the sessions' servers are shut down and the proxy exits.
    let _third = initialize(&proxy, &[]);
    wait_until("a server started", Duration::from_secs(10), || {
        !descendants(pid).is_empty()
    });
    let children = descendants(pid);
    proxy.interrupt();
    for child in children {
        wait_until("no server left behind", Duration::from_secs(10), || {
            !std::path::Path::new(&format!("/proc/{child}")).exists()
                || std::fs::read_to_string(format!("/proc/{child}/stat"))
                    .is_ok_and(|s| s[s.rfind(')').unwrap() + 2..].starts_with('Z'))
        });
    }
}

#[test]
fn a_non_loopback_address_needs_its_flag() {
    let scratch = Scratch::new("http-remote");
    let config = wild_config(&scratch.0);
    let stderr = serve_refused(&config, &["--http", "0.0.0.0:0"]);
    assert!(stderr.contains("--http-allow-remote"), "{stderr}");
}

/// `toon mcp serve --config CONFIG ARGS…`, which must refuse to start: what it says on stderr.
pub(crate) fn serve_refused(config: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_toon"))
        .args(mcp_servers::serve_flags(args))
        .arg("--config")
        .arg(config)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success(), "toon mcp serve {args:?} started");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// An open SSE response: its `data:` messages, one at a time.
struct Events(BufReader<TcpStream>);

impl Events {
    /// Sends a request and reads its status line and headers; the body is read as events.
    fn open(addr: &str, method: &str, headers: &[(&str, &str)], body: &str) -> (u16, Events) {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let mut request = format!("{method} /mcp HTTP/1.1\r\nHost: {addr}\r\n");
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
        stream.write_all(request.as_bytes()).unwrap();
        let mut reader = BufReader::new(stream);
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let status = line.split(' ').nth(1).unwrap().parse().unwrap();
        loop {
            line.clear();
            reader.read_line(&mut line).unwrap();
            if line.trim().is_empty() {
                break;
            }
        }
        (status, Events(reader))
    }

    /// The next message (hyper writes each event as one chunk, so `data:` lines are whole).
    fn next(&mut self) -> Option<Json> {
        let mut line = String::new();
        loop {
            line.clear();
            // The end of the connection, or of the chunked body (the last chunk, size 0).
            if self.0.read_line(&mut line).ok()? == 0 || line.trim_end() == "0" {
                return None;
            }
            if let Some(data) = line.trim_end().strip_prefix("data: ") {
                return Some(serde_json::from_str(data).unwrap());
            }
        }
    }
}

/// An open 2026-07-28 listen is no work to wait for: at SIGTERM the proxy does not wait out
/// `--http-drain` (30 s here) for it, and the listen ends with the answer that says so.
#[test]
fn an_open_listen_does_not_hold_the_shutdown() {
    let scratch = Scratch::new("http-drain-listen");
    let docs = mcp_servers::root().join("tests/fixtures/mcp/servers/documents_server.py");
    let config = scratch.0.join("mcp.json");
    let servers = json!({"mcpServers": {"docs": {"command": "python3", "args": [docs, "docs"]}}});
    std::fs::write(&config, servers.to_string()).unwrap();
    let mut proxy = Proxy::start(&config, &["--http-drain", "30"]);
    let listen = modern_body(
        json!("l"),
        "subscriptions/listen",
        json!({"notifications": {"resourceSubscriptions": ["doc://docs/own"]}}),
    );
    let headers = modern_headers("subscriptions/listen", None);
    let (status, mut events) = Events::open(&proxy.addr, "POST", &headers, &listen);
    assert_eq!(status, 200);
    let ack = events.next().expect("the acknowledgement");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    let started = Instant::now();
    proxy.signal("-TERM");
    let took = started.elapsed();
    // Held by the listen, it would take the whole drain; a second or so without.
    assert!(
        took < Duration::from_secs(15),
        "the proxy took {took:?} to stop"
    );
    let mut end = None;
    while let Some(event) = events.next() {
        end = Some(event);
    }
    let end = end.expect("the listen's last event");
    assert_eq!(
        (&end["id"], &end["error"]["code"]),
        (&json!("l"), &json!(-32004)),
        "{end}"
    );
}

/// At shutdown, a call still running when `--http-drain` runs out is answered for its id
/// that the proxy stopped while it was in flight (-32004, 503 without `Retry-After`; on a
/// stream, its last event), not told its session ended (404, -32001: initialize again, and
/// perhaps run the call twice); an open 2026-07-28 listen ends with such an answer too.
#[test]
fn calls_and_listens_cut_off_at_the_drain_deadline_are_answered_for_their_ids() {
    let scratch = Scratch::new("http-drain-cut");
    let wild = mcp_servers::root().join("tests/fixtures/mcp/servers/wild_server.py");
    let docs = mcp_servers::root().join("tests/fixtures/mcp/servers/documents_server.py");
    let config = scratch.0.join("mcp.json");
    let servers = json!({"mcpServers": {
        "wild": {"command": "python3", "args": [wild]},
        "docs": {"command": "python3", "args": [docs, "docs"]},
    }});
    std::fs::write(&config, servers.to_string()).unwrap();
    let mut proxy = Proxy::start(&config, &["--http-drain", "1"]);
    let session = initialize(&proxy, &[]);
    let mut headers = POST.to_vec();
    headers.push(("Mcp-Session-Id", &session));
    let headers: Vec<(String, String)> = headers
        .iter()
        .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
        .collect();
    // Three seconds of work, with a progress token: a stream, once its first progress came.
    let slow = |id: u64, meta: Json| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "slow_progress", "arguments": {}, "_meta": meta}})
        .to_string()
    };
    let borrowed: Vec<(&str, &str)> = headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    let (status, mut streamed) = Events::open(
        &proxy.addr,
        "POST",
        &borrowed,
        &slow(3, json!({"progressToken": "p"})),
    );
    assert_eq!(status, 200);
    let progress = streamed.next().expect("a progress notification");
    assert_eq!(progress["method"], "notifications/progress", "{progress}");
    // Queued behind it at the server (which works one call at a time): a JSON answer.
    let plain = {
        let (addr, headers, body) = (proxy.addr.clone(), headers.clone(), slow(2, json!({})));
        std::thread::spawn(move || {
            let headers: Vec<(&str, &str)> = headers
                .iter()
                .map(|(n, v)| (n.as_str(), v.as_str()))
                .collect();
            http(&addr, "POST", "/mcp", &headers, &body)
        })
    };
    let listen = modern_body(
        json!("l"),
        "subscriptions/listen",
        json!({"notifications": {"resourceSubscriptions": ["doc://docs/own"]}}),
    );
    let (status, mut events) = Events::open(
        &proxy.addr,
        "POST",
        &modern_headers("subscriptions/listen", None),
        &listen,
    );
    assert_eq!(status, 200);
    let ack = events.next().expect("the acknowledgement");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    std::thread::sleep(Duration::from_millis(300));
    proxy.signal("-TERM");

    let plain = plain.join().unwrap();
    assert_eq!(plain.status, 503, "{plain:?}");
    assert_eq!(plain.header("retry-after"), None, "{plain:?}");
    let answer = plain.message();
    assert_eq!(answer["id"], 2, "{plain:?}");
    assert_eq!(answer["error"]["code"], -32004, "{plain:?}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("may have run it"),
        "{plain:?}"
    );
    for (mut events, id) in [(streamed, json!(3)), (events, json!("l"))] {
        let mut end = None;
        while let Some(event) = events.next() {
            end = Some(event);
        }
        let end = end.expect("the stream's last event");
        assert_eq!(
            (&end["id"], &end["error"]["code"]),
            (&id, &json!(-32004)),
            "{end}"
        );
    }
}

/// A session's server still starting at SIGTERM (its client's `initialize` waiting for it)
/// is stopped with the proxy, and that `initialize` is answered as cut off.
#[test]
fn a_server_still_starting_for_a_session_is_stopped_at_sigterm() {
    let scratch = Scratch::new("http-stuck-session");
    let config = scratch.0.join("mcp.json");
    let stuck = mcp_servers::stuck_starting(&scratch.0);
    std::fs::write(&config, json!({"mcpServers": {"stuck": stuck}}).to_string()).unwrap();
    let mut proxy = Proxy::start(&config, &["--startup-timeout", "120", "--http-drain", "1"]);
    let addr = proxy.addr.clone();
    let initialize =
        std::thread::spawn(move || http(&addr, "POST", "/mcp", &POST, &initialize_body()));
    let pid = mcp_servers::stuck_pid(&scratch.0);
    proxy.signal("-TERM");
    let r = initialize.join().unwrap();
    assert_eq!(
        (r.status, &r.message()["error"]["code"]),
        (503, &json!(-32004)),
        "{r:?}"
    );
    let started = Instant::now();
    while mcp_servers::alive(pid) && started.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        !mcp_servers::alive(pid),
        "the session's server outlived the proxy"
    );
    assert!(
        scratch.0.join("term").exists(),
        "the server was never sent SIGTERM"
    );
}

#[test]
fn a_server_s_request_reaches_the_client_on_the_call_s_stream_or_the_get_stream() {
    let scratch = Scratch::new("http-sampling");
    let Some(config) = everything_config(&scratch.0) else {
        return;
    };
    let proxy = Proxy::start(&config, &[]);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {"sampling": {}},
                   "clientInfo": {"name": "raw", "version": "1"}}});
    let r = proxy.http("POST", &POST, &init.to_string());
    assert_eq!(r.status, 200, "{r:?}");
    let session = r.header("mcp-session-id").unwrap().to_owned();
    let mut headers = POST.to_vec();
    headers.push(("Mcp-Session-Id", &session));
    headers.push(("MCP-Protocol-Version", "2025-11-25"));
    let notified = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert_eq!(proxy.http("POST", &headers, notified).status, 202);
    // server-everything registers its sampling tool once initialized.
    wait_until("the sampling tool", Duration::from_secs(20), || {
        let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
        proxy
            .http("POST", &headers, list)
            .body
            .contains("trigger-sampling-request")
    });
    let call = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "trigger-sampling-request",
                          "arguments": {"prompt": "hi", "maxTokens": 5}}})
        .to_string()
    };
    let answer = |asked: &Json, text: &str| {
        json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"role": "assistant",
               "model": "raw", "content": {"type": "text", "text": text}}})
        .to_string()
    };

    // No GET stream: the question comes on the call's own stream, the answer goes by POST,
    // and the call's result ends that stream.
    let (status, mut events) = Events::open(&proxy.addr, "POST", &headers, &call(10));
    assert_eq!(status, 200);
    let asked = loop {
        let m = events.next().expect("the stream ended before the question");
        if m["method"] == "sampling/createMessage" {
            break m;
        }
    };
    let r = proxy.http("POST", &headers, &answer(&asked, "on the call's stream"));
    assert_eq!(r.status, 202, "{r:?}");
    let result = loop {
        let m = events.next().expect("the stream ended before the result");
        if m["id"] == 10 {
            break m;
        }
    };
    assert!(
        result.to_string().contains("on the call's stream"),
        "{result}"
    );
    assert!(events.next().is_none(), "the response ends the stream");

    // With a GET stream open too, the question still comes on the stream of the call it was
    // asked within (2025-11-25 transports: messages on a POST's stream "SHOULD relate to the
    // originating client request", the GET stream's "SHOULD be unrelated"), never on the
    // GET stream.
    let mut get = vec![
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", &*session),
    ];
    get.push(("MCP-Protocol-Version", "2025-11-25"));
    let (status, mut stream) = Events::open(&proxy.addr, "GET", &get, "");
    assert_eq!(status, 200);
    let (status, mut events) = Events::open(&proxy.addr, "POST", &headers, &call(11));
    assert_eq!(status, 200);
    let asked = loop {
        let m = events.next().expect("the stream ended before the question");
        if m["method"] == "sampling/createMessage" {
            break m;
        }
    };
    let r = proxy.http("POST", &headers, &answer(&asked, "with a GET stream open"));
    assert_eq!(r.status, 202, "{r:?}");
    let result = loop {
        let m = events.next().expect("the stream ended before the result");
        if m["id"] == 11 {
            break m;
        }
    };
    assert!(
        result.to_string().contains("with a GET stream open"),
        "{result}"
    );
    // What the GET stream got meanwhile: nothing of the call's.
    stream
        .0
        .get_ref()
        .set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    while let Some(m) = stream.next() {
        assert_ne!(
            m["method"], "sampling/createMessage",
            "on the GET stream: {m}"
        );
    }
}

/// server-everything and the repo's documents server `docs` (which sends a resource update
/// when subscribed).
fn everything_and_docs_config(scratch: &Path) -> Option<PathBuf> {
    let servers = servers_dir()?;
    let script = mcp_servers::root().join("tests/fixtures/mcp/servers/documents_server.py");
    let path = scratch.join("mcp.json");
    let text = format!(
        r#"{{"mcpServers":{{"everything":{},"docs":{}}}}}"#,
        mcp_servers::entry(servers, scratch, "everything"),
        json!({"command": "python3", "args": [script, "docs"]})
    );
    std::fs::write(&path, text).unwrap();
    Some(path)
}

/// The Python SDK 2.3.0, pinned to 2026-07-28 and then in its default `auto` mode (each
/// against a proxy of its own), over stateless Streamable HTTP: two clients at once with the
/// same request ids, discover, tools, sampling/elicitation/roots as `input_required`
/// rounds, progress, resources, prompts and a listen that receives a resource update.
#[test]
fn python_sdk_2026_clients_are_served_statelessly_pinned_and_in_auto_mode() {
    let scratch = Scratch::new("http-2026-py");
    let Some(config) = everything_and_docs_config(&scratch.0) else {
        return;
    };
    let python = servers_dir().unwrap().join("venv/bin/python");
    let agent = mcp_servers::root().join("tests/fixtures/mcp/clients/py_http_modern_agent.py");
    for sdk_mode in ["2026-07-28", "auto"] {
        let proxy = Proxy::start(&config, &["--http-token", "s3cret"]);
        let out = Command::new(&python)
            .args(["-W", "ignore::DeprecationWarning"])
            .arg(&agent)
            .arg(proxy.url())
            .arg("s3cret")
            .arg(sdk_mode)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{sdk_mode}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The headers a 2026-07-28 request carries (§ Request Metadata), besides Accept and
/// Content-Type.
pub(super) fn modern_headers<'a>(
    method: &'a str,
    name: Option<&'a str>,
) -> Vec<(&'a str, &'a str)> {
    let mut headers = POST.to_vec();
    headers.push(("MCP-Protocol-Version", "2026-07-28"));
    headers.push(("Mcp-Method", method));
    if let Some(name) = name {
        headers.push(("Mcp-Name", name));
    }
    headers
}

/// A 2026-07-28 request body (`params` gets the `_meta` envelope).
pub(super) fn modern_body(id: Json, method: &str, mut params: Json) -> String {
    let meta = params
        .as_object_mut()
        .unwrap()
        .entry("_meta")
        .or_insert(json!({}));
    meta["io.modelcontextprotocol/protocolVersion"] = json!("2026-07-28");
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({});
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

#[test]
fn stateless_2026_requests_status_codes_and_headers_on_the_wire() {
    let scratch = Scratch::new("http-2026-wire");
    let config = wild_config(&scratch.0);
    let proxy = Proxy::start(&config, &["--http-token", "tok"]);
    let auth = ("Authorization", "Bearer tok");
    let with = |mut headers: Vec<(&'static str, &'static str)>| {
        headers.push(auth);
        headers
    };
    let discover = modern_body(json!(1), "server/discover", json!({}));

    // The token, Origin and Host checks come first, as for sessions.
    let r = proxy.http("POST", &modern_headers("server/discover", None), &discover);
    assert_eq!(r.status, 401, "{r:?}");
    let mut foreign = with(modern_headers("server/discover", None));
    foreign.push(("Origin", "http://evil.example"));
    assert_eq!(proxy.http("POST", &foreign, &discover).status, 403);

    // Served: no session minted, the answer under the client's id.
    let r = proxy.http(
        "POST",
        &with(modern_headers("server/discover", None)),
        &discover,
    );
    assert_eq!(r.status, 200, "{r:?}");
    assert!(r.header("mcp-session-id").is_none(), "{r:?}");
    let m = r.message();
    assert_eq!(m["id"], 1, "{m}");
    let served = m["result"]["supportedVersions"].clone();
    assert_eq!(served[0], "2026-07-28", "{m}");
    assert!(
        served.as_array().unwrap().contains(&json!("2025-11-25")),
        "{m}"
    );
    assert_eq!(m["result"]["resultType"], "complete", "{m}");
    let list = modern_body(json!("l"), "tools/list", json!({}));
    let r = proxy.http("POST", &with(modern_headers("tools/list", None)), &list);
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.message()["id"], "l", "{r:?}");
    assert_eq!(r.message()["result"]["ttlMs"], 0, "{r:?}");
    // An `Mcp-Session-Id` on a 2026-07-28 request is ignored (§ Backward Compatibility).
    let mut stale = with(modern_headers("tools/list", None));
    stale.push(("Mcp-Session-Id", "0123456789abcdef0123456789abcdef"));
    let r = proxy.http("POST", &stale, &list);
    assert_eq!(r.status, 200, "{r:?}");
    assert!(r.header("mcp-session-id").is_none(), "{r:?}");

    // Mcp-Name, plain or Base64 (§ Value Encoding), must match the body.
    let call = modern_body(
        json!(2),
        "tools/call",
        json!({"name": "exact", "arguments": {}}),
    );
    let r = proxy.http(
        "POST",
        &with(modern_headers("tools/call", Some("exact"))),
        &call,
    );
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.message()["result"]["resultType"], "complete", "{r:?}");
    let r = proxy.http(
        "POST",
        &with(modern_headers("tools/call", Some("=?base64?ZXhhY3Q=?="))),
        &call,
    );
    assert_eq!(r.status, 200, "{r:?}");
    // 400 and -32020: a header missing or not the body's.
    for headers in [
        modern_headers("tools/call", None),
        modern_headers("tools/call", Some("other")),
        modern_headers("tools/list", Some("exact")),
        POST.iter()
            .copied()
            .chain([("Mcp-Method", "tools/call"), ("Mcp-Name", "exact")])
            .collect(),
    ] {
        let r = proxy.http("POST", &with(headers), &call);
        assert_eq!(r.status, 400, "{r:?}");
        assert_eq!(r.message()["error"]["code"], -32020, "{r:?}");
        assert_eq!(r.message()["id"], 2, "{r:?}");
    }
    // 400 and -32602: the header says 2026-07-28, the body has no envelope.
    let bare = r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}"#;
    let r = proxy.http("POST", &with(modern_headers("tools/list", None)), bare);
    assert_eq!(r.status, 400, "{r:?}");
    assert_eq!(r.message()["error"]["code"], -32602, "{r:?}");
    // 400 and -32022 under the request's own id, naming the revisions server/discover lists
    // (one list: the conformance suite's sep-2575 checks): a revision not served.
    let old =
        modern_body(json!(301), "server/discover", json!({})).replace("2026-07-28", "1900-01-01");
    let mut headers = with(modern_headers("server/discover", None));
    headers[2] = ("MCP-Protocol-Version", "1900-01-01");
    let r = proxy.http("POST", &headers, &old);
    assert_eq!(r.status, 400, "{r:?}");
    let m = r.message();
    assert_eq!(m["error"]["code"], -32022, "{m}");
    assert_eq!(m["id"], 301, "{m}");
    assert_eq!(m["error"]["data"]["supported"], served, "{m}");
    assert_eq!(m["error"]["data"]["requested"], "1900-01-01", "{m}");
    // 404 and -32601 for an `initialize` with the 2026-07-28 envelope: a removed method,
    // not a session opened.
    let handshake = modern_body(
        json!(6),
        "initialize",
        json!({"protocolVersion": "2026-07-28", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
    );
    let r = proxy.http(
        "POST",
        &with(modern_headers("initialize", None)),
        &handshake,
    );
    assert_eq!(r.status, 404, "{r:?}");
    assert!(r.header("mcp-session-id").is_none(), "{r:?}");
    assert_eq!(r.message()["error"]["code"], -32601, "{r:?}");
    assert_eq!(r.message()["id"], 6, "{r:?}");
    // 404 and -32601: a method 2026-07-28 does not have (§ Protocol Version Header).
    let ping = modern_body(json!(4), "ping", json!({}));
    let r = proxy.http("POST", &with(modern_headers("ping", None)), &ping);
    assert_eq!(r.status, 404, "{r:?}");
    assert_eq!(r.message()["error"]["code"], -32601, "{r:?}");
    assert_eq!(r.message()["id"], 4, "{r:?}");
    // A notification: 202; a response: 400 (a client MUST NOT send one).
    let note = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}"#;
    let r = proxy.http(
        "POST",
        &with(modern_headers("notifications/cancelled", None)),
        note,
    );
    assert_eq!(r.status, 202, "{r:?}");
    let answer = r#"{"jsonrpc":"2.0","id":9,"result":{}}"#;
    assert_eq!(
        proxy
            .http("POST", &with(modern_headers("", None)), answer)
            .status,
        400
    );
    // No GET stream, no DELETE (§ Backward Compatibility): 405, Allow: POST.
    for method in ["GET", "DELETE"] {
        let r = proxy.http(
            method,
            &[
                auth,
                ("Accept", "text/event-stream"),
                ("MCP-Protocol-Version", "2026-07-28"),
            ],
            "",
        );
        assert_eq!(r.status, 405, "{method}: {r:?}");
        assert_eq!(r.header("allow"), Some("POST"), "{r:?}");
    }
    // 413 for a body too large, as for sessions.
    let big = modern_body(
        json!(5),
        "tools/call",
        json!({"name": "echo_request", "arguments": {"x": "a".repeat(17 << 20)}}),
    );
    let r = proxy.http(
        "POST",
        &with(modern_headers("tools/call", Some("echo_request"))),
        &big,
    );
    assert_eq!(r.status, 413, "{r:?}");
    // A 2025-11-25 session beside them is served as before.
    let session = initialize(&proxy, &[auth]);
    let mut in_session = with(POST.to_vec());
    in_session.push(("Mcp-Session-Id", &session));
    let legacy = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let r = proxy.http("POST", &in_session, legacy);
    assert_eq!(r.status, 200, "{r:?}");
    assert!(r.message()["result"].get("resultType").is_none(), "{r:?}");
}

/// Two 2026-07-28 clients, at once, both with request id 1 and progress token 1: each gets
/// its own progress and its own answer.
#[test]
fn two_stateless_clients_with_the_same_ids_get_their_own_answers() {
    let scratch = Scratch::new("http-2026-ids");
    let config = wild_config(&scratch.0);
    let proxy = Proxy::start(&config, &[]);
    let slow = modern_body(
        json!(1),
        "tools/call",
        json!({"name": "slow_progress", "arguments": {}, "_meta": {"progressToken": 1}}),
    );
    let (status, mut events) = Events::open(
        &proxy.addr,
        "POST",
        &modern_headers("tools/call", Some("slow_progress")),
        &slow,
    );
    assert_eq!(status, 200);
    // The first progress: the slow call is under way (the wild server does one thing at a
    // time, so the second call waits behind it, both in flight with id 1).
    let first = events.next().expect("progress");
    assert_eq!(first["method"], "notifications/progress", "{first}");
    assert_eq!(first["params"]["progressToken"], 1, "{first}");
    let addr = proxy.addr.clone();
    let other = std::thread::spawn(move || {
        let echo = modern_body(
            json!(1),
            "tools/call",
            json!({"name": "echo_request", "arguments": {"from": "the second client"},
                   "_meta": {"progressToken": 1}}),
        );
        http(
            &addr,
            "POST",
            "/mcp",
            &modern_headers("tools/call", Some("echo_request")),
            &echo,
        )
    });
    let mut progress = 1;
    let result = loop {
        let m = events.next().expect("the slow call's stream ended early");
        if m["method"] == "notifications/progress" {
            assert_eq!(m["params"]["progressToken"], 1, "{m}");
            progress += 1;
            continue;
        }
        break m;
    };
    assert_eq!(result["id"], 1, "{result}");
    assert!(result.to_string().contains("worked"), "{result}");
    assert_eq!(progress, 6, "{result}");
    let r = other.join().unwrap();
    assert_eq!(r.status, 200, "{r:?}");
    let m = r.message();
    assert_eq!(m["id"], 1, "{m}");
    assert!(m.to_string().contains("the second client"), "{m}");
    assert!(!m.to_string().contains("worked"), "{m}");
}

/// A listen is a POST whose SSE response stays open: acknowledged, then the resource update
/// under the client's id; closing the response cancels it (§ Cancellation), so the server is
/// unsubscribed and the next listen subscribes it anew (the documents server says so with an
/// update each time).
#[test]
fn a_stateless_listen_stays_open_and_closing_it_cancels_it() {
    let scratch = Scratch::new("http-2026-listen");
    let script = mcp_servers::root().join("tests/fixtures/mcp/servers/documents_server.py");
    let config = scratch.0.join("mcp.json");
    let text = json!({"mcpServers": {"docs": {"command": "python3", "args": [script, "docs"]}}});
    std::fs::write(&config, text.to_string()).unwrap();
    let proxy = Proxy::start(&config, &[]);
    let listen = |id: &str| {
        let body = modern_body(
            json!(id),
            "subscriptions/listen",
            json!({"notifications": {"resourceSubscriptions": ["doc://docs/own"]}}),
        );
        let (status, mut events) = Events::open(
            &proxy.addr,
            "POST",
            &modern_headers("subscriptions/listen", None),
            &body,
        );
        assert_eq!(status, 200);
        let ack = events.next().expect("the acknowledgement");
        assert_eq!(
            ack["method"], "notifications/subscriptions/acknowledged",
            "{ack}"
        );
        assert_eq!(
            ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], id,
            "{ack}"
        );
        let update = events.next().expect("the update");
        assert_eq!(
            update["method"], "notifications/resources/updated",
            "{update}"
        );
        assert_eq!(
            update["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], id,
            "{update}"
        );
        events
    };
    let first = listen("a");
    drop(first);
    // Both clients may use the same id; the second listen gets its own update only if the
    // first one was cancelled (else the server stays subscribed and says nothing new).
    std::thread::sleep(Duration::from_millis(500));
    let _second = listen("a");
}

/// A server (Python, inline) with one tool whose parameter `region` is annotated
/// `x-mcp-header: Region`; its calls answer their arguments.
const ANNOTATED_SERVER: &str = r#"
import json, sys
TOOL = {"name": "where", "inputSchema": {"type": "object", "properties": {
    "region": {"type": "string", "x-mcp-header": "Region"}, "query": {"type": "string"},
    "n": {"type": "integer", "x-mcp-header": "N"}}}}
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg or "method" not in msg:
        continue
    method, result = msg["method"], {}
    if method == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "annotated", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [TOOL]}
    elif method == "tools/call":
        text = json.dumps(msg["params"].get("arguments"))
        result = {"content": [{"type": "text", "text": text}]}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
    sys.stdout.flush()
"#;

/// § Custom Headers from Tool Parameters: a parameter annotated `x-mcp-header` needs its
/// `Mcp-Param-{Name}` header, equal to the argument (Base64-encoded or not), else 400 and
/// -32020; without a value, no header is expected.
#[test]
fn stateless_tool_calls_check_their_mcp_param_headers() {
    let scratch = Scratch::new("http-2026-param");
    let script = scratch.0.join("annotated.py");
    std::fs::write(&script, ANNOTATED_SERVER).unwrap();
    let config = scratch.0.join("mcp.json");
    let text = json!({"mcpServers": {"annotated": {"command": "python3", "args": [script]}}});
    std::fs::write(&config, text.to_string()).unwrap();
    let proxy = Proxy::start(&config, &[]);
    let list = modern_body(json!(1), "tools/list", json!({}));
    let r = proxy.http("POST", &modern_headers("tools/list", None), &list);
    assert_eq!(r.status, 200, "{r:?}");
    let call = |arguments: Json| {
        modern_body(
            json!(2),
            "tools/call",
            json!({"name": "where", "arguments": arguments}),
        )
    };
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut headers = modern_headers("tools/call", Some("where"));
        headers.extend_from_slice(extra);
        headers
    };
    let ok = |r: &Reply| r.status == 200 && r.message()["result"]["resultType"] == "complete";
    let eu = call(json!({"region": "eu-west", "query": "q"}));
    let r = proxy.http("POST", &with(&[("Mcp-Param-Region", "eu-west")]), &eu);
    assert!(ok(&r), "{r:?}");
    let r = proxy.http(
        "POST",
        &with(&[("mcp-param-region", "=?base64?ZXUtd2VzdA==?=")]),
        &eu,
    );
    assert!(ok(&r), "{r:?}");
    let r = proxy.http("POST", &with(&[]), &call(json!({"query": "q"})));
    assert!(ok(&r), "{r:?}");
    for headers in [with(&[]), with(&[("Mcp-Param-Region", "us-east")])] {
        let r = proxy.http("POST", &headers, &eu);
        assert_eq!(r.status, 400, "{r:?}");
        assert_eq!(r.message()["error"]["code"], -32020, "{r:?}");
    }
}

/// The shared front for 2026-07-28 requests starts its servers at the first request, closes
/// them when idle (`--http-idle-timeout`), starts anew for the next request, and stops them
/// on SIGINT.
#[test]
fn the_stateless_front_is_closed_when_idle_and_on_sigint() {
    let scratch = Scratch::new("http-2026-idle");
    let config = wild_config(&scratch.0);
    let mut proxy = Proxy::start(&config, &["--http-idle-timeout", "2"]);
    let pid = proxy.child.id();
    let list = modern_body(json!(1), "tools/list", json!({}));
    let r = proxy.http("POST", &modern_headers("tools/list", None), &list);
    assert_eq!(r.status, 200, "{r:?}");
    assert!(!descendants(pid).is_empty());
    wait_until(
        "the idle front's server stopped",
        Duration::from_secs(10),
        || descendants(pid).is_empty(),
    );
    let r = proxy.http("POST", &modern_headers("tools/list", None), &list);
    assert_eq!(r.status, 200, "{r:?}");
    assert!(r.body.contains("slow_progress"), "{r:?}");
    let children = descendants(pid);
    assert!(!children.is_empty());
    proxy.interrupt();
    for child in children {
        wait_until("no server left behind", Duration::from_secs(10), || {
            !std::path::Path::new(&format!("/proc/{child}")).exists()
                || std::fs::read_to_string(format!("/proc/{child}/stat"))
                    .is_ok_and(|s| s[s.rfind(')').unwrap() + 2..].starts_with('Z'))
        });
    }
}

/// The annotated server's configuration, behind a proxy started with `args`.
fn annotated_proxy(scratch: &Path, args: &[&str]) -> Proxy {
    let script = scratch.join("annotated.py");
    std::fs::write(&script, ANNOTATED_SERVER).unwrap();
    let config = scratch.join("mcp.json");
    let text = json!({"mcpServers": {"annotated": {"command": "python3", "args": [script]}}});
    std::fs::write(&config, text.to_string()).unwrap();
    Proxy::start(&config, args)
}

/// `Mcp-Param-*` headers are checked on a cold front too (its first request, before anything
/// listed the tools; the first request after an idle close), and an integer exactly: through
/// `f64`, 9007199254740993 and 9007199254740992 are one number.
#[test]
fn mcp_param_headers_are_checked_cold_after_an_idle_close_and_exactly() {
    let scratch = Scratch::new("http-2026-param-cold");
    let proxy = annotated_proxy(&scratch.0, &["--http-idle-timeout", "2"]);
    let call = |arguments: Json, params: &[(&'static str, &'static str)]| {
        let mut headers = modern_headers("tools/call", Some("where"));
        headers.extend_from_slice(params);
        let body = modern_body(
            json!(3),
            "tools/call",
            json!({"name": "where", "arguments": arguments}),
        );
        proxy.http("POST", &headers, &body)
    };
    let refused = |r: &Reply| r.status == 400 && r.message()["error"]["code"] == -32020;
    let served = |r: &Reply| r.status == 200 && r.message()["result"]["resultType"] == "complete";
    let eu = json!({"region": "eu-west"});
    // The very first request: nothing has listed the tool yet.
    let r = call(eu.clone(), &[("Mcp-Param-Region", "us-east")]);
    assert!(refused(&r), "a cold front let a mismatch through: {r:?}");
    let big = json!({"region": "eu-west", "n": 9_007_199_254_740_993_u64});
    let r = call(
        big.clone(),
        &[
            ("Mcp-Param-Region", "eu-west"),
            ("Mcp-Param-N", "9007199254740992"),
        ],
    );
    assert!(refused(&r), "an integer compared as f64: {r:?}");
    let r = call(
        big,
        &[
            ("Mcp-Param-Region", "eu-west"),
            ("Mcp-Param-N", "9007199254740993"),
        ],
    );
    assert!(served(&r), "{r:?}");
    assert!(r.body.contains("9007199254740993"), "{r:?}");
    // Closed when idle: the next request meets a cold front again.
    let pid = proxy.child.id();
    wait_until(
        "the idle front's server stopped",
        Duration::from_secs(15),
        || descendants(pid).is_empty(),
    );
    let r = call(eu.clone(), &[("Mcp-Param-Region", "us-east")]);
    assert!(
        refused(&r),
        "a restarted front let a mismatch through: {r:?}"
    );
    let r = call(eu, &[("Mcp-Param-Region", "eu-west")]);
    assert!(served(&r), "{r:?}");
}

/// A server (Python, inline) with two resources to subscribe to: a subscription to
/// `flood://a` is answered, then followed by 2,000 updates of 32 KB (64 MB, more than any
/// socket buffers hold) and, from then on, an update of `flood://b` every 50 ms (a marker: it
/// reaches a listen only once the proxy has passed on every update queued before it). Its
/// tool `echo` answers its arguments.
const FLOODING_SERVER: &str = r#"
import json, sys, threading, time
lock = threading.Lock()
def send(obj):
    with lock:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()
def update(uri, **extra):
    send({"jsonrpc": "2.0", "method": "notifications/resources/updated",
          "params": dict(uri=uri, **extra)})
def markers():
    while True:
        update("flood://b")
        time.sleep(0.05)
PAD = "x" * 32000
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg or "method" not in msg:
        continue
    method, result = msg["method"], {}
    if method == "initialize":
        result = {"protocolVersion": "2025-11-25",
                  "capabilities": {"tools": {}, "resources": {"subscribe": True}},
                  "serverInfo": {"name": "flooding", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}
    elif method == "resources/list":
        result = {"resources": [{"uri": "flood://a", "name": "a"}, {"uri": "flood://b", "name": "b"}]}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": json.dumps(msg["params"].get("arguments"))}]}
    send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
    if method == "resources/subscribe" and msg["params"]["uri"] == "flood://a":
        for i in range(2000):
            update("flood://a", n=i, pad=PAD)
        threading.Thread(target=markers, daemon=True).start()
"#;

impl Events {
    /// [`next`](Self::next), or `None` once `deadline` has passed (checked at each line: a
    /// quiet stream sends a comment every 15 s).
    fn next_by(&mut self, deadline: Instant) -> Option<Json> {
        let mut line = String::new();
        while Instant::now() < deadline {
            line.clear();
            if self.0.read_line(&mut line).ok()? == 0 || line.trim_end() == "0" {
                return None;
            }
            if let Some(data) = line.trim_end().strip_prefix("data: ") {
                return Some(serde_json::from_str(data).unwrap());
            }
        }
        None
    }
}

/// One 2026-07-28 client opens a listen and stops reading it while the server floods it with
/// updates: another client's listen still gets its update, and a third client's call its
/// answer (the shared router never waits for one response's client); the unread listen, over
/// its queue, is ended with an error under its own id.
#[test]
fn an_unread_listen_does_not_stall_other_clients() {
    let scratch = Scratch::new("http-2026-unread-listen");
    let script = scratch.0.join("flooding.py");
    std::fs::write(&script, FLOODING_SERVER).unwrap();
    let config = scratch.0.join("mcp.json");
    let text = json!({"mcpServers": {"flooding": {"command": "python3", "args": [script]}}});
    std::fs::write(&config, text.to_string()).unwrap();
    let proxy = Proxy::start(&config, &[]);
    let listen = |id: &str, uri: &str| {
        let body = modern_body(
            json!(id),
            "subscriptions/listen",
            json!({"notifications": {"resourceSubscriptions": [uri]}}),
        );
        let (status, mut events) = Events::open(
            &proxy.addr,
            "POST",
            &modern_headers("subscriptions/listen", None),
            &body,
        );
        assert_eq!(status, 200);
        let ack = events.next().expect("the acknowledgement");
        assert_eq!(
            ack["params"]["notifications"]["resourceSubscriptions"],
            json!([uri]),
            "{ack}"
        );
        events
    };
    let mut reader = listen("reads", "flood://b");
    // From its acknowledgement on, this one reads nothing until the end.
    let mut unread = listen("unread", "flood://a");
    let marker = reader.next_by(Instant::now() + Duration::from_secs(15));
    let marker = marker.expect("a listen that reads waited for the unread one");
    assert_eq!(marker["params"]["uri"], "flood://b", "{marker}");
    let call = modern_body(
        json!(1),
        "tools/call",
        json!({"name": "echo", "arguments": {"from": "the third client"}}),
    );
    let r = http_within(
        &proxy.addr,
        "POST",
        "/mcp",
        &modern_headers("tools/call", Some("echo")),
        &call,
        Duration::from_secs(15),
    );
    assert_eq!(
        r.status, 200,
        "the call waited for the unread listen: {r:?}"
    );
    assert!(r.body.contains("the third client"), "{r:?}");
    // What was queued for the unread listen, then its end.
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut last = json!(null);
    let mut updates = 0;
    while let Some(m) = unread.next_by(deadline) {
        updates += usize::from(m["method"] == "notifications/resources/updated");
        last = m;
    }
    assert!(
        updates < 2000,
        "every update was kept for the unread listen"
    );
    assert_eq!(last["id"], "unread", "{last}");
    assert!(
        last["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("did not read")),
        "{last}"
    );
}

/// Open listens have their own bound: with `MAX_LISTENS` (256) of them open, another client's
/// call is served, and one listen more is refused, saying why.
#[test]
fn open_listens_do_not_lock_out_calls() {
    let scratch = Scratch::new("http-2026-listens");
    let config = wild_config(&scratch.0);
    let proxy = Proxy::start(&config, &[]);
    let listen = |id: usize| {
        let body = modern_body(
            json!(format!("l{id}")),
            "subscriptions/listen",
            json!({"notifications": {"toolsListChanged": true}}),
        );
        Events::open(
            &proxy.addr,
            "POST",
            &modern_headers("subscriptions/listen", None),
            &body,
        )
    };
    let mut open = Vec::new();
    for id in 0..256 {
        let (status, mut events) = listen(id);
        assert_eq!(status, 200, "listen {id}");
        let ack = events.next().expect("the acknowledgement");
        assert_eq!(
            ack["method"], "notifications/subscriptions/acknowledged",
            "{ack}"
        );
        open.push(events);
    }
    let call = modern_body(
        json!(1),
        "tools/call",
        json!({"name": "echo_request", "arguments": {}}),
    );
    let r = proxy.http(
        "POST",
        &modern_headers("tools/call", Some("echo_request")),
        &call,
    );
    assert_eq!(r.status, 200, "open listens locked out a call: {r:?}");
    assert!(r.message()["result"].is_object(), "{r:?}");
    let body = modern_body(
        json!("l256"),
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    );
    let r = proxy.http("POST", &modern_headers("subscriptions/listen", None), &body);
    assert_eq!(r.status, 400, "{r:?}");
    let refusal = r.message();
    assert_eq!(refusal["id"], "l256", "{refusal}");
    assert!(
        refusal
            .to_string()
            .contains("256 subscriptions/listen streams are open"),
        "{refusal}"
    );
}

/// A stateless POST at the size limit (16 MiB), its id at the end and shorter than the
/// internal one it gets: served, and answered with its own id.
#[test]
fn a_stateless_post_at_the_size_limit_is_answered_with_its_id() {
    let scratch = Scratch::new("http-2026-limit");
    let config = wild_config(&scratch.0);
    let proxy = Proxy::start(&config, &[]);
    let list = modern_body(json!(1), "tools/list", json!({}));
    // Ten requests first: internal ids have two digits from now on.
    for _ in 0..10 {
        let r = proxy.http("POST", &modern_headers("tools/list", None), &list);
        assert_eq!(r.status, 200, "{r:?}");
    }
    let head = r#"{"jsonrpc":"2.0","method":"tools/list","params":{"_meta":{"progressToken":1,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"pad":""#;
    let tail = r#""},"id":7}"#;
    let limit = 16 << 20;
    let body = format!(
        "{head}{}{tail}",
        "x".repeat(limit - head.len() - tail.len())
    );
    assert_eq!(body.len(), limit);
    let r = http_within(
        &proxy.addr,
        "POST",
        "/mcp",
        &modern_headers("tools/list", None),
        &body,
        Duration::from_secs(20),
    );
    assert_eq!(r.status, 200, "{}", &r.body[..r.body.len().min(500)]);
    let m = r.message();
    assert_eq!(m["id"], 7, "{m}");
    assert!(m["result"]["tools"].is_array(), "{m}");
}

/// Runs `command` to success, showing its output otherwise.
fn succeeds(command: &mut Command) {
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_stdio_agents_work_over_http_too_resources_prompts_completion_logging_and_tasks() {
    // The same official-SDK agents the stdio tests run, pointed at `--http` instead: each of
    // the issue's features over HTTP as over stdio.
    let scratch = Scratch::new("http-agents");
    let Some(config) = mcp_servers::config(&scratch.0, &["everything"]) else {
        return;
    };
    let python = servers_dir().unwrap().join("venv/bin/python");
    let clients = mcp_servers::root().join("tests/fixtures/mcp/clients");
    for mode in ["passthrough", "lean"] {
        let proxy = Proxy::start(&config, &["--mode", mode]);
        succeeds(
            Command::new(&python)
                .args(["-W", "ignore::DeprecationWarning"])
                .arg(clients.join("py_agent.py"))
                .arg(proxy.url())
                .arg("-")
                .arg(mode),
        );
    }
    // Compact mode: valid, invalid then fixed calls, the full definition, on both revisions.
    let proxy = Proxy::start(&config, &["--mode", "compact"]);
    let url = proxy.url();
    for revision in REVISIONS {
        let summary = compact_agent(CompactAgent::Python, revision, [url.as_ref(), "-".as_ref()]);
        check_compact_run(&summary, revision);
    }
    // And on the TypeScript SDK, a host's capabilities declared.
    succeeds(
        Command::new("node")
            .arg(clients.join("sdk_compact_agent.mjs"))
            .arg(mcp_servers::sdk_dir(servers_dir().unwrap()))
            .arg(proxy.url())
            .arg("-"),
    );
    // Tasks, with a question inside one, on the TypeScript SDK's tasks API.
    let proxy = Proxy::start(&config, &[]);
    succeeds(
        Command::new("node")
            .arg(clients.join("sdk_tasks.mjs"))
            .arg(mcp_servers::sdk_dir(servers_dir().unwrap()))
            .arg(proxy.url())
            .arg("-"),
    );
}

/// The HTTP front in compact mode for an agent on the official TypeScript SDK v2 client
/// declaring roots, sampling and elicitation as hosts do, pinned to each revision: the same
/// outcomes as the Python agent's over HTTP and the same agent's over stdio.
#[test]
fn an_agent_on_the_typescript_sdk_v2_calls_tools_in_compact_mode_over_http_on_both_revisions() {
    let scratch = Scratch::new("http-sdk2-compact");
    let Some(config) = mcp_servers::config(&scratch.0, &["everything"]) else {
        return;
    };
    let proxy = Proxy::start(&config, &["--mode", "compact"]);
    let url = proxy.url();
    for revision in REVISIONS {
        let summary = compact_agent(
            CompactAgent::TypeScriptV2,
            revision,
            [url.as_ref(), "-".as_ref()],
        );
        check_compact_run(&summary, revision);
    }
}

/// A configuration with the repo's stray fixture server only (Python 3).
fn stray_config(scratch: &Path) -> PathBuf {
    let script = mcp_servers::root().join("tests/fixtures/mcp/servers/stray_server.py");
    let path = scratch.join("mcp.json");
    let config = json!({"mcpServers": {"stray": {"command": "python3", "args": [script]}}});
    std::fs::write(&path, config.to_string()).unwrap();
    path
}

/// A `tools/call` in `session` (with `extra` headers): its response message.
pub(super) fn call_in(
    proxy: &Proxy,
    session: &str,
    extra: &[(&str, &str)],
    name: &str,
    args: Json,
) -> Json {
    let mut headers = POST.to_vec();
    headers.extend_from_slice(extra);
    headers.push(("Mcp-Session-Id", session));
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": name, "arguments": args}});
    let r = proxy.http("POST", &headers, &body.to_string());
    assert_eq!(r.status, 200, "{r:?}");
    r.message()
}

/// `toon mcp serve --http` with `args`, run until it exits (at most 20 s): its status and
/// stderr.
fn serve_until_exit(config: &Path, args: &[&str]) -> (std::process::ExitStatus, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toon"))
        .args(mcp_servers::serve_flags(args))
        .arg("--config")
        .arg(config)
        .args(["--http", "127.0.0.1:0"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("still serving with {args:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (status, stderr)
}

#[test]
fn the_token_comes_from_a_private_file_and_never_reaches_a_server() {
    use std::os::unix::fs::PermissionsExt;
    let scratch = Scratch::new("http-token-file");
    let config = stray_config(&scratch.0);
    let file = scratch.0.join("token");
    std::fs::write(&file, "s3cret-token\n").unwrap();
    let path = file.to_str().unwrap();
    // Readable by others: refused, saying how to fix it.
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let (status, stderr) = serve_until_exit(&config, &["--http-token-file", path]);
    assert!(!status.success(), "{stderr}");
    assert!(stderr.contains("chmod 600"), "{stderr}");
    // Private: its line (without the newline) is the token.
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let proxy = Proxy::start(&config, &["--http-token-file", path]);
    let r = proxy.http("POST", &POST, &initialize_body());
    assert_eq!(r.status, 401, "{r:?}");
    let auth = [("Authorization", "Bearer s3cret-token")];
    let session = initialize(&proxy, &auth);
    let r = call_in(&proxy, &session, &auth, "environment", json!({}));
    let seen = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(!seen.contains("s3cret-token"), "{seen}");
    assert!(!seen.contains("TOON_MCP_HTTP_TOKEN"), "{seen}");
}

#[test]
fn a_token_on_the_command_line_is_warned_about() {
    let scratch = Scratch::new("http-token-flag");
    let config = stray_config(&scratch.0);
    let mut child = Command::new(env!("CARGO_BIN_EXE_toon"))
        .args(mcp_servers::serve_flags(&[]))
        .arg("--config")
        .arg(&config)
        .args(["--http", "127.0.0.1:0", "--http-token", "tok"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        if stderr.read_line(&mut line).unwrap() == 0 || line.contains("Streamable HTTP on") {
            break;
        }
        seen.push_str(&line);
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        seen.contains("--http-token is deprecated") && seen.contains("/proc/PID/cmdline"),
        "{seen}"
    );
}

/// The events of an SSE body as the WHATWG parser reads them: lines end at CRLF, LF or CR;
/// the `data` lines of an event are joined with LF.
fn sse_events(body: &str) -> Vec<String> {
    let body = body.replace("\r\n", "\n").replace('\r', "\n");
    let mut events = Vec::new();
    let mut data: Option<String> = None;
    for line in body.split('\n') {
        if line.is_empty() {
            events.extend(data.take());
            continue;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        if field == "data" {
            match &mut data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => data = Some(value.to_owned()),
            }
        }
    }
    events
}

#[test]
fn a_bare_cr_in_a_server_s_messages_does_not_split_their_sse_events() {
    let scratch = Scratch::new("http-cr");
    let config = stray_config(&scratch.0);
    let proxy = Proxy::start(&config, &[]);
    let session = initialize(&proxy, &[]);
    let mut headers = POST.to_vec();
    headers.push(("Mcp-Session-Id", &session));
    // A progress notification first: the answer is an event stream.
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "carriage_return", "arguments": {},
                                 "_meta": {"progressToken": "p1"}}});
    let r = proxy.http("POST", &headers, &body.to_string());
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.header("content-type"), Some("text/event-stream"), "{r:?}");
    let messages: Vec<Json> = sse_events(&r.body)
        .iter()
        .map(|data| serde_json::from_str(data).unwrap_or_else(|e| panic!("{e}: {data:?}")))
        .collect();
    let [progress, response] = &messages[..] else {
        panic!("{messages:?}")
    };
    assert_eq!(progress["params"]["message"], "a\rb", "{progress}");
    assert_eq!(response["id"], 2, "{response}");
    assert_eq!(
        response["result"]["content"][0]["text"], "one\rtwo",
        "{response}"
    );
}

/// Has the stray server of `session` start a daemon (setsid and a double fork); its pid.
fn daemon_in(proxy: &Proxy, session: &str, pidfile: &Path, clean_env: bool) -> u32 {
    let r = call_in(
        proxy,
        session,
        &[],
        "daemon",
        json!({"pidfile": pidfile, "clean_env": clean_env}),
    );
    assert_eq!(r["result"]["content"][0]["text"], "started", "{r}");
    let pid: u32 = std::fs::read_to_string(pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // Until it has exec'd sleep: out of the server's group, in a session of its own.
    wait_until("the daemon runs", Duration::from_secs(30), || {
        std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c.starts_with(b"sleep"))
    });
    pid
}

fn gone(pid: u32) -> bool {
    !mcp_servers::alive(pid)
}

#[test]
fn a_session_s_daemons_go_when_it_ends_and_not_another_s() {
    let scratch = Scratch::new("http-daemons");
    let config = stray_config(&scratch.0);
    let mut proxy = Proxy::start(&config, &[]);
    let a = initialize(&proxy, &[]);
    let b = initialize(&proxy, &[]);
    let a_daemon = daemon_in(&proxy, &a, &scratch.0.join("a.pid"), false);
    let b_daemon = daemon_in(&proxy, &b, &scratch.0.join("b.pid"), false);
    // One that empties its environment carries no tag: it goes with the proxy.
    let b_untagged = daemon_in(&proxy, &b, &scratch.0.join("c.pid"), true);
    let r = proxy.http("DELETE", &[("Mcp-Session-Id", &a)], "");
    assert_eq!(r.status, 200, "{r:?}");
    wait_until(
        "session A's daemon stopped",
        Duration::from_secs(15),
        || gone(a_daemon),
    );
    // Session A's servers are all stopped by now (the daemon went after them): B's run on.
    std::thread::sleep(Duration::from_millis(300));
    assert!(!gone(b_daemon) && !gone(b_untagged));
    let r = call_in(&proxy, &b, &[], "environment", json!({}));
    assert!(r["result"]["content"][0]["text"].is_string(), "{r}");
    // One that exits on its own while its server runs is reaped, not left a zombie.
    let short = daemon_in(&proxy, &b, &scratch.0.join("d.pid"), false);
    Command::new("kill")
        .arg(short.to_string())
        .status()
        .unwrap();
    wait_until("the exited daemon reaped", Duration::from_secs(10), || {
        !Path::new(&format!("/proc/{short}")).exists()
    });
    proxy.interrupt();
    for pid in [b_daemon, b_untagged] {
        wait_until("no daemon left behind", Duration::from_secs(10), || {
            gone(pid)
        });
    }
}

/// A configuration of repo fixture servers (Python 3), each `(name, script)`.
fn fixtures_config(scratch: &Path, servers: &[(&str, &str)]) -> PathBuf {
    let dir = mcp_servers::root().join("tests/fixtures/mcp/servers");
    let servers: serde_json::Map<String, Json> = servers
        .iter()
        .map(|(name, script)| {
            let entry = json!({"command": "python3", "args": [dir.join(script)]});
            ((*name).to_owned(), entry)
        })
        .collect();
    let path = scratch.join("mcp.json");
    std::fs::write(&path, json!({ "mcpServers": servers }).to_string()).unwrap();
    path
}

/// A stateless `tools/call` of `tool` declaring `capabilities`, from a client of its own
/// (its own connection), answered on another thread.
fn call_apart(
    addr: &str,
    id: &str,
    tool: &str,
    params: Json,
    capabilities: Json,
) -> std::sync::mpsc::Receiver<Json> {
    call_apart_with(addr, id, tool, params, capabilities, None)
}

/// [`call_apart`], with the proxy's client cookie set to `cookie` when given; the answer also
/// carries the `Set-Cookie` it came with (`null` for none).
fn call_apart_with(
    addr: &str,
    id: &str,
    tool: &str,
    params: Json,
    capabilities: Json,
    cookie: Option<&str>,
) -> std::sync::mpsc::Receiver<Json> {
    let cookie = cookie.map(|c| format!("toon_client={c}"));
    let mut body: Json =
        serde_json::from_str(&modern_body(json!(id), "tools/call", params)).unwrap();
    body["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = capabilities;
    let (addr, tool, body) = (addr.to_owned(), tool.to_owned(), body.to_string());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut headers = modern_headers("tools/call", Some(&tool));
        if let Some(cookie) = &cookie {
            headers.push(("Cookie", cookie));
        }
        let r = http(&addr, "POST", "/mcp", &headers, &body);
        assert_eq!(r.status, 200, "{r:?}");
        let set = r.header("set-cookie").map(str::to_owned);
        let _ = tx.send(json!({"message": r.message(), "body": r.body, "set_cookie": set}));
    });
    rx
}

/// A stateless client that keeps the proxy's cookie is one client: a server's question
/// asked just after its own call was answered may be put to its next call, which started at
/// once instead of waiting out the answered one (as a session's or the stdio front's calls
/// do). Two cookies are two clients, as two POSTs without any are: that question reaches
/// neither, and the next call is complete.
#[test]
fn stateless_posts_with_one_client_cookie_are_one_client_and_with_two_are_two() {
    let scratch = Scratch::new("http-2026-client-cookie");
    let config = fixtures_config(&scratch.0, &[("s", "late_server.py")]);
    let proxy = Proxy::start(&config, &[]);
    let wait = Duration::from_secs(20);
    let first = call_apart(
        &proxy.addr,
        "warm",
        "work",
        json!({"name": "work",
        "arguments": {"secs": 0.0}}),
        json!({}),
    );
    let first = first.recv_timeout(wait).unwrap();
    let set = first["set_cookie"]
        .as_str()
        .expect("a cookie for a POST without one");
    assert!(
        set.ends_with("; Path=/mcp; HttpOnly; SameSite=Strict"),
        "{set}"
    );
    let (pair, _) = set.split_once(';').unwrap();
    let mine = pair.strip_prefix("toon_client=").unwrap().to_owned();
    let other = "0123456789abcdef0123456789abcdef";
    for (a_cookie, one_client) in [(mine.as_str(), true), (other, false)] {
        // What was answered before, to other clients, is past the 2 s in which its server
        // may still ask about it, and holds no call.
        std::thread::sleep(Duration::from_millis(2500));
        // B, the cookie's client, has its call answered; its server asks 1 s later.
        let (b, a) = leave_then_work(&proxy.addr, Some(&mine), Some(a_cookie));
        assert!(
            b["set_cookie"].is_null(),
            "a cookie sent is not set again: {b}"
        );
        if one_client {
            let (_, question) = only_question(&a["message"]);
            assert!(question.to_string().contains("B-secret"), "{a}");
        } else {
            assert!(!a["body"].as_str().unwrap().contains("B-secret"), "{a}");
            assert_eq!(a["message"]["result"]["resultType"], "complete", "{a}");
        }
    }
}

/// `--http-no-client-cookie`: no cookie is set, and one sent names no client: each POST is
/// a client of its own, so a question asked just after one POST's answer reaches no other.
#[test]
fn without_the_client_cookie_each_stateless_post_is_a_client_of_its_own() {
    let scratch = Scratch::new("http-2026-no-client-cookie");
    let config = fixtures_config(&scratch.0, &[("s", "late_server.py")]);
    let proxy = Proxy::start(&config, &["--http-no-client-cookie"]);
    let same = Some("0123456789abcdef0123456789abcdef");
    let (b, a) = leave_then_work(&proxy.addr, same, same);
    assert!(
        a["set_cookie"].is_null() && b["set_cookie"].is_null(),
        "{a} {b}"
    );
    assert!(!a["body"].as_str().unwrap().contains("B-secret"), "{a}");
    assert_eq!(a["message"]["result"]["resultType"], "complete", "{a}");
}

/// On the late server: B (`b_cookie`) calls `leave`, answered at once, its server asking
/// 1 s later with B's secret; A (`a_cookie`) then calls `work` for 3 s, declaring sampling.
/// Their answers, B's checked to be complete.
fn leave_then_work(addr: &str, b_cookie: Option<&str>, a_cookie: Option<&str>) -> (Json, Json) {
    let wait = Duration::from_secs(20);
    let b_call = json!({"name": "leave", "arguments": {"secret": "B-secret", "after": 1.0}});
    let b = call_apart_with(addr, "b", "leave", b_call, json!({}), b_cookie);
    let b = b.recv_timeout(wait).unwrap();
    assert_eq!(b["message"]["result"]["resultType"], "complete", "{b}");
    let a_call = json!({"name": "work", "arguments": {"secs": 3.0}});
    let sampling = json!({"sampling": {}});
    let a = call_apart_with(addr, "a", "work", a_call, sampling, a_cookie);
    (b, a.recv_timeout(wait).unwrap())
}

/// The single `inputRequests` entry of an `input_required` result.
fn only_question(m: &Json) -> (String, Json) {
    assert_eq!(m["result"]["resultType"], "input_required", "{m}");
    let requests = m["result"]["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{m}");
    let (key, request) = requests.iter().next().unwrap();
    (key.clone(), request.clone())
}

/// Issue #42, 1: two stateless clients call the same server, each declaring elicitation.
/// While A's call waits on its round, B's call waits for the server (stdio names no request:
/// two calls in flight and a question could be either's); A's next round holds only A's own
/// question, and B's round, once its call runs, only B's.
#[test]
fn stateless_clients_get_only_their_own_questions() {
    let scratch = Scratch::new("http-2026-whose");
    let config = fixtures_config(&scratch.0, &[("s", "asking_server.py")]);
    let proxy = Proxy::start(&config, &[]);
    let wait = Duration::from_secs(20);
    let a_caps = json!({"elicitation": {}, "sampling": {}});
    let a_call = json!({"name": "ask_twice", "arguments": {}});
    let a = call_apart(
        &proxy.addr,
        "a",
        "ask_twice",
        a_call.clone(),
        a_caps.clone(),
    );
    let r = a.recv_timeout(wait).unwrap()["message"].clone();
    let (key, asked) = only_question(&r);
    assert_eq!(asked["method"], "elicitation/create", "{r}");
    let b_call = json!({"name": "ask", "arguments": {}});
    let b_caps = json!({"elicitation": {}});
    let b = call_apart(&proxy.addr, "b", "ask", b_call.clone(), b_caps.clone());
    // B's request is with the proxy while A's call waits on A's round.
    std::thread::sleep(Duration::from_millis(500));
    let retry = |call: &Json, key: &str, answer: Json, r: &Json| {
        let mut call = call.clone();
        call["inputResponses"] = json!({ key: answer });
        call["requestState"] = r["result"]["requestState"].clone();
        call
    };
    let accept = json!({"action": "accept", "content": {"name": "A"}});
    let next = retry(&a_call, &key, accept, &r);
    let a = call_apart(&proxy.addr, "a2", "ask_twice", next, a_caps.clone());
    let r = a.recv_timeout(wait).unwrap()["message"].clone();
    let (key, asked) = only_question(&r);
    assert_eq!(asked["method"], "sampling/createMessage", "{r}");
    let sampled = json!({"role": "assistant", "model": "m",
                         "content": {"type": "text", "text": "A-sampled"}});
    let next = retry(&a_call, &key, sampled, &r);
    let a = call_apart(&proxy.addr, "a3", "ask_twice", next, a_caps);
    let r = a.recv_timeout(wait).unwrap()["message"].clone();
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    assert!(r.to_string().contains("A-sampled"), "{r}");
    // B's call ran once A's had ended: B is asked its own question.
    let r = b.recv_timeout(wait).unwrap()["message"].clone();
    let (key, asked) = only_question(&r);
    assert_eq!(asked["method"], "elicitation/create", "{r}");
    let accept = json!({"action": "accept", "content": {"name": "B"}});
    let next = retry(&b_call, &key, accept, &r);
    let b = call_apart(&proxy.addr, "b2", "ask", next, b_caps);
    let r = b.recv_timeout(wait).unwrap()["message"].clone();
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    let text = r.to_string();
    assert!(
        text.contains("\\\"B\\\"") && !text.contains("A-sampled"),
        "{r}"
    );
}

/// A proxy in front of two questioning servers, `a` and `b` (its scratch folder kept).
fn two_questioning_servers(name: &str) -> (Scratch, Proxy) {
    let scratch = Scratch::new(name);
    let config = fixtures_config(
        &scratch.0,
        &[
            ("a", "questioning_server.py"),
            ("b", "questioning_server.py"),
        ],
    );
    let proxy = Proxy::start(&config, &[]);
    (scratch, proxy)
}

/// Issue #42, 1 (log messages): two stateless clients opt in to log messages; B's server
/// logs while A's call is in progress. The log message reaches B's response only.
#[test]
fn stateless_clients_get_only_their_own_log_messages() {
    let (_scratch, proxy) = two_questioning_servers("http-2026-logs");
    let wait = Duration::from_secs(20);
    let opted = |mut params: Json| {
        params["_meta"] = json!({"io.modelcontextprotocol/logLevel": "debug"});
        params
    };
    let a_call = opted(json!({"name": "a__slow", "arguments": {}}));
    let a = call_apart(&proxy.addr, "a", "a__slow", a_call, json!({}));
    // A's call is in progress (it takes 1.5 s).
    std::thread::sleep(Duration::from_millis(300));
    let b_call = opted(json!({"name": "b__slow", "arguments": {"log": "B-private"}}));
    let b = call_apart(&proxy.addr, "b", "b__slow", b_call, json!({}));
    let a = a.recv_timeout(wait).unwrap();
    let b = b.recv_timeout(wait).unwrap();
    assert_eq!(a["message"]["result"]["resultType"], "complete", "{a}");
    assert!(!a["body"].as_str().unwrap().contains("B-private"), "{a}");
    assert!(b["body"].as_str().unwrap().contains("B-private"), "{b}");
    assert!(
        b["body"].as_str().unwrap().contains(r#""logger":"b""#),
        "{b}"
    );
}

/// A request's `logLevel` is its own: the servers' level is shared (the last request's sets
/// it, and a server may not follow it), so a line below what the request asked for is not
/// its (`// 2026-07-28 server/utilities/logging`). The fixture logs at `info`.
#[test]
fn a_stateless_request_gets_log_messages_at_its_own_level_only() {
    let scratch = Scratch::new("http-2026-log-level");
    let config = fixtures_config(&scratch.0, &[("b", "questioning_server.py")]);
    let proxy = Proxy::start(&config, &[]);
    let wait = Duration::from_secs(20);
    let at = |level: &str| {
        json!({"name": "slow", "arguments": {"log": format!("at-{level}")},
               "_meta": {"io.modelcontextprotocol/logLevel": level}})
    };
    let error = call_apart(&proxy.addr, "e", "slow", at("error"), json!({}));
    let error = error.recv_timeout(wait).unwrap();
    // What the server says within 2 s of answering may still be about the first call.
    std::thread::sleep(Duration::from_millis(2500));
    let info = call_apart(&proxy.addr, "i", "slow", at("info"), json!({}));
    let info = info.recv_timeout(wait).unwrap();
    assert_eq!(
        error["message"]["result"]["resultType"], "complete",
        "{error}"
    );
    assert!(
        !error["body"].as_str().unwrap().contains("at-error"),
        "{error}"
    );
    assert!(info["body"].as_str().unwrap().contains("at-info"), "{info}");
}

/// Issue #42, 1 (progress): B's server sends progress under every token a request of the
/// shared front may have (internal tokens are small integers); A's request, waiting with a
/// progress token of its own on another server, hears none of it.
#[test]
fn stateless_clients_get_only_their_own_progress() {
    let (_scratch, proxy) = two_questioning_servers("http-2026-progress");
    let wait = Duration::from_secs(20);
    let a_call = json!({"name": "a__slow", "arguments": {}, "_meta": {"progressToken": "a"}});
    let a = call_apart(&proxy.addr, "a", "a__slow", a_call, json!({}));
    // A's call is in progress (it takes 1.5 s).
    std::thread::sleep(Duration::from_millis(300));
    let forge: Vec<Json> = (0..64).map(|n| json!(n)).chain([json!("a")]).collect();
    let b_call = json!({"name": "b__slow", "arguments": {"forge": forge}});
    let b = call_apart(&proxy.addr, "b", "b__slow", b_call, json!({}));
    let a = a.recv_timeout(wait).unwrap();
    let b = b.recv_timeout(wait).unwrap();
    assert_eq!(a["message"]["result"]["resultType"], "complete", "{a}");
    assert!(!a["body"].as_str().unwrap().contains("forged"), "{a}");
    assert_eq!(b["message"]["result"]["resultType"], "complete", "{b}");
}

/// What a stateless POST queues for a client that does not read is bounded in bytes (4 MiB
/// and one message), not only in count: of 100 progress notifications of 256 KiB (25 MiB)
/// sent while its client reads nothing, it gets a few MiB's worth (what the queue and the
/// sockets' buffers held), then its response.
#[test]
fn what_a_stateless_post_queues_is_bounded_by_bytes() {
    let scratch = Scratch::new("http-2026-queue-bytes");
    let config = fixtures_config(&scratch.0, &[("q", "questioning_server.py")]);
    let proxy = Proxy::start(&config, &[]);
    let body = modern_body(
        json!("big"),
        "tools/call",
        json!({"name": "slow", "arguments": {"progress": [100, 256 << 10]},
               "_meta": {"progressToken": "p"}}),
    );
    let (status, mut events) = Events::open(
        &proxy.addr,
        "POST",
        &modern_headers("tools/call", Some("slow")),
        &body,
    );
    assert_eq!(status, 200);
    // The server answers 1.5 s after its last progress notification.
    std::thread::sleep(Duration::from_secs(3));
    let (mut progress, mut bytes, mut last) = (0, 0, json!(null));
    while let Some(m) = events.next() {
        if m["method"] == "notifications/progress" {
            assert_eq!(m["params"]["progressToken"], "p", "{m}");
            progress += 1;
            bytes += m.to_string().len();
        }
        last = m;
        if last.get("id").is_some() {
            break;
        }
    }
    assert_eq!(last["id"], "big", "{last}");
    assert_eq!(last["result"]["content"][0]["text"], "slow done", "{last}");
    assert!(progress > 0, "no progress reached the client");
    assert!(
        bytes < 16 << 20,
        "{progress} progress notifications ({bytes} bytes) were queued for an unread POST"
    );
}

/// Issue #42, 2, over HTTP: a session whose client declared nothing; its server asks anyway
/// (elicitation) and is answered -32601 at once; the call's answer is the whole reply.
#[test]
fn a_session_s_server_asking_what_its_client_did_not_declare_is_refused_at_once() {
    let scratch = Scratch::new("http-undeclared");
    let config = fixtures_config(&scratch.0, &[("q", "questioning_server.py")]);
    // A short timeout: a client not asked is not waited for either way.
    let proxy = Proxy::start(&config, &["--request-timeout", "1"]);
    let session = initialize(&proxy, &[]);
    let mut headers = POST.to_vec();
    headers.push(("Mcp-Session-Id", &session));
    headers.push(("MCP-Protocol-Version", "2025-11-25"));
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "ask", "arguments": {}}});
    let started = Instant::now();
    let r = proxy.http("POST", &headers, &call.to_string());
    // Not left to hang (6.8 s seen at load 8; what shows it was refused at once is the
    // answer's text below, not the time).
    assert!(started.elapsed() < Duration::from_secs(20), "{r:?}");
    // Nothing came before the answer (a question would have made it an event stream).
    assert_eq!(r.header("content-type"), Some("application/json"), "{r:?}");
    let m = r.message();
    assert_eq!(m["id"], 2, "{m}");
    let answer = m["result"]["content"][0]["text"].as_str().unwrap();
    assert!(answer.contains("-32601"), "{m}");
    assert!(
        answer.contains("did not declare the elicitation capability"),
        "{m}"
    );
}

/// The repo's chatty fixture server (`announce`: resource updates in bulk), with `args`.
fn chatty_config(scratch: &Path, args: &[&str]) -> PathBuf {
    let script = mcp_servers::root().join("tests/fixtures/mcp/servers/chatty_server.py");
    let path = scratch.join("mcp.json");
    let mut argv = vec![script.to_string_lossy().into_owned()];
    argv.extend(args.iter().map(|a| (*a).to_owned()));
    let config = json!({"mcpServers": {"chatty": {"command": "python3", "args": argv}}});
    std::fs::write(&path, config.to_string()).unwrap();
    path
}

/// `announce`'s call: `count` resource updates numbered from `from`, `size` bytes of
/// padding each, `delay` seconds after the call's answer.
fn announce(id: u64, from: u64, count: u64, size: usize, delay: f64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "announce",
           "arguments": {"from": from, "count": count, "size": size, "delay": delay}}})
    .to_string()
}

/// One exchange on a new connection, answered within `within` (else `None`).
fn post_answered_within(
    addr: &str,
    headers: &[(&str, &str)],
    body: &str,
    within: Duration,
) -> Option<(Reply, Duration)> {
    let addr = addr.to_owned();
    let headers: Vec<(String, String)> = headers
        .iter()
        .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
        .collect();
    let body = body.to_owned();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let started = Instant::now();
        let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (&**n, &**v)).collect();
        let r = http(&addr, "POST", "/mcp", &headers, &body);
        let _ = tx.send((r, started.elapsed()));
    });
    rx.recv_timeout(within).ok()
}

/// Each announcement a session's GET stream brings, resource update or log message: (its
/// `seq`, its size in bytes).
fn updates(events: &mut Events, until: u64) -> Vec<(u64, usize)> {
    let mut seen = Vec::new();
    while seen.last().is_none_or(|(seq, _)| *seq < until) {
        let m = events.next().expect("the GET stream ended");
        let seq = match m["method"].as_str() {
            Some("notifications/resources/updated") => &m["params"]["seq"],
            Some("notifications/message") => &m["params"]["data"]["seq"],
            _ => continue,
        };
        seen.push((seq.as_u64().unwrap(), m.to_string().len()));
    }
    seen
}

/// `announce`'s call of `count` announcements `as` resource updates, log messages or both.
fn announce_as(id: u64, from: u64, count: u64, size: usize, delay: f64, kind: &str) -> String {
    let mut call: Json = serde_json::from_str(&announce(id, from, count, size, delay)).unwrap();
    call["params"]["arguments"]["as"] = json!(kind);
    call.to_string()
}

/// A chatty proxy and a new session on it: (proxy, session id).
fn chatty_session(scratch: &Scratch) -> (Proxy, String) {
    let config = chatty_config(&scratch.0, &[]);
    let proxy = Proxy::start(&config, &[]);
    let session = initialize(&proxy, &[]);
    (proxy, session)
}

/// Messages that came while no stream was open reach a GET stream opened later all of them,
/// in order, before anything newer.
#[test]
fn a_new_get_stream_gets_what_was_kept_in_order_before_anything_newer() {
    let scratch = Scratch::new("http-backlog-order");
    let (proxy, session) = chatty_session(&scratch);
    let mut headers = POST.to_vec();
    headers.push(("Mcp-Session-Id", &session));
    let get = [
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", &*session),
    ];
    let r = proxy.http("POST", &headers, &announce(2, 0, 600, 1000, 0.2));
    assert_eq!(r.status, 200, "{r:?}");
    std::thread::sleep(Duration::from_secs(2));
    let (status, mut events) = Events::open(&proxy.addr, "GET", &get, "");
    assert_eq!(status, 200);
    let r = proxy.http("POST", &headers, &announce(3, 600, 10, 1000, 0.0));
    assert_eq!(r.status, 200, "{r:?}");
    let seqs: Vec<u64> = updates(&mut events, 609).iter().map(|(s, _)| *s).collect();
    assert_eq!(seqs, (0..610).collect::<Vec<_>>());
}

/// So do log messages, and log messages and updates mixed (they travel apart inside the
/// gateway): 600 kept while no stream was open and 5 sent later, all 605 in order, for each.
#[test]
fn a_new_get_stream_gets_kept_log_messages_and_updates_whole_and_in_order() {
    let scratch = Scratch::new("http-backlog-mixed");
    let (proxy, session) = chatty_session(&scratch);
    let mut headers = POST.to_vec();
    headers.push(("Mcp-Session-Id", &session));
    let get = [
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", &*session),
    ];
    for (n, kind) in ["log", "mixed"].into_iter().enumerate() {
        let id = 10 * n as u64;
        let r = proxy.http(
            "POST",
            &headers,
            &announce_as(id + 2, 0, 600, 1000, 0.2, kind),
        );
        assert_eq!(r.status, 200, "{r:?}");
        std::thread::sleep(Duration::from_secs(2));
        let (status, mut events) = Events::open(&proxy.addr, "GET", &get, "");
        assert_eq!(status, 200);
        let r = proxy.http(
            "POST",
            &headers,
            &announce_as(id + 3, 600, 5, 1000, 0.0, kind),
        );
        assert_eq!(r.status, 200, "{r:?}");
        let seqs: Vec<u64> = updates(&mut events, 604).iter().map(|(s, _)| *s).collect();
        assert_eq!(seqs, (0..605).collect::<Vec<_>>(), "{kind}");
    }
}

/// What a session keeps for its client is bounded in bytes (4 MiB and one message): of 60
/// messages of 256 KiB (15 MiB) that came while no stream was open, a GET stream gets the
/// newest, in order.
#[test]
fn what_a_session_keeps_is_bounded_by_bytes() {
    let scratch = Scratch::new("http-backlog-bytes");
    let (proxy, session) = chatty_session(&scratch);
    let mut headers = POST.to_vec();
    headers.push(("Mcp-Session-Id", &session));
    let get = [
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", &*session),
    ];
    let r = proxy.http("POST", &headers, &announce(2, 0, 60, 256 << 10, 0.2));
    assert_eq!(r.status, 200, "{r:?}");
    std::thread::sleep(Duration::from_secs(2));
    let (status, mut events) = Events::open(&proxy.addr, "GET", &get, "");
    assert_eq!(status, 200);
    let kept = updates(&mut events, 59);
    let bytes: usize = kept.iter().map(|(_, n)| n).sum();
    assert!(bytes <= (4 << 20) + (257 << 10), "{bytes} bytes kept");
    let first = kept[0].0;
    assert!(first > 0, "nothing was dropped");
    let seqs: Vec<u64> = kept.iter().map(|(s, _)| *s).collect();
    assert_eq!(seqs, (first..60).collect::<Vec<_>>());
}

/// A GET stream its client does not read while 32 MiB come for it holds up neither the
/// session's router nor its POST answers.
#[test]
fn an_unread_get_stream_holds_up_no_post_answer() {
    let scratch = Scratch::new("http-unread-get");
    let (proxy, session) = chatty_session(&scratch);
    let mut headers = POST.to_vec();
    headers.push(("Mcp-Session-Id", &session));
    let get = [
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", &*session),
    ];
    let (status, unread) = Events::open(&proxy.addr, "GET", &get, "");
    assert_eq!(status, 200);
    // 20 at a time, 20 ms apart: none lost before the session (the server's reader drops
    // notifications it cannot queue).
    let flood = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "announce",
        "arguments": {"count": 2000, "size": 16 << 10, "batch": 20, "pause": 0.02}}});
    let r = proxy.http("POST", &headers, &flood.to_string());
    assert_eq!(r.status, 200, "{r:?}");
    std::thread::sleep(Duration::from_secs(2));
    for id in 3..6 {
        let ping = json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string();
        let (r, took) = post_answered_within(&proxy.addr, &headers, &ping, Duration::from_secs(10))
            .expect("a ping not answered in 10 s behind an unread GET stream");
        assert_eq!(r.message()["id"], id, "{r:?} after {took:?}");
    }
    drop(unread);
}

/// An `initialize` whose client goes away while the servers start: its session is closed
/// with its servers at once, and its slot is free for the next client.
#[test]
fn an_abandoned_initialize_leaves_no_session_behind() {
    let scratch = Scratch::new("http-abandoned");
    let config = chatty_config(&scratch.0, &["--slow-start", "3"]);
    let proxy = Proxy::start(
        &config,
        &["--http-max-sessions", "1", "--http-session-wait", "2"],
    );
    let pid = proxy.child.id();
    let addr = proxy.addr.clone();
    let mut stream = TcpStream::connect(&addr).unwrap();
    let body = initialize_body();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    wait_until(
        "the session's server started",
        Duration::from_secs(10),
        || !descendants(pid).is_empty(),
    );
    drop(stream);
    wait_until(
        "the abandoned session's server stopped",
        Duration::from_secs(5),
        || descendants(pid).is_empty(),
    );
    // Its slot is free: the next initialize is served, not told to retry.
    initialize(&proxy, &[]);
}

/// A POST whose body stops coming is answered 408 and its connection closed, within the
/// body timeout (10 s without a byte).
#[test]
fn a_body_that_never_comes_is_answered_408() {
    let scratch = Scratch::new("http-body-timeout");
    let config = wild_config(&scratch.0);
    let proxy = Proxy::start(&config, &["--http-token", "tok"]);
    let addr = proxy.addr.clone();
    let mut stream = TcpStream::connect(&addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(25)))
        .unwrap();
    let started = Instant::now();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer tok\r\n\
         Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n\
         Content-Length: 200\r\n\r\n{{\"jsonrpc\":\"2.0\","
    )
    .unwrap();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let took = started.elapsed();
    let raw = String::from_utf8_lossy(&raw);
    assert!(raw.starts_with("HTTP/1.1 408 "), "{raw:?} after {took:?}");
    assert!(took < Duration::from_secs(20), "{took:?}");
}

/// A body trickled a byte every 3 s (never pausing for the 10 s a part may take) is
/// answered 408 once the whole is overdue: 10 s, and a second per 64 KiB of its length.
/// At 1fe932d it held its connection, and its room among the authenticated, indefinitely.
#[test]
fn a_trickled_body_is_answered_408() {
    let scratch = Scratch::new("http-body-trickle");
    let config = wild_config(&scratch.0);
    let proxy = Proxy::start(&config, &["--http-token", "tok"]);
    let addr = proxy.addr.clone();
    let mut stream = TcpStream::connect(&addr).unwrap();
    let started = Instant::now();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer tok\r\n\
         Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n\
         Content-Length: 200\r\n\r\n{{"
    )
    .unwrap();
    let mut reader = stream.try_clone().unwrap();
    let trickle = std::thread::spawn(move || {
        // Until the proxy closes the connection, or 30 s.
        for _ in 0..10 {
            std::thread::sleep(Duration::from_secs(3));
            if stream.write_all(b" ").is_err() {
                break;
            }
        }
    });
    reader
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut raw = [0u8; 64];
    let n = reader.read(&mut raw).unwrap_or(0);
    let took = started.elapsed();
    let raw = String::from_utf8_lossy(&raw[..n]);
    assert!(raw.starts_with("HTTP/1.1 408 "), "{raw:?} after {took:?}");
    assert!(took < Duration::from_secs(20), "{took:?}");
    drop(reader);
    trickle.join().unwrap();
}

/// Connections that never send a request, more than the room for them and reopened as they
/// are closed, do not keep an authenticated client waiting: each ping on a new connection
/// is answered at once, and an authenticated keep-alive connection keeps its place. Here with
/// rooms of 16 and 64 idle connections.
#[test]
fn unauthenticated_connections_cannot_starve_an_authenticated_client() {
    let rooms = [
        "--http-max-unauthenticated",
        "16",
        "--http-max-connections",
        "16",
    ];
    flood_beside_a_client("http-flood", &rooms, 16);
}

/// Issue #42, 7, as found: 1,100 idle connections (more than the 1,024 connections 1fe932d
/// served at once, each held for its 30 s header timeout) against the default rooms.
#[test]
fn eleven_hundred_idle_connections_cannot_starve_an_authenticated_client() {
    flood_beside_a_client("http-flood-1100", &[], 275);
}

/// Four threads keep `per_thread` connections each open that send nothing (reopened as
/// they are closed) while an authenticated client pings, on new connections and on a
/// kept-alive one.
fn flood_beside_a_client(name: &str, args: &[&str], per_thread: usize) {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    let scratch = Scratch::new(name);
    let config = wild_config(&scratch.0);
    let mut argv = vec!["--http-token", "tok"];
    argv.extend_from_slice(args);
    let proxy = Proxy::start(&config, &argv);
    let auth = ("Authorization", "Bearer tok");
    let session = initialize(&proxy, &[auth]);
    let mut headers = POST.to_vec();
    headers.push(auth);
    headers.push(("Mcp-Session-Id", &session));
    let ping = |id: u64| json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string();

    // A keep-alive connection that made an authenticated request before the flood.
    let addr = proxy.addr.clone();
    let mut kept = TcpStream::connect(&addr).unwrap();
    kept.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut on_kept = |id: u64| {
        let body = ping(id);
        let mut request = format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\n");
        for (name, value) in &headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
        kept.write_all(request.as_bytes()).unwrap();
        let mut reader = BufReader::new(&kept);
        let (mut line, mut length) = (String::new(), 0);
        reader.read_line(&mut line).unwrap();
        assert!(line.contains(" 200 "), "{line:?}");
        loop {
            line.clear();
            reader.read_line(&mut line).unwrap();
            if let Some(n) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = n.trim().parse().unwrap();
            }
            if line.trim().is_empty() {
                break;
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        let answer: Json = serde_json::from_slice(&body).unwrap();
        assert_eq!(answer["id"], id, "{answer}");
    };
    on_kept(100);

    // Connections that send nothing, each reopened as soon as it is closed.
    let stop = Arc::new(AtomicBool::new(false));
    let (closed, opened) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let flood: Vec<_> = (0..4)
        .map(|_| {
            let (addr, stop) = (proxy.addr.clone(), stop.clone());
            let (closed, opened) = (closed.clone(), opened.clone());
            std::thread::spawn(move || {
                let mut idle: Vec<TcpStream> = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    idle.retain(|s| {
                        let mut byte = [0u8; 1];
                        let open = matches!(s.peek(&mut byte), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock);
                        if !open {
                            closed.fetch_add(1, Ordering::Relaxed);
                        }
                        open
                    });
                    while idle.len() < per_thread {
                        let s = match TcpStream::connect(&addr) {
                            Ok(s) => s,
                            // Not the proxy's doing: the test cannot make its flood.
                            Err(e) if e.raw_os_error() == Some(24) => {
                                panic!("too many open files: raise `ulimit -n` past 1,200")
                            }
                            Err(_) => break,
                        };
                        s.set_nonblocking(true).unwrap();
                        opened.fetch_add(1, Ordering::Relaxed);
                        idle.push(s);
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500 + 2 * per_thread as u64));
    for id in 2..12 {
        // Starved, a ping would wait out an idle connection's 30 s header timeout; the
        // bound leaves a loaded machine room (4.2 s seen at load 8).
        let (r, took) =
            post_answered_within(&proxy.addr, &headers, &ping(id), Duration::from_secs(15))
                .expect("a ping not answered within 15 s during the flood");
        assert_eq!(r.message()["id"], id, "{r:?}");
        assert!(took < Duration::from_secs(10), "ping {id} took {took:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
    on_kept(101);
    stop.store(true, Ordering::Relaxed);
    for thread in flood {
        thread.join().unwrap();
    }
    // The flood outgrew its room: its oldest connections were closed to make room.
    let (closed, opened) = (
        closed.load(Ordering::Relaxed),
        opened.load(Ordering::Relaxed),
    );
    eprintln!("{opened} idle connections opened, {closed} seen closed by the proxy");
    // The flood reached its size, and outgrew its room: the proxy closed its oldest (a flood
    // far past the room may still be connecting, held in the listen backlog, when it ends).
    assert!(opened >= 4 * per_thread, "{opened}");
    assert!(closed > 0 || per_thread > 64, "{closed}");
}

/// Review of #54 item 1 (e4eed66): a server that asks a question just after answering
/// client B's call (a tool that carries on in the background) has that question, B's data in
/// it, put to client A, whose call declaring sampling started the moment B's was answered.
/// Before e4eed66 A's call waited 2 s after another client's answer, and the question was
/// nobody's (refused to the server). Expected: A's call completes and never sees B's secret.
#[test]
fn a_question_asked_after_another_client_s_answer_is_not_put_to_the_next_client() {
    let scratch = Scratch::new("http-2026-late-question");
    let config = fixtures_config(&scratch.0, &[("s", "late_server.py")]);
    let proxy = Proxy::start(&config, &[]);
    let wait = Duration::from_secs(20);
    // B declares nothing; its call is answered at once, its server asks 0.3 s later.
    let b_call = json!({"name": "leave", "arguments": {"secret": "B-secret", "after": 0.3}});
    let b = call_apart(&proxy.addr, "b", "leave", b_call, json!({}));
    let b = b.recv_timeout(wait).unwrap();
    assert_eq!(b["message"]["result"]["resultType"], "complete", "{b}");
    // A, another client, calls the same server right after, declaring sampling.
    let a_call = json!({"name": "work", "arguments": {"secs": 1.0}});
    let a = call_apart(&proxy.addr, "a", "work", a_call, json!({"sampling": {}}));
    let a = a.recv_timeout(wait).unwrap();
    assert!(
        !a["body"].as_str().unwrap().contains("B-secret"),
        "B's question reached A: {a}"
    );
    assert_eq!(a["message"]["result"]["resultType"], "complete", "{a}");
}

/// Two HTTP sessions at once in front of a server of 2026-07-28 only: each one's call is asked
/// its own question on its own stream (the server's `input_required` round of that call), and
/// each answer goes back into that call's retry alone.
#[test]
fn two_sessions_get_only_their_own_questions_of_a_2026_only_server() {
    let scratch = Scratch::new("http-modern-two-sessions");
    let script = mcp_servers::root().join("tests/fixtures/mcp/servers/modern_server.py");
    let config = scratch.0.join("mcp.json");
    let servers = json!({"mcpServers": {"modern": {"command": "python3", "args": [script]}}});
    std::fs::write(&config, servers.to_string()).unwrap();
    let proxy = Proxy::start(&config, &[]);
    let open = |name: &'static str| {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
                       "clientInfo": {"name": name, "version": "1"}}});
        let r = proxy.http("POST", &POST, &init.to_string());
        assert_eq!(r.status, 200, "{r:?}");
        r.header("mcp-session-id").unwrap().to_owned()
    };
    let sessions = [open("a"), open("b")];
    let headers = |session: &str| {
        let mut headers: Vec<(String, String)> = POST
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect();
        headers.push(("Mcp-Session-Id".into(), session.to_owned()));
        headers.push(("MCP-Protocol-Version".into(), "2025-11-25".into()));
        headers
    };
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                      "params": {"name": "ask", "arguments": {}}})
    .to_string();
    // Both calls open, both questions asked, before either is answered.
    let mut streams: Vec<(Events, Json)> = sessions
        .iter()
        .map(|session| {
            let owned = headers(session);
            let h: Vec<(&str, &str)> = owned.iter().map(|(n, v)| (&**n, &**v)).collect();
            let (status, mut events) = Events::open(&proxy.addr, "POST", &h, &call);
            assert_eq!(status, 200);
            let asked = events.next().expect("the question on the call's stream");
            assert_eq!(asked["method"], "elicitation/create", "{asked}");
            (events, asked)
        })
        .collect();
    for ((session, (_, asked)), name) in sessions.iter().zip(&streams).zip(["Ada", "Bob"]) {
        let owned = headers(session);
        let h: Vec<(&str, &str)> = owned.iter().map(|(n, v)| (&**n, &**v)).collect();
        let answer = json!({"jsonrpc": "2.0", "id": asked["id"],
                            "result": {"action": "accept", "content": {"name": name}}});
        assert_eq!(proxy.http("POST", &h, &answer.to_string()).status, 202);
    }
    for ((events, _), name) in streams.iter_mut().zip(["Ada", "Bob"]) {
        let result = events.next().expect("the call's result");
        assert_eq!(result["id"], 7, "{result}");
        let text = result["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert_eq!(text, format!("hello {name} (state s1)"), "{result}");
    }
}
