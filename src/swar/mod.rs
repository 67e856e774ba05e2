//! Word-at-a-time byte tests (SWAR, "SIMD within a register"), shared by the decoder, the
//! quoting rules and the JSON text scans: eight bytes loaded into a `u64` (or sixteen as one
//! lane the compiler vectorizes) and tested at once, so that a search over a short span has no
//! branch that depends on where in the span the byte lies. Each test agrees with a byte loop
//! (the tests below, and in [`digits`]).
//!
//! - Byte search: [`byte_matches`], [`find_any`], [`find_either`], [`find_newline`].
//! - Indentation (§12): [`leading_spaces`], [`all_spaces`].
//! - Lanes of 16 bytes: [`clean_lanes`], and [`short_lane`] for a shorter text, for the
//!   quoting tests of §7.
//! - Numbers of up to eight bytes (§4): [`digits`].

pub(crate) mod digits;

/// The byte 1 eight times (`u64::MAX / 255`).
const LO: u64 = 0x0101_0101_0101_0101;
/// The high bit of each of eight bytes.
const HI: u64 = 0x8080_8080_8080_8080;

/// The first position at or after `from` holding `a` or `b`, eight bytes at a time (SWAR):
/// for the short spans between cells a word loop beats a vector search's set-up.
#[inline]
pub(crate) fn find_either(bytes: &[u8], from: usize, a: u8, b: u8) -> Option<usize> {
    find_any(bytes, from, [a, b, b])
}

/// The bytes of `word` equal to `byte`, flagged by their high bit (SWAR): a zero byte in
/// `word ^ fill` is a match. The lowest flagged byte is always exact (the first match, at
/// `trailing_zeros / 8`); those above it may not be.
#[inline(always)]
pub(crate) fn byte_matches(word: u64, byte: u8) -> u64 {
    unmasked_matches(word, LO * u64::from(byte)) & HI
}

/// [`byte_matches`] against `fill` (a byte repeated eight times) before the final mask,
/// which a search for several bytes applies once.
#[inline(always)]
fn unmasked_matches(word: u64, fill: u64) -> u64 {
    let x = word ^ fill;
    x.wrapping_sub(LO) & !x
}

/// The first position at or after `from` holding one of `needles`, eight bytes at a time
/// ([`byte_matches`] for each).
#[inline(always)]
pub(crate) fn find_any<const N: usize>(
    bytes: &[u8],
    from: usize,
    needles: [u8; N],
) -> Option<usize> {
    let fills = needles.map(|n| LO * u64::from(n));
    let mut at = from;
    while let Some(chunk) = bytes.get(at..).and_then(<[u8]>::first_chunk::<8>) {
        let word = u64::from_le_bytes(*chunk);
        let hits = fills
            .iter()
            .fold(0, |hits, &fill| hits | unmasked_matches(word, fill))
            & HI;
        if hits != 0 {
            return Some(at + hits.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    bytes
        .get(at..)?
        .iter()
        .position(|c| needles.contains(c))
        .map(|i| at + i)
}

/// How many of the first `n` bytes of `bytes` are spaces before any other byte: one word
/// for the common indentations of up to eight bytes.
#[inline]
pub(crate) fn leading_spaces(bytes: &[u8], n: usize) -> usize {
    match bytes.first_chunk::<8>() {
        Some(word) if n <= 8 => {
            let differ = u64::from_le_bytes(*word) ^ SPACES;
            (differ.trailing_zeros() as usize / 8).min(n)
        }
        _ => leading_spaces_deep(bytes, n),
    }
}

/// [`leading_spaces`] past one word: two words at once for up to sixteen bytes (four to
/// eight levels of two spaces, which schemas and configuration reach), then a word at a
/// time. Out of line, so that the one-word test stays small where it is inlined.
#[cold]
#[inline(never)]
fn leading_spaces_deep(bytes: &[u8], n: usize) -> usize {
    if n <= 16
        && let Some(pair) = bytes.first_chunk::<16>()
    {
        let differ = u128::from_le_bytes(*pair) ^ SPACES_16;
        return (differ.trailing_zeros() as usize / 8).min(n);
    }
    let mut at = 0;
    while let Some(word) = bytes.get(at..).and_then(<[u8]>::first_chunk::<8>) {
        let differ = u64::from_le_bytes(*word) ^ SPACES;
        if differ != 0 || at + 8 >= n {
            return (at + differ.trailing_zeros() as usize / 8).min(n);
        }
        at += 8;
    }
    at + bytes[at..]
        .iter()
        .take(n - at)
        .take_while(|&&b| b == b' ')
        .count()
}

/// Whether the first `n` bytes of `bytes` (which holds more than `n`) are spaces: one word
/// compare for the common indentations of up to eight bytes.
#[inline]
pub(crate) fn all_spaces(bytes: &[u8], n: usize) -> bool {
    match bytes.first_chunk::<8>() {
        Some(word) if n <= 8 => {
            let mask = u64::MAX.checked_shr(64 - 8 * n as u32).unwrap_or(0);
            (u64::from_le_bytes(*word) ^ SPACES) & mask == 0
        }
        // Deep indentation: counted as `leading_spaces` counts it.
        _ => leading_spaces_deep(bytes, n) == n,
    }
}

/// Eight spaces, the word an indentation is compared with.
const SPACES: u64 = u64::from_le_bytes([b' '; 8]);

/// Sixteen spaces, for indentations of nine to sixteen bytes.
const SPACES_16: u128 = u128::from_le_bytes([b' '; 16]);

/// The first `\n` at or after `from`, or the text's end. Most values after a key are short:
/// two words are searched eight bytes at a time (SWAR) before a vector search, whose set-up
/// costs more than the whole of a short line.
#[inline]
pub(crate) fn find_newline(bytes: &[u8], from: usize) -> usize {
    let mut at = from;
    for _ in 0..2 {
        let Some(chunk) = bytes.get(at..).and_then(<[u8]>::first_chunk::<8>) else {
            break;
        };
        let hits = byte_matches(u64::from_le_bytes(*chunk), b'\n');
        if hits != 0 {
            return at + hits.trailing_zeros() as usize / 8;
        }
        at += 8;
    }
    memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |n| at + n)
}

/// Bytes [`clean_lanes`] checks at once: one SSE2 register.
pub(crate) const LANES: usize = 16;

/// How far from `from` the bytes of `bytes` (at least [`LANES`] long) are known to be
/// free of what `lane_hit` looks for, testing a lane of 16 bytes at a time: the end of
/// `bytes`, or the start of the first lane that holds such a byte, for the caller's own byte
/// by byte search. The last lane overlaps the one before it; its bytes before `at` were
/// tested already.
#[inline(always)]
pub(crate) fn clean_lanes(
    bytes: &[u8],
    from: usize,
    lane_hit: impl Fn(&[u8; LANES]) -> bool,
) -> usize {
    let mut at = from;
    while let Some(lane) = bytes.get(at..).and_then(<[u8]>::first_chunk::<LANES>) {
        if lane_hit(lane) {
            return at;
        }
        at += LANES;
    }
    match bytes.last_chunk::<LANES>() {
        Some(lane) if at < bytes.len() && lane_hit(lane) => at,
        _ => bytes.len(),
    }
}

/// A text of 4 to 15 bytes as one lane, for a test that asks whether any of its bytes is of
/// some kind, in place of a byte loop: its first and last eight bytes (four below eight),
/// which overlap, and `pad` in the rest. The lane holds every byte of `bytes` and no other
/// byte but `pad`. `None` for fewer than four bytes.
#[inline(always)]
pub(crate) fn short_lane(bytes: &[u8], pad: u8) -> Option<[u8; LANES]> {
    let mut lane = [pad; LANES];
    let (head, tail) = lane.split_at_mut(8);
    if let (Some(first), Some(last)) = (bytes.first_chunk::<8>(), bytes.last_chunk::<8>()) {
        head.copy_from_slice(first);
        tail.copy_from_slice(last);
    } else if let (Some(first), Some(last)) = (bytes.first_chunk::<4>(), bytes.last_chunk::<4>()) {
        head[..4].copy_from_slice(first);
        head[4..].copy_from_slice(last);
    } else {
        return None;
    }
    Some(lane)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A short text's lane holds its bytes and the pad only, and each of its bytes.
    #[test]
    fn short_lanes_hold_every_byte_and_only_those() {
        let text: Vec<u8> = (1..=15).collect();
        for len in 0..16 {
            let bytes = &text[..len];
            match short_lane(bytes, 0) {
                None => assert!(len < 4),
                Some(lane) => {
                    assert!(len >= 4);
                    assert!(lane.iter().all(|b| *b == 0 || bytes.contains(b)), "{len}");
                    assert!(bytes.iter().all(|b| lane.contains(b)), "{len}");
                }
            }
        }
    }

    /// The two word-at-a-time indentation tests against byte loops.
    #[test]
    fn indentation_is_counted_and_compared_as_byte_loops_do() {
        let texts = [
            "",
            " ",
            "  x",
            "        ",
            "          ",
            "   \t      ",
            "x         ",
            "            a",
        ];
        // Deep indentation: runs of spaces past one and two words, ended anywhere.
        let deep: Vec<String> = (0..40)
            .flat_map(|spaces| {
                [
                    " ".repeat(spaces),
                    format!("{}x{}", " ".repeat(spaces), " ".repeat(spaces % 9)),
                    format!("{}\t  ", " ".repeat(spaces)),
                ]
            })
            .collect();
        for text in texts.iter().copied().chain(deep.iter().map(String::as_str)) {
            let bytes = text.as_bytes();
            for n in 0..=text.len() + 1 {
                let spaces = bytes.iter().take(n).take_while(|&&b| b == b' ').count();
                assert_eq!(leading_spaces(bytes, n), spaces, "{text:?} {n}");
                if n < text.len() {
                    assert_eq!(all_spaces(bytes, n), spaces == n, "{text:?} {n}");
                }
            }
        }
    }

    #[test]
    fn word_search_finds_the_first_of_two_bytes() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            crate::test_rng::next(&mut state);
            let len = (state % 40) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|i| [b'a', b',', b'"', 0x80, 0xff, 0x00][((state >> (i % 60)) % 6) as usize])
                .collect();
            let from = (state >> 3) as usize % (len + 1);
            let expected = bytes[from..]
                .iter()
                .position(|&c| c == b',' || c == b'"')
                .map(|i| from + i);
            assert_eq!(
                find_either(&bytes, from, b',', b'"'),
                expected,
                "{bytes:?} {from}"
            );
            let expected = bytes[from..]
                .iter()
                .position(|&c| c == b',' || c == b'"' || c == 0xff)
                .map(|i| from + i);
            let found = find_any(&bytes, from, [b',', b'"', 0xff]);
            assert_eq!(found, expected, "{bytes:?} {from}");
        }
    }
}
