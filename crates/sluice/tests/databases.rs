//! Sessions and databases: a session sees only its database; DROP DATABASE
//! refuses while other sessions use it (55006, with PostgreSQL's DETAIL) and
//! WITH (FORCE) ends them; CREATE/DROP DATABASE refuse to run in a
//! multi-statement query string; connecting to a missing database is 3D000
//! and to template0 55000.

mod common;

use postgres::error::SqlState;
use postgres::{Client, NoTls};

fn connect_to(server: &common::Server, db: &str) -> Result<Client, postgres::Error> {
    let conninfo = server.conninfo().replace("dbname=postgres", &format!("dbname={db}"));
    Client::connect(&conninfo, NoTls)
}

#[test]
fn drop_database_refuses_while_sessions_use_it_and_force_ends_them() {
    let server = common::Server::start();
    let mut admin = connect_to(&server, "postgres").unwrap();
    admin.batch_execute("CREATE DATABASE busy").unwrap();
    let mut user = connect_to(&server, "busy").unwrap();
    user.batch_execute("CREATE TABLE only_here (a int)").unwrap();
    let error = admin.batch_execute("SELECT * FROM only_here").unwrap_err();
    assert_eq!(error.code(), Some(&SqlState::UNDEFINED_TABLE));

    let error = admin.batch_execute("DROP DATABASE busy").unwrap_err();
    let db_error = error.as_db_error().expect("a server error");
    assert_eq!(db_error.code(), &SqlState::OBJECT_IN_USE);
    assert_eq!(db_error.message(), "database \"busy\" is being accessed by other users");
    assert_eq!(db_error.detail(), Some("There is 1 other session using the database."));
    let error = admin.batch_execute("CREATE DATABASE copy TEMPLATE busy").unwrap_err();
    assert_eq!(
        error.as_db_error().map(|e| e.message()),
        Some("source database \"busy\" is being accessed by other users")
    );

    let error = admin.batch_execute("SELECT 1; DROP DATABASE busy").unwrap_err();
    assert_eq!(
        error.as_db_error().map(|e| e.message()),
        Some("DROP DATABASE cannot run inside a transaction block")
    );

    admin.batch_execute("DROP DATABASE busy WITH (FORCE)").unwrap();
    let error = user.batch_execute("SELECT 1").unwrap_err();
    assert!(error.is_closed() || error.code() == Some(&SqlState::ADMIN_SHUTDOWN), "{error}");
    let error = connect_to(&server, "busy").err().expect("connecting fails");
    assert_eq!(error.code(), Some(&SqlState::INVALID_CATALOG_NAME));
    let error = connect_to(&server, "template0").err().expect("connecting fails");
    assert_eq!(error.code(), Some(&SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE));
}
