//! Chooses and writes the form of every value (§8–§10), byte-identical to the reference encoder.

use super::table::Table;
use super::tape::{Ev, Tape};
use crate::canonical;
use crate::options::{Delimiter, EncodeOptions};
use crate::quote;

/// Output buffer plus the line discipline of §12: LF between lines, `indent × depth` spaces, no
/// trailing newline.
pub(crate) struct Lines {
    pub(crate) out: Vec<u8>,
    indent: usize,
    pub(crate) delim: u8,
    started: bool,
}

impl Lines {
    pub(crate) fn new(options: &EncodeOptions, out: Vec<u8>) -> Self {
        Lines {
            out,
            indent: options.indent_size,
            delim: options.delimiter.as_byte(),
            started: false,
        }
    }

    /// Starts a new line at `depth`.
    pub(crate) fn line(&mut self, depth: usize) {
        if self.started {
            self.out.push(b'\n');
        }
        self.started = true;
        let spaces = depth * self.indent;
        self.out.resize(self.out.len() + spaces, b' ');
    }

    /// Starts a list-item line (`- `) at `depth`.
    fn item(&mut self, depth: usize) {
        self.line(depth);
        self.out.extend_from_slice(b"- ");
    }

    pub(crate) fn key(&mut self, key: &str) {
        quote::write_key(&mut self.out, key);
    }

    /// Writes the primitive at `i` with `delim` as the relevant delimiter for quoting (§11.1).
    fn primitive(&mut self, tape: &Tape, i: usize, delim: u8) {
        let out = &mut self.out;
        match tape.ev[i] {
            Ev::Null => out.extend_from_slice(b"null"),
            Ev::Bool(true) => out.extend_from_slice(b"true"),
            Ev::Bool(false) => out.extend_from_slice(b"false"),
            Ev::I64(v) => canonical::write_int(out, v),
            Ev::U64(v) => canonical::write_uint(out, v),
            Ev::F64(v) => canonical::write_f64(out, v),
            Ev::F32(v) => canonical::write_f32(out, v),
            Ev::Big(s, l) => out.extend_from_slice(tape.str_at(s, l).as_bytes()),
            Ev::Str(s, l) => quote::write_string(out, tape.str_at(s, l), delim),
            Ev::Key(..) | Ev::Arr { .. } | Ev::Obj { .. } => {
                unreachable!("primitive() is only called on primitives")
            }
        }
    }

    /// §6 header: `key[N<:?><delim?>]{fields}:`.
    fn header(&mut self, key: Option<&str>, len: usize, fields: Option<&Table<'_>>, keyed: bool) {
        if let Some(key) = key {
            self.key(key);
        }
        self.out.push(b'[');
        canonical::write_uint(&mut self.out, len as u64);
        if keyed {
            self.out.push(b':');
        }
        if self.delim != Delimiter::Comma.as_byte() {
            self.out.push(self.delim);
        }
        self.out.push(b']');
        if let Some(table) = fields {
            self.field_list(table);
        }
        self.out.push(b':');
    }

    /// `{f1,f2{a,b}}` with nested field groups (§9.3).
    fn field_list(&mut self, table: &Table<'_>) {
        self.out.push(b'{');
        for (j, name) in table.names.iter().enumerate() {
            if j > 0 {
                self.out.push(self.delim);
            }
            self.key(name);
            if let Some(group) = &table.groups[j] {
                self.field_list(group);
            }
        }
        self.out.push(b'}');
    }

    /// The leaf cells of row `r`, depth-first in field order (§9.3).
    fn row_cells(&mut self, tape: &Tape, table: &Table<'_>, r: usize, first: &mut bool) {
        for j in 0..table.names.len() {
            match &table.groups[j] {
                Some(group) => self.row_cells(tape, group, r, first),
                None => {
                    if !*first {
                        self.out.push(self.delim);
                    }
                    *first = false;
                    self.primitive(tape, table.cell(r, j), self.delim);
                }
            }
        }
    }

    /// The whole document for the value at `i` (§5 root forms).
    pub(crate) fn root(&mut self, tape: &Tape, i: usize) {
        match tape.ev[i] {
            Ev::Arr { .. } => self.array(tape, None, i, 0),
            Ev::Obj { .. } => self.object_root(tape, i),
            Ev::Str(s, l) if tape.str_at(s, l).starts_with('\u{feff}') => {
                // A leading BOM would be stripped by decoders; quoting keeps it data.
                self.line(0);
                quote::write_quoted(&mut self.out, tape.str_at(s, l));
            }
            _ => {
                self.line(0);
                self.primitive(tape, i, self.delim);
            }
        }
    }

    /// A root object: keyless keyed form (§9.5) or plain fields (§8).
    pub(crate) fn object_root(&mut self, tape: &Tape, i: usize) {
        match Table::detect_keyed(tape, i) {
            Some(table) => self.keyed(tape, None, i, &table, 0),
            None => self.fields(tape, i, 0),
        }
    }

    /// Every field of the object at `i`, at `depth`.
    pub(crate) fn fields(&mut self, tape: &Tape, i: usize, depth: usize) {
        for (key, value) in tape.entries(i) {
            self.field(tape, key, value, depth);
        }
    }

    /// One `key: …` field (§8) whose value is at `i`.
    pub(crate) fn field(&mut self, tape: &Tape, key: &str, i: usize, depth: usize) {
        match tape.ev[i] {
            Ev::Arr { .. } => self.array(tape, Some(key), i, depth),
            Ev::Obj { len, .. } => {
                if let Some(table) = Table::detect_keyed(tape, i) {
                    return self.keyed(tape, Some(key), i, &table, depth);
                }
                self.line(depth);
                self.key(key);
                self.out.push(b':');
                if len > 0 {
                    self.fields(tape, i, depth + 1);
                }
            }
            _ => {
                self.line(depth);
                self.key(key);
                self.out.extend_from_slice(b": ");
                self.primitive(tape, i, self.delim);
            }
        }
    }

    /// §9.5 keyed tabular object: header and one entry row per entry.
    fn keyed(&mut self, tape: &Tape, key: Option<&str>, i: usize, table: &Table<'_>, depth: usize) {
        self.line(depth);
        self.header(key, tape.len(i), Some(table), true);
        self.keyed_rows(tape, i, table, depth + 1);
    }

    fn keyed_rows(&mut self, tape: &Tape, i: usize, table: &Table<'_>, depth: usize) {
        for (r, (entry_key, _)) in tape.entries(i).enumerate() {
            self.line(depth);
            self.key(entry_key);
            self.out.extend_from_slice(b": ");
            self.row_cells(tape, table, r, &mut true);
        }
    }

    fn tabular_rows(&mut self, tape: &Tape, rows: usize, table: &Table<'_>, depth: usize) {
        for r in 0..rows {
            self.line(depth);
            self.row_cells(tape, table, r, &mut true);
        }
    }

    fn all_primitive(tape: &Tape, i: usize) -> bool {
        tape.elements(i).all(|e| tape.is_primitive(e))
    }

    /// `[N]: v1,v2` (without the leading line break or key prefix handling of the caller).
    fn inline_array(&mut self, tape: &Tape, key: Option<&str>, i: usize) {
        self.header(key, tape.len(i), None, false);
        for (n, e) in tape.elements(i).enumerate() {
            self.out.push(if n == 0 { b' ' } else { self.delim });
            self.primitive(tape, e, self.delim);
        }
    }

    /// An array in field or root position (§9.1–§9.4).
    pub(crate) fn array(&mut self, tape: &Tape, key: Option<&str>, i: usize, depth: usize) {
        let len = tape.len(i);
        if len == 0 {
            self.line(depth);
            if let Some(key) = key {
                self.key(key);
                self.out.extend_from_slice(b": []");
            } else {
                self.out.extend_from_slice(b"[]");
            }
            return;
        }
        if Self::all_primitive(tape, i) {
            self.line(depth);
            return self.inline_array(tape, key, i);
        }
        let elements: Vec<usize> = tape.elements(i).collect();
        if elements
            .iter()
            .all(|&e| tape.is_array(e) && Self::all_primitive(tape, e))
        {
            // §9.2 arrays of primitive arrays.
            self.line(depth);
            self.header(key, len, None, false);
            for &e in &elements {
                self.item(depth + 1);
                self.inline_array(tape, None, e);
            }
            return;
        }
        if let Some(table) = Table::detect(tape, &elements) {
            self.line(depth);
            self.header(key, len, Some(&table), false);
            return self.tabular_rows(tape, len, &table, depth + 1);
        }
        // §9.4 mixed / non-uniform: expanded list.
        self.line(depth);
        self.header(key, len, None, false);
        for &e in &elements {
            self.list_item(tape, e, depth + 1);
        }
    }

    /// One list item (§9.4, §10) at `depth`.
    fn list_item(&mut self, tape: &Tape, i: usize, depth: usize) {
        match tape.ev[i] {
            Ev::Obj { .. } => self.object_item(tape, i, depth),
            Ev::Arr { .. } => {
                self.item(depth);
                if Self::all_primitive(tape, i) {
                    return self.inline_array(tape, None, i);
                }
                // A keyless fields header is root-only (§6): nested arrays stay in list form.
                self.header(None, tape.len(i), None, false);
                for e in tape.elements(i) {
                    self.list_item(tape, e, depth + 1);
                }
            }
            _ => {
                self.item(depth);
                self.primitive(tape, i, self.delim);
            }
        }
    }

    /// §10 objects as list items: first field on the hyphen line.
    fn object_item(&mut self, tape: &Tape, i: usize, depth: usize) {
        let mut entries = tape.entries(i);
        let Some((key, first)) = entries.next() else {
            self.line(depth);
            self.out.push(b'-');
            return;
        };
        match tape.ev[first] {
            Ev::Arr { len, .. } if len > 0 && !Self::all_primitive(tape, first) => {
                let elements: Vec<usize> = tape.elements(first).collect();
                self.item(depth);
                if let Some(table) = Table::detect(tape, &elements) {
                    // Tabular first field: header on the hyphen line, rows at depth + 2.
                    self.header(Some(key), elements.len(), Some(&table), false);
                    self.tabular_rows(tape, elements.len(), &table, depth + 2);
                } else {
                    self.key(key);
                    self.header(None, elements.len(), None, false);
                    for &e in &elements {
                        self.list_item(tape, e, depth + 2);
                    }
                }
            }
            Ev::Arr { len, .. } => {
                self.item(depth);
                self.key(key);
                if len == 0 {
                    self.out.extend_from_slice(b": []");
                } else {
                    self.inline_array(tape, None, first);
                }
            }
            Ev::Obj { len, .. } => {
                self.item(depth);
                if let Some(table) = Table::detect_keyed(tape, first) {
                    self.header(Some(key), len as usize, Some(&table), true);
                    self.keyed_rows(tape, first, &table, depth + 2);
                } else {
                    self.key(key);
                    self.out.push(b':');
                    if len > 0 {
                        self.fields(tape, first, depth + 2);
                    }
                }
            }
            _ => {
                self.item(depth);
                self.key(key);
                self.out.extend_from_slice(b": ");
                self.primitive(tape, first, self.delim);
            }
        }
        for (key, value) in entries {
            self.field(tape, key, value, depth + 1);
        }
    }
}
