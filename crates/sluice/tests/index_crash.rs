//! B-tree indexes across `kill -9`: a server killed while CREATE INDEX is
//! building comes back with the table intact and no trace of the index, and
//! one killed while clients insert into an indexed table (splitting its
//! pages) comes back with an index that finds exactly the acknowledged rows.

mod common;

use postgres::{Client, NoTls};
use std::thread;
use std::time::Duration;

fn connect(server: &common::Server) -> Client {
    Client::connect(&server.conninfo(), NoTls).expect("connect")
}

/// count -- rows of `t` counted with sequential scans only, or through the
/// index only.
fn count(client: &mut Client, through_index: bool) -> i64 {
    let (seq, index) = if through_index { ("off", "on") } else { ("on", "off") };
    client
        .batch_execute(&format!("SET enable_seqscan = {seq}; SET enable_indexscan = {index}"))
        .unwrap();
    client.query_one("SELECT count(*) FROM t WHERE id >= 0", &[]).unwrap().get(0)
}

#[test]
fn a_crash_during_create_index_leaves_no_index_and_the_table_intact() {
    let mut server = common::Server::start();
    let mut client = connect(&server);
    client
        .batch_execute(
            "CREATE TABLE t (id int, v text);
             INSERT INTO t SELECT i, 'v' || i FROM generate_series(1, 200000) i;",
        )
        .unwrap();
    let conninfo = server.conninfo();
    let builder = thread::spawn(move || {
        let mut c = Client::connect(&conninfo, NoTls).expect("connect");
        c.batch_execute("CREATE UNIQUE INDEX t_id ON t (id)").is_ok()
    });
    thread::sleep(Duration::from_millis(150));
    server.kill();
    let finished = builder.join().unwrap();
    server.spawn();
    let mut client = connect(&server);
    let indexes: i64 = client
        .query_one("SELECT count(*) FROM pg_class WHERE relname = 't_id'", &[])
        .unwrap()
        .get(0);
    // The build either committed before the kill (then the index is whole)
    // or left nothing behind. A commit can reach the disk just before the
    // kill and its acknowledgement not reach the client, so an index may
    // be there although CREATE INDEX did not return; one that returned
    // must be there.
    assert!(indexes <= 1, "one index at most");
    assert!(!finished || indexes == 1, "CREATE INDEX returned but its index is gone");
    assert_eq!(count(&mut client, false), 200_000);
    if indexes == 1 {
        assert_eq!(count(&mut client, true), 200_000, "a committed index finds every row");
    }
    client.batch_execute("CREATE UNIQUE INDEX IF NOT EXISTS t_id ON t (id)").unwrap();
    assert_eq!(count(&mut client, true), 200_000, "a rebuilt index finds every row");
}

#[test]
fn splits_interrupted_by_a_crash_leave_a_consistent_index() {
    let mut server = common::Server::start();
    connect(&server)
        .batch_execute("CREATE TABLE t (id int PRIMARY KEY, v text); CREATE INDEX t_v ON t (v)")
        .unwrap();
    let conninfo = server.conninfo();
    let writers: Vec<_> = (0..3)
        .map(|w| {
            let conninfo = conninfo.clone();
            thread::spawn(move || {
                let mut acked = Vec::new();
                let Ok(mut c) = Client::connect(&conninfo, NoTls) else { return acked };
                for i in 0..100_000 {
                    // Interleaved keys from three writers split pages all over the tree.
                    let id = i * 3 + w;
                    let sql = format!("INSERT INTO t VALUES ({id}, md5('{id}'))");
                    if c.batch_execute(&sql).is_err() {
                        break;
                    }
                    acked.push(id);
                }
                acked
            })
        })
        .collect();
    thread::sleep(Duration::from_millis(1500));
    server.kill();
    let acked: Vec<i32> = writers.into_iter().flat_map(|w| w.join().unwrap()).collect();
    assert!(acked.len() > 100, "the writers got going before the kill");
    server.spawn();
    let mut client = connect(&server);
    let rows = count(&mut client, false);
    assert_eq!(count(&mut client, true), rows, "index and heap agree");
    assert!(rows >= acked.len() as i64, "every acknowledged row survived");
    for id in acked.iter().step_by(97) {
        let found: i64 = client
            .query_one(&format!("SELECT count(*) FROM t WHERE id = {id}"), &[])
            .unwrap()
            .get(0);
        assert_eq!(found, 1, "row {id} is found through the primary key");
    }
    let dup = client.batch_execute(&format!("INSERT INTO t VALUES ({}, 'again')", acked[0]));
    assert!(dup.is_err(), "the unique index still guards its keys after recovery");
}
