//! Bad input against the real binary, table-driven: malformed protocol messages
//! (unknown types, wrong and huge lengths, truncated packets, a client vanishing
//! mid-message) and bad SQL (syntax, casts, unknown settings, oversized values).
//! Each case must get PostgreSQL's SQLSTATE and severity — FATAL where the
//! message stream cannot be trusted any more (PostgreSQL hangs up silently on a
//! bad length; sluice says why first), ERROR otherwise — while a bystander
//! session keeps working and the server keeps accepting connections.

mod common;

use postgres::{Client, NoTls};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// A raw protocol connection, past startup.
struct Raw {
    stream: TcpStream,
}

/// One backend message: its type byte and body.
struct Message {
    tag: u8,
    body: Vec<u8>,
}

impl Message {
    /// The SQLSTATE and severity of an ErrorResponse.
    fn error_fields(&self) -> (String, String) {
        let mut code = String::new();
        let mut severity = String::new();
        for field in self.body.split(|&b| b == 0) {
            match field.first() {
                Some(b'C') => code = String::from_utf8_lossy(&field[1..]).into_owned(),
                Some(b'V') => severity = String::from_utf8_lossy(&field[1..]).into_owned(),
                _ => {}
            }
        }
        (code, severity)
    }
}

/// A frontend message with its type byte and length word.
fn message(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    out.extend_from_slice(&((body.len() + 4) as u32).to_be_bytes());
    out.extend_from_slice(body);
    out
}

/// A NUL-terminated string.
fn cstr(s: &str) -> Vec<u8> {
    let mut out = s.as_bytes().to_vec();
    out.push(0);
    out
}

impl Raw {
    /// connect -- startup as postgres, reading up to the first ReadyForQuery.
    fn connect(port: u16) -> Raw {
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let mut raw = Raw { stream };
        let mut body = 196_608u32.to_be_bytes().to_vec();
        for s in ["user", "postgres", "database", "postgres", ""] {
            body.extend(cstr(s));
        }
        let mut packet = ((body.len() + 4) as u32).to_be_bytes().to_vec();
        packet.extend(body);
        raw.send(&packet);
        raw.read_until_ready();
        raw
    }

    fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).expect("send");
    }

    /// The next message, or None once the server closed the connection.
    fn read(&mut self) -> Option<Message> {
        let mut head = [0u8; 5];
        self.stream.read_exact(&mut head).ok()?;
        let len = u32::from_be_bytes(head[1..5].try_into().unwrap()) as usize;
        let mut body = vec![0u8; len.saturating_sub(4)];
        self.stream.read_exact(&mut body).ok()?;
        Some(Message { tag: head[0], body })
    }

    /// Messages up to and including ReadyForQuery, or up to the close.
    fn read_until_ready(&mut self) -> Vec<Message> {
        let mut out = Vec::new();
        while let Some(m) = self.read() {
            let ready = m.tag == b'Z';
            out.push(m);
            if ready {
                break;
            }
        }
        out
    }

    /// The (SQLSTATE, severity) of the first ErrorResponse among `messages`.
    fn first_error(messages: &[Message]) -> (String, String) {
        messages
            .iter()
            .find(|m| m.tag == b'E')
            .map(Message::error_fields)
            .unwrap_or_else(|| ("no error".into(), String::new()))
    }
}

/// Sends `bytes` on a fresh connection and returns the error it got.
fn protocol_case(port: u16, bytes: &[u8]) -> (String, String) {
    let mut raw = Raw::connect(port);
    raw.send(bytes);
    Raw::first_error(&raw.read_until_ready())
}

/// The bystander still answers, and new sessions still connect.
fn assert_server_serves(bystander: &mut Client, port: u16) {
    let n: i64 = bystander.query_one("SELECT count(*) FROM keep", &[]).unwrap().get(0);
    assert_eq!(n, 3);
    let mut fresh = Raw::connect(port);
    fresh.send(&message(b'Q', &cstr("SELECT 1")));
    let reply = fresh.read_until_ready();
    assert!(reply.iter().any(|m| m.tag == b'D'), "a new session runs queries");
}

#[test]
fn malformed_protocol_messages_get_fatal_08p01_and_others_carry_on() {
    let server = common::Server::start();
    let mut bystander = Client::connect(&server.conninfo(), NoTls).unwrap();
    bystander
        .batch_execute("CREATE TABLE keep (id int); INSERT INTO keep VALUES (1),(2),(3)")
        .unwrap();
    bystander.batch_execute("BEGIN; SELECT count(*) FROM keep").unwrap();

    let one_gb_claim = {
        let mut m = vec![b'Q'];
        m.extend_from_slice(&(1u32 << 30).to_be_bytes());
        m
    };
    let negative_length = [b'Q', 0xff, 0xff, 0xff, 0xf0];
    let too_short_length = [b'Q', 0, 0, 0, 2];
    let mut bad_bind = cstr("");
    bad_bind.extend(cstr("no_such_statement"));
    bad_bind.extend([0, 0, 0, 0, 0, 0]);
    let mut parse_bad_type = cstr("");
    parse_bad_type.extend(cstr("SELECT $1"));
    parse_bad_type.extend(1u16.to_be_bytes());
    parse_bad_type.extend(999_999u32.to_be_bytes());
    let mut parse_truncated = cstr("");
    parse_truncated.extend(cstr("SELECT $1"));
    parse_truncated.extend(5u16.to_be_bytes()); // claims 5 types, sends none
    let cases: Vec<(&str, Vec<u8>, &str, &str)> = vec![
        ("unknown message type", message(b'!', b""), "08P01", "FATAL"),
        ("1 GB length claim", one_gb_claim, "08P01", "FATAL"),
        ("negative length", negative_length.to_vec(), "08P01", "FATAL"),
        ("length below 4", too_short_length.to_vec(), "08P01", "FATAL"),
        ("query without terminator", message(b'Q', b"SELECT 1"), "08P01", "ERROR"),
        (
            "bind to a missing statement",
            [message(b'B', &bad_bind), message(b'S', b"")].concat(),
            "26000",
            "ERROR",
        ),
        (
            "parse with an unknown type oid",
            [message(b'P', &parse_bad_type), message(b'S', b"")].concat(),
            "42704",
            "ERROR",
        ),
        (
            "parse cut short",
            [message(b'P', &parse_truncated), message(b'S', b"")].concat(),
            "08P01",
            "ERROR",
        ),
        ("function call", message(b'F', &[0, 0, 0, 0]), "0A000", "ERROR"),
    ];
    for (name, bytes, code, severity) in cases {
        let got = protocol_case(server.port, &bytes);
        assert_eq!(got, (code.to_string(), severity.to_string()), "{name}");
        assert_server_serves(&mut bystander, server.port);
    }

    // Clients that vanish mid-message or mid-query cost nothing.
    let mut raw = Raw::connect(server.port);
    raw.send(&message(b'Q', &cstr("SELECT 1"))[..6]);
    drop(raw);
    let mut raw = Raw::connect(server.port);
    raw.send(&message(b'Q', &cstr("SELECT pg_sleep(0.5)")));
    drop(raw);
    std::thread::sleep(Duration::from_millis(700));
    assert_server_serves(&mut bystander, server.port);
    bystander.batch_execute("COMMIT").unwrap();
}

#[test]
fn invalid_sql_casts_settings_and_values_get_postgres_errors() {
    let server = common::Server::start();
    let mut bystander = Client::connect(&server.conninfo(), NoTls).unwrap();
    bystander
        .batch_execute("CREATE TABLE keep (id int); INSERT INTO keep VALUES (1),(2),(3)")
        .unwrap();
    bystander.batch_execute("CREATE TABLE small (code varchar(3), n smallint NOT NULL)").unwrap();
    let cases = [
        ("SELEC 1", "42601"),
        ("SELECT * FROM", "42601"),
        ("SELECT 'abc'::int", "22P02"),
        ("SELECT '2024-13-45'::date", "22008"),
        ("SELECT 1e400::float8", "22003"),
        ("SELECT 99999::smallint", "22003"),
        ("SELECT '{1,2'::int[]", "22P02"),
        ("SELECT 'x'::jsonb", "22P02"),
        ("SELECT 1/0", "22012"),
        ("SET no_such_setting = 1", "42704"),
        ("SET work_mem = 'lots'", "22023"),
        ("SHOW no_such_setting", "42704"),
        ("INSERT INTO small VALUES ('abcd', 1)", "22001"),
        ("INSERT INTO small VALUES ('abc', NULL)", "23502"),
        ("INSERT INTO small VALUES ('abc', 70000)", "22003"),
        ("SELECT repeat('x', 2000000000)", "54000"),
        ("SELECT no_such_column FROM keep", "42703"),
        ("SELECT * FROM no_such_table", "42P01"),
        ("SELECT no_such_function()", "42883"),
    ];
    let mut client = Client::connect(&server.conninfo(), NoTls).unwrap();
    for (sql, code) in cases {
        let error = client.batch_execute(sql).expect_err(sql);
        assert_eq!(error.code().map(|c| c.code()), Some(code), "{sql}: {error}");
        assert_server_serves(&mut bystander, server.port);
    }
}
