//! JSON Schema as a model reads it: one-line parameter signatures (`path depth:int=3`)
//! and the walk over an `inputSchema`'s properties that signatures, search and argument
//! validation share.
//!
//! The notation (TypeScript's, made shorter), chosen by counting o200k tokens on seven real
//! servers' tool lists (see `examples/mcp_report.rs`):
//! - `name` alone is a required string; `name:type` another type; `name?` optional; a shown
//!   default (`depth:int=3`) implies optional. Parameters are separated by one space.
//!   Marking required ones with `!` and writing every `:string` cost 137 more tokens (11%) on
//!   those lists: most parameters are required strings.
//! - types: `int`, `number`, `bool`, `null`, `object`, `any`; arrays `T[]` (`string[]`); a
//!   union `a|b`; an `enum` replaces the type: `mode:fast|slow` (more than [`MAX_ENUM`]
//!   values end in `|…`).
//! - a nested object is summarised in braces, `opts:{recursive:bool,depth?:int}`, down to
//!   [`NESTED_DEPTH`] levels and up to [`MAX_NESTED_FIELDS`] fields; deeper or wider it is
//!   `object`. Local `$ref`s (`#/$defs/X`, `#/definitions/X`) are followed, cycles are not.
//! - a default is shown as `=value` when its JSON text is at most [`MAX_DEFAULT`] bytes and it
//!   is not empty (`null`, `""`, `[]`, `{}`). Descriptions, titles, formats and bounds are left
//!   to `get_tool_spec`: they are what makes schemas expensive.

/// The legend of the notation, for the head of a view (a TOON comment line).
pub(crate) const LEGEND: &str =
    "# params: name = required string; name:type; name? optional; =default";

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};

use crate::{Map, Value};

/// Nested objects are summarised this many levels below a parameter.
pub(crate) const NESTED_DEPTH: usize = 2;
/// Nested objects with more fields than this are shown as `object`.
pub(crate) const MAX_NESTED_FIELDS: usize = 8;
/// Enums with more values than this show the first ones and `…`.
pub(crate) const MAX_ENUM: usize = 8;
/// Compact mode shows an enum whole up to this many values; a longer one keeps its tool's
/// whole schema (twenty values cost about forty tokens in a signature, three times that
/// as JSON Schema).
pub(crate) const MAX_WHOLE_ENUM: usize = 32;
/// Defaults whose JSON text is longer than this are not shown.
const MAX_DEFAULT: usize = 16;
/// `$ref`s are followed at most this deep (a cycle stops here).
const MAX_REF_HOPS: usize = 8;

/// One top-level parameter of an `inputSchema`.
pub(crate) struct Param<'s> {
    pub name: &'s str,
    pub schema: &'s Value,
    pub required: bool,
}

/// The properties of an object schema in their order, with requiredness.
pub(crate) fn params(schema: &Value) -> Vec<Param<'_>> {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let required = required_names(schema);
    props
        .iter()
        .map(|(name, schema)| Param {
            name,
            schema,
            required: required.contains(&name),
        })
        .collect()
}

pub(crate) fn required_names(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// Follows a local `$ref` against the document root; anything else is returned as is.
pub(crate) fn resolve<'s>(root: &'s Value, schema: &'s Value) -> &'s Value {
    let mut current = schema;
    for _ in 0..MAX_REF_HOPS {
        let Some(target) = current.get("$ref").and_then(Value::as_str) else {
            return current;
        };
        let Some(pointer) = target.strip_prefix('#') else {
            return current;
        };
        match root.pointer(pointer) {
            Some(next) => current = next,
            None => return current,
        }
    }
    current
}

/// The one-line signature of an `inputSchema`: `path head?:int`, long enums cut
/// (`a|b|…`, past [`MAX_ENUM`] values) as views show them.
pub(crate) fn signature(input_schema: &Value) -> String {
    signature_in(input_schema, MAX_ENUM)
}

/// [`signature`] with every value of an enum up to [`MAX_WHOLE_ENUM`]: compact mode's,
/// which lists a tool's parameters as its only definition.
pub(crate) fn whole_signature(input_schema: &Value) -> String {
    signature_in(input_schema, MAX_WHOLE_ENUM)
}

/// How a signature is written: the schema its `$ref`s resolve in, and how many values of an
/// enum it shows.
struct Notation<'s> {
    root: &'s Value,
    max_enum: usize,
}

fn signature_in(input_schema: &Value, max_enum: usize) -> String {
    let n = Notation {
        root: input_schema,
        max_enum,
    };
    let mut out = String::new();
    for param in params(input_schema) {
        if !out.is_empty() {
            out.push(' ');
        }
        write_field(&mut out, &n, &param, 0);
    }
    out
}

fn write_field(out: &mut String, n: &Notation<'_>, param: &Param<'_>, depth: usize) {
    let schema = resolve(n.root, param.schema);
    let default = schema
        .get("default")
        .filter(|d| !is_empty_default(d))
        .map(default_text)
        .filter(|text| text.len() <= MAX_DEFAULT);
    out.push_str(param.name);
    // A shown default says "optional" already.
    if !param.required && default.is_none() {
        out.push('?');
    }
    let mut ty = String::new();
    write_type(&mut ty, n, schema, depth);
    if ty != "string" {
        out.push(':');
        out.push_str(&ty);
    }
    if let Some(default) = default {
        out.push('=');
        out.push_str(&default);
    }
}

/// `null`, `""`, `[]` and `{}` defaults say nothing an optional mark does not.
fn is_empty_default(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

fn default_text(value: &Value) -> String {
    match value {
        // Bare words read as what they are; quotes would cost two tokens.
        Value::String(s) if !s.is_empty() && !s.contains([' ', ',', '|', '{', '}']) => s.clone(),
        other => crate::json::to_string(other).unwrap_or_default(),
    }
}

fn write_type(out: &mut String, n: &Notation<'_>, schema: &Value, depth: usize) {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        write_enum(out, n, values);
        return;
    }
    if let Some(value) = schema.get("const") {
        out.push_str(&default_text(value));
        return;
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(members) = schema.get(key).and_then(Value::as_array) {
            write_union(out, n, members, depth);
            return;
        }
    }
    if let Some(members) = schema.get("allOf").and_then(Value::as_array) {
        if let [only] = members.as_slice() {
            write_type(out, n, resolve(n.root, only), depth);
        } else {
            out.push_str("object");
        }
        return;
    }
    match schema.get("type") {
        Some(Value::String(t)) if t == "string" && described_values(schema).is_some() => {
            out.push_str(&described_values(schema).unwrap_or_default().join("|"));
        }
        Some(Value::String(t)) => write_named(out, n, schema, t, depth),
        Some(Value::Array(types)) => {
            let names: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
            for (i, t) in names.iter().enumerate() {
                if i > 0 {
                    out.push('|');
                }
                write_named(out, n, schema, t, depth);
            }
        }
        _ if schema.get("properties").is_some() => write_named(out, n, schema, "object", depth),
        _ if schema.get("items").is_some() => write_named(out, n, schema, "array", depth),
        _ => out.push_str("any"),
    }
}

/// The values a string parameter's description lists as its choices (`Options: 'all',
/// 'deployment'`; `Whether to list local branches ('local') or all branches ('all')`), for
/// the signature to show as an enum's: a model must not have to guess them. Read from the
/// sentence that says they are the choices, two to [`MAX_ENUM`] quoted words; none where it
/// speaks of examples (`e.g.`, `etc.`) or of a list of them (`comma-separated`).
fn described_values(schema: &Value) -> Option<Vec<&str>> {
    const CUES: [&str; 8] = [
        "options:",
        "supported values",
        "valid values",
        "allowed values",
        "possible values",
        "one of",
        "whether",
        "either",
    ];
    let text = schema.get("description")?.as_str()?;
    // ASCII lowercase keeps byte offsets.
    let lower = text.to_ascii_lowercase();
    let start = CUES.iter().filter_map(|c| lower.find(c)).min()?;
    let end = lower[start..].find(". ").map_or(text.len(), |e| start + e);
    let sentence = &lower[start..end];
    let unlike = ["e.g", "etc", "example", "such as", "comma", "multiple"];
    if unlike.iter().any(|m| sentence.contains(m)) || lower.contains("comma-separated") {
        return None;
    }
    let sentence = &text[start..end];
    let mut values: Vec<&str> = Vec::new();
    for quote in ['\'', '"', '`'] {
        // Odd parts are inside quotes: `a 'b' c 'd'` splits as a, b, c, d.
        for (i, part) in sentence.split(quote).enumerate() {
            let word = part
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric())
                && part.len() <= 32
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c));
            if i % 2 == 1 && word && !values.contains(&part) {
                values.push(part);
            }
        }
    }
    (2..=MAX_ENUM).contains(&values.len()).then_some(values)
}

fn write_named(out: &mut String, n: &Notation<'_>, schema: &Value, name: &str, depth: usize) {
    match name {
        "integer" => out.push_str("int"),
        "boolean" => out.push_str("bool"),
        "object" => write_object(out, n, schema, depth),
        "array" => match schema.get("items") {
            Some(items) if items.is_object() => {
                let items = resolve(n.root, items);
                let start = out.len();
                write_type(out, n, items, depth);
                // `a|b[]` would read as `a | b[]`: group a union before the brackets.
                if out[start..].contains('|') {
                    out.insert(start, '(');
                    out.push(')');
                }
                out.push_str("[]");
            }
            _ => out.push_str("array"),
        },
        other => out.push_str(other),
    }
}

fn write_object(out: &mut String, n: &Notation<'_>, schema: &Value, depth: usize) {
    let fields = params(schema);
    if fields.is_empty() || depth >= NESTED_DEPTH || fields.len() > MAX_NESTED_FIELDS {
        out.push_str("object");
        return;
    }
    out.push('{');
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_field(out, n, field, depth + 1);
    }
    out.push('}');
}

fn write_enum(out: &mut String, n: &Notation<'_>, values: &[Value]) {
    for (i, v) in values.iter().take(n.max_enum).enumerate() {
        if i > 0 {
            out.push('|');
        }
        // A value with a space keeps its JSON quotes: a bare space separates parameters.
        out.push_str(&default_text(v));
    }
    if values.len() > n.max_enum {
        out.push_str("|…");
    }
}

fn write_union(out: &mut String, n: &Notation<'_>, members: &[Value], depth: usize) {
    let mut parts: Vec<String> = Vec::new();
    for member in members {
        let mut part = String::new();
        write_type(&mut part, n, resolve(n.root, member), depth);
        if !parts.contains(&part) {
            parts.push(part);
        }
    }
    out.push_str(&parts.join("|"));
}

/// The words of a schema a search should see: parameter names and their descriptions.
pub(crate) fn search_words(input_schema: &Value) -> (Vec<&str>, Vec<&str>) {
    let mut names = Vec::new();
    let mut descriptions = Vec::new();
    for param in params(input_schema) {
        names.push(param.name);
        if let Some(d) = resolve(input_schema, param.schema)
            .get("description")
            .and_then(Value::as_str)
        {
            descriptions.push(d);
        }
    }
    (names, descriptions)
}

/// Parameter names and their descriptions, in order.
pub(crate) type SearchWords<'s> = (Vec<Cow<'s, str>>, Vec<Cow<'s, str>>);

/// [`search_words`] of a tool definition's `inputSchema`, read from its JSON text without
/// building its tree (a catalog's index reads every tool's; a tree costs 3-4 times more).
/// None whenever the quick read could differ from the tree's: a `$ref` (resolved against the
/// whole schema), a repeated property name, a description that is not a string, text that
/// serde_json refuses (the tree's reader makes lone surrogates and huge numbers readable
/// first). Texts are borrowed unless they have escapes.
pub(crate) fn quick_search_words(definition: &str) -> Option<SearchWords<'_>> {
    let MapOnly(read): MapOnly<QuickDefinition<'_>> = serde_json::from_str(definition).ok()?;
    let properties = read.input_schema.and_then(|s| s.0.properties);
    let properties = properties.map_or_else(Vec::new, |p| p.0);
    let mut names = Vec::with_capacity(properties.len());
    let mut descriptions = Vec::with_capacity(properties.len());
    for (name, property) in properties {
        if property.0.reference.is_some() {
            return None;
        }
        names.push(name.0);
        descriptions.extend(property.0.description.map(|d| d.0));
    }
    (!has_repeats(&names)).then_some((names, descriptions))
}

/// Whether a name appears twice: pair by pair for the few parameters a tool has (sorting
/// copies of them cost more than the comparisons, most of which differ in length), sorted
/// copies past that.
fn has_repeats(names: &[Cow<'_, str>]) -> bool {
    if names.len() <= 16 {
        return names
            .iter()
            .enumerate()
            .any(|(i, a)| names[i + 1..].contains(a));
    }
    let mut sorted: Vec<&str> = names.iter().map(|n| n.as_ref()).collect();
    sorted.sort_unstable();
    sorted.windows(2).any(|w| w[0] == w[1])
}

/// A tool definition as far as [`quick_search_words`] reads it; the rest is skipped.
#[derive(Deserialize)]
struct QuickDefinition<'a> {
    #[serde(rename = "inputSchema", borrow, default)]
    input_schema: Option<MapOnly<QuickSchema<'a>>>,
}

#[derive(Deserialize)]
struct QuickSchema<'a> {
    #[serde(borrow, default)]
    properties: Option<QuickProperties<'a>>,
}

/// The properties in their order.
struct QuickProperties<'a>(Vec<(MaybeBorrowed<'a>, MapOnly<QuickProperty<'a>>)>);

#[derive(Deserialize)]
struct QuickProperty<'a> {
    #[serde(borrow, default)]
    description: Option<MaybeBorrowed<'a>>,
    #[serde(rename = "$ref", default)]
    reference: Option<IgnoredAny>,
}

/// `T` read from a JSON object only: serde's derive also reads a struct from an array, by
/// position, where the tree has no fields.
struct MapOnly<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for MapOnly<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MapVisitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for MapVisitor<T> {
            type Value = T;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<T, M::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map))
            }
        }
        deserializer
            .deserialize_map(MapVisitor(std::marker::PhantomData))
            .map(MapOnly)
    }
}

/// A string borrowed from the JSON text when it has no escapes.
struct MaybeBorrowed<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for MaybeBorrowed<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StrVisitor;
        impl<'de> Visitor<'de> for StrVisitor {
            type Value = Cow<'de, str>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Cow::Borrowed(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Cow::Owned(v.to_owned()))
            }
        }
        deserializer.deserialize_str(StrVisitor).map(MaybeBorrowed)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for QuickProperties<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PropertiesVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for PropertiesVisitor<'a> {
            type Value = QuickProperties<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object of property schemas")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let mut all = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    all.push(entry);
                }
                Ok(QuickProperties(all))
            }
        }
        deserializer.deserialize_map(PropertiesVisitor(std::marker::PhantomData))
    }
}

/// An empty object schema, for tools that declare none.
pub(crate) fn empty_object() -> Value {
    let mut map = Map::new();
    map.insert("type".into(), Value::String("object".into()));
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toon;

    /// What the tree gives: `search_words` over the parsed definition's `inputSchema`.
    fn tree_words(definition: &str) -> (Vec<String>, Vec<String>) {
        let readable = crate::mcp::json_text::readable(definition);
        let value: Value =
            crate::json::from_str(readable.as_deref().unwrap_or(definition)).unwrap();
        let empty = empty_object();
        let schema = value.get("inputSchema").unwrap_or(&empty);
        let (names, descriptions) = search_words(schema);
        let own = |v: Vec<&str>| v.into_iter().map(str::to_owned).collect();
        (own(names), own(descriptions))
    }

    fn quick_words(definition: &str) -> Option<(Vec<String>, Vec<String>)> {
        let (names, descriptions) = quick_search_words(definition)?;
        let own = |v: Vec<Cow<'_, str>>| v.into_iter().map(Cow::into_owned).collect();
        Some((own(names), own(descriptions)))
    }

    #[test]
    fn the_quick_read_gives_the_trees_words_for_every_captured_tool() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut files = vec![root.join("retrieval/azure.catalog.json")];
        files.push(root.join("retrieval/metatool.catalog.json"));
        for entry in std::fs::read_dir(root.join("mcp/lists")).unwrap() {
            files.push(entry.unwrap().path());
        }
        let mut quick = 0;
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            let catalog = crate::mcp::Catalog::from_json(&text, "s").unwrap();
            for tool in catalog.tools() {
                let raw = tool.raw_json();
                if let Some(words) = quick_words(raw) {
                    assert_eq!(words, tree_words(raw), "{}", tool.name());
                    quick += 1;
                }
            }
        }
        assert!(quick >= 400, "{quick} tools read quickly");
    }

    #[test]
    fn the_quick_read_declines_what_only_the_tree_reads_alike() {
        let declined = [
            // A `$ref` is resolved against the whole schema.
            r##"{"inputSchema": {"properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"description": "x"}}}}"##,
            // A repeated name, a description that is not a string, a lone surrogate.
            r#"{"inputSchema": {"properties": {"a": {}, "a": {"description": "x"}}}}"#,
            r#"{"inputSchema": {"properties": {"a": {"description": 3}}}}"#,
            r#"{"inputSchema": {"properties": {"a": {"description": "cut \ud83d"}}}}"#,
            r#"{"inputSchema": {"properties": ["a"]}}"#,
            r#"{"inputSchema": {"properties": {"a": true}}}"#,
            r#"{"inputSchema": {}, "inputSchema": {}}"#,
            // Arrays, which serde's derive would read as structs by position.
            "[]",
            r#"[{"properties": {"a": {}}}]"#,
            r#"{"inputSchema": [{"a": {}}]}"#,
            r#"{"inputSchema": {"properties": {"a": ["x"]}}}"#,
        ];
        for definition in declined {
            assert_eq!(quick_words(definition), None, "{definition}");
        }
        let read = [
            r#"{"name": "t"}"#,
            r#"{"inputSchema": null}"#,
            // What the tree's reader makes readable, where the quick read does not look.
            r#"{"description": "cut \ud83d", "n": 1e400, "inputSchema": {"properties": {"a": {}}}}"#,
            r#"{"inputSchema": {"type": "object"}}"#,
            r#"{"inputSchema": {"properties": {"q\u0041": {"description": "say \"hi\"\n"}, "b": {"type": "string", "description": null}}}}"#,
        ];
        for definition in read {
            let words = quick_words(definition).unwrap_or_else(|| panic!("{definition}"));
            assert_eq!(words, tree_words(definition), "{definition}");
        }
    }

    fn sig(schema: Value) -> String {
        signature(&schema)
    }

    #[test]
    fn scalars_required_and_defaults() {
        let s = toon!({"type": "object", "properties": {
            "path": {"type": "string"},
            "line": {"type": "integer", "default": 3},
            "ratio": {"type": "number"},
            "raw": {"type": "boolean", "default": false}
        }, "required": ["path"]});
        assert_eq!(sig(s), "path line:int=3 ratio?:number raw:bool=false");
    }

    #[test]
    fn choices_a_description_lists_are_shown_as_an_enum_s_examples_are_not() {
        let s = toon!({"type": "object", "properties": {
            "kind": {"type": "string", "description": "Whether to list local branches ('local'), remote branches ('remote') or all branches('all')."},
            "action": {"type": "string", "description": "The action. Options: 'all', 'deployment'. Note: 'static-web-app' resources only support 'all'."},
            "zone": {"type": "string", "description": "One of the IANA names, e.g. 'Europe/London', 'Asia/Tokyo'."},
            "table": {"type": "string", "description": "Options: 'CustomLog', 'AzureMetrics', etc."},
            "types": {"type": "string", "description": "Comma-separated. Supported values are: 'aks', 'storage'."},
            "mode": {"type": "string", "description": "'fast' is quick, 'slow' is careful."}
        }, "required": ["kind", "action", "zone", "table", "types", "mode"]});
        assert_eq!(
            sig(s),
            "kind:local|remote|all action:all|deployment zone table types mode"
        );
    }

    #[test]
    fn enums_arrays_unions_and_nested_objects() {
        let s = toon!({"properties": {
            "mode": {"type": "string", "enum": ["fast", "slow"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "flag": {"type": ["boolean", "string"]},
            "opts": {"type": "object", "properties": {
                "recursive": {"type": "boolean"},
                "deep": {"type": "object", "properties": {"x": {"type": "object", "properties": {"y": {"type": "integer"}}}}}
            }, "required": ["recursive"]},
            "rows": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}},
            "either": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "mixed": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}
        }});
        assert_eq!(
            sig(s),
            "mode?:fast|slow tags?:string[] flag?:bool|string \
             opts?:{recursive:bool,deep?:{x?:object}} rows?:{id:int}[] either?:string|null \
             mixed?:(string|int)[]"
        );
    }

    #[test]
    fn refs_resolve_and_cycles_stop() {
        let s = toon!({"properties": {
            "node": {"$ref": "#/$defs/Node"},
            "loop": {"$ref": "#/$defs/Loop"}
        }, "$defs": {
            "Node": {"type": "object", "properties": {"name": {"type": "string"}}},
            "Loop": {"$ref": "#/$defs/Loop"}
        }});
        assert_eq!(sig(s), "node?:{name?} loop?:any");
    }

    #[test]
    fn long_enums_and_defaults_are_cut() {
        let values: Vec<Value> = (0..12).map(|i| Value::from(format!("v{i}"))).collect();
        let s = toon!({"properties": {
            "e": {"enum": values},
            "d": {"type": "string", "default": "a very long default value indeed"},
            "n": {"type": ["string", "null"], "default": null},
            "k": {"type": "string", "default": "k"}
        }, "required": ["e"]});
        assert_eq!(sig(s), "e:v0|v1|v2|v3|v4|v5|v6|v7|… d? n?:string|null k=k");
    }

    #[test]
    fn no_properties_is_empty() {
        assert_eq!(sig(toon!({"type": "object"})), "");
        assert_eq!(sig(toon!(null)), "");
    }
}
