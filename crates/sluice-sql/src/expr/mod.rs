//! Expressions: from parse tree to typed tree to value.
//!
//! PostgreSQL splits this work across the parser's analysis files
//! (`parse_expr.c`, `parse_oper.c`, `parse_func.c`, `parse_coerce.c`,
//! `parse_target.c`) and the executor's interpreter (`execExprInterp.c`).
//! sluice keeps the same split and the same names:
//!
//! ```text
//!   pg_query Node ──analyze──▶ Expr (typed) ──eval(row)──▶ Datum
//!        │                       ▲
//!        │  literals, columns,   │ coerce / select_common_type
//!        │  operators, calls     │ (INSERT targets, UNION, VALUES)
//! ```
//!
//! # Analysis
//! [`analyze`] turns one raw expression into an [`Expr`] whose every node
//! knows its result type. The rules are PostgreSQL's, because users see them:
//! * **Literals.** `42` is `integer`, `3000000000` `bigint`, `1.5` and
//!   anything larger `numeric`; `'text'` is `unknown` and takes the type its
//!   context wants (the other operand, the cast, the column), falling back to
//!   `text`. An unknown literal that does not parse as the wanted type fails
//!   *during analysis*, pointing at the literal.
//! * **Operators and functions** are looked up in small built-in catalogs
//!   (`oper.rs`, `proc.rs`, mirroring `pg_operator` and `pg_proc` for the
//!   types sluice has) and chosen by PostgreSQL's candidate rules
//!   (`candidates.rs`: exact match, implicit coercibility, preferred types,
//!   the unknown-literal heuristics). Arguments are then coerced to the chosen
//!   signature, so evaluation never guesses types.
//! * **Coercion** (`coerce.rs`) follows the cast contexts of `pg_cast`:
//!   implicit for operator arguments, assignment for stored values, explicit
//!   for `CAST`. Conditional constructs (CASE, COALESCE, GREATEST, IN lists)
//!   pick their result type with `select_common_type`.
//!
//! Every analysis error carries PostgreSQL's SQLSTATE, message, hint and the
//! 1-based cursor position of the offending token (counted in bytes of the
//! query string; PostgreSQL counts characters, which differs only after
//! non-ASCII text).
//!
//! # Evaluation
//! [`eval`] walks the tree over one input row. NULL handling is SQL's
//! three-valued logic; `AND`/`OR` stop early only when the answer is certain
//! (`false AND error` is false, but `NULL AND error` still fails); `CASE` and
//! `COALESCE` evaluate lazily, so `CASE WHEN x = 0 THEN 0 ELSE 1/x END` never
//! divides by zero. Whatever depends on the session or the engine (settings,
//! users, relation sizes, subqueries, aggregate results) is asked of the
//! [`EvalHost`]; everything else is pure.
//!
//! PostgreSQL also folds constant subexpressions while planning, so there
//! `COALESCE(x, 1/0)` fails even when `x` is not NULL; sluice evaluates
//! lazily unless a planner folds constants.
//!
//! # Using it
//! * select list: [`analyze`], then [`resolve_unknown_with`] (`SELECT 'a'`
//!   is text), named by [`column_name`]; `*` via [`expand_star`];
//! * conditions (WHERE, HAVING, ON): [`analyze`], then [`check_boolean_with`];
//! * INSERT/UPDATE values: [`coerce_to_column`]; UNION/VALUES columns:
//!   [`select_common_type`], then [`coerce_with`] each;
//! * column types in DDL: [`type_from_name`];
//! * the host collects aggregates, subqueries and parameter types while
//!   analysis runs, and answers for them during [`eval`].
//!
//! # What is not here
//! `*` expansion is the target list's business ([`expand_star`] helps);
//! set-returning functions in expressions, window functions, array
//! constructors and slices, and user-defined functions are rejected with
//! `0A000`.
//!
//! # Files
//! * `tree.rs` — the typed tree [`Expr`];
//! * `analyze.rs`, `conditional.rs`, `column.rs`, `typename.rs` — analysis;
//!   `array_sublink.rs` — `ARRAY(SELECT ...)`; `regtypes.rs` — casts to and
//!   from `regclass`, `regtype` and `regnamespace`;
//! * `rowtypes.rs` — row constructors, row comparison, field selection and
//!   `(x).*`;
//! * `candidates.rs`, `oper.rs`, `func.rs`, `proc.rs` — operator and function
//!   resolution over the built-in catalogs;
//! * `coerce.rs` — coercion and common types; `naming.rs` — output names;
//! * `eval.rs` — evaluation; `builtin.rs` — the built-ins and their dispatch,
//!   with `strings.rs`, `math.rs`, `datetime.rs`, `jsonb.rs`, `like.rs`,
//!   `regex.rs` (POSIX regular expressions), `arrays.rs` (subscripts,
//!   `ANY/ALL (array)`, array functions) and `typeinfo.rs` (`format_type`)
//!   computing each family.

mod analyze;
mod array_sublink;
mod arrays;
mod builtin;
mod candidates;
mod coerce;
mod column;
mod conditional;
mod datetime;
pub(crate) mod deparse;
pub(crate) mod domains;
mod enums;
mod eval;
mod func;
mod jsonb;
mod like;
mod math;
mod naming;
mod oper;
mod polymorphic;
mod proc;
mod proc_oids;
mod regex;
mod regtypes;
mod rowtypes;
mod strings;
mod tree;
mod typeinfo;
mod typename;

#[cfg(test)]
mod tests;

use pg_query::protobuf::Node;
use sluice_types::{AggKind, Context, Datum, SqlType};

pub use analyze::{analyze, star_indirection};
pub use builtin::{Builtin, Comparison};
pub use coerce::{
    check_boolean, check_boolean_with, coerce, coerce_to_column, coerce_to_parameter, coerce_with,
    resolve_unknown, resolve_unknown_with, select_common_type, type_name, CoercionContext,
};
pub use column::expand_star;
pub use datetime::{now_timestamptz, session_context};
pub use eval::{eval, eval_qual};
pub use naming::column_name;
pub use oper::make_op;
pub(crate) use proc::is_aggregate;
pub use regtypes::{function_named, function_signature, function_with_args, FunctionNamed};
pub use tree::{AggClauses, AggOrderKey, BoolOp, BoolTestKind, CaseWhen, Expr};
pub use typeinfo::format_type_of;
pub use typename::{
    parse_type_name, parse_type_string, type_from_name, type_from_name_in, UserTypes,
};

use crate::Result;

/// One column visible to an expression. The input row is a flat
/// `Vec<Datum>`; column `i` of the scope is `row[i]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScopeColumn {
    /// The alias or table name that qualifies the column (`t` in `t.x`);
    /// `None` for columns that can only be referenced unqualified.
    pub table: Option<String>,
    /// The column name, already case-folded as identifiers are.
    pub name: String,
    /// The column's type.
    pub ty: SqlType,
    /// The column's type modifier (-1 for none).
    pub typmod: i32,
}

/// The columns an expression may reference, in row order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scope {
    /// Column `i` is `row[i]` at evaluation.
    pub columns: Vec<ScopeColumn>,
    /// The tables among the scope's FROM items, by the name they go by,
    /// with their OIDs: what the system column `tableoid` reads.
    pub relations: Vec<(String, sluice_common::Oid)>,
}

/// The scope of a table's columns under `alias` (PostgreSQL's range table
/// entry for a relation, as expressions see it).
pub fn relation_scope(rel: &crate::catalog::relation::RelationDesc, alias: &str) -> Scope {
    Scope {
        columns: rel
            .columns
            .iter()
            .map(|c| ScopeColumn {
                table: Some(alias.to_string()),
                // A dropped column keeps its place but no name: `\0` names
                // are hidden from `*` and cannot be written.
                name: if c.dropped { "\0dropped".to_string() } else { c.name.clone() },
                ty: c.ty,
                typmod: c.typmod,
            })
            .collect(),
        relations: vec![(alias.to_string(), rel.oid)],
    }
}

/// The kind of a subquery used as an expression (PostgreSQL's `SubLinkType`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SubLinkKind {
    /// `EXISTS (SELECT ...)`: boolean.
    Exists,
    /// `(SELECT x ...)`: the single value of a one-column, at-most-one-row query.
    Scalar,
    /// `x op ANY (SELECT ...)`, and `x IN (SELECT ...)` with operator `=`.
    Any {
        /// The comparison operator's name (`=`, `<`, ...).
        operator: String,
    },
    /// `x op ALL (SELECT ...)`.
    All {
        /// The comparison operator's name.
        operator: String,
    },
}

/// Functions whose value depends on the session, the catalogs or the engine.
/// Analysis recognises them by name and argument types; evaluation hands the
/// (already evaluated) arguments to [`EvalHost::session_function`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SessionFunction {
    /// `statement_timestamp()`: `timestamptz`.
    StatementTimestamp,
    /// `clock_timestamp()`: `timestamptz`.
    ClockTimestamp,
    /// `timeofday()`: the current time as text, in the `Postgres` date
    /// style and the session's time zone.
    TimeOfDay,
    /// `pg_backend_pid()`: `integer`.
    BackendPid,
    /// `pg_stat_get_backend_pid(integer)`: `integer`.
    StatBackendPid,
    /// `version()`: `text`.
    Version,
    /// `current_setting(name text [, missing_ok bool])`: `text`.
    CurrentSetting,
    /// `set_config(name text, value text, is_local bool)`: `text`.
    SetConfig,
    /// `current_database()`, `current_catalog`: `name`.
    CurrentDatabase,
    /// `current_user`, `current_role`, `user`: `name`.
    CurrentUser,
    /// `session_user`: `name`.
    SessionUser,
    /// `current_schema()`, `current_schema`: `name`.
    CurrentSchema,
    /// `current_schemas(include_implicit boolean)`: `name[]`.
    CurrentSchemas,
    /// `pg_sleep(seconds float8)`: PostgreSQL's `void`, typed `text` here.
    PgSleep,
    /// `txid_current()`: `bigint`.
    TxidCurrent,
    /// `pg_current_xact_id()`: `xid8`.
    CurrentXactId,
    /// `age(xid)`: `integer`, transactions since `xid` (`xid_age`).
    XidAge,
    /// `pg_relation_size(regclass [, fork text])`: `bigint`.
    RelationSize,
    /// `pg_total_relation_size(regclass)`: `bigint`.
    TotalRelationSize,
    /// `pg_table_size(regclass)`: `bigint`.
    TableSize,
    /// `pg_indexes_size(regclass)`: `bigint`.
    IndexesSize,
    /// `pg_current_wal_lsn()`: `pg_lsn`, where WAL has been written up to.
    CurrentWalLsn,
    /// `pg_current_wal_insert_lsn()`: `pg_lsn`, where the next record goes.
    CurrentWalInsertLsn,
    /// `pg_current_wal_flush_lsn()`: `pg_lsn`, where WAL is durable up to.
    CurrentWalFlushLsn,
    /// `pg_reload_conf()`: `boolean`.
    ReloadConf,
    /// `pg_cancel_backend(pid integer)`: `boolean`.
    CancelBackend,
    /// `pg_terminate_backend(pid integer [, timeout bigint])`: `boolean`.
    TerminateBackend,
    /// `pg_isolation_test_session_is_blocked(pid integer, interesting integer[])`:
    /// `boolean`.
    IsolationTestSessionIsBlocked,
    /// `nextval(regclass)`: `bigint`.
    Nextval,
    /// `currval(regclass)`: `bigint`.
    Currval,
    /// `setval(regclass, bigint [, is_called boolean])`: `bigint`.
    Setval,
    /// `lastval()`: `bigint`.
    Lastval,
    /// `pg_get_expr(expr, relation oid [, pretty boolean])`: `text`.
    GetExpr,
    /// `pg_get_serial_sequence(table text, column text)`: `text`.
    SerialSequence,
    /// `pg_get_userbyid(role oid)`: `name`.
    GetUserById,
    /// `pg_table_is_visible(relation oid)`: `boolean`.
    TableIsVisible,
    /// `pg_type_is_visible(type oid)`: `boolean`.
    TypeIsVisible,
    /// `pg_function_is_visible(function oid)`: `boolean`.
    FunctionIsVisible,
    /// `pg_get_function_result(function oid)`: `text`.
    GetFunctionResult,
    /// `pg_get_function_arguments(function oid)`: `text`.
    GetFunctionArguments,
    /// `acldefault(objtype "char", owner oid)`: the privileges an object
    /// has before any GRANT, as `text[]` (sluice's `aclitem[]`).
    AclDefault,
    /// `format_type(type oid, typmod integer)`: `text`; not strict. A
    /// session function because types made by CREATE TYPE live in the
    /// catalogs.
    FormatType,
    /// `pg_get_indexdef(index oid [, column integer, pretty boolean])`: `text`.
    GetIndexDef,
    /// `pg_get_constraintdef(constraint oid [, pretty boolean])`: `text`.
    GetConstraintDef,
    /// `pg_get_viewdef(view oid | name [, pretty boolean])`: `text`.
    GetViewDef,
    /// `pg_get_ruledef(rule oid [, pretty boolean])`: `text`.
    GetRuleDef,
    /// `obj_description(object oid [, catalog name])`: `text`.
    ObjDescription,
    /// `col_description(table oid, column integer)`: `text`.
    ColDescription,
    /// `shobj_description(object oid, catalog name)`: `text`.
    ShobjDescription,
    /// `pg_relation_is_publishable(regclass)`: `boolean`.
    RelationIsPublishable,
    /// `pg_relation_is_updatable(regclass, include_triggers boolean)`:
    /// `integer`, the statements the relation takes as a bitmask.
    RelationIsUpdatable,
    /// `pg_column_is_updatable(regclass, smallint, boolean)`: `boolean`.
    ColumnIsUpdatable,
    /// `pg_partition_ancestors(regclass)`: the relation and the partitioned
    /// tables above it. sluice has no partitions, so the set is the relation
    /// alone, and the function is a scalar that returns it — the same
    /// result in a select list (psql's `\d` calls it there); it must become
    /// set-returning with partitioning.
    PartitionAncestors,
    /// `pg_get_triggerdef(trigger oid [, pretty boolean])`: `text`; NULL,
    /// as for any OID that names no trigger, since none exist yet.
    GetTriggerDef,
    /// `pg_get_statisticsobjdef_columns(statistics oid)`: `text`.
    StatisticsObjDefColumns,
    /// `pg_advisory_lock`, `pg_try_advisory_xact_lock_shared` and the rest of
    /// the locking advisory functions, on a `bigint` key or two `integer`s.
    AdvisoryLock(AdvisoryLock),
    /// `pg_advisory_unlock[_shared](key)`: `boolean`, false (with a WARNING)
    /// if the session held no such lock.
    AdvisoryUnlock {
        /// `_shared`: the ShareLock form.
        shared: bool,
    },
    /// `pg_advisory_unlock_all()`: every session-level advisory lock goes.
    AdvisoryUnlockAll,
    /// `(pgstattuple(rel)).column` or `(pgstatindex(rel)).column`: one
    /// column of the `pgstattuple` extension's result row.
    StatColumn(StatField),
    /// `pg_stat_get_numscans(oid)` and the other per-relation counters of
    /// the cumulative statistics: `bigint`, or `timestamptz` for times.
    StatGet(sluice_access::pgstat::Counter),
    /// `pg_stat_force_next_flush()`: nothing to do, as sessions flush at
    /// every transaction end (PostgreSQL's `void`, typed `text` here).
    StatForceNextFlush,
    /// `pg_stat_reset()`: the current database's counters go.
    StatReset,
    /// `pg_stat_reset_single_table_counters(oid)`.
    StatResetSingleTable,
    /// The input of a `reg*` type: a name (text) or an OID to an OID.
    RegIn(RegKind),
    /// The output of a `reg*` type: an OID to the name it stands for.
    RegOut(RegKind),
    /// `to_regclass(text)`, `to_regtype(text)`, `to_regnamespace(text)`:
    /// the OID a name stands for, NULL if nothing has that name.
    ToReg(RegKind),
    /// `pg_is_in_recovery()`: `boolean`.
    IsInRecovery,
}

/// Which advisory lock function is called (the name's parts).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AdvisoryLock {
    /// `_xact`: held until the transaction ends, not the session.
    pub xact: bool,
    /// `_shared`: ShareLock rather than ExclusiveLock.
    pub shared: bool,
    /// `pg_try_`: returns false instead of waiting.
    pub try_only: bool,
}

/// The object-identifier alias types (`regclass`, ...): see `regtypes.rs`.
pub use sluice_types::RegKind;

/// One column of a `pgstattuple` extension function's result row: which
/// function, and the column's position in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StatField {
    /// `pgstattuple(regclass)`.
    Tuple(usize),
    /// `pgstatindex(regclass)`.
    Index(usize),
}

/// `pgstattuple`'s result columns.
const PGSTATTUPLE_COLUMNS: [(&str, SqlType); 9] = [
    ("table_len", SqlType::Int8),
    ("tuple_count", SqlType::Int8),
    ("tuple_len", SqlType::Int8),
    ("tuple_percent", SqlType::Float8),
    ("dead_tuple_count", SqlType::Int8),
    ("dead_tuple_len", SqlType::Int8),
    ("dead_tuple_percent", SqlType::Float8),
    ("free_space", SqlType::Int8),
    ("free_percent", SqlType::Float8),
];

/// `pgstatindex`'s result columns.
const PGSTATINDEX_COLUMNS: [(&str, SqlType); 10] = [
    ("version", SqlType::Int4),
    ("tree_level", SqlType::Int4),
    ("index_size", SqlType::Int8),
    ("root_block_no", SqlType::Int8),
    ("internal_pages", SqlType::Int8),
    ("leaf_pages", SqlType::Int8),
    ("empty_pages", SqlType::Int8),
    ("deleted_pages", SqlType::Int8),
    ("avg_leaf_density", SqlType::Float8),
    ("leaf_fragmentation", SqlType::Float8),
];

impl StatField {
    /// The columns of the function's result row.
    pub fn result_columns(self) -> &'static [(&'static str, SqlType)] {
        match self {
            StatField::Tuple(_) => &PGSTATTUPLE_COLUMNS,
            StatField::Index(_) => &PGSTATINDEX_COLUMNS,
        }
    }

    /// The function `name` at column 0, if it is one of the extension's.
    pub fn function(name: &str) -> Option<StatField> {
        match name {
            "pgstattuple" => Some(StatField::Tuple(0)),
            "pgstatindex" => Some(StatField::Index(0)),
            _ => None,
        }
    }

    /// The function's name.
    pub fn name(self) -> &'static str {
        match self {
            StatField::Tuple(_) => "pgstattuple",
            StatField::Index(_) => "pgstatindex",
        }
    }

    /// The column's position.
    pub fn column(self) -> usize {
        match self {
            StatField::Tuple(c) | StatField::Index(c) => c,
        }
    }

    /// The same function at column `column`.
    pub fn at(self, column: usize) -> StatField {
        match self {
            StatField::Tuple(_) => StatField::Tuple(column),
            StatField::Index(_) => StatField::Index(column),
        }
    }
}

/// What analysis needs from its caller.
pub trait AnalyzeHost {
    /// The type of parameter `$n` if known so far (`n` is 1-based).
    fn param_type(&mut self, n: usize) -> Option<SqlType>;

    /// Records the type analysis inferred for a parameter of unknown type, as
    /// PostgreSQL does for `WHERE id = $1`.
    fn set_param_type(&mut self, n: usize, ty: SqlType);

    /// Records an aggregate call where aggregates are allowed (SELECT list,
    /// HAVING, ORDER BY of an aggregating query) and returns the index an
    /// [`Expr::AggRef`] reads at evaluation; elsewhere returns 42803
    /// (`aggregate functions are not allowed in WHERE`, ...). `arg` is `None`
    /// for `count(*)`; it is already coerced to the aggregate's input type.
    fn aggregate(
        &mut self,
        kind: AggKind,
        arg: Option<Expr>,
        distinct: bool,
        clauses: AggClauses,
        location: Option<u32>,
    ) -> Result<usize>;

    /// Plans a subquery used as an expression and returns its id (passed to
    /// [`EvalHost::subquery`]) and the sublink's result type (`bool` for
    /// EXISTS/ANY/ALL, the column's for a scalar subquery). `testexpr` is the
    /// analyzed left operand of `IN`/`ANY`/`ALL`; [`make_op`] builds its
    /// comparison with the subquery's column. Hosts without subquery support
    /// return 0A000.
    fn subquery(
        &mut self,
        kind: SubLinkKind,
        query: &Node,
        testexpr: Option<Expr>,
    ) -> Result<(usize, SqlType)>;

    /// The scope of the query `levels_up` levels out from the one being
    /// analysed (1: the query a subquery is written in), if there is one:
    /// where a correlated subquery's outer references resolve.
    fn outer_scope(&self, _levels_up: usize) -> Option<&Scope> {
        None
    }

    /// Turns `column`, a column of [`AnalyzeHost::outer_scope`]`(levels_up)`,
    /// into the [`Expr::ExecParam`] the subquery reads it through.
    fn outer_reference(&mut self, _levels_up: usize, _column: Expr) -> Result<Expr> {
        Err(crate::SqlError::internal("outer reference without an outer query"))
    }

    /// The session's context, if analysis may fold date/time literals whose
    /// meaning depends on it (`'now'`, `timestamptz '2024-01-01'`, zones).
    /// Without one such literals are checked now and converted at evaluation.
    fn context(&self) -> Option<&Context> {
        None
    }

    /// The type CREATE TYPE made that is named `schema.name` (or `name`
    /// along the search path), if there is one. Hosts without catalogs
    /// know none.
    fn user_type(&mut self, _schema: Option<&str>, _name: &str) -> Result<Option<SqlType>> {
        Ok(None)
    }
}

/// What evaluation needs from its caller.
pub trait EvalHost {
    /// The session's time zone and transaction start time.
    fn context(&self) -> &Context;

    /// The value bound to parameter `$n` (1-based), already of the type
    /// analysis assigned to it.
    fn param(&self, n: usize) -> &Datum;

    /// The current group's value of the aggregate registered as `index`.
    fn aggregate_value(&self, index: usize) -> &Datum;

    /// The value of subquery `id` for the current outer row.
    fn subquery(&mut self, id: usize, row: &[Datum]) -> Result<Datum>;

    /// The current value of [`Expr::ExecParam`] slot `slot` (NULL if unset).
    fn exec_param(&self, _slot: usize) -> &Datum {
        &Datum::Null
    }

    /// The value of a session function for already evaluated arguments.
    fn session_function(&mut self, f: SessionFunction, args: &[Datum]) -> Result<Datum>;

    /// A uniform random number in [0, 1) from the session's generator.
    fn random(&mut self) -> f64;

    /// Fails with 57014 if the statement was cancelled.
    fn check_interrupts(&self) -> Result<()>;
}
