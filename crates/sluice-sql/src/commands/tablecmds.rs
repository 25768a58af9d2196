//! CREATE TABLE and DROP TABLE (PostgreSQL's `commands/tablecmds.c`,
//! `catalog/heap.c` and the serial-column part of `parse_utilcmd.c`), and
//! the relation locking every DDL statement uses.
//!
//! Creating a table inserts its `pg_class`, `pg_attribute` and `pg_attrdef`
//! rows under the session's transaction, creates its file (WAL-logged) and
//! takes an AccessExclusive lock on it; if the transaction aborts, the rows are
//! invisible and the file is removed. Dropping deletes the rows and removes the
//! file once the transaction commits.
//!
//! A `serial` column is an integer column with a sequence of its own
//! (`<table>_<column>_seq`, owned by the column), the default
//! `nextval('<table>_<column>_seq'::regclass)` and NOT NULL; dropping the
//! table drops the sequence (see `sequence/mod.rs` for the dependencies).
//! An identity column gets such a sequence too, internally dependent on the
//! column and without a `pg_attrdef` row. CHECK constraints are added once
//! the table exists (`constraints.rs`); ALTER TABLE and RENAME are in
//! `alter.rs` and `rename.rs`.

mod alter;
mod alter_type;
pub mod cluster;
mod columns;
mod constraints;
mod default_refs;
mod elements;
mod foreign_key;
mod like;
mod lookup;
mod reloptions;
mod rename;
mod rewrite;
mod set_schema;

pub use alter::alter_table;
pub(crate) use columns::drop_column;
pub(super) use elements::check_column_name;
pub(crate) use elements::constraint_index;
use elements::{new_column, new_columns, set_identity, NewColumn, NewElements, SYSTEM_COLUMNS};
pub(crate) use lookup::{
    describe, lock_for_ddl, lock_if_still_there, see_committed_catalogs, touch_class_row,
    update_class_row,
};
pub use rename::rename;
pub use set_schema::set_schema;

use super::indexcmds::define_index;
use super::sequence;
use crate::catalog::bootstrap::{ClassRow, FrozenBounds};
use crate::catalog::depend::{self, DepType, Dependency, ObjectAddress, ATTRDEF_CLASS};
use crate::catalog::relation::RelationDesc;
use crate::catalog::relation::{self, oid_of, RelationId};
use crate::catalog::schema::*;
use crate::catalog::{delete, insert, scan};
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::executor::lmgr::{lock_relation_in, lock_relation_with};
use crate::parser::node_str;
use crate::parser::unsupported::{other_tablespace, refuse};
use crate::sink::QuerySink;
use pg_query::protobuf::{CreateStmt, DropStmt, LockStmt, ObjectType};
use pg_query::NodeEnum;
use sluice_common::{ForkNumber, Oid, RelFileLocator, DEFAULTTABLESPACE_OID};
use sluice_txn::lmgr::LockMode;
use sluice_types::Datum;

/// CREATE TABLE.
pub fn create_table(
    cx: &mut dyn BackendContext,
    stmt: &CreateStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let rv =
        stmt.relation.as_ref().ok_or_else(|| SqlError::internal("CREATE TABLE without a name"))?;
    refuse_create_clauses(stmt, rv)?;
    let namespace = cx.creation_namespace(rv)?;
    let likes = like_clauses(cx, stmt)?;
    let NewElements { mut columns, indexes: constraints, checks, foreign_keys } =
        new_columns(stmt, &rv.relname, likes, &cx.type_catalog()?)?;
    let options = reloptions::reloptions(stmt)?;
    let engine = cx.engine().clone();
    let db = cx.database();
    crate::executor::lmgr::lock_relation_name(&mut cx.parts()?, namespace, &rv.relname)?;
    if relation::lookup(&engine, db, cx.txn()?, &[namespace], &rv.relname)?.is_some() {
        if stmt.if_not_exists {
            sink.notice(&SqlError::new(
                "42P07",
                format!("relation \"{}\" already exists, skipping", rv.relname),
            ))?;
            return sink.complete("CREATE TABLE");
        }
        return Err(SqlError::new("42P07", format!("relation \"{}\" already exists", rv.relname)));
    }
    let serials = create_serial_sequences(cx, &rv.relname, namespace, &mut columns)?;
    let oid = engine.new_oid()?;
    let locator = RelFileLocator { spc_oid: DEFAULTTABLESPACE_OID, db_oid: db, rel_number: oid };
    lock_relation(cx, oid, LockMode::AccessExclusive)?;
    let class = ClassRow {
        oid,
        name: &rv.relname,
        namespace,
        relfilenode: oid,
        tablespace: DEFAULTTABLESPACE_OID,
        shared: false,
        kind: RelKind::Table,
        natts: columns.len() as i16,
        options,
        frozen: FrozenBounds::now(&engine)?,
    };
    insert(&engine, db, &PG_CLASS, cx.txn()?, &class.values())?;
    let mut attrdefs = Vec::new();
    for (i, c) in columns.iter().enumerate() {
        let attnum = i as i16 + 1;
        insert(&engine, db, &PG_ATTRIBUTE, cx.txn()?, &c.attribute_row(oid, attnum))?;
        if let Some(default) = c.default.as_ref().or(c.generated.as_ref()) {
            attrdefs.push((i, insert_attrdef(cx, oid, attnum, default)?));
        }
    }
    for &(i, attrdef) in &attrdefs {
        let plain = columns[i].generated.is_none() && !serials.iter().any(|(s, _)| *s == i);
        if let (true, Some(default)) = (plain, &columns[i].default) {
            let expr = default_refs::analyze_default(cx, default)?;
            default_refs::record_default_references(cx, attrdef, &expr)?;
        }
    }
    for (i, seq) in serials {
        let attrdef = attrdefs.iter().find(|(c, _)| *c == i).map(|(_, a)| *a);
        let identity = columns[i].identity.is_some();
        record_serial_dependencies(cx, (oid, i as i16 + 1), attrdef, seq, identity)?;
    }
    engine.create_relation_fork(locator, ForkNumber::Main)?;
    cx.xact()?.delete_on_abort(locator);
    if columns.iter().any(|c| c.generated.is_some()) {
        cx.txn()?.increment_command();
        cook_generated(cx, oid)?;
    }
    if !constraints.is_empty() || !checks.is_empty() || !foreign_keys.is_empty() {
        cx.txn()?.increment_command();
        let table = describe(cx, oid)?;
        let mut named = Vec::new();
        for check in &checks {
            constraints::add_check(cx, &table, check, false, &mut named)?;
        }
        for spec in constraints {
            define_index(cx, &table, spec, sink)?;
        }
        for key in &foreign_keys {
            let table = describe(cx, oid)?;
            foreign_key::add_foreign_key(cx, &table, key, false, &mut named)?;
        }
    }
    sink.complete("CREATE TABLE")
}

/// cook_generated -- checks the generation expressions of new table `oid`
/// and stores each in the analysed, deparsed form (PostgreSQL's cooked
/// expression: `(b)::numeric * 1.5` for `b * 1.5` into a numeric column),
/// as CHECK constraints are stored.
pub(super) fn cook_generated(cx: &mut dyn BackendContext, oid: Oid) -> Result<()> {
    let table = describe(cx, oid)?;
    let names: Vec<String> = table.columns.iter().map(|c| c.name.clone()).collect();
    let types = cx.type_catalog()?;
    let (engine, db) = (cx.engine().clone(), cx.database());
    let txn = cx.txn()?;
    for (i, column) in table.columns.iter().enumerate() {
        let Some(text) = &column.generated else { continue };
        let expr = crate::optimizer::constraint::stored_generation(&table, text, &types)?;
        let cooked = crate::expr::deparse::expr(&expr, &names);
        let attnum = Datum::Int2(i as i16 + 1);
        let rows = scan(&engine, db, &PG_ATTRDEF, txn, |r| oid_of(&r[1]) == oid && r[2] == attnum)?;
        for (tid, mut row) in rows {
            row[3] = Datum::Text(cooked.clone());
            crate::catalog::replace(&engine, db, &PG_ATTRDEF, txn, tid, &row)?;
        }
    }
    crate::optimizer::constraint::table_generated(&table, &types)?;
    txn.increment_command();
    Ok(())
}

/// create_serial_sequences -- creates `<table>_<column>_seq` for each serial
/// or identity column and gives a serial column its nextval default
/// (PostgreSQL's transformColumnDefinition; an identity column's default
/// comes from its sequence, see `relation::identity_defaults`). Returns
/// (column index, sequence OID).
fn create_serial_sequences(
    cx: &mut dyn BackendContext,
    table: &str,
    namespace: Oid,
    columns: &mut [NewColumn],
) -> Result<Vec<(usize, Oid)>> {
    let mut created = Vec::new();
    let needs_sequence = |c: &NewColumn| c.serial || c.identity.is_some();
    for (i, column) in columns.iter_mut().enumerate().filter(|(_, c)| needs_sequence(c)) {
        let given = column.identity.as_ref().and_then(|(_, o)| sequence::identity_sequence_name(o));
        let name = match given {
            Some(name) => name,
            None => choose_relation_name(cx, table, &column.name, "seq", namespace)?,
        };
        let state = match &column.identity {
            Some((_, options)) => sequence::identity_state(column.ty, options)?,
            None => sequence::serial_state(column.ty)?,
        };
        let seq = sequence::create_sequence_relation(cx, &name, namespace, &state)?;
        if column.serial {
            let schema = cx.namespace_name(namespace)?;
            column.default = Some(sequence::serial_default(&schema, &name));
        }
        created.push((i, seq.oid));
    }
    Ok(created)
}

/// The sequence of a serial column is owned by the column (auto: it goes
/// with the table) and its default depends on the sequence (normal: dropping
/// the sequence alone needs CASCADE). An identity column's sequence is part
/// of the column (internal: it cannot be dropped alone) and there is no
/// default row.
fn record_serial_dependencies(
    cx: &mut dyn BackendContext,
    (table, attnum): (Oid, i16),
    attrdef: Option<Oid>,
    seq: Oid,
    identity: bool,
) -> Result<()> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let txn = cx.txn()?;
    let owned = Dependency {
        object: ObjectAddress::relation(seq),
        referenced: ObjectAddress::column(table, attnum),
        kind: if identity { DepType::Internal } else { DepType::Auto },
    };
    depend::record(&engine, db, txn, &owned)?;
    if let Some(attrdef) = attrdef {
        let uses = Dependency {
            object: ObjectAddress { classid: ATTRDEF_CLASS, objid: attrdef, objsubid: 0 },
            referenced: ObjectAddress::relation(seq),
            kind: DepType::Normal,
        };
        depend::record(&engine, db, txn, &uses)?;
    }
    Ok(())
}

/// choose_relation_name -- `name1_name2_label`, shortened to fit 63 bytes
/// and numbered (`label1`, `label2`, ...) past names already taken
/// (PostgreSQL's ChooseRelationName and makeObjectName).
pub(crate) fn choose_relation_name(
    cx: &mut dyn BackendContext,
    name1: &str,
    name2: &str,
    label: &str,
    namespace: Oid,
) -> Result<String> {
    choose_name(name1, name2, label, |name| sequence::relation_exists(cx, namespace, name))
}

/// choose_name -- the first of `name1_name2_label`, `..._label1`,
/// `..._label2`, ... (each shortened to fit 63 bytes) that `taken` says is
/// free (the loop of PostgreSQL's ChooseRelationName and
/// ChooseConstraintName).
pub(crate) fn choose_name(
    name1: &str,
    name2: &str,
    label: &str,
    mut taken: impl FnMut(&str) -> Result<bool>,
) -> Result<String> {
    let mut modlabel = label.to_string();
    for pass in 1.. {
        let name = make_object_name(name1, name2, &modlabel);
        if !taken(&name)? {
            return Ok(name);
        }
        modlabel = format!("{label}{pass}");
    }
    unreachable!("the loop above only ends by returning")
}

/// insert_attrdef -- stores `default` as column `attnum` of `table`'s
/// default (`pg_attrdef`); returns the default's OID.
pub(super) fn insert_attrdef(
    cx: &mut dyn BackendContext,
    table: Oid,
    attnum: i16,
    default: &str,
) -> Result<Oid> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let oid = engine.new_oid()?;
    let row =
        [Datum::Oid(oid), Datum::Oid(table), Datum::Int2(attnum), Datum::Text(default.into())];
    insert(&engine, db, &PG_ATTRDEF, cx.txn()?, &row)?;
    Ok(oid)
}

/// `name1_name2_label`, cutting the longer of name1/name2 first until it fits
/// in 63 bytes (PostgreSQL's makeObjectName).
pub(super) fn make_object_name(name1: &str, name2: &str, label: &str) -> String {
    const AVAILABLE: usize = 63;
    let overhead = 1 + label.len() + usize::from(!name2.is_empty());
    let (mut n1, mut n2) = (name1.len(), name2.len());
    while n1 + n2 > AVAILABLE - overhead {
        if n1 > n2 {
            n1 -= 1;
        } else {
            n2 -= 1;
        }
    }
    let clip = |s: &str, mut n: usize| {
        while !s.is_char_boundary(n) {
            n -= 1;
        }
        s[..n].to_string()
    };
    if name2.is_empty() {
        return format!("{}_{label}", clip(name1, n1));
    }
    format!("{}_{}_{label}", clip(name1, n1), clip(name2, n2))
}

/// refuse_create_clauses -- 0A000 for the clauses of CREATE TABLE that
/// sluice does not implement (see `parser/unsupported.rs`); the element
/// list, options, name and IF NOT EXISTS are read by [`create_table`].
fn refuse_create_clauses(stmt: &CreateStmt, rv: &pg_query::protobuf::RangeVar) -> Result<()> {
    refuse(rv.relpersistence == "t", "temporary tables are not supported yet")?;
    refuse(rv.relpersistence == "u", "unlogged tables are not supported yet")?;
    refuse(stmt.partspec.is_some(), "partitioned tables are not supported yet")?;
    refuse(stmt.partbound.is_some(), "table partitions are not supported yet")?;
    refuse(!stmt.inh_relations.is_empty(), "table inheritance is not supported yet")?;
    refuse(stmt.of_typename.is_some(), "typed tables are not supported yet")?;
    refuse(
        !stmt.constraints.is_empty() || !stmt.nnconstraints.is_empty(),
        "CREATE TABLE constraints outside the element list are not supported yet",
    )?;
    let on_commit = pg_query::protobuf::OnCommitAction::try_from(stmt.oncommit);
    refuse(
        !matches!(
            on_commit,
            Ok(pg_query::protobuf::OnCommitAction::Undefined
                | pg_query::protobuf::OnCommitAction::OncommitNoop)
        ),
        "ON COMMIT is not supported yet",
    )?;
    refuse(other_tablespace(&stmt.tablespacename), "tablespaces are not supported yet")?;
    refuse(
        !matches!(stmt.access_method.as_str(), "" | "heap"),
        "table access methods other than heap are not supported yet",
    )
}

/// What each `LIKE` element of `stmt` copies, in order (`like.rs`).
fn like_clauses(cx: &mut dyn BackendContext, stmt: &CreateStmt) -> Result<Vec<like::LikeCopy>> {
    stmt.table_elts
        .iter()
        .filter_map(|e| match e.node.as_ref() {
            Some(NodeEnum::TableLikeClause(clause)) => Some(like::expand(cx, clause)),
            _ => None,
        })
        .collect()
}

/// 42501 for DDL on a system catalog (PostgreSQL allows it only with
/// allow_system_table_mods, which sluice does not have).
pub(super) fn refuse_system_catalog(rel: &RelationId) -> Result<()> {
    if rel.namespace == PG_CATALOG_NAMESPACE {
        return Err(SqlError::new(
            "42501",
            format!("permission denied: \"{}\" is a system catalog", rel.name),
        ));
    }
    Ok(())
}

/// Takes a table lock under the session's transaction.
pub fn lock_relation(cx: &mut dyn BackendContext, oid: Oid, mode: LockMode) -> Result<()> {
    lock_relation_in(&mut cx.parts()?, oid, mode)
}

/// LOCK [TABLE] name [, ...] [IN mode MODE] [NOWAIT].
pub fn lock_table(
    cx: &mut dyn BackendContext,
    stmt: &LockStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    if !cx.in_transaction_block() {
        return Err(SqlError::new("25P01", "LOCK TABLE can only be used in transaction blocks"));
    }
    // The grammar's lock mode numbers are PostgreSQL's LOCKMODE values 1..=8.
    let mode = LockMode::ALL
        .get((stmt.mode as usize).wrapping_sub(1))
        .copied()
        .ok_or_else(|| SqlError::internal(format!("unknown lock mode {}", stmt.mode)))?;
    for relation in &stmt.relations {
        let Some(NodeEnum::RangeVar(rv)) = relation.node.as_ref() else { continue };
        let rel = cx.find_named(rv)?;
        lock_relation_with(&mut cx.parts()?, rel.oid, mode, stmt.nowait, Some(&rel.name))?;
        if rel.kind == RelKind::View {
            lock_view_relations(cx, rel.oid, mode, stmt.nowait)?;
        }
    }
    sink.complete("LOCK TABLE")
}

/// lock_view_relations -- LOCK of view `view` locks what its query reads
/// too, and through views what theirs read (PostgreSQL's LockViewRecurse);
/// each relation once.
fn lock_view_relations(
    cx: &mut dyn BackendContext,
    view: Oid,
    mode: LockMode,
    nowait: bool,
) -> Result<()> {
    let (engine, db) = (cx.engine().clone(), cx.database());
    let mut seen = vec![view];
    let mut pending = crate::catalog::rewrite::view_relations(&engine, db, cx.txn()?, view)?;
    while let Some(oid) = pending.pop() {
        if seen.contains(&oid) {
            continue;
        }
        seen.push(oid);
        let Some(rel) = relation::find_by_oid(&engine, db, cx.txn()?, oid)? else { continue };
        lock_relation_with(&mut cx.parts()?, rel.oid, mode, nowait, Some(&rel.name))?;
        if rel.kind == RelKind::View {
            pending.extend(crate::catalog::rewrite::view_relations(&engine, db, cx.txn()?, oid)?);
        }
    }
    Ok(())
}

/// DROP TABLE / DROP SEQUENCE [IF EXISTS] name, ...
pub fn drop(cx: &mut dyn BackendContext, stmt: &DropStmt, sink: &mut dyn QuerySink) -> Result<()> {
    match ObjectType::try_from(stmt.remove_type).ok() {
        Some(ObjectType::ObjectTable) => drop_tables(cx, stmt, RelKind::Table, sink),
        Some(ObjectType::ObjectMatview) => drop_tables(cx, stmt, RelKind::MatView, sink),
        Some(ObjectType::ObjectSequence) => sequence::drop_sequences(cx, stmt, sink),
        Some(ObjectType::ObjectIndex) => super::indexcmds::drop_indexes(cx, stmt, sink),
        Some(ObjectType::ObjectExtension) => super::extension::drop_extensions(cx, stmt, sink),
        Some(ObjectType::ObjectSchema) => super::schemacmds::drop_schemas(cx, stmt, sink),
        Some(ObjectType::ObjectView) => super::view::drop_views(cx, stmt, sink),
        Some(ObjectType::ObjectType | ObjectType::ObjectDomain) => {
            super::typecmds::drop_types(cx, stmt, sink)
        }
        _ => Err(SqlError::unsupported("DROP of this kind of object is not supported yet")),
    }
}

/// DROP TABLE | MATERIALIZED VIEW [IF EXISTS] name, ... (with the
/// sequences a table's columns own).
fn drop_tables(
    cx: &mut dyn BackendContext,
    stmt: &DropStmt,
    kind: RelKind,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let what = if kind == RelKind::MatView { "materialized view" } else { "table" };
    for object in &stmt.objects {
        let Some(NodeEnum::List(list)) = object.node.as_ref() else { continue };
        let names: Vec<String> = list.items.iter().filter_map(node_str).collect();
        let rv = sequence::range_var(&names)?;
        let found = cx.find_relation(&rv)?;
        let name = rv.relname.clone();
        if let Some(rel) = &found {
            refuse_drop_of_other_kind(rel, &name, kind)?;
        }
        // A table dropped by a session this one waited for is gone.
        let found = match found {
            Some(_) => lock_for_ddl(cx, &rv, LockMode::AccessExclusive)?,
            None => None,
        };
        let Some(rel) = found else {
            if stmt.missing_ok {
                sink.notice(&SqlError::new(
                    "00000",
                    format!("{what} \"{name}\" does not exist, skipping"),
                ))?;
                continue;
            }
            return Err(SqlError::new("42P01", format!("{what} \"{name}\" does not exist")));
        };
        refuse_drop_of_other_kind(&rel, &name, kind)?;
        let cascade = stmt.behavior == pg_query::protobuf::DropBehavior::DropCascade as i32;
        drop_table(cx, &rel, cascade, sink)?;
    }
    sink.complete(if kind == RelKind::MatView { "DROP MATERIALIZED VIEW" } else { "DROP TABLE" })
}

/// 42501 for a system catalog, 42809 for a relation not of `kind` (before
/// any lock is taken, as PostgreSQL's RangeVarCallbackForDropRelation).
fn refuse_drop_of_other_kind(rel: &RelationId, name: &str, kind: RelKind) -> Result<()> {
    refuse_system_catalog(rel)?;
    if rel.kind == kind {
        return Ok(());
    }
    let expected = if kind == RelKind::MatView { "a materialized view" } else { "a table" };
    Err(SqlError::new("42809", format!("\"{name}\" is not {expected}"))
        .with_hint(drop_hint(rel.kind)))
}

/// The HINT of a DROP naming a relation of another kind: the DROP for it.
pub(crate) fn drop_hint(kind: RelKind) -> &'static str {
    match kind {
        RelKind::Table => "Use DROP TABLE to remove a table.",
        RelKind::View => "Use DROP VIEW to remove a view.",
        RelKind::MatView => "Use DROP MATERIALIZED VIEW to remove a materialized view.",
        RelKind::Index => "Use DROP INDEX to remove an index.",
        RelKind::Sequence => "Use DROP SEQUENCE to remove a sequence.",
    }
}

/// drop_table -- drops table `rel` with its indexes and owned sequences;
/// foreign keys of other tables referencing it need `cascade` (they go,
/// with a NOTICE) or make it fail (2BP01).
pub(crate) fn drop_table(
    cx: &mut dyn BackendContext,
    rel: &RelationId,
    cascade: bool,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    lock_relation(cx, rel.oid, LockMode::AccessExclusive)?;
    let kind = if rel.kind == RelKind::MatView { "materialized view" } else { "table" };
    super::view::drop_dependent_views(cx, rel, kind, cascade, sink)?;
    let desc = describe(cx, rel.oid)?;
    foreign_key::drop_referencing_keys(cx, &desc, cascade, sink)?;
    super::indexcmds::drop_table_indexes(cx, rel.oid)?;
    for seq in sequence::owned_sequences(cx, rel.oid)? {
        lock_relation(cx, seq.oid, LockMode::AccessExclusive)?;
        remove_relation(cx, &seq)?;
    }
    remove_relation(cx, rel)
}

/// remove_relation -- deletes a relation's catalog rows (class, columns,
/// defaults, sequence parameters, statistics, dependencies, a view's rule)
/// and removes its file, if it has one, once the transaction commits
/// (PostgreSQL's heap_drop_with_catalog). The caller
/// holds AccessExclusive on it and has dealt with objects depending on it.
pub(crate) fn remove_relation(cx: &mut dyn BackendContext, rel: &RelationId) -> Result<()> {
    if matches!(rel.kind, RelKind::View | RelKind::MatView) {
        super::view::drop_rule(cx, rel.oid)?;
    }
    let engine = cx.engine().clone();
    let db = cx.database();
    let oid = rel.oid;
    let txn = cx.txn()?;
    let is_oid = |d: &Datum| matches!(d, Datum::Oid(o) if *o == oid);
    let attrdefs: Vec<Oid> = scan(&engine, db, &PG_ATTRDEF, txn, |r| is_oid(&r[1]))?
        .iter()
        .map(|(_, r)| oid_of(&r[0]))
        .collect();
    let catalogs = [
        (&PG_CLASS, 0),
        (&PG_ATTRIBUTE, 0),
        (&PG_ATTRDEF, 1),
        (&PG_SEQUENCE, 0),
        (&PG_STATISTIC, 0),
        (&PG_CONSTRAINT, crate::catalog::constraint::CON_RELID),
    ];
    for (def, column) in catalogs {
        for (tid, _) in scan(&engine, db, def, txn, |r| is_oid(&r[column]))? {
            delete(&engine, db, def, txn, tid)?;
        }
    }
    crate::catalog::comment::remove_comments(&engine, db, txn, PG_CLASS.oid, oid, None)?;
    let me = ObjectAddress::relation(oid);
    depend::remove(&engine, db, txn, |d| {
        let mine = |a: &ObjectAddress| a.classid == me.classid && a.objid == oid;
        mine(&d.object)
            || mine(&d.referenced)
            || (d.object.classid == ATTRDEF_CLASS && attrdefs.contains(&d.object.objid))
    })?;
    // Later steps of the same statement must see these rows gone
    // (PostgreSQL's CommandCounterIncrement).
    txn.increment_command();
    if rel.kind == RelKind::View {
        return Ok(());
    }
    cx.xact()?.delete_on_commit(rel.locator);
    // Its cumulative statistics go with it (pgstat_drop_relation).
    cx.xact()?.at_transaction_end(true, move |engine| engine.stats().drop_relation(db, oid));
    Ok(())
}
