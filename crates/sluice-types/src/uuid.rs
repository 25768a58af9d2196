//! `uuid` input and output.
//!
//! Input is 32 hex digits, optionally in braces, with an optional hyphen after
//! any group of four digits (PostgreSQL's `string_to_uuid`); output is the
//! canonical lowercase 8-4-4-4-12 form.

use crate::error::{Result, TypeError};

/// Parse uuid text.
pub fn parse(input: &str) -> Result<[u8; 16]> {
    parse_inner(input.as_bytes()).ok_or_else(|| TypeError::invalid_syntax("uuid", input))
}

/// The parser proper; `None` on any syntax error.
fn parse_inner(s: &[u8]) -> Option<[u8; 16]> {
    let (mut s, braces) = match s.strip_prefix(b"{") {
        Some(rest) => (rest, true),
        None => (s, false),
    };
    let mut out = [0u8; 16];
    for (i, byte) in out.iter_mut().enumerate() {
        let hi = hex_value(*s.first()?)?;
        let lo = hex_value(*s.get(1)?)?;
        *byte = hi << 4 | lo;
        s = &s[2..];
        if i % 2 == 1 && i < 15 && s.first() == Some(&b'-') {
            s = &s[1..];
        }
    }
    if braces {
        s = s.strip_prefix(b"}")?;
    }
    s.is_empty().then_some(out)
}

/// The value of one hex digit.
pub(crate) fn hex_value(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

/// Canonical text: `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`.
pub fn output(u: &[u8; 16]) -> String {
    let mut s = String::with_capacity(36);
    for (i, b) in u.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            s.push('-');
        }
        s.push_str(&format!("{b:02x}"));
    }
    s
}
