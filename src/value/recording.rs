//! [`Recording`]: a compact, read-only recording of one value's serde events, for converting
//! large inputs.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, Serializer};

use super::exact_json::{self, FloatSeen, Numbers, Plain};
use super::repeated_keys::{self, KeyFilter};
use crate::ser::tape::{Ev, Tape, TapeValue};

/// Any value of the JSON data model, recorded compactly: 16 bytes per scalar, key and
/// container, and all text in one buffer. It deserializes from any self-describing format
/// (JSON, TOON, ...) and serializes as often as needed, in order. It cannot be inspected or
/// changed; use [`Value`](crate::Value) for that.
///
/// This is what converting a large document needs: TOON's layout looks at each array twice
/// (§9.3, is every element a uniform object?), so the input must be held somewhere, and a
/// `Recording` holds it in about a fifth of a `Value`'s memory (JSON of the benchmark data sets:
/// 1.8–2.6× its text, where `Value` takes 9–14×).
///
/// ```
/// let doc: toon::Recording = serde_json::from_str(r#"{"users":[{"id":1,"name":"Ada"},{"id":2,"name":"Bob"}]}"#).unwrap();
/// assert_eq!(toon::to_string(&doc).unwrap(), "users[2]{id,name}:\n  1,Ada\n  2,Bob");
/// assert_eq!(serde_json::to_string(&doc).unwrap(), r#"{"users":[{"id":1,"name":"Ada"},{"id":2,"name":"Bob"}]}"#);
/// ```
#[derive(Clone, Default)]
pub struct Recording {
    tape: Tape,
}

impl Recording {
    /// Bytes this recording holds (its events and its text), not counting spare capacity.
    ///
    /// ```
    /// let doc: toon::Recording = serde_json::from_str("[1,2,3]").unwrap();
    /// assert_eq!(doc.size(), 4 * 16);
    /// ```
    #[must_use]
    pub fn size(&self) -> usize {
        self.tape.ev.len() * std::mem::size_of::<Ev>() + self.tape.text.len()
    }
}

impl Recording {
    /// A smaller recording of the same layout, for estimating what renderings of this one cost
    /// without writing them whole: in every array and object of at least `2 × every`
    /// elements that lies in no such container, only every `every`-th element is kept (the
    /// first included); everything else is kept whole. Thinning once on each path keeps every
    /// part of the whole in the same proportion (thinned again inside, deep content would
    /// weigh `every` times less than shallow). A subset of a uniform array is uniform, so the
    /// sample is laid out as the whole is wherever the layout rests on uniformity (§9.3
    /// tabular arrays, §9.1 inline primitive arrays).
    ///
    /// ```
    /// let rows: Vec<String> = (0..100).map(|i| format!(r#"{{"id":{i}}}"#)).collect();
    /// let text = format!(r#"{{"rows":[{}]}}"#, rows.join(","));
    /// let doc = toon::Recording::from_json_slice(text.as_bytes()).unwrap();
    /// let sample = doc.sample(10);
    /// assert!(sample.representative);
    /// assert!(toon::to_string(&sample.recording).unwrap().starts_with("rows[10]{id}:\n  0\n  10\n"));
    /// ```
    #[must_use]
    pub fn sample(&self, every: usize) -> RecordingSample {
        let mut copy = Thinning {
            src: &self.tape,
            out: Tape::default(),
            every: every.max(1),
            outside: 0,
        };
        // The copy is smaller than the recording, so the arena limits it checks cannot fail;
        // if they did, the sample would say it stands for nothing.
        let copied = self.tape.ev.is_empty() || copy.item(0, false).is_ok();
        let (events, outside) = (copy.out.ev.len(), copy.outside);
        RecordingSample {
            representative: copied
                && events * 2 <= self.tape.ev.len()
                && events * 2 * copy.every >= self.tape.ev.len()
                && outside * 10 <= events,
            recording: Recording { tape: copy.out },
        }
    }
}

/// A [`Recording::sample`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct RecordingSample {
    /// The smaller recording.
    pub recording: Recording,
    /// Whether it stands for the whole: it has at most half the whole's items, at least half
    /// its share of them (`1 / every`: fewer, and the elements kept are not like the rest,
    /// as when an object of ten unlike members keeps the two smallest), and at most a tenth
    /// of its own lie outside the containers it thinned (kept whole beside what was thinned,
    /// those would weigh more in the sample than in the whole).
    pub representative: bool,
}

/// A [`Recording::sample`] being copied.
struct Thinning<'a> {
    src: &'a Tape,
    /// The sample, with only the text its events use (a sample is a small part of the whole).
    out: Tape,
    every: usize,
    /// Events copied outside every thinned container.
    outside: usize,
}

impl Thinning<'_> {
    /// Copies the item at `at`, containers thinned as [`Recording::sample`] says; `inside` when
    /// it lies in a thinned container.
    fn item(&mut self, at: usize, inside: bool) -> crate::Result<()> {
        let src = self.src;
        if !inside {
            self.outside += 1;
        }
        let object = match src.ev[at] {
            Ev::Arr { .. } => false,
            Ev::Obj { .. } => true,
            Ev::Str(s, l) => return self.out.push_str(src.str_at(s, l)),
            Ev::Big(s, l) => return self.out.push_big(src.str_at(s, l)),
            Ev::Num(s, l) => return self.out.push_number(src.str_at(s, l)),
            ev => {
                self.out.ev.push(ev);
                return Ok(());
            }
        };
        let step = if !inside && src.len(at) >= 2 * self.every {
            self.every
        } else {
            1
        };
        let inside = inside || step > 1;
        let open = self.out.open(object);
        let mut kept = 0;
        if object {
            for (key, value) in src.entries(at).step_by(step) {
                self.outside += usize::from(!inside);
                self.out.push_key(key)?;
                crate::stack::nested(|| self.item(value, inside))?;
                kept += 1;
            }
        } else {
            for value in src.elements(at).step_by(step) {
                crate::stack::nested(|| self.item(value, inside))?;
                kept += 1;
            }
        }
        self.out.close(open, kept)
    }
}

impl fmt::Debug for Recording {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Recording")
            .field("events", &self.tape.ev.len())
            .field("text_bytes", &self.tape.text.len())
            .finish()
    }
}

impl Serialize for Recording {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.tape.ev.is_empty() {
            // `Recording::default()`: nothing recorded.
            return serializer.serialize_unit();
        }
        TapeValue {
            tape: &self.tape,
            at: 0,
        }
        .serialize(serializer)
    }
}

impl Recording {
    /// Parses JSON text keeping every number's exact decimal value: a number with more digits
    /// than `u64`, `i64` or `f64` hold (`18446744073709551616`,
    /// `0.1000000000000000055511151231257827`), or beyond `f64`'s range (`1e400`, which
    /// serde_json refuses), is recorded as its text and encodes to TOON with all its digits,
    /// in §2 canonical form (`1e400` → `1e+400`). Everything else is what
    /// `serde_json::from_slice` records; a text with a fraction or an exponent in a number
    /// costs a walk over its tokens to read those, a text of integers nothing more.
    ///
    /// A key repeated in one object is kept once, at its first place, with its last value, as
    /// `JSON.parse` and serde_json's `Value` keep it (`{"a":1,"b":2,"a":3}` → `a: 3`, `b: 2`).
    ///
    /// Serialized to formats other than TOON, such a number is its canonical text as a string
    /// (serde has no number with more digits than `f64`).
    ///
    /// ```
    /// let doc = toon::Recording::from_json_slice(br#"{"id": 18446744073709551616, "e": 1E400}"#).unwrap();
    /// assert_eq!(toon::to_string(&doc).unwrap(), "id: 18446744073709551616\ne: 1e+400");
    /// ```
    ///
    /// # Errors
    ///
    /// serde_json's error for text that is not JSON (with its line and column), and a number
    /// whose exponent reaches ±2^40.
    pub fn from_json_slice(text: &[u8]) -> serde_json::Result<Recording> {
        // What `serde_json::from_slice` records, noting whether a number came as an `f64`:
        // without one, no token can have lost digits (`exact_json::FloatSeen`), so most
        // documents need no scan. With one, the floats' tokens are found by walking the text
        // along the recording (`floats_exact`, which skips strings by their length, and makes
        // each float its token's nearest `f64` where serde_json read it otherwise). When a
        // token did lose digits, or the text is not JSON as it stands (it may be once `1e400`
        // is replaced), the scan decides as it always did; when it finds nothing to replace,
        // the first parse is the answer, error included.
        let floats = FloatSeen::default();
        let mut first = Recording::parse(text, &floats);
        // A recording whose repeated keys were resolved no longer follows the text event by
        // event: its floats are left to the scan.
        if let Ok(doc) = &mut first
            && (!floats.seen()
                || (!floats.repeated() && exact_json::floats_exact(text, &mut doc.tape)))
        {
            return first;
        }
        match exact_json::prepare(text)? {
            None => first,
            Some((text, exact)) => Recording::parse(&text, &exact),
        }
    }

    /// Parses JSON as `serde_json::from_slice` does (trailing characters are an error).
    fn parse<N: Numbers>(text: &[u8], numbers: N) -> serde_json::Result<Recording> {
        let mut de = serde_json::Deserializer::from_slice(text);
        let mut tape = Tape::default();
        ValueRecorder(&mut tape, numbers).deserialize(&mut de)?;
        de.end()?;
        Ok(Recording::finish(tape))
    }

    fn finish(mut tape: Tape) -> Recording {
        tape.ev.shrink_to_fit();
        tape.text.shrink_to_fit();
        Recording { tape }
    }
}

impl<'de> de::Deserialize<'de> for Recording {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut tape = Tape::default();
        ValueRecorder(&mut tape, Plain).deserialize(deserializer)?;
        Ok(Recording::finish(tape))
    }
}

/// Records one value (and everything in it) at the end of the tape; `N` says what to do with
/// its numbers (`exact_json`).
struct ValueRecorder<'t, N>(&'t mut Tape, N);

impl<'de, N: Numbers> DeserializeSeed<'de> for ValueRecorder<'_, N> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<N: Numbers> ValueRecorder<'_, N> {
    fn scalar<E>(self, ev: Ev) -> Result<(), E> {
        self.0.ev.push(ev);
        Ok(())
    }

    fn number<E: de::Error>(self, ev: Ev) -> Result<(), E> {
        self.1
            .number(self.0, |tape| {
                tape.ev.push(ev);
                Ok(())
            })
            .map_err(E::custom)
    }

    fn text<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.0.push_str(v).map_err(E::custom)
    }
}

impl<'de, N: Numbers> Visitor<'de> for ValueRecorder<'_, N> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value of the JSON data model")
    }

    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        self.scalar(Ev::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.number(Ev::I64(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.number(Ev::U64(v))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<(), E> {
        self.1
            .number(self.0, |tape| tape.push_i128(v))
            .map_err(E::custom)
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<(), E> {
        self.1
            .number(self.0, |tape| tape.push_u128(v))
            .map_err(E::custom)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        self.1.float();
        self.number(Ev::F64(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.text(v)
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<(), E> {
        self.0.push_bytes(v).map_err(E::custom)
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        self.scalar(Ev::Null)
    }
    fn visit_none<E>(self) -> Result<(), E> {
        self.scalar(Ev::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let (tape, numbers) = (self.0, self.1);
        let at = tape.open(false);
        let mut count = 0u32;
        while seq
            .next_element_seed(ValueRecorder(&mut *tape, numbers))?
            .is_some()
        {
            count = count.checked_add(1).ok_or_else(too_many::<A::Error>)?;
        }
        tape.close(at, count).map_err(de::Error::custom)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let (tape, numbers) = (self.0, self.1);
        let at = tape.open(true);
        let mut count = 0u32;
        let (mut keys, mut repeated) = (KeyFilter::default(), false);
        while map
            .next_key_seed(KeyRecorder(&mut *tape, &mut keys))?
            .is_some()
        {
            repeated = repeated || keys.repeats(tape, at);
            map.next_value_seed(ValueRecorder(&mut *tape, numbers))?;
            count = count.checked_add(1).ok_or_else(too_many::<A::Error>)?;
        }
        tape.close(at, count).map_err(de::Error::custom)?;
        if repeated {
            // `JSON.parse`'s rule: one entry, first place, last value.
            repeated_keys::keep_last_values(tape, at);
            numbers.repeated();
        }
        Ok(())
    }
}

fn too_many<E: de::Error>() -> E {
    E::custom("an array or object with more than 4294967295 entries")
}

/// Records an object key: a string, or an integer or boolean key's text (as serde_json does),
/// noting it in its object's [`KeyFilter`].
struct KeyRecorder<'t>(&'t mut Tape, &'t mut KeyFilter);

impl<'de> DeserializeSeed<'de> for KeyRecorder<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl KeyRecorder<'_> {
    fn key<E: de::Error>(self, key: &str) -> Result<(), E> {
        self.1.note(key.as_bytes());
        self.0.push_key(key).map_err(E::custom)
    }
}

impl<'de> Visitor<'de> for KeyRecorder<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.key(v)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.key(if v { "true" } else { "false" })
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.key(itoa::Buffer::new().format(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.key(itoa::Buffer::new().format(v))
    }
    fn visit_char<E: de::Error>(self, v: char) -> Result<(), E> {
        self.key(v.encode_utf8(&mut [0; 4]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_keeps_every_nth_element_of_long_containers_and_the_shape() {
        let rows: Vec<String> = (0..10)
            .map(|i| format!(r#"{{"id":{i},"tags":["a","b"]}}"#))
            .collect();
        let text = format!(r#"{{"rows":[{}],"n":{{"x":1}}}}"#, rows.join(","));
        let doc = Recording::from_json_slice(text.as_bytes()).unwrap();
        let sample = doc.sample(3);
        // `n` is kept whole beside the thinned rows: 7 of the sample's 35 items.
        assert!(!sample.representative);
        let sampled = sample.recording;
        assert_eq!(
            serde_json::to_string(&sampled).unwrap(),
            r#"{"rows":[{"id":0,"tags":["a","b"]},{"id":3,"tags":["a","b"]},{"id":6,"tags":["a","b"]},{"id":9,"tags":["a","b"]}],"n":{"x":1}}"#
        );
        assert_eq!(
            crate::to_string(&sampled).unwrap(),
            "rows[4]:\n  - id: 0\n    tags[2]: a,b\n  - id: 3\n    tags[2]: a,b\n  - id: 6\n    tags[2]: a,b\n  - id: 9\n    tags[2]: a,b\nn:\n  x: 1"
        );
        // Short containers, and every one with a step of 1, stay whole.
        assert_eq!(
            serde_json::to_string(&doc.sample(1).recording).unwrap(),
            serde_json::to_string(&doc).unwrap()
        );
        let object = Recording::from_json_slice(br#"{"a":1,"b":2,"c":3,"d":4,"e":5}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&object.sample(2).recording).unwrap(),
            r#"{"a":1,"c":3,"e":5}"#
        );
    }

    #[test]
    fn a_sample_thins_once_on_each_path_and_only_stands_for_like_elements() {
        // Rows with long tag lists: every third row, each kept whole, tags and all.
        let row = |i: usize| format!(r#"{{"id":{i},"tags":[1,2,3,4,5,6]}}"#);
        let rows: Vec<String> = (0..10).map(row).collect();
        let text = format!("[{}]", rows.join(","));
        let doc = Recording::from_json_slice(text.as_bytes()).unwrap();
        let sample = doc.sample(3);
        assert!(sample.representative);
        let kept: Vec<String> = [0, 3, 6, 9].into_iter().map(row).collect();
        assert_eq!(
            serde_json::to_string(&sample.recording).unwrap(),
            format!("[{}]", kept.join(","))
        );
        // Four unlike members, and the two kept are the small ones: a sample of 27 items
        // where its share of the 2,027 is about 1,000 stands for nothing.
        let short: Vec<String> = (0..12).map(|i| i.to_string()).collect();
        let long: Vec<String> = (0..1000).map(|i| i.to_string()).collect();
        let (short, long) = (short.join(","), long.join(","));
        let text = format!(r#"{{"a":[{short}],"b":[{long}],"c":[{short}],"d":[{long}]}}"#);
        let doc = Recording::from_json_slice(text.as_bytes()).unwrap();
        let sample = doc.sample(2);
        assert_eq!(
            serde_json::to_string(&sample.recording).unwrap(),
            format!(r#"{{"a":[{short}],"c":[{short}]}}"#)
        );
        assert!(!sample.representative);
    }
    use crate::{Value, toon};

    #[test]
    fn replays_what_it_recorded_in_order() {
        let json =
            r#"{"b":[1,-2,3.5,"x",null,true,{"k":[]},{}],"a":18446744073709551615,"e\n":"\u00e9"}"#;
        let doc: Recording = serde_json::from_str(json).unwrap();
        assert_eq!(
            serde_json::to_string(&doc).unwrap(),
            json.replace("\\u00e9", "é")
        );
        let value: Value = serde_json::from_str(json).unwrap();
        assert_eq!(
            crate::to_string(&doc).unwrap(),
            crate::to_string(&value).unwrap()
        );
    }

    #[test]
    fn records_from_toon_too() {
        let doc: Recording = crate::from_str("rows[2]{id,name}:\n  1,Ada\n  2,Bob").unwrap();
        assert_eq!(
            crate::to_value(&doc).unwrap(),
            toon!({"rows": [{"id": 1, "name": "Ada"}, {"id": 2, "name": "Bob"}]})
        );
    }

    #[test]
    fn integer_keys_become_text() {
        let doc: Recording =
            crate::from_value(toon!({"1": "a"})).unwrap_or_else(|_| unreachable!());
        assert_eq!(serde_json::to_string(&doc).unwrap(), r#"{"1":"a"}"#);
        let map: std::collections::BTreeMap<u32, bool> = [(7, true)].into();
        let doc: Recording = serde_json::from_str(&serde_json::to_string(&map).unwrap()).unwrap();
        assert_eq!(serde_json::to_string(&doc).unwrap(), r#"{"7":true}"#);
    }

    #[test]
    fn json_numbers_keep_every_digit_in_every_position() {
        let json = r#"{"root": 18446744073709551616, "keyed": {"a": {"x": 1e400, "y": 1},
            "b": {"x": 2, "y": -1e-400}}, "rows": [{"p": 0.1000000000000000055511151231257827}],
            "inline": [1, 123456789012345678901234567890], "list": [[1], -9223372036854775809],
            "plain": [1.5, 2, "3"]}"#;
        let doc = Recording::from_json_slice(json.as_bytes()).unwrap();
        let want = "root: 18446744073709551616
keyed[2:]{x,y}:
  a: 1e+400,1
  b: 2,-1e-400
rows[1]{p}:
  0.1000000000000000055511151231257827
inline[2]: 1,1.2345678901234567890123456789e+29
list[2]:
  - [1]: 1
  - -9223372036854775809
plain[3]: 1.5,2,\"3\"";
        assert_eq!(crate::to_string(&doc).unwrap(), want);
        // Through the serde `Serializer` (which records the root first) and with a delimiter.
        let mut out = Vec::new();
        doc.serialize(&mut crate::Serializer::new(&mut out))
            .unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), want);
        let tab = crate::EncodeOptions::new().delimiter(crate::Delimiter::Tab);
        assert!(
            crate::to_string_with(&doc, &tab)
                .unwrap()
                .contains("inline[2\t]: 1\t1.2345678901234567890123456789e+29")
        );
        let root = Recording::from_json_slice(b" 1E400 ").unwrap();
        assert_eq!(crate::to_string(&root).unwrap(), "1e+400");
        let mut out = Vec::new();
        root.serialize(&mut crate::Serializer::new(&mut out))
            .unwrap();
        assert_eq!(out, b"1e+400");
        // Other formats see the canonical text.
        assert_eq!(serde_json::to_string(&root).unwrap(), r#""1e+400""#);
    }

    #[test]
    fn json_without_lost_digits_records_as_serde_json_does() {
        let json = r#"{"a":[1,-2,3.5,1e21,18446744073709551615,-0.0],"b":"1e400"}"#;
        let exact = Recording::from_json_slice(json.as_bytes()).unwrap();
        let plain: Recording = serde_json::from_str(json).unwrap();
        assert_eq!(exact.size(), plain.size());
        assert_eq!(
            crate::to_string(&exact).unwrap(),
            crate::to_string(&plain).unwrap()
        );
    }

    /// The scan before every parse, as `from_json_slice` once did: the general path that
    /// skipping the scan for texts without a float must agree with.
    fn scanned_first(text: &[u8]) -> serde_json::Result<Recording> {
        match exact_json::prepare(text)? {
            None => serde_json::from_slice(text),
            Some((text, exact)) => Recording::parse(&text, &exact),
        }
    }

    #[test]
    fn parsing_first_agrees_with_scanning_first() {
        let mut texts: Vec<String> = Vec::new();
        for digits in 14..=21 {
            let n = "9".repeat(digits);
            let m = format!("1{}", "0".repeat(digits - 1));
            for token in [
                n.clone(),
                m.clone(),
                format!("-{n}"),
                format!("-{m}"),
                format!("0.{n}"),
                format!("{}.{}", &n[..digits / 2], &m[digits / 2..]),
                format!("{n}e5"),
                format!("-{m}E-7"),
            ] {
                texts.push(format!("[{token}]"));
                texts.push(format!(r#"{{"a\"b": {token}}}"#));
                texts.push(format!(r#"["\\", {token}, "x\"y", 1]"#));
                texts.push(token);
            }
        }
        for token in [
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "-0",
            "-0.0",
            "0e5",
            "1e-400",
            "1e400",
            "1E+2",
            "0.1000000000000000055511151231257827",
            "01",
            "1.",
            "1e99999999999999999999",
        ] {
            texts.push(token.to_string());
            texts.push(format!(r#"{{"k\n": [true, "\"", {token}]}}"#));
            texts.push(format!("[{token} 1]"));
        }
        // Whitespace and escapes that make a token longer than its text, around floats, so
        // that `floats_exact` walks through them.
        texts.extend(
            [
                "{\n  \"a\" : [ 1.5 ,\t-2 , 3 ] ,\r\n \"b\":\"\\u0041\\\\\", \"c\": 0.1000000000000000055511151231257827 }",
                r#"{"\u00e9": 2.5, "x\\": "\"", "y": [true, false, null, 18446744073709551615, -9223372036854775808], "z": 1.25}"#,
                r#"[{"k": "\\"}, 1.5, "\\\"", 12345678901234567.5, {}, []]"#,
                r#"[1.5, {"a": [], "b": {}}, "\ud83d\ude00", 0.30000000000000004, 1e-400]"#,
                // Floats serde_json reads one unit in the last place off without
                // `float_roundtrip`, and one it refuses though its nearest `f64` is finite.
                "[2.9168327507216497e-10, 3.8749963341276684e-11, 1.5, 7.390131665839233e-29]",
                "[1.7976931348623157e308, 2.9168327507216497e-10, 18446744073709551616]",
                " [0.5] ",
            ]
            .map(String::from),
        );
        for text in &texts {
            // The walk along the recording says what the scan says, on any JSON text.
            if let Ok(mut first) = Recording::parse(text.as_bytes(), &FloatSeen::default()) {
                let scan = exact_json::prepare(text.as_bytes());
                assert_eq!(
                    exact_json::floats_exact(text.as_bytes(), &mut first.tape),
                    matches!(&scan, Ok(None))
                        || matches!(&scan, Ok(Some((_, exact))) if !exact.loses_digits()),
                    "{text}"
                );
            }
            let fast = Recording::from_json_slice(text.as_bytes());
            let general = scanned_first(text.as_bytes());
            match (fast, general) {
                (Ok(fast), Ok(general)) => {
                    assert_eq!(fast.size(), general.size(), "{text}");
                    assert_eq!(
                        crate::to_string(&fast).unwrap(),
                        crate::to_string(&general).unwrap(),
                        "{text}"
                    );
                }
                (Err(fast), Err(general)) => {
                    assert_eq!(fast.to_string(), general.to_string(), "{text}");
                }
                (fast, general) => panic!("{text}: {:?} vs {:?}", fast.err(), general.err()),
            }
        }
    }

    #[test]
    fn invalid_json_stays_invalid_with_its_position() {
        // Errors as serde_json reports them for the same text with a plain number there.
        for json in ["[1e400, 01]", "[1e400 2]", "{\"a\": 1e400,}", "[1e400"] {
            let err = Recording::from_json_slice(json.as_bytes()).unwrap_err();
            let same = serde_json::from_str::<Recording>(&json.replace("1e400", "10000"));
            assert_eq!(err.to_string(), same.unwrap_err().to_string(), "{json}");
        }
        assert!(Recording::from_json_slice(b"[1e99999999999999999999]").is_err());
    }

    #[test]
    fn empty_document_is_null() {
        assert_eq!(crate::to_string(&Recording::default()).unwrap(), "null");
    }
}
