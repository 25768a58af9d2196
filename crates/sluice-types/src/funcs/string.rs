//! String functions: `length`, `lower`, `substr`, `lpad`, `md5`, ...
//!
//! Lengths and positions count characters, not bytes (`octet_length` is the
//! exception), as PostgreSQL does for UTF-8. Case mapping follows the C
//! locale, the only collation sluice has: only ASCII letters change case, as
//! in a PostgreSQL database created with `--no-locale`. Results that would
//! exceed PostgreSQL's 1 GB value limit fail with its
//! `requested length too large` instead of exhausting memory.

use md5::{Digest, Md5};

use crate::error::{ErrorKind, Result, TypeError};

/// Largest value size PostgreSQL can allocate (MaxAllocSize), less the header.
const MAX_VALUE_BYTES: usize = 0x3fff_ffff - 4;

/// `requested length too large` (54000).
fn too_large() -> TypeError {
    TypeError::new(ErrorKind::ProgramLimitExceeded, "requested length too large")
}

/// `length(text)`, `char_length`: characters.
pub fn length(s: &str) -> i32 {
    s.chars().count() as i32
}

/// `octet_length(text)`: bytes.
pub fn octet_length(s: &str) -> i32 {
    s.len() as i32
}

/// `lower(text)` in the C locale.
pub fn lower(s: &str) -> String {
    s.to_ascii_lowercase()
}

/// `upper(text)` in the C locale.
pub fn upper(s: &str) -> String {
    s.to_ascii_uppercase()
}

/// `initcap(text)`: first letter of each alphanumeric word upper, rest lower.
pub fn initcap(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_word = false;
    for c in s.chars() {
        out.push(if in_word { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() });
        in_word = c.is_ascii_alphanumeric() || !c.is_ascii();
    }
    out
}

/// The byte offset of character index `i` (clamped to the end).
fn byte_at(s: &str, i: usize) -> usize {
    s.char_indices().nth(i).map_or(s.len(), |(b, _)| b)
}

/// `substr(s, start [, count])` / `substring(s from start [for count])`:
/// 1-based; positions before 1 count against `count`.
pub fn substr(s: &str, start: i64, count: Option<i64>) -> Result<String> {
    let end = match count {
        Some(c) if c < 0 => {
            return Err(TypeError::new(
                ErrorKind::SubstringError,
                "negative substring length not allowed",
            ))
        }
        Some(c) => start.saturating_add(c),
        None => i64::MAX,
    };
    let from = start.max(1);
    if end <= from {
        return Ok(String::new());
    }
    let a = byte_at(s, (from - 1) as usize);
    let b = usize::try_from(end - 1).map_or(s.len(), |e| byte_at(s, e));
    Ok(s[a..b.max(a)].to_string())
}

/// `left(s, n)`: first `n` characters, or all but the last `-n`.
pub fn left(s: &str, n: i64) -> String {
    let len = s.chars().count() as i64;
    let keep = if n >= 0 { n.min(len) } else { (len + n).max(0) };
    s[..byte_at(s, keep as usize)].to_string()
}

/// `right(s, n)`: last `n` characters, or all but the first `-n`.
pub fn right(s: &str, n: i64) -> String {
    let len = s.chars().count() as i64;
    let skip = if n >= 0 { (len - n).max(0) } else { (-n).min(len) };
    s[byte_at(s, skip as usize)..].to_string()
}

/// `position(sub in s)`, `strpos(s, sub)`: 1-based character index, 0 if absent.
pub fn position(s: &str, sub: &str) -> i32 {
    s.find(sub).map_or(0, |b| s[..b].chars().count() as i32 + 1)
}

/// `replace(s, from, to)`; an empty `from` leaves `s` unchanged.
pub fn replace(s: &str, from: &str, to: &str) -> Result<String> {
    if from.is_empty() {
        return Ok(s.to_string());
    }
    let out = s.replace(from, to);
    if out.len() > MAX_VALUE_BYTES {
        return Err(too_large());
    }
    Ok(out)
}

/// Which ends `trim` works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrimSide {
    /// `ltrim` / `LEADING`.
    Leading,
    /// `rtrim` / `TRAILING`.
    Trailing,
    /// `btrim` / `BOTH`.
    Both,
}

/// `btrim`/`ltrim`/`rtrim(s [, chars])`: strip characters in `chars`
/// (default a space) from the chosen ends.
pub fn trim(s: &str, chars: Option<&str>, side: TrimSide) -> String {
    let set: Vec<char> = chars.unwrap_or(" ").chars().collect();
    let strip = |c: char| set.contains(&c);
    match side {
        TrimSide::Leading => s.trim_start_matches(strip),
        TrimSide::Trailing => s.trim_end_matches(strip),
        TrimSide::Both => s.trim_matches(strip),
    }
    .to_string()
}

/// `lpad(s, len [, fill])`: pad on the left with `fill` (default a space) to
/// `len` characters, truncating `s` if it is longer.
pub fn lpad(s: &str, len: i64, fill: Option<&str>) -> Result<String> {
    pad(s, len, fill.unwrap_or(" "), true)
}

/// `rpad(s, len [, fill])`.
pub fn rpad(s: &str, len: i64, fill: Option<&str>) -> Result<String> {
    pad(s, len, fill.unwrap_or(" "), false)
}

/// Shared body of `lpad` and `rpad`.
fn pad(s: &str, len: i64, fill: &str, left: bool) -> Result<String> {
    if len <= 0 {
        return Ok(String::new());
    }
    let s_len = s.chars().count() as i64;
    if s_len >= len || fill.is_empty() {
        return Ok(s[..byte_at(s, len.min(s_len) as usize)].to_string());
    }
    let need = (len - s_len) as usize;
    let max_char = fill.chars().map(char::len_utf8).max().unwrap_or(1);
    if need.saturating_mul(max_char).saturating_add(s.len()) > MAX_VALUE_BYTES {
        return Err(too_large());
    }
    let padding: String = fill.chars().cycle().take(need).collect();
    Ok(if left { padding + s } else { s.to_string() + &padding })
}

/// `repeat(s, n)`; `n <= 0` gives the empty string.
pub fn repeat(s: &str, n: i64) -> Result<String> {
    if n <= 0 {
        return Ok(String::new());
    }
    let total = (s.len() as u128) * (n as u128);
    if total > MAX_VALUE_BYTES as u128 {
        return Err(too_large());
    }
    Ok(s.repeat(n as usize))
}

/// `md5(text)` / `md5(bytea)`: lowercase hex digest.
pub fn md5(bytes: &[u8]) -> String {
    let digest = Md5::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// `reverse(text)`.
pub fn reverse(s: &str) -> String {
    s.chars().rev().collect()
}

/// `split_part(s, delim, n)`: the n-th field (negative counts from the end).
pub fn split_part(s: &str, delim: &str, n: i64) -> Result<String> {
    if n == 0 {
        return Err(TypeError::invalid_parameter("field position must not be zero"));
    }
    if delim.is_empty() {
        return Ok(if n == 1 || n == -1 { s.to_string() } else { String::new() });
    }
    let parts: Vec<&str> = s.split(delim).collect();
    let idx = if n > 0 { n - 1 } else { parts.len() as i64 + n };
    Ok(usize::try_from(idx)
        .ok()
        .and_then(|i| parts.get(i))
        .map_or(String::new(), |p| p.to_string()))
}

/// `starts_with(s, prefix)`.
pub fn starts_with(s: &str, prefix: &str) -> bool {
    s.starts_with(prefix)
}
