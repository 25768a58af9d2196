//! Bad input over raw sockets: every case gets PostgreSQL's answer (or PostgreSQL's
//! silence), and a well-behaved client connecting afterwards is served normally.

mod common;

use std::net::Shutdown;

use common::raw::{
    self, bind, cstr, describe, execute, msg, parse, query, request, startup_packet, sync, tags,
    Raw,
};
use common::TestServer;

/// What the server must do with a case.
#[derive(Debug)]
enum Expect {
    /// Close the connection without sending anything.
    Silence,
    /// Send FATAL with (sqlstate, message), then close.
    Fatal(&'static str, &'static str),
    /// Send ERROR with (sqlstate, message), then ReadyForQuery 'I', and stay usable.
    ErrorThenReady(&'static str, &'static str),
}

/// One case: bytes sent before (`startup: false`) or after a normal startup.
struct Case {
    name: &'static str,
    after_startup: bool,
    send: Vec<u8>,
    /// Shut down our write side after sending (for truncated input).
    half_close: bool,
    expect: Expect,
}

/// A case sent on a fresh connection (no startup yet).
fn before(name: &'static str, send: Vec<u8>, expect: Expect) -> Case {
    Case { name, after_startup: false, send, half_close: false, expect }
}

/// A case sent after a completed startup.
fn after(name: &'static str, send: Vec<u8>, expect: Expect) -> Case {
    Case { name, after_startup: true, send, half_close: false, expect }
}

/// The same case, followed by closing our write side.
fn truncated(mut case: Case) -> Case {
    case.half_close = true;
    case
}

/// `bytes` followed by Sync.
fn then_sync(mut bytes: Vec<u8>) -> Vec<u8> {
    bytes.extend(sync());
    bytes
}

/// A message type byte with a raw length word and no body.
fn header(tag: u8, len: u32) -> Vec<u8> {
    let mut m = vec![tag];
    m.extend_from_slice(&len.to_be_bytes());
    m
}

/// A startup packet around an arbitrary body.
fn startup_with_body(body: &[u8]) -> Vec<u8> {
    [&(body.len() as u32 + 4).to_be_bytes()[..], body].concat()
}

/// The table of malformed inputs.
fn cases() -> Vec<Case> {
    use Expect::*;
    let v3: u32 = 3 << 16;
    let unterminated = startup_with_body(&[&v3.to_be_bytes()[..], b"user\0postgres\0"].concat());
    vec![
        before("startup length below 8", vec![0, 0, 0, 4], Silence),
        before("startup length 7", vec![0, 0, 0, 7, 0, 3, 0], Silence),
        before("startup length 1 GB", vec![0x3f, 0xff, 0xff, 0xff], Silence),
        before("startup length negative", vec![0xff, 0xff, 0xff, 0xf0], Silence),
        before("startup length above 10004", vec![0, 0, 0x27, 0x15], Silence),
        truncated(before("startup truncated", vec![0, 0, 0, 100, 0, 3, 0, 0, b'u'], Silence)),
        truncated(before("startup length word truncated", vec![0, 0], Silence)),
        truncated(before("nothing at all", vec![], Silence)),
        before(
            "garbage protocol version",
            startup_packet(9999 << 16 | 1, &[("user", "postgres")]),
            Fatal("0A000", "unsupported frontend protocol 9999.1: server supports 3.0 to 3.0"),
        ),
        before(
            "protocol 2",
            startup_packet(2 << 16, &[("user", "postgres")]),
            Fatal("0A000", "unsupported frontend protocol 2.0: server supports 3.0 to 3.0"),
        ),
        before(
            "startup without terminator",
            unterminated,
            Fatal("08P01", "invalid startup packet layout: expected terminator as last byte"),
        ),
        before(
            "startup without user",
            startup_packet(v3, &[("database", "postgres")]),
            Fatal("28000", "no PostgreSQL user name specified in startup packet"),
        ),
        before(
            "startup with invalid UTF8",
            startup_with_body(&[&v3.to_be_bytes()[..], b"user\0\xff\0\0"].concat()),
            Fatal("22021", "invalid byte sequence for encoding \"UTF8\": 0xff"),
        ),
        before(
            "cancel request of wrong length",
            [request(80877102), vec![0; 12]].concat(),
            Silence,
        ),
        after(
            "unknown message type",
            msg(b'z', b""),
            Fatal("08P01", "invalid frontend message type 122"),
        ),
        after(
            "message type zero",
            vec![0, 0, 0, 0, 4],
            Fatal("08P01", "invalid frontend message type 0"),
        ),
        after(
            "password message after startup",
            msg(b'p', b"x\0"),
            Fatal("08P01", "invalid frontend message type 112"),
        ),
        after("length below 4", header(b'Q', 3), Fatal("08P01", "invalid message length")),
        after(
            "negative length",
            header(b'Q', 0xffff_ffff),
            Fatal("08P01", "invalid message length"),
        ),
        after(
            "length above 1 GB",
            header(b'Q', 0x7fff_ffff),
            Fatal("08P01", "invalid message length"),
        ),
        after(
            "small message too long",
            header(b'S', 10_005),
            Fatal("08P01", "invalid message length"),
        ),
        truncated(after(
            "1 GB claim then close",
            [header(b'Q', 0x3fff_fffe), b"SELECT".to_vec()].concat(),
            Silence,
        )),
        truncated(after(
            "truncated query",
            [header(b'Q', 100), b"SELECT 1".to_vec()].concat(),
            Silence,
        )),
        truncated(after("truncated length word", vec![b'Q', 0, 0], Silence)),
        after(
            "invalid UTF8 in query",
            msg(b'Q', b"SELECT \xff\0"),
            ErrorThenReady("22021", "invalid byte sequence for encoding \"UTF8\": 0xff"),
        ),
        after(
            "truncated UTF8 sequence in query",
            msg(b'Q', b"SELECT \xc3\x28\0"),
            ErrorThenReady("22021", "invalid byte sequence for encoding \"UTF8\": 0xc3 0x28"),
        ),
        after(
            "query without terminator",
            msg(b'Q', b"SELECT 1"),
            ErrorThenReady("08P01", "invalid string in message"),
        ),
        after(
            "query with trailing bytes",
            msg(b'Q', b"SELECT 1\0x"),
            ErrorThenReady("08P01", "invalid message format"),
        ),
        after(
            "truncated bind body",
            then_sync(msg(b'B', b"\0\0\0\0\0\x01\0\0\0\x09ab")),
            ErrorThenReady("08P01", "insufficient data left in message"),
        ),
        after(
            "bind with more formats than parameters",
            then_sync(msg(b'B', b"\0\0\0\x02\0\0\0\0\0\x01\0\0\0\x01a\0\0")),
            ErrorThenReady("08P01", "bind message has 2 parameter formats but 1 parameters"),
        ),
        after(
            "bind with an unknown format code",
            then_sync(msg(b'B', b"\0\0\0\0\0\0\0\x01\0\x02")),
            ErrorThenReady("22023", "unsupported format code: 2"),
        ),
        after(
            "parse truncated in the type list",
            then_sync(msg(b'P', b"\0SELECT 1\0\0\x02\0\0\0\x17")),
            ErrorThenReady("08P01", "insufficient data left in message"),
        ),
        after(
            "describe with bad subtype",
            then_sync(describe(b'Z', "x")),
            ErrorThenReady("08P01", "invalid DESCRIBE message subtype 90"),
        ),
        after(
            "close with bad subtype",
            then_sync(msg(b'C', &[b"Q".to_vec(), cstr("x")].concat())),
            ErrorThenReady("08P01", "invalid CLOSE message subtype 81"),
        ),
        after(
            "describe unknown statement",
            then_sync(describe(b'S', "nope")),
            ErrorThenReady("26000", "prepared statement \"nope\" does not exist"),
        ),
        after(
            "bind unknown unnamed statement",
            then_sync(bind("", "", &[])),
            ErrorThenReady("26000", "unnamed prepared statement does not exist"),
        ),
        after(
            "describe unknown portal",
            then_sync(describe(b'P', "nope")),
            ErrorThenReady("34000", "portal \"nope\" does not exist"),
        ),
        after(
            "execute unknown portal",
            then_sync(execute("nope", 0)),
            ErrorThenReady("34000", "portal \"nope\" does not exist"),
        ),
        after(
            "sync with a body",
            msg(b'S', b"x"),
            ErrorThenReady("08P01", "invalid message format"),
        ),
        after(
            "fast-path function call",
            msg(b'F', b"\0\0\0\x01"),
            ErrorThenReady("0A000", "fast-path function calls are not supported"),
        ),
    ]
}

/// run_case -- send a case and check the server's answer.
fn run_case(server: &TestServer, case: &Case) {
    let mut conn =
        if case.after_startup { Raw::connected(server.addr) } else { Raw::connect(server.addr) };
    conn.send(&case.send);
    if case.half_close {
        conn.stream.shutdown(Shutdown::Write).unwrap();
    }
    match case.expect {
        Expect::Silence => {
            assert_eq!(conn.read_all_bytes(), b"", "{}: expected silence", case.name);
        }
        Expect::Fatal(code, message) => {
            let msgs = conn.read_until_closed();
            assert_eq!(tags(&msgs), "E", "{}: {msgs:?}", case.name);
            let expected = ("FATAL".to_string(), code.to_string(), message.to_string());
            assert_eq!(msgs[0].error(), expected, "{}", case.name);
        }
        Expect::ErrorThenReady(code, message) => {
            let msgs = conn.read_until_ready();
            assert_eq!(tags(&msgs), "EZ", "{}: {msgs:?}", case.name);
            let expected = ("ERROR".to_string(), code.to_string(), message.to_string());
            assert_eq!(msgs[0].error(), expected, "{}", case.name);
            assert_eq!(msgs[1].body, b"I", "{}", case.name);
            conn.send(&query("SELECT 1"));
            assert_eq!(tags(&conn.read_until_ready()), "TDCZ", "{}: session unusable", case.name);
        }
    }
    server.assert_healthy();
}

#[test]
fn malformed_inputs_get_postgres_answers_and_harm_nobody() {
    let server = TestServer::start();
    let bystander = server.client();
    for case in cases() {
        run_case(&server, &case);
    }
    drop(bystander);
}

#[test]
fn fatal_report_bytes_are_exact() {
    let server = TestServer::start();
    let mut conn = Raw::connected(server.addr);
    conn.send(&msg(b'z', b"\0\0\0\x04"));
    let expected = msg(b'E', b"SFATAL\0VFATAL\0C08P01\0Minvalid frontend message type 122\0\0");
    assert_eq!(conn.read_all_bytes(), expected);
}

#[test]
fn ssl_and_gss_requests_are_refused_then_startup_proceeds() {
    let server = TestServer::start();
    let mut conn = Raw::connect(server.addr);
    conn.send(&request(80877103));
    assert_eq!(conn.read_exact(1).unwrap(), b"N");
    conn.send(&raw::default_startup());
    let msgs = conn.read_until_ready();
    assert!(tags(&msgs).starts_with('R') && tags(&msgs).ends_with("KZ"), "{msgs:?}");

    let mut conn = Raw::connect(server.addr);
    conn.send(&request(80877104));
    assert_eq!(conn.read_exact(1).unwrap(), b"N");
    conn.send(&request(80877103));
    assert_eq!(conn.read_exact(1).unwrap(), b"N");
    conn.send(&raw::default_startup());
    assert!(tags(&conn.read_until_ready()).ends_with("KZ"));
}

#[test]
fn second_ssl_request_is_an_unsupported_protocol() {
    let server = TestServer::start();
    let mut conn = Raw::connect(server.addr);
    conn.send(&request(80877103));
    assert_eq!(conn.read_exact(1).unwrap(), b"N");
    conn.send(&request(80877103));
    let msgs = conn.read_until_closed();
    assert_eq!(
        msgs[0].error(),
        (
            "FATAL".into(),
            "0A000".into(),
            "unsupported frontend protocol 1234.5679: server supports 3.0 to 3.0".into()
        )
    );
}

#[test]
fn newer_minor_version_is_negotiated_down() {
    let server = TestServer::start();
    let mut conn = Raw::connect(server.addr);
    conn.send(&startup_packet(3 << 16 | 2, &[("user", "postgres"), ("_pq_.x", "1")]));
    let msgs = conn.read_until_ready();
    assert_eq!(msgs[0].tag, b'v');
    let mut expected = (3i32 << 16).to_be_bytes().to_vec();
    expected.extend_from_slice(&1i32.to_be_bytes());
    expected.extend(cstr("_pq_.x"));
    assert_eq!(msgs[0].body, expected);
    assert_eq!(msgs[1].tag, b'R');
}

#[test]
fn extended_error_skips_everything_until_sync() {
    let server = TestServer::start();
    let mut conn = Raw::connected(server.addr);
    let pipeline =
        [execute("nope", 0), parse("", "SELECT 1", &[]), query("SELECT 1"), sync()].concat();
    conn.send(&pipeline);
    let msgs = conn.read_until_ready();
    assert_eq!(tags(&msgs), "EZ", "{msgs:?}");
    assert_eq!(msgs[0].error().1, "34000");
}

#[test]
fn duplicate_statement_and_parameter_count() {
    let server = TestServer::start();
    let mut conn = Raw::connected(server.addr);
    conn.send(&[parse("s1", "SELECT 1", &[]), parse("s1", "SELECT 2", &[]), sync()].concat());
    let msgs = conn.read_until_ready();
    assert_eq!(tags(&msgs), "1EZ");
    assert_eq!(
        msgs[1].error(),
        ("ERROR".into(), "42P05".into(), "prepared statement \"s1\" already exists".into())
    );

    conn.send(&[parse("", "ECHO $1", &[]), bind("", "", &["a", "b"]), sync()].concat());
    let msgs = conn.read_until_ready();
    assert_eq!(tags(&msgs), "1EZ");
    let expected = "bind message supplies 2 parameters, but prepared statement \"\" requires 1";
    assert_eq!(msgs[1].error(), ("ERROR".into(), "08P01".into(), expected.into()));
}

#[test]
fn unnamed_statement_and_portal_are_replaced() {
    let server = TestServer::start();
    let mut conn = Raw::connected(server.addr);
    let pipeline = [
        parse("", "SELECT 5", &[]),
        parse("", "ECHO $1", &[]),
        bind("", "", &["x"]),
        bind("", "", &["y"]),
        describe(b'P', ""),
        execute("", 0),
        sync(),
    ]
    .concat();
    conn.send(&pipeline);
    let msgs = conn.read_until_ready();
    assert_eq!(tags(&msgs), "1122TDCZ", "{msgs:?}");
    assert_eq!(msgs[6].body, b"SELECT 1\0");
    assert!(msgs[5].body.ends_with(b"\0\0\0\x01y"));
}

#[test]
fn copy_fail_and_stray_copy_messages() {
    let server = TestServer::start();
    let mut conn = Raw::connected(server.addr);
    conn.send(&query("COPY t FROM STDIN"));
    assert_eq!(conn.read_msg().unwrap().tag, b'G');
    conn.send(&[msg(b'd', b"1\n"), msg(b'H', b""), msg(b'f', &cstr("client gave up"))].concat());
    let msgs = conn.read_until_ready();
    assert_eq!(tags(&msgs), "EZ");
    assert_eq!(
        msgs[0].error(),
        ("ERROR".into(), "57014".into(), "COPY from stdin failed: client gave up".into())
    );
    conn.send(&[msg(b'd', b"late\n"), msg(b'c', b""), query("SELECT 1")].concat());
    assert_eq!(tags(&conn.read_until_ready()), "TDCZ");

    conn.send(&query("COPY t FROM STDIN"));
    assert_eq!(conn.read_msg().unwrap().tag, b'G');
    conn.send(&[msg(b'd', b"1\n"), query("SELECT 1")].concat());
    let msgs = conn.read_until_ready();
    assert_eq!(msgs[0].error().2, "unexpected message type 0x51 during COPY from stdin");
}

#[test]
fn parameter_status_after_set_and_terminate() {
    let server = TestServer::start();
    let mut conn = Raw::connect(server.addr);
    conn.send(&raw::default_startup());
    let startup = conn.read_until_ready();
    let names: Vec<String> = startup
        .iter()
        .filter(|m| m.tag == b'S')
        .map(|m| String::from_utf8_lossy(m.body.split(|&b| b == 0).next().unwrap()).into_owned())
        .collect();
    for name in [
        "server_version",
        "server_encoding",
        "client_encoding",
        "DateStyle",
        "TimeZone",
        "integer_datetimes",
    ] {
        assert!(names.iter().any(|n| n == name), "{name} missing from {names:?}");
    }
    assert_eq!(tags(&startup[startup.len() - 2..]), "KZ");
    conn.send(&query("SET TimeZone Europe/Paris"));
    let msgs = conn.read_until_ready();
    assert_eq!(tags(&msgs), "CSZ");
    assert_eq!(msgs[1].body, b"TimeZone\0Europe/Paris\0");
    conn.send(&msg(b'X', b""));
    assert_eq!(conn.read_all_bytes(), b"");
}

#[test]
fn ready_for_query_reports_transaction_status() {
    let server = TestServer::start();
    let mut conn = Raw::connected(server.addr);
    for (sql, status) in
        [("BEGIN", b"T"), ("ERROR 22012 boom", b"E"), ("SELECT 1", b"E"), ("ROLLBACK", b"I")]
    {
        conn.send(&query(sql));
        let msgs = conn.read_until_ready();
        assert_eq!(msgs.last().unwrap().body, status, "after {sql}: {msgs:?}");
    }
}
