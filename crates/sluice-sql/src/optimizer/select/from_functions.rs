//! Functions in FROM (PostgreSQL's FunctionScan, planned in
//! `parse_clause.c`'s transformRangeFunction): `generate_series`, the
//! backend-state functions that return rows, and pgstattuple's functions
//! when the extension is installed. Their arguments may read the columns of
//! the FROM items to their left, LATERAL or not, as in PostgreSQL.

use super::*;

/// A function in FROM (so far generate_series). Like PostgreSQL's, its
/// arguments may read the columns of the FROM items to its left (`lateral`)
/// with or without the LATERAL keyword.
pub(super) fn plan_function(
    pl: &mut Planner,
    rf: &protobuf::RangeFunction,
    params: &mut Vec<Option<SqlType>>,
    lateral: &Scope,
) -> Result<FromItem> {
    refuse(rf.is_rowsfrom, "ROWS FROM is not supported yet")?;
    refuse(!rf.coldeflist.is_empty(), "column definition lists are not supported yet")?;
    let call = rf
        .functions
        .first()
        .and_then(|f| match f.node.as_ref()? {
            NodeEnum::List(l) => l.items.first(),
            _ => None,
        })
        .and_then(|n| match n.node.as_ref()? {
            NodeEnum::FuncCall(fc) => Some(fc),
            _ => None,
        })
        .ok_or_else(|| SqlError::unsupported("this function in FROM is not supported yet"))?;
    let name = call.funcname.last().and_then(crate::parser::node_str).unwrap_or_default();
    if name == "pg_partition_ancestors" && call.args.len() == 1 {
        return plan_partition_ancestors(pl, rf, call, params, lateral);
    }
    if name == "unnest" {
        return plan_unnest(pl, rf, call, params, lateral);
    }
    if name == "pg_options_to_table" && call.args.len() == 1 {
        return plan_options_to_table(pl, rf, call, params, lateral);
    }
    refuse(rf.ordinality, "WITH ORDINALITY is not supported yet")?;
    if crate::catalog::system_views::is_backend_function(&name) {
        return plan_backend_function(pl, rf, call, &name, params);
    }
    if let Some(function) = crate::expr::StatField::function(&name) {
        return plan_stat_function(pl, rf, call, function, params);
    }
    if name != "generate_series" || !(2..=3).contains(&call.args.len()) {
        return Err(SqlError::unsupported(format!("function {name} in FROM is not supported yet")));
    }
    let (args, refs) = call_args(pl, call, params, lateral)?;
    let ty = match select_common_type(&args, "generate_series")? {
        SqlType::Int2 | SqlType::Int4 | SqlType::Unknown => SqlType::Int4,
        SqlType::Int8 => SqlType::Int8,
        SqlType::Numeric => SqlType::Numeric,
        other => {
            return Err(SqlError::new(
                "42883",
                format!(
                    "function generate_series({0}, {0}) does not exist",
                    sluice_types::format_type(other, -1)
                ),
            ))
        }
    };
    let mut args = args
        .into_iter()
        .map(|a| crate::expr::coerce(a, ty, -1, crate::expr::CoercionContext::Implicit))
        .collect::<Result<Vec<_>>>()?
        .into_iter();
    let (start, stop, step) =
        (args.next().expect("2 args"), args.next().expect("2 args"), args.next());
    let refname = rf.alias.as_ref().map_or(name.as_str(), |a| a.aliasname.as_str());
    pl.row_mark_for(refname, FromKind::Function);
    let (table, column) = match &rf.alias {
        Some(alias) => {
            let col = alias
                .colnames
                .first()
                .and_then(crate::parser::node_str)
                .unwrap_or_else(|| alias.aliasname.clone());
            (alias.aliasname.clone(), col)
        }
        None => ("generate_series".to_string(), "generate_series".to_string()),
    };
    let scope = Scope {
        columns: vec![ScopeColumn { table: Some(table), name: column, ty, typmod: -1 }],
        relations: Vec::new(),
    };
    Ok(FromItem { plan: Plan::GenerateSeries { start, stop, step, ty }, scope, lateral: refs })
}

/// The analysed arguments of a function in FROM, which may read the
/// columns of the FROM items to its left (`lateral`), and what they read
/// of them.
fn call_args(
    pl: &mut Planner,
    call: &protobuf::FuncCall,
    params: &mut Vec<Option<SqlType>>,
    lateral: &Scope,
) -> Result<(Vec<Expr>, LateralRefs)> {
    pl.lateral(lateral, |pl| {
        let empty = Scope::default();
        let mut host = PlanHost::with_planner(params, pl, &empty);
        call.args.iter().map(|a| analyze(a, &empty, &mut host)).collect::<Result<Vec<_>>>()
    })
}

/// `unnest(array) [WITH ORDINALITY]` in FROM: one column of the array's
/// element type named like the function (or the alias, or its first column
/// name), then `ordinality` (bigint). The argument may read columns to its
/// left. Several arrays (`unnest(a, b)`) are not done yet.
fn plan_unnest(
    pl: &mut Planner,
    rf: &protobuf::RangeFunction,
    call: &protobuf::FuncCall,
    params: &mut Vec<Option<SqlType>>,
    lateral: &Scope,
) -> Result<FromItem> {
    refuse(call.args.len() != 1, "unnest of several arrays in FROM is not supported yet")?;
    let (args, refs) = call_args(pl, call, params, lateral)?;
    let array = args.into_iter().next().expect("one argument");
    let Some(elem) = array.ty().base().element() else {
        let error = match array.ty() {
            SqlType::Unknown => SqlError::new("42725", "function unnest(unknown) is not unique")
                .with_hint("Could not choose a best candidate function. You might need to add explicit type casts."),
            other => SqlError::new(
                "42883",
                format!("function unnest({}) does not exist", sluice_types::format_type(other, -1)),
            )
            .with_hint("No function matches the given name and argument types. You might need to add explicit type casts."),
        };
        return Err(error.at(position(call.location)));
    };
    let refname = rf.alias.as_ref().map_or("unnest", |a| a.aliasname.as_str());
    pl.row_mark_for(refname, FromKind::Function);
    let given: Vec<String> = rf
        .alias
        .as_ref()
        .map(|a| a.colnames.iter().filter_map(crate::parser::node_str).collect())
        .unwrap_or_default();
    let first = given.first().cloned().unwrap_or_else(|| refname.to_string());
    let mut columns = vec![ScopeColumn {
        table: Some(refname.to_string()),
        name: first,
        ty: elem,
        typmod: array.typmod(),
    }];
    if rf.ordinality {
        columns.push(ScopeColumn {
            table: Some(refname.to_string()),
            name: given.get(1).cloned().unwrap_or_else(|| "ordinality".into()),
            ty: SqlType::Int8,
            typmod: -1,
        });
    }
    let scope = Scope { columns, relations: Vec::new() };
    let plan = Plan::Unnest { array, ordinality: rf.ordinality, options: false };
    Ok(FromItem { plan, scope, lateral: refs })
}

/// `pg_options_to_table(options text[])` in FROM: a row (`option_name`,
/// `option_value`) per `name=value` element of a reloptions-style array.
/// The argument may read columns to its left.
fn plan_options_to_table(
    pl: &mut Planner,
    rf: &protobuf::RangeFunction,
    call: &protobuf::FuncCall,
    params: &mut Vec<Option<SqlType>>,
    lateral: &Scope,
) -> Result<FromItem> {
    let (args, refs) = call_args(pl, call, params, lateral)?;
    let arg = args.into_iter().next().expect("one argument");
    let text_array = SqlType::TEXT_ARRAY;
    let array = crate::expr::coerce(arg, text_array, -1, crate::expr::CoercionContext::Implicit)?;
    let name = "pg_options_to_table";
    pl.row_mark_for(rf.alias.as_ref().map_or(name, |a| a.aliasname.as_str()), FromKind::Function);
    let mut columns: Vec<ScopeColumn> = ["option_name", "option_value"]
        .into_iter()
        .map(|c| ScopeColumn { table: None, name: c.into(), ty: SqlType::Text, typmod: -1 })
        .collect();
    columns.extend(rf.ordinality.then(ordinality_column));
    let scope = alias_scope(columns, rf.alias.as_ref(), name)?;
    let plan = Plan::Unnest { array, ordinality: rf.ordinality, options: true };
    Ok(FromItem { plan, scope, lateral: refs })
}

/// The `ordinality` column WITH ORDINALITY adds (`bigint`), named by the
/// alias's column list if it has one (see `alias_scope`).
fn ordinality_column() -> ScopeColumn {
    ScopeColumn { table: None, name: "ordinality".into(), ty: SqlType::Int8, typmod: -1 }
}

/// `pg_partition_ancestors(rel) [WITH ORDINALITY]` in FROM: without
/// partitions the relation's only ancestor is itself, so one row (`rel`,
/// depth 1); the argument may read columns to its left (psql's `\d` joins
/// it to `pg_trigger` that way).
fn plan_partition_ancestors(
    pl: &mut Planner,
    rf: &protobuf::RangeFunction,
    call: &protobuf::FuncCall,
    params: &mut Vec<Option<SqlType>>,
    lateral: &Scope,
) -> Result<FromItem> {
    let regclass = SqlType::Reg(sluice_types::RegKind::Class);
    let (args, refs) = call_args(pl, call, params, lateral)?;
    let arg = args.into_iter().next().expect("one argument");
    let arg = crate::expr::coerce(arg, regclass, -1, crate::expr::CoercionContext::Implicit)?;
    let name = "pg_partition_ancestors";
    let mut columns =
        vec![ScopeColumn { table: None, name: "relid".into(), ty: regclass, typmod: -1 }];
    let mut row = vec![arg];
    if rf.ordinality {
        columns.push(ordinality_column());
        let one = sluice_types::Datum::Int8(1);
        row.push(Expr::Const { value: one, ty: SqlType::Int8, typmod: -1, location: None });
    }
    pl.row_mark_for(rf.alias.as_ref().map_or(name, |a| a.aliasname.as_str()), FromKind::Function);
    let scope = alias_scope(columns, rf.alias.as_ref(), name)?;
    Ok(FromItem { plan: Plan::Values(vec![row]), scope, lateral: refs })
}

/// A backend statistics function in FROM (`backend_status.rs`): its rows
/// are computed now, from constant arguments.
fn plan_backend_function(
    pl: &mut Planner,
    rf: &protobuf::RangeFunction,
    call: &protobuf::FuncCall,
    name: &str,
    params: &mut Vec<Option<SqlType>>,
) -> Result<FromItem> {
    let args = constant_args(pl, call, params)?
        .into_iter()
        .map(|a| crate::expr::coerce(a, SqlType::Int4, -1, crate::expr::CoercionContext::Implicit))
        .collect::<Result<Vec<_>>>()?;
    let mut view = pl.parts().backend_function_rows(name, &args)?;
    // A function returning a scalar names its column after the alias.
    if let ([column], Some(alias)) = (view.columns.as_mut_slice(), rf.alias.as_ref()) {
        column.name = alias.aliasname.clone();
    }
    let scope = alias_scope(view.columns, rf.alias.as_ref(), name)?;
    Ok(FromItem { plan: Plan::Rows(view.rows), scope, lateral: LateralRefs::default() })
}

/// The arguments of a function in FROM that is computed at planning time,
/// analyzed with no columns in scope (they must not depend on a row).
fn constant_args(
    pl: &mut Planner,
    call: &protobuf::FuncCall,
    params: &mut Vec<Option<SqlType>>,
) -> Result<Vec<Expr>> {
    let empty = Scope::default();
    let mut host = PlanHost::with_planner(params, pl, &empty);
    call.args.iter().map(|a| analyze(a, &empty, &mut host)).collect()
}

/// `pgstattuple(rel)` or `pgstatindex(rel)` in FROM (the `pgstattuple`
/// extension, `functions/pgstattuple.rs`): one row, computed now from a
/// constant argument, like the backend functions above. Before CREATE
/// EXTENSION the function does not exist (42883, as PostgreSQL).
fn plan_stat_function(
    pl: &mut Planner,
    rf: &protobuf::RangeFunction,
    call: &protobuf::FuncCall,
    function: crate::expr::StatField,
    params: &mut Vec<Option<SqlType>>,
) -> Result<FromItem> {
    let args = constant_args(pl, call, params)?;
    let types: Vec<String> = args.iter().map(|a| sluice_types::format_type(a.ty(), -1)).collect();
    let regclass = matches!(
        args.iter().map(|a| a.ty()).collect::<Vec<_>>().as_slice(),
        [SqlType::Unknown
            | SqlType::Text
            | SqlType::Varchar
            | SqlType::Oid
            | SqlType::Int4
            | SqlType::Reg(sluice_types::RegKind::Class)]
    );
    let name = function.name();
    if !regclass || !extension_installed(pl.parts(), crate::catalog::extension::PGSTATTUPLE)? {
        return Err(SqlError::new(
            "42883",
            format!("function {name}({}) does not exist", types.join(", ")),
        )
        .with_hint(
            "No function matches the given name and argument types. You might need to add \
             explicit type casts.",
        )
        .at(position(call.location)));
    }
    let arg = args.into_iter().next().expect("one argument");
    let target = if matches!(arg.ty(), SqlType::Oid | SqlType::Int4 | SqlType::Reg(_)) {
        SqlType::Oid
    } else {
        SqlType::Text
    };
    let arg = crate::expr::coerce(arg, target, -1, crate::expr::CoercionContext::Implicit)?;
    let Expr::Const { value, .. } = &arg else {
        return Err(SqlError::unsupported(format!(
            "{name} in FROM is supported with a constant argument only"
        )));
    };
    let rows = pl.parts().stat_function_rows(function, value)?;
    let columns = function
        .result_columns()
        .iter()
        .map(|(column, ty)| ScopeColumn {
            table: Some(name.to_string()),
            name: column.to_string(),
            ty: *ty,
            typmod: -1,
        })
        .collect();
    let scope = alias_scope(columns, rf.alias.as_ref(), name)?;
    Ok(FromItem { plan: Plan::Rows(rows), scope, lateral: LateralRefs::default() })
}

/// Whether extension `name` is installed, under the planned statement's snapshot.
fn extension_installed(parts: &mut dyn PlannerContext, name: &str) -> Result<bool> {
    let parts = parts.planner_parts();
    let ctx = VisibilityContext::for_transaction(parts.txn, parts.engine.txns());
    crate::catalog::extension::installed(parts.engine, parts.database, &ctx, name)
}
