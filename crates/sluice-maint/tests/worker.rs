//! VACUUM with no client: a background worker runs it through the same
//! maintenance commands a session's statement reaches.
//!
//! Run: `cargo nextest run -p sluice-maint --test worker`.

use sluice_maint::MaintenanceCommands;
use sluice_sql::postmaster::bgworker::start;
use sluice_sql::testing::{instance_with, run, session, Rows};
use std::sync::Arc;

#[test]
fn vacuum_runs_in_a_background_worker_without_a_client() {
    let dir = tempfile::tempdir().unwrap();
    let instance = instance_with(dir.path(), Arc::new(MaintenanceCommands));
    let mut s = session(&instance, 100);
    run(&mut s, "CREATE TABLE t (a int); INSERT INTO t SELECT * FROM generate_series(1, 100)");
    run(&mut s, "DELETE FROM t WHERE a <= 60");
    let handle = start(instance.clone(), "postgres", "background worker", |w| {
        let mut me = Rows::default();
        w.execute(
            "SELECT backend_type, query FROM pg_stat_activity WHERE pid = pg_backend_pid()",
            &mut me,
        )?;
        assert_eq!(me.0.len(), 1);
        assert!(me.0[0][0].contains("background worker"), "{:?}", me.0);
        w.execute("VACUUM t", &mut Rows::default())
    })
    .unwrap();
    let pid = handle.pid();
    handle.join().unwrap();
    let stats = run(
        &mut s,
        "SELECT n_dead_tup, vacuum_count, n_live_tup FROM pg_stat_user_tables WHERE relname = 't'",
    );
    assert_eq!(stats, vec![vec!["Int8(0)", "Int8(1)", "Int8(40)"]], "the worker's VACUUM counted");
    let rows = run(&mut s, &format!("SELECT count(*) FROM pg_stat_activity WHERE pid = {pid}"));
    assert_eq!(rows, vec![vec!["Int8(0)"]], "a finished worker leaves pg_stat_activity");
}

#[test]
fn a_worker_runs_statements_in_one_transaction_each_seeing_the_last() {
    let dir = tempfile::tempdir().unwrap();
    let instance = instance_with(dir.path(), Arc::new(MaintenanceCommands));
    let mut s = session(&instance, 100);
    run(&mut s, "CREATE TABLE t (a int)");
    let handle = start(instance.clone(), "postgres", "background worker", |w| {
        w.execute("INSERT INTO t VALUES (1); UPDATE t SET a = a + 1", &mut Rows::default())?;
        let mut rows = Rows::default();
        w.execute("SELECT a FROM t", &mut rows)?;
        assert_eq!(rows.0, vec![vec!["Int4(2)"]], "the UPDATE saw the INSERT");
        // A statement that needs a client fails the body: all rolled back.
        w.execute("CREATE TABLE u (a int)", &mut Rows::default())
    })
    .unwrap();
    let refused = handle.join().unwrap_err();
    assert_eq!(refused.code, "0A000", "{refused:?}");
    assert_eq!(run(&mut s, "SELECT count(*) FROM t"), vec![vec!["Int8(0)"]], "rolled back");
}
