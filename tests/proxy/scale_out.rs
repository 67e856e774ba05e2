//! Scale-out behind a real load balancer: three replicas of `toon mcp serve --http
//! --http-replica rN` behind Debian's nginx, configured as docs/deployment.md says, with 100
//! clients at once (50 stateless 2026-07-28 clients, 50 2025-11-25 sessions), and one replica
//! stopped (SIGTERM) mid-run. Stateless requests go to any replica; a session's requests go to
//! the replica whose name its id starts with; once that replica has stopped, they get 404 from
//! another one and the client initializes anew (§ Session Management). Nothing else fails.
//!
//! nginx comes from Debian's `nginx` package (`.ci/run` installs it with
//! `scripts/install-test-tools.sh`); without it the test says so and does nothing.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

use super::http_front::{
    POST, Reply, http, modern_body, modern_headers, serve_refused, wait_until,
};
use crate::mcp_servers::{self, Scratch};

const REPLICAS: usize = 3;
const STATELESS_CLIENTS: usize = 50;
const SESSION_CLIENTS: usize = 50;
const CALLS: usize = 10;

/// Debian's nginx, where its package puts it.
fn nginx_binary() -> Option<PathBuf> {
    ["/usr/sbin/nginx", "/usr/bin/nginx"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

/// A port free now (nginx binds it a moment later).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// nginx in the foreground, its files in `dir`.
struct Nginx {
    child: Child,
    addr: String,
    dir: PathBuf,
}

impl Nginx {
    fn start(binary: &Path, dir: &Path, replicas: &[(String, String)]) -> Nginx {
        let addr = format!("127.0.0.1:{}", free_port());
        let conf = dir.join("nginx.conf");
        std::fs::write(&conf, nginx_conf(dir, &addr, replicas)).unwrap();
        let child = Command::new(binary)
            .arg("-p")
            .arg(dir)
            .arg("-c")
            .arg(&conf)
            .arg("-e")
            .arg(dir.join("error.log"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let nginx = Nginx {
            child,
            addr,
            dir: dir.to_owned(),
        };
        let started = Instant::now();
        while std::net::TcpStream::connect(&nginx.addr).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "nginx did not listen on {}: {}",
                nginx.addr,
                std::fs::read_to_string(dir.join("error.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        nginx
    }

    /// The access log: (status, upstream addresses tried, session id, method).
    fn log(&self) -> Vec<(u16, Vec<String>, String, String)> {
        let text = std::fs::read_to_string(self.dir.join("access.log")).unwrap();
        text.lines()
            .map(|line| {
                let f: Vec<&str> = line.split('\t').collect();
                let upstreams = f[1].split(", ").map(str::to_owned).collect();
                (
                    f[0].parse().unwrap(),
                    upstreams,
                    f[2].to_owned(),
                    f[3].to_owned(),
                )
            })
            .collect()
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// docs/deployment.md's configuration, on loopback: stateless requests (no session id) to
/// any replica; a session's to its replica, the others as `backup` so that once it is gone
/// the request reaches one that answers 404.
fn nginx_conf(dir: &Path, addr: &str, replicas: &[(String, String)]) -> String {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0");
    let dir = dir.display();
    let mut upstreams = String::from("  upstream mcp_any {\n");
    for (_, a) in replicas {
        upstreams.push_str(&format!("    server {a};\n"));
    }
    upstreams.push_str("  }\n");
    let mut map = String::new();
    for (name, a) in replicas {
        upstreams.push_str(&format!("  upstream mcp_{name} {{\n    server {a};\n"));
        for (_, other) in replicas.iter().filter(|(_, o)| o != a) {
            upstreams.push_str(&format!("    server {other} backup;\n"));
        }
        upstreams.push_str("  }\n");
        map.push_str(&format!("    ~^{name}\\. mcp_{name};\n"));
    }
    format!(
        r#"{user}worker_processes 1;
pid {dir}/nginx.pid;
daemon off;
events {{ worker_connections 1024; }}
http {{
  client_body_temp_path {dir}/body;
  proxy_temp_path {dir}/proxy;
  fastcgi_temp_path {dir}/fastcgi;
  uwsgi_temp_path {dir}/uwsgi;
  scgi_temp_path {dir}/scgi;
  log_format mcp '$status\t$upstream_addr\t$http_mcp_session_id\t$request_method';
  access_log {dir}/access.log mcp;
{upstreams}  map $http_mcp_session_id $mcp_upstream {{
    default mcp_any;
{map}  }}
  server {{
    listen {addr};
    location /mcp {{
      proxy_pass http://$mcp_upstream;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_buffering off;
      proxy_read_timeout 1h;
    }}
  }}
}}
"#,
        user = if root { "user root;\n" } else { "" },
    )
}

/// One request's outcome, for the figures.
struct Done {
    after_stop: bool,
    initialize: bool,
    latency: Duration,
}

/// What every client shares.
struct Run {
    nginx: String,
    stopped: AtomicBool,
    calls: AtomicUsize,
    done: Mutex<Vec<Done>>,
    /// Session ids answered 404 (their replica stopped) and initialized anew.
    gone: Mutex<Vec<String>>,
}

impl Run {
    fn call(&self, headers: &[(&str, &str)], body: &str) -> Reply {
        let after_stop = self.stopped.load(Ordering::SeqCst);
        let started = Instant::now();
        let reply = http(&self.nginx, "POST", "/mcp", headers, body);
        let latency = started.elapsed();
        self.done.lock().unwrap().push(Done {
            after_stop,
            initialize: body.contains(r#""method":"initialize""#),
            latency,
        });
        reply
    }

    /// A tools/call answer, checked to be this request's own and to say `text`.
    fn checked(reply: &Reply, id: &str, text: &str) {
        assert_eq!(reply.status, 200, "{id}: {reply:?}");
        let m = reply.message();
        assert_eq!(m["id"], id, "{m}");
        assert_eq!(m["result"]["content"][0]["text"], text, "{id}: {m}");
    }

    /// Calls `wait` (the notes server's tool that says how long it waited).
    fn stateless_client(&self, i: usize) {
        for n in 0..CALLS {
            let id = format!("s{i}-{n}");
            let body = modern_body(
                json!(id),
                "tools/call",
                json!({"name": "wait", "arguments": {"millis": n}}),
            );
            let reply = self.call(&modern_headers("tools/call", Some("wait")), &body);
            Self::checked(&reply, &id, &format!("waited {n} ms"));
            self.calls.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn initialize(&self) -> String {
        let body = json!({"jsonrpc": "2.0", "id": "init", "method": "initialize",
               "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                          "clientInfo": {"name": "scale", "version": "1"}}});
        let r = self.call(&POST, &body.to_string());
        assert_eq!(r.status, 200, "{r:?}");
        let session = r.header("mcp-session-id").unwrap().to_owned();
        let mut headers = POST.to_vec();
        headers.push(("Mcp-Session-Id", &session));
        let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let r = self.call(&headers, note);
        assert_eq!(r.status, 202, "{r:?}");
        session
    }

    /// Adds notes: the session's own server numbers them, so each answer shows that the
    /// request reached its session's replica and server, and no other.
    fn session_client(&self, i: usize) {
        let mut session = self.initialize();
        let mut notes = 0;
        for n in 0..CALLS {
            let id = format!("c{i}-{n}");
            let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": "add_note", "arguments": {"title": id, "body": "b"}}})
            .to_string();
            let mut headers = POST.to_vec();
            headers.push(("Mcp-Session-Id", &session));
            let mut reply = self.call(&headers, &body);
            if reply.status == 404 {
                // Only the stopped replica's sessions, only once it has been stopped.
                assert!(self.stopped.load(Ordering::SeqCst), "{session}: {reply:?}");
                assert!(session.starts_with("r2."), "{session}: {reply:?}");
                assert_eq!(reply.message()["error"]["code"], -32001, "{reply:?}");
                self.gone.lock().unwrap().push(session.clone());
                session = self.initialize();
                notes = 0;
                let mut headers = POST.to_vec();
                headers.push(("Mcp-Session-Id", &session));
                reply = self.call(&headers, &body);
            }
            notes += 1;
            Self::checked(&reply, &id, &format!("added note {notes}"));
            self.calls.fetch_add(1, Ordering::SeqCst);
        }
        let r = http(
            &self.nginx,
            "DELETE",
            "/mcp",
            &[("Mcp-Session-Id", &session)],
            "",
        );
        assert_eq!(r.status, 200, "{session}: {r:?}");
    }
}

/// p50, p95 and the slowest, in milliseconds.
fn spread(mut latencies: Vec<Duration>) -> String {
    if latencies.is_empty() {
        return "none".to_owned();
    }
    latencies.sort();
    let at = |q: f64| {
        let i = ((latencies.len() as f64 - 1.0) * q).round() as usize;
        latencies[i].as_secs_f64() * 1e3
    };
    format!(
        "{} requests, p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        latencies.len(),
        at(0.5),
        at(0.95),
        at(1.0)
    )
}

#[test]
fn three_replicas_behind_nginx_100_clients_and_one_replica_stopped() {
    let Some(binary) = nginx_binary() else {
        eprintln!(
            "SKIPPED three_replicas_behind_nginx: nginx is not installed \
             (Debian's `nginx`; scripts/install-test-tools.sh installs it)"
        );
        return;
    };
    let scratch = Scratch::new("scale-out");
    let config = notes_config(&scratch.0);
    let toon = Path::new(env!("CARGO_BIN_EXE_toon"));
    let mut replicas: Vec<(String, Child, String)> = (1..=REPLICAS)
        .map(|n| {
            let name = format!("r{n}");
            let args = ["--http-replica", &name, "--http-max-sessions", "64"];
            let (child, addr) = mcp_servers::http_proxy(toon, &config, &args);
            (name, child, addr)
        })
        .collect();
    let names: Vec<(String, String)> = replicas
        .iter()
        .map(|(n, _, a)| (n.clone(), a.clone()))
        .collect();
    let nginx = Nginx::start(&binary, &scratch.0, &names);
    let run = Arc::new(Run {
        nginx: nginx.addr.clone(),
        stopped: AtomicBool::new(false),
        calls: AtomicUsize::new(0),
        done: Mutex::default(),
        gone: Mutex::default(),
    });
    let clients: Vec<_> = (0..STATELESS_CLIENTS + SESSION_CLIENTS)
        .map(|i| {
            let run = run.clone();
            std::thread::spawn(move || {
                if i < STATELESS_CLIENTS {
                    run.stateless_client(i);
                } else {
                    run.session_client(i);
                }
            })
        })
        .collect();

    // Mid-run: a third of the calls made, the others under way.
    let total = (STATELESS_CLIENTS + SESSION_CLIENTS) * CALLS;
    wait_until("a third of the calls", Duration::from_secs(120), || {
        run.calls.load(Ordering::SeqCst) >= total / 3
    });
    let (_, stopped, _) = &mut replicas[1];
    let term = Command::new("kill")
        .args(["-TERM", &stopped.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    run.stopped.store(true, Ordering::SeqCst);
    let mut failed = Vec::new();
    for client in clients {
        if let Err(e) = client.join() {
            failed.push(e);
        }
    }
    assert!(failed.is_empty(), "{} clients failed", failed.len());
    let exit = stopped.wait().unwrap();
    assert!(exit.success(), "the stopped replica: {exit}");

    check_routing(&nginx, &replicas, &run);
    let done = std::mem::take(&mut *run.done.lock().unwrap());
    let latencies = |after_stop: bool, initialize: bool| {
        spread(
            done.iter()
                .filter(|d| d.after_stop == after_stop && d.initialize == initialize)
                .map(|d| d.latency)
                .collect(),
        )
    };
    eprintln!(
        "scale-out: before the stop: tool calls and notifications {}; initialize {}",
        latencies(false, false),
        latencies(false, true)
    );
    eprintln!(
        "scale-out: after the stop: tool calls and notifications {}; initialize {}; {} sessions of r2 initialized anew",
        latencies(true, false),
        latencies(true, true),
        run.gone.lock().unwrap().len()
    );
}

/// Sessions only ever reached their own replica (or, once it was gone, a backup that said
/// 404); stateless requests reached every replica.
fn check_routing(nginx: &Nginx, replicas: &[(String, Child, String)], run: &Run) {
    let replica_of = |addr: &str| {
        replicas
            .iter()
            .find(|(_, _, a)| a == addr)
            .map(|(n, _, _)| n.clone())
            .unwrap_or_else(|| panic!("{addr} is no replica"))
    };
    let mut without_session: HashMap<String, usize> = HashMap::new();
    let gone = run.gone.lock().unwrap();
    for (status, upstreams, session, method) in nginx.log() {
        let served_by = replica_of(upstreams.last().unwrap());
        if session.is_empty() || session == "-" {
            assert_eq!(method, "POST");
            *without_session.entry(served_by).or_default() += 1;
            continue;
        }
        let owner = session.split('.').next().unwrap();
        if status == 404 {
            assert!(owner == "r2" && gone.contains(&session), "{session}");
            assert_ne!(served_by, "r2");
        } else {
            assert!(status < 300, "{status} for {session}");
            assert_eq!(served_by, owner, "{session} served by {served_by}");
        }
    }
    for (name, _, _) in replicas {
        let n = without_session.get(name).copied().unwrap_or(0);
        assert!(
            n >= 20,
            "{name} served {n} requests without a session: {without_session:?}"
        );
    }
    eprintln!("scale-out: requests without a session, by replica: {without_session:?}");
}

/// The repo's notes server (Rust, rmcp): each of the 50 sessions starts one, in
/// milliseconds, so the test costs little beside the others.
fn notes_config(scratch: &Path) -> PathBuf {
    let notes = mcp_servers::examples_dir().join("notes_server");
    assert!(notes.exists(), "{} not built", notes.display());
    let path = scratch.join("mcp.json");
    let config = json!({"mcpServers": {"notes": {"command": notes}}});
    std::fs::write(&path, config.to_string()).unwrap();
    path
}

#[test]
fn a_replica_name_that_cannot_start_a_session_id_is_refused() {
    let scratch = Scratch::new("scale-out-name");
    let config = scratch.0.join("mcp.json");
    std::fs::write(&config, r#"{"mcpServers": {}}"#).unwrap();
    let stderr = serve_refused(&config, &["--http", "127.0.0.1:0", "--http-replica", "r.1"]);
    assert!(
        stderr.contains(r#"the replica name "r.1" must be 1 to 63 ASCII letters, digits, - or _"#),
        "{stderr}"
    );
}
