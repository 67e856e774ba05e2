//! The speculative guess for tables (§9.3, §9.5) and inline arrays (§9.1). The probe
//! normally serializes a whole array or object to choose its form; probed through
//! [`shape_or_guess`], an array of known length whose first two elements (or only one) are
//! primitives, or make a table (nested field groups included), stops there, with that form as
//! the guess, and so does an object of known size whose first two values make a flat keyed
//! table. The emitter writes that form straight away and checks each row or element as it
//! writes it; when one breaks the form it rewinds and asks [`super::shape`], which looks at
//! every element.
//!
//! Two rows, not one: in non-uniform data the second element usually differs already, and a
//! wrong guess costs a rewritten array. The exception is a first row with exactly the keys of
//! the last table written (`TableCheck::adopt_first`): arrays of the same records repeat
//! their tables, so that row alone makes the guess. A keyed table is guessed from flat rows
//! only, for the same reason: an object whose values hold objects is seldom one. Everything
//! else is probed exactly as [`super::shape`] probes it, in one pass.

use serde::ser::{self, Serialize};

use super::kind::is_flat_object;
use super::tabular::{RowOutcome, TableCheck};
use super::{
    ArrayForm, ArrayProbe, ObjectForm, ObjectScan, Shape, ShapeProbe, Stop, TableFields,
    VariantProbe, second_look,
};

/// What [`shape_or_guess`] found.
pub(crate) enum Probed {
    /// The value's shape, from all of it.
    Shape(Shape),
    /// A table guessed from an array's first rows: to be checked while it is written.
    Guess(Shape),
}

/// The shape of `value` as [`super::shape`] finds it, or a guessed form for an array of
/// primitives or of uniform objects, found after its second element. `candidate` is a flat field list
/// to try for an array's first row before building one (the last table written: arrays of
/// the same records repeat it).
pub(crate) fn shape_or_guess<T: ?Sized + Serialize>(
    value: &T,
    left: usize,
    candidate: &mut Option<TableFields>,
) -> Result<Probed, Stop> {
    let rows = left.saturating_sub(1);
    let mut guessed = None;
    let first = value.serialize(Guessing {
        probe: ShapeProbe { rows, tables: true },
        guessed: &mut guessed,
        candidate,
    });
    if let Some(shape) = guessed {
        return Ok(Probed::Guess(shape));
    }
    second_look(value, first?, rows).map(Probed::Shape)
}

/// [`ShapeProbe`], with arrays probed by [`GuessingArray`].
struct Guessing<'g> {
    probe: ShapeProbe,
    guessed: &'g mut Option<Shape>,
    candidate: &'g mut Option<TableFields>,
}

impl<'g> Guessing<'g> {
    fn object(self, declared: Option<usize>) -> GuessingObject<'g> {
        GuessingObject {
            scan: ObjectScan {
                len: 0,
                all_objects: true,
            },
            declared,
            table: None,
            rows: self.probe.rows,
            guessed: self.guessed,
        }
    }

    fn array(self, declared: Option<usize>) -> GuessingArray<'g> {
        GuessingArray {
            probe: ArrayProbe::new(self.probe.rows),
            candidate: self.candidate,
            declared,
            guessed: self.guessed,
        }
    }
}

/// An [`ArrayProbe`] that stops with a guess once the first elements make an inline array or
/// a table.
struct GuessingArray<'g> {
    probe: ArrayProbe,
    /// A field list to try for the first row before building one (`shape_or_guess`).
    candidate: &'g mut Option<TableFields>,
    declared: Option<usize>,
    guessed: &'g mut Option<Shape>,
}

impl GuessingArray<'_> {
    fn element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Stop> {
        // A first row with exactly the last table's keys is taken for a table of those
        // keys at once: the second row would say little more, and every row is checked as
        // it is written anyway.
        let adopted = self.probe.adopt_first(value, self.candidate);
        if !adopted {
            self.probe.element(value);
        }
        let Some(declared) = self.declared else {
            return Ok(());
        };
        if (self.probe.len < declared.min(2) && !adopted) || self.probe.len > 2 {
            return Ok(());
        }
        // §9.1: primitives so far make an inline array, the form that all-primitive
        // elements take.
        if self.probe.inline {
            *self.guessed = Some(Shape::Array {
                len: declared,
                form: ArrayForm::Inline,
            });
            return Err(Stop(None));
        }
        if let Some(fields) = self.probe.table.take_guess(true) {
            *self.guessed = Some(Shape::Array {
                len: declared,
                form: ArrayForm::Table(fields),
            });
            return Err(Stop(None));
        }
        Ok(())
    }
}

elements! {
    impl[] for GuessingArray<'_> {
        Ok = Shape, Error = Stop;
        element(this, value) => this.element(value);
        end(this) => Ok(this.probe.finish());
    }
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field
}

/// The fewest entries an object needs for its keyed table (§9.5) to be guessed.
const MIN_KEYED_GUESS: usize = 4;

/// An [`ObjectScan`] that stops with a guess once its first two values make a flat keyed
/// table.
pub(super) struct GuessingObject<'g> {
    scan: ObjectScan,
    declared: Option<usize>,
    /// Made when the first value is checked: every object passes through here, and most
    /// never need it (boxed, so that they do not carry its size either).
    table: Option<Box<TableCheck>>,
    rows: usize,
    guessed: &'g mut Option<Shape>,
}

impl GuessingObject<'_> {
    #[inline]
    pub(super) fn value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Stop> {
        self.scan.value(value)?;
        // Small objects are left to the probe: the guess would build the first rows' field
        // lists twice when it fails, and few entries save little when it holds.
        let Some(declared) = self.declared.filter(|&n| n >= MIN_KEYED_GUESS) else {
            return Ok(());
        };
        if self.scan.len > 2 || !self.scan.all_objects {
            return Ok(());
        }
        // Flat rows only, asked first without building a field list: a value with nested
        // groups is left to the keyed probe, which walks it when it has to.
        if !is_flat_object(value) {
            self.declared = None;
            return Ok(());
        }
        let rows = self.rows.min(1);
        let table = self
            .table
            .get_or_insert_with(|| Box::new(TableCheck::new(rows)));
        if !matches!(table.row(value), RowOutcome::Uniform) {
            self.declared = None;
            return Ok(());
        }
        if self.scan.len == 2
            && let Some(fields) = table.take_guess(false)
        {
            *self.guessed = Some(Shape::Object {
                len: declared,
                form: ObjectForm::Keyed(fields),
            });
            return Err(Stop(None));
        }
        Ok(())
    }

    pub(super) fn finish(self) -> Shape {
        self.scan.finish()
    }
}

/// Forwards a serializer method to [`ShapeProbe`].
macro_rules! forward {
    ($($name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {$(
        fn $name(self, $($arg: $ty),*) -> Result<$ret, Stop> {
            ser::Serializer::$name(self.probe, $($arg),*)
        }
    )*};
}

impl<'g> ser::Serializer for Guessing<'g> {
    type Ok = Shape;
    type Error = Stop;
    type SerializeSeq = GuessingArray<'g>;
    type SerializeTuple = GuessingArray<'g>;
    type SerializeTupleStruct = GuessingArray<'g>;
    type SerializeTupleVariant = VariantProbe;
    type SerializeMap = GuessingObject<'g>;
    type SerializeStruct = GuessingObject<'g>;
    type SerializeStructVariant = VariantProbe;

    forward! {
        serialize_bool(v: bool) -> Shape;
        serialize_i8(v: i8) -> Shape;
        serialize_i16(v: i16) -> Shape;
        serialize_i32(v: i32) -> Shape;
        serialize_i64(v: i64) -> Shape;
        serialize_i128(v: i128) -> Shape;
        serialize_u8(v: u8) -> Shape;
        serialize_u16(v: u16) -> Shape;
        serialize_u32(v: u32) -> Shape;
        serialize_u64(v: u64) -> Shape;
        serialize_u128(v: u128) -> Shape;
        serialize_f32(v: f32) -> Shape;
        serialize_f64(v: f64) -> Shape;
        serialize_char(v: char) -> Shape;
        serialize_str(v: &str) -> Shape;
        serialize_bytes(v: &[u8]) -> Shape;
        serialize_none() -> Shape;
        serialize_unit() -> Shape;
        serialize_unit_struct(name: &'static str) -> Shape;
        serialize_unit_variant(name: &'static str, index: u32, variant: &'static str) -> Shape;
        serialize_tuple_variant(name: &'static str, index: u32, variant: &'static str, len: usize) -> VariantProbe;
        serialize_struct_variant(name: &'static str, index: u32, variant: &'static str, len: usize) -> VariantProbe;
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<Shape, Stop> {
        value.serialize(self)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Shape, Stop> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Shape, Stop> {
        ser::Serializer::serialize_newtype_variant(self.probe, name, index, variant, value)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<GuessingObject<'g>, Stop> {
        Ok(self.object(len))
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<GuessingObject<'g>, Stop> {
        Ok(self.object(Some(len)))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<GuessingArray<'g>, Stop> {
        Ok(self.array(len))
    }
    fn serialize_tuple(self, len: usize) -> Result<GuessingArray<'g>, Stop> {
        Ok(self.array(Some(len)))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        len: usize,
    ) -> Result<GuessingArray<'g>, Stop> {
        Ok(self.array(Some(len)))
    }
}
