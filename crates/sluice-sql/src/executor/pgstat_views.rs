//! The cumulative statistics views (PostgreSQL 15's `pg_stat_all_tables`,
//! `pg_stat_all_indexes`, `pg_statio_all_tables` and their `_user`/`_sys`
//! halves), built when a query names them from `pg_class`, `pg_index` and
//! `pg_namespace` under the statement's snapshot and the engine's
//! statistics table (`sluice_access::pgstat`), column for column as
//! PostgreSQL's view definitions compute them — including their NULLs: a
//! table without indexes has NULL `idx_scan`/`idx_tup_fetch` (a sum over
//! no rows), and, sluice having no TOAST tables, the `toast_*`/`tidx_*`
//! columns are always NULL.
//!
//! Buffer pool reads are not attributed to relations yet, so the
//! `*_blks_read`/`*_blks_hit` columns are 0.

use super::sysviews::{columns, ViewRows};
use crate::catalog::relation::oid_of;
use crate::catalog::scan_as;
use crate::catalog::schema::{PG_CLASS, PG_INDEX, PG_NAMESPACE};
use crate::error::Result;
use crate::executor::context::ExecParts;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::pgstat::TableStats;
use sluice_common::Oid;
use sluice_types::{Datum, SqlType};
use std::collections::HashMap;

/// Which relations a view shows, by schema.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Schemas {
    All,
    User,
    Sys,
}

impl Schemas {
    /// The `_all`/`_user`/`_sys` suffix of `name` after `prefix`.
    fn of(name: &str, prefix: &str) -> Option<Schemas> {
        match name.strip_prefix(prefix)? {
            "all" => Some(Schemas::All),
            "user" => Some(Schemas::User),
            "sys" => Some(Schemas::Sys),
            _ => None,
        }
    }

    /// Whether a relation in schema `nspname` belongs.
    fn admits(self, nspname: &str) -> bool {
        let system = matches!(nspname, "pg_catalog" | "information_schema")
            || nspname.starts_with("pg_toast");
        match self {
            Schemas::All => true,
            Schemas::User => !system,
            Schemas::Sys => system,
        }
    }
}

/// The rows of statistics view `name`, if it is one.
pub fn lookup(name: &str, parts: &mut ExecParts) -> Result<Option<ViewRows>> {
    let kind = if let Some(s) = name.strip_suffix("_tables") {
        if let Some(schemas) = Schemas::of(s, "pg_stat_") {
            (schemas, 0)
        } else if let Some(schemas) = Schemas::of(s, "pg_statio_") {
            (schemas, 2)
        } else {
            return Ok(None);
        }
    } else if let Some(schemas) =
        name.strip_suffix("_indexes").and_then(|s| Schemas::of(s, "pg_stat_"))
    {
        (schemas, 1)
    } else {
        return Ok(None);
    };
    let catalog = Catalog::read(parts)?;
    Ok(Some(match kind {
        (schemas, 0) => stat_tables(name, &catalog, schemas),
        (schemas, 1) => stat_indexes(name, &catalog, schemas),
        (schemas, _) => statio_tables(name, &catalog, schemas),
    }))
}

/// A relation as the views need it.
struct Class {
    oid: Oid,
    name: String,
    schema: Option<String>,
    kind: String,
    stats: TableStats,
}

/// The catalog rows and statistics the views are built from.
struct Catalog {
    classes: Vec<Class>,
    /// Index OIDs by table OID.
    indexes: HashMap<Oid, Vec<Oid>>,
}

impl Catalog {
    fn read(parts: &mut ExecParts) -> Result<Catalog> {
        parts.plan_log.reads_live_state = true;
        let (engine, db) = (parts.engine, parts.env.database);
        let ctx = VisibilityContext::for_transaction(parts.txn, engine.txns());
        let namespaces: HashMap<Oid, String> = scan_as(engine, db, &PG_NAMESPACE, &ctx, |_| true)?
            .into_iter()
            .map(|(_, r)| (oid_of(&r[0]), r[1].as_str().unwrap_or_default().to_string()))
            .collect();
        let stats = engine.stats();
        let classes = scan_as(engine, db, &PG_CLASS, &ctx, |_| true)?
            .into_iter()
            .map(|(_, r)| {
                let oid = oid_of(&r[0]);
                Class {
                    oid,
                    name: r[1].as_str().unwrap_or_default().to_string(),
                    schema: namespaces.get(&oid_of(&r[2])).cloned(),
                    kind: r[14].as_str().unwrap_or_default().to_string(),
                    stats: stats.get(db, oid).unwrap_or_default(),
                }
            })
            .collect();
        let mut indexes: HashMap<Oid, Vec<Oid>> = HashMap::new();
        for (_, r) in scan_as(engine, db, &PG_INDEX, &ctx, |_| true)? {
            indexes.entry(oid_of(&r[1])).or_default().push(oid_of(&r[0]));
        }
        Ok(Catalog { classes, indexes })
    }

    /// The tables (relkinds in `kinds`) the view shows.
    fn tables<'c>(
        &'c self,
        kinds: &'c [&str],
        schemas: Schemas,
    ) -> impl Iterator<Item = &'c Class> + 'c {
        self.classes.iter().filter(move |c| {
            kinds.contains(&c.kind.as_str())
                && schemas.admits(c.schema.as_deref().unwrap_or_default())
        })
    }

    fn class(&self, oid: Oid) -> Option<&Class> {
        self.classes.iter().find(|c| c.oid == oid)
    }

    /// The statistics of table `oid`'s indexes (those still in pg_class).
    fn index_stats(&self, oid: Oid) -> Vec<&Class> {
        let ids = self.indexes.get(&oid).map_or(&[][..], Vec::as_slice);
        ids.iter().filter_map(|&i| self.class(i)).collect()
    }
}

fn int8(v: i64) -> Datum {
    Datum::Int8(v)
}

fn time(t: Option<i64>) -> Datum {
    t.map_or(Datum::Null, Datum::TimestampTz)
}

fn text(s: &str) -> Datum {
    Datum::Text(s.to_string())
}

fn schema(c: &Class) -> Datum {
    c.schema.as_deref().map_or(Datum::Null, text)
}

/// The sum of `f` over `indexes`, NULL over none (SQL's `sum`).
fn sum(indexes: &[&Class], f: impl Fn(&TableStats) -> i64) -> Option<i64> {
    (!indexes.is_empty()).then(|| indexes.iter().map(|i| f(&i.stats)).sum())
}

/// `pg_stat_{all,user,sys}_tables`.
fn stat_tables(view: &str, catalog: &Catalog, schemas: Schemas) -> ViewRows {
    use SqlType::*;
    let mut list = vec![("relid", Oid), ("schemaname", Name), ("relname", Name)];
    for name in ["seq_scan", "seq_tup_read", "idx_scan", "idx_tup_fetch", "n_tup_ins"] {
        list.push((name, Int8));
    }
    for name in ["n_tup_upd", "n_tup_del", "n_tup_hot_upd", "n_live_tup", "n_dead_tup"] {
        list.push((name, Int8));
    }
    list.extend([("n_mod_since_analyze", Int8), ("n_ins_since_vacuum", Int8)]);
    for name in ["last_vacuum", "last_autovacuum", "last_analyze", "last_autoanalyze"] {
        list.push((name, TimestampTz));
    }
    for name in ["vacuum_count", "autovacuum_count", "analyze_count", "autoanalyze_count"] {
        list.push((name, Int8));
    }
    let rows = catalog
        .tables(&["r", "t", "m", "p"], schemas)
        .map(|c| {
            let s = &c.stats;
            let indexes = catalog.index_stats(c.oid);
            let idx_scan = sum(&indexes, |i| i.numscans);
            let idx_fetch = sum(&indexes, |i| i.tuples_fetched).map(|n| n + s.tuples_fetched);
            vec![
                Datum::Oid(c.oid),
                schema(c),
                text(&c.name),
                int8(s.numscans),
                int8(s.tuples_returned),
                idx_scan.map_or(Datum::Null, int8),
                idx_fetch.map_or(Datum::Null, int8),
                int8(s.tuples_inserted),
                int8(s.tuples_updated),
                int8(s.tuples_deleted),
                int8(s.tuples_hot_updated),
                int8(s.live_tuples),
                int8(s.dead_tuples),
                int8(s.mod_since_analyze),
                int8(s.ins_since_vacuum),
                time(s.last_vacuum),
                time(s.last_autovacuum),
                time(s.last_analyze),
                time(s.last_autoanalyze),
                int8(s.vacuum_count),
                int8(s.autovacuum_count),
                int8(s.analyze_count),
                int8(s.autoanalyze_count),
            ]
        })
        .collect();
    ViewRows { columns: columns(view, &list), rows }
}

/// `pg_stat_{all,user,sys}_indexes`.
fn stat_indexes(view: &str, catalog: &Catalog, schemas: Schemas) -> ViewRows {
    use SqlType::*;
    let list = [
        ("relid", Oid),
        ("indexrelid", Oid),
        ("schemaname", Name),
        ("relname", Name),
        ("indexrelname", Name),
        ("idx_scan", Int8),
        ("idx_tup_read", Int8),
        ("idx_tup_fetch", Int8),
    ];
    let mut rows = Vec::new();
    for table in catalog.tables(&["r", "t", "m"], schemas) {
        for index in catalog.index_stats(table.oid) {
            rows.push(vec![
                Datum::Oid(table.oid),
                Datum::Oid(index.oid),
                schema(table),
                text(&table.name),
                text(&index.name),
                int8(index.stats.numscans),
                int8(index.stats.tuples_returned),
                int8(index.stats.tuples_fetched),
            ]);
        }
    }
    ViewRows { columns: columns(view, &list), rows }
}

/// `pg_statio_{all,user,sys}_tables`.
fn statio_tables(view: &str, catalog: &Catalog, schemas: Schemas) -> ViewRows {
    use SqlType::*;
    let mut list = vec![("relid", Oid), ("schemaname", Name), ("relname", Name)];
    for name in ["heap_blks_read", "heap_blks_hit", "idx_blks_read", "idx_blks_hit"] {
        list.push((name, Int8));
    }
    for name in ["toast_blks_read", "toast_blks_hit", "tidx_blks_read", "tidx_blks_hit"] {
        list.push((name, Int8));
    }
    let rows = catalog
        .tables(&["r", "t", "m"], schemas)
        .map(|c| {
            let s = &c.stats;
            let indexes = catalog.index_stats(c.oid);
            let opt = |v: Option<i64>| v.map_or(Datum::Null, int8);
            let mut row = vec![
                Datum::Oid(c.oid),
                schema(c),
                text(&c.name),
                int8(s.blocks_fetched - s.blocks_hit),
                int8(s.blocks_hit),
                opt(sum(&indexes, |i| i.blocks_fetched - i.blocks_hit)),
                opt(sum(&indexes, |i| i.blocks_hit)),
            ];
            row.extend(std::iter::repeat_n(Datum::Null, 4));
            row
        })
        .collect();
    ViewRows { columns: columns(view, &list), rows }
}
