//! npm/ (the npm packages of the `toon` command, packed by scripts/build-npm.sh) agrees with
//! Cargo.toml and with itself: the main package `toon-gateway` with its one bin `toon`, the
//! launcher, and as its optionalDependencies exactly the platform packages of npm/, each
//! pinned to Cargo.toml's version and named for the `os` and `cpu` it declares (the launcher
//! finds its package by that name: `toon-gateway-${process.platform}-${process.arch}`). Read
//! from the files, so that a version bump or a new platform cannot leave one behind between
//! the slow builds; scripts/test-npm.sh installs and runs what they describe.

use std::collections::BTreeMap;

use serde_json::{Value as Json, json};

/// Each package.json of npm/, by its folder's name.
fn manifests() -> BTreeMap<String, Json> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("npm");
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(&root).expect("npm/ exists") {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let text = super::read(&format!("npm/{name}/package.json"));
        let manifest: Json =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("npm/{name}/package.json: {e}"));
        out.insert(name, manifest);
    }
    out
}

#[test]
fn the_main_package_is_the_distribution_with_one_bin_toon() {
    let package = super::package();
    let manifests = manifests();
    let main = &manifests[super::DISTRIBUTION];
    assert_eq!(main["name"], super::DISTRIBUTION);
    assert_eq!(main["version"], package["version"]);
    assert_eq!(main["license"], package["license"]);
    // One bin, so that `npx -y toon-gateway …` runs it although its name is not the package's.
    assert_eq!(main["bin"], json!({"toon": "bin/toon.js"}));
    assert_eq!(main["files"], json!(["bin/toon.js"]));
    let launcher = super::read("npm/toon-gateway/bin/toon.js");
    assert!(launcher.starts_with("#!/usr/bin/env node\n"));
    // The launcher derives the platform package's name and the list it reports from here.
    assert!(launcher.contains("`${manifest.name}-${platform}`"));
    assert!(launcher.contains("manifest.optionalDependencies"));
    assert!(
        main.get("dependencies").is_none() && main.get("scripts").is_none(),
        "the main package needs nothing but its platform package, and runs no install script"
    );
}

#[test]
fn the_platform_packages_are_the_optional_dependencies_at_this_version() {
    let package = super::package();
    let version = package["version"].as_str().unwrap();
    let manifests = manifests();
    let optional = manifests[super::DISTRIBUTION]["optionalDependencies"]
        .as_object()
        .expect("the main package has optionalDependencies");
    let platforms: Vec<&String> = manifests
        .keys()
        .filter(|name| *name != super::DISTRIBUTION)
        .collect();
    assert_eq!(optional.keys().collect::<Vec<_>>(), platforms);
    for name in platforms {
        let manifest = &manifests[name];
        // Exactly this version: a range would let npm pair the launcher with another binary.
        assert_eq!(optional[name], version, "{name}'s pin");
        assert_eq!(manifest["version"], version, "{name}");
        assert_eq!(manifest["license"], package["license"], "{name}");
        let (os, cpu) = (&manifest["os"], &manifest["cpu"]);
        let (os, cpu) = (os[0].as_str().unwrap(), cpu[0].as_str().unwrap());
        assert_eq!(manifest["os"].as_array().unwrap().len(), 1, "{name}");
        assert_eq!(manifest["cpu"].as_array().unwrap().len(), 1, "{name}");
        assert_eq!(*name, format!("{}-{os}-{cpu}", super::DISTRIBUTION));
        assert_eq!(manifest["name"], name.as_str());
        // The binaries are linked against glibc 2.17 (scripts/build-wheels.sh): npm on musl
        // must not take them.
        if os == "linux" {
            assert_eq!(manifest["libc"], json!(["glibc"]), "{name}");
        }
        assert_eq!(manifest["files"], json!(["bin/toon"]), "{name}");
        // A bin here would be linked over the launcher's in node_modules/.bin.
        assert!(manifest.get("bin").is_none(), "{name} has a bin");
    }
    for platform in ["toon-gateway-linux-x64", "toon-gateway-linux-arm64"] {
        assert!(optional.contains_key(platform), "no {platform}");
    }
}
