//! Executor nodes past `work_mem` spill to temporary files in
//! `base/pgsql_tmp`: the files appear while a statement runs, are gone when
//! it ends however it ends (done, closed, cancelled, timed out), and a
//! crashed server's leftovers are removed when it starts again. What the
//! spilled queries return is checked against PostgreSQL by the
//! `tests/regress/sql/spill.sql` golden file; the order of a spilled hash
//! aggregation, which PostgreSQL does not share, is checked here.

mod common;

use postgres::{Client, NoTls};
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

fn connect(server: &common::Server) -> Client {
    Client::connect(&server.conninfo(), NoTls).expect("connect")
}

/// The names of the temporary files in the server's data directory.
fn temp_files(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir.join("base/pgsql_tmp")) else { return Vec::new() };
    entries.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect()
}

/// Waits until `dir` has temporary files (`want`) or none (`!want`).
fn wait_for_files(dir: &Path, want: bool) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let files = temp_files(dir);
        if files.is_empty() != want {
            return files;
        }
        assert!(Instant::now() < deadline, "temporary files never became {want}: {files:?}");
        thread::sleep(Duration::from_millis(10));
    }
}

fn sqlstate(e: &postgres::Error) -> String {
    e.code().map(|c| c.code().to_string()).unwrap_or_else(|| e.to_string())
}

fn message(e: &postgres::Error) -> String {
    e.as_db_error().map_or_else(|| e.to_string(), |d| d.message().to_string())
}

#[test]
fn a_sort_far_above_work_mem_spills_and_cleans_up() {
    let server = common::Server::start();
    let mut client = connect(&server);
    client.batch_execute("SET work_mem = '64kB'").unwrap();
    let runner = thread::spawn(move || {
        let sql = "SELECT x FROM generate_series(1, 1000000) x ORDER BY x DESC OFFSET 999999";
        client.query_one(sql, &[]).map(|row| row.get::<_, i32>(0))
    });
    // The sort writes its runs while it reads its input.
    let files = wait_for_files(server.dir.path(), true);
    let prefix = format!("pgsql_tmp{}.", server.pid());
    assert!(files.iter().all(|f| f.starts_with(&prefix)), "{files:?} named {prefix}N");
    assert_eq!(runner.join().unwrap().unwrap(), 1);
    assert_eq!(temp_files(server.dir.path()), Vec::<String>::new(), "gone with the statement");
}

#[test]
fn every_spilling_node_writes_temporary_files() {
    let server = common::Server::start();
    let queries = [
        // Hash join in batches.
        "SELECT count(*) FROM generate_series(1, 300000) a(x) \
         JOIN generate_series(1, 300000) b(y) ON a.x = b.y",
        // A nested loop's materialised inner side.
        "SELECT count(*) FROM generate_series(1, 300) a(x) JOIN (SELECT y, repeat('x', 200) \
         AS pad FROM generate_series(1, 500) y WHERE y > 0) b ON b.y <= a.x",
        // A WITH query's rows, read twice.
        "WITH t AS (SELECT x FROM generate_series(1, 300000) x) \
         SELECT (SELECT count(*) FROM t), (SELECT sum(x) FROM t)",
        // Recursive working tables.
        "WITH RECURSIVE r(n, l) AS (SELECT x, 0 FROM generate_series(1, 50000) x \
         UNION ALL SELECT n, l + 1 FROM r WHERE l < 10) SELECT count(*) FROM r",
        // Hash aggregation.
        "SELECT count(*) FROM (SELECT x % 200000, count(*) FROM generate_series(1, 300000) x \
         GROUP BY 1) g",
        // INTERSECT's sort.
        "SELECT count(*) FROM (SELECT x FROM generate_series(1, 300000) x \
         INTERSECT SELECT x FROM generate_series(1, 300000) x) s",
    ];
    for query in queries {
        let mut client = connect(&server);
        client.batch_execute("SET work_mem = '64kB'").unwrap();
        let runner = thread::spawn(move || client.batch_execute(query));
        wait_for_files(server.dir.path(), true);
        runner.join().unwrap().unwrap_or_else(|e| panic!("{query}: {}", message(&e)));
        assert_eq!(temp_files(server.dir.path()), Vec::<String>::new(), "after {query}");
    }
}

#[test]
fn cancelled_and_timed_out_statements_remove_their_files() {
    let server = common::Server::start();
    let mut client = connect(&server);
    client.batch_execute("SET work_mem = '64kB'").unwrap();
    let pid: i32 = client.query_one("SELECT pg_backend_pid()", &[]).unwrap().get(0);
    let long =
        "SELECT count(*) FROM (SELECT x FROM generate_series(1, 100000000) x ORDER BY x DESC) s";
    let runner = thread::spawn(move || {
        let result = client.batch_execute(long).map_err(|e| sqlstate(&e));
        (client, result)
    });
    wait_for_files(server.dir.path(), true);
    connect(&server).batch_execute(&format!("SELECT pg_cancel_backend({pid})")).unwrap();
    let (mut client, result) = runner.join().unwrap();
    assert_eq!(result, Err("57014".into()));
    assert_eq!(temp_files(server.dir.path()), Vec::<String>::new());

    client.batch_execute("SET statement_timeout = '1s'").unwrap();
    let err = client.batch_execute(long).expect_err("times out");
    assert_eq!(sqlstate(&err), "57014");
    assert_eq!(message(&err), "canceling statement due to statement timeout");
    assert_eq!(temp_files(server.dir.path()), Vec::<String>::new());
}

#[test]
fn a_spilled_hash_aggregate_keeps_first_seen_order() {
    let server = common::Server::start();
    let mut client = connect(&server);
    client.batch_execute("SET work_mem = '64kB'").unwrap();
    let query = "SELECT k, count(*) FROM (SELECT (x * 7919) % 50000 AS k \
                 FROM generate_series(1, 100000) x) s GROUP BY k";
    let plan: Vec<String> = client
        .query(&format!("EXPLAIN (COSTS OFF) {query}"), &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(plan[0].starts_with("HashAggregate"), "{plan:?}");
    let rows = client.query(query, &[]).unwrap();
    let mut expected = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for x in 1..=100_000i64 {
        let k = (x * 7919) % 50_000;
        if seen.insert(k) {
            expected.push(k as i32);
        }
    }
    let got: Vec<i32> = rows.iter().map(|r| r.get(0)).collect();
    assert_eq!(got.len(), expected.len());
    assert!(got == expected, "groups leave in the order their first rows came");
    assert!(rows.iter().all(|r| r.get::<_, i64>(1) == 2));
}

#[test]
fn leftover_files_are_removed_at_start_unless_kept_after_a_crash() {
    let mut server = common::Server::start();
    let dir: PathBuf = server.dir.path().join("base/pgsql_tmp");
    let leftover = |name: &str| {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(name), b"spilled rows").unwrap();
    };
    server.stop();
    leftover("pgsql_tmp4242.7");
    server.spawn();
    assert_eq!(temp_files(server.dir.path()), Vec::<String>::new());

    server.kill();
    leftover("pgsql_tmp4242.8");
    server.spawn_with(&["remove_temp_files_after_crash=off"]);
    assert_eq!(temp_files(server.dir.path()), vec!["pgsql_tmp4242.8".to_string()]);
    server.kill();
    server.spawn();
    assert_eq!(temp_files(server.dir.path()), Vec::<String>::new());
}
