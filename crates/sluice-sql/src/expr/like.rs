//! `LIKE` and `ILIKE` matching (PostgreSQL's `like.c` and `like_match.c`).
//!
//! A pattern is text in which `%` matches any run of characters, `_` exactly
//! one, and a backslash makes the next character literal. `LIKE ... ESCAPE
//! 'c'` is rewritten by [`like_escape`] into that backslash form first, which
//! is how PostgreSQL implements it too (`like_escape` appears in the parse
//! tree). `ILIKE` compares ASCII-lowercased text: sluice has only the C
//! collation, where no other letters change case.
//!
//! The matcher is the classic iterative one that backtracks to the last `%`:
//! a later `%` can absorb anything an earlier one could, so remembering only
//! the last is enough, and the work is bounded by text × pattern length
//! without recursion (PostgreSQL recurses per `%`).

use sluice_types::Datum;

use crate::{Result, SqlError};

/// like -- whether `value` matches `pattern` (text or bytea).
pub(super) fn like(value: &Datum, pattern: &Datum, case_insensitive: bool) -> Result<bool> {
    match (value, pattern) {
        (Datum::Bytea(v), Datum::Bytea(p)) => {
            let units = |b: &[u8]| b.iter().map(|&x| u32::from(x)).collect::<Vec<u32>>();
            matches(&units(v), &units(p))
        }
        (Datum::Text(v), Datum::Text(p)) => {
            let units = |s: &str| {
                s.chars()
                    .map(|c| if case_insensitive { c.to_ascii_lowercase() } else { c } as u32)
                    .collect::<Vec<u32>>()
            };
            matches(&units(v), &units(p))
        }
        _ => Err(SqlError::internal(format!("LIKE over {value:?} and {pattern:?}"))),
    }
}

/// like_escape -- rewrites `pattern` written with escape character `escape`
/// (empty: none) into the backslash-escaped form [`like`] understands.
pub(super) fn like_escape(pattern: &str, escape: &str) -> Result<String> {
    let mut esc = escape.chars();
    let Some(e) = esc.next() else {
        return Ok(pattern.replace('\\', "\\\\"));
    };
    if esc.next().is_some() {
        return Err(SqlError::new("22025", "invalid escape string")
            .with_hint("Escape string must be empty or one character."));
    }
    if e == '\\' {
        return Ok(pattern.to_string());
    }
    let mut out = String::with_capacity(pattern.len());
    let mut after_escape = false;
    for c in pattern.chars() {
        if c == e && !after_escape {
            out.push('\\');
            after_escape = true;
        } else if c == '\\' {
            out.push('\\');
            if !after_escape {
                out.push('\\');
            }
            after_escape = false;
        } else {
            out.push(c);
            after_escape = false;
        }
    }
    Ok(out)
}

const PERCENT: u32 = '%' as u32;
const UNDERSCORE: u32 = '_' as u32;
const BACKSLASH: u32 = '\\' as u32;

/// The matcher over code units (characters, or bytes for bytea).
fn matches(text: &[u32], pattern: &[u32]) -> Result<bool> {
    let (mut t, mut p) = (0, 0);
    // Where to resume after the last `%`: its pattern index and text index.
    let mut resume: Option<(usize, usize)> = None;
    while t < text.len() {
        let step = match pattern.get(p) {
            Some(&PERCENT) => {
                resume = Some((p + 1, t));
                p += 1;
                continue;
            }
            Some(&UNDERSCORE) => Some(1),
            Some(&BACKSLASH) => match pattern.get(p + 1) {
                None => return Err(escape_at_end()),
                Some(&literal) => (literal == text[t]).then_some(2),
            },
            Some(&literal) => (literal == text[t]).then_some(1),
            None => None,
        };
        match (step, resume) {
            (Some(n), _) => {
                t += 1;
                p += n;
            }
            (None, Some((rp, rt))) => {
                resume = Some((rp, rt + 1));
                p = rp;
                t = rt + 1;
            }
            (None, None) => return Ok(false),
        }
    }
    Ok(pattern[p.min(pattern.len())..].iter().all(|&c| c == PERCENT))
}

/// 22025 for a pattern ending in its escape character.
fn escape_at_end() -> SqlError {
    SqlError::new("22025", "LIKE pattern must not end with escape character")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(t: &str, p: &str) -> bool {
        like(&Datum::Text(t.into()), &Datum::Text(p.into()), false).unwrap()
    }

    #[test]
    fn wildcards_and_escapes() {
        assert!(m("hello", "h%o"));
        assert!(m("hello", "%"));
        assert!(m("", "%%"));
        assert!(!m("hello", "h_o"));
        assert!(m("hello", "h___o"));
        assert!(m("a%b", "a\\%b"));
        assert!(!m("axb", "a\\%b"));
        assert!(m("abcabd", "%ab_"));
        assert!(m("mississippi", "%iss%ppi"));
        assert!(!m("mississippi", "%iss%ppx"));
        assert!(m("héllo", "h_llo"));
        assert!(like(&Datum::Text("ab".into()), &Datum::Text("ab\\".into()), false).is_ok());
        assert!(like(&Datum::Text("abc".into()), &Datum::Text("ab\\".into()), false).is_err());
    }

    #[test]
    fn escape_rewriting() {
        assert_eq!(like_escape("a!%b", "!").unwrap(), "a\\%b");
        assert_eq!(like_escape("a\\b", "").unwrap(), "a\\\\b");
        assert_eq!(like_escape("a!\\b", "!").unwrap(), "a\\\\b");
        assert!(like_escape("x", "ab").is_err());
    }
}
