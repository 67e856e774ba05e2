//! Everything a client asks of the servers but tools: resources and resource templates,
//! prompts, completion and logging. Lists are merged across the servers that offer them (each
//! server's pages followed, the merged list answered as one page); a request that names a
//! resource, a template or a prompt goes to the server that listed it, as sent but for a
//! prompt's name; results and errors come back as the server sent them (resource contents are
//! document content: never converted).
//!
//! Collisions: a resource URI or a template listed by several servers is listed once and
//! routed to the first of them in configuration order (a warning on stderr names both); a
//! prompt name shared by several servers is exposed as `SERVER__NAME` for each, as tools are.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::mcp::proxy::error::CallError;
use crate::mcp::proxy::log::PROXY;
use crate::mcp::proxy::servers::toolbox::Toolbox;
use crate::mcp::proxy::sync::lock;
use crate::mcp::proxy::transport::wire::code;
use crate::mcp::raw;
use crate::mcp::registry::next_cursor;

/// What the servers listed, for routing requests that name it.
#[derive(Debug, Default)]
pub(crate) struct Routes {
    /// Resource URI → the server that listed it (the first, in configuration order).
    resources: Mutex<HashMap<String, String>>,
    /// URI templates and their servers, in configuration order.
    templates: Mutex<Vec<(String, String)>>,
    /// Prompt name as exposed → its server and the server's own name for it.
    prompts: Mutex<HashMap<String, (String, String)>>,
}

/// Whether [`Routes::answer`] serves `method`.
pub(crate) fn serves(method: &str) -> bool {
    matches!(
        method,
        "resources/list"
            | "resources/templates/list"
            | "resources/read"
            | "resources/subscribe"
            | "resources/unsubscribe"
            | "prompts/list"
            | "prompts/get"
            | "completion/complete"
            | "logging/setLevel"
    )
}

/// The lists [`Routes::answer`] merges.
const LISTS: [&str; 3] = ["resources/list", "resources/templates/list", "prompts/list"];

/// The server capability a method needs (`resources`, `prompts`, `completions`, `logging`).
fn capability(method: &str) -> &'static str {
    match method.split('/').next() {
        Some("prompts") => "prompts",
        Some("completion") => "completions",
        Some("logging") => "logging",
        _ => "resources",
    }
}

/// The running servers whose `initialize` result declares `capability`, in configuration
/// order, with those still starting that declared it when the catalog cache kept their lists
/// (their lists are answered from it until they are up).
pub(crate) fn offering(toolbox: &Toolbox, capability: &str) -> Vec<String> {
    let names: Vec<String> = (toolbox.catalog().servers().iter())
        .map(|s| s.name().to_owned())
        .collect();
    names
        .into_iter()
        .filter(|name| {
            server_declares(toolbox, name, &[capability])
                || toolbox.cached_declares(name, capability)
        })
        .collect()
}

/// Whether the running server `name` declares the capability at `path` in its `initialize`
/// result (`["tasks", "list"]`: `capabilities.tasks.list` is an object, as the spec writes
/// flags that take no value).
pub(crate) fn server_declares(toolbox: &Toolbox, name: &str, path: &[&str]) -> bool {
    toolbox.server(name).is_some_and(|server| {
        let result = server.initialize_result();
        let mut at = &result["capabilities"];
        for key in path {
            at = &at[*key];
        }
        at.is_object()
    })
}

/// The running servers that offer `capability` for a request of `method`: for a list, those up
/// within the start-up grace (a later one comes with a list change); for anything else, once
/// every server has started (what it names may be a later one's). None is `-32601` ("no
/// server behind the proxy offers `what`"), but for a list when the client was answered
/// while servers were still starting: it was told they may come (`Front::capabilities`).
pub(crate) async fn servers_for(
    toolbox: &Toolbox,
    method: &str,
    capability: &str,
    what: &str,
) -> Result<Vec<String>, CallError> {
    let list = LISTS.contains(&method);
    if list {
        toolbox.settled().await;
    } else {
        toolbox.ready().await;
    }
    let servers = offering(toolbox, capability);
    if servers.is_empty() && list && toolbox.answered_early() {
        return Ok(servers);
    }
    if servers.is_empty() {
        return Err(refusal(
            code::METHOD_NOT_FOUND,
            format!("method not found: {method} (no server behind the proxy offers {what})"),
        ));
    }
    Ok(servers)
}

/// A string member of a JSON object (text), or `""`.
fn member(params: &str, key: &str) -> String {
    raw::entries(params)
        .and_then(|e| raw::get(&e, key).and_then(raw::string))
        .unwrap_or_default()
}

impl Routes {
    /// Answers a request of a method [`serves`] gives `true` for: its result as JSON text.
    ///
    /// # Errors
    /// The server's own error as it sent it; no server offering the method (`-32601`); an
    /// unknown prompt or resource (`-32602`); the server unavailable, gone or slow.
    pub(crate) async fn answer(
        &self,
        toolbox: &Toolbox,
        method: &str,
        params: &str,
    ) -> Result<String, CallError> {
        let servers = servers_for(toolbox, method, capability(method), "it").await?;
        match method {
            "resources/list" => Ok(self.list_resources(toolbox, &servers).await),
            "resources/templates/list" => Ok(self.list_templates(toolbox, &servers).await),
            "prompts/list" => Ok(self.list_prompts(toolbox, &servers).await),
            "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
                let uri = member(params, "uri");
                match self.resource_server(toolbox, &servers, &uri).await {
                    Some(server) => forward(toolbox, &server, method, params).await,
                    None => first_success(toolbox, &servers, method, params).await,
                }
            }
            "prompts/get" => {
                let name = member(params, "name");
                let (server, original) = self.prompt(toolbox, &servers, &name).await?;
                let entries = raw::entries(params).unwrap_or_default();
                let mut splice = raw::Splice::new(params);
                if original != name {
                    splice.set(params, &entries, "name", raw::quote(&original));
                }
                forward(toolbox, &server, method, &splice.finish()).await
            }
            "completion/complete" => self.complete(toolbox, &servers, params).await,
            _ => set_level(toolbox, &servers, params).await,
        }
    }

    /// `completion/complete`, to the server of the prompt (`ref/prompt`) or the resource
    /// template (`ref/resource`) it refers to.
    async fn complete(
        &self,
        toolbox: &Toolbox,
        servers: &[String],
        params: &str,
    ) -> Result<String, CallError> {
        let entries = raw::entries(params).unwrap_or_default();
        let reference = raw::get(&entries, "ref").map_or("{}", |r| r);
        let kind = member(reference, "type");
        if kind == "ref/prompt" {
            let name = member(reference, "name");
            let prompts = offering(toolbox, "prompts");
            let (server, original) = self.prompt(toolbox, &prompts, &name).await?;
            let mut splice = raw::Splice::new(params);
            if original != name {
                let inner = raw::entries(reference).unwrap_or_default();
                splice.set(reference, &inner, "name", raw::quote(&original));
            }
            return forward(toolbox, &server, "completion/complete", &splice.finish()).await;
        }
        let uri = member(reference, "uri");
        let resources = offering(toolbox, "resources");
        match self.resource_server(toolbox, &resources, &uri).await {
            Some(server) if servers.contains(&server) => {
                forward(toolbox, &server, "completion/complete", params).await
            }
            _ => first_success(toolbox, servers, "completion/complete", params).await,
        }
    }

    /// Every server's resources, merged (each URI once: the first server's).
    async fn list_resources(&self, toolbox: &Toolbox, servers: &[String]) -> String {
        let mut routes = HashMap::new();
        let mut listed = Vec::new();
        for (server, items) in gather(toolbox, servers, "resources/list", "resources").await {
            for item in items {
                let uri = member(&item, "uri");
                match routes.get(&uri) {
                    Some(first) if *first != server => {
                        tracing::warn!(
                            target: PROXY,
                            server,
                            "resource {uri} is also listed by {first}: it is read there"
                        );
                    }
                    Some(_) => {}
                    None => {
                        routes.insert(uri, server.clone());
                        listed.push(item);
                    }
                }
            }
        }
        *lock(&self.resources) = routes;
        format!(r#"{{"resources":[{}]}}"#, listed.join(","))
    }

    /// Every server's resource templates, merged (each template once: the first server's).
    async fn list_templates(&self, toolbox: &Toolbox, servers: &[String]) -> String {
        let mut routes: Vec<(String, String)> = Vec::new();
        let mut listed = Vec::new();
        let lists = gather(
            toolbox,
            servers,
            "resources/templates/list",
            "resourceTemplates",
        )
        .await;
        for (server, items) in lists {
            for item in items {
                let template = member(&item, "uriTemplate");
                if let Some((_, first)) = routes.iter().find(|(t, _)| *t == template) {
                    if *first != server {
                        tracing::warn!(
                            target: PROXY,
                            server,
                            "resource template {template} is also listed by {first}: it is \
                             read there"
                        );
                    }
                    continue;
                }
                routes.push((template, server.clone()));
                listed.push(item);
            }
        }
        *lock(&self.templates) = routes;
        format!(r#"{{"resourceTemplates":[{}]}}"#, listed.join(","))
    }

    /// Every server's prompts, a name shared by several as `SERVER__NAME` for each.
    async fn list_prompts(&self, toolbox: &Toolbox, servers: &[String]) -> String {
        let mut all: Vec<(String, String, String)> = Vec::new();
        for (server, items) in gather(toolbox, servers, "prompts/list", "prompts").await {
            for item in items {
                all.push((server.clone(), member(&item, "name"), item));
            }
        }
        // A server that lists a name twice: the first kept.
        let mut seen = std::collections::HashSet::new();
        all.retain(|(server, name, _)| {
            let first = seen.insert((server.clone(), name.clone()));
            if !first {
                tracing::warn!(target: PROXY, server, "prompt {name} is listed twice: once kept");
            }
            first
        });
        // Named as tools are: shared names as `SERVER__NAME`, with `_2`… when that is taken.
        let pairs: Vec<(&str, &str)> = all
            .iter()
            .map(|(s, n, _)| (s.as_str(), n.as_str()))
            .collect();
        let exposed_names = crate::mcp::catalog::exposed_names(&pairs);
        let mut routes = HashMap::new();
        let mut listed = Vec::new();
        for ((server, name, item), exposed) in all.iter().zip(exposed_names) {
            if exposed == *name {
                listed.push(item.clone());
            } else {
                let entries = raw::entries(item).unwrap_or_default();
                let mut splice = raw::Splice::new(item);
                splice.set(item, &entries, "name", raw::quote(&exposed));
                listed.push(splice.finish());
            }
            routes.insert(exposed, (server.clone(), name.clone()));
        }
        *lock(&self.prompts) = routes;
        format!(r#"{{"prompts":[{}]}}"#, listed.join(","))
    }

    /// The server and own name of the prompt exposed as `name` (listing again when it is not
    /// known yet).
    async fn prompt(
        &self,
        toolbox: &Toolbox,
        servers: &[String],
        name: &str,
    ) -> Result<(String, String), CallError> {
        if let Some(found) = lock(&self.prompts).get(name).cloned() {
            return Ok(found);
        }
        self.list_prompts(toolbox, servers).await;
        lock(&self.prompts).get(name).cloned().ok_or_else(|| {
            refusal(
                code::INVALID_PARAMS,
                format!("unknown prompt: {name:?} (no server behind the proxy lists it)"),
            )
        })
    }

    /// The server of a resource URI: the one that listed it, else the first whose template
    /// matches it (listing again once when neither is known).
    pub(crate) async fn resource_server(
        &self,
        toolbox: &Toolbox,
        servers: &[String],
        uri: &str,
    ) -> Option<String> {
        if let Some(server) = self.known_resource(uri) {
            return Some(server);
        }
        self.list_resources(toolbox, servers).await;
        self.list_templates(toolbox, servers).await;
        self.known_resource(uri)
    }

    /// The server of the prompt exposed as `name`, when what was listed tells (no listing).
    pub(crate) fn known_prompt(&self, name: &str) -> Option<String> {
        lock(&self.prompts)
            .get(name)
            .map(|(server, _)| server.clone())
    }

    /// The server of a resource URI, when what was listed tells (no listing).
    pub(crate) fn known_resource(&self, uri: &str) -> Option<String> {
        if let Some(server) = lock(&self.resources).get(uri) {
            return Some(server.clone());
        }
        lock(&self.templates)
            .iter()
            .find(|(template, _)| template_matches(template, uri) || template == uri)
            .map(|(_, server)| server.clone())
    }

    /// Forgets what was listed (a server said its list changed).
    pub(crate) fn forget(&self, method: &str) {
        if method == "notifications/prompts/list_changed" {
            lock(&self.prompts).clear();
        } else {
            lock(&self.resources).clear();
            lock(&self.templates).clear();
        }
    }
}

/// A proxy-made error (not a server's).
/// An error of the proxy's own, as a server's would come (`code`, `message`).
pub(crate) fn refusal(code: i64, message: String) -> CallError {
    CallError::Remote {
        server: "proxy".to_owned(),
        code,
        message,
        data: None,
    }
}

/// Sends the request to `server` as it is; its result as sent.
async fn forward(
    toolbox: &Toolbox,
    server: &str,
    method: &str,
    params: &str,
) -> Result<String, CallError> {
    let reply = toolbox.request(server, method, Some(params)).await?;
    Ok(reply.result().unwrap_or("{}").to_owned())
}

/// Tries the servers in order: the first result, else the first server's error.
async fn first_success(
    toolbox: &Toolbox,
    servers: &[String],
    method: &str,
    params: &str,
) -> Result<String, CallError> {
    let mut first = None;
    for server in servers {
        match forward(toolbox, server, method, params).await {
            Ok(result) => return Ok(result),
            Err(e) => {
                first.get_or_insert(e);
            }
        }
    }
    Err(first.unwrap_or_else(|| refusal(code::INVALID_PARAMS, format!("{method}: no server"))))
}

/// `logging/setLevel` to every server that offers logging: `{}` when one took it, else the
/// first error.
async fn set_level(
    toolbox: &Toolbox,
    servers: &[String],
    params: &str,
) -> Result<String, CallError> {
    let mut first = None;
    let mut any = false;
    for server in servers {
        match forward(toolbox, server, "logging/setLevel", params).await {
            Ok(_) => any = true,
            Err(e) => {
                tracing::warn!(target: PROXY, server, "logging/setLevel failed: {e}");
                first.get_or_insert(e);
            }
        }
    }
    match first {
        Some(e) if !any => Err(e),
        _ => Ok("{}".to_owned()),
    }
}

/// Each server's items of a listing (as [`all_items`]), the servers asked at once and
/// answered in their order.
pub(crate) async fn gather(
    toolbox: &Toolbox,
    servers: &[String],
    method: &str,
    key: &str,
) -> Vec<(String, Vec<String>)> {
    let lists = futures_util::future::join_all(
        servers
            .iter()
            .map(|server| all_items(toolbox, server, method, key)),
    )
    .await;
    servers.iter().cloned().zip(lists).collect()
}

/// The items under `key` of every page of a listing from `server` (each as sent); a failed
/// listing is logged and lists what came before it. A server still starting lists what the
/// catalog cache kept of it; a whole listing is kept there.
async fn all_items(toolbox: &Toolbox, server: &str, method: &str, key: &str) -> Vec<String> {
    if let Some(cached) = toolbox.cached_list(server, method) {
        return cached;
    }
    let items = listing(toolbox, server, method, key).await;
    if let Ok(items) = &items {
        toolbox.listed(server, method, items);
    }
    items.unwrap_or_else(|partial| partial)
}

/// [`all_items`] from the server: `Err` with what came before a failure.
async fn listing(
    toolbox: &Toolbox,
    server: &str,
    method: &str,
    key: &str,
) -> Result<Vec<String>, Vec<String>> {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let params = cursor
            .as_ref()
            .map(|c| format!(r#"{{"cursor":{}}}"#, raw::quote(c)));
        let reply = match toolbox.request(server, method, params.as_deref()).await {
            Ok(reply) => reply,
            Err(e) => {
                tracing::warn!(target: PROXY, server, "{method} failed: {e}");
                return Err(items);
            }
        };
        let result = reply.result().unwrap_or("{}");
        let entries = raw::entries(result).unwrap_or_default();
        if let Some(list) = raw::get(&entries, key).and_then(raw::items) {
            items.extend(list.iter().map(|i| i.get().to_owned()));
        }
        let next = raw::get(&entries, "nextCursor").and_then(raw::string);
        pages += 1;
        match next_cursor(server, pages, cursor.as_deref(), next) {
            Ok(Some(next)) => cursor = Some(next),
            Ok(None) => return Ok(items),
            Err(e) => {
                tracing::warn!(target: PROXY, server, "{method}: {e}");
                return Err(items);
            }
        }
    }
}

/// Whether `uri` could come from the URI template `template` (RFC 6570): its literal parts in
/// order, each `{…}` expression standing for any text.
pub(crate) fn template_matches(template: &str, uri: &str) -> bool {
    let mut parts = template.split('{');
    let head = parts.next().unwrap_or_default();
    let Some(mut rest) = uri.strip_prefix(head) else {
        return false;
    };
    let literals: Vec<&str> = parts
        .map(|p| p.split_once('}').map_or("", |(_, literal)| literal))
        .collect();
    let Some((last, middle)) = literals.split_last() else {
        return rest.is_empty();
    };
    for literal in middle {
        if literal.is_empty() {
            continue;
        }
        match rest.find(literal) {
            Some(at) => rest = &rest[at + literal.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_match_by_their_literal_parts() {
        let t = "demo://resource/dynamic/text/{resourceId}";
        assert!(template_matches(t, "demo://resource/dynamic/text/7"));
        assert!(!template_matches(t, "demo://resource/dynamic/blob/7"));
        assert!(template_matches("a://{x}/b/{y}.txt", "a://1/b/2.txt"));
        assert!(!template_matches("a://{x}/b/{y}.txt", "a://1/c/2.txt"));
        assert!(template_matches("a://fixed", "a://fixed"));
        assert!(!template_matches("a://fixed", "a://fixed/more"));
    }
}
