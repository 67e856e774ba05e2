//! Comparisons of a [`Value`] with Rust primitives: `value == 1`, `value == "a"`.

use super::{Number, Value};

macro_rules! eq_number {
    ($($t:ty),*) => {$(
        impl PartialEq<$t> for Value {
            fn eq(&self, other: &$t) -> bool {
                matches!(self, Value::Number(n) if *n == Number::from(*other))
            }
        }
    )*};
}
eq_number!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl PartialEq<str> for Value {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl PartialEq<&str> for Value {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl PartialEq<bool> for Value {
    fn eq(&self, other: &bool) -> bool {
        self.as_bool() == Some(*other)
    }
}
