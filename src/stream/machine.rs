//! The event reader's state machine: one significant line at a time, a stack of the scopes
//! still open (objects, blocks waiting for their first line, lists, tables, keyed tables).
//!
//! Every decision about a line is the decoder's own (`de/form.rs`, `de/span.rs`,
//! `de/scanner.rs`, `de/header.rs`, `de/key.rs`, `de/token.rs`, …); what lives here is only
//! the order in which a line meets them, which the recursive decoder gets from its call
//! stack: a line first ends the scopes it is too shallow for (innermost first, each with its
//! closing checks), then the scope that takes it reads it.

use std::borrow::Cow;
use std::marker::PhantomData;
use std::rc::Rc;

use super::{Event, Primitive};
use crate::de::duplicates::{SeenKeys, duplicate};
use crate::de::form::{self, Rules};
use crate::de::header::{FieldList, Header, HeaderCache, HeaderField};
use crate::de::keyed::entry_line;
use crate::de::list::is_extra_item;
use crate::de::row::check_cells;
use crate::de::scanner::{Indentation, Line, RawLine, blank_in_span};
use crate::de::span::{count_error, extra_error, item_line};
use crate::de::tabular::{is_data_row, is_extra_row};
use crate::de::token::{self, split_delimited, trim_spaces};
use crate::de::{at_text, exact, inline, key};
use crate::error::{Error, Result};
use crate::options::DecodeOptions;
use crate::value::Number;

/// How text of the current line (lifetime `'l`) is kept in the machine and its events
/// (lifetime `'a`): borrowed from the whole input ([`Borrow`], `'l` = `'a`), or copied out
/// of a line buffer that the next line overwrites ([`Own`], `'a` = `'static`).
pub(crate) trait Keep<'a, 'l> {
    fn text(text: Cow<'l, str>) -> Cow<'a, str>;
    /// Sets `slot` to `text`, reusing its buffer where it owns one.
    fn set(slot: &mut Cow<'a, str>, text: &'l str);
    fn fields(list: Rc<FieldList<'l>>) -> Rc<FieldList<'a>>;
    /// The machine's field-list cache, when the line's text lives as long as it does.
    fn cache<'c>(cache: &'c mut HeaderCache<'a>) -> Option<&'c mut HeaderCache<'l>>;
}

/// Text borrowed from an input held whole (`stream::from_str`).
pub(crate) struct Borrow;

impl<'a> Keep<'a, 'a> for Borrow {
    #[inline]
    fn text(text: Cow<'a, str>) -> Cow<'a, str> {
        text
    }
    #[inline]
    fn set(slot: &mut Cow<'a, str>, text: &'a str) {
        *slot = Cow::Borrowed(text);
    }
    #[inline]
    fn fields(list: Rc<FieldList<'a>>) -> Rc<FieldList<'a>> {
        list
    }
    #[inline]
    fn cache<'c>(cache: &'c mut HeaderCache<'a>) -> Option<&'c mut HeaderCache<'a>> {
        Some(cache)
    }
}

/// Text copied out of a line buffer (`Events`, `Parser`).
pub(crate) struct Own;

impl<'l> Keep<'static, 'l> for Own {
    #[inline]
    fn text(text: Cow<'l, str>) -> Cow<'static, str> {
        Cow::Owned(text.into_owned())
    }
    #[inline]
    fn set(slot: &mut Cow<'static, str>, text: &'l str) {
        match slot {
            Cow::Owned(kept) => {
                kept.clear();
                kept.push_str(text);
            }
            Cow::Borrowed(_) => *slot = Cow::Owned(text.to_owned()),
        }
    }
    fn fields(list: Rc<FieldList<'l>>) -> Rc<FieldList<'static>> {
        Rc::new(list.to_owned_list())
    }
    #[inline]
    fn cache<'c>(_: &'c mut HeaderCache<'static>) -> Option<&'c mut HeaderCache<'l>> {
        None
    }
}

/// Where the machine's events go. A step that fails takes back the events it produced
/// ([`EventSink::checkpoint`], [`EventSink::rollback`]), so that an error comes after the events of
/// the lines before it and nothing of its own line.
pub(crate) trait EventSink<'a> {
    /// Whether numbers that an `f64` would change are handed over as their §2 canonical text
    /// ([`EventSink::exact`]) instead of as a [`Number`] (the JSON writer's exact numbers).
    const EXACT: bool = false;
    fn push(&mut self, event: Event<'a>);
    fn exact(&mut self, _text: String) {}
    /// A key of the current line, kept by `keep` into an event (a sink that writes it at
    /// once, the JSON writer, takes it as it is).
    #[inline]
    fn key<'l>(&mut self, key: Cow<'l, str>, keep: impl FnOnce(Cow<'l, str>) -> Cow<'a, str>) {
        self.push(Event::Key(keep(key)));
    }
    /// A string of the current line, as [`EventSink::key`].
    #[inline]
    fn string<'l>(&mut self, text: Cow<'l, str>, keep: impl FnOnce(Cow<'l, str>) -> Cow<'a, str>) {
        self.push(Event::Primitive(Primitive::String(keep(text))));
    }
    /// A tabular field name as a row's key.
    // A `&Cow`, not a `&str`: a name borrowed from the input stays borrowed in the event.
    #[allow(clippy::ptr_arg)]
    #[inline]
    fn field(&mut self, name: &Cow<'a, str>) {
        self.push(Event::Key(name.clone()));
    }
    fn checkpoint(&self) -> usize;
    fn rollback(&mut self, at: usize);
}

impl<'a> EventSink<'a> for Vec<Event<'a>> {
    #[inline]
    fn push(&mut self, event: Event<'a>) {
        Vec::push(self, event);
    }
    fn checkpoint(&self) -> usize {
        self.len()
    }
    fn rollback(&mut self, at: usize) {
        self.truncate(at);
    }
}

impl<'a> EventSink<'a> for std::collections::VecDeque<Event<'a>> {
    #[inline]
    fn push(&mut self, event: Event<'a>) {
        self.push_back(event);
    }
    fn checkpoint(&self) -> usize {
        self.len()
    }
    fn rollback(&mut self, at: usize) {
        self.truncate(at);
    }
}

/// A line kept past its step, for errors placed on it later: its 1-based number, its raw
/// text (no newline, no CR) and where its content lies in it.
struct KeptLine<'a> {
    number: usize,
    raw: Cow<'a, str>,
    start: usize,
    end: usize,
    depth: usize,
}

impl<'a> KeptLine<'a> {
    fn new<'l, K: Keep<'a, 'l>>(number: usize, raw: &'l str, line: &Line<'l>) -> Self {
        let mut mark = KeptLine {
            number: 0,
            raw: Cow::Borrowed(""),
            start: 0,
            end: 0,
            depth: 0,
        };
        mark.set::<K>(number, raw, line);
        mark
    }

    fn set<'l, K: Keep<'a, 'l>>(&mut self, number: usize, raw: &'l str, line: &Line<'l>) {
        self.number = number;
        // `line.content` lies inside `raw`; anything else keeps no content (never met).
        self.start = (line.content.as_ptr() as usize)
            .checked_sub(raw.as_ptr() as usize)
            .filter(|start| start + line.content.len() <= raw.len())
            .unwrap_or(0);
        self.end = self.start + line.content.len();
        self.depth = line.depth;
        K::set(&mut self.raw, raw);
    }

    /// The kept line as the decoder's `Line`, for its error constructors.
    fn line(&self) -> Line<'_> {
        Line {
            content: self.raw.get(self.start..self.end).unwrap_or_default(),
            depth: self.depth,
        }
    }

    /// Gives an error raised on [`Self::line`] its line and column.
    fn place(&self, err: Error) -> Error {
        err.resolve_in_line(&self.raw, self.number)
    }
}

/// A line-based scope's bookkeeping (the decoder's `de/span.rs` `Span`): declared count,
/// items read, the depth of its items once its first line has told it (§8), whether its first
/// item opened the §12 array span, and the lines its errors are placed on.
struct Nesting<'a> {
    declared: usize,
    count: usize,
    base: usize,
    depth: Option<usize>,
    started: bool,
    header_line: usize,
    /// The last item's line (the header's before any).
    last: KeptLine<'a>,
    /// A reader that went on after an error skipped lines of this scope: its count says
    /// nothing, and is not checked.
    tainted: bool,
}

/// An open scope: one frame of the machine's stack.
enum ScopeFrame<'a> {
    /// An object's fields at `depth`; lines shallower than `min_depth` end it (§8).
    Object {
        min_depth: usize,
        depth: usize,
        seen: Option<SeenKeys<'a>>,
    },
    /// `key:` at depth `parent`: an object, emptied or filled by the next line (§8); its
    /// `StartObject` waits for that line too.
    Block { parent: usize },
    /// §9.4 list items.
    List(Nesting<'a>),
    /// §9.3 rows.
    Table {
        scope: Nesting<'a>,
        fields: Rc<FieldList<'a>>,
        delim: u8,
    },
    /// §9.5 entries.
    Keyed {
        scope: Nesting<'a>,
        fields: Rc<FieldList<'a>>,
        delim: u8,
        seen: Option<SeenKeys<'a>>,
    },
}

/// Where the document's root stands (§5).
enum RootState<'a> {
    /// No significant line yet.
    Start,
    /// A first line without a colon: the next line (or the end) decides.
    Pending(KeptLine<'a>),
    /// A root object, open to the end.
    Object,
    /// A root array or keyed table (§5: it spans the whole document).
    Closed,
}

/// The event reader's state between lines. `'a` is the lifetime of the text its events
/// borrow (`'static` when they own it).
pub(crate) struct Machine<'a> {
    indentation: Indentation,
    strict: bool,
    max_depth: usize,
    /// Lines read so far, blank and comment lines included.
    number: usize,
    root: RootState<'a>,
    frames: Vec<ScopeFrame<'a>>,
    /// Containers open, against `max_depth`.
    open: usize,
    /// Scopes whose first item was read and that have not ended (§12 array spans).
    spans: usize,
    /// The first blank line since the last consumed line.
    blank: Option<KeptLine<'a>>,
    /// The keys of the open objects (strict duplicates, §14.3), owned where they are copies.
    keys: Vec<(u64, Cow<'a, str>)>,
    headers: HeaderCache<'a>,
    /// A reusable cell buffer (kept empty between lines).
    cells: Vec<&'static str>,
    /// How a reader that goes on after an error resumes (the validator).
    resume: Resume,
}

/// After an error, where reading can go on so that one bad line hides nothing else (the
/// validator's resynchronisation, at line granularity).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Resume {
    /// The line was not taken (a scope it closed failed its count, a blank line before it
    /// was refused): read it again ([`Machine::again`]).
    Retry,
    /// The line at this depth was bad: it and the lines deeper than it (its block) are
    /// skipped.
    Skip(usize),
    /// The line itself could not be read (its indentation): it alone is skipped.
    Line,
    /// Nothing more belongs to the document.
    Stop,
}

/// What a raw line is to a reader skipping a bad block.
pub(crate) enum RawDepth {
    /// A blank or comment line: read as usual.
    None,
    /// A significant line at this depth.
    At(usize),
    /// A line whose indentation is an error.
    Bad,
}

/// The same vector, empty, for references of another lifetime: the allocation is reused.
fn recycle<'x>(mut cells: Vec<&str>) -> Vec<&'x str> {
    cells.clear();
    cells.into_iter().map(|_| "").collect()
}

/// A decoded token as an event's primitive.
fn primitive<'x, 'a>(
    token: token::ParsedPrimitive<'x>,
    keep: impl FnOnce(Cow<'x, str>) -> Cow<'a, str>,
) -> Primitive<'a> {
    match token {
        token::ParsedPrimitive::Null => Primitive::Null,
        token::ParsedPrimitive::Bool(b) => Primitive::Bool(b),
        token::ParsedPrimitive::U64(v) => Primitive::Number(Number::from(v)),
        token::ParsedPrimitive::I64(v) => Primitive::Number(Number::from(v)),
        // Never infinite (§4: such a token is a string), but `toon::Value` reads it so.
        token::ParsedPrimitive::F64(v) => {
            Number::from_f64(v).map_or(Primitive::Null, Primitive::Number)
        }
        token::ParsedPrimitive::Str(s) => Primitive::String(keep(s)),
    }
}

impl<'a> Machine<'a> {
    pub(crate) fn new(options: &DecodeOptions) -> Self {
        Machine {
            indentation: Indentation::new(options.indent_size, options.strict),
            strict: options.strict,
            max_depth: options.max_depth,
            number: 0,
            root: RootState::Start,
            frames: Vec::new(),
            open: 0,
            spans: 0,
            blank: None,
            keys: Vec::new(),
            headers: HeaderCache::default(),
            cells: Vec::new(),
            resume: Resume::Line,
        }
    }

    /// How to go on after the last error ([`Resume`]).
    pub(crate) fn resume(&self) -> Resume {
        self.resume
    }

    /// Passes over the next raw line (a line of a bad block): it is counted, not read.
    pub(crate) fn skip(&mut self) {
        self.number += 1;
    }

    /// What the next raw line is, for a reader skipping a bad block.
    pub(crate) fn depth_of(&self, raw: &str) -> RawDepth {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        match self.indentation.read(raw) {
            Ok(RawLine::Line(line)) => RawDepth::At(line.depth),
            Ok(_) => RawDepth::None,
            Err(_) => RawDepth::Bad,
        }
    }

    /// Reads the line just stepped again, after an error whose [`Resume`] is `Retry`.
    ///
    /// # Errors
    ///
    /// As [`Self::step`].
    pub(crate) fn again<'l, K: Keep<'a, 'l>, S: EventSink<'a>>(
        &mut self,
        raw: &'l str,
        sink: &mut S,
    ) -> Result<()> {
        self.read_raw::<K, S>(raw, sink)
    }

    /// Lines read so far.
    pub(crate) fn lines(&self) -> usize {
        self.number
    }

    /// Reads the next raw line (no newline; a CR before it is allowed, §12) and hands `sink`
    /// the events it completes. On an error the line's events are taken back; the machine
    /// is then left as it stood inside the line and is not to be stepped again.
    ///
    /// # Errors
    ///
    /// The first error of the line, or one about an earlier line that this line made
    /// certain (a scope's count, §14.1; a blank line inside an array, §12), with its line
    /// and column as the decoder reports them.
    pub(crate) fn step<'l, K: Keep<'a, 'l>, S: EventSink<'a>>(
        &mut self,
        raw: &'l str,
        sink: &mut S,
    ) -> Result<()> {
        self.number += 1;
        self.read_raw::<K, S>(raw, sink)
    }

    fn read_raw<'l, K: Keep<'a, 'l>, S: EventSink<'a>>(
        &mut self,
        raw: &'l str,
        sink: &mut S,
    ) -> Result<()> {
        self.resume = Resume::Line;
        // A UTF-8 BOM before the first line is not content.
        let raw = match self.number {
            1 => raw.strip_prefix('\u{feff}').unwrap_or(raw),
            _ => raw,
        };
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let checkpoint = sink.checkpoint();
        let read = match self.indentation.read(raw) {
            Ok(RawLine::Line(line)) => Reading::<K, S> {
                m: self,
                raw,
                sink,
                keep: PhantomData,
            }
            .line(line),
            Ok(RawLine::Comment) => Ok(()),
            Ok(RawLine::Blank) => {
                if self.blank.is_none() {
                    let line = Line {
                        content: raw,
                        depth: 0,
                    };
                    self.blank = Some(KeptLine::new::<K>(self.number, raw, &line));
                }
                Ok(())
            }
            Err(err) => Err(err),
        };
        read.map_err(|err| {
            sink.rollback(checkpoint);
            // Containers opened inside the line are gone with it; the frames remain.
            self.open = self.frames.len();
            if matches!(self.resume, Resume::Skip(_) | Resume::Line) {
                self.frames
                    .iter_mut()
                    .filter_map(ScopeFrame::scope)
                    .for_each(|s| s.tainted = true);
            }
            err.resolve_in_line(raw, self.number)
        })
    }

    /// Ends the input: the events of the scopes still open, closed as the end of input
    /// closes them.
    ///
    /// # Errors
    ///
    /// A scope short of its declared count (strict, [`crate::Category::Eof`]), a document
    /// whose only line is an invalid primitive, or the nesting limit for the empty document.
    pub(crate) fn finish<S: EventSink<'a>>(&mut self, sink: &mut S) -> Result<()> {
        let checkpoint = sink.checkpoint();
        let result = self.end(sink);
        if result.is_err() {
            sink.rollback(checkpoint);
        }
        result
    }

    fn end<S: EventSink<'a>>(&mut self, sink: &mut S) -> Result<()> {
        match std::mem::replace(&mut self.root, RootState::Closed) {
            RootState::Start => {
                // §5: an empty document is an empty object. The decoder has no line to
                // place a nesting error on.
                if self.open >= self.max_depth {
                    return Err(form::too_deep(self.max_depth));
                }
                sink.push(Event::StartObject);
                sink.push(Event::EndObject);
                return Ok(());
            }
            RootState::Pending(mark) => {
                // §5: a single line without a colon is the document's primitive.
                let token = mark.line().content;
                if S::EXACT
                    && let Some(text) = exact::exact_text(trim_spaces(token))
                {
                    sink.exact(text);
                    return Ok(());
                }
                let parsed = match &mark.raw {
                    // Text borrowed from the input keeps borrowing.
                    Cow::Borrowed(raw) => {
                        let token: &'a str = raw.get(mark.start..mark.end).unwrap_or_default();
                        token::parse_primitive(token).map(|p| primitive(p, |s| s))
                    }
                    Cow::Owned(_) => token::parse_primitive(token)
                        .map(|p| primitive(p, |s| Cow::Owned(s.into_owned()))),
                };
                let event = parsed.map_err(|e| mark.place(at_text(token, e)))?;
                sink.push(Event::Primitive(event));
                return Ok(());
            }
            root => self.root = root,
        }
        while !self.frames.is_empty() {
            self.close(None, sink)?;
        }
        Ok(())
    }

    /// Consumes the significant line being read: strict mode refuses a blank line before it
    /// inside an open array span (§12).
    fn consume(&mut self) -> Result<()> {
        if let Some(blank) = self.blank.take()
            && self.strict
            && self.spans > 0
        {
            self.resume = Resume::Retry;
            return Err(blank.place(blank_in_span(&blank.raw)));
        }
        Ok(())
    }

    /// Opens a container against the nesting limit; the error is placed at `line`'s content.
    fn enter_at(&mut self, line: &Line<'_>) -> Result<()> {
        if self.open >= self.max_depth {
            return Err(line.error_at(0, form::too_deep(self.max_depth)));
        }
        self.open += 1;
        Ok(())
    }

    /// [`Self::enter_at`] for a container that starts where its line ends (a block, `[]`,
    /// `-`): the error is about the whole line, as the decoder places it.
    fn enter_after(&mut self, line: &Line<'_>) -> Result<()> {
        if self.open >= self.max_depth {
            return Err(line.error_on_line(form::too_deep(self.max_depth)));
        }
        self.open += 1;
        Ok(())
    }

    /// Closes the innermost scope, ended by `next` (or by the end of input): its checks,
    /// then its closing event.
    fn close<S: EventSink<'a>>(&mut self, next: Option<&Line<'_>>, sink: &mut S) -> Result<()> {
        let Some(frame) = self.frames.pop() else {
            return Ok(());
        };
        self.open = self.open.saturating_sub(1);
        let strict = self.strict;
        let (scope, what, end) = match frame {
            ScopeFrame::Object { seen, .. } => {
                if let Some(seen) = seen {
                    seen.close(&mut self.keys);
                }
                sink.push(Event::EndObject);
                return Ok(());
            }
            // §8: no deeper line followed `key:`; the value is `{}`.
            ScopeFrame::Block { .. } => {
                sink.push(Event::StartObject);
                sink.push(Event::EndObject);
                return Ok(());
            }
            ScopeFrame::List(scope) => (scope, Role::Item, Event::EndArray),
            ScopeFrame::Table { scope, delim, .. } => (scope, Role::Row(delim), Event::EndArray),
            ScopeFrame::Keyed { scope, seen, .. } => {
                if let Some(seen) = seen {
                    seen.close(&mut self.keys);
                }
                (scope, Role::Entry, Event::EndObject)
            }
        };
        if scope.started {
            self.spans -= 1;
        }
        let names = match what {
            Role::Item => ["list item", "list items"],
            Role::Row(_) => ["row", "rows"],
            Role::Entry => ["entry", "entries"],
        };
        // A scope whose lines were skipped after an error has no count to check.
        let strict = strict && !scope.tainted;
        let counted = count_error(
            strict,
            scope.declared,
            scope.count,
            names,
            scope.header_line,
            || Ok(next.is_none()),
        )?;
        if let Some(err) = counted {
            self.resume = Resume::Retry;
            return Err(scope.last.place(scope.last.line().error_at(0, err)));
        }
        // Strict: the line after a scope that stopped at its count must not be one more item.
        if strict
            && let Some(next) = next
            && Some(next.depth) == scope.depth
        {
            let extra = match what {
                Role::Item => is_extra_item(next.content).then_some("list items"),
                Role::Row(delim) => is_extra_row(next.content, delim).then_some("rows"),
                Role::Entry => None,
            };
            if let Some(items) = extra {
                // The surplus items, this one and any after it, are the bad block.
                self.resume = Resume::Skip(scope.base);
                return Err(next.error_at(0, extra_error(items, scope.declared, scope.header_line)));
            }
        }
        sink.push(end);
        Ok(())
    }

    /// The rules and field-list cache for `form`'s decisions on a line of lifetime `'l`.
    fn rules<'c, 'l, K: Keep<'a, 'l>>(
        &'c mut self,
        local: &'c mut HeaderCache<'l>,
    ) -> Rules<'c, 'l> {
        Rules {
            strict: self.strict,
            max_depth: self.max_depth,
            headers: K::cache(&mut self.headers).unwrap_or(local),
        }
    }

    /// §5: the line after a first line without a colon. It is an error either way: another
    /// line at depth 0, or a deeper one that makes the first line an object's field, whose
    /// colon is missing.
    fn second_line(&mut self, next: &Line<'_>) -> Result<()> {
        let RootState::Pending(first) = std::mem::replace(&mut self.root, RootState::Object) else {
            return Ok(());
        };
        // Either way an error: a reader that goes on reads the rest as the root object's
        // fields, this line again when it is one of them.
        let seen = self.strict.then(|| SeenKeys::open(&self.keys));
        self.frames.push(ScopeFrame::Object {
            min_depth: 0,
            depth: 0,
            seen,
        });
        self.resume = match next.depth {
            0 => Resume::Retry,
            _ => Resume::Skip(0),
        };
        let line = first.line();
        form::root_without_colon(&line, Some(next)).map_err(|e| first.place(e))?;
        if self.open >= self.max_depth {
            return Err(first.place(line.error_at(0, form::too_deep(self.max_depth))));
        }
        let mut headers = HeaderCache::default();
        let mut rules = Rules {
            strict: self.strict,
            max_depth: self.max_depth,
            headers: &mut headers,
        };
        // A line without an unquoted colon is no header and no key-value line: `field`
        // always refuses it (the same words as any missing colon).
        let err = match form::field(line.content, &line, &mut rules) {
            Err(err) => err,
            Ok(_) => line.error("missing colon after key"),
        };
        Err(first.place(err))
    }

    /// Opens an object whose first field is on `line` (the root, §5; a list item, §10).
    fn open_object<S: EventSink<'a>>(
        &mut self,
        line: &Line<'_>,
        depth: usize,
        sink: &mut S,
    ) -> Result<()> {
        self.enter_at(line)?;
        sink.push(Event::StartObject);
        let seen = self.strict.then(|| SeenKeys::open(&self.keys));
        self.frames.push(ScopeFrame::Object {
            min_depth: depth,
            depth,
            seen,
        });
        Ok(())
    }
}

/// One line's reading: the machine, the line's raw text and where its events go. `K` says
/// how text of the line is kept past it.
struct Reading<'m, 'a, 'l, K, S> {
    m: &'m mut Machine<'a>,
    raw: &'l str,
    sink: &'m mut S,
    keep: PhantomData<K>,
}

impl<'a, 'l, K: Keep<'a, 'l>, S: EventSink<'a>> Reading<'_, 'a, 'l, K, S> {
    /// One significant line: the scopes it ends are closed, then the one that takes it
    /// reads it.
    fn line(&mut self, line: Line<'l>) -> Result<()> {
        // After an error in this line, its block is skipped (unless said otherwise).
        self.m.resume = Resume::Skip(line.depth);
        match &self.m.root {
            RootState::Start => return self.root_line(line),
            RootState::Pending(_) => return self.m.second_line(&line),
            RootState::Object | RootState::Closed => {}
        }
        loop {
            let strict = self.m.strict;
            let Some(frame) = self.m.frames.last_mut() else {
                self.m.resume = Resume::Stop;
                return Err(form::after_document(&line, true));
            };
            let (scope, role) = match frame {
                ScopeFrame::Object {
                    min_depth, depth, ..
                } => {
                    if !form::object_line(&line, *min_depth, *depth)? {
                        self.m.close(Some(&line), self.sink)?;
                        continue;
                    }
                    let depth = *depth;
                    self.m.consume()?;
                    return self.field(line.content, &line, depth);
                }
                ScopeFrame::Block { parent } => {
                    let parent = *parent;
                    if !form::opens_block(parent, Some(&line)) {
                        self.m.close(Some(&line), self.sink)?;
                        continue;
                    }
                    let depth = form::scope_depth(parent, Some(&line), strict)?;
                    self.sink.push(Event::StartObject);
                    let seen = strict.then(|| SeenKeys::open(&self.m.keys));
                    *frame = ScopeFrame::Object {
                        min_depth: parent + 1,
                        depth,
                        seen,
                    };
                    continue;
                }
                ScopeFrame::List(scope) => (scope, Role::Item),
                ScopeFrame::Table { scope, delim, .. } => (scope, Role::Row(*delim)),
                ScopeFrame::Keyed { scope, .. } => (scope, Role::Entry),
            };
            let depth = match scope.depth {
                Some(depth) => depth,
                None => {
                    let depth = form::scope_depth(scope.base, Some(&line), strict)?;
                    scope.depth = Some(depth);
                    depth
                }
            };
            // Strict lists and tables stop at their declared count (§14.1); a keyed table
            // reads every entry and counts them when it closes.
            let stopped = role != Role::Entry && strict && scope.count >= scope.declared;
            let item = !stopped
                && item_line(&line, scope.base, depth)?
                && match role {
                    Role::Item => form::is_list_item(line.content),
                    Role::Row(delim) => is_data_row(line.content, delim),
                    Role::Entry => entry_line(&line).map(|()| true)?,
                };
            if !item {
                self.m.close(Some(&line), self.sink)?;
                continue;
            }
            return self.scope_item(&line, role, depth);
        }
    }

    /// The innermost scope's next item (a list item, row or keyed entry at its item depth):
    /// counted, kept as the scope's last line, then read as its role says.
    #[inline]
    fn scope_item(&mut self, line: &Line<'l>, role: Role, depth: usize) -> Result<()> {
        self.m.consume()?;
        // The item opens the §12 array span of its scope, and is its last line so far.
        let number = self.m.number;
        let Some(scope) = self.m.frames.last_mut().and_then(ScopeFrame::scope) else {
            return Ok(());
        };
        if !scope.started {
            scope.started = true;
            self.m.spans += 1;
        }
        scope.count += 1;
        scope.last.set::<K>(number, self.raw, line);
        match role {
            Role::Item => self.list_item(line, depth),
            Role::Row(delim) => self.row(line.content, line, delim),
            Role::Entry => self.entry(line),
        }
    }

    /// §5: the document's first significant line.
    fn root_line(&mut self, line: Line<'l>) -> Result<()> {
        let mut local = HeaderCache::default();
        let root = form::root(&line, &mut self.m.rules::<K>(&mut local))?;
        self.m.consume()?;
        match root {
            form::RootForm::EmptyArray => {
                self.m.root = RootState::Closed;
                self.empty(&line, Event::StartArray { length: 0 })
            }
            form::RootForm::Header(header) => {
                self.m.root = RootState::Closed;
                self.header(header, 0, &line)
            }
            form::RootForm::Object => {
                self.m.root = RootState::Object;
                self.m.open_object(&line, 0, self.sink)?;
                self.field(line.content, &line, 0)
            }
            form::RootForm::Undecided => {
                self.m.root =
                    RootState::Pending(KeptLine::new::<K>(self.m.number, self.raw, &line));
                Ok(())
            }
        }
    }

    /// An object's field at `depth` (§8), `content` being its text on `line`.
    fn field(&mut self, content: &'l str, line: &Line<'l>, depth: usize) -> Result<()> {
        // The common line, `plain key: value`, without the general path's header check.
        if let Some((key, after)) = form::plain_field(content) {
            self.key(Cow::Borrowed(key), line)?;
            return self.after(after, line, depth);
        }
        let mut local = HeaderCache::default();
        let (key, field) = form::field(content, line, &mut self.m.rules::<K>(&mut local))?;
        self.key(key, line)?;
        match field {
            form::FieldForm::After(after) => self.after(after, line, depth),
            form::FieldForm::Header(header) => self.header(header, depth, line),
        }
    }

    /// An object field's key: strict mode refuses one seen before in the object (§14.3).
    fn key(&mut self, key: Cow<'l, str>, line: &Line<'l>) -> Result<()> {
        if let Some(ScopeFrame::Object {
            seen: Some(seen), ..
        }) = self.m.frames.last_mut()
            && !seen.insert(&mut self.m.keys, &K::text(key.clone()))
        {
            return Err(duplicate(line, &key));
        }
        self.sink.key(key, K::text);
        Ok(())
    }

    /// The value after a field's colon (§8) at `depth`.
    fn after(&mut self, after: form::After<'l>, line: &Line<'l>, depth: usize) -> Result<()> {
        match after {
            // Its object starts with the next line, which says whether it is `{}` (as the
            // reference streams it).
            form::After::Block => {
                self.m.enter_after(line)?;
                self.m.frames.push(ScopeFrame::Block { parent: depth });
                Ok(())
            }
            form::After::EmptyArray => self.empty(line, Event::StartArray { length: 0 }),
            form::After::Token(text) => self.token(text),
        }
    }

    /// An empty object or array that ends its line (`key: []`, `-`, `- []`, a root `[]`):
    /// it opens and closes at once, as a container against the nesting limit.
    fn empty(&mut self, line: &Line<'l>, start: Event<'a>) -> Result<()> {
        self.m.enter_after(line)?;
        self.m.open -= 1;
        let end = match start {
            Event::StartObject => Event::EndObject,
            _ => Event::EndArray,
        };
        self.sink.push(start);
        self.sink.push(end);
        Ok(())
    }

    /// A list item's hyphen line (§9.4, §10) at `depth`.
    fn list_item(&mut self, line: &Line<'l>, depth: usize) -> Result<()> {
        let mut local = HeaderCache::default();
        match form::list_item(line, &mut self.m.rules::<K>(&mut local))? {
            form::ItemForm::EmptyObject => self.empty(line, Event::StartObject),
            form::ItemForm::EmptyArray => self.empty(line, Event::StartArray { length: 0 }),
            form::ItemForm::Header(header) => self.header(header, depth, line),
            form::ItemForm::Object(first) => {
                self.m.open_object(line, depth + 1, self.sink)?;
                self.field(first, line, depth + 1)
            }
            form::ItemForm::Token(text) => self.token(text),
        }
    }

    /// An array or keyed-table header (§6) whose scope's content is below depth `base`.
    fn header(&mut self, header: Header<'l>, base: usize, line: &Line<'l>) -> Result<()> {
        self.m.enter_at(line)?;
        let scope = Nesting {
            declared: header.len,
            count: 0,
            base,
            depth: None,
            started: false,
            header_line: self.m.number,
            tainted: false,
            last: KeptLine::new::<K>(self.m.number, self.raw, line),
        };
        if header.keyed {
            self.sink.push(Event::StartObject);
            let seen = self
                .m
                .strict
                .then(|| SeenKeys::sized(&self.m.keys, header.len));
            self.m.frames.push(ScopeFrame::Keyed {
                scope,
                fields: K::fields(header.fields.unwrap_or_default()),
                delim: header.delim,
                seen,
            });
            return Ok(());
        }
        if let Some(values) = header.inline {
            let mut cells = recycle(std::mem::take(&mut self.m.cells));
            split_delimited(values, header.delim, &mut cells);
            let read = inline::check_inline(self.m.strict, cells.len(), header.len, values, line)
                .and_then(|()| {
                    self.sink.push(Event::StartArray { length: header.len });
                    cells.iter().try_for_each(|cell| self.token(cell))
                });
            self.m.cells = recycle(cells);
            read?;
            self.m.open -= 1;
            self.sink.push(Event::EndArray);
            return Ok(());
        }
        self.sink.push(Event::StartArray { length: header.len });
        self.m.frames.push(match header.fields {
            Some(fields) => ScopeFrame::Table {
                scope,
                fields: K::fields(fields),
                delim: header.delim,
            },
            None => ScopeFrame::List(scope),
        });
        Ok(())
    }

    /// A tabular row (§9.3): `content` split on the delimiter, one cell per leaf field.
    fn row(&mut self, content: &'l str, line: &Line<'l>, delim: u8) -> Result<()> {
        let fields = match self.m.frames.last() {
            Some(ScopeFrame::Table { fields, .. } | ScopeFrame::Keyed { fields, .. }) => {
                Rc::clone(fields)
            }
            _ => return Ok(()),
        };
        let mut cells = recycle(std::mem::take(&mut self.m.cells));
        split_delimited(content, delim, &mut cells);
        let read = check_cells(cells.len(), fields.leaves, line).and_then(|()| {
            let mut next = 0;
            self.row_object(&fields.fields, &cells, &mut next, line)
        });
        self.m.cells = recycle(cells);
        read
    }

    /// One row's object (§9.3): leaf fields take the next cell, nested field groups are
    /// objects of their own.
    fn row_object(
        &mut self,
        fields: &[HeaderField<'a>],
        cells: &[&'l str],
        next: &mut usize,
        line: &Line<'l>,
    ) -> Result<()> {
        self.m.enter_at(line)?;
        self.sink.push(Event::StartObject);
        for field in fields {
            self.sink.field(&field.name);
            match &field.children {
                Some(children) => self.row_object(children, cells, next, line)?,
                None => {
                    let Some(&cell) = cells.get(*next) else {
                        return Err(line.error("row has fewer cells than fields"));
                    };
                    *next += 1;
                    self.token(cell)?;
                }
            }
        }
        self.sink.push(Event::EndObject);
        self.m.open -= 1;
        Ok(())
    }

    /// A keyed table's entry row (§9.5): `key: cells`.
    fn entry(&mut self, line: &Line<'l>) -> Result<()> {
        let (key, rest) = key::split_key(line.content).map_err(|e| line.error_at(0, e))?;
        if let Some(ScopeFrame::Keyed {
            seen: Some(seen), ..
        }) = self.m.frames.last_mut()
            && !seen.insert(&mut self.m.keys, &K::text(key.clone()))
        {
            return Err(duplicate(line, &key));
        }
        let delim = match self.m.frames.last() {
            Some(ScopeFrame::Keyed { delim, .. }) => *delim,
            _ => b',',
        };
        self.sink.key(key, K::text);
        self.row(trim_spaces(rest), line, delim)
    }

    /// A primitive token (§4); with an exact sink, a number an `f64` would change goes as
    /// its text.
    fn token(&mut self, text: &'l str) -> Result<()> {
        if S::EXACT
            && let Some(exact) = exact::exact_text(trim_spaces(text))
        {
            self.sink.exact(exact);
            return Ok(());
        }
        match token::parse_primitive(text).map_err(|e| at_text(text, e))? {
            token::ParsedPrimitive::Str(s) => self.sink.string(s, K::text),
            parsed => self.sink.push(Event::Primitive(primitive(parsed, K::text))),
        }
        Ok(())
    }
}

/// What a line at a scope's item depth must be.
#[derive(Clone, Copy, PartialEq)]
enum Role {
    /// A list item (§9.4).
    Item,
    /// A tabular row with this delimiter (§9.3).
    Row(u8),
    /// A keyed entry row (§9.5).
    Entry,
}

impl<'a> ScopeFrame<'a> {
    fn scope(&mut self) -> Option<&mut Nesting<'a>> {
        match self {
            ScopeFrame::List(scope)
            | ScopeFrame::Table { scope, .. }
            | ScopeFrame::Keyed { scope, .. } => Some(scope),
            ScopeFrame::Object { .. } | ScopeFrame::Block { .. } => None,
        }
    }
}
