//! Drives a container's second serialization into the [`ElementSink`] for its form, including enum
//! variants whose content arrives piecewise.

use serde::ser::{self, Serialize};

use super::{ElementSink, Emitter, Halt, Result, Start, inconsistent, open};
use crate::ser::probe::Shape;
use crate::ser::with_key_text;

/// Drives a container's serialization into an [`ElementSink`]. `variant` is the probed shape of the
/// content when the container is an enum variant whose content arrives piecewise.
pub(super) struct Drive<'o, 'w, 'f> {
    out: &'o mut Emitter<'w>,
    sink: ElementSink<'f>,
    variant: Option<&'f Shape>,
}

impl<'o, 'w, 'f> Drive<'o, 'w, 'f> {
    /// Drives into `sink`; `variant` is the content shape when the container is an enum
    /// variant whose content arrives piecewise.
    pub(super) fn with(
        out: &'o mut Emitter<'w>,
        sink: ElementSink<'f>,
        variant: Option<&'f Shape>,
    ) -> Self {
        Drive { out, sink, variant }
    }

    /// Starts `{variant: content}` whose content arrives piecewise: writes the variant's line
    /// as the object's one field, and returns the sink for the content.
    fn open_variant(self, variant: &'static str) -> Result<Driving<'o, 'w, 'f>> {
        let Drive {
            out,
            sink,
            variant: shape,
        } = self;
        let Some(shape) = shape else {
            return Err(inconsistent());
        };
        // The variant is the object's one field; its content opens like any field's.
        let (start, content) = match sink {
            ElementSink::Fields { depth } => (Start::Line(depth), depth + 1),
            ElementSink::ItemObject { depth, .. } => (Start::Item(depth), depth + 2),
            _ => return Err(inconsistent()),
        };
        out.lines.spill()?;
        let (inner, _) = open(out, Some(variant), shape, start, content)?;
        Ok(Driving {
            out,
            sink: inner,
            key: String::new(),
        })
    }
}

/// A container whose elements or entries are being driven into a sink.
pub(super) struct Driving<'o, 'w, 'f> {
    out: &'o mut Emitter<'w>,
    sink: ElementSink<'f>,
    key: String,
}

impl Driving<'_, '_, '_> {
    fn element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.sink.element(self.out, value)
    }

    fn entry<T: ?Sized + Serialize>(&mut self, key: &str, value: &T) -> Result<()> {
        self.sink.entry(self.out, key, value)
    }

    fn end(self) -> Result<()> {
        self.sink.end(self.out)
    }
}

impl<'o, 'w, 'f> ser::Serializer for Drive<'o, 'w, 'f> {
    type Ok = ();
    type Error = Halt;
    type SerializeSeq = Driving<'o, 'w, 'f>;
    type SerializeTuple = Driving<'o, 'w, 'f>;
    type SerializeTupleStruct = Driving<'o, 'w, 'f>;
    type SerializeTupleVariant = Driving<'o, 'w, 'f>;
    type SerializeMap = Driving<'o, 'w, 'f>;
    type SerializeStruct = Driving<'o, 'w, 'f>;
    type SerializeStructVariant = Driving<'o, 'w, 'f>;

    refuse!(inconsistent(); primitives);

    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        let mut seq = self.serialize_seq(Some(v.len()))?;
        for b in v {
            seq.element(b)?;
        }
        seq.end()
    }
    transparent!();
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        let mut object = self.serialize_map(Some(1))?;
        object.entry(variant, value)?;
        object.end()
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Driving<'o, 'w, 'f>> {
        Ok(Driving {
            out: self.out,
            sink: self.sink,
            key: String::new(),
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Driving<'o, 'w, 'f>> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Driving<'o, 'w, 'f>> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Driving<'o, 'w, 'f>> {
        self.open_variant(variant)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Driving<'o, 'w, 'f>> {
        self.serialize_seq(None)
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Driving<'o, 'w, 'f>> {
        self.serialize_seq(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Driving<'o, 'w, 'f>> {
        self.open_variant(variant)
    }
}

elements! {
    impl[] for Driving<'_, '_, '_> {
        Ok = (), Error = Halt;
        element(this, value) => this.element(value);
        end(this) => Driving::end(this);
    }
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
}

impl ser::SerializeMap for Driving<'_, '_, '_> {
    type Ok = ();
    type Error = Halt;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        if self.key.capacity() == 0 {
            // Borrowed on the first key only: maps that come as whole entries
            // (`serialize_entry`, as serde_json's `Value` gives them) never need it.
            self.key = self.out.scratch.keys.pop().unwrap_or_default();
        }
        with_key_text(key, |text| {
            self.key.clear();
            self.key.push_str(text);
            Ok(())
        })
    }
    /// The whole entry at once, as serde_json's `Value` and serde's maps give it: the key's
    /// text goes straight to the sink, with no copy.
    fn serialize_entry<K, V>(&mut self, key: &K, value: &V) -> Result<()>
    where
        K: ?Sized + Serialize,
        V: ?Sized + Serialize,
    {
        with_key_text(key, |text| self.sink.entry(self.out, text, value))
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        let key = std::mem::take(&mut self.key);
        let result = self.entry(&key, value);
        self.key = key;
        result
    }
    fn end(mut self) -> Result<()> {
        let key = std::mem::take(&mut self.key);
        if key.capacity() > 0 {
            self.out.scratch.keys.push(key);
        }
        Driving::end(self)
    }
}

fields! {
    impl[] for Driving<'_, '_, '_> {
        Ok = (), Error = Halt;
        field(this, key, value) => {
            this.out.remember_name(key);
            this.entry(key, value)
        };
        end(this) => Driving::end(this);
    }
}
