//! Relation descriptors read back from the catalogs (PostgreSQL's relcache).
//! Every statement builds its descriptors from `pg_class`, `pg_attribute` and
//! `pg_attrdef` (and `pg_constraint` for a table with CHECK constraints) as
//! its own snapshot sees them, which is exactly what MVCC DDL
//! needs; the rows come from the shared catalog cache (see `catalog/mod.rs`),
//! so building one costs a few hash probes and the decoding of its rows.

use super::constraint::{check_constraints, relchecks_of, CheckConstraint};
use super::rows::tuple_desc;
use super::scan_eq_as;
use super::schema::*;
use crate::error::{Result, SqlError};
use sluice_access::common::{HeapTupleHeader, TupleDesc};
use sluice_access::heap::scan::HeapScan;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::heap::HeapRelation;
use sluice_access::Engine;
use sluice_common::{Oid, RelFileLocator, Xid, DEFAULTTABLESPACE_OID};
use sluice_txn::{Transaction, XidStatus};
use sluice_types::{Datum, SqlType};

/// One column of a relation.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnDesc {
    /// Column name.
    pub name: String,
    /// Type.
    pub ty: SqlType,
    /// Type modifier (-1 for none).
    pub typmod: i32,
    /// NOT NULL.
    pub not_null: bool,
    /// DEFAULT expression, as `pg_attrdef` stores it (see
    /// [`evaluable_default`] for the form the executor evaluates).
    pub default: Option<String>,
    /// The stored form of the value rows written before the column was
    /// added hold (`attmissingval`: ADD COLUMN with a default fills no
    /// page, the tuple descriptor supplies it), `None` for NULL.
    pub missing: Option<Vec<u8>>,
    /// Dropped (`attisdropped`): the attribute still has its place in stored
    /// tuples, but no name a query can use and NULL in every new row.
    pub dropped: bool,
}

/// What statements need to know about a table.
#[derive(Clone, Debug)]
pub struct RelationDesc {
    /// `pg_class.oid`.
    pub oid: Oid,
    /// Name.
    pub name: String,
    /// Namespace OID.
    pub namespace: Oid,
    /// Where its files are.
    pub locator: RelFileLocator,
    /// Columns in attnum order.
    pub columns: Vec<ColumnDesc>,
    /// `fillfactor` from its options.
    pub fillfactor: u8,
    /// Its options as PostgreSQL prints `reloptions` (`{fillfactor=70}`).
    pub options: Option<String>,
    /// Table or sequence (`relkind`).
    pub kind: RelKind,
    /// `relpages` as VACUUM/ANALYZE last counted (0 if never).
    pub pages: i32,
    /// `reltuples` as ANALYZE last estimated (-1 if never).
    pub tuples: f32,
    /// `relallvisible`: pages VACUUM last found all-visible.
    pub all_visible: i32,
    /// Its CHECK constraints, in name order (see `constraint.rs`).
    pub checks: Vec<CheckConstraint>,
}

impl RelationDesc {
    /// The column types, in order.
    pub fn types(&self) -> Vec<SqlType> {
        self.columns.iter().map(|c| c.ty).collect()
    }

    /// The heap tuple descriptor, with the values of columns older rows lack.
    pub fn tuple_desc(&self) -> TupleDesc {
        let desc = tuple_desc(&self.types());
        if self.columns.iter().all(|c| c.missing.is_none()) {
            return desc;
        }
        desc.with_missing(self.columns.iter().map(|c| c.missing.clone()).collect())
    }

    /// The heap access method's view of the relation.
    pub fn heap(&self) -> HeapRelation {
        HeapRelation { locator: self.locator, oid: self.oid, fillfactor: self.fillfactor }
    }

    /// Index of the (live) column named `name`.
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name && !c.dropped)
    }

    /// The indexes of the columns not dropped, in order (what `*`, an
    /// INSERT or COPY without a column list, and ANALYZE cover).
    pub fn live_columns(&self) -> impl Iterator<Item = usize> + '_ {
        self.columns.iter().enumerate().filter(|(_, c)| !c.dropped).map(|(i, _)| i)
    }
}

pub fn oid_of(d: &Datum) -> Oid {
    match d {
        Datum::Oid(o) => *o,
        _ => 0,
    }
}

fn text_of(d: &Datum) -> Option<String> {
    d.as_str().map(str::to_string)
}

/// The `fillfactor=N` among options like `{fillfactor=70,autovacuum_enabled=off}`.
pub fn fillfactor_of(options: Option<&str>) -> u8 {
    options
        .and_then(|o| {
            o.trim_matches(|c| c == '{' || c == '}')
                .split(',')
                .find_map(|kv| kv.strip_prefix("fillfactor=").and_then(|v| v.parse::<u8>().ok()))
        })
        .unwrap_or(100)
}

/// lookup -- the relation named `name` in the first of `namespaces` that has
/// one, as `txn` sees the catalogs.
pub fn lookup(
    engine: &Engine,
    db: Oid,
    txn: &mut Transaction,
    namespaces: &[Oid],
    name: &str,
) -> Result<Option<RelationDesc>> {
    lookup_as(engine, db, &VisibilityContext::for_transaction(txn, engine.txns()), namespaces, name)
}

/// lookup_as -- like [`lookup`], under an already taken snapshot.
pub fn lookup_as(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    namespaces: &[Oid],
    name: &str,
) -> Result<Option<RelationDesc>> {
    find_class(engine, db, ctx, namespaces, name)?
        .map(|row| describe(engine, db, ctx, &row))
        .transpose()
}

/// by_oid -- the relation with OID `oid`, if `txn` can see it.
pub fn by_oid(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    oid: Oid,
) -> Result<Option<RelationDesc>> {
    let rows = scan_eq_as(engine, db, &PG_CLASS, ctx, 0, &Datum::Oid(oid), |_| true)?;
    rows.first().map(|(_, r)| describe(engine, db, ctx, r)).transpose()
}

/// find -- like [`find_as`], as `txn` sees the catalogs.
pub fn find(
    engine: &Engine,
    db: Oid,
    txn: &mut Transaction,
    namespaces: &[Oid],
    name: &str,
) -> Result<Option<RelationId>> {
    find_as(engine, db, &VisibilityContext::for_transaction(txn, engine.txns()), namespaces, name)
}

/// find_by_oid -- like [`find_by_oid_as`], as `txn` sees the catalogs.
pub fn find_by_oid(
    engine: &Engine,
    db: Oid,
    txn: &mut Transaction,
    oid: Oid,
) -> Result<Option<RelationId>> {
    find_by_oid_as(engine, db, &VisibilityContext::for_transaction(txn, engine.txns()), oid)
}

/// attnum_of -- the number of relation `relid`'s live column `name`.
pub fn attnum_of(
    engine: &Engine,
    db: Oid,
    txn: &mut Transaction,
    relid: Oid,
    name: &str,
) -> Result<Option<i16>> {
    attnum_as(engine, db, &VisibilityContext::for_transaction(txn, engine.txns()), relid, name)
}

/// attnum_as -- like [`attnum_of`], under an already taken snapshot.
pub fn attnum_as(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    relid: Oid,
    name: &str,
) -> Result<Option<i16>> {
    let rows = scan_eq_as(engine, db, &PG_ATTRIBUTE, ctx, 0, &Datum::Oid(relid), |r| {
        r[1].as_str() == Some(name) && !matches!(r[8], Datum::Bool(true))
    })?;
    Ok(rows.first().and_then(|(_, r)| match r[4] {
        Datum::Int2(n) => Some(n),
        _ => None,
    }))
}

/// class_row_xids -- the transactions that inserted and (if any) deleted or
/// replaced the `pg_class` row of relation `oid` that `txn` sees: who last
/// wrote the relation's description, and whether someone has since.
pub fn class_row_xids(
    engine: &Engine,
    db: Oid,
    txn: &mut Transaction,
    oid: Oid,
) -> Result<Option<(Xid, Option<Xid>)>> {
    let ctx = VisibilityContext::for_transaction(txn, engine.txns());
    let types = PG_CLASS.types();
    let desc = tuple_desc(&types);
    let heap = HeapRelation::new(super::catalog_locator(&PG_CLASS, db));
    let mut scan = HeapScan::begin(engine, &heap, ctx)?;
    let wanted = oid.to_le_bytes();
    while let Some((_, tuple)) = scan.next_tuple()? {
        // The OID is the first column: compare its stored bytes, decode nothing.
        let stored = sluice_access::common::get_attr(&desc, tuple, 0)
            .map_err(|e| SqlError::new(e.sqlstate(), e.to_string()))?;
        if stored != Some(&wanted[..]) {
            continue;
        }
        let header =
            HeapTupleHeader::new(tuple).map_err(|e| SqlError::new(e.sqlstate(), e.to_string()))?;
        let deleted = !(header.xmax_invalid()
            || header.xmax_is_locked_only()
            || header.xmax_is_multi()
            || !header.xmax().is_valid());
        return Ok(Some((header.xmin(), deleted.then(|| header.xmax()))));
    }
    Ok(None)
}

/// superseded -- whether the `pg_class` row of relation `oid` that `txn`
/// sees has since been replaced or deleted by a transaction that committed
/// after `txn`'s snapshot was taken (a TRUNCATE's new relfilenode, a DROP,
/// any DDL rewriting the row). A statement that looked a relation up and
/// then waited for its lock asks this to learn whether what it read is
/// still current (PostgreSQL learns it from invalidation messages).
pub fn superseded(engine: &Engine, db: Oid, txn: &mut Transaction, oid: Oid) -> Result<bool> {
    // Nothing to look for unless some catalog change committed since the
    // snapshot; that is nearly always so, and saves a scan of pg_class.
    if !engine.txns().catalog_changes().changed_since(&txn.snapshot()) {
        return Ok(false);
    }
    let Some((_, Some(xmax))) = class_row_xids(engine, db, txn, oid)? else { return Ok(false) };
    if txn.is_current_xid(xmax) {
        return Ok(false);
    }
    Ok(engine.txns().xid_status(xmax)? == XidStatus::Committed)
}

/// A relation's identity as its `pg_class` row records it, without its
/// columns (what sequence functions and DDL checks need, at a third of the
/// catalog reads of a [`RelationDesc`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelationId {
    /// `pg_class.oid`.
    pub oid: Oid,
    /// Name.
    pub name: String,
    /// Namespace OID.
    pub namespace: Oid,
    /// Where its files are.
    pub locator: RelFileLocator,
    /// Table or sequence.
    pub kind: RelKind,
}

/// find_as -- the identity of the relation named `name` in the first of
/// `namespaces` that has one.
pub fn find_as(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    namespaces: &[Oid],
    name: &str,
) -> Result<Option<RelationId>> {
    find_class(engine, db, ctx, namespaces, name)?.map(|row| identify(db, &row)).transpose()
}

/// find_by_oid_as -- the identity of the relation with OID `oid`.
pub fn find_by_oid_as(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    oid: Oid,
) -> Result<Option<RelationId>> {
    let rows = scan_eq_as(engine, db, &PG_CLASS, ctx, 0, &Datum::Oid(oid), |_| true)?;
    rows.first().map(|(_, r)| identify(db, r)).transpose()
}

/// The `pg_class` row of `name` in the first of `namespaces` that has one.
fn find_class(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    namespaces: &[Oid],
    name: &str,
) -> Result<Option<Vec<Datum>>> {
    let relname = Datum::Text(name.into());
    let mut rows = scan_eq_as(engine, db, &PG_CLASS, ctx, 1, &relname, |r| {
        namespaces.contains(&oid_of(&r[2]))
    })?;
    let Some(i) =
        namespaces.iter().find_map(|ns| rows.iter().position(|(_, r)| oid_of(&r[2]) == *ns))
    else {
        return Ok(None);
    };
    Ok(Some(rows.swap_remove(i).1))
}

/// identify -- a relation's identity from its `pg_class` row.
fn identify(db: Oid, class: &[Datum]) -> Result<RelationId> {
    let oid = oid_of(&class[0]);
    let shared = matches!(class[12], Datum::Bool(true));
    let letter = text_of(&class[14]).unwrap_or_default();
    let kind = RelKind::from_letter(&letter).ok_or_else(|| {
        SqlError::internal(format!("relation {oid} has unsupported relkind \"{letter}\""))
    })?;
    let tablespace = match oid_of(&class[7]) {
        0 => DEFAULTTABLESPACE_OID,
        t => t,
    };
    Ok(RelationId {
        oid,
        name: text_of(&class[1]).unwrap_or_default(),
        namespace: oid_of(&class[2]),
        locator: RelFileLocator {
            spc_oid: tablespace,
            db_oid: if shared { 0 } else { db },
            rel_number: oid_of(&class[6]),
        },
        kind,
    })
}

/// Builds a descriptor from a `pg_class` row and the relation's attributes.
fn describe(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    class: &[Datum],
) -> Result<RelationDesc> {
    let id = identify(db, class)?;
    let oid = id.oid;
    let mut attrs = scan_eq_as(engine, db, &PG_ATTRIBUTE, ctx, 0, &Datum::Oid(oid), |_| true)?;
    attrs.sort_by_key(|(_, r)| match r[4] {
        Datum::Int2(n) => n,
        _ => 0,
    });
    let defaults = scan_eq_as(engine, db, &PG_ATTRDEF, ctx, 1, &Datum::Oid(oid), |_| true)?;
    // Dropped columns stay: stored tuples still have their attributes, and
    // a column's index in `columns` is its attnum - 1.
    let columns = attrs.iter().map(|(_, r)| column_of(r, &defaults)).collect::<Result<Vec<_>>>()?;
    let options = text_of(&class[16]);
    let checks = match relchecks_of(class) {
        0 => Vec::new(),
        _ => check_constraints(engine, db, ctx, oid)?,
    };
    Ok(RelationDesc {
        oid,
        name: id.name,
        namespace: id.namespace,
        locator: id.locator,
        columns,
        fillfactor: fillfactor_of(options.as_deref()),
        options,
        kind: id.kind,
        pages: match class[8] {
            Datum::Int4(n) => n,
            _ => 0,
        },
        tuples: match class[9] {
            Datum::Float4(n) => n,
            _ => -1.0,
        },
        all_visible: match class[10] {
            Datum::Int4(n) => n,
            _ => 0,
        },
        checks,
    })
}

/// `pg_attribute.attisdropped`'s position.
pub const ATT_ISDROPPED: usize = 8;
/// `pg_attribute.atthasmissing` and `attmissingval`'s positions.
pub const ATT_HASMISSING: usize = 14;
pub const ATT_MISSINGVAL: usize = 15;

fn column_of(
    attr: &[Datum],
    defaults: &[(sluice_common::ItemPointer, Vec<Datum>)],
) -> Result<ColumnDesc> {
    let ty = SqlType::from_oid(oid_of(&attr[2])).ok_or_else(|| {
        SqlError::internal(format!("cache lookup failed for type {}", oid_of(&attr[2])))
    })?;
    let attnum = attr[4].clone();
    Ok(ColumnDesc {
        name: text_of(&attr[1]).unwrap_or_default(),
        ty,
        typmod: match attr[5] {
            Datum::Int4(m) => m,
            _ => -1,
        },
        not_null: matches!(attr[6], Datum::Bool(true)),
        default: defaults.iter().find(|(_, d)| d[2] == attnum).and_then(|(_, d)| text_of(&d[3])),
        missing: match (&attr[ATT_HASMISSING], &attr[ATT_MISSINGVAL]) {
            (Datum::Bool(true), Datum::Bytea(bytes)) => Some(bytes.clone()),
            _ => None,
        },
        dropped: matches!(attr[ATT_ISDROPPED], Datum::Bool(true)),
    })
}

/// evaluable_default -- a stored default in the form the expression layer
/// evaluates. `pg_attrdef` keeps what PostgreSQL shows
/// (`nextval('t_id_seq'::regclass)`), but sluice has no `regclass` type yet:
/// the functions that take one resolve a relation name themselves, so the
/// `::regclass` casts are cut out (found with the SQL scanner, which keeps
/// string literals intact).
pub(crate) fn evaluable_default(text: &str) -> String {
    use pg_query::protobuf::Token;
    if !text.contains("regclass") {
        return text.to_string();
    }
    let Ok(tokens) = pg_query::scan_tokens(text) else { return text.to_string() };
    let word = |i: usize| {
        tokens.get(i).and_then(|t| text.get(t.start as usize..t.end as usize)).unwrap_or("")
    };
    let mut cuts = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        if token.token != Token::Typecast as i32 {
            continue;
        }
        let last = if word(i + 1) == "pg_catalog" && word(i + 2) == "." { i + 3 } else { i + 1 };
        if word(last) == "regclass" {
            cuts.push(token.start as usize..tokens[last].end as usize);
        }
    }
    let mut out = text.to_string();
    for cut in cuts.into_iter().rev() {
        out.replace_range(cut, "");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regclass_casts_are_cut_from_defaults_and_literals_kept() {
        let cases = [
            ("nextval('t_id_seq'::regclass)", "nextval('t_id_seq')"),
            ("nextval('\"T\"''s'::pg_catalog.regclass)", "nextval('\"T\"''s')"),
            ("'a::regclass'::text", "'a::regclass'::text"),
            ("42", "42"),
        ];
        for (stored, evaluated) in cases {
            assert_eq!(evaluable_default(stored), evaluated, "{stored}");
        }
    }

    #[test]
    fn fillfactor_comes_from_the_options() {
        assert_eq!(fillfactor_of(Some("{autovacuum_enabled=off,fillfactor=70}")), 70);
        assert_eq!(fillfactor_of(None), 100);
    }
}
