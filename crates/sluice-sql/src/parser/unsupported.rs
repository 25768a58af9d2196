//! Refusing what the parser accepts but sluice does not implement.
//!
//! `pg_query` is PostgreSQL's own grammar, so it accepts every clause
//! PostgreSQL has. The analysis code reads the fields of a parse node that it
//! implements; a field it never reads would otherwise be dropped without a
//! word — `PARTITION BY` making a plain table, `ON CONFLICT DO NOTHING` still
//! raising the duplicate key. So each analysis entry point names, next to the
//! fields it reads, every field it does not, through [`refuse`]: a clause that
//! is present fails with 0A000 feature_not_supported and a message naming it,
//! PostgreSQL's wording for features it lacks ("... is not supported yet").
//! A reviewer can then see at one place that no field of the node is left
//! unaccounted for; a field that is neither read nor refused is a bug.

use crate::error::{Result, SqlError};

/// refuse -- 0A000 with `message` if `present` (a clause sluice does not
/// implement was written), else Ok.
pub(crate) fn refuse(present: bool, message: &str) -> Result<()> {
    if present {
        return Err(SqlError::unsupported(message));
    }
    Ok(())
}

/// Whether a tablespace name asks for something other than the default
/// tablespace (the only one sluice has).
pub(crate) fn other_tablespace(name: &str) -> bool {
    !name.is_empty() && name != "pg_default"
}
