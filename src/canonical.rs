//! Canonical number text (§2): what JavaScript's `Number.prototype.toString` prints, so that
//! output is byte-identical to the reference encoder.

use std::io::Write as _;

/// Writes a finite or non-finite `f64`; NaN and ±∞ become `null` (§3), `-0` becomes `0` (§2).
pub(crate) fn write_f64(out: &mut Vec<u8>, v: f64) {
    if !v.is_finite() {
        out.extend_from_slice(b"null");
        return;
    }
    if v == 0.0 {
        out.push(b'0');
        return;
    }
    // Integers below 2^53 print as plain digits in JavaScript; the fast path avoids `{:e}`.
    if v.fract() == 0.0 && v.abs() < 9_007_199_254_740_992.0 {
        write_int(out, v as i64);
        return;
    }
    write_shortest(out, v);
}

/// Writes an `f32` using its own shortest representation (`0.1f32` → `0.1`).
pub(crate) fn write_f32(out: &mut Vec<u8>, v: f32) {
    if !v.is_finite() {
        out.extend_from_slice(b"null");
        return;
    }
    if v == 0.0 {
        out.push(b'0');
        return;
    }
    write_shortest(out, v);
}

/// `{:e}` prints the shortest digits that round-trip (for the value's own type), like
/// JavaScript; the layout is then converted without allocating.
fn write_shortest(out: &mut Vec<u8>, v: impl std::fmt::LowerExp) {
    let mut buf = [0u8; 40];
    let len = {
        let mut cursor = std::io::Cursor::new(&mut buf[..]);
        let _ = write!(cursor, "{v:e}");
        cursor.position() as usize
    };
    write_from_exponential(out, &buf[..len]);
}

pub(crate) fn write_int(out: &mut Vec<u8>, v: i64) {
    if v < 0 {
        out.push(b'-');
    }
    write_uint(out, v.unsigned_abs());
}

pub(crate) fn write_uint(out: &mut Vec<u8>, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

/// Rewrites Rust's shortest `{:e}` output (`-1.5e-7`) into JavaScript's layout.
fn write_from_exponential(out: &mut Vec<u8>, text: &[u8]) {
    let (negative, text) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let e_pos = text.iter().position(|&b| b == b'e').unwrap_or(text.len());
    let mantissa = &text[..e_pos];
    let exponent: i32 = std::str::from_utf8(text.get(e_pos + 1..).unwrap_or(b"0"))
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut digits = [0u8; 24];
    let mut k = 0;
    for &b in mantissa {
        if b != b'.' && k < digits.len() {
            digits[k] = b;
            k += 1;
        }
    }
    let digits = &digits[..k];
    let k = k as i32;
    // ECMAScript Number::toString: n is the position of the decimal point.
    let n = exponent + 1;
    if negative {
        out.push(b'-');
    }
    if k <= n && n <= 21 {
        out.extend_from_slice(digits);
        out.extend(std::iter::repeat_n(b'0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        out.extend_from_slice(&digits[..n as usize]);
        out.push(b'.');
        out.extend_from_slice(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.extend_from_slice(b"0.");
        out.extend(std::iter::repeat_n(b'0', (-n) as usize));
        out.extend_from_slice(digits);
    } else {
        out.push(digits[0]);
        if k > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        out.push(b'e');
        out.push(if n - 1 < 0 { b'-' } else { b'+' });
        write_uint(out, u64::from((n - 1).unsigned_abs()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(v: f64) -> String {
        let mut out = Vec::new();
        write_f64(&mut out, v);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn matches_javascript_number_to_string() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "0"),
            (1.0, "1"),
            (1.5, "1.5"),
            (-1.5, "-1.5"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1.5e300, "1.5e+300"),
            (123456789.125, "123456789.125"),
            (9007199254740993.0, "9007199254740992"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (f64::NAN, "null"),
            (f64::INFINITY, "null"),
            (0.000123, "0.000123"),
        ];
        for (v, want) in cases {
            assert_eq!(f(*v), *want, "{v}");
        }
    }

    #[test]
    fn f32_uses_its_own_shortest_digits() {
        let mut out = Vec::new();
        write_f32(&mut out, 0.1f32);
        assert_eq!(out, b"0.1");
    }
}
