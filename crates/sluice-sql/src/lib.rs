//! SQL: from query text to results.
//!
//! * [`parser`] — PostgreSQL's grammar via `pg_query`.

mod error;
pub mod parser;

pub use error::{Result, SqlError};
