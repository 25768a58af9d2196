//! Planner statistics: the `pg_statistic` catalog, how ANALYZE writes it,
//! how the planner reads it, and the `pg_stats` view over it (PostgreSQL's
//! `catalog/pg_statistic.h`, `update_attstats` in `commands/analyze.c`,
//! `get_attstatsslot` in `utils/cache/lsyscache.c` and `system_views.sql`).
//!
//! # The catalog
//!
//! One row per analysed column, keyed by `(starelid, staattnum, stainherit)`
//! (`stainherit` is always false: sluice has no inheritance). Besides the
//! three scalars — NULL fraction, average stored width, number of distinct
//! values — a row has five *slots*; each slot is a kind number, the operator
//! and collation the contents were computed with, an array of numbers and an
//! array of values. ANALYZE fills, in this order and without gaps, the slots
//! of kind 1 (most common values; their frequencies are the numbers), 2
//! (histogram bounds) and 3 (correlation, a single number). Kinds 4 and 5
//! (array-element statistics) exist in PostgreSQL; sluice does not compute
//! them yet, and the `pg_stats` columns showing them are NULL.
//!
//! # Values are stored as text
//!
//! PostgreSQL's `stavaluesN` columns are `anyarray`: an array whose element
//! type is the column's, whatever that is. sluice has no `anyarray`, so the
//! slots hold `text[]`: each value's text form, printed with fixed settings
//! (`TimeZone` UTC, floats' shortest exact text, DateStyle ISO — the only one
//! sluice has) so that [`load`] reads back exactly the value that was stored,
//! whatever the reader's settings. `pg_stats` re-prints the values in the
//! session's settings, so it shows what PostgreSQL shows (a `timestamptz`
//! appears in the session's time zone); a direct `SELECT stavalues1 FROM
//! pg_statistic` shows the stored UTC text. The operator stored with each
//! slot is checked by [`load`] against the column type's own, so statistics
//! computed for a different type are ignored rather than misread.
//!
//! # Concurrency
//!
//! Rows change only under the ShareUpdateExclusiveLock ANALYZE holds on the
//! table, which it also conflicts with, so two writers of one table's rows
//! never overlap; a writer replaces the rows it finds through
//! [`latest_view`] — every committed change, not only those its statement
//! snapshot sees — because another ANALYZE may have committed new rows while
//! this one waited for the lock. Readers (the planner, `pg_stats`) see the
//! rows under their own MVCC snapshot, so an ANALYZE that rolls back leaves
//! the previous statistics in place.

use super::relation::oid_of;
use super::schema::{PG_ATTRIBUTE, PG_CLASS, PG_NAMESPACE, PG_STATISTIC};
use super::{insert, replace, scan_as, scan_eq_as};
use crate::error::{Result, SqlError};
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::Engine;
use sluice_common::Oid;
use sluice_txn::{Csn, Transaction, TransactionManager};
use sluice_types::{io, Context, Datum, ElemType, SqlType};
use std::collections::HashMap;

/// Slot kind: most common values, with their frequencies as numbers.
pub const STATISTIC_KIND_MCV: i16 = 1;
/// Slot kind: histogram bounds of the values not among the most common.
pub const STATISTIC_KIND_HISTOGRAM: i16 = 2;
/// Slot kind: correlation of physical and logical order, one number.
pub const STATISTIC_KIND_CORRELATION: i16 = 3;
/// Slot kind: most common array elements (not computed by sluice yet).
pub const STATISTIC_KIND_MCELEM: i16 = 4;
/// Slot kind: histogram of distinct-element counts (not computed yet).
pub const STATISTIC_KIND_DECHIST: i16 = 5;

/// Slots per row.
const NUM_SLOTS: usize = 5;

/// Column positions in a `pg_statistic` row.
const STARELID: usize = 0;
const STAATTNUM: usize = 1;
const STAINHERIT: usize = 2;
const STANULLFRAC: usize = 3;
const STAWIDTH: usize = 4;
const STADISTINCT: usize = 5;
const STAKIND: usize = 6;
const STAOP: usize = STAKIND + NUM_SLOTS;
const STACOLL: usize = STAOP + NUM_SLOTS;
const STANUMBERS: usize = STACOLL + NUM_SLOTS;
const STAVALUES: usize = STANUMBERS + NUM_SLOTS;

/// PostgreSQL's default collation (`pg_collation` "default").
const DEFAULT_COLLATION_OID: Oid = 100;
/// The "C" collation, which `name` columns use.
const C_COLLATION_OID: Oid = 950;

/// What ANALYZE found out about one column, and what the planner reads back.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnStatistics {
    /// Fraction of the rows whose value is NULL (`stanullfrac`).
    pub null_frac: f32,
    /// Average stored width of the non-NULL values, in bytes (`stawidth`).
    pub width: i32,
    /// Distinct non-NULL values (`stadistinct`): above zero a count; below
    /// zero minus a fraction of the rows, for columns whose distinct values
    /// grow with the table (-1: every value distinct); zero when unknown.
    pub n_distinct: f32,
    /// The most common values and their frequencies, most common first.
    pub mcv: Option<MostCommonValues>,
    /// Bounds dividing the other values into equally populated buckets,
    /// ascending.
    pub histogram: Option<Vec<Datum>>,
    /// Correlation between the values' order and their rows' physical
    /// order, -1 to 1.
    pub correlation: Option<f32>,
}

/// A most-common-values list.
#[derive(Clone, Debug, PartialEq)]
pub struct MostCommonValues {
    /// The values, most common first.
    pub values: Vec<Datum>,
    /// Each value's fraction of all rows (NULLs included), same order.
    pub freqs: Vec<f32>,
}

/// One slot of a `pg_statistic` row.
#[derive(Debug)]
struct Slot {
    kind: i16,
    op: Oid,
    coll: Oid,
    numbers: Option<Vec<f32>>,
    values: Option<Vec<Datum>>,
}

/// sort_operators -- the `=` and `<` operators (PostgreSQL's OIDs) of the
/// default B-tree ordering of `ty`, which the slots record. `varchar` uses
/// `text`'s, arrays `anyarray`'s, as in PostgreSQL.
pub fn sort_operators(ty: SqlType) -> (Oid, Oid) {
    match ty {
        SqlType::Bool => (91, 58),
        SqlType::Char => (92, 631),
        SqlType::Bytea => (1955, 1957),
        SqlType::Name => (93, 660),
        SqlType::Int8 => (410, 412),
        SqlType::Int2 => (94, 95),
        SqlType::Int4 => (96, 97),
        SqlType::Text | SqlType::Varchar | SqlType::Unknown => (98, 664),
        SqlType::Oid | SqlType::Reg(_) => (607, 609),
        SqlType::Float4 => (620, 622),
        SqlType::Float8 => (670, 672),
        SqlType::Bpchar => (1054, 1058),
        SqlType::Date => (1093, 1095),
        SqlType::Time => (1108, 1110),
        SqlType::Timestamp => (2060, 2062),
        SqlType::TimestampTz => (1320, 1322),
        SqlType::Interval => (1330, 1332),
        SqlType::Numeric => (1752, 1754),
        SqlType::Uuid => (2972, 2974),
        SqlType::Jsonb => (3240, 3242),
        SqlType::PgLsn => (3222, 3224),
        // `xid` has equality but no order in PostgreSQL.
        SqlType::Xid => (352, 0),
        SqlType::Xid8 => (5068, 5073),
        SqlType::Array(_) => (1070, 1072),
        // `json` has neither equality nor order in PostgreSQL.
        SqlType::Json => (0, 0),
        SqlType::Record(_) => (2988, 2990),
        SqlType::Enum(_) => (3516, 3518),
        SqlType::Domain(d) => sort_operators(d.base()),
    }
}

/// collation_of -- the collation a column of `ty` gets by default
/// (`attcollid`, which the slots record): the database default for the
/// string types, "C" for `name`, none for the others.
pub fn collation_of(ty: SqlType) -> Oid {
    match ty {
        SqlType::Text | SqlType::Varchar | SqlType::Bpchar => DEFAULT_COLLATION_OID,
        SqlType::Name => C_COLLATION_OID,
        _ => 0,
    }
}

/// latest_view -- how statistics writers read the rows they replace: every
/// committed change (PostgreSQL reads catalogs through a fresh catalog
/// snapshot), plus the transaction's own earlier commands. Only valid for
/// rows the caller has locked against other writers (see the module doc).
pub fn latest_view<'a>(
    txn: &mut Transaction,
    mgr: &'a TransactionManager,
) -> VisibilityContext<'a> {
    let mut ctx = VisibilityContext::for_transaction(txn, mgr);
    // A CSN above every commit's: whatever has committed is visible.
    ctx.snapshot.csn = Csn::LATEST;
    ctx
}

/// The canonical settings values are printed with for storage.
fn storage_context() -> Context {
    Context::default()
}

/// slots -- the slots of `stats` for a column of `ty`, in PostgreSQL's order.
fn slots(ty: SqlType, stats: &ColumnStatistics) -> Vec<Slot> {
    let (eq, lt) = sort_operators(ty);
    let coll = collation_of(ty);
    let mut slots = Vec::new();
    if let Some(mcv) = &stats.mcv {
        slots.push(Slot {
            kind: STATISTIC_KIND_MCV,
            op: eq,
            coll,
            numbers: Some(mcv.freqs.clone()),
            values: Some(mcv.values.clone()),
        });
    }
    if let Some(bounds) = &stats.histogram {
        let values = Some(bounds.clone());
        slots.push(Slot { kind: STATISTIC_KIND_HISTOGRAM, op: lt, coll, numbers: None, values });
    }
    if let Some(c) = stats.correlation {
        let numbers = Some(vec![c]);
        slots.push(Slot { kind: STATISTIC_KIND_CORRELATION, op: lt, coll, numbers, values: None });
    }
    slots
}

/// The `real[]` datum of `numbers`.
fn numbers_datum(numbers: &[f32]) -> Datum {
    let elem = ElemType::new(SqlType::Float4).expect("real[] exists");
    Datum::array(elem, numbers.iter().map(|n| Datum::Float4(*n)).collect())
}

/// The `text[]` datum of `values`' text forms, printed under `ctx`.
fn values_datum(values: &[Datum], ctx: &Context) -> Datum {
    let elem = ElemType::new(SqlType::Text).expect("text[] exists");
    let texts = values.iter().map(|v| io::output(v, ctx).map_or(Datum::Null, Datum::Text));
    Datum::array(elem, texts.collect())
}

/// statistic_row -- the `pg_statistic` row of column `attnum` (of type `ty`)
/// of relation `relid`.
fn statistic_row(relid: Oid, attnum: i16, ty: SqlType, stats: &ColumnStatistics) -> Vec<Datum> {
    let mut row = vec![
        Datum::Oid(relid),
        Datum::Int2(attnum),
        Datum::Bool(false),
        Datum::Float4(stats.null_frac),
        Datum::Int4(stats.width),
        Datum::Float4(stats.n_distinct),
    ];
    let slots = slots(ty, stats);
    let slot = |i: usize| slots.get(i);
    row.extend((0..NUM_SLOTS).map(|i| Datum::Int2(slot(i).map_or(0, |s| s.kind))));
    row.extend((0..NUM_SLOTS).map(|i| Datum::Oid(slot(i).map_or(0, |s| s.op))));
    row.extend((0..NUM_SLOTS).map(|i| Datum::Oid(slot(i).map_or(0, |s| s.coll))));
    row.extend(
        (0..NUM_SLOTS)
            .map(|i| slot(i).and_then(|s| s.numbers.as_deref()).map_or(Datum::Null, numbers_datum)),
    );
    let ctx = storage_context();
    row.extend((0..NUM_SLOTS).map(|i| {
        slot(i).and_then(|s| s.values.as_deref()).map_or(Datum::Null, |v| values_datum(v, &ctx))
    }));
    row
}

fn attnum_of(row: &[Datum]) -> i16 {
    match row[STAATTNUM] {
        Datum::Int2(n) => n,
        _ => 0,
    }
}

/// store -- replaces the statistics of the given columns of relation
/// `relid` (each `(attnum, type, statistics)`) in `txn`; other columns'
/// rows stay (PostgreSQL's update_attstats). The caller holds the table's
/// ShareUpdateExclusiveLock.
pub fn store(
    engine: &Engine,
    db: Oid,
    txn: &mut Transaction,
    relid: Oid,
    columns: &[(i16, SqlType, ColumnStatistics)],
) -> Result<()> {
    let ctx = latest_view(txn, engine.txns());
    let existing = scan_as(engine, db, &PG_STATISTIC, &ctx, |r| {
        oid_of(&r[STARELID]) == relid && matches!(r[STAINHERIT], Datum::Bool(false))
    })?;
    for (attnum, ty, stats) in columns {
        let row = statistic_row(relid, *attnum, *ty, stats);
        match existing.iter().find(|(_, r)| attnum_of(r) == *attnum) {
            Some((tid, _)) => replace(engine, db, &PG_STATISTIC, txn, *tid, &row)?,
            None => insert(engine, db, &PG_STATISTIC, txn, &row)?,
        };
    }
    Ok(())
}

/// load -- the statistics of column `attnum` (of type `ty`) of relation
/// `relid` as `ctx`'s snapshot sees them, or `None` if it was never
/// analysed. For the planner: one catalog scan per call; see [`load_many`]
/// for several columns of a table.
pub fn load(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    relid: Oid,
    attnum: i16,
    ty: SqlType,
) -> Result<Option<ColumnStatistics>> {
    Ok(load_many(engine, db, ctx, relid, &[(attnum, ty)])?.pop().flatten())
}

/// load_many -- like [`load`] for each `(attnum, type)` of `columns`, in
/// that order, with one scan of `pg_statistic`.
pub fn load_many(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    relid: Oid,
    columns: &[(i16, SqlType)],
) -> Result<Vec<Option<ColumnStatistics>>> {
    let rows = scan_eq_as(engine, db, &PG_STATISTIC, ctx, STARELID, &Datum::Oid(relid), |r| {
        matches!(r[STAINHERIT], Datum::Bool(false))
    })?;
    columns
        .iter()
        .map(|(attnum, ty)| {
            rows.iter()
                .find(|(_, r)| attnum_of(r) == *attnum)
                .map(|(_, r)| decode_row(r, *ty))
                .transpose()
        })
        .collect()
}

fn float4_of(d: &Datum) -> f32 {
    match d {
        Datum::Float4(f) => *f,
        _ => 0.0,
    }
}

/// The slot of `kind` in `row`, as (operator, numbers, values).
fn find_slot(row: &[Datum], kind: i16) -> Option<(Oid, &Datum, &Datum)> {
    (0..NUM_SLOTS)
        .find(|i| matches!(row[STAKIND + i], Datum::Int2(k) if k == kind))
        .map(|i| (oid_of(&row[STAOP + i]), &row[STANUMBERS + i], &row[STAVALUES + i]))
}

fn float4s(d: &Datum) -> Vec<f32> {
    d.as_array().map_or_else(Vec::new, |a| a.elements().iter().map(float4_of).collect())
}

/// The stored text forms of a `stavalues` array read back as values of `ty`.
fn parse_values(d: &Datum, ty: SqlType) -> Result<Vec<Datum>> {
    let ctx = storage_context();
    let Some(array) = d.as_array() else { return Ok(Vec::new()) };
    array
        .elements()
        .iter()
        .map(|e| match e.as_str() {
            Some(text) => io::parse(ty, text, -1, &ctx).map_err(|e| {
                SqlError::internal(format!("stored statistics value \"{text}\" is unreadable: {e}"))
            }),
            None => Ok(Datum::Null),
        })
        .collect()
}

/// decode_row -- a `pg_statistic` row as [`ColumnStatistics`] of a column
/// of `ty`; slots computed with another type's operators are left out.
fn decode_row(row: &[Datum], ty: SqlType) -> Result<ColumnStatistics> {
    let (eq, lt) = sort_operators(ty);
    let mcv = match find_slot(row, STATISTIC_KIND_MCV) {
        Some((op, numbers, values)) if op == eq => {
            Some(MostCommonValues { values: parse_values(values, ty)?, freqs: float4s(numbers) })
        }
        _ => None,
    };
    let histogram = match find_slot(row, STATISTIC_KIND_HISTOGRAM) {
        Some((op, _, values)) if op == lt => Some(parse_values(values, ty)?),
        _ => None,
    };
    let correlation = match find_slot(row, STATISTIC_KIND_CORRELATION) {
        Some((op, numbers, _)) if op == lt => float4s(numbers).first().copied(),
        _ => None,
    };
    Ok(ColumnStatistics {
        null_frac: float4_of(&row[STANULLFRAC]),
        width: match row[STAWIDTH] {
            Datum::Int4(w) => w,
            _ => 0,
        },
        n_distinct: float4_of(&row[STADISTINCT]),
        mcv,
        histogram,
        correlation,
    })
}

/// namespace_names -- every namespace's name by OID.
pub fn namespace_names(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
) -> Result<HashMap<Oid, String>> {
    let rows = scan_as(engine, db, &PG_NAMESPACE, ctx, |_| true)?;
    Ok(rows
        .into_iter()
        .map(|(_, r)| (oid_of(&r[0]), r[1].as_str().unwrap_or_default().to_string()))
        .collect())
}

/// `pg_stats`' columns, in PostgreSQL's order. The `anyarray` columns are
/// `text[]` here (see the module doc); they print the same.
pub const PG_STATS_COLUMNS: [(&str, SqlType); 14] = [
    ("schemaname", SqlType::Name),
    ("tablename", SqlType::Name),
    ("attname", SqlType::Name),
    ("inherited", SqlType::Bool),
    ("null_frac", SqlType::Float4),
    ("avg_width", SqlType::Int4),
    ("n_distinct", SqlType::Float4),
    ("most_common_vals", SqlType::TEXT_ARRAY),
    ("most_common_freqs", SqlType::FLOAT4_ARRAY),
    ("histogram_bounds", SqlType::TEXT_ARRAY),
    ("correlation", SqlType::Float4),
    ("most_common_elems", SqlType::TEXT_ARRAY),
    ("most_common_elem_freqs", SqlType::FLOAT4_ARRAY),
    ("elem_count_histogram", SqlType::FLOAT4_ARRAY),
];

/// What `pg_stats` needs of a column: its table's name and namespace, its
/// own name and type.
struct ColumnInfo {
    namespace: Oid,
    table: String,
    name: String,
    ty: Option<SqlType>,
}

/// The non-dropped columns of every relation, by (relation, attnum).
fn column_infos(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
) -> Result<HashMap<(Oid, i16), ColumnInfo>> {
    let classes: HashMap<Oid, (Oid, String)> = scan_as(engine, db, &PG_CLASS, ctx, |_| true)?
        .into_iter()
        .map(|(_, r)| {
            (oid_of(&r[0]), (oid_of(&r[2]), r[1].as_str().unwrap_or_default().to_string()))
        })
        .collect();
    let attrs = scan_as(engine, db, &PG_ATTRIBUTE, ctx, |r| !matches!(r[8], Datum::Bool(true)))?;
    Ok(attrs
        .into_iter()
        .filter_map(|(_, r)| {
            let relid = oid_of(&r[0]);
            let (namespace, table) = classes.get(&relid)?.clone();
            let Datum::Int2(attnum) = r[4] else { return None };
            let info = ColumnInfo {
                namespace,
                table,
                name: r[1].as_str().unwrap_or_default().to_string(),
                ty: SqlType::from_oid(oid_of(&r[2])),
            };
            Some(((relid, attnum), info))
        })
        .collect())
}

/// Stored value texts re-printed in the session's settings (`session`):
/// read back with the storage settings, printed again. Texts that do not
/// read back as `ty` are shown as stored.
fn session_values(d: &Datum, ty: Option<SqlType>, session: &Context) -> Datum {
    let Some(array) = d.as_array() else { return Datum::Null };
    let storage = storage_context();
    let texts = array.elements().iter().map(|e| {
        let Some(text) = e.as_str() else { return Datum::Null };
        let value = ty.and_then(|ty| io::parse(ty, text, -1, &storage).ok());
        match value.and_then(|v| io::output(&v, session)) {
            Some(shown) => Datum::Text(shown),
            None => Datum::Text(text.to_string()),
        }
    });
    Datum::array(array.elem_type(), texts.collect())
}

/// pg_stats_rows -- the rows of the `pg_stats` view as `ctx`'s snapshot
/// sees the catalogs, values printed under `session`'s settings.
pub(crate) fn pg_stats_rows(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    session: &Context,
) -> Result<Vec<Vec<Datum>>> {
    let stats = scan_as(engine, db, &PG_STATISTIC, ctx, |_| true)?;
    if stats.is_empty() {
        return Ok(Vec::new());
    }
    let columns = column_infos(engine, db, ctx)?;
    let namespaces = namespace_names(engine, db, ctx)?;
    let rows = stats.iter().filter_map(|(_, row)| {
        let info = columns.get(&(oid_of(&row[STARELID]), attnum_of(row)))?;
        Some(pg_stats_row(row, info, &namespaces, session))
    });
    Ok(rows.collect())
}

/// One `pg_stats` row: the CASE expressions of PostgreSQL's view definition
/// (each column is the slot of one kind, wherever it is), done directly.
fn pg_stats_row(
    row: &[Datum],
    info: &ColumnInfo,
    namespaces: &HashMap<Oid, String>,
    session: &Context,
) -> Vec<Datum> {
    let values = |kind| {
        find_slot(row, kind).map_or(Datum::Null, |(_, _, v)| session_values(v, info.ty, session))
    };
    let numbers = |kind| find_slot(row, kind).map_or(Datum::Null, |(_, n, _)| n.clone());
    let correlation = find_slot(row, STATISTIC_KIND_CORRELATION)
        .and_then(|(_, n, _)| n.as_array().and_then(|a| a.get(1).cloned()))
        .unwrap_or(Datum::Null);
    vec![
        namespaces.get(&info.namespace).map_or(Datum::Null, |n| Datum::Text(n.clone())),
        Datum::Text(info.table.clone()),
        Datum::Text(info.name.clone()),
        row[STAINHERIT].clone(),
        row[STANULLFRAC].clone(),
        row[STAWIDTH].clone(),
        row[STADISTINCT].clone(),
        values(STATISTIC_KIND_MCV),
        numbers(STATISTIC_KIND_MCV),
        values(STATISTIC_KIND_HISTOGRAM),
        correlation,
        values(STATISTIC_KIND_MCELEM),
        numbers(STATISTIC_KIND_MCELEM),
        numbers(STATISTIC_KIND_DECHIST),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::schema::PG_STATISTIC;
    use sluice_types::Numeric;

    #[test]
    fn catalog_array_constants_are_the_array_types() {
        assert_eq!(SqlType::FLOAT4_ARRAY, SqlType::array_of(SqlType::Float4).unwrap());
        assert_eq!(SqlType::TEXT_ARRAY, SqlType::array_of(SqlType::Text).unwrap());
        assert_eq!(PG_STATISTIC.columns.len(), STAVALUES + NUM_SLOTS);
        assert_eq!(PG_STATISTIC.columns[STANUMBERS].0, "stanumbers1");
        assert_eq!(PG_STATISTIC.columns[STAVALUES].0, "stavalues1");
    }

    fn sample_stats(values: Vec<Datum>) -> ColumnStatistics {
        ColumnStatistics {
            null_frac: 0.25,
            width: 4,
            n_distinct: -0.5,
            mcv: Some(MostCommonValues { values: values[..1].to_vec(), freqs: vec![0.5] }),
            histogram: Some(values[1..].to_vec()),
            correlation: Some(0.75),
        }
    }

    #[test]
    fn rows_round_trip_through_text_forms() {
        let cases = [
            (SqlType::Int4, vec![Datum::Int4(7), Datum::Int4(-3), Datum::Int4(12)]),
            (SqlType::Float8, vec![Datum::Float8(0.1), Datum::Float8(1e-300), Datum::Float8(3.0)]),
            (
                SqlType::Text,
                vec![Datum::Text("a,b".into()), Datum::Text("".into()), Datum::Text("NULL".into())],
            ),
            (SqlType::TimestampTz, vec![Datum::TimestampTz(1), Datum::TimestampTz(2)]),
            (
                SqlType::Numeric,
                vec![Datum::Numeric(Numeric::from_i64(5)), Datum::Numeric(Numeric::from_i64(-9))],
            ),
        ];
        for (ty, values) in cases {
            let stats = sample_stats(values);
            let row = statistic_row(42, 3, ty, &stats);
            assert_eq!(row.len(), PG_STATISTIC.columns.len());
            assert_eq!(decode_row(&row, ty).unwrap(), stats, "{ty:?}");
        }
    }

    #[test]
    fn slots_are_filled_in_order_with_the_types_operators() {
        let stats = ColumnStatistics {
            null_frac: 0.0,
            width: 4,
            n_distinct: 2.0,
            mcv: None,
            histogram: None,
            correlation: Some(1.0),
        };
        let row = statistic_row(1, 1, SqlType::Text, &stats);
        assert!(matches!(row[STAKIND], Datum::Int2(STATISTIC_KIND_CORRELATION)));
        assert!(matches!(row[STAKIND + 1], Datum::Int2(0)));
        assert_eq!(oid_of(&row[STAOP]), 664);
        assert_eq!(oid_of(&row[STACOLL]), DEFAULT_COLLATION_OID);
        assert!(row[STAVALUES].is_null());
    }

    #[test]
    fn statistics_of_another_type_are_ignored() {
        let stats = sample_stats(vec![Datum::Int4(1), Datum::Int4(2), Datum::Int4(3)]);
        let row = statistic_row(1, 1, SqlType::Int4, &stats);
        let as_int8 = decode_row(&row, SqlType::Int8).unwrap();
        assert_eq!(as_int8.mcv, None);
        assert_eq!(as_int8.histogram, None);
        assert_eq!(as_int8.correlation, None);
        assert_eq!(as_int8.null_frac, 0.25);
    }

    #[test]
    fn pg_stats_prints_values_in_the_session_time_zone() {
        let stats = sample_stats(vec![Datum::TimestampTz(0), Datum::TimestampTz(3_600_000_000)]);
        let row = statistic_row(1, 1, SqlType::TimestampTz, &stats);
        let zone = sluice_types::datetime::TimeZone::named("Europe/Berlin").unwrap();
        let session = Context::new(zone, 0);
        let info = ColumnInfo {
            namespace: 2200,
            table: "t".into(),
            name: "ts".into(),
            ty: Some(SqlType::TimestampTz),
        };
        let shown = pg_stats_row(&row, &info, &HashMap::new(), &session);
        let text = io::output(&shown[7], &session).unwrap();
        assert_eq!(text, "{\"2000-01-01 01:00:00+01\"}");
        assert_eq!(io::output(&shown[10], &session).unwrap(), "0.75");
        assert!(shown[11].is_null());
    }
}
