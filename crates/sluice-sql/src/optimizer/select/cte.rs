//! WITH queries (PostgreSQL's `parse_cte.c` and the planner's CTE handling).
//!
//! A WITH list opens a [`CteFrame`]; names in FROM are looked up in the
//! frames from the innermost out before the catalogs, so a CTE hides a table
//! of the same name. Every CTE is planned once, in list order, even if
//! nothing reads it (its errors are reported, as PostgreSQL's are); each
//! reference becomes a `Plan::CteScan` of the one shared, lazily computed
//! result (`plan/subplan.rs`), so a CTE read twice runs once and one never
//! read never runs.
//!
//! Visibility follows PostgreSQL: in a plain WITH a query sees only the CTEs
//! before it; under WITH RECURSIVE it sees all of them, including itself.
//! A later one referenced is planned on the spot; a cycle between two
//! is refused (0A000), as PostgreSQL does.
//!
//! # WITH RECURSIVE
//! A CTE that names itself must be `non-recursive term UNION [ALL]
//! recursive term`: the non-recursive term is planned first and fixes the
//! column types (untyped literals become `text`); the recursive term then
//! reads itself as a `Plan::WorkTableScan`, exactly once and not from a
//! subquery. If resolving the union's column types would change a type the
//! non-recursive term fixed, that is PostgreSQL's 42804 with its hint to
//! cast the non-recursive term. The plan is a `Plan::RecursiveUnion`.

use pg_query::protobuf::{CommonTableExpr, SelectStmt, SetOperation, WithClause};
use pg_query::{NodeEnum, NodeRef};
use sluice_types::SqlType;

use super::setop::{arms, convert, plan_tree, unify};
use super::{plan_query, position, Planned, Planner};
use crate::error::{Result, SqlError};
use crate::expr::{Expr, ScopeColumn};
use crate::optimizer::plannodes::Plan;
use crate::sink::OutputColumn;

/// One WITH list in scope.
pub(crate) struct CteFrame {
    /// WITH RECURSIVE.
    recursive: bool,
    /// The sublink depth at the WITH (what its queries may correlate with).
    depth: usize,
    /// The list's queries, in order.
    items: Vec<CteItem>,
}

/// One query of a WITH list.
struct CteItem {
    /// Its definition.
    def: CommonTableExpr,
    /// How far planning it has come.
    status: Status,
}

/// The planning state of a CTE.
enum Status {
    /// Not planned yet.
    Pending,
    /// Being planned (references now are cycles or self-references).
    Planning(Phase),
    /// Planned: registry id and columns.
    Done { id: usize, columns: Vec<ScopeColumn> },
}

/// Where in its own planning a CTE is.
enum Phase {
    /// A CTE that does not name itself (a reference to it now is a cycle).
    Plain,
    /// The non-recursive term of a recursive CTE.
    NonRecursive,
    /// The recursive term, which reads the working table.
    Recursive(WorkTable),
}

/// The working table a recursive term reads.
struct WorkTable {
    /// Registry id.
    table: usize,
    /// Its columns (the non-recursive term's types, the CTE's names).
    columns: Vec<ScopeColumn>,
    /// References seen so far (only one is allowed).
    references: usize,
    /// The sublink depth of the recursive term itself.
    depth: usize,
}

/// What a name in FROM found among the CTEs.
pub(super) enum Lookup {
    /// A CTE (or the working table of the recursive CTE being planned).
    Found(Box<Plan>, Vec<ScopeColumn>),
    /// Only a CTE this query may not reference (a later one in a plain WITH).
    Hidden,
    /// No CTE of that name.
    Missing,
}

/// with_ctes -- plans the WITH list, then `body` with the list in scope.
pub(super) fn with_ctes(
    pl: &mut Planner,
    params: &mut Vec<Option<SqlType>>,
    with: &WithClause,
    body: impl FnOnce(&mut Planner, &mut Vec<Option<SqlType>>) -> Result<Planned>,
) -> Result<Planned> {
    let mut items: Vec<CteItem> = Vec::new();
    for node in &with.ctes {
        let Some(NodeEnum::CommonTableExpr(def)) = node.node.as_ref() else { continue };
        if items.iter().any(|i| i.def.ctename == def.ctename) {
            return Err(SqlError::new(
                "42712",
                format!("WITH query name \"{}\" specified more than once", def.ctename),
            )
            .at(position(def.location)));
        }
        items.push(CteItem { def: (**def).clone(), status: Status::Pending });
    }
    let count = items.len();
    pl.ctes.push(CteFrame { recursive: with.recursive, depth: pl.depth(), items });
    let frame = pl.ctes.len() - 1;
    let result = (0..count)
        .try_for_each(|i| plan_item(pl, params, frame, i))
        .and_then(|()| body(pl, params));
    pl.ctes.truncate(frame);
    result
}

/// lookup -- the CTE `name` (referenced at `location`) in scope, if any.
pub(super) fn lookup(
    pl: &mut Planner,
    params: &mut Vec<Option<SqlType>>,
    name: &str,
    location: Option<u32>,
) -> Result<Lookup> {
    let mut hidden = false;
    for f in (0..pl.ctes.len()).rev() {
        let frame = &pl.ctes[f];
        let Some(i) = frame.items.iter().position(|c| c.def.ctename == name) else { continue };
        match &frame.items[i].status {
            Status::Done { .. } => {}
            _ if !frame.recursive => {
                hidden = true;
                continue;
            }
            Status::Pending => plan_item(pl, params, f, i)?,
            Status::Planning(Phase::Recursive(_)) => return self_reference(pl, f, i, location),
            Status::Planning(Phase::NonRecursive) => {
                return Err(recursion_error(name, "must not appear within its non-recursive term")
                    .at(location))
            }
            Status::Planning(Phase::Plain) => {
                return Err(SqlError::unsupported(
                    "mutual recursion between WITH items is not implemented",
                )
                .at(position(frame.items[i].def.location)))
            }
        }
        let Status::Done { id, columns } = &pl.ctes[f].items[i].status else {
            return Err(SqlError::internal("CTE not planned"));
        };
        return Ok(Lookup::Found(Box::new(Plan::CteScan { cte: *id }), columns.clone()));
    }
    Ok(if hidden { Lookup::Hidden } else { Lookup::Missing })
}

/// hidden_error -- "relation does not exist" for a name that is a CTE this
/// query may not reference, with PostgreSQL's detail and hint.
pub(super) fn hidden_error(e: SqlError, name: &str) -> SqlError {
    e.with_detail(format!(
        "There is a WITH item named \"{name}\", but it cannot be referenced from this part of the query."
    ))
    .with_hint("Use WITH RECURSIVE, or re-order the WITH items to remove forward references.")
}

/// The recursive term's reference to its own CTE: the working table.
fn self_reference(pl: &mut Planner, f: usize, i: usize, location: Option<u32>) -> Result<Lookup> {
    let depth = pl.depth();
    let item = &mut pl.ctes[f].items[i];
    let Status::Planning(Phase::Recursive(work)) = &mut item.status else {
        return Err(SqlError::internal("not in a recursive term"));
    };
    let name = &item.def.ctename;
    if depth > work.depth {
        return Err(recursion_error(name, "must not appear within a subquery").at(location));
    }
    work.references += 1;
    if work.references > 1 {
        return Err(recursion_error(name, "must not appear more than once").at(location));
    }
    Ok(Lookup::Found(Box::new(Plan::WorkTableScan { table: work.table }), work.columns.clone()))
}

/// 42P19 `recursive reference to query "name" <what>`.
fn recursion_error(name: &str, what: &str) -> SqlError {
    SqlError::new("42P19", format!("recursive reference to query \"{name}\" {what}"))
}

/// plan_item -- plans item `i` of frame `f` and registers its plan.
fn plan_item(
    pl: &mut Planner,
    params: &mut Vec<Option<SqlType>>,
    f: usize,
    i: usize,
) -> Result<()> {
    let frame = &pl.ctes[f];
    let (def, recursive, depth) = (frame.items[i].def.clone(), frame.recursive, frame.depth);
    if !matches!(frame.items[i].status, Status::Pending) {
        return Ok(());
    }
    let Some(NodeEnum::SelectStmt(select)) = def.ctequery.as_deref().and_then(|n| n.node.as_ref())
    else {
        return Err(SqlError::unsupported(
            "data-modifying statements in WITH are not supported yet",
        )
        .at(position(def.location)));
    };
    if def.search_clause.is_some() || def.cycle_clause.is_some() {
        return Err(SqlError::unsupported("SEARCH and CYCLE clauses are not supported yet")
            .at(position(def.location)));
    }
    pl.with_depth(depth, |pl| {
        let (plan, columns) = if recursive && names_itself(&def) {
            plan_recursive(pl, params, f, i, &def, select)?
        } else {
            pl.ctes[f].items[i].status = Status::Planning(Phase::Plain);
            let planned = plan_query(pl, params, select, true)?;
            let columns = cte_columns(&def, &planned.columns)?;
            (planned.plan, columns)
        };
        let id = pl.add_cte(plan);
        pl.ctes[f].items[i].status = Status::Done { id, columns };
        Ok(())
    })
}

/// Whether the CTE's query mentions a table of its own name.
fn names_itself(def: &CommonTableExpr) -> bool {
    let Some(query) = def.ctequery.as_deref().and_then(|n| n.node.as_ref()) else { return false };
    query.nodes().into_iter().any(|(node, ..)| {
        matches!(node, NodeRef::RangeVar(rv) if rv.schemaname.is_empty() && rv.relname == def.ctename)
    })
}

/// The CTE's columns: the query's, renamed by the CTE's column list.
fn cte_columns(def: &CommonTableExpr, columns: &[OutputColumn]) -> Result<Vec<ScopeColumn>> {
    let names: Vec<String> = def.aliascolnames.iter().filter_map(crate::parser::node_str).collect();
    if names.len() > columns.len() {
        return Err(SqlError::new(
            "42P10",
            format!(
                "WITH query \"{}\" has {} columns available but {} columns specified",
                def.ctename,
                columns.len(),
                names.len()
            ),
        )
        .at(position(def.location)));
    }
    Ok(columns
        .iter()
        .enumerate()
        .map(|(i, c)| ScopeColumn {
            table: None,
            name: names.get(i).cloned().unwrap_or_else(|| c.name.clone()),
            ty: c.ty,
            typmod: c.typmod,
        })
        .collect())
}

/// plan_recursive -- plans `non-recursive UNION [ALL] recursive` with the
/// recursive term reading a working table (see the module doc).
fn plan_recursive(
    pl: &mut Planner,
    params: &mut Vec<Option<SqlType>>,
    f: usize,
    i: usize,
    def: &CommonTableExpr,
    select: &SelectStmt,
) -> Result<(Plan, Vec<ScopeColumn>)> {
    check_recursive_shape(def, select)?;
    let (non_recursive, recursive) = arms(select)?;
    pl.ctes[f].items[i].status = Status::Planning(Phase::NonRecursive);
    let mut left = plan_tree(pl, params, non_recursive)?;
    let types: Vec<SqlType> = left
        .columns
        .iter()
        .map(|c| if c.ty() == SqlType::Unknown { SqlType::Text } else { c.ty() })
        .collect();
    convert(&mut left, &types)?;
    let output: Vec<OutputColumn> = left
        .names
        .iter()
        .zip(&left.columns)
        .map(|(n, c)| OutputColumn::computed(n, c.ty(), c.typmod()))
        .collect();
    let columns = cte_columns(def, &output)?;
    let work = WorkTable {
        table: pl.add_work_table(),
        columns: columns.clone(),
        references: 0,
        depth: pl.depth(),
    };
    let table = work.table;
    pl.ctes[f].items[i].status = Status::Planning(Phase::Recursive(work));
    let right = plan_tree(pl, params, recursive)?;
    let fixed = left.columns.clone();
    let (left, right, overall) = unify(left, right, "UNION")?;
    for (n, (fixed, overall)) in fixed.iter().zip(&overall).enumerate() {
        check_recursive_type(def, n, fixed, overall)?;
    }
    let plan = Plan::RecursiveUnion {
        non_recursive: Box::new(left.plan),
        recursive: Box::new(right.plan),
        table,
        all: select.all,
    };
    Ok((plan, columns))
}

/// The recursive CTE's query must be a UNION without ORDER BY, OFFSET, LIMIT
/// or a locking clause.
fn check_recursive_shape(def: &CommonTableExpr, select: &SelectStmt) -> Result<()> {
    if select.op != SetOperation::SetopUnion as i32 {
        return Err(SqlError::new(
            "42P19",
            format!(
                "recursive query \"{}\" does not have the form non-recursive-term UNION [ALL] recursive-term",
                def.ctename
            ),
        )
        .at(position(def.location)));
    }
    let not_implemented = |what: &str, node: Option<&pg_query::protobuf::Node>| {
        let location = node.and_then(crate::parser::raw_location);
        SqlError::unsupported(format!("{what} in a recursive query is not implemented"))
            .at(location)
    };
    if let Some(first) = select.sort_clause.first() {
        return Err(not_implemented("ORDER BY", Some(first)));
    }
    if let Some(offset) = select.limit_offset.as_deref() {
        return Err(not_implemented("OFFSET", Some(offset)));
    }
    if let Some(limit) = select.limit_count.as_deref() {
        return Err(not_implemented("LIMIT", Some(limit)));
    }
    // PostgreSQL refuses it (checkWellFormedRecursion); run anyway, such a
    // query never ended and grew the server until the kernel killed it.
    if let Some(lock) = select.locking_clause.first() {
        return Err(not_implemented("FOR UPDATE/SHARE", Some(lock)));
    }
    Ok(())
}

/// 42804 when the union's type of column `n` differs from the type the
/// non-recursive term fixed.
fn check_recursive_type(
    def: &CommonTableExpr,
    n: usize,
    fixed: &Expr,
    overall: &Expr,
) -> Result<()> {
    if fixed.ty() == overall.ty() && fixed.typmod() == overall.typmod() {
        return Ok(());
    }
    Err(SqlError::new(
        "42804",
        format!(
            "recursive query \"{}\" column {} has type {} in non-recursive term but type {} overall",
            def.ctename,
            n + 1,
            sluice_types::format_type(fixed.ty(), fixed.typmod()),
            sluice_types::format_type(overall.ty(), overall.typmod()),
        ),
    )
    .with_hint("Cast the output of the non-recursive term to the correct type.")
    .at(fixed.location()))
}
