//! The new texts of both files: the client's with its servers object rewritten around the
//! entry that starts the gateway, the gateway's with the moved servers added, each in its
//! file's own layout.

use std::path::{Path, PathBuf};

use super::backup::Added;
use super::jsonc::{self, Object};
use super::plan::{ENTRY_NAME, absolute};
use super::splice::{self, Item, Style};
use super::{Client, InstallError, Request, Scope};
use crate::mcp::raw::quote;

/// A JSON (or JSONC) file read: its text, blanked text and top object.
pub(super) struct Loaded {
    pub(super) path: PathBuf,
    pub(super) text: Option<String>,
    pub(super) blanked: String,
    pub(super) top: Option<Object>,
}

impl Loaded {
    pub(super) fn of(path: &Path, jsonc: bool) -> Result<Loaded, InstallError> {
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
        Ok(Loaded {
            path: path.to_path_buf(),
            text,
            blanked,
            top,
        })
    }

    pub(super) fn original(&self) -> &str {
        self.text.as_deref().unwrap_or_default()
    }

    /// The object of servers under the first of `keys` the top object has.
    pub(super) fn servers(&self, keys: &[&str]) -> Result<Option<Object>, InstallError> {
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

    pub(super) fn unit(&self) -> String {
        self.top
            .as_ref()
            .map_or_else(|| "  ".to_owned(), |t| splice::unit(self.original(), t))
    }
}

/// A server to move: its index in the client's object, name, value text for the gateway's
/// file (comments dropped) and the indentation it sat at.
pub(super) struct Moved {
    pub(super) index: usize,
    pub(super) name: String,
    pub(super) value: String,
    pub(super) indent: String,
    /// The client file's indentation unit.
    pub(super) unit: String,
}

pub(super) struct Sorted {
    pub(super) moved: Vec<Moved>,
    pub(super) kept: Vec<(String, String)>,
}

/// The entry that starts the gateway, as `(member text, value text)` in the layout of the
/// client's object of servers.
pub(super) fn toon_entry(
    request: &Request,
    gateway: &Path,
    source: &Loaded,
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
fn servers_layout(source: &Loaded, servers: Option<&Object>) -> Style {
    let unit = source.unit();
    match (servers, &source.top) {
        (Some(s), _) => Style::of(source.original(), s, &unit),
        (None, Some(top)) => {
            let outer = Style::of(source.original(), top, &unit);
            Style {
                indent: format!("{}{unit}", outer.indent),
                ..outer
            }
        }
        (None, None) => Style {
            multiline: true,
            indent: format!("{unit}{unit}"),
            unit,
        },
    }
}

/// The client's new text, and its object of servers before and after.
pub(super) fn client_text(
    client: Client,
    source: &Loaded,
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
        let layout = Style::of(original, servers, &source.unit());
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
fn wrap(layout: &Style, members: &[String]) -> String {
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
fn insert(file: &Loaded, member: String) -> String {
    match &file.top {
        Some(top) => {
            let original = file.original();
            let items: Vec<Item> = (0..top.members.len())
                .map(Item::Keep)
                .chain([Item::New(member, None)])
                .collect();
            let layout = Style::of(original, top, &file.unit());
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
pub(super) fn gateway_text(
    gateway: &Loaded,
    existing: Option<&Object>,
    moved: &[&Moved],
) -> (String, Vec<Added>) {
    let unit = gateway.unit();
    let original = gateway.original();
    let layout = match (existing, &gateway.top) {
        (Some(s), _) => Style::of(original, s, &unit),
        (None, Some(top)) => {
            let outer = Style::of(original, top, &unit);
            Style {
                indent: format!("{}{unit}", outer.indent),
                ..outer
            }
        }
        (None, None) => Style {
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
