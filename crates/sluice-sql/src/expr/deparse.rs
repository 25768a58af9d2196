//! Expressions written back as SQL text, the way PostgreSQL's deparser
//! (`utils/adt/ruleutils.c`'s get_rule_expr) writes them: every operator
//! parenthesised, constants with their types, columns by name. EXPLAIN's
//! conditions and outputs, partial-index predicates and `pg_get_expr` use it.

use crate::expr::{BoolOp, Builtin, Expr};
use sluice_types::types::format_type;
use sluice_types::{Datum, SqlType};

/// An expression at the top of a detail line: always parenthesised, as
/// PostgreSQL prints a condition.
pub(crate) fn top_expr(e: &Expr, names: &[String]) -> String {
    parenthesised(&expr(e, names))
}

/// `text` inside parentheses unless it already is.
pub(crate) fn parenthesised(text: &str) -> String {
    if text.starts_with('(') && text.ends_with(')') {
        text.to_string()
    } else {
        format!("({text})")
    }
}

/// The operator PostgreSQL prints for a LIKE (`~~`) or regex (`~`) match:
/// `*` after it for the case-insensitive form, `!` before it for NOT.
pub(crate) fn pattern_operator(base: &str, case_insensitive: bool, negated: bool) -> String {
    let not = if negated { "!" } else { "" };
    let ci = if case_insensitive { "*" } else { "" };
    format!("{not}{base}{ci}")
}

/// expr -- `e` in PostgreSQL's deparsed form, columns named from `names`
/// (also how a partial index's predicate is stored).
pub(crate) fn expr(e: &Expr, names: &[String]) -> String {
    match e {
        Expr::Column { index, .. } => names.get(*index).cloned().unwrap_or_else(|| "?".into()),
        Expr::Const { value, ty, .. } => constant(value, *ty),
        Expr::Param { index, .. } => format!("${}", index + 1),
        Expr::Cast { arg, ty, typmod, .. } => {
            format!("({})::{}", expr(arg, names), format_type(*ty, *typmod))
        }
        Expr::Call { func: Builtin::Compare(op, _), args, .. } if args.len() == 2 => {
            format!("({} {} {})", expr(&args[0], names), op.symbol(), expr(&args[1], names))
        }
        Expr::Call { func: Builtin::Arith(op), args, .. } if args.len() == 2 => {
            format!("({} {} {})", expr(&args[0], names), op.symbol(), expr(&args[1], names))
        }
        Expr::Call { func: Builtin::Like { case_insensitive, negated }, args, .. }
            if args.len() == 2 =>
        {
            let op = pattern_operator("~~", *case_insensitive, *negated);
            format!("({} {op} {})", expr(&args[0], names), expr(&args[1], names))
        }
        Expr::Call { func: Builtin::Regex { case_insensitive, negated }, args, .. }
            if args.len() == 2 =>
        {
            let op = pattern_operator("~", *case_insensitive, *negated);
            format!("({} {op} {})", expr(&args[0], names), expr(&args[1], names))
        }
        // PostgreSQL prints a coercion to a domain as the cast it came from;
        // a constant already carries its base type's cast.
        Expr::CoerceToDomain { arg, domain, .. } => {
            format!("({})::{}", expr(arg, names), domain.desc().sql_name)
        }
        Expr::NullTest { arg, negated, .. } => {
            let test = if *negated { "IS NOT NULL" } else { "IS NULL" };
            format!("({} {test})", expr(arg, names))
        }
        Expr::Bool { op, args, .. } => {
            let parts: Vec<String> = args.iter().map(|a| expr(a, names)).collect();
            match op {
                BoolOp::And => format!("({})", parts.join(" AND ")),
                BoolOp::Or => format!("({})", parts.join(" OR ")),
                BoolOp::Not => format!("(NOT {})", parts.join("")),
            }
        }
        Expr::Call { func, args, .. } => {
            let parts: Vec<String> = args.iter().map(|a| expr(a, names)).collect();
            format!("{}({})", format!("{func:?}").to_lowercase(), parts.join(", "))
        }
        // Only IN lists make these (`x IN (...)` is `= ANY`, `x NOT IN
        // (...)` is `<> ALL`); written back as such they read back the same.
        Expr::ScalarArrayOp { left, items, use_or, .. } => {
            let parts: Vec<String> = items.iter().map(|a| expr(a, names)).collect();
            let test = if *use_or { "IN" } else { "NOT IN" };
            format!("({} {test} ({}))", expr(left, names), parts.join(", "))
        }
        Expr::Row { args, .. } => row(args, names),
        Expr::RowCompare { op, left, right, .. } => {
            format!("({} {} {})", row(left, names), op.symbol(), row(right, names))
        }
        Expr::FieldSelect { arg, field, .. } => {
            let name = match arg.ty() {
                SqlType::Record(rt) => rt.fields().get(*field).map(|f| f.name.as_str()),
                _ => None,
            };
            format!("({}).{}", expr(arg, names), name.unwrap_or("?"))
        }
        _ => "?".into(),
    }
}

/// `ROW(a, b, ...)`, as PostgreSQL deparses a row constructor.
fn row(args: &[Expr], names: &[String]) -> String {
    let parts: Vec<String> = args.iter().map(|a| expr(a, names)).collect();
    format!("ROW({})", parts.join(", "))
}

/// A constant as PostgreSQL's deparser writes it: numbers bare when their
/// type is what the literal would be read as, everything else quoted with
/// its type.
fn constant(value: &Datum, ty: SqlType) -> String {
    let Some(text) = sluice_types::io::output(value, &sluice_types::Context::default()) else {
        return "NULL".into();
    };
    match (ty, value) {
        (_, Datum::Bool(b)) => b.to_string(),
        (SqlType::Int4 | SqlType::Numeric, _) if !text.starts_with('-') => text,
        _ => format!("'{}'::{}", text.replace('\'', "''"), format_type(ty, -1)),
    }
}

#[cfg(test)]
mod tests {
    use super::pattern_operator;

    #[test]
    fn pattern_operators_are_postgres_names() {
        let like: Vec<String> = [(false, false), (false, true), (true, false), (true, true)]
            .iter()
            .map(|&(ci, not)| pattern_operator("~~", ci, not))
            .collect();
        assert_eq!(like, ["~~", "!~~", "~~*", "!~~*"]);
        assert_eq!(pattern_operator("~", false, false), "~");
        assert_eq!(pattern_operator("~", true, true), "!~*");
    }
}
