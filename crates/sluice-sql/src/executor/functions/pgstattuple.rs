//! The `pgstattuple` extension's functions (PostgreSQL's
//! `contrib/pgstattuple`): `pgstattuple(regclass)`, tuple-level statistics
//! of a table, and `pgstatindex(regclass)`, page-level statistics of a
//! B-tree index. They exist only while the extension is installed
//! (`commands/extension.rs`).
//!
//! # How the numbers are found
//!
//! Both read every page of the relation, as PostgreSQL's do — they are exact,
//! and as expensive as a full scan.
//!
//! * `pgstattuple`: every tuple with storage (`LP_NORMAL`) counts as live if
//!   its latest state is, or may become, a row (PostgreSQL judges with a
//!   dirty snapshot: in-progress inserts and deletes count as live), as dead
//!   otherwise; free space is each page's free space for a new heap tuple.
//!   sluice's tuple header is larger than PostgreSQL's (64-bit xids), so
//!   `tuple_len`, `free_space` and the percentages differ from PostgreSQL's
//!   for the same rows; counts and `table_len` agree.
//! * `pgstatindex`: the metapage gives version, level and root; each other
//!   page is deleted, half-dead ("empty"), leaf or internal. Leaf density is
//!   the used share of the leaves' usable space; fragmentation the share of
//!   leaves whose right sibling lies at a lower block.
//!
//! # Locking
//!
//! The caller holds ACCESS SHARE on the relation (it is read like a scan);
//! pages are read one at a time under shared content locks, so the result
//! is not a consistent snapshot of a relation being written — as in
//! PostgreSQL.

use super::super::host::ExecHost;
use crate::catalog::extension;
use crate::catalog::relation::RelationDesc;
use crate::catalog::schema::RelKind;
use crate::error::{Result, SqlError};
use crate::executor::context::ExecParts;
use crate::executor::lmgr::lock_relation_in;
use crate::expr::StatField;
use sluice_access::heap::visibility::{satisfies_dirty, DirtyStatus, VisibilityContext};
use sluice_access::nbtree::page::{Meta, Opaque};
use sluice_access::Engine;
use sluice_common::{ForkNumber, BLCKSZ};
use sluice_storage::buffer::BufferTag;
use sluice_storage::page::HEADER_SIZE;
use sluice_txn::lmgr::LockMode;
use sluice_types::Datum;

/// Rounds to two decimals: PostgreSQL prints the ratios with `%.2f` into
/// the result row.
fn two_decimals(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        two_decimals(100.0 * part as f64 / whole as f64)
    }
}

/// pgstattuple -- the row of `pgstattuple(rel)`.
pub fn pgstattuple(
    engine: &Engine,
    rel: &RelationDesc,
    ctx: &VisibilityContext,
) -> Result<Vec<Datum>> {
    if !rel.kind.has_heap() {
        return Err(SqlError::unsupported(format!(
            "pgstattuple of \"{}\" is not supported: only tables are",
            rel.name
        )));
    }
    let pool = engine.pool();
    let nblocks = pool.nblocks(rel.locator, ForkNumber::Main)?;
    let (mut live, mut live_len, mut dead, mut dead_len, mut free) = (0u64, 0u64, 0u64, 0u64, 0u64);
    for block in 0..nblocks {
        let buffer = pool.read_buffer(BufferTag::new(rel.locator, ForkNumber::Main, block))?;
        let page = buffer.read();
        if page.is_new() {
            continue;
        }
        for off in 1..=page.max_offset() {
            if !page.item_id(off).is_normal() {
                continue;
            }
            let Some(tuple) = page.item(off) else { continue };
            if satisfies_dirty(tuple, ctx)? == DirtyStatus::Dead {
                dead += 1;
                dead_len += tuple.len() as u64;
            } else {
                live += 1;
                live_len += tuple.len() as u64;
            }
        }
        free += page.heap_free_space() as u64;
    }
    let table_len = nblocks as u64 * BLCKSZ as u64;
    Ok(vec![
        Datum::Int8(table_len as i64),
        Datum::Int8(live as i64),
        Datum::Int8(live_len as i64),
        Datum::Float8(percent(live_len, table_len)),
        Datum::Int8(dead as i64),
        Datum::Int8(dead_len as i64),
        Datum::Float8(percent(dead_len, table_len)),
        Datum::Int8(free as i64),
        Datum::Float8(percent(free, table_len)),
    ])
}

/// What a pass over an index's pages counted.
#[derive(Default)]
struct IndexCounts {
    internal: u64,
    leaf: u64,
    empty: u64,
    deleted: u64,
    /// Usable bytes of the leaves.
    max_avail: u64,
    /// Free bytes on the leaves.
    free_space: u64,
    /// Leaves whose right sibling is at a lower block.
    fragments: u64,
}

/// pgstatindex -- the row of `pgstatindex(rel)`.
pub fn pgstatindex(engine: &Engine, rel: &RelationDesc) -> Result<Vec<Datum>> {
    if rel.kind != RelKind::Index {
        return Err(SqlError::new(
            "42809",
            format!("relation \"{}\" is not a btree index", rel.name),
        ));
    }
    let pool = engine.pool();
    let read = |block: u32| pool.read_buffer(BufferTag::new(rel.locator, ForkNumber::Main, block));
    let meta = {
        let buffer = read(0)?;
        let page = buffer.read();
        Meta::of(&page)?
    };
    let nblocks = pool.nblocks(rel.locator, ForkNumber::Main)?;
    let mut c = IndexCounts::default();
    for block in 1..nblocks {
        let buffer = read(block)?;
        let page = buffer.read();
        if page.is_new() {
            c.empty += 1;
            continue;
        }
        let opaque = Opaque::of(&page);
        if opaque.is_deleted() {
            c.deleted += 1;
        } else if opaque.is_half_dead() {
            c.empty += 1;
        } else if opaque.is_leaf() {
            c.leaf += 1;
            c.max_avail += (page.special() - HEADER_SIZE) as u64;
            c.free_space += page.free_space() as u64;
            if !opaque.is_rightmost() && opaque.next < block {
                c.fragments += 1;
            }
        } else {
            c.internal += 1;
        }
    }
    let pages = 1 + c.internal + c.leaf + c.empty + c.deleted;
    let density = if c.max_avail > 0 {
        two_decimals(100.0 - c.free_space as f64 / c.max_avail as f64 * 100.0)
    } else {
        f64::NAN
    };
    let fragmentation = if c.leaf > 0 {
        two_decimals(c.fragments as f64 / c.leaf as f64 * 100.0)
    } else {
        f64::NAN
    };
    Ok(vec![
        Datum::Int4(sluice_access::nbtree::page::BTREE_VERSION as i32),
        Datum::Int4(meta.level as i32),
        Datum::Int8((pages * BLCKSZ as u64) as i64),
        Datum::Int8(meta.root as i64),
        Datum::Int8(c.internal as i64),
        Datum::Int8(c.leaf as i64),
        Datum::Int8(c.empty as i64),
        Datum::Int8(c.deleted as i64),
        Datum::Float8(density),
        Datum::Float8(fragmentation),
    ])
}

/// stat_row -- the row of `function` for `rel`.
pub(crate) fn stat_row(
    engine: &Engine,
    function: StatField,
    rel: &RelationDesc,
    ctx: &VisibilityContext,
) -> Result<Vec<Datum>> {
    match function {
        StatField::Tuple(_) => pgstattuple(engine, rel, ctx),
        StatField::Index(_) => pgstatindex(engine, rel),
    }
}

/// rows_for -- the rows of `function` for the relation `value` names (an
/// OID or a name; none for NULL or an unknown OID), computed while the
/// statement is planned. The rows show one moment, so the plan is not
/// kept; the relation is locked like a scan's, so it cannot be dropped or
/// rewritten while it is read.
pub fn rows_for(
    parts: &mut ExecParts,
    function: StatField,
    value: &Datum,
) -> Result<Vec<Vec<Datum>>> {
    parts.plan_log.reads_live_state = true;
    let ctx = VisibilityContext::for_transaction(parts.txn, parts.engine.txns());
    let path = parts.env.search_path(&ctx)?;
    let Some(rel) = super::resolve_in(parts.engine, parts.env.database, &ctx, &path, value)? else {
        return Ok(Vec::new());
    };
    lock_relation_in(parts, rel.oid, LockMode::AccessShare)?;
    let ctx = VisibilityContext::for_transaction(parts.txn, parts.engine.txns());
    Ok(vec![stat_row(parts.engine, function, &rel, &ctx)?])
}

/// column -- `(f(rel)).column` for the call `field` names, evaluated with
/// `args` (the relation as a name or OID).
pub(super) fn column(host: &mut ExecHost, field: StatField, args: &[Datum]) -> Result<Datum> {
    let engine = host.env().engine.clone();
    let db = host.env().database;
    if !extension::installed(&engine, db, host.visibility(), extension::PGSTATTUPLE)? {
        return Err(SqlError::new(
            "42883",
            format!("function {}(regclass) does not exist", field.name()),
        )
        .with_hint(
            "No function matches the given name and argument types. You might need to add \
             explicit type casts.",
        ));
    }
    let Some(rel) = super::resolve(host, args)? else { return Ok(Datum::Null) };
    let row = stat_row(&engine, field, &rel, host.visibility())?;
    Ok(row.into_iter().nth(field.column()).unwrap_or(Datum::Null))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_are_rounded_as_postgres_prints_them() {
        assert_eq!(percent(1, 3), 33.33);
        assert_eq!(percent(2, 3), 66.67);
        assert_eq!(percent(5, 0), 0.0);
        assert_eq!(two_decimals(89.8349), 89.83);
    }
}
