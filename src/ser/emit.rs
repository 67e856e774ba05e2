//! The emit pass: writes a value in the form its probe chose (§8–§10), straight to the output.
//!
//! Every value position is tried as a primitive first (the common case costs one serialize
//! call); a container is probed ([`super::probe`]) and then serialized again through [`Drive`],
//! which hands each element or entry to a [`Sink`] for its form. Nothing is buffered but one
//! tabular row (to put cells in header order) and the output itself.

use std::io;

use serde::ser::{self, Serialize};

use super::key::KeySerializer;
use super::probe::{self, ArrayForm, Fields, ObjectForm, Shape};
use crate::canonical;
use crate::error::{Error, Result};
use crate::options::{Delimiter, EncodeOptions};
use crate::quote;

/// Output is handed to the writer whenever this much has accumulated.
const CHUNK: usize = 64 * 1024;

/// The output buffer and the line discipline of §12: LF between lines, `indent × depth`
/// spaces, no trailing newline.
pub(crate) struct Out<'w> {
    buf: Vec<u8>,
    /// Where full chunks go; `None` when `buf` itself is the result (`to_vec`).
    writer: Option<&'w mut dyn io::Write>,
    indent: usize,
    delim: u8,
    started: bool,
    /// One row's cells, reordered into header order before they are written.
    row: Vec<u8>,
    spans: Vec<(usize, usize)>,
    key: String,
}

/// A point in the output to return to when a value turns out not to be a primitive.
#[derive(Copy, Clone)]
struct Mark {
    len: usize,
    started: bool,
}

impl<'w> Out<'w> {
    /// Output to `writer`, in chunks.
    pub(crate) fn to_writer(writer: &'w mut dyn io::Write, options: &EncodeOptions) -> Self {
        Self::new(Some(writer), options)
    }

    /// Output into a vector that becomes the result.
    pub(crate) fn to_vec(options: &EncodeOptions) -> Self {
        Self::new(None, options)
    }

    fn new(writer: Option<&'w mut dyn io::Write>, options: &EncodeOptions) -> Self {
        Out {
            buf: Vec::with_capacity(4096),
            writer,
            indent: options.indent_size,
            delim: options.delimiter.as_byte(),
            started: false,
            row: Vec::new(),
            spans: Vec::new(),
            key: String::new(),
        }
    }

    /// Writes what is buffered to the writer (and flushes it), or returns the output.
    pub(crate) fn finish(self) -> Result<Vec<u8>> {
        match self.writer {
            Some(writer) => {
                writer.write_all(&self.buf).map_err(Error::io)?;
                writer.flush().map_err(Error::io)?;
                Ok(Vec::new())
            }
            None => Ok(self.buf),
        }
    }

    /// Passes output on at a line boundary once enough has accumulated.
    fn spill(&mut self) -> Result<()> {
        if let Some(writer) = &mut self.writer {
            if self.buf.len() >= CHUNK {
                writer.write_all(&self.buf).map_err(Error::io)?;
                self.buf.clear();
            }
        }
        Ok(())
    }

    fn mark(&self) -> Mark {
        Mark {
            len: self.buf.len(),
            started: self.started,
        }
    }

    fn reset(&mut self, mark: Mark) {
        self.buf.truncate(mark.len);
        self.started = mark.started;
    }

    fn line(&mut self, depth: usize) {
        if self.started {
            self.buf.push(b'\n');
        }
        self.started = true;
        let spaces = depth * self.indent;
        self.buf.resize(self.buf.len() + spaces, b' ');
    }

    fn item(&mut self, depth: usize) {
        self.line(depth);
        self.buf.extend_from_slice(b"- ");
    }

    fn key(&mut self, key: &str) {
        quote::write_key(&mut self.buf, key);
    }

    /// §6 header: `key[N<:?><delim?>]{fields}:`.
    fn header(&mut self, key: Option<&str>, len: usize, fields: Option<&Fields>, keyed: bool) {
        if let Some(key) = key {
            self.key(key);
        }
        self.buf.push(b'[');
        canonical::write_uint(&mut self.buf, len as u64);
        if keyed {
            self.buf.push(b':');
        }
        if self.delim != Delimiter::Comma.as_byte() {
            self.buf.push(self.delim);
        }
        self.buf.push(b']');
        if let Some(fields) = fields {
            self.field_list(fields);
        }
        self.buf.push(b':');
    }

    /// `{f1,f2{a,b}}` with nested field groups (§9.3).
    fn field_list(&mut self, fields: &Fields) {
        self.buf.push(b'{');
        for (j, name) in fields.names.iter().enumerate() {
            if j > 0 {
                self.buf.push(self.delim);
            }
            self.key(name);
            if let Some(group) = &fields.groups[j] {
                self.field_list(group);
            }
        }
        self.buf.push(b'}');
    }

    /// Writes `value` if it is a primitive; otherwise rewinds to `mark` and returns `false`.
    fn try_primitive<T: ?Sized + Serialize>(&mut self, value: &T, mark: Mark) -> Result<bool> {
        let delim = self.delim;
        match value.serialize(Cell {
            out: &mut self.buf,
            delim,
            root: false,
        }) {
            Ok(()) => Ok(true),
            Err(Fail::Container) => {
                self.reset(mark);
                Ok(false)
            }
            Err(Fail::Error(e)) => Err(e),
        }
    }
}

fn shape_of<T: ?Sized + Serialize>(value: &T) -> Result<Shape> {
    probe::shape(value).map_err(|stop| Error::data(stop.to_string()))
}

fn inconsistent() -> Error {
    Error::data(
        "the value serialized differently on a second pass; TOON's layout needs Serialize \
         implementations to be deterministic",
    )
}

/// The whole document (§5 root forms).
pub(crate) fn document<T: ?Sized + Serialize>(out: &mut Out<'_>, value: &T) -> Result<()> {
    let mark = out.mark();
    out.line(0);
    let delim = out.delim;
    match value.serialize(Cell {
        out: &mut out.buf,
        delim,
        root: true,
    }) {
        Ok(()) => return Ok(()),
        Err(Fail::Container) => out.reset(mark),
        Err(Fail::Error(e)) => return Err(e),
    }
    match shape_of(value)? {
        Shape::Object {
            form: ObjectForm::Fields,
            ..
        } => value.serialize(Drive::new(out, Sink::Fields { depth: 0 })),
        Shape::Object {
            form: ObjectForm::Variant(inner),
            ..
        } => value.serialize(Drive::variant(out, Sink::Fields { depth: 0 }, &inner)),
        shape => container(out, None, value, &shape, 0),
    }
}

/// One `key: value` field of an object at `depth` (§8).
fn field<T: ?Sized + Serialize>(
    out: &mut Out<'_>,
    key: &str,
    value: &T,
    depth: usize,
) -> Result<()> {
    out.spill()?;
    let mark = out.mark();
    out.line(depth);
    out.key(key);
    out.buf.extend_from_slice(b": ");
    if out.try_primitive(value, mark)? {
        return Ok(());
    }
    let shape = shape_of(value)?;
    container(out, Some(key), value, &shape, depth)
}

/// A container in field position (`key` given) or as the root (§9, §8, §9.5).
fn container<T: ?Sized + Serialize>(
    out: &mut Out<'_>,
    key: Option<&str>,
    value: &T,
    shape: &Shape,
    depth: usize,
) -> Result<()> {
    match shape {
        Shape::Array { len: 0, .. } => {
            out.line(depth);
            match key {
                Some(key) => {
                    out.key(key);
                    out.buf.extend_from_slice(b": []");
                }
                None => out.buf.extend_from_slice(b"[]"),
            }
            Ok(())
        }
        Shape::Array { len, form } => {
            out.line(depth);
            let fields = match form {
                ArrayForm::Table(fields) => Some(fields),
                _ => None,
            };
            out.header(key, *len, fields, false);
            value.serialize(Drive::new(out, Sink::for_array(form, *len, depth + 1)))
        }
        Shape::Object {
            len,
            form: ObjectForm::Keyed(fields),
        } => {
            out.line(depth);
            out.header(key, *len, Some(fields), true);
            value.serialize(Drive::new(out, Sink::keyed(fields, depth + 1)))
        }
        Shape::Object { form, .. } => {
            // Root objects are laid out by document().
            let Some(key) = key else {
                return Err(inconsistent());
            };
            out.line(depth);
            out.key(key);
            out.buf.push(b':');
            let sink = Sink::Fields { depth: depth + 1 };
            match form {
                ObjectForm::Variant(inner) => value.serialize(Drive::variant(out, sink, inner)),
                _ => value.serialize(Drive::new(out, sink)),
            }
        }
        Shape::Primitive => Err(inconsistent()),
    }
}

/// One list item at `depth` (§9.4, §10).
fn item<T: ?Sized + Serialize>(out: &mut Out<'_>, value: &T, depth: usize) -> Result<()> {
    out.spill()?;
    let mark = out.mark();
    out.item(depth);
    if out.try_primitive(value, mark)? {
        return Ok(());
    }
    match shape_of(value)? {
        Shape::Array { len, form } => {
            out.item(depth);
            out.header(None, len, None, false);
            // A keyless fields header is root-only (§6): nested arrays stay in list form.
            let sink = match form {
                ArrayForm::Inline => Sink::Inline { count: 0, len },
                _ => Sink::items(len, depth + 1),
            };
            value.serialize(Drive::new(out, sink))
        }
        Shape::Object { len: 0, .. } => {
            out.line(depth);
            out.buf.push(b'-');
            Ok(())
        }
        Shape::Object { form, .. } => {
            let sink = Sink::ItemObject { depth, first: true };
            match &form {
                ObjectForm::Variant(inner) => value.serialize(Drive::variant(out, sink, inner)),
                _ => value.serialize(Drive::new(out, sink)),
            }
        }
        Shape::Primitive => Err(inconsistent()),
    }
}

/// The first field of a list-item object, on the hyphen line (§10).
fn first_field<T: ?Sized + Serialize>(
    out: &mut Out<'_>,
    key: &str,
    value: &T,
    depth: usize,
) -> Result<()> {
    let mark = out.mark();
    out.item(depth);
    out.key(key);
    out.buf.extend_from_slice(b": ");
    if out.try_primitive(value, mark)? {
        return Ok(());
    }
    let shape = shape_of(value)?;
    out.item(depth);
    // Scopes opened by the first field hold their content two levels below the hyphen line.
    let content = depth + 2;
    match &shape {
        Shape::Array {
            len,
            form: ArrayForm::Table(fields),
        } if *len > 0 => {
            out.header(Some(key), *len, Some(fields), false);
            value.serialize(Drive::new(out, Sink::rows(fields, *len, content)))
        }
        Shape::Object {
            len,
            form: ObjectForm::Keyed(fields),
        } => {
            out.header(Some(key), *len, Some(fields), true);
            value.serialize(Drive::new(out, Sink::keyed(fields, content)))
        }
        Shape::Array { len: 0, .. } => {
            out.key(key);
            out.buf.extend_from_slice(b": []");
            Ok(())
        }
        Shape::Array { len, form } => {
            out.key(key);
            out.header(None, *len, None, false);
            let sink = match form {
                ArrayForm::Inline => Sink::Inline {
                    count: 0,
                    len: *len,
                },
                _ => Sink::items(*len, content),
            };
            value.serialize(Drive::new(out, sink))
        }
        Shape::Object { form, .. } => {
            out.key(key);
            out.buf.push(b':');
            let sink = Sink::Fields { depth: content };
            match form {
                ObjectForm::Variant(inner) => value.serialize(Drive::variant(out, sink, inner)),
                _ => value.serialize(Drive::new(out, sink)),
            }
        }
        Shape::Primitive => Err(inconsistent()),
    }
}

/// What to do with each element or entry of the container being driven.
enum Sink<'f> {
    /// §9.1 inline values after the header: ` v1,v2`.
    Inline { count: usize, len: usize },
    /// §9.4 list items.
    Items {
        depth: usize,
        count: usize,
        len: usize,
    },
    /// §9.3 tabular rows.
    Rows {
        fields: &'f Fields,
        depth: usize,
        count: usize,
        len: usize,
    },
    /// §9.5 keyed entry rows.
    Keyed { fields: &'f Fields, depth: usize },
    /// §8 object fields.
    Fields { depth: usize },
    /// §10 an object as a list item: first field on the hyphen line.
    ItemObject { depth: usize, first: bool },
}

impl<'f> Sink<'f> {
    fn for_array(form: &'f ArrayForm, len: usize, depth: usize) -> Self {
        match form {
            ArrayForm::Inline => Sink::Inline { count: 0, len },
            ArrayForm::Table(fields) => Sink::rows(fields, len, depth),
            ArrayForm::InlineArrays | ArrayForm::List => Sink::items(len, depth),
        }
    }

    fn items(len: usize, depth: usize) -> Self {
        Sink::Items {
            depth,
            count: 0,
            len,
        }
    }

    fn rows(fields: &'f Fields, len: usize, depth: usize) -> Self {
        Sink::Rows {
            fields,
            depth,
            count: 0,
            len,
        }
    }

    fn keyed(fields: &'f Fields, depth: usize) -> Self {
        Sink::Keyed { fields, depth }
    }

    fn element<T: ?Sized + Serialize>(&mut self, out: &mut Out<'_>, value: &T) -> Result<()> {
        match self {
            Sink::Inline { count, .. } => {
                out.buf.push(if *count == 0 { b' ' } else { out.delim });
                *count += 1;
                let mark = out.mark();
                if out.try_primitive(value, mark)? {
                    Ok(())
                } else {
                    Err(inconsistent())
                }
            }
            Sink::Items { depth, count, .. } => {
                *count += 1;
                item(out, value, *depth)
            }
            Sink::Rows {
                fields,
                depth,
                count,
                ..
            } => {
                *count += 1;
                out.spill()?;
                out.line(*depth);
                row_cells(out, fields, value)
            }
            Sink::Keyed { .. } | Sink::Fields { .. } | Sink::ItemObject { .. } => {
                Err(inconsistent())
            }
        }
    }

    fn entry<T: ?Sized + Serialize>(
        &mut self,
        out: &mut Out<'_>,
        key: &str,
        value: &T,
    ) -> Result<()> {
        match self {
            Sink::Fields { depth } => field(out, key, value, *depth),
            Sink::ItemObject { depth, first } => {
                if std::mem::replace(first, false) {
                    first_field(out, key, value, *depth)
                } else {
                    field(out, key, value, *depth + 1)
                }
            }
            Sink::Keyed { fields, depth } => {
                out.spill()?;
                out.line(*depth);
                out.key(key);
                out.buf.extend_from_slice(b": ");
                row_cells(out, fields, value)
            }
            Sink::Inline { .. } | Sink::Items { .. } | Sink::Rows { .. } => Err(inconsistent()),
        }
    }

    /// Checks that the second pass produced what the probe counted.
    fn end(self) -> Result<()> {
        match self {
            Sink::Inline { count, len }
            | Sink::Items { count, len, .. }
            | Sink::Rows { count, len, .. }
                if count != len =>
            {
                Err(inconsistent())
            }
            _ => Ok(()),
        }
    }
}

/// Writes one row's leaf cells in header order (§9.3), whatever order its keys come in.
fn row_cells<T: ?Sized + Serialize>(out: &mut Out<'_>, fields: &Fields, value: &T) -> Result<()> {
    let leaves = fields.leaves();
    out.row.clear();
    out.spans.clear();
    out.spans.resize(leaves, (usize::MAX, 0));
    let mut key = std::mem::take(&mut out.key);
    let result = value.serialize(RowWriter {
        row: &mut out.row,
        spans: &mut out.spans,
        key: &mut key,
        fields,
        base: 0,
        delim: out.delim,
    });
    out.key = key;
    result?;
    for (i, &(start, end)) in out.spans.iter().enumerate() {
        if start == usize::MAX {
            return Err(inconsistent());
        }
        if i > 0 {
            out.buf.push(out.delim);
        }
        out.buf.extend_from_slice(&out.row[start..end]);
    }
    Ok(())
}

/// Serializes a row object into per-leaf cell texts.
struct RowWriter<'a> {
    row: &'a mut Vec<u8>,
    spans: &'a mut Vec<(usize, usize)>,
    key: &'a mut String,
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
                spans: &mut *w.spans,
                key: &mut *w.key,
                fields: group,
                base: at,
                delim: w.delim,
            }),
            None => {
                let start = w.row.len();
                match value.serialize(Cell {
                    out: &mut *w.row,
                    delim: w.delim,
                    root: false,
                }) {
                    Ok(()) => {}
                    Err(Fail::Container) => return Err(inconsistent()),
                    Err(Fail::Error(e)) => return Err(e),
                }
                w.spans[at] = (start, w.row.len());
                Ok(())
            }
        }
    }

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

macro_rules! row_not_object {
    ($($name:ident($($arg:ty),*)),*) => {$(
        fn $name(self, $(_: $arg),*) -> Result<()> {
            Err(inconsistent())
        }
    )*};
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

    row_not_object!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_i128(i128),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_u128(u128),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str)
    );

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }
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
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(inconsistent())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
        Err(inconsistent())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        Err(inconsistent())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(inconsistent())
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
}

impl ser::SerializeMap for RowFields<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        let mut text = std::mem::take(self.w.key);
        text.clear();
        let keyed = key.serialize(KeySerializer { out: &mut text });
        let located = keyed.and_then(|_| self.locate(&text));
        *self.w.key = text;
        self.pending = located?;
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.cell(self.pending, value)
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeStruct for RowFields<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        let j = self.locate(key)?;
        self.cell(j, value)
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeStructVariant for RowFields<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        ser::SerializeStruct::serialize_field(self, key, value)
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

/// Drives a container's serialization into a [`Sink`]. `variant` is the probed shape of the
/// content when the container is an enum variant whose content arrives piecewise.
struct Drive<'o, 'w, 'f> {
    out: &'o mut Out<'w>,
    sink: Sink<'f>,
    variant: Option<&'f Shape>,
}

impl<'o, 'w, 'f> Drive<'o, 'w, 'f> {
    fn new(out: &'o mut Out<'w>, sink: Sink<'f>) -> Self {
        Drive {
            out,
            sink,
            variant: None,
        }
    }

    fn variant(out: &'o mut Out<'w>, sink: Sink<'f>, inner: &'f Shape) -> Self {
        Drive {
            out,
            sink,
            variant: Some(inner),
        }
    }

    /// Starts `{variant: content}` whose content arrives piecewise: writes the variant's line
    /// as the object's one field, and returns the sink for the content.
    fn open_variant(self, variant: &'static str) -> Result<Driving<'o, 'w, 'f>> {
        let Drive {
            out,
            sink,
            variant: shape,
        } = self;
        let Some(shape) = shape else {
            return Err(inconsistent());
        };
        let (depth, first_of_item) = match sink {
            Sink::Fields { depth } => (depth, false),
            Sink::ItemObject { depth, .. } => (depth, true),
            _ => return Err(inconsistent()),
        };
        // The content's own depth: fields under a list item's first field sit two deeper.
        let content = if first_of_item { depth + 2 } else { depth + 1 };
        out.spill()?;
        if first_of_item {
            out.item(depth);
        } else {
            out.line(depth);
        }
        let inner = match shape {
            Shape::Array { len: 0, .. } => {
                out.key(variant);
                out.buf.extend_from_slice(b": []");
                Sink::Inline { count: 0, len: 0 }
            }
            Shape::Array { len, form } => {
                let fields = match form {
                    ArrayForm::Table(fields) => Some(fields),
                    _ => None,
                };
                out.header(Some(variant), *len, fields, false);
                Sink::for_array(form, *len, content)
            }
            Shape::Object {
                len,
                form: ObjectForm::Keyed(fields),
            } => {
                out.header(Some(variant), *len, Some(fields), true);
                Sink::keyed(fields, content)
            }
            Shape::Object { .. } => {
                out.key(variant);
                out.buf.push(b':');
                Sink::Fields { depth: content }
            }
            Shape::Primitive => return Err(inconsistent()),
        };
        Ok(Driving {
            out,
            sink: inner,
            key: String::new(),
        })
    }
}

/// A container whose elements or entries are being driven into a sink.
struct Driving<'o, 'w, 'f> {
    out: &'o mut Out<'w>,
    sink: Sink<'f>,
    key: String,
}

impl Driving<'_, '_, '_> {
    fn element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.sink.element(self.out, value)
    }

    fn entry<T: ?Sized + Serialize>(&mut self, key: &str, value: &T) -> Result<()> {
        self.sink.entry(self.out, key, value)
    }

    fn end(self) -> Result<()> {
        self.sink.end()
    }
}

macro_rules! drive_not_container {
    ($($name:ident($($arg:ty),*)),*) => {$(
        fn $name(self, $(_: $arg),*) -> Result<()> {
            Err(inconsistent())
        }
    )*};
}

impl<'o, 'w, 'f> ser::Serializer for Drive<'o, 'w, 'f> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Driving<'o, 'w, 'f>;
    type SerializeTuple = Driving<'o, 'w, 'f>;
    type SerializeTupleStruct = Driving<'o, 'w, 'f>;
    type SerializeTupleVariant = Driving<'o, 'w, 'f>;
    type SerializeMap = Driving<'o, 'w, 'f>;
    type SerializeStruct = Driving<'o, 'w, 'f>;
    type SerializeStructVariant = Driving<'o, 'w, 'f>;

    drive_not_container!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_i128(i128),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_u128(u128),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str)
    );

    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        let mut seq = self.serialize_seq(Some(v.len()))?;
        for b in v {
            seq.element(b)?;
        }
        seq.end()
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        let mut object = self.serialize_map(Some(1))?;
        object.entry(variant, value)?;
        object.end()
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Driving<'o, 'w, 'f>> {
        Ok(Driving {
            out: self.out,
            sink: self.sink,
            key: String::new(),
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Driving<'o, 'w, 'f>> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Driving<'o, 'w, 'f>> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Driving<'o, 'w, 'f>> {
        self.open_variant(variant)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Driving<'o, 'w, 'f>> {
        self.serialize_seq(len)
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Driving<'o, 'w, 'f>> {
        self.serialize_seq(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Driving<'o, 'w, 'f>> {
        self.open_variant(variant)
    }
}

macro_rules! driving_elements {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for Driving<'_, '_, '_> {
            type Ok = ();
            type Error = Error;
            fn $method<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
                self.element(value)
            }
            fn end(self) -> Result<()> {
                Driving::end(self)
            }
        }
    )*};
}
driving_elements!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Driving<'_, '_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        self.key.clear();
        key.serialize(KeySerializer { out: &mut self.key })
            .map(drop)
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        let key = std::mem::take(&mut self.key);
        let result = self.entry(&key, value);
        self.key = key;
        result
    }
    fn end(self) -> Result<()> {
        Driving::end(self)
    }
}

impl ser::SerializeStruct for Driving<'_, '_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        self.entry(key, value)
    }
    fn end(self) -> Result<()> {
        Driving::end(self)
    }
}

impl ser::SerializeStructVariant for Driving<'_, '_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        self.entry(key, value)
    }
    fn end(self) -> Result<()> {
        Driving::end(self)
    }
}

/// Why a value position could not take a value as a primitive.
#[derive(Debug)]
enum Fail {
    /// The value is an array or object.
    Container,
    Error(Error),
}

impl std::fmt::Display for Fail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fail::Container => f.write_str("container"),
            Fail::Error(e) => e.fmt(f),
        }
    }
}
impl std::error::Error for Fail {}
impl ser::Error for Fail {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Fail::Error(Error::data(msg.to_string()))
    }
}

/// Writes a primitive with quoting for `delim` (§7.2, §11.1); containers fail with
/// [`Fail::Container`] before writing anything.
struct Cell<'b> {
    out: &'b mut Vec<u8>,
    delim: u8,
    /// The document root: a string with a leading BOM is quoted so decoders keep it.
    root: bool,
}

impl Cell<'_> {
    fn str(self, v: &str) -> std::result::Result<(), Fail> {
        if self.root && v.starts_with('\u{feff}') {
            quote::write_quoted(self.out, v);
        } else {
            quote::write_string(self.out, v, self.delim);
        }
        Ok(())
    }
}

macro_rules! cell_container {
    ($($name:ident($($arg:ty),*) -> $ret:ty),*) => {$(
        fn $name(self, $(_: $arg),*) -> std::result::Result<$ret, Fail> {
            Err(Fail::Container)
        }
    )*};
}

impl ser::Serializer for Cell<'_> {
    type Ok = ();
    type Error = Fail;
    type SerializeSeq = ser::Impossible<(), Fail>;
    type SerializeTuple = ser::Impossible<(), Fail>;
    type SerializeTupleStruct = ser::Impossible<(), Fail>;
    type SerializeTupleVariant = ser::Impossible<(), Fail>;
    type SerializeMap = ser::Impossible<(), Fail>;
    type SerializeStruct = ser::Impossible<(), Fail>;
    type SerializeStructVariant = ser::Impossible<(), Fail>;

    fn serialize_bool(self, v: bool) -> std::result::Result<(), Fail> {
        self.out
            .extend_from_slice(if v { b"true" } else { b"false" });
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> std::result::Result<(), Fail> {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> std::result::Result<(), Fail> {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> std::result::Result<(), Fail> {
        self.serialize_i64(v.into())
    }
    fn serialize_i64(self, v: i64) -> std::result::Result<(), Fail> {
        canonical::write_int(self.out, v);
        Ok(())
    }
    fn serialize_i128(self, v: i128) -> std::result::Result<(), Fail> {
        match i64::try_from(v) {
            Ok(v) => canonical::write_int(self.out, v),
            Err(_) => self.out.extend_from_slice(v.to_string().as_bytes()),
        }
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> std::result::Result<(), Fail> {
        self.serialize_u64(v.into())
    }
    fn serialize_u16(self, v: u16) -> std::result::Result<(), Fail> {
        self.serialize_u64(v.into())
    }
    fn serialize_u32(self, v: u32) -> std::result::Result<(), Fail> {
        self.serialize_u64(v.into())
    }
    fn serialize_u64(self, v: u64) -> std::result::Result<(), Fail> {
        canonical::write_uint(self.out, v);
        Ok(())
    }
    fn serialize_u128(self, v: u128) -> std::result::Result<(), Fail> {
        match u64::try_from(v) {
            Ok(v) => canonical::write_uint(self.out, v),
            Err(_) => self.out.extend_from_slice(v.to_string().as_bytes()),
        }
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> std::result::Result<(), Fail> {
        canonical::write_f32(self.out, v);
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> std::result::Result<(), Fail> {
        canonical::write_f64(self.out, v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> std::result::Result<(), Fail> {
        self.str(v.encode_utf8(&mut [0u8; 4]))
    }
    fn serialize_str(self, v: &str) -> std::result::Result<(), Fail> {
        self.str(v)
    }
    fn serialize_none(self) -> std::result::Result<(), Fail> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> std::result::Result<(), Fail> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> std::result::Result<(), Fail> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _: &'static str) -> std::result::Result<(), Fail> {
        self.serialize_none()
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> std::result::Result<(), Fail> {
        self.str(variant)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> std::result::Result<(), Fail> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> std::result::Result<(), Fail> {
        Err(Fail::Container)
    }

    cell_container!(
        serialize_bytes(&[u8]) -> (),
        serialize_seq(Option<usize>) -> Self::SerializeSeq,
        serialize_tuple(usize) -> Self::SerializeTuple,
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct,
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant,
        serialize_map(Option<usize>) -> Self::SerializeMap,
        serialize_struct(&'static str, usize) -> Self::SerializeStruct,
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant
    );
}
