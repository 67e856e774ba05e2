//! The tool catalog: every tool of every server, kept byte-for-byte as the server sent it,
//! with the compact views a model reads (see [`Catalog`]).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::{Arc, OnceLock};

use serde::Deserialize;
use serde_json::value::RawValue;

use super::error::{Error, Result};
use super::search::{SearchIndex, TextKind};
use crate::Value;

/// The separator of a tool name that two servers share: `SERVER__NAME`.
pub const COLLISION_SEPARATOR: &str = "__";

/// Whether a server's tools can be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Its tools were listed.
    Ready,
    /// It could not be reached (failed to start, timed out, died); the reason says why.
    Unavailable(String),
}

/// The behaviour hints of a tool (MCP `ToolAnnotations`), with the spec's defaults applied.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Annotations {
    /// `title`, where older servers put a tool's display name.
    #[serde(default)]
    pub title: Option<String>,
    /// `readOnlyHint` (default `false`).
    #[serde(default)]
    pub read_only_hint: Option<bool>,
    /// `destructiveHint` (default `true`; meaningful only when not read-only).
    #[serde(default)]
    pub destructive_hint: Option<bool>,
    /// `idempotentHint` (default `false`).
    #[serde(default)]
    pub idempotent_hint: Option<bool>,
    /// `openWorldHint` (default `true`).
    #[serde(default)]
    pub open_world_hint: Option<bool>,
}

impl Annotations {
    /// `read-only`, `destructive` or `additive` (writes without destroying), as the MCP spec
    /// defines the hints' defaults: a tool without annotations is `destructive`.
    #[must_use]
    pub fn effect(&self) -> &'static str {
        if self.read_only_hint == Some(true) {
            "read-only"
        } else if self.destructive_hint == Some(false) {
            "additive"
        } else {
            "destructive"
        }
    }
}

/// The fields of a tool definition the catalog reads eagerly, kept raw so that one mistyped
/// field costs only that field (see [`Tool::parse`]); the rest is skipped unread.
#[derive(Deserialize)]
struct Head<'a> {
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    #[serde(borrow, default)]
    title: Option<&'a RawValue>,
    #[serde(borrow, default)]
    description: Option<&'a RawValue>,
    #[serde(borrow, default)]
    annotations: Option<&'a RawValue>,
}

/// `annotations`, each hint kept raw for the same reason.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawAnnotations<'a> {
    #[serde(borrow, default)]
    title: Option<&'a RawValue>,
    #[serde(borrow, default)]
    read_only_hint: Option<&'a RawValue>,
    #[serde(borrow, default)]
    destructive_hint: Option<&'a RawValue>,
    #[serde(borrow, default)]
    idempotent_hint: Option<&'a RawValue>,
    #[serde(borrow, default)]
    open_world_hint: Option<&'a RawValue>,
}

/// A field read as `T`: `None` when absent or `null`; when mistyped, also `None`, with a
/// warning naming the tool, the field and what was there.
fn field<T: serde::de::DeserializeOwned>(
    raw: Option<&RawValue>,
    tool: &str,
    field: &str,
    expected: &str,
    warnings: &mut Vec<String>,
) -> Option<T> {
    let raw = raw.filter(|r| r.get() != "null")?;
    // A lone surrogate (a JavaScript server cutting a string) reads as U+FFFD here: the text
    // a model reads, while the definition itself is forwarded as sent.
    let readable = crate::mcp::json_text::readable(raw.get());
    match serde_json::from_str(readable.as_deref().unwrap_or(raw.get())) {
        Ok(value) => Some(value),
        Err(_) => {
            warnings.push(format!(
                "tool {tool:?}: {field:?} is {}, not {expected}; ignored",
                excerpt(raw.get())
            ));
            None
        }
    }
}

/// The start of a JSON text, for messages.
fn excerpt(json: &str) -> String {
    let mut out: String = json.chars().take(40).collect();
    if out.len() < json.len() {
        out.push('…');
    }
    out
}

/// One tool: its definition as sent, and what the catalog derived from it.
#[derive(Clone)]
pub struct Tool {
    name: String,
    original_name: String,
    server: String,
    raw: Box<str>,
    title: Option<String>,
    description: String,
    annotations: Annotations,
    /// The parsed definition, built the first time something needs the schema.
    definition: OnceLock<std::result::Result<Value, Arc<serde_json::Error>>>,
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name)
            .field("server", &self.server)
            .finish_non_exhaustive()
    }
}

impl Tool {
    /// Reads one tool of `server`'s listing. Every tool with a non-empty string `name` is
    /// kept; a mistyped `title`, `description` or annotation is ignored with a warning, so one
    /// server's slip costs one field, not its tools. `None` (with a warning) when there is no
    /// usable name.
    fn parse(server: &str, raw: &RawValue, warnings: &mut Vec<String>) -> Option<Tool> {
        // Derived structs also accept arrays (fields by position): only objects are tools.
        let head = Some(raw)
            .filter(|r| r.get().starts_with('{'))
            .ok_or_else(|| "not an object".to_owned())
            .and_then(|r| serde_json::from_str::<Head<'_>>(r.get()).map_err(|e| e.to_string()));
        let head = match head {
            Ok(head) => head,
            Err(e) => {
                warnings.push(format!("skipped a tool: {e}: {}", excerpt(raw.get())));
                return None;
            }
        };
        let name = head
            .name
            .and_then(|n| serde_json::from_str::<String>(n.get()).ok())
            .filter(|n| !n.is_empty());
        let Some(name) = name else {
            let found = head.name.map_or("none".to_owned(), |n| excerpt(n.get()));
            warnings.push(format!(
                "skipped a tool without a usable name (a non-empty string; found {found}): {}",
                excerpt(raw.get())
            ));
            return None;
        };
        // `// 2026-07-28 server/tools` "x-mcp-header": a tool whose annotations are invalid
        // is one a client MUST exclude (most tools have none, and are not read for them).
        if raw.get().contains("x-mcp-header") {
            let tool: Value = crate::json::from_str(raw.get()).unwrap_or_default();
            if let Some(why) = super::mcp_header::fault(&tool["inputSchema"]) {
                warnings.push(format!("skipped tool {name:?}: {why}"));
                return None;
            }
        }
        let title = field(head.title, &name, "title", "a string", warnings);
        let description = field(head.description, &name, "description", "a string", warnings);
        let annotations = head
            .annotations
            .filter(|r| r.get() != "null")
            .and_then(|raw| {
                let read = Some(raw.get())
                    .filter(|r| r.starts_with('{'))
                    .and_then(|r| serde_json::from_str::<RawAnnotations<'_>>(r).ok());
                let Some(a) = read else {
                    warnings.push(format!(
                        "tool {name:?}: \"annotations\" is {}, not an object; ignored",
                        excerpt(raw.get())
                    ));
                    return None;
                };
                let mut hint = |raw, key| field::<bool>(raw, &name, key, "a boolean", warnings);
                let read_only_hint = hint(a.read_only_hint, "readOnlyHint");
                let destructive_hint = hint(a.destructive_hint, "destructiveHint");
                let idempotent_hint = hint(a.idempotent_hint, "idempotentHint");
                let open_world_hint = hint(a.open_world_hint, "openWorldHint");
                Some(Annotations {
                    title: field(a.title, &name, "annotations.title", "a string", warnings),
                    read_only_hint,
                    destructive_hint,
                    idempotent_hint,
                    open_world_hint,
                })
            });
        Some(Tool {
            name: name.clone(),
            original_name: name,
            server: server.to_owned(),
            raw: raw.get().into(),
            annotations: annotations.unwrap_or_default(),
            description: description.unwrap_or_default(),
            title,
            definition: OnceLock::new(),
        })
    }

    /// The name a model calls it by: its own, or `SERVER__NAME` when servers share it (with
    /// `_2`, … when even that is taken; see [`Catalog`]).
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its name on its server (what a `tools/call` to that server uses).
    #[must_use]
    pub fn original_name(&self) -> &str {
        &self.original_name
    }

    /// The server it belongs to.
    #[must_use]
    pub fn server(&self) -> &str {
        &self.server
    }

    /// Its `title` (or `annotations.title`), if any.
    #[must_use]
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref().or(self.annotations.title.as_deref())
    }

    /// Its full description ("" when it has none).
    #[must_use]
    pub fn description(&self) -> &str {
        &self.description
    }

    /// Its behaviour hints.
    #[must_use]
    pub fn annotations(&self) -> &Annotations {
        &self.annotations
    }

    /// The definition exactly as the server sent it (its JSON text, byte for byte).
    #[must_use]
    pub fn raw_json(&self) -> &str {
        &self.raw
    }

    /// The parsed definition (order-preserving), parsed on first use and cached.
    ///
    /// # Errors
    /// When the definition holds something [`Value`] cannot represent (a number beyond `f64`).
    pub fn definition(&self) -> Result<&Value> {
        self.definition
            .get_or_init(|| {
                // For reading only (signatures, validation): what a strict reader refuses in
                // a definition the server sent is made readable, not held against the tool.
                let raw = crate::mcp::json_text::readable(&self.raw);
                crate::json::from_str::<Value>(raw.as_deref().unwrap_or(&self.raw))
                    .map_err(Arc::new)
            })
            .as_ref()
            .map_err(|e| Error::Definition {
                tool: self.name.clone(),
                source: Arc::clone(e),
            })
    }

    /// Its `inputSchema` (an empty object schema when it declares none).
    ///
    /// # Errors
    /// As [`definition`](Self::definition).
    pub fn input_schema(&self) -> Result<&Value> {
        static EMPTY: OnceLock<Value> = OnceLock::new();
        Ok(self
            .definition()?
            .get("inputSchema")
            .unwrap_or_else(|| EMPTY.get_or_init(super::schema::empty_object)))
    }

    /// Its parameters' names and descriptions, as a search reads them: from the JSON text when
    /// that is enough, else from the parsed definition (nothing when it has none).
    fn search_words(&self) -> super::schema::SearchWords<'_> {
        if let Some(words) = super::schema::quick_search_words(&self.raw) {
            return words;
        }
        let Ok(schema) = self.input_schema() else {
            return (Vec::new(), Vec::new());
        };
        let (names, descriptions) = super::schema::search_words(schema);
        (
            names.into_iter().map(Cow::Borrowed).collect(),
            descriptions.into_iter().map(Cow::Borrowed).collect(),
        )
    }

    /// Whether it declares an `outputSchema`.
    ///
    /// # Errors
    /// As [`definition`](Self::definition).
    pub fn has_output_schema(&self) -> Result<bool> {
        Ok(self.definition()?.get("outputSchema").is_some())
    }

    /// The parameter signature the `full` view shows (`path:string! head:int`).
    ///
    /// # Errors
    /// As [`definition`](Self::definition).
    pub fn signature(&self) -> Result<String> {
        Ok(super::schema::signature(self.input_schema()?))
    }

    /// The first sentence of the description, on one line, at most [`SUMMARY_CHARS`]
    /// characters.
    #[must_use]
    pub fn summary(&self) -> String {
        summary(&self.description)
    }
}

/// A one-line description is cut at about this many characters (at a word boundary).
pub const SUMMARY_CHARS: usize = 80;

/// The first sentence of `text` on one line, cut at a word boundary near [`SUMMARY_CHARS`].
pub(crate) fn summary(text: &str) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    // A sentence ends at ". " (or the end) unless the dot belongs to "e.g." and the like.
    let mut end = flat.len();
    let bytes = flat.as_bytes();
    for (i, _) in flat.match_indices(['.', '!', '?']) {
        let next = bytes.get(i + 1).copied();
        let before = &flat[..i];
        let abbrev = ["e.g", "i.e", "etc", "vs"]
            .iter()
            .any(|a| before.ends_with(a));
        if matches!(next, None | Some(b' ')) && !abbrev {
            end = i;
            break;
        }
    }
    let sentence = flat[..end].trim_end_matches(['.', ':', ';', ',']);
    if sentence.chars().count() <= SUMMARY_CHARS {
        return sentence.to_owned();
    }
    let cut: String = sentence.chars().take(SUMMARY_CHARS).collect();
    let cut = match cut.rfind(' ') {
        Some(i) if i > SUMMARY_CHARS / 2 => &cut[..i],
        _ => &cut[..],
    };
    format!("{}…", cut.trim_end_matches([',', ';', ':', ' ']))
}

/// One result of [`Catalog::search`].
#[derive(Debug)]
pub struct Hit<'c> {
    /// The tool found.
    pub tool: &'c Tool,
    /// Its BM25 score (higher is better; only comparable within one search).
    pub score: f64,
}

/// One server: its name, whether it is usable, and its tools in listing order.
#[derive(Clone, Debug)]
pub struct Server {
    name: String,
    status: Status,
    tools: Vec<Tool>,
    warnings: Vec<String>,
}

impl Server {
    /// Its name (the key of the `mcpServers` config, or the name it was added under).
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether its tools were listed.
    #[must_use]
    pub fn status(&self) -> &Status {
        &self.status
    }

    /// Its tools, in the order the server listed them.
    #[must_use]
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// What was wrong with its listing and was worked around: a tool skipped (no usable
    /// name, a name listed twice), a mistyped field ignored, a listing cut at [`MAX_PAGES`].
    /// Each names the tool and the field.
    ///
    /// [`MAX_PAGES`]: super::MAX_PAGES
    #[must_use]
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
}

/// The tools of one or more MCP servers, with the views a model reads.
///
/// Built from `tools/list` results as JSON text, so every definition is kept byte-for-byte
/// ([`Tool::raw_json`]); schemas are parsed only when a view or a validation needs them.
/// A tool name that several servers share is exposed as `SERVER__NAME` for each, and every
/// exposed name is unique (see [`Tool::name`]). Listings are read leniently: what had to be
/// skipped or ignored is in each [`Server::warnings`].
///
/// ```
/// use toon::mcp::Catalog;
/// let list = r#"{"tools": [{"name": "read_file", "description": "Read a file. Slowly.",
///   "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}},
///   "required": ["path"]}}]}"#;
/// let mut catalog = Catalog::new();
/// catalog.add_server("fs", list)?;
/// assert_eq!(catalog.full()?.lines().nth(1), Some("fs[1]{name,description,params}:"));
/// assert_eq!(catalog.full()?.lines().nth(2), Some(" read_file,Read a file,path"));
/// assert_eq!(catalog.describe("read_file"), Some(r#"{"name": "read_file", "description": "Read a file. Slowly.",
///   "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}},
///   "required": ["path"]}}"#));
/// # Ok::<(), toon::mcp::Error>(())
/// ```
#[derive(Debug, Default)]
pub struct Catalog {
    servers: Vec<Server>,
    /// Exposed name → (server, tool) position.
    index: HashMap<String, (usize, usize)>,
    search: OnceLock<SearchIndex>,
}

/// One page of a `tools/list` result: its tools kept raw.
#[derive(Deserialize)]
struct ListPage<'a> {
    #[serde(borrow)]
    tools: Vec<&'a RawValue>,
    #[serde(default, rename = "nextCursor")]
    next_cursor: Option<String>,
}

impl Catalog {
    /// An empty catalog.
    #[must_use]
    pub fn new() -> Self {
        Catalog::default()
    }

    /// Builds a catalog from JSON text that is one of: a `tools/list` result
    /// (`{"tools": [...]}`, added as server `default_server`), a JSON array of tools (likewise),
    /// or an object mapping server names to `tools/list` results or tool arrays.
    ///
    /// # Errors
    /// Invalid JSON (with line and column), or JSON of none of these shapes.
    pub fn from_json(text: &str, default_server: &str) -> Result<Catalog> {
        let mut catalog = Catalog::new();
        let top: &RawValue = serde_json::from_str(text).map_err(|e| Error::json(e, text))?;
        match first_byte(top.get()) {
            b'[' => catalog.add_tools(default_server, top.get())?,
            b'{' => {
                // A key a Rust string cannot hold (a lone surrogate) names no server.
                let entries = super::raw::entries(top.get()).ok_or_else(|| Error::NotToolList {
                    message: "not a tool list: a server name is not valid text".to_owned(),
                    source: None,
                })?;
                if entries.iter().any(|e| e.key == "tools") {
                    catalog.add_server(default_server, top.get())?;
                } else {
                    if entries.is_empty() {
                        return Err(shape_error());
                    }
                    for super::raw::Member {
                        key: server,
                        value: list,
                    } in entries
                    {
                        match first_byte(list) {
                            b'[' => catalog.add_tools(&server, list)?,
                            b'{' => catalog.add_server(&server, list)?,
                            _ => return Err(shape_error()),
                        }
                    }
                }
            }
            _ => return Err(shape_error()),
        }
        Ok(catalog)
    }

    /// Adds (or replaces) a server from its `tools/list` result JSON. A result with a
    /// `nextCursor` is only the first page: use [`add_server_pages`](Self::add_server_pages).
    ///
    /// Tools are read leniently: a tool without a usable name, or with a name the server
    /// listed before, is skipped, and a mistyped field is ignored, each with a warning in
    /// [`Server::warnings`]; the server's other tools stay usable.
    ///
    /// # Errors
    /// Invalid JSON, or no `tools` array.
    pub fn add_server(&mut self, server: &str, tools_list: &str) -> Result<()> {
        self.add_server_pages(server, &[tools_list]).map(|_| ())
    }

    /// Adds (or replaces) a server from every page of its `tools/list` results, in order;
    /// returns the last page's `nextCursor` (`None` when the listing is complete). A listing
    /// of [`MAX_PAGES`](super::MAX_PAGES) pages that still has a `nextCursor` was cut by the
    /// proxy's own limit: its tools are kept, with a warning saying so.
    ///
    /// # Errors
    /// As [`add_server`](Self::add_server).
    pub fn add_server_pages(&mut self, server: &str, pages: &[&str]) -> Result<Option<String>> {
        let mut tools = Vec::new();
        let mut warnings = Vec::new();
        let mut cursor = None;
        for page in pages {
            let parsed: ListPage<'_> = serde_json::from_str(page).map_err(|e| {
                if e.is_data() {
                    Error::NotToolList {
                        message: format!(
                            "server {server:?}: not a tools/list result (expected {{\"tools\": [...]}}): {e}"
                        ),
                        source: Some(e),
                    }
                } else {
                    Error::json(e, page)
                }
            })?;
            tools.extend(
                parsed
                    .tools
                    .into_iter()
                    .filter_map(|raw| Tool::parse(server, raw, &mut warnings)),
            );
            cursor = parsed.next_cursor;
        }
        if cursor.is_some() && pages.len() >= super::MAX_PAGES {
            warnings.push(format!(
                "stopped listing after {} pages: the proxy's limit; tools on later pages are \
                 missing",
                pages.len()
            ));
        }
        self.insert(server, Status::Ready, tools, warnings);
        Ok(cursor)
    }

    fn add_tools(&mut self, server: &str, array: &str) -> Result<()> {
        let raws: Vec<&RawValue> = serde_json::from_str(array).map_err(|e| Error::NotToolList {
            message: format!("server {server:?}: {e}"),
            source: Some(e),
        })?;
        let mut warnings = Vec::new();
        let tools = raws
            .into_iter()
            .filter_map(|raw| Tool::parse(server, raw, &mut warnings))
            .collect();
        self.insert(server, Status::Ready, tools, warnings);
        Ok(())
    }

    /// Records a server that could not be reached; views list it as unavailable with `reason`.
    /// Replaces any tools it had.
    pub fn add_unavailable(&mut self, server: &str, reason: &str) {
        self.insert(
            server,
            Status::Unavailable(reason.to_owned()),
            Vec::new(),
            Vec::new(),
        );
    }

    /// Removes a server and its tools; returns whether it was there.
    pub fn remove_server(&mut self, server: &str) -> bool {
        let before = self.servers.len();
        self.servers.retain(|s| s.name != server);
        let removed = self.servers.len() != before;
        if removed {
            self.reindex();
        }
        removed
    }

    fn insert(
        &mut self,
        server: &str,
        status: Status,
        mut tools: Vec<Tool>,
        mut warnings: Vec<String>,
    ) {
        // A name listed twice: the first is the one a `tools/call` by that name would reach.
        let mut seen = HashSet::new();
        tools.retain(|tool| {
            let first = seen.insert(tool.original_name.clone());
            if !first {
                warnings.push(format!(
                    "tool {:?} is listed twice; kept the first",
                    tool.original_name
                ));
            }
            first
        });
        let entry = Server {
            name: server.to_owned(),
            status,
            tools,
            warnings,
        };
        match self.servers.iter_mut().find(|s| s.name == server) {
            Some(slot) => *slot = entry,
            None => self.servers.push(entry),
        }
        self.reindex();
    }

    /// Recomputes exposed names ([`exposed_names`]) and the name index, and drops the search
    /// index.
    fn reindex(&mut self) {
        let pairs: Vec<(&str, &str)> = self
            .servers
            .iter()
            .flat_map(|server| {
                let name = server.name.as_str();
                server
                    .tools
                    .iter()
                    .map(move |tool| (name, tool.original_name.as_str()))
            })
            .collect();
        let mut names = exposed_names(&pairs).into_iter();
        self.index.clear();
        for (si, server) in self.servers.iter_mut().enumerate() {
            for (ti, tool) in server.tools.iter_mut().enumerate() {
                tool.name = names.next().unwrap_or_default();
                self.index.insert(tool.name.clone(), (si, ti));
            }
        }
        self.search = OnceLock::new();
    }

    /// The servers, in the order they were added.
    #[must_use]
    pub fn servers(&self) -> &[Server] {
        &self.servers
    }

    /// The servers `keep` keeps, their tools under the names this catalog exposes them by
    /// (names shared with a server left out stay `SERVER__NAME`, so that a name means one
    /// tool wherever the proxy shows it).
    #[must_use]
    #[cfg(feature = "mcp-stdio")]
    pub(crate) fn only(&self, keep: &dyn Fn(&Server) -> bool) -> Catalog {
        let servers: Vec<Server> = self.servers.iter().filter(|s| keep(s)).cloned().collect();
        let mut index = HashMap::new();
        for (si, server) in servers.iter().enumerate() {
            for (ti, tool) in server.tools.iter().enumerate() {
                index.insert(tool.name.clone(), (si, ti));
            }
        }
        Catalog {
            servers,
            index,
            search: OnceLock::new(),
        }
    }

    /// The server added as `name`.
    #[must_use]
    pub fn server(&self, name: &str) -> Option<&Server> {
        self.servers.iter().find(|s| s.name == name)
    }

    /// Every tool of every ready server, server by server.
    pub fn tools(&self) -> impl Iterator<Item = &Tool> + '_ {
        self.servers.iter().flat_map(|s| s.tools.iter())
    }

    /// The number of tools.
    #[must_use]
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether there are no tools.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// The tool a model calls `name` (its exposed name).
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&Tool> {
        let &(s, t) = self.index.get(name)?;
        Some(&self.servers[s].tools[t])
    }

    /// The tool's definition exactly as its server sent it.
    #[must_use]
    pub fn describe(&self, name: &str) -> Option<&str> {
        self.get(name).map(Tool::raw_json)
    }

    /// The keyword index of the tools, built on first use: each tool's name, server, title
    /// and description, and its parameters' names and descriptions.
    fn search_index(&self) -> &SearchIndex {
        self.search.get_or_init(|| {
            let tools: Vec<&Tool> = self.tools().collect();
            // Each tool's schema is parsed on the core that indexes it.
            SearchIndex::build(&tools, |tool| {
                let (names, descriptions) = tool.search_words();
                let mut texts = Vec::with_capacity(4 + names.len() + descriptions.len());
                texts.extend([
                    (tool.original_name().into(), TextKind::Name),
                    (tool.server().into(), TextKind::Text),
                    (tool.title().unwrap_or_default().into(), TextKind::Title),
                    (tool.description().into(), TextKind::Description),
                ]);
                texts.extend(names.into_iter().map(|n| (n, TextKind::Param)));
                texts.extend(descriptions.into_iter().map(|d| (d, TextKind::ParamText)));
                (tool.name().to_owned(), texts)
            })
        })
    }

    /// The tools that match `query` best, at most `limit`, best first. Words are matched
    /// case-insensitively after splitting names at `_`, `-` and camelCase; a query word of
    /// three or more letters also matches words it begins (`dir` finds `directory`).
    ///
    /// ```
    /// let mut catalog = toon::mcp::Catalog::new();
    /// catalog.add_server("fs", r#"{"tools": [
    ///     {"name": "read_file", "description": "Read a file"},
    ///     {"name": "list_directory", "description": "List a directory's entries"}]}"#)?;
    /// let hits = catalog.search("dir listing", 5);
    /// assert_eq!(hits[0].tool.name(), "list_directory");
    /// # Ok::<(), toon::mcp::Error>(())
    /// ```
    #[must_use]
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit<'_>> {
        self.search_index()
            .rank(query)
            .into_iter()
            .take(limit)
            .filter_map(|(name, score)| self.get(name).map(|tool| Hit { tool, score }))
            .collect()
    }

    /// The tool a model calls `name`, or an error naming the closest tools.
    ///
    /// # Errors
    /// `unknown tool "git_stat"; did you mean git_status, …?` when there is no such tool.
    pub fn lookup(&self, name: &str) -> Result<&Tool> {
        self.get(name).ok_or_else(|| Error::UnknownTool {
            name: name.to_owned(),
            suggestions: self.suggest(name).into_iter().map(str::to_owned).collect(),
        })
    }

    /// Tool names close to `name`, for "unknown tool" errors: at most three, the best of
    /// [`search`](Self::search) in a catalog of up to 1,000 tools; in a larger one the same
    /// keyword scores over a bounded set of candidates, so that each unknown name costs
    /// about as much whatever the catalog's size (`search/suggest.rs`).
    #[must_use]
    pub fn suggest(&self, name: &str) -> Vec<&str> {
        self.search_index().suggest(name, 3).0
    }
}

fn first_byte(text: &str) -> u8 {
    text.bytes().next().unwrap_or(b' ')
}

fn shape_error() -> Error {
    Error::NotToolList {
        message: "not a tool list: expected a tools/list result {\"tools\": [...]}, a JSON array \
                  of tools, or an object mapping server names to tools/list results"
            .to_owned(),
        source: None,
    }
}

/// The names under which things several servers offer (tools, prompts) are exposed, for
/// `(server, own name)` pairs, in their order.
///
/// A name one server has is exposed as is. A name several servers share becomes
/// `SERVER__NAME` for each; if that is taken too (by another's own name, or another qualified
/// name), `_2`, `_3`, … is appended until it is free. Own names are placed first and qualified
/// ones in (server, name) order, so every exposed name is unique and depends only on which
/// servers have which names, not on the order they were added or listed in.
pub(crate) fn exposed_names(pairs: &[(&str, &str)]) -> Vec<String> {
    let mut owners: HashMap<&str, usize> = HashMap::new();
    for (_, name) in pairs {
        *owners.entry(name).or_default() += 1;
    }
    let mut names: Vec<String> = vec![String::new(); pairs.len()];
    let mut taken: HashSet<String> = HashSet::new();
    let mut shared: Vec<(&str, &str, usize)> = Vec::new();
    for (at, &(server, name)) in pairs.iter().enumerate() {
        if owners[name] == 1 {
            taken.insert(name.to_owned());
            names[at] = name.to_owned();
        } else {
            shared.push((server, name, at));
        }
    }
    shared.sort_unstable();
    for (server, name, at) in shared {
        let qualified = format!("{server}{COLLISION_SEPARATOR}{name}");
        let mut exposed = qualified.clone();
        let mut n = 1;
        while taken.contains(&exposed) {
            n += 1;
            exposed = format!("{qualified}_{n}");
        }
        taken.insert(exposed.clone());
        names[at] = exposed;
    }
    names
}

#[cfg(test)]
mod tests {
    use super::exposed_names;

    #[test]
    fn shared_names_are_qualified_and_a_taken_qualified_name_numbered() {
        // `b` has its own `a__p`, which is also what `a`'s shared `p` would become.
        let pairs = [("a", "p"), ("b", "p"), ("b", "a__p"), ("c", "q")];
        assert_eq!(exposed_names(&pairs), ["a__p_2", "b__p", "a__p", "q"]);
        // The order things are listed in changes nothing.
        let reversed = [("c", "q"), ("b", "a__p"), ("b", "p"), ("a", "p")];
        assert_eq!(exposed_names(&reversed), ["q", "a__p", "b__p", "a__p_2"]);
    }

    use super::*;

    const FS: &str = r#"{"tools":[{"name":"read","description":"Read it.","inputSchema":{"type":"object"}},
        {"name":"write","annotations":{"readOnlyHint":false,"destructiveHint":false}}]}"#;
    const GIT: &str = r#"{"tools":[{"name":"read","description":"Read a blob"},
        {"name":"log","annotations":{"readOnlyHint":true}}]}"#;

    #[test]
    fn shared_names_become_server_qualified() {
        let mut c = Catalog::new();
        c.add_server("fs", FS).unwrap();
        assert!(c.get("read").is_some());
        c.add_server("git", GIT).unwrap();
        assert!(c.get("read").is_none());
        assert_eq!(c.get("fs__read").unwrap().original_name(), "read");
        assert_eq!(c.get("git__read").unwrap().server(), "git");
        assert_eq!(c.get("log").unwrap().annotations().effect(), "read-only");
        assert_eq!(c.get("write").unwrap().annotations().effect(), "additive");
        assert_eq!(
            c.get("fs__read").unwrap().annotations().effect(),
            "destructive"
        );
        // Removing one owner gives the other its plain name back.
        assert!(c.remove_server("git"));
        assert!(c.get("read").is_some());
    }

    #[test]
    fn input_shapes() {
        let map = format!(r#"{{"fs": {FS}, "git": [{{"name": "log"}}]}}"#);
        let c = Catalog::from_json(&map, "x").unwrap();
        assert_eq!(c.servers().len(), 2);
        assert_eq!(c.len(), 3);
        let c = Catalog::from_json(r#"[{"name":"a"}]"#, "solo").unwrap();
        assert_eq!(c.get("a").unwrap().server(), "solo");
        let c = Catalog::from_json(FS, "fs").unwrap();
        assert_eq!(c.len(), 2);
        for bad in ["1", "{}", r#"{"fs": 3}"#, r#"{"tools": 3}"#] {
            assert!(Catalog::from_json(bad, "x").is_err(), "{bad}");
        }
        let err = Catalog::from_json("{\n  \"tools\": [,]\n}", "x").unwrap_err();
        assert_eq!((err.line(), err.column()), (2, 13), "{err}");
    }

    /// Each tool's fields as (exposed name, title, description, effect).
    fn heads(c: &Catalog) -> Vec<(String, Option<String>, String, &'static str)> {
        c.tools()
            .map(|t| {
                let title = t.title().map(str::to_owned);
                let effect = t.annotations().effect();
                (
                    t.name().to_owned(),
                    title,
                    t.description().to_owned(),
                    effect,
                )
            })
            .collect()
    }

    #[test]
    fn text_a_strict_reader_refuses_costs_no_tool_and_no_view() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let list = format!(
            r#"{{"tools":[{{"name":"a","description":"cut \ud83d here","inputSchema":{{"type":"object","properties":{{"n":{{"type":"number","maximum":1e400}}}}}}}},
            {{"name":"b","inputSchema":{{"type":"object","default":{deep}}}}},{{"name":"c"}}]}}"#
        );
        let mut c = Catalog::new();
        c.add_server("s", &list).unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!(c.get("a").unwrap().description(), "cut \u{fffd} here");
        assert!(c.get("a").unwrap().raw_json().contains(r"cut \ud83d here"));
        assert_eq!(c.get("a").unwrap().signature().unwrap(), "n?:number");
        let full = c.full().unwrap();
        assert!(full.contains(" b,\"\",?"), "{full}");
    }

    /// The conformance suite's `http-invalid-tool-headers` list, cut: the tool with a valid
    /// `x-mcp-header` is kept, the invalid ones are left out (`// 2026-07-28 server/tools`:
    /// a client MUST exclude them), each with a warning; a schema merely mentioning the word
    /// in a description stays.
    #[test]
    fn a_tool_with_invalid_header_annotations_is_left_out() {
        let list = r#"{"tools": [
            {"name": "valid_tool", "inputSchema": {"type": "object",
                "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}},
            {"name": "invalid_number_header", "inputSchema": {"type": "object",
                "properties": {"score": {"type": "number", "x-mcp-header": "Score"}}}},
            {"name": "invalid_duplicate_diff_case", "inputSchema": {"type": "object",
                "properties": {"a": {"type": "string", "x-mcp-header": "MyField"},
                               "b": {"type": "string", "x-mcp-header": "myfield"}}}},
            {"name": "mentions", "description": "no x-mcp-header here",
                "inputSchema": {"type": "object"}}
        ]}"#;
        let mut c = Catalog::new();
        c.add_server("s", list).unwrap();
        let kept = heads(&c);
        let mut names: Vec<&str> = kept.iter().map(|h| h.0.as_str()).collect();
        names.sort_unstable();
        assert_eq!(names, ["mentions", "valid_tool"]);
        assert_eq!(
            c.server("s").unwrap().warnings(),
            [
                r#"skipped tool "invalid_number_header": x-mcp-header "Score" at /score is on a property of type number, not string, integer or boolean"#,
                r#"skipped tool "invalid_duplicate_diff_case": x-mcp-header "myfield" at /b repeats "MyField" (header names are compared without case)"#,
            ]
        );
    }

    #[test]
    fn a_mistyped_field_costs_that_field_not_the_servers_tools() {
        let list = r#"{"tools": [
            {"name": "a", "annotations": {"readOnlyHint": "true", "destructiveHint": false}},
            {"name": "b", "title": 123, "description": ["one", "two"]},
            {"name": "c", "annotations": [true], "description": "Fine."},
            {"name": "d", "annotations": {"title": 5, "readOnlyHint": true}},
            {"name": 7}, {"description": "no name"}, {"name": ""}, "tool", ["h"],
            {"name": "f", "name": "g"},
            {"name": "a", "description": "again"},
            {"name": "e", "title": null, "annotations": null}
        ]}"#;
        let mut c = Catalog::new();
        c.add_server("s", list).unwrap();
        assert_eq!(
            heads(&c),
            [
                ("a".into(), None, String::new(), "additive"),
                ("b".into(), None, String::new(), "destructive"),
                ("c".into(), None, "Fine.".into(), "destructive"),
                ("d".into(), None, String::new(), "read-only"),
                ("e".into(), None, String::new(), "destructive"),
            ]
        );
        assert_eq!(
            c.server("s").unwrap().warnings(),
            [
                r#"tool "a": "readOnlyHint" is "true", not a boolean; ignored"#,
                r#"tool "b": "title" is 123, not a string; ignored"#,
                r#"tool "b": "description" is ["one", "two"], not a string; ignored"#,
                r#"tool "c": "annotations" is [true], not an object; ignored"#,
                r#"tool "d": "annotations.title" is 5, not a string; ignored"#,
                r#"skipped a tool without a usable name (a non-empty string; found 7): {"name": 7}"#,
                r#"skipped a tool without a usable name (a non-empty string; found none): {"description": "no name"}"#,
                r#"skipped a tool without a usable name (a non-empty string; found ""): {"name": ""}"#,
                r#"skipped a tool: not an object: "tool""#,
                r#"skipped a tool: not an object: ["h"]"#,
                r#"skipped a tool: duplicate field `name` at line 1 column 20: {"name": "f", "name": "g"}"#,
                r#"tool "a" is listed twice; kept the first"#,
            ]
        );
        // The first of a name listed twice is the one kept.
        assert_eq!(
            c.get("a").unwrap().annotations().destructive_hint,
            Some(false)
        );
    }

    #[test]
    fn exposed_names_are_unique_whatever_the_servers_call_their_tools() {
        let lists = [
            ("a", r#"[{"name": "x"}, {"name": "y"}]"#),
            ("b", r#"[{"name": "x"}]"#),
            ("c", r#"[{"name": "a__x"}, {"name": "b__x_2"}]"#),
            ("d", r#"[{"name": "b__x"}, {"name": "y"}]"#),
        ];
        let mut c = Catalog::new();
        for (server, list) in lists {
            c.add_tools(server, list).unwrap();
        }
        let mut exposed: Vec<(String, String, String)> = c
            .tools()
            .map(|t| (t.name().into(), t.server().into(), t.original_name().into()))
            .collect();
        exposed.sort();
        let own = |e: &str, s: &str, o: &str| (e.to_owned(), s.to_owned(), o.to_owned());
        assert_eq!(
            exposed,
            [
                // c's own name stays c's; a's `x` is still reachable, under a free name.
                own("a__x", "c", "a__x"),
                own("a__x_2", "a", "x"),
                own("a__y", "a", "y"),
                own("b__x", "d", "b__x"),
                own("b__x_2", "c", "b__x_2"),
                own("b__x_3", "b", "x"),
                own("d__y", "d", "y"),
            ]
        );
        assert_eq!(c.len(), 7, "one index entry per tool");
        for (name, server, original) in &exposed {
            let tool = c.get(name).unwrap();
            assert_eq!(
                (tool.server(), tool.original_name()),
                (&**server, &**original)
            );
        }

        // The same tools, added in any order (servers answer in any order): the same names.
        for order in [[3, 2, 1, 0], [1, 3, 0, 2], [2, 0, 3, 1]] {
            let mut other = Catalog::new();
            for i in order {
                let (server, list) = lists[i];
                other.add_tools(server, list).unwrap();
            }
            let mut names: Vec<(String, String, String)> = other
                .tools()
                .map(|t| (t.name().into(), t.server().into(), t.original_name().into()))
                .collect();
            names.sort();
            assert_eq!(names, exposed, "order {order:?}");
        }
    }

    #[test]
    fn pages_are_joined_and_the_cursor_returned() {
        let mut c = Catalog::new();
        let cursor = c
            .add_server_pages(
                "s",
                &[
                    r#"{"tools":[{"name":"a"}],"nextCursor":"p2"}"#,
                    r#"{"tools":[{"name":"b"}]}"#,
                ],
            )
            .unwrap();
        assert_eq!(cursor, None);
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn summaries_are_first_sentences_on_one_line() {
        assert_eq!(summary("Read a file.\nMore text."), "Read a file");
        assert_eq!(summary("Use e.g. this one. Then"), "Use e.g. this one");
        assert_eq!(summary("  spaced\n\n out  "), "spaced out");
        let long = "word ".repeat(40);
        let s = summary(&long);
        assert!(
            s.ends_with('…') && s.chars().count() <= SUMMARY_CHARS + 1,
            "{s}"
        );
    }
}
