//! The `postgres` crate (a real driver using the extended protocol with
//! binary results) against a real server: prepared statements with
//! parameters, typed results, transactions, server errors with SQLSTATEs,
//! and acknowledged rows surviving `kill -9`.

mod common;

use postgres::{Client, NoTls};

fn connect(server: &common::Server) -> Client {
    Client::connect(&server.conninfo(), NoTls).expect("connect")
}

#[test]
fn prepared_statements_parameters_and_binary_results() {
    let server = common::Server::start();
    let mut client = connect(&server);
    client
        .batch_execute(
            "CREATE TABLE items (id bigint NOT NULL, name text, price numeric(10,2), ok boolean)",
        )
        .unwrap();
    let insert = client.prepare("INSERT INTO items VALUES ($1, $2, $3::int4 + 0.5, $4)").unwrap();
    for i in 1..=20i64 {
        client.execute(&insert, &[&i, &format!("item-{i}"), &(i as i32), &(i % 2 == 0)]).unwrap();
    }
    let rows = client
        .query("SELECT id, name, ok FROM items WHERE id > $1 ORDER BY id DESC LIMIT 3", &[&17i64])
        .unwrap();
    let got: Vec<(i64, String, bool)> =
        rows.iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect();
    assert_eq!(
        got,
        vec![
            (20, "item-20".into(), true),
            (19, "item-19".into(), false),
            (18, "item-18".into(), true)
        ]
    );
    let total: String = client.query_one("SELECT sum(price)::text FROM items", &[]).unwrap().get(0);
    assert_eq!(total, "220.00");
    let count: i64 = client.query_one("SELECT count(*) FROM items WHERE ok", &[]).unwrap().get(0);
    assert_eq!(count, 10);
}

/// The crate prepares first and binds what ParameterDescription says, so an
/// untyped `$1` in the select list must be described as `text` (and the
/// result column too) for `&str` to bind; typed parameters keep their types.
#[test]
fn untyped_select_list_parameters_are_text() {
    let server = common::Server::start();
    let mut client = connect(&server);
    let statement = client.prepare("SELECT $1 AS v").unwrap();
    assert_eq!(statement.params(), &[postgres::types::Type::TEXT]);
    assert_eq!(statement.columns()[0].type_(), &postgres::types::Type::TEXT);
    for value in ["x", "y"] {
        let got: String = client.query_one(&statement, &[&value]).unwrap().get(0);
        assert_eq!(got, value);
    }
    let row = client.query_one("SELECT $1, $2", &[&"a", &"b"]).unwrap();
    assert_eq!((row.get::<_, String>(0), row.get::<_, String>(1)), ("a".into(), "b".into()));
    let sum: i32 = client.query_one("SELECT $1::int + 1", &[&41i32]).unwrap().get(0);
    assert_eq!(sum, 42);
    client.batch_execute("CREATE TABLE untyped (n bigint)").unwrap();
    let insert = client.prepare("INSERT INTO untyped VALUES ($1)").unwrap();
    assert_eq!(insert.params(), &[postgres::types::Type::INT8]);
    client.execute(&insert, &[&7i64]).unwrap();
    let n: i64 = client.query_one("SELECT n FROM untyped", &[]).unwrap().get(0);
    assert_eq!(n, 7);
}

#[test]
fn transactions_and_server_errors() {
    let server = common::Server::start();
    let mut client = connect(&server);
    client.batch_execute("CREATE TABLE acct (id int NOT NULL, balance bigint)").unwrap();
    client.batch_execute("INSERT INTO acct VALUES (1, 100), (2, 100)").unwrap();
    let mut txn = client.transaction().unwrap();
    txn.execute("UPDATE acct SET balance = balance - 30 WHERE id = 1", &[]).unwrap();
    txn.execute("UPDATE acct SET balance = balance + 30 WHERE id = 2", &[]).unwrap();
    txn.rollback().unwrap();
    let sum: i64 = client
        .query_one("SELECT sum(balance)::bigint FROM acct WHERE balance = 100", &[])
        .unwrap()
        .get(0);
    assert_eq!(sum, 200, "rolled back");
    let err = client.execute("INSERT INTO acct VALUES (NULL, 1)", &[]).unwrap_err();
    let db = err.as_db_error().expect("server error");
    assert_eq!(db.code().code(), "23502");
    assert_eq!(
        db.message(),
        "null value in column \"id\" of relation \"acct\" violates not-null constraint"
    );
    let err = client.query("SELECT nope FROM acct", &[]).unwrap_err();
    assert_eq!(err.as_db_error().unwrap().code().code(), "42703");
    let err = client.query("SELEC 1", &[]).unwrap_err();
    assert_eq!(err.as_db_error().unwrap().code().code(), "42601");
    // The session is still usable after errors.
    let one: i32 = client.query_one("SELECT 1", &[]).unwrap().get(0);
    assert_eq!(one, 1);
}

#[test]
fn acknowledged_rows_survive_kill_minus_nine() {
    let mut server = common::Server::start();
    let mut acknowledged = 0i64;
    {
        let mut client = connect(&server);
        client.batch_execute("CREATE TABLE log (n bigint)").unwrap();
        let insert = client.prepare("INSERT INTO log VALUES ($1)").unwrap();
        for n in 1..=300i64 {
            client.execute(&insert, &[&n]).unwrap();
            acknowledged = n;
        }
    }
    server.kill();
    server.spawn();
    let mut client = connect(&server);
    let count: i64 = client.query_one("SELECT count(*) FROM log", &[]).unwrap().get(0);
    assert_eq!(count, acknowledged, "every acknowledged insert is present after recovery");
}

#[test]
fn pg_stat_activity_shows_sessions_and_the_horizon_they_hold() {
    let server = common::Server::start();
    let mut holder = connect(&server);
    let mut watcher = connect(&server);
    let pid: i32 = holder.query_one("SELECT pg_backend_pid()", &[]).unwrap().get(0);
    holder.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT 1").unwrap();
    let row = watcher
        .query_one(
            "SELECT state, backend_xmin IS NOT NULL, query FROM pg_stat_activity WHERE pid = $1",
            &[&pid],
        )
        .unwrap();
    let (state, holds_xmin, query): (String, bool, String) = (row.get(0), row.get(1), row.get(2));
    assert_eq!(state, "idle in transaction");
    assert!(holds_xmin, "a REPEATABLE READ snapshot pins backend_xmin");
    assert_eq!(query, "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT 1");
    holder.batch_execute("COMMIT").unwrap();
    let row = watcher
        .query_one(
            "SELECT state, backend_xmin IS NULL FROM pg_stat_activity WHERE pid = $1",
            &[&pid],
        )
        .unwrap();
    assert_eq!((row.get::<_, String>(0), row.get::<_, bool>(1)), ("idle".to_string(), true));
    let me: String = watcher
        .query_one("SELECT state FROM pg_stat_activity WHERE pid = pg_backend_pid()", &[])
        .unwrap()
        .get(0);
    assert_eq!(me, "active");
}

#[test]
fn pg_locks_shows_table_and_transaction_locks() {
    let server = common::Server::start();
    let mut writer = connect(&server);
    let mut watcher = connect(&server);
    writer.batch_execute("CREATE TABLE locked (id int)").unwrap();
    let pid: i32 = writer.query_one("SELECT pg_backend_pid()", &[]).unwrap().get(0);
    writer.batch_execute("BEGIN; INSERT INTO locked VALUES (1)").unwrap();
    let rows = watcher
        .query(
            "SELECT locktype, mode, granted FROM pg_locks WHERE pid = $1 ORDER BY locktype",
            &[&pid],
        )
        .unwrap();
    let locks: Vec<(String, String, bool)> =
        rows.iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect();
    assert_eq!(
        locks,
        vec![
            ("relation".to_string(), "RowExclusiveLock".to_string(), true),
            ("transactionid".to_string(), "ExclusiveLock".to_string(), true),
        ]
    );
    writer.batch_execute("COMMIT").unwrap();
    let left: i64 =
        watcher.query_one("SELECT count(*) FROM pg_locks WHERE pid = $1", &[&pid]).unwrap().get(0);
    assert_eq!(left, 0, "locks are released at commit");
}

#[test]
fn lock_timeout_and_nowait_end_waits_with_55p03() {
    let server = common::Server::start();
    let mut holder = connect(&server);
    let mut waiter = connect(&server);
    holder.batch_execute("CREATE TABLE busy (id int)").unwrap();
    holder.batch_execute("BEGIN; LOCK TABLE busy IN ACCESS EXCLUSIVE MODE").unwrap();
    waiter.batch_execute("SET lock_timeout = '100ms'").unwrap();
    let started = std::time::Instant::now();
    let err = waiter.query("SELECT * FROM busy", &[]).unwrap_err();
    let db = err.as_db_error().expect("server error");
    assert_eq!(
        (db.code().code(), db.message()),
        ("55P03", "canceling statement due to lock timeout")
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    let err = waiter.batch_execute("BEGIN; LOCK TABLE busy IN SHARE MODE NOWAIT").unwrap_err();
    let db = err.as_db_error().expect("server error");
    assert_eq!(
        (db.code().code(), db.message()),
        ("55P03", "could not obtain lock on relation \"busy\"")
    );
    waiter.batch_execute("ROLLBACK").unwrap();
    holder.batch_execute("COMMIT").unwrap();
    waiter.batch_execute("SELECT * FROM busy").unwrap();
}

#[test]
fn prepared_statements_answer_describe_from_parse_and_refuse_a_changed_result() {
    let server = common::Server::start();
    let mut client = connect(&server);
    client.batch_execute("CREATE TABLE p (a int, b text); INSERT INTO p VALUES (1, 'x')").unwrap();
    let stmt = client.prepare("SELECT * FROM p WHERE a = $1").unwrap();
    assert_eq!(stmt.columns().len(), 2);
    for _ in 0..3 {
        let rows = client.query(&stmt, &[&1i32]).unwrap();
        assert_eq!(rows[0].get::<_, String>(1), "x");
    }
    // The table is replaced by one of another shape: PostgreSQL's
    // "cached plan must not change result type".
    client.batch_execute("DROP TABLE p; CREATE TABLE p (a int)").unwrap();
    let err = client.query(&stmt, &[&1i32]).unwrap_err();
    assert_eq!(err.code().map(|c| c.code()), Some("0A000"), "{err}");
    let message = err.as_db_error().map(|e| e.message().to_string()).unwrap_or_default();
    assert_eq!(message, "cached plan must not change result type");
    // A statement prepared now sees the new shape.
    let fresh = client.prepare("SELECT * FROM p").unwrap();
    assert_eq!(fresh.columns().len(), 1);
}
