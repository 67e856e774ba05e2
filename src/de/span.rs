//! The bookkeeping shared by the line-based array scopes (list items, tabular rows, keyed
//! entries): declared count, item depth, the array span of §12, and their errors.

use super::form::over_indented;
use super::scanner::{Line, Scanner};
use super::{Deserializer, eof};
use crate::error::{Error, Result};

/// A line-based scope's next line at `line`'s depth (§9.3–§9.5, §12): `Ok(false)` at `base`
/// or shallower (the scope ends before it), an error at another depth than the items'
/// `depth`, `Ok(true)` for a line at item depth (which the scope then classifies).
#[inline]
pub(crate) fn item_line(line: &Line<'_>, base: usize, depth: usize) -> Result<bool> {
    match line.depth {
        d if d <= base => Ok(false),
        d if d != depth => Err(over_indented(line, depth)),
        _ => Ok(true),
    }
}

/// The declared count's check when a scope closes (strict only: in non-strict mode `[N]` is
/// advisory, v4.4 recovery 1). `ended` tells whether the input ended there, asked only on a
/// shortfall (an end-of-input error then). `Some` is the error, unplaced: it belongs on the
/// scope's last item line (or its header, without items).
pub(crate) fn count_error(
    strict: bool,
    declared: usize,
    count: usize,
    what: [&str; 2],
    header_line: usize,
    ended: impl FnOnce() -> Result<bool>,
) -> Result<Option<Error>> {
    if !strict || count == declared {
        return Ok(None);
    }
    let message = format!(
        "expected {}, found {count} (declared by the header on line {header_line})",
        counted(declared, what),
    );
    Ok(Some(if count < declared && ended()? {
        eof(message)
    } else {
        Error::syntax(message)
    }))
}

/// Strict mode: one more item, row or entry after the declared count (unplaced: it belongs
/// on that line).
pub(crate) fn extra_error(items: &str, declared: usize, header_line: usize) -> Error {
    Error::syntax(format!(
        "more {items} than the {declared} declared by the header on line {header_line}"
    ))
}

pub(super) fn stopped_early() -> Error {
    Error::data("the target type ended before the end of this array or object")
}

/// What a line at item depth is to the scope that peeked it.
pub(super) enum LineRole {
    /// An item, row or entry of this scope.
    Item,
    /// Something else: the scope ends before it.
    End,
}

/// The largest size hint a declared count gives (`[N]`, `[N:]`).
const MAX_SIZE_HINT: usize = 4096;

/// Bookkeeping shared by the line-based scopes (list items, tabular rows, keyed entries):
/// where their lines are, the declared count, items seen, and the array span (§12).
pub(super) struct Span<'de> {
    pub(super) declared: usize,
    pub(super) count: usize,
    /// Lines at this depth or shallower end the scope.
    base: usize,
    /// The depth of the scope's items.
    pub(super) depth: usize,
    started: bool,
    pub(super) done: bool,
    pub(super) header: Line<'de>,
    pub(super) last: Line<'de>,
}

impl<'de> Span<'de> {
    /// A scope opened by `header` at `base`; its item depth follows §8 (`content_depth`).
    pub(super) fn open(
        de: &mut Deserializer<'de>,
        declared: usize,
        base: usize,
        header: Line<'de>,
    ) -> Result<Self> {
        Ok(Span {
            declared,
            count: 0,
            base,
            depth: de.content_depth(base)?,
            started: false,
            done: false,
            header,
            last: header,
        })
    }

    /// Consumes and returns the scope's next item line, or `None` when the scope ends.
    /// `stop_at_declared`: strict arrays stop after N items (extra ones are reported by
    /// `close`'s caller); `role` classifies a line at item depth, or rejects it.
    pub(super) fn next_line(
        &mut self,
        de: &mut Deserializer<'de>,
        stop_at_declared: bool,
        role: impl FnOnce(&Line<'de>) -> Result<LineRole>,
    ) -> Result<Option<Line<'de>>> {
        if self.done || (stop_at_declared && de.strict && self.count >= self.declared) {
            self.done = true;
            return Ok(None);
        }
        let (base, depth) = (self.base, self.depth);
        let next = de.scan.next_if(|line| {
            Ok(item_line(line, base, depth)? && matches!(role(line)?, LineRole::Item))
        })?;
        let Some(line) = next else {
            self.done = true;
            return Ok(None);
        };
        self.took(de, line);
        Ok(Some(line))
    }

    /// Counts an item line just consumed; the first opens the array span (§12).
    #[inline]
    fn took(&mut self, de: &mut Deserializer<'de>, line: Line<'de>) {
        if !self.started {
            self.started = true;
            de.scan.open_spans += 1;
        }
        self.count += 1;
        self.last = line;
    }

    /// The scope's next item read by a cursor fast path (`read`: the scanner and the item
    /// depth), with the bookkeeping of [`Self::next_line`]; `None` when the fast path declines
    /// or the scope is at its end, for [`Self::next_line`] to decide.
    #[inline]
    pub(super) fn next_fast<T>(
        &mut self,
        de: &mut Deserializer<'de>,
        read: impl FnOnce(&mut Scanner<'de>, usize) -> Option<(Line<'de>, T)>,
    ) -> Option<(Line<'de>, T)> {
        if self.done || (de.strict && self.count >= self.declared) {
            return None;
        }
        let (line, read) = read(&mut de.scan, self.depth)?;
        self.took(de, line);
        Some((line, read))
    }

    /// The items still to come by the header's count, as a size hint: capped, since the
    /// count is the input's word (a visitor may reserve room for that many).
    pub(super) fn size_hint(&self) -> usize {
        self.declared.saturating_sub(self.count).min(MAX_SIZE_HINT)
    }

    /// Closes the span and checks the declared count (strict only, v4.4 recovery 1).
    pub(super) fn close(&mut self, de: &mut Deserializer<'de>, what: [&str; 2]) -> Result<()> {
        if self.started {
            de.scan.open_spans -= 1;
            self.started = false;
        }
        // The header's line number is counted from the start of the input: only for an error,
        // never on the common path (it would make closing every scope linear in the input).
        if !de.strict || self.count == self.declared {
            return Ok(());
        }
        let header_line = de.scan.line_number(&self.header);
        let mismatch = count_error(
            de.strict,
            self.declared,
            self.count,
            what,
            header_line,
            || Ok(de.scan.peek()?.is_none()),
        )?;
        match mismatch {
            Some(err) => Err(self.last.error_at(0, err)),
            None => Ok(()),
        }
    }

    /// Strict mode, after a scope that stopped at its declared count: the next line, if it is
    /// at the scope's item depth and `extra` takes it for one more item, is an error. A
    /// shallower next line, found at the cursor, is none: it is left unpeeked for the
    /// enclosing scope's fast path.
    pub(super) fn refuse_extra(
        &self,
        de: &mut Deserializer<'de>,
        items: &str,
        extra: impl FnOnce(&Line<'de>) -> bool,
    ) -> Result<()> {
        if de.strict
            && !de.scan.shallower_than(self.depth)
            && let Some(next) = de.scan.peek()?
            && next.depth == self.depth
            && extra(&next)
        {
            let header_line = de.scan.line_number(&self.header);
            return Err(next.error_at(0, extra_error(items, self.declared, header_line)));
        }
        Ok(())
    }
}

/// `1 row`, `3 rows`: a count with its noun, singular or plural.
pub(crate) fn counted(n: usize, [one, many]: [&str; 2]) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
