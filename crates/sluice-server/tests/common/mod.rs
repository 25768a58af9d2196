//! Test harness: a real server on 127.0.0.1:0 running the toy engine, and a raw
//! protocol client for feeding it malformed bytes.
//!
//! Each test binary uses a different subset of these helpers.
#![allow(dead_code)]

pub mod engine;
pub mod raw;

use std::net::SocketAddr;
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use sluice_server::{Server, ShutdownHandle};

use engine::{Shared, TestEngine};

/// A running server; shut down and joined on drop.
pub struct TestServer {
    /// Where it listens.
    pub addr: SocketAddr,
    /// The toy engine's shared state.
    pub shared: Arc<Shared>,
    /// Stops the server.
    pub shutdown: ShutdownHandle,
    /// The accept loop's thread.
    thread: Option<JoinHandle<()>>,
}

impl TestServer {
    /// Start a server on a free loopback port.
    pub fn start() -> TestServer {
        let server = Server::bind("127.0.0.1:0").expect("bind");
        let addr = server.local_addr();
        let shutdown = server.shutdown_handle();
        let shared = Arc::new(Shared::default());
        let engine = Arc::new(TestEngine { shared: Arc::clone(&shared) });
        let thread = thread::spawn(move || server.serve(engine));
        TestServer { addr, shared, shutdown, thread: Some(thread) }
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// A `postgres` crate client connected as user postgres.
    pub fn client(&self) -> postgres::Client {
        self.config().connect(postgres::NoTls).expect("connect")
    }

    /// Connection settings for the `postgres` crate.
    pub fn config(&self) -> postgres::Config {
        let mut config = postgres::Config::new();
        config.host("127.0.0.1").port(self.port()).user("postgres").dbname("postgres");
        config.connect_timeout(Duration::from_secs(10));
        config
    }

    /// Stop the server and wait until every session has ended.
    pub fn stop(&mut self) {
        self.shutdown.shutdown();
        if let Some(t) = self.thread.take() {
            t.join().expect("accept loop panicked");
        }
    }

    /// Wait (bounded) until the engine recorded event `e`.
    pub fn wait_for_event(&self, e: &str) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !self.shared.has_event(e) {
            assert!(
                Instant::now() < deadline,
                "event {e:?} never happened; saw {:?}",
                self.shared.events.lock()
            );
            thread::sleep(Duration::from_millis(10));
        }
    }

    /// Check the server still serves a well-behaved client.
    pub fn assert_healthy(&self) {
        let mut client = self.client();
        let rows = client.simple_query("SELECT 2").expect("healthy query");
        let n = rows.iter().filter(|m| matches!(m, postgres::SimpleQueryMessage::Row(_))).count();
        assert_eq!(n, 2);
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop();
    }
}
