//! The boundary between the codec and the MCP tree (`src/mcp/`): the tree uses the codec only
//! through its public API, as a crate of its own would (so that it could move into one
//! mechanically, `crate::` becoming `toon::`), and the codec carries no MCP-only code.
//!
//! Read from the sources, with no build: every `crate::` path in `src/mcp/` (code, `use`
//! groups and doc links alike) must name `crate::mcp…` or something public at the crate root
//! (`pub mod`, `pub use`, `pub fn`, an exported macro, as `src/lib.rs` declares them); a path
//! into a public module must name an item that module declares `pub` (not `pub(crate)`). What
//! the check cannot see: methods of public types (`crate::Map::new`) and `super::` paths; the
//! compiler sees those once the tree is a crate.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The identifier at the start of `text`, and the rest.
fn ident(text: &str) -> (&str, &str) {
    let n = text.bytes().take_while(|&b| is_ident(b)).count();
    text.split_at(n)
}

/// The paths a `use` tree or path starting at `text` names (after `crate::`), each as its
/// segments: `tokens::{cost, Encoding}` is `[tokens, cost]` and `[tokens, Encoding]`.
fn paths(text: &str) -> Vec<Vec<String>> {
    let mut prefix = Vec::new();
    let mut rest = text;
    loop {
        let (name, after) = ident(rest);
        if name.is_empty() {
            if let Some(group) = rest.strip_prefix('{') {
                // The group's members, split at its top-level commas.
                let mut depth = 0;
                let mut end = group.len();
                let mut members = Vec::new();
                let mut start = 0;
                for (i, c) in group.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => {
                            end = i;
                            break;
                        }
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            members.push(&group[start..i]);
                            start = i + 1;
                        }
                        _ => {}
                    }
                }
                members.push(&group[start..end]);
                let mut out = Vec::new();
                for member in members {
                    let member = member.trim();
                    for tail in paths(member) {
                        if tail.first().is_some_and(|s| s == "self") {
                            out.push(prefix.clone());
                        } else if !tail.is_empty() {
                            out.push([prefix.clone(), tail].concat());
                        }
                    }
                }
                return out;
            }
            return vec![prefix];
        }
        prefix.push(name.to_owned());
        match after.strip_prefix("::") {
            Some(next) => rest = next.trim_start(),
            None => return vec![prefix],
        }
    }
}

/// Every path after a `crate::` in `source`, with its line number.
fn crate_paths(source: &str) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    for (at, _) in source.match_indices("crate::") {
        let before = source[..at].bytes().next_back();
        if before.is_some_and(|b| is_ident(b) || b == b'$') {
            continue;
        }
        let line = source[..at].matches('\n').count() + 1;
        for path in paths(&source[at + "crate::".len()..]) {
            if !path.is_empty() {
                out.push((line, path));
            }
        }
    }
    out
}

/// The names `source` (a module's file) declares `pub` at any depth of indentation: items,
/// modules, and what `pub use` re-exports (the last name of each path, or its `as` name).
/// Items `pub(crate)`, `pub(super)` and `#[doc(hidden)]` `__` names are not public API.
fn public_names(source: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for statement in source.split("pub ").skip(1) {
        let statement = statement.trim_start();
        let kinds = [
            "fn ", "struct ", "enum ", "const ", "static ", "type ", "trait ", "mod ",
        ];
        if let Some(rest) = kinds.iter().find_map(|k| statement.strip_prefix(k)) {
            let (name, _) = ident(rest.trim_start());
            names.insert(name.to_owned());
        } else if let Some(rest) = statement.strip_prefix("use ") {
            let tree = &rest[..rest.find(';').unwrap_or(rest.len())];
            let tree: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
            for path in paths(&tree.replace(" as ", "::__as__::")) {
                let name = match path.iter().position(|s| s == "__as__") {
                    Some(i) => path.get(i + 1),
                    None => path.last(),
                };
                if let Some(name) = name {
                    names.insert(name.clone());
                }
            }
        }
    }
    names.retain(|n| !n.is_empty() && !n.starts_with("__"));
    names
}

/// The crate root's public names and, for each public module, the names it declares `pub`.
struct Api {
    root: BTreeSet<String>,
    modules: Vec<(String, BTreeSet<String>)>,
}

impl Api {
    fn read(src: &Path) -> Api {
        let lib = fs::read_to_string(src.join("lib.rs")).unwrap();
        let mut root = public_names(&lib);
        // `#[macro_export]` macros are at the root (`toon::toon!`).
        for file in rust_files(src) {
            let text = fs::read_to_string(&file).unwrap();
            for (at, _) in text.match_indices("#[macro_export]") {
                let rest = &text[at..];
                if let Some(m) = rest.find("macro_rules!") {
                    let (name, _) = ident(rest[m + "macro_rules!".len()..].trim_start());
                    root.insert(name.to_owned());
                }
            }
        }
        let mut modules = Vec::new();
        for line in lib.lines() {
            if let Some(rest) = line.trim_start().strip_prefix("pub mod ") {
                let (name, _) = ident(rest);
                let file = [
                    src.join(format!("{name}.rs")),
                    src.join(name).join("mod.rs"),
                ]
                .into_iter()
                .find(|f| f.exists())
                .unwrap_or_else(|| panic!("no file for `pub mod {name}`"));
                let text = fs::read_to_string(file).unwrap();
                modules.push((name.to_owned(), public_names(&text)));
            }
        }
        Api { root, modules }
    }

    /// Why `path` (after `crate::`) is not the codec's public API; `None` when it is.
    fn refuses(&self, path: &[String]) -> Option<String> {
        let first = &path[0];
        if first == "mcp" {
            return None;
        }
        if !self.root.contains(first) {
            return Some(format!("`{first}` is not public at the crate root"));
        }
        let module = self.modules.iter().find(|(m, _)| m == first);
        match (module, path.get(1)) {
            (Some((m, public)), Some(item)) if !public.contains(item) => {
                Some(format!("`{m}::{item}` is not declared `pub` in `{m}`"))
            }
            _ => None,
        }
    }
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn the_mcp_tree_uses_only_the_codecs_public_api() {
    let src = src();
    let api = Api::read(&src);
    let mut seen = 0;
    let mut wrong = Vec::new();
    for file in rust_files(&src.join("mcp")) {
        let text = fs::read_to_string(&file).unwrap();
        for (line, path) in crate_paths(&text) {
            seen += 1;
            if let Some(why) = api.refuses(&path) {
                let shown = file.strip_prefix(&src).unwrap().display();
                wrong.push(format!(
                    "src/{shown}:{line}: crate::{}: {why}",
                    path.join("::")
                ));
            }
        }
    }
    // The reading found the tree's paths (a reading that found none would pass anything).
    assert!(seen > 100, "only {seen} `crate::` paths found in src/mcp");
    assert!(
        wrong.is_empty(),
        "src/mcp reaches past the codec's public API (make the item public API of the codec \
         if it is generally useful, or give the MCP tree its own):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_codec_carries_no_mcp_code() {
    let src = src();
    let mut wrong = Vec::new();
    for file in rust_files(&src) {
        let relative = file.strip_prefix(&src).unwrap();
        if relative.starts_with("mcp")
            || relative.starts_with("bin")
            || relative == Path::new("lib.rs")
        {
            continue;
        }
        let text = fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            if line.contains("crate::mcp") || line.contains("feature = \"mcp") {
                wrong.push(format!(
                    "src/{}:{}: {}",
                    relative.display(),
                    n + 1,
                    line.trim()
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "codec code for the MCP tree:\n{}",
        wrong.join("\n")
    );
}

/// The check itself: what it refuses and what it lets pass.
#[test]
fn the_check_reads_paths_and_visibility() {
    let found: Vec<Vec<String>> = crate_paths(
        "use crate::{Map, tokens::{self, cost}};\n/// [x](crate::render#which)\nlet a = \
         $crate::Value; crate::json_text::readable(t); notcrate::x;",
    )
    .into_iter()
    .map(|(_, p)| p)
    .collect();
    let want: Vec<Vec<String>> = [
        &["Map"][..],
        &["tokens"],
        &["tokens", "cost"],
        &["render"],
        &["json_text", "readable"],
    ]
    .iter()
    .map(|p| p.iter().map(|s| s.to_string()).collect())
    .collect();
    assert_eq!(found, want);

    let names = public_names(
        "pub fn a() {}\npub(crate) fn b() {}\npub use x::{C, d::E as F};\npub mod g;\n\
         pub(super) const H: u8 = 0;\npub mod __private {}",
    );
    assert_eq!(names.into_iter().collect::<Vec<_>>(), ["C", "F", "a", "g"]);

    let api = Api::read(&src());
    let path = |p: &str| p.split("::").map(String::from).collect::<Vec<_>>();
    for public in [
        "Value",
        "tokens::cost",
        "json::from_str",
        "toon",
        "mcp::raw::get",
    ] {
        assert_eq!(api.refuses(&path(public)), None, "{public}");
    }
    for private in [
        "json_text::readable",
        "value::Value",
        "error::Quoted",
        "tokens::__private",
    ] {
        assert!(api.refuses(&path(private)).is_some(), "{private}");
    }
}

/// The proxy's layers, lowest first (ARCHITECTURE.md, the picture under `mcp/proxy/`): each
/// may use the ones below it, never one above; revisions sit beside the front, below it.
const LAYERS: [&str; 4] = ["transport", "servers", "revisions", "front"];

/// The proxy's modules that every layer may use: its log, errors, metrics (and the status
/// page drawn from them) and lock helper; none of them uses a layer (but for a test).
const SHARED: [&str; 5] = ["log", "error", "metrics", "status_page", "sync"];

/// What a path into `crate::mcp::proxy` from a file of `layer` is refused for, if anything.
fn layer_refuses(layer: usize, path: &[String]) -> Option<String> {
    let [mcp, proxy, target, ..] = path else {
        return None;
    };
    if mcp != "mcp" || proxy != "proxy" || SHARED.contains(&target.as_str()) {
        return None;
    }
    match LAYERS.iter().position(|l| l == target) {
        Some(to) if to <= layer => None,
        Some(to) => Some(format!(
            "{} imports {}, a layer above it",
            LAYERS[layer], LAYERS[to]
        )),
        // The proxy's root (`inspect`, the status page, re-exports) stands above every layer.
        None => Some(format!(
            "{} imports the proxy's `{target}`, above every layer",
            LAYERS[layer]
        )),
    }
}

#[test]
fn the_proxy_s_layers_import_only_downward() {
    let proxy = src().join("mcp/proxy");
    let mut seen = 0;
    let mut wrong = Vec::new();
    for (layer, name) in LAYERS.iter().enumerate() {
        for file in rust_files(&proxy.join(name)) {
            let text = fs::read_to_string(&file).unwrap();
            let shown = file.strip_prefix(src()).unwrap().display().to_string();
            // `super::super::super` from a layer's file would climb to the proxy's root.
            if text.contains("super::super::super") {
                wrong.push(format!("src/{shown}: climbs out of its layer with super::"));
            }
            for (line, path) in crate_paths(&text) {
                seen += 1;
                if let Some(why) = layer_refuses(layer, &path) {
                    wrong.push(format!(
                        "src/{shown}:{line}: crate::{}: {why}",
                        path.join("::")
                    ));
                }
            }
        }
    }
    assert!(
        seen > 50,
        "only {seen} `crate::` paths found in the proxy's layers"
    );
    assert!(wrong.is_empty(), "upward imports:\n{}", wrong.join("\n"));
}

#[test]
fn the_layer_check_refuses_upward_paths() {
    let path = |text: &str| text.split("::").map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(layer_refuses(0, &path("mcp::proxy::sync::lock")), None);
    assert_eq!(
        layer_refuses(3, &path("mcp::proxy::transport::peer::Peer")),
        None
    );
    assert_eq!(
        layer_refuses(2, &path("mcp::proxy::servers::toolbox::Toolbox")),
        None
    );
    assert!(layer_refuses(0, &path("mcp::proxy::servers::toolbox::Toolbox")).is_some());
    assert!(layer_refuses(2, &path("mcp::proxy::front::serve::Mode")).is_some());
    assert!(layer_refuses(1, &path("mcp::proxy::inspect::inspect")).is_some());
    assert_eq!(layer_refuses(1, &path("mcp::raw::get")), None);
}
