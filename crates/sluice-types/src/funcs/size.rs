//! `pg_size_pretty`: byte counts for humans, exactly as PostgreSQL 15.
//!
//! A value is shown in the largest unit (bytes, kB, MB, GB, TB, PB) in which
//! it is still at least 10 units — strictly, below 10240 of the *previous*
//! unit stays there — and units above bytes are rounded half away from zero.
//! PostgreSQL implements the rounding by keeping one extra bit while shifting
//! down and halving at the end; this file follows the same steps, so the
//! boundaries (`10239 bytes`, `10 kB`, `149 MB`, `10239 kB`) are identical.

use crate::numeric::Numeric;

/// One display unit: name, limit below which it is used, whether it rounds,
/// and its power of two.
struct Unit {
    name: &'static str,
    limit: i64,
    round: bool,
    bits: u32,
}

/// PostgreSQL 15's `size_pretty_units`.
const UNITS: [Unit; 6] = [
    Unit { name: "bytes", limit: 10 * 1024, round: false, bits: 0 },
    Unit { name: "kB", limit: 20 * 1024 - 1, round: true, bits: 10 },
    Unit { name: "MB", limit: 20 * 1024 - 1, round: true, bits: 20 },
    Unit { name: "GB", limit: 20 * 1024 - 1, round: true, bits: 30 },
    Unit { name: "TB", limit: 20 * 1024 - 1, round: true, bits: 40 },
    Unit { name: "PB", limit: 20 * 1024 - 1, round: true, bits: 50 },
];

/// The shift between unit `i` and the next: one bit less when the next unit
/// rounds (the extra bit is the rounding bit), one more when this one did.
fn shift_bits(i: usize) -> u32 {
    let (this, next) = (&UNITS[i], &UNITS[i + 1]);
    next.bits - this.bits - u32::from(next.round) + u32::from(this.round)
}

/// `pg_size_pretty(bigint)`.
pub fn size_pretty(mut size: i64) -> String {
    for (i, unit) in UNITS.iter().enumerate() {
        if i + 1 == UNITS.len() || size.unsigned_abs() < unit.limit as u64 {
            if unit.round {
                size = (size + if size < 0 { -1 } else { 1 }) / 2;
            }
            return format!("{size} {}", unit.name);
        }
        size /= 1i64 << shift_bits(i);
    }
    unreachable!("the last unit always matches")
}

/// `pg_size_pretty(numeric)`: the same steps in numeric arithmetic.
pub fn size_pretty_numeric(size: &Numeric) -> String {
    let mut size = size.clone();
    for (i, unit) in UNITS.iter().enumerate() {
        let below = size.abs().cmp_total(&Numeric::from_i64(unit.limit)).is_lt();
        if i + 1 == UNITS.len() || below {
            if unit.round {
                let one = Numeric::from_i64(if size.is_negative() { -1 } else { 1 });
                size = truncated_div(&size.add(&one).unwrap_or(size.clone()), 2);
            }
            return format!("{size} {}", unit.name);
        }
        size = truncated_div(&size, 1i64 << shift_bits(i));
    }
    unreachable!("the last unit always matches")
}

/// Integer division truncating toward zero, as PostgreSQL's
/// `numeric_truncated_divide`.
fn truncated_div(n: &Numeric, d: i64) -> Numeric {
    n.div_trunc(&Numeric::from_i64(d)).unwrap_or_else(|_| n.clone())
}
