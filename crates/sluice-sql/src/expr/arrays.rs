//! Array operations in expressions: subscripts, `op ANY/ALL (array)`, and
//! the array functions clients' catalog queries use (`array_to_string`,
//! `array_upper`, `array_lower`, `array_length`, `cardinality`) — PostgreSQL's
//! `arrayfuncs.c`, `array_userfuncs.c` and `ExecEvalScalarArrayOp`.
//!
//! Arrays are one-dimensional in sluice (see `sluice_types::array`), so a
//! dimension argument other than 1 simply finds no dimension, which
//! PostgreSQL answers with NULL too. Analysis has already coerced every
//! argument (`x = ANY(arr)` compares `x` with elements of `arr`'s element
//! type through the operator chosen for that pair), so evaluation only
//! walks elements.

use sluice_types::funcs::array::scalar_array_op;
use sluice_types::{io, Array, Context, Datum};

use super::builtin::{self, Builtin};
use super::EvalHost;
use crate::Result;

/// `array[subscript]`: the element, NULL outside the bounds.
pub(super) fn subscript(args: &[Datum]) -> Result<Datum> {
    let (Some(array), Some(i)) = (array_arg(args, 0), args.get(1).and_then(Datum::as_i64)) else {
        return Ok(Datum::Null);
    };
    let element = i32::try_from(i).ok().and_then(|i| array.get(i));
    Ok(element.cloned().unwrap_or(Datum::Null))
}

/// `name[i]`: the `"char"` at byte `i` of the 64-byte `name` (zero past
/// its end), NULL outside 0..=63, as for PostgreSQL's fixed-length array.
pub(super) fn name_subscript(args: &[Datum]) -> Datum {
    let (Some(name), Some(i)) = (args[0].as_str(), args.get(1).and_then(Datum::as_i64)) else {
        return Datum::Null;
    };
    match usize::try_from(i) {
        Ok(i) if i < 64 => Datum::Text(sluice_types::text::char_from_byte(
            name.as_bytes().get(i).copied().unwrap_or(0),
        )),
        _ => Datum::Null,
    }
}

/// `left op ANY (array)` / `left op ALL (array)` with SQL's NULL rules
/// (`sluice_types::funcs::array::scalar_array_op`); `op` is a strict
/// boolean operator.
pub(super) fn any_all(
    op: Builtin,
    all: bool,
    args: &[Datum],
    host: &mut dyn EvalHost,
) -> Result<Datum> {
    let (left, array) = (builtin::arg(args, 0)?, builtin::arg(args, 1)?);
    // The walk speaks the types layer's errors; an operator's error is kept
    // aside and ends the walk by answering decisively.
    let mut failure = None;
    let compare = |l: &Datum, e: &Datum| match builtin::call(op, &[l.clone(), e.clone()], host) {
        Ok(Datum::Bool(b)) => Ok(Some(b)),
        Ok(_) => Ok(None),
        Err(err) => {
            failure = Some(err);
            Ok(Some(!all))
        }
    };
    let result = scalar_array_op(left, array, all, compare)?;
    failure.map_or(Ok(result), Err)
}

/// `array_to_string(array, delimiter [, null_string])`: the elements' text
/// forms joined by `delimiter`; NULL elements are skipped unless
/// `null_string` is given.
pub(super) fn array_to_string(args: &[Datum], ctx: &Context) -> Result<Datum> {
    let (Some(array), Some(delimiter)) = (array_arg(args, 0), args.get(1).and_then(Datum::as_str))
    else {
        return Ok(Datum::Null);
    };
    let null_string = args.get(2).and_then(Datum::as_str);
    let parts: Vec<String> = array
        .elements()
        .iter()
        .filter_map(|e| match e {
            Datum::Null => null_string.map(str::to_string),
            e => io::output(e, ctx),
        })
        .collect();
    Ok(Datum::Text(parts.join(delimiter)))
}

/// `array_cat(a, b)`, `a || b`: the elements of `a`, then those of `b`
/// (one-dimensional arrays; a NULL side is the other array, both NULL is
/// NULL).
pub(super) fn array_cat(args: &[Datum]) -> Datum {
    match (array_arg(args, 0), array_arg(args, 1)) {
        (Some(a), Some(b)) => {
            let elems = a.elements().iter().chain(b.elements()).cloned().collect();
            Datum::array(a.elem_type(), elems)
        }
        (Some(one), None) | (None, Some(one)) => Datum::Array(Box::new(one.clone())),
        (None, None) => Datum::Null,
    }
}

/// `array_remove(a, value)`: `a` without its elements not distinct from
/// `value` (NULL removes the NULLs); a NULL array is NULL.
pub(super) fn array_remove(args: &[Datum]) -> Result<Datum> {
    let Some(array) = array_arg(args, 0) else { return Ok(Datum::Null) };
    let value = args.get(1).unwrap_or(&Datum::Null);
    let elem = array.elem_type();
    let kept = array
        .elements()
        .iter()
        .filter(|e| !sluice_types::compare::cmp_typed(elem.get(), e, value).is_eq())
        .cloned()
        .collect();
    Ok(Datum::array(elem, kept))
}

/// `string_agg`'s result from the array of its group's values: the
/// non-NULL ones joined by `delimiter` (nothing between them if it is
/// NULL), NULL if there are none.
pub(super) fn string_agg_join(args: &[Datum]) -> Datum {
    let Some(array) = array_arg(args, 0) else { return Datum::Null };
    let delimiter = args.get(1).and_then(Datum::as_str).unwrap_or("");
    let values: Vec<&str> = array.elements().iter().filter_map(Datum::as_str).collect();
    if values.is_empty() {
        return Datum::Null;
    }
    Datum::Text(values.join(delimiter))
}

/// Which bound or size of a dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dimension {
    /// `array_lower`.
    Lower,
    /// `array_upper`.
    Upper,
    /// `array_length`.
    Length,
}

/// `array_lower/array_upper/array_length(array, dim)`: NULL for an empty
/// array or a dimension it does not have.
pub(super) fn dimension(which: Dimension, args: &[Datum]) -> Result<Datum> {
    let (Some(array), Some(dim)) = (array_arg(args, 0), args.get(1).and_then(Datum::as_i64)) else {
        return Ok(Datum::Null);
    };
    if dim != 1 || array.is_empty() {
        return Ok(Datum::Null);
    }
    Ok(Datum::Int4(match which {
        Dimension::Lower => array.lower_bound(),
        Dimension::Upper => array.upper_bound(),
        Dimension::Length => array.len() as i32,
    }))
}

/// `cardinality(array)`: the number of elements.
pub(super) fn cardinality(args: &[Datum]) -> Result<Datum> {
    Ok(array_arg(args, 0).map_or(Datum::Null, |a| Datum::Int4(a.len() as i32)))
}

/// Argument `i` as an array, `None` if NULL.
fn array_arg(args: &[Datum], i: usize) -> Option<&Array> {
    args.get(i).and_then(Datum::as_array)
}
