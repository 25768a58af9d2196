//! `oid` input and output.
//!
//! An OID is an unsigned 32-bit number. Like PostgreSQL (which parses with
//! `strtoul`), input also accepts negative numbers down to -2^31 and wraps them,
//! so `'-1'::oid` is 4294967295; anything else beyond 32 bits is out of range.

use crate::error::{Result, TypeError};
use crate::scan::is_space;

/// Parse oid text.
pub fn parse(input: &str) -> Result<u32> {
    let bad = || TypeError::invalid_syntax("oid", input);
    let s = input.as_bytes();
    let mut pos = s.iter().position(|&c| !is_space(c)).unwrap_or(s.len());
    let neg = crate::scan::sign(s, &mut pos);
    let start = pos;
    let mut v: u64 = 0;
    while pos < s.len() && s[pos].is_ascii_digit() {
        v = (v * 10 + u64::from(s[pos] - b'0')).min(u64::from(u32::MAX) + 1);
        pos += 1;
    }
    if pos == start || !s[pos..].iter().all(|&c| is_space(c)) {
        return Err(bad());
    }
    let out_of_range = || TypeError::value_out_of_range(input, "oid");
    if neg {
        if v > 1 << 31 {
            return Err(out_of_range());
        }
        return Ok((v as u32).wrapping_neg());
    }
    u32::try_from(v).map_err(|_| out_of_range())
}
