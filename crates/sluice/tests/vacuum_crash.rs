//! VACUUM across `kill -9`: a server killed while VACUUM prunes, cleans the
//! indexes and truncates a table that writers keep changing comes back with
//! every acknowledged row, the deleted ones gone, and indexes that agree with
//! the heap; one killed right after a VACUUM that truncated the table comes
//! back with the shorter file and the same rows; B-tree pages VACUUM deleted
//! stay deleted across a crash, and splits that reused them survive one too.
//! Also VACUUM VERBOSE's
//! report of rows a REPEATABLE READ snapshot keeps ("dead but not yet
//! removable") and of the same rows removed once it ends.

mod common;

use postgres::{Client, NoTls};
use std::thread;
use std::time::Duration;

fn connect(server: &common::Server) -> Client {
    Client::connect(&server.conninfo(), NoTls).expect("connect")
}

/// count -- rows of `t` with ids in `range` (SQL), counted with sequential
/// scans only or through the primary key only.
fn count(client: &mut Client, range: &str, through_index: bool) -> i64 {
    let (seq, index) = if through_index { ("off", "on") } else { ("on", "off") };
    client
        .batch_execute(&format!("SET enable_seqscan = {seq}; SET enable_indexscan = {index}"))
        .unwrap();
    client.query_one(&format!("SELECT count(*) FROM t WHERE {range}"), &[]).unwrap().get(0)
}

/// Heap and both indexes find the same rows.
fn assert_consistent(client: &mut Client) -> i64 {
    let rows = count(client, "id > -1000000", false);
    assert_eq!(count(client, "id > -1000000", true), rows, "primary key and heap agree");
    client.batch_execute("SET enable_seqscan = off").unwrap();
    let by_v: i64 = client.query_one("SELECT count(*) FROM t WHERE v >= ''", &[]).unwrap().get(0);
    assert_eq!(by_v, rows, "the index on v and the heap agree");
    rows
}

#[test]
fn a_crash_during_vacuum_keeps_acknowledged_rows_and_consistent_indexes() {
    let mut server = common::Server::start();
    let mut client = connect(&server);
    client
        .batch_execute(
            "CREATE TABLE t (id int PRIMARY KEY, v text); CREATE INDEX t_v ON t (v);
             INSERT INTO t SELECT i, md5(i::text) FROM generate_series(0, 99999) i;
             DELETE FROM t WHERE id % 3 = 0 OR id >= 80000;",
        )
        .unwrap();
    let conninfo = server.conninfo();
    let writer = thread::spawn(move || {
        let mut acked = Vec::new();
        let Ok(mut c) = Client::connect(&conninfo, NoTls) else { return acked };
        for i in 0..100_000 {
            let id = 1_000_000 + i;
            let sql = format!(
                "INSERT INTO t VALUES ({id}, md5('{id}')); DELETE FROM t WHERE id = {}",
                i * 3 + 1
            );
            if c.batch_execute(&sql).is_err() {
                break;
            }
            acked.push(id);
        }
        acked
    });
    let conninfo = server.conninfo();
    let vacuumer = thread::spawn(move || {
        let Ok(mut c) = Client::connect(&conninfo, NoTls) else { return 0 };
        let mut done = 0;
        while c.batch_execute("VACUUM t").is_ok() {
            done += 1;
        }
        done
    });
    thread::sleep(Duration::from_millis(2500));
    server.kill();
    let acked = writer.join().unwrap();
    let vacuums = vacuumer.join().unwrap();
    eprintln!("{} writer transactions and {vacuums} VACUUMs before the kill", acked.len());
    assert!(acked.len() > 10, "the writer got going before the kill");
    server.spawn();
    let mut client = connect(&server);
    assert_consistent(&mut client);
    assert_eq!(count(&mut client, "id % 3 = 0 AND id < 1000000", false), 0, "deleted stay deleted");
    for id in acked.iter().step_by(7) {
        let found = count(&mut client, &format!("id = {id}"), true);
        assert_eq!(found, 1, "acknowledged row {id} is found through the primary key");
    }
    client.batch_execute("VACUUM t").unwrap();
    assert_consistent(&mut client);
}

#[test]
fn a_truncating_vacuum_survives_a_crash() {
    let mut server = common::Server::start();
    let mut client = connect(&server);
    client
        .batch_execute(
            "CREATE TABLE t (id int PRIMARY KEY, v text); CREATE INDEX t_v ON t (v);
             INSERT INTO t SELECT i, md5(i::text) FROM generate_series(0, 49999) i;
             CHECKPOINT;
             DELETE FROM t WHERE id >= 5000 OR id % 2 = 0;",
        )
        .unwrap();
    // VACUUM must be a query string of its own (25001 otherwise).
    client.batch_execute("VACUUM t").unwrap();
    let size = |c: &mut Client| -> i64 {
        c.query_one("SELECT pg_relation_size('t')", &[]).unwrap().get(0)
    };
    let truncated = size(&mut client);
    server.kill();
    server.spawn();
    let mut client = connect(&server);
    assert_eq!(size(&mut client), truncated, "the truncation was replayed");
    assert_eq!(assert_consistent(&mut client), 2500);
    client
        .batch_execute("INSERT INTO t SELECT i, 'new' FROM generate_series(60000, 60999) i")
        .unwrap();
    assert_eq!(assert_consistent(&mut client), 3500);
}

#[test]
fn deleted_index_pages_survive_a_crash_and_are_reused() {
    let mut server = common::Server::start();
    let mut client = connect(&server);
    client
        .batch_execute(
            "CREATE EXTENSION pgstattuple;
             CREATE TABLE t (id int PRIMARY KEY, v text); CREATE INDEX t_v ON t (v);
             INSERT INTO t SELECT i, md5(i::text) FROM generate_series(0, 49999) i;
             CHECKPOINT;
             DELETE FROM t WHERE id < 30000;",
        )
        .unwrap();
    client.batch_execute("VACUUM t").unwrap();
    let deleted = |c: &mut Client| -> i64 {
        c.query_one("SELECT deleted_pages FROM pgstatindex('t_pkey')", &[]).unwrap().get(0)
    };
    let size = |c: &mut Client| -> i64 {
        c.query_one("SELECT pg_relation_size('t_pkey')", &[]).unwrap().get(0)
    };
    let before = deleted(&mut client);
    assert!(before > 50, "the emptied leaves were deleted: {before}");
    server.kill();
    server.spawn();
    let mut client = connect(&server);
    assert_eq!(deleted(&mut client), before, "the deletions were replayed");
    assert_eq!(assert_consistent(&mut client), 20_000);
    assert_eq!(count(&mut client, "id BETWEEN 29990 AND 30009", true), 10);
    // Once later transactions have come and gone, VACUUM makes the pages
    // reusable and new keys below the others fill them.
    // Two messages: VACUUM in a multi-statement string would be inside
    // an implicit transaction block, which it refuses.
    client.batch_execute("INSERT INTO t VALUES (-1, 'x')").unwrap();
    client.batch_execute("VACUUM t").unwrap();
    let pages = size(&mut client);
    client
        .batch_execute("INSERT INTO t SELECT i, md5(i::text) FROM generate_series(-20000, -2) i")
        .unwrap();
    // The 20,000 keys need more leaves than were deleted: every deleted
    // page is taken before the file grows, and it grows by less than it
    // would have.
    assert_eq!(deleted(&mut client), 0, "splits took every deleted page");
    let grown_pages = (size(&mut client) - pages) / 8192;
    assert!(grown_pages < before, "the file grew by {grown_pages} pages");
    server.kill();
    server.spawn();
    let mut client = connect(&server);
    assert_eq!(assert_consistent(&mut client), 40_000);
    assert_eq!(count(&mut client, "id < 0", true), 20_000);
}

#[test]
fn verbose_reports_rows_a_snapshot_still_needs() {
    let server = common::Server::start();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let mut config: postgres::Config = server.conninfo().parse().unwrap();
    config.notice_callback(move |notice| {
        let _ = tx.send(notice.message().to_string());
    });
    let mut client = config.connect(NoTls).unwrap();
    client
        .batch_execute(
            "CREATE TABLE t (id int PRIMARY KEY, v text);
             INSERT INTO t SELECT i, 'v' FROM generate_series(1, 1000) i;",
        )
        .unwrap();
    let mut reader = connect(&server);
    let reader_pid: i32 = reader.query_one("SELECT pg_backend_pid()", &[]).unwrap().get(0);
    reader.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM t").unwrap();
    client.batch_execute("DELETE FROM t WHERE id > 100").unwrap();
    let report = |client: &mut Client| -> String {
        client.batch_execute("VACUUM (VERBOSE) t").unwrap();
        rx.try_iter().find(|m| m.starts_with("finished vacuuming")).expect("a VERBOSE report")
    };
    let held = report(&mut client);
    assert!(
        held.contains("tuples: 0 removed, 1000 remain, 900 are dead but not yet removable"),
        "{held}"
    );
    let sql = format!("SELECT backend_xmin::text FROM pg_stat_activity WHERE pid = {reader_pid}");
    let backend_xmin: String = client.query_one(&sql, &[]).unwrap().get(0);
    assert!(held.contains(&format!("removable cutoff: {backend_xmin},")), "{held}");
    reader.batch_execute("COMMIT").unwrap();
    let freed = report(&mut client);
    assert!(
        freed.contains("tuples: 900 removed, 100 remain, 0 are dead but not yet removable"),
        "{freed}"
    );
    assert!(freed.contains("index scan needed:"), "{freed}");
    assert!(freed.contains("index \"t_pkey\": pages:"), "{freed}");
}

#[test]
fn pg_stat_progress_vacuum_shows_a_running_vacuum() {
    let server = common::Server::start();
    let mut client = connect(&server);
    client
        .batch_execute(
            "CREATE TABLE t (id int PRIMARY KEY, v text);
             INSERT INTO t SELECT i, 'v' FROM generate_series(1, 20000) i;
             DELETE FROM t WHERE id > 1000;",
        )
        .unwrap();
    // A reader's lock makes VACUUM retry for the truncation lock: a phase
    // that lasts long enough to be seen.
    let mut reader = connect(&server);
    reader.batch_execute("BEGIN; LOCK t IN ACCESS SHARE MODE").unwrap();
    let conninfo = server.conninfo();
    let vacuum = thread::spawn(move || {
        let mut c = Client::connect(&conninfo, NoTls).expect("connect");
        c.batch_execute("VACUUM t").unwrap();
        c.query_one("SELECT pg_relation_size('t')", &[]).unwrap().get::<_, i64>(0)
    });
    let sql =
        "SELECT relid::int8 = 't'::regclass::int8, phase, heap_blks_total = heap_blks_scanned, \
               heap_blks_vacuumed > 0, index_vacuum_count, datname::text \
               FROM pg_stat_progress_vacuum";
    let row = (0..500)
        .find_map(|_| {
            let rows = client.query(sql, &[]).unwrap();
            let phase = rows.first().map(|r| r.get::<_, String>(1));
            if phase.as_deref() == Some("truncating heap") {
                return rows.into_iter().next();
            }
            thread::sleep(Duration::from_millis(10));
            None
        })
        .expect("the VACUUM shows up waiting to truncate");
    assert!(row.get::<_, bool>(0), "relid is t");
    assert!(row.get::<_, bool>(2), "every page was scanned");
    assert!(row.get::<_, bool>(3), "dead line pointers were freed");
    assert_eq!(row.get::<_, i64>(4), 1, "one round of index vacuuming");
    assert_eq!(row.get::<_, String>(5), "postgres");
    reader.batch_execute("COMMIT").unwrap();
    let size = vacuum.join().unwrap();
    assert!(size < 20 * 8192, "truncated once the reader let go: {size}");
    let left: i64 =
        client.query_one("SELECT count(*) FROM pg_stat_progress_vacuum", &[]).unwrap().get(0);
    assert_eq!(left, 0, "the row goes when VACUUM ends");
}
