//! Controlling sessions from the outside and by time, through the `postgres`
//! crate against the real binary: `idle_in_transaction_session_timeout`,
//! `idle_session_timeout`, `transaction_timeout` (each ends the session with
//! its FATAL SQLSTATE), `pg_cancel_backend` / `pg_terminate_backend` on idle
//! and busy sessions, a client that vanishes mid-statement (its query is
//! cancelled, not run to its end), and `ALTER SYSTEM` with `pg_reload_conf()`
//! persisting across a restart; settings given at connection time through
//! the startup packet's `options` (libpq's PGOPTIONS).

mod common;

use postgres::error::SqlState;
use postgres::{Client, NoTls};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::thread;
use std::time::{Duration, Instant};

fn connect(server: &common::Server) -> Client {
    Client::connect(&server.conninfo(), NoTls).expect("connect")
}

/// The SQLSTATE of a failed call.
fn code<T: std::fmt::Debug>(result: Result<T, postgres::Error>) -> String {
    let error = result.expect_err("the call should fail");
    error.code().map(|c| c.code().to_string()).unwrap_or_else(|| format!("no SQLSTATE: {error}"))
}

fn backend_pid(client: &mut Client) -> i32 {
    client.query_one("SELECT pg_backend_pid()", &[]).unwrap().get(0)
}

#[test]
fn idle_in_transaction_timeout_ends_the_session() {
    let server = common::Server::start();
    let mut client = connect(&server);
    client.batch_execute("SET idle_in_transaction_session_timeout = '200ms'").unwrap();
    // Idle outside a transaction: no timeout.
    thread::sleep(Duration::from_millis(400));
    client.batch_execute("BEGIN").unwrap();
    thread::sleep(Duration::from_millis(600));
    assert_eq!(code(client.batch_execute("SELECT 1")), "25P03");
    assert!(client.is_closed() || client.batch_execute("SELECT 1").is_err());
}

#[test]
fn idle_session_timeout_ends_an_idle_session() {
    let server = common::Server::start();
    let mut client = connect(&server);
    client.batch_execute("SET idle_session_timeout = '200ms'").unwrap();
    // A statement that runs longer than the timeout is not idle time.
    client.batch_execute("SELECT pg_sleep(0.4)").unwrap();
    thread::sleep(Duration::from_millis(600));
    assert_eq!(code(client.batch_execute("SELECT 1")), "57P05");
}

#[test]
fn transaction_timeout_ends_running_and_idle_transactions() {
    let server = common::Server::start();
    let mut client = connect(&server);
    client.batch_execute("SET transaction_timeout = '300ms'").unwrap();
    // Short transactions are unaffected.
    for _ in 0..3 {
        client.batch_execute("BEGIN; SELECT 1; COMMIT").unwrap();
    }
    // The running statement is a lock wait, which sends nothing before the
    // FATAL report: the driver drops results it has not handed over yet when
    // the connection closes, so an earlier RowDescription could hide the report.
    let mut holder = connect(&server);
    holder.batch_execute("CREATE TABLE t (id int)").unwrap();
    holder.batch_execute("BEGIN; LOCK TABLE t").unwrap();
    client.batch_execute("BEGIN").unwrap();
    let started = Instant::now();
    // tokio-postgres sometimes reports the FATAL that closes the connection as
    // "connection closed" (its connection task can end before the response is
    // handed over); the SQLSTATE is checked with psycopg in tests/python.
    let ended = code(client.batch_execute("LOCK TABLE t"));
    assert!(ended == "25P04" || ended.contains("connection closed"), "{ended}");
    assert!(started.elapsed() < Duration::from_secs(3), "the timeout ended the lock wait");
    holder.batch_execute("COMMIT").unwrap();

    let mut idle = connect(&server);
    idle.batch_execute("SET transaction_timeout = '300ms'; BEGIN").unwrap();
    thread::sleep(Duration::from_millis(700));
    assert_eq!(code(idle.batch_execute("SELECT 1")), "25P04");
}

#[test]
fn cancel_and_terminate_other_backends() {
    let server = common::Server::start();
    let mut admin = connect(&server);
    let mut busy = connect(&server);
    let busy_pid = backend_pid(&mut busy);
    let sleeper = thread::spawn(move || {
        let result = busy.batch_execute("SELECT pg_sleep(30)");
        (busy, result)
    });
    thread::sleep(Duration::from_millis(300));
    let sent: bool = admin.query_one("SELECT pg_cancel_backend($1)", &[&busy_pid]).unwrap().get(0);
    assert!(sent);
    let (mut busy, result) = sleeper.join().unwrap();
    assert_eq!(code(result), SqlState::QUERY_CANCELED.code());
    // Cancel ends the statement, not the session.
    busy.batch_execute("SELECT 1").unwrap();

    // Terminating an idle session wakes it: its next command finds it gone.
    let sent: bool =
        admin.query_one("SELECT pg_terminate_backend($1)", &[&busy_pid]).unwrap().get(0);
    assert!(sent);
    thread::sleep(Duration::from_millis(200));
    assert!(busy.batch_execute("SELECT 1").is_err());
    let gone: i64 = admin
        .query_one("SELECT count(*) FROM pg_stat_activity WHERE pid = $1", &[&busy_pid])
        .unwrap()
        .get(0);
    assert_eq!(gone, 0, "the terminated session left pg_stat_activity");

    let unknown: bool = admin.query_one("SELECT pg_cancel_backend(1)", &[]).unwrap().get(0);
    assert!(!unknown);
    assert_eq!(code(admin.batch_execute("SELECT pg_terminate_backend(1, -1)")), "22023");
    // The session ends (the FATAL may reach the driver after the result row).
    let _ = admin.batch_execute("SELECT pg_terminate_backend(pg_backend_pid())");
    assert!(admin.batch_execute("SELECT 1").is_err(), "the session terminated itself");
}

/// A length-prefixed protocol packet: `tag` (none for the startup packet),
/// then the length word, then `body`.
fn packet(tag: Option<u8>, body: &[u8]) -> Vec<u8> {
    let mut out: Vec<u8> = tag.into_iter().collect();
    out.extend_from_slice(&((body.len() + 4) as u32).to_be_bytes());
    out.extend_from_slice(body);
    out
}

/// start_query -- as a bare protocol client: logs in and sends `sql` as a
/// simple query without reading its result. Dropping the stream closes the
/// socket as a killed client's kernel would.
fn start_query(port: u16, sql: &str) -> TcpStream {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let startup = [&196_608u32.to_be_bytes()[..], b"user\0postgres\0database\0postgres\0\0"];
    stream.write_all(&packet(None, &startup.concat())).unwrap();
    // Read up to ReadyForQuery ('Z', then length 5 and the status byte).
    let mut seen = Vec::new();
    while !seen.windows(6).any(|w| w[0] == b'Z' && w[1..5] == 5u32.to_be_bytes()) {
        let mut buf = [0u8; 4096];
        let n = stream.read(&mut buf).expect("startup reply");
        assert!(n > 0, "the server closed the connection during startup");
        seen.extend_from_slice(&buf[..n]);
    }
    stream.write_all(&packet(Some(b'Q'), format!("{sql}\0").as_bytes())).unwrap();
    stream
}

/// wait_for -- polls `probe` every 50 ms until it returns `want` or `limit`
/// passes; how long it took, or None.
fn wait_for(limit: Duration, want: i64, mut probe: impl FnMut() -> i64) -> Option<Duration> {
    let started = Instant::now();
    while started.elapsed() < limit {
        if probe() == want {
            return Some(started.elapsed());
        }
        thread::sleep(Duration::from_millis(50));
    }
    None
}

#[test]
fn a_vanished_client_cancels_its_running_query() {
    let server = common::Server::start();
    let mut admin = connect(&server);
    // Alone, this runs for many minutes and sends nothing until its end.
    let client = start_query(
        server.port,
        "SELECT count(*) FROM generate_series(1, 10000000000) AS vanishing",
    );
    let mut running = || -> i64 {
        let sql = "SELECT count(*) FROM pg_stat_activity \
                   WHERE state = 'active' AND query LIKE '%AS vanishing'";
        admin.query_one(sql, &[]).unwrap().get(0)
    };
    assert!(wait_for(Duration::from_secs(5), 1, &mut running).is_some(), "the query started");
    thread::sleep(Duration::from_millis(500));
    assert_eq!(running(), 1, "the query runs while its client is there");
    drop(client);
    let ended = wait_for(Duration::from_secs(5), 0, &mut running);
    assert!(ended.is_some(), "the vanished client's query still runs 5 s later");
}

#[test]
fn alter_system_persists_and_reload_applies() {
    let mut server = common::Server::start();
    let mut client = connect(&server);
    assert_eq!(code(client.batch_execute("BEGIN; ALTER SYSTEM SET work_mem = '8MB'")), "25001");
    client.batch_execute("ROLLBACK").unwrap();
    assert_eq!(code(client.batch_execute("ALTER SYSTEM SET no_such_setting = 1")), "42704");
    client.batch_execute("ALTER SYSTEM SET work_mem = '8MB'").unwrap();
    let show = |c: &mut Client| -> String { c.query_one("SHOW work_mem", &[]).unwrap().get(0) };
    assert_eq!(show(&mut client), "4MB", "not applied before a reload");
    let reloaded: bool = client.query_one("SELECT pg_reload_conf()", &[]).unwrap().get(0);
    assert!(reloaded);
    assert_eq!(show(&mut client), "8MB");
    let mut other = connect(&server);
    assert_eq!(show(&mut other), "8MB");

    drop((client, other));
    server.stop();
    server.spawn();
    let mut client = connect(&server);
    assert_eq!(show(&mut client), "8MB", "postgresql.auto.conf is read at start");
    client.batch_execute("ALTER SYSTEM RESET work_mem").unwrap();
    client.query_one("SELECT pg_reload_conf()", &[]).unwrap();
    assert_eq!(show(&mut client), "4MB");
}

#[test]
fn startup_options_set_the_sessions_settings() {
    // libpq's PGOPTIONS arrive as the startup packet's `options`; pg_regress
    // and isolationtester set IntervalStyle and statement_timeout this way.
    let server = common::Server::start();
    let options = r"-c statement_timeout=300ms --work-mem=1MB -c intervalstyle=postgres_verbose -c application_name=a\ b";
    let conninfo = format!("{} options='{}'", server.conninfo(), options.replace('\\', "\\\\"));
    let mut client = Client::connect(&conninfo, NoTls).expect("connect");
    let show = |client: &mut Client, name: &str| -> String {
        client.query_one(&format!("SHOW {name}"), &[]).unwrap().get(0)
    };
    assert_eq!(show(&mut client, "IntervalStyle"), "postgres_verbose");
    assert_eq!(show(&mut client, "application_name"), "a b");
    assert_eq!(show(&mut client, "work_mem"), "1MB");
    assert_eq!(code(client.batch_execute("SELECT pg_sleep(2)")), "57014");
    let refused = Client::connect(&format!("{} options='-d 5'", server.conninfo()), NoTls);
    assert_eq!(code(refused.map(|_| ())), "42601");
}
