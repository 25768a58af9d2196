//! UNION, INTERSECT and EXCEPT (PostgreSQL's `transformSetOperationStmt` and
//! `transformSetOperationTree` in analyze.c).
//!
//! The grammar gives a binary tree whose leaves are whole SELECTs (INTERSECT
//! binds tighter than UNION and EXCEPT). Column types are resolved pairwise
//! from the leaves up, as PostgreSQL does: at each node, column `i` takes
//! `select_common_type` of its two inputs' column `i`, and each input is
//! converted to it. Leaves are planned without resolving untyped literals,
//! so `SELECT 1 UNION SELECT '2'` is an integer column; when a leaf's column
//! is such a literal, the literal itself is coerced (an invalid one fails at
//! its position, like PostgreSQL), other columns get a converting projection
//! above the leaf. Output names come from the leftmost leaf.
//!
//! ORDER BY over a set operation may only name output columns (by name or
//! position); LIMIT and OFFSET apply last.

use pg_query::protobuf::{SelectStmt, SetOperation};
use pg_query::NodeEnum;
use sluice_types::SqlType;

use super::{output_reference, plan_limit, plan_query, sort_key, Planned, Planner};
use crate::error::{Result, SqlError};
use crate::expr::{analyze, coerce, select_common_type, CoercionContext, Expr, Scope, ScopeColumn};
use crate::optimizer::planhost::PlanHost;
use crate::optimizer::plannodes::{Plan, SetOpKind};
use crate::sink::OutputColumn;

/// A planned input of a set operation.
pub(super) struct Branch {
    /// Its plan.
    pub(super) plan: Plan,
    /// Per column, the expression whose type and position stand for it: a
    /// leaf's target expression, or a placeholder column of the resolved type.
    pub(super) columns: Vec<Expr>,
    /// Output names (the leftmost leaf's).
    pub(super) names: Vec<String>,
}

/// plan_set_operation -- plans a SELECT whose `op` is a set operation.
pub(super) fn plan_set_operation(
    pl: &mut Planner,
    params: &mut Vec<Option<SqlType>>,
    stmt: &SelectStmt,
) -> Result<Planned> {
    let branch = plan_tree(pl, params, stmt)?;
    let columns: Vec<OutputColumn> = branch
        .names
        .iter()
        .zip(&branch.columns)
        .map(|(name, e)| OutputColumn::computed(name, e.ty(), e.typmod()))
        .collect();
    let mut plan = branch.plan;
    let keys = sort_keys(pl, params, stmt, &columns)?;
    if !keys.is_empty() {
        plan = Plan::Sort { input: Box::new(plan), keys };
    }
    let mut host = PlanHost::with_planner(params, pl, &Scope::default());
    let plan = plan_limit(stmt, plan, &mut host)?;
    Ok(Planned { plan, columns })
}

/// The ORDER BY of a set operation: output columns only.
fn sort_keys(
    pl: &mut Planner,
    params: &mut Vec<Option<SqlType>>,
    stmt: &SelectStmt,
    columns: &[OutputColumn],
) -> Result<Vec<crate::optimizer::plannodes::SortKey>> {
    let scope = Scope {
        columns: columns
            .iter()
            .map(|c| ScopeColumn { table: None, name: c.name.clone(), ty: c.ty, typmod: c.typmod })
            .collect(),
        relations: Vec::new(),
    };
    let mut keys = Vec::new();
    for node in &stmt.sort_clause {
        let Some(NodeEnum::SortBy(sort)) = node.node.as_ref() else { continue };
        let Some(inner) = sort.node.as_deref() else { continue };
        let column = match output_reference(inner, columns, "ORDER BY")? {
            Some(i) => i,
            None => {
                let mut host = PlanHost::with_planner(params, pl, &scope);
                match analyze(inner, &scope, &mut host)? {
                    Expr::Column { index, .. } => index,
                    other => return Err(invalid_order_by(other.location())),
                }
            }
        };
        keys.push(sort_key(sort, column));
    }
    Ok(keys)
}

/// 0A000 for an ORDER BY expression over a set operation.
fn invalid_order_by(location: Option<u32>) -> SqlError {
    SqlError::new("0A000", "invalid UNION/INTERSECT/EXCEPT ORDER BY clause")
        .with_detail("Only result column names can be used, not expressions or functions.")
        .with_hint(
            "Add the expression/function to every SELECT, or move the UNION into a FROM clause.",
        )
        .at(location)
}

/// The set operation at `stmt`'s root, if any: (kind, construct name).
fn operation(stmt: &SelectStmt) -> Option<(Option<SetOpKind>, &'static str)> {
    match SetOperation::try_from(stmt.op).ok()? {
        SetOperation::SetopUnion => Some((None, "UNION")),
        SetOperation::SetopIntersect => Some((Some(SetOpKind::Intersect), "INTERSECT")),
        SetOperation::SetopExcept => Some((Some(SetOpKind::Except), "EXCEPT")),
        _ => None,
    }
}

/// plan_tree -- plans a set-operation tree (or a leaf) with resolved types.
pub(super) fn plan_tree(
    pl: &mut Planner,
    params: &mut Vec<Option<SqlType>>,
    stmt: &SelectStmt,
) -> Result<Branch> {
    let Some((kind, construct)) = operation(stmt).filter(|_| stmt.larg.is_some()) else {
        super::rowmarks::set_operation_error(stmt, None)?;
        return Ok(leaf(plan_query(pl, params, stmt, false)?));
    };
    let (larg, rarg) = arms(stmt)?;
    let left = plan_tree(pl, params, larg)?;
    let right = plan_tree(pl, params, rarg)?;
    let (left, right, columns) = unify(left, right, construct)?;
    let width = columns.len();
    let inputs = vec![left.plan, right.plan];
    let plan = match kind {
        None if stmt.all => Plan::Append { inputs },
        None => Plan::Distinct { input: Box::new(Plan::Append { inputs }), width },
        Some(kind) => {
            let mut inputs = inputs.into_iter();
            let (l, r) = (inputs.next().expect("two"), inputs.next().expect("two"));
            Plan::SetOp { left: Box::new(l), right: Box::new(r), kind, all: stmt.all }
        }
    };
    Ok(Branch { plan, columns, names: left.names })
}

/// The two inputs of a set-operation node.
pub(super) fn arms(stmt: &SelectStmt) -> Result<(&SelectStmt, &SelectStmt)> {
    match (stmt.larg.as_deref(), stmt.rarg.as_deref()) {
        (Some(l), Some(r)) => Ok((l, r)),
        _ => Err(SqlError::internal("set operation without two arms")),
    }
}

/// A planned leaf SELECT as a branch.
pub(super) fn leaf(planned: Planned) -> Branch {
    let targets = target_exprs(&planned.plan);
    let columns = planned
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| match targets.and_then(|t| t.get(i)) {
            Some(e) => e.clone(),
            None => Expr::column(i, c.ty, c.typmod),
        })
        .collect();
    Branch {
        plan: planned.plan,
        columns,
        names: planned.columns.into_iter().map(|c| c.name).collect(),
    }
}

/// unify -- resolves each column's type across two branches and converts
/// both to it; returns them with the resolved placeholder columns.
pub(super) fn unify(
    mut left: Branch,
    mut right: Branch,
    construct: &str,
) -> Result<(Branch, Branch, Vec<Expr>)> {
    if left.columns.len() != right.columns.len() {
        let location = right.columns.first().and_then(Expr::location);
        return Err(SqlError::syntax(format!(
            "each {construct} query must have the same number of columns"
        ))
        .at(location));
    }
    let mut columns = Vec::with_capacity(left.columns.len());
    for (i, (l, r)) in left.columns.iter().zip(&right.columns).enumerate() {
        let ty = select_common_type(&[l.clone(), r.clone()], construct)?;
        let typmod = if l.typmod() == r.typmod() { l.typmod() } else { -1 };
        let best = if l.ty() == ty || r.ty() != ty { l } else { r };
        columns.push(Expr::Column { index: i, ty, typmod, location: best.location() });
    }
    let types: Vec<SqlType> = columns.iter().map(Expr::ty).collect();
    convert(&mut left, &types)?;
    convert(&mut right, &types)?;
    Ok((left, right, columns))
}

/// convert -- makes `branch` produce `types`: untyped literals of a leaf are
/// coerced in place, other differing columns through a projection above.
pub(super) fn convert(branch: &mut Branch, types: &[SqlType]) -> Result<()> {
    if let Some(targets) = target_exprs_mut(&mut branch.plan) {
        for (i, ty) in types.iter().enumerate() {
            if targets.get(i).is_some_and(|e| e.ty() == SqlType::Unknown) {
                let e = std::mem::replace(
                    &mut targets[i],
                    Expr::constant(sluice_types::Datum::Null, *ty, -1),
                );
                targets[i] = coerce(e, *ty, -1, CoercionContext::Implicit)?;
                branch.columns[i] = targets[i].clone();
            }
        }
    }
    if branch.columns.iter().zip(types).all(|(c, ty)| c.ty() == *ty) {
        return Ok(());
    }
    let exprs = branch
        .columns
        .iter()
        .zip(types)
        .enumerate()
        .map(|(i, (c, ty))| {
            let column = Expr::Column { index: i, ty: c.ty(), typmod: c.typmod(), location: None };
            if c.ty() == *ty {
                Ok(column)
            } else {
                coerce(column, *ty, -1, CoercionContext::Implicit)
            }
        })
        .collect::<Result<Vec<_>>>()?;
    let input = std::mem::replace(&mut branch.plan, Plan::Result);
    branch.plan = Plan::Project { input: Box::new(input), exprs, agg_offset: None };
    Ok(())
}

/// The select-list expressions of a planned leaf (its projection), if found.
fn target_exprs(plan: &Plan) -> Option<&Vec<Expr>> {
    match plan {
        Plan::Project { exprs, .. } => Some(exprs),
        Plan::Truncate { input, .. }
        | Plan::Limit { input, .. }
        | Plan::LockRows { input, .. }
        | Plan::Sort { input, .. }
        | Plan::Distinct { input, .. } => target_exprs(input),
        _ => None,
    }
}

/// [`target_exprs`], mutable.
fn target_exprs_mut(plan: &mut Plan) -> Option<&mut Vec<Expr>> {
    match plan {
        Plan::Project { exprs, .. } => Some(exprs),
        Plan::Truncate { input, .. }
        | Plan::Limit { input, .. }
        | Plan::LockRows { input, .. }
        | Plan::Sort { input, .. }
        | Plan::Distinct { input, .. } => target_exprs_mut(input),
        _ => None,
    }
}
