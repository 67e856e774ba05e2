//! The catalog's views, each plain text for a model: `full` (a table per server), `categories`
//! (a row per category), `lean` (a few lines to start a session with) and `describe_toon`.
//!
//! The tables (`full`, `full_in`, `categories`, and `discover_tools`' answers) are TOON with
//! rows one space in ([`TABLE_INDENT`]); they decode with [`table_decode_options`].
//! `describe_toon` is TOON as [`to_string`](crate::to_string) writes it and decodes with the
//! defaults.

use std::collections::HashMap;

use super::catalog::{Catalog, Server, Status, Tool};
use super::error::{Error, Result};
use crate::{DecodeOptions, Delimiter, EncodeOptions, Map, Value};

/// How tools are put into categories for [`Catalog::categories`] and [`Catalog::full_in`].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Grouping {
    /// By the server that provides them (the default).
    #[default]
    Server,
    /// By the part of the name before the first `_`, `-` or `.` (`git_*`), where at least two
    /// tools share it; the rest are `other`.
    Prefix,
    /// By annotations: `read-only`, `additive` or `destructive` (see
    /// [`Annotations::effect`](super::Annotations::effect)).
    Effect,
}

impl Grouping {
    /// Parses `server`, `prefix` or `effect` (also `annotations`).
    #[must_use]
    pub fn parse(s: &str) -> Option<Grouping> {
        match s {
            "server" => Some(Grouping::Server),
            "prefix" => Some(Grouping::Prefix),
            "effect" | "annotations" => Some(Grouping::Effect),
            _ => None,
        }
    }
}

/// The `full` view's table delimiter. Measured on seven real servers (o200k): comma 1,210
/// tokens, tab 1,211, pipe 1,226; cells with commas are quoted, but so are most signatures.
const FULL_DELIMITER: Delimiter = Delimiter::Comma;

/// Spaces per indentation level of the catalog's tables: [`Catalog::full`],
/// [`Catalog::full_in`], [`Catalog::categories`] and the answers of
/// [`MetaTools`](super::MetaTools)' `discover_tools`. Their rows are one space in.
///
/// TOON's indentation unit is a fixed number of spaces that encoder and decoder agree on
/// (SPEC §1.3, §12; an option of both, §13), 2 by default. One is cheaper here: in o200k a
/// row's newline and a two-space indentation are separate tokens, while the space of a
/// one-space indentation joins the word after it. On the seven servers of
/// `tests/fixtures/mcp` the `full` view costs 1,210 tokens (0.119× their compact JSON) with one
/// space and 1,262 (0.124×) with two; `categories` 115 against 122.
///
/// So these views do not decode with [`from_str`](crate::from_str)'s defaults (a row one
/// space in is not a multiple of two: strict decoding refuses it, §12, §14.2; lenient decoding
/// puts it at depth 0, outside its table): decode them with [`table_decode_options`].
pub const TABLE_INDENT: usize = 1;

/// The options the catalog's tables decode with: strict, [`TABLE_INDENT`] spaces per level
/// (SPEC §12).
///
/// ```
/// use toon::mcp::{Catalog, table_decode_options};
/// let mut catalog = Catalog::new();
/// catalog.add_server("fs", r#"{"tools": [{"name": "read_file", "description": "Read a file.",
///   "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}},
///   "required": ["path"]}}]}"#)?;
/// let full: toon::Value = toon::from_str_with(&catalog.full()?, &table_decode_options())?;
/// assert_eq!(full, toon::toon!({"fs": [{"name": "read_file", "description": "Read a file",
///     "params": "path"}]}));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn table_decode_options() -> DecodeOptions {
    DecodeOptions::new().indent_size(TABLE_INDENT)
}

/// `value` as one of the catalog's tables: TOON indented [`TABLE_INDENT`] spaces a level.
pub(crate) fn table(value: &Value, delimiter: Delimiter) -> crate::Result<String> {
    crate::to_string_with(
        value,
        &EncodeOptions::new()
            .delimiter(delimiter)
            .indent_size(TABLE_INDENT),
    )
}

/// A category's description lists its first tools up to about this many characters.
const CATEGORY_DESCRIPTION_CHARS: usize = 60;

/// The category of `tool`; `shared` says whether a name prefix is used by two tools or more.
fn category(tool: &Tool, grouping: Grouping, shared: impl Fn(&str) -> bool) -> String {
    match grouping {
        Grouping::Server => tool.server().to_owned(),
        Grouping::Effect => tool.annotations().effect().to_owned(),
        Grouping::Prefix => match name_prefix(tool.name()) {
            Some(p) if shared(p) => format!("{p}_*"),
            _ => "other".to_owned(),
        },
    }
}

fn name_prefix(name: &str) -> Option<&str> {
    name.find(['_', '-', '.'])
        .filter(|&i| i > 0)
        .map(|i| &name[..i])
}

impl Catalog {
    /// The category `tool` belongs to under `grouping`.
    #[must_use]
    pub fn category_of(&self, tool: &Tool, grouping: Grouping) -> String {
        let shared = |p: &str| {
            self.tools()
                .filter(|t| name_prefix(t.name()) == Some(p))
                .count()
                > 1
        };
        category(tool, grouping, shared)
    }

    /// The tools of `category` under `grouping`, or `None` when there is no such category.
    pub(crate) fn members(&self, category: &str, grouping: Grouping) -> Option<Vec<&Tool>> {
        self.grouped(grouping)
            .into_iter()
            .find(|(c, _)| c == category)
            .map(|(_, tools)| tools)
    }

    /// Every category under `grouping` with its tools, in first-seen order. Under
    /// [`Grouping::Server`], unavailable servers are categories without tools.
    #[must_use]
    pub fn grouped(&self, grouping: Grouping) -> Vec<(String, Vec<&Tool>)> {
        // Prefix sizes counted once, not per tool.
        let mut prefixes: HashMap<&str, usize> = HashMap::new();
        if grouping == Grouping::Prefix {
            for prefix in self.tools().filter_map(|t| name_prefix(t.name())) {
                *prefixes.entry(prefix).or_default() += 1;
            }
        }
        let shared = |p: &str| prefixes.get(p).is_some_and(|&n| n > 1);
        let mut groups: Vec<(String, Vec<&Tool>)> = Vec::new();
        for server in self.servers() {
            if grouping == Grouping::Server {
                groups.push((server.name().to_owned(), server.tools().iter().collect()));
                continue;
            }
            for tool in server.tools() {
                let category = category(tool, grouping, shared);
                match groups.iter_mut().find(|(c, _)| *c == category) {
                    Some((_, tools)) => tools.push(tool),
                    None => groups.push((category, vec![tool])),
                }
            }
        }
        groups
    }

    /// One TOON table per server, a row per tool: its name, the first sentence of its
    /// description, and its parameter signature (see the [`mcp`](super) module docs for the
    /// notation). Unavailable servers show their reason instead of a table. A comment line
    /// (SPEC §5.1) before the tables is the notation's legend. Rows are [`TABLE_INDENT`] space
    /// in: decode it with [`table_decode_options`].
    ///
    /// # Errors
    /// When a tool's definition cannot be parsed (see [`Tool::definition`]).
    pub fn full(&self) -> Result<String> {
        self.full_of(|_| true, |_| true)
    }

    /// The [`full`](Self::full) view of the tools in one category only. Under
    /// [`Grouping::Server`] a category is a server, shown whatever its state; under the other
    /// groupings, the servers with tools in it and the unavailable ones, whose tools could be.
    ///
    /// # Errors
    /// As [`full`](Self::full); also when there is no such category.
    pub fn full_in(&self, category: &str, grouping: Grouping) -> Result<String> {
        let Some(members) = self.members(category, grouping) else {
            return Err(Error::UnknownCategory {
                name: category.to_owned(),
                known: self.grouped(grouping).into_iter().map(|(c, _)| c).collect(),
            });
        };
        let member = |t: &Tool| members.iter().any(|m| std::ptr::eq(*m, t));
        match grouping {
            Grouping::Server => self.full_of(|s| s.name() == category, member),
            Grouping::Prefix | Grouping::Effect => {
                self.full_of(|s| matches!(s.status(), Status::Unavailable(_)), member)
            }
        }
    }

    /// The tables of the tools `keep` takes, server by server. A server none of whose tools
    /// are taken is left out unless `show` asks for it: an unavailable one as its reason, a
    /// ready one without tools as an empty table.
    fn full_of(
        &self,
        show: impl Fn(&Server) -> bool,
        keep: impl Fn(&Tool) -> bool,
    ) -> Result<String> {
        let mut root = Map::new();
        for server in self.servers() {
            let rows = server
                .tools()
                .iter()
                .filter(|t| keep(t))
                .map(tool_row)
                .collect::<Result<Vec<Value>>>()?;
            if rows.is_empty() && !show(server) {
                continue;
            }
            let entry = match server.status() {
                Status::Unavailable(reason) => Value::String(format!("unavailable: {reason}")),
                Status::Ready => Value::Array(rows),
            };
            root.insert(server.name().to_owned(), entry);
        }
        let table = table(&Value::Object(root), FULL_DELIMITER)?;
        Ok(format!("{}\n{table}", super::schema::LEGEND))
    }

    /// The browse listing (`discover_tools` with query `*`): every tool, or those of
    /// `category` under its grouping, server by server, a compact row each (its name and the
    /// first sentence of its description, without the parameters the `full` view shows), from
    /// the `from`th tool (counted from 0) on, at most `size` of them. A listing cut into pages
    /// ends with a comment line saying which tools it shows and the cursor of the next page
    /// (the number of the next tool: pages of a catalog that changes in between may skip or
    /// repeat a few tools). Servers without a tool to show appear as in
    /// [`full`](Self::full) and [`full_in`](Self::full_in), on the first page only. Rows are
    /// [`TABLE_INDENT`] space in: decode it with [`table_decode_options`].
    ///
    /// # Errors
    /// When there is no such category, or `from` is past the last tool.
    pub(crate) fn browse(
        &self,
        category: Option<(&str, Grouping)>,
        from: usize,
        size: usize,
    ) -> Result<String> {
        let members = match category {
            Some((name, grouping)) => {
                Some(
                    self.members(name, grouping)
                        .ok_or_else(|| Error::UnknownCategory {
                            name: name.to_owned(),
                            known: self.grouped(grouping).into_iter().map(|(c, _)| c).collect(),
                        })?,
                )
            }
            None => None,
        };
        let keep = |t: &Tool| {
            members
                .as_ref()
                .is_none_or(|m| m.iter().any(|m| std::ptr::eq(*m, t)))
        };
        // The servers `full_in` shows for this category even without a tool in it.
        let show = |s: &Server| match category {
            None | Some((_, Grouping::Server)) => category.is_none_or(|(c, _)| s.name() == c),
            Some(_) => matches!(s.status(), Status::Unavailable(_)),
        };
        let total = self.tools().filter(|t| keep(t)).count();
        if from > 0 && from >= total {
            return Err(Error::CursorPastEnd {
                cursor: from,
                total,
            });
        }
        let end = from.saturating_add(size).min(total);
        let mut root = Map::new();
        let mut seen = 0;
        for server in self.servers() {
            let mut rows = Vec::new();
            for tool in server.tools().iter().filter(|t| keep(t)) {
                if (from..end).contains(&seen) {
                    rows.push(brief_row(tool));
                }
                seen += 1;
            }
            // A server whose tools are on other pages, or that has none to show, is left out
            // as `full_in` leaves it out, and after the first page always.
            let on_other_pages = server.tools().iter().any(keep);
            if rows.is_empty() && (from > 0 || on_other_pages || !show(server)) {
                continue;
            }
            let entry = match server.status() {
                Status::Unavailable(reason) => Value::String(format!("unavailable: {reason}")),
                Status::Ready => Value::Array(rows),
            };
            root.insert(server.name().to_owned(), entry);
        }
        let mut text = table(&Value::Object(root), FULL_DELIMITER)?;
        if from > 0 || end < total {
            // A comment line (SPEC §5.1): the tables decode as they would without it.
            text.push_str(&format!("\n# tools {}-{end} of {total}", from + 1));
            if end < total {
                text.push_str(&format!("; next page: the same call with cursor \"{end}\""));
            }
        }
        Ok(text)
    }

    /// One row per category: its name, tool count and a short description (its first tools'
    /// names; for an unavailable server, why). A TOON table [`TABLE_INDENT`] space in: decode
    /// it with [`table_decode_options`].
    ///
    /// # Errors
    /// Only if encoding fails, which it does not for these plain rows.
    pub fn categories(&self, grouping: Grouping) -> Result<String> {
        let rows: Vec<Value> = self
            .grouped(grouping)
            .into_iter()
            .map(|(name, tools)| {
                let unavailable = match grouping {
                    Grouping::Server => self
                        .servers()
                        .iter()
                        .find(|s| s.name() == name)
                        .and_then(unavailable_reason),
                    _ => None,
                };
                let description =
                    unavailable.unwrap_or_else(|| tool_names(&tools, CATEGORY_DESCRIPTION_CHARS));
                let mut row = Map::new();
                row.insert("name".into(), Value::String(name));
                row.insert("tools".into(), Value::from(tools.len() as u64));
                row.insert("description".into(), Value::String(description));
                Value::Object(row)
            })
            .collect();
        let mut root = Map::new();
        root.insert("categories".into(), Value::Array(rows));
        Ok(table(&Value::Object(root), Delimiter::Comma)?)
    }

    /// The categories in one line, `name (tools)` each, unavailable servers marked: the
    /// [`categories`](Self::categories) view without descriptions, for where every token is
    /// paid in every prompt (lean mode's `discover_tools` description).
    #[must_use]
    pub fn category_list(&self, grouping: Grouping) -> String {
        let names: Vec<String> = self
            .grouped(grouping)
            .into_iter()
            .map(|(name, tools)| {
                let down = grouping == Grouping::Server
                    && self
                        .servers()
                        .iter()
                        .any(|s| s.name() == name && unavailable_reason(s).is_some());
                if down {
                    format!("{name} (unavailable)")
                } else {
                    format!("{name} ({})", tools.len())
                }
            })
            .collect();
        names.join(", ")
    }

    /// A few lines for the start of a session: how many tools there are, in which categories
    /// (servers), and the three meta-tools that find, explain and run them.
    #[must_use]
    pub fn lean(&self) -> String {
        let groups: Vec<String> = self
            .servers()
            .iter()
            .map(|s| match s.status() {
                Status::Ready => format!("{} {}", s.name(), s.tools().len()),
                Status::Unavailable(_) => format!("{} unavailable", s.name()),
            })
            .collect();
        let servers = self.servers().len();
        format!(
            "{} tools from {servers} server{} ({}).\n\
             discover_tools {{query?,category?,limit?}} finds tools; \
             get_tool_spec {{name}} shows one's parameters; \
             execute_tool {{name,arguments}} runs one.",
            self.len(),
            if servers == 1 { "" } else { "s" },
            groups.join(", ")
        )
    }

    /// The tool's definition as readable TOON (its schema included), or `None` for an
    /// unknown name. Nested, not a table: TOON as [`to_string`](crate::to_string) writes it,
    /// which [`from_str`](crate::from_str) decodes. For the exact bytes the server sent, use
    /// [`describe`](Self::describe).
    ///
    /// # Errors
    /// When the definition cannot be parsed or encoded.
    pub fn describe_toon(&self, name: &str) -> Result<Option<String>> {
        match self.get(name) {
            Some(tool) => Ok(Some(crate::to_string(tool.definition()?)?)),
            None => Ok(None),
        }
    }
}

fn unavailable_reason(server: &Server) -> Option<String> {
    match server.status() {
        Status::Unavailable(reason) => Some(format!("unavailable: {reason}")),
        Status::Ready => None,
    }
}

/// A row of the `full` view.
pub(crate) fn tool_row(tool: &Tool) -> Result<Value> {
    let mut row = Map::new();
    row.insert("name".into(), Value::String(tool.name().to_owned()));
    row.insert("description".into(), Value::String(tool.summary()));
    // A schema no reader takes (nested past serde_json's depth limit) costs its signature,
    // not the view.
    let params = tool.signature().unwrap_or_else(|_| "?".to_owned());
    row.insert("params".into(), Value::String(params));
    Ok(Value::Object(row))
}

/// A row of the browse listing ([`Catalog::browse`]): the `full` view's row without its
/// parameters.
fn brief_row(tool: &Tool) -> Value {
    let mut row = Map::new();
    row.insert("name".into(), Value::String(tool.name().to_owned()));
    row.insert("description".into(), Value::String(tool.summary()));
    Value::Object(row)
}

/// `a, b, c, …` up to about `max` characters.
fn tool_names(tools: &[&Tool], max: usize) -> String {
    let mut out = String::new();
    for (i, tool) in tools.iter().enumerate() {
        if i > 0 && out.len() + tool.name().len() + 2 > max {
            out.push_str(", …");
            break;
        }
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(tool.name());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog() -> Catalog {
        let mut c = Catalog::new();
        c.add_server(
            "git",
            r#"{"tools":[
            {"name":"git_status","description":"Shows the working tree status","annotations":{"readOnlyHint":true},
             "inputSchema":{"type":"object","properties":{"repo_path":{"type":"string"}},"required":["repo_path"]}},
            {"name":"git_commit","description":"Records changes, with a message.","annotations":{"destructiveHint":false},
             "inputSchema":{"type":"object","properties":{"repo_path":{"type":"string"},"message":{"type":"string"}},"required":["repo_path","message"]}}]}"#,
        )
        .unwrap();
        c.add_unavailable("slow", "start-up timed out after 10s");
        c
    }

    #[test]
    fn full_is_a_table_per_server() {
        let full = catalog().full().unwrap();
        assert_eq!(
            full,
            "# params: name = required string; name:type; name? optional; =default\n\
             git[2]{name,description,params}:\n \
             git_status,Shows the working tree status,repo_path\n \
             git_commit,\"Records changes, with a message\",repo_path message\n\
             slow: \"unavailable: start-up timed out after 10s\""
        );
        let back: Value = crate::from_str_with(&full, &table_decode_options()).unwrap();
        assert_eq!(back["git"][1]["params"], "repo_path message");
        assert_eq!(back["slow"], "unavailable: start-up timed out after 10s");
    }

    #[test]
    fn categories_by_server_prefix_and_effect() {
        let c = catalog();
        assert_eq!(
            c.categories(Grouping::Server).unwrap(),
            "categories[2]{name,tools,description}:\n \
             git,2,\"git_status, git_commit\"\n \
             slow,0,\"unavailable: start-up timed out after 10s\""
        );
        let by_prefix = c.grouped(Grouping::Prefix);
        assert_eq!(by_prefix[0].0, "git_*");
        assert_eq!(by_prefix[0].1.len(), 2);
        let by_effect: Vec<String> = c
            .grouped(Grouping::Effect)
            .into_iter()
            .map(|g| g.0)
            .collect();
        assert_eq!(by_effect, ["read-only", "additive"]);
        let one = c.full_in("read-only", Grouping::Effect).unwrap();
        assert!(
            one.contains("git_status") && !one.contains("git_commit"),
            "{one}"
        );
        assert!(
            c.full_in("nope", Grouping::Effect)
                .unwrap_err()
                .to_string()
                .contains("read-only")
        );
    }

    #[test]
    fn a_category_shows_its_own_servers_only() {
        let mut c = catalog();
        c.add_server("empty", r#"{"tools":[]}"#).unwrap();
        let servers = |text: String| -> Vec<String> {
            let value: Value = crate::from_str_with(&text, &table_decode_options()).unwrap();
            value
                .as_object()
                .unwrap()
                .keys()
                .map(str::to_owned)
                .collect()
        };
        let full = c.full().unwrap();
        assert_eq!(servers(full), ["git", "slow", "empty"]);
        for name in ["git", "slow", "empty"] {
            let one = c.full_in(name, Grouping::Server).unwrap();
            assert_eq!(servers(one), [name]);
        }
        // A server that could not be listed may have read-only tools; one without tools has
        // none.
        let read_only = c.full_in("read-only", Grouping::Effect).unwrap();
        assert_eq!(servers(read_only), ["git", "slow"]);
    }

    #[test]
    fn lean_names_every_server() {
        assert_eq!(
            catalog().lean(),
            "2 tools from 2 servers (git 2, slow unavailable).\n\
             discover_tools {query?,category?,limit?} finds tools; get_tool_spec {name} shows \
             one's parameters; execute_tool {name,arguments} runs one."
        );
    }

    #[test]
    fn describe_toon_renders_the_definition() {
        let text = catalog().describe_toon("git_status").unwrap().unwrap();
        assert!(text.starts_with("name: git_status\n"), "{text}");
        let back: Value = crate::from_str(&text).unwrap();
        assert_eq!(back["inputSchema"]["required"][0], "repo_path");
    }
}
