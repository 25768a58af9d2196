//! `FOR UPDATE | FOR NO KEY UPDATE | FOR SHARE | FOR KEY SHARE [OF table]
//! [NOWAIT | SKIP LOCKED]`: which tables of a SELECT lock their rows
//! (PostgreSQL's `transformLockingClause`, `CheckSelectLocking` and the
//! planner's row marks).
//!
//! Planning a query with locking clauses goes in three steps:
//!
//! 1. Before its FROM list is planned, the clauses become a
//!    [`LockRequest`] on the planner. Each table the FROM list names asks it
//!    whether its rows are locked ([`Planner::row_mark_for`]); a locked
//!    table's scan then also returns each row's address as a *junk column*
//!    (PostgreSQL's resjunk `ctid`) placed right after the table's columns in
//!    the FROM row. Its scope column has a name no identifier can spell
//!    ([`junk_column`]), so neither `*` nor a column reference finds it. A
//!    subquery in FROM that the clause covers plans its own query with the
//!    clause (its rows are locked by its own LockRows node).
//! 2. Every FROM item's name and kind is recorded, so that after the FROM list
//!    an `OF name` that names nothing fails with 42P01, and one that names a
//!    function, a WITH query or a join fails with 0A000, as in PostgreSQL.
//! 3. Once the query's targets are analysed, [`check_select_locking`]
//!    refuses what cannot be locked (aggregates, GROUP BY, DISTINCT, ...),
//!    and the LockRows node is placed above the sort and below the LIMIT
//!    (`select.rs`), so only the rows returned are locked.

use super::Planner;
use crate::catalog::relation::RelationDesc;
use crate::error::{Result, SqlError};
use crate::expr::ScopeColumn;
pub use crate::optimizer::plannodes::RowLockSpec;
use pg_query::protobuf::{self, LockClauseStrength, Node};
use pg_query::NodeEnum;
use sluice_access::heap::heapam::LockWaitPolicy;
use sluice_access::heap::tuplock::TupleLockMode;
use sluice_types::SqlType;

impl RowLockSpec {
    /// Two clauses covering one table: the stronger strength and the less
    /// patient policy win (PostgreSQL's applyLockingClause).
    fn merge(self, other: RowLockSpec) -> RowLockSpec {
        RowLockSpec {
            strength: self.strength.max(other.strength),
            policy: if policy_rank(other.policy) > policy_rank(self.policy) {
                other.policy
            } else {
                self.policy
            },
        }
    }
}

/// PostgreSQL orders wait policies Block < SkipLocked < Error.
fn policy_rank(policy: LockWaitPolicy) -> u8 {
    match policy {
        LockWaitPolicy::Block => 0,
        LockWaitPolicy::SkipLocked => 1,
        LockWaitPolicy::Nowait => 2,
    }
}

/// One locking clause: its spec and the names after OF (empty: every table).
#[derive(Clone, Debug)]
struct LockClause {
    spec: RowLockSpec,
    names: Vec<(String, Option<u32>)>,
}

/// What kind of FROM item a name refers to, for the OF checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FromKind {
    /// A table: its rows can be locked.
    Relation,
    /// A subquery: its own tables are locked.
    Subquery,
    /// A function in FROM.
    Function,
    /// A WITH query.
    Cte,
    /// A join with an alias.
    Join,
}

/// The locking clauses of the query being planned and the FROM items met.
#[derive(Clone, Debug, Default)]
pub(crate) struct LockRequest {
    clauses: Vec<LockClause>,
    seen: Vec<(String, FromKind)>,
    /// The tables whose rows are locked, in the order they were planned.
    marked: Vec<(RelationDesc, RowLockSpec)>,
}

impl LockRequest {
    /// from_clauses -- the request `list` (a SelectStmt's locking_clause)
    /// makes, merged with `inherited` (the clause of an enclosing query that
    /// covers this subquery). `None` if nothing is locked.
    pub(crate) fn from_clauses(
        list: &[Node],
        inherited: Option<RowLockSpec>,
    ) -> Result<Option<LockRequest>> {
        let mut clauses: Vec<LockClause> =
            inherited.map(|spec| LockClause { spec, names: Vec::new() }).into_iter().collect();
        for node in list {
            let Some(NodeEnum::LockingClause(lc)) = node.node.as_ref() else { continue };
            clauses.push(LockClause { spec: clause_spec(lc)?, names: locked_names(lc) });
        }
        Ok((!clauses.is_empty()).then_some(LockRequest { clauses, ..LockRequest::default() }))
    }

    /// The locked tables, in the order they were planned.
    pub(crate) fn into_marked(self) -> Vec<(RelationDesc, RowLockSpec)> {
        self.marked
    }

    /// The strength the first clause names, for CheckSelectLocking's messages.
    pub(crate) fn first_clause(&self) -> &'static str {
        self.clauses.first().map_or("FOR UPDATE", |c| c.spec.strength.clause())
    }

    /// spec_for -- how the FROM item called `name` is locked, if at all.
    fn spec_for(&self, name: &str) -> Option<RowLockSpec> {
        self.clauses
            .iter()
            .filter(|c| c.names.is_empty() || c.names.iter().any(|(n, _)| n == name))
            .map(|c| c.spec)
            .reduce(RowLockSpec::merge)
    }

    /// check_names -- after the FROM list: every OF name must be a FROM
    /// item whose rows can be locked.
    pub(crate) fn check_names(&self) -> Result<()> {
        for clause in &self.clauses {
            for (name, location) in &clause.names {
                let kind = self.seen.iter().find(|(n, _)| n == name).map(|(_, k)| *k);
                let what = match kind {
                    Some(FromKind::Relation | FromKind::Subquery) => continue,
                    Some(FromKind::Function) => "a function",
                    Some(FromKind::Cte) => "a WITH query",
                    Some(FromKind::Join) => "a join",
                    None => {
                        return Err(SqlError::new(
                            "42P01",
                            format!(
                                "relation \"{name}\" in {} clause not found in FROM clause",
                                clause.spec.strength.clause()
                            ),
                        )
                        .at(*location))
                    }
                };
                return Err(SqlError::new(
                    "0A000",
                    format!("{} cannot be applied to {what}", clause.spec.strength.clause()),
                )
                .at(*location));
            }
        }
        Ok(())
    }
}

/// The strength and policy a clause asks for.
fn clause_spec(lc: &protobuf::LockingClause) -> Result<RowLockSpec> {
    let strength = match LockClauseStrength::try_from(lc.strength) {
        Ok(LockClauseStrength::LcsForkeyshare) => TupleLockMode::KeyShare,
        Ok(LockClauseStrength::LcsForshare) => TupleLockMode::Share,
        Ok(LockClauseStrength::LcsFornokeyupdate) => TupleLockMode::NoKeyUpdate,
        Ok(LockClauseStrength::LcsForupdate) => TupleLockMode::Update,
        _ => return Err(SqlError::internal("unrecognized LockClauseStrength")),
    };
    let policy = match protobuf::LockWaitPolicy::try_from(lc.wait_policy) {
        Ok(protobuf::LockWaitPolicy::LockWaitSkip) => LockWaitPolicy::SkipLocked,
        Ok(protobuf::LockWaitPolicy::LockWaitError) => LockWaitPolicy::Nowait,
        _ => LockWaitPolicy::Block,
    };
    Ok(RowLockSpec { strength, policy })
}

/// The tables after OF, with their positions.
fn locked_names(lc: &protobuf::LockingClause) -> Vec<(String, Option<u32>)> {
    lc.locked_rels
        .iter()
        .filter_map(|n| match n.node.as_ref()? {
            NodeEnum::RangeVar(rv) => {
                Some((rv.relname.clone(), crate::error::position(rv.location)))
            }
            _ => None,
        })
        .collect()
}

impl Planner<'_, '_> {
    /// row_mark_for -- notes a FROM item called `name` of kind `kind` in
    /// the query being planned and says how its rows are locked (for a
    /// subquery: the clause its own query inherits).
    pub(crate) fn row_mark_for(&mut self, name: &str, kind: FromKind) -> Option<RowLockSpec> {
        let request = self.locking.as_mut()?;
        request.seen.push((name.to_string(), kind));
        if !matches!(kind, FromKind::Relation | FromKind::Subquery) {
            return None;
        }
        request.spec_for(name)
    }

    /// marks_table -- whether a locking clause covers the FROM item `name`
    /// (nothing recorded: the item's kind is not known yet).
    pub(crate) fn marks_table(&self, name: &str) -> bool {
        self.locking.as_ref().is_some_and(|r| r.spec_for(name).is_some())
    }

    /// note_marked -- records that table `rel` of the query being planned
    /// has its rows locked as `spec` (its scan returns row addresses).
    pub(crate) fn note_marked(&mut self, rel: &RelationDesc, spec: RowLockSpec) {
        if let Some(request) = self.locking.as_mut() {
            request.marked.push((rel.clone(), spec));
        }
    }
}

/// The name of the junk row-address column: it starts with NUL, which no
/// SQL identifier contains.
const JUNK_NAME: &str = "\0ctid";

/// junk_column -- the scope column for the row address of a locked table,
/// qualified by its FROM name `table`.
pub(crate) fn junk_column(table: &str) -> ScopeColumn {
    ScopeColumn {
        table: Some(table.to_string()),
        name: JUNK_NAME.to_string(),
        ty: SqlType::Int8,
        typmod: -1,
    }
}

/// is_junk -- whether a scope column is a row address (see [`junk_column`]).
pub(crate) fn is_junk(column: &ScopeColumn) -> bool {
    // Dropped columns are `\0`-named too (hidden the same way), but are
    // not row addresses.
    column.name == JUNK_NAME
}

/// check_select_locking -- refuses a locking clause on a query whose rows are
/// not table rows (PostgreSQL's CheckSelectLocking, in its order).
pub(crate) fn check_select_locking(
    clause: &str,
    stmt: &protobuf::SelectStmt,
    has_aggs: bool,
) -> Result<()> {
    let reason = if !stmt.distinct_clause.is_empty() {
        "DISTINCT clause"
    } else if !stmt.group_clause.is_empty() {
        "GROUP BY clause"
    } else if stmt.having_clause.is_some() {
        "HAVING clause"
    } else if has_aggs {
        "aggregate functions"
    } else {
        return Ok(());
    };
    Err(SqlError::new("0A000", format!("{clause} is not allowed with {reason}")))
}

/// The error for a locking clause on UNION/INTERSECT/EXCEPT or on one of
/// its arms (`stmt`), or for an enclosing query's clause that covers a set
/// operation in FROM (`inherited`): their rows are not table rows.
pub(crate) fn set_operation_error(
    stmt: &protobuf::SelectStmt,
    inherited: Option<RowLockSpec>,
) -> Result<()> {
    match LockRequest::from_clauses(&stmt.locking_clause, inherited)? {
        Some(request) => Err(SqlError::new(
            "0A000",
            format!("{} is not allowed with UNION/INTERSECT/EXCEPT", request.first_clause()),
        )),
        None => Ok(()),
    }
}
