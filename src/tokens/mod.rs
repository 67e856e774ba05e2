//! Token counts: a fast vocabulary-free [`estimate`], exact counts behind the `tiktoken`
//! feature (`count`), the JSON-vs-TOON comparison the CLI's `--stats` prints ([`compare`]),
//! and a token budget limiter ([`fit`]).
//!
//! ```
//! let n = toon::tokens::estimate("users[2]{id,name}:\n  1,Alice\n  2,Bob");
//! assert!(n > 5 && n < 30);
//! ```

use serde::Serialize;

use crate::error::Result;
use crate::value::Value;

mod pretokenize;
mod vocab;
mod weights;

use pretokenize::{Letters, Piece, PieceKind, Pieces, Script};

/// Estimates the number of o200k_base tokens (GPT-4o, GPT-5) in `text`, without the vocabulary
/// (only a 128 KiB filter of its ASCII words).
///
/// The text is cut exactly as o200k's pre-tokenizer cuts it (BPE never merges across those
/// cuts), and each piece is weighted by what pieces of its kind cost on average: a word whose
/// letters are an o200k token by themselves or after a space (`face`, `" Name"`: the filter
/// says) by what such words cost after the character it took before it (`" face"` is one
/// token, `",face"` usually two); another word by its length, script and case, plus what that
/// character adds (it often merges into the letters' tokens); digits, punctuation, newlines and
/// indentation by their text when it is a common one (`"\":\""`, `"},{\""`), by their length
/// otherwise. The weights are fitted on real-world JSON and TOON (`examples/token_fit.rs`);
/// accuracy and the held-out figures are in `docs/tokens.md`. Linear time, no allocation.
///
/// ```
/// assert_eq!(toon::tokens::estimate(""), 0);
/// assert_eq!(toon::tokens::estimate("{\"a\":[1]}"), 5);
/// assert_eq!(toon::tokens::estimate("users[2]{id,name}:\n  1,Alice\n  2,Bob"), 19);
/// ```
#[must_use]
pub fn estimate(text: &str) -> usize {
    let units: i64 = Pieces::new(text).map(|piece| weight(&piece)).sum();
    usize::try_from((units + weights::UNIT / 2) / weights::UNIT).unwrap_or(0)
}

/// A piece's weight in `weights::UNIT`ths of a token.
#[inline]
fn weight(piece: &Piece<'_>) -> i64 {
    use weights::{
        DIGITS, NEWLINE_BY_CHARS, PREFIX, PUNCT_BY_CHARS, PUNCT_WIDE_CHAR, SPACE_BY_CHARS,
        VOCAB_WORD, WORD,
    };
    if let Some(key) = text_key(piece.text)
        && let Some(weight) = common_text(key)
    {
        return i64::from(weight);
    }
    match piece.kind {
        PieceKind::Word { prefix, letters } => {
            if letters.script == Script::Ascii {
                // The letters: the piece after its prefix's character.
                let first =
                    prefix.map_or(0, |_| piece.text.chars().next().map_or(0, char::len_utf8));
                let class = vocab::class_of_letters(&piece.text.as_bytes()[first..]);
                if class != 0 {
                    // A word that is a token (`face`, `" face"`): what such words weigh after
                    // this prefix.
                    let slot = prefix.map_or(0, |p| p.index() + 1);
                    let group = vocab::group(class, letters.case, letters.chars);
                    return i64::from(VOCAB_WORD[slot][group]);
                }
            }
            let g = letters.group();
            let word = beyond(WORD[g], letters.chars, Letters::MAX_CHARS);
            word + prefix.map_or(0, |p| i64::from(PREFIX[p.index()][g]))
        }
        PieceKind::Digits => i64::from(DIGITS[piece.text.chars().count().clamp(1, 3) - 1]),
        PieceKind::Punct if piece.text.is_ascii() => by_length(&PUNCT_BY_CHARS, piece.text.len()),
        PieceKind::Punct => {
            // Emoji and other non-ASCII symbols cost by their width in bytes (byte-level
            // BPE), and split the ASCII around them into runs that merge apart.
            let mut weight = 0;
            for run in piece.text.split(|c: char| !c.is_ascii()) {
                if !run.is_empty() {
                    weight += ascii_punct(run);
                }
            }
            for c in piece.text.chars().filter(|c| !c.is_ascii()) {
                weight += i64::from(PUNCT_WIDE_CHAR[c.len_utf8() - 2]);
            }
            weight
        }
        PieceKind::Newline => by_length(&NEWLINE_BY_CHARS, piece.text.chars().count()),
        PieceKind::Space => by_length(&SPACE_BY_CHARS, piece.text.chars().count()),
    }
}

/// The weight of a run of ASCII punctuation between non-ASCII symbols: what the run weighs as
/// a piece of its own (`"\":\""` beside an emoji merges as it does beside a letter).
#[inline]
fn ascii_punct(run: &str) -> i64 {
    text_key(run)
        .and_then(common_text)
        .map_or_else(|| by_length(&weights::PUNCT_BY_CHARS, run.len()), i64::from)
}

/// The weight of `chars` characters in a table by length (characters − 1), extrapolated
/// beyond its end.
#[inline]
fn by_length(table: &[i32], chars: usize) -> i64 {
    beyond(table[chars.clamp(1, table.len()) - 1], chars, table.len())
}

/// A length table's last entry, `weight` for `max` characters, scaled to `chars` beyond it.
#[inline]
fn beyond(weight: i32, chars: usize, max: usize) -> i64 {
    let weight = i64::from(weight);
    if chars <= max {
        weight
    } else {
        weight * chars as i64 / max as i64
    }
}

/// The key of a short piece in `weights::TEXTS`: its bytes and length in one integer, for
/// pieces of at most 7 bytes.
#[inline]
fn text_key(text: &str) -> Option<u64> {
    let bytes = text.as_bytes();
    if bytes.len() > 7 {
        return None;
    }
    let mut key = (bytes.len() as u64) << 56;
    for (i, &b) in bytes.iter().enumerate() {
        key |= u64::from(b) << (8 * i);
    }
    Some(key)
}

/// Slots of the open-addressing table of `weights::TEXTS` (at most half full).
const SLOTS: usize = 8192;
const _: () = assert!(weights::TEXTS.len() <= SLOTS / 2);

/// `weights::TEXTS` by key, built at compile time; key 0 (no text has it) marks a free slot.
static COMMON_TEXTS: [(u64, i32); SLOTS] = {
    let mut table = [(0u64, 0i32); SLOTS];
    let mut i = 0;
    while i < weights::TEXTS.len() {
        let (key, weight) = weights::TEXTS[i];
        let mut slot = slot(key);
        while table[slot].0 != 0 {
            slot = (slot + 1) % SLOTS;
        }
        table[slot] = (key, weight);
        i += 1;
    }
    table
};

#[inline]
const fn slot(key: u64) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SLOTS.trailing_zeros())) as usize
}

/// The weight of a common short text, by its key.
#[inline]
fn common_text(key: u64) -> Option<i32> {
    let mut slot = slot(key);
    loop {
        let (k, weight) = COMMON_TEXTS[slot];
        if k == key {
            return Some(weight);
        }
        if k == 0 {
            return None;
        }
        slot = (slot + 1) % SLOTS;
    }
}

/// The pre-tokenizer and table keys, for `examples/token_fit.rs`, which fits the weights.
#[doc(hidden)]
pub mod __private {
    pub use super::pretokenize::{Case, Letters, Piece, PieceKind, Pieces, Prefix, Script};

    /// The vocabulary filter (`vocab`), for `examples/token_vocab.rs`.
    pub mod vocab {
        pub use super::super::vocab::{
            GROUPS, MAX_CHARS, WordForm, class, group, holdable, insert,
        };

        /// See `vocab::class_in`.
        #[must_use]
        pub fn class_in(filter: &[u64], word: &[u8]) -> u8 {
            super::super::vocab::class_in(filter, word)
        }
    }

    /// zz
    #[must_use]
    pub fn weight(p: &Piece<'_>) -> i64 {
        super::weight(p)
    }

    /// See `text_key`.
    #[must_use]
    pub fn text_key(text: &str) -> Option<u64> {
        super::text_key(text)
    }
}

/// The tokens `text` costs when choosing between renderings of one value: the exact o200k
/// count with the `tiktoken` feature, [`estimate`] otherwise.
///
/// ```
/// assert!(toon::tokens::cost("a:\n  b:\n    c: 1") > 5);
/// ```
#[must_use]
pub fn cost(text: &str) -> usize {
    #[cfg(feature = "tiktoken")]
    {
        count(text, Encoding::O200kBase)
    }
    #[cfg(not(feature = "tiktoken"))]
    {
        estimate(text)
    }
}

/// Texts up to this long are estimated whole by [`estimate_costs`]; longer ones from a sample.
pub(crate) const SAMPLE_ABOVE: usize = 256 * 1024;
/// The sample: this many slices, evenly spread, of `SAMPLE_SLICE` bytes each.
const SAMPLE_SLICES: usize = 32;
const SAMPLE_SLICE: usize = 4 * 1024;
/// Two cheapest estimates within this fraction of each other are a close call.
const CLOSE: f64 = 0.03;

/// Estimated tokens of several renderings of one value, as precise as choosing the cheapest
/// needs, in the order given.
///
/// A text up to 256 KiB is estimated whole ([`estimate`]). A longer one is estimated from 32
/// evenly spread slices of 4 KiB, scaled to its length: a rendering's tokens per byte hardly
/// change along it, and the sample costs the same however long the text. When the two cheapest
/// estimates are within 3% of each other, a close call, both are estimated whole. This is what
/// `auto` decides by in builds without the `tiktoken` feature.
///
/// ```
/// let json = r#"{"rows":[{"id":1,"name":"a"},{"id":2,"name":"b"},{"id":3,"name":"c"}]}"#;
/// let toon = "rows[3]{id,name}:\n  1,a\n  2,b\n  3,c";
/// let costs = toon::tokens::estimate_costs(&[json, toon]);
/// assert!(costs[1] < costs[0]);
/// ```
#[must_use]
pub fn estimate_costs(texts: &[&str]) -> Vec<usize> {
    let mut costs: Vec<usize> = texts.iter().map(|t| estimate_sampled(t)).collect();
    let mut order: Vec<usize> = (0..texts.len()).collect();
    order.sort_by_key(|&i| costs[i]);
    if let [cheapest, next, ..] = order[..]
        && close(costs[cheapest], costs[next])
    {
        for i in [cheapest, next] {
            if texts[i].len() > SAMPLE_ABOVE {
                costs[i] = estimate(texts[i]);
            }
        }
    }
    costs
}

/// Whether two sampled estimates are too near each other to choose by: `cheaper` ≤ `dearer`.
pub(crate) fn close(cheaper: usize, dearer: usize) -> bool {
    (dearer - cheaper) as f64 <= CLOSE * dearer as f64
}

/// [`estimate`] of a text up to `SAMPLE_ABOVE` bytes; of a longer one, the estimate of its
/// sample scaled to its length.
fn estimate_sampled(text: &str) -> usize {
    if text.len() <= SAMPLE_ABOVE {
        return estimate(text);
    }
    let stride = text.len() / SAMPLE_SLICES;
    let (mut tokens, mut bytes) = (0usize, 0usize);
    for k in 0..SAMPLE_SLICES {
        let start = char_boundary(text, k * stride);
        let end = char_boundary(text, start + SAMPLE_SLICE);
        tokens += estimate(&text[start..end]);
        bytes += end - start;
    }
    (tokens as f64 * text.len() as f64 / bytes.max(1) as f64).round() as usize
}

/// The first char boundary of `text` at or after `at`.
fn char_boundary(text: &str, at: usize) -> usize {
    (at..text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len())
}

/// The tokens of several renderings of one value, in the order given, as
/// [`table::auto`](crate::table::auto) chooses between them: exact o200k counts ([`cost`] of
/// each) with the `tiktoken` feature, [`estimate_costs`] otherwise (long texts estimated from
/// a sample, as precise as choosing the cheapest needs).
///
/// ```
/// let json = r#"{"rows":[{"id":1,"name":"a"},{"id":2,"name":"b"},{"id":3,"name":"c"}]}"#;
/// let toon = "rows[3]{id,name}:\n  1,a\n  2,b\n  3,c";
/// let costs = toon::tokens::costs(&[json, toon]);
/// assert_eq!(costs.len(), 2);
/// assert!(costs[1] < costs[0]);
/// ```
#[must_use]
pub fn costs(texts: &[&str]) -> Vec<usize> {
    #[cfg(feature = "tiktoken")]
    {
        texts.iter().map(|t| cost(t)).collect()
    }
    #[cfg(not(feature = "tiktoken"))]
    {
        estimate_costs(texts)
    }
}

/// A tokenizer vocabulary for [`count`].
///
/// ```
/// # #[cfg(feature = "tiktoken")] {
/// use toon::tokens::{count, Encoding};
/// assert!(count("[2]{id,name}:", Encoding::O200kBase) <= count("[2]{id,name}:", Encoding::Cl100kBase) + 2);
/// # }
/// ```
#[cfg(feature = "tiktoken")]
#[cfg_attr(docsrs, doc(cfg(feature = "tiktoken")))]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// GPT-4o, GPT-4.1, GPT-5, o-series.
    O200kBase,
    /// GPT-4, GPT-3.5-turbo.
    Cl100kBase,
}

/// Counts the exact tokens of `text` under `encoding` (feature `tiktoken`; vocabularies are
/// built in, no network access).
///
/// ```
/// # #[cfg(feature = "tiktoken")] {
/// use toon::tokens::{count, Encoding};
/// assert_eq!(count("hello world", Encoding::O200kBase), 2);
/// # }
/// ```
#[cfg(feature = "tiktoken")]
#[cfg_attr(docsrs, doc(cfg(feature = "tiktoken")))]
#[must_use]
pub fn count(text: &str, encoding: Encoding) -> usize {
    let bpe = match encoding {
        Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
    };
    bpe.encode_ordinary(text).len()
}

/// Size of one rendering in [`Savings`].
///
/// ```
/// let s = toon::tokens::compare(&toon::toon!({"a": 1})).unwrap();
/// assert_eq!((s.toon.bytes, s.compact_json.bytes), (4, 7));
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Size {
    /// Estimated tokens ([`estimate`]).
    pub tokens: usize,
    /// UTF-8 bytes.
    pub bytes: usize,
}

/// What TOON saves against JSON for one value: see [`compare`].
///
/// ```
/// let rows: Vec<_> = (0..20).map(|i| toon::toon!({"id": i, "ok": true})).collect();
/// let s = toon::tokens::compare(&rows).unwrap();
/// assert!(s.vs_compact_json() > 30.0, "{s:?}");
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Savings {
    /// JSON with 2-space indentation.
    pub pretty_json: Size,
    /// JSON without whitespace.
    pub compact_json: Size,
    /// TOON with default options.
    pub toon: Size,
}

impl Savings {
    /// Tokens TOON saves against pretty JSON, in percent (negative when it costs more).
    #[must_use]
    pub fn vs_pretty_json(&self) -> f64 {
        percent_saved(self.pretty_json.tokens, self.toon.tokens)
    }

    /// Tokens TOON saves against compact JSON, in percent (negative when it costs more).
    #[must_use]
    pub fn vs_compact_json(&self) -> f64 {
        percent_saved(self.compact_json.tokens, self.toon.tokens)
    }
}

fn percent_saved(base: usize, toon: usize) -> f64 {
    if base == 0 {
        0.0
    } else {
        (base as f64 - toon as f64) / base as f64 * 100.0
    }
}

/// Sizes of `value` as pretty JSON, compact JSON and TOON.
///
/// ```
/// let v = toon::toon!({"rows": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]});
/// let s = toon::tokens::compare(&v).unwrap();
/// assert!(s.toon.tokens < s.compact_json.tokens);
/// assert!(s.vs_pretty_json() > 0.0);
/// ```
///
/// # Errors
///
/// `value`'s `Serialize` implementation fails, or it is not representable as JSON (a map key
/// that is not a string, number or boolean).
pub fn compare<T: ?Sized + Serialize>(value: &T) -> Result<Savings> {
    let size = |text: &str| Size {
        tokens: estimate(text),
        bytes: text.len(),
    };
    let pretty =
        crate::json::to_string_pretty(value, 2).map_err(|e| crate::Error::data(e.to_string()))?;
    let compact = crate::json::to_string(value).map_err(|e| crate::Error::data(e.to_string()))?;
    let toon = crate::to_string(value)?;
    Ok(Savings {
        pretty_json: size(&pretty),
        compact_json: size(&compact),
        toon: size(&toon),
    })
}

/// One cut [`fit`] made, at a JSON-Pointer-like path (`/orders/3/items`).
///
/// ```
/// use toon::tokens::{fit, Cut};
/// let v = toon::toon!({"rows": (0..100).map(|i| toon::toon!({"id": i})).collect::<Vec<_>>()});
/// let fitted = fit(&v, 40).unwrap();
/// assert!(matches!(&fitted.cuts[0], Cut::Rows { path, total: 100, .. } if path == "/rows"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cut {
    /// An array kept only its first `kept` of `total` elements.
    Rows {
        /// Where the array is.
        path: String,
        /// Elements kept (the first ones).
        kept: usize,
        /// Elements it had.
        total: usize,
    },
    /// A string was shortened to `kept` of its `total` characters (an ellipsis marks it).
    Text {
        /// Where the string is.
        path: String,
        /// Characters kept.
        kept: usize,
        /// Characters it had.
        total: usize,
    },
}

/// The result of [`fit`]: the value that fits, its TOON text, and what was cut.
///
/// ```
/// let v = toon::toon!({"note": "word ".repeat(200), "n": 1});
/// let fitted = toon::tokens::fit(&v, 30).unwrap();
/// assert!(fitted.tokens <= 30 && fitted.toon == toon::to_string(&fitted.value).unwrap());
/// assert!(fitted.note().unwrap().contains("/note"));
/// ```
#[derive(Clone, Debug)]
pub struct Fitted {
    /// The reduced value.
    pub value: Value,
    /// Its TOON encoding (default options).
    pub toon: String,
    /// Estimated tokens of `toon`.
    pub tokens: usize,
    /// Every cut made; empty when the value fit as it was.
    pub cuts: Vec<Cut>,
}

/// Cuts a [`Fitted::note`] names one by one; the rest are counted.
const NOTED: usize = 12;

impl Fitted {
    /// A one-line summary of the cuts for a prompt (`/users: first 20 of 500 rows; …`), or
    /// `None` when nothing was cut. It names the first 12 cuts and counts the rest.
    #[must_use]
    pub fn note(&self) -> Option<String> {
        if self.cuts.is_empty() {
            return None;
        }
        let mut parts: Vec<String> = self
            .cuts
            .iter()
            .take(NOTED)
            .map(|cut| match cut {
                Cut::Rows { path, kept, total } => format!("{path}: first {kept} of {total} rows"),
                Cut::Text { path, kept, total } => format!("{path}: {kept} of {total} chars"),
            })
            .collect();
        if self.cuts.len() > NOTED {
            parts.push(format!("{} more cuts", self.cuts.len() - NOTED));
        }
        Some(format!("elided: {}", parts.join("; ")))
    }
}

/// Shrinks `value` until its TOON encoding is estimated at no more than `max_tokens`.
///
/// Arrays are cut first, largest first (by encoded size), keeping their first rows (every
/// array keeps at least one element); then strings longer than 32 characters are shortened
/// to a common length, the longest ones first, each with a trailing `…`. Both steps keep as
/// much as fits. The result is a normal value, so it stays valid TOON; [`Fitted::cuts`] says
/// what was removed so a caller can tell the model. If even the smallest form is over budget,
/// that smallest form is returned (check [`Fitted::tokens`]).
///
/// Each step is a binary search over how much of a fixed plan to apply, measuring the whole
/// text each time: O(n log n) in the size of the value.
///
/// ```
/// let rows: Vec<_> = (0..1000).map(|i| toon::toon!({"id": i, "name": "user"})).collect();
/// let fitted = toon::tokens::fit(&toon::toon!({"users": rows}), 200).unwrap();
/// assert!(fitted.tokens <= 200);
/// assert!(matches!(&fitted.cuts[0], toon::tokens::Cut::Rows { total: 1000, .. }));
/// assert!(fitted.toon.starts_with("users["));
/// ```
///
/// # Errors
///
/// As [`compare`].
pub fn fit<T: ?Sized + Serialize>(value: &T, max_tokens: usize) -> Result<Fitted> {
    let value = crate::to_value(value)?;
    let text = crate::to_string(&value)?;
    let tokens = estimate(&text);
    if tokens <= max_tokens {
        return Ok(Fitted {
            value,
            toon: text,
            tokens,
            cuts: Vec::new(),
        });
    }
    let arrays = Arrays::of(&value);
    let (value, mut cuts) = smallest_fitting(arrays.units(), max_tokens, |m| {
        let mut cut = value.clone();
        let cuts = arrays.apply(&mut cut, m);
        Ok((cut, cuts))
    })?
    .0;
    let strings = long_strings(&value, 32);
    let longest = strings.iter().map(|&(_, n)| n).max().unwrap_or(0);
    // Cutting to length `keep` for keep = longest - step: step 0 changes nothing.
    let ((value, texts), text, tokens) =
        smallest_fitting(longest.saturating_sub(SHORTEST), max_tokens, |step| {
            let mut cut = value.clone();
            let keep = longest - step;
            let mut texts = Vec::new();
            for (path, chars) in &strings {
                if *chars > keep
                    && let Some(Value::String(s)) = cut.pointer_mut(path)
                {
                    let mut short: String = s.chars().take(keep).collect();
                    short.push('…');
                    *s = short;
                    texts.push(Cut::Text {
                        path: path.clone(),
                        kept: keep,
                        total: *chars,
                    });
                }
            }
            Ok((cut, texts))
        })?;
    cuts.extend(texts);
    Ok(Fitted {
        value,
        toon: text,
        tokens,
        cuts,
    })
}

/// Strings are never cut below this many characters.
const SHORTEST: usize = 16;

/// The least step `m` in `0..=most` whose result `make(m)` encodes within `max_tokens`, by
/// binary search (more steps never cost more tokens); `most` when none fits. Returns the
/// result with its text and estimated tokens.
fn smallest_fitting<R>(
    most: usize,
    max_tokens: usize,
    make: impl Fn(usize) -> Result<(Value, R)>,
) -> Result<((Value, R), String, usize)> {
    let measure = |m: usize| -> Result<((Value, R), String, usize)> {
        let made = make(m)?;
        let text = crate::to_string(&made.0)?;
        let tokens = estimate(&text);
        Ok((made, text, tokens))
    };
    let mut best = measure(most)?;
    if best.2 > max_tokens {
        return Ok(best);
    }
    let (mut lo, mut hi) = (0, most); // make(hi) fits; make(lo) is not known to
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let tried = measure(mid)?;
        if tried.2 <= max_tokens {
            hi = mid;
            best = tried;
        } else {
            lo = mid + 1;
        }
    }
    Ok(best)
}

/// The arrays of a value that can lose elements, largest first: the plan [`fit`] cuts by.
/// Step `m` of the plan drops the last `m` droppable elements in that order (every array
/// keeps its first element), so more steps never cost more.
struct Arrays {
    /// Path and length, largest encoded size first.
    all: Vec<(String, usize)>,
}

impl Arrays {
    fn of(value: &Value) -> Self {
        let mut found = Vec::new();
        sizes(value, &mut String::new(), &mut found);
        found.sort_by_key(|array| std::cmp::Reverse(array.2));
        Arrays {
            all: found
                .into_iter()
                .map(|(path, len, _)| (path, len))
                .collect(),
        }
    }

    /// Steps in the whole plan.
    fn units(&self) -> usize {
        self.all.iter().map(|(_, len)| len - 1).sum()
    }

    /// Applies the first `m` steps to `value`. An array inside an element already dropped is
    /// gone and is neither cut nor reported.
    fn apply(&self, value: &mut Value, mut m: usize) -> Vec<Cut> {
        let mut cuts = Vec::new();
        for (path, len) in &self.all {
            if m == 0 {
                break;
            }
            let drop = m.min(len - 1);
            m -= drop;
            if let Some(Value::Array(items)) = value.pointer_mut(path) {
                items.truncate(len - drop);
                cuts.push(Cut::Rows {
                    path: path.clone(),
                    kept: len - drop,
                    total: *len,
                });
            }
        }
        cuts
    }
}

/// Compact-JSON size of `v` (a proxy for its encoded size); records every array of two or
/// more elements with its path, length and size.
fn sizes(v: &Value, path: &mut String, found: &mut Vec<(String, usize, usize)>) -> usize {
    let child = |path: &mut String, seg: &str, v: &Value, found: &mut Vec<_>| {
        let len = path.len();
        path.push('/');
        path.push_str(seg);
        let size = sizes(v, path, found);
        path.truncate(len);
        size
    };
    match v {
        Value::Array(items) => {
            let mut size = 2;
            for (i, item) in items.iter().enumerate() {
                size += child(path, &i.to_string(), item, found) + 1;
            }
            if items.len() > 1 {
                found.push((path.clone(), items.len(), size));
            }
            size
        }
        Value::Object(map) => {
            let mut size = 2;
            for (k, v) in map {
                size += k.len() + 3 + child(path, &escape_token(k), v, found);
            }
            size
        }
        Value::String(s) => s.len() + 2,
        _ => 4,
    }
}

fn escape_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The array of two or more elements with the most encoded bytes (its compact JSON size, as a
/// proxy), as a JSON Pointer (RFC 6901; `""` is `value` itself) with its length: the array
/// [`fit`] cuts first, and the one `toon::mcp` pages. `None` when there is no such array.
///
/// ```
/// let v = toon::toon!({"tags": ["a", "b"], "page": {"rows": [{"id": 1}, {"id": 2}, {"id": 3}]}});
/// assert_eq!(toon::tokens::largest_array(&v), Some(("/page/rows".to_owned(), 3)));
/// assert_eq!(toon::tokens::largest_array(&toon::toon!([1])), None);
/// ```
#[must_use]
pub fn largest_array(value: &Value) -> Option<(String, usize)> {
    let mut found = Vec::new();
    sizes(value, &mut String::new(), &mut found);
    let mut best: Option<(String, usize, usize)> = None;
    for array in found {
        if best.as_ref().is_none_or(|b| array.2 > b.2) {
            best = Some(array);
        }
    }
    best.map(|(path, len, _)| (path, len))
}

/// Every string of more than `min` characters: its path and length in characters.
fn long_strings(value: &Value, min: usize) -> Vec<(String, usize)> {
    fn walk(v: &Value, path: &mut String, min: usize, found: &mut Vec<(String, usize)>) {
        let mut visit = |path: &mut String, seg: &str, child: &Value| {
            let len = path.len();
            path.push('/');
            path.push_str(seg);
            walk(child, path, min, found);
            path.truncate(len);
        };
        match v {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    visit(path, &i.to_string(), item);
                }
            }
            Value::Object(map) => {
                for (k, child) in map {
                    visit(path, &escape_token(k), child);
                }
            }
            Value::String(s) => {
                let n = s.chars().count();
                if n > min {
                    found.push((path.clone(), n));
                }
            }
            _ => {}
        }
    }
    let mut found = Vec::new();
    walk(value, &mut String::new(), min, &mut found);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_texts_cost_what_o200k_says() {
        // Exact o200k counts (tiktoken) of each text.
        for (text, exact) in [
            ("", 0),
            ("1234567", 3),
            ("{\"a\":[1]}", 5),
            ("a:\n  b: 1", 7),
            ("a:\n  b:\n    c: 1", 10),
            ("héllo", 2),
            ("users[2]{id,name}:\n  1,Alice\n  2,Bob", 19),
        ] {
            assert_eq!(estimate(text), exact, "{text:?}");
        }
        // Words the vocabulary has (the filter in `vocab`) cost what such words cost after
        // their prefix: `face` and `" tears"` are tokens, `tears` is not, and a comma before a
        // word that is a token stays a token of its own.
        for (text, exact) in [
            ("hello world", 2),
            ("face with big eyes", 4),
            ("face", 1),
            (",face", 2),
            ("tears", 2),
            (",tears", 3),
        ] {
            assert_eq!(estimate(text), exact, "{text:?}");
        }
        // Other words by length, script and case: `日本語` is 2 tokens.
        assert_eq!(estimate("日本語"), 3);
    }

    #[test]
    fn fit_keeps_small_values_whole() {
        let v = crate::toon!({"a": 1, "b": [1, 2, 3]});
        let fitted = fit(&v, 1000).unwrap();
        assert!(fitted.cuts.is_empty());
        assert_eq!(fitted.value, v);
        assert_eq!(fitted.note(), None);
    }

    #[test]
    fn fit_cuts_rows_then_text_and_reports_it() {
        let rows: Vec<Value> = (0..300)
            .map(|i| crate::toon!({"id": i, "bio": "lorem ipsum dolor sit amet ".repeat(4)}))
            .collect();
        let v = crate::toon!({"users": rows, "tags": [1, 2]});
        let fitted = fit(&v, 120).unwrap();
        assert!(fitted.tokens <= 120, "{}", fitted.tokens);
        assert_eq!(estimate(&fitted.toon), fitted.tokens);
        let back: Value = crate::from_str(&fitted.toon).unwrap();
        assert_eq!(back, fitted.value);
        match &fitted.cuts[0] {
            Cut::Rows { path, kept, total } => {
                assert_eq!(path, "/users");
                assert_eq!(*total, 300);
                assert_eq!(fitted.value["users"].as_array().unwrap().len(), *kept);
            }
            other => panic!("{other:?}"),
        }
        assert!(fitted.note().unwrap().starts_with("elided: /users: first"));
    }

    #[test]
    fn fit_shortens_long_strings_when_rows_are_not_enough() {
        let v = crate::toon!({"doc": "word ".repeat(400)});
        let fitted = fit(&v, 60).unwrap();
        assert!(fitted.tokens <= 60);
        assert!(matches!(&fitted.cuts[0], Cut::Text { path, total: 2000, .. } if path == "/doc"));
        assert!(fitted.value["doc"].as_str().unwrap().ends_with('…'));
    }
}
