//! The server as a real driver sees it: the `postgres` crate (tokio-postgres' sync
//! wrapper), which uses the simple protocol for `simple_query`/`batch_execute` and
//! the extended protocol with named statements and binary results for the rest.

mod common;

use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::Duration;

use common::TestServer;
use postgres::error::SqlState;
use postgres::{NoTls, SimpleQueryMessage};

/// The values of column 0 of the rows in a simple query's answer.
fn simple_values(messages: &[SimpleQueryMessage]) -> Vec<String> {
    messages
        .iter()
        .filter_map(|m| match m {
            SimpleQueryMessage::Row(r) => r.get(0).map(str::to_string),
            _ => None,
        })
        .collect()
}

/// The command tags' row counts in a simple query's answer.
fn completions(messages: &[SimpleQueryMessage]) -> Vec<u64> {
    messages
        .iter()
        .filter_map(|m| match m {
            SimpleQueryMessage::CommandComplete(n) => Some(*n),
            _ => None,
        })
        .collect()
}

#[test]
fn simple_query_with_several_statements() {
    let server = TestServer::start();
    let mut client = server.client();
    let messages = client.simple_query("SELECT 3; SELECT 1").unwrap();
    assert_eq!(simple_values(&messages), ["1", "2", "3", "1"]);
    assert_eq!(completions(&messages), [3, 1]);
    // tokio-postgres reports EmptyQueryResponse as a completion of 0 rows.
    let empty = client.simple_query(" ; ").unwrap();
    assert!(simple_values(&empty).is_empty());
    assert_eq!(completions(&empty), [0]);
}

#[test]
fn prepared_statement_with_parameters_and_binary_results() {
    let server = TestServer::start();
    let mut client = server.client();
    let statement = client.prepare("ECHO $1::int4 $2 lit").unwrap();
    assert_eq!(statement.params(), &[postgres::types::Type::INT4, postgres::types::Type::TEXT]);
    for (n, s) in [(42, "hi"), (-7, "héllo")] {
        let rows = client.query(&statement, &[&n, &s]).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].get::<_, i32>(0), n);
        assert_eq!(rows[0].get::<_, &str>(1), s);
        assert_eq!(rows[0].get::<_, &str>(2), "lit");
    }
    let numbers: Vec<i32> =
        client.query("SELECT 4", &[]).unwrap().iter().map(|r| r.get(0)).collect();
    assert_eq!(numbers, [1, 2, 3, 4]);
    let null: Option<&str> = None;
    let row = client.query_one("ECHO $1", &[&null]).unwrap();
    assert_eq!(row.get::<_, Option<&str>>(0), None);
}

#[test]
fn errors_carry_sqlstate_message_and_leave_the_session_usable() {
    let server = TestServer::start();
    let mut client = server.client();
    let e = client.simple_query("SELECT 1; ERROR 22012 division by zero; SELECT 2").unwrap_err();
    let db = e.as_db_error().expect("a server error");
    assert_eq!(db.code(), &SqlState::DIVISION_BY_ZERO);
    assert_eq!(db.message(), "division by zero");
    assert_eq!(db.severity(), "ERROR");
    let e = client.query("ERROR 42P01 relation \"t\" does not exist", &[]).unwrap_err();
    assert_eq!(e.code(), Some(&SqlState::UNDEFINED_TABLE));
    let e = client.simple_query("BOGUS").unwrap_err();
    assert_eq!(
        e.as_db_error().unwrap().position(),
        Some(&postgres::error::ErrorPosition::Original(1))
    );
    assert_eq!(simple_values(&client.simple_query("SELECT 1").unwrap()), ["1"]);
}

#[test]
fn failed_transaction_block_until_rollback() {
    let server = TestServer::start();
    let mut client = server.client();
    client.batch_execute("BEGIN").unwrap();
    assert!(client.simple_query("ERROR 22012 boom").is_err());
    let e = client.simple_query("SELECT 1").unwrap_err();
    assert_eq!(e.code(), Some(&SqlState::IN_FAILED_SQL_TRANSACTION));
    client.batch_execute("ROLLBACK").unwrap();
    assert_eq!(simple_values(&client.simple_query("SELECT 1").unwrap()), ["1"]);
}

#[test]
fn portal_suspends_at_row_limit() {
    let server = TestServer::start();
    let mut client = server.client();
    let mut tx = client.transaction().unwrap();
    let portal = tx.bind("SELECT 7", &[]).unwrap();
    let mut sizes = Vec::new();
    let mut all = Vec::new();
    loop {
        let rows = tx.query_portal(&portal, 3).unwrap();
        sizes.push(rows.len());
        all.extend(rows.iter().map(|r| r.get::<_, i32>(0)));
        if rows.is_empty() {
            break;
        }
    }
    assert_eq!(sizes, [3, 3, 1, 0]);
    assert_eq!(all, (1..=7).collect::<Vec<_>>());
    tx.commit().unwrap();
}

/// keep_cancelling -- send cancel requests until `done` is set: a request that
/// arrives before the statement started is (rightly) ignored, so one is not enough.
fn keep_cancelling(token: postgres::CancelToken, done: Arc<AtomicBool>) -> thread::JoinHandle<()> {
    thread::spawn(move || {
        while !done.load(Ordering::SeqCst) {
            token.cancel_query(NoTls).unwrap();
            thread::sleep(Duration::from_millis(100));
        }
    })
}

#[test]
fn cancel_interrupts_a_running_statement() {
    let server = TestServer::start();
    let mut client = server.client();
    let done = Arc::new(AtomicBool::new(false));
    let canceller = keep_cancelling(client.cancel_token(), Arc::clone(&done));
    let e = client.simple_query("SLEEP 600").unwrap_err();
    done.store(true, Ordering::SeqCst);
    assert_eq!(e.code(), Some(&SqlState::QUERY_CANCELED));
    assert_eq!(e.as_db_error().unwrap().message(), "canceling statement due to user request");
    canceller.join().unwrap();
    assert_eq!(simple_values(&client.simple_query("SELECT 1").unwrap()), ["1"]);
}

#[test]
fn cancel_while_idle_does_not_hit_the_next_statement() {
    let server = TestServer::start();
    let mut client = server.client();
    client.cancel_token().cancel_query(NoTls).unwrap();
    // cancel_query returns once the request is sent; give the server time to act on
    // it (as in PostgreSQL, a cancel that overtakes the next statement hits it).
    thread::sleep(Duration::from_millis(300));
    client.simple_query("SLEEP 0.2").unwrap();
}

#[test]
fn copy_in_and_out_round_trip() {
    let server = TestServer::start();
    let mut client = server.client();
    let data = b"1\tone\n2\ttwo\n3\tthree\n";
    let mut writer = client.copy_in("COPY t FROM STDIN").unwrap();
    writer.write_all(&data[..7]).unwrap();
    writer.write_all(&data[7..]).unwrap();
    assert_eq!(writer.finish().unwrap(), 3);
    let mut copied = Vec::new();
    client.copy_out("COPY t TO STDOUT").unwrap().read_to_end(&mut copied).unwrap();
    assert_eq!(copied, data);
    let mut aborted = client.copy_in("COPY u FROM STDIN").unwrap();
    aborted.write_all(b"x\n").unwrap();
    drop(aborted);
    assert_eq!(simple_values(&client.simple_query("SELECT 1").unwrap()), ["1"]);
}

#[test]
fn notices_reach_the_client() {
    let server = TestServer::start();
    let (tx, rx) = mpsc::channel();
    let mut config = server.config();
    config.notice_callback(move |n| {
        tx.send((n.severity().to_string(), n.message().to_string())).unwrap()
    });
    let mut client = config.connect(NoTls).unwrap();
    client.batch_execute("NOTICE hello there").unwrap();
    assert_eq!(
        rx.recv_timeout(Duration::from_secs(10)).unwrap(),
        ("NOTICE".into(), "hello there".into())
    );
}

#[test]
fn connect_error_is_fatal() {
    let server = TestServer::start();
    let mut config = server.config();
    config.dbname("nosuchdb");
    let e = config.connect(NoTls).err().unwrap();
    let db = e.as_db_error().expect("server error");
    assert_eq!(db.code(), &SqlState::INVALID_CATALOG_NAME);
    assert_eq!(db.severity(), "FATAL");
    assert_eq!(db.message(), "database \"nosuchdb\" does not exist");
}

#[test]
fn a_blocked_session_blocks_nobody_else() {
    let server = TestServer::start();
    let mut sleeper = server.client();
    let token = sleeper.cancel_token();
    let handle = thread::spawn(move || sleeper.simple_query("SLEEP 600").map(|_| ()));
    // If sessions shared a thread or a lock these would wait ten minutes.
    let mut others: Vec<_> = (0..4).map(|_| server.client()).collect();
    for client in &mut others {
        assert_eq!(client.query("SELECT 2", &[]).unwrap().len(), 2);
    }
    assert!(!handle.is_finished());
    let done = Arc::new(AtomicBool::new(false));
    let canceller = keep_cancelling(token, Arc::clone(&done));
    let e = handle.join().unwrap().unwrap_err();
    done.store(true, Ordering::SeqCst);
    canceller.join().unwrap();
    assert_eq!(e.code(), Some(&SqlState::QUERY_CANCELED));
}
