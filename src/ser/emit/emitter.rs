//! The emit pass's state ([`Emitter`]): the output with its line discipline (§12) and
//! chunked hand-off to a writer, headers (§6), the nesting guard, and what one container's
//! output leaves for the next (lent buffers, field names known plain, the last table's
//! field list).

use std::io;

use serde::ser::Serialize;

use super::super::probe::TableFields;
use super::cell::{Cell, Fail};
use crate::canonical;
use crate::error::{Error, Result};
use crate::options::{Delimiter, EncodeOptions};
use crate::quote;

/// Output is handed to the writer whenever this much has accumulated.
const CHUNK: usize = 64 * 1024;
/// Room kept ahead of the next line when the output is a `Vec`.
const ROOM: usize = 1024;
/// The most a speculatively written table may hold back from a writer before the guess is
/// given up for the two-pass path (which streams).
const SPECULATION_LIMIT: usize = 4 * CHUNK;

/// Slots of [`PlainNames`]: more than the fields of most records.
const NAME_SLOTS: usize = 128;

/// The slot of a name in [`PlainNames`]: its address's low bits. The names
/// of one struct lie side by side in the binary, a few bytes apart, so those of a record
/// up to 128 bytes of names long never share a slot.
fn name_slot(name: &str) -> usize {
    name.as_ptr() as usize % NAME_SLOTS
}

/// The emit pass's state, in five parts: the text and its lines ([`OutputLines`]), the nesting
/// guard ([`DepthGuard`]), buffers lent from one container to the next ([`Scratch`]), struct field
/// names known to need no quotes ([`PlainNames`]), and the field list of the last table
/// written on a guess ([`LastTable`]). What needs two parts at once (a key, a header) is a
/// method here.
pub(crate) struct Emitter<'w> {
    pub(super) lines: OutputLines<'w>,
    pub(super) depth: DepthGuard,
    pub(super) scratch: Scratch,
    names: PlainNames,
    pub(super) last_table: LastTable,
}

/// The output and the line discipline of §12: LF between lines, `indent × depth` spaces, no
/// trailing newline; output is handed to the writer in chunks, except while a table written
/// on a guess may still be taken back.
pub(super) struct OutputLines<'w> {
    pub(super) buf: Vec<u8>,
    /// Where full chunks go; `None` when `buf` itself is the result (`to_vec`).
    writer: Option<&'w mut dyn io::Write>,
    indent: usize,
    pub(super) delim: u8,
    started: bool,
    /// Where a table written on a guess starts (see `emit::shape_or_written`): nothing from
    /// there on may reach the writer until the guess holds.
    pub(super) speculating: Option<usize>,
    /// Where the first row of the table being guessed starts (see [`OutputLines::row_line`]).
    rows_start: usize,
}

/// Nesting levels: how many are still allowed (`EncodeOptions::max_depth` at the root).
pub(super) struct DepthGuard {
    pub(super) left: usize,
    max: usize,
}

/// Buffers lent from one container to the next, so that they are allocated once, not once
/// per row or map.
pub(super) struct Scratch {
    /// A row whose keys arrived out of header order, while it is rewritten (`emit/row.rs`).
    pub(super) row: Vec<u8>,
    /// That row's cell spans.
    pub(super) spans: Vec<(usize, usize)>,
    /// Key buffers of finished maps, lent to the next ones (`Driving`): a map's keys are
    /// copied into a buffer allocated once per nesting level, not once per map.
    pub(super) keys: Vec<String>,
}

/// Struct field names known to need no quotes (§7.3), by address and length, in slots picked
/// by address ([`PlainNames::remember`]).
struct PlainNames {
    slots: [(usize, usize); NAME_SLOTS],
    /// The last name found plain: the key [`Emitter::key`] writes next when it is that name.
    last: (usize, usize),
}

/// The field list of the last table written on a guess, offered to the next guess
/// (`probe::guess::shape_or_guess`): arrays of the same records repeat it.
pub(super) struct LastTable {
    pub(super) fields: Option<TableFields>,
    /// The `{…}` text of `fields`: a table whose guess took `fields` copies its header's list
    /// instead of writing it name by name.
    list: Vec<u8>,
    /// Where in the output the last field list written lies (copied to `list` when its table
    /// becomes the last table).
    list_at: std::ops::Range<usize>,
    /// Set while a table that took `fields` opens: its list is `list`.
    pub(super) reuse: bool,
}

/// A point in the output to return to when a value turns out not to be a primitive.
#[derive(Copy, Clone)]
pub(super) struct OutputMark {
    len: usize,
    started: bool,
}

impl<'w> Emitter<'w> {
    /// Output to `writer`, in chunks.
    #[inline]
    pub(crate) fn to_writer(writer: &'w mut dyn io::Write, options: &EncodeOptions) -> Self {
        Self::new(Some(writer), options)
    }

    /// Output into a vector that becomes the result.
    #[inline]
    pub(crate) fn to_vec(options: &EncodeOptions) -> Self {
        Self::new(None, options)
    }

    #[inline]
    pub(super) fn new(writer: Option<&'w mut dyn io::Write>, options: &EncodeOptions) -> Self {
        Emitter {
            lines: OutputLines {
                buf: Vec::with_capacity(4096),
                writer,
                indent: options.indent_size,
                delim: options.delimiter.as_byte(),
                started: false,
                speculating: None,
                rows_start: 0,
            },
            depth: DepthGuard {
                left: options.max_depth,
                max: options.max_depth,
            },
            scratch: Scratch {
                row: Vec::new(),
                spans: Vec::new(),
                keys: Vec::new(),
            },
            names: PlainNames {
                slots: [(0, 0); NAME_SLOTS],
                last: (0, 0),
            },
            last_table: LastTable {
                fields: None,
                list: Vec::new(),
                list_at: 0..0,
                reuse: false,
            },
        }
    }

    /// Writes what is buffered to the writer (and flushes it), or returns the output.
    /// By reference: `Emitter` is large, and moving it into this call would copy it.
    pub(crate) fn finish(&mut self) -> Result<Vec<u8>> {
        self.lines.finish()
    }

    /// Writes a key or field name, quoted when §7.3 says so; the struct field name just
    /// found plain ([`Emitter::remember_name`]) is written without looking at it again.
    #[inline]
    pub(super) fn key(&mut self, key: &str) {
        if self.names.last == (key.as_ptr() as usize, key.len()) {
            self.lines.buf.extend_from_slice(key.as_bytes());
        } else {
            quote::write_key(&mut self.lines.buf, key);
        }
    }

    /// Notes a struct field name that needs no quotes (§7.3) for [`Emitter::key`].
    pub(super) fn remember_name(&mut self, name: &'static str) {
        self.names.remember(name);
    }

    /// §6 header: `key[N<:?><delim?>]{fields}:`.
    pub(super) fn header(
        &mut self,
        key: Option<&str>,
        len: usize,
        fields: Option<&TableFields>,
        keyed: bool,
    ) {
        if let Some(key) = key {
            self.key(key);
        }
        let buf = &mut self.lines.buf;
        buf.push(b'[');
        canonical::write_uint(buf, len as u64);
        if keyed {
            buf.push(b':');
        }
        if self.lines.delim != Delimiter::Comma.as_byte() {
            buf.push(self.lines.delim);
        }
        buf.push(b']');
        if let Some(fields) = fields {
            if std::mem::take(&mut self.last_table.reuse) {
                self.lines.buf.extend_from_slice(&self.last_table.list);
            } else {
                let start = self.lines.buf.len();
                self.field_list(fields);
                self.last_table.list_at = start..self.lines.buf.len();
            }
        }
        self.lines.buf.push(b':');
    }

    /// `{f1,f2{a,b}}` with nested field groups (§9.3).
    pub(super) fn field_list(&mut self, fields: &TableFields) {
        self.lines.buf.push(b'{');
        for (j, name) in fields.names.iter().enumerate() {
            if j > 0 {
                self.lines.buf.push(self.lines.delim);
            }
            self.key(name);
            if let Some(group) = &fields.groups[j] {
                self.field_list(group);
            }
        }
        self.lines.buf.push(b'}');
    }
}

impl OutputLines<'_> {
    /// Writes what is buffered to the writer (and flushes it), or returns the output.
    fn finish(&mut self) -> Result<Vec<u8>> {
        match &mut self.writer {
            Some(writer) => {
                writer.write_all(&self.buf).map_err(Error::io)?;
                writer.flush().map_err(Error::io)?;
                Ok(Vec::new())
            }
            None => Ok(std::mem::take(&mut self.buf)),
        }
    }

    /// Starts the line of a table row (§9.3) or keyed entry (§9.5) at `depth`, `written` rows
    /// of `total` done (counted here). [`OutputLines::spill`] first; while the table is a guess
    /// held back from a writer, the guess is given up as soon as the rows so far project past
    /// the limit, not after writing up to it.
    pub(super) fn row_line(
        &mut self,
        written: &mut usize,
        total: usize,
        depth: usize,
    ) -> Result<()> {
        if self.writer.is_some()
            && let Some(start) = self.speculating
        {
            // The header once, then the rows so far on average: a header longer than its
            // rows must not make a table that fits look as if it would not.
            match self
                .buf
                .len()
                .saturating_sub(self.rows_start)
                .checked_div(*written)
            {
                None => self.rows_start = self.buf.len(),
                Some(per_row) => {
                    let header = self.rows_start - start;
                    if header.saturating_add(per_row.saturating_mul(total)) > SPECULATION_LIMIT {
                        return Err(Error::data("a guessed table would outgrow its buffer"));
                    }
                }
            }
        }
        *written += 1;
        self.spill()?;
        self.line(depth);
        Ok(())
    }

    /// Passes output on at a line boundary once enough has accumulated.
    /// Building a `Vec`/`String` instead, grows it by half when little room is left, so the
    /// result's capacity stays near 1.5× its length (doubling would allow 2×).
    ///
    /// Runs before every line: the test that nothing is due is inlined everywhere, and the
    /// work, when due, is a call.
    #[inline(always)]
    pub(super) fn spill(&mut self) -> Result<()> {
        let due = match self.writer {
            None => self.buf.capacity() - self.buf.len() < ROOM,
            Some(_) => self.speculating.is_some() || self.buf.len() >= CHUNK,
        };
        if due { self.spill_due() } else { Ok(()) }
    }

    /// The work [`OutputLines::spill`] found due: a full chunk written, the output grown, or a
    /// guessed table's size checked.
    #[inline(never)]
    fn spill_due(&mut self) -> Result<()> {
        match &mut self.writer {
            Some(_) if let Some(start) = self.speculating => {
                if self.buf.len() - start >= SPECULATION_LIMIT {
                    return Err(Error::data("a guessed table outgrew its buffer"));
                }
            }
            Some(writer) => {
                writer.write_all(&self.buf).map_err(Error::io)?;
                self.buf.clear();
            }
            None => self.buf.reserve_exact((self.buf.len() / 2).max(4 * ROOM)),
        }
        Ok(())
    }

    pub(super) fn mark(&self) -> OutputMark {
        OutputMark {
            len: self.buf.len(),
            started: self.started,
        }
    }

    pub(super) fn reset(&mut self, mark: OutputMark) {
        self.buf.truncate(mark.len);
        self.started = mark.started;
    }

    #[inline]
    pub(super) fn line(&mut self, depth: usize) {
        if self.started {
            self.buf.push(b'\n');
        }
        self.started = true;
        let spaces = depth * self.indent;
        let end = self.buf.len() + spaces;
        if spaces <= 16 {
            // A fixed-size write (two stores) then a cut: cheaper than a fill call for the
            // few spaces most lines have.
            self.buf.extend_from_slice(&[b' '; 16]);
            self.buf.truncate(end);
        } else {
            self.buf.resize(end, b' ');
        }
    }

    pub(super) fn item(&mut self, depth: usize) {
        self.line(depth);
        self.buf.extend_from_slice(b"- ");
    }

    /// Writes `value` if it is a primitive; otherwise rewinds to `mark` and says what kind
    /// of container it is.
    pub(super) fn try_primitive<T: ?Sized + Serialize>(
        &mut self,
        value: &T,
        mark: OutputMark,
    ) -> Result<Tried> {
        let delim = self.delim;
        match value.serialize(Cell {
            out: &mut self.buf,
            delim,
            root: false,
        }) {
            Ok(()) => Ok(Tried::Written),
            Err(Fail::Object) => {
                self.reset(mark);
                Ok(Tried::Object)
            }
            Err(Fail::Container) => {
                self.reset(mark);
                Ok(Tried::Container)
            }
            Err(Fail::Error(e)) => Err(e),
        }
    }
}

impl DepthGuard {
    /// Opens one level of nesting for a container's content: past the limit, an error
    /// instead of a stack overflow. An error ends the encoding, so only success needs
    /// [`DepthGuard::leave`].
    pub(super) fn enter(&mut self) -> Result<()> {
        self.left = self.left.checked_sub(1).ok_or_else(|| {
            Error::data(format!(
                "nesting deeper than the limit of {} (EncodeOptions::max_depth)",
                self.max
            ))
        })?;
        Ok(())
    }

    /// Closes the level [`DepthGuard::enter`] opened.
    pub(super) fn leave(&mut self) {
        self.left += 1;
    }
}

impl PlainNames {
    /// Notes a struct field name that needs no quotes (§7.3). A `&'static str` is never
    /// changed or freed, so its address and length stand for its text for as long as the
    /// program runs: the same fields of every record are checked once, not once per line.
    fn remember(&mut self, name: &'static str) {
        let slot = name_slot(name);
        let id = (name.as_ptr() as usize, name.len());
        if self.slots[slot] == id || quote::is_unquoted_key(name) {
            self.slots[slot] = id;
            self.last = id;
        }
    }
}

impl LastTable {
    /// Keeps `fields`, the field list of a table just written on a guess, for the next
    /// guess; its `{…}` text is the last list written in `buf` (a guess holds its output back
    /// from the writer), unless the table took the last table's list (`took_last`), which is
    /// that text already.
    pub(super) fn keep(&mut self, fields: TableFields, took_last: bool, buf: &[u8]) {
        if !took_last {
            self.list.clear();
            self.list.extend_from_slice(&buf[self.list_at.clone()]);
        }
        self.fields = Some(fields);
    }
}

/// What [`OutputLines::try_primitive`] found.
#[derive(Copy, Clone)]
pub(super) enum Tried {
    /// A primitive, now written.
    Written,
    /// A plain object (a map or struct), not written.
    Object,
    /// An array or an enum variant with content, not written.
    Container,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes a guessed table's header of `header` bytes and `rows` rows of `row` bytes each
    /// through `row_line`, as the emitter does; the error, if the guess is given up.
    fn guess(header: usize, row: usize, rows: usize) -> Result<()> {
        let mut sink = io::sink();
        let mut out = Emitter::to_writer(&mut sink, &EncodeOptions::default());
        let lines = &mut out.lines;
        lines.speculating = Some(lines.buf.len());
        lines.buf.resize(header, b'h');
        let mut written = 0;
        for _ in 0..rows {
            lines.row_line(&mut written, rows, 1)?;
            lines.buf.extend(std::iter::repeat_n(b'r', row));
        }
        Ok(())
    }

    #[test]
    fn a_guessed_table_is_given_up_by_its_projected_size_header_counted_once() {
        // A long header over short rows: 10 KB + 2,000 × ~20 B fits the limit.
        assert!(guess(10_000, 18, 2_000).is_ok());
        // Rows that add up past the limit are given up after the first, not at the limit.
        let err = guess(100, 1_000, 1_000).unwrap_err();
        assert!(err.to_string().contains("would outgrow"), "{err}");
    }
}
