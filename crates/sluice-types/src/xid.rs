//! `xid` and `xid8` input and output.
//!
//! PostgreSQL's `xid` is a 32-bit transaction id that wraps around, and
//! `xid8` the 64-bit "full" id (epoch and xid). sluice's transaction ids are
//! 64-bit and never wrap, so both types hold the whole 64-bit id and print it
//! in full: `backend_xmin` shows the same number as VACUUM VERBOSE's
//! "removable cutoff", and `xid8::xid` loses nothing. The one place the
//! 32-bit width shows is the binary wire format of `xid`, which clients read
//! as four bytes: it sends the low 32 bits (what PostgreSQL would send).
//!
//! Input accepts an unsigned decimal number with optional surrounding
//! blanks; anything else is "invalid input syntax", and a number beyond 64
//! bits is out of range (PostgreSQL 16's strict `xidin`; 15 silently
//! ignored trailing garbage).

use crate::error::{Result, TypeError};
use crate::scan::is_space;

/// Parse `xid` or `xid8` text (`type_name` names the type in errors).
pub fn parse(input: &str, type_name: &str) -> Result<u64> {
    let trimmed = input.trim_matches(|c: char| c.is_ascii() && is_space(c as u8));
    if trimmed.is_empty() || !trimmed.bytes().all(|c| c.is_ascii_digit()) {
        return Err(TypeError::invalid_syntax(type_name, input));
    }
    trimmed.parse::<u64>().map_err(|_| TypeError::value_out_of_range(input, type_name))
}

/// `age(xid)`: how many transactions lie between `xid` and `now` (the
/// caller's own xid, or else the next xid to be assigned), as PostgreSQL's
/// `xid_age`. A special xid (invalid, bootstrap, frozen) is infinitely old:
/// `i32::MAX`, as in PostgreSQL. The result saturates at `i32::MAX` because
/// the SQL function returns `integer`.
pub fn age(xid: u64, now: u64) -> i32 {
    if xid < FIRST_NORMAL_XID {
        return i32::MAX;
    }
    i32::try_from(now.saturating_sub(xid)).unwrap_or(i32::MAX)
}

/// The first xid a transaction can have; 0-2 are PostgreSQL's invalid,
/// bootstrap and frozen ids.
pub const FIRST_NORMAL_XID: u64 = 3;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_full_64_bit_ids() {
        assert_eq!(parse(" 770 ", "xid").unwrap(), 770);
        assert_eq!(parse("18446744073709551615", "xid8").unwrap(), u64::MAX);
        assert!(parse("18446744073709551616", "xid8").is_err());
        assert!(parse("-1", "xid").is_err());
        assert!(parse("12a", "xid").is_err());
        assert!(parse("", "xid").is_err());
    }

    #[test]
    fn age_counts_transactions_since() {
        assert_eq!(age(770, 775), 5);
        assert_eq!(age(775, 775), 0);
        assert_eq!(age(2, 775), i32::MAX);
        assert_eq!(age(3, u64::MAX), i32::MAX);
    }
}
