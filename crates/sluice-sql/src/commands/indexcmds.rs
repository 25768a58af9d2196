//! CREATE INDEX, DROP INDEX and the indexes behind PRIMARY KEY and UNIQUE
//! constraints (PostgreSQL's `commands/indexcmds.c` and `catalog/index.c`).
//!
//! Defining an index writes its `pg_class` row (relkind 'i', access method
//! btree), one `pg_attribute` row per key column, its `pg_index` row and, for
//! a constraint, a `pg_constraint` row; marks the table `relhasindex`; creates
//! the file; and builds it by sorting every tuple an index must hold
//! (`heap::scan::scan_for_index_build`) and writing pages bottom-up
//! (`nbtree::btree_build`). The table is locked SHARE, so no writer changes it
//! meanwhile; everything is transactional like other DDL.
//!
//! CONCURRENTLY builds beside running writers, over several transactions
//! (`indexcmds/concurrently.rs`). REINDEX rebuilds with the same functions
//! (the `sluice-maint` crate).

pub mod concurrently;

use super::tablecmds::{choose_relation_name, lock_relation};
use crate::catalog::bootstrap::{attribute_row, ClassRow, FrozenBounds};
use crate::catalog::constraint::{self, ConstraintType, NewConstraint};
use crate::catalog::index::{indexes_of, indoption, IndexDesc};
use crate::catalog::namespace::missing_relation;
use crate::catalog::relation::{self, oid_of, RelationDesc};
use crate::catalog::rows::{deform_row, int2_array};
use crate::catalog::schema::*;
use crate::catalog::{delete, insert, replace, scan};
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::executor::host::ExecHost;
use crate::executor::indexing::render_key;
use crate::optimizer::indxpath::analyze_predicate;
use crate::optimizer::indxpath::predicate_text;
use crate::parser::unsupported::{other_tablespace, refuse};
use crate::sink::QuerySink;
use pg_query::protobuf::{IndexStmt, Node, SortByDir, SortByNulls};
use pg_query::NodeEnum;
use sluice_access::heap::scan::{scan_for_index_build, HeapScan};
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::nbtree::{btree_build, BuildEntry, ColumnOrder, BTREE_DEFAULT_FILLFACTOR};
use sluice_access::AccessError;
use sluice_common::{ForkNumber, Oid, RelFileLocator, DEFAULTTABLESPACE_OID};
use sluice_txn::lmgr::LockMode;
use sluice_types::types::ElemType;
use sluice_types::{Datum, SqlType};

/// What kind of constraint an index implements, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstraintKind {
    /// PRIMARY KEY ('p').
    Primary,
    /// UNIQUE ('u').
    Unique,
}

/// An index to define.
#[derive(Clone, Debug, Default)]
pub struct NewIndex {
    /// The name given, if any.
    pub name: Option<String>,
    /// Key columns by name, with their order options.
    pub columns: Vec<(String, ColumnOrder)>,
    /// UNIQUE.
    pub unique: bool,
    /// The constraint it implements.
    pub constraint: Option<ConstraintKind>,
    /// WHERE clause of a partial index.
    pub predicate: Option<Node>,
    /// `WITH (fillfactor = n)`.
    pub fillfactor: Option<u8>,
    /// IF NOT EXISTS.
    pub if_not_exists: bool,
}

impl NewIndex {
    /// copy_of -- an index like `old` of `table` (same columns, order,
    /// uniqueness, predicate and fillfactor), named `name` or by the usual
    /// rule, implementing `constraint`.
    pub fn copy_of(
        old: &IndexDesc,
        table: &RelationDesc,
        name: Option<String>,
        constraint: Option<ConstraintKind>,
    ) -> Result<NewIndex> {
        Ok(NewIndex {
            name,
            columns: old
                .keys
                .iter()
                .zip(&old.orders)
                .map(|(&k, &order)| (table.columns[k as usize - 1].name.clone(), order))
                .collect(),
            unique: old.unique,
            constraint,
            predicate: old.predicate.as_deref().map(predicate_node).transpose()?,
            // Only a fillfactor that was set is a storage parameter to copy.
            fillfactor: (old.fillfactor != BTREE_DEFAULT_FILLFACTOR).then_some(old.fillfactor),
            if_not_exists: false,
        })
    }
}

/// The parse tree of a partial index's stored predicate text.
fn predicate_node(text: &str) -> Result<Node> {
    let parsed =
        pg_query::parse(&format!("SELECT WHERE {text}"), pg_query::ParserOptions::default())
            .map_err(|e| SqlError::internal(format!("stored index predicate: {e}")))?;
    let statement = parsed.protobuf.stmts.first().and_then(|s| s.stmt.as_ref());
    match statement.and_then(|s| s.node.as_ref()) {
        Some(NodeEnum::SelectStmt(select)) => select.where_clause.as_deref().cloned(),
        _ => None,
    }
    .ok_or_else(|| SqlError::internal("stored index predicate is not an expression"))
}

/// CREATE [UNIQUE] INDEX [CONCURRENTLY] [IF NOT EXISTS] name ON t (...) [WHERE ...].
pub fn create_index(
    cx: &mut dyn BackendContext,
    stmt: &IndexStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    if stmt.concurrent {
        cx.prevent_transaction_block("CREATE INDEX CONCURRENTLY")?;
    }
    if !matches!(stmt.access_method.as_str(), "" | "btree") {
        return Err(SqlError::new(
            "0A000",
            format!("access method \"{}\" is not supported", stmt.access_method),
        ));
    }
    refuse_index_clauses(stmt)?;
    let rv = stmt.relation.as_ref().ok_or_else(|| SqlError::internal("index without table"))?;
    let table = open_table(cx, rv)?;
    let spec = NewIndex {
        name: (!stmt.idxname.is_empty()).then(|| stmt.idxname.clone()),
        columns: index_columns(&stmt.index_params)?,
        unique: stmt.unique,
        constraint: None,
        predicate: stmt.where_clause.as_deref().cloned(),
        fillfactor: fillfactor_option(&stmt.options)?,
        if_not_exists: stmt.if_not_exists,
    };
    if stmt.concurrent {
        concurrently::define_index_concurrently(cx, &table, spec, sink)?;
    } else {
        define_index(cx, &table, spec, sink)?;
    }
    sink.complete("CREATE INDEX")
}

/// refuse_index_clauses -- 0A000 for the clauses of CREATE INDEX that sluice
/// does not implement (see `parser/unsupported.rs`); name, table, method,
/// key columns, UNIQUE, WHERE, WITH, CONCURRENTLY and IF NOT EXISTS are read
/// by [`create_index`].
fn refuse_index_clauses(stmt: &IndexStmt) -> Result<()> {
    refuse(!stmt.index_including_params.is_empty(), "INCLUDE columns are not supported yet")?;
    refuse(stmt.nulls_not_distinct, "NULLS NOT DISTINCT is not supported yet")?;
    refuse(other_tablespace(&stmt.table_space), "tablespaces are not supported yet")
}

fn open_table(
    cx: &mut dyn BackendContext,
    rv: &pg_query::protobuf::RangeVar,
) -> Result<RelationDesc> {
    let table = cx.lookup_relation(rv)?.ok_or_else(|| missing_relation(&rv.relname))?;
    if !table.kind.has_heap() {
        return Err(SqlError::new(
            "42809",
            format!("cannot create index on relation \"{}\"", table.name),
        )
        .with_detail(format!("This operation is not supported for {}.", kind_plural(table.kind))));
    }
    Ok(table)
}

pub(crate) fn kind_plural(kind: RelKind) -> &'static str {
    match kind {
        RelKind::Table => "tables",
        RelKind::Sequence => "sequences",
        RelKind::Index => "indexes",
        RelKind::View => "views",
        RelKind::MatView => "materialized views",
    }
}

/// The key columns of `CREATE INDEX ... (a DESC, b NULLS FIRST)`.
fn index_columns(params: &[Node]) -> Result<Vec<(String, ColumnOrder)>> {
    params
        .iter()
        .map(|p| {
            let Some(NodeEnum::IndexElem(elem)) = p.node.as_ref() else {
                return Err(SqlError::internal("index parameter is not an IndexElem"));
            };
            if elem.name.is_empty() {
                return Err(SqlError::unsupported("indexes on expressions are not supported yet"));
            }
            refuse(!elem.collation.is_empty(), "index column collations are not supported yet")?;
            refuse(
                !elem.opclass.is_empty() || !elem.opclassopts.is_empty(),
                "operator classes are not supported yet",
            )?;
            let descending = elem.ordering == SortByDir::SortbyDesc as i32;
            let nulls_first = match SortByNulls::try_from(elem.nulls_ordering) {
                Ok(SortByNulls::SortbyNullsFirst) => true,
                Ok(SortByNulls::SortbyNullsLast) => false,
                _ => descending,
            };
            Ok((elem.name.clone(), ColumnOrder { descending, nulls_first }))
        })
        .collect()
}

/// `WITH (fillfactor = n)` among index options (10..=100).
pub fn fillfactor_option(options: &[Node]) -> Result<Option<u8>> {
    let mut fillfactor = None;
    for option in options {
        let Some(NodeEnum::DefElem(def)) = option.node.as_ref() else { continue };
        if def.defname != "fillfactor" {
            return Err(SqlError::new(
                "22023",
                format!("unrecognized parameter \"{}\"", def.defname),
            ));
        }
        let value = def.arg.as_deref().and_then(crate::parser::node_str).unwrap_or_default();
        let n: i64 = value.parse().map_err(|_| {
            SqlError::new(
                "22023",
                format!("invalid value for integer option \"fillfactor\": {value}"),
            )
        })?;
        if !(10..=100).contains(&n) {
            return Err(SqlError::new(
                "22023",
                format!("value {n} out of bounds for option \"fillfactor\""),
            )
            .with_detail("Valid values are between \"10\" and \"100\"."));
        }
        fillfactor = Some(n as u8);
    }
    Ok(fillfactor)
}

/// define_index -- creates and builds an index on `table` (PostgreSQL's
/// DefineIndex + index_create + index_build). Returns its OID, or `None` if
/// IF NOT EXISTS found the name taken.
pub fn define_index(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    spec: NewIndex,
    sink: &mut dyn QuerySink,
) -> Result<Option<Oid>> {
    lock_relation(cx, table.oid, LockMode::Share)?;
    let Some(created) = create_index_entry(cx, table, &spec, IndexState::Valid, sink)? else {
        return Ok(None);
    };
    build_index(cx, table, created.oid, &created.name)?;
    if spec.constraint == Some(ConstraintKind::Primary) {
        // As in PostgreSQL, duplicates are reported before NULLs.
        require_not_null(cx, table, &created.keys)?;
    }
    Ok(Some(created.oid))
}

/// Where a new index stands: built and usable, or just created by CREATE
/// INDEX CONCURRENTLY (`indisready` and `indisvalid` false).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexState {
    Valid,
    Building,
}

/// An index whose catalog rows and file exist.
pub struct CreatedIndex {
    /// The index's OID.
    pub oid: Oid,
    /// Its name.
    pub name: String,
    keys: Vec<i16>,
}

/// create_index_entry -- checks the definition, writes the index's catalog
/// rows in `state` and creates its file (removed if the transaction aborts);
/// `None` if IF NOT EXISTS found the name taken. The caller holds a lock on
/// `table` that keeps other DDL out.
pub fn create_index_entry(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    spec: &NewIndex,
    state: IndexState,
    sink: &mut dyn QuerySink,
) -> Result<Option<CreatedIndex>> {
    let keys = key_attnums(table, &spec.columns)?;
    let name = match &spec.name {
        Some(name) => name.clone(),
        None => default_name(cx, table, spec)?,
    };
    if super::sequence::relation_exists(cx, table.namespace, &name)? {
        if spec.if_not_exists {
            sink.notice(&SqlError::new(
                "42P07",
                format!("relation \"{name}\" already exists, skipping"),
            ))?;
            return Ok(None);
        }
        return Err(SqlError::new("42P07", format!("relation \"{name}\" already exists")));
    }
    if spec.constraint == Some(ConstraintKind::Primary) {
        check_single_primary_key(cx, table)?;
    }
    let oid = write_catalog_rows(cx, table, spec, &name, &keys, state)?;
    let engine = cx.engine().clone();
    let locator =
        RelFileLocator { spc_oid: DEFAULTTABLESPACE_OID, db_oid: cx.database(), rel_number: oid };
    engine.create_relation_fork(locator, ForkNumber::Main)?;
    cx.xact()?.delete_on_abort(locator);
    cx.txn()?.increment_command();
    Ok(Some(CreatedIndex { oid, name, keys }))
}

fn key_attnums(table: &RelationDesc, columns: &[(String, ColumnOrder)]) -> Result<Vec<i16>> {
    columns
        .iter()
        .map(|(name, _)| {
            table
                .column_index(name)
                .map(|i| i as i16 + 1)
                .ok_or_else(|| SqlError::new("42703", format!("column \"{name}\" does not exist")))
        })
        .collect()
}

/// PostgreSQL's ChooseIndexName: `t_pkey`, `t_a_b_key`, `t_a_idx`.
fn default_name(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    spec: &NewIndex,
) -> Result<String> {
    let columns: Vec<&str> = spec.columns.iter().map(|(c, _)| c.as_str()).collect();
    match spec.constraint {
        Some(ConstraintKind::Primary) => {
            choose_relation_name(cx, &table.name, "", "pkey", table.namespace)
        }
        Some(ConstraintKind::Unique) => {
            choose_relation_name(cx, &table.name, &columns.join("_"), "key", table.namespace)
        }
        None => choose_relation_name(cx, &table.name, &columns.join("_"), "idx", table.namespace),
    }
}

/// A table has at most one primary key.
fn check_single_primary_key(cx: &mut dyn BackendContext, table: &RelationDesc) -> Result<()> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let ctx = VisibilityContext::for_transaction(cx.txn()?, engine.txns());
    if indexes_of(&engine, db, &ctx, table.oid)?.iter().any(|i| i.primary) {
        return Err(SqlError::new(
            "42P16",
            format!("multiple primary keys for table \"{}\" are not allowed", table.name),
        ));
    }
    Ok(())
}

/// A primary key's columns become NOT NULL, which every existing row must
/// already satisfy.
pub(crate) fn require_not_null(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    keys: &[i16],
) -> Result<()> {
    let engine = cx.engine().clone();
    let ctx = VisibilityContext::for_transaction(cx.txn()?, engine.txns());
    let mut has_null = vec![false; keys.len()];
    let (desc, types) = (table.tuple_desc(), table.types());
    scan_for_index_build(&engine, &table.heap(), &ctx, |_, tuple, live| -> Result<()> {
        if live {
            let row = deform_row(&desc, &types, tuple)?;
            for (flag, &k) in has_null.iter_mut().zip(keys) {
                *flag |= row[k as usize - 1].is_null();
            }
        }
        Ok(())
    })?;
    if let Some(i) = has_null.iter().position(|&n| n) {
        let column = &table.columns[keys[i] as usize - 1].name;
        return Err(SqlError::new(
            "23502",
            format!("column \"{column}\" of relation \"{}\" contains null values", table.name),
        ));
    }
    set_not_null(cx, table.oid, keys)
}

/// Marks columns NOT NULL in `pg_attribute`.
fn set_not_null(cx: &mut dyn BackendContext, table: Oid, keys: &[i16]) -> Result<()> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let txn = cx.txn()?;
    let rows = scan(&engine, db, &PG_ATTRIBUTE, txn, |r| {
        oid_of(&r[0]) == table && matches!(r[4], Datum::Int2(n) if keys.contains(&n))
    })?;
    for (tid, mut row) in rows {
        if !matches!(row[6], Datum::Bool(true)) {
            row[6] = Datum::Bool(true);
            replace(&engine, db, &PG_ATTRIBUTE, txn, tid, &row)?;
        }
    }
    Ok(())
}

fn oid_array(values: impl IntoIterator<Item = Oid>) -> Datum {
    let elem = ElemType::new(SqlType::Oid).expect("oid[] exists");
    Datum::array(elem, values.into_iter().map(Datum::Oid).collect())
}

/// Writes the index's pg_class, pg_attribute, pg_index (and pg_constraint)
/// rows and sets the table's relhasindex. Returns the index OID.
fn write_catalog_rows(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    spec: &NewIndex,
    name: &str,
    keys: &[i16],
    state: IndexState,
) -> Result<Oid> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let predicate = match &spec.predicate {
        Some(node) => Some(predicate_text(table, node, &cx.type_catalog()?)?),
        None => None,
    };
    let oid = engine.new_oid()?;
    lock_relation(cx, oid, LockMode::AccessExclusive)?;
    let txn = cx.txn()?;
    let class = ClassRow {
        oid,
        name,
        namespace: table.namespace,
        relfilenode: oid,
        tablespace: DEFAULTTABLESPACE_OID,
        shared: false,
        kind: RelKind::Index,
        natts: keys.len() as i16,
        options: spec.fillfactor.map(|f| format!("{{fillfactor={f}}}")),
        frozen: FrozenBounds::default(),
    };
    insert(&engine, db, &PG_CLASS, txn, &class.values())?;
    for (i, &k) in keys.iter().enumerate() {
        let column = &table.columns[k as usize - 1];
        let row =
            attribute_row(oid, &column.name, column.ty, column.typmod, i as i16 + 1, false, false);
        insert(&engine, db, &PG_ATTRIBUTE, txn, &row)?;
    }
    let b = Datum::Bool;
    let primary = spec.constraint == Some(ConstraintKind::Primary);
    let unique = spec.unique || spec.constraint.is_some();
    let n = Datum::Int2(keys.len() as i16);
    let index_row = vec![
        Datum::Oid(oid),
        Datum::Oid(table.oid),
        n.clone(),
        n,
        b(unique),
        b(false),
        b(primary),
        b(false),
        b(true),
        b(false),
        b(state == IndexState::Valid),
        b(false),
        b(state == IndexState::Valid),
        b(true),
        b(false),
        int2_array(keys.iter().copied()),
        oid_array(keys.iter().map(|_| 0)),
        oid_array(keys.iter().map(|_| 0)),
        int2_array(spec.columns.iter().map(|(_, o)| indoption(*o))),
        Datum::Null,
        predicate.map_or(Datum::Null, Datum::Text),
    ];
    insert(&engine, db, &PG_INDEX, txn, &index_row)?;
    if let Some(kind) = spec.constraint {
        insert_constraint(cx, table, oid, name, kind, keys)?;
    }
    set_has_index(cx, table.oid)?;
    Ok(oid)
}

fn insert_constraint(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    index: Oid,
    name: &str,
    kind: ConstraintKind,
    keys: &[i16],
) -> Result<()> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let kind = match kind {
        ConstraintKind::Primary => ConstraintType::Primary,
        ConstraintKind::Unique => ConstraintType::Unique,
    };
    let new = NewConstraint {
        name,
        kind,
        table: table.oid,
        namespace: table.namespace,
        domain: 0,
        index,
        validated: true,
        deferrable: false,
        deferred: false,
        keys,
        expr: None,
        references: None,
    };
    constraint::insert_constraint(&engine, db, cx.txn()?, &new)?;
    Ok(())
}

/// Sets (or clears) `pg_class.relhasindex` of `table`; psql's `\d` looks
/// for indexes only when it is set.
fn set_has_index(cx: &mut dyn BackendContext, table: Oid) -> Result<()> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let txn = cx.txn()?;
    for (tid, mut row) in scan(&engine, db, &PG_CLASS, txn, |r| oid_of(&r[0]) == table)? {
        if !matches!(row[11], Datum::Bool(true)) {
            row[11] = Datum::Bool(true);
            replace(&engine, db, &PG_CLASS, txn, tid, &row)?;
        }
    }
    Ok(())
}

/// Which heap tuples an index build takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildScan {
    /// Every tuple an index must hold, live or recently dead; writers are
    /// locked out meanwhile (CREATE INDEX).
    Locked,
    /// The tuples the statement's snapshot sees, while writers go on (CREATE
    /// INDEX CONCURRENTLY; validation adds the rest).
    Snapshot,
}

/// build_index -- fills the new index `oid` of `table` from the heap.
fn build_index(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    oid: Oid,
    name: &str,
) -> Result<()> {
    build_index_from(cx, table, oid, name, BuildScan::Locked).map(|_| ())
}

/// build_index_from -- fills index `oid` of `table` from the tuples `scan`
/// selects, sorted and written bottom-up; returns how many entries it holds.
pub fn build_index_from(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    oid: Oid,
    name: &str,
    scan: BuildScan,
) -> Result<usize> {
    let mut parts = cx.parts()?;
    let types = parts.type_catalog();
    let engine = parts.engine.clone();
    let db = parts.env.database;
    let ctx = VisibilityContext::for_transaction(parts.txn, engine.txns());
    let index = indexes_of(&engine, db, &ctx, table.oid)?
        .into_iter()
        .find(|i| i.oid == oid)
        .ok_or_else(|| SqlError::internal("new index not found"))?;
    let predicate =
        index.predicate.as_deref().map(|p| analyze_predicate(table, p, &types)).transpose()?;
    let mut host = ExecHost::new(&mut parts.env, Vec::new(), ctx.clone());
    let (desc, types, key_types) = (table.tuple_desc(), table.types(), index.key_types(table));
    let mut entries = Vec::new();
    let mut add = |tid, tuple: &[u8], live| -> Result<()> {
        let row = deform_row(&desc, &types, tuple)?;
        if let Some(p) = &predicate {
            if !crate::expr::eval_qual(p, &row, &mut host)? {
                return Ok(());
            }
        }
        let values = index.key_values(&key_types, &row);
        entries.push(BuildEntry { values, heap_tid: tid, live });
        Ok(())
    };
    match scan {
        BuildScan::Locked => scan_for_index_build(&engine, &table.heap(), &ctx, add)?,
        BuildScan::Snapshot => {
            let mut heap = HeapScan::begin(&engine, &table.heap(), ctx.clone())?;
            while let Some((_, root, tuple)) = heap.next_indexable()? {
                add(root, &tuple, true)?;
            }
        }
    }
    let btree = index.btree(table);
    let count = entries.len();
    match btree_build(&engine, &btree, entries, index.unique) {
        Err(AccessError::DuplicateKey(values)) => {
            let datums = values
                .iter()
                .zip(&key_types)
                .map(|(v, ty)| match v {
                    Some(bytes) => {
                        sluice_types::storage::from_storage(*ty, bytes).map_err(SqlError::from)
                    }
                    None => Ok(Datum::Null),
                })
                .collect::<Result<Vec<_>>>()?;
            let (columns, shown) = render_key(&index, table, &datums, &host);
            Err(SqlError::new("23505", format!("could not create unique index \"{name}\""))
                .with_detail(format!("Key ({columns})=({shown}) is duplicated.")))
        }
        other => Ok(other.map(|()| count)?),
    }
}

/// DROP INDEX [CONCURRENTLY] [IF EXISTS] name, ...
pub fn drop_indexes(
    cx: &mut dyn BackendContext,
    stmt: &pg_query::protobuf::DropStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    if stmt.concurrent {
        cx.prevent_transaction_block("DROP INDEX CONCURRENTLY")?;
        if stmt.objects.len() > 1 {
            return Err(SqlError::unsupported(
                "DROP INDEX CONCURRENTLY does not support dropping multiple objects",
            ));
        }
        if stmt.behavior == pg_query::protobuf::DropBehavior::DropCascade as i32 {
            return Err(SqlError::unsupported("DROP INDEX CONCURRENTLY does not support CASCADE"));
        }
    }
    for object in &stmt.objects {
        let Some(NodeEnum::List(list)) = object.node.as_ref() else { continue };
        let names: Vec<String> = list.items.iter().filter_map(crate::parser::node_str).collect();
        let rv = super::sequence::range_var(&names)?;
        let found = cx.find_relation(&rv)?;
        let name = rv.relname;
        match found {
            Some(rel) if rel.kind == RelKind::Index => {
                let table = table_of_index(cx, rel.oid)?;
                let mode = match stmt.concurrent {
                    true => LockMode::ShareUpdateExclusive,
                    false => LockMode::AccessExclusive,
                };
                lock_relation(cx, table, mode)?;
                if let Some(constraint) = constraint_of_index(cx, rel.oid)? {
                    let (engine, db) = (cx.engine().clone(), cx.database());
                    let table_name = relation::find_by_oid(&engine, db, cx.txn()?, table)?
                        .map(|t| t.name)
                        .unwrap_or_default();
                    return Err(SqlError::new(
                        "2BP01",
                        format!("cannot drop index {name} because constraint {constraint} on table {table_name} requires it"),
                    )
                    .with_hint(format!("You can drop constraint {constraint} on table {table_name} instead.")));
                }
                match stmt.concurrent {
                    true => concurrently::drop_index_concurrently(cx, table, rel.oid)?,
                    false => remove_index(cx, rel.oid)?,
                }
            }
            Some(other) => {
                return Err(SqlError::new("42809", format!("\"{name}\" is not an index"))
                    .with_hint(super::tablecmds::drop_hint(other.kind)))
            }
            None if stmt.missing_ok => sink.notice(&SqlError::new(
                "00000",
                format!("index \"{name}\" does not exist, skipping"),
            ))?,
            None => return Err(SqlError::new("42704", format!("index \"{name}\" does not exist"))),
        }
    }
    sink.complete("DROP INDEX")
}

pub fn table_of_index(cx: &mut dyn BackendContext, index: Oid) -> Result<Oid> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let rows = scan(&engine, db, &PG_INDEX, cx.txn()?, |r| oid_of(&r[0]) == index)?;
    rows.first()
        .map(|(_, r)| oid_of(&r[1]))
        .ok_or_else(|| SqlError::internal("index without table"))
}

fn constraint_of_index(cx: &mut dyn BackendContext, index: Oid) -> Result<Option<String>> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let rows = scan(&engine, db, &PG_CONSTRAINT, cx.txn()?, |r| oid_of(&r[9]) == index)?;
    Ok(rows.first().and_then(|(_, r)| r[1].as_str().map(str::to_string)))
}

/// remove_index -- deletes an index's catalog rows (and its constraint's)
/// and removes its file at commit.
pub fn remove_index(cx: &mut dyn BackendContext, index: Oid) -> Result<()> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let txn = cx.txn()?;
    let Some(rel) = relation::find_by_oid(&engine, db, txn, index)? else { return Ok(()) };
    let is = |d: &Datum| matches!(d, Datum::Oid(o) if *o == index);
    crate::catalog::comment::remove_comments(&engine, db, txn, PG_CLASS.oid, index, None)?;
    for (_, row) in scan(&engine, db, &PG_CONSTRAINT, txn, |r| is(&r[9]))? {
        let constraint = oid_of(&row[0]);
        crate::catalog::comment::remove_comments(
            &engine,
            db,
            txn,
            PG_CONSTRAINT.oid,
            constraint,
            None,
        )?;
    }
    for (def, column) in [(&PG_CLASS, 0), (&PG_ATTRIBUTE, 0), (&PG_INDEX, 0), (&PG_CONSTRAINT, 9)] {
        for (tid, _) in scan(&engine, db, def, txn, |r| is(&r[column]))? {
            delete(&engine, db, def, txn, tid)?;
        }
    }
    txn.increment_command();
    cx.xact()?.delete_on_commit(rel.locator);
    Ok(())
}

/// drop_table_indexes -- removes every index of `table` (DROP TABLE).
pub fn drop_table_indexes(cx: &mut dyn BackendContext, table: Oid) -> Result<()> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let ctx = VisibilityContext::for_transaction(cx.txn()?, engine.txns());
    for index in indexes_of(&engine, db, &ctx, table)? {
        remove_index(cx, index.oid)?;
    }
    Ok(())
}
