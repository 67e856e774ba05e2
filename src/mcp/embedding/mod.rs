//! Static sentence embeddings for tool discovery (feature `mcp-semantic`): a text's vector is
//! the normalised mean of its WordPiece tokens' rows in a table distilled from
//! all-MiniLM-L6-v2 (`scripts/distill-embeddings.py`, model2vec's method; attribution in
//! `NOTICE.md` beside this file), then fitted to the model's sentence embeddings of 8,192
//! software descriptions and requests (`scripts/gather-embedding-corpus.py`: Debian package
//! synopses, man page NAME lines, Python docstrings) and 33,344 tool descriptions and requests
//! from everyday domains (`scripts/gather-tool-corpus.py`: Seal-Tools, BFCL, ToolAlpaca), none
//! of the retrieval sets (`scripts/tokenlearn-embeddings.py`: ridge regression toward the
//! distilled rows). The software texts (then 24,576 of them) lifted the table alone on the fit
//! halves of the four retrieval sets from R@5 metatool 0.533 to 0.653; the tool texts lift the
//! fused search's metatool R@5 from 0.748 to 0.765. No runtime, no download: the table is
//! compiled in, read once on first use, and a query costs microseconds.
//!
//! Why 128 int8 dimensions (`scripts/eval-embeddings.py`, recall@5 azure / metatool, tool text
//! "name: description"): 64 dims 0.861 / 0.424, 128 dims 0.916 / 0.526, 256 dims 0.932 / 0.581
//! (7.5 MB), int8 within 0.005 of f16 at each; the full model scores 0.979 / 0.773. Alone the
//! table is weaker than the lexical search; added to it (BM25 over the query's best BM25, plus
//! 2-4 x cosine) it lifts `Catalog::search` from 0.920 / 0.601 to 0.968 / 0.66-0.67.
//!
//! What fusion with the lexical ranking needs: [`embed`] a tool's text once when the index is
//! built (its name with `_`/camel case split, then its description, both without stop words
//! and punctuation: `search/semantic.rs`), the query once per search (its content words too),
//! and [`cosine`] between them.

mod wordpiece;

use std::collections::HashMap;
use std::ops::Range;
use std::sync::LazyLock;

/// The distilled table; its format is written by `scripts/distill-embeddings.py`.
static MODEL_BYTES: &[u8] = include_bytes!("model.bin");
const MAGIC: &[u8; 8] = b"TOONEMB1";
/// How many int8 rows an i16 sum holds: |-128| × 255 is the largest that fits.
const I16_ROWS: usize = 255;
/// How many dimensions' sums are kept at once: 64 i16 are 8 of SSE2's 16 registers, so they
/// stay in them while a text's rows are added (summed in memory, each row cost twice as many
/// instructions).
const BLOCK: usize = 64;

/// Only the first this many tokens of a text count: a query is a few dozen, a tool's
/// description a few hundred, and an 18 kB paste should cost no more than a long description.
pub(crate) const MAX_TOKENS: usize = 512;

static MODEL: LazyLock<Option<Model>> = LazyLock::new(|| Model::parse(MODEL_BYTES));

struct Model {
    dims: usize,
    /// Row-major int8 values, `dims` per token, borrowed from the compiled-in bytes.
    vectors: &'static [u8],
    ids: HashMap<&'static str, u32, foldhash::fast::FixedState>,
    /// The byte length of the longest token, `##` left out.
    longest: usize,
}

impl Model {
    /// Reads the header, the newline-separated vocabulary and the int8 rows; None when the
    /// file is malformed (then every text simply has no embedding).
    fn parse(bytes: &'static [u8]) -> Option<Self> {
        let rest = bytes.strip_prefix(MAGIC)?;
        let u32_at = |at: usize| -> Option<usize> {
            let b: [u8; 4] = rest.get(at..at + 4)?.try_into().ok()?;
            usize::try_from(u32::from_le_bytes(b)).ok()
        };
        let (count, dims, vocab_len) = (u32_at(0)?, u32_at(4)?, u32_at(12)?);
        // Bytes 8..12 are the f32 scale: one for the whole table, so it cancels out of a
        // normalised mean and is not needed here.
        let vocab = std::str::from_utf8(rest.get(16..16 + vocab_len)?).ok()?;
        let vectors = rest.get(16 + vocab_len..)?;
        if dims == 0 || vectors.len() != count.checked_mul(dims)? {
            return None;
        }
        let mut ids =
            HashMap::with_capacity_and_hasher(count, foldhash::fast::FixedState::default());
        let mut longest = None;
        for (i, token) in lines(vocab).enumerate() {
            ids.insert(token, u32::try_from(i).ok()?);
            // `trim_start_matches("##")` without its substring searcher, built per token (half
            // of the table's load).
            let mut bare = token;
            while let Some(rest) = bare.strip_prefix("##") {
                bare = rest;
            }
            longest = longest.max(Some(bare.len()));
        }
        let longest = longest?;
        (ids.len() == count).then_some(Model {
            dims,
            vectors,
            ids,
            longest,
        })
    }

    /// The ids of the text's first `limit` known WordPiece tokens; `cut` appends a word's.
    fn token_ids(
        &self,
        text: &str,
        limit: usize,
        mut cut: impl FnMut(&str, &mut Vec<u32>),
    ) -> Vec<u32> {
        let mut ids = Vec::new();
        wordpiece::words(text, |word| {
            cut(word, &mut ids);
            ids.len() < limit
        });
        ids.truncate(limit);
        ids
    }

    /// Appends the WordPiece token ids of `word` to `out` (none when a piece is unknown).
    fn cut(&self, word: &str, out: &mut Vec<u32>) {
        let lookup = |piece: &str| self.ids.get(piece).copied();
        wordpiece::pieces(word, self.longest, lookup, out);
    }

    fn embed(&self, text: &str) -> Option<Vec<f32>> {
        self.vector(&self.token_ids(text, MAX_TOKENS, |word, ids| self.cut(word, ids)))
    }

    /// Adds to `sum` dimensions `from..from + BLOCK` of the rows of `ids` (at most `I16_ROWS`).
    fn add_block(&self, ids: &[u32], from: usize, sum: &mut [i32]) {
        let mut part = [0i16; BLOCK];
        for &id in ids {
            let start = id as usize * self.dims + from;
            let Some(row) = self.vectors[start..].first_chunk::<BLOCK>() else {
                continue;
            };
            for (acc, &v) in part.iter_mut().zip(row) {
                *acc += i16::from(v as i8);
            }
        }
        sum.iter_mut()
            .zip(part)
            .for_each(|(s, p)| *s += i32::from(p));
    }

    /// [`add_block`](Self::add_block) for the last dimensions, fewer than `BLOCK`.
    fn add_tail(&self, ids: &[u32], from: usize, sum: &mut [i32]) {
        let mut part = vec![0i16; sum.len()];
        for &id in ids {
            let start = id as usize * self.dims + from;
            for (acc, &v) in part.iter_mut().zip(&self.vectors[start..start + sum.len()]) {
                *acc += i16::from(v as i8);
            }
        }
        sum.iter_mut()
            .zip(part)
            .for_each(|(s, p)| *s += i32::from(p));
    }

    /// The normalised sum of the rows of `ids`; None for no ids or a zero sum.
    fn vector(&self, ids: &[u32]) -> Option<Vec<f32>> {
        if ids.is_empty() {
            return None;
        }
        // Integer sums are exact, so the vector does not depend on the order of addition.
        // Rows are added in i16 (twice the lanes of i32), `I16_ROWS` at a time, which cannot
        // overflow (255 × 128 < 32,768), then widened; `BLOCK` dimensions at a time, whose
        // sums stay in registers while all the rows are added.
        let mut sum = vec![0i32; self.dims];
        for chunk in ids.chunks(I16_ROWS) {
            let mut from = 0;
            while from + BLOCK <= self.dims {
                self.add_block(chunk, from, &mut sum[from..from + BLOCK]);
                from += BLOCK;
            }
            if from < self.dims {
                self.add_tail(chunk, from, &mut sum[from..]);
            }
        }
        let norm = sum
            .iter()
            .map(|&v| (v as f64) * (v as f64))
            .sum::<f64>()
            .sqrt();
        if norm == 0.0 {
            return None;
        }
        Some(sum.iter().map(|&v| (v as f64 / norm) as f32).collect())
    }
}

/// `text.split_terminator('\n')`, its newlines found by memchr's SIMD search (the
/// character searcher cost more than the rest of the table's load).
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    let ends = memchr::memchr_iter(b'\n', text.as_bytes()).chain([text.len()]);
    ends.filter_map(move |end| {
        let line = (start < end || end < text.len()).then(|| &text[start..end]);
        start = end + 1;
        line
    })
}

/// Only the first this many tokens of a tool's text count: its name and first sentences say
/// what it is for (recall on the retrieval sets is the same as with 512; the index is faster).
const DOC_TOKENS: usize = 128;

/// Embeds many texts (a catalog's tools), cutting each distinct word (as written) into
/// WordPiece tokens once: a catalog repeats its words, and the cutting is most of an
/// embedding's cost. A text
/// may be given in pieces ([`push`](Self::push)), read only as far as its first `DOC_TOKENS`
/// tokens.
#[derive(Default)]
pub(crate) struct Embedder {
    /// Per distinct text of at most 16 bytes (nearly all: they are words), where its token
    /// ids are in `tokens`; keyed by integers ([`short_key`]), which hash and compare as
    /// integers: no string hashing, no call to `memcmp`.
    short: HashMap<(u64, u64, usize), Range<usize>, foldhash::fast::FixedState>,
    /// The same for longer texts.
    long: HashMap<String, Range<usize>, foldhash::fast::FixedState>,
    tokens: Vec<u32>,
    /// The token ids of the text being embedded.
    ids: Vec<u32>,
}

/// A text of at most 16 bytes as `Embedder::short`'s key: its length and two integers that
/// together hold every byte (read as foldhash reads a short string: overlapping loads, no
/// copy), so distinct texts have distinct keys.
fn short_key(text: &str) -> Option<(u64, u64, usize)> {
    let b = text.as_bytes();
    let n = b.len();
    let word = |bytes: Option<&[u8; 8]>| bytes.map_or(0, |b| u64::from_le_bytes(*b));
    let half = |bytes: Option<&[u8; 4]>| bytes.map_or(0, |b| u64::from(u32::from_le_bytes(*b)));
    let pair = match n {
        0 => (0, 0),
        1..=3 => (
            u64::from(b[0]) | u64::from(b[n / 2]) << 8,
            u64::from(b[n - 1]),
        ),
        4..=7 => (half(b.first_chunk()), half(b.last_chunk())),
        8..=16 => (word(b.first_chunk()), word(b.last_chunk())),
        _ => return None,
    };
    Some((pair.0, pair.1, n))
}

impl Embedder {
    /// Adds `text` to the text being embedded, as if it followed a space; false once that
    /// text has its `DOC_TOKENS` tokens (more would not count). A catalog's texts come as
    /// words, most of them seen before: each distinct one is tokenised once.
    pub(crate) fn push(&mut self, text: &str) -> bool {
        let Some(model) = MODEL.as_ref() else {
            return false;
        };
        if self.ids.len() >= DOC_TOKENS {
            return false;
        }
        let key = short_key(text);
        let known = match key {
            Some(key) => self.short.get(&key),
            None => self.long.get(text),
        };
        let range = match known {
            Some(range) => range.clone(),
            None => {
                // All of the text's tokens, though only some may count: `finish` cuts the
                // ids at `DOC_TOKENS`, so the vector is the same.
                let start = self.tokens.len();
                wordpiece::words(text, |word| {
                    model.cut(word, &mut self.tokens);
                    true
                });
                let range = start..self.tokens.len();
                match key {
                    Some(key) => self.short.insert(key, range.clone()),
                    None => self.long.insert(text.to_owned(), range.clone()),
                };
                range
            }
        };
        match self.tokens[range] {
            // Most words are one token: no copy of a slice (a call to `memcpy`) for it.
            [id] => self.ids.push(id),
            ref ids => self.ids.extend_from_slice(ids),
        }
        self.ids.len() < DOC_TOKENS
    }

    /// The embedding of the text pushed since the last call (its first `DOC_TOKENS` tokens),
    /// and a fresh start for the next.
    pub(crate) fn finish(&mut self) -> Option<Vec<f32>> {
        let model = MODEL.as_ref()?;
        self.ids.truncate(DOC_TOKENS);
        let vector = model.vector(&self.ids);
        self.ids.clear();
        vector
    }
}

/// The text's embedding: the L2-normalised mean of its tokens' vectors (the mean's length
/// divides out), or None when no word of it is in the vocabulary.
pub(crate) fn embed(text: &str) -> Option<Vec<f32>> {
    MODEL.as_ref()?.embed(text)
}

/// The number of dimensions of [`embed`]'s vectors (0 if the table could not be read).
#[cfg(test)]
pub(crate) fn dims() -> usize {
    MODEL.as_ref().map_or(0, |m| m.dims)
}

/// The dot product: the cosine of two of [`embed`]'s vectors, which are normalised.
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f32 {
    // Eight running sums, not one: the compiler may not reorder float additions, and one
    // chain of them waits on each add (4x slower on 500 tools). The order is fixed, so the
    // result is the same in every run.
    let mut lanes = [0.0f32; 8];
    let (chunks_a, chunks_b) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = chunks_a
        .remainder()
        .iter()
        .zip(chunks_b.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in chunks_a.zip(chunks_b) {
        for i in 0..8 {
            lanes[i] += x[i] * y[i];
        }
    }
    lanes.iter().sum::<f32>() + tail
}

/// Cosine similarity, in [-1, 1]; 0 when either vector is zero or the lengths differ.
#[cfg(test)]
pub(crate) fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0.0f32, 0.0f32, 0.0f32);
    for (&x, &y) in a.iter().zip(b) {
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        return 0.0;
    }
    dot / (na.sqrt() * nb.sqrt())
}

#[cfg(test)]
mod tests;
