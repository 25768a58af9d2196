//! Autovacuum (`Autovacuum`). The vacuum cost settings are in `resources.rs`,
//! the per-command freeze ages in `client.rs`, as in PostgreSQL's grouping.

use super::Category::Autovacuum;
use super::Context::{Postmaster, Sighup};
use super::{boolean, int, real, Setting};
use crate::units::Unit::{Ms, S};

/// The settings of this group, by name.
pub(super) static SETTINGS: &[Setting] = &[
    boolean("autovacuum", Sighup, Autovacuum, true).describe("Starts the autovacuum subprocess."),
    real("autovacuum_analyze_scale_factor", Sighup, Autovacuum, 0.1, 0.0, 100.0).describe(
        "Number of tuple inserts, updates, or deletes prior to analyze as a fraction of reltuples.",
    ),
    int("autovacuum_analyze_threshold", Sighup, Autovacuum, 50, 0, i32::MAX)
        .describe("Minimum number of tuple inserts, updates, or deletes prior to analyze."),
    int("autovacuum_freeze_max_age", Postmaster, Autovacuum, 200000000, 100000, 2000000000)
        .describe("Age at which to autovacuum a table to prevent transaction ID wraparound."),
    int("autovacuum_max_workers", Postmaster, Autovacuum, 3, 1, 262143)
        .describe("Sets the maximum number of simultaneously running autovacuum worker processes."),
    int(
        "autovacuum_multixact_freeze_max_age",
        Postmaster,
        Autovacuum,
        400000000,
        10000,
        2000000000,
    )
    .describe("Multixact age at which to autovacuum a table to prevent multixact wraparound."),
    int("autovacuum_naptime", Sighup, Autovacuum, 60, 1, 2147483)
        .unit(S)
        .describe("Time to sleep between autovacuum runs."),
    real("autovacuum_vacuum_cost_delay", Sighup, Autovacuum, 2.0, -1.0, 100.0)
        .unit(Ms)
        .describe("Vacuum cost delay in milliseconds, for autovacuum."),
    int("autovacuum_vacuum_cost_limit", Sighup, Autovacuum, -1, -1, 10000)
        .describe("Vacuum cost amount available before napping, for autovacuum."),
    real("autovacuum_vacuum_insert_scale_factor", Sighup, Autovacuum, 0.2, 0.0, 100.0)
        .describe("Number of tuple inserts prior to vacuum as a fraction of reltuples."),
    int("autovacuum_vacuum_insert_threshold", Sighup, Autovacuum, 1000, -1, i32::MAX).describe(
        "Minimum number of tuple inserts prior to vacuum, or -1 to disable insert vacuums.",
    ),
    real("autovacuum_vacuum_scale_factor", Sighup, Autovacuum, 0.2, 0.0, 100.0)
        .describe("Number of tuple updates or deletes prior to vacuum as a fraction of reltuples."),
    int("autovacuum_vacuum_threshold", Sighup, Autovacuum, 50, 0, i32::MAX)
        .describe("Minimum number of tuple updates or deletes prior to vacuum."),
];
