//! The bytes COPY FROM reads (PostgreSQL's `CopyGetData` and
//! `CopyLoadRawBuf` in `copyfromparse.c`).
//!
//! Data arrives in chunks that have nothing to do with rows: one CopyData
//! message per line from psql's `\copy`, per row from pgbench, 64 KB reads
//! from a file. [`Input`] keeps the bytes not yet consumed in one buffer and
//! appends the next chunk when a parser needs more, so a parser sees a line or
//! a binary field contiguously however it was cut. Consumed bytes are dropped
//! only when more are read, which keeps the line just returned valid until the
//! parser asks for the next one — and when everything has been consumed, the
//! next chunk simply becomes the buffer, so whole-row messages are never
//! copied.
//!
//! LATIN1 data is converted to UTF8 chunk by chunk as it arrives (each byte is
//! one character, so a chunk boundary never splits one); everything
//! downstream sees the database encoding.

use super::options::Encoding;
use crate::error::{Result, SqlError};
use crate::sink::CopySource;
use std::io::Read;

/// How much a file read asks for (PostgreSQL's RAW_BUF_SIZE).
const FILE_CHUNK: usize = 65536;

/// Where the data comes from.
pub(crate) enum Source<'a> {
    /// The client (COPY FROM STDIN).
    Client(Box<dyn CopySource + 'a>),
    /// A server file (COPY FROM 'file').
    File(std::fs::File),
}

/// Buffered input; see the module documentation.
pub(crate) struct Input<'a> {
    source: Source<'a>,
    encoding: Encoding,
    /// Bytes read; those before `pos` are consumed.
    pub(crate) buf: Vec<u8>,
    /// Start of the unconsumed bytes.
    pub(crate) pos: usize,
    /// The source has no more data.
    eof: bool,
}

impl<'a> Input<'a> {
    /// Input from `source` in `encoding`.
    pub(crate) fn new(source: Source<'a>, encoding: Encoding) -> Input<'a> {
        Input { source, encoding, buf: Vec::new(), pos: 0, eof: false }
    }

    /// The unconsumed bytes.
    pub(crate) fn available(&self) -> &[u8] {
        &self.buf[self.pos..]
    }

    /// fill -- appends the next chunk to the unconsumed bytes, dropping the
    /// consumed ones (positions relative to `pos` stay valid, absolute ones
    /// do not). False once the source is exhausted.
    pub(crate) fn fill(&mut self) -> Result<bool> {
        while !self.eof {
            let Some(chunk) = self.read_chunk()? else {
                self.eof = true;
                break;
            };
            if chunk.is_empty() {
                continue;
            }
            self.buf.drain(..self.pos);
            self.pos = 0;
            match self.encoding {
                Encoding::Utf8 if self.buf.is_empty() => self.buf = chunk,
                Encoding::Utf8 => self.buf.extend_from_slice(&chunk),
                // Latin-1 byte b is the character U+00b.
                Encoding::Latin1 => self.buf.extend(chunk.iter().flat_map(|&b| {
                    let mut utf8 = [0u8; 2];
                    let len = char::from(b).encode_utf8(&mut utf8).len();
                    utf8.into_iter().take(len)
                })),
            }
            return Ok(true);
        }
        Ok(false)
    }

    /// ensure -- makes at least `n` unconsumed bytes available if the source
    /// has them; false if it ends first.
    pub(crate) fn ensure(&mut self, n: usize) -> Result<bool> {
        while self.buf.len() - self.pos < n {
            if !self.fill()? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether the source has more data beyond what is buffered.
    pub(crate) fn at_end(&mut self) -> Result<bool> {
        Ok(self.pos == self.buf.len() && !self.fill()?)
    }

    /// drain_client -- reads and drops whatever the client still sends after
    /// the end-of-data marker, up to CopyDone (as PostgreSQL does), so that a
    /// CopyFail after the marker still fails the COPY. A file is simply left.
    pub(crate) fn drain_client(&mut self) -> Result<()> {
        if let Source::Client(_) = self.source {
            self.pos = self.buf.len();
            while self.fill()? {
                self.pos = self.buf.len();
            }
        }
        Ok(())
    }

    /// The next chunk from the source, `None` at its end.
    fn read_chunk(&mut self) -> Result<Option<Vec<u8>>> {
        match &mut self.source {
            Source::Client(client) => client.read(),
            Source::File(file) => {
                let mut chunk = vec![0u8; FILE_CHUNK];
                let n = file.read(&mut chunk).map_err(|e| {
                    super::file_error(&e, "could not read from COPY file".to_string())
                })?;
                chunk.truncate(n);
                Ok((n > 0).then_some(chunk))
            }
        }
    }
}

/// The error for data that is not valid UTF8 (or contains a NUL byte),
/// naming the offending bytes like PostgreSQL.
pub(crate) fn check_utf8(bytes: &[u8]) -> Result<()> {
    if !bytes.contains(&0) && std::str::from_utf8(bytes).is_ok() {
        return Ok(());
    }
    match sluice_types::text::verify_utf8(bytes) {
        Err(e) => Err(SqlError::from(e)),
        Ok(_) => Err(SqlError::internal("invalid UTF8 was accepted")),
    }
}
