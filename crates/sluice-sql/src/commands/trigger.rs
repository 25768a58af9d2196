//! SET CONSTRAINTS (PostgreSQL's AfterTriggerSetState in
//! `commands/trigger.c`): which deferrable constraints wait for commit. The
//! event queue it changes is the transaction's (`xact/after_trigger.rs`).

use crate::catalog::constraint::{CON_DEFERRABLE, CON_NAME, CON_NAMESPACE};
use crate::catalog::relation::oid_of;
use crate::catalog::scan;
use crate::catalog::schema::PG_CONSTRAINT;
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::executor::ri_triggers;
use crate::sink::QuerySink;
use pg_query::protobuf::ConstraintsSetStmt;
use pg_query::NodeEnum;
use sluice_common::Oid;
use sluice_types::Datum;

/// SET CONSTRAINTS { ALL | name [, ...] } { DEFERRED | IMMEDIATE }
/// (AfterTriggerSetState): outside a transaction block it warns and has no
/// lasting effect, as in PostgreSQL. Deferred events that become immediate
/// run now.
pub fn set_constraints(
    cx: &mut dyn BackendContext,
    stmt: &ConstraintsSetStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    if !cx.is_in_transaction_block() {
        sink.warning(&SqlError::new(
            "25P01",
            "SET CONSTRAINTS can only be used in transaction blocks",
        ))?;
    }
    let named = match stmt.constraints.is_empty() {
        true => None,
        false => Some(named_constraints(cx, stmt)?),
    };
    let now = cx.xact()?.after_triggers.set_constraints(named.as_deref(), stmt.deferred);
    if !now.is_empty() {
        ri_triggers::fire(&mut cx.parts()?, now)?;
    }
    sink.complete("SET CONSTRAINTS")
}

/// The constraints SET CONSTRAINTS names: every one of that name in the
/// schema given or, unqualified, in the first schema of the search path
/// that has one (42704 if none, 42809 if one cannot be deferred).
fn named_constraints(cx: &mut dyn BackendContext, stmt: &ConstraintsSetStmt) -> Result<Vec<Oid>> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let mut oids = Vec::new();
    for node in &stmt.constraints {
        let Some(NodeEnum::RangeVar(rv)) = node.node.as_ref() else { continue };
        let schemas = match rv.schemaname.as_str() {
            "" => cx.search_path()?.schemas().to_vec(),
            schema => vec![cx.schema_oid(schema)?],
        };
        let rows = scan(&engine, db, &PG_CONSTRAINT, cx.txn()?, |r| {
            r[CON_NAME].as_str() == Some(rv.relname.as_str())
        })?;
        let in_first = schemas.iter().find_map(|&ns| {
            let here: Vec<_> =
                rows.iter().filter(|(_, r)| oid_of(&r[CON_NAMESPACE]) == ns).collect();
            (!here.is_empty()).then_some(here)
        });
        let Some(found) = in_first else {
            return Err(SqlError::new(
                "42704",
                format!("constraint \"{}\" does not exist", rv.relname),
            ));
        };
        for (_, r) in found {
            let deferrable = matches!(r[CON_DEFERRABLE], Datum::Bool(true));
            if !deferrable {
                return Err(SqlError::new(
                    "42809",
                    format!("constraint \"{}\" is not deferrable", rv.relname),
                ));
            }
            oids.push(oid_of(&r[0]));
        }
    }
    Ok(oids)
}
