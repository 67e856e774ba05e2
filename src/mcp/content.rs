//! Which tools' results are document content, to reach the model verbatim (see [`Decision`]).
//!
//! A file read, a fetched page, a diff or a blob is text an agent quotes back: as the `oldText`
//! of an edit, in a patch, to another tool. When such a text happens to be JSON (a
//! `package.json`, a pretty-printed `data.json`), converting it to TOON or compact JSON would
//! hand the model a different text from the one on disk, and the edit built from it fails.
//! So the result encoder only sees results of tools that return *data*; a document inside a
//! JSON field stays quotable after conversion (TOON quotes strings as JSON does), so only
//! tools whose whole result may be a document are kept verbatim.
//!
//! The rule reads a tool's definition only (name, description, parameter names,
//! annotations), so it is decided before any call and shown by `toon mcp inspect`. When in
//! doubt it keeps the result verbatim: a missed conversion costs tokens, a wrong one costs
//! the agent's next step. Configuration overrides it both ways ([`Decision::with_policy`]).

use std::fmt;

use super::catalog::Tool;
use super::result::Policy;

/// Whether a tool's results are converted or reach the model as the server sent them, and
/// why in a few words (`reads file content: name read_text_file, parameter path`).
///
/// ```
/// use toon::mcp::{Catalog, Decision, Policy};
/// let mut catalog = Catalog::new();
/// catalog.add_server("fs", r#"{"tools": [
///   {"name": "read_text_file", "inputSchema": {"type": "object",
///     "properties": {"path": {"type": "string"}}}},
///   {"name": "get_file_info", "inputSchema": {"type": "object",
///     "properties": {"path": {"type": "string"}}}}]}"#)?;
/// let read = Decision::of(catalog.get("read_text_file").unwrap());
/// assert!(!read.converts());
/// assert_eq!(read.reason(), "reads file content: name read_text_file, parameter path");
/// let info = Decision::of(catalog.get("get_file_info").unwrap());
/// assert!(info.converts());
/// // Configuration wins: `convert_tools` forces conversion, `exclude_tools` prevents it.
/// let mut policy = Policy::default();
/// policy.convert_tools = vec!["read_text_file".into()];
/// assert!(read.with_policy(&policy, "read_text_file").converts());
/// # Ok::<(), toon::mcp::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Its JSON text blocks go through the result encoder (whose policy may still skip them).
    Convert(String),
    /// Its results reach the model unchanged: they are, or may be, document content.
    Verbatim(String),
}

impl Decision {
    /// What the rule makes of `tool`'s definition, before any configuration.
    #[must_use]
    pub fn of(tool: &Tool) -> Decision {
        rule(tool)
    }

    /// This decision with `policy`'s say for the tool exposed as `exposed`: in
    /// `exclude_tools`, or not in a non-empty `include_tools`, it stays verbatim (as the
    /// encoder would leave it); in `convert_tools` it converts; else the rule stands.
    #[must_use]
    pub fn with_policy(self, policy: &Policy, exposed: &str) -> Decision {
        let listed = |list: &[String]| list.iter().any(|t| t == exposed);
        if listed(&policy.exclude_tools) {
            Decision::Verbatim("listed in exclude_tools".into())
        } else if !policy.include_tools.is_empty() && !listed(&policy.include_tools) {
            Decision::Verbatim("not listed in include_tools".into())
        } else if listed(&policy.convert_tools) {
            Decision::Convert("listed in convert_tools".into())
        } else {
            self
        }
    }

    /// Whether results are converted.
    #[must_use]
    pub fn converts(&self) -> bool {
        matches!(self, Decision::Convert(_))
    }

    /// Why, in a few words.
    #[must_use]
    pub fn reason(&self) -> &str {
        match self {
            Decision::Convert(why) | Decision::Verbatim(why) => why,
        }
    }
}

impl fmt::Display for Decision {
    /// `convert (why)` or `verbatim (why)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = if self.converts() {
            "convert"
        } else {
            "verbatim"
        };
        write!(f, "{what} ({})", self.reason())
    }
}

/// Name words that make a tool a reader: it gets something and hands it over.
const READS: &[&str] = &[
    "read", "get", "fetch", "cat", "show", "view", "open", "download", "load", "retrieve",
    "scrape", "crawl", "browse", "extract", "export",
];

/// Name words for what a reader may hand over that is a document.
const DOCUMENTS: &[&str] = &[
    "file",
    "files",
    "content",
    "contents",
    "text",
    "page",
    "pages",
    "webpage",
    "document",
    "documents",
    "doc",
    "docs",
    "documentation",
    "blob",
    "blobs",
    "source",
    "resource",
    "resources",
    "body",
    "raw",
    "readme",
    "markdown",
    "html",
    "snippet",
    "attachment",
    "article",
    "transcript",
    "url",
];

/// Name words that are documents on their own, whatever the verb (`file_contents`,
/// `page_markdown`).
const DOCUMENTS_ALONE: &[&str] = &[
    "contents",
    "content",
    "markdown",
    "html",
    "readme",
    "blob",
    "raw",
    "transcript",
    "snippet",
];

/// Name words that say the result is data *about* something, not its content
/// (`get_file_info`, `list_directory_with_sizes`, `get-structured-content`).
const DATA: &[&str] = &[
    "info",
    "metadata",
    "meta",
    "stat",
    "stats",
    "status",
    "size",
    "sizes",
    "tree",
    "list",
    "names",
    "count",
    "link",
    "links",
    "structured",
    "history",
    "permissions",
    "schema",
    "tags",
];

/// Name words of tools that change things (their results are reports, not documents).
const WRITES: &[&str] = &[
    "write", "create", "update", "edit", "delete", "remove", "move", "rename", "add", "set", "put",
    "post", "append", "insert", "upload", "commit", "push", "merge", "toggle", "save",
];

/// Words of diffs, which people quote back in patches and edits.
const DIFFS: &[&str] = &["diff", "diffs", "patch", "patches", "blame"];

/// Parameter names (lowercase, without `_` and `-`) that locate a document.
const LOCATORS: &[&str] = &[
    "path",
    "paths",
    "file",
    "files",
    "filepath",
    "filepaths",
    "filename",
    "filenames",
    "relativepath",
    "absolutepath",
    "uri",
    "uris",
    "url",
    "urls",
    "href",
];

/// Description phrases of a reader that hands over content.
const CONTENT_PHRASES: &[&str] = &[
    "contents of",
    "content of",
    "file contents",
    "file content",
    "text of",
    "as markdown",
    "raw text",
    "raw content",
    "source code",
];

fn rule(tool: &Tool) -> Decision {
    let name = tool.original_name();
    let words = words(name);
    let has = |list: &[&str]| words.iter().find(|w| list.contains(&w.as_str()));
    let description = tool
        .description()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    // The first verb decides (`get_commit` reads, `create_or_update_file` writes); a tool
    // that says it is not read-only writes.
    let verb = words
        .iter()
        .find(|w| READS.contains(&w.as_str()) || WRITES.contains(&w.as_str()));
    let writes = verb.is_some_and(|v| WRITES.contains(&v.as_str()))
        || tool.annotations().read_only_hint == Some(false);

    if has(DIFFS).is_some() {
        return Decision::Verbatim(format!("returns a diff: name {name}"));
    }
    if words_of(&description).any(|w| DIFFS.contains(&w)) {
        return Decision::Verbatim(format!("returns a diff: description says {:?}", "diff"));
    }
    if let Some(data) = has(DATA) {
        return Decision::Convert(format!(
            "returns data, not a document: name {name} ({data})"
        ));
    }
    let reads = verb.is_some() && !writes;
    if reads {
        let params = parameters(tool);
        let noun = has(DOCUMENTS);
        let locator = params
            .iter()
            .find(|(_, plain)| LOCATORS.contains(&plain.as_str()));
        let phrase = CONTENT_PHRASES.iter().find(|p| description.contains(*p));
        if noun.is_some() || locator.is_some() || phrase.is_some() {
            let what = match (noun.map(String::as_str), locator.map(|(_, p)| p.as_str())) {
                (_, Some("url" | "urls" | "href")) | (Some("page" | "webpage" | "html"), _) => {
                    "reads web content"
                }
                (_, Some("uri" | "uris")) | (Some("resource" | "resources"), _) => {
                    "reads a resource"
                }
                (Some("file" | "files"), _) | (_, Some(_)) => "reads file content",
                _ => "reads document content",
            };
            let mut evidence = vec![format!("name {name}")];
            if let Some((param, _)) = locator {
                evidence.push(format!("parameter {param}"));
            }
            if let (None, None, Some(phrase)) = (noun, locator, phrase) {
                evidence.push(format!("description says {phrase:?}"));
            }
            return Decision::Verbatim(format!("{what}: {}", evidence.join(", ")));
        }
        return Decision::Convert(format!("reads data, not a document: name {name}"));
    }
    if !writes && let Some(noun) = has(DOCUMENTS_ALONE) {
        return Decision::Verbatim(format!("returns document content: name {name} ({noun})"));
    }
    Decision::Convert("no sign of document content".into())
}

/// The lowercase words of a name: split at anything not a letter or digit, and where a
/// lowercase letter meets an uppercase one (`readFile` → `read`, `file`).
fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if (!c.is_alphanumeric() || (c.is_uppercase() && previous_lower)) && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        if c.is_alphanumeric() {
            word.extend(c.to_lowercase());
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// The words of a (lowercase) text.
fn words_of(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

/// Top-level parameter names, each with its plain form (lowercase, no `_` or `-`).
fn parameters(tool: &Tool) -> Vec<(String, String)> {
    let Ok(schema) = tool.input_schema() else {
        return Vec::new();
    };
    let Some(properties) = schema.get("properties").and_then(|p| p.as_object()) else {
        return Vec::new();
    };
    properties
        .keys()
        .map(|k| {
            let plain = k
                .chars()
                .filter(|c| *c != '_' && *c != '-')
                .collect::<String>()
                .to_lowercase();
            (k.to_string(), plain)
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::mcp::Catalog;

    /// The captured tool lists of seven real servers (`tests/fixtures/mcp/lists`), for this
    /// module's tests and the meta-tools'.
    pub(crate) const LISTS: &[(&str, &str)] = &[
        (
            "everything",
            include_str!("../../tests/fixtures/mcp/lists/everything.json"),
        ),
        (
            "fetch",
            include_str!("../../tests/fixtures/mcp/lists/fetch.json"),
        ),
        (
            "filesystem",
            include_str!("../../tests/fixtures/mcp/lists/filesystem.json"),
        ),
        (
            "git",
            include_str!("../../tests/fixtures/mcp/lists/git.json"),
        ),
        (
            "memory",
            include_str!("../../tests/fixtures/mcp/lists/memory.json"),
        ),
        (
            "seqthink",
            include_str!("../../tests/fixtures/mcp/lists/seqthink.json"),
        ),
        (
            "time",
            include_str!("../../tests/fixtures/mcp/lists/time.json"),
        ),
    ];

    /// `V` verbatim, `C` convert.
    const V: bool = false;
    const C: bool = true;

    /// Every tool of those lists, and what its results should get. A rule change that flips
    /// one shows here.
    const EXPECTED: &[(&str, &str, bool)] = &[
        ("everything", "echo", C),
        ("everything", "get-annotated-message", C),
        ("everything", "get-env", C),
        ("everything", "get-resource-links", C),
        ("everything", "get-resource-reference", V),
        ("everything", "get-structured-content", C),
        ("everything", "get-sum", C),
        ("everything", "get-tiny-image", C),
        ("everything", "gzip-file-as-resource", C),
        ("everything", "toggle-simulated-logging", C),
        ("everything", "toggle-subscriber-updates", C),
        ("everything", "trigger-long-running-operation", C),
        ("everything", "simulate-research-query", C),
        ("fetch", "fetch", V),
        ("filesystem", "read_file", V),
        ("filesystem", "read_text_file", V),
        ("filesystem", "read_media_file", V),
        ("filesystem", "read_multiple_files", V),
        ("filesystem", "write_file", C),
        ("filesystem", "edit_file", V),
        ("filesystem", "create_directory", C),
        ("filesystem", "list_directory", C),
        ("filesystem", "list_directory_with_sizes", C),
        ("filesystem", "directory_tree", C),
        ("filesystem", "move_file", C),
        ("filesystem", "search_files", C),
        ("filesystem", "get_file_info", C),
        ("filesystem", "list_allowed_directories", C),
        ("git", "git_status", C),
        ("git", "git_diff_unstaged", V),
        ("git", "git_diff_staged", V),
        ("git", "git_diff", V),
        ("git", "git_commit", C),
        ("git", "git_add", C),
        ("git", "git_reset", C),
        ("git", "git_log", C),
        ("git", "git_create_branch", C),
        ("git", "git_checkout", C),
        ("git", "git_show", V),
        ("git", "git_branch", C),
        ("memory", "create_entities", C),
        ("memory", "create_relations", C),
        ("memory", "add_observations", C),
        ("memory", "delete_entities", C),
        ("memory", "delete_observations", C),
        ("memory", "delete_relations", C),
        ("memory", "read_graph", C),
        ("memory", "search_nodes", C),
        ("memory", "open_nodes", C),
        ("seqthink", "sequentialthinking", C),
        ("time", "get_current_time", C),
        ("time", "convert_time", C),
    ];

    /// Tools of other real servers, as they define them (name, description's start,
    /// parameters), and what their results should get.
    const OTHERS: &[(&str, &str, &[&str], bool)] = &[
        // github/github-mcp-server
        (
            "get_file_contents",
            "Get the contents of a file or directory from a GitHub repository",
            &["owner", "repo", "path", "ref", "sha"],
            V,
        ),
        (
            "get_pull_request_diff",
            "Get the diff of a pull request.",
            &["owner", "repo", "pullNumber"],
            V,
        ),
        (
            "get_pull_request_files",
            "Get the files changed in a specific pull request.",
            &["owner", "repo", "pullNumber"],
            V,
        ),
        (
            "get_commit",
            "Get details for a commit from a GitHub repository",
            &["owner", "repo", "sha"],
            C,
        ),
        (
            "list_commits",
            "Get list of commits of a branch in a GitHub repository.",
            &["owner", "repo", "sha"],
            C,
        ),
        (
            "get_issue",
            "Get details of a specific issue in a GitHub repository.",
            &["owner", "repo", "issue_number"],
            C,
        ),
        (
            "search_code",
            "Fast and precise code search across ALL GitHub repositories",
            &["query"],
            C,
        ),
        (
            "get_me",
            "Get details of the authenticated GitHub user.",
            &[],
            C,
        ),
        (
            "create_or_update_file",
            "Create or update a single file in a GitHub repository.",
            &["owner", "repo", "path", "content", "message", "branch"],
            C,
        ),
        // Other common servers.
        (
            "firecrawl_scrape",
            "Scrape content from a single URL with advanced options.",
            &["url", "formats"],
            V,
        ),
        (
            "tavily-extract",
            "A powerful web content extraction tool that retrieves and processes raw content from specified URLs",
            &["urls"],
            V,
        ),
        (
            "brave_web_search",
            "Performs a web search using the Brave Search API",
            &["query", "count"],
            C,
        ),
        (
            "get-library-docs",
            "Fetches up-to-date documentation for a library.",
            &["context7CompatibleLibraryID", "topic"],
            V,
        ),
        ("read_resource", "Read a resource by its URI.", &["uri"], V),
        (
            "read_query",
            "Execute a SELECT query on the SQLite database",
            &["query"],
            C,
        ),
        (
            "get_channel_history",
            "Get recent messages from a channel",
            &["channel_id", "limit"],
            C,
        ),
        (
            "get_transcript",
            "Extract the transcript of a YouTube video",
            &["url", "lang"],
            V,
        ),
        (
            "read_documentation",
            "Fetch and convert an AWS documentation page to markdown format.",
            &["url"],
            V,
        ),
        ("browser_navigate", "Navigate to a URL", &["url"], C),
    ];

    fn catalog() -> Catalog {
        let mut catalog = Catalog::new();
        for (server, list) in LISTS {
            catalog.add_server(server, list).unwrap();
        }
        let others: Vec<serde_json::Value> = OTHERS
            .iter()
            .map(|(name, description, params, _)| {
                let properties: serde_json::Map<String, serde_json::Value> = params
                    .iter()
                    .map(|p| ((*p).to_owned(), serde_json::json!({"type": "string"})))
                    .collect();
                serde_json::json!({"name": name, "description": description,
                    "inputSchema": {"type": "object", "properties": properties}})
            })
            .collect();
        let list = serde_json::json!({ "tools": others }).to_string();
        catalog.add_server("others", &list).unwrap();
        catalog
    }

    #[test]
    fn names_split_into_words() {
        assert_eq!(words("read_text_file"), ["read", "text", "file"]);
        assert_eq!(words("getFileContents"), ["get", "file", "contents"]);
        assert_eq!(
            words("API-retrieve-a-page"),
            ["api", "retrieve", "a", "page"]
        );
        assert_eq!(words("git_diff2"), ["git", "diff2"]);
    }

    #[test]
    fn configuration_overrides_the_rule_both_ways() {
        let catalog = catalog();
        let read = Decision::of(catalog.get("read_text_file").unwrap());
        let graph = Decision::of(catalog.get("read_graph").unwrap());
        assert!(!read.converts() && graph.converts());
        let policy = Policy {
            convert_tools: vec!["read_text_file".into(), "read_graph".into()],
            exclude_tools: vec!["read_graph".into()],
            ..Policy::default()
        };
        let read = read.with_policy(&policy, "read_text_file");
        assert_eq!(read, Decision::Convert("listed in convert_tools".into()));
        // Never converting wins over converting.
        let graph = graph.with_policy(&policy, "read_graph");
        assert_eq!(graph, Decision::Verbatim("listed in exclude_tools".into()));
        let only = Policy {
            include_tools: vec!["x".into()],
            ..Policy::default()
        };
        let get_time = Decision::of(catalog.get("get_current_time").unwrap());
        assert!(!get_time.with_policy(&only, "get_current_time").converts());
    }

    #[test]
    fn every_known_tool_gets_what_it_should() {
        let catalog = catalog();
        let mut wrong = Vec::new();
        let mut seen = 0;
        for tool in catalog.tools() {
            let expected = EXPECTED
                .iter()
                .find(|(s, t, _)| *s == tool.server() && *t == tool.original_name())
                .map(|e| e.2)
                .or_else(|| {
                    OTHERS
                        .iter()
                        .find(|o| tool.server() == "others" && o.0 == tool.original_name())
                        .map(|o| o.3)
                })
                .unwrap_or_else(|| {
                    panic!("{} of {} has no expectation", tool.name(), tool.server())
                });
            seen += 1;
            let decision = Decision::of(tool);
            assert!(!decision.reason().is_empty());
            if decision.converts() != expected {
                wrong.push(format!(
                    "{}/{}: {decision}",
                    tool.server(),
                    tool.original_name()
                ));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
        assert_eq!(seen, EXPECTED.len() + OTHERS.len());
    }
}
