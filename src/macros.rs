//! Macros for the serde `Serializer` boilerplate shared by the encoder's serializers.

/// Writes serde `Serializer` methods that all fail with the same error, for serializers that
/// accept only some kinds of value: `refuse!(error; serialize_seq, serialize_map, …)`.
macro_rules! refuse {
    ($err:expr; $($method:ident),* $(,)?) => { $( refuse!(@one $err; $method); )* };
    (@one $err:expr; serialize_bytes) => {
        fn serialize_bytes(self, _: &[u8]) -> std::result::Result<Self::Ok, Self::Error> {
            Err($err)
        }
    };
    (@one $err:expr; serialize_newtype_variant) => {
        fn serialize_newtype_variant<T: ?Sized + serde::Serialize>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> std::result::Result<Self::Ok, Self::Error> {
            Err($err)
        }
    };
    (@one $err:expr; serialize_seq) => {
        fn serialize_seq(
            self,
            _: Option<usize>,
        ) -> std::result::Result<Self::SerializeSeq, Self::Error> {
            Err($err)
        }
    };
    (@one $err:expr; serialize_tuple) => {
        fn serialize_tuple(self, _: usize) -> std::result::Result<Self::SerializeTuple, Self::Error> {
            Err($err)
        }
    };
    (@one $err:expr; serialize_tuple_struct) => {
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> std::result::Result<Self::SerializeTupleStruct, Self::Error> {
            Err($err)
        }
    };
    (@one $err:expr; serialize_tuple_variant) => {
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> std::result::Result<Self::SerializeTupleVariant, Self::Error> {
            Err($err)
        }
    };
    (@one $err:expr; serialize_map) => {
        fn serialize_map(
            self,
            _: Option<usize>,
        ) -> std::result::Result<Self::SerializeMap, Self::Error> {
            Err($err)
        }
    };
    (@one $err:expr; serialize_struct) => {
        fn serialize_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> std::result::Result<Self::SerializeStruct, Self::Error> {
            Err($err)
        }
    };
    (@one $err:expr; serialize_struct_variant) => {
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> std::result::Result<Self::SerializeStructVariant, Self::Error> {
            Err($err)
        }
    };
}

/// Writes `serialize_some` and `serialize_newtype_struct` as transparent: the inner value is
/// serialized by the same serializer, as serde_json's data model has it.
macro_rules! transparent {
    () => {
        fn serialize_some<T: ?Sized + serde::Serialize>(
            self,
            value: &T,
        ) -> std::result::Result<Self::Ok, Self::Error> {
            value.serialize(self)
        }
        fn serialize_newtype_struct<T: ?Sized + serde::Serialize>(
            self,
            _: &'static str,
            value: &T,
        ) -> std::result::Result<Self::Ok, Self::Error> {
            value.serialize(self)
        }
    };
}
