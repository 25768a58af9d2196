//! System views computed from live state rather than stored in tables
//! (PostgreSQL defines them as views over functions such as
//! `pg_stat_get_activity`; here the planner materialises their rows when a
//! query names them).

use crate::expr::ScopeColumn;
use crate::session::SessionEnv;
use sluice_access::Engine;
use sluice_types::{Datum, SqlType};

/// A system view's columns and current rows.
pub struct ViewRows {
    /// Columns, in PostgreSQL's order.
    pub columns: Vec<ScopeColumn>,
    /// Rows.
    pub rows: Vec<Vec<Datum>>,
}

/// The rows of system view `name`, if it is one.
pub fn lookup(name: &str, env: &SessionEnv, engine: &Engine) -> Option<ViewRows> {
    match name {
        "pg_stat_activity" => Some(pg_stat_activity(env, engine)),
        _ => None,
    }
}

fn columns(view: &str, list: &[(&str, SqlType)]) -> Vec<ScopeColumn> {
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

/// `pg_stat_activity`: one row per client backend. `xid` columns are shown as
/// text (sluice has no `xid` type yet; psql prints them the same way).
fn pg_stat_activity(env: &SessionEnv, engine: &Engine) -> ViewRows {
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
            ("backend_xid", Text),
            ("backend_xmin", Text),
            ("query_id", Int8),
            ("query", Text),
            ("backend_type", Text),
        ],
    );
    let procs = engine.txns().proc_states();
    let xid_text =
        |x: Option<sluice_common::Xid>| x.map_or(Datum::Null, |x| Datum::Text(x.0.to_string()));
    let rows = env
        .activity
        .snapshot()
        .into_iter()
        .map(|a| {
            let proc = procs.iter().find(|p| p.proc == a.proc);
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
                Datum::Null,
                Datum::Null,
                Datum::Text(a.state.to_string()),
                xid_text(proc.and_then(|p| p.xid)),
                xid_text(proc.and_then(|p| p.xmin)),
                Datum::Null,
                Datum::Text(a.query),
                Datum::Text("client backend".into()),
            ]
        })
        .collect();
    ViewRows { columns: cols, rows }
}
