//! Every relative link of the README, ARCHITECTURE.md, benches/README.md and docs/*.md leads
//! somewhere: the file exists, and a `#anchor` names a heading of it (as GitHub spells
//! heading anchors). Text only, no dependencies.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The pages whose links are checked: the README, ARCHITECTURE.md, benches/README.md and
/// every page of docs/.
fn pages() -> Vec<PathBuf> {
    let root = root();
    let mut pages = vec![
        root.join("README.md"),
        root.join("ARCHITECTURE.md"),
        root.join("benches/README.md"),
    ];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    assert!(!docs.is_empty(), "docs/ has pages");
    pages.extend(docs);
    pages
}

/// The lines of a page outside fenced code blocks.
fn prose(text: &str) -> Vec<&str> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push(line);
        }
    }
    out
}

/// GitHub's anchor for a heading: lower case, punctuation other than `-` and `_` dropped,
/// spaces turned into `-`; a repeated heading gets `-1`, `-2`, ….
fn anchors(text: &str) -> HashSet<String> {
    let mut seen = HashSet::new();
    for line in prose(text) {
        let Some(title) = line.strip_prefix('#') else {
            continue;
        };
        let title = title.trim_start_matches('#');
        if !title.starts_with(' ') {
            continue;
        }
        let slug: String = title
            .trim()
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        let mut anchor = slug.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{slug}-{n}");
        }
        seen.insert(anchor);
    }
    seen
}

/// The targets of the page's `[text](target)` links, with their line numbers.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            if let Some(end) = rest.find(')') {
                out.push((i + 1, rest[..end].to_owned()));
                rest = &rest[end..];
            }
        }
    }
    // Links in code blocks are not links.
    let code: HashSet<usize> = {
        let mut fenced = false;
        let mut lines = HashSet::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
                lines.insert(i + 1);
            } else if fenced {
                lines.insert(i + 1);
            }
        }
        lines
    };
    out.retain(|(line, _)| !code.contains(line));
    out
}

fn check(page: &Path, broken: &mut Vec<String>) -> usize {
    let text = std::fs::read_to_string(page).unwrap();
    let mut n = 0;
    for (line, target) in links(&text) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        n += 1;
        let (path, anchor) = match target.split_once('#') {
            Some((path, anchor)) => (path, Some(anchor)),
            None => (target.as_str(), None),
        };
        let file = if path.is_empty() {
            page.to_path_buf()
        } else {
            page.parent().unwrap().join(path)
        };
        let at = format!("{}:{line}: {target}", page.display());
        if !file.exists() {
            broken.push(format!("{at}: no such file"));
            continue;
        }
        if let Some(anchor) = anchor {
            let Ok(target_text) = std::fs::read_to_string(&file) else {
                broken.push(format!("{at}: an anchor into a file that is not text"));
                continue;
            };
            if !anchors(&target_text).contains(anchor) {
                broken.push(format!("{at}: no heading with that anchor"));
            }
        }
    }
    n
}

#[test]
fn relative_links_of_readme_and_docs_resolve() {
    let mut broken = Vec::new();
    let mut n = 0;
    for page in pages() {
        n += check(&page, &mut broken);
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    // The README links to every docs page, and the pages to one another.
    assert!(n >= 20, "{n} relative links checked");
}

#[test]
fn every_docs_page_is_linked_from_the_readme() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let targets: HashSet<String> = links(&readme).into_iter().map(|(_, t)| t).collect();
    for page in pages()
        .iter()
        .filter(|p| p.parent().unwrap().ends_with("docs"))
    {
        let name = format!("docs/{}", page.file_name().unwrap().to_str().unwrap());
        assert!(targets.contains(&name), "README.md does not link {name}");
    }
}

#[test]
fn anchors_are_spelled_as_github_spells_them() {
    let text = "# The library: `toon::mcp` (feature `mcp`)\n## In front of your client's servers\n\
                ```sh\n# not a heading\n```\n## What it does\n## What it does\n";
    let want: HashSet<String> = [
        "the-library-toonmcp-feature-mcp",
        "in-front-of-your-clients-servers",
        "what-it-does",
        "what-it-does-1",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    assert_eq!(anchors(text), want);
}
