//! DDL and sequence state across `kill -9`: values nextval handed out to a
//! client are never handed out again after recovery (whether the transaction
//! that asked committed or rolled back, with checkpoints in between).

mod common;

use postgres::{Client, NoTls};

fn connect(server: &common::Server) -> Client {
    Client::connect(&server.conninfo(), NoTls).expect("connect")
}

fn nextval(client: &mut Client, seq: &str) -> i64 {
    client.query_one("SELECT nextval($1)", &[&seq]).unwrap().get(0)
}

#[test]
fn nextval_never_repeats_a_value_after_kill_minus_nine() {
    let mut server = common::Server::start();
    connect(&server)
        .batch_execute("CREATE SEQUENCE s; CREATE TABLE t (id serial, v text)")
        .unwrap();
    let (mut highest, mut highest_id) = (0i64, 0i32);
    for round in 0..3 {
        let mut client = connect(&server);
        let first = nextval(&mut client, "s");
        assert!(first > highest, "round {round}: {first} was handed out before the crash");
        for _ in 0..40 {
            highest = nextval(&mut client, "s");
        }
        // Values seen inside a rolled-back transaction count as handed out.
        client.batch_execute("BEGIN").unwrap();
        for _ in 0..5 {
            highest = nextval(&mut client, "s");
        }
        client.batch_execute("ROLLBACK").unwrap();
        let id: i32 =
            client.query_one("INSERT INTO t (v) VALUES ('x') RETURNING id", &[]).unwrap().get(0);
        assert!(id > highest_id, "round {round}: id {id} was handed out before the crash");
        highest_id = id;
        if round == 1 {
            client.batch_execute("CHECKPOINT").unwrap();
            highest = nextval(&mut client, "s");
        }
        drop(client);
        server.kill();
        server.spawn();
    }
    let mut client = connect(&server);
    assert!(nextval(&mut client, "s") > highest);
    let rows: i64 = client.query_one("SELECT count(*) FROM t", &[]).unwrap().get(0);
    assert_eq!(rows, 3, "every acknowledged insert survived");
}
