//! `numeric`: PostgreSQL's arbitrary-precision decimal.
//!
//! A finite numeric is a sign, a sequence of base-10000 digits with the weight
//! (power of 10000) of the first one, and a *display scale*: the number of
//! decimal digits after the point that the value prints with. `1.50` and `1.5`
//! are equal but print differently because their display scales differ — this is
//! why `avg()` of integers prints `500000.500000000000`: division chooses its
//! result scale by PostgreSQL's `select_div_scale` rule, and every operator here
//! follows PostgreSQL's scale rules exactly, because the printed text is part of
//! the behaviour users see.
//!
//! Besides finite values there are `NaN`, `Infinity` and `-Infinity` (the latter
//! two since PostgreSQL 14). NaN sorts above everything, including Infinity, and
//! equals itself, so that B-trees and sorting work.
//!
//! Layout of the module:
//! * `digits.rs` — unsigned big-integer arithmetic on base-10000 magnitudes;
//! * `io.rs` — text input and output, typmod (`numeric(p,s)`) coercion;
//! * `arith.rs` — `+ - * / %`, rounding and truncation with PostgreSQL's scales;
//! * `transcendental.rs` — `sqrt`, `exp`, `ln`, `power`;
//! * `convert.rs` — conversions to and from integers and floats.
//!
//! Invariant: `digits` never has leading or trailing zero digits, zero has no
//! digits and is never negative, and `weight`/`dscale` stay within PostgreSQL's
//! limits (checked by `Numeric::checked`).

mod arith;
mod convert;
pub(crate) mod digits;
mod io;
mod transcendental;

use std::cmp::Ordering;

use crate::error::{Result, TypeError};
use digits::Mag;

pub use io::{apply_typmod, parse, parse_prefix_len};

/// Largest display scale an operator will produce (PostgreSQL's
/// NUMERIC_MAX_DISPLAY_SCALE).
pub const MAX_DISPLAY_SCALE: i32 = 1000;
/// Minimum number of significant digits that division and functions aim for
/// (PostgreSQL's NUMERIC_MIN_SIG_DIGITS).
pub const MIN_SIG_DIGITS: i32 = 16;
/// Largest base-10000 weight a stored numeric can have.
const MAX_WEIGHT: i32 = i16::MAX as i32;
/// Smallest base-10000 weight a stored numeric can have.
const MIN_WEIGHT: i32 = i16::MIN as i32;
/// Largest display scale a stored numeric can have (NUMERIC_DSCALE_MAX).
pub const MAX_DSCALE: i32 = 0x3FFF;

/// Which kind of numeric value this is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NumericKind {
    /// An ordinary number.
    Finite,
    /// Not-a-number, which sorts above everything else.
    NaN,
    /// `Infinity`.
    PosInf,
    /// `-Infinity`.
    NegInf,
}

/// An arbitrary-precision decimal number (PostgreSQL's `numeric`).
#[derive(Clone, Debug)]
pub struct Numeric {
    /// Finite, NaN or an infinity.
    pub(crate) kind: NumericKind,
    /// Sign of a finite value; false for zero.
    pub(crate) neg: bool,
    /// Power of 10000 of `digits[0]`.
    pub(crate) weight: i32,
    /// Decimal digits after the point shown on output.
    pub(crate) dscale: i32,
    /// Base-10000 digits, most significant first, without leading or trailing zeros.
    pub(crate) digits: Vec<u16>,
}

impl Numeric {
    /// Zero with display scale 0.
    pub fn zero() -> Numeric {
        Numeric { kind: NumericKind::Finite, neg: false, weight: 0, dscale: 0, digits: vec![] }
    }

    /// The special value `kind` (NaN or an infinity).
    pub fn special(kind: NumericKind) -> Numeric {
        Numeric { kind, ..Numeric::zero() }
    }

    /// `NaN`.
    pub fn nan() -> Numeric {
        Numeric::special(NumericKind::NaN)
    }

    /// An integer value with display scale 0.
    pub fn from_i128(v: i128) -> Numeric {
        Numeric::from_mag(v < 0, digits::from_u128(v.unsigned_abs()), 0, 0)
    }

    /// An integer value with display scale 0.
    pub fn from_i64(v: i64) -> Numeric {
        Numeric::from_i128(v.into())
    }

    /// Build a finite value `±mag × 10000^exp` printed with `dscale` decimals.
    pub(crate) fn from_mag(neg: bool, mag: Mag, exp: i32, dscale: i32) -> Numeric {
        let lead = mag.iter().take_while(|&&d| d == 0).count();
        let mag = digits::trim(mag);
        if lead >= mag.len() {
            return Numeric { dscale: dscale.max(0), ..Numeric::zero() };
        }
        let digits: Vec<u16> = mag[lead..].iter().rev().map(|&d| d as u16).collect();
        let weight = exp + lead as i32 + digits.len() as i32 - 1;
        Numeric { kind: NumericKind::Finite, neg, weight, dscale: dscale.max(0), digits }
    }

    /// The magnitude little-endian with the exponent of its lowest digit.
    pub(crate) fn mag(&self) -> (Mag, i32) {
        let mag: Mag = self.digits.iter().rev().map(|&d| u32::from(d)).collect();
        (mag, self.weight - self.digits.len() as i32 + 1)
    }

    /// Which kind of value this is.
    pub fn kind(&self) -> NumericKind {
        self.kind
    }

    /// Whether this is NaN.
    pub fn is_nan(&self) -> bool {
        self.kind == NumericKind::NaN
    }

    /// Whether this is finite (not NaN, not infinite).
    pub fn is_finite(&self) -> bool {
        self.kind == NumericKind::Finite
    }

    /// Whether this is a finite zero.
    pub fn is_zero(&self) -> bool {
        self.is_finite() && self.digits.is_empty()
    }

    /// Whether this is below zero (including -Infinity).
    pub fn is_negative(&self) -> bool {
        self.kind == NumericKind::NegInf || (self.is_finite() && self.neg)
    }

    /// The display scale.
    pub fn dscale(&self) -> i32 {
        self.dscale
    }

    /// Base-10000 weight of the first digit (meaningful for finite non-zero values).
    pub fn weight(&self) -> i32 {
        self.weight
    }

    /// The base-10000 digits, most significant first.
    pub fn digits(&self) -> &[u16] {
        &self.digits
    }

    /// Reassemble a numeric from its parts as found on the wire or on disk,
    /// normalising away leading and trailing zero digits.
    pub(crate) fn from_parts(neg: bool, weight: i32, dscale: i32, digits: &[u16]) -> Numeric {
        let mag: Mag = digits.iter().rev().map(|&d| u32::from(d)).collect();
        let exp = weight - digits.len() as i32 + 1;
        let n = Numeric::from_mag(neg, mag, exp, dscale);
        Numeric { neg: neg && !n.digits.is_empty(), ..n }
    }

    /// This value with the sign flipped.
    pub fn neg(&self) -> Numeric {
        match self.kind {
            NumericKind::PosInf => Numeric::special(NumericKind::NegInf),
            NumericKind::NegInf => Numeric::special(NumericKind::PosInf),
            NumericKind::NaN => self.clone(),
            NumericKind::Finite => {
                Numeric { neg: !self.neg && !self.digits.is_empty(), ..self.clone() }
            }
        }
    }

    /// Absolute value.
    pub fn abs(&self) -> Numeric {
        if self.is_negative() {
            self.neg()
        } else {
            self.clone()
        }
    }

    /// `sign()`: -1, 0 or 1 with display scale 0, NaN for NaN.
    pub fn signum(&self) -> Numeric {
        match self.kind {
            NumericKind::NaN => Numeric::nan(),
            _ if self.is_zero() => Numeric::zero(),
            _ if self.is_negative() => Numeric::from_i64(-1),
            _ => Numeric::from_i64(1),
        }
    }

    /// Check PostgreSQL's storage limits on weight and scale.
    pub(crate) fn checked(self) -> Result<Numeric> {
        if self.is_finite()
            && !self.digits.is_empty()
            && (self.weight > MAX_WEIGHT || self.weight < MIN_WEIGHT)
        {
            return Err(TypeError::numeric_overflow());
        }
        if self.dscale > MAX_DSCALE {
            return Err(TypeError::numeric_overflow());
        }
        Ok(self)
    }

    /// Total order: -Infinity < finite values < Infinity < NaN; scale ignored.
    pub fn cmp_total(&self, other: &Numeric) -> Ordering {
        let rank = |n: &Numeric| match n.kind {
            NumericKind::NegInf => 0,
            NumericKind::Finite => 1,
            NumericKind::PosInf => 2,
            NumericKind::NaN => 3,
        };
        match rank(self).cmp(&rank(other)) {
            Ordering::Equal if self.is_finite() => self.cmp_finite(other),
            ord => ord,
        }
    }

    /// Compare two finite values.
    fn cmp_finite(&self, other: &Numeric) -> Ordering {
        let sign = |n: &Numeric| {
            if n.digits.is_empty() {
                0
            } else if n.neg {
                -1
            } else {
                1
            }
        };
        match sign(self).cmp(&sign(other)) {
            Ordering::Equal => {}
            ord => return ord,
        }
        let mag_order = self.cmp_abs(other);
        if self.neg {
            mag_order.reverse()
        } else {
            mag_order
        }
    }

    /// Compare absolute values of two finite numbers.
    pub(crate) fn cmp_abs(&self, other: &Numeric) -> Ordering {
        match (self.digits.is_empty(), other.digits.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        self.weight.cmp(&other.weight).then_with(|| self.digits.cmp(&other.digits))
    }

    /// Whether the value has no fractional part (finite values only).
    pub fn is_integral(&self) -> bool {
        self.is_finite() && (self.digits.len() as i32) <= self.weight + 1
    }
}

impl PartialEq for Numeric {
    fn eq(&self, other: &Numeric) -> bool {
        self.cmp_total(other) == Ordering::Equal
    }
}

impl std::fmt::Display for Numeric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&io::output(self))
    }
}

#[cfg(test)]
mod tests;
