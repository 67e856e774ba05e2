//! Objects (§8): the fields of a `key:` block, of the root, or of a list-item object whose
//! first field is on the hyphen line (§10).

use std::borrow::Cow;
use std::collections::HashMap;

use foldhash::fast::RandomState;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess};

use super::duplicates::{SeenKeys, duplicate};
use super::field_value::FieldValue;
use super::form;
use super::key::{KeyDe, split_field_key};
use super::scanner::Line;
use super::span::stopped_early;
use super::{Deserializer, Slot, ValueDe};
use crate::error::{Error, Result};

/// Entries the duplicate-key stack (§14.3, strict) gets when its first object opens.
const KEY_STACK_ROOM: usize = 32;

/// The line ([`Line::id`]) on which each key of an object last appears.
struct LastLines<'de>(HashMap<Cow<'de, str>, usize, RandomState>);

/// An object's first field when it stands on a line its parent has read (§10 list items,
/// §5 the root).
#[derive(Clone, Copy)]
pub(crate) enum First<'de> {
    /// The text holding the field, on a consumed line: split the general way.
    Text(&'de str, Line<'de>),
    /// A list item's `- key: ` read at the cursor (`Scanner::next_item_key_at`): the hyphen
    /// line, the key and the value's offset; the line is consumed with the value.
    AtCursor(Line<'de>, &'de str, usize),
}

impl<'de> First<'de> {
    pub(crate) fn line(&self) -> Line<'de> {
        match *self {
            First::Text(_, line) | First::AtCursor(line, ..) => line,
        }
    }
}

/// Where the value of the key just handed to serde is.
enum ValuePosition<'de> {
    Slot(Slot<'de, 'de>),
    /// At this byte of the input, after `key: ` on a line not yet consumed ([`FieldValue`]).
    AtCursor(usize),
}

/// The fields of an object at `depth` (§8), or of a list-item object (§10) whose first field
/// is on the hyphen line.
pub(crate) struct ObjectAccess<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    first: Option<First<'de>>,
    /// Lines shallower than this end the object.
    min_depth: usize,
    /// The depth of the object's fields.
    depth: usize,
    /// The value of the key last handed to serde, until serde asks for it.
    value_at: Option<ValuePosition<'de>>,
    seen: Option<SeenKeys<'de>>,
    /// Non-strict struct targets: the line each key last appears on; earlier occurrences are
    /// skipped so the last one wins (§14.3) without serde's "duplicate field" error.
    /// Boxed: only non-strict struct targets use it.
    last_wins: Option<Box<LastLines<'de>>>,
    done: bool,
}

impl<'a, 'de> ObjectAccess<'a, 'de> {
    /// The fields of a `key:` block at depth `parent`, or `None` when no deeper line follows
    /// (the value is then `{}`, §8).
    pub(crate) fn block(de: &'a mut Deserializer<'de>, parent: usize) -> Result<Option<Self>> {
        // The common block: its first line starts at exactly one level deeper, read with the
        // cursor's test (`at_depth`) so that this line, too, takes `next_key_at` instead of
        // being peeked into the general path.
        if de.scan.starts_at_depth(parent + 1) {
            return Ok(Some(Self::new(de, None, parent + 1, parent + 1)));
        }
        if !form::opens_block(parent, de.scan.peek()?.as_ref()) {
            return Ok(None);
        }
        let depth = de.content_depth(parent)?;
        Ok(Some(Self::new(de, None, parent + 1, depth)))
    }

    /// An object at `depth` whose first field is on an already consumed line (list items,
    /// §10; the root, §5).
    pub(crate) fn inline(
        de: &'a mut Deserializer<'de>,
        first: Option<First<'de>>,
        depth: usize,
    ) -> Self {
        Self::new(de, first, depth, depth)
    }

    /// Prepares last-write-wins for a struct target: finds the last line of every key among
    /// the object's sibling lines. Only called in non-strict mode.
    pub(crate) fn last_write_wins(mut self) -> Self {
        let mut last = HashMap::default();
        let mut record = |content: &'de str, id: usize| {
            if let Ok((key, _)) = split_field_key(content) {
                last.insert(key, id);
            }
        };
        if let Some(First::AtCursor(line, key, at)) = self.first {
            // The lookahead starts after the hyphen line: finish it, and read the field the
            // general way.
            let rest = self.de.scan.finish_value(at);
            self.first = Some(First::Text(self.de.scan.joined(key, rest), line));
        }
        if let Some(First::Text(content, line)) = self.first {
            record(content, line.id());
        }
        for line in self.de.scan.lookahead() {
            if line.depth < self.min_depth {
                break;
            }
            if line.depth == self.depth {
                record(line.content, line.id());
            }
        }
        self.last_wins = Some(Box::new(LastLines(last)));
        self
    }

    fn new(
        de: &'a mut Deserializer<'de>,
        first: Option<First<'de>>,
        min_depth: usize,
        depth: usize,
    ) -> Self {
        // The shared key stack is made room for once, for a few levels of a few keys each,
        // not grown from four entries by doubling as the first objects fill it.
        if de.keys.capacity() == 0 {
            de.keys.reserve(KEY_STACK_ROOM);
        }
        let seen = de.strict.then(|| SeenKeys::open(&de.keys));
        ObjectAccess {
            de,
            first,
            min_depth,
            depth,
            value_at: None,
            seen,
            last_wins: None,
            done: false,
        }
    }

    /// Records a key read on `line` (strict duplicate check, §14.3), keeps its value's slot
    /// for `next_value_seed` and hands the key to serde.
    #[inline(always)]
    fn accept<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
        line: Line<'de>,
        content: &'de str,
        key: Cow<'de, str>,
        value: ValuePosition<'de>,
    ) -> Result<Option<K::Value>> {
        if let Some(seen) = &mut self.seen
            && !seen.insert(&mut self.de.keys, &key)
        {
            return Err(duplicate(&line, &key));
        }
        self.value_at = Some(value);
        seed.deserialize(KeyDe(key))
            .map(Some)
            .map_err(|e| line.error_in(content, e))
    }

    pub(crate) fn finish(mut self) -> Result<()> {
        if !self.done && self.next_key::<IgnoredAny>()?.is_some() {
            return Err(stopped_early());
        }
        if let Some(seen) = &self.seen {
            seen.close(&mut self.de.keys);
        }
        Ok(())
    }
}

impl<'de> MapAccess<'de> for ObjectAccess<'_, 'de> {
    type Error = Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        // The common `key: value` line, its key read at the cursor (`next_key_at`) and its
        // value left there for `next_value_seed`; everything else (an item's first field read
        // the general way, last-write-wins, headers, quoted keys) takes the general path below.
        if let Some(ValuePosition::AtCursor(at)) = self.value_at {
            // The last value was not asked for: its line still has to be consumed.
            self.value_at = None;
            self.de.scan.finish_value(at);
        }
        if self.first.is_none()
            && self.last_wins.is_none()
            && !self.done
            && let Some((line, key, at)) = self.de.scan.next_key_at(self.depth)
        {
            let value = ValuePosition::AtCursor(at);
            return self.accept(seed, line, line.content, Cow::Borrowed(key), value);
        }
        // The object's end, where the next line is shallower, also found at the cursor:
        // peeking that line would keep the enclosing scope off its own fast path.
        if self.first.is_none() && !self.done && self.de.scan.shallower_than(self.min_depth) {
            self.done = true;
            return Ok(None);
        }
        let (content, line, key, slot) = loop {
            if self.done {
                return Ok(None);
            }
            let (content, line) = match self.first.take() {
                Some(First::Text(content, line)) => (content, line),
                Some(First::AtCursor(line, key, at)) => {
                    // Not with last-write-wins, which reads this field as text.
                    let value = ValuePosition::AtCursor(at);
                    return self.accept(seed, line, line.content, Cow::Borrowed(key), value);
                }
                None => {
                    let (min_depth, depth) = (self.min_depth, self.depth);
                    // A header line (`items[2]{…}:`) is taken at the cursor, not peeked.
                    let next = match self.de.scan.next_header_line(depth) {
                        Some(line) => Some(line),
                        None => self
                            .de
                            .scan
                            .next_if(|line| form::object_line(line, min_depth, depth))?,
                    };
                    let Some(line) = next else {
                        self.done = true;
                        return Ok(None);
                    };
                    (line.content, line)
                }
            };
            let (key, slot) = self.de.field(content, line, self.depth)?;
            let overwritten = self
                .last_wins
                .as_ref()
                .is_some_and(|last| last.0.get(&key).is_some_and(|&n| n != line.id()));
            if !overwritten {
                break (content, line, key, slot);
            }
            // A later line sets this key again: read and validate this value, then drop it.
            de::Deserializer::deserialize_ignored_any(
                ValueDe {
                    de: &mut *self.de,
                    slot,
                },
                IgnoredAny,
            )?;
        };
        self.accept(seed, line, content, key, ValuePosition::Slot(slot))
    }

    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        match self.value_at.take() {
            Some(ValuePosition::AtCursor(at)) => seed.deserialize(FieldValue {
                de: &mut *self.de,
                at,
                depth: self.depth,
            }),
            Some(ValuePosition::Slot(slot)) => seed.deserialize(ValueDe {
                de: &mut *self.de,
                slot,
            }),
            None => Err(Error::data("a value was requested before its key")),
        }
    }
}
