//! Advisory locks across real connections (the `postgres` crate against the
//! binary), for what neither a golden script nor isolationtester can show:
//! a session's locks go when its connection closes, and waits end by
//! `lock_timeout`, cancel and deadlock detection with PostgreSQL's SQLSTATEs.

mod common;

use postgres::{Client, NoTls};
use std::thread;
use std::time::{Duration, Instant};

fn connect(server: &common::Server) -> Client {
    Client::connect(&server.conninfo(), NoTls).expect("connect")
}

fn try_lock(client: &mut Client, key: i64) -> bool {
    client.query_one("SELECT pg_try_advisory_lock($1)", &[&key]).unwrap().get(0)
}

/// The SQLSTATE of a failed call.
fn code<T: std::fmt::Debug>(result: Result<T, postgres::Error>) -> String {
    let error = result.expect_err("the call should fail");
    error.code().map(|c| c.code().to_string()).unwrap_or_else(|| format!("no SQLSTATE: {error}"))
}

/// Waits until some backend waits for an advisory lock.
fn until_waiting(client: &mut Client) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let sql = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted";
    while client.query_one(sql, &[]).unwrap().get::<_, i64>(0) == 0 {
        assert!(Instant::now() < deadline, "nobody started waiting");
        thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_closed_session_gives_back_its_advisory_locks() {
    let server = common::Server::start();
    let mut holder = connect(&server);
    let mut other = connect(&server);
    holder.batch_execute("SELECT pg_advisory_lock(7); SELECT pg_advisory_lock(7)").unwrap();
    assert!(!try_lock(&mut other, 7));
    drop(holder);
    // The backend exits asynchronously after the connection closes.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !try_lock(&mut other, 7) {
        assert!(Instant::now() < deadline, "the closed session's lock stayed");
        thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn advisory_lock_waits_end_by_timeout_cancel_and_deadlock() {
    let server = common::Server::start();
    let mut a = connect(&server);
    let mut b = connect(&server);
    a.batch_execute("SELECT pg_advisory_lock(1)").unwrap();
    b.batch_execute("SET lock_timeout = '100ms'").unwrap();
    assert_eq!(code(b.batch_execute("SELECT pg_advisory_lock(1)")), "55P03");
    b.batch_execute("RESET lock_timeout").unwrap();

    // Cancel.
    let b_pid: i32 = b.query_one("SELECT pg_backend_pid()", &[]).unwrap().get(0);
    let waiter = thread::spawn(move || {
        let result = code(b.batch_execute("SELECT pg_advisory_lock(1)"));
        (b, result)
    });
    until_waiting(&mut a);
    a.batch_execute(&format!("SELECT pg_cancel_backend({b_pid})")).unwrap();
    let (mut b, result) = waiter.join().unwrap();
    assert_eq!(result, "57014");

    // Deadlock: a holds 1 and wants 2, b holds 2 and wants 1.
    b.batch_execute("SET deadlock_timeout = '50ms'; SELECT pg_advisory_lock(2)").unwrap();
    let waiter = thread::spawn(move || {
        let result = code(b.batch_execute("SELECT pg_advisory_lock(1)"));
        // The failed wait leaves b's own lock held: give it up for a.
        b.batch_execute("SELECT pg_advisory_unlock(2)").unwrap();
        result
    });
    until_waiting(&mut a);
    let mine = a.batch_execute("SET deadlock_timeout = '10s'; SELECT pg_advisory_lock(2)");
    // b detects the cycle (its deadlock_timeout is the shorter) and fails.
    assert_eq!(waiter.join().unwrap(), "40P01");
    assert!(mine.is_ok(), "{mine:?}");
}
