//! Referential integrity: the checks and actions of foreign keys
//! (PostgreSQL's `utils/adt/ri_triggers.c`).
//!
//! PostgreSQL enforces a foreign key with AFTER ROW triggers that run SQL
//! through SPI; sluice queues the same events (`xact/after_trigger.rs`) and
//! runs the same queries (`query.rs`, through `executor/spi.rs`), so the
//! rows they lock, the snapshots they read under and the errors they raise
//! are PostgreSQL's:
//!
//! * A row inserted into the referencing table, or updated there with a new
//!   key, is checked when its event fires: if that version is still live
//!   (a later change in the same transaction makes the check moot) and its
//!   key has no NULL (MATCH SIMPLE) or only NULLs (MATCH FULL, which fails
//!   on a mix), `SELECT 1 FROM ONLY pk x WHERE key = $1 FOR KEY SHARE OF x`
//!   must find the referenced row. The KEY SHARE lock keeps it from being
//!   deleted or having its key changed until this transaction ends, while
//!   updates of its other columns go on (they take FOR NO KEY UPDATE).
//! * A referenced row deleted, or updated with a new key, runs its action:
//!   NO ACTION and RESTRICT look for referencing rows (NO ACTION first asks
//!   whether another row with the old key exists by now, which satisfies
//!   them), CASCADE deletes them or updates their key, SET NULL and SET
//!   DEFAULT update them (SET DEFAULT then checks like NO ACTION, since the
//!   default may be the key just removed).
//!
//! Queries on the referenced side must see rows committed after a
//! REPEATABLE READ transaction's snapshot — a referencing row inserted
//! concurrently would otherwise go unnoticed — so they read under the
//! latest snapshot with the transaction snapshot as crosscheck: changing a
//! row the transaction snapshot cannot see fails with 40001. The check on
//! the referencing side reads under the transaction snapshot, as in
//! PostgreSQL; its FOR KEY SHARE lock fails with 40001 if the referenced
//! row was deleted concurrently.

pub(crate) mod query;

use super::context::ExecParts;
use super::spi;
use crate::catalog::foreign_key::{FkAction, ForeignKey};
use crate::catalog::relation::{by_oid, RelationDesc};
use crate::error::{Result, SqlError};
use crate::expr::session_context;
use crate::xact::after_trigger::{Event, RiEvent};
use crate::xact::TransactionState;
use query::KeyQuery;
use sluice_access::heap::heapam::heap_version_is_live;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_common::{ItemPointer, Oid};
use sluice_txn::IsolationLevel;
use sluice_types::Datum;
use std::collections::HashMap;
use std::sync::Arc;

/// The events a statement's row changes on one table queue (PostgreSQL's
/// AfterTriggerSaveEvent calls with the RI_FKey_*_check_required tests).
pub struct RowEvents {
    /// The table's foreign keys (it is the referencing table).
    outgoing: Vec<Arc<ForeignKey>>,
    /// The foreign keys referencing the table.
    incoming: Vec<Arc<ForeignKey>>,
    events: Vec<Event>,
}

impl RowEvents {
    /// The collector for changes to `rel`, if any foreign key involves it.
    pub fn for_table(rel: &RelationDesc) -> Option<RowEvents> {
        let keys = &rel.foreign_keys;
        if keys.outgoing.is_empty() && keys.incoming.is_empty() {
            return None;
        }
        let (outgoing, incoming) = (keys.outgoing.clone(), keys.incoming.clone());
        Some(RowEvents { outgoing, incoming, events: Vec::new() })
    }

    /// A row was inserted at `tid`.
    pub fn inserted(&mut self, tid: ItemPointer, row: &[Datum], depth: usize) {
        for key in &self.outgoing {
            let values = key_values(row, &key.columns);
            if needs_check(key, &values) {
                let ri = RiEvent::Check { tid, values };
                self.events.push(Event::new(key.clone(), ri, depth));
            }
        }
    }

    /// Row `old` was updated to `new` at `tid`; `old_is_own` says that this
    /// transaction wrote the old version, whose own check is now moot. The
    /// referenced side's events come first, as PostgreSQL's `RI_..._a_`
    /// triggers sort before its `RI_..._c_` ones.
    pub fn updated(
        &mut self,
        (old, old_is_own): (&[Datum], bool),
        tid: ItemPointer,
        new: &[Datum],
        depth: usize,
    ) {
        for key in &self.incoming {
            let (before, after) =
                (key_values(old, &key.ref_columns), key_values(new, &key.ref_columns));
            if before != after && !has_null(&before) {
                let ri = RiEvent::Referenced { old: before, new: Some(after) };
                self.events.push(Event::new(key.clone(), ri, depth));
            }
        }
        for key in &self.outgoing {
            let values = key_values(new, &key.columns);
            let changed = old_is_own || key_values(old, &key.columns) != values;
            if changed && needs_check(key, &values) {
                let ri = RiEvent::Check { tid, values };
                self.events.push(Event::new(key.clone(), ri, depth));
            }
        }
    }

    /// Row `old` was deleted.
    pub fn deleted(&mut self, old: &[Datum], depth: usize) {
        for key in &self.incoming {
            let before = key_values(old, &key.ref_columns);
            if !has_null(&before) {
                let ri = RiEvent::Referenced { old: before, new: None };
                self.events.push(Event::new(key.clone(), ri, depth));
            }
        }
    }

    /// Hands the events to the running query's level.
    pub fn queue(self, txn: &mut TransactionState) {
        txn.after_triggers.queue(self.events);
    }
}

/// The values of `columns` (attnums) of `row`, in key order.
fn key_values(row: &[Datum], columns: &[i16]) -> Vec<Datum> {
    columns.iter().map(|&a| row[a as usize - 1].clone()).collect()
}

fn has_null(values: &[Datum]) -> bool {
    values.iter().any(Datum::is_null)
}

/// Whether a referencing key needs looking up: not under MATCH SIMPLE with
/// a NULL, nor under MATCH FULL all NULL (a mix fails when the event runs).
fn needs_check(key: &ForeignKey, values: &[Datum]) -> bool {
    match key.match_full {
        false => !has_null(values),
        true => !values.iter().all(Datum::is_null),
    }
}

/// fire -- runs `events` in order (AfterTriggerEndQuery,
/// AfterTriggerFireDeferred, SET CONSTRAINTS ... IMMEDIATE).
pub fn fire(parts: &mut ExecParts, events: Vec<Event>) -> Result<()> {
    let mut tables = Tables::default();
    for event in events {
        (parts.env.interrupts)()?;
        match &event.ri {
            RiEvent::Check { tid, values } => {
                check_referencing(parts, &mut tables, &event.key, *tid, values)?
            }
            RiEvent::Referenced { old, new } => {
                on_referenced(parts, &mut tables, &event.key, old, new.as_deref())?
            }
        }
    }
    Ok(())
}

/// The tables events name, described once per firing, and the schema
/// names their queries are qualified with, read once per firing.
#[derive(Default)]
struct Tables {
    described: HashMap<Oid, Arc<RelationDesc>>,
    schemas: Option<HashMap<Oid, String>>,
}

impl Tables {
    fn get(&mut self, parts: &mut ExecParts, oid: Oid) -> Result<Arc<RelationDesc>> {
        if let Some(rel) = self.described.get(&oid) {
            return Ok(rel.clone());
        }
        let ctx = VisibilityContext::for_transaction(parts.txn, parts.engine.txns());
        let rel = by_oid(parts.engine, parts.env.database, &ctx, oid)?
            .ok_or_else(|| SqlError::internal(format!("cache lookup failed for relation {oid}")))?;
        let rel = Arc::new(rel);
        self.described.insert(oid, rel.clone());
        Ok(rel)
    }

    /// `rel`'s schema-qualified name.
    fn qualified(&mut self, parts: &mut ExecParts, rel: &RelationDesc) -> Result<String> {
        if self.schemas.is_none() {
            self.schemas = Some(query::schema_names(parts)?);
        }
        query::qualified_name(self.schemas.as_ref().expect("just read"), rel)
    }

    /// The referencing and the referenced table of `key`.
    fn both(
        &mut self,
        parts: &mut ExecParts,
        key: &ForeignKey,
    ) -> Result<(Arc<RelationDesc>, Arc<RelationDesc>)> {
        Ok((self.get(parts, key.table)?, self.get(parts, key.referenced)?))
    }
}

/// RI_FKey_check: the referenced row of a referencing row version.
fn check_referencing(
    parts: &mut ExecParts,
    tables: &mut Tables,
    key: &ForeignKey,
    tid: ItemPointer,
    values: &[Datum],
) -> Result<()> {
    let (fk, pk) = tables.both(parts, key)?;
    let ctx = VisibilityContext::for_transaction(parts.txn, parts.engine.txns());
    if !heap_version_is_live(parts.engine, &fk.heap(), tid, &ctx)? {
        return Ok(());
    }
    if has_null(values) {
        if key.match_full && !values.iter().all(Datum::is_null) {
            return Err(violation_on_referencing(key, &fk).with_detail(MATCH_FULL_MIXED));
        }
        return Ok(());
    }
    let query = KeyQuery::lock_rows(&tables.qualified(parts, &pk)?, &pk, &key.ref_columns);
    let types = key.columns.iter().map(|&a| fk.columns[a as usize - 1].ty).collect::<Vec<_>>();
    let found = spi::execute(parts, &query.0, values.to_vec(), &types, Some(1))?;
    if found.rows.is_empty() {
        let detail = key_detail(parts, &fk, &key.columns, values);
        return Err(violation_on_referencing(key, &fk)
            .with_detail(format!("Key {detail} is not present in table \"{}\".", pk.name)));
    }
    Ok(())
}

/// The referenced row with key `old` was deleted (`new` None) or got key
/// `new`: the key's action for it.
fn on_referenced(
    parts: &mut ExecParts,
    tables: &mut Tables,
    key: &ForeignKey,
    old: &[Datum],
    new: Option<&[Datum]>,
) -> Result<()> {
    let (fk, pk) = tables.both(parts, key)?;
    let action = if new.is_some() { key.on_update } else { key.on_delete };
    let (fk_name, pk_name) = (tables.qualified(parts, &fk)?, tables.qualified(parts, &pk)?);
    match action {
        FkAction::NoAction => restrict(parts, key, [(&fk, &fk_name), (&pk, &pk_name)], old, true),
        FkAction::Restrict => restrict(parts, key, [(&fk, &fk_name), (&pk, &pk_name)], old, false),
        FkAction::Cascade => {
            let (sql, params) = match new {
                None => (KeyQuery::delete(&fk_name, &fk, &key.columns), old.to_vec()),
                Some(new) => {
                    let sql = KeyQuery::update(&fk_name, &fk, &key.columns, query::SetTo::Params);
                    (sql, new.iter().chain(old).cloned().collect())
                }
            };
            let mut types = pk_types(&pk, key);
            if new.is_some() {
                types.extend(pk_types(&pk, key));
            }
            referenced_side_query(parts, &sql.0, params, &types, None).map(|_| ())
        }
        FkAction::SetNull | FkAction::SetDefault => {
            let to = match action {
                FkAction::SetNull => query::SetTo::Null,
                _ => query::SetTo::Default,
            };
            let sql = KeyQuery::update(&fk_name, &fk, &key.columns, to);
            referenced_side_query(parts, &sql.0, old.to_vec(), &pk_types(&pk, key), None)?;
            if action == FkAction::SetDefault {
                return restrict(parts, key, [(&fk, &fk_name), (&pk, &pk_name)], old, true);
            }
            Ok(())
        }
    }
}

/// ri_restrict: fails if a referencing row still has key `old` (each
/// table given with its qualified name). For NO
/// ACTION (`no_action`), another referenced row with that key, present by
/// now, satisfies the key (ri_Check_Pk_Match).
fn restrict(
    parts: &mut ExecParts,
    key: &ForeignKey,
    [(fk, fk_name), (pk, pk_name)]: [(&RelationDesc, &String); 2],
    old: &[Datum],
    no_action: bool,
) -> Result<()> {
    let types = pk_types(pk, key);
    if no_action {
        let same = KeyQuery::lock_rows(pk_name, pk, &key.ref_columns);
        if !referenced_side_query(parts, &same.0, old.to_vec(), &types, Some(1))?.rows.is_empty() {
            return Ok(());
        }
    }
    let referencing = KeyQuery::lock_rows(fk_name, fk, &key.columns);
    let found = referenced_side_query(parts, &referencing.0, old.to_vec(), &types, Some(1))?;
    if found.rows.is_empty() {
        return Ok(());
    }
    let detail = key_detail(parts, pk, &key.ref_columns, old);
    Err(SqlError::new(
        "23503",
        format!(
            "update or delete on table \"{}\" violates foreign key constraint \"{}\" on table \"{}\"",
            pk.name, key.name, fk.name
        ),
    )
    .with_detail(format!("Key {detail} is still referenced from table \"{}\".", fk.name)))
}

/// A query for the referenced side's events: under REPEATABLE READ it reads
/// the latest snapshot, with the transaction's as crosscheck (PostgreSQL's
/// detectNewRows).
fn referenced_side_query(
    parts: &mut ExecParts,
    sql: &str,
    params: Vec<Datum>,
    types: &[sluice_types::SqlType],
    limit: Option<usize>,
) -> Result<spi::SpiResult> {
    if parts.txn.isolation() == IsolationLevel::ReadCommitted {
        return spi::execute(parts, sql, params, types, limit);
    }
    let saved = parts.txn.use_latest_snapshot();
    let result = spi::execute(parts, sql, params, types, limit);
    parts.txn.restore_snapshot(saved);
    result
}

/// The referenced columns' types, in key order.
fn pk_types(pk: &RelationDesc, key: &ForeignKey) -> Vec<sluice_types::SqlType> {
    key.ref_columns.iter().map(|&a| pk.columns[a as usize - 1].ty).collect()
}

/// `(a, b)=(1, 2)`: the key's columns of `rel` and the values, as
/// PostgreSQL's DETAIL prints them.
pub(crate) fn key_detail(
    parts: &ExecParts,
    rel: &RelationDesc,
    columns: &[i16],
    values: &[Datum],
) -> String {
    let context = session_context(&*parts.env.settings, parts.env.txn_start);
    let names: Vec<&str> =
        columns.iter().map(|&a| rel.columns[a as usize - 1].name.as_str()).collect();
    let shown: Vec<String> = values
        .iter()
        .map(|v| sluice_types::io::output(v, &context).unwrap_or_else(|| "null".into()))
        .collect();
    format!("({})=({})", names.join(", "), shown.join(", "))
}

/// The DETAIL of a MATCH FULL key with some but not all columns NULL.
pub(crate) const MATCH_FULL_MIXED: &str =
    "MATCH FULL does not allow mixing of null and nonnull key values.";

/// The error of a referencing row whose key has no referenced row.
pub(crate) fn violation_on_referencing(key: &ForeignKey, fk: &RelationDesc) -> SqlError {
    SqlError::new(
        "23503",
        format!(
            "insert or update on table \"{}\" violates foreign key constraint \"{}\"",
            fk.name, key.name
        ),
    )
}
