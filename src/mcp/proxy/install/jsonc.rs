//! Where the members of a client's configuration lie in its text, so that an edit splices the
//! changed member and leaves every other byte as it was. VS Code's `mcp.json` is JSONC (JSON
//! with `//` and `/* */` comments and trailing commas); the others are JSON.
//!
//! The text is first [`blank`]ed: comments, trailing commas and a byte order mark become spaces
//! (newlines kept), so every byte keeps its offset and line and column. The blanked text is JSON,
//! checked by serde_json (whose errors give the line and column), and the locator reads it;
//! the spans it finds index the original text as well.

use std::ops::Range;

/// Why a configuration's text cannot be read: serde_json's description (a fixed phrase such as
/// `expected value`, never the text, which may hold secrets) at its line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Unreadable {
    pub message: String,
    pub line: usize,
    pub column: usize,
}

/// `text` with its comments (when `jsonc`), trailing commas (when `jsonc`) and byte order mark
/// replaced by spaces, checked to be JSON.
pub(crate) fn blank(text: &str, jsonc: bool) -> Result<String, Unreadable> {
    let mut out = text.as_bytes().to_vec();
    if out.starts_with("\u{feff}".as_bytes()) {
        out[..3].fill(b' ');
    }
    if jsonc {
        if let Err(at) = blank_comments(&mut out) {
            let (line, column) = line_column(text, at);
            return Err(Unreadable {
                message: "a /* comment that is never closed".to_owned(),
                line,
                column,
            });
        }
        blank_trailing_commas(&mut out);
    }
    // Only ASCII bytes and whole characters were replaced by spaces: still UTF-8.
    let out = String::from_utf8(out).unwrap_or_default();
    match serde_json::from_str::<serde::de::IgnoredAny>(&out) {
        Ok(_) => Ok(out),
        Err(e) => {
            let full = e.to_string();
            let message = full
                .rfind(" at line ")
                .map_or(full.as_str(), |i| &full[..i])
                .to_owned();
            Err(Unreadable {
                message,
                line: e.line(),
                column: e.column(),
            })
        }
    }
}

/// The 1-based line and column (in characters) of byte `at`.
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at];
    let start = before.rfind('\n').map_or(0, |n| n + 1);
    (
        before.matches('\n').count() + 1,
        before[start..].chars().count() + 1,
    )
}

/// Comments outside strings become spaces; an unclosed `/*` is an error at its offset.
fn blank_comments(b: &mut [u8]) -> Result<(), usize> {
    let mut i = 0;
    while i < b.len() {
        match (b[i], b.get(i + 1)) {
            (b'"', _) => i = crate::json::string_end(b, i + 1),
            (b'/', Some(b'/')) => {
                while i < b.len() && b[i] != b'\n' {
                    b[i] = b' ';
                    i += 1;
                }
            }
            (b'/', Some(b'*')) => {
                let end = b[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map(|p| i + 2 + p + 2)
                    .ok_or(i)?;
                for c in &mut b[i..end] {
                    if *c != b'\n' && *c != b'\r' {
                        *c = b' ';
                    }
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    Ok(())
}

/// A comma followed by nothing but whitespace before `}` or `]` becomes a space (comments are
/// blanked by then).
fn blank_trailing_commas(b: &mut [u8]) {
    let mut i = 0;
    let mut last_comma: Option<usize> = None;
    while i < b.len() {
        match b[i] {
            b'"' => {
                last_comma = None;
                i = crate::json::string_end(b, i + 1);
                continue;
            }
            b',' => last_comma = Some(i),
            b'}' | b']' => {
                if let Some(at) = last_comma.take() {
                    b[at] = b' ';
                }
            }
            b' ' | b'\t' | b'\n' | b'\r' => {}
            _ => last_comma = None,
        }
        i += 1;
    }
}

/// One member of an object: its key (unescaped), where its key's quote starts and where its
/// value lies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MemberSpan {
    pub key: String,
    pub key_start: usize,
    pub value: Range<usize>,
}

/// An object in the text: its braces' offsets and its members in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Object {
    pub open: usize,
    pub close: usize,
    pub members: Vec<MemberSpan>,
}

impl Object {
    /// The last member named `key` (as JSON readers resolve duplicates).
    pub(crate) fn get(&self, key: &str) -> Option<&MemberSpan> {
        self.members.iter().rev().find(|m| m.key == key)
    }
}

/// The object starting at `at` (after whitespace) in blanked text; `None` when the value
/// there is not an object.
pub(crate) fn object_at(text: &str, at: usize) -> Option<Object> {
    let b = text.as_bytes();
    let open = skip_ws(b, at);
    if b.get(open) != Some(&b'{') {
        return None;
    }
    let mut members = Vec::new();
    let mut i = skip_ws(b, open + 1);
    if b.get(i) == Some(&b'}') {
        return Some(Object {
            open,
            close: i,
            members,
        });
    }
    loop {
        let key_end = crate::json::string_end(b, i + 1);
        let key = crate::mcp::raw::unquote(text.get(i..key_end)?)?.into_owned();
        let colon = skip_ws(b, key_end);
        if b.get(colon) != Some(&b':') {
            return None;
        }
        let start = skip_ws(b, colon + 1);
        let end = value_end(b, start)?;
        members.push(MemberSpan {
            key,
            key_start: i,
            value: start..end,
        });
        i = skip_ws(b, end);
        match b.get(i)? {
            b',' => i = skip_ws(b, i + 1),
            b'}' => {
                return Some(Object {
                    open,
                    close: i,
                    members,
                });
            }
            _ => return None,
        }
    }
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

/// Just past the value starting at `at` in JSON text.
fn value_end(b: &[u8], at: usize) -> Option<usize> {
    match b.get(at)? {
        b'"' => Some(crate::json::string_end(b, at + 1)),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            while let Some(&c) = b.get(i) {
                match c {
                    b'"' => {
                        i = crate::json::string_end(b, i + 1);
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
            None
        }
        b't' | b'n' => Some(at + 4),
        b'f' => Some(at + 5),
        _ => Some(crate::json::number_end(b, at)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas_become_spaces_in_place() {
        let text =
            "{\n  // a server\n  \"a\": \"x // not a comment\", /* b */\n  \"b\": [1, 2,],\n}\n";
        let blanked = blank(text, true).unwrap();
        assert_eq!(blanked.len(), text.len());
        let expected = text
            .replace("// a server", &" ".repeat(11))
            .replace("/* b */", &" ".repeat(7))
            .replace("2,]", "2 ]")
            .replace("],\n}", "] \n}");
        assert_eq!(blanked, expected);
        let top = object_at(&blanked, 0).unwrap();
        let keys: Vec<&str> = top.members.iter().map(|m| m.key.as_str()).collect();
        assert_eq!(keys, ["a", "b"]);
        assert_eq!(&text[top.get("b").unwrap().value.clone()], "[1, 2,]");
        assert_eq!(&text[top.members[0].key_start..][..3], "\"a\"");
    }

    #[test]
    fn malformed_text_is_refused_at_its_line_and_column() {
        let err = blank("{\n  \"a\": 1,\n  \"b\" 2\n}", false).unwrap_err();
        assert_eq!((err.line, err.column), (3, 7));
        assert_eq!(err.message, "expected `:`");
        // Comments are JSON's errors outside JSONC, and trailing commas too.
        assert!(blank("{} // x", false).is_err());
        assert!(blank("{\"a\": 1,}", false).is_err());
        assert!(blank("{\"a\": 1,}", true).is_ok());
        let err = blank("{\"a\":\n  /* open", true).unwrap_err();
        assert_eq!((err.line, err.column), (2, 3));
    }

    #[test]
    fn values_of_every_kind_are_spanned() {
        let text = r#"{"s": "a\"}", "n": -1.5e3, "t": true, "f": false, "z": null, "o": {"x": [1, {"y": "]"}]}, "e\u0041": {}}"#;
        let top = object_at(text, 0).unwrap();
        let values: Vec<&str> = top.members.iter().map(|m| &text[m.value.clone()]).collect();
        assert_eq!(
            values,
            [
                r#""a\"}""#,
                "-1.5e3",
                "true",
                "false",
                "null",
                r#"{"x": [1, {"y": "]"}]}"#,
                "{}"
            ]
        );
        assert_eq!(top.members[6].key, "eA");
        assert_eq!(object_at("[1]", 0), None);
        assert_eq!(object_at(" {}", 0).unwrap().close, 2);
    }
}
