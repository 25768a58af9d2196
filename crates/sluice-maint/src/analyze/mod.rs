//! ANALYZE: collecting the planner's statistics (PostgreSQL's
//! `commands/analyze.c`, and the ANALYZE half of `commands/vacuum.c`'s
//! option and relation handling).
//!
//! # The idea
//!
//! The planner needs to know, per column, how many rows are NULL, how many
//! distinct values there are, which values are most common and how the rest
//! are distributed, and per table how many rows and pages it has. Reading the
//! whole table for that would cost as much as the queries it is meant to
//! speed up, so ANALYZE reads a fixed-size random sample — 300 rows per unit
//! of `default_statistics_target` (30 000 by default), however big the table
//! — and estimates from it:
//!
//! ```text
//!   ANALYZE t ──► lock t (ShareUpdateExclusive)
//!             ──► sample.rs: choose ≤ 30 000 pages (Knuth's Algorithm S),
//!                 read their live rows through a 30 000-row reservoir
//!                 (Vitter), count live and dead rows
//!             ──► compute.rs: per column, null fraction, width, distinct
//!                 count, most common values, histogram, correlation
//!             ──► catalog/statistic.rs: replace the columns' pg_statistic rows
//!             ──► pg_class: relpages, reltuples (the estimated live rows)
//! ```
//!
//! A table with no more live rows than the sample size is read completely:
//! its statistics are exact and do not depend on the random seed.
//!
//! # Locking and transactions
//!
//! Each table is locked ShareUpdateExclusive before it is read, as in
//! PostgreSQL: concurrent reads and writes go on, while a second ANALYZE (or
//! VACUUM, or DDL) of the same table waits, so two writers never replace the
//! same `pg_statistic` rows at once. The lock is held until the transaction
//! ends. With SKIP_LOCKED a table whose lock is not free at once is skipped
//! with a WARNING.
//!
//! ANALYZE may run inside a transaction block, and then all its work
//! belongs to the caller's transaction. Outside one, an ANALYZE of several
//! tables (a database-wide one, or a list) commits the statement's
//! transaction once the list is made and runs each table in a transaction
//! of its own, as PostgreSQL's `vacuum()` does: one lock at a time, and a
//! failure keeps the statistics of the tables before it. PostgreSQL also writes
//! `relpages` and `reltuples` in place, outside transactional control, so a
//! rolled-back ANALYZE keeps them; sluice writes a new `pg_class` row version
//! in the transaction (PostgreSQL's non-inplace path), so a rollback undoes
//! them with the statistics. Between tables the command counter advances, so
//! `ANALYZE t, t` sees its own first pass.
//!
//! # What is not done (yet)
//!
//! No per-column `SET STATISTICS`, no extended statistics, no inheritance
//! trees, no array-element statistics (`most_common_elems`); these need
//! features sluice does not have. The sample is not used to refresh index
//! statistics, because there are no indexes yet.
//!
//! [`analyze_relation`] is the entry for one table, for VACUUM ANALYZE.

mod compute;
mod sample;
mod sampling;

use compute::{compute, ColumnSample};
use pg_query::protobuf::{DefElem, RangeVar, VacuumRelation, VacuumStmt};
use pg_query::NodeEnum;
use sample::{acquire_sample_rows, Sample, SampleParams};
use sluice_access::heap::visibilitymap;
use sluice_common::Oid;
use sluice_guc::Settings;
use sluice_sql::catalog::relation::{self, oid_of, RelationDesc};
use sluice_sql::catalog::rows::deform_row_projected;
use sluice_sql::catalog::schema::{RelKind, PG_CLASS, PG_STATISTIC};
use sluice_sql::catalog::statistic::{self, latest_view, ColumnStatistics};
use sluice_sql::catalog::{replace, scan, scan_as};
use sluice_sql::error::position;
use sluice_sql::error::{Result, SqlError};
use sluice_sql::executor::context::BackendContext;
use sluice_sql::executor::context::ExecParts;
use sluice_sql::executor::lmgr::lock_relation_with;
use sluice_sql::sink::QuerySink;
use sluice_txn::lmgr::LockMode;
use sluice_types::{Datum, SqlType};

/// Rows sampled per unit of statistics target (PostgreSQL's std_typanalyze
/// reasoning: a histogram of that many buckets, from this many rows, is
/// accurate to about ±50% with 99% confidence, by Chaudhuri, Motwani and
/// Narasayya 1998).
const ROWS_PER_TARGET: usize = 300;

/// The smallest sample ANALYZE takes, whatever the target.
const MIN_SAMPLE_ROWS: usize = 100;

/// ANALYZE's options.
#[derive(Clone, Copy, Debug, Default)]
pub struct AnalyzeOptions {
    /// VERBOSE: report progress as INFO messages.
    pub verbose: bool,
    /// SKIP_LOCKED: skip a table whose lock is not free at once.
    pub skip_locked: bool,
    /// Part of VACUUM ANALYZE: VACUUM has already warned about tables it
    /// cannot process, so ANALYZE does not warn again.
    pub in_vacuum: bool,
}

/// A table ANALYZE (or VACUUM) was asked to process.
pub(crate) struct Target {
    /// Its OID.
    pub(crate) oid: Oid,
    /// Its name as the statement wrote it (`None` for a database-wide
    /// ANALYZE, which skips tables without a word).
    pub(crate) named: Option<String>,
    /// The columns listed, if any (empty: all columns).
    pub(crate) columns: Vec<String>,
}

/// analyze -- `ANALYZE [VERBOSE] [table [(column, ...)], ...]` and its
/// parenthesised-options form. Every listed table is looked up before any is
/// analysed, so a misspelt name fails the whole statement at once.
pub fn analyze(
    cx: &mut dyn BackendContext,
    stmt: &VacuumStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let options = parse_options(stmt)?;
    let targets = if stmt.rels.is_empty() { all_tables(cx)? } else { listed_tables(cx, stmt)? };
    // Outside any transaction block (PostgreSQL's IsInTransactionBlock: an
    // explicit block or a multi-statement query string) several tables get
    // a transaction each, as in PostgreSQL's vacuum().
    let own_xacts = targets.len() > 1 && !cx.is_in_transaction_block();
    for target in &targets {
        if own_xacts {
            cx.restart_transaction()?;
        }
        let mut parts = cx.parts()?;
        analyze_relation(
            &mut parts,
            target.oid,
            target.named.as_deref(),
            &target.columns,
            &options,
            sink,
        )?;
        // `ANALYZE t, t`: the second pass must see the first one's rows.
        parts.txn.increment_command();
    }
    sink.complete("ANALYZE")
}

/// def_boolean -- a Boolean option's value (PostgreSQL's defGetBoolean): no
/// value means true; else 0/1 or true/false/on/off in any case.
pub(crate) fn def_boolean(def: &DefElem) -> Result<bool> {
    let value = match def.arg.as_deref().and_then(|a| a.node.as_ref()) {
        None => Some(true),
        Some(NodeEnum::Integer(i)) => match i.ival {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        },
        Some(_) => match def.arg.as_deref().and_then(sluice_sql::parser::node_str) {
            Some(word) if word.eq_ignore_ascii_case("true") || word.eq_ignore_ascii_case("on") => {
                Some(true)
            }
            Some(word)
                if word.eq_ignore_ascii_case("false") || word.eq_ignore_ascii_case("off") =>
            {
                Some(false)
            }
            _ => None,
        },
    };
    value.ok_or_else(|| SqlError::syntax(format!("{} requires a Boolean value", def.defname)))
}

/// parse_options -- VERBOSE and SKIP_LOCKED; anything else is refused as
/// PostgreSQL 15 refuses it (its grammar has fewer options than the
/// parser's, e.g. no BUFFER_USAGE_LIMIT).
fn parse_options(stmt: &VacuumStmt) -> Result<AnalyzeOptions> {
    let mut options = AnalyzeOptions::default();
    for node in &stmt.options {
        let Some(NodeEnum::DefElem(def)) = node.node.as_ref() else { continue };
        match def.defname.as_str() {
            "verbose" => options.verbose = def_boolean(def)?,
            "skip_locked" => options.skip_locked = def_boolean(def)?,
            other => {
                return Err(SqlError::syntax(format!("unrecognized ANALYZE option \"{other}\""))
                    .at(position(def.location)))
            }
        }
    }
    Ok(options)
}

/// all_tables -- every ordinary table of the database, catalogs included,
/// in `pg_class` order (PostgreSQL's get_all_vacuum_rels).
pub(crate) fn all_tables(cx: &mut dyn BackendContext) -> Result<Vec<Target>> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let kind = RelKind::Table.letter();
    let rows = scan(&engine, db, &PG_CLASS, cx.txn()?, |r| r[14].as_str() == Some(kind))?;
    Ok(rows
        .into_iter()
        .map(|(_, r)| Target { oid: oid_of(&r[0]), named: None, columns: Vec::new() })
        .collect())
}

/// listed_tables -- the tables the statement names, looked up in the
/// search path (42P01 for a missing one, without a cursor position, as
/// PostgreSQL reports it here).
pub(crate) fn listed_tables(cx: &mut dyn BackendContext, stmt: &VacuumStmt) -> Result<Vec<Target>> {
    let mut targets = Vec::new();
    for node in &stmt.rels {
        let Some(NodeEnum::VacuumRelation(vr)) = node.node.as_ref() else { continue };
        let Some(rv) = vr.relation.as_ref() else { continue };
        let oid = lookup_table(cx, rv).map_err(|mut e| {
            e.position = None;
            e
        })?;
        targets.push(Target { oid, named: Some(rv.relname.clone()), columns: column_names(vr) });
    }
    Ok(targets)
}

/// The relation `rv` names. No lock yet: PostgreSQL takes and drops an
/// AccessShareLock here; the ShareUpdateExclusiveLock taken before the
/// table is read is what matters, and a table dropped in between is
/// skipped then.
fn lookup_table(cx: &mut dyn BackendContext, rv: &RangeVar) -> Result<Oid> {
    Ok(cx.find_named(rv)?.oid)
}

fn column_names(vr: &VacuumRelation) -> Vec<String> {
    vr.va_cols.iter().filter_map(sluice_sql::parser::node_str).collect()
}

/// analyze_relation -- ANALYZE of one table (PostgreSQL's analyze_rel):
/// locks it ShareUpdateExclusive, samples it, stores the statistics of
/// `columns` (all when empty) and its size in `pg_class`. `named` is the
/// name the statement used, or `None` when the table was not named (a
/// database-wide ANALYZE): unnamed tables that cannot be processed are
/// skipped silently. Messages go to `sink` (INFO with VERBOSE, WARNING for
/// skipped tables). Runs in `parts`' transaction; the caller advances the
/// command counter before analysing the same table again.
pub(crate) fn analyze_relation(
    parts: &mut ExecParts,
    relid: Oid,
    named: Option<&str>,
    columns: &[String],
    options: &AnalyzeOptions,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    if !lock_for_maintenance(parts, relid, named, options.skip_locked, "analyze", sink)? {
        return Ok(());
    }
    // Read the table as it is now that it is locked: a TRUNCATE or DROP
    // that committed while we waited must not be missed.
    let ctx = latest_view(parts.txn, parts.engine.txns());
    let Some(rel) = relation::by_oid(parts.engine, parts.env.database, &ctx, relid)? else {
        return Ok(());
    };
    if !rel.kind.has_heap() {
        if !options.in_vacuum {
            let message = format!(
                "skipping \"{}\" --- cannot analyze non-tables or special system tables",
                rel.name
            );
            sink.notice(&SqlError::new("01000", message))?;
        }
        return Ok(());
    }
    // Its own statistics would change under it as they are written.
    if relid == PG_STATISTIC.oid {
        return Ok(());
    }
    if options.verbose {
        let namespaces = statistic::namespace_names(parts.engine, parts.env.database, &ctx)?;
        let schema = namespaces.get(&rel.namespace).map_or("", String::as_str);
        sink.info(&SqlError::new("00000", format!("analyzing \"{schema}.{}\"", rel.name)))?;
    }
    let chosen = chosen_columns(&rel, columns)?;
    let target = statistics_target(parts);
    let sample = take_sample(parts, &rel, (ROWS_PER_TARGET * target).max(MIN_SAMPLE_ROWS))?;
    if options.verbose {
        sink.info(&SqlError::new("00000", sample_report(&rel.name, &sample)))?;
    }
    if !sample.tuples.is_empty() {
        let stats = column_statistics(&rel, &sample, &chosen, target)?;
        let rows: Vec<(i16, SqlType, ColumnStatistics)> =
            stats.into_iter().map(|(i, s)| (i as i16 + 1, rel.columns[i].ty, s)).collect();
        statistic::store(parts.engine, parts.env.database, parts.txn, relid, &rows)?;
    }
    let all_visible = visibilitymap::count(parts.engine.pool(), rel.locator)?.0;
    update_relstats(parts, relid, sample.total_pages, sample.total_rows, Some(all_visible))?;
    report_analyze(parts, relid, &sample);
    Ok(())
}

/// report_analyze -- tells the cumulative statistics what ANALYZE found:
/// the live estimate and the dead rows extrapolated like it
/// (pgstat_report_analyze).
fn report_analyze(parts: &ExecParts, relid: Oid, sample: &sample::Sample) {
    let dead = if sample.scanned_pages == 0 {
        0.0
    } else {
        (sample.dead_rows / f64::from(sample.scanned_pages) * f64::from(sample.total_pages) + 0.5)
            .floor()
    };
    let by = sluice_access::pgstat::Initiator::Manual;
    let db = parts.env.database;
    parts.engine.stats().report_analyze(db, relid, sample.total_rows as i64, dead as i64, by);
}

/// lock_for_maintenance -- takes the ShareUpdateExclusiveLock ANALYZE and
/// VACUUM (`command`, lower case) hold on `relid`. Returns false if
/// SKIP_LOCKED found it taken (after warning about a named table).
pub(crate) fn lock_for_maintenance(
    parts: &mut ExecParts,
    relid: Oid,
    named: Option<&str>,
    skip_locked: bool,
    command: &str,
    sink: &mut dyn QuerySink,
) -> Result<bool> {
    let mode = LockMode::ShareUpdateExclusive;
    match lock_relation_with(parts, relid, mode, skip_locked, named) {
        Ok(()) => Ok(true),
        Err(e) if skip_locked && e.code == "55P03" => {
            if let Some(name) = named {
                let message = format!("skipping {command} of \"{name}\" --- lock not available");
                sink.warning(&SqlError::new("55P03", message))?;
            }
            Ok(false)
        }
        Err(e) => Err(e),
    }
}

/// chosen_columns -- the indexes of the columns to analyse: all, or those
/// listed (42703 for an unknown one, 42701 for one listed twice).
fn chosen_columns(rel: &RelationDesc, columns: &[String]) -> Result<Vec<usize>> {
    if columns.is_empty() {
        return Ok(rel.live_columns().collect());
    }
    let mut chosen = Vec::new();
    for name in columns {
        let i = rel.column_index(name).ok_or_else(|| {
            SqlError::new(
                "42703",
                format!("column \"{name}\" of relation \"{}\" does not exist", rel.name),
            )
        })?;
        if chosen.contains(&i) {
            return Err(SqlError::new(
                "42701",
                format!("column \"{name}\" of relation \"{}\" appears more than once", rel.name),
            ));
        }
        chosen.push(i);
    }
    Ok(chosen)
}

/// The session's `default_statistics_target` (1 .. 10000).
fn statistics_target(parts: &ExecParts) -> usize {
    parts.env.settings.get_int("default_statistics_target").max(1) as usize
}

/// take_sample -- samples `rel` for `target_rows` rows with a fresh seed.
fn take_sample(parts: &mut ExecParts, rel: &RelationDesc, target_rows: usize) -> Result<Sample> {
    let interrupts = parts.env.interrupts.clone();
    let params = SampleParams {
        locator: rel.locator,
        own_xid: parts.txn.xid(),
        target_rows,
        seed: rand::random(),
        interrupts: &*interrupts,
    };
    acquire_sample_rows(parts.engine, &params)
}

/// VERBOSE's report of the sample, in PostgreSQL's words.
fn sample_report(name: &str, sample: &Sample) -> String {
    format!(
        "\"{name}\": scanned {} of {} pages, containing {:.0} live rows and {:.0} dead rows; \
         {} rows in sample, {:.0} estimated total rows",
        sample.scanned_pages,
        sample.total_pages,
        sample.live_rows,
        sample.dead_rows,
        sample.tuples.len(),
        sample.total_rows
    )
}

/// column_statistics -- the statistics of the `chosen` columns of `rel`
/// from `sample`, as (column index, statistics); columns whose sample holds
/// nothing to go on are left out.
fn column_statistics(
    rel: &RelationDesc,
    sample: &Sample,
    chosen: &[usize],
    target: usize,
) -> Result<Vec<(usize, ColumnStatistics)>> {
    let types = rel.types();
    let desc = rel.tuple_desc();
    let mut needed = vec![false; types.len()];
    chosen.iter().for_each(|i| needed[*i] = true);
    // Column-major copies of the sampled values, in the sample's order.
    let mut values: Vec<Vec<Datum>> = vec![Vec::with_capacity(sample.tuples.len()); types.len()];
    for tuple in &sample.tuples {
        let mut row = deform_row_projected(&desc, &types, tuple, &needed)?;
        for i in chosen {
            values[*i].push(std::mem::replace(&mut row[*i], Datum::Null));
        }
    }
    Ok(chosen
        .iter()
        .filter_map(|i| {
            let input = ColumnSample {
                ty: types[*i],
                values: &values[*i],
                total_rows: sample.total_rows,
                target,
            };
            compute(&input).map(|s| (*i, s))
        })
        .collect())
}

/// update_relstats -- records `relpages`, `reltuples` and (for a table,
/// from its visibility map) `relallvisible` in `relid`'s `pg_class` row, as
/// a new row version in the caller's transaction (see the module doc); an
/// unchanged row is left alone. The caller holds a lock
/// that keeps DDL off the row (ShareUpdateExclusive or stronger), so
/// VACUUM can use this too.
pub(crate) fn update_relstats(
    parts: &mut ExecParts,
    relid: Oid,
    relpages: u32,
    reltuples: f64,
    all_visible: Option<u32>,
) -> Result<()> {
    let column = |name: &str| PG_CLASS.columns.iter().position(|c| c.0 == name);
    let (Some(pages_at), Some(tuples_at), Some(visible_at)) =
        (column("relpages"), column("reltuples"), column("relallvisible"))
    else {
        return Err(SqlError::internal("pg_class has no relpages/reltuples/relallvisible"));
    };
    let (engine, db) = (parts.engine, parts.env.database);
    let ctx = latest_view(parts.txn, engine.txns());
    let rows = scan_as(engine, db, &PG_CLASS, &ctx, |r| oid_of(&r[0]) == relid)?;
    let Some((tid, mut values)) = rows.into_iter().next() else { return Ok(()) };
    let pages = Datum::Int4(i32::try_from(relpages).unwrap_or(i32::MAX));
    let tuples = Datum::Float4(reltuples as f32);
    let visible = all_visible.map(|n| Datum::Int4(i32::try_from(n).unwrap_or(i32::MAX)));
    let visible = visible.unwrap_or_else(|| values[visible_at].clone());
    if values[pages_at] == pages && values[tuples_at] == tuples && values[visible_at] == visible {
        return Ok(());
    }
    values[pages_at] = pages;
    values[tuples_at] = tuples;
    values[visible_at] = visible;
    replace(engine, db, &PG_CLASS, parts.txn, tid, &values)?;
    Ok(())
}
