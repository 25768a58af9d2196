//! Running INSERT (planned in `optimizer/modify/insert.rs`): row by row with defaults, NOT NULL checks, index entries and
//! ON CONFLICT (`executor/onconflict.rs`).

use super::*;
use crate::optimizer::modify::onconflict::OnConflict;

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
    let on_conflict = on_conflict
        .map(|c| Speculation::new(engine, (rel, &heap, plan.rules()), &indexes, &ctx, c));
    let mut events = RowEvents::for_table(rel);
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
        prepare_row(rel, plan.rules(), &mut row, &mut host, RowSource::New)?;
        let depth = txn.savepoint_depth();
        let stored = match &on_conflict {
            None => {
                let tid = heap_insert(engine, &heap, txn, &form_row(&desc, &types, &row))?;
                host.env().stats.count_insert(rel.oid, depth, 1);
                indexes.insert(txn, &mut host, &row, tid)?;
                events.iter_mut().for_each(|e| e.inserted(tid, &row, depth));
                row
            }
            Some(speculation) => match speculation.insert(txn, &mut host, &row)? {
                Proposed::Inserted(tid) => {
                    events.iter_mut().for_each(|e| e.inserted(tid, &row, depth));
                    row
                }
                Proposed::Updated(u) => {
                    let old = (u.old.as_slice(), u.old_is_own);
                    events.iter_mut().for_each(|e| e.updated(old, u.tid, &u.new, depth));
                    u.new
                }
                Proposed::Skipped => continue,
            },
        };
        count += 1;
        emit_returning(returning, &stored, &mut host, sink)?;
    }
    drop(host);
    if let Some(events) = events {
        events.queue(txn);
    }
    sink.complete(&format!("INSERT 0 {count}"))
}
