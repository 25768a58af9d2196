//! SET, SHOW, RESET and their transactional behaviour, compared with what
//! PostgreSQL 15.20 prints (outputs captured with psql against
//! `../shared/tools/pg15.sh`).

use std::sync::Arc;

use super::*;
use crate::global::ServerIdentity;

/// A superuser session on a server with built-in values only.
fn session() -> SessionSettings {
    SessionSettings::new(Arc::new(GlobalConfig::new(identity())), "postgres", true)
}

/// The version sluice reports in these tests.
fn identity() -> ServerIdentity {
    ServerIdentity { server_version: "15.0".to_string(), server_version_num: 150000 }
}

/// SHOW's value for `name`.
fn show(s: &SessionSettings, name: &str) -> String {
    s.show(name).unwrap_or_else(|e| panic!("SHOW {name}: {e}")).1
}

#[test]
fn show_defaults_match_postgres() {
    // `SHOW x` on a fresh PostgreSQL 15 session (only values that do not
    // depend on the test server's postgresql.conf; wal_level is the boot value).
    let cases = [
        ("shared_buffers", "128MB"),
        ("work_mem", "4MB"),
        ("maintenance_work_mem", "64MB"),
        ("autovacuum_work_mem", "-1"),
        ("effective_cache_size", "4GB"),
        ("temp_buffers", "8MB"),
        ("wal_buffers", "4MB"),
        ("checkpoint_timeout", "5min"),
        ("checkpoint_completion_target", "0.9"),
        ("checkpoint_warning", "30s"),
        ("statement_timeout", "0"),
        ("lock_timeout", "0"),
        ("idle_in_transaction_session_timeout", "0"),
        ("idle_session_timeout", "0"),
        ("transaction_timeout", "0"),
        ("deadlock_timeout", "1s"),
        ("max_wal_size", "1GB"),
        ("min_wal_size", "80MB"),
        ("wal_keep_size", "0"),
        ("wal_writer_delay", "200ms"),
        ("wal_writer_flush_after", "1MB"),
        ("commit_delay", "0"),
        ("autovacuum_naptime", "1min"),
        ("autovacuum_vacuum_cost_delay", "2ms"),
        ("autovacuum_vacuum_cost_limit", "-1"),
        ("autovacuum_vacuum_scale_factor", "0.2"),
        ("autovacuum_vacuum_threshold", "50"),
        ("autovacuum_freeze_max_age", "200000000"),
        ("vacuum_cost_delay", "0"),
        ("vacuum_cost_limit", "200"),
        ("vacuum_freeze_min_age", "50000000"),
        ("vacuum_failsafe_age", "1600000000"),
        ("seq_page_cost", "1"),
        ("random_page_cost", "4"),
        ("cpu_tuple_cost", "0.01"),
        ("cpu_index_tuple_cost", "0.005"),
        ("cpu_operator_cost", "0.0025"),
        ("default_statistics_target", "100"),
        ("synchronous_commit", "on"),
        ("wal_level", "replica"),
        ("fsync", "on"),
        ("full_page_writes", "on"),
        ("enable_seqscan", "on"),
        ("enable_memoize", "on"),
        ("jit", "off"),
        ("max_parallel_workers_per_gather", "2"),
        ("max_worker_processes", "8"),
        ("client_min_messages", "notice"),
        ("log_min_messages", "warning"),
        ("log_statement", "none"),
        ("log_min_duration_statement", "-1"),
        ("log_autovacuum_min_duration", "10min"),
        ("track_io_timing", "off"),
        ("extra_float_digits", "1"),
        ("bytea_output", "hex"),
        ("xmloption", "content"),
        ("row_security", "on"),
        ("huge_pages", "try"),
        ("old_snapshot_threshold", "-1"),
        ("backslash_quote", "safe_encoding"),
        ("plan_cache_mode", "auto"),
        ("geqo", "on"),
        ("join_collapse_limit", "8"),
        ("cursor_tuple_fraction", "0.1"),
        ("IntervalStyle", "postgres"),
        ("DateStyle", "ISO, MDY"),
        ("default_transaction_isolation", "read committed"),
        ("transaction_isolation", "read committed"),
        ("search_path", "\"$user\", public"),
        ("integer_datetimes", "on"),
        ("standard_conforming_strings", "on"),
        ("server_encoding", "UTF8"),
        ("client_encoding", "UTF8"),
        ("max_connections", "100"),
        ("superuser_reserved_connections", "3"),
        ("hot_standby_feedback", "off"),
        ("max_standby_streaming_delay", "30s"),
        ("max_locks_per_transaction", "64"),
        ("wal_sender_timeout", "1min"),
        ("authentication_timeout", "1min"),
        ("log_rotation_age", "1d"),
        ("log_rotation_size", "10MB"),
        ("track_activity_query_size", "1kB"),
        ("unix_socket_permissions", "0777"),
        ("log_file_mode", "0600"),
        ("data_directory_mode", "0700"),
        ("archive_command", "(disabled)"),
        ("archive_timeout", "0"),
        ("bgwriter_delay", "200ms"),
        ("max_stack_depth", "2MB"),
        ("wal_segment_size", "16MB"),
        ("segment_size", "1GB"),
        ("block_size", "8192"),
        ("hash_mem_multiplier", "2"),
        ("jit_above_cost", "100000"),
        ("parallel_setup_cost", "1000"),
        ("geqo_selection_bias", "2"),
        ("max_files_per_process", "1000"),
        ("temp_file_limit", "-1"),
        ("vacuum_cost_page_miss", "2"),
        ("is_superuser", "on"),
        ("in_hot_standby", "off"),
        ("lc_monetary", "C"),
        ("lc_messages", "C"),
        ("default_tablespace", ""),
        ("timezone_abbreviations", "Default"),
        ("max_function_args", "100"),
        ("wal_compression", "off"),
        ("recovery_prefetch", "try"),
        ("effective_io_concurrency", "1"),
        ("gin_pending_list_limit", "4MB"),
        ("server_version", "15.0"),
        ("server_version_num", "150000"),
        ("session_authorization", "postgres"),
        ("role", "none"),
        ("seed", "unavailable"),
    ];
    let s = session();
    for (name, expected) in cases {
        assert_eq!(show(&s, name), expected, "SHOW {name}");
    }
}

#[test]
fn set_then_show_matches_postgres() {
    // Each row: SET name = 'value' on a fresh session, then SHOW name.
    let cases = [
        ("enable_seqscan", "TRUE", "on"),
        ("enable_seqscan", "y", "on"),
        ("enable_seqscan", "ye", "on"),
        ("enable_seqscan", "of", "off"),
        ("enable_seqscan", "OFF", "off"),
        ("enable_seqscan", "0", "off"),
        ("enable_seqscan", "no", "off"),
        ("work_mem", "0x100", "256kB"),
        ("work_mem", "1.5MB", "1536kB"),
        ("work_mem", "  64MB", "64MB"),
        ("work_mem", "64MB  ", "64MB"),
        ("work_mem", "64 MB", "64MB"),
        ("work_mem", ".5MB", "512kB"),
        ("work_mem", "1TB", "1TB"),
        ("statement_timeout", "1.5s", "1500ms"),
        ("statement_timeout", "100us", "0"),
        ("statement_timeout", "1000us", "1ms"),
        ("statement_timeout", "0.4", "0"),
        ("statement_timeout", "0.6", "1ms"),
        ("vacuum_cost_delay", "1.5", "1500us"),
        ("vacuum_cost_delay", "500us", "500us"),
        ("vacuum_cost_delay", "100", "100ms"),
        ("lock_timeout", "1d", "1d"),
        ("lock_timeout", "25h", "25h"),
        ("lock_timeout", "90s", "90s"),
        ("temp_buffers", "1MB", "1MB"),
        ("cpu_tuple_cost", "1e-7", "1e-07"),
        ("cpu_tuple_cost", "1234567", "1.23457e+06"),
        ("cpu_tuple_cost", "0.000123456789", "0.000123457"),
        ("cpu_tuple_cost", "0x10", "16"),
        ("TimeZone", "utc", "UTC"),
        ("TimeZone", "America/new_york", "America/New_York"),
        ("TimeZone", "Europe/paris", "Europe/Paris"),
        ("TimeZone", "+3", "<+03>-03"),
        ("TimeZone", "-8", "<-08>+08"),
        ("TimeZone", "EST5EDT", "EST5EDT"),
        ("TimeZone", "est5edt", "EST5EDT"),
        ("TimeZone", "GMT+2", "GMT+2"),
        ("DateStyle", "german", "German, DMY"),
        ("DateStyle", "sql, dmy", "SQL, DMY"),
        ("DateStyle", "ymd", "ISO, YMD"),
        ("DateStyle", "\"iso\"", "ISO, MDY"),
        ("DateStyle", "default, ymd", "ISO, YMD"),
        ("application_name", "héllo", "h??llo"),
        ("search_path", "\"$user\", public, \"X y\"", "\"$user\", public, \"X y\""),
        ("default_transaction_isolation", "REPEATABLE READ", "repeatable read"),
        ("wal_compression", "on", "pglz"),
        ("client_min_messages", "info", "info"),
        ("client_min_messages", "debug", "debug2"),
        ("client_encoding", "utf-8", "UTF8"),
        ("client_encoding", "unicode", "UTF8"),
        ("sort_mem", "8MB", "8MB"),
    ];
    for (name, value, expected) in cases {
        let mut s = session();
        s.set(name, value).unwrap_or_else(|e| panic!("SET {name} = '{value}': {e}"));
        assert_eq!(show(&s, name), expected, "SET {name} = '{value}'");
    }
}

#[test]
fn datestyle_keeps_unnamed_half() {
    let mut s = session();
    for (value, expected) in
        [("sql, dmy", "SQL, DMY"), ("ymd", "SQL, YMD"), ("postgres", "Postgres, YMD")]
    {
        s.set("datestyle", value).unwrap();
        assert_eq!(show(&s, "DateStyle"), expected);
    }
}

/// One expected error: name, value, SQLSTATE, message, DETAIL, HINT.
type ErrorCase = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
    Option<&'static str>,
);

/// The text of an error: SQLSTATE, message, DETAIL and HINT.
fn describe(e: &GucError) -> (String, String, Option<String>, Option<String>) {
    (e.sqlstate().to_string(), e.to_string(), e.detail(), e.hint())
}

#[test]
fn set_errors_match_postgres() {
    const MEMORY: &str =
        "Valid units for this parameter are \"B\", \"kB\", \"MB\", \"GB\", and \"TB\".";
    const TIME: &str =
        "Valid units for this parameter are \"us\", \"ms\", \"s\", \"min\", \"h\", and \"d\".";
    const RANGE: &str = "Value exceeds integer range.";
    let cases: &[ErrorCase] = &[
        ("foo", "1", "42704", "unrecognized configuration parameter \"foo\"", None, None),
        (
            "foo..bar",
            "1",
            "42602",
            "invalid configuration parameter name \"foo..bar\"",
            Some("Custom parameter names must be two or more simple identifiers separated by dots."),
            None,
        ),
        ("work_mem", "1kB", "22023", "1 kB is outside the valid range for parameter \"work_mem\" (64 .. 2147483647)", None, None),
        ("work_mem", "010", "22023", "8 kB is outside the valid range for parameter \"work_mem\" (64 .. 2147483647)", None, None),
        ("work_mem", "abc", "22023", "invalid value for parameter \"work_mem\": \"abc\"", None, None),
        ("work_mem", "inf", "22023", "invalid value for parameter \"work_mem\": \"inf\"", None, None),
        ("work_mem", "10 XB", "22023", "invalid value for parameter \"work_mem\": \"10 XB\"", None, Some(MEMORY)),
        ("work_mem", "64mb", "22023", "invalid value for parameter \"work_mem\": \"64mb\"", None, Some(MEMORY)),
        ("work_mem", "3000000000", "22023", "invalid value for parameter \"work_mem\": \"3000000000\"", None, Some(RANGE)),
        ("work_mem", "1e20", "22023", "invalid value for parameter \"work_mem\": \"1e20\"", None, Some(RANGE)),
        ("statement_timeout", "2147483648", "22023", "invalid value for parameter \"statement_timeout\": \"2147483648\"", None, Some(RANGE)),
        ("statement_timeout", "5 fortnights", "22023", "invalid value for parameter \"statement_timeout\": \"5 fortnights\"", None, Some(TIME)),
        ("statement_timeout", "-5", "22023", "-5 ms is outside the valid range for parameter \"statement_timeout\" (0 .. 2147483647)", None, None),
        ("statement_timeout", "1e400", "22023", "invalid value for parameter \"statement_timeout\": \"1e400\"", None, None),
        ("vacuum_cost_delay", "101", "22023", "101 ms is outside the valid range for parameter \"vacuum_cost_delay\" (0 .. 100)", None, None),
        ("temp_buffers", "100kB", "22023", "12 8kB is outside the valid range for parameter \"temp_buffers\" (100 .. 1073741823)", None, None),
        ("extra_float_digits", "4", "22023", "4 is outside the valid range for parameter \"extra_float_digits\" (-15 .. 3)", None, None),
        ("seq_page_cost", "x", "22023", "invalid value for parameter \"seq_page_cost\": \"x\"", None, None),
        ("seq_page_cost", "nan", "22023", "invalid value for parameter \"seq_page_cost\": \"nan\"", None, None),
        ("seq_page_cost", "1e400", "22023", "invalid value for parameter \"seq_page_cost\": \"1e400\"", None, None),
        ("seq_page_cost", "inf", "22023", "Infinity is outside the valid range for parameter \"seq_page_cost\" (0 .. 1.79769e+308)", None, None),
        ("seq_page_cost", "-1", "22023", "-1 is outside the valid range for parameter \"seq_page_cost\" (0 .. 1.79769e+308)", None, None),
        ("enable_seqscan", "maybe", "22023", "parameter \"enable_seqscan\" requires a Boolean value", None, None),
        ("enable_seqscan", "o", "22023", "parameter \"enable_seqscan\" requires a Boolean value", None, None),
        ("enable_seqscan", "00", "22023", "parameter \"enable_seqscan\" requires a Boolean value", None, None),
        (
            "synchronous_commit",
            "bogus",
            "22023",
            "invalid value for parameter \"synchronous_commit\": \"bogus\"",
            None,
            Some("Available values: local, remote_write, remote_apply, on, off."),
        ),
        ("shared_buffers", "1GB", "55P02", "parameter \"shared_buffers\" cannot be changed without restarting the server", None, None),
        ("wal_level", "logical", "55P02", "parameter \"wal_level\" cannot be changed without restarting the server", None, None),
        ("fsync", "off", "55P02", "parameter \"fsync\" cannot be changed now", None, None),
        ("checkpoint_completion_target", "2", "55P02", "parameter \"checkpoint_completion_target\" cannot be changed now", None, None),
        ("server_version", "1", "55P02", "parameter \"server_version\" cannot be changed", None, None),
        ("log_connections", "on", "55P02", "parameter \"log_connections\" cannot be set after connection start", None, None),
        (
            "datestyle",
            "foo",
            "22023",
            "invalid value for parameter \"DateStyle\": \"foo\"",
            Some("Unrecognized key word: \"foo\"."),
            None,
        ),
        (
            "datestyle",
            "iso, postgres",
            "22023",
            "invalid value for parameter \"DateStyle\": \"iso, postgres\"",
            Some("Conflicting \"datestyle\" specifications."),
            None,
        ),
        ("datestyle", "sql dmy", "22023", "invalid value for parameter \"DateStyle\": \"sql dmy\"", Some("List syntax is invalid."), None),
        ("datestyle", "iso,", "22023", "invalid value for parameter \"DateStyle\": \"iso,\"", Some("List syntax is invalid."), None),
        ("timezone", "Mars/Base", "22023", "invalid value for parameter \"TimeZone\": \"Mars/Base\"", None, None),
        ("timezone", "z", "22023", "invalid value for parameter \"TimeZone\": \"z\"", None, None),
        ("client_encoding", "bogus", "22023", "invalid value for parameter \"client_encoding\": \"bogus\"", None, None),
        ("timezone_abbreviations", "foo", "22023", "invalid value for parameter \"timezone_abbreviations\": \"foo\"", None, None),
        ("timezone_abbreviations", "australia", "22023", "invalid value for parameter \"timezone_abbreviations\": \"australia\"", None, None),
        // Deliberate difference: sluice converts no encodings.
        (
            "client_encoding",
            "latin1",
            "0A000",
            "invalid value for parameter \"client_encoding\": \"latin1\"",
            Some("Conversion between LATIN1 and UTF8 is not supported."),
            None,
        ),
        ("default_with_oids", "on", "0A000", "tables declared WITH OIDS are not supported", None, None),
    ];
    for &(name, value, code, message, detail, hint) in cases {
        let mut s = session();
        let e = s.set(name, value).expect_err(&format!("SET {name} = '{value}' should fail"));
        let expected = (
            code.to_string(),
            message.to_string(),
            detail.map(String::from),
            hint.map(String::from),
        );
        assert_eq!(describe(&e), expected, "SET {name} = '{value}'");
    }
}

#[test]
fn ordinary_users_are_refused_superuser_settings() {
    let mut s = SessionSettings::new(Arc::new(GlobalConfig::new(identity())), "alice", false);
    let e = s.set("deadlock_timeout", "2s").unwrap_err();
    assert_eq!(describe(&e).0, "42501");
    assert_eq!(e.to_string(), "permission denied to set parameter \"deadlock_timeout\"");
    let e = s.show("config_file").unwrap_err();
    assert_eq!(
        e.to_string(),
        "must be superuser or have privileges of pg_read_all_settings to examine \"config_file\""
    );
    assert!(s.pg_settings().iter().all(|row| row.name != "config_file"));
    assert_eq!(show(&s, "is_superuser"), "off");
    s.set("work_mem", "8MB").unwrap();
}

#[test]
fn custom_settings_are_placeholders() {
    let mut s = session();
    s.set("foo.bar", "x").unwrap();
    assert_eq!(s.show("FOO.BAR").unwrap(), ("foo.bar".to_string(), "x".to_string()));
    assert!(s.pg_settings().iter().all(|row| row.name != "foo.bar"));
    s.reset("foo.bar").unwrap();
    assert_eq!(show(&s, "foo.bar"), "");
    // Created inside an aborted transaction: the placeholder stays, empty.
    s.start_transaction();
    s.set("foo.baz", "y").unwrap();
    s.end_transaction(false);
    assert_eq!(show(&s, "foo.baz"), "");
    assert_eq!(s.current_setting("nosuch.thing", true).unwrap(), None);
    assert_eq!(
        s.show("foo.qux").unwrap_err().to_string(),
        "unrecognized configuration parameter \"foo.qux\""
    );
}

/// Runs `steps` against one session: "begin", "commit", "rollback",
/// "savepoint", "release", "rollback to", "set X", "set local X", "reset",
/// or "show Y" which checks SHOW work_mem = Y.
fn script(steps: &[&str]) {
    let mut s = session();
    let mut savepoints = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        match *step {
            "begin" => s.start_transaction(),
            "commit" => s.end_transaction(true),
            "rollback" => s.end_transaction(false),
            "savepoint" => savepoints.push(s.push_nest_level()),
            "release" => s.pop_nest_level(savepoints.pop().expect("savepoint"), true),
            "rollback to" => {
                // ROLLBACK TO ends the savepoint's level and starts it again.
                s.pop_nest_level(savepoints.pop().expect("savepoint"), false);
                savepoints.push(s.push_nest_level());
            }
            "reset" => s.reset("work_mem").unwrap(),
            "reset all" => s.reset_all(),
            _ if step.starts_with("set local ") => s.set_local("work_mem", &step[10..]).unwrap(),
            _ if step.starts_with("set ") => s.set("work_mem", &step[4..]).unwrap(),
            _ if step.starts_with("show ") => {
                assert_eq!(show(&s, "work_mem"), &step[5..], "step {i}: {steps:?}")
            }
            other => panic!("unknown step {other}"),
        }
    }
}

#[test]
fn set_and_set_local_stack_like_postgres() {
    // Each script is the psql session from the module doc's reference run.
    script(&["set 8MB", "begin", "set 16MB", "show 16MB", "rollback", "show 8MB"]);
    script(&["set 8MB", "begin", "set local 32MB", "show 32MB", "commit", "show 8MB"]);
    script(&["set 8MB", "begin", "set 16MB", "set local 32MB", "show 32MB", "commit", "show 16MB"]);
    script(&[
        "set 16MB",
        "begin",
        "set 1MB",
        "savepoint",
        "set 2MB",
        "rollback to",
        "show 1MB",
        "set local 3MB",
        "release",
        "show 3MB",
        "commit",
        "show 1MB",
    ]);
    script(&["begin", "savepoint", "set 2MB", "release", "commit", "show 2MB"]);
    script(&["begin", "savepoint", "set local 2MB", "release", "show 2MB", "commit", "show 4MB"]);
    script(&[
        "begin",
        "set 1MB",
        "savepoint",
        "set local 2MB",
        "release",
        "show 2MB",
        "commit",
        "show 1MB",
    ]);
    script(&["begin", "set local 1MB", "savepoint", "set 2MB", "release", "commit", "show 2MB"]);
    script(&[
        "begin",
        "savepoint",
        "set 2MB",
        "savepoint",
        "set 3MB",
        "release",
        "release",
        "commit",
        "show 3MB",
    ]);
    script(&["begin", "set 2MB", "commit", "begin", "reset", "show 4MB", "rollback", "show 2MB"]);
    script(&["set 2MB", "begin", "reset all", "show 4MB", "commit", "show 4MB"]);
    script(&["set 2MB", "begin", "reset all", "rollback", "show 2MB"]);
    // Outside a transaction nothing is stacked: the change is permanent.
    script(&["set local 2MB", "show 2MB"]);
}

#[test]
fn set_config_returns_the_new_value() {
    let mut s = session();
    s.start_transaction();
    assert_eq!(s.set_config("work_mem", Some("5MB"), true).unwrap(), "5MB");
    s.end_transaction(true);
    assert_eq!(show(&s, "work_mem"), "4MB");
    s.start_transaction();
    assert_eq!(s.set_config("work_mem", Some("5MB"), false).unwrap(), "5MB");
    assert_eq!(s.set_config("work_mem", None, false).unwrap(), "4MB");
    s.end_transaction(true);
    assert_eq!(s.current_setting("work_mem", false).unwrap().as_deref(), Some("4MB"));
}

#[test]
fn function_set_clauses_are_undone_on_exit() {
    let mut s = session();
    s.start_transaction();
    s.set("work_mem", "1MB").unwrap();
    let call = s.push_nest_level();
    s.set_option("work_mem", Some("9MB"), Source::Session, Action::Save).unwrap();
    assert_eq!(show(&s, "work_mem"), "9MB");
    s.pop_nest_level(call, true);
    assert_eq!(show(&s, "work_mem"), "1MB");
    s.end_transaction(true);
    assert_eq!(show(&s, "work_mem"), "1MB");
}

#[test]
fn transaction_characteristics_start_from_defaults() {
    let mut s = session();
    s.set("default_transaction_isolation", "serializable").unwrap();
    s.start_transaction();
    assert_eq!(show(&s, "transaction_isolation"), "serializable");
    s.set("transaction_isolation", "read committed").unwrap();
    s.end_transaction(true);
    s.start_transaction();
    assert_eq!(show(&s, "transaction_isolation"), "serializable");
    s.end_transaction(true);
    s.set_internal("in_hot_standby", "on");
    s.start_transaction();
    assert_eq!(show(&s, "transaction_read_only"), "on");
    s.end_transaction(true);
}

#[test]
fn startup_options_beat_database_settings_and_survive_reset() {
    let mut s = session();
    assert!(s.set_option("work_mem", Some("8MB"), Source::Client, Action::Set).unwrap());
    // A database default arriving later does not override the client's value.
    assert!(!s.set_option("work_mem", Some("16MB"), Source::Database, Action::Set).unwrap());
    s.set("work_mem", "32MB").unwrap();
    s.reset("work_mem").unwrap();
    assert_eq!(show(&s, "work_mem"), "8MB");
    // Backend-context settings may be set from the startup packet only.
    s.set_option("log_connections", Some("on"), Source::Client, Action::Set).unwrap();
    let e = s.set_option("log_connections", Some("off"), Source::Session, Action::Set).unwrap_err();
    assert_eq!(e.sqlstate(), "55P02");
    // The transaction characteristics are fixed below the session level.
    assert!(!s
        .set_option("transaction_isolation", Some("serializable"), Source::Client, Action::Set)
        .unwrap());
}

#[test]
fn reports_only_changed_values() {
    let mut s = session();
    let first: Vec<String> = s.take_reports().into_iter().map(|(name, _)| name).collect();
    assert_eq!(
        first,
        [
            "application_name",
            "client_encoding",
            "DateStyle",
            "default_transaction_read_only",
            "in_hot_standby",
            "integer_datetimes",
            "IntervalStyle",
            "is_superuser",
            "server_encoding",
            "server_version",
            "session_authorization",
            "standard_conforming_strings",
            "TimeZone",
        ]
    );
    assert!(s.take_reports().is_empty());
    s.start_transaction();
    s.set("application_name", "app").unwrap();
    s.set("datestyle", "iso, mdy").unwrap();
    s.end_transaction(true);
    assert_eq!(s.take_reports(), [("application_name".to_string(), "app".to_string())]);
    // Changed and changed back within a transaction: nothing to report.
    s.start_transaction();
    s.set("TimeZone", "Europe/Paris").unwrap();
    s.end_transaction(false);
    assert!(s.take_reports().is_empty());
}

#[test]
fn show_all_lists_visible_settings_in_order() {
    let s = session();
    let rows = s.show_all();
    let names: Vec<&str> = rows.iter().map(|r| r.name).collect();
    let mut sorted = names.clone();
    sorted.sort_by_key(|n| n.to_ascii_lowercase());
    assert_eq!(names, sorted);
    assert_eq!(rows.len(), 356, "PostgreSQL 15's 355 listed settings and transaction_timeout");
    assert!(!names.contains(&"is_superuser"));
    let row = rows.iter().find(|r| r.name == "archive_command").unwrap();
    assert_eq!(row.setting, "(disabled)");
    assert_eq!(
        row.description,
        "Sets the shell command that will be called to archive a WAL file."
    );
}

#[test]
fn explain_lists_changed_planner_settings() {
    let mut s = session();
    assert!(s.explain_settings().is_empty());
    s.set("enable_seqscan", "off").unwrap();
    s.set("work_mem", "64MB").unwrap();
    s.set("application_name", "x").unwrap();
    assert_eq!(
        s.explain_settings(),
        [("enable_seqscan", "off".to_string()), ("work_mem", "64MB".to_string())]
    );
}

/// A pg_settings row as text, the way psql prints it (NULL as None).
fn row_text(row: &SettingRow) -> Vec<Option<String>> {
    let s = |v: &str| Some(v.to_string());
    vec![
        s(row.name),
        s(&row.setting),
        row.unit.map(String::from),
        s(row.category),
        s(row.short_desc),
        row.extra_desc.map(String::from),
        s(row.context),
        s(row.vartype),
        s(row.source),
        row.min_val.clone(),
        row.max_val.clone(),
        row.enumvals.as_ref().map(|v| format!("{{{}}}", v.join(","))),
        row.boot_val.clone(),
        row.reset_val.clone(),
        row.sourcefile.clone(),
        row.sourceline.map(|l| l.to_string()),
        s(if row.pending_restart { "t" } else { "f" }),
    ]
}

#[test]
fn pg_settings_rows_match_postgres() {
    // `select * from pg_settings where name = ...` on PostgreSQL 15 (for
    // shared_buffers, as if it came from no file).
    let expected: &[[Option<&str>; 17]] = &[
        [
            Some("shared_buffers"), Some("16384"), Some("8kB"), Some("Resource Usage / Memory"),
            Some("Sets the number of shared memory buffers used by the server."), None, Some("postmaster"),
            Some("integer"), Some("default"), Some("16"), Some("1073741823"), None, Some("16384"),
            Some("16384"), None, None, Some("f"),
        ],
        [
            Some("work_mem"), Some("4096"), Some("kB"), Some("Resource Usage / Memory"),
            Some("Sets the maximum memory to be used for query workspaces."),
            Some("This much memory can be used by each internal sort operation and hash table before switching to temporary disk files."),
            Some("user"), Some("integer"), Some("default"), Some("64"), Some("2147483647"), None,
            Some("4096"), Some("4096"), None, None, Some("f"),
        ],
        [
            Some("synchronous_commit"), Some("on"), None, Some("Write-Ahead Log / Settings"),
            Some("Sets the current transaction's synchronization level."), None, Some("user"), Some("enum"),
            Some("default"), None, None, Some("{local,remote_write,remote_apply,on,off}"), Some("on"),
            Some("on"), None, None, Some("f"),
        ],
        [
            Some("enable_seqscan"), Some("on"), None, Some("Query Tuning / Planner Method Configuration"),
            Some("Enables the planner's use of sequential-scan plans."), None, Some("user"), Some("bool"),
            Some("default"), None, None, None, Some("on"), Some("on"), None, None, Some("f"),
        ],
        [
            Some("client_encoding"), Some("UTF8"), None, Some("Client Connection Defaults / Locale and Formatting"),
            Some("Sets the client's character set encoding."), None, Some("user"), Some("string"),
            Some("default"), None, None, None, Some("SQL_ASCII"), Some("UTF8"), None, None, Some("f"),
        ],
        [
            Some("timezone_abbreviations"), Some("Default"), None,
            Some("Client Connection Defaults / Locale and Formatting"),
            Some("Selects a file of time zone abbreviations."), None, Some("user"), Some("string"),
            Some("default"), None, None, None, None, Some("Default"), None, None, Some("f"),
        ],
        [
            Some("server_version_num"), Some("150000"), None, Some("Preset Options"),
            Some("Shows the server version as an integer."), None, Some("internal"), Some("integer"),
            Some("default"), Some("150000"), Some("150000"), None, Some("150000"), Some("150000"), None, None,
            Some("f"),
        ],
        [
            Some("unix_socket_permissions"), Some("0777"), None,
            Some("Connections and Authentication / Connection Settings"),
            Some("Sets the access permissions of the Unix-domain socket."),
            Some("Unix-domain sockets use the usual Unix file system permission set. The parameter value is expected to be a numeric mode specification in the form accepted by the chmod and umask system calls. (To use the customary octal format the number must start with a 0 (zero).)"),
            Some("postmaster"), Some("integer"), Some("default"), Some("0"), Some("511"), None, Some("511"),
            Some("511"), None, None, Some("f"),
        ],
    ];
    let s = session();
    let rows = s.pg_settings();
    for want in expected {
        let name = want[0].unwrap();
        let row =
            rows.iter().find(|r| r.name == name).unwrap_or_else(|| panic!("no row for {name}"));
        let want: Vec<Option<String>> = want.iter().map(|c| c.map(String::from)).collect();
        assert_eq!(row_text(row), want, "pg_settings row for {name}");
    }
}

#[test]
fn session_sees_reload_but_keeps_its_own_values() {
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("postgresql.conf");
    std::fs::write(&conf, "work_mem = '8MB'\nstatement_timeout = '1s'\n").unwrap();
    let options = crate::ConfigOptions {
        identity: identity(),
        data_directory: dir.path().to_path_buf(),
        config_file: None,
        defaults: vec![],
        command_line: vec![],
    };
    let global = Arc::new(GlobalConfig::load(options).unwrap());
    let mut s = SessionSettings::new(Arc::clone(&global), "postgres", true);
    s.set("statement_timeout", "5s").unwrap();
    s.set_option("log_connections", Some("on"), Source::Client, Action::Set).unwrap();
    std::fs::write(&conf, "work_mem = '16MB'\nstatement_timeout = '2s'\nlog_connections = off\n")
        .unwrap();
    assert!(global.reload().error.is_none());
    assert!(s.sync());
    assert_eq!(show(&s, "work_mem"), "16MB");
    assert_eq!(show(&s, "statement_timeout"), "5s");
    s.reset("statement_timeout").unwrap();
    assert_eq!(show(&s, "statement_timeout"), "2s", "RESET goes back to the reloaded file value");
    assert_eq!(
        show(&s, "log_connections"),
        "on",
        "connection-start settings do not follow reloads"
    );
    let row = s.pg_settings().into_iter().find(|r| r.name == "work_mem").unwrap();
    assert_eq!(row.source, "configuration file");
    assert_eq!(row.sourcefile.as_deref(), Some(conf.to_str().unwrap()));
    assert_eq!(row.sourceline, Some(1));
    assert!(!s.sync(), "nothing new after a sync");
}

#[test]
fn changes_move_with_values_but_not_with_plain_transactions() {
    let mut s = session();
    let start = s.changes();
    s.start_transaction();
    s.end_transaction(true);
    assert_eq!(s.changes(), start, "a transaction that set nothing");
    s.set("enable_seqscan", "off").unwrap();
    let after_set = s.changes();
    assert!(after_set > start);
    s.start_transaction();
    s.set_local("work_mem", "8MB").unwrap();
    s.end_transaction(true);
    assert!(s.changes() > after_set, "SET LOCAL reverted at commit");
}
