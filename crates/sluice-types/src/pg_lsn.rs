//! `pg_lsn`: a position in the write-ahead log (PostgreSQL's `pg_lsn.c`).
//!
//! A value is the 64-bit byte position itself. Text is two hexadecimal
//! halves, `high/low`, each one to eight digits (`16/B374D848`); output is
//! uppercase without leading zeros. Subtracting two positions gives the
//! bytes between them as `numeric` (the difference of two 64-bit positions
//! may not fit a `bigint`); adding or subtracting a `numeric` byte count
//! gives another position, which must stay within 0 ..= 2^64 - 1.

use crate::error::{ErrorKind, Result, TypeError};
use crate::ops::ArithOp;
use crate::{Datum, Numeric};

/// The most hexadecimal digits one half may have.
const MAX_COMPONENT: usize = 8;

/// parse -- `pg_lsn` input.
pub fn parse(input: &str) -> Result<u64> {
    parse_inner(input).ok_or_else(|| TypeError::invalid_syntax("pg_lsn", input))
}

fn parse_inner(input: &str) -> Option<u64> {
    let (high, low) = input.split_once('/')?;
    let half = |s: &str| {
        let ok = (1..=MAX_COMPONENT).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit());
        ok.then(|| u32::from_str_radix(s, 16).ok()).flatten()
    };
    Some(u64::from(half(high)?) << 32 | u64::from(half(low)?))
}

/// output -- `pg_lsn` output, `X/X` in uppercase hexadecimal.
pub fn output(lsn: u64) -> String {
    format!("{:X}/{:X}", lsn >> 32, lsn & 0xFFFF_FFFF)
}

/// The bytes from `b` to `a` (negative if `a` comes first), as numeric.
pub fn diff(a: u64, b: u64) -> Numeric {
    Numeric::from_i128(i128::from(a) - i128::from(b))
}

/// arith -- `pg_lsn - pg_lsn`, `pg_lsn + numeric`, `numeric + pg_lsn` and
/// `pg_lsn - numeric`; `None` if the operands are not one of those.
pub fn arith(op: ArithOp, a: &Datum, b: &Datum) -> Result<Option<Datum>> {
    Ok(Some(match (op, a, b) {
        (ArithOp::Sub, Datum::PgLsn(x), Datum::PgLsn(y)) => Datum::Numeric(diff(*x, *y)),
        (ArithOp::Add, Datum::PgLsn(x), Datum::Numeric(n))
        | (ArithOp::Add, Datum::Numeric(n), Datum::PgLsn(x)) => {
            Datum::PgLsn(offset(*x, n, "cannot add NaN to pg_lsn", Numeric::add)?)
        }
        (ArithOp::Sub, Datum::PgLsn(x), Datum::Numeric(n)) => {
            Datum::PgLsn(offset(*x, n, "cannot subtract NaN from pg_lsn", Numeric::sub)?)
        }
        _ => return Ok(None),
    }))
}

/// `lsn` moved by `bytes` with `apply`; the result, rounded to a whole byte,
/// must be a position.
fn offset(
    lsn: u64,
    bytes: &Numeric,
    nan_message: &str,
    apply: fn(&Numeric, &Numeric) -> Result<Numeric>,
) -> Result<u64> {
    if bytes.is_nan() {
        return Err(TypeError::new(ErrorKind::FeatureNotSupported, nan_message));
    }
    let moved = apply(&Numeric::from_i128(i128::from(lsn)), bytes)?;
    let out_of_range = || TypeError::out_of_range("pg_lsn out of range");
    if !moved.is_finite() {
        return Err(out_of_range());
    }
    moved.round(0).to_string().parse::<u64>().map_err(|_| out_of_range())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::parse as numeric_parse;

    #[test]
    fn input_output_round_trip() {
        for text in ["0/0", "16/B374D848", "FFFFFFFF/FFFFFFFF"] {
            assert_eq!(output(parse(text).unwrap()), text);
        }
        assert_eq!(output(parse("0000000a/00000001").unwrap()), "A/1");
    }

    #[test]
    fn bad_input_is_rejected() {
        for text in ["", "/", "1/", "/1", "G/0", "123456789/0", "1/2/3", " 1/2", "1/2 "] {
            let e = parse(text).unwrap_err();
            assert_eq!(e.message, format!("invalid input syntax for type pg_lsn: \"{text}\""));
        }
    }

    #[test]
    fn arithmetic() {
        let lsn = |s| Datum::PgLsn(parse(s).unwrap());
        let num = |s: &str| Datum::Numeric(numeric_parse(s, -1).unwrap());
        let sub = arith(ArithOp::Sub, &lsn("0/10"), &lsn("0/20")).unwrap().unwrap();
        assert_eq!(sub, num("-16"));
        let add = arith(ArithOp::Add, &lsn("0/FFFFFFFF"), &num("1")).unwrap().unwrap();
        assert_eq!(add, lsn("1/0"));
        let e = arith(ArithOp::Sub, &lsn("0/1"), &num("2")).unwrap_err();
        assert_eq!(e.message, "pg_lsn out of range");
        let e = arith(ArithOp::Add, &lsn("0/1"), &num("NaN")).unwrap_err();
        assert_eq!(e.message, "cannot add NaN to pg_lsn");
        assert!(arith(ArithOp::Mul, &lsn("0/1"), &num("2")).unwrap().is_none());
    }
}
