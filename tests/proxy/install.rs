//! `toon mcp install` and `uninstall` end to end: a Claude Code configuration
//! (`tests/fixtures/mcp/install/claude-code-e2e.json`) in a scratch home directory, the
//! gateway installed into it, the entry it wrote started as Claude Code would start it, in
//! front of the repo's raw server (Python's standard library only), `toon mcp inspect` run on
//! what it moved, as the README's five minutes do, and the file put back.

use std::path::Path;
use std::process::{Command, Output};

use crate::mcp_servers::{self, Scratch, root};
use serde_json::{Value as Json, json};

/// `toon ARGS` with `home` as the home directory and no configuration of the caller's.
fn toon(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toon"))
        .args(args)
        .env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("TOON_MCP_CONFIG")
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

#[test]
fn install_puts_the_gateway_in_front_of_claude_codes_servers_and_uninstall_takes_it_out() {
    let scratch = Scratch::new("install-e2e");
    let home = scratch.0.clone();
    let template =
        std::fs::read_to_string(root().join("tests/fixtures/mcp/install/claude-code-e2e.json"))
            .unwrap();
    let original = template.replace("{ROOT}", root().to_str().unwrap());
    let file = home.join(".claude.json");
    std::fs::write(&file, &original).unwrap();

    // A dry run shows what would change, secrets hidden, and writes nothing.
    let shown = stdout(&toon(
        &home,
        &["mcp", "install", "claude-code", "--dry-run"],
    ));
    assert!(shown.contains("moved to"), "{shown}");
    assert!(shown.contains("\"RAW_API_KEY\":\"<hidden>\""), "{shown}");
    assert!(shown.contains("docs: its \"args\" uses ${…}"), "{shown}");
    assert!(!shown.contains("FIXTURESECRET"), "{shown}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), original);
    assert_eq!(std::fs::read_dir(&home).unwrap().count(), 1);

    let shown = stdout(&toon(
        &home,
        &["mcp", "install", "claude-code", "--launch", "path"],
    ));
    assert!(!shown.contains("FIXTURESECRET"), "{shown}");
    assert!(shown.contains("`toon mcp inspect`"), "{shown}");
    let gateway = home.join(".config/toon/mcp.json");
    assert!(
        std::fs::read_to_string(&gateway)
            .unwrap()
            .contains("rk_FIXTURESECRETe2e")
    );

    // The README's next step: `toon mcp inspect` reads the servers the install moved.
    let inspected = stdout(&toon(&home, &["mcp", "inspect"]));
    assert!(
        inspected
            .lines()
            .any(|l| l.starts_with("raw ") && l.ends_with("ready")),
        "{inspected}"
    );

    // The entry Claude Code now starts: the gateway, serving the raw server's tools.
    let config: Json = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let servers = config["mcpServers"].as_object().unwrap();
    let mut names: Vec<&String> = servers.keys().collect();
    names.sort();
    assert_eq!(names, ["docs", "toon"]);
    assert_eq!(config["numStartups"], 7);
    let entry = &config["mcpServers"]["toon"];
    let toon_bin = std::fs::canonicalize(env!("CARGO_BIN_EXE_toon")).unwrap();
    assert_eq!(entry["command"], json!(toon_bin));
    let mut client = mcp_servers::Client::spawn(mcp_servers::command(entry));
    let init = client.initialize("2025-06-18");
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    let tools: Vec<String> = client
        .tools()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(tools, ["report", "echo"]);
    let report = client.call("report", json!({"rows": 4}));
    let text = report["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("[4]{id,name,ok}:"), "{report}");
    drop(client);

    let installed = std::fs::read_to_string(&file).unwrap();
    let shown = stdout(&toon(
        &home,
        &["mcp", "uninstall", "claude-code", "--dry-run"],
    ));
    assert!(shown.contains("taken out of"), "{shown}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), installed);
    assert!(home.join(".claude.json.toon-backup").exists());

    let shown = stdout(&toon(&home, &["mcp", "uninstall", "claude-code"]));
    assert!(
        shown.contains("put back as it was before the install"),
        "{shown}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), original);
    assert!(!gateway.exists());
    assert!(!home.join(".claude.json.toon-backup").exists());

    // Uninstalling again: nothing to undo, said so.
    let again = toon(&home, &["mcp", "uninstall", "claude-code"]);
    assert!(!again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("not installed: there is no backup"),
        "{again:?}"
    );
}
