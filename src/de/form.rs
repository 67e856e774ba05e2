//! What a line is, decided from its text: the root's first line (§5), an object's field line
//! (§8), a list item's hyphen line (§10), the depth of a new scope (§8, v4.4 recovery 5), and
//! the errors these decisions raise. The serde [`Deserializer`](super::Deserializer) and the
//! event reader (`stream/`) both decide with these functions, so that the two read every
//! line alike.

use std::borrow::Cow;

use super::header::{self, Header, HeaderCache};
use super::key;
use super::scanner::Line;
use super::token::{self, find_unquoted, trim_spaces};
use crate::error::{Error, Result};

/// The grammar settings a line's form depends on, and the field lists parsed so far.
pub(crate) struct Rules<'c, 'de> {
    pub(crate) strict: bool,
    pub(crate) max_depth: usize,
    pub(crate) headers: &'c mut HeaderCache<'de>,
}

impl<'de> Rules<'_, 'de> {
    /// Parses `content` (a slice of `line`'s content) as a header (§6): `None` when it is
    /// none, an error placed where the header parser found it.
    pub(crate) fn header(
        &mut self,
        content: &'de str,
        line: &Line<'de>,
    ) -> Result<Option<Header<'de>>> {
        match header::parse(content, self.strict, self.max_depth, self.headers) {
            header::Parsed::NotHeader => Ok(None),
            header::Parsed::Header(h) => Ok(Some(h)),
            header::Parsed::Invalid(err, at) => {
                let offset = content.as_ptr() as usize - line.content.as_ptr() as usize + at;
                Err(line.error_at(offset, err))
            }
        }
    }
}

/// The value after a key's colon (§8), `rest` trimmed.
pub(crate) enum After<'de> {
    /// Nothing: a nested object if deeper lines follow, else `{}`.
    Block,
    /// `[]`: an empty array.
    EmptyArray,
    /// A primitive token.
    Token(&'de str),
}

/// §8: nothing is a block (a nested object, or `{}`), `[]` an empty array, anything else a
/// primitive token.
#[inline]
pub(crate) fn after_colon(rest: &str) -> After<'_> {
    match rest {
        "" => After::Block,
        "[]" => After::EmptyArray,
        _ => After::Token(rest),
    }
}

/// What follows an object field's key.
pub(crate) enum FieldForm<'de> {
    After(After<'de>),
    /// An array or keyed-table header (§6) with this key.
    Header(Header<'de>),
}

/// The common field line, read without the rest of [`field`]'s checks (§5.2): an unquoted
/// key whose colon comes before any '[' or '"' is a key-value line; deciding that needs only
/// the key's bytes, not the whole line. `None` for every other line.
#[inline]
pub(crate) fn plain_field(content: &str) -> Option<(&str, After<'_>)> {
    let (key, rest) = token::split_plain_key(content)?;
    Some((key, after_colon(rest)))
}

/// Splits a key-value or header line of an object (§5.2, §8) into its key and what follows.
pub(crate) fn field<'de>(
    content: &'de str,
    line: &Line<'de>,
    rules: &mut Rules<'_, 'de>,
) -> Result<(Cow<'de, str>, FieldForm<'de>)> {
    if let Some((key, after)) = plain_field(content) {
        return Ok((Cow::Borrowed(key), FieldForm::After(after)));
    }
    if let Some(mut header) = rules.header(content, line)? {
        let Some(key) = header.key.take() else {
            return Err(line.error(if header.keyed {
                "a keyless keyed header is only valid at the document root"
            } else {
                "a keyless array header is only valid at the document root or as a list item"
            }));
        };
        return Ok((key, FieldForm::Header(header)));
    }
    let (key, rest) = key::split_key(content).map_err(|e| line.error_in(content, e))?;
    Ok((key, FieldForm::After(after_colon(trim_spaces(rest)))))
}

/// What a list item's hyphen line holds (§9.4, §10).
pub(crate) enum ItemForm<'de> {
    /// `-` or `- ` alone: `{}`.
    EmptyObject,
    /// `- []`.
    EmptyArray,
    /// `- [N]…:`: a keyless array header.
    Header(Header<'de>),
    /// `- key: …`: an object whose first field is this text.
    Object(&'de str),
    /// `- value`: a primitive.
    Token(&'de str),
}

/// Whether a line at item depth is one of a list's items (§9.4).
#[inline]
pub(crate) fn is_list_item(content: &str) -> bool {
    content.starts_with("- ") || content == "-"
}

/// Reads a list item's hyphen line (§9.4, §10).
pub(crate) fn list_item<'de>(
    line: &Line<'de>,
    rules: &mut Rules<'_, 'de>,
) -> Result<ItemForm<'de>> {
    if line.content == "-" {
        return Ok(ItemForm::EmptyObject);
    }
    let after = line
        .content
        .get(2..)
        .unwrap_or_default()
        .trim_start_matches(' ');
    if after.is_empty() {
        return Ok(ItemForm::EmptyObject);
    }
    if after == "[]" {
        return Ok(ItemForm::EmptyArray);
    }
    let has_colon = find_unquoted(after, b':', 0).is_some();
    if after.starts_with('[')
        && has_colon
        && let Some(header) = rules.header(after, line)?
    {
        if header.keyed || header.fields.is_some() {
            return Err(
                line.error("a keyless header with a field list is only valid at the document root")
            );
        }
        return Ok(ItemForm::Header(header));
    }
    if has_colon {
        return Ok(ItemForm::Object(after));
    }
    Ok(ItemForm::Token(after))
}

/// The form of a document's root (§5), from its first significant line.
pub(crate) enum RootForm<'de> {
    /// `[]`.
    EmptyArray,
    /// A keyless header: a root array or keyed table.
    Header(Header<'de>),
    /// An object whose first field is on this line.
    Object,
    /// A line without a colon: a primitive if it is the only line; the next line decides
    /// ([`root_without_colon`]).
    Undecided,
}

/// §5 root form discovery from the first significant line.
pub(crate) fn root<'de>(first: &Line<'de>, rules: &mut Rules<'_, 'de>) -> Result<RootForm<'de>> {
    if first.depth != 0 {
        return Err(first.error(format!(
            "over-indented line: expected depth 0, found {}",
            first.depth
        )));
    }
    if first.content == "[]" {
        return Ok(RootForm::EmptyArray);
    }
    let has_colon = find_unquoted(first.content, b':', 0).is_some();
    if first.content.starts_with('[')
        && has_colon
        && let Some(header) = rules.header(first.content, first)?
    {
        return Ok(RootForm::Header(header));
    }
    Ok(if has_colon {
        RootForm::Object
    } else {
        RootForm::Undecided
    })
}

/// §5: a first line without a colon is the whole document's primitive when no line follows
/// (`false`), an error when another line at depth 0 follows, and otherwise an object's first
/// field (`true`; its missing colon is then the error).
pub(crate) fn root_without_colon(first: &Line<'_>, next: Option<&Line<'_>>) -> Result<bool> {
    match next {
        None => Ok(false),
        Some(next) if next.depth == 0 => Err(first.error(
            "a document with more than one line must start with a key-value or array header line",
        )),
        Some(_) => Ok(true),
    }
}

/// §8: a `key:` block at depth `parent` is a nested object when the next line is deeper;
/// otherwise it is `{}`.
#[inline]
pub(crate) fn opens_block(parent: usize, next: Option<&Line<'_>>) -> bool {
    next.is_some_and(|next| next.depth > parent)
}

/// §8 depth of the first line of a scope opened at `base`: one deeper; a deeper first line
/// is a strict error and, non-strict, sets the scope's depth (v4.4 recovery 5).
pub(crate) fn scope_depth(base: usize, first: Option<&Line<'_>>, strict: bool) -> Result<usize> {
    match first {
        Some(first) if first.depth > base + 1 => {
            if strict {
                Err(first.error(format!(
                    "indentation jumps from depth {base} to {}",
                    first.depth
                )))
            } else {
                Ok(first.depth)
            }
        }
        _ => Ok(base + 1),
    }
}

/// An object's next line (§8): `Ok(true)` for a field at `depth`, `Ok(false)` when the line
/// is shallower than `min_depth` (the object ends before it), an error at any other depth.
#[inline]
pub(crate) fn object_line(line: &Line<'_>, min_depth: usize, depth: usize) -> Result<bool> {
    match line.depth {
        d if d < min_depth => Ok(false),
        d if d != depth => Err(over_indented(line, depth)),
        _ => Ok(true),
    }
}

pub(crate) fn over_indented(line: &Line<'_>, expected: usize) -> Error {
    line.error(format!(
        "over-indented line: expected depth {expected}, found {}",
        line.depth
    ))
}

/// The nesting limit ([`crate::DecodeOptions::max_depth`]) refuses one more container.
pub(crate) fn too_deep(max_depth: usize) -> Error {
    Error::syntax(format!("nesting deeper than the limit of {max_depth}"))
}

/// §5: a significant line after the document's value.
pub(crate) fn after_document(line: &Line<'_>, root_is_closed_form: bool) -> Error {
    if root_is_closed_form {
        line.error("unexpected content after the document root")
    } else {
        line.error("unexpected content after the document")
    }
}
