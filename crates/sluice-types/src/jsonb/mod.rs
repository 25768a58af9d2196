//! `jsonb`: JSON documents stored in a decomposed, canonical form.
//!
//! Parsing (`parse.rs`) produces a [`JsonbValue`] tree in which object keys
//! are unique (the last duplicate wins) and sorted the way PostgreSQL stores
//! them: shorter keys first, then bytewise. Numbers are `numeric`, so
//! `1.50` keeps its scale and `1e2` becomes `100`. Because the tree is
//! canonical, output (`output.rs`) is a straightforward walk printing
//! PostgreSQL's spacing (`{"a": 1, "b": [1, 2]}`).
//!
//! Ordering follows PostgreSQL's B-tree rules for jsonb: values of different
//! kinds order as Null < String < Number < Boolean < Array < Object; arrays
//! and objects with more elements sort after ones with fewer, and equal-sized
//! ones compare element by element (objects key, value, key, value, ... in
//! storage order). Strings compare bytewise (C collation).
//!
//! Nesting depth is bounded by the parser ([`parse::MAX_DEPTH`]), which keeps
//! every recursive function here within the stack.

mod binary;
mod ops;
mod output;
pub mod parse;

use std::cmp::Ordering;

use crate::numeric::Numeric;

pub use binary::{decode, encode};
pub use ops::{contains, exists, field, field_text, index, index_text};
pub use output::output;
pub use parse::parse;

/// A jsonb value.
#[derive(Clone, Debug)]
pub enum JsonbValue {
    /// JSON `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number, kept as `numeric`.
    Number(Numeric),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<JsonbValue>),
    /// An object: unique keys in jsonb storage order (see [`key_order`]).
    Object(Vec<(String, JsonbValue)>),
}

/// jsonb's key order: shorter keys first, then bytewise.
pub fn key_order(a: &str, b: &str) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| a.as_bytes().cmp(b.as_bytes()))
}

impl JsonbValue {
    /// Build an object from pairs in input order: sort keys into storage
    /// order and keep the last value of duplicate keys, as PostgreSQL does.
    pub fn object(mut pairs: Vec<(String, JsonbValue)>) -> JsonbValue {
        // A stable sort keeps duplicates in input order; keep the last of each.
        pairs.sort_by(|a, b| key_order(&a.0, &b.0));
        let mut out: Vec<(String, JsonbValue)> = Vec::with_capacity(pairs.len());
        for (k, v) in pairs {
            match out.last_mut() {
                Some(last) if last.0 == k => last.1 = v,
                _ => out.push((k, v)),
            }
        }
        JsonbValue::Object(out)
    }

    /// PostgreSQL's type rank for cross-type comparison.
    fn rank(&self) -> u8 {
        match self {
            JsonbValue::Null => 0,
            JsonbValue::String(_) => 1,
            JsonbValue::Number(_) => 2,
            JsonbValue::Bool(_) => 3,
            JsonbValue::Array(_) => 4,
            JsonbValue::Object(_) => 5,
        }
    }

    /// The jsonb B-tree order (see the module documentation).
    pub fn cmp_jsonb(&self, other: &JsonbValue) -> Ordering {
        match (self, other) {
            (JsonbValue::Null, JsonbValue::Null) => Ordering::Equal,
            (JsonbValue::Bool(a), JsonbValue::Bool(b)) => a.cmp(b),
            (JsonbValue::Number(a), JsonbValue::Number(b)) => a.cmp_total(b),
            (JsonbValue::String(a), JsonbValue::String(b)) => a.as_bytes().cmp(b.as_bytes()),
            (JsonbValue::Array(a), JsonbValue::Array(b)) => a.len().cmp(&b.len()).then_with(|| {
                a.iter()
                    .zip(b)
                    .map(|(x, y)| x.cmp_jsonb(y))
                    .find(|o| o.is_ne())
                    .unwrap_or(Ordering::Equal)
            }),
            (JsonbValue::Object(a), JsonbValue::Object(b)) => {
                a.len().cmp(&b.len()).then_with(|| {
                    a.iter()
                        .zip(b)
                        .map(|((ka, va), (kb, vb))| {
                            ka.as_bytes().cmp(kb.as_bytes()).then_with(|| va.cmp_jsonb(vb))
                        })
                        .find(|o| o.is_ne())
                        .unwrap_or(Ordering::Equal)
                })
            }
            _ => self.rank().cmp(&other.rank()),
        }
    }

    /// Feed a hash consistent with [`JsonbValue::cmp_jsonb`] equality
    /// (numbers hash by value, not by their display scale).
    pub fn hash_into(&self, h: &mut crate::compare::Fnv) {
        h.write(&[self.rank()]);
        match self {
            JsonbValue::Null => {}
            JsonbValue::Bool(b) => h.write(&[u8::from(*b)]),
            JsonbValue::Number(n) => crate::compare::hash_numeric_into(n, h),
            JsonbValue::String(s) => h.write_str(s),
            JsonbValue::Array(items) => {
                h.write(&(items.len() as u64).to_le_bytes());
                items.iter().for_each(|v| v.hash_into(h));
            }
            JsonbValue::Object(pairs) => {
                h.write(&(pairs.len() as u64).to_le_bytes());
                for (k, v) in pairs {
                    h.write_str(k);
                    v.hash_into(h);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
