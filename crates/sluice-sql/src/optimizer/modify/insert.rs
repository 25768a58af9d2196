//! Planning INSERT: the target columns and the source (VALUES or a query)
//! with the conversions to the columns' types, the defaults of the other
//! columns, ON CONFLICT, and RETURNING.

use super::*;
use crate::catalog::pg_type::TypeCatalog;
use crate::catalog::relation::{ColumnDesc, Identity};
use pg_query::protobuf::{InsertStmt, SelectStmt};

/// plan_insert -- INSERT: the target, its columns and defaults, and the
/// plan of the rows to insert.
///
/// `INSERT ... DEFAULT VALUES` is planned as `VALUES (DEFAULT, ...)` over
/// every column (a table without columns gets one empty row).
pub(super) fn plan_insert(
    parts: &mut dyn PlannerContext,
    stmt: &InsertStmt,
    param_types: &mut Vec<Option<SqlType>>,
) -> Result<ModifyPlan> {
    refuse(stmt.with_clause.is_some(), "WITH in INSERT is not supported yet")?;
    let overriding = Overriding::of(stmt);
    let rv = stmt.relation.as_ref().ok_or_else(|| SqlError::internal("INSERT without a table"))?;
    let rel = open_relation(parts, rv, LockMode::RowExclusive)?;
    let alias = rv.alias.as_ref().map_or_else(|| rel.name.clone(), |a| a.aliasname.clone());
    let targets = insert_columns(&rel, &stmt.cols)?;
    let types = parts.planner_parts().type_catalog();
    let defaults = column_defaults(&rel, param_types, &types)?;
    let default_values;
    let select = match stmt.select_stmt.as_deref().and_then(|n| n.node.as_ref()) {
        Some(NodeEnum::SelectStmt(select)) => select,
        Some(_) => return Err(SqlError::internal("INSERT source is not a query")),
        None => {
            default_values = default_values_row(targets.len())?;
            &default_values
        }
    };
    let (source, conversions) = if select.values_lists.is_empty() {
        let planned = plan_insert_source(parts, select, param_types)?;
        // Their positions, where the select list has one entry per value.
        let one_per_value = select.op == pg_query::protobuf::SetOperation::SetopNone as i32
            && select.target_list.len() == planned.columns.len();
        let values: &[Node] = if one_per_value { &select.target_list } else { &[] };
        check_arity(planned.columns.len(), values, &targets, &stmt.cols)?;
        let mut conversions = source_conversions(
            &rel,
            &targets,
            &planned.columns,
            select,
            &mut PlanHost::new(param_types).with_types(types.clone()),
        )?;
        for (conversion, &target) in conversions.iter_mut().zip(&targets) {
            if overriding.takes_default(&rel.columns[target])? {
                *conversion = defaults[target].clone();
            }
        }
        (planned.plan, conversions)
    } else {
        let target = InsertTarget {
            rel: &rel,
            targets: &targets,
            cols: &stmt.cols,
            overriding,
            types: &types,
        };
        plan_insert_values(parts, &target, select, param_types)?
    };
    let on_conflict = match stmt.on_conflict_clause.as_deref() {
        Some(clause) => Some(onconflict::plan(parts, &rel, &alias, clause, param_types, &types)?),
        None => None,
    };
    let scope = relation_scope(&rel, &alias);
    let returning = analyze_returning(
        stmt.returning_clause.as_ref().map_or(&[][..], |r| &r.exprs[..]),
        &scope,
        &mut PlanHost::new(param_types).with_types(types.clone()),
    )?;
    let action = Action::Insert { targets, defaults, source, conversions, on_conflict };
    ModifyPlan::new(rel, action, returning, &types)
}

/// check_arity -- 42601 unless the source gives a value for each target
/// column (fewer are fine without a column list); the error points at
/// the first extra value (`values` are the source's, where known) or the
/// first target column without one.
pub(super) fn check_arity(
    width: usize,
    values: &[Node],
    targets: &[usize],
    cols: &[Node],
) -> Result<()> {
    if width > targets.len() {
        return Err(SqlError::syntax("INSERT has more expressions than target columns")
            .at(values.get(targets.len()).and_then(crate::parser::raw_location)));
    }
    if width < targets.len() && !cols.is_empty() {
        return Err(SqlError::syntax("INSERT has more target columns than expressions")
            .at(cols.get(width).and_then(crate::parser::raw_location)));
    }
    Ok(())
}

/// What an INSERT's `OVERRIDING { SYSTEM | USER } VALUE` says about the
/// values given for identity columns (PostgreSQL's rewriteTargetListIU).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Overriding {
    /// Neither: a GENERATED ALWAYS column takes only DEFAULT.
    NotSet,
    /// SYSTEM VALUE: given values are stored, GENERATED ALWAYS or not.
    System,
    /// USER VALUE: given values are ignored; the sequence supplies them.
    User,
}

impl Overriding {
    fn of(stmt: &InsertStmt) -> Overriding {
        use pg_query::protobuf::OverridingKind;
        match OverridingKind::try_from(stmt.r#override) {
            Ok(OverridingKind::OverridingSystemValue) => Overriding::System,
            Ok(OverridingKind::OverridingUserValue) => Overriding::User,
            _ => Overriding::NotSet,
        }
    }

    /// Whether a value given for `column` is replaced by its default; 428C9
    /// if it may not be given at all.
    pub(super) fn takes_default(self, column: &ColumnDesc) -> Result<bool> {
        if column.generated.is_some() {
            return Err(SqlError::new(
                "428C9",
                format!("cannot insert a non-DEFAULT value into column \"{}\"", column.name),
            )
            .with_detail(generated_column(&column.name)));
        }
        match (column.identity, self) {
            (None, _) => Ok(false),
            (Some(_), Overriding::User) => Ok(true),
            (Some(Identity::Always), Overriding::NotSet) => Err(SqlError::new(
                "428C9",
                format!("cannot insert a non-DEFAULT value into column \"{}\"", column.name),
            )
            .with_detail(generated_always(&column.name))
            .with_hint("Use OVERRIDING SYSTEM VALUE to override.")),
            (Some(_), _) => Ok(false),
        }
    }
}

/// The DETAIL of a refused value for a generated column.
pub(crate) fn generated_column(column: &str) -> String {
    format!("Column \"{column}\" is a generated column.")
}

/// The DETAIL of a refused value for a GENERATED ALWAYS identity column.
pub(crate) fn generated_always(column: &str) -> String {
    format!("Column \"{column}\" is an identity column defined as GENERATED ALWAYS.")
}

/// The table side of an INSERT: its columns, those written to (and how
/// the statement listed them), and its OVERRIDING clause.
pub(super) struct InsertTarget<'a> {
    pub(super) rel: &'a RelationDesc,
    pub(super) targets: &'a [usize],
    pub(super) cols: &'a [Node],
    pub(super) overriding: Overriding,
    pub(super) types: &'a TypeCatalog,
}

/// INSERT ... VALUES: each value is analysed and coerced straight to its
/// target column's type (as PostgreSQL's transformInsertStmt does), so a bad
/// literal fails with that type's input error at the literal's position. The
/// conversions after the plan are then identities.
pub(super) fn plan_insert_values(
    parts: &mut dyn PlannerContext,
    target: &InsertTarget,
    select: &pg_query::protobuf::SelectStmt,
    params: &mut Vec<Option<SqlType>>,
) -> Result<(Plan, Vec<Expr>)> {
    let InsertTarget { rel, targets, cols, overriding, types } = *target;
    let empty = Scope::default();
    let mut planner = Planner::new(parts);
    let mut host = PlanHost::with_planner(params, &mut planner, &empty);
    let mut rows = Vec::new();
    let mut width = None;
    for list in &select.values_lists {
        let Some(NodeEnum::List(items)) = list.node.as_ref() else { continue };
        check_arity(items.items.len(), &items.items, targets, cols)?;
        if *width.get_or_insert(items.items.len()) != items.items.len() {
            return Err(SqlError::syntax("VALUES lists must all be the same length"));
        }
        let mut row = Vec::new();
        for (item, &target) in items.items.iter().zip(targets) {
            let column = &rel.columns[target];
            let default = matches!(item.node.as_ref(), Some(NodeEnum::SetToDefault(_)));
            let expr = match default || overriding.takes_default(column)? {
                true => column_defaults(rel, host.params, types)?.swap_remove(target),
                false => {
                    let expr = analyze(item, &empty, &mut host)?;
                    coerce_to_column(&mut host, expr, column.ty, column.typmod, &column.name)?
                }
            };
            row.push(expr);
        }
        rows.push(row);
    }
    let identities = (0..width.unwrap_or(0)).map(|i| {
        let column = &rel.columns[targets[i]];
        Expr::column(0, column.ty, column.typmod)
    });
    let values = Planned { plan: Plan::Values(rows), columns: Vec::new() };
    Ok((planner.finish(values).plan, identities.collect()))
}

/// Target column indices of an INSERT (all columns when none are listed).
pub(super) fn insert_columns(rel: &RelationDesc, cols: &[Node]) -> Result<Vec<usize>> {
    if cols.is_empty() {
        return Ok(rel.live_columns().collect());
    }
    let mut indices = Vec::new();
    for col in cols {
        let Some(NodeEnum::ResTarget(rt)) = col.node.as_ref() else { continue };
        let index = target_column(rel, rt)?;
        if indices.contains(&index) {
            return Err(SqlError::new(
                "42701",
                format!("column \"{}\" specified more than once", rt.name),
            )
            .at(position(rt.location)));
        }
        indices.push(index);
    }
    Ok(indices)
}

/// For each source column, the expression converting it (as column 0 of a
/// one-value row) to its target column's type, in assignment context, with
/// PostgreSQL's "column ... is of type ..." error when it cannot.
pub(super) fn source_conversions(
    rel: &RelationDesc,
    targets: &[usize],
    source: &[OutputColumn],
    select: &pg_query::protobuf::SelectStmt,
    host: &mut PlanHost,
) -> Result<Vec<Expr>> {
    source
        .iter()
        .zip(targets)
        .enumerate()
        .map(|(i, (src, &t))| {
            let column = &rel.columns[t];
            // Errors point at the select-list item, as PostgreSQL's do.
            let location = select.target_list.get(i).and_then(|n| match n.node.as_ref() {
                Some(NodeEnum::ResTarget(rt)) => position(rt.location),
                _ => None,
            });
            let value = Expr::Column { index: 0, ty: src.ty, typmod: src.typmod, location };
            coerce_to_column(host, value, column.ty, column.typmod, &column.name)
        })
        .collect()
}

/// The query `DEFAULT VALUES` stands for with `columns` target columns.
fn default_values_row(columns: usize) -> Result<Box<SelectStmt>> {
    let text = if columns == 0 {
        "SELECT".to_string()
    } else {
        format!("VALUES ({})", vec!["DEFAULT"; columns].join(", "))
    };
    match crate::parser::parse(&text)?.into_iter().next().map(|s| s.node) {
        Some(NodeEnum::SelectStmt(select)) => Ok(select),
        _ => Err(SqlError::internal("DEFAULT VALUES did not parse")),
    }
}
