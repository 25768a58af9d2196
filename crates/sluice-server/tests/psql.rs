//! The server as psql sees it. psql must be installed (Debian package
//! postgresql-client); these tests fail, loudly, if it is not.

mod common;

use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use common::TestServer;

/// How long one psql run may take before the test gives up.
const PSQL_TIMEOUT: Duration = Duration::from_secs(30);

/// run_psql -- `psql -X -h 127.0.0.1 -p PORT -U postgres ARGS`, feeding `stdin`.
fn run_psql(server: &TestServer, args: &[&str], stdin: &[u8]) -> Output {
    let port = server.port().to_string();
    let mut child = Command::new("psql")
        .args(["-X", "-h", "127.0.0.1", "-p", &port, "-U", "postgres", "-d", "postgres"])
        .args(args)
        .env("PGCONNECT_TIMEOUT", "10")
        // libpq then opens with SSLRequest, which must be refused with 'N'.
        .env("PGSSLMODE", "prefer")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("psql is required by these tests but could not be run ({e}); install postgresql-client")
        });
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let deadline = Instant::now() + PSQL_TIMEOUT;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("psql {args:?} did not finish in {PSQL_TIMEOUT:?}");
        }
        thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// stdout of a run that must succeed.
fn ok(output: Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "psql failed: {stderr}");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn psql_runs_queries() {
    let server = TestServer::start();
    assert_eq!(ok(run_psql(&server, &["-A", "-t", "-c", "SELECT 3"], b"")), "1\n2\n3\n");
    let aligned = ok(run_psql(&server, &["-c", "SELECT 2"], b""));
    assert_eq!(aligned, " n \n---\n 1\n 2\n(2 rows)\n\n");
    let several =
        ok(run_psql(&server, &["-A", "-t", "-c", "BEGIN", "-c", "SELECT 1", "-c", "COMMIT"], b""));
    assert_eq!(several, "BEGIN\n1\nCOMMIT\n");
}

#[test]
fn psql_reports_errors_and_notices() {
    let server = TestServer::start();
    let output =
        run_psql(&server, &["-v", "VERBOSITY=verbose", "-c", "ERROR 22012 division by zero"], b"");
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&output.stderr), "ERROR:  22012: division by zero\n");
    let output = run_psql(&server, &["-c", "NOTICE hello"], b"");
    assert!(output.status.success());
    assert_eq!(String::from_utf8_lossy(&output.stderr), "NOTICE:  hello\n");
}

#[test]
fn psql_script_with_copy() {
    let server = TestServer::start();
    let script = b"COPY t FROM STDIN;\na\nb\n\\.\nCOPY t TO STDOUT;\nSELECT 1;\n";
    let out =
        ok(run_psql(&server, &["-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-f", "-"], script));
    assert_eq!(out, "a\nb\n1\n");
}

#[test]
fn psql_sees_terminated_session() {
    let server = TestServer::start();
    let output = run_psql(
        &server,
        &["-c", "FATAL 57P01 terminating connection due to administrator command"],
        b"",
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("FATAL:  terminating connection due to administrator command"),
        "{stderr}"
    );
}
