//! Bringing a data directory up: settings, engine, and the catalogs of a new
//! cluster.

use sluice_access::{Engine, EngineConfig};
use sluice_guc::{ConfigOptions, GlobalConfig, ServerIdentity, Settings};
use sluice_sql::catalog::bootstrap;
use sluice_sql::Instance;
use sluice_txn::SynchronousCommit;
use sluice_wal::{ControlFile, DbState};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// The PostgreSQL version sluice reports to clients (`server_version`), which
/// drivers and psql use to choose their catalog queries.
pub const SERVER_VERSION: &str = "15.0";
/// `server_version_num` to match.
pub const SERVER_VERSION_NUM: i32 = 150000;

/// The `postgresql.conf` a new cluster starts with.
const DEFAULT_CONF: &str = "# sluice configuration file (PostgreSQL syntax: name = value)\nport = 5433\nlisten_addresses = 'localhost'\n";

/// start -- settings, engine and catalogs for `data_dir`; returns the shared
/// instance and the address to listen on.
pub fn start(
    data_dir: &Path,
    command_line: Vec<String>,
) -> Result<(Arc<Instance>, String), String> {
    std::fs::create_dir_all(data_dir)
        .map_err(|e| format!("could not create directory \"{}\": {e}", data_dir.display()))?;
    let conf = data_dir.join("postgresql.conf");
    if !conf.exists() {
        std::fs::write(&conf, DEFAULT_CONF)
            .map_err(|e| format!("could not write \"{}\": {e}", conf.display()))?;
    }
    let config = GlobalConfig::load(ConfigOptions {
        identity: ServerIdentity {
            server_version: SERVER_VERSION.into(),
            server_version_num: SERVER_VERSION_NUM,
        },
        data_directory: data_dir.to_path_buf(),
        config_file: Some(conf),
        defaults: Vec::new(),
        command_line,
    })
    .map_err(|e| e.to_string())?;
    remove_temp_files(data_dir, &config);
    let engine = Engine::open(data_dir, engine_config(&config)).map_err(|e| e.to_string())?;
    if !bootstrap::is_initialized(data_dir) {
        if engine.recovered_records() > 1
            || engine.txns().next_xid().0 > sluice_common::Xid::FIRST_NORMAL.0
        {
            return Err(format!(
                "database cluster \"{}\" was not completely initialized",
                data_dir.display()
            ));
        }
        bootstrap::bootstrap_cluster(&engine).map_err(|e| format!("initdb failed: {e}"))?;
    }
    let listen = listen_address(&config);
    Ok((
        Arc::new(Instance {
            engine,
            config: Arc::new(config),
            activity: Default::default(),
            maintenance: Arc::new(sluice_maint::MaintenanceCommands),
        }),
        listen,
    ))
}

/// remove_temp_files -- deletes the temporary files of statements a previous
/// run of the server was executing when it died (PostgreSQL's
/// `RemovePgTempFiles` at postmaster start). A server shut down cleanly
/// leaves none; after a crash `remove_temp_files_after_crash = off` keeps
/// them for inspection, as in PostgreSQL.
fn remove_temp_files(data_dir: &Path, config: &GlobalConfig) {
    let crashed = ControlFile::read(data_dir)
        .ok()
        .flatten()
        .is_some_and(|control| control.state != DbState::ShutDown);
    if !crashed || config.get_bool("remove_temp_files_after_crash") {
        sluice_sql::remove_leftover_temp_files(data_dir);
    }
}

/// The engine's settings, from the GUCs of the same names.
fn engine_config(config: &GlobalConfig) -> EngineConfig {
    let defaults = EngineConfig::default();
    let bytes =
        |name: &str, fallback: usize| config.get_bytes(name).map_or(fallback, |b| b as usize);
    EngineConfig {
        shared_buffers: bytes("shared_buffers", defaults.shared_buffers),
        wal_buffers: bytes("wal_buffers", defaults.wal_buffers).max(1024 * 1024),
        max_backends: config.get_int("max_connections").max(1) as usize + 16,
        max_prepared_transactions: config.get_int("max_prepared_transactions").max(0) as usize,
        checkpoint_timeout: config
            .get_duration("checkpoint_timeout")
            .unwrap_or(defaults.checkpoint_timeout),
        max_wal_size: config.get_bytes("max_wal_size").unwrap_or(defaults.max_wal_size),
        wal_writer_delay: config
            .get_duration("wal_writer_delay")
            .unwrap_or(Duration::from_millis(200)),
        synchronous_commit: match config.get_enum("synchronous_commit") {
            "off" => SynchronousCommit::Off,
            "local" => SynchronousCommit::Local,
            _ => SynchronousCommit::On,
        },
    }
}

/// `listen_addresses` (first entry; `localhost` and `*` as PostgreSQL means
/// them) and `port`.
fn listen_address(config: &GlobalConfig) -> String {
    let port = config.get_int("port");
    let host = config
        .get_str("listen_addresses")
        .split(',')
        .next()
        .unwrap_or("localhost")
        .trim()
        .to_string();
    let host = match host.as_str() {
        "localhost" | "" => "127.0.0.1".to_string(),
        "*" => "0.0.0.0".to_string(),
        other => other.to_string(),
    };
    format!("{host}:{port}")
}
