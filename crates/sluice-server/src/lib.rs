//! sluice's network front: the listener, one backend thread per session, and the
//! PostgreSQL v3 wire protocol, up to a trait boundary behind which the SQL engine
//! lives. In PostgreSQL terms: the postmaster's accept loop, `tcop/postgres.c`,
//! `libpq/pqcomm.c` and `pqformat.c`, `tcop/dest.c`, and the cancel-key handling.
//!
//! # Shape
//!
//! ```text
//!   Server::serve (postmaster.rs)              accept loop, one thread per connection
//!     └─ backend_main (backend.rs)             catch_unwind; startup; Engine::connect
//!          ├─ process_startup_packet           SSL/GSS 'N', CancelRequest, protocol 3.0,
//!          │    (startup.rs)                   user/database/options/settings
//!          └─ postgres_main (tcop.rs)          read → dispatch → ReadyForQuery
//!               ├─ PqConnection (pqcomm.rs)    framing, length limits, send buffer
//!               ├─ decode (frontend.rs,        frontend messages, bounds-checked,
//!               │    pqformat.rs)              UTF8-verified
//!               ├─ exec_* (extended.rs)        Parse/Bind/Describe/Execute/Close
//!               └─ RemoteDest (dest.rs,        the engine's Output: rows, tags,
//!                    copy.rs)                  notices, COPY streams
//! ```
//!
//! The engine plugs in through [`Engine`] / [`Session`] (`engine.rs`) and writes its
//! results through [`Output`] (`output.rs`); see those for the contract. Errors and
//! notices are [`PgError`] reports with PostgreSQL's severities, SQLSTATEs and
//! fields. Helpers for the name rules of prepared statements and portals, which the
//! engine owns but which need no SQL knowledge, are in `prepared.rs`.
//!
//! # Threads and locking
//!
//! Sessions are OS threads (DESIGN.md decision 1): a session blocks freely — on the
//! socket, in a lock wait — without stalling anybody else. A session's connection,
//! protocol state and `Session` object are owned by its thread and never locked.
//! Shared between threads are only:
//! - the cancel registry (`cancel.rs`): one mutex, held for map operations only;
//! - each session's [`Interrupts`]: atomics, plus a condition variable for sleepers;
//! - the server's stop flag: an atomic.
//!
//! The engine behind the trait brings its own, documented locking.
//!
//! # Robustness
//!
//! Nothing a client sends can panic this crate or make it allocate more than the
//! client actually sent: every length is checked before use, bodies grow as bytes
//! arrive, and every read of a message body is bounds-checked. Panics in engine code
//! are caught per session and reported as FATAL XX000 to that client only. A client
//! that vanishes mid-statement makes the next write fail, which sets the session's
//! cancel flag and ends the thread.
//!
//! # Not here (yet)
//!
//! TLS and GSS encryption (requests are refused with 'N'), authentication other than
//! trust, protocol 3.2 (negotiated down to 3.0), fast-path function calls,
//! replication connections, and COPY BOTH.

mod backend;
mod cancel;
mod copy;
mod dest;
mod engine;
mod error;
mod extended;
mod frontend;
mod interrupts;
mod output;
mod postmaster;
mod pqcomm;
mod pqformat;
mod prepared;
mod sqlstate;
mod startup;
mod tcop;

pub use engine::{
    BindParam, BindRequest, Engine, PortalRun, ResultFormats, Session, SessionContext,
    StatementDescription, TransactionStatus,
};
pub use error::{ErrorFields, PgError, Severity};
pub use interrupts::Interrupts;
pub use output::{CopyFormat, CopyIn, CopyOut, FieldDescription, Format, Output};
pub use postmaster::{Server, ServerError, ShutdownHandle};
pub use prepared::{
    check_bind_parameter_count, NameTable, Namespace, PortalNames, Portals, PreparedStatements,
    StatementNames,
};
pub use sqlstate::SqlState;
pub use startup::StartupInfo;
