//! Session defaults: statement behaviour, locale and formatting, preloading
//! (`Client Connection Defaults`). Also `transaction_timeout`, which is
//! PostgreSQL 17's: sluice implements it, so it is listed.

use super::enums::{
    BYTEA_OUTPUT, CLIENT_MESSAGE_LEVEL, INTERVALSTYLE, ISOLATION_LEVEL, SESSION_REPLICATION_ROLE,
    TOAST_COMPRESSION, XMLBINARY, XMLOPTION,
};
use super::flags::{
    DISALLOW_IN_FILE, EXPLAIN, IS_NAME, LIST_INPUT, LIST_QUOTE, NOT_IN_SAMPLE, NO_RESET_ALL,
    REPORT, SUPERUSER_ONLY,
};
use super::Category::{ClientConnLocale, ClientConnOther, ClientConnPreload, ClientConnStatement};
use super::Context::{Postmaster, Superuser, User};
use super::{boolean, enumerated, int, string, Setting};
use crate::hooks;
use crate::units::Unit::{Kb, Ms};

/// The settings of this group, by name.
pub(super) static SETTINGS: &[Setting] = &[
    enumerated("bytea_output", User, ClientConnStatement, "hex", BYTEA_OUTPUT)
        .describe("Sets the output format for bytea."),
    boolean("check_function_bodies", User, ClientConnStatement, true)
        .describe("Check routine bodies during CREATE FUNCTION and CREATE PROCEDURE."),
    string("client_encoding", User, ClientConnLocale, Some("SQL_ASCII"))
        .flags(REPORT | IS_NAME)
        .check(hooks::client_encoding)
        .describe("Sets the client's character set encoding."),
    enumerated("client_min_messages", User, ClientConnStatement, "notice", CLIENT_MESSAGE_LEVEL)
        .describe("Sets the message levels that are sent to the client.")
        .extra("Each level includes all the levels that follow it. The later the level, the fewer messages are sent."),
    string("DateStyle", User, ClientConnLocale, Some("ISO, MDY"))
        .flags(REPORT | LIST_INPUT)
        .check(hooks::datestyle)
        .describe("Sets the display format for date and time values.")
        .extra("Also controls interpretation of ambiguous date inputs."),
    string("default_table_access_method", User, ClientConnStatement, Some("heap"))
        .describe("Sets the default table access method for new tables."),
    string("default_tablespace", User, ClientConnStatement, Some(""))
        .describe("Sets the default tablespace to create tables and indexes in.")
        .extra("An empty string selects the database's default tablespace."),
    string("default_text_search_config", User, ClientConnLocale, Some("pg_catalog.simple"))
        .describe("Sets default text search configuration."),
    enumerated("default_toast_compression", User, ClientConnStatement, "pglz", TOAST_COMPRESSION)
        .describe("Sets the default compression method for compressible values."),
    boolean("default_transaction_deferrable", User, ClientConnStatement, false)
        .describe("Sets the default deferrable status of new transactions."),
    enumerated("default_transaction_isolation", User, ClientConnStatement, "read committed", ISOLATION_LEVEL)
        .describe("Sets the transaction isolation level of each new transaction."),
    boolean("default_transaction_read_only", User, ClientConnStatement, false)
        .flags(REPORT)
        .describe("Sets the default read-only status of new transactions."),
    string("dynamic_library_path", Superuser, ClientConnOther, Some("$libdir"))
        .flags(SUPERUSER_ONLY)
        .describe("Sets the path for dynamically loadable modules.")
        .extra("If a dynamically loadable module needs to be opened and the specified name does not have a directory component (i.e., the name does not contain a slash), the system will search this path for the specified file."),
    int("extra_float_digits", User, ClientConnLocale, 1, -15, 3)
        .describe("Sets the number of digits displayed for floating-point values.")
        .extra("This affects real, double precision, and geometric data types. A zero or negative parameter value is added to the standard number of digits (FLT_DIG or DBL_DIG as appropriate). Any value greater than zero selects precise output mode."),
    int("gin_fuzzy_search_limit", User, ClientConnOther, 0, 0, i32::MAX)
        .describe("Sets the maximum allowed result for exact search by GIN."),
    int("gin_pending_list_limit", User, ClientConnStatement, 4096, 64, i32::MAX)
        .unit(Kb)
        .describe("Sets the maximum size of the pending list for GIN index."),
    int("idle_in_transaction_session_timeout", User, ClientConnStatement, 0, 0, i32::MAX)
        .unit(Ms)
        .describe("Sets the maximum allowed idle time between queries, when in a transaction.")
        .extra("A value of 0 turns off the timeout."),
    int("idle_session_timeout", User, ClientConnStatement, 0, 0, i32::MAX)
        .unit(Ms)
        .describe("Sets the maximum allowed idle time between queries, when not in a transaction.")
        .extra("A value of 0 turns off the timeout."),
    enumerated("IntervalStyle", User, ClientConnLocale, "postgres", INTERVALSTYLE)
        .flags(REPORT)
        .describe("Sets the display format for interval values."),
    string("jit_provider", Postmaster, ClientConnPreload, Some("llvmjit"))
        .describe("JIT provider to use."),
    string("lc_messages", Superuser, ClientConnLocale, Some(""))
        .describe("Sets the language in which messages are displayed."),
    string("lc_monetary", User, ClientConnLocale, Some("C"))
        .describe("Sets the locale for formatting monetary amounts."),
    string("lc_numeric", User, ClientConnLocale, Some("C"))
        .describe("Sets the locale for formatting numbers."),
    string("lc_time", User, ClientConnLocale, Some("C"))
        .describe("Sets the locale for formatting date and time values."),
    string("local_preload_libraries", User, ClientConnPreload, Some(""))
        .flags(LIST_INPUT | LIST_QUOTE)
        .describe("Lists unprivileged shared libraries to preload into each backend."),
    int("lock_timeout", User, ClientConnStatement, 0, 0, i32::MAX)
        .unit(Ms)
        .describe("Sets the maximum allowed duration of any wait for a lock.")
        .extra("A value of 0 turns off the timeout."),
    string("restrict_nonsystem_relation_kind", User, ClientConnStatement, Some(""))
        .flags(NOT_IN_SAMPLE | LIST_INPUT)
        .describe("Prohibits access to non-system relations of specified kinds."),
    boolean("row_security", User, ClientConnStatement, true)
        .describe("Enable row security.")
        .extra("When enabled, row security will be applied to all users."),
    string("search_path", User, ClientConnStatement, Some("\"$user\", public"))
        .flags(EXPLAIN | LIST_INPUT | LIST_QUOTE)
        .check(hooks::identifier_list)
        .describe("Sets the schema search order for names that are not schema-qualified."),
    string("session_preload_libraries", Superuser, ClientConnPreload, Some(""))
        .flags(LIST_INPUT | LIST_QUOTE | SUPERUSER_ONLY)
        .describe("Lists shared libraries to preload into each backend."),
    enumerated("session_replication_role", Superuser, ClientConnStatement, "origin", SESSION_REPLICATION_ROLE)
        .describe("Sets the session's behavior for triggers and rewrite rules."),
    string("shared_preload_libraries", Postmaster, ClientConnPreload, Some(""))
        .flags(LIST_INPUT | LIST_QUOTE | SUPERUSER_ONLY)
        .describe("Lists shared libraries to preload into server."),
    int("statement_timeout", User, ClientConnStatement, 0, 0, i32::MAX)
        .unit(Ms)
        .describe("Sets the maximum allowed duration of any statement.")
        .extra("A value of 0 turns off the timeout."),
    string("temp_tablespaces", User, ClientConnStatement, Some(""))
        .flags(LIST_INPUT | LIST_QUOTE)
        .check(hooks::identifier_list)
        .describe("Sets the tablespace(s) to use for temporary tables and sort files."),
    string("TimeZone", User, ClientConnLocale, Some("GMT"))
        .flags(REPORT)
        .check(hooks::timezone)
        .describe("Sets the time zone for displaying and interpreting time stamps."),
    string("timezone_abbreviations", User, ClientConnLocale, None)
        .check(hooks::timezone_abbreviations)
        .describe("Selects a file of time zone abbreviations."),
    boolean("transaction_deferrable", User, ClientConnStatement, false)
        .flags(NO_RESET_ALL | NOT_IN_SAMPLE | DISALLOW_IN_FILE)
        .describe("Whether to defer a read-only serializable transaction until it can be executed with no possible serialization failures."),
    enumerated("transaction_isolation", User, ClientConnStatement, "read committed", ISOLATION_LEVEL)
        .flags(NO_RESET_ALL | NOT_IN_SAMPLE | DISALLOW_IN_FILE)
        .describe("Sets the current transaction's isolation level."),
    boolean("transaction_read_only", User, ClientConnStatement, false)
        .flags(NO_RESET_ALL | NOT_IN_SAMPLE | DISALLOW_IN_FILE)
        .describe("Sets the current transaction's read-only status."),
    int("transaction_timeout", User, ClientConnStatement, 0, 0, i32::MAX)
        .unit(Ms)
        .describe("Sets the maximum allowed duration of any transaction within a session (not a prepared transaction).")
        .extra("A value of 0 turns off the timeout."),
    int("vacuum_failsafe_age", User, ClientConnStatement, 1600000000, 0, 2100000000)
        .describe("Age at which VACUUM should trigger failsafe to avoid a wraparound outage."),
    int("vacuum_freeze_min_age", User, ClientConnStatement, 50000000, 0, 1000000000)
        .describe("Minimum age at which VACUUM should freeze a table row."),
    int("vacuum_freeze_table_age", User, ClientConnStatement, 150000000, 0, 2000000000)
        .describe("Age at which VACUUM should scan whole table to freeze tuples."),
    int("vacuum_multixact_failsafe_age", User, ClientConnStatement, 1600000000, 0, 2100000000)
        .describe("Multixact age at which VACUUM should trigger failsafe to avoid a wraparound outage."),
    int("vacuum_multixact_freeze_min_age", User, ClientConnStatement, 5000000, 0, 1000000000)
        .describe("Minimum age at which VACUUM should freeze a MultiXactId in a table row."),
    int("vacuum_multixact_freeze_table_age", User, ClientConnStatement, 150000000, 0, 2000000000)
        .describe("Multixact age at which VACUUM should scan whole table to freeze tuples."),
    enumerated("xmlbinary", User, ClientConnStatement, "base64", XMLBINARY)
        .describe("Sets how binary values are to be encoded in XML."),
    enumerated("xmloption", User, ClientConnStatement, "content", XMLOPTION)
        .describe("Sets whether XML data in implicit parsing and serialization operations is to be considered as documents or content fragments."),
];
