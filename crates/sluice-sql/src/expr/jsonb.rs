//! The jsonb operators and functions: `->`, `->>`, `?`, `@>`, `<@`, `||`,
//! `-`, `jsonb_typeof`, `jsonb_array_length`; and `->`, `->>` of `json`,
//! which work on its text (`sluice_types::json`) so that a value comes
//! back as it was written.
//!
//! Field and element access return SQL NULL for a missing key, an index out
//! of range or a value of the wrong kind, never an error, as in PostgreSQL.
//! Concatenation follows `jsonb_concat`: two objects merge (right side wins),
//! otherwise both sides become arrays (a scalar or an object counts as a
//! one-element array) and are appended.

use sluice_types::json;
use sluice_types::jsonb::{self as ops, JsonbValue};
use sluice_types::Datum;

use super::builtin::{arg, int, text, unexpected, Builtin};
use crate::{Result, SqlError};

/// call -- computes a jsonb built-in over non-null arguments.
pub(super) fn call(func: Builtin, args: &[Datum]) -> Result<Datum> {
    let j = value(args, 0)?;
    let opt_jsonb =
        |v: Option<&JsonbValue>| v.map_or(Datum::Null, |v| Datum::Jsonb(Box::new(v.clone())));
    let opt_text = |v: Option<String>| v.map_or(Datum::Null, Datum::Text);
    Ok(match func {
        Builtin::JsonbField => opt_jsonb(ops::field(j, text(args, 1)?)),
        Builtin::JsonbIndex => opt_jsonb(ops::index(j, int(args, 1)?)),
        Builtin::JsonbFieldText => opt_text(ops::field_text(j, text(args, 1)?)),
        Builtin::JsonbIndexText => opt_text(ops::index_text(j, int(args, 1)?)),
        Builtin::JsonbExists => Datum::Bool(ops::exists(j, text(args, 1)?)),
        Builtin::JsonbContains => Datum::Bool(ops::contains(j, value(args, 1)?)),
        Builtin::JsonbContained => Datum::Bool(ops::contains(value(args, 1)?, j)),
        Builtin::JsonbConcat => Datum::Jsonb(Box::new(concat(j, value(args, 1)?))),
        Builtin::JsonbDeleteKey => Datum::Jsonb(Box::new(delete_key(j, text(args, 1)?)?)),
        Builtin::JsonbDeleteIndex => Datum::Jsonb(Box::new(delete_index(j, int(args, 1)?)?)),
        Builtin::JsonbTypeof => Datum::Text(type_name(j).to_string()),
        Builtin::JsonbArrayLength => match j {
            JsonbValue::Array(items) => Datum::Int4(items.len() as i32),
            JsonbValue::Object(_) => return Err(invalid("cannot get array length of a non-array")),
            _ => return Err(invalid("cannot get array length of a scalar")),
        },
        other => return Err(SqlError::internal(format!("{other:?} is not a jsonb function"))),
    })
}

/// json_call -- computes a json built-in over non-null arguments.
pub(super) fn json_call(func: Builtin, args: &[Datum]) -> Result<Datum> {
    let doc = match arg(args, 0)? {
        Datum::Json(doc) => doc,
        other => return Err(unexpected(other)),
    };
    let found = match func {
        Builtin::JsonField | Builtin::JsonFieldText => json::field(doc, text(args, 1)?),
        Builtin::JsonIndex | Builtin::JsonIndexText => json::element(doc, int(args, 1)?),
        other => return Err(SqlError::internal(format!("{other:?} is not a json function"))),
    };
    let as_text = matches!(func, Builtin::JsonFieldText | Builtin::JsonIndexText);
    Ok(match found {
        Some(value) if as_text => json::as_text(value).map_or(Datum::Null, Datum::Text),
        Some(value) => Datum::Json(value.to_string()),
        None => Datum::Null,
    })
}

/// Argument `i` as a jsonb value.
fn value(args: &[Datum], i: usize) -> Result<&JsonbValue> {
    match arg(args, i)? {
        Datum::Jsonb(j) => Ok(j),
        other => Err(unexpected(other)),
    }
}

/// `jsonb_typeof`.
fn type_name(j: &JsonbValue) -> &'static str {
    match j {
        JsonbValue::Null => "null",
        JsonbValue::Bool(_) => "boolean",
        JsonbValue::Number(_) => "number",
        JsonbValue::String(_) => "string",
        JsonbValue::Array(_) => "array",
        JsonbValue::Object(_) => "object",
    }
}

/// `a || b`.
fn concat(a: &JsonbValue, b: &JsonbValue) -> JsonbValue {
    match (a, b) {
        (JsonbValue::Object(x), JsonbValue::Object(y)) => {
            JsonbValue::object(x.iter().chain(y).cloned().collect())
        }
        _ => {
            let items = |v: &JsonbValue| match v {
                JsonbValue::Array(items) => items.clone(),
                other => vec![other.clone()],
            };
            JsonbValue::Array([items(a), items(b)].concat())
        }
    }
}

/// `j - key`: removes an object member, or matching string elements of an array.
fn delete_key(j: &JsonbValue, key: &str) -> Result<JsonbValue> {
    Ok(match j {
        JsonbValue::Object(pairs) => {
            JsonbValue::Object(pairs.iter().filter(|(k, _)| k != key).cloned().collect())
        }
        JsonbValue::Array(items) => JsonbValue::Array(
            items
                .iter()
                .filter(|v| !matches!(v, JsonbValue::String(s) if s == key))
                .cloned()
                .collect(),
        ),
        _ => return Err(invalid("cannot delete from scalar")),
    })
}

/// `j - index`: removes an array element (negative counts from the end).
fn delete_index(j: &JsonbValue, index: i64) -> Result<JsonbValue> {
    match j {
        JsonbValue::Array(items) => {
            let len = items.len() as i64;
            let at = if index < 0 { len + index } else { index };
            Ok(JsonbValue::Array(
                items
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i as i64 != at)
                    .map(|(_, v)| v.clone())
                    .collect(),
            ))
        }
        JsonbValue::Object(_) => Err(invalid("cannot delete from object using integer index")),
        _ => Err(invalid("cannot delete from scalar")),
    }
}

/// 22023 for a jsonb value of the wrong kind.
fn invalid(message: &str) -> SqlError {
    SqlError::new("22023", message)
}
