//! The planner's method switches, cost constants, GEQO and other options (`Query Tuning`).

use super::enums::{CONSTRAINT_EXCLUSION, PLAN_CACHE_MODE};
use super::flags::EXPLAIN;
use super::Category::{QueryTuningCost, QueryTuningGeqo, QueryTuningMethod, QueryTuningOther};
use super::Context::User;
use super::{boolean, enumerated, int, real, Setting};
use crate::units::Unit::Blocks;

/// The settings of this group, by name.
pub(super) static SETTINGS: &[Setting] = &[
    enumerated("constraint_exclusion", User, QueryTuningOther, "partition", CONSTRAINT_EXCLUSION)
        .flags(EXPLAIN)
        .describe("Enables the planner to use constraints to optimize queries.")
        .extra("Table scans will be skipped if their constraints guarantee that no rows match the query."),
    real("cpu_index_tuple_cost", User, QueryTuningCost, 0.005, 0.0, f64::MAX)
        .flags(EXPLAIN)
        .describe("Sets the planner's estimate of the cost of processing each index entry during an index scan."),
    real("cpu_operator_cost", User, QueryTuningCost, 0.0025, 0.0, f64::MAX)
        .flags(EXPLAIN)
        .describe("Sets the planner's estimate of the cost of processing each operator or function call."),
    real("cpu_tuple_cost", User, QueryTuningCost, 0.01, 0.0, f64::MAX)
        .flags(EXPLAIN)
        .describe("Sets the planner's estimate of the cost of processing each tuple (row)."),
    real("cursor_tuple_fraction", User, QueryTuningOther, 0.1, 0.0, 1.0)
        .flags(EXPLAIN)
        .describe("Sets the planner's estimate of the fraction of a cursor's rows that will be retrieved."),
    int("default_statistics_target", User, QueryTuningOther, 100, 1, 10000)
        .describe("Sets the default statistics target.")
        .extra("This applies to table columns that have not had a column-specific target set via ALTER TABLE SET STATISTICS."),
    int("effective_cache_size", User, QueryTuningCost, 524288, 1, i32::MAX)
        .unit(Blocks)
        .flags(EXPLAIN)
        .describe("Sets the planner's assumption about the total size of the data caches.")
        .extra("That is, the total size of the caches (kernel cache and shared buffers) used for PostgreSQL data files. This is measured in disk pages, which are normally 8 kB each."),
    boolean("enable_async_append", User, QueryTuningMethod, true)
        .flags(EXPLAIN)
        .describe("Enables the planner's use of async append plans."),
    boolean("enable_bitmapscan", User, QueryTuningMethod, true)
        .flags(EXPLAIN)
        .describe("Enables the planner's use of bitmap-scan plans."),
    boolean("enable_gathermerge", User, QueryTuningMethod, true)
        .flags(EXPLAIN)
        .describe("Enables the planner's use of gather merge plans."),
    boolean("enable_hashagg", User, QueryTuningMethod, true)
        .flags(EXPLAIN)
        .describe("Enables the planner's use of hashed aggregation plans."),
    boolean("enable_hashjoin", User, QueryTuningMethod, true)
        .flags(EXPLAIN)
        .describe("Enables the planner's use of hash join plans."),
    boolean("enable_incremental_sort", User, QueryTuningMethod, true)
        .flags(EXPLAIN)
        .describe("Enables the planner's use of incremental sort steps."),
    boolean("enable_indexonlyscan", User, QueryTuningMethod, true)
        .flags(EXPLAIN)
        .describe("Enables the planner's use of index-only-scan plans."),
    boolean("enable_indexscan", User, QueryTuningMethod, true)
        .flags(EXPLAIN)
        .describe("Enables the planner's use of index-scan plans."),
    boolean("enable_material", User, QueryTuningMethod, true)
        .flags(EXPLAIN)
        .describe("Enables the planner's use of materialization."),
    boolean("enable_memoize", User, QueryTuningMethod, true)
        .flags(EXPLAIN)
        .describe("Enables the planner's use of memoization."),
    boolean("enable_mergejoin", User, QueryTuningMethod, true)
        .flags(EXPLAIN)
        .describe("Enables the planner's use of merge join plans."),
    boolean("enable_nestloop", User, QueryTuningMethod, true)
        .flags(EXPLAIN)
        .describe("Enables the planner's use of nested-loop join plans."),
    boolean("enable_parallel_append", User, QueryTuningMethod, true)
        .flags(EXPLAIN)
        .describe("Enables the planner's use of parallel append plans."),
    boolean("enable_parallel_hash", User, QueryTuningMethod, true)
        .flags(EXPLAIN)
        .describe("Enables the planner's use of parallel hash plans."),
    boolean("enable_partition_pruning", User, QueryTuningMethod, true)
        .flags(EXPLAIN)
        .describe("Enables plan-time and execution-time partition pruning.")
        .extra("Allows the query planner and executor to compare partition bounds to conditions in the query to determine which partitions must be scanned."),
    boolean("enable_partitionwise_aggregate", User, QueryTuningMethod, false)
        .flags(EXPLAIN)
        .describe("Enables partitionwise aggregation and grouping."),
    boolean("enable_partitionwise_join", User, QueryTuningMethod, false)
        .flags(EXPLAIN)
        .describe("Enables partitionwise join."),
    boolean("enable_seqscan", User, QueryTuningMethod, true)
        .flags(EXPLAIN)
        .describe("Enables the planner's use of sequential-scan plans."),
    boolean("enable_sort", User, QueryTuningMethod, true)
        .flags(EXPLAIN)
        .describe("Enables the planner's use of explicit sort steps."),
    boolean("enable_tidscan", User, QueryTuningMethod, true)
        .flags(EXPLAIN)
        .describe("Enables the planner's use of TID scan plans."),
    int("from_collapse_limit", User, QueryTuningOther, 8, 1, i32::MAX)
        .flags(EXPLAIN)
        .describe("Sets the FROM-list size beyond which subqueries are not collapsed.")
        .extra("The planner will merge subqueries into upper queries if the resulting FROM list would have no more than this many items."),
    boolean("geqo", User, QueryTuningGeqo, true)
        .flags(EXPLAIN)
        .describe("Enables genetic query optimization.")
        .extra("This algorithm attempts to do planning without exhaustive searching."),
    int("geqo_effort", User, QueryTuningGeqo, 5, 1, 10)
        .flags(EXPLAIN)
        .describe("GEQO: effort is used to set the default for other GEQO parameters."),
    int("geqo_generations", User, QueryTuningGeqo, 0, 0, i32::MAX)
        .flags(EXPLAIN)
        .describe("GEQO: number of iterations of the algorithm.")
        .extra("Zero selects a suitable default value."),
    int("geqo_pool_size", User, QueryTuningGeqo, 0, 0, i32::MAX)
        .flags(EXPLAIN)
        .describe("GEQO: number of individuals in the population.")
        .extra("Zero selects a suitable default value."),
    real("geqo_seed", User, QueryTuningGeqo, 0.0, 0.0, 1.0)
        .flags(EXPLAIN)
        .describe("GEQO: seed for random path selection."),
    real("geqo_selection_bias", User, QueryTuningGeqo, 2.0, 1.5, 2.0)
        .flags(EXPLAIN)
        .describe("GEQO: selective pressure within the population."),
    int("geqo_threshold", User, QueryTuningGeqo, 12, 2, i32::MAX)
        .flags(EXPLAIN)
        .describe("Sets the threshold of FROM items beyond which GEQO is used."),
    boolean("jit", User, QueryTuningOther, false)
        .flags(EXPLAIN)
        .describe("Allow JIT compilation."),
    real("jit_above_cost", User, QueryTuningCost, 100000.0, -1.0, f64::MAX)
        .flags(EXPLAIN)
        .describe("Perform JIT compilation if query is more expensive.")
        .extra("-1 disables JIT compilation."),
    real("jit_inline_above_cost", User, QueryTuningCost, 500000.0, -1.0, f64::MAX)
        .flags(EXPLAIN)
        .describe("Perform JIT inlining if query is more expensive.")
        .extra("-1 disables inlining."),
    real("jit_optimize_above_cost", User, QueryTuningCost, 500000.0, -1.0, f64::MAX)
        .flags(EXPLAIN)
        .describe("Optimize JIT-compiled functions if query is more expensive.")
        .extra("-1 disables optimization."),
    int("join_collapse_limit", User, QueryTuningOther, 8, 1, i32::MAX)
        .flags(EXPLAIN)
        .describe("Sets the FROM-list size beyond which JOIN constructs are not flattened.")
        .extra("The planner will flatten explicit JOIN constructs into lists of FROM items whenever a list of no more than this many items would result."),
    int("min_parallel_index_scan_size", User, QueryTuningCost, 64, 0, 715827882)
        .unit(Blocks)
        .flags(EXPLAIN)
        .describe("Sets the minimum amount of index data for a parallel scan.")
        .extra("If the planner estimates that it will read a number of index pages too small to reach this limit, a parallel scan will not be considered."),
    int("min_parallel_table_scan_size", User, QueryTuningCost, 1024, 0, 715827882)
        .unit(Blocks)
        .flags(EXPLAIN)
        .describe("Sets the minimum amount of table data for a parallel scan.")
        .extra("If the planner estimates that it will read a number of table pages too small to reach this limit, a parallel scan will not be considered."),
    real("parallel_setup_cost", User, QueryTuningCost, 1000.0, 0.0, f64::MAX)
        .flags(EXPLAIN)
        .describe("Sets the planner's estimate of the cost of starting up worker processes for parallel query."),
    real("parallel_tuple_cost", User, QueryTuningCost, 0.1, 0.0, f64::MAX)
        .flags(EXPLAIN)
        .describe("Sets the planner's estimate of the cost of passing each tuple (row) from worker to leader backend."),
    enumerated("plan_cache_mode", User, QueryTuningOther, "auto", PLAN_CACHE_MODE)
        .flags(EXPLAIN)
        .describe("Controls the planner's selection of custom or generic plan.")
        .extra("Prepared statements can have custom and generic plans, and the planner will attempt to choose which is better.  This can be set to override the default behavior."),
    real("random_page_cost", User, QueryTuningCost, 4.0, 0.0, f64::MAX)
        .flags(EXPLAIN)
        .describe("Sets the planner's estimate of the cost of a nonsequentially fetched disk page."),
    real("recursive_worktable_factor", User, QueryTuningOther, 10.0, 0.001, 1000000.0)
        .flags(EXPLAIN)
        .describe("Sets the planner's estimate of the average size of a recursive query's working table."),
    real("seq_page_cost", User, QueryTuningCost, 1.0, 0.0, f64::MAX)
        .flags(EXPLAIN)
        .describe("Sets the planner's estimate of the cost of a sequentially fetched disk page."),
];
