//! The `mcpServers` configuration file, in the format Claude Desktop, Claude Code, Cursor and
//! most MCP clients share:
//!
//! ```json
//! {"mcpServers": {"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"],
//!                            "env": {"MEMORY_FILE_PATH": "/tmp/memory.json"}, "cwd": "/tmp", "disabled": false}}}
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use crate::error::{Error, Result};

/// The environment variable naming the configuration file when no path is given.
pub const CONFIG_ENV: &str = "TOON_MCP_CONFIG";

/// One server of an `mcpServers` configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerConfig {
    /// The key it has under `mcpServers`; tools shared with another server are exposed as
    /// `NAME__tool`.
    pub name: String,
    /// How to reach it.
    pub launch: Launch,
    /// `"disabled": true` servers are neither started nor listed.
    pub disabled: bool,
}

/// How a configured server is reached.
#[derive(Clone, Debug, PartialEq, Eq)]
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
    /// A transport the proxy does not speak (a `url` entry: HTTP or SSE); the server is
    /// reported unavailable with this reason.
    Unsupported(String),
}

/// A parsed `mcpServers` configuration, servers in file order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
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
    /// # Ok::<(), toon::Error>(())
    /// ```
    ///
    /// # Errors
    /// Invalid JSON (with line and column), no `mcpServers` object, or an entry with neither
    /// `command` nor `url`, or with fields of the wrong type.
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(text: &str) -> Result<Config> {
        let root: Json = serde_json::from_str(text).map_err(|e| Error::json(&e, text))?;
        let servers = root
            .get("mcpServers")
            .and_then(Json::as_object)
            .ok_or_else(|| {
                Error::data("not an MCP configuration: expected {\"mcpServers\": {NAME: {\"command\": ...}}}")
            })?;
        let servers = servers
            .iter()
            .map(|(name, entry)| server(name, entry))
            .collect::<Result<Vec<_>>>()?;
        Ok(Config { servers })
    }

    /// Reads the configuration from `path`, else from the file `TOON_MCP_CONFIG` names, else
    /// from [`default_path`]; returns it with the path it came from.
    ///
    /// # Errors
    /// When the file cannot be read (the message names the path and how it was chosen) or
    /// does not parse.
    pub fn load(path: Option<&Path>) -> Result<(Config, PathBuf)> {
        let (path, why) = match path {
            Some(p) => (p.to_path_buf(), "given"),
            None => match std::env::var_os(CONFIG_ENV).filter(|v| !v.is_empty()) {
                Some(p) => (PathBuf::from(p), "from TOON_MCP_CONFIG"),
                None => (
                    default_path().ok_or_else(|| {
                        Error::data(
                            "no configuration file: pass --config FILE or set TOON_MCP_CONFIG",
                        )
                    })?,
                    "the default location",
                ),
            },
        };
        let text = std::fs::read_to_string(&path).map_err(|e| {
            Error::data(format!(
                "cannot read MCP configuration {} ({why}): {e}",
                path.display()
            ))
        })?;
        let config =
            Config::from_str(&text).map_err(|e| Error::data(format!("{}: {e}", path.display())))?;
        Ok((config, path))
    }

    /// The servers to start: all but the disabled ones.
    pub fn enabled(&self) -> impl Iterator<Item = &ServerConfig> + '_ {
        self.servers.iter().filter(|s| !s.disabled)
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

fn server(name: &str, entry: &Json) -> Result<ServerConfig> {
    let bad = |what: &str| Error::data(format!("mcpServers.{name}: {what}"));
    let entry = entry.as_object().ok_or_else(|| bad("expected an object"))?;
    let string = |key: &str| -> Result<Option<String>> {
        match entry.get(key) {
            None | Some(Json::Null) => Ok(None),
            Some(Json::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(bad(&format!("\"{key}\" must be a string"))),
        }
    };
    let disabled = match entry.get("disabled") {
        None | Some(Json::Null) => false,
        Some(Json::Bool(b)) => *b,
        Some(_) => return Err(bad("\"disabled\" must be true or false")),
    };
    let launch = match (string("command")?, string("url")?) {
        (Some(command), _) => {
            let args = match entry.get("args") {
                None | Some(Json::Null) => Vec::new(),
                Some(Json::Array(a)) => a
                    .iter()
                    .map(|v| v.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| bad("\"args\" must be an array of strings"))?,
                Some(_) => return Err(bad("\"args\" must be an array of strings")),
            };
            let env = match entry.get("env") {
                None | Some(Json::Null) => BTreeMap::new(),
                Some(Json::Object(m)) => m
                    .iter()
                    .map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned())))
                    .collect::<Option<BTreeMap<_, _>>>()
                    .ok_or_else(|| bad("\"env\" values must be strings"))?,
                Some(_) => return Err(bad("\"env\" must be an object of strings")),
            };
            Launch::Stdio {
                command,
                args,
                env,
                cwd: string("cwd")?.map(PathBuf::from),
            }
        }
        (None, Some(url)) => Launch::Unsupported(format!(
            "{url}: only stdio servers (\"command\") are supported"
        )),
        (None, None) => return Err(bad("needs \"command\" (a stdio server)")),
    };
    Ok(ServerConfig {
        name: name.to_owned(),
        launch,
        disabled,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
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
        assert!(
            matches!(&c.servers[2].launch, Launch::Unsupported(why) if why.contains("only stdio"))
        );
        assert_eq!(c.enabled().count(), 2);
    }

    #[test]
    fn errors_say_where() {
        let e = Config::from_str("{\"mcpServers\": {\n  \"a\": {\"command\": }\n}}").unwrap_err();
        assert_eq!((e.line(), e.column()), (2, 20));
        let e = Config::from_str(r#"{"servers": {}}"#).unwrap_err();
        assert!(e.to_string().contains("mcpServers"), "{e}");
        let e = Config::from_str(r#"{"mcpServers": {"a": {"args": []}}}"#).unwrap_err();
        assert!(
            e.to_string().contains("mcpServers.a: needs \"command\""),
            "{e}"
        );
        let e = Config::from_str(r#"{"mcpServers": {"a": {"command": "x", "args": [1]}}}"#)
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("\"args\" must be an array of strings"),
            "{e}"
        );
    }

    #[test]
    fn load_names_the_path() {
        let e = Config::load(Some(Path::new("/nonexistent/mcp.json"))).unwrap_err();
        assert!(
            e.to_string().contains("/nonexistent/mcp.json (given)"),
            "{e}"
        );
    }
}
