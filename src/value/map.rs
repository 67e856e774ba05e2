//! `Map`: a TOON object, keeping keys in insertion order (§2), and its iterators (as
//! `serde_json::map`).

use std::borrow::Borrow;
use std::hash::Hash;
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
    pub fn remove<Q: ?Sized + Hash + Eq>(&mut self, key: &Q) -> Option<Value>
    where
        Arc<str>: Borrow<Q>,
    {
        match &mut self.storage {
            Storage::Small(small) => {
                let at = small.iter().position(|(k, _)| k.borrow() == key)?;
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
    pub fn get<Q: ?Sized + Hash + Eq>(&self, key: &Q) -> Option<&Value>
    where
        Arc<str>: Borrow<Q>,
    {
        match &self.storage {
            Storage::Small(small) => small.iter().find(|(k, _)| k.borrow() == key).map(|e| &e.1),
            Storage::Large(map) => map.get(key),
        }
    }

    /// The value at `key`, mutably.
    pub fn get_mut<Q: ?Sized + Hash + Eq>(&mut self, key: &Q) -> Option<&mut Value>
    where
        Arc<str>: Borrow<Q>,
    {
        match &mut self.storage {
            Storage::Small(small) => small
                .iter_mut()
                .find(|(k, _)| (*k).borrow() == key)
                .map(|e| &mut e.1),
            Storage::Large(map) => map.get_mut(key),
        }
    }

    /// The value at `key`, inserting `Value::Null` first if it is absent (as
    /// `serde_json::Map::entry(key).or_insert(Value::Null)`).
    ///
    /// ```
    /// let mut m = toon::Map::new();
    /// *m.entry("n") = toon::Value::from(1);
    /// if let toon::Value::Number(n) = m.entry("n") {
    ///     assert_eq!(n.as_u64(), Some(1));
    /// }
    /// assert_eq!(m.len(), 1);
    /// ```
    pub fn entry(&mut self, key: &str) -> &mut Value {
        if !self.contains_key(key) {
            self.insert_shared(key.into(), Value::Null);
        }
        match &mut self.storage {
            Storage::Small(small) => small
                .iter_mut()
                .rev()
                .find(|(k, _)| **k == *key)
                .map(|e| &mut e.1),
            Storage::Large(map) => map.get_mut(key),
        }
        .unwrap_or_else(|| unreachable!("the key was inserted above"))
    }

    /// Whether `key` is present.
    #[must_use]
    pub fn contains_key<Q: ?Sized + Hash + Eq>(&self, key: &Q) -> bool
    where
        Arc<str>: Borrow<Q>,
    {
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

    /// Storage in order.
    pub fn iter(&self) -> Iter<'_> {
        Iter(match &self.storage {
            Storage::Small(small) => Either::Small(small.iter()),
            Storage::Large(map) => Either::Large(map.iter()),
        })
    }

    /// Storage in order, values mutable.
    pub fn iter_mut(
        &mut self,
    ) -> impl DoubleEndedIterator<Item = (&str, &mut Value)> + ExactSizeIterator {
        match &mut self.storage {
            Storage::Small(small) => Either::Small(small.iter_mut().map(|(k, v)| (&**k, v))),
            Storage::Large(map) => Either::Large(map.iter_mut().map(|(k, v)| (&**k, v))),
        }
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

impl<Q: ?Sized + Hash + Eq> std::ops::Index<&Q> for Map
where
    Arc<str>: Borrow<Q>,
{
    type Output = Value;
    fn index(&self, key: &Q) -> &Value {
        self.get(key).expect("no entry found for key")
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
