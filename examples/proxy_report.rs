//! What `toon mcp serve` costs and saves with real servers (everything, filesystem, memory,
//! time, git), measured: tokens of the tool lists per mode and view, tokens of real results as
//! sent vs through the proxy, start-up, overhead per call, and the proxy's own memory.
//!
//! ```text
//! cargo build --release --all-features --bins --examples
//! cargo run --release --all-features --example proxy_report
//! ```
//! Servers come from `scripts/install-mcp-servers.sh` (or `TOON_MCP_SERVERS`).

#[path = "../tests/mcp_servers/mod.rs"]
mod mcp_servers;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use mcp_servers::{Client, Scratch, command, config, entry, examples_dir, servers_dir};
use serde_json::{Value as Json, json};
use toon::tokens::{Encoding, count};

const SERVERS: [&str; 5] = ["everything", "filesystem", "memory", "time", "git"];

fn main() {
    let toon: PathBuf = examples_dir().parent().unwrap().join("toon");
    assert!(
        toon.exists(),
        "build first: cargo build --release --all-features --bins --examples"
    );
    let scratch = Scratch::new("report");
    let five = config(&scratch.0, &SERVERS).expect("real MCP servers");
    let servers = servers_dir().unwrap();
    seed(&scratch.0);

    println!("## Tool lists (exact o200k tokens)\n");
    let inspect = Command::new(&toon)
        .args(["mcp", "inspect", "--config"])
        .arg(&five)
        .output()
        .unwrap();
    println!("{}", String::from_utf8_lossy(&inspect.stdout));

    let mut proxy = start_up(&toon, &five, servers, &scratch.0);
    results(&mut proxy, servers, &scratch.0);
    let status = std::fs::read_to_string(format!("/proc/{}/status", proxy.child.id())).unwrap();
    let field = |k: &str| {
        status
            .lines()
            .find(|l| l.starts_with(k))
            .unwrap_or(k)
            .to_owned()
    };
    println!(
        "## Proxy memory with five servers behind it\n\n{}\n{}\n",
        field("VmHWM"),
        field("VmRSS")
    );
    proxy.close();
    overhead(&toon, &scratch.0);
}

/// Start-up: each server alone (initialize + tools/list), then the proxy with all five,
/// which is returned for the calls that follow.
fn start_up(toon: &Path, five: &Path, servers: &Path, scratch: &Path) -> Client {
    println!("## Start-up (initialize + tools/list)\n");
    let mut alone = Vec::new();
    for name in SERVERS {
        let command = command(&entry(servers, scratch, name));
        let started = Instant::now();
        let mut c = Client::spawn(command);
        c.initialize("2025-11-25");
        c.tools();
        alone.push((name, started.elapsed()));
        c.close();
    }
    for (name, t) in &alone {
        println!("{name:<12} alone {:>7.0} ms", ms(*t));
    }
    let started = Instant::now();
    let mut proxy = Client::proxy(toon, five, &[]);
    proxy.initialize("2025-11-25");
    let listed = proxy.tools().len();
    let through = started.elapsed();
    let slowest = alone.iter().map(|(_, t)| *t).max().unwrap();
    let sum: Duration = alone.iter().map(|(_, t)| *t).sum();
    println!(
        "proxy with all five: {:.0} ms for {listed} tools (slowest alone {:.0} ms, sum {:.0} ms)\n",
        ms(through),
        ms(slowest),
        ms(sum)
    );
    proxy
}

/// Tokens of real results: each call made directly to its server and through `proxy`.
fn results(proxy: &mut Client, servers: &Path, scratch: &Path) {
    println!("## Results: tokens of the text the model reads\n");
    println!(
        "{:<40} {:>8} {:>8} {:>7}",
        "call", "as sent", "proxy", "ratio"
    );
    let calls = [
        ("memory", "read_graph", json!({})),
        ("memory", "search_nodes", json!({"query": "engineer"})),
        (
            "filesystem",
            "list_directory_with_sizes",
            json!({"path": scratch.join("files")}),
        ),
        (
            "filesystem",
            "directory_tree",
            json!({"path": scratch.join("files")}),
        ),
        (
            "git",
            "git_log",
            json!({"repo_path": scratch.join("repo"), "max_count": 20}),
        ),
        (
            "time",
            "get_current_time",
            json!({"timezone": "Europe/Paris"}),
        ),
        (
            "everything",
            "get-structured-content",
            json!({"location": "Chicago"}),
        ),
    ];
    let (mut before, mut after) = (0, 0);
    for (server, tool, args) in &calls {
        let mut direct = Client::spawn(command(&entry(servers, scratch, server)));
        direct.initialize("2025-11-25");
        let sent = text_tokens(&direct.call(tool, args.clone()));
        direct.close();
        let got = text_tokens(&proxy.call(tool, args.clone()));
        before += sent;
        after += got;
        let label = format!("{server} {tool}");
        println!(
            "{label:<40} {sent:>8} {got:>8} {:>6.3}×",
            got as f64 / sent as f64
        );
    }
    println!(
        "{:<40} {before:>8} {after:>8} {:>6.3}×\n",
        "total",
        after as f64 / before as f64
    );
}

/// Overhead per call: notes_server directly and through the proxy, calls interleaved.
fn overhead(toon: &Path, scratch: &Path) {
    println!("## Overhead per call (notes_server, direct vs through the proxy, interleaved)\n");
    let notes = || Command::new(examples_dir().join("notes_server"));
    let notes_config = config(scratch, &["notes"]).unwrap();
    let mut direct = Client::spawn(notes());
    let mut proxied = Client::proxy(toon, &notes_config, &[]);
    for c in [&mut direct, &mut proxied] {
        c.initialize("2025-11-25");
        for i in 0..8 {
            c.call(
                "add_note",
                json!({"title": format!("note {i}"), "body": "some text to keep", "tags": ["a"]}),
            );
        }
    }
    for (tool, args) in [("wait", json!({"millis": 0})), ("list_notes", json!({}))] {
        let (mut d, mut p) = (Vec::new(), Vec::new());
        for _ in 0..300 {
            d.push(timed(&mut direct, tool, &args));
            p.push(timed(&mut proxied, tool, &args));
        }
        let (dm, pm) = (median(&mut d), median(&mut p));
        println!(
            "{tool:<12} direct median {dm:>6.3} ms, proxy {pm:>6.3} ms, overhead {:>6.3} ms",
            pm - dm
        );
    }
    direct.close();
    proxied.close();
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn timed(c: &mut Client, tool: &str, args: &Json) -> f64 {
    let started = Instant::now();
    c.call(tool, args.clone());
    ms(started.elapsed())
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn text_tokens(result: &Json) -> usize {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| b["text"].as_str())
        .map(|t| count(t, Encoding::O200kBase))
        .sum()
}

/// Data for the calls: files, a git history, a knowledge graph (in the memory file the
/// servers share through the config's MEMORY_FILE_PATH).
fn seed(scratch: &Path) {
    let files = scratch.join("files");
    for i in 0..30 {
        let dir = files.join(format!("dir{}", i % 5));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("file{i}.txt")), "x".repeat(i * 37)).unwrap();
    }
    let repo = scratch.join("repo");
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .arg("-C")
            .arg(&repo)
            .args([
                "-c",
                "user.name=Report",
                "-c",
                "user.email=report@example.com",
            ])
            .args(args)
            .output()
            .unwrap();
        assert!(ok.status.success(), "{ok:?}");
    };
    for i in 0..20 {
        std::fs::write(repo.join("log.txt"), format!("entry {i}\n")).unwrap();
        git(&["add", "log.txt"]);
        git(&["commit", "-q", "-m", &format!("Record entry {i}")]);
    }
    let mut lines = String::new();
    for i in 0..25 {
        lines.push_str(
            &json!({"type": "entity", "name": format!("person{i}"), "entityType": "engineer",
                    "observations": [format!("works on project {}", i % 4), "writes Rust"]})
            .to_string(),
        );
        lines.push('\n');
    }
    for i in 0..24 {
        lines.push_str(
            &json!({"type": "relation", "from": format!("person{i}"), "to": format!("person{}", i + 1),
                    "relationType": "reviews"})
            .to_string(),
        );
        lines.push('\n');
    }
    std::fs::write(scratch.join("memory.jsonl"), lines).unwrap();
}
