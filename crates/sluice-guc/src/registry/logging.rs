//! What, when and where to log, and process titles (`Reporting and Logging`).

use super::enums::{LOG_ERROR_VERBOSITY, LOG_STATEMENT, SERVER_MESSAGE_LEVEL, SYSLOG_FACILITY};
use super::flags::{IS_NAME, LIST_INPUT, NOT_IN_SAMPLE, REPORT, SUPERUSER_ONLY};
use super::Category::{LoggingWhat, LoggingWhen, LoggingWhere, ProcessTitle};
use super::Context::{Postmaster, Sighup, SuBackend, Superuser, User};
use super::{boolean, enumerated, int, real, string, Setting};
use crate::hooks;
use crate::units::Unit::{Bytes, Kb, Min, Ms};

/// The settings of this group, by name.
pub(super) static SETTINGS: &[Setting] = &[
    string("application_name", User, LoggingWhat, Some(""))
        .flags(NOT_IN_SAMPLE | REPORT | IS_NAME)
        .check(hooks::clean_ascii)
        .describe("Sets the application name to be reported in statistics and logs."),
    string("cluster_name", Postmaster, ProcessTitle, Some(""))
        .flags(IS_NAME)
        .check(hooks::clean_ascii)
        .describe("Sets the name of the cluster, which is included in the process title."),
    boolean("debug_pretty_print", User, LoggingWhat, true)
        .describe("Indents parse and plan tree displays."),
    boolean("debug_print_parse", User, LoggingWhat, false)
        .describe("Logs each query's parse tree."),
    boolean("debug_print_plan", User, LoggingWhat, false)
        .describe("Logs each query's execution plan."),
    boolean("debug_print_rewritten", User, LoggingWhat, false)
        .describe("Logs each query's rewritten parse tree."),
    string("event_source", Postmaster, LoggingWhere, Some("PostgreSQL"))
        .describe("Sets the application name used to identify PostgreSQL messages in the event log."),
    int("log_autovacuum_min_duration", Sighup, LoggingWhat, 600000, -1, i32::MAX)
        .unit(Ms)
        .describe("Sets the minimum execution time above which autovacuum actions will be logged.")
        .extra("Zero prints all actions. -1 turns autovacuum logging off."),
    boolean("log_checkpoints", Sighup, LoggingWhat, true)
        .describe("Logs each checkpoint."),
    boolean("log_connections", SuBackend, LoggingWhat, false)
        .describe("Logs each successful connection."),
    string("log_destination", Sighup, LoggingWhere, Some("stderr"))
        .flags(LIST_INPUT)
        .check(hooks::log_destination)
        .describe("Sets the destination for server log output.")
        .extra("Valid values are combinations of \"stderr\", \"syslog\", \"csvlog\", \"jsonlog\", and \"eventlog\", depending on the platform."),
    string("log_directory", Sighup, LoggingWhere, Some("log"))
        .flags(SUPERUSER_ONLY)
        .describe("Sets the destination directory for log files.")
        .extra("Can be specified as relative to the data directory or as absolute path."),
    boolean("log_disconnections", SuBackend, LoggingWhat, false)
        .describe("Logs end of a session, including duration."),
    boolean("log_duration", Superuser, LoggingWhat, false)
        .describe("Logs the duration of each completed SQL statement."),
    enumerated("log_error_verbosity", Superuser, LoggingWhat, "default", LOG_ERROR_VERBOSITY)
        .describe("Sets the verbosity of logged messages."),
    int("log_file_mode", Sighup, LoggingWhere, 384, 0, 511)
        .show(hooks::show_octal)
        .describe("Sets the file permissions for log files.")
        .extra("The parameter value is expected to be a numeric mode specification in the form accepted by the chmod and umask system calls. (To use the customary octal format the number must start with a 0 (zero).)"),
    string("log_filename", Sighup, LoggingWhere, Some("postgresql-%Y-%m-%d_%H%M%S.log"))
        .flags(SUPERUSER_ONLY)
        .describe("Sets the file name pattern for log files."),
    boolean("log_hostname", Sighup, LoggingWhat, false)
        .describe("Logs the host name in the connection logs.")
        .extra("By default, connection logs only show the IP address of the connecting host. If you want them to show the host name you can turn this on, but depending on your host name resolution setup it might impose a non-negligible performance penalty."),
    string("log_line_prefix", Sighup, LoggingWhat, Some("%m [%p] "))
        .describe("Controls information prefixed to each log line.")
        .extra("If blank, no prefix is used."),
    boolean("log_lock_waits", Superuser, LoggingWhat, false)
        .describe("Logs long lock waits."),
    int("log_min_duration_sample", Superuser, LoggingWhen, -1, -1, i32::MAX)
        .unit(Ms)
        .describe("Sets the minimum execution time above which a sample of statements will be logged. Sampling is determined by log_statement_sample_rate.")
        .extra("Zero logs a sample of all queries. -1 turns this feature off."),
    int("log_min_duration_statement", Superuser, LoggingWhen, -1, -1, i32::MAX)
        .unit(Ms)
        .describe("Sets the minimum execution time above which all statements will be logged.")
        .extra("Zero prints all queries. -1 turns this feature off."),
    enumerated("log_min_error_statement", Superuser, LoggingWhen, "error", SERVER_MESSAGE_LEVEL)
        .describe("Causes all statements generating error at or above this level to be logged.")
        .extra("Each level includes all the levels that follow it. The later the level, the fewer messages are sent."),
    enumerated("log_min_messages", Superuser, LoggingWhen, "warning", SERVER_MESSAGE_LEVEL)
        .describe("Sets the message levels that are logged.")
        .extra("Each level includes all the levels that follow it. The later the level, the fewer messages are sent."),
    int("log_parameter_max_length", Superuser, LoggingWhat, -1, -1, 1073741823)
        .unit(Bytes)
        .describe("Sets the maximum length in bytes of data logged for bind parameter values when logging statements.")
        .extra("-1 to print values in full."),
    int("log_parameter_max_length_on_error", User, LoggingWhat, 0, -1, 1073741823)
        .unit(Bytes)
        .describe("Sets the maximum length in bytes of data logged for bind parameter values when logging statements, on error.")
        .extra("-1 to print values in full."),
    boolean("log_recovery_conflict_waits", Sighup, LoggingWhat, false)
        .describe("Logs standby recovery conflict waits."),
    boolean("log_replication_commands", Superuser, LoggingWhat, false)
        .describe("Logs each replication command."),
    int("log_rotation_age", Sighup, LoggingWhere, 1440, 0, 35791394)
        .unit(Min)
        .describe("Sets the amount of time to wait before forcing log file rotation."),
    int("log_rotation_size", Sighup, LoggingWhere, 10240, 0, 2097151)
        .unit(Kb)
        .describe("Sets the maximum size a log file can reach before being rotated."),
    int("log_startup_progress_interval", Sighup, LoggingWhen, 10000, 0, i32::MAX)
        .unit(Ms)
        .describe("Time between progress updates for long-running startup operations.")
        .extra("0 turns this feature off."),
    enumerated("log_statement", Superuser, LoggingWhat, "none", LOG_STATEMENT)
        .describe("Sets the type of statements logged."),
    real("log_statement_sample_rate", Superuser, LoggingWhen, 1.0, 0.0, 1.0)
        .describe("Fraction of statements exceeding log_min_duration_sample to be logged.")
        .extra("Use a value between 0.0 (never log) and 1.0 (always log)."),
    int("log_temp_files", Superuser, LoggingWhat, -1, -1, i32::MAX)
        .unit(Kb)
        .describe("Log the use of temporary files larger than this number of kilobytes.")
        .extra("Zero logs all files. The default is -1 (turning this feature off)."),
    string("log_timezone", Sighup, LoggingWhat, Some("GMT"))
        .check(hooks::timezone)
        .describe("Sets the time zone to use in log messages."),
    real("log_transaction_sample_rate", Superuser, LoggingWhen, 0.0, 0.0, 1.0)
        .describe("Sets the fraction of transactions from which to log all statements.")
        .extra("Use a value between 0.0 (never log) and 1.0 (log all statements for all transactions)."),
    boolean("log_truncate_on_rotation", Sighup, LoggingWhere, false)
        .describe("Truncate existing log files of same name during log rotation."),
    boolean("logging_collector", Postmaster, LoggingWhere, false)
        .describe("Start a subprocess to capture stderr, csvlog and/or jsonlog into log files."),
    enumerated("syslog_facility", Sighup, LoggingWhere, "local0", SYSLOG_FACILITY)
        .describe("Sets the syslog \"facility\" to be used when syslog enabled."),
    string("syslog_ident", Sighup, LoggingWhere, Some("postgres"))
        .describe("Sets the program name used to identify PostgreSQL messages in syslog."),
    boolean("syslog_sequence_numbers", Sighup, LoggingWhere, true)
        .describe("Add sequence number to syslog messages to avoid duplicate suppression."),
    boolean("syslog_split_messages", Sighup, LoggingWhere, true)
        .describe("Split messages sent to syslog by lines and to fit into 1024 bytes."),
    boolean("update_process_title", Superuser, ProcessTitle, true)
        .describe("Updates the process title to show the active SQL command.")
        .extra("Enables updating of the process title every time a new SQL command is received by the server."),
];
