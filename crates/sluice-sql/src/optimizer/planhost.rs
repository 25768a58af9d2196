//! The planner's side of expression analysis (PostgreSQL's `ParseState`
//! as the planner fills it): parameter types inferred as analysis goes,
//! the aggregate calls a clause contains, and its subqueries, which a
//! [`SubqueryPlanner`] (the SELECT planner) plans into the statement's
//! registry. Evaluation has its host in the executor (`executor/host.rs`).

use super::plannodes::AggCall;
use crate::catalog::pg_type::TypeCatalog;
use crate::error::{Result, SqlError};
use crate::expr::{AggClauses, AnalyzeHost, Expr, Scope, SubLinkKind};
use pg_query::protobuf::Node;
use sluice_types::{AggKind, SqlType};

/// Plans the subqueries an expression contains (implemented by the SELECT
/// planner, which knows the catalogs, the enclosing queries and the WITH
/// queries in scope).
pub trait SubqueryPlanner {
    /// sublink -- plans `query` as a subquery of kind `kind` written in a
    /// query whose columns are `scope`; returns the subplan id and the
    /// sublink's result type (see [`AnalyzeHost::subquery`]).
    fn sublink(
        &mut self,
        params: &mut Vec<Option<SqlType>>,
        scope: &Scope,
        kind: SubLinkKind,
        query: &Node,
        testexpr: Option<Expr>,
    ) -> Result<(usize, SqlType)>;

    /// The types the statement sees (see [`AnalyzeHost::user_type`]).
    fn type_catalog(&mut self) -> TypeCatalog;

    /// The scope `levels_up` query levels out, while a subquery is planned.
    fn outer_scope(&self, levels_up: usize) -> Option<&Scope>;

    /// The slot through which the subquery reads `column` of that scope.
    fn outer_reference(&mut self, levels_up: usize, column: Expr) -> Result<Expr>;
}

/// Analysis-time state of one clause of a statement.
pub struct PlanHost<'p> {
    /// Parameter types ($1 is index 0), inferred where not given.
    pub params: &'p mut Vec<Option<SqlType>>,
    /// Aggregates found so far.
    pub aggs: Vec<AggCall>,
    /// Whether aggregates are allowed where analysis currently is, and the
    /// clause name for the error if not.
    pub agg_clause: Option<&'static str>,
    /// Where subqueries are planned; `None` where they are not supported.
    planner: Option<&'p mut dyn SubqueryPlanner>,
    /// Where subqueries are forbidden by definition (a CHECK constraint),
    /// the clause name for the error.
    pub sublink_clause: Option<&'static str>,
    /// The columns the analysed expressions see (the outer scope of their
    /// subqueries).
    scope: Scope,
    /// Where type names are looked up when there is no planner to ask.
    types: Option<TypeCatalog>,
}

impl<'p> PlanHost<'p> {
    /// A host with the parameter types known so far, without subqueries.
    pub fn new(params: &'p mut Vec<Option<SqlType>>) -> PlanHost<'p> {
        PlanHost {
            params,
            aggs: Vec::new(),
            agg_clause: None,
            planner: None,
            sublink_clause: None,
            scope: Scope::default(),
            types: None,
        }
    }

    /// The same host, finding the types CREATE TYPE made in `types`.
    pub fn with_types(mut self, types: TypeCatalog) -> PlanHost<'p> {
        self.types = Some(types);
        self
    }

    /// The types the host finds names in: its own, or its planner's;
    /// `None` for a host given neither.
    fn type_catalog(&mut self) -> Option<TypeCatalog> {
        if let Some(types) = &self.types {
            return Some(types.clone());
        }
        self.planner.as_deref_mut().map(|p| p.type_catalog())
    }

    /// A host for expressions over `scope` whose subqueries `planner` plans.
    pub fn with_planner(
        params: &'p mut Vec<Option<SqlType>>,
        planner: &'p mut dyn SubqueryPlanner,
        scope: &Scope,
    ) -> PlanHost<'p> {
        PlanHost {
            params,
            aggs: Vec::new(),
            agg_clause: None,
            planner: Some(planner),
            sublink_clause: None,
            scope: scope.clone(),
            types: None,
        }
    }

    /// Changes the scope later expressions (and their subqueries) see.
    pub fn set_scope(&mut self, scope: &Scope) {
        self.scope = scope.clone();
    }
}

impl AnalyzeHost for PlanHost<'_> {
    fn param_type(&mut self, n: usize) -> Option<SqlType> {
        self.params.get(n.checked_sub(1)?).copied().flatten()
    }

    fn set_param_type(&mut self, n: usize, ty: SqlType) {
        let Some(i) = n.checked_sub(1) else { return };
        if self.params.len() <= i {
            self.params.resize(i + 1, None);
        }
        self.params[i] = Some(ty);
    }

    fn aggregate(
        &mut self,
        kind: AggKind,
        arg: Option<Expr>,
        distinct: bool,
        clauses: AggClauses,
        location: Option<u32>,
    ) -> Result<usize> {
        if let Some(clause) = self.agg_clause {
            return Err(SqlError::new(
                "42803",
                format!("aggregate functions are not allowed in {clause}"),
            )
            .at(location));
        }
        let AggClauses { order, filter } = clauses;
        self.aggs.push(AggCall { kind, arg, distinct, order, filter });
        Ok(self.aggs.len() - 1)
    }

    fn subquery(
        &mut self,
        kind: SubLinkKind,
        query: &Node,
        testexpr: Option<Expr>,
    ) -> Result<(usize, SqlType)> {
        let Some(planner) = self.planner.as_deref_mut() else {
            if let Some(clause) = self.sublink_clause {
                return Err(SqlError::unsupported(format!("cannot use subquery in {clause}")));
            }
            return Err(SqlError::unsupported("subqueries are not supported here"));
        };
        planner.sublink(self.params, &self.scope, kind, query, testexpr)
    }

    fn outer_scope(&self, levels_up: usize) -> Option<&Scope> {
        self.planner.as_deref()?.outer_scope(levels_up)
    }

    fn user_type(&mut self, schema: Option<&str>, name: &str) -> Result<Option<SqlType>> {
        match self.type_catalog() {
            Some(types) => types.by_name(schema, name),
            None => Ok(None),
        }
    }

    fn outer_reference(&mut self, levels_up: usize, column: Expr) -> Result<Expr> {
        match self.planner.as_deref_mut() {
            Some(planner) => planner.outer_reference(levels_up, column),
            None => Err(SqlError::internal("outer reference without a planner")),
        }
    }
}
