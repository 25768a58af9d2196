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
pub mod cluster;
mod columns;
mod constraints;
mod like;
mod lookup;
mod reloptions;
mod rename;

pub use alter::alter_table;
pub(crate) use lookup::{describe, lock_for_ddl, touch_class_row, update_class_row};
pub use rename::rename;

use super::indexcmds::{define_index, fillfactor_option, ConstraintKind, NewIndex};
use super::sequence;
use crate::catalog::bootstrap::{attribute_row, ClassRow};
use crate::catalog::depend::{self, DepType, Dependency, ObjectAddress, ATTRDEF_CLASS};
use crate::catalog::namespace::missing_relation;
use crate::catalog::namespace::target_namespace;
use crate::catalog::relation::{self, oid_of, RelationId};
use crate::catalog::relation::{Identity, RelationDesc, ATT_IDENTITY};
use crate::catalog::schema::*;
use crate::catalog::{delete, insert, scan};
use crate::error::position;
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::executor::lmgr::{lock_relation_in, lock_relation_with};
use crate::parser::deparse_expr;
use crate::parser::node_str;
use crate::parser::unsupported::{other_tablespace, refuse};
use crate::sink::QuerySink;
use pg_query::protobuf::{
    ColumnDef, ConstrType, Constraint, CreateStmt, DropStmt, LockStmt, ObjectType,
};
use pg_query::NodeEnum;
use sluice_access::nbtree::ColumnOrder;
use sluice_common::{ForkNumber, Oid, RelFileLocator, DEFAULTTABLESPACE_OID};
use sluice_txn::lmgr::LockMode;
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
    /// Declared `serial`/`bigserial`/`smallserial`: gets a sequence.
    serial: bool,
    /// PRIMARY KEY / UNIQUE declared on the column.
    constraints: Vec<NewIndex>,
    /// CHECK constraints declared on the column.
    checks: Vec<Constraint>,
    /// `GENERATED ... AS IDENTITY` and its sequence options: the column
    /// gets a sequence of its own, internally dependent on it.
    identity: Option<(Identity, Vec<pg_query::protobuf::Node>)>,
}

/// CREATE TABLE.
pub fn create_table(
    cx: &mut dyn BackendContext,
    stmt: &CreateStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let rv =
        stmt.relation.as_ref().ok_or_else(|| SqlError::internal("CREATE TABLE without a name"))?;
    refuse_create_clauses(stmt, rv)?;
    let namespace = target_namespace(rv)?;
    let likes = like_clauses(cx, stmt)?;
    let NewElements { mut columns, indexes: constraints, checks } =
        new_columns(stmt, &rv.relname, likes)?;
    let options = reloptions::reloptions(stmt)?;
    let engine = cx.engine().clone();
    let db = cx.database();
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
    };
    insert(&engine, db, &PG_CLASS, cx.txn()?, &class.values())?;
    let mut attrdefs = Vec::new();
    for (i, c) in columns.iter().enumerate() {
        let attnum = i as i16 + 1;
        insert(&engine, db, &PG_ATTRIBUTE, cx.txn()?, &c.attribute_row(oid, attnum))?;
        if let Some(default) = &c.default {
            attrdefs.push((i, insert_attrdef(cx, oid, attnum, default)?));
        }
    }
    for (i, seq) in serials {
        let attrdef = attrdefs.iter().find(|(c, _)| *c == i).map(|(_, a)| *a);
        let identity = columns[i].identity.is_some();
        record_serial_dependencies(cx, (oid, i as i16 + 1), attrdef, seq, identity)?;
    }
    engine.create_relation_fork(locator, ForkNumber::Main)?;
    cx.xact()?.delete_on_abort(locator);
    if !constraints.is_empty() || !checks.is_empty() {
        cx.txn()?.increment_command();
        let table = relation::lookup(&engine, db, cx.txn()?, &[namespace], &rv.relname)?
            .ok_or_else(|| SqlError::internal("new table not found"))?;
        let mut named = Vec::new();
        for check in &checks {
            constraints::add_check(cx, &table, check, false, &mut named)?;
        }
        for spec in constraints {
            define_index(cx, &table, spec, sink)?;
        }
    }
    sink.complete("CREATE TABLE")
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
            column.default = Some(sequence::serial_default(&name));
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
pub(super) fn choose_name(
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

/// refuse_column_clauses -- 0A000 for the parts of a column definition that
/// sluice does not implement; name, type, NOT NULL and the constraint list
/// are read by [`new_column`].
fn refuse_column_clauses(def: &ColumnDef) -> Result<()> {
    refuse(!def.compression.is_empty(), "column compression is not supported yet")?;
    refuse(
        !def.storage_name.is_empty() || !def.storage.is_empty(),
        "column STORAGE is not supported yet",
    )?;
    refuse(def.coll_clause.is_some(), "column collations are not supported yet")?;
    refuse(!def.fdwoptions.is_empty(), "column OPTIONS are not supported yet")?;
    refuse(
        def.raw_default.is_some() || def.cooked_default.is_some(),
        "column defaults outside DEFAULT are not supported yet",
    )?;
    refuse(!def.identity.is_empty(), "identity columns are not supported yet")?;
    refuse(!def.generated.is_empty(), "generated columns are not supported yet")
}

/// The message for a column constraint sluice does not implement.
fn column_constraint_unsupported(kind: ConstrType) -> &'static str {
    match kind {
        ConstrType::ConstrGenerated => "generated columns are not supported yet",
        ConstrType::ConstrForeign => "foreign key constraints are not supported yet",
        ConstrType::ConstrExclusion => "exclusion constraints are not supported yet",
        ConstrType::ConstrAttrDeferrable
        | ConstrType::ConstrAttrNotDeferrable
        | ConstrType::ConstrAttrDeferred
        | ConstrType::ConstrAttrImmediate => "deferrable constraints are not supported yet",
        _ => "column constraints other than NOT NULL, DEFAULT, PRIMARY KEY and UNIQUE are not supported yet",
    }
}

/// refuse_index_constraint_clauses -- 0A000 for the parts of a PRIMARY KEY
/// or UNIQUE constraint that sluice does not implement; the name, keys and
/// fillfactor are read by [`constraint_index`].
fn refuse_index_constraint_clauses(c: &Constraint) -> Result<()> {
    refuse(c.deferrable || c.initdeferred, "deferrable constraints are not supported yet")?;
    refuse(!c.including.is_empty(), "INCLUDE columns are not supported yet")?;
    refuse(c.nulls_not_distinct, "NULLS NOT DISTINCT is not supported yet")?;
    refuse(other_tablespace(&c.indexspace), "tablespaces are not supported yet")?;
    refuse(!c.indexname.is_empty(), "USING INDEX is not supported yet")?;
    refuse(c.without_overlaps, "WITHOUT OVERLAPS is not supported yet")
}

/// constraint_index -- the index a PRIMARY KEY or UNIQUE constraint needs
/// (its columns filled in from `keys`, which a column constraint lacks).
pub(crate) fn constraint_index(c: &Constraint) -> Result<NewIndex> {
    let kind = match ConstrType::try_from(c.contype).unwrap_or(ConstrType::Undefined) {
        ConstrType::ConstrPrimary => ConstraintKind::Primary,
        ConstrType::ConstrUnique => ConstraintKind::Unique,
        _ => {
            return Err(SqlError::unsupported(
                "constraints other than PRIMARY KEY and UNIQUE are not supported yet",
            ))
        }
    };
    refuse_index_constraint_clauses(c)?;
    Ok(NewIndex {
        name: (!c.conname.is_empty()).then(|| c.conname.clone()),
        columns: c.keys.iter().filter_map(node_str).map(|k| (k, ColumnOrder::default())).collect(),
        unique: true,
        constraint: Some(kind),
        predicate: None,
        fillfactor: fillfactor_option(&c.options)?,
        if_not_exists: false,
    })
}

/// Where a PRIMARY KEY constraint is written, if `c` is one.
fn primary_location(c: &Constraint) -> Option<i32> {
    (ConstrType::try_from(c.contype) == Ok(ConstrType::ConstrPrimary)).then_some(c.location)
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

/// What a CREATE TABLE element list defines.
struct NewElements {
    columns: Vec<NewColumn>,
    /// PRIMARY KEY and UNIQUE constraints (the primary key first).
    indexes: Vec<NewIndex>,
    /// CHECK constraints, column ones first.
    checks: Vec<Constraint>,
}

/// The columns and constraints of `stmt`'s element list, with `likes`
/// (what its LIKE clauses copy, in order) spliced in where they stand.
fn new_columns(stmt: &CreateStmt, table: &str, likes: Vec<like::LikeCopy>) -> Result<NewElements> {
    let mut columns: Vec<NewColumn> = Vec::new();
    let mut table_constraints = Vec::new();
    let mut checks = Vec::new();
    let mut primary_keys = Vec::new();
    let mut likes = likes.into_iter();
    for element in &stmt.table_elts {
        match element.node.as_ref() {
            Some(NodeEnum::ColumnDef(def)) => {
                primary_keys.extend(def.constraints.iter().filter_map(|n| match n.node.as_ref() {
                    Some(NodeEnum::Constraint(c)) => primary_location(c),
                    _ => None,
                }));
                add_column(&mut columns, new_column(def, table)?)?;
            }
            Some(NodeEnum::TableLikeClause(_)) => {
                let copy = likes.next().ok_or_else(|| SqlError::internal("LIKE not expanded"))?;
                for column in copy.columns {
                    add_column(&mut columns, column)?;
                }
                table_constraints.extend(copy.indexes);
                checks.extend(copy.checks);
            }
            Some(NodeEnum::Constraint(c)) if constraints::is_check(c) => checks.push((**c).clone()),
            Some(NodeEnum::Constraint(c)) => {
                table_constraints.push(constraint_index(c)?);
                primary_keys.extend(primary_location(c));
            }
            _ => {
                return Err(SqlError::unsupported("this CREATE TABLE element is not supported yet"))
            }
        }
    }
    if let Some(&location) = primary_keys.get(1) {
        return Err(SqlError::new(
            "42P16",
            format!("multiple primary keys for table \"{table}\" are not allowed"),
        )
        .at(position(location)));
    }
    if columns.len() > MAX_COLUMNS {
        return Err(SqlError::new(
            "54011",
            format!("tables can have at most {MAX_COLUMNS} columns"),
        ));
    }
    // Primary key columns are NOT NULL.
    let mut constraints: Vec<NewIndex> =
        columns.iter_mut().flat_map(|c| std::mem::take(&mut c.constraints)).collect();
    // Column CHECK constraints come first, as PostgreSQL gathers them.
    let column_checks = columns.iter_mut().flat_map(|c| std::mem::take(&mut c.checks));
    let checks: Vec<Constraint> = column_checks.chain(checks).collect();
    for spec in &table_constraints {
        if spec.constraint != Some(ConstraintKind::Primary) {
            continue;
        }
        for (name, _) in &spec.columns {
            if let Some(c) = columns.iter_mut().find(|c| &c.name == name) {
                c.not_null = true;
            }
        }
    }
    constraints.extend(table_constraints);
    // PostgreSQL builds the primary key's index first.
    constraints.sort_by_key(|c| c.constraint != Some(ConstraintKind::Primary));
    Ok(NewElements { columns, indexes: constraints, checks })
}

impl NewColumn {
    /// The column's `pg_attribute` row as attribute `attnum` of `relid`.
    fn attribute_row(&self, relid: Oid, attnum: i16) -> Vec<Datum> {
        let (ty, typmod, has_default) = (self.ty, self.typmod, self.default.is_some());
        let mut row =
            attribute_row(relid, &self.name, ty, typmod, attnum, self.not_null, has_default);
        if let Some((identity, _)) = &self.identity {
            row[ATT_IDENTITY] = Datum::Text(identity.letter().into());
        }
        row
    }
}

/// Appends `column`, 42701 if the name is taken.
fn add_column(columns: &mut Vec<NewColumn>, column: NewColumn) -> Result<()> {
    if columns.iter().any(|c| c.name == column.name) {
        return Err(SqlError::new(
            "42701",
            format!("column \"{}\" specified more than once", column.name),
        ));
    }
    columns.push(column);
    Ok(())
}

/// The names of the system columns every table has.
const SYSTEM_COLUMNS: [&str; 6] = ["tableoid", "cmax", "xmax", "cmin", "xmin", "ctid"];

/// 42701 for a user column named like a system column (PostgreSQL's
/// CheckAttributeNamesTypes).
pub(super) fn check_column_name(name: &str) -> Result<()> {
    if SYSTEM_COLUMNS.contains(&name) {
        return Err(SqlError::new(
            "42701",
            format!("column name \"{name}\" conflicts with a system column name"),
        ));
    }
    Ok(())
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

fn new_column(def: &ColumnDef, table: &str) -> Result<NewColumn> {
    refuse_column_clauses(def)?;
    check_column_name(&def.colname)?;
    let type_name =
        def.type_name.as_ref().ok_or_else(|| SqlError::internal("column without a type"))?;
    let serial = serial_type(type_name);
    let (ty, typmod) = match serial {
        Some(ty) => (ty, -1),
        None => crate::expr::type_from_name(type_name)?,
    };
    let mut column = NewColumn {
        name: def.colname.clone(),
        ty,
        typmod,
        not_null: def.is_not_null,
        default: None,
        serial: serial.is_some(),
        constraints: Vec::new(),
        checks: Vec::new(),
        identity: None,
    };
    for constraint in &def.constraints {
        let Some(NodeEnum::Constraint(c)) = constraint.node.as_ref() else { continue };
        match ConstrType::try_from(c.contype).unwrap_or(ConstrType::Undefined) {
            ConstrType::ConstrNotnull => column.not_null = true,
            ConstrType::ConstrNull if column.serial => {
                return Err(SqlError::syntax(format!(
                    "conflicting NULL/NOT NULL declarations for column \"{}\" of table \"{table}\"",
                    column.name
                )))
            }
            ConstrType::ConstrNull => column.not_null = false,
            ConstrType::ConstrDefault if column.serial => {
                return Err(SqlError::syntax(format!(
                    "multiple default values specified for column \"{}\" of table \"{table}\"",
                    column.name
                )))
            }
            ConstrType::ConstrDefault if column.identity.is_some() => {
                return Err(both_default_and_identity(&column.name, table, c))
            }
            ConstrType::ConstrDefault => {
                let expr = c
                    .raw_expr
                    .as_deref()
                    .ok_or_else(|| SqlError::internal("DEFAULT without expression"))?;
                column.default = Some(deparse_expr(expr)?);
            }
            ConstrType::ConstrPrimary | ConstrType::ConstrUnique => {
                let mut spec = constraint_index(c)?;
                spec.columns = vec![(column.name.clone(), ColumnOrder::default())];
                column.not_null |= spec.constraint == Some(ConstraintKind::Primary);
                column.constraints.push(spec);
            }
            ConstrType::ConstrCheck => column.checks.push((**c).clone()),
            ConstrType::ConstrIdentity => set_identity(&mut column, c, table)?,
            other => return Err(SqlError::unsupported(column_constraint_unsupported(other))),
        }
    }
    if column.identity.is_some() && column.serial {
        return Err(SqlError::syntax(format!(
            "both default and identity specified for column \"{}\" of table \"{table}\"",
            column.name
        )));
    }
    // Serial and identity columns are NOT NULL whatever else they say.
    column.not_null |= column.serial || column.identity.is_some();
    Ok(column)
}

/// 42601 for a column given both a DEFAULT and an identity, at `c`.
fn both_default_and_identity(column: &str, table: &str, c: &Constraint) -> SqlError {
    SqlError::syntax(format!(
        "both default and identity specified for column \"{column}\" of table \"{table}\""
    ))
    .at(position(c.location))
}

/// Records a column's `GENERATED { ALWAYS | BY DEFAULT } AS IDENTITY`.
fn set_identity(column: &mut NewColumn, c: &Constraint, table: &str) -> Result<()> {
    if column.identity.is_some() {
        return Err(SqlError::syntax(format!(
            "multiple identity specifications for column \"{}\" of table \"{table}\"",
            column.name
        ))
        .at(position(c.location)));
    }
    if column.default.is_some() {
        return Err(both_default_and_identity(&column.name, table, c));
    }
    if !matches!(column.ty, SqlType::Int2 | SqlType::Int4 | SqlType::Int8) {
        return Err(SqlError::new(
            "22023",
            "identity column type must be smallint, integer, or bigint",
        ));
    }
    let kind = match c.generated_when.as_str() {
        "a" => Identity::Always,
        _ => Identity::ByDefault,
    };
    column.identity = Some((kind, c.options.clone()));
    Ok(())
}

/// The integer type of an unqualified `serial`-family type name (PostgreSQL
/// recognises them only unqualified and without modifiers).
fn serial_type(tn: &pg_query::protobuf::TypeName) -> Option<SqlType> {
    if tn.names.len() != 1 || tn.pct_type || !tn.typmods.is_empty() || !tn.array_bounds.is_empty() {
        return None;
    }
    match node_str(&tn.names[0])?.as_str() {
        "smallserial" | "serial2" => Some(SqlType::Int2),
        "serial" | "serial4" => Some(SqlType::Int4),
        "bigserial" | "serial8" => Some(SqlType::Int8),
        _ => None,
    }
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
        let mut parts = cx.parts()?;
        let rel = crate::catalog::relation::lookup(
            parts.engine,
            parts.env.database,
            parts.txn,
            &[PG_CATALOG_NAMESPACE, PUBLIC_NAMESPACE],
            &rv.relname,
        )?
        .ok_or_else(|| missing_relation(&rv.relname))?;
        lock_relation_with(&mut parts, rel.oid, mode, stmt.nowait, Some(&rel.name))?;
    }
    sink.complete("LOCK TABLE")
}

/// DROP TABLE / DROP SEQUENCE [IF EXISTS] name, ...
pub fn drop(cx: &mut dyn BackendContext, stmt: &DropStmt, sink: &mut dyn QuerySink) -> Result<()> {
    match ObjectType::try_from(stmt.remove_type).ok() {
        Some(ObjectType::ObjectTable) => drop_tables(cx, stmt, sink),
        Some(ObjectType::ObjectSequence) => sequence::drop_sequences(cx, stmt, sink),
        Some(ObjectType::ObjectIndex) => super::indexcmds::drop_indexes(cx, stmt, sink),
        Some(ObjectType::ObjectExtension) => super::extension::drop_extensions(cx, stmt, sink),
        _ => Err(SqlError::unsupported("only DROP TABLE and DROP SEQUENCE are supported yet")),
    }
}

/// DROP TABLE [IF EXISTS] name, ... (with the sequences its columns own).
fn drop_tables(
    cx: &mut dyn BackendContext,
    stmt: &DropStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    for object in &stmt.objects {
        let Some(NodeEnum::List(list)) = object.node.as_ref() else { continue };
        let names: Vec<String> = list.items.iter().filter_map(node_str).collect();
        let rv = sequence::range_var(&names)?;
        let found = cx.find_relation(&rv)?;
        let name = rv.relname;
        let Some(rel) = found else {
            if stmt.missing_ok {
                sink.notice(&SqlError::new(
                    "00000",
                    format!("table \"{name}\" does not exist, skipping"),
                ))?;
                continue;
            }
            return Err(SqlError::new("42P01", format!("table \"{name}\" does not exist")));
        };
        refuse_system_catalog(&rel)?;
        if rel.kind != RelKind::Table {
            return Err(SqlError::new("42809", format!("\"{name}\" is not a table"))
                .with_hint("Use DROP SEQUENCE to remove a sequence."));
        }
        lock_relation(cx, rel.oid, LockMode::AccessExclusive)?;
        super::indexcmds::drop_table_indexes(cx, rel.oid)?;
        for seq in sequence::owned_sequences(cx, rel.oid)? {
            lock_relation(cx, seq.oid, LockMode::AccessExclusive)?;
            remove_relation(cx, &seq)?;
        }
        remove_relation(cx, &rel)?;
    }
    sink.complete("DROP TABLE")
}

/// remove_relation -- deletes a relation's catalog rows (class, columns,
/// defaults, sequence parameters, statistics, dependencies) and removes its file once
/// the transaction commits (PostgreSQL's heap_drop_with_catalog). The caller
/// holds AccessExclusive on it and has dealt with objects depending on it.
pub(crate) fn remove_relation(cx: &mut dyn BackendContext, rel: &RelationId) -> Result<()> {
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
    cx.xact()?.delete_on_commit(rel.locator);
    // Its cumulative statistics go with it (pgstat_drop_relation).
    cx.xact()?.at_transaction_end(true, move |engine| engine.stats().drop_relation(db, oid));
    Ok(())
}
