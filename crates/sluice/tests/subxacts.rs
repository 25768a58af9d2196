//! Subtransactions seen from other sessions: `pg_stat_get_backend_subxact`
//! counts a backend's live subtransaction ids (never overflowed), and another
//! session's reads give the same answers whether the writer holds 0, 65 or
//! 1,000 subtransactions.

mod common;

use postgres::{Client, NoTls};

fn connect(server: &common::Server) -> Client {
    Client::connect(&server.conninfo(), NoTls).expect("connect")
}

/// The writer's backend id and its (subxact_count, subxact_overflowed).
fn subxacts_of(observer: &mut Client, pid: i32) -> (i32, bool) {
    let row = observer
        .query_one(
            "SELECT id FROM pg_stat_get_backend_idset() id WHERE pg_stat_get_backend_pid(id) = $1",
            &[&pid],
        )
        .expect("the writer has a backend id");
    let id: i32 = row.get(0);
    let row = observer
        .query_one(&format!("SELECT * FROM pg_stat_get_backend_subxact({id})"), &[])
        .unwrap();
    (row.get(0), row.get(1))
}

#[test]
fn many_subtransactions_are_counted_and_do_not_change_what_others_see() {
    let server = common::Server::start();
    let (mut writer, mut observer) = (connect(&server), connect(&server));
    writer.batch_execute("CREATE TABLE t (id int); INSERT INTO t VALUES (0)").unwrap();
    let pid: i32 = writer.query_one("SELECT pg_backend_pid()", &[]).unwrap().get(0);
    writer.batch_execute("BEGIN; INSERT INTO t VALUES (1)").unwrap();
    assert_eq!(subxacts_of(&mut observer, pid), (0, false));
    let mut held = 0;
    for target in [65, 1000] {
        while held < target {
            held += 1;
            writer
                .batch_execute(&format!("SAVEPOINT s{held}; INSERT INTO t VALUES ({held})"))
                .unwrap();
        }
        assert_eq!(subxacts_of(&mut observer, pid), (held, false), "no overflow at {held}");
        let seen: i64 = observer.query_one("SELECT count(*) FROM t", &[]).unwrap().get(0);
        assert_eq!(seen, 1, "uncommitted subtransactions stay invisible");
    }
    writer.batch_execute("ROLLBACK TO s500").unwrap();
    assert_eq!(subxacts_of(&mut observer, pid), (499, false), "rolled back ones are gone");
    writer.batch_execute("COMMIT").unwrap();
    assert_eq!(subxacts_of(&mut observer, pid), (0, false));
    let seen: i64 = observer.query_one("SELECT count(*) FROM t", &[]).unwrap().get(0);
    assert_eq!(seen, 2 + 499, "row 0, the top-level row and those of s1..s499");
}
