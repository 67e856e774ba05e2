//! The cursor over the input, line by line: CRLF (§12), comment lines (§5.1), blank lines (§12) and
//! indentation depth with its strict-mode checks (§12, §14.2).

use super::token::{after_quoted, trim_spaces};
use crate::error::{Error, Result};
use crate::swar::{all_spaces, byte_matches, find_any, find_either, find_newline, leading_spaces};

/// One significant (non-blank, non-comment) line: two words and its depth. Where it is in
/// the input (line number, column, the raw line for messages) is worked out from the
/// content's address only when an error is raised ([`Error::resolve`]).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Line<'de> {
    /// The text after the indentation, trailing spaces removed.
    pub(crate) content: &'de str,
    /// Indentation level.
    pub(crate) depth: usize,
}

impl<'de> Line<'de> {
    /// An error positioned at byte `offset` of `content`.
    pub(crate) fn error_at(&self, offset_in_content: usize, err: Error) -> Error {
        err.at_address(self.content.as_ptr() as usize + offset_in_content, false)
    }

    /// An error at the start of the content.
    pub(crate) fn error(&self, message: impl Into<String>) -> Error {
        self.error_at(0, Error::syntax(message))
    }

    /// An error at `part`, a slice of this line's content; anything else (an unescaped copy)
    /// is placed at the content's start.
    pub(crate) fn error_in(&self, part: &str, err: Error) -> Error {
        let start = self.content.as_ptr() as usize;
        let at = part.as_ptr() as usize;
        let inside = (start..=start + self.content.len()).contains(&at);
        err.at_address(if inside { at } else { start }, false)
    }

    /// An error about the whole line (column 1).
    pub(crate) fn error_on_line(&self, err: Error) -> Error {
        err.at_address(self.content.as_ptr() as usize, true)
    }

    /// An identity for the line: the address of its content, unique in one input.
    pub(crate) fn id(&self) -> usize {
        self.content.as_ptr() as usize
    }
}

/// What one raw line is (§5.1, §12): a comment, a blank line, or a significant line.
pub(crate) enum RawLine<'de> {
    Comment,
    Blank,
    Line(Line<'de>),
}

/// The indentation rules of one decode (§12, §14.2): the indent size and strictness, and the
/// reading of one raw line (no newline, no CR) into a [`RawLine`]. The scanner reads every
/// line with it, and so does the streaming reader (`stream/`), one line at a time.
#[derive(Clone, Copy)]
pub(crate) struct Indentation {
    size: usize,
    /// `size` as a power of two, for shifts instead of divisions.
    shift: Option<u32>,
    strict: bool,
}

impl Indentation {
    pub(crate) fn new(indent_size: usize, strict: bool) -> Self {
        let size = indent_size.max(1);
        Indentation {
            size,
            shift: size.is_power_of_two().then(|| size.trailing_zeros()),
            strict,
        }
    }

    /// Reads one raw line: the common line in one pass ([`Self::common`]), anything else
    /// by the full rules ([`Self::classify`]).
    #[inline]
    pub(crate) fn read<'de>(&self, raw: &'de str) -> Result<RawLine<'de>> {
        match self.common(raw) {
            Some(line) => Ok(RawLine::Line(line)),
            None => self.classify(raw),
        }
    }
}

#[derive(Clone)]
pub(crate) struct Scanner<'de> {
    src: &'de str,
    pos: usize,
    indent: Indentation,
    indent_size: usize,
    strict: bool,
    peeked: Option<Line<'de>>,
    /// The first blank line seen since the last consumed line.
    blank_since_last: Option<&'de str>,
    /// Arrays and keyed objects whose first item/row/entry has been consumed and that have not
    /// ended yet: a blank line before a consumed line is inside an array span (§12).
    pub(crate) open_spans: usize,
    /// The last consumed line, for positions of errors raised after it.
    pub(crate) last: Option<Line<'de>>,
}

impl<'de> Scanner<'de> {
    pub(crate) fn new(src: &'de str, indent_size: usize, strict: bool) -> Self {
        // A UTF-8 BOM before the first line is not content.
        let src = src.strip_prefix('\u{feff}').unwrap_or(src);
        let indent = Indentation::new(indent_size, strict);
        Scanner {
            src,
            pos: 0,
            indent,
            indent_size: indent.size,
            strict,
            peeked: None,
            blank_since_last: None,
            open_spans: 0,
            last: None,
        }
    }

    /// The next significant line without consuming it.
    pub(crate) fn peek(&mut self) -> Result<Option<Line<'de>>> {
        if self.peeked.is_none() {
            self.peeked = self.scan()?;
        }
        Ok(self.peeked)
    }

    /// Consumes the next significant line if `take` accepts it (peek, decide and consume in
    /// one call: the line is copied out once).
    #[inline]
    pub(crate) fn next_if(
        &mut self,
        take: impl FnOnce(&Line<'de>) -> Result<bool>,
    ) -> Result<Option<Line<'de>>> {
        if self.peeked.is_none() {
            self.peeked = self.scan()?;
        }
        match &self.peeked {
            Some(line) if take(line)? => self.consume().map(Some),
            _ => Ok(None),
        }
    }

    /// The significant lines from the current position on, without moving this scanner
    /// (a lookahead; scanning errors end it).
    pub(crate) fn lookahead(&self) -> impl Iterator<Item = Line<'de>> + 'de + use<'de> {
        let mut ahead = self.clone();
        let mut first = ahead.peeked.take();
        std::iter::from_fn(move || first.take().or_else(|| ahead.scan().ok().flatten()))
    }

    /// The cursor fast path for the common object line (§8): exactly `depth` levels of
    /// spaces, then an unquoted key, a colon and the rest of the line. One pass: the
    /// indentation is compared, the key's end found with a word-at-a-time search that also
    /// stops at a newline, and only the text after the colon is searched for the line's end.
    /// Returns the consumed line, its key and the text after the colon (spaces trimmed), or
    /// `None` without consuming anything for every other line (peeked, blank, comment, tab,
    /// quoted key, header, other depth, …), which then takes the general path
    /// ([`Self::next_if`] and `Deserializer::field`); both read this line the same way.
    #[inline(always)]
    pub(crate) fn next_key_line(
        &mut self,
        depth: usize,
    ) -> Option<(Line<'de>, &'de str, &'de str)> {
        let (tail, indent, _, colon) = self.key_colon(depth, false)?;
        let (line_end, end) = line_bounds(tail.as_bytes(), colon);
        let line = self.take(tail, indent, end, line_end, depth);
        let (key, rest) = super::token::split_at_colon(line.content, colon - indent);
        Some((line, key, rest))
    }

    /// [`Self::next_key_line`] for a value read where it stands (`de/field_value.rs`): the
    /// same test, stopped after the colon and the spaces after it, so the value's end is
    /// found by whatever reads it. Nothing is consumed yet; the caller ends the line with
    /// [`Self::end_value`] or [`Self::finish_value`] before anything else reads the input.
    /// Returns the key's line (its content runs to the colon; it is the last line for
    /// error positions from here on), the key and the value's offset in the input.
    #[inline(always)]
    pub(crate) fn next_key_at(&mut self, depth: usize) -> Option<(Line<'de>, &'de str, usize)> {
        self.key_at(depth, false)
    }

    /// [`Self::next_key_at`] for a list item whose first field is on its hyphen line (§10):
    /// `- ` at exactly `depth`, then a plain key at once. `-` alone, more spaces or a tab
    /// after the hyphen, a header and a quoted key are left to the general path.
    #[inline(always)]
    pub(crate) fn next_item_key_at(
        &mut self,
        depth: usize,
    ) -> Option<(Line<'de>, &'de str, usize)> {
        self.key_at(depth, true)
    }

    /// The cursor fast path for a header line inside an object (§6): exactly `depth` levels
    /// of spaces, then a plain key and its `[`. The line is consumed whole and returned as
    /// [`Self::next_if`] would return it, for `Deserializer::field` to read; every other
    /// line is left, unconsumed, to the general path.
    #[inline]
    pub(crate) fn next_header_line(&mut self, depth: usize) -> Option<Line<'de>> {
        let (tail, indent) = self.at_depth(depth)?;
        let bytes = tail.as_bytes();
        let open = super::token::key_end(bytes, indent)?;
        if open == indent || bytes[open] != b'[' {
            return None;
        }
        let (line_end, end) = line_bounds(bytes, open);
        Some(self.take(tail, indent, end, line_end, depth))
    }

    /// Whether the line at the cursor is a plain key and its colon at exactly `depth`, as
    /// [`Self::next_key_at`] would read it; nothing is consumed.
    pub(crate) fn at_plain_key(&self, depth: usize) -> bool {
        self.key_colon(depth, false).is_some()
    }

    /// The line at the cursor at exactly `depth` when it is a plain key and its colon
    /// (after `- ` for a list item's first field): the text from the cursor on, the
    /// indentation's length, where the key starts and where its colon is. The first `:`,
    /// `[` or `"` must be a colon after a non-empty key; anything else is a header or a
    /// quoted key. The key's first byte is not a space (`at_depth`, or the item test).
    #[inline(always)]
    fn key_colon(&self, depth: usize, item: bool) -> Option<(&'de str, usize, usize, usize)> {
        let (tail, indent) = self.at_depth(depth)?;
        let bytes = tail.as_bytes();
        let start = if item {
            if bytes.get(indent..indent + 2) != Some(b"- ".as_slice())
                || matches!(bytes.get(indent + 2), Some(b' ' | b'\t'))
            {
                return None;
            }
            indent + 2
        } else {
            indent
        };
        let colon = super::token::key_end(bytes, start)?;
        if colon == start || bytes[colon] != b':' {
            return None;
        }
        Some((tail, indent, start, colon))
    }

    #[inline(always)]
    fn key_at(&mut self, depth: usize, item: bool) -> Option<(Line<'de>, &'de str, usize)> {
        let (tail, indent, start, colon) = self.key_colon(depth, item)?;
        let bytes = tail.as_bytes();
        let mut key_end = colon;
        while bytes[key_end - 1] == b' ' {
            key_end -= 1;
        }
        let mut value = colon + 1;
        while bytes.get(value) == Some(&b' ') {
            value += 1;
        }
        let line = Line {
            content: tail.split_at(colon + 1).0.split_at(indent).1,
            depth,
        };
        self.last = Some(line);
        let key = tail.split_at(key_end).0.split_at(start).1;
        Some((line, key, self.pos + value))
    }

    /// The input from the start of `from` to the end of `to`, two slices of it.
    pub(crate) fn joined(&self, from: &str, to: &str) -> &'de str {
        let base = self.src.as_ptr() as usize;
        let start = from.as_ptr() as usize - base;
        let end = to.as_ptr() as usize + to.len() - base;
        self.src.get(start..end).unwrap_or_default()
    }

    /// Whether the next line is a significant line shallower than `depth`, as [`Self::peek`]
    /// would find it, or the input has ended: a scope at `depth` ends there. Decided
    /// without reading the line, for the lines a fast path reads (false also for blank,
    /// comment, tab-indented and wrongly indented lines, and when a line was peeked: the
    /// caller then peeks).
    #[inline]
    pub(crate) fn shallower_than(&self, depth: usize) -> bool {
        if self.peeked.is_some() || self.blank_since_last.is_some() {
            return false;
        }
        let Some(bytes) = self.src.as_bytes().get(self.pos..) else {
            return true;
        };
        let indent = depth * self.indent_size;
        let spaces = leading_spaces(bytes, indent);
        match bytes.get(spaces) {
            None => self.pos >= self.src.len(),
            Some(b' ' | b'\t' | b'#' | b'\r' | b'\n') => false,
            Some(_) => spaces < indent && spaces.is_multiple_of(self.indent_size),
        }
    }

    /// The input, for values read where they stand.
    #[inline]
    pub(crate) fn text(&self) -> &'de str {
        self.src
    }

    /// Ends the line of a value from [`Self::next_key_at`] if the value read ends at `end`
    /// (an offset in the input): a newline or the input's end follows. Returns false and
    /// consumes nothing for anything else (trailing spaces, CR, more text), which
    /// [`Self::finish_value`] then reads as the general path does.
    #[inline]
    pub(crate) fn end_value(&mut self, end: usize) -> bool {
        match self.src.as_bytes().get(end) {
            None => self.pos = self.src.len(),
            Some(b'\n') => self.pos = end + 1,
            Some(_) => return false,
        }
        true
    }

    /// A value from [`Self::next_key_at`] starting at `at` whose newline is one of the eight
    /// bytes from `at` on (most numbers and literals): those bytes as a word, and the
    /// value's length (one to seven). One word's test, where a byte loop would branch on
    /// every byte and mispredict its exit. `None` for an empty or longer value and near the
    /// input's end; nothing is consumed ([`Self::end_value`] does).
    #[inline]
    pub(crate) fn short_value(&self, at: usize) -> Option<(u64, usize)> {
        let chunk = self.src.as_bytes().get(at..)?.first_chunk::<8>()?;
        let word = u64::from_le_bytes(*chunk);
        let len = byte_matches(word, b'\n').trailing_zeros() as usize / 8;
        (1..8).contains(&len).then_some((word, len))
    }

    /// The text of a value from [`Self::next_key_at`] starting at `at`, to its line's end
    /// with a CR and trailing spaces trimmed (as [`Self::next_key_line`] reads it); the
    /// line is consumed.
    pub(crate) fn finish_value(&mut self, at: usize) -> &'de str {
        let bytes = self.src.as_bytes();
        let line_end = find_newline(bytes, at);
        let mut end = line_end - usize::from(line_end > at && bytes[line_end - 1] == b'\r');
        while end > at && bytes[end - 1] == b' ' {
            end -= 1;
        }
        self.pos = (line_end + 1).min(self.src.len());
        self.src.split_at(end).0.split_at(at).1
    }

    /// Whether the next line is a significant line at exactly `depth`, as [`Self::peek`]
    /// would find it, decided without reading the line (false also for the lines the
    /// cursor fast paths leave to the general path: the caller then peeks).
    #[inline]
    pub(crate) fn starts_at_depth(&self, depth: usize) -> bool {
        self.at_depth(depth).is_some()
    }

    /// The text from the cursor on and the indentation's length, when the line there starts
    /// with exactly `depth` levels of spaces and content that is not blank, a comment or a
    /// tab: the lines the cursor fast paths read. `None` also when a line was peeked or a
    /// blank line is pending (the general path handles both).
    #[inline]
    fn at_depth(&self, depth: usize) -> Option<(&'de str, usize)> {
        if self.peeked.is_some() || self.blank_since_last.is_some() {
            return None;
        }
        // Positions from here on are relative to the line's start. Slices are cut with
        // `split_at` at ASCII bytes (or the text's end): always char boundaries, and an
        // inline check.
        let (_, tail) = self.src.split_at_checked(self.pos)?;
        let bytes = tail.as_bytes();
        let indent = depth * self.indent_size;
        let first = *bytes.get(indent)?;
        let plain =
            !matches!(first, b' ' | b'\t' | b'#' | b'\r' | b'\n') && all_spaces(bytes, indent);
        plain.then_some((tail, indent))
    }

    /// Consumes the line that a fast path read from `tail`: its content runs from `indent`
    /// to `end`, and the line from the cursor to `line_end`.
    #[inline]
    fn take(
        &mut self,
        tail: &'de str,
        indent: usize,
        end: usize,
        line_end: usize,
        depth: usize,
    ) -> Line<'de> {
        self.pos += (line_end + 1).min(tail.len());
        let line = Line {
            content: tail.split_at(end).0.split_at(indent).1,
            depth,
        };
        self.last = Some(line);
        line
    }

    /// The cursor fast path for a tabular row (§9.3) at exactly `depth`: the indentation
    /// compared, then the §9.3 row test and the split on `delim` in one pass (`cells` is
    /// cleared and filled, space-trimmed as §12 says; quoted cells are kept whole for the
    /// token parser). Declines without consuming anything, as [`Self::next_key_line`] does,
    /// for every other line: a colon before the first delimiter (a key-value line), a blank
    /// or comment line, another depth; the general path (`Span::next_line`, `is_data_row`,
    /// `split_delimited`) reads those.
    #[inline]
    pub(crate) fn next_row_line(
        &mut self,
        depth: usize,
        delim: u8,
        cells: &mut Vec<&'de str>,
    ) -> Option<Line<'de>> {
        let (tail, indent) = self.at_depth(depth)?;
        let bytes = tail.as_bytes();
        // §9.3 and §11.2 in one pass: a colon before the first delimiter (outside quotes)
        // makes this a key-value line, not a row. Unquoted cells are split in the same scan
        // that finds the line's end; at a quote, the line's end is found first, so that the
        // closing quote is looked for on this line only, and the rest is split within it.
        cells.clear();
        let mut cell = indent;
        let mut at = indent;
        let line_end = loop {
            let found = if cells.is_empty() {
                find_any(bytes, at, [delim, b'"', b':', b'\n'])
            } else {
                find_any(bytes, at, [delim, b'"', b'\n'])
            };
            let Some(found) = found else {
                break bytes.len();
            };
            match bytes[found] {
                b'\n' => break found,
                b'"' => {
                    let (line_end, end) = line_bounds(bytes, found);
                    let content = tail.split_at(end).0;
                    split_quoted_row(content, delim, cell, found, cells)?;
                    return Some(self.take(tail, indent, end, line_end, depth));
                }
                b':' => return None,
                _ => {
                    cells.push(trim_spaces(tail.split_at(found).0.split_at(cell).1));
                    cell = found + 1;
                    at = found + 1;
                }
            }
        };
        let end = content_end(bytes, line_end);
        cells.push(trim_spaces(tail.split_at(end).0.split_at(cell).1));
        Some(self.take(tail, indent, end, line_end, depth))
    }

    /// The 1-based number of `line` in the input, counted (for messages only).
    pub(crate) fn line_number(&self, line: &Line<'de>) -> usize {
        let offset = line.id().saturating_sub(self.src.as_ptr() as usize);
        let before = self.src.as_bytes().get(..offset).unwrap_or_default();
        memchr::memchr_iter(b'\n', before).count() + 1
    }

    /// Gives an unresolved error position its line and column in this input.
    pub(crate) fn resolve(&self, err: Error) -> Error {
        err.resolve(self.src)
    }

    /// Consumes the line returned by the last `peek`.
    pub(crate) fn consume(&mut self) -> Result<Line<'de>> {
        let line = match self.peeked.take() {
            Some(line) => line,
            None => match self.scan()? {
                Some(line) => line,
                None => return Err(Error::new(crate::Category::Eof, "unexpected end of input")),
            },
        };
        if let Some(blank) = self.blank_since_last
            && self.strict
            && self.open_spans > 0
        {
            return Err(blank_in_span(blank));
        }
        self.blank_since_last = None;
        self.last = Some(line);
        Ok(line)
    }

    /// Reads raw lines until a significant one.
    fn scan(&mut self) -> Result<Option<Line<'de>>> {
        loop {
            if self.pos >= self.src.len() {
                return Ok(None);
            }
            let rest = &self.src[self.pos..];
            let (raw, advance) = match memchr::memchr(b'\n', rest.as_bytes()) {
                Some(n) => (&rest[..n], n + 1),
                None => (rest, rest.len()),
            };
            self.pos += advance;
            let raw = raw.strip_suffix('\r').unwrap_or(raw);
            match self.indent.read(raw)? {
                RawLine::Line(line) => return Ok(Some(line)),
                RawLine::Comment => {}
                RawLine::Blank => {
                    if self.blank_since_last.is_none() {
                        self.blank_since_last = Some(raw);
                    }
                }
            }
        }
    }
}

/// §12, strict: the first blank line met since the last consumed line, when that line is
/// consumed inside an array or keyed table (one whose first item was read and that has not
/// ended). `blank` is the raw blank line; the error is about the whole of it.
pub(crate) fn blank_in_span(blank: &str) -> Error {
    Error::syntax("blank lines are not allowed inside an array or keyed table in strict mode")
        .at_address(blank.as_ptr() as usize, true)
}

impl Indentation {
    /// The common line, decided in one pass over its indentation: spaces only, a whole number
    /// of levels, content that is neither a comment nor blank. `None` sends the line to
    /// [`Self::classify`], which handles everything else (and decides the same on these).
    #[inline]
    fn common<'de>(&self, raw: &'de str) -> Option<Line<'de>> {
        let bytes = raw.as_bytes();
        let indent = bytes.iter().take_while(|&&b| b == b' ').count();
        let first = *bytes.get(indent)?;
        if first == b'\t' || first == b'#' {
            return None;
        }
        let depth = match self.shift {
            Some(shift) if indent & ((1 << shift) - 1) == 0 => indent >> shift,
            Some(_) => return None,
            None if indent % self.size == 0 => indent / self.size,
            None => return None,
        };
        let mut end = bytes.len();
        while bytes[end - 1] == b' ' {
            end -= 1;
        }
        Some(Line {
            content: &raw[indent..end],
            depth,
        })
    }

    /// Every line by the full rules: comments (§5.1), blank lines (§12), tabs and partial
    /// levels (an error in strict mode, §14.2; non-strict, v4.4 recovery 3).
    fn classify<'de>(&self, raw: &'de str) -> Result<RawLine<'de>> {
        let bytes = raw.as_bytes();
        let lead = bytes
            .iter()
            .position(|&b| b != b' ' && b != b'\t')
            .unwrap_or(bytes.len());
        let first_tab = bytes[..lead].iter().position(|&b| b == b'\t');
        // Strict mode: indentation ends at the first tab, which then starts the content and
        // fails the tab check below (a whitespace-only line with a tab is not blank).
        let indent = match first_tab {
            Some(t) if self.strict => t,
            _ => lead,
        };
        let content = raw[indent..].trim_end_matches(' ');
        // §5.1 comment line: only spaces may precede the '#'.
        if first_tab.is_none() && content.starts_with('#') {
            return Ok(RawLine::Comment);
        }
        if content.is_empty() {
            return Ok(RawLine::Blank);
        }
        if self.strict {
            let at = raw.as_ptr() as usize + indent;
            if first_tab.is_some() {
                return Err(
                    Error::syntax("tabs are not allowed in indentation in strict mode")
                        .at_address(at, false),
                );
            }
            if indent % self.size != 0 {
                return Err(Error::syntax(format!(
                    "indentation must be a multiple of {} spaces, found {indent}",
                    self.size
                ))
                .at_address(at, false));
            }
        }
        // Non-strict: each tab is one level, spaces are floored (v4.4 recovery 3).
        let tabs = if self.strict {
            0
        } else {
            bytes[..indent].iter().filter(|&&b| b == b'\t').count()
        };
        let depth = (indent - tabs) / self.size + tabs;
        Ok(RawLine::Line(Line { content, depth }))
    }
}

/// Where the line holding `bytes[from]` ends (its newline, or the text's end) and where its
/// content ends: before a CR at the end (§12) and trailing spaces. `bytes[from]` must be a
/// byte of the content that is neither a space nor a CR.
#[inline]
fn line_bounds(bytes: &[u8], from: usize) -> (usize, usize) {
    let line_end = find_newline(bytes, from);
    (line_end, content_end(bytes, line_end))
}

/// Where the content of the line ending at `line_end` ends: before a CR at the end (§12) and
/// trailing spaces. The line must hold a byte that is neither a space nor a CR.
#[inline]
fn content_end(bytes: &[u8], line_end: usize) -> usize {
    let mut end = line_end - usize::from(bytes[line_end - 1] == b'\r');
    while bytes[end - 1] == b' ' {
        end -= 1;
    }
    end
}

/// The rest of a row from its first quote on (`Scanner::next_row_line`): `content` is the
/// row's content (to its end), `cell` where the current cell starts and `quote` the quote.
/// Quoted cells are stepped over whole; `None` for a colon before the first delimiter (a
/// key-value line with a quoted key). Out of line: quoted cells are the uncommon row, and
/// inlined this would grow the plain row's path (as measured).
#[inline(never)]
fn split_quoted_row<'de>(
    content: &'de str,
    delim: u8,
    mut cell: usize,
    quote: usize,
    cells: &mut Vec<&'de str>,
) -> Option<()> {
    let text = content.as_bytes();
    let mut at = quote;
    loop {
        let found = if cells.is_empty() {
            find_any(text, at, [delim, b'"', b':'])
        } else {
            find_either(text, at, delim, b'"')
        };
        let Some(found) = found else { break };
        match text[found] {
            b'"' => match after_quoted(text, found) {
                Some(next) => at = next,
                // An unterminated quote runs to the end, as `split_delimited` reads it.
                None => break,
            },
            b':' if cells.is_empty() => return None,
            _ => {
                cells.push(trim_spaces(content.split_at(found).0.split_at(cell).1));
                cell = found + 1;
                at = found + 1;
            }
        }
    }
    cells.push(trim_spaces(content.split_at(cell).1));
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Moves both scanners on by one line the general way, after a fast path declined; they
    /// must read the same line or fail alike. False at the end (or an error).
    fn step_both(fast: &mut Scanner<'_>, plain: &mut Scanner<'_>, text: &str) -> bool {
        match (fast.next_if(|_| Ok(true)), plain.next_if(|_| Ok(true))) {
            (Ok(Some(a)), Ok(Some(b))) => {
                assert_eq!(a.id(), b.id(), "{text:?}");
                true
            }
            (Ok(None), Ok(None)) | (Err(_), Err(_)) => false,
            other => panic!("{text:?}: {other:?}"),
        }
    }

    /// `common`, the one-pass reading of a line, decides as `classify` does on every line it
    /// takes.
    #[test]
    fn common_lines_agree_with_classify() {
        const INDENTS: [&str; 8] = ["", " ", "  ", "   ", "    ", "\t", "  \t", "      "];
        const CONTENTS: [&str; 8] = ["a: 1", "#c", "- x", "x  ", "\"q\": 2 ", "é", "", " "];
        let mut taken = 0;
        for indent_size in [1, 2, 3, 4] {
            for strict in [true, false] {
                for indent in INDENTS {
                    for content in CONTENTS {
                        let raw = format!("{indent}{content}");
                        let indentation = Indentation::new(indent_size, strict);
                        if let Some(line) = indentation.common(&raw) {
                            let RawLine::Line(general) = indentation.classify(&raw).unwrap() else {
                                panic!("{raw:?}: not a line");
                            };
                            assert_eq!(
                                (line.content, line.depth),
                                (general.content, general.depth),
                                "{raw:?} indent {indent_size}"
                            );
                            taken += 1;
                        }
                    }
                }
            }
        }
        assert!(taken > 50, "{taken}");
    }

    /// The key split of `Deserializer::field`'s fast path, written plainly: the first `:`,
    /// `[` or `"` must be a colon after a non-empty key.
    fn plain_split(content: &str) -> Option<(&str, &str)> {
        let at = content.find([':', '[', '"'])?;
        let key = content[..at].trim_end_matches(' ');
        (content.as_bytes()[at] == b':' && at > 0 && !key.is_empty())
            .then(|| (key, content[at + 1..].trim_start_matches(' ')))
    }

    /// A generated document of one to six `indent key colon value end` lines, the last end
    /// dropped half the time.
    fn key_lines_document(pick: &mut impl FnMut(usize) -> usize) -> String {
        const INDENTS: [&str; 7] = ["", "  ", "    ", " ", "   ", "\t", "  \t"];
        const KEYS: [&str; 16] = [
            "a", "key_1", "x y", "\"q\"", "-", "- a", "#c", "", "a[2]", "é", "a.b", "[1]", "- b c",
            "-  a", "- \"q\"", "- x[1]",
        ];
        const COLONS: [&str; 5] = [":", ": ", ":   ", " : ", ""];
        const VALUES: [&str; 7] = ["", "1", "x y", "[]", "\"s: t\"", "a: b", "é"];
        const ENDS: [&str; 5] = ["\n", " \n", "\r\n", " \r\n", "\n\n"];
        let mut text = String::new();
        for _ in 0..1 + pick(6) {
            for part in [
                INDENTS[pick(7)],
                KEYS[pick(16)],
                COLONS[pick(5)],
                VALUES[pick(7)],
                ENDS[pick(5)],
            ] {
                text.push_str(part);
            }
        }
        if pick(2) == 0 {
            text.pop();
        }
        text
    }

    /// `starts_at_depth` and `shallower_than` are promises about the line the general path
    /// peeks: it is at that depth, or the input ends or the line is shallower.
    fn depth_promises_hold(fast: &Scanner<'_>, plain: &Scanner<'_>, depth: usize, text: &str) {
        if fast.starts_at_depth(depth) {
            let peeked = plain.clone().peek().unwrap().unwrap();
            assert_eq!(peeked.depth, depth, "{text:?}");
        }
        if fast.shallower_than(depth)
            && let Ok(Some(peeked)) = plain.clone().peek()
        {
            assert!(peeked.depth < depth, "{text:?}");
        }
    }

    /// A list item's first field read at the cursor: the general path reads the hyphen line,
    /// then the key-value text after `- `. Whether the fast path took the line.
    fn item_key_agrees(fast: &Scanner<'_>, plain: &Scanner<'_>, depth: usize, text: &str) -> bool {
        let mut item = fast.clone();
        let Some((line, key, at)) = item.next_item_key_at(depth) else {
            return false;
        };
        let rest = item.finish_value(at);
        let mut general = plain.clone();
        let read = general.next_if(|_| Ok(true)).unwrap().unwrap();
        assert_eq!((line.id(), line.depth), (read.id(), read.depth), "{text:?}");
        let after = read.content.strip_prefix("- ").unwrap();
        assert_eq!(Some((key, rest)), plain_split(after), "{text:?}");
        assert_eq!(item.pos, general.pos, "{text:?}");
        true
    }

    /// A header line inside an object: the line the general path reads. Whether the fast
    /// path took it.
    fn header_line_agrees(
        fast: &Scanner<'_>,
        plain: &Scanner<'_>,
        depth: usize,
        text: &str,
    ) -> bool {
        let mut header = fast.clone();
        let Some(line) = header.next_header_line(depth) else {
            return false;
        };
        let mut general = plain.clone();
        let read = general.next_if(|_| Ok(true)).unwrap().unwrap();
        assert_eq!(
            (line.id(), line.content, line.depth),
            (read.id(), read.content, read.depth),
            "{text:?}"
        );
        assert_eq!(header.pos, general.pos, "{text:?}");
        true
    }

    /// The key lines the agreement test met, taken and declined.
    #[derive(Default)]
    struct KeyLinesMet {
        taken: usize,
        declined: usize,
    }

    /// `next_key_at` stops at the value; with `finish_value` it reads the same line as
    /// `next_key_line`, and declines the same lines. A taken line is the general path's, key
    /// and rest split as [`plain_split`] does; a declined one leaves the cursor where it was,
    /// and both paths then read the next line. `false` once the input ends or fails.
    fn key_line_agrees(
        fast: &mut Scanner<'_>,
        plain: &mut Scanner<'_>,
        depth: usize,
        text: &str,
        met: &mut KeyLinesMet,
    ) -> bool {
        let before = fast.pos;
        let mut lazy = fast.clone();
        let at_value = lazy
            .next_key_at(depth)
            .map(|(line, key, at)| (line.id(), line.depth, key, lazy.finish_value(at), lazy.pos));
        let Some((line, key, rest)) = fast.next_key_line(depth) else {
            assert_eq!(at_value, None, "{text:?}");
            met.declined += 1;
            assert_eq!(fast.pos, before, "{text:?}");
            return step_both(fast, plain, text);
        };
        assert_eq!(
            at_value,
            Some((line.id(), line.depth, key, rest, fast.pos)),
            "{text:?}"
        );
        met.taken += 1;
        let read = plain.next_if(|l| Ok(l.depth == depth)).unwrap().unwrap();
        assert_eq!(
            (line.id(), line.content, line.depth),
            (read.id(), read.content, read.depth),
            "{text:?}"
        );
        assert_eq!(Some((key, rest)), plain_split(read.content), "{text:?}");
        assert_eq!(fast.pos, plain.pos, "{text:?}");
        true
    }

    /// Over generated documents (indents, tabs, comments, blank lines, CR, trailing spaces,
    /// quoted keys, headers, list items), the cursor fast path either declines without
    /// moving, or reads exactly the line, key and rest that the general path reads.
    #[test]
    fn key_and_header_lines_agree_with_the_general_path() {
        let mut state = 0x2545_f491_4f6c_dd1d;
        let mut pick = |n: usize| crate::test_rng::next(&mut state) as usize % n;
        let mut met = KeyLinesMet::default();
        let (mut items, mut headers) = (0, 0);
        for _ in 0..3000 {
            let text = key_lines_document(&mut pick);
            for strict in [true, false] {
                let mut fast = Scanner::new(&text, 2, strict);
                let mut plain = fast.clone();
                loop {
                    let depth = pick(3);
                    depth_promises_hold(&fast, &plain, depth, &text);
                    items += usize::from(item_key_agrees(&fast, &plain, depth, &text));
                    headers += usize::from(header_line_agrees(&fast, &plain, depth, &text));
                    if !key_line_agrees(&mut fast, &mut plain, depth, &text, &mut met) {
                        break;
                    }
                }
            }
        }
        let KeyLinesMet { taken, declined } = met;
        assert!(
            taken > 500 && declined > 500 && items > 100 && headers > 100,
            "{taken} taken, {declined} declined, {items} items, {headers} headers"
        );
    }

    /// Over generated tables (quoted cells with delimiters, colons and escapes, unterminated
    /// quotes, key-value lines, CR, trailing spaces, comments, blank lines, other depths),
    /// the row fast path either declines without moving, or reads the line and the cells
    /// that the general path (`is_data_row`, then `split_delimited`) reads.
    #[test]
    fn next_row_line_agrees_with_the_general_path() {
        use crate::de::tabular::is_data_row;
        use crate::de::token::split_delimited;
        const INDENTS: [&str; 5] = ["  ", "", "    ", "   ", "\t"];
        const CELLS: [&str; 16] = [
            "\"e\\",
            "\"t:1\"",
            "1",
            "ab c",
            "",
            " x ",
            "\"q,r\"",
            "\"a\\\"b\"",
            "\"open",
            "k: v",
            "a:b",
            "#c",
            "é",
            "\"x\" y",
            "-",
            "1.5",
        ];
        const ENDS: [&str; 5] = ["\n", " \n", "\r\n", "\n\n", "\n# note\n"];
        let mut state = 0x0dd_ba11_cafe_f00du64;
        let mut pick = |n: usize| crate::test_rng::next(&mut state) as usize % n;
        let (mut taken, mut declined) = (0, 0);
        for _ in 0..3000 {
            let delim = [b',', b'|', b'\t'][pick(3)];
            let mut text = String::new();
            for _ in 0..1 + pick(5) {
                text.push_str(INDENTS[pick(5)]);
                for c in 0..1 + pick(4) {
                    if c > 0 {
                        text.push(char::from(delim));
                    }
                    text.push_str(CELLS[pick(CELLS.len())]);
                }
                text.push_str(ENDS[pick(5)]);
            }
            let mut fast = Scanner::new(&text, 2, true);
            let mut plain = fast.clone();
            let (mut cells, mut expected) = (Vec::new(), Vec::new());
            loop {
                let depth = pick(2);
                let before = fast.pos;
                if let Some(line) = fast.next_row_line(depth, delim, &mut cells) {
                    taken += 1;
                    let read = plain
                        .next_if(|l| Ok(l.depth == depth && is_data_row(l.content, delim)))
                        .unwrap()
                        .unwrap();
                    assert_eq!((line.id(), line.content), (read.id(), read.content));
                    expected.clear();
                    split_delimited(read.content, delim, &mut expected);
                    assert_eq!(cells, expected, "{text:?}");
                    assert_eq!(fast.pos, plain.pos, "{text:?}");
                    continue;
                }
                declined += 1;
                assert_eq!(fast.pos, before, "{text:?}");
                if !step_both(&mut fast, &mut plain, &text) {
                    break;
                }
            }
        }
        assert!(
            taken > 500 && declined > 500,
            "{taken} taken, {declined} declined"
        );
    }
}
