//! Functions whose value comes from the session, the transaction or the
//! engine rather than from their arguments (the `SessionFunction`s expression
//! analysis recognises): clocks, identity, settings, transaction ids, sizes,
//! and the sequence functions (`executor::functions::sequence`); the
//! catalog lookups of clients' describe queries live in `regproc.rs` (names
//! and OIDs) and `ruleutils.rs` (definitions as SQL text).

mod advisory;
mod pgstat;
pub(crate) mod pgstattuple;
mod procinfo;
mod regproc;
pub(crate) use regproc::RegColumns;
mod ruleutils;
pub mod sequence;
mod updatable;

use super::host::ExecHost;
use crate::activity::Signal;
use crate::catalog::namespace;
use crate::catalog::relation::lookup_as;
use crate::error::{Result, SqlError};
use crate::expr::now_timestamptz;
use crate::expr::{EvalHost, SessionFunction};
use sluice_common::{ForkNumber, RelFileLocator, BLCKSZ};
use sluice_guc::Settings;
use sluice_types::Datum;
use std::time::Duration;

/// call -- evaluates `f` with already evaluated `args`.
pub fn call(host: &mut ExecHost, f: SessionFunction, args: &[Datum]) -> Result<Datum> {
    use SessionFunction::*;
    Ok(match f {
        StatementTimestamp | ClockTimestamp => Datum::TimestampTz(now_timestamptz()),
        TimeOfDay => time_of_day(host),
        BackendPid => Datum::Int4(host.env().pid as i32),
        StatBackendPid => match args.first() {
            Some(Datum::Int4(id)) => super::backend_status::backend_pid(host.env().engine, *id),
            _ => Datum::Null,
        },
        Version => Datum::Text(format!(
            "PostgreSQL {} (sluice {}) on x86_64-pc-linux-gnu, compiled by rustc, 64-bit",
            host.env().settings.get_str("server_version"),
            env!("CARGO_PKG_VERSION")
        )),
        CurrentSetting => current_setting(host, args)?,
        SetConfig => set_config(host, args)?,
        CurrentDatabase => Datum::Text(host.env().database_name.to_string()),
        CurrentUser | SessionUser => Datum::Text(host.env().user.to_string()),
        CurrentSchema => current_schema(host)?,
        CurrentSchemas => current_schemas(host, args)?,
        PgSleep => sleep(host, args)?,
        TxidCurrent => Datum::Int8(host.assign_xid()?.0 as i64),
        CurrentXactId => Datum::Xid8(host.assign_xid()?.0),
        XidAge => xid_age(host, args),
        RelationSize => relation_size(host, args)?,
        TableSize => sized(host, args, table_size)?,
        IndexesSize => sized(host, args, indexes_size)?,
        TotalRelationSize => {
            sized(host, args, |host, rel| Ok(table_size(host, rel)? + indexes_size(host, rel)?))?
        }
        CurrentWalLsn => Datum::PgLsn(host.env().engine.wal().written_lsn().0),
        CurrentWalInsertLsn => Datum::PgLsn(host.env().engine.wal().insert_lsn().0),
        CurrentWalFlushLsn => Datum::PgLsn(host.env().engine.wal().flushed_lsn().0),
        ReloadConf => reload_conf(host),
        CancelBackend => signal_backend(host, args, Signal::Cancel)?,
        TerminateBackend => signal_backend(host, args, Signal::Terminate)?,
        IsolationTestSessionIsBlocked => session_is_blocked(host, args),
        Nextval => sequence::nextval(host, args)?,
        Currval => sequence::currval(host, args)?,
        Setval => sequence::setval(host, args)?,
        Lastval => sequence::lastval(host)?,
        // Catalogs store expressions as the SQL text PostgreSQL would print.
        GetExpr => ruleutils::get_expr(host, args)?,
        SerialSequence => sequence::serial_sequence(host, args)?,
        GetUserById => regproc::user_by_id(host, args)?,
        AclDefault => regproc::acl_default(host, args)?,
        TableIsVisible => regproc::table_is_visible(host, args)?,
        TypeIsVisible => regproc::type_is_visible(host, args)?,
        FunctionIsVisible => procinfo::function_is_visible(host, args)?,
        GetFunctionResult => procinfo::function_result(host, args)?,
        GetFunctionArguments => procinfo::function_arguments(host, args)?,
        FormatType => regproc::format_type(host, args)?,
        GetIndexDef => ruleutils::index_def(host, args)?,
        GetConstraintDef => ruleutils::constraint_def(host, args)?,
        GetViewDef => ruleutils::view_def(host, args)?,
        GetRuleDef => ruleutils::rule_def(host, args)?,
        ObjDescription => description(host, args, false)?,
        ColDescription => description(host, args, true)?,
        ShobjDescription => shared_description(host, args)?,
        // Extended statistics do not exist yet.
        StatisticsObjDefColumns => Datum::Null,
        RelationIsPublishable => regproc::relation_is_publishable(host, args)?,
        RelationIsUpdatable => updatable::relation_is_updatable(host, args)?,
        ColumnIsUpdatable => updatable::column_is_updatable(host, args)?,
        PartitionAncestors => regproc::partition_ancestors(host, args)?,
        GetTriggerDef => Datum::Null,
        AdvisoryLock(which) => advisory::lock(host, which, args)?,
        AdvisoryUnlock { shared } => advisory::unlock(host, shared, args)?,
        AdvisoryUnlockAll => advisory::unlock_all(host),
        StatColumn(field) => pgstattuple::column(host, field, args)?,
        StatGet(counter) => pgstat::get(host, counter, args),
        StatForceNextFlush => Datum::Text(String::new()),
        StatReset => pgstat::reset(host),
        StatResetSingleTable => pgstat::reset_single(host, args),
        RegIn(kind) => regproc::reg_in(host, kind, args.first().unwrap_or(&Datum::Null))?,
        RegOut(kind) => regproc::reg_out(host, kind, args.first().unwrap_or(&Datum::Null))?,
        ToReg(kind) => regproc::to_reg(host, kind, args.first().unwrap_or(&Datum::Null))?,
        // Recovery (replaying WAL after a crash) ends before the server
        // accepts connections, and there are no standbys yet: a session
        // never runs during recovery.
        IsInRecovery => Datum::Bool(false),
    })
}

/// `obj_description(oid [, catalog])` and `col_description(table, column)`:
/// the comment in `pg_description`, NULL if none.
fn description(host: &mut ExecHost, args: &[Datum], column: bool) -> Result<Datum> {
    use crate::catalog::depend::ObjectAddress;
    let Some(Datum::Oid(objid)) = args.first() else { return Ok(Datum::Null) };
    let (classid, objsubid) = match (column, args.get(1)) {
        (true, Some(attnum)) => {
            (crate::catalog::schema::PG_CLASS.oid, attnum.as_i64().unwrap_or(0))
        }
        (false, Some(name)) => {
            let name = name.as_str().unwrap_or_default();
            let Some(catalog) =
                crate::catalog::schema::ALL_CATALOGS.iter().find(|c| c.name == name)
            else {
                return Ok(Datum::Null);
            };
            (catalog.oid, 0)
        }
        (_, None) => (0, 0),
    };
    let object = ObjectAddress { classid, objid: *objid, objsubid: objsubid as i32 };
    let (engine, db) = (host.env().engine.clone(), host.env().database);
    let found = crate::catalog::comment::comment_of(&engine, db, host.visibility(), &object)?;
    Ok(found.map_or(Datum::Null, Datum::Text))
}

/// `shobj_description(object, catalog)`: the comment on a shared object,
/// from `pg_shdescription`.
fn shared_description(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    use crate::catalog::schema::ALL_CATALOGS;
    let (Some(Datum::Oid(objid)), Some(name)) = (args.first(), args.get(1)) else {
        return Ok(Datum::Null);
    };
    let name = name.as_str().unwrap_or_default();
    let Some(catalog) = ALL_CATALOGS.iter().find(|c| c.name == name) else {
        return Ok(Datum::Null);
    };
    let engine = host.env().engine.clone();
    let def = &crate::catalog::unfilled::PG_SHDESCRIPTION;
    let key = [Datum::Oid(*objid), Datum::Oid(catalog.oid)];
    let rows = crate::catalog::scan_as(&engine, 0, def, host.visibility(), |r| r[..2] == key)?;
    Ok(rows.into_iter().next().map_or(Datum::Null, |(_, mut row)| row.swap_remove(2)))
}

/// `timeofday()`: now, printed as the `Postgres` date style prints a
/// `timestamptz` (PostgreSQL always prints six fractional digits; this
/// drops trailing zeros as that style does).
fn time_of_day(host: &mut ExecHost) -> Datum {
    let mut ctx = host.context().clone();
    ctx.date_style.format = sluice_types::DateFormat::Postgres;
    let now = Datum::TimestampTz(now_timestamptz());
    sluice_types::io::output(&now, &ctx).map_or(Datum::Null, Datum::Text)
}

/// `age(xid)`: counted from the transaction's own xid if it has one, else
/// from the next xid to be assigned (PostgreSQL's
/// `GetStableLatestTransactionId`).
fn xid_age(host: &mut ExecHost, args: &[Datum]) -> Datum {
    let Some(Datum::Xid(xid)) = args.first() else { return Datum::Null };
    let now = match host.visibility().snapshot.own_xid {
        Some(own) => own.0,
        None => host.env().engine.txns().next_xid().0,
    };
    Datum::Int4(sluice_types::xid::age(*xid, now))
}

/// `current_schema()`: the schema new objects go to, NULL if the search
/// path names none that exists.
fn current_schema(host: &mut ExecHost) -> Result<Datum> {
    let path = regproc::search_path(host)?;
    match path.creation_namespace() {
        Some(oid) => Ok(regproc::namespace_name(host, oid)?.map_or(Datum::Null, Datum::Text)),
        None => Ok(Datum::Null),
    }
}

/// `current_schemas(include_implicit)`: the search path's schemas, with
/// `pg_catalog` (searched first implicitly) only if asked for.
fn current_schemas(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    let implicit = matches!(args.first(), Some(Datum::Bool(true)));
    let path = regproc::search_path(host)?;
    let oids = if implicit { path.schemas() } else { path.explicit() };
    let mut elems = Vec::new();
    for oid in oids {
        elems.extend(regproc::namespace_name(host, *oid)?.map(Datum::Text));
    }
    let name =
        sluice_types::types::ElemType::new(sluice_types::SqlType::Name).expect("name[] exists");
    Ok(Datum::array(name, elems))
}

fn text_arg(args: &[Datum], i: usize) -> Option<&str> {
    args.get(i).and_then(Datum::as_str)
}

fn current_setting(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    let Some(name) = text_arg(args, 0) else { return Ok(Datum::Null) };
    let missing_ok = matches!(args.get(1), Some(Datum::Bool(true)));
    Ok(match host.env().settings.current_setting(name, missing_ok)? {
        Some(v) => Datum::Text(v),
        None => Datum::Null,
    })
}

fn set_config(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    let Some(name) = text_arg(args, 0) else {
        return Err(SqlError::new("22004", "SET requires parameter name"));
    };
    let is_local = matches!(args.get(2), Some(Datum::Bool(true)));
    Ok(Datum::Text(host.env().settings.set_config(name, text_arg(args, 1), is_local)?))
}

fn sleep(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    let seconds = match args.first() {
        Some(Datum::Float8(s)) => *s,
        Some(d) => d.as_i64().unwrap_or(0) as f64,
        None => 0.0,
    };
    let deadline = std::time::Instant::now() + Duration::from_secs_f64(seconds.max(0.0));
    while std::time::Instant::now() < deadline {
        host.check_interrupts()?;
        std::thread::sleep(Duration::from_millis(10).min(deadline - std::time::Instant::now()));
    }
    Ok(Datum::Text(String::new()))
}

/// The relation a regclass-like argument names (an OID or a name).
fn resolve(
    host: &mut ExecHost,
    args: &[Datum],
) -> Result<Option<crate::catalog::relation::RelationDesc>> {
    let engine = host.env().engine.clone();
    let db = host.env().database;
    let ctx = host.visibility().clone();
    let path = host.env().search_path(&ctx)?;
    resolve_in(&engine, db, &ctx, &path, args.first().unwrap_or(&Datum::Null))
}

/// resolve_in -- the relation `arg` names (an OID, or a possibly qualified
/// name looked up along `path`) in database `db` as `ctx` sees the
/// catalogs; `None` for NULL or an unknown OID.
pub(crate) fn resolve_in(
    engine: &sluice_access::Engine,
    db: sluice_common::Oid,
    ctx: &sluice_access::heap::visibility::VisibilityContext,
    path: &crate::catalog::namespace::SearchPath,
    arg: &Datum,
) -> Result<Option<crate::catalog::relation::RelationDesc>> {
    match arg {
        Datum::Oid(oid) => crate::catalog::relation::by_oid(engine, db, ctx, *oid),
        Datum::Text(text) => {
            let names = sequence::parse_name_list(text)?;
            let (schema, name) = match names.as_slice() {
                [name] => (None, name),
                [schema, name] => (Some(schema.as_str()), name),
                _ => {
                    return Err(SqlError::new("42602", format!("invalid name syntax: \"{text}\"")))
                }
            };
            let namespaces = namespace::lookup_namespaces(engine, db, ctx, path, schema)?;
            lookup_as(engine, db, ctx, &namespaces, name)?
                .map(Some)
                .ok_or_else(|| namespace::missing_relation(text))
        }
        _ => Ok(None),
    }
}

/// pg_relation_size(rel [, fork]): the bytes of one fork of a table, index
/// or sequence (0 for a fork that does not exist, as PostgreSQL).
fn relation_size(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    let fork = match text_arg(args, 1).unwrap_or("main") {
        "main" => ForkNumber::Main,
        "fsm" => ForkNumber::Fsm,
        "vm" => ForkNumber::VisibilityMap,
        "init" => ForkNumber::Init,
        _ => {
            return Err(SqlError::new("22023", "invalid fork name")
                .with_hint("Valid fork names are \"main\", \"fsm\", \"vm\", and \"init\"."))
        }
    };
    sized(host, args, |host, rel| forks_size(host, rel.locator, &[fork]))
}

/// The size `measure` gives the relation `args[0]` names, NULL for an OID
/// naming no relation (PostgreSQL's answer, so that size queries over
/// `pg_class` survive concurrent drops).
fn sized(
    host: &mut ExecHost,
    args: &[Datum],
    measure: impl FnOnce(&mut ExecHost, &crate::catalog::relation::RelationDesc) -> Result<u64>,
) -> Result<Datum> {
    let Some(rel) = resolve(host, args)? else { return Ok(Datum::Null) };
    Ok(Datum::Int8(i64::try_from(measure(host, &rel)?).unwrap_or(i64::MAX)))
}

/// The bytes of `forks` of the relation stored at `locator`.
fn forks_size(host: &mut ExecHost, locator: RelFileLocator, forks: &[ForkNumber]) -> Result<u64> {
    let pool = host.env().engine.pool();
    let mut blocks = 0u64;
    for &fork in forks {
        blocks += pool.nblocks(locator, fork)? as u64;
    }
    Ok(blocks * BLCKSZ as u64)
}

/// pg_table_size: every fork of the relation itself, without its indexes
/// (sluice has no TOAST tables, whose size PostgreSQL would add).
fn table_size(host: &mut ExecHost, rel: &crate::catalog::relation::RelationDesc) -> Result<u64> {
    forks_size(host, rel.locator, &ForkNumber::ALL)
}

/// pg_indexes_size: every fork of every index of the table (0 for an index
/// or sequence, which have none), as the statement's snapshot sees them.
fn indexes_size(host: &mut ExecHost, rel: &crate::catalog::relation::RelationDesc) -> Result<u64> {
    let engine = host.env().engine.clone();
    let db = host.env().database;
    let ctx = host.visibility().clone();
    let mut total = 0;
    for index in crate::catalog::index::indexes_of(&engine, db, &ctx, rel.oid)? {
        total += forks_size(host, index.locator, &ForkNumber::ALL)?;
    }
    Ok(total)
}

/// pg_reload_conf -- reads the configuration files again (PostgreSQL signals
/// the postmaster with SIGHUP); every session applies the result at its next
/// statement. What changed, and any errors, go to the server log.
fn reload_conf(host: &mut ExecHost) -> Datum {
    let report = host.env().config.reload();
    eprintln!("LOG:  received SIGHUP, reloading configuration files");
    for (name, value) in &report.changed {
        eprintln!("LOG:  parameter \"{name}\" changed to \"{value}\"");
    }
    for name in &report.reset_to_default {
        eprintln!("LOG:  parameter \"{name}\" removed from configuration file, reset to default");
    }
    if let Some(error) = &report.error {
        eprintln!("LOG:  {error}");
    }
    Datum::Bool(true)
}

/// pg_cancel_backend / pg_terminate_backend -- delivers `signal` to the
/// session with the given pid; false if there is none. The optional timeout
/// of pg_terminate_backend must not be negative; sluice does not wait.
fn signal_backend(host: &mut ExecHost, args: &[Datum], signal: Signal) -> Result<Datum> {
    let Some(pid) = args.first().and_then(Datum::as_i64) else { return Ok(Datum::Null) };
    if args.get(1).and_then(Datum::as_i64).is_some_and(|t| t < 0) {
        return Err(SqlError::new("22023", "\"timeout\" must not be negative"));
    }
    let delivered = u32::try_from(pid).is_ok_and(|pid| host.env().activity.signal(pid, signal));
    Ok(Datum::Bool(delivered))
}

/// pg_isolation_test_session_is_blocked -- whether session `pid` waits for a
/// heavyweight lock (table, transaction id) that one of the `interesting`
/// sessions holds or waits for ahead of it: how isolationtester tells a step
/// that blocks from one that is merely slow.
fn session_is_blocked(host: &mut ExecHost, args: &[Datum]) -> Datum {
    let (Some(pid), Some(Datum::Array(interesting))) =
        (args.first().and_then(Datum::as_i64), args.get(1))
    else {
        return Datum::Null;
    };
    let Ok(pid) = u32::try_from(pid) else { return Datum::Bool(false) };
    let blockers = host.env().engine.txns().lock_manager().blocking_pids(pid);
    let blocked = interesting
        .elements()
        .iter()
        .filter_map(Datum::as_i64)
        .any(|p| u32::try_from(p).is_ok_and(|p| blockers.contains(&p)));
    Datum::Bool(blocked)
}
