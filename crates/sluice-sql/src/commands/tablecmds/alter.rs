//! ALTER TABLE (PostgreSQL's AlterTable and its ATExec* subcommands in
//! `tablecmds.c`).
//!
//! One statement may carry several subcommands. The table is locked once,
//! up front, in the strongest mode any of them needs — PostgreSQL's
//! AlterTableGetLockLevel: most need AccessExclusive, but validating a
//! constraint, changing storage parameters or the clustering index take
//! ShareUpdateExclusive, so reads and writes go on meanwhile. Subcommands
//! then run in order, each seeing the catalogs as the previous left them
//! (the command counter moves between them, and the table's descriptor is
//! read again), all inside the statement's transaction: one failing undoes
//! them all.
//!
//! Column-level subcommands live in `columns.rs`, constraint ones in
//! `constraints.rs`, storage parameters in `reloptions.rs`, clustering in
//! `cluster.rs`.

use super::constraints::{add_check, drop_constraint, is_check, validate_constraint};
use super::reloptions::alter_reloptions;
use super::{cluster, columns, constraint_index, describe, RelationDesc};
use crate::catalog::namespace::missing_relation;
use crate::catalog::relation::oid_of;
use crate::catalog::replace;
use crate::catalog::schema::PG_CLASS;
use crate::commands::indexcmds::define_index;
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::sink::QuerySink;
use pg_query::protobuf::{AlterTableCmd, AlterTableStmt, AlterTableType, ConstrType, Node};
use pg_query::NodeEnum;
use sluice_common::Oid;
use sluice_txn::lmgr::LockMode;
use sluice_types::Datum;

/// ALTER TABLE [IF EXISTS] name subcommand [, ...].
pub fn alter_table(
    cx: &mut dyn BackendContext,
    stmt: &AlterTableStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let rv =
        stmt.relation.as_ref().ok_or_else(|| SqlError::internal("ALTER TABLE without table"))?;
    let cmds: Vec<&AlterTableCmd> = stmt
        .cmds
        .iter()
        .filter_map(|c| match c.node.as_ref() {
            Some(NodeEnum::AlterTableCmd(cmd)) => Some(&**cmd),
            _ => None,
        })
        .collect();
    let mode = cmds.iter().map(|c| lock_level(c)).max().unwrap_or(LockMode::AccessExclusive);
    let Some(found) = super::lock_for_ddl(cx, rv, mode)? else {
        if stmt.missing_ok {
            let message = format!("relation \"{}\" does not exist, skipping", rv.relname);
            sink.notice(&SqlError::new("00000", message))?;
            return sink.complete("ALTER TABLE");
        }
        return Err(missing_relation(&rv.relname));
    };
    let mut checks_named = Vec::new();
    for cmd in cmds {
        let table = describe(cx, found.oid)?;
        run_subcommand(cx, &table, cmd, &mut checks_named, sink)?;
        cx.txn()?.increment_command();
    }
    super::touch_class_row(cx, found.oid)?;
    sink.complete(command_tag(stmt))
}

/// ALTER TABLE, ALTER INDEX, ALTER SEQUENCE, ... as the statement was written.
fn command_tag(stmt: &AlterTableStmt) -> &'static str {
    use pg_query::protobuf::ObjectType;
    match ObjectType::try_from(stmt.objtype) {
        Ok(ObjectType::ObjectIndex) => "ALTER INDEX",
        Ok(ObjectType::ObjectSequence) => "ALTER SEQUENCE",
        Ok(ObjectType::ObjectView) => "ALTER VIEW",
        Ok(ObjectType::ObjectMatview) => "ALTER MATERIALIZED VIEW",
        _ => "ALTER TABLE",
    }
}

/// OWNER TO role: the relation's `relowner`, and its indexes' and owned
/// sequences' with it (PostgreSQL's ATExecChangeOwner).
fn change_owner(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    cmd: &AlterTableCmd,
) -> Result<()> {
    use pg_query::protobuf::RoleSpecType;
    let spec =
        cmd.newowner.as_ref().ok_or_else(|| SqlError::internal("OWNER TO without a role"))?;
    let name = match RoleSpecType::try_from(spec.roletype) {
        Ok(RoleSpecType::RolespecCstring) => spec.rolename.clone(),
        Ok(RoleSpecType::RolespecPublic) => "public".to_string(),
        _ => cx.user().to_string(),
    };
    let engine = cx.engine().clone();
    let db = cx.database();
    let owner = crate::catalog::authid::role_oid(&engine, cx.txn()?, &name)?;
    let ctx = sluice_access::heap::visibility::VisibilityContext::for_transaction(
        cx.txn()?,
        engine.txns(),
    );
    let mut members: Vec<Oid> = crate::catalog::index::indexes_of(&engine, db, &ctx, table.oid)?
        .iter()
        .map(|i| i.oid)
        .collect();
    members
        .extend(crate::commands::sequence::owned_sequences(cx, table.oid)?.iter().map(|s| s.oid));
    members.push(table.oid);
    let txn = cx.txn()?;
    for (tid, mut row) in
        crate::catalog::scan(&engine, db, &PG_CLASS, txn, |r| members.contains(&oid_of(&r[0])))?
    {
        if row[4] != Datum::Oid(owner) {
            row[4] = Datum::Oid(owner);
            replace(&engine, db, &PG_CLASS, txn, tid, &row)?;
        }
    }
    Ok(())
}

/// The lock a subcommand needs (PostgreSQL's AlterTableGetLockLevel).
fn lock_level(cmd: &AlterTableCmd) -> LockMode {
    use AlterTableType::*;
    match AlterTableType::try_from(cmd.subtype) {
        Ok(AtValidateConstraint | AtClusterOn | AtDropCluster | AtSetStatistics) => {
            LockMode::ShareUpdateExclusive
        }
        Ok(AtSetOptions | AtResetOptions) => LockMode::ShareUpdateExclusive,
        // Every storage parameter sluice accepts is one PostgreSQL changes
        // under ShareUpdateExclusive (fillfactor, autovacuum_*, ...).
        Ok(AtSetRelOptions | AtResetRelOptions) => LockMode::ShareUpdateExclusive,
        Ok(AtAddConstraint) if constraint_type(cmd) == Some(ConstrType::ConstrForeign) => {
            LockMode::ShareRowExclusive
        }
        Ok(AtEnableTrig | AtEnableAlwaysTrig | AtEnableReplicaTrig | AtDisableTrig)
        | Ok(AtEnableTrigAll | AtDisableTrigAll | AtEnableTrigUser | AtDisableTrigUser) => {
            LockMode::ShareRowExclusive
        }
        _ => LockMode::AccessExclusive,
    }
}

/// The kind of constraint an ADD CONSTRAINT subcommand adds.
fn constraint_type(cmd: &AlterTableCmd) -> Option<ConstrType> {
    match cmd.def.as_deref()?.node.as_ref()? {
        NodeEnum::Constraint(c) => ConstrType::try_from(c.contype).ok(),
        _ => None,
    }
}

/// run_subcommand -- one subcommand against `table` as it stands.
fn run_subcommand(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    cmd: &AlterTableCmd,
    checks_named: &mut Vec<String>,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    use AlterTableType::*;
    let def = cmd.def.as_deref();
    match AlterTableType::try_from(cmd.subtype) {
        Ok(t @ (AtSetRelOptions | AtResetRelOptions)) => {
            let def = def.ok_or_else(|| SqlError::internal("SET without an option list"))?;
            alter_reloptions(cx, table, def, t == AtResetRelOptions)
        }
        Ok(AtClusterOn) => cluster::cluster_on(cx, table, &cmd.name),
        Ok(AtDropCluster) => cluster::mark_index_clustered(cx, table.oid, None),
        Ok(AtAddConstraint) => add_constraint(cx, table, def, checks_named, sink),
        Ok(AtValidateConstraint) => validate_constraint(cx, table, &cmd.name),
        Ok(AtDropConstraint) => drop_constraint(cx, table, &cmd.name, cmd.missing_ok, sink),
        Ok(AtColumnDefault) => columns::set_default(cx, table, &cmd.name, def),
        Ok(AtSetNotNull) => columns::set_not_null(cx, table, &cmd.name),
        Ok(AtDropNotNull) => columns::drop_not_null(cx, table, &cmd.name),
        Ok(AtAddColumn) => add_column(cx, table, cmd, checks_named, sink),
        Ok(AtDropColumn) => {
            let cascade = cmd.behavior == pg_query::protobuf::DropBehavior::DropCascade as i32;
            columns::drop_column(cx, table, &cmd.name, cmd.missing_ok, cascade, sink)
        }
        Ok(AtChangeOwner) => change_owner(cx, table, cmd),
        Ok(AtAlterColumnType) => super::alter_type::alter_column_type(cx, table, cmd),
        Ok(AtAddIdentity) => columns::add_identity(cx, table, &cmd.name, def),
        Ok(AtDropIdentity) => columns::drop_identity(cx, table, &cmd.name, cmd.missing_ok, sink),
        _ => Err(SqlError::unsupported("this ALTER TABLE form is not supported yet")),
    }
}

/// ADD [COLUMN] [IF NOT EXISTS] definition, then the constraints written in it.
fn add_column(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    cmd: &AlterTableCmd,
    checks_named: &mut Vec<String>,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let Some(NodeEnum::ColumnDef(def)) = cmd.def.as_deref().and_then(|d| d.node.as_ref()) else {
        return Err(SqlError::internal("ADD COLUMN without a column"));
    };
    let Some(column) = columns::add_column(cx, table, def, cmd.missing_ok, sink)? else {
        return Ok(());
    };
    let table = describe(cx, table.oid)?;
    for check in &column.checks {
        add_check(cx, &table, check, true, checks_named)?;
    }
    for spec in column.constraints {
        define_index(cx, &table, spec, sink)?;
    }
    for key in &column.foreign_keys {
        let table = describe(cx, table.oid)?;
        super::foreign_key::add_foreign_key(cx, &table, key, true, checks_named)?;
    }
    Ok(())
}

/// ADD [CONSTRAINT name] { PRIMARY KEY | UNIQUE | CHECK } ...
fn add_constraint(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    def: Option<&Node>,
    checks_named: &mut Vec<String>,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let Some(NodeEnum::Constraint(c)) = def.and_then(|d| d.node.as_ref()) else {
        return Err(SqlError::internal("ADD CONSTRAINT without a constraint"));
    };
    if is_check(c) {
        return add_check(cx, table, c, true, checks_named).map(|_| ());
    }
    if super::elements::is_foreign_key(c) {
        return super::foreign_key::add_foreign_key(cx, table, c, true, checks_named).map(|_| ());
    }
    define_index(cx, table, constraint_index(c)?, sink)?;
    Ok(())
}
