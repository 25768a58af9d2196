//! One backend per connection: the protocol layer's `Session` trait over the
//! SQL layer's [`sluice_sql::Session`] (PostgreSQL's `tcop/postgres.c`
//! exec_simple_query / exec_parse_message / exec_bind_message /
//! exec_execute_message).
//!
//! The extended protocol keeps prepared statements (a parsed statement and its
//! parameter types) in the SQL session, which SQL's PREPARE and EXECUTE
//! share (`sluice_sql::commands::prepare`), and portals (a statement with
//! bound values) here. A portal runs
//! to completion on its first Execute and keeps the rows it produced; Execute
//! with a row limit hands them out in batches (PortalSuspended between). The
//! implicit transaction of extended-protocol messages ends at Sync.

use crate::sink::{field_descriptions, formats_for, pg_error, sql_error, WireSink};
use sluice_common::Oid;
use sluice_server::{
    check_bind_parameter_count, BindRequest, FieldDescription, Format, Output, PgError, PortalRun,
    Portals, SessionContext, Severity, StartupInfo, StatementDescription, TransactionStatus,
};
use sluice_sql::parser::{parse, RawStatement};
use sluice_sql::sink::{CopyFormat, CopySource, CopyTarget};
use sluice_sql::{Instance, OutputColumn, QuerySink, Session, SqlError, TxnStatus};
use sluice_types::{binary, io, Context, Datum, SqlType};
use std::num::NonZeroU32;
use std::sync::Arc;

/// The engine the protocol layer serves.
pub struct SluiceEngine {
    instance: Arc<Instance>,
}

impl SluiceEngine {
    /// An engine over a started instance.
    pub fn new(instance: Arc<Instance>) -> SluiceEngine {
        SluiceEngine { instance }
    }
}

/// A bound portal.
struct Portal {
    statement: Option<RawStatement>,
    /// The prepared statement's result columns.
    columns: Option<Vec<OutputColumn>>,
    params: Vec<Datum>,
    formats: Vec<Format>,
    /// Results of the first Execute, handed out in batches.
    buffered: Option<Buffered>,
}

/// A portal's produced results.
struct Buffered {
    rows: std::collections::VecDeque<Vec<Datum>>,
    tag: String,
    /// The settings the rows print in, as the statement saw them.
    context: Context,
}

/// One connection's backend.
pub struct Backend {
    session: Session,
    portals: Portals<Portal>,
}

/// The protocol report for a SQL error: FATAL for those that end the session.
fn error(e: SqlError) -> PgError {
    let severity = if e.ends_session() { Severity::Fatal } else { Severity::Error };
    pg_error(&e, severity)
}

/// Delivers `pg_cancel_backend` / `pg_terminate_backend` to a session through
/// its protocol-level interrupt flags.
struct InterruptSignal(sluice_server::Interrupts);

impl sluice_sql::BackendSignal for InterruptSignal {
    fn cancel(&self) {
        self.0.request_cancel();
    }

    fn terminate(&self) {
        self.0.request_terminate();
    }
}

impl sluice_server::Engine for SluiceEngine {
    type Session = Backend;

    fn connect(&self, startup: &StartupInfo, ctx: SessionContext) -> Result<Backend, PgError> {
        let interrupts = ctx.interrupts.clone();
        let check: sluice_sql::InterruptCheck =
            Arc::new(move || interrupts.check().map_err(|e| sql_error(&e)));
        let mut session = Session::connect(
            self.instance.clone(),
            &startup.database,
            &startup.user,
            ctx.pid as u32,
            check,
            Arc::new(InterruptSignal(ctx.interrupts.clone())),
        )
        .map_err(|e| pg_error(&e, Severity::Fatal))?;
        for (name, value) in &startup.settings {
            session
                .settings()
                .set_option(name, Some(value), sluice_guc::Source::Client, sluice_guc::Action::Set)
                .map_err(|e| pg_error(&SqlError::from(e), Severity::Fatal))?;
        }
        Ok(Backend { session, portals: Portals::new() })
    }
}

impl Backend {
    fn fail(&mut self, e: SqlError) -> PgError {
        error(self.session.fail(e))
    }

    /// Decodes Bind's parameter values to the statement's parameter types,
    /// text ones read in the session's settings (`DateStyle`, `TimeZone`).
    fn decode_params(
        types: &[Option<SqlType>],
        bind: &BindRequest,
        context: &Context,
    ) -> Result<Vec<Datum>, SqlError> {
        bind.params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let ty = types.get(i).copied().flatten().unwrap_or(SqlType::Text);
                match (&p.value, p.format) {
                    (None, _) => Ok(Datum::Null),
                    (Some(bytes), Format::Binary) => Ok(binary::recv(ty, bytes, -1)?),
                    (Some(bytes), Format::Text) => {
                        let text = std::str::from_utf8(bytes).map_err(|_| {
                            SqlError::new("22021", "invalid byte sequence for encoding \"UTF8\"")
                        })?;
                        Ok(io::parse(ty, text, -1, context)?)
                    }
                }
            })
            .collect()
    }

    fn run_portal(&mut self, name: &str, out: &mut dyn Output) -> Result<(), PgError> {
        let portal = self.portals.get(name)?;
        let (statement, params) = (portal.statement.clone(), portal.params.clone());
        let expected = portal.columns.clone();
        let mut collector = Collector {
            rows: Vec::new(),
            tag: String::new(),
            notices: Vec::new(),
            out,
            expected,
            context: Context::default(),
        };
        if let Some(statement) = statement {
            self.session.report_active(&statement.text);
            let result = self.session.run(&statement, &params, &mut collector);
            for notice in collector.notices.drain(..) {
                collector.out.notice(&pg_error(&notice, Severity::Notice))?;
            }
            result.map_err(|e| self.fail(e))?;
        }
        let portal = self.portals.get_mut(name)?;
        let (rows, tag, context) = (collector.rows.into(), collector.tag, collector.context);
        portal.buffered = Some(Buffered { rows, tag, context });
        Ok(())
    }
}

/// Collects a statement's results for a portal; COPY goes to the client at
/// once through `out`.
struct Collector<'o> {
    rows: Vec<Vec<Datum>>,
    tag: String,
    notices: Vec<SqlError>,
    out: &'o mut dyn Output,
    /// The columns Describe announced (from Parse).
    expected: Option<Vec<OutputColumn>>,
    /// The settings the statement's values print in.
    context: Context,
}

impl QuerySink for Collector<'_> {
    fn columns(&mut self, columns: &[OutputColumn]) -> sluice_sql::Result<()> {
        // DDL since Parse changed the result (SELECT * after ADD COLUMN):
        // the client was told other columns, so fail as PostgreSQL does.
        let types = |c: &[OutputColumn]| c.iter().map(|c| c.ty).collect::<Vec<_>>();
        match &self.expected {
            Some(expected) if types(expected) != types(columns) => {
                Err(SqlError::new("0A000", "cached plan must not change result type"))
            }
            _ => Ok(()),
        }
    }

    fn row(&mut self, values: &[Datum]) -> sluice_sql::Result<()> {
        self.rows.push(values.to_vec());
        Ok(())
    }

    fn complete(&mut self, tag: &str) -> sluice_sql::Result<()> {
        self.tag = tag.to_string();
        Ok(())
    }

    fn notice(&mut self, notice: &SqlError) -> sluice_sql::Result<()> {
        self.notices.push(notice.clone());
        Ok(())
    }

    fn output_context(&mut self, context: &Context) {
        self.context = context.clone();
    }

    fn copy_in(
        &mut self,
        format: CopyFormat,
        columns: usize,
    ) -> sluice_sql::Result<Box<dyn CopySource + '_>> {
        crate::sink::copy_in(self.out, format, columns)
    }

    fn copy_out(
        &mut self,
        format: CopyFormat,
        columns: usize,
    ) -> sluice_sql::Result<Box<dyn CopyTarget + '_>> {
        crate::sink::copy_out(self.out, format, columns)
    }
}

impl sluice_server::Session for Backend {
    fn report_parameters(&mut self) -> Vec<(String, String)> {
        self.session.settings().take_reports()
    }

    fn transaction_status(&self) -> TransactionStatus {
        match self.session.status() {
            TxnStatus::Idle => TransactionStatus::Idle,
            TxnStatus::InBlock => TransactionStatus::InBlock,
            TxnStatus::Failed => TransactionStatus::Failed,
        }
    }

    fn simple_query(&mut self, sql: &str, out: &mut dyn Output) -> Result<(), PgError> {
        let mut sink = WireSink::simple(out);
        match self.session.simple_query(sql, &mut sink) {
            Ok(0) => out.empty_query(),
            Ok(_) => Ok(()),
            Err(e) => Err(error(e)),
        }
    }

    fn parse(&mut self, name: &str, sql: &str, param_types: &[Oid]) -> Result<(), PgError> {
        let mut statements = parse(sql).map_err(|e| self.fail(e))?;
        if statements.len() > 1 {
            return Err(self.fail(SqlError::syntax(
                "cannot insert multiple commands into a prepared statement",
            )));
        }
        let mut types = Vec::new();
        for &oid in param_types {
            match oid {
                0 => types.push(None),
                oid => match SqlType::from_oid(oid) {
                    Some(t) => types.push(Some(t)),
                    None => {
                        return Err(self.fail(SqlError::new(
                            "42704",
                            format!("type with OID {oid} does not exist"),
                        )))
                    }
                },
            }
        }
        // Parameter types are inferred now so Describe and Bind agree; the
        // result columns planned now answer Describe, and an execution
        // whose columns differ fails as PostgreSQL's cached plans do.
        let statement = statements.pop();
        self.session.prepare(name, statement, types).map_err(|e| self.fail(e))
    }

    fn bind(&mut self, bind: BindRequest) -> Result<(), PgError> {
        let prepared = self.session.prepared(&bind.statement).map_err(error)?;
        check_bind_parameter_count(&bind.statement, bind.params.len(), prepared.param_types.len())?;
        let (statement, types) = (prepared.statement.clone(), prepared.param_types.clone());
        let columns = prepared.columns.clone();
        let context = self.session.output_context();
        let params = Backend::decode_params(&types, &bind, &context).map_err(|e| self.fail(e))?;
        let formats = bind.result_formats.0.clone();
        let portal = Portal { statement, columns, params, formats, buffered: None };
        self.portals.insert(&bind.portal, portal)
    }

    fn describe_statement(&mut self, name: &str) -> Result<StatementDescription, PgError> {
        let prepared = self.session.prepared(name).map_err(error)?;
        let (types, columns) = (prepared.param_types.clone(), prepared.columns.clone());
        Ok(StatementDescription {
            param_types: types
                .iter()
                .map(|t| t.map_or(SqlType::Text.oid(), SqlType::oid))
                .collect(),
            fields: columns.map(|c| field_descriptions(&c, &[])),
        })
    }

    fn describe_portal(&mut self, name: &str) -> Result<Option<Vec<FieldDescription>>, PgError> {
        let portal = self.portals.get(name)?;
        let formats = &portal.formats;
        Ok(portal.columns.as_ref().map(|c| field_descriptions(c, &formats_for(formats, c.len()))))
    }

    fn execute(
        &mut self,
        name: &str,
        max_rows: Option<NonZeroU32>,
        out: &mut dyn Output,
    ) -> Result<PortalRun, PgError> {
        if self.portals.get(name)?.buffered.is_none() {
            self.run_portal(name, out)?;
        }
        let portal = self.portals.get_mut(name)?;
        if portal.statement.is_none() {
            out.empty_query()?;
            return Ok(PortalRun::Completed);
        }
        let formats = portal.formats.clone();
        let buffered = portal.buffered.as_mut().expect("ran above");
        let limit = max_rows.map_or(usize::MAX, |n| n.get() as usize);
        let mut sink = WireSink::execute(out, formats);
        sink.output_context(&buffered.context);
        let width = buffered.rows.front().map_or(0, Vec::len);
        sink.columns(&vec![OutputColumn::computed("", SqlType::Text, -1); width]).map_err(error)?;
        for _ in 0..limit {
            let Some(row) = buffered.rows.pop_front() else { break };
            sink.row(&row).map_err(error)?;
        }
        if !buffered.rows.is_empty() {
            return Ok(PortalRun::Suspended);
        }
        let tag = buffered.tag.clone();
        sink.complete(&tag).map_err(error)?;
        Ok(PortalRun::Completed)
    }

    fn close_statement(&mut self, name: &str) -> Result<(), PgError> {
        self.session.close_prepared(name);
        Ok(())
    }

    fn close_portal(&mut self, name: &str) -> Result<(), PgError> {
        self.portals.remove(name);
        Ok(())
    }

    fn idle_timeout(&mut self) -> Option<(std::time::Duration, PgError)> {
        self.session.idle_timeout().map(|(limit, e)| (limit, error(e)))
    }

    fn sync(&mut self) -> Result<(), PgError> {
        let result = self.session.end_implicit(true).map_err(error);
        self.session.report_idle();
        if !matches!(self.session.status(), TxnStatus::InBlock | TxnStatus::Failed) {
            self.portals.clear();
        }
        result
    }
}
