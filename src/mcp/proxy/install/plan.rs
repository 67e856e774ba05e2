//! An install planned: both files read, the servers sorted into moved and kept, both new texts
//! written out, nothing on disk yet.

use std::fmt;
use std::path::{Path, PathBuf};

use super::backup::{self, Backup, FileChange};
use super::compose::{Loaded, Moved, Sorted, client_text, gateway_text, toon_entry};
use super::jsonc::Object;
use super::splice;
use super::{Client, InstallError, Places, Request, Scope, Write, entry};

/// The name of the client's entry that starts the gateway.
pub const ENTRY_NAME: &str = "toon";

/// An install, planned ([`plan_install`]): shown with [`Display`](fmt::Display) (secrets
/// hidden), written with [`apply`](Install::apply).
#[derive(Debug)]
pub struct Install {
    client: Client,
    backup_path: PathBuf,
    backup: Backup,
    /// Moved servers: name, entry shown with secrets hidden, whether the gateway had it already.
    moved: Vec<(String, String, bool)>,
    /// Servers left in the client's file, and why.
    kept: Vec<(String, String)>,
    /// The entry that starts the gateway, as written (it holds no secret).
    entry: String,
}

/// Plans installing the gateway into `request.client`'s file: reads the client's file and
/// the gateway's configuration and works out both new texts. Nothing is written.
///
/// # Errors
/// An [`InstallError`] when a file cannot be read or is not a configuration, the client has
/// a `toon` entry already or was installed into already (a backup exists), or a server's name
/// is in the gateway's configuration with another definition.
pub fn plan_install(request: &Request, places: &Places) -> Result<Install, InstallError> {
    let client = request.client;
    let path = client_file(request, places)?;
    let backup_path = backup::path_for(&path);
    if backup_path.exists() {
        return Err(InstallError::AlreadyInstalled {
            backup: backup_path,
        });
    }
    let gateway_path = gateway_file(request, places)?;
    if std::fs::canonicalize(&gateway_path).ok() == std::fs::canonicalize(&path).ok()
        && gateway_path.exists()
    {
        return Err(InstallError::NotConfig {
            path: gateway_path,
            what: "is the client's own file: the gateway's configuration must be another"
                .to_owned(),
        });
    }
    let source = Loaded::of(&path, client.jsonc())?;
    let gateway = Loaded::of(&gateway_path, false)?;
    let servers = source.servers(&[client.servers_key()])?;
    let sorted = sort(client, &source, servers.as_ref())?;
    let existing = gateway.servers(&["mcpServers", "servers"])?;
    let already = check_conflicts(&gateway, existing.as_ref(), &sorted.moved)?;

    let entry = toon_entry(request, &gateway_path, &source, servers.as_ref());
    let (client_after, servers_text) =
        client_text(client, &source, servers.as_ref(), &sorted, &entry);
    let added: Vec<&Moved> = sorted
        .moved
        .iter()
        .filter(|m| !already.contains(&m.name))
        .collect();
    let (gateway_after, added) = gateway_text(&gateway, existing.as_ref(), &added);
    let texts = (
        client_after.as_str(),
        gateway.text.as_deref(),
        gateway_after.as_str(),
    );
    read_back(&path, client.jsonc(), &gateway_path, texts)?;
    let backup = Backup::new(
        client.name(),
        FileChange {
            path: path.clone(),
            before: source.text.clone(),
            after: client_after,
        },
        servers_text,
        FileChange {
            path: gateway_path,
            before: gateway.text.clone(),
            after: gateway_after,
        },
        (added, already.clone()),
    );
    let moved = sorted
        .moved
        .iter()
        .map(|m| {
            (
                m.name.clone(),
                entry::masked(&m.value),
                already.contains(&m.name),
            )
        })
        .collect();
    Ok(Install {
        client,
        backup_path,
        backup,
        moved,
        kept: sorted.kept,
        entry: entry.1,
    })
}

/// Both new texts read as their readers will read them: a composition that would not is
/// refused before anything is written.
fn read_back(
    client: &Path,
    jsonc: bool,
    gateway: &Path,
    (client_text, gateway_before, gateway_text): (&str, Option<&str>, &str),
) -> Result<(), InstallError> {
    let broken = |path: &Path| InstallError::NotConfig {
        path: path.to_path_buf(),
        what: "the install would write a text that does not read back (toon's bug: please \
               report it); nothing was written"
            .to_owned(),
    };
    super::jsonc::blank(client_text, jsonc).map_err(|_| broken(client))?;
    // The gateway's file as the gateway reads it, when it read so before (what was wrong in
    // it is the gateway's to report).
    let reads = |text: &str| {
        crate::mcp::proxy::Config::from_str_with(text, &|_| Some("x".to_owned())).is_ok()
    };
    if gateway_before.is_none_or(reads) && !reads(gateway_text) {
        return Err(broken(gateway));
    }
    Ok(())
}

/// The client's file: given, else where the client keeps it.
pub(super) fn client_file(request: &Request, places: &Places) -> Result<PathBuf, InstallError> {
    match &request.file {
        Some(file) => Ok(absolute(file)),
        None => request
            .client
            .file(&request.scope, places)
            .ok_or(InstallError::NoProjectFile {
                client: request.client,
            }),
    }
}

/// The gateway's configuration: given, else the project's, else `$TOON_MCP_CONFIG`, else
/// `~/.config/toon/mcp.json`, as `toon mcp serve` chooses it.
fn gateway_file(request: &Request, places: &Places) -> Result<PathBuf, InstallError> {
    if let Some(file) = &request.gateway_config {
        return Ok(absolute(file));
    }
    if let Scope::Project(root) = &request.scope {
        return request
            .client
            .project_gateway_file(root)
            .ok_or(InstallError::NoProjectFile {
                client: request.client,
            });
    }
    match std::env::var_os(crate::mcp::proxy::CONFIG_ENV).filter(|v| !v.is_empty()) {
        Some(p) => Ok(absolute(Path::new(&p))),
        None => Ok(places.config_home.join("toon").join("mcp.json")),
    }
}

pub(super) fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The client's servers, moved or kept (and why).
fn sort(client: Client, source: &Loaded, servers: Option<&Object>) -> Result<Sorted, InstallError> {
    let mut sorted = Sorted {
        moved: Vec::new(),
        kept: Vec::new(),
    };
    for (index, member) in servers.map_or(&[][..], |s| &s.members).iter().enumerate() {
        if member.key == ENTRY_NAME {
            return Err(InstallError::NameTaken {
                path: source.path.clone(),
            });
        }
        let value = without_blank_lines(&source.blanked[member.value.clone()]);
        match entry::why_kept(&member.key, &value, client.title()) {
            Some(why) => sorted.kept.push((member.key.clone(), why)),
            None => sorted.moved.push(Moved {
                index,
                name: member.key.clone(),
                value,
                indent: splice::indentation_at(source.original(), member.key_start).to_owned(),
                unit: source.unit(),
            }),
        }
    }
    Ok(sorted)
}

/// Blanked text without the spaces comments left: each line's trailing spaces, and lines left
/// empty (a line ends outside any JSON string).
fn without_blank_lines(text: &str) -> String {
    let lines: Vec<&str> = text
        .split('\n')
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .collect();
    lines.join("\n")
}

/// The names among `moved` the gateway has already with the same definition; an error for
/// those it has with another.
fn check_conflicts(
    gateway: &Loaded,
    existing: Option<&Object>,
    moved: &[Moved],
) -> Result<Vec<String>, InstallError> {
    let Some(existing) = existing else {
        return Ok(Vec::new());
    };
    let value = |text: &str| serde_json::from_str::<serde_json::Value>(text).ok();
    let mut same = Vec::new();
    let mut conflicts = Vec::new();
    for m in moved {
        if let Some(there) = existing.get(&m.name) {
            if value(&gateway.blanked[there.value.clone()]) == value(&m.value) {
                same.push(m.name.clone());
            } else {
                conflicts.push(m.name.clone());
            }
        }
    }
    if conflicts.is_empty() {
        Ok(same)
    } else {
        Err(InstallError::Conflict {
            gateway: gateway.path.clone(),
            names: conflicts,
        })
    }
}

impl Install {
    /// The client's file.
    #[must_use]
    pub fn client_file(&self) -> &Path {
        &self.backup.client_file.path
    }

    /// The gateway's configuration.
    #[must_use]
    pub fn gateway_file(&self) -> &Path {
        &self.backup.gateway_file.path
    }

    /// The backup [`apply`](Self::apply) writes.
    #[must_use]
    pub fn backup_file(&self) -> &Path {
        &self.backup_path
    }

    /// The names of the servers moved to the gateway.
    pub fn moved(&self) -> impl Iterator<Item = &str> {
        self.moved.iter().map(|(name, _, _)| name.as_str())
    }

    /// The names of the servers left with the client, and why.
    pub fn kept(&self) -> impl Iterator<Item = (&str, &str)> {
        self.kept.iter().map(|(n, why)| (n.as_str(), why.as_str()))
    }

    /// The client's file as the install writes it.
    #[must_use]
    pub fn client_text(&self) -> &str {
        &self.backup.client_file.after
    }

    /// The gateway's configuration as the install writes it.
    #[must_use]
    pub fn gateway_text(&self) -> &str {
        &self.backup.gateway_file.after
    }

    /// Writes the backup, then the gateway's configuration, then the client's file, each
    /// atomically; a failure puts back what was written.
    ///
    /// # Errors
    /// [`InstallError::Changed`] when a file changed since it was planned;
    /// [`InstallError::Write`] when writing failed.
    pub fn apply(&self) -> Result<(), InstallError> {
        let (client, gateway) = (&self.backup.client_file, &self.backup.gateway_file);
        for file in [client, gateway] {
            if super::read(&file.path)? != file.before {
                return Err(InstallError::Changed {
                    path: file.path.clone(),
                    what: "changed while the install ran; run it again".to_owned(),
                });
            }
        }
        let writes = [
            (
                self.backup_path.clone(),
                Write::Text(self.backup.to_text()),
                true,
            ),
            (
                gateway.path.clone(),
                Write::Text(gateway.after.clone()),
                true,
            ),
            (
                client.path.clone(),
                Write::Text(client.after.clone()),
                false,
            ),
        ];
        super::write_all(
            &writes,
            &[None, gateway.before.clone(), client.before.clone()],
        )
    }
}

impl fmt::Display for Install {
    /// What the install changes, secrets hidden.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let client = self.client;
        writeln!(f, "{client}: {}", self.client_file().display())?;
        if self.moved.is_empty() {
            writeln!(f, "  no server to move")?;
        } else {
            writeln!(f, "  moved to {}:", self.gateway_file().display())?;
        }
        for (name, shown, already) in &self.moved {
            match already {
                true => writeln!(f, "    {name}: already there, the same")?,
                false => writeln!(f, "    {name}: {shown}")?,
            }
        }
        if !self.kept.is_empty() {
            writeln!(f, "  kept in {client}'s file:")?;
        }
        for (name, why) in &self.kept {
            writeln!(f, "    {name}: {why}")?;
        }
        let entry = entry::masked(&self.entry);
        writeln!(f, "  added to {client}'s file: \"{ENTRY_NAME}\": {entry}")?;
        write!(f, "  backup: {}", self.backup_path.display())
    }
}
