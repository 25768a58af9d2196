//! PostgreSQL's binary COPY format (`copyfromparse.c`'s binary half and
//! `copyto.c`'s binary output).
//!
//! ```text
//!   "PGCOPY\n\377\r\n\0"  int32 flags (bit 16: WITH OIDS, others critical)
//!   int32 extension length, extension bytes (skipped)
//!   per row: int16 field count, per field int32 length (-1: NULL) + bytes
//!   int16 -1 (trailer)
//! ```
//!
//! Field bytes are each type's binary send format (`sluice_types::binary`).
//! After the trailer nothing may follow; data that simply stops at a row
//! boundary is accepted too, as PostgreSQL does.

use super::input::Input;
use super::text::bad_format;
use crate::error::Result;
use std::ops::Range;

/// The file signature.
pub(crate) const SIGNATURE: &[u8; 11] = b"PGCOPY\n\xff\r\n\0";

/// The flag bit of the old WITH OIDS files.
const FLAG_OIDS: u32 = 1 << 16;

/// Reads binary COPY data.
pub(crate) struct BinaryReader<'a> {
    input: Input<'a>,
    /// The number of the row being read (1-based), for error context.
    pub(crate) lineno: u64,
    /// The field just read, in `input.buf`.
    value: Range<usize>,
}

impl<'a> BinaryReader<'a> {
    /// A reader of `input`.
    pub(crate) fn new(input: Input<'a>) -> BinaryReader<'a> {
        BinaryReader { input, lineno: 0, value: 0..0 }
    }

    /// take -- the next `n` bytes, or `None` if the data ends first.
    fn take(&mut self, n: usize) -> Result<Option<Range<usize>>> {
        if !self.input.ensure(n)? {
            return Ok(None);
        }
        let start = self.input.pos;
        self.input.pos += n;
        Ok(Some(start..start + n))
    }

    /// The next big-endian 32-bit integer, `None` if the data ends first.
    fn int32(&mut self) -> Result<Option<i32>> {
        Ok(self.take(4)?.map(|r| {
            let b = &self.input.buf[r];
            i32::from_be_bytes([b[0], b[1], b[2], b[3]])
        }))
    }

    /// read_header -- checks the file header and skips its extension.
    pub(crate) fn read_header(&mut self) -> Result<()> {
        let signature = self.take(SIGNATURE.len())?;
        if signature.is_none_or(|r| self.input.buf[r] != SIGNATURE[..]) {
            return Err(bad_format("COPY file signature not recognized"));
        }
        let flags =
            self.int32()?.ok_or_else(|| bad_format("invalid COPY file header (missing flags)"))?
                as u32;
        if flags & FLAG_OIDS != 0 {
            return Err(bad_format("invalid COPY file header (WITH OIDS)"));
        }
        if (flags & !FLAG_OIDS) >> 16 != 0 {
            return Err(bad_format("unrecognized critical flags in COPY file header"));
        }
        let extension = self
            .int32()?
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| bad_format("invalid COPY file header (missing length)"))?;
        if self.take(extension)?.is_none() {
            return Err(bad_format("invalid COPY file header (wrong length)"));
        }
        Ok(())
    }

    /// begin_row -- reads the next row's field count, which must be
    /// `expected`; false at the trailer or where the data ends.
    pub(crate) fn begin_row(&mut self, expected: usize) -> Result<bool> {
        self.lineno += 1;
        let Some(r) = self.take(2)? else { return Ok(false) };
        let count = i16::from_be_bytes([self.input.buf[r.start], self.input.buf[r.start + 1]]);
        if count == -1 {
            if !self.input.at_end()? {
                return Err(bad_format("received copy data after EOF marker"));
            }
            return Ok(false);
        }
        if usize::try_from(count).ok() != Some(expected) {
            return Err(bad_format(format!("row field count is {count}, expected {expected}")));
        }
        Ok(true)
    }

    /// read_field -- the next field of the row: `None` for NULL.
    pub(crate) fn read_field(&mut self) -> Result<Option<&[u8]>> {
        let eof = || bad_format("unexpected EOF in COPY data");
        let size = self.int32()?.ok_or_else(eof)?;
        if size == -1 {
            return Ok(None);
        }
        let size = usize::try_from(size).map_err(|_| bad_format("invalid field size"))?;
        self.value = self.take(size)?.ok_or_else(eof)?;
        Ok(Some(&self.input.buf[self.value.clone()]))
    }
}

/// The header of binary COPY output: signature, no flags, no extension.
pub(crate) fn write_header(buf: &mut Vec<u8>) {
    buf.extend_from_slice(SIGNATURE);
    buf.extend_from_slice(&0i32.to_be_bytes());
    buf.extend_from_slice(&0i32.to_be_bytes());
}

/// The trailer of binary COPY output.
pub(crate) fn write_trailer(buf: &mut Vec<u8>) {
    buf.extend_from_slice(&(-1i16).to_be_bytes());
}
