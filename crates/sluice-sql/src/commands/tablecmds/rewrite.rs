//! Rewriting a table for ALTER TABLE (PostgreSQL's ATRewriteTable in
//! `tablecmds.c`): every row gets a new form in a new file.
//!
//! # The idea
//!
//! A change to how rows are stored — a column's type — cannot be made in
//! place: each row must be read in the old layout and written in the new.
//! The table gets a new relfilenode (TRUNCATE's `set_new_relfilenode`, so
//! the old file stays until commit and comes back on abort), its indexes
//! get new, empty ones, and each row of the old file is transformed and
//! inserted into the new one with its index entries, the table's CHECK
//! and NOT NULL constraints and generated columns applied to it as to any
//! new row.
//!
//! # Snapshots
//!
//! As in PostgreSQL, the rows are read with the latest snapshot, not the
//! statement's: the ACCESS EXCLUSIVE lock is held, so every writer before
//! it has finished, and rows a transaction committed between the
//! statement's snapshot and the lock must not be lost. The new rows are
//! written by the altering transaction: a REPEATABLE READ snapshot taken
//! before the rewrite sees the table empty afterwards — PostgreSQL's
//! documented caveat for table rewrites, shared here.
//!
//! # Locking
//!
//! The caller holds ACCESS EXCLUSIVE on the table.

use super::RelationDesc;
use crate::catalog::rows::{deform_row, form_row};
use crate::catalog::statistic::latest_view;
use crate::commands::truncate::{reset_indexes, set_new_relfilenode};
use crate::error::Result;
use crate::executor::constraints::{prepare_row, RowSource};
use crate::executor::context::BackendContext;
use crate::executor::host::ExecHost;
use crate::executor::indexing::IndexSet;
use crate::expr::EvalHost;
use crate::optimizer::constraint::{table_checks, table_generated, NewRowRules};
use sluice_access::heap::heapam::heap_insert;
use sluice_access::heap::scan::HeapScan;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_common::ForkNumber;
use sluice_types::Datum;

/// An error without a position (see its callers).
pub(super) fn unplaced(mut error: crate::error::SqlError) -> crate::error::SqlError {
    error.position = None;
    error
}

/// How a row of the old layout becomes one of the new.
pub(super) type Transform<'a> = dyn FnMut(Vec<Datum>, &mut ExecHost) -> Result<Vec<Datum>> + 'a;

/// rewrite_table -- writes every row of `old` (the table as it was
/// stored) into a new file for the table as its catalogs now describe it,
/// each row passed through `transform`.
pub(super) fn rewrite_table(
    cx: &mut dyn BackendContext,
    old: &RelationDesc,
    transform: &mut Transform,
) -> Result<()> {
    set_new_relfilenode(cx, &old.id(), |engine, locator| {
        engine.create_relation_fork(locator, ForkNumber::Main).map_err(Into::into)
    })?;
    reset_indexes(cx, &old.id())?;
    let new = super::describe(cx, old.oid)?;
    let types = cx.type_catalog()?;
    // The stored expressions are analysed again for the new types; an
    // error there has no position in this statement.
    let (checks, generated) = (table_checks(&new, &types), table_generated(&new, &types));
    let (checks, generated) = (checks.map_err(unplaced)?, generated.map_err(unplaced)?);
    let rules = NewRowRules { checks: &checks, generated: &generated, view_checks: &[] };
    let (old_desc, old_types) = (old.tuple_desc(), old.types());
    let (new_desc, new_types, new_heap) = (new.tuple_desc(), new.types(), new.heap());
    let mut parts = cx.parts()?;
    let engine = parts.engine;
    let ctx = VisibilityContext::for_transaction(parts.txn, engine.txns());
    let mut host = ExecHost::new(&mut parts.env, Vec::new(), ctx);
    let indexes = IndexSet::open(&host, &new)?;
    let mut scan = HeapScan::begin(engine, &old.heap(), latest_view(parts.txn, engine.txns()))?;
    while let Some((_, tuple)) = scan.next_tuple()? {
        host.check_interrupts()?;
        let row = deform_row(&old_desc, &old_types, tuple)?;
        let mut row = transform(row, &mut host)?;
        prepare_row(&new, rules, &mut row, &mut host, RowSource::Rewritten)?;
        let tid =
            heap_insert(engine, &new_heap, parts.txn, &form_row(&new_desc, &new_types, &row))?;
        indexes.insert(parts.txn, &mut host, &row, tid)?;
    }
    Ok(())
}
