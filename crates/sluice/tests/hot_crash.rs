//! HOT chains and the visibility and free space maps across `kill -9`: a
//! server killed while sessions keep HOT-updating rows (and VACUUM keeps
//! pruning their chains to redirects and marking pages all-visible) comes
//! back with every acknowledged value reachable through the primary key; a
//! VACUUM after recovery finds the heap and index in agreement, and the
//! space VACUUM freed before the crash is reused afterwards.

mod common;

use postgres::{Client, NoTls};
use std::thread;
use std::time::Duration;

fn connect(server: &common::Server) -> Client {
    Client::connect(&server.conninfo(), NoTls).expect("connect")
}

/// The value of row `id`, read through the primary key (a HOT chain walk).
fn value_by_index(client: &mut Client, id: i32) -> i64 {
    client.batch_execute("SET enable_seqscan = off").unwrap();
    client.query_one("SELECT n FROM t WHERE id = $1", &[&id]).unwrap().get(0)
}

#[test]
fn hot_chains_and_maps_survive_a_crash() {
    let mut server = common::Server::start();
    let mut client = connect(&server);
    client
        .batch_execute(
            "CREATE TABLE t (id int PRIMARY KEY, n bigint, pad text) WITH (fillfactor = 70);
             INSERT INTO t SELECT i, 0, repeat('p', 60) FROM generate_series(0, 1999) i;",
        )
        .unwrap();
    client.batch_execute("VACUUM t").unwrap();
    let conninfo = server.conninfo();
    // Each writer owns 20 rows and adds 1 to one of them per transaction:
    // never an indexed column, so every update may be heap-only.
    let writers: Vec<_> = (0..2)
        .map(|w| {
            let conninfo = conninfo.clone();
            thread::spawn(move || {
                let mut acked = vec![0i64; 20];
                let Ok(mut c) = Client::connect(&conninfo, NoTls) else { return acked };
                for i in 0..1_000_000usize {
                    let id = (w * 1000 + (i % 20) * 7) as i32;
                    if c.execute("UPDATE t SET n = n + 1 WHERE id = $1", &[&id]).is_err() {
                        break;
                    }
                    acked[i % 20] += 1;
                }
                acked
            })
        })
        .collect();
    let vacuumer = thread::spawn(move || {
        let Ok(mut c) = Client::connect(&conninfo, NoTls) else { return 0 };
        let mut done = 0;
        while c.batch_execute("VACUUM t").is_ok() {
            done += 1;
        }
        done
    });
    thread::sleep(Duration::from_millis(3000));
    server.kill();
    let acked: Vec<Vec<i64>> = writers.into_iter().map(|w| w.join().unwrap()).collect();
    let vacuums = vacuumer.join().unwrap();
    eprintln!(
        "{:?} updates and {vacuums} VACUUMs before the kill",
        acked.iter().map(|a| a.iter().sum::<i64>()).collect::<Vec<_>>()
    );
    let total: i64 = acked.iter().flatten().sum();
    assert!(total > 20, "the writers got going before the kill");
    server.spawn();
    let mut client = connect(&server);
    for (w, counts) in acked.iter().enumerate() {
        for (slot, &count) in counts.iter().enumerate() {
            let id = (w * 1000 + slot * 7) as i32;
            let n = value_by_index(&mut client, id);
            // The one update in flight at the kill may or may not have committed.
            assert!(n == count || n == count + 1, "row {id}: {n} after {count} acknowledged");
        }
    }
    client.batch_execute("RESET enable_seqscan").unwrap();
    let rows: i64 = client.query_one("SELECT count(*) FROM t", &[]).unwrap().get(0);
    assert_eq!(rows, 2000);
    client.batch_execute("VACUUM t").unwrap();
    let size: i64 = client.query_one("SELECT pg_relation_size('t')", &[]).unwrap().get(0);
    let has_maps: bool = client
        .query_one(
            "SELECT pg_relation_size('t', 'vm') > 0 AND pg_relation_size('t', 'fsm') > 0",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(has_maps, "VACUUM after recovery has both maps");
    // Delete half, VACUUM, insert as many: the freed space is found.
    client.batch_execute("DELETE FROM t WHERE id % 2 = 0").unwrap();
    client.batch_execute("VACUUM t").unwrap();
    client
        .batch_execute(
            "INSERT INTO t SELECT i, 0, repeat('p', 60) FROM generate_series(10000, 10999) i",
        )
        .unwrap();
    let after: i64 = client.query_one("SELECT pg_relation_size('t')", &[]).unwrap().get(0);
    assert_eq!(after, size, "inserts reused the space VACUUM recorded");
    client.batch_execute("SET enable_seqscan = off").unwrap();
    let by_index: i64 =
        client.query_one("SELECT count(*) FROM t WHERE id >= 0", &[]).unwrap().get(0);
    assert_eq!(by_index, 2000, "index and heap agree");
}
