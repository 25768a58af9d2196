//! The extended query protocol's messages (PostgreSQL's `exec_parse_message`,
//! `exec_bind_message`, `exec_describe_*_message`, `exec_execute_message` and the
//! Close case of `PostgresMain`).
//!
//! Each function hands one decoded message to the [`Session`] and, if the engine
//! accepts it, sends the acknowledgement PostgreSQL sends (ParseComplete,
//! BindComplete, ParameterDescription + RowDescription/NoData, PortalSuspended,
//! CloseComplete). Nothing is flushed here: in the extended protocol output waits
//! for Sync or Flush, which is what lets a client pipeline many messages.
//!
//! Errors are returned untouched; the skip-until-Sync recovery that follows an
//! error is the main loop's business (`tcop.rs`).

use std::num::NonZeroU32;

use pgwire::messages::data::{NoData, ParameterDescription};
use pgwire::messages::extendedquery::{
    BindComplete, CloseComplete, ParseComplete, PortalSuspended,
};
use sluice_common::Oid;

use crate::dest::{row_description, DestKind, RemoteDest};
use crate::engine::{BindRequest, PortalRun, Session};
use crate::error::PgError;
use crate::frontend::Target;
use crate::output::FieldDescription;
use crate::pqcomm::PqConnection;

/// exec_parse -- Parse: prepare a statement, answer ParseComplete.
pub(crate) fn exec_parse<S: Session>(
    conn: &mut PqConnection,
    session: &mut S,
    statement: &str,
    sql: &str,
    param_types: &[Oid],
) -> Result<(), PgError> {
    session.parse(statement, sql, param_types)?;
    conn.send(&ParseComplete::new())
}

/// exec_bind -- Bind: create a portal, answer BindComplete.
pub(crate) fn exec_bind<S: Session>(
    conn: &mut PqConnection,
    session: &mut S,
    bind: BindRequest,
) -> Result<(), PgError> {
    session.bind(bind)?;
    conn.send(&BindComplete::new())
}

/// exec_describe -- Describe: a statement's parameter types and columns, or a
/// portal's columns; NoData for statements that return no rows.
pub(crate) fn exec_describe<S: Session>(
    conn: &mut PqConnection,
    session: &mut S,
    target: Target,
    name: &str,
) -> Result<(), PgError> {
    let fields = match target {
        Target::Statement => {
            let description = session.describe_statement(name)?;
            conn.send(&ParameterDescription::new(description.param_types))?;
            description.fields
        }
        Target::Portal => session.describe_portal(name)?,
    };
    send_fields(conn, fields.as_deref())
}

/// RowDescription for `fields`, or NoData.
fn send_fields(
    conn: &mut PqConnection,
    fields: Option<&[FieldDescription]>,
) -> Result<(), PgError> {
    match fields {
        Some(fields) => conn.send(&row_description(fields)),
        None => conn.send(&NoData::new()),
    }
}

/// exec_execute -- Execute: run a portal into a DestRemoteExecute destination;
/// PortalSuspended if it stopped at the row limit.
pub(crate) fn exec_execute<S: Session>(
    conn: &mut PqConnection,
    session: &mut S,
    portal: &str,
    max_rows: Option<NonZeroU32>,
) -> Result<(), PgError> {
    let mut dest = RemoteDest::new(conn, DestKind::RemoteExecute);
    match session.execute(portal, max_rows, &mut dest)? {
        PortalRun::Completed => Ok(()),
        PortalRun::Suspended => conn.send(&PortalSuspended::new()),
    }
}

/// exec_close -- Close: drop a statement or portal, answer CloseComplete.
pub(crate) fn exec_close<S: Session>(
    conn: &mut PqConnection,
    session: &mut S,
    target: Target,
    name: &str,
) -> Result<(), PgError> {
    match target {
        Target::Statement => session.close_statement(name)?,
        Target::Portal => session.close_portal(name)?,
    }
    conn.send(&CloseComplete::new())
}
