//! CREATE INDEX CONCURRENTLY beside busy writers: the build never blocks
//! them (they keep committing while it runs), and the finished index holds
//! exactly the rows a sequential scan sees — including rows inserted and
//! updated between its build snapshot and its validation, which is what
//! `indexcmds/concurrently.rs`'s validation pass exists for.

mod common;

use postgres::{Client, NoTls};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;

fn connect(server: &common::Server) -> Client {
    Client::connect(&server.conninfo(), NoTls).expect("connect")
}

/// Per-value row counts of `t`, read with the given scan settings.
fn counts(client: &mut Client, settings: &str) -> Vec<(i32, i64)> {
    client.batch_execute(settings).unwrap();
    let rows = client.query("SELECT v, count(*) FROM t WHERE v >= 0 GROUP BY v ORDER BY v", &[]);
    rows.unwrap().iter().map(|r| (r.get(0), r.get(1))).collect()
}

#[test]
fn writers_run_beside_the_build_and_the_index_misses_nothing() {
    let server = common::Server::start();
    let mut admin = connect(&server);
    admin
        .batch_execute(
            "CREATE TABLE t (id int PRIMARY KEY, v int, pad text);
             INSERT INTO t SELECT g, g % 100, repeat('x', 50) FROM generate_series(1, 20000) g",
        )
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let commits = Arc::new(AtomicU64::new(0));
    let writers: Vec<_> = (0..2)
        .map(|w| {
            let (stop, commits) = (stop.clone(), commits.clone());
            let mut client = connect(&server);
            thread::spawn(move || {
                let mut next = 100_000 + w * 1_000_000;
                while !stop.load(Ordering::Relaxed) {
                    next += 1;
                    let id = next;
                    client
                        .batch_execute(&format!(
                            "BEGIN;
                             INSERT INTO t VALUES ({id}, {v}, 'new');
                             UPDATE t SET v = (v + 1) % 100 WHERE id = {old};
                             DELETE FROM t WHERE id = {gone};
                             COMMIT",
                            v = id % 100,
                            old = id % 20000 + 1,
                            gone = (id * 7) % 20000 + 1,
                        ))
                        .unwrap();
                    commits.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    while commits.load(Ordering::Relaxed) < 20 {
        thread::yield_now();
    }
    let before = commits.load(Ordering::Relaxed);
    admin.batch_execute("CREATE INDEX CONCURRENTLY t_v ON t (v)").unwrap();
    let during = commits.load(Ordering::Relaxed) - before;
    stop.store(true, Ordering::Relaxed);
    for writer in writers {
        writer.join().unwrap();
    }
    assert!(during > 0, "writers committed nothing while the index was built");

    let valid: bool = admin
        .query_one("SELECT indisvalid FROM pg_index WHERE indexrelid = 't_v'::regclass", &[])
        .unwrap()
        .get(0);
    assert!(valid);
    admin.batch_execute("SET enable_seqscan = off").unwrap();
    // (EXPLAIN through the extended protocol, as this client sends it.)
    let rows = admin.query("EXPLAIN SELECT v FROM t WHERE v >= 0", &[]).unwrap();
    let plan: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
    assert!(plan.iter().any(|l| l.contains("t_v")), "the index is used: {plan:?}");
    let by_index = counts(&mut admin, "SET enable_seqscan = off");
    let heap_only =
        "SET enable_seqscan = on; SET enable_indexscan = off; SET enable_bitmapscan = off";
    let by_heap = counts(&mut admin, heap_only);
    assert_eq!(by_index, by_heap);
}
