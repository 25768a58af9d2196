//! Plan node descriptions (PostgreSQL's `nodes/plannodes.h`, with the
//! index path of `pathnodes.h` a scan keeps): what the planner builds and
//! the executor runs, as plain data.
//!
//! The planner (`optimizer/select*.rs`, `optimizer/modify*.rs`) makes a [`Plan`]
//! tree; the executor opens it into running nodes (`executor/plan.rs`),
//! EXPLAIN prints it, and a kept plan (`executor/plancache.rs`) is one of
//! these trees shared between executions. Nothing here runs or holds
//! run-time state: every type is a value the plan owns, so a plan can be
//! kept, shown and run again.
//!
//! The shape of a statement's tree:
//!
//! ```text
//!   [Statement] ─ Limit ─ Sort ─ Project ─ [Filter(HAVING)] ─ [Aggregate] ─ [Filter(WHERE)] ─ source
//!   source: SeqScan | IndexScan | GenerateSeries | Unnest | Values | Result | CteScan | WorkTableScan
//!         | NestLoop(source, [Material] source) | HashJoin(source, source)
//!         | MergeJoin(Sort source, Sort source) | a whole query (FROM subquery)
//!   set operations: Append (UNION ALL) | Distinct(Append) (UNION) | SetOp (INTERSECT, EXCEPT)
//! ```
//!
//! Subqueries in expressions and WITH queries are not in the tree: they are
//! planned into the statement's [`Registry`], which the `Statement` root
//! hands to the executor before the first row.

use crate::catalog::index::IndexDesc;
use crate::catalog::relation::RelationDesc;
use crate::expr::{Expr, SubLinkKind};
use sluice_access::heap::heapam::LockWaitPolicy;
use sluice_access::heap::tuplock::TupleLockMode;
use sluice_types::ops::CmpOp;
use sluice_types::{AggKind, Datum, SqlType};

/// A sort key: which column of the node's input, and its direction.
#[derive(Clone, Copy, Debug)]
pub struct SortKey {
    /// Column index.
    pub column: usize,
    /// DESC.
    pub descending: bool,
    /// NULLS FIRST (PostgreSQL's default: with DESC).
    pub nulls_first: bool,
}

/// The join types supported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JoinKind {
    /// INNER / CROSS.
    Inner,
    /// LEFT OUTER.
    Left,
    /// RIGHT OUTER: every inner row appears, NULL-extended when unmatched
    /// (the planner's form of a LEFT join whose preserved side is hashed).
    Right,
}

/// A plan node.
#[derive(Debug)]
pub enum Plan {
    /// One empty row (SELECT without FROM).
    Result,
    /// Every visible row of a table; columns not `needed` are left NULL
    /// (not decoded), which keeps `count(*)` from converting every value.
    /// `alias` is the FROM clause's name for it, when that differs. With
    /// `ctid` each row also carries its version's address as a last, junk
    /// column (for LockRows, see `lockrows.rs`).
    SeqScan { rel: Box<RelationDesc>, needed: Option<Vec<bool>>, alias: Option<String>, ctid: bool },
    /// The rows of a table an index finds (the WHERE clause stays above);
    /// `ctid` as for SeqScan.
    IndexScan { rel: Box<RelationDesc>, path: Box<IndexPath>, alias: Option<String>, ctid: bool },
    /// generate_series(start, stop, step) of one numeric type.
    GenerateSeries { start: Expr, stop: Expr, step: Option<Expr>, ty: SqlType },
    /// `unnest(array) [WITH ORDINALITY]` in FROM: a row per element of
    /// `array`, with its 1-based position when `ordinality`. With
    /// `options` it is `pg_options_to_table(array)`: each `name=value`
    /// element split into two columns.
    Unnest { array: Expr, ordinality: bool, options: bool },
    /// Literal rows.
    Values(Vec<Vec<Expr>>),
    /// Rows computed at planning time (system views).
    Rows(Vec<Vec<Datum>>),
    /// Rows of `input` for which `qual` is true.
    Filter { input: Box<Plan>, qual: Expr, agg_offset: Option<usize> },
    /// Nested-loop join. Without `params` the inner side is materialised
    /// once. With them (a LATERAL inner side) it runs again for every outer
    /// row, after each slot is set from the outer row (PostgreSQL's
    /// NestLoopParam) and the WITH queries inside it (`rescan_ctes`) are
    /// forgotten.
    NestLoop {
        outer: Box<Plan>,
        inner: Box<Plan>,
        kind: JoinKind,
        qual: Option<Expr>,
        inner_width: usize,
        params: Vec<(usize, Expr)>,
        rescan_ctes: Vec<usize>,
    },
    /// Hash join (see `join.rs`): a hash table of the inner rows by
    /// `inner_keys`, probed with each outer row's `outer_keys`; `qual` (over
    /// the joined row) is checked on each pair whose keys are equal.
    HashJoin {
        outer: Box<Plan>,
        inner: Box<Plan>,
        kind: JoinKind,
        outer_keys: Vec<Expr>,
        inner_keys: Vec<Expr>,
        qual: Option<Expr>,
        outer_width: usize,
        inner_width: usize,
    },
    /// Merge join (see `join.rs`) of two inputs sorted ascending (NULLs
    /// last) on the key columns `(outer column, inner column)`.
    MergeJoin {
        outer: Box<Plan>,
        inner: Box<Plan>,
        kind: JoinKind,
        keys: Vec<(usize, usize)>,
        qual: Option<Expr>,
        outer_width: usize,
        inner_width: usize,
    },
    /// Keeps its input's rows for rescans: the inner side of a nested loop,
    /// which the loop materialises anyway (in a tuplestore, on disk past
    /// `work_mem`), so the node only marks that.
    Material { input: Box<Plan> },
    /// Grouping and aggregation; each output row is a group's first input row
    /// (NULLs, `input_width` of them, for the one group of an empty input)
    /// followed by the aggregate results. `hashed` groups through a hash
    /// table (HashAggregate, groups in first-seen order) instead of sorting.
    Aggregate {
        input: Box<Plan>,
        keys: Vec<Expr>,
        aggs: Vec<AggCall>,
        input_width: usize,
        hashed: bool,
    },
    /// Computes output expressions.
    Project { input: Box<Plan>, exprs: Vec<Expr>, agg_offset: Option<usize> },
    /// Removes duplicate rows (compares the first `width` columns).
    Distinct { input: Box<Plan>, width: usize },
    /// Sorts.
    Sort { input: Box<Plan>, keys: Vec<SortKey> },
    /// Locks the rows of the tables a FOR UPDATE/SHARE clause covers,
    /// leaving out rows SKIP LOCKED passes over (see `lockrows.rs`).
    LockRows { input: Box<Plan>, spec: Box<LockRowsSpec> },
    /// OFFSET / LIMIT.
    Limit { input: Box<Plan>, offset: Option<Expr>, limit: Option<Expr> },
    /// Keeps the first `width` columns (drops hidden sort columns).
    Truncate { input: Box<Plan>, width: usize },
    /// The root of a statement with subqueries or WITH queries.
    Statement { input: Box<Plan>, registry: Box<Registry> },
    /// The rows of each input in turn (UNION ALL).
    Append { inputs: Vec<Plan> },
    /// INTERSECT or EXCEPT, `ALL` keeping duplicates.
    SetOp { left: Box<Plan>, right: Box<Plan>, kind: SetOpKind, all: bool },
    /// The rows of WITH query `cte` (registry id).
    CteScan { cte: usize },
    /// The current working table `table` of a recursive union.
    WorkTableScan { table: usize },
    /// WITH RECURSIVE: `non_recursive` UNION [ALL] repeated `recursive`.
    RecursiveUnion { non_recursive: Box<Plan>, recursive: Box<Plan>, table: usize, all: bool },
}

/// INTERSECT or EXCEPT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetOpKind {
    /// Rows in both inputs.
    Intersect,
    /// Rows of the left input not in the right one.
    Except,
}

/// One aggregate call found while analysing a query's targets.
#[derive(Clone, Debug)]
pub struct AggCall {
    /// Which aggregate.
    pub kind: AggKind,
    /// Its argument (`None` for count(*)).
    pub arg: Option<Expr>,
    /// `DISTINCT` inside the call.
    pub distinct: bool,
    /// `ORDER BY` inside the call: the order the aggregate sees its
    /// values in (empty: input order).
    pub order: Vec<crate::expr::AggOrderKey>,
    /// `FILTER (WHERE ...)`: only rows for which it is true are aggregated.
    pub filter: Option<Expr>,
}

/// Everything a statement's subqueries and WITH queries need at run time.
#[derive(Debug, Default)]
pub struct Registry {
    /// Subqueries used as expressions, by `Expr::SubLink` id.
    pub subplans: Vec<SubPlan>,
    /// WITH query plans, by `Plan::CteScan` id.
    pub ctes: Vec<Plan>,
    /// The number of PARAM_EXEC slots.
    pub params: usize,
    /// The number of recursive working tables.
    pub work_tables: usize,
}

impl Registry {
    /// Whether the statement has neither subqueries nor WITH queries, nor
    /// slots (a LATERAL item's).
    pub fn is_empty(&self) -> bool {
        self.subplans.is_empty() && self.ctes.is_empty() && self.params == 0
    }
}

/// A planned subquery used as an expression (PostgreSQL's `SubPlan`).
#[derive(Debug)]
pub struct SubPlan {
    /// The subquery's plan.
    pub plan: Plan,
    /// EXISTS, scalar, ANY or ALL.
    pub kind: SubLinkKind,
    /// For ANY/ALL: the boolean comparison, over the outer row, reading the
    /// subquery's value from slot `result_slot`.
    pub test: Option<Expr>,
    /// The slot `test` reads the subquery's value from.
    pub result_slot: usize,
    /// Slots set from the outer row before each run: (slot, expression over
    /// the outer row).
    pub args: Vec<(usize, Expr)>,
    /// Slots set by enclosing subplans that this one (or one inside it) reads.
    pub ext_params: Vec<usize>,
    /// WITH queries defined inside this subquery, recomputed per run.
    pub ctes: Vec<usize>,
}

/// One locked table of the query (PostgreSQL's PlanRowMark).
#[derive(Debug)]
pub struct RowMark {
    /// The table.
    pub rel: Box<RelationDesc>,
    /// Where its columns start in the FROM row.
    pub first: usize,
    /// Where its junk row-address column is in the FROM row.
    pub tid: usize,
    /// Strength and wait policy.
    pub spec: RowLockSpec,
}

/// What LockRows needs besides its input.
#[derive(Debug)]
pub struct LockRowsSpec {
    /// The locked tables.
    pub marks: Vec<RowMark>,
    /// Where the FROM row starts in an input row.
    pub from: usize,
    /// The WHERE clause over the FROM row, re-checked on newer versions.
    pub recheck: Option<Expr>,
    /// The outputs (targets, then hidden sort keys) over the FROM row,
    /// computed again when a newer version replaced a row.
    pub exprs: Vec<Expr>,
}

/// How the rows of one table are locked: strength and wait policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowLockSpec {
    /// FOR KEY SHARE ... FOR UPDATE.
    pub strength: TupleLockMode,
    /// Wait, NOWAIT or SKIP LOCKED.
    pub policy: LockWaitPolicy,
}

/// A comparison of an index's leading column with a row-independent value.
#[derive(Clone, Debug)]
pub struct IndexQual {
    /// `=`, `<`, `<=`, `>` or `>=` (column on the left).
    pub op: CmpOp,
    /// The value compared with.
    pub value: Expr,
    /// `column = ANY (value)`: `value` is an array of keys.
    pub any: bool,
}

/// How a scan uses its index (PostgreSQL's three index path kinds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanMethod {
    /// Index Scan: each entry's heap tuple fetched in index order.
    Plain,
    /// Index Only Scan: the row is built from the entry's key values; the
    /// heap is visited only on pages the visibility map does not mark
    /// all-visible (to check the version's visibility).
    IndexOnly,
    /// Bitmap Heap Scan over a Bitmap Index Scan: every matching heap
    /// address is collected first, then the heap is read in physical order,
    /// each page once.
    Bitmap,
}

/// An index chosen for a scan, and the conditions bounding it.
#[derive(Clone, Debug)]
pub struct IndexPath {
    /// The index.
    pub index: IndexDesc,
    /// Conditions on its leading column.
    pub quals: Vec<IndexQual>,
    /// Read from the high end down (ORDER BY ... DESC).
    pub backward: bool,
    /// Plain, index-only or bitmap.
    pub method: ScanMethod,
}

impl IndexPath {
    /// A forward scan of `index` bounded by `quals`, read as `method` says.
    pub fn new(index: IndexDesc, quals: Vec<IndexQual>, method: ScanMethod) -> IndexPath {
        IndexPath { index, quals, backward: false, method }
    }
}
