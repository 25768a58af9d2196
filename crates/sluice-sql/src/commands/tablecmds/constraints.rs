//! Adding, validating, renaming and dropping table constraints
//! (PostgreSQL's ATExecAddConstraint, ATExecValidateConstraint,
//! ATExecDropConstraint and RenameConstraint in `tablecmds.c`, with
//! AddRelationNewConstraints from `catalog/heap.c`).
//!
//! A CHECK constraint is a `pg_constraint` row (see `catalog/constraint.rs`)
//! plus a dependency on each column it reads, so dropping the column takes
//! the constraint with it. Added to an existing table it is proved against
//! every row first, under the caller's lock, which excludes writers: either
//! every row passes or the command fails with 23514. `NOT VALID` skips that
//! proof and records `convalidated = false`; `VALIDATE CONSTRAINT` does the
//! proof later under a weaker lock (ShareUpdateExclusive), which lets
//! writers go on — they are checked against the constraint already.
//!
//! PRIMARY KEY and UNIQUE constraints are their index (`indexcmds.rs`):
//! dropping one drops the index.

use super::lock_relation;
use crate::catalog::constraint::{
    self, name_taken_in_namespace, set_relchecks, ConstraintType, NewConstraint, CON_INDID,
    CON_NAME, CON_TYPE, CON_VALIDATED,
};
use crate::catalog::depend::{self, DepType, Dependency, ObjectAddress, CONSTRAINT_CLASS};
use crate::catalog::relation::{oid_of, RelationDesc};
use crate::catalog::rows::deform_row;
use crate::catalog::schema::PG_CONSTRAINT;
use crate::catalog::{delete, replace};
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::executor::host::ExecHost;
use crate::expr::{eval, EvalHost, Expr};
use crate::optimizer::constraint::{cook_check, CookedCheck};
use crate::parser::unsupported::refuse;
use crate::sink::QuerySink;
use pg_query::protobuf::{ConstrType, Constraint};
use sluice_access::heap::scan::HeapScan;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_common::{ItemPointer, Oid};
use sluice_types::Datum;

/// Whether `c` is a CHECK constraint.
pub(crate) fn is_check(c: &Constraint) -> bool {
    ConstrType::try_from(c.contype) == Ok(ConstrType::ConstrCheck)
}

/// refuse_check_clauses -- 0A000 for what sluice does not implement of a
/// CHECK constraint.
fn refuse_check_clauses(c: &Constraint) -> Result<()> {
    refuse(c.is_no_inherit, "NO INHERIT constraints are not supported yet")?;
    refuse(!c.is_enforced, "NOT ENFORCED constraints are not supported yet")
}

/// add_check -- adds CHECK constraint `c` to `table`. `prove` scans the
/// existing rows first (ALTER TABLE without NOT VALID); a new table has
/// none. `taken` holds the names given so far in the same command, for
/// PostgreSQL's "check constraint already exists". Returns the name used.
pub(crate) fn add_check(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    c: &Constraint,
    prove: bool,
    taken: &mut Vec<String>,
) -> Result<String> {
    refuse_check_clauses(c)?;
    let raw =
        c.raw_expr.as_deref().ok_or_else(|| SqlError::internal("CHECK without expression"))?;
    let cooked = cook_check(table, raw, &cx.type_catalog()?)?;
    let name = check_name(cx, table, c, &cooked, taken)?;
    let validated = !c.skip_validation || !prove;
    if prove && validated {
        prove_check(cx, table, &name, &cooked.expr)?;
    }
    let engine = cx.engine().clone();
    let db = cx.database();
    let txn = cx.txn()?;
    let new = NewConstraint {
        name: &name,
        kind: ConstraintType::Check,
        table: table.oid,
        namespace: table.namespace,
        domain: 0,
        index: 0,
        validated,
        deferrable: false,
        deferred: false,
        keys: &cooked.columns,
        expr: Some(&cooked.text),
        references: None,
    };
    let oid = constraint::insert_constraint(&engine, db, txn, &new)?;
    for &attnum in &cooked.columns {
        let dep = Dependency {
            object: ObjectAddress { classid: CONSTRAINT_CLASS, objid: oid, objsubid: 0 },
            referenced: ObjectAddress::column(table.oid, attnum),
            kind: DepType::Auto,
        };
        depend::record(&engine, db, txn, &dep)?;
    }
    txn.increment_command();
    set_relchecks(&engine, db, txn, table.oid)?;
    txn.increment_command();
    taken.push(name.clone());
    Ok(name)
}

/// The name of a new CHECK constraint: the one written (42710 if the table
/// or this command has it already), else `<table>_<column>_check` when it
/// reads one column and `<table>_check` otherwise, numbered past names in
/// use (PostgreSQL's ChooseConstraintName).
fn check_name(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    c: &Constraint,
    cooked: &CookedCheck,
    taken: &[String],
) -> Result<String> {
    if !c.conname.is_empty() {
        if taken.contains(&c.conname) {
            return Err(SqlError::new(
                "42710",
                format!("check constraint \"{}\" already exists", c.conname),
            ));
        }
        if find_constraint(cx, table, &c.conname)?.is_some() {
            return Err(already_exists(&c.conname, table));
        }
        return Ok(c.conname.clone());
    }
    let column = match cooked.columns[..] {
        [attnum] => table.columns[attnum as usize - 1].name.clone(),
        _ => String::new(),
    };
    let engine = cx.engine().clone();
    let db = cx.database();
    super::choose_name(&table.name, &column, "check", |name| {
        Ok(taken.iter().any(|t| t == name)
            || name_taken_in_namespace(&engine, db, cx.txn()?, table.namespace, name)?)
    })
}

fn already_exists(name: &str, table: &RelationDesc) -> SqlError {
    SqlError::new(
        "42710",
        format!("constraint \"{name}\" for relation \"{}\" already exists", table.name),
    )
}

/// prove_check -- 23514 unless every row of `table` passes check `name`.
fn prove_check(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    name: &str,
    check: &Expr,
) -> Result<()> {
    let (desc, types, heap) = (table.tuple_desc(), table.types(), table.heap());
    let mut parts = cx.parts()?;
    let ctx = VisibilityContext::for_transaction(parts.txn, parts.engine.txns());
    let mut host = ExecHost::new(&mut parts.env, Vec::new(), ctx.clone());
    let mut scan = HeapScan::begin(parts.engine, &heap, ctx)?;
    while let Some((_, tuple)) = scan.next_tuple()? {
        host.check_interrupts()?;
        let row = deform_row(&desc, &types, tuple)?;
        if matches!(eval(check, &row, &mut host)?, Datum::Bool(false)) {
            return Err(SqlError::new(
                "23514",
                format!(
                    "check constraint \"{name}\" of relation \"{}\" is violated by some row",
                    table.name
                ),
            ));
        }
    }
    Ok(())
}

/// The `pg_constraint` row of `table`'s constraint `name`, with its address.
fn find_constraint(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    name: &str,
) -> Result<Option<(ItemPointer, Vec<Datum>)>> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let rows = constraint::constraints_of(&engine, db, cx.txn()?, table.oid)?;
    Ok(rows.into_iter().find(|(_, r)| r[CON_NAME].as_str() == Some(name)))
}

fn missing_constraint(name: &str, table: &RelationDesc) -> SqlError {
    SqlError::new(
        "42704",
        format!("constraint \"{name}\" of relation \"{}\" does not exist", table.name),
    )
}

/// validate_constraint -- ALTER TABLE ... VALIDATE CONSTRAINT name: proves
/// a NOT VALID check against the rows and marks it valid.
pub(crate) fn validate_constraint(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    name: &str,
) -> Result<()> {
    let Some((tid, row)) = find_constraint(cx, table, name)? else {
        return Err(missing_constraint(name, table));
    };
    let kind = row[CON_TYPE].as_str().unwrap_or_default().to_string();
    if kind != "c" && kind != "f" {
        return Err(SqlError::new(
            "42809",
            format!(
                "constraint \"{name}\" of relation \"{}\" is not a foreign key or check constraint",
                table.name
            ),
        ));
    }
    if matches!(row[CON_VALIDATED], Datum::Bool(true)) {
        return Ok(());
    }
    if kind == "f" {
        super::foreign_key::validate_foreign_key(cx, table, name)?;
        return mark_validated(cx, tid, row);
    }
    let check = table
        .checks
        .iter()
        .find(|c| c.name == name)
        .ok_or_else(|| SqlError::internal(format!("check constraint \"{name}\" not loaded")))?;
    let expr = crate::optimizer::constraint::stored_check(table, &check.expr, &cx.type_catalog()?)?;
    prove_check(cx, table, name, &expr)?;
    mark_validated(cx, tid, row)
}

/// Stores `convalidated = true` in a constraint's row.
fn mark_validated(
    cx: &mut dyn BackendContext,
    tid: ItemPointer,
    mut row: Vec<Datum>,
) -> Result<()> {
    row[CON_VALIDATED] = Datum::Bool(true);
    let engine = cx.engine().clone();
    let db = cx.database();
    replace(&engine, db, &PG_CONSTRAINT, cx.txn()?, tid, &row)?;
    Ok(())
}

/// drop_constraint -- ALTER TABLE ... DROP CONSTRAINT [IF EXISTS] name.
pub(crate) fn drop_constraint(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    name: &str,
    missing_ok: bool,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let Some((tid, row)) = find_constraint(cx, table, name)? else {
        if missing_ok {
            let message = format!(
                "constraint \"{name}\" of relation \"{}\" does not exist, skipping",
                table.name
            );
            return sink.notice(&SqlError::new("00000", message));
        }
        return Err(missing_constraint(name, table));
    };
    match row[CON_TYPE].as_str() {
        Some("p" | "u") => {
            let index = oid_of(&row[CON_INDID]);
            lock_relation(cx, index, sluice_txn::lmgr::LockMode::AccessExclusive)?;
            crate::commands::indexcmds::remove_index(cx, index)?;
        }
        Some("f") => remove_constraint_row(cx, tid, oid_of(&row[0]))?,
        _ => remove_check(cx, table, tid, oid_of(&row[0]))?,
    }
    cx.txn()?.increment_command();
    Ok(())
}

/// remove_check_by_oid -- drops CHECK constraint `oid` of `table` (its
/// column was dropped).
pub(crate) fn remove_check_by_oid(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    oid: Oid,
) -> Result<()> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let rows = constraint::constraints_of(&engine, db, cx.txn()?, table.oid)?;
    match rows.into_iter().find(|(_, r)| oid_of(&r[0]) == oid) {
        Some((tid, _)) => remove_check(cx, table, tid, oid),
        None => Ok(()),
    }
}

/// remove_constraint_row -- deletes constraint `oid`'s row (at `tid`), its
/// comment and its dependencies: all a foreign key is (both tables'
/// descriptors stop loading it), and all of a CHECK but its count.
pub(crate) fn remove_constraint_row(
    cx: &mut dyn BackendContext,
    tid: ItemPointer,
    oid: Oid,
) -> Result<()> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let txn = cx.txn()?;
    delete(&engine, db, &PG_CONSTRAINT, txn, tid)?;
    crate::catalog::comment::remove_comments(&engine, db, txn, PG_CONSTRAINT.oid, oid, None)?;
    depend::remove(&engine, db, txn, |d| {
        d.object.classid == CONSTRAINT_CLASS && d.object.objid == oid
    })?;
    txn.increment_command();
    Ok(())
}

/// Deletes a CHECK constraint's row and dependencies and recounts the table's checks.
fn remove_check(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    tid: ItemPointer,
    oid: Oid,
) -> Result<()> {
    remove_constraint_row(cx, tid, oid)?;
    let engine = cx.engine().clone();
    let db = cx.database();
    set_relchecks(&engine, db, cx.txn()?, table.oid)
}

/// rename_constraint -- ALTER TABLE ... RENAME CONSTRAINT old TO new (an
/// index-backed constraint's index is renamed with it, as in PostgreSQL).
pub(crate) fn rename_constraint(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    old: &str,
    new: &str,
) -> Result<()> {
    let Some((tid, mut row)) = find_constraint(cx, table, old)? else {
        return Err(SqlError::new(
            "42704",
            format!("constraint \"{old}\" for table \"{}\" does not exist", table.name),
        ));
    };
    if find_constraint(cx, table, new)?.is_some() {
        return Err(already_exists(new, table));
    }
    let index = oid_of(&row[CON_INDID]);
    row[CON_NAME] = Datum::Text(new.into());
    let engine = cx.engine().clone();
    let db = cx.database();
    replace(&engine, db, &PG_CONSTRAINT, cx.txn()?, tid, &row)?;
    if index != 0 {
        super::rename::rename_relation_row(cx, index, new)?;
    }
    Ok(())
}
