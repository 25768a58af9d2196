//! Keeping a table's indexes current as rows are written (PostgreSQL's
//! `execIndexing.c`).
//!
//! INSERT, UPDATE and COPY open the table's index set once per statement;
//! after each new heap version is placed, every index whose predicate the row
//! satisfies gets an entry pointing at it. A unique index checks the key
//! first (`nbtree::btree_insert`): a live duplicate raises 23505 with the key
//! in the DETAIL; a duplicate whose inserter or deleter is still running
//! makes the writer wait for that transaction and look again, as PostgreSQL
//! does. An UPDATE that changes no column any index uses (key columns and
//! the columns of partial indexes' predicates) may be heap-only (HOT,
//! [`IndexSet::indexed_unchanged`]); it inserts no entries at all, since the
//! old version's entries lead to the new one along its HOT chain. Every
//! other UPDATE inserts entries for the new version in every index.

use super::host::ExecHost;
use crate::catalog::index::{indexes_of, IndexDesc};
use crate::catalog::relation::RelationDesc;
use crate::error::{Result, SqlError};
use crate::expr::{eval_qual, EvalHost, Expr};
use sluice_access::common::{deform_tuple, TupleDesc};
use sluice_access::heap::heapam::{heap_dirty_status, heap_dirty_version};
use sluice_access::heap::visibility::{DirtyStatus, VisibilityContext};
use sluice_access::heap::HeapRelation;
use sluice_access::nbtree::{btree_insert, btree_probe_unique, BTreeIndex, UniqueCheck};
use sluice_access::AccessError;
use sluice_common::{ItemPointer, Oid, Xid};
use sluice_txn::Transaction;
use sluice_types::storage::to_storage;
use sluice_types::{Datum, SqlType};

use crate::optimizer::indxpath::analyze_predicate;

/// render_key -- `(a, b)` and `(1, x)` for a DETAIL line about `values` of
/// `index`'s key.
pub fn render_key(
    index: &IndexDesc,
    table: &RelationDesc,
    values: &[Datum],
    host: &dyn EvalHost,
) -> (String, String) {
    let shown: Vec<String> = values
        .iter()
        .map(|v| sluice_types::io::output(v, host.context()).unwrap_or_else(|| "null".into()))
        .collect();
    (index.key_names(table).join(", "), shown.join(", "))
}

/// The columns the `indexes` key on or whose predicates read, ascending.
fn hot_blocking_columns(indexes: &[OpenIndex]) -> Vec<usize> {
    let mut columns: Vec<usize> = Vec::new();
    for index in indexes {
        columns.extend(index.desc.keys.iter().map(|&k| k as usize - 1));
        if let Some(p) = &index.predicate {
            collect_columns(p, &mut columns);
        }
    }
    columns.sort_unstable();
    columns.dedup();
    columns
}

/// Adds the columns `expr` reads to `out`.
fn collect_columns(expr: &Expr, out: &mut Vec<usize>) {
    if let Expr::Column { index, .. } = expr {
        out.push(*index);
    }
    for child in expr.children() {
        collect_columns(child, out);
    }
}

/// How an insert treats an equal key in a unique index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum UniqueMode {
    /// Wait for an undecided duplicate, fail on a live one (23505).
    Check,
    /// Fail on either at once (ON CONFLICT's arbiters).
    Speculative,
}

/// What an ON CONFLICT pre-check found in an arbiter index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conflict {
    /// A live row with the key, at this version.
    Live(ItemPointer),
    /// A row whose fate depends on this running transaction.
    InProgress(Xid),
}

/// The key of `row` in `index`: the values, and their stored forms (NULL
/// as `None`).
fn key_of(index: &OpenIndex, row: &[Datum]) -> (Vec<Datum>, Vec<Option<Vec<u8>>>) {
    let keys: Vec<Datum> = index.desc.keys.iter().map(|&k| row[k as usize - 1].clone()).collect();
    let stored = keys
        .iter()
        .zip(&index.key_types)
        .map(|(v, ty)| (!v.is_null()).then(|| to_storage(*ty, v)))
        .collect();
    (keys, stored)
}

/// One index, ready for inserts.
struct OpenIndex {
    desc: IndexDesc,
    btree: BTreeIndex,
    key_types: Vec<SqlType>,
    predicate: Option<Expr>,
}

/// A table's indexes, opened for one statement.
pub struct IndexSet {
    table: RelationDesc,
    indexes: Vec<OpenIndex>,
    /// The table's row layout, to compare stored values.
    desc: TupleDesc,
    /// The columns (0-based) some index keys on or tests in its predicate:
    /// an update changing one of them cannot be heap-only.
    hot_blocking: Vec<usize>,
}

impl IndexSet {
    /// open -- the indexes of `table` as the statement's snapshot sees
    /// them. Entries go only to those ready for inserts, but an index that
    /// CREATE INDEX CONCURRENTLY is still building blocks HOT updates of its
    /// columns already: its build indexes each HOT chain once, under its
    /// root, which is only right if the chain's members agree on them.
    pub fn open(host: &ExecHost, table: &RelationDesc) -> Result<IndexSet> {
        IndexSet::open_matching(host, table, |_| true)
    }

    /// open_one -- only `table`'s index `oid`, ready or not (for CREATE INDEX
    /// CONCURRENTLY's validation pass).
    pub fn open_one(host: &ExecHost, table: &RelationDesc, oid: Oid) -> Result<IndexSet> {
        IndexSet::open_matching(host, table, |index| index.oid == oid)
    }

    fn open_matching(
        host: &ExecHost,
        table: &RelationDesc,
        wanted: impl Fn(&IndexDesc) -> bool,
    ) -> Result<IndexSet> {
        let engine = host.engine();
        let db = host.database();
        let mut types = None;
        let indexes = indexes_of(engine, db, host.visibility(), table.oid)?
            .into_iter()
            .filter(|desc| wanted(desc))
            .map(|desc| {
                let predicate = match desc.predicate.as_deref() {
                    Some(p) => {
                        let types = match &types {
                            Some(types) => types,
                            None => types.insert(host.type_catalog()),
                        };
                        Some(analyze_predicate(table, p, types)?)
                    }
                    None => None,
                };
                Ok(OpenIndex {
                    btree: desc.btree(table),
                    key_types: desc.key_types(table),
                    desc,
                    predicate,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let hot_blocking = hot_blocking_columns(&indexes);
        Ok(IndexSet { table: table.clone(), indexes, desc: table.tuple_desc(), hot_blocking })
    }

    /// indexed_unchanged -- whether the stored tuples `old` and `new` hold
    /// the same bytes in every column an index uses, so that the update may
    /// be heap-only (PostgreSQL compares the same way, heap_attr_equals).
    /// Tuples that do not decode count as changed: a non-HOT update is
    /// always correct.
    pub fn indexed_unchanged(&self, old: &[u8], new: &[u8]) -> bool {
        let (Ok(old), Ok(new)) = (deform_tuple(&self.desc, old), deform_tuple(&self.desc, new))
        else {
            return false;
        };
        self.hot_blocking.iter().all(|&c| old.get(c) == new.get(c))
    }

    /// insert -- adds entries for `row`, stored at `tid`, to every index
    /// whose predicate it satisfies.
    pub fn insert(
        &self,
        txn: &Transaction,
        host: &mut ExecHost,
        row: &[Datum],
        tid: ItemPointer,
    ) -> Result<()> {
        for index in self.indexes.iter().filter(|i| i.desc.ready) {
            if self.covers(index, host, row)? {
                self.insert_one(index, txn, host, row, tid, UniqueMode::Check)?;
            }
        }
        Ok(())
    }

    /// The OIDs of the unique indexes ready for inserts (the arbiters of an
    /// ON CONFLICT without a conflict target).
    pub fn unique_oids(&self) -> Vec<Oid> {
        self.indexes.iter().filter(|i| i.desc.unique && i.desc.ready).map(|i| i.desc.oid).collect()
    }

    /// probe -- the first of the `arbiters` that already holds `row`'s key
    /// in a row that is live or may become live (the pre-check of an
    /// INSERT ... ON CONFLICT, PostgreSQL's ExecCheckIndexConstraints).
    pub fn probe(
        &self,
        txn: &Transaction,
        host: &mut ExecHost,
        row: &[Datum],
        arbiters: &[Oid],
    ) -> Result<Option<Conflict>> {
        for index in self.arbiters(arbiters) {
            if !self.covers(index, host, row)? {
                continue;
            }
            let (_, stored, heap, ctx) = self.unique_parts(index, host, txn, row);
            let values: Vec<Option<&[u8]>> = stored.iter().map(Option::as_deref).collect();
            let engine = host.engine();
            let interrupts = host.interrupts();
            let interrupted = move || interrupts().is_err();
            let mut last = None;
            let mut status = |t: ItemPointer| {
                let (status, version) = heap_dirty_version(engine, &heap, t, &ctx)?;
                last = Some(version);
                Ok(status)
            };
            let mut check =
                UniqueCheck { txn, interrupted: &interrupted, heap_status: &mut status };
            match btree_probe_unique(engine, &index.btree, &values, &mut check) {
                Ok(None) => {}
                Ok(Some(xid)) => return Ok(Some(Conflict::InProgress(xid))),
                Err(AccessError::UniqueViolation) => {
                    let tid = last.ok_or_else(|| SqlError::internal("conflict without a row"))?;
                    return Ok(Some(Conflict::Live(tid)));
                }
                Err(e) => return Err(e.into()),
            }
        }
        Ok(None)
    }

    /// insert_speculative -- adds `row`'s entries to the `arbiters` first,
    /// without waiting: false (and nothing more inserted) when one of them
    /// already holds the key in a live or undecided row, which the caller
    /// settles by killing its heap version and starting over. Then the
    /// other indexes get their entries as [`IndexSet::insert`] gives them.
    pub fn insert_speculative(
        &self,
        txn: &Transaction,
        host: &mut ExecHost,
        (row, tid): (&[Datum], ItemPointer),
        arbiters: &[Oid],
    ) -> Result<bool> {
        for index in self.arbiters(arbiters) {
            if !self.covers(index, host, row)? {
                continue;
            }
            match self.insert_one(index, txn, host, row, tid, UniqueMode::Speculative) {
                Ok(()) => {}
                Err(e) if e.code == "23505" => return Ok(false),
                Err(e) => return Err(e),
            }
        }
        for index in self.indexes.iter().filter(|i| i.desc.ready && !arbiters.contains(&i.desc.oid))
        {
            if self.covers(index, host, row)? {
                self.insert_one(index, txn, host, row, tid, UniqueMode::Check)?;
            }
        }
        Ok(true)
    }

    /// The open indexes among `oids` that take inserts.
    fn arbiters<'s>(&'s self, oids: &'s [Oid]) -> impl Iterator<Item = &'s OpenIndex> {
        self.indexes.iter().filter(move |i| i.desc.ready && oids.contains(&i.desc.oid))
    }

    /// Whether `row` belongs in `index` (a partial index's predicate holds).
    fn covers(&self, index: &OpenIndex, host: &mut ExecHost, row: &[Datum]) -> Result<bool> {
        match &index.predicate {
            Some(p) => eval_qual(p, row, host),
            None => Ok(true),
        }
    }

    /// What a unique check of `index` for `row` starts from: the key (its
    /// values and stored forms), the table's heap, and the visibility that
    /// judges duplicates ([`IndexSet::dirty_view`]).
    fn unique_parts<'v>(
        &self,
        index: &OpenIndex,
        host: &ExecHost<'v, '_>,
        txn: &Transaction,
        row: &[Datum],
    ) -> (Vec<Datum>, Vec<Option<Vec<u8>>>, HeapRelation, VisibilityContext<'v>) {
        let (keys, stored) = key_of(index, row);
        (keys, stored, self.table.heap(), self.dirty_view(host, txn))
    }

    /// The visibility a unique check judges rows by: the statement's, but
    /// with the transaction's xid as its own (the snapshot may predate the
    /// xid its first write took; our own rows must still count as ours).
    fn dirty_view<'v>(&self, host: &ExecHost<'v, '_>, txn: &Transaction) -> VisibilityContext<'v> {
        let mut ctx = host.visibility().clone();
        ctx.snapshot.own_xid = txn.xid();
        ctx
    }

    fn insert_one(
        &self,
        index: &OpenIndex,
        txn: &Transaction,
        host: &mut ExecHost,
        row: &[Datum],
        tid: ItemPointer,
        mode: UniqueMode,
    ) -> Result<()> {
        let (keys, stored, heap, ctx) = self.unique_parts(index, host, txn, row);
        let values: Vec<Option<&[u8]>> = stored.iter().map(Option::as_deref).collect();
        let engine = host.engine();
        let interrupts = host.interrupts();
        let interrupted = move || interrupts().is_err();
        let mut probe = |t: ItemPointer| {
            let status = heap_dirty_status(engine, &heap, t, &ctx)?;
            Ok(match (status, mode) {
                // A speculative insertion waits for nobody: an undecided
                // duplicate is a conflict to settle from the start.
                (DirtyStatus::InProgress(_), UniqueMode::Speculative) => DirtyStatus::Live,
                (status, _) => status,
            })
        };
        let unique = index.desc.unique.then_some(UniqueCheck {
            txn,
            interrupted: &interrupted,
            heap_status: &mut probe,
        });
        match btree_insert(engine, &index.btree, &values, tid, unique) {
            Ok(()) => Ok(()),
            Err(AccessError::UniqueViolation) => {
                let (columns, shown) = render_key(&index.desc, &self.table, &keys, host);
                Err(SqlError::new(
                    "23505",
                    format!(
                        "duplicate key value violates unique constraint \"{}\"",
                        index.desc.name
                    ),
                )
                .with_detail(format!("Key ({columns})=({shown}) already exists.")))
            }
            Err(AccessError::IndexRowTooBig { size, max }) => Err(SqlError::new(
                "54000",
                format!(
                    "index row size {size} exceeds btree version 4 maximum {max} for index \"{}\"",
                    index.desc.name
                ),
            )
            .with_detail(format!(
                "Index row references tuple ({},{}) in relation \"{}\".",
                tid.block, tid.offset, self.table.name
            ))
            .with_hint(
                "Values larger than 1/3 of a buffer page cannot be indexed.\n\
                 Consider a function index of an MD5 hash of the value, or use full text indexing.",
            )),
            Err(e) => Err(e.into()),
        }
    }
}
