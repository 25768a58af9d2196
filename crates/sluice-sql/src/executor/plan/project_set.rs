//! Set-returning functions in a select list (PostgreSQL 10's ProjectSet):
//! `SELECT id, unnest(tags) FROM t` gives a row per element of each row's
//! array, the other columns repeated.
//!
//! As in PostgreSQL 10 and later, several set-returning functions in one
//! list run in lockstep: the input row yields as many rows as the longest
//! set, the shorter ones padded with NULLs, and none when every set is
//! empty. Only top-level calls are expanded here (the planner refuses one
//! nested in an expression); the other expressions are evaluated once per
//! input row.

use std::collections::VecDeque;

use super::ExecHost;
use crate::error::Result;
use crate::expr::{eval, Builtin, Expr};
use sluice_types::Datum;

/// Whether `e` is a set-returning call the projection expands.
pub(super) fn is_set_function(e: &Expr) -> bool {
    matches!(e, Expr::Call { func: Builtin::Unnest, .. })
}

/// One projected column of an input row: a value, or a set of them.
enum Column {
    Value(Datum),
    Set(Vec<Datum>),
}

/// expand -- the output rows `exprs` make of input row `row`.
pub(super) fn expand(
    exprs: &[Expr],
    row: &[Datum],
    host: &mut ExecHost,
) -> Result<VecDeque<Vec<Datum>>> {
    let mut columns = Vec::with_capacity(exprs.len());
    for e in exprs {
        columns.push(match e {
            Expr::Call { func: Builtin::Unnest, args, .. } => match eval(&args[0], row, host)? {
                Datum::Array(array) => Column::Set(array.into_elements()),
                _ => Column::Set(Vec::new()),
            },
            e => Column::Value(eval(e, row, host)?),
        });
    }
    let rows = columns
        .iter()
        .map(|c| match c {
            Column::Set(values) => values.len(),
            Column::Value(_) => 0,
        })
        .max()
        .unwrap_or(0);
    Ok((0..rows)
        .map(|i| {
            columns
                .iter()
                .map(|c| match c {
                    Column::Value(v) => v.clone(),
                    Column::Set(values) => values.get(i).cloned().unwrap_or(Datum::Null),
                })
                .collect()
        })
        .collect())
}
