//! CREATE EXTENSION and DROP EXTENSION (PostgreSQL's `commands/extension.c`).
//!
//! # The idea
//!
//! PostgreSQL installs an extension by running its SQL script, which creates
//! the extension's functions in the target schema. sluice's extensions are
//! built into the server: installing one only records it in `pg_extension`,
//! and the functions it brings answer to their names only while that row
//! is visible (`installed`), so that before CREATE EXTENSION and after DROP
//! EXTENSION a call fails with 42883 as PostgreSQL's does. The only
//! extension so far is `pgstattuple` (`executor/functions/pgstattuple.rs`).
//!
//! # Invariants
//!
//! At most one `pg_extension` row per name. CREATE and DROP take SHARE ROW
//! EXCLUSIVE on `pg_extension` itself (PostgreSQL relies on its unique index
//! instead), so two sessions installing the same extension serialise and the
//! second sees the first's row (or fails on it) once the first commits.

use crate::catalog;
use crate::catalog::extension::EXTNAME;
use crate::catalog::schema::{BOOTSTRAP_SUPERUSER, PG_EXTENSION, PUBLIC_NAMESPACE};
use crate::commands::tablecmds::lock_relation;
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::sink::QuerySink;
use pg_query::protobuf::{CreateExtensionStmt, DropStmt};
use pg_query::NodeEnum;
use sluice_common::ItemPointer;
use sluice_txn::lmgr::LockMode;
use sluice_types::Datum;

/// An extension built into the server.
struct Available {
    name: &'static str,
    /// `extversion`: the version PostgreSQL 15's contrib installs by default.
    version: &'static str,
    /// `extrelocatable`.
    relocatable: bool,
}

/// The extensions CREATE EXTENSION can install.
const AVAILABLE: &[Available] =
    &[Available { name: "pgstattuple", version: "1.5", relocatable: true }];

/// create_extension -- `CREATE EXTENSION [IF NOT EXISTS] name [WITH ...]`.
pub fn create_extension(
    cx: &mut dyn BackendContext,
    stmt: &CreateExtensionStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let name = stmt.extname.as_str();
    lock_relation(cx, PG_EXTENSION.oid, LockMode::ShareRowExclusive)?;
    if find(cx, name)?.is_some() {
        if stmt.if_not_exists {
            let notice = format!("extension \"{name}\" already exists, skipping");
            sink.notice(&SqlError::new("42710", notice))?;
            return sink.complete("CREATE EXTENSION");
        }
        return Err(SqlError::new("42710", format!("extension \"{name}\" already exists")));
    }
    let Some(ext) = AVAILABLE.iter().find(|e| e.name == name) else {
        return Err(SqlError::new("0A000", format!("extension \"{name}\" is not available"))
            .with_detail(format!("sluice has no built-in extension \"{name}\"."))
            .with_hint(
                "The extension must first be installed on the system where PostgreSQL is running.",
            ));
    };
    if !stmt.options.is_empty() {
        return Err(SqlError::unsupported("CREATE EXTENSION options are not supported yet"));
    }
    let engine = cx.engine().clone();
    let db = cx.database();
    let oid = engine.new_oid()?;
    let row = vec![
        Datum::Oid(oid),
        Datum::Text(name.to_string()),
        Datum::Oid(BOOTSTRAP_SUPERUSER),
        Datum::Oid(PUBLIC_NAMESPACE),
        Datum::Bool(ext.relocatable),
        Datum::Text(ext.version.to_string()),
        Datum::Null,
        Datum::Null,
    ];
    catalog::insert(&engine, db, &PG_EXTENSION, cx.txn()?, &row)?;
    sink.complete("CREATE EXTENSION")
}

/// drop_extensions -- `DROP EXTENSION [IF EXISTS] name, ... [CASCADE]`.
pub fn drop_extensions(
    cx: &mut dyn BackendContext,
    stmt: &DropStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    lock_relation(cx, PG_EXTENSION.oid, LockMode::ShareRowExclusive)?;
    for object in &stmt.objects {
        let Some(NodeEnum::String(s)) = object.node.as_ref() else { continue };
        let name = s.sval.as_str();
        match find(cx, name)? {
            Some(tid) => {
                let engine = cx.engine().clone();
                let db = cx.database();
                catalog::delete(&engine, db, &PG_EXTENSION, cx.txn()?, tid)?;
            }
            None if stmt.missing_ok => {
                let notice = format!("extension \"{name}\" does not exist, skipping");
                sink.notice(&SqlError::new("00000", notice))?;
            }
            None => {
                return Err(SqlError::new("42704", format!("extension \"{name}\" does not exist")))
            }
        }
    }
    sink.complete("DROP EXTENSION")
}

/// The `pg_extension` row of `name`, as the session's transaction sees it.
fn find(cx: &mut dyn BackendContext, name: &str) -> Result<Option<ItemPointer>> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let txn = cx.txn()?;
    let rows = catalog::scan(
        &engine,
        db,
        &PG_EXTENSION,
        txn,
        |row| matches!(&row[EXTNAME], Datum::Text(n) if n == name),
    )?;
    Ok(rows.first().map(|(tid, _)| *tid))
}
