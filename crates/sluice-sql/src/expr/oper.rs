//! Operators: the built-in catalog and their resolution (PostgreSQL's
//! `pg_operator` for sluice's types, and `parse_oper.c`).
//!
//! The catalog lists every operator PostgreSQL 15 has among the supported
//! types — including the cross-type ones (`int4 + int8`, `date < timestamptz`,
//! `name = text`) — because resolution depends on the whole candidate set:
//! leaving one out would change which operator `'1' + 1` picks or whether
//! `x + y` is ambiguous.

use std::sync::OnceLock;

use sluice_types::ops::{ArithOp, CmpOp};
use sluice_types::SqlType::{self, *};

use super::builtin::{Builtin, Comparison};
use super::candidates::{choose, ArgType, Choice};
use super::coerce::{type_name, Detached};
use super::func::coerce_args;
use super::tree::Expr;
use super::AnalyzeHost;
use crate::{Result, SqlError};

/// One operator: name, operand types, result and implementation (`None`:
/// known to PostgreSQL but not implemented).
#[derive(Clone)]
struct Operator {
    name: &'static str,
    left: Option<ArgType>,
    right: ArgType,
    result: SqlType,
    imp: Option<Builtin>,
}

/// The integer types, narrowest first.
const INTS: [SqlType; 3] = [Int2, Int4, Int8];

/// The float types.
const FLOATS: [SqlType; 2] = [Float4, Float8];

/// Same-type and cross-type comparable pairs besides the numeric families.
const COMPARABLE: [(SqlType, SqlType); 25] = [
    (Bool, Bool),
    (Char, Char),
    (Bytea, Bytea),
    (Name, Name),
    (Name, Text),
    (Text, Name),
    (Text, Text),
    (Oid, Oid),
    (Bpchar, Bpchar),
    (Date, Date),
    (Date, Timestamp),
    (Date, TimestampTz),
    (Time, Time),
    (Timestamp, Date),
    (Timestamp, Timestamp),
    (Timestamp, TimestampTz),
    (TimestampTz, Date),
    (TimestampTz, Timestamp),
    (TimestampTz, TimestampTz),
    (Interval, Interval),
    (Numeric, Numeric),
    (Uuid, Uuid),
    (Jsonb, Jsonb),
    (Xid8, Xid8),
    (PgLsn, PgLsn),
];

/// WAL position arithmetic: (operator, left, right, result).
const PG_LSN_ARITH: [(ArithOp, SqlType, SqlType, SqlType); 4] = [
    (ArithOp::Sub, PgLsn, PgLsn, Numeric),
    (ArithOp::Add, PgLsn, Numeric, PgLsn),
    (ArithOp::Add, Numeric, PgLsn, PgLsn),
    (ArithOp::Sub, PgLsn, Numeric, PgLsn),
];

/// Date/time arithmetic: (operator, left, right, result).
const DATETIME_ARITH: [(ArithOp, SqlType, SqlType, SqlType); 26] = [
    (ArithOp::Add, Int4, Date, Date),
    (ArithOp::Add, Date, Int4, Date),
    (ArithOp::Add, Date, Time, Timestamp),
    (ArithOp::Add, Date, Interval, Timestamp),
    (ArithOp::Add, Time, Date, Timestamp),
    (ArithOp::Add, Time, Interval, Time),
    (ArithOp::Add, Timestamp, Interval, Timestamp),
    (ArithOp::Add, TimestampTz, Interval, TimestampTz),
    (ArithOp::Add, Interval, Date, Timestamp),
    (ArithOp::Add, Interval, Time, Time),
    (ArithOp::Add, Interval, Timestamp, Timestamp),
    (ArithOp::Add, Interval, TimestampTz, TimestampTz),
    (ArithOp::Add, Interval, Interval, Interval),
    (ArithOp::Sub, Date, Int4, Date),
    (ArithOp::Sub, Date, Date, Int4),
    (ArithOp::Sub, Date, Interval, Timestamp),
    (ArithOp::Sub, Time, Time, Interval),
    (ArithOp::Sub, Time, Interval, Time),
    (ArithOp::Sub, Timestamp, Timestamp, Interval),
    (ArithOp::Sub, Timestamp, Interval, Timestamp),
    (ArithOp::Sub, TimestampTz, TimestampTz, Interval),
    (ArithOp::Sub, TimestampTz, Interval, TimestampTz),
    (ArithOp::Sub, Interval, Interval, Interval),
    (ArithOp::Mul, Float8, Interval, Interval),
    (ArithOp::Mul, Interval, Float8, Interval),
    (ArithOp::Div, Interval, Float8, Interval),
];

/// make_op -- resolves operator `name` (possibly schema-qualified with
/// `pg_catalog.`) for the operands and builds the call; `left` is `None` for
/// a prefix operator.
pub fn make_op(name: &str, left: Option<Expr>, right: Expr, location: Option<u32>) -> Result<Expr> {
    make_op_in(&mut Detached, name, left, right, location)
}

/// make_op_in -- [`make_op`] recording inferred parameter types in `host`.
pub(super) fn make_op_in(
    host: &mut dyn AnalyzeHost,
    name: &str,
    left: Option<Expr>,
    right: Expr,
    location: Option<u32>,
) -> Result<Expr> {
    let (op, imp, declared) =
        resolve(name, left.as_ref().map(Expr::ty), right.ty()).map_err(|e| e.at(location))?;
    let args: Vec<Expr> = left.into_iter().chain([right]).collect();
    let args = coerce_args(host, args, &declared)?;
    Ok(Expr::Call { func: imp, args, ty: op.result, location })
}

/// make_array_op -- `left op ANY (right)` (or ALL), `right` an array
/// (PostgreSQL's `make_scalar_array_op`): the operator is resolved for
/// `left` and the array's element type and must yield boolean.
pub(super) fn make_array_op(
    host: &mut dyn AnalyzeHost,
    name: &str,
    all: bool,
    left: Expr,
    right: Expr,
    location: Option<u32>,
) -> Result<Expr> {
    let kind = if all { "ALL" } else { "ANY" };
    // An untyped right side is an array of the left side's type.
    let right_ty = match right.ty() {
        SqlType::Unknown => SqlType::array_of(left.ty()).unwrap_or(SqlType::TEXT_ARRAY),
        t => t,
    };
    let Some(element) = right_ty.element() else {
        return Err(SqlError::new(
            "42809",
            format!("op {kind} (array) requires array on right side"),
        )
        .at(location));
    };
    let (op, imp, declared) =
        resolve(name, Some(left.ty()), element).map_err(|e| e.at(location))?;
    if op.result != Bool {
        return Err(SqlError::new(
            "42809",
            format!("op {kind} (array) requires operator to yield boolean"),
        )
        .at(location));
    }
    let Some(ArgType::Is(element)) = declared.get(1).copied() else {
        return Err(SqlError::internal("array operator without a concrete element type"));
    };
    let array = SqlType::array_of(element).ok_or_else(|| SqlError::internal("no array type"))?;
    let left = coerce_args(host, vec![left], &declared[..1])?;
    let right = coerce_args(host, vec![right], &[ArgType::Is(array)])?;
    let args = left.into_iter().chain(right).collect();
    let op = static_builtin(imp)?;
    Ok(Expr::Call { func: Builtin::AnyAll { op, all }, args, ty: Bool, location })
}

/// The catalog's own copy of `imp` (an enum comparison made for one call
/// is the same implementation as a built-in type's).
fn static_builtin(imp: Builtin) -> Result<&'static Builtin> {
    catalog()
        .iter()
        .find_map(|o| o.imp.as_ref().filter(|b| **b == imp))
        .ok_or_else(|| SqlError::internal("operator implementation missing from the catalog"))
}

/// resolve -- the operator `name` (possibly `pg_catalog.`-qualified) for
/// operands of types `left` (`None`: prefix) and `right`, its
/// implementation and its declared operand types.
fn resolve(
    name: &str,
    left: Option<SqlType>,
    right: SqlType,
) -> Result<(Operator, Builtin, Vec<ArgType>)> {
    // Operands of a domain are matched as its base type.
    let (left, right) = (left.map(SqlType::base), right.base());
    let bare = match name.rsplit_once('.') {
        Some(("pg_catalog", op)) => op,
        Some(_) => "",
        None => name,
    };
    let mut per_call = enum_comparisons(left.into_iter().chain([right]));
    per_call.extend(array_concatenations(left.into_iter().chain([right])));
    let candidates: Vec<&Operator> = catalog()
        .iter()
        .chain(&per_call)
        .filter(|o| o.name == bare && o.left.is_some() == left.is_some())
        .collect();
    let mut signatures: Vec<Vec<ArgType>> =
        candidates.iter().map(|o| o.left.into_iter().chain([o.right]).collect()).collect();
    let inputs: Vec<SqlType> = left.into_iter().chain([right]).collect();
    let chosen = match choose(&inputs, &signatures, left.is_some()) {
        Choice::One(i) => i,
        choice => return Err(op_error(choice, name, left, right)),
    };
    let op = candidates[chosen].clone();
    let Some(imp) = op.imp else {
        return Err(SqlError::unsupported(format!(
            "operator is not supported: {}",
            signature(name, left, right)
        )));
    };
    Ok((op, imp, signatures.swap_remove(chosen)))
}

/// PostgreSQL's `op_error`.
fn op_error(choice: Choice, name: &str, left: Option<SqlType>, right: SqlType) -> SqlError {
    let sig = signature(name, left, right);
    match (choice, left) {
        (Choice::Ambiguous, _) => SqlError::new("42725", format!("operator is not unique: {sig}"))
            .with_hint("Could not choose a best candidate operator. You might need to add explicit type casts."),
        (_, Some(_)) => SqlError::new("42883", format!("operator does not exist: {sig}")).with_hint(
            "No operator matches the given name and argument types. You might need to add explicit type casts.",
        ),
        (_, None) => SqlError::new("42883", format!("operator does not exist: {sig}")).with_hint(
            "No operator matches the given name and argument type. You might need to add an explicit type cast.",
        ),
    }
}

/// `integer + text`, `- text`.
fn signature(name: &str, left: Option<SqlType>, right: SqlType) -> String {
    match left {
        Some(l) => format!("{} {name} {}", type_name(l), type_name(right)),
        None => format!("{name} {}", type_name(right)),
    }
}

/// The comparison operators of the enum types among `operands` (and of
/// their arrays): PostgreSQL declares them once on the pseudo-type
/// `anyenum`, which amounts to one set per enum type, made here for the
/// types a call meets since enum types are not known in advance.
fn enum_comparisons(operands: impl Iterator<Item = SqlType>) -> Vec<Operator> {
    let mut ops = Vec::new();
    let mut seen = Vec::new();
    for operand in operands {
        let Some(SqlType::Enum(e)) = operand.element().or(Some(operand)) else { continue };
        if seen.contains(&e) {
            continue;
        }
        seen.push(e);
        let scalar = SqlType::Enum(e);
        for ty in [Some(scalar), SqlType::array_of(scalar)].into_iter().flatten() {
            for op in CmpOp::ALL {
                ops.push(binary(
                    op.symbol(),
                    ty,
                    ty,
                    Bool,
                    Builtin::Compare(op, Comparison::Plain),
                ));
            }
        }
    }
    ops
}

/// `||` on the array types among `operands` (PostgreSQL's `anyarray ||
/// anyarray`, one operator per array type met, as for enums above).
fn array_concatenations(operands: impl Iterator<Item = SqlType>) -> Vec<Operator> {
    let mut ops: Vec<Operator> = Vec::new();
    for operand in operands {
        if operand.element().is_none() || ops.iter().any(|o| o.result == operand) {
            continue;
        }
        ops.push(binary("||", operand, operand, operand, Builtin::ArrayCat));
    }
    ops
}

/// The operator catalog, built once.
fn catalog() -> &'static [Operator] {
    static CATALOG: OnceLock<Vec<Operator>> = OnceLock::new();
    CATALOG.get_or_init(build)
}

/// Every built-in operator.
fn build() -> Vec<Operator> {
    let mut ops = Vec::new();
    comparisons(&mut ops);
    arithmetic(&mut ops);
    xid_equality(&mut ops);
    prefix(&mut ops);
    bitwise(&mut ops);
    strings(&mut ops);
    jsonb(&mut ops);
    ops
}

/// A binary operator entry.
fn binary(name: &'static str, l: SqlType, r: SqlType, result: SqlType, imp: Builtin) -> Operator {
    Operator { name, left: Some(ArgType::Is(l)), right: ArgType::Is(r), result, imp: Some(imp) }
}

/// `= <> < <= > >=` for every comparable pair.
fn comparisons(ops: &mut Vec<Operator>) {
    let numeric_pairs = INTS
        .iter()
        .flat_map(|l| INTS.iter().map(move |r| (*l, *r)))
        .chain(FLOATS.iter().flat_map(|l| FLOATS.iter().map(move |r| (*l, *r))));
    // `json` has no comparison operators, so neither has `json[]`.
    let arrays = SqlType::array_types().filter(|a| a.element() != Some(Json)).map(|a| (a, a));
    let pairs: Vec<(SqlType, SqlType)> =
        COMPARABLE.iter().copied().chain(numeric_pairs).chain(arrays).collect();
    for (l, r) in pairs {
        let kind = match (l, r) {
            (Bpchar, Bpchar) => Comparison::Bpchar,
            (l, r) if l != r && (l == TimestampTz || r == TimestampTz) => Comparison::Zoned,
            _ => Comparison::Plain,
        };
        for op in CmpOp::ALL {
            ops.push(binary(op.symbol(), l, r, Bool, Builtin::Compare(op, kind)));
        }
    }
}

/// `=` and `<>` on `xid`, also against an `integer` (`xideqint4`):
/// PostgreSQL's 32-bit xids wrap, so they have no order and no `<`.
fn xid_equality(ops: &mut Vec<Operator>) {
    for r in [Xid, Int4] {
        for op in [CmpOp::Eq, CmpOp::Ne] {
            ops.push(binary(op.symbol(), Xid, r, Bool, Builtin::Compare(op, Comparison::Plain)));
        }
    }
}

/// `+ - * / % ^` on numbers and date/time values.
fn arithmetic(ops: &mut Vec<Operator>) {
    let four = [("+", ArithOp::Add), ("-", ArithOp::Sub), ("*", ArithOp::Mul), ("/", ArithOp::Div)];
    for (name, op) in four {
        for l in INTS {
            for r in INTS {
                ops.push(binary(name, l, r, wider(l, r), Builtin::Arith(op)));
            }
        }
        for l in FLOATS {
            for r in FLOATS {
                let result = if l == Float4 && r == Float4 { Float4 } else { Float8 };
                ops.push(binary(name, l, r, result, Builtin::Arith(op)));
            }
        }
        ops.push(binary(name, Numeric, Numeric, Numeric, Builtin::Arith(op)));
    }
    for t in [Int2, Int4, Int8, Numeric] {
        ops.push(binary("%", t, t, t, Builtin::Arith(ArithOp::Mod)));
    }
    ops.push(binary("^", Float8, Float8, Float8, Builtin::Power));
    ops.push(binary("^", Numeric, Numeric, Numeric, Builtin::Power));
    for (op, l, r, result) in DATETIME_ARITH.into_iter().chain(PG_LSN_ARITH) {
        let name = match op {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            _ => "/",
        };
        ops.push(binary(name, l, r, result, Builtin::Arith(op)));
    }
}

/// The wider of two integer types (cross-type integer arithmetic's result).
fn wider(l: SqlType, r: SqlType) -> SqlType {
    if l == Int8 || r == Int8 {
        Int8
    } else if l == Int4 || r == Int4 {
        Int4
    } else {
        Int2
    }
}

/// Prefix operators.
fn prefix(ops: &mut Vec<Operator>) {
    let numbers = [Int2, Int4, Int8, Float4, Float8, Numeric];
    let mut push = |name: &'static str, t: SqlType, imp: Builtin| {
        ops.push(Operator { name, left: None, right: ArgType::Is(t), result: t, imp: Some(imp) });
    };
    for t in numbers {
        push("-", t, Builtin::Negate);
        push("+", t, Builtin::UnaryPlus);
        push("@", t, Builtin::Abs);
    }
    push("-", Interval, Builtin::Negate);
    for t in INTS {
        push("~", t, Builtin::BitNot);
    }
    push("|/", Float8, Builtin::Sqrt);
    push("||/", Float8, Builtin::Cbrt);
}

/// `& | # << >>` on integers.
fn bitwise(ops: &mut Vec<Operator>) {
    for t in INTS {
        ops.push(binary("&", t, t, t, Builtin::BitAnd));
        ops.push(binary("|", t, t, t, Builtin::BitOr));
        ops.push(binary("#", t, t, t, Builtin::BitXor));
        ops.push(binary("<<", t, Int4, t, Builtin::ShiftLeft));
        ops.push(binary(">>", t, Int4, t, Builtin::ShiftRight));
    }
}

/// `||`, `^@`, LIKE and the regular-expression operators.
fn strings(ops: &mut Vec<Operator>) {
    ops.push(binary("||", Text, Text, Text, Builtin::Concat));
    ops.push(binary("||", Bytea, Bytea, Bytea, Builtin::Concat));
    let any_cat = |left: ArgType, right: ArgType| Operator {
        name: "||",
        left: Some(left),
        right,
        result: Text,
        imp: Some(Builtin::Concat),
    };
    ops.push(any_cat(ArgType::Is(Text), ArgType::AnyAsText));
    ops.push(any_cat(ArgType::AnyAsText, ArgType::Is(Text)));
    ops.push(binary("^@", Text, Text, Bool, Builtin::StartsWith));
    let like = |case_insensitive, negated| Builtin::Like { case_insensitive, negated };
    ops.push(binary("~~", Bytea, Bytea, Bool, like(false, false)));
    ops.push(binary("!~~", Bytea, Bytea, Bool, like(false, true)));
    for l in [Name, Text, Bpchar] {
        ops.push(binary("~~", l, Text, Bool, like(false, false)));
        ops.push(binary("!~~", l, Text, Bool, like(false, true)));
        ops.push(binary("~~*", l, Text, Bool, like(true, false)));
        ops.push(binary("!~~*", l, Text, Bool, like(true, true)));
        let regex = |case_insensitive, negated| Builtin::Regex { case_insensitive, negated };
        ops.push(binary("~", l, Text, Bool, regex(false, false)));
        ops.push(binary("!~", l, Text, Bool, regex(false, true)));
        ops.push(binary("~*", l, Text, Bool, regex(true, false)));
        ops.push(binary("!~*", l, Text, Bool, regex(true, true)));
    }
}

/// The jsonb operators, and the field and element access of json.
fn jsonb(ops: &mut Vec<Operator>) {
    ops.push(binary("||", Jsonb, Jsonb, Jsonb, Builtin::JsonbConcat));
    ops.push(binary("->", Jsonb, Text, Jsonb, Builtin::JsonbField));
    ops.push(binary("->", Jsonb, Int4, Jsonb, Builtin::JsonbIndex));
    ops.push(binary("->>", Jsonb, Text, Text, Builtin::JsonbFieldText));
    ops.push(binary("->>", Jsonb, Int4, Text, Builtin::JsonbIndexText));
    ops.push(binary("->", Json, Text, Json, Builtin::JsonField));
    ops.push(binary("->", Json, Int4, Json, Builtin::JsonIndex));
    ops.push(binary("->>", Json, Text, Text, Builtin::JsonFieldText));
    ops.push(binary("->>", Json, Int4, Text, Builtin::JsonIndexText));
    ops.push(binary("-", Jsonb, Text, Jsonb, Builtin::JsonbDeleteKey));
    ops.push(binary("-", Jsonb, Int4, Jsonb, Builtin::JsonbDeleteIndex));
    ops.push(binary("?", Jsonb, Text, Bool, Builtin::JsonbExists));
    ops.push(binary("@>", Jsonb, Jsonb, Bool, Builtin::JsonbContains));
    ops.push(binary("<@", Jsonb, Jsonb, Bool, Builtin::JsonbContained));
}
