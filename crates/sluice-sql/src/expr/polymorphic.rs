//! Polymorphic arguments (PostgreSQL's `enforce_generic_type_consistency`
//! in `parse_coerce.c`, for the `anycompatible` family only).
//!
//! A function declared over `anycompatiblearray` and `anycompatible` (such
//! as `array_position`) works on any element type, as long as the call's
//! arguments agree on one. Once overload resolution has picked such a
//! function, [`resolve`] finds that type — the common type of every
//! `anycompatible` argument and of every `anycompatiblearray` argument's
//! element type, chosen as for `CASE` or `UNION` — and turns the signature
//! into a concrete one, so the arguments are then coerced like any others:
//!
//! ```text
//!   array_position('{1,2}'::int[], 2::bigint)
//!     anycompatiblearray, anycompatible  ->  bigint[], bigint
//! ```
//!
//! Untyped literals take no part in the choice; if every polymorphic
//! argument is one, the type is `text`, as in PostgreSQL. Arguments that
//! share no common type mean the function does not match the call.

use sluice_types::SqlType;

use super::candidates::ArgType;
use super::coerce::{can_coerce, common_type};
use super::CoercionContext;
use crate::Result;

/// resolve -- `signature` with its polymorphic entries replaced by the
/// concrete types the arguments (of types `inputs`) agree on; `None` if
/// they agree on none. A signature without polymorphic entries comes back
/// unchanged.
pub(super) fn resolve(inputs: &[SqlType], signature: &[ArgType]) -> Result<Option<Vec<ArgType>>> {
    let polymorphic =
        |a: &ArgType| matches!(a, ArgType::AnyCompatible | ArgType::AnyCompatibleArray);
    if !signature.iter().any(polymorphic) {
        return Ok(Some(signature.to_vec()));
    }
    let Some(element) = common_element(inputs, signature)? else { return Ok(None) };
    let Some(array) = SqlType::array_of(element) else { return Ok(None) };
    Ok(Some(
        signature
            .iter()
            .map(|a| match a {
                ArgType::AnyCompatible => ArgType::Is(element),
                ArgType::AnyCompatibleArray => ArgType::Is(array),
                other => *other,
            })
            .collect(),
    ))
}

/// The type the polymorphic arguments agree on: the common type of their
/// known types (an array argument contributes its element type), `text` if
/// none is known; `None` if there is no common type.
fn common_element(inputs: &[SqlType], signature: &[ArgType]) -> Result<Option<SqlType>> {
    let mut known = Vec::new();
    for (input, declared) in inputs.iter().zip(signature) {
        let element = match (declared, input) {
            (_, SqlType::Unknown) => continue,
            (ArgType::AnyCompatibleArray, SqlType::Array(e)) => e.get(),
            (ArgType::AnyCompatibleArray, _) => return Ok(None),
            (ArgType::AnyCompatible, t) => *t,
            _ => continue,
        };
        known.push((element, None));
    }
    if known.is_empty() {
        return Ok(Some(SqlType::Text));
    }
    let Some(common) = common_type(&known, None)? else { return Ok(None) };
    let reachable = known.iter().all(|(t, _)| can_coerce(*t, common, CoercionContext::Implicit));
    Ok(reachable.then_some(common))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIG: [ArgType; 2] = [ArgType::AnyCompatibleArray, ArgType::AnyCompatible];

    fn concrete(inputs: &[SqlType]) -> Option<Vec<ArgType>> {
        resolve(inputs, &SIG).unwrap()
    }

    #[test]
    fn the_array_element_and_the_value_meet_in_a_common_type() {
        let int4s = SqlType::INT4_ARRAY;
        let int8s = SqlType::array_of(SqlType::Int8).unwrap();
        assert_eq!(
            concrete(&[int4s, SqlType::Int8]),
            Some(vec![ArgType::Is(int8s), ArgType::Is(SqlType::Int8)])
        );
        assert_eq!(
            concrete(&[SqlType::NAME_ARRAY, SqlType::Unknown]),
            Some(vec![ArgType::Is(SqlType::NAME_ARRAY), ArgType::Is(SqlType::Name)])
        );
    }

    #[test]
    fn unknowns_alone_are_text_and_strangers_do_not_match() {
        let texts = SqlType::array_of(SqlType::Text).unwrap();
        assert_eq!(
            concrete(&[SqlType::Unknown, SqlType::Unknown]),
            Some(vec![ArgType::Is(texts), ArgType::Is(SqlType::Text)])
        );
        assert_eq!(concrete(&[SqlType::NAME_ARRAY, SqlType::Int4]), None);
        let fixed = [ArgType::Is(SqlType::Int4)];
        assert_eq!(resolve(&[SqlType::Int4], &fixed).unwrap(), Some(fixed.to_vec()));
    }
}
