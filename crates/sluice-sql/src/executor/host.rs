//! The executor's side of expression evaluation: parameters, aggregate
//! results, subqueries (run by `subplan.rs`), and the values expressions
//! ask the session for (now(), current_setting(), pg_backend_pid(),
//! relation sizes, ...). Analysis has its host in the optimizer
//! (`optimizer/planhost.rs`).

use super::plan::subplan::{run_subplan, SubplanState};
use super::spill::TempSpace;
use crate::catalog::pg_type::TypeCatalog;
use crate::error::{Result, SqlError};
use crate::executor::context::BackendEnv;
use crate::expr::{EvalHost, SessionFunction};
pub use crate::optimizer::planhost::{PlanHost, SubqueryPlanner};
pub use crate::optimizer::plannodes::AggCall;
use crate::optimizer::plannodes::Registry;
use rand::Rng;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::Engine;
use sluice_guc::Settings;
use sluice_txn::Transaction;
use sluice_types::{Context, Datum};
use std::cell::OnceCell;
use std::rc::Rc;

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

    /// type_catalog -- the types the statement sees, along the session's
    /// search path (for stored expressions that name types).
    pub fn type_catalog(&self) -> TypeCatalog {
        let setting = self.env.settings.get_str("search_path");
        let (engine, db, user) = (self.env.engine, self.env.database, self.env.user);
        TypeCatalog::from_visibility(engine, db, self.visibility(), setting, user)
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
