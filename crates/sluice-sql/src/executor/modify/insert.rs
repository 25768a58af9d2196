//! INSERT: planning the target columns and the source (VALUES, a query or
//! DEFAULT VALUES) with the conversions to the columns' types, and
//! running it row by row with defaults, NOT NULL checks, index entries and
//! ON CONFLICT (`onconflict.rs`).

use super::*;

/// plan_insert -- INSERT: the target, its columns and defaults, and the
/// plan of the rows to insert.
pub(super) fn plan_insert(
    parts: &mut ExecParts,
    stmt: &InsertStmt,
    param_types: &mut Vec<Option<SqlType>>,
) -> Result<ModifyPlan> {
    refuse(stmt.with_clause.is_some(), "WITH in INSERT is not supported yet")?;
    // OVERRIDING {SYSTEM|USER} VALUE changes only identity columns, which
    // sluice refuses to create: it has no effect, as in PostgreSQL on a
    // table without them.
    let rv = stmt.relation.as_ref().ok_or_else(|| SqlError::internal("INSERT without a table"))?;
    let rel = open_relation(parts, rv, LockMode::RowExclusive)?;
    let alias = rv.alias.as_ref().map_or_else(|| rel.name.clone(), |a| a.aliasname.clone());
    let targets = insert_columns(&rel, &stmt.cols)?;
    let defaults = column_defaults(&rel, param_types)?;
    let source = stmt.select_stmt.as_deref().and_then(|n| n.node.as_ref());
    let Some(NodeEnum::SelectStmt(select)) = source else {
        return Err(SqlError::unsupported("INSERT ... DEFAULT VALUES is not supported yet"));
    };
    let (source, conversions) = if select.values_lists.is_empty() {
        let planned = plan_insert_source(parts, select, param_types)?;
        check_arity(planned.columns.len(), &targets, &stmt.cols)?;
        let conversions = source_conversions(
            &rel,
            &targets,
            &planned.columns,
            select,
            &mut PlanHost::new(param_types),
        )?;
        (planned.plan, conversions)
    } else {
        plan_insert_values(parts, &rel, &targets, &stmt.cols, select, param_types)?
    };
    let on_conflict = match stmt.on_conflict_clause.as_deref() {
        Some(clause) => {
            Some(crate::executor::onconflict::plan(parts, &rel, &alias, clause, param_types)?)
        }
        None => None,
    };
    let scope = relation_scope(&rel, &alias);
    let returning = analyze_returning(
        stmt.returning_clause.as_ref().map_or(&[][..], |r| &r.exprs[..]),
        &scope,
        &mut PlanHost::new(param_types),
    )?;
    let action = Action::Insert { targets, defaults, source, conversions, on_conflict };
    Ok(ModifyPlan { rel, action, returning })
}

/// The parts of a planned INSERT.
pub(super) struct InsertParts<'p> {
    pub(super) targets: &'p [usize],
    pub(super) defaults: &'p [Expr],
    pub(super) source: &'p Plan,
    pub(super) conversions: &'p [Expr],
    pub(super) on_conflict: Option<&'p OnConflict>,
}

/// INSERT: forms each source row into the table's layout and inserts it
/// and its index entries.
pub(super) fn execute_insert(
    parts: &mut ExecParts,
    plan: &ModifyPlan,
    insert: &InsertParts,
    params: Vec<Datum>,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let InsertParts { targets, defaults, source, conversions, on_conflict } = *insert;
    let (rel, returning) = (&plan.rel, &plan.returning);
    let (desc, types, heap) = (rel.tuple_desc(), rel.types(), rel.heap());
    let ExecParts { engine, txn, env, .. } = parts;
    let ctx = VisibilityContext::for_transaction(txn, engine.txns());
    let mut host = ExecHost::new(env, params, ctx.clone());
    let mut source = crate::executor::plan::open(source, engine, &ctx)?;
    let indexes = IndexSet::open(&host, rel)?;
    let on_conflict =
        on_conflict.map(|c| Speculation::new(engine, (rel, &heap), &indexes, &ctx, c));
    let mut count = 0u64;
    while let Some(values) = source.next(&mut host)? {
        let mut row: Vec<Datum> = Vec::with_capacity(rel.columns.len());
        for (i, default) in defaults.iter().enumerate() {
            let value = match targets
                .iter()
                .position(|&t| t == i)
                .and_then(|p| values.get(p).map(|v| (p, v)))
            {
                Some((p, v)) => eval(&conversions[p], std::slice::from_ref(v), &mut host)?,
                None => eval(default, &[], &mut host)?,
            };
            row.push(value);
        }
        check_not_null(rel, &row, &host)?;
        let stored = match &on_conflict {
            None => {
                let tid = heap_insert(engine, &heap, txn, &form_row(&desc, &types, &row))?;
                host.env().stats.count_insert(rel.oid, txn.savepoint_depth(), 1);
                indexes.insert(txn, &mut host, &row, tid)?;
                row
            }
            Some(speculation) => match speculation.insert(txn, &mut host, &row)? {
                Proposed::Inserted => row,
                Proposed::Updated(new) => new,
                Proposed::Skipped => continue,
            },
        };
        count += 1;
        emit_returning(returning, &stored, &mut host, sink)?;
    }
    sink.complete(&format!("INSERT 0 {count}"))
}

pub(super) fn check_arity(values: usize, targets: &[usize], cols: &[Node]) -> Result<()> {
    if values > targets.len() {
        return Err(SqlError::syntax("INSERT has more expressions than target columns"));
    }
    if values < targets.len() && !cols.is_empty() {
        return Err(SqlError::syntax("INSERT has more target columns than expressions"));
    }
    Ok(())
}

/// INSERT ... VALUES: each value is analysed and coerced straight to its
/// target column's type (as PostgreSQL's transformInsertStmt does), so a bad
/// literal fails with that type's input error at the literal's position. The
/// conversions after the plan are then identities.
pub(super) fn plan_insert_values(
    parts: &mut ExecParts,
    rel: &RelationDesc,
    targets: &[usize],
    cols: &[Node],
    select: &pg_query::protobuf::SelectStmt,
    params: &mut Vec<Option<SqlType>>,
) -> Result<(crate::executor::plan::Plan, Vec<Expr>)> {
    let empty = Scope { columns: Vec::new() };
    let mut planner = Planner::new(parts);
    let mut host = PlanHost::with_planner(params, &mut planner, &empty);
    let mut rows = Vec::new();
    let mut width = None;
    for list in &select.values_lists {
        let Some(NodeEnum::List(items)) = list.node.as_ref() else { continue };
        check_arity(items.items.len(), targets, cols)?;
        if *width.get_or_insert(items.items.len()) != items.items.len() {
            return Err(SqlError::syntax("VALUES lists must all be the same length"));
        }
        let mut row = Vec::new();
        for (item, &target) in items.items.iter().zip(targets) {
            let column = &rel.columns[target];
            let expr = match item.node.as_ref() {
                Some(NodeEnum::SetToDefault(_)) => {
                    column_defaults(rel, host.params)?.swap_remove(target)
                }
                _ => {
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
    let values = Planned { plan: crate::executor::plan::Plan::Values(rows), columns: Vec::new() };
    Ok((planner.finish(values).plan, identities.collect()))
}

/// Target column indices of an INSERT (all columns when none are listed).
pub(super) fn insert_columns(rel: &RelationDesc, cols: &[Node]) -> Result<Vec<usize>> {
    if cols.is_empty() {
        return Ok((0..rel.columns.len()).collect());
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
