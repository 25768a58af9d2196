//! VACUUM FULL across `kill -9`: a server killed right after a VACUUM FULL
//! committed comes back with the new, smaller files (replayed from their
//! full-page images) and every row, found through the heap and through
//! each index; one killed while a VACUUM FULL runs comes back with the old
//! files and the rows as they were before it. Also `pg_stat_progress_cluster`
//! while a CLUSTER runs.

mod common;

use postgres::{Client, NoTls};
use std::thread;
use std::time::Duration;

fn connect(server: &common::Server) -> Client {
    Client::connect(&server.conninfo(), NoTls).expect("connect")
}

/// The rows of `t` counted by a sequential scan, through the primary key
/// and through the index on `v`; all three must agree.
fn consistent_count(client: &mut Client) -> i64 {
    let count = |c: &mut Client, settings: &str, sql: &str| -> i64 {
        c.batch_execute(settings).unwrap();
        c.query_one(sql, &[]).unwrap().get(0)
    };
    let seq = "SET enable_seqscan = on; SET enable_indexscan = off; SET enable_bitmapscan = off";
    let idx = "SET enable_seqscan = off; SET enable_indexscan = on; SET enable_bitmapscan = off";
    let heap = count(client, seq, "SELECT count(*) FROM t WHERE id >= 0");
    assert_eq!(count(client, idx, "SELECT count(*) FROM t WHERE id >= 0"), heap, "primary key");
    assert_eq!(count(client, idx, "SELECT count(*) FROM t WHERE v >= ''"), heap, "index on v");
    client.batch_execute("RESET ALL").unwrap();
    heap
}

fn relation_size(client: &mut Client, name: &str) -> i64 {
    client.query_one(&format!("SELECT pg_relation_size('{name}')"), &[]).unwrap().get(0)
}

fn setup(client: &mut Client, rows: i32) {
    client
        .batch_execute(&format!(
            "CREATE TABLE t (id int PRIMARY KEY, v text) WITH (autovacuum_enabled = off);
             CREATE INDEX t_v ON t (v);
             INSERT INTO t SELECT i, md5(i::text) FROM generate_series(0, {rows} - 1) i;
             CHECKPOINT;
             DELETE FROM t WHERE id % 4 <> 0;"
        ))
        .unwrap();
}

#[test]
fn a_vacuum_full_survives_a_crash_right_after_commit() {
    let mut server = common::Server::start();
    let mut client = connect(&server);
    setup(&mut client, 40_000);
    let before = relation_size(&mut client, "t");
    client.batch_execute("VACUUM FULL t").unwrap();
    let (heap, pkey) = (relation_size(&mut client, "t"), relation_size(&mut client, "t_pkey"));
    assert!(heap * 3 < before, "the table shrank: {heap} of {before} bytes");
    server.kill();
    server.spawn();
    let mut client = connect(&server);
    assert_eq!(relation_size(&mut client, "t"), heap, "the new heap file was replayed");
    assert_eq!(relation_size(&mut client, "t_pkey"), pkey, "the new index file was replayed");
    assert_eq!(consistent_count(&mut client), 10_000);
    let sum: i64 = client.query_one("SELECT sum(id)::int8 FROM t", &[]).unwrap().get(0);
    assert_eq!(sum, (0..40_000i64).filter(|i| i % 4 == 0).sum::<i64>());
    client
        .batch_execute("INSERT INTO t SELECT i, 'new' FROM generate_series(50000, 50999) i")
        .unwrap();
    assert_eq!(consistent_count(&mut client), 11_000);
}

#[test]
fn a_crash_during_vacuum_full_keeps_the_old_files() {
    let mut server = common::Server::start();
    let mut client = connect(&server);
    setup(&mut client, 200_000);
    let before = relation_size(&mut client, "t");
    let conninfo = server.conninfo();
    let vacuum = thread::spawn(move || {
        let mut c = Client::connect(&conninfo, NoTls).expect("connect");
        c.batch_execute("VACUUM FULL t").is_ok()
    });
    // Kill while the rewrite runs: it shows up in pg_locks holding its lock.
    let running = (0..2000).any(|_| {
        let sql = "SELECT count(*) FROM pg_locks WHERE mode = 'AccessExclusiveLock' \
                   AND relation = (SELECT oid FROM pg_class WHERE relname = 't')";
        let n: i64 = client.query_one(sql, &[]).unwrap().get(0);
        if n == 0 {
            thread::sleep(Duration::from_millis(2));
        }
        n > 0
    });
    assert!(running, "the VACUUM FULL got its lock");
    server.kill();
    let finished = vacuum.join().unwrap();
    eprintln!(
        "the VACUUM FULL {} before the kill",
        if finished { "finished" } else { "was running" }
    );
    server.spawn();
    let mut client = connect(&server);
    assert_eq!(consistent_count(&mut client), 50_000);
    if !finished {
        assert_eq!(relation_size(&mut client, "t"), before, "the old heap file is back");
    }
    client.batch_execute("VACUUM FULL t").unwrap();
    assert_eq!(consistent_count(&mut client), 50_000);
    assert!(relation_size(&mut client, "t") * 3 < before, "a new VACUUM FULL shrinks it");
}

#[test]
fn pg_stat_progress_cluster_shows_a_running_cluster() {
    let server = common::Server::start();
    let mut client = connect(&server);
    setup(&mut client, 200_000);
    let conninfo = server.conninfo();
    let cluster = thread::spawn(move || {
        let mut c = Client::connect(&conninfo, NoTls).expect("connect");
        c.batch_execute("CLUSTER t USING t_v").unwrap();
    });
    let sql = "SELECT relid = (SELECT oid FROM pg_class WHERE relname = 't'), command, phase, \
               cluster_index_relid = (SELECT oid FROM pg_class WHERE relname = 't_v'), \
               heap_blks_total, datname::text FROM pg_stat_progress_cluster";
    let mut phases = Vec::new();
    for _ in 0..5000 {
        let rows = client.query(sql, &[]).unwrap();
        let Some(row) = rows.first() else {
            if !phases.is_empty() {
                break;
            }
            thread::sleep(Duration::from_millis(2));
            continue;
        };
        assert!(row.get::<_, bool>(0), "relid is t");
        assert_eq!(row.get::<_, String>(1), "CLUSTER");
        assert!(row.get::<_, bool>(3), "cluster_index_relid is t_v");
        assert!(row.get::<_, i64>(4) > 0, "heap_blks_total");
        assert_eq!(row.get::<_, String>(5), "postgres");
        let phase: String = row.get(2);
        if phases.last() != Some(&phase) {
            phases.push(phase);
        }
    }
    cluster.join().unwrap();
    eprintln!("phases seen: {phases:?}");
    assert!(!phases.is_empty(), "the CLUSTER shows up");
    let known = [
        "initializing",
        "seq scanning heap",
        "sorting tuples",
        "writing new heap",
        "swapping relation files",
        "rebuilding index",
        "performing final cleanup",
    ];
    assert!(phases.iter().all(|p| known.contains(&p.as_str())), "{phases:?}");
    let rows = client.query("SELECT * FROM pg_stat_progress_cluster", &[]).unwrap();
    assert!(rows.is_empty(), "the row goes when the CLUSTER ends");
}
