//! Real MCP servers for the proxy's end-to-end tests and `examples/proxy_report.rs`: where
//! they are installed, their `mcpServers` entries, and a line-by-line stdio client.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{Value as Json, json};

/// Where cargo put the examples (`notes_server`): beside the running test or example binary.
pub fn examples_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap();
    // Tests run from target/*/deps, examples from target/*/examples.
    dir.parent().unwrap().join("examples")
}

pub const WAIT: Duration = Duration::from_secs(60);

pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The installed third-party servers, or `None` when told to skip
/// (`TOON_MCP_SKIP_REAL_SERVERS=1`: nothing is installed and those tests pass without running).
pub fn servers_dir() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        if skip_requested() {
            eprintln!("SKIPPED on request (TOON_MCP_SKIP_REAL_SERVERS=1): the real MCP servers");
            return None;
        }
        if let Some(dir) = std::env::var_os("TOON_MCP_SERVERS").filter(|d| !d.is_empty()) {
            return Some(PathBuf::from(dir));
        }
        let out = Command::new(root().join("scripts/install-mcp-servers.sh"))
            .stderr(Stdio::inherit())
            .output();
        match out {
            Ok(o) if o.status.success() => {
                Some(PathBuf::from(String::from_utf8(o.stdout).unwrap().trim()))
            }
            failed => {
                panic!(
                    "scripts/install-mcp-servers.sh failed ({failed:?}): the end-to-end MCP tests \
                     need Node.js, npm and Python 3; set TOON_MCP_SKIP_REAL_SERVERS=1 to skip them"
                );
            }
        }
    })
    .as_deref()
}

fn skip_requested() -> bool {
    std::env::var_os("TOON_MCP_SKIP_REAL_SERVERS").is_some_and(|v| v == "1")
}

/// The official TypeScript SDK the installer put beside the servers.
pub fn sdk_dir(servers: &Path) -> PathBuf {
    servers.join("npm/node_modules/@modelcontextprotocol/sdk")
}

/// A scratch directory removed at the end of the test.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("toon-mcp-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The `mcpServers` entry of each known server.
pub fn entry(servers: &Path, scratch: &Path, name: &str) -> Json {
    let npm = |pkg: &str| {
        servers
            .join("npm/node_modules/@modelcontextprotocol")
            .join(pkg)
            .join("dist/index.js")
            .to_str()
            .unwrap()
            .to_owned()
    };
    let venv = |bin: &str| {
        servers
            .join("venv/bin")
            .join(bin)
            .to_str()
            .unwrap()
            .to_owned()
    };
    match name {
        "everything" => json!({"command": "node", "args": [npm("server-everything"), "stdio"]}),
        "filesystem" => {
            let dir = scratch.join("files");
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("hello.txt"), "hello\n").unwrap();
            json!({"command": "node", "args": [npm("server-filesystem"), dir]})
        }
        "memory" => json!({"command": "node", "args": [npm("server-memory")],
                           "env": {"MEMORY_FILE_PATH": scratch.join("memory.jsonl")}}),
        "time" => json!({"command": venv("mcp-server-time"), "args": ["--local-timezone", "UTC"]}),
        "git" => {
            let repo = scratch.join("repo");
            let ok = Command::new("git")
                .args(["init", "-q"])
                .arg(&repo)
                .status()
                .unwrap();
            assert!(ok.success());
            json!({"command": venv("mcp-server-git"), "args": ["--repository", repo]})
        }
        "notes" => {
            let example = examples_dir().join("notes_server");
            assert!(example.exists(), "{} not built", example.display());
            json!({"command": example})
        }
        "raw" => json!({"command": "python3",
                        "args": [root().join("tests/fixtures/mcp/servers/raw_server.py")]}),
        "wild" => json!({"command": "python3",
                         "args": [root().join("tests/fixtures/mcp/servers/wild_server.py")]}),
        "missing" => json!({"command": "/nonexistent/mcp-server"}),
        other => panic!("unknown server {other}"),
    }
}

/// The command an `mcpServers` entry runs.
pub fn command(entry: &Json) -> Command {
    let mut command = Command::new(entry["command"].as_str().unwrap());
    for arg in entry["args"].as_array().into_iter().flatten() {
        command.arg(arg.as_str().unwrap());
    }
    for (k, v) in entry["env"].as_object().into_iter().flatten() {
        command.env(k, v.as_str().unwrap());
    }
    command
}

pub fn config(scratch: &Path, names: &[&str]) -> Option<PathBuf> {
    let unsaid: Vec<(&str, Option<&str>)> = names.iter().map(|name| (*name, None)).collect();
    config_with_modes(scratch, &unsaid)
}

/// As [`config`], each server with the mode its entry says (`"toon": {"mode": ...}`), if any.
pub fn config_with_modes(scratch: &Path, servers: &[(&str, Option<&str>)]) -> Option<PathBuf> {
    let dir = servers_dir()?;
    // Written by hand: serde_json's map (without `preserve_order`) would sort the servers, and
    // the configuration lists them in the order given.
    let entries: Vec<String> = servers
        .iter()
        .map(|(name, mode)| {
            let mut entry = entry(dir, scratch, name);
            if let Some(mode) = mode {
                entry["toon"] = json!({ "mode": mode });
            }
            format!("{}:{entry}", json!(name))
        })
        .collect();
    let path = scratch.join("mcp.json");
    let text = format!(r#"{{"mcpServers":{{{}}}}}"#, entries.join(","));
    std::fs::write(&path, text).unwrap();
    Some(path)
}

/// `toon mcp serve` as a client drives it.
pub struct Client {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<(Json, String)>,
    pub notifications: Vec<Json>,
    /// The text of the last response [`next_response`](Self::next_response) returned.
    pub last_raw: String,
    stderr: Arc<Mutex<String>>,
    /// The proxy's stderr when nobody reads it (kept open: a full pipe, not a closed one).
    unread_stderr: Option<ChildStderr>,
    pub next_id: u64,
    /// How long [`request`](Self::request) waits for its response.
    pub wait: Duration,
}

/// `mcp serve`, with `--startup-grace wait` unless `args` give a grace: the tests list every
/// server's tools right after `initialize`, which a loaded machine may not have started
/// within the default second (start-up itself is tested with the default). And with
/// `--catalog-cache off` unless `args` give a cache: no test reads or writes the user's.
pub fn serve_flags(args: &[&str]) -> Vec<&'static str> {
    let mut flags = vec!["mcp", "serve"];
    if !args.contains(&"--startup-grace") {
        flags.extend(["--startup-grace", "wait"]);
    }
    if !args.contains(&"--catalog-cache") {
        flags.extend(["--catalog-cache", "off"]);
    }
    flags
}

impl Client {
    /// `toon mcp serve --config CONFIG ARGS...` (`toon` is the binary).
    pub fn proxy(toon: &Path, config: &Path, args: &[&str]) -> Client {
        let mut command = Command::new(toon);
        command
            .args(serve_flags(args))
            .arg("--config")
            .arg(config)
            .args(args);
        Client::spawn(command)
    }

    /// As [`proxy`](Self::proxy), but nobody reads the proxy's stderr (as some clients do).
    pub fn proxy_unread_stderr(toon: &Path, config: &Path, args: &[&str]) -> Client {
        let mut command = Command::new(toon);
        command
            .args(serve_flags(args))
            .arg("--config")
            .arg(config)
            .args(args);
        Client::spawn_with(command, false)
    }

    /// Any stdio MCP server.
    pub fn spawn(command: Command) -> Client {
        Client::spawn_with(command, true)
    }

    fn spawn_with(mut command: Command, read_stderr: bool) -> Client {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, lines) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let line = line.unwrap();
                let value: Json = serde_json::from_str(&line).unwrap_or_else(|e| {
                    // JSON that `Value` cannot hold (a lone surrogate, 1e400, deep nesting)
                    // is still a message: its id is read, its text kept in `last_raw`.
                    #[derive(serde::Deserialize)]
                    struct IdOnly {
                        id: Json,
                    }
                    let id = serde_json::from_str::<IdOnly>(&line).unwrap_or_else(|_| {
                        panic!("stdout carried a line that is not JSON ({e}): {line}")
                    });
                    json!({"id": id.id, "unreadable": e.to_string()})
                });
                if tx.send((value, line)).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        let err = child.stderr.take().unwrap();
        let unread_stderr = if read_stderr {
            std::thread::spawn(move || {
                for line in BufReader::new(err).lines().map_while(Result::ok) {
                    let mut s = sink.lock().unwrap();
                    s.push_str(&line);
                    s.push('\n');
                }
            });
            None
        } else {
            Some(err)
        };
        let stdin = child.stdin.take();
        Client {
            child,
            stdin,
            lines,
            notifications: Vec::new(),
            last_raw: String::new(),
            stderr,
            unread_stderr,
            next_id: 1,
            wait: WAIT,
        }
    }

    pub fn send(&mut self, message: &Json) {
        self.send_line(&message.to_string());
    }

    pub fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// The next message that is not a notification.
    pub fn next_response(&mut self, within: Duration) -> Json {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok((m, _)) if m.get("id").is_none() => self.notifications.push(m),
                Ok((m, raw)) => {
                    self.last_raw = raw;
                    return m;
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no response within {within:?}; stderr:\n{}", self.stderr())
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("the proxy closed stdout; stderr:\n{}", self.stderr())
                }
            }
        }
    }

    /// Sends a request under the next id without waiting for its response; the id.
    pub fn send_request(&mut self, method: &str, params: Json) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    pub fn request(&mut self, method: &str, params: Json) -> Json {
        let id = self.send_request(method, params);
        let response = self.next_response(self.wait);
        assert_eq!(response["id"], id, "{response}");
        response
    }

    pub fn initialize(&mut self, version: &str) -> Json {
        self.initialize_declaring(version, json!({}))
    }

    /// `initialize` declaring `capabilities` (the servers may ask only what they allow).
    pub fn initialize_declaring(&mut self, version: &str, capabilities: Json) -> Json {
        let r = self.request(
            "initialize",
            json!({"protocolVersion": version, "capabilities": capabilities,
                   "clientInfo": {"name": "e2e", "version": "1"}}),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        r
    }

    pub fn tools(&mut self) -> Vec<Json> {
        let r = self.request("tools/list", json!({}));
        r["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{r}"))
            .clone()
    }

    pub fn call(&mut self, name: &str, arguments: Json) -> Json {
        let r = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        r.get("result").cloned().unwrap_or_else(|| panic!("{r}"))
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// The proxy's stderr once it contains every one of `lines` (they are written by a thread
    /// of their own, so they may come after the response that follows them), or as it is
    /// after `WAIT`.
    pub fn stderr_with(&self, lines: &[&str]) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            let stderr = self.stderr();
            if lines.iter().all(|line| stderr.contains(line)) || Instant::now() > deadline {
                return stderr;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Closes stdin, waits for the proxy to exit, and returns its stderr once it contains
    /// every one of `lines` (or as it is after `WAIT`).
    pub fn close_then_stderr_with(self, lines: &[&str]) -> String {
        let stderr = self.stderr.clone();
        self.close();
        let deadline = Instant::now() + WAIT;
        loop {
            let text = stderr.lock().unwrap().clone();
            if lines.iter().all(|line| text.contains(line)) || Instant::now() > deadline {
                return text;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Closes stdin and waits for the proxy to exit; returns how long it took.
    pub fn close(mut self) -> Duration {
        let started = Instant::now();
        drop(self.stdin.take());
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "{status}; stderr:\n{}", self.stderr());
                return started.elapsed();
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "the proxy did not exit"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Process ids of `pid`'s living descendants (Linux /proc).
pub fn descendants(pid: u32) -> Vec<u32> {
    let mut parents: Vec<(u32, u32)> = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(p) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) {
            let rest = &stat[stat.rfind(')').unwrap() + 2..];
            if rest.starts_with('Z') {
                continue;
            }
            let ppid: u32 = rest.split(' ').nth(1).unwrap().parse().unwrap();
            parents.push((p, ppid));
        }
    }
    let mut found = vec![pid];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        found.extend(
            parents
                .iter()
                .filter(|(_, pp)| *pp == parent)
                .map(|(p, _)| *p),
        );
        i += 1;
    }
    found.remove(0);
    found
}

/// An `mcpServers` entry for a server that never finishes starting: it reads `initialize`,
/// writes its pid to `DIR/pid`, and neither answers nor reads stdin again (so its EOF goes
/// unseen); a `SIGTERM` is written down in `DIR/term` before it exits (Python 3).
pub fn stuck_starting(dir: &Path) -> Json {
    let script = dir.join("stuck_server.py");
    std::fs::write(&script, STUCK_SERVER).unwrap();
    json!({"command": "python3", "args": [script, dir]})
}

const STUCK_SERVER: &str = r#"import os, signal, sys, time
d = sys.argv[1]
def term(*_):
    with open(os.path.join(d, "term"), "w") as f:
        f.write("TERM")
    os._exit(0)
signal.signal(signal.SIGTERM, term)
sys.stdin.readline()
with open(os.path.join(d, "pid.tmp"), "w") as f:
    f.write(str(os.getpid()))
os.rename(os.path.join(d, "pid.tmp"), os.path.join(d, "pid"))
time.sleep(300)
"#;

/// The pid a [`stuck_starting`] server wrote, once it has read its `initialize`.
pub fn stuck_pid(dir: &Path) -> u32 {
    let started = Instant::now();
    loop {
        if let Ok(pid) = std::fs::read_to_string(dir.join("pid")) {
            return pid.trim().parse().unwrap();
        }
        assert!(started.elapsed() < WAIT, "the server did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Sends `signal` (`-TERM`) to `child` and waits, 20 s at most, for it to exit.
pub fn signal_and_wait(child: &mut Child, signal: &str) {
    let ok = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no exit on {signal}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether `pid` runs (is not a zombie).
pub fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|s| !s[s.rfind(')').unwrap() + 2..].starts_with('Z'))
}

/// Answers the proxy's requests (the server's) until the response to `id` comes.
pub fn answer_until(client: &mut Client, id: u64, asked: &mut Vec<String>) -> Json {
    loop {
        let m = client.next_response(WAIT);
        let Some(method) = m["method"].as_str() else {
            assert_eq!(m["id"], id, "{m}");
            return m;
        };
        asked.push(method.to_owned());
        let result = match method {
            "roots/list" => json!({"roots": [{"uri": "file:///work", "name": "work"}]}),
            "sampling/createMessage" => json!({"role": "assistant", "model": "e2e-model",
                "content": {"type": "text", "text": "sampled by e2e"}}),
            "elicitation/create" => json!({"action": "decline"}),
            other => panic!("unexpected request {other}"),
        };
        client.send(&json!({"jsonrpc": "2.0", "id": m["id"], "result": result}));
    }
}

/// Waits for a notification that `matches` (among those already read, or to come).
pub fn wait_for_notification(client: &mut Client, matches: impl Fn(&Json) -> bool) -> Json {
    let deadline = Instant::now() + WAIT;
    let mut id = 9000;
    loop {
        if let Some(i) = client.notifications.iter().position(&matches) {
            return client.notifications.remove(i);
        }
        assert!(
            Instant::now() < deadline,
            "not seen: {:?}\n{}",
            client.notifications,
            client.stderr()
        );
        std::thread::sleep(Duration::from_millis(100));
        client.send(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}));
        answer_until(client, id, &mut Vec::new());
        id += 1;
    }
}

/// The JSON summary an agent script prints as its last stdout line (the SDK agents under
/// `tests/fixtures/mcp/clients`), once it ran; panics, naming `what` and with the agent's
/// output, when it printed none, exited with a failure or reported an `error`.
pub fn agent_summary(out: &std::process::Output, what: &str) -> Json {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let summary: Json = stdout
        .lines()
        .last()
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("{what}: no summary\n{stdout}{stderr}"));
    assert!(
        out.status.success() && summary.get("error").is_none(),
        "{what}: {summary}\n{stderr}"
    );
    summary
}

/// `TOON mcp serve --config CONFIG --http 127.0.0.1:0 ARGS` (without a token from the
/// environment), and the address it printed; its stderr is drained after, so that the servers'
/// stderr never blocks it.
pub fn http_proxy(toon: &Path, config: &Path, args: &[&str]) -> (Child, String) {
    let mut child = Command::new(toon)
        .args(serve_flags(args))
        .arg("--config")
        .arg(config)
        .args(["--http", "127.0.0.1:0"])
        .args(args)
        .env_remove("TOON_MCP_HTTP_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    let addr = loop {
        line.clear();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "the proxy exited");
        // Found anywhere in the line: with `TOON_LOG` set, lines start with level and target.
        if let Some((_, url)) = line
            .trim()
            .split_once("toon: MCP Streamable HTTP on http://")
        {
            // (and may end with fields).
            let url = url.split_whitespace().next().unwrap_or(url);
            break url.trim_end_matches("/mcp").to_owned();
        }
    };
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    (child, addr)
}
