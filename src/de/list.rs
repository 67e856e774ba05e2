//! Expanded lists (§9.4, §10): one `- ` item per element.

use serde::de::{DeserializeSeed, IgnoredAny, SeqAccess};

use super::form::is_list_item;
use super::object::First;
use super::scanner::Line;
use super::span::{LineRole, Span, stopped_early};
use super::{Deserializer, Slot, ValueDe};
use crate::error::{Error, Result};

/// Strict mode, after a list's declared count: a line at item depth that would be one more
/// item (§9.4; a bare `-` is not counted as one).
pub(crate) fn is_extra_item(content: &str) -> bool {
    content.starts_with("- ")
}

/// §9.4 expanded list: one `- ` item per element.
pub(crate) struct ListSeq<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    span: Span<'de>,
}

impl<'a, 'de> ListSeq<'a, 'de> {
    pub(crate) fn new(
        de: &'a mut Deserializer<'de>,
        declared: usize,
        base: usize,
        line: Line<'de>,
    ) -> Result<Self> {
        let span = Span::open(de, declared, base, line)?;
        Ok(ListSeq { de, span })
    }

    pub(crate) fn finish(mut self) -> Result<()> {
        if !self.span.done && self.next_element::<IgnoredAny>()?.is_some() {
            return Err(stopped_early());
        }
        self.span.close(self.de, ["list item", "list items"])?;
        self.span
            .refuse_extra(self.de, "list items", |next| is_extra_item(next.content))
    }
}

impl<'de> SeqAccess<'de> for ListSeq<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        // The common item, an object whose first field is on the hyphen line, read at the
        // cursor; every other line takes the general path below.
        if let Some((line, (key, at))) = self.span.next_fast(self.de, |scan, depth| {
            scan.next_item_key_at(depth)
                .map(|(line, key, at)| (line, (key, at)))
        }) {
            let slot = Slot::Object {
                first: Some(First::AtCursor(line, key, at)),
                depth: self.span.depth + 1,
            };
            return seed
                .deserialize(ValueDe {
                    de: &mut *self.de,
                    slot,
                })
                .map(Some);
        }
        let next = self.span.next_line(self.de, true, |line| {
            Ok(if is_list_item(line.content) {
                LineRole::Item
            } else {
                LineRole::End
            })
        })?;
        let Some(line) = next else {
            return Ok(None);
        };
        let slot = self.de.list_item(line, self.span.depth)?;
        seed.deserialize(ValueDe {
            de: &mut *self.de,
            slot,
        })
        .map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.span.size_hint())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Deserialize;

    use crate::{DecodeOptions, Value, toon};

    #[derive(Deserialize, Debug, PartialEq)]
    struct ItemStruct {
        a: u32,
        #[serde(default)]
        b: Option<String>,
    }

    #[derive(Deserialize, Debug, PartialEq)]
    enum ItemEnum {
        A,
        B(u32),
        C { x: u8 },
    }

    /// Items whose first field is on the hyphen line, read at the cursor, next to the ones
    /// the general path reads (extra spaces, a quoted key, a header, a bare hyphen).
    #[test]
    fn item_objects_read_at_the_cursor_and_the_general_way() {
        let text =
            "[5]:\n  - a: 1\n    b: x\n  -   a: 2\n  - \"a\": 3\n  - a: 4\n  - b: \"y\"\n    a: 5";
        let items: Vec<ItemStruct> = crate::from_str(text).unwrap();
        let a: Vec<u32> = items.iter().map(|i| i.a).collect();
        assert_eq!(a, [1, 2, 3, 4, 5]);
        assert_eq!(items[4].b.as_deref(), Some("y"));
        let value: Value = crate::from_str(text).unwrap();
        assert_eq!(value[4], toon!({"b": "y", "a": 5}));
        let maps: Vec<BTreeMap<String, Value>> = crate::from_str(text).unwrap();
        assert_eq!(maps[0]["b"], "x");
        let nested = "[2]:\n  - a: 1\n    b:\n      c: 2\n  - a: 3";
        let value: Value = crate::from_str(nested).unwrap();
        assert_eq!(value, toon!([{"a": 1, "b": {"c": 2}}, {"a": 3}]));
    }

    #[test]
    fn enum_items() {
        let kinds: Vec<ItemEnum> =
            crate::from_str("[3]:\n  - B: 5\n  - A\n  - C:\n      x: 1").unwrap();
        assert_eq!(kinds, [ItemEnum::B(5), ItemEnum::A, ItemEnum::C { x: 1 }]);
    }

    /// Non-strict, a repeated key's last value wins, also when the first is on the hyphen line.
    #[test]
    fn last_write_wins_on_the_hyphen_line() {
        let text = "[2]:\n  - a: 1\n    a: 2\n  - a: 3\n    b: z\n    a: 4";
        let options = DecodeOptions::new().strict(false);
        let items: Vec<ItemStruct> = crate::from_str_with(text, &options).unwrap();
        assert_eq!(items[0], ItemStruct { a: 2, b: None });
        assert_eq!(
            items[1],
            ItemStruct {
                a: 4,
                b: Some("z".into())
            }
        );
        let err = crate::from_str::<Vec<ItemStruct>>(text).unwrap_err();
        assert_eq!((err.line(), err.column()), (3, 5), "{err}");
    }

    #[test]
    fn errors_on_the_hyphen_line_point_at_the_value() {
        let err = crate::from_str::<Vec<ItemStruct>>("[1]:\n  - a: x").unwrap_err();
        assert_eq!((err.line(), err.column()), (2, 8), "{err}");
        let err = crate::from_str::<Vec<ItemStruct>>("[2]:\n  - a: 1\n  - b: x").unwrap_err();
        assert_eq!(err.line(), 3, "{err}");
        assert!(err.message().contains("missing field `a`"), "{err}");
    }
}
