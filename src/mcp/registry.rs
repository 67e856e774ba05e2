//! A catalog kept current: servers are listed through a [`ToolSource`] (following
//! `nextCursor`), and re-listed after they send `notifications/tools/list_changed`.
//!
//! Names come first and schemas on demand: the catalog reads only each tool's name,
//! description and annotations when a listing arrives, parses a schema the first time a view,
//! a search or a validation needs it, and keeps the parsed schema until the server's tools
//! change.

use serde_json::Value as Json;

use super::catalog::Catalog;
use super::error::{Error, Result};

/// The notification a server sends when its tool list changed.
pub const LIST_CHANGED: &str = "notifications/tools/list_changed";

/// A listing is followed through at most this many `nextCursor` pages; the tools of those
/// pages are kept, with a warning that the listing was cut here.
pub const MAX_PAGES: usize = 100;

/// What [`ToolSource::list_tools`] gives: a page's JSON text, or why there is none (any error;
/// a text converts into one with `into`).
pub type ListingResult =
    std::result::Result<String, Box<dyn std::error::Error + Send + Sync + 'static>>;

/// Where a [`Registry`] gets `tools/list` results: an MCP client session, a cache, a test.
pub trait ToolSource {
    /// One page of `server`'s `tools/list` result as JSON text (`cursor` from the previous
    /// page's `nextCursor`).
    ///
    /// # Errors
    /// Why the server could not be listed, any error (a text is one: `"closed".into()`); the
    /// server is then marked unavailable with its message, and the registry's
    /// [`Error::Listing`] keeps it as its source.
    fn list_tools(&mut self, server: &str, cursor: Option<&str>) -> ListingResult;
}

/// A [`Catalog`] with the servers whose tools are out of date.
///
/// ```
/// use toon::mcp::{ListingResult, Registry, ToolSource};
/// struct Fixed(&'static str);
/// impl ToolSource for Fixed {
///     fn list_tools(&mut self, _: &str, _: Option<&str>) -> ListingResult {
///         Ok(self.0.to_owned())
///     }
/// }
/// let mut registry = Registry::new();
/// registry.load("fs", &mut Fixed(r#"{"tools": [{"name": "read_file"}]}"#))?;
/// assert!(registry.catalog().get("read_file").is_some());
/// let note = serde_json::json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"});
/// assert!(registry.on_message("fs", &note));
/// registry.refresh(&mut Fixed(r#"{"tools": [{"name": "write_file"}]}"#));
/// assert!(registry.catalog().get("write_file").is_some());
/// # Ok::<(), toon::mcp::Error>(())
/// ```
#[derive(Debug, Default)]
pub struct Registry {
    catalog: Catalog,
    stale: Vec<String>,
}

impl Registry {
    /// An empty registry.
    #[must_use]
    pub fn new() -> Self {
        Registry::default()
    }

    /// A registry over an existing catalog (all of it current).
    #[must_use]
    pub fn with_catalog(catalog: Catalog) -> Self {
        Registry {
            catalog,
            stale: Vec::new(),
        }
    }

    /// The catalog as it stands (stale servers keep their old tools until refreshed).
    #[must_use]
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The catalog, to add or remove servers directly.
    pub fn catalog_mut(&mut self) -> &mut Catalog {
        &mut self.catalog
    }

    /// Servers waiting to be re-listed.
    #[must_use]
    pub fn stale(&self) -> &[String] {
        &self.stale
    }

    /// Marks `server` as out of date.
    pub fn mark_stale(&mut self, server: &str) {
        if !self.stale.iter().any(|s| s == server) {
            self.stale.push(server.to_owned());
        }
    }

    /// Looks at a JSON-RPC message from `server`; if it is `notifications/tools/list_changed`,
    /// marks the server stale and returns `true`.
    pub fn on_message(&mut self, server: &str, message: &Json) -> bool {
        let changed = message.get("method").and_then(Json::as_str) == Some(LIST_CHANGED);
        if changed {
            self.mark_stale(server);
        }
        changed
    }

    /// Lists `server` now (every page) and puts its tools in the catalog.
    ///
    /// # Errors
    /// When the source fails or sends something that is not a `tools/list` result; the server
    /// is then in the catalog as unavailable with that reason.
    pub fn load(&mut self, server: &str, source: &mut impl ToolSource) -> Result<()> {
        let outcome = list_all(server, source).and_then(|pages| {
            let refs: Vec<&str> = pages.iter().map(String::as_str).collect();
            self.catalog.add_server_pages(server, &refs).map(|_| ())
        });
        self.stale.retain(|s| s != server);
        if let Err(e) = &outcome {
            self.catalog.add_unavailable(server, &e.to_string());
        }
        outcome
    }

    /// Re-lists every stale server; returns the ones that failed (now unavailable) with why.
    /// One failing server does not stop the others.
    pub fn refresh(&mut self, source: &mut impl ToolSource) -> Vec<(String, Error)> {
        let mut failed = Vec::new();
        for server in std::mem::take(&mut self.stale) {
            if let Err(e) = self.load(&server, source) {
                failed.push((server, e));
            }
        }
        failed
    }
}

fn list_all(server: &str, source: &mut impl ToolSource) -> Result<Vec<String>> {
    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = source
            .list_tools(server, cursor.as_deref())
            .map_err(|source| Error::Listing {
                server: server.to_owned(),
                source,
            })?;
        let next = serde_json::from_str::<Json>(&page).ok().and_then(|v| {
            v.get("nextCursor")
                .and_then(Json::as_str)
                .map(str::to_owned)
        });
        pages.push(page);
        match next_cursor(server, pages.len(), cursor.as_deref(), next)? {
            Some(next) => cursor = Some(next),
            None => return Ok(pages),
        }
    }
}

/// The cursor to ask for after `pages` pages of `server`'s listing, the last one asked with
/// `previous` and answering `next`; `None` when the listing is complete, or when it has reached
/// [`MAX_PAGES`]: what was listed is kept, and the catalog warns that the rest is missing
/// because of this limit (see [`Catalog::add_server_pages`]).
///
/// # Errors
/// A cursor repeated (a server looping).
pub(crate) fn next_cursor(
    server: &str,
    pages: usize,
    previous: Option<&str>,
    next: Option<String>,
) -> Result<Option<String>> {
    match next {
        Some(_) if pages >= MAX_PAGES => Ok(None),
        Some(next) if previous == Some(next.as_str()) => Err(Error::CursorLoop {
            server: server.to_owned(),
            cursor: next,
        }),
        next => Ok(next),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Serves pages `{"tools":[{"name":"tN"}],"nextCursor":"N+1"}` up to `pages`, and fails
    /// for the server named `down`.
    struct Paged {
        pages: usize,
        calls: usize,
    }

    impl ToolSource for Paged {
        fn list_tools(&mut self, server: &str, cursor: Option<&str>) -> ListingResult {
            self.calls += 1;
            if server == "down" {
                return Err("connection closed".into());
            }
            let n: usize = cursor.map_or(0, |c| c.parse().unwrap());
            let next = if n + 1 < self.pages {
                format!(r#","nextCursor":"{}""#, n + 1)
            } else {
                String::new()
            };
            Ok(format!(r#"{{"tools":[{{"name":"{server}{n}"}}]{next}}}"#))
        }
    }

    #[test]
    fn follows_cursors_and_isolates_failures() {
        let mut source = Paged { pages: 3, calls: 0 };
        let mut registry = Registry::new();
        registry.load("a", &mut source).unwrap();
        assert_eq!(registry.catalog().len(), 3);
        registry.mark_stale("down");
        registry.mark_stale("b");
        let failed = registry.refresh(&mut source);
        assert_eq!(failed.len(), 1);
        assert!(failed[0].1.to_string().contains("connection closed"));
        assert_eq!(registry.catalog().len(), 6);
        assert!(registry.stale().is_empty());
        let down = &registry.catalog().servers()[1];
        assert!(
            matches!(down.status(), super::super::Status::Unavailable(r) if r.contains("closed"))
        );
    }

    #[test]
    fn endless_or_looping_cursors_stop() {
        let mut source = Paged {
            pages: 1000,
            calls: 0,
        };
        let mut registry = Registry::new();
        // Cut at the proxy's own limit: the pages listed are kept, and the cut is said.
        registry.load("a", &mut source).unwrap();
        assert_eq!(source.calls, MAX_PAGES);
        assert_eq!(registry.catalog().len(), MAX_PAGES);
        let a = registry.catalog().server("a").unwrap();
        assert_eq!(a.status(), &super::super::Status::Ready);
        assert_eq!(
            a.warnings(),
            [
                "stopped listing after 100 pages: the proxy's limit; tools on later pages are missing"
            ]
        );
        struct Loop;
        impl ToolSource for Loop {
            fn list_tools(&mut self, _: &str, _: Option<&str>) -> ListingResult {
                Ok(r#"{"tools":[],"nextCursor":"same"}"#.into())
            }
        }
        let err = registry.load("b", &mut Loop).unwrap_err();
        assert!(err.to_string().contains("same cursor"), "{err}");
    }

    #[test]
    fn only_list_changed_marks_stale() {
        let mut registry = Registry::new();
        assert!(!registry.on_message(
            "a",
            &serde_json::json!({"method": "notifications/progress"})
        ));
        assert!(registry.on_message("a", &serde_json::json!({"method": LIST_CHANGED})));
        assert!(registry.on_message("a", &serde_json::json!({"method": LIST_CHANGED})));
        assert_eq!(registry.stale(), ["a"]);
    }
}
