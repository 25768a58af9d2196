//! `sqrt`, `exp`, `ln` and `power` on `numeric`.
//!
//! Result scales follow PostgreSQL 15 (`numeric_sqrt`, `power_var`): enough
//! decimals for at least 16 significant digits, never fewer than the inputs'
//! scales. The values themselves are computed to more digits than the result
//! keeps and then rounded once, so they are the correctly rounded result; in
//! the rare case PostgreSQL's own (slightly less careful) algorithm rounds the
//! last digit differently, sluice's digit is the true one.
//!
//! `sqrt` is exact: an integer square root of the scaled value. `exp` and
//! `ln` use argument reduction (halving / repeated square roots) and Taylor
//! series at a working precision chosen from the number of reduction steps.

use super::digits;
use super::{Numeric, NumericKind, MAX_DISPLAY_SCALE, MIN_SIG_DIGITS};
use crate::error::{ErrorKind, Result, TypeError};

/// Extra decimals carried through multi-step calculations.
const GUARD: i32 = 8;

/// Largest |x| for which `exp(x)` may be representable (PostgreSQL's
/// NUMERIC_MAX_RESULT_SCALE × 3).
const MAX_EXP_ARG: f64 = 6000.0;

impl Numeric {
    /// Square root with PostgreSQL's result scale.
    pub fn sqrt(&self) -> Result<Numeric> {
        match self.kind {
            NumericKind::NaN | NumericKind::PosInf => return Ok(self.clone()),
            _ if self.is_negative() => {
                return Err(TypeError::new(
                    ErrorKind::InvalidArgumentForPowerFunction,
                    "cannot take square root of a negative number",
                ))
            }
            _ => {}
        }
        let weight = if self.digits.is_empty() { 0 } else { self.weight };
        let sweight = (weight + 1) * 4 / 2 - 1;
        let rscale = (MIN_SIG_DIGITS - sweight).max(self.dscale).clamp(0, MAX_DISPLAY_SCALE);
        Ok(sqrt_scaled(self, rscale))
    }

    /// `e^self` with PostgreSQL's `numeric_exp` result scale.
    pub fn exp(&self) -> Result<Numeric> {
        match self.kind {
            NumericKind::NaN | NumericKind::PosInf => return Ok(self.clone()),
            NumericKind::NegInf => return Ok(Numeric::zero()),
            NumericKind::Finite => {}
        }
        let dweight =
            (self.to_f64_approx() * std::f64::consts::LOG10_E).clamp(-2000.0, 2000.0) as i32;
        let rscale = (MIN_SIG_DIGITS - dweight).max(self.dscale).clamp(0, MAX_DISPLAY_SCALE);
        exp_scaled(self, rscale)
    }

    /// Natural logarithm with PostgreSQL's `numeric_ln` result scale.
    pub fn ln(&self) -> Result<Numeric> {
        check_log_arg(self)?;
        if !self.is_finite() {
            return Ok(self.clone());
        }
        let ln_dweight = estimate_ln_dweight(self);
        let rscale = (MIN_SIG_DIGITS - ln_dweight).max(self.dscale).clamp(0, MAX_DISPLAY_SCALE);
        Ok(ln_scaled(self, rscale))
    }

    /// `self ^ exponent` as PostgreSQL 15's `numeric_power`.
    pub fn power(&self, exponent: &Numeric) -> Result<Numeric> {
        if let Some(special) = power_special(self, exponent)? {
            return Ok(special);
        }
        if self.is_zero() && exponent.is_negative() {
            return Err(power_error("zero raised to a negative power is undefined"));
        }
        if self.is_negative() && !exponent.is_integral() {
            return Err(power_error(
                "a negative number raised to a non-integer power yields a complex result",
            ));
        }
        if exponent.is_integral() && self.abs() == Numeric::from_i64(1) {
            // (±1) ^ n for any integer n, however large: the sign follows the
            // parity (PostgreSQL special-cases this too; the general path
            // would divide by a zero-length logarithm).
            let odd = !exponent.modulo(&Numeric::from_i64(2))?.is_zero();
            let one = if self.is_negative() && odd {
                Numeric::from_i64(-1)
            } else {
                Numeric::from_i64(1)
            };
            return Ok(Numeric { dscale: MIN_SIG_DIGITS, ..one });
        }
        if let Some(e) = exponent.is_integral().then(|| exponent.to_i128()).flatten() {
            if let Ok(e) = i32::try_from(e) {
                let rscale = MIN_SIG_DIGITS.max(self.dscale).clamp(0, MAX_DISPLAY_SCALE);
                return power_int(self, e, rscale)?.checked();
            }
        }
        if self.is_zero() {
            return Ok(Numeric { dscale: MIN_SIG_DIGITS, ..Numeric::zero() });
        }
        power_general(self, exponent)?.checked()
    }

    /// A rough `f64` value, for choosing scales; saturates to ±infinity.
    pub(crate) fn to_f64_approx(&self) -> f64 {
        match self.kind {
            NumericKind::NaN => f64::NAN,
            NumericKind::PosInf => f64::INFINITY,
            NumericKind::NegInf => f64::NEG_INFINITY,
            NumericKind::Finite => {
                let lead =
                    self.digits.iter().take(4).fold(0f64, |acc, &d| acc * 1e4 + f64::from(d));
                let used = self.digits.len().min(4) as i32;
                let v = lead * 10f64.powi(4 * (self.weight - used + 1));
                if self.neg {
                    -v
                } else {
                    v
                }
            }
        }
    }

    /// Decimal exponent of the leading digit: 10^w ≤ |self| < 10^(w+1).
    pub(crate) fn decimal_weight(&self) -> i32 {
        let lead = self.digits.first().copied().unwrap_or(0);
        let lead_len = if lead >= 1000 {
            4
        } else if lead >= 100 {
            3
        } else if lead >= 10 {
            2
        } else {
            1
        };
        self.weight * 4 + lead_len - 1
    }

    /// Round to `sig` significant digits (finite values).
    fn round_sig(&self, sig: i32) -> Numeric {
        if self.digits.is_empty() {
            return self.clone();
        }
        self.round_or_trunc(sig - 1 - self.decimal_weight(), true)
    }
}

/// A 2201F error.
fn power_error(msg: &str) -> TypeError {
    TypeError::new(ErrorKind::InvalidArgumentForPowerFunction, msg)
}

/// `ln`/`log` argument checks (2201E).
fn check_log_arg(x: &Numeric) -> Result<()> {
    if x.is_zero() {
        return Err(TypeError::new(
            ErrorKind::InvalidArgumentForLogarithm,
            "cannot take logarithm of zero",
        ));
    }
    if x.is_negative() {
        return Err(TypeError::new(
            ErrorKind::InvalidArgumentForLogarithm,
            "cannot take logarithm of a negative number",
        ));
    }
    Ok(())
}

/// Decimal weight of ln(x), estimated as PostgreSQL's `estimate_ln_dweight`
/// does (the result scales of `ln` and `power` depend on this exact estimate).
fn estimate_ln_dweight(x: &Numeric) -> i32 {
    let near_one = |lo: &str, hi: &str| {
        let lo = super::parse(lo, -1).unwrap_or_else(|_| Numeric::zero());
        let hi = super::parse(hi, -1).unwrap_or_else(|_| Numeric::zero());
        x.cmp_total(&lo).is_ge() && x.cmp_total(&hi).is_le()
    };
    if x.is_negative() || x.digits.is_empty() {
        return 0;
    }
    if near_one("0.9", "1.1") {
        // ln(1 + d) ≈ d: use the weight of x - 1.
        let d = super::arith::add_unchecked(x, &Numeric::from_i64(-1));
        return if d.digits.is_empty() { 0 } else { d.decimal_weight() };
    }
    let mut lead = f64::from(x.digits[0]);
    let mut dweight = x.weight * 4;
    if let Some(&second) = x.digits.get(1) {
        lead = lead * 1e4 + f64::from(second);
        dweight -= 4;
    }
    let ln = lead.ln() + f64::from(dweight) * std::f64::consts::LN_10;
    // C's (int) cast truncates toward zero.
    ln.abs().log10() as i32
}

/// log10 of a positive finite value from its leading digits (no overflow).
fn log10_approx(x: &Numeric) -> f64 {
    let lead = x.digits.iter().take(4).fold(0f64, |acc, &d| acc * 1e4 + f64::from(d));
    let used = x.digits.len().min(4) as i32;
    lead.log10() + f64::from(4 * (x.weight - used + 1))
}

/// Exact square root of a non-negative finite value, rounded to `rscale`.
fn sqrt_scaled(x: &Numeric, rscale: i32) -> Numeric {
    let (mag, exp) = x.mag();
    if mag.is_empty() {
        return Numeric { dscale: rscale, ..Numeric::zero() };
    }
    // Work with r extra-precise decimals: N = mag × 10^(4·exp + 2r) must be an
    // integer, and one digit beyond rscale decides the rounding.
    let mut r = rscale + 1;
    if 4 * exp + 2 * r < 0 {
        r = (-4 * exp + 1) / 2;
    }
    let n = digits::shift_decimal(&mag, (4 * exp + 2 * r) as usize);
    let root = isqrt(&n);
    let pad = (4 - r.rem_euclid(4)) % 4;
    let root = digits::shift_decimal(&root, pad as usize);
    Numeric::from_mag(false, root, -(r + pad) / 4, r).round_or_trunc(rscale, true)
}

/// Integer square root (floor) by Newton's iteration.
fn isqrt(n: &[u32]) -> digits::Mag {
    if n.is_empty() {
        return Vec::new();
    }
    // Start above the root: 10000^ceil(len/2) > sqrt(n).
    let mut x = vec![0; n.len().div_ceil(2)];
    x.push(1);
    loop {
        let (q, _) = digits::divmod(n, &x);
        let (y, _) = digits::divmod(&digits::add(&x, &q), &[2]);
        if digits::cmp(&y, &x) != std::cmp::Ordering::Less {
            return x;
        }
        x = y;
    }
}

/// `e^x` rounded to `rscale` decimals (x finite).
fn exp_scaled(x: &Numeric, rscale: i32) -> Result<Numeric> {
    let approx = x.to_f64_approx();
    if approx.abs() >= MAX_EXP_ARG {
        if approx > 0.0 {
            return Err(TypeError::numeric_overflow());
        }
        return Ok(Numeric { dscale: rscale, ..Numeric::zero() });
    }
    if x.is_negative() {
        // e^-y = 1 / e^y; computing e^y to rscale + 2 decimals is ample because
        // e^y ≥ 1 makes the reciprocal's absolute error no larger.
        let pos = exp_positive(&x.neg(), rscale + 2);
        return Numeric::from_i64(1).div_scaled(&pos, rscale);
    }
    Ok(exp_positive(x, rscale).round_or_trunc(rscale, true))
}

/// `e^x` for x ≥ 0 with absolute error below 10^-scale (a little beyond).
fn exp_positive(x: &Numeric, scale: i32) -> Numeric {
    // Halve x until it is below 0.01 so the series converges fast; each later
    // squaring doubles the relative error, so carry that many more digits,
    // plus the result's own integer digits.
    let mut halvings = 0;
    let mut approx = x.to_f64_approx();
    while approx >= 0.01 {
        approx /= 2.0;
        halvings += 1;
    }
    let result_digits = (x.to_f64_approx() * std::f64::consts::LOG10_E) as i32 + 1;
    let work = scale + result_digits + halvings / 3 + GUARD;
    let two_pow = Numeric::from_i128(1i128 << halvings.min(120));
    let mut y = super::arith::divide(x, &two_pow, work, true);
    for _ in 120..halvings {
        y = super::arith::divide(&y, &Numeric::from_i64(2), work, true);
    }
    let mut sum = Numeric::from_i64(1);
    let mut term = Numeric::from_i64(1);
    let mut k = 1;
    loop {
        term = super::arith::divide(&term.mul_exact(&y), &Numeric::from_i64(k), work, true);
        if term.is_zero() {
            break;
        }
        sum = super::arith::add_unchecked(&sum, &term);
        k += 1;
    }
    for _ in 0..halvings {
        sum = sum.mul_exact(&sum).round_or_trunc(work, true);
    }
    sum
}

/// `ln(x)` rounded to `rscale` decimals (x positive, finite).
fn ln_scaled(x: &Numeric, rscale: i32) -> Numeric {
    ln_work(x, rscale + GUARD).round_or_trunc(rscale, true)
}

/// `ln(x)` with absolute error well below 10^-scale.
fn ln_work(x: &Numeric, scale: i32) -> Numeric {
    // Take square roots until x is within 1% of one; ln x = 2^k ln(x^(1/2^k)).
    let ln_est = log10_approx(x).abs() * std::f64::consts::LN_10;
    let mut roots = 0;
    let mut est = ln_est;
    while est > 0.01 {
        est /= 2.0;
        roots += 1;
    }
    let work = scale + roots / 3 + GUARD + 2;
    let mut v = x.clone();
    for _ in 0..roots {
        v = sqrt_scaled(&v, work);
    }
    // ln v = 2 atanh(z) = 2 (z + z^3/3 + z^5/5 + ...), z = (v - 1) / (v + 1).
    let one = Numeric::from_i64(1);
    let num = super::arith::add_unchecked(&v, &one.neg());
    let den = super::arith::add_unchecked(&v, &one);
    let z = super::arith::divide(&num, &den, work, true);
    let z2 = z.mul_exact(&z).round_or_trunc(work, true);
    let mut sum = z.clone();
    let mut power = z;
    let mut k = 3;
    loop {
        power = power.mul_exact(&z2).round_or_trunc(work, true);
        let term = super::arith::divide(&power, &Numeric::from_i64(k), work, true);
        if term.is_zero() {
            break;
        }
        sum = super::arith::add_unchecked(&sum, &term);
        k += 2;
    }
    let factor = Numeric::from_i128(2i128 << roots.min(120));
    sum.mul_exact(&factor)
}

/// Results of `power` involving NaN or infinities (PostgreSQL 14+ rules);
/// `Ok(None)` when both inputs are finite.
fn power_special(x: &Numeric, y: &Numeric) -> Result<Option<Numeric>> {
    let one = Numeric::from_i64(1);
    if x.is_nan() {
        return Ok(Some(if y.is_zero() { one } else { Numeric::nan() }));
    }
    if y.is_nan() {
        return Ok(Some(if x.is_finite() && x == &one { one } else { Numeric::nan() }));
    }
    if x.is_finite() && y.is_finite() {
        return Ok(None);
    }
    if y.is_zero() || (x.is_finite() && x == &one) {
        return Ok(Some(one));
    }
    if x.is_zero() && y.is_negative() {
        return Err(power_error("zero raised to a negative power is undefined"));
    }
    if x.is_finite() && x.is_negative() && y.is_finite() && !y.is_integral() {
        return Err(power_error(
            "a negative number raised to a non-integer power yields a complex result",
        ));
    }
    let inf =
        |neg: bool| Numeric::special(if neg { NumericKind::NegInf } else { NumericKind::PosInf });
    if !x.is_finite() {
        if y.is_negative() {
            return Ok(Some(Numeric::zero()));
        }
        let odd = y.is_integral() && !y.modulo(&Numeric::from_i64(2))?.is_zero();
        return Ok(Some(inf(x.is_negative() && odd)));
    }
    // x finite, y = ±Infinity.
    let cmp = x.abs().cmp_total(&one);
    let result = match (cmp, y.is_negative()) {
        (std::cmp::Ordering::Equal, _) => one,
        (std::cmp::Ordering::Less, false) | (std::cmp::Ordering::Greater, true) => Numeric::zero(),
        _ => inf(false),
    };
    Ok(Some(result))
}

/// `x ^ e` for an integer exponent, rounded to `rscale` (PostgreSQL's
/// `power_var_int`, with correctly rounded results).
fn power_int(x: &Numeric, e: i32, rscale: i32) -> Result<Numeric> {
    let one = Numeric::from_i64(1);
    if e == 0 {
        return Ok(Numeric { dscale: rscale, ..one });
    }
    if x.is_zero() {
        return Ok(Numeric { dscale: rscale, ..Numeric::zero() });
    }
    let f = f64::from(e) * log10_approx(x);
    if f > f64::from(3 * i16::MAX as i32 * 4) {
        return Err(TypeError::numeric_overflow());
    }
    if f + 1.0 < f64::from(-rscale) || f + 1.0 < f64::from(-MAX_DISPLAY_SCALE) {
        return Ok(Numeric { dscale: rscale, ..Numeric::zero() });
    }
    let exp_digits = (f64::from(e.unsigned_abs()).log10() as i32) + 1;
    if e > 0 {
        let sig = (rscale + f as i32).max(0) + exp_digits + GUARD;
        return Ok(pow_sig(x, e.unsigned_abs(), sig).round_or_trunc(rscale, true));
    }
    let sig = (rscale + f as i32).max(0) + exp_digits + GUARD;
    let p = pow_sig(x, e.unsigned_abs(), sig);
    one.div_scaled(&p, rscale)
}

/// `x ^ n` by repeated squaring, keeping `sig` significant digits (exact when
/// the exact result is small enough to be cheap).
fn pow_sig(x: &Numeric, n: u32, sig: i32) -> Numeric {
    let mut result = Numeric::from_i64(1);
    let mut base = x.clone();
    let mut n = n;
    while n > 0 {
        if n & 1 == 1 {
            result = result.mul_exact(&base).round_sig(sig);
        }
        n >>= 1;
        if n > 0 {
            base = base.mul_exact(&base).round_sig(sig);
        }
    }
    result
}

/// `x ^ y` for non-integer `y` via `exp(y · ln x)` (PostgreSQL 15 `power_var`).
fn power_general(x: &Numeric, y: &Numeric) -> Result<Numeric> {
    let ln_dweight = estimate_ln_dweight(x);
    let probe = (8 - ln_dweight).clamp(0, MAX_DISPLAY_SCALE);
    let ln_num = ln_work(x, probe).mul_exact(y);
    let val = ln_num.to_f64_approx();
    if val.abs() > 2000.0 * 3.01 {
        if val > 0.0 {
            return Err(TypeError::numeric_overflow());
        }
        return Ok(Numeric { dscale: MAX_DISPLAY_SCALE, ..Numeric::zero() });
    }
    let val = val * std::f64::consts::LOG10_E;
    let rscale =
        (MIN_SIG_DIGITS - val as i32).max(x.dscale).max(y.dscale).clamp(0, MAX_DISPLAY_SCALE);
    let sig_digits = (rscale + val as i32).max(0);
    // The product's absolute error becomes the result's relative error, and
    // multiplying by y scales ln's error by |y|: carry y's digits too.
    let y_digits = if y.digits.is_empty() { 0 } else { y.decimal_weight().max(0) };
    let work = (sig_digits + y_digits + GUARD).clamp(0, 4 * MAX_DISPLAY_SCALE);
    let product = ln_work(x, work + GUARD).mul_exact(y).round_or_trunc(work + GUARD, true);
    exp_scaled(&product, rscale)
}
