//! CREATE, ALTER and DROP SEQUENCE, and sequence ownership (PostgreSQL's
//! `commands/sequence.c`, DDL half; the functions are in `functions.rs`).
//!
//! A sequence is a relation of kind 'S': a `pg_class` row, three
//! `pg_attribute` rows (`last_value`, `log_cnt`, `is_called`, what
//! `SELECT * FROM seq` shows), a `pg_sequence` row with its parameters, and a
//! one-page file holding the counter (`sluice_access::sequence`).
//!
//! What is transactional and what is not, as in PostgreSQL:
//! * The parameters are catalog rows. ALTER SEQUENCE that changes anything but
//!   ownership writes the new state into a **new relfilenode** and points
//!   `pg_class` at it; the old file goes at commit, the new one at abort, so a
//!   rolled-back ALTER (RESTART included) leaves the sequence as it was.
//! * The counter is not: nextval changes the page in place and a rolled-back
//!   transaction does not return its values.
//!
//! Locks: CREATE and DROP take AccessExclusive on the sequence, ALTER takes
//! ShareRowExclusive (which waits for running nextval calls, which hold
//! RowExclusive, and keeps new ones out until commit).
//!
//! Ownership (`OWNED BY t.col`, and serial columns) is an auto `pg_depend`
//! row from the sequence to the column, so DROP TABLE drops the sequence; a
//! serial column's default also depends (normally) on the sequence, so DROP
//! SEQUENCE alone refuses without CASCADE.

mod options;

pub use options::{init_params, SeqOptions};

use super::tablecmds::{lock_relation, remove_relation};
use crate::catalog::bootstrap::{attribute_row, ClassRow, FrozenBounds};
use crate::catalog::depend::{self, DepType, Dependency, ObjectAddress, ATTRDEF_CLASS};
use crate::catalog::namespace::missing_relation;
use crate::catalog::relation::{self, oid_of, RelationId};
use crate::catalog::schema::*;
use crate::catalog::{delete, insert, replace, scan};
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::executor::functions::sequence::not_a_sequence;
use crate::parser::node_str;
use crate::sink::QuerySink;
use pg_query::protobuf::{AlterSeqStmt, CreateSeqStmt, DropBehavior, DropStmt, RangeVar};
use pg_query::NodeEnum;
use sluice_access::sequence::{self, SeqParams, SeqState};
use sluice_common::{Oid, RelFileLocator, DEFAULTTABLESPACE_OID};
use sluice_txn::lmgr::LockMode;
use sluice_types::{Datum, SqlType};

/// The columns of every sequence relation.
const SEQUENCE_COLUMNS: [(&str, SqlType); 3] =
    [("last_value", SqlType::Int8), ("log_cnt", SqlType::Int8), ("is_called", SqlType::Bool)];

/// CREATE SEQUENCE.
pub fn create_sequence(
    cx: &mut dyn BackendContext,
    stmt: &CreateSeqStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let rv = stmt.sequence.as_ref().ok_or_else(|| SqlError::internal("sequence without a name"))?;
    if rv.relpersistence != "p" {
        return Err(SqlError::unsupported("temporary and unlogged sequences are not supported"));
    }
    let namespace = cx.creation_namespace(rv)?;
    let exists = relation_exists(cx, namespace, &rv.relname)?;
    if exists && stmt.if_not_exists {
        sink.notice(&SqlError::new(
            "42P07",
            format!("relation \"{}\" already exists, skipping", rv.relname),
        ))?;
        return sink.complete("CREATE SEQUENCE");
    }
    let options = SeqOptions::parse(&stmt.options)?;
    let state = init_params(&options, None)?;
    if exists {
        return Err(SqlError::new("42P07", format!("relation \"{}\" already exists", rv.relname)));
    }
    let seq = create_sequence_relation(cx, &rv.relname, namespace, &state)?;
    if let Some(owner) = &options.owned_by {
        set_owned_by(cx, &seq, owner)?;
    }
    sink.complete("CREATE SEQUENCE")
}

/// Whether a relation `name` exists in `namespace`.
pub(crate) fn relation_exists(
    cx: &mut dyn BackendContext,
    namespace: Oid,
    name: &str,
) -> Result<bool> {
    let engine = cx.engine().clone();
    let db = cx.database();
    Ok(relation::find(&engine, db, cx.txn()?, &[namespace], name)?.is_some())
}

/// create_sequence_relation -- the catalog rows and the file of a new
/// sequence holding `state`; its file goes away if the transaction aborts.
pub(crate) fn create_sequence_relation(
    cx: &mut dyn BackendContext,
    name: &str,
    namespace: Oid,
    state: &SeqState,
) -> Result<RelationId> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let oid = engine.new_oid()?;
    let locator = RelFileLocator { spc_oid: DEFAULTTABLESPACE_OID, db_oid: db, rel_number: oid };
    lock_relation(cx, oid, LockMode::AccessExclusive)?;
    let txn = cx.txn()?;
    let class = ClassRow {
        oid,
        name,
        namespace,
        relfilenode: oid,
        tablespace: DEFAULTTABLESPACE_OID,
        shared: false,
        kind: RelKind::Sequence,
        natts: SEQUENCE_COLUMNS.len() as i16,
        options: None,
        frozen: FrozenBounds::now(&engine)?,
    };
    insert(&engine, db, &PG_CLASS, txn, &class.values())?;
    for (i, (column, ty)) in SEQUENCE_COLUMNS.iter().enumerate() {
        let row = attribute_row(oid, column, *ty, -1, i as i16 + 1, true, false);
        insert(&engine, db, &PG_ATTRIBUTE, txn, &row)?;
    }
    insert(&engine, db, &PG_SEQUENCE, txn, &sequence_row(oid, &state.params))?;
    sequence::create(&engine, locator, state)?;
    // The rest of the statement (a CREATE TABLE choosing more sequence
    // names, OWNED BY) sees the new relation.
    txn.increment_command();
    cx.xact()?.delete_on_abort(locator);
    Ok(RelationId { oid, name: name.to_string(), namespace, locator, kind: RelKind::Sequence })
}

/// A `pg_sequence` row.
fn sequence_row(relid: Oid, p: &SeqParams) -> Vec<Datum> {
    vec![
        Datum::Oid(relid),
        Datum::Oid(p.typid),
        Datum::Int8(p.start),
        Datum::Int8(p.increment),
        Datum::Int8(p.max),
        Datum::Int8(p.min),
        Datum::Int8(p.cache),
        Datum::Bool(p.cycle),
    ]
}

/// open_sequence -- the sequence `rv` names, locked in `mode`: 42P01 if there
/// is no such relation, 42809 if it is not a sequence. `None` when missing
/// and `missing_ok`.
fn open_sequence(
    cx: &mut dyn BackendContext,
    rv: &RangeVar,
    mode: LockMode,
    missing_ok: bool,
) -> Result<Option<RelationId>> {
    let Some(rel) = cx.find_relation(rv)? else {
        if missing_ok {
            return Ok(None);
        }
        return Err(missing_relation(&rv.relname));
    };
    lock_relation(cx, rel.oid, mode)?;
    if rel.kind != RelKind::Sequence {
        return Err(not_a_sequence(&rel.name));
    }
    Ok(Some(rel))
}

/// ALTER SEQUENCE [IF EXISTS] name options.
pub fn alter_sequence(
    cx: &mut dyn BackendContext,
    stmt: &AlterSeqStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let rv = stmt.sequence.as_ref().ok_or_else(|| SqlError::internal("sequence without a name"))?;
    let Some(seq) = open_sequence(cx, rv, LockMode::ShareRowExclusive, stmt.missing_ok)? else {
        sink.notice(&SqlError::new(
            "00000",
            format!("relation \"{}\" does not exist, skipping", rv.relname),
        ))?;
        return sink.complete("ALTER SEQUENCE");
    };
    let options = SeqOptions::parse(&stmt.options)?;
    let engine = cx.engine().clone();
    let current = sequence::read(&engine, seq.locator)?;
    let state = init_params(&options, Some(current))?;
    if options.rewrites() {
        rewrite(cx, &seq, &state)?;
    }
    if let Some(owner) = &options.owned_by {
        set_owned_by(cx, &seq, owner)?;
    }
    sink.complete("ALTER SEQUENCE")
}

/// set_sequence_type -- `ALTER SEQUENCE seq AS ty`, for an identity column
/// whose type changed: limits that were the old type's own become the new
/// type's.
pub(crate) fn set_sequence_type(
    cx: &mut dyn BackendContext,
    seq: &RelationId,
    ty: SqlType,
) -> Result<()> {
    let options = SeqOptions { as_type: Some(ty), ..SeqOptions::default() };
    let current = sequence::read(cx.engine(), seq.locator)?;
    let state = init_params(&options, Some(current))?;
    rewrite(cx, seq, &state)
}

/// rewrite -- gives `seq` a new relfilenode holding `state` and records the
/// new parameters (see the module doc for why).
fn rewrite(cx: &mut dyn BackendContext, seq: &RelationId, state: &SeqState) -> Result<()> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let filenode = engine.new_oid()?;
    let locator = RelFileLocator { rel_number: filenode, ..seq.locator };
    sequence::create(&engine, locator, state)?;
    cx.xact()?.delete_on_abort(locator);
    cx.xact()?.delete_on_commit(seq.locator);
    let txn = cx.txn()?;
    let oid = seq.oid;
    for (tid, mut row) in scan(&engine, db, &PG_CLASS, txn, |r| oid_of(&r[0]) == oid)? {
        row[6] = Datum::Oid(filenode);
        replace(&engine, db, &PG_CLASS, txn, tid, &row)?;
    }
    for (tid, _) in scan(&engine, db, &PG_SEQUENCE, txn, |r| oid_of(&r[0]) == oid)? {
        replace(&engine, db, &PG_SEQUENCE, txn, tid, &sequence_row(oid, &state.params))?;
    }
    Ok(())
}

/// set_owned_by -- `OWNED BY table.column` or `OWNED BY NONE` (PostgreSQL's
/// process_owned_by): replaces the sequence's auto dependency.
pub(crate) fn set_owned_by(
    cx: &mut dyn BackendContext,
    seq: &RelationId,
    names: &[String],
) -> Result<()> {
    let column = match names {
        [none] if none == "none" => None,
        [.., _, _] => Some(owning_column(cx, seq, names)?),
        _ => {
            return Err(SqlError::syntax("invalid OWNED BY option")
                .with_hint("Specify OWNED BY table.column or OWNED BY NONE."))
        }
    };
    let engine = cx.engine().clone();
    let db = cx.database();
    let txn = cx.txn()?;
    let me = ObjectAddress::relation(seq.oid);
    depend::remove(&engine, db, txn, |d| d.object == me && d.kind == DepType::Auto)?;
    if let Some(referenced) = column {
        depend::record(
            &engine,
            db,
            txn,
            &Dependency { object: me, referenced, kind: DepType::Auto },
        )?;
    }
    Ok(())
}

/// The column `OWNED BY [schema.]table.column` names, checked as PostgreSQL does.
fn owning_column(
    cx: &mut dyn BackendContext,
    seq: &RelationId,
    names: &[String],
) -> Result<ObjectAddress> {
    let (table_names, column) = names.split_at(names.len() - 1);
    let rv = match table_names {
        [table] => RangeVar { relname: table.clone(), location: -1, ..Default::default() },
        [schema, table] => RangeVar {
            schemaname: schema.clone(),
            relname: table.clone(),
            location: -1,
            ..Default::default()
        },
        _ => {
            return Err(SqlError::syntax(format!(
                "improper relation name (too many dotted names): {}",
                table_names.join(".")
            )))
        }
    };
    let table = cx.find_named(&rv)?;
    let (engine, db) = (cx.engine().clone(), cx.database());
    lock_relation(cx, table.oid, LockMode::AccessShare)?;
    if table.kind != RelKind::Table {
        return Err(SqlError::new(
            "42809",
            format!("sequence cannot be owned by relation \"{}\"", table.name),
        )
        .with_detail("This operation is not supported for sequences."));
    }
    if table.namespace != seq.namespace {
        return Err(SqlError::new(
            "55000",
            "sequence must be in same schema as table it is linked to",
        ));
    }
    let attnum =
        relation::attnum_of(&engine, db, cx.txn()?, table.oid, &column[0])?.ok_or_else(|| {
            SqlError::new(
                "42703",
                format!("column \"{}\" of relation \"{}\" does not exist", column[0], table.name),
            )
        })?;
    Ok(ObjectAddress::column(table.oid, attnum))
}

/// DROP SEQUENCE [IF EXISTS] name [, ...] [CASCADE | RESTRICT].
pub fn drop_sequences(
    cx: &mut dyn BackendContext,
    stmt: &DropStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let cascade = stmt.behavior == DropBehavior::DropCascade as i32;
    for object in &stmt.objects {
        let Some(NodeEnum::List(list)) = object.node.as_ref() else { continue };
        let names: Vec<String> = list.items.iter().filter_map(node_str).collect();
        let rv = range_var(&names)?;
        let Some(seq) = cx.find_relation(&rv)? else {
            if stmt.missing_ok {
                sink.notice(&SqlError::new(
                    "00000",
                    format!("sequence \"{}\" does not exist, skipping", rv.relname),
                ))?;
                continue;
            }
            return Err(SqlError::new(
                "42P01",
                format!("sequence \"{}\" does not exist", rv.relname),
            ));
        };
        if seq.kind != RelKind::Sequence {
            return Err(not_a_sequence(&seq.name).with_hint("Use DROP TABLE to remove a table."));
        }
        lock_relation(cx, seq.oid, LockMode::AccessExclusive)?;
        refuse_identity_sequence(cx, &seq)?;
        drop_dependent_defaults(cx, &seq, cascade, sink)?;
        remove_relation(cx, &seq)?;
    }
    sink.complete("DROP SEQUENCE")
}

/// 2BP01 for an identity column's sequence, which goes only with its column.
fn refuse_identity_sequence(cx: &mut dyn BackendContext, seq: &RelationId) -> Result<()> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let me = depend::ObjectAddress::relation(seq.oid);
    let owner =
        depend::find(&engine, db, cx.txn()?, |d| d.object == me && d.kind == DepType::Internal)?;
    let Some((_, dep)) = owner.into_iter().next() else { return Ok(()) };
    let table = relation::find_by_oid(&engine, db, cx.txn()?, dep.referenced.objid)?;
    let table = table.map(|t| t.name).unwrap_or_default();
    let column = attribute_name(cx, dep.referenced.objid, dep.referenced.objsubid)?;
    Err(SqlError::new(
        "2BP01",
        format!(
            "cannot drop sequence {} because column {column} of table {table} requires it",
            seq.name
        ),
    )
    .with_hint(format!("You can drop column {column} of table {table} instead.")))
}

/// The name of attribute `attnum` of relation `relid`.
fn attribute_name(cx: &mut dyn BackendContext, relid: Oid, attnum: i32) -> Result<String> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let at = Datum::Int2(attnum as i16);
    let rows = scan(&engine, db, &PG_ATTRIBUTE, cx.txn()?, |r| {
        matches!(r[0], Datum::Oid(o) if o == relid) && r[4] == at
    })?;
    Ok(rows.first().and_then(|(_, r)| r[1].as_str().map(str::to_string)).unwrap_or_default())
}

/// The RangeVar of a dotted name list from a DROP statement.
pub(crate) fn range_var(names: &[String]) -> Result<RangeVar> {
    match names {
        [name] => Ok(RangeVar { relname: name.clone(), location: -1, ..Default::default() }),
        [schema, name] => Ok(RangeVar {
            schemaname: schema.clone(),
            relname: name.clone(),
            location: -1,
            ..Default::default()
        }),
        _ => Err(SqlError::syntax(format!(
            "improper qualified name (too many dotted names): {}",
            names.join(".")
        ))),
    }
}

/// drop_dependent_defaults -- the column defaults using `seq`: without
/// `cascade` their existence is an error (2BP01), with it they are dropped
/// (PostgreSQL's dependency.c, for the one kind of dependent sluice has).
pub(crate) fn drop_dependent_defaults(
    cx: &mut dyn BackendContext,
    seq: &RelationId,
    cascade: bool,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let target = ObjectAddress::relation(seq.oid);
    let txn = cx.txn()?;
    let dependents =
        depend::find(&engine, db, txn, |d| d.referenced == target && d.kind == DepType::Normal)?;
    if dependents.is_empty() {
        return Ok(());
    }
    let mut described = Vec::new();
    for (_, dep) in &dependents {
        described.push(describe_default(cx, dep.object.objid)?);
    }
    if !cascade {
        let detail: Vec<String> =
            described.iter().map(|d| format!("{d} depends on sequence {}", seq.name)).collect();
        return Err(SqlError::new(
            "2BP01",
            format!("cannot drop sequence {} because other objects depend on it", seq.name),
        )
        .with_detail(detail.join("\n"))
        .with_hint("Use DROP ... CASCADE to drop the dependent objects too."));
    }
    sink.notice(&cascade_notice(&described))?;
    for (_, dep) in &dependents {
        drop_default(cx, dep.object.objid)?;
    }
    Ok(())
}

/// PostgreSQL's NOTICE listing what a CASCADE drops.
fn cascade_notice(described: &[String]) -> SqlError {
    match described {
        [one] => SqlError::new("00000", format!("drop cascades to {one}")),
        many => SqlError::new("00000", format!("drop cascades to {} other objects", many.len()))
            .with_detail(
                many.iter().map(|d| format!("drop cascades to {d}")).collect::<Vec<_>>().join("\n"),
            ),
    }
}

/// The `pg_attrdef` row with OID `oid`: (row address, table, column number).
fn attrdef(
    cx: &mut dyn BackendContext,
    oid: Oid,
) -> Result<Option<(sluice_common::ItemPointer, Oid, i16)>> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let rows = scan(&engine, db, &PG_ATTRDEF, cx.txn()?, |r| oid_of(&r[0]) == oid)?;
    Ok(rows.into_iter().next().map(|(tid, r)| {
        let attnum = if let Datum::Int2(n) = r[2] { n } else { 0 };
        (tid, oid_of(&r[1]), attnum)
    }))
}

/// "default value for column c of table t", as dependency messages say.
fn describe_default(cx: &mut dyn BackendContext, oid: Oid) -> Result<String> {
    let Some((_, table, attnum)) = attrdef(cx, oid)? else {
        return Ok(format!("default value {oid}"));
    };
    let engine = cx.engine().clone();
    let db = cx.database();
    let txn = cx.txn()?;
    let rel = relation::find_by_oid(&engine, db, txn, table)?;
    let column = scan(&engine, db, &PG_ATTRIBUTE, txn, |r| {
        oid_of(&r[0]) == table && r[4] == Datum::Int2(attnum)
    })?;
    let column_name = column.first().and_then(|(_, r)| r[1].as_str().map(str::to_string));
    Ok(format!(
        "default value for column {} of table {}",
        column_name.unwrap_or_default(),
        rel.map(|r| r.name).unwrap_or_default()
    ))
}

/// drop_default -- removes column default `oid` (its `pg_attrdef` row, its
/// dependencies, and `atthasdef` of its column).
fn drop_default(cx: &mut dyn BackendContext, oid: Oid) -> Result<()> {
    let Some((tid, table, attnum)) = attrdef(cx, oid)? else { return Ok(()) };
    let engine = cx.engine().clone();
    let db = cx.database();
    lock_relation(cx, table, LockMode::AccessExclusive)?;
    let txn = cx.txn()?;
    delete(&engine, db, &PG_ATTRDEF, txn, tid)?;
    depend::remove(&engine, db, txn, |d| {
        d.object.classid == ATTRDEF_CLASS && d.object.objid == oid
    })?;
    let columns = scan(&engine, db, &PG_ATTRIBUTE, txn, |r| {
        oid_of(&r[0]) == table && r[4] == Datum::Int2(attnum)
    })?;
    for (tid, mut row) in columns {
        row[7] = Datum::Bool(false);
        replace(&engine, db, &PG_ATTRIBUTE, txn, tid, &row)?;
    }
    txn.increment_command();
    Ok(())
}

/// The sequences owned by (auto-dependent on) a column of table `oid`.
pub(crate) fn owned_sequences(cx: &mut dyn BackendContext, table: Oid) -> Result<Vec<RelationId>> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let txn = cx.txn()?;
    let owned = depend::find(&engine, db, txn, |d| {
        matches!(d.kind, DepType::Auto | DepType::Internal)
            && d.referenced.classid == depend::RELATION_CLASS
            && d.referenced.objid == table
            && d.object.classid == depend::RELATION_CLASS
    })?;
    let mut sequences = Vec::new();
    for (_, dep) in owned {
        if let Some(seq) = relation::find_by_oid(&engine, db, txn, dep.object.objid)? {
            sequences.push(seq);
        }
    }
    Ok(sequences)
}

/// The default text of a serial column (what `pg_attrdef` shows):
/// `nextval('name'::regclass)`, the name quoted as an identifier if needed.
pub(crate) use crate::catalog::relation::serial_default;

/// The parameters of an identity column's sequence: its `GENERATED ... AS
/// IDENTITY (options)`, of the column's type unless they say `AS`.
pub(crate) fn identity_state(
    ty: SqlType,
    options: &[pg_query::protobuf::Node],
) -> Result<SeqState> {
    let named = |n: &&pg_query::protobuf::Node| matches!(n.node.as_ref(), Some(NodeEnum::DefElem(d)) if d.defname == "sequence_name");
    let options: Vec<_> = options.iter().filter(|n| !named(n)).cloned().collect();
    let mut o = SeqOptions::parse(&options)?;
    if o.owned_by.is_some() {
        return Err(SqlError::syntax("invalid sequence option OWNED BY"));
    }
    o.as_type.get_or_insert(ty);
    init_params(&o, None)
}

/// The `SEQUENCE NAME name` among an identity column's options (pg_dump
/// writes it), its last part: the sequence goes in the table's schema.
pub(crate) fn identity_sequence_name(options: &[pg_query::protobuf::Node]) -> Option<String> {
    options.iter().find_map(|n| match n.node.as_ref() {
        Some(NodeEnum::DefElem(d)) if d.defname == "sequence_name" => {
            match d.arg.as_deref().and_then(|a| a.node.as_ref()) {
                Some(NodeEnum::List(list)) => list.items.last().and_then(node_str),
                _ => None,
            }
        }
        _ => None,
    })
}

/// `CREATE SEQUENCE`'s parameters for a serial column of type `ty`.
pub(crate) fn serial_state(ty: SqlType) -> Result<SeqState> {
    init_params(&SeqOptions { as_type: Some(ty), ..SeqOptions::default() }, None)
}
