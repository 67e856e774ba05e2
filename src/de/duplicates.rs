//! §14.3 duplicate sibling keys: strict mode rejects them.

use std::borrow::Cow;
use std::collections::HashSet;

use super::scanner::Line;
use crate::error::{Error, Quoted};

/// Strict-mode duplicate sibling key detection (§14.3): a short list, a set once it grows.
#[derive(Default)]
pub(super) struct SeenKeys<'de> {
    few: Vec<Cow<'de, str>>,
    many: Option<HashSet<Cow<'de, str>>>,
}

impl<'de> SeenKeys<'de> {
    /// False if `key` was seen before.
    #[allow(clippy::ptr_arg)] // the key is cloned as a `Cow` to stay borrowed when it can
    pub(super) fn insert(&mut self, key: &Cow<'de, str>) -> bool {
        if let Some(set) = &mut self.many {
            return set.insert(key.clone());
        }
        if self.few.contains(key) {
            return false;
        }
        self.few.push(key.clone());
        if self.few.len() > 16 {
            self.many = Some(self.few.drain(..).collect());
        }
        true
    }
}

pub(super) fn duplicate(line: &Line<'_>, key: &str) -> Error {
    line.error(format!(
        "duplicate key {} (strict mode; non-strict keeps the last)",
        Quoted(key)
    ))
}
