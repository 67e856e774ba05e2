//! `Map`: a TOON object, keeping keys in insertion order (§2).

use std::borrow::Borrow;
use std::hash::Hash;

use indexmap::IndexMap;

use super::Value;

/// An ordered string-keyed map, the object type of [`Value`].
///
/// Inserting an existing key replaces its value in place (last write wins, §14.3).
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
    inner: IndexMap<String, Value>,
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
        self.inner.insert(key, value)
    }

    /// Removes a key, preserving the order of the others.
    pub fn remove<Q: ?Sized + Hash + Eq>(&mut self, key: &Q) -> Option<Value>
    where
        String: Borrow<Q>,
    {
        self.inner.shift_remove(key)
    }

    /// The value at `key`.
    #[must_use]
    pub fn get<Q: ?Sized + Hash + Eq>(&self, key: &Q) -> Option<&Value>
    where
        String: Borrow<Q>,
    {
        self.inner.get(key)
    }

    /// The value at `key`, mutably.
    pub fn get_mut<Q: ?Sized + Hash + Eq>(&mut self, key: &Q) -> Option<&mut Value>
    where
        String: Borrow<Q>,
    {
        self.inner.get_mut(key)
    }

    /// Whether `key` is present.
    #[must_use]
    pub fn contains_key<Q: ?Sized + Hash + Eq>(&self, key: &Q) -> bool
    where
        String: Borrow<Q>,
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
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&String, &Value)> + ExactSizeIterator {
        self.inner.iter()
    }

    /// Entries in order, values mutable.
    pub fn iter_mut(
        &mut self,
    ) -> impl DoubleEndedIterator<Item = (&String, &mut Value)> + ExactSizeIterator {
        self.inner.iter_mut()
    }

    /// Keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &String> + ExactSizeIterator {
        self.inner.keys()
    }

    /// Values in order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator {
        self.inner.values()
    }
}

impl<Q: ?Sized + Hash + Eq> std::ops::Index<&Q> for Map
where
    String: Borrow<Q>,
{
    type Output = Value;
    fn index(&self, key: &Q) -> &Value {
        self.inner.get(key).expect("no entry found for key")
    }
}

impl IntoIterator for Map {
    type Item = (String, Value);
    type IntoIter = indexmap::map::IntoIter<String, Value>;
    fn into_iter(self) -> Self::IntoIter {
        self.inner.into_iter()
    }
}

impl<'a> IntoIterator for &'a Map {
    type Item = (&'a String, &'a Value);
    type IntoIter = indexmap::map::Iter<'a, String, Value>;
    fn into_iter(self) -> Self::IntoIter {
        self.inner.iter()
    }
}

impl FromIterator<(String, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Self {
        Map {
            inner: iter.into_iter().collect(),
        }
    }
}

impl Extend<(String, Value)> for Map {
    fn extend<I: IntoIterator<Item = (String, Value)>>(&mut self, iter: I) {
        self.inner.extend(iter);
    }
}
