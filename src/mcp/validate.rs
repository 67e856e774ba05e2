//! Argument validation against a tool's `inputSchema`: the checks a model's mistakes fail
//! (missing required fields, wrong types, values outside an enum, unknown fields where the
//! schema forbids them), reported all at once with their paths so one retry can fix them.

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
/// `properties`, `additionalProperties: false`, `items`, `anyOf`/`oneOf`, local `$ref`s) and
/// returns every violation found (empty when they fit). Formats, bounds and patterns are left
/// to the server.
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
        Verdict::Breaks(message) => out.push(Violation {
            path: path.clone(),
            message,
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
    /// It breaks one, `type` included.
    Breaks(String),
}

/// `enum`, `const`, `anyOf`/`oneOf` (each decides alone, the first present) and `type`.
fn keywords(root: &Value, schema: &Value, value: &Value, path: &str, depth: usize) -> Verdict {
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array) {
        if allowed.iter().any(|a| a == value) {
            return Verdict::Fits;
        }
        let list: Vec<String> = allowed.iter().map(show).collect();
        let got = crate::json::to_string(value).unwrap_or_default();
        return Verdict::Breaks(format!("{got} is not one of {}", list.join(", ")));
    }
    if let Some(expected) = schema.get("const") {
        if expected == value {
            return Verdict::Fits;
        }
        return Verdict::Breaks(format!("must be {}", show(expected)));
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(members) = schema.get(key).and_then(Value::as_array) {
            let fits = members.iter().any(|m| {
                let mut probe = Vec::new();
                check(root, m, value, &mut path.to_owned(), depth + 1, &mut probe);
                probe.is_empty()
            });
            if fits {
                return Verdict::Fits;
            }
            let kind = show_kind(value);
            return Verdict::Breaks(format!("{kind} fits none of the allowed shapes"));
        }
    }
    match declared_types(schema) {
        Some(types) if !types.iter().any(|t| has_type(value, t)) => Verdict::Breaks(format!(
            "expected {}, got {}",
            types.join(" or "),
            show_kind(value)
        )),
        _ => Verdict::Members,
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
            });
        }
    }
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
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
                });
            }
            None => {}
        }
        path.truncate(len);
    }
}

/// An array's elements, each against `items` when that is a schema.
fn check_items(
    root: &Value,
    schema: &Value,
    items: &[Value],
    path: &mut String,
    depth: usize,
    out: &mut Vec<Violation>,
) {
    if let Some(item_schema) = schema.get("items").filter(|s| s.is_object()) {
        for (i, item) in items.iter().enumerate() {
            let len = path.len();
            path.push_str(&format!("[{i}]"));
            check(root, item_schema, item, path, depth + 1, out);
            path.truncate(len);
        }
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
