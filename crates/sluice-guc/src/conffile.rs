//! Reading `postgresql.conf` syntax (PostgreSQL's `guc-file.l` and `conffiles.c`).
//!
//! A configuration file is a list of `name = value` lines; the `=` is
//! optional, `#` starts a comment, a value is one token: a word, a number
//! with optional unit letters (`128MB`), or a single-quoted string in which
//! `''` and backslash escapes (`\n`, `\'`, octal `\123`) work. `include`,
//! `include_if_exists` and `include_dir` splice other files in, relative to
//! the including file's directory, at most ten levels deep.
//!
//! This module only turns files into [`ConfigItem`]s, in order, with their
//! file and line; deciding which items apply (later ones win, unknown names
//! are errors, postmaster settings wait for a restart) is
//! [`crate::GlobalConfig`]'s job. Syntax errors are collected, not thrown: a
//! bad line is reported with its file and line and the rest of the file is
//! still read, so one reload reports every problem (up to 100 per file).
//!
//! The tokenizer is a hand-written copy of the flex rules: longest match
//! wins, ties go to the rule listed first, and bytes 0x80-0xFF count as
//! letters (so UTF-8 names and words need no quotes).

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::GucError;

/// Include files may nest this deep (PostgreSQL's `CONF_FILE_MAX_DEPTH`).
const MAX_DEPTH: u32 = 10;

/// A file is abandoned after this many syntax errors.
const MAX_SYNTAX_ERRORS: u32 = 100;

/// One `name = value` line, or one error, of a configuration file
/// (PostgreSQL's `ConfigVariable`; a row of `pg_file_settings`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigItem {
    /// The setting name as written; None for an error row.
    pub name: Option<String>,
    /// The value with quotes and escapes removed; None for an error row.
    pub value: Option<String>,
    /// The file (absolute path).
    pub file: Arc<str>,
    /// The 1-based line.
    pub line: u32,
    /// Overridden by a later line for the same setting.
    pub ignore: bool,
    /// Whether the value took effect (set by the reload that used it).
    pub applied: bool,
    /// Why it did not, if it was an error.
    pub error: Option<String>,
}

/// The outcome of reading files: the items and the errors, both in order.
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    /// Settings and error rows.
    pub items: Vec<ConfigItem>,
    /// The errors, with PostgreSQL's messages.
    pub errors: Vec<GucError>,
    /// Give up on a file at its first syntax error (PostgreSQL does so when
    /// only looking, for `pg_file_settings`).
    pub first_error_only: bool,
}

impl Parsed {
    /// record_error -- keep an error and an error row for `pg_file_settings`.
    fn record_error(&mut self, error: GucError, row_text: String, file: &str, line: u32) {
        self.items.push(ConfigItem {
            name: None,
            value: None,
            file: Arc::from(file),
            line,
            ignore: true,
            applied: false,
            error: Some(row_text),
        });
        self.errors.push(error);
    }
}

/// Where an include directive was written (for errors and relative paths).
#[derive(Clone, Copy)]
pub(crate) struct Caller<'a> {
    /// The including file.
    pub file: &'a Path,
    /// The line of the directive.
    pub line: u32,
}

/// parse_file -- read `path` (relative to `caller`'s directory, else to
/// `base_dir`) and everything it includes, appending to `out`. A missing file
/// is an error if `strict`, silently skipped otherwise. Returns false if
/// anything went wrong (the errors are in `out`).
pub(crate) fn parse_file(
    path: &str,
    strict: bool,
    caller: Option<Caller>,
    base_dir: &Path,
    depth: u32,
    out: &mut Parsed,
) -> bool {
    let (calling_file, calling_line) = caller_location(caller);
    if depth > MAX_DEPTH {
        let error = GucError::NestingTooDeep { file: path.to_string() };
        let text = error.to_string();
        out.record_error(error, text, &calling_file, calling_line);
        return false;
    }
    if is_blank(path) {
        let error = GucError::EmptyFileName { name: path.to_string(), directory: false };
        out.record_error(
            error,
            "empty configuration file name".into(),
            &calling_file,
            calling_line,
        );
        return false;
    }
    let abs = absolute_location(path, caller, base_dir);
    if caller.is_some_and(|c| c.file == abs) {
        let error = GucError::Recursion { file: calling_file.clone() };
        out.record_error(error, "configuration file recursion".into(), &calling_file, calling_line);
        return false;
    }
    let abs_text = abs.to_string_lossy().into_owned();
    match fs::read(&abs) {
        Ok(bytes) => parse_text(&bytes, &abs_text, base_dir, depth, out),
        Err(e) if strict => {
            let row = format!("could not open file \"{abs_text}\"");
            let error = GucError::File {
                action: "could not open configuration file",
                path: abs_text,
                source: e,
            };
            out.record_error(error, row, &calling_file, calling_line);
            false
        }
        Err(_) => true,
    }
}

/// Whether a file name is empty or all spaces (which would name the directory).
fn is_blank(name: &str) -> bool {
    name.trim_matches([' ', '\t', '\r', '\n']).is_empty()
}

/// The including file and line as PostgreSQL records them for errors.
fn caller_location(caller: Option<Caller>) -> (String, u32) {
    match caller {
        Some(c) => (c.file.to_string_lossy().into_owned(), c.line),
        None => (String::new(), 0),
    }
}

/// absolute_location -- PostgreSQL's `AbsoluteConfigLocation`: an absolute
/// path as is, a relative one from the including file's directory, or from
/// `base_dir` (the data directory) at the top level.
fn absolute_location(path: &str, caller: Option<Caller>, base_dir: &Path) -> PathBuf {
    let path = Path::new(path);
    if path.is_absolute() {
        return path.to_path_buf();
    }
    match caller.and_then(|c| c.file.parent()) {
        Some(dir) => dir.join(path),
        None => base_dir.join(path),
    }
}

/// parse_directory -- `include_dir`: every `*.conf` file (not starting with a
/// dot) in `dir`, in byte order of their names.
fn parse_directory(
    dir: &str,
    caller: Caller,
    base_dir: &Path,
    depth: u32,
    out: &mut Parsed,
) -> bool {
    let (calling_file, calling_line) = caller_location(Some(caller));
    if is_blank(dir) {
        let error = GucError::EmptyFileName { name: dir.to_string(), directory: true };
        out.record_error(
            error,
            "empty configuration directory name".into(),
            &calling_file,
            calling_line,
        );
        return false;
    }
    let abs = absolute_location(dir, Some(caller), base_dir);
    let abs_text = abs.to_string_lossy().into_owned();
    let entries = match fs::read_dir(&abs) {
        Ok(entries) => entries,
        Err(e) => {
            let row = format!("could not open directory \"{abs_text}\"");
            let error = GucError::File {
                action: "could not open configuration directory",
                path: abs_text,
                source: e,
            };
            out.record_error(error, row, &calling_file, calling_line);
            return false;
        }
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            name.ends_with(".conf") && !name.starts_with('.') && p.is_file()
        })
        .collect();
    files.sort();
    let mut ok = true;
    for file in files {
        ok &= parse_file(&file.to_string_lossy(), true, Some(caller), base_dir, depth, out);
    }
    ok
}

/// parse_text -- PostgreSQL's `ParseConfigFp`: the lines of one file.
fn parse_text(bytes: &[u8], file: &str, base_dir: &Path, depth: u32, out: &mut Parsed) -> bool {
    let mut lexer = Lexer { bytes, pos: 0, line: 1 };
    let mut ok = true;
    let mut syntax_errors = 0;
    loop {
        let token = lexer.next();
        match token.kind {
            Kind::Eof => break,
            Kind::Eol => continue,
            _ => {}
        }
        match parse_line(token, &mut lexer) {
            Ok((name, value)) => {
                // The item's line: the directive's, now that its end was read.
                let line = lexer.line - 1;
                let caller = Caller { file: Path::new(file), line };
                ok &= include_or_item(name, value, caller, base_dir, depth, out);
            }
            Err(bad) => {
                ok = false;
                syntax_errors += 1;
                let (line, near) = match bad.kind {
                    Kind::Eol | Kind::Eof => (lexer.line - 1, None),
                    _ => (lexer.line, Some(bad.text(bytes))),
                };
                let error = GucError::Syntax { file: file.to_string(), line, near };
                out.record_error(error, "syntax error".into(), file, lexer.line);
                if out.first_error_only {
                    break;
                }
                if syntax_errors >= MAX_SYNTAX_ERRORS {
                    out.errors.push(GucError::TooManySyntaxErrors { file: file.to_string() });
                    break;
                }
                if !lexer.skip_line(bad) {
                    break;
                }
            }
        }
    }
    ok
}

/// parse_line -- after the first token of a line: `name [=] value` and the
/// end of the line. Returns the name and the unquoted value, or the token
/// where the line went wrong.
fn parse_line(first: Token, lexer: &mut Lexer) -> Result<(String, String), Token> {
    if !matches!(first.kind, Kind::Id | Kind::QualifiedId) {
        return Err(first);
    }
    let name = first.text(lexer.bytes);
    let mut token = lexer.next();
    if token.kind == Kind::Equals {
        token = lexer.next();
    }
    let value = match token.kind {
        Kind::String => deescape(&lexer.bytes[token.start..token.end]),
        Kind::Id | Kind::Integer | Kind::Real | Kind::UnquotedString => token.text(lexer.bytes),
        _ => return Err(token),
    };
    let end = lexer.next();
    match end.kind {
        Kind::Eol => {}
        // The last line may lack its newline: count it as if it had one.
        Kind::Eof => lexer.line += 1,
        _ => return Err(end),
    }
    Ok((name, value))
}

/// include_or_item -- run an include directive, or record a setting.
fn include_or_item(
    name: String,
    value: String,
    caller: Caller,
    base_dir: &Path,
    depth: u32,
    out: &mut Parsed,
) -> bool {
    if name.eq_ignore_ascii_case("include_dir") {
        parse_directory(&value, caller, base_dir, depth + 1, out)
    } else if name.eq_ignore_ascii_case("include_if_exists") {
        parse_file(&value, false, Some(caller), base_dir, depth + 1, out)
    } else if name.eq_ignore_ascii_case("include") {
        parse_file(&value, true, Some(caller), base_dir, depth + 1, out)
    } else {
        out.items.push(ConfigItem {
            name: Some(name),
            value: Some(value),
            file: Arc::from(caller.file.to_string_lossy().as_ref()),
            line: caller.line,
            ignore: false,
            applied: false,
            error: None,
        });
        true
    }
}

/// deescape -- PostgreSQL's `DeescapeQuotedString`: strip the quotes, turn
/// `''` into `'` and process backslash escapes (`\b \f \n \r \t`, up to three
/// octal digits, any other character stands for itself).
fn deescape(quoted: &[u8]) -> String {
    let body = &quoted[1..quoted.len() - 1];
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        match body[i] {
            b'\\' if i + 1 < body.len() => {
                i += 1;
                let (byte, used) = match body[i] {
                    b'b' => (0x08, 1),
                    b'f' => (0x0c, 1),
                    b'n' => (b'\n', 1),
                    b'r' => (b'\r', 1),
                    b't' => (b'\t', 1),
                    b'0'..=b'7' => octal(&body[i..]),
                    other => (other, 1),
                };
                out.push(byte);
                i += used;
            }
            b'\'' if body.get(i + 1) == Some(&b'\'') => {
                out.push(b'\'');
                i += 2;
            }
            byte => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Up to three octal digits: the byte they make and how many were used.
fn octal(digits: &[u8]) -> (u8, usize) {
    let len = digits.iter().take(3).take_while(|d| (b'0'..=b'7').contains(d)).count();
    let value = digits[..len].iter().fold(0u32, |acc, d| (acc << 3) + u32::from(d - b'0'));
    ((value & 0xff) as u8, len)
}

/// The token classes of `guc-file.l`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A word: a setting name or a bare value.
    Id,
    /// `word.word`: a custom setting name.
    QualifiedId,
    /// A single-quoted string.
    String,
    /// A bare value with `-._:/` in it.
    UnquotedString,
    /// A number with optional unit letters.
    Integer,
    /// A number with a decimal point.
    Real,
    /// `=`.
    Equals,
    /// End of a line.
    Eol,
    /// End of the file.
    Eof,
    /// Any other single byte.
    Error,
}

/// A token: its class and where it is.
#[derive(Clone, Copy, Debug)]
struct Token {
    /// The class.
    kind: Kind,
    /// First byte.
    start: usize,
    /// One past the last byte.
    end: usize,
}

impl Token {
    /// The token's text.
    fn text(&self, bytes: &[u8]) -> String {
        String::from_utf8_lossy(&bytes[self.start..self.end]).into_owned()
    }
}

/// The tokenizer state: position and current line number.
struct Lexer<'a> {
    /// The whole file.
    bytes: &'a [u8],
    /// Next byte to read.
    pos: usize,
    /// Current line (incremented when a newline token is returned).
    line: u32,
}

/// `[A-Za-z_\200-\377]`.
fn is_letter(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b >= 0x80
}

/// `[A-Za-z_0-9\200-\377]`.
fn is_letter_or_digit(b: u8) -> bool {
    is_letter(b) || b.is_ascii_digit()
}

impl Lexer<'_> {
    /// next -- the next token, skipping spaces and comments.
    fn next(&mut self) -> Token {
        while let Some(&b) = self.bytes.get(self.pos) {
            match b {
                b' ' | b'\t' | b'\r' => self.pos += 1,
                b'#' => {
                    while self.bytes.get(self.pos).is_some_and(|&c| c != b'\n') {
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
        let start = self.pos;
        let Some(&b) = self.bytes.get(start) else {
            return Token { kind: Kind::Eof, start, end: start };
        };
        let (kind, len) = match b {
            b'\n' => {
                self.line += 1;
                (Kind::Eol, 1)
            }
            b'=' => (Kind::Equals, 1),
            b'\'' => self.string_len().map_or((Kind::Error, 1), |len| (Kind::String, len)),
            _ if is_letter(b) => self.word(),
            _ => self.number().unwrap_or((Kind::Error, 1)),
        };
        self.pos = start + len;
        Token { kind, start, end: self.pos }
    }

    /// skip_line -- after an error at `bad`: skip to the end of the line;
    /// false if the file ended.
    fn skip_line(&mut self, bad: Token) -> bool {
        let mut token = bad;
        while !matches!(token.kind, Kind::Eol | Kind::Eof) {
            token = self.next();
        }
        token.kind == Kind::Eol
    }

    /// Counts bytes from the current position while `pred` holds.
    fn count_from(&self, at: usize, pred: impl Fn(u8) -> bool) -> usize {
        self.bytes[at.min(self.bytes.len())..].iter().take_while(|&&b| pred(b)).count()
    }

    /// word -- ID, QUALIFIED_ID or UNQUOTED_STRING, whichever is longest
    /// (ties go to the earlier rule).
    fn word(&self) -> (Kind, usize) {
        let start = self.pos;
        let id = 1 + self.count_from(start + 1, is_letter_or_digit);
        let unquoted =
            1 + self.count_from(start + 1, |b| is_letter_or_digit(b) || b"-._:/".contains(&b));
        let qualified = (self.bytes.get(start + id) == Some(&b'.')
            && self.bytes.get(start + id + 1).is_some_and(|&b| is_letter(b)))
        .then(|| id + 2 + self.count_from(start + id + 2, is_letter_or_digit));
        if unquoted == id {
            (Kind::Id, id)
        } else if qualified == Some(unquoted) {
            (Kind::QualifiedId, unquoted)
        } else {
            (Kind::UnquotedString, unquoted)
        }
    }

    /// number -- INTEGER (`[+-]digits|0xhex` then letters) or REAL
    /// (`[+-]digits.digits[e[+-]digits]`), the longer; None if neither.
    fn number(&self) -> Option<(Kind, usize)> {
        let start = self.pos;
        let sign = usize::from(matches!(self.bytes[start], b'+' | b'-'));
        let at = start + sign;
        let decimal = self.count_from(at, |b| b.is_ascii_digit());
        let hex = if self.bytes.get(at) == Some(&b'0') && self.bytes.get(at + 1) == Some(&b'x') {
            let digits = self.count_from(at + 2, |b| b.is_ascii_hexdigit());
            if digits > 0 {
                2 + digits
            } else {
                0
            }
        } else {
            0
        };
        let integer = [decimal, hex]
            .into_iter()
            .filter(|&n| n > 0)
            .map(|n| sign + n + self.count_from(at + n, |b| b.is_ascii_alphabetic()))
            .max();
        let real = (self.bytes.get(at + decimal) == Some(&b'.')).then(|| {
            let frac = self.count_from(at + decimal + 1, |b| b.is_ascii_digit());
            let mantissa = sign + decimal + 1 + frac;
            mantissa + self.exponent_len(start + mantissa)
        });
        match (integer, real) {
            (Some(i), Some(r)) if r > i => Some((Kind::Real, r)),
            (Some(i), _) => Some((Kind::Integer, i)),
            (None, Some(r)) => Some((Kind::Real, r)),
            (None, None) => None,
        }
    }

    /// `[Ee][+-]?digits` at `at`: its length, or 0.
    fn exponent_len(&self, at: usize) -> usize {
        if !matches!(self.bytes.get(at), Some(b'e' | b'E')) {
            return 0;
        }
        let sign = usize::from(matches!(self.bytes.get(at + 1), Some(b'+' | b'-')));
        let digits = self.count_from(at + 1 + sign, |b| b.is_ascii_digit());
        if digits == 0 {
            0
        } else {
            1 + sign + digits
        }
    }

    /// string_len -- `'([^'\\\n]|\\.|'')*'` at the current position: its
    /// length, or None if the string is not closed on this line.
    fn string_len(&self) -> Option<usize> {
        let mut i = self.pos + 1;
        loop {
            match *self.bytes.get(i)? {
                b'\'' if self.bytes.get(i + 1) == Some(&b'\'') => i += 2,
                b'\'' => return Some(i + 1 - self.pos),
                b'\\' if self.bytes.get(i + 1).is_some_and(|&b| b != b'\n') => i += 2,
                b'\n' | b'\\' => return None,
                _ => i += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests;
