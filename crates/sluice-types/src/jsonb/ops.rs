//! jsonb operators: `->`, `->>`, `@>` and `?`.
//!
//! `->` and `->>` return SQL NULL (here `None`) when the key or index is
//! absent or the value is of the wrong kind, never an error; a negative
//! index counts from the end. `->>` returns text: a string's contents, or
//! the canonical text of any other value, and NULL for JSON `null`.

use super::{key_order, output, JsonbValue};

/// `jsonb -> text`: an object's member.
pub fn field<'a>(v: &'a JsonbValue, key: &str) -> Option<&'a JsonbValue> {
    match v {
        JsonbValue::Object(pairs) => {
            pairs.binary_search_by(|(k, _)| key_order(k, key)).ok().map(|i| &pairs[i].1)
        }
        _ => None,
    }
}

/// `jsonb -> integer`: an array element; negative indexes count from the end.
pub fn index(v: &JsonbValue, idx: i64) -> Option<&JsonbValue> {
    match v {
        JsonbValue::Array(items) => {
            let len = items.len() as i64;
            let i = if idx < 0 { len + idx } else { idx };
            (0..len).contains(&i).then(|| &items[i as usize])
        }
        _ => None,
    }
}

/// The `->>` text of a value: strings unquoted, JSON null as SQL NULL.
fn as_text(v: &JsonbValue) -> Option<String> {
    match v {
        JsonbValue::Null => None,
        JsonbValue::String(s) => Some(s.clone()),
        other => Some(output(other)),
    }
}

/// `jsonb ->> text`.
pub fn field_text(v: &JsonbValue, key: &str) -> Option<String> {
    field(v, key).and_then(as_text)
}

/// `jsonb ->> integer`.
pub fn index_text(v: &JsonbValue, idx: i64) -> Option<String> {
    index(v, idx).and_then(as_text)
}

/// `jsonb ? text`: a top-level key, array string element, or the string itself.
pub fn exists(v: &JsonbValue, key: &str) -> bool {
    match v {
        JsonbValue::Object(_) => field(v, key).is_some(),
        JsonbValue::Array(items) => {
            items.iter().any(|i| matches!(i, JsonbValue::String(s) if s == key))
        }
        JsonbValue::String(s) => s == key,
        _ => false,
    }
}

/// `a @> b`: whether `a` contains `b` (PostgreSQL's containment rules; a
/// top-level array also contains a bare scalar it has as an element).
pub fn contains(a: &JsonbValue, b: &JsonbValue) -> bool {
    match (a, b) {
        (JsonbValue::Array(items), b)
            if !matches!(b, JsonbValue::Array(_) | JsonbValue::Object(_)) =>
        {
            items.iter().any(|i| scalar_eq(i, b))
        }
        _ => contains_inner(a, b),
    }
}

/// Containment below the top level.
fn contains_inner(a: &JsonbValue, b: &JsonbValue) -> bool {
    match (a, b) {
        (JsonbValue::Object(_), JsonbValue::Object(bp)) => {
            bp.iter().all(|(k, bv)| field(a, k).is_some_and(|av| contains_inner(av, bv)))
        }
        (JsonbValue::Array(ai), JsonbValue::Array(bi)) => bi.iter().all(|bv| match bv {
            JsonbValue::Array(_) | JsonbValue::Object(_) => {
                ai.iter().any(|av| contains_inner(av, bv))
            }
            scalar => ai.iter().any(|av| scalar_eq(av, scalar)),
        }),
        (JsonbValue::Array(_) | JsonbValue::Object(_), _) => false,
        _ => scalar_eq(a, b),
    }
}

/// Equality of two scalars (containers are never scalar-equal).
fn scalar_eq(a: &JsonbValue, b: &JsonbValue) -> bool {
    match (a, b) {
        (JsonbValue::Array(_) | JsonbValue::Object(_), _)
        | (_, JsonbValue::Array(_) | JsonbValue::Object(_)) => false,
        _ => a.cmp_jsonb(b).is_eq(),
    }
}
