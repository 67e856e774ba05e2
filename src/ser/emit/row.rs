//! Tabular rows and keyed entry rows (§9.3, §9.5): cells in header order, whatever order a
//! row's keys come in.

use serde::ser::{self, Serialize};

use super::cell::{Cell, Fail};
use super::{Emitter, inconsistent};
use crate::error::{Error, Result};
use crate::ser::probe::TableFields;
use crate::ser::with_key_text;

/// Writes one row's leaf cells in header order (§9.3), whatever order its keys come in.
///
/// Cells are first written as their keys come ([`InOrder`]): a row whose keys come in header
/// order (a derived struct's always do, and a map's usually) needs no bookkeeping beyond a
/// comparison per key. Anything else (keys in another order, a missing or unknown key, a
/// value that is no cell, an enum variant) takes the row back and writes it the general way,
/// which puts cells in order and reports what breaks the table.
pub(super) fn row_cells<T: ?Sized + Serialize>(
    out: &mut Emitter<'_>,
    fields: &TableFields,
    value: &T,
) -> Result<()> {
    let start = out.lines.buf.len();
    let in_order = InOrder {
        row: &mut out.lines.buf,
        start,
        fields,
        delim: out.lines.delim,
    };
    match value.serialize(in_order) {
        Ok(()) => return Ok(()),
        Err(Fail::Error(e)) => return Err(e),
        Err(Fail::Container | Fail::Object) => out.lines.buf.truncate(start),
    }
    reordered(out, fields, value, start)
}

/// [`row_cells`]' general path: each cell's span is recorded as it is written, and the cells
/// are put in header order afterwards. Cold: rows of one table nearly always share an order.
#[cold]
#[inline(never)]
fn reordered<T: ?Sized + Serialize>(
    out: &mut Emitter<'_>,
    fields: &TableFields,
    value: &T,
    start: usize,
) -> Result<()> {
    let leaves = fields.leaves();
    out.scratch.spans.clear();
    out.scratch.spans.resize(leaves, (usize::MAX, 0));
    // Cells go straight to the output, each after a delimiter; a row whose keys came in
    // header order (the usual case for derived structs) is then already complete.
    let result = value.serialize(RowWriter {
        row: &mut out.lines.buf,
        start,
        spans: &mut out.scratch.spans,
        fields,
        base: 0,
        delim: out.lines.delim,
    });
    result?;
    let mut expected = start;
    let mut in_order = true;
    for (i, &(cell_start, cell_end)) in out.scratch.spans.iter().enumerate() {
        if cell_start == usize::MAX {
            return Err(inconsistent());
        }
        let gap = usize::from(i > 0);
        in_order &= cell_start == expected + gap;
        expected = cell_end;
    }
    if in_order && expected == out.lines.buf.len() {
        return Ok(());
    }
    // Keys in another order: rewrite the row's cells in header order.
    out.scratch.row.clear();
    out.scratch.row.extend_from_slice(&out.lines.buf[start..]);
    out.lines.buf.truncate(start);
    for (i, &(cell_start, cell_end)) in out.scratch.spans.iter().enumerate() {
        if i > 0 {
            out.lines.buf.push(out.lines.delim);
        }
        out.lines
            .buf
            .extend_from_slice(&out.scratch.row[cell_start - start..cell_end - start]);
    }
    Ok(())
}

/// Writes one leaf cell of the row that starts at `start` in `row`, after a delimiter unless
/// it is the row's first; returns where the cell's text starts.
#[inline]
fn leaf_cell<T: ?Sized + Serialize>(
    row: &mut Vec<u8>,
    start: usize,
    delim: u8,
    value: &T,
) -> std::result::Result<usize, Fail> {
    if row.len() > start {
        row.push(delim);
    }
    let cell = row.len();
    value.serialize(Cell {
        out: row,
        delim,
        root: false,
    })?;
    Ok(cell)
}

/// Serializes a row object into per-leaf cell texts.
struct RowWriter<'a> {
    /// The output; this row starts at `start`.
    row: &'a mut Vec<u8>,
    start: usize,
    spans: &'a mut Vec<(usize, usize)>,
    fields: &'a TableFields,
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
                let start = match leaf_cell(w.row, w.start, w.delim, value) {
                    Ok(start) => start,
                    Err(Fail::Container | Fail::Object) => return Err(inconsistent()),
                    Err(Fail::Error(e)) => return Err(e),
                };
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
            .ok_or_else(inconsistent::<Error>)?;
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

/// Writes a row (or one of its nested groups) whose keys come in header order, each cell as
/// it comes. Fails with [`Fail::Container`] on anything else, for [`row_cells`] to take the
/// row back; only the value's own errors are [`Fail::Error`].
struct InOrder<'a> {
    /// The output; this row starts at `start`.
    row: &'a mut Vec<u8>,
    start: usize,
    fields: &'a TableFields,
    delim: u8,
}

/// The fields of a row (or nested group) written in header order; `next` is the header
/// position the next key must have.
struct InOrderFields<'a> {
    w: InOrder<'a>,
    next: usize,
    /// A map's key has been taken and its value not yet written.
    pending: bool,
}

impl InOrderFields<'_> {
    /// Takes `key` when it is the next field of the header.
    #[inline]
    fn expect(&mut self, key: &str) -> std::result::Result<usize, Fail> {
        let j = self.next;
        if !self.w.fields.is_at(j, key) {
            return Err(Fail::Container);
        }
        self.next = j + 1;
        Ok(j)
    }

    #[inline]
    fn cell<T: ?Sized + Serialize>(
        &mut self,
        j: usize,
        value: &T,
    ) -> std::result::Result<(), Fail> {
        let w = &mut self.w;
        match &w.fields.groups[j] {
            Some(group) => value.serialize(InOrder {
                row: &mut *w.row,
                start: w.start,
                fields: group,
                delim: w.delim,
            }),
            None => leaf_cell(w.row, w.start, w.delim, value).map(drop),
        }
    }

    /// Every field of the header came, each with its value.
    fn end(self) -> std::result::Result<(), Fail> {
        if self.next == self.w.fields.names.len() && !self.pending {
            Ok(())
        } else {
            Err(Fail::Container)
        }
    }
}

impl<'a> ser::Serializer for InOrder<'a> {
    type Ok = ();
    type Error = Fail;
    type SerializeSeq = ser::Impossible<(), Fail>;
    type SerializeTuple = ser::Impossible<(), Fail>;
    type SerializeTupleStruct = ser::Impossible<(), Fail>;
    type SerializeTupleVariant = ser::Impossible<(), Fail>;
    type SerializeMap = InOrderFields<'a>;
    type SerializeStruct = InOrderFields<'a>;
    type SerializeStructVariant = ser::Impossible<(), Fail>;

    transparent!();

    #[inline]
    fn serialize_map(self, _: Option<usize>) -> std::result::Result<InOrderFields<'a>, Fail> {
        Ok(InOrderFields {
            w: self,
            next: 0,
            pending: false,
        })
    }
    #[inline]
    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> std::result::Result<InOrderFields<'a>, Fail> {
        self.serialize_map(None)
    }

    // Enum variants and anything that is not an object take the general path.
    refuse!(Fail::Container; primitives, serialize_bytes, serialize_newtype_variant,
        serialize_seq, serialize_tuple, serialize_tuple_struct, serialize_tuple_variant,
        serialize_struct_variant);
}

/// A map's entry: the key's position, kept for its value.
impl ser::SerializeMap for InOrderFields<'_> {
    type Ok = ();
    type Error = Fail;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> std::result::Result<(), Fail> {
        // A key that is not text (an error here) also leaves it to the general path.
        match with_key_text(key, |text| Ok::<_, Error>(self.expect(text).is_ok())) {
            Ok(true) if !self.pending => {
                self.pending = true;
                Ok(())
            }
            _ => Err(Fail::Container),
        }
    }
    fn serialize_value<T: ?Sized + Serialize>(
        &mut self,
        value: &T,
    ) -> std::result::Result<(), Fail> {
        if !std::mem::replace(&mut self.pending, false) {
            return Err(Fail::Container);
        }
        self.cell(self.next - 1, value)
    }
    fn end(self) -> std::result::Result<(), Fail> {
        InOrderFields::end(self)
    }
}

impl ser::SerializeStruct for InOrderFields<'_> {
    type Ok = ();
    type Error = Fail;
    #[inline]
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> std::result::Result<(), Fail> {
        let j = self.expect(key)?;
        self.cell(j, value)
    }
    fn end(self) -> std::result::Result<(), Fail> {
        InOrderFields::end(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::EncodeOptions;
    use crate::ser::probe::{self, ArrayForm, Shape};
    use serde::Serialize;
    use serde_json::json;

    #[derive(Serialize)]
    struct Point {
        x: u32,
        label: &'static str,
    }

    #[derive(Serialize)]
    struct Swapped {
        label: &'static str,
        x: u32,
    }

    /// The field list a table of `rows` would have.
    fn fields_of<T: Serialize>(rows: &[T]) -> TableFields {
        match probe::shape(rows, 64) {
            Ok(Shape::Array {
                form: ArrayForm::Table(fields),
                ..
            }) => fields,
            other => panic!("not a table: {other:?}"),
        }
    }

    /// A row written by `row_cells` (in-order path first) and by the general path alone.
    fn both<T: ?Sized + Serialize>(fields: &TableFields, row: &T) -> [Result<String>; 2] {
        let options = EncodeOptions::default();
        let write = |general: bool| {
            let mut out = Emitter::new(None, &options);
            out.lines.buf.extend_from_slice(b"  ");
            let start = out.lines.buf.len();
            if general {
                reordered(&mut out, fields, row, start)?;
            } else {
                row_cells(&mut out, fields, row)?;
            }
            Ok(String::from_utf8(out.lines.buf[start..].to_vec()).unwrap())
        };
        [write(false), write(true)]
    }

    fn agree<T: ?Sized + Serialize>(fields: &TableFields, row: &T) -> Option<String> {
        let [fast, general] = both(fields, row);
        match (fast, general) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b);
                Some(a)
            }
            (Err(a), Err(b)) => {
                assert_eq!(a.to_string(), b.to_string());
                None
            }
            (a, b) => panic!("paths disagree: {a:?} vs {b:?}"),
        }
    }

    /// The in-order path writes what the general path writes, and declines to it for every
    /// row that is not its header's keys in order.
    #[test]
    fn rows_in_order_are_written_as_the_general_path_writes_them() {
        let structs = fields_of(&[Point { x: 1, label: "a" }, Point { x: 2, label: "b" }]);
        let row = Point { x: 7, label: "x,y" };
        assert_eq!(agree(&structs, &row).as_deref(), Some("7,\"x,y\""));
        // A struct whose fields come in another order: cells still in header order.
        let swapped = Swapped { label: "q", x: 3 };
        assert_eq!(agree(&structs, &swapped).as_deref(), Some("3,q"));

        let grouped = fields_of(&[
            crate::toon!({"id": 1, "config": {"theme": "dark", "on": true}, "w": 0.5}),
            crate::toon!({"id": 2, "config": {"theme": "light", "on": false}, "w": 1}),
        ]);
        let cases = [
            (
                crate::toon!({"id": 3, "config": {"theme": "x", "on": null}, "w": 2}),
                Some("3,x,null,2"),
            ),
            // Keys out of order at the top and inside the group.
            (
                crate::toon!({"w": 2, "id": 3, "config": {"on": true, "theme": "x"}}),
                Some("3,x,true,2"),
            ),
            // Missing, extra, nested where a cell belongs, a cell where a group belongs.
            (
                crate::toon!({"id": 3, "config": {"theme": "x", "on": true}}),
                None,
            ),
            (
                crate::toon!({"id": 3, "config": {"theme": "x", "on": true}, "w": 2, "z": 1}),
                None,
            ),
            (
                crate::toon!({"id": [1], "config": {"theme": "x", "on": true}, "w": 2}),
                None,
            ),
            (crate::toon!({"id": 3, "config": 5, "w": 2}), None),
            (
                crate::toon!({"id": 3, "config": {"theme": "x"}, "w": 2}),
                None,
            ),
            (crate::toon!([1, 2, 3]), None),
        ];
        for (row, expected) in cases {
            assert_eq!(agree(&grouped, &row).as_deref(), expected, "{row}");
        }
    }

    /// A map that repeats a key, or hands a value without a key, never writes a cell twice.
    #[test]
    fn a_row_map_that_repeats_a_key_breaks_the_table() {
        struct Repeats(&'static [(&'static str, u32)]);
        impl Serialize for Repeats {
            fn serialize<S: serde::Serializer>(
                &self,
                s: S,
            ) -> std::result::Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let mut map = s.serialize_map(None)?;
                for (k, v) in self.0 {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
        /// Keys and values handed out of step: `Some` is a key, `None` a value.
        struct OutOfStep(&'static [Option<&'static str>]);
        impl Serialize for OutOfStep {
            fn serialize<S: serde::Serializer>(
                &self,
                s: S,
            ) -> std::result::Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let mut map = s.serialize_map(None)?;
                for step in self.0 {
                    match step {
                        Some(key) => map.serialize_key(key)?,
                        None => map.serialize_value(&1)?,
                    }
                }
                map.end()
            }
        }
        let fields = fields_of(&[json!({"a": 1, "b": 2}), json!({"a": 3, "b": 4})]);
        assert_eq!(
            agree(&fields, &Repeats(&[("a", 1), ("b", 2)])).as_deref(),
            Some("1,2")
        );
        assert_eq!(
            agree(&fields, &Repeats(&[("a", 1), ("a", 1), ("b", 2)])),
            None
        );
        assert_eq!(
            agree(&fields, &Repeats(&[("a", 1), ("b", 2), ("b", 2)])),
            None
        );
        const A: Option<&str> = Some("a");
        const B: Option<&str> = Some("b");
        assert_eq!(
            agree(&fields, &OutOfStep(&[A, None, B, None])).as_deref(),
            Some("1,1")
        );
        assert_eq!(agree(&fields, &OutOfStep(&[A, B, None])), None);
        assert_eq!(agree(&fields, &OutOfStep(&[None, A, None, B, None])), None);
        assert_eq!(agree(&fields, &OutOfStep(&[A, None, B])), None);
    }
}
