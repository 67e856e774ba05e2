//! The owning readers: [`Events`] pulls lines from a [`BufRead`], [`Parser`] is pushed
//! pieces of text. Both hand each complete line's bytes to the machine, which owns what it
//! keeps of them.

use std::collections::VecDeque;
use std::io::BufRead;

use super::machine::{EventSink, Machine, Own};
use super::{Event, ReaderState, pull};
use crate::de::utf8_error;
use crate::error::{Error, Result};
use crate::options::DecodeOptions;

/// One raw line (its bytes without the newline) for an owning machine: checked for UTF-8
/// (§4; the error placed as the decoder places a bad byte, `offset` being the line's first
/// byte in the input), then read.
pub(crate) fn step_bytes<S: EventSink<'static>>(
    machine: &mut Machine<'static>,
    line: &[u8],
    offset: usize,
    sink: &mut S,
) -> Result<()> {
    match std::str::from_utf8(line) {
        Ok(text) => machine.step::<Own, S>(text, sink),
        Err(e) => {
            let valid = e.valid_up_to();
            let before = line.get(..valid).unwrap_or_default();
            Err(utf8_error(offset + valid, machine.lines() + 1, before))
        }
    }
}

/// Lines pulled from a [`BufRead`] into an owning machine (shared by [`Events`] and
/// [`super::transcode`]).
pub(crate) struct LineReader<R> {
    reader: R,
    machine: Machine<'static>,
    line: Vec<u8>,
    /// Bytes read before `line`.
    offset: usize,
}

impl<R: BufRead> LineReader<R> {
    pub(crate) fn new(reader: R, options: &DecodeOptions) -> Self {
        LineReader {
            reader,
            machine: Machine::new(options),
            line: Vec::new(),
            offset: 0,
        }
    }

    /// Reads the next line into `sink`, or, at the end of input, ends the document there
    /// (`Ok(false)`).
    pub(crate) fn read<S: EventSink<'static>>(&mut self, sink: &mut S) -> Result<bool> {
        self.line.clear();
        let read = self
            .reader
            .read_until(b'\n', &mut self.line)
            .map_err(Error::io)?;
        if read == 0 {
            self.machine.finish(sink)?;
            return Ok(false);
        }
        let text = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
        step_bytes(&mut self.machine, text, self.offset, sink)?;
        self.offset += read;
        Ok(true)
    }
}

/// The events of TOON text read from a [`BufRead`], a line at a time: an iterator of
/// `Result<Event<'static>, toon::Error>`.
///
/// Memory is bounded by the longest line and the nesting depth, whatever the document's
/// size (in strict mode, also by the keys of the objects still open, which §14.3's
/// duplicate check keeps).
///
/// ```
/// use std::io::BufReader;
/// use toon::stream::{Event, Events};
///
/// let file = BufReader::new("rows[2]{x}:\n  1\n  2\n".as_bytes());
/// let mut rows = 0;
/// for event in Events::new(file) {
///     if event.unwrap() == Event::EndObject {
///         rows += 1;
///     }
/// }
/// assert_eq!(rows, 3); // two rows, then the root object
/// ```
///
/// Each item is an event, or the error that ends the stream: the reader's I/O error
/// ([`Category::Io`](crate::Category::Io)), ill-formed UTF-8, or the decoder's error for the
/// text read so far.
pub struct Events<R> {
    lines: LineReader<R>,
    queue: VecDeque<Event<'static>>,
    state: ReaderState,
}

impl<R: BufRead> Events<R> {
    /// Events of `reader`'s text with default options (strict, indent 2).
    pub fn new(reader: R) -> Self {
        Self::with_options(reader, &DecodeOptions::default())
    }

    /// Events of `reader`'s text with `options`.
    ///
    /// ```
    /// let lenient = toon::DecodeOptions::new().strict(false);
    /// let events = toon::stream::Events::with_options("a:\n\tb: 1".as_bytes(), &lenient);
    /// assert_eq!(events.count(), 7); // {, a, {, b, 1, }, }
    /// ```
    pub fn with_options(reader: R, options: &DecodeOptions) -> Self {
        Events {
            lines: LineReader::new(reader, options),
            queue: VecDeque::new(),
            state: ReaderState::Reading,
        }
    }
}

impl<R: BufRead> Iterator for Events<R> {
    type Item = Result<Event<'static>>;

    fn next(&mut self) -> Option<Self::Item> {
        let lines = &mut self.lines;
        pull(&mut self.queue, &mut self.state, |queue| lines.read(queue))
    }
}

impl<R: BufRead> std::iter::FusedIterator for Events<R> {}

/// A push parser: text goes in as it arrives, in pieces cut anywhere; each
/// [`feed`](Parser::feed) returns the events the piece completed.
///
/// The events of a line come out when its newline arrives (see the
/// [module docs](super#when-events-come-out) for what waits for a later line), so a
/// document fed a byte at a time gives exactly the events of the document fed whole.
///
/// ```
/// use toon::stream::{Event, Parser, Primitive};
///
/// let mut parser = Parser::new();
/// let mut events = Vec::new();
/// for piece in ["na", "me: Ada\nage", ": 3", "6"] {
///     events.extend(parser.feed(piece).unwrap());
/// }
/// // `name: Ada` is complete; `age: 36` waits for its newline or the end.
/// assert_eq!(events, [Event::StartObject, Event::Key("name".into()),
///     Event::Primitive(Primitive::String("Ada".into()))]);
/// events.extend(parser.finish().unwrap());
/// assert_eq!(events.len(), 6);
/// ```
pub struct Parser {
    machine: Machine<'static>,
    /// The start of a line whose newline has not arrived.
    partial: Vec<u8>,
    /// Bytes fed before `partial`.
    offset: usize,
    /// An error met after a feed's first events: returned by the next call.
    pending: Option<Error>,
    failed: bool,
    /// [`Parser::end`] was called: nothing more can be fed.
    ended: bool,
}

impl Default for Parser {
    fn default() -> Self {
        Parser::new()
    }
}

impl Parser {
    /// A parser with default options (strict, indent 2).
    #[must_use]
    pub fn new() -> Self {
        Self::with_options(&DecodeOptions::default())
    }

    /// A parser with `options`.
    #[must_use]
    pub fn with_options(options: &DecodeOptions) -> Self {
        Parser {
            machine: Machine::new(options),
            partial: Vec::new(),
            offset: 0,
            pending: None,
            failed: false,
            ended: false,
        }
    }

    /// Takes the next piece of text and returns the events it completed.
    ///
    /// # Errors
    ///
    /// The first error of the text so far, with its line and column. When a piece completes
    /// some lines' events and then meets an error, the events are returned and the error
    /// comes from the next call (`feed` or [`finish`](Self::finish)). After an error every
    /// call fails.
    pub fn feed(&mut self, chunk: &str) -> Result<Vec<Event<'static>>> {
        self.feed_bytes(chunk.as_bytes())
    }

    /// [`feed`](Self::feed) for bytes, cut anywhere (inside a UTF-8 sequence too); each line
    /// is checked for UTF-8 when it is complete.
    ///
    /// ```
    /// let mut parser = toon::stream::Parser::new();
    /// let text = "é: ü\n".as_bytes();
    /// let mut events = Vec::new();
    /// for byte in text.chunks(1) {
    ///     events.extend(parser.feed_bytes(byte).unwrap());
    /// }
    /// events.extend(parser.finish().unwrap());
    /// assert_eq!(events, toon::stream::from_str("é: ü").collect::<Result<Vec<_>, _>>().unwrap());
    /// ```
    ///
    /// # Errors
    ///
    /// As [`feed`](Self::feed), and ill-formed UTF-8.
    pub fn feed_bytes(&mut self, chunk: &[u8]) -> Result<Vec<Event<'static>>> {
        self.check()?;
        if self.ended {
            return Err(Error::syntax(
                "the text has ended (Parser::end): nothing more can be fed",
            ));
        }
        let mut events = Vec::new();
        let mut rest = chunk;
        while let Some(n) = memchr::memchr(b'\n', rest) {
            let (line, after) = rest.split_at(n);
            let len = self.partial.len() + n;
            let stepped = if self.partial.is_empty() {
                step_bytes(&mut self.machine, line, self.offset, &mut events)
            } else {
                self.partial.extend_from_slice(line);
                let stepped =
                    step_bytes(&mut self.machine, &self.partial, self.offset, &mut events);
                self.partial.clear();
                stepped
            };
            self.offset = self.offset.saturating_add(len + 1);
            rest = after.get(1..).unwrap_or_default();
            if let Err(err) = stepped {
                return self.fail(err, events);
            }
        }
        self.partial.extend_from_slice(rest);
        Ok(events)
    }

    /// Ends the text: the last line (if no newline ended it) and the events of the scopes
    /// still open.
    ///
    /// When the end of input meets an error after the last line gave events (a list short of
    /// its declared count after its last item), this returns the error and not those events;
    /// [`end`](Self::end) then `finish` gives both.
    ///
    /// # Errors
    ///
    /// As [`feed`](Self::feed): an error still to be returned, the last line's, or the end
    /// of input's (a scope short of its declared count, [`Category::Eof`](crate::Category::Eof)).
    pub fn finish(mut self) -> Result<Vec<Event<'static>>> {
        let events = self.end()?;
        self.check()?;
        Ok(events)
    }

    /// Ends the text as a [`feed`](Self::feed) takes a piece: returns the events that the last
    /// line (if no newline ended it) and the end of input complete, and when an error follows
    /// some of them, it comes from the next call ([`finish`](Self::finish)), so that every
    /// event of the lines before an error is seen, as [`Events`] gives them. Nothing can be
    /// fed after it; calling it again returns no events.
    ///
    /// ```
    /// let mut parser = toon::stream::Parser::new();
    /// let mut events = parser.feed("items[2]:\n  - a").unwrap();
    /// events.extend(parser.end().unwrap()); // the item's `a`
    /// let err = parser.finish().unwrap_err(); // then: one item of the two declared
    /// assert_eq!((err.line(), err.column()), (2, 3));
    /// assert_eq!(events.len(), 4); // {, items, [2, a
    /// ```
    ///
    /// # Errors
    ///
    /// As [`finish`](Self::finish), when no event comes before the error.
    pub fn end(&mut self) -> Result<Vec<Event<'static>>> {
        self.check()?;
        if self.ended {
            return Ok(Vec::new());
        }
        self.ended = true;
        let mut events = Vec::new();
        if !self.partial.is_empty() {
            let partial = std::mem::take(&mut self.partial);
            if let Err(err) = step_bytes(&mut self.machine, &partial, self.offset, &mut events) {
                return self.fail(err, events);
            }
        }
        if let Err(err) = self.machine.finish(&mut events) {
            return self.fail(err, events);
        }
        Ok(events)
    }

    /// The error still to be returned, or the one that stopped this parser.
    fn check(&mut self) -> Result<()> {
        if let Some(err) = self.pending.take() {
            return Err(err);
        }
        if self.failed {
            return Err(Error::syntax(
                "the parser stopped at an earlier error; no more events",
            ));
        }
        Ok(())
    }

    /// Stops at `err`: returned now, or after `events` when there are some.
    fn fail(&mut self, err: Error, events: Vec<Event<'static>>) -> Result<Vec<Event<'static>>> {
        self.failed = true;
        if events.is_empty() {
            return Err(err);
        }
        self.pending = Some(err);
        Ok(events)
    }
}
