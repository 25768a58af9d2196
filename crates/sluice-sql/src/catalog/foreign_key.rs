//! Foreign keys as relation descriptors carry them (PostgreSQL's
//! `RI_ConstraintInfo` in `ri_triggers.c`, built from `pg_constraint`).
//!
//! A foreign key is one `pg_constraint` row of type `f` on the referencing
//! table (`conrelid`, columns `conkey`) naming the referenced table
//! (`confrelid`, columns `confkey`) and the unique index there that the
//! referenced columns match (`conindid`). Both tables need it: the
//! referencing one checks its new rows against it, the referenced one acts
//! on its deleted and updated rows (`executor/ri_triggers`).
//!
//! PostgreSQL implements foreign keys as internal triggers, listed in
//! `pg_trigger`, and marks both tables `relhastriggers`, which clients
//! read (psql's `\d` shows foreign keys only for flagged tables). sluice's
//! are not triggers (`executor/ri_triggers`) and `pg_trigger` stays empty,
//! but the flag is set the same way — and, as in PostgreSQL, never cleared
//! when the last key goes. A relation descriptor looks its foreign keys up
//! in `pg_constraint` (by `conrelid` and by `confrelid`, two keyed
//! catalog-cache probes) only for a flagged table, so others pay nothing.

use super::constraint::{
    CON_DEFERRABLE, CON_DEFERRED, CON_FKEY, CON_FRELID, CON_INDID, CON_KEY, CON_NAME, CON_RELID,
    CON_TYPE, CON_VALIDATED,
};
use super::relation::oid_of;
use super::rows::int2_list;
use super::scan_eq_as;
use super::schema::PG_CONSTRAINT;
use crate::error::Result;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::Engine;
use sluice_common::Oid;
use sluice_types::Datum;
use std::sync::Arc;

/// `pg_class.relhastriggers`' position.
pub const CLASS_RELHASTRIGGERS: usize = 21;

/// `pg_constraint` columns read only here.
const CON_UPDTYPE: usize = 12;
const CON_DELTYPE: usize = 13;
const CON_MATCHTYPE: usize = 14;

/// What happens to referencing rows when their referenced row is deleted
/// or its key updated (`confdeltype`, `confupdtype`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FkAction {
    /// `a`: fail at the end of the statement (or at commit, if deferred)
    /// unless another row with the key exists by then.
    NoAction,
    /// `r`: fail at the end of the statement, never deferred.
    Restrict,
    /// `c`: delete the referencing rows, or update their keys.
    Cascade,
    /// `n`: set the referencing columns to NULL.
    SetNull,
    /// `d`: set the referencing columns to their defaults.
    SetDefault,
}

impl FkAction {
    /// The letter `pg_constraint` stores.
    pub fn letter(self) -> char {
        match self {
            FkAction::NoAction => 'a',
            FkAction::Restrict => 'r',
            FkAction::Cascade => 'c',
            FkAction::SetNull => 'n',
            FkAction::SetDefault => 'd',
        }
    }

    /// The action a stored letter names.
    pub fn from_letter(letter: &str) -> FkAction {
        match letter {
            "r" => FkAction::Restrict,
            "c" => FkAction::Cascade,
            "n" => FkAction::SetNull,
            "d" => FkAction::SetDefault,
            _ => FkAction::NoAction,
        }
    }

    /// The words `pg_get_constraintdef` prints (None for the default).
    pub fn words(self) -> Option<&'static str> {
        match self {
            FkAction::NoAction => None,
            FkAction::Restrict => Some("RESTRICT"),
            FkAction::Cascade => Some("CASCADE"),
            FkAction::SetNull => Some("SET NULL"),
            FkAction::SetDefault => Some("SET DEFAULT"),
        }
    }
}

/// One foreign key (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct ForeignKey {
    /// `pg_constraint.oid`.
    pub oid: Oid,
    /// Name.
    pub name: String,
    /// The referencing table and its key columns (attnums), in key order.
    pub table: Oid,
    pub columns: Vec<i16>,
    /// The referenced table and its columns, matched position by position.
    pub referenced: Oid,
    pub ref_columns: Vec<i16>,
    /// The referenced table's unique index on `ref_columns`.
    pub index: Oid,
    pub on_update: FkAction,
    pub on_delete: FkAction,
    /// MATCH FULL (`f`): a key is either all NULL or has no NULL; else
    /// MATCH SIMPLE (`s`): a key with any NULL is not checked.
    pub match_full: bool,
    /// DEFERRABLE, and INITIALLY DEFERRED.
    pub deferrable: bool,
    pub initially_deferred: bool,
    /// False while NOT VALID (old rows unchecked).
    pub validated: bool,
}

impl ForeignKey {
    /// The foreign key a `pg_constraint` row of type `f` describes.
    pub fn from_row(r: &[Datum]) -> ForeignKey {
        let letter = |i: usize| r[i].as_str().unwrap_or_default().to_string();
        ForeignKey {
            oid: oid_of(&r[0]),
            name: letter(CON_NAME),
            table: oid_of(&r[CON_RELID]),
            columns: int2_list(&r[CON_KEY]),
            referenced: oid_of(&r[CON_FRELID]),
            ref_columns: int2_list(&r[CON_FKEY]),
            index: oid_of(&r[CON_INDID]),
            on_update: FkAction::from_letter(&letter(CON_UPDTYPE)),
            on_delete: FkAction::from_letter(&letter(CON_DELTYPE)),
            match_full: letter(CON_MATCHTYPE) == "f",
            deferrable: matches!(r[CON_DEFERRABLE], Datum::Bool(true)),
            initially_deferred: matches!(r[CON_DEFERRED], Datum::Bool(true)),
            validated: matches!(r[CON_VALIDATED], Datum::Bool(true)),
        }
    }
}

/// The foreign keys of one table: those it holds and those that reference
/// it (a self-referencing key is in both).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TableForeignKeys {
    /// Keys whose referencing table this is, in creation (OID) order — the
    /// order PostgreSQL fires their triggers in.
    pub outgoing: Vec<Arc<ForeignKey>>,
    /// Keys referencing this table, in creation order.
    pub incoming: Vec<Arc<ForeignKey>>,
}

impl TableForeignKeys {
    /// Whether a key of either direction uses column `attnum` of table
    /// `table` (whose keys these are).
    pub fn involve(&self, table: Oid, attnum: i16) -> bool {
        let referencing =
            self.outgoing.iter().any(|k| k.table == table && k.columns.contains(&attnum));
        let referenced =
            self.incoming.iter().any(|k| k.referenced == table && k.ref_columns.contains(&attnum));
        referencing || referenced
    }
}

/// foreign_keys_of -- table `relid`'s foreign keys, both ways.
pub fn foreign_keys_of(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    relid: Oid,
) -> Result<TableForeignKeys> {
    let key = Datum::Oid(relid);
    let is_fk = |r: &[Datum]| r[CON_TYPE].as_str() == Some("f");
    let collect = |rows: Vec<(sluice_common::ItemPointer, Vec<Datum>)>| {
        let mut keys: Vec<Arc<ForeignKey>> =
            rows.iter().map(|(_, r)| Arc::new(ForeignKey::from_row(r))).collect();
        keys.sort_by_key(|k| k.oid);
        keys
    };
    let outgoing = scan_eq_as(engine, db, &PG_CONSTRAINT, ctx, CON_RELID, &key, is_fk)?;
    let incoming = scan_eq_as(engine, db, &PG_CONSTRAINT, ctx, CON_FRELID, &key, is_fk)?;
    Ok(TableForeignKeys { outgoing: collect(outgoing), incoming: collect(incoming) })
}

/// Whether a `pg_class` row has `relhastriggers` set.
pub fn has_triggers(class: &[Datum]) -> bool {
    matches!(class.get(CLASS_RELHASTRIGGERS), Some(Datum::Bool(true)))
}
