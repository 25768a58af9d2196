//! Multixacts across `kill -9`: rows share-locked by two transactions and
//! rows updated past a FOR KEY SHARE locker carry multixact xmaxes, some
//! created before a checkpoint (their SLRU pages on disk) and some after
//! (only their WAL records survive). After the crash every one of them
//! resolves: the committed updates are seen, the old versions are not, the
//! locks of transactions the crash ended hold nothing, and new multis do
//! not collide with the recovered ones.

mod common;

use postgres::{Client, NoTls};

fn connect(server: &common::Server) -> Client {
    Client::connect(&server.conninfo(), NoTls).expect("connect")
}

/// Two open transactions share-lock rows `lo..=hi`; the first commits, the
/// second stays open (the crash will end it).
fn share_twice(a: &mut Client, b: &mut Client, lo: i32, hi: i32) {
    let lock = format!(
        "SELECT count(*) FROM (SELECT id FROM t WHERE id BETWEEN {lo} AND {hi} FOR SHARE) s"
    );
    a.batch_execute("BEGIN").unwrap();
    a.batch_execute(&lock).unwrap();
    b.batch_execute("BEGIN").unwrap();
    b.batch_execute(&lock).unwrap();
    a.batch_execute("COMMIT").unwrap();
}

/// Row `id` is key-share locked by an open transaction while another
/// updates it and commits: the old version's xmax is a multi with an
/// updater.
fn update_past_key_share(locker: &mut Client, updater: &mut Client, id: i32) {
    locker.batch_execute("BEGIN").unwrap();
    locker.query_one("SELECT id FROM t WHERE id = $1 FOR KEY SHARE", &[&id]).unwrap();
    updater.execute("UPDATE t SET v = v + 1 WHERE id = $1", &[&id]).unwrap();
    locker.batch_execute("COMMIT").unwrap();
}

#[test]
fn multixacts_survive_a_crash() {
    let mut server = common::Server::start();
    let (mut a, mut b, mut c) = (connect(&server), connect(&server), connect(&server));
    a.batch_execute(
        "CREATE TABLE t (id int PRIMARY KEY, v int NOT NULL);
         INSERT INTO t SELECT i, 0 FROM generate_series(1, 400) i;",
    )
    .unwrap();
    share_twice(&mut a, &mut b, 1, 100);
    update_past_key_share(&mut a, &mut c, 301);
    b.batch_execute("COMMIT").unwrap();
    a.batch_execute("CHECKPOINT").unwrap();
    share_twice(&mut a, &mut b, 101, 200);
    update_past_key_share(&mut a, &mut c, 302);
    let before: i64 = a.query_one("SELECT count(*) FROM t WHERE v = 1", &[]).unwrap().get(0);
    assert_eq!(before, 2);
    server.kill();
    drop((a, b, c));
    server.spawn();
    let mut a = connect(&server);
    let rows: i64 = a.query_one("SELECT count(*) FROM t", &[]).unwrap().get(0);
    assert_eq!(rows, 400, "no old version of an updated row shows");
    let updated: Vec<i32> = a
        .query("SELECT id FROM t WHERE v = 1 ORDER BY id", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(updated, vec![301, 302]);
    // The sharer the crash ended holds nothing: FOR UPDATE NOWAIT succeeds.
    a.batch_execute("BEGIN").unwrap();
    let locked: i64 = a
        .query_one(
            "SELECT count(*) FROM (SELECT id FROM t WHERE id <= 200 FOR UPDATE NOWAIT) s",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(locked, 200);
    a.batch_execute("COMMIT").unwrap();
    // New multis after recovery: two sharers again, and a third FOR UPDATE
    // NOWAIT fails against them.
    let (mut b, mut c) = (connect(&server), connect(&server));
    share_twice(&mut a, &mut b, 1, 10);
    a.batch_execute("BEGIN").unwrap();
    a.batch_execute("SELECT id FROM t WHERE id = 1 FOR SHARE").unwrap();
    let err = c
        .batch_execute("SELECT id FROM t WHERE id = 1 FOR UPDATE NOWAIT")
        .expect_err("two sharers hold the row");
    assert_eq!(err.code().map(|c| c.code()), Some("55P03"));
    a.batch_execute("COMMIT").unwrap();
    b.batch_execute("COMMIT").unwrap();
    a.batch_execute("VACUUM t").unwrap();
    let after: i64 = a.query_one("SELECT count(*) FROM t", &[]).unwrap().get(0);
    assert_eq!(after, 400);
}
