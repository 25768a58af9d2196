//! Text and CSV input: lines, then fields (PostgreSQL's `CopyReadLineText`,
//! `CopyReadAttributesText` and `CopyReadAttributesCSV` in
//! `copyfromparse.c`).
//!
//! # Lines
//!
//! A line ends at `\n`, `\r` or `\r\n`, whichever the first line ends with;
//! a different ending later is an error ("literal carriage return found in
//! data"), because a stray CR or LF usually means a value that should have
//! been escaped. In text format a backslash protects the next byte (so `\` at
//! the end of a line escapes the newline, which becomes data), and `\.` ends
//! the data wherever it appears, if followed by the line ending; anything
//! else after `\.` is "end-of-copy marker corrupt". In CSV a line ending
//! inside quotes is data, and `\.` ends the data only alone on its line,
//! because `\.` is a valid CSV value. After the marker the rest of the
//! client's data is read and ignored.
//!
//! # Fields
//!
//! Text: fields are split at the delimiter; `\b \f \n \r \t \v`, octal
//! `\NNN` and hex `\xHH` escapes make bytes, any other escaped byte stands for
//! itself (`\\`, `\` + delimiter). A field whose raw text equals the NULL
//! string (`\N`) is NULL — compared before unescaping, so `\\N` is the text
//! `\N`. Escapes can produce any byte, so a field that used them for non-ASCII
//! bytes is checked to be valid UTF8.
//!
//! CSV: quotes may start and stop anywhere in a field (`a"b,c"d` is `ab,cd`);
//! inside quotes the escape character (the quote itself by default) makes the
//! next quote or escape literal. An unquoted field equal to the NULL string
//! (empty by default) is NULL; a quoted one never is.
//!
//! # Cost
//!
//! Lines are found by skipping over ordinary bytes in bulk; a line's bytes are
//! never copied (it is a range of the input buffer) and fields are written
//! into one reused buffer, so after warm-up a row costs no allocation here.

use super::input::{check_utf8, Input};
use super::options::{CopyOptions, Format};
use crate::error::{Result, SqlError};
use std::ops::Range;

/// How lines end, fixed by the first one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Eol {
    /// Not seen yet.
    Unknown,
    /// `\n`.
    Nl,
    /// `\r`.
    Cr,
    /// `\r\n`.
    CrNl,
}

/// 22P04 bad_copy_file_format.
pub(crate) fn bad_format(message: impl Into<String>) -> SqlError {
    SqlError::new("22P04", message)
}

/// The parsing rules of one COPY.
#[derive(Clone, Debug)]
pub(crate) struct Dialect {
    /// CSV rather than text.
    pub csv: bool,
    /// Field separator.
    pub delimiter: u8,
    /// CSV quote.
    pub quote: u8,
    /// CSV escape.
    pub escape: u8,
    /// The NULL string.
    pub null: Vec<u8>,
}

impl Dialect {
    /// The rules `options` give.
    pub(crate) fn new(options: &CopyOptions) -> Dialect {
        Dialect {
            csv: options.format == Format::Csv,
            delimiter: options.delimiter,
            quote: options.quote,
            escape: options.escape,
            null: options.null.as_bytes().to_vec(),
        }
    }
}

/// Reads text or CSV data line by line and splits lines into fields.
pub(crate) struct TextReader<'a> {
    input: Input<'a>,
    dialect: Dialect,
    eol: Eol,
    /// Which bytes stop the bulk scan for a line end.
    special: [bool; 256],
    /// The number of the line being read (1-based), for error context.
    pub(crate) lineno: u64,
    /// The current line (without its ending) in `input.buf`.
    line: Range<usize>,
    /// The end of the data was reached (marker or end of input).
    finished: bool,
    /// The fields of the current line, unescaped, end to end.
    values: Vec<u8>,
    /// Each field's range in `values`; `None` is NULL.
    fields: Vec<Option<Range<usize>>>,
}

/// Why the line scan stopped at a byte.
enum Stop {
    /// The line ends; its content ends at `content`, the next line starts at `next`.
    Line { content: usize, next: usize },
    /// The end-of-data marker: the line's content ends at `content`.
    Marker { content: usize },
    /// Not a line end after all; keep scanning at `next`.
    Continue { next: usize },
}

impl<'a> TextReader<'a> {
    /// A reader of `input` following `dialect`.
    pub(crate) fn new(input: Input<'a>, dialect: Dialect) -> TextReader<'a> {
        let mut special = [false; 256];
        special[usize::from(b'\n')] = true;
        special[usize::from(b'\r')] = true;
        if dialect.csv {
            special[usize::from(dialect.quote)] = true;
            special[usize::from(dialect.escape)] = true;
        } else {
            special[usize::from(b'\\')] = true;
        }
        TextReader {
            input,
            dialect,
            eol: Eol::Unknown,
            special,
            lineno: 0,
            line: 0..0,
            finished: false,
            values: Vec::new(),
            fields: Vec::new(),
        }
    }

    /// The current line's bytes (valid UTF8 once `read_line` returned).
    pub(crate) fn line(&self) -> &[u8] {
        &self.input.buf[self.line.clone()]
    }

    /// The fields of the current line after [`TextReader::split`].
    pub(crate) fn field_count(&self) -> usize {
        self.fields.len()
    }

    /// Field `i`: `None` for NULL (or past the last field).
    pub(crate) fn field(&self, i: usize) -> Result<Option<&str>> {
        let Some(Some(range)) = self.fields.get(i) else { return Ok(None) };
        // Lines are checked to be UTF8 and split at ASCII bytes, and fields
        // with escaped bytes are checked by `split_text`.
        std::str::from_utf8(&self.values[range.clone()])
            .map(Some)
            .map_err(|_| SqlError::internal("COPY field is not valid UTF8"))
    }

    /// read_line -- reads the next line (counting it in `lineno`). False at
    /// the end of the data, with an empty current line. Errors here concern
    /// the input itself, not a line (PostgreSQL's context names no line text).
    pub(crate) fn read_line(&mut self) -> Result<bool> {
        self.lineno += 1;
        if self.finished {
            self.line = self.input.pos..self.input.pos;
            return Ok(false);
        }
        let (content, next, marker) = self.scan_line()?;
        // Refills during the scan move the unconsumed bytes, never the
        // offsets relative to them.
        let base = self.input.pos;
        self.line = base..base + content;
        self.input.pos = base + next;
        check_utf8(self.line())?;
        if marker {
            self.finished = true;
            self.input.drain_client()?;
        }
        // At the end of the data only a line with something in it counts;
        // an empty line before a line ending does.
        Ok(!(self.finished && self.line.is_empty()))
    }

    /// scan_line -- finds the end of the line starting at `input.pos`:
    /// (content length, length including the ending, whether the data ended).
    /// Offsets are relative to `input.pos`, which refills keep valid.
    fn scan_line(&mut self) -> Result<(usize, usize, bool)> {
        let mut off = 0;
        let mut in_quote = false;
        let mut last_was_escape = false;
        if self.dialect.csv {
            // `\.` ends CSV data only as a line of its own.
            if let Some(content) = self.csv_marker()? {
                return Ok((content, content, true));
            }
        }
        loop {
            let available = self.input.available();
            let skip = available[off.min(available.len())..]
                .iter()
                .position(|&b| self.special[usize::from(b)]);
            match skip {
                Some(n) => off += n,
                None => {
                    off = available.len();
                    if !self.input.fill()? {
                        // The data ends without a line ending.
                        self.finished = true;
                        return Ok((off, off, false));
                    }
                    continue;
                }
            }
            let c = self.input.available()[off];
            if self.dialect.csv {
                let escape = self.csv_escape();
                if in_quote && Some(c) == escape {
                    last_was_escape = !last_was_escape;
                }
                if c == self.dialect.quote && !last_was_escape {
                    in_quote = !in_quote;
                }
                if Some(c) != escape {
                    last_was_escape = false;
                }
                let embedded_eol = if self.eol == Eol::Nl { b'\n' } else { b'\r' };
                if in_quote && c == embedded_eol {
                    self.lineno += 1;
                }
                if in_quote || (c != b'\r' && c != b'\n') {
                    off += 1;
                    continue;
                }
            }
            match self.at_special(off, c)? {
                Stop::Line { content, next } => return Ok((content, next, false)),
                Stop::Marker { content } => return Ok((content, content, true)),
                Stop::Continue { next } => off = next,
            }
        }
    }

    /// The escape character that differs from the quote (one equal to the
    /// quote is just the quote doubled, handled by toggling).
    fn csv_escape(&self) -> Option<u8> {
        (self.dialect.escape != self.dialect.quote).then_some(self.dialect.escape)
    }

    /// The byte at offset `off`, reading more input if needed; `None` at the end.
    fn peek(&mut self, off: usize) -> Result<Option<u8>> {
        Ok(if self.input.ensure(off + 1)? { Some(self.input.available()[off]) } else { None })
    }

    /// at_special -- a CR, LF or (text) backslash at `off`.
    fn at_special(&mut self, off: usize, c: u8) -> Result<Stop> {
        match c {
            b'\r' => self.at_cr(off),
            b'\n' => {
                if matches!(self.eol, Eol::Cr | Eol::CrNl) {
                    return Err(self.stray_eol(false));
                }
                self.eol = Eol::Nl;
                Ok(Stop::Line { content: off, next: off + 1 })
            }
            _ => self.at_backslash(off),
        }
    }

    /// A carriage return at `off`: a line end of this data's kind, or an error.
    fn at_cr(&mut self, off: usize) -> Result<Stop> {
        match self.eol {
            Eol::Nl => Err(self.stray_eol(true)),
            Eol::Cr => Ok(Stop::Line { content: off, next: off + 1 }),
            Eol::Unknown | Eol::CrNl => {
                if self.peek(off + 1)? == Some(b'\n') {
                    self.eol = Eol::CrNl;
                    return Ok(Stop::Line { content: off, next: off + 2 });
                }
                if self.eol == Eol::CrNl {
                    return Err(self.stray_eol(true));
                }
                self.eol = Eol::Cr;
                Ok(Stop::Line { content: off, next: off + 1 })
            }
        }
    }

    /// The error for a line ending that differs from the data's (a CR when
    /// `cr`, else a LF), with PostgreSQL's hint on how to write it as data.
    fn stray_eol(&self, cr: bool) -> SqlError {
        let (message, hint) = match (self.dialect.csv, cr) {
            (false, true) => (
                "literal carriage return found in data",
                "Use \"\\r\" to represent carriage return.",
            ),
            (true, true) => (
                "unquoted carriage return found in data",
                "Use quoted CSV field to represent carriage return.",
            ),
            (false, false) => {
                ("literal newline found in data", "Use \"\\n\" to represent newline.")
            }
            (true, false) => {
                ("unquoted newline found in data", "Use quoted CSV field to represent newline.")
            }
        };
        bad_format(message).with_hint(hint)
    }

    /// A backslash at `off` in text data: the end-of-data marker `\.`, or
    /// an escape whose next byte is data whatever it is.
    fn at_backslash(&mut self, off: usize) -> Result<Stop> {
        match self.peek(off + 1)? {
            // A backslash as the very last byte is data.
            None => Ok(Stop::Continue { next: off + 1 }),
            Some(b'.') => match self.marker_end(off + 2)? {
                Some(_) => Ok(Stop::Marker { content: off }),
                None => Err(bad_format("end-of-copy marker corrupt")),
            },
            Some(_) => Ok(Stop::Continue { next: off + 2 }),
        }
    }

    /// marker_end -- checks the line ending after `\.` (which ends at `off`):
    /// `Some(length of the ending)` if it is one, `None` if something else
    /// follows; an ending of another kind than the data's is an error.
    fn marker_end(&mut self, off: usize) -> Result<Option<usize>> {
        let mut at = off;
        if self.eol == Eol::CrNl {
            match self.peek(at)? {
                Some(b'\r') => at += 1,
                Some(b'\n') if !self.dialect.csv => {
                    return Err(bad_format(
                        "end-of-copy marker does not match previous newline style",
                    ))
                }
                _ => return Ok(None),
            }
        }
        let ending = match self.peek(at)? {
            Some(c @ (b'\r' | b'\n')) => c,
            _ => return Ok(None),
        };
        let expected = match self.eol {
            Eol::Nl | Eol::CrNl => Some(b'\n'),
            Eol::Cr => Some(b'\r'),
            Eol::Unknown => None,
        };
        if expected.is_some_and(|e| e != ending) {
            return Err(bad_format("end-of-copy marker does not match previous newline style"));
        }
        Ok(Some(at + 1 - off))
    }

    /// csv_marker -- whether the line starting at `input.pos` is the CSV
    /// end-of-data marker `\.` alone on its line; `Some(0)` if so.
    fn csv_marker(&mut self) -> Result<Option<usize>> {
        if self.peek(0)? != Some(b'\\') || self.peek(1)? != Some(b'.') {
            return Ok(None);
        }
        Ok(self.marker_end(2)?.map(|_| 0))
    }

    /// split -- splits the current line into fields.
    pub(crate) fn split(&mut self) -> Result<()> {
        let TextReader { input, dialect, line, values, fields, .. } = self;
        values.clear();
        fields.clear();
        let line = &input.buf[line.clone()];
        if dialect.csv {
            split_csv(line, dialect, values, fields)
        } else {
            split_text(line, dialect, values, fields)
        }
    }
}

/// split_text -- text-format fields of `line` into `values`/`fields`.
pub(crate) fn split_text(
    line: &[u8],
    dialect: &Dialect,
    values: &mut Vec<u8>,
    fields: &mut Vec<Option<Range<usize>>>,
) -> Result<()> {
    let mut i = 0;
    loop {
        let (start, out_start) = (i, values.len());
        let mut escaped_non_ascii = false;
        let mut found_delimiter = false;
        while i < line.len() {
            let run = line[i..]
                .iter()
                .position(|&b| b == dialect.delimiter || b == b'\\')
                .unwrap_or(line.len() - i);
            values.extend_from_slice(&line[i..i + run]);
            i += run;
            if i == line.len() {
                break;
            }
            if line[i] == dialect.delimiter {
                found_delimiter = true;
                i += 1;
                break;
            }
            // A backslash: the last byte of a line escapes nothing.
            i += 1;
            if i == line.len() {
                break;
            }
            let (byte, used) = unescape(&line[i..]);
            escaped_non_ascii |= byte == 0 || byte >= 0x80;
            values.push(byte);
            i += used;
        }
        let raw_end = if found_delimiter { i - 1 } else { i };
        if line[start..raw_end] == dialect.null[..] {
            values.truncate(out_start);
            fields.push(None);
        } else {
            if escaped_non_ascii {
                check_utf8(&values[out_start..])?;
            }
            fields.push(Some(out_start..values.len()));
        }
        if !found_delimiter {
            return Ok(());
        }
    }
}

/// unescape -- the byte a text-format escape stands for, given the bytes
/// after the backslash (at least one), and how many of them it used.
fn unescape(rest: &[u8]) -> (u8, usize) {
    let octal = |b: u8| (b'0'..=b'7').contains(&b);
    match rest[0] {
        c if octal(c) => {
            let digits = rest.iter().take(3).take_while(|&&b| octal(b)).count();
            let value = rest[..digits].iter().fold(0u32, |v, &d| (v << 3) + u32::from(d - b'0'));
            ((value & 0xff) as u8, digits)
        }
        b'x' if rest.get(1).is_some_and(u8::is_ascii_hexdigit) => {
            let digits = rest[1..].iter().take(2).take_while(|b| b.is_ascii_hexdigit()).count();
            let value = rest[1..=digits].iter().fold(0u32, |v, &d| (v << 4) + hex_value(d));
            (value as u8, 1 + digits)
        }
        b'b' => (0x08, 1),
        b'f' => (0x0c, 1),
        b'n' => (b'\n', 1),
        b'r' => (b'\r', 1),
        b't' => (b'\t', 1),
        b'v' => (0x0b, 1),
        other => (other, 1),
    }
}

/// The value of a hexadecimal digit.
fn hex_value(d: u8) -> u32 {
    char::from(d).to_digit(16).unwrap_or(0)
}

/// split_csv -- CSV fields of `line` into `values`/`fields`.
pub(crate) fn split_csv(
    line: &[u8],
    dialect: &Dialect,
    values: &mut Vec<u8>,
    fields: &mut Vec<Option<Range<usize>>>,
) -> Result<()> {
    let mut i = 0;
    loop {
        let (start, out_start) = (i, values.len());
        let mut saw_quote = false;
        let mut found_delimiter = false;
        'field: loop {
            // Outside quotes.
            loop {
                let Some(&c) = line.get(i) else { break 'field };
                i += 1;
                if c == dialect.delimiter {
                    found_delimiter = true;
                    break 'field;
                }
                if c == dialect.quote {
                    saw_quote = true;
                    break;
                }
                values.push(c);
            }
            // Inside quotes.
            loop {
                let Some(&c) = line.get(i) else {
                    return Err(bad_format("unterminated CSV quoted field"));
                };
                i += 1;
                if c == dialect.escape {
                    if let Some(&next) =
                        line.get(i).filter(|&&n| n == dialect.escape || n == dialect.quote)
                    {
                        values.push(next);
                        i += 1;
                        continue;
                    }
                }
                if c == dialect.quote {
                    break;
                }
                values.push(c);
            }
        }
        let raw_end = if found_delimiter { i - 1 } else { i };
        if !saw_quote && line[start..raw_end] == dialect.null[..] {
            fields.push(None);
        } else {
            fields.push(Some(out_start..values.len()));
        }
        if !found_delimiter {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::copy::input::Source;
    use crate::commands::copy::options::Encoding;
    use crate::sink::CopySource;

    /// A client sending these chunks.
    struct Chunks(std::vec::IntoIter<Vec<u8>>);

    impl CopySource for Chunks {
        fn read(&mut self) -> Result<Option<Vec<u8>>> {
            Ok(self.0.next())
        }
    }

    fn dialect(csv: bool) -> Dialect {
        Dialect {
            csv,
            delimiter: if csv { b',' } else { b'\t' },
            quote: b'"',
            escape: b'"',
            null: if csv { Vec::new() } else { b"\\N".to_vec() },
        }
    }

    fn reader(chunks: Vec<Vec<u8>>, dialect: Dialect) -> TextReader<'static> {
        let source = Source::Client(Box::new(Chunks(chunks.into_iter())));
        TextReader::new(Input::new(source, Encoding::Utf8), dialect)
    }

    /// The lines of `data` sent in chunks of `chunk` bytes.
    fn lines_in(data: &[u8], chunk: usize, csv: bool) -> Result<Vec<String>> {
        let chunks = data.chunks(chunk).map(<[u8]>::to_vec).collect();
        let mut reader = reader(chunks, dialect(csv));
        let mut lines = Vec::new();
        while reader.read_line()? {
            lines.push(String::from_utf8(reader.line().to_vec()).unwrap());
        }
        Ok(lines)
    }

    /// The lines of `data`, checked to be the same however it is cut.
    fn lines(data: &[u8], csv: bool) -> Result<Vec<String>> {
        let whole = lines_in(data, data.len().max(1), csv);
        for chunk in 1..4 {
            assert_eq!(lines_in(data, chunk, csv), whole, "{data:?} in chunks of {chunk}");
        }
        whole
    }

    fn message(result: Result<Vec<String>>) -> String {
        result.unwrap_err().message
    }

    #[test]
    fn line_endings_follow_the_first_line() {
        assert_eq!(lines(b"a\nb\n", false).unwrap(), ["a", "b"]);
        assert_eq!(lines(b"a\r\nb\r\n", false).unwrap(), ["a", "b"]);
        assert_eq!(lines(b"a\rb\r", false).unwrap(), ["a", "b"]);
        assert_eq!(lines(b"a\nb", false).unwrap(), ["a", "b"], "last line without ending");
        assert_eq!(lines(b"\n\n", false).unwrap(), ["", ""], "empty lines count");
        assert_eq!(lines(b"", false).unwrap(), Vec::<String>::new());
        assert_eq!(message(lines(b"a\nb\r\n", false)), "literal carriage return found in data");
        assert_eq!(message(lines(b"a\r\nb\n", false)), "literal newline found in data");
        assert_eq!(message(lines(b"a\rb\n", false)), "literal newline found in data");
        assert_eq!(message(lines(b"a\nb\r\n", true)), "unquoted carriage return found in data");
    }

    #[test]
    fn backslash_protects_the_next_byte_in_text() {
        assert_eq!(lines(b"a\\\nb\nc\n", false).unwrap(), ["a\\\nb", "c"]);
        assert_eq!(lines(b"a\\", false).unwrap(), ["a\\"]);
        assert_eq!(lines(b"a\\\\.\n", false).unwrap(), ["a\\\\."], "an escaped backslash");
    }

    #[test]
    fn end_of_data_marker() {
        assert_eq!(lines(b"a\n\\.\nignored\n", false).unwrap(), ["a"]);
        assert_eq!(lines(b"a\nb\\.\n", false).unwrap(), ["a", "b"], "text: data before it counts");
        assert_eq!(lines(b"a\r\n\\.\r\n", false).unwrap(), ["a"]);
        assert_eq!(lines(b"\\.\r\n", false).unwrap(), Vec::<String>::new());
        assert_eq!(message(lines(b"a\n\\.x\n", false)), "end-of-copy marker corrupt");
        assert_eq!(message(lines(b"a\n\\.", false)), "end-of-copy marker corrupt");
        assert_eq!(
            message(lines(b"a\n\\.\r\n", false)),
            "end-of-copy marker does not match previous newline style"
        );
        assert_eq!(
            message(lines(b"a\r\n\\.\n", false)),
            "end-of-copy marker does not match previous newline style"
        );
        assert_eq!(lines(b"a\n\\.\nb\n", true).unwrap(), ["a"]);
        assert_eq!(lines(b"a,\\.\n", true).unwrap(), ["a,\\."], "CSV: only alone on a line");
        assert_eq!(lines(b"\\.x\n", true).unwrap(), ["\\.x"]);
        assert_eq!(lines(b"\\.", true).unwrap(), ["\\."]);
    }

    #[test]
    fn csv_quotes_protect_line_endings() {
        assert_eq!(lines(b"1,\"a\nb\"\n2,c\n", true).unwrap(), ["1,\"a\nb\"", "2,c"]);
        assert_eq!(lines(b"1,\"a\"\"\nb\"\n", true).unwrap(), ["1,\"a\"\"\nb\""]);
        assert_eq!(
            lines(b"\"x\n\\.\n\"\n", true).unwrap(),
            ["\"x\n\\.\n\""],
            "no marker in quotes"
        );
        assert_eq!(lines(b"1,\"open\n", true).unwrap(), ["1,\"open\n"], "runs to the end");
    }

    #[test]
    fn csv_escape_other_than_quote() {
        let mut d = dialect(true);
        d.quote = b'\'';
        d.escape = b'\\';
        let mut r = reader(vec![b"'it\\'s\n',x\ny\n".to_vec()], d);
        assert!(r.read_line().unwrap());
        assert_eq!(r.line(), b"'it\\'s\n',x");
        r.split().unwrap();
        assert_eq!(r.field(0).unwrap(), Some("it's\n"));
        assert_eq!(r.field(1).unwrap(), Some("x"));
        assert!(r.read_line().unwrap());
        assert_eq!(r.line(), b"y");
    }

    #[test]
    fn invalid_utf8_lines_are_refused() {
        assert_eq!(
            message(lines(b"ok\nbad\xff\n", false)),
            "invalid byte sequence for encoding \"UTF8\": 0xff"
        );
        assert_eq!(
            message(lines(b"nul\0\n", false)),
            "invalid byte sequence for encoding \"UTF8\": 0x00"
        );
        assert_eq!(lines("é\n".as_bytes(), false).unwrap(), ["é"], "split characters rejoin");
    }

    fn split(line: &[u8], csv: bool) -> Result<Vec<Option<String>>> {
        let (mut values, mut fields) = (Vec::new(), Vec::new());
        let d = dialect(csv);
        if csv {
            split_csv(line, &d, &mut values, &mut fields)?;
        } else {
            split_text(line, &d, &mut values, &mut fields)?;
        }
        Ok(fields
            .into_iter()
            .map(|f| f.map(|r| String::from_utf8_lossy(&values[r]).into_owned()))
            .collect())
    }

    fn some(values: &[&str]) -> Vec<Option<String>> {
        values.iter().map(|v| Some(v.to_string())).collect()
    }

    #[test]
    fn text_fields_and_escapes() {
        assert_eq!(split(b"1\thello\t", false).unwrap(), some(&["1", "hello", ""]));
        assert_eq!(split(b"", false).unwrap(), some(&[""]), "an empty line is one empty field");
        assert_eq!(
            split(b"a\\tb\\\\c\\nd\\b\\f\\r\\v", false).unwrap(),
            some(&["a\tb\\c\nd\x08\x0c\r\x0b"])
        );
        assert_eq!(split(b"\\101\\x41\\x4g\\x\\8\\z", false).unwrap(), some(&["AA\x04gx8z"]));
        assert_eq!(split(b"\\1011", false).unwrap(), some(&["A1"]), "three octal digits at most");
        assert_eq!(split(b"a\\\tb", false).unwrap(), some(&["a\tb"]), "escaped delimiter");
        assert_eq!(split(b"x\\", false).unwrap(), some(&["x"]), "a final backslash is dropped");
        assert_eq!(
            split(b"\\N\t\\\\N\tNULL", false).unwrap(),
            [None, Some("\\N".into()), Some("NULL".into())]
        );
        assert_eq!(
            split(b"a\\377", false).unwrap_err().message,
            "invalid byte sequence for encoding \"UTF8\": 0xff"
        );
        assert_eq!(split(b"\\303\\251", false).unwrap(), some(&["é"]), "escaped UTF8 bytes");
    }

    #[test]
    fn csv_fields() {
        assert_eq!(split(b"1,\"a,b\",c", true).unwrap(), some(&["1", "a,b", "c"]));
        assert_eq!(split(b"\"x\"\"y\"", true).unwrap(), some(&["x\"y"]));
        assert_eq!(split(b"1,,\"\"", true).unwrap(), [Some("1".into()), None, Some(String::new())]);
        assert_eq!(split(b"a\"b,c\"d, e ", true).unwrap(), some(&["ab,cd", " e "]));
        assert_eq!(split(b"\\N", true).unwrap(), some(&["\\N"]), "no backslash escapes in CSV");
        assert_eq!(split(b"1,\"open", true).unwrap_err().message, "unterminated CSV quoted field");
    }
}
