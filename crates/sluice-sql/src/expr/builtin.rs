//! The built-in operators and functions an [`Expr::Call`](super::Expr) can
//! run, and how each computes its value from evaluated arguments.
//!
//! A [`Builtin`] is the implementation behind one or more catalog entries:
//! `+` on any pair of numeric or date/time types is [`Builtin::Arith`], since
//! `sluice_types::ops` dispatches on the values; `abs(x)` and `@ x` share
//! [`Builtin::Abs`]. Analysis has coerced every argument to the entry's
//! declared type, so a value of an unexpected variant here is a bug, reported
//! as an internal error rather than a panic.
//!
//! Nearly all built-ins are *strict*: a NULL argument makes the result NULL
//! without calling them (PostgreSQL's `proisstrict`). The exceptions are the
//! functions whose point is to look at NULLs (`concat`, `num_nulls`) and
//! `set_config`, whose NULL value means "reset".

use std::cmp::Ordering;

use sluice_types::funcs::string::TrimSide;
use sluice_types::ops::{self, ArithOp, CmpOp};
use sluice_types::{compare, Datum, SqlType};

pub use super::arrays::Dimension;
use super::enums::{self, EnumFunc};
use super::{arrays, datetime, jsonb, like, math, regex, strings, typeinfo};
use super::{EvalHost, SessionFunction};
use crate::{Result, SqlError};
use sluice_types::enums::EnumType;

/// A built-in operator or function implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// `+ - * / %` on numbers and date/time values.
    Arith(ArithOp),
    /// Prefix `-`.
    Negate,
    /// Prefix `+`.
    UnaryPlus,
    /// `@ x`, `abs(x)`.
    Abs,
    /// `x ^ y`, `power(x, y)`.
    Power,
    /// `|/ x`, `sqrt(x)`.
    Sqrt,
    /// `||/ x`, `cbrt(x)`.
    Cbrt,
    /// `&` on integers.
    BitAnd,
    /// `|` on integers.
    BitOr,
    /// `#` on integers.
    BitXor,
    /// Prefix `~` on integers.
    BitNot,
    /// `<<` on integers.
    ShiftLeft,
    /// `>>` on integers.
    ShiftRight,
    /// A comparison operator.
    Compare(CmpOp, Comparison),
    /// `||` on text or bytea.
    Concat,
    /// `jsonb || jsonb`.
    JsonbConcat,
    /// `jsonb - text`.
    JsonbDeleteKey,
    /// `jsonb - integer`.
    JsonbDeleteIndex,
    /// `jsonb -> text`.
    JsonbField,
    /// `jsonb -> integer`.
    JsonbIndex,
    /// `jsonb ->> text`.
    JsonbFieldText,
    /// `jsonb ->> integer`.
    JsonbIndexText,
    /// `json -> text`.
    JsonField,
    /// `json -> integer`.
    JsonIndex,
    /// `json ->> text`.
    JsonFieldText,
    /// `json ->> integer`.
    JsonIndexText,
    /// `jsonb ? text`.
    JsonbExists,
    /// `jsonb @> jsonb`.
    JsonbContains,
    /// `jsonb <@ jsonb`.
    JsonbContained,
    /// `jsonb_typeof(jsonb)`.
    JsonbTypeof,
    /// `jsonb_array_length(jsonb)`.
    JsonbArrayLength,
    /// `LIKE` (`~~`) and its variants.
    Like {
        /// ILIKE.
        case_insensitive: bool,
        /// NOT LIKE.
        negated: bool,
    },
    /// `~` (POSIX regular expression match) and its variants.
    Regex {
        /// `~*`.
        case_insensitive: bool,
        /// `!~`.
        negated: bool,
    },
    /// `like_escape(pattern, escape)`: rewrites a pattern for `LIKE ... ESCAPE`.
    LikeEscape,
    /// `x ^@ y`, `starts_with(x, y)`.
    StartsWith,
    /// `length` of text (characters) or bytea (bytes).
    Length,
    /// `length(character)`: characters without trailing blanks.
    BpcharLength,
    /// `octet_length`.
    OctetLength,
    /// `lower`.
    Lower,
    /// `upper`.
    Upper,
    /// `initcap`.
    Initcap,
    /// `substr`/`substring` with a start and optional count.
    Substr,
    /// `left`.
    Left,
    /// `right`.
    Right,
    /// `strpos`, `position(x IN y)`.
    Strpos,
    /// `replace`.
    Replace,
    /// `btrim`/`ltrim`/`rtrim`, `trim(...)`.
    Trim(TrimSide),
    /// `lpad`.
    Lpad,
    /// `rpad`.
    Rpad,
    /// `repeat`.
    Repeat,
    /// `md5`.
    Md5,
    /// `reverse`.
    Reverse,
    /// `split_part`.
    SplitPart,
    /// `translate`.
    Translate,
    /// `ascii`.
    Ascii,
    /// `chr`.
    Chr,
    /// `to_hex`.
    ToHex,
    /// `concat(VARIADIC "any")`.
    ConcatAny,
    /// `concat_ws(text, VARIADIC "any")`.
    ConcatWs,
    /// `num_nulls` (false) / `num_nonnulls` (true).
    NumNulls {
        /// Count non-nulls instead.
        nonnull: bool,
    },
    /// `round(x)`.
    Round,
    /// `round(numeric, integer)`.
    RoundScale,
    /// `trunc(x)`.
    Trunc,
    /// `trunc(numeric, integer)`.
    TruncScale,
    /// `ceil`/`ceiling`.
    Ceil,
    /// `floor`.
    Floor,
    /// `exp`.
    Exp,
    /// `ln`.
    Ln,
    /// `mod`.
    Mod,
    /// `sign`.
    Sign,
    /// `div(numeric, numeric)`.
    Div,
    /// `pi()`.
    Pi,
    /// `random()`.
    Random,
    /// `gen_random_uuid()`.
    GenRandomUuid,
    /// `pg_size_pretty`.
    SizePretty,
    /// `date_trunc`.
    DateTrunc,
    /// `extract(field FROM x)`: numeric.
    Extract,
    /// `date_part(field, x)`: double precision.
    DatePart,
    /// `age` with one or two arguments.
    Age,
    /// `now()`, `current_timestamp`, `transaction_timestamp()`.
    Now,
    /// `current_date`.
    CurrentDate,
    /// `localtime`.
    LocalTime,
    /// `localtimestamp`.
    LocalTimestamp,
    /// `x AT TIME ZONE zone` (`timezone(zone, x)`).
    AtTimeZone,
    /// `isfinite`.
    IsFinite,
    /// `to_timestamp(double precision)`.
    ToTimestamp,
    /// `array_position(array, value [, start])`: `integer`; not strict (a
    /// NULL value finds a NULL element).
    ArrayPosition,
    /// `array[i]`: the element, NULL outside the bounds.
    Subscript,
    /// `name[i]`: byte `i` (0 to 63) of a `name` as a `"char"`, NULL
    /// outside.
    NameSubscript,
    /// `unnest(array)` in a select list: a row per element, made by the
    /// projection (PostgreSQL's ProjectSet, `executor/plan.rs`); anywhere
    /// else it is a set in a context that takes none.
    Unnest,
    /// `left op ANY (array)` (`all` false) or `left op ALL (array)`: the
    /// boolean operator `op` applied to `left` and each element. Not strict.
    AnyAll {
        /// The element operator, from the operator catalog.
        op: &'static Builtin,
        /// ALL instead of ANY.
        all: bool,
    },
    /// `array_to_string(array, delimiter [, null_string])`; not strict.
    ArrayToString,
    /// `anyarray || anyarray` (array_cat): the elements of both; a NULL
    /// side counts as empty; not strict.
    ArrayCat,
    /// The last step of `string_agg(value, delimiter)`: the array of the
    /// group's values joined, NULL if none is non-NULL; not strict.
    StringAggJoin,
    /// `array_lower`, `array_upper`, `array_length`.
    ArrayDimension(Dimension),
    /// `cardinality(array)`.
    Cardinality,
    /// `quote_ident(text)`: an identifier as SQL must spell it.
    QuoteIdent,
    /// `quote_literal(text)`: a string literal that reads back as the text.
    QuoteLiteral,
    /// `quote_nullable(text)`: `quote_literal`, or `NULL` for NULL; not
    /// strict.
    QuoteNullable,
    /// `array_remove(array, value)`: the array without the elements not
    /// distinct from `value`; not strict (a NULL value removes NULLs).
    ArrayRemove,
    /// `pg_encoding_to_char(integer)`.
    EncodingToChar,
    /// `enum_first`, `enum_last`, `enum_range` of an enum type.
    EnumSupport(EnumFunc, EnumType),
    /// A function answered by the host.
    Session(SessionFunction),
}

/// How a comparison treats its operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// The values' natural order (`sluice_types::compare::cmp`).
    Plain,
    /// `character(n)`: trailing blanks do not count.
    Bpchar,
    /// A `timestamptz` against a `date` or `timestamp`: both as `timestamptz`
    /// in the session's zone.
    Zoned,
}

impl Builtin {
    /// Whether a NULL argument makes the result NULL without a call.
    pub fn is_strict(self) -> bool {
        !matches!(
            self,
            Builtin::ConcatAny
                | Builtin::ConcatWs
                | Builtin::NumNulls { .. }
                | Builtin::ArrayPosition
                | Builtin::AnyAll { .. }
                | Builtin::ArrayToString
                | Builtin::ArrayCat
                | Builtin::ArrayRemove
                | Builtin::Unnest
                | Builtin::QuoteNullable
                | Builtin::StringAggJoin
                | Builtin::Session(SessionFunction::FormatType)
                | Builtin::EnumSupport(..)
                | Builtin::Session(SessionFunction::SetConfig)
        )
    }

    /// Whether the result can differ between calls with equal arguments
    /// (PostgreSQL's volatile functions), which planners must not fold.
    pub fn is_volatile(self) -> bool {
        matches!(self, Builtin::Random | Builtin::GenRandomUuid | Builtin::Session(_))
    }
}

/// call -- computes `func` over evaluated `args` (NULLs already handled for
/// strict built-ins).
pub(super) fn call(func: Builtin, args: &[Datum], host: &mut dyn EvalHost) -> Result<Datum> {
    use Builtin::*;
    Ok(match func {
        Arith(op) => ops::arith(op, arg(args, 0)?, arg(args, 1)?, host.context())?,
        Negate => ops::negate(arg(args, 0)?)?,
        UnaryPlus => arg(args, 0)?.clone(),
        Abs => ops::abs(arg(args, 0)?)?,
        Compare(op, kind) => compare_values(op, kind, args, host)?,
        Concat => ops::concat(arg(args, 0)?, arg(args, 1)?, host.context()),
        Like { case_insensitive, negated } => {
            Datum::Bool(like::like(arg(args, 0)?, arg(args, 1)?, case_insensitive)? != negated)
        }
        Regex { case_insensitive, negated } => Datum::Bool(
            regex::regex_match(text(args, 0)?, text(args, 1)?, case_insensitive)? != negated,
        ),
        LikeEscape => Datum::Text(like::like_escape(text(args, 0)?, text(args, 1)?)?),
        StartsWith => Datum::Bool(text(args, 0)?.starts_with(text(args, 1)?)),
        ConcatAny | ConcatWs => strings::concat(func, args, host.context())?,
        NumNulls { nonnull } => {
            Datum::Int4(args.iter().filter(|a| a.is_null() != nonnull).count() as i32)
        }
        Power | Sqrt | Cbrt | BitAnd | BitOr | BitXor | BitNot | ShiftLeft | ShiftRight | Round
        | RoundScale | Trunc | TruncScale | Ceil | Floor | Exp | Ln | Mod | Sign | Div | Pi
        | Random | GenRandomUuid | SizePretty => math::call(func, args, host)?,
        DateTrunc | Extract | DatePart | Age | Now | CurrentDate | LocalTime | LocalTimestamp
        | AtTimeZone | IsFinite | ToTimestamp => datetime::call(func, args, host.context())?,
        JsonbConcat | JsonbDeleteKey | JsonbDeleteIndex | JsonbField | JsonbIndex
        | JsonbFieldText | JsonbIndexText | JsonbExists | JsonbContains | JsonbContained
        | JsonbTypeof | JsonbArrayLength => jsonb::call(func, args)?,
        JsonField | JsonIndex | JsonFieldText | JsonIndexText => jsonb::json_call(func, args)?,
        ArrayPosition => array_position(args)?,
        Subscript => arrays::subscript(args)?,
        NameSubscript => arrays::name_subscript(args),
        Unnest => {
            return Err(SqlError::unsupported(
                "set-valued function called in context that cannot accept a set",
            ))
        }
        AnyAll { op, all } => arrays::any_all(*op, all, args, host)?,
        ArrayToString => arrays::array_to_string(args, host.context())?,
        ArrayCat => arrays::array_cat(args),
        StringAggJoin => arrays::string_agg_join(args),
        ArrayDimension(which) => arrays::dimension(which, args)?,
        Cardinality => arrays::cardinality(args)?,
        // PostgreSQL also quotes keywords; sluice's helper knows none.
        QuoteIdent => Datum::Text(crate::parser::quote_identifier(text(args, 0)?)),
        QuoteLiteral => Datum::Text(strings::quote_literal(text(args, 0)?)),
        QuoteNullable => match arg(args, 0)? {
            Datum::Null => Datum::Text("NULL".into()),
            _ => Datum::Text(strings::quote_literal(text(args, 0)?)),
        },
        ArrayRemove => arrays::array_remove(args)?,
        EncodingToChar => typeinfo::encoding_name(args),
        EnumSupport(f, ty) => enums::call(f, ty, args)?,
        Session(f) => host.session_function(f, args)?,
        _ => strings::call(func, args)?,
    })
}

/// `array_position(array, value [, start])`: NULL for a NULL array.
fn array_position(args: &[Datum]) -> Result<Datum> {
    let Some(array) = arg(args, 0)?.as_array() else { return Ok(Datum::Null) };
    let found = sluice_types::funcs::array::array_position(array, arg(args, 1)?, args.get(2))?;
    Ok(found.map_or(Datum::Null, Datum::Int4))
}

/// Comparison of two values as `kind` prescribes.
fn compare_values(
    op: CmpOp,
    kind: Comparison,
    args: &[Datum],
    host: &mut dyn EvalHost,
) -> Result<Datum> {
    let (a, b) = (arg(args, 0)?, arg(args, 1)?);
    if kind == Comparison::Plain {
        return Ok(ops::compare(op, a, b));
    }
    Ok(Datum::Bool(holds(op, three_way(kind, a, b, host)?)))
}

/// three_way -- how two non-null values order under comparison `kind`
/// (the B-tree support function behind a comparison operator).
pub(super) fn three_way(
    kind: Comparison,
    a: &Datum,
    b: &Datum,
    host: &mut dyn EvalHost,
) -> Result<Ordering> {
    Ok(match kind {
        Comparison::Plain => compare::cmp(a, b),
        Comparison::Bpchar => compare::cmp_typed(SqlType::Bpchar, a, b),
        Comparison::Zoned => {
            let ctx = host.context();
            datetime::as_timestamptz(a, ctx)?.cmp(&datetime::as_timestamptz(b, ctx)?)
        }
    })
}

/// Whether comparison `op` holds for two values ordered `ordering`.
pub(super) fn holds(op: CmpOp, ordering: Ordering) -> bool {
    match op {
        CmpOp::Eq => ordering.is_eq(),
        CmpOp::Ne => ordering.is_ne(),
        CmpOp::Lt => ordering.is_lt(),
        CmpOp::Le => ordering.is_le(),
        CmpOp::Gt => ordering.is_gt(),
        CmpOp::Ge => ordering.is_ge(),
    }
}

/// Argument `i`.
pub(super) fn arg(args: &[Datum], i: usize) -> Result<&Datum> {
    args.get(i).ok_or_else(|| SqlError::internal(format!("missing argument {}", i + 1)))
}

/// Argument `i` as a string.
pub(super) fn text(args: &[Datum], i: usize) -> Result<&str> {
    match arg(args, i)? {
        Datum::Text(s) => Ok(s),
        other => Err(unexpected(other)),
    }
}

/// Argument `i` as an integer.
pub(super) fn int(args: &[Datum], i: usize) -> Result<i64> {
    integer(arg(args, i)?)
}

/// An integer datum's value.
pub(super) fn integer(d: &Datum) -> Result<i64> {
    d.as_i64().ok_or_else(|| unexpected(d))
}

/// Argument `i` as a double.
pub(super) fn float(args: &[Datum], i: usize) -> Result<f64> {
    match arg(args, i)? {
        Datum::Float8(v) => Ok(*v),
        other => Err(unexpected(other)),
    }
}

/// An argument of a type analysis should have ruled out.
pub(super) fn unexpected(d: &Datum) -> SqlError {
    SqlError::internal(format!("unexpected argument {d:?}"))
}
