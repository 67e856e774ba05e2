//! Keyed tabular objects (§9.5): one entry row `key: cells` per entry.

use std::borrow::Cow;

use serde::de::{DeserializeSeed, IgnoredAny, MapAccess};

use super::duplicates::{SeenKeys, duplicate};
use super::header::Header;
use super::key::{KeyDe, split_key};
use super::row::RowCells;
use super::scanner::Line;
use super::span::{LineRole, Span, stopped_early};
use super::token::{find_unquoted, trim_spaces};
use super::{Deserializer, ValueDe};
use crate::error::{Error, Result};

/// §9.5: every line at entry depth is an entry row; one without a colon is an error.
pub(crate) fn entry_line(line: &Line<'_>) -> Result<()> {
    match find_unquoted(line.content, b':', 0) {
        Some(_) => Ok(()),
        None => Err(line.error("expected an entry row `key: cells` inside a keyed table")),
    }
}

/// §9.5 keyed tabular object: one entry row per key.
pub(crate) struct KeyedAccess<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    rows: RowCells<'de>,
    seen: Option<SeenKeys<'de>>,
    span: Span<'de>,
}

impl<'a, 'de> KeyedAccess<'a, 'de> {
    pub(crate) fn new(
        de: &'a mut Deserializer<'de>,
        header: Header<'de>,
        base: usize,
        line: Line<'de>,
    ) -> Result<Self> {
        let span = Span::open(de, header.len, base, line)?;
        let seen = de.strict.then(|| SeenKeys::sized(&de.keys, header.len));
        let rows = RowCells::new(de, header);
        Ok(KeyedAccess {
            de,
            rows,
            seen,
            span,
        })
    }

    pub(crate) fn finish(mut self) -> Result<()> {
        if !self.span.done && self.next_key::<IgnoredAny>()?.is_some() {
            return Err(stopped_early());
        }
        if let Some(seen) = &self.seen {
            seen.close(&mut self.de.keys);
        }
        self.span.close(self.de, ["entry", "entries"])?;
        self.rows.give_back(self.de);
        Ok(())
    }
}

impl<'de> MapAccess<'de> for KeyedAccess<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        // The common entry row, `plain key: cells`, read at the cursor as an object line is;
        // everything else takes the general path.
        let fast = self.span.next_fast(self.de, |scan, depth| {
            scan.next_key_line(depth)
                .map(|(line, key, rest)| (line, (key, rest)))
        });
        let (line, key, rest) = match fast {
            Some((line, (key, rest))) => (line, Cow::Borrowed(key), rest),
            None => {
                // §9.5: every line at entry depth is an entry row; one without a colon is an
                // error.
                let next = self.span.next_line(self.de, false, |line| {
                    entry_line(line).map(|()| LineRole::Item)
                })?;
                let Some(line) = next else {
                    return Ok(None);
                };
                let (key, rest) = split_key(line.content).map_err(|e| line.error_at(0, e))?;
                (line, key, rest)
            }
        };
        if let Some(seen) = &mut self.seen
            && !seen.insert(&mut self.de.keys, &key)
        {
            return Err(duplicate(&line, &key));
        }
        self.rows.split(trim_spaces(rest), &line)?;
        seed.deserialize(KeyDe(key))
            .map(Some)
            .map_err(|e| line.error_at(0, e))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        seed.deserialize(ValueDe {
            de: &mut *self.de,
            slot: self.rows.slot(self.span.last),
        })
    }

    /// The declared entry count, so a map target is made that large at once.
    fn size_hint(&self) -> Option<usize> {
        Some(self.span.size_hint())
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};

    /// The size hints a map target is given before each entry.
    #[derive(Debug, PartialEq)]
    struct Hints(Vec<Option<usize>>);

    impl<'de> Deserialize<'de> for Hints {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct HintsVisitor;
            impl<'de> Visitor<'de> for HintsVisitor {
                type Value = Hints;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a map")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Hints, A::Error> {
                    let mut hints = vec![map.size_hint()];
                    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {
                        hints.push(map.size_hint());
                    }
                    Ok(Hints(hints))
                }
            }
            deserializer.deserialize_map(HintsVisitor)
        }
    }

    /// A keyed table tells a map target its declared entry count, so the map is made that
    /// large at once; the count is the input's word, so the hint is capped.
    #[test]
    fn the_declared_entry_count_is_the_size_hint() {
        let text = "[3:]{a,b}:\n  x: 1,2\n  y: 3,4\n  z: 5,6";
        let hints: Hints = crate::from_str(text).unwrap();
        assert_eq!(hints, Hints(vec![Some(3), Some(2), Some(1), Some(0)]));

        let options = crate::DecodeOptions::new().strict(false);
        let text = "[99999999999:]{a}:\n  x: 1";
        let hints: Hints = crate::from_str_with(text, &options).unwrap();
        assert_eq!(hints, Hints(vec![Some(4096), Some(4096)]));
    }
}
