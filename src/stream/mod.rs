//! TOON as a stream of events: the reference implementation's `decodeStream` model
//! (`startObject`, `key`, `primitive`, …), read a line at a time.
//!
//! Three ways in, one reader behind them:
//! - [`from_str`]: the events of a `&str`, whose keys and strings borrow from it where they
//!   can (a string with escapes is unescaped into an owned one);
//! - [`Events`]: the events of any [`BufRead`](std::io::BufRead), read a line at a time, so
//!   that memory is bounded by the longest line and the nesting depth, not the document;
//! - [`Parser`]: a push parser for text that arrives in pieces (a model's output, token by
//!   token): [`Parser::feed`] returns the events the piece completed.
//!
//! All three give the same events for the same text, however it is cut, and decide exactly
//! as [`from_str`](crate::from_str) into a [`Value`](crate::Value) does: the same strict
//! and non-strict rules (the five recoveries of v4.4), the same limits
//! ([`DecodeOptions::max_depth`](crate::DecodeOptions::max_depth), the declared `[N]`
//! counts) and the same errors, at the same line and column. An error comes after the events
//! of the lines before it and ends the stream.
//!
//! ```
//! use toon::stream::{Event, Primitive};
//!
//! let text = "users[2]{id,name}:\n  1,Ada\n  2,Bob";
//! let events: Vec<Event> = toon::stream::from_str(text).collect::<Result<_, _>>().unwrap();
//! assert_eq!(events[0], Event::StartObject);
//! assert_eq!(events[1], Event::Key("users".into()));
//! assert_eq!(events[2], Event::StartArray { length: 2 });
//! assert_eq!(events[5], Event::Primitive(Primitive::Number(1.into())));
//! assert_eq!(events.last(), Some(&Event::EndObject));
//! ```
//!
//! ## When events come out
//! The events of a line come out once the line is complete (its newline has arrived, or the
//! input ended), except what the line cannot decide alone, which comes with the line that
//! decides it:
//! - the end of a scope: `EndObject`/`EndArray` come with the first line that is not part of
//!   it (or at the end of input), since only that line shows the scope has ended;
//! - `key:` with nothing after the colon: its `Key` comes with its line, its `StartObject`
//!   with the next line, which tells a nested object from `{}` (§8), as the reference has it;
//! - a document whose first line has no colon: one line alone is a primitive (§5), a line
//!   after it makes it an error; its event waits for the end of input.
//!
//! ## Differences from decoding into a `Value`
//! - Events are the document as written: in non-strict mode a repeated key gives two `Key`
//!   events (a `Value` keeps the last value, at the first key's place, §14.3), and
//!   `StartArray`'s `length` is the declared `[N]`, which non-strict mode does not enforce.
//! - A keyed table (§9.5) is an object: `StartObject`, then a `Key` and a row object per
//!   entry, then `EndObject`, as the reference streams it.
//! - [`DecodeOptions::max_expansion`](crate::DecodeOptions::max_expansion) does not apply:
//!   events are handed over one at a time, so a table's field names are never held more than
//!   once (as in `toon::Value`, which shares them).
//! - A reader's input is checked for UTF-8 a line at a time, so a syntax error on an earlier
//!   line comes before a bad byte on a later one (the decoder checks the whole input first).

pub(crate) mod machine;
mod reader;
mod transcode;

use std::borrow::Cow;
use std::collections::VecDeque;

pub use reader::{Events, Parser};
pub use transcode::transcode;

use crate::error::Result;
use crate::options::DecodeOptions;
use crate::value::Number;
use machine::{Borrow, Machine};

/// One event of a TOON document, in document order.
///
/// A document is one value: an object (`StartObject`, then `Key` and a value for each field,
/// then `EndObject`), an array (`StartArray`, its elements, `EndArray`) or a `Primitive`.
/// `Key` and `String` payloads borrow from the input where they can.
#[derive(Clone, Debug, PartialEq)]
pub enum Event<'a> {
    /// An object begins.
    StartObject,
    /// The innermost open object ends.
    EndObject,
    /// An array begins: `length` is the count its header declares (`[N]`, §6; `0` for
    /// `[]`). Strict mode requires that many elements; non-strict mode does not (§14).
    StartArray {
        /// The declared count.
        length: usize,
    },
    /// The innermost open array ends.
    EndArray,
    /// The key of the next value, inside an object.
    Key(Cow<'a, str>),
    /// A primitive value.
    Primitive(Primitive<'a>),
}

/// A primitive value (§4): `null`, a boolean, a number or a string.
#[derive(Clone, Debug, PartialEq)]
pub enum Primitive<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number: exact for 64-bit integers, otherwise the nearest `f64` (as [`crate::Value`]).
    Number(Number),
    /// A string, unquoted and unescaped.
    String(Cow<'a, str>),
}

impl Event<'_> {
    /// The event with its text owned, free of the input's lifetime.
    ///
    /// ```
    /// use toon::stream::Event;
    /// let text = String::from("a: 1");
    /// let first_key = toon::stream::from_str(&text).nth(1).unwrap().unwrap().into_owned();
    /// drop(text);
    /// assert_eq!(first_key, Event::Key("a".into()));
    /// ```
    #[must_use]
    pub fn into_owned(self) -> Event<'static> {
        match self {
            Event::StartObject => Event::StartObject,
            Event::EndObject => Event::EndObject,
            Event::StartArray { length } => Event::StartArray { length },
            Event::EndArray => Event::EndArray,
            Event::Key(key) => Event::Key(Cow::Owned(key.into_owned())),
            Event::Primitive(p) => Event::Primitive(p.into_owned()),
        }
    }
}

impl Primitive<'_> {
    /// The primitive with its text owned.
    #[must_use]
    pub fn into_owned(self) -> Primitive<'static> {
        match self {
            Primitive::Null => Primitive::Null,
            Primitive::Bool(b) => Primitive::Bool(b),
            Primitive::Number(n) => Primitive::Number(n),
            Primitive::String(s) => Primitive::String(Cow::Owned(s.into_owned())),
        }
    }
}

/// The events of TOON text, with default options (strict, indent 2).
///
/// ```
/// use toon::stream::{Event, Primitive};
/// let mut events = toon::stream::from_str("tags[2]: a,b");
/// assert_eq!(events.nth(3).unwrap().unwrap(), Event::Primitive(Primitive::String("a".into())));
/// ```
///
/// Each item is an event or the error that ends the stream; the iterator's errors are
/// [`from_str`](crate::from_str)'s, at the same line and column.
pub fn from_str(text: &str) -> Iter<'_> {
    from_str_with(text, &DecodeOptions::default())
}

/// The events of TOON text, with `options`.
///
/// ```
/// let lenient = toon::DecodeOptions::new().strict(false);
/// let events: Result<Vec<_>, _> = toon::stream::from_str_with("a[3]: 1", &lenient).collect();
/// assert_eq!(events.unwrap().len(), 6);
/// let err = toon::stream::from_str("a[3]: 1").find_map(Result::err).unwrap();
/// assert_eq!((err.line(), err.column()), (1, 7));
/// ```
pub fn from_str_with<'a>(text: &'a str, options: &DecodeOptions) -> Iter<'a> {
    Iter {
        text,
        pos: 0,
        machine: Machine::new(options),
        queue: VecDeque::new(),
        state: ReaderState::Reading,
    }
}

/// Where a reader stands: reading lines, past the input's end, or stopped by an error.
#[derive(Clone, Copy, PartialEq)]
enum ReaderState {
    Reading,
    Ended,
    Failed,
}

/// The events of a `&str` ([`from_str`]): an iterator of `Result<Event, toon::Error>` whose
/// payloads borrow from the text where they can.
pub struct Iter<'a> {
    text: &'a str,
    pos: usize,
    machine: Machine<'a>,
    queue: VecDeque<Event<'a>>,
    state: ReaderState,
}

/// The next event of a pulling reader: the next queued one, else `read` fills the queue
/// from the next line (`Ok(false)`: the input ended there), until an event, the end or an
/// error.
fn pull<'a>(
    queue: &mut VecDeque<Event<'a>>,
    state: &mut ReaderState,
    mut read: impl FnMut(&mut VecDeque<Event<'a>>) -> Result<bool>,
) -> Option<Result<Event<'a>>> {
    loop {
        if let Some(event) = queue.pop_front() {
            return Some(Ok(event));
        }
        if *state != ReaderState::Reading {
            return None;
        }
        match read(queue) {
            Ok(true) => {}
            Ok(false) => *state = ReaderState::Ended,
            Err(err) => {
                *state = ReaderState::Failed;
                return Some(Err(err));
            }
        }
    }
}

impl<'a> Iterator for Iter<'a> {
    type Item = Result<Event<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        let (text, pos, machine) = (self.text, &mut self.pos, &mut self.machine);
        pull(&mut self.queue, &mut self.state, |queue| {
            let rest = text.get(*pos..).unwrap_or_default();
            if rest.is_empty() {
                machine.finish(queue)?;
                return Ok(false);
            }
            let (line, advance) = match memchr::memchr(b'\n', rest.as_bytes()) {
                Some(n) => (rest.split_at(n).0, n + 1),
                None => (rest, rest.len()),
            };
            *pos += advance;
            machine.step::<Borrow, _>(line, queue)?;
            Ok(true)
        })
    }
}

impl std::iter::FusedIterator for Iter<'_> {}

#[cfg(test)]
mod tests;
