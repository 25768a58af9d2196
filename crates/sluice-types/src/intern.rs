//! Interning of type descriptors that only the catalogs know (row types,
//! enum types, domains): each distinct descriptor is leaked once and shared
//! as a `'static` reference, so the `SqlType` variants that hold one stay
//! `Copy` and compare by content. Descriptors are never freed; there is one
//! per distinct shape a server has seen, not one per value.

use std::collections::HashSet;
use std::hash::Hash;
use std::sync::{Mutex, OnceLock};

/// A set of interned values of type `T`.
pub(crate) struct Interner<T: 'static>(OnceLock<Mutex<HashSet<&'static T>>>);

impl<T: Eq + Hash + 'static> Interner<T> {
    /// An empty set, for a `static`.
    pub(crate) const fn new() -> Interner<T> {
        Interner(OnceLock::new())
    }

    /// intern -- the shared copy of `value`, made on first use.
    pub(crate) fn intern(&self, value: T) -> &'static T {
        let set = self.0.get_or_init(|| Mutex::new(HashSet::new()));
        // A panic elsewhere while holding the lock leaves the set intact.
        let mut set = set.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(found) = set.get(&value) {
            return found;
        }
        let leaked: &'static T = Box::leak(Box::new(value));
        set.insert(leaked);
        leaked
    }
}
