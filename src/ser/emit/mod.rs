//! The emit pass: writes a value in the form its probe chose (§8–§10), straight to the output.
//!
//! Every value position is tried as a primitive first (the common case costs one serialize
//! call); a container is probed ([`super::probe`]) and then serialized again through [`Drive`],
//! which hands each element or entry to an [`ElementSink`] for its form. Nothing is buffered but one
//! tabular row (to put cells in header order) and the output itself.

mod cell;
mod drive;
mod emitter;
mod row;

use serde::ser::{self, Serialize};

use super::probe::Stop;
use super::probe::guess::Probed;
use super::probe::{self, ArrayForm, ObjectForm, Shape, TableFields};
use crate::error::Error;
use cell::{Cell, Fail};
use drive::Drive;
pub(crate) use emitter::Emitter;
use emitter::Tried;
use row::row_cells;

/// Why the emit pass left a container before its end. Like the probe's [`Stop`] and the cell
/// writer's [`Fail`], a type of its own: a signal is not dressed up as an error.
#[derive(Debug)]
pub(super) enum Halt {
    /// An object written at once turned out to be a keyed-table candidate (§9.5): its first
    /// value could be a row. Nothing of the object has been written; `object_at_once` puts
    /// the output back and sends the object to the probe.
    KeyedCandidate,
    /// The value's own `Serialize` failed, or the output did: the encoding ends.
    Error(Error),
}

impl std::fmt::Display for Halt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Halt::KeyedCandidate => f.write_str("keyed-table candidate"),
            Halt::Error(e) => e.fmt(f),
        }
    }
}
impl std::error::Error for Halt {}
impl ser::Error for Halt {
    #[cold]
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Halt::Error(Error::data(msg.to_string()))
    }
}
impl From<Error> for Halt {
    fn from(e: Error) -> Self {
        Halt::Error(e)
    }
}
impl From<Stop> for Halt {
    fn from(stop: Stop) -> Self {
        Halt::Error(stop.into())
    }
}

type Result<T> = std::result::Result<T, Halt>;

fn shape_of<T: ?Sized + Serialize>(out: &Emitter<'_>, value: &T) -> Result<Shape> {
    Ok(probe::shape(value, out.depth.left)?)
}

/// The error for a value that serialized differently the second time (as `E`: the emit
/// pass's [`Halt`] or the row writers' [`Error`]).
fn inconsistent<E: From<Error>>() -> E {
    Error::data(
        "the value serialized differently on a second pass; TOON's layout needs Serialize \
         implementations to be deterministic",
    )
    .into()
}

/// One level of nesting for a container's content: the depth limit, and stack for the
/// recursion it makes.
fn nested(out: &mut Emitter<'_>, f: impl FnOnce(&mut Emitter<'_>) -> Result<()>) -> Result<()> {
    out.depth.enter()?;
    crate::stack::nested(|| f(out))?;
    out.depth.leave();
    Ok(())
}

/// The whole document (§5 root forms).
pub(crate) fn document<T: ?Sized + Serialize>(
    out: &mut Emitter<'_>,
    value: &T,
) -> crate::Result<()> {
    match root(out, value) {
        Ok(()) => Ok(()),
        Err(Halt::Error(e)) => Err(e),
        // Taken by `object_at_once`, which is all that sends it.
        Err(Halt::KeyedCandidate) => Err(inconsistent()),
    }
}

/// The root value (§5).
fn root<T: ?Sized + Serialize>(out: &mut Emitter<'_>, value: &T) -> Result<()> {
    let mark = out.lines.mark();
    out.lines.line(0);
    let delim = out.lines.delim;
    match value.serialize(Cell {
        out: &mut out.lines.buf,
        delim,
        root: true,
    }) {
        Ok(()) => return Ok(()),
        Err(Fail::Container | Fail::Object) => out.lines.reset(mark),
        Err(Fail::Error(e)) => return Err(e.into()),
    }
    let Some(shape) = shape_or_written(out, None, value, Start::Line(0), 1)? else {
        return Ok(());
    };
    match shape {
        // A root object's fields sit at depth 0 with no opening line (a keyed root has one).
        Shape::Object { form, .. } if !matches!(form, ObjectForm::Keyed(_)) => nested(out, |out| {
            value.serialize(Drive::with(
                out,
                ElementSink::Fields { depth: 0 },
                form.variant(),
            ))
        }),
        shape => container(out, None, value, &shape, 0),
    }
}

/// One `key: value` field of an object at `depth` (§8).
fn field<T: ?Sized + Serialize>(
    out: &mut Emitter<'_>,
    key: &str,
    value: &T,
    depth: usize,
) -> Result<()> {
    out.lines.spill()?;
    let mark = out.lines.mark();
    out.lines.line(depth);
    out.key(key);
    out.lines.buf.extend_from_slice(b": ");
    match out.lines.try_primitive(value, mark)? {
        Tried::Written => return Ok(()),
        Tried::Object if object_at_once(out, key, value, Start::Line(depth), depth + 1)? => {
            return Ok(());
        }
        Tried::Object | Tried::Container => {}
    }
    match shape_or_written(out, Some(key), value, Start::Line(depth), depth + 1)? {
        Some(shape) => container(out, Some(key), value, &shape, depth),
        None => Ok(()),
    }
}

/// An object (§8) at `key` written as its fields at once, without a probe: of the object
/// forms only a keyed table (§9.5) needs to see the values first, and only an object whose
/// values could all be its rows (non-empty objects of primitives and such objects) can be
/// one, so the first value decides. When it could be a row, nothing of this object has been
/// written (or passed to a writer) yet: the output and nesting are put back and `false`
/// sends the object to the probe.
fn object_at_once<T: ?Sized + Serialize>(
    out: &mut Emitter<'_>,
    key: &str,
    value: &T,
    start: Start,
    content: usize,
) -> Result<bool> {
    let (mark, depth_left) = (out.lines.mark(), out.depth.left);
    let written = nested(out, |out| {
        start.begin(out);
        out.key(key);
        out.lines.buf.push(b':');
        let sink = ElementSink::FieldsUnlessKeyed {
            depth: content,
            first: true,
            keyed: false,
        };
        value.serialize(Drive::with(out, sink, None))
    });
    match written {
        Ok(()) => Ok(true),
        Err(Halt::KeyedCandidate) => {
            out.lines.reset(mark);
            out.depth.left = depth_left;
            Ok(false)
        }
        Err(e) => Err(e),
    }
}

/// The shape of a container about to be written at `key`, or `None` when it has been
/// written already: an array whose first rows make a table (§9.3) is written as that
/// table on a guess (`probe::guess`), each row checked as it is written, instead of being
/// probed whole first. When a row breaks the table (or anything else fails), the output and
/// nesting are put back as they were and the array is probed whole after all; that probe
/// decides the form from every element and reports any error the value's `Serialize` has.
fn shape_or_written<T: ?Sized + Serialize>(
    out: &mut Emitter<'_>,
    key: Option<&str>,
    value: &T,
    start: Start,
    content: usize,
) -> Result<Option<Shape>> {
    if out.lines.speculating.is_some() {
        return shape_of(out, value).map(Some);
    }
    let offered = out.last_table.fields.is_some();
    let guessed = probe::guess::shape_or_guess(value, out.depth.left, &mut out.last_table.fields);
    let shape = match guessed {
        Ok(Probed::Shape(shape)) => return Ok(Some(shape)),
        Ok(Probed::Guess(shape)) => shape,
        Err(stop) => return Err(stop.into()),
    };
    // The guess took the last table's field list: its header's list is that table's.
    let took_last = offered && out.last_table.fields.is_none();
    let (mark, depth_left) = (out.lines.mark(), out.depth.left);
    out.lines.speculating = Some(out.lines.buf.len());
    out.last_table.reuse = took_last;
    let written = nested(out, |out| {
        let (sink, variant) = open(out, key, &shape, start, content)?;
        value.serialize(Drive::with(out, sink, variant))
    });
    out.lines.speculating = None;
    out.last_table.reuse = false;
    if written.is_ok() {
        // A table (its rows hold no headers): the last list written is its own.
        if let Shape::Array {
            form: ArrayForm::Table(fields),
            ..
        } = shape
        {
            out.last_table.keep(fields, took_last, &out.lines.buf);
        }
        return Ok(None);
    }
    out.lines.reset(mark);
    out.depth.left = depth_left;
    shape_of(out, value).map(Some)
}

/// A container in field position (`key` given) or as the root (§9, §8, §9.5).
fn container<T: ?Sized + Serialize>(
    out: &mut Emitter<'_>,
    key: Option<&str>,
    value: &T,
    shape: &Shape,
    depth: usize,
) -> Result<()> {
    nested(out, |out| {
        let (sink, variant) = open(out, key, shape, Start::Line(depth), depth + 1)?;
        value.serialize(Drive::with(out, sink, variant))
    })
}

/// Where a container's opening line starts: a plain line, or a list item's hyphen line.
#[derive(Copy, Clone)]
enum Start {
    Line(usize),
    Item(usize),
}

impl Start {
    /// Starts the opening line: a plain line, or a list item's `- `.
    fn begin(self, out: &mut Emitter<'_>) {
        match self {
            Start::Line(depth) => out.lines.line(depth),
            Start::Item(depth) => out.lines.item(depth),
        }
    }
}

/// Writes the line that opens a container at `key` (`key[N]…:`, `key:` or `key: []`) and
/// returns the sink for its content at depth `content`, with the content shape of an object
/// that is an enum variant whose content will arrive piecewise.
fn open<'f>(
    out: &mut Emitter<'_>,
    key: Option<&str>,
    shape: &'f Shape,
    start: Start,
    content: usize,
) -> Result<(ElementSink<'f>, Option<&'f Shape>)> {
    start.begin(out);
    Ok(match shape {
        Shape::Array { len: 0, .. } => {
            match key {
                Some(key) => {
                    out.key(key);
                    out.lines.buf.extend_from_slice(b": []");
                }
                None => out.lines.buf.extend_from_slice(b"[]"),
            }
            (ElementSink::Inline { count: 0, len: 0 }, None)
        }
        Shape::Array { len, form } => {
            let fields = match form {
                ArrayForm::Table(fields) => Some(fields),
                _ => None,
            };
            out.header(key, *len, fields, false);
            (ElementSink::for_array(form, *len, content), None)
        }
        Shape::Object {
            len,
            form: ObjectForm::Keyed(fields),
        } => {
            out.header(key, *len, Some(fields), true);
            (ElementSink::keyed(fields, *len, content), None)
        }
        Shape::Object { form, .. } => {
            // Root objects are laid out by document(): an object here always has a key.
            let Some(key) = key else {
                return Err(inconsistent());
            };
            out.key(key);
            out.lines.buf.push(b':');
            (ElementSink::Fields { depth: content }, form.variant())
        }
        Shape::Primitive => return Err(inconsistent()),
    })
}

/// One list item at `depth` (§9.4, §10).
fn item<T: ?Sized + Serialize>(out: &mut Emitter<'_>, value: &T, depth: usize) -> Result<()> {
    out.lines.spill()?;
    let mark = out.lines.mark();
    out.lines.item(depth);
    match out.lines.try_primitive(value, mark)? {
        Tried::Written => return Ok(()),
        // A list item's object has one layout whatever its values (§10): no probe needed.
        Tried::Object => {
            let sink = ElementSink::ItemObject { depth, first: true };
            return nested(out, |out| value.serialize(Drive::with(out, sink, None)));
        }
        Tried::Container => {}
    }
    // A list item's array is never a table (§10): its elements need no table check.
    match probe::item_shape(value, out.depth.left)? {
        Shape::Array { len, form } => {
            out.lines.item(depth);
            out.header(None, len, None, false);
            // A keyless fields header is root-only (§6): nested arrays stay in list form.
            let sink = match form {
                ArrayForm::Inline => ElementSink::Inline { count: 0, len },
                _ => ElementSink::items(len, depth + 1),
            };
            nested(out, |out| value.serialize(Drive::with(out, sink, None)))
        }
        Shape::Object { len: 0, .. } => {
            out.lines.line(depth);
            out.lines.buf.push(b'-');
            Ok(())
        }
        Shape::Object { form, .. } => {
            let sink = ElementSink::ItemObject { depth, first: true };
            nested(out, |out| {
                value.serialize(Drive::with(out, sink, form.variant()))
            })
        }
        Shape::Primitive => Err(inconsistent()),
    }
}

/// The first field of a list-item object, on the hyphen line (§10). A scope it opens (rows,
/// entries, items, fields) sits two levels below the hyphen line.
fn first_field<T: ?Sized + Serialize>(
    out: &mut Emitter<'_>,
    key: &str,
    value: &T,
    depth: usize,
) -> Result<()> {
    let mark = out.lines.mark();
    out.lines.item(depth);
    out.key(key);
    out.lines.buf.extend_from_slice(b": ");
    match out.lines.try_primitive(value, mark)? {
        Tried::Written => return Ok(()),
        Tried::Object if object_at_once(out, key, value, Start::Item(depth), depth + 2)? => {
            return Ok(());
        }
        Tried::Object | Tried::Container => {}
    }
    let Some(shape) = shape_or_written(out, Some(key), value, Start::Item(depth), depth + 2)?
    else {
        return Ok(());
    };
    nested(out, |out| {
        let (sink, variant) = open(out, Some(key), &shape, Start::Item(depth), depth + 2)?;
        value.serialize(Drive::with(out, sink, variant))
    })
}

/// What to do with each element or entry of the container being driven.
enum ElementSink<'f> {
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
        fields: &'f TableFields,
        depth: usize,
        count: usize,
        len: usize,
    },
    /// §9.5 keyed entry rows.
    Keyed {
        fields: &'f TableFields,
        depth: usize,
        count: usize,
        len: usize,
    },
    /// §8 object fields.
    Fields { depth: usize },
    /// §8 object fields written at once (`object_at_once`), unless the first value shows
    /// that the object may be a keyed table (§9.5). `keyed` remembers that the signal was
    /// sent, so that a `Serialize` impl that drops the error it got hears it again at its next
    /// entry and at `end`, instead of leaving an object written without its first field.
    FieldsUnlessKeyed {
        depth: usize,
        first: bool,
        keyed: bool,
    },
    /// §10 an object as a list item: first field on the hyphen line.
    ItemObject { depth: usize, first: bool },
}

impl<'f> ElementSink<'f> {
    fn for_array(form: &'f ArrayForm, len: usize, depth: usize) -> Self {
        match form {
            ArrayForm::Inline => ElementSink::Inline { count: 0, len },
            ArrayForm::Table(fields) => ElementSink::rows(fields, len, depth),
            ArrayForm::InlineArrays | ArrayForm::List => ElementSink::items(len, depth),
        }
    }

    fn items(len: usize, depth: usize) -> Self {
        ElementSink::Items {
            depth,
            count: 0,
            len,
        }
    }

    fn rows(fields: &'f TableFields, len: usize, depth: usize) -> Self {
        ElementSink::Rows {
            fields,
            depth,
            count: 0,
            len,
        }
    }

    fn keyed(fields: &'f TableFields, len: usize, depth: usize) -> Self {
        ElementSink::Keyed {
            fields,
            depth,
            count: 0,
            len,
        }
    }

    fn element<T: ?Sized + Serialize>(&mut self, out: &mut Emitter<'_>, value: &T) -> Result<()> {
        match self {
            ElementSink::Inline { count, .. } => {
                out.lines
                    .buf
                    .push(if *count == 0 { b' ' } else { out.lines.delim });
                *count += 1;
                let mark = out.lines.mark();
                match out.lines.try_primitive(value, mark)? {
                    Tried::Written => Ok(()),
                    Tried::Object | Tried::Container => Err(inconsistent()),
                }
            }
            ElementSink::Items { depth, count, .. } => {
                *count += 1;
                item(out, value, *depth)
            }
            ElementSink::Rows {
                fields,
                depth,
                count,
                len,
            } => {
                out.lines.row_line(count, *len, *depth)?;
                Ok(row_cells(out, fields, value)?)
            }
            ElementSink::Keyed { .. }
            | ElementSink::Fields { .. }
            | ElementSink::FieldsUnlessKeyed { .. }
            | ElementSink::ItemObject { .. } => Err(inconsistent()),
        }
    }

    fn entry<T: ?Sized + Serialize>(
        &mut self,
        out: &mut Emitter<'_>,
        key: &str,
        value: &T,
    ) -> Result<()> {
        match self {
            ElementSink::Fields { depth } => field(out, key, value, *depth),
            ElementSink::FieldsUnlessKeyed {
                depth,
                first,
                keyed,
            } => {
                // A value that could not be a row rules the keyed table out, and the
                // object is written as it comes. The probe allows a row the nesting the
                // object's content has (`object_at_once` has entered it already).
                let left = out.depth.left;
                if *keyed || (std::mem::replace(first, false) && probe::could_be_row(value, left)) {
                    *keyed = true;
                    return Err(Halt::KeyedCandidate);
                }
                field(out, key, value, *depth)
            }
            ElementSink::ItemObject { depth, first } => {
                if std::mem::replace(first, false) {
                    first_field(out, key, value, *depth)
                } else {
                    field(out, key, value, *depth + 1)
                }
            }
            ElementSink::Keyed {
                fields,
                depth,
                count,
                len,
            } => {
                out.lines.row_line(count, *len, *depth)?;
                out.key(key);
                out.lines.buf.extend_from_slice(b": ");
                Ok(row_cells(out, fields, value)?)
            }
            ElementSink::Inline { .. } | ElementSink::Items { .. } | ElementSink::Rows { .. } => {
                Err(inconsistent())
            }
        }
    }

    /// Checks that the second pass produced what the probe counted.
    fn end(self, out: &mut Emitter<'_>) -> Result<()> {
        match self {
            // An empty object as a list item is a lone hyphen (§10); written at once
            // (`item`), it learns it is empty only here.
            ElementSink::ItemObject { depth, first: true } => {
                out.lines.line(depth);
                out.lines.buf.push(b'-');
                Ok(())
            }
            ElementSink::FieldsUnlessKeyed { keyed: true, .. } => Err(Halt::KeyedCandidate),
            ElementSink::Inline { count, len }
            | ElementSink::Items { count, len, .. }
            | ElementSink::Rows { count, len, .. }
            | ElementSink::Keyed { count, len, .. }
                if count != len =>
            {
                Err(inconsistent())
            }
            _ => Ok(()),
        }
    }
}
