//! Field projection: send a model only the fields it needs.
//!
//! Paths are dot-separated keys (`id`, `user.name`); a path applies through arrays, so
//! `items.sku` keeps `sku` in every element of `items`; `*` matches any one key. An include
//! list keeps only what it names (empty: everything), an exclude list then drops what it names.
//! Fields keep the source order, not the order of the paths.
//!
//! [`Projection::apply`] wraps any `Serialize` value and filters while it is serialized — no
//! intermediate tree — so it feeds [`crate::to_string`], `serde_json` or any other format:
//!
//! ```
//! use toon::project::Projection;
//! let orders = toon::toon!({"orders": [
//!     {"id": 1, "customer": {"name": "Ada", "email": "a@x"}, "items": [{"sku": "A", "qty": 2}]},
//! ]});
//! let p = Projection::new().include(["orders.id", "orders.customer.name", "orders.items.sku"]);
//! assert_eq!(
//!     toon::to_string(&p.apply(&orders)).unwrap(),
//!     "orders[1]:\n  - id: 1\n    customer:\n      name: Ada\n    items[1]{sku}:\n      A"
//! );
//! ```

use std::cell::RefCell;
use std::collections::BTreeSet;

use serde::ser::{self, Serialize, SerializeMap, SerializeSeq, Serializer};

use crate::error::Result;
use crate::ser::key_string;
use crate::value::Value;

/// One level of a path tree.
#[derive(Debug, Default, Clone)]
struct PathNode {
    id: usize,
    /// The path up to here, for error messages.
    path: String,
    /// A path ends here: the whole value at this level is named.
    terminal: bool,
    children: Vec<(String, PathNode)>,
    wildcard: Option<Box<PathNode>>,
}

impl PathNode {
    fn child(&self, key: &str) -> Option<&PathNode> {
        self.children
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, n)| n)
            .or(self.wildcard.as_deref())
    }

    fn insert(&mut self, path: &str, next_id: &mut usize) {
        let mut node = self;
        for segment in path.split('.') {
            let prefix = if node.path.is_empty() {
                segment.to_owned()
            } else {
                format!("{}.{segment}", node.path)
            };
            let slot = if segment == "*" {
                node.wildcard.get_or_insert_with(Box::default)
            } else {
                match node.children.iter().position(|(k, _)| k == segment) {
                    Some(i) => &mut node.children[i].1,
                    None => {
                        node.children
                            .push((segment.to_owned(), PathNode::default()));
                        &mut node.children.last_mut().expect("just pushed").1
                    }
                }
            };
            if slot.path.is_empty() {
                *next_id += 1;
                slot.id = *next_id;
                slot.path = prefix;
            }
            node = slot;
        }
        node.terminal = true;
    }

    fn all<'a>(&'a self, out: &mut Vec<&'a PathNode>) {
        for (_, child) in &self.children {
            out.push(child);
            child.all(out);
        }
        if let Some(w) = &self.wildcard {
            out.push(w);
            w.all(out);
        }
    }
}

/// What to do with a path that matches no field anywhere in the value.
///
/// ```
/// use toon::project::{Projection, Unknown};
/// let v = toon::toon!({"id": 1});
/// assert!(Projection::new().include(["nme"]).apply_value(&v).is_ok());
/// let err = Projection::new().include(["nme"]).unknown(Unknown::Error).apply_value(&v);
/// assert!(err.unwrap_err().to_string().contains("unknown field path `nme`"));
/// ```
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Unknown {
    /// Ignore it (the default).
    #[default]
    Ignore,
    /// Fail with the path and the fields available at that level.
    Error,
}

/// Include and exclude paths; see the [module docs](self).
///
/// ```
/// use toon::project::Projection;
/// let p = Projection::new().include(["users.id", "users.name"]).exclude(["users.name"]);
/// let v = toon::toon!({"users": [{"id": 1, "name": "Ada", "mail": "a@x"}], "total": 1});
/// // As a serializer adapter on any `Serialize` value: nothing is copied.
/// assert_eq!(toon::to_string(&p.apply(&v)).unwrap(), "users[1]{id}:\n  1");
/// ```
#[derive(Debug, Default, Clone)]
pub struct Projection {
    include: Option<PathNode>,
    exclude: Option<PathNode>,
    unknown: Unknown,
    nodes: usize,
}

impl Projection {
    /// Keeps everything.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Keeps only these paths (added to any given before). Empty paths are ignored.
    ///
    /// ```
    /// let p = toon::project::Projection::new().include(["id", "tags"]);
    /// let v = toon::toon!({"id": 1, "name": "x", "tags": ["a"]});
    /// assert_eq!(p.apply_value(&v).unwrap(), toon::toon!({"id": 1, "tags": ["a"]}));
    /// ```
    #[must_use]
    pub fn include<I, S>(mut self, paths: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        add_paths(&mut self.include, paths, &mut self.nodes);
        self
    }

    /// Drops these paths (applied after the include list).
    ///
    /// ```
    /// let p = toon::project::Projection::new().exclude(["users.email"]);
    /// let v = toon::toon!({"users": [{"id": 1, "email": "a@x"}]});
    /// assert_eq!(p.apply_value(&v).unwrap(), toon::toon!({"users": [{"id": 1}]}));
    /// ```
    #[must_use]
    pub fn exclude<I, S>(mut self, paths: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        add_paths(&mut self.exclude, paths, &mut self.nodes);
        self
    }

    /// Whether a path that matches nothing is an error.
    ///
    /// ```
    /// use toon::project::{Projection, Unknown};
    /// let p = Projection::new().include(["user.nmae"]).unknown(Unknown::Error);
    /// let err = p.apply_value(&toon::toon!({"user": {"name": "Ada", "id": 1}})).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "unknown field path `user.nmae`; fields at `user`: id, name"
    /// );
    /// ```
    #[must_use]
    pub fn unknown(mut self, unknown: Unknown) -> Self {
        self.unknown = unknown;
        self
    }

    /// Wraps `value` so that serializing it yields only the projected fields.
    #[must_use]
    pub fn apply<'a, T: ?Sized + Serialize>(&'a self, value: &'a T) -> Projected<'a, T> {
        Projected {
            projection: self,
            value,
        }
    }

    /// Projects a [`Value`].
    ///
    /// # Errors
    ///
    /// An unknown path when the projection is strict about paths (the error names the fields
    /// available there).
    pub fn apply_value(&self, value: &Value) -> Result<Value> {
        crate::to_value(&self.apply(value))
    }
}

/// Adds non-empty, trimmed `paths` to a path tree, creating it on first use.
fn add_paths<I, S>(tree: &mut Option<PathNode>, paths: I, next_id: &mut usize)
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    for path in paths {
        let path = path.as_ref().trim();
        if !path.is_empty() {
            tree.get_or_insert_with(PathNode::default)
                .insert(path, next_id);
        }
    }
}

/// A value seen through a [`Projection`]; implements `Serialize`.
pub struct Projected<'a, T: ?Sized> {
    projection: &'a Projection,
    value: &'a T,
}

/// Which paths matched and which fields each level offered, for [`Unknown::Error`].
struct Tracker {
    matched: RefCell<Vec<bool>>,
    /// Field names seen at the level of each node's parent, by node id.
    available: RefCell<Vec<BTreeSet<String>>>,
}

impl<T: ?Sized + Serialize> Serialize for Projected<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let p = self.projection;
        let tracker = Tracker {
            matched: RefCell::new(vec![false; p.nodes + 1]),
            available: RefCell::new(vec![BTreeSet::new(); p.nodes + 1]),
        };
        let at = Level {
            include: p.include.as_ref(),
            exclude: p.exclude.as_ref(),
            tracker: (p.unknown == Unknown::Error).then_some(&tracker),
        };
        let ok = Within {
            value: self.value,
            at,
        }
        .serialize(serializer)?;
        if p.unknown == Unknown::Error
            && let Some(message) = unknown_path(p, &tracker)
        {
            return Err(ser::Error::custom(message));
        }
        Ok(ok)
    }
}

fn unknown_path(p: &Projection, tracker: &Tracker) -> Option<String> {
    let matched = tracker.matched.borrow();
    let available = tracker.available.borrow();
    let mut nodes = Vec::new();
    for root in [&p.include, &p.exclude].into_iter().flatten() {
        root.all(&mut nodes);
    }
    let missing = nodes.into_iter().find(|n| !matched[n.id])?;
    let fields = &available[missing.id];
    let parent = missing
        .path
        .rsplit_once('.')
        .map_or("", |(parent, _)| parent);
    let level = if parent.is_empty() {
        "the top level".to_owned()
    } else {
        format!("`{parent}`")
    };
    Some(if fields.is_empty() {
        format!(
            "unknown field path `{}`; no object at {level}",
            missing.path
        )
    } else {
        format!(
            "unknown field path `{}`; fields at {}: {}",
            missing.path,
            level.trim_start_matches("the "),
            listing(fields)
        )
    })
}

/// Field names listed in an error, at most.
const LISTED: usize = 32;

/// The first [`LISTED`] names, then how many more there are: a message about an object with
/// 200k keys stays one line.
fn listing(fields: &BTreeSet<String>) -> String {
    let mut out = fields
        .iter()
        .take(LISTED)
        .map(|name| crate::error::clipped(name, crate::error::QuotedInput::MAX).into_owned())
        .collect::<Vec<_>>()
        .join(", ");
    if fields.len() > LISTED {
        out.push_str(&format!(" and {} more", fields.len() - LISTED));
    }
    out
}

/// The path-tree positions at one level of the value.
#[derive(Copy, Clone)]
struct Level<'p> {
    /// `None`: keep everything below.
    include: Option<&'p PathNode>,
    /// `None`: drop nothing below.
    exclude: Option<&'p PathNode>,
    tracker: Option<&'p Tracker>,
}

impl<'p> Level<'p> {
    fn is_identity(&self) -> bool {
        self.include.is_none() && self.exclude.is_none()
    }

    /// The child of `node` for field `key`; records the field and the match for
    /// [`Unknown::Error`].
    fn step(&self, node: &'p PathNode, key: &str) -> Option<&'p PathNode> {
        let child = node.child(key);
        if let Some(t) = self.tracker {
            let below = node.children.iter().map(|(_, n)| n);
            for n in below.chain(node.wildcard.as_deref()) {
                t.available.borrow_mut()[n.id].insert(key.to_owned());
            }
            if let Some(c) = child {
                t.matched.borrow_mut()[c.id] = true;
            }
        }
        child
    }

    /// The level below field `key`, or `None` if the field is dropped.
    fn field(&self, key: &str) -> Option<Level<'p>> {
        let include = match self.include {
            None => None,
            Some(node) => {
                let child = self.step(node, key);
                match child {
                    None => return None,
                    Some(c) if c.terminal && c.children.is_empty() && c.wildcard.is_none() => None,
                    Some(c) => Some(c),
                }
            }
        };
        let exclude = match self.exclude {
            None => None,
            Some(node) => {
                let child = self.step(node, key);
                match child {
                    Some(c) if c.terminal => return None,
                    other => other,
                }
            }
        };
        Some(Level {
            include,
            exclude,
            tracker: self.tracker,
        })
    }
}

/// A value at a level of the projection.
struct Within<'a, 'p, T: ?Sized> {
    value: &'a T,
    at: Level<'p>,
}

impl<T: ?Sized + Serialize> Serialize for Within<'_, '_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        if self.at.is_identity() {
            return self.value.serialize(serializer);
        }
        self.value.serialize(FieldFilter {
            inner: serializer,
            at: self.at,
        })
    }
}

/// A serializer that filters the fields of every object it sees by its [`Level`].
struct FieldFilter<'p, S> {
    inner: S,
    at: Level<'p>,
}

macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        fn $method(self, $($arg: $ty),*) -> std::result::Result<S::Ok, S::Error> {
            self.inner.$method($($arg),*)
        }
    )*};
}

impl<'p, S: Serializer> Serializer for FieldFilter<'p, S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = FilterSeq<'p, S::SerializeSeq>;
    type SerializeTuple = FilterSeq<'p, S::SerializeSeq>;
    type SerializeTupleStruct = FilterSeq<'p, S::SerializeSeq>;
    type SerializeTupleVariant = ser::Impossible<S::Ok, S::Error>;
    type SerializeMap = FilterMap<'p, S::SerializeMap>;
    type SerializeStruct = FilterMap<'p, S::SerializeMap>;
    type SerializeStructVariant = ser::Impossible<S::Ok, S::Error>;

    forward! {
        serialize_bool(v: bool); serialize_i8(v: i8); serialize_i16(v: i16);
        serialize_i32(v: i32); serialize_i64(v: i64); serialize_i128(v: i128);
        serialize_u8(v: u8); serialize_u16(v: u16); serialize_u32(v: u32);
        serialize_u64(v: u64); serialize_u128(v: u128); serialize_f32(v: f32);
        serialize_f64(v: f64); serialize_char(v: char); serialize_str(v: &str);
        serialize_bytes(v: &[u8]); serialize_none(); serialize_unit();
        serialize_unit_struct(name: &'static str);
        serialize_unit_variant(name: &'static str, index: u32, variant: &'static str);
    }

    fn serialize_some<T: ?Sized + Serialize>(
        self,
        value: &T,
    ) -> std::result::Result<S::Ok, S::Error> {
        self.inner.serialize_some(&Within { value, at: self.at })
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> std::result::Result<S::Ok, S::Error> {
        self.inner
            .serialize_newtype_struct(name, &Within { value, at: self.at })
    }
    /// `{variant: value}`: the variant name is a field.
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> std::result::Result<S::Ok, S::Error> {
        let mut map = self.inner.serialize_map(None)?;
        if let Some(at) = self.at.field(variant) {
            map.serialize_entry(variant, &Within { value, at })?;
        }
        map.end()
    }
    fn serialize_seq(
        self,
        len: Option<usize>,
    ) -> std::result::Result<Self::SerializeSeq, S::Error> {
        Ok(FilterSeq {
            inner: self.inner.serialize_seq(len)?,
            at: self.at,
        })
    }
    fn serialize_tuple(self, len: usize) -> std::result::Result<Self::SerializeSeq, S::Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        len: usize,
    ) -> std::result::Result<Self::SerializeSeq, S::Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> std::result::Result<Self::SerializeTupleVariant, S::Error> {
        Err(ser::Error::custom(
            "projection of tuple variants is not supported",
        ))
    }
    fn serialize_map(self, _: Option<usize>) -> std::result::Result<Self::SerializeMap, S::Error> {
        // The projected length is unknown until the fields have been seen.
        Ok(FilterMap {
            inner: self.inner.serialize_map(None)?,
            at: self.at,
            pending: None,
        })
    }
    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> std::result::Result<Self::SerializeMap, S::Error> {
        self.serialize_map(None)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> std::result::Result<Self::SerializeStructVariant, S::Error> {
        Err(ser::Error::custom(
            "projection of struct variants is not supported",
        ))
    }
}

struct FilterSeq<'p, M> {
    inner: M,
    at: Level<'p>,
}

impl<M: SerializeSeq> SerializeSeq for FilterSeq<'_, M> {
    type Ok = M::Ok;
    type Error = M::Error;
    fn serialize_element<T: ?Sized + Serialize>(
        &mut self,
        value: &T,
    ) -> std::result::Result<(), M::Error> {
        // Paths apply through arrays: every element sits at the array's own level.
        self.inner.serialize_element(&Within { value, at: self.at })
    }
    fn end(self) -> std::result::Result<M::Ok, M::Error> {
        self.inner.end()
    }
}

impl<M: SerializeSeq> ser::SerializeTuple for FilterSeq<'_, M> {
    type Ok = M::Ok;
    type Error = M::Error;
    fn serialize_element<T: ?Sized + Serialize>(
        &mut self,
        value: &T,
    ) -> std::result::Result<(), M::Error> {
        SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> std::result::Result<M::Ok, M::Error> {
        self.inner.end()
    }
}

impl<M: SerializeSeq> ser::SerializeTupleStruct for FilterSeq<'_, M> {
    type Ok = M::Ok;
    type Error = M::Error;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        value: &T,
    ) -> std::result::Result<(), M::Error> {
        SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> std::result::Result<M::Ok, M::Error> {
        self.inner.end()
    }
}

struct FilterMap<'p, M> {
    inner: M,
    at: Level<'p>,
    /// The key just given and the level of its value, `None` when it is dropped.
    pending: Option<(String, Level<'p>)>,
}

impl<M: SerializeMap> FilterMap<'_, M> {
    fn entry<T: ?Sized + Serialize>(
        &mut self,
        key: &str,
        value: &T,
    ) -> std::result::Result<(), M::Error> {
        match self.at.field(key) {
            Some(at) => self.inner.serialize_entry(key, &Within { value, at }),
            None => Ok(()),
        }
    }
}

impl<M: SerializeMap> SerializeMap for FilterMap<'_, M> {
    type Ok = M::Ok;
    type Error = M::Error;
    fn serialize_key<T: ?Sized + Serialize>(
        &mut self,
        key: &T,
    ) -> std::result::Result<(), M::Error> {
        let text = key_text(key).map_err(ser::Error::custom)?;
        self.pending = self.at.field(&text).map(|at| (text, at));
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(
        &mut self,
        value: &T,
    ) -> std::result::Result<(), M::Error> {
        match self.pending.take() {
            Some((key, at)) => self.inner.serialize_entry(&key, &Within { value, at }),
            None => Ok(()),
        }
    }
    fn end(self) -> std::result::Result<M::Ok, M::Error> {
        self.inner.end()
    }
}

impl<M: SerializeMap> ser::SerializeStruct for FilterMap<'_, M> {
    type Ok = M::Ok;
    type Error = M::Error;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> std::result::Result<(), M::Error> {
        self.entry(key, value)
    }
    fn end(self) -> std::result::Result<M::Ok, M::Error> {
        self.inner.end()
    }
}

/// A map key's text, by the encoder's own key rules.
fn key_text<T: ?Sized + Serialize>(key: &T) -> Result<String> {
    key_string(key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toon;

    fn v() -> Value {
        toon!({
            "id": 7,
            "user": {"name": "Ada", "email": "a@x", "roles": ["admin"]},
            "items": [{"sku": "A", "qty": 1, "meta": {"w": 1}}, {"sku": "B", "qty": 2}]
        })
    }

    #[test]
    fn include_keeps_source_order_through_arrays() {
        let p = Projection::new().include(["items.sku", "id"]);
        assert_eq!(
            p.apply_value(&v()).unwrap(),
            toon!({"id": 7, "items": [{"sku": "A"}, {"sku": "B"}]})
        );
    }

    #[test]
    fn wildcard_matches_one_level() {
        let p = Projection::new()
            .include(["user.*"])
            .exclude(["user.roles"]);
        assert_eq!(
            p.apply_value(&v()).unwrap(),
            toon!({"user": {"name": "Ada", "email": "a@x"}})
        );
        // `items` matches `*` too; its elements have no `name`, so they stay as empty objects.
        let p = Projection::new().include(["*.name", "id"]);
        assert_eq!(
            p.apply_value(&v()).unwrap(),
            toon!({"id": 7, "user": {"name": "Ada"}, "items": [{}, {}]})
        );
    }

    #[test]
    fn empty_include_keeps_everything_and_exclude_drops() {
        assert_eq!(Projection::new().apply_value(&v()).unwrap(), v());
        let p = Projection::new().exclude(["items.meta", "user"]);
        assert_eq!(
            p.apply_value(&v()).unwrap(),
            toon!({"id": 7, "items": [{"sku": "A", "qty": 1}, {"sku": "B", "qty": 2}]})
        );
    }

    #[test]
    fn unknown_paths_error_with_available_fields() {
        let p = Projection::new()
            .include(["items.skew"])
            .unknown(Unknown::Error);
        let err = p.apply_value(&v()).unwrap_err().to_string();
        assert_eq!(
            err,
            "unknown field path `items.skew`; fields at `items`: meta, qty, sku"
        );
        let p = Projection::new().include(["nope"]).unknown(Unknown::Error);
        assert_eq!(
            p.apply_value(&v()).unwrap_err().to_string(),
            "unknown field path `nope`; fields at top level: id, items, user"
        );
        // Present in one element only is still known.
        let p = Projection::new()
            .include(["items.meta.w"])
            .unknown(Unknown::Error);
        assert!(p.apply_value(&v()).is_ok());
        // Ignored by default.
        assert_eq!(
            Projection::new()
                .include(["nope"])
                .apply_value(&v())
                .unwrap(),
            toon!({})
        );
    }

    #[test]
    fn works_on_derived_structs_and_other_formats() {
        #[derive(serde::Serialize)]
        struct User {
            id: u32,
            name: &'static str,
            secret: &'static str,
        }
        let users = vec![
            User {
                id: 1,
                name: "a",
                secret: "s",
            },
            User {
                id: 2,
                name: "b",
                secret: "t",
            },
        ];
        let p = Projection::new().exclude(["secret"]);
        assert_eq!(
            crate::to_string(&p.apply(&users)).unwrap(),
            "[2]{id,name}:\n  1,a\n  2,b"
        );
        assert_eq!(
            serde_json::to_string(&p.apply(&users)).unwrap(),
            r#"[{"id":1,"name":"a"},{"id":2,"name":"b"}]"#
        );
    }
}
