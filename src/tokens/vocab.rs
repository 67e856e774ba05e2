//! Which ASCII words are single o200k tokens, by themselves (`face`) and after a space
//! (`" face"`): a Bloom filter built from the vocabulary alone (`examples/token_vocab.rs`), no
//! corpus involved.
//!
//! Without it the estimate knows a word only by its length, so `face` and `fcae` cost the same;
//! with it, a word that is a token weighs what such words weigh after its prefix, and the
//! length model is left to the words that are not (they split into two or more tokens).
//!
//! The filter has 64-bit blocks: a word's hash picks one block, and 4 bits in it for each of its
//! two forms, so a lookup reads one `u64`. It never misses a word it holds and takes about 2%
//! of other words for tokens (`FILTER` states the measured rate).

/// The shipped filter: 16,384 blocks, little-endian. `examples/token_vocab.rs` writes it from
/// tiktoken-rs's o200k_base: 37,837 words that are tokens by themselves and 68,046 after a
/// space; of the 66,663 held in one form only, 2.97% pass as tokens in the other (false
/// positives).
static FILTER: &[u8] = include_bytes!("vocab/filter.bin");

/// A filter's 64-bit blocks: the shipped bytes, or the generator's and tests' words.
trait Blocks {
    fn blocks(&self) -> usize;
    fn block(&self, index: usize) -> u64;
}

impl Blocks for [u64] {
    #[inline]
    fn blocks(&self) -> usize {
        self.len()
    }
    #[inline]
    fn block(&self, index: usize) -> u64 {
        self[index]
    }
}

impl Blocks for [u8] {
    #[inline]
    fn blocks(&self) -> usize {
        self.len() / 8
    }
    #[inline]
    fn block(&self, index: usize) -> u64 {
        let bytes = &self[index * 8..index * 8 + 8];
        u64::from_le_bytes(bytes.try_into().expect("eight bytes"))
    }
}

use super::pretokenize::Case;

/// Longest word the filter holds (o200k has a handful of longer ASCII words).
pub const MAX_CHARS: usize = 16;

/// Rows of `weights::VOCAB_WORD`: class (1 to 3) × case × length.
pub const GROUPS: usize = 3 * 4 * MAX_CHARS;

/// The row of `weights::VOCAB_WORD` for a word of `class` (1 to 3), `case` and `chars` letters
/// (1 to `MAX_CHARS`).
#[inline]
#[must_use]
pub fn group(class: u8, case: Case, chars: usize) -> usize {
    ((usize::from(class.clamp(1, 3)) - 1) * 4 + case as usize) * MAX_CHARS
        + chars.clamp(1, MAX_CHARS)
        - 1
}

/// How a word is written in the vocabulary.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum WordForm {
    /// `face`.
    Bare,
    /// `" face"`.
    Spaced,
}

/// Bit 0: `word` is a single o200k token; bit 1: `" word"` is (up to the filter's false
/// positives). 0 for anything that is not 1 to `MAX_CHARS` ASCII letters.
#[inline]
#[must_use]
pub fn class(word: &[u8]) -> u8 {
    if holdable(word) {
        lookup(FILTER, word)
    } else {
        0
    }
}

/// [`class`] of a word's letters as the pre-tokenizer cuts them (`Script::Ascii`): ASCII
/// letters, perhaps with a contraction (`'s`, `'re`), so only the contraction's apostrophe needs
/// looking for, not every byte (the estimate's hot path).
#[inline]
pub(super) fn class_of_letters(letters: &[u8]) -> u8 {
    let n = letters.len();
    let apostrophe = |back: usize| n >= back && letters[n - back] == b'\'';
    if n == 0 || n > MAX_CHARS || apostrophe(2) || apostrophe(3) {
        return 0;
    }
    debug_assert!(holdable(letters), "{letters:?}");
    lookup(FILTER, letters)
}

/// [`class`] in the filter `filter`.
#[inline]
pub(crate) fn class_in(filter: &[u64], word: &[u8]) -> u8 {
    if holdable(word) {
        lookup(filter, word)
    } else {
        0
    }
}

/// [`class`] of a holdable word in `filter`.
#[inline]
fn lookup<B: Blocks + ?Sized>(filter: &B, word: &[u8]) -> u8 {
    let h = hash(word);
    let block = filter.block(block_index(h, filter.blocks()));
    let has = |form| {
        let mask = mask(h, form);
        block & mask == mask
    };
    u8::from(has(WordForm::Bare)) | u8::from(has(WordForm::Spaced)) << 1
}

/// Adds `word` in `form` to `filter` (a power of two of blocks), for the generator.
///
/// # Panics
///
/// `word` is not 1 to `MAX_CHARS` ASCII letters, or `filter`'s length is not a power of two.
pub fn insert(filter: &mut [u64], word: &[u8], form: WordForm) {
    assert!(holdable(word) && filter.len().is_power_of_two());
    let h = hash(word);
    filter[block_index(h, filter.len())] |= mask(h, form);
}

/// Whether `word` can be in the filter: 1 to `MAX_CHARS` ASCII letters.
#[inline]
#[must_use]
pub fn holdable(word: &[u8]) -> bool {
    (1..=MAX_CHARS).contains(&word.len()) && word.iter().all(u8::is_ascii_alphabetic)
}

/// The block of hash `h` in a filter of `blocks` blocks: its top bits.
#[inline]
fn block_index(h: u64, blocks: usize) -> usize {
    // `blocks` is a power of two; 1 block takes no bits (a shift by 64 would overflow).
    (h.checked_shr(64 - blocks.trailing_zeros()).unwrap_or(0)) as usize
}

/// The 4 bits of `form` in a block: 6 bits of the hash each, from its low 24 bits (bare) or
/// the next 24 (spaced).
#[inline]
fn mask(h: u64, form: WordForm) -> u64 {
    let h = match form {
        WordForm::Bare => h,
        WordForm::Spaced => h >> 24,
    };
    1 << (h & 63) | 1 << (h >> 6 & 63) | 1 << (h >> 12 & 63) | 1 << (h >> 18 & 63)
}

/// A word's 64-bit hash, for 1 to 16 bytes: its bytes in two words, read whole (overlapping
/// when shorter than 16: with the length, they still tell words apart), then multiplied into
/// each other twice, keeping both halves of each product (as wyhash does), so every bit
/// depends on every byte.
#[inline]
fn hash(word: &[u8]) -> u64 {
    let n = word.len();
    let (a, b) = if n >= 8 {
        (load(word, 0), load(word, n - 8))
    } else if n >= 4 {
        (load4(word, 0), load4(word, n - 4))
    } else {
        let (first, mid, last) = (word[0], word[n / 2], word[n - 1]);
        (
            u64::from(first) | u64::from(mid) << 8 | u64::from(last) << 16,
            0,
        )
    };
    let n = n as u64;
    let h = fold(a ^ 0x243F_6A88_85A3_08D3, b ^ 0x1319_8A2E_0370_7344 ^ n);
    fold(h ^ 0xA409_3822_299F_31D0, 0x082E_FA98_EC4E_6C89 ^ n)
}

/// The 8 bytes of `word` from `at`, little-endian.
#[inline]
fn load(word: &[u8], at: usize) -> u64 {
    let mut bytes = [0; 8];
    bytes.copy_from_slice(&word[at..at + 8]);
    u64::from_le_bytes(bytes)
}

/// The 4 bytes of `word` from `at`, little-endian.
#[inline]
fn load4(word: &[u8], at: usize) -> u64 {
    let mut bytes = [0; 4];
    bytes.copy_from_slice(&word[at..at + 4]);
    u64::from(u32::from_le_bytes(bytes))
}

/// Both halves of `x × y`, folded.
#[inline]
fn fold(x: u64, y: u64) -> u64 {
    let product = u128::from(x) * u128::from(y);
    (product as u64) ^ (product >> 64) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filter_holds_what_was_inserted() {
        let mut filter = vec![0u64; 64];
        insert(&mut filter, b"face", WordForm::Bare);
        insert(&mut filter, b"smile", WordForm::Spaced);
        insert(&mut filter, b"Name", WordForm::Bare);
        insert(&mut filter, b"Name", WordForm::Spaced);
        assert_eq!(class_in(&filter, b"face"), 1);
        assert_eq!(class_in(&filter, b"smile"), 2);
        assert_eq!(class_in(&filter, b"Name"), 3);
        assert_eq!(class_in(&filter, b"name"), 0);
        assert_eq!(class_in(&filter, b"fac"), 0);
        // Not letters, or too long: never held.
        assert_eq!(class_in(&filter, b"face's"), 0);
        // The estimate's shortcut for the pre-tokenizer's letters agrees.
        for word in [
            "face",
            "Name",
            "face's",
            "they're",
            "abcdefghijklmnopq",
            "x",
        ] {
            assert_eq!(
                class_of_letters(word.as_bytes()),
                class(word.as_bytes()),
                "{word}"
            );
        }
        assert_eq!(class_in(&filter, b""), 0);
        assert!(!holdable(b"abcdefghijklmnopq"));
        let mut one = [0u64; 1];
        insert(&mut one, b"x", WordForm::Bare);
        assert_eq!(class_in(&one, b"x") & 1, 1);
    }

    #[test]
    fn the_shipped_filter_knows_common_words() {
        // o200k: `face`, `name`, `Name`, `ID` are tokens with and without a space, `tears`
        // only after one.
        for word in ["face", "name", "Name", "ID", "the", "description"] {
            assert_eq!(class(word.as_bytes()), 3, "{word}");
        }
        assert_eq!(class(b"tears"), 2);
        // Random strings of 8 letters are almost never tokens: what the filter takes for one
        // is its false positive rate, about 2% for each form.
        let mut state = 1u64;
        let (mut bare, mut spaced) = (0, 0);
        for _ in 0..10_000 {
            let word: Vec<u8> = (0..8)
                .map(|_| {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1);
                    b'a' + (state >> 33) as u8 % 26
                })
                .collect();
            let class = class(&word);
            bare += usize::from(class & 1);
            spaced += usize::from(class >> 1);
        }
        assert!(bare < 300 && spaced < 300, "{bare} {spaced} of 10000");
    }

    #[cfg(feature = "tiktoken")]
    #[test]
    fn the_shipped_filter_matches_o200k() {
        // Every ASCII word of the vocabulary is held in its form, and few other words are
        // taken for tokens: the o200k words whose other form is not a token.
        let bpe = tiktoken_rs::o200k_base_singleton();
        let (mut others, mut false_positives) = (0, 0);
        for rank in 0..200_000 {
            let Ok(bytes) = bpe.decode_bytes(&[rank]) else {
                continue;
            };
            let (form, word) = match bytes.split_first() {
                Some((b' ', word)) => (2, word),
                _ => (1, &bytes[..]),
            };
            if !holdable(word) {
                continue;
            }
            let held = class(word);
            assert_eq!(held & form, form, "{:?}", String::from_utf8_lossy(&bytes));
            let other = if form == 1 { vec![b' '] } else { Vec::new() };
            let other = [other, word.to_vec()].concat();
            if bpe
                .encode_ordinary(std::str::from_utf8(&other).unwrap())
                .len()
                > 1
            {
                others += 1;
                false_positives += usize::from(held & (3 - form) != 0);
            }
        }
        assert!(others > 10_000);
        assert!(
            false_positives * 100 < others * 4,
            "{false_positives} of {others}"
        );
    }
}
