//! The `mcpServers` configuration file, in the format Claude Desktop, Claude Code, Cursor and
//! most MCP clients share:
//!
//! ```json
//! {"mcpServers": {"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"],
//!                            "env": {"MEMORY_FILE_PATH": "/tmp/memory.json"}, "cwd": "/tmp", "disabled": false}}}
//! ```
//!
//! A server reached over Streamable HTTP is an entry with a `url`, as Claude Code, Cursor and VS
//! Code write it (`"type"` is optional: `"http"` or `"streamable-http"`); `${VAR}` (or
//! `${VAR:-default}`) in the URL and the header values is replaced by the environment variable,
//! and a variable that is not set is an error naming it, never a literal `${VAR}` sent:
//!
//! ```json
//! {"mcpServers": {"remote": {"type": "http", "url": "https://mcp.example.com/mcp",
//!                            "headers": {"Authorization": "Bearer ${EXAMPLE_TOKEN}"}}}}
//! ```
//!
//! Windsurf's `serverUrl` is read as `url`.
//!
//! An entry may say how the gateway shows its server's tools, under a key of its own that
//! other clients ignore: `"toon": {"mode": "compact"}` (or `"passthrough"`, `"lean"`; see
//! [`Mode`]). A server that says nothing is shown as `toon mcp serve --mode` says. The same
//! object may say which protocol revision the gateway speaks to the server:
//! `"toon": {"revision": "2026-07-28"}` (or `"2025-11-25"`, `"auto"`; see [`Revision`]).
//!
//! HTTP+SSE servers (`"type": "sse"`, the 2024-11-05 transport, deprecated since
//! 2025-03-26) are spoken too, `url` being their event stream (often `/sse`).
//!
//! VS Code's `mcp.json` keeps its servers under `servers` instead, each with a `"type"`
//! (`"stdio"`, `"http"`, `"sse"`): read the same way. (Its own `${input:…}` and
//! `${workspaceFolder}` variables are VS Code's: in a URL or header they are read as
//! environment variables, and refused when unset.)
//!
//! A configuration holds secrets (`"env": {"GITHUB_TOKEN": ...}`) and its errors reach log
//! files, so they give the line, column and key path of what is wrong and never quote the
//! text. The file is read up to [`MAX_CONFIG_BYTES`], so `/dev/zero` or an endless FIFO
//! cannot exhaust memory.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::locate::Path as KeyPath;
use crate::Value;
use crate::mcp::proxy::servers::mode::Mode;
use crate::mcp::proxy::servers::revision::Revision;

type Result<T, E = ConfigError> = std::result::Result<T, E>;

/// The largest configuration file read (1 MiB; real ones are a few KiB).
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// The environment variable naming the configuration file when no path is given.
pub const CONFIG_ENV: &str = "TOON_MCP_CONFIG";

/// The environment variable holding the HTTP front's bearer token (`toon mcp serve --http`).
pub const HTTP_TOKEN_ENV: &str = "TOON_MCP_HTTP_TOKEN";

/// The proxy's own variables: a stdio server does not inherit them, unless its entry's `env`
/// names them (the token would let any server drive the proxy).
pub const PROXY_ENV: &[&str] = &[CONFIG_ENV, HTTP_TOKEN_ENV];

/// Why an `mcpServers` configuration could not be read. Messages give the line, column and key
/// path of what is wrong, never the text there (a configuration holds secrets).
///
/// ```
/// use toon::mcp::proxy::{Config, ConfigError};
/// let err = Config::from_str(r#"{"mcpServers": {"a": {"command": 5}}}"#).unwrap_err();
/// assert!(matches!(err, ConfigError::Invalid { .. }));
/// assert_eq!((err.line(), err.column()), (1, 34));
/// assert_eq!(err.to_string(), "line 1, column 34: mcpServers.a.command: expected a string");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The text is not JSON: serde_json's description of what it met (a fixed phrase such as
    /// `expected value`), at its line and column.
    #[error("{}invalid JSON: {message}", crate::mcp::error::at(*.line, *.column))]
    Syntax {
        /// What serde_json met, without its position.
        message: String,
        /// 1-based line, 0 when unknown.
        line: usize,
        /// 1-based column, 0 when unknown.
        column: usize,
        /// serde_json's error.
        #[source]
        source: serde_json::Error,
    },
    /// JSON, but not an `mcpServers` object at the top.
    #[error(
        "not an MCP configuration: expected {{\"mcpServers\": {{NAME: {{\"command\": ...}}}}}} (or VS Code's {{\"servers\": ...}})"
    )]
    NotMcpConfig,
    /// A value of the wrong type, or an entry without `command`, at a key path.
    #[error("{}{path}: {message}", crate::mcp::error::at(*.line, *.column))]
    Invalid {
        /// The key path of the value (`mcpServers.github.env.GITHUB_TOKEN`).
        path: String,
        /// What is wrong with it.
        message: String,
        /// 1-based line of the value, 0 when unknown.
        line: usize,
        /// 1-based column of the value, 0 when unknown.
        column: usize,
    },
    /// No path given, no `TOON_MCP_CONFIG`, and no home directory for the default location.
    #[error("no configuration file: pass --config FILE or set TOON_MCP_CONFIG")]
    NoFile,
    /// The file could not be read.
    #[error("cannot read MCP configuration {} ({chosen}): {source}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// How the path was chosen: `given`, `from TOON_MCP_CONFIG`, `the default location`.
        chosen: &'static str,
        /// Why.
        #[source]
        source: ReadError,
    },
    /// The file was read, and its text is not a configuration.
    #[error("{}: {source}", .path.display())]
    InFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with its text.
        #[source]
        source: Box<ConfigError>,
    },
}

impl ConfigError {
    /// 1-based line of what is wrong in the configuration text, or 0 when the error has no
    /// position.
    #[must_use]
    pub fn line(&self) -> usize {
        self.position().0
    }

    /// 1-based column (in characters) of what is wrong on [`line`](Self::line), or 0.
    #[must_use]
    pub fn column(&self) -> usize {
        self.position().1
    }

    fn position(&self) -> (usize, usize) {
        match self {
            ConfigError::Syntax { line, column, .. }
            | ConfigError::Invalid { line, column, .. } => (*line, *column),
            ConfigError::InFile { source, .. } => source.position(),
            _ => (0, 0),
        }
    }
}

/// Why a configuration file could not be read ([`ConfigError::Read`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// Opening or reading failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The file is larger than [`MAX_CONFIG_BYTES`]: its size, or, for a device or FIFO, that
    /// more than the limit was read.
    #[error("{}; the limit is {MAX_CONFIG_BYTES} bytes (1 MiB)", too_large(.size))]
    TooLarge {
        /// The file's size, when it has one.
        size: Option<u64>,
    },
    /// The text is not UTF-8.
    #[error("not UTF-8 text (invalid byte at offset {})", .source.utf8_error().valid_up_to())]
    NotUtf8 {
        /// The decoding error.
        #[source]
        source: std::string::FromUtf8Error,
    },
}

/// What was too large: the file by its size, or what was read of it.
fn too_large(size: &Option<u64>) -> String {
    match size {
        Some(size) => format!("the file is {size} bytes"),
        None => format!("more than {MAX_CONFIG_BYTES} bytes were read"),
    }
}

/// One server of an `mcpServers` configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerConfig {
    /// The key it has under `mcpServers`; tools shared with another server are exposed as
    /// `NAME__tool`.
    pub name: String,
    /// How to reach it.
    pub launch: Launch,
    /// `"disabled": true` servers are neither started nor listed.
    pub disabled: bool,
    /// How its tools are shown (`"toon": {"mode": "compact"}`); `None`: as the command
    /// line's `--mode` says.
    pub mode: Option<Mode>,
    /// Which protocol revision the proxy speaks to it (`"toon": {"revision": "auto"}`).
    pub revision: Revision,
}

/// How a configured server is reached.
#[derive(Clone, PartialEq, Eq)]
pub enum Launch {
    /// A child process speaking MCP over its stdin and stdout.
    Stdio {
        /// The program (looked up on `PATH`).
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to (or replacing in) the proxy's own environment.
        env: BTreeMap<String, String>,
        /// Its working directory (default: the proxy's).
        cwd: Option<PathBuf>,
    },
    /// A server at a URL, spoken to over Streamable HTTP (MCP 2025-11-25, `basic/transports`).
    Http {
        /// `http://` or `https://` URL of its MCP endpoint, `${VAR}`s replaced.
        url: String,
        /// Header names and values sent with every request (`Authorization`, ...), `${VAR}`s
        /// replaced, in file order.
        headers: Vec<(String, String)>,
    },
    /// A server on the HTTP+SSE transport (MCP 2024-11-05, `"type": "sse"`): `url` is
    /// its event stream, which names where to POST messages.
    Sse {
        /// `http://` or `https://` URL of its event stream (often `/sse`), `${VAR}`s replaced.
        url: String,
        /// Header names and values sent with every request, `${VAR}`s replaced.
        headers: Vec<(String, String)>,
    },
    /// A transport the proxy does not speak; the server is reported unavailable with this
    /// reason.
    Unsupported(String),
}

impl std::fmt::Debug for Launch {
    /// Environment values and header values are not shown (they hold secrets), nor the URL
    /// (it may carry a token).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Launch::Stdio {
                command,
                args,
                env,
                cwd,
            } => f
                .debug_struct("Stdio")
                .field("command", command)
                .field("args", args)
                .field("env", &env.keys().collect::<Vec<_>>())
                .field("cwd", cwd)
                .finish(),
            Launch::Http { headers, .. } | Launch::Sse { headers, .. } => f
                .debug_struct(if matches!(self, Launch::Sse { .. }) {
                    "Sse"
                } else {
                    "Http"
                })
                .field(
                    "headers",
                    &headers.iter().map(|(k, _)| k).collect::<Vec<_>>(),
                )
                .finish_non_exhaustive(),
            Launch::Unsupported(why) => f.debug_tuple("Unsupported").field(why).finish(),
        }
    }
}

/// A parsed `mcpServers` configuration, servers in file order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Config {
    /// Every configured server, disabled ones included.
    pub servers: Vec<ServerConfig>,
}

impl Config {
    /// Parses configuration text.
    ///
    /// ```
    /// use toon::mcp::proxy::{Config, Launch};
    /// let config = Config::from_str(r#"{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}"#)?;
    /// assert_eq!(config.servers[0].name, "time");
    /// assert!(matches!(&config.servers[0].launch, Launch::Stdio { command, .. } if command == "uvx"));
    /// # Ok::<(), toon::mcp::proxy::ConfigError>(())
    /// ```
    ///
    /// # Errors
    /// Invalid JSON ([`ConfigError::Syntax`]), no `mcpServers` object
    /// ([`ConfigError::NotMcpConfig`], or [`ConfigError::Invalid`] when it is not an object), or
    /// an entry with neither `command` nor `url`, or with fields of the wrong type
    /// ([`ConfigError::Invalid`]): each with its line and column (and key path), never the text
    /// there.
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(text: &str) -> Result<Config> {
        Config::from_str_with(text, &|name| std::env::var(name).ok())
    }

    /// As [`from_str`](Self::from_str), `${VAR}`s looked up with `env` instead of in the
    /// process environment.
    ///
    /// ```
    /// use toon::mcp::proxy::{Config, Launch};
    /// let text = r#"{"mcpServers": {"web": {"url": "https://x.example/mcp",
    ///                                        "headers": {"Authorization": "Bearer ${TOKEN}"}}}}"#;
    /// let config = Config::from_str_with(text, &|name| (name == "TOKEN").then(|| "t0k".to_owned()))?;
    /// let Launch::Http { headers, .. } = &config.servers[0].launch else { unreachable!() };
    /// assert_eq!(headers[0], ("Authorization".to_owned(), "Bearer t0k".to_owned()));
    /// let err = Config::from_str_with(text, &|_| None).unwrap_err();
    /// assert!(err.to_string().ends_with("mcpServers.web.headers.Authorization: the environment variable TOKEN is not set"));
    /// # Ok::<(), toon::mcp::proxy::ConfigError>(())
    /// ```
    ///
    /// # Errors
    /// As [`from_str`](Self::from_str).
    pub fn from_str_with(text: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<Config> {
        // A `toon::Value` keeps the servers in file order.
        let root: Value = crate::json::from_str(text).map_err(syntax_error)?;
        // `mcpServers` (Claude, Cursor) or, as VS Code's `mcp.json` writes it, `servers`.
        let key = ["mcpServers", "servers"]
            .into_iter()
            .find(|key| root.get(key).is_some())
            .ok_or(ConfigError::NotMcpConfig)?;
        let top = KeyPath::default().key(key);
        let Some(Value::Object(servers)) = root.get(key) else {
            return Err(at(text, &top, "expected an object of servers"));
        };
        let servers = servers
            .iter()
            .map(|(name, entry)| server(text, &top.key(name), name, entry, env))
            .collect::<Result<Vec<_>>>()?;
        Ok(Config { servers })
    }

    /// Reads the configuration from `path`, else from the file `TOON_MCP_CONFIG` names, else
    /// from [`default_path`]; returns it with the path it came from.
    ///
    /// # Errors
    /// [`ConfigError::NoFile`] when there is no path to read; [`ConfigError::Read`] when the
    /// file cannot be read (the message names the path and how it was chosen), is larger than
    /// [`MAX_CONFIG_BYTES`] or is not UTF-8; [`ConfigError::InFile`] when its text does not
    /// parse ([`from_str`](Self::from_str)'s error, after the path).
    pub fn load(path: Option<&Path>) -> Result<(Config, PathBuf)> {
        let (path, why) = match path {
            Some(p) => (p.to_path_buf(), "given"),
            None => match std::env::var_os(CONFIG_ENV).filter(|v| !v.is_empty()) {
                Some(p) => (PathBuf::from(p), "from TOON_MCP_CONFIG"),
                None => (
                    default_path().ok_or(ConfigError::NoFile)?,
                    "the default location",
                ),
            },
        };
        let text = match read_bounded(&path) {
            Ok(text) => text,
            Err(source) => {
                return Err(ConfigError::Read {
                    path,
                    chosen: why,
                    source,
                });
            }
        };
        match Config::from_str(&text) {
            Ok(mut config) => {
                config.refuse_serving_itself(&path);
                Ok((config, path))
            }
            Err(e) => Err(ConfigError::InFile {
                path,
                source: Box::new(e),
            }),
        }
    }

    /// Makes every entry that runs `toon mcp serve` on the file `path` (this configuration)
    /// [`Launch::Unsupported`], saying why: such an entry is the proxy itself, which would
    /// start itself again without end (as when `--config` names a client's own file that lists
    /// toon). Its configuration is the one its `--config` names, else its entry's
    /// `TOON_MCP_CONFIG` (the proxy's own is not passed on), else [`default_path`], as
    /// `toon mcp serve` would choose it.
    fn refuse_serving_itself(&mut self, path: &Path) {
        let Some(this) = canonical(path, None) else {
            return;
        };
        for server in &mut self.servers {
            let Launch::Stdio {
                command,
                args,
                env,
                cwd,
            } = &server.launch
            else {
                continue;
            };
            if !is_toon(command) || !args.windows(2).any(|w| w[0] == "mcp" && w[1] == "serve") {
                continue;
            }
            let given = args
                .iter()
                .position(|a| a == "--config")
                .and_then(|at| args.get(at + 1).cloned())
                .or_else(|| {
                    args.iter()
                        .find_map(|a| a.strip_prefix("--config=").map(str::to_owned))
                })
                // Not the inherited one: servers do not inherit it (`PROXY_ENV`).
                .or_else(|| env.get(CONFIG_ENV).cloned())
                .map(PathBuf::from)
                .or_else(default_path);
            if given.and_then(|p| canonical(&p, cwd.as_deref())).as_ref() == Some(&this) {
                server.launch = Launch::Unsupported(
                    "it is `toon mcp serve` on this same configuration: this proxy, which would \
                     start itself again without end"
                        .to_owned(),
                );
            }
        }
    }

    /// The servers to start: all but the disabled ones.
    pub fn enabled(&self) -> impl Iterator<Item = &ServerConfig> + '_ {
        self.servers.iter().filter(|s| !s.disabled)
    }
}

/// Whether `command` names the toon executable (by its file name, or as this very program).
fn is_toon(command: &str) -> bool {
    let stem = |p: &Path| p.file_stem().map(std::ffi::OsStr::to_os_string);
    let named = stem(Path::new(command));
    named.as_deref() == Some(std::ffi::OsStr::new("toon"))
        || std::env::current_exe().ok().and_then(|exe| stem(&exe)) == named
}

/// `path` made absolute (against `cwd`, else the current directory) and resolved, if it
/// exists.
fn canonical(path: &Path, cwd: Option<&Path>) -> Option<PathBuf> {
    let path = match cwd {
        Some(cwd) if path.is_relative() => cwd.join(path),
        _ => path.to_path_buf(),
    };
    path.canonicalize().ok()
}

/// The file's text, read with a bounded reader: a file over [`MAX_CONFIG_BYTES`] (by its
/// size, or by reading past the limit when it has none: devices, FIFOs) is refused.
fn read_bounded(path: &Path) -> Result<String, ReadError> {
    let file = std::fs::File::open(path)?;
    if let Ok(meta) = file.metadata()
        && meta.is_file()
        && meta.len() > MAX_CONFIG_BYTES
    {
        return Err(ReadError::TooLarge {
            size: Some(meta.len()),
        });
    }
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(ReadError::TooLarge { size: None });
    }
    String::from_utf8(bytes).map_err(|source| ReadError::NotUtf8 { source })
}

/// A JSON syntax error with serde_json's position and description, never the text there.
fn syntax_error(e: serde_json::Error) -> ConfigError {
    use serde_json::error::Category;
    // Syntax and end-of-input descriptions are fixed phrases ("expected value", "trailing
    // comma"); other kinds could carry input.
    let what = match e.classify() {
        Category::Syntax | Category::Eof => {
            let text = e.to_string();
            match text.rfind(" at line ") {
                Some(i) => text[..i].to_owned(),
                None => text,
            }
        }
        Category::Data | Category::Io => "not valid JSON".to_owned(),
    };
    ConfigError::Syntax {
        message: what,
        line: e.line(),
        column: e.column(),
        source: e,
    }
}

/// `path: what`, at the position of the value at `path` in `text`.
fn at(text: &str, path: &KeyPath, what: &str) -> ConfigError {
    let (line, column) = path.position(text).unwrap_or((0, 0));
    ConfigError::Invalid {
        path: path.to_string(),
        message: what.to_owned(),
        line,
        column,
    }
}

/// `$XDG_CONFIG_HOME/toon/mcp.json`, else `~/.config/toon/mcp.json` (on Windows
/// `%APPDATA%\toon\mcp.json`); `None` when no home directory is known.
#[must_use]
pub fn default_path() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = if cfg!(windows) {
        var("APPDATA")
    } else {
        var("XDG_CONFIG_HOME").or_else(|| var("HOME").map(|h| h.join(".config")))
    };
    base.map(|b| b.join("toon").join("mcp.json"))
}

/// One entry of `mcpServers`; `path` is its key path, for errors located in `text`.
fn server(
    text: &str,
    path: &KeyPath,
    name: &str,
    entry: &Value,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ServerConfig> {
    let bad = |path: &KeyPath, what: &str| at(text, path, what);
    let entry = entry
        .as_object()
        .ok_or_else(|| bad(path, "expected an object"))?;
    let string = |key: &str| entry_string(text, path, entry, key);
    let disabled = match entry.get("disabled") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(bad(&path.key("disabled"), "expected true or false")),
    };
    let kind = string("type")?;
    // Windsurf writes a remote server's URL as `serverUrl` (docs.windsurf.com, cascade/mcp).
    let url = match string("url")? {
        None => string("serverUrl")?,
        url => url,
    };
    match kind.as_deref() {
        None | Some("stdio" | "http" | "streamable-http" | "streamableHttp" | "sse") => {}
        Some(_) => {
            return Err(bad(
                &path.key("type"),
                "expected \"stdio\", \"http\", \"streamable-http\" or \"sse\"",
            ));
        }
    }
    let launch = match (string("command")?, url) {
        (None, Some(url)) => {
            let http_sse = kind.as_deref() == Some("sse");
            http(text, path, entry, &url, env, http_sse)?
        }
        (Some(command), _) => stdio(text, path, entry, command)?,
        (None, None) => {
            return Err(bad(
                path,
                "needs \"command\" (a stdio server) or \"url\" (a Streamable HTTP server)",
            ));
        }
    };
    let (mode, revision) = toon_options(text, path, entry)?;
    Ok(ServerConfig {
        name: name.to_owned(),
        launch,
        disabled,
        mode,
        revision,
    })
}

/// The gateway's own options of an entry, under `"toon"` (other clients ignore the key):
/// `{"mode": "passthrough" | "compact" | "lean", "revision": "auto" | "2025-11-25" |
/// "2026-07-28"}`. A key it does not know is an error, so a typo is not silently a default.
fn toon_options(
    text: &str,
    path: &KeyPath,
    entry: &crate::Map,
) -> Result<(Option<Mode>, Revision)> {
    let path = path.key("toon");
    let options = match entry.get("toon") {
        None | Some(Value::Null) => return Ok((None, Revision::default())),
        Some(Value::Object(options)) => options,
        Some(_) => {
            return Err(at(
                text,
                &path,
                "expected an object such as {\"mode\": \"compact\"}",
            ));
        }
    };
    if let Some(key) = options
        .keys()
        .find(|k| !["mode", "revision"].contains(&&**k))
    {
        return Err(at(
            text,
            &path.key(key),
            "unknown option: expected \"mode\" or \"revision\"",
        ));
    }
    let mode = match options.get("mode") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if Mode::parse(s).is_some() => Mode::parse(s),
        Some(_) => {
            return Err(at(
                text,
                &path.key("mode"),
                "expected \"passthrough\", \"compact\" or \"lean\"",
            ));
        }
    };
    let revision = match options.get("revision") {
        None | Some(Value::Null) => Revision::default(),
        Some(Value::String(s)) if Revision::parse(s).is_some() => {
            Revision::parse(s).unwrap_or_default()
        }
        Some(_) => {
            return Err(at(
                text,
                &path.key("revision"),
                "expected \"auto\", \"2025-11-25\" or \"2026-07-28\"",
            ));
        }
    };
    Ok((mode, revision))
}

/// The string at `key` of an entry (`path`, in `text`); `None` when it is absent or null.
fn entry_string(
    text: &str,
    path: &KeyPath,
    entry: &crate::Map,
    key: &str,
) -> Result<Option<String>> {
    match entry.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(at(text, &path.key(key), "expected a string")),
    }
}

/// A `command` entry (a stdio server): its `args`, `env` and `cwd`, each checked.
fn stdio(text: &str, path: &KeyPath, entry: &crate::Map, command: String) -> Result<Launch> {
    let bad = |path: &KeyPath, what: &str| at(text, path, what);
    let args = match entry.get("args") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| bad(&path.key("args").index(i), "expected a string"))
            })
            .collect::<Result<Vec<_>>>()?,
        Some(_) => {
            return Err(bad(&path.key("args"), "expected an array of strings"));
        }
    };
    let env = match entry.get("env") {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| {
                v.as_str()
                    .map(|v| (k.to_owned(), v.to_owned()))
                    .ok_or_else(|| bad(&path.key("env").key(k), "expected a string"))
            })
            .collect::<Result<BTreeMap<_, _>>>()?,
        Some(_) => {
            return Err(bad(&path.key("env"), "expected an object of strings"));
        }
    };
    Ok(Launch::Stdio {
        command,
        args,
        env,
        cwd: entry_string(text, path, entry, "cwd")?.map(PathBuf::from),
    })
}

/// Why a `url` server cannot start in a build without the HTTP transport.
#[cfg(not(feature = "mcp-http"))]
pub(crate) const NO_HTTP: &str = "`url` servers need the `mcp-http` feature \
     (rebuild with `--features cli,mcp-proxy,mcp-semantic`)";

/// Without `mcp-http` a `url` entry is a server reported unavailable, saying why.
#[cfg(not(feature = "mcp-http"))]
fn http(
    _: &str,
    _: &KeyPath,
    _: &crate::Map,
    _: &str,
    _: &dyn Fn(&str) -> Option<String>,
    _: bool,
) -> Result<Launch> {
    Ok(Launch::Unsupported(NO_HTTP.to_owned()))
}

/// A `url` entry: its URL and `headers`, `${VAR}`s replaced, each checked. Errors name the key
/// path (and a missing variable), never the URL or a value: they may carry tokens.
#[cfg(feature = "mcp-http")]
fn http(
    text: &str,
    path: &KeyPath,
    entry: &crate::Map,
    url: &str,
    env: &dyn Fn(&str) -> Option<String>,
    http_sse: bool,
) -> Result<Launch> {
    let bad = |path: &KeyPath, what: &str| at(text, path, what);
    let url_path = path.key("url");
    let url = expand(url, env).map_err(|e| bad(&url_path, &e.to_string()))?;
    if let Err(why) = crate::mcp::proxy::transport::http::check_url(&url) {
        return Err(bad(&url_path, why));
    }
    let headers = match entry.get("headers") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| {
                let at = path.key("headers").key(k);
                let v = v.as_str().ok_or_else(|| bad(&at, "expected a string"))?;
                let v = expand(v, env).map_err(|e| bad(&at, &e.to_string()))?;
                crate::mcp::proxy::transport::http::check_header(k, &v)
                    .map_err(|why| bad(&at, why))?;
                Ok((k.to_owned(), v))
            })
            .collect::<Result<Vec<_>>>()?,
        Some(_) => return Err(bad(&path.key("headers"), "expected an object of strings")),
    };
    Ok(if http_sse {
        Launch::Sse { url, headers }
    } else {
        Launch::Http { url, headers }
    })
}

/// Why a `${VAR}` in a `url` or a header cannot be expanded (the configuration error's
/// message at that key).
#[cfg(feature = "mcp-http")]
#[derive(Debug, thiserror::Error)]
enum ExpandError {
    /// `${` without its `}`.
    #[error("a \"${{\" without its \"}}\"")]
    Unclosed,
    /// `${...}` whose name is empty or not letters, digits and `_`.
    #[error("\"${{...}}\" holds no variable name (letters, digits, _)")]
    NoName,
    /// A variable that is not set, and no default.
    #[error("the environment variable {name} is not set")]
    Unset {
        /// The variable.
        name: String,
    },
}

/// `text` with each `${NAME}` replaced by the variable's value, and each `${NAME:-default}` by
/// the value or, when it is unset or empty, the default (as Claude Code reads them). `$` not
/// followed by `{` is kept.
///
/// # Errors
/// The variable that is not set (and has no default), or a `${` never closed.
#[cfg(feature = "mcp-http")]
fn expand(text: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<String, ExpandError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after.find('}').ok_or(ExpandError::Unclosed)?;
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(ExpandError::NoName);
        }
        match (
            env(name).filter(|v| !v.is_empty() || default.is_none()),
            default,
        ) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => {
                return Err(ExpandError::Unset {
                    name: name.to_owned(),
                });
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(feature = "mcp-http")]
    fn full_entry_in_file_order() {
        let c = Config::from_str(
            r#"{"mcpServers": {
                "b": {"command": "node", "args": ["x.js"], "env": {"K": "v"}, "cwd": "/tmp"},
                "a": {"command": "uvx", "disabled": true},
                "web": {"type": "http", "url": "https://example.com/mcp"}
            }}"#,
        )
        .unwrap();
        let names: Vec<&str> = c.servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["b", "a", "web"]);
        assert_eq!(
            c.servers[0].launch,
            Launch::Stdio {
                command: "node".into(),
                args: vec!["x.js".into()],
                env: [("K".to_owned(), "v".to_owned())].into(),
                cwd: Some("/tmp".into()),
            }
        );
        assert!(c.servers[1].disabled);
        assert_eq!(
            c.servers[2].launch,
            Launch::Http {
                url: "https://example.com/mcp".into(),
                headers: Vec::new(),
            }
        );
        assert_eq!(c.enabled().count(), 2);
    }

    #[test]
    fn a_server_may_say_how_its_tools_are_shown_and_a_wrong_option_is_located() {
        let c = Config::from_str(
            r#"{"mcpServers": {"big": {"command": "a", "toon": {"mode": "lean"}},
                               "small": {"command": "b", "toon": {}},
                               "plain": {"command": "c"}}}"#,
        )
        .unwrap();
        let modes: Vec<Option<Mode>> = c.servers.iter().map(|s| s.mode).collect();
        assert_eq!(modes, [Some(Mode::Lean), None, None]);
        let wrong = |entry: &str| {
            let text = format!(r#"{{"mcpServers": {{"s": {{"command": "a", "toon": {entry}}}}}}}"#);
            Config::from_str(&text).unwrap_err().to_string()
        };
        assert_eq!(
            wrong(r#"{"mode": "Compact"}"#),
            "line 1, column 56: mcpServers.s.toon.mode: expected \"passthrough\", \"compact\" or \"lean\""
        );
        assert_eq!(
            wrong(r#"{"mod": "lean"}"#),
            "line 1, column 55: mcpServers.s.toon.mod: unknown option: expected \"mode\" or \"revision\""
        );
        assert!(wrong(r#"{"revision": "2026"}"#).ends_with(
            "mcpServers.s.toon.revision: expected \"auto\", \"2025-11-25\" or \"2026-07-28\""
        ));
        let c = Config::from_str(
            r#"{"mcpServers": {"new": {"command": "a", "toon": {"revision": "2026-07-28"}},
                               "any": {"command": "b", "toon": {"revision": "auto", "mode": "lean"}},
                               "old": {"command": "c"}}}"#,
        )
        .unwrap();
        let revisions: Vec<Revision> = c.servers.iter().map(|s| s.revision).collect();
        assert_eq!(
            revisions,
            [
                Revision::Modern,
                Revision::DiscoverFirst,
                Revision::DiscoverFirst
            ]
        );
        assert!(wrong("\"lean\"").contains("mcpServers.s.toon: expected an object"));
    }

    /// Windsurf's remote servers: `serverUrl` is their `url`.
    #[test]
    #[cfg(feature = "mcp-http")]
    fn windsurf_server_url_is_the_url() {
        let c =
            Config::from_str(r#"{"mcpServers": {"w": {"serverUrl": "https://example.com/mcp"}}}"#)
                .unwrap();
        assert_eq!(
            c.servers[0].launch,
            Launch::Http {
                url: "https://example.com/mcp".into(),
                headers: Vec::new(),
            }
        );
    }

    #[test]
    fn errors_say_where() {
        let e = Config::from_str("{\"mcpServers\": {\n  \"a\": {\"command\": }\n}}").unwrap_err();
        assert_eq!((e.line(), e.column()), (2, 20));
        assert_eq!(
            e.to_string(),
            "line 2, column 20: invalid JSON: expected value"
        );
        let e = Config::from_str(r#"{"tools": {}}"#).unwrap_err();
        assert!(e.to_string().contains("mcpServers"), "{e}");
        let e = Config::from_str(r#"{"mcpServers": {"a": {"args": []}}}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 1, column 22: mcpServers.a: needs \"command\" (a stdio server) or \"url\" (a Streamable HTTP server)"
        );
        let e = Config::from_str(
            "{\"mcpServers\": {\"a\": {\"command\": \"x\",\n \"args\": [\"-v\", 1]}}}",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 2, column 17: mcpServers.a.args[1]: expected a string"
        );
        let e = Config::from_str(r#"{"mcpServers": []}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 1, column 16: mcpServers: expected an object of servers"
        );
    }

    /// What a configuration holds must not reach the error: it goes to stderr, and on to the
    /// client's log files.
    #[test]
    #[cfg(feature = "mcp-http")]
    fn errors_never_quote_the_configuration() {
        const SECRET: &str = "ghp_s3cr3tT0k3n";
        let cases = [
            // A syntax error on the secret's line (the quote is never closed).
            format!(
                "{{\"mcpServers\": {{\"github\": {{\"command\": \"gh\",\n  \"env\": {{\"GITHUB_TOKEN\": \"{SECRET}}}}}}}"
            ),
            // A syntax error just after it.
            format!(
                "{{\"mcpServers\": {{\"github\": {{\"env\": {{\"GITHUB_TOKEN\": \"{SECRET}\" \"x\"}}}}}}}}"
            ),
            // Type errors: the secret as a number, beside it, and in an array.
            format!(
                "{{\"mcpServers\": {{\"github\": {{\"command\": \"gh\", \"env\": {{\"GITHUB_TOKEN\": [\"{SECRET}\"]}}}}}}}}"
            ),
            format!(
                "{{\"mcpServers\": {{\"github\": {{\"command\": 5, \"env\": {{\"GITHUB_TOKEN\": \"{SECRET}\"}}}}}}}}"
            ),
            format!(
                "{{\"mcpServers\": {{\"github\": {{\"command\": \"gh\", \"args\": [\"--token={SECRET}\", {{}}]}}}}}}"
            ),
            format!("{{\"mcpServers\": {{\"github\": \"{SECRET}\"}}}}"),
        ];
        let expected = [
            "line 2, column 45: invalid JSON: EOF while parsing a string",
            "line 1, column 70: invalid JSON: expected `,` or `}`",
            "mcpServers.github.env.GITHUB_TOKEN: expected a string",
            "mcpServers.github.command: expected a string",
            "mcpServers.github.args[1]: expected a string",
            "mcpServers.github: expected an object",
        ];
        for (text, expected) in cases.iter().zip(expected) {
            let e = Config::from_str(text).unwrap_err();
            let message = format!("{e} {e:?}");
            assert!(!message.contains("s3cr3t"), "{message}");
            assert!(message.contains(expected), "{message}");
            assert!(e.line() > 0, "{message}");
        }
        let web = format!(
            r#"{{"mcpServers": {{"web": {{"url": "https://x.example/mcp?key={SECRET}", "headers": {{"X-Key": "{SECRET}"}}}}}}}}"#
        );
        let config = Config::from_str(&web).unwrap();
        let debug = format!("{config:?}");
        assert!(!debug.contains("s3cr3t"), "{debug}");
        let sse = format!(
            r#"{{"mcpServers": {{"web": {{"type": "sse", "url": "https://x.example/sse?key={SECRET}"}}}}}}"#
        );
        let debug = format!("{:?}", Config::from_str(&sse).unwrap());
        assert!(
            debug.contains("Sse") && !debug.contains("s3cr3t"),
            "{debug}"
        );
        for (url, header) in [
            (format!("ftp://x.example/{SECRET}"), "\"a\"".to_owned()),
            (
                "https://x.example/mcp".to_owned(),
                format!("\"{SECRET}\\n\""),
            ),
            (
                "https://x.example/mcp".to_owned(),
                format!("\"${{{SECRET}\""),
            ),
        ] {
            let text = format!(
                r#"{{"mcpServers": {{"web": {{"url": "{url}", "headers": {{"X-Key": {header}}}}}}}}}"#
            );
            let e = Config::from_str(&text).unwrap_err();
            let message = format!("{e} {e:?}");
            assert!(!message.contains("s3cr3t"), "{message}");
            assert!(message.contains("mcpServers.web."), "{message}");
        }
    }

    #[test]
    #[cfg(not(feature = "mcp-http"))]
    fn without_http_a_url_server_is_unavailable_and_says_which_build_has_it() {
        let text = r#"{"mcpServers": {"web": {"url": "https://example.com/mcp"}, "local": {"command": "x"}}}"#;
        let c = Config::from_str(text).unwrap();
        assert!(matches!(&c.servers[0].launch, Launch::Unsupported(why) if why == NO_HTTP));
        assert!(matches!(&c.servers[1].launch, Launch::Stdio { .. }));
    }

    #[test]
    #[cfg(feature = "mcp-http")]
    fn http_entries_as_clients_write_them() {
        let env = |name: &str| match name {
            "TOKEN" => Some("t0k".to_owned()),
            "EMPTY" => Some(String::new()),
            _ => None,
        };
        let c = Config::from_str_with(
            r#"{"mcpServers": {
                "a": {"type": "http", "url": "http://127.0.0.1:1/mcp",
                      "headers": {"Authorization": "Bearer ${TOKEN}", "X-Two": "${TOKEN}-${EMPTY:-d}-$x"}},
                "b": {"type": "streamable-http", "url": "https://${HOST:-example.com}/mcp"},
                "c": {"type": "sse", "url": "https://example.com/sse"}
            }}"#,
            &env,
        )
        .unwrap();
        assert_eq!(
            c.servers[0].launch,
            Launch::Http {
                url: "http://127.0.0.1:1/mcp".into(),
                headers: vec![
                    ("Authorization".into(), "Bearer t0k".into()),
                    ("X-Two".into(), "t0k-d-$x".into()),
                ],
            }
        );
        assert!(
            matches!(&c.servers[1].launch, Launch::Http { url, .. } if url == "https://example.com/mcp")
        );
        assert_eq!(
            c.servers[2].launch,
            Launch::Sse {
                url: "https://example.com/sse".into(),
                headers: Vec::new(),
            }
        );
        let errors = [
            (
                r#"{"mcpServers": {"a": {"url": "https://x/${NOPE}"}}}"#,
                "line 1, column 30: mcpServers.a.url: the environment variable NOPE is not set",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "http://x/mcp", "headers": {"X": "${NOPE"}}}}"#,
                "mcpServers.a.headers.X: a \"${\" without its \"}\"",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "/mcp"}}}"#,
                "mcpServers.a.url: expected an http:// or https:// URL with a host",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "http://x/mcp", "headers": {"Bad Name": "v"}}}}"#,
                "mcpServers.a.headers[\"Bad Name\"]: not a valid HTTP header name",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "http://x/mcp", "headers": []}}}"#,
                "mcpServers.a.headers: expected an object of strings",
            ),
            (
                r#"{"mcpServers": {"a": {"type": "websocket", "url": "ws://x"}}}"#,
                "mcpServers.a.type: expected \"stdio\", \"http\", \"streamable-http\" or \"sse\"",
            ),
        ];
        for (text, expected) in errors {
            let e = Config::from_str_with(text, &env).unwrap_err().to_string();
            assert!(e.ends_with(expected), "{e}");
        }
    }

    #[test]
    fn oversized_or_endless_files_are_refused() {
        let dir = std::env::temp_dir().join(format!("toon-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let big = dir.join("big.json");
        let padding = " ".repeat(usize::try_from(MAX_CONFIG_BYTES).unwrap());
        std::fs::write(&big, format!("{{\"mcpServers\": {{}}{padding}}}")).unwrap();
        let e = Config::load(Some(&big)).unwrap_err().to_string();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(
            e.contains("the file is 1048594 bytes; the limit is 1048576 bytes (1 MiB)"),
            "{e}"
        );
        if Path::new("/dev/zero").exists() {
            let e = Config::load(Some(Path::new("/dev/zero")))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("more than 1048576 bytes were read; the limit is 1048576 bytes"),
                "{e}"
            );
        }
    }

    #[test]
    fn load_names_the_path() {
        let e = Config::load(Some(Path::new("/nonexistent/mcp.json"))).unwrap_err();
        assert!(
            e.to_string().contains("/nonexistent/mcp.json (given)"),
            "{e}"
        );
    }

    #[test]
    fn vs_code_s_servers_key_is_read_too() {
        let c = Config::from_str(
            r#"{"inputs": [], "servers": {"a": {"type": "stdio", "command": "uvx", "args": ["x"]},
                                          "b": {"type": "http", "url": "http://127.0.0.1:1/mcp"}}}"#,
        )
        .unwrap();
        let names: Vec<&str> = c.servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        let e = Config::from_str(r#"{"servers": {"a": {"command": 5}}}"#).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("servers.a.command: expected a string"),
            "{e}"
        );
    }

    #[test]
    fn an_entry_that_serves_this_same_file_is_refused() {
        let dir = std::env::temp_dir().join(format!("toon-self-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("mcp.json");
        let other = dir.join("other.json");
        std::fs::write(&other, "{}").unwrap();
        let text = serde_json::json!({"mcpServers": {
            "me": {"command": "/usr/local/bin/toon", "args": ["mcp", "serve", "--config", path]},
            "me-relative": {"command": "toon", "args": ["mcp", "serve", "--mode", "lean",
                                                        "--config=mcp.json"], "cwd": dir},
            "me-by-env": {"command": "toon", "args": ["mcp", "serve"],
                          "env": {"TOON_MCP_CONFIG": path}},
            "nested": {"command": "toon", "args": ["mcp", "serve", "--config", other]},
            "inspect": {"command": "toon", "args": ["mcp", "inspect", "--config", path]},
            "time": {"command": "uvx", "args": ["mcp-server-time"]}
        }});
        std::fs::write(&path, text.to_string()).unwrap();
        let (config, _) = Config::load(Some(&path)).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let refused: Vec<&str> = config
            .servers
            .iter()
            .filter(
                |s| matches!(&s.launch, Launch::Unsupported(why) if why.contains("start itself")),
            )
            .map(|s| s.name.as_str())
            .collect();
        // (`json!` wrote the keys sorted.)
        assert_eq!(refused, ["me", "me-by-env", "me-relative"]);
    }
}
