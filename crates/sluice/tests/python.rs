//! psycopg 3 against the real binary: the Python suite in
//! `tests/python/test_psycopg.py` (parameters, binary results, transactions,
//! server errors), and a crash test: `kill -9` the server while a psycopg client
//! commits rows one by one, restart it, and find every acknowledged row.
//!
//! `tests/run` installs psycopg; without it these tests fail and say so.

mod common;

use postgres::{Client, NoTls};
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/python/test_psycopg.py")
}

/// A `python3` command running the psycopg script against `server`.
fn python(server: &common::Server) -> Command {
    let ready = Command::new("python3").args(["-c", "import psycopg"]).status();
    assert!(
        ready.is_ok_and(|s| s.success()),
        "python3 with psycopg is needed (tests/run installs it: pip install 'psycopg[binary]')"
    );
    let mut command = Command::new("python3");
    command.arg(script()).env("SLUICE_PORT", server.port.to_string());
    command
}

#[test]
fn psycopg_suite() {
    let server = common::Server::start();
    let output = python(&server).output().expect("run python3");
    let report = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "psycopg suite failed:\n{report}");
    assert!(report.contains("OK"), "{report}");
}

#[test]
fn acknowledged_rows_survive_kill_9_during_psycopg_inserts() {
    let mut server = common::Server::start();
    let mut client = python(&server)
        .args(["insert-loop", "1000000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the insert loop");
    let mut acknowledged = BTreeSet::new();
    let mut lines = BufReader::new(client.stdout.take().expect("piped")).lines();
    while acknowledged.len() < 400 {
        let line = lines.next().expect("the client stopped early").expect("read");
        acknowledged.insert(line.trim().parse::<i32>().expect("an id"));
    }
    server.kill();
    // Commits acknowledged between our last read and the kill count too.
    for line in lines.map_while(Result::ok) {
        acknowledged.insert(line.trim().parse::<i32>().expect("an id"));
    }
    let _ = client.wait();

    server.spawn();
    let mut check = Client::connect(&server.conninfo(), NoTls).expect("connect after restart");
    let present: BTreeSet<i32> = check
        .query("SELECT id FROM crash_rows", &[])
        .expect("the table survived")
        .iter()
        .map(|r| r.get(0))
        .collect();
    let missing: Vec<_> = acknowledged.difference(&present).collect();
    assert!(missing.is_empty(), "acknowledged but lost: {missing:?}");
    let last = *acknowledged.last().expect("some rows");
    // At most the one insert in flight at the kill may have committed unacknowledged.
    assert!(present.iter().all(|&id| id <= last + 1), "rows that were never sent");
    let torn: i64 = check
        .query_one("SELECT count(*) FROM crash_rows WHERE length(payload) <> 200", &[])
        .unwrap()
        .get(0);
    assert_eq!(torn, 0);
}
