//! One tabular row or keyed-table entry as an object (§9.3): leaf fields take the next cell,
//! nested field groups recurse with the same cursor.

use serde::de::{DeserializeSeed, MapAccess};

use std::rc::Rc;

use super::header::{FieldList, Header, HeaderField, leaf_count};
use super::key::FieldKeyDe;
use super::scanner::Line;
use super::span::{Span, counted};
use super::token::split_delimited;
use super::{Deserializer, Slot, ValueDe};
use crate::error::{Error, Result};

/// An object materialized from row cells by a field list (§9.3): leaf fields take the next
/// cell, nested field groups recurse with the same cursor.
pub(crate) struct RowMap<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    fields: &'a [HeaderField<'de>],
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
    #[inline]
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
        fields: &'a [HeaderField<'de>],
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
                Slot::Token { text }
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

/// §9.3, §9.5: a row or entry must carry one cell per leaf field (in non-strict mode too).
pub(crate) fn check_cells(cells: usize, leaves: usize, line: &Line<'_>) -> Result<()> {
    if cells != leaves {
        return Err(line.error(format!(
            "expected {}, found {cells}",
            counted(leaves, ["cell", "cells"]),
        )));
    }
    Ok(())
}

/// The field list and the reusable cell buffer that a tabular array (§9.3) or keyed table
/// (§9.5) reads its rows with: split a row into cells, check their count, hand the row over
/// as an object.
pub(super) struct RowCells<'de> {
    fields: Rc<FieldList<'de>>,
    pub(super) delim: u8,
    cells: Vec<&'de str>,
    cursor: usize,
}

impl<'de> RowCells<'de> {
    /// Takes the header's field list and borrows the decoder's cell buffer (given back by
    /// [`RowCells::give_back`]).
    pub(super) fn new(de: &mut Deserializer<'de>, header: Header<'de>) -> Self {
        RowCells {
            fields: header.fields.unwrap_or_default(),
            delim: header.delim,
            cells: std::mem::take(&mut de.cells),
            cursor: 0,
        }
    }

    /// Splits one row's text on the delimiter; it must carry one cell per leaf field.
    pub(super) fn split(&mut self, text: &'de str, line: &Line<'de>) -> Result<()> {
        self.cells.clear();
        split_delimited(text, self.delim, &mut self.cells);
        self.check(line)
    }

    /// The next row of a span, read and split at the cursor when it is a plain row
    /// (`Scanner::next_row_line`), with its cell count checked; `None` sends the caller to
    /// the general path.
    pub(super) fn next_fast(
        &mut self,
        de: &mut Deserializer<'de>,
        span: &mut Span<'de>,
    ) -> Option<Result<Line<'de>>> {
        let (delim, cells) = (self.delim, &mut self.cells);
        let (line, ()) = span.next_fast(de, |scan, depth| {
            scan.next_row_line(depth, delim, cells)
                .map(|line| (line, ()))
        })?;
        Some(self.check(&line).map(|()| line))
    }

    /// A row must carry one cell per leaf field.
    fn check(&self, line: &Line<'de>) -> Result<()> {
        check_cells(self.cells.len(), self.fields.leaves, line)
    }

    /// The row last split, as an object.
    pub(super) fn slot(&mut self, line: Line<'de>) -> Slot<'_, 'de> {
        self.cursor = 0;
        Slot::Row {
            fields: &self.fields.fields,
            cells: &self.cells,
            cursor: &mut self.cursor,
            line,
        }
    }

    pub(super) fn give_back(&mut self, de: &mut Deserializer<'de>) {
        de.cells = std::mem::take(&mut self.cells);
    }
}
