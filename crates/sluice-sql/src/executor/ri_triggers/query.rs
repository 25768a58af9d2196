//! The SQL of the referential checks and actions, written as PostgreSQL's
//! `ri_triggers.c` writes it: `ONLY` the named table (no inheritance
//! reaches it), every name quoted and schema-qualified so that no
//! search_path or lookalike object changes what it means, and the key as
//! `$n` parameters so that one text (and one kept plan) serves every row.

use super::super::context::ExecParts;
use crate::catalog::relation::RelationDesc;
use crate::catalog::statistic::namespace_names;
use crate::error::{Result, SqlError};
use crate::parser::quote_identifier;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_common::Oid;
use std::collections::HashMap;

/// One query's text.
pub struct KeyQuery(pub String);

/// What an UPDATE action sets the referencing columns to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetTo {
    /// The new key, `$1..$n` (ON UPDATE CASCADE; the old key follows).
    Params,
    Null,
    Default,
}

impl KeyQuery {
    /// `SELECT 1 FROM ONLY t x WHERE k1 = $1 AND ... FOR KEY SHARE OF x`:
    /// the rows of `rel` whose `columns` hold the key, locked so that they
    /// keep it until this transaction ends.
    pub fn lock_rows(table: &str, rel: &RelationDesc, columns: &[i16]) -> Self {
        let qual = key_qual(rel, columns, 1);
        KeyQuery(format!("SELECT 1 FROM ONLY {table} x WHERE {qual} FOR KEY SHARE OF x"))
    }

    /// `DELETE FROM ONLY t WHERE k1 = $1 AND ...` (ON DELETE CASCADE).
    pub fn delete(table: &str, rel: &RelationDesc, columns: &[i16]) -> Self {
        KeyQuery(format!("DELETE FROM ONLY {table} WHERE {}", key_qual(rel, columns, 1)))
    }

    /// `UPDATE ONLY t SET k1 = ... WHERE k1 = $m AND ...`: the referencing
    /// rows of an old key get the new one, NULL or their defaults.
    pub fn update(table: &str, rel: &RelationDesc, columns: &[i16], to: SetTo) -> Self {
        let sets: Vec<String> = columns
            .iter()
            .enumerate()
            .map(|(i, &a)| {
                let value = match to {
                    SetTo::Params => format!("${}", i + 1),
                    SetTo::Null => "NULL".into(),
                    SetTo::Default => "DEFAULT".into(),
                };
                format!("{} = {value}", column_name(rel, a))
            })
            .collect();
        let first = if to == SetTo::Params { columns.len() + 1 } else { 1 };
        let qual = key_qual(rel, columns, first);
        KeyQuery(format!("UPDATE ONLY {table} SET {} WHERE {qual}", sets.join(", ")))
    }
}

/// `k1 = $first AND k2 = $first+1 ...`
fn key_qual(rel: &RelationDesc, columns: &[i16], first: usize) -> String {
    let terms: Vec<String> = columns
        .iter()
        .enumerate()
        .map(|(i, &a)| format!("{} = ${}", column_name(rel, a), first + i))
        .collect();
    terms.join(" AND ")
}

fn column_name(rel: &RelationDesc, attnum: i16) -> String {
    quote_identifier(&rel.columns[attnum as usize - 1].name)
}

/// Every schema's name by OID, for [`qualified_name`].
pub(crate) fn schema_names(parts: &mut ExecParts) -> Result<HashMap<Oid, String>> {
    let ctx = VisibilityContext::for_transaction(parts.txn, parts.engine.txns());
    namespace_names(parts.engine, parts.env.database, &ctx)
}

/// `schema.table`, both quoted as needed.
pub(crate) fn qualified_name(schemas: &HashMap<Oid, String>, rel: &RelationDesc) -> Result<String> {
    let schema = schemas.get(&rel.namespace).ok_or_else(|| {
        SqlError::internal(format!("cache lookup failed for namespace {}", rel.namespace))
    })?;
    Ok(format!("{}.{}", quote_identifier(schema), quote_identifier(&rel.name)))
}
