//! JSON text → [`Recording`](super::Recording) with every number's exact decimal value, for
//! `toon -e`: `18446744073709551616`, `0.1000000000000000055511151231257827` and `1e400` come
//! out with all their digits where serde_json alone (without `arbitrary_precision`, which
//! would change every crate of a user's build) reads `u64`, `i64` or the nearest `f64`, and
//! refuses `1e400`.
//!
//! The text is parsed as serde_json reads it first, noting whether any number came as an `f64`
//! ([`FloatSeen`]). Only then can a token have lost digits ([`FloatSeen`] says why), and only then is
//! the text scanned ([`json_text::numbers`], [`json_text::exact_in_f64`]): most documents
//! (integers only) cost no scan at all, and a document whose numbers all keep their value is
//! the first parse's recording. Otherwise those tokens are replaced, in a copy, by a `0` padded
//! with spaces to the same length (so serde_json takes them and positions in its errors stay
//! right), and the recorder, counting number events, records the n-th token's exact text in
//! place of the n-th number: in JSON a number is always a value, so the n-th number token is the
//! n-th number a parser visits.

use std::borrow::Cow;
use std::cell::Cell;

use serde::de::Error as _;

use crate::json_text::{self, NumberKept};
use crate::ser::tape::{Ev, Tape};

/// What the recorder does with a number event: record it ([`Plain`]), or count it and record
/// an exact text instead where one is due ([`&DueNumbers`](DueNumbers)). A type parameter, so that
/// plain recording compiles to what it was.
pub(super) trait Numbers: Copy {
    /// Records a number event: as visited, unless an exact text is due in its place.
    #[inline(always)]
    fn number(
        self,
        tape: &mut Tape,
        record: impl FnOnce(&mut Tape) -> crate::Result<()>,
    ) -> crate::Result<()> {
        record(tape)
    }

    /// A number came as an `f64` (called before [`number`](Numbers::number) for it).
    #[inline(always)]
    fn float(self) {}

    /// An object repeated a key, and its dropped entries left the recording: the recording no
    /// longer follows the text event by event ([`floats_exact`] cannot walk it).
    #[inline(always)]
    fn repeated(self) {}
}

/// Numbers recorded as they are visited.
#[derive(Copy, Clone)]
pub(super) struct Plain;

impl Numbers for Plain {}

/// Numbers recorded as they are visited, noting whether one came as an `f64`: the first parse
/// of [`Recording::from_json_slice`](super::Recording::from_json_slice), which scans the text
/// only when one did.
///
/// Why no other number can have lost digits: serde_json's `deserialize_any` (without
/// `arbitrary_precision`) visits a number token as `u64` only when it is `0` or `[1-9][0-9]*`
/// and fits in a `u64`, and as `i64` only when it is `-[1-9][0-9]*` and fits in an `i64`
/// (`parse_integer`, `parse_number`: a fraction or an exponent makes it an `f64`, so does an
/// integer that overflows, and so does `-0`); it never visits `i128` or `u128`. Such a token's
/// value is that integer exactly, and [`json_text::exact_in_f64`] accepts it (an integer that
/// `u64` or `i64` parses). So when no number came as an `f64`, [`prepare`] finds nothing to
/// replace and the recording is what `serde_json::from_slice` records. A float event alone
/// proves nothing either way: `0.1000000000000000055511151231257827` is visited as `0.1`, the
/// same `f64` as `0.1`; only its token tells.
#[derive(Default)]
pub(super) struct FloatSeen {
    seen: Cell<bool>,
    repeated: Cell<bool>,
}

impl FloatSeen {
    /// Whether a number came as an `f64`.
    pub(super) fn seen(&self) -> bool {
        self.seen.get()
    }

    /// Whether an object repeated a key ([`Numbers::repeated`]).
    pub(super) fn repeated(&self) -> bool {
        self.repeated.get()
    }
}

impl Numbers for &FloatSeen {
    #[inline(always)]
    fn float(self) {
        self.seen.set(true);
    }

    fn repeated(self) {
        self.repeated.set(true);
    }
}

/// Whether every number that `tape`, the first parse of `text` ([`FloatSeen`]), recorded as an
/// `f64` keeps its value ([`json_text::exact_in_f64`]), each then made its token's nearest
/// `f64` where serde_json read it otherwise (without `float_roundtrip`, which this crate does
/// not turn on, serde_json reads a float of more than 15 digits or with an exponent to within
/// one unit in the last place; [`json_text::NumberKept`]): the scan for texts with floats, without
/// reading their strings. `false` when one does not keep its value, and when the walk finds a
/// byte it did not expect (it never should): then [`prepare`] decides.
///
/// The walk follows the recording: serde_json read all of `text` into exactly these events,
/// in text order, so each event's token starts at the first byte after the previous token that
/// is neither whitespace nor `,`, `:`, `]` or `}` (the closing brackets have no event). Most
/// tokens' lengths are known without reading them: a bracket is one byte, a literal four or
/// five, a `u64` or `i64` event its digits (a token visited as an integer is the integer's
/// digits, [`FloatSeen`]), and a string without escapes its text's length and two quotes (an
/// escape makes the token longer than its text, so when the quote is not there, or is escaped,
/// [`json_text::string_end`] finds it). Only a float's token is read.
pub(super) fn floats_exact(text: &[u8], tape: &mut Tape) -> bool {
    let mut at = 0;
    for ev in &mut tape.ev {
        while let Some(b' ' | b'\n' | b'\r' | b'\t' | b',' | b':' | b']' | b'}') = text.get(at) {
            at += 1;
        }
        let Some(&first) = text.get(at) else {
            return false;
        };
        at = match (*ev, first) {
            (Ev::Obj { .. }, b'{') | (Ev::Arr { .. }, b'[') => at + 1,
            (Ev::Null, b'n') | (Ev::Bool(true), b't') => at + 4,
            (Ev::Bool(false), b'f') => at + 5,
            (Ev::U64(v), b'0'..=b'9') => at + digits(v),
            (Ev::I64(v), b'-' | b'0'..=b'9') => at + usize::from(v < 0) + digits(v.unsigned_abs()),
            (Ev::Key(_, len) | Ev::Str(_, len), b'"') => {
                let close = at + 1 + len as usize;
                if text.get(close) == Some(&b'"') && text[close - 1] != b'\\' {
                    close + 1
                } else {
                    json_text::string_end(text, at + 1)
                }
            }
            (Ev::F64(_), b'-' | b'0'..=b'9') => match json_text::number_kept(text, at) {
                (end, NumberKept::Plain) => end,
                (end, NumberKept::Nearest(nearest)) => {
                    *ev = Ev::F64(nearest);
                    end
                }
                (_, NumberKept::Lost) => return false,
            },
            _ => return false,
        };
    }
    true
}

/// How many decimal digits `v` has.
fn digits(v: u64) -> usize {
    // Most integers in documents are small: compared before the general logarithm.
    match v {
        0..10 => 1,
        10..100 => 2,
        100..1000 => 3,
        1000..10000 => 4,
        _ => v.ilog10() as usize + 1,
    }
}

/// What is recorded in place of a number event: its token's §2 canonical text (a token that
/// loses digits as an `f64`), or its nearest `f64` (a float serde_json may read one unit in the
/// last place off, [`json_text::read_exactly`]).
#[derive(Debug, PartialEq)]
enum Due {
    Text(String),
    Float(f64),
}

/// The numbers due, by number event.
pub(super) struct DueNumbers {
    /// (index of the number event, what to record), in text order.
    due: Vec<(usize, Due)>,
    /// Number events seen so far, and the next entry of `due`.
    seen: Cell<usize>,
    next: Cell<usize>,
}

impl Numbers for &DueNumbers {
    fn number(
        self,
        tape: &mut Tape,
        record: impl FnOnce(&mut Tape) -> crate::Result<()>,
    ) -> crate::Result<()> {
        let n = self.seen.get();
        self.seen.set(n + 1);
        match self.due.get(self.next.get()) {
            Some((at, due)) if *at == n => {
                self.next.set(self.next.get() + 1);
                match due {
                    Due::Text(text) => tape.push_number(text),
                    Due::Float(v) => {
                        tape.ev.push(Ev::F64(*v));
                        Ok(())
                    }
                }
            }
            _ => record(tape),
        }
    }
}

impl DueNumbers {
    /// Whether a token loses digits (is recorded as text), not only read off.
    #[cfg(test)]
    pub(super) fn loses_digits(&self) -> bool {
        self.due.iter().any(|(_, due)| matches!(due, Due::Text(_)))
    }
}

/// The text serde_json is to parse, and the numbers to record in place of its placeholders
/// (`0` and spaces, the token's length): every token that loses digits as an `f64`, as its
/// canonical text, and every float that keeps its value but that serde_json may read off, as
/// its nearest `f64`. `None` when no token is either.
///
/// # Errors
///
/// A number whose exponent reaches ±2^40 (its canonical text would be another number).
pub(super) fn prepare(text: &[u8]) -> serde_json::Result<Option<(Cow<'_, [u8]>, DueNumbers)>> {
    let mut due = Vec::new();
    let mut copy: Option<Vec<u8>> = None;
    for (n, range) in json_text::numbers(text).enumerate() {
        let token = &text[range.clone()];
        let exact = if json_text::exact_in_f64(token) {
            if json_text::read_exactly(token) || json_text::reads_as_integer(token) {
                continue;
            }
            match json_text::nearest(token) {
                Some(v) => Due::Float(v),
                None => continue,
            }
        } else {
            // Not a JSON number at all (`01`, `1.`): left for serde_json to report.
            match json_text::canonical(token) {
                Some(exact) => Due::Text(exact),
                None => {
                    if json_text::is_number(token) {
                        let shown =
                            String::from_utf8_lossy(&token[..token.len().min(40)]).into_owned();
                        return Err(serde_json::Error::custom(format_args!(
                            "number {shown} has an exponent beyond ±2^40 at byte {}",
                            range.start
                        )));
                    }
                    continue;
                }
            }
        };
        let copy = copy.get_or_insert_with(|| text.to_vec());
        copy[range.start] = b'0';
        copy[range.start + 1..range.end].fill(b' ');
        due.push((n, exact));
    }
    Ok(copy.map(|copy| {
        let exact = DueNumbers {
            due,
            seen: Cell::new(0),
            next: Cell::new(0),
        };
        (Cow::Owned(copy), exact)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_numbers_that_lose_digits_are_replaced() {
        assert!(
            prepare(br#"{"a": [1, 2.5, -0, 1e21, "18446744073709551616"]}"#)
                .unwrap()
                .is_none()
        );
        let (text, exact) = prepare(br#"[1, 18446744073709551616, "1e400", 1E400, 01]"#)
            .unwrap()
            .unwrap();
        assert_eq!(&*text, br#"[1, 0                   , "1e400", 0    , 01]"#);
        assert_eq!(
            exact.due,
            [
                (1, Due::Text("18446744073709551616".into())),
                (2, Due::Text("1e+400".into()))
            ]
        );
        assert!(prepare(b"[1e99999999999999999999]").is_err());
    }
}
