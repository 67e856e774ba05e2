//! Array and keyed headers (§6): `key[N<delim?>]{fields}:` and `key[N:<delim?>]{fields}:`.

use std::borrow::Cow;
use std::rc::Rc;

use super::token::{
    Unquoted, after_quoted, find_closing_quote, find_unquoted, parse_name, trim_spaces,
};
use crate::error::{Error, QuotedInput, Result};
use crate::quote;

/// One field entry of a fields segment, possibly a nested field group (§9.3).
#[derive(Debug)]
pub(crate) struct HeaderField<'de> {
    pub(crate) name: Cow<'de, str>,
    pub(crate) children: Option<Vec<HeaderField<'de>>>,
    /// A later field of the same group has the same name and wins (§14.3, non-strict).
    pub(crate) overridden: bool,
}

/// Number of cells a row carries: the depth-first count of leaf fields.
pub(crate) fn leaf_count(fields: &[HeaderField<'_>]) -> usize {
    fields
        .iter()
        .map(|f| f.children.as_deref().map_or(1, leaf_count))
        .sum()
}

/// A parsed field list (§6 fields-seg): the fields, the cells a row carries, and the first
/// repeated name, if any (§14.3). Shared by every header with the same field list.
#[derive(Debug, Default)]
pub(crate) struct FieldList<'de> {
    pub(crate) fields: Vec<HeaderField<'de>>,
    pub(crate) leaves: usize,
    duplicate: Option<String>,
}

impl FieldList<'_> {
    /// A copy that owns its names, for a reader that keeps a header past its line
    /// (`stream/`).
    pub(crate) fn to_owned_list(&self) -> FieldList<'static> {
        FieldList {
            fields: owned_fields(&self.fields),
            leaves: self.leaves,
            duplicate: self.duplicate.clone(),
        }
    }
}

fn owned_fields(fields: &[HeaderField<'_>]) -> Vec<HeaderField<'static>> {
    fields
        .iter()
        .map(|f| HeaderField {
            name: Cow::Owned(f.name.clone().into_owned()),
            children: f.children.as_deref().map(owned_fields),
            overridden: f.overridden,
        })
        .collect()
}

/// The field lists parsed so far, by their text and delimiter: a document repeats the same
/// nested table header once per parent row, and each is parsed once. A few entries, most
/// recent first; a miss parses and evicts the oldest.
#[derive(Default)]
pub(crate) struct HeaderCache<'de> {
    entries: Vec<(&'de str, u8, Rc<FieldList<'de>>)>,
}

impl<'de> HeaderCache<'de> {
    const CAPACITY: usize = 8;

    /// The field list parsed before from the same text and delimiter.
    fn get(&mut self, inner: &str, delim: u8) -> Option<Rc<FieldList<'de>>> {
        let at = self
            .entries
            .iter()
            .position(|(text, d, _)| *d == delim && *text == inner)?;
        if at != 0 {
            self.entries[..=at].rotate_right(1);
        }
        Some(Rc::clone(&self.entries[0].2))
    }

    /// Parses a field list not seen before and remembers it.
    fn parse(
        &mut self,
        inner: &'de str,
        delim: u8,
        max_depth: usize,
    ) -> Result<Rc<FieldList<'de>>> {
        let fields = field_entries(inner, delim, max_depth)?;
        Ok(self.insert(inner, delim, fields))
    }

    /// Remembers the fields parsed from `inner`, with their repeated names marked (§14.3).
    fn insert(
        &mut self,
        inner: &'de str,
        delim: u8,
        mut fields: Vec<HeaderField<'de>>,
    ) -> Rc<FieldList<'de>> {
        let duplicate = find_duplicate(&fields);
        if duplicate.is_some() {
            mark_overridden(&mut fields);
        }
        let list = Rc::new(FieldList {
            leaves: leaf_count(&fields),
            fields,
            duplicate,
        });
        if self.entries.len() == Self::CAPACITY {
            self.entries.pop();
        } else if self.entries.capacity() == 0 {
            self.entries.reserve_exact(Self::CAPACITY);
        }
        self.entries.insert(0, (inner, delim, Rc::clone(&list)));
        list
    }
}

#[derive(Debug, Default)]
pub(crate) struct Header<'de> {
    pub(crate) key: Option<Cow<'de, str>>,
    pub(crate) len: usize,
    pub(crate) delim: u8,
    /// `[N:]`: a keyed tabular object (§9.5).
    pub(crate) keyed: bool,
    pub(crate) fields: Option<Rc<FieldList<'de>>>,
    /// Inline primitive values after the colon (§9.1), if any.
    pub(crate) inline: Option<&'de str>,
}

/// What a line's content is, as far as headers go.
pub(crate) enum Parsed<'de> {
    /// Not a header: the caller treats the line as key-value (or scalar).
    NotHeader,
    Header(Header<'de>),
    /// A header with a syntax error, and the byte offset in the content where it was found.
    Invalid(Error, usize),
}

fn invalid<'de>(message: impl Into<String>, at: usize) -> Parsed<'de> {
    Parsed::Invalid(Error::syntax(message), at)
}

/// Parses `content` as a header (§6); `max_depth` bounds nested field groups.
pub(crate) fn parse<'de>(
    content: &'de str,
    strict: bool,
    max_depth: usize,
    cache: &mut HeaderCache<'de>,
) -> Parsed<'de> {
    match parse_common(content, strict, max_depth, cache) {
        Some(header) => Parsed::Header(header),
        None => parse_full(content, strict, max_depth, cache),
    }
}

/// [`parse`] for every header: quoted keys, nested field groups, new field lists, errors.
// Not inlined into `parse`: there it made the fast path around it slower (3% more of
// `parse`'s instructions reading the `nested` data set's events, none of them its own).
#[inline(never)]
fn parse_full<'de>(
    content: &'de str,
    strict: bool,
    max_depth: usize,
    cache: &mut HeaderCache<'de>,
) -> Parsed<'de> {
    match full_header(content, strict, max_depth, cache) {
        Ok(header) => Parsed::Header(header),
        Err(not_a_header) => not_a_header,
    }
}

/// One step of [`parse_full`]: its result, or what the line is when the parse stops there
/// ([`Parsed::NotHeader`] or [`Parsed::Invalid`], never a header).
type FullParse<'de, T> = std::result::Result<T, Parsed<'de>>;

/// The header in `content`, its segments read in the order their errors take precedence:
/// where they lie, the key, the bracket, the field list, what may follow the colon.
fn full_header<'de>(
    content: &'de str,
    strict: bool,
    max_depth: usize,
    cache: &mut HeaderCache<'de>,
) -> FullParse<'de, Header<'de>> {
    let at = Segments::find(content)?;
    let key = header_key(content, at.bracket_start)?;
    let after_colon = trim_spaces(&content[at.colon + 1..]);
    let (len, delim, keyed) = bracket(&content[at.bracket_start + 1..at.bracket_end], strict)
        .map_err(|e| Parsed::Invalid(e, at.bracket_start))?;
    let fields = match at.field_list {
        Some((open, close)) => Some(field_list(content, open, close, delim, max_depth, cache)?),
        None => None,
    };
    at.check_fields(fields.as_deref(), keyed, after_colon, strict)?;
    Ok(Header {
        key,
        len,
        delim,
        keyed,
        fields,
        inline: (!after_colon.is_empty()).then_some(after_colon),
    })
}

/// Where a header's segments lie in its content (§6), as byte offsets:
/// `key[bracket]{field list}:inline values`.
struct Segments {
    /// The `[` opening the bracket segment; the key is all before it.
    bracket_start: usize,
    bracket_end: usize,
    /// The field list's `{` and its matching `}`, when it has both.
    field_list: Option<(usize, usize)>,
    /// Just past the field list's `}`, or past `]` without one.
    brace_end: usize,
    colon: usize,
}

impl Segments {
    /// The segments of `content`, or why it is no header or an invalid one: nothing may
    /// stand between `]`, the field list and the colon.
    fn find(content: &str) -> FullParse<'_, Segments> {
        let bracket_start = bracket_start(content).ok_or(Parsed::NotHeader)?;
        // §5.2: a line whose first unquoted colon precedes its first '[' is a key-value line.
        match find_unquoted(content, b':', 0) {
            Some(colon) if colon > bracket_start => {}
            _ => return Err(Parsed::NotHeader),
        }
        let bracket_end = find_unquoted(content, b']', bracket_start)
            .ok_or_else(|| invalid("unterminated bracket segment in header", bracket_start))?;
        let mut brace_end = bracket_end + 1;
        let brace_start = find_unquoted(content, b'{', bracket_end)
            .filter(|&b| find_unquoted(content, b':', bracket_end).is_some_and(|c| b < c));
        if let Some(brace_start) = brace_start {
            let gap = &content[bracket_end + 1..brace_start];
            if !gap.is_empty() {
                return Err(gap_error(gap, "field list", bracket_end + 1));
            }
            if let Some(close) = find_matching_brace(content, brace_start) {
                brace_end = close + 1;
            }
        }
        let brace_close =
            brace_start.and_then(|_| brace_end.checked_sub(1).filter(|&c| c > bracket_end));
        let colon = find_unquoted(content, b':', bracket_end.max(brace_end))
            .ok_or_else(|| invalid("missing colon after array header", content.len()))?;
        let gap_start = (bracket_end + 1).max(brace_end);
        let gap = &content[gap_start..colon];
        if !gap.is_empty() {
            return Err(gap_error(gap, "colon", gap_start));
        }
        Ok(Segments {
            bracket_start,
            bracket_end,
            field_list: brace_start
                .filter(|&b| b < colon)
                .zip(brace_close.filter(|&c| c < colon)),
            brace_end,
            colon,
        })
    }

    /// What a field list allows (§6, §9.5, §14.3): a keyed header needs one, nothing may
    /// follow the colon of a header with one, and strict mode refuses a repeated name.
    fn check_fields<'de>(
        &self,
        fields: Option<&FieldList<'_>>,
        keyed: bool,
        after_colon: &str,
        strict: bool,
    ) -> FullParse<'de, ()> {
        let duplicate = fields.and_then(|f| f.duplicate.as_deref());
        if keyed && fields.is_none() {
            return Err(invalid(
                "a keyed header requires a field list",
                self.bracket_end,
            ));
        }
        if fields.is_some() && !after_colon.is_empty() {
            return Err(invalid(
                match &duplicate {
                    Some(name) => {
                        format!("duplicate field name {} in field list", QuotedInput(name))
                    }
                    None => "unexpected content after a fields-bearing header's colon".to_string(),
                },
                self.colon + 1,
            ));
        }
        if strict && let Some(name) = duplicate {
            return Err(invalid(
                format!("duplicate field name {} in field list", QuotedInput(name)),
                self.brace_end,
            ));
        }
        Ok(())
    }
}

/// Where the bracket segment opens: after a quoted key, or at the first unquoted `[`.
/// `None` when the line has none, so it is no header.
fn bracket_start(content: &str) -> Option<usize> {
    if content.starts_with('"') {
        let close = find_closing_quote(content, 0)?;
        (content.as_bytes().get(close + 1) == Some(&b'[')).then_some(close + 1)
    } else {
        find_unquoted(content, b'[', 0)
    }
}

/// The key before the bracket segment (§7.4), `None` for a root array's header.
fn header_key(content: &str, bracket_start: usize) -> FullParse<'_, Option<Cow<'_, str>>> {
    if bracket_start == 0 {
        return Ok(None);
    }
    let raw_key = &content[..bracket_start];
    if raw_key.ends_with([' ', '\t']) {
        return Err(invalid(
            "unexpected whitespace between key and bracket segment",
            bracket_start,
        ));
    }
    parse_name(raw_key)
        .map(Some)
        .map_err(|e| Parsed::Invalid(e, 0))
}

/// The field list between the braces at `open` and `close` (§6 fields-seg), from the cache
/// when its text was parsed before; its unquoted delimiters must be the bracket's (§11).
fn field_list<'de>(
    content: &'de str,
    open: usize,
    close: usize,
    delim: u8,
    max_depth: usize,
    cache: &mut HeaderCache<'de>,
) -> FullParse<'de, Rc<FieldList<'de>>> {
    let inner = &content[open + 1..close];
    // A field list seen before passed every check below.
    if let Some(list) = cache.get(inner, delim) {
        return Ok(list);
    }
    for other in [b',', b'\t', b'|'] {
        if other != delim && find_unquoted(inner, other, 0).is_some() {
            return Err(invalid(
                format!(
                    "header delimiter mismatch: the bracket declares {} but the field list \
                     contains an unquoted {}",
                    show(delim),
                    show(other)
                ),
                open,
            ));
        }
    }
    cache
        .parse(inner, delim, max_depth)
        .map_err(|e| Parsed::Invalid(e, open))
}

/// The common header in one forward pass: a plain key (§7.3 characters, or none), a bracket
/// of digits with an optional `:` and delimiter, a field list already in the cache or made
/// of plain names only (nested groups included, [`plain_fields`]), the colon, then inline
/// values or nothing. `None` for anything else, and for every header the checks of
/// [`parse`] would refuse: that full parse then decides (and words the error), so both
/// paths read a header the same way.
fn parse_common<'de>(
    content: &'de str,
    strict: bool,
    max_depth: usize,
    cache: &mut HeaderCache<'de>,
) -> Option<Header<'de>> {
    let bytes = content.as_bytes();
    let open = plain_name_len(bytes)?;
    if bytes[open] != b'[' {
        return None;
    }
    let (len, delim, keyed, close) = common_bracket(bytes, open + 1)?;
    let (fields, colon) = match bytes.get(close + 1)? {
        b':' => (None, close + 1),
        b'{' => {
            let start = close + 2;
            let end = start + memchr::memchr(b'}', bytes.get(start..)?)?;
            let inner = content.split_at(end).0.split_at(start).1;
            // Only a text the full parser has read as a whole field list is in the cache.
            // One that matches here has no `}` (it ends at the first), so no nested group
            // (whose `{` would need a `}` of its own) and no quoted `}`: the full parser's
            // matching brace is this one, and its reading the cached one.
            let cached = match bytes.get(end + 1) {
                Some(b':') => cache.get(inner, delim),
                _ => None,
            };
            match cached {
                Some(list) => (Some(list), end + 1),
                None => {
                    let mut at = start;
                    let fields = plain_fields(content, &mut at, delim, max_depth)?;
                    if bytes.get(at) != Some(&b':') {
                        return None;
                    }
                    let inner = content.split_at(at - 1).0.split_at(start).1;
                    (Some(cache.insert(inner, delim, fields)), at)
                }
            }
        }
        _ => return None,
    };
    let after_colon = trim_spaces(content.split_at(colon + 1).1);
    let refused = (keyed && fields.is_none())
        || (fields.is_some() && !after_colon.is_empty())
        || (strict && fields.as_ref().is_some_and(|f| f.duplicate.is_some()));
    if refused {
        return None;
    }
    Some(Header {
        key: (open > 0).then(|| Cow::Borrowed(content.split_at(open).0)),
        len,
        delim,
        keyed,
        fields,
        inline: (!after_colon.is_empty()).then_some(after_colon),
    })
}

/// The bracket segment of a common header (§6), read in one pass from just past its `[`:
/// digits without a leading zero, `:` for a keyed table (§9.5), a tab or `|` for another
/// delimiter than the comma (§11), then `]`. The length, delimiter, keyedness and where the
/// `]` is; `None` for anything else, a length past `usize` included, which [`bracket`] then
/// reads or words the error of.
fn common_bracket(bytes: &[u8], start: usize) -> Option<(usize, u8, bool, usize)> {
    let mut at = start;
    let mut len = 0usize;
    while let Some(digit) = bytes
        .get(at)
        .map(|b| b.wrapping_sub(b'0'))
        .filter(|&d| d <= 9)
    {
        len = len.checked_mul(10)?.checked_add(usize::from(digit))?;
        at += 1;
    }
    if at == start || (at > start + 1 && bytes[start] == b'0') {
        return None;
    }
    let keyed = bytes.get(at) == Some(&b':');
    at += usize::from(keyed);
    let delim = match bytes.get(at) {
        Some(&b @ (b'|' | b'\t')) => {
            at += 1;
            b
        }
        _ => b',',
    };
    (bytes.get(at) == Some(&b']')).then_some((len, delim, keyed, at))
}

/// How many bytes at the start of `bytes` are §7.3 key characters (letters, digits, `_`,
/// `.`); `None` when they all are, so that no header or field list ends there. One table
/// load a byte ([`quote::is_key_byte`]).
fn plain_name_len(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| !quote::is_key_byte(b))
}

/// A field list of plain names (§7.3 characters) split on `delim`, with nested groups
/// (§9.3), read from `*at` (just past a `{`) to just past its closing `}`, where `*at` is
/// left. `None` for anything else (quotes, spaces, empty names, other delimiters, a group
/// past `depth_left`): [`field_entries`] then reads the list, or words its error. On the
/// lists this accepts, both give the same fields.
fn plain_fields<'de>(
    content: &'de str,
    at: &mut usize,
    delim: u8,
    depth_left: usize,
) -> Option<Vec<HeaderField<'de>>> {
    if depth_left == 0 {
        return None;
    }
    let bytes = content.as_bytes();
    let mut fields = Vec::new();
    loop {
        let start = *at;
        let len = plain_name_len(bytes.get(start..)?)?;
        if len == 0 {
            return None;
        }
        *at = start + len;
        let name = content.split_at(*at).0.split_at(start).1;
        let children = if bytes[*at] == b'{' {
            *at += 1;
            Some(plain_fields(content, at, delim, depth_left - 1)?)
        } else {
            None
        };
        fields.push(HeaderField {
            name: Cow::Borrowed(name),
            children,
            overridden: false,
        });
        let next = *bytes.get(*at)?;
        *at += 1;
        if next == b'}' {
            return Some(fields);
        }
        if next != delim {
            return None;
        }
    }
}

/// §6: nothing may stand between `]` and the field list or colon.
fn gap_error<'de>(gap: &str, before: &str, at: usize) -> Parsed<'de> {
    let trimmed = gap.trim_matches([' ', '\t']);
    let message = if trimmed.is_empty() {
        format!("unexpected whitespace between bracket segment and {before}")
    } else {
        format!(
            "unexpected content {} between bracket segment and {before}",
            QuotedInput(trimmed)
        )
    };
    invalid(message, at)
}

fn show(delim: u8) -> &'static str {
    match delim {
        b'\t' => "tab",
        b'|' => "'|'",
        _ => "','",
    }
}

/// `N`, `N|`, `N\t`, `N:`, `N:|`, `N:\t` → (length, delimiter, keyed).
///
/// A length beyond `usize` is an error in strict mode; in non-strict mode counts are advisory
/// (§14.3), so it saturates and the rows decide.
fn bracket(segment: &str, strict: bool) -> Result<(usize, u8, bool)> {
    let (rest, delim) = match segment.as_bytes().last() {
        Some(b'\t') => (&segment[..segment.len() - 1], b'\t'),
        Some(b'|') => (&segment[..segment.len() - 1], b'|'),
        _ => (segment, b','),
    };
    let (digits, keyed) = match rest.strip_suffix(':') {
        Some(d) => (d, true),
        None => (rest, false),
    };
    // The digits are checked and accumulated in one pass; `None` past `usize::MAX`.
    let mut value = Some(0usize);
    let mut all_digits = true;
    for b in digits.bytes() {
        let d = b.wrapping_sub(b'0');
        all_digits &= d <= 9;
        value = value.and_then(|v| v.checked_mul(10)?.checked_add(usize::from(d)));
    }
    let valid = !digits.is_empty() && all_digits && (digits == "0" || !digits.starts_with('0'));
    if !valid {
        return Err(Error::syntax(format!(
            "invalid array length {}: expected a non-negative integer without leading zeros",
            QuotedInput(segment)
        )));
    }
    let len = match value {
        Some(len) => len,
        None if !strict => usize::MAX,
        None => {
            return Err(Error::syntax(format!(
                "array length {} is too large",
                QuotedInput(digits)
            )));
        }
    };
    Ok((len, delim, keyed))
}

/// The brace closing the one at `open`, outside quotes; jumps between braces and quotes.
fn find_matching_brace(s: &str, open: usize) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut depth = 0usize;
    let mut at = open;
    loop {
        let i = at + memchr::memchr3(b'{', b'}', b'"', bytes.get(at..)?)?;
        match bytes[i] {
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {
                at = after_quoted(bytes, i)?;
                continue;
            }
        }
        at = i + 1;
    }
}

/// Parses field entries recursively (§6 fields-seg, §9.3 nested field groups).
fn field_entries(content: &str, delim: u8, depth_left: usize) -> Result<Vec<HeaderField<'_>>> {
    if depth_left == 0 {
        return Err(Error::syntax(
            "nested field groups exceed the nesting limit",
        ));
    }
    split_top_level(content, delim)
        .map(|entry| {
            let entry = trim_spaces(entry);
            if entry.is_empty() {
                return Err(Error::syntax("empty field name in field list"));
            }
            let Some(group_start) = find_unquoted(entry, b'{', 0) else {
                return Ok(HeaderField {
                    name: parse_name(entry)?,
                    children: None,
                    overridden: false,
                });
            };
            let name = &entry[..group_start];
            if name.is_empty() {
                return Err(Error::syntax(
                    "missing field name before nested field group",
                ));
            }
            if name.ends_with(' ') {
                return Err(Error::syntax(
                    "unexpected whitespace before nested field group",
                ));
            }
            let close = find_matching_brace(entry, group_start)
                .ok_or_else(|| Error::syntax("unmatched brace in field list"))?;
            if close != entry.len() - 1 {
                return Err(Error::syntax("unexpected content after nested field group"));
            }
            Ok(HeaderField {
                name: parse_name(name)?,
                children: Some(field_entries(
                    &entry[group_start + 1..close],
                    delim,
                    depth_left - 1,
                )?),
                overridden: false,
            })
        })
        .collect()
}

/// Splits on `delim` at brace depth 0, outside quotes.
fn split_top_level(content: &str, delim: u8) -> TopLevel<'_> {
    TopLevel {
        content,
        delim,
        bytes: Unquoted::new(content, 0),
        start: 0,
        depth: 0,
        done: false,
    }
}

/// The entries of a field list, split lazily (no allocation per header).
struct TopLevel<'s> {
    content: &'s str,
    delim: u8,
    bytes: Unquoted<'s>,
    start: usize,
    depth: i64,
    done: bool,
}

impl<'s> Iterator for TopLevel<'s> {
    type Item = &'s str;

    fn next(&mut self) -> Option<&'s str> {
        if self.done {
            return None;
        }
        for (at, b) in self.bytes.by_ref() {
            match b {
                b'{' => self.depth += 1,
                b'}' => self.depth -= 1,
                _ if b == self.delim && self.depth == 0 => {
                    let part = &self.content[self.start..at];
                    self.start = at + 1;
                    return Some(part);
                }
                _ => {}
            }
        }
        self.done = true;
        Some(&self.content[self.start..])
    }
}

/// Marks every field that a later field of its group overrides, in one pass per group, so
/// that rows skip them in O(1) (§14.3 last-write-wins).
fn mark_overridden(fields: &mut [HeaderField<'_>]) {
    let mut last = std::collections::HashMap::with_capacity(fields.len());
    for (i, f) in fields.iter().enumerate() {
        last.insert(f.name.clone(), i);
    }
    for (i, f) in fields.iter_mut().enumerate() {
        f.overridden = last[&f.name] != i;
        if let Some(children) = f.children.as_deref_mut() {
            mark_overridden(children);
        }
    }
}

fn find_duplicate(fields: &[HeaderField<'_>]) -> Option<String> {
    // Short lists (nearly all) are searched pairwise: no hashing, no allocation.
    let mut seen =
        (fields.len() > 16).then(|| std::collections::HashSet::with_capacity(fields.len()));
    for (i, f) in fields.iter().enumerate() {
        let repeated = match &mut seen {
            Some(seen) => !seen.insert(f.name.as_ref()),
            None => fields[..i].iter().any(|g| g.name == f.name),
        };
        if repeated {
            return Some(f.name.to_string());
        }
        if let Some(dup) = f.children.as_deref().and_then(find_duplicate) {
            return Some(dup);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The jumping brace search finds what a byte-by-byte walk outside quotes finds.
    #[test]
    fn matching_brace_agrees_with_the_quote_tracker() {
        let alphabet = [b'{', b'}', b'"', b'\\', b'a', b','];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            crate::test_rng::next(&mut state);
            let len = (state % 14) as usize + 1;
            let mut text: String = (0..len)
                .map(|i| alphabet[((state >> (i * 4 + 6)) % 6) as usize] as char)
                .collect();
            text.insert(0, '{');
            let mut depth = 0usize;
            let expected = Unquoted::new(&text, 0).find_map(|(at, b)| {
                match b {
                    b'{' => depth += 1,
                    b'}' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            return Some(at);
                        }
                    }
                    _ => {}
                }
                None
            });
            assert_eq!(find_matching_brace(&text, 0), expected, "{text:?}");
        }
    }

    /// Bracket segments for [`common_headers_agree_with_the_full_parse`]: valid, invalid and
    /// near misses of [`common_bracket`].
    const BRACKETS: [&str; 20] = [
        "[2]",
        "[0]",
        "[02]",
        "[3|]",
        "[3\t]",
        "[2:]",
        "[2:|]",
        "[x]",
        "[2",
        "[99999999999999999999]",
        "[18446744073709551616]",
        "[]",
        "[:]",
        "[|]",
        "[0:\t]",
        "[007]",
        "[2|:]",
        "[2::]",
        "[2||]",
        "[ 2]",
    ];

    /// The one-pass common header reads what the full parse reads, or declines: generated
    /// lines (keys, brackets with delimiters and keyed marks, field lists, gaps, inline
    /// values), each parsed fully first so that the fast path finds its field list cached.
    #[test]
    fn common_headers_agree_with_the_full_parse() {
        const KEYS: [&str; 6] = ["items", "", "a.b", "x y", "\"q\"", "é"];
        const FIELDS: [&str; 21] = [
            "",
            "{a,b}",
            "{a|b}",
            "{a,a}",
            "{a,b{c}}",
            "{\"a\",b}",
            " {a}",
            "{a",
            "{\"a:b\",c}",
            "{\"x}\",y}",
            "{a:b}",
            "{\"a\",b{c}}",
            "{\"}\"}",
            "{\"a,b}",
            "{a{b{c}},d}",
            "{a{b},c{d|e}}",
            "{a{b}c}",
            "{a{},b}",
            "{a,,b}",
            "{a{b,a},a}",
            "{x.y,z_1,W}",
        ];
        const AFTER: [&str; 7] = [":", ": 1,2", ":  x ", " :", "", ": ", ":{a}"];
        let mut state = 0x51f1_5eed_0bad_cafeu64;
        let mut pick = |n: usize| crate::test_rng::next(&mut state) as usize % n;
        let (mut fast, mut cold, mut cold_fields) = (0, 0, 0);
        for _ in 0..40_000 {
            let content = [
                KEYS[pick(6)],
                BRACKETS[pick(20)],
                FIELDS[pick(21)],
                AFTER[pick(7)],
            ]
            .concat();
            let strict = pick(2) == 0;
            let depth = 1 + pick(2);
            let mut cache = HeaderCache::default();
            let full = match parse_full(&content, strict, depth, &mut cache) {
                Parsed::Header(h) => format!("{h:?}"),
                Parsed::NotHeader => "not a header".into(),
                Parsed::Invalid(e, at) => format!("{} at {at}", e.message()),
            };
            if let Some(header) = parse_common(&content, strict, depth, &mut cache) {
                fast += 1;
                assert_eq!(format!("{header:?}"), full, "{content:?}");
            }
            // A field list met for the first time is read by `plain_fields` when it can be.
            if let Some(header) = parse_common(&content, strict, depth, &mut HeaderCache::default())
            {
                cold += 1;
                cold_fields += usize::from(header.fields.is_some());
                assert_eq!(format!("{header:?}"), full, "cold: {content:?}");
            }
        }
        assert!(fast > 400, "{fast}");
        assert!(
            cold_fields > 100 && cold > cold_fields,
            "{cold} {cold_fields}"
        );
    }

    /// A header seen again takes its field list from the cache, checks included.
    #[test]
    fn repeated_field_lists_are_parsed_once() {
        let mut cache = HeaderCache::default();
        let first = match parse("a[2]{x,y}:", true, 8, &mut cache) {
            Parsed::Header(h) => h.fields.unwrap(),
            _ => panic!("a header"),
        };
        let second = match parse("b[5]{x,y}:", true, 8, &mut cache) {
            Parsed::Header(h) => h.fields.unwrap(),
            _ => panic!("a header"),
        };
        assert!(Rc::ptr_eq(&first, &second));
        assert!(matches!(
            parse("c[1|]{x,y}:", true, 8, &mut cache),
            Parsed::Invalid(..)
        ));
        assert!(matches!(
            parse("d[1]{x,x}:", true, 8, &mut cache),
            Parsed::Invalid(..)
        ));
        assert!(matches!(
            parse("d[1]{x,x}:", true, 8, &mut cache),
            Parsed::Invalid(..)
        ));
    }
}
