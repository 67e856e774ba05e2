//! One server entry of a client's file: whether the gateway would run it as the client does
//! (else it stays with the client), and how it is shown with its secrets hidden.

use crate::Value;
use crate::mcp::proxy::{Config, ConfigError, Launch};

/// What a hidden value is shown as.
pub(crate) const HIDDEN: &str = "<hidden>";

/// Why the entry `name` (its JSON text `value`) stays in the client's file, or `None` when the
/// gateway runs it as the client would.
pub(crate) fn why_kept(name: &str, value: &str, client: &str) -> Option<String> {
    let Ok(Value::Object(entry)) = crate::json::from_str::<Value>(value) else {
        return Some("it is not an object".to_owned());
    };
    for key in ["envFile", "oauth"] {
        if entry.contains_key(key) {
            return Some(format!(
                "its \"{key}\" is {client}'s own, which the gateway does not read"
            ));
        }
    }
    // Claude Code, Cursor, VS Code and Windsurf expand `${…}` in a command, its arguments and
    // environment; the gateway starts a command as written.
    for key in ["command", "args", "env", "cwd"] {
        if entry
            .get(key)
            .is_some_and(|v| strings(v).any(|s| s.contains("${")))
        {
            return Some(format!(
                "its \"{key}\" uses ${{…}}, which {client} expands and the gateway does not"
            ));
        }
    }
    // In a URL and headers the gateway expands `${NAME}` and `${NAME:-default}`, no other form
    // (`${input:…}`, `${env:…}`, `${workspaceFolder}` are the client's).
    for key in ["url", "serverUrl", "headers"] {
        if entry
            .get(key)
            .is_some_and(|v| strings(v).any(|s| !plain_variables(s)))
        {
            return Some(format!(
                "its \"{key}\" uses a ${{…}} form that only {client} expands"
            ));
        }
    }
    let text = format!(
        "{{\"mcpServers\": {{{}: {value}}}}}",
        crate::mcp::raw::quote(name)
    );
    // Any variable is taken as set: whether it is, is the gateway's environment's business.
    match Config::from_str_with(&text, &|_| Some("x".to_owned())) {
        Err(ConfigError::Invalid { path, message, .. }) => {
            Some(format!("the gateway cannot read it: {path}: {message}"))
        }
        Err(e) => Some(format!("the gateway cannot read it: {e}")),
        Ok(config) => match config.servers.first().map(|s| &s.launch) {
            Some(Launch::Unsupported(why)) => Some(why.clone()),
            _ => None,
        },
    }
}

/// Every string in `value`, at any depth.
fn strings(value: &Value) -> Box<dyn Iterator<Item = &str> + '_> {
    match value {
        Value::String(s) => Box::new(std::iter::once(s.as_str())),
        Value::Array(items) => Box::new(items.iter().flat_map(strings)),
        Value::Object(map) => Box::new(map.values().flat_map(strings)),
        _ => Box::new(std::iter::empty()),
    }
}

/// Whether every `${…}` in `text` is `${NAME}` or `${NAME:-default}`, as the gateway reads them.
fn plain_variables(text: &str) -> bool {
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return false;
        };
        let name = after[..end].split(":-").next().unwrap_or_default();
        let plain = !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_');
        if !plain {
            return false;
        }
        rest = &after[end + 1..];
    }
    true
}

/// The entry's JSON, compact, with the values of `env` and `headers` and a URL's credentials
/// and query hidden: what `install` prints of it.
pub(crate) fn masked(value: &str) -> String {
    let Ok(mut entry) = crate::json::from_str::<Value>(value) else {
        return HIDDEN.to_owned();
    };
    if let Value::Object(map) = &mut entry {
        for (key, v) in map.iter_mut() {
            match (key, v) {
                ("env" | "headers", Value::Object(inner)) => {
                    for (_, secret) in inner.iter_mut() {
                        *secret = Value::String(HIDDEN.to_owned());
                    }
                }
                ("url" | "serverUrl", Value::String(url)) => *url = masked_url(url),
                _ => {}
            }
        }
    }
    crate::json::to_string(&entry).unwrap_or_else(|_| HIDDEN.to_owned())
}

/// `url` without its user and password and its query, which may carry tokens.
fn masked_url(url: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, _)) => (base, format!("?{HIDDEN}")),
        None => (url, String::new()),
    };
    let Some((scheme, rest)) = base.split_once("://") else {
        return format!("{base}{query}");
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://{HIDDEN}@{}{query}", &rest[at + 1..]),
        None => format!("{base}{query}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_the_gateway_runs_otherwise_stay() {
        let kept = |v: &str| why_kept("s", v, "VS Code");
        assert_eq!(
            kept(r#"{"command": "npx", "args": ["-y", "x"], "env": {"K": "v"}}"#),
            None
        );
        assert_eq!(
            kept(r#"{"type": "stdio", "command": "x", "disabled": true}"#),
            None
        );
        assert_eq!(
            kept(r#"{"command": "x", "env": {"K": "${input:key}"}}"#).unwrap(),
            "its \"env\" uses ${…}, which VS Code expands and the gateway does not"
        );
        assert!(kept(r#"{"command": "x", "args": ["${workspaceFolder}"]}"#).is_some());
        assert!(kept(r#"{"command": "x", "envFile": ".env"}"#).is_some());
        assert!(
            kept(r#"{"command": 5}"#)
                .unwrap()
                .contains("mcpServers.s.command")
        );
        assert!(kept(r#"{"args": []}"#).is_some());
        assert!(kept("[]").is_some());
        assert!(kept(r#"{"type": "ws", "url": "wss://x"}"#).is_some());
        #[cfg(feature = "mcp-http")]
        {
            assert_eq!(
                kept(r#"{"url": "https://x.example/mcp", "headers": {"A": "Bearer ${TOKEN}"}}"#),
                None
            );
            assert_eq!(kept(r#"{"serverUrl": "https://x.example/mcp"}"#), None);
            assert!(
                kept(r#"{"url": "https://x.example/mcp", "headers": {"A": "${env:T}"}}"#).is_some()
            );
        }
        #[cfg(not(feature = "mcp-http"))]
        assert!(
            kept(r#"{"url": "https://x.example/mcp"}"#)
                .unwrap()
                .contains("mcp-http")
        );
    }

    #[test]
    fn secrets_are_hidden() {
        let shown =
            masked(r#"{"command": "gh", "env": {"GITHUB_TOKEN": "ghp_secret"}, "args": ["a"]}"#);
        assert_eq!(
            shown,
            r#"{"command":"gh","env":{"GITHUB_TOKEN":"<hidden>"},"args":["a"]}"#
        );
        let shown = masked(
            r#"{"url": "https://me:pw@x.example/mcp?key=k1", "headers": {"Authorization": "Bearer t"}}"#,
        );
        assert_eq!(
            shown,
            r#"{"url":"https://<hidden>@x.example/mcp?<hidden>","headers":{"Authorization":"<hidden>"}}"#
        );
        assert_eq!(masked_url("https://x.example/mcp"), "https://x.example/mcp");
    }
}
