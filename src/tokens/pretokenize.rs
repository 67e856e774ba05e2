//! o200k_base's pre-tokenizer, written out by hand.
//!
//! Before BPE merges anything, o200k cuts text with one regular expression (tiktoken's
//! `O200K_BASE_PAT_STR`), and no token ever crosses the edge of a piece it cuts:
//!
//! ```text
//! [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+('s|'t|…)?   word
//! [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*('s|'t|…)?   word
//! \p{N}{1,3}                                                                         digits
//!  ?[^\s\p{L}\p{N}]+[\r\n/]*                                                          punct
//! \s*[\r\n]+                                                                          newline
//! \s+(?!\S) | \s+                                                                     space
//! ```
//!
//! So a word takes one character before it (`" key"`, `",t"`, `".micro"`), a run of
//! punctuation takes the newlines after it (`"{\n"`), and indentation leaves its last space to
//! the word that follows (`"\n"`, `"   "`, `" key"`). [`Pieces`] reproduces these cuts exactly
//! for ASCII text and for letters, digits and spaces elsewhere; Unicode's finer categories
//! (titlecase letters, combining marks inside punctuation) are approximated with `char`'s
//! predicates, which is enough for an estimate.

/// What a character is to the pattern above.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Class {
    /// `\p{Lu}`: may start a word's capitals.
    Upper,
    /// `\p{Ll}`: may continue a word.
    Lower,
    /// A letter that is both (`\p{Lo}`, `\p{Lm}`, combining marks): CJK, modifier letters.
    Caseless,
    Digit,
    /// `\r` or `\n`.
    Newline,
    /// Other whitespace.
    Space,
    /// Everything else: punctuation, symbols, emoji.
    Punct,
}

impl Class {
    fn is_letter(self) -> bool {
        matches!(self, Class::Upper | Class::Lower | Class::Caseless)
    }
}

const ASCII: [Class; 128] = {
    let mut table = [Class::Punct; 128];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        table[b] = match c {
            b'a'..=b'z' => Class::Lower,
            b'A'..=b'Z' => Class::Upper,
            b'0'..=b'9' => Class::Digit,
            b'\r' | b'\n' => Class::Newline,
            b' ' | b'\t' | 0x0b | 0x0c => Class::Space,
            _ => Class::Punct,
        };
        b += 1;
    }
    table
};

/// The class of the char at byte `i` of `text` (a char boundary) and its length in bytes.
#[inline(always)]
fn class_at(text: &str, i: usize) -> (Class, usize) {
    let b = text.as_bytes()[i];
    if b < 0x80 {
        (ASCII[b as usize], 1)
    } else {
        wide_class_at(text, i)
    }
}

/// [`class_at`] of a char that is not ASCII.
#[inline(never)]
fn wide_class_at(text: &str, i: usize) -> (Class, usize) {
    let c = text[i..].chars().next().unwrap_or('\u{fffd}');
    let class = if is_mark(c) {
        Class::Caseless
    } else if c.is_lowercase() {
        Class::Lower
    } else if c.is_uppercase() {
        Class::Upper
    } else if c.is_alphabetic() {
        Class::Caseless
    } else if c.is_numeric() {
        Class::Digit
    } else if c.is_whitespace() {
        Class::Space
    } else {
        Class::Punct
    };
    (class, c.len_utf8())
}

/// The script of the char at byte `i`, `width` bytes long.
#[inline(always)]
fn script_at(text: &str, i: usize, width: usize) -> Script {
    if width == 1 {
        Script::Ascii
    } else {
        text[i..].chars().next().map_or(Script::Other, Script::of)
    }
}

/// Combining marks (`\p{M}`) of the common blocks: they continue words.
fn is_mark(c: char) -> bool {
    matches!(c, '\u{300}'..='\u{36f}' | '\u{1ab0}'..='\u{1aff}' | '\u{1dc0}'..='\u{1dff}'
        | '\u{20d0}'..='\u{20ff}' | '\u{fe20}'..='\u{fe2f}')
}

/// The character before a word's letters, when the word took one.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Prefix {
    /// `" key"`: TOON's `key: value`, indentation, prose.
    Space,
    /// `"\"key"`: a JSON string right after one structural character.
    Quote,
    /// `",key"`: TOON row cells and inline arrays.
    Comma,
    /// `"|key"`: TOON's pipe delimiter.
    Pipe,
    /// Tab or other whitespace (TOON's tab delimiter).
    OtherSpace,
    /// Any other punctuation (`".micro"`, `"-east"`, `"/path"`).
    Other,
}

impl Prefix {
    /// How many prefixes there are (table dimension).
    pub const COUNT: usize = 6;

    /// Index in tables.
    #[must_use]
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Which characters a word's letters are written with (the last of these that it has).
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Script {
    /// ASCII only.
    Ascii,
    /// Latin with accents (Latin-1 to Latin Extended-B, Vietnamese).
    Latin,
    /// Other two-byte UTF-8: Greek, Cyrillic, Armenian, Hebrew, Arabic.
    Alphabetic,
    /// Chinese, Japanese, Korean.
    Cjk,
    /// Other three-byte scripts: Indic, Thai, Georgian, Ethiopic…
    Other,
}

impl Script {
    /// How many scripts there are (table dimension).
    pub const COUNT: usize = 5;

    fn of(c: char) -> Script {
        match u32::from(c) {
            0..=0x7f => Script::Ascii,
            0x80..=0x24f | 0x1e00..=0x1eff => Script::Latin,
            0x250..=0x7ff => Script::Alphabetic,
            0x2e80..=0x9fff | 0xac00..=0xd7af | 0xf900..=0xfaff | 0xff00..=0xffef | 0x20000.. => {
                Script::Cjk
            }
            _ => Script::Other,
        }
    }
}

/// The case pattern of a word's letters.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Case {
    /// No capitals (`name`, caseless scripts).
    Lower,
    /// One leading capital (`Name`).
    Capital,
    /// No lower-case letters (`ID`, `HTTP`).
    Upper,
    /// Capitals then lower case (`HTTPServer`).
    Mixed,
}

/// A word's letters (after its prefix), as the estimate's tables see them.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Letters {
    /// Characters, including a trailing contraction (`'s`).
    pub chars: usize,
    /// Which bytes they are.
    pub script: Script,
    /// Their case.
    pub case: Case,
}

impl Letters {
    /// Longest word length the tables hold; longer words extrapolate linearly.
    pub const MAX_CHARS: usize = 24;
    /// Table rows: script × case × length.
    pub const GROUPS: usize = Script::COUNT * 4 * Self::MAX_CHARS;

    /// The table row of words of this script and case, and of `min(chars, MAX_CHARS)` chars.
    #[must_use]
    pub fn group(self) -> usize {
        ((self.script as usize * 4) + self.case as usize) * Self::MAX_CHARS
            + self.chars.clamp(1, Self::MAX_CHARS)
            - 1
    }
}

/// A piece's kind; see the module docs for the pattern of each.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum PieceKind {
    /// Letters with at most one character before them.
    Word {
        /// The character before the letters, if any.
        prefix: Option<Prefix>,
        /// The letters.
        letters: Letters,
    },
    /// One to three digits.
    Digits,
    /// Punctuation, with a leading space and trailing newlines when it took them.
    Punct,
    /// Whitespace up to and including its last newline.
    Newline,
    /// Whitespace without a newline.
    Space,
}

/// One piece of text that BPE merges within.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Piece<'a> {
    /// The piece's text.
    pub text: &'a str,
    /// What it is.
    pub kind: PieceKind,
}

/// The pieces of a text, in order; their texts concatenate to it.
#[derive(Clone, Debug)]
pub struct Pieces<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Pieces<'a> {
    /// Cuts `text`.
    #[must_use]
    pub fn new(text: &'a str) -> Self {
        Pieces { text, pos: 0 }
    }

    /// A word whose letters start at `start` (a letter) and that began at `self.pos`.
    fn word(&self, start: usize) -> (PieceKind, usize) {
        let text = self.text;
        let first = self.pos;
        let prefix = (start > first).then(|| match self.text.as_bytes()[first] {
            b' ' => Prefix::Space,
            b'"' => Prefix::Quote,
            b',' => Prefix::Comma,
            b'|' => Prefix::Pipe,
            b'\t' | 0x0b | 0x0c => Prefix::OtherSpace,
            _ if class_at(text, first).0 == Class::Space => Prefix::OtherSpace,
            _ => Prefix::Other,
        });
        let (mut end, mut chars, uppers, lowers, script) =
            ascii_letters(text.as_bytes(), start).unwrap_or_else(|| letters(text, start));
        // `(?i:'s|'t|'re|'ve|'m|'ll|'d)?`
        let rest = &text.as_bytes()[end..];
        if rest.first() == Some(&b'\'') {
            let lower = |k: usize| rest.get(k).map(u8::to_ascii_lowercase);
            let suffix = match (lower(1), lower(2)) {
                (Some(b's' | b't' | b'm' | b'd'), _) => 1,
                (Some(b'r' | b'v'), Some(b'e')) | (Some(b'l'), Some(b'l')) => 2,
                _ => 0,
            };
            if suffix > 0 {
                end += 1 + suffix;
                chars += 1 + suffix;
            }
        }
        let first_is_upper = class_at(text, start).0 == Class::Upper;
        let case = if uppers == 0 {
            Case::Lower
        } else if lowers == 0 {
            Case::Upper
        } else if uppers == 1 && first_is_upper {
            Case::Capital
        } else {
            Case::Mixed
        };
        let letters = Letters {
            chars,
            script,
            case,
        };
        (PieceKind::Word { prefix, letters }, end)
    }

    /// ` ?[^\s\p{L}\p{N}]+[\r\n/]*` from `start` (punctuation).
    fn punct(&self, start: usize) -> (PieceKind, usize) {
        let (text, len) = (self.text, self.text.len());
        let mut end = start;
        while end < len {
            let (class, w) = class_at(text, end);
            if class != Class::Punct {
                break;
            }
            end += w;
        }
        while end < len && matches!(text.as_bytes()[end], b'\r' | b'\n' | b'/') {
            end += 1;
        }
        (PieceKind::Punct, end)
    }

    /// A whitespace run from `self.pos`: to its last newline if it has one; else all of it at
    /// the end of the text, all but its last character before other text (which that character
    /// joins), or one character.
    fn space(&self) -> (PieceKind, usize) {
        let (text, len) = (self.text, self.text.len());
        let mut end = self.pos;
        let (mut last_newline, mut last_width, mut count) = (None, 1, 0);
        while end < len {
            let (class, w) = class_at(text, end);
            match class {
                Class::Newline => last_newline = Some(end + w),
                Class::Space => {}
                _ => break,
            }
            end += w;
            last_width = w;
            count += 1;
        }
        if let Some(at) = last_newline {
            (PieceKind::Newline, at)
        } else if end < len && count > 1 {
            (PieceKind::Space, end - last_width)
        } else if end < len {
            (PieceKind::Space, self.pos + last_width)
        } else {
            (PieceKind::Space, end)
        }
    }
}

/// A word's letters from `start` when they are ASCII and end before an ASCII character or the
/// text's end (the common case): `(end, chars, uppers, lowers, script)`.
#[inline(always)]
fn ascii_letters(bytes: &[u8], start: usize) -> Option<(usize, usize, usize, usize, Script)> {
    let len = bytes.len();
    let mut i = start;
    while i < len && bytes[i].is_ascii_uppercase() {
        i += 1;
    }
    let mut end = i;
    while end < len && bytes[end].is_ascii_lowercase() {
        end += 1;
    }
    if end < len && !bytes[end].is_ascii() || end == start {
        return None;
    }
    // `[Lu]*[Ll]+` or, without lower case, `[Lu]+`; an upper-case letter after the lower
    // case ones starts the next word.
    Some((end, end - start, i - start, end - i, Script::Ascii))
}

/// A word's letters from `start`, any script: `(end, chars, uppers, lowers, script)`.
fn letters(text: &str, start: usize) -> (usize, usize, usize, usize, Script) {
    let len = text.len();
    let mut script = Script::Ascii;
    let (mut uppers, mut lowers, mut chars) = (0usize, 0usize, 0usize);
    // `[Lu Lt Lm Lo M]*`, remembering where a caseless letter could end the run, since
    // the pattern backtracks into it when no lower-case letter follows.
    let mut i = start;
    let mut caseless_end = None;
    let mut before_caseless = (0, 0, 0, Script::Ascii);
    while i < len {
        let (class, w) = class_at(text, i);
        match class {
            Class::Upper => uppers += 1,
            Class::Caseless => {}
            _ => break,
        }
        script = script.max(script_at(text, i, w));
        i += w;
        chars += 1;
        if class == Class::Caseless {
            caseless_end = Some(i);
            before_caseless = (uppers, lowers, chars, script);
        }
    }
    let mut end = i;
    if i < len && class_at(text, i).0 == Class::Lower {
        // `[Ll Lm Lo M]+`
        while end < len {
            let (class, w) = class_at(text, end);
            match class {
                Class::Lower => lowers += 1,
                Class::Caseless => {}
                _ => break,
            }
            script = script.max(script_at(text, end, w));
            end += w;
            chars += 1;
        }
    } else if let Some(at) = caseless_end {
        end = at;
        (uppers, lowers, chars, script) = before_caseless;
    }
    (end, chars, uppers, lowers, script)
}

impl<'a> Iterator for Pieces<'a> {
    type Item = Piece<'a>;

    fn next(&mut self) -> Option<Piece<'a>> {
        let (text, len, i) = (self.text, self.text.len(), self.pos);
        if i >= len {
            return None;
        }
        let (class, w) = class_at(text, i);
        let next = || (i + w < len).then(|| class_at(text, i + w).0);
        let (kind, end) = match class {
            c if c.is_letter() => self.word(i),
            Class::Digit => {
                let mut end = i + w;
                for _ in 0..2 {
                    match (end < len).then(|| class_at(text, end)) {
                        Some((Class::Digit, w)) => end += w,
                        _ => break,
                    }
                }
                (PieceKind::Digits, end)
            }
            Class::Newline => self.space(),
            // `[^\r\n\p{L}\p{N}]` before letters is part of the word.
            Class::Space | Class::Punct if next().is_some_and(Class::is_letter) => self.word(i + w),
            Class::Punct => self.punct(i),
            _ if text.as_bytes()[i] == b' ' && next() == Some(Class::Punct) => self.punct(i + 1),
            _ => self.space(),
        };
        self.pos = end;
        Some(Piece {
            text: &text[i..end],
            kind,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(text: &str) -> Vec<&str> {
        Pieces::new(text).map(|p| p.text).collect()
    }

    #[test]
    fn cuts_as_o200k_does() {
        // Each expectation is what tiktoken's o200k pattern cuts.
        assert_eq!(
            cut("{\"us-east-1\":[\"t2.micro\",\"m5\"]}"),
            [
                "{\"", "us", "-east", "-", "1", "\":[\"", "t", "2", ".micro", "\",\"", "m", "5",
                "\"]}"
            ]
        );
        assert_eq!(
            cut("a:\n    key: x,y\n"),
            ["a", ":\n", "   ", " key", ":", " x", ",y", "\n"]
        );
        assert_eq!(
            cut("HTTPServer camelCase don't 1234567"),
            [
                "HTTPServer",
                " camel",
                "Case",
                " don't",
                " ",
                "123",
                "456",
                "7"
            ]
        );
        assert_eq!(
            cut("x\t y  \n\n z "),
            ["x", "\t", " y", "  \n\n", " z", " "]
        );
        assert_eq!(
            cut("日本語テキスト, ÉTÉ été"),
            ["日本語テキスト", ",", " ÉTÉ", " été"]
        );
        assert_eq!(cut(" {} 12"), [" {}", " ", "12"]);
    }

    #[test]
    fn words_know_their_prefix_and_letters() {
        let kinds: Vec<PieceKind> = Pieces::new("\"Name ID,x\tüber").map(|p| p.kind).collect();
        let word = |prefix, chars, script, case| PieceKind::Word {
            prefix,
            letters: Letters {
                chars,
                script,
                case,
            },
        };
        assert_eq!(
            kinds,
            [
                word(Some(Prefix::Quote), 4, Script::Ascii, Case::Capital),
                word(Some(Prefix::Space), 2, Script::Ascii, Case::Upper),
                word(Some(Prefix::Comma), 1, Script::Ascii, Case::Lower),
                word(Some(Prefix::OtherSpace), 4, Script::Latin, Case::Lower),
            ]
        );
    }
}
