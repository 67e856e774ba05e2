//! Cheap shallow questions about a value: is it a primitive, an array of primitives, a
//! non-empty object? Containers are never descended into.

use serde::ser::{self, Impossible, Serialize};

use super::Stop;

/// Whether a value is a primitive (containers stop at once).
pub(super) struct IsPrimitive;

impl ser::Serializer for IsPrimitive {
    type Ok = ();
    type Error = Stop;
    type SerializeSeq = Impossible<(), Stop>;
    type SerializeTuple = Impossible<(), Stop>;
    type SerializeTupleStruct = Impossible<(), Stop>;
    type SerializeTupleVariant = Impossible<(), Stop>;
    type SerializeMap = Impossible<(), Stop>;
    type SerializeStruct = Impossible<(), Stop>;
    type SerializeStructVariant = Impossible<(), Stop>;

    primitives!(());

    refuse!(Stop(None); serialize_bytes, serialize_seq, serialize_tuple_struct, serialize_map);

    refuse!(Stop(None); serialize_newtype_variant, serialize_tuple, serialize_tuple_variant, serialize_struct, serialize_struct_variant);
}

pub(super) fn is_primitive<T: ?Sized + Serialize>(value: &T) -> bool {
    value.serialize(IsPrimitive).is_ok()
}

/// Whether a value is an object with at least one entry (enum variants with content are).
pub(super) struct NonEmptyObject;

pub(crate) struct AnyEntry(bool);

impl ser::Serializer for NonEmptyObject {
    type Ok = bool;
    type Error = Stop;
    type SerializeSeq = Impossible<bool, Stop>;
    type SerializeTuple = Impossible<bool, Stop>;
    type SerializeTupleStruct = Impossible<bool, Stop>;
    type SerializeTupleVariant = AnyEntry;
    type SerializeMap = AnyEntry;
    type SerializeStruct = AnyEntry;
    type SerializeStructVariant = AnyEntry;

    primitives!(false);

    fn serialize_bytes(self, _: &[u8]) -> Result<bool, Stop> {
        Ok(false)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<bool, Stop> {
        Ok(true)
    }
    // Variants with content are one-key objects.
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<AnyEntry, Stop> {
        Ok(AnyEntry(true))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<AnyEntry, Stop> {
        Ok(AnyEntry(false))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<AnyEntry, Stop> {
        Ok(AnyEntry(false))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<AnyEntry, Stop> {
        Ok(AnyEntry(true))
    }

    refuse!(Stop(None); serialize_seq, serialize_tuple_struct);

    refuse!(Stop(None); serialize_tuple);
}

impl ser::SerializeMap for AnyEntry {
    type Ok = bool;
    type Error = Stop;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, _: &T) -> Result<(), Stop> {
        self.0 = true;
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, _: &T) -> Result<(), Stop> {
        Ok(())
    }
    fn end(self) -> Result<bool, Stop> {
        Ok(self.0)
    }
}

impl ser::SerializeStruct for AnyEntry {
    type Ok = bool;
    type Error = Stop;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        _: &'static str,
        _: &T,
    ) -> Result<(), Stop> {
        self.0 = true;
        Ok(())
    }
    fn end(self) -> Result<bool, Stop> {
        Ok(self.0)
    }
}

impl ser::SerializeStructVariant for AnyEntry {
    type Ok = bool;
    type Error = Stop;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        _: &'static str,
        _: &T,
    ) -> Result<(), Stop> {
        Ok(())
    }
    fn end(self) -> Result<bool, Stop> {
        Ok(self.0)
    }
}

impl ser::SerializeTupleVariant for AnyEntry {
    type Ok = bool;
    type Error = Stop;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, _: &T) -> Result<(), Stop> {
        Ok(())
    }
    fn end(self) -> Result<bool, Stop> {
        Ok(self.0)
    }
}

/// Whether a value is an array whose elements are all primitive.
pub(super) struct AllPrimitive;

pub(crate) struct AllPrimitiveSeq(bool);

impl ser::Serializer for AllPrimitive {
    type Ok = bool;
    type Error = Stop;
    type SerializeSeq = AllPrimitiveSeq;
    type SerializeTuple = AllPrimitiveSeq;
    type SerializeTupleStruct = AllPrimitiveSeq;
    type SerializeTupleVariant = Impossible<bool, Stop>;
    type SerializeMap = Impossible<bool, Stop>;
    type SerializeStruct = Impossible<bool, Stop>;
    type SerializeStructVariant = Impossible<bool, Stop>;

    primitives!(false);

    fn serialize_bytes(self, _: &[u8]) -> Result<bool, Stop> {
        Ok(true)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<bool, Stop> {
        Ok(false)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<AllPrimitiveSeq, Stop> {
        Ok(AllPrimitiveSeq(true))
    }
    fn serialize_tuple(self, _: usize) -> Result<AllPrimitiveSeq, Stop> {
        Ok(AllPrimitiveSeq(true))
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<AllPrimitiveSeq, Stop> {
        Ok(AllPrimitiveSeq(true))
    }

    refuse!(Stop(None); serialize_tuple_variant, serialize_struct);

    refuse!(Stop(None); serialize_map, serialize_struct_variant);
}

elements! {
    impl[] for AllPrimitiveSeq {
        Ok = bool, Error = Stop;
        element(this, value) => {
            if this.0 && !is_primitive(value) {
                this.0 = false;
            }
            Ok(())
        };
        end(this) => Ok(this.0);
    }
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field
}

/// Whether a value is an object whose values are all primitive (a flat row, §9.3), asked
/// without building anything.
pub(super) fn is_flat_object<T: ?Sized + Serialize>(value: &T) -> bool {
    value.serialize(FlatObject).unwrap_or(false)
}

struct FlatObject;

pub(crate) struct FlatEntries;

impl ser::Serializer for FlatObject {
    type Ok = bool;
    type Error = Stop;
    type SerializeSeq = Impossible<bool, Stop>;
    type SerializeTuple = Impossible<bool, Stop>;
    type SerializeTupleStruct = Impossible<bool, Stop>;
    type SerializeTupleVariant = Impossible<bool, Stop>;
    type SerializeMap = FlatEntries;
    type SerializeStruct = FlatEntries;
    type SerializeStructVariant = Impossible<bool, Stop>;

    primitives!(false);

    fn serialize_map(self, _: Option<usize>) -> Result<FlatEntries, Stop> {
        Ok(FlatEntries)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<FlatEntries, Stop> {
        Ok(FlatEntries)
    }

    refuse!(Stop(None); serialize_bytes, serialize_newtype_variant, serialize_seq,
        serialize_tuple, serialize_tuple_struct, serialize_tuple_variant,
        serialize_struct_variant);
}

impl ser::SerializeMap for FlatEntries {
    type Ok = bool;
    type Error = Stop;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, _: &T) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Stop> {
        if is_primitive(value) {
            Ok(())
        } else {
            Err(Stop(None))
        }
    }
    fn end(self) -> Result<bool, Stop> {
        Ok(true)
    }
}

impl ser::SerializeStruct for FlatEntries {
    type Ok = bool;
    type Error = Stop;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        ser::SerializeMap::serialize_value(self, value)
    }
    fn end(self) -> Result<bool, Stop> {
        Ok(true)
    }
}
