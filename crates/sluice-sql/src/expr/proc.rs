//! The built-in function catalog: PostgreSQL 15's `pg_proc` entries for the
//! functions sluice implements, with their exact argument and result types.
//!
//! As with operators, the overloads matter as a set: `round(5)` is `double
//! precision` because `round(double precision)` and `round(numeric)` both
//! exist and float8 is the numeric category's preferred type; `sum('1')` is
//! ambiguous because `sum` has numeric and interval versions. A few entries
//! are listed only so that resolution behaves as PostgreSQL's before
//! reporting 0A000 (the regular-expression forms of `substring`,
//! `similar_to_escape`).

use sluice_types::funcs::string::TrimSide;
use sluice_types::ops::ArithOp;
use sluice_types::AggKind;
use sluice_types::SqlType::{self, *};

use super::builtin::Builtin::{self, *};
use super::builtin::Dimension;
use super::candidates::ArgType;
use super::RegKind;
use super::SessionFunction as S;
use sluice_access::pgstat::Counter;

/// One function: name, fixed arguments, an optional `VARIADIC` element
/// type, result type and implementation.
pub(super) struct Proc {
    /// The function name (unqualified).
    pub name: &'static str,
    /// Fixed argument types.
    pub args: &'static [ArgType],
    /// Element type of a trailing `VARIADIC` parameter (one or more values).
    pub variadic: Option<ArgType>,
    /// Result type.
    pub result: SqlType,
    /// The result is the array of the call's resolved `anycompatible`
    /// type instead of `result` (`array_agg`'s `anyarray`).
    pub array_result: bool,
    /// What a call runs.
    pub imp: Imp,
}

/// What a function call becomes.
#[derive(Clone, Copy, Debug)]
pub(super) enum Imp {
    /// A scalar built-in.
    Call(Builtin),
    /// An aggregate, reported to the analysis host.
    Agg(AggKind),
    /// Known to PostgreSQL, not implemented: 0A000 after resolution.
    Unsupported,
}

impl Proc {
    /// The argument list for a call with `nargs` arguments, if it can take that many.
    pub(super) fn signature(&self, nargs: usize) -> Option<Vec<ArgType>> {
        match self.variadic {
            None if nargs == self.args.len() => Some(self.args.to_vec()),
            Some(element) if nargs > self.args.len() => {
                let mut sig = self.args.to_vec();
                sig.resize(nargs, element);
                Some(sig)
            }
            _ => None,
        }
    }
}

/// The functions called `name`.
pub(super) fn lookup(name: &str) -> impl Iterator<Item = &'static Proc> + '_ {
    PROCS.iter().filter(move |p| p.name == name)
}

/// Whether some aggregate is called `name`.
pub(crate) fn is_aggregate(name: &str) -> bool {
    lookup(name).any(|p| matches!(p.imp, Imp::Agg(_)))
}

/// Whether some function is called `name`.
pub(super) fn exists(name: &str) -> bool {
    lookup(name).next().is_some()
}

const BOOL: ArgType = ArgType::Is(Bool);
const BYTEA: ArgType = ArgType::Is(Bytea);
const INT2: ArgType = ArgType::Is(Int2);
const INT4: ArgType = ArgType::Is(Int4);
const INT8: ArgType = ArgType::Is(Int8);
const FLOAT4: ArgType = ArgType::Is(Float4);
const FLOAT8: ArgType = ArgType::Is(Float8);
const NUMERIC: ArgType = ArgType::Is(Numeric);
const TEXT: ArgType = ArgType::Is(Text);
const BPCHAR: ArgType = ArgType::Is(Bpchar);
const OID: ArgType = ArgType::Is(Oid);
const DATE: ArgType = ArgType::Is(Date);
const TIME: ArgType = ArgType::Is(Time);
const TS: ArgType = ArgType::Is(Timestamp);
const TSTZ: ArgType = ArgType::Is(TimestampTz);
const INTERVAL: ArgType = ArgType::Is(Interval);
const JSONB: ArgType = ArgType::Is(Jsonb);
const NAME: ArgType = ArgType::Is(Name);
const PG_LSN: ArgType = ArgType::Is(PgLsn);
const XID: ArgType = ArgType::Is(Xid);
const ANY: ArgType = ArgType::Any;
const REGCLASS: ArgType = ArgType::RegClass;
const ANYCOMPATIBLEARRAY: ArgType = ArgType::AnyCompatibleArray;
const ANYCOMPATIBLE: ArgType = ArgType::AnyCompatible;

/// A scalar function.
const fn f(name: &'static str, args: &'static [ArgType], result: SqlType, imp: Builtin) -> Proc {
    Proc { name, args, variadic: None, result, array_result: false, imp: Imp::Call(imp) }
}

/// A function with a `VARIADIC "any"` tail.
const fn variadic(
    name: &'static str,
    args: &'static [ArgType],
    result: SqlType,
    imp: Builtin,
) -> Proc {
    Proc { name, args, variadic: Some(ANY), result, array_result: false, imp: Imp::Call(imp) }
}

/// An aggregate.
const fn agg(name: &'static str, args: &'static [ArgType], result: SqlType, kind: AggKind) -> Proc {
    Proc { name, args, variadic: None, result, array_result: false, imp: Imp::Agg(kind) }
}

/// An aggregate of `anycompatible` values whose result is their array.
const fn agg_array(name: &'static str, kind: AggKind) -> Proc {
    let args = &[ANYCOMPATIBLE];
    Proc { name, args, variadic: None, result: Unknown, array_result: true, imp: Imp::Agg(kind) }
}

/// A function of an `anycompatiblearray` first argument whose result is
/// that array type (`array_remove`).
const fn f_array(name: &'static str, args: &'static [ArgType], imp: Builtin) -> Proc {
    Proc { name, args, variadic: None, result: Unknown, array_result: true, imp: Imp::Call(imp) }
}

/// A function answered by the host.
const fn session(name: &'static str, args: &'static [ArgType], result: SqlType, func: S) -> Proc {
    Proc { name, args, variadic: None, result, array_result: false, imp: Imp::Call(Session(func)) }
}

/// A function resolution must know but sluice does not implement.
const fn unsupported(name: &'static str, args: &'static [ArgType], result: SqlType) -> Proc {
    Proc { name, args, variadic: None, result, array_result: false, imp: Imp::Unsupported }
}

/// The catalog.
static PROCS: &[Proc] = &[
    // Strings.
    f("length", &[TEXT], Int4, Length),
    f("length", &[BPCHAR], Int4, BpcharLength),
    f("length", &[BYTEA], Int4, Length),
    f("char_length", &[TEXT], Int4, Length),
    f("char_length", &[BPCHAR], Int4, BpcharLength),
    f("character_length", &[TEXT], Int4, Length),
    f("character_length", &[BPCHAR], Int4, BpcharLength),
    f("octet_length", &[TEXT], Int4, OctetLength),
    f("octet_length", &[BPCHAR], Int4, OctetLength),
    f("octet_length", &[BYTEA], Int4, OctetLength),
    f("lower", &[TEXT], Text, Lower),
    f("upper", &[TEXT], Text, Upper),
    f("initcap", &[TEXT], Text, Initcap),
    f("substr", &[TEXT, INT4], Text, Substr),
    f("substr", &[TEXT, INT4, INT4], Text, Substr),
    f("substr", &[BYTEA, INT4], Bytea, Substr),
    f("substr", &[BYTEA, INT4, INT4], Bytea, Substr),
    f("substring", &[TEXT, INT4], Text, Substr),
    f("substring", &[TEXT, INT4, INT4], Text, Substr),
    f("substring", &[BYTEA, INT4], Bytea, Substr),
    f("substring", &[BYTEA, INT4, INT4], Bytea, Substr),
    unsupported("substring", &[TEXT, TEXT], Text),
    unsupported("substring", &[TEXT, TEXT, TEXT], Text),
    unsupported("similar_to_escape", &[TEXT], Text),
    unsupported("similar_to_escape", &[TEXT, TEXT], Text),
    f("left", &[TEXT, INT4], Text, Left),
    f("right", &[TEXT, INT4], Text, Right),
    f("position", &[TEXT, TEXT], Int4, Strpos),
    f("strpos", &[TEXT, TEXT], Int4, Strpos),
    f("replace", &[TEXT, TEXT, TEXT], Text, Replace),
    f("btrim", &[TEXT], Text, Trim(TrimSide::Both)),
    f("btrim", &[TEXT, TEXT], Text, Trim(TrimSide::Both)),
    f("ltrim", &[TEXT], Text, Trim(TrimSide::Leading)),
    f("ltrim", &[TEXT, TEXT], Text, Trim(TrimSide::Leading)),
    f("rtrim", &[TEXT], Text, Trim(TrimSide::Trailing)),
    f("rtrim", &[TEXT, TEXT], Text, Trim(TrimSide::Trailing)),
    f("lpad", &[TEXT, INT4], Text, Lpad),
    f("lpad", &[TEXT, INT4, TEXT], Text, Lpad),
    f("rpad", &[TEXT, INT4], Text, Rpad),
    f("rpad", &[TEXT, INT4, TEXT], Text, Rpad),
    f("repeat", &[TEXT, INT4], Text, Repeat),
    f("md5", &[TEXT], Text, Md5),
    f("md5", &[BYTEA], Text, Md5),
    f("reverse", &[TEXT], Text, Reverse),
    f("split_part", &[TEXT, TEXT, INT4], Text, SplitPart),
    f("translate", &[TEXT, TEXT, TEXT], Text, Translate),
    f("starts_with", &[TEXT, TEXT], Bool, StartsWith),
    f("ascii", &[TEXT], Int4, Ascii),
    f("chr", &[INT4], Text, Chr),
    f("to_hex", &[INT4], Text, ToHex),
    f("to_hex", &[INT8], Text, ToHex),
    f("like_escape", &[TEXT, TEXT], Text, LikeEscape),
    variadic("concat", &[], Text, ConcatAny),
    variadic("concat_ws", &[TEXT], Text, ConcatWs),
    variadic("num_nulls", &[], Int4, NumNulls { nonnull: false }),
    variadic("num_nonnulls", &[], Int4, NumNulls { nonnull: true }),
    // Numbers.
    f("abs", &[INT2], Int2, Abs),
    f("abs", &[INT4], Int4, Abs),
    f("abs", &[INT8], Int8, Abs),
    f("abs", &[FLOAT4], Float4, Abs),
    f("abs", &[FLOAT8], Float8, Abs),
    f("abs", &[NUMERIC], Numeric, Abs),
    f("round", &[FLOAT8], Float8, Round),
    f("round", &[NUMERIC], Numeric, Round),
    f("round", &[NUMERIC, INT4], Numeric, RoundScale),
    f("trunc", &[FLOAT8], Float8, Trunc),
    f("trunc", &[NUMERIC], Numeric, Trunc),
    f("trunc", &[NUMERIC, INT4], Numeric, TruncScale),
    f("ceil", &[FLOAT8], Float8, Ceil),
    f("ceil", &[NUMERIC], Numeric, Ceil),
    f("ceiling", &[FLOAT8], Float8, Ceil),
    f("ceiling", &[NUMERIC], Numeric, Ceil),
    f("floor", &[FLOAT8], Float8, Floor),
    f("floor", &[NUMERIC], Numeric, Floor),
    f("sqrt", &[FLOAT8], Float8, Sqrt),
    f("sqrt", &[NUMERIC], Numeric, Sqrt),
    f("cbrt", &[FLOAT8], Float8, Cbrt),
    f("exp", &[FLOAT8], Float8, Exp),
    f("exp", &[NUMERIC], Numeric, Exp),
    f("ln", &[FLOAT8], Float8, Ln),
    f("ln", &[NUMERIC], Numeric, Ln),
    f("power", &[FLOAT8, FLOAT8], Float8, Power),
    f("power", &[NUMERIC, NUMERIC], Numeric, Power),
    f("pow", &[FLOAT8, FLOAT8], Float8, Power),
    f("pow", &[NUMERIC, NUMERIC], Numeric, Power),
    f("mod", &[INT2, INT2], Int2, Mod),
    f("mod", &[INT4, INT4], Int4, Mod),
    f("mod", &[INT8, INT8], Int8, Mod),
    f("mod", &[NUMERIC, NUMERIC], Numeric, Mod),
    f("div", &[NUMERIC, NUMERIC], Numeric, Div),
    f("sign", &[FLOAT8], Float8, Sign),
    f("sign", &[NUMERIC], Numeric, Sign),
    f("pi", &[], Float8, Pi),
    f("random", &[], Float8, Random),
    f("gen_random_uuid", &[], Uuid, GenRandomUuid),
    f("pg_size_pretty", &[INT8], Text, SizePretty),
    f("pg_size_pretty", &[NUMERIC], Text, SizePretty),
    // Date and time.
    f("date_trunc", &[TEXT, TS], Timestamp, DateTrunc),
    f("date_trunc", &[TEXT, TSTZ], TimestampTz, DateTrunc),
    f("date_trunc", &[TEXT, INTERVAL], Interval, DateTrunc),
    f("extract", &[TEXT, DATE], Numeric, Extract),
    f("extract", &[TEXT, TIME], Numeric, Extract),
    f("extract", &[TEXT, TS], Numeric, Extract),
    f("extract", &[TEXT, TSTZ], Numeric, Extract),
    f("extract", &[TEXT, INTERVAL], Numeric, Extract),
    f("date_part", &[TEXT, DATE], Float8, DatePart),
    f("date_part", &[TEXT, TIME], Float8, DatePart),
    f("date_part", &[TEXT, TS], Float8, DatePart),
    f("date_part", &[TEXT, TSTZ], Float8, DatePart),
    f("date_part", &[TEXT, INTERVAL], Float8, DatePart),
    f("age", &[TS, TS], Interval, Age),
    f("age", &[TSTZ, TSTZ], Interval, Age),
    f("age", &[TS], Interval, Age),
    f("age", &[TSTZ], Interval, Age),
    f("now", &[], TimestampTz, Now),
    f("transaction_timestamp", &[], TimestampTz, Now),
    f("timezone", &[TEXT, TSTZ], Timestamp, AtTimeZone),
    f("timezone", &[TEXT, TS], TimestampTz, AtTimeZone),
    f("timezone", &[INTERVAL, TSTZ], Timestamp, AtTimeZone),
    f("timezone", &[INTERVAL, TS], TimestampTz, AtTimeZone),
    f("isfinite", &[DATE], Bool, IsFinite),
    f("isfinite", &[TS], Bool, IsFinite),
    f("isfinite", &[TSTZ], Bool, IsFinite),
    f("isfinite", &[INTERVAL], Bool, IsFinite),
    f("to_timestamp", &[FLOAT8], TimestampTz, ToTimestamp),
    // Arrays.
    f("array_position", &[ANYCOMPATIBLEARRAY, ANYCOMPATIBLE], Int4, ArrayPosition),
    f("array_position", &[ANYCOMPATIBLEARRAY, ANYCOMPATIBLE, INT4], Int4, ArrayPosition),
    // jsonb.
    f("jsonb_typeof", &[JSONB], Text, JsonbTypeof),
    f("jsonb_array_length", &[JSONB], Int4, JsonbArrayLength),
    // Session and engine state.
    session("statement_timestamp", &[], TimestampTz, S::StatementTimestamp),
    session("clock_timestamp", &[], TimestampTz, S::ClockTimestamp),
    session("timeofday", &[], Text, S::TimeOfDay),
    session("pg_backend_pid", &[], Int4, S::BackendPid),
    session("pg_stat_get_backend_pid", &[INT4], Int4, S::StatBackendPid),
    session("version", &[], Text, S::Version),
    // Cumulative statistics (`executor/functions/pgstat.rs`).
    session("pg_stat_get_numscans", &[OID], Int8, S::StatGet(Counter::NumScans)),
    session("pg_stat_get_tuples_returned", &[OID], Int8, S::StatGet(Counter::TuplesReturned)),
    session("pg_stat_get_tuples_fetched", &[OID], Int8, S::StatGet(Counter::TuplesFetched)),
    session("pg_stat_get_tuples_inserted", &[OID], Int8, S::StatGet(Counter::TuplesInserted)),
    session("pg_stat_get_tuples_updated", &[OID], Int8, S::StatGet(Counter::TuplesUpdated)),
    session("pg_stat_get_tuples_deleted", &[OID], Int8, S::StatGet(Counter::TuplesDeleted)),
    session("pg_stat_get_tuples_hot_updated", &[OID], Int8, S::StatGet(Counter::TuplesHotUpdated)),
    session("pg_stat_get_live_tuples", &[OID], Int8, S::StatGet(Counter::LiveTuples)),
    session("pg_stat_get_dead_tuples", &[OID], Int8, S::StatGet(Counter::DeadTuples)),
    session("pg_stat_get_mod_since_analyze", &[OID], Int8, S::StatGet(Counter::ModSinceAnalyze)),
    session("pg_stat_get_ins_since_vacuum", &[OID], Int8, S::StatGet(Counter::InsSinceVacuum)),
    session("pg_stat_get_blocks_fetched", &[OID], Int8, S::StatGet(Counter::BlocksFetched)),
    session("pg_stat_get_blocks_hit", &[OID], Int8, S::StatGet(Counter::BlocksHit)),
    session("pg_stat_get_last_vacuum_time", &[OID], TimestampTz, S::StatGet(Counter::LastVacuum)),
    session(
        "pg_stat_get_last_autovacuum_time",
        &[OID],
        TimestampTz,
        S::StatGet(Counter::LastAutovacuum),
    ),
    session("pg_stat_get_last_analyze_time", &[OID], TimestampTz, S::StatGet(Counter::LastAnalyze)),
    session(
        "pg_stat_get_last_autoanalyze_time",
        &[OID],
        TimestampTz,
        S::StatGet(Counter::LastAutoanalyze),
    ),
    session("pg_stat_get_vacuum_count", &[OID], Int8, S::StatGet(Counter::VacuumCount)),
    session("pg_stat_get_autovacuum_count", &[OID], Int8, S::StatGet(Counter::AutovacuumCount)),
    session("pg_stat_get_analyze_count", &[OID], Int8, S::StatGet(Counter::AnalyzeCount)),
    session("pg_stat_get_autoanalyze_count", &[OID], Int8, S::StatGet(Counter::AutoanalyzeCount)),
    session("pg_stat_force_next_flush", &[], Text, S::StatForceNextFlush),
    session("pg_stat_reset", &[], Text, S::StatReset),
    session("pg_stat_reset_single_table_counters", &[OID], Text, S::StatResetSingleTable),
    session("current_setting", &[TEXT], Text, S::CurrentSetting),
    session("current_setting", &[TEXT, BOOL], Text, S::CurrentSetting),
    session("set_config", &[TEXT, TEXT, BOOL], Text, S::SetConfig),
    session("current_database", &[], Name, S::CurrentDatabase),
    session("current_schema", &[], Name, S::CurrentSchema),
    session("current_schemas", &[BOOL], SqlType::NAME_ARRAY, S::CurrentSchemas),
    session("pg_sleep", &[FLOAT8], Text, S::PgSleep),
    session("txid_current", &[], Int8, S::TxidCurrent),
    session("pg_current_xact_id", &[], Xid8, S::CurrentXactId),
    session("age", &[XID], Int4, S::XidAge),
    session("pg_relation_size", &[REGCLASS], Int8, S::RelationSize),
    session("pg_relation_size", &[REGCLASS, TEXT], Int8, S::RelationSize),
    session("pg_total_relation_size", &[REGCLASS], Int8, S::TotalRelationSize),
    session("pg_table_size", &[REGCLASS], Int8, S::TableSize),
    session("pg_indexes_size", &[REGCLASS], Int8, S::IndexesSize),
    session("pg_current_wal_lsn", &[], PgLsn, S::CurrentWalLsn),
    session("pg_current_wal_insert_lsn", &[], PgLsn, S::CurrentWalInsertLsn),
    session("pg_current_wal_flush_lsn", &[], PgLsn, S::CurrentWalFlushLsn),
    f("pg_wal_lsn_diff", &[PG_LSN, PG_LSN], Numeric, Arith(ArithOp::Sub)),
    session("pg_reload_conf", &[], Bool, S::ReloadConf),
    session("pg_cancel_backend", &[INT4], Bool, S::CancelBackend),
    session("pg_terminate_backend", &[INT4], Bool, S::TerminateBackend),
    session("pg_terminate_backend", &[INT4, INT8], Bool, S::TerminateBackend),
    session(
        "pg_isolation_test_session_is_blocked",
        &[INT4, ArgType::Is(SqlType::INT4_ARRAY)],
        Bool,
        S::IsolationTestSessionIsBlocked,
    ),
    // Advisory locks (void results typed text, as pg_sleep's); advisory()
    // takes xact, shared, try_only.
    session("pg_advisory_lock", &[INT8], Text, advisory(false, false, false)),
    session("pg_advisory_lock", &[INT4, INT4], Text, advisory(false, false, false)),
    session("pg_advisory_lock_shared", &[INT8], Text, advisory(false, true, false)),
    session("pg_advisory_lock_shared", &[INT4, INT4], Text, advisory(false, true, false)),
    session("pg_advisory_xact_lock", &[INT8], Text, advisory(true, false, false)),
    session("pg_advisory_xact_lock", &[INT4, INT4], Text, advisory(true, false, false)),
    session("pg_advisory_xact_lock_shared", &[INT8], Text, advisory(true, true, false)),
    session("pg_advisory_xact_lock_shared", &[INT4, INT4], Text, advisory(true, true, false)),
    session("pg_try_advisory_lock", &[INT8], Bool, advisory(false, false, true)),
    session("pg_try_advisory_lock", &[INT4, INT4], Bool, advisory(false, false, true)),
    session("pg_try_advisory_lock_shared", &[INT8], Bool, advisory(false, true, true)),
    session("pg_try_advisory_lock_shared", &[INT4, INT4], Bool, advisory(false, true, true)),
    session("pg_try_advisory_xact_lock", &[INT8], Bool, advisory(true, false, true)),
    session("pg_try_advisory_xact_lock", &[INT4, INT4], Bool, advisory(true, false, true)),
    session("pg_try_advisory_xact_lock_shared", &[INT8], Bool, advisory(true, true, true)),
    session("pg_try_advisory_xact_lock_shared", &[INT4, INT4], Bool, advisory(true, true, true)),
    session("pg_advisory_unlock", &[INT8], Bool, S::AdvisoryUnlock { shared: false }),
    session("pg_advisory_unlock", &[INT4, INT4], Bool, S::AdvisoryUnlock { shared: false }),
    session("pg_advisory_unlock_shared", &[INT8], Bool, S::AdvisoryUnlock { shared: true }),
    session("pg_advisory_unlock_shared", &[INT4, INT4], Bool, S::AdvisoryUnlock { shared: true }),
    session("pg_advisory_unlock_all", &[], Text, S::AdvisoryUnlockAll),
    session("nextval", &[REGCLASS], Int8, S::Nextval),
    session("currval", &[REGCLASS], Int8, S::Currval),
    session("setval", &[REGCLASS, INT8], Int8, S::Setval),
    session("setval", &[REGCLASS, INT8, BOOL], Int8, S::Setval),
    session("lastval", &[], Int8, S::Lastval),
    session("pg_get_expr", &[TEXT, OID], Text, S::GetExpr),
    session("pg_get_expr", &[TEXT, OID, BOOL], Text, S::GetExpr),
    session("pg_get_serial_sequence", &[TEXT, TEXT], Text, S::SerialSequence),
    // System information for clients' catalog queries (psql's \d family).
    session("format_type", &[OID, INT4], Text, S::FormatType),
    f("pg_encoding_to_char", &[INT4], Name, EncodingToChar),
    f("quote_ident", &[TEXT], Text, QuoteIdent),
    f("quote_literal", &[TEXT], Text, QuoteLiteral),
    f("quote_nullable", &[TEXT], Text, QuoteNullable),
    session("pg_get_userbyid", &[OID], Name, S::GetUserById),
    session("acldefault", &[TEXT, OID], SqlType::TEXT_ARRAY, S::AclDefault),
    session("pg_table_is_visible", &[OID], Bool, S::TableIsVisible),
    session("pg_type_is_visible", &[OID], Bool, S::TypeIsVisible),
    session("pg_function_is_visible", &[OID], Bool, S::FunctionIsVisible),
    session("pg_get_function_result", &[OID], Text, S::GetFunctionResult),
    session("pg_get_function_arguments", &[OID], Text, S::GetFunctionArguments),
    session("pg_get_indexdef", &[OID], Text, S::GetIndexDef),
    session("pg_get_indexdef", &[OID, INT4, BOOL], Text, S::GetIndexDef),
    session("pg_get_ruledef", &[OID], Text, S::GetRuleDef),
    session("pg_get_ruledef", &[OID, BOOL], Text, S::GetRuleDef),
    session("pg_get_viewdef", &[OID], Text, S::GetViewDef),
    session("pg_get_viewdef", &[OID, BOOL], Text, S::GetViewDef),
    session("pg_get_viewdef", &[TEXT], Text, S::GetViewDef),
    session("pg_get_viewdef", &[TEXT, BOOL], Text, S::GetViewDef),
    session("pg_get_constraintdef", &[OID], Text, S::GetConstraintDef),
    session("pg_get_constraintdef", &[OID, BOOL], Text, S::GetConstraintDef),
    session("obj_description", &[OID], Text, S::ObjDescription),
    session("obj_description", &[OID, NAME], Text, S::ObjDescription),
    session("shobj_description", &[OID, NAME], Text, S::ShobjDescription),
    session("col_description", &[OID, INT4], Text, S::ColDescription),
    session("pg_relation_is_publishable", &[REGCLASS], Bool, S::RelationIsPublishable),
    session("pg_relation_is_updatable", &[REGCLASS, BOOL], Int4, S::RelationIsUpdatable),
    session("pg_column_is_updatable", &[REGCLASS, INT2, BOOL], Bool, S::ColumnIsUpdatable),
    session("pg_get_triggerdef", &[OID], Text, S::GetTriggerDef),
    session("pg_get_triggerdef", &[OID, BOOL], Text, S::GetTriggerDef),
    session("pg_partition_ancestors", &[REGCLASS], Reg(RegKind::Class), S::PartitionAncestors),
    session("to_regclass", &[TEXT], Reg(RegKind::Class), S::ToReg(RegKind::Class)),
    session("to_regtype", &[TEXT], Reg(RegKind::Type), S::ToReg(RegKind::Type)),
    session("to_regnamespace", &[TEXT], Reg(RegKind::Namespace), S::ToReg(RegKind::Namespace)),
    session("to_regrole", &[TEXT], Reg(RegKind::Role), S::ToReg(RegKind::Role)),
    session("to_regproc", &[TEXT], Reg(RegKind::Proc), S::ToReg(RegKind::Proc)),
    session("to_regprocedure", &[TEXT], Reg(RegKind::Procedure), S::ToReg(RegKind::Procedure)),
    session("pg_is_in_recovery", &[], Bool, S::IsInRecovery),
    session("pg_get_statisticsobjdef_columns", &[OID], Text, S::StatisticsObjDefColumns),
    // Arrays.
    f_array("array_remove", &[ANYCOMPATIBLEARRAY, ANYCOMPATIBLE], ArrayRemove),
    f("array_to_string", &[ANYCOMPATIBLEARRAY, TEXT], Text, ArrayToString),
    f("array_to_string", &[ANYCOMPATIBLEARRAY, TEXT, TEXT], Text, ArrayToString),
    f("array_lower", &[ANYCOMPATIBLEARRAY, INT4], Int4, ArrayDimension(Dimension::Lower)),
    f("array_upper", &[ANYCOMPATIBLEARRAY, INT4], Int4, ArrayDimension(Dimension::Upper)),
    f("array_length", &[ANYCOMPATIBLEARRAY, INT4], Int4, ArrayDimension(Dimension::Length)),
    f("cardinality", &[ANYCOMPATIBLEARRAY], Int4, Cardinality),
    // Aggregates.
    agg_array("array_agg", AggKind::ArrayAgg),
    // string_agg(text, text) is array_agg plus a final join (`func.rs`).
    agg("string_agg", &[TEXT, TEXT], Text, AggKind::ArrayAgg),
    agg("count", &[], Int8, AggKind::CountStar),
    agg("count", &[ANY], Int8, AggKind::Count),
    agg("sum", &[INT2], Int8, AggKind::Sum),
    agg("sum", &[INT4], Int8, AggKind::Sum),
    agg("sum", &[INT8], Numeric, AggKind::Sum),
    agg("sum", &[FLOAT4], Float4, AggKind::Sum),
    agg("sum", &[FLOAT8], Float8, AggKind::Sum),
    agg("sum", &[NUMERIC], Numeric, AggKind::Sum),
    agg("sum", &[INTERVAL], Interval, AggKind::Sum),
    agg("avg", &[INT2], Numeric, AggKind::Avg),
    agg("avg", &[INT4], Numeric, AggKind::Avg),
    agg("avg", &[INT8], Numeric, AggKind::Avg),
    agg("avg", &[FLOAT4], Float8, AggKind::Avg),
    agg("avg", &[FLOAT8], Float8, AggKind::Avg),
    agg("avg", &[NUMERIC], Numeric, AggKind::Avg),
    agg("avg", &[INTERVAL], Interval, AggKind::Avg),
    agg("min", &[INT2], Int2, AggKind::Min),
    agg("min", &[INT4], Int4, AggKind::Min),
    agg("min", &[INT8], Int8, AggKind::Min),
    agg("min", &[FLOAT4], Float4, AggKind::Min),
    agg("min", &[FLOAT8], Float8, AggKind::Min),
    agg("min", &[NUMERIC], Numeric, AggKind::Min),
    agg("min", &[OID], Oid, AggKind::Min),
    agg("min", &[TEXT], Text, AggKind::Min),
    agg("min", &[BPCHAR], Bpchar, AggKind::Min),
    agg("min", &[DATE], Date, AggKind::Min),
    agg("min", &[TIME], Time, AggKind::Min),
    agg("min", &[TS], Timestamp, AggKind::Min),
    agg("min", &[TSTZ], TimestampTz, AggKind::Min),
    agg("min", &[INTERVAL], Interval, AggKind::Min),
    agg("max", &[INT2], Int2, AggKind::Max),
    agg("max", &[INT4], Int4, AggKind::Max),
    agg("max", &[INT8], Int8, AggKind::Max),
    agg("max", &[FLOAT4], Float4, AggKind::Max),
    agg("max", &[FLOAT8], Float8, AggKind::Max),
    agg("max", &[NUMERIC], Numeric, AggKind::Max),
    agg("max", &[OID], Oid, AggKind::Max),
    agg("max", &[TEXT], Text, AggKind::Max),
    agg("max", &[BPCHAR], Bpchar, AggKind::Max),
    agg("max", &[DATE], Date, AggKind::Max),
    agg("max", &[TIME], Time, AggKind::Max),
    agg("max", &[TS], Timestamp, AggKind::Max),
    agg("max", &[TSTZ], TimestampTz, AggKind::Max),
    agg("max", &[INTERVAL], Interval, AggKind::Max),
];

/// The advisory locking function with the name's `_xact`, `_shared` and
/// `pg_try_` parts.
const fn advisory(xact: bool, shared: bool, try_only: bool) -> S {
    S::AdvisoryLock(super::AdvisoryLock { xact, shared, try_only })
}
