//! What a target is given, read the same way by every target that takes options: a first byte
//! of flags, then the text. Seeds written by `scripts/fuzz-seeds.py` start with `0x02`
//! (strict, indent 2, the default depth limit, a byte at a time).

use std::fmt::Display;

use toon::DecodeOptions;

/// The options byte read, and the text after it.
pub struct Input<'a> {
    /// The first byte: bit 0 non-strict, bits 1–2 the indent less one, bits 3–5 a depth
    /// limit (0: the default), bits 6–7 how [`pieces`] cuts the text.
    pub flags: u8,
    /// The decode options the flags give.
    pub options: DecodeOptions,
    /// The rest of the input.
    pub text: &'a [u8],
}

/// The flags and text of `data`; `None` for empty input.
pub fn split(data: &[u8]) -> Option<Input<'_>> {
    let (&flags, text) = data.split_first()?;
    let mut options = DecodeOptions::new()
        .strict(flags & 1 == 0)
        .indent_size(1 + usize::from((flags >> 1) & 3));
    let depth = (flags >> 3) & 7;
    if depth != 0 {
        options = options.max_depth(usize::from(depth));
    }
    Some(Input {
        flags,
        options,
        text,
    })
}

/// `text` cut into pieces as the flags' top bits say: a byte at a time (inside UTF-8
/// sequences too), a line at a time, or pieces of 1–7 or 1–97 bytes from a generator seeded
/// by the flags and the length.
pub fn pieces(text: &[u8], flags: u8) -> Vec<&[u8]> {
    let longest = match flags >> 6 {
        0 => return text.chunks(1).collect(),
        1 => return text.split_inclusive(|&b| b == b'\n').collect(),
        2 => 7,
        _ => 97,
    };
    let mut state = 0x9e37_79b9_7f4a_7c15 ^ (text.len() as u64) ^ u64::from(flags);
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        // xorshift64: any cut, the same cuts every run.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let n = 1 + (state % longest) as usize;
        let (piece, after) = rest.split_at(n.min(rest.len()));
        out.push(piece);
        rest = after;
    }
    out
}

/// The lines of `text` as the decoder numbers them (split at `\n`, a CR before it dropped).
pub fn lines(text: &str) -> Vec<&str> {
    text.split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .collect()
}

/// Panics unless (`line`, `column`) is a place in `text`: a line of it, and a column on that
/// line or just past its end.
pub fn assert_within(text: &str, line: usize, column: usize, what: &dyn Display) {
    let lines = lines(text);
    assert!(
        (1..=lines.len()).contains(&line),
        "{what}: line {line} of {} lines in {text:?}",
        lines.len()
    );
    let chars = lines[line - 1].chars().count();
    assert!(
        (1..=chars + 1).contains(&column),
        "{what}: column {column} of a line of {chars} characters in {text:?}"
    );
}
