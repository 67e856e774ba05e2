//! Protocol revision 2026-07-28 (the "modern" era) on the stdio front, translated to and from
//! the servers behind the proxy, which speak 2025-11-25 or older (the "legacy" era).
//!
//! - A request is modern when its `params._meta` carries `io.modelcontextprotocol/protocolVersion`
//!   (`initialize` never is): `// 2026-07-28 basic/versioning` ("Era detection"). Each
//!   request is judged on its own; a 2025-11-25 client's conversation is not touched.
//! - Before forwarding, the modern `_meta` keys and the round-trip fields (`inputResponses`,
//!   `requestState`) are taken out: a legacy server knows none of them
//!   ([`legacy_params`]).
//! - Every modern result gets `resultType`, and the cacheable ones `ttlMs`/`cacheScope`
//!   (`// 2026-07-28 server/utilities/caching`): `0` and `"private"`, the safe values, since
//!   the proxy cannot know how long a server's list stays true or whether it depends on the
//!   user ([`complete_reply`]). A legacy server's `-32002` (resource not found) becomes
//!   `-32602` (`// 2026-07-28 changelog`).
//! - A revision the proxy does not serve is refused with `-32022` and the supported list
//!   ([`unsupported`]); a request missing a required `_meta` key with `-32602`.
//!
//! Messages stay text: objects are rebuilt from their entries, each value as it came.

use crate::mcp::proxy::transport::wire::{self, Message, code};
use crate::mcp::raw;

/// Revisions a client may ask for at `initialize`; the proxy answers with the one asked.
/// Revision 2026-07-28, which has no `initialize`, is served too ([`MODERN_VERSIONS`]).
pub const SUPPORTED_PROTOCOL_VERSIONS: &[&str] =
    &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The modern revisions the proxy serves.
pub const MODERN_VERSIONS: &[&str] = &["2026-07-28"];

/// Every revision the proxy serves, newest first: 2026-07-28 per request, the others with an
/// `initialize` session. The one list `server/discover`'s `supportedVersions` and every
/// `-32022`'s `data.supported` give, so that the two never disagree
/// (`// 2026-07-28 basic/versioning` "Unsupported versions").
pub(crate) fn served_versions() -> impl Iterator<Item = &'static str> {
    MODERN_VERSIONS
        .iter()
        .chain(SUPPORTED_PROTOCOL_VERSIONS)
        .copied()
}

pub(crate) use crate::mcp::proxy::transport::wire::meta::{
    CAPABILITIES_KEY, LOG_LEVEL_KEY, SERVER_INFO_KEY, SUBSCRIPTION_ID_KEY, VERSION_KEY,
};

/// What a request's `_meta` says of its revision.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Envelope {
    /// No modern envelope: served as the proxy always has (2025-11-25 and older).
    Legacy,
    /// A modern request of a revision the proxy serves.
    Modern(Declared),
    /// A modern request of a revision the proxy does not serve: its version as sent.
    Unsupported(String),
    /// A modern request the spec calls malformed (`-32602`): why.
    Malformed(String),
}

/// What a modern request declares about itself.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Declared {
    /// Its `clientCapabilities` (JSON text, as sent).
    pub capabilities: String,
    /// The log level it opts in to, if any.
    pub log_level: Option<String>,
}

/// Whether the capabilities `capabilities` (JSON text) declare `name` (as an object).
pub(crate) fn declares(capabilities: &str, name: &str) -> bool {
    raw::entries(capabilities)
        .and_then(|e| raw::get(&e, name).map(|v| v.trim_start().starts_with('{')))
        .unwrap_or(false)
}

/// The era of a request (`// 2026-07-28 basic/versioning`, `basic/index` "Request metadata").
/// An `initialize` is modern only with the modern envelope (a client negotiating an older
/// revision sends none), and is then a removed method ([`legacy_only`]).
pub(crate) fn envelope(_method: &str, params: Option<&str>) -> Envelope {
    let Some(meta) = params
        .and_then(raw::entries)
        .and_then(|e| raw::get(&e, "_meta").map(|m| m.to_owned()))
    else {
        return Envelope::Legacy;
    };
    let Some(entries) = raw::entries(&meta) else {
        return Envelope::Legacy;
    };
    let Some(version) = raw::get(&entries, VERSION_KEY) else {
        return Envelope::Legacy;
    };
    let Some(version) = raw::string(version) else {
        return Envelope::Malformed(format!("params._meta[{VERSION_KEY:?}] is not a string"));
    };
    if !MODERN_VERSIONS.contains(&version.as_str()) {
        return Envelope::Unsupported(version);
    }
    let capabilities = raw::get(&entries, CAPABILITIES_KEY)
        .map(|c| c.to_owned())
        .filter(|c| c.trim_start().starts_with('{'));
    let Some(capabilities) = capabilities else {
        return Envelope::Malformed(format!(
            "params._meta is missing the required envelope key {CAPABILITIES_KEY} (an object; \
             {{}} declares none)"
        ));
    };
    Envelope::Modern(Declared {
        capabilities,
        log_level: raw::get(&entries, LOG_LEVEL_KEY).and_then(raw::string),
    })
}

/// The `-32022` answer to a revision the proxy does not serve, naming every revision it does
/// (`// 2026-07-28 basic/versioning` "Unsupported versions").
pub(crate) fn unsupported(id: &str, requested: &str) -> String {
    let supported: Vec<String> = served_versions().map(raw::quote).collect();
    let data = format!(
        r#"{{"supported":[{}],"requested":{}}}"#,
        supported.join(","),
        raw::quote(requested)
    );
    wire::error(
        id,
        code::UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
        Some(&data),
    )
}

/// Whether a modern method's complete results are cacheable (they then need `ttlMs` and
/// `cacheScope`: `// 2026-07-28 server/utilities/caching`).
pub(crate) fn cacheable(method: &str) -> bool {
    matches!(
        method,
        "server/discover"
            | "tools/list"
            | "prompts/list"
            | "resources/list"
            | "resources/templates/list"
            | "resources/read"
    )
}

/// Methods of the legacy era only: a modern client asking for them gets `-32601`
/// (`// 2026-07-28 changelog`: `ping`, `logging/setLevel`, `resources/subscribe` and
/// `resources/unsubscribe` are removed; `subscriptions/listen` and per-request `logLevel`
/// replace the last three; `initialize` gave way to per-request `_meta` and `server/discover`).
pub(crate) fn legacy_only(method: &str) -> bool {
    matches!(
        method,
        "initialize"
            | "ping"
            | "logging/setLevel"
            | "resources/subscribe"
            | "resources/unsubscribe"
            // Moved to the `io.modelcontextprotocol/tasks` extension, which the proxy does
            // not offer 2026-07-28 clients.
            | "tasks/get"
            | "tasks/result"
            | "tasks/list"
            | "tasks/cancel"
    )
}

/// An object (JSON text) rebuilt from its entries: those `keep` accepts, each value as it
/// came, then `extra` entries (`"key":value` text) at the end.
fn rebuild(entries: &[raw::Member<'_>], keep: impl Fn(&str) -> bool, extra: &[String]) -> String {
    let mut parts: Vec<String> = entries
        .iter()
        .filter(|e| keep(&e.key))
        .map(|e| format!("{}:{}", raw::quote(&e.key), e.value))
        .collect();
    parts.extend(extra.iter().cloned());
    format!("{{{}}}", parts.join(","))
}

/// A modern request's params as a legacy server takes them: without the
/// `io.modelcontextprotocol/…` keys of `_meta` (and without `_meta` when nothing else is in
/// it) and without `inputResponses`/`requestState`; every other entry as sent.
pub(crate) fn legacy_params(params: &str) -> String {
    let Some(entries) = raw::entries(params) else {
        return params.to_owned();
    };
    let modern = |k: &str| k.starts_with("io.modelcontextprotocol/");
    // `None`: `_meta` stays as it came (absent, or without modern keys); `Some(None)`: it
    // goes (nothing else was in it); `Some(Some(text))`: it is replaced.
    let meta: Option<Option<String>> = raw::get(&entries, "_meta")
        .and_then(|m| raw::entries(m))
        .filter(|inner| inner.iter().any(|e| modern(&e.key)))
        .map(|inner| {
            inner
                .iter()
                .any(|e| !modern(&e.key))
                .then(|| rebuild(&inner, |k| !modern(k), &[]))
        });
    // The retry's fields, and `task`: revision 2026-07-28 has tasks only as an extension the
    // proxy does not offer, so a stray `task` must not create one nobody can reach.
    let round_trip = |k: &str| matches!(k, "inputResponses" | "requestState" | "task");
    match meta {
        None if !entries.iter().any(|e| round_trip(&e.key)) => params.to_owned(),
        None => rebuild(&entries, |k| !round_trip(k), &[]),
        Some(None) => rebuild(&entries, |k| !round_trip(k) && k != "_meta", &[]),
        Some(Some(kept)) => rebuild(
            &entries,
            |k| !round_trip(k) && k != "_meta",
            &[format!(r#""_meta":{kept}"#)],
        ),
    }
}

/// What identifies a modern request across its rounds: its params without `_meta`,
/// `inputResponses` and `requestState`, read as JSON (for comparing, never forwarded).
pub(crate) fn fingerprint(params: &str) -> serde_json::Value {
    let mut value: serde_json::Value = serde_json::from_str(params).unwrap_or_default();
    if let Some(object) = value.as_object_mut() {
        for key in ["_meta", "inputResponses", "requestState"] {
            object.remove(key);
        }
    }
    value
}

/// `result` (a JSON object as text) with `resultType: "complete"` first, and for a
/// cacheable method `ttlMs: 0` and `cacheScope: "private"`, unless it has them already.
pub(crate) fn complete(result: &str, cacheable: bool) -> String {
    // A result that is not an object (which a server should not send) is passed on as sent:
    // nothing is put into an array's first element.
    let Some(entries) = raw::entries(result) else {
        return result.to_owned();
    };
    let has = |k: &str| raw::get(&entries, k).is_some();
    let mut added = Vec::new();
    if !has("resultType") {
        added.push(r#""resultType":"complete""#);
    }
    if cacheable {
        if !has("ttlMs") {
            added.push(r#""ttlMs":0"#);
        }
        if !has("cacheScope") {
            added.push(r#""cacheScope":"private""#);
        }
    }
    prepend(result, &added.join(","))
}

/// `members` (`"k":v,…` text) put first in the object `object` (JSON text).
pub(crate) fn prepend(object: &str, members: &str) -> String {
    if members.is_empty() {
        return object.to_owned();
    }
    let Some(open) = object.find('{') else {
        return object.to_owned();
    };
    let rest = &object[open + 1..];
    let comma = if rest.trim_start().starts_with('}') {
        ""
    } else {
        ","
    };
    format!("{}{{{members}{comma}{rest}", &object[..open])
}

/// A reply (a whole JSON-RPC response line) for a modern client, under `id`: a result
/// completed as [`complete`] says; an error as sent but `-32002` as `-32602`, with the
/// resource's URI in `data.uri` (`// 2026-07-28 changelog`, SEP-2164), `uri` being the
/// request's.
pub(crate) fn complete_reply(reply: &str, id: &str, method: &str, uri: Option<&str>) -> String {
    let Ok(message) = Message::parse(reply.to_owned()) else {
        return reply.to_owned();
    };
    if let Some(result) = message.result() {
        return wire::response(id, &complete(result, cacheable(method)));
    }
    let Some(error) = message.error() else {
        return reply.to_owned();
    };
    let error = not_found_as_invalid_params(error, uri);
    format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{error}}}"#)
}

/// A legacy server's `-32002` error object as 2026-07-28's `-32602`, its `data.uri` added
/// when the server gave none (any other error as sent).
fn not_found_as_invalid_params(error: &str, uri: Option<&str>) -> String {
    let entries = raw::entries(error).unwrap_or_default();
    let Some(code) =
        raw::get(&entries, "code").filter(|c| *c == code::RESOURCE_NOT_FOUND.to_string())
    else {
        return error.to_owned();
    };
    let mut splice = raw::Splice::new(error);
    splice.replace(code, code::INVALID_PARAMS.to_string());
    if let Some(uri) = uri {
        match raw::get(&entries, "data") {
            None => splice.set(
                error,
                &entries,
                "data",
                format!(r#"{{"uri":{}}}"#, raw::quote(uri)),
            ),
            Some(data) => {
                let data_entries = raw::entries(data).unwrap_or_default();
                if data.trim_start().starts_with('{') && raw::get(&data_entries, "uri").is_none() {
                    let mut inner = raw::Splice::new(data);
                    inner.set(data, &data_entries, "uri", raw::quote(uri));
                    splice.replace(data, inner.finish());
                }
            }
        }
    }
    splice.finish()
}

/// `Some` request params with the modern envelope a test or a client would send.
#[cfg(test)]
fn enveloped(version: &str, capabilities: &str) -> String {
    format!(
        r#"{{"name":"x","_meta":{{"progressToken":7,"{VERSION_KEY}":"{version}","{CAPABILITIES_KEY}":{capabilities}}}}}"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_envelope_decides_the_era() {
        assert_eq!(envelope("tools/list", None), Envelope::Legacy);
        assert_eq!(
            envelope("tools/list", Some(r#"{"_meta":{"progressToken":1}}"#)),
            Envelope::Legacy
        );
        let modern = enveloped("2026-07-28", r#"{"sampling":{}}"#);
        assert!(matches!(
            envelope("initialize", Some(&modern)),
            Envelope::Modern(_)
        ));
        assert_eq!(
            envelope("initialize", Some(r#"{"protocolVersion":"2025-11-25"}"#)),
            Envelope::Legacy
        );
        let Envelope::Modern(m) = envelope("tools/call", Some(&modern)) else {
            panic!()
        };
        assert!(declares(&m.capabilities, "sampling") && !declares(&m.capabilities, "roots"));
        assert_eq!(
            envelope("tools/call", Some(&enveloped("1900-01-01", "{}"))),
            Envelope::Unsupported("1900-01-01".into())
        );
        let missing = format!(r#"{{"_meta":{{"{VERSION_KEY}":"2026-07-28"}}}}"#);
        assert!(matches!(
            envelope("tools/list", Some(&missing)),
            Envelope::Malformed(_)
        ));
    }

    #[test]
    fn a_legacy_server_gets_no_modern_field() {
        let modern = enveloped("2026-07-28", "{}");
        assert_eq!(
            legacy_params(&modern),
            r#"{"name":"x","_meta":{"progressToken":7}}"#
        );
        let only = format!(
            r#"{{"uri":"a://1","requestState":"s","inputResponses":{{}},"_meta":{{"{VERSION_KEY}":"2026-07-28"}}}}"#
        );
        assert_eq!(legacy_params(&only), r#"{"uri":"a://1"}"#);
        let legacy = r#"{"n": 1.000000000000000000001, "_meta": {"progressToken": 1}}"#;
        assert_eq!(legacy_params(legacy), legacy);
    }

    #[test]
    fn results_are_completed_and_errors_translated() {
        assert_eq!(complete("{}", false), r#"{"resultType":"complete"}"#);
        assert_eq!(
            complete(r#"{"tools":[]}"#, true),
            r#"{"resultType":"complete","ttlMs":0,"cacheScope":"private","tools":[]}"#
        );
        assert_eq!(
            complete(
                r#"{"resultType":"complete","ttlMs":5,"cacheScope":"public"}"#,
                true
            ),
            r#"{"resultType":"complete","ttlMs":5,"cacheScope":"public"}"#
        );
        assert_eq!(complete(r#"[{"a":1}]"#, true), r#"[{"a":1}]"#);
        assert_eq!(complete("5", false), "5");
        let reply = r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32002,"message":"no"}}"#;
        assert_eq!(
            complete_reply(reply, "9", "resources/read", None),
            r#"{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"no"}}"#
        );
        assert_eq!(
            complete_reply(reply, "9", "resources/read", Some("file:///a")),
            r#"{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"no","data":{"uri":"file:///a"}}}"#
        );
        let with_data =
            r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32002,"message":"no","data":{"why":1}}}"#;
        assert_eq!(
            complete_reply(with_data, "9", "resources/read", Some("x:y")),
            r#"{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"no","data":{"why":1,"uri":"x:y"}}}"#
        );
        let own_uri = r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32002,"message":"no","data":{"uri":"s:1"}}}"#;
        assert_eq!(
            complete_reply(own_uri, "9", "resources/read", Some("x:y")),
            r#"{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"no","data":{"uri":"s:1"}}}"#
        );
        let reply = r#"{"jsonrpc":"2.0","id":0,"result":{"contents":[]}}"#;
        assert_eq!(
            complete_reply(reply, "\"a\"", "resources/read", None),
            r#"{"jsonrpc":"2.0","id":"a","result":{"resultType":"complete","ttlMs":0,"cacheScope":"private","contents":[]}}"#
        );
        let refused: serde_json::Value =
            serde_json::from_str(&unsupported("1", "1900-01-01")).unwrap();
        assert_eq!(refused["error"]["code"], -32022);
        assert_eq!(refused["error"]["data"]["supported"][0], "2026-07-28");
        assert_eq!(refused["error"]["data"]["requested"], "1900-01-01");
    }
}
