//! Conversions between `numeric` and the integer and floating-point types.
//!
//! These mirror PostgreSQL's casts exactly because their results are visible:
//! * numeric → integer rounds half away from zero, then range-checks;
//! * float → numeric goes through `%.15g` (`%.6g` for `real`) text, so
//!   `0.1::float8::numeric` is `0.1`, not the binary expansion of 0.1;
//! * numeric → float parses the decimal text, i.e. correctly rounded.

use super::digits;
use super::{Numeric, NumericKind};
use crate::error::{ErrorKind, Result, TypeError};

impl Numeric {
    /// The value as an integer if it is finite and integral and fits an `i128`.
    pub(crate) fn to_i128(&self) -> Option<i128> {
        if !self.is_integral() {
            return None;
        }
        let (mag, exp) = self.mag();
        let mag = digits::shift_decimal(&mag, 4 * exp.max(0) as usize);
        let v = i128::try_from(digits::to_u128(&mag)?).ok()?;
        Some(if self.neg { -v } else { v })
    }

    /// Round half away from zero to an integer within `[min, max]`; errors use
    /// PostgreSQL's texts with `type_word` (`integer`, `bigint`, `smallint`).
    pub fn to_int_checked(&self, min: i64, max: i64, type_word: &str) -> Result<i64> {
        match self.kind {
            NumericKind::NaN => {
                return Err(TypeError::new(
                    ErrorKind::FeatureNotSupported,
                    format!("cannot convert NaN to {type_word}"),
                ))
            }
            NumericKind::PosInf | NumericKind::NegInf => {
                return Err(TypeError::new(
                    ErrorKind::FeatureNotSupported,
                    format!("cannot convert infinity to {type_word}"),
                ))
            }
            NumericKind::Finite => {}
        }
        let out_of_range = || TypeError::out_of_range(format!("{type_word} out of range"));
        if self.weight > 10 {
            return Err(out_of_range());
        }
        let v = self.round(0).to_i128().ok_or_else(out_of_range)?;
        if v < i128::from(min) || v > i128::from(max) {
            return Err(out_of_range());
        }
        Ok(v as i64)
    }

    /// The nearest `f64` (infinite if the value exceeds the `f64` range, as
    /// `numeric::float8` reports it as an error at the caller's choice).
    pub fn to_f64(&self) -> f64 {
        match self.kind {
            NumericKind::NaN => f64::NAN,
            NumericKind::PosInf => f64::INFINITY,
            NumericKind::NegInf => f64::NEG_INFINITY,
            NumericKind::Finite => self.to_string().parse().unwrap_or(f64::NAN),
        }
    }

    /// The value as `double precision`, with PostgreSQL's out-of-range error.
    pub fn to_f64_checked(&self) -> Result<f64> {
        let v = self.to_f64();
        if self.is_finite() && (v.is_infinite() || (v == 0.0 && !self.is_zero())) {
            return Err(TypeError::float_input_out_of_range(&self.to_string(), "double precision"));
        }
        Ok(v)
    }

    /// The value as `real`, with PostgreSQL's out-of-range error.
    pub fn to_f32_checked(&self) -> Result<f32> {
        let text = self.to_string();
        let v: f32 = match self.kind {
            NumericKind::Finite => text.parse().unwrap_or(f32::NAN),
            _ => self.to_f64() as f32,
        };
        if self.is_finite() && (v.is_infinite() || (v == 0.0 && !self.is_zero())) {
            return Err(TypeError::float_input_out_of_range(&text, "real"));
        }
        Ok(v)
    }

    /// `float8::numeric`: the value printed with 15 significant digits.
    pub fn from_f64(v: f64) -> Numeric {
        from_float_text(v, 15)
    }

    /// `float4::numeric`: the value printed with 6 significant digits.
    pub fn from_f32(v: f32) -> Numeric {
        from_float_text(f64::from(v), 6)
    }
}

/// Convert through `%.{digits}g` text, as PostgreSQL's float-to-numeric casts do.
fn from_float_text(v: f64, digits: usize) -> Numeric {
    if v.is_nan() {
        return Numeric::nan();
    }
    if v.is_infinite() {
        let kind = if v > 0.0 { NumericKind::PosInf } else { NumericKind::NegInf };
        return Numeric::special(kind);
    }
    let sci = format!("{:.*e}", digits - 1, v);
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    // %g drops trailing zeros of the fraction; so must we, since they would
    // otherwise become display scale.
    let mantissa = if mantissa.contains('.') {
        mantissa.trim_end_matches('0').trim_end_matches('.')
    } else {
        mantissa
    };
    super::parse(&format!("{mantissa}e{exponent}"), -1).unwrap_or_else(|_| Numeric::nan())
}
