//! The probe pass: what form a value takes (§9.1–§9.5), found by serializing it once without
//! storing it. Serialize takes `&self`, so the emitter probes a container and then serializes
//! it again to write it; only field names are kept, never values.
//!
//! Probing stops early where it can: a primitive or array ends keyed detection, an array
//! column ends tabular detection, and a dead detection stops descending into elements.

/// Forwards the serde calls that do not change what a value is (`Some`, newtypes) and maps
/// every primitive to one result.
macro_rules! primitives {
    ($ok:expr) => {
        fn serialize_bool(self, _: bool) -> Result<Self::Ok, Stop> {
            Ok($ok)
        }
        fn serialize_i8(self, _: i8) -> Result<Self::Ok, Stop> {
            Ok($ok)
        }
        fn serialize_i16(self, _: i16) -> Result<Self::Ok, Stop> {
            Ok($ok)
        }
        fn serialize_i32(self, _: i32) -> Result<Self::Ok, Stop> {
            Ok($ok)
        }
        fn serialize_i64(self, _: i64) -> Result<Self::Ok, Stop> {
            Ok($ok)
        }
        fn serialize_i128(self, _: i128) -> Result<Self::Ok, Stop> {
            Ok($ok)
        }
        fn serialize_u8(self, _: u8) -> Result<Self::Ok, Stop> {
            Ok($ok)
        }
        fn serialize_u16(self, _: u16) -> Result<Self::Ok, Stop> {
            Ok($ok)
        }
        fn serialize_u32(self, _: u32) -> Result<Self::Ok, Stop> {
            Ok($ok)
        }
        fn serialize_u64(self, _: u64) -> Result<Self::Ok, Stop> {
            Ok($ok)
        }
        fn serialize_u128(self, _: u128) -> Result<Self::Ok, Stop> {
            Ok($ok)
        }
        fn serialize_f32(self, _: f32) -> Result<Self::Ok, Stop> {
            Ok($ok)
        }
        fn serialize_f64(self, _: f64) -> Result<Self::Ok, Stop> {
            Ok($ok)
        }
        fn serialize_char(self, _: char) -> Result<Self::Ok, Stop> {
            Ok($ok)
        }
        fn serialize_str(self, _: &str) -> Result<Self::Ok, Stop> {
            Ok($ok)
        }
        fn serialize_none(self) -> Result<Self::Ok, Stop> {
            Ok($ok)
        }
        fn serialize_unit(self) -> Result<Self::Ok, Stop> {
            Ok($ok)
        }
        fn serialize_unit_struct(self, _: &'static str) -> Result<Self::Ok, Stop> {
            Ok($ok)
        }
        fn serialize_unit_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
        ) -> Result<Self::Ok, Stop> {
            Ok($ok)
        }
        transparent!();
    };
}

pub(crate) mod guess;
mod kind;
mod tabular;

use serde::ser::{self, Impossible, Serialize};
use std::borrow::Cow;

use kind::{AllPrimitive, NonEmptyObject, is_primitive};
pub(crate) use tabular::could_be_row;
use tabular::{RowOutcome, TableCheck};

/// The layout decision for one value.
#[derive(Debug)]
pub(crate) enum Shape {
    Primitive,
    Array { len: usize, form: ArrayForm },
    Object { len: usize, form: ObjectForm },
}

#[derive(Debug)]
pub(crate) enum ArrayForm {
    /// §9.1 all elements primitive (also the empty array).
    Inline,
    /// §9.2 every element an array of primitives.
    InlineArrays,
    /// §9.3 uniform objects.
    Table(TableFields),
    /// §9.4 anything else.
    List,
}

#[derive(Debug)]
pub(crate) enum ObjectForm {
    /// §8 fields (also the empty object).
    Fields,
    /// §9.5 keyed tabular.
    Keyed(TableFields),
    /// An enum variant with content, `{Variant: content}`, whose content arrives as fields or
    /// elements rather than as one value; its own shape is known here.
    Variant(Box<Shape>),
    /// Two or more entries, all non-empty objects: [`shape`] decides between the other forms.
    KeyedCandidate,
}

impl ObjectForm {
    /// The content shape of an enum variant object, whose content arrives piecewise.
    pub(crate) fn variant(&self) -> Option<&Shape> {
        match self {
            ObjectForm::Variant(inner) => Some(inner),
            _ => None,
        }
    }
}

/// A field list with nested field groups (§9.3), in the first row's key order.
#[derive(Debug, Default)]
pub(crate) struct TableFields {
    /// Borrowed for struct fields (`&'static str`), owned for map keys.
    pub(crate) names: Vec<Cow<'static, str>>,
    /// `Some` for a nested field group, `None` for a leaf.
    pub(crate) groups: Vec<Option<TableFields>>,
    /// Index of each field's first leaf within this group, and the total; set by `index`.
    offsets: Vec<usize>,
    leaves: usize,
}

impl TableFields {
    fn new(names: Vec<Cow<'static, str>>, groups: Vec<Option<TableFields>>) -> Self {
        TableFields {
            names,
            groups,
            offsets: Vec::new(),
            leaves: 0,
        }
    }

    /// Computes leaf offsets, depth-first (§9.3: cells follow a pre-order walk). A list
    /// taken again (`TableCheck::adopt_first`) has them already: its names and groups never
    /// change once built.
    fn index(&mut self) {
        if self.offsets.len() == self.groups.len() {
            return;
        }
        self.offsets.clear();
        let mut at = 0;
        for group in &mut self.groups {
            self.offsets.push(at);
            at += match group {
                Some(g) => {
                    g.index();
                    g.leaves
                }
                None => 1,
            };
        }
        self.leaves = at;
    }

    /// Number of cells per row.
    pub(crate) fn leaves(&self) -> usize {
        self.leaves
    }

    /// Index of field `j`'s first leaf within this group.
    pub(crate) fn offset(&self, j: usize) -> usize {
        self.offsets[j]
    }

    /// Index of `key`, trying `hint` (the entry's position) first. A struct's field names
    /// are the same `&'static str` on every row, so the hint usually matches by address and
    /// length alone, without comparing bytes.
    #[inline]
    pub(crate) fn position(&self, key: &str, hint: usize) -> Option<usize> {
        if self.is_at(hint, key) {
            return Some(hint);
        }
        self.names.iter().position(|n| n == key)
    }

    /// Whether field `j` is named `key`: by address and length first (a struct's field
    /// name), then by text.
    #[inline]
    pub(crate) fn is_at(&self, j: usize, key: &str) -> bool {
        self.names.get(j).is_some_and(|name| {
            (std::ptr::eq(name.as_ptr(), key.as_ptr()) && name.len() == key.len()) || name == key
        })
    }
}

/// Probing stopped: the value's own `Serialize` failed (with its message), or a check gave up.
#[derive(Debug)]
pub(crate) struct Stop(Option<String>);

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.as_deref().unwrap_or("serialization failed"))
    }
}
impl std::error::Error for Stop {}

impl From<Stop> for crate::error::Error {
    fn from(stop: Stop) -> Self {
        crate::error::Error::data(stop.to_string())
    }
}
impl ser::Error for Stop {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Stop(Some(msg.to_string()))
    }
}

/// The shape of `value`; `Err` only if its `Serialize` implementation fails.
///
/// `left` is the nesting the value may use, itself included: tabular rows (§9.3, §9.5) that
/// would nest deeper break the table, so the list form the emitter falls back to reports the
/// depth where it is exceeded.
pub(crate) fn shape<T: ?Sized + Serialize>(value: &T, left: usize) -> Result<Shape, Stop> {
    probe_shape(value, left, true)
}

/// The shape of a list item's `value` (§10): as [`shape`] finds it, but an array is never a
/// table there (a keyless field list is the root's only, §6), so its elements are not
/// checked for one and it comes out as a list unless it is inline.
pub(crate) fn item_shape<T: ?Sized + Serialize>(value: &T, left: usize) -> Result<Shape, Stop> {
    probe_shape(value, left, false)
}

fn probe_shape<T: ?Sized + Serialize>(value: &T, left: usize, tables: bool) -> Result<Shape, Stop> {
    let rows = left.saturating_sub(1);
    let first = value.serialize(ShapeProbe { rows, tables })?;
    second_look(value, first, rows)
}

/// Only once the first pass knows an object has two or more entries that are all non-empty
/// objects is it worth building field lists for §9.5.
fn second_look<T: ?Sized + Serialize>(value: &T, first: Shape, rows: usize) -> Result<Shape, Stop> {
    match first {
        Shape::Object {
            form: ObjectForm::KeyedCandidate,
            ..
        } => value.serialize(KeyedProbe { rows }),
        shape => Ok(shape),
    }
}

/// Computes a value's [`Shape`]; `rows` is the nesting left for its elements or entries.
/// Without `tables`, an array's elements are not checked for a table (§9.3); an enum
/// variant's content still is.
struct ShapeProbe {
    rows: usize,
    tables: bool,
}

impl ShapeProbe {
    fn array(self) -> ArrayProbe {
        let mut probe = ArrayProbe::new(self.rows);
        probe.table.dead = !self.tables;
        probe
    }
}
/// Classifies an array's elements one by one (§9.1–§9.4 decision order).
pub(crate) struct ArrayProbe {
    len: usize,
    inline: bool,
    inline_arrays: bool,
    table: TableCheck,
}

impl ArrayProbe {
    fn new(rows: usize) -> Self {
        ArrayProbe {
            len: 0,
            inline: true,
            inline_arrays: true,
            table: TableCheck::new(rows),
        }
    }

    fn element<T: ?Sized + Serialize>(&mut self, value: &T) {
        self.len += 1;
        if !(self.inline || self.inline_arrays || !self.table.dead) {
            return; // already a list: nothing left to learn but the count
        }
        let object = !self.table.dead
            && match self.table.row(value) {
                RowOutcome::Uniform | RowOutcome::Breaks => true,
                RowOutcome::NotObject => false,
            };
        if object {
            // An object (or an enum variant object): neither inline form applies.
            self.inline = false;
            self.inline_arrays = false;
            return;
        }
        if self.inline && !is_primitive(value) {
            self.inline = false;
        }
        if self.inline_arrays && !value.serialize(AllPrimitive).unwrap_or(false) {
            self.inline_arrays = false;
        }
    }

    /// Counts `value` as the first element, a row whose field list is `candidate` (see
    /// [`TableCheck::adopt_first`]), when it is one; false, with nothing counted, otherwise.
    fn adopt_first<T: ?Sized + Serialize>(
        &mut self,
        value: &T,
        candidate: &mut Option<TableFields>,
    ) -> bool {
        if self.len > 0 || !self.table.adopt_first(value, candidate) {
            return false;
        }
        self.len = 1;
        self.inline = false;
        self.inline_arrays = false;
        true
    }

    fn finish(self) -> Shape {
        let form = if self.inline {
            ArrayForm::Inline
        } else if self.inline_arrays {
            ArrayForm::InlineArrays
        } else {
            match self.table.finish() {
                Some(fields) => ArrayForm::Table(fields),
                None => ArrayForm::List,
            }
        };
        Shape::Array {
            len: self.len,
            form,
        }
    }
}

/// Classifies an object's values for §9.5 (keyed needs two or more uniform non-empty objects).
pub(crate) struct ObjectProbe {
    len: usize,
    table: TableCheck,
}

impl ObjectProbe {
    fn new(rows: usize) -> Self {
        ObjectProbe {
            len: 0,
            table: TableCheck::new(rows),
        }
    }

    fn value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Stop> {
        self.len += 1;
        if !self.table.dead {
            self.table.row(value);
        }
        Ok(())
    }

    fn finish(self) -> Shape {
        let len = self.len;
        let form = match self.table.finish() {
            Some(fields) if len >= 2 => ObjectForm::Keyed(fields),
            _ => ObjectForm::Fields,
        };
        Shape::Object { len, form }
    }
}

/// The first look at an object: its size, and whether every value is a non-empty object.
pub(crate) struct ObjectScan {
    len: usize,
    all_objects: bool,
}

impl ObjectScan {
    #[inline]
    pub(super) fn value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Stop> {
        self.len += 1;
        if self.all_objects && !value.serialize(NonEmptyObject).unwrap_or(false) {
            self.all_objects = false;
        }
        Ok(())
    }

    fn finish(self) -> Shape {
        let form = if self.len >= 2 && self.all_objects {
            ObjectForm::KeyedCandidate
        } else {
            ObjectForm::Fields
        };
        Shape::Object {
            len: self.len,
            form,
        }
    }
}

/// `SerializeMap` and `SerializeStruct` for object probes: every value goes to `value()`
/// (which may stop the probe), keys are not needed, `finish()` gives the shape.
macro_rules! object_values {
    ($($probe:ty),*) => {$(
        impl ser::SerializeMap for $probe {
            type Ok = Shape;
            type Error = Stop;
            fn serialize_key<T: ?Sized + Serialize>(&mut self, _: &T) -> Result<(), Stop> {
                Ok(())
            }
            fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Stop> {
                self.value(value)
            }
            fn end(self) -> Result<Shape, Stop> {
                Ok(self.finish())
            }
        }

        impl ser::SerializeStruct for $probe {
            type Ok = Shape;
            type Error = Stop;
            fn serialize_field<T: ?Sized + Serialize>(
                &mut self,
                _: &'static str,
                value: &T,
            ) -> Result<(), Stop> {
                self.value(value)
            }
            fn end(self) -> Result<Shape, Stop> {
                Ok(self.finish())
            }
        }
    )*};
}
object_values!(ObjectScan, ObjectProbe, guess::GuessingObject<'_>);

/// The full §9.5 probe of an object already known to be a keyed candidate.
struct KeyedProbe {
    rows: usize,
}

impl ser::Serializer for KeyedProbe {
    type Ok = Shape;
    type Error = Stop;
    type SerializeSeq = Impossible<Shape, Stop>;
    type SerializeTuple = Impossible<Shape, Stop>;
    type SerializeTupleStruct = Impossible<Shape, Stop>;
    type SerializeTupleVariant = Impossible<Shape, Stop>;
    type SerializeMap = ObjectProbe;
    type SerializeStruct = ObjectProbe;
    type SerializeStructVariant = Impossible<Shape, Stop>;

    primitives!(Shape::Primitive);

    fn serialize_map(self, _: Option<usize>) -> Result<ObjectProbe, Stop> {
        Ok(ObjectProbe::new(self.rows))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<ObjectProbe, Stop> {
        Ok(ObjectProbe::new(self.rows))
    }

    refuse!(Stop(None); serialize_bytes, serialize_seq, serialize_tuple_struct);

    refuse!(Stop(None); serialize_newtype_variant, serialize_tuple, serialize_tuple_variant, serialize_struct_variant);
}

/// The content of an enum variant with fields or elements, probed as it arrives.
pub(crate) enum VariantProbe {
    Elements(ArrayProbe),
    Fields(ObjectProbe),
}

impl ser::Serializer for ShapeProbe {
    type Ok = Shape;
    type Error = Stop;
    type SerializeSeq = ArrayProbe;
    type SerializeTuple = ArrayProbe;
    type SerializeTupleStruct = ArrayProbe;
    type SerializeTupleVariant = VariantProbe;
    type SerializeMap = ObjectScan;
    type SerializeStruct = ObjectScan;
    type SerializeStructVariant = VariantProbe;

    primitives!(Shape::Primitive);

    fn serialize_bytes(self, v: &[u8]) -> Result<Shape, Stop> {
        Ok(Shape::Array {
            len: v.len(),
            form: ArrayForm::Inline,
        })
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Shape, Stop> {
        // The content is one field's value, laid out (and probed) when that field is written.
        Ok(Shape::Object {
            len: 1,
            form: ObjectForm::Fields,
        })
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<ArrayProbe, Stop> {
        Ok(self.array())
    }
    fn serialize_tuple(self, _: usize) -> Result<ArrayProbe, Stop> {
        Ok(self.array())
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<ArrayProbe, Stop> {
        Ok(self.array())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<VariantProbe, Stop> {
        Ok(VariantProbe::Elements(ArrayProbe::new(self.rows)))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<ObjectScan, Stop> {
        Ok(ObjectScan {
            len: 0,
            all_objects: true,
        })
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<ObjectScan, Stop> {
        self.serialize_map(None)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<VariantProbe, Stop> {
        Ok(VariantProbe::Fields(ObjectProbe::new(self.rows)))
    }
}

elements! {
    impl[] for ArrayProbe {
        Ok = Shape, Error = Stop;
        element(this, value) => {
            this.element(value);
            Ok(())
        };
        end(this) => Ok(this.finish());
    }
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field
}

impl VariantProbe {
    fn content(self) -> Shape {
        let inner = match self {
            VariantProbe::Elements(a) => a.finish(),
            VariantProbe::Fields(o) => o.finish(),
        };
        Shape::Object {
            len: 1,
            form: ObjectForm::Variant(Box::new(inner)),
        }
    }
}

impl ser::SerializeTupleVariant for VariantProbe {
    type Ok = Shape;
    type Error = Stop;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Stop> {
        if let VariantProbe::Elements(a) = self {
            a.element(value);
        }
        Ok(())
    }
    fn end(self) -> Result<Shape, Stop> {
        Ok(self.content())
    }
}

impl ser::SerializeStructVariant for VariantProbe {
    type Ok = Shape;
    type Error = Stop;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        match self {
            VariantProbe::Fields(o) => o.value(value),
            VariantProbe::Elements(_) => Ok(()),
        }
    }
    fn end(self) -> Result<Shape, Stop> {
        Ok(self.content())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn form(shape: Shape) -> String {
        match shape {
            Shape::Array { len, form } => format!("{len} {form:?}"),
            other => format!("{other:?}"),
        }
    }

    /// A list item's array is probed without a table check: uniform objects come out as a
    /// list there, everything else as `shape` has it, an enum variant's table included.
    #[test]
    fn a_list_items_array_is_never_probed_for_a_table() {
        let rows = json!([{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]);
        assert!(form(shape(&rows, 64).unwrap()).starts_with("2 Table"));
        assert_eq!(form(item_shape(&rows, 64).unwrap()), "2 List");
        for other in [
            json!([1, "two", null]),
            json!([[1, 2], [3]]),
            json!([{"a": 1}, 2]),
            json!([]),
            json!({"k": 1}),
        ] {
            assert_eq!(
                form(item_shape(&other, 64).unwrap()),
                form(shape(&other, 64).unwrap()),
                "{other}"
            );
        }

        #[derive(serde::Serialize)]
        struct Row {
            a: u8,
        }
        #[derive(serde::Serialize)]
        enum Wrapper {
            Rows(Row, Row),
        }
        let variant = form(item_shape(&Wrapper::Rows(Row { a: 1 }, Row { a: 2 }), 64).unwrap());
        assert!(
            variant.contains("Variant(Array { len: 2, form: Table"),
            "{variant}"
        );
    }
}
