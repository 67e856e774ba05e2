//! Short numbers read a word at a time (§4 numbers in the typed hints for floats): the
//! digits of a number of up to eight bytes are loaded into one `u64`, checked and converted
//! with a few multiplications, so that no branch depends on how many digits there are or
//! where the dot is. The loops this replaces mispredicted their exits when the lengths in a
//! column vary, as prices and ratios do. Integers keep their loop (`de::token::parse_integer`):
//! for them the word measured slower.

use super::byte_matches;

/// Eight ASCII zeros.
const ZEROS: u64 = 0x3030_3030_3030_3030;

/// `bytes` (one to eight) as the last bytes of a word, led by ASCII zeros: the first byte
/// lands at byte `8 - len`, the last at byte 7 (little-endian order, so the word reads as
/// the number's text padded on the left). Two overlapping loads, or three single bytes for
/// one to three, and no loop.
#[inline(always)]
fn right_aligned(bytes: &[u8]) -> u64 {
    let len = bytes.len();
    debug_assert!((1..=8).contains(&len));
    let pad = 8 * (8 - len) as u32;
    let word = if len >= 4 {
        let first = u64::from(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]));
        let l = len - 4;
        let last = u64::from(u32::from_le_bytes([
            bytes[l],
            bytes[l + 1],
            bytes[l + 2],
            bytes[l + 3],
        ]));
        // The two loads overlap when len < 8; overlapping bytes are the same bytes.
        (last << 32) | (first << pad)
    } else {
        let at = |i: usize| u64::from(bytes[i]) << (pad + 8 * i as u32);
        at(0) | at(len / 2) | at(len - 1)
    };
    // `pad` is at most 56: the shift cannot overflow.
    word | (ZEROS & ((1u64 << pad) - 1))
}

/// Whether every byte of `word` is an ASCII digit. Adding 6 carries a digit's low nibble
/// into its high one only above `9`; a byte whose high nibble is not 3 fails the first half.
#[inline(always)]
fn all_digits(word: u64) -> bool {
    const HIGH: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    (word & HIGH) | ((word.wrapping_add(0x0606_0606_0606_0606) & HIGH) >> 4)
        == 0x3333_3333_3333_3333
}

/// The value of eight ASCII digits, the first in the lowest byte: pairs, then fours, then
/// the whole, each step one multiply-add of neighbouring lanes.
#[inline(always)]
fn value_of(word: u64) -> u64 {
    const MASK: u64 = 0x0000_00FF_0000_00FF;
    const MUL1: u64 = 100 + (1_000_000 << 32);
    const MUL2: u64 = 1 + (10_000 << 32);
    let v = word - ZEROS;
    let v = v.wrapping_mul(10).wrapping_add(v >> 8);
    (v & MASK)
        .wrapping_mul(MUL1)
        .wrapping_add(((v >> 16) & MASK).wrapping_mul(MUL2))
        >> 32
}

/// A number of one to eight bytes with no sign, read a word at a time: the value of its
/// digits, and how many of them follow its dot (none for an integer).
#[derive(Debug, PartialEq)]
pub(crate) struct Short {
    pub(crate) digits: u64,
    pub(crate) fraction: usize,
}

/// `body` as an integer (`digits`) or a decimal `int.frac` with both parts non-empty (§4),
/// when it is one to eight bytes long; `None` for anything else, other lengths and a
/// leading zero before more integer digits included.
#[inline(always)]
pub(crate) fn short_number(body: &[u8]) -> Option<Short> {
    let len = body.len();
    if !(1..=8).contains(&len) {
        return None;
    }
    aligned_number(right_aligned(body), len)
}

/// A number that is the first `len` bytes (one to seven) of `word`, eight bytes of the
/// input loaded as they lie (the value's line ends within them): whether it has a `-`,
/// and the word its body makes as [`right_aligned`] makes it, with the body's length. The
/// word is shifted into place, not loaded again.
#[inline(always)]
pub(crate) fn signed_in_word(word: u64, len: usize) -> Option<(bool, u64, usize)> {
    debug_assert!((1..8).contains(&len));
    let negative = word as u8 == b'-';
    let body = len - usize::from(negative);
    if body == 0 {
        return None;
    }
    let pad = 8 * (8 - body) as u32;
    // `body` ≥ 1: the shifts stay under 64.
    let aligned = ((word >> (8 * u32::from(negative))) << pad) | (ZEROS & ((1u64 << pad) - 1));
    Some((negative, aligned, body))
}

/// A right-aligned body of `len` bytes ([`right_aligned`]) as an integer.
#[inline(always)]
fn aligned_integer(word: u64, len: usize) -> Option<u64> {
    let first = (word >> (8 * (8 - len))) as u8;
    if len > 1 && first == b'0' {
        return None;
    }
    all_digits(word).then(|| value_of(word))
}

/// A right-aligned body of `len` bytes ([`right_aligned`]) as an integer or a decimal, as
/// [`short_number`] reads it.
#[inline(always)]
pub(crate) fn aligned_number(word: u64, len: usize) -> Option<Short> {
    let dots = byte_matches(word, b'.');
    if dots == 0 {
        return aligned_integer(word, len).map(|digits| Short {
            digits,
            fraction: 0,
        });
    }
    // The lowest flagged byte is exact (`byte_matches`).
    let dot = dots.trailing_zeros() as usize / 8;
    let first = 8 - len;
    let (int_len, fraction) = (dot - first, 7 - dot);
    if int_len == 0 || fraction == 0 || (int_len > 1 && (word >> (8 * first)) as u8 == b'0') {
        return None;
    }
    // The bytes below the dot move up into its place; byte 0 becomes a zero. `dot` < 7.
    let below = (1u64 << (8 * dot)) - 1;
    let digits = ((word & below) << 8) | (word & !((below << 8) | 0xFF)) | 0x30;
    all_digits(digits).then(|| Short {
        digits: value_of(digits),
        fraction,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The digit loops [`short_number`] replaces.
    fn by_loop(body: &[u8]) -> Option<Short> {
        let value = |bytes: &[u8]| {
            bytes.iter().try_fold(0u64, |v, &b| {
                b.is_ascii_digit().then(|| v * 10 + u64::from(b - b'0'))
            })
        };
        let (int, frac) = match body.iter().position(|&b| b == b'.') {
            Some(dot) => (&body[..dot], &body[dot + 1..]),
            None => (body, &[][..]),
        };
        let decimal = int.len() < body.len();
        if int.is_empty() || (decimal && frac.is_empty()) || (int.len() > 1 && int[0] == b'0') {
            return None;
        }
        Some(Short {
            digits: value(int)? * 10u64.pow(frac.len() as u32) + value(frac)?,
            fraction: frac.len(),
        })
    }

    /// Every byte string of up to ten bytes drawn from digits, dots and their neighbours
    /// reads as the digit loops read it; outside one to eight bytes, as nothing (the
    /// callers' loops take those).
    #[test]
    fn words_read_as_the_digit_loops_read() {
        const BYTES: &[u8] = b"0123456789./:-e \xff";
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..300_000 {
            let len = (crate::test_rng::next(&mut state) % 11) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    let pick = crate::test_rng::next(&mut state) as usize;
                    // Mostly digits, so that long valid runs are common.
                    if pick.is_multiple_of(4) {
                        BYTES[pick / 4 % BYTES.len()]
                    } else {
                        b'0' + (pick / 4 % 10) as u8
                    }
                })
                .collect();
            let expected = (1..=8).contains(&len).then(|| by_loop(&bytes)).flatten();
            assert_eq!(short_number(&bytes), expected, "{bytes:?}");
            // The same bytes, signed or not, as the start of a word of input.
            if (1..8).contains(&len) {
                let negative = bytes[0] == b'-';
                let mut word = [b'\n'; 8];
                word[..len].copy_from_slice(&bytes);
                let body = &bytes[usize::from(negative)..];
                let expected =
                    (!body.is_empty()).then(|| (negative, right_aligned(body), body.len()));
                let in_word = signed_in_word(u64::from_le_bytes(word), len);
                assert_eq!(in_word, expected, "{bytes:?}");
            }
        }
        let read = |body: &[u8]| short_number(body).map(|s| (s.digits, s.fraction));
        assert_eq!(read(b"99999999"), Some((99_999_999, 0)));
        assert_eq!(read(b"7"), Some((7, 0)));
        assert_eq!(read(b"0"), Some((0, 0)));
        assert_eq!(read(b"3959.77"), Some((395_977, 2)));
        assert_eq!(read(b"0.000001"), Some((1, 6)));
        for refused in [
            &b""[..],
            b"123456789",
            b"1234.56789",
            b"9999999.",
            b".9999999",
            b"01.5",
            b"007",
            b"1.2.3",
            b"1.",
        ] {
            assert_eq!(short_number(refused), None, "{refused:?}");
        }
    }
}
