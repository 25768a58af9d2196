//! The listener: accept connections, start one backend thread each, shut down
//! (PostgreSQL's postmaster, minus everything that is not about client sessions).
//!
//! [`Server::serve`] is a blocking accept loop. Each accepted connection is entered
//! in the cancel registry (which gives it a pid and secret key) and handed to a new
//! OS thread running `backend::backend_main`; PostgreSQL forks a process at the same
//! point. Finished threads are forgotten as new ones start, so the list of handles
//! stays as long as the number of live sessions.
//!
//! Shutdown. A [`ShutdownHandle`] (cheap to clone, usable from any thread, e.g. the
//! binary's SIGTERM handler) does, in this order:
//! 1. marks the server as stopping;
//! 2. closes the registry and tells every session to terminate (terminate flag set,
//!    socket read side shut down, so idle sessions wake at once and send FATAL 57P01
//!    `terminating connection due to administrator command`);
//! 3. connects to the listening socket itself, to wake the blocked `accept`.
//!
//! `serve` then stops accepting, waits for every backend thread to finish and
//! returns: when it returns no session is running. A connection that slips in
//! between steps 2 and 3 is answered FATAL 57P03 `the database system is shutting
//! down`.
//!
//! Locking: the stop flag is an atomic; the registry has its own lock (`cancel.rs`).

use std::fmt;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::Duration;

use crate::backend::{backend_main, refuse_connection};
use crate::cancel::CancelRegistry;
use crate::engine::Engine;

/// Stack of each backend thread: deep enough for recursive parse trees and
/// expression evaluation (PostgreSQL's usual 8 MB `ulimit -s`).
const BACKEND_STACK_SIZE: usize = 8 * 1024 * 1024;

/// Pause after a failed accept (e.g. out of file descriptors) before retrying.
const ACCEPT_RETRY_DELAY: Duration = Duration::from_millis(100);

/// How long the shutdown handle tries to reach the listener to wake it.
const WAKE_CONNECT_TIMEOUT: Duration = Duration::from_secs(1);

/// A bound listening socket, ready to [`serve`](Server::serve).
pub struct Server {
    /// The listening socket.
    listener: TcpListener,
    /// The address actually bound (port 0 resolved).
    local_addr: SocketAddr,
    /// Live backends: cancel keys and shutdown handles.
    registry: Arc<CancelRegistry>,
    /// Set when shutdown was requested.
    stopping: Arc<AtomicBool>,
}

/// Stops a [`Server`]: see the module documentation.
#[derive(Clone)]
pub struct ShutdownHandle {
    /// The server's stop flag.
    stopping: Arc<AtomicBool>,
    /// The server's backends.
    registry: Arc<CancelRegistry>,
    /// Where to connect to wake the accept loop.
    wake_addr: SocketAddr,
}

/// Why the server could not start.
#[derive(Debug)]
pub enum ServerError {
    /// The listening socket could not be created or bound.
    Bind {
        /// The address asked for.
        addr: String,
        /// The operating system's reason.
        source: io::Error,
    },
}

impl Server {
    /// bind -- listen on `addr` (e.g. `"127.0.0.1:5433"`; port 0 picks a free port).
    pub fn bind<A: ToSocketAddrs + fmt::Display>(addr: A) -> Result<Server, ServerError> {
        let bind_error = |source| ServerError::Bind { addr: addr.to_string(), source };
        let listener = TcpListener::bind(&addr).map_err(bind_error)?;
        let local_addr = listener.local_addr().map_err(bind_error)?;
        Ok(Server {
            listener,
            local_addr,
            registry: CancelRegistry::new(),
            stopping: Arc::new(AtomicBool::new(false)),
        })
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// A handle that stops [`Server::serve`] from any thread.
    pub fn shutdown_handle(&self) -> ShutdownHandle {
        ShutdownHandle {
            stopping: Arc::clone(&self.stopping),
            registry: Arc::clone(&self.registry),
            wake_addr: wake_address(self.local_addr),
        }
    }

    /// serve -- accept connections and run a session thread for each, until a
    /// [`ShutdownHandle`] stops the server; returns once every session has ended.
    pub fn serve<E: Engine>(self, engine: Arc<E>) {
        let mut backends: Vec<JoinHandle<()>> = Vec::new();
        for stream in self.listener.incoming() {
            if self.stopping.load(Ordering::SeqCst) {
                break;
            }
            match stream {
                Ok(stream) => {
                    backends.retain(|b| !b.is_finished());
                    backends.extend(self.start_backend(&engine, stream));
                }
                Err(e) => {
                    eprintln!("LOG:  could not accept new connection: {e}");
                    thread::sleep(ACCEPT_RETRY_DELAY);
                }
            }
        }
        self.registry.terminate_all();
        for backend in backends {
            // A backend thread catches its own panics; join only fails if it could not.
            let _ = backend.join();
        }
    }

    /// start_backend -- register the connection and run it on a new thread.
    fn start_backend<E: Engine>(
        &self,
        engine: &Arc<E>,
        stream: TcpStream,
    ) -> Option<JoinHandle<()>> {
        let registry_handle = stream.try_clone().ok()?;
        let Some(slot) = self.registry.register(registry_handle) else {
            refuse_connection(stream);
            return None;
        };
        let engine = Arc::clone(engine);
        let registry = Arc::clone(&self.registry);
        let spawned = thread::Builder::new()
            .name(format!("backend {}", slot.pid))
            .stack_size(BACKEND_STACK_SIZE)
            .spawn(move || backend_main(engine.as_ref(), &registry, stream, slot));
        // On failure the closure is dropped: the socket closes, the slot unregisters.
        spawned.map_err(|e| eprintln!("LOG:  could not start backend thread: {e}")).ok()
    }
}

impl ShutdownHandle {
    /// shutdown -- stop accepting and terminate every session (idempotent).
    pub fn shutdown(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        self.registry.terminate_all();
        // If this fails the listener is gone already, and so is the accept to wake.
        let _ = TcpStream::connect_timeout(&self.wake_addr, WAKE_CONNECT_TIMEOUT);
    }
}

/// wake_address -- an address that reaches the listener: the bound one, or loopback
/// when bound to the unspecified address.
fn wake_address(bound: SocketAddr) -> SocketAddr {
    let ip = match bound.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    SocketAddr::new(ip, bound.port())
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerError::Bind { addr, source } => {
                write!(f, "could not listen on address \"{addr}\": {source}")
            }
        }
    }
}

impl std::error::Error for ServerError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ServerError::Bind { source, .. } => Some(source),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wake_address_uses_loopback_for_unspecified() {
        let any: SocketAddr = "0.0.0.0:5433".parse().unwrap();
        assert_eq!(wake_address(any), "127.0.0.1:5433".parse().unwrap());
        let any6: SocketAddr = "[::]:5433".parse().unwrap();
        assert_eq!(wake_address(any6), "[::1]:5433".parse().unwrap());
        let specific: SocketAddr = "127.0.0.2:1".parse().unwrap();
        assert_eq!(wake_address(specific), specific);
    }

    #[test]
    fn bind_error_names_the_address() {
        let taken = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = taken.local_addr().unwrap();
        let e = Server::bind(addr).err().unwrap();
        assert!(e.to_string().starts_with(&format!("could not listen on address \"{addr}\"")));
    }
}
