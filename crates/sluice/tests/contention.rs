//! Stress tests under contention: several clients change the same few rows
//! for a couple of seconds, then the table must show exactly what the
//! committed transactions did.
//!
//! Isolation specs check the interleavings someone thought of; these check
//! the ones nobody did. Each workload runs four clients over ten rows, so
//! nearly every statement meets a concurrent writer of its row, and
//! afterwards:
//!
//! * every key has exactly one live version (two writers that both changed
//!   one version would leave two successors, i.e. two rows with one id);
//! * the counters add up to the changes the clients saw commit: an update
//!   that overwrote a concurrent committed update without seeing it
//!   (a lost update) makes the sum fall short.
//!
//! Each workload runs on three layouts of the table: no index at all, a
//! primary key on `id` (the counter is not indexed, so updates are HOT),
//! and an extra index on the counter with wide rows (every update is
//! non-HOT, and most move the row to another page). pgbench's tpcb-like
//! script with four clients checks its own invariant the same way:
//! accounts, tellers and branches each sum to the history.
//!
//! Figures are printed, never asserted; only the invariants are.

mod common;

use common::pgbench::{describe, pgbench, require_pgbench};
use postgres::{Client, NoTls};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Concurrent clients per workload.
const CLIENTS: usize = 4;
/// Rows they fight over.
const ROWS: i32 = 10;
/// How long each workload runs.
const RUN_FOR: Duration = Duration::from_millis(1500);

/// How the contended table is laid out.
#[derive(Clone, Copy, Debug)]
enum Layout {
    /// No index: every lookup is a sequential scan.
    Heap,
    /// A primary key on `id`; updates of `v` are HOT.
    PrimaryKey,
    /// A primary key and an index on `v`, rows of ~2 kB: no update is HOT
    /// and most go to another page.
    IndexedCounter,
}

const LAYOUTS: [Layout; 3] = [Layout::Heap, Layout::PrimaryKey, Layout::IndexedCounter];

/// create_table -- `ctr(id, v, pad)` with `ROWS` rows at zero, laid out as
/// `layout` says.
fn create_table(client: &mut Client, layout: Layout) {
    let (key, pad) = match layout {
        Layout::Heap => ("", 1),
        Layout::PrimaryKey => (" PRIMARY KEY", 1),
        Layout::IndexedCounter => (" PRIMARY KEY", 2000),
    };
    client
        .batch_execute(&format!(
            "DROP TABLE IF EXISTS ctr CASCADE;
             CREATE TABLE ctr (id int{key}, v bigint NOT NULL, pad text);
             INSERT INTO ctr SELECT g, 0, repeat('x', {pad}) FROM generate_series(1, {ROWS}) g;"
        ))
        .expect("create ctr");
    if matches!(layout, Layout::IndexedCounter) {
        client.batch_execute("CREATE INDEX ctr_v ON ctr (v)").expect("index on v");
    }
}

/// A small deterministic generator (xorshift), so each client picks its
/// rows without a dependency on a random number crate.
struct Rng(u64);

impl Rng {
    fn row(&mut self) -> i32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % ROWS as u64) as i32 + 1
    }
}

/// Whether `e` is a failure a client of this workload may meet and retry:
/// a serialization failure (40001) or a deadlock (40P01).
fn retryable(e: &postgres::Error) -> bool {
    e.code().is_some_and(|c| c.code() == "40001" || c.code() == "40P01")
}

/// hammer -- runs `step` in `CLIENTS` threads for `RUN_FOR`, each with its
/// own connection and row generator. `step` returns how much it added to
/// the counters (0 when the row was gone or the transaction failed in a
/// way the workload allows; negative when it took rows away). Returns the
/// total added.
fn hammer(
    server: &common::Server,
    step: impl Fn(&mut Client, i32) -> Result<i64, postgres::Error> + Sync,
) -> i64 {
    let added = AtomicI64::new(0);
    let tries = AtomicU64::new(0);
    std::thread::scope(|scope| {
        for n in 0..CLIENTS {
            let (added, tries, step) = (&added, &tries, &step);
            scope.spawn(move || {
                let mut client = Client::connect(&server.conninfo(), NoTls).expect("connect");
                let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (n as u64 + 1));
                let start = Instant::now();
                while start.elapsed() < RUN_FOR {
                    tries.fetch_add(1, Ordering::Relaxed);
                    match step(&mut client, rng.row()) {
                        Ok(n) => {
                            added.fetch_add(n, Ordering::Relaxed);
                        }
                        Err(e) if retryable(&e) => {
                            client.batch_execute("ROLLBACK").expect("rollback");
                        }
                        Err(e) => panic!("client {n}: {e:?}"),
                    }
                }
            });
        }
    });
    let (added, tries) = (added.into_inner(), tries.into_inner());
    eprintln!("  {tries} transactions, {added} changes committed");
    added
}

/// assert_consistent -- one live version per key (`rows` keys in all,
/// `None` for any number), and the counters sum to what the clients saw
/// commit.
fn assert_consistent(client: &mut Client, what: &str, rows: Option<i64>, committed: i64) {
    let row = client
        .query_one("SELECT count(*), count(DISTINCT id), coalesce(sum(v), 0)::bigint FROM ctr", &[])
        .expect("sums");
    let (found, keys, sum): (i64, i64, i64) = (row.get(0), row.get(1), row.get(2));
    assert_eq!(found, keys, "{what}: one version per key");
    if let Some(rows) = rows {
        assert_eq!(found, rows, "{what}: every key is there");
    }
    assert_eq!(sum, committed, "{what}: counters sum to the committed changes");
}

/// run_workload -- `step` on every layout, checking the invariants after each.
fn run_workload(
    what: &str,
    step: impl Fn(&mut Client, i32) -> Result<i64, postgres::Error> + Sync,
) {
    run_on(what, &LAYOUTS, true, step);
}

/// run_on -- `step` on each of `layouts`, the table starting with its
/// `ROWS` rows (`filled`) or empty.
fn run_on(
    what: &str,
    layouts: &[Layout],
    filled: bool,
    step: impl Fn(&mut Client, i32) -> Result<i64, postgres::Error> + Sync,
) {
    let server = common::Server::start();
    let mut client = Client::connect(&server.conninfo(), NoTls).expect("connect");
    for &layout in layouts {
        create_table(&mut client, layout);
        if !filled {
            client.batch_execute("DELETE FROM ctr").expect("empty ctr");
        }
        eprintln!("{what} on {layout:?}:");
        let committed = hammer(&server, &step);
        assert!(committed != 0, "{what} on {layout:?}: no change committed at all");
        let rows = filled.then_some(i64::from(ROWS));
        assert_consistent(&mut client, &format!("{what} on {layout:?}"), rows, committed);
    }
}

#[test]
fn concurrent_updates_of_one_row_are_serialised_under_read_committed() {
    run_workload("UPDATE", |client, id| {
        let n = client.execute("UPDATE ctr SET v = v + 1 WHERE id = $1", &[&id])?;
        assert_eq!(n, 1, "an update under READ COMMITTED follows the row, never loses it");
        Ok(1)
    });
}

#[test]
fn concurrent_updates_under_repeatable_read_fail_instead_of_overwriting() {
    run_workload("REPEATABLE READ UPDATE", |client, id| {
        client.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ")?;
        let n = client.execute("UPDATE ctr SET v = v + 1 WHERE id = $1", &[&id])?;
        client.batch_execute("COMMIT")?;
        Ok(n as i64)
    });
}

#[test]
fn select_for_update_serialises_read_modify_write() {
    run_workload("SELECT FOR UPDATE", |client, id| {
        client.batch_execute("BEGIN")?;
        let v: i64 = client.query_one("SELECT v FROM ctr WHERE id = $1 FOR UPDATE", &[&id])?.get(0);
        client.execute("UPDATE ctr SET v = $2 WHERE id = $1", &[&id, &(v + 1)])?;
        client.batch_execute("COMMIT")?;
        Ok(1)
    });
}

#[test]
fn key_share_lockers_do_not_lose_updates() {
    // Half the clients lock rows FOR KEY SHARE (what a foreign key check
    // takes), half update them: the lockers turn plain xmaxes into
    // multixacts, and the updates still add up.
    run_workload("UPDATE beside FOR KEY SHARE", |client, id| {
        if id % 2 == 0 {
            client.batch_execute("BEGIN")?;
            client.query("SELECT 1 FROM ctr WHERE id = $1 FOR KEY SHARE", &[&id])?;
            client.query("SELECT 1 FROM ctr WHERE id = $1 FOR KEY SHARE", &[&(id - 1)])?;
            client.batch_execute("COMMIT")?;
            return Ok(0);
        }
        Ok(client.execute("UPDATE ctr SET v = v + 1 WHERE id = $1", &[&id])? as i64)
    });
}

#[test]
fn concurrent_deleters_of_one_row_delete_it_once() {
    // Each step moves a row: deletes it and inserts it again with the
    // counter raised. A second deleter of the same version must find it
    // gone (and insert nothing), or the key would end up twice.
    run_workload("DELETE and re-INSERT", |client, id| {
        client.batch_execute("BEGIN")?;
        let gone = client.query("DELETE FROM ctr WHERE id = $1 RETURNING v, pad", &[&id])?;
        let moved = gone.len() as i64;
        for row in gone {
            let (v, pad): (i64, String) = (row.get(0), row.get(1));
            client.execute("INSERT INTO ctr VALUES ($1, $2, $3)", &[&id, &(v + 1), &pad])?;
        }
        client.batch_execute("COMMIT")?;
        Ok(moved)
    });
}

#[test]
fn concurrent_upserts_of_one_key_insert_it_once_and_lose_no_increment() {
    // Every other step deletes its key (taking its count away), so the
    // upserts keep racing to insert keys as well as to update them: no
    // race may raise a unique violation, insert a key twice or lose an
    // increment.
    let upsert = "INSERT INTO ctr VALUES ($1, 1, 'x') ON CONFLICT (id) DO UPDATE SET v = ctr.v + 1";
    let layouts = [Layout::PrimaryKey, Layout::IndexedCounter];
    run_on("INSERT ... ON CONFLICT DO UPDATE", &layouts, false, |client, id| {
        if id % 3 == 0 {
            let gone = client.query("DELETE FROM ctr WHERE id = $1 RETURNING v", &[&id])?;
            return Ok(-gone.iter().map(|r| r.get::<_, i64>(0)).sum::<i64>());
        }
        assert_eq!(client.execute(upsert, &[&id])?, 1, "an upsert inserts or updates");
        Ok(1)
    });
    run_on("INSERT ... ON CONFLICT DO NOTHING", &layouts, false, |client, id| {
        if id % 3 == 0 {
            let gone = client.query("DELETE FROM ctr WHERE id = $1 RETURNING v", &[&id])?;
            return Ok(-(gone.len() as i64));
        }
        let n =
            client.execute("INSERT INTO ctr VALUES ($1, 1, 'x') ON CONFLICT DO NOTHING", &[&id])?;
        Ok(n as i64)
    });
}

#[test]
fn updates_beside_maintenance_lose_nothing() {
    // The steps that draw row 1 run maintenance instead (in turn): VACUUM, ANALYZE
    // and VACUUM FULL of the table and a catalog, each table in its own
    // transaction, committing between tables while the others update the
    // rows being vacuumed, analysed or rewritten.
    let maintenance = ["VACUUM ctr, pg_class", "ANALYZE ctr, pg_class", "VACUUM FULL ctr"];
    let turn = AtomicU64::new(0);
    run_workload("UPDATE beside VACUUM, ANALYZE, VACUUM FULL", |client, id| {
        if id == 1 {
            let which = turn.fetch_add(1, Ordering::Relaxed) as usize % maintenance.len();
            client.batch_execute(maintenance[which])?;
            return Ok(0);
        }
        Ok(client.execute("UPDATE ctr SET v = v + 1 WHERE id = $1", &[&id])? as i64)
    });
}

#[test]
fn updates_beside_alter_table_lose_nothing() {
    // The steps that draw row 1 alter the table instead (in turn, several
    // clients at once): add a column with a default and drop it, add and
    // drop a CHECK constraint the rows meet, rename a column there and
    // back. The DDL queues behind the updates and they behind it; a DDL
    // statement that waited must see what the one before it committed (IF
    // [NOT] EXISTS keeps them from failing on each other), and the updates
    // go on through every new shape of the table, prepared statements
    // included.
    let ddl = [
        "ALTER TABLE ctr ADD COLUMN IF NOT EXISTS extra int DEFAULT 7",
        "ALTER TABLE ctr DROP COLUMN IF EXISTS extra",
        "ALTER TABLE ctr DROP CONSTRAINT IF EXISTS v_ok, ADD CONSTRAINT v_ok CHECK (v >= 0)",
        "ALTER TABLE ctr DROP CONSTRAINT IF EXISTS v_ok",
        "ALTER TABLE ctr RENAME COLUMN pad TO pad2",
        "ALTER TABLE ctr RENAME COLUMN pad2 TO pad",
    ];
    let turn = AtomicU64::new(0);
    run_workload("UPDATE beside ALTER TABLE", |client, id| {
        if id == 1 {
            let which = turn.fetch_add(1, Ordering::Relaxed) as usize % ddl.len();
            return match client.batch_execute(ddl[which]) {
                Ok(()) => Ok(0),
                // A rename whose column the other rename moved away.
                Err(e) if e.code().is_some_and(|c| c.code() == "42703" || c.code() == "42701") => {
                    Ok(0)
                }
                Err(e) => Err(e),
            };
        }
        Ok(client.execute("UPDATE ctr SET v = v + 1 WHERE id = $1", &[&id])? as i64)
    });
}

#[test]
fn updates_beside_view_and_schema_ddl_lose_nothing() {
    // The steps that draw row 1 change what is around the table instead:
    // they replace and drop a view over it (whose readers plan its stored
    // query), rename a column the view reads and back (which rewrites the
    // view's query), and create and drop a schema holding a view over it.
    // The other steps update the counters and read them through the view.
    // Whatever commits in between, the counters add up and a read through
    // the view sees a whole table; DDL that waited for other DDL sees what
    // that committed (a drop of a view dropped meanwhile, a rename of a
    // table whose view was replaced meanwhile) instead of failing on it.
    let ddl = [
        "CREATE OR REPLACE VIEW ctr_view AS SELECT id, v, pad FROM ctr",
        "DROP VIEW IF EXISTS ctr_view",
        "ALTER TABLE ctr RENAME COLUMN pad TO pad2",
        "ALTER TABLE ctr RENAME COLUMN pad2 TO pad",
        "CREATE SCHEMA IF NOT EXISTS side; CREATE OR REPLACE VIEW side.v AS SELECT v FROM ctr",
        "DROP SCHEMA IF EXISTS side CASCADE",
    ];
    // Concurrent DDL on one name fails as PostgreSQL's does: 42P01/42P07/
    // 42703/42701 for what another step dropped, made or renamed first,
    // 3F000 for a schema dropped meanwhile.
    let expected = ["42P01", "42P07", "42703", "42701", "3F000", "42P06"];
    let turn = AtomicU64::new(0);
    run_workload("UPDATE beside view and schema DDL", |client, id| {
        if id == 1 {
            let which = turn.fetch_add(1, Ordering::Relaxed) as usize % ddl.len();
            return match client.batch_execute(ddl[which]) {
                Ok(()) => Ok(0),
                Err(e) if e.code().is_some_and(|c| expected.contains(&c.code())) => {
                    client.batch_execute("ROLLBACK")?;
                    Ok(0)
                }
                Err(e) => Err(e),
            };
        }
        if id == 2 {
            return match client.query_one("SELECT count(*), count(DISTINCT id) FROM ctr_view", &[])
            {
                Ok(row) => {
                    let (rows, keys): (i64, i64) = (row.get(0), row.get(1));
                    assert_eq!((rows, keys), (i64::from(ROWS), i64::from(ROWS)), "a whole table");
                    Ok(0)
                }
                Err(e) if e.code().is_some_and(|c| expected.contains(&c.code())) => Ok(0),
                Err(e) => Err(e),
            };
        }
        Ok(client.execute("UPDATE ctr SET v = v + 1 WHERE id = $1", &[&id])? as i64)
    });
}

#[test]
fn pgbench_tpcb_balances_equal_the_history_with_four_clients() {
    require_pgbench();
    let server = common::Server::start();
    let init = pgbench(&server, &["-i", "-s", "1", "-q"]);
    assert!(init.status.success(), "pgbench -i: {}", describe(&init));
    let mut client = Client::connect(&server.conninfo(), NoTls).expect("connect");
    for mode in ["simple", "prepared"] {
        let run = pgbench(&server, &["-n", "-c", "4", "-j", "2", "-T", "2", "-M", mode]);
        assert!(run.status.success(), "pgbench -M {mode}: {}", describe(&run));
        let row = client
            .query_one(
                "SELECT (SELECT sum(abalance) FROM pgbench_accounts)::bigint,
                        (SELECT sum(tbalance) FROM pgbench_tellers)::bigint,
                        (SELECT sum(bbalance) FROM pgbench_branches)::bigint,
                        (SELECT sum(delta) FROM pgbench_history)::bigint,
                        (SELECT count(*) FROM pgbench_history)",
                &[],
            )
            .expect("sums");
        let (a, t, b, h, n): (i64, i64, i64, i64, i64) =
            (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4));
        eprintln!("pgbench -M {mode}: {n} transactions in history");
        assert_eq!((a, t, b), (h, h, h), "-M {mode}: balances equal the history");
    }
}

#[test]
fn referencing_rows_never_outlive_their_referenced_row() {
    // Four clients insert and delete parents while inserting children that
    // reference them, both through ON DELETE CASCADE and through NO ACTION,
    // and deleting the latter. A child's check locks its parent FOR KEY
    // SHARE, a parent's delete waits for that lock and then finds (NO
    // ACTION: fails on) or removes (CASCADE) the child; any interleaving
    // that let a child commit beside its parent's delete leaves an orphan.
    let server = common::Server::start();
    let mut setup = Client::connect(&server.conninfo(), NoTls).expect("connect");
    setup
        .batch_execute(
            "CREATE TABLE parent (id int PRIMARY KEY, v int DEFAULT 0);
             CREATE TABLE cascading (id serial, pid int REFERENCES parent ON DELETE CASCADE);
             CREATE TABLE restricting (id serial, pid int REFERENCES parent);",
        )
        .expect("schema");
    let steps = [
        "INSERT INTO parent VALUES ($1) ON CONFLICT DO NOTHING",
        "INSERT INTO cascading (pid) VALUES ($1)",
        "INSERT INTO restricting (pid) VALUES ($1)",
        "UPDATE parent SET v = v + 1 WHERE id = $1",
        "DELETE FROM parent WHERE id = $1",
        "DELETE FROM restricting WHERE pid = $1",
    ];
    let done = AtomicU64::new(0);
    let refused = AtomicU64::new(0);
    std::thread::scope(|scope| {
        for client_no in 0..CLIENTS {
            let (server, done, refused) = (&server, &done, &refused);
            scope.spawn(move || {
                let mut client = Client::connect(&server.conninfo(), NoTls).expect("connect");
                let started = Instant::now();
                let mut n = client_no as u64 * 7;
                while started.elapsed() < RUN_FOR {
                    n += 1;
                    let id = (n % ROWS as u64) as i32 + 1;
                    let step = steps[(n / ROWS as u64 % steps.len() as u64) as usize];
                    match client.execute(step, &[&id]) {
                        Ok(_) => done.fetch_add(1, Ordering::Relaxed),
                        // A missing parent, a parent still referenced, or
                        // two clients locking each other's rows.
                        Err(e)
                            if e.code().is_some_and(|c| ["23503", "40P01"].contains(&c.code())) =>
                        {
                            refused.fetch_add(1, Ordering::Relaxed)
                        }
                        Err(e) => panic!("{step} ({id}): {e}"),
                    };
                }
            });
        }
    });
    eprintln!(
        "foreign keys under contention: {} statements done, {} refused",
        done.load(Ordering::Relaxed),
        refused.load(Ordering::Relaxed)
    );
    for table in ["cascading", "restricting"] {
        let orphans: i64 = setup
            .query_one(
                &format!(
                    "SELECT count(*) FROM {table} c
                      WHERE NOT EXISTS (SELECT 1 FROM parent p WHERE p.id = c.pid)"
                ),
                &[],
            )
            .expect("orphans")
            .get(0);
        assert_eq!(orphans, 0, "{table}: rows whose parent is gone");
    }
}
