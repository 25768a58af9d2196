//! Unit-test support: a real cluster in a temporary directory (engine,
//! bootstrapped catalogs, default settings) and sessions on it, so tests
//! inside the crate can drive the SQL layer without the protocol.

use crate::activity::BackendSignal;
use crate::catalog::bootstrap;
use crate::error::{Result, SqlError};
use crate::sink::{OutputColumn, QuerySink};
use crate::tcop::{Instance, Session};
use sluice_access::{Engine, EngineConfig};
use sluice_guc::{GlobalConfig, ServerIdentity};
use sluice_types::Datum;
use std::sync::Arc;

/// A cluster in `dir`, initialised on first use.
pub fn instance(dir: &std::path::Path) -> Arc<Instance> {
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
    })
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
