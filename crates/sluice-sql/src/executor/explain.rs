//! EXPLAIN (PostgreSQL's `commands/explain.c`): a SELECT's plan as
//! PostgreSQL prints it, one line per node, children indented under `->`.
//!
//! sluice's plan tree is finer-grained than PostgreSQL's in places: WHERE
//! and HAVING are separate Filter nodes, and the target list is a Project
//! node. PostgreSQL folds both into the node below (a `Filter:` line, and
//! the node's output), so the printer does the same. Conditions are printed
//! from the analysed expression with PostgreSQL's parenthesisation and
//! constant syntax (`(aid = 5)`, `((a > 1) AND (b < 2))`, `'x'::text`).
//!
//! Only `COSTS OFF` is implemented: the cost model prices table scans so far
//! (`optimizer/`), not every node, and printing made-up numbers for the rest
//! would mislead. EXPLAIN ANALYZE is not implemented either.

use super::host::AggCall;
use super::indexscan::{conjuncts, index_quals, IndexPath};
use super::plan::{JoinKind, Plan, SortKey};
use super::select;
use crate::catalog::relation::RelationDesc;
use crate::error::{Result, SqlError};
use crate::expr::{BoolOp, Builtin, Expr};
use crate::session::Session;
use crate::sink::{OutputColumn, QuerySink};
use pg_query::protobuf::ExplainStmt;
use pg_query::NodeEnum;
use sluice_types::types::format_type;
use sluice_types::{Datum, SqlType};

/// EXPLAIN [ ( option [, ...] ) ] statement.
pub fn explain(session: &mut Session, stmt: &ExplainStmt, sink: &mut dyn QuerySink) -> Result<()> {
    let costs = explain_options(stmt)?;
    if costs {
        return Err(SqlError::unsupported("EXPLAIN is only supported with COSTS OFF yet"));
    }
    let Some(NodeEnum::SelectStmt(query)) = stmt.query.as_deref().and_then(|n| n.node.as_ref())
    else {
        return Err(SqlError::unsupported("EXPLAIN of statements other than SELECT"));
    };
    let mut parts = session.parts()?;
    let mut param_types = Vec::new();
    let planned = select::plan_select(&mut parts, query, &mut param_types)?;
    let mut lines = Vec::new();
    Printer { lines: &mut lines }.node(&planned.plan, 0, &[]);
    sink.columns(&[OutputColumn::computed("QUERY PLAN", SqlType::Text, -1)])?;
    for line in &lines {
        sink.row(&[Datum::Text(line.as_str().into())])?;
    }
    sink.complete("EXPLAIN")
}

/// Whether costs are to be shown; refuses options sluice lacks.
fn explain_options(stmt: &ExplainStmt) -> Result<bool> {
    let mut costs = true;
    for option in &stmt.options {
        let Some(NodeEnum::DefElem(def)) = option.node.as_ref() else { continue };
        let value = def.arg.as_deref().and_then(crate::commands::node_str);
        let on = !matches!(value.as_deref(), Some("false" | "off" | "0"));
        match def.defname.as_str() {
            "costs" => costs = on,
            "analyze" if on => return Err(SqlError::unsupported("EXPLAIN ANALYZE")),
            "analyze" | "verbose" | "summary" | "timing" | "buffers" => {}
            "format" if value.as_deref() == Some("text") => {}
            other => {
                return Err(SqlError::new(
                    "42601",
                    format!("unrecognized EXPLAIN option \"{other}\""),
                )
                .at(crate::commands::tablecmds::position(def.location)))
            }
        }
    }
    Ok(costs)
}

/// Writes the plan's lines.
struct Printer<'a> {
    lines: &'a mut Vec<String>,
}

impl Printer<'_> {
    /// The header line of a node at `depth`.
    fn header(&mut self, depth: usize, text: String) {
        let line =
            if depth == 0 { text } else { format!("{}->  {text}", " ".repeat(6 * depth - 4)) };
        self.lines.push(line);
    }

    /// A detail line (`Filter: ...`) of the node at `depth`.
    fn detail(&mut self, depth: usize, text: String) {
        let indent = if depth == 0 { 2 } else { 6 * depth + 2 };
        self.lines.push(format!("{}{text}", " ".repeat(indent)));
    }

    /// node -- prints `plan` at `depth`, with `filters` (conditions of the
    /// Filter nodes folded into it) as its `Filter:` line.
    fn node(&mut self, plan: &Plan, depth: usize, filters: &[&Expr]) {
        let names = output_names(plan);
        match plan {
            Plan::Filter { input, qual, .. } => {
                let mut all = vec![qual];
                all.extend_from_slice(filters);
                self.node(input, depth, &all)
            }
            Plan::Project { input, .. }
            | Plan::Truncate { input, .. }
            | Plan::Statement { input, .. } => self.node(input, depth, filters),
            Plan::SeqScan { rel, .. } => {
                self.header(depth, format!("Seq Scan on {}", rel.name));
                self.filter(depth, filters, &names);
            }
            Plan::IndexScan { rel, path } => {
                let direction = if path.backward { " Backward" } else { "" };
                let index = &path.index.name;
                self.header(depth, format!("Index Scan{direction} using {index} on {}", rel.name));
                if !path.quals.is_empty() {
                    self.detail(depth, format!("Index Cond: {}", index_cond(rel, path)));
                }
                // Conditions the index applies are not repeated as a filter.
                let rest: Vec<&Expr> = filters
                    .iter()
                    .flat_map(|f| conjuncts(f))
                    .filter(|c| index_quals(rel, &path.index, Some(c)).is_none_or(|q| q.is_empty()))
                    .collect();
                self.filter(depth, &rest, &names);
            }
            Plan::Aggregate { input, keys, .. } => {
                let input_names = output_names(input);
                if keys.is_empty() {
                    self.header(depth, "Aggregate".into());
                } else {
                    self.header(depth, "GroupAggregate".into());
                    let keys: Vec<String> = keys.iter().map(|k| expr(k, &input_names)).collect();
                    self.detail(depth, format!("Group Key: {}", keys.join(", ")));
                }
                self.filter(depth, filters, &names);
                self.node(input, depth + 1, &[]);
            }
            Plan::Sort { input, keys } => {
                let input_names = output_names(input);
                self.header(depth, "Sort".into());
                let keys: Vec<String> = keys.iter().map(|k| sort_key(k, &input_names)).collect();
                self.detail(depth, format!("Sort Key: {}", keys.join(", ")));
                self.node(input, depth + 1, filters);
            }
            Plan::Limit { input, .. } => {
                self.header(depth, "Limit".into());
                self.node(input, depth + 1, filters);
            }
            Plan::Distinct { input, .. } => {
                self.header(depth, "Unique".into());
                self.node(input, depth + 1, filters);
            }
            Plan::NestLoop { outer, inner, kind, qual, .. } => {
                let title = match kind {
                    JoinKind::Inner => "Nested Loop",
                    JoinKind::Left => "Nested Loop Left Join",
                };
                self.header(depth, title.into());
                if let Some(q) = qual {
                    self.detail(depth, format!("Join Filter: {}", top_expr(q, &names)));
                }
                self.filter(depth, filters, &names);
                self.node(outer, depth + 1, &[]);
                self.node(inner, depth + 1, &[]);
            }
            other => {
                self.header(depth, leaf_title(other));
                self.filter(depth, filters, &names);
                for child in children(other) {
                    self.node(child, depth + 1, &[]);
                }
            }
        }
    }

    /// The `Filter:` line for the folded conditions, if any.
    fn filter(&mut self, depth: usize, filters: &[&Expr], names: &[String]) {
        match filters {
            [] => {}
            [one] => self.detail(depth, format!("Filter: {}", top_expr(one, names))),
            many => {
                let parts: Vec<String> = many.iter().map(|e| expr(e, names)).collect();
                self.detail(depth, format!("Filter: ({})", parts.join(" AND ")));
            }
        }
    }
}

/// The title of a node without special printing.
fn leaf_title(plan: &Plan) -> String {
    match plan {
        Plan::Result | Plan::Rows(_) => "Result".into(),
        Plan::GenerateSeries { .. } => "Function Scan on generate_series".into(),
        Plan::Values(_) => "Values Scan on \"*VALUES*\"".into(),
        Plan::Append { .. } => "Append".into(),
        Plan::SetOp { kind, all, .. } => {
            format!("SetOp {kind:?}{}", if *all { " All" } else { "" })
        }
        Plan::CteScan { cte } => format!("CTE Scan on cte{cte}"),
        Plan::WorkTableScan { table } => format!("WorkTable Scan on wt{table}"),
        Plan::RecursiveUnion { .. } => "Recursive Union".into(),
        _ => "Result".into(),
    }
}

/// The inputs of a node printed by `leaf_title`.
fn children(plan: &Plan) -> Vec<&Plan> {
    match plan {
        Plan::Append { inputs } => inputs.iter().collect(),
        Plan::SetOp { left, right, .. } => vec![left, right],
        Plan::RecursiveUnion { non_recursive, recursive, .. } => vec![non_recursive, recursive],
        _ => Vec::new(),
    }
}

/// The names of a node's output columns, for printing expressions above it.
fn output_names(plan: &Plan) -> Vec<String> {
    match plan {
        Plan::SeqScan { rel, .. } | Plan::IndexScan { rel, .. } => column_names(rel),
        Plan::Filter { input, .. }
        | Plan::Sort { input, .. }
        | Plan::Limit { input, .. }
        | Plan::Distinct { input, .. }
        | Plan::Statement { input, .. } => output_names(input),
        Plan::Truncate { input, width } => output_names(input).into_iter().take(*width).collect(),
        Plan::Project { input, exprs, .. } => {
            let names = output_names(input);
            exprs.iter().map(|e| expr(e, &names)).collect()
        }
        Plan::Aggregate { input, aggs, .. } => {
            let mut names = output_names(input);
            names.extend(aggs.iter().map(|a| agg_name(a, &output_names(input))));
            names
        }
        Plan::NestLoop { outer, inner, .. } => {
            let mut names = output_names(outer);
            names.extend(output_names(inner));
            names
        }
        Plan::GenerateSeries { .. } => vec!["generate_series".into()],
        _ => Vec::new(),
    }
}

fn column_names(rel: &RelationDesc) -> Vec<String> {
    rel.columns.iter().map(|c| c.name.clone()).collect()
}

fn agg_name(agg: &AggCall, names: &[String]) -> String {
    let name = format!("{:?}", agg.kind).to_lowercase();
    match &agg.arg {
        None => format!("{name}(*)"),
        Some(arg) => format!("{name}({})", expr(arg, names)),
    }
}

fn sort_key(key: &SortKey, names: &[String]) -> String {
    let name = names.get(key.column).cloned().unwrap_or_else(|| "?".into());
    match (key.descending, key.nulls_first) {
        (false, false) | (true, true) => {
            if key.descending {
                format!("{name} DESC")
            } else {
                name
            }
        }
        (false, true) => format!("{name} NULLS FIRST"),
        (true, false) => format!("{name} DESC NULLS LAST"),
    }
}

/// The `Index Cond:` of an index scan.
fn index_cond(rel: &RelationDesc, path: &IndexPath) -> String {
    let column = &rel.columns[path.index.keys[0] as usize - 1].name;
    let names = column_names(rel);
    let conds: Vec<String> = path
        .quals
        .iter()
        .map(|q| format!("({column} {} {})", q.op.symbol(), expr(&q.value, &names)))
        .collect();
    match conds.as_slice() {
        [one] => one.clone(),
        many => format!("({})", many.join(" AND ")),
    }
}

/// An expression at the top of a detail line: always parenthesised, as
/// PostgreSQL prints a condition.
fn top_expr(e: &Expr, names: &[String]) -> String {
    let text = expr(e, names);
    if text.starts_with('(') && text.ends_with(')') {
        text
    } else {
        format!("({text})")
    }
}

/// expr -- `e` in PostgreSQL's deparsed form, columns named from `names`
/// (also how a partial index's predicate is stored).
pub(crate) fn expr(e: &Expr, names: &[String]) -> String {
    match e {
        Expr::Column { index, .. } => names.get(*index).cloned().unwrap_or_else(|| "?".into()),
        Expr::Const { value, ty, .. } => constant(value, *ty),
        Expr::Param { index, .. } => format!("${}", index + 1),
        Expr::Cast { arg, ty, typmod, .. } => {
            format!("({})::{}", expr(arg, names), format_type(*ty, *typmod))
        }
        Expr::Call { func: Builtin::Compare(op, _), args, .. } if args.len() == 2 => {
            format!("({} {} {})", expr(&args[0], names), op.symbol(), expr(&args[1], names))
        }
        Expr::Bool { op, args, .. } => {
            let parts: Vec<String> = args.iter().map(|a| expr(a, names)).collect();
            match op {
                BoolOp::And => format!("({})", parts.join(" AND ")),
                BoolOp::Or => format!("({})", parts.join(" OR ")),
                BoolOp::Not => format!("(NOT {})", parts.join("")),
            }
        }
        Expr::Call { func, args, .. } => {
            let parts: Vec<String> = args.iter().map(|a| expr(a, names)).collect();
            format!("{}({})", format!("{func:?}").to_lowercase(), parts.join(", "))
        }
        _ => "?".into(),
    }
}

/// A constant as PostgreSQL's deparser writes it: numbers bare when their
/// type is what the literal would be read as, everything else quoted with
/// its type.
fn constant(value: &Datum, ty: SqlType) -> String {
    let Some(text) = sluice_types::io::output(value, &sluice_types::Context::default()) else {
        return "NULL".into();
    };
    match (ty, value) {
        (_, Datum::Bool(b)) => b.to_string(),
        (SqlType::Int4 | SqlType::Numeric, _) if !text.starts_with('-') => text,
        _ => format!("'{}'::{}", text.replace('\'', "''"), format_type(ty, -1)),
    }
}
