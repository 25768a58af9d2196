//! `boolean` input and output.
//!
//! PostgreSQL accepts any unambiguous prefix of `true`, `false`, `yes`, `no`,
//! plus `on`, `off` (at least `of`), `1` and `0`, ignoring case and surrounding
//! whitespace; it prints `t` and `f`. (The cast to `text` is different: it
//! spells `true`/`false`, see [`mod@crate::cast`].)

use crate::error::{Result, TypeError};

/// Parse boolean text.
pub fn parse(input: &str) -> Result<bool> {
    let s = crate::scan::trim_space(input).to_ascii_lowercase();
    let prefix_of = |word: &str, min: usize| s.len() >= min && word.starts_with(s.as_str());
    if prefix_of("true", 1) || prefix_of("yes", 1) || s == "on" || s == "1" {
        return Ok(true);
    }
    if prefix_of("false", 1) || prefix_of("no", 1) || prefix_of("off", 2) || s == "0" {
        return Ok(false);
    }
    Err(TypeError::invalid_syntax("boolean", input))
}

/// `t` or `f`.
pub fn output(v: bool) -> &'static str {
    if v {
        "t"
    } else {
        "f"
    }
}
