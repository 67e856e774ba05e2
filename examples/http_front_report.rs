//! What `toon mcp serve --http` costs, measured against the crate's rmcp example server
//! (`notes_server`): the overhead per call through the HTTP front (median, interleaved with
//! direct stdio calls to the same kind of server, as `proxy_report` does for stdio), then 100
//! concurrent clients × 10 calls each, every one with its own session (so its own server
//! process), with the errors counted and the peak memory of the proxy and of the proxy with
//! every server it started.
//!
//! ```text
//! cargo build --release --features cli,mcp-proxy --bins --examples
//! cargo run --release --features cli,mcp-proxy --example http_front_report [CLIENTS] [CALLS] [MAX_SESSIONS]
//! ```

#[path = "../tests/mcp_servers/mod.rs"]
mod mcp_servers;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use mcp_servers::{Client, Scratch, examples_dir};
use serde_json::{Value as Json, json};

fn main() {
    let mut args = std::env::args()
        .skip(1)
        .map(|a| a.parse::<usize>().unwrap());
    let clients = args.next().unwrap_or(100);
    let calls = args.next().unwrap_or(10);
    let max_sessions = args.next().unwrap_or(32);
    let toon: PathBuf = examples_dir().parent().unwrap().join("toon");
    let notes = examples_dir().join("notes_server");
    assert!(
        toon.exists() && notes.exists(),
        "build first: cargo build --release --features cli,mcp-proxy --bins --examples"
    );
    let scratch = Scratch::new("http-report");
    let config = scratch.0.join("mcp.json");
    std::fs::write(
        &config,
        json!({"mcpServers": {"notes": {"command": notes}}}).to_string(),
    )
    .unwrap();
    let proxy = Proxy::start(&toon, &config, max_sessions);
    overhead(&proxy, &toon, &notes, &config);
    println!(
        "\n## {clients} concurrent clients × {calls} calls, a session each \
         (--http-max-sessions {max_sessions})\n"
    );
    concurrent_clients(&proxy, clients, calls);
    drop(proxy);
}

/// The overhead per call: notes_server directly, through the HTTP front and through the
/// stdio proxy, calls interleaved.
fn overhead(proxy: &Proxy, toon: &Path, notes: &Path, config: &Path) {
    println!(
        "## Overhead per call (notes_server: direct over stdio vs through the HTTP front, interleaved)\n"
    );
    let mut direct = Client::spawn(Command::new(notes));
    direct.initialize("2025-11-25");
    let mut http = Session::open(&proxy.addr);
    let mut stdio = Client::proxy(toon, config, &[]);
    stdio.initialize("2025-11-25");
    for i in 0..8 {
        let args =
            json!({"title": format!("note {i}"), "body": "some text to keep", "tags": ["a"]});
        direct.call("add_note", args.clone());
        http.call("add_note", &args);
        stdio.call("add_note", args);
    }
    for (tool, args) in [("wait", json!({"millis": 0})), ("list_notes", json!({}))] {
        let (mut d, mut h, mut s) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..300 {
            let started = Instant::now();
            direct.call(tool, args.clone());
            d.push(ms(started.elapsed()));
            let started = Instant::now();
            http.call(tool, &args);
            h.push(ms(started.elapsed()));
            let started = Instant::now();
            stdio.call(tool, args.clone());
            s.push(ms(started.elapsed()));
        }
        let (dm, hm, sm) = (median(&mut d), median(&mut h), median(&mut s));
        println!(
            "{tool:<12} direct {dm:>6.3} ms | stdio proxy {sm:>6.3} ms, overhead {:>6.3} ms | \
             HTTP proxy {hm:>6.3} ms, overhead {:>6.3} ms",
            sm - dm,
            hm - dm
        );
    }
    http.close();
    direct.close();
    stdio.close();
}

/// `clients` concurrent clients of `calls` calls each, every one with a session of its own;
/// their times and errors, and the peak memory of the proxy and of the proxy with its
/// servers.
fn concurrent_clients(proxy: &Proxy, clients: usize, calls: usize) {
    let stop = Arc::new(AtomicBool::new(false));
    let (peak_tree, sampler) = peak_rss(proxy.child.id(), stop.clone());
    let started = Instant::now();
    let workers: Vec<_> = (0..clients)
        .map(|c| {
            let addr = proxy.addr.clone();
            std::thread::spawn(move || client_calls(&addr, c, calls))
        })
        .collect();
    let mut errors = Vec::new();
    let mut times = Vec::new();
    for worker in workers {
        match worker.join().unwrap() {
            Ok(t) => times.push(ms(t)),
            Err(e) => errors.push(e),
        }
    }
    let wall = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    sampler.join().unwrap();
    let hwm = status_field(proxy.child.id(), "VmHWM");
    println!(
        "{} of {clients} clients done, {} errors, in {:.2} s ({:.0} calls/s); per client \
         median {:.0} ms, max {:.0} ms",
        times.len(),
        errors.len(),
        wall.as_secs_f64(),
        (times.len() * calls) as f64 / wall.as_secs_f64(),
        median(&mut times.clone()),
        times.iter().copied().fold(0.0, f64::max)
    );
    for e in errors.iter().take(5) {
        println!("  error: {e}");
    }
    println!(
        "peak RSS: proxy alone {hwm}; proxy + its servers (sampled every 20 ms) {} MiB",
        peak_tree.load(Ordering::Relaxed) / 1024
    );
}

/// The highest resident memory of process `pid` with its descendants, sampled every 20 ms
/// on a thread of its own until `stop`.
fn peak_rss(pid: u32, stop: Arc<AtomicBool>) -> (Arc<AtomicU64>, JoinHandle<()>) {
    let peak = Arc::new(AtomicU64::new(0));
    let sampler = {
        let peak = peak.clone();
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let total: u64 = std::iter::once(pid)
                    .chain(mcp_servers::descendants(pid))
                    .map(rss_kib)
                    .sum();
                peak.fetch_max(total, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    (peak, sampler)
}

/// Client `c`: a session of its own, `calls` calls, closed; how long it took, or its first
/// error.
fn client_calls(addr: &str, c: usize, calls: usize) -> Result<Duration, String> {
    let started = Instant::now();
    let mut session = Session::try_open(addr)?;
    for i in 0..calls {
        let args = json!({"title": format!("c{c} n{i}"), "body": "x", "tags": []});
        let r = session.try_call("add_note", &args)?;
        if r["result"]["isError"] == true || r.get("error").is_some() {
            return Err(format!("client {c} call {i}: {r}"));
        }
    }
    session.close();
    Ok(started.elapsed())
}

struct Proxy {
    child: Child,
    addr: String,
}

impl Proxy {
    fn start(toon: &Path, config: &Path, max_sessions: usize) -> Proxy {
        let max_sessions = max_sessions.to_string();
        let (child, addr) =
            mcp_servers::http_proxy(toon, config, &["--http-max-sessions", &max_sessions]);
        Proxy { child, addr }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

/// One session over one keep-alive connection, as an SDK client keeps it.
struct Session {
    stream: BufReader<TcpStream>,
    addr: String,
    id: String,
    next: u64,
}

impl Session {
    fn open(addr: &str) -> Session {
        Session::try_open(addr).unwrap()
    }

    fn try_open(addr: &str) -> Result<Session, String> {
        let stream = TcpStream::connect(addr).map_err(|e| e.to_string())?;
        stream.set_nodelay(true).unwrap();
        let mut session = Session {
            stream: BufReader::new(stream),
            addr: addr.to_owned(),
            id: String::new(),
            next: 1,
        };
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "report", "version": "1"}}});
        let (status, id, _) = session.exchange("POST", &init.to_string())?;
        if status != 200 {
            return Err(format!("initialize: {status}"));
        }
        session.id = id.ok_or("no session id")?;
        let (status, _, _) = session.exchange(
            "POST",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        )?;
        if status != 202 {
            return Err(format!("initialized: {status}"));
        }
        Ok(session)
    }

    fn call(&mut self, tool: &str, args: &Json) -> Json {
        self.try_call(tool, args).unwrap()
    }

    fn try_call(&mut self, tool: &str, args: &Json) -> Result<Json, String> {
        let id = self.next;
        self.next += 1;
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                          "params": {"name": tool, "arguments": args}});
        let (status, _, body) = self.exchange("POST", &body.to_string())?;
        if status != 200 {
            return Err(format!("{tool}: {status} {body}"));
        }
        let data = body
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .next_back()
            .unwrap_or(&body);
        serde_json::from_str(data).map_err(|e| format!("{e}: {body}"))
    }

    fn close(mut self) {
        let _ = self.exchange("DELETE", "");
    }

    /// One request on the connection: (status, session id header, body).
    fn exchange(
        &mut self,
        method: &str,
        body: &str,
    ) -> Result<(u16, Option<String>, String), String> {
        let mut request = format!(
            "{method} /mcp HTTP/1.1\r\nHost: {}\r\nAccept: application/json, text/event-stream\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n",
            self.addr,
            body.len()
        );
        if !self.id.is_empty() {
            request.push_str(&format!(
                "Mcp-Session-Id: {}\r\nMCP-Protocol-Version: 2025-11-25\r\n",
                self.id
            ));
        }
        request.push_str("\r\n");
        request.push_str(body);
        let e = |e: std::io::Error| e.to_string();
        self.stream
            .get_mut()
            .write_all(request.as_bytes())
            .map_err(e)?;
        let mut line = String::new();
        self.stream.read_line(&mut line).map_err(e)?;
        let status: u16 = line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("no status line: {line:?}"))?;
        let (mut length, mut chunked, mut session) = (None, false, None);
        loop {
            line.clear();
            self.stream.read_line(&mut line).map_err(e)?;
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            let (name, value) = header.split_once(':').unwrap_or((header, ""));
            let value = value.trim();
            match name.to_ascii_lowercase().as_str() {
                "content-length" => length = value.parse::<usize>().ok(),
                "transfer-encoding" => chunked = value == "chunked",
                "mcp-session-id" => session = Some(value.to_owned()),
                _ => {}
            }
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                line.clear();
                self.stream.read_line(&mut line).map_err(e)?;
                let n = usize::from_str_radix(line.trim(), 16).map_err(|x| x.to_string())?;
                let mut chunk = vec![0; n + 2];
                self.stream.read_exact(&mut chunk).map_err(e)?;
                if n == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..n]);
            }
        } else if let Some(n) = length {
            body.resize(n, 0);
            self.stream.read_exact(&mut body).map_err(e)?;
        }
        Ok((status, session, String::from_utf8_lossy(&body).into_owned()))
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn status_field(pid: u32, key: &str) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with(key))
        .map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

fn rss_kib(pid: u32) -> u64 {
    status_field(pid, "VmRSS")
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}
