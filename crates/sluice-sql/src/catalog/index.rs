//! Index descriptors from `pg_index` and `pg_class`, and the key order the
//! B-tree uses for SQL types (PostgreSQL's relcache index lists and the btree
//! operator classes' comparison support functions).
//!
//! An index is a relation of kind 'i' (its own `pg_class` row, `pg_attribute`
//! rows named after the indexed columns, a file of its own) plus a
//! `pg_index` row saying which table columns it keys on, in which order, and
//! whether it is unique, primary, valid and ready. Like every other catalog
//! read, the list is read under the statement's snapshot, so an index created
//! or dropped by a committed transaction is maintained by every later
//! statement.

use super::relation::{oid_of, RelationDesc};
use super::rows::{int2_list, tuple_desc};
use super::scan_eq_as;
use super::schema::*;
use crate::error::Result;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::nbtree::{BTreeIndex, ColumnOrder, KeyOrder, BTREE_DEFAULT_FILLFACTOR};
use sluice_access::Engine;
use sluice_common::{Oid, RelFileLocator};
use sluice_types::compare::cmp_typed;
use sluice_types::storage::{from_storage, to_storage};
use sluice_types::{Datum, SqlType};
use std::cmp::Ordering;
use std::sync::Arc;

/// `pg_index.indoption` bit: the column is DESC.
pub const INDOPTION_DESC: i16 = 0x0001;
/// `pg_index.indoption` bit: NULLS FIRST.
pub const INDOPTION_NULLS_FIRST: i16 = 0x0002;

/// What statements need to know about one index of a table.
#[derive(Clone, Debug)]
pub struct IndexDesc {
    /// The index's `pg_class.oid`.
    pub oid: Oid,
    /// Its name.
    pub name: String,
    /// Where its file is.
    pub locator: RelFileLocator,
    /// The table it indexes.
    pub table: Oid,
    /// The table columns it keys on (1-based attnums).
    pub keys: Vec<i16>,
    /// ASC/DESC and NULLS FIRST/LAST per key.
    pub orders: Vec<ColumnOrder>,
    /// UNIQUE.
    pub unique: bool,
    /// PRIMARY KEY.
    pub primary: bool,
    /// The WHERE clause of a partial index, as SQL text.
    pub predicate: Option<String>,
    /// Leaf fillfactor.
    pub fillfactor: u8,
    /// `indisready`: writers add entries to it (false only while CREATE
    /// INDEX CONCURRENTLY builds it).
    pub ready: bool,
    /// `indisvalid`: queries may read it (false until CREATE INDEX
    /// CONCURRENTLY finishes, or for good if it failed).
    pub valid: bool,
}

impl IndexDesc {
    /// The key columns' types, from the table's columns.
    pub fn key_types(&self, table: &RelationDesc) -> Vec<SqlType> {
        self.keys.iter().map(|&k| table.columns[k as usize - 1].ty).collect()
    }

    /// The stored key values of the table row `row` (NULL as `None`);
    /// `key_types` as [`IndexDesc::key_types`] gives them.
    pub fn key_values(&self, key_types: &[SqlType], row: &[Datum]) -> Vec<Option<Vec<u8>>> {
        self.keys
            .iter()
            .zip(key_types)
            .map(|(&k, ty)| {
                let v = &row[k as usize - 1];
                (!v.is_null()).then(|| to_storage(*ty, v))
            })
            .collect()
    }

    /// The B-tree access method's view of the index.
    pub fn btree(&self, table: &RelationDesc) -> BTreeIndex {
        let types = self.key_types(table);
        BTreeIndex {
            locator: self.locator,
            desc: tuple_desc(&types),
            columns: self.orders.clone(),
            order: Arc::new(TypeOrder { types }),
            fillfactor: self.fillfactor,
        }
    }

    /// The key column names, in key order.
    pub fn key_names(&self, table: &RelationDesc) -> Vec<String> {
        self.keys.iter().map(|&k| table.columns[k as usize - 1].name.clone()).collect()
    }
}

/// The index option bits of one key.
pub fn indoption(order: ColumnOrder) -> i16 {
    let mut bits = 0;
    if order.descending {
        bits |= INDOPTION_DESC;
    }
    if order.nulls_first {
        bits |= INDOPTION_NULLS_FIRST;
    }
    bits
}

/// indexes_of -- the live indexes of table `table`, in creation (OID) order,
/// whether ready and valid or not (see [`IndexDesc::ready`]).
pub fn indexes_of(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    table: Oid,
) -> Result<Vec<IndexDesc>> {
    let rows = scan_eq_as(engine, db, &PG_INDEX, ctx, 1, &Datum::Oid(table), |_| true)?;
    let mut indexes = Vec::with_capacity(rows.len());
    for (_, row) in rows {
        let oid = oid_of(&row[0]);
        let Some(class) = super::relation::by_oid(engine, db, ctx, oid)? else { continue };
        let orders = int2_list(&row[18])
            .into_iter()
            .map(|bits| ColumnOrder {
                descending: bits & INDOPTION_DESC != 0,
                nulls_first: bits & INDOPTION_NULLS_FIRST != 0,
            })
            .collect();
        indexes.push(IndexDesc {
            oid,
            name: class.name,
            locator: class.locator,
            table,
            keys: int2_list(&row[15]),
            orders,
            unique: matches!(row[4], Datum::Bool(true)),
            primary: matches!(row[6], Datum::Bool(true)),
            predicate: row[20].as_str().map(str::to_string),
            fillfactor: class
                .options
                .as_deref()
                .map_or(BTREE_DEFAULT_FILLFACTOR, |o| super::relation::fillfactor_of(Some(o))),
            valid: matches!(row[10], Datum::Bool(true)),
            ready: matches!(row[12], Datum::Bool(true)),
        });
    }
    indexes.sort_by_key(|i| i.oid);
    Ok(indexes)
}

/// The order of SQL values in their stored form: the B-tree's comparison
/// support for every built-in type. Fixed-width integers compare without
/// decoding; everything else decodes and uses the type's comparison.
#[derive(Debug)]
pub struct TypeOrder {
    /// The key columns' types.
    pub types: Vec<SqlType>,
}

impl KeyOrder for TypeOrder {
    fn compare(&self, col: usize, a: &[u8], b: &[u8]) -> Ordering {
        let ty = self.types[col];
        match ty {
            SqlType::Int2 => int::<2>(a).cmp(&int::<2>(b)),
            SqlType::Int4 | SqlType::Date => int::<4>(a).cmp(&int::<4>(b)),
            SqlType::Int8 | SqlType::Timestamp | SqlType::TimestampTz => {
                int::<8>(a).cmp(&int::<8>(b))
            }
            SqlType::Oid => u32_of(a).cmp(&u32_of(b)),
            _ => match (from_storage(ty, a), from_storage(ty, b)) {
                (Ok(x), Ok(y)) => cmp_typed(ty, &x, &y),
                // Stored values always decode; order the impossible stably.
                _ => a.cmp(b),
            },
        }
    }
}

fn int<const N: usize>(bytes: &[u8]) -> i64 {
    let mut buf = [0u8; 8];
    buf[..N].copy_from_slice(&bytes[..N]);
    if bytes[N - 1] & 0x80 != 0 {
        buf[N..].fill(0xFF);
    }
    i64::from_le_bytes(buf)
}

fn u32_of(bytes: &[u8]) -> u32 {
    u32::from_le_bytes(bytes[..4].try_into().expect("4 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sluice_types::storage::to_storage;

    fn order(ty: SqlType, a: &Datum, b: &Datum) -> Ordering {
        TypeOrder { types: vec![ty] }.compare(0, &to_storage(ty, a), &to_storage(ty, b))
    }

    #[test]
    fn stored_values_compare_like_the_values() {
        assert_eq!(order(SqlType::Int4, &Datum::Int4(-5), &Datum::Int4(3)), Ordering::Less);
        assert_eq!(order(SqlType::Int2, &Datum::Int2(-1), &Datum::Int2(-2)), Ordering::Greater);
        assert_eq!(order(SqlType::Int8, &Datum::Int8(i64::MIN), &Datum::Int8(0)), Ordering::Less);
        let (a, b) = (Datum::Text("apple".into()), Datum::Text("banana".into()));
        assert_eq!(order(SqlType::Text, &a, &b), Ordering::Less);
        assert_eq!(
            order(SqlType::Float8, &Datum::Float8(2.5), &Datum::Float8(-1.0)),
            Ordering::Greater
        );
    }
}
