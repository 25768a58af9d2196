//! Reading fields out of a frontend message body (PostgreSQL's `libpq/pqformat.c`).
//!
//! A message body arrives whole (framing is `pqcomm.rs`'s job), so reading it can
//! never block; it can only find the body malformed. Every accessor here checks
//! before it reads and reports malformation as PostgreSQL does, with ERROR 08P01:
//! `insufficient data left in message`, `invalid string in message`, `invalid
//! message format` (bytes left over). These are ERRORs, not FATAL: the message
//! boundary is intact, so the session can go on.
//!
//! Strings from the client must be valid in the server encoding (UTF8); PostgreSQL
//! converts and verifies them in `pq_getmsgstring`, and sluice reports the same
//! 22021 `invalid byte sequence for encoding "UTF8": 0x..` naming the bad bytes.

use crate::error::PgError;
use crate::sqlstate::SqlState;

/// A cursor over one message body.
pub(crate) struct MsgReader<'a> {
    /// The whole body (without type byte and length word).
    data: &'a [u8],
    /// How many bytes have been consumed.
    cursor: usize,
}

impl<'a> MsgReader<'a> {
    /// A reader at the start of `data`.
    pub(crate) fn new(data: &'a [u8]) -> MsgReader<'a> {
        MsgReader { data, cursor: 0 }
    }

    /// get_bytes -- the next `len` bytes (pq_getmsgbytes).
    pub(crate) fn get_bytes(&mut self, len: usize) -> Result<&'a [u8], PgError> {
        let end = self.cursor.checked_add(len).filter(|&end| end <= self.data.len());
        let end = end.ok_or_else(insufficient_data)?;
        let bytes = &self.data[self.cursor..end];
        self.cursor = end;
        Ok(bytes)
    }

    /// The next byte.
    pub(crate) fn get_u8(&mut self) -> Result<u8, PgError> {
        Ok(self.get_array::<1>()?[0])
    }

    /// The next big-endian 16-bit integer, unsigned as `pq_getmsgint(msg, 2)` returns it.
    pub(crate) fn get_u16(&mut self) -> Result<u16, PgError> {
        Ok(u16::from_be_bytes(self.get_array()?))
    }

    /// The next big-endian 32-bit signed integer.
    pub(crate) fn get_i32(&mut self) -> Result<i32, PgError> {
        Ok(i32::from_be_bytes(self.get_array()?))
    }

    /// The next `N` bytes as an array.
    fn get_array<const N: usize>(&mut self) -> Result<[u8; N], PgError> {
        let bytes = self.get_bytes(N)?;
        bytes.try_into().map_err(|_| insufficient_data())
    }

    /// get_cstring -- a NUL-terminated string, verified as UTF8 (pq_getmsgstring).
    pub(crate) fn get_cstring(&mut self) -> Result<String, PgError> {
        let rest = self.data.get(self.cursor..).unwrap_or_default();
        let nul = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| protocol_violation("invalid string in message"))?;
        let text = client_text(rest[..nul].to_vec())?;
        self.cursor += nul + 1;
        Ok(text)
    }

    /// end -- the body must be fully consumed (pq_getmsgend).
    pub(crate) fn end(&self) -> Result<(), PgError> {
        if self.cursor == self.data.len() {
            Ok(())
        } else {
            Err(protocol_violation("invalid message format"))
        }
    }
}

/// client_text -- bytes from the client as a String, or 22021 naming the bad bytes.
pub(crate) fn client_text(bytes: Vec<u8>) -> Result<String, PgError> {
    String::from_utf8(bytes).map_err(|e| {
        let bad_at = e.utf8_error().valid_up_to();
        invalid_utf8(e.as_bytes().get(bad_at..).unwrap_or_default())
    })
}

/// invalid_utf8 -- PostgreSQL's report_invalid_encoding for UTF8.
///
/// `bad` starts at the first invalid sequence; as many bytes are shown as that
/// sequence's lead byte announces (at most what is there, at most 8).
fn invalid_utf8(bad: &[u8]) -> PgError {
    let shown = utf8_sequence_length(bad.first().copied().unwrap_or(0)).min(bad.len()).min(8);
    let hex: Vec<String> = bad.iter().take(shown).map(|b| format!("0x{b:02x}")).collect();
    PgError::error(
        SqlState::CHARACTER_NOT_IN_REPERTOIRE,
        format!("invalid byte sequence for encoding \"UTF8\": {}", hex.join(" ")),
    )
}

/// utf8_sequence_length -- bytes in the UTF8 sequence a lead byte announces
/// (PostgreSQL's pg_utf_mblen: 1 for anything that is no lead byte).
fn utf8_sequence_length(lead: u8) -> usize {
    match lead {
        b if b & 0x80 == 0 => 1,
        b if b & 0xe0 == 0xc0 => 2,
        b if b & 0xf0 == 0xe0 => 3,
        b if b & 0xf8 == 0xf0 => 4,
        _ => 1,
    }
}

/// An ERROR 08P01 with `message`.
pub(crate) fn protocol_violation(message: impl Into<String>) -> PgError {
    PgError::error(SqlState::PROTOCOL_VIOLATION, message)
}

/// The error for reading past the end of a message body.
fn insufficient_data() -> PgError {
    protocol_violation("insufficient data left in message")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_fields_and_checks_bounds() {
        let body = b"ab\0\x00\x02\x00\x00\x00\x07xyz";
        let mut r = MsgReader::new(body);
        assert_eq!(r.get_cstring().unwrap(), "ab");
        assert_eq!(r.get_u16().unwrap(), 2);
        assert_eq!(r.get_i32().unwrap(), 7);
        assert_eq!(r.end().unwrap_err().message, "invalid message format");
        assert_eq!(r.get_bytes(3).unwrap(), b"xyz");
        assert!(r.end().is_ok());
        assert_eq!(r.get_u8().unwrap_err().message, "insufficient data left in message");
        assert_eq!(
            r.get_bytes(usize::MAX).unwrap_err().message,
            "insufficient data left in message"
        );
    }

    #[test]
    fn cstring_without_terminator_is_invalid() {
        let mut r = MsgReader::new(b"abc");
        assert_eq!(r.get_cstring().unwrap_err().message, "invalid string in message");
    }

    #[test]
    fn invalid_utf8_names_the_sequence() {
        let e = client_text(b"SELECT \xff".to_vec()).unwrap_err();
        assert_eq!(e.code, SqlState::CHARACTER_NOT_IN_REPERTOIRE);
        assert_eq!(e.message, "invalid byte sequence for encoding \"UTF8\": 0xff");
        let e = client_text(b"a\xc3\x28b".to_vec()).unwrap_err();
        assert_eq!(e.message, "invalid byte sequence for encoding \"UTF8\": 0xc3 0x28");
        let e = client_text(b"a\xe2\x82".to_vec()).unwrap_err();
        assert_eq!(e.message, "invalid byte sequence for encoding \"UTF8\": 0xe2 0x82");
        assert_eq!(client_text("héllo".as_bytes().to_vec()).unwrap(), "héllo");
    }
}
