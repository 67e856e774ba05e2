//! End-to-end tests of `toon mcp serve` speaking revision 2026-07-28 to a server that speaks
//! nothing else (`tests/fixtures/mcp/servers/modern_server.py`: `server/discover`, the `_meta`
//! envelope, `input_required` rounds, `subscriptions/listen`), configured with
//! `"toon": {"revision": "2026-07-28"}`, `"auto"` or nothing (the default: `server/discover`
//! first, or `initialize` first for a client that opened with it and `server/discover` when it
//! is refused), for clients of both revisions over stdio:
//! a 2025-11-25 client is asked the server's questions on its session, a 2026-07-28 client
//! gets the server's rounds as the server gave them; list changes reach both.

use std::path::{Path, PathBuf};

use crate::mcp_servers::{self, Scratch, answer_until, wait_for_notification};
use serde_json::{Value as Json, json};

const VERSION: &str = "2026-07-28";

fn proxy(config: &Path) -> mcp_servers::Client {
    mcp_servers::Client::proxy(Path::new(env!("CARGO_BIN_EXE_toon")), config, &[])
}

/// A config of the modern server as `modern`, opened as `revision` says (`None`: the
/// default), beside the 2025-11-25 documents server `docs`, opened the
/// same way (`auto` and the default fall back for it) or pinned to 2025-11-25.
fn config(scratch: &Path, revision: Option<&str>) -> PathBuf {
    let fixture = |name: &str| {
        mcp_servers::root()
            .join("tests/fixtures/mcp/servers")
            .join(name)
    };
    let mut modern = json!({"command": "python3", "args": [fixture("modern_server.py")]});
    let mut docs = json!({"command": "python3", "args": [fixture("documents_server.py"), "docs"]});
    if let Some(revision) = revision {
        modern["toon"] = json!({ "revision": revision });
        let theirs = if revision == "auto" {
            "auto"
        } else {
            "2025-11-25"
        };
        docs["toon"] = json!({ "revision": theirs });
    }
    let servers = json!({"modern": modern, "docs": docs});
    let path = scratch.join("mcp.json");
    std::fs::write(&path, json!({ "mcpServers": servers }).to_string()).unwrap();
    path
}

fn enveloped(mut params: Json, capabilities: &Json) -> Json {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientInfo": {"name": "e2e", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    });
    params
}

/// The text of a response's result.
fn text(r: &Json) -> &str {
    said(&r["result"])
}

/// The text of a result (as `Client::call` gives it).
fn said(result: &Json) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

fn call(name: &str) -> Json {
    json!({"name": name, "arguments": {}})
}

#[test]
fn a_2025_client_is_asked_a_2026_only_server_s_questions_on_its_session() {
    for revision in [Some(VERSION), Some("auto"), None] {
        let scratch = Scratch::new("modern-legacy-client");
        let mut client = proxy(&config(&scratch.0, revision));
        let caps = json!({"roots": {}, "sampling": {}, "elicitation": {}});
        let init = client.initialize_declaring("2025-11-25", caps);
        assert!(
            init["result"]["instructions"]
                .as_str()
                .is_some_and(|i| i.contains("2026-07-28 only")),
            "{init}"
        );
        let names: Vec<Json> = client.tools().iter().map(|t| t["name"].clone()).collect();
        assert!(
            names.contains(&json!("echo")) && names.len() >= 8,
            "{names:?}"
        );
        assert_eq!(said(&client.call("echo", json!({"text": "hi"}))), "hi");

        // A round: the server's elicitation is the client's, on its session; the retry
        // carries the answer and the server's own state.
        let id = client.send_request("tools/call", call("ask"));
        let asked = client.next_response(mcp_servers::WAIT);
        assert_eq!(asked["method"], "elicitation/create", "{asked}");
        assert_eq!(asked["params"]["message"], "Name?", "{asked}");
        client.send(&json!({"jsonrpc": "2.0", "id": asked["id"],
                            "result": {"action": "accept", "content": {"name": "Ada"}}}));
        let r = client.next_response(mcp_servers::WAIT);
        assert_eq!(r["id"], id, "{r}");
        assert_eq!(text(&r), "hello Ada (state s1)", "{r}");
        // Two questions in one round, both answered before the retry.
        let mut questions = Vec::new();
        let id = client.send_request("tools/call", call("ask_all"));
        let r = answer_until(&mut client, id, &mut questions);
        questions.sort();
        assert_eq!(questions, ["roots/list", "sampling/createMessage"], "{r}");
        let answers: Json = serde_json::from_str(text(&r)).unwrap();
        assert_eq!(answers["roots"]["roots"][0]["uri"], "file:///work", "{r}");
        assert_eq!(answers["sample"]["model"], "e2e-model", "{r}");
        // What the session declared is what every request to the server declares.
        let declared: Json =
            serde_json::from_str(said(&client.call("declared", json!({})))).unwrap();
        assert_eq!(
            declared,
            json!({"roots": {}, "sampling": {}, "elicitation": {}})
        );
        client.close();
    }
}

#[test]
fn a_2026_only_server_that_breaks_its_rounds_fails_the_request_saying_why() {
    let scratch = Scratch::new("modern-broken");
    let mut client = proxy(&config(&scratch.0, Some(VERSION)));
    client.initialize_declaring("2025-11-25", json!({"roots": {}}));
    // Rounds without end: answered until the bound, then a clear error, not a hang.
    let mut asked = Vec::new();
    let id = client.send_request("tools/call", call("forever"));
    let r = answer_until(&mut client, id, &mut asked);
    let message = r["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("input_required more than 16 times"), "{r}");
    assert_eq!(asked.len(), 16, "{asked:?}");
    // A question no client may be asked.
    let r = client.request("tools/call", call("not_a_question"));
    let message = r["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("none of sampling/createMessage"), "{r}");
    // The connection is still good.
    assert_eq!(said(&client.call("echo", json!({"text": "ok"}))), "ok");
    client.close();
}

#[test]
fn a_2026_client_gets_a_2026_only_server_s_rounds_as_the_server_gave_them() {
    let scratch = Scratch::new("modern-modern-client");
    let mut client = proxy(&config(&scratch.0, Some(VERSION)));
    let caps = json!({"elicitation": {}});
    let r = client.request("tools/call", enveloped(call("ask"), &caps));
    let result = &r["result"];
    assert_eq!(result["resultType"], "input_required", "{r}");
    assert_eq!(result["requestState"], "s1", "{r}");
    assert_eq!(
        result["inputRequests"]["who"]["method"], "elicitation/create",
        "{r}"
    );
    let mut retry = enveloped(call("ask"), &caps);
    retry["inputResponses"] = json!({"who": {"action": "accept", "content": {"name": "Lin"}}});
    retry["requestState"] = json!("s1");
    let r = client.request("tools/call", retry);
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    assert_eq!(text(&r), "hello Lin (state s1)", "{r}");
    // The request's own capabilities reach the server, and its caching hints the client.
    let r = client.request("tools/call", enveloped(call("declared"), &caps));
    assert_eq!(serde_json::from_str::<Json>(text(&r)).unwrap(), caps, "{r}");
    let r = client.request(
        "tools/call",
        enveloped(json!({"name": "echo", "arguments": {"text": "x"}}), &caps),
    );
    assert_eq!(r["result"]["ttlMs"], 5000, "{r}");
    assert_eq!(r["result"]["cacheScope"], "public", "{r}");
    client.close();
}

#[test]
fn a_2025_client_s_resource_subscription_rides_the_2026_only_server_s_listen() {
    let scratch = Scratch::new("modern-subscribe");
    let mut client = proxy(&config(&scratch.0, Some(VERSION)));
    client.initialize("2025-11-25");
    let listed = client.request("resources/list", json!({}));
    assert!(listed.to_string().contains("note://1"), "{listed}");
    // Not subscribed: nothing to say.
    assert_eq!(said(&client.call("touch", json!({}))), "touched 0");
    let r = client.request("resources/subscribe", json!({"uri": "note://1"}));
    assert!(r.get("result").is_some(), "{r}");
    // The listen is opened again with the resource; one stream, not two.
    let mut touched = String::new();
    for _ in 0..50 {
        touched = said(&client.call("touch", json!({}))).to_owned();
        if touched == "touched 1" {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(touched, "touched 1");
    assert_eq!(said(&client.call("listens", json!({}))), "1");
    let update = wait_for_notification(&mut client, |n| {
        n["method"] == "notifications/resources/updated"
    });
    assert_eq!(update["params"]["uri"], "note://1", "{update}");
    let r = client.request("resources/unsubscribe", json!({"uri": "note://1"}));
    assert!(r.get("result").is_some(), "{r}");
    client.close();
}

#[test]
fn a_round_cancelled_by_its_client_withdraws_the_question_it_was_asked() {
    let scratch = Scratch::new("modern-withdrawn");
    let mut client = proxy(&config(&scratch.0, Some(VERSION)));
    client.initialize_declaring("2025-11-25", json!({"elicitation": {}}));
    let id = client.send_request("tools/call", call("ask"));
    let asked = client.next_response(mcp_servers::WAIT);
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    client.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": id, "reason": "user gave up"}}),
    );
    let withdrawn =
        wait_for_notification(&mut client, |n| n["method"] == "notifications/cancelled");
    assert_eq!(withdrawn["params"]["requestId"], asked["id"], "{withdrawn}");
    // A late answer harms nothing; the connection goes on.
    client.send(&json!({"jsonrpc": "2.0", "id": asked["id"],
                        "result": {"action": "accept", "content": {"name": "late"}}}));
    assert_eq!(said(&client.call("echo", json!({"text": "on"}))), "on");
    client.close();
}

#[test]
fn a_2026_only_server_s_list_change_reaches_a_2025_client() {
    let scratch = Scratch::new("modern-list-change");
    let mut client = proxy(&config(&scratch.0, Some(VERSION)));
    client.initialize("2025-11-25");
    let before = client.tools().len();
    // The proxy listens to the server from the start.
    assert_eq!(said(&client.call("listens", json!({}))), "1");
    assert_eq!(said(&client.call("add", json!({}))), "added");
    wait_for_notification(&mut client, |n| {
        n["method"] == "notifications/tools/list_changed"
    });
    let tools = client.tools();
    assert_eq!(tools.len(), before + 1);
    assert!(tools.iter().any(|t| t["name"] == "added"));
    client.close();
}

// The TypeScript SDK v2 (`@modelcontextprotocol/client` and `server` 2.4): its client, pinned
// to each revision, in front of the gateway over stdio and over HTTP; behind the gateway a
// server on its server package that answers 2026-07-28 only
// (`tests/fixtures/mcp/servers/sdk2_server.mjs`, over stdio and as a `url` server) and
// server-everything of 2025-11-25.

pub(super) const REVISIONS: [&str; 2] = ["2025-11-25", "2026-07-28"];

/// The capabilities the v2 agent declares (as a host does): what the server must be told.
fn sdk2_agent_capabilities() -> Json {
    json!({"roots": {"listChanged": true}, "sampling": {}, "elicitation": {"form": {}}})
}

/// The npm prefix of the v2 packages, or `None` when the real servers are skipped.
fn sdk2_dir() -> Option<PathBuf> {
    mcp_servers::servers_dir().map(|d| d.join("npm-sdk2"))
}

fn fixture(path: &str) -> PathBuf {
    mcp_servers::root().join("tests/fixtures/mcp").join(path)
}

fn sdk2_config(scratch: &Path, servers: &Json) -> PathBuf {
    let path = scratch.join("mcp.json");
    std::fs::write(&path, json!({ "mcpServers": servers }).to_string()).unwrap();
    path
}

/// How the agent reaches the gateway.
#[derive(Clone, Copy, Debug)]
enum Front {
    /// It starts `toon mcp serve` itself, as a host does.
    Stdio,
    /// `toon mcp serve --http` on 127.0.0.1, started for the run.
    #[cfg(feature = "mcp-http")]
    Http,
}

const FRONTS: &[Front] = &[
    Front::Stdio,
    #[cfg(feature = "mcp-http")]
    Front::Http,
];

/// A child process killed at the end of the test.
#[cfg_attr(not(feature = "mcp-http"), allow(dead_code))]
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The v2 agent's summary of one run (`tests/fixtures/mcp/clients/sdk2_agent.mjs`), pinned to
/// `revision`, in front of a gateway of `config` reached as `front` says, following `plan`;
/// it panics with the agent's output when the agent failed.
fn sdk2_agent(sdk2: &Path, revision: &str, front: Front, config: &Path, plan: &Json) -> Json {
    let toon = Path::new(env!("CARGO_BIN_EXE_toon"));
    let mut command = std::process::Command::new("node");
    command
        .arg(fixture("clients/sdk2_agent.mjs"))
        .arg(sdk2)
        .arg(revision)
        .arg(plan.to_string());
    let _gateway: Option<Killed> = match front {
        Front::Stdio => {
            command.arg("stdio").arg(toon).arg(config);
            None
        }
        #[cfg(feature = "mcp-http")]
        Front::Http => {
            let (child, addr) = mcp_servers::http_proxy(toon, config, &[]);
            command.arg("http").arg(format!("http://{addr}/mcp"));
            Some(Killed(child))
        }
    };
    let out = command.output().unwrap();
    let summary = mcp_servers::agent_summary(&out, &format!("{revision} {front:?}"));
    assert_eq!(summary["negotiated"], revision, "{summary}");
    // It spoke to the gateway, not to the server.
    assert_eq!(summary["server"], "toon-mcp-proxy", "{summary}");
    summary
}

/// The methods of the questions the agent was asked, sorted.
fn asked_methods(summary: &Json) -> Vec<String> {
    let mut methods: Vec<String> = summary["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["method"].as_str().unwrap().to_owned())
        .collect();
    methods.sort();
    methods
}

/// The v2 server's tools, through the gateway to a v2 agent of `revision`: listed, a plain
/// call, an elicitation and a sampling+roots round answered by the agent (the server's
/// `requestState` back in the retry), the envelope the server was sent (the agent's own
/// capabilities, the revision), and its list change told to the agent.
fn sdk2_server_plan() -> Json {
    json!({
        "wait_for": "ask",
        "plain": ["echo", {"text": "through the gateway"}],
        "then": [["ask", {}], ["sample_and_roots", {}], ["declared", {}]],
        "change": "add",
    })
}

fn check_sdk2_server_run(summary: &Json) {
    let tools: Vec<&str> = summary["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Json::as_str)
        .collect();
    assert_eq!(
        tools,
        ["echo", "ask", "sample_and_roots", "declared", "add"],
        "{summary}"
    );
    assert_eq!(summary["plain"], "through the gateway", "{summary}");
    let then = &summary["then"];
    assert_eq!(then[0], "hello Ada (state sdk2-state-1)", "{summary}");
    let sampled: Json = serde_json::from_str(then[1].as_str().unwrap()).unwrap();
    assert_eq!(
        sampled,
        json!({"model": "sdk2-agent-model", "roots": ["file:///sdk2"]}),
        "{summary}"
    );
    let envelope: Json = serde_json::from_str(then[2].as_str().unwrap()).unwrap();
    assert_eq!(
        envelope["io.modelcontextprotocol/protocolVersion"], VERSION,
        "{summary}"
    );
    assert_eq!(
        envelope["io.modelcontextprotocol/clientCapabilities"],
        sdk2_agent_capabilities(),
        "{summary}"
    );
    assert_eq!(
        asked_methods(summary),
        ["elicitation/create", "roots/list", "sampling/createMessage"],
        "{summary}"
    );
    assert_eq!(summary["questions"][0]["message"], "Name?", "{summary}");
    assert_eq!(summary["change"], "added", "{summary}");
    let after = summary["toolsAfterChange"].as_array();
    assert!(
        after.is_some_and(|a| a.contains(&json!("added"))),
        "the list change was not told: {summary}"
    );
    assert!(summary["listChanged"].as_u64() >= Some(1), "{summary}");
}

/// A 2026-07-28-only server on the TypeScript SDK v2 over stdio, unconfigured (`initialize`
/// refused, then `server/discover`), behind the gateway over stdio and HTTP for v2 clients of
/// both revisions.
#[test]
fn typescript_sdk_v2_clients_reach_a_2026_only_sdk_v2_server_over_stdio() {
    let Some(sdk2) = sdk2_dir() else {
        return;
    };
    for &front in FRONTS {
        for revision in REVISIONS {
            let scratch = Scratch::new("sdk2-stdio-server");
            let server = json!({"command": "node",
                                "args": [fixture("servers/sdk2_server.mjs"), &sdk2, "stdio"]});
            let config = sdk2_config(&scratch.0, &json!({ "sdk2": server }));
            let summary = sdk2_agent(&sdk2, revision, front, &config, &sdk2_server_plan());
            check_sdk2_server_run(&summary);
        }
    }
}

/// The v2 server over Streamable HTTP on 127.0.0.1 (stateless, one instance a request), a
/// fresh one each call (the tool `add` changes its list for good), and its URL.
#[cfg(feature = "mcp-http")]
fn sdk2_http_server(sdk2: &Path) -> (Killed, String) {
    use std::io::BufRead;
    let mut child = std::process::Command::new("node")
        .arg(fixture("servers/sdk2_server.mjs"))
        .arg(sdk2)
        .args(["http", "0"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("the v2 server said {line:?}"))
        .to_owned();
    (Killed(child), url)
}

/// The same server over Streamable HTTP, a `url` server opened `"auto"` (`server/discover`
/// first), behind the gateway over stdio and HTTP for v2 clients of both revisions.
#[cfg(feature = "mcp-http")]
#[test]
fn typescript_sdk_v2_clients_reach_a_2026_only_sdk_v2_server_over_http() {
    let Some(sdk2) = sdk2_dir() else {
        return;
    };
    for &front in FRONTS {
        for revision in REVISIONS {
            let scratch = Scratch::new("sdk2-http-server");
            let (_server, url) = sdk2_http_server(&sdk2);
            let server = json!({"url": url, "toon": {"revision": "auto"}});
            let config = sdk2_config(&scratch.0, &json!({ "sdk2": server }));
            let summary = sdk2_agent(&sdk2, revision, front, &config, &sdk2_server_plan());
            check_sdk2_server_run(&summary);
        }
    }
}

/// server-everything (2025-11-25) behind the gateway over stdio and HTTP for v2 clients of
/// both revisions: its elicitation, sampling and roots requests reach the agent (a 2026-07-28
/// agent gets them as the gateway's `input_required` rounds) and the answers flow back.
#[test]
fn typescript_sdk_v2_clients_reach_server_everything_of_2025_11_25() {
    let (Some(sdk2), Some(servers)) = (sdk2_dir(), mcp_servers::servers_dir()) else {
        return;
    };
    let plan = json!({
        "wait_for": "trigger-elicitation-request",
        "plain": ["echo", {"message": "v2"}],
        "then": [
            ["trigger-elicitation-request", {}],
            ["trigger-sampling-request", {"prompt": "hi", "maxTokens": 5}],
            ["get-roots-list", {}],
        ],
        "change": null,
    });
    for &front in FRONTS {
        for revision in REVISIONS {
            let scratch = Scratch::new("sdk2-everything");
            let everything = mcp_servers::entry(servers, &scratch.0, "everything");
            let config = sdk2_config(&scratch.0, &json!({ "everything": everything }));
            let summary = sdk2_agent(&sdk2, revision, front, &config, &plan);
            assert_eq!(summary["plain"], "Echo: v2", "{summary}");
            let then = &summary["then"];
            assert!(
                then[0].as_str().unwrap().contains("- Name: Ada"),
                "{summary}"
            );
            assert!(
                then[1].as_str().unwrap().contains("sampled by sdk2")
                    && then[1].as_str().unwrap().contains("sdk2-agent-model"),
                "{summary}"
            );
            assert!(
                then[2].as_str().unwrap().contains("URI: file:///sdk2"),
                "{summary}"
            );
            assert_eq!(
                asked_methods(&summary),
                ["elicitation/create", "roots/list", "sampling/createMessage"],
                "{summary}"
            );
        }
    }
}

/// With no revision key, a server of both revisions (`modern_server.py --both`) is spoken to
/// in its client's: a 2025-11-25 client's calls reach it after `initialize`, a 2026-07-28
/// client's in the envelope, each reaching what the server offers that revision.
#[test]
fn a_server_of_both_revisions_is_spoken_to_in_its_client_s() {
    let fixture = mcp_servers::root().join("tests/fixtures/mcp/servers/modern_server.py");
    let servers = json!({"both": {"command": "python3", "args": [fixture, "--both"]}});
    let echo = json!({"name": "echo", "arguments": {"text": "hi"}});
    let scratch = Scratch::new("both-revisions");
    let path = scratch.0.join("mcp.json");
    std::fs::write(&path, json!({ "mcpServers": servers }).to_string()).unwrap();

    let mut client = proxy(&path);
    client.initialize_declaring("2025-11-25", json!({"roots": {}}));
    assert_eq!(
        said(&client.call("echo", json!({"text": "hi"}))),
        "hi (2025-11-25)"
    );
    client.close();

    let mut client = proxy(&path);
    let r = client.request("tools/call", enveloped(echo, &json!({"roots": {}})));
    assert_eq!(text(&r), "hi (2026-07-28)", "{r}");
    client.close();
}

/// A server that does not answer `server/discover` at all (`fake_server.py --silent`) is sent
/// `initialize` beside it after the probe, and starts well within its start-up timeout:
/// `toon mcp inspect`, which has no client, opens it `server/discover` first.
#[test]
fn a_server_silent_on_discover_is_opened_with_initialize() {
    let fixture = mcp_servers::root().join("tests/fixtures/mcp/servers/fake_server.py");
    let servers = json!({"quiet": {"command": "python3", "args": [fixture, "--silent"]}});
    let scratch = Scratch::new("silent-discover");
    let path = scratch.0.join("mcp.json");
    std::fs::write(&path, json!({ "mcpServers": servers }).to_string()).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toon"))
        .args(["mcp", "inspect", "--config"])
        .arg(&path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("quiet") && l.ends_with("ready")),
        "{stdout}{stderr}"
    );
}

/// The tool `seen` of `opening_server.py MODE`, called by a 2026-07-28 client through the
/// gateway (which opens the server `server/discover` first): what the server read, in order.
fn opening_server_saw(mode: &str) -> Vec<String> {
    let fixture = mcp_servers::root().join("tests/fixtures/mcp/servers/opening_server.py");
    let servers = json!({"o": {"command": "python3", "args": [fixture, mode]}});
    let scratch = Scratch::new(&format!("opening-{mode}"));
    let path = scratch.0.join("mcp.json");
    std::fs::write(&path, json!({ "mcpServers": servers }).to_string()).unwrap();
    let mut client = proxy(&path);
    let r = client.request("tools/call", enveloped(call("seen"), &json!({})));
    client.close();
    serde_json::from_str(text(&r)).unwrap_or_else(|e| panic!("{e}: {r}"))
}

/// A server that answers `server/discover` only once `initialize` has come beside it (after
/// the probe), and never answers that `initialize`, is opened in 2026-07-28; its pending
/// `initialize` is not cancelled (`// 2025-11-25 basic/utilities/cancellation`: "The
/// `initialize` request MUST NOT be cancelled by clients").
#[test]
fn an_initialize_outrun_by_server_discover_is_not_cancelled() {
    let seen = opening_server_saw("discover-late");
    let initialize = seen.iter().find_map(|s| s.strip_prefix("initialize "));
    let initialize = initialize.unwrap_or_else(|| panic!("no initialize: {seen:?}"));
    assert!(
        !seen.contains(&format!("notifications/cancelled {initialize}")),
        "{seen:?}"
    );
    assert!(
        seen.iter().any(|s| s.starts_with("tools/call ")),
        "{seen:?}"
    );
}

/// A server that refuses every `server/discover` with -32022 listing 2026-07-28 is asked it
/// twice (once more, as the list says it could be served), then opened with `initialize`.
#[test]
fn a_server_that_always_says_unsupported_is_asked_twice_then_initialized() {
    let seen = opening_server_saw("unsupported-forever");
    let discovers = seen.iter().filter(|s| s.starts_with("server/discover "));
    assert_eq!(discovers.count(), 2, "{seen:?}");
    assert!(
        seen.iter().any(|s| s.starts_with("initialize ")),
        "{seen:?}"
    );
    assert!(
        seen.iter().any(|s| s.starts_with("tools/call ")),
        "{seen:?}"
    );
}
