//! The system views and row-returning functions sluice computes from live
//! state instead of reading tables: their names, as the catalog knows them.
//!
//! In PostgreSQL these are views in `system_views.sql` over functions such
//! as `pg_stat_get_activity`; sluice has no view rewriting yet, so the
//! executor computes each view's rows itself (`executor/sysviews.rs`,
//! `executor/pgstat_views.rs`, `executor/backend_status.rs`). The planner
//! needs only to tell these names apart from tables, which is what this
//! module answers; a name listed here must be computable there.

/// Views over the backends' and the server's live state.
const LIVE_VIEWS: [&str; 10] = [
    "pg_stat_activity",
    "pg_locks",
    "pg_settings",
    "pg_stats",
    "pg_roles",
    "pg_stat_progress_vacuum",
    "pg_stat_progress_cluster",
    "pg_stat_slru",
    "pg_prepared_xacts",
    "pg_replication_slots",
];

/// The cumulative statistics views over tables and indexes.
const STATISTICS_VIEWS: [&str; 9] = [
    "pg_stat_all_tables",
    "pg_stat_user_tables",
    "pg_stat_sys_tables",
    "pg_stat_all_indexes",
    "pg_stat_user_indexes",
    "pg_stat_sys_indexes",
    "pg_statio_all_tables",
    "pg_statio_user_tables",
    "pg_statio_sys_tables",
];

/// Whether `name` (in `pg_catalog`) is a system view computed from live
/// state.
pub fn is_system_view(name: &str) -> bool {
    LIVE_VIEWS.contains(&name) || STATISTICS_VIEWS.contains(&name)
}

/// Whether `name` is a backend statistics function returning rows
/// (`pg_stat_get_backend_idset`, `pg_stat_get_backend_subxact`).
pub fn is_backend_function(name: &str) -> bool {
    matches!(name, "pg_stat_get_backend_idset" | "pg_stat_get_backend_subxact")
}
