//! Array functions (`array_length`, `array_to_string`, `array_position`,
//! ...) and the evaluation of `x op ANY (array)` / `x op ALL (array)`.
//!
//! Dimension arguments follow PostgreSQL: sluice's arrays have one
//! dimension, so dimension 1 of a non-empty array is the only one with an
//! answer; any other dimension, and every dimension of an empty array (which
//! has none), gives NULL (`None` here). NULL arrays are the caller's to
//! handle: these functions take the array itself.

use crate::array::Array;
use crate::compare::cmp_typed;
use crate::context::Context;
use crate::datum::Datum;
use crate::error::{ErrorKind, Result, TypeError};
use crate::io;

/// `array_length(a, dim)`.
pub fn array_length(a: &Array, dim: i32) -> Option<i32> {
    first_dimension(a, dim).map(cardinality)
}

/// `array_lower(a, dim)`.
pub fn array_lower(a: &Array, dim: i32) -> Option<i32> {
    first_dimension(a, dim).map(Array::lower_bound)
}

/// `array_upper(a, dim)`.
pub fn array_upper(a: &Array, dim: i32) -> Option<i32> {
    first_dimension(a, dim).map(Array::upper_bound)
}

/// `array_ndims(a)`: 1, or NULL for an empty array.
pub fn array_ndims(a: &Array) -> Option<i32> {
    (!a.is_empty()).then_some(1)
}

/// `array_dims(a)`: `[lower:upper]`, or NULL for an empty array.
pub fn array_dims(a: &Array) -> Option<String> {
    first_dimension(a, 1).map(|a| format!("[{}:{}]", a.lower_bound(), a.upper_bound()))
}

/// `cardinality(a)`: the number of elements, NULLs included.
pub fn cardinality(a: &Array) -> i32 {
    // At most MAX_ARRAY_SIZE elements, so the count fits.
    i32::try_from(a.len()).unwrap_or(i32::MAX)
}

/// The array, if `dim` names a dimension it has.
fn first_dimension(a: &Array, dim: i32) -> Option<&Array> {
    (dim == 1 && !a.is_empty()).then_some(a)
}

/// array_to_string -- `array_to_string(a, delimiter [, null_text])`: the
/// elements' text joined by `delimiter`; NULL elements are skipped, or
/// printed as `null_text` when it is given (and not NULL).
pub fn array_to_string(
    a: &Array,
    delimiter: &str,
    null_text: Option<&str>,
    ctx: &Context,
) -> String {
    let texts: Vec<String> = a
        .elements()
        .iter()
        .filter_map(|e| io::output(e, ctx).or_else(|| null_text.map(str::to_string)))
        .collect();
    texts.join(delimiter)
}

/// array_position -- `array_position(a, value [, start])`: the subscript of
/// the first element not distinct from `value` (so NULL finds a NULL), at
/// or after subscript `start` when that third argument is given; `None` if
/// there is none. A NULL `start` is PostgreSQL's `22004`.
pub fn array_position(a: &Array, value: &Datum, start: Option<&Datum>) -> Result<Option<i32>> {
    let from = match start {
        None => i64::MIN,
        Some(d) => d.as_i64().ok_or_else(|| {
            TypeError::new(ErrorKind::NullValueNotAllowed, "initial position must not be null")
        })?,
    };
    let elem = a.elem_type().get();
    let found = (i64::from(a.lower_bound())..)
        .zip(a.elements())
        .filter(|&(subscript, _)| subscript >= from)
        // The total order puts NULL equal to NULL: IS NOT DISTINCT FROM.
        .find(|(_, e)| cmp_typed(elem, e, value).is_eq());
    Ok(found.and_then(|(subscript, _)| i32::try_from(subscript).ok()))
}

/// scalar_array_op -- `lhs op ANY (array)` (`all` false) or `lhs op ALL
/// (array)` (`all` true) for a strict operator `op`, which answers `None`
/// for NULL. As PostgreSQL's `ExecEvalScalarArrayOp`: a NULL array gives
/// NULL; an empty array gives false for ANY and true for ALL, even for a
/// NULL `lhs`; otherwise a NULL `lhs` gives NULL, the first decisive element
/// (true for ANY, false for ALL) decides, and if none does, a NULL element
/// or result makes the answer NULL.
pub fn scalar_array_op(
    lhs: &Datum,
    array: &Datum,
    all: bool,
    mut op: impl FnMut(&Datum, &Datum) -> Result<Option<bool>>,
) -> Result<Datum> {
    let Datum::Array(a) = array else {
        return Ok(Datum::Null);
    };
    if a.is_empty() {
        return Ok(Datum::Bool(all));
    }
    if lhs.is_null() {
        return Ok(Datum::Null);
    }
    let mut saw_null = false;
    for e in a.elements() {
        let result = if e.is_null() { None } else { op(lhs, e)? };
        match result {
            Some(decisive) if decisive != all => return Ok(Datum::Bool(decisive)),
            Some(_) => {}
            None => saw_null = true,
        }
    }
    Ok(if saw_null { Datum::Null } else { Datum::Bool(all) })
}
