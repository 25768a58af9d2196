//! The numeric built-ins: rounding, `mod`, `power`, bitwise operators,
//! `cbrt`, `random`, `gen_random_uuid`, `pg_size_pretty`.
//!
//! Results must match PostgreSQL to the last bit, which is why `cbrt` is
//! glibc's algorithm rather than Rust's, and why integer shifts wrap their
//! count the way the C code behaves on x86. Randomness comes from the host,
//! so the session's generator governs it.

use sluice_types::funcs::{math, size};
use sluice_types::{Datum, Numeric};

use super::builtin::{arg, float, int, integer, unexpected, Builtin};
use super::EvalHost;
use crate::{Result, SqlError};

/// call -- computes a numeric built-in over non-null arguments.
pub(super) fn call(func: Builtin, args: &[Datum], host: &mut dyn EvalHost) -> Result<Datum> {
    use Builtin::*;
    Ok(match func {
        BitAnd | BitOr | BitXor | ShiftLeft | ShiftRight => bitwise(func, args)?,
        BitNot => bit_not(arg(args, 0)?)?,
        Power => math::power(arg(args, 0)?, arg(args, 1)?)?,
        Sqrt => math::sqrt(arg(args, 0)?)?,
        Cbrt => Datum::Float8(cbrt(float(args, 0)?)?),
        Round => math::round(arg(args, 0)?)?,
        Trunc => math::trunc(arg(args, 0)?)?,
        RoundScale | TruncScale => {
            let (n, scale) = (numeric(args, 0)?, int(args, 1)?);
            let scale = scale.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
            Datum::Numeric(if func == RoundScale { n.round(scale) } else { n.trunc(scale) })
        }
        Ceil => math::ceil(arg(args, 0)?)?,
        Floor => math::floor(arg(args, 0)?)?,
        Exp => math::exp(arg(args, 0)?)?,
        Ln => math::ln(arg(args, 0)?)?,
        Mod => math::modulo(arg(args, 0)?, arg(args, 1)?)?,
        Sign => math::sign(arg(args, 0)?)?,
        Div => Datum::Numeric(numeric(args, 0)?.div_trunc(numeric(args, 1)?)?),
        Pi => Datum::Float8(std::f64::consts::PI),
        Random => Datum::Float8(host.random()),
        GenRandomUuid => Datum::Uuid(random_uuid(host)),
        SizePretty => match arg(args, 0)? {
            Datum::Numeric(n) => Datum::Text(size::size_pretty_numeric(n)),
            other => Datum::Text(size::size_pretty(integer(other)?)),
        },
        other => return Err(SqlError::internal(format!("{other:?} is not a numeric function"))),
    })
}

/// `&`, `|`, `#`, `<<`, `>>` on integers of one width (shift counts are
/// `integer`); shifts wrap their count as the C code does on x86.
fn bitwise(func: Builtin, args: &[Datum]) -> Result<Datum> {
    let (a, b) = (arg(args, 0)?, integer(arg(args, 1)?)?);
    let apply = |x: i64, bits: u32| -> i64 {
        match func {
            Builtin::BitAnd => x & b,
            Builtin::BitOr => x | b,
            Builtin::BitXor => x ^ b,
            Builtin::ShiftLeft if bits == 64 => x.wrapping_shl(b as u32),
            Builtin::ShiftLeft => i64::from((x as i32).wrapping_shl(b as u32)),
            Builtin::ShiftRight if bits == 64 => x.wrapping_shr(b as u32),
            _ => i64::from((x as i32).wrapping_shr(b as u32)),
        }
    };
    Ok(match a {
        Datum::Int2(v) => Datum::Int2(apply(i64::from(*v), 16) as i16),
        Datum::Int4(v) => Datum::Int4(apply(i64::from(*v), 32) as i32),
        Datum::Int8(v) => Datum::Int8(apply(*v, 64)),
        other => return Err(unexpected(other)),
    })
}

/// Prefix `~`.
fn bit_not(a: &Datum) -> Result<Datum> {
    Ok(match a {
        Datum::Int2(v) => Datum::Int2(!v),
        Datum::Int4(v) => Datum::Int4(!v),
        Datum::Int8(v) => Datum::Int8(!v),
        other => return Err(unexpected(other)),
    })
}

/// `cbrt`, with PostgreSQL's overflow and underflow checks.
fn cbrt(x: f64) -> Result<f64> {
    let r = libm_cbrt(x);
    if r.is_infinite() && !x.is_infinite() {
        return Err(sluice_types::float::overflow_error().into());
    }
    if r == 0.0 && x != 0.0 {
        return Err(sluice_types::float::underflow_error().into());
    }
    Ok(r)
}

/// glibc's `cbrt` (`sysdeps/ieee754/dbl-64/s_cbrt.c`), which PostgreSQL
/// calls: a polynomial guess refined by one Halley step. It is not
/// correctly rounded (`cbrt(27)` is 3.0000000000000004), and Rust's own
/// `f64::cbrt` is, so the results would differ in the last bit.
fn libm_cbrt(x: f64) -> f64 {
    const CBRT2: f64 = 1.259_921_049_894_873_2;
    const SQR_CBRT2: f64 = 1.587_401_051_968_199_6;
    const FACTOR: [f64; 5] = [1.0 / SQR_CBRT2, 1.0 / CBRT2, 1.0, CBRT2, SQR_CBRT2];
    if x == 0.0 || !x.is_finite() {
        return x + x;
    }
    let (xm, xe) = frexp(x.abs());
    let u = 0.354_895_765_043_919_86
        + (1.508_191_937_815_849
            + (-2.114_994_941_673_713
                + (2.446_931_225_635_344_3
                    + (-1.834_692_774_836_130_8
                        + (0.784_932_344_976_639_2 - 0.145_263_899_385_486_37 * xm) * xm)
                        * xm)
                    * xm)
                * xm)
            * xm;
    let t2 = u * u * u;
    let ym = u * (t2 + 2.0 * xm) / (2.0 * t2 + xm) * FACTOR[(2 + xe % 3) as usize];
    let scaled = if x > 0.0 { ym } else { -ym };
    scaled * 2f64.powi(xe / 3)
}

/// C's `frexp` for finite non-zero `v`: a mantissa in [0.5, 1) and exponent.
fn frexp(v: f64) -> (f64, i32) {
    let bits = v.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        let (m, e) = frexp(v * 2f64.powi(54));
        return (m, e - 54);
    }
    let mantissa = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (mantissa, exp - 1022)
}

/// A version-4 UUID from the host's random numbers (32 bits per draw).
fn random_uuid(host: &mut dyn EvalHost) -> [u8; 16] {
    let mut u = [0u8; 16];
    for chunk in u.chunks_mut(4) {
        let draw = (host.random() * 4_294_967_296.0) as u32;
        chunk.copy_from_slice(&draw.to_be_bytes());
    }
    u[6] = (u[6] & 0x0f) | 0x40;
    u[8] = (u[8] & 0x3f) | 0x80;
    u
}

/// Argument `i` as a numeric.
fn numeric(args: &[Datum], i: usize) -> Result<&Numeric> {
    match arg(args, i)? {
        Datum::Numeric(n) => Ok(n),
        other => Err(unexpected(other)),
    }
}
