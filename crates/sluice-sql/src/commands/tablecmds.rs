//! CREATE TABLE and DROP TABLE (PostgreSQL's `commands/tablecmds.c` and
//! `catalog/heap.c`).
//!
//! Creating a table inserts its `pg_class`, `pg_attribute` and `pg_attrdef`
//! rows under the session's transaction, creates its file (WAL-logged) and
//! takes an AccessExclusive lock on it; if the transaction aborts, the rows are
//! invisible and the file is removed. Dropping deletes the rows and removes the
//! file once the transaction commits.

use super::node_str;
use crate::catalog::bootstrap::{attribute_row, class_row};
use crate::catalog::relation::{self, RelationDesc};
use crate::catalog::schema::*;
use crate::catalog::{delete, insert, scan};
use crate::error::{Result, SqlError};
use crate::session::{ExecParts, Session};
use crate::sink::QuerySink;
use pg_query::protobuf::{
    ColumnDef, ConstrType, CreateStmt, DropStmt, LockStmt, ObjectType, RangeVar,
};
use pg_query::NodeEnum;
use sluice_common::{ForkNumber, Oid, RelFileLocator, DEFAULTTABLESPACE_OID};
use sluice_guc::Settings;
use sluice_txn::lmgr::{LockError, LockMode, LockTag, LockWaitParams};
use sluice_types::{Datum, SqlType};

/// PostgreSQL's limit on columns per table.
const MAX_COLUMNS: usize = 1600;

/// A column of a table being created.
struct NewColumn {
    name: String,
    ty: SqlType,
    typmod: i32,
    not_null: bool,
    default: Option<String>,
}

/// The namespace a (possibly qualified) name goes to.
fn target_namespace(rv: &RangeVar) -> Result<Oid> {
    match rv.schemaname.as_str() {
        "" | "public" => Ok(PUBLIC_NAMESPACE),
        "pg_catalog" => Ok(PG_CATALOG_NAMESPACE),
        other => Err(SqlError::new("3F000", format!("schema \"{other}\" does not exist"))
            .at(position(rv.location))),
    }
}

fn position(location: i32) -> Option<u32> {
    (location >= 0).then_some(location as u32 + 1)
}

/// CREATE TABLE.
pub fn create_table(
    session: &mut Session,
    stmt: &CreateStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let rv =
        stmt.relation.as_ref().ok_or_else(|| SqlError::internal("CREATE TABLE without a name"))?;
    let namespace = target_namespace(rv)?;
    let columns = new_columns(stmt)?;
    let options = reloptions(stmt)?;
    let engine = session.engine().clone();
    let db = session.database();
    if relation::lookup(&engine, db, session.txn()?, &[namespace], &rv.relname)?.is_some() {
        if stmt.if_not_exists {
            sink.notice(&SqlError::new(
                "42P07",
                format!("relation \"{}\" already exists, skipping", rv.relname),
            ))?;
            return sink.complete("CREATE TABLE");
        }
        return Err(SqlError::new("42P07", format!("relation \"{}\" already exists", rv.relname)));
    }
    let oid = engine.new_oid()?;
    let locator = RelFileLocator { spc_oid: DEFAULTTABLESPACE_OID, db_oid: db, rel_number: oid };
    lock_relation(session, oid, LockMode::AccessExclusive)?;
    let txn = session.txn()?;
    insert(
        &engine,
        db,
        &PG_CLASS,
        txn,
        &class_row(
            oid,
            &rv.relname,
            namespace,
            oid,
            DEFAULTTABLESPACE_OID,
            false,
            columns.len() as i16,
            options,
        ),
    )?;
    for (i, c) in columns.iter().enumerate() {
        let attnum = i as i16 + 1;
        insert(
            &engine,
            db,
            &PG_ATTRIBUTE,
            txn,
            &attribute_row(oid, &c.name, c.ty, c.typmod, attnum, c.not_null, c.default.is_some()),
        )?;
        if let Some(default) = &c.default {
            let row = [
                Datum::Oid(engine.new_oid()?),
                Datum::Oid(oid),
                Datum::Int2(attnum),
                Datum::Text(default.clone()),
            ];
            insert(&engine, db, &PG_ATTRDEF, txn, &row)?;
        }
    }
    engine.create_relation_fork(locator, ForkNumber::Main)?;
    session.delete_on_abort(locator);
    sink.complete("CREATE TABLE")
}

fn new_columns(stmt: &CreateStmt) -> Result<Vec<NewColumn>> {
    let mut columns: Vec<NewColumn> = Vec::new();
    for element in &stmt.table_elts {
        match element.node.as_ref() {
            Some(NodeEnum::ColumnDef(def)) => {
                let column = new_column(def)?;
                if columns.iter().any(|c| c.name == column.name) {
                    return Err(SqlError::new(
                        "42701",
                        format!("column \"{}\" specified more than once", column.name),
                    ));
                }
                columns.push(column);
            }
            Some(NodeEnum::Constraint(_)) => {
                return Err(SqlError::unsupported("table constraints are not supported yet"));
            }
            _ => {
                return Err(SqlError::unsupported("this CREATE TABLE element is not supported yet"))
            }
        }
    }
    if columns.len() > MAX_COLUMNS {
        return Err(SqlError::new(
            "54011",
            format!("tables can have at most {MAX_COLUMNS} columns"),
        ));
    }
    Ok(columns)
}

fn new_column(def: &ColumnDef) -> Result<NewColumn> {
    let type_name =
        def.type_name.as_ref().ok_or_else(|| SqlError::internal("column without a type"))?;
    let (ty, typmod) = crate::expr::type_from_name(type_name)?;
    let mut column = NewColumn {
        name: def.colname.clone(),
        ty,
        typmod,
        not_null: def.is_not_null,
        default: None,
    };
    for constraint in &def.constraints {
        let Some(NodeEnum::Constraint(c)) = constraint.node.as_ref() else { continue };
        match ConstrType::try_from(c.contype).unwrap_or(ConstrType::Undefined) {
            ConstrType::ConstrNotnull => column.not_null = true,
            ConstrType::ConstrNull => column.not_null = false,
            ConstrType::ConstrDefault => {
                let expr = c
                    .raw_expr
                    .as_deref()
                    .ok_or_else(|| SqlError::internal("DEFAULT without expression"))?;
                column.default = Some(deparse_expr(expr)?);
            }
            _ => {
                return Err(SqlError::unsupported(
                    "column constraints other than NOT NULL and DEFAULT are not supported yet",
                ))
            }
        }
    }
    Ok(column)
}

/// SQL text of an expression node (stored in `pg_attrdef.adbin`).
pub(crate) fn deparse_expr(expr: &pg_query::protobuf::Node) -> Result<String> {
    let target = pg_query::protobuf::ResTarget {
        name: String::new(),
        indirection: vec![],
        val: Some(Box::new(expr.clone())),
        location: -1,
    };
    // Every enum field must hold a valid value: libpg_query asserts on
    // protobuf's "undefined" zeros when it converts the tree back.
    let select = pg_query::protobuf::SelectStmt {
        target_list: vec![pg_query::protobuf::Node {
            node: Some(NodeEnum::ResTarget(Box::new(target))),
        }],
        op: pg_query::protobuf::SetOperation::SetopNone as i32,
        limit_option: pg_query::protobuf::LimitOption::Default as i32,
        ..Default::default()
    };
    let text = NodeEnum::SelectStmt(Box::new(select))
        .deparse(pg_query::DeparseOptions::default())
        .map_err(|e| SqlError::internal(format!("could not deparse expression: {e}")))?;
    Ok(text.strip_prefix("SELECT ").unwrap_or(&text).to_string())
}

/// `WITH (fillfactor = 70, ...)` as PostgreSQL prints reloptions: `{fillfactor=70}`.
fn reloptions(stmt: &CreateStmt) -> Result<Option<String>> {
    let mut items = Vec::new();
    for option in &stmt.options {
        let Some(NodeEnum::DefElem(def)) = option.node.as_ref() else { continue };
        let value = def.arg.as_deref().and_then(node_str).unwrap_or_else(|| "true".into());
        validate_reloption(&def.defname, &value)?;
        items.push(format!("{}={}", def.defname, value));
    }
    Ok((!items.is_empty()).then(|| format!("{{{}}}", items.join(","))))
}

fn validate_reloption(name: &str, value: &str) -> Result<()> {
    match name {
        "fillfactor" => match value.parse::<i64>() {
            Ok(v) if (10..=100).contains(&v) => Ok(()),
            Ok(v) => Err(SqlError::new(
                "22023",
                format!("value {v} out of bounds for option \"fillfactor\""),
            )
            .with_detail("Valid values are between \"10\" and \"100\".")),
            Err(_) => Err(SqlError::new(
                "22023",
                format!("invalid value for integer option \"fillfactor\": {value}"),
            )),
        },
        n if n.starts_with("autovacuum_")
            || n.starts_with("toast_")
            || n == "parallel_workers"
            || n == "vacuum_truncate"
            || n == "vacuum_index_cleanup"
            || n == "user_catalog_table"
            || n == "log_autovacuum_min_duration" =>
        {
            Ok(())
        }
        other => Err(SqlError::new("22023", format!("unrecognized parameter \"{other}\""))),
    }
}

/// Takes a table lock under the session's transaction.
pub(crate) fn lock_relation(session: &mut Session, oid: Oid, mode: LockMode) -> Result<()> {
    lock_relation_in(&mut session.parts()?, oid, mode)
}

/// Takes a table lock under the statement's transaction; waits are interrupted
/// by cancel and timeouts.
pub(crate) fn lock_relation_in(parts: &mut ExecParts, oid: Oid, mode: LockMode) -> Result<()> {
    lock_relation_with(parts, oid, mode, false, None)
}

/// lock_relation_with -- takes a table lock honouring `lock_timeout` and
/// `deadlock_timeout`; `nowait` fails at once with 55P03 naming `name`.
pub(crate) fn lock_relation_with(
    parts: &mut ExecParts,
    oid: Oid,
    mode: LockMode,
    nowait: bool,
    name: Option<&str>,
) -> Result<()> {
    let interrupts = parts.env.interrupts.clone();
    let interrupted = move || interrupts().is_err();
    let mut params = LockWaitParams::new(&interrupted);
    params.nowait = nowait;
    params.lock_timeout = parts.env.settings.get_duration("lock_timeout").filter(|d| !d.is_zero());
    if let Some(d) = parts.env.settings.get_duration("deadlock_timeout") {
        params.deadlock_timeout = d;
    }
    let tag = LockTag::Relation { database: parts.env.database, relation: oid };
    parts.txn.lock(tag, mode, &params).map_err(|e| match e {
        LockError::Interrupted => match (parts.env.interrupts)() {
            Err(reason) => reason,
            Ok(()) => SqlError::from(e),
        },
        LockError::NotAvailable(_) => SqlError::new(
            "55P03",
            format!("could not obtain lock on relation \"{}\"", name.unwrap_or("?")),
        ),
        other => SqlError::from(other),
    })
}

/// LOCK [TABLE] name [, ...] [IN mode MODE] [NOWAIT].
pub fn lock_table(session: &mut Session, stmt: &LockStmt, sink: &mut dyn QuerySink) -> Result<()> {
    if !session.in_transaction_block() {
        return Err(SqlError::new("25P01", "LOCK TABLE can only be used in transaction blocks"));
    }
    // The grammar's lock mode numbers are PostgreSQL's LOCKMODE values 1..=8.
    let mode = LockMode::ALL
        .get((stmt.mode as usize).wrapping_sub(1))
        .copied()
        .ok_or_else(|| SqlError::internal(format!("unknown lock mode {}", stmt.mode)))?;
    for relation in &stmt.relations {
        let Some(NodeEnum::RangeVar(rv)) = relation.node.as_ref() else { continue };
        let mut parts = session.parts()?;
        let rel = crate::catalog::relation::lookup(
            parts.engine,
            parts.env.database,
            parts.txn,
            &[PG_CATALOG_NAMESPACE, PUBLIC_NAMESPACE],
            &rv.relname,
        )?
        .ok_or_else(|| {
            SqlError::new("42P01", format!("relation \"{}\" does not exist", rv.relname))
        })?;
        lock_relation_with(&mut parts, rel.oid, mode, stmt.nowait, Some(&rel.name))?;
    }
    sink.complete("LOCK TABLE")
}

/// DROP TABLE [IF EXISTS] name, ...
pub fn drop(session: &mut Session, stmt: &DropStmt, sink: &mut dyn QuerySink) -> Result<()> {
    if ObjectType::try_from(stmt.remove_type).ok() != Some(ObjectType::ObjectTable) {
        return Err(SqlError::unsupported("only DROP TABLE is supported yet"));
    }
    for object in &stmt.objects {
        let Some(NodeEnum::List(list)) = object.node.as_ref() else { continue };
        let names: Vec<String> = list.items.iter().filter_map(node_str).collect();
        let name = names.last().cloned().unwrap_or_default();
        let engine = session.engine().clone();
        let db = session.database();
        let search = session.search_path();
        let Some(rel) = relation::lookup(&engine, db, session.txn()?, &search, &name)? else {
            if stmt.missing_ok {
                sink.notice(&SqlError::new(
                    "00000",
                    format!("table \"{name}\" does not exist, skipping"),
                ))?;
                continue;
            }
            return Err(SqlError::new("42P01", format!("table \"{name}\" does not exist")));
        };
        if rel.namespace == PG_CATALOG_NAMESPACE {
            return Err(SqlError::new(
                "42501",
                format!("permission denied: \"{name}\" is a system catalog"),
            ));
        }
        lock_relation(session, rel.oid, LockMode::AccessExclusive)?;
        remove_catalog_rows(session, &rel)?;
        session.delete_on_commit(rel.locator);
    }
    sink.complete("DROP TABLE")
}

fn remove_catalog_rows(session: &mut Session, rel: &RelationDesc) -> Result<()> {
    let engine = session.engine().clone();
    let db = session.database();
    let oid = rel.oid;
    let txn = session.txn()?;
    let is_oid = |d: &Datum| matches!(d, Datum::Oid(o) if *o == oid);
    for (def, column) in [(&PG_CLASS, 0), (&PG_ATTRIBUTE, 0), (&PG_ATTRDEF, 1)] {
        for (tid, _) in scan(&engine, db, def, txn, |r| is_oid(&r[column]))? {
            delete(&engine, db, def, txn, tid)?;
        }
    }
    Ok(())
}
