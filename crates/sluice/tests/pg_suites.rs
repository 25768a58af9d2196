//! PostgreSQL 15's own test suites against sluice: the isolation suite
//! (src/test/isolation, every spec of its schedule, by isolationtester) and the
//! regression suite (src/test/regress, parallel_schedule run serially through
//! psql, compared statement by statement), both fetched from Debian's source
//! package at test time — none of PostgreSQL's files are in this repository.
//!
//! The work is done by `tests/pg/isolation` and `tests/pg/regress` at the
//! repository root (their doc comments describe how they mirror pg_regress);
//! these tests only run them on the binary cargo built and fail when they fail:
//! when a spec outside `tests/pg/isolation_expected_failures` fails, or when a
//! statement of `tests/pg/regress_identical` is no longer identical to
//! PostgreSQL's. The scripts start the server themselves rather than use
//! `common::Server`, because across a suite of hundreds of files they must be able
//! to kill a wedged server and start it again (on the same data directory for the
//! regression suite, whose files build on each other's tables), which only the
//! owner of the process can do. Results and diffs go to `tests/pg/results/`.
//!
//! Each suite is budgeted at ten minutes on CI's two cores: specs and files have
//! deadlines inside the scripts, so a hang costs one deadline, not the run.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where Debian's postgresql-client-15 installs isolationtester.
const ISOLATIONTESTER: &str = "/usr/lib/postgresql/15/lib/pgxs/src/test/isolation/isolationtester";

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/pg").join(name)
}

/// run -- runs `tests/pg/NAME` against this build's sluice; its report goes to
/// the test's output (nextest shows it when the test fails).
fn run(name: &str) {
    assert!(
        Path::new(ISOLATIONTESTER).exists(),
        "postgresql-client-15 is not installed (tests/run installs it)"
    );
    let status = Command::new("python3")
        .arg(script(name))
        .arg("--sluice")
        .arg(env!("CARGO_BIN_EXE_sluice"))
        .status()
        .expect("python3 runs");
    assert!(status.success(), "tests/pg/{name} failed (its report is above)");
}

#[test]
fn postgresql_isolation_suite() {
    run("isolation");
}

#[test]
fn postgresql_regression_suite() {
    run("regress");
}
