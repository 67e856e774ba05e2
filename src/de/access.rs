//! serde `MapAccess`/`SeqAccess` over TOON's structures: object blocks (§8), list items (§9.4,
//! §10), tabular rows (§9.3), keyed tables (§9.5), inline arrays (§9.1), and row cells.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::header::{Field, Header, leaf_count};
use super::key::{FieldKeyDe, KeyDe, split_field_key, split_key};
use super::scanner::Line;
use super::token::{find_unquoted, split_delimited, trim_spaces};
use super::{Deserializer, Slot, ValueDe, eof};
use crate::error::{Error, Quoted, Result};

/// Strict-mode duplicate sibling key detection (§14.3): a short list, a set once it grows.
#[derive(Default)]
struct SeenKeys<'de> {
    few: Vec<Cow<'de, str>>,
    many: Option<HashSet<Cow<'de, str>>>,
}

impl<'de> SeenKeys<'de> {
    /// False if `key` was seen before.
    #[allow(clippy::ptr_arg)] // the key is cloned as a `Cow` to stay borrowed when it can
    fn insert(&mut self, key: &Cow<'de, str>) -> bool {
        if let Some(set) = &mut self.many {
            return set.insert(key.clone());
        }
        if self.few.contains(key) {
            return false;
        }
        self.few.push(key.clone());
        if self.few.len() > 16 {
            self.many = Some(self.few.drain(..).collect());
        }
        true
    }
}

fn duplicate(line: &Line<'_>, key: &str) -> Error {
    line.error(format!(
        "duplicate key {} (strict mode; non-strict keeps the last)",
        Quoted(key)
    ))
}

fn over_indented(line: &Line<'_>, expected: usize) -> Error {
    line.error(format!(
        "over-indented line: expected depth {expected}, found {}",
        line.depth
    ))
}

fn stopped_early() -> Error {
    Error::data("the target type ended before the end of this array or object")
}

/// §9.3 row/key-value disambiguation at row depth.
fn is_data_row(content: &str, delim: u8) -> bool {
    match find_unquoted(content, b':', 0) {
        None => true,
        Some(colon) => find_unquoted(content, delim, 0).is_some_and(|d| d < colon),
    }
}

/// The fields of an object at `depth` (§8), or of a list-item object (§10) whose first field
/// is on the hyphen line.
pub(crate) struct ObjectAccess<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    first: Option<(&'de str, Line<'de>)>,
    /// Lines shallower than this end the object.
    min_depth: usize,
    /// The depth of the object's fields.
    depth: usize,
    pending: Option<Slot<'de, 'de>>,
    seen: Option<SeenKeys<'de>>,
    /// Non-strict struct targets: the line each key last appears on; earlier occurrences are
    /// skipped so the last one wins (§14.3) without serde's "duplicate field" error.
    last_wins: Option<HashMap<Cow<'de, str>, usize>>,
    done: bool,
}

impl<'a, 'de> ObjectAccess<'a, 'de> {
    /// The fields of a `key:` block at depth `parent`, or `None` when no deeper line follows
    /// (the value is then `{}`, §8).
    pub(crate) fn block(de: &'a mut Deserializer<'de>, parent: usize) -> Result<Option<Self>> {
        if !matches!(de.scan.peek()?, Some(next) if next.depth > parent) {
            return Ok(None);
        }
        let depth = de.content_depth(parent)?;
        Ok(Some(Self::new(de, None, parent + 1, depth)))
    }

    /// An object at `depth` whose first field is on an already consumed line (list items,
    /// §10; the root, §5).
    pub(crate) fn inline(
        de: &'a mut Deserializer<'de>,
        first: Option<(&'de str, Line<'de>)>,
        depth: usize,
    ) -> Self {
        Self::new(de, first, depth, depth)
    }

    /// Prepares last-write-wins for a struct target: finds the last line of every key among
    /// the object's sibling lines. Only called in non-strict mode.
    pub(crate) fn last_write_wins(mut self) -> Self {
        let mut last = HashMap::new();
        let mut record = |content: &'de str, number: usize| {
            if let Ok((key, _)) = split_field_key(content) {
                last.insert(key, number);
            }
        };
        if let Some((content, line)) = self.first {
            record(content, line.number);
        }
        for line in self.de.scan.lookahead() {
            if line.depth < self.min_depth {
                break;
            }
            if line.depth == self.depth {
                record(line.content, line.number);
            }
        }
        self.last_wins = Some(last);
        self
    }

    fn new(
        de: &'a mut Deserializer<'de>,
        first: Option<(&'de str, Line<'de>)>,
        min_depth: usize,
        depth: usize,
    ) -> Self {
        let seen = de.strict.then(SeenKeys::default);
        ObjectAccess {
            de,
            first,
            min_depth,
            depth,
            pending: None,
            seen,
            last_wins: None,
            done: false,
        }
    }

    pub(crate) fn finish(mut self) -> Result<()> {
        if !self.done && self.next_key::<IgnoredAny>()?.is_some() {
            return Err(stopped_early());
        }
        Ok(())
    }
}

impl<'de> MapAccess<'de> for ObjectAccess<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let (content, line, key, slot) = loop {
            if self.done {
                return Ok(None);
            }
            let (content, line) = match self.first.take() {
                Some(first) => first,
                None => match self.de.scan.peek()? {
                    Some(line) if line.depth >= self.min_depth => {
                        if line.depth != self.depth {
                            return Err(over_indented(&line, self.depth));
                        }
                        self.de.scan.consume()?;
                        (line.content, line)
                    }
                    _ => {
                        self.done = true;
                        return Ok(None);
                    }
                },
            };
            let (key, slot) = self.de.field(content, line, self.depth)?;
            let overwritten = self
                .last_wins
                .as_ref()
                .is_some_and(|last| last.get(&key).is_some_and(|&n| n != line.number));
            if !overwritten {
                break (content, line, key, slot);
            }
            // A later line sets this key again: read and validate this value, then drop it.
            de::Deserializer::deserialize_ignored_any(
                ValueDe {
                    de: &mut *self.de,
                    slot,
                },
                IgnoredAny,
            )?;
        };
        if let Some(seen) = &mut self.seen
            && !seen.insert(&key)
        {
            return Err(duplicate(&line, &key));
        }
        self.pending = Some(slot);
        seed.deserialize(KeyDe(key))
            .map(Some)
            .map_err(|e| line.error_in(content, e))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let slot = self
            .pending
            .take()
            .ok_or_else(|| Error::data("a value was requested before its key"))?;
        seed.deserialize(ValueDe {
            de: &mut *self.de,
            slot,
        })
    }
}

/// An object materialized from row cells by a field list (§9.3): leaf fields take the next
/// cell, nested field groups recurse with the same cursor.
pub(crate) struct RowMap<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    fields: &'a [Field<'de>],
    cells: &'a [&'de str],
    cursor: &'a mut usize,
    next: usize,
    line: Line<'de>,
    /// Non-strict struct targets: skip fields whose name repeats later in the group (§14.3).
    last_wins: bool,
}

impl<'a, 'de> RowMap<'a, 'de> {
    /// Skips earlier duplicates of a field name so the last one wins for struct targets.
    pub(crate) fn last_write_wins(mut self) -> Self {
        self.last_wins = true;
        self
    }

    /// Moves past fields that a later field of the same name overrides.
    fn skip_overridden(&mut self) {
        while self.last_wins {
            let Some(field) = self.fields.get(self.next) else {
                return;
            };
            if !field.overridden {
                return;
            }
            *self.cursor += field.children.as_deref().map_or(1, leaf_count);
            self.next += 1;
        }
    }

    pub(crate) fn new(
        de: &'a mut Deserializer<'de>,
        fields: &'a [Field<'de>],
        cells: &'a [&'de str],
        cursor: &'a mut usize,
        line: Line<'de>,
    ) -> Self {
        RowMap {
            de,
            fields,
            cells,
            cursor,
            next: 0,
            line,
            last_wins: false,
        }
    }
}

impl<'de> MapAccess<'de> for RowMap<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        self.skip_overridden();
        match self.fields.get(self.next) {
            None => Ok(None),
            Some(field) => {
                let key = FieldKeyDe {
                    name: &field.name,
                    de: &mut *self.de,
                };
                match seed.deserialize(key) {
                    Ok(key) => Ok(Some(key)),
                    Err(e) if e.has_position() => Err(e),
                    Err(e) => Err(self.line.error_at(0, e)),
                }
            }
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let fields = self.fields;
        let field = fields
            .get(self.next)
            .ok_or_else(|| Error::data("a value was requested before its key"))?;
        self.next += 1;
        let slot = match &field.children {
            Some(children) => Slot::Row {
                fields: children,
                cells: self.cells,
                cursor: &mut *self.cursor,
                line: self.line,
            },
            None => {
                let text = *self
                    .cells
                    .get(*self.cursor)
                    .ok_or_else(|| self.line.error("row has fewer cells than fields"))?;
                *self.cursor += 1;
                Slot::Token {
                    text,
                    line: self.line,
                }
            }
        };
        seed.deserialize(ValueDe {
            de: &mut *self.de,
            slot,
        })
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.fields.len() - self.next.min(self.fields.len()))
    }
}

/// What a line at item depth is to the scope that peeked it.
enum LineRole {
    /// An item, row or entry of this scope.
    Item,
    /// Something else: the scope ends before it.
    End,
}

/// Bookkeeping shared by the line-based scopes (list items, tabular rows, keyed entries):
/// where their lines are, the declared count, items seen, and the array span (§12).
struct Span<'de> {
    declared: usize,
    count: usize,
    /// Lines at this depth or shallower end the scope.
    base: usize,
    /// The depth of the scope's items.
    depth: usize,
    started: bool,
    done: bool,
    header: Line<'de>,
    last: Line<'de>,
}

impl<'de> Span<'de> {
    /// A scope opened by `header` at `base`; its item depth follows §8 (`content_depth`).
    fn open(
        de: &mut Deserializer<'de>,
        declared: usize,
        base: usize,
        header: Line<'de>,
    ) -> Result<Self> {
        Ok(Span {
            declared,
            count: 0,
            base,
            depth: de.content_depth(base)?,
            started: false,
            done: false,
            header,
            last: header,
        })
    }

    /// Consumes and returns the scope's next item line, or `None` when the scope ends.
    /// `stop_at_declared`: strict arrays stop after N items (extra ones are reported by
    /// `close`'s caller); `role` classifies a line at item depth, or rejects it.
    fn next_line(
        &mut self,
        de: &mut Deserializer<'de>,
        stop_at_declared: bool,
        role: impl FnOnce(&Line<'de>) -> Result<LineRole>,
    ) -> Result<Option<Line<'de>>> {
        if self.done || (stop_at_declared && de.strict && self.count >= self.declared) {
            self.done = true;
            return Ok(None);
        }
        let line = match de.scan.peek()? {
            Some(line) if line.depth > self.base => line,
            _ => {
                self.done = true;
                return Ok(None);
            }
        };
        if line.depth != self.depth {
            return Err(over_indented(&line, self.depth));
        }
        if let LineRole::End = role(&line)? {
            self.done = true;
            return Ok(None);
        }
        de.scan.consume()?;
        if !self.started {
            self.started = true;
            de.scan.open_spans += 1;
        }
        self.count += 1;
        self.last = line;
        Ok(Some(line))
    }

    /// Closes the span and checks the declared count (strict only, v4.4 recovery 1).
    fn close(&mut self, de: &mut Deserializer<'de>, what: [&str; 2]) -> Result<()> {
        if self.started {
            de.scan.open_spans -= 1;
            self.started = false;
        }
        if de.strict && self.count != self.declared {
            let message = format!(
                "expected {}, found {} (declared by the header on line {})",
                counted(self.declared, what),
                self.count,
                self.header.number
            );
            let ended = self.count < self.declared && de.scan.peek()?.is_none();
            let err = if ended {
                eof(message)
            } else {
                Error::syntax(message)
            };
            return Err(self.last.error_at(0, err));
        }
        Ok(())
    }
}

/// §9.5 keyed tabular object: one entry row per key.
pub(crate) struct KeyedAccess<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    fields: Vec<Field<'de>>,
    delim: u8,
    leaves: usize,
    cells: Vec<&'de str>,
    cursor: usize,
    seen: Option<SeenKeys<'de>>,
    span: Span<'de>,
}

impl<'a, 'de> KeyedAccess<'a, 'de> {
    pub(crate) fn new(
        de: &'a mut Deserializer<'de>,
        header: Header<'de>,
        base: usize,
        line: Line<'de>,
    ) -> Result<Self> {
        let span = Span::open(de, header.len, base, line)?;
        let fields = header.fields.unwrap_or_default();
        let leaves = leaf_count(&fields);
        let cells = std::mem::take(&mut de.cells);
        let seen = de.strict.then(SeenKeys::default);
        Ok(KeyedAccess {
            de,
            fields,
            delim: header.delim,
            leaves,
            cells,
            cursor: 0,
            seen,
            span,
        })
    }

    pub(crate) fn finish(mut self) -> Result<()> {
        if !self.span.done && self.next_key::<IgnoredAny>()?.is_some() {
            return Err(stopped_early());
        }
        self.span.close(self.de, ["entry", "entries"])?;
        self.de.cells = std::mem::take(&mut self.cells);
        Ok(())
    }
}

impl<'de> MapAccess<'de> for KeyedAccess<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        // §9.5: every line at entry depth is an entry row; one without a colon is an error.
        let next = self.span.next_line(self.de, false, |line| {
            match find_unquoted(line.content, b':', 0) {
                Some(_) => Ok(LineRole::Item),
                None => Err(line.error("expected an entry row `key: cells` inside a keyed table")),
            }
        })?;
        let Some(line) = next else {
            return Ok(None);
        };
        let (key, rest) = split_key(line.content).map_err(|e| line.error_at(0, e))?;
        if let Some(seen) = &mut self.seen
            && !seen.insert(&key)
        {
            return Err(duplicate(&line, &key));
        }
        self.cells.clear();
        split_delimited(trim_spaces(rest), self.delim, &mut self.cells);
        if self.cells.len() != self.leaves {
            return Err(line.error(format!(
                "expected {}, found {}",
                counted(self.leaves, ["cell", "cells"]),
                self.cells.len()
            )));
        }
        seed.deserialize(KeyDe(key))
            .map(Some)
            .map_err(|e| line.error_at(0, e))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        self.cursor = 0;
        seed.deserialize(ValueDe {
            de: &mut *self.de,
            slot: Slot::Row {
                fields: &self.fields,
                cells: &self.cells,
                cursor: &mut self.cursor,
                line: self.span.last,
            },
        })
    }
}

/// §9.3 tabular array: one row per line.
pub(crate) struct TabularSeq<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    fields: Vec<Field<'de>>,
    delim: u8,
    leaves: usize,
    cells: Vec<&'de str>,
    cursor: usize,
    span: Span<'de>,
}

impl<'a, 'de> TabularSeq<'a, 'de> {
    pub(crate) fn new(
        de: &'a mut Deserializer<'de>,
        header: Header<'de>,
        base: usize,
        line: Line<'de>,
    ) -> Result<Self> {
        let span = Span::open(de, header.len, base, line)?;
        let fields = header.fields.unwrap_or_default();
        let leaves = leaf_count(&fields);
        let cells = std::mem::take(&mut de.cells);
        Ok(TabularSeq {
            de,
            fields,
            delim: header.delim,
            leaves,
            cells,
            cursor: 0,
            span,
        })
    }

    pub(crate) fn finish(mut self) -> Result<()> {
        if !self.span.done && self.next_element::<IgnoredAny>()?.is_some() {
            return Err(stopped_early());
        }
        self.span.close(self.de, ["row", "rows"])?;
        if self.de.strict
            && let Some(next) = self.de.scan.peek()?
            && next.depth == self.span.depth
            && !next.content.starts_with("- ")
            && is_data_row(next.content, self.delim)
        {
            return Err(next.error(format!(
                "more rows than the {} declared by the header on line {}",
                self.span.declared, self.span.header.number
            )));
        }
        self.de.cells = std::mem::take(&mut self.cells);
        Ok(())
    }
}

impl<'de> SeqAccess<'de> for TabularSeq<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let delim = self.delim;
        let next = self.span.next_line(self.de, true, |line| {
            Ok(if is_data_row(line.content, delim) {
                LineRole::Item
            } else {
                LineRole::End
            })
        })?;
        let Some(line) = next else {
            return Ok(None);
        };
        self.cells.clear();
        split_delimited(line.content, self.delim, &mut self.cells);
        if self.cells.len() != self.leaves {
            return Err(line.error(format!(
                "expected {}, found {}",
                counted(self.leaves, ["cell", "cells"]),
                self.cells.len()
            )));
        }
        self.cursor = 0;
        seed.deserialize(ValueDe {
            de: &mut *self.de,
            slot: Slot::Row {
                fields: &self.fields,
                cells: &self.cells,
                cursor: &mut self.cursor,
                line,
            },
        })
        .map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.span.declared.saturating_sub(self.span.count).min(4096))
    }
}

/// §9.4 expanded list: one `- ` item per element.
pub(crate) struct ListSeq<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    span: Span<'de>,
}

impl<'a, 'de> ListSeq<'a, 'de> {
    pub(crate) fn new(
        de: &'a mut Deserializer<'de>,
        declared: usize,
        base: usize,
        line: Line<'de>,
    ) -> Result<Self> {
        let span = Span::open(de, declared, base, line)?;
        Ok(ListSeq { de, span })
    }

    pub(crate) fn finish(mut self) -> Result<()> {
        if !self.span.done && self.next_element::<IgnoredAny>()?.is_some() {
            return Err(stopped_early());
        }
        self.span.close(self.de, ["list item", "list items"])?;
        if self.de.strict
            && let Some(next) = self.de.scan.peek()?
            && next.depth == self.span.depth
            && next.content.starts_with("- ")
        {
            return Err(next.error(format!(
                "more list items than the {} declared by the header on line {}",
                self.span.declared, self.span.header.number
            )));
        }
        Ok(())
    }
}

impl<'de> SeqAccess<'de> for ListSeq<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let next = self.span.next_line(self.de, true, |line| {
            Ok(if line.content.starts_with("- ") || line.content == "-" {
                LineRole::Item
            } else {
                LineRole::End
            })
        })?;
        let Some(line) = next else {
            return Ok(None);
        };
        let slot = self.de.list_item(line, self.span.depth)?;
        seed.deserialize(ValueDe {
            de: &mut *self.de,
            slot,
        })
        .map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.span.declared.saturating_sub(self.span.count).min(4096))
    }
}

/// §9.1 inline primitive array: the values after the header's colon.
pub(crate) struct InlineSeq<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    cells: Vec<&'de str>,
    next: usize,
    line: Line<'de>,
}

impl<'a, 'de> InlineSeq<'a, 'de> {
    pub(crate) fn new(
        de: &'a mut Deserializer<'de>,
        inline: &'de str,
        header: &Header<'de>,
        line: Line<'de>,
    ) -> Result<Self> {
        let mut cells = std::mem::take(&mut de.cells);
        cells.clear();
        split_delimited(inline, header.delim, &mut cells);
        if de.strict && cells.len() != header.len {
            return Err(line.error_in(
                inline,
                Error::syntax(format!(
                    "expected {}, found {}",
                    counted(header.len, ["value", "values"]),
                    cells.len()
                )),
            ));
        }
        Ok(InlineSeq {
            de,
            cells,
            next: 0,
            line,
        })
    }

    pub(crate) fn finish(mut self) -> Result<()> {
        if self.next < self.cells.len() {
            return Err(self.line.error_at(0, stopped_early()));
        }
        self.de.cells = std::mem::take(&mut self.cells);
        Ok(())
    }
}

impl<'de> SeqAccess<'de> for InlineSeq<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let Some(&text) = self.cells.get(self.next) else {
            return Ok(None);
        };
        self.next += 1;
        seed.deserialize(ValueDe {
            de: &mut *self.de,
            slot: Slot::Token {
                text,
                line: self.line,
            },
        })
        .map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.cells.len() - self.next)
    }
}

/// Any object-shaped access, for enums written as one-key objects.
enum AnyMap<'a, 'de> {
    Object(ObjectAccess<'a, 'de>),
    Row(RowMap<'a, 'de>),
    Keyed(KeyedAccess<'a, 'de>),
}

impl<'de> MapAccess<'de> for AnyMap<'_, 'de> {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self {
            AnyMap::Object(m) => m.next_key_seed(seed),
            AnyMap::Row(m) => m.next_key_seed(seed),
            AnyMap::Keyed(m) => m.next_key_seed(seed),
        }
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        match self {
            AnyMap::Object(m) => m.next_value_seed(seed),
            AnyMap::Row(m) => m.next_value_seed(seed),
            AnyMap::Keyed(m) => m.next_value_seed(seed),
        }
    }
}

impl AnyMap<'_, '_> {
    fn finish(self) -> Result<()> {
        match self {
            AnyMap::Object(m) => m.finish(),
            AnyMap::Row(_) => Ok(()),
            AnyMap::Keyed(m) => m.finish(),
        }
    }
}

/// An externally tagged enum variant with content: `{variant: content}`.
pub(crate) struct EnumFromMap<'m, 'a, 'de> {
    map: &'m mut AnyMap<'a, 'de>,
}

fn not_an_enum() -> Error {
    Error::data("invalid type: expected an enum as a variant name or an object with one key")
}

impl EnumFromMap<'_, '_, '_> {
    pub(crate) fn visit<'de, V: Visitor<'de>>(
        value: ValueDe<'_, 'de>,
        visitor: V,
    ) -> Result<V::Value> {
        let ValueDe { de, slot } = value;
        let mut map = match slot {
            Slot::Block { parent } => {
                let located = de.scan.last;
                match ObjectAccess::block(de, parent)? {
                    Some(access) => AnyMap::Object(access),
                    None => {
                        return Err(match located {
                            Some(line) => line.error_at(0, not_an_enum()),
                            None => not_an_enum(),
                        });
                    }
                }
            }
            Slot::Object { first, depth } => AnyMap::Object(ObjectAccess::inline(de, first, depth)),
            Slot::Row {
                fields,
                cells,
                cursor,
                line,
            } => AnyMap::Row(RowMap::new(de, fields, cells, cursor, line)),
            Slot::Header { header, base, line } if header.keyed => {
                AnyMap::Keyed(KeyedAccess::new(de, header, base, line)?)
            }
            _ => return Err(de.locate(not_an_enum())),
        };
        let value = visitor.visit_enum(EnumFromMap { map: &mut map })?;
        if map.next_key::<IgnoredAny>()?.is_some() {
            return Err(Error::data("an enum object must have exactly one key"));
        }
        map.finish()?;
        Ok(value)
    }
}

impl<'de> de::EnumAccess<'de> for EnumFromMap<'_, '_, 'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        match self.map.next_key_seed(seed)? {
            Some(variant) => Ok((variant, self)),
            None => Err(not_an_enum()),
        }
    }
}

struct SeqSeed<V>(V);
impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for SeqSeed<V> {
    type Value = V::Value;
    fn deserialize<D: de::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<V::Value, D::Error> {
        d.deserialize_seq(self.0)
    }
}

struct MapSeed<V>(V);
impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for MapSeed<V> {
    type Value = V::Value;
    fn deserialize<D: de::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<V::Value, D::Error> {
        d.deserialize_map(self.0)
    }
}

impl<'de> de::VariantAccess<'de> for EnumFromMap<'_, '_, 'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        self.map.next_value::<()>()
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        self.map.next_value_seed(seed)
    }
    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.map.next_value_seed(SeqSeed(visitor))
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.map.next_value_seed(MapSeed(visitor))
    }
}

/// `1 row`, `3 rows`: a count with its noun, singular or plural.
fn counted(n: usize, [one, many]: [&str; 2]) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
