//! §14.3 for recordings: an object that repeats a key keeps one entry for it, at the first
//! key's place, with the last value, as `JSON.parse` (the reference CLI's reader) and
//! `toon::Value` resolve it. Recorded as it came, the key would be written twice, and strict
//! decoding refuses that TOON (found by the `json` fuzz target: `{"a": 1, "a": 2}` encoded as
//! `a: 1\na: 2`).

use std::collections::HashMap;

use crate::ser::tape::{Ev, Tape};

/// `tape` without repeated keys: itself when no object repeats one (the common case costs a
/// look at each object's keys), else a copy with each object's entries resolved.
pub(super) fn resolve(tape: Tape) -> Tape {
    let repeats =
        tape.ev.iter().enumerate().any(|(i, ev)| {
            matches!(ev, Ev::Obj { len, .. } if *len >= 2) && repeats_a_key(&tape, i)
        });
    if !repeats {
        return tape;
    }
    let mut ev = Vec::with_capacity(tape.ev.len());
    copy(&tape, 0, &mut ev);
    Tape {
        ev,
        text: tape.text,
    }
}

/// Whether the object at `i` has a key twice.
fn repeats_a_key(tape: &Tape, i: usize) -> bool {
    const FEW: usize = 8;
    if tape.len(i) <= FEW {
        let mut seen = [""; FEW];
        for (n, (key, _)) in tape.entries(i).enumerate() {
            if seen[..n].contains(&key) {
                return true;
            }
            seen[n] = key;
        }
        return false;
    }
    let mut keys: Vec<&str> = tape.entries(i).map(|(key, _)| key).collect();
    keys.sort_unstable();
    keys.windows(2).any(|pair| pair[0] == pair[1])
}

/// Appends the value at `i` to `out`, its objects' repeated keys resolved; containers' `end`
/// indices are `out`'s.
fn copy(tape: &Tape, i: usize, out: &mut Vec<Ev>) {
    match tape.ev[i] {
        Ev::Arr { len, .. } => {
            let at = out.len();
            out.push(Ev::Arr { len, end: 0 });
            for element in tape.elements(i) {
                crate::stack::nested(|| copy(tape, element, out));
            }
            close(out, at, len);
        }
        Ev::Obj { .. } => {
            // Each key at its first place, with its last value (the value's index).
            let mut places: HashMap<&str, usize, foldhash::fast::RandomState> = HashMap::default();
            let mut entries: Vec<usize> = Vec::with_capacity(tape.len(i));
            for (key, value) in tape.entries(i) {
                match places.get(key) {
                    Some(&n) => entries[n] = value,
                    None => {
                        places.insert(key, entries.len());
                        entries.push(value);
                    }
                }
            }
            let at = out.len();
            out.push(Ev::Obj { len: 0, end: 0 });
            for &value in &entries {
                // A value's key is the event before it (the keys are equal: any of them).
                out.push(tape.ev[value - 1]);
                crate::stack::nested(|| copy(tape, value, out));
            }
            // No more entries than the object had, which fit in a `u32`.
            close(out, at, u32::try_from(entries.len()).unwrap_or(u32::MAX));
        }
        ev => out.push(ev),
    }
}

/// Sets the container at `at` to `len` entries ending where `out` ends now (no longer than
/// the tape it copies, whose indices fit in a `u32`).
fn close(out: &mut [Ev], at: usize, len: u32) {
    let end = u32::try_from(out.len()).unwrap_or(u32::MAX);
    if let Ev::Arr { len: l, end: e } | Ev::Obj { len: l, end: e } = &mut out[at] {
        *l = len;
        *e = end;
    }
}

#[cfg(test)]
mod tests {
    use crate::{Recording, Value};

    fn recorded(text: &str) -> String {
        crate::to_string(&Recording::from_json_slice(text.as_bytes()).unwrap()).unwrap()
    }

    #[test]
    fn a_repeated_key_keeps_its_first_place_and_its_last_value_as_value_does() {
        let wide: Vec<String> = (0..20).map(|i| format!(r#""k{}": {i}"#, i % 13)).collect();
        let wide = format!("{{{}}}", wide.join(","));
        for text in [
            r#"{"a": 1, "b": 2, "a": 3}"#,
            r#"{"items": [{"a": 1, "b": 2, "b": 1}, {"c": 30, "b": 20, "a": 10}]}"#,
            r#"{"x": {"y": [1, {"z": 1, "z": {"deep": [true]}}]}, "x": {"y": 2}, "w": null}"#,
            r#"[{"t": "a", "t": "b"}, {"t": "c"}, {"t": "d"}]"#,
            r#"{"f": 2.9168327507216497e-10, "g": 0.1, "f": 1.5}"#,
            r#"{"a": 1, "b": 2}"#,
            &wide,
        ] {
            let value: Value = crate::json::from_str(text).unwrap();
            let want = crate::to_string(&value).unwrap();
            assert_eq!(recorded(text), want, "{text}");
            // Strict decoding takes what is written.
            crate::from_str::<Value>(&want).unwrap();
        }
        // Every digit still kept, the repeated key's last value too.
        assert_eq!(
            recorded(
                r#"{"n": 18446744073709551616, "m": 1e400, "n": 0.1000000000000000055511151231257827}"#
            ),
            "n: 0.1000000000000000055511151231257827\nm: 1e+400"
        );
        // Any self-describing deserializer's object alike.
        let doc: Recording = serde_json::from_str(r#"{"a": 1, "a": [2]}"#).unwrap();
        assert_eq!(crate::to_string(&doc).unwrap(), "a[1]: 2");
    }
}
