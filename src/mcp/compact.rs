//! Compact tool definitions (`toon mcp serve --mode compact`): every tool under its own name,
//! callable in one `tools/call`, its definition cut to what a model needs to call it right:
//! the first sentence of its description and its parameters as one signature after ` — ` (the
//! notation of [`schema`](super::schema): `Read a file — path mode?:fast|slow
//! opts:{recursive:bool}`), with a bare object schema. What the cut leaves out (the full descriptions, formats, bounds) is one
//! `get_tool_spec` call away, and a call whose arguments do not fit the server's own schema is
//! answered at once with every problem and the full definition ([`CompactTools::check`]).
//!
//! A tool whose schema the signature cannot say whole (a `$ref`, `oneOf`, `allOf`, a keyword
//! the notation does not know, a nested object deeper or wider than it shows, an enum of more
//! than [`MAX_WHOLE_ENUM`](super::schema::MAX_WHOLE_ENUM) values: shorter ones are listed
//! whole) keeps its whole schema ([`form_of`]).

use super::catalog::{Catalog, Tool};
use super::error::Result;
use super::meta::{Disposition, GET_TOOL_SPEC, MetaError, MetaTools};
use super::schema;
use super::validate::refusal;
use crate::{Map, Value, toon};

/// How a tool's definition is listed in compact mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Form {
    /// Its summary and signature, with a bare object schema.
    Signature,
    /// Its summary with its whole `inputSchema`: the signature would lose what this says.
    WholeSchema(String),
}

/// Schema keywords the signature renders or may leave to `get_tool_spec` without changing
/// what a call must look like (descriptions, formats, bounds: the server checks those).
const EXPRESSED: [&str; 25] = [
    "type",
    "properties",
    "required",
    "items",
    "enum",
    "const",
    "anyOf",
    "default",
    "description",
    "title",
    "examples",
    "$schema",
    "$comment",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "additionalProperties",
];

/// Whether `tool`'s parameters fit a signature line, and if not, why.
#[must_use]
pub fn form_of(tool: &Tool) -> Form {
    match tool.input_schema() {
        Ok(schema) => match unexpressed(schema, 0) {
            None => Form::Signature,
            Some(why) => Form::WholeSchema(why),
        },
        Err(e) => Form::WholeSchema(e.to_string()),
    }
}

/// What in `schema` (`depth` objects below the parameters) a signature would not say.
fn unexpressed(schema: &Value, depth: usize) -> Option<String> {
    let Some(map) = schema.as_object() else {
        return (!schema.is_boolean()).then(|| "a schema that is not an object".to_owned());
    };
    if let Some(key) = map.keys().find(|k| !EXPRESSED.contains(k)) {
        return Some(format!("its schema uses `{key}`"));
    }
    if let Some(values) = map.get("enum").and_then(Value::as_array)
        && values.len() > schema::MAX_WHOLE_ENUM
    {
        return Some(format!("an enum of {} values", values.len()));
    }
    if let Some(why) = unexpressed_union(map, depth) {
        return Some(why);
    }
    if let Some(extra) = map.get("additionalProperties")
        && !extra.is_boolean()
    {
        return Some("`additionalProperties` with a schema".to_owned());
    }
    let nested = map.get("properties").and_then(Value::as_object);
    if let Some(fields) = nested {
        // The parameters themselves are depth 0; objects inside them are summarised in braces.
        if depth > schema::NESTED_DEPTH || (depth > 0 && fields.len() > schema::MAX_NESTED_FIELDS) {
            return Some("a nested object deeper or wider than a signature shows".to_owned());
        }
        if let Some(why) = fields.values().find_map(|s| unexpressed(s, depth + 1)) {
            return Some(why);
        }
    }
    let members = map
        .get("anyOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    let items = map.get("items").into_iter();
    members.chain(items).find_map(|s| unexpressed(s, depth))
}

/// Keywords that say what shape a value has; the signature renders a schema by them.
const SHAPES: [&str; 6] = ["type", "properties", "items", "enum", "const", "anyOf"];

/// What an `anyOf` in `map` says that its signature (`a|b`, from its members alone) would not:
/// over the parameters themselves, beside a shape of its own, or a member that only
/// constrains (`{"required": ["a"]}`, which the notation would show as `any`).
fn unexpressed_union(map: &Map, depth: usize) -> Option<String> {
    let members = map.get("anyOf")?.as_array()?;
    if depth == 0 {
        return Some("`anyOf` over the parameters".to_owned());
    }
    if let Some(key) = SHAPES[..5].iter().find(|k| map.contains_key(**k)) {
        return Some(format!("`anyOf` beside `{key}`"));
    }
    let constrains = |m: &Value| {
        m.as_object().is_some_and(|m| {
            !m.is_empty()
                && !SHAPES.iter().any(|k| m.contains_key(*k))
                && m.contains_key("required")
        })
    };
    members
        .iter()
        .any(constrains)
        .then(|| "an `anyOf` member that only constrains".to_owned())
}

/// Compact mode's tool list over a catalog.
///
/// ```
/// use toon::mcp::{Catalog, CompactTools};
/// let mut catalog = Catalog::new();
/// catalog.add_server("fs", r#"{"tools": [{"name": "read_file",
///     "description": "Read a file. Returns its text, whole or in part.",
///     "inputSchema": {"type": "object", "properties": {
///         "path": {"type": "string", "description": "Where it is"},
///         "head": {"type": "integer", "description": "Only the first N lines"}},
///     "required": ["path"]}}]}"#)?;
/// let tools = CompactTools::new(&catalog).definitions()?;
/// assert_eq!(
///     toon::json::to_string(&tools[0])?,
///     r#"{"name":"read_file","description":"Read a file — path head?:int","inputSchema":{"type":"object"}}"#
/// );
/// assert_eq!(tools[1]["name"], "get_tool_spec");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct CompactTools<'c> {
    catalog: &'c Catalog,
    /// Which tools this client is shown (all, unless [`listing`](Self::listing) says).
    listed: &'c dyn Fn(&Tool) -> bool,
}

impl std::fmt::Debug for CompactTools<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompactTools")
            .field("catalog", &self.catalog)
            .finish_non_exhaustive()
    }
}

/// The name of compact mode's full-definition tool when a server's tool has taken
/// [`GET_TOOL_SPEC`](super::GET_TOOL_SPEC).
pub const TOON_GET_TOOL_SPEC: &str = "toon_get_tool_spec";

impl<'c> CompactTools<'c> {
    /// Compact definitions of `catalog`'s tools.
    #[must_use]
    pub fn new(catalog: &'c Catalog) -> Self {
        CompactTools {
            catalog,
            listed: &every_tool,
        }
    }

    /// Only the tools `listed` keeps are shown, and described by the full-definition tool
    /// (a client that cannot run a tool is not told of it).
    #[must_use]
    pub fn listing(self, listed: &'c dyn Fn(&Tool) -> bool) -> Self {
        CompactTools { listed, ..self }
    }

    /// Every listed tool's compact definition, in catalog order, then the full-definition
    /// tool's ([`spec_name`](Self::spec_name)).
    ///
    /// # Errors
    /// A definition the catalog cannot read.
    pub fn definitions(&self) -> Result<Vec<Value>> {
        let tools = self.catalog.tools().filter(|t| (self.listed)(t));
        let mut out: Vec<Value> = tools.map(definition).collect::<Result<_>>()?;
        if let Some(name) = self.spec_name() {
            out.push(spec_definition(name));
        }
        Ok(out)
    }

    /// The name the full-definition tool is listed by: `get_tool_spec`, or
    /// `toon_get_tool_spec` when a server has a tool of that name (then that one is listed and
    /// called); `None` when both are taken (the full definitions then come with the errors).
    #[must_use]
    pub fn spec_name(&self) -> Option<&'static str> {
        [GET_TOOL_SPEC, TOON_GET_TOOL_SPEC]
            .into_iter()
            .find(|name| self.catalog.get(name).is_none())
    }

    /// Whether a call of `name` is the proxy's to answer: the full-definition tool's.
    #[must_use]
    pub fn answers(&self, name: &str) -> bool {
        self.spec_name() == Some(name)
    }

    /// What the proxy answers itself to a call of `name` with `arguments`, as a result's text
    /// and whether it is an error: the full definition asked for ([`spec`](Self::spec)), or
    /// the [`check`](Self::check) of arguments that do not fit. `None`: the call goes to the
    /// tool's server.
    #[must_use]
    pub fn answer(&self, name: &str, arguments: &Value) -> Option<(String, bool)> {
        if self.answers(name) {
            return Some(self.spec(arguments));
        }
        self.check(name, arguments).map(|text| (text, true))
    }

    /// The full-definition tool's answer to `arguments` (`{"name": TOOL}`), and whether it
    /// is an error: a tool not [`listing`](Self::listing)'s is unknown.
    #[must_use]
    pub fn spec(&self, arguments: &Value) -> (String, bool) {
        let asked = arguments.get("name").and_then(Value::as_str);
        if let Some(hidden) = asked
            .and_then(|n| self.catalog.get(n))
            .filter(|t| !(self.listed)(t))
        {
            let unknown = super::Error::UnknownTool {
                name: hidden.name().to_owned(),
                suggestions: Vec::new(),
            };
            return (MetaError::from(unknown).to_string(), true);
        }
        match MetaTools::new(self.catalog).disposition(GET_TOOL_SPEC, arguments) {
            Disposition::Answer { text, is_error } => (text, is_error),
            // `get_tool_spec` is always answered.
            Disposition::Execute(_) | Disposition::NotMeta => (String::new(), true),
        }
    }

    /// The `tools/list` result: `{"tools":[...]}`.
    ///
    /// # Errors
    /// As [`definitions`](Self::definitions).
    pub fn list_json(&self) -> Result<String> {
        let mut root = Map::new();
        root.insert("tools".into(), Value::Array(self.definitions()?));
        // A `Value` of string keys always writes.
        Ok(crate::json::to_string(&Value::Object(root)).unwrap_or_default())
    }

    /// The error text for a call of `name` whose `arguments` do not fit its server's
    /// `inputSchema`: every problem, the signature, then the full definition (as
    /// `get_tool_spec` gives it), so that one retry can fix the call. `None` when they fit,
    /// or when `name` is no tool of the catalog (the call then fails as in passthrough).
    #[must_use]
    pub fn check(&self, name: &str, arguments: &Value) -> Option<String> {
        let tool = self.catalog.get(name)?;
        let schema = tool.input_schema().ok()?;
        let violations = refusal(schema, arguments)?;
        let error = MetaError::InvalidArguments {
            tool: tool.name().to_owned(),
            violations,
            params: Some(schema::whole_signature(schema)),
        };
        let spec = MetaTools::new(self.catalog).spec_of(tool).ok();
        let spec = spec.map(|s| format!("\nfull definition:\n{s}"));
        Some(format!("{error}{}", spec.unwrap_or_default()))
    }
}

/// The tool's summary, with a warning its description gives later kept first: a model must
/// not miss that a tool is deprecated.
fn summary_of(tool: &Tool) -> String {
    let summary = tool.summary();
    let warned = |text: &str| text.to_ascii_lowercase().contains("deprecated");
    if warned(tool.description()) && !warned(&summary) {
        return format!("Deprecated: {summary}");
    }
    summary
}

/// Keywords that only explain a schema; `get_tool_spec` gives them.
const EXPLAINING: [&str; 4] = ["description", "title", "examples", "$comment"];

/// `schema` without what only explains it, in every subschema: a whole schema is kept for
/// what it constrains, and what explains it is one call away as everywhere else.
fn unexplained(schema: &mut Value) {
    let Some(map) = schema.as_object_mut() else {
        return;
    };
    for key in EXPLAINING {
        map.remove(key);
    }
    for (key, child) in map.iter_mut() {
        match key {
            // Maps of names to schemas: a parameter may be named `description`.
            "properties" | "patternProperties" | "$defs" | "definitions" => {
                if let Some(children) = child.as_object_mut() {
                    children.iter_mut().for_each(|(_, s)| unexplained(s));
                }
            }
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                if let Some(members) = child.as_array_mut() {
                    members.iter_mut().for_each(unexplained);
                }
            }
            "items" | "additionalProperties" | "not" | "if" | "then" | "else" => unexplained(child),
            _ => {}
        }
    }
}

fn every_tool(_: &Tool) -> bool {
    true
}

/// One tool's compact definition: its exposed name, summary and signature (or whole schema,
/// [`form_of`]), and what a host acts on besides (`annotations`' hints, `execution`, `_meta`).
pub(crate) fn definition(tool: &Tool) -> Result<Value> {
    let full = tool.definition()?;
    let mut def = Map::new();
    def.insert("name".into(), Value::String(tool.name().into()));
    let summary = summary_of(tool);
    let schema = match form_of(tool) {
        Form::Signature => {
            let signature = schema::whole_signature(tool.input_schema()?);
            // ` — ` costs one token where `\nparams: ` cost three (215 on eleven servers);
            // the legend that says so is the full-definition tool's description.
            let text = match (summary.is_empty(), signature.is_empty()) {
                (_, true) => summary,
                (true, false) => format!("{PARAMS_AFTER}{signature}"),
                (false, false) => format!("{summary} {PARAMS_AFTER}{signature}"),
            };
            def.insert("description".into(), Value::String(text));
            toon!({"type": "object"})
        }
        Form::WholeSchema(_) => {
            def.insert("description".into(), Value::String(summary));
            let mut schema = tool.input_schema()?.clone();
            unexplained(&mut schema);
            schema
        }
    };
    def.insert("inputSchema".into(), schema);
    if let Some(hints) = full.get("annotations").and_then(hints) {
        def.insert("annotations".into(), hints);
    }
    if let Some(execution) = full.get("execution").and_then(execution) {
        def.insert("execution".into(), execution);
    }
    if let Some(meta) = full.get("_meta") {
        def.insert("_meta".into(), meta.clone());
    }
    Ok(Value::Object(def))
}

/// The behaviour hints of `annotations` that hosts act on, as the server gave them: hosts
/// read a missing hint differently, so one that is there is kept. `readOnlyHint: true`
/// (VS Code, Codex and Claude Code run such tools without asking; `false` is what every
/// host assumes); `openWorldHint`, either way (VS Code asks before a read-only tool that is
/// open-world, Codex before any that is not read-only unless it is neither open-world nor
/// destructive, and both take a missing one as `true`, Claude Code as `false`); and on a
/// tool that is not read-only, `destructiveHint`, either way (the spec gives it meaning only
/// there; Codex takes a missing one as `true`, Claude Code as `false`). Left out: `title`,
/// and `idempotentHint`, which no host acts on. `None` when nothing is left.
fn hints(annotations: &Value) -> Option<Value> {
    let map = annotations.as_object()?;
    let read_only = map.get("readOnlyHint").and_then(Value::as_bool) == Some(true);
    let kept: Map = (map.iter())
        .filter(|(k, v)| match (*k, v.as_bool()) {
            ("readOnlyHint", Some(b)) => b,
            ("openWorldHint", Some(_)) => true,
            ("destructiveHint", Some(_)) => !read_only,
            _ => false,
        })
        .map(|(k, v)| (k.to_owned(), v.clone()))
        .collect();
    (!kept.is_empty()).then_some(Value::Object(kept))
}

/// `execution` without `taskSupport: "forbidden"`, its default; `None` when nothing is left.
fn execution(value: &Value) -> Option<Value> {
    let map = value.as_object()?;
    let kept: Map = (map.iter())
        .filter(|(k, v)| !(*k == "taskSupport" && v.as_str() == Some("forbidden")))
        .map(|(k, v)| (k.to_owned(), v.clone()))
        .collect();
    (!kept.is_empty()).then_some(Value::Object(kept))
}

/// What a compact description puts before its signature (`Read a file — path head?:int`).
pub(crate) const PARAMS_AFTER: &str = "— ";

/// The full-definition tool, listed beside the tools as `name`: the legend of the
/// signatures once, here.
pub(crate) fn spec_definition(name: &str) -> Value {
    toon!({
        "name": name,
        "description": "A tool's full definition (descriptions, formats, bounds). Tool descriptions end in — and the parameters: name = required string; name:type; name? optional; =default.",
        "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog(tools: &str) -> Catalog {
        let mut catalog = Catalog::new();
        catalog
            .add_server("s", &format!(r#"{{"tools": {tools}}}"#))
            .unwrap();
        catalog
    }

    #[test]
    fn a_schema_the_signature_cannot_say_is_kept_whole() {
        let c = catalog(
            &r##"[
            {"name": "plain", "inputSchema": {"type": "object", "properties": {"a": {"type": "string", "format": "uri"}}}},
            {"name": "refs", "inputSchema": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"type": "string"}}}},
            {"name": "said", "inputSchema": {"type": "object", "description": "Says.", "properties": {"description": {"description": "What", "oneOf": [{"type": "string", "title": "S"}]}}}},
            {"name": "one", "inputSchema": {"type": "object", "properties": {"a": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}},
            {"name": "deep", "inputSchema": {"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "object", "properties": {"c": {"type": "object", "properties": {"d": {"type": "string"}}}}}}}}}},
            {"name": "enum", "inputSchema": {"type": "object", "properties": {"a": {"enum": [ENUM33]}}}},
            {"name": "root", "inputSchema": {"type": "object", "anyOf": [{"properties": {"a": {"type": "string"}}}]}},
            {"name": "beside", "inputSchema": {"type": "object", "properties": {"a": {"type": "object", "anyOf": [{"type": "object"}]}}}},
            {"name": "either", "inputSchema": {"type": "object", "properties": {"a": {"anyOf": [{"required": ["x"]}, {"type": "string"}]}}}},
            {"name": "union", "inputSchema": {"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}},
            {"name": "nine", "inputSchema": {"type": "object", "properties": {"a": {"enum": [1,2,3,4,5,6,7,8,9]}}}}
        ]"##
            .replace("ENUM33", &(1..=33).map(|i| i.to_string()).collect::<Vec<_>>().join(",")),
        );
        let cuts: Vec<Form> = c.tools().map(form_of).collect();
        assert_eq!(cuts[0], Form::Signature);
        assert!(
            matches!(&cuts[1], Form::WholeSchema(w) if w.contains("`$defs`")),
            "{cuts:?}"
        );
        assert!(matches!(&cuts[3], Form::WholeSchema(w) if w.contains("oneOf")));
        assert!(matches!(&cuts[4], Form::WholeSchema(w) if w.contains("deeper")));
        assert!(matches!(&cuts[5], Form::WholeSchema(w) if w.contains("33 values")));
        assert!(matches!(&cuts[6], Form::WholeSchema(w) if w.contains("over the parameters")));
        assert!(matches!(&cuts[7], Form::WholeSchema(w) if w.contains("beside `type`")));
        assert!(matches!(&cuts[8], Form::WholeSchema(w) if w.contains("only constrains")));
        assert_eq!(cuts[9], Form::Signature);
        let defs = CompactTools::new(&c).definitions().unwrap();
        // Nine values are listed whole, where views cut them at eight.
        assert_eq!(cuts[10], Form::Signature);
        assert_eq!(defs[10]["description"], "— a?:1|2|3|4|5|6|7|8|9");
        assert_eq!(defs[0]["inputSchema"], toon!({"type": "object"}));
        assert_eq!(
            defs[1]["inputSchema"],
            *c.get("refs").unwrap().input_schema().unwrap()
        );
        // What only explains a whole schema is left to get_tool_spec; a parameter keeps its name.
        assert_eq!(
            defs[2]["inputSchema"],
            toon!({"type": "object", "properties": {"description": {"oneOf": [{"type": "string"}]}}})
        );
    }

    #[test]
    fn the_full_definition_tool_makes_way_for_a_server_s_and_describes_listed_tools_only() {
        let c = catalog(
            r#"[{"name": "get_tool_spec", "inputSchema": {"type": "object"}},
                {"name": "secret", "inputSchema": {"type": "object"}}]"#,
        );
        let listed = |t: &Tool| t.name() != "secret";
        let compact = CompactTools::new(&c).listing(&listed);
        let defs = compact.definitions().unwrap();
        let names: Vec<&str> = defs.iter().filter_map(|d| d["name"].as_str()).collect();
        assert_eq!(names, ["get_tool_spec", TOON_GET_TOOL_SPEC]);
        assert!(!compact.answers(GET_TOOL_SPEC));
        let (text, is_error) = compact
            .answer(TOON_GET_TOOL_SPEC, &toon!({"name": "get_tool_spec"}))
            .unwrap();
        assert!(!is_error && text.contains("get_tool_spec"), "{text}");
        let (text, is_error) = compact
            .answer(TOON_GET_TOOL_SPEC, &toon!({"name": "secret"}))
            .unwrap();
        assert!(is_error && text.contains("secret"), "{text}");
    }

    #[test]
    fn a_deprecation_said_after_the_first_sentence_comes_first() {
        let c = catalog(
            r#"[{"name": "old", "description": "Lists files. DEPRECATED: use list instead.", "inputSchema": {"type": "object"}},
                {"name": "said", "description": "Deprecated: lists files.", "inputSchema": {"type": "object"}}]"#,
        );
        let defs = CompactTools::new(&c).definitions().unwrap();
        assert_eq!(defs[0]["description"], "Deprecated: Lists files");
        assert_eq!(defs[1]["description"], "Deprecated: lists files");
    }

    #[test]
    fn the_hints_hosts_act_on_are_kept_as_the_server_gave_them() {
        let c = catalog(
            r#"[{"name": "read", "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}},
                {"name": "write", "annotations": {"readOnlyHint": false, "destructiveHint": false, "openWorldHint": false}},
                {"name": "wipe", "annotations": {"destructiveHint": true, "openWorldHint": true}},
                {"name": "said", "annotations": {"title": "Said", "idempotentHint": false}}]"#,
        );
        let defs = CompactTools::new(&c).definitions().unwrap();
        let hints: Vec<String> = (defs.iter().take(4))
            .map(|d| crate::json::to_string(&d["annotations"]).unwrap())
            .collect();
        assert_eq!(
            hints,
            [
                // Codex runs `write` without asking only while both are there.
                r#"{"readOnlyHint":true,"openWorldHint":false}"#,
                r#"{"destructiveHint":false,"openWorldHint":false}"#,
                r#"{"destructiveHint":true,"openWorldHint":true}"#,
                "null",
            ]
        );
    }

    #[test]
    fn hints_execution_and_meta_are_kept_titles_and_output_schemas_are_not() {
        let c = catalog(
            r#"[{"name": "t", "title": "T", "description": "Does t.", "annotations": {"title": "T", "readOnlyHint": true},
                "execution": {"taskSupport": "optional"}, "_meta": {"x": 1},
                "outputSchema": {"type": "object"}, "inputSchema": {"type": "object"}}]"#,
        );
        let defs = CompactTools::new(&c).definitions().unwrap();
        assert_eq!(
            crate::json::to_string(&defs[0]).unwrap(),
            r#"{"name":"t","description":"Does t","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true},"execution":{"taskSupport":"optional"},"_meta":{"x":1}}"#
        );
    }

    #[test]
    fn arguments_that_do_not_fit_are_answered_with_every_problem_and_the_full_definition() {
        let c = catalog(
            r#"[{"name": "read", "description": "Read a file. Long text.", "inputSchema": {"type": "object",
                "properties": {"path": {"type": "string", "description": "Where"}, "n": {"type": "integer"}},
                "required": ["path"], "additionalProperties": false}}]"#,
        );
        let compact = CompactTools::new(&c);
        assert_eq!(compact.check("read", &toon!({"path": "a", "n": 2})), None);
        assert_eq!(compact.check("nothing", &toon!({})), None);
        let text = compact
            .check("read", &toon!({"n": "2", "extra": 1}))
            .unwrap();
        assert!(text.starts_with("read: invalid arguments:\n- "), "{text}");
        for part in [
            "missing required field \"path\"",
            "n: ",
            "extra",
            "params: path n?:int",
            "full definition:",
            "Where",
        ] {
            assert!(text.contains(part), "{part} not in {text}");
        }
    }
}
