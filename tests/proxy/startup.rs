//! Start-up (issue #60): a server still starting holds neither the client's `initialize` nor
//! the other servers' tools; it is listed by a list change once it is up, and a call of its
//! tool made before that waits for it. `--startup-grace wait` keeps the old rule. The slow
//! server is `gated_server.py`, which starts only once the test creates its gate file, so
//! nothing here depends on how fast the machine is. With the catalog cache of an earlier run,
//! its tools are listed at once and corrected by a list change if they changed. The same is
//! checked with both official SDKs' clients, over stdio and over HTTP.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value as Json, json};

use crate::mcp_servers::{self, Client, Scratch, servers_dir, wait_for_notification};

fn fixture(name: &str) -> PathBuf {
    mcp_servers::root()
        .join("tests/fixtures/mcp/servers")
        .join(name)
}

/// The wild fixture server and the gated one (its gate `scratch/gate`, not yet there).
fn wild_and_gated(scratch: &Path) -> (PathBuf, PathBuf) {
    let gate = scratch.join("gate");
    let servers = json!({
        "wild": {"command": "python3", "args": [fixture("wild_server.py")]},
        "gated": {"command": "python3", "args": [fixture("gated_server.py"), &gate]},
    });
    let config = scratch.join("mcp.json");
    std::fs::write(&config, json!({ "mcpServers": servers }).to_string()).unwrap();
    (config, gate)
}

fn proxy(config: &Path, args: &[&str]) -> Client {
    Client::proxy(Path::new(env!("CARGO_BIN_EXE_toon")), config, args)
}

fn names(tools: &[Json]) -> Vec<&str> {
    tools.iter().filter_map(|t| t["name"].as_str()).collect()
}

#[test]
fn a_server_still_starting_is_listed_by_a_list_change_and_its_call_waits_for_it() {
    let scratch = Scratch::new("startup-early");
    let (config, gate) = wild_and_gated(&scratch.0);
    let mut client = proxy(&config, &["--startup-grace", "0.5"]);
    let init = client.initialize("2025-11-25");
    // Answered while the gated server cannot have started: with what it may offer.
    assert!(!gate.exists());
    let capabilities = &init["result"]["capabilities"];
    assert_eq!(capabilities["tools"]["listChanged"], true, "{init}");
    assert_eq!(capabilities["prompts"]["listChanged"], true, "{init}");
    let first = client.tools();
    assert!(!names(&first).contains(&"gated_echo"), "{first:?}");
    // Its prompts are not there yet either; the list is answered, not refused.
    let prompts = client.request("prompts/list", json!({}));
    assert_eq!(prompts["result"]["prompts"], json!([]), "{prompts}");
    // A call of its tool before it is up: answered once it is.
    let id = call_later(&mut client, "gated_echo");
    std::fs::write(&gate, "").unwrap();
    let r = client.next_response(client.wait);
    assert_eq!(r["id"], id, "{r}");
    assert_eq!(r["result"]["content"][0]["text"], "waited", "{r}");
    for changed in [
        "notifications/tools/list_changed",
        "notifications/prompts/list_changed",
    ] {
        wait_for_notification(&mut client, |m| m["method"] == changed);
    }
    let all = client.tools();
    assert!(names(&all).contains(&"gated_echo"), "{all:?}");
    assert!(names(&all).len() > names(&first).len().max(1), "{all:?}");
    let prompts = client.request("prompts/list", json!({}));
    assert_eq!(prompts["result"]["prompts"][0]["name"], "gated_prompt");
    client.close();
}

#[test]
fn with_startup_grace_wait_initialize_is_answered_once_every_server_is_up() {
    let scratch = Scratch::new("startup-wait");
    let (config, gate) = wild_and_gated(&scratch.0);
    let mut client = proxy(&config, &["--startup-grace", "wait"]);
    let opener = {
        let gate = gate.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(1500));
            std::fs::write(gate, "").unwrap();
        })
    };
    let init = client.initialize("2025-11-25");
    // Not before the gate: the gated server's start was waited for.
    assert!(gate.exists(), "{init}");
    opener.join().unwrap();
    assert!(names(&client.tools()).contains(&"gated_echo"));
    // Every server was up: no capability beyond what they offer.
    assert_eq!(
        init["result"]["capabilities"]["prompts"]["listChanged"],
        false
    );
    client.close();
}

#[test]
fn a_2026_07_28_client_hears_of_a_late_server_on_its_listen() {
    let scratch = Scratch::new("startup-listen");
    let (config, gate) = wild_and_gated(&scratch.0);
    let mut client = proxy(&config, &["--startup-grace", "0.5"]);
    let envelope = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "e2e", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    client.send(
        &json!({"jsonrpc": "2.0", "id": "l1", "method": "subscriptions/listen",
        "params": {"notifications": {"toolsListChanged": true, "promptsListChanged": true},
                   "_meta": envelope}}),
    );
    let listed = client.request("tools/list", json!({"_meta": envelope}));
    assert!(!gate.exists());
    assert!(!names(listed["result"]["tools"].as_array().unwrap()).contains(&"gated_echo"));
    let acknowledged = wait_for_notification(&mut client, |m| {
        m["method"] == "notifications/subscriptions/acknowledged"
    });
    // Honoured as asked: a server still starting may change the prompts.
    assert_eq!(
        acknowledged["params"]["notifications"],
        json!({"toolsListChanged": true, "promptsListChanged": true}),
        "{acknowledged}"
    );
    std::fs::write(&gate, "").unwrap();
    for changed in [
        "notifications/tools/list_changed",
        "notifications/prompts/list_changed",
    ] {
        let m = wait_for_notification(&mut client, |m| m["method"] == changed);
        assert_eq!(
            m["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "l1",
            "{m}"
        );
    }
    let listed = client.request("tools/list", json!({"_meta": envelope}));
    assert!(names(listed["result"]["tools"].as_array().unwrap()).contains(&"gated_echo"));
    client.close();
}

/// A first run with the gate open, which leaves the gated server's tools in the catalog cache
/// `scratch/cache`; the gate is closed again after.
fn cached_once(config: &Path, gate: &Path, cache: &Path) {
    std::fs::write(gate, "").unwrap();
    let mut client = proxy(config, &["--catalog-cache", cache.to_str().unwrap()]);
    client.initialize("2025-11-25");
    assert!(names(&client.tools()).contains(&"gated_echo"));
    // Listed, so kept too.
    let prompts = client.request("prompts/list", json!({}));
    assert_eq!(prompts["result"]["prompts"][0]["name"], "gated_prompt");
    client.close();
    std::fs::remove_file(gate).unwrap();
    assert_eq!(
        std::fs::read_dir(cache).unwrap().count(),
        2,
        "one file a server"
    );
}

/// [`wild_and_gated`] in `scratch`, after [`cached_once`] left both servers in the cache
/// `scratch/cache`: the config, the gate and the cache.
fn cached_setup(scratch: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let (config, gate) = wild_and_gated(scratch);
    let cache = scratch.join("cache");
    cached_once(&config, &gate, &cache);
    (config, gate, cache)
}

/// The second run: a grace no test waits out, so only the cache can answer before the gate.
fn from_cache(config: &Path, cache: &Path) -> Client {
    let args = [
        "--startup-grace",
        "600",
        "--catalog-cache",
        cache.to_str().unwrap(),
    ];
    proxy(config, &args)
}

/// `tools/call` of `name` sent, not waited for; its id.
fn call_later(client: &mut Client, name: &str) -> u64 {
    call_later_with(client, name, json!({"text": "waited"}))
}

#[test]
fn a_cached_catalog_is_listed_at_once_and_its_calls_wait_for_their_server() {
    let scratch = Scratch::new("startup-cached");
    let (config, gate, cache) = cached_setup(&scratch.0);
    let mut client = from_cache(&config, &cache);
    client.initialize("2025-11-25");
    let listed = client.tools();
    assert!(
        !gate.exists(),
        "answered before the gated server could start"
    );
    assert!(names(&listed).contains(&"gated_echo"), "{listed:?}");
    // Its prompts as the cache kept them.
    let prompts = client.request("prompts/list", json!({}));
    assert_eq!(prompts["result"]["prompts"][0]["name"], "gated_prompt");
    let id = call_later(&mut client, "gated_echo");
    std::fs::write(&gate, "").unwrap();
    let r = client.next_response(client.wait);
    assert_eq!(r["id"], id, "{r}");
    assert_eq!(r["result"]["content"][0]["text"], "waited", "{r}");
    // Its prompts are new; its tools are what the client had: no tool list change.
    wait_for_notification(&mut client, |m| {
        m["method"] == "notifications/prompts/list_changed"
    });
    let tools_changed = "notifications/tools/list_changed";
    assert!(
        !client
            .notifications
            .iter()
            .any(|m| m["method"] == tools_changed),
        "{:?}",
        client.notifications
    );
    client.close();
}

#[test]
fn a_server_whose_tools_changed_since_the_cache_is_corrected_by_a_list_change() {
    let scratch = Scratch::new("startup-changed");
    let (config, gate, cache) = cached_setup(&scratch.0);
    let mut client = from_cache(&config, &cache);
    client.initialize("2025-11-25");
    assert!(names(&client.tools()).contains(&"gated_echo"));
    // Called as cached; the server lists it under another name now: never called there.
    let id = call_later(&mut client, "gated_echo");
    std::fs::write(&gate, "gated_renamed").unwrap();
    let r = client.next_response(client.wait);
    assert_eq!(r["id"], id, "{r}");
    let error = r["error"]["message"].as_str().unwrap_or_default();
    assert!(error.contains("gated_echo"), "{r}");
    wait_for_notification(&mut client, |m| {
        m["method"] == "notifications/tools/list_changed"
    });
    let listed = client.tools();
    assert!(names(&listed).contains(&"gated_renamed"), "{listed:?}");
    assert!(!names(&listed).contains(&"gated_echo"), "{listed:?}");
    let r = client.call("gated_renamed", json!({"text": "renamed"}));
    assert_eq!(r["content"][0]["text"], "renamed", "{r}");
    client.close();
    // The cache keeps the new list for the next start.
    std::fs::remove_file(&gate).unwrap();
    let mut client = from_cache(&config, &cache);
    client.initialize("2025-11-25");
    assert!(names(&client.tools()).contains(&"gated_renamed"));
    std::fs::write(&gate, "gated_renamed").unwrap();
    client.close();
}

#[test]
fn a_cached_server_that_fails_to_start_takes_its_tools_away_with_a_list_change() {
    let scratch = Scratch::new("startup-cached-fails");
    let (config, gate, cache) = cached_setup(&scratch.0);
    let mut client = from_cache(&config, &cache);
    client.initialize("2025-11-25");
    assert!(names(&client.tools()).contains(&"gated_echo"));
    let id = call_later(&mut client, "gated_echo");
    std::fs::write(&gate, "exit").unwrap();
    let r = client.next_response(client.wait);
    assert_eq!(r["id"], id, "{r}");
    // Said as the tool's failure, which the model reads.
    assert_eq!(r["result"]["isError"], true, "{r}");
    let text = r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.contains(r#"server "gated" is unavailable: exited"#),
        "{r}"
    );
    wait_for_notification(&mut client, |m| {
        m["method"] == "notifications/tools/list_changed"
    });
    let listed = client.tools();
    assert!(!names(&listed).contains(&"gated_echo"), "{listed:?}");
    assert!(
        names(&listed).len() > 1,
        "the other server's tools stay: {listed:?}"
    );
    // Its cached prompts were listed too: gone with it, and said.
    wait_for_notification(&mut client, |m| {
        m["method"] == "notifications/prompts/list_changed"
    });
    let prompts = client.request("prompts/list", json!({}));
    assert_eq!(prompts["result"]["prompts"], json!([]), "{prompts}");
    client.close();
}

#[test]
fn a_call_to_a_cached_tool_never_runs_on_another_server_of_that_name() {
    let scratch = Scratch::new("startup-pinned");
    let (config, gate, cache) = cached_setup(&scratch.0);
    // A second gated server, with nothing cached, lists the same tool name.
    let other = scratch.0.join("other-gate");
    let text = std::fs::read_to_string(&config).unwrap();
    let mut servers: Json = serde_json::from_str(&text).unwrap();
    servers["mcpServers"]["other"] =
        json!({"command": "python3", "args": [fixture("gated_server.py"), &other]});
    std::fs::write(&config, servers.to_string()).unwrap();
    // Not waited for: the grace is short.
    let args = [
        "--startup-grace",
        "0.2",
        "--catalog-cache",
        cache.to_str().unwrap(),
    ];
    let mut client = proxy(&config, &args);
    client.initialize("2025-11-25");
    assert!(names(&client.tools()).contains(&"gated_echo"));
    let id = call_later(&mut client, "gated_echo");
    // The other one comes up first: both tools are renamed `SERVER__gated_echo`; then the
    // cached one comes up listing its tool under another name.
    std::fs::write(&other, "").unwrap();
    wait_for_notification(&mut client, |m| {
        m["method"] == "notifications/tools/list_changed"
    });
    std::fs::write(&gate, "gated_renamed").unwrap();
    let r = client.next_response(client.wait);
    assert_eq!(r["id"], id, "{r}");
    let error = r["error"]["message"].as_str().unwrap_or_default();
    assert!(
        error.contains("unknown tool") && error.contains("gated_echo"),
        "{r}"
    );
    client.close();
}

#[test]
fn a_corrupt_cache_file_is_ignored_with_a_warning() {
    let scratch = Scratch::new("startup-corrupt");
    let (config, gate, cache) = cached_setup(&scratch.0);
    for file in std::fs::read_dir(&cache).unwrap() {
        std::fs::write(file.unwrap().path(), "{\"format\": ").unwrap();
    }
    std::fs::write(&gate, "").unwrap();
    let args = ["--catalog-cache", cache.to_str().unwrap()];
    let mut client = proxy(&config, &args);
    client.initialize("2025-11-25");
    assert!(names(&client.tools()).contains(&"gated_echo"));
    let stderr = client.close_then_stderr_with(&["not a cache file"]);
    assert!(stderr.contains("not a cache file"), "{stderr}");
}

/// The official SDK agents of the start-up tests.
#[derive(Clone, Copy, Debug)]
enum Sdk {
    Python,
    TypeScript,
}

/// Each phase of `py_startup_agent.py` (`late`, `cached`, `changed`) with `sdk`'s agent,
/// over stdio (the agent starts the gateway) or in front of `toon mcp serve --http`.
fn sdk_phases(sdk: Sdk, http: bool) {
    let Some(servers) = servers_dir() else {
        return;
    };
    for phase in ["late", "cached", "changed"] {
        let scratch = Scratch::new(&format!("startup-{sdk:?}-{http}-{phase}"));
        let (config, gate) = wild_and_gated(&scratch.0);
        let cache = scratch.0.join("cache");
        if phase != "late" {
            cached_once(&config, &gate, &cache);
        }
        let cache_arg = cache.to_str().unwrap();
        let mut gateway = None;
        let toon = env!("CARGO_BIN_EXE_toon").to_owned();
        let (target, config_arg, cache_arg) = if http {
            let args = match phase {
                "late" => ["--startup-grace", "0.5", "--catalog-cache", "off"],
                _ => ["--startup-grace", "600", "--catalog-cache", cache_arg],
            };
            let toon = Path::new(&toon);
            let (child, addr) = mcp_servers::http_proxy(toon, &config, &args);
            gateway = Some(child);
            (format!("http://{addr}/mcp"), "-".to_owned(), "-")
        } else {
            (toon, config.to_str().unwrap().to_owned(), cache_arg)
        };
        let agent_args = [
            target.as_str(),
            &config_arg,
            cache_arg,
            gate.to_str().unwrap(),
            phase,
        ];
        let out = match sdk {
            Sdk::Python => Command::new(servers.join("venv/bin/python"))
                .args(["-W", "ignore::DeprecationWarning"])
                .arg(clients().join("py_startup_agent.py"))
                .args(agent_args)
                .output(),
            Sdk::TypeScript => Command::new("node")
                .arg(clients().join("sdk_startup_agent.mjs"))
                .arg(mcp_servers::sdk_dir(servers))
                .args(agent_args)
                .output(),
        }
        .unwrap();
        if let Some(mut child) = gateway {
            let _ = child.kill();
            let _ = child.wait();
        }
        assert!(
            out.status.success(),
            "{sdk:?}, http {http}, {phase}:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

fn clients() -> PathBuf {
    mcp_servers::root().join("tests/fixtures/mcp/clients")
}

#[test]
fn python_sdk_over_stdio_a_late_server_a_cached_one_and_a_changed_one() {
    sdk_phases(Sdk::Python, false);
}

#[test]
fn python_sdk_over_http_a_late_server_a_cached_one_and_a_changed_one() {
    sdk_phases(Sdk::Python, true);
}

#[test]
fn typescript_sdk_over_stdio_a_late_server_a_cached_one_and_a_changed_one() {
    sdk_phases(Sdk::TypeScript, false);
}

#[test]
fn typescript_sdk_over_http_a_late_server_a_cached_one_and_a_changed_one() {
    sdk_phases(Sdk::TypeScript, true);
}

#[test]
fn a_server_that_never_starts_holds_no_other_server_s_list_change() {
    let scratch = Scratch::new("startup-stuck");
    let gate = scratch.0.join("gate");
    std::fs::write(&gate, "").unwrap();
    let servers = json!({
        // Never opened: it never starts (within the test's time).
        "stuck": {"command": "python3",
                  "args": [fixture("gated_server.py"), scratch.0.join("never")]},
        // Up at once, with a tool list change while the proxy is still starting it.
        "announcer": {"command": "python3",
                      "args": [fixture("gated_server.py"), &gate, "announce"]},
    });
    let config = scratch.0.join("mcp.json");
    std::fs::write(&config, json!({ "mcpServers": servers }).to_string()).unwrap();
    let args = ["--startup-grace", "0", "--startup-timeout", "600"];
    let mut client = proxy(&config, &args);
    client.initialize("2025-11-25");
    wait_for_notification(&mut client, |m| {
        m["method"] == "notifications/tools/list_changed"
    });
    let listed = client.tools();
    assert!(names(&listed).contains(&"gated_echo"), "{listed:?}");
    let r = client.call("gated_echo", json!({"text": "while another starts"}));
    assert_eq!(r["content"][0]["text"], "while another starts", "{r}");
    client.close();
}

#[test]
fn lean_mode_runs_a_started_server_s_tool_at_once_and_a_cached_one_once_its_server_is_up() {
    let scratch = Scratch::new("startup-lean");
    let (config, gate, cache) = cached_setup(&scratch.0);
    // Only the gated server is cached: the wild one is waited for, within the grace.
    for file in std::fs::read_dir(&cache).unwrap() {
        let path = file.unwrap().path();
        if std::fs::read_to_string(&path)
            .unwrap()
            .contains(r#""server":"wild""#)
        {
            std::fs::remove_file(path).unwrap();
        }
    }
    let args = [
        "--mode",
        "lean",
        "--startup-grace",
        "600",
        "--catalog-cache",
        cache.to_str().unwrap(),
    ];
    let mut client = proxy(&config, &args);
    client.initialize("2025-11-25");
    // Discovery finds the cached tool before its server is up.
    let found = client.call("discover_tools", json!({"query": "gated echo"}));
    assert!(!gate.exists());
    assert!(found.to_string().contains("gated_echo"), "{found}");
    let execute = |name: &str| json!({"name": name, "arguments": {"text": "lean"}});
    // The wild server is up; the gated one is not, and is not waited for.
    let r = client.call("execute_tool", execute("echo_request"));
    assert!(!gate.exists());
    assert!(
        r["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("echo_request"),
        "{r}"
    );
    let id = call_later_with(&mut client, "execute_tool", execute("gated_echo"));
    std::fs::write(&gate, "").unwrap();
    let r = client.next_response(client.wait);
    assert_eq!(r["id"], id, "{r}");
    assert!(
        r["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("lean"),
        "{r}"
    );
    client.close();
}

/// `tools/call` of `name` with `arguments` sent, not waited for; its id.
fn call_later_with(client: &mut Client, name: &str, arguments: Json) -> u64 {
    let params = json!({"name": name, "arguments": arguments});
    client.send_request("tools/call", params)
}
