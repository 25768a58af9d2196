//! Backend and SLRU statistics functions (PostgreSQL's `pgstatfuncs.c`):
//! `pg_stat_get_backend_idset()`, `pg_stat_get_backend_pid(id)`,
//! `pg_stat_get_backend_subxact(id)` and the `pg_stat_slru` view.
//!
//! # Backend ids
//!
//! A backend's id is its proc array slot + 1, as PostgreSQL's BackendId is
//! its PGPROC slot + 1; the id set lists the slots of client backends, in
//! slot order. The rows are computed when the query is planned, like the
//! system views (`sysviews.rs`).
//!
//! # Subtransactions
//!
//! `subxact_count` is the number of live subtransaction ids the backend's
//! transaction holds (assigned and not rolled back — what PostgreSQL caches
//! in PGPROC). `subxact_overflowed` is always false: PostgreSQL overflows past
//! 64 cached subxids and then resolves them through `pg_subtrans`; sluice
//! keeps no per-backend cache to overflow, every subxid resolves through the
//! CSN log (`sluice-txn`'s `xact/subxact.rs`).
//!
//! # SLRUs
//!
//! `pg_stat_slru` has PostgreSQL 15's eight rows. "Xact" is sluice's commit
//! log and "MultiXactOffset"/"MultiXactMember" the two multixact SLRUs, with
//! their real counters (`blks_exists` is 0: sluice never asks whether a page
//! exists, it reads a missing one as zeros; the commit log's `truncates` is
//! 0: 64-bit xids never wrap, so it is not truncated, while VACUUM truncates
//! the multixact SLRUs). The other rows are zero because sluice has no such
//! SLRU: commit timestamps are not tracked (CommitTs), the CSN log replaces
//! `pg_subtrans` and is in memory (Subtrans), and there is no LISTEN/NOTIFY
//! queue (Notify) or SERIALIZABLE predicate-lock log (Serial).

use super::sysviews::{columns, ViewRows};
use crate::error::{Result, SqlError};
use crate::executor::context::ExecParts;
use crate::expr::Expr;
use sluice_access::Engine;
use sluice_txn::slru::SlruStats;
use sluice_txn::ProcState;
use sluice_types::{Datum, SqlType};

/// Microseconds between the Unix epoch and PostgreSQL's (2000-01-01).
const POSTGRES_EPOCH_OFFSET_MICROS: i64 = 946_684_800_000_000;

/// PostgreSQL 15's SLRU names, in its order.
const SLRU_NAMES: [&str; 8] = [
    "CommitTs",
    "MultiXactMember",
    "MultiXactOffset",
    "Notify",
    "Serial",
    "Subtrans",
    "Xact",
    "other",
];

/// function_rows -- the rows of FROM-clause function `name` called with
/// `args` (already analysed).
pub fn function_rows(name: &str, args: &[Expr], parts: &mut ExecParts) -> Result<ViewRows> {
    parts.plan_log.reads_live_state = true;
    let backends = client_backends(parts);
    match (name, args) {
        ("pg_stat_get_backend_idset", []) => Ok(ViewRows {
            columns: columns(name, &[(name, SqlType::Int4)]),
            rows: backends.iter().map(|b| vec![Datum::Int4(backend_id(b))]).collect(),
        }),
        ("pg_stat_get_backend_subxact", [arg]) => {
            let id = constant_int(arg, name)?;
            let row = match backends.iter().find(|b| Some(backend_id(b)) == id) {
                Some(b) => vec![Datum::Int4(b.subxacts as i32), Datum::Bool(false)],
                None => vec![Datum::Null, Datum::Null],
            };
            let cols = [("subxact_count", SqlType::Int4), ("subxact_overflowed", SqlType::Bool)];
            Ok(ViewRows { columns: columns(name, &cols), rows: vec![row] })
        }
        _ => Err(SqlError::new(
            "42883",
            format!("function {name} with {} arguments does not exist", args.len()),
        )),
    }
}

/// backend_pid -- `pg_stat_get_backend_pid(id)`: the process id of backend
/// `id`, or NULL if there is none.
pub fn backend_pid(engine: &Engine, id: i32) -> Datum {
    engine
        .txns()
        .proc_states()
        .iter()
        .find(|b| backend_id(b) == id && b.pid != 0)
        .map_or(Datum::Null, |b| Datum::Int4(b.pid as i32))
}

/// The id clients see for backend `b`.
fn backend_id(b: &ProcState) -> i32 {
    b.proc as i32 + 1
}

/// Registered backends in slot order.
fn client_backends(parts: &ExecParts) -> Vec<ProcState> {
    let mut procs = parts.engine.txns().proc_states();
    // Prepared transactions' dummy slots (pid 0) are no backends.
    procs.retain(|p| p.pid != 0);
    procs.sort_by_key(|p| p.proc);
    procs
}

/// The integer value of constant `arg` (NULL: `None`).
fn constant_int(arg: &Expr, name: &str) -> Result<Option<i32>> {
    match arg {
        Expr::Const { value: Datum::Int4(v), .. } => Ok(Some(*v)),
        Expr::Const { value: Datum::Null, .. } => Ok(None),
        _ => Err(SqlError::unsupported(format!(
            "{name} in FROM is supported with a constant argument only"
        ))),
    }
}

/// `pg_stat_slru`: see the module doc.
pub fn pg_stat_slru(engine: &Engine) -> ViewRows {
    use SqlType::*;
    let cols = columns(
        "pg_stat_slru",
        &[
            ("name", Text),
            ("blks_zeroed", Int8),
            ("blks_hit", Int8),
            ("blks_read", Int8),
            ("blks_written", Int8),
            ("blks_exists", Int8),
            ("flushes", Int8),
            ("truncates", Int8),
            ("stats_reset", TimestampTz),
        ],
    );
    let xact = engine.txns().clog().stats();
    let multixact = engine.txns().multixacts().map(|m| m.stats()).ok();
    let reset = Datum::TimestampTz(xact.since_micros as i64 - POSTGRES_EPOCH_OFFSET_MICROS);
    let counters_of = |s: SlruStats| {
        [s.blks_zeroed, s.blks_hit, s.blks_read, s.blks_written, 0, s.flushes, s.truncates]
    };
    let rows = SLRU_NAMES
        .iter()
        .map(|&name| {
            let counters = match (name, multixact) {
                ("Xact", _) => counters_of(xact),
                ("MultiXactOffset", Some((offsets, _))) => counters_of(offsets),
                ("MultiXactMember", Some((_, members))) => counters_of(members),
                _ => [0; 7],
            };
            let mut row = vec![Datum::Text(name.to_string())];
            row.extend(counters.iter().map(|&c| Datum::Int8(c as i64)));
            row.push(reset.clone());
            row
        })
        .collect();
    ViewRows { columns: cols, rows }
}

/// `pg_prepared_xacts`: the prepared transactions (`sluice-txn`'s
/// `xact/twophase.rs`), with their database's name read from `pg_database`
/// under the statement's snapshot.
pub fn pg_prepared_xacts(parts: &mut ExecParts) -> Result<ViewRows> {
    use crate::catalog::schema::PG_DATABASE;
    use sluice_access::heap::visibility::VisibilityContext;
    use SqlType::*;
    let cols = columns(
        "pg_prepared_xacts",
        &[
            ("transaction", Xid),
            ("gid", Text),
            ("prepared", TimestampTz),
            ("owner", Name),
            ("database", Name),
        ],
    );
    let ctx = VisibilityContext::for_transaction(parts.txn, parts.engine.txns());
    let databases = crate::catalog::scan_as(parts.engine, 0, &PG_DATABASE, &ctx, |_| true)?;
    let name_of = |oid: u32| {
        databases
            .iter()
            .find(|(_, r)| r[0] == Datum::Oid(oid))
            .map_or(Datum::Null, |(_, r)| r[1].clone())
    };
    let rows = parts
        .engine
        .txns()
        .prepared_xacts()
        .into_iter()
        .map(|p| {
            vec![
                Datum::Xid(p.xid.0),
                Datum::Text(p.gid),
                Datum::TimestampTz(p.prepared_at as i64 - POSTGRES_EPOCH_OFFSET_MICROS),
                Datum::Text(p.owner),
                name_of(p.database),
            ]
        })
        .collect();
    Ok(ViewRows { columns: cols, rows })
}
