//! `toon mcp install CLIENT` and `toon mcp uninstall CLIENT`: a client's servers moved into
//! the gateway's configuration, and the client given one entry, `toon`, that starts the
//! gateway in front of them; and back.
//!
//! - [`Client`]: Claude Code, Claude Desktop, Cursor, VS Code, Windsurf; where each keeps its
//!   servers ([`Client::file`], for the user or a project: [`Scope`]).
//! - [`plan_install`] reads both files and returns what would change ([`Install`], which
//!   prints it with secrets hidden); [`Install::apply`] writes it. A server the gateway would
//!   run otherwise than the client (a `${…}` only the client expands, an `envFile`, a form
//!   the gateway cannot read) stays in the client's file, with the reason. A name the gateway
//!   already has with another definition is an error ([`InstallError::Conflict`]), never an
//!   overwrite.
//! - The client's file is edited in place: the object of servers is rewritten member by
//!   member (kept members, and the comments and separators before them, as they were: VS
//!   Code's JSONC too), every other byte stays. The backup beside it (`FILE.toon-backup`) holds both
//!   files before and after, so that [`plan_uninstall`] puts the client's file back byte for
//!   byte when nothing else changed in it, and otherwise puts back just its servers, as long as
//!   they are as the install left them; the same for the servers it added to the gateway's
//!   configuration. What changed since is refused, saying what to do.
//! - [`Runner`]: how the entry starts the gateway: `uvx`, `npx`, or the binary's path, as the
//!   running binary was installed ([`Runner::detect`]).
//!
//! Files are written atomically with their permissions kept (`files.rs`); secrets in `env` and
//! `headers` are copied, never shown.

mod backup;
mod client;
mod compose;
mod entry;
mod files;
mod jsonc;
mod plan;
mod runner;
mod splice;
mod undo;

use std::path::PathBuf;

pub use client::{Client, Places, Scope};
pub use plan::{Install, plan_install};
pub use runner::{DISTRIBUTION, Runner};
pub use undo::{Uninstall, plan_uninstall};

/// What to install, and where.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Request {
    /// The client whose file is edited.
    pub client: Client,
    /// Its user file or a project's.
    pub scope: Scope,
    /// The client's file, when not where [`Client::file`] says.
    pub file: Option<PathBuf>,
    /// The gateway's configuration, when not the default (`$TOON_MCP_CONFIG`, else
    /// `~/.config/toon/mcp.json`; for a project, [`Client::project_gateway_file`]).
    pub gateway_config: Option<PathBuf>,
    /// How the entry starts the gateway.
    pub runner: Runner,
    /// More arguments for `toon mcp serve` (`--mode lean`).
    pub serve_args: Vec<String>,
}

impl Request {
    /// A request for `client`'s user file, the gateway started by `runner`.
    #[must_use]
    pub fn new(client: Client, runner: Runner) -> Request {
        Request {
            client,
            scope: Scope::User,
            file: None,
            gateway_config: None,
            runner,
            serve_args: Vec::new(),
        }
    }
}

/// Why an install or uninstall was refused; nothing was written. Messages name files, lines and
/// columns, server names and what to do, never a configuration's values.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InstallError {
    /// The client has no project file (Claude Desktop, Windsurf).
    #[error("{client} has no project configuration: run it without --project")]
    NoProjectFile {
        /// The client.
        client: Client,
    },
    /// No home directory to find the files in.
    #[error("no home directory (HOME is not set): pass --file and --config")]
    NoHome,
    /// A file could not be read.
    #[error("cannot read {}: {reason}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A file is not JSON (JSONC for VS Code).
    #[error(
        "{}: line {line}, column {column}: invalid {kind}: {message}; fix the file (or move it \
         away) and run the command again",
        .path.display()
    )]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// `JSON` or `JSONC`.
        kind: &'static str,
        /// serde_json's description (never the text).
        message: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// JSON, but not of the expected form.
    #[error("{}: {what}", .path.display())]
    NotConfig {
        /// The file.
        path: PathBuf,
        /// What is wrong (`"mcpServers" is not an object`).
        what: String,
    },
    /// The client already has a server named `toon`.
    #[error(
        "{} already has a server named \"toon\": rename or remove it, then run the command again",
        .path.display()
    )]
    NameTaken {
        /// The client's file.
        path: PathBuf,
    },
    /// Servers the gateway's configuration already has, defined otherwise.
    #[error(
        "{} already has {} defined otherwise: {}; rename one of each pair (or make them the \
         same), then run the command again",
        .gateway.display(),
        if .names.len() == 1 { "a server of that name" } else { "servers of those names" },
        .names.join(", ")
    )]
    Conflict {
        /// The gateway's configuration.
        gateway: PathBuf,
        /// The names.
        names: Vec<String>,
    },
    /// There is a backup of an earlier install.
    #[error(
        "already installed: {} is the backup of an earlier install; run `toon mcp uninstall \
         CLIENT` (with the install's --project or --file) first",
        .backup.display()
    )]
    AlreadyInstalled {
        /// The backup.
        backup: PathBuf,
    },
    /// No backup: nothing to uninstall.
    #[error("not installed: there is no backup {}", .backup.display())]
    NotInstalled {
        /// Where the backup would be.
        backup: PathBuf,
    },
    /// The backup cannot be read.
    #[error("{} is not a backup `toon mcp install` wrote; restore the files from it by hand", .backup.display())]
    BadBackup {
        /// The backup.
        backup: PathBuf,
    },
    /// A file changed since the install (or while this command ran) where the command would
    /// edit it.
    #[error("{}: {what}", .path.display())]
    Changed {
        /// The file.
        path: PathBuf,
        /// What changed and what to do.
        what: String,
    },
    /// Writing failed (what was written before is put back).
    #[error("cannot write {}: {source}", .path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// A file's text, `None` when it does not exist.
fn read(path: &std::path::Path) -> Result<Option<String>, InstallError> {
    files::read(path).map_err(|e| InstallError::Read {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

/// A file's blanked text ([`jsonc::blank`]), or the error that says where it is not JSON.
fn blanked(path: &std::path::Path, text: &str, jsonc: bool) -> Result<String, InstallError> {
    jsonc::blank(text, jsonc).map_err(|e| InstallError::Unreadable {
        path: path.to_path_buf(),
        kind: if jsonc { "JSONC" } else { "JSON" },
        message: e.message,
        line: e.line,
        column: e.column,
    })
}

/// One write of an install or uninstall: the file's new text, or its removal.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Write {
    Text(String),
    Remove,
}

/// Writes `(path, write, private)` in order; on a failure, puts back what was written
/// (`(path, text before)`) and says which failed.
fn write_all(
    writes: &[(PathBuf, Write, bool)],
    before: &[Option<String>],
) -> Result<(), InstallError> {
    for (done, (path, write, private)) in writes.iter().enumerate() {
        let result = match write {
            Write::Text(text) => files::write(path, text, *private),
            Write::Remove => files::remove(path),
        };
        if let Err(source) = result {
            for ((path, _, private), old) in writes[..done].iter().zip(before).rev() {
                let _ = match old {
                    Some(text) => files::write(path, text, *private),
                    None => files::remove(path),
                };
            }
            return Err(InstallError::Write {
                path: path.clone(),
                source,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
