//! `Number`: exact for `i64`/`u64`, otherwise a finite `f64` (§2).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A TOON number: an exact 64-bit integer or a finite `f64`.
///
/// Equality is by mathematical value after §2 normalization: `1` equals `1.0`, `-0` equals `0`.
///
/// ```
/// use toon::Number;
/// assert_eq!(Number::from(1u8), Number::from_f64(1.0).unwrap());
/// assert_eq!(Number::from_f64(1e-7).unwrap().to_string(), "1e-7");
/// assert!(Number::from_f64(f64::NAN).is_none());
/// ```
#[derive(Copy, Clone)]
pub struct Number {
    n: N,
}

#[derive(Copy, Clone, Debug)]
enum N {
    PosInt(u64),
    /// Always negative.
    NegInt(i64),
    /// Always finite.
    Float(f64),
}

impl Number {
    /// A number from a finite float; `None` for NaN and ±∞ (which encode as `null`, §3).
    #[must_use]
    pub fn from_f64(v: f64) -> Option<Number> {
        v.is_finite().then_some(Number { n: N::Float(v) })
    }

    /// True if the number is an integer that fits `i64`.
    #[must_use]
    pub fn is_i64(&self) -> bool {
        self.as_i64().is_some()
    }

    /// True if the number is an integer that fits `u64`.
    #[must_use]
    pub fn is_u64(&self) -> bool {
        self.as_u64().is_some()
    }

    /// True if the number is stored as a float.
    #[must_use]
    pub fn is_f64(&self) -> bool {
        matches!(self.n, N::Float(_))
    }

    /// The value as `i64` if it is an integer in range.
    #[must_use]
    pub fn as_i64(&self) -> Option<i64> {
        match self.n {
            N::PosInt(v) => i64::try_from(v).ok(),
            N::NegInt(v) => Some(v),
            N::Float(_) => None,
        }
    }

    /// The value as `u64` if it is a non-negative integer in range.
    #[must_use]
    pub fn as_u64(&self) -> Option<u64> {
        match self.n {
            N::PosInt(v) => Some(v),
            _ => None,
        }
    }

    /// The value as `f64` (integers beyond 2^53 round).
    #[must_use]
    pub fn as_f64(&self) -> Option<f64> {
        Some(match self.n {
            N::PosInt(v) => v as f64,
            N::NegInt(v) => v as f64,
            N::Float(v) => v,
        })
    }

    /// The value as `i128` if it is held as an integer (as serde_json's: a float with no
    /// fraction is still a float).
    #[must_use]
    pub fn as_i128(&self) -> Option<i128> {
        match self.n {
            N::PosInt(v) => Some(v.into()),
            N::NegInt(v) => Some(v.into()),
            N::Float(_) => None,
        }
    }

    /// The value as `u128` if it is held as a non-negative integer.
    #[must_use]
    pub fn as_u128(&self) -> Option<u128> {
        self.as_u64().map(u128::from)
    }

    /// A number from an `i128`; `None` beyond the 64-bit integers (TOON's `Value` holds
    /// integers exactly only there; [`Recording`](crate::Recording) keeps any digits).
    ///
    /// ```
    /// assert_eq!(toon::Number::from_i128(-5).unwrap().as_i64(), Some(-5));
    /// assert!(toon::Number::from_i128(1 << 70).is_none());
    /// ```
    #[must_use]
    pub fn from_i128(v: i128) -> Option<Number> {
        if let Ok(u) = u64::try_from(v) {
            Some(Number::from(u))
        } else {
            i64::try_from(v).ok().map(Number::from)
        }
    }

    /// A number from a `u128`; `None` beyond `u64::MAX`.
    #[must_use]
    pub fn from_u128(v: u128) -> Option<Number> {
        u64::try_from(v).ok().map(Number::from)
    }

    /// The integer this number equals, floats with no fraction included: what equality
    /// compares by.
    fn integral(&self) -> Option<i128> {
        match self.n {
            N::Float(f) if f.fract() == 0.0 && f.abs() < 1.7e38 => Some(f as i128),
            _ => self.as_i128(),
        }
    }
}

/// Parses a number as TOON writes one (§4: `12`, `-1.5`, `1e-7`, `1E+3`), as the decoder
/// reads an unquoted token; anything else, and a number beyond `f64`'s range, is an error.
///
/// ```
/// let n: toon::Number = "-1.5e3".parse().unwrap();
/// assert_eq!(n.as_f64(), Some(-1500.0));
/// assert!("0x10".parse::<toon::Number>().is_err());
/// ```
impl std::str::FromStr for Number {
    type Err = crate::Error;
    fn from_str(s: &str) -> crate::Result<Number> {
        use crate::de::token::{ParsedPrimitive, parse_primitive};
        let invalid = || crate::Error::syntax(format!("invalid number: {s:?}")).at(1, 1, s);
        if s.is_empty() || s.as_bytes()[0] == b' ' || s.as_bytes()[s.len() - 1] == b' ' {
            return Err(invalid());
        }
        match parse_primitive(s).map_err(|_| invalid())? {
            ParsedPrimitive::I64(v) => Ok(Number::from(v)),
            ParsedPrimitive::U64(v) => Ok(Number::from(v)),
            ParsedPrimitive::F64(v) => Number::from_f64(v).ok_or_else(invalid),
            _ => Err(invalid()),
        }
    }
}

impl PartialEq for Number {
    fn eq(&self, other: &Number) -> bool {
        match (self.n, other.n) {
            (N::Float(a), N::Float(b)) => a == b,
            _ => match (self.integral(), other.integral()) {
                (Some(a), Some(b)) => a == b,
                _ => false,
            },
        }
    }
}

impl Eq for Number {}

impl fmt::Display for Number {
    /// Canonical TOON text (§2), the same digits JavaScript prints.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = Vec::new();
        match self.n {
            N::PosInt(v) => crate::canonical::write_uint(&mut out, v),
            N::NegInt(v) => crate::canonical::write_int(&mut out, v),
            N::Float(v) => crate::canonical::write_f64(&mut out, v),
        }
        f.write_str(std::str::from_utf8(&out).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Number({self})")
    }
}

macro_rules! from_unsigned {
    ($($t:ty),*) => {$(
        impl From<$t> for Number {
            fn from(v: $t) -> Number {
                Number { n: N::PosInt(v as u64) }
            }
        }
    )*};
}
macro_rules! from_signed {
    ($($t:ty),*) => {$(
        impl From<$t> for Number {
            fn from(v: $t) -> Number {
                let v = v as i64;
                Number { n: if v < 0 { N::NegInt(v) } else { N::PosInt(v as u64) } }
            }
        }
    )*};
}
from_unsigned!(u8, u16, u32, u64, usize);
from_signed!(i8, i16, i32, i64, isize);

impl Serialize for Number {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.n {
            N::PosInt(v) => s.serialize_u64(v),
            N::NegInt(v) => s.serialize_i64(v),
            N::Float(v) => s.serialize_f64(v),
        }
    }
}

impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Number, D::Error> {
        match crate::Value::deserialize(d)? {
            crate::Value::Number(n) => Ok(n),
            other => Err(serde::de::Error::custom(format_args!(
                "invalid type: {}, expected a number",
                other.kind()
            ))),
        }
    }
}

impl From<Number> for serde_json::Number {
    fn from(n: Number) -> serde_json::Number {
        match n.n {
            N::PosInt(v) => v.into(),
            N::NegInt(v) => v.into(),
            N::Float(v) => serde_json::Number::from_f64(v).unwrap_or_else(|| 0.into()),
        }
    }
}

impl From<serde_json::Number> for Number {
    fn from(n: serde_json::Number) -> Number {
        if let Some(v) = n.as_u64() {
            Number::from(v)
        } else if let Some(v) = n.as_i64() {
            Number::from(v)
        } else {
            // serde_json numbers are finite.
            Number {
                n: N::Float(n.as_f64().unwrap_or(0.0)),
            }
        }
    }
}
