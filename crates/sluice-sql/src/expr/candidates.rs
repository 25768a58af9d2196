//! Choosing among overloaded operators and functions (PostgreSQL's
//! `func_match_argtypes` and `func_select_candidate` in `parse_func.c`, and
//! `binary_oper_exact` in `parse_oper.c`).
//!
//! Given the argument types of a call and the signatures of every operator
//! or function with that name, the winner is found in stages, each applied
//! only if the previous left more than one candidate:
//!
//! 1. an exact match; for a binary operator with one `unknown` side, an exact
//!    match with both sides of the known type (`int_col = '7'`);
//! 2. candidates every argument can reach by implicit coercion;
//! 3. most exact matches on the known arguments;
//! 4. most arguments that are exact or the *preferred* type of their
//!    category (`float8`, `text`, `timestamptz`, `interval`, `bool`);
//! 5. for `unknown` arguments, the category the candidates agree on — string
//!    if any candidate takes one there — and within it the preferred type;
//! 6. if all known arguments share one type, assume the unknowns have it too.
//!
//! The outcome is a unique candidate, none ("does not exist") or several
//! ("is not unique"). Reproducing these rules exactly matters: they decide
//! both which operator runs and which error a user sees.

use sluice_types::types::TypeCategory;
use sluice_types::{RegKind, SqlType};

use super::coerce::{can_coerce, is_preferred};
use super::CoercionContext;

/// A declared argument type of a built-in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ArgType {
    /// Exactly this type (after implicit coercion).
    Is(SqlType),
    /// `anynonarray` in `anytextcat`/`textanycat`: any type, converted to
    /// text by a cast, as those SQL functions do.
    AnyAsText,
    /// `"any"`: any type, passed unconverted (`concat`, `count`).
    Any,
    /// `regclass`: a relation named by a string or given by OID.
    RegClass,
    /// `anycompatiblearray`: an array whose element type is unified with
    /// the call's `anycompatible` arguments (`polymorphic.rs`).
    AnyCompatibleArray,
    /// `anycompatible`: a value unified with the call's other polymorphic
    /// arguments.
    AnyCompatible,
}

/// A type's category for candidate selection; pseudo-types have their own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Category {
    /// A real type's `typcategory`.
    Real(TypeCategory),
    /// `P`: polymorphic and `"any"`.
    Pseudo,
}

impl ArgType {
    /// The category and whether the type is its category's preferred one.
    fn category(self) -> (Category, bool) {
        match self {
            ArgType::Is(t) => (Category::Real(t.category()), is_preferred(t)),
            ArgType::AnyAsText
            | ArgType::Any
            | ArgType::AnyCompatibleArray
            | ArgType::AnyCompatible => (Category::Pseudo, false),
            ArgType::RegClass => (Category::Real(TypeCategory::Numeric), false),
        }
    }

    /// Whether an argument of type `input` is accepted implicitly.
    pub(super) fn accepts(self, input: SqlType) -> bool {
        match self {
            ArgType::Is(t) => can_coerce(input, t, CoercionContext::Implicit),
            ArgType::AnyAsText | ArgType::Any | ArgType::AnyCompatible => true,
            ArgType::AnyCompatibleArray => {
                matches!(input, SqlType::Array(_) | SqlType::Unknown)
            }
            ArgType::RegClass => matches!(
                input,
                SqlType::Unknown
                    | SqlType::Text
                    | SqlType::Varchar
                    | SqlType::Int2
                    | SqlType::Int4
                    | SqlType::Int8
                    | SqlType::Oid
                    | SqlType::Reg(RegKind::Class)
            ),
        }
    }

    /// Whether this is exactly `input`.
    fn is(self, input: SqlType) -> bool {
        match self {
            ArgType::RegClass => input == SqlType::Reg(RegKind::Class),
            other => other == ArgType::Is(input),
        }
    }
}

/// The outcome of overload resolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Choice {
    /// Candidate `i` wins.
    One(usize),
    /// No candidate accepts the arguments.
    NoMatch,
    /// Several candidates remain.
    Ambiguous,
}

/// choose -- picks the candidate for arguments of types `inputs` among
/// `candidates` (each a full argument list); `binary_op` enables the
/// operator-only rule for one unknown side.
pub(super) fn choose(inputs: &[SqlType], candidates: &[Vec<ArgType>], binary_op: bool) -> Choice {
    let all: Vec<usize> =
        (0..candidates.len()).filter(|&i| candidates[i].len() == inputs.len()).collect();
    if let Some(i) = exact(inputs, candidates, &all, binary_op) {
        return Choice::One(i);
    }
    let coercible: Vec<usize> = all
        .into_iter()
        .filter(|&i| inputs.iter().zip(&candidates[i]).all(|(input, arg)| arg.accepts(*input)))
        .collect();
    match coercible.as_slice() {
        [] => Choice::NoMatch,
        [one] => Choice::One(*one),
        _ => select(inputs, candidates, coercible),
    }
}

/// Stage 1: an exact signature match.
fn exact(
    inputs: &[SqlType],
    candidates: &[Vec<ArgType>],
    all: &[usize],
    binary_op: bool,
) -> Option<usize> {
    let matches = |types: &[SqlType]| {
        all.iter().copied().find(|&i| types.iter().zip(&candidates[i]).all(|(t, a)| a.is(*t)))
    };
    if let Some(i) = matches(inputs) {
        return Some(i);
    }
    match inputs {
        [SqlType::Unknown, known] | [known, SqlType::Unknown]
            if binary_op && *known != SqlType::Unknown =>
        {
            matches(&[*known, *known])
        }
        _ => None,
    }
}

/// Stages 3 to 6 (`func_select_candidate`).
fn select(inputs: &[SqlType], candidates: &[Vec<ArgType>], mut live: Vec<usize>) -> Choice {
    let unknown = |i: usize| inputs[i] == SqlType::Unknown;
    // Stage 3: most exact matches on known arguments.
    live = keep_best(live, |c| {
        (0..inputs.len()).filter(|&i| !unknown(i) && candidates[c][i].is(inputs[i])).count()
    });
    if let [one] = live.as_slice() {
        return Choice::One(*one);
    }
    // Stage 4: exact or preferred-in-the-input's-category.
    live = keep_best(live, |c| {
        (0..inputs.len())
            .filter(|&i| {
                let arg = candidates[c][i];
                let (cat, preferred) = arg.category();
                !unknown(i)
                    && (arg.is(inputs[i])
                        || (preferred && cat == Category::Real(inputs[i].category())))
            })
            .count()
    });
    if let [one] = live.as_slice() {
        return Choice::One(*one);
    }
    if !(0..inputs.len()).any(unknown) {
        return Choice::Ambiguous;
    }
    let live = resolve_unknowns(inputs, candidates, live);
    if let [one] = live.as_slice() {
        return Choice::One(*one);
    }
    assume_known_type(inputs, candidates, &live)
}

/// Keep the candidates with the highest score, or all if none scores.
fn keep_best(live: Vec<usize>, score: impl Fn(usize) -> usize) -> Vec<usize> {
    let best = live.iter().map(|&c| score(c)).max().unwrap_or(0);
    if best == 0 {
        return live;
    }
    live.into_iter().filter(|&c| score(c) == best).collect()
}

/// Stage 5: settle each unknown argument's category (string wins conflicts)
/// and preference, then keep the candidates that agree (all of them if none
/// does, or if some position cannot be settled).
fn resolve_unknowns(
    inputs: &[SqlType],
    candidates: &[Vec<ArgType>],
    live: Vec<usize>,
) -> Vec<usize> {
    let mut slots = Vec::new();
    for i in (0..inputs.len()).filter(|&i| inputs[i] == SqlType::Unknown) {
        match slot_category(live.iter().map(|&c| candidates[c][i])) {
            Some((category, has_preferred)) => slots.push((i, category, has_preferred)),
            None => return live,
        }
    }
    let kept: Vec<usize> = live
        .iter()
        .copied()
        .filter(|&c| {
            slots.iter().all(|&(i, category, has_preferred)| {
                let (cat, preferred) = candidates[c][i].category();
                cat == category && (preferred || !has_preferred)
            })
        })
        .collect();
    if kept.is_empty() {
        live
    } else {
        kept
    }
}

/// The category an unknown argument position resolves to, and whether some
/// candidate takes that category's preferred type; `None` on a conflict
/// without a string candidate.
fn slot_category(args: impl Iterator<Item = ArgType>) -> Option<(Category, bool)> {
    let string = Category::Real(TypeCategory::String);
    let mut slot: Option<(Category, bool)> = None;
    let mut conflict = false;
    for arg in args {
        let (cat, preferred) = arg.category();
        match slot {
            None => slot = Some((cat, preferred)),
            Some((current, has)) if current == cat => slot = Some((current, has || preferred)),
            Some(_) if cat == string => slot = Some((cat, preferred)),
            Some(_) => conflict = true,
        }
    }
    match slot {
        Some((cat, _)) if conflict && cat != string => None,
        other => other,
    }
}

/// Stage 6: with all known arguments of one type, treat the unknowns as that
/// type and look for a unique implicitly reachable candidate.
fn assume_known_type(inputs: &[SqlType], candidates: &[Vec<ArgType>], live: &[usize]) -> Choice {
    let mut known = inputs.iter().filter(|t| **t != SqlType::Unknown);
    let Some(&first) = known.next() else { return Choice::Ambiguous };
    if known.any(|t| *t != first) {
        return Choice::Ambiguous;
    }
    let fits: Vec<usize> =
        live.iter().copied().filter(|&c| candidates[c].iter().all(|a| a.accepts(first))).collect();
    match fits.as_slice() {
        [one] => Choice::One(*one),
        _ => Choice::Ambiguous,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use SqlType::*;

    fn sigs(list: &[&[ArgType]]) -> Vec<Vec<ArgType>> {
        list.iter().map(|s| s.to_vec()).collect()
    }

    #[test]
    fn round_of_integer_prefers_float8() {
        let c = sigs(&[&[ArgType::Is(Float8)], &[ArgType::Is(Numeric)]]);
        assert_eq!(choose(&[Int4], &c, false), Choice::One(0));
        assert_eq!(choose(&[Numeric], &c, false), Choice::One(1));
        assert_eq!(choose(&[Unknown], &c, false), Choice::One(0));
    }

    #[test]
    fn unknown_literals_lean_to_strings() {
        let c = sigs(&[
            &[ArgType::Is(Text), ArgType::Is(Text)],
            &[ArgType::AnyAsText, ArgType::Is(Text)],
            &[ArgType::Is(Text), ArgType::AnyAsText],
            &[ArgType::Is(Bytea), ArgType::Is(Bytea)],
        ]);
        assert_eq!(choose(&[Unknown, Unknown], &c, true), Choice::One(0));
        assert_eq!(choose(&[Int4, Unknown], &c, true), Choice::One(1));
        let sum = sigs(&[&[ArgType::Is(Int4)], &[ArgType::Is(Numeric)], &[ArgType::Is(Interval)]]);
        assert_eq!(choose(&[Unknown], &sum, false), Choice::Ambiguous);
        assert_eq!(choose(&[Text], &sum, false), Choice::NoMatch);
    }
}
