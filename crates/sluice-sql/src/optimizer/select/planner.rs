//! The statement-wide planning state: subqueries in expressions and their
//! correlation (PostgreSQL's `transformSubLink` plus the planner's
//! `make_subplan` and `SS_replace_correlation_vars`).
//!
//! # Query levels
//! Planning a sublink pushes a [`Level`] holding the scope of the query the
//! sublink is written in, then plans the subquery. A column the subquery
//! cannot find in its own FROM list is looked up in the levels from the
//! innermost out (`AnalyzeHost::outer_scope`); found in level `k`, it becomes
//! an `Expr::ExecParam` slot that level `k`'s subplan sets from its outer row
//! (an arg), and that every subplan nested deeper reads from outside (an
//! ext param, which decides when their kept outcomes go stale). Plain FROM
//! subqueries and WITH queries push no level: they cannot see their own
//! query's columns, only the enclosing queries'.
//!
//! # LATERAL
//! A LATERAL subquery, or a function in FROM, may read the columns of the
//! FROM items to its left. Planning it pushes a level too, whose scope is
//! those columns ([`Planner::lateral`]): a column found there becomes a slot
//! exactly as for a sublink, but the slots are set by the nested loop that
//! joins the item to the items on its left, once per outer row, before it
//! runs the item again (PostgreSQL's NestLoopParam; see `Plan::NestLoop`).
//! WITH queries defined inside the item belong to that level and are
//! recomputed whenever the item is.
//!
//! # Invariants
//! * `levels` is exactly as deep after planning any query as before;
//! * a slot is set by exactly one subplan (the one of the level whose
//!   column it carries), so nested runs never overwrite each other's slots;
//! * every id in an `Expr::SubLink` or `Plan::CteScan` names an entry of
//!   the registry once the statement is planned.

use crate::catalog::pg_type::TypeCatalog;
use std::collections::BTreeSet;

use pg_query::protobuf::Node;
use pg_query::NodeEnum;
use sluice_types::SqlType;

use super::{plan_query, Planned};
use crate::error::{Result, SqlError};
use crate::expr::{make_op, Expr, Scope, SubLinkKind};
use crate::optimizer::context::PlannerContext;
use crate::optimizer::planhost::SubqueryPlanner;
use crate::optimizer::plannodes::{Plan, Registry, SubPlan};

/// An enclosing query while one of its sublinks is planned, or the FROM
/// items to the left of a LATERAL item while it is planned.
struct Level {
    /// The enclosing query's columns.
    scope: Scope,
    /// Slots the sublink's subplan sets: (slot, column of `scope`).
    args: Vec<(usize, Expr)>,
    /// Slots set further out that the subquery reads.
    ext: BTreeSet<usize>,
    /// WITH queries the subquery defines.
    ctes: Vec<usize>,
}

/// What a LATERAL FROM item reads from the FROM items to its left.
#[derive(Debug, Default)]
pub(crate) struct LateralRefs {
    /// Slots to set before each run of the item: (slot, column of the
    /// lateral scope, as `Expr::Column` indexing that scope).
    pub args: Vec<(usize, Expr)>,
    /// WITH queries defined inside the item, recomputed with it.
    pub ctes: Vec<usize>,
}

/// Planning state of one statement.
pub(crate) struct Planner<'p, 'a> {
    parts: &'p mut (dyn PlannerContext + 'a),
    registry: Registry,
    levels: Vec<Level>,
    /// The WITH lists in scope, innermost last (see `cte.rs`).
    pub(super) ctes: Vec<super::cte::CteFrame>,
    /// The locking clauses of the query whose FROM list is being planned
    /// (see `rowmarks.rs`).
    pub(super) locking: Option<super::rowmarks::LockRequest>,
    /// The clause an enclosing query's FOR UPDATE passes to the FROM
    /// subquery about to be planned.
    pub(super) inherited_lock: Option<super::rowmarks::RowLockSpec>,
    /// The views being expanded, outermost first (a view met again inside
    /// itself is infinite recursion; see `view.rs`).
    pub(super) views: Vec<sluice_common::Oid>,
}

impl<'p, 'a> Planner<'p, 'a> {
    /// A planner for a statement run with `parts`.
    pub(crate) fn new(parts: &'p mut (dyn PlannerContext + 'a)) -> Planner<'p, 'a> {
        Planner {
            parts,
            registry: Registry::default(),
            levels: Vec::new(),
            ctes: Vec::new(),
            locking: None,
            inherited_lock: None,
            views: Vec::new(),
        }
    }

    /// The session and transaction (catalog lookups, locks).
    pub(crate) fn parts(&mut self) -> &mut (dyn PlannerContext + 'a) {
        self.parts
    }

    /// What has been planned into the registry so far.
    pub(crate) fn registry(&self) -> &Registry {
        &self.registry
    }

    /// into_registry -- ends planning, returning the statement's registry.
    pub(crate) fn into_registry(self) -> Registry {
        self.registry
    }

    /// finish -- ends planning a statement whose top query is `planned`: a
    /// plan with subqueries or WITH queries gets the registry at its root.
    pub(crate) fn finish(self, planned: Planned) -> Planned {
        if self.registry.is_empty() {
            return planned;
        }
        let plan =
            Plan::Statement { input: Box::new(planned.plan), registry: Box::new(self.registry) };
        Planned { plan, columns: planned.columns }
    }

    /// How many sublink levels enclose the query being planned.
    pub(super) fn depth(&self) -> usize {
        self.levels.len()
    }

    /// Registers a WITH query's plan, owned by the innermost sublink being
    /// planned (recomputed whenever it runs) or by the statement.
    pub(super) fn add_cte(&mut self, plan: Plan) -> usize {
        self.registry.ctes.push(plan);
        let id = self.registry.ctes.len() - 1;
        if let Some(level) = self.levels.last_mut() {
            level.ctes.push(id);
        }
        id
    }

    /// A new recursive working table.
    pub(super) fn add_work_table(&mut self) -> usize {
        self.registry.work_tables += 1;
        self.registry.work_tables - 1
    }

    /// with_depth -- runs `f` with only the outermost `depth` levels visible
    /// (a WITH query planned on first reference sees what its WITH sees).
    pub(super) fn with_depth<T>(
        &mut self,
        depth: usize,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        let hidden = self.levels.split_off(depth.min(self.levels.len()));
        let result = f(self);
        self.levels.extend(hidden);
        result
    }

    /// lateral -- runs `plan`, which plans a FROM item, with `scope` (the
    /// columns of the FROM items to its left) visible as the nearest
    /// enclosing level; returns its result and what it read from `scope`.
    pub(super) fn lateral<T>(
        &mut self,
        scope: &Scope,
        plan: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<(T, LateralRefs)> {
        self.levels.push(Level {
            scope: scope.clone(),
            args: Vec::new(),
            ext: BTreeSet::new(),
            ctes: Vec::new(),
        });
        let planned = plan(self);
        let level = self.levels.pop().expect("pushed above");
        // The item also runs again whenever the query level around it does
        // (a sublink's subplan): its WITH queries are that level's too.
        if let Some(enclosing) = self.levels.last_mut() {
            enclosing.ctes.extend(&level.ctes);
        }
        Ok((planned?, LateralRefs { args: level.args, ctes: level.ctes }))
    }

    fn new_slot(&mut self) -> usize {
        self.registry.params += 1;
        self.registry.params - 1
    }

    /// The comparison of `x op ANY/ALL (subquery)`, reading the subquery's
    /// value from a new slot: (test, slot).
    fn any_test(
        &mut self,
        operator: &str,
        testexpr: Option<Expr>,
        column: &crate::sink::OutputColumn,
    ) -> Result<(Expr, usize)> {
        let left = testexpr.ok_or_else(|| SqlError::internal("ANY without a left operand"))?;
        let slot = self.new_slot();
        let right = Expr::ExecParam { slot, ty: column.ty, typmod: column.typmod, location: None };
        let test = make_op(operator, Some(left), right, None)?;
        if test.ty() != SqlType::Bool {
            return Err(SqlError::new(
                "42804",
                format!(
                    "row comparison operator must yield type boolean, not type {}",
                    sluice_types::format_type(test.ty(), -1)
                ),
            ));
        }
        Ok((test, slot))
    }
}

impl SubqueryPlanner for Planner<'_, '_> {
    fn type_catalog(&mut self) -> TypeCatalog {
        self.parts.planner_parts().type_catalog()
    }

    fn sublink(
        &mut self,
        params: &mut Vec<Option<SqlType>>,
        scope: &Scope,
        kind: SubLinkKind,
        query: &Node,
        testexpr: Option<Expr>,
    ) -> Result<(usize, SqlType)> {
        let Some(NodeEnum::SelectStmt(select)) = query.node.as_ref() else {
            return Err(SqlError::internal("sublink without a SELECT"));
        };
        self.levels.push(Level {
            scope: scope.clone(),
            args: Vec::new(),
            ext: BTreeSet::new(),
            ctes: Vec::new(),
        });
        let planned = plan_query(self, params, select, true);
        let level = self.levels.pop().expect("pushed above");
        let planned = planned?;
        let (ty, test, result_slot) = match &kind {
            SubLinkKind::Exists => (SqlType::Bool, None, 0),
            SubLinkKind::Scalar => match planned.columns.as_slice() {
                [column] => (column.ty, None, 0),
                _ => return Err(SqlError::syntax("subquery must return only one column")),
            },
            SubLinkKind::Any { operator } | SubLinkKind::All { operator } => {
                let column = match planned.columns.as_slice() {
                    [column] => column,
                    [] => return Err(SqlError::syntax("subquery has too few columns")),
                    _ => return Err(SqlError::syntax("subquery has too many columns")),
                };
                let (test, slot) = self.any_test(operator, testexpr, column)?;
                (SqlType::Bool, Some(test), slot)
            }
        };
        self.registry.subplans.push(SubPlan {
            plan: planned.plan,
            kind,
            test,
            result_slot,
            args: level.args,
            ext_params: level.ext.into_iter().collect(),
            ctes: level.ctes,
        });
        Ok((self.registry.subplans.len() - 1, ty))
    }

    fn outer_scope(&self, levels_up: usize) -> Option<&Scope> {
        let index = self.levels.len().checked_sub(levels_up)?;
        Some(&self.levels[index].scope)
    }

    fn outer_reference(&mut self, levels_up: usize, column: Expr) -> Result<Expr> {
        let Expr::Column { index, ty, typmod, location } = column else {
            return Err(SqlError::internal("outer reference is not a column"));
        };
        let k = self
            .levels
            .len()
            .checked_sub(levels_up)
            .ok_or_else(|| SqlError::internal("outer reference beyond the outermost query"))?;
        let existing = self.levels[k]
            .args
            .iter()
            .find(|(_, e)| matches!(e, Expr::Column { index: i, .. } if *i == index))
            .map(|(slot, _)| *slot);
        let slot = match existing {
            Some(slot) => slot,
            None => {
                let slot = self.new_slot();
                self.levels[k].args.push((slot, Expr::column(index, ty, typmod)));
                slot
            }
        };
        for level in &mut self.levels[k + 1..] {
            level.ext.insert(slot);
        }
        Ok(Expr::ExecParam { slot, ty, typmod, location })
    }
}
