//! End-to-end tests of `toon mcp serve` and `toon mcp inspect` against real MCP servers:
//! `@modelcontextprotocol/server-everything`, `-filesystem`, `-memory` (npm), `mcp-server-time`,
//! `mcp-server-git` (PyPI), the crate's own rmcp example server, and a raw JSON-RPC server whose
//! messages carry fields no SDK knows; and an agent on the official TypeScript SDK
//! (`tests/fixtures/mcp/clients/sdk_agent.mjs`) in front of the proxy. The proxy runs as a
//! child process over stdio, as a client would run it.
//!
//! The third-party servers come from `scripts/install-mcp-servers.sh` (run by `.ci/run`; run
//! here too when `TOON_MCP_SERVERS` is not set). Without Node or Python these tests fail,
//! unless `TOON_MCP_SKIP_REAL_SERVERS=1` says to skip them.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::mcp_servers::{
    self, Scratch, WAIT, alive, answer_until, config, config_with_modes, descendants, entry,
    servers_dir, wait_for_notification,
};
use crate::modern_servers::REVISIONS;
use serde_json::{Value as Json, json};

/// `toon mcp serve` as a client runs it.
struct Client;

impl Client {
    fn start(config: &Path, args: &[&str]) -> mcp_servers::Client {
        mcp_servers::Client::proxy(Path::new(env!("CARGO_BIN_EXE_toon")), config, args)
    }
}

/// The text of a result's first content block.
fn text(result: &Json) -> &str {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{result}"))
}

/// Decodes a converted block (TOON or JSON, as its marker says) back to JSON.
fn decoded(result: &Json) -> Json {
    let format = &result["content"][0]["_meta"]["rs.toon-codec/conversion"]["format"];
    match format.as_str() {
        Some("toon") => toon::decode::<Json>(text(result)).unwrap(),
        _ => serde_json::from_str(text(result)).unwrap(),
    }
}

fn cmdline(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
        .unwrap_or_default()
}

#[test]
fn passthrough_serves_every_server_and_converts_results() {
    let scratch = Scratch::new("passthrough");
    let names = [
        "everything",
        "filesystem",
        "memory",
        "time",
        "git",
        "notes",
        "raw",
    ];
    let Some(config) = config(&scratch.0, &names) else {
        return;
    };
    let mut client = Client::start(&config, &[]);
    let init = client.initialize("2025-06-18");
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(init["result"]["capabilities"]["tools"]["listChanged"], true);
    assert!(
        init["result"]["instructions"]
            .as_str()
            .unwrap()
            .contains("TOON")
    );

    let tools = client.tools();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    for expected in [
        "everything__echo",
        "raw__echo",
        "read_text_file",
        "create_entities",
        "get_current_time",
        "git_status",
        "list_notes",
        "report",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    // Definitions pass through whole: `execution` (unknown to rmcp's typed Tool) survives.
    let echo = tools
        .iter()
        .find(|t| t["name"] == "everything__echo")
        .unwrap();
    assert_eq!(echo["execution"], json!({"taskSupport": "forbidden"}));
    assert_eq!(echo["title"], "Echo Tool");
    // A name two servers share is prefixed with each server's name, and routed by it.
    assert!(!names.contains(&"echo"));
    let echoed = client.call("raw__echo", json!({"say": "hi"}));
    assert_eq!(
        serde_json::from_str::<Json>(text(&echoed)).unwrap(),
        json!({"say": "hi"})
    );
    let echoed = client.call("everything__echo", json!({"message": "hi"}));
    assert!(text(&echoed).contains("hi"), "{echoed}");

    // A real call: memory create_entities then read_graph.
    let entities = json!([
        {"name": "Ada", "entityType": "person", "observations": ["wrote the first program", "born 1815"]},
        {"name": "Analytical Engine", "entityType": "machine", "observations": ["designed by Babbage"]},
        {"name": "Charles", "entityType": "person", "observations": ["designed the engine"]}
    ]);
    let created = client.call("create_entities", json!({"entities": entities}));
    assert_ne!(created["isError"], true, "{created}");
    let graph = client.call("read_graph", json!({}));
    // Converted (to whichever of TOON and compact JSON costs fewer tokens), and cheaper.
    let conversion = &graph["_meta"]["rs.toon-codec/conversion"];
    assert!(
        conversion["tokensAfter"].as_u64() < conversion["tokensBefore"].as_u64(),
        "{graph}"
    );
    // What the server sent: the same calls on a second memory server, asked directly.
    let direct = direct_memory_graph(&scratch.0, &entities);
    assert_eq!(decoded(&graph), direct);
    assert!(text(&graph).len() < serde_json::to_string_pretty(&direct).unwrap().len());

    // The crate's own rmcp server: a JSON array result becomes a TOON table.
    for (title, tag) in [("milk", "shop"), ("bread", "shop"), ("call Bob", "home")] {
        let r = client.call(
            "add_note",
            json!({"title": title, "body": format!("remember {title}"), "tags": [tag]}),
        );
        assert!(text(&r).starts_with("added note"), "{r}");
    }
    let listed = client.call("list_notes", json!({"tag": "shop"}));
    assert_eq!(decoded(&listed).as_array().unwrap().len(), 2, "{listed}");

    // Python servers: time.
    let now = client.call("get_current_time", json!({"timezone": "UTC"}));
    assert!(text(&now).contains("UTC"), "{now}");

    // An error from a server reaches the client as the server wrote it.
    let bad = client.call("read_text_file", json!({"path": "/etc/passwd"}));
    assert_eq!(bad["isError"], true, "{bad}");

    // Unknown fields in a result and in its content block survive; the server's _meta stays.
    let report = client.call("report", json!({"rows": 6}));
    assert_eq!(report["x-vendor"], json!({"kept": true}), "{report}");
    assert_eq!(report["content"][0]["x-block"], json!([1, 2]), "{report}");
    assert_eq!(report["_meta"]["example.com/trace"], "abc", "{report}");
    assert_eq!(decoded(&report).as_array().unwrap().len(), 6);
    // Uniform rows: a TOON table.
    assert_eq!(
        report["content"][0]["_meta"]["rs.toon-codec/conversion"]["format"],
        "toon"
    );
    assert!(text(&report).starts_with("[6]{id,name,ok}:"), "{report}");
    let raw_tool = tools.iter().find(|t| t["name"] == "report").unwrap();
    assert_eq!(
        raw_tool["x-vendor"],
        json!({"tier": "gold", "since": "2026-11"})
    );
    assert_eq!(raw_tool["execution"], json!({"taskSupport": "optional"}));
    assert_eq!(raw_tool["_meta"]["example.com/owner"], "qa");

    // Unknown tool: a JSON-RPC error naming it.
    let r = client.request(
        "tools/call",
        json!({"name": "no_such_tool", "arguments": {}}),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no_such_tool")
    );

    let stderr = client.stderr_with(&["[filesystem] "]);
    assert!(
        stderr.contains("[filesystem] "),
        "server stderr is labelled: {stderr}"
    );
    client.close();
}

#[test]
fn structured_drop_adds_no_second_copy_of_what_the_text_carries() {
    // The memory server sends its data twice: as pretty JSON text, and as structured content
    // that wraps it (`{"entities": [...]}`) or is the same object (`read_graph`). With
    // `--structured drop` the text block is the one copy the model reads.
    let scratch = Scratch::new("structured-memory");
    let Some(config) = config(&scratch.0, &["memory"]) else {
        return;
    };
    let mut client = Client::start(&config, &["--structured", "drop"]);
    client.initialize("2025-06-18");
    let entities = json!([
        {"name": "Ada", "entityType": "person", "observations": ["wrote the first program", "born 1815"]},
        {"name": "Analytical Engine", "entityType": "machine", "observations": ["designed by Babbage"]},
        {"name": "Charles", "entityType": "person", "observations": ["designed the engine"]}
    ]);
    let relations = json!([
        {"from": "Ada", "to": "Analytical Engine", "relationType": "programmed"},
        {"from": "Charles", "to": "Analytical Engine", "relationType": "designed"}
    ]);
    let calls = [
        (
            "create_entities",
            json!({"entities": entities}),
            Some(&entities),
        ),
        (
            "create_relations",
            json!({"relations": relations}),
            Some(&relations),
        ),
        ("search_nodes", json!({"query": "person"}), None),
        ("read_graph", json!({}), None),
    ];
    for (tool, arguments, sent) in calls {
        let result = client.call(tool, arguments);
        assert!(
            result.get("structuredContent").is_none(),
            "{tool}: {result}"
        );
        assert_eq!(
            result["content"].as_array().map(Vec::len),
            Some(1),
            "{tool}: {result}"
        );
        if let Some(sent) = sent {
            assert_eq!(&decoded(&result), sent, "{tool}");
        }
    }
    let graph = decoded(&client.call("read_graph", json!({})));
    assert_eq!(graph["entities"], entities);
    assert_eq!(graph["relations"], relations);
    client.close();
}

/// read_graph of a fresh memory server after `create_entities(entities)`, asked directly
/// through the library's own client (no proxy, no conversion).
fn direct_memory_graph(scratch: &Path, entities: &Json) -> Json {
    use toon::mcp::proxy::{Config, Upstream};
    let servers = servers_dir().unwrap();
    let direct = scratch.join("direct");
    std::fs::create_dir_all(&direct).unwrap();
    let text = json!({"mcpServers": {"memory": entry(servers, &direct, "memory")}}).to_string();
    let config = Config::from_str(&text).unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let (tx, _rx) = tokio::sync::mpsc::channel(16);
        let server = Upstream::start(&config.servers[0], WAIT, tx).await.unwrap();
        let server = &server;
        let call = |name: &str, args: Json| {
            let params = json!({"name": name, "arguments": args}).to_string();
            async move { server.request("tools/call", Some(&params), WAIT).await }
        };
        call("create_entities", json!({"entities": entities}))
            .await
            .unwrap();
        let reply = call("read_graph", json!({})).await.unwrap();
        let graph: Json = serde_json::from_str(reply.result().unwrap()).unwrap();
        server.shutdown().await;
        serde_json::from_str(graph["content"][0]["text"].as_str().unwrap()).unwrap()
    })
}

#[test]
fn lean_mode_offers_three_meta_tools_that_reach_every_server() {
    let scratch = Scratch::new("lean");
    let Some(config) = config(&scratch.0, &["memory", "time", "git", "missing"]) else {
        return;
    };
    let mut client = Client::start(&config, &["--mode", "lean"]);
    let init = client.initialize("2025-11-25");
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    let tools = client.tools();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["discover_tools", "get_tool_spec", "execute_tool"]);
    let description = tools[0]["description"].as_str().unwrap();
    assert!(description.contains("memory (9)"), "{description}");
    assert!(
        description.contains("missing (unavailable)"),
        "{description}"
    );

    let found = client.call("discover_tools", json!({"query": "current time timezone"}));
    assert!(text(&found).contains("get_current_time"), "{found}");
    let spec = client.call("get_tool_spec", json!({"name": "create_entities"}));
    assert!(text(&spec).contains("entityType"), "{spec}");

    let created = client.call(
        "execute_tool",
        json!({"name": "create_entities", "arguments": {"entities": [
            {"name": "Lin", "entityType": "person", "observations": ["likes tea"]}]}}),
    );
    assert_ne!(created["isError"], true, "{created}");
    let graph = client.call(
        "execute_tool",
        json!({"name": "read_graph", "arguments": {}}),
    );
    assert_eq!(decoded(&graph)["entities"][0]["name"], "Lin", "{graph}");

    // Invalid arguments: a clear error listing what is wrong, and the signature.
    let bad = client.call(
        "execute_tool",
        json!({"name": "create_entities", "arguments": {"entities": [{"name": 5}]}}),
    );
    assert_eq!(bad["isError"], true);
    let message = text(&bad);
    assert!(message.contains("invalid arguments"), "{message}");
    assert!(message.contains("entityType"), "{message}");

    // The server that does not exist is reported, and does not stop the others.
    let down = client.call("discover_tools", json!({}));
    assert!(text(&down).contains("unavailable"), "{down}");
    let missing = "[missing] unavailable: cannot run";
    let stderr = client.stderr_with(&[missing]);
    assert!(stderr.contains(missing), "{stderr}");
    client.close();
}

#[test]
fn compact_mode_lists_every_tool_cut_and_checks_arguments_before_the_call() {
    let scratch = Scratch::new("compact");
    let Some(config) = config(&scratch.0, &["memory", "time", "git"]) else {
        return;
    };
    let mut client = Client::start(&config, &["--mode", "compact"]);
    client.initialize("2025-11-25");
    let tools = client.tools();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    for name in [
        "create_entities",
        "read_graph",
        "get_current_time",
        "git_status",
        "get_tool_spec",
    ] {
        assert!(names.contains(&name), "{name} not in {names:?}");
    }
    let create = tools
        .iter()
        .find(|t| t["name"] == "create_entities")
        .unwrap();
    assert_eq!(create["inputSchema"], json!({"type": "object"}), "{create}");
    let description = create["description"].as_str().unwrap();
    assert!(
        description.ends_with(" — entities:{name,entityType,observations:string[]}[]"),
        "{description}"
    );
    assert!(create.get("outputSchema").is_none(), "{create}");

    // The full definition on demand.
    let spec = client.call("get_tool_spec", json!({"name": "create_entities"}));
    assert!(text(&spec).contains("The name of the entity"), "{spec}");

    // Invalid arguments are answered at once, with every problem and the full definition;
    // the server never sees the call (the graph stays empty).
    let bad = client.call("create_entities", json!({"entities": [{"name": 5}]}));
    assert_eq!(bad["isError"], true, "{bad}");
    let message = text(&bad);
    for part in [
        "invalid arguments",
        "entities[0].name",
        "entityType",
        "full definition:",
    ] {
        assert!(message.contains(part), "{part} not in {message}");
    }
    let empty = client.call("read_graph", json!({}));
    assert_eq!(decoded(&empty)["entities"], json!([]), "{empty}");
    // `"arguments": null` is no arguments: what is missing is said as for `{}`.
    let none = client.call("create_entities", Json::Null);
    assert!(text(&none).contains("missing required field"), "{none}");
    // What a lenient server reads is its to judge: the Python server takes "2" for an int.
    let repo = scratch.0.join("repo");
    let lax = client.call(
        "git_diff_unstaged",
        json!({"repo_path": repo, "context_lines": "2"}),
    );
    assert_ne!(lax["isError"], true, "{lax}");
    assert!(text(&lax).contains("Unstaged changes"), "{lax}");

    // Fixed, the call runs on its server and its result is what passthrough gives.
    let entities = json!([{"name": "Lin", "entityType": "person", "observations": ["likes tea"]}]);
    let created = client.call("create_entities", json!({ "entities": entities }));
    assert_ne!(created["isError"], true, "{created}");
    let graph = client.call("read_graph", json!({}));
    assert_eq!(
        decoded(&graph),
        direct_memory_graph(&scratch.0, &entities),
        "{graph}"
    );
    let time = client.call("get_current_time", json!({"timezone": "UTC"}));
    assert!(text(&time).contains("UTC"), "{time}");
    client.close();
}

#[test]
fn each_server_is_shown_in_the_mode_its_entry_says_and_inspect_prices_them() {
    let scratch = Scratch::new("modes");
    let servers = [
        ("memory", Some("compact")),
        ("time", Some("lean")),
        ("git", None),
    ];
    let Some(config) = config_with_modes(&scratch.0, &servers) else {
        return;
    };
    let mut client = Client::start(&config, &[]);
    client.initialize("2025-11-25");
    let tools = client.tools();
    let find = |name: &str| tools.iter().find(|t| t["name"] == name).cloned();
    // memory cut, git whole (the command line's passthrough), time behind the meta-tools.
    let create = find("create_entities").unwrap();
    assert_eq!(create["inputSchema"], json!({"type": "object"}), "{create}");
    let status = find("git_status").unwrap();
    assert!(
        status["inputSchema"]["properties"]["repo_path"].is_object(),
        "{status}"
    );
    assert!(find("get_current_time").is_none(), "{tools:?}");
    for name in ["discover_tools", "get_tool_spec", "execute_tool"] {
        assert!(find(name).is_some(), "{name} not listed: {tools:?}");
    }
    let legend = find("get_tool_spec").unwrap()["description"].to_string();
    assert!(
        legend.contains("end in —"),
        "compact signatures need the legend: {legend}"
    );

    // A compact tool is checked; a lean one is reached through execute_tool only.
    let bad = client.call("create_entities", json!({"entities": [{"name": 5}]}));
    assert!(text(&bad).contains("full definition:"), "{bad}");
    let direct = client.request(
        "tools/call",
        json!({"name": "get_current_time", "arguments": {"timezone": "UTC"}}),
    );
    assert!(
        direct["error"]["message"]
            .to_string()
            .contains("execute_tool"),
        "{direct}"
    );
    let run = client.call(
        "execute_tool",
        json!({"name": "get_current_time", "arguments": {"timezone": "UTC"}}),
    );
    assert!(text(&run).contains("UTC"), "{run}");
    let spec = client.call("get_tool_spec", json!({"name": "get_current_time"}));
    assert!(text(&spec).contains("timezone"), "{spec}");
    let found = client.call("discover_tools", json!({"query": "current time"}));
    assert!(text(&found).contains("get_current_time"), "{found}");
    // The meta-tools reach the lean server's tools only: the others are listed already.
    let every = client.call("discover_tools", json!({"query": "*"}));
    let every = text(&every);
    assert!(
        every.contains("convert_time") && !every.contains("git_status"),
        "{every}"
    );
    let listed = client.call(
        "execute_tool",
        json!({"name": "git_status", "arguments": {"repo_path": "."}}),
    );
    assert_eq!(listed["isError"], true, "{listed}");
    client.close();

    let out = Command::new(env!("CARGO_BIN_EXE_toon"))
        .args(["mcp", "inspect", "--mode", "lean", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    let report = String::from_utf8(out.stdout).unwrap();
    let mode_of = |server: &str| {
        let line = report.lines().find(|l| l.starts_with(server)).unwrap();
        line.split_whitespace().nth(6).unwrap().to_owned()
    };
    // git says nothing: the command line's mode, here lean.
    assert_eq!(
        [mode_of("memory"), mode_of("time"), mode_of("git")],
        ["compact", "lean", "lean"],
        "{report}"
    );
    assert!(
        report.contains("as configured (each server's mode)"),
        "{report}"
    );
}

#[test]
fn a_killed_server_fails_fast_and_the_others_keep_working() {
    let scratch = Scratch::new("killed");
    let Some(config) = config(&scratch.0, &["memory", "time", "notes"]) else {
        return;
    };
    let mut client = Client::start(&config, &["--request-timeout", "2"]);
    client.initialize("2025-11-25");
    assert!(client.tools().len() >= 12);

    // Per-request timeout: a call slower than it fails in about that time, with a clear error.
    let started = Instant::now();
    let slow = client.call("wait", json!({"millis": 20000}));
    let took = started.elapsed();
    assert_eq!(slow["isError"], true, "{slow}");
    assert!(
        text(&slow).contains("did not answer tools/call within 2.0 s"),
        "{slow}"
    );
    assert!(took < Duration::from_secs(10), "{took:?}");
    let quick = client.call("wait", json!({"millis": 1}));
    assert_eq!(text(&quick), "waited 1 ms");

    let memory: Vec<u32> = descendants(client.child.id())
        .into_iter()
        .filter(|p| cmdline(*p).contains("server-memory"))
        .collect();
    assert_eq!(memory.len(), 1, "one memory server process");
    Command::new("kill")
        .arg("-9")
        .arg(memory[0].to_string())
        .status()
        .unwrap();

    // The proxy notices, tells the client its tools changed, and fails the server's calls at once.
    let started = Instant::now();
    let mut gone = client.call("read_graph", json!({}));
    while gone["isError"] != true && started.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
        gone = client.call("read_graph", json!({}));
    }
    assert_eq!(gone["isError"], true, "{gone}");
    let message = text(&gone).to_owned();
    assert!(message.contains("memory"), "{message}");
    assert!(started.elapsed() < Duration::from_secs(5));

    let now = client.call("get_current_time", json!({"timezone": "UTC"}));
    assert!(text(&now).contains("UTC"), "{now}");
    let notes = client.call("add_note", json!({"title": "t", "body": "b"}));
    assert_eq!(text(&notes), "added note 1");
    // Its tools are gone from the listing, and the client was told.
    let tools = client.tools();
    assert!(!tools.iter().any(|t| t["name"] == "read_graph"));
    assert!(
        client
            .notifications
            .iter()
            .any(|n| n["method"] == "notifications/tools/list_changed")
    );
    client.close();
}

#[test]
fn exits_cleanly_leaving_no_process_behind() {
    let scratch = Scratch::new("exit");
    let names = ["everything", "filesystem", "memory", "time", "git"];
    let Some(config) = config(&scratch.0, &names) else {
        return;
    };
    let mut client = Client::start(&config, &[]);
    client.initialize("2025-11-25");
    client.tools();
    let children = descendants(client.child.id());
    assert!(children.len() >= 5, "{children:?}");
    let took = client.close();
    assert!(took < Duration::from_secs(10), "{took:?}");
    std::thread::sleep(Duration::from_millis(200));
    let left: Vec<String> = children
        .iter()
        .filter(|p| alive(**p))
        .map(|p| cmdline(*p))
        .collect();
    assert!(left.is_empty(), "orphans: {left:?}");
}

#[test]
fn protocol_details_ping_errors_cancellation_and_structured_drop() {
    let scratch = Scratch::new("protocol");
    let Some(config) = config(&scratch.0, &["everything", "notes"]) else {
        return;
    };
    let mut client = Client::start(&config, &["--structured", "drop", "--min-size", "1"]);
    // A version the proxy does not know: it answers with its own.
    let init = client.initialize("2099-01-01");
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(client.request("ping", json!({}))["result"], json!({}));
    let r = client.request("nothing/here", json!({}));
    assert_eq!(r["error"]["code"], -32601);

    // Garbage on stdin: a parse error, and the session goes on.
    client.send_line("this is not json");
    let r = client.next_response(WAIT);
    assert_eq!(r["error"]["code"], -32700, "{r}");
    assert_eq!(client.request("ping", json!({}))["result"], json!({}));

    // --structured drop: no outputSchema in the listing, no structuredContent in results.
    let tools = client.tools();
    let structured = tools
        .iter()
        .find(|t| t["name"] == "get-structured-content")
        .unwrap();
    assert!(structured.get("outputSchema").is_none(), "{structured}");
    let r = client.call("get-structured-content", json!({"location": "New York"}));
    assert!(r.get("structuredContent").is_none(), "{r}");
    assert!(!r["content"].as_array().unwrap().is_empty());

    // Cancellation: the cancelled call gets no answer; the next one does.
    client.send(&json!({"jsonrpc": "2.0", "id": 900, "method": "tools/call",
                        "params": {"name": "wait", "arguments": {"millis": 3000}}}));
    std::thread::sleep(Duration::from_millis(300));
    client.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 900, "reason": "user"}}),
    );
    let r = client.call("wait", json!({"millis": 1}));
    assert_eq!(text(&r), "waited 1 ms");
    std::thread::sleep(Duration::from_millis(3500));
    assert_eq!(client.request("ping", json!({}))["id"], client.next_id - 1);
    client.close();
}

#[test]
fn inspect_prints_costs_per_server_and_mode() {
    let scratch = Scratch::new("inspect");
    let Some(config) = config(&scratch.0, &["everything", "memory", "time", "missing"]) else {
        return;
    };
    let out = Command::new(env!("CARGO_BIN_EXE_toon"))
        .args(["mcp", "inspect", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = String::from_utf8(out.stdout).unwrap();
    for expected in [
        "everything",
        "memory",
        "time",
        "missing",
        "unavailable",
        "--mode lean",
        "view: full",
        "total",
    ] {
        assert!(report.contains(expected), "{expected} missing:\n{report}");
    }
    let lean: f64 = report
        .lines()
        .find(|l| l.starts_with("toon mcp serve --mode lean"))
        .and_then(|l| l.split_whitespace().last())
        .and_then(|r| r.trim_end_matches('×').parse().ok())
        .unwrap();
    assert!(lean < 0.06, "{report}");
}

#[test]
fn servers_start_in_parallel_and_a_slow_one_times_out_alone() {
    if servers_dir().is_none() {
        return;
    }
    let scratch = Scratch::new("startup");
    let raw = mcp_servers::root().join("tests/fixtures/mcp/servers/raw_server.py");
    // Five servers that each take 1 s to start (sleeping, so the machine's cores do not
    // matter), and one that takes 30 s.
    let mut servers = serde_json::Map::new();
    for i in 0..5 {
        servers.insert(
            format!("s{i}"),
            json!({"command": "sh", "args": ["-c", format!("sleep 1; exec python3 {}", raw.display())]}),
        );
    }
    servers.insert(
        "sleepy".into(),
        json!({"command": "sh", "args": ["-c", format!("sleep 30; exec python3 {}", raw.display())]}),
    );
    let path = scratch.0.join("mcp.json");
    std::fs::write(&path, json!({ "mcpServers": servers }).to_string()).unwrap();

    let started = Instant::now();
    let mut client = Client::start(&path, &["--startup-timeout", "3"]);
    client.initialize("2025-11-25");
    let tools = client.tools();
    let took = started.elapsed();
    // 1 s each in parallel, bounded by the 3 s timeout of the slow one: not 5 s + 30 s.
    assert!(took < Duration::from_secs(6), "{took:?}");
    assert_eq!(tools.len(), 10, "two tools from each of the five");
    let sleepy = "[sleepy] unavailable: did not finish starting within 3.0 s";
    let stderr = client.stderr_with(&[sleepy]);
    assert!(stderr.contains(sleepy), "{stderr}");
    let r = client.call("s3__report", json!({"rows": 2}));
    assert_eq!(r["x-vendor"], json!({"kept": true}));
    client.close();
}

/// The arguments of the fidelity test: digits no double carries, a lone surrogate.
const WILD_ARGUMENTS: &str = r#"{"n":1234567890123456789012,"d":0.1000000000000000055511151231257827,"m":-9223372036854775809,"e":1E2,"s":"\ud83d"}"#;

#[test]
fn replies_are_forwarded_exactly_or_answered_at_once() {
    let scratch = Scratch::new("wild");
    let Some(config) = config(&scratch.0, &["wild"]) else {
        return;
    };
    let mut client = Client::start(&config, &["--request-timeout", "40"]);
    client.initialize("2025-11-25");
    assert_eq!(client.tools().len(), 12);

    // The client's id and the tool's arguments reach the server byte for byte, and the id
    // comes back as the client wrote it.
    let id = "123456789012345678901234567890";
    client.send_line(&format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo_request","arguments":{WILD_ARGUMENTS},"_meta":{{"progressToken":98765432109876543210}}}}}}"#
    ));
    let r = client.next_response(WAIT);
    assert!(
        client.last_raw.contains(&format!(r#""id":{id},"#)),
        "{}",
        client.last_raw
    );
    let seen = text(&r["result"]).to_owned();
    assert!(
        seen.contains(&format!(r#""arguments":{WILD_ARGUMENTS}"#)),
        "{seen}"
    );
    assert!(
        seen.contains(r#""progressToken":98765432109876543210"#),
        "{seen}"
    );

    // structuredContent as the server wrote it; the converted text keeps every digit (TOON
    // writes 1234567890123456789012 as JavaScript does, 1.234567890123456789012e+21).
    let r = client.call("exact", json!({}));
    let raw = client.last_raw.clone();
    assert!(
        raw.contains(r#""structuredContent":{"rows":[{"big":1234567890123456789012,"neg":-9223372036854775809,"frac":0.1000000000000000055511151231257827,"exp":3e53,"E":1E2},"#),
        "{raw}"
    );
    let converted = text(&r);
    for digits in [
        ["1234567890123456789012", "1.234567890123456789012e+21"],
        ["-9223372036854775809"; 2],
        ["0.1000000000000000055511151231257827"; 2],
    ] {
        assert!(
            digits.iter().any(|d| converted.contains(d)),
            "{digits:?} lost: {converted}"
        );
    }

    // Text `Value` cannot hold is forwarded as sent, at once.
    for (tool, kept) in [
        (
            "surrogate",
            r#""structuredContent":{"s":"\ud83d"}"#.to_owned(),
        ),
        (
            "deep",
            format!(
                r#""structuredContent":{{"d":{}1{}}}"#,
                "[".repeat(130),
                "]".repeat(130)
            ),
        ),
        ("infinite", r#""structuredContent":{"n":1e400}"#.to_owned()),
    ] {
        let started = Instant::now();
        let r = client.request("tools/call", json!({"name": tool, "arguments": {}}));
        assert!(started.elapsed() < Duration::from_secs(20), "{tool} waited");
        assert!(r.get("error").is_none(), "{tool}: {r}");
        assert!(
            client.last_raw.contains(&kept),
            "{tool}: {}",
            client.last_raw
        );
    }

    // A reply that is not JSON, or too long to pass on, is answered at once with an error
    // that says why, instead of waiting out the request timeout.
    for (tool, says) in [("nan", "not JSON"), ("huge", "16 MiB")] {
        let started = Instant::now();
        let r = client.request("tools/call", json!({"name": tool, "arguments": {}}));
        assert!(started.elapsed() < Duration::from_secs(20), "{tool} waited");
        let message = r["error"]["message"]
            .as_str()
            .unwrap_or_else(|| panic!("{r}"));
        assert!(message.contains(says), "{tool}: {message}");
    }

    // Progress for a token the client never gave is not forwarded.
    let r = client.call("flood", json!({}));
    assert_eq!(text(&r), "flooded");
    let stray = client
        .notifications
        .iter()
        .filter(|n| n["params"]["progressToken"] == "nobody-asked")
        .count();
    assert_eq!(stray, 0);
    assert_eq!(client.request("ping", json!({}))["result"], json!({}));
    client.close();
}

/// No serde_json feature keeps key order or float digits in this build (`tests/repo/features.rs`):
/// what the proxy forwards, converts and writes itself keeps them all the same.
#[test]
fn key_order_and_float_digits_survive_the_proxy_in_both_modes() {
    let scratch = Scratch::new("ordered");
    let Some(config) = config(&scratch.0, &["wild"]) else {
        return;
    };
    const ORDERED: &str = r#"{"name":"ordered","description":"Keys out of order, floats as sent","inputSchema":{"type":"object","properties":{"zeta":{"type":"number","default":0.30000000000000004},"alpha":{"type":"number","minimum":2.9168327507216497e-10}},"required":["zeta","alpha"]}}"#;
    let mut client = Client::start(&config, &[]);
    client.initialize("2025-11-25");
    // The proxy's own answer, its keys in the order it always wrote them.
    assert!(
        client.last_raw.contains(
            r#""result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"toon-mcp-proxy","title":"TOON proxy","version":"#
        ),
        "{}",
        client.last_raw
    );
    // Passthrough: the definition as the server sent it.
    client.tools();
    assert!(client.last_raw.contains(ORDERED), "{}", client.last_raw);
    // The converted block keeps the keys' order and every float's digits; structuredContent
    // is as sent.
    let r = client.call("ordered", json!({}));
    let raw = client.last_raw.clone();
    assert!(
        raw.contains(r#""structuredContent":{"zeta":0.30000000000000004,"alpha":2.9168327507216497e-10,"big":12345678901234567890123}"#),
        "{raw}"
    );
    let converted = text(&r);
    assert!(
        converted.starts_with("[12]{zeta,alpha,mid,big,inf}:\n  0.30000000000000004,2.9168327507216497e-10,0,1.2345678901234567890123e+22,1e+400\n"),
        "{converted}"
    );
    client.close();

    let mut client = Client::start(&config, &["--mode", "lean"]);
    client.initialize("2025-11-25");
    client.tools();
    assert!(
        client
            .last_raw
            .contains(r#""result":{"tools":[{"name":"discover_tools","description":"#),
        "{}",
        client.last_raw
    );
    // The definition read into a value: keys in order, floats their nearest `f64`.
    let spec = client.call("get_tool_spec", json!({"name": "ordered"}));
    let spec = text(&spec);
    let (zeta, alpha) = (spec.find("zeta").unwrap(), spec.find("alpha").unwrap());
    assert!(zeta < alpha, "{spec}");
    for digits in ["0.30000000000000004", "2.9168327507216497e-10"] {
        assert!(spec.contains(digits), "{digits}: {spec}");
    }
    // Invalid arguments are listed in the order the model sent them.
    client.send_line(
        r#"{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"execute_tool","arguments":{"name":"ordered","arguments":{"zeta":"x","alpha":"y"}}}}"#,
    );
    let bad = client.next_response(WAIT);
    let message = text(&bad["result"]);
    let (zeta, alpha) = (
        message.find("zeta:").unwrap(),
        message.find("alpha:").unwrap(),
    );
    assert!(zeta < alpha, "{message}");
    assert!(
        client
            .last_raw
            .contains(r#""result":{"content":[{"type":"text","text":"ordered: invalid arguments:"#),
        "{}",
        client.last_raw
    );
    client.close();
}

#[test]
fn lean_pages_come_from_one_run_of_the_tool() {
    let scratch = Scratch::new("pages");
    let Some(config) = config(&scratch.0, &["wild"]) else {
        return;
    };
    let mut client = Client::start(&config, &["--mode", "lean"]);
    client.initialize("2025-11-25");
    let cursor_in = |result: &Json| -> Option<String> {
        let all: String = result["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n");
        all.split("cursor ")
            .nth(1)
            .map(|rest| rest.chars().take_while(char::is_ascii_hexdigit).collect())
    };
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    for page in 0..5 {
        let mut args = json!({"name": "counter", "arguments": {}, "limit": 2});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let r = client.call("execute_tool", args);
        assert_ne!(r["isError"], true, "page {page}: {r}");
        let body = text(&r);
        for i in 0..6 {
            for run in 1..4 {
                if body.contains(&format!("run{run}-item{i}")) {
                    seen.push(format!("run{run}-item{i}"));
                }
            }
        }
        cursor = cursor_in(&r);
        if cursor.is_none() {
            break;
        }
    }
    let want: Vec<String> = (0..6).map(|i| format!("run1-item{i}")).collect();
    assert_eq!(seen, want, "pages must come from the first run only");
    // The tool ran once for three pages: the next run is the second.
    let r = client.call("execute_tool", json!({"name": "counter", "arguments": {}}));
    assert!(text(&r).contains("run2-item0"), "{r}");
    // A cursor for other arguments, or a made-up one, is refused with a reason.
    let r = client.call(
        "execute_tool",
        json!({"name": "counter", "arguments": {}, "cursor": "00"}),
    );
    assert_eq!(r["isError"], true, "{r}");
    // Arguments a strict reader refuses are validated as what they are and forwarded as sent.
    client.send_line(
        r#"{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"execute_tool","arguments":{"name":"echo_request","arguments":{"a":1e400,"s":"\ud83d"}}}}"#,
    );
    let r = client.next_response(WAIT);
    assert_ne!(r["result"]["isError"], true, "{r}");
    assert!(
        text(&r["result"]).contains(r#""arguments":{"a":1e400,"s":"\ud83d"}"#),
        "{r}"
    );
    client.close();
}

#[test]
fn a_file_read_through_the_proxy_is_the_files_text_so_an_edit_from_it_succeeds() {
    let scratch = Scratch::new("verbatim");
    let Some(config) = config(&scratch.0, &["filesystem"]) else {
        return;
    };
    // Pretty-printed JSON rows: what the encoder would turn into a TOON table.
    let rows: Vec<Json> = (0..12)
        .map(|i| json!({"id": i, "name": format!("row {i}"), "ok": i % 2 == 0}))
        .collect();
    let path = scratch.0.join("files/data.json");
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&json!({"rows": rows})).unwrap(),
    )
    .unwrap();
    let path_arg = path.to_str().unwrap();

    let mut client = Client::start(&config, &[]);
    client.initialize("2025-11-25");
    let read = client.call("read_text_file", json!({"path": path_arg}));
    assert_ne!(read["isError"], true, "{read}");
    let seen = text(&read).to_owned();
    assert_eq!(seen, std::fs::read_to_string(&path).unwrap(), "{read}");
    assert!(
        read["_meta"].get("rs.toon-codec/conversion").is_none(),
        "{read}"
    );

    // The model copies lines of what it saw as oldText.
    let old: String = seen.lines().skip(7).take(3).collect::<Vec<_>>().join("\n");
    assert!(old.contains("row 1"), "{old}");
    let edited = client.call(
        "edit_file",
        json!({"path": path_arg, "edits": [{"oldText": old, "newText": old.replace("row", "ROW")}]}),
    );
    assert_ne!(edited["isError"], true, "{edited}");
    let again = client.call("read_text_file", json!({"path": path_arg}));
    let on_disk = std::fs::read_to_string(&path).unwrap();
    assert!(on_disk.contains("ROW 1"), "{on_disk}");
    assert_eq!(text(&again), on_disk);

    // A tool the rule calls content converts when configured to.
    drop(client);
    let mut client = Client::start(&config, &["--convert-tools", "read_text_file"]);
    client.initialize("2025-11-25");
    let converted = client.call("read_text_file", json!({"path": path_arg}));
    assert_eq!(
        decoded(&converted),
        serde_json::from_str::<Json>(&on_disk).unwrap()
    );
    assert_ne!(text(&converted), on_disk);
    client.close();
}

#[test]
fn every_tool_is_listed_once_under_its_own_name_and_reaches_its_own_server() {
    if servers_dir().is_none() {
        return;
    }
    let scratch = Scratch::new("listing");
    let server = mcp_servers::root().join("tests/fixtures/mcp/servers/listing_server.py");
    let entry = |name: &str, args: &[&str]| {
        let mut argv = vec![server.to_str().unwrap(), name];
        argv.extend(args);
        json!({"command": "python3", "args": argv})
    };
    // Two servers share `x`; a third has a tool named as the first's qualified `x` would be;
    // a fourth lists 150 pages (more than the proxy follows), with mistyped fields.
    let servers = json!({
        "a": entry("a", &["x", "y"]),
        "b": entry("b", &["x"]),
        "c": entry("c", &["a__x"]),
        "big": entry("big", &["--pages", "150"]),
    });
    let path = scratch.0.join("mcp.json");
    std::fs::write(&path, json!({ "mcpServers": servers }).to_string()).unwrap();

    let mut client = Client::start(&path, &[]);
    client.initialize("2025-11-25");
    let tools = client.tools();
    let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    let total = names.len();
    names.dedup();
    assert_eq!(names.len(), total, "every name once: {names:?}");
    // big's first 100 pages are kept, though its listing went on.
    assert_eq!(total, 4 + 100, "{names:?}");
    for (exposed, server, tool) in [
        ("a__x", "c", "a__x"),
        ("a__x_2", "a", "x"),
        ("b__x", "b", "x"),
        ("y", "a", "y"),
        ("p0", "big", "p0"),
        ("p99", "big", "p99"),
    ] {
        let reached = client.call(exposed, json!({}));
        assert_eq!(
            serde_json::from_str::<Json>(text(&reached)).unwrap(),
            json!({"server": server, "tool": tool}),
            "{exposed}"
        );
    }
    // The mistyped fields cost those fields only, and say so.
    let p0 = tools.iter().find(|t| t["name"] == "p0").unwrap();
    assert_eq!(p0["title"], 123, "the definition passes through as sent");
    let warnings = [
        r#"[big] tools/list: tool "p0": "readOnlyHint" is "true", not a boolean; ignored"#,
        r#"[big] tools/list: tool "p0": "title" is 123, not a string; ignored"#,
        "[big] tools/list: skipped a tool without a usable name",
        "[big] tools/list: stopped listing after 100 pages: the proxy's limit",
    ];
    let stderr = client.stderr_with(&warnings);
    for warning in warnings {
        assert!(stderr.contains(warning), "{warning} missing:\n{stderr}");
    }
    client.close();

    // inspect shows the same warnings, and what each tool's results get.
    let out = Command::new(env!("CARGO_BIN_EXE_toon"))
        .args(["mcp", "inspect", "--config"])
        .arg(&path)
        .output()
        .unwrap();
    let report = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{report}");
    assert!(
        report.contains("[big] stopped listing after 100 pages: the proxy's limit"),
        "{report}"
    );
    assert!(
        report.contains(r#"[big] tool "p0": "title" is 123"#),
        "{report}"
    );
    assert!(
        report
            .lines()
            .any(|l| l.starts_with("a__x_2 ") && l.contains("convert")),
        "{report}"
    );
}

/// An `mcpServers` entry running `tests/fixtures/mcp/servers/fake_server.py ARGS`.
fn fake(args: &[&str]) -> Json {
    let script = mcp_servers::root().join("tests/fixtures/mcp/servers/fake_server.py");
    let mut all = vec![script.to_str().unwrap().to_owned()];
    all.extend(args.iter().map(|a| (*a).to_owned()));
    json!({"command": "python3", "args": all})
}

/// Writes `{"mcpServers": servers}` to the scratch directory.
fn write_config(scratch: &Path, servers: Json) -> std::path::PathBuf {
    let path = scratch.join("mcp.json");
    std::fs::write(&path, json!({ "mcpServers": servers }).to_string()).unwrap();
    path
}

/// Whether `pid` is still alive after at most `within` (polled; a zombie counts as gone).
fn still_alive_after(pid: u32, within: Duration) -> bool {
    let started = Instant::now();
    while alive(pid) {
        if started.elapsed() > within {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[test]
fn a_client_that_never_reads_stderr_does_not_stall_the_proxy() {
    if servers_dir().is_none() {
        return;
    }
    let scratch = Scratch::new("flood");
    let raw = mcp_servers::root().join("tests/fixtures/mcp/servers/raw_server.py");
    // Two servers writing to stderr without pause: one blocked writer per runtime thread,
    // were writes to the proxy's stderr blocking.
    let path = write_config(
        &scratch.0,
        json!({
            "chatty1": fake(&["--flood"]),
            "chatty2": fake(&["--flood"]),
            "raw": {"command": "python3", "args": [raw]},
        }),
    );
    let mut client =
        mcp_servers::Client::proxy_unread_stderr(Path::new(env!("CARGO_BIN_EXE_toon")), &path, &[]);
    client.wait = Duration::from_secs(30);
    client.initialize("2025-11-25");
    assert_eq!(client.tools().len(), 2);
    for i in 0..20 {
        let echoed = client.call("echo", json!({"i": i}));
        assert_eq!(
            serde_json::from_str::<Json>(text(&echoed)).unwrap(),
            json!({"i": i})
        );
    }
    let took = client.close();
    assert!(took < Duration::from_secs(15), "{took:?}");
}

/// Starts `fake_server.py --grandchild` behind the proxy; returns the client and the
/// grandchild's pid, alive.
fn family(scratch: &Scratch) -> (mcp_servers::Client, u32) {
    let pidfile = scratch.0.join("grandchild.pid");
    let path = write_config(
        &scratch.0,
        json!({"family": fake(&["--grandchild", pidfile.to_str().unwrap()])}),
    );
    let mut client = Client::start(&path, &[]);
    client.initialize("2025-11-25");
    let r = client.call("grandchild", json!({}));
    let pid = serde_json::from_str::<Json>(text(&r)).unwrap()["pid"]
        .as_u64()
        .unwrap();
    let pid = u32::try_from(pid).unwrap();
    assert!(alive(pid), "{}", cmdline(pid));
    (client, pid)
}

#[test]
fn a_server_s_children_go_with_it_when_the_client_closes_stdin() {
    if servers_dir().is_none() {
        return;
    }
    let scratch = Scratch::new("family-eof");
    let (client, grandchild) = family(&scratch);
    let took = client.close();
    assert!(took < Duration::from_secs(15), "{took:?}");
    assert!(
        !still_alive_after(grandchild, Duration::from_secs(5)),
        "orphan: {}",
        cmdline(grandchild)
    );
}

#[test]
fn a_server_s_children_go_with_it_when_the_proxy_gets_sigterm_or_sigint() {
    if servers_dir().is_none() {
        return;
    }
    for signal in ["-TERM", "-INT"] {
        let scratch = Scratch::new(&format!("family{signal}"));
        let (mut client, grandchild) = family(&scratch);
        let ok = Command::new("kill")
            .args([signal, &client.child.id().to_string()])
            .status()
            .unwrap();
        assert!(ok.success());
        let started = Instant::now();
        while client.child.try_wait().unwrap().is_none() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "the proxy did not exit on {signal}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            !still_alive_after(grandchild, Duration::from_secs(5)),
            "orphan after {signal}: {}",
            cmdline(grandchild)
        );
    }
}

#[test]
fn a_server_still_starting_is_stopped_when_the_proxy_gets_sigterm() {
    let scratch = Scratch::new("stuck-stdio");
    let stuck = mcp_servers::stuck_starting(&scratch.0);
    let path = write_config(&scratch.0, json!({ "stuck": stuck }));
    let mut client = Client::start(&path, &["--startup-timeout", "120"]);
    // Its initialize makes the proxy start the server, which never answers its own.
    client.send(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "e2e", "version": "0"}}}),
    );
    let pid = mcp_servers::stuck_pid(&scratch.0);
    mcp_servers::signal_and_wait(&mut client.child, "-TERM");
    assert!(
        !still_alive_after(pid, Duration::from_secs(2)),
        "the server outlived the proxy: {}",
        cmdline(pid)
    );
    // Stopped by the proxy as a server is, SIGTERM first: not killed as its runtime went.
    assert!(
        scratch.0.join("term").exists(),
        "the server was never sent SIGTERM; stderr:\n{}",
        client.stderr()
    );
}

#[test]
fn a_server_that_dies_takes_its_children_and_says_how_it_died() {
    if servers_dir().is_none() {
        return;
    }
    let scratch = Scratch::new("family-dies");
    let (mut client, grandchild) = family(&scratch);
    let server: Vec<u32> = descendants(client.child.id())
        .into_iter()
        .filter(|p| cmdline(*p).contains("fake_server.py"))
        .collect();
    assert_eq!(server.len(), 1, "one fake server process");
    Command::new("kill")
        .args(["-9", &server[0].to_string()])
        .status()
        .unwrap();
    // With the proxy still running, the server's group is cleared.
    assert!(
        !still_alive_after(grandchild, Duration::from_secs(10)),
        "orphan: {}",
        cmdline(grandchild)
    );
    let started = Instant::now();
    let mut gone = client.call("grandchild", json!({}));
    while gone["isError"] != true && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
        gone = client.call("grandchild", json!({}));
    }
    let message = text(&gone);
    assert!(message.contains("killed by signal 9"), "{message}");
    client.close();
}

#[test]
fn start_up_failures_say_what_happened() {
    if servers_dir().is_none() {
        return;
    }
    use toon::mcp::proxy::{Config, Upstream};
    let scratch = Scratch::new("start-failures");
    let pidfile = scratch.0.join("grandchild.pid");
    let missing = scratch.0.join("no-such-dir");
    let mut cwd = fake(&[]);
    cwd["cwd"] = json!(missing);
    let text = json!({"mcpServers": {
        "cwd": cwd,
        "exits": fake(&["--grandchild", pidfile.to_str().unwrap(), "--exit-at-start", "7"]),
        "mute": fake(&["--close-stdout-at-start"]),
    }})
    .to_string();
    let config = Config::from_str(&text).unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let reasons: Vec<String> = rt.block_on(async {
        let mut reasons = Vec::new();
        for server in &config.servers {
            let (tx, _rx) = tokio::sync::mpsc::channel(16);
            reasons.push(
                Upstream::start(server, WAIT, tx)
                    .await
                    .unwrap_err()
                    .to_string(),
            );
        }
        reasons
    });
    assert_eq!(
        reasons,
        [
            format!("working directory {} does not exist", missing.display()),
            "exited with status 7 while starting".to_owned(),
            "closed its stdout while starting".to_owned(),
        ]
    );
    // The server that failed to start left nothing behind either.
    let grandchild: u32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        !still_alive_after(grandchild, Duration::from_secs(10)),
        "orphan: {}",
        cmdline(grandchild)
    );
}

#[test]
fn every_progress_notification_arrives_before_its_result() {
    let scratch = Scratch::new("progress");
    let Some(config) = config(&scratch.0, &["wild"]) else {
        return;
    };
    for mode in ["passthrough", "lean"] {
        let mut client = Client::start(&config, &["--mode", mode]);
        client.initialize("2025-11-25");
        // The server writes four progress notifications and the result at once: a race
        // between them shows within a few dozen calls.
        for call in 0..40 {
            let token = format!("t{call}");
            let (name, arguments) = if mode == "lean" {
                ("execute_tool", json!({"name": "progress", "arguments": {}}))
            } else {
                ("progress", json!({}))
            };
            client.notifications.clear();
            let r = client.request(
                "tools/call",
                json!({"name": name, "arguments": arguments, "_meta": {"progressToken": token}}),
            );
            assert!(r.get("result").is_some(), "{r}");
            let seen: Vec<i64> = client
                .notifications
                .iter()
                .filter(|n| n["params"]["progressToken"] == json!(token))
                .filter_map(|n| n["params"]["progress"].as_i64())
                .collect();
            assert_eq!(seen, [1, 2, 3, 4], "{mode}, call {call}");
        }
        client.close();
    }
}

#[test]
fn progress_keeps_a_working_tool_from_timing_out() {
    let scratch = Scratch::new("slow");
    let Some(config) = config(&scratch.0, &["wild"]) else {
        return;
    };
    // Three seconds of work against a one-second request timeout.
    let mut client = Client::start(&config, &["--request-timeout", "1"]);
    client.initialize("2025-11-25");
    let r = client.request(
        "tools/call",
        json!({"name": "slow_progress", "arguments": {}, "_meta": {"progressToken": "w"}}),
    );
    assert_eq!(text(&r["result"]), "worked", "{r}");
    // Without progress the timeout stands.
    let r = client.call("slow_progress", json!({}));
    assert_eq!(r["isError"], true, "{r}");
    assert!(
        text(&r).contains("did not answer tools/call within 1."),
        "{r}"
    );
    client.close();
}

#[test]
fn request_ids_in_use_are_refused_and_cancellation_matches_any_spelling() {
    let scratch = Scratch::new("ids");
    let Some(config) = config(&scratch.0, &["wild"]) else {
        return;
    };
    let mut client = Client::start(&config, &[]);
    client.initialize("2025-11-25");
    client.send_line(r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow_progress","arguments":{}}}"#);
    // The same id while the first is in progress: refused at once, the first unharmed.
    client.send_line(r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#);
    let r = client.next_response(WAIT);
    assert_eq!(r["id"], 5, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already in use"),
        "{r}"
    );
    // Cancelled under another spelling of the same id: no reply comes for it.
    client.send_line(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5.0}}"#,
    );
    std::thread::sleep(Duration::from_millis(3500));
    let r = client.request("ping", json!({}));
    assert_eq!(r["result"], json!({}), "{r}");
    // JSON that is no JSON-RPC message is an invalid request, not a parse error.
    client.send_line(r#"{"jsonrpc":"2.0","id":9,"method":5}"#);
    let r = client.next_response(WAIT);
    assert_eq!(
        (r["id"].clone(), r["error"]["code"].clone()),
        (json!(9), json!(-32600)),
        "{r}"
    );
    client.close();
}

#[test]
fn an_agent_on_the_official_typescript_sdk_reads_edits_and_follows_progress() {
    let scratch = Scratch::new("sdk");
    let Some(config) = config(&scratch.0, &["filesystem", "everything"]) else {
        return;
    };
    let sdk = mcp_servers::sdk_dir(servers_dir().unwrap());
    let agent = mcp_servers::root().join("tests/fixtures/mcp/clients/sdk_agent.mjs");
    let files = scratch.0.join("files");
    for mode in ["passthrough", "lean"] {
        // Pretty JSON, the kind of file the encoder would otherwise turn into a table.
        let rows: Vec<Json> = (0..12)
            .map(|i| json!({"id": i, "name": format!("row {i}"), "ok": i % 2 == 0}))
            .collect();
        std::fs::write(
            files.join("data.json"),
            serde_json::to_string_pretty(&json!({ "rows": rows })).unwrap(),
        )
        .unwrap();
        let out = Command::new("node")
            .arg(&agent)
            .arg(&sdk)
            .arg(env!("CARGO_BIN_EXE_toon"))
            .arg(&config)
            .arg(&files)
            .arg(mode)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{mode}:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn resources_prompts_completion_and_logging_pass_through_in_both_modes() {
    let scratch = Scratch::new("protocol-all");
    let Some(config) = config(&scratch.0, &["everything"]) else {
        return;
    };
    for mode in ["passthrough", "lean"] {
        let mut client = Client::start(&config, &["--mode", mode]);
        let init = client.initialize("2025-11-25");
        let result = &init["result"];
        // The union of what the servers offer, and their instructions beside the primer.
        let capabilities = &result["capabilities"];
        assert_eq!(capabilities["resources"]["subscribe"], true, "{init}");
        assert!(capabilities["prompts"].is_object(), "{init}");
        assert!(capabilities["completions"].is_object(), "{init}");
        assert!(capabilities["logging"].is_object(), "{init}");
        let instructions = result["instructions"].as_str().unwrap();
        assert!(
            instructions.starts_with(toon::mcp::PRIMER),
            "{instructions}"
        );
        assert!(
            instructions.contains("## Server `everything`"),
            "{instructions}"
        );
        assert!(instructions.contains("Server instructions are working!"));
        if mode == "lean" {
            assert_eq!(client.tools().len(), 3);
        }

        // Resources: listed, read verbatim (document content is never converted).
        let r = client.request("resources/list", json!({}));
        let uri = "demo://resource/static/document/architecture.md";
        let resources = r["result"]["resources"].as_array().unwrap();
        assert!(resources.iter().any(|x| x["uri"] == uri), "{r}");
        let r = client.request("resources/read", json!({"uri": uri}));
        assert_eq!(r["result"]["contents"][0]["uri"], uri, "{r}");
        assert!(
            !client.last_raw.contains("rs.toon-codec"),
            "{}",
            client.last_raw
        );
        let r = client.request("resources/templates/list", json!({}));
        let template = "demo://resource/dynamic/text/{resourceId}";
        let templates = r["result"]["resourceTemplates"].as_array().unwrap();
        assert!(
            templates.iter().any(|t| t["uriTemplate"] == template),
            "{r}"
        );
        let dynamic = "demo://resource/dynamic/text/3";
        let r = client.request("resources/read", json!({"uri": dynamic}));
        let text = r["result"]["contents"][0]["text"].as_str().unwrap();
        assert!(text.starts_with("Resource 3:"), "{r}");

        // Logging: the level reaches the server, its messages reach the client, tagged.
        let r = client.request("logging/setLevel", json!({"level": "debug"}));
        assert_eq!(r["result"], json!({}), "{r}");
        let r = client.request("resources/subscribe", json!({"uri": dynamic}));
        assert_eq!(r["result"], json!({}), "{r}");
        let log = wait_for_notification(&mut client, |n| {
            n["method"] == "notifications/message"
                && n["params"]["data"]
                    .as_str()
                    .is_some_and(|d| d.contains("Subscribe Resource request"))
        });
        assert_eq!(log["params"]["logger"], "everything", "{log}");
        let r = client.request("resources/unsubscribe", json!({"uri": dynamic}));
        assert_eq!(r["result"], json!({}), "{r}");

        // Prompts with arguments, and completion by prompt and by resource template.
        let r = client.request("prompts/list", json!({}));
        let prompts = r["result"]["prompts"].as_array().unwrap();
        assert!(prompts.iter().any(|p| p["name"] == "args-prompt"), "{r}");
        let r = client.request(
            "prompts/get",
            json!({"name": "args-prompt", "arguments": {"city": "Paris"}}),
        );
        let text = r["result"]["messages"][0]["content"]["text"].as_str();
        assert!(text.unwrap().contains("Paris"), "{r}");
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
        let r = client.request(
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": template},
                   "argument": {"name": "resourceId", "value": "1"}}),
        );
        assert!(r["result"]["completion"]["values"].is_array(), "{r}");

        // A server's error comes back as it sent it; an unknown method is still -32601.
        let r = client.request("prompts/get", json!({"name": "no-such-prompt"}));
        assert_eq!(r["error"]["code"], -32602, "{r}");
        let r = client.request("nothing/here", json!({}));
        assert_eq!(r["error"]["code"], -32601, "{r}");
        client.close();
    }
}

/// `tests/fixtures/mcp/servers/documents_server.py NAME`.
fn documents(name: &str) -> Json {
    let script = mcp_servers::root().join("tests/fixtures/mcp/servers/documents_server.py");
    json!({"command": "python3", "args": [script, name]})
}

#[test]
fn colliding_resources_and_prompts_are_routed_by_a_stated_rule() {
    let scratch = Scratch::new("collisions");
    let path = scratch.0.join("mcp.json");
    // Written by hand: the configuration's order is the routing order.
    let text = format!(
        r#"{{"mcpServers":{{"a":{},"b":{}}}}}"#,
        documents("a"),
        documents("b")
    );
    std::fs::write(&path, text).unwrap();
    for mode in ["passthrough", "lean"] {
        let mut client = Client::start(&path, &["--mode", mode]);
        let init = client.initialize("2025-11-25");
        let instructions = init["result"]["instructions"].as_str().unwrap();
        assert!(
            instructions
                .contains("## Server `a`\n\nDocuments of a.\n\n## Server `b`\n\nDocuments of b."),
            "{instructions}"
        );
        assert_eq!(
            init["result"]["capabilities"]["resources"]["subscribe"],
            true
        );

        // Every page of each server, a URI both list once (a's: first in the configuration).
        let r = client.request("resources/list", json!({}));
        let uris: Vec<&str> = r["result"]["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["uri"].as_str().unwrap())
            .collect();
        assert_eq!(uris, ["doc://shared", "doc://a/own", "doc://b/own"], "{r}");
        // Stderr is read on its own thread: it may trail the answer.
        let warning = "[b] resource doc://shared is also listed by a: it is read there";
        let deadline = Instant::now() + WAIT;
        while !client.stderr().contains(warning) {
            assert!(Instant::now() < deadline, "{}", client.stderr());
            std::thread::sleep(Duration::from_millis(50));
        }
        let read = |client: &mut mcp_servers::Client, uri: &str| {
            let r = client.request("resources/read", json!({"uri": uri}));
            r["result"]["contents"][0]["text"]
                .as_str()
                .unwrap_or_else(|| panic!("{r}"))
                .to_owned()
        };
        assert_eq!(read(&mut client, "doc://shared"), "[1,2,3] from a");
        assert_eq!(read(&mut client, "doc://b/own"), "[1,2,3] from b");
        // A template's URI, before templates were listed.
        assert_eq!(read(&mut client, "doc://b/item/7"), "[1,2,3] from b");
        // Nobody's: the first server's error, as it sent it.
        let r = client.request("resources/read", json!({"uri": "doc://nobody"}));
        assert_eq!(r["error"]["code"], -32002, "{r}");
        assert_eq!(r["error"]["data"], json!({"server": "a"}), "{r}");
        let r = client.request("resources/subscribe", json!({"uri": "doc://b/own"}));
        assert_eq!(r["result"], json!({}), "{r}");
        wait_for_notification(&mut client, |n| {
            n["method"] == "notifications/resources/updated" && n["params"]["uri"] == "doc://b/own"
        });

        // Prompts: a shared name as SERVER__NAME for each, the server's own name sent on.
        let r = client.request("prompts/list", json!({}));
        let names: Vec<&str> = r["result"]["prompts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["a__greet", "a-only", "b__greet", "b-only"], "{r}");
        let r = client.request(
            "prompts/get",
            json!({"name": "b__greet", "arguments": {"who": "you"}}),
        );
        assert_eq!(
            r["result"]["messages"][0]["content"]["text"],
            "b greets you"
        );
        let r = client.request("prompts/get", json!({"name": "greet"}));
        assert_eq!(r["error"]["code"], -32602, "{r}");
        let r = client.request(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "b__greet"},
                   "argument": {"name": "who", "value": ""}}),
        );
        assert_eq!(
            r["result"]["completion"]["values"],
            json!(["b:greet"]),
            "{r}"
        );
        let r = client.request(
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "doc://b/item/{id}"},
                   "argument": {"name": "id", "value": ""}}),
        );
        assert_eq!(
            r["result"]["completion"]["values"],
            json!(["b:doc://b/item/{id}"]),
            "{r}"
        );

        // Logging to both servers, each message tagged with its server.
        let r = client.request("logging/setLevel", json!({"level": "warning"}));
        assert_eq!(r["result"], json!({}), "{r}");
        for server in ["a", "b"] {
            let log = wait_for_notification(&mut client, |n| {
                n["method"] == "notifications/message"
                    && n["params"]["data"] == format!("{server} logs at warning")
            });
            assert_eq!(log["params"]["logger"], format!("{server}/docs"), "{log}");
        }
        client.close();
    }
}

fn roots_asked(asked: &[String]) -> usize {
    asked.iter().filter(|m| *m == "roots/list").count()
}

#[test]
fn server_requests_reach_the_client_and_its_answers_go_back() {
    let scratch = Scratch::new("server-requests");
    let Some(config) = config(&scratch.0, &["everything"]) else {
        return;
    };
    for mode in ["passthrough", "lean"] {
        let mut client = Client::start(&config, &["--mode", mode]);
        // A tools/call (through execute_tool in lean mode).
        let call = |tool: &str, arguments: Json| match mode {
            "lean" => {
                json!({"name": "execute_tool", "arguments": {"name": tool, "arguments": arguments}})
            }
            _ => json!({"name": tool, "arguments": arguments}),
        };
        // The servers are initialised with what the client declares.
        let init = client.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25",
               "capabilities": {"roots": {"listChanged": true}, "sampling": {},
                                "elicitation": {"form": {}, "url": {}}},
               "clientInfo": {"name": "e2e", "version": "1"}}),
        );
        assert!(init["result"]["capabilities"].is_object(), "{init}");
        client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        let mut asked = Vec::new();
        // The tools the server lists only for these capabilities are listed (it registers them
        // right after `initialize`: wait for the re-listing).
        let deadline = Instant::now() + WAIT;
        loop {
            let listed = if mode == "lean" {
                let params = json!({"name": "get_tool_spec",
                                "arguments": {"name": "trigger-sampling-request"}});
                client.send(
                    &json!({"jsonrpc": "2.0", "id": 500, "method": "tools/call", "params": params}),
                );
                answer_until(&mut client, 500, &mut asked)["result"]["isError"] != true
            } else {
                client.send(&json!({"jsonrpc": "2.0", "id": 500, "method": "tools/list"}));
                let r = answer_until(&mut client, 500, &mut asked);
                let names: Vec<&str> = r["result"]["tools"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| t["name"].as_str().unwrap())
                    .collect();
                names.contains(&"trigger-sampling-request")
                    && names.contains(&"get-roots-list")
                    && names.contains(&"trigger-url-elicitation")
            };
            if listed {
                break;
            }
            assert!(Instant::now() < deadline, "not listed");
            std::thread::sleep(Duration::from_millis(200));
        }
        client.send(&json!({"jsonrpc": "2.0", "id": 501, "method": "tools/call",
        "params": call("trigger-sampling-request", json!({"prompt": "hi", "maxTokens": 10}))}));
        let r = answer_until(&mut client, 501, &mut asked);
        assert!(r.to_string().contains("sampled by e2e"), "{r}");
        client.send(&json!({"jsonrpc": "2.0", "id": 502, "method": "tools/call",
        "params": call("get-roots-list", json!({}))}));
        let r = answer_until(&mut client, 502, &mut asked);
        assert!(r.to_string().contains("file:///work"), "{r}");
        assert!(
            asked.iter().any(|m| m == "sampling/createMessage"),
            "{asked:?}"
        );
        // Elicitation: the client's answer (declined) reaches the tool.
        client.send(&json!({"jsonrpc": "2.0", "id": 503, "method": "tools/call",
            "params": call("trigger-elicitation-request", json!({}))}));
        let r = answer_until(&mut client, 503, &mut asked);
        assert!(asked.iter().any(|m| m == "elicitation/create"), "{asked:?}");
        assert!(r.to_string().contains("decline"), "{r}");
        // URL mode: the request path (the client's answer reaches the tool) ...
        client.send(&json!({"jsonrpc": "2.0", "id": 504, "method": "tools/call",
            "params": call("trigger-url-elicitation",
                           json!({"url": "https://example.com/connect", "elicitationId": "e2e-1"}))}));
        let r = answer_until(&mut client, 504, &mut asked);
        assert!(
            r.to_string()
                .contains("declined to open the URL (Elicitation ID: e2e-1)"),
            "{r}"
        );
        // ... and the error path (-32042 with the elicitation to complete, as the server sent it).
        if mode == "passthrough" {
            client.send(&json!({"jsonrpc": "2.0", "id": 505, "method": "tools/call",
                "params": call("trigger-url-elicitation",
                               json!({"url": "https://example.com/x", "errorPath": true}))}));
            let r = answer_until(&mut client, 505, &mut asked);
            assert_eq!(r["error"]["code"], -32042, "{r}");
            assert_eq!(r["error"]["data"]["elicitations"][0]["mode"], "url", "{r}");
        }
        // The client's roots changed: every server hears it, and this one asks again.
        let before = roots_asked(&asked);
        assert!(before >= 1, "{asked:?}");
        client.send(&json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}));
        let mut id = 600;
        while roots_asked(&asked) == before {
            assert!(Instant::now() < deadline + WAIT, "{asked:?}");
            std::thread::sleep(Duration::from_millis(100));
            client.send(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}));
            answer_until(&mut client, id, &mut asked);
            id += 1;
        }
        client.close();
    }
}

#[test]
fn a_request_for_a_server_that_is_gone_fails_at_once_saying_why() {
    let scratch = Scratch::new("routed-gone");
    let path = scratch.0.join("mcp.json");
    let text = format!(
        r#"{{"mcpServers":{{"a":{},"b":{}}}}}"#,
        documents("a"),
        documents("b")
    );
    std::fs::write(&path, text).unwrap();
    let mut client = Client::start(&path, &[]);
    client.initialize("2025-11-25");
    let r = client.request("resources/list", json!({}));
    assert_eq!(r["result"]["resources"].as_array().unwrap().len(), 3, "{r}");
    let r = client.request("prompts/list", json!({}));
    assert_eq!(r["result"]["prompts"].as_array().unwrap().len(), 4, "{r}");
    let b: Vec<u32> = descendants(client.child.id())
        .into_iter()
        .filter(|p| cmdline(*p).contains("documents_server.py b"))
        .collect();
    assert_eq!(b.len(), 1, "one server b");
    Command::new("kill")
        .args(["-9", &b[0].to_string()])
        .status()
        .unwrap();
    let deadline = Instant::now() + WAIT;
    while !client.stderr().contains("[b] unavailable") {
        assert!(Instant::now() < deadline, "{}", client.stderr());
        std::thread::sleep(Duration::from_millis(50));
    }
    let started = Instant::now();
    let r = client.request("resources/read", json!({"uri": "doc://b/own"}));
    let message = r["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("{r}"));
    assert!(message.contains(r#"server "b" is unavailable"#), "{r}");
    assert!(message.contains("killed by signal 9"), "{r}");
    let r = client.request("prompts/get", json!({"name": "b__greet"}));
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unavailable"),
        "{r}"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
    // The other server carries on.
    let r = client.request("resources/read", json!({"uri": "doc://a/own"}));
    assert_eq!(r["result"]["contents"][0]["text"], "[1,2,3] from a", "{r}");
    client.close();
}

#[test]
fn an_agent_on_the_official_python_sdk_uses_resources_prompts_sampling_and_roots() {
    let scratch = Scratch::new("py-sdk");
    let Some(config) = config(&scratch.0, &["everything"]) else {
        return;
    };
    // The `mcp` SDK that mcp-server-time brings into the servers' venv.
    let python = servers_dir().unwrap().join("venv/bin/python");
    let agent = mcp_servers::root().join("tests/fixtures/mcp/clients/py_agent.py");
    for mode in ["passthrough", "lean"] {
        let out = Command::new(&python)
            .arg("-W")
            .arg("ignore::DeprecationWarning")
            .arg(&agent)
            .arg(env!("CARGO_BIN_EXE_toon"))
            .arg(&config)
            .arg(mode)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{mode}:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// An official SDK's agent of the compact gateway in front of server-everything, run once per
/// revision: it lists, calls valid, invalid then fixed, asks for the full definition, and
/// prints what it got for [`check_compact_run`].
#[derive(Clone, Copy, Debug)]
pub(super) enum CompactAgent {
    /// `py_compact_agent.py`, on the Python SDK (`mcp` 2.x, from the servers' venv): `auto`
    /// mode for 2026-07-28, `legacy` for 2025-11-25.
    Python,
    /// `sdk2_compact_agent.mjs`, on the TypeScript SDK v2 client
    /// (`@modelcontextprotocol/client` 2.4), pinned to the revision.
    TypeScriptV2,
}

/// `agent`'s summary of its run on `revision` in front of `gateway` (`[TOON, CONFIG]`: it
/// starts `toon mcp serve --mode compact` itself; `[URL, "-"]`: a running `--http` front in
/// compact mode); it panics with the agent's output when the agent failed.
pub(super) fn compact_agent(
    agent: CompactAgent,
    revision: &str,
    gateway: [&std::ffi::OsStr; 2],
) -> Json {
    let servers = servers_dir().unwrap();
    let clients = mcp_servers::root().join("tests/fixtures/mcp/clients");
    let mut command = match agent {
        CompactAgent::Python => {
            let mut python = Command::new(servers.join("venv/bin/python"));
            python
                .args(["-W", "ignore::DeprecationWarning"])
                .arg(clients.join("py_compact_agent.py"));
            python
        }
        CompactAgent::TypeScriptV2 => {
            let mut node = Command::new("node");
            node.arg(clients.join("sdk2_compact_agent.mjs"))
                .arg(servers.join("npm-sdk2"));
            node
        }
    };
    let out = command.arg(revision).args(gateway).output().unwrap();
    mcp_servers::agent_summary(&out, &format!("{agent:?} {revision}"))
}

/// What an agent of the compact gateway must have got on `revision` (the same for every SDK
/// and front): the revision it asked for, from the gateway; every tool under its own name, cut
/// to `{"type": "object"}` with its parameters after ` — `, beside `get_tool_spec`; the valid
/// call's result; the invalid call answered as a tool error naming the missing field, with the
/// full definition; the fixed call's result; the full definition when asked for.
pub(super) fn check_compact_run(summary: &Json, revision: &str) {
    assert_eq!(summary["negotiated"], revision, "{summary}");
    assert_eq!(summary["server"], "toon-mcp-proxy", "{summary}");
    let tools = summary["tools"].as_object().unwrap();
    for name in ["echo", "get-sum", "get_tool_spec"] {
        assert!(tools.contains_key(name), "{name} not listed: {summary}");
    }
    for (name, tool) in tools.iter().filter(|(name, _)| *name != "get_tool_spec") {
        assert_eq!(
            tool["inputSchema"],
            json!({"type": "object"}),
            "{name}: {tool}"
        );
    }
    let echo = tools["echo"]["description"].as_str().unwrap();
    assert!(echo.ends_with(" — message"), "{echo}");
    assert!(
        tools["get-sum"]["description"]
            .as_str()
            .unwrap()
            .ends_with(" — a:number b:number"),
        "{summary}"
    );
    assert_eq!(
        summary["valid"],
        json!({"isError": false, "text": "Echo: hi"})
    );
    let invalid = &summary["invalid"];
    let problems = invalid["text"].as_str().unwrap();
    assert_eq!(invalid["isError"], true, "{invalid}");
    assert!(
        problems.contains(r#"missing required field "message""#),
        "{invalid}"
    );
    let (_, definition) = problems.split_once("full definition:\n").unwrap();
    let definition: Json = serde_json::from_str(definition).unwrap();
    assert_eq!(definition["name"], "echo", "{invalid}");
    assert_eq!(
        definition["inputSchema"]["properties"]["message"]["description"], "Message to echo",
        "{invalid}"
    );
    assert_eq!(
        summary["fixed"],
        json!({"isError": false, "text": "Echo: again"})
    );
    let spec = &summary["spec"];
    assert_eq!(spec["isError"], false, "{spec}");
    let spec: Json = serde_json::from_str(spec["text"].as_str().unwrap()).unwrap();
    assert_eq!(spec, definition);
}

/// The compact gateway over stdio, started by an agent on the official Python SDK as a host
/// configured with roots and sampling starts it, on both revisions; and by an agent on the
/// TypeScript SDK v1 (`sdk_compact_agent.mjs`, which checks its own runs: a wrong type refused
/// and fixed, an unknown tool's definition an error, too).
#[test]
fn agents_on_the_official_python_and_typescript_sdks_call_tools_in_compact_mode() {
    let scratch = Scratch::new("sdk-compact");
    let Some(config) = config(&scratch.0, &["everything"]) else {
        return;
    };
    let toon = Path::new(env!("CARGO_BIN_EXE_toon"));
    for revision in REVISIONS {
        let summary = compact_agent(
            CompactAgent::Python,
            revision,
            [toon.as_os_str(), config.as_os_str()],
        );
        check_compact_run(&summary, revision);
    }
    let clients = mcp_servers::root().join("tests/fixtures/mcp/clients");
    let out = Command::new("node")
        .arg(clients.join("sdk_compact_agent.mjs"))
        .arg(mcp_servers::sdk_dir(servers_dir().unwrap()))
        .arg(toon)
        .arg(&config)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The compact gateway over stdio, started by an agent on the official TypeScript SDK v2
/// client declaring roots, sampling and elicitation as hosts do, pinned to each revision
/// (2025-11-25 by `initialize`, 2026-07-28 by `server/discover` and the `_meta` envelope): the
/// same outcomes as the Python agent's.
#[test]
fn an_agent_on_the_typescript_sdk_v2_calls_tools_in_compact_mode_on_both_revisions() {
    let scratch = Scratch::new("sdk2-compact");
    let Some(config) = config(&scratch.0, &["everything"]) else {
        return;
    };
    let toon = Path::new(env!("CARGO_BIN_EXE_toon"));
    for revision in REVISIONS {
        let summary = compact_agent(
            CompactAgent::TypeScriptV2,
            revision,
            [toon.as_os_str(), config.as_os_str()],
        );
        check_compact_run(&summary, revision);
    }
}

#[test]
fn a_question_a_server_withdraws_is_withdrawn_from_the_client() {
    let scratch = Scratch::new("withdrawn");
    let path = scratch.0.join("mcp.json");
    let text = format!(r#"{{"mcpServers":{{"asker":{}}}}}"#, documents("asker"));
    std::fs::write(&path, text).unwrap();
    let mut client = Client::start(&path, &[]);
    client.initialize_declaring("2025-11-25", json!({"elicitation": {}}));
    client.send(
        &json!({"jsonrpc": "2.0", "id": 700, "method": "prompts/get",
                        "params": {"name": "withdrawn"}}),
    );
    // The server's question, under the proxy's id; left unanswered.
    let asked = client.next_response(WAIT);
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    let r = client.next_response(WAIT);
    assert_eq!(r["id"], 700, "{r}");
    let cancelled = wait_for_notification(&mut client, |n| {
        n["method"] == "notifications/cancelled" && n["params"]["requestId"] == asked["id"]
    });
    assert!(cancelled["params"]["reason"].is_string(), "{cancelled}");
    client.close();
}

/// `tools/list` until `tool` is listed (server-everything registers some tools right after
/// `initialize`); returns its definition.
fn listed(client: &mut mcp_servers::Client, tool: &str) -> Json {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(found) = client.tools().into_iter().find(|t| t["name"] == tool) {
            return found;
        }
        assert!(Instant::now() < deadline, "{tool} not listed");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn tasks_run_through_the_proxy_under_ids_that_name_their_server() {
    let scratch = Scratch::new("tasks");
    let Some(config) = config(&scratch.0, &["everything", "time"]) else {
        return;
    };
    // The research task takes about 4 s: `tasks/result` waits for its end, not one request
    // timeout.
    let mut client = Client::start(&config, &["--request-timeout", "1"]);
    let init = client.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25",
               "capabilities": {"tasks": {"list": {}, "cancel": {}}},
               "clientInfo": {"name": "e2e", "version": "1"}}),
    );
    // The union of what the servers declare (only server-everything offers tasks).
    let tasks = &init["result"]["capabilities"]["tasks"];
    assert!(tasks["requests"]["tools"]["call"].is_object(), "{init}");
    assert!(
        tasks["list"].is_object() && tasks["cancel"].is_object(),
        "{init}"
    );
    client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let tool = listed(&mut client, "simulate-research-query");
    assert_eq!(tool["execution"]["taskSupport"], "required", "{tool}");

    // A task-augmented call creates a task, named for the client.
    let created = client.request(
        "tools/call",
        json!({"name": "simulate-research-query", "arguments": {"topic": "token budgets"},
               "task": {"ttl": 60000}}),
    );
    let task = &created["result"]["task"];
    let id = task["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("{created}"));
    assert!(id.starts_with("everything__"), "{created}");
    assert!(
        task["status"].is_string() && task["ttl"].is_number(),
        "{created}"
    );
    let got = client.request("tasks/get", json!({"taskId": id}));
    assert_eq!(got["result"]["taskId"], id, "{got}");
    let all = client.request("tasks/list", json!({}));
    let ids: Vec<&str> = all["result"]["tasks"]
        .as_array()
        .unwrap_or_else(|| panic!("{all}"))
        .iter()
        .filter_map(|t| t["taskId"].as_str())
        .collect();
    assert!(ids.contains(&id), "{all}");
    // Its result (tasks/result waits for the end) is the call's, tied to the task by its id.
    let result = client.request("tasks/result", json!({"taskId": id}));
    let body = &result["result"];
    assert!(text(body).contains("token budgets"), "{result}");
    assert_eq!(
        body["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], id,
        "{result}"
    );
    let done = client.request("tasks/get", json!({"taskId": id}));
    assert_eq!(done["result"]["status"], "completed", "{done}");

    // Cancelled: the server's answer, under the client's id.
    let second = client.request(
        "tools/call",
        json!({"name": "simulate-research-query", "arguments": {"topic": "x"}, "task": {}}),
    );
    let second = second["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    let cancelled = client.request("tasks/cancel", json!({"taskId": second}));
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    assert_eq!(
        cancelled["result"]["taskId"],
        second.as_str(),
        "{cancelled}"
    );

    // An id no server behind the proxy minted, and a server's own id without its name.
    for unknown in ["nobody__1", id.trim_start_matches("everything__")] {
        let r = client.request("tasks/get", json!({"taskId": unknown}));
        assert_eq!(r["error"]["code"], -32602, "{r}");
    }
    // A call without a task still works as before.
    let echoed = client.call("echo", json!({"message": "plain"}));
    assert!(text(&echoed).contains("plain"), "{echoed}");
    client.close();

    // Lean mode: the client holds no task, the proxy runs the tool to its end (longer than a
    // request timeout), and declares no tasks of its own (its meta-tools take none).
    let mut client = Client::start(&config, &["--mode", "lean", "--request-timeout", "1"]);
    let init = client.initialize("2025-11-25");
    assert!(init["result"]["capabilities"]["tasks"].is_null(), "{init}");
    let deadline = Instant::now() + WAIT;
    let result = loop {
        let r = client.call(
            "execute_tool",
            json!({"name": "simulate-research-query", "arguments": {"topic": "lean tasks"}}),
        );
        if r["isError"] != true || Instant::now() > deadline {
            break r;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(result["isError"] != true, "{result}");
    assert!(text(&result).contains("lean tasks"), "{result}");
    client.close();
}

#[test]
fn a_client_on_the_typescript_sdk_s_tasks_api_runs_a_task_with_a_question_in_it() {
    let scratch = Scratch::new("sdk-tasks");
    let Some(config) = config(&scratch.0, &["everything"]) else {
        return;
    };
    let sdk = mcp_servers::sdk_dir(servers_dir().unwrap());
    let agent = mcp_servers::root().join("tests/fixtures/mcp/clients/sdk_tasks.mjs");
    let out = Command::new("node")
        .arg(&agent)
        .arg(&sdk)
        .arg(env!("CARGO_BIN_EXE_toon"))
        .arg(&config)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// An `mcpServers` entry running `tests/fixtures/mcp/servers/stray_server.py`.
fn stray() -> Json {
    let script = mcp_servers::root().join("tests/fixtures/mcp/servers/stray_server.py");
    json!({"command": "python3", "args": [script]})
}

/// The TOON_* variables the stray server says it was given, behind a proxy that has
/// `TOON_MCP_HTTP_TOKEN` and `TOON_MCP_CONFIG` set.
fn stray_environment(scratch: &Scratch, entry: Json) -> (Json, u32) {
    let path = write_config(&scratch.0, json!({ "stray": entry }));
    let mut command = Command::new(env!("CARGO_BIN_EXE_toon"));
    command
        .args(mcp_servers::serve_flags(&[]))
        .arg("--config")
        .arg(&path)
        .env("TOON_MCP_HTTP_TOKEN", "the-proxy-s-secret")
        .env("TOON_MCP_CONFIG", &path);
    let mut client = mcp_servers::Client::spawn(command);
    client.initialize("2025-11-25");
    // (Converted to TOON when long: read back either way.)
    let seen = decoded(&client.call("environment", json!({})));
    let pid = client.child.id();
    client.close();
    (seen, pid)
}

#[test]
fn servers_do_not_inherit_the_proxy_s_token_or_own_variables_unless_their_entry_names_them() {
    let scratch = Scratch::new("own-env");
    let (seen, proxy) = stray_environment(&scratch, stray());
    assert!(seen.get("TOON_MCP_HTTP_TOKEN").is_none(), "{seen}");
    assert!(seen.get("TOON_MCP_CONFIG").is_none(), "{seen}");
    // The tag that names the server for the proxy (its orphans are found by it).
    let tag = seen["TOON_MCP_SERVER_TAG"].as_str().unwrap_or_default();
    assert!(tag.starts_with(&format!("{proxy}-")), "{seen}");
    // An entry that names one gets its own value.
    let mut entry = stray();
    entry["env"] = json!({"TOON_MCP_HTTP_TOKEN": "this-server-s-own"});
    let (seen, _) = stray_environment(&scratch, entry);
    assert_eq!(seen["TOON_MCP_HTTP_TOKEN"], "this-server-s-own", "{seen}");
    assert!(seen.get("TOON_MCP_CONFIG").is_none(), "{seen}");
}

/// Has the stray server start a daemon (setsid and a double fork); its pid, alive.
fn start_daemon(client: &mut mcp_servers::Client, pidfile: &Path, clean_env: bool) -> u32 {
    let r = client.call(
        "daemon",
        json!({"pidfile": pidfile, "clean_env": clean_env}),
    );
    assert_eq!(text(&r), "started", "{r}");
    let pid: u32 = std::fs::read_to_string(pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let started = Instant::now();
    // Until it has exec'd sleep (its own session, out of the server's group).
    while !cmdline(pid).starts_with("sleep") {
        assert!(started.elapsed() < WAIT, "{}", cmdline(pid));
        std::thread::sleep(Duration::from_millis(20));
    }
    pid
}

#[test]
fn daemons_a_server_starts_outside_its_group_go_with_it_and_with_the_proxy() {
    let scratch = Scratch::new("daemons");
    let path = write_config(&scratch.0, json!({ "stray": stray() }));
    // The server exits on its own (closed stdin), and the proxy with it.
    let mut client = Client::start(&path, &[]);
    client.initialize("2025-11-25");
    let tagged = start_daemon(&mut client, &scratch.0.join("a.pid"), false);
    let untagged = start_daemon(&mut client, &scratch.0.join("b.pid"), true);
    let took = client.close();
    assert!(took < Duration::from_secs(15), "{took:?}");
    for pid in [tagged, untagged] {
        assert!(
            !still_alive_after(pid, Duration::from_secs(10)),
            "a daemon outlived the proxy: {}",
            cmdline(pid)
        );
    }
    // The server dies while the proxy runs on: what it left with its tag goes at once.
    let mut client = Client::start(&path, &[]);
    client.initialize("2025-11-25");
    let tagged = start_daemon(&mut client, &scratch.0.join("c.pid"), false);
    let server: Vec<u32> = descendants(client.child.id())
        .into_iter()
        .filter(|p| cmdline(*p).contains("stray_server.py"))
        .collect();
    assert_eq!(server.len(), 1, "one stray server process");
    Command::new("kill")
        .args(["-9", &server[0].to_string()])
        .status()
        .unwrap();
    assert!(
        !still_alive_after(tagged, Duration::from_secs(10)),
        "a daemon outlived its server: {}",
        cmdline(tagged)
    );
    client.close();
}

/// Issue #42, 2: a server that asks a client what it did not declare (here elicitation, the
/// client declaring nothing) is answered at once with -32601, not left to its own timeout;
/// the client is not asked.
#[test]
fn a_server_s_question_the_client_did_not_declare_is_refused_at_once() {
    let scratch = Scratch::new("undeclared");
    let script = mcp_servers::root().join("tests/fixtures/mcp/servers/questioning_server.py");
    let path = scratch.0.join("mcp.json");
    let servers = json!({"mcpServers": {"q": {"command": "python3", "args": [script]}}});
    std::fs::write(&path, servers.to_string()).unwrap();
    let mut client = Client::start(&path, &[]);
    client.initialize("2025-11-25");
    client.tools();
    let started = Instant::now();
    client.send(
        &json!({"jsonrpc": "2.0", "id": "call", "method": "tools/call",
                        "params": {"name": "ask", "arguments": {}}}),
    );
    // The first message back is the call's answer: no question reached the client.
    let r = client.next_response(Duration::from_secs(20));
    assert_eq!(r["id"], "call", "{r}");
    assert!(started.elapsed() < Duration::from_secs(5));
    // The questioning server's result is the answer its question got.
    let answer = decoded(&r["result"]);
    assert_eq!(answer["error"]["code"], -32601, "{r}");
    let why = answer["error"]["message"].as_str().unwrap();
    assert!(
        why.contains("did not declare the elicitation capability"),
        "{why}"
    );
    client.close();
}

/// A server's log message cannot forge the proxy's lines on stderr: whatever it holds, it is
/// one line, `[NAME] …`, its line breaks and terminal escapes written visibly. (The fixture
/// logs the level it was set to, so the client's text is the server's.)
#[test]
fn a_server_s_log_message_is_one_line_of_its_own_on_stderr() {
    let scratch = Scratch::new("forged-lines");
    let path = scratch.0.join("mcp.json");
    std::fs::write(
        &path,
        format!(r#"{{"mcpServers":{{"a":{}}}}}"#, documents("a")),
    )
    .unwrap();
    let mut client = Client::start(&path, &[]);
    client.initialize("2025-11-25");
    let forged = "warning\n[b] unavailable: forged\r\ntoon: http: session 1a2b3c4d opened\u{1b}[2K";
    let r = client.request("logging/setLevel", json!({"level": forged}));
    assert_eq!(r["result"], json!({}), "{r}");
    let line = "[a] info: a logs at warning\\n[b] unavailable: forged\\r\\n\
                toon: http: session 1a2b3c4d opened\\u{1b}[2K";
    let stderr = client.close_then_stderr_with(&[line]);
    assert!(stderr.lines().any(|l| l == line), "{stderr}");
    for l in stderr.lines() {
        assert!(
            !l.starts_with("[b]") && !l.starts_with("toon: http"),
            "{stderr}"
        );
        assert!(!l.contains('\u{1b}') && !l.contains('\r'), "{stderr:?}");
    }
}
