//! Where a value sits in JSON text, by its key path: configuration errors name the path, line
//! and column of what is wrong without quoting it (a configuration holds secrets, and its
//! errors reach log files).

use std::fmt;

use crate::mcp::error::Quoted;

/// One step of a key path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// An object member.
    Key(String),
    /// An array element.
    Index(usize),
}

/// A key path, written `mcpServers.github.env.GITHUB_TOKEN` or `mcpServers.a.args[1]`; keys
/// that are not plain names are quoted (`mcpServers["my server"]`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Path(pub(crate) Vec<Step>);

impl Path {
    /// This path and one more key.
    pub(crate) fn key(&self, key: &str) -> Path {
        let mut steps = self.0.clone();
        steps.push(Step::Key(key.to_owned()));
        Path(steps)
    }

    /// This path and one more index.
    pub(crate) fn index(&self, index: usize) -> Path {
        let mut steps = self.0.clone();
        steps.push(Step::Index(index));
        Path(steps)
    }

    /// The 1-based line and column (in characters) of the value at this path in `text`,
    /// which must be valid JSON; the last of duplicate keys, as `serde_json` keeps.
    pub(crate) fn position(&self, text: &str) -> Option<(usize, usize)> {
        let b = text.as_bytes();
        let mut at = skip_ws(b, 0);
        for step in &self.0 {
            at = match (step, b.get(at)?) {
                (Step::Key(key), b'{') => member(text, at, key)?,
                (Step::Index(index), b'[') => element(b, at, *index)?,
                _ => return None,
            };
        }
        let before = &text[..at];
        let line_start = before.rfind('\n').map_or(0, |n| n + 1);
        let line = before.matches('\n').count() + 1;
        Some((line, before[line_start..].chars().count() + 1))
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.0.iter().enumerate() {
            match step {
                Step::Key(k) if plain(k) && i == 0 => f.write_str(k)?,
                Step::Key(k) if plain(k) => write!(f, ".{k}")?,
                Step::Key(k) => write!(f, "[{}]", Quoted(k))?,
                Step::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

fn plain(key: &str) -> bool {
    !key.is_empty()
        && key
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
}

fn skip_ws(b: &[u8], mut at: usize) -> usize {
    while b
        .get(at)
        .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
    {
        at += 1;
    }
    at
}

/// The start of `key`'s value in the object starting at `at`.
fn member(text: &str, at: usize, key: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, at + 1);
    if b.get(i) == Some(&b'}') {
        return None;
    }
    let mut found = None;
    loop {
        let end = string_end(b, i)?;
        let raw = &text[i + 1..end - 1];
        let matches = if raw.contains('\\') {
            serde_json::from_str::<String>(&text[i..end]).ok()? == key
        } else {
            raw == key
        };
        i = skip_ws(b, end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = skip_ws(b, i + 1);
        if matches {
            found = Some(i);
        }
        i = skip_ws(b, value_end(b, i)?);
        match b.get(i)? {
            b',' => i = skip_ws(b, i + 1),
            b'}' => return found,
            _ => return None,
        }
    }
}

/// The start of element `index` of the array starting at `at`.
fn element(b: &[u8], at: usize, index: usize) -> Option<usize> {
    let mut i = skip_ws(b, at + 1);
    if b.get(i) == Some(&b']') {
        return None;
    }
    for _ in 0..index {
        i = skip_ws(b, value_end(b, i)?);
        if b.get(i) != Some(&b',') {
            return None;
        }
        i = skip_ws(b, i + 1);
    }
    Some(i)
}

/// Just past the string starting at `at`.
fn string_end(b: &[u8], at: usize) -> Option<usize> {
    if b.get(at) != Some(&b'"') {
        return None;
    }
    let mut i = at + 1;
    loop {
        match b.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
}

/// Just past the value starting at `at`.
fn value_end(b: &[u8], at: usize) -> Option<usize> {
    match b.get(at)? {
        b'"' => string_end(b, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            loop {
                match b.get(i)? {
                    b'"' => {
                        i = string_end(b, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            let mut i = at;
            while b
                .get(i)
                .is_some_and(|c| !matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
            {
                i += 1;
            }
            Some(i)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(steps: &[&str]) -> Path {
        let mut p = Path::default();
        for s in steps {
            p = match s.parse::<usize>() {
                Ok(n) => p.index(n),
                Err(_) => p.key(s),
            };
        }
        p
    }

    #[test]
    fn finds_values_by_path() {
        let text = "{\"a\": {\"x\": [1, {\"y\": \"}]\\\"\"}, 3],\n  \"b\\u0020c\": true,\n  \"é\": {\"k\": null, \"k\": 5}}}";
        assert_eq!(path(&["a"]).position(text), Some((1, 7)));
        assert_eq!(path(&["a", "x", "2"]).position(text), Some((1, 32)));
        assert_eq!(path(&["a", "b c"]).position(text), Some((2, 15)));
        // The last of duplicate keys, after a multi-byte character.
        assert_eq!(path(&["a", "é", "k"]).position(text), Some((3, 25)));
        assert_eq!(path(&["a", "x", "1", "y"]).position(text), Some((1, 23)));
        assert_eq!(path(&["a", "nope"]).position(text), None);
        assert_eq!(path(&["a", "x", "7"]).position(text), None);
        assert_eq!(path(&["a", "0"]).position(text), None);
    }

    #[test]
    fn writes_paths() {
        assert_eq!(
            path(&["mcpServers", "github", "env", "GITHUB_TOKEN"]).to_string(),
            "mcpServers.github.env.GITHUB_TOKEN"
        );
        assert_eq!(
            path(&["mcpServers", "my server", "args", "1"]).to_string(),
            "mcpServers[\"my server\"].args[1]"
        );
    }
}
