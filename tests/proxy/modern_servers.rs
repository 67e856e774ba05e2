//! End-to-end tests of `toon mcp serve` speaking revision 2026-07-28 to a server that speaks
//! nothing else (`tests/fixtures/mcp/servers/modern_server.py`: `server/discover`, the `_meta`
//! envelope, `input_required` rounds, `subscriptions/listen`), configured with
//! `"toon": {"revision": "2026-07-28"}`, `"auto"` or nothing (`initialize` refused, then
//! `server/discover`), for clients of both revisions over stdio:
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
/// default, `initialize` first), beside the 2025-11-25 documents server `docs`, opened the
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
