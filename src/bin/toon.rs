//! `toon`: convert JSON to TOON and back (a drop-in for the official `@toon-format/cli`), and
//! `toon mcp …` for MCP tool catalogs and results. A thin layer over library types.

use std::io::{Read, Write};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use toon::render::{Output, Pipeline};
use toon::table::Tabularize;
use toon::{DecodeOptions, Delimiter, EncodeOptions, Value};

#[derive(Parser)]
#[command(
    name = "toon",
    version,
    about = "Converts JSON to TOON (encode) or TOON to JSON (decode).",
    after_help = "INPUT is a file path, or `-` / absent for standard input. The mode follows the \
                  extension (.json encodes, .toon decodes) or, for other input, the content \
                  (valid JSON encodes). A file named like a subcommand (mcp) needs a path: ./mcp",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    convert: Convert,
}

#[derive(Subcommand)]
enum Command {
    /// MCP tool catalogs and tool results (needs the `mcp` feature).
    Mcp {
        #[command(subcommand)]
        command: McpCommand,
    },
}

#[derive(Args)]
struct Convert {
    /// Input file (`-` or absent: standard input).
    input: Option<String>,
    /// Write to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<String>,
    /// Force JSON -> TOON.
    #[arg(short, long, conflicts_with = "decode")]
    encode: bool,
    /// Force TOON -> JSON.
    #[arg(short, long)]
    decode: bool,
    /// ',' | '\t' | '|' (or comma, tab, pipe).
    #[arg(long, value_name = "D", default_value = ",", value_parser = parse_delimiter)]
    delimiter: Delimiter,
    /// Spaces per indentation level.
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = parse_indent)]
    indent: usize,
    /// Strict decoding (the default).
    #[arg(long, overrides_with = "no_strict")]
    strict: bool,
    /// Lenient decoding (the five v4.4 recoveries).
    #[arg(long = "no-strict")]
    no_strict: bool,
    /// Print size and token estimates for JSON vs TOON to stderr.
    #[arg(long)]
    stats: bool,
    /// Print the estimated o200k tokens of the input text as given, and exit.
    #[arg(long)]
    tokens: bool,
    /// With --tokens: the exact o200k count (needs the `tiktoken` feature).
    #[arg(long, requires = "tokens")]
    exact: bool,
    /// Keep only these comma-separated field paths (id,user.name,items.sku).
    #[arg(long, value_name = "PATHS", value_parser = parse_paths)]
    fields: Vec<Vec<String>>,
    /// Drop these field paths.
    #[arg(long, value_name = "PATHS", value_parser = parse_paths)]
    exclude: Vec<Vec<String>>,
    /// Make semi-uniform arrays tabular (fills absent fields with null, folds optional objects
    /// into field groups, drops all-null columns; lossy).
    #[arg(long)]
    tabularize: bool,
    /// Print the cheapest of TOON (comma/tab/pipe) and compact JSON; the choice goes to stderr.
    #[arg(long)]
    auto: bool,
    /// Cut rows and long strings until the output is ~N tokens or fewer; what was cut goes
    /// to stderr.
    #[arg(long, value_name = "N")]
    budget: Option<usize>,
}

#[derive(Subcommand)]
enum McpCommand {
    /// Print a view of a tool catalog. FILE (or stdin) is a tools/list result, a JSON array of
    /// tools, or an object mapping server names to tools/list results.
    Catalog {
        file: Option<String>,
        /// full | categories | lean
        #[arg(long, default_value = "full")]
        view: String,
        /// With --view full: only this category's tools.
        #[arg(long)]
        category: Option<String>,
        /// How categories are formed: server | prefix | effect.
        #[arg(long, default_value = "server")]
        group: String,
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
    /// JSON on stdout and one stats line on stderr.
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
        /// passthrough (every tool, results encoded) | lean (three meta-tools)
        #[arg(long, default_value = "passthrough")]
        mode: String,
        #[command(flatten)]
        policy: PolicyArgs,
        /// Seconds any request to a server may take.
        #[arg(long, value_name = "SECS", default_value_t = 60.0)]
        request_timeout: f64,
    },
    /// Start the servers of an mcpServers config and print what their tool lists cost, per
    /// server and with each mode (needs the `mcp-proxy` feature).
    Inspect {
        #[command(flatten)]
        servers: ServersArgs,
    },
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
}

/// The result policy (`toon mcp result` and `toon mcp serve`).
#[derive(Args)]
struct PolicyArgs {
    /// auto | toon | json
    #[arg(long, default_value = "auto")]
    format: String,
    /// Text blocks under N bytes stay as they are.
    #[arg(long, value_name = "N", default_value_t = 100)]
    min_size: usize,
    /// Text blocks over N bytes stay as they are.
    #[arg(long, value_name = "N", default_value_t = 1 << 20)]
    max_size: usize,
    /// Only convert these tools' results.
    #[arg(long, value_name = "A,B", value_parser = parse_paths)]
    include_tools: Vec<Vec<String>>,
    /// Never convert these tools' results.
    #[arg(long, value_name = "A,B", value_parser = parse_paths)]
    exclude_tools: Vec<Vec<String>>,
    /// keep | drop (drop: structuredContent removed from results and outputSchema from tools,
    /// so every client shows the model the converted text)
    #[arg(long, default_value = "keep")]
    structured: String,
}

fn parse_delimiter(d: &str) -> Result<Delimiter, String> {
    Delimiter::parse(d).ok_or_else(|| {
        format!("invalid delimiter {d:?}: use ',', '\\t', '|' (or comma, tab, pipe)")
    })
}

fn parse_indent(n: &str) -> Result<usize, String> {
    n.parse()
        .ok()
        .filter(|n: &usize| (1..=32).contains(n))
        .ok_or_else(|| format!("invalid indent {n:?}: expected an integer 1..=32"))
}

fn parse_paths(list: &str) -> Result<Vec<String>, String> {
    Ok(list
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect())
}

fn read_input(input: Option<&str>) -> Result<Vec<u8>, String> {
    match input {
        None | Some("-") => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| format!("cannot read standard input: {e}"))?;
            Ok(bytes)
        }
        Some(path) => std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}")),
    }
}

fn read_text(input: Option<&str>) -> Result<String, String> {
    let bytes = read_input(input)?;
    String::from_utf8(bytes).map_err(|e| format!("{}: {e}", input.unwrap_or("<stdin>")))
}

#[derive(Copy, Clone, PartialEq)]
enum Mode {
    Encode,
    Decode,
}

fn detect_mode(args: &Convert, bytes: &[u8]) -> Mode {
    if args.encode {
        return Mode::Encode;
    }
    if args.decode {
        return Mode::Decode;
    }
    match args
        .input
        .as_deref()
        .and_then(|p| p.rsplit_once('.'))
        .map(|(_, ext)| ext)
    {
        Some(ext) if ext.eq_ignore_ascii_case("json") => Mode::Encode,
        Some(ext) if ext.eq_ignore_ascii_case("toon") => Mode::Decode,
        _ if serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok() => Mode::Encode,
        _ => Mode::Decode,
    }
}

/// `--tokens [--exact]`: the token count of `text` exactly as given.
fn count_tokens(text: &str, exact: bool) -> Result<usize, String> {
    if !exact {
        return Ok(toon::tokens::estimate(text));
    }
    #[cfg(feature = "tiktoken")]
    {
        Ok(toon::tokens::count(text, toon::tokens::Encoding::O200kBase))
    }
    #[cfg(not(feature = "tiktoken"))]
    Err(
        "--exact needs the `tiktoken` feature (cargo install toon-codec --features cli,tiktoken)"
            .into(),
    )
}

fn pipeline(args: &Convert, mode: Mode) -> Pipeline {
    let mut p = Pipeline::new()
        .fields(args.fields.iter().flatten())
        .exclude(args.exclude.iter().flatten());
    if args.tabularize {
        p = p.tabularize(Tabularize::all());
    }
    if let Some(budget) = args.budget {
        p = p.budget(budget);
    }
    let output = if args.auto {
        Output::Auto
    } else if mode == Mode::Encode {
        Output::Toon(
            EncodeOptions::new()
                .delimiter(args.delimiter)
                .indent_size(args.indent),
        )
    } else {
        // Decoding writes pretty JSON itself; the pipeline only transforms.
        Output::CompactJson
    };
    p.output(output)
}

fn convert(args: &Convert) -> Result<(), String> {
    let bytes = read_input(args.input.as_deref())?;
    let source = args.input.as_deref().unwrap_or("<stdin>");
    if args.tokens {
        let text = std::str::from_utf8(&bytes).map_err(|e| format!("{source}: {e}"))?;
        println!("{}", count_tokens(text, args.exact)?);
        return Ok(());
    }
    let mode = detect_mode(args, &bytes);
    let value: Value = match mode {
        Mode::Encode => {
            serde_json::from_slice(&bytes).map_err(|e| format!("{source}: invalid JSON: {e}"))?
        }
        Mode::Decode => {
            let opts = DecodeOptions::new()
                .strict(!args.no_strict)
                .indent_size(args.indent);
            toon::from_slice_with(&bytes, &opts).map_err(|e| format!("{source}: {e}"))?
        }
    };
    let pipeline = pipeline(args, mode);
    let (value, notes) = pipeline.transform(value).map_err(|e| e.to_string())?;
    notes.iter().for_each(|n| eprintln!("{n}"));
    let output = if args.auto || mode == Mode::Encode {
        let rendered = pipeline
            .write(&value)
            .map_err(|e| format!("{source}: {e}"))?;
        rendered.notes.iter().for_each(|n| eprintln!("{n}"));
        rendered.text
    } else {
        pretty_json(&value, args.indent)?
    };
    write_output(args, mode, source, &output)?;
    if args.stats {
        stats(args, mode, &bytes, &value, &output, pipeline.transforms())?;
    }
    Ok(())
}

fn write_output(args: &Convert, mode: Mode, source: &str, output: &str) -> Result<(), String> {
    match args.output.as_deref() {
        Some(path) => {
            let mut file =
                std::fs::File::create(path).map_err(|e| format!("cannot write {path}: {e}"))?;
            file.write_all(output.as_bytes())
                .and_then(|()| file.write_all(b"\n"))
                .map_err(|e| format!("cannot write {path}: {e}"))?;
            let verb = if mode == Mode::Encode {
                "Encoded"
            } else {
                "Decoded"
            };
            eprintln!("{verb} `{source}` → `{path}`");
        }
        None => emit(output)?,
    }
    Ok(())
}

/// Writes `text` and a newline to standard output. A reader that closed the pipe early
/// (`toon … | head`) ends the program quietly, as other Unix tools do.
fn emit(text: &str) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    match out
        .write_all(text.as_bytes())
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
    {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(|e| format!("cannot write output: {e}")),
    }
}

/// `--stats`: estimates for the JSON and TOON texts of the value (the input as given when
/// nothing transformed it), in the official CLI's wording plus sizes.
fn stats(
    args: &Convert,
    mode: Mode,
    input: &[u8],
    value: &Value,
    output: &str,
    transformed: bool,
) -> Result<(), String> {
    let as_given = || String::from_utf8_lossy(input).into_owned();
    let json_text = if mode == Mode::Encode && !transformed {
        as_given()
    } else {
        serde_json::to_string(value).map_err(|e| e.to_string())?
    };
    let toon_text = match mode {
        Mode::Encode if !args.auto => output.to_owned(),
        Mode::Decode if !transformed => as_given(),
        _ => toon::to_string(value).map_err(|e| e.to_string())?,
    };
    let json_tokens = toon::tokens::estimate(&json_text);
    let toon_tokens = toon::tokens::estimate(&toon_text);
    let saved = json_tokens as f64 - toon_tokens as f64;
    let pct = if json_tokens > 0 {
        saved / json_tokens as f64 * 100.0
    } else {
        0.0
    };
    eprintln!(
        "Token estimates: ~{json_tokens} (JSON) → ~{toon_tokens} (TOON)\n\
         Saved ~{} tokens ({:.1}%)\n\
         Bytes: {} (JSON) → {} (TOON)",
        saved as i64,
        -pct,
        json_text.len(),
        toon_text.len(),
    );
    Ok(())
}

fn pretty_json(value: &Value, indent: usize) -> Result<String, String> {
    let spaces = vec![b' '; indent];
    let mut out = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(&spaces);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
    serde::Serialize::serialize(value, &mut ser).map_err(|e| e.to_string())?;
    String::from_utf8(out).map_err(|e| e.to_string())
}

#[cfg(feature = "mcp")]
mod mcp_cli {
    use super::{emit, read_text, McpCommand, PolicyArgs};
    use toon::mcp::{Catalog, Format, Grouping, Policy, ResultEncoder, Shape, Structured};

    fn policy_of(args: PolicyArgs) -> Result<Policy, String> {
        Ok(Policy {
            min_size_bytes: args.min_size,
            max_size_bytes: args.max_size,
            include_tools: args.include_tools.into_iter().flatten().collect(),
            exclude_tools: args.exclude_tools.into_iter().flatten().collect(),
            skip_on_error: true,
            format: choice(
                "--format",
                &args.format,
                Format::parse,
                "auto, toon or json",
            )?,
            structured: choice(
                "--structured",
                &args.structured,
                |s| match s {
                    "keep" => Some(Structured::Keep),
                    "drop" => Some(Structured::Drop),
                    _ => None,
                },
                "keep or drop",
            )?,
        })
    }

    fn catalog(file: Option<&str>) -> Result<Catalog, String> {
        let text = read_text(file)?;
        let name = file
            .filter(|f| *f != "-")
            .and_then(|f| std::path::Path::new(f).file_stem())
            .and_then(|s| s.to_str())
            .unwrap_or("stdin");
        Catalog::from_json(&text, name).map_err(|e| format!("{}: {e}", file.unwrap_or("<stdin>")))
    }

    fn choice<T>(
        what: &str,
        value: &str,
        parse: fn(&str) -> Option<T>,
        allowed: &str,
    ) -> Result<T, String> {
        parse(value).ok_or_else(|| format!("invalid {what} {value:?}: use {allowed}"))
    }

    pub(super) fn run(command: McpCommand) -> Result<(), String> {
        match command {
            McpCommand::Catalog {
                file,
                view,
                category,
                group,
            } => {
                let grouping = choice(
                    "--group",
                    &group,
                    Grouping::parse,
                    "server, prefix or effect",
                )?;
                let catalog = catalog(file.as_deref())?;
                let text = match (view.as_str(), category) {
                    ("full", Some(c)) => catalog.full_in(&c, grouping),
                    ("full", None) => catalog.full(),
                    ("categories", None) => catalog.categories(grouping),
                    ("lean", None) => Ok(catalog.lean()),
                    ("categories" | "lean", Some(_)) => {
                        return Err("--category needs --view full".into())
                    }
                    (other, _) => {
                        return Err(format!(
                            "invalid --view {other:?}: use full, categories or lean"
                        ))
                    }
                }
                .map_err(|e| e.to_string())?;
                emit(&text)?;
            }
            McpCommand::Describe { name, file, toon } => {
                let catalog = catalog(file.as_deref())?;
                let tool = catalog.lookup(&name).map_err(|e| e.to_string())?;
                let text = if toon {
                    toon::to_string(tool.definition().map_err(|e| e.to_string())?)
                        .map_err(|e| e.to_string())?
                } else {
                    tool.raw_json().to_owned()
                };
                emit(&text)?;
            }
            McpCommand::Result {
                file,
                tool,
                policy,
                fields,
                budget,
            } => {
                let policy = policy_of(policy)?;
                let text = read_text(file.as_deref())?;
                let source = file.as_deref().unwrap_or("<stdin>");
                let result: serde_json::Value = serde_json::from_str(&text)
                    .map_err(|e| format!("{source}: invalid JSON: {e}"))?;
                if !result
                    .get("content")
                    .is_some_and(serde_json::Value::is_array)
                {
                    return Err(format!(
                        "{source}: not a tools/call result (expected {{\"content\": [...]}})"
                    ));
                }
                let shape = Shape {
                    fields: fields.into_iter().flatten().collect(),
                    max_tokens: budget,
                    ..Shape::default()
                };
                let encoder = ResultEncoder::new(policy);
                let out = encoder
                    .encode_with(&tool, result, &shape)
                    .map_err(|e| e.to_string())?;
                emit(&serde_json::to_string(&out).map_err(|e| e.to_string())?)?;
                eprintln!("{}", encoder.stats().summary());
            }
            #[cfg(feature = "mcp-proxy")]
            McpCommand::Serve {
                servers,
                mode,
                policy,
                request_timeout,
            } => {
                let mode = choice("--mode", &mode, proxy::Mode::parse, "passthrough or lean")?;
                let options = proxy::Options {
                    startup_timeout: seconds("--startup-timeout", servers.startup_timeout)?,
                    request_timeout: seconds("--request-timeout", request_timeout)?,
                    policy: policy_of(policy)?,
                };
                proxy::serve_stdio(servers.config.as_deref(), mode, options)?;
            }
            #[cfg(feature = "mcp-proxy")]
            McpCommand::Inspect { servers } => {
                let options = proxy::Options {
                    startup_timeout: seconds("--startup-timeout", servers.startup_timeout)?,
                    ..proxy::Options::default()
                };
                let report = proxy::inspect(servers.config.as_deref(), options)?;
                emit(report.trim_end())?;
            }
            #[cfg(not(feature = "mcp-proxy"))]
            McpCommand::Serve { .. } | McpCommand::Inspect { .. } => {
                return Err(
                    "`toon mcp serve` and `toon mcp inspect` need the `mcp-proxy` \
                            feature (cargo install toon-codec --features cli,mcp-proxy)"
                        .into(),
                )
            }
        }
        Ok(())
    }

    #[cfg(feature = "mcp-proxy")]
    fn seconds(what: &str, secs: f64) -> Result<std::time::Duration, String> {
        std::time::Duration::try_from_secs_f64(secs)
            .ok()
            .filter(|d| !d.is_zero())
            .ok_or_else(|| format!("invalid {what} {secs}: use a positive number of seconds"))
    }

    /// The async part: a tokio runtime around the library's toolbox and server.
    #[cfg(feature = "mcp-proxy")]
    mod proxy {
        use std::path::Path;

        use toon::mcp::proxy::{serve, Config, Inspection, Toolbox};
        pub(super) use toon::mcp::proxy::{Mode, Options};

        fn runtime() -> Result<tokio::runtime::Runtime, String> {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .map_err(|e| format!("cannot start the async runtime: {e}"))
        }

        fn load(config: Option<&str>) -> Result<Config, String> {
            let (config, path) = Config::load(config.map(Path::new)).map_err(|e| e.to_string())?;
            let enabled = config.enabled().count();
            eprintln!("toon: {enabled} MCP servers from {}", path.display());
            Ok(config)
        }

        pub(super) fn serve_stdio(
            config: Option<&str>,
            mode: Mode,
            options: Options,
        ) -> Result<(), String> {
            let config = load(config)?;
            let rt = runtime()?;
            rt.block_on(async {
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
                eprintln!("toon: {}", toolbox.encoder().stats().summary());
            });
            // The stdin reader is a blocking thread that cannot be cancelled: do not wait for it.
            rt.shutdown_background();
            Ok(())
        }

        pub(super) fn inspect(config: Option<&str>, options: Options) -> Result<String, String> {
            let config = load(config)?;
            let structured = options.policy.structured;
            runtime()?.block_on(async {
                let toolbox = Toolbox::start(&config, options);
                toolbox.ready().await;
                let report = Inspection::of(&toolbox.catalog(), structured);
                toolbox.shutdown().await;
                report.map(|r| r.to_string()).map_err(|e| e.to_string())
            })
        }

        /// SIGINT, or SIGTERM on Unix.
        async fn stop_signal() {
            #[cfg(unix)]
            {
                use tokio::signal::unix::{signal, SignalKind};
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
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        None => convert(&cli.convert),
        #[cfg(feature = "mcp")]
        Some(Command::Mcp { command }) => mcp_cli::run(command),
        #[cfg(not(feature = "mcp"))]
        Some(Command::Mcp { .. }) => Err(
            "`toon mcp` needs the `mcp` feature (cargo install toon-codec --features cli,mcp)"
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
            let _ = e.print();
            return ExitCode::FAILURE;
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("toon: error: {msg}");
            ExitCode::FAILURE
        }
    }
}
