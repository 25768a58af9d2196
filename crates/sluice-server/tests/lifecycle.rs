//! How sessions end: panics, vanished clients, FATAL errors, cancel keys, shutdown.

mod common;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use common::raw::{self, query, tags, Msg, Raw};
use common::TestServer;

/// (pid, secret) from a startup's BackendKeyData.
fn backend_key(startup: &[Msg]) -> (i32, i32) {
    let k = startup.iter().find(|m| m.tag == b'K').expect("BackendKeyData");
    let pid = i32::from_be_bytes(k.body[0..4].try_into().unwrap());
    let secret = i32::from_be_bytes(k.body[4..8].try_into().unwrap());
    (pid, secret)
}

/// A raw connection after startup, with its backend key.
fn connect(server: &TestServer) -> (Raw, i32, i32) {
    let mut conn = Raw::connect(server.addr);
    conn.send(&raw::default_startup());
    let (pid, secret) = backend_key(&conn.read_until_ready());
    (conn, pid, secret)
}

/// Send a CancelRequest for (pid, secret) on a new connection.
fn send_cancel(addr: SocketAddr, pid: i32, secret: i32) {
    let mut conn = Raw::connect(addr);
    let mut packet = raw::request(80877102);
    packet[3] = 16;
    packet.extend_from_slice(&pid.to_be_bytes());
    packet.extend_from_slice(&secret.to_be_bytes());
    conn.send(&packet);
    assert_eq!(conn.read_all_bytes(), b"", "a cancel request gets no reply");
}

#[test]
fn panic_in_engine_is_fatal_for_that_session_only() {
    let server = TestServer::start();
    let (mut bystander, _, _) = connect(&server);
    let (mut victim, pid, _) = connect(&server);
    victim.send(&query("SELECT 1; PANIC"));
    let msgs = victim.read_until_closed();
    assert_eq!(tags(&msgs), "TDCE", "rows before the panic are kept: {msgs:?}");
    let fields = msgs[3].fields();
    assert_eq!((fields[&'S'].as_str(), fields[&'C'].as_str()), ("FATAL", "XX000"));
    assert_eq!(fields[&'M'], "terminating connection because of an internal error");
    assert_eq!(fields[&'D'], "test engine panic");
    server.wait_for_event(&format!("session {pid} ended"));
    bystander.send(&query("SELECT 1"));
    assert_eq!(tags(&bystander.read_until_ready()), "TDCZ");
    server.assert_healthy();
}

#[test]
fn client_vanishing_mid_query_cancels_the_statement() {
    let server = TestServer::start();
    let (mut conn, pid, _) = connect(&server);
    conn.send(&query("STREAM"));
    assert_eq!(conn.read_msg().unwrap().tag, b'T');
    assert_eq!(conn.read_msg().unwrap().tag, b'D');
    drop(conn);
    server.wait_for_event("stream stopped: 08006 cancelled=true");
    server.wait_for_event(&format!("session {pid} ended"));
    server.assert_healthy();
}

#[test]
fn fatal_from_engine_ends_the_session() {
    let server = TestServer::start();
    let (mut conn, pid, _) = connect(&server);
    conn.send(&query("FATAL 57P01 bye"));
    let msgs = conn.read_until_closed();
    assert_eq!(msgs.len(), 1);
    assert_eq!(msgs[0].error(), ("FATAL".into(), "57P01".into(), "bye".into()));
    server.wait_for_event(&format!("session {pid} ended"));
}

#[test]
fn cancel_key_must_match_and_dies_with_the_session() {
    let server = TestServer::start();
    let (mut conn, pid, secret) = connect(&server);
    conn.send(&query("SLEEP 1"));
    thread::sleep(Duration::from_millis(100));
    send_cancel(server.addr, pid, secret.wrapping_add(1));
    send_cancel(server.addr, pid + 1, secret);
    assert_eq!(tags(&conn.read_until_ready()), "CZ", "wrong keys must not cancel");
    conn.send(&query("SLEEP 600"));
    // Repeat: a cancel that arrives before the statement started is ignored.
    let done = Arc::new(AtomicBool::new(false));
    let canceller = {
        let (done, addr) = (Arc::clone(&done), server.addr);
        thread::spawn(move || {
            while !done.load(Ordering::SeqCst) {
                send_cancel(addr, pid, secret);
                thread::sleep(Duration::from_millis(100));
            }
        })
    };
    let msgs = conn.read_until_ready();
    done.store(true, Ordering::SeqCst);
    canceller.join().unwrap();
    assert_eq!(msgs[0].error().1, "57014");
    conn.send(&raw::msg(b'X', b""));
    assert_eq!(conn.read_all_bytes(), b"");
    server.wait_for_event(&format!("session {pid} ended"));
    send_cancel(server.addr, pid, secret);
}

#[test]
fn shutdown_terminates_idle_and_busy_sessions() {
    let mut server = TestServer::start();
    let (mut idle, _, _) = connect(&server);
    let (mut busy, _, _) = connect(&server);
    busy.send(&query("SLEEP 60"));
    thread::sleep(Duration::from_millis(100));
    let addr = server.addr;
    server.stop();
    for conn in [&mut idle, &mut busy] {
        let msgs = conn.read_until_closed();
        assert_eq!(tags(&msgs), "E", "{msgs:?}");
        let expected = (
            "FATAL".into(),
            "57P01".into(),
            "terminating connection due to administrator command".into(),
        );
        assert_eq!(msgs[0].error(), expected);
    }
    assert!(std::net::TcpStream::connect(addr).is_err(), "listener must be closed");
}
