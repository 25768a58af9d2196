//! VACUUM VERBOSE's report of one table, in PostgreSQL 15's words and
//! layout (the message heap_vacuum_rel logs at its end).
//!
//! The lines PostgreSQL prints from its resource accounting — "avg read
//! rate", "buffer usage", "WAL usage", "system usage" — are left out: sluice
//! has no per-backend buffer, WAL or CPU counters yet, and printing the
//! server-wide ones would mislead.

use sluice_access::heap::vacuumlazy::VacuumReport;
use sluice_common::Xid;
use sluice_sql::catalog::index::IndexDesc;
use std::fmt::Write;

/// `part` as a percentage of `whole`, 100 for an empty whole (as PostgreSQL).
fn percent(part: u32, whole: u32) -> f64 {
    if whole == 0 {
        100.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// finished_message -- the INFO message "finished vacuuming ..." for the
/// table called `full_name` (database.schema.table), given the live rows it
/// is estimated to have now (`live`: counted on the pages read, estimated
/// for the pages skipped, as `pg_class.reltuples`), its `indexes` in the
/// report's order and the next xid when the work ended.
pub(super) fn finished_message(
    full_name: &str,
    report: &VacuumReport,
    live: f64,
    indexes: &[IndexDesc],
    next_xid: Xid,
) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(
        out,
        "finished vacuuming \"{full_name}\": index scans: {}",
        report.num_index_scans
    );
    let orig = report.orig_rel_pages;
    let _ = writeln!(
        out,
        "pages: {} removed, {} remain, {} scanned ({:.2}% of total)",
        orig - report.rel_pages,
        report.rel_pages,
        report.scanned_pages,
        percent(report.scanned_pages, orig)
    );
    let _ = writeln!(
        out,
        "tuples: {} removed, {} remain, {} are dead but not yet removable",
        report.tuples_deleted,
        live as u64 + report.recently_dead_tuples,
        report.recently_dead_tuples
    );
    let _ = writeln!(
        out,
        "removable cutoff: {}, which was {} XIDs old when operation ended",
        report.removable_cutoff.0,
        next_xid.0.saturating_sub(report.removable_cutoff.0)
    );
    let _ = write!(out, "{}", index_scan_line(report));
    for (index, stats) in indexes.iter().zip(&report.index_stats) {
        if let Some(stats) = stats {
            let _ = write!(
                out,
                "\nindex \"{}\": pages: {} in total, {} newly deleted, {} currently deleted, \
                 {} reusable",
                index.name,
                stats.num_pages,
                stats.pages_newly_deleted,
                stats.pages_deleted,
                stats.pages_free
            );
        }
    }
    out
}

/// The line saying whether the indexes were scanned for the dead items.
fn index_scan_line(report: &VacuumReport) -> String {
    let pages = report.lpdead_item_pages;
    let pct = percent(pages, report.orig_rel_pages);
    let items = report.lpdead_items;
    if !report.do_index_vacuuming {
        return format!(
            "index scan bypassed: {pages} pages from table ({pct:.2}% of total) have {items} \
             dead item identifiers"
        );
    }
    let needed = if report.num_index_scans == 0 { "not needed" } else { "needed" };
    format!(
        "index scan {needed}: {pages} pages from table ({pct:.2}% of total) had {items} dead \
         item identifiers removed"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_reads_like_postgres_15() {
        let report = VacuumReport {
            orig_rel_pages: 6,
            scanned_pages: 6,
            rel_pages: 4,
            tuples_deleted: 200,
            live_tuples: 300,
            lpdead_item_pages: 3,
            lpdead_items: 200,
            do_index_vacuuming: true,
            num_index_scans: 1,
            removable_cutoff: Xid(740),
            ..VacuumReport::default()
        };
        let text = finished_message("db.public.vt", &report, 300.0, &[], Xid(741));
        assert_eq!(
            text,
            "finished vacuuming \"db.public.vt\": index scans: 1\n\
             pages: 2 removed, 4 remain, 6 scanned (100.00% of total)\n\
             tuples: 200 removed, 300 remain, 0 are dead but not yet removable\n\
             removable cutoff: 740, which was 1 XIDs old when operation ended\n\
             index scan needed: 3 pages from table (50.00% of total) had 200 dead item \
             identifiers removed"
        );
    }
}
