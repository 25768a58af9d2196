//! The `sluice` server (PostgreSQL's postmaster `main`).
//!
//! Start-up order: read settings (built-ins, `postgresql.conf` and
//! `postgresql.auto.conf` in the data directory, then `-c` options), open the
//! storage engine (creating the cluster on first start, recovering after a
//! crash), create the catalogs if this is a new cluster (initdb), then listen.
//! SIGTERM or SIGINT stops accepting connections, ends every session, then
//! every background worker (waiting for each), and writes a shutdown
//! checkpoint so the next start needs no recovery. SIGKILL is
//! survived through WAL recovery.

mod backend;
mod config;
mod sink;

use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// sluice: a PostgreSQL-compatible database server.
#[derive(Parser, Debug)]
#[command(name = "sluice", version, about)]
struct Args {
    /// Data directory (created on first start).
    #[arg(short = 'D', long = "pgdata", env = "PGDATA", default_value = "sluice-data")]
    data_dir: PathBuf,
    /// TCP port to listen on (the `port` setting; default 5433).
    #[arg(short = 'p', long = "port")]
    port: Option<u16>,
    /// Set a configuration parameter, as `-c name=value`.
    #[arg(short = 'c', value_name = "NAME=VALUE")]
    settings: Vec<String>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("sluice: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<(), String> {
    let mut command_line = args.settings.clone();
    if let Some(port) = args.port {
        command_line.push(format!("port={port}"));
    }
    let (instance, listen) = config::start(&args.data_dir, command_line)?;
    let server = sluice_server::Server::bind(listen.as_str())
        .map_err(|e| format!("could not listen on {listen}: {e}"))?;
    eprintln!(
        "sluice: listening on {}, data directory \"{}\"",
        server.local_addr(),
        args.data_dir.display()
    );
    let shutdown = server.shutdown_handle();
    let mut signals = signal_hook::iterator::Signals::new([
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGINT,
    ])
    .map_err(|e| format!("could not install signal handlers: {e}"))?;
    std::thread::spawn(move || {
        if signals.forever().next().is_some() {
            shutdown.shutdown();
        }
    });
    let engine = instance.engine.clone();
    let postmaster = sluice_sql::postmaster::Postmaster::new(instance.clone());
    server.serve(Arc::new(backend::SluiceEngine::new(instance)));
    // Sessions have ended; the workers go next, then the engine's own
    // processes with the shutdown checkpoint.
    postmaster.shutdown();
    engine.shutdown().map_err(|e| format!("shutdown checkpoint failed: {e}"))?;
    eprintln!("sluice: database system is shut down");
    Ok(())
}
