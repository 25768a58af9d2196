//! JSON text parsing with PostgreSQL's error messages.
//!
//! A hand-written lexer and recursive-descent parser rather than a general
//! JSON library, because the errors are part of the interface: PostgreSQL
//! reports *which* token was wrong (`Expected ":", but found "1".`) and shows
//! the input around it in a CONTEXT line (`JSON data, line 1: {"a" 1...`),
//! and numbers must become `numeric` values digit for digit.
//!
//! Nesting is limited to [`MAX_DEPTH`] levels; deeper input fails with
//! PostgreSQL's `stack depth limit exceeded` instead of exhausting the stack
//! (every later recursive walk over a value relies on this bound).

use super::JsonbValue;
use crate::error::{ErrorKind, Result, TypeError};
use crate::numeric;

/// Deepest nesting of arrays and objects accepted.
pub const MAX_DEPTH: usize = 1000;

/// Lexical tokens.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    /// `{`, `}`, `[`, `]`, `,`, `:`.
    Punct(u8),
    /// A string (already unescaped).
    Str(String),
    /// A number's text.
    Num(String),
    /// `true`, `false` or `null`.
    Word(&'static str),
    /// End of input.
    End,
}

/// What went wrong, PostgreSQL's `JsonParseErrorType`.
enum Fault {
    /// Unexpected token where `expected` was wanted (DETAIL template).
    Expected(&'static str),
    /// An invalid token.
    InvalidToken,
    /// End of input inside a value.
    EndedUnexpectedly,
    /// A control character inside a string.
    EscapingRequired(u8),
    /// A bad backslash escape.
    EscapingInvalid(String),
    /// `\u` without four hex digits.
    UnicodeFormat,
    /// `\u0000`.
    CodePointZero,
    /// A high surrogate after a high surrogate.
    HighSurrogate,
    /// A low surrogate without a high one (or a high one without a low one).
    LowSurrogate,
    /// Nesting too deep.
    TooDeep,
}

/// The lexer/parser state.
struct Parser<'a> {
    src: &'a str,
    pos: usize,
    token_start: usize,
    token_end: usize,
    line: usize,
    line_start: usize,
    /// Checking `json` text rather than building `jsonb`: the value is
    /// thrown away, so `\u0000` and numbers beyond `numeric` are fine, as
    /// in PostgreSQL's `json_in`, which only runs the lexer and grammar.
    syntax_only: bool,
}

/// Parse JSON text into a jsonb value.
pub fn parse(input: &str) -> Result<JsonbValue> {
    run(input, false)
}

/// validate -- checks that `input` is JSON text (the `json` type's input
/// function), with the same errors as [`parse`].
pub fn validate(input: &str) -> Result<()> {
    run(input, true).map(drop)
}

/// Parse `input`, building the value unless `syntax_only`.
fn run(input: &str, syntax_only: bool) -> Result<JsonbValue> {
    let mut p = Parser {
        src: input,
        pos: 0,
        token_start: 0,
        token_end: 0,
        line: 1,
        line_start: 0,
        syntax_only,
    };
    let result = p.value(0).and_then(|v| match p.next()? {
        Token::End => Ok(v),
        _ => Err(Fault::Expected("end of input")),
    });
    result.map_err(|fault| p.error(fault))
}

impl Parser<'_> {
    /// Read the next token.
    fn next(&mut self) -> std::result::Result<Token, Fault> {
        let b = self.src.as_bytes();
        while self.pos < b.len() && matches!(b[self.pos], b' ' | b'\t' | b'\n' | b'\r') {
            if b[self.pos] == b'\n' {
                self.line += 1;
                self.line_start = self.pos + 1;
            }
            self.pos += 1;
        }
        self.token_start = self.pos;
        let Some(&c) = b.get(self.pos) else {
            self.token_end = self.pos;
            return Ok(Token::End);
        };
        match c {
            b'{' | b'}' | b'[' | b']' | b',' | b':' => {
                self.pos += 1;
                self.token_end = self.pos;
                Ok(Token::Punct(c))
            }
            b'"' => self.string(),
            b'-' | b'0'..=b'9' => self.number(),
            _ => self.word(),
        }
    }

    /// End of the run of "alphanumeric" bytes (letters, digits, `_`, non-ASCII).
    fn alnum_end(&self, from: usize) -> usize {
        let b = self.src.as_bytes();
        let mut i = from;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] >= 0x80) {
            i += 1;
        }
        i
    }

    /// `true`, `false`, `null`, or an invalid token.
    fn word(&mut self) -> std::result::Result<Token, Fault> {
        let end = self.alnum_end(self.pos);
        if end == self.pos {
            // A single unexpected character is the whole token.
            let len = self.src[self.pos..].chars().next().map_or(1, char::len_utf8);
            self.token_end = self.pos + len;
            return Err(Fault::InvalidToken);
        }
        self.token_end = end;
        let word = match &self.src[self.pos..end] {
            "true" => "true",
            "false" => "false",
            "null" => "null",
            _ => return Err(Fault::InvalidToken),
        };
        self.pos = end;
        Ok(Token::Word(word))
    }

    /// A number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` not followed
    /// by more alphanumerics.
    fn number(&mut self) -> std::result::Result<Token, Fault> {
        let b = self.src.as_bytes();
        let start = self.pos;
        let mut i = start + usize::from(b[start] == b'-');
        let digits = |i: &mut usize| {
            let s = *i;
            while *i < b.len() && b[*i].is_ascii_digit() {
                *i += 1;
            }
            *i - s
        };
        let mut ok = match b.get(i) {
            Some(b'0') => {
                i += 1;
                true
            }
            Some(b'1'..=b'9') => digits(&mut i) > 0,
            _ => false,
        };
        if ok && b.get(i) == Some(&b'.') {
            i += 1;
            ok = digits(&mut i) > 0;
        }
        if ok && matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            ok = digits(&mut i) > 0;
        }
        let end = self.alnum_end(i);
        self.token_end = end;
        if !ok || end != i {
            return Err(Fault::InvalidToken);
        }
        self.pos = end;
        Ok(Token::Num(self.src[start..end].to_string()))
    }

    /// A string token, unescaped.
    fn string(&mut self) -> std::result::Result<Token, Fault> {
        let b = self.src.as_bytes();
        let mut out = String::new();
        let mut i = self.pos + 1;
        let mut high: Option<u32> = None;
        loop {
            let Some(&c) = b.get(i) else {
                self.token_end = i;
                return Err(Fault::InvalidToken);
            };
            match c {
                b'"' => {
                    self.token_end = i + 1;
                    if high.is_some() {
                        return Err(Fault::LowSurrogate);
                    }
                    self.pos = i + 1;
                    return Ok(Token::Str(out));
                }
                0..=0x1f => {
                    self.token_end = i;
                    return Err(Fault::EscapingRequired(c));
                }
                b'\\' => i = self.escape(i, &mut out, &mut high)?,
                _ => {
                    if high.is_some() {
                        self.token_end = i;
                        return Err(Fault::LowSurrogate);
                    }
                    let ch = self.src[i..].chars().next().unwrap_or('\u{fffd}');
                    out.push(ch);
                    i += ch.len_utf8();
                }
            }
        }
    }

    /// Decode the escape at `i` (a backslash); returns the index after it.
    fn escape(
        &mut self,
        i: usize,
        out: &mut String,
        high: &mut Option<u32>,
    ) -> std::result::Result<usize, Fault> {
        let b = self.src.as_bytes();
        let Some(&e) = b.get(i + 1) else {
            self.token_end = i + 1;
            return Err(Fault::InvalidToken);
        };
        if e != b'u' && high.is_some() {
            self.token_end = i + 2;
            return Err(Fault::LowSurrogate);
        }
        let simple = match e {
            b'"' => Some('"'),
            b'\\' => Some('\\'),
            b'/' => Some('/'),
            b'b' => Some('\u{8}'),
            b'f' => Some('\u{c}'),
            b'n' => Some('\n'),
            b'r' => Some('\r'),
            b't' => Some('\t'),
            b'u' => None,
            _ => {
                let ch = self.src[i + 1..].chars().next().unwrap_or('?');
                self.token_end = i + 1 + ch.len_utf8();
                return Err(Fault::EscapingInvalid(ch.to_string()));
            }
        };
        if let Some(ch) = simple {
            out.push(ch);
            return Ok(i + 2);
        }
        let mut code = 0u32;
        for k in 0..4 {
            let at = i + 2 + k;
            match b.get(at).and_then(|&h| (h as char).to_digit(16)) {
                Some(d) => code = code * 16 + d,
                None => {
                    let len =
                        self.src.get(at..).and_then(|s| s.chars().next()).map_or(0, char::len_utf8);
                    self.token_end = at + len;
                    return Err(if at >= b.len() {
                        Fault::InvalidToken
                    } else {
                        Fault::UnicodeFormat
                    });
                }
            }
        }
        self.token_end = i + 6;
        self.unicode(code, out, high)?;
        Ok(i + 6)
    }

    /// Apply one `\uXXXX` code unit, pairing surrogates.
    fn unicode(
        &mut self,
        code: u32,
        out: &mut String,
        high: &mut Option<u32>,
    ) -> std::result::Result<(), Fault> {
        match code {
            0xD800..=0xDBFF => {
                if high.is_some() {
                    return Err(Fault::HighSurrogate);
                }
                *high = Some(code);
            }
            0xDC00..=0xDFFF => {
                let h = high.take().ok_or(Fault::LowSurrogate)?;
                let cp = 0x10000 + ((h - 0xD800) << 10) + (code - 0xDC00);
                out.push(char::from_u32(cp).unwrap_or('\u{fffd}'));
            }
            0 if !self.syntax_only => return Err(Fault::CodePointZero),
            _ => {
                if high.is_some() {
                    return Err(Fault::LowSurrogate);
                }
                out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
            }
        }
        Ok(())
    }

    /// Parse one value whose first token has not been read yet.
    fn value(&mut self, depth: usize) -> std::result::Result<JsonbValue, Fault> {
        let tok = self.next()?;
        self.value_from(tok, depth)
    }

    /// Parse one value starting with `tok`.
    fn value_from(&mut self, tok: Token, depth: usize) -> std::result::Result<JsonbValue, Fault> {
        match tok {
            Token::Punct(b'{') => self.object(depth + 1),
            Token::Punct(b'[') => self.array(depth + 1),
            Token::Str(s) => Ok(JsonbValue::String(s)),
            Token::Num(_) if self.syntax_only => Ok(JsonbValue::Null),
            Token::Num(n) => {
                numeric::parse(&n, -1).map(JsonbValue::Number).map_err(|_| Fault::InvalidToken)
            }
            Token::Word("true") => Ok(JsonbValue::Bool(true)),
            Token::Word("false") => Ok(JsonbValue::Bool(false)),
            Token::Word(_) => Ok(JsonbValue::Null),
            Token::End => Err(Fault::EndedUnexpectedly),
            Token::Punct(_) => Err(Fault::Expected("JSON value")),
        }
    }

    /// The rest of an array after `[`.
    fn array(&mut self, depth: usize) -> std::result::Result<JsonbValue, Fault> {
        if depth > MAX_DEPTH {
            return Err(Fault::TooDeep);
        }
        let mut items = Vec::new();
        let mut tok = self.next()?;
        if tok == Token::Punct(b']') {
            return Ok(JsonbValue::Array(items));
        }
        let mut first = true;
        loop {
            if matches!(tok, Token::Punct(b']' | b'}' | b',' | b':')) {
                // After a comma PostgreSQL wants a value; first, a value or "]".
                let what = if first { "array element or \"]\"" } else { "JSON value" };
                return Err(Fault::Expected(what));
            }
            items.push(self.value_from(tok, depth)?);
            match self.next()? {
                Token::Punct(b',') => tok = self.next()?,
                Token::Punct(b']') => return Ok(JsonbValue::Array(items)),
                Token::End => return Err(Fault::EndedUnexpectedly),
                _ => return Err(Fault::Expected("\",\" or \"]\"")),
            }
            first = false;
        }
    }

    /// The rest of an object after `{`.
    fn object(&mut self, depth: usize) -> std::result::Result<JsonbValue, Fault> {
        if depth > MAX_DEPTH {
            return Err(Fault::TooDeep);
        }
        let mut pairs = Vec::new();
        let mut tok = self.next()?;
        if tok == Token::Punct(b'}') {
            return Ok(JsonbValue::object(pairs));
        }
        let mut first = true;
        loop {
            let key = match tok {
                Token::Str(k) => k,
                Token::End => return Err(Fault::EndedUnexpectedly),
                _ if first => return Err(Fault::Expected("string or \"}\"")),
                _ => return Err(Fault::Expected("string")),
            };
            match self.next()? {
                Token::Punct(b':') => {}
                Token::End => return Err(Fault::EndedUnexpectedly),
                _ => return Err(Fault::Expected("\":\"")),
            }
            let value = self.value(depth)?;
            pairs.push((key, value));
            match self.next()? {
                Token::Punct(b',') => tok = self.next()?,
                Token::Punct(b'}') => return Ok(JsonbValue::object(pairs)),
                Token::End => return Err(Fault::EndedUnexpectedly),
                _ => return Err(Fault::Expected("\",\" or \"}\"")),
            }
            first = false;
        }
    }

    /// Turn a fault into PostgreSQL's error with DETAIL and CONTEXT.
    fn error(&self, fault: Fault) -> TypeError {
        let token = self.src.get(self.token_start..self.token_end).unwrap_or("");
        let syntax = |detail: String| {
            TypeError::new(
                ErrorKind::InvalidTextRepresentation,
                "invalid input syntax for type json",
            )
            .with_detail(detail)
        };
        let err = match fault {
            Fault::Expected(what) => syntax(format!("Expected {what}, but found \"{token}\".")),
            Fault::InvalidToken => syntax(format!("Token \"{token}\" is invalid.")),
            Fault::EndedUnexpectedly => syntax("The input string ended unexpectedly.".into()),
            Fault::EscapingRequired(c) => syntax(format!("Character with value 0x{c:02x} must be escaped.")),
            Fault::EscapingInvalid(ch) => syntax(format!("Escape sequence \"\\{ch}\" is invalid.")),
            Fault::UnicodeFormat => syntax("\"\\u\" must be followed by four hexadecimal digits.".into()),
            Fault::HighSurrogate => syntax("Unicode high surrogate must not follow a high surrogate.".into()),
            Fault::LowSurrogate => syntax("Unicode low surrogate must follow a high surrogate.".into()),
            Fault::CodePointZero => {
                TypeError::new(ErrorKind::UntranslatableCharacter, "unsupported Unicode escape sequence")
                    .with_detail("\\u0000 cannot be converted to text.")
            }
            Fault::TooDeep => {
                return TypeError::new(ErrorKind::StatementTooComplex, "stack depth limit exceeded").with_hint(
                    "Increase the configuration parameter \"max_stack_depth\" (currently 2048kB), after ensuring the platform's stack depth limit is adequate.",
                )
            }
        };
        let at_end = fault_is_end(&err);
        err.with_context(self.context(at_end))
    }

    /// PostgreSQL's `report_json_context`: the current line up to the end of
    /// the offending token, at most ~50 bytes, with `...` where cut.
    fn context(&self, at_end: bool) -> String {
        let end = self.token_end.min(self.src.len());
        let mut start = self.line_start.min(end);
        while end - start >= 50 {
            start += self.src[start..].chars().next().map_or(1, char::len_utf8);
        }
        if start - self.line_start <= 3 {
            start = self.line_start;
        }
        let prefix = if start > self.line_start { "..." } else { "" };
        let rest = &self.src.as_bytes()[end..];
        let suffix = if !at_end && !rest.is_empty() && rest[0] != b'\n' && rest[0] != b'\r' {
            "..."
        } else {
            ""
        };
        format!("JSON data, line {}: {prefix}{}{suffix}", self.line, &self.src[start..end])
    }
}

/// Whether an error was about the end of input (no "..." suffix then).
fn fault_is_end(err: &TypeError) -> bool {
    err.detail.as_deref() == Some("The input string ended unexpectedly.")
}
