//! Decoding frontend messages (the reading half of PostgreSQL's `exec_*_message`).
//!
//! Why not pgwire's decoders: sluice uses pgwire's `messages` module to *encode*
//! every backend message, but decodes the frontend messages itself, in this one
//! file, because pgwire's decoders (0.42) are built for trusted input — they read
//! with `bytes::Buf::get_*`, which panics on a truncated body (a malformed Bind
//! would kill the thread), and they turn invalid UTF8 into U+FFFD silently, where
//! PostgreSQL must answer 22021. Here every read is bounds-checked
//! (`pqformat.rs`) and every error is PostgreSQL's.
//!
//! Decoding never blocks and never ends the session: a malformed body is an ERROR
//! (08P01 / 22021 / 22023) like any failed statement. Which messages exist and how
//! long they may be was already settled by `pqcomm.rs` when the frame was read.

use std::num::NonZeroU32;

use sluice_common::Oid;

use crate::engine::{BindParam, BindRequest, ResultFormats};
use crate::error::PgError;
use crate::output::Format;
use crate::pqcomm::Frame;
use crate::pqformat::{client_text, protocol_violation, MsgReader};
use crate::sqlstate::SqlState;

/// A decoded frontend message.
pub(crate) enum FrontendMessage {
    /// 'Q': a simple query string.
    Query(String),
    /// 'P': prepare a statement.
    Parse {
        /// Statement name ("" = unnamed).
        statement: String,
        /// The query text.
        sql: String,
        /// Client-specified parameter types (0 = unspecified).
        param_types: Vec<Oid>,
    },
    /// 'B': bind a portal.
    Bind(BindRequest),
    /// 'D': describe a statement or portal.
    Describe(Target, String),
    /// 'E': execute a portal.
    Execute {
        /// Portal name ("" = unnamed).
        portal: String,
        /// Row limit; `None` = all rows (the wire's 0 or negative).
        max_rows: Option<NonZeroU32>,
    },
    /// 'C': close a statement or portal.
    Close(Target, String),
    /// 'S': end of an extended-protocol pipeline.
    Sync,
    /// 'H': send buffered output now.
    Flush,
    /// 'X': the client is leaving.
    Terminate,
    /// 'd': COPY data.
    CopyData(Vec<u8>),
    /// 'c': COPY finished.
    CopyDone,
    /// 'f': the client aborts COPY FROM STDIN, with its reason.
    CopyFail(String),
    /// 'F': a fast-path function call (not supported).
    FunctionCall,
}

/// What a Describe or Close refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// 'S': a prepared statement.
    Statement,
    /// 'P': a portal.
    Portal,
}

/// is_extended -- whether a message type belongs to the extended query protocol, so
/// that an error while handling it starts skipping until Sync.
pub(crate) fn is_extended(tag: u8) -> bool {
    matches!(tag, b'P' | b'B' | b'C' | b'D' | b'E' | b'H')
}

/// decode -- turn a frame into a message, or the ERROR PostgreSQL gives for it.
pub(crate) fn decode(frame: Frame) -> Result<FrontendMessage, PgError> {
    let body = frame.body.as_slice();
    match frame.tag {
        b'Q' => decode_query(frame.body),
        b'P' => decode_parse(body),
        b'B' => decode_bind(body).map(FrontendMessage::Bind),
        b'D' => decode_target(body, "DESCRIBE").map(|(t, n)| FrontendMessage::Describe(t, n)),
        b'C' => decode_target(body, "CLOSE").map(|(t, n)| FrontendMessage::Close(t, n)),
        b'E' => decode_execute(body),
        b'S' => MsgReader::new(body).end().map(|()| FrontendMessage::Sync),
        b'H' => MsgReader::new(body).end().map(|()| FrontendMessage::Flush),
        b'X' => Ok(FrontendMessage::Terminate),
        b'd' => Ok(FrontendMessage::CopyData(frame.body)),
        b'c' => Ok(FrontendMessage::CopyDone),
        b'f' => decode_copy_fail(body),
        b'F' => Ok(FrontendMessage::FunctionCall),
        // pqcomm admits no other type; this keeps the two lists honest.
        other => Err(PgError::fatal(
            SqlState::PROTOCOL_VIOLATION,
            format!("invalid frontend message type {other}"),
        )),
    }
}

/// decode_query -- the query string, verified in place (it may be large).
fn decode_query(mut body: Vec<u8>) -> Result<FrontendMessage, PgError> {
    let nul = body
        .iter()
        .position(|&b| b == 0)
        .ok_or_else(|| protocol_violation("invalid string in message"))?;
    if nul + 1 != body.len() {
        return Err(protocol_violation("invalid message format"));
    }
    body.truncate(nul);
    client_text(body).map(FrontendMessage::Query)
}

/// decode_parse -- name, query, parameter type OIDs.
fn decode_parse(body: &[u8]) -> Result<FrontendMessage, PgError> {
    let mut r = MsgReader::new(body);
    let statement = r.get_cstring()?;
    let sql = r.get_cstring()?;
    let count = r.get_u16()?;
    let param_types =
        (0..count).map(|_| r.get_i32().map(|oid| oid as Oid)).collect::<Result<_, _>>()?;
    r.end()?;
    Ok(FrontendMessage::Parse { statement, sql, param_types })
}

/// decode_bind -- portal, statement, parameter formats and values, result formats.
fn decode_bind(body: &[u8]) -> Result<BindRequest, PgError> {
    let mut r = MsgReader::new(body);
    let portal = r.get_cstring()?;
    let statement = r.get_cstring()?;
    let param_formats = read_format_codes(&mut r)?;
    let param_count = usize::from(r.get_u16()?);
    if param_formats.len() > 1 && param_formats.len() != param_count {
        return Err(protocol_violation(format!(
            "bind message has {} parameter formats but {} parameters",
            param_formats.len(),
            param_count
        )));
    }
    let values =
        (0..param_count).map(|_| read_param_value(&mut r)).collect::<Result<Vec<_>, _>>()?;
    let result_formats = read_format_codes(&mut r)?;
    r.end()?;
    let params = values
        .into_iter()
        .enumerate()
        .map(|(i, value)| Ok(BindParam { format: param_format(&param_formats, i)?, value }))
        .collect::<Result<_, PgError>>()?;
    let result_formats =
        result_formats.into_iter().map(format_from_code).collect::<Result<_, _>>()?;
    Ok(BindRequest { portal, statement, params, result_formats: ResultFormats(result_formats) })
}

/// A count-prefixed list of 16-bit format codes (checked later).
fn read_format_codes(r: &mut MsgReader<'_>) -> Result<Vec<i16>, PgError> {
    let count = r.get_u16()?;
    (0..count).map(|_| r.get_u16().map(|c| c as i16)).collect()
}

/// One parameter: a 32-bit length (-1 = NULL) and that many bytes.
fn read_param_value(r: &mut MsgReader<'_>) -> Result<Option<Vec<u8>>, PgError> {
    match r.get_i32()? {
        -1 => Ok(None),
        // A negative length other than -1 cannot be satisfied, as in pq_getmsgbytes.
        len => {
            let len = usize::try_from(len).unwrap_or(usize::MAX);
            r.get_bytes(len).map(|bytes| Some(bytes.to_vec()))
        }
    }
}

/// The format of parameter `i`: none given = text, one = all, else one each.
fn param_format(codes: &[i16], i: usize) -> Result<Format, PgError> {
    match codes {
        [] => Ok(Format::Text),
        [one] => format_from_code(*one),
        each => format_from_code(each.get(i).copied().unwrap_or_default()),
    }
}

/// format_from_code -- 0 text, 1 binary, anything else 22023.
fn format_from_code(code: i16) -> Result<Format, PgError> {
    match code {
        0 => Ok(Format::Text),
        1 => Ok(Format::Binary),
        other => Err(PgError::error(
            SqlState::INVALID_PARAMETER_VALUE,
            format!("unsupported format code: {other}"),
        )),
    }
}

/// decode_target -- Describe/Close: a subtype byte and a name.
fn decode_target(body: &[u8], what: &str) -> Result<(Target, String), PgError> {
    let mut r = MsgReader::new(body);
    let subtype = r.get_u8()?;
    let name = r.get_cstring()?;
    r.end()?;
    let target = match subtype {
        b'S' => Target::Statement,
        b'P' => Target::Portal,
        other => return Err(protocol_violation(format!("invalid {what} message subtype {other}"))),
    };
    Ok((target, name))
}

/// decode_execute -- portal name and row limit.
fn decode_execute(body: &[u8]) -> Result<FrontendMessage, PgError> {
    let mut r = MsgReader::new(body);
    let portal = r.get_cstring()?;
    let max_rows = u32::try_from(r.get_i32()?).ok().and_then(NonZeroU32::new);
    r.end()?;
    Ok(FrontendMessage::Execute { portal, max_rows })
}

/// decode_copy_fail -- the client's reason for aborting COPY.
fn decode_copy_fail(body: &[u8]) -> Result<FrontendMessage, PgError> {
    let mut r = MsgReader::new(body);
    let reason = r.get_cstring()?;
    r.end()?;
    Ok(FrontendMessage::CopyFail(reason))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decode a message with type `tag` and `body`.
    fn dec(tag: u8, body: &[u8]) -> Result<FrontendMessage, PgError> {
        decode(Frame { tag, body: body.to_vec() })
    }

    #[test]
    fn query_must_be_one_terminated_string() {
        assert!(
            matches!(dec(b'Q', b"SELECT 1\0"), Ok(FrontendMessage::Query(q)) if q == "SELECT 1")
        );
        assert_eq!(dec(b'Q', b"SELECT 1").err().unwrap().message, "invalid string in message");
        assert_eq!(dec(b'Q', b"a\0b\0").err().unwrap().message, "invalid message format");
        assert_eq!(dec(b'Q', b"\xff\0").err().unwrap().code, SqlState::CHARACTER_NOT_IN_REPERTOIRE);
    }

    #[test]
    fn bind_resolves_formats_and_nulls() {
        let mut b = b"p\0s\0".to_vec();
        b.extend_from_slice(&[0, 1, 0, 1]); // one format code: binary
        b.extend_from_slice(&[0, 2]); // two params
        b.extend_from_slice(&[0xff, 0xff, 0xff, 0xff]); // NULL
        b.extend_from_slice(&[0, 0, 0, 2, b'h', b'i']);
        b.extend_from_slice(&[0, 0]); // no result formats
        let Ok(FrontendMessage::Bind(bind)) = dec(b'B', &b) else { panic!("bind expected") };
        assert_eq!(bind.portal, "p");
        assert_eq!(bind.params[0], BindParam { format: Format::Binary, value: None });
        assert_eq!(bind.params[1].value.as_deref(), Some(&b"hi"[..]));
        assert_eq!(bind.result_formats, ResultFormats(vec![]));
    }

    #[test]
    fn bind_errors() {
        let mut b = b"\0\0".to_vec();
        b.extend_from_slice(&[0, 2, 0, 0, 0, 0, 0, 1]); // two formats, one param
        let e = dec(b'B', &b).err().unwrap();
        assert_eq!(e.message, "bind message has 2 parameter formats but 1 parameters");
        let truncated = b"\0\0\0\0\0\x01\0\0\0\x09ab";
        assert_eq!(
            dec(b'B', truncated).err().unwrap().message,
            "insufficient data left in message"
        );
        let negative = b"\0\0\0\0\0\x01\xff\xff\xff\xfe\0\0";
        assert_eq!(dec(b'B', negative).err().unwrap().message, "insufficient data left in message");
        let bad_format = b"\0\0\0\0\0\0\0\x01\0\x07";
        assert_eq!(dec(b'B', bad_format).err().unwrap().message, "unsupported format code: 7");
    }

    #[test]
    fn describe_and_close_subtypes() {
        assert!(
            matches!(dec(b'D', b"Sx\0"), Ok(FrontendMessage::Describe(Target::Statement, n)) if n == "x")
        );
        assert!(
            matches!(dec(b'C', b"P\0"), Ok(FrontendMessage::Close(Target::Portal, n)) if n.is_empty())
        );
        assert_eq!(
            dec(b'D', b"Zx\0").err().unwrap().message,
            "invalid DESCRIBE message subtype 90"
        );
        assert_eq!(dec(b'C', b"Qx\0").err().unwrap().message, "invalid CLOSE message subtype 81");
    }

    #[test]
    fn execute_row_limit() {
        let Ok(FrontendMessage::Execute { max_rows, .. }) = dec(b'E', b"\0\0\0\0\x05") else {
            panic!()
        };
        assert_eq!(max_rows.map(NonZeroU32::get), Some(5));
        let Ok(FrontendMessage::Execute { max_rows, .. }) = dec(b'E', b"\0\xff\xff\xff\xff") else {
            panic!()
        };
        assert_eq!(max_rows, None);
    }

    #[test]
    fn parse_and_sync() {
        let Ok(FrontendMessage::Parse { statement, sql, param_types }) =
            dec(b'P', b"s\0SELECT $1\0\0\x01\0\0\0\x17")
        else {
            panic!()
        };
        assert_eq!((statement.as_str(), sql.as_str(), param_types), ("s", "SELECT $1", vec![23]));
        assert!(matches!(dec(b'S', b""), Ok(FrontendMessage::Sync)));
        assert_eq!(dec(b'S', b"x").err().unwrap().message, "invalid message format");
    }
}
