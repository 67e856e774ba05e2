//! Results kept for paging: `execute_tool` with `limit` runs the tool once and later pages
//! come from that one result, so a tool is never run again to page (its side effects would
//! repeat, and the pages would mix items of different runs).
//!
//! Bounded three ways: entries, total bytes, and age. A cursor names its result by a key that
//! is unique to this process and not guessable from another result's key.

use std::collections::VecDeque;
use std::hash::{BuildHasher, Hasher};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value as Json;

use super::error::Error;

/// Results kept at most (the oldest goes first).
pub(crate) const MAX_RESULTS: usize = 32;
/// Bytes of results kept at most (a larger result is not kept: it cannot be paged later).
pub(crate) const MAX_BYTES: usize = 64 << 20;
/// How long a result stays pageable.
pub(crate) const TTL: Duration = Duration::from_secs(600);

/// One kept result.
#[derive(Debug)]
struct Kept {
    key: String,
    tool: String,
    arguments: Json,
    result: Arc<str>,
    at: Instant,
}

/// Tool results kept for paging (see the module docs). Shareable between threads.
///
/// ```
/// use toon::mcp::Pages;
/// use serde_json::json;
/// let pages = Pages::new();
/// let key = pages.keep("list_users", &json!({}), r#"{"content":[]}"#.to_owned()).unwrap();
/// assert_eq!(&*pages.get(&key, "list_users", &json!({})).unwrap(), r#"{"content":[]}"#);
/// assert!(pages.get(&key, "other_tool", &json!({})).is_err());
/// ```
#[derive(Debug, Default)]
pub struct Pages {
    kept: Mutex<VecDeque<Kept>>,
    seed: std::collections::hash_map::RandomState,
    counter: std::sync::atomic::AtomicU64,
}

impl Pages {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Pages::default()
    }

    /// Keeps the result of `tool` called with `arguments`; returns its key, or `None` when it
    /// is larger than 64 MiB (it could not be kept).
    pub fn keep(&self, tool: &str, arguments: &Json, result: String) -> Option<String> {
        if result.len() > MAX_BYTES {
            return None;
        }
        let n = self
            .counter
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut hasher = self.seed.build_hasher();
        hasher.write_u64(n);
        let key = format!("{:016x}", hasher.finish());
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        expire(&mut kept);
        let mut bytes: usize = kept.iter().map(|k| k.result.len()).sum::<usize>() + result.len();
        while kept.len() >= MAX_RESULTS || bytes > MAX_BYTES {
            match kept.pop_front() {
                Some(old) => bytes -= old.result.len(),
                None => break,
            }
        }
        kept.push_back(Kept {
            key: key.clone(),
            tool: tool.to_owned(),
            arguments: arguments.clone(),
            result: result.into(),
            at: Instant::now(),
        });
        Some(key)
    }

    /// The result kept under `key`, when it was a call of `tool` with `arguments`.
    ///
    /// # Errors
    /// What the model should be told: the result expired or never was
    /// ([`Error::CursorExpired`]), or the cursor was made for another tool
    /// ([`Error::CursorOtherTool`]) or other arguments ([`Error::CursorOtherArguments`]).
    pub fn get(&self, key: &str, tool: &str, arguments: &Json) -> Result<Arc<str>, Error> {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        expire(&mut kept);
        let Some(found) = kept.iter().find(|k| k.key == key) else {
            return Err(Error::CursorExpired);
        };
        if found.tool != tool {
            return Err(Error::CursorOtherTool {
                kept: found.tool.clone(),
                tool: tool.to_owned(),
            });
        }
        if &found.arguments != arguments {
            return Err(Error::CursorOtherArguments);
        }
        Ok(found.result.clone())
    }
}

fn expire(kept: &mut VecDeque<Kept>) {
    while kept.front().is_some_and(|k| k.at.elapsed() > TTL) {
        kept.pop_front();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keeps_a_bounded_number_of_results() {
        let pages = Pages::new();
        let keys: Vec<String> = (0..MAX_RESULTS + 3)
            .map(|i| pages.keep("t", &json!({"i": i}), format!("{i}")).unwrap())
            .collect();
        let unique: std::collections::HashSet<&String> = keys.iter().collect();
        assert_eq!(unique.len(), keys.len());
        for (i, key) in keys.iter().enumerate() {
            let got = pages.get(key, "t", &json!({"i": i}));
            if i < 3 {
                assert!(got.unwrap_err().to_string().contains("no longer kept"));
            } else {
                assert_eq!(&*got.unwrap(), i.to_string());
            }
        }
        let last = keys.last().unwrap();
        let other = pages
            .get(last, "t", &json!({"i": 0}))
            .unwrap_err()
            .to_string();
        assert!(other.contains("other arguments"), "{other}");
        assert!(
            pages
                .keep("t", &json!({}), "x".repeat(MAX_BYTES + 1))
                .is_none()
        );
    }
}
