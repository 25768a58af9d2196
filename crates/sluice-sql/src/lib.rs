//! SQL: from query text to results.
//!
//! * [`parser`] — PostgreSQL's grammar via `pg_query`.
//! * [`activity`] — what every session is doing (`pg_stat_activity`).
//! * [`catalog`] — the system catalogs as heap tables, bootstrap, relation lookup.
//! * [`expr`] — typed expressions: analysis from parse trees, coercion, evaluation.
//! * [`executor`] — planning and running SELECT/INSERT/UPDATE/DELETE.
//! * `optimizer` — the cost model: scan sizes, selectivities, path choice.
//! * [`commands`] — utility statements: transactions, SET/SHOW/ALTER SYSTEM,
//!   CREATE/DROP TABLE, sequences, databases, COPY, LOCK, EXPLAIN. VACUUM, ANALYZE,
//!   CLUSTER and REINDEX are the `sluice-maint` crate's, reached through
//!   [`commands::Maintenance`].
//! * [`postmaster`] — backends without a client: background workers.
//! * [`tcop`] — the traffic cop: a client session, its statement dispatch
//!   and its transaction block state machine.
//! * [`xact`] — a backend's transaction state: one resource owner per
//!   (sub)transaction level.

pub mod activity;
pub mod catalog;
pub mod commands;
pub mod error;
pub mod executor;
pub mod expr;
mod optimizer;
pub mod parser;
pub mod postmaster;
pub mod sink;
pub mod tcop;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod xact;

pub use activity::BackendSignal;
pub use activity::InterruptCheck;
pub use error::{Result, SqlError};
pub use executor::spill::remove_leftover_temp_files;
pub use expr::session_context;
pub use sink::{OutputColumn, QuerySink};
pub use tcop::{Instance, Session, TxnStatus};
