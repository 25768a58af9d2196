//! Small lexical helpers shared by the text input functions.
//!
//! PostgreSQL's input functions are written against C's `<ctype.h>`, whose
//! notion of whitespace (`isspace`: space, tab, newline, carriage return,
//! vertical tab, form feed) is what "surrounding whitespace is ignored" means
//! for integers, floats, numerics and booleans. Keeping it here keeps every
//! parser in agreement.

/// Whether `c` is whitespace as C's `isspace` sees it in the C locale.
pub fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// `s` without leading and trailing `isspace` whitespace.
pub fn trim_space(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_ascii() && is_space(c as u8))
}

/// Skips an optional `+` or `-` at `s[*pos]`; true if it was `-`.
pub fn sign(s: &[u8], pos: &mut usize) -> bool {
    match s.get(*pos) {
        Some(b'-') => {
            *pos += 1;
            true
        }
        Some(b'+') => {
            *pos += 1;
            false
        }
        _ => false,
    }
}
