//! Consistency of the static table.

use std::collections::HashSet;

use super::*;
use crate::hooks::HookContext;
use crate::value::Value;

#[test]
fn names_are_unique_and_found() {
    let mut seen = HashSet::new();
    for (i, s) in all().iter().enumerate() {
        assert!(seen.insert(s.name.to_ascii_lowercase()), "duplicate {}", s.name);
        assert_eq!(lookup(s.name).map(SettingId::index), Some(i));
        assert_eq!(lookup(&s.name.to_ascii_uppercase()).map(SettingId::index), Some(i));
        assert!(!s.short_desc.is_empty(), "{} has no description", s.name);
    }
    // PostgreSQL 15's 355 listed and 6 hidden settings, and transaction_timeout.
    assert_eq!(all().len(), 362);
    assert_eq!(lookup("sort_mem"), lookup("work_mem"));
    assert_eq!(lookup("vacuum_mem"), lookup("maintenance_work_mem"));
    assert_eq!(lookup("no_such_setting"), None);
}

#[test]
fn boot_values_are_valid() {
    for s in all() {
        match s.kind {
            Kind::Int { boot, min, max } => assert!((min..=max).contains(&boot), "{}", s.name),
            Kind::Real { boot, min, max } => assert!((min..=max).contains(&boot), "{}", s.name),
            Kind::Enum { boot, options } => {
                assert!(
                    options.iter().any(|o| !o.hidden && o.name == boot),
                    "{} boot {boot}",
                    s.name
                );
                for o in options {
                    let own_value =
                        |c: &&EnumOption| c.name == o.canonical && c.canonical == c.name;
                    assert!(options.iter().any(|c| own_value(&c)), "{} {}", s.name, o.name);
                }
            }
            Kind::Bool { .. } | Kind::String { .. } => {}
        }
        let null_boot = matches!(s.kind, Kind::String { boot: None });
        if let (Some(hook), false) = (s.check, null_boot) {
            let boot = Value::boot(s);
            let ctx = HookContext { current: &boot, reset: &boot };
            assert!(hook(boot.clone(), &ctx).is_ok(), "{} boot value fails its check hook", s.name);
        }
        if s.has(flags::NO_SHOW_ALL) {
            assert!(s.has(flags::NOT_IN_SAMPLE), "{}", s.name);
        }
        let numeric = matches!(s.kind, Kind::Int { .. } | Kind::Real { .. });
        assert!(s.unit.is_none() || numeric, "{} has a unit but is not a number", s.name);
    }
}

#[test]
fn requested_settings_exist() {
    let names = [
        "server_version",
        "server_version_num",
        "server_encoding",
        "client_encoding",
        "integer_datetimes",
        "standard_conforming_strings",
        "is_superuser",
        "session_authorization",
        "DateStyle",
        "IntervalStyle",
        "TimeZone",
        "application_name",
        "search_path",
        "default_transaction_isolation",
        "transaction_isolation",
        "default_transaction_read_only",
        "transaction_read_only",
        "in_hot_standby",
        "port",
        "listen_addresses",
        "max_connections",
        "superuser_reserved_connections",
        "data_directory",
        "config_file",
        "shared_buffers",
        "wal_buffers",
        "work_mem",
        "maintenance_work_mem",
        "autovacuum_work_mem",
        "effective_cache_size",
        "fsync",
        "synchronous_commit",
        "wal_level",
        "full_page_writes",
        "wal_writer_delay",
        "commit_delay",
        "checkpoint_timeout",
        "checkpoint_completion_target",
        "max_wal_size",
        "min_wal_size",
        "max_wal_senders",
        "max_replication_slots",
        "wal_keep_size",
        "hot_standby",
        "hot_standby_feedback",
        "max_standby_streaming_delay",
        "statement_timeout",
        "lock_timeout",
        "idle_in_transaction_session_timeout",
        "idle_session_timeout",
        "deadlock_timeout",
        "transaction_timeout",
        "max_prepared_transactions",
        "max_locks_per_transaction",
        "autovacuum",
        "autovacuum_naptime",
        "autovacuum_max_workers",
        "autovacuum_vacuum_threshold",
        "autovacuum_vacuum_scale_factor",
        "autovacuum_vacuum_insert_threshold",
        "autovacuum_vacuum_insert_scale_factor",
        "autovacuum_analyze_threshold",
        "autovacuum_analyze_scale_factor",
        "autovacuum_vacuum_cost_delay",
        "autovacuum_vacuum_cost_limit",
        "autovacuum_freeze_max_age",
        "vacuum_cost_delay",
        "vacuum_cost_page_hit",
        "vacuum_cost_page_miss",
        "vacuum_cost_page_dirty",
        "vacuum_cost_limit",
        "vacuum_freeze_min_age",
        "vacuum_freeze_table_age",
        "vacuum_failsafe_age",
        "enable_seqscan",
        "enable_indexscan",
        "enable_indexonlyscan",
        "enable_bitmapscan",
        "enable_tidscan",
        "enable_sort",
        "enable_incremental_sort",
        "enable_hashagg",
        "enable_material",
        "enable_memoize",
        "enable_nestloop",
        "enable_mergejoin",
        "enable_hashjoin",
        "enable_gathermerge",
        "enable_parallel_append",
        "enable_parallel_hash",
        "enable_partitionwise_join",
        "enable_partitionwise_aggregate",
        "seq_page_cost",
        "random_page_cost",
        "cpu_tuple_cost",
        "cpu_index_tuple_cost",
        "cpu_operator_cost",
        "default_statistics_target",
        "jit",
        "max_parallel_workers_per_gather",
        "max_parallel_workers",
        "max_worker_processes",
        "max_parallel_maintenance_workers",
        "client_min_messages",
        "log_min_messages",
        "log_statement",
        "log_min_duration_statement",
        "log_autovacuum_min_duration",
        "track_activities",
        "track_counts",
        "track_io_timing",
        "extra_float_digits",
        "lc_messages",
        "lc_monetary",
        "lc_numeric",
        "lc_time",
        "timezone_abbreviations",
        "default_text_search_config",
        "bytea_output",
        "xmloption",
        "row_security",
        "check_function_bodies",
        "default_tablespace",
        "temp_buffers",
        "huge_pages",
        "old_snapshot_threshold",
        "array_nulls",
        "escape_string_warning",
        "backslash_quote",
        "lo_compat_privileges",
        "quote_all_identifiers",
        "synchronize_seqscans",
        "cursor_tuple_fraction",
        "from_collapse_limit",
        "join_collapse_limit",
        "geqo",
        "plan_cache_mode",
    ];
    for name in names {
        assert!(lookup(name).is_some(), "{name} is missing");
    }
}

#[test]
fn sorted_is_case_insensitive_name_order() {
    let names: Vec<String> =
        sorted().iter().map(|id| id.setting().name.to_ascii_lowercase()).collect();
    assert!(names.windows(2).all(|w| w[0] < w[1]));
}
