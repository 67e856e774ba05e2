//! Incremental §9.3 tabular detection: the first row builds the field list (nested groups
//! included), every later row is checked against it; only names are kept.

use serde::ser::{self, Impossible, Serialize};
use std::borrow::Cow;

use super::TableFields;
use super::kind::is_primitive;
use crate::ser::{key_string, with_key_text};

/// Incremental §9.3 detection over rows given one at a time.
pub(crate) struct TableCheck {
    fields: Option<TableFields>,
    pub(super) dead: bool,
    /// Nesting levels a row may use, itself included: a row nested deeper than the encoder's
    /// limit breaks the table, and the list form then reports the depth.
    left: usize,
}

/// What a row turned out to be.
pub(super) enum RowOutcome {
    Uniform,
    /// An object, but it breaks uniformity.
    Breaks,
    NotObject,
}

impl TableCheck {
    pub(super) fn new(left: usize) -> Self {
        TableCheck {
            fields: None,
            dead: false,
            left,
        }
    }

    /// Takes `candidate`, a flat field list (the last table the encoder wrote), as the
    /// field list of `row`, the first row, when the row has exactly its keys, in its order,
    /// with primitive values: the list building from the row would give, without building
    /// it. False (the candidate left where it is) for any other row.
    pub(super) fn adopt_first<T: ?Sized + Serialize>(
        &mut self,
        row: &T,
        candidate: &mut Option<TableFields>,
    ) -> bool {
        let matches = match candidate {
            Some(fields) if self.fields.is_none() && !self.dead && self.left >= 1 => row
                .serialize(CheckRow {
                    fields,
                    ordered: true,
                })
                .is_ok(),
            _ => false,
        };
        if matches {
            self.fields = candidate.take();
        }
        matches
    }

    pub(super) fn row<T: ?Sized + Serialize>(&mut self, row: &T) -> RowOutcome {
        if self.dead {
            return RowOutcome::Breaks;
        }
        let outcome = match &self.fields {
            // Most first rows that break a table do so on a value found without building
            // anything (an array, an empty object): asked first, no field list is allocated
            // for them.
            None => match row
                .serialize(RowCandidate { left: self.left })
                .and_then(|()| row.serialize(BuildRow { left: self.left }))
            {
                Ok(fields) => {
                    self.fields = Some(fields);
                    RowOutcome::Uniform
                }
                Err(BuildStop::NotObject) => RowOutcome::NotObject,
                Err(BuildStop::Breaks) => RowOutcome::Breaks,
            },
            Some(fields) => match row.serialize(CheckRow {
                fields,
                ordered: false,
            }) {
                Ok(()) => RowOutcome::Uniform,
                Err(BuildStop::NotObject) => RowOutcome::NotObject,
                Err(BuildStop::Breaks) => RowOutcome::Breaks,
            },
        };
        if !matches!(outcome, RowOutcome::Uniform) {
            self.dead = true;
            self.fields = None;
        }
        outcome
    }

    /// Takes the field list so far if every row was uniform (and, unless `groups`, none has
    /// nested groups): the speculative guess of `guess.rs`, which stops probing there.
    pub(super) fn take_guess(&mut self, groups: bool) -> Option<TableFields> {
        let fields = self.fields.as_ref().filter(|_| !self.dead)?;
        if !groups && fields.groups.iter().any(Option::is_some) {
            return None;
        }
        let mut fields = self.fields.take()?;
        self.dead = true;
        fields.index();
        Some(fields)
    }

    pub(super) fn finish(self) -> Option<TableFields> {
        if self.dead {
            return None;
        }
        let mut fields = self.fields?;
        fields.index();
        Some(fields)
    }
}

/// Why a row is not part of a table.
#[derive(Debug)]
enum BuildStop {
    NotObject,
    Breaks,
}

impl std::fmt::Display for BuildStop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not tabular")
    }
}
impl std::error::Error for BuildStop {}
impl ser::Error for BuildStop {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        BuildStop::Breaks
    }
}

/// Serde methods of row probes for everything that is not an object.
macro_rules! not_an_object {
    () => {
        refuse!(BuildStop::NotObject; primitives, serialize_bytes, serialize_seq,
            serialize_tuple, serialize_tuple_struct);
        transparent!();
        // `{Variant: [elements]}`: an array column, which no table admits.
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant, BuildStop> {
            Err(BuildStop::Breaks)
        }
    };
}

/// The test [`BuildRow`] makes, without building: an object whose values are primitives or
/// non-empty objects of the same kind, within the nesting left. Keys are not looked at (a
/// repeated or unwritable key is left to `BuildRow`), so passing it is necessary, not enough.
struct RowCandidate {
    left: usize,
}

/// Whether `row` could be a row nested `left` levels at most: a non-empty object whose
/// values are primitives or such objects, asked without building a field list. Every value
/// of a keyed table (§9.5) must be one.
pub(crate) fn could_be_row<T: ?Sized + Serialize>(row: &T, left: usize) -> bool {
    row.serialize(RowCandidate { left }).is_ok()
}

/// Whether a column's value could be a leaf or a nested group of a row with `left` levels.
fn column_could_fit<T: ?Sized + Serialize>(value: &T, left: usize) -> bool {
    is_primitive(value) || value.serialize(RowCandidate { left }).is_ok()
}

/// The entries of an object [`RowCandidate`] is looking at.
struct CandidateEntries {
    left: usize,
    any: bool,
}

impl CandidateEntries {
    fn value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), BuildStop> {
        self.any = true;
        if column_could_fit(value, self.left) {
            Ok(())
        } else {
            Err(BuildStop::Breaks)
        }
    }

    fn end(self) -> Result<(), BuildStop> {
        if self.any {
            Ok(())
        } else {
            Err(BuildStop::Breaks)
        }
    }
}

impl ser::Serializer for RowCandidate {
    type Ok = ();
    type Error = BuildStop;
    type SerializeSeq = Impossible<(), BuildStop>;
    type SerializeTuple = Impossible<(), BuildStop>;
    type SerializeTupleStruct = Impossible<(), BuildStop>;
    type SerializeTupleVariant = Impossible<(), BuildStop>;
    type SerializeMap = CandidateEntries;
    type SerializeStruct = CandidateEntries;
    type SerializeStructVariant = CandidateEntries;

    not_an_object!();

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        value: &T,
    ) -> Result<(), BuildStop> {
        let mut entries = self.serialize_map(Some(1))?;
        entries.value(value)?;
        entries.end()
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        len: usize,
    ) -> Result<CandidateEntries, BuildStop> {
        self.serialize_map(Some(len))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<CandidateEntries, BuildStop> {
        let left = self.left.checked_sub(1).ok_or(BuildStop::Breaks)?;
        Ok(CandidateEntries { left, any: false })
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<CandidateEntries, BuildStop> {
        self.serialize_map(Some(len))
    }
}

impl ser::SerializeMap for CandidateEntries {
    type Ok = ();
    type Error = BuildStop;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, _: &T) -> Result<(), BuildStop> {
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), BuildStop> {
        self.value(value)
    }
    fn end(self) -> Result<(), BuildStop> {
        CandidateEntries::end(self)
    }
}

fields! {
    impl[] for CandidateEntries {
        Ok = (), Error = BuildStop;
        field(this, _key, value) => this.value(value);
        end(this) => CandidateEntries::end(this);
    }
}

/// Builds the field list from the first row: leaves for primitive values, nested groups for
/// non-empty objects; anything else breaks the table.
struct BuildRow {
    /// Nesting levels left for this object and its groups.
    left: usize,
}

struct Building {
    fields: TableFields,
    /// Nesting levels left for nested groups.
    left: usize,
    key: Cow<'static, str>,
    /// For a struct variant: the variant name, whose nested group these fields are.
    variant: Option<&'static str>,
}

impl Building {
    fn column<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), BuildStop> {
        if self.fields.names.contains(&self.key) {
            return Err(BuildStop::Breaks);
        }
        let group = if is_primitive(value) {
            None
        } else {
            Some(
                value
                    .serialize(BuildRow { left: self.left })
                    .map_err(|_| BuildStop::Breaks)?,
            )
        };
        self.fields.names.push(std::mem::take(&mut self.key));
        self.fields.groups.push(group);
        Ok(())
    }

    fn done(self) -> Result<TableFields, BuildStop> {
        if self.fields.names.is_empty() {
            // §9.3: an empty object never makes a row or a nested group.
            return Err(BuildStop::Breaks);
        }
        Ok(match self.variant {
            Some(variant) => {
                TableFields::new(vec![Cow::Borrowed(variant)], vec![Some(self.fields)])
            }
            None => self.fields,
        })
    }
}

impl ser::Serializer for BuildRow {
    type Ok = TableFields;
    type Error = BuildStop;
    type SerializeSeq = Impossible<TableFields, BuildStop>;
    type SerializeTuple = Impossible<TableFields, BuildStop>;
    type SerializeTupleStruct = Impossible<TableFields, BuildStop>;
    type SerializeTupleVariant = Impossible<TableFields, BuildStop>;
    type SerializeMap = Building;
    type SerializeStruct = Building;
    type SerializeStructVariant = Building;

    not_an_object!();

    /// `{Variant: value}`: one column.
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<TableFields, BuildStop> {
        let mut row = self.serialize_map(Some(1))?;
        row.key = Cow::Borrowed(variant);
        row.column(value)?;
        row.done()
    }

    /// `{Variant: {fields}}`: one nested group built from the fields.
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Building, BuildStop> {
        let mut inner = self.serialize_map(Some(len))?;
        inner.variant = Some(variant);
        Ok(inner)
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Building, BuildStop> {
        let Some(left) = self.left.checked_sub(1) else {
            return Err(BuildStop::Breaks);
        };
        let n = len.unwrap_or(0).min(64);
        Ok(Building {
            fields: TableFields::new(Vec::with_capacity(n), Vec::with_capacity(n)),
            left,
            key: Cow::Borrowed(""),
            variant: None,
        })
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Building, BuildStop> {
        self.serialize_map(Some(len))
    }
}

impl ser::SerializeMap for Building {
    type Ok = TableFields;
    type Error = BuildStop;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), BuildStop> {
        self.key = Cow::Owned(key_string(key).map_err(|_| BuildStop::Breaks)?);
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), BuildStop> {
        self.column(value)
    }
    fn end(self) -> Result<TableFields, BuildStop> {
        self.done()
    }
}

fields! {
    impl[] for Building {
        Ok = TableFields, Error = BuildStop;
        field(this, key, value) => {
            this.key = Cow::Borrowed(key);
            this.column(value)
        };
        end(this) => this.done();
    }
}

/// Which fields a row has set: a bit mask for up to 64 fields (no allocation per row).
enum Seen {
    Bits(u64),
    Many(Vec<bool>),
}

impl Seen {
    fn new(fields: usize) -> Self {
        if fields <= 64 {
            Seen::Bits(0)
        } else {
            Seen::Many(vec![false; fields])
        }
    }

    /// False if field `j` was already set.
    fn insert(&mut self, j: usize) -> bool {
        match self {
            Seen::Bits(bits) => {
                let bit = 1u64 << j;
                let fresh = *bits & bit == 0;
                *bits |= bit;
                fresh
            }
            Seen::Many(seen) => !std::mem::replace(&mut seen[j], true),
        }
    }
}

/// Checks a later row against the field list: same key set, leaves primitive, groups
/// recursively uniform. `ordered` also asks for the keys in the list's order (a first row
/// matching a candidate list, which must be what building from it would give).
struct CheckRow<'f> {
    fields: &'f TableFields,
    ordered: bool,
}

struct Checking<'f> {
    fields: &'f TableFields,
    ordered: bool,
    seen: Seen,
    count: usize,
    /// The field index of the pending map key.
    pending: usize,
}

impl Checking<'_> {
    fn locate(&mut self, key: &str) -> Result<usize, BuildStop> {
        let j = self
            .fields
            .position(key, self.count)
            .ok_or(BuildStop::Breaks)?;
        if (self.ordered && j != self.count) || !self.seen.insert(j) {
            return Err(BuildStop::Breaks);
        }
        self.count += 1;
        Ok(j)
    }

    fn column<T: ?Sized + Serialize>(&self, j: usize, value: &T) -> Result<(), BuildStop> {
        match &self.fields.groups[j] {
            None if is_primitive(value) => Ok(()),
            None => Err(BuildStop::Breaks),
            Some(group) => value
                .serialize(CheckRow {
                    fields: group,
                    ordered: self.ordered,
                })
                .map_err(|_| BuildStop::Breaks),
        }
    }

    fn done(self) -> Result<(), BuildStop> {
        if self.count == self.fields.names.len() {
            Ok(())
        } else {
            Err(BuildStop::Breaks)
        }
    }
}

impl<'f> ser::Serializer for CheckRow<'f> {
    type Ok = ();
    type Error = BuildStop;
    type SerializeSeq = Impossible<(), BuildStop>;
    type SerializeTuple = Impossible<(), BuildStop>;
    type SerializeTupleStruct = Impossible<(), BuildStop>;
    type SerializeTupleVariant = Impossible<(), BuildStop>;
    type SerializeMap = Checking<'f>;
    type SerializeStruct = Checking<'f>;
    type SerializeStructVariant = Checking<'f>;

    not_an_object!();

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), BuildStop> {
        let mut row = self.serialize_map(None)?;
        let j = row.locate(variant)?;
        row.column(j, value)?;
        row.done()
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Checking<'f>, BuildStop> {
        // The row is `{variant: {fields}}`: exactly one field, a nested group.
        match (self.fields.names.as_slice(), self.fields.groups.as_slice()) {
            ([name], [Some(group)]) if name == variant => CheckRow {
                fields: group,
                ordered: self.ordered,
            }
            .serialize_map(None),
            _ => Err(BuildStop::Breaks),
        }
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Checking<'f>, BuildStop> {
        // A first row offered a candidate list: a declared size that differs declines at
        // once (declining only costs the build; a later row's hint is not relied on).
        if self.ordered && len.is_some_and(|n| n != self.fields.names.len()) {
            return Err(BuildStop::Breaks);
        }
        Ok(Checking {
            fields: self.fields,
            ordered: self.ordered,
            seen: Seen::new(self.fields.names.len()),
            count: 0,
            pending: 0,
        })
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Checking<'f>, BuildStop> {
        self.serialize_map(Some(len))
    }
}

impl ser::SerializeMap for Checking<'_> {
    type Ok = ();
    type Error = BuildStop;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), BuildStop> {
        // The key's text is looked up where it stands, not copied.
        let located = with_key_text(key, |text| Ok::<_, crate::Error>(self.locate(text)));
        self.pending = located.map_err(|_| BuildStop::Breaks)??;
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), BuildStop> {
        self.column(self.pending, value)
    }
    fn end(self) -> Result<(), BuildStop> {
        self.done()
    }
}

fields! {
    impl[] for Checking<'_> {
        Ok = (), Error = BuildStop;
        field(this, key, value) => {
            let j = this.locate(key)?;
            this.column(j, value)
        };
        end(this) => this.done();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// A random value: primitives, arrays and objects (empty ones too, repeated keys never,
    /// as `serde_json::Value` has none), nested up to `depth`.
    fn value(state: &mut u64, depth: usize) -> Value {
        let mut pick = |n: u64| crate::test_rng::next(state) % n;
        match pick(if depth == 0 { 3 } else { 6 }) {
            0 => json!(pick(100)),
            1 => json!("s"),
            2 => Value::Null,
            3 => Value::Array((0..pick(3)).map(|_| value(state, depth - 1)).collect()),
            _ => {
                let n = pick(4);
                let mut map = serde_json::Map::new();
                for i in 0..n {
                    map.insert(format!("k{i}"), value(state, depth - 1));
                }
                Value::Object(map)
            }
        }
    }

    #[test]
    fn the_candidate_test_refuses_only_rows_that_building_refuses() {
        let mut state = 0x9e37_79b9_7f4a_7c15;
        let (mut built, mut refused_early) = (0, 0);
        for _ in 0..4000 {
            let row = value(&mut state, 4);
            for left in 0..5 {
                let candidate = row.serialize(RowCandidate { left });
                let building = row.serialize(BuildRow { left });
                match (&candidate, &building) {
                    (Ok(()), _) => built += 1,
                    (Err(BuildStop::NotObject), Err(BuildStop::NotObject))
                    | (Err(BuildStop::Breaks), Err(BuildStop::Breaks)) => refused_early += 1,
                    _ => panic!("{row} at {left}: {candidate:?} but {:?}", building.err()),
                }
            }
        }
        assert!(
            built > 1000 && refused_early > 1000,
            "{built} {refused_early}"
        );
    }
}
