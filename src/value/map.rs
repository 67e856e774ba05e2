//! `Map`: a TOON object, keeping keys in insertion order (§2), and its iterators (as
//! `serde_json::map`).

use std::marker::PhantomData;
use std::sync::Arc;

use foldhash::fast::RandomState;
use indexmap::IndexMap;

use super::Value;

/// An ordered string-keyed map, the object type of [`Value`].
///
/// Inserting an existing key replaces its value in place (last write wins, §14.3). Keys are
/// reference-counted: objects decoded from the rows of one table (§9.3) share the names their
/// header holds instead of a copy per row.
///
/// ```
/// let mut m = toon::Map::new();
/// m.insert("b".to_string(), toon::Value::from(1));
/// m.insert("a".to_string(), toon::Value::from(2));
/// m.insert("b".to_string(), toon::Value::from(3));
/// assert_eq!(m.keys().collect::<Vec<_>>(), ["b", "a"]);
/// assert_eq!(m["b"], 3);
/// ```
///
/// The type parameters are there so that code written for serde_json's `Map<String, Value>`
/// reads the same; only `Map<String, Value>` (the default, `Map`) exists:
///
/// ```
/// use toon::{Map, Value};
/// fn names(object: &Map<String, Value>) -> Vec<&str> {
///     object.keys().collect()
/// }
/// assert_eq!(names(&toon::from_str("a: 1\nb: 2").unwrap()), ["a", "b"]);
/// ```
#[derive(Clone, Default)]
pub struct Map<K = String, V = Value> {
    storage: Storage,
    spelling: PhantomData<fn() -> (K, V)>,
}

/// Small objects (most of them) are a vector searched linearly: no hashing and one
/// allocation. Past [`SMALL`] entries the map moves to an index with a hash table, so that
/// lookups and last-write-wins stay O(1) on wide objects (and keyed on untrusted input). The
/// index is boxed: inline it would make every `Value` 64 bytes instead of 32.
#[derive(Clone)]
enum Storage {
    Small(Vec<(Arc<str>, Value)>),
    Large(Box<IndexMap<Arc<str>, Value, RandomState>>),
}

/// The most entries a map holds without a hash index.
const SMALL: usize = 8;

impl Default for Storage {
    fn default() -> Self {
        Storage::Small(Vec::new())
    }
}

/// One of two iterators of the same item, for the two representations.
enum Either<A, B> {
    Small(A),
    Large(B),
}

impl<T, A: Iterator<Item = T>, B: Iterator<Item = T>> Iterator for Either<A, B> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        match self {
            Either::Small(a) => a.next(),
            Either::Large(b) => b.next(),
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Either::Small(a) => a.size_hint(),
            Either::Large(b) => b.size_hint(),
        }
    }
}

impl<T, A, B> DoubleEndedIterator for Either<A, B>
where
    A: DoubleEndedIterator<Item = T>,
    B: DoubleEndedIterator<Item = T>,
{
    fn next_back(&mut self) -> Option<T> {
        match self {
            Either::Small(a) => a.next_back(),
            Either::Large(b) => b.next_back(),
        }
    }
}

impl<T, A, B> ExactSizeIterator for Either<A, B>
where
    A: ExactSizeIterator<Item = T>,
    B: ExactSizeIterator<Item = T>,
{
}

impl Map {
    /// An empty map.
    #[must_use]
    pub fn new() -> Self {
        Map::default()
    }

    /// An empty map with room for `n` entries.
    #[must_use]
    pub fn with_capacity(n: usize) -> Self {
        Map {
            storage: if n <= SMALL {
                Storage::Small(Vec::with_capacity(n))
            } else {
                Storage::Large(Box::new(IndexMap::with_capacity_and_hasher(
                    n,
                    RandomState::default(),
                )))
            },
            spelling: PhantomData,
        }
    }

    /// Inserts, returning the previous value; an existing key keeps its position.
    pub fn insert(&mut self, key: String, value: Value) -> Option<Value> {
        self.insert_shared(key.into(), value)
    }

    /// Inserts under a shared key (as [`Map::shared_keys`] gives): no copy of the name.
    pub fn insert_shared(&mut self, key: Arc<str>, value: Value) -> Option<Value> {
        let small = match &mut self.storage {
            Storage::Large(map) => return map.insert(key, value),
            Storage::Small(small) => small,
        };
        if let Some((_, slot)) = small.iter_mut().find(|(k, _)| **k == *key) {
            return Some(std::mem::replace(slot, value));
        }
        if small.len() < SMALL {
            small.push((key, value));
            return None;
        }
        let mut map = IndexMap::with_capacity_and_hasher(SMALL * 2, RandomState::default());
        map.extend(small.drain(..));
        map.insert(key, value);
        self.storage = Storage::Large(Box::new(map));
        None
    }

    /// Removes a key, preserving the order of the others.
    pub fn remove<Q: ?Sized + AsRef<str>>(&mut self, key: &Q) -> Option<Value> {
        let key = key.as_ref();
        match &mut self.storage {
            Storage::Small(small) => {
                let at = small.iter().position(|(k, _)| **k == *key)?;
                Some(small.remove(at).1)
            }
            Storage::Large(map) => map.shift_remove(key),
        }
    }

    /// Keeps only the entries for which `keep` returns true, in order.
    ///
    /// ```
    /// let mut m: toon::Map = [("a", 1), ("b", 2), ("c", 3)]
    ///     .into_iter()
    ///     .map(|(k, v)| (k, toon::Value::from(v)))
    ///     .collect();
    /// m.retain(|_, v| *v != 2);
    /// assert_eq!(m.keys().collect::<Vec<_>>(), ["a", "c"]);
    /// ```
    pub fn retain(&mut self, mut keep: impl FnMut(&str, &mut Value) -> bool) {
        match &mut self.storage {
            Storage::Small(small) => small.retain_mut(|(k, v)| keep(k, v)),
            Storage::Large(map) => map.retain(|k, v| keep(k, v)),
        }
    }

    /// The value at `key`.
    #[must_use]
    pub fn get<Q: ?Sized + AsRef<str>>(&self, key: &Q) -> Option<&Value> {
        let key = key.as_ref();
        match &self.storage {
            Storage::Small(small) => small.iter().find(|(k, _)| **k == *key).map(|e| &e.1),
            Storage::Large(map) => map.get(key),
        }
    }

    /// The value at `key`, mutably.
    pub fn get_mut<Q: ?Sized + AsRef<str>>(&mut self, key: &Q) -> Option<&mut Value> {
        let key = key.as_ref();
        match &mut self.storage {
            Storage::Small(small) => small
                .iter_mut()
                .find(|(k, _)| **k == *key)
                .map(|e| &mut e.1),
            Storage::Large(map) => map.get_mut(key),
        }
    }

    /// The entry for `key`, to read, insert or change in place (as `serde_json::Map::entry`).
    ///
    /// ```
    /// use toon::{Map, Value};
    /// let mut counts = Map::new();
    /// for word in ["a", "b", "a"] {
    ///     counts
    ///         .entry(word)
    ///         .and_modify(|n| *n = Value::from(n.as_u64().unwrap() + 1))
    ///         .or_insert(Value::from(1));
    /// }
    /// assert_eq!(Value::Object(counts), toon::toon!({"a": 2, "b": 1}));
    /// ```
    pub fn entry<S: Into<Arc<str>>>(&mut self, key: S) -> Entry<'_> {
        let key = key.into();
        match self.index_of(&*key) {
            Some(index) => Entry::Occupied(OccupiedEntry { map: self, index }),
            None => Entry::Vacant(VacantEntry { map: self, key }),
        }
    }

    /// The key and value at `key`.
    #[must_use]
    pub fn get_key_value<Q: ?Sized + AsRef<str>>(&self, key: &Q) -> Option<(&str, &Value)> {
        let key = key.as_ref();
        let (k, v) = self.at(self.index_of(key)?);
        Some((k, v))
    }

    /// Removes a key and returns it with its value, preserving the order of the others.
    pub fn remove_entry<Q: ?Sized + AsRef<str>>(&mut self, key: &Q) -> Option<(String, Value)> {
        let key = key.as_ref();
        self.shift_remove_entry(key)
    }

    /// Removes a key, shifting the entries after it (their order is kept; O(n)). The same as
    /// [`Map::remove`].
    pub fn shift_remove<Q: ?Sized + AsRef<str>>(&mut self, key: &Q) -> Option<Value> {
        let key = key.as_ref();
        self.remove(key)
    }

    /// Removes a key and returns it with its value, shifting the entries after it.
    pub fn shift_remove_entry<Q: ?Sized + AsRef<str>>(
        &mut self,
        key: &Q,
    ) -> Option<(String, Value)> {
        let key = key.as_ref();
        let index = self.index_of(key)?;
        let (k, v) = self.shift_remove_index(index);
        Some((String::from(&*k), v))
    }

    /// Removes a key, moving the last entry into its place (O(1); the order changes).
    ///
    /// ```
    /// let mut m: toon::Map = ["a", "b", "c"].into_iter().map(|k| (k, toon::Value::Null)).collect();
    /// m.swap_remove("a");
    /// assert_eq!(m.keys().collect::<Vec<_>>(), ["c", "b"]);
    /// ```
    pub fn swap_remove<Q: ?Sized + AsRef<str>>(&mut self, key: &Q) -> Option<Value> {
        let key = key.as_ref();
        self.swap_remove_entry(key).map(|(_, v)| v)
    }

    /// Removes a key and returns it with its value, moving the last entry into its place.
    pub fn swap_remove_entry<Q: ?Sized + AsRef<str>>(
        &mut self,
        key: &Q,
    ) -> Option<(String, Value)> {
        let key = key.as_ref();
        let index = self.index_of(key)?;
        let (k, v) = match &mut self.storage {
            Storage::Small(small) => small.swap_remove(index),
            Storage::Large(map) => map.swap_remove_index(index)?,
        };
        Some((String::from(&*k), v))
    }

    /// Moves every entry of `other` into this map (an existing key takes the new value in
    /// its place), leaving `other` empty.
    pub fn append(&mut self, other: &mut Map) {
        let taken = std::mem::take(other);
        self.extend(taken.into_shared());
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        self.storage = Storage::default();
    }

    /// Sorts the entries by key (byte order, as serde_json's `BTreeMap`-backed maps are).
    ///
    /// ```
    /// let mut m: toon::Map = ["b", "a"].into_iter().map(|k| (k, toon::Value::Null)).collect();
    /// m.sort_keys();
    /// assert_eq!(m.keys().collect::<Vec<_>>(), ["a", "b"]);
    /// ```
    pub fn sort_keys(&mut self) {
        match &mut self.storage {
            Storage::Small(small) => small.sort_unstable_by(|a, b| a.0.cmp(&b.0)),
            Storage::Large(map) => map.sort_unstable_keys(),
        }
    }

    /// The position of `key` in the map's order.
    fn index_of<Q: ?Sized + AsRef<str>>(&self, key: &Q) -> Option<usize> {
        let key = key.as_ref();
        match &self.storage {
            Storage::Small(small) => small.iter().position(|(k, _)| **k == *key),
            Storage::Large(map) => map.get_index_of(key),
        }
    }

    /// The entry at a position `index_of` gave.
    fn at(&self, index: usize) -> (&Arc<str>, &Value) {
        match &self.storage {
            Storage::Small(small) => (&small[index].0, &small[index].1),
            Storage::Large(map) => map.get_index(index).expect("an index from index_of"),
        }
    }

    /// The value at a position `index_of` gave, mutably, for as long as the map is borrowed.
    fn value_at_mut(&mut self, index: usize) -> &mut Value {
        match &mut self.storage {
            Storage::Small(small) => &mut small[index].1,
            Storage::Large(map) => map.get_index_mut(index).expect("an index from index_of").1,
        }
    }

    fn shift_remove_index(&mut self, index: usize) -> Owned {
        match &mut self.storage {
            Storage::Small(small) => small.remove(index),
            Storage::Large(map) => map
                .shift_remove_index(index)
                .expect("an index from index_of"),
        }
    }

    /// The entries with their shared keys, in order.
    fn into_shared(self) -> impl Iterator<Item = Owned> {
        match self.storage {
            Storage::Small(small) => Either::Small(small.into_iter()),
            Storage::Large(map) => Either::Large((*map).into_iter()),
        }
    }

    /// Whether `key` is present.
    #[must_use]
    pub fn contains_key<Q: ?Sized + AsRef<str>>(&self, key: &Q) -> bool {
        let key = key.as_ref();
        self.get(key).is_some()
    }

    /// Number of entries.
    #[must_use]
    pub fn len(&self) -> usize {
        match &self.storage {
            Storage::Small(small) => small.len(),
            Storage::Large(map) => map.len(),
        }
    }

    /// How many entries the map holds room for (tests of the decoder's sizing).
    #[cfg(test)]
    pub(crate) fn capacity(&self) -> usize {
        match &self.storage {
            Storage::Small(small) => small.capacity(),
            Storage::Large(map) => map.capacity(),
        }
    }

    /// True when there are no entries.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Entries in order.
    pub fn iter(&self) -> Iter<'_> {
        Iter(match &self.storage {
            Storage::Small(small) => Either::Small(small.iter()),
            Storage::Large(map) => Either::Large(map.iter()),
        })
    }

    /// Entries in order, values mutable.
    pub fn iter_mut(&mut self) -> IterMut<'_> {
        IterMut(match &mut self.storage {
            Storage::Small(small) => Either::Small(small.iter_mut()),
            Storage::Large(map) => Either::Large(map.iter_mut()),
        })
    }

    /// Keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator {
        self.iter().map(|(k, _)| k)
    }

    /// Keys in order as shared strings: cloning one shares it rather than copying it.
    pub fn shared_keys(&self) -> impl DoubleEndedIterator<Item = &Arc<str>> + ExactSizeIterator {
        match &self.storage {
            Storage::Small(small) => Either::Small(small.iter().map(|(k, _)| k)),
            Storage::Large(map) => Either::Large(map.keys()),
        }
    }

    /// Values in order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator {
        self.iter().map(|(_, v)| v)
    }

    /// Values in order, mutably.
    pub fn values_mut(
        &mut self,
    ) -> impl DoubleEndedIterator<Item = &mut Value> + ExactSizeIterator {
        self.iter_mut().map(|(_, v)| v)
    }

    /// Values in order, by value.
    pub fn into_values(self) -> impl DoubleEndedIterator<Item = Value> + ExactSizeIterator {
        match self.storage {
            Storage::Small(small) => Either::Small(small.into_iter().map(|(_, v)| v)),
            Storage::Large(map) => Either::Large((*map).into_values()),
        }
    }
}

/// One key's place in a [`Map`], vacant or occupied (as `serde_json::map::Entry`), from
/// [`Map::entry`].
pub enum Entry<'a> {
    /// The key is absent.
    Vacant(VacantEntry<'a>),
    /// The key is present.
    Occupied(OccupiedEntry<'a>),
}

/// An absent key's place in a [`Map`].
pub struct VacantEntry<'a> {
    map: &'a mut Map,
    key: Arc<str>,
}

/// A present key's place in a [`Map`].
pub struct OccupiedEntry<'a> {
    map: &'a mut Map,
    index: usize,
}

impl<'a> Entry<'a> {
    /// The entry's key.
    #[must_use]
    pub fn key(&self) -> &str {
        match self {
            Entry::Vacant(e) => e.key(),
            Entry::Occupied(e) => e.key(),
        }
    }

    /// The value, after inserting `default` if the key was absent.
    pub fn or_insert(self, default: Value) -> &'a mut Value {
        match self {
            Entry::Vacant(e) => e.insert(default),
            Entry::Occupied(e) => e.into_mut(),
        }
    }

    /// The value, after inserting what `default` returns if the key was absent.
    pub fn or_insert_with<F: FnOnce() -> Value>(self, default: F) -> &'a mut Value {
        match self {
            Entry::Vacant(e) => e.insert(default()),
            Entry::Occupied(e) => e.into_mut(),
        }
    }

    /// The value, after inserting `Value::Null` if the key was absent.
    pub fn or_default(self) -> &'a mut Value {
        self.or_insert(Value::Null)
    }

    /// Runs `f` on the value if the key is present; the entry for chaining.
    #[must_use]
    pub fn and_modify<F: FnOnce(&mut Value)>(self, f: F) -> Self {
        match self {
            Entry::Occupied(mut e) => {
                f(e.get_mut());
                Entry::Occupied(e)
            }
            vacant @ Entry::Vacant(_) => vacant,
        }
    }
}

impl<'a> VacantEntry<'a> {
    /// The key that would be inserted.
    #[must_use]
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Inserts `value` at the end of the map and returns it, mutably.
    pub fn insert(self, value: Value) -> &'a mut Value {
        let VacantEntry { map, key } = self;
        map.insert_shared(key, value);
        let index = map.len() - 1;
        map.value_at_mut(index)
    }
}

impl<'a> OccupiedEntry<'a> {
    /// The entry's key.
    #[must_use]
    pub fn key(&self) -> &str {
        self.map.at(self.index).0
    }

    /// The value.
    #[must_use]
    pub fn get(&self) -> &Value {
        self.map.at(self.index).1
    }

    /// The value, mutably, for as long as the entry lives.
    pub fn get_mut(&mut self) -> &mut Value {
        self.map.value_at_mut(self.index)
    }

    /// The value, mutably, for as long as the map is borrowed.
    #[must_use]
    pub fn into_mut(self) -> &'a mut Value {
        self.map.value_at_mut(self.index)
    }

    /// Replaces the value, returning the old one; the key keeps its position.
    pub fn insert(&mut self, value: Value) -> Value {
        std::mem::replace(self.get_mut(), value)
    }

    /// Removes the entry, keeping the others' order, and returns its value (`toon::Map`'s
    /// `remove` keeps order; serde_json's with `preserve_order` swaps, see
    /// [`OccupiedEntry::swap_remove`]).
    pub fn remove(self) -> Value {
        self.shift_remove()
    }

    /// Removes the entry, keeping the others' order, and returns its key and value.
    pub fn remove_entry(self) -> (String, Value) {
        let (k, v) = self.map.shift_remove_index(self.index);
        (String::from(&*k), v)
    }

    /// Removes the entry, shifting the ones after it, and returns its value.
    pub fn shift_remove(self) -> Value {
        self.remove_entry().1
    }

    /// Removes the entry, moving the last one into its place, and returns its value.
    pub fn swap_remove(self) -> Value {
        let OccupiedEntry { map, index } = self;
        match &mut map.storage {
            Storage::Small(small) => small.swap_remove(index).1,
            Storage::Large(large) => {
                large
                    .swap_remove_index(index)
                    .expect("an index from index_of")
                    .1
            }
        }
    }
}

/// Equal when both have the same keys with equal values, in any order (as `IndexMap` and
/// `serde_json::Map` compare).
impl PartialEq for Map {
    fn eq(&self, other: &Map) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl Eq for Map {}

/// Reads like a map literal: `{"name": String("Ada"), "admin": Bool(true)}`.
impl std::fmt::Debug for Map {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<Q: ?Sized + AsRef<str>> std::ops::Index<&Q> for Map {
    type Output = Value;
    fn index(&self, key: &Q) -> &Value {
        self.get(key).expect("no entry found for key")
    }
}

/// The value at `key`, mutably; panics if it is absent (as serde_json's `Map`; insert with
/// [`Map::entry`] or [`Map::insert`]).
impl<Q: ?Sized + AsRef<str>> std::ops::IndexMut<&Q> for Map {
    fn index_mut(&mut self, key: &Q) -> &mut Value {
        self.get_mut(key).expect("no entry found for key")
    }
}

impl IntoIterator for Map {
    type Item = (String, Value);
    type IntoIter = IntoIter;
    fn into_iter(self) -> IntoIter {
        IntoIter(match self.storage {
            Storage::Small(small) => Either::Small(small.into_iter()),
            Storage::Large(map) => Either::Large((*map).into_iter()),
        })
    }
}

type Owned = (Arc<str>, Value);

/// The entries of a [`Map`], in order, keys as `String`.
pub struct IntoIter(Either<std::vec::IntoIter<Owned>, indexmap::map::IntoIter<Arc<str>, Value>>);

impl Iterator for IntoIter {
    type Item = (String, Value);
    fn next(&mut self) -> Option<(String, Value)> {
        self.0.next().map(|(k, v)| (String::from(&*k), v))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for IntoIter {
    fn next_back(&mut self) -> Option<(String, Value)> {
        self.0.next_back().map(|(k, v)| (String::from(&*k), v))
    }
}

impl ExactSizeIterator for IntoIter {}

/// The entries of a [`Map`], in order, by reference.
pub struct Iter<'a>(Either<std::slice::Iter<'a, Owned>, indexmap::map::Iter<'a, Arc<str>, Value>>);

/// An entry of either representation as `(&str, &Value)`.
fn by_ref<'a>((k, v): (&'a Arc<str>, &'a Value)) -> (&'a str, &'a Value) {
    (k, v)
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a str, &'a Value);
    fn next(&mut self) -> Option<(&'a str, &'a Value)> {
        match &mut self.0 {
            Either::Small(small) => small.next().map(|(k, v)| by_ref((k, v))),
            Either::Large(map) => map.next().map(by_ref),
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.0 {
            Either::Small(small) => small.size_hint(),
            Either::Large(map) => map.size_hint(),
        }
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        match &mut self.0 {
            Either::Small(small) => small.next_back().map(|(k, v)| by_ref((k, v))),
            Either::Large(map) => map.next_back().map(by_ref),
        }
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a Map {
    type Item = (&'a str, &'a Value);
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// The entries of a [`Map`], in order, values mutable.
pub struct IterMut<'a>(
    Either<std::slice::IterMut<'a, Owned>, indexmap::map::IterMut<'a, Arc<str>, Value>>,
);

impl<'a> Iterator for IterMut<'a> {
    type Item = (&'a str, &'a mut Value);
    fn next(&mut self) -> Option<(&'a str, &'a mut Value)> {
        match &mut self.0 {
            Either::Small(small) => small.next().map(|(k, v)| (&**k, v)),
            Either::Large(map) => map.next().map(|(k, v)| (&**k, v)),
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.0 {
            Either::Small(small) => small.size_hint(),
            Either::Large(map) => map.size_hint(),
        }
    }
}

impl DoubleEndedIterator for IterMut<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        match &mut self.0 {
            Either::Small(small) => small.next_back().map(|(k, v)| (&**k, v)),
            Either::Large(map) => map.next_back().map(|(k, v)| (&**k, v)),
        }
    }
}

impl ExactSizeIterator for IterMut<'_> {}

impl<'a> IntoIterator for &'a mut Map {
    type Item = (&'a str, &'a mut Value);
    type IntoIter = IterMut<'a>;
    fn into_iter(self) -> IterMut<'a> {
        self.iter_mut()
    }
}

impl<K: Into<Arc<str>>> FromIterator<(K, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (K, Value)>>(iter: I) -> Self {
        let mut map = Map::new();
        map.extend(iter);
        map
    }
}

impl<K: Into<Arc<str>>> Extend<(K, Value)> for Map {
    fn extend<I: IntoIterator<Item = (K, Value)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert_shared(k.into(), v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hash index sits behind a pointer, so that a map is one vector's size and a `Value`
    /// four words, as serde_json's: a decoded document's entries and arrays take half the memory
    /// they took with the index inline (64-byte values), and decoding a large one touches that
    /// much less.
    #[test]
    fn a_map_is_one_vector_and_a_value_four_words() {
        assert_eq!(
            std::mem::size_of::<Map>(),
            std::mem::size_of::<Vec<Owned>>()
        );
        assert_eq!(
            std::mem::size_of::<Value>(),
            4 * std::mem::size_of::<usize>()
        );
    }

    /// `Map` is a serde type of its own, as serde_json's is: an object and nothing else.
    #[test]
    fn maps_serialize_and_deserialize_as_objects() {
        let map: Map<String, Value> = crate::from_str("b: 1\na[2]: x,y").unwrap();
        assert_eq!(map.keys().collect::<Vec<_>>(), ["b", "a"]);
        let text = crate::to_string(&map).unwrap();
        assert_eq!(text, crate::to_string(&Value::Object(map)).unwrap());
        let err = crate::from_str::<Map>("[2]: 1,2").unwrap_err();
        assert!(err.to_string().contains("expected an object"), "{err}");
    }

    /// Both representations behave as one ordered map, across the switch between them.
    #[test]
    fn small_and_large_maps_agree_with_an_index_map() {
        let mut map = Map::new();
        let mut model: IndexMap<String, Value> = IndexMap::new();
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for step in 0..5_000u64 {
            crate::test_rng::next(&mut state);
            let key = format!("k{}", state % 24);
            match state >> 60 {
                0..=9 => {
                    assert_eq!(
                        map.insert(key.clone(), Value::from(step)),
                        model.insert(key, Value::from(step))
                    );
                }
                10..=12 => assert_eq!(map.remove(key.as_str()), model.shift_remove(&key)),
                13 => {
                    map.retain(|k, _| !k.ends_with('3'));
                    model.retain(|k, _| !k.ends_with('3'));
                }
                _ => assert_eq!(map.get(key.as_str()), model.get(&key)),
            }
            assert!(map.iter().eq(model.iter().map(|(k, v)| (k.as_str(), v))));
            assert_eq!(map.len(), model.len());
        }
        let reversed: Map = map.clone().into_iter().rev().collect();
        assert_eq!(reversed, map, "equality ignores order");
        let debug = format!(
            "{:?}",
            Map::from_iter([("a", Value::from(1)), ("b", Value::Null)])
        );
        assert!(debug.starts_with("{\"a\": Number(") && debug.ends_with(", \"b\": Null}"));
    }
}
