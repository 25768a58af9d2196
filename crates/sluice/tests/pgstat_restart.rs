//! Cumulative statistics across restarts (PostgreSQL 15's behaviour): a
//! clean shutdown writes them to `pg_stat/` and the next start reads them
//! back; after `kill -9` they start again from zero.

mod common;

use postgres::{Client, NoTls};

fn connect(server: &common::Server) -> Client {
    Client::connect(&server.conninfo(), NoTls).expect("connect")
}

/// (n_tup_ins, n_live_tup, n_dead_tup, vacuum_count, vacuumed) of `t`.
fn counters(client: &mut Client) -> (i64, i64, i64, i64, bool) {
    let row = client
        .query_one(
            "SELECT n_tup_ins, n_live_tup, n_dead_tup, vacuum_count, last_vacuum IS NOT NULL
               FROM pg_stat_user_tables WHERE relname = 't'",
            &[],
        )
        .expect("pg_stat_user_tables");
    (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4))
}

#[test]
fn clean_shutdown_keeps_statistics_and_a_crash_resets_them() {
    let mut server = common::Server::start();
    let mut client = connect(&server);
    for sql in [
        "CREATE TABLE t (id int)",
        "INSERT INTO t SELECT g FROM generate_series(1, 10) g",
        "VACUUM t",
        "DELETE FROM t WHERE id <= 3",
    ] {
        client.batch_execute(sql).unwrap();
    }
    assert_eq!(counters(&mut client), (10, 7, 3, 1, true));
    drop(client);

    server.stop();
    server.spawn();
    let mut client = connect(&server);
    assert_eq!(counters(&mut client), (10, 7, 3, 1, true), "kept across a clean shutdown");
    assert!(!server.dir.path().join("pg_stat/pgstat.stat").exists(), "read and removed");
    client.batch_execute("INSERT INTO t VALUES (11)").unwrap();
    drop(client);

    server.kill();
    server.spawn();
    let mut client = connect(&server);
    assert_eq!(counters(&mut client), (0, 0, 0, 0, false), "discarded after a crash");
    let rows: i64 = client.query_one("SELECT count(*) FROM t", &[]).unwrap().get(0);
    assert_eq!(rows, 8, "the data itself survives");
}
