//! The session's main loop: read a message, run it, report (PostgreSQL's
//! `PostgresMain` in `tcop/postgres.c`, the "traffic cop").
//!
//! ```text
//!        +--> [ReadyForQuery pending?] -- ParameterStatus*, ReadyForQuery, flush
//!        |            |
//!        |     read_message ---- EOF: end quietly (FATAL 57P01 if shutting down)
//!        |            |          unknown type / bad length: FATAL 08P01
//!        |     clear stale cancel
//!        |     skipping until Sync? --- yes, and not Sync/Terminate: drop message
//!        |            |
//!        +---- dispatch: Query | Parse Bind Describe Execute Close | Sync | Flush | X
//!                     |
//!                  ERROR: send ErrorResponse; extended message -> skip until Sync,
//!                         otherwise ReadyForQuery next
//!                  FATAL/PANIC: return it; the caller sends it and hangs up
//! ```
//!
//! State machine, as in PostgreSQL:
//! - `send_ready_for_query` is set after a simple Query (success or error), after
//!   Sync, and after an error outside the extended protocol; ReadyForQuery carries
//!   the session's transaction status.
//! - `ignore_till_sync` is set by an error in Parse/Bind/Describe/Execute/Close/Flush;
//!   until the next Sync every message except Terminate is dropped unread (even a
//!   simple Query), so a pipeline never runs past its failed step.
//! - CopyData/CopyDone/CopyFail outside a COPY are ignored: they are the tail of a
//!   COPY the engine already abandoned.
//!
//! The cancel flag is cleared as each message is read, so a cancel request that
//! arrives while the session is idle does not hit the next statement.
//!
//! Idle timeouts: after ReadyForQuery the session says how long it may wait for
//! the next command ([`Session::idle_timeout`]); the read is bounded by a socket
//! timeout, and a client silent for that long gets the session's FATAL report
//! (e.g. 25P03 for `idle_in_transaction_session_timeout`) and is disconnected.

use pgwire::messages::response::{ReadyForQuery, TransactionStatus as WireStatus};
use pgwire::messages::startup::ParameterStatus;

use crate::dest::{DestKind, RemoteDest};
use crate::engine::{Session, TransactionStatus};
use crate::error::PgError;
use crate::extended::{exec_bind, exec_close, exec_describe, exec_execute, exec_parse};
use crate::frontend::{decode, is_extended, FrontendMessage};
use crate::interrupts::Interrupts;
use crate::pqcomm::{Frame, PqConnection};
use crate::sqlstate::SqlState;
use std::time::{Duration, Instant};

/// What the loop does after a message.
enum Flow {
    /// Read the next message.
    Continue,
    /// The client sent Terminate.
    Exit,
}

/// The per-session protocol state.
struct Tcop<'a, S: Session> {
    /// The client connection.
    conn: &'a mut PqConnection,
    /// The engine's session.
    session: &'a mut S,
    /// This session's interrupt flags.
    interrupts: &'a Interrupts,
    /// Send ReadyForQuery before reading the next message.
    send_ready_for_query: bool,
    /// An extended-protocol error happened: drop messages until Sync.
    ignore_till_sync: bool,
}

/// postgres_main -- run the session until the client leaves (`Ok`) or a FATAL
/// error ends it (`Err`, for the caller to send).
pub(crate) fn postgres_main<S: Session>(
    conn: &mut PqConnection,
    session: &mut S,
    interrupts: &Interrupts,
) -> Result<(), PgError> {
    let mut tcop =
        Tcop { conn, session, interrupts, send_ready_for_query: true, ignore_till_sync: false };
    tcop.run()
}

impl<S: Session> Tcop<'_, S> {
    /// The loop drawn in the module documentation.
    fn run(&mut self) -> Result<(), PgError> {
        loop {
            let mut idle_timeout = None;
            if self.send_ready_for_query {
                self.ready_for_query()?;
                self.send_ready_for_query = false;
                idle_timeout = self.session.idle_timeout();
            }
            let Some(frame) = self.read_command(idle_timeout)? else { return self.hangup() };
            self.interrupts.clear_cancel();
            if frame.tag == b'S' || frame.tag == b'X' {
                self.ignore_till_sync = false;
            }
            if self.ignore_till_sync {
                continue;
            }
            let tag = frame.tag;
            match self.dispatch(frame) {
                Ok(Flow::Continue) => {}
                Ok(Flow::Exit) => return Ok(()),
                Err(e) if e.severity.ends_session() => return Err(e),
                Err(e) => self.report_error(&e, tag)?,
            }
        }
    }

    /// read_command -- the next message; with an idle timeout, the wait for its
    /// first byte is bounded and running out ends the session with the timeout's
    /// FATAL report (a client that stalls mid-message is not timed out).
    fn read_command(
        &mut self,
        idle_timeout: Option<(Duration, PgError)>,
    ) -> Result<Option<Frame>, PgError> {
        let Some((limit, report)) = idle_timeout else { return self.conn.read_message() };
        if self.conn.has_buffered_input() {
            return self.conn.read_message();
        }
        // Failing to set a timeout only loses the deadline; the session still works.
        let _ = self.conn.set_read_timeout(Some(limit.max(Duration::from_millis(1))));
        let started = Instant::now();
        let frame = self.conn.read_message();
        let _ = self.conn.set_read_timeout(None);
        match frame {
            Ok(None) if started.elapsed() >= limit && !self.interrupts.terminate_requested() => {
                Err(report)
            }
            other => other,
        }
    }

    /// dispatch -- decode and run one message.
    fn dispatch(&mut self, frame: Frame) -> Result<Flow, PgError> {
        let (conn, session) = (&mut *self.conn, &mut *self.session);
        match decode(frame)? {
            FrontendMessage::Query(sql) => {
                self.send_ready_for_query = true;
                session.simple_query(&sql, &mut RemoteDest::new(conn, DestKind::Remote))?;
            }
            FrontendMessage::Parse { statement, sql, param_types } => {
                exec_parse(conn, session, &statement, &sql, &param_types)?
            }
            FrontendMessage::Bind(bind) => exec_bind(conn, session, bind)?,
            FrontendMessage::Describe(target, name) => exec_describe(conn, session, target, &name)?,
            FrontendMessage::Execute { portal, max_rows } => {
                exec_execute(conn, session, &portal, max_rows)?
            }
            FrontendMessage::Close(target, name) => exec_close(conn, session, target, &name)?,
            FrontendMessage::Flush => conn.flush()?,
            FrontendMessage::Sync => {
                self.send_ready_for_query = true;
                session.sync()?;
            }
            FrontendMessage::Terminate => return Ok(Flow::Exit),
            FrontendMessage::CopyData(_)
            | FrontendMessage::CopyDone
            | FrontendMessage::CopyFail(_) => {}
            FrontendMessage::FunctionCall => {
                return Err(PgError::error(
                    SqlState::FEATURE_NOT_SUPPORTED,
                    "fast-path function calls are not supported",
                ))
            }
        }
        Ok(Flow::Continue)
    }

    /// report_error -- send an ERROR and choose how to recover: skip until Sync after
    /// an extended-protocol message, otherwise be ready for the next query.
    fn report_error(&mut self, error: &PgError, tag: u8) -> Result<(), PgError> {
        self.conn.send(&error.to_error_response())?;
        self.conn.flush()?;
        if is_extended(tag) {
            self.ignore_till_sync = true;
        } else {
            self.send_ready_for_query = true;
        }
        Ok(())
    }

    /// ready_for_query -- report changed settings, then ReadyForQuery, then flush.
    fn ready_for_query(&mut self) -> Result<(), PgError> {
        send_parameter_status(self.conn, self.session)?;
        let status = match self.session.transaction_status() {
            TransactionStatus::Idle => WireStatus::Idle,
            TransactionStatus::InBlock => WireStatus::Transaction,
            TransactionStatus::Failed => WireStatus::Error,
        };
        self.conn.send(&ReadyForQuery::new(status))?;
        self.conn.flush()
    }

    /// hangup -- the client closed the connection, or shutdown closed it for us.
    fn hangup(&self) -> Result<(), PgError> {
        match self.interrupts.check() {
            // Shutdown shut the socket: tell the client why (57P01).
            Err(e) if e.severity.ends_session() => Err(e),
            // The client left; a pending cancel no longer matters.
            _ => Ok(()),
        }
    }
}

/// send_parameter_status -- a ParameterStatus for every setting the session
/// reports as changed (all of them right after connecting).
pub(crate) fn send_parameter_status<S: Session>(
    conn: &mut PqConnection,
    session: &mut S,
) -> Result<(), PgError> {
    for (name, value) in session.report_parameters() {
        conn.send(&ParameterStatus::new(name, value))?;
    }
    Ok(())
}
