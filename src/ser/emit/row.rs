//! Tabular rows and keyed entry rows (§9.3, §9.5): cells in header order, whatever order a
//! row's keys come in.

use serde::ser::{self, Serialize};

use super::cell::{Cell, Fail};
use super::{Out, inconsistent};
use crate::error::{Error, Result};
use crate::ser::probe::Fields;
use crate::ser::with_key_text;

/// Writes one row's leaf cells in header order (§9.3), whatever order its keys come in.
pub(super) fn row_cells<T: ?Sized + Serialize>(
    out: &mut Out<'_>,
    fields: &Fields,
    value: &T,
) -> Result<()> {
    let leaves = fields.leaves();
    out.spans.clear();
    out.spans.resize(leaves, (usize::MAX, 0));
    let start = out.buf.len();
    // Cells go straight to the output, each after a delimiter; a row whose keys came in
    // header order (the usual case for derived structs) is then already complete.
    let result = value.serialize(RowWriter {
        row: &mut out.buf,
        start,
        spans: &mut out.spans,
        fields,
        base: 0,
        delim: out.delim,
    });
    result?;
    let mut expected = start;
    let mut in_order = true;
    for (i, &(cell_start, cell_end)) in out.spans.iter().enumerate() {
        if cell_start == usize::MAX {
            return Err(inconsistent());
        }
        let gap = usize::from(i > 0);
        in_order &= cell_start == expected + gap;
        expected = cell_end;
    }
    if in_order && expected == out.buf.len() {
        return Ok(());
    }
    // Keys in another order: rewrite the row's cells in header order.
    out.row.clear();
    out.row.extend_from_slice(&out.buf[start..]);
    out.buf.truncate(start);
    for (i, &(cell_start, cell_end)) in out.spans.iter().enumerate() {
        if i > 0 {
            out.buf.push(out.delim);
        }
        out.buf
            .extend_from_slice(&out.row[cell_start - start..cell_end - start]);
    }
    Ok(())
}

/// Serializes a row object into per-leaf cell texts.
struct RowWriter<'a> {
    /// The output; this row starts at `start`.
    row: &'a mut Vec<u8>,
    start: usize,
    spans: &'a mut Vec<(usize, usize)>,
    fields: &'a Fields,
    /// Index of this group's first leaf in the row.
    base: usize,
    delim: u8,
}

/// A row object (or nested group) being written.
struct RowFields<'a> {
    w: RowWriter<'a>,
    next: usize,
    pending: usize,
}

impl<'a> RowFields<'a> {
    fn cell<T: ?Sized + Serialize>(&mut self, j: usize, value: &T) -> Result<()> {
        let w = &mut self.w;
        let at = w.base + w.fields.offset(j);
        match &w.fields.groups[j] {
            Some(group) => value.serialize(RowWriter {
                row: &mut *w.row,
                start: w.start,
                spans: &mut *w.spans,
                fields: group,
                base: at,
                delim: w.delim,
            }),
            None => {
                if w.row.len() > w.start {
                    w.row.push(w.delim);
                }
                let start = w.row.len();
                match value.serialize(Cell {
                    out: &mut *w.row,
                    delim: w.delim,
                    root: false,
                }) {
                    Ok(()) => {}
                    Err(Fail::Container | Fail::Object) => return Err(inconsistent()),
                    Err(Fail::Error(e)) => return Err(e),
                }
                // A repeated key would overwrite its cell; the probe counts it as breaking
                // the table, and so must a row written on a guess.
                if w.spans[at].0 != usize::MAX {
                    return Err(inconsistent());
                }
                w.spans[at] = (start, w.row.len());
                Ok(())
            }
        }
    }

    #[inline]
    fn locate(&mut self, key: &str) -> Result<usize> {
        let j = self
            .w
            .fields
            .position(key, self.next)
            .ok_or_else(inconsistent)?;
        self.next += 1;
        Ok(j)
    }
}

impl<'a> ser::Serializer for RowWriter<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = RowFields<'a>;
    type SerializeStruct = RowFields<'a>;
    type SerializeStructVariant = RowFields<'a>;

    refuse!(inconsistent(); primitives, serialize_bytes);

    transparent!();
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        let mut row = RowFields {
            w: self,
            next: 0,
            pending: 0,
        };
        let j = row.locate(variant)?;
        row.cell(j, value)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<RowFields<'a>> {
        Ok(RowFields {
            w: self,
            next: 0,
            pending: 0,
        })
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<RowFields<'a>> {
        self.serialize_map(None)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<RowFields<'a>> {
        // `{variant: {fields}}`: the fields fill the single nested group.
        let fields = self.fields;
        match (fields.names.as_slice(), fields.groups.as_slice()) {
            ([name], [Some(group)]) if name == variant => Ok(RowFields {
                w: RowWriter {
                    fields: group,
                    ..self
                },
                next: 0,
                pending: 0,
            }),
            _ => Err(inconsistent()),
        }
    }

    refuse!(inconsistent(); serialize_seq, serialize_tuple_struct);

    refuse!(inconsistent(); serialize_tuple, serialize_tuple_variant);
}

impl ser::SerializeMap for RowFields<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        self.pending = with_key_text(key, |text| self.locate(text))?;
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.cell(self.pending, value)
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

fields! {
    impl[] for RowFields<'_> {
        Ok = (), Error = Error;
        field(this, key, value) => {
            let j = this.locate(key)?;
            this.cell(j, value)
        };
        end(_this) => Ok(());
    }
}
