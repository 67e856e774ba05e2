//! What every layer of the proxy shares about locks.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks, ignoring poisoning (the data stays consistent: every critical section is one map
/// operation).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
