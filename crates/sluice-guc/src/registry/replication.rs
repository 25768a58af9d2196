//! Streaming and logical replication (`Replication`).

use super::flags::{LIST_INPUT, SUPERUSER_ONLY};
use super::Category::{
    ReplicationPrimary, ReplicationSending, ReplicationStandby, ReplicationSubscribers,
};
use super::Context::{Postmaster, Sighup, Superuser, User};
use super::{boolean, int, string, Setting};
use crate::units::Unit::{Mb, Ms, S};

/// The settings of this group, by name.
pub(super) static SETTINGS: &[Setting] = &[
    boolean("hot_standby", Postmaster, ReplicationStandby, true)
        .describe("Allows connections and queries during recovery."),
    boolean("hot_standby_feedback", Sighup, ReplicationStandby, false)
        .describe("Allows feedback from a hot standby to the primary that will avoid query conflicts."),
    int("max_logical_replication_workers", Postmaster, ReplicationSubscribers, 4, 0, 262143)
        .describe("Maximum number of logical replication worker processes."),
    int("max_replication_slots", Postmaster, ReplicationSending, 10, 0, 262143)
        .describe("Sets the maximum number of simultaneously defined replication slots."),
    int("max_slot_wal_keep_size", Sighup, ReplicationSending, -1, -1, i32::MAX)
        .unit(Mb)
        .describe("Sets the maximum WAL size that can be reserved by replication slots.")
        .extra("Replication slots will be marked as failed, and segments released for deletion or recycling, if this much space is occupied by WAL on disk."),
    int("max_standby_archive_delay", Sighup, ReplicationStandby, 30000, -1, i32::MAX)
        .unit(Ms)
        .describe("Sets the maximum delay before canceling queries when a hot standby server is processing archived WAL data."),
    int("max_standby_streaming_delay", Sighup, ReplicationStandby, 30000, -1, i32::MAX)
        .unit(Ms)
        .describe("Sets the maximum delay before canceling queries when a hot standby server is processing streamed WAL data."),
    int("max_sync_workers_per_subscription", Sighup, ReplicationSubscribers, 2, 0, 262143)
        .describe("Maximum number of table synchronization workers per subscription."),
    int("max_wal_senders", Postmaster, ReplicationSending, 10, 0, 262143)
        .describe("Sets the maximum number of simultaneously running WAL sender processes."),
    string("output_plugin_libraries", Superuser, ReplicationSending, Some("pgoutput, test_decoding"))
        .describe("Lists libraries that may be named as logical decoding output plugins.")
        .extra("Users with REPLICATION privileges may only use plugins in this list when creating logical replication slots."),
    string("primary_conninfo", Sighup, ReplicationStandby, Some(""))
        .flags(SUPERUSER_ONLY)
        .describe("Sets the connection string to be used to connect to the sending server."),
    string("primary_slot_name", Sighup, ReplicationStandby, Some(""))
        .describe("Sets the name of the replication slot to use on the sending server."),
    string("promote_trigger_file", Sighup, ReplicationStandby, Some(""))
        .flags(SUPERUSER_ONLY)
        .describe("Specifies a file name whose presence ends recovery in the standby."),
    int("recovery_min_apply_delay", Sighup, ReplicationStandby, 0, 0, i32::MAX)
        .unit(Ms)
        .describe("Sets the minimum delay for applying changes during recovery."),
    string("synchronous_standby_names", Sighup, ReplicationPrimary, Some(""))
        .flags(LIST_INPUT)
        .describe("Number of synchronous standbys and list of names of potential synchronous ones."),
    boolean("track_commit_timestamp", Postmaster, ReplicationSending, false)
        .describe("Collects transaction commit time."),
    int("vacuum_defer_cleanup_age", Sighup, ReplicationPrimary, 0, 0, 1000000)
        .describe("Number of transactions by which VACUUM and HOT cleanup should be deferred, if any."),
    int("wal_keep_size", Sighup, ReplicationSending, 0, 0, i32::MAX)
        .unit(Mb)
        .describe("Sets the size of WAL files held for standby servers."),
    boolean("wal_receiver_create_temp_slot", Sighup, ReplicationStandby, false)
        .describe("Sets whether a WAL receiver should create a temporary replication slot if no permanent slot is configured."),
    int("wal_receiver_status_interval", Sighup, ReplicationStandby, 10, 0, 2147483)
        .unit(S)
        .describe("Sets the maximum interval between WAL receiver status reports to the sending server."),
    int("wal_receiver_timeout", Sighup, ReplicationStandby, 60000, 0, i32::MAX)
        .unit(Ms)
        .describe("Sets the maximum wait time to receive data from the sending server."),
    int("wal_retrieve_retry_interval", Sighup, ReplicationStandby, 5000, 1, i32::MAX)
        .unit(Ms)
        .describe("Sets the time to wait before retrying to retrieve WAL after a failed attempt."),
    int("wal_sender_timeout", User, ReplicationSending, 60000, 0, i32::MAX)
        .unit(Ms)
        .describe("Sets the maximum time to wait for WAL replication."),
];
