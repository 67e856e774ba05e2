//! One tabular row or keyed-table entry as an object (§9.3): leaf fields take the next cell,
//! nested field groups recurse with the same cursor.

use serde::de::{DeserializeSeed, MapAccess};

use super::header::{Field, leaf_count};
use super::key::FieldKeyDe;
use super::scanner::Line;
use super::{Deserializer, Slot, ValueDe};
use crate::error::{Error, Result};

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
