//! Per-call shaping of a tool result before it is rendered: keep some fields, page through the
//! largest array, fit a token budget. Every cut is described so the model can be told.

use super::error::{Error, Result};
use crate::Value;
use crate::render::Pipeline;

/// What a caller asked to be done to one result (the `fields`, `limit`, `cursor` and
/// `max_tokens` of `execute_tool`, or the CLI's `--fields` and `--budget`): the default
/// (nothing) with fields set, as it may gain fields (`#[non_exhaustive]`). Not the encoder's
/// layout decision, which the glossary calls a shape.
///
/// ```
/// let mut shaping = toon::mcp::Shaping::default();
/// assert!(shaping.is_empty());
/// shaping.limit = Some(20);
/// assert!(!shaping.is_empty());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Shaping {
    /// Field paths to keep (`id,user.name`, through arrays; see [`crate::project`]); empty
    /// keeps every field. An unknown path is an error naming the fields there.
    pub fields: Vec<String>,
    /// At most this many elements of the largest array.
    pub limit: Option<usize>,
    /// Where to continue: the `next cursor` of an earlier page.
    pub cursor: Option<String>,
    /// Cut rows, then long strings, until the TOON text is about this many tokens
    /// ([`crate::tokens::fit`]).
    pub max_tokens: Option<usize>,
    /// The key under which the caller kept the whole result for later pages
    /// ([`Pages`](super::Pages)); next-page cursors carry it, so that a later page is cut
    /// from the same result instead of a new run of the tool.
    pub kept_as: Option<String>,
}

/// What shaping did: human-readable notes, and the cursor of the next page if any.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Shaped {
    pub notes: Vec<String>,
    pub next_cursor: Option<String>,
}

impl Shaping {
    /// The key of the kept result the cursor pages, if it names one.
    ///
    /// # Errors
    /// A cursor that is not one of ours.
    pub fn cursor_key(&self) -> Result<Option<String>> {
        let Some(cursor) = &self.cursor else {
            return Ok(None);
        };
        let (key, _, _) = decode_cursor(cursor)?;
        Ok((!key.is_empty()).then_some(key))
    }

    /// Whether this shaping changes nothing.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
            && self.limit.is_none()
            && self.cursor.is_none()
            && self.max_tokens.is_none()
    }

    /// Applies the shaping to `value` in place: fields, then the page, then the budget (fields
    /// and budget by the library's [`Pipeline`]).
    pub(crate) fn apply(&self, value: &mut Value) -> Result<Shaped> {
        let mut shaped = Shaped::default();
        if !self.fields.is_empty() {
            let (projected, _) = Pipeline::new()
                .fields(&self.fields)
                .transform(std::mem::take(value))?;
            *value = projected;
        }
        if self.limit.is_some() || self.cursor.is_some() {
            self.page(value, &mut shaped)?;
        }
        if let Some(budget) = self.max_tokens {
            let (fitted, notes) = Pipeline::new()
                .budget(budget)
                .transform(std::mem::take(value))?;
            *value = fitted;
            shaped.notes.extend(notes);
        }
        Ok(shaped)
    }

    fn page(&self, value: &mut Value, shaped: &mut Shaped) -> Result<()> {
        let (path, offset) = match &self.cursor {
            Some(cursor) => {
                let (_, path, offset) = decode_cursor(cursor)?;
                (path, offset)
            }
            None => match crate::tokens::largest_array(value) {
                Some((path, _)) => (path, 0),
                // Nothing to page: a lone array of one element or none.
                None if value.is_array() => (String::new(), 0),
                None => return Ok(()),
            },
        };
        // An empty pointer is the value itself.
        let Some(Value::Array(items)) = value.pointer_mut(&path) else {
            return Err(Error::CursorMismatch {
                cursor: self.cursor.clone().unwrap_or_default(),
                path,
            });
        };
        let total = items.len();
        let start = offset.min(total);
        let end = self
            .limit
            .map_or(total, |l| start.saturating_add(l).min(total));
        items.truncate(end);
        items.drain(..start);
        let at = if path.is_empty() { "/" } else { &path };
        if end < total {
            let next = encode_cursor(self.kept_as.as_deref().unwrap_or(""), &path, end);
            shaped.notes.push(format!(
                "{at}: items {}-{end} of {total}; next page: cursor {next}",
                start + 1
            ));
            shaped.next_cursor = Some(next);
        } else if start > 0 {
            shaped.notes.push(format!(
                "{at}: items {}-{end} of {total} (last page)",
                start + 1
            ));
        }
        Ok(())
    }
}

/// A cursor is the kept result's key (empty when none), `offset` and the array's JSON Pointer,
/// hex-encoded so it reads as opaque.
fn encode_cursor(key: &str, path: &str, offset: usize) -> String {
    format!("{key}:{offset}:{path}")
        .bytes()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn decode_cursor(cursor: &str) -> Result<(String, String, usize)> {
    let bad = || Error::InvalidCursor(cursor.to_owned());
    if !cursor.len().is_multiple_of(2) || cursor.len() > 8192 {
        return Err(bad());
    }
    let bytes = (0..cursor.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(cursor.get(i..i + 2).ok_or_else(bad)?, 16).map_err(|_| bad()))
        .collect::<Result<Vec<u8>>>()?;
    let text = String::from_utf8(bytes).map_err(|_| bad())?;
    let (key, rest) = text.split_once(':').ok_or_else(bad)?;
    let (offset, path) = rest.split_once(':').ok_or_else(bad)?;
    if !key.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(bad());
    }
    Ok((
        key.to_owned(),
        path.to_owned(),
        offset.parse().map_err(|_| bad())?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toon;

    fn users(n: i64) -> Value {
        let rows: Vec<Value> = (0..n)
            .map(|i| toon!({"id": i, "name": "u", "secret": "s"}))
            .collect();
        toon!({"count": n, "users": rows})
    }

    #[test]
    fn pages_follow_the_cursor_to_the_end() {
        let mut seen = Vec::new();
        let mut cursor = None;
        for _ in 0..10 {
            let mut v = users(5);
            let shaping = Shaping {
                limit: Some(2),
                cursor: cursor.clone(),
                ..Shaping::default()
            };
            let shaped = shaping.apply(&mut v).unwrap();
            seen.extend(
                v["users"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|u| u["id"].as_i64().unwrap()),
            );
            cursor = shaped.next_cursor;
            if cursor.is_none() {
                assert!(
                    shaped.notes[0].contains("items 5-5 of 5 (last page)"),
                    "{:?}",
                    shaped.notes
                );
                break;
            }
            assert!(
                shaped.notes[0].starts_with("/users: items"),
                "{:?}",
                shaped.notes
            );
        }
        assert_eq!(seen, [0, 1, 2, 3, 4]);
    }

    #[test]
    fn fields_then_budget() {
        let mut v = users(400);
        let shaping = Shaping {
            fields: vec!["users.id".into()],
            max_tokens: Some(60),
            ..Shaping::default()
        };
        let shaped = shaping.apply(&mut v).unwrap();
        assert!(v.get("count").is_none());
        assert!(v["users"][0].get("secret").is_none());
        assert!(
            shaped.notes[0].contains("elided: /users: first"),
            "{:?}",
            shaped.notes
        );
        let unknown = Shaping {
            fields: vec!["nope".into()],
            ..Shaping::default()
        };
        assert!(
            unknown
                .apply(&mut users(1))
                .unwrap_err()
                .to_string()
                .contains("users")
        );
    }

    #[test]
    fn cursors_carry_the_kept_result() {
        let shaping = Shaping {
            limit: Some(2),
            kept_as: Some("00ab".into()),
            ..Shaping::default()
        };
        let shaped = shaping.apply(&mut users(5)).unwrap();
        let next = Shaping {
            cursor: shaped.next_cursor,
            ..Shaping::default()
        };
        assert_eq!(next.cursor_key().unwrap().as_deref(), Some("00ab"));
        let mut v = users(5);
        next.apply(&mut v).unwrap();
        assert_eq!(v["users"][0]["id"].as_i64(), Some(2));
    }

    #[test]
    fn bad_cursors_are_errors() {
        for c in ["zz", "abc", "3a", &encode_cursor("", "/missing", 1)] {
            let shaping = Shaping {
                cursor: Some(c.to_owned()),
                ..Shaping::default()
            };
            assert!(shaping.apply(&mut users(3)).is_err(), "{c}");
        }
    }
}
