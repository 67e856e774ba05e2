//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned by
//! `scripts/install-conformance.sh`) run directly and through `toon mcp serve --http`
//! (passthrough), in the same test, for both frozen requirement sets (2025-11-25, 2026-07-28):
//!
//! - server scenarios: the suite against its reference server (`everything-server.ts`, on
//!   loopback), then against the gateway in front of that same server;
//! - client scenarios: a client on an official SDK against the suite's mock servers (for
//!   2025-11-25 the suite's example client, `everything-client.ts`, on the TypeScript SDK v1;
//!   for 2026-07-28 `sdk2-client/scenario-client.mjs` on the SDK v2 client), then through the
//!   gateway
//!   (`tests/fixtures/mcp/conformance/through-gateway.sh`: client → gateway → mock), all in a
//!   network namespace that has only loopback (the mocks listen on every interface). The
//!   authorization scenarios are skipped: the gateway speaks no OAuth to servers yet.
//!
//! Each test fails on a scored check that passes directly and not through the gateway, unless
//! `tests/fixtures/mcp/conformance/expected-failures-REVISION.yaml` (the suite's own
//! `--expected-failures` format) lists it, and on an entry there that no longer fails through
//! the gateway. The direct runs are the baseline: what the reference server or
//! a scenario client fails on its own is reported, never held against the gateway.
//!
//! `TOON_MCP_CONFORMANCE` names the installed suite (`.ci/run` sets it); without it the test
//! runs the install script itself. `TOON_MCP_SKIP_REAL_SERVERS=1` skips these tests too.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::http_front::Proxy;
use crate::mcp_servers::{Scratch, root};

const REVISIONS: [&str; 2] = ["2025-11-25", "2026-07-28"];
/// How long one run of the suite may take (it has its own per-scenario timeout, below): a
/// loaded two-core machine runs a requirement set in well under a minute.
const RUN_LIMIT: Duration = Duration::from_secs(600);
/// The suite's per-scenario timeout, in milliseconds (its default is 30 s).
const SCENARIO_TIMEOUT_MS: &str = "120000";
/// Client scenario runs at once: each starts the suite, a scenario client and a gateway.
const CLIENT_JOBS: usize = 3;

fn fixtures() -> PathBuf {
    root().join("tests/fixtures/mcp/conformance")
}

/// The installed suite, server and client (`scripts/install-conformance.sh`), or `None` when
/// told to skip.
fn conformance_dir() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        if std::env::var_os("TOON_MCP_SKIP_REAL_SERVERS").is_some_and(|v| v == "1") {
            eprintln!("SKIPPED on request (TOON_MCP_SKIP_REAL_SERVERS=1): the conformance suite");
            return None;
        }
        if let Some(dir) = std::env::var_os("TOON_MCP_CONFORMANCE").filter(|d| !d.is_empty()) {
            return Some(PathBuf::from(dir));
        }
        let out = Command::new(root().join("scripts/install-conformance.sh"))
            .stderr(Stdio::inherit())
            .output();
        match out {
            Ok(o) if o.status.success() => {
                Some(PathBuf::from(String::from_utf8(o.stdout).unwrap().trim()))
            }
            failed => panic!(
                "scripts/install-conformance.sh failed ({failed:?}): the conformance test needs \
                 Node.js, npm and the network once; set TOON_MCP_SKIP_REAL_SERVERS=1 to skip it"
            ),
        }
    })
    .as_deref()
}

/// `PATH` with the installed Node 22 first (the suite needs it; `tsx` is a Node script).
fn node_path(dir: &Path) -> String {
    let rest = std::env::var("PATH").unwrap_or_default();
    format!("{}:{rest}", dir.join("node/bin").display())
}

/// The suite's command line: `conformance ARGS` under Node 22.
fn suite(dir: &Path) -> Command {
    let mut command = Command::new(dir.join("node/bin/node"));
    command
        .arg(dir.join("runner/node_modules/@modelcontextprotocol/conformance/dist/index.js"))
        .env("PATH", node_path(dir))
        .env_remove("TOON_MCP_HTTP_TOKEN");
    command
}

/// A child in a process group of its own, the whole group killed when dropped (`tsx` and the
/// suite start children of their own).
struct Group {
    child: Child,
}

impl Group {
    fn spawn(mut command: Command) -> Group {
        command.process_group(0);
        Group {
            child: command.spawn().unwrap(),
        }
    }

    /// Its exit status, or `None` if it ran past `limit`.
    fn wait(&mut self, limit: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The scratch folder, kept with `TOON_MCP_CONFORMANCE_KEEP=1` (the suite's results, the
/// logs) and its path printed.
fn keep(scratch: Scratch) {
    if std::env::var_os("TOON_MCP_CONFORMANCE_KEEP").is_some_and(|v| v == "1") {
        println!("kept: {}", scratch.0.display());
        std::mem::forget(scratch);
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn log_file(path: &Path) -> (Stdio, Stdio) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let file = std::fs::File::create(path).unwrap();
    (file.try_clone().unwrap().into(), file.into())
}

/// The suite's reference server (`everything-server-loopback.ts`) on a free loopback port.
struct Reference {
    _group: Group,
    url: String,
}

impl Reference {
    fn start(dir: &Path, scratch: &Path) -> Reference {
        let port = free_port();
        let (out, err) = log_file(&scratch.join("reference-server.log"));
        let server = dir.join("server");
        let mut command = Command::new(server.join("node_modules/.bin/tsx"));
        command
            .arg("everything-server-loopback.ts")
            .current_dir(&server)
            .env("PATH", node_path(dir))
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err);
        let mut group = Group::spawn(command);
        let deadline = Instant::now() + Duration::from_secs(120);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline && group.child.try_wait().unwrap().is_none(),
                "the reference server did not listen on {port}: {:?}",
                std::fs::read_to_string(scratch.join("reference-server.log"))
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        Reference {
            _group: group,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }
}

/// The scenarios a requirement set scores for `leg` (`server` or `client`), from the suite's
/// own frozen `requirements/REVISION.yaml`.
fn scored(dir: &Path, revision: &str, leg: &str) -> Vec<String> {
    let path = dir.join(format!(
        "runner/node_modules/@modelcontextprotocol/conformance/requirements/{revision}.yaml"
    ));
    yaml_list(&std::fs::read_to_string(path).unwrap(), leg)
}

/// The entries of the top-level list `key:` in the two YAML files read here (the requirement
/// sets and the expected failures): `  - entry` lines, comments dropped.
fn yaml_list(text: &str, key: &str) -> Vec<String> {
    let mut inside = false;
    let mut entries = Vec::new();
    for line in text.lines() {
        let bare = line.split(" #").next().unwrap_or("").trim_end();
        if bare.trim().is_empty() || bare.trim_start().starts_with('#') {
            continue;
        }
        if !line.starts_with(' ') {
            inside = bare == format!("{key}:") || bare == format!("{key}: []");
            continue;
        }
        if inside && let Some(entry) = bare.trim().strip_prefix("- ") {
            entries.push(entry.trim().to_owned());
        }
    }
    entries
}

/// The expected failures through the gateway for `revision` and `leg`.
fn expected_failures(revision: &str, leg: &str) -> Vec<String> {
    let text = std::fs::read_to_string(expected_file(revision)).unwrap();
    yaml_list(&text, leg)
}

fn expected_file(revision: &str) -> PathBuf {
    fixtures().join(format!("expected-failures-{revision}.yaml"))
}

/// Each check's verdict, by (scenario, check id): occurrences of an id collapse to the most
/// severe, as the suite's own baseline does.
type Verdicts = BTreeMap<(String, String), String>;

fn severity(status: &str) -> u8 {
    match status {
        "FAILURE" => 0,
        "WARNING" => 1,
        "SUCCESS" => 4,
        "INFO" => 3,
        _ => 2,
    }
}

/// A check fails on FAILURE and on WARNING, as for the suite's `--expected-failures` (a
/// warning there is an unexpected failure too); INFO is a note.
fn fails(status: &str) -> bool {
    status == "FAILURE" || status == "WARNING"
}

/// A check passes when it ran and did not fail (SUCCESS, INFO; not SKIPPED).
fn passes(status: Option<&String>) -> bool {
    status.is_some_and(|s| !fails(s) && s != "SKIPPED")
}

/// The verdicts in a results folder (`-o OUT`): one folder per scenario,
/// `PREFIX<scenario>-<timestamp>/checks.json`.
fn read_results(out: &Path, prefix: &str) -> Verdicts {
    let mut verdicts = Verdicts::new();
    let Ok(entries) = std::fs::read_dir(out) else {
        return verdicts;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        // The timestamp: `-2026-12-04T21-38-12-955Z`.
        let Some(scenario) = name
            .strip_prefix(prefix)
            .and_then(|n| n.get(..n.len().checked_sub(25)?))
        else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(entry.path().join("checks.json")) else {
            continue;
        };
        let checks: serde_json::Value = serde_json::from_str(&text).unwrap();
        for check in checks.as_array().into_iter().flatten() {
            let id = check["id"].as_str().unwrap_or("?").to_owned();
            let status = check["status"].as_str().unwrap_or("?").to_owned();
            verdicts
                .entry((scenario.to_owned(), id))
                .and_modify(|s| {
                    if severity(&status) < severity(s) {
                        s.clone_from(&status);
                    }
                })
                .or_insert(status);
        }
    }
    verdicts
}

/// Direct against gateway, for the scored scenarios of one leg and revision.
#[derive(Default)]
struct Outcome {
    /// Passed, failed, warned.
    direct: (usize, usize, usize),
    gateway: (usize, usize, usize),
    /// Checks that ran directly and never through the gateway (its scenario ended early).
    absent: usize,
    expected: usize,
    /// `scenario:check (status)` passing directly, not through the gateway, and not expected.
    regressions: Vec<String>,
    /// The same, listed in the expected failures.
    excused: Vec<String>,
    /// Expected failures that no longer fail through the gateway.
    stale: Vec<String>,
    /// Checks that pass directly and end otherwise through the gateway without failing (a
    /// note instead of a success).
    differences: Vec<String>,
    /// Scored checks that fail directly: the reference server's or scenario client's own.
    direct_failures: Vec<String>,
}

fn compare(
    direct: &Verdicts,
    gateway: &Verdicts,
    scored: &[String],
    expected: &[String],
) -> Outcome {
    let scored: BTreeSet<&str> = scored.iter().map(String::as_str).collect();
    let is_scored = |key: &(String, String)| scored.contains(key.0.as_str());
    let count = |v: &Verdicts| {
        let with =
            |f: &dyn Fn(&String) -> bool| v.iter().filter(|(k, s)| is_scored(k) && f(s)).count();
        (
            with(&|s| passes(Some(s))),
            with(&|s| s == "FAILURE"),
            with(&|s| s == "WARNING"),
        )
    };
    let matches =
        |entry: &str, (s, c): &(String, String)| entry == s || entry == format!("{s}:{c}");
    let mut outcome = Outcome {
        direct: count(direct),
        gateway: count(gateway),
        expected: expected.len(),
        ..Outcome::default()
    };
    for (key, status) in direct.iter().filter(|(k, _)| is_scored(k)) {
        let through = gateway.get(key);
        let name = format!("{}:{}", key.0, key.1);
        if through.is_none() {
            outcome.absent += 1;
        }
        if !passes(Some(status)) {
            if fails(status) {
                outcome.direct_failures.push(format!("{name} ({status})"));
            }
            continue;
        }
        // A failure or a warning, or never reached.
        let failed = through.is_none_or(|s| fails(s));
        if !failed {
            if through.is_some_and(|s| s != status) {
                let seen = through.map_or("", String::as_str);
                outcome
                    .differences
                    .push(format!("{name} ({status} directly, {seen} through)"));
            }
            continue;
        }
        let line = format!("{name} ({})", through.map_or("absent", String::as_str));
        if expected.iter().any(|e| matches(e, key)) {
            outcome.excused.push(line);
        } else {
            outcome.regressions.push(line);
        }
    }
    // Stale: no check it names fails (or is missing) through the gateway any more. A check
    // that fails directly too keeps its entry: one direct run that warns on a loaded machine
    // says nothing about the gateway.
    for entry in expected {
        let still_fails = direct.keys().any(|key| {
            is_scored(key) && matches(entry, key) && gateway.get(key).is_none_or(|s| fails(s))
        });
        if !still_fails {
            outcome.stale.push(entry.clone());
        }
    }
    outcome
}

/// The table's rows, the lists under it, and what fails the test.
struct Report {
    text: String,
    failures: Vec<String>,
}

impl Report {
    fn new(title: &str) -> Report {
        let mut text = format!("\n{title}\n");
        text.push_str(
            "| revision | scored checks directly: passed / failed / warned | through the gateway: \
             passed / failed / warned / absent | expected failures (listed / seen) |\n\
             |---|---|---|---|\n",
        );
        Report {
            text,
            failures: Vec::new(),
        }
    }

    fn add(&mut self, revision: &str, outcome: &Outcome) {
        let o = outcome;
        let _ = writeln!(
            self.text,
            "| {revision} | {} / {} / {} | {} / {} / {} / {} | {} / {} |",
            o.direct.0,
            o.direct.1,
            o.direct.2,
            o.gateway.0,
            o.gateway.1,
            o.gateway.2,
            o.absent,
            o.expected,
            o.excused.len()
        );
        let mut lists = String::new();
        for (what, list) in [
            (
                "passes directly, fails through the gateway, NOT expected",
                &o.regressions,
            ),
            ("expected failure (expected-failures file)", &o.excused),
            (
                "STALE expected failure (passes through the gateway, or fails directly)",
                &o.stale,
            ),
            ("differs through the gateway, not a failure", &o.differences),
            ("fails directly too (not the gateway's)", &o.direct_failures),
        ] {
            for item in list {
                let _ = writeln!(lists, "  {revision}: {what}: {item}");
            }
        }
        self.text.push_str(&lists);
        for item in &o.regressions {
            self.failures.push(format!(
                "{revision}: {item} passes directly and fails through the gateway"
            ));
        }
        for item in &o.stale {
            self.failures.push(format!(
                "{revision}: {item} is listed in {} and no longer fails through the gateway: \
                 remove it",
                expected_file(revision).display()
            ));
        }
    }

    fn finish(self) {
        println!("{}", self.text);
        assert!(
            self.failures.is_empty(),
            "{}\n{}",
            self.text,
            self.failures.join("\n")
        );
    }
}

/// `conformance server --url URL --requirements REVISION`: its verdicts.
fn run_server_suite(dir: &Path, out: &Path, url: &str, revision: &str, baseline: bool) -> Verdicts {
    let (stdout, stderr) = log_file(&out.with_extension("log"));
    let mut command = suite(dir);
    command
        .args(["server", "--url", url, "--requirements", revision])
        .args(["--timeout", SCENARIO_TIMEOUT_MS])
        .arg("-o")
        .arg(out)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr);
    if baseline {
        command
            .arg("--expected-failures")
            .arg(expected_file(revision));
    }
    let mut group = Group::spawn(command);
    let status = group.wait(RUN_LIMIT);
    let verdicts = read_results(out, "server-");
    assert!(
        status.is_some() && !verdicts.is_empty(),
        "conformance server {revision} against {url}: {status:?}, {} checks; log: {}",
        verdicts.len(),
        std::fs::read_to_string(out.with_extension("log")).unwrap_or_default()
    );
    verdicts
}

/// One requirement set's server scenarios, directly and through a gateway in front of the same
/// reference server.
fn server_outcome(dir: &Path, scratch: &Path, revision: &str) -> Outcome {
    std::fs::create_dir_all(scratch).unwrap();
    let reference = Reference::start(dir, scratch);
    let config = scratch.join("mcp.json");
    // No revision key: the reference server speaks both revisions, its 2025-11-25 features
    // (logging, completions, sampling and elicitation requests) only to a client that opened
    // with `initialize`, its 2026-07-28 ones (input_required results, its diagnostic tools)
    // only to a 2026-07-28 client; by default the gateway opens it as its client did.
    let everything = serde_json::json!({"url": reference.url});
    let servers = serde_json::json!({"mcpServers": {"everything": everything}});
    std::fs::write(&config, servers.to_string()).unwrap();
    let gateway = Proxy::start(&config, &[]);
    let through = format!("http://{}/mcp", gateway.addr);
    let direct = run_server_suite(
        dir,
        &scratch.join("direct"),
        &reference.url,
        revision,
        false,
    );
    let gateway = run_server_suite(dir, &scratch.join("gateway"), &through, revision, true);
    let scored = scored(dir, revision, "server");
    compare(
        &direct,
        &gateway,
        &scored,
        &expected_failures(revision, "server"),
    )
}

#[test]
fn server_scenarios_pass_through_the_gateway_as_directly() {
    let Some(dir) = conformance_dir() else { return };
    let started = Instant::now();
    let scratch = Scratch::new("conformance-server");
    // A reference server and a gateway for each requirement set, the two sets at once; within
    // a set the direct run, then the gateway's, against the same server (scenarios change its
    // tool and prompt lists).
    let outcomes: Vec<Outcome> = std::thread::scope(|scope| {
        let runs: Vec<_> = REVISIONS
            .iter()
            .map(|&revision| {
                let scratch = scratch.0.join(revision);
                scope.spawn(move || server_outcome(dir, &scratch, revision))
            })
            .collect();
        runs.into_iter().map(|run| run.join().unwrap()).collect()
    });
    let mut report = Report::new(
        "Server scenarios (the suite's reference server, directly and behind `toon mcp serve --http`)",
    );
    for (revision, outcome) in REVISIONS.iter().zip(&outcomes) {
        report.add(revision, outcome);
    }
    let _ = writeln!(report.text, "({:.0?} in all)", started.elapsed());
    keep(scratch);
    report.finish();
}

/// `unshare` flags that give a network namespace with only loopback, up: `-n` as root, `-rn`
/// (a user namespace too) otherwise.
fn unshare_flags() -> &'static str {
    static FLAGS: OnceLock<&'static str> = OnceLock::new();
    FLAGS.get_or_init(|| {
        for flags in ["-n", "-rn"] {
            let ok = Command::new("unshare")
                .args([flags, "sh", "-c", "ip link set lo up"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if ok {
                return flags;
            }
        }
        panic!(
            "neither `unshare -n` nor `unshare -rn` runs here (util-linux's unshare and iproute2's \
             ip are needed): the suite's mock servers listen on all interfaces and are run in a \
             network namespace with only loopback"
        )
    })
}

/// One client scenario run: `conformance client` in its own network namespace.
struct ClientRun {
    revision: &'static str,
    scenario: String,
    gateway: bool,
    out: PathBuf,
}

/// The client that plays `revision`'s scenarios: for 2025-11-25 the suite's example client,
/// on the official TypeScript SDK v1; for 2026-07-28 `sdk2-client/scenario-client.mjs`, on the
/// SDK v2 client (`@modelcontextprotocol/client` 2.4), since the example client reaches that
/// revision through a shim of its own that no conformant server accepts (no `Mcp-Method`
/// header, bare JSON-RPC on its MRTR flow).
fn scenario_client(dir: &Path, revision: &str) -> String {
    if revision == "2026-07-28" {
        return format!(
            "node {}",
            dir.join("sdk2-client/scenario-client.mjs").display()
        );
    }
    let client = dir.join("client");
    format!(
        "{} {}",
        client.join("node_modules/.bin/tsx").display(),
        client
            .join("examples/clients/typescript/everything-client.ts")
            .display()
    )
}

fn run_client(dir: &Path, run: &ClientRun) -> Verdicts {
    let mut command_line = scenario_client(dir, run.revision);
    if run.gateway {
        command_line = format!(
            "{} {command_line}",
            fixtures().join("through-gateway.sh").display()
        );
    }
    let (stdout, stderr) = log_file(&run.out.with_extension("log"));
    let mut command = Command::new("unshare");
    let inner = suite(dir);
    command
        .args([
            unshare_flags(),
            "sh",
            "-c",
            "ip link set lo up && exec \"$@\"",
            "sh",
        ])
        .arg(inner.get_program())
        .args(inner.get_args())
        .args(["client", "--command", &command_line])
        .args(["--scenario", &run.scenario, "--spec-version", run.revision])
        .args(["--timeout", SCENARIO_TIMEOUT_MS])
        .arg("-o")
        .arg(&run.out)
        .env("PATH", node_path(dir))
        .env("TOON_BIN", env!("CARGO_BIN_EXE_toon"))
        .env_remove("TOON_MCP_HTTP_TOKEN")
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr);
    if run.gateway {
        command
            .arg("--expected-failures")
            .arg(expected_file(run.revision));
    }
    let mut group = Group::spawn(command);
    let status = group.wait(RUN_LIMIT);
    assert!(
        status.is_some(),
        "conformance client {} {} ran past {RUN_LIMIT:?}",
        run.revision,
        run.scenario
    );
    read_results(&run.out, "")
}

/// The network namespace a gateway run's wrapper and gateway were in, from the lines
/// `through-gateway.sh` writes to the scenario's stderr.txt.
fn namespaces_seen(out: &Path) -> Vec<String> {
    let mut seen = Vec::new();
    for entry in std::fs::read_dir(out).into_iter().flatten().flatten() {
        let text = std::fs::read_to_string(entry.path().join("stderr.txt")).unwrap_or_default();
        for line in text.lines() {
            if let Some(ns) = line.split_once("network namespace ").map(|(_, ns)| ns) {
                seen.push(ns.trim().to_owned());
            }
        }
    }
    seen
}

#[test]
fn client_scenarios_pass_through_the_gateway_as_directly() {
    let Some(dir) = conformance_dir() else { return };
    let started = Instant::now();
    let scratch = Scratch::new("conformance-client");
    let mut runs = Vec::new();
    let mut skipped = Vec::new();
    for revision in REVISIONS {
        for scenario in scored(dir, revision, "client") {
            if scenario.starts_with("auth/") {
                skipped.push(format!("{revision} {scenario}"));
                continue;
            }
            for gateway in [false, true] {
                let leg = if gateway { "gateway" } else { "direct" };
                let out = scratch.0.join(format!("{revision}-{leg}-{scenario}"));
                runs.push(ClientRun {
                    revision,
                    scenario: scenario.clone(),
                    gateway,
                    out,
                });
            }
        }
    }
    let results: Mutex<Vec<(usize, Verdicts)>> = Mutex::new(Vec::new());
    let next = Mutex::new(0usize);
    std::thread::scope(|scope| {
        for _ in 0..CLIENT_JOBS {
            scope.spawn(|| {
                loop {
                    let i = {
                        let mut next = next.lock().unwrap();
                        *next += 1;
                        *next - 1
                    };
                    let Some(run) = runs.get(i) else { break };
                    let verdicts = run_client(dir, run);
                    results.lock().unwrap().push((i, verdicts));
                }
            });
        }
    });
    let results = results.into_inner().unwrap();

    let own = std::fs::read_link("/proc/self/ns/net").unwrap();
    let own = own.to_string_lossy();
    let mut report = Report::new(
        "Client scenarios (a client on an official SDK against the suite's mock servers, \
         directly and through `toon mcp serve --http`, in a network namespace with only \
         loopback)",
    );
    for revision in REVISIONS {
        let mut direct = Verdicts::new();
        let mut gateway = Verdicts::new();
        for (i, verdicts) in &results {
            let run = &runs[*i];
            if run.revision != revision {
                continue;
            }
            if run.gateway {
                let seen = namespaces_seen(&run.out);
                assert!(
                    !seen.is_empty() && seen.iter().all(|ns| *ns != own),
                    "{revision} {}: the gateway ran outside the mock's network namespace \
                     ({seen:?}; the test's is {own})",
                    run.scenario
                );
                gateway.extend(verdicts.clone());
            } else {
                direct.extend(verdicts.clone());
            }
        }
        let scored = scored(dir, revision, "client");
        let outcome = compare(
            &direct,
            &gateway,
            &scored,
            &expected_failures(revision, "client"),
        );
        report.add(revision, &outcome);
    }
    let per_revision: Vec<String> = REVISIONS
        .iter()
        .map(|r| {
            let n = skipped.iter().filter(|s| s.starts_with(r)).count();
            format!("{n} of {r}")
        })
        .collect();
    let _ = writeln!(
        report.text,
        "Skipped: the authorization scenarios (auth/*, {}): the gateway speaks no OAuth to \
         servers yet",
        per_revision.join(", ")
    );
    let _ = writeln!(report.text, "({:.0?} in all)", started.elapsed());
    keep(scratch);
    report.finish();
}
