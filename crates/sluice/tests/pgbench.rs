//! PostgreSQL 15's own `pgbench` (found on PATH; Debian ships it in the
//! package postgresql-15, which tests/run installs; the tests fail if it is
//! missing) against a real sluice server.
//!
//! `pgbench -i -I dtg` drops and creates the four tables, then in one
//! transaction TRUNCATEs them, inserts branches and tellers and COPYs the
//! accounts `WITH (FREEZE ON)`; every run first asks the catalogs (a LATERAL
//! join over `pg_class`, `pg_namespace`, `pg_partitioned_table` and
//! `pg_inherits`) whether `pgbench_accounts` is partitioned. Each builtin
//! script then runs with two clients in each protocol mode (simple,
//! extended, prepared), and must finish every transaction without a failure.
//!
//! Afterwards pgbench's invariant must hold: every tpcb-like transaction adds
//! the same delta to an account, a teller, a branch and the history, so
//! sum(abalance) = sum(delta) = sum(tbalance) = sum(bbalance); simple-update
//! changes only accounts and history, so after it the first equality still
//! holds and tellers still equal branches. The main test initialises at
//! scale 2 with pgbench's default steps (`dtgvp`: its `vacuum analyze` of
//! each table, then primary keys), so every statement that names an account
//! finds it through `pgbench_accounts_pkey`; after the runs a database-wide
//! VACUUM removes the versions the updates left, and the invariant and the
//! row counts must still hold. Timings are printed, never asserted.

mod common;

use common::pgbench::{describe, pgbench, require_pgbench};

use postgres::{Client, NoTls};
use std::time::Instant;

/// Transactions per client in each run.
const TRANSACTIONS: u32 = 50;
/// Concurrent clients in each run.
const CLIENTS: u32 = 2;

/// initialise -- `pgbench -i [-I <steps>] -s <scale>` (pgbench's default
/// steps without `steps`), which must succeed.
fn initialise(server: &common::Server, steps: Option<&str>, scale: u32) {
    let start = Instant::now();
    let scale_arg = scale.to_string();
    let mut args = vec!["-i", "-s", &scale_arg];
    if let Some(steps) = steps {
        args.extend(["-I", steps]);
    }
    let output = pgbench(server, &args);
    assert!(output.status.success(), "pgbench {args:?} failed: {}", describe(&output));
    eprintln!("pgbench {args:?}: {:.1?}", start.elapsed());
}

/// run -- one builtin script in one protocol mode; every transaction must
/// be processed and none may fail.
fn run(server: &common::Server, script: &str, mode: &str) {
    let (clients, transactions) = (CLIENTS.to_string(), TRANSACTIONS.to_string());
    let start = Instant::now();
    let output =
        pgbench(server, &["-n", "-c", &clients, "-t", &transactions, "-M", mode, "-b", script]);
    let report = describe(&output);
    assert!(output.status.success(), "pgbench -b {script} -M {mode} failed: {report}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let total = CLIENTS * TRANSACTIONS;
    let processed = format!("number of transactions actually processed: {total}/{total}");
    assert!(stdout.contains(&processed), "-b {script} -M {mode}: not all processed: {report}");
    assert!(
        stdout.contains("number of failed transactions: 0 "),
        "-b {script} -M {mode}: transactions failed: {report}"
    );
    eprintln!(
        "pgbench -b {script} -M {mode} -c {CLIENTS} -t {TRANSACTIONS}: {:.1?}",
        start.elapsed()
    );
}

/// The four sums of pgbench's invariant: (accounts, history, tellers, branches).
fn balances(client: &mut Client) -> (i64, i64, i64, i64) {
    let row = client
        .query_one(
            "SELECT (SELECT coalesce(sum(abalance), 0) FROM pgbench_accounts), \
                    (SELECT coalesce(sum(delta), 0) FROM pgbench_history), \
                    (SELECT coalesce(sum(tbalance), 0) FROM pgbench_tellers), \
                    (SELECT coalesce(sum(bbalance), 0) FROM pgbench_branches)",
            &[],
        )
        .expect("sums");
    (row.get(0), row.get(1), row.get(2), row.get(3))
}

/// The number of rows of `table`.
fn count(client: &mut Client, table: &str) -> i64 {
    client.query_one(&format!("SELECT count(*) FROM {table}"), &[]).expect("count").get(0)
}

/// assert_scale -- the tables hold what `pgbench -i -s <scale>` generates:
/// per unit of scale one branch, ten tellers and 100,000 accounts, all
/// balances zero, no history.
fn assert_scale(client: &mut Client, scale: i64) {
    let rows: Vec<i64> = ["pgbench_branches", "pgbench_tellers", "pgbench_accounts"]
        .iter()
        .map(|t| count(client, t))
        .collect();
    assert_eq!(rows, [scale, 10 * scale, 100_000 * scale]);
    assert_eq!(balances(client), (0, 0, 0, 0));
}

#[test]
fn pgbench_initialises_and_runs_every_builtin_script_in_every_mode() {
    require_pgbench();
    let server = common::Server::start();
    initialise(&server, None, 2);
    let mut client = Client::connect(&server.conninfo(), NoTls).expect("connect");
    assert_scale(&mut client, 2);
    let keys: i64 = client
        .query_one("SELECT count(*) FROM pg_constraint WHERE contype = 'p'", &[])
        .expect("primary keys")
        .get(0);
    assert_eq!(keys, 3, "branches, tellers and accounts have primary keys");

    for mode in ["simple", "extended", "prepared"] {
        run(&server, "tpcb-like", mode);
    }
    let (accounts, history, tellers, branches) = balances(&mut client);
    assert_eq!((accounts, tellers, branches), (history, history, history), "tpcb-like invariant");
    assert_eq!(count(&mut client, "pgbench_history"), 3 * i64::from(CLIENTS * TRANSACTIONS));

    for script in ["simple-update", "select-only"] {
        for mode in ["simple", "extended", "prepared"] {
            run(&server, script, mode);
        }
    }
    let (accounts, history, tellers, branches) = balances(&mut client);
    assert_eq!(accounts, history, "simple-update keeps accounts equal to the history");
    assert_eq!(tellers, branches, "simple-update leaves tellers and branches alone");
    assert_eq!(count(&mut client, "pgbench_history"), 6 * i64::from(CLIENTS * TRANSACTIONS));

    client.batch_execute("VACUUM").expect("database-wide VACUUM");
    assert_eq!(balances(&mut client), (accounts, history, tellers, branches), "VACUUM kept rows");
    assert_eq!(count(&mut client, "pgbench_accounts"), 200_000);
    run(&server, "tpcb-like", "prepared");
    let (accounts, history, tellers, branches) = balances(&mut client);
    assert_eq!((accounts, tellers), (history, branches), "both invariants hold after VACUUM");
}

#[test]
fn pgbench_generates_data_on_the_server_too() {
    require_pgbench();
    let server = common::Server::start();
    initialise(&server, Some("dtG"), 1);
    let mut client = Client::connect(&server.conninfo(), NoTls).expect("connect");
    assert_scale(&mut client, 1);
    // Initialising again drops the filled tables and starts over.
    run(&server, "tpcb-like", "simple");
    initialise(&server, Some("dtg"), 1);
    assert_scale(&mut client, 1);
}
