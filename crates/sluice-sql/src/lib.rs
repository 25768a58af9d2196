//! SQL: from query text to results.
//!
//! * [`parser`] — PostgreSQL's grammar via `pg_query`.
//! * [`activity`] — what every session is doing (`pg_stat_activity`).
//! * [`catalog`] — the system catalogs as heap tables, bootstrap, relation lookup.
//! * [`expr`] — typed expressions: analysis from parse trees, coercion, evaluation.
//! * `executor` — planning and running SELECT/INSERT/UPDATE/DELETE.
//! * `optimizer` — the cost model: scan sizes, selectivities, path choice.
//! * `commands` — utility statements: transactions, SET/SHOW/ALTER SYSTEM,
//!   CREATE/DROP TABLE, sequences, databases, COPY, LOCK.
//! * `plancache` — a session's kept SELECT plans, reused while the catalogs
//!   and settings they were planned under hold.
//! * [`session`] — a client session and its transaction block state machine.

pub mod activity;
pub mod catalog;
mod commands;
mod error;
mod executor;
pub mod expr;
mod optimizer;
pub mod parser;
mod plancache;
pub mod session;
pub mod sink;

pub use activity::BackendSignal;
pub use error::{Result, SqlError};
pub use executor::spill::remove_leftover_temp_files;
pub use session::{Instance, InterruptCheck, Session, TxnStatus};
pub use sink::{OutputColumn, QuerySink};
