//! Interrupts: how other threads ask a session to cancel its statement or to end.
//!
//! PostgreSQL delivers these as signals to the backend process (SIGINT for a cancel
//! request, SIGTERM for termination); the handlers only set flags
//! (`QueryCancelPending`, `ProcDiePending`) and set the process latch, and the backend
//! acts on them at the next `CHECK_FOR_INTERRUPTS()`. sluice's backends are threads,
//! so the signal becomes a store to an atomic flag in a shared [`Interrupts`] and the
//! latch becomes a condition variable: the same shape without signals.
//!
//! Who sets what:
//! - cancel: a CancelRequest with this session's (pid, secret key) (`cancel.rs`), or
//!   the protocol layer when the client's socket fails mid-statement.
//! - terminate: server shutdown (`postmaster.rs`), or another session's
//!   `pg_terminate_backend`. Terminate also shuts down the read side of the
//!   session's socket (attached at registration), so a session blocked reading its
//!   next command wakes at once with end of file and reports FATAL 57P01.
//! - client lost: the protocol layer, when a write to the client fails; and
//!   [`Interrupts::check`] itself, which at most once per
//!   [`CLIENT_CHECK_INTERVAL`] polls the attached socket for a hang-up
//!   (PostgreSQL's `client_connection_check_interval`, always on here). A
//!   statement that sends nothing for hours — `SELECT count(*)` over a huge
//!   series — would otherwise never learn that its client was killed and keep
//!   a core busy to its end.
//!
//! Who looks: the engine, by calling [`Interrupts::check`] in every loop that can run
//! long (per row, per page, per lock-wait wakeup) and by sleeping through
//! [`Interrupts::sleep`] instead of `thread::sleep`; the protocol layer, which clears
//! a stale cancel flag when it reads the next command (a cancel that arrives while
//! the session is idle is ignored, as in PostgreSQL).
//!
//! Locking: the flags are atomics, read and written without a lock. The mutex exists
//! only to pair with the condition variable: a sleeper checks the flags while holding
//! it, and a setter takes it after storing the flag and before notifying, so a wakeup
//! is never lost between the sleeper's check and its wait.

use std::net::{Shutdown, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::error::PgError;
use crate::sqlstate::SqlState;

/// How often a running statement's interrupt checks look whether the client
/// hung up: often enough that a killed client frees its core within seconds,
/// rarely enough that the poll(2) costs nothing next to the rows in between.
pub const CLIENT_CHECK_INTERVAL: Duration = Duration::from_secs(1);

/// The interrupt flags of one session; cheap to clone (all clones share the flags).
#[derive(Clone, Default)]
pub struct Interrupts {
    /// The shared state.
    inner: Arc<Flags>,
}

/// The flags and the latch behind an [`Interrupts`].
#[derive(Default)]
struct Flags {
    /// A statement cancel is pending (PostgreSQL's QueryCancelPending).
    cancel: AtomicBool,
    /// The session must end (PostgreSQL's ProcDiePending).
    terminate: AtomicBool,
    /// The client's socket failed (PostgreSQL's ClientConnectionLost).
    client_lost: AtomicBool,
    /// Pairs with `wake`; guards nothing but the sleep/notify handshake.
    latch: Mutex<()>,
    /// Woken whenever a flag is set.
    wake: Condvar,
    /// A handle on the session's socket, to wake a blocked read on terminate
    /// and to poll for a hang-up.
    socket: OnceLock<TcpStream>,
    /// When the flags were made: the origin of `last_probe`.
    born: OnceLock<Instant>,
    /// Milliseconds after `born` of the last hang-up poll.
    last_probe: AtomicU64,
}

impl Interrupts {
    /// New flags, all clear.
    pub fn new() -> Interrupts {
        Interrupts::default()
    }

    /// Ask the session to cancel its current statement (what a CancelRequest does).
    pub fn request_cancel(&self) {
        self.set(&self.inner.cancel);
    }

    /// Ask the session to end (what server shutdown and `pg_terminate_backend` do).
    pub fn request_terminate(&self) {
        self.set(&self.inner.terminate);
        if let Some(socket) = self.inner.socket.get() {
            // Fails only if the socket is already closed, when there is nothing to wake.
            let _ = socket.shutdown(Shutdown::Read);
        }
    }

    /// Attach the session's socket (a clone), which terminate wakes.
    pub(crate) fn attach_socket(&self, socket: TcpStream) {
        // Set once, at registration; a second call would be a bug with no effect.
        let _ = self.inner.socket.set(socket);
        let _ = self.inner.born.set(Instant::now());
    }

    /// Record that the client is gone; the running statement is cancelled too, so an
    /// engine that only looks at the cancel flag still stops.
    pub(crate) fn client_connection_lost(&self) {
        self.inner.client_lost.store(true, Ordering::SeqCst);
        self.set(&self.inner.cancel);
    }

    /// Whether a cancel is pending (does not clear it).
    pub fn cancel_requested(&self) -> bool {
        self.inner.cancel.load(Ordering::SeqCst)
    }

    /// Whether the session has been asked to end.
    pub fn terminate_requested(&self) -> bool {
        self.inner.terminate.load(Ordering::SeqCst)
    }

    /// Forget a pending cancel: called when the next command is read, because a
    /// cancel aimed at a statement that already finished must not hit the next one.
    pub(crate) fn clear_cancel(&self) {
        self.inner.cancel.store(false, Ordering::SeqCst);
    }

    /// check -- PostgreSQL's CHECK_FOR_INTERRUPTS.
    ///
    /// Returns the error the pending interrupt calls for, most serious first:
    /// FATAL 57P01 on termination, FATAL 08006 if the client is gone, ERROR 57014
    /// on cancel (which clears the cancel flag: one request cancels one
    /// statement). Termination comes first because it shuts the socket's read
    /// side itself, which the hang-up poll would otherwise take for a lost
    /// client.
    pub fn check(&self) -> Result<(), PgError> {
        if self.terminate_requested() {
            return Err(PgError::fatal(
                SqlState::ADMIN_SHUTDOWN,
                "terminating connection due to administrator command",
            ));
        }
        self.probe_client();
        if self.inner.client_lost.load(Ordering::SeqCst) {
            return Err(PgError::fatal(SqlState::CONNECTION_FAILURE, "connection to client lost"));
        }
        if self.inner.cancel.swap(false, Ordering::SeqCst) {
            return Err(PgError::error(
                SqlState::QUERY_CANCELED,
                "canceling statement due to user request",
            ));
        }
        Ok(())
    }

    /// sleep -- wait for `duration`, returning early with [`Interrupts::check`]'s
    /// error if an interrupt arrives (what `pg_sleep` and lock waits need).
    pub fn sleep(&self, duration: Duration) -> Result<(), PgError> {
        let deadline = Instant::now() + duration;
        let mut guard = self.inner.latch.lock();
        loop {
            self.check()?;
            if self.inner.wake.wait_until(&mut guard, deadline).timed_out() {
                return self.check();
            }
        }
    }

    /// probe_client -- if [`CLIENT_CHECK_INTERVAL`] has passed since the last
    /// look, polls the attached socket and records a hang-up as a lost client.
    /// The clock read is the only cost on the other calls.
    fn probe_client(&self) {
        let (Some(socket), Some(born)) = (self.inner.socket.get(), self.inner.born.get()) else {
            return;
        };
        let now = u64::try_from(born.elapsed().as_millis()).unwrap_or(u64::MAX);
        let last = self.inner.last_probe.load(Ordering::Relaxed);
        let interval = CLIENT_CHECK_INTERVAL.as_millis() as u64;
        if now.saturating_sub(last) < interval {
            return;
        }
        // One caller polls per interval, even if several threads check at once.
        let won =
            self.inner.last_probe.compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed);
        if won.is_ok() && hung_up(socket) {
            self.client_connection_lost();
        }
    }

    /// set -- store a flag, then wake sleepers (under the latch, see module doc).
    fn set(&self, flag: &AtomicBool) {
        flag.store(true, Ordering::SeqCst);
        let _guard = self.inner.latch.lock();
        self.inner.wake.notify_all();
    }
}

/// The poll(2) events that mean the peer is gone: on Linux also a half-close
/// (POLLRDHUP), which is what a killed client's FIN looks like before any
/// write fails — PostgreSQL's WL_SOCKET_CLOSED.
#[cfg(target_os = "linux")]
const HANG_UP_EVENTS: libc::c_short = libc::POLLRDHUP | libc::POLLHUP | libc::POLLERR;
#[cfg(not(target_os = "linux"))]
const HANG_UP_EVENTS: libc::c_short = libc::POLLHUP | libc::POLLERR;

/// hung_up -- whether `socket`'s peer has closed the connection, asked of the
/// kernel without reading or blocking. Unread input the client sent first
/// (a pipelined message) does not hide a hang-up, as it would from a peek.
fn hung_up(socket: &TcpStream) -> bool {
    let mut fd = libc::pollfd { fd: socket.as_raw_fd(), events: HANG_UP_EVENTS, revents: 0 };
    // Safety: `fd` is one valid, exclusively borrowed pollfd for the duration
    // of the call, the count says one, and a zero timeout never blocks; the
    // descriptor stays open because `socket` is borrowed.
    let ready = unsafe { libc::poll(&mut fd, 1, 0) };
    ready > 0 && fd.revents & HANG_UP_EVENTS != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancel_is_reported_once() {
        let i = Interrupts::new();
        assert!(i.check().is_ok());
        i.request_cancel();
        let e = i.check().unwrap_err();
        assert_eq!(e.code, SqlState::QUERY_CANCELED);
        assert!(i.check().is_ok());
    }

    #[test]
    fn terminate_outranks_cancel_and_sticks() {
        let i = Interrupts::new();
        i.request_cancel();
        i.request_terminate();
        assert_eq!(i.check().unwrap_err().code, SqlState::ADMIN_SHUTDOWN);
        assert_eq!(i.check().unwrap_err().code, SqlState::ADMIN_SHUTDOWN);
    }

    /// Interrupts attached to the server side of a loopback connection, and
    /// the client side.
    fn attached_to_a_client() -> (Interrupts, TcpStream) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        let i = Interrupts::new();
        i.attach_socket(server);
        (i, client)
    }

    #[test]
    fn a_terminated_session_is_not_mistaken_for_a_lost_client() {
        // Terminate shuts the socket's read side, which looks like a hang-up.
        let (i, _client) = attached_to_a_client();
        i.request_terminate();
        std::thread::sleep(CLIENT_CHECK_INTERVAL + Duration::from_millis(50));
        assert_eq!(i.check().unwrap_err().code, SqlState::ADMIN_SHUTDOWN);
    }

    #[test]
    fn sleep_wakes_on_cancel_from_another_thread() {
        let i = Interrupts::new();
        let other = i.clone();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            other.request_cancel();
        });
        let e = i.sleep(Duration::from_secs(600)).unwrap_err();
        assert_eq!(e.code, SqlState::QUERY_CANCELED);
        t.join().unwrap();
    }

    #[test]
    fn a_closed_client_is_noticed_by_check() {
        let (i, client) = attached_to_a_client();
        assert!(i.check().is_ok(), "an open client is not lost");
        drop(client);
        let deadline = Instant::now() + CLIENT_CHECK_INTERVAL * 3;
        let lost = loop {
            match i.check() {
                Err(e) => break e,
                Ok(()) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                Ok(()) => panic!("the hang-up was not noticed"),
            }
        };
        assert_eq!(lost.code, SqlState::CONNECTION_FAILURE);
    }

    #[test]
    fn sleep_returns_ok_after_duration() {
        let i = Interrupts::new();
        assert!(i.sleep(Duration::from_millis(10)).is_ok());
    }
}
