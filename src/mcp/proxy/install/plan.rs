//! An install planned: both files read, the servers sorted into moved and kept, both new texts
//! written out, nothing on disk yet.

use std::fmt;
use std::path::{Path, PathBuf};

use super::backup::{self, Added, Backup, FileChange};
use super::jsonc::{self, Object};
use super::splice::{self, Item, Layout};
use super::{Client, InstallError, Places, Request, Scope, Write, entry};
use crate::mcp::raw::quote;

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

/// A JSON (or JSONC) file read: its text, blanked text and top object.
struct Read {
    path: PathBuf,
    text: Option<String>,
    blanked: String,
    top: Option<Object>,
}

impl Read {
    fn of(path: &Path, jsonc: bool) -> Result<Read, InstallError> {
        let text = super::read(path)?;
        let blanked = match &text {
            Some(t) => super::blanked(path, t, jsonc)?,
            None => String::new(),
        };
        let top = match &text {
            Some(_) => {
                Some(
                    jsonc::object_at(&blanked, 0).ok_or_else(|| InstallError::NotConfig {
                        path: path.to_path_buf(),
                        what: "not a JSON object".to_owned(),
                    })?,
                )
            }
            None => None,
        };
        Ok(Read {
            path: path.to_path_buf(),
            text,
            blanked,
            top,
        })
    }

    fn original(&self) -> &str {
        self.text.as_deref().unwrap_or_default()
    }

    /// The object of servers under the first of `keys` the top object has.
    fn servers(&self, keys: &[&str]) -> Result<Option<Object>, InstallError> {
        let Some(top) = &self.top else {
            return Ok(None);
        };
        let Some(member) = keys.iter().find_map(|k| top.get(k)) else {
            return Ok(None);
        };
        jsonc::object_at(&self.blanked, member.value.start)
            .map(Some)
            .ok_or_else(|| InstallError::NotConfig {
                path: self.path.clone(),
                what: format!("\"{}\" is not an object of servers", member.key),
            })
    }

    fn unit(&self) -> String {
        self.top
            .as_ref()
            .map_or_else(|| "  ".to_owned(), |t| splice::unit(self.original(), t))
    }
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
    let source = Read::of(&path, client.jsonc())?;
    let gateway = Read::of(&gateway_path, false)?;
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

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A server to move: its index in the client's object, name, value text for the gateway's
/// file (comments dropped) and the indentation it sat at.
struct Moved {
    index: usize,
    name: String,
    value: String,
    indent: String,
    /// The client file's indentation unit.
    unit: String,
}

struct Sorted {
    moved: Vec<Moved>,
    kept: Vec<(String, String)>,
}

/// The client's servers, moved or kept (and why).
fn sort(client: Client, source: &Read, servers: Option<&Object>) -> Result<Sorted, InstallError> {
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
    gateway: &Read,
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

/// The entry that starts the gateway, as `(member text, value text)` in the layout of the
/// client's object of servers.
fn toon_entry(
    request: &Request,
    gateway: &Path,
    source: &Read,
    servers: Option<&Object>,
) -> (String, String) {
    let (mut command, mut args) = request.runner.command();
    if request.client.needs_absolute_command()
        && let Some(found) =
            std::env::var_os("PATH").and_then(|path| super::runner::find_on(&path, &command))
    {
        command = found.to_string_lossy().into_owned();
    }
    args.push("--config".to_owned());
    args.push(config_argument(request, gateway));
    args.extend(request.serve_args.iter().cloned());
    let mut fields = Vec::new();
    if request.client.typed_entries() {
        fields.push(("type", quote("stdio")));
    }
    fields.push(("command", quote(&command)));
    let args: Vec<String> = args.iter().map(|a| quote(a)).collect();
    fields.push(("args", format!("[{}]", args.join(", "))));
    let layout = servers_layout(source, servers);
    let value = if layout.multiline {
        let inner = format!("{}{}", layout.indent, layout.unit);
        let lines: Vec<String> = fields
            .iter()
            .map(|(k, v)| format!("{inner}\"{k}\": {v}"))
            .collect();
        format!("{{\n{}\n{}}}", lines.join(",\n"), layout.indent)
    } else {
        let parts: Vec<String> = fields
            .iter()
            .map(|(k, v)| format!("\"{k}\": {v}"))
            .collect();
        format!("{{{}}}", parts.join(", "))
    };
    (format!("{}: {value}", quote(ENTRY_NAME)), value)
}

/// `--config`'s value: the gateway's file, or, in a VS Code project, the same path under
/// `${workspaceFolder}` (VS Code expands its predefined variables in an entry), so that the
/// project's file names no one machine's folders.
fn config_argument(request: &Request, gateway: &Path) -> String {
    if let (Scope::Project(root), Client::VsCode) = (&request.scope, request.client)
        && let Ok(relative) = gateway.strip_prefix(absolute(root))
    {
        return format!("${{workspaceFolder}}/{}", relative.to_string_lossy());
    }
    gateway.to_string_lossy().into_owned()
}

/// The layout the client's servers object has, or the one a new one would have.
fn servers_layout(source: &Read, servers: Option<&Object>) -> Layout {
    let unit = source.unit();
    match (servers, &source.top) {
        (Some(s), _) => Layout::of(source.original(), s, &unit),
        (None, Some(top)) => {
            let outer = Layout::of(source.original(), top, &unit);
            Layout {
                indent: format!("{}{unit}", outer.indent),
                ..outer
            }
        }
        (None, None) => Layout {
            multiline: true,
            indent: format!("{unit}{unit}"),
            unit,
        },
    }
}

/// The client's new text, and its object of servers before and after.
fn client_text(
    client: Client,
    source: &Read,
    servers: Option<&Object>,
    sorted: &Sorted,
    entry: &(String, String),
) -> (String, (Option<String>, String)) {
    let original = source.original();
    if let Some(servers) = servers {
        let first = sorted.moved.first().map(|m| m.index);
        let moved = |i: usize| sorted.moved.iter().any(|m| m.index == i);
        let mut items: Vec<Item> = (0..servers.members.len())
            .filter_map(|i| match (Some(i) == first, moved(i)) {
                (true, _) => Some(Item::New(entry.0.clone(), Some(i))),
                (false, true) => None,
                (false, false) => Some(Item::Keep(i)),
            })
            .collect();
        if first.is_none() {
            items.push(Item::New(entry.0.clone(), None));
        }
        let layout = Layout::of(original, servers, &source.unit());
        let object = splice::rewrite(original, &source.blanked, servers, &items, &layout);
        let text = replace(original, servers, &object);
        let before = original[servers.open..=servers.close].to_owned();
        return (text, (Some(before), object));
    }
    let layout = servers_layout(source, None);
    let object = wrap(&layout, std::slice::from_ref(&entry.0));
    let member = format!("{}: {object}", quote(client.servers_key()));
    (insert(source, member), (None, object))
}

/// An object of `members` in `layout` (theirs: `layout.indent` is the members').
fn wrap(layout: &Layout, members: &[String]) -> String {
    if layout.multiline {
        let outer = layout
            .indent
            .strip_suffix(layout.unit.as_str())
            .unwrap_or_default();
        let lines: Vec<String> = members
            .iter()
            .map(|m| format!("{}{m}", layout.indent))
            .collect();
        format!("{{\n{}\n{outer}}}", lines.join(",\n"))
    } else {
        format!("{{{}}}", members.join(", "))
    }
}

/// `original` with `object`'s text replaced by `with`.
fn replace(original: &str, object: &Object, with: &str) -> String {
    format!(
        "{}{with}{}",
        &original[..object.open],
        &original[object.close + 1..]
    )
}

/// The file with `member` added at the end of its top object, or a new file of it.
fn insert(file: &Read, member: String) -> String {
    match &file.top {
        Some(top) => {
            let original = file.original();
            let items: Vec<Item> = (0..top.members.len())
                .map(Item::Keep)
                .chain([Item::New(member, None)])
                .collect();
            let layout = Layout::of(original, top, &file.unit());
            replace(
                original,
                top,
                &splice::rewrite(original, &file.blanked, top, &items, &layout),
            )
        }
        None => format!("{{\n  {member}\n}}\n"),
    }
}

/// The gateway's new text with the `moved` servers added, and what was added.
fn gateway_text(
    gateway: &Read,
    existing: Option<&Object>,
    moved: &[&Moved],
) -> (String, Vec<Added>) {
    let unit = gateway.unit();
    let original = gateway.original();
    let layout = match (existing, &gateway.top) {
        (Some(s), _) => Layout::of(original, s, &unit),
        (None, Some(top)) => {
            let outer = Layout::of(original, top, &unit);
            Layout {
                indent: format!("{}{unit}", outer.indent),
                ..outer
            }
        }
        (None, None) => Layout {
            multiline: true,
            indent: format!("{unit}{unit}"),
            unit: unit.clone(),
        },
    };
    let added: Vec<Added> = moved
        .iter()
        .map(|m| Added {
            name: m.name.clone(),
            text: splice::reindent(&m.value, (&m.indent, &m.unit), (&layout.indent, &unit)),
        })
        .collect();
    let members: Vec<String> = added
        .iter()
        .map(|a| format!("{}: {}", quote(&a.name), a.text))
        .collect();
    let text = match existing {
        Some(servers) => {
            let items: Vec<Item> = (0..servers.members.len())
                .map(Item::Keep)
                .chain(members.into_iter().map(|m| Item::New(m, None)))
                .collect();
            let object = splice::rewrite(original, &gateway.blanked, servers, &items, &layout);
            replace(original, servers, &object)
        }
        None => insert(
            gateway,
            format!("\"mcpServers\": {}", wrap(&layout, &members)),
        ),
    };
    (text, added)
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
