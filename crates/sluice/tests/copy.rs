//! COPY through a real driver: the `postgres` crate runs COPY with the
//! extended protocol (Parse/Bind/Execute, then the COPY sub-protocol), in
//! text and binary, in both directions, and gives up with CopyFail when a
//! writer is dropped unfinished. Server-side files are covered too.

mod common;

use postgres::binary_copy::{BinaryCopyInWriter, BinaryCopyOutIter};
use postgres::fallible_iterator::FallibleIterator;
use postgres::types::Type;
use postgres::{Client, NoTls};
use std::io::{Read, Write};

fn connect(server: &common::Server) -> Client {
    Client::connect(&server.conninfo(), NoTls).expect("connect")
}

/// The row `i` of the test data, as a text-format line (every tenth `n` NULL).
fn line(i: u64) -> String {
    match i % 10 {
        0 => format!("{i}\tname {i}\t\\N\n"),
        _ => format!("{i}\tname {i}\t{}\n", i * 3),
    }
}

#[test]
fn copy_in_and_out_of_many_rows() {
    let server = common::Server::start();
    let mut client = connect(&server);
    client.batch_execute("CREATE TABLE many (id bigint NOT NULL, name text, n int)").unwrap();
    let rows = 100_000u64;
    let mut writer = client.copy_in("COPY many FROM STDIN").unwrap();
    // Chunks that cut lines apart, as real clients' buffers do.
    let data: String = (1..=rows).map(line).collect();
    for chunk in data.as_bytes().chunks(7919) {
        writer.write_all(chunk).unwrap();
    }
    assert_eq!(writer.finish().unwrap(), rows);

    let row = client
        .query_one("SELECT count(*), sum(id)::bigint, count(n), max(name) FROM many", &[])
        .unwrap();
    assert_eq!(row.get::<_, i64>(0), rows as i64);
    assert_eq!(row.get::<_, i64>(1), (rows * (rows + 1) / 2) as i64);
    assert_eq!(row.get::<_, i64>(2), (rows - rows / 10) as i64);
    assert_eq!(row.get::<_, String>(3), "name 99999");

    let mut out = String::new();
    client.copy_out("COPY many TO STDOUT").unwrap().read_to_string(&mut out).unwrap();
    assert_eq!(out, data, "COPY TO gives back what COPY FROM read");

    let mut csv = String::new();
    client
        .copy_out("COPY (SELECT id, name FROM many WHERE id <= 2) TO STDOUT (FORMAT csv, HEADER)")
        .unwrap()
        .read_to_string(&mut csv)
        .unwrap();
    assert_eq!(csv, "id,name\n1,name 1\n2,name 2\n");
}

#[test]
fn aborted_copy_leaves_no_rows_and_a_usable_session() {
    let server = common::Server::start();
    let mut client = connect(&server);
    client.batch_execute("CREATE TABLE aborted (id int, name text)").unwrap();
    {
        let mut writer = client.copy_in("COPY aborted FROM STDIN").unwrap();
        for i in 0..1000 {
            writer.write_all(format!("{i}\tx\n").as_bytes()).unwrap();
        }
        writer.flush().unwrap();
        // Dropped without finish: the client sends CopyFail.
    }
    let count: i64 = client.query_one("SELECT count(*) FROM aborted", &[]).unwrap().get(0);
    assert_eq!(count, 0, "the failed COPY inserted nothing");

    let mut writer = client.copy_in("COPY aborted FROM STDIN").unwrap();
    writer.write_all(b"1\tok\n2\tok\nthree\tbad\n4\tnever\n").unwrap();
    let err = writer.finish().unwrap_err();
    let db = err.as_db_error().expect("a server error");
    assert_eq!(db.code().code(), "22P02");
    assert_eq!(db.message(), "invalid input syntax for type integer: \"three\"");
    assert_eq!(db.where_(), Some("COPY aborted, line 3, column id: \"three\""));

    let count: i64 = client.query_one("SELECT count(*) FROM aborted", &[]).unwrap().get(0);
    assert_eq!(count, 0, "nor did the one with bad data");

    let mut txn = client.transaction().unwrap();
    let mut writer = txn.copy_in("COPY aborted FROM STDIN (FORMAT csv)").unwrap();
    writer.write_all(b"5,\"quoted, with comma\"\n").unwrap();
    assert_eq!(writer.finish().unwrap(), 1);
    txn.commit().unwrap();
    let name: String =
        client.query_one("SELECT name FROM aborted WHERE id = 5", &[]).unwrap().get(0);
    assert_eq!(name, "quoted, with comma");
}

#[test]
fn binary_copy_round_trip() {
    let server = common::Server::start();
    let mut client = connect(&server);
    client.batch_execute("CREATE TABLE bin (id int, name text, score float8)").unwrap();
    let types = [Type::INT4, Type::TEXT, Type::FLOAT8];
    let mut writer = BinaryCopyInWriter::new(
        client.copy_in("COPY bin FROM STDIN (FORMAT binary)").unwrap(),
        &types,
    );
    for i in 0..500i32 {
        let name = (i % 7 != 0).then(|| format!("n{i}"));
        writer.write(&[&i, &name, &(f64::from(i) / 4.0)]).unwrap();
    }
    assert_eq!(writer.finish().unwrap(), 500);

    let reader = client.copy_out("COPY bin TO STDOUT (FORMAT binary)").unwrap();
    let rows: Vec<_> = BinaryCopyOutIter::new(reader, &types).collect().unwrap();
    assert_eq!(rows.len(), 500);
    for (i, row) in rows.iter().enumerate() {
        let i = i as i32;
        assert_eq!(row.get::<i32>(0), i);
        assert_eq!(row.get::<Option<String>>(1), (i % 7 != 0).then(|| format!("n{i}")));
        assert_eq!(row.get::<f64>(2), f64::from(i) / 4.0);
    }

    let mut writer = client.copy_in("COPY bin FROM STDIN (FORMAT binary)").unwrap();
    writer.write_all(b"not a binary copy file").unwrap();
    let err = writer.finish().unwrap_err();
    assert_eq!(err.as_db_error().unwrap().message(), "COPY file signature not recognized");
}

#[test]
fn server_side_files() {
    let server = common::Server::start();
    let mut client = connect(&server);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows.csv");
    client
        .batch_execute("CREATE TABLE src (a int, b text); CREATE TABLE dst (a int, b text)")
        .unwrap();
    client
        .batch_execute("INSERT INTO src VALUES (1, 'one'), (2, NULL), (3, 'three, with comma')")
        .unwrap();
    let written =
        client.execute(&format!("COPY src TO '{}' (FORMAT csv)", path.display()), &[]).unwrap();
    assert_eq!(written, 3);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "1,one\n2,\n3,\"three, with comma\"\n");
    let read =
        client.execute(&format!("COPY dst FROM '{}' (FORMAT csv)", path.display()), &[]).unwrap();
    assert_eq!(read, 3);
    let rows: Vec<(i32, Option<String>)> = client
        .query("SELECT a, b FROM dst ORDER BY a", &[])
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(rows, [(1, Some("one".into())), (2, None), (3, Some("three, with comma".into()))]);
}
