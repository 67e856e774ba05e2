//! Argument validation against a tool's `inputSchema`: the checks a model's mistakes fail
//! (missing required fields, wrong types, values outside an enum, unknown fields where the
//! schema forbids them), reported all at once with their paths so one retry can fix them,
//! each saying whether every server refuses it ([`Violation::sure`]).

use std::fmt;

use super::schema::{required_names, resolve};
use crate::{Map, Value};

/// Nested schemas are checked this deep; deeper values are accepted as they are.
const MAX_DEPTH: usize = 32;
/// At most this many violations are reported.
const MAX_VIOLATIONS: usize = 20;

/// One way the arguments do not fit the schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Where, as a dotted path from the arguments (`entities[2].name`); empty for the root.
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// Whether every server refuses it. Not so where a lenient validator reads the value as
    /// the type asked for: pydantic's lax mode (the Python SDK's servers) takes `"10"` for an
    /// integer, `true` for a number and `1` for a boolean, and FastMCP parses a JSON string
    /// given for a parameter that is not a string. A gate in front of a server refuses a call
    /// only for a violation that is sure.
    pub sure: bool,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// Checks `arguments` against `input_schema` (`required`, `type`, `enum`, `const`,
/// `properties`, `additionalProperties: false`, `items`, `prefixItems`, `anyOf`/`oneOf`, local
/// `$ref`s) and returns every violation found (empty when they fit). Formats, bounds and
/// patterns are left to the server, and so are the names of an object with
/// `patternProperties`.
///
/// ```
/// use toon::{mcp::validate_arguments, toon};
/// let schema = toon!({"type": "object", "properties": {
///     "path": {"type": "string"}, "mode": {"enum": ["r", "w"]}}, "required": ["path"]});
/// let problems = validate_arguments(&schema, &toon!({"mode": "x"}));
/// let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
/// assert_eq!(text, ["missing required field \"path\" (string)", "mode: \"x\" is not one of r, w"]);
/// ```
#[must_use]
pub fn validate_arguments(input_schema: &Value, arguments: &Value) -> Vec<Violation> {
    let mut out = Vec::new();
    check(
        input_schema,
        input_schema,
        arguments,
        &mut String::new(),
        0,
        &mut out,
    );
    out.truncate(MAX_VIOLATIONS);
    out
}

/// The violations of `arguments` a call is refused for before it reaches its server: every
/// one found, when one of them is [`sure`](Violation::sure) (the server would refuse it
/// too); `None` when none is, since what a lenient server reads as the right type (`"10"`
/// for an integer) is its to judge. Lean mode's `execute_tool` and compact mode's check
/// refuse by this one rule.
pub(crate) fn refusal(input_schema: &Value, arguments: &Value) -> Option<Vec<Violation>> {
    let violations = validate_arguments(input_schema, arguments);
    violations.iter().any(|v| v.sure).then_some(violations)
}

fn check(
    root: &Value,
    schema: &Value,
    value: &Value,
    path: &mut String,
    depth: usize,
    out: &mut Vec<Violation>,
) {
    if depth > MAX_DEPTH || out.len() >= MAX_VIOLATIONS {
        return;
    }
    let schema = resolve(root, schema);
    match keywords(root, schema, value, path, depth) {
        Verdict::Fits => {}
        Verdict::Breaks(message, sure) => out.push(Violation {
            path: path.clone(),
            message,
            sure,
        }),
        Verdict::Members => match value {
            Value::Object(map) => check_properties(root, schema, map, path, depth, out),
            Value::Array(items) => check_items(root, schema, items, path, depth, out),
            _ => {}
        },
    }
}

/// What a schema's value keywords say of a value.
enum Verdict {
    /// Nothing against it: its members are checked next (`properties`, `items`).
    Members,
    /// It fits a keyword that decides alone (`enum`, `const`, `anyOf`/`oneOf`).
    Fits,
    /// It breaks one, `type` included; whether surely ([`Violation::sure`]).
    Breaks(String, bool),
}

/// `enum`, `const`, `anyOf`/`oneOf` (each decides alone, the first present) and `type`.
fn keywords(root: &Value, schema: &Value, value: &Value, path: &str, depth: usize) -> Verdict {
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array) {
        if allowed.iter().any(|a| a == value) {
            return Verdict::Fits;
        }
        let list: Vec<String> = allowed.iter().map(show).collect();
        let got = crate::json::to_string(value).unwrap_or_default();
        let sure = !allowed.iter().any(|a| read_leniently(value, a.kind()));
        return Verdict::Breaks(format!("{got} is not one of {}", list.join(", ")), sure);
    }
    if let Some(expected) = schema.get("const") {
        if expected == value {
            return Verdict::Fits;
        }
        let sure = !read_leniently(value, expected.kind());
        return Verdict::Breaks(format!("must be {}", show(expected)), sure);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(members) = schema.get(key).and_then(Value::as_array) {
            return any_of(root, members, value, path, depth);
        }
    }
    match declared_types(schema) {
        Some(types) if !types.iter().any(|t| has_type(value, t)) => {
            let sure = !types.iter().any(|t| read_leniently(value, t));
            let message = format!("expected {}, got {}", types.join(" or "), show_kind(value));
            Verdict::Breaks(message, sure)
        }
        _ => Verdict::Members,
    }
}

/// `anyOf`/`oneOf`: the value fits one of `members`, or fits none (surely, unless one of them
/// only a lenient server would take).
fn any_of(root: &Value, members: &[Value], value: &Value, path: &str, depth: usize) -> Verdict {
    let mut sure = true;
    for member in members {
        let mut probe = Vec::new();
        check(
            root,
            member,
            value,
            &mut path.to_owned(),
            depth + 1,
            &mut probe,
        );
        if probe.is_empty() {
            return Verdict::Fits;
        }
        sure &= probe.iter().any(|v| v.sure);
    }
    let kind = show_kind(value);
    Verdict::Breaks(format!("{kind} fits none of the allowed shapes"), sure)
}

/// Whether a lenient server reads `value` as a value of JSON type `ty` (see
/// [`Violation::sure`]): a string that is the JSON text of such a value (`"10"`, `"[1]"`) or
/// a word pydantic reads as a boolean (`"yes"`), a boolean as a number, 0 and 1 as booleans.
fn read_leniently(value: &Value, ty: &str) -> bool {
    match (value, ty) {
        (Value::String(_), "string") => false,
        (Value::String(s), "boolean")
            if ["yes", "no", "on", "off", "t", "f", "y", "n"]
                .contains(&s.to_ascii_lowercase().as_str()) =>
        {
            true
        }
        (Value::String(s), ty) => crate::json::from_str::<Value>(s.trim()).is_ok_and(|parsed| {
            !parsed.is_string() && (has_type(&parsed, ty) || read_leniently(&parsed, ty))
        }),
        (Value::Bool(_), "integer" | "number") => true,
        (Value::Number(n), "boolean") => n.as_f64().is_some_and(|f| f == 0.0 || f == 1.0),
        _ => false,
    }
}

/// An object's `required` names and `properties`, each member checked against its own
/// schema; with `additionalProperties: false`, a member the schema does not name is one too
/// many.
fn check_properties(
    root: &Value,
    schema: &Value,
    map: &Map,
    path: &mut String,
    depth: usize,
    out: &mut Vec<Violation>,
) {
    let props = schema.get("properties").and_then(Value::as_object);
    for name in required_names(schema) {
        if !map.contains_key(name) {
            let ty = props
                .and_then(|p| p.get(name))
                .map(|s| resolve(root, s))
                .and_then(declared_types)
                .map(|t| format!(" ({})", t.join(" or ")))
                .unwrap_or_default();
            out.push(Violation {
                path: path.clone(),
                message: format!("missing required field {name:?}{ty}"),
                sure: true,
            });
        }
    }
    // Names `patternProperties` may allow are the server's to judge (no regex engine here).
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false))
        && schema.get("patternProperties").is_none();
    for (key, child) in map {
        let len = path.len();
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(key);
        match props.and_then(|p| p.get(key)) {
            Some(child_schema) => check(root, child_schema, child, path, depth + 1, out),
            None if closed => {
                let known: Vec<&str> = props.map(|p| p.keys().collect()).unwrap_or_default();
                out.push(Violation {
                    path: path.clone(),
                    message: format!("unknown field; allowed: {}", known.join(", ")),
                    sure: true,
                });
            }
            None => {}
        }
        path.truncate(len);
    }
}

/// An array's elements: the first ones against `prefixItems`' schemas in turn, the rest
/// against `items` when that is a schema.
fn check_items(
    root: &Value,
    schema: &Value,
    items: &[Value],
    path: &mut String,
    depth: usize,
    out: &mut Vec<Violation>,
) {
    let prefix = schema.get("prefixItems").and_then(Value::as_array);
    let rest = schema.get("items").filter(|s| s.is_object());
    for (i, item) in items.iter().enumerate() {
        let Some(item_schema) = prefix.and_then(|p| p.get(i)).or(rest) else {
            continue;
        };
        let len = path.len();
        path.push_str(&format!("[{i}]"));
        check(root, item_schema, item, path, depth + 1, out);
        path.truncate(len);
    }
}

fn declared_types(schema: &Value) -> Option<Vec<&str>> {
    match schema.get("type")? {
        Value::String(t) => Some(vec![t.as_str()]),
        Value::Array(ts) => Some(ts.iter().filter_map(Value::as_str).collect()),
        _ => None,
    }
}

fn has_type(value: &Value, ty: &str) -> bool {
    match ty {
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "number" => value.is_number(),
        "integer" => match value {
            Value::Number(n) => {
                n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            _ => false,
        },
        // An unknown type name is the schema's problem, not the caller's.
        _ => true,
    }
}

fn show_kind(value: &Value) -> String {
    match value {
        Value::Object(_) => "an object".into(),
        Value::Array(_) => "an array".into(),
        other => format!("{} {}", other.kind(), show(other)),
    }
}

fn show(value: &Value) -> String {
    match value {
        Value::String(s) if s.chars().count() > 40 => {
            format!("{:?}…", s.chars().take(40).collect::<String>())
        }
        Value::String(s) if value_is_listed_bare(s) => s.clone(),
        other => crate::json::to_string(other).unwrap_or_default(),
    }
}

/// Enum members are listed bare when that is unambiguous (`r, w`), quoted otherwise.
fn value_is_listed_bare(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || "_-./".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toon;

    fn problems(schema: Value, args: Value) -> Vec<String> {
        validate_arguments(&schema, &args)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn nested_arrays_types_and_closed_objects() {
        let schema = toon!({"type": "object", "properties": {
            "entities": {"type": "array", "items": {"type": "object", "properties": {
                "name": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}
            }, "required": ["name"], "additionalProperties": false}},
            "count": {"type": "integer"},
            "either": {"anyOf": [{"type": "string"}, {"type": "null"}]}
        }, "required": ["entities"]});
        assert!(
            problems(
                schema.clone(),
                toon!({"entities": [{"name": "a"}], "count": 2.0})
            )
            .is_empty()
        );
        assert_eq!(
            problems(
                schema,
                toon!({"entities": [{"name": 1}, {"tags": ["x", 2], "extra": true}], "count": 1.5, "either": 3})
            ),
            [
                "entities[0].name: expected string, got number 1",
                "entities[1]: missing required field \"name\" (string)",
                "entities[1].tags[1]: expected string, got number 2",
                "entities[1].extra: unknown field; allowed: name, tags",
                "count: expected integer, got number 1.5",
                "either: number 3 fits none of the allowed shapes",
            ]
        );
    }

    #[test]
    fn root_must_be_an_object_when_declared() {
        let schema = toon!({"type": "object"});
        assert_eq!(
            problems(schema.clone(), toon!([1])),
            ["expected object, got an array"]
        );
        assert!(problems(schema, toon!({})).is_empty());
    }

    /// Each violation and whether it is sure.
    fn judged(schema: Value, args: Value) -> Vec<(String, bool)> {
        validate_arguments(&schema, &args)
            .into_iter()
            .map(|v| (v.to_string(), v.sure))
            .collect()
    }

    #[test]
    fn what_a_lenient_server_reads_is_not_a_sure_violation() {
        let schema = toon!({"type": "object", "properties": {
            "n": {"type": "integer"}, "x": {"type": "number"}, "b": {"type": "boolean"},
            "list": {"type": "array", "items": {"type": "string"}}, "s": {"type": "string"},
            "level": {"enum": [1, 2]}, "mode": {"enum": ["r", "w"]},
            "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}]}
        }});
        let args = toon!({"n": "10", "x": true, "b": 1, "list": "[\"a\"]", "s": 10,
            "level": "1", "mode": "x", "maybe": "3"});
        let sure: Vec<bool> = judged(schema.clone(), args)
            .into_iter()
            .map(|(_, s)| s)
            .collect();
        // A number is never read as a string, nor an unknown string as an enum's.
        assert_eq!(sure, [false, false, false, false, true, false, true, false]);
        // Text that is no value of the type is refused by every server.
        let args = toon!({"n": "ten", "x": "1.5.2", "b": "maybe", "list": "a", "maybe": "x"});
        let sure: Vec<bool> = judged(schema, args).into_iter().map(|(_, s)| s).collect();
        assert_eq!(sure, [true, true, true, true, true]);
    }

    #[test]
    fn prefix_items_and_pattern_properties() {
        let schema = toon!({"type": "object", "properties": {
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}],
                "items": {"type": "boolean"}},
            "env": {"type": "object", "patternProperties": {"^[A-Z]+$": {"type": "string"}},
                "additionalProperties": false}
        }});
        assert!(
            judged(
                schema.clone(),
                toon!({"pair": ["a", 1, true], "env": {"PATH": "/"}})
            )
            .is_empty()
        );
        assert_eq!(
            judged(schema, toon!({"pair": [1, 1, 2]})),
            [
                ("pair[0]: expected string, got number 1".to_owned(), true),
                ("pair[2]: expected boolean, got number 2".to_owned(), true),
            ]
        );
    }

    #[test]
    fn self_referencing_schemas_terminate() {
        let schema = toon!({"$ref": "#", "type": "object", "properties": {"next": {"$ref": "#"}}});
        let mut deep = toon!({});
        for _ in 0..100 {
            deep = toon!({"next": deep});
        }
        assert!(problems(schema, deep).is_empty());
    }
}
