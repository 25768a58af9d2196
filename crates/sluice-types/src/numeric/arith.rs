//! `numeric` arithmetic with PostgreSQL's result scales.
//!
//! The scale of a result is part of its value as the user sees it, so each
//! operator picks it exactly as PostgreSQL's `numeric.c` does:
//! * `+`, `-`: the larger of the two input scales;
//! * `*`: the sum of the input scales (the product is exact);
//! * `/`: `select_div_scale` — enough decimals for at least 16 significant
//!   digits, never fewer than either input's scale, at most 1000;
//! * `%`: the larger input scale (the remainder after truncating division).
//!
//! Rounding is half away from zero, as PostgreSQL's `round_var`. Special
//! values follow PostgreSQL 14+: NaN is contagious, `Infinity - Infinity` is
//! NaN, a finite number divided by an infinity is 0.

use std::cmp::Ordering;

use super::digits::{self, Mag};
use super::{Numeric, NumericKind, MAX_DISPLAY_SCALE, MIN_SIG_DIGITS};
use crate::error::{Result, TypeError};

/// Largest scale `round()`/`trunc()` accept (NUMERIC_MAX_RESULT_SCALE).
const MAX_RESULT_SCALE: i32 = 2000;

impl Numeric {
    /// `self + other`.
    pub fn add(&self, other: &Numeric) -> Result<Numeric> {
        if let Some(special) = add_special(self, other) {
            return Ok(special);
        }
        add_finite(self, other, false).checked()
    }

    /// `self - other`.
    pub fn sub(&self, other: &Numeric) -> Result<Numeric> {
        if let Some(special) = add_special(self, &other.neg()) {
            return Ok(special);
        }
        add_finite(self, other, true).checked()
    }

    /// `self * other`; the result scale is the sum of the input scales.
    pub fn mul(&self, other: &Numeric) -> Result<Numeric> {
        if !self.is_finite() || !other.is_finite() {
            return Ok(mul_special(self, other));
        }
        self.mul_exact(other).checked()
    }

    /// The exact product of two finite values, without the storage limit check
    /// (intermediate results of the transcendental functions may exceed it).
    pub(super) fn mul_exact(&self, other: &Numeric) -> Numeric {
        let (ma, ea) = self.mag();
        let (mb, eb) = other.mag();
        let neg = self.neg != other.neg;
        Numeric::from_mag(neg, digits::mul(&ma, &mb), ea + eb, self.dscale + other.dscale)
    }

    /// `self / other` with PostgreSQL's `select_div_scale` result scale.
    pub fn div(&self, other: &Numeric) -> Result<Numeric> {
        if let Some(special) = div_special(self, other)? {
            return Ok(special);
        }
        self.div_scaled(other, select_div_scale(self, other))
    }

    /// `self / other` rounded to exactly `rscale` decimals (both finite).
    pub(crate) fn div_scaled(&self, other: &Numeric, rscale: i32) -> Result<Numeric> {
        if other.is_zero() {
            return Err(TypeError::division_by_zero());
        }
        divide(self, other, rscale, true).checked()
    }

    /// Integer division truncated toward zero (PostgreSQL's `div()`).
    pub fn div_trunc(&self, other: &Numeric) -> Result<Numeric> {
        if let Some(special) = div_special(self, other)? {
            return Ok(special.trunc(0));
        }
        if other.is_zero() {
            return Err(TypeError::division_by_zero());
        }
        divide(self, other, 0, false).checked()
    }

    /// `self % other`: the remainder of truncating division, sign of `self`.
    pub fn modulo(&self, other: &Numeric) -> Result<Numeric> {
        if self.is_nan() || other.is_nan() {
            return Ok(Numeric::nan());
        }
        if other.is_zero() {
            return Err(TypeError::division_by_zero());
        }
        if !self.is_finite() {
            return Ok(Numeric::nan());
        }
        if !other.is_finite() {
            return Ok(self.clone());
        }
        let quotient = divide(self, other, 0, false);
        self.sub(&quotient.mul(other)?)
    }

    /// Round to `scale` decimals (negative: to tens, hundreds...), half away
    /// from zero; the result prints with `max(scale, 0)` decimals.
    pub fn round(&self, scale: i32) -> Numeric {
        self.round_or_trunc(scale.clamp(-MAX_RESULT_SCALE, MAX_RESULT_SCALE), true)
    }

    /// Truncate toward zero to `scale` decimals.
    pub fn trunc(&self, scale: i32) -> Numeric {
        self.round_or_trunc(scale.clamp(-MAX_RESULT_SCALE, MAX_RESULT_SCALE), false)
    }

    /// Smallest integer not below the value (`ceil`), scale 0.
    pub fn ceil(&self) -> Numeric {
        self.to_integer_toward(false)
    }

    /// Largest integer not above the value (`floor`), scale 0.
    pub fn floor(&self) -> Numeric {
        self.to_integer_toward(true)
    }

    /// Truncate to an integer, then step one away from zero if that moved the
    /// value in the wrong direction for ceil (`down == false`) or floor.
    fn to_integer_toward(&self, down: bool) -> Numeric {
        let t = self.trunc(0);
        if !self.is_finite() || t.cmp_total(self) == Ordering::Equal {
            return t;
        }
        match (self.neg, down) {
            (true, true) => t.add(&Numeric::from_i64(-1)).unwrap_or(t),
            (false, false) => t.add(&Numeric::from_i64(1)).unwrap_or(t),
            _ => t,
        }
    }

    /// Shared body of [`Numeric::round`] and [`Numeric::trunc`], without their
    /// clamping of `scale` (internal callers round far below 10^-2000).
    pub(super) fn round_or_trunc(&self, scale: i32, round: bool) -> Numeric {
        if !self.is_finite() {
            return self.clone();
        }
        let dscale = scale.max(0);
        let (mag, exp) = self.mag();
        let drop = -(4 * i64::from(exp) + i64::from(scale));
        if drop <= 0 || mag.is_empty() {
            return Numeric { dscale, ..self.clone() };
        }
        let drop = drop as usize;
        let round_up = round && decimal_digit(&mag, drop - 1) >= 5;
        let whole = drop / 4;
        let mut kept: Mag = mag.get(whole..).map(<[u32]>::to_vec).unwrap_or_default();
        let unit = 10u32.pow((drop % 4) as u32);
        if let Some(low) = kept.first_mut() {
            *low -= *low % unit;
        }
        if round_up {
            kept = digits::add(&kept, &[unit]);
        }
        Numeric::from_mag(self.neg, kept, exp + whole as i32, dscale)
    }
}

/// The decimal digit at position `pos` (0 = units of the lowest base digit).
fn decimal_digit(mag: &[u32], pos: usize) -> u32 {
    mag.get(pos / 4).map_or(0, |d| (d / 10u32.pow((pos % 4) as u32)) % 10)
}

/// The result of `a + b` when either is NaN or infinite, else `None`.
fn add_special(a: &Numeric, b: &Numeric) -> Option<Numeric> {
    use NumericKind::*;
    match (a.kind, b.kind) {
        (Finite, Finite) => None,
        (NaN, _) | (_, NaN) | (PosInf, NegInf) | (NegInf, PosInf) => Some(Numeric::nan()),
        (PosInf, _) | (_, PosInf) => Some(Numeric::special(PosInf)),
        _ => Some(Numeric::special(NegInf)),
    }
}

/// `a + b` of finite values without the storage limit check.
pub(super) fn add_unchecked(a: &Numeric, b: &Numeric) -> Numeric {
    add_finite(a, b, false)
}

/// `a + b` (or `a - b`) of finite values; scale is the larger input scale.
fn add_finite(a: &Numeric, b: &Numeric, subtract: bool) -> Numeric {
    let (ma, ea) = a.mag();
    let (mb, eb) = b.mag();
    let exp = ea.min(eb);
    let ma = shift_digits(ma, ea - exp);
    let mb = shift_digits(mb, eb - exp);
    let b_neg = b.neg != subtract;
    let dscale = a.dscale.max(b.dscale);
    if a.neg == b_neg {
        return Numeric::from_mag(a.neg, digits::add(&ma, &mb), exp, dscale);
    }
    match digits::cmp(&ma, &mb) {
        Ordering::Equal => Numeric { dscale, ..Numeric::zero() },
        Ordering::Greater => Numeric::from_mag(a.neg, digits::sub(&ma, &mb), exp, dscale),
        Ordering::Less => Numeric::from_mag(b_neg, digits::sub(&mb, &ma), exp, dscale),
    }
}

/// Multiply a magnitude by `10000^n` (prepend `n` zero digits).
fn shift_digits(mag: Mag, n: i32) -> Mag {
    if n <= 0 || mag.is_empty() {
        return mag;
    }
    let mut out = vec![0; n as usize];
    out.extend(mag);
    out
}

/// `a * b` when either is NaN or infinite.
fn mul_special(a: &Numeric, b: &Numeric) -> Numeric {
    if a.is_nan() || b.is_nan() || a.is_zero() || b.is_zero() {
        return Numeric::nan();
    }
    if a.is_negative() != b.is_negative() {
        Numeric::special(NumericKind::NegInf)
    } else {
        Numeric::special(NumericKind::PosInf)
    }
}

/// `a / b` when either is NaN or infinite; `Ok(None)` when both are finite.
fn div_special(a: &Numeric, b: &Numeric) -> Result<Option<Numeric>> {
    if a.is_finite() && b.is_finite() {
        return Ok(None);
    }
    if a.is_nan() || b.is_nan() {
        return Ok(Some(Numeric::nan()));
    }
    if !a.is_finite() {
        if !b.is_finite() {
            return Ok(Some(Numeric::nan()));
        }
        if b.is_zero() {
            return Err(TypeError::division_by_zero());
        }
        return Ok(Some(mul_special(a, b)));
    }
    // Finite divided by an infinity: PostgreSQL returns zero, not an underflow.
    Ok(Some(Numeric::zero()))
}

/// PostgreSQL's `select_div_scale`: the display scale of `a / b`.
pub(crate) fn select_div_scale(a: &Numeric, b: &Numeric) -> i32 {
    let (w1, d1) = a.digits.first().map_or((0, 0), |&d| (a.weight, d));
    let (w2, d2) = b.digits.first().map_or((0, 0), |&d| (b.weight, d));
    let mut qweight = w1 - w2;
    if d1 <= d2 {
        qweight -= 1;
    }
    (MIN_SIG_DIGITS - qweight * 4).max(a.dscale).max(b.dscale).clamp(0, MAX_DISPLAY_SCALE)
}

/// `a / b` to `rscale` decimals, rounded half away from zero or truncated;
/// both finite, `b` non-zero.
pub(crate) fn divide(a: &Numeric, b: &Numeric, rscale: i32, round: bool) -> Numeric {
    let (ma, ea) = a.mag();
    let (mb, eb) = b.mag();
    let neg = a.neg != b.neg;
    // a/b × 10^rscale = ma/mb × 10^k with k = 4(ea - eb) + rscale.
    let k = 4 * i64::from(ea - eb) + i64::from(rscale);
    let (num, den) = if k >= 0 {
        (digits::shift_decimal(&ma, k as usize), mb)
    } else {
        (ma, digits::shift_decimal(&mb, (-k) as usize))
    };
    let (mut q, r) = digits::divmod(&num, &den);
    if round && digits::cmp(&digits::mul_small(&r, 2), &den) != Ordering::Less {
        q = digits::add(&q, &[1]);
    }
    // q × 10^-rscale: pad the decimal shift up to a whole number of digits.
    let pad = (4 - rscale.rem_euclid(4)) % 4;
    let q = digits::shift_decimal(&q, pad as usize);
    let exp = -(rscale + pad) / 4;
    Numeric::from_mag(neg, q, exp, rscale.max(0))
}
