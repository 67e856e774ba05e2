//! The "lean MCP" meta-tools: a server or proxy lists three small tools — `discover_tools`,
//! `get_tool_spec`, `execute_tool` — instead of every tool of every server, and the model
//! looks up what it needs.

use serde_json::{Value as Json, json};

use super::catalog::{Catalog, Tool};
use super::content::Decision;
use super::error::{Error, Result};
use super::result::ResultEncoder;
use super::shaping::Shaping;
use super::validate::{Violation, refusal, validate_arguments};
use super::view::Grouping;
use crate::Value;
use crate::toon;

/// Finds tools by keywords or category.
pub const DISCOVER_TOOLS: &str = "discover_tools";
/// Shows one tool's full definition.
pub const GET_TOOL_SPEC: &str = "get_tool_spec";
/// Runs a tool with validated arguments.
pub const EXECUTE_TOOL: &str = "execute_tool";

/// Results of `discover_tools` without a `limit`.
const DEFAULT_LIMIT: usize = 10;
/// The most `discover_tools` returns.
const MAX_LIMIT: usize = 50;
/// Tools on a page of the browse listing (`discover_tools` with query `*`) without a
/// `limit`: about 2,000 o200k tokens of compact rows (name, one-line description), so that a
/// large catalog does not fill the context in one answer.
const BROWSE_PAGE: usize = 100;
/// The most tools on one page of the browse listing.
const MAX_BROWSE_PAGE: usize = 200;

/// `n` as a count between 1 and `max`.
fn clamp(n: u64, max: usize) -> usize {
    usize::try_from(n).unwrap_or(max).clamp(1, max)
}

/// The three meta-tools over a catalog.
///
/// ```
/// use toon::mcp::{Catalog, MetaCall, MetaTools};
/// use serde_json::json;
/// let mut catalog = Catalog::new();
/// catalog.add_server("fs", r#"{"tools": [{"name": "read_file", "description": "Read a file",
///     "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}},
///     "required": ["path"]}}]}"#)?;
/// let meta = MetaTools::new(&catalog);
/// assert_eq!(meta.definitions()?.len(), 3);
/// match meta.call("execute_tool", &json!({"name": "read_file", "arguments": {}})) {
///     MetaCall::Answer(result) => {
///         assert_eq!(result["isError"], true);
///         assert!(result["content"][0]["text"].as_str().unwrap().contains("missing required field \"path\""));
///     }
///     _ => unreachable!(),
/// }
/// match meta.call("execute_tool", &json!({"name": "read_file", "arguments": {"path": "a"}})) {
///     MetaCall::Execute(plan) => assert_eq!((plan.server.as_str(), plan.tool.as_str()), ("fs", "read_file")),
///     _ => unreachable!(),
/// }
/// # Ok::<(), toon::mcp::Error>(())
/// ```
#[derive(Debug)]
pub struct MetaTools<'c> {
    catalog: &'c Catalog,
    grouping: Grouping,
}

/// What a meta-tool call comes to.
#[derive(Debug)]
pub enum MetaCall {
    /// Answered from the catalog: a `CallToolResult` to return as is (errors have
    /// `isError: true` and say what to fix).
    Answer(Json),
    /// `execute_tool` with valid arguments: call [`Plan::tool`] on [`Plan::server`], then
    /// pass its result through [`Plan::finish`].
    Execute(Box<Plan>),
    /// Not one of the three meta-tools.
    NotMeta,
}

/// A validated `execute_tool` call, to be sent to its server.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The server that has the tool.
    pub server: String,
    /// The tool's name on that server.
    pub tool: String,
    /// The name the model used (`SERVER__NAME` for shared names).
    pub exposed: String,
    /// The arguments, as the model sent them.
    pub arguments: Json,
    /// The shaping the model asked for (`fields`, `max_tokens`, `limit`, `cursor`).
    pub shaping: Shaping,
    /// Whether the tool's results are converted, by its definition ([`Decision::of`]);
    /// [`finish`](Self::finish) adds the encoder's policy.
    pub content: Decision,
}

impl Plan {
    /// Shapes and encodes the server's result for the model. A shaping that does not fit the
    /// result (an unknown field) becomes an error result naming what is there. A tool whose
    /// results are document content ([`content`](Self::content) with the encoder's policy)
    /// gets its result verbatim, unless the model asked for a shaping, which is then applied.
    #[must_use]
    pub fn finish(&self, encoder: &ResultEncoder, result: Json) -> Json {
        let text = self.finish_text(encoder, &result.to_string());
        crate::json::from_str(&text).unwrap_or(result)
    }

    /// As [`finish`](Self::finish) on the result's JSON text as the server sent it, through
    /// [`ResultEncoder::convert`]: every byte the encoder does not change stays as sent.
    ///
    /// ```
    /// use toon::mcp::{Decision, Plan, Policy, ResultEncoder, Shaping};
    /// let mut shaping = Shaping::default();
    /// shaping.fields = vec!["nope".into()];
    /// let plan = Plan {
    ///     server: "s".into(),
    ///     tool: "t".into(),
    ///     exposed: "t".into(),
    ///     arguments: serde_json::json!({}),
    ///     shaping,
    ///     content: Decision::Convert("data".into()),
    /// };
    /// let encoder = ResultEncoder::new(Policy::default());
    /// let rows: Vec<_> = (0..20).map(|i| serde_json::json!({"id": i})).collect();
    /// let text = serde_json::to_string(&serde_json::json!({"rows": rows})).unwrap();
    /// let sent = format!(r#"{{"content": [{{"type": "text", "text": {text:?}}}], "n": 1E2}}"#);
    /// // A field the result does not have: an error result that names what is there.
    /// let out = plan.finish_text(&encoder, &sent);
    /// assert!(out.contains(r#""isError":true"#) && out.contains("rows"));
    /// let plan = Plan { shaping: Shaping::default(), ..plan };
    /// assert!(plan.finish_text(&encoder, &sent).contains(r#""n": 1E2"#));
    /// # Ok::<(), toon::mcp::Error>(())
    /// ```
    #[must_use]
    pub fn finish_text(&self, encoder: &ResultEncoder, result: &str) -> String {
        let content = self
            .content
            .clone()
            .with_policy(encoder.policy(), &self.exposed);
        encoder
            .convert(&self.exposed, &content, result, &self.shaping)
            .unwrap_or_else(|e| result_text(&e.to_string(), true))
    }
}

/// A `CallToolResult` with one text block.
#[must_use]
pub fn text_result(text: &str) -> Json {
    json!({"content": [{"type": "text", "text": text}]})
}

/// A `CallToolResult` with `isError: true` and one text block.
#[must_use]
pub fn error_result(text: &str) -> Json {
    json!({"content": [{"type": "text", "text": text}], "isError": true})
}

/// [`text_result`] or [`error_result`] as JSON text, its keys in that order whatever
/// serde_json's map keeps: what the proxy sends.
pub(crate) fn result_text(text: &str, is_error: bool) -> String {
    let text = super::raw::quote(text);
    let error = if is_error { r#","isError":true"# } else { "" };
    format!(r#"{{"content":[{{"type":"text","text":{text}}}]{error}}}"#)
}

/// What a meta-tool call comes to, before it is a `CallToolResult` value ([`MetaCall`]) or
/// text ([`result_text`]).
pub(crate) enum Disposition {
    /// A text block, an error's (`isError: true`) or not.
    Answer { text: String, is_error: bool },
    /// See [`MetaCall::Execute`].
    Execute(Box<Plan>),
    /// See [`MetaCall::NotMeta`].
    NotMeta,
}

/// Why a meta-tool call is answered with an error result (`isError: true`) instead of what it
/// asks for: the result's text is the message, written for the model to fix its call.
#[derive(Debug, thiserror::Error)]
pub(crate) enum MetaError {
    /// The call's `arguments` are not JSON (the proxy reads them before the meta-tool does).
    #[cfg_attr(
        not(any(feature = "mcp-stdio", feature = "mcp-http")),
        allow(
            dead_code,
            reason = "made by the proxy's front, which this build leaves out"
        )
    )]
    #[error("{tool}: its arguments could not be read: {source}")]
    UnreadableArguments {
        /// The meta-tool called.
        tool: String,
        /// serde_json's error.
        #[source]
        source: serde_json::Error,
    },
    /// Arguments that do not fit a schema: `TOOL: invalid arguments:` and one line per
    /// violation, then, for the tool `execute_tool` runs, its parameters (`params: …`).
    #[error("{tool}: invalid arguments:{}{}", violation_lines(.violations), params_line(.params))]
    InvalidArguments {
        /// The meta-tool, or the tool `execute_tool` was to run.
        tool: String,
        /// What does not fit, in the order the arguments came.
        violations: Vec<Violation>,
        /// The tool's parameter signature, for the tool `execute_tool` was to run.
        params: Option<String>,
    },
    /// A `cursor` given with a search query: only the browse listing pages.
    #[error(
        "cursor pages the listing of every tool (query \"*\"), not a search; call \
         {DISCOVER_TOOLS} without it"
    )]
    SearchCursor,
    /// A browse listing's `cursor` that is not a number.
    #[error("{}; a cursor is the one a page's last line gives", Error::InvalidCursor(.0.clone()))]
    BrowseCursor(String),
    /// The catalog failed: an unknown tool or category, a view that cannot be rendered.
    #[error(transparent)]
    Catalog(#[from] Error),
    /// The codec failed rendering an answer.
    #[error(transparent)]
    Codec(#[from] crate::Error),
}

/// `\n- violation` for each.
fn violation_lines(violations: &[Violation]) -> String {
    violations.iter().map(|v| format!("\n- {v}")).collect()
}

/// `\nparams: SIGNATURE`, or nothing.
fn params_line(params: &Option<String>) -> String {
    params
        .as_ref()
        .map(|p| format!("\nparams: {p}"))
        .unwrap_or_default()
}

/// [`MetaError::InvalidArguments`] (without `params`) when `args` do not fit `schema`.
fn check_arguments(tool: &str, schema: &Value, args: &Value) -> std::result::Result<(), MetaError> {
    let violations = validate_arguments(schema, args);
    if violations.is_empty() {
        return Ok(());
    }
    Err(MetaError::InvalidArguments {
        tool: tool.to_owned(),
        violations,
        params: None,
    })
}

// The advertised schemas are the validated ones, kept to what a model needs: every token here
// is paid in every prompt (lean mode's whole tools/list must stay under 3% of the servers').
// `toon::Value`s, so that they are listed in this order whatever serde_json's map keeps.
fn discover_schema() -> Value {
    toon!({"type": "object", "properties": {
        "query": {"type": "string"},
        "category": {"type": "string"},
        "limit": {"type": "integer", "minimum": 1},
        "cursor": {"type": "string"}
    }})
}

fn spec_schema() -> Value {
    toon!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})
}

fn execute_schema() -> Value {
    toon!({"type": "object", "properties": {
        "name": {"type": "string"},
        "arguments": {"type": "object"},
        "fields": {"type": "array", "items": {"type": "string"}},
        "max_tokens": {"type": "integer", "minimum": 1},
        "limit": {"type": "integer", "minimum": 1},
        "cursor": {"type": "string"}
    }, "required": ["name"]})
}

impl<'c> MetaTools<'c> {
    /// The meta-tools over `catalog`, with categories by server.
    #[must_use]
    pub fn new(catalog: &'c Catalog) -> Self {
        MetaTools {
            catalog,
            grouping: Grouping::Server,
        }
    }

    /// Uses `grouping` for categories (in `discover_tools` and its description).
    #[must_use]
    pub fn grouping(mut self, grouping: Grouping) -> Self {
        self.grouping = grouping;
        self
    }

    /// The three tool definitions (`tools/list` entries). `discover_tools`'s description
    /// carries the categories view, so a model knows what exists before it asks.
    ///
    /// # Errors
    /// When the categories view cannot be rendered.
    pub fn definitions(&self) -> Result<Vec<Json>> {
        self.definition_values()?
            .iter()
            .map(|d| serde_json::to_value(d).map_err(Error::Write))
            .collect()
    }

    /// [`definitions`](Self::definitions) as `toon::Value`s, whose keys keep their order:
    /// what the proxy lists.
    pub(crate) fn definition_values(&self) -> Result<Vec<Value>> {
        let categories = self.catalog.category_list(self.grouping);
        Ok(vec![
            toon!({
                "name": DISCOVER_TOOLS,
                "description": format!(
                    "Find tools by query (keywords) or category; query * lists them all; no \
                     arguments: each category's tools. Categories (tool count): {categories}"
                ),
                "inputSchema": discover_schema(),
                "annotations": {"readOnlyHint": true}
            }),
            toon!({
                "name": GET_TOOL_SPEC,
                "description": "A tool's parameters in full.",
                "inputSchema": spec_schema(),
                "annotations": {"readOnlyHint": true}
            }),
            toon!({
                "name": EXECUTE_TOOL,
                "description": "Run a tool; arguments fit its spec. Optional: fields (paths to keep), \
                    max_tokens, limit and cursor (page the largest list).",
                "inputSchema": execute_schema()
            }),
        ])
    }

    /// Handles a call to one of the meta-tools (`arguments` is the call's `arguments`).
    ///
    /// The answers of `discover_tools` are the catalog's tables, which decode with
    /// [`table_decode_options`](super::table_decode_options): without arguments
    /// [`Catalog::categories`]; with a `category` only, [`Catalog::full_in`]; with
    /// keywords, a `tools` table of the matches with the `full` view's columns (name, first
    /// sentence, parameter signature), or a sentence when nothing matches; with query `*`
    /// or an empty one, every tool (of the `category`, if given) to browse: the `full` view
    /// without its parameters, 100 tools a page (`limit` sets another size, up to 200),
    /// where a last comment line names the `cursor` of the next page. `get_tool_spec`
    /// answers with the definition (under the name to call it by) as TOON at the default
    /// indentation or as compact JSON, whichever costs fewer tokens
    /// ([`table::auto`](crate::table::auto)).
    ///
    /// ```
    /// use toon::mcp::{Catalog, MetaCall, MetaTools};
    /// use serde_json::json;
    /// let mut catalog = Catalog::new();
    /// catalog.add_server("fs", r#"{"tools": [
    ///     {"name": "read_file", "description": "Read a file. Text only.",
    ///      "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}},
    ///     {"name": "list_dir", "description": "List a directory"}]}"#)?;
    /// let meta = MetaTools::new(&catalog);
    /// let text = |args| match meta.call("discover_tools", &args) {
    ///     MetaCall::Answer(r) => r["content"][0]["text"].as_str().unwrap().to_owned(),
    ///     _ => unreachable!(),
    /// };
    /// assert_eq!(
    ///     text(json!({"query": "read a file", "limit": 1})),
    ///     "# params: name = required string; name:type; name? optional; =default\n\
    ///      tools[1]{name,description,params}:\n read_file,Read a file,path?"
    /// );
    /// assert_eq!(
    ///     text(json!({"query": "*", "limit": 1})),
    ///     "fs[1]{name,description}:\n read_file,Read a file\n# tools 1-1 of 2; \
    ///      next page: the same call with cursor \"1\""
    /// );
    /// assert_eq!(
    ///     text(json!({"query": "*", "limit": 1, "cursor": "1"})),
    ///     "fs[1]{name,description}:\n list_dir,List a directory\n# tools 2-2 of 2"
    /// );
    /// # Ok::<(), toon::mcp::Error>(())
    /// ```
    #[must_use]
    pub fn call(&self, name: &str, arguments: &Json) -> MetaCall {
        match self.disposition(name, &Value::from(arguments.clone())) {
            Disposition::Answer {
                text,
                is_error: false,
            } => MetaCall::Answer(text_result(&text)),
            Disposition::Answer {
                text,
                is_error: true,
            } => MetaCall::Answer(error_result(&text)),
            Disposition::Execute(plan) => MetaCall::Execute(plan),
            Disposition::NotMeta => MetaCall::NotMeta,
        }
    }

    /// [`call`](Self::call) with the arguments as a `toon::Value` (in the order they were
    /// sent), its answer as text to write ([`result_text`]).
    pub(crate) fn disposition(&self, name: &str, args: &Value) -> Disposition {
        let answer = |text: String| Disposition::Answer {
            text,
            is_error: false,
        };
        let disposition = match name {
            DISCOVER_TOOLS => self.discover(args).map(answer),
            GET_TOOL_SPEC => self.spec(args).map(answer),
            EXECUTE_TOOL => self.execute(args),
            _ => return Disposition::NotMeta,
        };
        disposition.unwrap_or_else(|e| Disposition::Answer {
            text: e.to_string(),
            is_error: true,
        })
    }

    fn own_args(tool: &str, args: &Value, schema: Value) -> std::result::Result<(), MetaError> {
        check_arguments(tool, &schema, args)
    }

    fn discover(&self, args: &Value) -> std::result::Result<String, MetaError> {
        Self::own_args(DISCOVER_TOOLS, args, discover_schema())?;
        let limit = args.get("limit").and_then(Value::as_u64);
        let category = args.get("category").and_then(Value::as_str);
        let cursor = args.get("cursor").and_then(Value::as_str);
        let query = args.get("query").and_then(Value::as_str).map(str::trim);
        // An empty query, `*`, or a cursor such a listing gave: every tool, to browse.
        let browse = query.map_or(cursor.is_some(), |q| q.is_empty() || q == "*");
        if browse {
            return self.browse(category, cursor, limit);
        }
        match (query, category) {
            (None, None) => Ok(self.catalog.categories(self.grouping)?),
            (None, Some(c)) => Ok(self.catalog.full_in(c, self.grouping)?),
            (Some(_), _) if cursor.is_some() => Err(MetaError::SearchCursor),
            (Some(q), category) => {
                let limit = limit.map_or(DEFAULT_LIMIT, |n| clamp(n, MAX_LIMIT));
                self.search(q, category, limit)
            }
        }
    }

    /// The browse listing ([`Catalog::browse`]) of `category` (every tool without one), the
    /// page from `cursor` on, `limit` tools long.
    fn browse(
        &self,
        category: Option<&str>,
        cursor: Option<&str>,
        limit: Option<u64>,
    ) -> std::result::Result<String, MetaError> {
        let from = match cursor {
            Some(c) => c
                .parse::<usize>()
                .map_err(|_| MetaError::BrowseCursor(c.to_owned()))?,
            None => 0,
        };
        let size = limit.map_or(BROWSE_PAGE, |n| clamp(n, MAX_BROWSE_PAGE));
        Ok(self
            .catalog
            .browse(category.map(|c| (c, self.grouping)), from, size)?)
    }

    /// The `tools` table of the tools that match `query` best (in `category` only, when
    /// given), at most `limit`, with the `full` view's columns.
    fn search(
        &self,
        query: &str,
        category: Option<&str>,
        limit: usize,
    ) -> std::result::Result<String, MetaError> {
        let members = category.map(|c| self.catalog.members(c, self.grouping).unwrap_or_default());
        let hits: Vec<&Tool> = self
            .catalog
            .search(query, usize::MAX)
            .into_iter()
            .map(|h| h.tool)
            .filter(|t| {
                members
                    .as_ref()
                    .is_none_or(|m| m.iter().any(|m| std::ptr::eq(*m, *t)))
            })
            .take(limit)
            .collect();
        if hits.is_empty() {
            return Ok(format!(
                "no tool matches {}; call {DISCOVER_TOOLS} without arguments for the categories, \
                 or with query \"*\" for every tool",
                super::error::Quoted(query)
            ));
        }
        let rows = hits
            .into_iter()
            .map(super::view::tool_row)
            .collect::<Result<Vec<Value>>>()?;
        let mut root = crate::Map::new();
        root.insert("tools".into(), Value::Array(rows));
        let table = super::view::table(&Value::Object(root), crate::Delimiter::Comma)?;
        Ok(format!("{}\n{table}", super::schema::LEGEND))
    }

    fn find(&self, args: &Value) -> Result<&'c Tool> {
        let name = args.get("name").and_then(Value::as_str).unwrap_or_default();
        self.catalog.lookup(name)
    }

    fn spec(&self, args: &Value) -> std::result::Result<String, MetaError> {
        Self::own_args(GET_TOOL_SPEC, args, spec_schema())?;
        self.spec_of(self.find(args)?)
    }

    /// `get_tool_spec`'s answer for `tool`: its whole definition under its exposed name.
    pub(crate) fn spec_of(&self, tool: &Tool) -> std::result::Result<String, MetaError> {
        let mut definition = tool.definition()?.clone();
        // The name to call it by is the exposed one (`SERVER__NAME` where servers share it).
        if let Some(object) = definition.as_object_mut() {
            object.insert("name".into(), Value::String(tool.name().into()));
        }
        // The cheaper of TOON and compact JSON: schemas are deep, often JSON wins.
        Ok(crate::table::auto(&definition).map(|a| a.text)?)
    }

    fn execute(&self, args: &Value) -> std::result::Result<Disposition, MetaError> {
        Self::own_args(EXECUTE_TOOL, args, execute_schema())?;
        let tool = self.find(args)?;
        let arguments = args.get("arguments").cloned().unwrap_or_else(|| toon!({}));
        let schema = tool.input_schema()?;
        if let Some(violations) = refusal(schema, &arguments) {
            return Err(MetaError::InvalidArguments {
                tool: tool.name().to_owned(),
                violations,
                params: Some(tool.signature().unwrap_or_default()),
            });
        }
        let shaping = Shaping {
            fields: args
                .get("fields")
                .and_then(Value::as_array)
                .map(|f| {
                    f.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
            max_tokens: args
                .get("max_tokens")
                .and_then(Value::as_u64)
                .map(|n| n as usize),
            limit: args
                .get("limit")
                .and_then(Value::as_u64)
                .map(|n| n as usize),
            cursor: args
                .get("cursor")
                .and_then(Value::as_str)
                .map(str::to_owned),
            kept_as: None,
        };
        Ok(Disposition::Execute(Box::new(Plan {
            server: tool.server().to_owned(),
            tool: tool.original_name().to_owned(),
            exposed: tool.name().to_owned(),
            arguments: serde_json::to_value(&arguments).unwrap_or_default(),
            shaping,
            content: Decision::of(tool),
        })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::Grouping;

    fn fixture(path: &str) -> String {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        std::fs::read_to_string(dir.join(path)).unwrap()
    }

    /// The seven real servers of `tests/fixtures/mcp/lists`, each under its file's name.
    fn seven_servers() -> Catalog {
        let mut catalog = Catalog::new();
        for (name, text) in crate::mcp::content::tests::LISTS {
            catalog.add_server(name, text).unwrap();
        }
        catalog
    }

    /// Lean mode's `tools/list` as the proxy writes it (`proxy::front::listing`).
    #[cfg(feature = "tiktoken")]
    fn lean_listing(catalog: &Catalog) -> String {
        let definitions = MetaTools::new(catalog).definition_values().unwrap();
        let mut result = crate::Map::new();
        result.insert("tools".to_owned(), Value::Array(definitions));
        serde_json::to_string(&result).unwrap()
    }

    /// The text of a `discover_tools` answer, and whether it is an error.
    fn discover(meta: &MetaTools<'_>, args: Json) -> (String, bool) {
        match meta.call(DISCOVER_TOOLS, &args) {
            MetaCall::Answer(r) => (
                r["content"][0]["text"].as_str().unwrap().to_owned(),
                r["isError"] == true,
            ),
            other => panic!("{other:?}"),
        }
    }

    fn listing(meta: &MetaTools<'_>, args: Json) -> String {
        let (text, is_error) = discover(meta, args.clone());
        assert!(!is_error, "{args}: {text}");
        text
    }

    /// A browse page's rows as `(server, row)`, in order.
    fn rows(page: &str) -> Vec<(String, Value)> {
        let value: Value = crate::from_str_with(page, &super::super::table_decode_options())
            .unwrap_or_else(|e| panic!("{e}:\n{page}"));
        let mut rows = Vec::new();
        for (server, entry) in value.as_object().unwrap() {
            for row in entry.as_array().into_iter().flatten() {
                rows.push((server.to_string(), row.clone()));
            }
        }
        rows
    }

    /// What the browse listing says of a tool: its name and one-line description.
    fn brief(tool: &Tool) -> (String, Value) {
        let mut row = crate::Map::new();
        row.insert("name".into(), Value::from(tool.name()));
        row.insert("description".into(), Value::from(tool.summary()));
        (tool.server().to_owned(), Value::Object(row))
    }

    #[test]
    fn an_empty_query_or_star_lists_every_tool_by_server() {
        let mut catalog = seven_servers();
        catalog.add_unavailable("down", "start-up timed out after 30s");
        let meta = MetaTools::new(&catalog);
        let all = listing(&meta, json!({"query": "*"}));
        for query in ["", "  ", " * "] {
            assert_eq!(listing(&meta, json!({"query": query})), all, "{query:?}");
        }
        let value: Value =
            crate::from_str_with(&all, &super::super::table_decode_options()).unwrap();
        let servers: Vec<&str> = value.as_object().unwrap().keys().collect();
        assert_eq!(
            servers,
            [
                "everything",
                "fetch",
                "filesystem",
                "git",
                "memory",
                "seqthink",
                "time",
                "down"
            ]
        );
        assert_eq!(value["down"], "unavailable: start-up timed out after 30s");
        let expected: Vec<(String, Value)> = catalog.tools().map(brief).collect();
        assert_eq!(rows(&all), expected);
        // One page, so no paging line; and compact: no parameters, unlike the `full` view.
        assert!(!all.contains("\n#"), "{all}");
        assert!(
            all.starts_with("everything[13]{name,description}:\n"),
            "{all}"
        );
    }

    #[test]
    fn a_large_listing_comes_in_pages() {
        let text = fixture("retrieval/azure.catalog.json");
        let azure = Catalog::from_json(&text, "azure").unwrap();
        let meta = MetaTools::new(&azure);
        let first = listing(&meta, json!({"query": "*"}));
        assert!(
            first.ends_with("\n# tools 1-100 of 180; next page: the same call with cursor \"100\""),
            "{first}"
        );
        let second = listing(&meta, json!({"query": "*", "cursor": "100"}));
        assert!(second.ends_with("\n# tools 101-180 of 180"), "{second}");
        let both: Vec<_> = rows(&first).into_iter().chain(rows(&second)).collect();
        assert_eq!(both, azure.tools().map(brief).collect::<Vec<_>>());

        // Pages of `limit` tools, each from where the last one's cursor says, until none does.
        let catalog = seven_servers();
        let meta = MetaTools::new(&catalog);
        let (mut seen, mut cursor, mut pages) = (Vec::new(), None::<String>, 0);
        loop {
            let mut args = json!({"query": "*", "limit": 7});
            if let Some(c) = &cursor {
                args["cursor"] = json!(c);
            }
            let page = listing(&meta, args);
            let shown = rows(&page);
            assert!(shown.len() <= 7, "{page}");
            seen.extend(shown);
            pages += 1;
            cursor = page
                .rsplit_once("cursor \"")
                .map(|(_, c)| c.trim_end_matches('"').to_owned());
            if cursor.is_none() {
                break;
            }
        }
        assert_eq!(pages, catalog.len().div_ceil(7));
        assert_eq!(seen, catalog.tools().map(brief).collect::<Vec<_>>());
        // A cursor alone continues the listing too.
        assert_eq!(
            listing(&meta, json!({"cursor": "7", "limit": 7})),
            listing(&meta, json!({"query": "*", "cursor": "7", "limit": 7}))
        );
    }

    #[test]
    fn a_wrong_cursor_says_what_to_do() {
        let catalog = seven_servers();
        let meta = MetaTools::new(&catalog);
        for (args, says) in [
            (
                json!({"query": "*", "cursor": "52"}),
                "cursor \"52\" is past the last of the 52 tools listed; call again without cursor",
            ),
            (
                json!({"query": "*", "cursor": "x"}),
                "invalid cursor \"x\"; a cursor is the one",
            ),
            (
                json!({"query": "read file", "cursor": "5"}),
                "cursor pages the listing of every tool",
            ),
            (
                json!({"query": "*", "category": "nope"}),
                "no category \"nope\"",
            ),
        ] {
            let (text, is_error) = discover(&meta, args.clone());
            assert!(is_error && text.starts_with(says), "{args}: {text}");
        }
    }

    #[test]
    fn star_lists_one_category() {
        let mut catalog = seven_servers();
        catalog.add_unavailable("down", "start-up timed out after 30s");
        let meta = MetaTools::new(&catalog);
        let time = listing(&meta, json!({"query": "*", "category": "time"}));
        let expected: Vec<_> = catalog
            .server("time")
            .unwrap()
            .tools()
            .iter()
            .map(brief)
            .collect();
        assert_eq!(rows(&time), expected);
        assert!(!time.contains("git"), "{time}");

        // Under another grouping: the category's tools under their servers, and the servers
        // that could not be listed (their tools could be read-only).
        let meta = MetaTools::new(&catalog).grouping(Grouping::Effect);
        let read_only = listing(&meta, json!({"query": "*", "category": "read-only"}));
        let expected: Vec<_> = catalog
            .tools()
            .filter(|t| t.annotations().effect() == "read-only")
            .map(brief)
            .collect();
        assert!(expected.len() > 10 && expected.len() < catalog.len());
        assert_eq!(rows(&read_only), expected);
        assert!(read_only.contains("\ndown: \"unavailable: "), "{read_only}");
    }

    /// The search's answer is unchanged by browsing: a `tools` table of name, one-line
    /// description and parameters, best first, and a sentence that points to browsing when
    /// nothing matches.
    #[test]
    fn a_search_names_describes_and_signs_each_hit() {
        let catalog = seven_servers();
        let meta = MetaTools::new(&catalog);
        let found = listing(&meta, json!({"query": "commit changes", "limit": 2}));
        assert!(
            found.contains(
                "\ntools[2]{name,description,params}:\n \
                 git_commit,Records changes to the repository,repo_path message\n"
            ),
            "{found}"
        );
        let none = listing(&meta, json!({"query": "zzzqqq"}));
        assert_eq!(
            none,
            "no tool matches \"zzzqqq\"; call discover_tools without arguments for the \
             categories, or with query \"*\" for every tool"
        );
    }

    /// What lean mode's listing cost before the browse listing (o200k tokens): the three
    /// definitions with `discover_tools`' categories in its description. It may grow by a
    /// tenth at most: it is paid in every prompt.
    #[cfg(feature = "tiktoken")]
    const LEAN_LISTING_BEFORE: [(&str, usize); 3] =
        [("seven", 259), ("azure", 234), ("metatool", 234)];

    #[cfg(feature = "tiktoken")]
    #[test]
    fn the_lean_listing_costs_at_most_a_tenth_more() {
        for (name, before) in LEAN_LISTING_BEFORE {
            let catalog = match name {
                "seven" => seven_servers(),
                set => {
                    let text = fixture(&format!("retrieval/{set}.catalog.json"));
                    Catalog::from_json(&text, set).unwrap()
                }
            };
            let now = crate::tokens::cost(&lean_listing(&catalog));
            eprintln!("lean listing, {name}: {before} before, {now} now");
            assert!(now * 10 <= before * 11, "{name}: {now} > {before} × 1.1");
        }
    }
}
