//! INSERT, UPDATE and DELETE (PostgreSQL's `nodeModifyTable.c`).
//!
//! Rows to change are found by a sequential scan under the statement's
//! snapshot; each is changed through the heap's EvalPlanQual helpers, so under
//! READ COMMITTED a row updated concurrently is re-checked in its newest version
//! and under REPEATABLE READ the statement fails with 40001. New versions carry
//! the statement's command id, which keeps the scan from seeing them
//! (Halloween protection).

mod insert;

use super::bitmapscan::BitmapRows;
use super::functions::RegColumns;
use super::host::{ExecHost, PlanHost};
use super::indexing::IndexSet;
use super::indexscan::{IndexPath, IndexRows, ScanMethod};
use super::onconflict::{OnConflict, Proposed, Speculation};
use super::plan::instrument;
use super::plan::subplan::Registry;
use super::plan::Plan;
use super::scanstats::ScanTally;
use super::select::{
    open_relation, plan_insert_source, relation_scope, with_scan_context, Planned, Planner,
};
use crate::catalog::relation::RelationDesc;
use crate::catalog::rows::{deform_row, form_row};
use crate::error::position;
use crate::error::{Result, SqlError};
use crate::executor::context::ExecParts;
use crate::expr::{
    analyze, check_boolean, coerce, coerce_to_column, column_name, eval, eval_qual,
    CoercionContext, EvalHost, Expr, Scope,
};
use crate::optimizer::choose_scan;
use crate::parser::unsupported::refuse;
use crate::sink::{OutputColumn, QuerySink};
use insert::{execute_insert, plan_insert, InsertParts};
use pg_query::protobuf::{DeleteStmt, InsertStmt, Node, RangeVar, UpdateStmt};
use pg_query::NodeEnum;
use sluice_access::heap::epq::{delete_row, update_row, RowDeleted};
use sluice_access::heap::heapam::heap_insert;
use sluice_access::heap::scan::HeapScan;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::pgstat::PendingStats;
use sluice_access::Engine;
use sluice_txn::lmgr::LockMode;
use sluice_txn::Transaction;
use sluice_types::{Datum, SqlType};

/// The analysed RETURNING list, if any.
struct Returning {
    exprs: Vec<Expr>,
    columns: Vec<OutputColumn>,
}

fn analyze_returning(
    list: &[Node],
    scope: &Scope,
    host: &mut PlanHost,
) -> Result<Option<Returning>> {
    if list.is_empty() {
        return Ok(None);
    }
    host.agg_clause = Some("RETURNING");
    let mut exprs = Vec::new();
    let mut columns = Vec::new();
    for node in list {
        let Some(NodeEnum::ResTarget(rt)) = node.node.as_ref() else { continue };
        let Some(val) = rt.val.as_deref() else { continue };
        if let Some(NodeEnum::ColumnRef(cr)) = val.node.as_ref() {
            if matches!(cr.fields.last().and_then(|f| f.node.as_ref()), Some(NodeEnum::AStar(_))) {
                for (name, e) in crate::expr::expand_star(scope, None)? {
                    columns.push(OutputColumn::computed(name, e.ty(), e.typmod()));
                    exprs.push(e);
                }
                continue;
            }
        }
        let e = analyze(val, scope, host)?;
        let name = if rt.name.is_empty() { column_name(val) } else { rt.name.clone() };
        columns.push(OutputColumn::computed(name, e.ty(), e.typmod()));
        exprs.push(e);
    }
    Ok(Some(Returning { exprs, columns }))
}

/// The default expression of each column (NULL where none).
pub(crate) fn column_defaults(
    rel: &RelationDesc,
    params: &mut Vec<Option<SqlType>>,
) -> Result<Vec<Expr>> {
    let empty = Scope { columns: Vec::new() };
    let mut host = PlanHost::new(params);
    rel.columns
        .iter()
        .map(|c| {
            let expr = match &c.default {
                Some(stored) => {
                    let text = crate::catalog::relation::evaluable_default(stored);
                    let parsed = crate::parser::parse(&format!("SELECT {text}"))?;
                    let node = default_target(&parsed)?;
                    analyze(&node, &empty, &mut host)?
                }
                None => Expr::constant(sluice_types::Datum::Null, SqlType::Unknown, -1),
            };
            coerce(expr, c.ty, c.typmod, CoercionContext::Assignment)
        })
        .collect()
}

fn default_target(parsed: &[crate::parser::RawStatement]) -> Result<Node> {
    let Some(NodeEnum::SelectStmt(select)) = parsed.first().map(|s| &s.node) else {
        return Err(SqlError::internal("invalid column default"));
    };
    let Some(NodeEnum::ResTarget(rt)) = select.target_list.first().and_then(|t| t.node.as_ref())
    else {
        return Err(SqlError::internal("invalid column default"));
    };
    rt.val.as_deref().cloned().ok_or_else(|| SqlError::internal("invalid column default"))
}

/// Raises 23502 if a NOT NULL column is NULL in `row`.
pub(crate) fn check_not_null(rel: &RelationDesc, row: &[Datum], host: &ExecHost) -> Result<()> {
    for (column, value) in rel.columns.iter().zip(row) {
        if column.not_null && value.is_null() {
            let shown: Vec<String> = row
                .iter()
                .map(|v| {
                    sluice_types::io::output(v, host.context()).unwrap_or_else(|| "null".into())
                })
                .collect();
            return Err(SqlError::new(
                "23502",
                format!(
                    "null value in column \"{}\" of relation \"{}\" violates not-null constraint",
                    column.name, rel.name
                ),
            )
            .with_detail(format!("Failing row contains ({}).", shown.join(", "))));
        }
    }
    Ok(())
}

/// An INSERT, UPDATE or DELETE ready to run: its target, what it does and
/// its RETURNING list, analysed and planned once. The session's plan cache
/// keeps it like a SELECT plan (see `plancache.rs`), so a prepared
/// statement neither parses nor plans again.
pub struct ModifyPlan {
    rel: RelationDesc,
    action: Action,
    returning: Option<Returning>,
}

/// What a [`ModifyPlan`] does to its table.
enum Action {
    /// Rows from `source` (VALUES or a query), one value per `targets`
    /// column converted by `conversions`; other columns get `defaults`;
    /// conflicts resolved as `on_conflict` says (see `onconflict.rs`).
    Insert {
        targets: Vec<usize>,
        defaults: Vec<Expr>,
        source: Plan,
        conversions: Vec<Expr>,
        on_conflict: Option<OnConflict>,
    },
    /// New values for the `targets` columns of the rows `scan` finds.
    Update { targets: Vec<(usize, Expr)>, scan: TargetScan },
    /// The rows `scan` finds.
    Delete { scan: TargetScan },
}

/// How an UPDATE or DELETE finds its rows: the WHERE clause, the index
/// path the optimizer chose for it (`None`: a sequential scan), and the
/// subqueries the clause and the new values use.
struct TargetScan {
    qual: Option<Expr>,
    path: Option<IndexPath>,
    registry: Registry,
}

impl ModifyPlan {
    /// The RETURNING list's columns, if the statement has one.
    pub fn returning_columns(&self) -> Option<&[OutputColumn]> {
        self.returning.as_ref().map(|r| &r.columns[..])
    }
}

/// plan -- analyses and plans an INSERT, UPDATE or DELETE, inferring
/// parameter types into `param_types`.
pub fn plan(
    parts: &mut ExecParts,
    node: &NodeEnum,
    param_types: &mut Vec<Option<SqlType>>,
) -> Result<ModifyPlan> {
    match node {
        NodeEnum::InsertStmt(stmt) => plan_insert(parts, stmt, param_types),
        NodeEnum::UpdateStmt(stmt) => plan_update(parts, stmt, param_types),
        NodeEnum::DeleteStmt(stmt) => plan_delete(parts, stmt, param_types),
        _ => Err(SqlError::internal("not a data-modifying statement")),
    }
}

/// run -- plans `node` and, given bound `params`, executes it into `sink`;
/// without them it only announces the RETURNING columns (Describe).
pub fn run(
    parts: &mut ExecParts,
    node: &NodeEnum,
    params: Option<Vec<Datum>>,
    param_types: &mut Vec<Option<SqlType>>,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let plan = plan(parts, node, param_types)?;
    match params {
        Some(params) => execute(parts, &plan, params, sink),
        None => match plan.returning_columns() {
            Some(columns) => sink.columns(columns),
            None => Ok(()),
        },
    }
}

/// execute -- runs a planned INSERT, UPDATE or DELETE with bound `params`.
pub fn execute(
    parts: &mut ExecParts,
    plan: &ModifyPlan,
    params: Vec<Datum>,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    if let Some(columns) = plan.returning_columns() {
        sink.columns(columns)?;
    }
    match &plan.action {
        Action::Insert { targets, defaults, source, conversions, on_conflict } => {
            let on_conflict = on_conflict.as_ref();
            let insert = InsertParts { targets, defaults, source, conversions, on_conflict };
            execute_insert(parts, plan, &insert, params, sink)
        }
        Action::Update { targets, scan } => {
            execute_update(parts, plan, targets, scan, params, sink)
        }
        Action::Delete { scan } => execute_delete(parts, plan, scan, params, sink),
    }
}

/// The column an INSERT or UPDATE target names: 42703 if `rel` has none.
fn target_column(rel: &RelationDesc, rt: &pg_query::protobuf::ResTarget) -> Result<usize> {
    rel.column_index(&rt.name).ok_or_else(|| {
        SqlError::new(
            "42703",
            format!("column \"{}\" of relation \"{}\" does not exist", rt.name, rel.name),
        )
        .at(position(rt.location))
    })
}

/// The SET list of an UPDATE: (column index, new value expression).
pub(crate) fn update_targets(
    rel: &RelationDesc,
    list: &[Node],
    scope: &Scope,
    host: &mut PlanHost,
) -> Result<Vec<(usize, Expr)>> {
    let mut targets = Vec::new();
    for node in list {
        let Some(NodeEnum::ResTarget(rt)) = node.node.as_ref() else { continue };
        let index = target_column(rel, rt)?;
        let column = &rel.columns[index];
        let value = rt.val.as_deref().ok_or_else(|| SqlError::internal("SET without a value"))?;
        let expr = match value.node.as_ref() {
            Some(NodeEnum::SetToDefault(_)) => {
                column_defaults(rel, host.params)?.swap_remove(index)
            }
            _ => {
                let expr = analyze(value, scope, host)?;
                coerce_to_column(host, expr, column.ty, column.typmod, &column.name)?
            }
        };
        targets.push((index, expr));
    }
    Ok(targets)
}

/// Sends the RETURNING values computed from `row`, if there is a RETURNING list.
fn emit_returning(
    returning: &Option<Returning>,
    row: &[Datum],
    host: &mut ExecHost,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let Some(r) = returning else { return Ok(()) };
    let mut out = r.exprs.iter().map(|e| eval(e, row, host)).collect::<Result<Vec<_>>>()?;
    let names = RegColumns::of(r.columns.iter().map(|c| c.ty), |i| sink.reads_as_text(i));
    names.name(host, &mut out)?;
    sink.row(&out)
}

/// Where an UPDATE/DELETE finds its rows: every page, or an index.
enum TableRows<'e> {
    Seq(Box<HeapScan<'e>>),
    Index(Box<IndexRows<'e>>),
    Bitmap(Box<BitmapRows<'e>>),
}

impl TableRows<'_> {
    fn next_tuple(&mut self) -> Result<Option<(sluice_common::ItemPointer, Vec<u8>)>> {
        match self {
            TableRows::Seq(scan) => Ok(scan.next_tuple()?.map(|(tid, t)| (tid, t.to_vec()))),
            TableRows::Index(rows) => rows.next_tuple(),
            TableRows::Bitmap(rows) => rows.next_tuple(),
        }
    }
}

/// A row an UPDATE/DELETE found: address, tuple bytes, values.
type FoundRow = (sluice_common::ItemPointer, Vec<u8>, Vec<Datum>);

/// next_batch -- refills `batch` with up to 256 visible rows satisfying
/// `qual`; false once the scan is exhausted. Rows are collected before any is
/// changed; the scan holds no page lock between calls, so changing them while
/// it stays open is safe.
fn next_batch(
    scan: &mut TableRows,
    desc: &sluice_access::common::TupleDesc,
    types: &[SqlType],
    qual: Option<&Expr>,
    host: &mut ExecHost,
    batch: &mut Vec<FoundRow>,
    tally: &mut TargetTally,
) -> Result<bool> {
    batch.clear();
    while let Some((tid, tuple)) = scan.next_tuple()? {
        tally.count_row();
        let row = deform_row(desc, types, &tuple)?;
        if qual.map_or(Ok(true), |q| eval_qual(q, &row, host))? {
            batch.push((tid, tuple, row));
        }
        if batch.len() >= 256 {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The WHERE clause of an UPDATE/DELETE (true when absent).
fn dml_qual(clause: Option<&Node>, scope: &Scope, host: &mut PlanHost) -> Result<Option<Expr>> {
    host.agg_clause = Some("WHERE");
    let qual =
        clause.map(|w| analyze(w, scope, host).and_then(|e| check_boolean(e, "WHERE"))).transpose();
    host.agg_clause = None;
    qual
}

/// The table an UPDATE/DELETE changes (locked RowExclusive) and its scope.
fn open_target(parts: &mut ExecParts, rv: Option<&RangeVar>) -> Result<(RelationDesc, Scope)> {
    let rv = rv.ok_or_else(|| SqlError::internal("UPDATE/DELETE without a table"))?;
    let rel = open_relation(parts, rv, LockMode::RowExclusive)?;
    let alias = rv.alias.as_ref().map_or_else(|| rel.name.clone(), |a| a.aliasname.clone());
    let scope = relation_scope(&rel, &alias);
    Ok((rel, scope))
}

/// The WHERE clause and RETURNING list of an UPDATE/DELETE.
fn where_and_returning(
    where_clause: Option<&Node>,
    returning: Option<&pg_query::protobuf::ReturningClause>,
    scope: &Scope,
    host: &mut PlanHost,
) -> Result<(Option<Expr>, Option<Returning>)> {
    let qual = dml_qual(where_clause, scope, host)?;
    let returning = analyze_returning(returning.map_or(&[][..], |r| &r.exprs[..]), scope, host)?;
    Ok((qual, returning))
}

/// target_scan -- how an UPDATE/DELETE of `rel` finds the rows `qual`
/// selects: the optimizer's choice between the table and its indexes.
fn target_scan(
    planner: &mut Planner,
    rel: &RelationDesc,
    qual: Option<Expr>,
) -> Result<(Option<Expr>, Option<IndexPath>)> {
    let path = with_scan_context(planner, |sc| {
        choose_scan(sc, rel, &sc.indexes(rel)?, qual.as_ref(), None)
    })?;
    Ok((qual, path))
}

/// for_each_match -- scans `rel` under the statement's snapshot and calls
/// `apply` for every row satisfying `qual`, with the transaction and the
/// evaluation host it may use to change the row.
fn for_each_match(
    parts: &mut ExecParts,
    rel: &RelationDesc,
    target: &TargetScan,
    params: Vec<Datum>,
    mut apply: impl FnMut(
        &Engine,
        &mut Transaction,
        &mut ExecHost,
        &FoundRow,
        &dyn Fn() -> bool,
    ) -> Result<()>,
) -> Result<()> {
    let (desc, types, heap) = (rel.tuple_desc(), rel.types(), rel.heap());
    let (qual, path) = (target.qual.as_ref(), &target.path);
    let ExecParts { engine, txn, env, .. } = parts;
    let ctx = VisibilityContext::for_transaction(txn, engine.txns());
    // The host holds the transaction while the scan runs, so subqueries may
    // lock rows (`WHERE id = (SELECT ... FOR UPDATE SKIP LOCKED)`); each
    // change borrows it back.
    let mut host = ExecHost::new(env, params, ctx.clone()).with_transaction(txn);
    host.install(&target.registry);
    let interrupts = host.interrupts();
    let interrupted = move || interrupts().is_err();
    let mut tally = start_tally(host.env().stats, rel, path.as_ref());
    let mut scan = match &path {
        Some(path) if path.method == ScanMethod::Bitmap => {
            let key = instrument::key_of(path);
            TableRows::Bitmap(Box::new(BitmapRows::start(engine, rel, path, ctx, &mut host, key)?))
        }
        Some(path) => {
            TableRows::Index(Box::new(IndexRows::start(engine, rel, path, ctx, &mut host)?))
        }
        None => TableRows::Seq(Box::new(HeapScan::begin(engine, &heap, ctx)?)),
    };
    let mut batch = Vec::new();
    loop {
        let more = next_batch(&mut scan, &desc, &types, qual, &mut host, &mut batch, &mut tally)?;
        for found in &batch {
            let txn = host.take_transaction()?;
            let applied = apply(engine, txn, &mut host, found, &interrupted);
            host.return_transaction(txn);
            applied?;
        }
        if !more {
            return Ok(());
        }
    }
}

/// The statistics an UPDATE/DELETE's scan counts: a sequential scan of
/// the table, or a scan of the index with the table rows it fetched.
struct TargetTally {
    scan: ScanTally,
    /// The table, for the rows a bitmap scan fetched.
    heap: Option<ScanTally>,
    method: Option<ScanMethod>,
}

impl TargetTally {
    /// Counts one row the scan produced.
    fn count_row(&mut self) {
        self.scan.returned();
        match self.method {
            Some(ScanMethod::Plain) => self.scan.fetched(),
            Some(ScanMethod::Bitmap) => self.heap.iter_mut().for_each(ScanTally::fetched),
            _ => {}
        }
    }
}

/// start_tally -- counts the start of an UPDATE/DELETE's scan of `rel`.
fn start_tally(
    stats: &mut PendingStats,
    rel: &RelationDesc,
    path: Option<&IndexPath>,
) -> TargetTally {
    let mut scan = ScanTally::default();
    let Some(path) = path else {
        scan.start(stats, rel.oid);
        return TargetTally { scan, heap: None, method: None };
    };
    scan.start(stats, path.index.oid);
    let heap = (path.method == ScanMethod::Bitmap).then(|| {
        let mut heap = ScanTally::default();
        heap.attach(stats, rel.oid);
        heap
    });
    TargetTally { scan, heap, method: Some(path.method) }
}

/// plan_update -- UPDATE: the target, the new values, the WHERE clause and
/// how to find its rows.
fn plan_update(
    parts: &mut ExecParts,
    stmt: &UpdateStmt,
    param_types: &mut Vec<Option<SqlType>>,
) -> Result<ModifyPlan> {
    if !stmt.from_clause.is_empty() {
        return Err(SqlError::unsupported("UPDATE ... FROM is not supported yet"));
    }
    refuse(stmt.with_clause.is_some(), "WITH in UPDATE is not supported yet")?;
    let (rel, scope) = open_target(parts, stmt.relation.as_ref())?;
    let mut planner = Planner::new(parts);
    let mut plan_host = PlanHost::with_planner(param_types, &mut planner, &scope);
    let targets = update_targets(&rel, &stmt.target_list, &scope, &mut plan_host)?;
    let (qual, returning) = where_and_returning(
        stmt.where_clause.as_deref(),
        stmt.returning_clause.as_ref(),
        &scope,
        &mut plan_host,
    )?;
    let (qual, path) = target_scan(&mut planner, &rel, qual)?;
    let scan = TargetScan { qual, path, registry: planner.into_registry() };
    Ok(ModifyPlan { rel, action: Action::Update { targets, scan }, returning })
}

/// UPDATE: a new version of every row the scan finds that still qualifies
/// in its latest version (EvalPlanQual), with its index entries.
fn execute_update(
    parts: &mut ExecParts,
    plan: &ModifyPlan,
    targets: &[(usize, Expr)],
    scan: &TargetScan,
    params: Vec<Datum>,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let (rel, returning, qual) = (&plan.rel, &plan.returning, &scan.qual);
    let (desc, types, heap) = (rel.tuple_desc(), rel.types(), rel.heap());
    let mut count = 0u64;
    let mut indexes: Option<IndexSet> = None;
    for_each_match(parts, rel, scan, params, |engine, txn, host, (tid, tuple, _), interrupted| {
        if indexes.is_none() {
            indexes = Some(IndexSet::open(host, rel)?);
        }
        let mut new_row = None;
        let changed = update_row::<SqlError>(
            engine,
            &heap,
            txn,
            *tid,
            |version| {
                let old = deform_row(&desc, &types, version)?;
                if !qual.as_ref().map_or(Ok(true), |q| eval_qual(q, &old, host))? {
                    return Ok(None);
                }
                let mut row = old.clone();
                for (index, expr) in targets {
                    row[*index] = eval(expr, &old, host)?;
                }
                check_not_null(rel, &row, host)?;
                let formed = form_row(&desc, &types, &row);
                new_row = Some(row);
                Ok(Some(formed))
            },
            tuple,
            &|old, new| indexes.as_ref().is_none_or(|i| i.indexed_unchanged(old, new)),
            interrupted,
        )?;
        if let (Some(new_version), Some(row)) = (changed, &new_row) {
            let depth = txn.savepoint_depth();
            host.env().stats.count_update(rel.oid, depth, new_version.heap_only);
            match &indexes {
                Some(indexes) if !new_version.heap_only => {
                    indexes.insert(txn, host, row, new_version.tid)?
                }
                _ => {}
            }
            count += 1;
            emit_returning(returning, row, host, sink)?;
        }
        Ok(())
    })?;
    sink.complete(&format!("UPDATE {count}"))
}

/// plan_delete -- DELETE: the target, the WHERE clause and how to find its
/// rows.
fn plan_delete(
    parts: &mut ExecParts,
    stmt: &DeleteStmt,
    param_types: &mut Vec<Option<SqlType>>,
) -> Result<ModifyPlan> {
    if !stmt.using_clause.is_empty() {
        return Err(SqlError::unsupported("DELETE ... USING is not supported yet"));
    }
    refuse(stmt.with_clause.is_some(), "WITH in DELETE is not supported yet")?;
    let (rel, scope) = open_target(parts, stmt.relation.as_ref())?;
    let mut planner = Planner::new(parts);
    let mut plan_host = PlanHost::with_planner(param_types, &mut planner, &scope);
    let (qual, returning) = where_and_returning(
        stmt.where_clause.as_deref(),
        stmt.returning_clause.as_ref(),
        &scope,
        &mut plan_host,
    )?;
    let (qual, path) = target_scan(&mut planner, &rel, qual)?;
    let scan = TargetScan { qual, path, registry: planner.into_registry() };
    Ok(ModifyPlan { rel, action: Action::Delete { scan }, returning })
}

/// DELETE: every row the scan finds that still qualifies in its latest
/// version (EvalPlanQual).
fn execute_delete(
    parts: &mut ExecParts,
    plan: &ModifyPlan,
    scan: &TargetScan,
    params: Vec<Datum>,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let (rel, returning, qual) = (&plan.rel, &plan.returning, &scan.qual);
    let (desc, types, heap) = (rel.tuple_desc(), rel.types(), rel.heap());
    let mut count = 0u64;
    for_each_match(parts, rel, scan, params, |engine, txn, host, (tid, _, row), interrupted| {
        let still_qualifies = |version: &[u8]| -> Result<bool> {
            let row = deform_row(&desc, &types, version)?;
            qual.as_ref().map_or(Ok(true), |q| eval_qual(q, &row, host))
        };
        let deleted =
            delete_row::<SqlError>(engine, &heap, txn, *tid, still_qualifies, interrupted)?;
        let newer;
        let row = match deleted {
            RowDeleted::Nothing => return Ok(()),
            RowDeleted::AsFound => row,
            RowDeleted::Newer(version) => {
                newer = deform_row(&desc, &types, &version)?;
                &newer
            }
        };
        host.env().stats.count_delete(rel.oid, txn.savepoint_depth());
        count += 1;
        emit_returning(returning, row, host, sink)?;
        Ok(())
    })?;
    sink.complete(&format!("DELETE {count}"))
}
