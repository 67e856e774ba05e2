//! The `x-mcp-header` annotations of a tool's `inputSchema` (`// 2026-07-28 server/tools`
//! "x-mcp-header", SEP-2243): a parameter so annotated is repeated in an `Mcp-Param-{Name}`
//! header on Streamable HTTP. A tool whose annotations break the rules there is invalid, and
//! a client "MUST exclude" it: the catalog leaves it out, with a warning, so that no client of
//! the gateway is offered it and the gateway never calls it.

use crate::{Map, Value};

/// Keywords whose subschemas are not reachable from the root by `properties` alone: an
/// annotation under one of them makes the tool invalid.
const UNREACHABLE: [&str; 19] = [
    "items",
    "prefixItems",
    "contains",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "propertyNames",
    "patternProperties",
    "dependentSchemas",
    "oneOf",
    "anyOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "$defs",
    "definitions",
    "dependencies",
];

/// Keywords of [`UNREACHABLE`] whose value is an object of subschemas by name.
const BY_NAME: [&str; 5] = [
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
    "dependencies",
];

/// How deep the walk goes; a schema nested deeper is not read further (a real schema is a
/// few levels deep).
const MAX_DEPTH: usize = 64;

/// Why the annotations of `schema` (an `inputSchema`) make its tool invalid, or `None`:
/// each annotation a non-empty RFC 9110 token, on a property reached from the root through
/// `properties` only, whose `type` is `string`, `integer` or `boolean`, and no two the same
/// but for case.
#[must_use]
pub(crate) fn fault(schema: &Value) -> Option<String> {
    let mut seen = Seen::new();
    visit(schema, "", true, 0, &mut seen)
}

fn visit(
    schema: &Value,
    path: &str,
    reachable: bool,
    depth: usize,
    seen: &mut Seen,
) -> Option<String> {
    let object = schema.as_object()?;
    if depth > MAX_DEPTH {
        return None;
    }
    if let Some(header) = object.get("x-mcp-header")
        && let Some(why) = declaration_fault(object, header, path, reachable, seen)
    {
        return Some(why);
    }
    if let Some(properties) = object.get("properties").and_then(Value::as_object) {
        for (key, child) in properties {
            let at = format!("{path}/{key}");
            if let Some(why) = visit(child, &at, reachable, depth + 1, seen) {
                return Some(why);
            }
        }
    }
    for keyword in UNREACHABLE {
        for branch in branches(object, keyword) {
            let at = format!("{path}/{keyword}");
            if let Some(why) = visit(branch, &at, false, depth + 1, seen) {
                return Some(why);
            }
        }
    }
    None
}

/// The subschemas under `keyword`: one, a list of them, or an object of them by name.
fn branches<'a>(object: &'a Map, keyword: &str) -> Vec<&'a Value> {
    match object.get(keyword) {
        None => Vec::new(),
        Some(Value::Array(list)) => list.iter().collect(),
        Some(Value::Object(named)) if BY_NAME.contains(&keyword) => named.values().collect(),
        Some(one) => vec![one],
    }
}

/// Why one annotation (`header`, on the property at `path`) is invalid, or `None`; a valid
/// one is added to `seen`.
fn declaration_fault(
    property: &Map,
    header: &Value,
    path: &str,
    reachable: bool,
    seen: &mut Seen,
) -> Option<String> {
    let at = if path.is_empty() { "/" } else { path };
    if !reachable || path.is_empty() {
        return Some(format!(
            "x-mcp-header at {at} is not on a property reached through \"properties\" alone"
        ));
    }
    let Some(name) = header.as_str().filter(|n| !n.is_empty()) else {
        return Some(format!("x-mcp-header at {at} is not a non-empty string"));
    };
    if !name.bytes().all(is_tchar) {
        return Some(format!(
            "x-mcp-header {name:?} at {at} is not an HTTP token (no spaces, control \
             characters, non-ASCII or delimiters)"
        ));
    }
    let kind = property.get("type").and_then(Value::as_str);
    if !matches!(kind, Some("string" | "integer" | "boolean")) {
        return Some(format!(
            "x-mcp-header {name:?} at {at} is on a property of type {}, not string, integer \
             or boolean",
            kind.unwrap_or("(none)")
        ));
    }
    if let Some(other) = seen.get(&name.to_ascii_lowercase()) {
        return Some(format!(
            "x-mcp-header {name:?} at {at} repeats {other:?} (header names are compared \
             without case)"
        ));
    }
    seen.insert(name.to_ascii_lowercase(), name.to_owned());
    None
}

/// The valid annotations met so far: each as first written, by its name in lower case (a
/// schema may have hundreds of thousands; each is looked up once).
type Seen = std::collections::HashMap<String, String>;

/// RFC 9110 §5.6.2 `tchar`.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

#[cfg(test)]
mod tests {
    use super::fault;

    fn schema(text: &str) -> crate::Value {
        crate::json::from_str(text).unwrap()
    }

    fn properties(props: &str) -> crate::Value {
        schema(&format!(r#"{{"type":"object","properties":{props}}}"#))
    }

    #[test]
    fn valid_annotations_pass() {
        let s = properties(
            r#"{"region":{"type":"string","x-mcp-header":"Region"},
                "n":{"type":"integer","x-mcp-header":"N"},
                "deep":{"type":"object","properties":{"on":{"type":"boolean","x-mcp-header":"On"}}},
                "q":{"type":"string"}}"#,
        );
        assert_eq!(fault(&s), None);
        assert_eq!(fault(&schema(r#"{"type":"object"}"#)), None);
    }

    /// The invalid tools of the conformance suite's `http-invalid-tool-headers` scenario.
    #[test]
    fn each_rule_is_checked() {
        let cases = [
            (
                r#"{"v":{"type":"string","x-mcp-header":""}}"#,
                "not a non-empty string",
            ),
            (
                r#"{"v":{"type":"object","x-mcp-header":"Data"}}"#,
                "type object",
            ),
            (
                r#"{"v":{"type":"array","items":{"type":"string"},"x-mcp-header":"I"}}"#,
                "type array",
            ),
            (r#"{"v":{"type":"null","x-mcp-header":"Nil"}}"#, "type null"),
            (
                r#"{"v":{"type":"number","x-mcp-header":"Score"}}"#,
                "type number",
            ),
            (r#"{"v":{"x-mcp-header":"Any"}}"#, "type (none)"),
            (
                r#"{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"Region"}}"#,
                "repeats",
            ),
            (
                r#"{"a":{"type":"string","x-mcp-header":"MyField"},"b":{"type":"string","x-mcp-header":"myfield"}}"#,
                "repeats",
            ),
            (
                r#"{"v":{"type":"string","x-mcp-header":"My Region"}}"#,
                "not an HTTP token",
            ),
            (
                r#"{"v":{"type":"string","x-mcp-header":"Region:Primary"}}"#,
                "not an HTTP token",
            ),
            (
                r#"{"v":{"type":"string","x-mcp-header":"Région"}}"#,
                "not an HTTP token",
            ),
            (
                r#"{"v":{"type":"string","x-mcp-header":"Region\t1"}}"#,
                "not an HTTP token",
            ),
            (
                r#"{"v":{"type":"string","x-mcp-header":7}}"#,
                "not a non-empty string",
            ),
        ];
        for (props, why) in cases {
            let found = fault(&properties(props));
            assert!(
                found.as_deref().is_some_and(|f| f.contains(why)),
                "{props}: {found:?}"
            );
        }
    }

    #[test]
    fn an_annotation_off_the_properties_chain_is_invalid() {
        for s in [
            r#"{"type":"string","x-mcp-header":"Root"}"#,
            r#"{"type":"object","properties":{"l":{"type":"array","items":{"type":"object","properties":{"x":{"type":"string","x-mcp-header":"X"}}}}}}"#,
            r#"{"anyOf":[{"type":"object","properties":{"x":{"type":"string","x-mcp-header":"X"}}}]}"#,
            r##"{"$defs":{"d":{"type":"string","x-mcp-header":"D"}},"properties":{"p":{"$ref":"#/$defs/d"}}}"##,
            r#"{"type":"object","additionalProperties":{"type":"string","x-mcp-header":"A"}}"#,
        ] {
            let found = fault(&schema(s));
            assert!(found.is_some_and(|f| f.contains("reached through")), "{s}");
        }
    }

    /// A server's schema may annotate very many properties (a tools/list page is up to
    /// 16 MiB): each is checked against those before it at once, not one by one (100 000 of
    /// them took a minute so), and a repeat at the end is still found.
    #[test]
    fn very_many_annotations_are_each_checked_once() {
        const N: usize = 100_000;
        let mut props: Vec<String> = (0..N)
            .map(|i| format!(r#""p{i}":{{"type":"string","x-mcp-header":"H{i}"}}"#))
            .collect();
        let valid = properties(&format!("{{{}}}", props.join(",")));
        assert_eq!(fault(&valid), None);
        props.push(r#""last":{"type":"string","x-mcp-header":"h7"}"#.to_owned());
        let repeated = properties(&format!("{{{}}}", props.join(",")));
        let found = fault(&repeated);
        assert!(
            found
                .as_deref()
                .is_some_and(|f| f.contains(r#"repeats "H7""#)),
            "{found:?}"
        );
    }
}
