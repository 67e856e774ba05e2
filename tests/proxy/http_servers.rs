//! End-to-end tests of `toon mcp serve` in front of servers reached over Streamable HTTP:
//! `@modelcontextprotocol/server-everything` run in its `streamableHttp` mode (SSE answers,
//! sessions, a GET stream, server requests), and `tests/fixtures/mcp/servers/http_server.py`
//! (plain JSON answers, session expiry, headers echoed). Each test starts its servers on free
//! ports and stops them at the end.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::http_front::serve_refused;
use crate::mcp_servers::{
    self, Scratch, WAIT, answer_until, root, servers_dir, wait_for_notification,
};
use serde_json::{Value as Json, json};

/// A server listening on a local port, killed when dropped; its stderr and stdout go to a file.
struct HttpServer {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl HttpServer {
    /// server-everything in `streamableHttp` mode, on `port` (0: a free one).
    fn everything(servers: &Path, scratch: &Path, port: u16) -> HttpServer {
        HttpServer::everything_in(servers, scratch, port, "streamableHttp")
    }

    /// server-everything in `mode` (`streamableHttp`, or `sse`: the legacy transport).
    fn everything_in(servers: &Path, scratch: &Path, port: u16, mode: &str) -> HttpServer {
        let script =
            servers.join("npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
        let mut command = Command::new("node");
        command.arg(script).arg(mode);
        HttpServer::start(command, scratch, "everything", port, &[])
    }

    /// The Python fixture.
    fn fixture(scratch: &Path) -> HttpServer {
        let mut command = Command::new("python3");
        command.arg(root().join("tests/fixtures/mcp/servers/http_server.py"));
        HttpServer::start(command, scratch, "fixture", 0, &[])
    }

    /// The official Python SDK's server (`python_http_server.py`) with `modes` (`json`,
    /// `stateless`).
    fn python_sdk(servers: &Path, scratch: &Path, modes: &[&str]) -> HttpServer {
        let mut command = Command::new(servers.join("venv/bin/python"));
        command.arg(root().join("tests/fixtures/mcp/servers/python_http_server.py"));
        HttpServer::start(command, scratch, "python-sdk", 0, modes)
    }

    /// The Python fixture over HTTPS, with the certificate of `tests/fixtures/mcp/tls`.
    fn fixture_tls(scratch: &Path) -> HttpServer {
        let mut command = Command::new("python3");
        command.arg(root().join("tests/fixtures/mcp/servers/http_server.py"));
        let tls = root().join("tests/fixtures/mcp/tls");
        let (cert, key) = (tls.join("server.pem"), tls.join("server.key"));
        let extra = [cert.to_str().unwrap(), key.to_str().unwrap()];
        HttpServer::start(command, scratch, "fixture-tls", 0, &extra)
    }

    fn start(
        mut command: Command,
        scratch: &Path,
        name: &str,
        port: u16,
        extra: &[&str],
    ) -> HttpServer {
        let port = if port == 0 { free_port() } else { port };
        let log = scratch.join(format!("{name}-{port}.log"));
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .unwrap();
        let child = command
            .arg(port.to_string())
            .args(extra)
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(file.try_clone().unwrap())
            .stderr(file)
            .spawn()
            .unwrap();
        let deadline = Instant::now() + WAIT;
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "{name} did not listen on {port}");
            std::thread::sleep(Duration::from_millis(50));
        }
        HttpServer { child, port, log }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.kill();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A port nothing listens on.
fn closed_port() -> u16 {
    free_port()
}

fn write_config(scratch: &Path, servers: &Json) -> PathBuf {
    let path = scratch.join("mcp.json");
    let text = json!({"mcpServers": servers}).to_string();
    std::fs::write(&path, text).unwrap();
    path
}

fn proxy(config: &Path, env: &[(&str, &str)]) -> mcp_servers::Client {
    proxy_with(config, env, &[])
}

fn proxy_with(config: &Path, env: &[(&str, &str)], args: &[&str]) -> mcp_servers::Client {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toon"));
    command
        .args(mcp_servers::serve_flags(args))
        .arg("--config")
        .arg(config)
        .args(args)
        .env_remove("SSL_CERT_FILE");
    for (k, v) in env {
        command.env(k, v);
    }
    mcp_servers::Client::spawn(command)
}

fn text(result: &Json) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{result}"))
        .to_owned()
}

/// Why a call failed: its JSON-RPC error or its error result (as the proxy answers a call whose
/// server is unavailable).
fn failure(r: &Json) -> String {
    match r["error"]["message"].as_str() {
        Some(message) => message.to_owned(),
        None if r["result"]["isError"] == true => text(&r["result"]),
        None => panic!("not a failure: {r}"),
    }
}

fn call(client: &mut mcp_servers::Client, id: u64, tool: &str, arguments: Json) -> Json {
    client.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                        "params": {"name": tool, "arguments": arguments}}));
    answer_until(client, id, &mut Vec::new())
}

#[test]
fn a_streamable_http_server_works_as_a_stdio_one_does() {
    let Some(servers) = servers_dir() else {
        return;
    };
    let scratch = Scratch::new("http-everything");
    let everything = HttpServer::everything(servers, &scratch.0, 0);
    let down = format!("http://127.0.0.1:{}/mcp", closed_port());
    let config = write_config(
        &scratch.0,
        &json!({"everything": {"type": "http", "url": everything.url()},
                "down": {"type": "http", "url": down},
                "legacy": {"type": "sse", "url": "http://127.0.0.1:9/sse"}}),
    );
    let mut client = proxy(&config, &[]);
    let init = client.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25",
           "capabilities": {"roots": {"listChanged": true}, "sampling": {},
                            "elicitation": {"form": {}}},
           "clientInfo": {"name": "e2e", "version": "1"}}),
    );
    let result = &init["result"];
    assert_eq!(
        result["capabilities"]["resources"]["subscribe"], true,
        "{init}"
    );
    assert!(
        result["instructions"]
            .as_str()
            .unwrap()
            .contains("## Server `everything`"),
        "{init}"
    );
    client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let mut asked = Vec::new();

    // Tools: listed (those registered for the client's capabilities too, after the re-listing
    // their list_changed causes), definitions whole, calls routed and results converted.
    let deadline = Instant::now() + WAIT;
    let tools = loop {
        client.send(&json!({"jsonrpc": "2.0", "id": 500, "method": "tools/list"}));
        let r = answer_until(&mut client, 500, &mut asked);
        let tools = r["result"]["tools"].as_array().unwrap().clone();
        if tools
            .iter()
            .any(|t| t["name"] == "trigger-sampling-request")
        {
            break tools;
        }
        assert!(Instant::now() < deadline, "{r}");
        std::thread::sleep(Duration::from_millis(200));
    };
    let echo = tools.iter().find(|t| t["name"] == "echo").unwrap();
    assert_eq!(echo["execution"], json!({"taskSupport": "forbidden"}));
    let r = call(&mut client, 501, "echo", json!({"message": "über http"}));
    assert_eq!(text(&r["result"]), "Echo: über http", "{r}");
    let r = call(&mut client, 502, "get-sum", json!({"a": 2, "b": 40}));
    assert!(text(&r["result"]).contains("42"), "{r}");

    // The server's requests (on the POST's SSE stream, and on the GET stream for roots)
    // reach the client and its answers go back.
    client.send(&json!({"jsonrpc": "2.0", "id": 503, "method": "tools/call",
        "params": {"name": "trigger-sampling-request", "arguments": {"prompt": "hi", "maxTokens": 10}}}));
    let r = answer_until(&mut client, 503, &mut asked);
    assert!(r.to_string().contains("sampled by e2e"), "{r}");
    client.send(&json!({"jsonrpc": "2.0", "id": 504, "method": "tools/call",
        "params": {"name": "trigger-elicitation-request", "arguments": {}}}));
    let r = answer_until(&mut client, 504, &mut asked);
    assert!(r.to_string().contains("decline"), "{r}");
    client.send(&json!({"jsonrpc": "2.0", "id": 505, "method": "tools/call",
        "params": {"name": "get-roots-list", "arguments": {}}}));
    let r = answer_until(&mut client, 505, &mut asked);
    assert!(r.to_string().contains("file:///work"), "{r}");
    for method in ["sampling/createMessage", "elicitation/create", "roots/list"] {
        assert!(asked.iter().any(|m| m == method), "{method}: {asked:?}");
    }

    // Progress: every notification before the result.
    client.send(&json!({"jsonrpc": "2.0", "id": 506, "method": "tools/call",
        "params": {"name": "trigger-long-running-operation",
                   "arguments": {"duration": 1, "steps": 3}, "_meta": {"progressToken": "p1"}}}));
    let r = answer_until(&mut client, 506, &mut asked);
    assert!(r["result"].is_object(), "{r}");
    let progress: Vec<&Json> = client
        .notifications
        .iter()
        .filter(|n| n["method"] == "notifications/progress" && n["params"]["progressToken"] == "p1")
        .collect();
    assert_eq!(progress.len(), 3, "{:?}", client.notifications);

    // Resources, prompts, completion, logging.
    let uri = "demo://resource/static/document/architecture.md";
    let r = client.request("resources/read", json!({"uri": uri}));
    assert_eq!(r["result"]["contents"][0]["uri"], uri, "{r}");
    let r = client.request(
        "prompts/get",
        json!({"name": "args-prompt", "arguments": {"city": "Paris"}}),
    );
    assert!(r.to_string().contains("Paris"), "{r}");
    let r = client.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "completable-prompt"},
               "argument": {"name": "department", "value": "Eng"}}),
    );
    assert_eq!(
        r["result"]["completion"]["values"],
        json!(["Engineering"]),
        "{r}"
    );
    let r = client.request("logging/setLevel", json!({"level": "debug"}));
    assert_eq!(r["result"], json!({}), "{r}");
    let dynamic = "demo://resource/dynamic/text/3";
    let r = client.request("resources/subscribe", json!({"uri": dynamic}));
    assert_eq!(r["result"], json!({}), "{r}");
    let log = wait_for_notification(&mut client, |n| {
        n["method"] == "notifications/message"
            && n["params"]["data"]
                .as_str()
                .is_some_and(|d| d.contains("Subscribe Resource request"))
    });
    assert_eq!(log["params"]["logger"], "everything", "{log}");

    // A server's error comes back as it sent it.
    let r = client.request("prompts/get", json!({"name": "no-such-prompt"}));
    assert_eq!(r["error"]["code"], -32602, "{r}");

    // The unreachable server and the legacy one are unavailable, saying why.
    let stderr = client.stderr_with(&[
        "[down] unavailable: cannot reach the server",
        "[legacy] unavailable: cannot reach the server",
    ]);
    assert!(
        stderr.contains("[down] unavailable: cannot reach the server")
            && stderr.contains("refused"),
        "{stderr}"
    );
    assert!(
        stderr.contains("[legacy] unavailable: cannot reach the server"),
        "{stderr}"
    );
    client.close();
    // The session was ended with DELETE.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !everything
        .log()
        .contains("Received session termination request")
    {
        assert!(Instant::now() < deadline, "{}", everything.log());
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn servers_on_the_python_sdk_answering_with_sse_or_json_with_or_without_sessions() {
    let Some(servers) = servers_dir() else {
        return;
    };
    let scratch = Scratch::new("http-python");
    let sse = HttpServer::python_sdk(servers, &scratch.0, &[]);
    let json_stateless = HttpServer::python_sdk(servers, &scratch.0, &["json", "stateless"]);
    let config = write_config(
        &scratch.0,
        &json!({"sse": {"url": sse.url(), "headers": {"X-Tenant": "${TOON_E2E_TENANT}"}},
                "plain": {"url": json_stateless.url()}}),
    );
    let mut client = proxy(&config, &[("TOON_E2E_TENANT", "acme")]);
    let init = client.initialize("2025-11-25");
    let instructions = init["result"]["instructions"].as_str().unwrap();
    assert!(
        instructions.contains("A Python SDK server over HTTP."),
        "{init}"
    );
    for (i, server) in ["sse", "plain"].into_iter().enumerate() {
        let id = 10 * (i as u64 + 1);
        let r = call(
            &mut client,
            id,
            &format!("{server}__add"),
            json!({"a": 2, "b": 40}),
        );
        assert_eq!(text(&r["result"]), "42", "{r}");
        let r = call(
            &mut client,
            id + 1,
            &format!("{server}__headers"),
            json!({}),
        );
        let seen = text(&r["result"]);
        assert!(seen.contains("toon-mcp-proxy/"), "{seen}");
        if server == "sse" {
            assert!(
                seen.contains("acme") && seen.contains("mcp-session-id"),
                "{seen}"
            );
        } else {
            assert!(!seen.contains("mcp-session-id"), "{seen}");
        }
        // Progress, each notification before the result (on the answer's SSE stream: a server
        // answering with JSON bodies, without a GET stream, has no way to send any).
        client.notifications.clear();
        client.send(
            &json!({"jsonrpc": "2.0", "id": id + 2, "method": "tools/call",
            "params": {"name": format!("{server}__count"), "arguments": {"to": 3},
                       "_meta": {"progressToken": id}}}),
        );
        let r = answer_until(&mut client, id + 2, &mut Vec::new());
        assert_eq!(text(&r["result"]), "counted to 3", "{r}");
        let progress = client
            .notifications
            .iter()
            .filter(|n| {
                n["method"] == "notifications/progress" && n["params"]["progressToken"] == id
            })
            .count();
        let expected = if server == "sse" { 3 } else { 0 };
        assert_eq!(progress, expected, "{server}: {:?}", client.notifications);
    }
    client.close();
}

#[test]
fn a_legacy_sse_server_is_spoken_too() {
    let Some(servers) = servers_dir() else {
        return;
    };
    let scratch = Scratch::new("http-sse");
    let everything = HttpServer::everything_in(servers, &scratch.0, 0, "sse");
    let url = format!("http://127.0.0.1:{}/sse", everything.port);
    let config = write_config(&scratch.0, &json!({"old": {"type": "sse", "url": url}}));
    let mut client = proxy(&config, &[]);
    client.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {"sampling": {}},
               "clientInfo": {"name": "e2e", "version": "1"}}),
    );
    client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let r = call(&mut client, 10, "echo", json!({"message": "by sse"}));
    assert_eq!(text(&r["result"]), "Echo: by sse", "{r}");
    // Its request comes on the event stream, the client's answer is POSTed back.
    let mut asked = Vec::new();
    let deadline = Instant::now() + WAIT;
    let mut id = 11;
    loop {
        client.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "trigger-sampling-request", "arguments": {"prompt": "hi", "maxTokens": 5}}}));
        let r = answer_until(&mut client, id, &mut asked);
        if r.to_string().contains("sampled by e2e") {
            break;
        }
        // Registered just after `initialize`: not listed yet.
        assert!(Instant::now() < deadline, "{r}");
        std::thread::sleep(Duration::from_millis(200));
        id += 1;
    }
    assert!(
        asked.iter().any(|m| m == "sampling/createMessage"),
        "{asked:?}"
    );
    client.close();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !everything.log().contains("Client Disconnected") {
        assert!(Instant::now() < deadline, "{}", everything.log());
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn an_http_server_that_goes_away_is_reconnected_when_it_is_back() {
    let Some(servers) = servers_dir() else {
        return;
    };
    let scratch = Scratch::new("http-reconnect");
    let mut everything = HttpServer::everything(servers, &scratch.0, 0);
    let port = everything.port;
    let config = write_config(
        &scratch.0,
        &json!({"everything": {"url": everything.url()}}),
    );
    let mut client = proxy(&config, &[]);
    client.initialize("2025-11-25");
    let r = call(&mut client, 100, "echo", json!({"message": "one"}));
    assert_eq!(text(&r["result"]), "Echo: one", "{r}");

    // Killed while a call is in flight: the call fails at once saying why, the loss is
    // noticed (its GET stream drops, it cannot be reached) and the client told.
    client.notifications.clear();
    client.send(&json!({"jsonrpc": "2.0", "id": 99, "method": "tools/call",
        "params": {"name": "trigger-long-running-operation", "arguments": {"duration": 60, "steps": 2}}}));
    std::thread::sleep(Duration::from_millis(300));
    let killed = Instant::now();
    everything.kill();
    let r = client.next_response(WAIT);
    assert_eq!(r["id"], 99, "{r}");
    assert!(
        failure(&r).contains("cannot reach the server"),
        "{r}\n{}",
        client.stderr()
    );
    assert!(
        killed.elapsed() < Duration::from_secs(15),
        "{:?}",
        killed.elapsed()
    );
    wait_for_notification(&mut client, |n| {
        n["method"] == "notifications/tools/list_changed"
    });
    let r = call(&mut client, 101, "echo", json!({"message": "two"}));
    let error = failure(&r);
    assert!(
        error.contains("server \"everything\" is unavailable") && error.contains("reconnecting"),
        "{r}"
    );

    // Back on the same port: reconnected, listed again, the client told, calls work.
    let _back = HttpServer::everything(servers, &scratch.0, port);
    let deadline = Instant::now() + WAIT;
    let mut id = 200;
    loop {
        let r = call(&mut client, id, "echo", json!({"message": "three"}));
        if r["result"].is_object() && r["result"]["isError"] != true {
            assert_eq!(text(&r["result"]), "Echo: three", "{r}");
            break;
        }
        assert!(Instant::now() < deadline, "{r}\n{}", client.stderr());
        std::thread::sleep(Duration::from_millis(200));
        id += 1;
    }
    let stderr = client.stderr_with(&["[everything] reconnected"]);
    assert!(stderr.contains("[everything] reconnected"), "{stderr}");
    client.close();
}

#[test]
fn headers_expand_the_environment_and_an_expired_session_is_renewed() {
    if servers_dir().is_none() {
        return;
    }
    let scratch = Scratch::new("http-fixture");
    let server = HttpServer::fixture(&scratch.0);

    // A variable that is not set is a configuration error naming it.
    let config = write_config(
        &scratch.0,
        &json!({"web": {"url": server.url(), "headers": {"Authorization": "Bearer ${TOON_E2E_UNSET_TOKEN}"}}}),
    );
    let stderr = serve_refused(&config, &[]);
    assert!(
        stderr.contains("mcpServers.web.headers.Authorization: the environment variable TOON_E2E_UNSET_TOKEN is not set"),
        "{stderr}"
    );

    let config = write_config(
        &scratch.0,
        &json!({"web": {"type": "http", "url": server.url(),
                        "headers": {"Authorization": "Bearer ${TOON_E2E_TOKEN}", "X-Team": "${TOON_E2E_TEAM:-core}"}}}),
    );
    let mut client = proxy_with(
        &config,
        &[("TOON_E2E_TOKEN", "s3cret")],
        &["--request-timeout", "2"],
    );
    client.initialize("2025-06-18");
    let r = call(&mut client, 10, "headers", json!({}));
    let seen: Json = serde_json::from_str(&text(&r["result"]))
        .unwrap_or_else(|_| toon::decode::<Json>(&text(&r["result"])).unwrap());
    assert_eq!(seen["authorization"], "Bearer s3cret", "{seen}");
    assert_eq!(seen["x-team"], "core", "{seen}");
    assert_eq!(seen["mcp-protocol-version"], "2025-11-25", "{seen}");
    assert_eq!(
        seen["accept"], "application/json, text/event-stream",
        "{seen}"
    );
    let session = seen["mcp-session-id"].as_str().unwrap().to_owned();

    // Plain JSON answers, pretty-printed, reach the client as one line each, and results are
    // converted as a stdio server's are.
    let rows: Vec<Json> = (0..6)
        .map(|i| json!({"id": i, "name": format!("row {i}")}))
        .collect();
    let r = call(&mut client, 11, "echo", json!({"rows": rows}));
    let converted = &r["result"]["content"][0];
    assert_eq!(
        converted["_meta"]["rs.toon-codec/conversion"]["format"], "toon",
        "{r}"
    );
    let back: Json = toon::decode(converted["text"].as_str().unwrap()).unwrap();
    assert_eq!(back, json!({"rows": rows}));

    // An answer over the size limit fails its call at once, saying so.
    let r = call(&mut client, 12, "huge", json!({}));
    let error = failure(&r);
    assert!(error.contains("over the proxy's limit"), "{error}");

    // A call the client cancels, and one that times out: the server is told, and the
    // stream's wait ends (the proxy answers the next call at once).
    let cancelled = |log: &str| log.matches("POST notifications/cancelled").count();
    client.send(&json!({"jsonrpc": "2.0", "id": 30, "method": "tools/call",
                        "params": {"name": "slow", "arguments": {"seconds": 30}}}));
    std::thread::sleep(Duration::from_millis(300));
    client.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 30, "reason": "changed my mind"}}),
    );
    let deadline = Instant::now() + WAIT;
    while cancelled(&server.log()) < 1 {
        assert!(Instant::now() < deadline, "{}", server.log());
        std::thread::sleep(Duration::from_millis(50));
    }
    let started = Instant::now();
    let r = call(&mut client, 31, "slow", json!({"seconds": 30}));
    assert!(
        failure(&r).contains("did not answer tools/call within 2.0 s"),
        "{r}"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    while cancelled(&server.log()) < 2 {
        assert!(Instant::now() < deadline, "{}", server.log());
        std::thread::sleep(Duration::from_millis(50));
    }

    // The server ends the session: the next request gets 404, the session is renewed.
    let r = call(&mut client, 13, "expire", json!({}));
    assert_eq!(text(&r["result"]), "expired", "{r}");
    let r = call(&mut client, 14, "echo", json!({}));
    assert!(
        failure(&r).contains("the server ended the session (HTTP 404)"),
        "{r}"
    );
    let deadline = Instant::now() + WAIT;
    let mut id = 20;
    let renewed = loop {
        let r = call(&mut client, id, "headers", json!({}));
        if r["result"].is_object() && r["result"]["isError"] != true {
            break text(&r["result"]);
        }
        assert!(Instant::now() < deadline, "{r}\n{}", client.stderr());
        std::thread::sleep(Duration::from_millis(100));
        id += 1;
    };
    assert!(!renewed.contains(&session), "{renewed}");
    client.close();
    let log = server.log();
    assert!(log.contains("DELETE - "), "{log}");
}

#[test]
fn https_servers_are_verified_against_the_mozilla_roots_and_ssl_cert_file() {
    if servers_dir().is_none() {
        return;
    }
    let scratch = Scratch::new("http-tls");
    let server = HttpServer::fixture_tls(&scratch.0);
    let url = format!("https://127.0.0.1:{}/mcp", server.port);
    let config = write_config(&scratch.0, &json!({"tls": {"url": url}}));
    // Signed by a CA nobody trusts: unavailable, saying why.
    let mut client = proxy(&config, &[]);
    client.initialize("2025-11-25");
    let unavailable =
        "[tls] unavailable: cannot reach the server: invalid peer certificate: UnknownIssuer";
    let stderr = client.stderr_with(&[unavailable]);
    assert!(stderr.contains(unavailable), "{stderr}");
    client.close();
    // Trusted through SSL_CERT_FILE.
    let ca = root().join("tests/fixtures/mcp/tls/ca.pem");
    let mut client = proxy(&config, &[("SSL_CERT_FILE", ca.to_str().unwrap())]);
    client.initialize("2025-11-25");
    let r = call(&mut client, 2, "echo", json!({"over": "tls"}));
    assert!(text(&r["result"]).contains("tls"), "{r}");
    client.close();
}

/// A keep-alive HTTP/1.1 client of the fixture, on std's `TcpStream`: the direct path the
/// proxy is measured against.
struct Direct {
    stream: std::io::BufReader<TcpStream>,
    port: u16,
    session: Option<String>,
}

impl Direct {
    fn new(port: u16) -> Direct {
        let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream.set_nodelay(true).unwrap();
        Direct {
            stream: std::io::BufReader::new(stream),
            port,
            session: None,
        }
    }

    /// POSTs `body`; the response's body (empty for 202).
    fn post(&mut self, body: &Json) -> String {
        use std::io::{BufRead, Read, Write};
        let body = body.to_string();
        let session = self
            .session
            .as_ref()
            .map(|s| format!("Mcp-Session-Id: {s}\r\nMCP-Protocol-Version: 2025-11-25\r\n"))
            .unwrap_or_default();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n{session}Content-Length: {}\r\n\r\n{body}",
            self.port,
            body.len()
        );
        self.stream.get_mut().write_all(request.as_bytes()).unwrap();
        let mut length = 0;
        loop {
            let mut line = String::new();
            self.stream.read_line(&mut line).unwrap();
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':').unwrap_or((line, ""));
            match name.to_ascii_lowercase().as_str() {
                "content-length" => length = value.trim().parse().unwrap(),
                "mcp-session-id" => self.session = Some(value.trim().to_owned()),
                _ => {}
            }
        }
        let mut out = vec![0; length];
        self.stream.read_exact(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// The proxy calls an HTTP server over one kept-alive connection, and adds no delay of
/// another order to a call (median, interleaved with direct calls to the same server): what
/// this catches is a connection per call, or Nagle's algorithm meeting delayed ACKs (40 ms).
/// The overhead itself is a benchmark's figure (`examples/http_front_report`, release build:
/// about 0.2 ms), not a timed test's: an unoptimised build on a busy 2-core machine measured
/// 0.5 to 1.5 ms.
#[test]
fn a_call_through_the_proxy_reuses_its_connection_and_adds_no_delay_of_another_order() {
    if servers_dir().is_none() {
        return;
    }
    let scratch = Scratch::new("http-overhead");
    let server = HttpServer::fixture(&scratch.0);
    let mut direct = Direct::new(server.port);
    direct.post(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "direct", "version": "1"}}}));
    direct.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let config = write_config(&scratch.0, &json!({"fixture": {"url": server.url()}}));
    let mut proxied = proxy(&config, &[]);
    proxied.initialize("2025-11-25");
    let arguments = json!({"message": "hello"});
    let (mut d, mut p) = (Vec::new(), Vec::new());
    for i in 0..300 {
        let started = Instant::now();
        let r = direct.post(
            &json!({"jsonrpc": "2.0", "id": 100 + i, "method": "tools/call",
                                    "params": {"name": "echo", "arguments": arguments}}),
        );
        d.push(started.elapsed());
        assert!(r.contains("hello"), "{r}");
        let started = Instant::now();
        let r = proxied.call("echo", arguments.clone());
        p.push(started.elapsed());
        assert!(text(&r).contains("hello"), "{r}");
    }
    let (dm, pm) = (median(&mut d), median(&mut p));
    let overhead = pm.saturating_sub(dm);
    eprintln!("median per call: direct {dm:?}, through the proxy {pm:?}, overhead {overhead:?}");
    assert!(
        overhead <= Duration::from_millis(20),
        "direct {dm:?}, proxied {pm:?}"
    );
    // 300 calls and the listing: the start-up probe's, the direct client's and the proxy's
    // pooled connections, not one per call.
    let connections = server.log().matches("CONNECTION").count();
    eprintln!("{connections} connections accepted by the server");
    assert!(connections <= 8, "{connections} connections for 300 calls");
    proxied.close();
}

/// A URL's credentials (`http://user:secret@…`) go as the `Authorization: Basic` header they
/// mean, and reach no log line at any level: hyper-util's trace lines printed its connection
/// pool's key, the URL's authority with the password in it.
#[test]
fn a_url_s_password_is_sent_as_basic_auth_and_never_logged() {
    if servers_dir().is_none() {
        return;
    }
    let scratch = Scratch::new("http-userinfo");
    let server = HttpServer::fixture(&scratch.0);
    let url = format!("http://user:secret@127.0.0.1:{}/mcp", server.port);
    let config = write_config(&scratch.0, &json!({"web": {"url": url}}));
    let mut client = proxy(&config, &[("TOON_LOG", "trace")]);
    client.initialize("2025-11-25");
    let r = call(&mut client, 10, "headers", json!({}));
    let stderr = client.close_then_stderr_with(&["toon::mcp::proxy"]);
    // Logging was on at every level, and said neither the password nor the header.
    assert!(stderr.contains(" INFO toon::mcp::proxy: "), "{stderr}");
    assert!(!stderr.contains("secret"), "{stderr}");
    assert!(!stderr.contains("dXNlcjpzZWNyZXQ"), "{stderr}");
    let seen: Json = serde_json::from_str(&text(&r["result"]))
        .unwrap_or_else(|_| toon::decode::<Json>(&text(&r["result"])).unwrap());
    // base64 of `user:secret`.
    assert_eq!(seen["authorization"], "Basic dXNlcjpzZWNyZXQ=", "{seen}");
}

/// A Streamable HTTP server of both revisions that answers `server/discover` only once the
/// `initialize` sent beside it after the probe has come, and that `initialize` just after,
/// with a session id (`opening_http_server.py`): the connection is a 2026-07-28 one, and the
/// losing `initialize`'s session is none of its: no later request carries it, and none is
/// `DELETE`d at shutdown.
#[test]
fn the_session_of_an_initialize_outrun_by_server_discover_is_not_the_connection_s() {
    let scratch = Scratch::new("http-opening");
    let mut command = Command::new("python3");
    command.arg(root().join("tests/fixtures/mcp/servers/opening_http_server.py"));
    let server = HttpServer::start(command, &scratch.0, "opening", 0, &[]);
    let config = write_config(&scratch.0, &json!({"web": {"url": server.url()}}));
    let mut client = proxy(&config, &[]);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "e2e", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let seen = json!({"name": "seen", "arguments": {}, "_meta": meta});
    for _ in 0..3 {
        let r = client.request("tools/call", seen.clone());
        assert!(r["result"]["content"][0]["text"].is_string(), "{r}");
    }
    client.close();
    let log = server.log();
    let posts: Vec<&str> = log.lines().filter(|l| l.starts_with("POST ")).collect();
    assert!(
        posts.iter().any(|l| l.starts_with("POST initialize ")),
        "{log}"
    );
    let theirs = posts.iter().filter(|l| !l.starts_with("POST initialize "));
    for line in theirs {
        assert!(line.contains("session=None"), "{line}\n{log}");
        assert!(!line.contains("version=2025-11-25"), "{line}\n{log}");
    }
    assert!(
        !log.contains("DELETE session=session-of-initialize"),
        "{log}"
    );
}

/// Two cookie-less 2026-07-28 clients (each its own client, sharing the gateway's connection
/// to the server) call `ask` of `asking_http_server.py MODES` at once; the server waits until
/// both calls are in flight, then puts each call's `roots/list` question on that call's own
/// answer stream. The first answer each client gets (its round, or its result), by name.
fn two_clients_ask_at_once(modes: &[&str]) -> Vec<(&'static str, Json)> {
    use crate::http_front::{Proxy, http, modern_headers};
    let scratch = Scratch::new(&format!("http-asking{}", modes.join("-")));
    let mut command = Command::new("python3");
    command.arg(root().join("tests/fixtures/mcp/servers/asking_http_server.py"));
    let server = HttpServer::start(command, &scratch.0, "asking", 0, modes);
    let config = write_config(&scratch.0, &json!({"web": {"url": server.url()}}));
    let proxy = Proxy::start(&config, &[]);
    let calls: Vec<_> = [("A", 11), ("B", 12)]
        .into_iter()
        .map(|(who, id)| {
            let addr = proxy.addr.clone();
            let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "ask", "arguments": {"who": who, "together": 2},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": who, "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {"roots": {}},
            }}});
            std::thread::spawn(move || {
                let headers = modern_headers("tools/call", Some("ask"));
                let r = http(&addr, "POST", "/mcp", &headers, &body.to_string());
                assert_eq!(r.status, 200, "{r:?}");
                let m = r.message();
                assert_eq!(m["id"], id, "{who}: {m}");
                (who, m)
            })
        })
        .collect();
    calls.into_iter().map(|c| c.join().unwrap()).collect()
}

/// Each call's question, on its own answer stream, is put to that call's client alone,
/// though the other client's call is in flight to the same server.
#[test]
fn questions_on_two_clients_answer_streams_reach_each_its_own() {
    for (who, m) in two_clients_ask_at_once(&[]) {
        let asked = &m["result"]["inputRequests"];
        let asked: Vec<&Json> = asked
            .as_object()
            .into_iter()
            .flat_map(|o| o.values())
            .collect();
        assert_eq!(asked.len(), 1, "{who}: {m}");
        assert_eq!(asked[0]["params"]["who"], who, "{who}: {m}");
    }
}

/// A server that asks both calls' questions under one id (`same-id`: as one whose ids count
/// per request does) never has one client asked the other's question: what cannot be told
/// apart is refused, not guessed.
#[test]
fn two_questions_under_one_id_never_reach_the_other_client() {
    for (who, m) in two_clients_ask_at_once(&["same-id"]) {
        let other = if who == "A" { "B" } else { "A" };
        let asked = &m["result"]["inputRequests"];
        for question in asked.as_object().into_iter().flat_map(|o| o.values()) {
            assert_ne!(question["params"]["who"], other, "{who}: {m}");
        }
    }
}
