//! End-to-end tests of `toon mcp serve` with clients of protocol revision 2026-07-28 (no
//! `initialize`; each request's `_meta` says its revision) in front of servers that speak
//! 2025-11-25: the official Python SDK 2.3 pinned to the revision and in its default `auto`
//! mode (`tests/fixtures/mcp/clients/py_modern_agent.py`) against server-everything and the
//! repo's documents server, and raw JSON-RPC for what the SDK does not show (version errors,
//! removed methods, `requestState` checks, rounds, abandoned rounds, listens).
//!
//! The servers come from `scripts/install-mcp-servers.sh`, as for `tests/proxy/stdio.rs`
//! (`TOON_MCP_SERVERS` names an installed set; `TOON_MCP_SKIP_REAL_SERVERS=1` skips).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::mcp_servers::{self, Scratch, WAIT, entry, servers_dir};
use serde_json::{Value as Json, json};

const VERSION: &str = "2026-07-28";

fn proxy(config: &Path, args: &[&str]) -> mcp_servers::Client {
    mcp_servers::Client::proxy(Path::new(env!("CARGO_BIN_EXE_toon")), config, args)
}

fn fixture(name: &str) -> PathBuf {
    mcp_servers::root().join("tests/fixtures/mcp").join(name)
}

/// A config of server-everything and the documents server `docs`, in that order; `None` when
/// the real servers are skipped.
fn everything_and_docs(scratch: &Path) -> Option<PathBuf> {
    let servers = servers_dir()?;
    let docs = json!({"command": "python3",
                      "args": [fixture("servers/documents_server.py"), "docs"]});
    let text = format!(
        r#"{{"mcpServers":{{"everything":{},"docs":{docs}}}}}"#,
        entry(servers, scratch, "everything")
    );
    let path = scratch.join("mcp.json");
    std::fs::write(&path, text).unwrap();
    Some(path)
}

/// A config of one fixture server (Python, standard library only).
fn one(scratch: &Path, name: &str, script: &str, args: &[&str]) -> PathBuf {
    let mut argv = vec![fixture(script).to_str().unwrap().to_owned()];
    argv.extend(args.iter().map(|a| (*a).to_owned()));
    let path = scratch.join("mcp.json");
    let servers = json!({ name: {"command": "python3", "args": argv} });
    std::fs::write(&path, json!({ "mcpServers": servers }).to_string()).unwrap();
    path
}

/// `params` with the 2026-07-28 envelope in `_meta` declaring `capabilities`.
fn enveloped(mut params: Json, capabilities: Json) -> Json {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientInfo": {"name": "e2e", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    });
    params
}

/// A 2026-07-28 request declaring `capabilities`; its response.
fn request_2026(
    client: &mut mcp_servers::Client,
    method: &str,
    params: Json,
    capabilities: Json,
) -> Json {
    client.request(method, enveloped(params, capabilities))
}

fn run_agent(config: &Path, mode: &str, sdk_mode: &str) {
    let python = servers_dir().unwrap().join("venv/bin/python");
    let out = Command::new(&python)
        .args(["-W", "ignore::DeprecationWarning"])
        .arg(fixture("clients/py_modern_agent.py"))
        .arg(env!("CARGO_BIN_EXE_toon"))
        .arg(config)
        .arg(mode)
        .arg(sdk_mode)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{mode} {sdk_mode}:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn an_agent_on_the_python_sdk_pinned_to_2026_07_28_uses_every_feature_in_both_modes() {
    let scratch = Scratch::new("py-2026");
    let Some(config) = everything_and_docs(&scratch.0) else {
        return;
    };
    for mode in ["passthrough", "lean"] {
        run_agent(&config, mode, VERSION);
    }
}

#[test]
fn the_python_sdk_in_auto_mode_ends_up_on_2026_07_28() {
    let scratch = Scratch::new("py-auto");
    let Some(config) = everything_and_docs(&scratch.0) else {
        return;
    };
    run_agent(&config, "passthrough", "auto");
}

#[test]
fn versions_removed_methods_and_result_fields() {
    let scratch = Scratch::new("era-wire");
    let config = one(&scratch.0, "docs", "servers/documents_server.py", &["docs"]);
    let mut client = proxy(&config, &[]);

    // A revision the proxy does not serve: -32022 naming those it does, never a success.
    let mut params = enveloped(json!({}), json!({}));
    params["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("1900-01-01");
    let r = client.request("tools/list", params);
    assert_eq!(r["error"]["code"], -32022, "{r}");
    assert_eq!(r["error"]["data"]["requested"], "1900-01-01", "{r}");
    let supported = r["error"]["data"]["supported"].clone();
    let served = supported.as_array().unwrap();
    assert!(served.contains(&json!(VERSION)) && served.contains(&json!("2025-11-25")));
    // The envelope's required capabilities missing: -32602.
    let mut params = enveloped(json!({}), json!({}));
    params["_meta"]
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientCapabilities");
    let r = client.request("tools/list", params);
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(r.get("result").is_none());

    let r = request_2026(&mut client, "server/discover", json!({}), json!({}));
    let discover = &r["result"];
    assert_eq!(discover["resultType"], "complete", "{r}");
    // One list of revisions for server/discover and -32022.
    assert_eq!(discover["supportedVersions"], supported, "{r}");
    // An `initialize` with the modern envelope is a removed method, not a handshake.
    let r = request_2026(
        &mut client,
        "initialize",
        json!({"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
        json!({}),
    );
    assert_eq!(r["error"]["code"], -32601, "{r}");
    assert_eq!(discover["ttlMs"], 0, "{r}");
    assert_eq!(discover["cacheScope"], "private", "{r}");
    assert_eq!(
        discover["capabilities"]["resources"]["subscribe"], true,
        "{r}"
    );
    assert!(
        discover["instructions"]
            .as_str()
            .unwrap()
            .contains("Documents of docs."),
        "{r}"
    );
    assert_eq!(
        discover["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "toon-mcp-proxy"
    );

    // Removed in 2026-07-28: unknown methods.
    for method in [
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
    ] {
        let r = request_2026(
            &mut client,
            method,
            json!({"uri": "doc://shared"}),
            json!({}),
        );
        assert_eq!(r["error"]["code"], -32601, "{method}: {r}");
    }
    // Cacheable results carry the cache fields; others only resultType.
    for method in ["tools/list", "resources/list", "prompts/list"] {
        let r = request_2026(&mut client, method, json!({}), json!({}));
        assert_eq!(r["result"]["resultType"], "complete", "{method}: {r}");
        assert_eq!(r["result"]["ttlMs"], 0, "{method}: {r}");
        assert_eq!(r["result"]["cacheScope"], "private", "{method}: {r}");
    }
    let r = request_2026(
        &mut client,
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "greet"},
               "argument": {"name": "who", "value": ""}}),
        json!({}),
    );
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    assert!(r["result"].get("ttlMs").is_none(), "{r}");
    // A legacy server's -32002 (resource not found) is -32602 now, with the URI in
    // `data.uri` (SEP-2164); the rest as sent.
    let r = request_2026(
        &mut client,
        "resources/read",
        json!({"uri": "doc://nowhere"}),
        json!({}),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert_eq!(
        r["error"]["data"],
        json!({"server": "docs", "uri": "doc://nowhere"}),
        "{r}"
    );
    // What reached the server: no modern `_meta` key.
    let r = request_2026(
        &mut client,
        "prompts/get",
        json!({"name": "greet", "arguments": {"who": "Ada"}}),
        json!({}),
    );
    assert_eq!(
        r["result"]["messages"][0]["content"]["text"], "docs greets Ada",
        "{r}"
    );
    // A 2025 client's probe is refused as before (no envelope: legacy).
    let r = client.request("server/discover", json!({}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    client.close();
}

/// The single key of an `input_required` result's `inputRequests`, and its request.
fn question(r: &Json) -> (String, Json) {
    assert_eq!(r["result"]["resultType"], "input_required", "{r}");
    let requests = r["result"]["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{r}");
    let (key, request) = requests.iter().next().unwrap();
    (key.clone(), request.clone())
}

fn state(r: &Json) -> String {
    let state = r["result"]["requestState"].as_str().unwrap().to_owned();
    assert!(state.starts_with("toon1.") && state.len() == 38, "{state}");
    state
}

/// A retry of `params` with `responses` and `state`.
fn retry(params: &Json, responses: Json, state: &str) -> Json {
    let mut params = params.clone();
    params["inputResponses"] = responses;
    params["requestState"] = json!(state);
    params
}

#[test]
fn a_server_s_questions_become_rounds_of_the_client_s_request() {
    let scratch = Scratch::new("era-rounds");
    let config = one(&scratch.0, "asker", "servers/asking_server.py", &[]);
    let mut client = proxy(&config, &[]);
    let caps = json!({"elicitation": {}, "sampling": {}, "roots": {}});
    let call = |name: &str| json!({"name": name, "arguments": {}});

    // One question: input_required, then the retry's answer reaches the server.
    let r = request_2026(&mut client, "tools/call", call("ask"), caps.clone());
    let (key, request) = question(&r);
    assert_eq!(request["method"], "elicitation/create", "{r}");
    assert_eq!(request["params"]["message"], "Name?", "{r}");
    assert!(request.get("id").is_none() && request.get("jsonrpc").is_none());
    let s = state(&r);
    // A forged state names nothing; a state with other params is refused; neither uses it.
    let forged = retry(
        &call("ask"),
        json!({}),
        "toon1.00000000000000000000000000000000",
    );
    let r = request_2026(&mut client, "tools/call", forged, caps.clone());
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let other = retry(&call("ask_twice"), json!({}), &s);
    let r = request_2026(&mut client, "tools/call", other, caps.clone());
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let answer = json!({ key: {"action": "accept", "content": {"name": "Ada"}} });
    let params = retry(&call("ask"), answer.clone(), &s);
    let r = request_2026(&mut client, "tools/call", params.clone(), caps.clone());
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("Ada"), "{r}");
    // Good for one retry only.
    let r = request_2026(&mut client, "tools/call", params, caps.clone());
    assert_eq!(r["error"]["code"], -32602, "{r}");

    // Two questions one after the other: two rounds, a new state each.
    let r = request_2026(&mut client, "tools/call", call("ask_twice"), caps.clone());
    let (key, _) = question(&r);
    let first = state(&r);
    let answer = json!({ key: {"action": "accept", "content": {"name": "Ada"}} });
    let r = request_2026(
        &mut client,
        "tools/call",
        retry(&call("ask_twice"), answer, &first),
        caps.clone(),
    );
    let (key, request) = question(&r);
    assert_eq!(request["method"], "sampling/createMessage", "{r}");
    let second = state(&r);
    assert_ne!(first, second);
    let answer = json!({ key: {"role": "assistant", "model": "m",
                               "content": {"type": "text", "text": "sampled"}} });
    let r = request_2026(
        &mut client,
        "tools/call",
        retry(&call("ask_twice"), answer, &second),
        caps.clone(),
    );
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("Ada") && text.contains("sampled"), "{r}");

    // Two questions at once; a retry that answers one is asked the other again.
    let r = request_2026(&mut client, "tools/call", call("ask_both"), caps.clone());
    assert_eq!(r["result"]["resultType"], "input_required", "{r}");
    let requests = r["result"]["inputRequests"].as_object().unwrap().clone();
    assert_eq!(requests.len(), 2, "{r}");
    let roots = requests
        .iter()
        .find(|(_, q)| q["method"] == "roots/list")
        .map(|(k, _)| k.clone())
        .unwrap();
    let elicit = requests
        .iter()
        .find(|(_, q)| q["method"] == "elicitation/create")
        .map(|(k, _)| k.clone())
        .unwrap();
    let answer = json!({ roots.clone(): {"roots": [{"uri": "file:///w"}]} });
    let r = request_2026(
        &mut client,
        "tools/call",
        retry(&call("ask_both"), answer, &state(&r)),
        caps.clone(),
    );
    let (key, _) = question(&r);
    assert_eq!(key, elicit);
    let answer = json!({ key: {"action": "decline"} });
    let r = request_2026(
        &mut client,
        "tools/call",
        retry(&call("ask_both"), answer, &state(&r)),
        caps.clone(),
    );
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("file:///w") && text.contains("decline"),
        "{r}"
    );

    // A capability the request did not declare: the client is not asked, and the server's
    // question is refused (stdio does not say which request it belongs to, so no request is
    // failed for it); the server decides what its call does then.
    let r = request_2026(
        &mut client,
        "tools/call",
        call("ask"),
        json!({"sampling": {}}),
    );
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(text, r#"[{"error": -32601}]"#, "{r}");
    let r = request_2026(&mut client, "tools/call", call("cancelled"), json!({}));
    let seen: Json =
        serde_json::from_str(r["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(seen["cancelled"].as_array().unwrap().len(), 0, "{seen}");
    assert_eq!(seen["refused"].as_array().unwrap().len(), 1, "{seen}");
    client.close();
}

#[test]
fn a_round_nobody_continues_ends_and_the_server_s_call_is_cancelled() {
    let scratch = Scratch::new("era-abandoned");
    let config = one(&scratch.0, "asker", "servers/asking_server.py", &[]);
    // A person has ten times the request timeout to answer.
    let mut client = proxy(&config, &["--request-timeout", "1"]);
    let caps = json!({"elicitation": {}});
    let r = request_2026(
        &mut client,
        "tools/call",
        json!({"name": "ask", "arguments": {}}),
        caps.clone(),
    );
    let (key, _) = question(&r);
    let s = state(&r);
    let seen = |client: &mut mcp_servers::Client| -> Json {
        let r = request_2026(
            client,
            "tools/call",
            json!({"name": "cancelled", "arguments": {}}),
            json!({}),
        );
        serde_json::from_str(r["result"]["content"][0]["text"].as_str().unwrap()).unwrap()
    };
    // Well past the request timeout, within the patience: the round still waits, and so does
    // the server's call.
    std::thread::sleep(Duration::from_secs(5));
    let waiting = seen(&mut client);
    assert_eq!(
        waiting,
        json!({"cancelled": [], "refused": []}),
        "{waiting}"
    );
    std::thread::sleep(Duration::from_secs(6));
    let seen = seen(&mut client);
    // The round ended: the call was cancelled, and its question answered with an error, not
    // left open.
    assert_eq!(seen["cancelled"].as_array().unwrap().len(), 1, "{seen}");
    assert_eq!(seen["refused"], json!(["q1"]), "{seen}");
    // The state is gone with it.
    let params = retry(
        &json!({"name": "ask", "arguments": {}}),
        json!({ key: {"action": "cancel"} }),
        &s,
    );
    let r = request_2026(&mut client, "tools/call", params, caps);
    assert_eq!(r["error"]["code"], -32602, "{r}");
    client.close();
}

#[test]
fn cancelling_a_retry_cancels_the_server_s_call() {
    let scratch = Scratch::new("era-cancel");
    let config = one(&scratch.0, "asker", "servers/asking_server.py", &[]);
    let mut client = proxy(&config, &[]);
    let caps = json!({"elicitation": {}});
    let call = json!({"name": "ask_then_hang", "arguments": {}});
    let r = request_2026(&mut client, "tools/call", call.clone(), caps.clone());
    let (key, _) = question(&r);
    let answer = json!({ key: {"action": "accept", "content": {"name": "Ada"}} });
    // The retry waits for a result that does not come; the client gives up on it.
    client.send(
        &json!({"jsonrpc": "2.0", "id": "retry", "method": "tools/call",
                        "params": enveloped(retry(&call, answer, &state(&r)), caps.clone())}),
    );
    std::thread::sleep(Duration::from_millis(300));
    client.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": "retry"}}),
    );
    std::thread::sleep(Duration::from_millis(300));
    let r = request_2026(
        &mut client,
        "tools/call",
        json!({"name": "cancelled", "arguments": {}}),
        caps,
    );
    let seen: Json =
        serde_json::from_str(r["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(seen["cancelled"].as_array().unwrap().len(), 1, "{seen}");
    client.close();
}

/// The next notification, reading responses to requests meanwhile.
fn next_notification(client: &mut mcp_servers::Client) -> Json {
    let deadline = std::time::Instant::now() + WAIT;
    while client.notifications.is_empty() && std::time::Instant::now() < deadline {
        let r = request_2026(client, "tools/list", json!({}), json!({}));
        assert_eq!(r["result"]["resultType"], "complete", "{r}");
        std::thread::sleep(Duration::from_millis(20));
    }
    client.notifications.remove(0)
}

#[test]
fn a_listen_gets_what_it_asked_for_and_nothing_else_comes_unasked() {
    let scratch = Scratch::new("era-listen");
    let config = one(&scratch.0, "docs", "servers/documents_server.py", &["docs"]);
    let mut client = proxy(&config, &[]);
    client.send(
        &json!({"jsonrpc": "2.0", "id": "l1", "method": "subscriptions/listen",
        "params": enveloped(json!({"notifications": {
            "promptsListChanged": true,
            "resourceSubscriptions": ["doc://docs/own", "nowhere://x"]}}), json!({}))}),
    );
    // Nothing answers a listen: requests after it show what came.
    let first = next_notification(&mut client);
    assert_eq!(
        first["method"], "notifications/subscriptions/acknowledged",
        "{first}"
    );
    assert_eq!(
        first["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "l1"
    );
    // Only what the proxy honours: the documents server does not know `nowhere://x`, and
    // does not say it sends prompt list changes.
    assert_eq!(
        first["params"]["notifications"],
        json!({"resourceSubscriptions": ["doc://docs/own"]})
    );
    // The server was subscribed (it says so with an update at once), tagged with the listen.
    let update = next_notification(&mut client);
    assert_eq!(
        update["method"], "notifications/resources/updated",
        "{update}"
    );
    assert_eq!(update["params"]["uri"], "doc://docs/own");
    assert_eq!(
        update["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "l1"
    );
    // Cancelled: the server is unsubscribed (it answers with one more update), which no
    // listen wants and so never reaches the client.
    client.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": "l1"}}),
    );
    std::thread::sleep(Duration::from_millis(500));
    request_2026(&mut client, "tools/list", json!({}), json!({}));
    assert!(
        client.notifications.is_empty(),
        "{:?}",
        client.notifications
    );
    client.close();
}

/// A config of the questioning server (`servers/questioning_server.py`) under each of `names`
/// (its tools then named `NAME__TOOL` when there are several).
fn questioners(scratch: &Path, names: &[&str]) -> PathBuf {
    let script = fixture("servers/questioning_server.py");
    let servers: serde_json::Map<String, Json> = names
        .iter()
        .map(|n| {
            (
                (*n).to_owned(),
                json!({"command": "python3", "args": [script]}),
            )
        })
        .collect();
    let path = scratch.join("mcp.json");
    std::fs::write(&path, json!({ "mcpServers": servers }).to_string()).unwrap();
    path
}

/// Sends a 2026-07-28 request under `id`, not waiting for its response.
fn send_modern(
    client: &mut mcp_servers::Client,
    id: &str,
    method: &str,
    params: Json,
    caps: &Json,
) {
    client.send(&json!({"jsonrpc": "2.0", "id": id, "method": method,
                        "params": enveloped(params, caps.clone())}));
}

/// The responses to requests `ids` (in any order), by id.
fn responses(
    client: &mut mcp_servers::Client,
    ids: &[&str],
    within: Duration,
) -> std::collections::HashMap<String, Json> {
    let mut got = std::collections::HashMap::new();
    while got.len() < ids.len() {
        let r = client.next_response(within);
        let id = r["id"].as_str().unwrap_or_default().to_owned();
        assert!(ids.contains(&id.as_str()), "{r}");
        got.insert(id, r);
    }
    got
}

/// What the questioning server `tool` (`seen`, or `NAME__seen`) says it saw.
fn seen(client: &mut mcp_servers::Client, tool: &str) -> Json {
    let r = request_2026(
        client,
        "tools/call",
        json!({"name": tool, "arguments": {}}),
        json!({}),
    );
    let text = result_text(&r);
    serde_json::from_str(text.strip_prefix("seen ").unwrap()).unwrap_or_else(|e| panic!("{e}: {r}"))
}

/// The text of a tool result.
fn result_text(r: &Json) -> String {
    r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{r}"))
        .to_owned()
}

#[test]
fn a_server_asking_more_than_a_round_holds_blocks_no_other_server() {
    let scratch = Scratch::new("era-flood");
    let config = questioners(&scratch.0, &["x", "y"]);
    let mut client = proxy(&config, &["--request-timeout", "1"]);
    client.wait = Duration::from_secs(8);
    let caps = json!({"elicitation": {}});
    let r = request_2026(&mut client, "tools/list", json!({}), json!({}));
    assert_eq!(r["result"]["tools"].as_array().unwrap().len(), 14, "{r}");
    // One question, then forty more the round cannot take at once.
    let r = request_2026(
        &mut client,
        "tools/call",
        json!({"name": "x__flood", "arguments": {}}),
        caps.clone(),
    );
    question(&r);
    std::thread::sleep(Duration::from_secs(1));
    // Another server's question still reaches its request.
    let call = json!({"name": "y__ask", "arguments": {}});
    let r = request_2026(&mut client, "tools/call", call.clone(), caps.clone());
    let (key, _) = question(&r);
    let answer = json!({ key: {"action": "accept", "content": {}} });
    let r = request_2026(
        &mut client,
        "tools/call",
        retry(&call, answer, &state(&r)),
        caps.clone(),
    );
    assert!(result_text(&r).contains("accept"), "{r}");
    // What the round could not queue was refused at once.
    let refused = seen(&mut client, "x__seen")["refused"]
        .as_array()
        .unwrap()
        .len();
    assert!(refused >= 8, "{refused}");
    // When the round ends (nobody came back within ten timeouts), so does every question it
    // held or queued: none is left open on the server.
    std::thread::sleep(Duration::from_secs(11));
    let x = seen(&mut client, "x__seen");
    assert_eq!(x["refused"].as_array().unwrap().len(), 41, "{x}");
    assert_eq!(x["cancelled"].as_array().unwrap().len(), 1, "{x}");
    client.close();
}

#[test]
fn a_question_goes_to_a_request_that_declared_what_it_needs() {
    let scratch = Scratch::new("era-owner");
    let config = questioners(&scratch.0, &["q"]);
    let mut client = proxy(&config, &[]);
    client.wait = Duration::from_secs(10);
    let r = request_2026(&mut client, "tools/list", json!({}), json!({}));
    assert_eq!(r["result"]["tools"].as_array().unwrap().len(), 7, "{r}");
    // The older request declares nothing; the newer one elicitation, and its server asks.
    let slow = json!({"name": "slow", "arguments": {}});
    send_modern(&mut client, "slow", "tools/call", slow, &json!({}));
    std::thread::sleep(Duration::from_millis(200));
    let ask = json!({"name": "ask", "arguments": {}});
    let caps = json!({"elicitation": {}});
    send_modern(&mut client, "ask", "tools/call", ask.clone(), &caps);
    let got = responses(&mut client, &["slow", "ask"], Duration::from_secs(10));
    assert_eq!(result_text(&got["slow"]), "slow done", "{}", got["slow"]);
    let (key, _) = question(&got["ask"]);
    let answer = json!({ key: {"action": "accept", "content": {}} });
    let r = request_2026(
        &mut client,
        "tools/call",
        retry(&ask, answer, &state(&got["ask"])),
        caps,
    );
    assert!(result_text(&r).contains("accept"), "{r}");
    client.close();
}

#[test]
fn a_person_has_ten_request_timeouts_to_answer() {
    let scratch = Scratch::new("era-patience");
    let config = questioners(&scratch.0, &["q"]);
    let caps = json!({"elicitation": {}});
    // Revision 2026-07-28: the retry comes three timeouts later.
    let mut client = proxy(&config, &["--request-timeout", "1"]);
    let ask = json!({"name": "ask", "arguments": {}});
    let r = request_2026(&mut client, "tools/call", ask.clone(), caps.clone());
    let (key, _) = question(&r);
    std::thread::sleep(Duration::from_secs(3));
    let answer = json!({ key: {"action": "accept", "content": {"n": 3}} });
    let r = request_2026(
        &mut client,
        "tools/call",
        retry(&ask, answer, &state(&r)),
        caps,
    );
    assert!(result_text(&r).contains(r#""n": 3"#), "{r}");
    client.close();
    // Revision 2025-11-25: the client answers the elicitation three timeouts later.
    let mut client = proxy(&config, &["--request-timeout", "1"]);
    client.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
               "clientInfo": {"name": "e2e", "version": "1"}}),
    );
    client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    client.tools();
    client.send(
        &json!({"jsonrpc": "2.0", "id": "call", "method": "tools/call",
                        "params": {"name": "ask", "arguments": {}}}),
    );
    let asked = client.next_response(Duration::from_secs(10));
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    std::thread::sleep(Duration::from_secs(3));
    client.send(&json!({"jsonrpc": "2.0", "id": asked["id"],
                        "result": {"action": "accept", "content": {"n": 3}}}));
    let r = client.next_response(Duration::from_secs(10));
    assert_eq!(r["id"], "call", "{r}");
    assert!(result_text(&r).contains(r#""n": 3"#), "{r}");
    client.close();
}

#[test]
fn a_server_s_tasks_requests_are_no_input_requests() {
    let scratch = Scratch::new("era-tasks-asked");
    let config = questioners(&scratch.0, &["q"]);
    let caps = json!({"elicitation": {}, "sampling": {}, "roots": {}});
    // A 2026-07-28 client runs no tasks: the server is told so, the client is not asked.
    let mut client = proxy(&config, &[]);
    let r = request_2026(
        &mut client,
        "tools/call",
        json!({"name": "tasks", "arguments": {}}),
        caps,
    );
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    let answer: Json = serde_json::from_str(&result_text(&r)).unwrap();
    assert_eq!(answer["error"]["code"], -32601, "{r}");
    client.close();
    // A 2025-11-25 client that declared tasks is asked, as before.
    let mut client = proxy(&config, &[]);
    let tasks = json!({"tasks": {"requests": {"elicitation": {"create": {}}}}});
    client.initialize_declaring("2025-11-25", tasks);
    client.tools();
    client.send(
        &json!({"jsonrpc": "2.0", "id": "call", "method": "tools/call",
                        "params": {"name": "tasks", "arguments": {}}}),
    );
    let asked = client.next_response(Duration::from_secs(10));
    assert_eq!(asked["method"], "tasks/get", "{asked}");
    client.send(&json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"taskId": "t1"}}));
    let r = client.next_response(Duration::from_secs(10));
    assert!(result_text(&r).contains("t1"), "{r}");
    client.close();
}

#[test]
fn progress_goes_only_under_the_latest_round_s_token() {
    let scratch = Scratch::new("era-progress");
    let config = questioners(&scratch.0, &["q"]);
    let caps = json!({"elicitation": {}});
    let mut client = proxy(&config, &[]);
    let call = json!({"name": "ask_with_progress", "arguments": {}});
    let mut first = enveloped(call.clone(), caps.clone());
    first["_meta"]["progressToken"] = json!("p1");
    let r = client.request("tools/call", first);
    let (key, _) = question(&r);
    client.notifications.clear();
    // Between rounds and in a round without a token, the client waits on no token.
    std::thread::sleep(Duration::from_millis(500));
    let answer = json!({ key: {"action": "accept", "content": {}} });
    let r = request_2026(
        &mut client,
        "tools/call",
        retry(&call, answer, &state(&r)),
        caps,
    );
    assert!(result_text(&r).contains("accept"), "{r}");
    let progress: Vec<&Json> = client
        .notifications
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .collect();
    assert!(progress.is_empty(), "{progress:?}");
    client.close();
}

#[test]
fn input_responses_that_are_not_results_answer_nothing() {
    let scratch = Scratch::new("era-hostile");
    let config = questioners(&scratch.0, &["q"]);
    let caps = json!({"elicitation": {}});
    let mut client = proxy(&config, &[]);
    let ask = json!({"name": "ask", "arguments": {}});
    let r = request_2026(&mut client, "tools/call", ask.clone(), caps.clone());
    let (key, _) = question(&r);
    // Not an object: the question is asked again, the server is not answered.
    let r = request_2026(
        &mut client,
        "tools/call",
        retry(&ask, json!({ key.clone(): 5 }), &state(&r)),
        caps.clone(),
    );
    let (again, _) = question(&r);
    assert_eq!(again, key);
    let answer = json!({ key: {"action": "decline"} });
    let r = request_2026(
        &mut client,
        "tools/call",
        retry(&ask, answer, &state(&r)),
        caps,
    );
    let answer: Json = serde_json::from_str(&result_text(&r)).unwrap();
    assert_eq!(answer["result"], json!({"action": "decline"}), "{r}");
    client.close();
}

#[test]
fn a_listen_lists_the_servers_at_most_once_however_many_uris_nobody_serves() {
    let scratch = Scratch::new("era-listen-unknown");
    let config = questioners(&scratch.0, &["q"]);
    let mut client = proxy(&config, &[]);
    let before = seen(&mut client, "seen")["listings"].as_u64().unwrap();
    let uris: Vec<String> = (0..20).map(|n| format!("nowhere://{n}")).collect();
    client.send(
        &json!({"jsonrpc": "2.0", "id": "l1", "method": "subscriptions/listen",
        "params": enveloped(json!({"notifications": {"resourceSubscriptions": uris}}),
                            json!({}))}),
    );
    let ack = next_notification(&mut client);
    assert_eq!(ack["params"]["notifications"], json!({}), "{ack}");
    let after = seen(&mut client, "seen")["listings"].as_u64().unwrap();
    assert_eq!(after - before, 1);
    client.close();
}

#[test]
fn a_legacy_url_elicitation_required_error_becomes_a_round() {
    let scratch = Scratch::new("era-url-required");
    let config = questioners(&scratch.0, &["q"]);
    let mut client = proxy(&config, &[]);
    let call = json!({"name": "url_required", "arguments": {}});
    let caps = json!({"elicitation": {"url": {}}});
    let r = request_2026(&mut client, "tools/call", call.clone(), caps.clone());
    let (key, request) = question(&r);
    assert_eq!(
        request,
        json!({"method": "elicitation/create", "params": {"mode": "url",
               "url": "https://example.com/connect", "message": "Connect your account."}}),
        "{r}"
    );
    // The retry sends the request to the server again (which still wants the URL visited).
    let answer = json!({ key: {"action": "accept"} });
    let again = request_2026(
        &mut client,
        "tools/call",
        retry(&call, answer, &state(&r)),
        caps,
    );
    question(&again);
    assert_ne!(state(&again), state(&r));
    // Without the capability: -32021, never -32042 (which revision 2026-07-28 does not have).
    let r = request_2026(&mut client, "tools/call", call, json!({}));
    assert_eq!(r["error"]["code"], -32021, "{r}");
    assert_eq!(
        r["error"]["data"]["requiredCapabilities"],
        json!({"elicitation": {"url": {}}}),
        "{r}"
    );
    client.close();
}

#[test]
fn a_2026_client_sees_no_task_only_tool_and_creates_no_task() {
    let scratch = Scratch::new("2026-tasks");
    let Some(config) = everything_and_docs(&scratch.0) else {
        return;
    };
    let mut client = proxy(&config, &[]);
    // server-everything registers some tools after `initialize`: list until `echo` and the
    // later ones are there, then look for the one that runs only as a task.
    let deadline = std::time::Instant::now() + WAIT;
    let names = loop {
        let listed = request_2026(&mut client, "tools/list", json!({}), json!({}));
        let names: Vec<String> = listed["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{listed}"))
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect();
        if names.iter().any(|n| n == "trigger-long-running-operation")
            || std::time::Instant::now() > deadline
        {
            break names;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(names.iter().any(|n| n == "echo"), "{names:?}");
    assert!(
        !names.iter().any(|n| n == "simulate-research-query"),
        "{names:?}"
    );
    // A stray `task` does not make a task nobody could reach: the call is just run.
    let r = request_2026(
        &mut client,
        "tools/call",
        json!({"name": "echo", "arguments": {"message": "no task"}, "task": {"ttl": 1000}}),
        json!({}),
    );
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    assert!(r["result"]["task"].is_null(), "{r}");
    assert_eq!(r["result"]["content"][0]["text"], "Echo: no task", "{r}");
    client.close();
}

/// Issue #42, 1, over stdio: while a request (A) waits on its round, another (B, declaring
/// nothing) calls the same server, which asks. Two requests are in flight to it and stdio
/// does not say whose the question is: it is refused to the server at once, and A's next
/// round holds only A's own question.
#[test]
fn a_question_goes_to_no_request_but_the_one_it_came_for() {
    let scratch = Scratch::new("era-whose");
    let config = one(&scratch.0, "s", "servers/asking_server.py", &[]);
    let mut client = proxy(&config, &[]);
    client.wait = Duration::from_secs(10);
    let caps = json!({"elicitation": {}, "sampling": {}});
    let call = json!({"name": "ask_twice", "arguments": {}});
    let r = request_2026(&mut client, "tools/call", call.clone(), caps.clone());
    let (key, asked) = question(&r);
    assert_eq!(asked["method"], "elicitation/create", "{r}");
    let ask = json!({"name": "ask", "arguments": {}});
    send_modern(&mut client, "b", "tools/call", ask, &json!({}));
    let got = responses(&mut client, &["b"], Duration::from_secs(10));
    // The asking server's result: the answers its questions got.
    let b = result_text(&got["b"]);
    assert!(
        b.contains("-32601") && !b.contains("accept"),
        "{}",
        got["b"]
    );
    // B's call is answered: what the server asks now can only be about A's, at once.
    let answer = json!({ key: {"action": "accept", "content": {"name": "A"}} });
    let r = request_2026(
        &mut client,
        "tools/call",
        retry(&call, answer, &state(&r)),
        caps.clone(),
    );
    let (key, asked) = question(&r);
    assert_eq!(asked["method"], "sampling/createMessage", "{r}");
    let sampled = json!({"role": "assistant", "model": "m",
                         "content": {"type": "text", "text": "A-sampled"}});
    let r = request_2026(
        &mut client,
        "tools/call",
        retry(&call, json!({ key: sampled }), &state(&r)),
        caps,
    );
    let text = result_text(&r);
    assert!(text.contains("A-sampled") && text.contains("accept"), "{r}");
    client.close();
}

/// Review of #54 item 1 (e4eed66), over stdio (one client): a call that opted in to log
/// messages, made right after the previous call was answered (as every sequential host does,
/// now that it no longer waits 2 s), gets none of its server's log messages sent in its first
/// 2 s: the previous call, answered, still counts for them, two requests "could" be their
/// cause, and they reach no request, though both are this one client's.
#[test]
fn a_sequential_call_gets_its_own_log_messages() {
    let scratch = Scratch::new("era-seq-logs");
    let config = questioners(&scratch.0, &["q"]);
    let mut client = proxy(&config, &[]);
    client.wait = Duration::from_secs(10);
    let caps = json!({"sampling": {}});
    let call = |log: &str| {
        let mut params = enveloped(
            json!({"name": "slow", "arguments": {"log": log}}),
            caps.clone(),
        );
        params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("debug");
        params
    };
    for log in ["first-log", "second-log"] {
        let r = client.request("tools/call", call(log));
        assert_eq!(result_text(&r), "slow done", "{r}");
    }
    let logs: Vec<String> = client
        .notifications
        .iter()
        .filter(|n| n["method"] == "notifications/message")
        .map(|n| n["params"]["data"].to_string())
        .collect();
    assert!(logs.iter().any(|l| l.contains("first-log")), "{logs:?}");
    assert!(
        logs.iter().any(|l| l.contains("second-log")),
        "the second call's log message was dropped: {logs:?}"
    );
    client.close();
}
