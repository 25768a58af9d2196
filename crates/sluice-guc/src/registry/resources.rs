//! Memory, disk, kernel resources, vacuum cost delay, the background writer
//! and asynchronous I/O (`Resource Usage`).

use super::enums::{DYNAMIC_SHARED_MEMORY, HUGE_PAGES, SHARED_MEMORY_TYPE};
use super::flags::EXPLAIN;
use super::Category::{
    ResourcesAsynchronous, ResourcesBgwriter, ResourcesDisk, ResourcesKernel, ResourcesMem,
    ResourcesVacuumDelay,
};
use super::Context::{Postmaster, Sighup, Superuser, User};
use super::{boolean, enumerated, int, real, Setting};
use crate::hooks;
use crate::units::Unit::{Blocks, Kb, Mb, Min, Ms};

/// The settings of this group, by name.
pub(super) static SETTINGS: &[Setting] = &[
    int("autovacuum_work_mem", Sighup, ResourcesMem, -1, -1, i32::MAX)
        .unit(Kb)
        .check(hooks::autovacuum_work_mem)
        .describe("Sets the maximum memory to be used by each autovacuum worker process."),
    int("backend_flush_after", User, ResourcesAsynchronous, 0, 0, 256)
        .unit(Blocks)
        .describe("Number of pages after which previously performed writes are flushed to disk."),
    int("bgwriter_delay", Sighup, ResourcesBgwriter, 200, 10, 10000)
        .unit(Ms)
        .describe("Background writer sleep time between rounds."),
    int("bgwriter_flush_after", Sighup, ResourcesBgwriter, 64, 0, 256)
        .unit(Blocks)
        .describe("Number of pages after which previously performed writes are flushed to disk."),
    int("bgwriter_lru_maxpages", Sighup, ResourcesBgwriter, 100, 0, 1073741823)
        .describe("Background writer maximum number of LRU pages to flush per round."),
    real("bgwriter_lru_multiplier", Sighup, ResourcesBgwriter, 2.0, 0.0, 10.0)
        .describe("Multiple of the average buffer usage to free per round."),
    enumerated("dynamic_shared_memory_type", Postmaster, ResourcesMem, "posix", DYNAMIC_SHARED_MEMORY)
        .describe("Selects the dynamic shared memory implementation used."),
    int("effective_io_concurrency", User, ResourcesAsynchronous, 1, 0, 1000)
        .flags(EXPLAIN)
        .describe("Number of simultaneous requests that can be handled efficiently by the disk subsystem."),
    real("hash_mem_multiplier", User, ResourcesMem, 2.0, 1.0, 1000.0)
        .flags(EXPLAIN)
        .describe("Multiple of work_mem to use for hash tables."),
    int("huge_page_size", Postmaster, ResourcesMem, 0, 0, i32::MAX)
        .unit(Kb)
        .describe("The size of huge page that should be requested."),
    enumerated("huge_pages", Postmaster, ResourcesMem, "try", HUGE_PAGES)
        .describe("Use of huge pages on Linux or Windows."),
    int("logical_decoding_work_mem", User, ResourcesMem, 65536, 64, i32::MAX)
        .unit(Kb)
        .describe("Sets the maximum memory to be used for logical decoding.")
        .extra("This much memory can be used by each internal reorder buffer before spilling to disk."),
    int("maintenance_io_concurrency", User, ResourcesAsynchronous, 10, 0, 1000)
        .flags(EXPLAIN)
        .describe("A variant of effective_io_concurrency that is used for maintenance work."),
    int("maintenance_work_mem", User, ResourcesMem, 65536, 1024, i32::MAX)
        .unit(Kb)
        .describe("Sets the maximum memory to be used for maintenance operations.")
        .extra("This includes operations such as VACUUM and CREATE INDEX."),
    int("max_files_per_process", Postmaster, ResourcesKernel, 1000, 64, i32::MAX)
        .describe("Sets the maximum number of simultaneously open files for each server process."),
    int("max_parallel_maintenance_workers", User, ResourcesAsynchronous, 2, 0, 1024)
        .describe("Sets the maximum number of parallel processes per maintenance operation."),
    int("max_parallel_workers", User, ResourcesAsynchronous, 8, 0, 1024)
        .flags(EXPLAIN)
        .describe("Sets the maximum number of parallel workers that can be active at one time."),
    int("max_parallel_workers_per_gather", User, ResourcesAsynchronous, 2, 0, 1024)
        .flags(EXPLAIN)
        .describe("Sets the maximum number of parallel processes per executor node."),
    int("max_prepared_transactions", Postmaster, ResourcesMem, 0, 0, 262143)
        .describe("Sets the maximum number of simultaneously prepared transactions."),
    int("max_stack_depth", Superuser, ResourcesMem, 100, 100, i32::MAX)
        .unit(Kb)
        .describe("Sets the maximum stack depth, in kilobytes."),
    int("max_worker_processes", Postmaster, ResourcesAsynchronous, 8, 0, 262143)
        .describe("Maximum number of concurrent worker processes."),
    int("min_dynamic_shared_memory", Postmaster, ResourcesMem, 0, 0, i32::MAX)
        .unit(Mb)
        .describe("Amount of dynamic shared memory reserved at startup."),
    int("old_snapshot_threshold", Postmaster, ResourcesAsynchronous, -1, -1, 86400)
        .unit(Min)
        .describe("Time before a snapshot is too old to read pages changed after the snapshot was taken.")
        .extra("A value of -1 disables this feature."),
    boolean("parallel_leader_participation", User, ResourcesAsynchronous, true)
        .flags(EXPLAIN)
        .describe("Controls whether Gather and Gather Merge also run subplans.")
        .extra("Should gather nodes also run subplans or just gather tuples?"),
    int("shared_buffers", Postmaster, ResourcesMem, 16384, 16, 1073741823)
        .unit(Blocks)
        .describe("Sets the number of shared memory buffers used by the server."),
    enumerated("shared_memory_type", Postmaster, ResourcesMem, "mmap", SHARED_MEMORY_TYPE)
        .describe("Selects the shared memory implementation used for the main shared memory region."),
    int("temp_buffers", User, ResourcesMem, 1024, 100, 1073741823)
        .unit(Blocks)
        .flags(EXPLAIN)
        .describe("Sets the maximum number of temporary buffers used by each session."),
    int("temp_file_limit", Superuser, ResourcesDisk, -1, -1, i32::MAX)
        .unit(Kb)
        .describe("Limits the total size of all temporary files used by each process.")
        .extra("-1 means no limit."),
    real("vacuum_cost_delay", User, ResourcesVacuumDelay, 0.0, 0.0, 100.0)
        .unit(Ms)
        .describe("Vacuum cost delay in milliseconds."),
    int("vacuum_cost_limit", User, ResourcesVacuumDelay, 200, 1, 10000)
        .describe("Vacuum cost amount available before napping."),
    int("vacuum_cost_page_dirty", User, ResourcesVacuumDelay, 20, 0, 10000)
        .describe("Vacuum cost for a page dirtied by vacuum."),
    int("vacuum_cost_page_hit", User, ResourcesVacuumDelay, 1, 0, 10000)
        .describe("Vacuum cost for a page found in the buffer cache."),
    int("vacuum_cost_page_miss", User, ResourcesVacuumDelay, 2, 0, 10000)
        .describe("Vacuum cost for a page not found in the buffer cache."),
    int("work_mem", User, ResourcesMem, 4096, 64, i32::MAX)
        .unit(Kb)
        .flags(EXPLAIN)
        .describe("Sets the maximum memory to be used for query workspaces.")
        .extra("This much memory can be used by each internal sort operation and hash table before switching to temporary disk files."),
];
