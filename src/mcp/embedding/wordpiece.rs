//! BERT-uncased tokenization (`BertNormalizer` + `BertPreTokenizer` + `WordPiece` of Hugging
//! Face `tokenizers`, as all-MiniLM-L6-v2's `tokenizer.json` configures them), without the
//! Unicode tables those use: accents are stripped by a table of the Latin letters (the
//! `unicode-normalization` crate would be a new dependency for NFD alone), and punctuation is
//! ASCII's plus the Unicode punctuation blocks. Texts outside Latin script may split slightly
//! differently from the reference; that only moves a vector a little, never breaks a search.

/// A word longer than this is one unknown token in the reference (`max_input_chars_per_word`),
/// so a pasted base64 blob costs one scan, not thousands of lookups.
const MAX_WORD_CHARS: usize = 100;

/// Splits `text` into words as the reference's normalizer and pre-tokenizer do and calls `word`
/// on each (lowercased, accents stripped) until it returns false.
pub(super) fn words(text: &str, mut word: impl FnMut(&str) -> bool) {
    let mut current = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            // Most of a tool's text: no table lookups needed.
            current.push(c.to_ascii_lowercase());
            continue;
        }
        if is_control(c) {
            continue;
        }
        if c.is_whitespace() {
            if !flush(&mut current, &mut word) {
                return;
            }
        } else if is_punctuation(c) || is_cjk(c) {
            // Punctuation and CJK ideographs are words of their own.
            if !flush(&mut current, &mut word) {
                return;
            }
            let mut buf = [0u8; 4];
            if !word(c.encode_utf8(&mut buf)) {
                return;
            }
        } else {
            push_normalized(&mut current, c);
        }
    }
    flush(&mut current, &mut word);
}

fn flush(current: &mut String, word: &mut impl FnMut(&str) -> bool) -> bool {
    if current.is_empty() {
        return true;
    }
    let go_on = word(current);
    current.clear();
    go_on
}

/// Lowercases and strips accents (NFD then dropping combining marks, for the letters listed).
fn push_normalized(out: &mut String, c: char) {
    for lower in c.to_lowercase() {
        if is_combining_mark(lower) {
            continue; // what NFD + `Mn` filtering removes
        }
        out.push(strip_accent(lower).unwrap_or(lower));
    }
}

fn is_combining_mark(c: char) -> bool {
    ('\u{300}'..='\u{36f}').contains(&c)
}

/// Latin-1's letters U+00E0..=U+00FF and Latin Extended-A's U+0100..=U+017F: the base letter
/// of each whose NFD is a letter plus combining marks, `.` for those with none (`æ`, `ø`, `đ`,
/// `ł`, `œ`, ...), which stay as they are.
const LATIN1_BASES: &[u8; 32] = b"aaaaaa.ceeeeiiii.nooooo..uuuuy.y";
const EXTENDED_A_BASES: &[u8; 128] = b"aaaaaaccccccccdd..eeeeeeeeeegggggggghh..iiiiiiiii...jjkk.llllll....nnnnnn...oooooo..rrrrrrsssssssstttt..uuuuuuuuuuuuwwyyyzzzzzz.";

fn strip_accent(c: char) -> Option<char> {
    let code = c as usize;
    let base = match code {
        0xe0..=0xff => LATIN1_BASES[code - 0xe0],
        0x100..=0x17f => EXTENDED_A_BASES[code - 0x100],
        _ => return None,
    };
    (base != b'.').then_some(char::from(base))
}

/// The reference's `clean_text`: NUL, U+FFFD and control characters (other than whitespace)
/// are removed.
fn is_control(c: char) -> bool {
    if matches!(c, '\t' | '\n' | '\r') {
        return false;
    }
    c == '\0'
        || c == '\u{fffd}'
        || c.is_control()
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{feff}')
}

/// ASCII punctuation and symbols (as the reference counts them), and Unicode's punctuation
/// blocks: general punctuation, supplemental, CJK symbols and the fullwidth ASCII forms.
fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation()
        || matches!(c,
            '\u{a1}' | '\u{a7}' | '\u{ab}' | '\u{b6}' | '\u{b7}' | '\u{bb}' | '\u{bf}'
            | '\u{2010}'..='\u{2027}' | '\u{2030}'..='\u{205e}' | '\u{2e00}'..='\u{2e4f}'
            | '\u{3001}'..='\u{3003}' | '\u{3008}'..='\u{3011}' | '\u{3014}'..='\u{301f}'
            | '\u{ff01}'..='\u{ff0f}' | '\u{ff1a}'..='\u{ff20}' | '\u{ff3b}'..='\u{ff40}'
            | '\u{ff5b}'..='\u{ff65}')
}

/// The CJK ideograph blocks the reference splits character by character.
fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{4e00}'..='\u{9fff}' | '\u{3400}'..='\u{4dbf}' | '\u{20000}'..='\u{2a6df}'
        | '\u{2a700}'..='\u{2b73f}' | '\u{2b740}'..='\u{2b81f}' | '\u{2b820}'..='\u{2ceaf}'
        | '\u{f900}'..='\u{faff}' | '\u{2f800}'..='\u{2fa1f}')
}

/// Greedy longest-match WordPiece of one word: the ids of its pieces (continuations looked up
/// with `##`), or nothing when some part matches no piece (the reference's `[UNK]`, which the
/// static model drops).
/// `longest` is the byte length of the longest piece (less `##`): no longer candidate can
/// match, so a long word costs a few lookups per piece instead of one per prefix.
pub(super) fn pieces(
    word: &str,
    longest: usize,
    lookup: impl Fn(&str) -> Option<u32>,
    out: &mut Vec<u32>,
) {
    if word.chars().count() > MAX_WORD_CHARS {
        return;
    }
    let before = out.len();
    let mut key = String::with_capacity(longest + 2);
    let mut start = 0;
    while start < word.len() {
        let mut end = word.len().min(start + longest);
        while !word.is_char_boundary(end) {
            end -= 1;
        }
        let found = loop {
            key.clear();
            if start > 0 {
                key.push_str("##");
            }
            key.push_str(&word[start..end]);
            if let Some(id) = lookup(&key) {
                break Some(id);
            }
            match word[start..end].char_indices().next_back() {
                Some((last, _)) if last > 0 => end = start + last,
                _ => break None,
            }
        };
        match found {
            Some(id) => out.push(id),
            None => {
                out.truncate(before);
                return;
            }
        }
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::words;

    fn all(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        words(text, |w| {
            out.push(w.to_owned());
            true
        });
        out
    }

    #[test]
    fn words_break_at_spaces_and_punctuation_not_at_controls_or_accents() {
        let cases: &[(&str, &[&str])] = &[
            ("Hello, world", &["hello", ",", "world"]),
            ("x1y2 z\tq\r\nend", &["x1y2", "z", "q", "end"]),
            // Controls are removed, not word breaks: form feed, vertical tab, NUL.
            ("ab\x0ccd a\x0bb abc\0def", &["abcd", "ab", "abcdef"]),
            ("café latte naïve", &["cafe", "latte", "naive"]),
            ("abc日本 ABC def", &["abc", "日", "本", "abc", "def"]),
            (
                "abc\u{2003}def abc\u{2014}def",
                &["abc", "def", "abc", "\u{2014}", "def"],
            ),
        ];
        for (text, want) in cases {
            assert_eq!(all(text), *want, "{text:?}");
        }
    }

    #[test]
    fn stops_when_asked() {
        let mut seen = Vec::new();
        words("one two three", |w| {
            seen.push(w.to_owned());
            seen.len() < 2
        });
        assert_eq!(seen, ["one", "two"]);
    }
}
