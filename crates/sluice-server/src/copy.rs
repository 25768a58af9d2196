//! The COPY sub-protocol streams (the client-facing halves of PostgreSQL's
//! `commands/copyfromparse.c` `CopyGetData` and `copyto.c` `CopySendEndOfRow`).
//!
//! COPY FROM STDIN: after CopyInResponse the client sends CopyData messages and
//! ends with CopyDone, or gives up with CopyFail. [`CopyInStream`] hands the engine
//! one CopyData payload per call. Flush and Sync are ignored on the way (libpq and
//! tokio-postgres send them after the COPY statement's Execute without knowing it
//! was a COPY); any other message is ERROR 08P01 `unexpected message type 0x..
//! during COPY from stdin`. Once the stream has ended — CopyDone, CopyFail, error —
//! it only answers "done", and if the engine gave up early the CopyData that is
//! still coming is skipped by the main loop, which ignores copy messages outside a
//! COPY exactly as PostgreSQL does.
//!
//! COPY TO STDOUT: [`CopyOutStream`] sends each chunk as one CopyData and CopyDone
//! on `finish`; the engine then sends CommandComplete (`COPY n`).

use bytes::Bytes;
use pgwire::messages::copy::{CopyData, CopyDone};

use crate::error::PgError;
use crate::frontend::{decode, FrontendMessage};
use crate::output::{CopyIn, CopyOut};
use crate::pqcomm::PqConnection;
use crate::pqformat::protocol_violation;
use crate::sqlstate::SqlState;

/// The reading side of COPY FROM STDIN.
pub(crate) struct CopyInStream<'a> {
    /// The client connection.
    conn: &'a mut PqConnection,
    /// CopyDone, CopyFail or an error was seen: nothing more to read.
    done: bool,
}

impl<'a> CopyInStream<'a> {
    /// A stream reading from `conn`, after CopyInResponse was sent.
    pub(crate) fn new(conn: &'a mut PqConnection) -> CopyInStream<'a> {
        CopyInStream { conn, done: false }
    }

    /// next_message -- the next message that matters to COPY, skipping Flush/Sync.
    fn next_message(&mut self) -> Result<FrontendMessage, PgError> {
        loop {
            let Some(frame) = self.conn.read_message()? else {
                return Err(PgError::fatal(
                    SqlState::CONNECTION_FAILURE,
                    "unexpected EOF on client connection with an open transaction",
                ));
            };
            let tag = frame.tag;
            match decode(frame)? {
                FrontendMessage::Flush | FrontendMessage::Sync => continue,
                message @ (FrontendMessage::CopyData(_)
                | FrontendMessage::CopyDone
                | FrontendMessage::CopyFail(_)) => return Ok(message),
                _ => {
                    return Err(protocol_violation(format!(
                        "unexpected message type 0x{tag:02X} during COPY from stdin"
                    )))
                }
            }
        }
    }
}

impl CopyIn for CopyInStream<'_> {
    fn read_data(&mut self) -> Result<Option<Vec<u8>>, PgError> {
        if self.done {
            return Ok(None);
        }
        let message = self.next_message();
        // Whatever ends the stream ends it for good; only CopyData continues it.
        self.done = !matches!(message, Ok(FrontendMessage::CopyData(_)));
        match message? {
            FrontendMessage::CopyData(data) => Ok(Some(data)),
            FrontendMessage::CopyFail(reason) => Err(PgError::error(
                SqlState::QUERY_CANCELED,
                format!("COPY from stdin failed: {reason}"),
            )),
            _ => Ok(None),
        }
    }
}

/// The writing side of COPY TO STDOUT.
pub(crate) struct CopyOutStream<'a> {
    /// The client connection.
    conn: &'a mut PqConnection,
}

impl<'a> CopyOutStream<'a> {
    /// A stream writing to `conn`, after CopyOutResponse was sent.
    pub(crate) fn new(conn: &'a mut PqConnection) -> CopyOutStream<'a> {
        CopyOutStream { conn }
    }
}

impl CopyOut for CopyOutStream<'_> {
    fn write_data(&mut self, data: &[u8]) -> Result<(), PgError> {
        self.conn.send(&CopyData::new(Bytes::copy_from_slice(data)))
    }

    fn finish(self: Box<Self>) -> Result<(), PgError> {
        self.conn.send(&CopyDone::new())
    }
}
