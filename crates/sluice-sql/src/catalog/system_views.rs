//! The system views and row-returning functions sluice computes from live
//! state instead of reading tables: their names, as the catalog knows them.
//!
//! In PostgreSQL these are views in `system_views.sql` over functions such
//! as `pg_stat_get_activity`; sluice has no view rewriting yet, so the
//! executor computes each view's rows itself (`executor/sysviews.rs`,
//! `executor/pgstat_views.rs`, `executor/backend_status.rs`). The planner
//! needs only to tell these names apart from tables, which is what this
//! module answers; a name listed here must be computable there.
//!
//! The views that are plain queries over the catalogs ([`SQL_VIEWS`],
//! PostgreSQL's definitions) are real views instead: `initdb` stores them
//! in `pg_catalog` like any view (`pg_class` kind `v`, a `_RETURN` rule),
//! with PostgreSQL 15's OIDs, and the planner reads them as it reads a
//! user's.

use super::bootstrap::{attribute_row, ClassRow, FrozenBounds};
use super::insert;
use super::rewrite::rule_row;
use super::schema::{RelKind, PG_ATTRIBUTE, PG_CATALOG_NAMESPACE, PG_CLASS, PG_REWRITE};
use crate::error::Result;
use sluice_access::Engine;
use sluice_common::Oid;
use sluice_txn::Transaction;
use sluice_types::SqlType;

/// A system view defined by SQL: its OID and its rule's, its schema and
/// name, its columns and its query.
pub struct SqlView {
    pub(super) oid: Oid,
    pub(super) rule: Oid,
    pub(super) namespace: Oid,
    pub(super) name: &'static str,
    pub(super) columns: &'static [(&'static str, SqlType)],
    pub(super) query: &'static str,
}

/// The system views that are queries over the catalogs.
pub const SQL_VIEWS: [SqlView; 3] = [
    SqlView {
        oid: 12028,
        rule: 12031,
        namespace: PG_CATALOG_NAMESPACE,
        name: "pg_views",
        columns: &[
            ("schemaname", SqlType::Name),
            ("viewname", SqlType::Name),
            ("viewowner", SqlType::Name),
            ("definition", SqlType::Text),
        ],
        query: "SELECT n.nspname AS schemaname, c.relname AS viewname, \
            pg_catalog.pg_get_userbyid(c.relowner) AS viewowner, \
            pg_catalog.pg_get_viewdef(c.oid) AS definition \
            FROM pg_catalog.pg_class c \
            LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
            WHERE c.relkind = 'v'",
    },
    SqlView {
        oid: 12038,
        rule: 12041,
        namespace: PG_CATALOG_NAMESPACE,
        name: "pg_matviews",
        columns: &[
            ("schemaname", SqlType::Name),
            ("matviewname", SqlType::Name),
            ("matviewowner", SqlType::Name),
            ("tablespace", SqlType::Name),
            ("hasindexes", SqlType::Bool),
            ("ispopulated", SqlType::Bool),
            ("definition", SqlType::Text),
        ],
        query: "SELECT n.nspname AS schemaname, c.relname AS matviewname, \
                pg_catalog.pg_get_userbyid(c.relowner) AS matviewowner, \
                t.spcname AS tablespace, c.relhasindex AS hasindexes, \
                c.relispopulated AS ispopulated, \
                pg_catalog.pg_get_viewdef(c.oid) AS definition \
                FROM pg_catalog.pg_class c \
                LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
                LEFT JOIN pg_catalog.pg_tablespace t ON t.oid = c.reltablespace \
                WHERE c.relkind = 'm'",
    },
    // The labels of relations and their columns; PostgreSQL's view also
    // names the other kinds of object a label can be on, but sluice has no
    // SECURITY LABEL, so `pg_seclabel` stays empty whatever the view says.
    SqlView {
        oid: 12099,
        rule: 12102,
        namespace: PG_CATALOG_NAMESPACE,
        name: "pg_seclabels",
        columns: &[
            ("objoid", SqlType::Oid),
            ("classoid", SqlType::Oid),
            ("objsubid", SqlType::Int4),
            ("objtype", SqlType::Text),
            ("objnamespace", SqlType::Oid),
            ("objname", SqlType::Text),
            ("provider", SqlType::Text),
            ("label", SqlType::Text),
        ],
        query: "SELECT l.objoid, l.classoid, l.objsubid, \
                CASE WHEN l.objsubid <> 0 THEN 'column'::text \
                WHEN rel.relkind = 'v' THEN 'view'::text \
                WHEN rel.relkind = 'm' THEN 'materialized view'::text \
                WHEN rel.relkind = 'S' THEN 'sequence'::text \
                ELSE 'table'::text END AS objtype, \
                rel.relnamespace AS objnamespace, \
                rel.oid::regclass::text AS objname, l.provider, l.label \
                FROM pg_catalog.pg_seclabel l \
                JOIN pg_catalog.pg_class rel ON l.classoid = rel.tableoid AND l.objoid = rel.oid",
    },
];

/// insert_sql_views -- stores [`SQL_VIEWS`] and the `information_schema`
/// views in database `db` (initdb).
pub fn insert_sql_views(engine: &Engine, txn: &mut Transaction, db: Oid) -> Result<()> {
    for view in SQL_VIEWS.iter().chain(super::information_schema::VIEWS.iter()) {
        let class = ClassRow {
            oid: view.oid,
            name: view.name,
            namespace: view.namespace,
            relfilenode: 0,
            tablespace: sluice_common::DEFAULTTABLESPACE_OID,
            shared: false,
            kind: RelKind::View,
            natts: view.columns.len() as i16,
            options: None,
            frozen: FrozenBounds::default(),
        };
        insert(engine, db, &PG_CLASS, txn, &class.values())?;
        for (i, (name, ty)) in view.columns.iter().enumerate() {
            let row = attribute_row(view.oid, name, *ty, -1, i as i16 + 1, false, false);
            insert(engine, db, &PG_ATTRIBUTE, txn, &row)?;
        }
        insert(engine, db, &PG_REWRITE, txn, &rule_row(view.rule, view.oid, view.query))?;
    }
    Ok(())
}

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
