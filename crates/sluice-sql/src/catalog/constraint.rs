//! Constraints in `pg_constraint` (PostgreSQL's `catalog/pg_constraint.c`
//! and the check-constraint half of `catalog/heap.c`).
//!
//! A row describes one constraint of a table: PRIMARY KEY and UNIQUE
//! (`p`, `u`, enforced by their index, `conindid`), CHECK (`c`, enforced
//! by the executor on every new row version) and FOREIGN KEY (`f`, with the
//! referenced table in `confrelid`, its columns in `confkey` and the unique
//! index they match in `conindid`; see `foreign_key.rs`). A CHECK constraint keeps its
//! expression in `conbin` as SQL text in PostgreSQL's deparsed form
//! (`(price > 0)`), written from the analysed expression, so it parses back
//! to the same expression and `pg_get_constraintdef` prints it as
//! PostgreSQL does; the columns it reads are in `conkey`.
//!
//! The table's `pg_class.relchecks` counts its CHECK constraints, as in
//! PostgreSQL: a relation descriptor reads `pg_constraint` only when the
//! count says there is something to find, so tables without checks pay
//! nothing for them. Whoever adds or drops a CHECK constraint holds a lock
//! on the table that conflicts with every other DDL on it, so the count and
//! the rows change together.
//!
//! Constraint names are unique per table; a name chosen for an unnamed
//! constraint (`<table>_<column>_check`) also avoids every constraint name
//! of the schema, as PostgreSQL's ChooseConstraintName does.

use super::relation::oid_of;
use super::rows::int2_array;
use super::schema::{PG_CLASS, PG_CONSTRAINT};
use super::{insert, replace, scan, scan_eq_as};
use crate::error::{Result, SqlError};
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::Engine;
use sluice_common::{ItemPointer, Oid};
use sluice_txn::Transaction;
use sluice_types::Datum;

/// `pg_constraint` column positions read by other modules.
pub const CON_NAME: usize = 1;
pub const CON_NAMESPACE: usize = 2;
pub const CON_TYPE: usize = 3;
pub const CON_DEFERRABLE: usize = 4;
pub const CON_DEFERRED: usize = 5;
pub const CON_VALIDATED: usize = 6;
pub const CON_RELID: usize = 7;
pub const CON_TYPID: usize = 8;
pub const CON_INDID: usize = 9;
pub const CON_FRELID: usize = 11;
pub const CON_KEY: usize = 18;
pub const CON_FKEY: usize = 19;
pub const CON_BIN: usize = 25;

/// `pg_class.relchecks`' position.
const CLASS_RELCHECKS: usize = 19;

/// What kind of constraint a row describes (`contype`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstraintType {
    /// `p`
    Primary,
    /// `u`
    Unique,
    /// `c`
    Check,
    /// `f`
    Foreign,
}

impl ConstraintType {
    fn letter(self) -> &'static str {
        match self {
            ConstraintType::Primary => "p",
            ConstraintType::Unique => "u",
            ConstraintType::Check => "c",
            ConstraintType::Foreign => "f",
        }
    }
}

/// A new `pg_constraint` row.
pub struct NewConstraint<'a> {
    /// `conname`.
    pub name: &'a str,
    /// `contype`.
    pub kind: ConstraintType,
    /// The table (`conrelid`) and its namespace (`connamespace`).
    pub table: Oid,
    pub namespace: Oid,
    /// The domain a domain constraint belongs to (`contypid`; 0 for a
    /// table's constraint, whose `table` is 0 then).
    pub domain: Oid,
    /// The index enforcing it (`conindid`), 0 for a CHECK; for a foreign
    /// key, the referenced table's unique index its columns match.
    pub index: Oid,
    /// `convalidated`: false for a constraint added NOT VALID.
    pub validated: bool,
    /// `condeferrable` and `condeferred`.
    pub deferrable: bool,
    pub deferred: bool,
    /// `conkey`: the columns it constrains (or, for a CHECK, reads).
    pub keys: &'a [i16],
    /// `conbin`: a CHECK's expression in deparsed form.
    pub expr: Option<&'a str>,
    /// What a foreign key references.
    pub references: Option<References<'a>>,
}

/// The referenced side of a new foreign key's row.
pub struct References<'a> {
    /// `confrelid`.
    pub table: Oid,
    /// `confkey`.
    pub keys: &'a [i16],
    /// `confupdtype`, `confdeltype`, `confmatchtype` (PostgreSQL's letters).
    pub on_update: char,
    pub on_delete: char,
    pub match_type: char,
}

impl NewConstraint<'_> {
    /// The row, in `pg_constraint`'s column order.
    fn values(&self, oid: Oid) -> Vec<Datum> {
        let (b, t) = (Datum::Bool, |s: &str| Datum::Text(s.into()));
        let letter = |c: char| Datum::Text(c.to_string());
        let refs = self.references.as_ref();
        vec![
            Datum::Oid(oid),
            t(self.name),
            Datum::Oid(self.namespace),
            t(self.kind.letter()),
            b(self.deferrable),
            b(self.deferred),
            b(self.validated),
            Datum::Oid(self.table),
            Datum::Oid(self.domain),
            Datum::Oid(self.index),
            Datum::Oid(0),
            Datum::Oid(refs.map_or(0, |r| r.table)),
            letter(refs.map_or(' ', |r| r.on_update)),
            letter(refs.map_or(' ', |r| r.on_delete)),
            letter(refs.map_or(' ', |r| r.match_type)),
            b(true),
            Datum::Int4(0),
            // Every constraint sluice makes applies to the table alone: there
            // is no inheritance yet.
            b(self.kind != ConstraintType::Check),
            int2_array(self.keys.iter().copied()),
            refs.map_or(Datum::Null, |r| int2_array(r.keys.iter().copied())),
            Datum::Null,
            Datum::Null,
            Datum::Null,
            Datum::Null,
            Datum::Null,
            self.expr.map_or(Datum::Null, t),
        ]
    }
}

/// insert_constraint -- adds the row for `new`; returns its OID.
pub fn insert_constraint(
    engine: &Engine,
    db: Oid,
    txn: &mut Transaction,
    new: &NewConstraint,
) -> Result<Oid> {
    let oid = engine.new_oid()?;
    insert(engine, db, &PG_CONSTRAINT, txn, &new.values(oid))?;
    Ok(oid)
}

/// A CHECK constraint as a relation descriptor carries it.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckConstraint {
    /// `pg_constraint.oid`.
    pub oid: Oid,
    /// Name.
    pub name: String,
    /// The expression, in deparsed form over the table's column names.
    pub expr: String,
    /// False while it is NOT VALID: new rows are checked, old ones were not.
    pub validated: bool,
}

/// check_constraints -- table `relid`'s CHECK constraints, in name order
/// (the order PostgreSQL tests them in, so the first one violated is
/// reported the same way).
pub fn check_constraints(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    relid: Oid,
) -> Result<Vec<CheckConstraint>> {
    let rows = scan_eq_as(engine, db, &PG_CONSTRAINT, ctx, CON_RELID, &Datum::Oid(relid), |r| {
        r[CON_TYPE].as_str() == Some("c")
    })?;
    let mut checks: Vec<CheckConstraint> = rows
        .into_iter()
        .map(|(_, r)| CheckConstraint {
            oid: oid_of(&r[0]),
            name: r[CON_NAME].as_str().unwrap_or_default().to_string(),
            expr: r[CON_BIN].as_str().unwrap_or_default().to_string(),
            validated: matches!(r[CON_VALIDATED], Datum::Bool(true)),
        })
        .collect();
    checks.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(checks)
}

/// The constraint rows of table `relid`, with their addresses.
pub fn constraints_of(
    engine: &Engine,
    db: Oid,
    txn: &mut Transaction,
    relid: Oid,
) -> Result<Vec<(ItemPointer, Vec<Datum>)>> {
    scan(engine, db, &PG_CONSTRAINT, txn, |r| oid_of(&r[CON_RELID]) == relid)
}

/// The relchecks count stored for a table, from its `pg_class` row.
pub fn relchecks_of(class: &[Datum]) -> i16 {
    match class.get(CLASS_RELCHECKS) {
        Some(Datum::Int2(n)) => *n,
        _ => 0,
    }
}

/// set_relchecks -- stores table `relid`'s CHECK constraint count in its
/// `pg_class` row (a new row version, like every catalog change).
pub fn set_relchecks(engine: &Engine, db: Oid, txn: &mut Transaction, relid: Oid) -> Result<()> {
    let count = constraints_of(engine, db, txn, relid)?
        .iter()
        .filter(|(_, r)| r[CON_TYPE].as_str() == Some("c"))
        .count();
    let count = i16::try_from(count).map_err(|_| SqlError::internal("too many constraints"))?;
    let rows = scan(engine, db, &PG_CLASS, txn, |r| oid_of(&r[0]) == relid)?;
    let Some((tid, mut class)) = rows.into_iter().next() else {
        return Err(SqlError::internal(format!("cache lookup failed for relation {relid}")));
    };
    if relchecks_of(&class) != count {
        class[CLASS_RELCHECKS] = Datum::Int2(count);
        replace(engine, db, &PG_CLASS, txn, tid, &class)?;
    }
    Ok(())
}

/// Whether a constraint named `name` exists in `namespace` (any table).
pub fn name_taken_in_namespace(
    engine: &Engine,
    db: Oid,
    txn: &mut Transaction,
    namespace: Oid,
    name: &str,
) -> Result<bool> {
    let rows = scan(engine, db, &PG_CONSTRAINT, txn, |r| {
        oid_of(&r[CON_NAMESPACE]) == namespace && r[CON_NAME].as_str() == Some(name)
    })?;
    Ok(!rows.is_empty())
}
