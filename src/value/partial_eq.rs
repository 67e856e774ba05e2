//! Comparisons of a [`Value`] with Rust primitives and strings, in both directions, as
//! serde_json's: `value == 1`, `1.5 == value`, `"a" == value`, `value == String::from("a")`.
//!
//! Numbers compare by mathematical value, as [`Number`]'s own equality does (TOON's number
//! model, §2, has one form per number: `1.0` is `1`): `Value::from(1.0) == 1` is true here
//! where serde_json, which keeps `1.0` and `1` apart, says false. NaN equals nothing.

use super::{Number, Value};

fn eq_number(value: &Value, other: Option<Number>) -> bool {
    matches!((value, other), (Value::Number(n), Some(o)) if *n == o)
}

fn eq_str(value: &Value, other: &str) -> bool {
    value.as_str() == Some(other)
}

fn eq_bool(value: &Value, other: bool) -> bool {
    value.as_bool() == Some(other)
}

macro_rules! both_ways {
    ($($t:ty => |$v:ident, $o:ident| $eq:expr;)*) => {$(
        impl PartialEq<$t> for Value {
            fn eq(&self, other: &$t) -> bool {
                let ($v, $o) = (self, other);
                $eq
            }
        }
        impl PartialEq<Value> for $t {
            fn eq(&self, other: &Value) -> bool {
                let ($v, $o) = (other, self);
                $eq
            }
        }
        impl PartialEq<$t> for &Value {
            fn eq(&self, other: &$t) -> bool {
                let ($v, $o) = (*self, other);
                $eq
            }
        }
        impl PartialEq<$t> for &mut Value {
            fn eq(&self, other: &$t) -> bool {
                let ($v, $o) = (&**self, other);
                $eq
            }
        }
    )*};
}

macro_rules! integers {
    ($($t:ty),*) => {
        both_ways! { $($t => |v, o| eq_number(v, Some(Number::from(*o)));)* }
    };
}
integers!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

both_ways! {
    f64 => |v, o| eq_number(v, Number::from_f64(*o));
    f32 => |v, o| eq_number(v, Number::from_f64(f64::from(*o)));
    bool => |v, o| eq_bool(v, *o);
    String => |v, o| eq_str(v, o);
}

impl PartialEq<str> for Value {
    fn eq(&self, other: &str) -> bool {
        eq_str(self, other)
    }
}

impl PartialEq<&str> for Value {
    fn eq(&self, other: &&str) -> bool {
        eq_str(self, other)
    }
}

impl PartialEq<Value> for str {
    fn eq(&self, other: &Value) -> bool {
        eq_str(other, self)
    }
}

impl PartialEq<Value> for &str {
    fn eq(&self, other: &Value) -> bool {
        eq_str(other, self)
    }
}
