//! The typed expression tree: what analysis produces and evaluation walks.
//!
//! Each node is one of PostgreSQL's executable expression nodes (`Const`,
//! `Var`, `Param`, `FuncExpr`/`OpExpr`, `CoerceViaIO`/`RelabelType`,
//! `BoolExpr`, `CaseExpr`, ...), reduced to what sluice's types need.
//! Invariants analysis guarantees and evaluation relies on:
//! * every argument of a [`Expr::Call`] already has the type its built-in
//!   expects (coercions are explicit [`Expr::Cast`] nodes);
//! * conditions (AND/OR/NOT operands, WHEN clauses, filters) are boolean;
//! * an `unknown`-typed node is a string literal or an untyped parameter,
//!   which only appear where PostgreSQL allows them to stay unknown.
//!
//! Nodes keep the 1-based source position of their token, so errors found
//! later (a type mismatch in a CASE, a non-boolean WHERE) can point at the
//! text, as PostgreSQL's `exprLocation` does.

use sluice_types::domains::DomainType;
use sluice_types::{Datum, SqlType};

use sluice_types::ops::CmpOp;

use super::builtin::{Builtin, Comparison};
use super::SubLinkKind;

/// One `ORDER BY` key inside an aggregate call (`array_agg(x ORDER BY y
/// DESC)`): the order in which the aggregate sees its group's values.
#[derive(Clone, Debug)]
pub struct AggOrderKey {
    /// The key, over the input row.
    pub expr: Expr,
    /// DESC.
    pub descending: bool,
    /// NULLS FIRST (the default with DESC).
    pub nulls_first: bool,
}

/// What an aggregate call says besides its argument: `ORDER BY` keys
/// and a `FILTER (WHERE ...)` condition over the input row.
#[derive(Clone, Debug, Default)]
pub struct AggClauses {
    /// The order the aggregate sees its values in (empty: input order).
    pub order: Vec<AggOrderKey>,
    /// Only rows for which this is true reach the aggregate.
    pub filter: Option<Expr>,
}

/// A typed expression.
#[derive(Clone, Debug)]
pub enum Expr {
    /// A constant.
    Const {
        /// The value (possibly NULL).
        value: Datum,
        /// Its type.
        ty: SqlType,
        /// Its type modifier.
        typmod: i32,
        /// Source position.
        location: Option<u32>,
    },
    /// Column `index` of the input row.
    Column {
        /// Index into the row.
        index: usize,
        /// The column's type.
        ty: SqlType,
        /// The column's type modifier.
        typmod: i32,
        /// Source position.
        location: Option<u32>,
    },
    /// Parameter `$index` (1-based, as written).
    Param {
        /// The parameter number.
        index: usize,
        /// Its type (`unknown` until inferred).
        ty: SqlType,
        /// Source position.
        location: Option<u32>,
    },
    /// The value being tested by the enclosing `CASE x WHEN ...`.
    CaseTest {
        /// The CASE operand's type.
        ty: SqlType,
        /// The CASE operand's type modifier.
        typmod: i32,
    },
    /// A built-in operator or function applied to arguments.
    Call {
        /// What to compute.
        func: Builtin,
        /// Arguments, already coerced to the built-in's input types.
        args: Vec<Expr>,
        /// The result type.
        ty: SqlType,
        /// Source position (the operator or function name).
        location: Option<u32>,
    },
    /// A type conversion (and/or typmod coercion) of `arg`.
    Cast {
        /// The value to convert.
        arg: Box<Expr>,
        /// The target type.
        ty: SqlType,
        /// The target type modifier.
        typmod: i32,
        /// Explicit casts truncate over-long strings; others fail.
        explicit: bool,
        /// Source position of the cast, if written.
        location: Option<u32>,
    },
    /// A value becoming of a domain (PostgreSQL's CoerceToDomain): `arg`,
    /// already of the base type, tested against the domain's NOT NULL and
    /// CHECK constraints (each an expression over the value as column 0).
    CoerceToDomain {
        /// The value, of the domain's base type.
        arg: Box<Expr>,
        /// The domain.
        domain: DomainType,
        /// The CHECK constraints: name and expression, in test order.
        checks: Vec<(String, Expr)>,
        /// Source position of the cast, if written.
        location: Option<u32>,
    },
    /// AND, OR or NOT.
    Bool {
        /// Which connective.
        op: BoolOp,
        /// Boolean operands (exactly one for NOT).
        args: Vec<Expr>,
        /// Source position.
        location: Option<u32>,
    },
    /// `CASE [arg] WHEN ... THEN ... ELSE ... END`.
    Case {
        /// The operand of a simple CASE, read by [`Expr::CaseTest`] in conditions.
        arg: Option<Box<Expr>>,
        /// The WHEN clauses in order.
        whens: Vec<CaseWhen>,
        /// The ELSE result (a NULL constant when absent).
        default: Box<Expr>,
        /// The result type.
        ty: SqlType,
        /// The result typmod (-1 unless all results share one).
        typmod: i32,
        /// Source position.
        location: Option<u32>,
    },
    /// `COALESCE(...)`: the first non-null argument.
    Coalesce {
        /// Arguments, all of the result type.
        args: Vec<Expr>,
        /// The result type.
        ty: SqlType,
        /// The result typmod (-1 unless all arguments share one).
        typmod: i32,
        /// Source position.
        location: Option<u32>,
    },
    /// `GREATEST(...)` or `LEAST(...)`, ignoring NULLs.
    MinMax {
        /// GREATEST if true, LEAST otherwise.
        greatest: bool,
        /// Arguments, all of the result type.
        args: Vec<Expr>,
        /// The result type.
        ty: SqlType,
        /// Source position.
        location: Option<u32>,
    },
    /// `NULLIF(left, right)`: NULL if `left = right`, else `left`.
    NullIf {
        /// The value returned when unequal (coerced to the operator's input).
        left: Box<Expr>,
        /// The value compared against.
        right: Box<Expr>,
        /// The equality operator.
        eq: Builtin,
        /// The result type (`left`'s).
        ty: SqlType,
        /// Source position.
        location: Option<u32>,
    },
    /// `x IS [NOT] NULL`.
    NullTest {
        /// The tested value.
        arg: Box<Expr>,
        /// IS NOT NULL if true.
        negated: bool,
        /// Source position.
        location: Option<u32>,
    },
    /// `x IS [NOT] TRUE/FALSE/UNKNOWN`.
    BoolTest {
        /// The tested boolean.
        arg: Box<Expr>,
        /// Which test.
        test: BoolTestKind,
        /// Source position.
        location: Option<u32>,
    },
    /// `left IS [NOT] DISTINCT FROM right`.
    Distinct {
        /// Left operand (coerced to the operator's input).
        left: Box<Expr>,
        /// Right operand (coerced to the operator's input).
        right: Box<Expr>,
        /// The equality operator.
        eq: Builtin,
        /// IS NOT DISTINCT FROM if true.
        negated: bool,
        /// Source position.
        location: Option<u32>,
    },
    /// `left op ANY (items)` (`IN`) or `left op ALL (items)` (`NOT IN`).
    ScalarArrayOp {
        /// The tested value.
        left: Box<Expr>,
        /// The boolean operator applied to `left` and each item.
        op: Builtin,
        /// The list, all of the operator's right input type.
        items: Vec<Expr>,
        /// ANY if true, ALL otherwise.
        use_or: bool,
        /// Source position.
        location: Option<u32>,
    },
    /// The current group's value of aggregate `index` (see `AnalyzeHost::aggregate`).
    AggRef {
        /// The host's aggregate index.
        index: usize,
        /// The aggregate's result type.
        ty: SqlType,
        /// Source position.
        location: Option<u32>,
    },
    /// A value the executor sets while the expression runs (PostgreSQL's
    /// `PARAM_EXEC`): an outer query's column read inside a correlated
    /// subquery, or the current row of a subquery compared by `IN`/`ANY`/`ALL`.
    ExecParam {
        /// The statement-wide slot number (see `AnalyzeHost::outer_column`).
        slot: usize,
        /// The value's type.
        ty: SqlType,
        /// The value's type modifier.
        typmod: i32,
        /// Source position.
        location: Option<u32>,
    },
    /// `ROW(a, b)`, `(a, b)` or a whole-row reference: a composite value
    /// built from its fields (PostgreSQL's `RowExpr`).
    Row {
        /// The field values, in order.
        args: Vec<Expr>,
        /// The row type (`SqlType::Record`).
        ty: SqlType,
        /// Source position.
        location: Option<u32>,
    },
    /// `(x).field`: one field of a composite value, NULL when the value is
    /// (PostgreSQL's `FieldSelect`).
    FieldSelect {
        /// The composite value.
        arg: Box<Expr>,
        /// The field's index in the row type.
        field: usize,
        /// The field's type.
        ty: SqlType,
        /// The field's type modifier.
        typmod: i32,
    },
    /// `(a, b) < (c, d)` and the other ordering comparisons of rows
    /// (PostgreSQL's `RowCompareExpr`): the first pair of fields that are
    /// not equal decides; a NULL before that makes the result NULL.
    RowCompare {
        /// `<`, `<=`, `>` or `>=`.
        op: CmpOp,
        /// Per field pair, how its values compare (from the pair's operator).
        kinds: Vec<Comparison>,
        /// Left fields, coerced to their operators' input types.
        left: Vec<Expr>,
        /// Right fields, likewise.
        right: Vec<Expr>,
        /// Source position of the operator.
        location: Option<u32>,
    },
    /// A subquery planned by the host.
    SubLink {
        /// The host's subquery id.
        id: usize,
        /// The kind of sublink.
        kind: SubLinkKind,
        /// The result type.
        ty: SqlType,
        /// Source position.
        location: Option<u32>,
    },
}

/// One `WHEN condition THEN result` of a CASE.
#[derive(Clone, Debug)]
pub struct CaseWhen {
    /// A boolean condition (for a simple CASE, `CaseTest = value`).
    pub condition: Expr,
    /// The result when the condition is true.
    pub result: Expr,
}

/// Boolean connectives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoolOp {
    /// AND: false wins, then NULL.
    And,
    /// OR: true wins, then NULL.
    Or,
    /// NOT: NULL stays NULL.
    Not,
}

/// The tests of `IS [NOT] TRUE/FALSE/UNKNOWN`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoolTestKind {
    /// `IS TRUE`.
    IsTrue,
    /// `IS NOT TRUE`.
    IsNotTrue,
    /// `IS FALSE`.
    IsFalse,
    /// `IS NOT FALSE`.
    IsNotFalse,
    /// `IS UNKNOWN`.
    IsUnknown,
    /// `IS NOT UNKNOWN`.
    IsNotUnknown,
}

impl Expr {
    /// A constant without a source position.
    pub fn constant(value: Datum, ty: SqlType, typmod: i32) -> Expr {
        Expr::Const { value, ty, typmod, location: None }
    }

    /// A column reference without a source position.
    pub fn column(index: usize, ty: SqlType, typmod: i32) -> Expr {
        Expr::Column { index, ty, typmod, location: None }
    }

    /// The result type.
    pub fn ty(&self) -> SqlType {
        match self {
            Expr::Const { ty, .. }
            | Expr::Column { ty, .. }
            | Expr::Param { ty, .. }
            | Expr::CaseTest { ty, .. }
            | Expr::Call { ty, .. }
            | Expr::Cast { ty, .. }
            | Expr::Case { ty, .. }
            | Expr::Coalesce { ty, .. }
            | Expr::MinMax { ty, .. }
            | Expr::NullIf { ty, .. }
            | Expr::AggRef { ty, .. }
            | Expr::ExecParam { ty, .. }
            | Expr::Row { ty, .. }
            | Expr::FieldSelect { ty, .. }
            | Expr::SubLink { ty, .. } => *ty,
            Expr::CoerceToDomain { domain, .. } => SqlType::Domain(*domain),
            Expr::Bool { .. }
            | Expr::RowCompare { .. }
            | Expr::NullTest { .. }
            | Expr::BoolTest { .. }
            | Expr::Distinct { .. }
            | Expr::ScalarArrayOp { .. } => SqlType::Bool,
        }
    }

    /// The result type modifier, -1 when not determined (PostgreSQL's `exprTypmod`).
    pub fn typmod(&self) -> i32 {
        match self {
            Expr::Const { typmod, .. }
            | Expr::Column { typmod, .. }
            | Expr::CaseTest { typmod, .. }
            | Expr::ExecParam { typmod, .. }
            | Expr::Cast { typmod, .. }
            | Expr::Case { typmod, .. }
            | Expr::Coalesce { typmod, .. }
            | Expr::FieldSelect { typmod, .. } => *typmod,
            Expr::NullIf { left, .. } => left.typmod(),
            _ => -1,
        }
    }

    /// The 1-based source position PostgreSQL would report for this
    /// expression: for operators, casts and tests the leftmost of the node's
    /// own token and its first operand (`exprLocation`).
    pub fn location(&self) -> Option<u32> {
        match self {
            Expr::CaseTest { .. } => None,
            Expr::Const { location, .. }
            | Expr::Column { location, .. }
            | Expr::Param { location, .. }
            | Expr::Case { location, .. }
            | Expr::Coalesce { location, .. }
            | Expr::MinMax { location, .. }
            | Expr::AggRef { location, .. }
            | Expr::ExecParam { location, .. }
            | Expr::Row { location, .. }
            | Expr::SubLink { location, .. } => *location,
            Expr::FieldSelect { arg, .. } => arg.location(),
            Expr::RowCompare { left, location, .. } => {
                leftmost(*location, left.first().and_then(Expr::location))
            }
            Expr::Call { args, location, .. } | Expr::Bool { args, location, .. } => {
                leftmost(*location, args.first().and_then(Expr::location))
            }
            Expr::Cast { arg, location, .. }
            | Expr::CoerceToDomain { arg, location, .. }
            | Expr::NullTest { arg, location, .. }
            | Expr::BoolTest { arg, location, .. } => leftmost(*location, arg.location()),
            Expr::NullIf { left, location, .. }
            | Expr::Distinct { left, location, .. }
            | Expr::ScalarArrayOp { left, location, .. } => leftmost(*location, left.location()),
        }
    }

    /// The row columns the expression reads, each once, in ascending order
    /// (subqueries' own columns not included).
    pub fn columns_read(&self) -> Vec<usize> {
        fn collect(e: &Expr, out: &mut Vec<usize>) {
            if let Expr::Column { index, .. } = e {
                out.push(*index);
            }
            for child in e.children() {
                collect(child, out);
            }
        }
        let mut out = Vec::new();
        collect(self, &mut out);
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether evaluating the expression twice may give different results
    /// (it calls a volatile function, or holds a subquery).
    pub fn is_volatile(&self) -> bool {
        match self {
            Expr::Call { func, .. } if func.is_volatile() => true,
            Expr::SubLink { .. } => true,
            _ => self.children().into_iter().any(Expr::is_volatile),
        }
    }

    /// The direct subexpressions, in evaluation order.
    pub fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Const { .. }
            | Expr::Column { .. }
            | Expr::Param { .. }
            | Expr::CaseTest { .. }
            | Expr::AggRef { .. }
            | Expr::ExecParam { .. }
            | Expr::SubLink { .. } => Vec::new(),
            Expr::Call { args, .. }
            | Expr::Bool { args, .. }
            | Expr::Coalesce { args, .. }
            | Expr::MinMax { args, .. } => args.iter().collect(),
            // A domain's checks read their own one-column row, not this one.
            Expr::Cast { arg, .. }
            | Expr::CoerceToDomain { arg, .. }
            | Expr::NullTest { arg, .. }
            | Expr::BoolTest { arg, .. } => vec![arg],
            Expr::Case { arg, whens, default, .. } => arg
                .iter()
                .map(|a| &**a)
                .chain(whens.iter().flat_map(|w| [&w.condition, &w.result]))
                .chain([&**default])
                .collect(),
            Expr::NullIf { left, right, .. } | Expr::Distinct { left, right, .. } => {
                vec![left, right]
            }
            Expr::ScalarArrayOp { left, items, .. } => {
                std::iter::once(&**left).chain(items.iter()).collect()
            }
            Expr::Row { args, .. } => args.iter().collect(),
            Expr::FieldSelect { arg, .. } => vec![arg],
            // All left fields, then all right ones (evaluation interleaves
            // the pairs and may stop early).
            Expr::RowCompare { left, right, .. } => left.iter().chain(right.iter()).collect(),
        }
    }

    /// The direct subexpressions, mutably (for rewriting column references
    /// when the planner moves an expression onto another row layout).
    pub fn children_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            Expr::Const { .. }
            | Expr::Column { .. }
            | Expr::Param { .. }
            | Expr::CaseTest { .. }
            | Expr::AggRef { .. }
            | Expr::ExecParam { .. }
            | Expr::SubLink { .. } => Vec::new(),
            Expr::Call { args, .. }
            | Expr::Bool { args, .. }
            | Expr::Coalesce { args, .. }
            | Expr::MinMax { args, .. } => args.iter_mut().collect(),
            Expr::Cast { arg, .. }
            | Expr::CoerceToDomain { arg, .. }
            | Expr::NullTest { arg, .. }
            | Expr::BoolTest { arg, .. } => vec![arg],
            Expr::Case { arg, whens, default, .. } => arg
                .iter_mut()
                .map(|a| &mut **a)
                .chain(whens.iter_mut().flat_map(|w| [&mut w.condition, &mut w.result]))
                .chain([&mut **default])
                .collect(),
            Expr::NullIf { left, right, .. } | Expr::Distinct { left, right, .. } => {
                vec![left, right]
            }
            Expr::ScalarArrayOp { left, items, .. } => {
                std::iter::once(&mut **left).chain(items.iter_mut()).collect()
            }
            Expr::Row { args, .. } => args.iter_mut().collect(),
            Expr::FieldSelect { arg, .. } => vec![arg],
            Expr::RowCompare { left, right, .. } => {
                left.iter_mut().chain(right.iter_mut()).collect()
            }
        }
    }

    /// Whether the expression reads a column of the input row (PostgreSQL's
    /// `contain_vars_of_level`), which decides how IN lists are built.
    pub(crate) fn contains_column(&self) -> bool {
        matches!(self, Expr::Column { .. })
            || self.children().into_iter().any(Expr::contains_column)
    }

    /// The position of the first aggregate reference inside, if any.
    pub(crate) fn find_aggregate(&self) -> Option<Option<u32>> {
        match self {
            Expr::AggRef { location, .. } => Some(*location),
            _ => self.children().into_iter().find_map(Expr::find_aggregate),
        }
    }
}

/// The smaller of two optional positions (PostgreSQL's `leftmostLoc`).
fn leftmost(a: Option<u32>, b: Option<u32>) -> Option<u32> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}
