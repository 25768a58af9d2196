//! The registry of live backends: cancel keys, and the handles shutdown needs.
//!
//! PostgreSQL's postmaster keeps a list of its children with each one's cancel key;
//! a CancelRequest arrives on a *new* connection carrying (pid, secret key), and the
//! postmaster signals the matching child (`processCancelRequest`). sluice does the
//! same with threads: every accepted connection is registered here under a fresh
//! pid with a random secret, the session learns both in BackendKeyData, and a
//! CancelRequest whose pid and secret match sets that session's cancel flag.
//!
//! Pids. Sessions are threads, so there is no OS pid to show; the registry hands
//! out integers from a counter that starts at a random base (so pids from two runs
//! of the server rarely coincide, like real pids) and skips numbers still in use.
//! A pid is unique among live sessions for the life of the server.
//!
//! Shutdown. [`CancelRegistry::terminate_all`] closes the registry to new sessions
//! and terminates every session ([`Interrupts::request_terminate`] also shuts down
//! the read side of its socket): a session blocked reading the next command wakes
//! up at once with end of file, sees the flag and sends FATAL 57P01; a running
//! statement sees the flag at its next interrupt check.
//!
//! Locking: one mutex over the map; it is held only for map operations and the
//! non-blocking `shutdown(2)` calls, never across reads, writes or engine code.
//! A [`BackendSlot`] removes its entry when dropped, so a session that ends in any
//! way — Terminate, error, panic — leaves the registry.

use std::collections::HashMap;
use std::net::TcpStream;
use std::sync::Arc;

use parking_lot::Mutex;
use rand::Rng;

use crate::interrupts::Interrupts;

/// The smallest pid handed out (and where the counter wraps to); the pids
/// below are for backends with no client.
const FIRST_PID: i32 = sluice_common::FIRST_CLIENT_PID;

/// The random starting pid is below this.
const PID_BASE_SPAN: i32 = 1_000_000;

/// The registry of live backends; see the module documentation.
pub(crate) struct CancelRegistry {
    /// Everything, under one short-held lock.
    state: Mutex<State>,
}

/// The registry's contents.
struct State {
    /// Live backends by pid.
    backends: HashMap<i32, Backend>,
    /// The next pid to try.
    next_pid: i32,
    /// Set by shutdown: no new backends.
    closed: bool,
}

/// What the registry knows about one backend.
struct Backend {
    /// The secret key a CancelRequest must present.
    secret: i32,
    /// The backend's interrupt flags (holding a handle on its socket).
    interrupts: Interrupts,
}

/// A backend's registration; dropping it unregisters the backend.
pub(crate) struct BackendSlot {
    /// The backend's pid.
    pub(crate) pid: i32,
    /// The backend's cancel secret.
    pub(crate) secret: i32,
    /// The backend's interrupt flags (shared with the registry).
    pub(crate) interrupts: Interrupts,
    /// The registry to leave on drop.
    registry: Arc<CancelRegistry>,
}

impl CancelRegistry {
    /// An empty, open registry whose pids start at a random base.
    pub(crate) fn new() -> Arc<CancelRegistry> {
        let base = rand::rng().random_range(FIRST_PID..FIRST_PID + PID_BASE_SPAN);
        Arc::new(CancelRegistry {
            state: Mutex::new(State { backends: HashMap::new(), next_pid: base, closed: false }),
        })
    }

    /// register -- enter a new backend owning `socket` (a clone of its connection);
    /// `None` once the server is shutting down.
    pub(crate) fn register(self: &Arc<Self>, socket: TcpStream) -> Option<BackendSlot> {
        let secret = rand::rng().random::<i32>();
        let interrupts = Interrupts::new();
        interrupts.attach_socket(socket);
        let mut state = self.state.lock();
        if state.closed {
            return None;
        }
        let pid = state.allocate_pid();
        state.backends.insert(pid, Backend { secret, interrupts: interrupts.clone() });
        Some(BackendSlot { pid, secret, interrupts, registry: Arc::clone(self) })
    }

    /// cancel -- a CancelRequest: set the cancel flag of backend `pid` if `secret`
    /// matches; anything else is ignored silently, as the requester gets no reply.
    pub(crate) fn cancel(&self, pid: i32, secret: i32) {
        let state = self.state.lock();
        if let Some(backend) = state.backends.get(&pid).filter(|b| b.secret == secret) {
            backend.interrupts.request_cancel();
        }
    }

    /// terminate_all -- refuse new backends and ask every live one to end.
    pub(crate) fn terminate_all(&self) {
        let mut state = self.state.lock();
        state.closed = true;
        for backend in state.backends.values() {
            backend.interrupts.request_terminate();
        }
    }

    /// Whether no backend is registered.
    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.state.lock().backends.is_empty()
    }

    /// Remove backend `pid` (from [`BackendSlot`]'s drop).
    fn unregister(&self, pid: i32) {
        self.state.lock().backends.remove(&pid);
    }
}

impl State {
    /// allocate_pid -- the next pid not in use, wrapping to FIRST_PID at i32::MAX.
    fn allocate_pid(&mut self) -> i32 {
        loop {
            let pid = self.next_pid;
            self.next_pid = if pid == i32::MAX { FIRST_PID } else { pid + 1 };
            if !self.backends.contains_key(&pid) {
                return pid;
            }
        }
    }
}

impl Drop for BackendSlot {
    fn drop(&mut self) {
        self.registry.unregister(self.pid);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    /// A socket to register (the server end of a loopback connection).
    fn socket(listener: &TcpListener) -> TcpStream {
        let _client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        listener.accept().unwrap().0
    }

    #[test]
    fn cancel_needs_matching_secret_and_slot_drop_unregisters() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let registry = CancelRegistry::new();
        let a = registry.register(socket(&listener)).unwrap();
        let b = registry.register(socket(&listener)).unwrap();
        assert_ne!(a.pid, b.pid);
        registry.cancel(a.pid, a.secret.wrapping_add(1));
        assert!(!a.interrupts.cancel_requested());
        registry.cancel(a.pid, a.secret);
        assert!(a.interrupts.cancel_requested());
        assert!(!b.interrupts.cancel_requested());
        drop(a);
        drop(b);
        assert!(registry.is_empty());
    }

    #[test]
    fn terminate_all_closes_the_registry() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let registry = CancelRegistry::new();
        let a = registry.register(socket(&listener)).unwrap();
        registry.terminate_all();
        assert!(a.interrupts.terminate_requested());
        assert!(registry.register(socket(&listener)).is_none());
    }

    #[test]
    fn pids_wrap_and_skip_live_ones() {
        let mut state = State { backends: HashMap::new(), next_pid: i32::MAX, closed: false };
        assert_eq!(state.allocate_pid(), i32::MAX);
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let interrupts = Interrupts::new();
        interrupts.attach_socket(socket(&listener));
        let backend = Backend { secret: 0, interrupts };
        state.backends.insert(FIRST_PID, backend);
        assert_eq!(state.allocate_pid(), FIRST_PID + 1);
    }
}
