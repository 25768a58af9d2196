//! Adding and validating FOREIGN KEY constraints (PostgreSQL's
//! ATAddForeignKeyConstraint, transformFkeyGetPrimaryKey,
//! transformFkeyCheckAttrs and RI_Initial_Check).
//!
//! A foreign key names columns of its table and, position by position,
//! columns of the referenced table that a unique, non-partial index keys on
//! exactly (the primary key when none are written). Each pair must be
//! comparable with `=`. The constraint is a `pg_constraint` row of type
//! `f` (`catalog/foreign_key.rs`) with dependencies: automatic on its own
//! columns (dropping one drops the key), normal on the referenced columns
//! and index (dropping those needs CASCADE). Both tables get
//! `relhastriggers` (a new `pg_class` row version, so statements that
//! waited for their locks see the key), and both are locked
//! ShareRowExclusive — the lock PostgreSQL takes to create the
//! triggers — so no row changes on either side while existing rows are
//! checked.
//!
//! Existing rows are checked with one anti-join, as RI_Initial_Check does:
//! a referencing row whose key has no NULL (MATCH SIMPLE) or any non-NULL
//! (MATCH FULL) and no referenced row fails the command with the same
//! error its insertion would get. NOT VALID skips the check; VALIDATE
//! CONSTRAINT runs it later.

use super::{choose_name, lock_relation};
use crate::catalog::constraint::{
    self, name_taken_in_namespace, ConstraintType, NewConstraint, References,
};
use crate::catalog::depend::{self, DepType, Dependency, ObjectAddress, CONSTRAINT_CLASS};
use crate::catalog::foreign_key::{FkAction, ForeignKey, CLASS_RELHASTRIGGERS};
use crate::catalog::index::indexes_of;
use crate::catalog::relation::RelationDesc;
use crate::catalog::schema::RelKind;
use crate::commands::dependency::{dependents_error, report_cascade};
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::executor::context::ExecParts;
use crate::executor::ri_triggers::query::{qualified_name, schema_names};
use crate::executor::ri_triggers::{key_detail, violation_on_referencing, MATCH_FULL_MIXED};
use crate::executor::spi;
use crate::expr::{make_op, Expr};
use crate::parser::node_str;
use crate::parser::quote_identifier;
use crate::parser::unsupported::refuse;
use pg_query::protobuf::Constraint;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_common::Oid;
use sluice_txn::lmgr::LockMode;
use sluice_types::{Datum, SqlType};

/// add_foreign_key -- adds FOREIGN KEY constraint `c` to `table`; `check`
/// proves existing rows (ALTER TABLE without NOT VALID; a new table has
/// none). `taken` holds constraint names given so far in the command.
pub(crate) fn add_foreign_key(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    c: &Constraint,
    check: bool,
    taken: &mut Vec<String>,
) -> Result<String> {
    refuse_clauses(c)?;
    let referenced = referenced_table(cx, table, c)?;
    let columns = attnums(table, &c.fk_attrs)?;
    let (ref_columns, index) = referenced_key(cx, &referenced, c)?;
    if columns.len() != ref_columns.len() {
        return Err(SqlError::new(
            "42830",
            "number of referencing and referenced columns for foreign key disagree",
        ));
    }
    let name = constraint_name(cx, table, c, &columns, taken)?;
    check_comparable(table, &referenced, (&columns, &ref_columns), &name)?;
    let key = ForeignKey {
        oid: 0,
        name: name.clone(),
        table: table.oid,
        columns,
        referenced: referenced.oid,
        ref_columns,
        index,
        on_update: FkAction::from_letter(&c.fk_upd_action),
        on_delete: FkAction::from_letter(&c.fk_del_action),
        match_full: c.fk_matchtype == "f",
        deferrable: c.deferrable || c.initdeferred,
        initially_deferred: c.initdeferred,
        validated: !(check && c.skip_validation),
    };
    if check && key.validated {
        initial_check(cx, table, &referenced, &key)?;
    }
    store(cx, table, &key)?;
    taken.push(name.clone());
    Ok(name)
}

/// validate_foreign_key -- VALIDATE CONSTRAINT of a NOT VALID foreign key:
/// the existing rows' check.
pub(crate) fn validate_foreign_key(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    name: &str,
) -> Result<()> {
    let key = table
        .foreign_keys
        .outgoing
        .iter()
        .find(|k| k.name == name)
        .ok_or_else(|| SqlError::internal(format!("foreign key \"{name}\" not loaded")))?
        .clone();
    lock_relation(cx, key.referenced, LockMode::RowShare)?;
    let referenced = super::describe(cx, key.referenced)?;
    initial_check(cx, table, &referenced, &key)
}

/// 0A000 for what sluice does not implement of a foreign key.
fn refuse_clauses(c: &Constraint) -> Result<()> {
    refuse(c.fk_matchtype == "p", "MATCH PARTIAL not yet implemented")?;
    refuse(
        !c.fk_del_set_cols.is_empty(),
        "ON DELETE SET NULL/DEFAULT with a column list is not supported yet",
    )?;
    refuse(!c.is_enforced, "NOT ENFORCED constraints are not supported yet")?;
    refuse(c.is_no_inherit, "NO INHERIT constraints are not supported yet")
}

/// The referenced table, locked ShareRowExclusive (42P01 if missing, 42809
/// if it is not a table). A table referencing itself is `table`.
fn referenced_table(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    c: &Constraint,
) -> Result<RelationDesc> {
    let rv = c.pktable.as_ref().ok_or_else(|| SqlError::internal("REFERENCES without a table"))?;
    let Some(found) = super::lock_for_ddl(cx, rv, LockMode::ShareRowExclusive)? else {
        return Err(crate::catalog::namespace::missing_relation(&rv.relname));
    };
    if found.oid == table.oid {
        return super::describe(cx, table.oid);
    }
    if found.kind != RelKind::Table {
        return Err(SqlError::new(
            "42809",
            format!("referenced relation \"{}\" is not a table", found.name),
        ));
    }
    super::describe(cx, found.oid)
}

/// The attnums of the named columns of `rel` (42703 for one it lacks).
fn attnums(rel: &RelationDesc, names: &[pg_query::protobuf::Node]) -> Result<Vec<i16>> {
    names
        .iter()
        .filter_map(node_str)
        .map(|name| match rel.column_index(&name) {
            Some(i) => Ok(i as i16 + 1),
            None => Err(SqlError::new(
                "42703",
                format!("column \"{name}\" referenced in foreign key constraint does not exist"),
            )),
        })
        .collect()
}

/// The referenced columns and the unique index that keys on exactly them:
/// the primary key when none are written (transformFkeyGetPrimaryKey),
/// else a unique, valid, non-partial index on the same set of columns
/// (transformFkeyCheckAttrs).
fn referenced_key(
    cx: &mut dyn BackendContext,
    referenced: &RelationDesc,
    c: &Constraint,
) -> Result<(Vec<i16>, Oid)> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let ctx = VisibilityContext::for_transaction(cx.txn()?, engine.txns());
    let indexes = indexes_of(&engine, db, &ctx, referenced.oid)?;
    if c.pk_attrs.is_empty() {
        let primary = indexes.iter().find(|i| i.primary && i.valid);
        return match primary {
            Some(index) => Ok((index.keys.clone(), index.oid)),
            None => Err(SqlError::new(
                "42704",
                format!("there is no primary key for referenced table \"{}\"", referenced.name),
            )),
        };
    }
    let columns = attnums(referenced, &c.pk_attrs)?;
    let mut wanted = columns.clone();
    wanted.sort_unstable();
    let same_set = |keys: &[i16]| {
        let mut keys = keys.to_vec();
        keys.sort_unstable();
        keys == wanted
    };
    let matching =
        indexes.iter().find(|i| i.unique && i.valid && i.predicate.is_none() && same_set(&i.keys));
    match matching {
        Some(index) if wanted.windows(2).all(|w| w[0] != w[1]) => Ok((columns, index.oid)),
        _ => Err(SqlError::new(
            "42830",
            format!(
                "there is no unique constraint matching given keys for referenced table \"{}\"",
                referenced.name
            ),
        )),
    }
}

/// The constraint's name: the one written (42710 if the table has it), else
/// `<table>_<columns>_fkey`, numbered past names in use.
fn constraint_name(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    c: &Constraint,
    columns: &[i16],
    taken: &[String],
) -> Result<String> {
    let engine = cx.engine().clone();
    let db = cx.database();
    if !c.conname.is_empty() {
        let rows = constraint::constraints_of(&engine, db, cx.txn()?, table.oid)?;
        let exists = rows.iter().any(|(_, r)| r[constraint::CON_NAME].as_str() == Some(&c.conname));
        if exists || taken.contains(&c.conname) {
            return Err(SqlError::new(
                "42710",
                format!(
                    "constraint \"{}\" for relation \"{}\" already exists",
                    c.conname, table.name
                ),
            ));
        }
        return Ok(c.conname.clone());
    }
    let names: Vec<&str> =
        columns.iter().map(|&a| table.columns[a as usize - 1].name.as_str()).collect();
    let addition = names.join("_");
    let namespace = table.namespace;
    choose_name(&table.name, &addition, "fkey", |name| {
        if taken.iter().any(|t| t == name) {
            return Ok(true);
        }
        name_taken_in_namespace(&engine, db, cx.txn()?, namespace, name)
    })
}

/// 42804 unless each referencing column compares with its referenced one
/// by `=`.
fn check_comparable(
    table: &RelationDesc,
    referenced: &RelationDesc,
    (columns, ref_columns): (&[i16], &[i16]),
    name: &str,
) -> Result<()> {
    for (&fk, &pk) in columns.iter().zip(ref_columns) {
        let (fk, pk) = (&table.columns[fk as usize - 1], &referenced.columns[pk as usize - 1]);
        let operand =
            |ty: SqlType, index: usize| Expr::Column { index, ty, typmod: -1, location: None };
        if make_op("=", Some(operand(pk.ty, 0)), operand(fk.ty, 1), None).is_err() {
            return Err(SqlError::new(
                "42804",
                format!("foreign key constraint \"{name}\" cannot be implemented"),
            )
            .with_detail(format!(
                "Key columns \"{}\" and \"{}\" are of incompatible types: {} and {}.",
                fk.name,
                pk.name,
                crate::expr::type_name(fk.ty),
                crate::expr::type_name(pk.ty)
            )));
        }
    }
    Ok(())
}

/// RI_Initial_Check: fails as an insertion would if an existing row of
/// `table` has no referenced row.
fn initial_check(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    referenced: &RelationDesc,
    key: &ForeignKey,
) -> Result<()> {
    let mut parts = cx.parts()?;
    let sql = initial_check_query(&mut parts, table, referenced, key)?;
    let found = spi::execute(&mut parts, &sql, Vec::new(), &[], Some(1))?;
    let Some(row) = found.rows.into_iter().next() else { return Ok(()) };
    let error = violation_on_referencing(key, table);
    if key.match_full && row.iter().any(Datum::is_null) {
        return Err(error.with_detail(MATCH_FULL_MIXED));
    }
    let detail = key_detail(&parts, table, &key.columns, &row);
    Err(error.with_detail(format!("Key {detail} is not present in table \"{}\".", referenced.name)))
}

/// `SELECT fk.k1, ... FROM ONLY t fk LEFT JOIN ONLY r pk ON pk.p1 = fk.k1
/// AND ... WHERE pk.p1 IS NULL AND <key not exempt>`.
fn initial_check_query(
    parts: &mut ExecParts,
    table: &RelationDesc,
    referenced: &RelationDesc,
    key: &ForeignKey,
) -> Result<String> {
    let schemas = schema_names(parts)?;
    let column = |rel: &RelationDesc, a: i16| quote_identifier(&rel.columns[a as usize - 1].name);
    let fk_cols: Vec<String> =
        key.columns.iter().map(|&a| format!("fk.{}", column(table, a))).collect();
    let join: Vec<String> = key
        .columns
        .iter()
        .zip(&key.ref_columns)
        .map(|(&f, &p)| format!("pk.{} = fk.{}", column(referenced, p), column(table, f)))
        .collect();
    let not_null: Vec<String> = fk_cols.iter().map(|c| format!("{c} IS NOT NULL")).collect();
    let exempt = not_null.join(if key.match_full { " OR " } else { " AND " });
    let first_pk = column(referenced, key.ref_columns[0]);
    Ok(format!(
        "SELECT {} FROM ONLY {} fk LEFT JOIN ONLY {} pk ON {} WHERE pk.{first_pk} IS NULL AND ({exempt})",
        fk_cols.join(", "),
        qualified_name(&schemas, table)?,
        qualified_name(&schemas, referenced)?,
        join.join(" AND "),
    ))
}

/// The constraint's row, its dependencies and `relhastriggers` on both
/// tables.
fn store(cx: &mut dyn BackendContext, table: &RelationDesc, key: &ForeignKey) -> Result<()> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let txn = cx.txn()?;
    let new = NewConstraint {
        name: &key.name,
        kind: ConstraintType::Foreign,
        table: table.oid,
        namespace: table.namespace,
        domain: 0,
        index: key.index,
        validated: key.validated,
        deferrable: key.deferrable,
        deferred: key.initially_deferred,
        keys: &key.columns,
        expr: None,
        references: Some(References {
            table: key.referenced,
            keys: &key.ref_columns,
            on_update: key.on_update.letter(),
            on_delete: key.on_delete.letter(),
            match_type: if key.match_full { 'f' } else { 's' },
        }),
    };
    let oid = constraint::insert_constraint(&engine, db, txn, &new)?;
    let object = ObjectAddress { classid: CONSTRAINT_CLASS, objid: oid, objsubid: 0 };
    let mut deps: Vec<(ObjectAddress, DepType)> =
        key.columns.iter().map(|&a| (ObjectAddress::column(table.oid, a), DepType::Auto)).collect();
    if key.referenced != table.oid {
        deps.extend(
            key.ref_columns
                .iter()
                .map(|&a| (ObjectAddress::column(key.referenced, a), DepType::Normal)),
        );
    }
    deps.push((ObjectAddress::relation(key.index), DepType::Normal));
    for (referenced, kind) in deps {
        depend::record(&engine, db, txn, &Dependency { object, referenced, kind })?;
    }
    txn.increment_command();
    for rel in [table.oid, key.referenced] {
        super::update_class_row(cx, rel, |row| row[CLASS_RELHASTRIGGERS] = Datum::Bool(true))?;
    }
    Ok(())
}

/// drop_referencing_keys -- DROP TABLE of `rel`: the foreign keys of other
/// tables referencing it depend on it, so without CASCADE the drop fails
/// (2BP01, each dependent listed as PostgreSQL's reportDependentObjects
/// lists it); with CASCADE they go first, each with its NOTICE.
pub(crate) fn drop_referencing_keys(
    cx: &mut dyn BackendContext,
    rel: &RelationDesc,
    cascade: bool,
    sink: &mut dyn crate::sink::QuerySink,
) -> Result<()> {
    let others: Vec<_> =
        rel.foreign_keys.incoming.iter().filter(|k| k.table != rel.oid).cloned().collect();
    let mut objects = Vec::new();
    for key in &others {
        let table = super::describe(cx, key.table)?;
        objects.push(format!("constraint {} on table {}", key.name, table.name));
    }
    if objects.is_empty() {
        return Ok(());
    }
    if !cascade {
        let me = format!("table {}", rel.name);
        let lines: Vec<String> = objects.iter().map(|o| format!("{o} depends on {me}")).collect();
        return Err(dependents_error(&me, &lines));
    }
    report_cascade(&objects, sink)?;
    for key in others {
        lock_relation(cx, key.table, LockMode::AccessExclusive)?;
        let engine = cx.engine().clone();
        let db = cx.database();
        let rows = constraint::constraints_of(&engine, db, cx.txn()?, key.table)?;
        if let Some((tid, _)) =
            rows.iter().find(|(_, r)| crate::catalog::relation::oid_of(&r[0]) == key.oid)
        {
            super::constraints::remove_constraint_row(cx, *tid, key.oid)?;
        }
        super::touch_class_row(cx, key.table)?;
    }
    Ok(())
}
