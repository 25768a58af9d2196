//! Crate-level tests: golden tables checked against PostgreSQL 15, round
//! trips through every encoding, and a no-panic fuzz loop over every parser.
//!
//! Golden rows were produced by running the same input through a local
//! PostgreSQL 15 with psql (`TimeZone = UTC`), so a failing row means sluice
//! prints something PostgreSQL does not.

mod agg;
mod arrays;
mod casts;
mod fuzz;
mod io_golden;
mod ops_golden;
mod roundtrip;

use crate::cast::apply_target_typmod;
use crate::error::TypeError;
use crate::types::{char_typmod, interval_typmod, numeric_typmod, SqlType};
use crate::{io, Context};

/// Parse a SQL type spelling with modifier, e.g. `numeric(5,2)`,
/// `character varying(3)`, `timestamp(0)`, `numeric(3,1)[]`, into a type and
/// typmod (an array's typmod is its element's).
pub fn type_spec(spec: &str) -> (SqlType, i32) {
    let (base, args) = match spec.find('(') {
        Some(p) => {
            let close = spec.find(')').expect("closing parenthesis");
            let rest = spec[close + 1..].trim();
            (
                format!("{}{}{}", spec[..p].trim(), if rest.is_empty() { "" } else { " " }, rest),
                Some(&spec[p + 1..close]),
            )
        }
        None => (spec.to_string(), None),
    };
    let ty = SqlType::from_name(&base).unwrap_or_else(|| panic!("unknown type {spec}"));
    let Some(args) = args else { return (ty, -1) };
    let nums: Vec<i32> =
        args.split(',').map(|a| a.trim().parse().expect("typmod number")).collect();
    let typmod = match ty.element().unwrap_or(ty) {
        SqlType::Numeric => numeric_typmod(nums[0], nums.get(1).copied().unwrap_or(0)),
        SqlType::Varchar | SqlType::Bpchar => char_typmod(nums[0]),
        SqlType::Interval => interval_typmod(nums[0]),
        _ => nums[0],
    };
    (ty, typmod)
}

/// The output of `'input'::spec` as PostgreSQL evaluates a literal cast:
/// input without typmod, then an explicit length coercion.
pub fn cast_literal(spec: &str, input: &str) -> Result<String, TypeError> {
    let ctx = Context::default();
    let (ty, typmod) = type_spec(spec);
    let d = io::parse(ty, input, -1, &ctx)?;
    let d = apply_target_typmod(d, ty, typmod, true)?;
    Ok(io::output(&d, &ctx).unwrap_or_default())
}

/// Render an error as the golden tables spell it: `ERR:SQLSTATE: message`.
pub fn render_err(e: &TypeError) -> String {
    format!("ERR:{}: {}", e.sqlstate(), e.message)
}

/// Compare rows of (label, got, want) and fail listing every mismatch.
pub fn check_all(rows: impl IntoIterator<Item = (String, String, String)>) {
    let mut failures = Vec::new();
    let mut n = 0;
    for (label, got, want) in rows {
        n += 1;
        if got != want {
            failures.push(format!("{label}\n    got:  {got}\n    want: {want}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n} rows differ from PostgreSQL:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
