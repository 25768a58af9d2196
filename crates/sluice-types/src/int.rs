//! `smallint`, `integer`, `bigint`: input, output and checked arithmetic.
//!
//! PostgreSQL 15's integer input (`pg_strtoint16/32/64`) accepts surrounding
//! whitespace, one optional sign and decimal digits — no underscores, no hex
//! (those arrived in PostgreSQL 16). Overflow during input is reported with
//! the input text (`value "99999999999" is out of range for type integer`);
//! overflow in arithmetic with a fixed text (`integer out of range`). The
//! result type of mixed-width arithmetic is the wider operand's type, as in
//! PostgreSQL's cross-type operators (`int48pl` and friends).

use crate::error::{Result, TypeError};

/// Which integer type a value or operation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IntWidth {
    /// `smallint`.
    I16,
    /// `integer`.
    I32,
    /// `bigint`.
    I64,
}

impl IntWidth {
    /// Smallest value of the type.
    pub fn min_value(self) -> i64 {
        match self {
            IntWidth::I16 => i16::MIN.into(),
            IntWidth::I32 => i32::MIN.into(),
            IntWidth::I64 => i64::MIN,
        }
    }

    /// Largest value of the type.
    pub fn max_value(self) -> i64 {
        match self {
            IntWidth::I16 => i16::MAX.into(),
            IntWidth::I32 => i32::MAX.into(),
            IntWidth::I64 => i64::MAX,
        }
    }

    /// The SQL name used in messages: `smallint`, `integer`, `bigint`.
    pub fn sql_name(self) -> &'static str {
        match self {
            IntWidth::I16 => "smallint",
            IntWidth::I32 => "integer",
            IntWidth::I64 => "bigint",
        }
    }

    /// `smallint out of range` and friends (22003).
    pub fn out_of_range(self) -> TypeError {
        TypeError::out_of_range(format!("{} out of range", self.sql_name()))
    }

    /// Check that `v` fits this type.
    pub fn check(self, v: i128) -> Result<i64> {
        if v < i128::from(self.min_value()) || v > i128::from(self.max_value()) {
            return Err(self.out_of_range());
        }
        Ok(v as i64)
    }
}

/// Parse integer text of the given width (PostgreSQL 15 rules).
pub fn parse(input: &str, width: IntWidth) -> Result<i64> {
    let bad = || TypeError::invalid_syntax(width.sql_name(), input);
    let s = input.as_bytes();
    let mut pos = s.iter().position(|&c| !crate::scan::is_space(c)).unwrap_or(s.len());
    let neg = crate::scan::sign(s, &mut pos);
    let start = pos;
    let mut value: i128 = 0;
    while pos < s.len() && s[pos].is_ascii_digit() {
        value = value * 10 + i128::from(s[pos] - b'0');
        // Accumulate as the negative magnitude's absolute value; the most
        // negative value is one larger than the largest positive.
        let limit =
            if neg { -i128::from(width.min_value()) } else { i128::from(width.max_value()) };
        if value > limit {
            return Err(TypeError::value_out_of_range(input, width.sql_name()));
        }
        pos += 1;
    }
    if pos == start || !s[pos..].iter().all(|&c| crate::scan::is_space(c)) {
        return Err(bad());
    }
    Ok(if neg { -value } else { value } as i64)
}

/// Integer arithmetic operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntOp {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`, truncating toward zero.
    Div,
    /// `%`, with the sign of the dividend.
    Mod,
}

/// `a op b` computed exactly, then range-checked for `width`.
pub fn arith(op: IntOp, a: i64, b: i64, width: IntWidth) -> Result<i64> {
    let (a, b) = (i128::from(a), i128::from(b));
    let v = match op {
        IntOp::Add => a + b,
        IntOp::Sub => a - b,
        IntOp::Mul => a * b,
        IntOp::Div | IntOp::Mod if b == 0 => return Err(TypeError::division_by_zero()),
        IntOp::Div => a / b,
        IntOp::Mod => a % b,
    };
    width.check(v)
}

/// Unary minus with overflow check.
pub fn negate(a: i64, width: IntWidth) -> Result<i64> {
    width.check(-i128::from(a))
}

/// `abs()` with overflow check.
pub fn abs(a: i64, width: IntWidth) -> Result<i64> {
    width.check(i128::from(a).abs())
}
