//! Unsigned big-integer arithmetic on base-10000 digit vectors.
//!
//! The numeric type is a sign, a decimal scale and a magnitude; everything hard
//! about it is the magnitude, which is an arbitrary-size integer in base
//! [`NBASE`]. This file is that integer arithmetic, kept apart from the decimal
//! bookkeeping in `arith.rs`. Vectors here are little-endian (least significant
//! digit first) because carries run that way; [`super::Numeric`] stores digits
//! most significant first, as PostgreSQL and its wire format do.
//!
//! All operations are schoolbook: numerics are at most a few thousand decimal
//! digits, where asymptotically faster methods do not pay for themselves.

use std::cmp::Ordering;

/// The digit base: four decimal digits per digit, as in PostgreSQL.
pub const NBASE: u32 = 10000;

/// A little-endian base-10000 magnitude.
pub type Mag = Vec<u32>;

/// Remove most-significant zero digits, so that zero is the empty vector.
pub fn trim(mut v: Mag) -> Mag {
    while v.last() == Some(&0) {
        v.pop();
    }
    v
}

/// Compare two magnitudes (either may carry high zero digits).
pub fn cmp(a: &[u32], b: &[u32]) -> Ordering {
    let la = a.iter().rposition(|&d| d != 0).map_or(0, |p| p + 1);
    let lb = b.iter().rposition(|&d| d != 0).map_or(0, |p| p + 1);
    la.cmp(&lb).then_with(|| a[..la].iter().rev().cmp(b[..lb].iter().rev()))
}

/// `a + b`.
pub fn add(a: &[u32], b: &[u32]) -> Mag {
    let mut out = Vec::with_capacity(a.len().max(b.len()) + 1);
    let mut carry = 0;
    for i in 0..a.len().max(b.len()) {
        let s = a.get(i).copied().unwrap_or(0) + b.get(i).copied().unwrap_or(0) + carry;
        out.push(s % NBASE);
        carry = s / NBASE;
    }
    if carry > 0 {
        out.push(carry);
    }
    out
}

/// `a - b`; the caller guarantees `a >= b`.
pub fn sub(a: &[u32], b: &[u32]) -> Mag {
    let mut out = Vec::with_capacity(a.len());
    let mut borrow = 0i64;
    for (i, &da) in a.iter().enumerate() {
        let mut d = i64::from(da) - i64::from(b.get(i).copied().unwrap_or(0)) - borrow;
        borrow = 0;
        if d < 0 {
            d += i64::from(NBASE);
            borrow = 1;
        }
        out.push(d as u32);
    }
    trim(out)
}

/// `a * b`.
pub fn mul(a: &[u32], b: &[u32]) -> Mag {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    // Accumulate in u64 and normalise once per row: 10^8 per product means a
    // u64 column can absorb ~10^11 products before it could overflow.
    let mut acc = vec![0u64; a.len() + b.len()];
    for (i, &da) in a.iter().enumerate() {
        if da == 0 {
            continue;
        }
        for (j, &db) in b.iter().enumerate() {
            acc[i + j] += u64::from(da) * u64::from(db);
        }
        if i % 1024 == 1023 {
            normalise(&mut acc);
        }
    }
    normalise(&mut acc);
    trim(acc.into_iter().map(|d| d as u32).collect())
}

/// Propagate carries so every slot of `acc` is below [`NBASE`].
fn normalise(acc: &mut [u64]) {
    let mut carry = 0u64;
    for slot in acc.iter_mut() {
        let v = *slot + carry;
        *slot = v % u64::from(NBASE);
        carry = v / u64::from(NBASE);
    }
}

/// `a * m` for a small multiplier.
pub fn mul_small(a: &[u32], m: u32) -> Mag {
    let mut out = Vec::with_capacity(a.len() + 2);
    let mut carry = 0u64;
    for &d in a {
        let v = u64::from(d) * u64::from(m) + carry;
        out.push((v % u64::from(NBASE)) as u32);
        carry = v / u64::from(NBASE);
    }
    while carry > 0 {
        out.push((carry % u64::from(NBASE)) as u32);
        carry /= u64::from(NBASE);
    }
    trim(out)
}

/// `a * 10^k` for `k >= 0`.
pub fn shift_decimal(a: &[u32], k: usize) -> Mag {
    let mut out = vec![0; k / 4];
    out.extend(mul_small(a, 10u32.pow((k % 4) as u32)));
    trim(out)
}

/// `(a / b, a % b)`; `b` must be non-zero.
pub fn divmod(a: &[u32], b: &[u32]) -> (Mag, Mag) {
    let b = trim(b.to_vec());
    assert!(!b.is_empty(), "digits::divmod by zero");
    if b.len() == 1 {
        return divmod_small(a, b[0]);
    }
    let mut quotient = vec![0; a.len()];
    let mut rem: Mag = Vec::new();
    for i in (0..a.len()).rev() {
        rem.insert(0, a[i]);
        rem = trim(rem);
        if cmp(&rem, &b) == Ordering::Less {
            continue;
        }
        let q = quotient_digit(&rem, &b);
        rem = sub(&rem, &mul_small(&b, q));
        quotient[i] = q;
    }
    (trim(quotient), rem)
}

/// The largest `q < NBASE` with `b * q <= rem`, given `b <= rem < b * NBASE`.
///
/// Estimated from the leading digits (exact to within one or two), then
/// corrected by comparison so the result never depends on the estimate.
fn quotient_digit(rem: &[u32], b: &[u32]) -> u32 {
    let top = |v: &[u32], n: usize| -> u128 {
        v.iter().rev().take(n).fold(0u128, |acc, &d| acc * u128::from(NBASE) + u128::from(d))
    };
    // Compare leading parts at equal alignment: three divisor digits against the
    // remainder's digits at the same positions plus one more if it is longer.
    let shift = b.len().saturating_sub(3);
    let bt = top(b, b.len() - shift);
    let rt = top(rem, rem.len() - shift);
    let mut q = ((rt / bt.max(1)) as u32).min(NBASE - 1);
    while q > 0 && cmp(&mul_small(b, q), rem) == Ordering::Greater {
        q -= 1;
    }
    while q + 1 < NBASE && cmp(&mul_small(b, q + 1), rem) != Ordering::Greater {
        q += 1;
    }
    q
}

/// `(a / d, a % d)` for a single-digit divisor.
fn divmod_small(a: &[u32], d: u32) -> (Mag, Mag) {
    let mut out = vec![0; a.len()];
    let mut rem = 0u64;
    for i in (0..a.len()).rev() {
        let cur = rem * u64::from(NBASE) + u64::from(a[i]);
        out[i] = (cur / u64::from(d)) as u32;
        rem = cur % u64::from(d);
    }
    (trim(out), trim(vec![rem as u32]))
}

/// The magnitude of an unsigned 128-bit integer.
pub fn from_u128(mut v: u128) -> Mag {
    let mut out = Vec::new();
    while v > 0 {
        out.push((v % u128::from(NBASE)) as u32);
        v /= u128::from(NBASE);
    }
    out
}

/// The value of a magnitude if it fits in a `u128`.
pub fn to_u128(a: &[u32]) -> Option<u128> {
    a.iter()
        .rev()
        .try_fold(0u128, |acc, &d| acc.checked_mul(u128::from(NBASE))?.checked_add(u128::from(d)))
}
