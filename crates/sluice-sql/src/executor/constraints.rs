//! What every new row version goes through before it is stored: its
//! generated columns are computed from the rest of the row (PostgreSQL's
//! ExecComputeStoredGenerated), then the constraints are checked
//! (PostgreSQL's ExecConstraints in `execMain.c`): NOT NULL columns first,
//! then the table's CHECK constraints in name order. A CHECK passes unless
//! its expression is false — NULL passes, as SQL says — and a NOT VALID
//! constraint is checked like a validated one: only rows stored before it
//! was added escape it.
//!
//! A row written through a view with a check option must then make each
//! view's WHERE clause true (NULL fails, unlike a CHECK): 44000 otherwise.
//!
//! UNIQUE and PRIMARY KEY are not here: their indexes enforce them as the
//! entries go in (`indexing.rs`).

use super::host::ExecHost;
use crate::catalog::relation::RelationDesc;
use crate::error::{Result, SqlError};
use crate::expr::{eval, EvalHost};
use crate::optimizer::constraint::{CheckExpr, NewRowRules, ViewCheckExpr};
use sluice_types::Datum;

/// Where a row checked against the table's constraints comes from, which
/// decides how a violation is worded.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum RowSource {
    /// A new row version of INSERT, UPDATE or COPY: PostgreSQL's
    /// ExecConstraints wording, with the row in the DETAIL.
    New,
    /// A row a table rewrite (ALTER COLUMN TYPE) carries over: PostgreSQL's
    /// ATRewriteTable wording, about the table's rows.
    Rewritten,
}

/// prepare_row -- computes `row`'s generated columns, then checks it
/// ([`check_row`]) and the check options of the views it is written
/// through.
pub(crate) fn prepare_row(
    rel: &RelationDesc,
    rules: NewRowRules,
    row: &mut [Datum],
    host: &mut ExecHost,
    source: RowSource,
) -> Result<()> {
    for generated in rules.generated {
        row[generated.column] = eval(&generated.expr, row, host)?;
    }
    check_row(rel, rules.checks, row, host, source)?;
    check_view_options(rules.view_checks, row, host)
}

/// check_view_options -- 44000 for the first view whose check option
/// `row` does not meet.
fn check_view_options(checks: &[ViewCheckExpr], row: &[Datum], host: &mut ExecHost) -> Result<()> {
    for check in checks {
        if !matches!(eval(&check.expr, row, host)?, Datum::Bool(true)) {
            return Err(SqlError::new(
                "44000",
                format!("new row violates check option for view \"{}\"", check.view),
            )
            .with_detail(failing_row(row, host)));
        }
    }
    Ok(())
}

/// check_row -- 23502 if a NOT NULL column of `rel` is NULL in `row`, else
/// 23514 for the first of `checks` that `row` makes false.
fn check_row(
    rel: &RelationDesc,
    checks: &[CheckExpr],
    row: &[Datum],
    host: &mut ExecHost,
    source: RowSource,
) -> Result<()> {
    for (column, value) in rel.columns.iter().zip(row) {
        if column.not_null && value.is_null() {
            let error = match source {
                RowSource::New => SqlError::new(
                    "23502",
                    format!(
                        "null value in column \"{}\" of relation \"{}\" violates not-null constraint",
                        column.name, rel.name
                    ),
                )
                .with_detail(failing_row(row, host)),
                RowSource::Rewritten => SqlError::new(
                    "23502",
                    format!("column \"{}\" of relation \"{}\" contains null values", column.name, rel.name),
                ),
            };
            return Err(error);
        }
    }
    for check in checks {
        if matches!(eval(&check.expr, row, host)?, Datum::Bool(false)) {
            let error = match source {
                RowSource::New => SqlError::new(
                    "23514",
                    format!(
                        "new row for relation \"{}\" violates check constraint \"{}\"",
                        rel.name, check.name
                    ),
                )
                .with_detail(failing_row(row, host)),
                RowSource::Rewritten => SqlError::new(
                    "23514",
                    format!(
                        "check constraint \"{}\" of relation \"{}\" is violated by some row",
                        check.name, rel.name
                    ),
                ),
            };
            return Err(error);
        }
    }
    Ok(())
}

/// PostgreSQL's DETAIL for a row that broke a constraint.
pub(crate) fn failing_row(row: &[Datum], host: &ExecHost) -> String {
    let shown: Vec<String> = row
        .iter()
        .map(|v| sluice_types::io::output(v, host.context()).unwrap_or_else(|| "null".into()))
        .collect();
    format!("Failing row contains ({}).", shown.join(", "))
}
