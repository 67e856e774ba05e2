//! Splits the input into lines: CRLF (§12), comment lines (§5.1), blank lines (§12) and
//! indentation depth with its strict-mode checks (§12, §14.2).

use crate::error::{Error, Result};

/// One significant (non-blank, non-comment) line.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Line<'de> {
    /// The text after the indentation, trailing spaces removed.
    pub(crate) content: &'de str,
    /// The whole line without its terminator, for error messages and columns.
    pub(crate) raw: &'de str,
    /// Indentation level.
    pub(crate) depth: usize,
    /// 1-based line number.
    pub(crate) number: usize,
}

impl<'de> Line<'de> {
    /// An error positioned at byte `offset` of `content`.
    pub(crate) fn error_at(&self, offset_in_content: usize, err: Error) -> Error {
        let content_start = self.content.as_ptr() as usize - self.raw.as_ptr() as usize;
        position(
            self.raw,
            self.number,
            content_start + offset_in_content,
            err,
        )
    }

    /// An error at the start of the content.
    pub(crate) fn error(&self, message: impl Into<String>) -> Error {
        self.error_at(0, Error::syntax(message))
    }

    /// An error at `part`, which must be a slice of this line.
    pub(crate) fn error_in(&self, part: &str, err: Error) -> Error {
        let offset = (part.as_ptr() as usize).saturating_sub(self.raw.as_ptr() as usize);
        position(self.raw, self.number, offset.min(self.raw.len()), err)
    }
}

/// Attaches line/column (in characters) to `err`.
pub(crate) fn position(raw: &str, number: usize, byte_offset: usize, err: Error) -> Error {
    let mut offset = byte_offset.min(raw.len());
    while !raw.is_char_boundary(offset) {
        offset -= 1;
    }
    let column = raw[..offset].chars().count() + 1;
    err.at(number, column, raw)
}

#[derive(Clone)]
pub(crate) struct Scanner<'de> {
    src: &'de str,
    pos: usize,
    line_number: usize,
    indent_size: usize,
    /// `indent_size` as a power of two, for shifts instead of divisions.
    indent_shift: Option<u32>,
    strict: bool,
    peeked: Option<Line<'de>>,
    /// The first blank line seen since the last consumed line (0: none).
    blank_since_last: usize,
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
        let indent_size = indent_size.max(1);
        Scanner {
            src,
            pos: 0,
            line_number: 0,
            indent_size,
            indent_shift: indent_size
                .is_power_of_two()
                .then(|| indent_size.trailing_zeros()),
            strict,
            peeked: None,
            blank_since_last: 0,
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

    /// Consumes the line returned by the last `peek`.
    pub(crate) fn consume(&mut self) -> Result<Line<'de>> {
        let line = match self.peeked.take() {
            Some(line) => line,
            None => match self.scan()? {
                Some(line) => line,
                None => return Err(Error::new(crate::Category::Eof, "unexpected end of input")),
            },
        };
        if self.blank_since_last != 0 && self.strict && self.open_spans > 0 {
            let n = self.blank_since_last;
            return Err(Error::syntax(
                "blank lines are not allowed inside an array or keyed table in strict mode",
            )
            .at(n, 1, ""));
        }
        self.blank_since_last = 0;
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
            self.line_number += 1;
            let raw = raw.strip_suffix('\r').unwrap_or(raw);
            if let Some(line) = self.common(raw) {
                return Ok(Some(line));
            }
            if let Some(line) = self.classify(raw)? {
                return Ok(Some(line));
            }
        }
    }

    /// The common line, decided in one pass over its indentation: spaces only, a whole number
    /// of levels, content that is neither a comment nor blank. `None` sends the line to
    /// [`Self::classify`], which handles everything else (and decides the same on these).
    #[inline]
    fn common(&self, raw: &'de str) -> Option<Line<'de>> {
        let bytes = raw.as_bytes();
        let indent = bytes.iter().take_while(|&&b| b == b' ').count();
        let first = *bytes.get(indent)?;
        if first == b'\t' || first == b'#' {
            return None;
        }
        let depth = match self.indent_shift {
            Some(shift) if indent & ((1 << shift) - 1) == 0 => indent >> shift,
            Some(_) => return None,
            None if indent % self.indent_size == 0 => indent / self.indent_size,
            None => return None,
        };
        let mut end = bytes.len();
        while bytes[end - 1] == b' ' {
            end -= 1;
        }
        Some(Line {
            content: &raw[indent..end],
            raw,
            depth,
            number: self.line_number,
        })
    }

    fn classify(&mut self, raw: &'de str) -> Result<Option<Line<'de>>> {
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
            return Ok(None);
        }
        if content.is_empty() {
            if self.blank_since_last == 0 {
                self.blank_since_last = self.line_number;
            }
            return Ok(None);
        }
        let number = self.line_number;
        if self.strict {
            if first_tab.is_some() {
                return Err(position(
                    raw,
                    number,
                    indent,
                    Error::syntax("tabs are not allowed in indentation in strict mode"),
                ));
            }
            if indent % self.indent_size != 0 {
                return Err(position(
                    raw,
                    number,
                    indent,
                    Error::syntax(format!(
                        "indentation must be a multiple of {} spaces, found {indent}",
                        self.indent_size
                    )),
                ));
            }
        }
        // Non-strict: each tab is one level, spaces are floored (v4.4 recovery 3).
        let tabs = if self.strict {
            0
        } else {
            bytes[..indent].iter().filter(|&&b| b == b'\t').count()
        };
        let depth = (indent - tabs) / self.indent_size + tabs;
        Ok(Some(Line {
            content,
            raw,
            depth,
            number,
        }))
    }
}
