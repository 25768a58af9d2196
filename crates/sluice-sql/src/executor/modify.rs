//! Running INSERT, UPDATE and DELETE (PostgreSQL's `nodeModifyTable.c`);
//! they are planned in `optimizer/modify.rs`.
//!
//! Rows to change are found under the statement's snapshot by the scan the
//! planner chose (sequential, index or bitmap); each is changed through the heap's EvalPlanQual helpers, so under
//! READ COMMITTED a row updated concurrently is re-checked in its newest version
//! and under REPEATABLE READ the statement fails with 40001. New versions carry
//! the statement's command id, which keeps the scan from seeing them
//! (Halloween protection).

mod insert;

use super::bitmapscan::BitmapRows;
use super::constraints::{prepare_row, RowSource};
use super::functions::RegColumns;
use super::host::ExecHost;
use super::indexing::IndexSet;
use super::indexscan::{IndexPath, IndexRows, ScanMethod};
use super::onconflict::{Proposed, Speculation};
use super::plan::instrument;
use super::plan::Plan;
use super::ri_triggers::RowEvents;
use super::scanstats::ScanTally;
use crate::catalog::relation::RelationDesc;
use crate::catalog::rows::{deform_row, form_row};
use crate::catalog::schema::RelKind;
use crate::error::{Result, SqlError};
use crate::executor::context::ExecParts;
use crate::expr::{eval, eval_qual, Expr};
pub use crate::optimizer::modify::{plan, ModifyPlan};
use crate::optimizer::modify::{Action, Returning, TargetScan};
use crate::sink::QuerySink;
use insert::{execute_insert, InsertParts};
use pg_query::NodeEnum;
use sluice_access::heap::epq::{delete_row, update_row, RowDeleted};
use sluice_access::heap::heapam::heap_insert;
use sluice_access::heap::scan::HeapScan;
use sluice_access::heap::visibility::{satisfies_mvcc, VisibilityContext};
use sluice_access::pgstat::PendingStats;
use sluice_access::AccessError;
use sluice_access::Engine;
use sluice_txn::Transaction;
use sluice_types::{Datum, SqlType};

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

thread_local! {
    /// How many [`MatViewMaintenance`] guards this backend holds.
    static MATVIEW_MAINTENANCE: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// While one is held, INSERT and DELETE may change materialized views:
/// REFRESH fills them through those statements (PostgreSQL's
/// OpenMatViewIncrementalMaintenance). Backends are threads, and a
/// statement runs start to end on its backend's thread.
pub struct MatViewMaintenance(());

impl MatViewMaintenance {
    /// Opens materialized views to change until the guard drops.
    pub fn open() -> MatViewMaintenance {
        MATVIEW_MAINTENANCE.with(|n| n.set(n.get() + 1));
        MatViewMaintenance(())
    }
}

impl Drop for MatViewMaintenance {
    fn drop(&mut self) {
        MATVIEW_MAINTENANCE.with(|n| n.set(n.get() - 1));
    }
}

/// 42809 for a statement changing a materialized view outside REFRESH
/// (PostgreSQL's CheckValidResultRel).
fn check_target(plan: &ModifyPlan) -> Result<()> {
    let open = MATVIEW_MAINTENANCE.with(|n| n.get() > 0);
    if plan.rel.kind == RelKind::MatView && !open {
        return Err(SqlError::new(
            "42809",
            format!("cannot change materialized view \"{}\"", plan.rel.name),
        ));
    }
    Ok(())
}

/// execute -- runs a planned INSERT, UPDATE or DELETE with bound `params`.
pub fn execute(
    parts: &mut ExecParts,
    plan: &ModifyPlan,
    params: Vec<Datum>,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    check_target(plan)?;
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
    // A referential action under REPEATABLE READ reads the latest rows
    // (`ri_triggers`); it must not change one its transaction cannot see.
    let crosscheck = txn.crosscheck().map(|snapshot| VisibilityContext { snapshot, ..ctx.clone() });
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
            if let Some(crosscheck) = &crosscheck {
                if !satisfies_mvcc(&found.1, crosscheck)?.0 {
                    return Err(AccessError::SerializationFailure.into());
                }
            }
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
    let mut events = RowEvents::for_table(rel);
    for_each_match(parts, rel, scan, params, |engine, txn, host, (tid, tuple, _), interrupted| {
        if indexes.is_none() {
            indexes = Some(IndexSet::open(host, rel)?);
        }
        let mut new_row = None;
        let mut old_row = None;
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
                prepare_row(rel, plan.rules(), &mut row, host, RowSource::New)?;
                let formed = form_row(&desc, &types, &row);
                new_row = Some(row);
                old_row = Some((old, written_by_us(version, host)?));
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
            if let (Some(events), Some((old, own))) = (&mut events, &old_row) {
                events.updated((old, *own), new_version.tid, row, depth);
            }
            count += 1;
            emit_returning(returning, row, host, sink)?;
        }
        Ok(())
    })?;
    if let Some(events) = events {
        events.queue(parts.txn);
    }
    sink.complete(&format!("UPDATE {count}"))
}

/// Whether the version `tuple` was written by this transaction (a
/// foreign-key check queued for it then is moot once it is replaced).
fn written_by_us(tuple: &[u8], host: &ExecHost) -> Result<bool> {
    let xmin = sluice_access::common::htup::HeapTupleHeader::new(tuple)?.xmin();
    Ok(host.visibility().is_own(xmin))
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
    let mut events = RowEvents::for_table(rel);
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
        let depth = txn.savepoint_depth();
        host.env().stats.count_delete(rel.oid, depth);
        events.iter_mut().for_each(|e| e.deleted(row, depth));
        count += 1;
        emit_returning(returning, row, host, sink)?;
        Ok(())
    })?;
    if let Some(events) = events {
        events.queue(parts.txn);
    }
    sink.complete(&format!("DELETE {count}"))
}
