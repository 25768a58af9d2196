//! COPY TO: rows to a data stream (PostgreSQL's `copyto.c`).
//!
//! [`RowWriter`] turns rows into the chosen format and sends each row as one
//! chunk (one CopyData message, as PostgreSQL does; the binary header rides
//! with the first row and the trailer goes last). Text output backslash-
//! escapes backslashes, the delimiter and control characters (`\n`, `\t`,
//! ...); NULL is the NULL string as given. CSV output quotes a value only
//! when it must be (it contains the delimiter, the quote, CR or LF, equals
//! the NULL string, or is `\.` alone on a line) or FORCE_QUOTE says so, and
//! escapes quotes and escapes inside quotes. The header line is the column
//! names, written like values.
//!
//! Where the rows come from is `copy.rs`'s business; this file only formats
//! and sends.

use super::binary::{write_header, write_trailer};
use super::options::{CopyOptions, Encoding, Format, Header};
use crate::error::{Result, SqlError};
use crate::sink::CopyTarget;
use sluice_types::{binary, io, Context, Datum};
use std::io::Write;

/// Where the data goes.
pub(crate) enum Dest<'a> {
    /// The client (COPY TO STDOUT).
    Client(Box<dyn CopyTarget + 'a>),
    /// A server file (COPY TO 'file').
    File(std::io::BufWriter<std::fs::File>),
}

/// Formats rows and sends them; see the module documentation.
pub(crate) struct RowWriter<'a> {
    options: CopyOptions,
    /// Per column: FORCE_QUOTE.
    force_quote: Vec<bool>,
    /// The session's settings for value output (TimeZone).
    context: Context,
    /// The chunk being built.
    buf: Vec<u8>,
    dest: Dest<'a>,
    /// Rows written.
    pub(crate) count: u64,
}

impl<'a> RowWriter<'a> {
    /// A writer of rows with columns named `names` to `dest`; writes the
    /// binary header or the header line at once.
    pub(crate) fn start(
        options: CopyOptions,
        force_quote: Vec<bool>,
        names: &[String],
        context: Context,
        dest: Dest<'a>,
    ) -> Result<RowWriter<'a>> {
        let mut writer =
            RowWriter { options, force_quote, context, buf: Vec::new(), dest, count: 0 };
        match writer.options.format {
            Format::Binary => write_header(&mut writer.buf),
            _ if writer.options.header == Header::On => {
                let single = names.len() == 1;
                for (i, name) in names.iter().enumerate() {
                    writer.separate(i);
                    writer.value_out(name, false, single);
                }
                writer.end_line()?;
            }
            _ => {}
        }
        Ok(writer)
    }

    /// row -- writes one row.
    pub(crate) fn row(&mut self, values: &[Datum]) -> Result<()> {
        if self.options.format == Format::Binary {
            self.binary_row(values)?;
        } else {
            let single = values.len() == 1;
            for (i, value) in values.iter().enumerate() {
                self.separate(i);
                match io::output(value, &self.context) {
                    None => self.buf.extend_from_slice(self.options.null.as_bytes()),
                    Some(text) => {
                        let forced = self.force_quote.get(i).copied().unwrap_or(false);
                        self.value_out(&text, forced, single)
                    }
                }
            }
        }
        self.count += 1;
        self.end_line()
    }

    /// finish -- ends the data (binary trailer, CopyDone, file flush) and
    /// returns the number of rows.
    pub(crate) fn finish(mut self) -> Result<u64> {
        if self.options.format == Format::Binary {
            write_trailer(&mut self.buf);
            self.send()?;
        }
        match self.dest {
            Dest::Client(client) => client.finish()?,
            Dest::File(mut file) => file.flush().map_err(write_error)?,
        }
        Ok(self.count)
    }

    /// A delimiter before every value but the first.
    fn separate(&mut self, i: usize) {
        if i > 0 {
            self.buf.push(self.options.delimiter);
        }
    }

    /// One non-NULL value (or column name) in text or CSV.
    fn value_out(&mut self, text: &str, forced: bool, single: bool) {
        if self.options.format == Format::Csv {
            csv_out(&mut self.buf, text, &self.options, forced, single);
        } else {
            text_out(&mut self.buf, text, self.options.delimiter);
        }
    }

    /// A binary row: field count, then each field's length and bytes.
    fn binary_row(&mut self, values: &[Datum]) -> Result<()> {
        let count = i16::try_from(values.len())
            .map_err(|_| SqlError::new("54011", "too many columns for binary COPY"))?;
        self.buf.extend_from_slice(&count.to_be_bytes());
        for value in values {
            if value.is_null() {
                self.buf.extend_from_slice(&(-1i32).to_be_bytes());
                continue;
            }
            let bytes = binary::send(value);
            let len = i32::try_from(bytes.len())
                .map_err(|_| SqlError::new("54000", "field value too large for binary COPY"))?;
            self.buf.extend_from_slice(&len.to_be_bytes());
            self.buf.extend_from_slice(&bytes);
        }
        Ok(())
    }

    /// Ends a row (or the header line) and sends it.
    fn end_line(&mut self) -> Result<()> {
        if self.options.format != Format::Binary {
            self.buf.push(b'\n');
        }
        self.send()
    }

    /// Sends the chunk built so far, in the data's encoding.
    fn send(&mut self) -> Result<()> {
        if self.options.encoding == Encoding::Latin1 {
            self.buf = to_latin1(&self.buf)?;
        }
        match &mut self.dest {
            Dest::Client(client) => client.write(&self.buf)?,
            Dest::File(file) => file.write_all(&self.buf).map_err(write_error)?,
        }
        self.buf.clear();
        Ok(())
    }
}

/// The error for a failed write to a COPY file.
fn write_error(e: std::io::Error) -> SqlError {
    super::file_error(&e, "could not write to COPY file".to_string())
}

/// to_latin1 -- UTF8 `utf8` as LATIN1, or PostgreSQL's error for the first
/// character LATIN1 lacks.
fn to_latin1(utf8: &[u8]) -> Result<Vec<u8>> {
    let text = std::str::from_utf8(utf8)
        .map_err(|_| SqlError::internal("COPY output is not valid UTF8"))?;
    text.chars()
        .map(|c| {
            u8::try_from(u32::from(c)).map_err(|_| {
                let mut bytes = [0u8; 4];
                let shown: Vec<String> =
                    c.encode_utf8(&mut bytes).bytes().map(|b| format!("0x{b:02x}")).collect();
                SqlError::new(
                    "22P05",
                    format!(
                        "character with byte sequence {} in encoding \"UTF8\" has no equivalent in encoding \"LATIN1\"",
                        shown.join(" ")
                    ),
                )
            })
        })
        .collect()
}

/// text_out -- a value in text format: backslash before backslashes and the
/// delimiter, control characters as `\b \f \n \r \t \v` (others as they
/// are), so that reading it back gives the same value.
pub(crate) fn text_out(buf: &mut Vec<u8>, text: &str, delimiter: u8) {
    for &c in text.as_bytes() {
        let escaped = match c {
            0x08 => b'b',
            0x0c => b'f',
            b'\n' => b'n',
            b'\r' => b'r',
            b'\t' => b't',
            0x0b => b'v',
            b'\\' => b'\\',
            c if c == delimiter => c,
            c => {
                buf.push(c);
                continue;
            }
        };
        buf.push(b'\\');
        buf.push(escaped);
    }
}

/// csv_out -- a value in CSV: quoted when `forced`, when it equals the NULL
/// string, when it is `\.` and the only column (it would read as the end of
/// the data), or when it contains the delimiter, the quote, CR or LF; inside
/// quotes, quotes and escapes get an escape before them.
pub(crate) fn csv_out(
    buf: &mut Vec<u8>,
    text: &str,
    options: &CopyOptions,
    forced: bool,
    single: bool,
) {
    let bytes = text.as_bytes();
    let (quote, escape, delimiter) = (options.quote, options.escape, options.delimiter);
    let quoted = forced
        || text == options.null
        || (single && text == "\\.")
        || bytes.iter().any(|&c| c == delimiter || c == quote || c == b'\n' || c == b'\r');
    if !quoted {
        buf.extend_from_slice(bytes);
        return;
    }
    buf.push(quote);
    for &c in bytes {
        if c == quote || c == escape {
            buf.push(escape);
        }
        buf.push(c);
    }
    buf.push(quote);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::copy::options::parse_options;

    fn text(value: &str) -> String {
        let mut buf = Vec::new();
        text_out(&mut buf, value, b'|');
        String::from_utf8(buf).unwrap()
    }

    fn csv(value: &str, forced: bool, single: bool) -> String {
        let mut options = parse_options(&[], false).unwrap();
        options.delimiter = b',';
        options.quote = b'"';
        options.escape = b'\\';
        options.null = String::new();
        let mut buf = Vec::new();
        csv_out(&mut buf, value, &options, forced, single);
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn text_output_escapes() {
        assert_eq!(text("plain"), "plain");
        assert_eq!(text("a\tb\nc\rd\\e|f"), "a\\tb\\nc\\rd\\\\e\\|f");
        assert_eq!(text("\x08\x0c\x0b\x01"), "\\b\\f\\v\x01", "other controls as they are");
    }

    #[test]
    fn csv_output_quotes_only_when_needed() {
        assert_eq!(csv("plain", false, false), "plain");
        assert_eq!(csv("a,b", false, false), "\"a,b\"");
        assert_eq!(csv("say \"hi\"", false, false), "\"say \\\"hi\\\"\"");
        assert_eq!(csv("back\\slash", false, false), "back\\slash", "escape alone needs no quotes");
        assert_eq!(csv("back\\slash,", false, false), "\"back\\\\slash,\"");
        assert_eq!(csv("", false, false), "\"\"", "the NULL string is quoted");
        assert_eq!(csv("x", true, false), "\"x\"");
        assert_eq!(csv("\\.", false, true), "\"\\\\.\"", "escaped inside the quotes");
        assert_eq!(csv("\\.", false, false), "\\.");
        assert_eq!(csv("line\nbreak", false, false), "\"line\nbreak\"");
    }

    #[test]
    fn latin1_output() {
        assert_eq!(to_latin1("aé".as_bytes()).unwrap(), b"a\xe9");
        assert_eq!(
            to_latin1("€".as_bytes()).unwrap_err().message,
            "character with byte sequence 0xe2 0x82 0xac in encoding \"UTF8\" has no equivalent in encoding \"LATIN1\""
        );
    }
}
