//! The proxy's metrics, in the Prometheus text format (0.0.4), with the Prometheus project's
//! own client (`prometheus-client`), and what each configured server is doing: readiness
//! (`/readyz`), the status page and the totals a stdio proxy prints on exit.
//!
//! One [`Metrics`] per process ([`global`]): every session's toolbox and front counts into
//! it. A leaf beside the layers: the toolbox records calls, results and server starts, the
//! fronts requests in flight and listens, `log.rs` dropped lines; nothing here calls back up.
//!
//! Labels are bounded: `server` is a configured server's name (the operator's file); `tool`
//! is a name the server listed and the call was routed to (an unknown tool from a client is
//! refused before it reaches a server, so it never makes a label), at most [`MAX_TOOL_LABELS`]
//! distinct pairs, and only names of MCP's tool-name characters of at most 128 bytes: any
//! other call is counted under `tool="(other)"`; `format` and `reason` are the encoder's own
//! words (`Format::name`, `SkipReason::as_str`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use indexmap::IndexMap;
use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use crate::mcp::proxy::sync::lock;
use crate::mcp::raw;
use crate::mcp::result::Outcome;

/// The `Content-Type` of [`Metrics::encode`]'s text (the Prometheus text format 0.0.4).
pub const CONTENT_TYPE: &str = prometheus_client::encoding::prometheus_text::CONTENT_TYPE;

/// Distinct (`server`, `tool`) label pairs kept; calls of further tools count under
/// `tool="(other)"`.
pub const MAX_TOOL_LABELS: usize = 1000;

/// The `tool` label of calls whose tool name is not kept as a label.
pub const OTHER_TOOL: &str = "(other)";

/// Call latency buckets, in seconds: a millisecond to a minute (the default request timeout).
const LATENCY_BUCKETS: [f64; 14] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 60.0,
];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ToolLabels {
    server: ServerName,
    tool: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ServerLabels {
    server: ServerName,
}

/// A server's name as a label value: any text of the operator's file. The text format
/// escapes only `\`, `"` and LF (the encoder does), and has no escape for CR, which a reader
/// of lines may take for a line's end: each CR is written as a line break too, `\n`.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
struct ServerName(String);

impl ServerName {
    fn of(server: &str) -> ServerName {
        ServerName(server.to_owned())
    }
}

impl EncodeLabelValue for ServerName {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> Result<(), std::fmt::Error> {
        use std::fmt::Write;
        let mut lines = self.0.split('\r');
        if let Some(first) = lines.next() {
            encoder.write_str(first)?;
        }
        for line in lines {
            encoder.write_str("\n")?;
            encoder.write_str(line)?;
        }
        Ok(())
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct FormatLabels {
    format: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReasonLabels {
    reason: &'static str,
}

type Latency = Family<ToolLabels, Histogram, fn() -> Histogram>;

/// What a configured server is doing, as the latest toolbox to start it saw (an HTTP front
/// starts a session's servers for each session).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerState {
    /// Being started (a stdio proxy's servers wait for the client's `initialize`).
    Starting,
    /// Started, its tools listed.
    Up,
    /// Reported unavailable: it failed to start, timed out or went away; why.
    Unavailable(String),
}

impl ServerState {
    /// One word: `starting`, `up`, `unavailable`.
    #[must_use]
    pub fn word(&self) -> &'static str {
        match self {
            ServerState::Starting => "starting",
            ServerState::Up => "up",
            ServerState::Unavailable(_) => "unavailable",
        }
    }
}

/// One configured server's state and totals, for the status page and the exit line.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerSummary {
    /// The server's name in the configuration.
    pub name: String,
    /// What it is doing now.
    pub state: ServerState,
    /// Whether it has started or been reported unavailable at least once (readiness).
    pub settled: bool,
    /// Tools it listed when it last started.
    pub tools: usize,
    /// Tool calls routed to it, and how many failed (an error, or `isError: true`).
    pub calls: u64,
    /// See `calls`.
    pub errors: u64,
    /// Tokens of its converted results before and after conversion.
    pub tokens_before: u64,
    /// See `tokens_before`.
    pub tokens_after: u64,
}

/// Ready when some toolbox started (every configured server is then known) and every server
/// has started or been reported unavailable once; the servers and their states.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Readiness {
    /// See above.
    pub ready: bool,
    /// Each configured server and its state, in configuration order.
    pub servers: Vec<(String, ServerState)>,
}

impl Readiness {
    /// The body `/readyz` answers: `{"ready":…,"servers":[{"name":…,"state":…}]}` (states
    /// only: a reason may name paths or addresses, and probes come without the token).
    #[must_use]
    pub fn json(&self) -> String {
        let servers: Vec<String> = self
            .servers
            .iter()
            .map(|(name, state)| {
                format!(
                    r#"{{"name":{},"state":"{}"}}"#,
                    raw::quote(name),
                    state.word()
                )
            })
            .collect();
        format!(
            r#"{{"ready":{},"servers":[{}]}}"#,
            self.ready,
            servers.join(",")
        )
    }
}

/// One (`server`, `tool`) pair's series, kept so that a call finds them with one lookup.
#[derive(Clone)]
struct ToolSeries {
    calls: Counter,
    errors: Counter,
    latency: Histogram,
}

/// The servers' states and totals, and the tool series kept.
#[derive(Default)]
struct Board {
    servers: IndexMap<String, ServerSummary>,
    started_any: bool,
    /// By server, then tool label; at most [`MAX_TOOL_LABELS`] tools in all, besides
    /// `(other)`.
    series: HashMap<String, HashMap<String, ToolSeries>>,
    labelled: usize,
}

impl Board {
    fn entry(&mut self, server: &str) -> &mut ServerSummary {
        if !self.servers.contains_key(server) {
            let summary = ServerSummary {
                name: server.to_owned(),
                state: ServerState::Starting,
                settled: false,
                tools: 0,
                calls: 0,
                errors: 0,
                tokens_before: 0,
                tokens_after: 0,
            };
            self.servers.insert(server.to_owned(), summary);
        }
        &mut self.servers[server]
    }

    /// The `tool` label for a call not yet seen: the name, while it is a tool name and room
    /// is left, else [`OTHER_TOOL`].
    fn tool_label<'t>(&self, tool: &'t str) -> &'t str {
        let valid = !tool.is_empty()
            && tool.len() <= 128
            && tool
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
        if valid && self.labelled < MAX_TOOL_LABELS {
            tool
        } else {
            OTHER_TOOL
        }
    }
}

/// The proxy's counters, gauges and histograms, and the servers' board.
pub struct Metrics {
    registry: Registry,
    enabled: AtomicBool,
    board: Mutex<Board>,
    calls: Family<ToolLabels, Counter>,
    errors: Family<ToolLabels, Counter>,
    latency: Latency,
    tokens_before: Family<ServerLabels, Counter>,
    tokens_after: Family<ServerLabels, Counter>,
    bytes_before: Family<ServerLabels, Counter>,
    bytes_after: Family<ServerLabels, Counter>,
    conversions: Family<FormatLabels, Counter>,
    kept: Family<ReasonLabels, Counter>,
    sessions: Gauge,
    in_flight: Gauge,
    listens: Gauge,
    dropped_log_lines: Counter,
    starts: Family<ServerLabels, Counter>,
    unavailable: Family<ServerLabels, Counter>,
    reconnects: Family<ServerLabels, Counter>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics")
            .field("enabled", &self.enabled)
            .finish_non_exhaustive()
    }
}

/// The process's metrics, which the proxy's toolboxes and fronts count into.
pub fn global() -> &'static Metrics {
    static GLOBAL: OnceLock<Metrics> = OnceLock::new();
    GLOBAL.get_or_init(Metrics::new)
}

fn latency_histogram() -> Histogram {
    Histogram::new(LATENCY_BUCKETS)
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// Empty metrics, every family registered under the prefix `toon_mcp`.
    #[must_use]
    pub fn new() -> Metrics {
        let mut m = Metrics {
            registry: Registry::with_prefix("toon_mcp"),
            enabled: AtomicBool::new(true),
            board: Mutex::default(),
            calls: Family::default(),
            errors: Family::default(),
            latency: Family::new_with_constructor(latency_histogram),
            tokens_before: Family::default(),
            tokens_after: Family::default(),
            bytes_before: Family::default(),
            bytes_after: Family::default(),
            conversions: Family::default(),
            kept: Family::default(),
            sessions: Gauge::default(),
            in_flight: Gauge::default(),
            listens: Gauge::default(),
            dropped_log_lines: Counter::default(),
            starts: Family::default(),
            unavailable: Family::default(),
            reconnects: Family::default(),
        };
        m.register();
        m
    }

    fn register(&mut self) {
        let r = &mut self.registry;
        r.register(
            "tool_calls",
            "Tool calls routed to a server",
            self.calls.clone(),
        );
        r.register(
            "tool_errors",
            "Tool calls that failed: an error (timeout, unavailable server, JSON-RPC error) or a result with isError",
            self.errors.clone(),
        );
        r.register(
            "tool_call_duration_seconds",
            "Time from routing a tool call to its server's reply",
            self.latency.clone(),
        );
        self.register_per_server();
    }

    /// The families labelled by server alone, the gauges, the dropped lines.
    fn register_per_server(&mut self) {
        let r = &mut self.registry;
        let per_server = [
            (
                "result_tokens_before",
                "Estimated tokens of converted results as the server sent them",
                &self.tokens_before,
            ),
            (
                "result_tokens_after",
                "Estimated tokens of converted results as the client got them",
                &self.tokens_after,
            ),
            (
                "result_bytes_before",
                "Bytes of converted results' blocks as the server sent them",
                &self.bytes_before,
            ),
            (
                "result_bytes_after",
                "Bytes of converted results' blocks as the client got them",
                &self.bytes_after,
            ),
            (
                "server_starts",
                "Times a server started and listed its tools (a session each over HTTP)",
                &self.starts,
            ),
            (
                "server_unavailable",
                "Times a server was reported unavailable: failed to start, timed out or went away",
                &self.unavailable,
            ),
            (
                "server_reconnects",
                "Times a server reached over HTTP was connected again after it went away",
                &self.reconnects,
            ),
        ];
        for (name, help, family) in per_server {
            r.register(name, help, family.clone());
        }
        let conversions = "Results converted, by the format of their first converted block";
        r.register("result_conversions", conversions, self.conversions.clone());
        r.register(
            "results_kept",
            "Results passed on as sent, by why",
            self.kept.clone(),
        );
        let gauges = [
            ("sessions", "Open HTTP sessions", &self.sessions),
            (
                "requests_in_flight",
                "Client requests being answered (listens aside)",
                &self.in_flight,
            ),
            (
                "listens",
                "Open subscriptions/listen streams",
                &self.listens,
            ),
        ];
        for (name, help, gauge) in gauges {
            r.register(name, help, gauge.clone());
        }
        let dropped = "Log lines dropped because stderr was not read fast enough";
        r.register("log_lines_dropped", dropped, self.dropped_log_lines.clone());
    }

    /// Turns per-call counting (calls, latency, results) on or off (`toon mcp serve
    /// --no-metrics`); servers' states, gauges and dropped lines are kept either way.
    pub fn set_enabled(&self, enabled: bool) {
        self.enabled.store(enabled, Ordering::Relaxed);
    }

    /// Whether per-call counting is on ([`set_enabled`](Self::set_enabled)).
    pub(crate) fn enabled(&self) -> bool {
        self.enabled.load(Ordering::Relaxed)
    }

    /// The metrics in the Prometheus text format ([`CONTENT_TYPE`]).
    #[must_use]
    pub fn encode(&self) -> String {
        let mut text = String::new();
        // Writing into a `String` does not fail.
        let _ = prometheus_client::encoding::prometheus_text::encode(&mut text, &self.registry);
        text
    }

    /// A tool call to `server`'s `tool` that took `elapsed`, and whether it failed.
    pub(crate) fn call(&self, server: &str, tool: &str, elapsed: Duration, failed: bool) {
        if !self.enabled() {
            return;
        }
        let series = {
            let mut board = lock(&self.board);
            let entry = board.entry(server);
            entry.calls += 1;
            entry.errors += u64::from(failed);
            match board.series.get(server).and_then(|tools| tools.get(tool)) {
                Some(series) => series.clone(),
                None => self.new_series(&mut board, server, tool),
            }
        };
        series.calls.inc();
        if failed {
            series.errors.inc();
        }
        series.latency.observe(elapsed.as_secs_f64());
    }

    /// The series of a call to a tool not seen yet (or of `(other)`), created and kept.
    fn new_series(&self, board: &mut Board, server: &str, tool: &str) -> ToolSeries {
        let label = board.tool_label(tool).to_owned();
        if let Some(series) = board.series.get(server).and_then(|t| t.get(&label)) {
            return series.clone();
        }
        let labels = ToolLabels {
            server: ServerName::of(server),
            tool: label.clone(),
        };
        let series = ToolSeries {
            calls: self.calls.get_or_create(&labels).clone(),
            errors: self.errors.get_or_create(&labels).clone(),
            latency: self.latency.get_or_create(&labels).clone(),
        };
        if label != OTHER_TOOL {
            board.labelled += 1;
        }
        let tools = board.series.entry(server.to_owned()).or_default();
        tools.insert(label, series.clone());
        series
    }

    /// What a result of `server`'s came to.
    pub(crate) fn result(&self, server: Option<&str>, outcome: &Outcome) {
        if !self.enabled() {
            return;
        }
        match outcome {
            Outcome::Kept(reason) => {
                self.kept
                    .get_or_create(&ReasonLabels {
                        reason: reason.as_str(),
                    })
                    .inc();
            }
            Outcome::Converted {
                format,
                before,
                after,
            } => {
                self.conversions
                    .get_or_create(&FormatLabels {
                        format: format.name(),
                    })
                    .inc();
                let Some(server) = server else { return };
                if let Some(entry) = lock(&self.board).servers.get_mut(server) {
                    entry.tokens_before += before.0;
                    entry.tokens_after += after.0;
                }
                let labels = ServerLabels {
                    server: ServerName::of(server),
                };
                self.tokens_before.get_or_create(&labels).inc_by(before.0);
                self.tokens_after.get_or_create(&labels).inc_by(after.0);
                self.bytes_before.get_or_create(&labels).inc_by(before.1);
                self.bytes_after.get_or_create(&labels).inc_by(after.1);
            }
        }
    }

    /// A toolbox starts `server`.
    pub(crate) fn server_starting(&self, server: &str) {
        let mut board = lock(&self.board);
        board.started_any = true;
        board.entry(server).state = ServerState::Starting;
    }

    /// `server` started and listed `tools` tools (again, after going away, when `again`).
    pub(crate) fn server_up(&self, server: &str, tools: usize, again: bool) {
        {
            let mut board = lock(&self.board);
            let entry = board.entry(server);
            entry.state = ServerState::Up;
            entry.settled = true;
            entry.tools = tools;
        }
        let labels = ServerLabels {
            server: ServerName::of(server),
        };
        self.starts.get_or_create(&labels).inc();
        if again {
            self.reconnects.get_or_create(&labels).inc();
        }
    }

    /// `server` was reported unavailable, for `why`.
    pub(crate) fn server_unavailable(&self, server: &str, why: &str) {
        {
            let mut board = lock(&self.board);
            let entry = board.entry(server);
            entry.state = ServerState::Unavailable(why.to_owned());
            entry.settled = true;
        }
        let labels = ServerLabels {
            server: ServerName::of(server),
        };
        self.unavailable.get_or_create(&labels).inc();
    }

    /// Open HTTP sessions now.
    #[cfg(feature = "mcp-http")]
    pub(crate) fn set_sessions(&self, open: usize) {
        self.sessions.set(i64::try_from(open).unwrap_or(i64::MAX));
    }

    /// One log line dropped (`log.rs`).
    pub(crate) fn log_line_dropped(&self) {
        self.dropped_log_lines.inc();
    }

    /// A client request being answered (a listen, when `listen`) until the guard is dropped.
    pub(crate) fn request(&self, listen: bool) -> Held {
        let gauge = if listen {
            &self.listens
        } else {
            &self.in_flight
        };
        gauge.inc();
        Held(gauge.clone())
    }

    /// Whether every configured server has settled, and their states.
    #[must_use]
    pub fn readiness(&self) -> Readiness {
        let board = lock(&self.board);
        Readiness {
            ready: board.started_any && board.servers.values().all(|s| s.settled),
            servers: board
                .servers
                .values()
                .map(|s| (s.name.clone(), s.state.clone()))
                .collect(),
        }
    }

    /// Whether any toolbox has started (the servers are known).
    #[cfg(feature = "mcp-http")]
    pub(crate) fn started_any(&self) -> bool {
        lock(&self.board).started_any
    }

    /// Every server's state and totals, in configuration order.
    #[must_use]
    pub fn servers(&self) -> Vec<ServerSummary> {
        lock(&self.board).servers.values().cloned().collect()
    }

    /// The totals in one line, as a stdio proxy says them on exit: `4 servers (3 up, 1
    /// unavailable), 27 tools, 12 calls (1 failed), tokens 5210 -> 3120 (-40.1%)`.
    #[must_use]
    pub fn summary(&self) -> String {
        let servers = self.servers();
        let up = servers
            .iter()
            .filter(|s| s.state == ServerState::Up)
            .count();
        let unavailable = servers
            .iter()
            .filter(|s| matches!(s.state, ServerState::Unavailable(_)))
            .count();
        let sum = |f: fn(&ServerSummary) -> u64| servers.iter().map(f).sum::<u64>();
        let (before, after) = (sum(|s| s.tokens_before), sum(|s| s.tokens_after));
        let pct = if before > 0 {
            (after as f64 / before as f64 - 1.0) * 100.0
        } else {
            0.0
        };
        format!(
            "{} ({up} up, {unavailable} unavailable), {}, {} ({} failed), \
             tokens {before} -> {after} ({pct:+.1}%)",
            counted(servers.len() as u64, "server"),
            counted(sum(|s| s.tools as u64), "tool"),
            counted(sum(|s| s.calls), "call"),
            sum(|s| s.errors),
        )
    }
}

/// `1 server`, `2 servers`.
pub(crate) fn counted(n: u64, what: &str) -> String {
    if n == 1 {
        format!("{n} {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// A gauge held up while a request runs (see [`Metrics::request`]).
pub(crate) struct Held(Gauge);

impl Drop for Held {
    fn drop(&mut self) {
        self.0.dec();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::{Format, SkipReason};

    fn sample(text: &str, name: &str) -> Option<f64> {
        text.lines()
            .find(|l| l.starts_with(name) && l[name.len()..].starts_with([' ', '{']))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse().ok())
    }

    #[test]
    fn calls_results_and_servers_are_counted_under_bounded_labels() {
        let m = Metrics::new();
        m.server_starting("fs");
        assert!(!m.readiness().ready, "a server still starting");
        m.server_up("fs", 3, false);
        assert!(m.readiness().ready);
        for _ in 0..3 {
            m.call("fs", "read_file", Duration::from_millis(2), false);
        }
        m.call("fs", "read_file", Duration::from_millis(2), true);
        m.call("fs", "bad name\"\n", Duration::from_millis(2), false);
        let converted = Outcome::Converted {
            format: Format::Toon,
            before: (100, 400),
            after: (60, 250),
        };
        m.result(Some("fs"), &converted);
        m.result(None, &Outcome::Kept(SkipReason::TooSmall));
        let text = m.encode();
        let calls = r#"toon_mcp_tool_calls_total{server="fs",tool="read_file"}"#;
        assert_eq!(sample(&text, calls), Some(4.0), "{text}");
        let other = r#"toon_mcp_tool_calls_total{server="fs",tool="(other)"}"#;
        assert_eq!(sample(&text, other), Some(1.0), "{text}");
        let errors = r#"toon_mcp_tool_errors_total{server="fs",tool="read_file"}"#;
        assert_eq!(sample(&text, errors), Some(1.0));
        let count = r#"toon_mcp_tool_call_duration_seconds_count{server="fs",tool="read_file"}"#;
        assert_eq!(sample(&text, count), Some(4.0));
        let before = r#"toon_mcp_result_tokens_before_total{server="fs"}"#;
        assert_eq!(sample(&text, before), Some(100.0));
        let toon = r#"toon_mcp_result_conversions_total{format="toon"}"#;
        assert_eq!(sample(&text, toon), Some(1.0));
        let kept = r#"toon_mcp_results_kept_total{reason="too_small"}"#;
        assert_eq!(sample(&text, kept), Some(1.0));
        assert_eq!(
            m.summary(),
            "1 server (1 up, 0 unavailable), 3 tools, 5 calls (1 failed), tokens 100 -> 60 (-40.0%)"
        );
    }

    #[test]
    fn tool_labels_stop_at_the_cap() {
        let m = Metrics::new();
        m.server_starting("s");
        for i in 0..MAX_TOOL_LABELS + 5 {
            m.call("s", &format!("t{i}"), Duration::ZERO, false);
        }
        let text = m.encode();
        let series = text
            .lines()
            .filter(|l| l.starts_with("toon_mcp_tool_calls_total{"))
            .count();
        assert_eq!(series, MAX_TOOL_LABELS + 1, "the cap and (other)");
        let other = r#"toon_mcp_tool_calls_total{server="s",tool="(other)"}"#;
        assert_eq!(sample(&text, other), Some(5.0));
    }

    #[test]
    fn readiness_waits_for_every_server_and_names_them_escaped() {
        let m = Metrics::new();
        assert!(!m.readiness().ready, "no toolbox started yet");
        m.server_starting("a");
        m.server_starting("b\"<x>");
        m.server_up("a", 1, false);
        assert_eq!(
            m.readiness().json(),
            r#"{"ready":false,"servers":[{"name":"a","state":"up"},{"name":"b\"<x>","state":"starting"}]}"#
        );
        m.server_unavailable("b\"<x>", "exited");
        assert!(m.readiness().ready);
        // A later session's start does not make the process unready again.
        m.server_starting("a");
        assert!(m.readiness().ready);
    }

    #[test]
    fn a_server_name_s_cr_is_written_escaped_as_a_line_break() {
        let m = Metrics::new();
        let name = "a\rb\r\nc \"d\" \\e";
        m.server_starting(name);
        m.server_up(name, 1, false);
        m.call(name, "t", Duration::ZERO, false);
        let text = m.encode();
        assert!(!text.contains('\r'), "{text:?}");
        let label = r#"server="a\nb\n\nc \"d\" \\e""#;
        let starts = format!("toon_mcp_server_starts_total{{{label}}}");
        assert_eq!(sample(&text, &starts), Some(1.0), "{text}");
        let calls = format!("toon_mcp_tool_calls_total{{{label},tool=\"t\"}}");
        assert_eq!(sample(&text, &calls), Some(1.0), "{text}");
        // The board keeps the name as configured.
        assert_eq!(m.servers()[0].name, name);
    }

    #[test]
    fn disabled_metrics_count_no_calls() {
        let m = Metrics::new();
        m.set_enabled(false);
        m.call("s", "t", Duration::ZERO, false);
        assert!(!m.encode().contains("toon_mcp_tool_calls_total{"));
        let held = m.request(false);
        assert!(m.encode().contains("toon_mcp_requests_in_flight 1"));
        drop(held);
        assert!(m.encode().contains("toon_mcp_requests_in_flight 0"));
    }
}
