//! Exact numbers for [`crate::json::transcode`]: a number token with more digits than
//! `u64`/`i64`/`f64` keep (`18446744073709551616`, `0.1000000000000000055511151231257827`,
//! `1.5e-400`) is copied into the JSON with all of them (JSON allows any digits), where
//! decoding reads the nearest `f64`.
//!
//! The transcoder asks for values with `deserialize_newtype_struct(`[`EXACT_NUMBERS`]`)`;
//! the value deserializers (`ValueDe`, `FieldValue`) read that as `deserialize_any`, except
//! that such a token is visited as a newtype around its §2 canonical text. Every other target
//! is untouched: only `deserialize_newtype_struct` compares the name.

use crate::json_text;

/// The private newtype name of "any value, numbers exact" (see the module docs).
pub(crate) const EXACT_NUMBERS: &str = "$toon::private::ExactNumbers";

/// The §2 canonical text of `token` (trimmed) when it is a number (§4) that decoding reads
/// as an `f64` with another decimal value; `None` for every other token. A token beyond the
/// range of `f64` (`1e999`) is a string (as the reference decoder has it), not a number.
pub(crate) fn exact_text(token: &str) -> Option<String> {
    let bytes = token.as_bytes();
    if !matches!(bytes.first(), Some(b'0'..=b'9' | b'-')) || json_text::exact_in_f64(bytes) {
        return None;
    }
    if !token.parse::<f64>().is_ok_and(f64::is_finite) {
        return None;
    }
    json_text::canonical(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_numbers_that_f64_changes_have_exact_text() {
        for (token, want) in [
            ("18446744073709551616", "18446744073709551616"),
            (
                "0.1000000000000000055511151231257827",
                "0.1000000000000000055511151231257827",
            ),
            ("-1e-400", "-1e-400"),
            (
                "1.2345678901234567890123456789e+29",
                "1.2345678901234567890123456789e+29",
            ),
        ] {
            assert_eq!(exact_text(token).as_deref(), Some(want), "{token}");
        }
        for kept in [
            "1",
            "-0",
            "1.5",
            "1e+21",
            "18446744073709551615",
            "1e400",
            "x",
            "05",
            "",
        ] {
            assert_eq!(exact_text(kept), None, "{kept}");
        }
    }
}
