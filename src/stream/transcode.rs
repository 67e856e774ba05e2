//! TOON read a line at a time, written as JSON text as it is read: the bytes
//! [`json::transcode`](crate::json::transcode) writes, in memory bounded by the longest line.

use std::borrow::Cow;
use std::io::{self, BufRead, Write};

use serde::Serialize;
use serde_json::ser::Formatter as _;

use super::machine::EventSink;
use super::reader::LineReader;
use super::{Event, Primitive};
use crate::error::{Error, Result};
use crate::json::Formatter;
use crate::options::DecodeOptions;

/// Decodes TOON from `reader` a line at a time and writes it to `writer` as JSON text,
/// `indent` spaces per level (0: compact): the same bytes as
/// [`json::transcode`](crate::json::transcode) writes for the same text (JavaScript's number
/// text, numbers with more digits than an `f64` keeps copied whole), in memory bounded by the
/// longest line and the nesting depth instead of the input's size. The writer is flushed at
/// the end.
///
/// ```
/// let toon = "users[2]{id,name}:\n  1,Ada\n  2,Bob\n";
/// let mut json = Vec::new();
/// toon::stream::transcode(toon.as_bytes(), &mut json, 0, &toon::DecodeOptions::new()).unwrap();
/// assert_eq!(json, br#"{"users":[{"id":1,"name":"Ada"},{"id":2,"name":"Bob"}]}"#);
/// ```
///
/// # Errors
///
/// The decoding error, with its line and column as [`from_str`](crate::from_str) reports it
/// (checked a line at a time: ill-formed UTF-8 after a syntax error is not reached), or an
/// I/O error of the reader or the writer ([`Category::Io`](crate::Category::Io)). What was
/// written before the error stays written.
pub fn transcode<R: BufRead, W: Write>(
    reader: R,
    mut writer: W,
    indent: usize,
    options: &DecodeOptions,
) -> Result<()> {
    let mut lines = LineReader::new(reader, options);
    let mut json = JsonSink {
        out: &mut writer,
        format: Formatter::new(indent),
        open: Vec::new(),
        failed: None,
    };
    loop {
        let more = lines.read(&mut json);
        if let Some(io) = json.failed.take() {
            return Err(Error::io(io));
        }
        if !more? {
            break;
        }
    }
    writer.flush().map_err(Error::io)
}

/// The JSON writer's sink: each event written as it comes. An I/O error is kept until the
/// step ends.
struct JsonSink<'w, W> {
    out: &'w mut W,
    format: Formatter,
    /// For each open container: whether it is an object, and whether it has no element yet.
    open: Vec<(bool, bool)>,
    failed: Option<io::Error>,
}

impl<W: Write> JsonSink<'_, W> {
    fn write(&mut self, result: io::Result<()>) {
        if let Err(e) = result
            && self.failed.is_none()
        {
            self.failed = Some(e);
        }
    }

    /// Before a value: an array element's separator (an object's was written with its key).
    fn before_value(&mut self) {
        if let Some(&mut (false, ref mut first)) = self.open.last_mut() {
            let first = std::mem::replace(first, false);
            let written = self.format.begin_array_value(self.out, first);
            self.write(written);
        }
    }

    /// After a value: the end of the element or of the entry.
    fn after_value(&mut self) {
        let written = match self.open.last() {
            Some((false, _)) => self.format.end_array_value(self.out),
            Some((true, _)) => self.format.end_object_value(self.out),
            None => Ok(()),
        };
        self.write(written);
    }

    /// An object key with the separators around it.
    fn write_key(&mut self, key: &str) {
        let first = match self.open.last_mut() {
            Some((_, first)) => std::mem::replace(first, false),
            None => true,
        };
        let written = self
            .format
            .begin_object_key(self.out, first)
            .and_then(|()| serde_json::to_writer(&mut *self.out, key).map_err(io::Error::from))
            .and_then(|()| self.format.end_object_key(self.out))
            .and_then(|()| self.format.begin_object_value(self.out));
        self.write(written);
    }

    /// A scalar, whose text does not depend on the layout: written by a compact formatter.
    fn scalar<T: ?Sized + Serialize>(&mut self, value: &T) {
        self.before_value();
        let mut ser = serde_json::Serializer::with_formatter(&mut *self.out, Formatter::new(0));
        let written = value.serialize(&mut ser).map_err(io::Error::from);
        self.write(written);
        self.after_value();
    }
}

impl<W: Write> EventSink<'static> for JsonSink<'_, W> {
    const EXACT: bool = true;

    fn push(&mut self, event: Event<'static>) {
        if self.failed.is_some() {
            return;
        }
        match event {
            Event::StartObject => {
                self.before_value();
                let written = self.format.begin_object(self.out);
                self.write(written);
                self.open.push((true, true));
            }
            Event::StartArray { .. } => {
                self.before_value();
                let written = self.format.begin_array(self.out);
                self.write(written);
                self.open.push((false, true));
            }
            Event::EndObject | Event::EndArray => {
                let written = match self.open.pop() {
                    Some((true, _)) => self.format.end_object(self.out),
                    _ => self.format.end_array(self.out),
                };
                self.write(written);
                self.after_value();
            }
            Event::Key(key) => self.write_key(&key),
            Event::Primitive(Primitive::Null) => self.scalar(&()),
            Event::Primitive(Primitive::Bool(b)) => self.scalar(&b),
            Event::Primitive(Primitive::Number(n)) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => self.scalar(&u),
                (None, Some(i)) => self.scalar(&i),
                _ => self.scalar(&n.as_f64().unwrap_or_default()),
            },
            Event::Primitive(Primitive::String(s)) => self.scalar(&*s),
        }
    }

    // Keys and strings are written from the line as they are, never copied.
    fn key<'l>(&mut self, key: Cow<'l, str>, _: impl FnOnce(Cow<'l, str>) -> Cow<'static, str>) {
        if self.failed.is_none() {
            self.write_key(&key);
        }
    }

    fn string<'l>(
        &mut self,
        text: Cow<'l, str>,
        _: impl FnOnce(Cow<'l, str>) -> Cow<'static, str>,
    ) {
        if self.failed.is_none() {
            self.scalar(&*text);
        }
    }

    fn field(&mut self, name: &Cow<'static, str>) {
        if self.failed.is_none() {
            self.write_key(name);
        }
    }

    /// A number with more digits than an `f64` keeps, as its §2 canonical text.
    fn exact(&mut self, text: String) {
        if self.failed.is_some() {
            return;
        }
        self.before_value();
        let written = self.out.write_all(text.as_bytes());
        self.write(written);
        self.after_value();
    }

    fn checkpoint(&self) -> usize {
        0
    }

    /// What was written stays written (as `json::transcode` leaves it).
    fn rollback(&mut self, _: usize) {}
}
