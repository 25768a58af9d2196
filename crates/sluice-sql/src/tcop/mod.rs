//! The traffic cop (PostgreSQL's `tcop/`): a client session — the statement
//! dispatcher and the transaction-block state machine — and the
//! transaction-control statements that drive that machine. It is the top of
//! the SQL layer: everything below receives a `BackendContext`
//! (`executor/context.rs`), never a session.

pub mod session;
mod transaction;

pub use crate::executor::context::Instance;
pub use session::{Session, TxnStatus};
