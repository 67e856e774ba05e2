//! `subscriptions/listen` streams of 2026-07-28 clients (`// 2026-07-28
//! basic/patterns/subscriptions`): what each open listen asked for, so that a server's
//! `list_changed` or `resources/updated` reaches the listens that want it, tagged with the
//! listen's id (`_meta["io.modelcontextprotocol/subscriptionId"]`). A 2026-07-28 client gets
//! no other list_changed or resource update: they are only sent on a listen that asked.

use std::sync::Mutex;

use super::era::SUBSCRIPTION_ID_KEY;
use crate::mcp::proxy::sync::lock;
use crate::mcp::proxy::transport::wire;
use crate::mcp::raw;

/// What one listen asked for (`SubscriptionFilter`), or what the proxy honours of it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Filter {
    pub tools: bool,
    pub prompts: bool,
    pub resources: bool,
    /// Resource URIs whose `notifications/resources/updated` it wants.
    pub uris: Vec<String>,
}

impl Filter {
    /// The `notifications` of a `subscriptions/listen` request's params (JSON text).
    pub(crate) fn of_request(params: &str) -> Filter {
        let entries = raw::entries(params).unwrap_or_default();
        let filter = raw::get(&entries, "notifications").map_or("{}", |f| f);
        let entries = raw::entries(filter).unwrap_or_default();
        let flag = |key: &str| raw::get(&entries, key).is_some_and(|v| v == "true");
        let uris = raw::get(&entries, "resourceSubscriptions")
            .and_then(raw::items)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|uri| raw::string(uri.get()))
            .collect();
        Filter {
            tools: flag("toolsListChanged"),
            prompts: flag("promptsListChanged"),
            resources: flag("resourcesListChanged"),
            uris,
        }
    }

    /// As a `SubscriptionFilter` (JSON text): only what is set.
    pub(crate) fn json(&self) -> String {
        let mut parts = Vec::new();
        for (set, key) in [
            (self.tools, "toolsListChanged"),
            (self.prompts, "promptsListChanged"),
            (self.resources, "resourcesListChanged"),
        ] {
            if set {
                parts.push(format!(r#""{key}":true"#));
            }
        }
        if !self.uris.is_empty() {
            let uris: Vec<String> = self.uris.iter().map(|u| raw::quote(u)).collect();
            parts.push(format!(r#""resourceSubscriptions":[{}]"#, uris.join(",")));
        }
        format!("{{{}}}", parts.join(","))
    }
}

/// The open listens of one front: two clients' listens may share an id (the stateless
/// front's POSTs), so each is known by its request's [`Behalf::tag`], unique in the proxy.
///
/// [`Behalf::tag`]: crate::mcp::proxy::transport::peer::Behalf::tag
#[derive(Debug, Default)]
pub(crate) struct Listens {
    open: Mutex<Vec<Listen>>,
}

#[derive(Debug)]
struct Listen {
    tag: u64,
    /// Its id (JSON text), which its notifications carry.
    id: String,
    /// What is honoured of its filter.
    filter: Filter,
    /// Whether its acknowledgement has been sent (nothing goes to it before).
    acked: bool,
}

impl Listens {
    /// Opens listen `id` of request `tag`: the acknowledgement to send first, then to confirm
    /// with [`acknowledged`](Self::acknowledged); until then it is sent nothing, so that the
    /// acknowledgement is the first message with its id.
    pub(crate) fn open(&self, tag: u64, id: &str, honoured: Filter) -> String {
        let ack = format!(
            r#"{{"_meta":{},"notifications":{}}}"#,
            meta(id),
            honoured.json()
        );
        lock(&self.open).push(Listen {
            tag,
            id: id.to_owned(),
            filter: honoured,
            acked: false,
        });
        wire::notification("notifications/subscriptions/acknowledged", Some(&ack))
    }

    /// The listen's acknowledgement has been sent: notifications may follow.
    pub(crate) fn acknowledged(&self, tag: u64) {
        for listen in lock(&self.open).iter_mut().filter(|l| l.tag == tag) {
            listen.acked = true;
        }
    }

    /// Closes a listen: the resource URIs no other open listen still wants.
    pub(crate) fn close(&self, tag: u64) -> Vec<String> {
        let mut open = lock(&self.open);
        let Some(at) = open.iter().position(|l| l.tag == tag) else {
            return Vec::new();
        };
        let closed = open.remove(at);
        closed
            .filter
            .uris
            .into_iter()
            .filter(|uri| !open.iter().any(|l| l.filter.uris.contains(uri)))
            .collect()
    }

    /// Whether any open listen wants `uri`.
    pub(crate) fn watches(&self, uri: &str) -> bool {
        lock(&self.open)
            .iter()
            .any(|l| l.filter.uris.iter().any(|u| u == uri))
    }

    /// The notification `method` (params as JSON text, or none) for every open listen that
    /// wants it, each tagged with its listen's id: by the listen's request tag.
    pub(crate) fn fan_out(&self, method: &str, params: Option<&str>) -> Vec<(u64, String)> {
        let uri = params
            .and_then(raw::entries)
            .and_then(|e| raw::get(&e, "uri").and_then(raw::string));
        lock(&self.open)
            .iter()
            .filter(|l| l.acked)
            .filter(|l| match method {
                "notifications/tools/list_changed" => l.filter.tools,
                "notifications/prompts/list_changed" => l.filter.prompts,
                "notifications/resources/list_changed" => l.filter.resources,
                "notifications/resources/updated" => {
                    uri.as_ref().is_some_and(|uri| l.filter.uris.contains(uri))
                }
                _ => false,
            })
            .map(|l| {
                (
                    l.tag,
                    wire::notification(method, Some(&tagged(params, &l.id))),
                )
            })
            .collect()
    }
}

/// `{"io.modelcontextprotocol/subscriptionId": ID}`.
fn meta(id: &str) -> String {
    format!(r#"{{{}:{id}}}"#, raw::quote(SUBSCRIPTION_ID_KEY))
}

/// A server's notification params with the listen's `_meta` (replacing the server's own).
fn tagged(params: Option<&str>, id: &str) -> String {
    let params = params.unwrap_or("{}");
    let Some(entries) = raw::entries(params) else {
        return format!(r#"{{"_meta":{}}}"#, meta(id));
    };
    let mut parts = vec![format!(r#""_meta":{}"#, meta(id))];
    parts.extend(
        entries
            .iter()
            .filter(|e| e.key != "_meta")
            .map(|e| format!("{}:{}", raw::quote(&e.key), e.value)),
    );
    format!("{{{}}}", parts.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listens_get_what_they_asked_for_under_their_id() {
        let listens = Listens::default();
        let asked = Filter::of_request(
            r#"{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["a://1"]}}"#,
        );
        assert!(asked.tools && !asked.prompts && asked.uris == ["a://1"]);
        let ack = listens.open(1, "\"l1\"", asked);
        assert_eq!(
            ack,
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"l1"},"notifications":{"toolsListChanged":true,"resourceSubscriptions":["a://1"]}}}"#
        );
        assert!(
            listens
                .fan_out("notifications/tools/list_changed", None)
                .is_empty()
        );
        listens.acknowledged(1);
        listens.open(2, "7", Filter::default());
        assert_eq!(
            listens.fan_out("notifications/tools/list_changed", None),
            [(
                1,
                r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"l1"}}}"#
                    .to_owned()
            )]
        );
        assert_eq!(
            listens.fan_out(
                "notifications/resources/updated",
                Some(r#"{"uri":"a://1"}"#)
            ),
            [(
                1,
                r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"l1"},"uri":"a://1"}}"#
                    .to_owned()
            )]
        );
        assert!(
            listens
                .fan_out(
                    "notifications/resources/updated",
                    Some(r#"{"uri":"a://2"}"#)
                )
                .is_empty()
        );
        assert!(listens.watches("a://1"));
        assert_eq!(listens.close(1), ["a://1"]);
        assert!(!listens.watches("a://1"));
    }
}
