//! Caches against several real sessions. The shared catalog cache: DDL
//! another session has not committed stays invisible, a commit is seen by
//! the next statement everywhere, a rollback leaves nothing behind, and a
//! transaction sees its own uncommitted DDL (`sluice_access::catcache`,
//! `sluice_txn`'s `inval.rs`). Kept plans of prepared statements: planned
//! again after DDL or a settings change, and still taking their locks
//! (`sluice_sql`'s `plancache.rs`).

mod common;

use postgres::{Client, NoTls};

fn connect(server: &common::Server) -> Client {
    Client::connect(&server.conninfo(), NoTls).expect("connect")
}

fn sqlstate(e: &postgres::Error) -> String {
    e.code().map(|c| c.code().to_string()).unwrap_or_else(|| format!("{e}"))
}

fn columns(client: &mut Client, table: &str) -> Vec<String> {
    let sql = format!("SELECT * FROM {table} LIMIT 0");
    let statement = client.prepare(&sql).expect("prepare");
    statement.columns().iter().map(|c| c.name().to_string()).collect()
}

#[test]
fn ddl_becomes_visible_to_other_sessions_exactly_at_commit() {
    let server = common::Server::start();
    let (mut ddl, mut reader) = (connect(&server), connect(&server));
    ddl.batch_execute("CREATE TABLE t (a int)").unwrap();
    // The reader fills the cache with the table as committed.
    assert_eq!(columns(&mut reader, "t"), vec!["a"]);

    ddl.batch_execute("BEGIN; CREATE TABLE u (x int); INSERT INTO u VALUES (1)").unwrap();
    // The creator sees its own table; nobody else does yet.
    let own: i64 = ddl.query_one("SELECT count(*) FROM u", &[]).unwrap().get(0);
    assert_eq!(own, 1);
    let err = reader.query("SELECT * FROM u", &[]).unwrap_err();
    assert_eq!(sqlstate(&err), "42P01");
    assert_eq!(columns(&mut reader, "t"), vec!["a"]);
    ddl.batch_execute("COMMIT").unwrap();
    let seen: i64 = reader.query_one("SELECT count(*) FROM u", &[]).unwrap().get(0);
    assert_eq!(seen, 1);

    ddl.batch_execute("DROP TABLE u").unwrap();
    let err = reader.query("SELECT * FROM u", &[]).unwrap_err();
    assert_eq!(sqlstate(&err), "42P01");
}

#[test]
fn rolled_back_ddl_leaves_the_cache_as_it_was() {
    let server = common::Server::start();
    let (mut ddl, mut reader) = (connect(&server), connect(&server));
    ddl.batch_execute("CREATE TABLE t (a int); INSERT INTO t VALUES (1)").unwrap();
    assert_eq!(columns(&mut reader, "t"), vec!["a"]);
    ddl.batch_execute("BEGIN; DROP TABLE t; CREATE TABLE t (b text, c text)").unwrap();
    assert_eq!(columns(&mut ddl, "t"), vec!["b", "c"]);
    // (The reader would wait for the DROP's lock here, as in PostgreSQL.)
    ddl.batch_execute("ROLLBACK").unwrap();
    assert_eq!(columns(&mut ddl, "t"), vec!["a"]);
    let n: i64 = reader.query_one("SELECT count(*) FROM t", &[]).unwrap().get(0);
    assert_eq!(n, 1);
}

#[test]
fn an_index_created_by_another_session_is_maintained_and_used() {
    let server = common::Server::start();
    let (mut ddl, mut writer) = (connect(&server), connect(&server));
    ddl.batch_execute("CREATE TABLE t (id int, v text)").unwrap();
    // The writer's inserts run with the table described from the cache...
    writer.batch_execute("INSERT INTO t VALUES (1, 'a')").unwrap();
    ddl.batch_execute("CREATE UNIQUE INDEX t_id ON t (id)").unwrap();
    // ... and its next insert must see the new index: a duplicate fails.
    let err = writer.batch_execute("INSERT INTO t VALUES (1, 'b')").unwrap_err();
    assert_eq!(sqlstate(&err), "23505");
    writer.batch_execute("INSERT INTO t VALUES (2, 'b')").unwrap();
    ddl.batch_execute("SET enable_seqscan = off").unwrap();
    let v: String = ddl.query_one("SELECT v FROM t WHERE id = 2", &[]).unwrap().get(0);
    assert_eq!(v, "b");
}

#[test]
fn a_kept_plan_notices_ddl_committed_by_another_session() {
    let server = common::Server::start();
    let (mut ddl, mut client) = (connect(&server), connect(&server));
    ddl.batch_execute("CREATE TABLE t (id int, v text); INSERT INTO t VALUES (1, 'a')").unwrap();
    let by_id = client.prepare("SELECT * FROM t WHERE id = $1").unwrap();
    for _ in 0..3 {
        assert_eq!(client.query(&by_id, &[&1i32]).unwrap().len(), 1);
    }
    ddl.batch_execute("DROP TABLE t; CREATE TABLE t (id int, v text, w int)").unwrap();
    // PostgreSQL's answer for a prepared statement whose result changed.
    let err = client.query(&by_id, &[&1i32]).unwrap_err();
    assert_eq!(sqlstate(&err), "0A000");
    let count = client.prepare("SELECT count(*) FROM t").unwrap();
    assert_eq!(client.query_one(&count, &[]).unwrap().get::<_, i64>(0), 0);
    ddl.batch_execute("DROP TABLE t").unwrap();
    let err = client.query(&count, &[]).unwrap_err();
    assert_eq!(sqlstate(&err), "42P01");
}

#[test]
fn a_kept_plan_follows_the_settings_it_was_planned_under() {
    let server = common::Server::start();
    let mut client = connect(&server);
    // Heap order is descending, index order ascending: the rows' order
    // shows which scan ran.
    client
        .batch_execute(
            "CREATE TABLE t (id int); INSERT INTO t SELECT 11 - g FROM generate_series(1, 10) g;
             CREATE INDEX t_id ON t (id); ANALYZE t",
        )
        .unwrap();
    let first = client.prepare("SELECT id FROM t WHERE id > $1 LIMIT 3").unwrap();
    let ids = |client: &mut Client| -> Vec<i32> {
        client.query(&first, &[&0i32]).unwrap().iter().map(|r| r.get(0)).collect()
    };
    assert_eq!(ids(&mut client), vec![10, 9, 8], "a sequential scan");
    client.batch_execute("SET enable_seqscan = off").unwrap();
    assert_eq!(ids(&mut client), vec![1, 2, 3], "planned again: an index scan");
    client.batch_execute("RESET enable_seqscan").unwrap();
    assert_eq!(ids(&mut client), vec![10, 9, 8]);
}

#[test]
fn a_kept_plan_still_waits_for_a_conflicting_lock() {
    let server = common::Server::start();
    let (mut locker, mut client) = (connect(&server), connect(&server));
    locker.batch_execute("CREATE TABLE t (id int); INSERT INTO t VALUES (1)").unwrap();
    let count = client.prepare("SELECT count(*) FROM t").unwrap();
    assert_eq!(client.query_one(&count, &[]).unwrap().get::<_, i64>(0), 1);
    locker
        .batch_execute("BEGIN; LOCK TABLE t IN ACCESS EXCLUSIVE MODE; INSERT INTO t VALUES (2)")
        .unwrap();
    let waiter =
        std::thread::spawn(move || client.query_one(&count, &[]).unwrap().get::<_, i64>(0));
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!waiter.is_finished(), "the kept plan's AccessShare lock must wait");
    locker.batch_execute("COMMIT").unwrap();
    assert_eq!(waiter.join().unwrap(), 2, "and then see the committed row");
}

#[test]
fn kept_insert_update_and_delete_plans_follow_ddl() {
    let server = common::Server::start();
    let (mut ddl, mut app) = (connect(&server), connect(&server));
    ddl.batch_execute("CREATE TABLE t (id int, n int)").unwrap();
    let insert = app.prepare("INSERT INTO t VALUES ($1, 0) RETURNING id").unwrap();
    let update = app.prepare("UPDATE t SET n = n + 1 WHERE id = $1 RETURNING n").unwrap();
    let delete = app.prepare("DELETE FROM t WHERE id = $1").unwrap();
    for id in 1..=3 {
        let row = app.query_one(&insert, &[&id]).unwrap();
        assert_eq!(row.get::<_, i32>(0), id);
    }
    assert_eq!(app.query_one(&update, &[&2]).unwrap().get::<_, i32>(0), 1);

    // A unique index from another session: the kept INSERT must maintain
    // and enforce it, the kept UPDATE must still find its row.
    ddl.batch_execute("CREATE UNIQUE INDEX t_id ON t (id)").unwrap();
    let err = app.query(&insert, &[&2]).unwrap_err();
    assert_eq!(sqlstate(&err), "23505");
    assert_eq!(app.query_one(&update, &[&2]).unwrap().get::<_, i32>(0), 2);
    ddl.batch_execute("SET enable_seqscan = off").unwrap();
    let n: i32 = ddl.query_one("SELECT n FROM t WHERE id = 2", &[]).unwrap().get(0);
    assert_eq!(n, 2);

    // The table recreated with one more column: the kept INSERT writes the
    // new table and fills the column from its default.
    ddl.batch_execute("DROP TABLE t; CREATE TABLE t (id int, n int, note text DEFAULT 'new')")
        .unwrap();
    app.query_one(&insert, &[&4]).unwrap();
    let note: String = ddl.query_one("SELECT note FROM t WHERE id = 4", &[]).unwrap().get(0);
    assert_eq!(note, "new");
    assert_eq!(app.execute(&delete, &[&4]).unwrap(), 1);

    // The table goes: every kept plan fails as PostgreSQL's would.
    ddl.batch_execute("DROP TABLE t").unwrap();
    for result in
        [app.execute(&insert, &[&5]), app.execute(&update, &[&1]), app.execute(&delete, &[&1])]
    {
        assert_eq!(sqlstate(&result.unwrap_err()), "42P01");
    }
}
