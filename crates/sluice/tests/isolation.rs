//! Concurrency tests with PostgreSQL's own `isolationtester`: every
//! `tests/isolation/specs/NAME.spec` at the repository root runs against a
//! sluice server started on a free port, and what isolationtester prints must
//! equal `tests/isolation/expected/NAME.out` — PostgreSQL 15's output for the
//! same spec (regenerate with `tests/isolation/pg15-expected.sh`).
//!
//! isolationtester drives one connection per session, sends each step without
//! waiting, and asks `pg_isolation_test_session_is_blocked(pid, '{pids}')`
//! whether a step waits for a lock held by another session of the test; so the
//! interleavings, lock waits, errors and wake-ups all show in the output. On a
//! mismatch the actual output is written to `tests/isolation/results/NAME.out`.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Where Debian's postgresql-client-15 installs isolationtester.
const ISOLATIONTESTER: &str = "/usr/lib/postgresql/15/lib/pgxs/src/test/isolation/isolationtester";

fn isolation_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/isolation")
}

/// Runs spec `name` against a fresh server and compares with its expected output.
fn check(name: &str) {
    check_with(name, &[]);
}

/// check_with -- [`check`] against a server started with `settings`
/// (`name=value`; PostgreSQL's expected output comes from the PostgreSQL 15
/// of `pg15.sh`, configured with `max_prepared_transactions = 10`).
fn check_with(name: &str, settings: &[&str]) {
    assert!(
        Path::new(ISOLATIONTESTER).exists(),
        "isolationtester is not installed (postgresql-client-15; tests/run installs it)"
    );
    let server = common::Server::start_with(settings);
    let spec = std::fs::File::open(isolation_dir().join(format!("specs/{name}.spec")))
        .expect("spec exists");
    let output = Command::new(ISOLATIONTESTER)
        .arg("dbname=postgres")
        .env("PGHOST", "127.0.0.1")
        .env("PGPORT", server.port.to_string())
        .env("PGUSER", "postgres")
        .env("PGTZ", "UTC")
        .stdin(Stdio::from(spec))
        .output()
        .expect("run isolationtester");
    let mut actual = String::from_utf8_lossy(&output.stdout).into_owned();
    actual.push_str(&String::from_utf8_lossy(&output.stderr));
    let expected_path = isolation_dir().join(format!("expected/{name}.out"));
    let expected = std::fs::read_to_string(&expected_path).expect("expected output exists");
    if actual != expected {
        let results = isolation_dir().join("results");
        std::fs::create_dir_all(&results).expect("results dir");
        let result_path = results.join(format!("{name}.out"));
        std::fs::write(&result_path, &actual).expect("write result");
        let diff = Command::new("diff")
            .arg("-u")
            .arg(&expected_path)
            .arg(&result_path)
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default();
        panic!("isolation spec {name} differs from PostgreSQL 15:\n{diff}");
    }
}

#[test]
fn update_conflict() {
    check("update_conflict");
}

#[test]
fn lock_queue() {
    check("lock_queue");
}

#[test]
fn lock_timeout() {
    check("lock_timeout");
}

#[test]
fn deadlock() {
    check("deadlock");
}

#[test]
fn cancel() {
    check("cancel");
}

#[test]
fn truncate() {
    check("truncate");
}

#[test]
fn alter_table_locks() {
    check("alter_table_locks");
}

#[test]
fn unique_insert() {
    check("unique_insert");
}

#[test]
fn vacuum_horizon() {
    check("vacuum_horizon");
}

#[test]
fn create_index_concurrently() {
    check("create_index_concurrently");
}

#[test]
fn row_lock_queue() {
    check("row_lock_queue");
}

#[test]
fn row_lock_modes() {
    check("row_lock_modes");
}

#[test]
fn multixact_share() {
    check("multixact_share");
}

#[test]
fn row_lock_waiters() {
    check("row_lock_waiters");
}

#[test]
fn savepoint_lock() {
    check("savepoint_lock");
}

#[test]
fn subxact_visibility() {
    check("subxact_visibility");
}

#[test]
fn prepared_lock() {
    check_with("prepared_lock", &["max_prepared_transactions=10"]);
}

#[test]
fn prepared_horizon() {
    check_with("prepared_horizon", &["max_prepared_transactions=10"]);
}

#[test]
fn advisory_locks() {
    check("advisory_locks");
}

#[test]
fn vacuum_full_lock() {
    check("vacuum_full_lock");
}

#[test]
fn reindex_concurrently() {
    check("reindex_concurrently");
}

#[test]
fn seed001_horizon() {
    check("seed001_horizon");
}

#[test]
fn vacuum_truncate_skip() {
    check("vacuum_truncate_skip");
}

#[test]
fn horizon_diagnostics() {
    check_with("horizon_diagnostics", &["max_prepared_transactions=10"]);
}

#[test]
fn que_lock() {
    check("que_lock");
}

#[test]
fn keyshare_survives_update() {
    check("keyshare_survives_update");
}

#[test]
fn keyshare_follows_update() {
    check("keyshare_follows_update");
}

#[test]
fn delete_returning_epq() {
    check("delete_returning_epq");
}

#[test]
fn upsert_wait() {
    check("upsert_wait");
}

#[test]
fn soft_deadlock() {
    check("soft_deadlock");
}

#[test]
fn lock_upgrade_wait() {
    check("lock_upgrade_wait");
}

#[test]
fn sequence_alter() {
    check("sequence_alter");
}

#[test]
fn drop_index_concurrently() {
    check("drop_index_concurrently");
}

#[test]
fn catalog_row_locks() {
    check("catalog_row_locks");
}

#[test]
fn maintenance_own_xacts() {
    check("maintenance_own_xacts");
}
