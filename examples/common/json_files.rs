//! The `*.json` files under some directories and the renderings of their values, for the
//! token examples.

use std::path::{Path, PathBuf};

use toon::{Delimiter, EncodeOptions, Value};

/// The values of `files` that are JSON, each with its file; the others are named on stderr.
pub fn json_values(files: &[PathBuf]) -> std::io::Result<Vec<(PathBuf, Value)>> {
    let mut values = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file)?;
        match serde_json::from_str::<Value>(&text) {
            Ok(value) => values.push((file.clone(), value)),
            Err(e) => eprintln!("skipped {}: {e}", file.display()),
        }
    }
    Ok(values)
}

/// A value as the estimate is fitted and checked on: pretty JSON, compact JSON, and TOON with
/// each delimiter, named.
pub fn renderings(
    value: &Value,
) -> Result<Vec<(&'static str, String)>, Box<dyn std::error::Error>> {
    let mut texts = vec![
        ("pretty", toon::json::to_string_pretty(value, 2)?),
        ("json", toon::json::to_string(value)?),
    ];
    for (name, delimiter) in [
        ("toon", Delimiter::Comma),
        ("toon-tab", Delimiter::Tab),
        ("toon-pipe", Delimiter::Pipe),
    ] {
        let options = EncodeOptions::new().delimiter(delimiter);
        texts.push((name, toon::to_string_with(value, &options)?));
    }
    Ok(texts)
}

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
