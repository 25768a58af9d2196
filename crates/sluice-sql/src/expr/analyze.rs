//! Expression analysis: raw parse tree → typed [`Expr`] (PostgreSQL's
//! `transformExpr` in `parse_expr.c`).
//!
//! [`Analyzer::expr`] dispatches on the node kind. Leaves (literals,
//! columns, parameters) get their types here; operators go through
//! `oper.rs`, function calls through `func.rs`, conditional constructs
//! through `conditional.rs`. Children are always analyzed left to right
//! before their parent is resolved, so the first error in the text is the
//! one reported, as in PostgreSQL.
//!
//! Positions: parse-tree locations are byte offsets from the start of the
//! query string; errors carry them 1-based. (PostgreSQL counts characters;
//! the two agree for ASCII text.)

use pg_query::protobuf::node::Node as NodeEnum;
use pg_query::protobuf::{
    a_const, AConst, AExpr, AExprKind, AIndirection, BoolExpr, BoolExprType, BoolTestType,
    BooleanTest, CollateClause, ColumnRef, Node, NullTest, NullTestType, ParamRef,
    SqlValueFunction, SqlValueFunctionOp, SubLink, SubLinkType, TypeCast,
};
use sluice_types::{io, Context, Datum, SqlType};

use super::array_sublink::array_sublink;
use super::builtin::Builtin;
use super::coerce::{cannot_cast, coerce_to_boolean, coerce_to_target, type_name, CoercionContext};
use super::column::column_ref;
use super::oper::{make_array_op, make_op_in};
use super::tree::{BoolOp, BoolTestKind, Expr};
use super::typename::{position_of, string_of, type_from_name_in};
use super::{
    conditional, func, regtypes, rowtypes, AnalyzeHost, Scope, SessionFunction, SubLinkKind,
};
use crate::{Result, SqlError};

/// Largest parameter number (PostgreSQL's protocol limit).
const MAX_PARAMS: i32 = 65_535;

/// Collations sluice accepts (all mean bytewise comparison).
const COLLATIONS: [&str; 4] = ["C", "default", "POSIX", "ucs_basic"];

/// analyze -- the typed expression for one raw expression node, whose
/// column references resolve in `scope`.
pub fn analyze(node: &Node, scope: &Scope, host: &mut dyn AnalyzeHost) -> Result<Expr> {
    Analyzer { scope, host }.expr(node)
}

/// star_indirection -- `(x).*` in a select list: one (name, expression)
/// per field of `x`'s composite type; `None` if `node` is not of that form.
pub fn star_indirection(
    node: &Node,
    scope: &Scope,
    host: &mut dyn AnalyzeHost,
) -> Result<Option<Vec<(String, Expr)>>> {
    let Some(NodeEnum::AIndirection(ind)) = node.node.as_ref() else { return Ok(None) };
    let Some((last, steps)) = ind.indirection.split_last() else { return Ok(None) };
    if !matches!(last.node, Some(NodeEnum::AStar(_))) {
        return Ok(None);
    }
    let x = Analyzer { scope, host }.indirection_steps(ind, steps)?;
    let location = x.location();
    rowtypes::expand_fields(x, location).map(Some)
}

/// The state of one analysis: where names resolve and whom to ask.
pub(super) struct Analyzer<'a> {
    /// Columns visible to the expression.
    pub(super) scope: &'a Scope,
    /// The caller's services (parameters, aggregates, subqueries).
    pub(super) host: &'a mut dyn AnalyzeHost,
}

impl Analyzer<'_> {
    /// expr -- analyzes one node.
    pub(super) fn expr(&mut self, node: &Node) -> Result<Expr> {
        let Some(n) = node.node.as_ref() else {
            return Err(SqlError::internal("empty expression node"));
        };
        match n {
            NodeEnum::AConst(c) => constant(c),
            NodeEnum::ColumnRef(c) => self.column(c),
            NodeEnum::ParamRef(p) => self.param(p),
            NodeEnum::AExpr(a) => self.a_expr(a),
            NodeEnum::BoolExpr(b) => self.bool_expr(b),
            NodeEnum::TypeCast(t) => self.type_cast(t),
            NodeEnum::FuncCall(f) => func::func_call(self, f),
            NodeEnum::CaseExpr(c) => conditional::case(self, c),
            NodeEnum::CoalesceExpr(c) => conditional::coalesce(self, c),
            NodeEnum::MinMaxExpr(m) => conditional::min_max(self, m),
            NodeEnum::NullTest(t) => self.null_test(t),
            NodeEnum::BooleanTest(t) => self.boolean_test(t),
            NodeEnum::SubLink(s) => self.sublink(s),
            NodeEnum::SqlvalueFunction(f) => sql_value_function(f),
            NodeEnum::CollateClause(c) => self.collate(c),
            NodeEnum::AArrayExpr(a) => Err(unsupported("arrays", a.location)),
            NodeEnum::AIndirection(i) => self.indirection(i),
            NodeEnum::RowExpr(r) => rowtypes::row_expr(self, r),
            NodeEnum::SetToDefault(d) => {
                Err(SqlError::syntax("DEFAULT is not allowed in this context")
                    .at(position_of(d.location)))
            }
            other => Err(SqlError::unsupported(format!(
                "expression {} is not supported",
                node_name(other)
            ))),
        }
    }

    /// Analyzes a boxed optional child that the grammar always fills.
    pub(super) fn child(&mut self, node: Option<&Node>) -> Result<Expr> {
        match node {
            Some(n) => self.expr(n),
            None => Err(SqlError::internal("missing operand")),
        }
    }

    /// A column of the expression's scope or, failing that, of an enclosing
    /// query (PostgreSQL searches the query levels from the innermost out).
    /// A qualified name whose table is in a level but whose column is not
    /// fails there, as in PostgreSQL; only "no such table" and (unqualified)
    /// "no such column" send the search outward. When no level has the name,
    /// the innermost level's error is the one reported.
    fn column(&mut self, c: &ColumnRef) -> Result<Expr> {
        let error = match column_ref(self.scope, c) {
            Err(e) if may_be_outer(&e, c) => e,
            found => return found,
        };
        let mut levels_up = 1;
        while let Some(scope) = self.host.outer_scope(levels_up) {
            match column_ref(scope, c) {
                Ok(column) => return self.outer_reference(levels_up, column),
                Err(e) if may_be_outer(&e, c) => levels_up += 1,
                Err(e) => return Err(e),
            }
        }
        Err(error)
    }

    /// A column (or a whole row's columns) of the query `levels_up` levels
    /// out, as the host passes it in.
    fn outer_reference(&mut self, levels_up: usize, column: Expr) -> Result<Expr> {
        match column {
            Expr::Row { args, ty, location } => {
                let args = args
                    .into_iter()
                    .map(|a| self.host.outer_reference(levels_up, a))
                    .collect::<Result<_>>()?;
                Ok(Expr::Row { args, ty, location })
            }
            column => self.host.outer_reference(levels_up, column),
        }
    }

    /// `$n`.
    fn param(&mut self, p: &ParamRef) -> Result<Expr> {
        let location = position_of(p.location);
        if p.number <= 0 || p.number > MAX_PARAMS {
            return Err(
                SqlError::new("42P02", format!("there is no parameter ${}", p.number)).at(location)
            );
        }
        let index = p.number as usize;
        let ty = self.host.param_type(index).unwrap_or(SqlType::Unknown);
        Ok(Expr::Param { index, ty, location })
    }

    /// Operator expressions of every `A_Expr` kind.
    fn a_expr(&mut self, a: &AExpr) -> Result<Expr> {
        let location = position_of(a.location);
        let name = operator_name(&a.name);
        match AExprKind::try_from(a.kind).unwrap_or(AExprKind::Undefined) {
            AExprKind::AexprOp
            | AExprKind::AexprLike
            | AExprKind::AexprIlike
            | AExprKind::AexprSimilar => {
                if let (Some(NodeEnum::RowExpr(l)), Some(NodeEnum::RowExpr(r))) = (
                    a.lexpr.as_deref().and_then(|n| n.node.as_ref()),
                    a.rexpr.as_deref().and_then(|n| n.node.as_ref()),
                ) {
                    return rowtypes::row_compare(self, &name, l, r, location);
                }
                let left = a.lexpr.as_deref().map(|l| self.expr(l)).transpose()?;
                let right = self.child(a.rexpr.as_deref())?;
                make_op_in(self.host, &name, left, right, location)
            }
            AExprKind::AexprDistinct => conditional::distinct(self, a, false),
            AExprKind::AexprNotDistinct => conditional::distinct(self, a, true),
            AExprKind::AexprNullif => conditional::nullif(self, a),
            AExprKind::AexprIn => conditional::in_list(self, a),
            AExprKind::AexprBetween
            | AExprKind::AexprNotBetween
            | AExprKind::AexprBetweenSym
            | AExprKind::AexprNotBetweenSym => conditional::between(self, a),
            AExprKind::AexprOpAny | AExprKind::AexprOpAll => {
                let all = AExprKind::try_from(a.kind) == Ok(AExprKind::AexprOpAll);
                let left = self.child(a.lexpr.as_deref())?;
                let right = self.child(a.rexpr.as_deref())?;
                make_array_op(self.host, &name, all, left, right, location)
            }
            AExprKind::Undefined => Err(SqlError::internal("undefined A_Expr kind")),
        }
    }

    /// `array[i]` (repeated subscripts index the same single dimension
    /// again, as sluice's arrays have one) and `(x).field`. Slices are not
    /// supported; `(x).*` only in a select list ([`star_indirection`]).
    fn indirection(&mut self, ind: &AIndirection) -> Result<Expr> {
        self.indirection_steps(ind, &ind.indirection)
    }

    /// `ind`'s argument with the indirection `steps` applied in order; a
    /// field of a `pgstattuple` function's result is that function's column
    /// (`func::stat_column`).
    fn indirection_steps(&mut self, ind: &AIndirection, steps: &[Node]) -> Result<Expr> {
        if let (Some(NodeEnum::FuncCall(fc)), [step]) =
            (ind.arg.as_deref().and_then(|n| n.node.as_ref()), steps)
        {
            if let Some(NodeEnum::String(field)) = step.node.as_ref() {
                if let Some(expr) = func::stat_column(self, fc, &field.sval)? {
                    return Ok(expr);
                }
            }
        }
        let mut expr = self.child(ind.arg.as_deref())?;
        for step in steps {
            let indices = match step.node.as_ref() {
                Some(NodeEnum::AIndices(indices)) => indices,
                Some(NodeEnum::String(field)) => {
                    let location = expr.location();
                    expr = rowtypes::field_select(expr, &field.sval, location)?;
                    continue;
                }
                _ => {
                    return Err(SqlError::unsupported(
                        "row expansion via \"*\" is not supported here",
                    )
                    .at(expr.location()))
                }
            };
            if indices.is_slice {
                return Err(SqlError::unsupported("array slices are not supported"));
            }
            expr = self.subscript(expr, indices.uidx.as_deref())?;
        }
        Ok(expr)
    }

    /// One subscript of an array-typed expression.
    fn subscript(&mut self, array: Expr, index: Option<&Node>) -> Result<Expr> {
        let location = array.location();
        // A `name` is a fixed array of 64 `"char"`s, subscripted from 0.
        let (func, element) = match array.ty().base() {
            SqlType::Name => (Builtin::NameSubscript, Some(SqlType::Char)),
            ty => (Builtin::Subscript, ty.element()),
        };
        let Some(element) = element else {
            return Err(SqlError::new(
                "42804",
                format!(
                    "cannot subscript type {} because it does not support subscripting",
                    type_name(array.ty())
                ),
            )
            .at(location));
        };
        let index = self.child(index)?;
        let index_location = index.location();
        let from = index.ty();
        let index = coerce_to_target(
            self.host,
            index,
            SqlType::Int4,
            -1,
            CoercionContext::Assignment,
            false,
            None,
        )?
        .ok_or_else(|| {
            SqlError::new("42804", "array subscript must have type integer").at(index_location)
        })?;
        let _ = from;
        Ok(Expr::Call { func, args: vec![array, index], ty: element, location })
    }

    /// AND, OR, NOT.
    fn bool_expr(&mut self, b: &BoolExpr) -> Result<Expr> {
        let (op, construct) = match BoolExprType::try_from(b.boolop) {
            Ok(BoolExprType::AndExpr) => (BoolOp::And, "AND"),
            Ok(BoolExprType::OrExpr) => (BoolOp::Or, "OR"),
            Ok(BoolExprType::NotExpr) => (BoolOp::Not, "NOT"),
            _ => return Err(SqlError::internal("undefined BoolExpr type")),
        };
        let mut args = Vec::with_capacity(b.args.len());
        for arg in &b.args {
            let e = self.expr(arg)?;
            args.push(coerce_to_boolean(self.host, e, construct)?);
        }
        Ok(Expr::Bool { op, args, location: position_of(b.location) })
    }

    /// `x::type`, `CAST(x AS type)`, `type 'literal'`.
    fn type_cast(&mut self, t: &TypeCast) -> Result<Expr> {
        let type_name_node =
            t.type_name.as_ref().ok_or_else(|| SqlError::internal("cast without type"))?;
        let location = position_of(t.location).or(position_of(type_name_node.location));
        if let Some(kind) = regtypes::reg_kind(type_name_node) {
            let arg = self.child(t.arg.as_deref())?;
            return regtypes::cast_to_reg(self.host, arg, kind, location);
        }
        let host = &mut *self.host;
        let (ty, typmod) =
            type_from_name_in(type_name_node, &mut |schema, name| host.user_type(schema, name))?;
        let arg = self.child(t.arg.as_deref())?;
        let from = arg.ty();
        coerce_to_target(self.host, arg, ty, typmod, CoercionContext::Explicit, true, location)?
            .ok_or_else(|| cannot_cast(from, ty).at(location))
    }

    /// `x IS [NOT] NULL`.
    fn null_test(&mut self, t: &NullTest) -> Result<Expr> {
        let arg = self.child(t.arg.as_deref())?;
        let negated = NullTestType::try_from(t.nulltesttype) == Ok(NullTestType::IsNotNull);
        Ok(Expr::NullTest { arg: Box::new(arg), negated, location: position_of(t.location) })
    }

    /// `x IS [NOT] TRUE/FALSE/UNKNOWN`.
    fn boolean_test(&mut self, t: &BooleanTest) -> Result<Expr> {
        let (test, construct) = match BoolTestType::try_from(t.booltesttype) {
            Ok(BoolTestType::IsTrue) => (BoolTestKind::IsTrue, "IS TRUE"),
            Ok(BoolTestType::IsNotTrue) => (BoolTestKind::IsNotTrue, "IS NOT TRUE"),
            Ok(BoolTestType::IsFalse) => (BoolTestKind::IsFalse, "IS FALSE"),
            Ok(BoolTestType::IsNotFalse) => (BoolTestKind::IsNotFalse, "IS NOT FALSE"),
            Ok(BoolTestType::IsUnknown) => (BoolTestKind::IsUnknown, "IS UNKNOWN"),
            Ok(BoolTestType::IsNotUnknown) => (BoolTestKind::IsNotUnknown, "IS NOT UNKNOWN"),
            _ => return Err(SqlError::internal("undefined BooleanTest type")),
        };
        let arg = self.child(t.arg.as_deref())?;
        let arg = coerce_to_boolean(self.host, arg, construct)?;
        Ok(Expr::BoolTest { arg: Box::new(arg), test, location: position_of(t.location) })
    }

    /// A subquery used as a value: planned by the host.
    fn sublink(&mut self, s: &SubLink) -> Result<Expr> {
        let location = position_of(s.location);
        let operator = || match operator_name(&s.oper_name) {
            name if name.is_empty() => "=".to_string(),
            name => name,
        };
        let kind = match SubLinkType::try_from(s.sub_link_type) {
            Ok(SubLinkType::ExistsSublink) => SubLinkKind::Exists,
            Ok(SubLinkType::ExprSublink) => SubLinkKind::Scalar,
            Ok(SubLinkType::AnySublink) => SubLinkKind::Any { operator: operator() },
            Ok(SubLinkType::AllSublink) => SubLinkKind::All { operator: operator() },
            Ok(SubLinkType::ArraySublink) => {
                let query = s
                    .subselect
                    .as_deref()
                    .ok_or_else(|| SqlError::internal("sublink without query"))?;
                return array_sublink(self.host, query, location).map_err(|e| e.at(location));
            }
            _ => return Err(unsupported("this kind of subquery", s.location)),
        };
        let testexpr = s.testexpr.as_deref().map(|t| self.expr(t)).transpose()?;
        let query =
            s.subselect.as_deref().ok_or_else(|| SqlError::internal("sublink without query"))?;
        let (id, ty) =
            self.host.subquery(kind.clone(), query, testexpr).map_err(|e| e.at(location))?;
        Ok(Expr::SubLink { id, kind, ty, location })
    }

    /// `x COLLATE name`: only the bytewise collations exist, so the clause
    /// is checked and dropped.
    fn collate(&mut self, c: &CollateClause) -> Result<Expr> {
        let arg = self.child(c.arg.as_deref())?;
        let location = position_of(c.location);
        let name = c.collname.last().and_then(string_of).unwrap_or_default();
        let ty = arg.ty();
        if ty != SqlType::Unknown && ty.category() != sluice_types::types::TypeCategory::String {
            return Err(SqlError::new(
                "42804",
                format!("collations are not supported by type {}", type_name(ty)),
            )
            .at(location));
        }
        if !COLLATIONS.contains(&name) {
            return Err(SqlError::new(
                "42704",
                format!("collation \"{name}\" for encoding \"UTF8\" does not exist"),
            )
            .at(location));
        }
        Ok(arg)
    }
}

/// Whether a failed column lookup may still succeed in an enclosing query.
fn may_be_outer(e: &SqlError, c: &ColumnRef) -> bool {
    let qualified = c.fields.len() > 1;
    match e.code {
        "42P01" => qualified,
        "42703" => !qualified,
        _ => false,
    }
}

/// A literal: integers by size, decimals as numeric, strings unknown.
fn constant(c: &AConst) -> Result<Expr> {
    let location = position_of(c.location);
    let lit = |value, ty| Ok(Expr::Const { value, ty, typmod: -1, location });
    match &c.val {
        _ if c.isnull => lit(Datum::Null, SqlType::Unknown),
        Some(a_const::Val::Ival(i)) => lit(Datum::Int4(i.ival), SqlType::Int4),
        Some(a_const::Val::Fval(f)) => match f.fval.parse::<i64>() {
            Ok(v) => match i32::try_from(v) {
                Ok(small) => lit(Datum::Int4(small), SqlType::Int4),
                Err(_) => lit(Datum::Int8(v), SqlType::Int8),
            },
            Err(_) => {
                let value = io::parse(SqlType::Numeric, &f.fval, -1, &Context::default())
                    .map_err(|e| SqlError::from(e).at(location))?;
                lit(value, SqlType::Numeric)
            }
        },
        Some(a_const::Val::Sval(s)) => lit(Datum::Text(s.sval.clone()), SqlType::Unknown),
        Some(a_const::Val::Boolval(b)) => lit(Datum::Bool(b.boolval), SqlType::Bool),
        Some(a_const::Val::Bsval(_)) => Err(unsupported("bit-string literals", c.location)),
        None => lit(Datum::Null, SqlType::Unknown),
    }
}

/// `CURRENT_DATE`, `CURRENT_TIMESTAMP(p)`, `CURRENT_USER`, ...
fn sql_value_function(f: &SqlValueFunction) -> Result<Expr> {
    use SqlValueFunctionOp as Op;
    let location = position_of(f.location);
    let call = |func, ty| Expr::Call { func, args: Vec::new(), ty, location };
    let session = |sf| call(Builtin::Session(sf), SqlType::Name);
    let op = Op::try_from(f.op).unwrap_or(Op::SqlvalueFunctionOpUndefined);
    let (expr, ty) = match op {
        Op::SvfopCurrentDate => return Ok(call(Builtin::CurrentDate, SqlType::Date)),
        Op::SvfopCurrentTimestamp | Op::SvfopCurrentTimestampN => {
            (call(Builtin::Now, SqlType::TimestampTz), SqlType::TimestampTz)
        }
        Op::SvfopLocaltime | Op::SvfopLocaltimeN => {
            (call(Builtin::LocalTime, SqlType::Time), SqlType::Time)
        }
        Op::SvfopLocaltimestamp | Op::SvfopLocaltimestampN => {
            (call(Builtin::LocalTimestamp, SqlType::Timestamp), SqlType::Timestamp)
        }
        Op::SvfopCurrentRole | Op::SvfopCurrentUser | Op::SvfopUser => {
            return Ok(session(SessionFunction::CurrentUser))
        }
        Op::SvfopSessionUser => return Ok(session(SessionFunction::SessionUser)),
        Op::SvfopCurrentCatalog => return Ok(session(SessionFunction::CurrentDatabase)),
        Op::SvfopCurrentSchema => return Ok(session(SessionFunction::CurrentSchema)),
        Op::SvfopCurrentTime | Op::SvfopCurrentTimeN => {
            return Err(
                SqlError::unsupported("type time with time zone is not supported").at(location)
            )
        }
        Op::SqlvalueFunctionOpUndefined => {
            return Err(SqlError::internal("undefined SQLValueFunction"))
        }
    };
    if f.typmod < 0 {
        return Ok(expr);
    }
    let typmod = f.typmod.min(6);
    Ok(Expr::Cast { arg: Box::new(expr), ty, typmod, explicit: false, location })
}

/// The operator name of an `A_Expr` (`+`, `pg_catalog.=`).
pub(super) fn operator_name(names: &[Node]) -> String {
    names.iter().filter_map(string_of).collect::<Vec<_>>().join(".")
}

/// 0A000 `<what> are not supported` at `location`.
fn unsupported(what: &str, location: i32) -> SqlError {
    SqlError::unsupported(format!("{what} are not supported")).at(position_of(location))
}

/// A short name for an unsupported node kind.
fn node_name(n: &NodeEnum) -> String {
    let debug = format!("{n:?}");
    debug.split(['(', ' ', '{']).next().unwrap_or("node").to_string()
}
