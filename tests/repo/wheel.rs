//! pyproject.toml (the Python wheel that carries the `toon` binary, built by
//! scripts/build-wheels.sh) agrees with Cargo.toml: the distribution's name (`toon-gateway`,
//! not the crate's: `toon-codec` on PyPI is another project), the version taken from
//! Cargo.toml, the `toon` bin, and features that exist and are the ones the README's install
//! line names. Read as text (no TOML crate for a test), so that they cannot drift apart
//! between the slow wheel builds.

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
