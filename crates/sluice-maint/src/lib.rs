//! Maintenance: the commands that clean up after MVCC (PostgreSQL's
//! `commands/vacuum.c`, `analyze.c`, `cluster.c` and the REINDEX half of
//! `indexcmds.c`).
//!
//! * [`vacuum`] — lazy VACUUM of tables and their indexes (the page work
//!   itself is `sluice-access`'s `heap/vacuumlazy.rs`).
//! * [`analyze`] — ANALYZE: row samples and the `pg_statistic` rows the
//!   planner estimates from.
//! * [`cluster`] — VACUUM FULL and CLUSTER: a table rewritten into a new
//!   file.
//! * [`reindex`] — REINDEX: indexes rebuilt into new files, CONCURRENTLY
//!   beside running writers.
//!
//! # Who runs them
//!
//! Every command takes a `BackendContext` (`sluice-sql`'s
//! `executor/context.rs`), never a client session, so a client's statement
//! and a background worker with no client (autovacuum) run the same code.
//! The SQL layer's dispatcher reaches them through [`MaintenanceCommands`],
//! the `sluice_sql::commands::Maintenance` this crate provides: the server
//! starts its instance with it. That keeps the dependency one way — this
//! crate is built on the executor, the catalog and the index builds of
//! `sluice-sql`, and nothing there imports it.

pub mod analyze;
pub mod cluster;
pub mod reindex;
pub mod vacuum;

use pg_query::protobuf::{ClusterStmt, ReindexStmt, VacuumStmt};
use sluice_sql::commands::Maintenance;
use sluice_sql::executor::context::BackendContext;
use sluice_sql::{QuerySink, Result};

/// The maintenance commands, for `sluice_sql::Instance::maintenance`.
pub struct MaintenanceCommands;

impl Maintenance for MaintenanceCommands {
    fn vacuum(
        &self,
        cx: &mut dyn BackendContext,
        stmt: &VacuumStmt,
        sink: &mut dyn QuerySink,
    ) -> Result<()> {
        if stmt.is_vacuumcmd {
            vacuum::vacuum(cx, stmt, sink)
        } else {
            analyze::analyze(cx, stmt, sink)
        }
    }

    fn cluster(
        &self,
        cx: &mut dyn BackendContext,
        stmt: &ClusterStmt,
        sink: &mut dyn QuerySink,
    ) -> Result<()> {
        cluster::cluster(cx, stmt, sink)
    }

    fn reindex(
        &self,
        cx: &mut dyn BackendContext,
        stmt: &ReindexStmt,
        sink: &mut dyn QuerySink,
    ) -> Result<()> {
        reindex::reindex(cx, stmt, sink)
    }
}
