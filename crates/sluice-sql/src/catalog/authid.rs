//! Roles in the shared `pg_authid` (PostgreSQL's `catalog/pg_authid.h` and
//! the name lookups of `utils/adt/acl.c`).
//!
//! sluice has one role per cluster so far (its bootstrap superuser);
//! commands that name a role — CREATE DATABASE ... OWNER, ALTER ... OWNER
//! TO — look it up here and fail as PostgreSQL does for a name that is not
//! one.

use super::relation::oid_of;
use super::scan;
use super::schema::PG_AUTHID;
use crate::error::{Result, SqlError};
use sluice_access::Engine;
use sluice_common::Oid;
use sluice_txn::Transaction;

/// role_oid -- the OID of role `name`, 42704 if there is none.
pub fn role_oid(engine: &Engine, txn: &mut Transaction, name: &str) -> Result<Oid> {
    let rows = scan(engine, 0, &PG_AUTHID, txn, |r| r[1].as_str() == Some(name))?;
    rows.first()
        .map(|(_, r)| oid_of(&r[0]))
        .ok_or_else(|| SqlError::new("42704", format!("role \"{name}\" does not exist")))
}
