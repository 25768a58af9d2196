//! `RemoteDest`: the [`Output`] that sends results to the client (PostgreSQL's
//! `tcop/dest.c` and `access/common/printtup.c` for DestRemote / DestRemoteExecute).
//!
//! The two PostgreSQL destinations differ in one thing, which is a flag here: in
//! the simple query protocol (DestRemote) the RowDescription is sent before the
//! rows; in Execute (DestRemoteExecute) it is not, because the client already got
//! it from Describe — and a client that skipped Describe asked for rows blind.
//!
//! Messages go into the connection's send buffer (see `pqcomm.rs` for when it is
//! written out); notices are flushed at once, as PostgreSQL's
//! `send_message_to_frontend` does, so a long statement's progress notices arrive
//! while it runs. COPY sub-protocol streams live in `copy.rs`.

use bytes::{BufMut, BytesMut};
use pgwire::messages::copy::{CopyInResponse, CopyOutResponse};
use pgwire::messages::data::{self, DataRow, RowDescription};
use pgwire::messages::response::{CommandComplete, EmptyQueryResponse};

use crate::copy::{CopyInStream, CopyOutStream};
use crate::error::PgError;
use crate::output::{CopyFormat, CopyIn, CopyOut, FieldDescription, Output};
use crate::pqcomm::PqConnection;
use crate::sqlstate::SqlState;

/// Which PostgreSQL destination a [`RemoteDest`] behaves as.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum DestKind {
    /// Simple query protocol: RowDescription is sent.
    Remote,
    /// Extended protocol Execute: RowDescription is not sent.
    RemoteExecute,
}

/// Results of one statement (or one Execute) on their way to the client.
pub(crate) struct RemoteDest<'a> {
    /// The client connection.
    conn: &'a mut PqConnection,
    /// Simple or extended protocol.
    kind: DestKind,
}

impl<'a> RemoteDest<'a> {
    /// A destination writing to `conn`.
    pub(crate) fn new(conn: &'a mut PqConnection, kind: DestKind) -> RemoteDest<'a> {
        RemoteDest { conn, kind }
    }
}

impl Output for RemoteDest<'_> {
    fn row_description(&mut self, fields: &[FieldDescription]) -> Result<(), PgError> {
        if self.kind == DestKind::RemoteExecute {
            return Ok(());
        }
        self.conn.send(&row_description(fields))
    }

    fn data_row(&mut self, values: &[Option<&[u8]>]) -> Result<(), PgError> {
        self.conn.send(&data_row(values)?)
    }

    fn command_complete(&mut self, tag: &str) -> Result<(), PgError> {
        self.conn.send(&CommandComplete::new(tag.to_string()))
    }

    fn empty_query(&mut self) -> Result<(), PgError> {
        self.conn.send(&EmptyQueryResponse::new())
    }

    fn notice(&mut self, notice: &PgError) -> Result<(), PgError> {
        self.conn.send(&notice.to_notice_response())?;
        self.conn.flush()
    }

    fn copy_in(&mut self, format: &CopyFormat) -> Result<Box<dyn CopyIn + '_>, PgError> {
        let (overall, columns, codes) = copy_response_fields(format)?;
        self.conn.send(&CopyInResponse::new(overall, columns, codes))?;
        // The client sends nothing until it has seen CopyInResponse.
        self.conn.flush()?;
        Ok(Box::new(CopyInStream::new(self.conn)))
    }

    fn copy_out(&mut self, format: &CopyFormat) -> Result<Box<dyn CopyOut + '_>, PgError> {
        let (overall, columns, codes) = copy_response_fields(format)?;
        self.conn.send(&CopyOutResponse::new(overall, columns, codes))?;
        Ok(Box::new(CopyOutStream::new(self.conn)))
    }
}

/// row_description -- the pgwire message for `fields` (also used by Describe).
pub(crate) fn row_description(fields: &[FieldDescription]) -> RowDescription {
    let fields = fields
        .iter()
        .map(|f| {
            data::FieldDescription::new(
                f.name.clone(),
                // OIDs are unsigned on the wire; pgwire types this one as i32.
                f.table_oid as i32,
                f.column_number,
                f.type_oid,
                f.type_len,
                f.type_modifier,
                f.format.code(),
            )
        })
        .collect();
    RowDescription::new(fields)
}

/// data_row -- encode one row: per value a 32-bit length (-1 for NULL) and bytes.
fn data_row(values: &[Option<&[u8]>]) -> Result<DataRow, PgError> {
    let count = column_count(values.len())?;
    let size = values.iter().map(|v| 4 + v.map_or(0, <[u8]>::len)).sum();
    let mut buf = BytesMut::with_capacity(size);
    for value in values {
        match value {
            None => buf.put_i32(-1),
            Some(bytes) => {
                let len = i32::try_from(bytes.len()).map_err(|_| too_large("field value"))?;
                buf.put_i32(len);
                buf.put_slice(bytes);
            }
        }
    }
    Ok(DataRow::new(buf, count))
}

/// The fields of CopyInResponse / CopyOutResponse.
fn copy_response_fields(format: &CopyFormat) -> Result<(i8, i16, Vec<i16>), PgError> {
    let columns = column_count(format.columns.len())?;
    let codes = format.columns.iter().map(|f| f.code()).collect();
    Ok((format.overall.code() as i8, columns, codes))
}

/// A column count as the wire's 16-bit integer.
fn column_count(n: usize) -> Result<i16, PgError> {
    i16::try_from(n).map_err(|_| too_large("row"))
}

/// The error for results that cannot be expressed on the wire.
fn too_large(what: &str) -> PgError {
    PgError::error(SqlState::INTERNAL_ERROR, format!("{what} too large for the wire protocol"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pgwire::messages::Message;

    #[test]
    fn data_row_encodes_nulls_and_values() {
        let row = data_row(&[None, Some(b"ab")]).unwrap();
        let mut out = BytesMut::new();
        row.encode(&mut out).unwrap();
        assert_eq!(&out[..], b"D\0\0\0\x10\0\x02\xff\xff\xff\xff\0\0\0\x02ab");
    }
}
