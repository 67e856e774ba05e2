//! Canonical number text (§2): what JavaScript's `Number.prototype.toString` prints, so that
//! output is byte-identical to the reference encoder.

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
    let magnitude = v.abs();
    if magnitude < 9_007_199_254_740_992.0 {
        // Integers below 2^53 print as plain digits in JavaScript (the cast is exact there,
        // and cheaper than `fract`, a libm call on baseline x86-64).
        let int = v as i64;
        if int as f64 == v {
            write_int(out, int);
            return;
        }
        // zmij writes a fraction whose leading digit lies at 10^-5 ..= 10^15 in plain
        // notation, as JavaScript does; below 10^15 rounding to the shortest digits cannot
        // carry past that, and a value that is no integer never prints as one (the integer
        // would be another double). Its text is then already JavaScript's.
        if (1e-5..1e15).contains(&magnitude) {
            out.extend_from_slice(zmij::Buffer::new().format_finite(v).as_bytes());
            return;
        }
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

/// zmij prints the shortest digits that round-trip (for the value's own type) and, among
/// those, the closest — the digits JavaScript chooses; only the layout differs.
fn write_shortest(out: &mut Vec<u8>, v: impl zmij::Float) {
    let mut buf = zmij::Buffer::new();
    let text = buf.format_finite(v).as_bytes();
    // Plain decimals with a fraction (`1117.83`, `-0.25`) are already JavaScript's layout;
    // zmij writes those only where JavaScript does too (no exponent below 1e16 or above 1e-5).
    if !text.contains(&b'e') && !text.ends_with(b".0") {
        out.extend_from_slice(text);
        return;
    }
    write_js_layout(out, text);
}

pub(crate) fn write_int(out: &mut Vec<u8>, v: i64) {
    out.extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
}

pub(crate) fn write_uint(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
}

/// Rewrites a decimal numeral (`-1.5e-7`, `1117.83`, `0.001`, `1e21`) into JavaScript's
/// `Number::toString` layout.
fn write_js_layout(out: &mut Vec<u8>, text: &[u8]) {
    let (negative, text) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let e_pos = text
        .iter()
        .position(|&b| b == b'e' || b == b'E')
        .unwrap_or(text.len());
    let exponent = parse_exponent(text.get(e_pos + 1..).unwrap_or(b""));
    // Significant digits, and n: where the decimal point sits relative to them.
    let mut digits = [0u8; 40];
    let mut k = 0usize;
    let mut n = 0i32;
    let mut seen_point = false;
    for &b in &text[..e_pos] {
        match b {
            b'.' => seen_point = true,
            b'0' if k == 0 => {
                if seen_point {
                    n -= 1;
                }
            }
            _ if k < digits.len() => {
                digits[k] = b;
                k += 1;
                if !seen_point {
                    n += 1;
                }
            }
            _ => {
                if !seen_point {
                    n += 1;
                }
            }
        }
    }
    while k > 1 && digits[k - 1] == b'0' {
        k -= 1;
    }
    if k == 0 {
        out.push(b'0');
        return;
    }
    write_decimal(
        out,
        negative,
        &digits[..k],
        i64::from(n) + i64::from(exponent),
    );
}

/// Writes the number `±0.d₁d₂…dₖ × 10ⁿ` in JavaScript's `Number::toString` layout (§2):
/// plain digits when 1e-6 ≤ |v| < 1e21, otherwise one digit, the rest after a point, and an
/// exponent with its sign (`1.5e+300`, `1e-7`). `digits` are ASCII, without leading or
/// trailing zeros; none is zero. The digits are written as given, all of them: an `f64`'s
/// shortest digits and a decimal token's exact ones alike.
pub(crate) fn write_decimal(out: &mut Vec<u8>, negative: bool, digits: &[u8], n: i64) {
    let Some(&first) = digits.first() else {
        out.push(b'0');
        return;
    };
    let k = digits.len() as i64;
    if negative {
        out.push(b'-');
    }
    // ECMAScript Number::toString, steps for k digits with the point after position n.
    if k <= n && n <= 21 {
        out.extend_from_slice(digits);
        out.extend(std::iter::repeat_n(b'0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        out.extend_from_slice(&digits[..n as usize]);
        out.push(b'.');
        out.extend_from_slice(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.extend_from_slice(b"0.");
        out.extend(std::iter::repeat_n(b'0', n.unsigned_abs() as usize));
        out.extend_from_slice(digits);
    } else {
        out.push(first);
        if k > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        out.push(b'e');
        out.push(if n - 1 < 0 { b'-' } else { b'+' });
        write_uint(out, (n - 1).unsigned_abs());
    }
}

fn parse_exponent(text: &[u8]) -> i32 {
    let (sign, digits) = match text.split_first() {
        Some((b'-', rest)) => (-1, rest),
        Some((b'+', rest)) => (1, rest),
        _ => (1, text),
    };
    let magnitude = digits
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .fold(0i32, |acc, &b| {
            acc.saturating_mul(10).saturating_add(i32::from(b - b'0'))
        });
    sign * magnitude
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
            // 2245608537584936.25 lies exactly between two shortest candidates: even wins.
            (f64::from_bits(0x431f_e979_ecbf_d4a1), "2245608537584936.2"),
            (f64::NAN, "null"),
            (f64::INFINITY, "null"),
            (0.000123, "0.000123"),
            // The edges of zmij's plain notation (10^-5 ..= 10^15 leading digits).
            (1e-5, "0.00001"),
            (1.25e-5, "0.0000125"),
            (9.5e-6, "0.0000095"),
            (999999999999999.9, "999999999999999.9"),
            (1e15 + 0.5, "1000000000000000.5"),
            (-123456789012345.67, "-123456789012345.67"),
            (4503599627370495.5, "4503599627370495.5"),
        ];
        for (v, want) in cases {
            assert_eq!(f(*v), *want, "{v}");
        }
    }

    /// The digits of Rust's `{:e}` (shortest, closest) in JavaScript's layout: an independent
    /// oracle for the zmij path over many bit patterns, every exponent range included.
    fn oracle(v: f64) -> String {
        let text = format!("{v:e}");
        let mut out = Vec::new();
        write_js_layout(&mut out, text.as_bytes());
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn zmij_digits_agree_with_core_fmt() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..300_000u64 {
            crate::test_rng::next(&mut state);
            let v = match i % 3 {
                0 => f64::from_bits(state),
                1 => (state >> 11) as f64 / (1u64 << (state % 60)) as f64,
                _ => ((state % 100_000_000) as f64) / 100.0,
            };
            if !v.is_finite() || v == 0.0 || (v.fract() == 0.0 && v.abs() < 9e15) {
                continue;
            }
            let (ours, theirs) = (f(v), oracle(v));
            if ours != theirs {
                // An exact tie between two shortest candidates: ECMAScript picks the even
                // one; core::fmt does not always (see the ...936.25 case above).
                let last = ours.bytes().last().unwrap();
                assert!(
                    ours.len() == theirs.len() && last % 2 == 0,
                    "{ours} vs {theirs}"
                );
                assert_eq!(ours.parse::<f64>().unwrap(), v);
            }
            let single = f32::from_bits(state as u32);
            if single.is_finite() && single != 0.0 {
                // f32 has exact ties between two shortest candidates (312985.125 → .12 or
                // .13); either is correct, so check round-trip and length instead of bytes.
                let mut out = Vec::new();
                write_f32(&mut out, single);
                let mut expect = Vec::new();
                write_js_layout(&mut expect, format!("{single:e}").as_bytes());
                let text = String::from_utf8(out).unwrap();
                assert_eq!(text.parse::<f32>().unwrap(), single, "{text}");
                assert_eq!(text.len(), expect.len(), "f32 bits {:#x}", single.to_bits());
            }
        }
    }

    #[test]
    fn layout_of_plain_decimals() {
        let layout = |t: &str| {
            let mut out = Vec::new();
            write_js_layout(&mut out, t.as_bytes());
            String::from_utf8(out).unwrap()
        };
        assert_eq!(layout("1117.83"), "1117.83");
        assert_eq!(layout("0.00123"), "0.00123");
        assert_eq!(layout("0.000000123"), "1.23e-7");
        assert_eq!(layout("1e21"), "1e+21");
        assert_eq!(layout("1.0e20"), "100000000000000000000");
        assert_eq!(layout("-2.50"), "-2.5");
        assert_eq!(layout("120.0"), "120");
    }

    #[test]
    fn f32_uses_its_own_shortest_digits() {
        let mut out = Vec::new();
        write_f32(&mut out, 0.1f32);
        assert_eq!(out, b"0.1");
    }
}
