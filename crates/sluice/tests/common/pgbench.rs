//! Running PostgreSQL 15's own `pgbench` against a test server.

use std::process::{Command, Output};

/// require_pgbench -- panics with instructions unless PostgreSQL 15's
/// pgbench runs (Debian's `/usr/bin/pgbench` is a wrapper that exists even
/// when the program behind it does not).
pub fn require_pgbench() {
    let version = Command::new("pgbench").arg("--version").output();
    let found = version.as_ref().is_ok_and(|o| {
        o.status.success() && String::from_utf8_lossy(&o.stdout).contains("PostgreSQL) 15")
    });
    assert!(
        found,
        "PostgreSQL 15's pgbench is not on PATH ({version:?}): install postgresql-15 (tests/run does)"
    );
}

/// pgbench -- runs pgbench with `args` against `server`'s `postgres` database.
pub fn pgbench(server: &super::Server, args: &[&str]) -> Output {
    let port = server.port.to_string();
    Command::new("pgbench")
        .args(["-h", "127.0.0.1", "-p", &port, "-U", "postgres"])
        .args(args)
        .arg("postgres")
        .output()
        .expect("pgbench runs (see require_pgbench)")
}

/// Output of a pgbench run, for messages.
pub fn describe(output: &Output) -> String {
    format!(
        "status {}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}
