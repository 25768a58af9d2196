//! Two-phase commit across restarts and against VACUUM: a prepared
//! transaction survives `kill -9` and a clean restart with its locks (a
//! writer still waits for its table), stays invisible until COMMIT PREPARED
//! makes its rows — subtransactions' too — visible, and holds the horizon so
//! VACUUM VERBOSE reports rows deleted after it as "dead but not yet
//! removable" until it ends.

mod common;

use postgres::{Client, NoTls};
use std::time::Duration;

const SETTINGS: &[&str] = &["max_prepared_transactions=5"];

fn connect(server: &common::Server) -> Client {
    Client::connect(&server.conninfo(), NoTls).expect("connect")
}

fn count(client: &mut Client, sql: &str) -> i64 {
    client.query_one(sql, &[]).unwrap().get(0)
}

/// Whether a LOCK TABLE on `t` from a new session times out (the prepared
/// transaction still holds its lock).
fn table_is_locked(server: &common::Server) -> bool {
    let mut other = connect(server);
    other.batch_execute("SET lock_timeout = '200ms'").unwrap();
    let locked = other.batch_execute("BEGIN; LOCK TABLE t IN SHARE MODE").is_err();
    let _ = other.batch_execute("ROLLBACK");
    locked
}

#[test]
fn prepared_transactions_survive_kill_9_and_restart_with_their_locks() {
    let mut server = common::Server::start_with(SETTINGS);
    let mut client = connect(&server);
    client.batch_execute("CREATE TABLE t (id int); INSERT INTO t VALUES (0)").unwrap();
    client
        .batch_execute(
            "BEGIN; INSERT INTO t VALUES (1); SAVEPOINT a; INSERT INTO t VALUES (2);
             SAVEPOINT b; INSERT INTO t VALUES (3); ROLLBACK TO b; RELEASE a;
             PREPARE TRANSACTION 'crash me'",
        )
        .unwrap();
    client
        .batch_execute("BEGIN; DELETE FROM t WHERE id = 0; PREPARE TRANSACTION 'undo me'")
        .unwrap();
    assert!(table_is_locked(&server));
    drop(client);
    server.kill();
    server.spawn();
    let mut client = connect(&server);
    let gids: Vec<String> = client
        .query("SELECT gid FROM pg_prepared_xacts ORDER BY gid", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(gids, ["crash me", "undo me"]);
    assert!(table_is_locked(&server), "the locks came back with the prepared transactions");
    assert_eq!(count(&mut client, "SELECT count(*) FROM t"), 1, "still in progress");
    server.stop();
    server.spawn();
    let mut client = connect(&server);
    assert_eq!(count(&mut client, "SELECT count(*) FROM pg_prepared_xacts"), 2, "clean restart");
    let mut old = connect(&server);
    old.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT 1").unwrap();
    client.batch_execute("COMMIT PREPARED 'crash me'").unwrap();
    client.batch_execute("ROLLBACK PREPARED 'undo me'").unwrap();
    assert_eq!(count(&mut old, "SELECT count(*) FROM t"), 1, "an older snapshot does not see it");
    old.batch_execute("COMMIT").unwrap();
    let ids: Vec<i32> = client
        .query("SELECT id FROM t ORDER BY id", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(
        ids,
        [0, 1, 2],
        "committed with its released savepoint, without the rolled back one"
    );
    assert!(!table_is_locked(&server));
    server.kill();
    server.spawn();
    let mut client = connect(&server);
    assert_eq!(count(&mut client, "SELECT count(*) FROM pg_prepared_xacts"), 0);
    assert_eq!(count(&mut client, "SELECT count(*) FROM t"), 3, "COMMIT PREPARED is durable");
}

#[test]
fn a_prepared_transaction_holds_back_vacuum() {
    let server = common::Server::start_with(SETTINGS);
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let mut config: postgres::Config = server.conninfo().parse().unwrap();
    config.notice_callback(move |notice| {
        let _ = tx.send(notice.message().to_string());
    });
    let mut client = config.connect(NoTls).unwrap();
    for sql in [
        "CREATE TABLE t (id int); CREATE TABLE other (id int)",
        "INSERT INTO t SELECT g FROM generate_series(1, 100) g",
        "BEGIN; INSERT INTO other VALUES (1); PREPARE TRANSACTION 'p'",
        "DELETE FROM t WHERE id > 10",
    ] {
        client.batch_execute(sql).unwrap();
    }
    let mut report = || -> String {
        client.batch_execute("VACUUM (VERBOSE) t").unwrap();
        rx.recv_timeout(Duration::from_secs(5))
            .into_iter()
            .chain(rx.try_iter())
            .find(|m| m.starts_with("finished vacuuming"))
            .expect("a VERBOSE report")
    };
    let held = report();
    assert!(held.contains("0 removed, 100 remain, 90 are dead but not yet removable"), "{held}");
    let mut other = connect(&server);
    other.batch_execute("ROLLBACK PREPARED 'p'").unwrap();
    let freed = report();
    assert!(freed.contains("90 removed, 10 remain, 0 are dead but not yet removable"), "{freed}");
}

#[test]
fn prepare_is_refused_when_disabled() {
    let server = common::Server::start();
    let mut client = connect(&server);
    let err = client.batch_execute("BEGIN; PREPARE TRANSACTION 'x'").unwrap_err();
    let db = err.as_db_error().expect("a server error");
    assert_eq!(db.code().code(), "55000");
    assert_eq!(db.message(), "prepared transactions are disabled");
    assert_eq!(db.hint(), Some("Set max_prepared_transactions to a nonzero value."));
    assert_eq!(count(&mut client, "SELECT count(*) FROM pg_prepared_xacts"), 0);
}
