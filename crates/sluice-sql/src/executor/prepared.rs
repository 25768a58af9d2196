//! A backend's prepared statements (PostgreSQL's `commands/prepare.c`
//! hash table): what SQL's PREPARE and the protocol's Parse make, by name,
//! with PostgreSQL's rules for the names — the unnamed statement (only the
//! protocol makes it) is replaced silently, a named one must be new
//! (42P05), a missing one is 26000. The commands are
//! `commands/prepare.rs`; the table lives in the backend's state so that
//! both kinds of statement share it.

use std::collections::HashMap;
use std::sync::Arc;

use sluice_types::SqlType;

use crate::error::{Result, SqlError};
use crate::parser::RawStatement;
use crate::sink::OutputColumn;

/// One prepared statement.
pub struct PreparedStatement {
    /// The statement; `None` for an empty query string (protocol only).
    pub statement: Option<RawStatement>,
    /// The parameter types, given or inferred (`None`: not determined,
    /// which the protocol reports as `text`).
    pub param_types: Vec<Option<SqlType>>,
    /// The result columns, as planned when prepared.
    pub columns: Option<Vec<OutputColumn>>,
}

/// A backend's prepared statements by name (the unnamed one under "").
#[derive(Default)]
pub struct PreparedStatements {
    by_name: HashMap<String, Arc<PreparedStatement>>,
}

impl PreparedStatements {
    /// insert -- adds `statement` as `name`: "" replaces the unnamed one, a
    /// named one must be new.
    pub fn insert(&mut self, name: &str, statement: PreparedStatement) -> Result<()> {
        if !name.is_empty() && self.by_name.contains_key(name) {
            return Err(SqlError::new(
                "42P05",
                format!("prepared statement \"{name}\" already exists"),
            ));
        }
        self.by_name.insert(name.to_string(), Arc::new(statement));
        Ok(())
    }

    /// The statement called `name` (26000 if there is none).
    pub fn get(&self, name: &str) -> Result<Arc<PreparedStatement>> {
        self.by_name.get(name).cloned().ok_or_else(|| missing(name))
    }

    /// Removes `name`, if it exists.
    pub fn remove(&mut self, name: &str) -> Option<Arc<PreparedStatement>> {
        self.by_name.remove(name)
    }
}

/// 26000 for a statement that is not there.
pub(crate) fn missing(name: &str) -> SqlError {
    let message = match name {
        "" => "unnamed prepared statement does not exist".to_string(),
        name => format!("prepared statement \"{name}\" does not exist"),
    };
    SqlError::new("26000", message)
}
