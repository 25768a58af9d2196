//! Relation descriptors read back from the catalogs (PostgreSQL's relcache, for
//! now without the cache: every statement reads `pg_class` and `pg_attribute`
//! under its own snapshot, which is exactly what MVCC DDL needs).

use super::rows::tuple_desc;
use super::scan_as;
use super::schema::*;
use crate::error::{Result, SqlError};
use sluice_access::common::TupleDesc;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::heap::HeapRelation;
use sluice_access::Engine;
use sluice_common::{Oid, RelFileLocator, DEFAULTTABLESPACE_OID};
use sluice_txn::Transaction;
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
    /// DEFAULT expression, as SQL text.
    pub default: Option<String>,
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
}

impl RelationDesc {
    /// The column types, in order.
    pub fn types(&self) -> Vec<SqlType> {
        self.columns.iter().map(|c| c.ty).collect()
    }

    /// The heap tuple descriptor.
    pub fn tuple_desc(&self) -> TupleDesc {
        tuple_desc(&self.types())
    }

    /// The heap access method's view of the relation.
    pub fn heap(&self) -> HeapRelation {
        HeapRelation { locator: self.locator, fillfactor: self.fillfactor }
    }

    /// Index of the column named `name`.
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }
}

fn oid_of(d: &Datum) -> Oid {
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
    let ctx = VisibilityContext {
        snapshot: txn.snapshot(),
        mgr: engine.txns(),
        combocids: txn.combocids(),
    };
    lookup_as(engine, db, &ctx, namespaces, name)
}

/// lookup_as -- like [`lookup`], under an already taken snapshot.
pub fn lookup_as(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    namespaces: &[Oid],
    name: &str,
) -> Result<Option<RelationDesc>> {
    let rows = scan_as(engine, db, &PG_CLASS, ctx, |r| {
        r[1].as_str() == Some(name) && namespaces.contains(&oid_of(&r[2]))
    })?;
    let Some(row) =
        namespaces.iter().find_map(|ns| rows.iter().find(|(_, r)| oid_of(&r[2]) == *ns))
    else {
        return Ok(None);
    };
    Ok(Some(describe(engine, db, ctx, &row.1)?))
}

/// by_oid -- the relation with OID `oid`, if `txn` can see it.
pub fn by_oid(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    oid: Oid,
) -> Result<Option<RelationDesc>> {
    let rows = scan_as(engine, db, &PG_CLASS, ctx, |r| oid_of(&r[0]) == oid)?;
    rows.first().map(|(_, r)| describe(engine, db, ctx, r)).transpose()
}

/// Builds a descriptor from a `pg_class` row and the relation's attributes.
fn describe(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    class: &[Datum],
) -> Result<RelationDesc> {
    let oid = oid_of(&class[0]);
    let shared = matches!(class[12], Datum::Bool(true));
    let mut attrs = scan_as(engine, db, &PG_ATTRIBUTE, ctx, |r| oid_of(&r[0]) == oid)?;
    attrs.sort_by_key(|(_, r)| match r[4] {
        Datum::Int2(n) => n,
        _ => 0,
    });
    let defaults = scan_as(engine, db, &PG_ATTRDEF, ctx, |r| oid_of(&r[1]) == oid)?;
    let columns = attrs
        .iter()
        .filter(|(_, r)| !matches!(r[8], Datum::Bool(true)))
        .map(|(_, r)| column_of(r, &defaults))
        .collect::<Result<Vec<_>>>()?;
    let options = text_of(&class[16]);
    let tablespace = match oid_of(&class[7]) {
        0 => DEFAULTTABLESPACE_OID,
        t => t,
    };
    Ok(RelationDesc {
        oid,
        name: text_of(&class[1]).unwrap_or_default(),
        namespace: oid_of(&class[2]),
        locator: RelFileLocator {
            spc_oid: tablespace,
            db_oid: if shared { 0 } else { db },
            rel_number: oid_of(&class[6]),
        },
        columns,
        fillfactor: fillfactor_of(options.as_deref()),
        options,
    })
}

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
    })
}
