//! Test support: a real cluster in a temporary directory (engine,
//! bootstrapped catalogs, default settings) and sessions on it, so tests
//! can drive the SQL layer without the protocol. The crate's own unit tests
//! use it, and so do the crates above it (the `testing` feature).
//!
//! This crate cannot run the maintenance commands itself (they are the
//! `sluice-maint` crate's): [`instance`] refuses them, and the crates that
//! have them pass theirs to [`instance_with`].

use crate::activity::BackendSignal;
use crate::catalog::bootstrap;
use crate::commands::Maintenance;
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::sink::{OutputColumn, QuerySink};
use crate::tcop::{Instance, Session};
use pg_query::protobuf::{ClusterStmt, ReindexStmt, VacuumStmt};
use sluice_access::{Engine, EngineConfig};
use sluice_guc::{GlobalConfig, ServerIdentity};
use sluice_types::Datum;
use std::sync::Arc;

/// A cluster in `dir`, initialised on first use, without maintenance
/// commands.
pub fn instance(dir: &std::path::Path) -> Arc<Instance> {
    instance_with(dir, Arc::new(NoMaintenance))
}

/// A cluster in `dir`, initialised on first use, running VACUUM and the
/// other maintenance commands with `maintenance`.
pub fn instance_with(dir: &std::path::Path, maintenance: Arc<dyn Maintenance>) -> Arc<Instance> {
    let config = EngineConfig { shared_buffers: 8 * 1024 * 1024, ..EngineConfig::default() };
    let engine = Engine::open(dir, config).expect("engine opens");
    if !bootstrap::is_initialized(dir) {
        bootstrap::bootstrap_cluster(&engine).expect("initdb");
    }
    let identity = ServerIdentity { server_version: "15.0".into(), server_version_num: 150000 };
    Arc::new(Instance {
        engine,
        config: Arc::new(GlobalConfig::new(identity)),
        activity: Default::default(),
        maintenance,
    })
}

/// The maintenance commands of an instance that has none: each is refused.
struct NoMaintenance;

impl NoMaintenance {
    fn refuse(what: &str) -> Result<()> {
        Err(SqlError::unsupported(format!("{what} needs the sluice-maint crate")))
    }
}

impl Maintenance for NoMaintenance {
    fn vacuum(
        &self,
        _: &mut dyn BackendContext,
        _: &VacuumStmt,
        _: &mut dyn QuerySink,
    ) -> Result<()> {
        NoMaintenance::refuse("VACUUM")
    }

    fn cluster(
        &self,
        _: &mut dyn BackendContext,
        _: &ClusterStmt,
        _: &mut dyn QuerySink,
    ) -> Result<()> {
        NoMaintenance::refuse("CLUSTER")
    }

    fn reindex(
        &self,
        _: &mut dyn BackendContext,
        _: &ReindexStmt,
        _: &mut dyn QuerySink,
    ) -> Result<()> {
        NoMaintenance::refuse("REINDEX")
    }
}

/// Signals to a test session go nowhere: nothing cancels it.
struct NoSignal;

impl BackendSignal for NoSignal {
    fn cancel(&self) {}

    fn terminate(&self) {}
}

/// A session of `postgres` on database `postgres`, as backend `pid`.
pub fn session(instance: &Arc<Instance>, pid: u32) -> Session {
    let interrupts = Arc::new(|| Ok(()));
    Session::connect(instance.clone(), "postgres", "postgres", pid, interrupts, Arc::new(NoSignal))
        .expect("session connects")
}

/// Collects a statement's rows as text.
#[derive(Default)]
pub struct Rows(pub Vec<Vec<String>>);

impl QuerySink for Rows {
    fn columns(&mut self, _: &[OutputColumn]) -> Result<()> {
        Ok(())
    }

    fn row(&mut self, values: &[Datum]) -> Result<()> {
        self.0.push(values.iter().map(|v| format!("{v:?}")).collect());
        Ok(())
    }

    fn complete(&mut self, _: &str) -> Result<()> {
        Ok(())
    }

    fn notice(&mut self, _: &SqlError) -> Result<()> {
        Ok(())
    }
}

/// run -- runs `sql` in `session`, panicking on error; returns its rows.
pub fn run(session: &mut Session, sql: &str) -> Vec<Vec<String>> {
    let mut rows = Rows::default();
    if let Err(e) = session.simple_query(sql, &mut rows) {
        panic!("{sql}: {e:?}");
    }
    rows.0
}
