//! Fits the weights of `toon::tokens::estimate` (`src/tokens/weights.rs`) on a corpus of JSON
//! documents, with exact o200k counts as the truth.
//!
//! `cargo run --release --example token_fit --features tiktoken -- DIR... > src/tokens/weights.rs`
//!
//! Every `*.json` file under the given directories is rendered five ways — pretty JSON,
//! compact JSON, TOON with each delimiter — and cut into o200k's pre-tokenizer pieces.
//! 1. A first pass counts the short pieces (up to 7 bytes): the `MAX_TEXTS` most common
//!    (`"\",\""`, `" id"`, `",true"`) get their own weight in `TEXTS`.
//! 2. A second pass attributes every piece's exact count to the cell that weighs it: a common
//!    text to its own; a word whose letters are an o200k token by themselves or after a space
//!    (`vocab::class`, from the vocabulary alone: `",face"`, `"\"Name"`), whole, to
//!    `VOCAB_WORD[prefix][class, case, length]` (a comma before `face` is a token of its own,
//!    before a rarer word it often merges into the letters' tokens); other words' letters alone
//!    to `WORD[group]` and what their prefix adds to `PREFIX[prefix][group]`; digits to
//!    `DIGITS[len]`; punctuation, newlines and spaces to their kind's table by length, and what
//!    a non-ASCII character (emoji) adds to punctuation, by its width in bytes, to
//!    `PUNCT_WIDE_CHAR` (beyond the ASCII runs between such characters, each weighed as the
//!    piece it would be on its own: `"\"["` is a common text).
//!
//! A cell's weight is the mean over its pieces, where one document counts for at most
//! `PER_DOCUMENT` pieces of a cell (a 3 MB word list must not decide what a comma before a word
//! costs everywhere). Cells seen fewer than `MIN_SEEN` times back off to a coarser mean (per
//! character of the same script and case, or the same prefix over more lengths). The corpus of
//! the shipped weights, and the held-out part they are checked on, come from
//! `scripts/fetch-token-corpus.sh`; see `benches/README.md`.

#[path = "common/json_files.rs"]
mod json_files;

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use json_files::{json_files, json_values, renderings};
use toon::tokens::__private::{Letters, PieceKind, Pieces, Prefix, Script, text_key, vocab};
use toon::tokens::{Encoding, count};

/// Fewer observations than this and a cell takes a coarser mean.
const MIN_SEEN: f64 = 20.0;
/// How often a short text must be seen to get its own weight.
const MIN_TEXT_SEEN: u64 = 30;
/// At most this many texts get their own weight (the table has 8192 slots).
const MAX_TEXTS: usize = 4096;
/// Pieces one document can contribute to one cell.
const PER_DOCUMENT: f64 = 1000.0;
/// Fixed-point unit of the weights.
const UNIT: f64 = 1024.0;
/// Length tables' size.
const BY_CHARS: usize = 32;

/// Observations of one cell: pieces and their exact tokens (scaled per document).
#[derive(Copy, Clone, Default)]
struct Cell {
    seen: f64,
    tokens: f64,
}

impl Cell {
    fn add(&mut self, tokens: i64) {
        self.seen += 1.0;
        self.tokens += tokens as f64;
    }

    /// Adds `other`, scaled down to `cap` pieces if it has more.
    fn merge(&mut self, other: Cell, cap: f64) {
        let scale = if other.seen > cap {
            cap / other.seen
        } else {
            1.0
        };
        self.seen += other.seen * scale;
        self.tokens += other.tokens * scale;
    }

    fn mean(self) -> Option<f64> {
        (self.seen >= MIN_SEEN).then(|| self.tokens / self.seen)
    }
}

/// One punctuation piece with non-ASCII characters of one width in bytes.
#[derive(Clone)]
struct WidePunct {
    /// The ASCII runs between them: length, and key in `texts` when the run is a common text.
    runs: Vec<(usize, Option<u64>)>,
    width: usize,
    /// How many non-ASCII characters.
    wide: usize,
    tokens: i64,
}

/// Every cell of the model.
#[derive(Clone)]
struct Cells {
    texts: HashMap<u64, Cell>,
    word: Vec<Cell>,
    prefix: Vec<Vec<Cell>>,
    /// Words that are o200k tokens by themselves or after a space (`vocab::class`), whole
    /// pieces, by prefix (none first, then `Prefix::index` + 1) and `vocab::group`.
    vocab: Vec<Vec<Cell>>,
    digits: [Cell; 3],
    punct: [Cell; BY_CHARS],
    newline: [Cell; BY_CHARS],
    space: [Cell; BY_CHARS],
    /// Punctuation with non-ASCII characters, for what each adds beyond the ASCII runs
    /// between them (by the tables, once known).
    wide_punct: Vec<WidePunct>,
}

impl Cells {
    fn new() -> Self {
        Cells {
            texts: HashMap::new(),
            word: vec![Cell::default(); Letters::GROUPS],
            prefix: vec![vec![Cell::default(); Letters::GROUPS]; Prefix::COUNT],
            vocab: vec![vec![Cell::default(); vocab::GROUPS]; 1 + Prefix::COUNT],
            digits: [Cell::default(); 3],
            punct: [Cell::default(); BY_CHARS],
            newline: [Cell::default(); BY_CHARS],
            space: [Cell::default(); BY_CHARS],
            wide_punct: Vec::new(),
        }
    }

    /// Adds one document's cells, each capped at `PER_DOCUMENT` pieces.
    fn merge(&mut self, doc: Cells) {
        let cap = PER_DOCUMENT;
        for (key, cell) in doc.texts {
            self.texts.entry(key).or_default().merge(cell, cap);
        }
        let pairs = |all: &mut [Cell], doc: &[Cell]| {
            for (a, d) in all.iter_mut().zip(doc) {
                a.merge(*d, cap);
            }
        };
        pairs(&mut self.word, &doc.word);
        for (all, doc) in self.prefix.iter_mut().zip(&doc.prefix) {
            pairs(all, doc);
        }
        for (all, doc) in self.vocab.iter_mut().zip(&doc.vocab) {
            pairs(all, doc);
        }
        pairs(&mut self.digits, &doc.digits);
        pairs(&mut self.punct, &doc.punct);
        pairs(&mut self.newline, &doc.newline);
        pairs(&mut self.space, &doc.space);
        // A sample of at most `cap` pieces, spread over the document.
        let step = doc.wide_punct.len().div_ceil(cap as usize).max(1);
        self.wide_punct
            .extend(doc.wide_punct.into_iter().step_by(step));
    }
}

struct Fit {
    common: HashSet<u64>,
    cells: Cells,
    exact: HashMap<String, i64>,
    documents: usize,
}

impl Fit {
    fn exact(&mut self, text: &str) -> i64 {
        if let Some(&n) = self.exact.get(text) {
            return n;
        }
        let n = count(text, Encoding::O200kBase) as i64;
        if text.len() <= 64 {
            self.exact.insert(text.to_owned(), n);
        }
        n
    }

    fn observe(&mut self, text: &str, doc: &mut Cells) {
        for piece in Pieces::new(text) {
            let tokens = self.exact(piece.text);
            if let Some(key) = text_key(piece.text)
                && self.common.contains(&key)
            {
                doc.texts.entry(key).or_default().add(tokens);
                continue;
            }
            match piece.kind {
                PieceKind::Word { prefix, letters } => {
                    let letters_text = match prefix {
                        Some(_) => {
                            let first = piece.text.chars().next().map_or(0, char::len_utf8);
                            &piece.text[first..]
                        }
                        None => piece.text,
                    };
                    if letters.script == Script::Ascii {
                        let class = vocab::class(letters_text.as_bytes());
                        if class != 0 {
                            // Weighed whole: the letters are one token, what the prefix does
                            // to them is the question.
                            let slot = prefix.map_or(0, |p| p.index() + 1);
                            doc.vocab[slot][vocab::group(class, letters.case, letters.chars)]
                                .add(tokens);
                            continue;
                        }
                    }
                    let alone = self.exact(letters_text);
                    // Longer words extrapolate from the longest length's cell.
                    if letters.chars <= Letters::MAX_CHARS {
                        let g = letters.group();
                        doc.word[g].add(alone);
                        if let Some(p) = prefix {
                            doc.prefix[p.index()][g].add(tokens - alone);
                        }
                    }
                }
                PieceKind::Digits => {
                    doc.digits[piece.text.chars().count().clamp(1, 3) - 1].add(tokens)
                }
                PieceKind::Punct if !piece.text.is_ascii() => {
                    let mut widths = piece
                        .text
                        .chars()
                        .filter(|c| !c.is_ascii())
                        .map(char::len_utf8);
                    let width = widths.next().unwrap_or(2);
                    let wide = 1 + widths.clone().count();
                    if widths.any(|w| w != width) {
                        // Mixed widths say nothing about either.
                        continue;
                    }
                    let runs = piece
                        .text
                        .split(|c: char| !c.is_ascii())
                        .filter(|run| !run.is_empty())
                        .map(|run| {
                            let key = text_key(run).filter(|key| self.common.contains(key));
                            (run.len(), key)
                        })
                        .collect();
                    doc.wide_punct.push(WidePunct {
                        runs,
                        width,
                        wide,
                        tokens,
                    });
                }
                kind => {
                    let chars = piece.text.chars().count();
                    let table = match kind {
                        PieceKind::Punct => &mut doc.punct,
                        PieceKind::Newline => &mut doc.newline,
                        _ => &mut doc.space,
                    };
                    if chars <= BY_CHARS {
                        table[chars - 1].add(tokens);
                    }
                }
            }
        }
    }
}

fn units(tokens: f64) -> i32 {
    (tokens * UNIT).round() as i32
}

/// A length table: each length's mean, or the per-character mean over all lengths.
fn by_chars(table: &[Cell; BY_CHARS]) -> Vec<i32> {
    let (mut tokens, mut chars) = (0.0, 0.0);
    for (i, cell) in table.iter().enumerate() {
        tokens += cell.tokens;
        chars += cell.seen * (i + 1) as f64;
    }
    let rate = if chars == 0.0 { 0.5 } else { tokens / chars };
    table
        .iter()
        .enumerate()
        .map(|(i, cell)| units(cell.mean().unwrap_or(rate * (i + 1) as f64)))
        .collect()
}

fn rust_array(values: &[i32], indent: &str) -> String {
    let mut out = String::from("[");
    for (i, v) in values.iter().enumerate() {
        if i % 12 == 0 {
            let _ = write!(out, "\n{indent}    ");
        } else {
            out.push(' ');
        }
        let _ = write!(out, "{v},");
    }
    let _ = write!(out, "\n{indent}]");
    out
}

/// The words' table: a cell's mean, else its script and case's tokens per character.
fn word_weights(cells: &Cells) -> Vec<i32> {
    let per_length = Letters::MAX_CHARS;
    (0..Letters::GROUPS)
        .map(|g| {
            let row = &cells.word[g - g % per_length..][..per_length];
            let (tokens, chars) = row
                .iter()
                .enumerate()
                .fold((0.0, 0.0), |(t, c), (i, cell)| {
                    (t + cell.tokens, c + cell.seen * (i + 1) as f64)
                });
            let rate = if chars == 0.0 { 0.3 } else { tokens / chars };
            let length = (g % per_length + 1) as f64;
            units(cells.word[g].mean().unwrap_or(rate * length).max(1.0))
        })
        .collect()
}

/// One prefix's table: a cell's mean, else the mean over nearby lengths of the same script and
/// case, over the script and case, over the script, over everything.
fn prefix_weights(row: &[Cell]) -> Vec<i32> {
    backed_off(row, Letters::MAX_CHARS, 0.0)
        .into_iter()
        .map(units)
        .collect()
}

/// A table of rows of `per_length` lengths in blocks of 4 cases: each cell's mean, else the
/// mean over nearby lengths of the same block and case, over the block and case, over the
/// block, over everything, else `default`.
fn backed_off(row: &[Cell], per_length: usize, default: f64) -> Vec<f64> {
    let sum = |cells: &[Cell]| {
        cells.iter().fold(Cell::default(), |mut all, c| {
            all.merge(*c, f64::INFINITY);
            all
        })
    };
    let all = sum(row);
    (0..row.len())
        .map(|g| {
            let case = &row[g - g % per_length..][..per_length];
            let block = &row[g - g % (4 * per_length)..][..4 * per_length];
            let at = g % per_length;
            let near = sum(&case[at.saturating_sub(2)..(at + 3).min(per_length)]);
            row[g]
                .mean()
                .or_else(|| near.mean())
                .or_else(|| sum(case).mean())
                .or_else(|| sum(block).mean())
                .or_else(|| all.mean())
                .unwrap_or(default)
        })
        .collect()
}

/// `src/tokens/weights.rs`: every table of the estimate, from the fitted cells.
fn render(fit: &Fit) -> String {
    let cells = &fit.cells;
    let punct = by_chars(&cells.punct);
    let wide_char = wide_char_weights(cells, &punct);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "//! Weights of [`estimate`](super::estimate), in `UNIT`ths of an o200k token: generated by\n\
         //! `examples/token_fit.rs` from {} documents; do not edit by hand.\n\
         //!\n\
         //! Word tables are indexed by `Letters::group` (script × case × length), `PREFIX` by\n\
         //! `Prefix::index` first; `VOCAB_WORD` (words that are o200k tokens) by prefix (none,\n\
         //! then `Prefix::index` + 1), then `vocab::group`; length tables by characters − 1.\n",
        fit.documents
    );
    out.push_str("pub(super) const UNIT: i64 = 1024;\n\n");
    write_word_tables(&mut out, cells);
    let digits: Vec<i32> = cells
        .digits
        .iter()
        .map(|c| units(c.mean().unwrap_or(1.0)))
        .collect();
    for (name, values) in [
        ("DIGITS", digits),
        ("PUNCT_BY_CHARS", punct),
        ("NEWLINE_BY_CHARS", by_chars(&cells.newline)),
        ("SPACE_BY_CHARS", by_chars(&cells.space)),
    ] {
        let _ = writeln!(
            out,
            "pub(super) const {name}: [i32; {}] = {};\n",
            values.len(),
            rust_array(&values, "")
        );
    }
    let _ = writeln!(
        out,
        "pub(super) const PUNCT_WIDE_CHAR: [i32; 3] = {};\n",
        rust_array(&wide_char, "")
    );
    write_texts(&mut out, cells);
    out
}

/// What a non-ASCII character adds to punctuation beyond its ASCII runs, by width (2, 3, 4
/// bytes), each run weighed as the estimate weighs it: its common text's mean, or by length.
fn wide_char_weights(cells: &Cells, punct: &[i32]) -> Vec<i32> {
    let mut extra = [(0.0, 0.0); 3];
    for WidePunct {
        runs,
        width,
        wide,
        tokens,
    } in &cells.wide_punct
    {
        let narrow: f64 = runs
            .iter()
            .map(|&(n, key)| match key.and_then(|k| cells.texts.get(&k)) {
                Some(c) => c.tokens / c.seen.max(1.0),
                None => {
                    f64::from(punct[n.min(BY_CHARS) - 1]) / UNIT
                        * (n.max(BY_CHARS) as f64 / BY_CHARS as f64)
                }
            })
            .sum();
        let at = width.clamp(&2, &4) - 2;
        extra[at].0 += *tokens as f64 - narrow;
        extra[at].1 += *wide as f64;
    }
    extra
        .iter()
        .zip([1.0, 1.0, 1.5])
        .map(|(&(tokens, chars), default)| {
            units(if chars < MIN_SEEN {
                default
            } else {
                tokens / chars
            })
        })
        .collect()
}

/// The word tables: `WORD`, `PREFIX`, and `VOCAB_WORD` (words that are tokens, by
/// vocabulary class, case and length: backed off like `PREFIX`, else a token each).
fn write_word_tables(out: &mut String, cells: &Cells) {
    let groups = Letters::GROUPS;
    let _ = writeln!(
        out,
        "pub(super) const WORD: [i32; {groups}] = {};\n",
        rust_array(&word_weights(cells), "")
    );
    let _ = writeln!(
        out,
        "pub(super) const PREFIX: [[i32; {groups}]; {}] = [",
        Prefix::COUNT
    );
    for row in &cells.prefix {
        let _ = writeln!(out, "    {},", rust_array(&prefix_weights(row), "    "));
    }
    out.push_str("];\n\n");
    let _ = writeln!(
        out,
        "pub(super) const VOCAB_WORD: [[i32; {}]; {}] = [",
        vocab::GROUPS,
        1 + Prefix::COUNT
    );
    for row in &cells.vocab {
        let weights: Vec<i32> = backed_off(row, vocab::MAX_CHARS, 1.0)
            .into_iter()
            .map(units)
            .collect();
        let _ = writeln!(out, "    {},", rust_array(&weights, "    "));
    }
    out.push_str("];\n\n");
}

/// `TEXTS`: the common short pieces by `text_key`, sorted, with their weight and text.
fn write_texts(out: &mut String, cells: &Cells) {
    let mut texts: Vec<(u64, i32)> = cells
        .texts
        .iter()
        .map(|(&k, c)| (k, units(c.tokens / c.seen.max(1.0))))
        .collect();
    texts.sort_unstable();
    let _ = writeln!(
        out,
        "/// Common short pieces by `text_key` (sorted), and their weight.\n\
         pub(super) static TEXTS: [(u64, i32); {}] = [",
        texts.len()
    );
    for (key, weight) in &texts {
        let len = (key >> 56) as usize;
        let bytes: Vec<u8> = (0..len).map(|i| (key >> (8 * i)) as u8).collect();
        let shown = String::from_utf8_lossy(&bytes).escape_debug().to_string();
        let _ = writeln!(out, "    ({key:#018x}, {weight}), // {shown}");
    }
    out.push_str("];\n");
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = json_files(std::env::args().skip(1));
    if files.is_empty() {
        return Err("usage: token_fit DIR... (JSON files to fit on)".into());
    }
    let values = json_values(&files)?;
    // Pass 1: the common short texts.
    let mut seen: HashMap<u64, u64> = HashMap::new();
    for (_, value) in &values {
        for (_, text) in renderings(value)? {
            for piece in Pieces::new(&text) {
                if let Some(key) = text_key(piece.text) {
                    *seen.entry(key).or_default() += 1;
                }
            }
        }
    }
    let mut common: Vec<(u64, u64)> = seen
        .into_iter()
        .filter(|&(_, n)| n >= MIN_TEXT_SEEN)
        .collect();
    common.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    common.truncate(MAX_TEXTS);
    // Pass 2: every piece to its cell.
    let mut fit = Fit {
        common: common.into_iter().map(|(k, _)| k).collect(),
        cells: Cells::new(),
        exact: HashMap::new(),
        documents: values.len(),
    };
    for (_, value) in &values {
        let mut doc = Cells::new();
        for (_, text) in renderings(value)? {
            fit.observe(&text, &mut doc);
        }
        fit.cells.merge(doc);
    }
    eprintln!("fitted on {} documents", fit.documents);
    print!("{}", render(&fit));
    Ok(())
}
