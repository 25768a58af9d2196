//! Aggregate transition states for `count`, `sum`, `avg`, `min`, `max` and
//! `array_agg`.
//!
//! The executor creates one [`AggState`] per group, feeds it each input value
//! with [`AggState::advance`] and reads the result with [`AggState::finish`].
//! Result types and arithmetic are PostgreSQL's, because they are visible:
//! * `sum(smallint|integer)` is `bigint` (overflow: `bigint out of range`);
//! * `sum(bigint)` and `avg` of any integer are `numeric`, accumulated exactly
//!   in 128 bits; `avg` divides with numeric's `select_div_scale`, so
//!   `avg(1..1000000)` prints `500000.500000000000`;
//! * `sum(real)` is `real`, `sum(double precision)` and `avg` of either
//!   are `double precision`, with PostgreSQL's overflow checks;
//! * `sum`/`avg` of `numeric` and `interval` stay in their type;
//! * `min`/`max` work on any ordered type; NULL inputs are skipped, and an
//!   empty group gives NULL (`count` gives 0);
//! * `array_agg(x)` collects every input, NULLs included, into a
//!   one-dimensional `x[]` (NULL for an empty group); arrays of arrays, which
//!   PostgreSQL makes multidimensional, are refused with `0A000`.

use crate::array::Array;
use crate::compare::cmp_typed;
use crate::datetime::Interval;
use crate::datum::Datum;
use crate::error::{ErrorKind, Result, TypeError};
use crate::float::{self, FloatOp};
use crate::int::IntWidth;
use crate::numeric::Numeric;
use crate::types::{format_type, ElemType, SqlType};

/// Which aggregate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggKind {
    /// `count(*)`: every row.
    CountStar,
    /// `count(x)`: non-null values.
    Count,
    /// `sum(x)`.
    Sum,
    /// `avg(x)`.
    Avg,
    /// `min(x)`.
    Min,
    /// `max(x)`.
    Max,
    /// `array_agg(x)`.
    ArrayAgg,
}

impl AggKind {
    /// The SQL function name.
    pub fn name(self) -> &'static str {
        match self {
            AggKind::CountStar | AggKind::Count => "count",
            AggKind::Sum => "sum",
            AggKind::Avg => "avg",
            AggKind::Min => "min",
            AggKind::Max => "max",
            AggKind::ArrayAgg => "array_agg",
        }
    }
}

/// The running state of one aggregate over one group.
#[derive(Clone, Debug)]
pub struct AggState {
    /// Which aggregate.
    kind: AggKind,
    /// The argument type.
    input: SqlType,
    /// Number of non-null values seen (rows, for `count(*)`).
    count: i64,
    /// Accumulated value.
    acc: Acc,
}

/// Accumulators by input family.
#[derive(Clone, Debug)]
enum Acc {
    /// Counting only.
    None,
    /// Exact integer sum.
    Int(i128),
    /// `sum(real)`: accumulated in single precision, as PostgreSQL's `float4pl`.
    Float4(f32),
    /// Double-precision sum (`sum(double precision)`, `avg` of either float).
    Float(f64),
    /// Numeric sum.
    Numeric(Numeric),
    /// Interval sum.
    Interval(Interval),
    /// Current minimum or maximum.
    Extreme(Option<Datum>),
    /// `array_agg`'s elements so far.
    Array(ElemType, Vec<Datum>),
}

impl AggState {
    /// A new state for `kind` over arguments of type `input`; PostgreSQL's
    /// `function sum(text) does not exist` for unsupported combinations.
    pub fn new(kind: AggKind, input: SqlType) -> Result<AggState> {
        use SqlType::*;
        let acc = match (kind, input) {
            (AggKind::CountStar | AggKind::Count, _) => Acc::None,
            (AggKind::ArrayAgg, SqlType::Array(_)) => return Err(crate::array::multidimensional()),
            (AggKind::ArrayAgg, _) => Acc::Array(
                ElemType::new(input).ok_or_else(|| no_function(kind, input))?,
                Vec::new(),
            ),
            (AggKind::Min | AggKind::Max, Jsonb) => return Err(no_function(kind, input)),
            (AggKind::Min | AggKind::Max, _) => Acc::Extreme(None),
            (AggKind::Sum | AggKind::Avg, Int2 | Int4 | Int8) => Acc::Int(0),
            (AggKind::Sum, Float4) => Acc::Float4(0.0),
            (AggKind::Sum | AggKind::Avg, Float4 | Float8) => Acc::Float(0.0),
            (AggKind::Sum | AggKind::Avg, Numeric) => Acc::Numeric(crate::numeric::Numeric::zero()),
            (AggKind::Sum | AggKind::Avg, Interval) => {
                Acc::Interval(crate::datetime::Interval::default())
            }
            _ => return Err(no_function(kind, input)),
        };
        Ok(AggState { kind, input, count: 0, acc })
    }

    /// The aggregate's result type.
    pub fn result_type(&self) -> SqlType {
        use SqlType::*;
        if let Acc::Array(elem, _) = &self.acc {
            return SqlType::Array(*elem);
        }
        match (self.kind, self.input) {
            (AggKind::CountStar | AggKind::Count, _) => Int8,
            (AggKind::Min | AggKind::Max, t) => t,
            (AggKind::Sum, Int2 | Int4) => Int8,
            (AggKind::Sum | AggKind::Avg, Int8) | (AggKind::Avg, Int2 | Int4) => Numeric,
            (AggKind::Sum, Float4) => Float4,
            (AggKind::Avg, Float4) | (_, Float8) => Float8,
            (_, t) => t,
        }
    }

    /// Feed one input value (for `count(*)`, one row; the value is ignored).
    pub fn advance(&mut self, d: &Datum) -> Result<()> {
        if self.kind == AggKind::CountStar {
            self.count += 1;
            return Ok(());
        }
        if let Acc::Array(_, elems) = &mut self.acc {
            self.count += 1;
            elems.push(d.clone());
            return Ok(());
        }
        if d.is_null() {
            return Ok(());
        }
        self.count += 1;
        let (kind, input) = (self.kind, self.input);
        match &mut self.acc {
            // array_agg took its value above, NULL or not.
            Acc::None | Acc::Array(..) => {}
            Acc::Int(sum) => {
                *sum += i128::from(d.as_i64().ok_or_else(|| wrong_input(d))?);
                if kind == AggKind::Sum && matches!(input, SqlType::Int2 | SqlType::Int4) {
                    IntWidth::I64.check(*sum)?;
                }
            }
            Acc::Float4(sum) => match d {
                Datum::Float4(v) => *sum = float::arith_f32(FloatOp::Add, *sum, *v)?,
                other => return Err(wrong_input(other)),
            },
            Acc::Float(sum) => {
                let v = match d {
                    Datum::Float4(v) => f64::from(*v),
                    Datum::Float8(v) => *v,
                    other => return Err(wrong_input(other)),
                };
                *sum = float::arith_f64(FloatOp::Add, *sum, v)?;
            }
            Acc::Numeric(sum) => match d {
                Datum::Numeric(n) => *sum = sum.add(n)?,
                other => return Err(wrong_input(other)),
            },
            Acc::Interval(sum) => match d {
                Datum::Interval(iv) => *sum = sum.add(iv)?,
                other => return Err(wrong_input(other)),
            },
            Acc::Extreme(best) => {
                let want = if kind == AggKind::Min {
                    std::cmp::Ordering::Less
                } else {
                    std::cmp::Ordering::Greater
                };
                if best.as_ref().is_none_or(|b| cmp_typed(input, d, b) == want) {
                    *best = Some(d.clone());
                }
            }
        }
        Ok(())
    }

    /// The aggregate's value for the rows fed so far.
    pub fn finish(&self) -> Result<Datum> {
        if matches!(self.kind, AggKind::Count | AggKind::CountStar) {
            return Ok(Datum::Int8(self.count));
        }
        if self.count == 0 {
            return Ok(Datum::Null);
        }
        let n = Numeric::from_i64(self.count);
        Ok(match (&self.acc, self.kind) {
            (Acc::Int(sum), AggKind::Sum) if self.input != SqlType::Int8 => {
                Datum::Int8(*sum as i64)
            }
            (Acc::Int(sum), AggKind::Sum) => Datum::Numeric(Numeric::from_i128(*sum)),
            (Acc::Int(sum), _) => Datum::Numeric(Numeric::from_i128(*sum).div(&n)?),
            (Acc::Float4(sum), _) => Datum::Float4(*sum),
            (Acc::Float(sum), AggKind::Sum) => Datum::Float8(*sum),
            (Acc::Float(sum), _) => Datum::Float8(*sum / self.count as f64),
            (Acc::Numeric(sum), AggKind::Sum) => Datum::Numeric(sum.clone()),
            (Acc::Numeric(sum), _) => Datum::Numeric(sum.div(&n)?),
            (Acc::Interval(sum), AggKind::Sum) => Datum::Interval(*sum),
            (Acc::Interval(sum), _) => Datum::Interval(sum.div(self.count as f64)?),
            (Acc::Extreme(best), _) => best.clone().unwrap_or(Datum::Null),
            (Acc::Array(elem, elems), _) => {
                Datum::Array(Box::new(Array::with_lower_bound(*elem, 1, elems.clone())?))
            }
            (Acc::None, _) => Datum::Null,
        })
    }
}

/// `function sum(text) does not exist` (42883).
fn no_function(kind: AggKind, input: SqlType) -> TypeError {
    TypeError::new(
        ErrorKind::UndefinedFunction,
        format!("function {}({}) does not exist", kind.name(), format_type(input, -1)),
    )
    .with_hint("No function matches the given name and argument types. You might need to add explicit type casts.")
}

/// A value of a type the state was not created for (a caller bug, reported
/// as an internal-ish data exception rather than a panic).
fn wrong_input(d: &Datum) -> TypeError {
    TypeError::new(ErrorKind::DataException, format!("unexpected aggregate input {d:?}"))
}
