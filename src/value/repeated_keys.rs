//! A key repeated in one object, resolved as `JSON.parse` (and serde_json's `Value`) resolve
//! it: one entry, at the first key's place, holding the last value. Without this a recording
//! would keep both entries, and its TOON would be refused by strict decoding (§14.3 duplicate
//! keys).
//!
//! Repeats are rare, so the common path must cost little: each object being recorded keeps a
//! 64-bit filter of its keys' shapes (length, first and last byte) on the stack, and only a key
//! whose bit is already set is compared with the object's earlier keys; an object wider than
//! the filter serves keeps its keys' hashes in a set.

use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;

use foldhash::fast::RandomState;

use crate::ser::tape::{Ev, Tape};

/// Past this many keys an object's filter would fill up: its keys go to a set instead.
const FILTERED: u32 = 24;

/// The keys of one object being recorded.
#[derive(Default)]
pub(super) struct KeyFilter {
    /// One bit per key, chosen by its [`shape`].
    seen: u64,
    count: u32,
    /// Whether the last key noted may repeat an earlier one (its bit was set, or the object
    /// is too wide for the filter).
    suspect: bool,
    /// The keys' full hashes, for a wide object.
    wide: Option<(HashSet<u64>, RandomState)>,
}

impl KeyFilter {
    /// Notes a key as it is recorded.
    #[inline(always)]
    pub(super) fn note(&mut self, key: &[u8]) {
        self.count = self.count.saturating_add(1);
        let bit = 1u64 << shape(key);
        self.suspect = self.seen & bit != 0 || self.count > FILTERED;
        self.seen |= bit;
    }

    /// Whether the key just recorded (the tape's last event) repeats an earlier key of the
    /// object opened at `object`: only a suspect key is looked up.
    #[inline(always)]
    pub(super) fn repeats(&mut self, tape: &Tape, object: usize) -> bool {
        self.suspect && self.look_up(tape, object)
    }

    /// Whether the last key is one of the object's earlier keys: compared with each (a
    /// narrow object), or by its full hash, and only for an equal hash by the keys themselves.
    #[inline(never)]
    fn look_up(&mut self, tape: &Tape, object: usize) -> bool {
        let before = tape.ev.len() - 1;
        let Ev::Key(s, l) = tape.ev[before] else {
            unreachable!("a key was just recorded")
        };
        let key = tape.str_at(s, l).as_bytes();
        if self.count > FILTERED {
            let (set, hasher) = self.wide.get_or_insert_with(|| {
                let hasher = RandomState::default();
                let earlier = earlier_keys(tape, object, before).map(|k| hasher.hash_one(k));
                (earlier.collect(), hasher)
            });
            if set.insert(hasher.hash_one(key)) {
                return false;
            }
        }
        earlier_keys(tape, object, before).any(|k| k == key)
    }
}

/// One of 64 buckets for a key, from its length and its first and last bytes: keys of one
/// object nearly always differ in one of those.
#[inline(always)]
fn shape(key: &[u8]) -> u32 {
    let (first, last) = match key {
        [first, .., last] => (*first, *last),
        [only] => (*only, *only),
        [] => (0, 0),
    };
    let mixed = (key.len() as u32 ^ u32::from(first) << 8 ^ u32::from(last) << 16)
        .wrapping_mul(0x9E37_79B9);
    mixed >> 26
}

/// The keys of the object at `object` recorded before the event at `before`.
fn earlier_keys(tape: &Tape, object: usize, before: usize) -> impl Iterator<Item = &[u8]> {
    let mut at = object + 1;
    std::iter::from_fn(move || {
        if at >= before {
            return None;
        }
        let Ev::Key(s, l) = tape.ev[at] else {
            unreachable!("object entries start with a key")
        };
        at = tape.next(at + 1);
        Some(tape.str_at(s, l).as_bytes())
    })
}

/// Rewrites the (closed) object at `object`, whose entries repeat a key, with each key once,
/// at its first place, holding its last value. The text of dropped entries stays in the arena.
pub(super) fn keep_last_values(tape: &mut Tape, object: usize) {
    // (key event, value range) of each distinct key, in first-seen order.
    let mut order: Vec<(usize, usize, usize)> = Vec::new();
    let mut place: HashMap<&str, usize> = HashMap::new();
    let end = tape.next(object);
    let mut at = object + 1;
    while at < end {
        let Ev::Key(s, l) = tape.ev[at] else {
            unreachable!("object entries start with a key")
        };
        let value_end = tape.next(at + 1);
        match place.get(tape.str_at(s, l)) {
            Some(&i) => order[i] = (order[i].0, at + 1, value_end),
            None => {
                place.insert(tape.str_at(s, l), order.len());
                order.push((at, at + 1, value_end));
            }
        }
        at = value_end;
    }
    let mut events = Vec::with_capacity(end - object - 1);
    for &(key, from, to) in &order {
        events.push(tape.ev[key]);
        let shift = (object + 1 + events.len()) as i64 - from as i64;
        events.extend(tape.ev[from..to].iter().map(|ev| moved(*ev, shift)));
    }
    let len = order.len() as u32;
    drop(place);
    tape.ev.truncate(object + 1);
    tape.ev.extend(events);
    let end = tape.ev.len() as u32;
    tape.ev[object] = Ev::Obj { len, end };
}

/// An event moved by `shift` places: a container's end moves with it.
fn moved(ev: Ev, shift: i64) -> Ev {
    let to = |end: u32| (i64::from(end) + shift) as u32;
    match ev {
        Ev::Arr { len, end } => Ev::Arr { len, end: to(end) },
        Ev::Obj { len, end } => Ev::Obj { len, end: to(end) },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use crate::Recording;

    fn toon(json: &str) -> String {
        crate::to_string(&Recording::from_json_slice(json.as_bytes()).unwrap()).unwrap()
    }

    #[test]
    fn a_repeated_key_keeps_its_first_place_and_its_last_value() {
        assert_eq!(toon(r#"{"a":1,"b":2,"a":3}"#), "a: 3\nb: 2");
        assert_eq!(toon(r#"{"a":1,"a":2,"a":3}"#), "a: 3");
    }

    #[test]
    fn nested_values_move_with_their_key() {
        let json = r#"{"a":{"x":[1,2]},"b":[{"c":1,"c":2}],"a":{"y":{"z":true}},"d":0}"#;
        assert_eq!(toon(json), "a:\n  y:\n    z: true\nb[1]{c}:\n  2\nd: 0");
        let doc = Recording::from_json_slice(json.as_bytes()).unwrap();
        assert_eq!(
            serde_json::to_string(&doc).unwrap(),
            r#"{"a":{"y":{"z":true}},"b":[{"c":2}],"d":0}"#
        );
    }

    #[test]
    fn floats_after_a_repeated_key_keep_their_own_values() {
        // The float walk follows the recording event by event: resolved, it is not walked.
        let json = r#"{"a": 1e-07, "b": 1.5e+300, "c": 1e+21,"a": 1e-07, "b": 1.5e+300, "c": 1e+21, "d": 100000000000000000000,  "d": 100000000000000000000, "e": 1e-06, "f": -2.5e-08}"#;
        let want =
            "a: 1e-7\nb: 1.5e+300\nc: 1e+21\nd: 100000000000000000000\ne: 0.000001\nf: -2.5e-8";
        assert_eq!(toon(json), want);
    }

    #[test]
    fn keys_of_the_same_shape_are_not_taken_for_repeats() {
        // Same length, first and last byte: the filter's bucket is shared, the keys are not.
        assert_eq!(toon(r#"{"abc":1,"axc":2,"abc":3}"#), "abc: 3\naxc: 2");
        assert_eq!(toon(r#"{"abc":1,"axc":2}"#), "abc: 1\naxc: 2");
    }

    #[test]
    fn the_same_as_serde_json_s_value_on_many_keys() {
        let keys: Vec<String> = (0..300).map(|i| format!(r#""k{}":{i}"#, i % 97)).collect();
        let json = format!("{{{}}}", keys.join(","));
        let doc = Recording::from_json_slice(json.as_bytes()).unwrap();
        let theirs: serde_json::Value = serde_json::from_str(&json).unwrap();
        let ours: serde_json::Value = serde_json::to_value(&doc).unwrap();
        assert_eq!(ours, theirs);
        let toon_text = crate::to_string(&doc).unwrap();
        let back: crate::Value = crate::from_str(&toon_text).unwrap();
        assert_eq!(serde_json::Value::from(back), theirs);
    }
}
