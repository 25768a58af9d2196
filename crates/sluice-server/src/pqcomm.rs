//! The client socket: framed, bounded reads and buffered writes (PostgreSQL's
//! `libpq/pqcomm.c`).
//!
//! Reading. Every frontend message after startup is a type byte, a 32-bit length
//! (counting itself) and a body. As in PostgreSQL's `SocketBackend`, the type byte
//! is validated *before* the length is believed, and each type has a ceiling:
//! Query, Parse, Bind, FunctionCall and CopyData may be up to 1 GB - 2 bytes
//! (`PQ_LARGE_MESSAGE_LIMIT`), everything else 10000 bytes
//! (`PQ_SMALL_MESSAGE_LIMIT`). An unknown type is FATAL 08P01 `invalid frontend
//! message type N`; a length below 4 or above the ceiling is FATAL 08P01 `invalid
//! message length` (PostgreSQL only logs this and hangs up; sluice also tells the
//! client why). The body buffer grows as bytes arrive rather than being allocated
//! from the claimed length, so a client that claims a gigabyte and sends ten bytes
//! costs ten bytes. End of file anywhere — between messages or inside one — ends
//! the session quietly.
//!
//! Writing. Messages are encoded (by pgwire) into one send buffer, which is written
//! to the socket at the protocol's sync points — ReadyForQuery, Flush, before
//! waiting for COPY data, after a notice or error — and whenever it grows beyond
//! `SEND_BUFFER_FLUSH_AT`, so a large result streams with bounded memory. Only
//! whole messages are ever in the buffer. If a write fails the client is gone: the
//! connection is marked broken (later writes fail at once without system calls),
//! the session's cancel flag is set so the running statement stops, and the caller
//! gets FATAL 08006 `connection to client lost`.
//!
//! One `PqConnection` belongs to one session thread; nothing here locks.

use std::io::{self, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::Duration;

use bytes::BytesMut;
use pgwire::messages::Message;

use crate::error::PgError;
use crate::interrupts::Interrupts;
use crate::sqlstate::SqlState;

/// The length word counts itself; the limits below are for the body after it.
const LENGTH_WORD: usize = 4;

/// Largest body of a Query, Parse, Bind, FunctionCall or CopyData message
/// (PostgreSQL's PQ_LARGE_MESSAGE_LIMIT, MaxAllocSize - 1, which bounds the
/// length word's value).
const PQ_LARGE_MESSAGE_LIMIT: usize = 0x3fff_ffff - 1 - LENGTH_WORD;

/// Largest body of any other message (PostgreSQL's PQ_SMALL_MESSAGE_LIMIT, also
/// a bound on the length word's value).
const PQ_SMALL_MESSAGE_LIMIT: usize = 10_000 - LENGTH_WORD;

/// Receive buffer size (PostgreSQL's PQ_RECV_BUFFER_SIZE).
const RECV_BUFFER_SIZE: usize = 8192;

/// The send buffer is written out once it holds this much.
const SEND_BUFFER_FLUSH_AT: usize = 64 * 1024;

/// How long a connection that is being closed after a FATAL error waits for the
/// client to read the report and hang up.
const LINGER: Duration = Duration::from_millis(500);

/// At most this much unread input is discarded while lingering.
const LINGER_DRAIN_LIMIT: u64 = 256 * 1024;

/// One frontend message: its type byte and body.
#[derive(Debug)]
pub(crate) struct Frame {
    /// The message type byte ('Q', 'P', ...).
    pub(crate) tag: u8,
    /// The body, without type byte and length word.
    pub(crate) body: Vec<u8>,
}

/// A client connection.
pub(crate) struct PqConnection {
    /// Buffered read side of the socket.
    reader: BufReader<TcpStream>,
    /// Write side of the socket (the same socket, cloned handle).
    writer: TcpStream,
    /// Encoded messages not yet written.
    send_buf: BytesMut,
    /// A write failed: the client is gone and nothing more is written.
    broken: bool,
    /// The session's interrupt flags, raised when the client goes away.
    interrupts: Interrupts,
}

impl PqConnection {
    /// Wrap an accepted socket.
    pub(crate) fn new(stream: TcpStream, interrupts: Interrupts) -> io::Result<PqConnection> {
        // Small messages (ReadyForQuery) must not wait for Nagle's algorithm; we batch
        // in the send buffer ourselves (PostgreSQL sets TCP_NODELAY too).
        stream.set_nodelay(true)?;
        let writer = stream.try_clone()?;
        Ok(PqConnection {
            reader: BufReader::with_capacity(RECV_BUFFER_SIZE, stream),
            writer,
            send_buf: BytesMut::with_capacity(RECV_BUFFER_SIZE),
            broken: false,
            interrupts,
        })
    }

    /// Limit how long a read may block (`None`: forever).
    pub(crate) fn set_read_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        self.reader.get_ref().set_read_timeout(timeout)
    }

    /// Whether bytes have been received but not yet consumed.
    pub(crate) fn has_buffered_input(&self) -> bool {
        !self.reader.buffer().is_empty()
    }

    /// read_bytes -- exactly `len` bytes, or `None` at end of file (or any read
    /// error: a broken connection is treated as one that closed).
    pub(crate) fn read_bytes(&mut self, len: usize) -> Option<Vec<u8>> {
        let mut body = Vec::with_capacity(len.min(RECV_BUFFER_SIZE));
        let read = (&mut self.reader).take(len as u64).read_to_end(&mut body);
        match read {
            Ok(n) if n == len => Some(body),
            _ => None,
        }
    }

    /// read_message -- the next frontend message (PostgreSQL's SocketBackend and
    /// pq_getmessage). `Ok(None)` means the client hung up; `Err` is a FATAL
    /// protocol violation.
    pub(crate) fn read_message(&mut self) -> Result<Option<Frame>, PgError> {
        let Some(tag) = self.read_bytes(1).and_then(|b| b.first().copied()) else {
            return Ok(None);
        };
        let limit = message_limit(tag).ok_or_else(|| {
            PgError::fatal(
                SqlState::PROTOCOL_VIOLATION,
                format!("invalid frontend message type {tag}"),
            )
        })?;
        let Some(len_word) = self.read_bytes(4) else { return Ok(None) };
        let claimed = len_word.try_into().map(i32::from_be_bytes).unwrap_or(-1);
        let body_len = usize::try_from(claimed)
            .ok()
            .and_then(|n| n.checked_sub(LENGTH_WORD))
            .filter(|&n| n <= limit)
            .ok_or_else(|| {
                PgError::fatal(SqlState::PROTOCOL_VIOLATION, "invalid message length")
            })?;
        Ok(self.read_bytes(body_len).map(|body| Frame { tag, body }))
    }

    /// send -- encode one backend message into the send buffer, writing the buffer
    /// out if it has grown large.
    pub(crate) fn send<M: Message>(&mut self, message: &M) -> Result<(), PgError> {
        if self.broken {
            return Err(connection_lost());
        }
        let start = self.send_buf.len();
        if let Err(e) = message.encode(&mut self.send_buf) {
            // pgwire may have written the type byte before refusing the message;
            // only whole messages may stay in the buffer.
            self.send_buf.truncate(start);
            return Err(PgError::error(
                SqlState::INTERNAL_ERROR,
                format!("could not encode message: {e}"),
            ));
        }
        if self.send_buf.len() >= SEND_BUFFER_FLUSH_AT {
            self.flush()?;
        }
        Ok(())
    }

    /// flush -- write the send buffer to the socket.
    pub(crate) fn flush(&mut self) -> Result<(), PgError> {
        if self.broken {
            return Err(connection_lost());
        }
        if self.send_buf.is_empty() {
            return Ok(());
        }
        let written = self.writer.write_all(&self.send_buf);
        self.send_buf.clear();
        written.map_err(|_| {
            self.broken = true;
            self.interrupts.client_connection_lost();
            connection_lost()
        })
    }

    /// close_after_fatal -- send `report` and hang up without losing it.
    ///
    /// Closing a socket with unread input makes the kernel reset the connection,
    /// which can destroy the report before the client reads it. So: send, shut our
    /// write side (the client sees end of file after the report), then read and
    /// discard for a moment until the client closes too.
    pub(crate) fn close_after_fatal(mut self, report: &PgError) {
        if self.send(&report.to_error_response()).and_then(|()| self.flush()).is_err() {
            return;
        }
        // Errors here only mean the client is already gone, which is the goal.
        let _ = self.writer.shutdown(Shutdown::Write);
        let _ = self.set_read_timeout(Some(LINGER));
        let _ = io::copy(&mut (&mut self.reader).take(LINGER_DRAIN_LIMIT), &mut io::sink());
    }
}

/// The error every write to a vanished client returns.
fn connection_lost() -> PgError {
    PgError::fatal(SqlState::CONNECTION_FAILURE, "connection to client lost")
}

/// message_limit -- the largest body a message type may have, `None` for types that
/// do not exist (the list in PostgreSQL's SocketBackend).
fn message_limit(tag: u8) -> Option<usize> {
    match tag {
        b'Q' | b'F' | b'P' | b'B' | b'd' => Some(PQ_LARGE_MESSAGE_LIMIT),
        b'X' | b'C' | b'D' | b'E' | b'H' | b'S' | b'c' | b'f' => Some(PQ_SMALL_MESSAGE_LIMIT),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    /// A connected (server side, client side) pair on loopback.
    fn pair() -> (PqConnection, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        (PqConnection::new(server, Interrupts::new()).unwrap(), client)
    }

    #[test]
    fn frames_and_limits() {
        let (mut conn, mut client) = pair();
        client.write_all(b"Q\0\0\0\x09abcd\0").unwrap();
        let frame = conn.read_message().unwrap().unwrap();
        assert_eq!((frame.tag, frame.body.as_slice()), (b'Q', &b"abcd\0"[..]));
        client.write_all(b"S\0\0\x27\x15").unwrap();
        assert_eq!(conn.read_message().unwrap_err().message, "invalid message length");
    }

    #[test]
    fn unknown_type_and_short_length_are_fatal() {
        let (mut conn, mut client) = pair();
        client.write_all(b"z").unwrap();
        let e = conn.read_message().unwrap_err();
        assert_eq!(e.message, "invalid frontend message type 122");
        assert!(e.severity.ends_session());
        client.write_all(b"Q\0\0\0\x03").unwrap();
        assert_eq!(conn.read_message().unwrap_err().message, "invalid message length");
    }

    #[test]
    fn eof_inside_a_message_is_a_quiet_close() {
        let (mut conn, mut client) = pair();
        client.write_all(b"Q\x3f\xff\xff\xfdhello").unwrap();
        drop(client);
        assert!(conn.read_message().unwrap().is_none());
    }

    #[test]
    fn refused_message_leaves_no_partial_bytes() {
        let (mut conn, _client) = pair();
        let huge_tag = "x".repeat(40_000);
        let tag = pgwire::messages::response::CommandComplete::new(huge_tag);
        assert_eq!(conn.send(&tag).unwrap_err().code, SqlState::INTERNAL_ERROR);
        assert!(conn.send_buf.is_empty());
    }

    #[test]
    fn write_to_vanished_client_sets_cancel() {
        let (mut conn, client) = pair();
        let interrupts = conn.interrupts.clone();
        drop(client);
        let big = pgwire::messages::copy::CopyData::new(vec![0u8; 1 << 20].into());
        let mut result = Ok(());
        for _ in 0..64 {
            result = conn.send(&big);
            if result.is_err() {
                break;
            }
        }
        assert_eq!(result.unwrap_err().code, SqlState::CONNECTION_FAILURE);
        assert!(interrupts.cancel_requested());
    }
}
