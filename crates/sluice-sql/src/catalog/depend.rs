//! Dependencies between catalog objects (PostgreSQL's `pg_depend.c`).
//!
//! A `pg_depend` row says that one object (class, OID, sub-id such as a
//! column number) depends on another. sluice records two kinds so far, both
//! made by serial columns and `OWNED BY`:
//!
//! * **auto** (`a`): a sequence owned by a table column; dropping the table
//!   drops the sequence.
//! * **normal** (`n`): a column default that calls nextval on a sequence;
//!   dropping the sequence alone fails unless CASCADE also drops the default.
//! * **internal** (`i`): an identity column's sequence; it goes with the
//!   column and cannot be dropped on its own.
//! * CHECK constraints depend (auto) on the columns they read.
//!
//! Rows are read and written under the statement's transaction like every
//! catalog; the objects involved are locked AccessExclusive by the DDL that
//! changes them.

use super::schema::{PG_ATTRDEF, PG_CLASS, PG_CONSTRAINT, PG_DEPEND};
use super::{delete, insert, scan, scan_as};
use crate::error::Result;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::Engine;
use sluice_common::{ItemPointer, Oid};
use sluice_txn::Transaction;
use sluice_types::Datum;

/// `pg_class`'s OID: the class of relations (PostgreSQL's RelationRelationId).
pub const RELATION_CLASS: Oid = PG_CLASS.oid;
/// `pg_attrdef`'s OID: the class of column defaults.
pub const ATTRDEF_CLASS: Oid = PG_ATTRDEF.oid;
/// `pg_constraint`'s OID: the class of constraints.
pub const CONSTRAINT_CLASS: Oid = PG_CONSTRAINT.oid;

/// One catalog object (PostgreSQL's ObjectAddress).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ObjectAddress {
    /// The catalog the object lives in.
    pub classid: Oid,
    /// Its OID.
    pub objid: Oid,
    /// A column number, or 0 for the whole object.
    pub objsubid: i32,
}

impl ObjectAddress {
    /// A whole relation.
    pub fn relation(oid: Oid) -> ObjectAddress {
        ObjectAddress { classid: RELATION_CLASS, objid: oid, objsubid: 0 }
    }

    /// Column `attnum` of relation `oid`.
    pub fn column(oid: Oid, attnum: i16) -> ObjectAddress {
        ObjectAddress { classid: RELATION_CLASS, objid: oid, objsubid: attnum.into() }
    }
}

/// How strongly an object depends on another (`deptype`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DepType {
    /// `n`: dropping the referenced object needs CASCADE.
    Normal,
    /// `a`: the dependent object goes with the referenced one.
    Auto,
    /// `i`: the dependent object is part of the referenced one's
    /// implementation (an identity column's sequence): it goes with it and
    /// cannot be dropped alone.
    Internal,
}

impl DepType {
    fn letter(self) -> &'static str {
        match self {
            DepType::Normal => "n",
            DepType::Auto => "a",
            DepType::Internal => "i",
        }
    }
}

/// One `pg_depend` row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dependency {
    /// The dependent object.
    pub object: ObjectAddress,
    /// The object it depends on.
    pub referenced: ObjectAddress,
    /// The kind.
    pub kind: DepType,
}

fn oid_at(row: &[Datum], i: usize) -> Oid {
    match row.get(i) {
        Some(Datum::Oid(o)) => *o,
        _ => 0,
    }
}

fn int_at(row: &[Datum], i: usize) -> i32 {
    match row.get(i) {
        Some(Datum::Int4(v)) => *v,
        _ => 0,
    }
}

impl Dependency {
    fn values(&self) -> Vec<Datum> {
        vec![
            Datum::Oid(self.object.classid),
            Datum::Oid(self.object.objid),
            Datum::Int4(self.object.objsubid),
            Datum::Oid(self.referenced.classid),
            Datum::Oid(self.referenced.objid),
            Datum::Int4(self.referenced.objsubid),
            Datum::Text(self.kind.letter().into()),
        ]
    }

    /// The dependency a `pg_depend` row records, if its kind is one sluice knows.
    fn from_row(row: &[Datum]) -> Option<Dependency> {
        let kind = match row.get(6).and_then(Datum::as_str) {
            Some("n") => DepType::Normal,
            Some("a") => DepType::Auto,
            Some("i") => DepType::Internal,
            _ => return None,
        };
        Some(Dependency {
            object: ObjectAddress {
                classid: oid_at(row, 0),
                objid: oid_at(row, 1),
                objsubid: int_at(row, 2),
            },
            referenced: ObjectAddress {
                classid: oid_at(row, 3),
                objid: oid_at(row, 4),
                objsubid: int_at(row, 5),
            },
            kind,
        })
    }
}

/// record -- adds a dependency.
pub fn record(engine: &Engine, db: Oid, txn: &mut Transaction, dep: &Dependency) -> Result<()> {
    insert(engine, db, &PG_DEPEND, txn, &dep.values())?;
    Ok(())
}

/// find -- the dependencies `keep` accepts, with their row addresses.
pub fn find(
    engine: &Engine,
    db: Oid,
    txn: &mut Transaction,
    keep: impl Fn(&Dependency) -> bool,
) -> Result<Vec<(ItemPointer, Dependency)>> {
    Ok(matching(scan(engine, db, &PG_DEPEND, txn, |_| true)?, keep))
}

/// find_as -- like [`find`], under an already taken snapshot.
pub fn find_as(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    keep: impl Fn(&Dependency) -> bool,
) -> Result<Vec<(ItemPointer, Dependency)>> {
    Ok(matching(scan_as(engine, db, &PG_DEPEND, ctx, |_| true)?, keep))
}

/// referencing_as -- like [`find_as`], among the dependencies on objects
/// with OID `objid` only: the catalog cache finds them by key, so nothing
/// else of `pg_depend` is decoded (a relation descriptor asks this for its
/// identity columns' sequences).
pub fn referencing_as(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    objid: Oid,
    keep: impl Fn(&Dependency) -> bool,
) -> Result<Vec<(ItemPointer, Dependency)>> {
    let rows = super::scan_eq_as(engine, db, &PG_DEPEND, ctx, 4, &Datum::Oid(objid), |_| true)?;
    Ok(matching(rows, keep))
}

fn matching(
    rows: Vec<(ItemPointer, Vec<Datum>)>,
    keep: impl Fn(&Dependency) -> bool,
) -> Vec<(ItemPointer, Dependency)> {
    rows.into_iter()
        .filter_map(|(tid, row)| Dependency::from_row(&row).filter(|d| keep(d)).map(|d| (tid, d)))
        .collect()
}

/// remove -- deletes the dependencies `keep` accepts; returns them.
pub fn remove(
    engine: &Engine,
    db: Oid,
    txn: &mut Transaction,
    keep: impl Fn(&Dependency) -> bool,
) -> Result<Vec<Dependency>> {
    let found = find(engine, db, txn, keep)?;
    for (tid, _) in &found {
        delete(engine, db, &PG_DEPEND, txn, *tid)?;
    }
    Ok(found.into_iter().map(|(_, d)| d).collect())
}
