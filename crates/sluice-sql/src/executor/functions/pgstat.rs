//! The cumulative statistics functions (PostgreSQL's `pgstatfuncs.c`): the
//! per-relation `pg_stat_get_*(oid)` counters the `pg_stat_*_tables` views
//! are made of, and the reset functions. They read the engine's shared
//! table (`sluice_access::pgstat`) for the session's database; this
//! session's counts of the running transaction are not there yet, as in
//! PostgreSQL.

use super::super::host::ExecHost;
use sluice_access::pgstat::Counter;
use sluice_types::Datum;

/// `pg_stat_get_<counter>(oid)`: 0 (or NULL for a time) for a relation
/// without statistics, NULL for a NULL argument.
pub(super) fn get(host: &mut ExecHost, counter: Counter, args: &[Datum]) -> Datum {
    let Some(Datum::Oid(oid)) = args.first() else { return Datum::Null };
    let env = host.env();
    let stats = env.engine.stats().get(env.database, *oid).unwrap_or_default();
    match (counter.is_time(), stats.get(counter)) {
        (true, Some(t)) => Datum::TimestampTz(t),
        (true, None) => Datum::Null,
        (false, n) => Datum::Int8(n.unwrap_or(0)),
    }
}

/// `pg_stat_reset()`: every counter of the current database goes.
pub(super) fn reset(host: &mut ExecHost) -> Datum {
    let env = host.env();
    env.engine.stats().reset(env.database);
    Datum::Text(String::new())
}

/// `pg_stat_reset_single_table_counters(oid)`.
pub(super) fn reset_single(host: &mut ExecHost, args: &[Datum]) -> Datum {
    if let Some(Datum::Oid(oid)) = args.first() {
        let env = host.env();
        env.engine.stats().reset_single(env.database, *oid);
    }
    Datum::Text(String::new())
}
