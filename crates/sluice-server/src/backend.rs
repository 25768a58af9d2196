//! One connection's life on its own thread (PostgreSQL's `BackendMain`,
//! `BackendInitialize` and `InitPostgres`, as far as the protocol is concerned).
//!
//! ```text
//!   startup packet ---- cancel request: cancel the target, hang up
//!        |              garbage / EOF: hang up; FATAL reports are sent first
//!   AuthenticationOk    (trust: every client is who it says it is)
//!   Engine::connect     (FATAL on error, e.g. unknown database)
//!   ParameterStatus*, BackendKeyData(pid, secret)
//!   postgres_main       (tcop.rs) until Terminate, EOF or FATAL
//! ```
//!
//! Isolation. Everything after the accept runs inside `catch_unwind`: a panic in
//! engine code (or in ours) becomes FATAL XX000 for this client only, and the
//! thread ends normally. What a panic may leave behind is limited to this session:
//! the connection's send buffer only ever holds whole messages, so the FATAL report
//! can still follow it; the `Session` is dropped during unwinding; and the
//! [`BackendSlot`] is dropped after the report, removing the session from the cancel
//! registry whatever happened. A panic while holding shared engine locks is the
//! engine's to design for (parking_lot locks are not poisoned).
//!
//! The startup phase has a deadline (PostgreSQL's `authentication_timeout`, 60 s)
//! so a client that connects and says nothing does not hold a thread forever.

use std::any::Any;
use std::net::TcpStream;
use std::panic::{self, AssertUnwindSafe};
use std::time::Duration;

use pgwire::messages::startup::{Authentication, BackendKeyData, SecretKey};

use crate::cancel::{BackendSlot, CancelRegistry};
use crate::engine::{Engine, SessionContext};
use crate::error::PgError;
use crate::pqcomm::PqConnection;
use crate::sqlstate::SqlState;
use crate::startup::{process_startup_packet, StartupPacket};
use crate::tcop::{postgres_main, send_parameter_status};

/// How long a new connection may take to send its startup packet
/// (PostgreSQL's authentication_timeout default).
const AUTHENTICATION_TIMEOUT: Duration = Duration::from_secs(60);

/// backend_main -- serve one accepted connection to the end; never panics.
pub(crate) fn backend_main<E: Engine>(
    engine: &E,
    registry: &CancelRegistry,
    stream: TcpStream,
    slot: BackendSlot,
) {
    let Ok(mut conn) = PqConnection::new(stream, slot.interrupts.clone()) else { return };
    let outcome =
        panic::catch_unwind(AssertUnwindSafe(|| run_backend(engine, registry, &mut conn, &slot)));
    let fatal = match outcome {
        Ok(Ok(())) => None,
        // Whatever ends the session is FATAL on the wire, even an ERROR that could
        // not be reported any other way (e.g. an unencodable ParameterStatus).
        Ok(Err(report)) => Some(report.into_fatal()),
        Err(payload) => Some(panic_report(payload.as_ref())),
    };
    if let Some(report) = fatal {
        conn.close_after_fatal(&report);
    }
    // `slot` drops here: the session leaves the cancel registry.
}

/// run_backend -- startup, connect, and the main loop; `Err` is a FATAL to send.
fn run_backend<E: Engine>(
    engine: &E,
    registry: &CancelRegistry,
    conn: &mut PqConnection,
    slot: &BackendSlot,
) -> Result<(), PgError> {
    // Failing to set a timeout only loses the deadline; the session still works.
    let _ = conn.set_read_timeout(Some(AUTHENTICATION_TIMEOUT));
    let startup = match process_startup_packet(conn)? {
        StartupPacket::Connect(startup) => startup,
        StartupPacket::Cancel { pid, secret } => {
            registry.cancel(pid, secret);
            return Ok(());
        }
        StartupPacket::Hangup => return Ok(()),
    };
    let _ = conn.set_read_timeout(None);
    conn.send(&Authentication::Ok)?;
    let context = SessionContext { pid: slot.pid, interrupts: slot.interrupts.clone() };
    let mut session = engine.connect(&startup, context).map_err(PgError::into_fatal)?;
    send_parameter_status(conn, &mut session)?;
    conn.send(&BackendKeyData::new(slot.pid, SecretKey::I32(slot.secret)))?;
    postgres_main(conn, &mut session, &slot.interrupts)
}

/// refuse_connection -- tell a client that arrived during shutdown to go away.
pub(crate) fn refuse_connection(stream: TcpStream) {
    let report =
        PgError::fatal(SqlState::CANNOT_CONNECT_NOW, "the database system is shutting down");
    if let Ok(conn) = PqConnection::new(stream, Default::default()) {
        conn.close_after_fatal(&report);
    }
}

/// panic_report -- the FATAL XX000 a panic becomes, with the panic message as DETAIL.
fn panic_report(payload: &(dyn Any + Send)) -> PgError {
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic payload".to_string());
    PgError::fatal(SqlState::INTERNAL_ERROR, "terminating connection because of an internal error")
        .with_detail(message)
}
