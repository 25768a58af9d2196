//! The executor's side of expression analysis and evaluation: parameter types,
//! aggregate collection, subqueries (planned through a [`SubqueryPlanner`],
//! run by `subplan.rs`), and the values expressions ask the session for
//! (now(), current_setting(), pg_backend_pid(), relation sizes, ...).

use super::plan::subplan::{run_subplan, Registry, SubplanState};
use super::spill::TempSpace;
use crate::error::{Result, SqlError};
use crate::executor::context::BackendEnv;
use crate::expr::{AnalyzeHost, EvalHost, Expr, Scope, SessionFunction, SubLinkKind};
use pg_query::protobuf::Node;
use rand::Rng;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::Engine;
use sluice_txn::Transaction;
use sluice_types::{AggKind, Context, Datum, SqlType};
use std::cell::OnceCell;
use std::rc::Rc;

/// One aggregate call found while analysing a query's targets.
#[derive(Clone, Debug)]
pub struct AggCall {
    /// Which aggregate.
    pub kind: AggKind,
    /// Its argument (`None` for count(*)).
    pub arg: Option<Expr>,
    /// `DISTINCT` inside the call.
    pub distinct: bool,
}

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
    /// The columns the analysed expressions see (the outer scope of their
    /// subqueries).
    scope: Scope,
}

impl<'p> PlanHost<'p> {
    /// A host with the parameter types known so far, without subqueries.
    pub fn new(params: &'p mut Vec<Option<SqlType>>) -> PlanHost<'p> {
        PlanHost {
            params,
            aggs: Vec::new(),
            agg_clause: None,
            planner: None,
            scope: Scope::default(),
        }
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
            scope: scope.clone(),
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
        location: Option<u32>,
    ) -> Result<usize> {
        if let Some(clause) = self.agg_clause {
            return Err(SqlError::new(
                "42803",
                format!("aggregate functions are not allowed in {clause}"),
            )
            .at(location));
        }
        self.aggs.push(AggCall { kind, arg, distinct });
        Ok(self.aggs.len() - 1)
    }

    fn subquery(
        &mut self,
        kind: SubLinkKind,
        query: &Node,
        testexpr: Option<Expr>,
    ) -> Result<(usize, SqlType)> {
        let Some(planner) = self.planner.as_deref_mut() else {
            return Err(SqlError::unsupported("subqueries are not supported here"));
        };
        planner.sublink(self.params, &self.scope, kind, query, testexpr)
    }

    fn outer_scope(&self, levels_up: usize) -> Option<&Scope> {
        self.planner.as_deref()?.outer_scope(levels_up)
    }

    fn outer_reference(&mut self, levels_up: usize, column: Expr) -> Result<Expr> {
        match self.planner.as_deref_mut() {
            Some(planner) => planner.outer_reference(levels_up, column),
            None => Err(SqlError::internal("outer reference without a planner")),
        }
    }
}

/// Evaluation-time state of one statement.
pub struct ExecHost<'h, 'a> {
    env: &'h mut BackendEnv<'a>,
    /// The statement's snapshot, for catalog lookups made by functions.
    visibility: VisibilityContext<'h>,
    context: Context,
    params: Vec<Datum>,
    /// Aggregate results of the group being projected.
    pub aggs: Vec<Datum>,
    /// Subqueries, PARAM_EXEC slots and WITH queries.
    pub subplans: SubplanState<'h>,
    rng: rand::rngs::ThreadRng,
    /// The transaction, for statements that lock rows (LockRows).
    txn: Option<&'h mut Transaction>,
    /// Memory budget and temporary files of nodes that spill, made when
    /// the first one asks.
    temp: OnceCell<Rc<TempSpace>>,
}

impl<'h, 'a> ExecHost<'h, 'a> {
    /// A host for a statement with bound `params`.
    pub fn new(
        env: &'h mut BackendEnv<'a>,
        params: Vec<Datum>,
        visibility: VisibilityContext<'h>,
    ) -> ExecHost<'h, 'a> {
        let context = crate::expr::session_context(&*env.settings, env.txn_start);
        ExecHost {
            env,
            visibility,
            context,
            params,
            aggs: Vec::new(),
            subplans: SubplanState::default(),
            rng: rand::rng(),
            txn: None,
            temp: OnceCell::new(),
        }
    }

    /// Lends the host the transaction, so the plan may lock rows.
    pub fn with_transaction(mut self, txn: &'h mut Transaction) -> Self {
        self.txn = Some(txn);
        self
    }

    /// take_transaction -- borrows back the transaction lent with
    /// [`ExecHost::with_transaction`], until [`ExecHost::return_transaction`].
    pub fn take_transaction(&mut self) -> Result<&'h mut Transaction> {
        self.txn.take().ok_or_else(|| SqlError::internal("the transaction is not lent"))
    }

    /// return_transaction -- lends the transaction to the host again.
    pub fn return_transaction(&mut self, txn: &'h mut Transaction) {
        self.txn = Some(txn);
    }

    /// row_locker -- the engine and the transaction, for LockRows.
    pub fn row_locker(&mut self) -> Result<(&'a Engine, &mut Transaction)> {
        let engine = self.env.engine;
        match self.txn.as_deref_mut() {
            Some(txn) => Ok((engine, txn)),
            None => Err(SqlError::unsupported("row locks are not supported in this statement")),
        }
    }

    /// Makes the statement's subqueries and WITH queries runnable.
    pub fn install(&mut self, registry: &'h Registry) {
        self.subplans.install(registry);
    }

    /// The storage engine.
    pub fn engine(&self) -> &'a Engine {
        self.env.engine
    }

    /// The session's database.
    pub fn database(&self) -> sluice_common::Oid {
        self.env.database
    }

    /// The session state.
    pub fn env(&mut self) -> &mut BackendEnv<'a> {
        self.env
    }

    /// The statement's snapshot.
    pub fn visibility(&self) -> &VisibilityContext<'h> {
        &self.visibility
    }

    /// txid_current(): the transaction's xid. Functions cannot borrow the
    /// transaction, so the executor assigns the xid before running a statement
    /// that calls them (see `executor::run`).
    pub fn assign_xid(&mut self) -> Result<sluice_common::Xid> {
        self.visibility
            .snapshot
            .own_xid
            .ok_or_else(|| SqlError::internal("transaction id was not assigned"))
    }

    /// The statement's `work_mem` budget and temporary file space (see
    /// `spill`), shared by all its nodes.
    pub fn temp_space(&self) -> Rc<TempSpace> {
        let make = || {
            let interrupts = self.env.interrupts.clone();
            Rc::new(TempSpace::new(self.env.engine.data_dir(), &*self.env.settings, interrupts))
        };
        self.temp.get_or_init(make).clone()
    }

    /// The session's interrupt check (for waits inside the heap).
    pub fn interrupts(&self) -> crate::activity::InterruptCheck {
        self.env.interrupts.clone()
    }
}

impl EvalHost for ExecHost<'_, '_> {
    fn context(&self) -> &Context {
        &self.context
    }

    fn param(&self, n: usize) -> &Datum {
        n.checked_sub(1).and_then(|i| self.params.get(i)).unwrap_or(&Datum::Null)
    }

    fn aggregate_value(&self, index: usize) -> &Datum {
        self.aggs.get(index).unwrap_or(&Datum::Null)
    }

    fn subquery(&mut self, id: usize, row: &[Datum]) -> Result<Datum> {
        run_subplan(self, id, row)
    }

    fn exec_param(&self, slot: usize) -> &Datum {
        self.subplans.param(slot)
    }

    fn session_function(&mut self, f: SessionFunction, args: &[Datum]) -> Result<Datum> {
        super::functions::call(self, f, args)
    }

    fn random(&mut self) -> f64 {
        self.rng.random::<f64>()
    }

    fn check_interrupts(&self) -> Result<()> {
        (self.env.interrupts)()
    }
}
