//! `toon`: convert JSON to TOON and back (a drop-in for the official `@toon-format/cli`), and
//! `toon mcp …` for MCP tool catalogs and results. A thin layer over library types:
//! `convert.rs` (the conversions), `io.rs` (input, output, closed pipes), `gateway.rs` (`toon mcp …`).

mod choice;
mod convert;
#[cfg(feature = "mcp")]
mod gateway;
#[cfg(feature = "mcp-stdio")]
mod install;
mod io;
mod overflow;

use std::fmt;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use choice::{ClientArg, FormatArg, GroupingArg, LaunchArg, ModeArg, StructuredArg, ViewArg};

#[derive(Parser)]
#[command(
    name = "toon",
    version,
    about = "Converts JSON to TOON (encode) or TOON to JSON (decode).",
    after_help = "INPUT is a file path, or `-` / absent for standard input. Files ending in \
                  .toon are decoded; everything else, standard input included, is encoded \
                  unless -d is given. A file named like a subcommand (mcp) needs a path: ./mcp",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    convert: convert::Convert,
    /// Print the cause chain of an error.
    #[arg(long, global = true)]
    verbose: bool,
}

#[derive(Subcommand)]
enum Command {
    /// MCP tool catalogs and tool results (needs the `mcp` feature).
    Mcp {
        #[command(subcommand)]
        command: McpCommand,
    },
}

#[derive(Subcommand)]
enum McpCommand {
    /// Print a view of a tool catalog. FILE (or stdin) is a tools/list result, a JSON array of
    /// tools, or an object mapping server names to tools/list results. The full and categories
    /// views are TOON indented one space a level, which costs fewer tokens: `toon -d --indent 1`
    /// reads them.
    Catalog {
        file: Option<String>,
        #[arg(long, value_enum, default_value_t = ViewArg::Full)]
        view: ViewArg,
        /// With --view full: only this category's tools.
        #[arg(long)]
        category: Option<String>,
        /// How categories are formed.
        #[arg(long, value_enum, default_value_t = GroupingArg::Server)]
        group: GroupingArg,
    },
    /// Print a tool's definition exactly as its server sent it.
    Describe {
        name: String,
        file: Option<String>,
        /// Print it as readable TOON instead.
        #[arg(long)]
        toon: bool,
    },
    /// Convert a tools/call result (CallToolResult JSON) from FILE or stdin; prints the result
    /// JSON on stdout and one stats line on stderr. Only converted text blocks, `_meta` and
    /// (with --structured drop) structuredContent change: every other byte is printed as it
    /// came, so a pretty input stays pretty around them.
    Result {
        file: Option<String>,
        /// The tool that produced it (for --include-tools / --exclude-tools).
        #[arg(long, default_value = "")]
        tool: String,
        #[command(flatten)]
        policy: PolicyArgs,
        /// Keep only these field paths of each JSON block.
        #[arg(long, value_name = "PATHS", value_parser = parse_paths)]
        fields: Vec<Vec<String>>,
        /// Cut each JSON block to about N tokens.
        #[arg(long, value_name = "N")]
        budget: Option<usize>,
    },
    /// Run a stdio MCP server in front of the servers of an mcpServers config (needs the
    /// `mcp-proxy` feature). Logs go to stderr; stdout carries protocol only.
    Serve {
        #[command(flatten)]
        servers: ServersArgs,
        #[arg(long, value_enum, default_value_t = ModeArg::Passthrough)]
        mode: ModeArg,
        #[command(flatten)]
        policy: PolicyArgs,
        /// Seconds any request to a server may take.
        #[arg(long, value_name = "SECS", default_value_t = 60.0)]
        request_timeout: f64,
        /// Seconds the client's initialize and first lists wait for servers still starting;
        /// the rest are listed as they come up, with a list change. `wait`: until every
        /// server has started or failed (for clients that do not re-list on a change).
        #[arg(long, value_name = "SECS|wait", default_value = "1")]
        startup_grace: String,
        // Boxed: the largest of the commands' arguments by far.
        #[command(flatten)]
        http: Box<HttpArgs>,
        #[command(flatten)]
        metrics: MetricsArgs,
    },
    /// Start the servers of an mcpServers config and print what their tool lists cost, per
    /// server and with each mode, what was wrong with them, and which tools' results are
    /// converted under the given policy (needs the `mcp-proxy` feature).
    Inspect {
        #[command(flatten)]
        servers: ServersArgs,
        /// The mode of servers whose configuration entry says none (`"toon": {"mode": ...}`).
        #[arg(long, value_enum, default_value_t = ModeArg::Passthrough)]
        mode: ModeArg,
        #[command(flatten)]
        policy: PolicyArgs,
    },
    /// Move CLIENT's MCP servers into the gateway's configuration and give CLIENT one
    /// server, `toon`, that starts the gateway in front of them (needs the `mcp-stdio`
    /// feature). Prints what changes (secrets hidden) and keeps a backup beside the client's
    /// file for `toon mcp uninstall`. Servers the gateway would run otherwise (a ${...} only
    /// the client expands) stay with the client.
    Install {
        #[command(flatten)]
        target: ClientFileArgs,
        /// The gateway's configuration (default: $TOON_MCP_CONFIG, else
        /// ~/.config/toon/mcp.json; with --project, a toon-mcp.json beside the project's
        /// file).
        #[arg(long, value_name = "FILE")]
        config: Option<String>,
        /// How the client starts the gateway (default: the way this toon was installed:
        /// uvx, npx, or this binary's path).
        #[arg(long, value_enum)]
        launch: Option<LaunchArg>,
        /// More arguments for `toon mcp serve`, after `--` (`-- --mode lean`).
        #[arg(last = true, value_name = "SERVE_ARGS")]
        serve_args: Vec<String>,
    },
    /// Undo `toon mcp install CLIENT`: the client's servers put back as they were (the file
    /// byte for byte when nothing else changed in it), and taken out of the gateway's
    /// configuration (needs the `mcp-stdio` feature).
    Uninstall {
        #[command(flatten)]
        target: ClientFileArgs,
    },
}

/// Which client file `toon mcp install` and `uninstall` edit.
#[derive(Args)]
struct ClientFileArgs {
    #[arg(value_enum)]
    client: ClientArg,
    /// The project's file in the current directory (Claude Code, Cursor, VS Code) instead of
    /// the user's.
    #[arg(long)]
    project: bool,
    /// The client's file, when it is not where the client keeps it by default.
    #[arg(long, value_name = "FILE")]
    file: Option<String>,
    /// Print what would change, and write nothing.
    #[arg(long)]
    dry_run: bool,
}

/// `toon mcp serve --http`: Streamable HTTP instead of stdio.
#[derive(Args)]
struct HttpArgs {
    /// Serve MCP Streamable HTTP on ADDR (e.g. 127.0.0.1:8808) instead of stdio; each
    /// session gets its own servers. Loopback only, unless --http-allow-remote.
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,
    /// The endpoint's path.
    #[arg(long, value_name = "PATH", default_value = "/mcp", requires = "http")]
    http_path: String,
    /// Require `Authorization: Bearer TOKEN`, TOKEN read from FILE (one line; other users
    /// must not be able to read it: chmod 600). Default: $TOON_MCP_HTTP_TOKEN, if set.
    #[arg(
        long,
        value_name = "FILE",
        requires = "http",
        conflicts_with = "http_token"
    )]
    http_token_file: Option<String>,
    /// Deprecated: every local user can read a command line (/proc/PID/cmdline); use
    /// --http-token-file or $TOON_MCP_HTTP_TOKEN.
    #[arg(long, value_name = "TOKEN", requires = "http")]
    http_token: Option<String>,
    /// Allow binding a non-loopback address (anyone who can reach it can use your
    /// servers: set a token).
    #[arg(long, requires = "http")]
    http_allow_remote: bool,
    /// Also accept requests with this Origin (repeatable), besides the bound address's own.
    #[arg(long, value_name = "ORIGIN", requires = "http")]
    http_allow_origin: Vec<String>,
    /// Sessions open at once (each runs its own servers); an initialize beyond waits for
    /// one to end (--http-session-wait), then gets 503.
    #[arg(long, value_name = "N", default_value_t = 32, requires = "http")]
    http_max_sessions: usize,
    /// Seconds an initialize beyond --http-max-sessions waits for a session to end before
    /// it is answered 503.
    #[arg(long, value_name = "SECS", default_value_t = 30.0, requires = "http")]
    http_session_wait: f64,
    /// Seconds a session may stay unused before it is closed and its servers stopped.
    #[arg(long, value_name = "SECS", default_value_t = 1800.0, requires = "http")]
    http_idle_timeout: f64,
    /// Connections kept open at once that made an authenticated request (keep-alive
    /// connections, streams); one more closes the oldest idle one.
    #[arg(long, value_name = "N", default_value_t = 512, requires = "http")]
    http_max_connections: usize,
    /// Connections kept open at once that have not made an authenticated request yet (each
    /// has 10 s to make one); one more closes the oldest idle one.
    #[arg(long, value_name = "N", default_value_t = 128, requires = "http")]
    http_max_unauthenticated: usize,
    /// This replica's name behind a load balancer: session ids start with NAME. so that
    /// the balancer can route each session to its replica (docs/deployment.md).
    #[arg(long, value_name = "NAME", requires = "http")]
    http_replica: Option<String>,
    /// Seconds requests in progress get to be answered at shutdown (SIGTERM, SIGINT) after
    /// the listener has closed, before sessions are closed.
    #[arg(long, value_name = "SECS", default_value_t = 10.0, requires = "http")]
    http_drain: f64,
    /// Set no client cookie: every 2026-07-28 request without a session is a client of its
    /// own. For a backend that serves several users through one HTTP client (one cookie
    /// jar), which the cookie would make one client (docs/proxy.md).
    #[arg(long, requires = "http")]
    http_no_client_cookie: bool,
}

/// `toon mcp serve`'s metrics and probes (docs/operating.md).
#[derive(Args)]
struct MetricsArgs {
    /// A stdio proxy: serve /metrics, /healthz and /readyz on ADDR (e.g. 127.0.0.1:9464).
    /// Loopback only, unless --metrics-allow-remote. With --http they are on its address.
    #[arg(long, value_name = "ADDR", conflicts_with = "http")]
    metrics: Option<String>,
    /// With --metrics: /metrics requires `Authorization: Bearer TOKEN`, TOKEN read from FILE
    /// (one line; chmod 600). /healthz and /readyz never do.
    #[arg(long, value_name = "FILE", requires = "metrics")]
    metrics_token_file: Option<String>,
    /// With --metrics: allow binding a non-loopback address (anyone who can reach it can
    /// read the metrics: set a token).
    #[arg(long, requires = "metrics")]
    metrics_allow_remote: bool,
    /// With --http: /metrics answers without the token (/healthz and /readyz always do).
    #[arg(long, requires = "http")]
    metrics_public: bool,
    /// Count no calls or results (servers' states, health and gauges stay).
    #[arg(long)]
    no_metrics: bool,
}

/// Where the servers come from.
#[derive(Args)]
struct ServersArgs {
    /// The mcpServers JSON file (default: $TOON_MCP_CONFIG, else ~/.config/toon/mcp.json).
    #[arg(long, value_name = "FILE")]
    config: Option<String>,
    /// Seconds each server gets to start and list its tools.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    startup_timeout: f64,
    /// Where each server's last tool list is kept, to be listed at once while the server
    /// starts (default: $XDG_CACHE_HOME/toon/catalogs, else ~/.cache/toon/catalogs); `off`:
    /// nowhere.
    #[arg(long, value_name = "DIR|off")]
    catalog_cache: Option<String>,
}

/// `--max-size`'s default: the library's, which exists only with the `mcp` feature (the
/// flags parse without it, to say the feature is needed).
#[cfg(feature = "mcp")]
const MAX_SIZE_BYTES: usize = toon::mcp::MAX_SIZE_BYTES;
#[cfg(not(feature = "mcp"))]
const MAX_SIZE_BYTES: usize = 16 << 20;

/// The result policy (`toon mcp result` and `toon mcp serve`).
#[derive(Args)]
struct PolicyArgs {
    // Its words and their help are `FormatArg`'s, from `toon::mcp::Format`.
    #[cfg_attr(feature = "mcp", arg(long, value_enum, default_value_t))]
    #[cfg_attr(not(feature = "mcp"), arg(long))]
    format: FormatArg,
    /// Text blocks under N bytes stay as they are.
    #[arg(long, value_name = "N", default_value_t = 100)]
    min_size: usize,
    /// Text blocks over N bytes are only compacted (JSON without whitespace), not converted.
    #[arg(long, value_name = "N", default_value_t = MAX_SIZE_BYTES)]
    max_size: usize,
    /// Only convert these tools' results.
    #[arg(long, value_name = "A,B", value_parser = parse_paths)]
    include_tools: Vec<Vec<String>>,
    /// Never convert these tools' results.
    #[arg(long, value_name = "A,B", value_parser = parse_paths)]
    exclude_tools: Vec<Vec<String>>,
    /// Convert these tools' results even where they are document content (file reads,
    /// fetched pages, diffs), which otherwise reach the model verbatim.
    #[arg(long, value_name = "A,B", value_parser = parse_paths)]
    convert_tools: Vec<Vec<String>>,
    /// Whether results keep structuredContent (drop: removed, its data first added as a text
    /// block when no text block carries it (the same JSON value, or its only member's), and
    /// outputSchema from tools, so every client shows the model the converted text).
    #[arg(long, value_enum, default_value_t = StructuredArg::Keep)]
    structured: StructuredArg,
}

fn parse_paths(list: &str) -> Result<Vec<String>, String> {
    Ok(list
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect())
}

/// What went wrong: the message for everyone, and the error it came from for `--verbose`.
pub(crate) struct Failure {
    message: String,
    cause: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl Failure {
    /// `context: cause`, keeping the cause for `--verbose`.
    pub(crate) fn because(
        context: impl fmt::Display,
        cause: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Failure {
            message: format!("{context}: {cause}"),
            cause: Some(Box::new(cause)),
        }
    }

    /// The error's own message, keeping it for `--verbose`.
    #[cfg(feature = "mcp")]
    pub(crate) fn of(cause: impl std::error::Error + Send + Sync + 'static) -> Self {
        Failure {
            message: cause.to_string(),
            cause: Some(Box::new(cause)),
        }
    }

    /// A failure already reported (`--check` printed its diagnostics): exit 1, say nothing.
    pub(crate) fn reported() -> Self {
        Failure {
            message: String::new(),
            cause: None,
        }
    }

    fn report(&self, verbose: bool) {
        if self.message.is_empty() {
            return;
        }
        eprintln!("toon: error: {}", self.message);
        let Some(cause) = self.cause.as_deref().filter(|_| verbose) else {
            return;
        };
        eprintln!("  error: {cause:?}");
        let mut source = cause.source();
        while let Some(e) = source {
            eprintln!("  caused by: {e} ({e:?})");
            source = e.source();
        }
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure {
            message,
            cause: None,
        }
    }
}

impl From<&str> for Failure {
    fn from(message: &str) -> Self {
        message.to_owned().into()
    }
}

fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        None => convert::run(&cli.convert),
        #[cfg(feature = "mcp")]
        Some(Command::Mcp { command }) => gateway::run(command),
        #[cfg(not(feature = "mcp"))]
        Some(Command::Mcp { .. }) => Err(
            "`toon mcp` needs the gateway's features: rebuild with `--features \
             cli,mcp-proxy,mcp-semantic` (cargo install --path . from a checkout)"
                .into(),
        ),
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            match choice::invalid_value(&e) {
                Some(message) => Failure::from(message).report(false),
                None => {
                    let _ = e.print();
                }
            }
            return ExitCode::FAILURE;
        }
    };
    let verbose = cli.verbose;
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            failure.report(verbose);
            ExitCode::FAILURE
        }
    }
}
