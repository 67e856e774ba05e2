//! The `*.json` files under some directories, for the token examples.

use std::path::{Path, PathBuf};

/// Every `*.json` file under `paths` (files given directly count too), sorted within each
/// directory.
pub fn json_files(paths: impl IntoIterator<Item = String>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for path in paths {
        walk(Path::new(&path), &mut files);
    }
    files
}

fn walk(path: &Path, files: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for entry in entries {
            walk(&entry, files);
        }
    } else if path.extension().is_some_and(|e| e == "json") {
        files.push(path.to_owned());
    }
}
