//! §14.3 duplicate sibling keys: strict mode rejects them.

use std::borrow::Cow;
use std::collections::HashSet;

use foldhash::fast::RandomState;

use super::scanner::Line;
use crate::error::{Error, QuotedInput};

/// A key on the shared stack with its [`fingerprint`]: the decoder's keys are borrowed from
/// the input only (a key with escapes moves its object to a set).
pub(crate) type Keyed<'de> = (u64, &'de str);

/// How a stack keeps its keys: the decoder's borrows them from the input (`&str`: a key with
/// escapes moves its object to a set); the event reader's (`stream/`) keeps any key (`Cow`),
/// since its keys may be copies out of a line buffer.
pub(crate) trait Stored<'de>: Sized {
    /// The key as this stack keeps it, if it can.
    // A `&Cow`, not a `&str`: whether the key is borrowed from the input is what decides.
    #[allow(clippy::ptr_arg)]
    fn keep(key: &Cow<'de, str>) -> Option<Self>;
    fn text(&self) -> &str;
    fn into_cow(self) -> Cow<'de, str>;
}

impl<'de> Stored<'de> for &'de str {
    #[inline]
    fn keep(key: &Cow<'de, str>) -> Option<Self> {
        match key {
            Cow::Borrowed(borrowed) => Some(borrowed),
            Cow::Owned(_) => None,
        }
    }
    #[inline]
    fn text(&self) -> &str {
        self
    }
    fn into_cow(self) -> Cow<'de, str> {
        Cow::Borrowed(self)
    }
}

impl<'de> Stored<'de> for Cow<'de, str> {
    #[inline]
    fn keep(key: &Cow<'de, str>) -> Option<Self> {
        Some(key.clone())
    }
    #[inline]
    fn text(&self) -> &str {
        self
    }
    fn into_cow(self) -> Cow<'de, str> {
        self
    }
}

/// The key's length and its first, middle and last bytes in one word: unequal fingerprints
/// are unequal keys, so most comparisons are one integer compare, and computing it costs a
/// few loads whatever the key's length.
fn fingerprint(key: &str) -> u64 {
    let bytes = key.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(&first), Some(&last)) => {
            let middle = bytes[bytes.len() / 2];
            bytes.len() as u64
                | (u64::from(first) << 40)
                | (u64::from(middle) << 48)
                | (u64::from(last) << 56)
        }
        _ => 0,
    }
}

/// One of 64 bits, picked by a fingerprint (a multiplicative hash of it).
fn bit_of(mark: u64) -> u64 {
    1 << (mark.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58)
}

/// The keys of an object too wide for a linear search.
struct Many<'de>(HashSet<Cow<'de, str>, RandomState>);

/// Strict-mode duplicate sibling key detection (§14.3) for one object or keyed table. The keys
/// live on the decoder's stack shared by all open objects ([`super::Deserializer`]'s `keys`),
/// so an object allocates nothing; one with more than 16 keys, or a key with escapes (owned,
/// not borrowed from the input), moves its keys to a set.
pub(crate) struct SeenKeys<'de> {
    /// Where this object's keys start on the shared stack.
    base: usize,
    /// How many keys this object has pushed; nested objects push above them.
    len: usize,
    /// One bit per key, picked by its fingerprint: a key whose bit is clear is new without
    /// a search (most keys), a set bit sends it to the linear search.
    bits: u64,
    /// Boxed: rare, and it keeps every open object's state small.
    many: Option<Box<Many<'de>>>,
    /// How many keys to make room for when they move to a set: a keyed table's declared
    /// entry count (capped), so a wide table's set never grows and rehashes.
    expected: usize,
}

impl<'de> SeenKeys<'de> {
    /// The keys of an object opened now, whose size is not known in advance.
    pub(crate) fn open<T>(stack: &[(u64, T)]) -> Self {
        Self::sized(stack, 0)
    }

    /// The keys of a keyed table that declares `declared` entries (§9.5): a set, if it comes
    /// to one, is made that large at once, up to a cap (the count is the input's word).
    pub(crate) fn sized<T>(stack: &[(u64, T)], declared: usize) -> Self {
        SeenKeys {
            base: stack.len(),
            len: 0,
            bits: 0,
            many: None,
            expected: declared.min(1 << 12),
        }
    }

    /// False if `key` was seen before.
    #[inline]
    #[allow(clippy::ptr_arg)] // the key is cloned as a `Cow` to stay borrowed when it can
    pub(crate) fn insert<T: Stored<'de>>(
        &mut self,
        stack: &mut Vec<(u64, T)>,
        key: &Cow<'de, str>,
    ) -> bool {
        // The common case, inline: a key the stack keeps whose bit is clear is new; it is
        // pushed above this object's keys when those are on top of the stack.
        if self.many.is_none()
            && self.len < 16
            && stack.len() == self.base + self.len
            && let Some(kept) = T::keep(key)
        {
            let mark = fingerprint(kept.text());
            let bit = bit_of(mark);
            if self.bits & bit == 0 {
                self.bits |= bit;
                stack.push((mark, kept));
                self.len += 1;
                return true;
            }
        }
        self.insert_searching(stack, key)
    }

    /// [`Self::insert`] for every other case: a set bit, an owned key, a wide object.
    #[cold]
    #[allow(clippy::ptr_arg)]
    fn insert_searching<T: Stored<'de>>(
        &mut self,
        stack: &mut Vec<(u64, T)>,
        key: &Cow<'de, str>,
    ) -> bool {
        if let Some(Many(set)) = self.many.as_deref_mut() {
            return set.insert(key.clone());
        }
        // Whatever a nested object left above this object's keys is not a sibling.
        if stack.len() != self.base + self.len {
            stack.truncate(self.base + self.len);
        }
        let mark = fingerprint(key);
        let bit = bit_of(mark);
        let mine = &stack[self.base..];
        if self.bits & bit != 0
            && mine
                .iter()
                .any(|(m, k)| *m == mark && k.text() == key.as_ref())
        {
            return false;
        }
        self.bits |= bit;
        match T::keep(key) {
            Some(kept) if mine.len() < 16 => {
                stack.push((mark, kept));
                self.len += 1;
            }
            _ => {
                let mut set = HashSet::with_capacity_and_hasher(
                    self.expected.max(2 * mine.len() + 2),
                    RandomState::default(),
                );
                set.extend(stack.drain(self.base..).map(|(_, k)| k.into_cow()));
                set.insert(key.clone());
                self.many = Some(Box::new(Many(set)));
            }
        }
        true
    }

    /// Removes this object's keys from the shared stack.
    pub(crate) fn close<T>(&self, stack: &mut Vec<(u64, T)>) {
        stack.truncate(self.base);
    }
}

pub(crate) fn duplicate(line: &Line<'_>, key: &str) -> Error {
    line.error(format!(
        "duplicate key {} (strict mode; non-strict keeps the last)",
        QuotedInput(key)
    ))
}

#[cfg(test)]
mod tests {
    use crate::Value;

    /// Keys with escapes (owned, not borrowed) are compared with borrowed ones both ways, and
    /// wide objects (past the linear search) keep finding repeats.
    #[test]
    fn repeated_keys_are_found_borrowed_owned_and_wide() {
        for text in [
            "a: 1\nb: 2\na: 3",
            "\"\\u0061\": 1\na: 2",
            "a: 1\n\"\\u0061\": 2",
            "\"x\\ty\": 1\nb: 2\n\"x\\ty\": 3",
            "o:\n  a: 1\n  n:\n    a: 2\n  a: 3",
        ] {
            let err = crate::from_str::<Value>(text).unwrap_err();
            assert!(err.to_string().contains("duplicate key"), "{text:?}: {err}");
        }
        let wide: String = (0..40).map(|i| format!("k{i}: {i}\n")).collect();
        assert!(crate::from_str::<Value>(&wide).is_ok());
        let repeated = format!("{wide}k3: 0");
        assert!(crate::from_str::<Value>(&repeated).is_err());
        let escaped_wide = format!("\"\\u006b0\": 0\n{}", &wide[wide.find('\n').unwrap() + 1..]);
        let repeated = format!("{escaped_wide}k0: 1");
        assert!(crate::from_str::<Value>(&escaped_wide).is_ok());
        assert!(crate::from_str::<Value>(&repeated).is_err());
        // Up to the linear search's width, with keys whose bits collide: every repeat of
        // every key is found, and distinct keys never are.
        for n in 1..=16 {
            let keys: Vec<String> = (0..n).map(|i| format!("key{}", i * 7)).collect();
            let distinct: String = keys.iter().map(|k| format!("{k}: 1\n")).collect();
            assert!(crate::from_str::<Value>(&distinct).is_ok(), "{distinct}");
            for k in &keys {
                let repeated = format!("{distinct}{k}: 2");
                assert!(crate::from_str::<Value>(&repeated).is_err(), "{repeated}");
            }
        }
        // A wide keyed table (§9.5) finds repeated entry keys in its presized set.
        let entries: String = (0..40).map(|i| format!("  e{i}: {i}\n")).collect();
        let table = format!("t[40:]{{v}}:\n{entries}");
        assert!(crate::from_str::<Value>(&table).is_ok());
        let repeated = format!("t[41:]{{v}}:\n{entries}  e7: 0");
        let err = crate::from_str::<Value>(&repeated).unwrap_err();
        assert!(err.to_string().contains("duplicate key"), "{err}");
        // Siblings in different objects are not repeats.
        assert!(crate::from_str::<Value>("o:\n  a: 1\n  n:\n    a: 2\n  b: 3").is_ok());
    }
}
