//! `Map`: a TOON object, keeping keys in insertion order (§2).

use std::borrow::Borrow;
use std::hash::Hash;
use std::sync::Arc;

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
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Map {
    inner: IndexMap<Arc<str>, Value>,
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
            inner: IndexMap::with_capacity(n),
        }
    }

    /// Inserts, returning the previous value; an existing key keeps its position.
    pub fn insert(&mut self, key: String, value: Value) -> Option<Value> {
        self.inner.insert(key.into(), value)
    }

    /// Inserts under a shared key (as [`Map::shared_keys`] gives): no copy of the name.
    pub fn insert_shared(&mut self, key: Arc<str>, value: Value) -> Option<Value> {
        self.inner.insert(key, value)
    }

    /// Removes a key, preserving the order of the others.
    pub fn remove<Q: ?Sized + Hash + Eq>(&mut self, key: &Q) -> Option<Value>
    where
        Arc<str>: Borrow<Q>,
    {
        self.inner.shift_remove(key)
    }

    /// The value at `key`.
    #[must_use]
    pub fn get<Q: ?Sized + Hash + Eq>(&self, key: &Q) -> Option<&Value>
    where
        Arc<str>: Borrow<Q>,
    {
        self.inner.get(key)
    }

    /// The value at `key`, mutably.
    pub fn get_mut<Q: ?Sized + Hash + Eq>(&mut self, key: &Q) -> Option<&mut Value>
    where
        Arc<str>: Borrow<Q>,
    {
        self.inner.get_mut(key)
    }

    /// Whether `key` is present.
    #[must_use]
    pub fn contains_key<Q: ?Sized + Hash + Eq>(&self, key: &Q) -> bool
    where
        Arc<str>: Borrow<Q>,
    {
        self.inner.contains_key(key)
    }

    /// Number of entries.
    #[must_use]
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// True when there are no entries.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// Entries in order.
    pub fn iter(&self) -> Iter<'_> {
        Iter(self.inner.iter())
    }

    /// Entries in order, values mutable.
    pub fn iter_mut(
        &mut self,
    ) -> impl DoubleEndedIterator<Item = (&str, &mut Value)> + ExactSizeIterator {
        self.inner.iter_mut().map(|(k, v)| (&**k, v))
    }

    /// Keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator {
        self.inner.keys().map(|k| &**k)
    }

    /// Keys in order as shared strings: cloning one shares it rather than copying it.
    pub fn shared_keys(&self) -> impl DoubleEndedIterator<Item = &Arc<str>> + ExactSizeIterator {
        self.inner.keys()
    }

    /// Values in order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator {
        self.inner.values()
    }
}

impl<Q: ?Sized + Hash + Eq> std::ops::Index<&Q> for Map
where
    Arc<str>: Borrow<Q>,
{
    type Output = Value;
    fn index(&self, key: &Q) -> &Value {
        self.inner.get(key).expect("no entry found for key")
    }
}

impl IntoIterator for Map {
    type Item = (String, Value);
    type IntoIter = IntoIter;
    fn into_iter(self) -> IntoIter {
        IntoIter(self.inner.into_iter())
    }
}

/// The entries of a [`Map`], in order, keys as `String`.
pub struct IntoIter(indexmap::map::IntoIter<Arc<str>, Value>);

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
pub struct Iter<'a>(indexmap::map::Iter<'a, Arc<str>, Value>);

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a str, &'a Value);
    fn next(&mut self) -> Option<(&'a str, &'a Value)> {
        self.0.next().map(|(k, v)| (&**k, v))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v)| (&**k, v))
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
        Map {
            inner: iter.into_iter().map(|(k, v)| (k.into(), v)).collect(),
        }
    }
}

impl<K: Into<Arc<str>>> Extend<(K, Value)> for Map {
    fn extend<I: IntoIterator<Item = (K, Value)>>(&mut self, iter: I) {
        self.inner
            .extend(iter.into_iter().map(|(k, v)| (k.into(), v)));
    }
}
