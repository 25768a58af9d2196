//! `bytea` input and output.
//!
//! Output is PostgreSQL's default `bytea_output = hex`: `\x` followed by two
//! lowercase hex digits per byte. Input accepts the hex format (whitespace
//! allowed between digit pairs) and the traditional escape format, where a
//! backslash introduces either another backslash or three octal digits.

use crate::error::{ErrorKind, Result, TypeError};
use crate::scan::is_space;
use crate::uuid::hex_value;

/// Parse bytea text in hex or escape format.
pub fn parse(input: &str) -> Result<Vec<u8>> {
    match input.strip_prefix("\\x").or_else(|| input.strip_prefix("\\X")) {
        Some(hex) => parse_hex(hex),
        None => parse_escape(input),
    }
}

/// Decode hex pairs, skipping whitespace between them.
fn parse_hex(s: &str) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() / 2);
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c.is_ascii() && is_space(c as u8) {
            continue;
        }
        let hi = hex_digit(c)?;
        let lo = match chars.next() {
            Some(c2) => hex_digit(c2)?,
            None => {
                return Err(TypeError::invalid_parameter(
                    "invalid hexadecimal data: odd number of digits",
                ))
            }
        };
        out.push(hi << 4 | lo);
    }
    Ok(out)
}

/// One hex digit, or PostgreSQL's `invalid hexadecimal digit` error.
fn hex_digit(c: char) -> Result<u8> {
    if c.is_ascii() {
        if let Some(v) = hex_value(c as u8) {
            return Ok(v);
        }
    }
    Err(TypeError::invalid_parameter(format!("invalid hexadecimal digit: \"{c}\"")))
}

/// Decode the escape format: `\\` and `\ooo` (first digit 0-3).
fn parse_escape(s: &str) -> Result<Vec<u8>> {
    let bad = || {
        TypeError::new(ErrorKind::InvalidTextRepresentation, "invalid input syntax for type bytea")
    };
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
        } else if b.get(i + 1) == Some(&b'\\') {
            out.push(b'\\');
            i += 2;
        } else {
            let oct = |k: usize, max: u8| b.get(i + k).filter(|&&c| (b'0'..=max).contains(&c));
            match (oct(1, b'3'), oct(2, b'7'), oct(3, b'7')) {
                (Some(a), Some(m), Some(l)) => {
                    out.push((a - b'0') << 6 | (m - b'0') << 3 | (l - b'0'))
                }
                _ => return Err(bad()),
            }
            i += 4;
        }
    }
    Ok(out)
}

/// Hex output: `\x0102ff`.
pub fn output(v: &[u8]) -> String {
    let mut s = String::with_capacity(2 + v.len() * 2);
    s.push_str("\\x");
    for b in v {
        s.push_str(&format!("{b:02x}"));
    }
    s
}
