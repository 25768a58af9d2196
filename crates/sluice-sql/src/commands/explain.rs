//! EXPLAIN (PostgreSQL's `commands/explain.c`): a SELECT's plan (or that
//! of the scan or query under an INSERT, UPDATE or DELETE) as
//! PostgreSQL prints it, one line per node, children indented under `->`,
//! each node with `(cost=startup..total rows=N width=W)` unless COSTS OFF.
//!
//! sluice's plan tree is finer-grained than PostgreSQL's in places: WHERE
//! and HAVING are separate Filter nodes, and the target list (and the
//! projection that restores the FROM list's column order after the join
//! search reordered it) is a Project node. PostgreSQL folds both into the
//! node below (a `Filter:` line, and the node's output), so the printer does
//! the same, and prints the folded chain's estimate on the node it folds
//! into. A hash join's table is built inside the join node; PostgreSQL has a
//! separate Hash node for it, so the printer shows one. Conditions are
//! printed from the analysed expression with PostgreSQL's parenthesisation
//! and constant syntax (`(aid = 5)`, `((a > 1) AND (b < 2))`,
//! `'x'::text`); when the plan reads more than one relation, conditions
//! above the scans name columns with their table (`a.x`), as PostgreSQL's
//! `useprefix` does.
//!
//! Costs come from `optimizer::estimate`, which recomputes each node's
//! estimate from the finished tree with the formulas the planner chose it
//! by.
//!
//! EXPLAIN ANALYZE runs the plan to the end with every node counted
//! (`executor/plan/instrument.rs`) and adds `(actual time=S..T rows=N loops=L)` —
//! per-loop averages, as PostgreSQL prints them — `Rows Removed by Filter`
//! and `by Join Filter`, and the planning and execution times. Two things
//! differ in how sluice runs plans: a nested loop's inner side is kept in
//! memory once, so it is shown with the loops PostgreSQL's rescans would
//! have; and the Hash node's `Memory Usage` is an estimate of PostgreSQL's
//! (entries of a hash link plus a minimal tuple of the estimated width), as
//! is a quicksort's `Memory`. A sort that spilled prints `external merge`
//! with the bytes of its runs (sluice's row format, not PostgreSQL's tapes).

mod dml;
mod labels;

use crate::catalog::relation::RelationDesc;
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::executor::host::ExecHost;
use crate::executor::plan::instrument::{key_of, Instrumentation};
use crate::executor::plan::{self, JoinKind, Plan, SortKey};
use crate::expr::deparse::{expr, parenthesised, top_expr};
use crate::expr::Expr;
use crate::optimizer::costsize::{cost_sort, Estimate};
use crate::optimizer::estimate::Estimator;
use crate::optimizer::indxpath::{conjuncts, index_qual, predicate_terms, term_text};
use crate::optimizer::plannodes::AggCall;
use crate::optimizer::plannodes::{IndexPath, ScanMethod};
use crate::optimizer::select;
use crate::optimizer::ScanContext;
use crate::sink::{OutputColumn, QuerySink};
use dml::{explained_query, through_views, Modify};
use labels::*;
use pg_query::protobuf::ExplainStmt;
use pg_query::NodeEnum;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_storage::buffer::BufferUsage;
use sluice_types::{Datum, SqlType};
use std::time::Instant;

/// EXPLAIN [ ( option [, ...] ) ] statement.
pub fn explain(
    cx: &mut dyn BackendContext,
    stmt: &ExplainStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let options = explain_options(stmt)?;
    let stmt = &through_views(cx, stmt)?;
    let (query, modify) = explained_query(stmt)?;
    if modify.is_some() && options.analyze {
        return Err(SqlError::unsupported(
            "EXPLAIN ANALYZE of INSERT, UPDATE or DELETE is not supported yet",
        ));
    }
    let planning_start = Instant::now();
    let planning_buffers = BufferUsage::current();
    let mut parts = cx.parts()?;
    let mut param_types = Vec::new();
    let planned = select::plan_select(&mut parts, &query, &mut param_types)?;
    let planning = planning_start.elapsed();
    let planning_buffers = BufferUsage::current() - planning_buffers;
    let ctx = VisibilityContext::for_transaction(parts.txn, parts.engine.txns());
    let mut executed = None;
    if options.analyze {
        let execution_start = Instant::now();
        let (_, inst) = Instrumentation::run(options.timing, || {
            // Lent for LockRows: EXPLAIN ANALYZE of FOR UPDATE locks the rows.
            let mut host =
                ExecHost::new(&mut parts.env, Vec::new(), ctx.clone()).with_transaction(parts.txn);
            let mut source = plan::open(&planned.plan, parts.engine, &ctx)?;
            while source.next(&mut host)?.is_some() {}
            Ok(())
        })?;
        executed = Some((inst, execution_start.elapsed()));
    }
    let types = parts.type_catalog();
    let sc = ScanContext::new(parts.engine, parts.env.database, parts.env.settings, &ctx, types);
    let ctes = match &planned.plan {
        Plan::Statement { registry, .. } => registry.ctes.as_slice(),
        _ => &[],
    };
    let estimator = Estimator::new(&sc, ctes);
    let mut lines = Vec::new();
    let mut printer = Printer {
        lines: &mut lines,
        est: options.costs.then_some(&estimator),
        estimator: &estimator,
        prefix: relations_read(&planned.plan) > 1,
        bound: None,
        actual: executed.as_ref().map(|(inst, _)| &**inst),
        timing: options.timing,
        fold: None,
        loops_override: None,
        width_bonus: 0.0,
        insert_target: None,
        headers: Vec::new(),
    };
    match &modify {
        Some(m) => printer.modify(m, &planned.plan)?,
        None => printer.node(&planned.plan, &planned.plan, 0, &[])?,
    }
    if options.buffers {
        printer.insert_buffer_lines();
        if !planning_buffers.is_zero() {
            lines.push("Planning:".into());
            lines.push(format!("  Buffers: {}", planning_buffers.explain_text()));
        }
    }
    if options.summary {
        lines.push(format!("Planning Time: {:.3} ms", millis(planning)));
        if let Some((_, execution)) = &executed {
            lines.push(format!("Execution Time: {:.3} ms", millis(*execution)));
        }
    }
    sink.columns(&[plan_column()])?;
    for line in &lines {
        sink.row(&[Datum::Text(line.as_str().into())])?;
    }
    sink.complete("EXPLAIN")
}

/// The one column EXPLAIN returns (also what Describe reports for it).
pub(crate) fn plan_column() -> OutputColumn {
    OutputColumn::computed("QUERY PLAN", SqlType::Text, -1)
}

/// A duration in milliseconds.
fn millis(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The EXPLAIN options sluice acts on.
struct Options {
    /// COSTS (default on).
    costs: bool,
    /// ANALYZE: run the statement and show what each node did.
    analyze: bool,
    /// TIMING (default on with ANALYZE).
    timing: bool,
    /// SUMMARY: planning and execution times (default on with ANALYZE).
    summary: bool,
    /// BUFFERS: pages each node and the planner touched.
    buffers: bool,
}

/// The statement's options, with PostgreSQL's defaults and errors.
fn explain_options(stmt: &ExplainStmt) -> Result<Options> {
    let (mut costs, mut analyze, mut timing, mut summary) = (true, false, None, None);
    let mut buffers = false;
    for option in &stmt.options {
        let Some(NodeEnum::DefElem(def)) = option.node.as_ref() else { continue };
        let value = def.arg.as_deref().and_then(crate::parser::node_str);
        let on = !matches!(value.as_deref(), Some("false" | "off" | "0"));
        match def.defname.as_str() {
            "costs" => costs = on,
            "analyze" => analyze = on,
            "timing" => timing = Some(on),
            "summary" => summary = Some(on),
            "buffers" => buffers = on,
            "verbose" => {}
            "format" if value.as_deref() == Some("text") => {}
            other => {
                return Err(SqlError::new(
                    "42601",
                    format!("unrecognized EXPLAIN option \"{other}\""),
                )
                .at(crate::error::position(def.location)))
            }
        }
    }
    if timing == Some(true) && !analyze {
        return Err(SqlError::new("22023", "EXPLAIN option TIMING requires ANALYZE"));
    }
    Ok(Options {
        costs,
        analyze,
        timing: timing.unwrap_or(analyze),
        summary: summary.unwrap_or(analyze),
        buffers,
    })
}

/// How many relations (table scans, subqueries of the registry) a plan
/// reads: PostgreSQL qualifies column names when its range table has more
/// than one entry.
fn relations_read(plan: &Plan) -> usize {
    match plan {
        Plan::SeqScan { .. } | Plan::IndexScan { .. } => 1,
        Plan::Statement { input, registry } => {
            relations_read(input)
                + registry.subplans.iter().map(|s| relations_read(&s.plan).max(1)).sum::<usize>()
                + registry.ctes.len()
        }
        Plan::NestLoop { outer, inner, .. }
        | Plan::HashJoin { outer, inner, .. }
        | Plan::MergeJoin { outer, inner, .. } => 1 + relations_read(outer) + relations_read(inner),
        other => inputs(other).into_iter().map(relations_read).sum(),
    }
}

/// Every input of a node.
fn inputs(plan: &Plan) -> Vec<&Plan> {
    match plan {
        Plan::Filter { input, .. }
        | Plan::Project { input, .. }
        | Plan::Aggregate { input, .. }
        | Plan::Distinct { input, .. }
        | Plan::Sort { input, .. }
        | Plan::Limit { input, .. }
        | Plan::LockRows { input, .. }
        | Plan::Truncate { input, .. }
        | Plan::Material { input } => vec![input],
        other => children(other),
    }
}

/// The key of a node line that shows no counters of its own.
const NO_NODE: usize = usize::MAX;

/// Writes the plan's lines.
struct Printer<'a, 'e> {
    lines: &'a mut Vec<String>,
    /// The estimator, when costs are shown.
    est: Option<&'a Estimator<'e>>,
    /// The estimator, for what ANALYZE's details need of the plan.
    estimator: &'a Estimator<'e>,
    /// What each node did, under ANALYZE.
    actual: Option<&'a Instrumentation>,
    /// Whether ANALYZE measured time.
    timing: bool,
    /// While Filter nodes are folded into the node below: the outermost
    /// Filter's key and the innermost one's input's (rows removed are the
    /// difference of their rows).
    fold: Option<(usize, usize)>,
    /// The loops to show for the next node (a nested loop's inner side,
    /// which sluice materialises once and PostgreSQL rescans per outer row).
    loops_override: Option<u64>,
    /// Bytes the next node's rows carry beyond its columns (a ctid).
    width_bonus: f64,
    /// The table an INSERT being explained writes to.
    insert_target: Option<String>,
    /// Qualify column names with their relation above the scans.
    prefix: bool,
    /// The LIMIT a Sort directly below a Limit sorts for.
    bound: Option<f64>,
    /// Each node line printed: its index in `lines`, depth and the key of
    /// the node whose counters it shows, or [`NO_NODE`] (for the `Buffers:`
    /// lines).
    headers: Vec<(usize, usize, usize)>,
}

impl Printer<'_, '_> {
    /// The header line of a node at `depth`, with the estimate of `top`
    /// (the outermost node folded into it).
    fn header(&mut self, depth: usize, text: String, top: &Plan) -> Result<()> {
        let mut text = match self.est {
            Some(est) => {
                let mut e = est.estimate_bounded(top, self.bound)?;
                e.width += self.width_bonus;
                format!("{text}  {}", cost_text(&e))
            }
            None => text,
        };
        self.bound = None;
        self.width_bonus = 0.0;
        if let Some(actual) = self.actual_text(key_of(top)) {
            text = format!("{text} {actual}");
        }
        self.header_line(depth, text);
        if let Some(line) = self.headers.last_mut() {
            line.2 = key_of(top);
        }
        Ok(())
    }

    /// insert_buffer_lines -- under ANALYZE, puts each node's `Buffers:` line
    /// after its other details, before the lines of the nodes below it (as
    /// PostgreSQL's ExplainNode does), for the nodes that touched a page.
    fn insert_buffer_lines(&mut self) {
        let Some(actual) = self.actual else { return };
        let mut ends: Vec<usize> = self.headers.iter().skip(1).map(|h| h.0).collect();
        ends.push(self.lines.len());
        let headers = std::mem::take(&mut self.headers);
        for (&(_, depth, key), &end) in headers.iter().zip(&ends).rev() {
            let usage = actual.stats(key).buffers;
            if !usage.is_zero() {
                let indent = if depth == 0 { 2 } else { 6 * depth + 2 };
                let line = format!("{}Buffers: {}", " ".repeat(indent), usage.explain_text());
                self.lines.insert(end, line);
            }
        }
    }

    /// `(actual ...)` for the node at `key`, under ANALYZE.
    fn actual_text(&mut self, key: usize) -> Option<String> {
        let mut stats = self.actual?.stats(key);
        if let Some(loops) = self.loops_override.take().filter(|_| stats.loops > 0) {
            stats.rows *= loops;
            stats.loops = loops;
        }
        if stats.loops == 0 {
            return Some("(never executed)".into());
        }
        let loops = stats.loops as f64;
        let rows = stats.rows as f64 / loops;
        Some(if self.timing {
            format!(
                "(actual time={:.3}..{:.3} rows={rows:.0} loops={})",
                millis(stats.startup) / loops,
                millis(stats.total) / loops,
                stats.loops
            )
        } else {
            format!("(actual rows={rows:.0} loops={})", stats.loops)
        })
    }

    /// `Rows Removed by ...: N` (per loop) under ANALYZE, if any were.
    fn removed(&mut self, depth: usize, what: &str, removed: u64, loops: u64) {
        if self.actual.is_some() && removed > 0 && loops > 0 {
            self.detail(
                depth,
                format!("Rows Removed by {what}: {:.0}", removed as f64 / loops as f64),
            );
        }
    }

    /// A join's `Rows Removed by Join Filter:` line.
    fn join_removed(&mut self, depth: usize, plan: &Plan) {
        let Some(actual) = self.actual else { return };
        let stats = actual.stats(key_of(plan));
        self.removed(depth, "Join Filter", stats.join_removed, stats.loops);
    }

    /// modify -- an INSERT, UPDATE or DELETE: the ModifyTable node, which
    /// returns no rows and costs what its input does, over `input`.
    fn modify(&mut self, m: &Modify, input: &Plan) -> Result<()> {
        let mut text = format!("{} on {}", m.verb, m.table);
        if let Some(est) = self.est {
            let e = est.estimate(input)?;
            text = format!("{text}  {}", cost_text(&Estimate { rows: 0.0, width: 0.0, ..e }));
        }
        self.header_line(0, text);
        // UPDATE and DELETE also carry each row's ctid (6 bytes) up.
        if m.verb == "Insert" {
            self.insert_target = Some(m.table.clone());
        } else {
            self.width_bonus = 6.0;
        }
        self.child(input, 1)
    }

    /// `table` or `table alias`, as a scan's title names its relation; a
    /// scan of an INSERT's own target table is renamed `table_1`, as
    /// PostgreSQL gives each range table entry a distinct name.
    fn scan_name(&self, rel: &RelationDesc, alias: &Option<String>) -> String {
        match alias {
            Some(a) => format!("{} {a}", rel.name),
            None if self.insert_target.as_deref() == Some(rel.name.as_str()) => {
                format!("{0} {0}_1", rel.name)
            }
            None => rel.name.clone(),
        }
    }

    /// child -- prints an input of a node: a new chain of folded nodes.
    fn child(&mut self, plan: &Plan, depth: usize) -> Result<()> {
        self.fold = None;
        self.node(plan, plan, depth, &[])
    }

    fn header_line(&mut self, depth: usize, text: String) {
        // Keyed by `header` when the line shows a node's own counters.
        self.headers.push((self.lines.len(), depth, NO_NODE));
        let line =
            if depth == 0 { text } else { format!("{}->  {text}", " ".repeat(6 * depth - 4)) };
        self.lines.push(line);
    }

    /// A detail line (`Filter: ...`) of the node at `depth`.
    fn detail(&mut self, depth: usize, text: String) {
        let indent = if depth == 0 { 2 } else { 6 * depth + 2 };
        self.lines.push(format!("{}{text}", " ".repeat(indent)));
    }

    /// Column names of `plan`'s output for conditions above the scans.
    fn upper_names(&self, plan: &Plan) -> Vec<String> {
        output_names(plan, self.prefix)
    }

    /// node -- prints `plan` at `depth`, with `filters` (conditions of the
    /// Filter nodes folded into it, over its output) as its `Filter:` line;
    /// `top` is the outermost node folded into it, whose estimate it shows.
    fn node(&mut self, plan: &Plan, top: &Plan, depth: usize, filters: &[Expr]) -> Result<()> {
        match plan {
            Plan::Filter { input, qual, agg_offset } => {
                let outermost = self.fold.map_or(key_of(plan), |f| f.0);
                self.fold = Some((outermost, key_of(&**input)));
                let mut all = vec![resolve_aggrefs(qual, *agg_offset)];
                all.extend_from_slice(filters);
                self.node(input, top, depth, &all)
            }
            Plan::Project { input, exprs, agg_offset } => {
                let exprs: Vec<Expr> =
                    exprs.iter().map(|e| resolve_aggrefs(e, *agg_offset)).collect();
                let below: Vec<Expr> = filters.iter().map(|f| substitute(f, &exprs)).collect();
                self.node(input, top, depth, &below)
            }
            Plan::Truncate { input, .. } | Plan::Statement { input, .. } => {
                self.node(input, top, depth, filters)
            }
            Plan::SeqScan { rel, alias, .. } => {
                self.header(depth, format!("Seq Scan on {}", self.scan_name(rel, alias)), top)?;
                let refs: Vec<&Expr> = filters.iter().collect();
                self.filter(depth, &refs, &column_names(rel));
                Ok(())
            }
            Plan::IndexScan { .. } => self.index_scan(plan, top, depth, filters),
            Plan::Aggregate { input, keys, hashed, .. } => {
                let input_names = self.upper_names(input);
                let title = match (keys.is_empty(), hashed) {
                    (true, _) => "Aggregate",
                    (false, true) => "HashAggregate",
                    (false, false) => "GroupAggregate",
                };
                self.header(depth, title.into(), top)?;
                if !keys.is_empty() {
                    let keys: Vec<String> = keys.iter().map(|k| expr(k, &input_names)).collect();
                    self.detail(depth, format!("Group Key: {}", keys.join(", ")));
                }
                let names = self.upper_names(plan);
                self.filter(depth, &filters.iter().collect::<Vec<_>>(), &names);
                if *hashed {
                    self.memory_line(depth, "Batches: 1  Memory Usage", top, 48.0)?;
                }
                if keys.is_empty() || *hashed {
                    return self.child(input, depth + 1);
                }
                // GroupAggregate sorts its input by the keys itself;
                // PostgreSQL has a Sort node below it for that.
                let text = match self.est {
                    Some(est) => {
                        let sorted = cost_sort(est.params(), est.estimate(input)?, None);
                        format!("Sort  {}", cost_text(&sorted))
                    }
                    None => "Sort".into(),
                };
                let text = match self.actual_text(key_of(&**input)) {
                    Some(actual) => format!("{text} {actual}"),
                    None => text,
                };
                self.header_line(depth + 1, text);
                let sort_keys: Vec<String> = keys.iter().map(|k| expr(k, &input_names)).collect();
                self.detail(depth + 1, format!("Sort Key: {}", sort_keys.join(", ")));
                self.sort_method(depth + 1, plan, input)?;
                self.child(input, depth + 2)
            }
            Plan::Sort { input, keys } => {
                let input_names = self.upper_names(input);
                self.header(depth, "Sort".into(), top)?;
                let keys: Vec<String> = keys.iter().map(|k| sort_key(k, &input_names)).collect();
                self.detail(depth, format!("Sort Key: {}", keys.join(", ")));
                self.sort_method(depth, plan, input)?;
                self.node(input, input, depth + 1, filters)
            }
            Plan::Limit { input, limit, offset } => {
                self.header(depth, "Limit".into(), top)?;
                let count = |e: &Option<Expr>| match e {
                    Some(Expr::Const { value, .. }) => value.as_i64().map(|v| v as f64),
                    _ => None,
                };
                if matches!(**input, Plan::Sort { .. }) {
                    self.bound = count(limit).map(|l| l + count(offset).unwrap_or(0.0));
                }
                self.node(input, input, depth + 1, filters)
            }
            Plan::LockRows { input, .. } => {
                self.header(depth, "LockRows".into(), top)?;
                self.node(input, input, depth + 1, filters)
            }
            Plan::Distinct { input, .. } => {
                self.header(depth, "Unique".into(), top)?;
                self.node(input, input, depth + 1, filters)
            }
            Plan::Material { input } => {
                self.header(depth, "Materialize".into(), top)?;
                self.node(input, input, depth + 1, filters)
            }
            Plan::NestLoop { outer, inner, kind, qual, params, .. } => {
                self.header(depth, join_title("Nested Loop", *kind, true), top)?;
                self.join_details(plan, depth, qual.as_ref(), filters);
                self.child(outer, depth + 1)?;
                if params.is_empty() {
                    // Each outer row reads the (kept) inner rows again.
                    self.loops_override = self.actual.map(|a| a.stats(key_of(&**outer)).rows);
                }
                self.child(inner, depth + 1)
            }
            Plan::HashJoin { outer, inner, kind, outer_keys, inner_keys, qual, .. } => {
                self.header(depth, join_title("Hash", *kind, false), top)?;
                let (on, inn) = (self.upper_names(outer), self.upper_names(inner));
                let conds: Vec<String> = outer_keys
                    .iter()
                    .zip(inner_keys)
                    .map(|(o, i)| format!("({} = {})", expr(o, &on), expr(i, &inn)))
                    .collect();
                self.detail(depth, format!("Hash Cond: {}", and_text(&conds)));
                self.join_details(plan, depth, qual.as_ref(), filters);
                self.child(outer, depth + 1)?;
                self.hash_node(inner, depth + 1)?;
                self.child(inner, depth + 2)
            }
            Plan::MergeJoin { outer, inner, kind, keys, qual, .. } => {
                self.header(depth, join_title("Merge", *kind, false), top)?;
                let (on, inn) = (self.upper_names(outer), self.upper_names(inner));
                let conds: Vec<String> =
                    keys.iter().map(|&(o, i)| format!("({} = {})", on[o], inn[i])).collect();
                self.detail(depth, format!("Merge Cond: {}", and_text(&conds)));
                self.join_details(plan, depth, qual.as_ref(), filters);
                self.child(outer, depth + 1)?;
                self.child(inner, depth + 1)
            }
            other => {
                self.header(depth, leaf_title(other), top)?;
                let names = self.upper_names(other);
                self.filter(depth, &filters.iter().collect::<Vec<_>>(), &names);
                for child in children(other) {
                    self.child(child, depth + 1)?;
                }
                Ok(())
            }
        }
    }

    /// A join's `Join Filter:` (the rest of its condition) and `Filter:`
    /// (WHERE conditions checked on its output) lines.
    fn join_details(&mut self, plan: &Plan, depth: usize, qual: Option<&Expr>, filters: &[Expr]) {
        let names = self.upper_names(plan);
        if let Some(q) = qual {
            self.detail(depth, format!("Join Filter: {}", top_expr(q, &names)));
            self.join_removed(depth, plan);
        }
        self.filter(depth, &filters.iter().collect::<Vec<_>>(), &names);
    }

    /// sort_method -- under ANALYZE, how the node `sorter` sorted the rows
    /// of `input`: `external merge` with the bytes its runs took when it
    /// spilled, else `quicksort` with an estimate of the memory.
    fn sort_method(&mut self, depth: usize, sorter: &Plan, input: &Plan) -> Result<()> {
        let disk = self.actual.map_or(0, |a| a.stats(key_of(sorter)).sort_disk);
        if disk == 0 {
            return self.memory_line(depth, "Sort Method: quicksort  Memory", input, 24.0);
        }
        let kb = disk.div_ceil(1024);
        self.detail(depth, format!("Sort Method: external merge  Disk: {kb}kB"));
        Ok(())
    }

    /// memory_line -- under ANALYZE, `{label}: NkB` for a node that keeps
    /// the rows `rows_of` produced in memory (a sort, a hash aggregation):
    /// an estimate of PostgreSQL's figure from the rows counted and the
    /// estimated width, `overhead` bytes per row and an 8 kB minimum.
    fn memory_line(
        &mut self,
        depth: usize,
        label: &str,
        rows_of: &Plan,
        overhead: f64,
    ) -> Result<()> {
        let Some(actual) = self.actual else { return Ok(()) };
        let stats = actual.stats(key_of(rows_of));
        if stats.loops == 0 {
            return Ok(());
        }
        let width = self.estimator.estimate(rows_of)?.width;
        let per_row = overhead + ((16.0 + width) / 8.0).ceil() * 8.0;
        let kb = ((stats.rows as f64 * per_row).max(8192.0) / 1024.0).ceil();
        self.detail(depth, format!("{label}: {kb:.0}kB"));
        Ok(())
    }

    /// hash_node -- the Hash node PostgreSQL shows above a hash join's inner
    /// side (sluice builds the table inside the join): the inner side's
    /// estimate with its total as startup cost (the table is built before
    /// the first row), and under ANALYZE the table's size.
    fn hash_node(&mut self, inner: &Plan, depth: usize) -> Result<()> {
        let mut text = "Hash".to_string();
        if let Some(est) = self.est {
            let e = est.estimate(inner)?;
            text = format!("{text}  {}", cost_text(&Estimate { startup: e.total, ..e }));
        }
        if let Some(actual) = self.actual_text(key_of(inner)) {
            text = format!("{text} {actual}");
        }
        self.header_line(depth, text);
        if let Some(actual) = self.actual {
            let stats = actual.stats(key_of(inner));
            if stats.loops > 0 {
                let estimate = self.estimator.estimate(inner)?;
                let rows = stats.rows as f64;
                let buckets = rows.max(estimate.rows).max(1024.0).log2().ceil().exp2();
                // Each entry: a 16-byte hash link and the row as a minimal
                // tuple (16-byte header, data, 8-byte alignment).
                let entry = 16.0 + ((16.0 + estimate.width) / 8.0).ceil() * 8.0;
                let kb = ((rows * entry + buckets * 8.0) / 1024.0).ceil();
                self.detail(
                    depth,
                    format!("Buckets: {buckets:.0}  Batches: 1  Memory Usage: {kb:.0}kB"),
                );
            }
        }
        Ok(())
    }

    /// index_scan -- an Index Scan or Index Only Scan, or a Bitmap Heap Scan
    /// with its Bitmap Index Scan below; `filters` as for [`Printer::node`].
    fn index_scan(
        &mut self,
        plan: &Plan,
        top: &Plan,
        depth: usize,
        filters: &[Expr],
    ) -> Result<()> {
        let Plan::IndexScan { rel, path, alias, ctid } = plan else { return Ok(()) };
        let name = self.scan_name(rel, alias);
        let index = &path.index.name;
        let direction = if path.backward { " Backward" } else { "" };
        let title = match path.method {
            ScanMethod::Plain => format!("Index Scan{direction} using {index} on {name}"),
            ScanMethod::IndexOnly => format!("Index Only Scan{direction} using {index} on {name}"),
            ScanMethod::Bitmap => format!("Bitmap Heap Scan on {name}"),
        };
        self.header(depth, title, top)?;
        let cond = (!path.quals.is_empty()).then(|| index_cond(rel, path));
        let implied = path
            .index
            .predicate
            .as_deref()
            .map(|p| predicate_terms(rel, p, &self.estimator.sc.types));
        match (&cond, path.method) {
            (_, ScanMethod::Bitmap) => {
                // A bitmap scan rechecks the partial index's predicate too.
                let mut recheck = index_cond_terms(rel, path);
                recheck.extend(implied.iter().flatten().map(|t| parenthesised(t)));
                if !recheck.is_empty() {
                    self.detail(depth, format!("Recheck Cond: {}", and_terms(&recheck)));
                }
            }
            (Some(cond), _) => self.detail(depth, format!("Index Cond: {cond}")),
            (None, _) => {}
        }
        // Conditions the index applies, or its predicate implies, are not
        // repeated as a filter -- except the implied ones on a table whose
        // rows are locked: re-checking a row's newer version needs them
        // (PostgreSQL's create_indexscan_plan keeps them for row marks).
        let implied = if *ctid { None } else { implied };
        let leading = path.index.keys[0] as usize - 1;
        let rest: Vec<&Expr> = filters
            .iter()
            .flat_map(|f| conjuncts(f))
            .filter(|c| index_qual(c, leading, rel.columns[leading].ty).is_none())
            .filter(|c| implied.as_ref().is_none_or(|terms| !terms.contains(&term_text(rel, c))))
            .collect();
        self.filter(depth, &rest, &column_names(rel));
        let counters = self.actual.map(|a| a.stats(key_of(plan)));
        match (path.method, counters) {
            (ScanMethod::IndexOnly, Some(stats)) => {
                let per_loop = stats.heap_fetches as f64 / stats.loops.max(1) as f64;
                self.detail(depth, format!("Heap Fetches: {per_loop:.0}"));
            }
            (ScanMethod::Bitmap, Some(stats)) if stats.exact_blocks > 0 => {
                let per_loop = stats.exact_blocks as f64 / stats.loops.max(1) as f64;
                self.detail(depth, format!("Heap Blocks: exact={per_loop:.0}"));
            }
            _ => {}
        }
        if path.method == ScanMethod::Bitmap {
            self.bitmap_index_scan(rel, path, cond, depth + 1)?;
        }
        Ok(())
    }

    /// The Bitmap Index Scan below a Bitmap Heap Scan: the index walk that
    /// builds the bitmap, with no rows of its own width.
    fn bitmap_index_scan(
        &mut self,
        rel: &RelationDesc,
        path: &IndexPath,
        cond: Option<String>,
        depth: usize,
    ) -> Result<()> {
        let mut text = format!("Bitmap Index Scan on {}", path.index.name);
        if let Some(est) = self.est {
            text = format!("{text}  {}", cost_text(&est.bitmap_index_estimate(rel, path)?));
        }
        if let Some(actual) = self.actual_text(key_of(path)) {
            text = format!("{text} {actual}");
        }
        self.header_line(depth, text);
        if let Some(line) = self.headers.last_mut() {
            line.2 = key_of(path);
        }
        if let Some(cond) = cond {
            self.detail(depth, format!("Index Cond: {cond}"));
        }
        Ok(())
    }

    /// The `Filter:` line for the folded conditions, if any (and under
    /// ANALYZE how many rows they removed).
    fn filter(&mut self, depth: usize, filters: &[&Expr], names: &[String]) {
        match filters {
            [] => return,
            [one] => self.detail(depth, format!("Filter: {}", top_expr(one, names))),
            many => {
                let parts: Vec<String> = many.iter().map(|e| expr(e, names)).collect();
                self.detail(depth, format!("Filter: ({})", parts.join(" AND ")));
            }
        }
        if let (Some(actual), Some((out, input))) = (self.actual, self.fold.take()) {
            let (out, input) = (actual.stats(out), actual.stats(input));
            self.removed(depth, "Filter", input.rows.saturating_sub(out.rows), out.loops);
        }
    }
}
