//! The proxy's metrics, health probes and status page, scraped over HTTP from a running
//! `toon mcp serve` (on the HTTP front, and on a stdio proxy's `--metrics` address) after a
//! known workload against the repo's wild fixture server (Python 3 only): the numbers must be
//! the workload's, and `promtool check metrics` (Debian's `prometheus` package; `.ci/run`
//! installs it) must accept the text.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::http_front::{Proxy, call_in, http, initialize, serve_refused, wait_until, wild_config};
use crate::mcp_servers::{self, Scratch};
use serde_json::{Value as Json, json};

/// The value of the sample `series` (its name and labels exactly as written), if present.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .and_then(|v| v.trim().parse().ok())
}

/// `promtool check metrics` on `text`, or why it cannot run (then the caller says so).
fn promtool_accepts(text: &str) {
    let Ok(mut child) = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    else {
        eprintln!(
            "SKIPPED promtool check: `promtool` is not on PATH (Debian package `prometheus`; \
             scripts/install-test-tools.sh installs it)"
        );
        return;
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "promtool refused the metrics:\n{}{}\n{text}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// What the wild server's known workload leaves in the metrics: four `ordered` calls
/// (converted), one `nan` call (its reply is not JSON: an error), one call of a tool no
/// server has (refused by the proxy: no label).
fn check_workload(text: &str) {
    let series = |s: &str| sample(text, s);
    let ordered = r#"{server="wild",tool="ordered"}"#;
    let nan = r#"{server="wild",tool="nan"}"#;
    assert_eq!(
        series(&format!("toon_mcp_tool_calls_total{ordered}")),
        Some(4.0),
        "{text}"
    );
    assert_eq!(
        series(&format!("toon_mcp_tool_errors_total{ordered}")),
        Some(0.0),
        "every call's error series starts at 0"
    );
    assert_eq!(
        series(&format!("toon_mcp_tool_calls_total{nan}")),
        Some(1.0)
    );
    assert_eq!(
        series(&format!("toon_mcp_tool_errors_total{nan}")),
        Some(1.0)
    );
    let count = format!("toon_mcp_tool_call_duration_seconds_count{ordered}");
    assert_eq!(series(&count), Some(4.0));
    let inf =
        r#"toon_mcp_tool_call_duration_seconds_bucket{server="wild",tool="ordered",le="+Inf"}"#;
    assert_eq!(series(inf), Some(4.0), "{text}");
    assert!(!text.contains("no_such_tool"), "{text}");
    let before = series(r#"toon_mcp_result_tokens_before_total{server="wild"}"#).unwrap();
    let after = series(r#"toon_mcp_result_tokens_after_total{server="wild"}"#).unwrap();
    assert!(before > after && after > 0.0, "{before} -> {after}");
    let bytes_before = series(r#"toon_mcp_result_bytes_before_total{server="wild"}"#).unwrap();
    let bytes_after = series(r#"toon_mcp_result_bytes_after_total{server="wild"}"#).unwrap();
    assert!(
        bytes_before > bytes_after,
        "{bytes_before} -> {bytes_after}"
    );
    let conversions: f64 = ["toon", "json"]
        .iter()
        .filter_map(|f| {
            series(&format!(
                "toon_mcp_result_conversions_total{{format=\"{f}\"}}"
            ))
        })
        .sum();
    assert_eq!(conversions, 4.0, "{text}");
    assert!(series(r#"toon_mcp_server_starts_total{server="wild"}"#).unwrap() >= 1.0);
    assert_eq!(series("toon_mcp_requests_in_flight"), Some(0.0));
    assert_eq!(series("toon_mcp_listens"), Some(0.0));
    assert_eq!(series("toon_mcp_log_lines_dropped_total"), Some(0.0));
    promtool_accepts(text);
}

/// A private token file holding `s3cret`.
fn token_file(scratch: &Path) -> std::path::PathBuf {
    let token = scratch.join("token");
    std::fs::write(&token, "s3cret\n").unwrap();
    let mut perms = std::fs::metadata(&token).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o600);
    std::fs::set_permissions(&token, perms).unwrap();
    token
}

#[test]
fn the_http_front_serves_metrics_of_a_known_workload_and_probes_without_the_token() {
    let scratch = Scratch::new("observe-http");
    let config = wild_config(&scratch.0);
    let token = token_file(&scratch.0);
    let proxy = Proxy::start(&config, &["--http-token-file", token.to_str().unwrap()]);
    let bearer = [("Authorization", "Bearer s3cret")];

    // Probes need no token; the first /readyz starts every server once (no session has).
    let health = http(&proxy.addr, "GET", "/healthz", &[], "");
    assert_eq!((health.status, health.body.as_str()), (200, "ok\n"));
    let first = http(&proxy.addr, "GET", "/readyz", &[], "");
    assert_eq!(first.status, 503, "{first:?}");
    assert_eq!(
        serde_json::from_str::<Json>(&first.body).unwrap(),
        json!({"ready": false, "servers": [{"name": "wild", "state": "starting"}]})
    );
    wait_until("ready", Duration::from_secs(20), || {
        http(&proxy.addr, "GET", "/readyz", &[], "").status == 200
    });
    let ready = http(&proxy.addr, "GET", "/readyz", &[], "");
    assert_eq!(
        serde_json::from_str::<Json>(&ready.body).unwrap(),
        json!({"ready": true, "servers": [{"name": "wild", "state": "up"}]})
    );
    // The metrics need it, as MCP does.
    let refused = http(&proxy.addr, "GET", "/metrics", &[], "");
    assert_eq!(refused.status, 401, "{refused:?}");
    let post = http(&proxy.addr, "POST", "/metrics", &bearer, "");
    assert_eq!(post.status, 405, "{post:?}");

    let session = initialize(&proxy, &bearer);
    for _ in 0..4 {
        let r = call_in(&proxy, &session, &bearer, "ordered", json!({}));
        assert!(r["result"]["content"][0]["text"].is_string(), "{r}");
    }
    let r = call_in(&proxy, &session, &bearer, "nan", json!({}));
    assert!(r["error"]["message"].is_string(), "{r}");
    let r = call_in(&proxy, &session, &bearer, "no_such_tool", json!({}));
    assert!(r["error"].is_object(), "{r}");

    let scrape = http(&proxy.addr, "GET", "/metrics", &bearer, "");
    assert_eq!(scrape.status, 200, "{scrape:?}");
    assert_eq!(
        scrape.header("content-type"),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    check_workload(&scrape.body);
    assert_eq!(sample(&scrape.body, "toon_mcp_sessions"), Some(1.0));
    // The warm-up's start and the session's.
    let starts = sample(
        &scrape.body,
        r#"toon_mcp_server_starts_total{server="wild"}"#,
    );
    assert_eq!(starts, Some(2.0), "{}", scrape.body);
}

#[test]
fn metrics_public_opens_only_the_metrics() {
    let scratch = Scratch::new("observe-public");
    let config = wild_config(&scratch.0);
    let token = token_file(&scratch.0);
    let proxy = Proxy::start(
        &config,
        &[
            "--http-token-file",
            token.to_str().unwrap(),
            "--metrics-public",
        ],
    );
    let scrape = http(&proxy.addr, "GET", "/metrics", &[], "");
    assert_eq!(scrape.status, 200, "{scrape:?}");
    assert!(
        scrape.body.contains("# TYPE toon_mcp_sessions gauge"),
        "{scrape:?}"
    );
    let mcp = http(&proxy.addr, "POST", "/mcp", &[], "{}");
    assert_eq!(mcp.status, 401);
    // A foreign page may not read them (the Origin rule holds for every path).
    let origin = [("Origin", "http://evil.example")];
    assert_eq!(http(&proxy.addr, "GET", "/readyz", &origin, "").status, 403);
}

/// `toon mcp serve --metrics 127.0.0.1:0` over stdio, and the metrics address it printed.
fn stdio_with_metrics(config: &Path) -> (mcp_servers::Client, String) {
    stdio_with_metrics_and(config, &[])
}

/// `toon mcp serve --metrics 127.0.0.1:0 ARGS` over stdio, and the metrics address it printed.
fn stdio_with_metrics_and(config: &Path, args: &[&str]) -> (mcp_servers::Client, String) {
    let toon = Path::new(env!("CARGO_BIN_EXE_toon"));
    let args = [&["--metrics", "127.0.0.1:0"][..], args].concat();
    let client = mcp_servers::Client::proxy(toon, config, &args);
    let started = Instant::now();
    let addr = loop {
        let stderr = client.stderr();
        if let Some(at) = stderr.find("toon: metrics on http://") {
            let rest = &stderr[at + "toon: metrics on http://".len()..];
            break rest[..rest.find("/metrics").unwrap()].to_owned();
        }
        assert!(started.elapsed() < Duration::from_secs(20), "{stderr}");
        std::thread::sleep(Duration::from_millis(20));
    };
    (client, addr)
}

#[test]
fn a_stdio_proxy_serves_metrics_on_its_own_address_and_says_its_totals_on_exit() {
    let scratch = Scratch::new("observe-stdio");
    let config = wild_config(&scratch.0);
    let (mut client, addr) = stdio_with_metrics(&config);
    // Its servers start at the client's initialize: not ready before.
    let early = http(&addr, "GET", "/readyz", &[], "");
    assert_eq!(early.status, 503, "{early:?}");
    assert_eq!(http(&addr, "GET", "/healthz", &[], "").status, 200);
    client.initialize("2025-11-25");
    wait_until("ready", Duration::from_secs(20), || {
        http(&addr, "GET", "/readyz", &[], "").status == 200
    });
    for _ in 0..4 {
        client.call("ordered", json!({}));
    }
    let r = client.request("tools/call", json!({"name": "nan", "arguments": {}}));
    assert!(r["error"].is_object(), "{r}");
    let r = client.request(
        "tools/call",
        json!({"name": "no_such_tool", "arguments": {}}),
    );
    assert!(r["error"].is_object(), "{r}");
    let scrape = http(&addr, "GET", "/metrics", &[], "");
    assert_eq!(scrape.status, 200);
    check_workload(&scrape.body);
    assert_eq!(http(&addr, "GET", "/mcp", &[], "").status, 404);
    assert_eq!(http(&addr, "GET", "/status", &[], "").status, 404);

    assert!(!client.stderr().contains("toon: totals:"));
    let stderr = client.close_then_stderr_with(&["toon: totals: "]);
    let totals: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("toon: totals: "))
        .collect();
    assert_eq!(totals.len(), 1, "{stderr}");
    let line = totals[0];
    assert!(
        line.starts_with("toon: totals: 1 server (1 up, 0 unavailable), ")
            && line.contains(" tools, 5 calls (1 failed), tokens "),
        "{line}"
    );
}

#[test]
fn a_stdio_proxy_s_metrics_refuse_foreign_hosts_and_origins() {
    let scratch = Scratch::new("observe-stdio-rebinding");
    let config = wild_config(&scratch.0);
    let (_client, addr) = stdio_with_metrics(&config);
    let port = addr.rsplit_once(':').unwrap().1;
    // A page of another origin, or one that rebound its own name to 127.0.0.1.
    let rebound = format!("evil.example:{port}");
    let hostile: [&[(&str, &str)]; 3] = [
        &[("Host", &rebound)],
        &[("Origin", "http://evil.example")],
        &[("Host", &rebound), ("Origin", "http://evil.example")],
    ];
    for path in ["/metrics", "/healthz", "/readyz"] {
        for headers in hostile {
            let reply = http(&addr, "GET", path, headers, "");
            assert_eq!(reply.status, 403, "{path} {headers:?}: {reply:?}");
            assert!(!reply.body.contains("toon_mcp_"), "{reply:?}");
            assert_eq!(reply.header("cache-control"), Some("no-store"));
        }
    }
    let own = format!("localhost:{port}");
    let origin = format!("http://127.0.0.1:{port}");
    let friendly = [("Host", own.as_str()), ("Origin", origin.as_str())];
    let scrape = http(&addr, "GET", "/metrics", &friendly, "");
    assert_eq!(scrape.status, 200, "{scrape:?}");
    assert_eq!(scrape.header("cache-control"), Some("no-store"));
    let post = http(&addr, "POST", "/metrics", &[], "");
    assert_eq!(post.status, 405, "{post:?}");
    assert_eq!(post.header("cache-control"), Some("no-store"));
}

#[test]
fn a_stdio_proxy_s_metrics_take_a_token_and_a_flag_to_be_exposed() {
    let scratch = Scratch::new("observe-stdio-token");
    let config = wild_config(&scratch.0);
    let stderr = serve_refused(&config, &["--metrics", "0.0.0.0:9464"]);
    assert!(
        stderr.contains("--metrics 0.0.0.0:9464 is not a loopback address")
            && stderr.contains("--metrics-allow-remote"),
        "{stderr}"
    );
    let token = token_file(&scratch.0);
    let (_client, addr) =
        stdio_with_metrics_and(&config, &["--metrics-token-file", token.to_str().unwrap()]);
    let refused = http(&addr, "GET", "/metrics", &[], "");
    assert_eq!(refused.status, 401, "{refused:?}");
    assert_eq!(refused.header("www-authenticate"), Some("Bearer"));
    assert_eq!(refused.header("cache-control"), Some("no-store"));
    for bearer in ["Bearer s3cret", "BEARER s3cret"] {
        let scrape = http(&addr, "GET", "/metrics", &[("Authorization", bearer)], "");
        assert_eq!(scrape.status, 200, "{bearer}: {scrape:?}");
    }
    // Probes stay open.
    assert_eq!(http(&addr, "GET", "/healthz", &[], "").status, 200);
}

/// The file descriptors `pid` has open (Linux /proc).
fn open_files(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, Iterator::count)
}

#[test]
fn idle_connections_to_a_stdio_proxy_s_metrics_cannot_take_its_descriptors() {
    let scratch = Scratch::new("observe-stdio-flood");
    let config = wild_config(&scratch.0);
    let (mut client, addr) = stdio_with_metrics(&config);
    let pid = client.child.id();
    assert_eq!(http(&addr, "GET", "/healthz", &[], "").status, 200);
    let before = open_files(pid);
    // Connections that never send a byte, held open (1,100 exhausted the default 1,024).
    let idle: Vec<std::net::TcpStream> = (0..400)
        .map(|_| std::net::TcpStream::connect(&addr).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(1500));
    let during = open_files(pid);
    eprintln!("descriptors: {before} before, {during} with 400 idle connections held");
    // Each room holds 16 (an unauthenticated one has a second handle, to peek at it).
    assert!(
        during <= before + 2 * 16 + 8,
        "{during} descriptors open with {} idle connections held, {before} before",
        idle.len()
    );
    // Still served: a probe on a new connection, and the servers start and answer.
    assert_eq!(http(&addr, "GET", "/healthz", &[], "").status, 200);
    client.initialize("2025-11-25");
    let r = client.call("ordered", json!({}));
    assert!(r["content"][0]["text"].is_string(), "{r}");
    drop(idle);
}

#[test]
fn a_server_still_starting_for_the_readyz_warm_up_is_stopped_at_sigterm() {
    let scratch = Scratch::new("observe-stuck-warm-up");
    let config = scratch.0.join("mcp.json");
    let stuck = mcp_servers::stuck_starting(&scratch.0);
    std::fs::write(&config, json!({"mcpServers": {"stuck": stuck}}).to_string()).unwrap();
    let mut proxy = Proxy::start(&config, &["--startup-timeout", "120"]);
    assert_eq!(http(&proxy.addr, "GET", "/readyz", &[], "").status, 503);
    let pid = mcp_servers::stuck_pid(&scratch.0);
    proxy.signal("-TERM");
    let started = Instant::now();
    while mcp_servers::alive(pid) && started.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        !mcp_servers::alive(pid),
        "the warm-up's server outlived the proxy"
    );
    assert!(
        scratch.0.join("term").exists(),
        "the server was never sent SIGTERM"
    );
}

#[test]
fn metrics_without_the_http_transport_name_the_feature() {
    // Only a build without `mcp-http` refuses; this binary has it, so the flag's rules are
    // checked instead: not with --http, and an address that does not parse is said.
    let scratch = Scratch::new("observe-flags");
    let config = wild_config(&scratch.0);
    let stderr = serve_refused(&config, &["--metrics", "nowhere"]);
    assert!(stderr.contains("invalid --metrics \"nowhere\""), "{stderr}");
    let stderr = serve_refused(
        &config,
        &["--metrics", "127.0.0.1:0", "--http", "127.0.0.1:0"],
    );
    assert!(stderr.contains("cannot be used with"), "{stderr}");
}

/// Headless Chromium (Debian's `chromium`) run on `args` and `url`, at most 60 s: its stdout,
/// or `None` when it is not installed (the caller says so).
fn chromium(scratch: &Path, args: &[&str], url: &str) -> Option<String> {
    let binary = ["chromium", "chromium-browser"].into_iter().find(|b| {
        Command::new(b)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })?;
    let mut child = Command::new(binary)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
        ])
        .arg(format!(
            "--user-data-dir={}",
            scratch.join("chromium").display()
        ))
        .args(args)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut out);
        out
    });
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("chromium did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Some(reader.join().unwrap())
}

#[test]
fn the_status_page_renders_in_headless_chromium_with_untrusted_names_as_text() {
    let scratch = Scratch::new("observe-status");
    let script = mcp_servers::root().join("tests/fixtures/mcp/servers/wild_server.py");
    let hostile = "<b>wild</b> & \"co\" <script>document.title='owned'</script>";
    let config = scratch.0.join("mcp.json");
    let servers = json!({"mcpServers": {
        hostile: {"command": "python3", "args": [script]},
        "gone": {"command": scratch.0.join("no-such-server")},
    }});
    std::fs::write(&config, servers.to_string()).unwrap();
    // No token (loopback): the browser sends none; the token rule is the other pages'.
    let proxy = Proxy::start(&config, &[]);
    let session = initialize(&proxy, &[]);
    for _ in 0..3 {
        let r = call_in(&proxy, &session, &[], "ordered", json!({}));
        assert!(r["result"].is_object(), "{r}");
    }
    let page = http(&proxy.addr, "GET", "/status", &[], "");
    assert_eq!(page.status, 200, "{page:?}");
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert!(page.header("content-security-policy").is_some());
    assert!(!page.body.contains("<script"), "{}", page.body);
    assert!(
        page.body
            .contains("&lt;b&gt;wild&lt;/b&gt; &amp; &quot;co&quot;")
    );

    let url = format!("http://{}/status", proxy.addr);
    let Some(dom) = chromium(&scratch.0, &["--dump-dom"], &url) else {
        eprintln!(
            "SKIPPED the browser check: no `chromium` on PATH (Debian package `chromium`; \
             scripts/install-test-tools.sh installs it)"
        );
        return;
    };
    // What the browser built: the table's rows, the names as text (no element, no script
    // run), two bars per server in the SVG.
    assert!(
        dom.contains("<title>toon MCP gateway: status</title>"),
        "{dom}"
    );
    assert!(!dom.contains("owned") || dom.contains("document.title='owned'"));
    assert!(
        !dom.contains("<b>wild</b>") && !dom.contains("<script"),
        "{dom}"
    );
    assert!(
        dom.contains("&lt;b&gt;wild&lt;/b&gt; &amp; \"co\""),
        "{dom}"
    );
    assert_eq!(
        dom.matches("<tr>").count(),
        3,
        "a header and two servers: {dom}"
    );
    assert!(dom.contains("<td class=\"up\">up</td>"), "{dom}");
    assert!(
        dom.contains("<td class=\"unavailable\">unavailable: "),
        "{dom}"
    );
    assert!(
        dom.contains("2 servers, 1 session, 3 calls (0 failed), tokens "),
        "{dom}"
    );
    assert_eq!(dom.matches("<rect class=\"before\"").count(), 2, "{dom}");
    assert_eq!(dom.matches("<rect class=\"after\"").count(), 2, "{dom}");

    let shot = scratch.0.join("status.png");
    let arg = format!("--screenshot={}", shot.display());
    chromium(&scratch.0, &[&arg, "--window-size=900,700"], &url).unwrap();
    let png = std::fs::read(&shot).expect("chromium wrote the screenshot");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "{}",
        png.len()
    );
    if let Ok(keep) = std::env::var("TOON_STATUS_SCREENSHOT") {
        std::fs::copy(&shot, keep).unwrap();
    }
}

#[test]
fn the_status_page_needs_the_token() {
    let scratch = Scratch::new("observe-status-token");
    let config = wild_config(&scratch.0);
    let token = token_file(&scratch.0);
    let args = [
        "--http-token-file",
        token.to_str().unwrap(),
        "--metrics-public",
    ];
    let proxy = Proxy::start(&config, &args);
    assert_eq!(http(&proxy.addr, "GET", "/status", &[], "").status, 401);
    let bearer = [("Authorization", "Bearer s3cret")];
    let page = http(&proxy.addr, "GET", "/status", &bearer, "");
    assert_eq!(page.status, 200, "{page:?}");
    assert!(page.body.contains("<svg id=\"tokens\""));
}

#[test]
fn every_answer_of_the_http_front_says_no_store() {
    let scratch = Scratch::new("observe-no-store");
    let config = wild_config(&scratch.0);
    let token = token_file(&scratch.0);
    let proxy = Proxy::start(&config, &["--http-token-file", token.to_str().unwrap()]);
    let bearer = [("Authorization", "Bearer s3cret")];
    let origin = [("Origin", "http://evil.example")];
    let answers = [
        ("GET", "/status", &[][..], 401),
        ("GET", "/metrics", &[][..], 401),
        ("POST", "/metrics", &bearer[..], 405),
        ("POST", "/status", &bearer[..], 405),
        ("GET", "/readyz", &origin[..], 403),
        ("GET", "/nowhere", &bearer[..], 404),
        ("PUT", "/mcp", &bearer[..], 405),
        ("GET", "/healthz", &[][..], 200),
        ("GET", "/metrics", &bearer[..], 200),
    ];
    for (method, path, headers, code) in answers {
        let reply = http(&proxy.addr, method, path, headers, "");
        assert_eq!(reply.status, code, "{method} {path}: {reply:?}");
        assert_eq!(
            reply.header("cache-control"),
            Some("no-store"),
            "{method} {path}: {reply:?}"
        );
    }
}
