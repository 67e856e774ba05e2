use std::io::{self, Write};
use std::path::Path;

use super::choice::ViewArg;
use super::io::Input;
use super::{Failure, McpCommand, PolicyArgs};
#[cfg(feature = "mcp-stdio")]
use super::{HttpArgs, MetricsArgs};
use toon::mcp::{Catalog, Policy, ResultEncoder, Shaping, SkipReason};

/// Reads a whole text input (for `toon mcp`).
fn read_text(file: Option<&str>) -> Result<String, String> {
    let input = Input::read(file.map(Path::new)).map_err(|f| f.message)?;
    String::from_utf8(input.bytes).map_err(|e| format!("{}: {e}", input.label))
}

/// Writes `text` and a newline to standard output.
fn emit(text: &str) -> Result<(), String> {
    let mut out = io::stdout().lock();
    match out
        .write_all(text.as_bytes())
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
    {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(|e| format!("cannot write output: {e}")),
    }
}

fn policy_of(args: PolicyArgs) -> Policy {
    let mut policy = Policy::default();
    policy.min_size_bytes = args.min_size;
    policy.max_size_bytes = args.max_size;
    policy.include_tools = args.include_tools.into_iter().flatten().collect();
    policy.exclude_tools = args.exclude_tools.into_iter().flatten().collect();
    policy.convert_tools = args.convert_tools.into_iter().flatten().collect();
    policy.skip_on_error = true;
    if let Some(warning) = args.format.warning() {
        eprintln!("{warning}");
    }
    policy.format = args.format.into();
    policy.structured = args.structured.into();
    policy
}

fn catalog(file: Option<&str>) -> Result<Catalog, Failure> {
    let text = read_text(file)?;
    let name = file
        .filter(|f| *f != "-")
        .and_then(|f| std::path::Path::new(f).file_stem())
        .and_then(|s| s.to_str())
        .unwrap_or("stdin");
    let label = file.unwrap_or("<stdin>");
    let catalog = Catalog::from_json(&text, name).map_err(|e| Failure::because(label, e))?;
    // What the catalog skipped or ignored; a list none of whose tools could be read fails.
    for server in catalog.servers() {
        for warning in server.warnings() {
            eprintln!("toon: {label}: server {:?}: {warning}", server.name());
        }
        if server.tools().is_empty() && !server.warnings().is_empty() {
            return Err(format!("{label}: server {:?} has no usable tool", server.name()).into());
        }
    }
    Ok(catalog)
}

pub(super) fn run(command: McpCommand) -> Result<(), Failure> {
    match command {
        McpCommand::Catalog {
            file,
            view,
            category,
            group,
        } => emit(&catalog_view(
            file.as_deref(),
            view,
            category,
            group.into(),
        )?)?,
        McpCommand::Describe { name, file, toon } => {
            emit(&describe(&name, file.as_deref(), toon)?)?
        }
        McpCommand::Result {
            file,
            tool,
            policy,
            fields,
            budget,
        } => {
            let mut shaping = Shaping::default();
            shaping.fields = fields.into_iter().flatten().collect();
            shaping.max_tokens = budget;
            result(file.as_deref(), &tool, policy_of(policy), &shaping)?;
        }
        #[cfg(feature = "mcp-stdio")]
        McpCommand::Serve {
            servers,
            mode,
            policy,
            request_timeout,
            startup_grace,
            http,
            metrics,
        } => {
            let mode = mode.into();
            let mut options = serving::Options::default();
            options.startup_timeout = seconds("--startup-timeout", servers.startup_timeout)?;
            options.catalog_cache = catalog_cache(servers.catalog_cache.as_deref())?;
            options.request_timeout = seconds("--request-timeout", request_timeout)?;
            options.startup_grace = grace(&startup_grace)?;
            options.policy = policy_of(policy);
            toon::mcp::proxy::metrics::global().set_enabled(!metrics.no_metrics);
            if http.http.is_some() {
                let public = metrics.metrics_public;
                serving::serve_http(servers.config.as_deref(), mode, options, *http, public)?;
            } else {
                serving::serve_stdio(servers.config.as_deref(), mode, options, &metrics)?;
            }
        }
        #[cfg(feature = "mcp-stdio")]
        McpCommand::Inspect {
            servers,
            mode,
            policy,
        } => {
            let mut options = serving::Options::default();
            options.startup_timeout = seconds("--startup-timeout", servers.startup_timeout)?;
            options.catalog_cache = catalog_cache(servers.catalog_cache.as_deref())?;
            options.policy = policy_of(policy);
            let report = serving::inspect(servers.config.as_deref(), mode.into(), options)?;
            emit(report.trim_end())?;
        }
        #[cfg(feature = "mcp-stdio")]
        command @ (McpCommand::Install { .. } | McpCommand::Uninstall { .. }) => {
            super::install::run(command)?;
        }
        #[cfg(not(feature = "mcp-stdio"))]
        McpCommand::Serve { .. }
        | McpCommand::Inspect { .. }
        | McpCommand::Install { .. }
        | McpCommand::Uninstall { .. } => return Err(needs_stdio()),
    }
    Ok(())
}

/// `toon mcp describe`: one tool's definition, as its server sent it or as TOON.
fn describe(name: &str, file: Option<&str>, toon: bool) -> Result<String, Failure> {
    let catalog = catalog(file)?;
    let tool = catalog.lookup(name).map_err(Failure::of)?;
    if !toon {
        return Ok(tool.raw_json().to_owned());
    }
    // The library's view, so the command prints what `describe_toon` documents.
    let text = catalog.describe_toon(tool.name()).map_err(Failure::of)?;
    Ok(text.unwrap_or_default())
}

#[cfg(not(feature = "mcp-stdio"))]
fn needs_stdio() -> Failure {
    "`toon mcp serve`, `inspect`, `install` and `uninstall` need the `mcp-stdio` feature \
     (rebuild with `--features cli,mcp-proxy,mcp-semantic`)"
        .into()
}

/// `toon mcp catalog`: the view of the catalog in `file`.
fn catalog_view(
    file: Option<&str>,
    view: ViewArg,
    category: Option<String>,
    grouping: toon::mcp::Grouping,
) -> Result<String, Failure> {
    let catalog = catalog(file)?;
    match (view, category) {
        (ViewArg::Full, Some(c)) => catalog.full_in(&c, grouping),
        (ViewArg::Full, None) => catalog.full(),
        (ViewArg::Categories, None) => catalog.categories(grouping),
        (ViewArg::Lean, None) => Ok(catalog.lean()),
        (ViewArg::Categories | ViewArg::Lean, Some(_)) => {
            return Err("--category needs --view full".into());
        }
    }
    .map_err(Failure::of)
}

/// `toon mcp result`: the tools/call result in `file`, converted; its stats on stderr.
fn result(
    file: Option<&str>,
    tool: &str,
    policy: Policy,
    shaping: &Shaping,
) -> Result<(), Failure> {
    let text = read_text(file)?;
    let source = file.unwrap_or("<stdin>");
    // Read as text, never as a `Value`: numbers keep their digits and every byte the
    // encoder does not change is printed as it came.
    let encoder = ResultEncoder::new(policy);
    let out = (encoder.encode_text(tool, &text, shaping)).map_err(Failure::of)?;
    if encoder
        .stats()
        .skipped
        .contains_key(&SkipReason::NotAResult)
    {
        // The encoder reads only what serde_json accepts: say where the JSON breaks, if
        // it does, only now that it is known to.
        serde_json::from_str::<&serde_json::value::RawValue>(&text)
            .map_err(|e| Failure::because(format!("{source}: invalid JSON"), e))?;
        return Err(
            format!("{source}: not a tools/call result (expected {{\"content\": [...]}})").into(),
        );
    }
    emit(out.trim_end())?;
    eprintln!("{}", encoder.stats().summary());
    Ok(())
}

#[cfg(feature = "mcp-stdio")]
fn seconds(what: &str, secs: f64) -> Result<std::time::Duration, String> {
    std::time::Duration::try_from_secs_f64(secs)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("invalid {what} {secs}: use a positive number of seconds"))
}

/// `--startup-grace`: seconds (0 answers at once), or `wait` for every server.
#[cfg(feature = "mcp-stdio")]
fn grace(value: &str) -> Result<Option<std::time::Duration>, String> {
    if value == "wait" {
        return Ok(None);
    }
    value
        .parse::<f64>()
        .ok()
        .and_then(|secs| std::time::Duration::try_from_secs_f64(secs).ok())
        .map(Some)
        .ok_or_else(|| {
            format!("invalid --startup-grace {value:?}: use seconds (0 or more) or `wait`")
        })
}

/// `--catalog-cache`: a folder, `off`, or (not given) the user's cache folder.
#[cfg(feature = "mcp-stdio")]
fn catalog_cache(value: Option<&str>) -> Result<Option<toon::mcp::proxy::CatalogCache>, String> {
    use toon::mcp::proxy::CatalogCache;
    Ok(match value {
        Some("off") => None,
        Some("") => return Err("invalid --catalog-cache \"\": use a folder or `off`".into()),
        Some(dir) => Some(CatalogCache::new(dir)),
        None => CatalogCache::default_dir().map(CatalogCache::new),
    })
}

/// The async part: a tokio runtime around the library's toolbox and server.
#[cfg(feature = "mcp-stdio")]
mod serving {
    use std::path::Path;
    use std::sync::OnceLock;

    use std::time::Duration;

    use super::{Failure, HttpArgs, MetricsArgs};
    use toon::mcp::proxy::log::{PROXY, StderrLayer};
    use toon::mcp::proxy::{Config, Inspection, Toolbox, adopt_orphans, serve, stop_children};
    #[cfg(feature = "mcp-http")]
    use toon::mcp::proxy::{
        HTTP_TOKEN_ENV,
        http::{self, HttpOptions},
    };
    pub(super) use toon::mcp::proxy::{Mode, Options};
    use tracing_subscriber::filter::{FilterExt, LevelFilter, Targets, filter_fn};
    use tracing_subscriber::layer::{Layer, SubscriberExt};

    /// How long the last lines may take to reach stderr at exit (a client that does not read
    /// it must not keep the proxy alive).
    const FLUSH: Duration = Duration::from_secs(1);

    /// The proxy's lines on stderr: unset, the library's at `INFO` and up, each as it always
    /// was; set, a filter (`debug`, `warn`, `toon::mcp::server=off,info`: tracing-subscriber's
    /// `Targets`) and lines that also say their level, target and fields.
    const LOG_ENV: &str = "TOON_LOG";

    /// The stderr writer `log_to_stderr` installed, to flush at exit.
    static STDERR: OnceLock<StderrLayer> = OnceLock::new();

    /// Installs the subscriber that writes the library's events to stderr, never blocking
    /// (`toon::mcp::proxy::log`).
    fn log_to_stderr() {
        let asked = std::env::var(LOG_ENV).ok().filter(|v| !v.is_empty());
        let parsed = asked.as_deref().map(str::parse::<Targets>);
        let filter = match &parsed {
            Some(Ok(targets)) => targets.clone(),
            _ => Targets::new().with_target("toon", LevelFilter::INFO),
        };
        let layer = StderrLayer::new().detailed(asked.is_some());
        // Other crates' events at `WARN` and up only, whatever `$TOON_LOG` asks: hyper's and
        // hyper-util's debug and trace lines print requests and connection pool keys, which
        // are not ours to vet for secrets (a URL's password was one).
        let others_capped = filter_fn(|meta| {
            let target = meta.target();
            target == "toon"
                || target.starts_with("toon::")
                || *meta.level() <= tracing::Level::WARN
        });
        let filter = filter.and(others_capped);
        let subscriber = tracing_subscriber::registry().with(layer.clone().with_filter(filter));
        if tracing::subscriber::set_global_default(subscriber).is_ok() {
            let _ = STDERR.set(layer);
        }
        if let Some(Err(e)) = parsed {
            tracing::warn!(target: PROXY, "toon: warning: ${LOG_ENV} not used: {e}");
        }
    }

    /// Waits at most `FLUSH` for the last lines to reach stderr.
    fn flush() {
        if let Some(stderr) = STDERR.get() {
            stderr.flush(FLUSH);
        }
    }

    fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| Failure::because("cannot start the async runtime", e))
    }

    fn load(config: Option<&str>) -> Result<Config, Failure> {
        let (config, path) = Config::load(config.map(Path::new)).map_err(Failure::of)?;
        let enabled = config.enabled().count();
        tracing::info!(
            target: PROXY,
            "toon: {enabled} MCP servers from {}",
            path.display()
        );
        Ok(config)
    }

    pub(super) fn serve_stdio(
        config: Option<&str>,
        mode: Mode,
        options: Options,
        metrics: &MetricsArgs,
    ) -> Result<(), Failure> {
        log_to_stderr();
        let addr = metrics.metrics.as_deref().map(metrics_addr).transpose()?;
        let config = load(config)?;
        let rt = runtime()?;
        let mut options = options;
        // Servers are initialised with the client's capabilities (roots, sampling,
        // elicitation), so they start when it has said what they are.
        options.await_client = true;
        rt.block_on(async {
            adopt();
            if let Some(addr) = addr {
                serve_metrics(addr, metrics).await?;
            }
            let toolbox = Toolbox::start(&config, options);
            let served = serve(
                toolbox.clone(),
                mode,
                tokio::io::stdin(),
                tokio::io::stdout(),
            );
            tokio::select! {
                _ = served => {}
                () = stop_signal() => {}
            }
            toolbox.shutdown().await;
            stop_children().await;
            tracing::info!(target: PROXY, "toon: {}", toolbox.encoder().stats().summary());
            let totals = toon::mcp::proxy::metrics::global().summary();
            tracing::info!(target: PROXY, "toon: totals: {totals}");
            Ok::<(), Failure>(())
        })?;
        // The stdin reader is a blocking thread that cannot be cancelled: do not wait for it.
        rt.shutdown_background();
        flush();
        Ok(())
    }

    /// `--metrics ADDR`'s address.
    fn metrics_addr(text: &str) -> Result<std::net::SocketAddr, Failure> {
        use std::net::ToSocketAddrs;
        let addr = text.to_socket_addrs().ok().and_then(|mut a| a.next());
        Ok(addr.ok_or_else(|| format!("invalid --metrics {text:?}: use HOST:PORT"))?)
    }

    /// Serves `--metrics` on its own listener, for as long as the runtime runs, under the
    /// HTTP front's rules (`--http`'s: loopback unless allowed, a token, warnings).
    #[cfg(feature = "mcp-http")]
    async fn serve_metrics(addr: std::net::SocketAddr, args: &MetricsArgs) -> Result<(), Failure> {
        let token = (args.metrics_token_file.as_deref())
            .map(|path| read_token_file("--metrics-token-file", Path::new(path)))
            .transpose()?;
        let exposure = Exposure {
            flag: "--metrics",
            serving: "metrics",
            risk: "read your servers' names, states and tool calls",
            token_from: "--metrics-token-file",
        };
        exposure.check(addr, args.metrics_allow_remote, token.is_some())?;
        let mut options = HttpOptions::default();
        options.token = token;
        // A scraper and a probe or two: idle connections beyond push one another out and
        // never reach the descriptors the servers need.
        options.max_connections = METRICS_CONNECTIONS;
        options.max_unauthenticated = METRICS_CONNECTIONS;
        let listener = http::bind(addr).await.map_err(Failure::of)?;
        let local = (listener.local_addr())
            .map_err(|e| Failure::because(format!("cannot listen on {addr}"), e))?;
        tracing::info!(target: PROXY, "toon: metrics on http://{local}/metrics");
        tokio::spawn(async move {
            if let Err(e) = http::serve_metrics(listener, options, std::future::pending()).await {
                tracing::error!(target: PROXY, "toon: metrics: {e}");
            }
        });
        Ok(())
    }

    /// Connections `--metrics` keeps open at once, in each of its two rooms.
    #[cfg(feature = "mcp-http")]
    const METRICS_CONNECTIONS: usize = 16;

    /// What a listener on a non-loopback address exposes, for its refusal and warnings.
    #[cfg(feature = "mcp-http")]
    struct Exposure {
        /// The address's flag; `FLAG-allow-remote` allows it.
        flag: &'static str,
        /// What is served there.
        serving: &'static str,
        /// What anyone who can reach it could do.
        risk: &'static str,
        /// Where a token comes from.
        token_from: &'static str,
    }

    #[cfg(feature = "mcp-http")]
    impl Exposure {
        /// Loopback, or another address only when `allowed` (then said on stderr, and said
        /// again without a token): the same rule for `--http` and `--metrics`.
        fn check(
            &self,
            addr: std::net::SocketAddr,
            allowed: bool,
            token: bool,
        ) -> Result<(), Failure> {
            if addr.ip().is_loopback() {
                return Ok(());
            }
            let flag = self.flag;
            if !allowed {
                return Err(format!(
                    "{flag} {addr} is not a loopback address: anyone who can reach it could \
                     {}; add {flag}-allow-remote (and a token) to mean it",
                    self.risk
                )
                .into());
            }
            tracing::warn!(
                target: PROXY,
                "toon: warning: serving {} on {addr}, reachable from other machines",
                self.serving
            );
            if !token {
                tracing::warn!(
                    target: PROXY,
                    "toon: warning: no token ({}): requests are not authenticated",
                    self.token_from
                );
            }
            Ok(())
        }
    }

    /// `--metrics` in a build without the HTTP transport.
    #[cfg(not(feature = "mcp-http"))]
    async fn serve_metrics(_: std::net::SocketAddr, _: &MetricsArgs) -> Result<(), Failure> {
        Err("`toon mcp serve --metrics` needs the `mcp-http` feature \
             (rebuild with `--features cli,mcp-proxy,mcp-semantic`)"
            .into())
    }

    /// `toon mcp serve --http` in a build without the HTTP transport.
    #[cfg(not(feature = "mcp-http"))]
    pub(super) fn serve_http(
        _: Option<&str>,
        _: Mode,
        _: Options,
        _: HttpArgs,
        _: bool,
    ) -> Result<(), Failure> {
        Err("`toon mcp serve --http` needs the `mcp-http` feature \
             (rebuild with `--features cli,mcp-proxy,mcp-semantic`)"
            .into())
    }

    /// `toon mcp serve --http ADDR`: one toolbox per session (see `toon::mcp::proxy::http`).
    #[cfg(feature = "mcp-http")]
    pub(super) fn serve_http(
        config: Option<&str>,
        mode: Mode,
        options: Options,
        args: HttpArgs,
        metrics_public: bool,
    ) -> Result<(), Failure> {
        log_to_stderr();
        let addr_text = args.http.unwrap_or_default();
        let addr: std::net::SocketAddr = match addr_text.parse() {
            Ok(addr) => addr,
            Err(_) => std::net::ToSocketAddrs::to_socket_addrs(&addr_text)
                .ok()
                .and_then(|mut addrs| addrs.next())
                .ok_or_else(|| format!("invalid --http {addr_text:?}: use HOST:PORT"))?,
        };
        let exposure = Exposure {
            flag: "--http",
            serving: "MCP",
            risk: "run your servers' tools",
            token_from: "--http-token-file or $TOON_MCP_HTTP_TOKEN",
        };
        let token = token(args.http_token_file.as_deref(), args.http_token)?;
        exposure.check(addr, args.http_allow_remote, token.is_some())?;
        let mut http = HttpOptions::default();
        http.path = args.http_path;
        http.token = token;
        http.allowed_origins = args.http_allow_origin;
        http.max_sessions = args.http_max_sessions;
        http.max_connections = args.http_max_connections;
        http.max_unauthenticated = args.http_max_unauthenticated;
        http.idle_timeout = super::seconds("--http-idle-timeout", args.http_idle_timeout)?;
        http.session_wait = super::seconds("--http-session-wait", args.http_session_wait)?;
        http.replica = args.http_replica;
        http.drain = super::seconds("--http-drain", args.http_drain)?;
        http.client_cookie = !args.http_no_client_cookie;
        http.metrics_public = metrics_public;
        let config = std::sync::Arc::new(load(config)?);
        let rt = runtime()?;
        let mut options = options;
        options.await_client = true;
        let served = rt.block_on(async {
            adopt();
            let listener = http::bind(addr).await.map_err(Failure::of)?;
            let local = (listener.local_addr())
                .map_err(|e| Failure::because(format!("cannot listen on {addr}"), e))?;
            // The address with the port the system chose for :0, for whoever started us.
            tracing::info!(
                target: PROXY,
                "toon: MCP Streamable HTTP on http://{local}{}",
                http.path
            );
            let factory: http::ToolboxFactory =
                std::sync::Arc::new(move || Toolbox::start(&config, options.clone()));
            let served = http::serve_http(listener, factory, mode, http, stop_signal()).await;
            stop_children().await;
            served.map_err(Failure::of)
        });
        rt.shutdown_background();
        flush();
        served
    }

    pub(super) fn inspect(
        config: Option<&str>,
        mode: Mode,
        options: Options,
    ) -> Result<String, Failure> {
        log_to_stderr();
        let config = load(config)?;
        let policy = options.policy.clone();
        // What the cache held before this run lists the servers again.
        let cached = options
            .catalog_cache
            .as_ref()
            .map(|c| cache_report(c, &config));
        let report = runtime()?.block_on(async {
            adopt();
            let toolbox = Toolbox::start(&config, options);
            toolbox.ready().await;
            let report = Inspection::of(&toolbox.catalog(), &policy, &toolbox.modes(mode));
            toolbox.shutdown().await;
            stop_children().await;
            report.map(|r| r.to_string()).map_err(Failure::of)
        });
        flush();
        Ok(report? + &cached.unwrap_or_default())
    }

    /// What the catalog cache holds for each enabled server, and how old it is.
    fn cache_report(cache: &toon::mcp::proxy::CatalogCache, config: &Config) -> String {
        let mut lines = format!("\ncatalog cache {}:\n", cache.dir().display());
        for server in config.enabled() {
            let held = match cache.load(server) {
                Ok(Some(cached)) => {
                    let mut held = vec![count(cached.tools.len(), "tool")];
                    for (method, what) in [
                        ("prompts/list", "prompt"),
                        ("resources/list", "resource"),
                        ("resources/templates/list", "resource template"),
                    ] {
                        if let Some(items) = cached.lists.get(method) {
                            held.push(count(items.len(), what));
                        }
                    }
                    let ago = age(cached.age().as_secs());
                    format!("{}, written {ago} ago", held.join(", "))
                }
                Ok(None) => "nothing".to_owned(),
                Err(e) => e.to_string(),
            };
            lines += &format!("  {}: {held}\n", server.name);
        }
        lines
    }

    /// `1 tool`, `2 tools`.
    fn count(n: usize, what: &str) -> String {
        format!("{n} {what}{}", if n == 1 { "" } else { "s" })
    }

    /// Seconds as the largest whole unit: 40 s, 5 min, 3 h, 2 d.
    fn age(secs: u64) -> String {
        match secs {
            0..60 => format!("{secs} s"),
            60..3600 => format!("{} min", secs / 60),
            3600..86400 => format!("{} h", secs / 3600),
            _ => format!("{} d", secs / 86400),
        }
    }

    /// On Linux, what the servers start outside their process groups (`setsid` daemons)
    /// becomes the proxy's, to be stopped with them: this process spawns nothing else.
    fn adopt() {
        if let Err(e) = adopt_orphans() {
            tracing::warn!(
                target: PROXY,
                "toon: warning: cannot adopt the servers' orphans ({e}): daemons they start \
                 may outlive them"
            );
        }
    }

    /// The HTTP token: from --http-token-file, --http-token (with a warning), or the
    /// environment; none if empty.
    #[cfg(feature = "mcp-http")]
    fn token(file: Option<&str>, flag: Option<String>) -> Result<Option<String>, String> {
        let token = if let Some(path) = file {
            Some(read_token_file("--http-token-file", Path::new(path))?)
        } else if let Some(token) = flag {
            tracing::warn!(
                target: PROXY,
                "toon: warning: --http-token is deprecated: every local user can read it in the \
                 process list (/proc/PID/cmdline); use --http-token-file FILE or \
                 $TOON_MCP_HTTP_TOKEN"
            );
            Some(token)
        } else {
            std::env::var(HTTP_TOKEN_ENV).ok()
        };
        Ok(token.filter(|t| !t.is_empty()))
    }

    /// A token file's first line (a trailing newline is not the token's). Refused if other
    /// users could read or change it, as ssh refuses a private key.
    #[cfg(feature = "mcp-http")]
    fn read_token_file(flag: &str, path: &Path) -> Result<String, String> {
        let what = |e: std::io::Error| format!("{flag} {}: {e}", path.display());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(path).map_err(what)?.permissions().mode();
            if mode & 0o077 != 0 {
                return Err(format!(
                    "{flag} {}: other users can access it (mode {:o}); chmod 600 it",
                    path.display(),
                    mode & 0o777
                ));
            }
        }
        let text = std::fs::read_to_string(path).map_err(what)?;
        let token = text.strip_suffix('\n').unwrap_or(&text);
        let token = token.strip_suffix('\r').unwrap_or(token);
        if token.is_empty() || token.contains(['\r', '\n']) {
            return Err(format!(
                "{flag} {}: expected one line, the token",
                path.display()
            ));
        }
        Ok(token.to_owned())
    }

    /// SIGINT, or SIGTERM on Unix.
    async fn stop_signal() {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            if let Ok(mut term) = signal(SignalKind::terminate()) {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
                return;
            }
        }
        let _ = tokio::signal::ctrl_c().await;
    }
}
