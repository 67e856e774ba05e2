//! Macros: the serde `Serializer` boilerplate shared by the encoder's serializers, and the
//! public [`toon!`](crate::toon), which builds a [`Value`](crate::Value) from JSON-like syntax.

/// Writes serde `Serializer` methods that all fail with the same error, for serializers that
/// accept only some kinds of value: `refuse!(error; serialize_seq, serialize_map, …)`;
/// `primitives` stands for every primitive method.
macro_rules! refuse {
    ($err:expr; $($method:ident),* $(,)?) => { $( refuse!(@one $err; $method); )* };
    // Every primitive: bool, integers, floats, char, str, none, unit, unit struct and variant.
    (@one $err:expr; primitives) => {
        refuse!(@typed $err; serialize_bool(bool), serialize_i8(i8), serialize_i16(i16),
            serialize_i32(i32), serialize_i64(i64), serialize_i128(i128), serialize_u8(u8),
            serialize_u16(u16), serialize_u32(u32), serialize_u64(u64), serialize_u128(u128),
            serialize_f32(f32), serialize_f64(f64), serialize_char(char), serialize_str(&str),
            serialize_none(), serialize_unit(), serialize_unit_struct(&'static str),
            serialize_unit_variant(&'static str, u32, &'static str));
    };
    (@typed $err:expr; $($name:ident($($arg:ty),*)),*) => {$(
        fn $name(self, $(_: $arg),*) -> std::result::Result<Self::Ok, Self::Error> {
            Err($err)
        }
    )*};
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

/// Implements serde's element-wise compound traits for a type, each method forwarding to one
/// expression: `serialize_element`/`serialize_field` to `element`, `end` to `end`. Lists the
/// traits wanted (arrays, tuples, tuple structs, tuple variants):
///
/// ```ignore
/// elements! {
///     impl[W: io::Write] for Compound<'_, W> {
///         Ok = (), Error = Error;
///         element(this, value) => this.open.element(value);
///         end(this) => Compound::end(this);
///     }
///     SerializeSeq::serialize_element, SerializeTuple::serialize_element
/// }
/// ```
macro_rules! elements {
    (
        impl $generics:tt for $ty:ty {
            Ok = $ok:ty, Error = $err:ty;
            element($this:ident, $value:ident) => $element:expr;
            end($end_this:ident) => $end:expr;
        }
        $($trait:ident :: $method:ident),* $(,)?
    ) => {$(
        elements!(@one $generics $ty; $ok, $err; $this, $value, $element; $end_this, $end;
            $trait::$method);
    )*};
    (
        @one [$($generics:tt)*] $ty:ty; $ok:ty, $err:ty; $this:ident, $value:ident,
        $element:expr; $end_this:ident, $end:expr; $trait:ident :: $method:ident
    ) => {
        impl<$($generics)*> serde::ser::$trait for $ty {
            type Ok = $ok;
            type Error = $err;
            fn $method<T: ?Sized + serde::Serialize>(
                &mut self,
                $value: &T,
            ) -> std::result::Result<(), $err> {
                let $this = self;
                $element
            }
            fn end(self) -> std::result::Result<$ok, $err> {
                let $end_this = self;
                $end
            }
        }
    };
}

/// Implements serde's `SerializeStruct` and `SerializeStructVariant` for a type, both
/// forwarding to one expression each: `serialize_field` to `field`, `end` to `end` (a struct
/// variant's fields are its content's, as serde_json has them):
///
/// ```ignore
/// fields! {
///     impl[] for Building {
///         Ok = TableFields, Error = BuildStop;
///         field(this, key, value) => { this.key = Cow::Borrowed(key); this.column(value) };
///         end(this) => this.done();
///     }
/// }
/// ```
macro_rules! fields {
    (
        impl $generics:tt for $ty:ty {
            Ok = $ok:ty, Error = $err:ty;
            field($this:ident, $key:ident, $value:ident) => $field:expr;
            end($end_this:ident) => $end:expr;
        }
    ) => {
        fields!(@one $generics $ty; $ok, $err; $this, $key, $value, $field; $end_this, $end;
            SerializeStruct);
        fields!(@one $generics $ty; $ok, $err; $this, $key, $value, $field; $end_this, $end;
            SerializeStructVariant);
    };
    (
        @one [$($generics:tt)*] $ty:ty; $ok:ty, $err:ty; $this:ident, $key:ident,
        $value:ident, $field:expr; $end_this:ident, $end:expr; $trait:ident
    ) => {
        impl<$($generics)*> serde::ser::$trait for $ty {
            type Ok = $ok;
            type Error = $err;
            fn serialize_field<T: ?Sized + serde::Serialize>(
                &mut self,
                $key: &'static str,
                $value: &T,
            ) -> std::result::Result<(), $err> {
                let $this = self;
                $field
            }
            fn end(self) -> std::result::Result<$ok, $err> {
                let $end_this = self;
                $end
            }
        }
    };
}

/// `toon!` and its muncher helpers. Exported at the crate root (`#[macro_export]`), and kept in
/// a module of their own so that `#[macro_use]` does not put them in the crate's textual scope
/// too: the crate's own code names `toon!` by path, as users do.
mod value_literal {
    /// Builds a [`Value`](crate::Value) from JSON-like syntax, like `serde_json::json!`.
    ///
    /// ```
    /// let name = "Ada";
    /// let v = toon::toon!({"id": 1, "name": name, "tags": ["a", null, true], "meta": {}});
    /// assert_eq!(v.to_string(), "id: 1\nname: Ada\ntags[3]: a,null,true\nmeta:");
    /// ```
    #[macro_export]
    macro_rules! toon {
        (null) => { $crate::Value::Null };
        ([]) => { $crate::Value::Array(::std::vec::Vec::new()) };
        ([ $($tt:tt)+ ]) => {
            $crate::Value::Array($crate::__toon_array!([] [] $($tt)+))
        };
        ({}) => { $crate::Value::Object($crate::Map::new()) };
        ({ $($tt:tt)+ }) => {{
            let mut map = $crate::Map::new();
            $crate::__toon_object!(map () $($tt)+);
            $crate::Value::Object(map)
        }};
        ($other:expr) => {
            $crate::to_value(&$other).expect("toon!: value must be representable as a toon::Value")
        };
    }

    /// Element muncher for [`toon!`]: collects the tokens of one element up to a comma.
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __toon_array {
        ([$($done:expr,)*] [$($cur:tt)+] , $($rest:tt)*) => {
            $crate::__toon_array!([$($done,)* $crate::toon!($($cur)+),] [] $($rest)*)
        };
        ([$($done:expr,)*] [$($cur:tt)*] $next:tt $($rest:tt)*) => {
            $crate::__toon_array!([$($done,)*] [$($cur)* $next] $($rest)*)
        };
        ([$($done:expr,)*] [$($cur:tt)+]) => {
            ::std::vec![$($done,)* $crate::toon!($($cur)+)]
        };
        ([$($done:expr,)*] []) => {
            ::std::vec![$($done,)*]
        };
    }

    /// Entry muncher for [`toon!`]: `key: value` pairs separated by commas.
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __toon_object {
        ($map:ident ()) => {};
        ($map:ident () $key:tt : $($rest:tt)+) => {
            $crate::__toon_object!($map [$key] [] $($rest)+)
        };
        ($map:ident [$key:tt] [$($cur:tt)+] , $($rest:tt)*) => {
            $map.insert(::std::string::String::from($key), $crate::toon!($($cur)+));
            $crate::__toon_object!($map () $($rest)*)
        };
        ($map:ident [$key:tt] [$($cur:tt)*] $next:tt $($rest:tt)*) => {
            $crate::__toon_object!($map [$key] [$($cur)* $next] $($rest)*)
        };
        ($map:ident [$key:tt] [$($cur:tt)+]) => {
            $map.insert(::std::string::String::from($key), $crate::toon!($($cur)+));
        };
    }
}
