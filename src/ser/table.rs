//! Tabular detection (§9.3) and keyed tabular detection (§9.5) over recorded values.
//!
//! Detection aligns every row's values to the first row's key order once; the aligned cells are
//! kept so emission walks rows by index instead of looking keys up again.

use super::tape::Tape;

/// The field list of a tabular array or keyed object, with each row's values aligned to it.
pub(crate) struct Table<'t> {
    /// Field names in the first row's encounter order.
    pub(crate) names: Vec<&'t str>,
    /// `Some` for a nested field group (a nested-uniform column), `None` for a leaf field.
    pub(crate) groups: Vec<Option<Table<'t>>>,
    /// Row-major tape indices: row `r`, field `j` at `r * names.len() + j`.
    cells: Vec<usize>,
}

impl<'t> Table<'t> {
    pub(crate) fn cell(&self, row: usize, field: usize) -> usize {
        self.cells[row * self.names.len() + field]
    }

    /// §9.3 tabular detection over the given rows (tape indices). `None` when any row is not an
    /// object, the first row is empty, key sets differ, or a column is neither uniform-primitive
    /// nor nested-uniform.
    pub(crate) fn detect(tape: &'t Tape, rows: &[usize]) -> Option<Table<'t>> {
        let &first = rows.first()?;
        if !tape.is_object(first) {
            return None;
        }
        let names: Vec<&str> = tape.entries(first).map(|(k, _)| k).collect();
        let width = names.len();
        if width == 0 {
            return None;
        }
        let mut cells = vec![usize::MAX; rows.len() * width];
        for (r, &row) in rows.iter().enumerate() {
            if !align(tape, row, &names, &mut cells[r * width..(r + 1) * width]) {
                return None;
            }
        }
        let mut groups = Vec::with_capacity(width);
        let mut column = Vec::new();
        for j in 0..width {
            let values = (0..rows.len()).map(|r| cells[r * width + j]);
            if values.clone().all(|v| tape.is_primitive(v)) {
                groups.push(None);
                continue;
            }
            if !values.clone().all(|v| tape.is_nonempty_object(v)) {
                return None;
            }
            column.clear();
            column.extend(values);
            groups.push(Some(Table::detect(tape, &column)?));
        }
        Some(Table {
            names,
            groups,
            cells,
        })
    }

    /// §9.5 keyed tabular detection: at least two entries, every value a non-empty object, and
    /// the values tabular per §9.3.
    pub(crate) fn detect_keyed(tape: &'t Tape, object: usize) -> Option<Table<'t>> {
        if tape.len(object) < 2 {
            return None;
        }
        let values: Vec<usize> = tape.entries(object).map(|(_, v)| v).collect();
        if !values.iter().all(|&v| tape.is_nonempty_object(v)) {
            return None;
        }
        Table::detect(tape, &values)
    }
}

/// Fills `out[j]` with the value of `names[j]` in `object`; false unless the object is an object
/// with exactly the same key set. Rows usually share the first row's order, so that is tried
/// first.
fn align(tape: &Tape, object: usize, names: &[&str], out: &mut [usize]) -> bool {
    if !tape.is_object(object) || tape.len(object) != names.len() {
        return false;
    }
    for (idx, (key, value)) in tape.entries(object).enumerate() {
        if names[idx] == key && out[idx] == usize::MAX {
            out[idx] = value;
            continue;
        }
        match (0..names.len()).find(|&p| names[p] == key && out[p] == usize::MAX) {
            Some(p) => out[p] = value,
            None => return false,
        }
    }
    true
}
