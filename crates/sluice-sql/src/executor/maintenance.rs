//! The maintenance commands as the statement dispatcher sees them.
//!
//! VACUUM, ANALYZE, VACUUM FULL/CLUSTER and REINDEX live in the
//! `sluice-maint` crate, above this one: they are built from the executor,
//! the catalog and the index builds here, and autovacuum's workers call them
//! with no client session. The dispatcher (`tcop`) and the background
//! workers of this crate reach them through the [`Maintenance`] the
//! instance was started with (`Instance::maintenance`), the way PostgreSQL's
//! `ProcessUtility` reaches `ExecVacuum`, with the dependency turned around
//! so that no module here imports the crate built on it. The trait sits
//! beside `Instance` (`context.rs`), which holds it; `commands` re-exports it.

use crate::error::Result;
use crate::executor::context::BackendContext;
use crate::sink::QuerySink;
use pg_query::protobuf::{ClusterStmt, ReindexStmt, VacuumStmt};

/// The maintenance statements' entry points; each takes the backend's
/// context, so a client session and a background worker run them alike.
pub trait Maintenance: Send + Sync {
    /// `VACUUM ...` (`stmt.is_vacuumcmd`) or `ANALYZE ...`.
    fn vacuum(
        &self,
        cx: &mut dyn BackendContext,
        stmt: &VacuumStmt,
        sink: &mut dyn QuerySink,
    ) -> Result<()>;

    /// `CLUSTER ...`.
    fn cluster(
        &self,
        cx: &mut dyn BackendContext,
        stmt: &ClusterStmt,
        sink: &mut dyn QuerySink,
    ) -> Result<()>;

    /// `REINDEX ...`.
    fn reindex(
        &self,
        cx: &mut dyn BackendContext,
        stmt: &ReindexStmt,
        sink: &mut dyn QuerySink,
    ) -> Result<()>;
}
