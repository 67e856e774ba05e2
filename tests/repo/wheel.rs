//! pyproject.toml (the Python wheel that carries the `toon` binary, built by
//! scripts/build-wheels.sh) agrees with Cargo.toml: the distribution's name (`toon-gateway`,
//! not the crate's: `toon-codec` on PyPI is another project), the version taken from
//! Cargo.toml, the `toon` bin, and features that exist and are the ones the README's install
//! line names; and no page or script tells anyone to get `toon-codec` from PyPI, uvx, pipx or
//! npm. Read as text (no TOML crate for a test), so that they cannot drift apart between the
//! slow wheel builds.

use std::collections::HashMap;

/// pyproject.toml's `key = value` lines by `[section]`: a value is a string's contents or an
/// array's strings joined by `,` (arrays may span lines). All this file needs.
fn pyproject() -> HashMap<(String, String), String> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/pyproject.toml"))
        .expect("pyproject.toml exists");
    let mut out = HashMap::new();
    let mut section = String::new();
    let mut lines = text.lines().map(|l| l.split(" #").next().unwrap().trim());
    while let Some(line) = lines.next() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = name.to_owned();
            continue;
        }
        let Some((key, value)) = line.split_once(" = ") else {
            panic!("pyproject.toml: not `key = value`: {line}");
        };
        let mut value = value.to_owned();
        if value.starts_with('[') {
            while !value.ends_with(']') {
                value.push_str(lines.next().expect("an array's closing `]`"));
            }
        }
        let strings: Vec<&str> = value
            .trim_matches(|c| c == '[' || c == ']')
            .split(',')
            .map(|s| s.trim().trim_matches('"'))
            .filter(|s| !s.is_empty())
            .collect();
        out.insert((section.clone(), key.to_owned()), strings.join(","));
    }
    out
}

#[test]
fn the_wheel_is_this_crate_with_existing_features() {
    let py = pyproject();
    let get = |section: &str, key: &str| {
        py.get(&(section.to_owned(), key.to_owned()))
            .unwrap_or_else(|| panic!("pyproject.toml has no [{section}] {key}"))
            .as_str()
    };
    let package = super::package();
    assert_eq!(get("project", "name"), super::DISTRIBUTION);
    assert_ne!(package["name"], super::DISTRIBUTION);
    // The version is Cargo.toml's, not a second copy.
    assert_eq!(get("project", "dynamic"), "version");
    assert!(!py.contains_key(&("project".to_owned(), "version".to_owned())));
    assert_eq!(get("project", "license"), package["license"]);
    assert_eq!(get("tool.maturin", "bindings"), "bin");
    // The wheel's script is the crate's `toon` binary.
    let bins: Vec<&str> = package["targets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["kind"][0] == "bin")
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(bins, ["toon"]);

    let features = get("tool.maturin", "features");
    for feature in features.split(',') {
        assert!(
            package["features"].get(feature).is_some(),
            "pyproject.toml's feature {feature} is not in Cargo.toml's [features]"
        );
    }
    // The gateway's build, as the README tells `cargo install` users to make it.
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let line = format!("cargo install toon-codec --features {features}");
    assert!(
        readme.contains(&line),
        "README.md has no `{line}`: the wheel and the README's install line differ"
    );
}

/// The pages and scripts that tell people (and CI) how to get `toon`.
fn install_texts() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = vec![
        "README.md".to_owned(),
        "ARCHITECTURE.md".to_owned(),
        "pyproject.toml".to_owned(),
    ];
    for dir in [
        "docs",
        "scripts",
        "tests/fixtures/mcp/clients",
        "npm/toon-gateway",
        "npm/toon-gateway/bin",
    ] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                paths.push(path.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    paths.sort();
    paths
}

/// Where `line` gets the crate's name from a Python or npm registry: `toon-codec` soon after
/// `uvx`, `pip`, `pipx`, `--from`, `--spec`, `npx` or `npm` in the same command (code span,
/// at most 24 characters back, no `cargo` in between), or pinned there (`toon-codec==…`,
/// `toon-codec@…`), or a wheel's file named after it.
fn gets_the_crate_name_from_a_registry(line: &str) -> bool {
    const TOOLS: [&str; 6] = ["uvx", "pip", "--from", "--spec", "npx", "npm"];
    if line.contains("toon_codec-") {
        return true;
    }
    line.match_indices("toon-codec").any(|(at, name)| {
        let span = line[..at].rsplit('`').next().unwrap();
        let start = span.char_indices().rev().nth(23).map_or(0, |(i, _)| i);
        let before = span[start..].rsplit("cargo").next().unwrap();
        let after = &line[at + name.len()..];
        TOOLS.iter().any(|tool| before.contains(tool))
            || after.starts_with("==")
            || after.starts_with('@')
    })
}

#[test]
fn no_text_installs_the_crate_name_from_pypi_or_npm() {
    // The check itself, on lines the docs once had and on ones they may have.
    for wrong in [
        "`uvx --from toon-codec toon …`, `pipx install toon-codec`",
        r#"{"command": "uvx", "args": ["--from", "toon-codec", "toon", "mcp", "serve"]}"#,
        "`pipx run --spec toon-codec toon mcp serve`",
        "`toon-codec==0.1.0` pins a version",
        "`npx -y toon-codec mcp serve`",
        "target/wheels/toon_codec-0.1.0-py3-none-any.whl",
    ] {
        assert!(gets_the_crate_name_from_a_registry(wrong), "{wrong}");
    }
    for right in [
        "cargo install toon-codec --features cli",
        "`uvx --from toon-gateway toon`; or `cargo install toon-codec`",
        "`toon-codec` on PyPI is another project",
        "the release step that puts them on PyPI and npm. `toon-codec` on PyPI is another",
        r#"toon-codec = "0.1"   # the library is imported as `toon`"#,
    ] {
        assert!(!gets_the_crate_name_from_a_registry(right), "{right}");
    }
    let mut found = Vec::new();
    for path in install_texts() {
        for (n, line) in super::read(&path).lines().enumerate() {
            if gets_the_crate_name_from_a_registry(line) {
                found.push(format!("{path}:{}: {line}", n + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the crate's name is another project's on PyPI; the distribution is {}:\n{}",
        super::DISTRIBUTION,
        found.join("\n")
    );
}

#[test]
fn the_docs_give_the_launch_lines_of_the_distribution() {
    // A client config's entry for each way to get `toon` without Rust, as the README and
    // docs/install.md give it, exactly (scripts/test-wheel.sh and scripts/test-npm.sh run
    // these lines).
    let uvx = format!(
        r#""command": "uvx", "args": ["--from", "{}", "toon", "mcp", "serve"]"#,
        super::DISTRIBUTION
    );
    let npx = format!(
        r#""command": "npx", "args": ["-y", "{}", "mcp", "serve"]"#,
        super::DISTRIBUTION
    );
    for page in ["README.md", "docs/install.md"] {
        let text = super::read(page);
        for line in [&uvx, &npx] {
            assert!(text.contains(line.as_str()), "{page} has no `{line}`");
        }
    }
}
