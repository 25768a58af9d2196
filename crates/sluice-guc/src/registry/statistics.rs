//! Monitoring and cumulative statistics (`Statistics`).

use super::enums::{COMPUTE_QUERY_ID, STATS_FETCH_CONSISTENCY, TRACK_FUNCTIONS};
use super::Category::{StatsCumulative, StatsMonitoring};
use super::Context::{Postmaster, Superuser, User};
use super::{boolean, enumerated, int, Setting};
use crate::units::Unit::Bytes;

/// The settings of this group, by name.
pub(super) static SETTINGS: &[Setting] = &[
    enumerated("compute_query_id", Superuser, StatsMonitoring, "auto", COMPUTE_QUERY_ID)
        .describe("Enables in-core computation of query identifiers."),
    boolean("log_executor_stats", Superuser, StatsMonitoring, false)
        .describe("Writes executor performance statistics to the server log."),
    boolean("log_parser_stats", Superuser, StatsMonitoring, false)
        .describe("Writes parser performance statistics to the server log."),
    boolean("log_planner_stats", Superuser, StatsMonitoring, false)
        .describe("Writes planner performance statistics to the server log."),
    boolean("log_statement_stats", Superuser, StatsMonitoring, false)
        .describe("Writes cumulative performance statistics to the server log."),
    enumerated("stats_fetch_consistency", User, StatsCumulative, "cache", STATS_FETCH_CONSISTENCY)
        .describe("Sets the consistency of accesses to statistics data."),
    boolean("track_activities", Superuser, StatsCumulative, true)
        .describe("Collects information about executing commands.")
        .extra("Enables the collection of information on the currently executing command of each session, along with the time at which that command began execution."),
    int("track_activity_query_size", Postmaster, StatsCumulative, 1024, 100, 1048576)
        .unit(Bytes)
        .describe("Sets the size reserved for pg_stat_activity.query, in bytes."),
    boolean("track_counts", Superuser, StatsCumulative, true)
        .describe("Collects statistics on database activity."),
    enumerated("track_functions", Superuser, StatsCumulative, "none", TRACK_FUNCTIONS)
        .describe("Collects function-level statistics on database activity."),
    boolean("track_io_timing", Superuser, StatsCumulative, false)
        .describe("Collects timing statistics for database I/O activity."),
    boolean("track_wal_io_timing", Superuser, StatsCumulative, false)
        .describe("Collects timing statistics for WAL I/O activity."),
];
