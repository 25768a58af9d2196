//! DDL and sequence state across `kill -9`: values nextval handed out to a
//! client are never handed out again after recovery (whether the transaction
//! that asked committed or rolled back, with checkpoints in between), and
//! created and dropped databases stay so.

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

fn connect_to(server: &common::Server, db: &str) -> Result<Client, postgres::Error> {
    let conninfo = server.conninfo().replace("dbname=postgres", &format!("dbname={db}"));
    Client::connect(&conninfo, NoTls)
}

#[test]
fn created_and_dropped_databases_survive_kill_minus_nine() {
    let mut server = common::Server::start();
    {
        let mut client = connect(&server);
        client.batch_execute("CREATE DATABASE kept").unwrap();
        client.batch_execute("CREATE DATABASE gone").unwrap();
        let mut kept = connect_to(&server, "kept").unwrap();
        kept.batch_execute("CREATE TABLE t (id serial, v text)").unwrap();
        kept.batch_execute("INSERT INTO t (v) VALUES ('x'), ('x'), ('x')").unwrap();
        drop(kept);
        // The template must have no sessions; the closed one ends shortly.
        while client
            .query_one("SELECT count(*) FROM pg_stat_activity WHERE datname = 'kept'", &[])
            .unwrap()
            .get::<_, i64>(0)
            > 0
        {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        client.batch_execute("CREATE DATABASE copied TEMPLATE kept").unwrap();
        client.batch_execute("DROP DATABASE gone").unwrap();
    }
    server.kill();
    server.spawn();
    let mut client = connect(&server);
    let names: Vec<String> = client
        .query("SELECT datname FROM pg_database WHERE datname IN ('kept', 'copied', 'gone') ORDER BY 1", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(names, ["copied", "kept"]);
    for db in ["kept", "copied"] {
        let mut c = connect_to(&server, db).unwrap();
        let n: i64 = c.query_one("SELECT count(*) FROM t", &[]).unwrap().get(0);
        assert_eq!(n, 3, "rows of t in {db}");
        let id: i32 =
            c.query_one("INSERT INTO t (v) VALUES ('y') RETURNING id", &[]).unwrap().get(0);
        // Past the values logged ahead before the crash (PostgreSQL skips them too).
        assert!(id > 3, "the sequence of {db} goes on, not back: {id}");
    }
    let error = connect_to(&server, "gone").err().expect("connecting fails");
    assert_eq!(error.code(), Some(&postgres::error::SqlState::INVALID_CATALOG_NAME));
    let directories = server.dir.path().join("base").read_dir().unwrap().count();
    assert_eq!(directories, 5, "template1, template0, postgres, kept and copied; gone is gone");
}
