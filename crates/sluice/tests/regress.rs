//! SQL golden tests: every `tests/regress/sql/NAME.sql` at the repository root is
//! run through real `psql` against a sluice server started on a free port, each
//! in a fresh database `regress_expected` as `tests/regress/pg15-expected.sh`
//! does, and its output must equal `tests/regress/expected/NAME.out` — which is what
//! PostgreSQL 15 prints for the same script (regenerate with
//! `tests/regress/pg15-expected.sh`). psql runs with `-X -a` (echo every
//! statement) and the `psql:FILE:LINE:` prefix of error lines removed, exactly as
//! `../shared/tools/compare.sh` does, so the files diff cleanly against
//! PostgreSQL's. On a mismatch the actual output is written to
//! `tests/regress/results/NAME.out` and the test fails with the diff.
//!
//! A script whose first line is `-- sluice-only: reason` has sluice's own
//! output as its expected file (PostgreSQL accepts what it tests, e.g. the
//! clauses sluice refuses with 0A000); `pg15-expected.sh` leaves such files
//! alone, so they are written from a sluice run and reviewed by hand.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn regress_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/regress")
}

/// Lines that differ from run to run — timings, and the lines of VACUUM
/// VERBOSE's report with xids or resource use — are dropped on both sides
/// (`pg15-expected.sh` drops the same).
const VARYING: [&str; 8] = [
    "Time: ",
    "removable cutoff: ",
    "new relfrozenxid: ",
    "new relminmxid: ",
    "avg read rate: ",
    "buffer usage: ",
    "WAL usage: ",
    "system usage: ",
];

/// Runs `script` through psql against `port`, normalised like compare.sh.
fn run_psql(port: u16, script: &Path) -> String {
    // Through a shell so that errors interleave with results as psql prints them.
    let output = Command::new("bash")
        .args(["-c", "command -v psql >/dev/null || { echo 'psql is not installed (postgresql-client-15)'; exit 1; }; psql -X -q -h 127.0.0.1 -p \"$1\" -U postgres -d postgres -c 'DROP DATABASE IF EXISTS regress_expected' -c 'CREATE DATABASE regress_expected' >/dev/null 2>&1; psql -X -a -h 127.0.0.1 -p \"$1\" -U postgres -d regress_expected -f \"$2\" 2>&1", "psql"])
        .arg(port.to_string())
        .arg(script)
        .env("PGTZ", "UTC")
        .output()
        .expect("bash runs");
    assert!(output.status.success() || !output.stdout.is_empty(), "psql failed to run");
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.lines()
        .filter(|l| !VARYING.iter().any(|prefix| l.starts_with(prefix)))
        .map(|l| match l.strip_prefix("psql:") {
            Some(rest) => rest
                .splitn(3, ':')
                .nth(2)
                .map_or(l, |r| r.strip_prefix(' ').unwrap_or(r))
                .to_string(),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn sql_golden_files_match_postgres() {
    let server = common::Server::start();
    let dir = regress_dir();
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(dir.join("sql"))
        .expect("tests/regress/sql")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "sql"))
        .collect();
    scripts.sort();
    assert!(!scripts.is_empty(), "no golden tests found");
    let mut failures = Vec::new();
    for script in &scripts {
        let name = script.file_stem().expect("name").to_string_lossy().into_owned();
        let actual = run_psql(server.port, script);
        let expected_path = dir.join("expected").join(format!("{name}.out"));
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if actual.trim_end() != expected.trim_end() {
            let results = dir.join("results");
            std::fs::create_dir_all(&results).expect("results dir");
            std::fs::write(results.join(format!("{name}.out")), &actual).expect("write result");
            let diff = Command::new("diff")
                .args(["-u"])
                .arg(&expected_path)
                .arg(results.join(format!("{name}.out")))
                .output()
                .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                .unwrap_or_default();
            failures.push(format!("{name}:\n{diff}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} golden files differ:\n{}",
        failures.len(),
        scripts.len(),
        failures.join("\n")
    );
}
