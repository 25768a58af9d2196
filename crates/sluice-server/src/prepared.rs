//! Name tables for prepared statements and portals, with PostgreSQL's rules and words.
//!
//! The engine owns prepared statements and portals (SQL's PREPARE/DECLARE share
//! them with the protocol), but the rules about their *names* need no SQL
//! knowledge and must read exactly like PostgreSQL's (`commands/prepare.c`,
//! `utils/mmgr/portalmem.c`, `tcop/postgres.c`), so they are written once here:
//!
//! - The unnamed object ("") is replaced silently by the next Parse / Bind.
//! - A named one must not exist yet: 42P05 `prepared statement "s" already exists`,
//!   42P03 `cursor "p" already exists`.
//! - Looking up a missing one: 26000 `prepared statement "s" does not exist` (or
//!   `unnamed prepared statement does not exist`), 34000 `portal "p" does not exist`.
//! - Closing a missing one is not an error.
//! - Bind must supply exactly as many values as the statement has parameters
//!   ([`check_bind_parameter_count`]).
//!
//! A table is plain owned data inside one session: no locking.

use std::collections::HashMap;
use std::marker::PhantomData;

use crate::error::PgError;
use crate::sqlstate::SqlState;

/// A session's prepared statements, `T` being the engine's prepared statement.
pub type PreparedStatements<T> = NameTable<T, StatementNames>;

/// A session's portals, `T` being the engine's portal.
pub type Portals<T> = NameTable<T, PortalNames>;

/// The errors one kind of name table reports.
pub trait Namespace {
    /// The error for creating a named object that exists.
    fn duplicate(name: &str) -> PgError;
    /// The error for looking up an object that does not exist.
    fn missing(name: &str) -> PgError;
}

/// The namespace of prepared statements (SQL PREPARE and protocol Parse).
pub struct StatementNames;

impl Namespace for StatementNames {
    fn duplicate(name: &str) -> PgError {
        PgError::error(
            SqlState::DUPLICATE_PSTATEMENT,
            format!("prepared statement \"{name}\" already exists"),
        )
    }

    fn missing(name: &str) -> PgError {
        let message = if name.is_empty() {
            "unnamed prepared statement does not exist".to_string()
        } else {
            format!("prepared statement \"{name}\" does not exist")
        };
        PgError::error(SqlState::UNDEFINED_PSTATEMENT, message)
    }
}

/// The namespace of portals (SQL DECLARE and protocol Bind).
pub struct PortalNames;

impl Namespace for PortalNames {
    fn duplicate(name: &str) -> PgError {
        PgError::error(SqlState::DUPLICATE_CURSOR, format!("cursor \"{name}\" already exists"))
    }

    fn missing(name: &str) -> PgError {
        PgError::error(SqlState::UNDEFINED_CURSOR, format!("portal \"{name}\" does not exist"))
    }
}

/// Objects by name, with the rules of namespace `N` (see the module documentation).
pub struct NameTable<T, N: Namespace> {
    /// The objects; the unnamed one is stored under "".
    by_name: HashMap<String, T>,
    /// Which error messages apply.
    namespace: PhantomData<N>,
}

impl<T, N: Namespace> Default for NameTable<T, N> {
    fn default() -> Self {
        NameTable { by_name: HashMap::new(), namespace: PhantomData }
    }
}

impl<T, N: Namespace> NameTable<T, N> {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// insert -- add `object` as `name`; "" replaces the unnamed object, a named one
    /// must be new.
    pub fn insert(&mut self, name: &str, object: T) -> Result<(), PgError> {
        if !name.is_empty() && self.by_name.contains_key(name) {
            return Err(N::duplicate(name));
        }
        self.by_name.insert(name.to_string(), object);
        Ok(())
    }

    /// The object called `name`, or the namespace's "does not exist" error.
    pub fn get(&self, name: &str) -> Result<&T, PgError> {
        self.by_name.get(name).ok_or_else(|| N::missing(name))
    }

    /// Like [`NameTable::get`], for changing the object (e.g. a portal's position).
    pub fn get_mut(&mut self, name: &str) -> Result<&mut T, PgError> {
        self.by_name.get_mut(name).ok_or_else(|| N::missing(name))
    }

    /// Remove `name` if it exists (Close, DEALLOCATE); absent names are no error.
    pub fn remove(&mut self, name: &str) -> Option<T> {
        self.by_name.remove(name)
    }

    /// Remove everything (portals at transaction end).
    pub fn clear(&mut self) {
        self.by_name.clear();
    }
}

/// check_bind_parameter_count -- Bind must supply exactly the statement's parameters.
pub fn check_bind_parameter_count(
    statement: &str,
    required: usize,
    supplied: usize,
) -> Result<(), PgError> {
    if required == supplied {
        return Ok(());
    }
    Err(PgError::error(
        SqlState::PROTOCOL_VIOLATION,
        format!(
            "bind message supplies {supplied} parameters, but prepared statement \"{statement}\" requires {required}"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unnamed_statement_is_replaced_named_is_not() {
        let mut t = PreparedStatements::new();
        t.insert("", 1).unwrap();
        t.insert("", 2).unwrap();
        assert_eq!(*t.get("").unwrap(), 2);
        t.insert("s", 3).unwrap();
        let e = t.insert("s", 4).unwrap_err();
        assert_eq!(e.code, SqlState::DUPLICATE_PSTATEMENT);
        assert_eq!(e.message, "prepared statement \"s\" already exists");
    }

    #[test]
    fn missing_objects_use_postgres_words() {
        let mut statements: PreparedStatements<()> = PreparedStatements::new();
        assert_eq!(
            statements.get("x").unwrap_err().message,
            "prepared statement \"x\" does not exist"
        );
        assert_eq!(
            statements.get("").unwrap_err().message,
            "unnamed prepared statement does not exist"
        );
        assert_eq!(statements.remove("x"), None);
        let mut portals: Portals<()> = Portals::new();
        let e = portals.get_mut("p").unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (SqlState::UNDEFINED_CURSOR, "portal \"p\" does not exist")
        );
        portals.insert("p", ()).unwrap();
        assert_eq!(portals.insert("p", ()).unwrap_err().message, "cursor \"p\" already exists");
        portals.clear();
        assert!(portals.get("p").is_err());
    }

    #[test]
    fn bind_parameter_count_message() {
        assert!(check_bind_parameter_count("", 1, 1).is_ok());
        let e = check_bind_parameter_count("", 1, 2).unwrap_err();
        assert_eq!(
            e.message,
            "bind message supplies 2 parameters, but prepared statement \"\" requires 1"
        );
        assert_eq!(e.code, SqlState::PROTOCOL_VIOLATION);
    }
}
