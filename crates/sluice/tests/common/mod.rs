//! A sluice server for integration tests: the real binary on a fresh data
//! directory and a free port, stopped (SIGTERM, then waited for) when dropped.

#![allow(dead_code)] // each test binary uses a different subset

pub mod pgbench;

use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running server.
pub struct Server {
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// Its data directory.
    pub dir: tempfile::TempDir,
    /// `-c name=value` settings it starts with (and restarts with).
    settings: Vec<String>,
    child: Option<Child>,
}

/// A port nobody listens on right now.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

impl Server {
    /// Starts a server on a new data directory.
    pub fn start() -> Server {
        Server::start_with(&[])
    }

    /// Starts a server on a new data directory with `settings` (each
    /// `name=value`, given as `-c`; e.g. postmaster-context settings such as
    /// `max_prepared_transactions=10`).
    pub fn start_with(settings: &[&str]) -> Server {
        let dir = tempfile::tempdir().expect("tempdir");
        let settings = settings.iter().map(|s| s.to_string()).collect();
        let mut server = Server { port: free_port(), dir, settings, child: None };
        server.spawn();
        server
    }

    /// Starts the binary on this server's directory and port and waits until it
    /// accepts connections.
    pub fn spawn(&mut self) {
        self.spawn_with(&[]);
    }

    /// [`Server::spawn`] with `extra` settings (`name=value`) for this run only.
    pub fn spawn_with(&mut self, extra: &[&str]) {
        let child = Command::new(env!("CARGO_BIN_EXE_sluice"))
            .arg("-D")
            .arg(self.dir.path())
            .args(["-p", &self.port.to_string()])
            .args(
                self.settings
                    .iter()
                    .map(String::as_str)
                    .chain(extra.iter().copied())
                    .flat_map(|s| ["-c", s]),
            )
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start sluice");
        self.child = Some(child);
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(start.elapsed() < Duration::from_secs(60), "sluice did not start listening");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("running").id()
    }

    /// A connection string for the `postgres` crate.
    pub fn conninfo(&self) -> String {
        format!("host=127.0.0.1 port={} user=postgres dbname=postgres", self.port)
    }

    /// Kills the server with SIGKILL (crash tests).
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Stops the server with SIGTERM and waits for its shutdown checkpoint.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
            let _ = child.wait();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}
