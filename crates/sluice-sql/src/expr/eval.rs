//! Evaluation of typed expressions over one row (PostgreSQL's
//! `execExprInterp.c`, as a tree walk).
//!
//! The rules that make SQL's answers, not just its values:
//! * **NULL.** Strict built-ins return NULL for any NULL argument without
//!   running; AND is false if any operand is false, else NULL if any is
//!   NULL; OR dually; NOT NULL is NULL. `eval_qual` treats NULL as not true.
//! * **Short circuits.** AND/OR evaluate operands left to right and stop at
//!   the first decisive one, so `false AND 1/0 = 1` is false but
//!   `NULL AND 1/0 = 1` fails, as in PostgreSQL. CASE evaluates only the
//!   chosen branch; COALESCE stops at the first non-NULL.
//! * **IN lists** (`ScalarArrayOp`) evaluate the whole list first, as
//!   PostgreSQL builds the array before scanning it: true if any comparison
//!   is true, else NULL if any was NULL, else false (dually for NOT IN).
//! * **CASE x WHEN v**: `x` is evaluated once and read by the conditions'
//!   `CaseTest` nodes; the value travels down the recursion, so nested CASEs
//!   each see their own.

use std::cmp::Ordering;

use sluice_types::{cast, compare, Context, Datum, SqlType};

use sluice_types::ops::CmpOp;
use sluice_types::Record;

use super::builtin::{self, Builtin, Comparison};
use super::datetime::{adjust_interval, parse_interval_literal};
use super::tree::{BoolOp, BoolTestKind, Expr};
use super::{EvalHost, SessionFunction};
use crate::{Result, SqlError};

/// eval -- the value of `expr` for the input `row`.
pub fn eval(expr: &Expr, row: &[Datum], host: &mut dyn EvalHost) -> Result<Datum> {
    Evaluator { row, host }.eval(expr, None)
}

/// `x IS [NOT] NULL`. A composite value IS NULL when all of its fields are
/// and IS NOT NULL when none is, so a row with some NULL fields is neither
/// (SQL's rule, PostgreSQL's `ExecEvalRowNull`).
fn null_test(value: &Datum, negated: bool) -> bool {
    match value {
        Datum::Record(r) => r.values.iter().all(|v| v.is_null() != negated),
        other => other.is_null() != negated,
    }
}

/// eval_qual -- whether a condition holds for `row` (NULL and false do not).
pub fn eval_qual(expr: &Expr, row: &[Datum], host: &mut dyn EvalHost) -> Result<bool> {
    Ok(matches!(eval(expr, row, host)?, Datum::Bool(true)))
}

/// One evaluation: the row and the host.
struct Evaluator<'a> {
    row: &'a [Datum],
    host: &'a mut dyn EvalHost,
}

impl Evaluator<'_> {
    /// The value of `e`; `case` is the operand of the innermost simple CASE
    /// whose condition is being evaluated.
    fn eval(&mut self, e: &Expr, case: Option<&Datum>) -> Result<Datum> {
        match e {
            Expr::Const { value, .. } => Ok(value.clone()),
            Expr::Column { index, .. } => self
                .row
                .get(*index)
                .cloned()
                .ok_or_else(|| SqlError::internal(format!("column {index} is not in the row"))),
            Expr::Param { index, .. } => Ok(self.host.param(*index).clone()),
            Expr::CaseTest { .. } => {
                case.cloned().ok_or_else(|| SqlError::internal("CASE operand outside CASE"))
            }
            // A name a `reg*` cast looks up is a literal PostgreSQL resolves
            // while parsing: its errors point at it.
            Expr::Call {
                func: func @ Builtin::Session(SessionFunction::RegIn(_)),
                args,
                location,
                ..
            } => self.call(*func, args, case).map_err(|e| e.at(*location)),
            Expr::Call { func, args, .. } => self.call(*func, args, case),
            Expr::Cast { arg, ty, typmod, explicit, .. } => {
                let value = self.eval(arg, case)?;
                let cast =
                    cast_value(&value, arg.ty(), *ty, *typmod, *explicit, self.host.context());
                // A date/time literal read at evaluation (it depends on the
                // session's settings) reports its errors at the literal.
                match arg.as_ref() {
                    Expr::Const { ty: SqlType::Unknown, location, .. } => {
                        cast.map_err(|e| e.at(*location))
                    }
                    _ => cast,
                }
            }
            Expr::CoerceToDomain { arg, domain, checks, .. } => {
                let value = self.eval(arg, case)?;
                super::domains::check_value(*domain, checks, &value, self.host)?;
                Ok(value)
            }
            Expr::Bool { op, args, .. } => self.bool_op(*op, args, case),
            Expr::Case { arg, whens, default, .. } => {
                let operand = arg.as_deref().map(|a| self.eval(a, case)).transpose()?;
                let test = operand.as_ref().or(case);
                for w in whens {
                    if matches!(self.eval(&w.condition, test)?, Datum::Bool(true)) {
                        return self.eval(&w.result, case);
                    }
                }
                self.eval(default, case)
            }
            Expr::Coalesce { args, .. } => {
                for arg in args {
                    let value = self.eval(arg, case)?;
                    if !value.is_null() {
                        return Ok(value);
                    }
                }
                Ok(Datum::Null)
            }
            Expr::MinMax { greatest, args, ty, .. } => self.min_max(*greatest, args, *ty, case),
            Expr::NullIf { left, right, eq, .. } => {
                let (l, r) = (self.eval(left, case)?, self.eval(right, case)?);
                let equal = !l.is_null() && !r.is_null() && self.is_true(*eq, l.clone(), r)?;
                Ok(if equal { Datum::Null } else { l })
            }
            Expr::NullTest { arg, negated, .. } => {
                Ok(Datum::Bool(null_test(&self.eval(arg, case)?, *negated)))
            }
            Expr::BoolTest { arg, test, .. } => {
                Ok(Datum::Bool(bool_test(*test, &self.eval(arg, case)?)))
            }
            Expr::Distinct { left, right, eq, negated, .. } => {
                let (l, r) = (self.eval(left, case)?, self.eval(right, case)?);
                let distinct = match (l.is_null(), r.is_null()) {
                    (true, true) => false,
                    (true, false) | (false, true) => true,
                    (false, false) => !self.is_true(*eq, l, r)?,
                };
                Ok(Datum::Bool(distinct != *negated))
            }
            Expr::ScalarArrayOp { left, op, items, use_or, .. } => {
                self.scalar_array_op(left, *op, items, *use_or, case)
            }
            Expr::AggRef { index, .. } => Ok(self.host.aggregate_value(*index).clone()),
            Expr::ExecParam { slot, .. } => Ok(self.host.exec_param(*slot).clone()),
            Expr::SubLink { id, .. } => self.host.subquery(*id, self.row),
            Expr::Row { args, ty, .. } => self.row_value(args, *ty, case),
            Expr::FieldSelect { arg, field, .. } => match self.eval(arg, case)? {
                Datum::Null => Ok(Datum::Null),
                Datum::Record(r) => r.values.get(*field).cloned().ok_or_else(|| {
                    SqlError::internal(format!("field {field} is not in the record"))
                }),
                other => Err(SqlError::internal(format!("field selection from {other:?}"))),
            },
            Expr::RowCompare { op, kinds, left, right, .. } => {
                self.row_compare(*op, kinds, left, right, case)
            }
        }
    }

    /// A row constructor's composite value.
    fn row_value(&mut self, args: &[Expr], ty: SqlType, case: Option<&Datum>) -> Result<Datum> {
        let SqlType::Record(rt) = ty else {
            return Err(SqlError::internal(format!("row constructor of type {ty:?}")));
        };
        let values = args.iter().map(|a| self.eval(a, case)).collect::<Result<Vec<_>>>()?;
        Ok(Datum::Record(Box::new(Record { ty: rt, values })))
    }

    /// `RowCompareExpr`: field pairs left to right; the first unequal pair
    /// decides, a NULL met before one makes the answer NULL, and rows equal
    /// throughout satisfy `<=`/`>=` only. Later fields are not evaluated.
    fn row_compare(
        &mut self,
        op: CmpOp,
        kinds: &[Comparison],
        left: &[Expr],
        right: &[Expr],
        case: Option<&Datum>,
    ) -> Result<Datum> {
        for ((kind, l), r) in kinds.iter().zip(left).zip(right) {
            let (l, r) = (self.eval(l, case)?, self.eval(r, case)?);
            if l.is_null() || r.is_null() {
                return Ok(Datum::Null);
            }
            let ordering = builtin::three_way(*kind, &l, &r, self.host)?;
            if ordering.is_ne() {
                return Ok(Datum::Bool(builtin::holds(op, ordering)));
            }
        }
        Ok(Datum::Bool(builtin::holds(op, Ordering::Equal)))
    }

    /// A built-in call: arguments first, then NULL strictness, then the call.
    fn call(&mut self, func: Builtin, args: &[Expr], case: Option<&Datum>) -> Result<Datum> {
        let values = args.iter().map(|a| self.eval(a, case)).collect::<Result<Vec<_>>>()?;
        if func.is_strict() && values.iter().any(Datum::is_null) {
            return Ok(Datum::Null);
        }
        if matches!(func, Builtin::Like { .. } | Builtin::Repeat | Builtin::Lpad | Builtin::Rpad) {
            self.host.check_interrupts()?;
        }
        builtin::call(func, &values, self.host)
    }

    /// Whether boolean built-in `op` yields true for two non-null values.
    fn is_true(&mut self, op: Builtin, l: Datum, r: Datum) -> Result<bool> {
        Ok(matches!(builtin::call(op, &[l, r], self.host)?, Datum::Bool(true)))
    }

    /// AND, OR and NOT with SQL's three-valued logic.
    fn bool_op(&mut self, op: BoolOp, args: &[Expr], case: Option<&Datum>) -> Result<Datum> {
        if op == BoolOp::Not {
            let arg = args.first().ok_or_else(|| SqlError::internal("NOT without operand"))?;
            return Ok(match self.eval(arg, case)? {
                Datum::Bool(b) => Datum::Bool(!b),
                _ => Datum::Null,
            });
        }
        // AND stops at false, OR at true.
        let decisive = op == BoolOp::Or;
        let mut saw_null = false;
        for arg in args {
            match self.eval(arg, case)? {
                Datum::Bool(b) if b == decisive => return Ok(Datum::Bool(decisive)),
                Datum::Bool(_) => {}
                _ => saw_null = true,
            }
        }
        Ok(if saw_null { Datum::Null } else { Datum::Bool(!decisive) })
    }

    /// GREATEST/LEAST: the extreme non-null argument.
    fn min_max(
        &mut self,
        greatest: bool,
        args: &[Expr],
        ty: SqlType,
        case: Option<&Datum>,
    ) -> Result<Datum> {
        let want = if greatest { Ordering::Greater } else { Ordering::Less };
        let mut best = Datum::Null;
        for arg in args {
            let value = self.eval(arg, case)?;
            if !value.is_null() && (best.is_null() || compare::cmp_typed(ty, &value, &best) == want)
            {
                best = value;
            }
        }
        Ok(best)
    }

    /// `left op ANY (items)` / `left op ALL (items)`.
    fn scalar_array_op(
        &mut self,
        left: &Expr,
        op: Builtin,
        items: &[Expr],
        use_or: bool,
        case: Option<&Datum>,
    ) -> Result<Datum> {
        let l = self.eval(left, case)?;
        let values = items.iter().map(|i| self.eval(i, case)).collect::<Result<Vec<_>>>()?;
        if l.is_null() {
            return Ok(Datum::Null);
        }
        let mut saw_null = false;
        for v in values {
            if v.is_null() {
                saw_null = true;
                continue;
            }
            match builtin::call(op, &[l.clone(), v], self.host)? {
                Datum::Bool(b) if b == use_or => return Ok(Datum::Bool(use_or)),
                Datum::Bool(_) => {}
                _ => saw_null = true,
            }
        }
        Ok(if saw_null { Datum::Null } else { Datum::Bool(!use_or) })
    }
}

/// `IS [NOT] TRUE/FALSE/UNKNOWN`.
fn bool_test(test: BoolTestKind, value: &Datum) -> bool {
    let v = match value {
        Datum::Bool(b) => Some(*b),
        _ => None,
    };
    match test {
        BoolTestKind::IsTrue => v == Some(true),
        BoolTestKind::IsNotTrue => v != Some(true),
        BoolTestKind::IsFalse => v == Some(false),
        BoolTestKind::IsNotFalse => v != Some(false),
        BoolTestKind::IsUnknown => v.is_none(),
        BoolTestKind::IsNotUnknown => v.is_some(),
    }
}

/// A cast at evaluation, with interval field ranges applied.
fn cast_value(
    value: &Datum,
    from: SqlType,
    to: SqlType,
    typmod: i32,
    explicit: bool,
    ctx: &Context,
) -> Result<Datum> {
    if to != SqlType::Interval || typmod < 0 || value.is_null() {
        return Ok(cast::cast(value, from, to, typmod, explicit, ctx)?);
    }
    let iv = match value {
        Datum::Text(s) => parse_interval_literal(s, typmod)?,
        other => match cast::cast(other, from, to, -1, explicit, ctx)? {
            Datum::Interval(iv) => adjust_interval(iv, typmod)?,
            _ => return Err(SqlError::internal("interval cast without an interval")),
        },
    };
    Ok(Datum::Interval(iv))
}
