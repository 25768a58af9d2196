//! The string types: `text`, `varchar(n)`, `char(n)` (`bpchar`) and `name`.
//!
//! All four hold UTF-8 text (sluice's only server encoding) and share
//! [`crate::Datum::Text`]; what differs is how a typmod constrains them:
//! * `varchar(n)` rejects values longer than `n` characters, unless the excess
//!   is only spaces, which are silently dropped; an *explicit* cast truncates;
//! * `char(n)` does the same and then pads with spaces to exactly `n`
//!   characters; its comparisons, `length()` and its cast to `text` ignore
//!   trailing spaces;
//! * `name` truncates to 63 bytes (NAMEDATALEN - 1) at a character boundary.
//!
//! `"char"` is not a string type in PostgreSQL (its category is `Z`) but
//! holds text too: one byte, kept in [`crate::Datum::Text`] as its output
//! form — the character itself, `""` for the zero byte, `\ooo` for a byte
//! with the high bit set — so catalog code reads `relkind` as the string it
//! always was. [`char_in`] makes that form, [`char_byte`] and
//! [`char_from_byte`] convert it to and from the stored byte. Comparing the
//! output forms orders ASCII bytes as PostgreSQL does; a high-bit byte
//! sorts by its `\ooo` spelling (a difference only non-ASCII `"char"`
//! values would show).
//!
//! Lengths here are in characters, as PostgreSQL counts them for UTF-8.

use std::cmp::Ordering;

use crate::error::{ErrorKind, Result, TypeError};
use crate::types::{char_typmod_len, format_type, SqlType};

/// Longest `name` in bytes.
pub const NAME_MAX_BYTES: usize = 63;

/// Coerce `s` to `varchar(typmod)`; `explicit` casts truncate instead of failing.
pub fn varchar_coerce(s: String, typmod: i32, explicit: bool) -> Result<String> {
    let Some(max) = char_typmod_len(typmod) else {
        return Ok(s);
    };
    truncate_checked(s, max, explicit, SqlType::Varchar, typmod)
}

/// Coerce `s` to `char(typmod)`: length check as varchar, then blank-pad.
/// Without a typmod (`bpchar`) the value is kept as is.
pub fn bpchar_coerce(s: String, typmod: i32, explicit: bool) -> Result<String> {
    let Some(max) = char_typmod_len(typmod) else {
        return Ok(s);
    };
    let mut s = truncate_checked(s, max, explicit, SqlType::Bpchar, typmod)?;
    let len = s.chars().count();
    s.extend(std::iter::repeat_n(' ', max.saturating_sub(len)));
    Ok(s)
}

/// Cut `s` to `max` characters: silently for explicit casts or when only
/// spaces are cut, else PostgreSQL's `value too long` error.
fn truncate_checked(
    mut s: String,
    max: usize,
    explicit: bool,
    ty: SqlType,
    typmod: i32,
) -> Result<String> {
    let Some((cut, _)) = s.char_indices().nth(max) else {
        return Ok(s);
    };
    if !explicit && !s[cut..].bytes().all(|b| b == b' ') {
        return Err(TypeError::new(
            ErrorKind::StringDataRightTruncation,
            format!("value too long for type {}", format_type(ty, typmod)),
        ));
    }
    s.truncate(cut);
    Ok(s)
}

/// Truncate to a valid `name`: at most 63 bytes, cut at a character boundary.
pub fn name_coerce(mut s: String) -> String {
    if s.len() > NAME_MAX_BYTES {
        let mut cut = NAME_MAX_BYTES;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
    }
    s
}

/// `"char"` input (`charin`): the first byte of `s`, or the byte a
/// four-character `\ooo` octal escape names; returned in output form.
pub fn char_in(s: &str) -> String {
    char_from_byte(char_escape(s).unwrap_or_else(|| s.bytes().next().unwrap_or(0)))
}

/// The byte of a `\ooo` escape, if `s` is exactly one.
fn char_escape(s: &str) -> Option<u8> {
    let digits = s.strip_prefix('\\')?;
    if digits.len() != 3 || !digits.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        return None;
    }
    u8::try_from(u32::from_str_radix(digits, 8).ok()?).ok()
}

/// The output form of `"char"` byte `b` (`charout`).
pub fn char_from_byte(b: u8) -> String {
    match b {
        0 => String::new(),
        0x80.. => format!("\\{b:03o}"),
        _ => char::from(b).to_string(),
    }
}

/// The byte a `"char"` value in output form stands for.
pub fn char_byte(s: &str) -> u8 {
    char_escape(s).unwrap_or_else(|| s.bytes().next().unwrap_or(0))
}

/// `s` without trailing spaces: the significant part of a `char(n)` value.
pub fn bpchar_trim(s: &str) -> &str {
    s.trim_end_matches(' ')
}

/// Compare two `char(n)` values, ignoring trailing spaces (C collation).
pub fn bpchar_cmp(a: &str, b: &str) -> Ordering {
    bpchar_trim(a).as_bytes().cmp(bpchar_trim(b).as_bytes())
}

/// `length(char(n))`: characters excluding trailing spaces.
pub fn bpchar_length(s: &str) -> usize {
    bpchar_trim(s).chars().count()
}

/// Check that bytes are valid UTF-8 without NUL, as PostgreSQL's
/// `pg_verify_mbstr` does for text received in binary form.
pub fn verify_utf8(bytes: &[u8]) -> Result<String> {
    let bad_byte = |b: &[u8]| {
        let shown: Vec<String> = b.iter().take(4).map(|x| format!("0x{x:02x}")).collect();
        TypeError::new(
            ErrorKind::CharacterNotInRepertoire,
            format!("invalid byte sequence for encoding \"UTF8\": {}", shown.join(" ")),
        )
    };
    if let Some(pos) = bytes.iter().position(|&b| b == 0) {
        return Err(bad_byte(&bytes[pos..pos + 1]));
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(s.to_string()),
        Err(e) => {
            let start = e.valid_up_to();
            let len = e.error_len().unwrap_or(bytes.len() - start).max(1);
            Err(bad_byte(&bytes[start..(start + len).min(bytes.len())]))
        }
    }
}

#[cfg(test)]
mod char_tests {
    use super::*;

    #[test]
    fn char_keeps_one_byte_in_output_form() {
        assert_eq!(char_in("relkind"), "r");
        assert_eq!(char_in(""), "");
        assert_eq!(char_in("\\101"), "A");
        assert_eq!(char_in("é"), "\\303");
        assert_eq!(char_byte(&char_in("é")), 0xC3);
        assert_eq!(char_byte(""), 0);
        assert_eq!(char_from_byte(b'S'), "S");
    }
}
