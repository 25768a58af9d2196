//! System views computed from live state rather than stored in tables
//! (PostgreSQL defines them as views over functions such as
//! `pg_stat_get_activity`; here the planner materialises their rows when a
//! query names them).

use crate::activity::AuxiliaryProcess;
use crate::error::Result;
use crate::executor::context::{BackendEnv, ExecParts};
use crate::expr::ScopeColumn;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::Engine;
use sluice_types::{Datum, SqlType};

pub use crate::optimizer::context::ViewRows;

/// The rows of system view `name`, if it is one (views over catalogs read
/// them under the statement's snapshot).
pub fn lookup(name: &str, parts: &mut ExecParts) -> Result<Option<ViewRows>> {
    parts.plan_log.reads_live_state = true;
    // The statement's snapshot is taken (and its xmin published) before the
    // view is read, as every PostgreSQL statement does at its start: a query
    // over pg_stat_activity then sees its own backend_xmin.
    parts.txn.snapshot();
    let (env, engine) = (&parts.env, &**parts.engine);
    Ok(match name {
        "pg_stat_activity" => Some(pg_stat_activity(env, engine)),
        "pg_locks" => Some(pg_locks(engine)),
        "pg_settings" => Some(pg_settings(env)),
        "pg_stats" => Some(pg_stats(parts)?),
        "pg_roles" => Some(pg_roles(parts)?),
        "pg_stat_progress_vacuum" => Some(pg_stat_progress_vacuum(env)),
        "pg_stat_progress_cluster" => Some(pg_stat_progress_cluster(env)),
        "pg_stat_slru" => Some(super::backend_status::pg_stat_slru(engine)),
        "pg_prepared_xacts" => Some(super::backend_status::pg_prepared_xacts(parts)?),
        "pg_replication_slots" => Some(pg_replication_slots()),
        _ => super::pgstat_views::lookup(name, parts)?,
    })
}

/// `pg_replication_slots`: always empty, as sluice has no replication (and
/// so no slot can hold the horizon back); the columns are PostgreSQL 15's,
/// LSN columns as text.
fn pg_replication_slots() -> ViewRows {
    use SqlType::*;
    let cols = columns(
        "pg_replication_slots",
        &[
            ("slot_name", Name),
            ("plugin", Name),
            ("slot_type", Text),
            ("datoid", Oid),
            ("database", Name),
            ("temporary", Bool),
            ("active", Bool),
            ("active_pid", Int4),
            ("xmin", Xid),
            ("catalog_xmin", Xid),
            ("restart_lsn", Text),
            ("confirmed_flush_lsn", Text),
            ("wal_status", Text),
            ("safe_wal_size", Int8),
            ("two_phase", Bool),
        ],
    );
    ViewRows { columns: cols, rows: Vec::new() }
}

/// `pg_stat_progress_vacuum`: one row per running VACUUM, from the progress
/// each publishes in the activity table (`sluice-maint`'s `vacuum/`).
fn pg_stat_progress_vacuum(env: &BackendEnv) -> ViewRows {
    use SqlType::*;
    let cols = columns(
        "pg_stat_progress_vacuum",
        &[
            ("pid", Int4),
            ("datid", Oid),
            ("datname", Name),
            ("relid", Oid),
            ("phase", Text),
            ("heap_blks_total", Int8),
            ("heap_blks_scanned", Int8),
            ("heap_blks_vacuumed", Int8),
            ("index_vacuum_count", Int8),
            ("max_dead_tuples", Int8),
            ("num_dead_tuples", Int8),
        ],
    );
    let sessions = env.activity.snapshot();
    let count = |n: u64| Datum::Int8(i64::try_from(n).unwrap_or(i64::MAX));
    let rows = env
        .activity
        .vacuums()
        .into_iter()
        .filter_map(|(pid, v)| {
            let session = sessions.iter().find(|a| a.pid == pid)?;
            let p = v.progress;
            Some(vec![
                Datum::Int4(pid as i32),
                Datum::Oid(session.database.0),
                Datum::Text(session.database.1.clone()),
                Datum::Oid(v.relid),
                Datum::Text(p.phase.name().to_string()),
                count(p.heap_blks_total),
                count(p.heap_blks_scanned),
                count(p.heap_blks_vacuumed),
                count(p.index_vacuum_count),
                count(p.max_dead_tuples),
                count(p.num_dead_tuples),
            ])
        })
        .collect();
    ViewRows { columns: cols, rows }
}

/// `pg_stat_progress_cluster`: one row per running VACUUM FULL or CLUSTER,
/// from the progress each publishes in the activity table
/// (`sluice-maint`'s `cluster.rs`).
fn pg_stat_progress_cluster(env: &BackendEnv) -> ViewRows {
    use SqlType::*;
    let cols = columns(
        "pg_stat_progress_cluster",
        &[
            ("pid", Int4),
            ("datid", Oid),
            ("datname", Name),
            ("relid", Oid),
            ("command", Text),
            ("phase", Text),
            ("cluster_index_relid", Oid),
            ("heap_tuples_scanned", Int8),
            ("heap_tuples_written", Int8),
            ("heap_blks_total", Int8),
            ("heap_blks_scanned", Int8),
            ("index_rebuild_count", Int8),
        ],
    );
    let sessions = env.activity.snapshot();
    let count = |n: u64| Datum::Int8(i64::try_from(n).unwrap_or(i64::MAX));
    let rows = env
        .activity
        .clusters()
        .into_iter()
        .filter_map(|(pid, c)| {
            let session = sessions.iter().find(|a| a.pid == pid)?;
            Some(vec![
                Datum::Int4(pid as i32),
                Datum::Oid(session.database.0),
                Datum::Text(session.database.1.clone()),
                Datum::Oid(c.relid),
                Datum::Text(c.command.to_string()),
                Datum::Text(c.phase.to_string()),
                Datum::Oid(c.cluster_index_relid),
                count(c.heap_tuples_scanned),
                count(c.heap_tuples_written),
                count(c.heap_blks_total),
                count(c.heap_blks_scanned),
                count(c.index_rebuild_count),
            ])
        })
        .collect();
    ViewRows { columns: cols, rows }
}

/// `pg_roles`: `pg_authid` without the password (PostgreSQL shows
/// `********`; sluice stores none, so the column is NULL as for roles
/// without one).
fn pg_roles(parts: &mut ExecParts) -> Result<ViewRows> {
    use crate::catalog::schema::PG_AUTHID;
    use SqlType::*;
    let cols = columns(
        "pg_roles",
        &[
            ("rolname", Name),
            ("rolsuper", Bool),
            ("rolinherit", Bool),
            ("rolcreaterole", Bool),
            ("rolcreatedb", Bool),
            ("rolcanlogin", Bool),
            ("rolreplication", Bool),
            ("rolconnlimit", Int4),
            ("rolpassword", Text),
            ("rolvaliduntil", TimestampTz),
            ("rolbypassrls", Bool),
            ("rolconfig", SqlType::TEXT_ARRAY),
            ("oid", Oid),
        ],
    );
    let ctx = VisibilityContext::for_transaction(parts.txn, parts.engine.txns());
    let authid = crate::catalog::scan_as(parts.engine, 0, &PG_AUTHID, &ctx, |_| true)?;
    // pg_authid: oid, rolname, rolsuper, rolinherit, rolcreaterole,
    // rolcreatedb, rolcanlogin, rolreplication, rolbypassrls, rolconnlimit.
    let rows = authid
        .into_iter()
        .map(|(_, r)| {
            let mut row: Vec<Datum> = r[1..8].to_vec();
            row.extend([r[9].clone(), Datum::Null, Datum::Null, r[8].clone(), Datum::Null]);
            row.push(r[0].clone());
            row
        })
        .collect();
    Ok(ViewRows { columns: cols, rows })
}

/// `pg_stats`: `pg_statistic` made readable (`catalog/statistic.rs` builds
/// the rows), values printed in the session's time zone.
fn pg_stats(parts: &mut ExecParts) -> Result<ViewRows> {
    use crate::catalog::statistic::{pg_stats_rows, PG_STATS_COLUMNS};
    let ctx = VisibilityContext::for_transaction(parts.txn, parts.engine.txns());
    let session = crate::expr::session_context(&*parts.env.settings, parts.env.txn_start);
    let rows = pg_stats_rows(parts.engine, parts.env.database, &ctx, &session)?;
    Ok(ViewRows { columns: columns("pg_stats", &PG_STATS_COLUMNS), rows })
}

fn opt_oid(v: Option<u32>) -> Datum {
    v.map_or(Datum::Null, Datum::Oid)
}

fn opt_text(v: Option<impl Into<String>>) -> Datum {
    v.map_or(Datum::Null, |s| Datum::Text(s.into()))
}

/// `pg_locks`: every granted and awaited heavyweight lock.
fn pg_locks(engine: &Engine) -> ViewRows {
    use SqlType::*;
    let cols = columns(
        "pg_locks",
        &[
            ("locktype", Text),
            ("database", Oid),
            ("relation", Oid),
            ("page", Int4),
            ("tuple", Int2),
            ("virtualxid", Text),
            ("transactionid", Text),
            ("classid", Oid),
            ("objid", Oid),
            ("objsubid", Int2),
            ("virtualtransaction", Text),
            ("pid", Int4),
            ("mode", Text),
            ("granted", Bool),
            ("fastpath", Bool),
            ("waitstart", TimestampTz),
        ],
    );
    let rows = engine
        .txns()
        .lock_manager()
        .locks()
        .into_iter()
        .map(|l| {
            let waitstart = l
                .waitstart
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| Datum::TimestampTz(d.as_micros() as i64 - 946_684_800_000_000));
            vec![
                Datum::Text(l.tag.locktype().into()),
                opt_oid(l.tag.database()),
                opt_oid(l.tag.relation()),
                l.tag.page().map_or(Datum::Null, |p| Datum::Int4(p as i32)),
                l.tag.tuple().map_or(Datum::Null, |t| Datum::Int2(t as i16)),
                Datum::Null,
                opt_text(l.tag.transactionid().map(|x| x.0.to_string())),
                opt_oid(l.tag.classid()),
                opt_oid(l.tag.objid()),
                l.tag.objsubid().map_or(Datum::Null, |o| Datum::Int2(o as i16)),
                Datum::Null,
                Datum::Int4(l.owner.pid as i32),
                Datum::Text(l.mode.name().into()),
                Datum::Bool(l.granted),
                Datum::Bool(l.fastpath),
                waitstart.unwrap_or(Datum::Null),
            ]
        })
        .collect();
    ViewRows { columns: cols, rows }
}

/// `pg_settings`: every setting as the session sees it. `enumvals` (an
/// array in PostgreSQL) is shown as PostgreSQL prints the array, `{a,b}`.
fn pg_settings(env: &BackendEnv) -> ViewRows {
    use SqlType::*;
    let text = |n: &str| (n.to_string(), Text);
    let mut list: Vec<(String, SqlType)> = [
        "name",
        "setting",
        "unit",
        "category",
        "short_desc",
        "extra_desc",
        "context",
        "vartype",
        "source",
        "min_val",
        "max_val",
        "enumvals",
        "boot_val",
        "reset_val",
        "sourcefile",
    ]
    .iter()
    .map(|n| text(n))
    .collect();
    list.push(("sourceline".into(), Int4));
    list.push(("pending_restart".into(), Bool));
    let named: Vec<(&str, SqlType)> = list.iter().map(|(n, t)| (n.as_str(), *t)).collect();
    let cols = columns("pg_settings", &named);
    let rows = env
        .settings
        .pg_settings()
        .into_iter()
        .map(|r| {
            vec![
                Datum::Text(r.name.into()),
                Datum::Text(r.setting),
                opt_text(r.unit),
                Datum::Text(r.category.into()),
                Datum::Text(r.short_desc.into()),
                opt_text(r.extra_desc),
                Datum::Text(r.context.into()),
                Datum::Text(r.vartype.into()),
                Datum::Text(r.source.into()),
                opt_text(r.min_val),
                opt_text(r.max_val),
                opt_text(r.enumvals.map(|v| format!("{{{}}}", v.join(",")))),
                opt_text(r.boot_val),
                opt_text(r.reset_val),
                opt_text(r.sourcefile),
                r.sourceline.map_or(Datum::Null, Datum::Int4),
                Datum::Bool(r.pending_restart),
            ]
        })
        .collect();
    ViewRows { columns: cols, rows }
}

pub(super) fn columns(view: &str, list: &[(&str, SqlType)]) -> Vec<ScopeColumn> {
    list.iter()
        .map(|(name, ty)| ScopeColumn {
            table: Some(view.to_string()),
            name: name.to_string(),
            ty: *ty,
            typmod: -1,
        })
        .collect()
}

fn opt_time(t: Option<i64>) -> Datum {
    t.map_or(Datum::Null, Datum::TimestampTz)
}

/// `pg_stat_activity`: one row per client backend and background worker.
fn pg_stat_activity(env: &BackendEnv, engine: &Engine) -> ViewRows {
    use SqlType::*;
    let cols = columns(
        "pg_stat_activity",
        &[
            ("datid", Oid),
            ("datname", Name),
            ("pid", Int4),
            ("leader_pid", Int4),
            ("usesysid", Oid),
            ("usename", Name),
            ("application_name", Text),
            ("client_addr", Text),
            ("client_hostname", Text),
            ("client_port", Int4),
            ("backend_start", TimestampTz),
            ("xact_start", TimestampTz),
            ("query_start", TimestampTz),
            ("state_change", TimestampTz),
            ("wait_event_type", Text),
            ("wait_event", Text),
            ("state", Text),
            ("backend_xid", Xid),
            ("backend_xmin", Xid),
            ("query_id", Int8),
            ("query", Text),
            ("backend_type", Text),
        ],
    );
    let procs = engine.txns().proc_states();
    let waits: Vec<(u32, &'static str)> = engine
        .txns()
        .lock_manager()
        .locks()
        .into_iter()
        .filter(|l| !l.granted)
        .map(|l| (l.owner.pid, l.tag.locktype()))
        .collect();
    let xid = |x: Option<sluice_common::Xid>| x.map_or(Datum::Null, |x| Datum::Xid(x.0));
    let rows = env
        .activity
        .snapshot()
        .into_iter()
        .map(|a| {
            let proc = procs.iter().find(|p| p.proc == a.proc);
            // A heavyweight lock wait: wait_event_type Lock, the lock's type as event.
            let wait = waits.iter().find(|(pid, _)| *pid == a.pid).map(|(_, event)| *event);
            vec![
                Datum::Oid(a.database.0),
                Datum::Text(a.database.1),
                Datum::Int4(a.pid as i32),
                Datum::Null,
                Datum::Oid(crate::catalog::schema::BOOTSTRAP_SUPERUSER),
                Datum::Text(a.user),
                Datum::Text(a.application_name),
                Datum::Text("127.0.0.1".into()),
                Datum::Null,
                Datum::Null,
                Datum::TimestampTz(a.backend_start),
                opt_time(a.xact_start),
                opt_time(a.query_start),
                Datum::TimestampTz(a.state_change),
                wait.map_or(Datum::Null, |_| Datum::Text("Lock".into())),
                wait.map_or(Datum::Null, |w| Datum::Text(w.into())),
                Datum::Text(a.state.to_string()),
                xid(proc.and_then(|p| p.xid)),
                xid(proc.and_then(|p| p.xmin)),
                Datum::Null,
                Datum::Text(a.query),
                Datum::Text(a.backend_type.into()),
            ]
        })
        .chain(env.activity.auxiliary().into_iter().map(auxiliary_row))
        .collect();
    ViewRows { columns: cols, rows }
}

/// An auxiliary process's `pg_stat_activity` row: no database, user,
/// client, transaction, state or query; waiting on its main loop's event.
fn auxiliary_row(process: AuxiliaryProcess) -> Vec<Datum> {
    let text = |t: &str| Datum::Text(t.into());
    vec![
        Datum::Null,                     // datid
        Datum::Null,                     // datname
        Datum::Int4(process.pid as i32), // pid
        Datum::Null,                     // leader_pid
        Datum::Null,                     // usesysid
        Datum::Null,                     // usename
        text(""),                        // application_name
        Datum::Null,                     // client_addr
        Datum::Null,                     // client_hostname
        Datum::Null,                     // client_port
        Datum::TimestampTz(process.backend_start),
        Datum::Null,                // xact_start
        Datum::Null,                // query_start
        Datum::Null,                // state_change
        text("Activity"),           // wait_event_type
        text(process.wait_event),   // wait_event
        Datum::Null,                // state
        Datum::Null,                // backend_xid
        Datum::Null,                // backend_xmin
        Datum::Null,                // query_id
        text(""),                   // query
        text(process.backend_type), // backend_type
    ]
}
