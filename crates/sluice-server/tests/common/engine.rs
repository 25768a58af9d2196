//! A toy engine behind the `Engine`/`Session` traits, for protocol tests.
//!
//! It understands a handful of one-line commands, enough to drive every path of
//! the protocol layer from real clients:
//!
//! | command | effect |
//! |---|---|
//! | `SELECT n` | column `n` (int4), rows 1..=n; honours Execute's row limit |
//! | `ECHO a $1 $2::int4 ...` | one row echoing literals and parameters (text/int4) |
//! | `ERROR <sqlstate> <message>` | fails with that SQLSTATE and message |
//! | `FATAL <sqlstate> <message>` | fails FATAL |
//! | `PANIC` | panics inside the engine |
//! | `NOTICE <message>` | sends a NOTICE |
//! | `SLEEP <seconds>` | sleeps, interruptible by cancel/terminate |
//! | `STREAM` | rows until the client or a cancel stops it; records how it ended |
//! | `SET <name> <value>` | reported as ParameterStatus at the next ReadyForQuery |
//! | `BEGIN` (`START TRANSACTION`) / `COMMIT` / `ROLLBACK` | transaction block states I, T, E |
//! | `COPY <t> FROM STDIN` / `COPY <t> TO STDOUT` | stores / returns text data |
//!
//! Statements in a simple query are separated by `;`. Prepared statements and
//! portals use the crate's name tables, as a real engine would.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use sluice_server::{
    check_bind_parameter_count, BindParam, BindRequest, CopyFormat, Engine, FieldDescription,
    Format, Output, PgError, PortalRun, Portals, PreparedStatements, SessionContext, SqlState,
    StartupInfo, StatementDescription, TransactionStatus,
};

/// Type OID of int4.
const INT4: u32 = 23;
/// Type OID of text.
const TEXT: u32 = 25;

/// State shared by all sessions, visible to tests.
#[derive(Default)]
pub struct Shared {
    /// Things that happened, in order ("session 123 ended", "stream stopped: 08006").
    pub events: Mutex<Vec<String>>,
    /// COPY tables: name to text data.
    tables: Mutex<HashMap<String, Vec<u8>>>,
}

impl Shared {
    /// Record an event.
    fn event(&self, e: String) {
        self.events.lock().push(e);
    }

    /// Whether an event equal to `e` has been recorded.
    pub fn has_event(&self, e: &str) -> bool {
        self.events.lock().iter().any(|x| x == e)
    }
}

/// The engine: makes sessions sharing one `Shared`.
pub struct TestEngine {
    /// Shared state.
    pub shared: Arc<Shared>,
}

impl Engine for TestEngine {
    type Session = TestSession;

    fn connect(&self, startup: &StartupInfo, ctx: SessionContext) -> Result<TestSession, PgError> {
        if startup.database == "nosuchdb" {
            return Err(PgError::fatal(
                SqlState::parse("3D000").unwrap(),
                format!("database \"{}\" does not exist", startup.database),
            ));
        }
        let reported = vec![
            ("server_version", "15.0 (sluice test engine)"),
            ("server_encoding", "UTF8"),
            ("client_encoding", startup.client_encoding().unwrap_or("UTF8")),
            ("DateStyle", "ISO, MDY"),
            ("IntervalStyle", "postgres"),
            ("TimeZone", "UTC"),
            ("integer_datetimes", "on"),
            ("standard_conforming_strings", "on"),
            ("application_name", startup.application_name().unwrap_or("")),
            ("is_superuser", "on"),
            ("session_authorization", &startup.user),
            ("default_transaction_read_only", "off"),
            ("in_hot_standby", "off"),
        ];
        self.shared.event(format!("session {} started", ctx.pid));
        Ok(TestSession {
            shared: Arc::clone(&self.shared),
            unreported: reported.into_iter().map(|(n, v)| (n.to_string(), v.to_string())).collect(),
            ctx,
            status: TransactionStatus::Idle,
            statements: PreparedStatements::new(),
            portals: Portals::new(),
        })
    }
}

/// One parsed command.
#[derive(Clone, Debug)]
enum Command {
    Select(u32),
    Echo(Vec<Arg>),
    Error(SqlState, String),
    Fatal(SqlState, String),
    Panic,
    Notice(String),
    Sleep(f64),
    Stream,
    Set(String, String),
    Begin,
    Commit,
    Rollback,
    CopyFrom(String),
    CopyTo(String),
}

/// An ECHO argument.
#[derive(Clone, Debug)]
enum Arg {
    Literal(String),
    /// Parameter number (1-based) and declared type.
    Param(usize, u32),
}

/// A prepared statement.
struct Prepared {
    command: Command,
    param_types: Vec<u32>,
}

/// A bound portal.
struct Portal {
    command: Command,
    param_types: Vec<u32>,
    params: Vec<BindParam>,
    formats: Vec<Format>,
    /// Rows of `SELECT n` already sent.
    position: u32,
}

/// A session of the toy engine.
pub struct TestSession {
    shared: Arc<Shared>,
    ctx: SessionContext,
    /// Settings not yet reported to the client.
    unreported: Vec<(String, String)>,
    status: TransactionStatus,
    statements: PreparedStatements<Prepared>,
    portals: Portals<Portal>,
}

/// What a command runs with.
struct Run<'a> {
    param_types: &'a [u32],
    params: &'a [BindParam],
    formats: Option<&'a [Format]>,
    max_rows: Option<NonZeroU32>,
    position: u32,
}

impl Run<'_> {
    /// A run with no parameters, text output, no row limit.
    fn simple() -> Run<'static> {
        Run { param_types: &[], params: &[], formats: None, max_rows: None, position: 0 }
    }
}

impl Drop for TestSession {
    fn drop(&mut self) {
        self.shared.event(format!("session {} ended", self.ctx.pid));
    }
}

impl sluice_server::Session for TestSession {
    fn report_parameters(&mut self) -> Vec<(String, String)> {
        std::mem::take(&mut self.unreported)
    }

    fn transaction_status(&self) -> TransactionStatus {
        self.status
    }

    fn simple_query(&mut self, sql: &str, out: &mut dyn Output) -> Result<(), PgError> {
        self.statements.remove("");
        let statements: Vec<&str> =
            sql.split(';').map(str::trim).filter(|s| !s.is_empty()).collect();
        if statements.is_empty() {
            return out.empty_query();
        }
        for text in statements {
            let result = parse_command(text).and_then(|c| self.run(&c, &mut Run::simple(), out));
            result.map_err(|e| self.failed(e))?;
        }
        Ok(())
    }

    fn parse(&mut self, statement: &str, sql: &str, param_types: &[u32]) -> Result<(), PgError> {
        let result =
            self.prepare(sql, param_types).and_then(|p| self.statements.insert(statement, p));
        result.map_err(|e| self.failed(e))
    }

    fn bind(&mut self, bind: BindRequest) -> Result<(), PgError> {
        let result = self.make_portal(bind);
        result.map_err(|e| self.failed(e))
    }

    fn describe_statement(&mut self, statement: &str) -> Result<StatementDescription, PgError> {
        let result = self.statements.get(statement).map(|p| StatementDescription {
            param_types: p.param_types.clone(),
            fields: fields(&p.command, &p.param_types, None),
        });
        result.map_err(|e| self.failed(e))
    }

    fn describe_portal(&mut self, portal: &str) -> Result<Option<Vec<FieldDescription>>, PgError> {
        let result =
            self.portals.get(portal).map(|p| fields(&p.command, &p.param_types, Some(&p.formats)));
        result.map_err(|e| self.failed(e))
    }

    fn execute(
        &mut self,
        portal: &str,
        max_rows: Option<NonZeroU32>,
        out: &mut dyn Output,
    ) -> Result<PortalRun, PgError> {
        let result = self.execute_portal(portal, max_rows, out);
        result.map_err(|e| self.failed(e))
    }

    fn close_statement(&mut self, statement: &str) -> Result<(), PgError> {
        self.statements.remove(statement);
        Ok(())
    }

    fn close_portal(&mut self, portal: &str) -> Result<(), PgError> {
        self.portals.remove(portal);
        Ok(())
    }

    fn sync(&mut self) -> Result<(), PgError> {
        if self.status == TransactionStatus::Idle {
            self.portals.clear();
        }
        Ok(())
    }
}

impl TestSession {
    /// Error recovery: an error inside a transaction block fails the block.
    fn failed(&mut self, e: PgError) -> PgError {
        if self.status == TransactionStatus::InBlock {
            self.status = TransactionStatus::Failed;
        }
        e
    }

    /// Parse for the extended protocol.
    fn prepare(&self, sql: &str, client_types: &[u32]) -> Result<Prepared, PgError> {
        let parts: Vec<&str> = sql.split(';').map(str::trim).filter(|s| !s.is_empty()).collect();
        if parts.len() > 1 {
            return Err(PgError::error(
                SqlState::parse("42601").unwrap(),
                "cannot insert multiple commands into a prepared statement",
            ));
        }
        let command = parse_command(parts.first().copied().unwrap_or("SELECT 0"))?;
        let mut param_types = declared_params(&command);
        for (i, t) in client_types.iter().enumerate() {
            if *t != 0 {
                if i >= param_types.len() {
                    param_types.resize(i + 1, TEXT);
                }
                param_types[i] = *t;
            }
        }
        Ok(Prepared { command, param_types })
    }

    /// Bind for the extended protocol.
    fn make_portal(&mut self, bind: BindRequest) -> Result<(), PgError> {
        let prepared = self.statements.get(&bind.statement)?;
        check_bind_parameter_count(&bind.statement, prepared.param_types.len(), bind.params.len())?;
        if self.status == TransactionStatus::Failed
            && !matches!(prepared.command, Command::Commit | Command::Rollback)
        {
            return Err(aborted());
        }
        let columns = fields(&prepared.command, &prepared.param_types, None).map_or(0, |f| f.len());
        let formats = bind.result_formats.for_columns(columns)?;
        let portal = Portal {
            command: prepared.command.clone(),
            param_types: prepared.param_types.clone(),
            params: bind.params,
            formats,
            position: 0,
        };
        self.portals.insert(&bind.portal, portal)
    }

    /// Execute for the extended protocol.
    fn execute_portal(
        &mut self,
        name: &str,
        max_rows: Option<NonZeroU32>,
        out: &mut dyn Output,
    ) -> Result<PortalRun, PgError> {
        let portal = self.portals.get(name)?;
        let command = portal.command.clone();
        let param_types = portal.param_types.clone();
        let params = portal.params.clone();
        let formats = portal.formats.clone();
        let mut run = Run {
            param_types: &param_types,
            params: &params,
            formats: Some(&formats),
            max_rows,
            position: portal.position,
        };
        let outcome = self.run(&command, &mut run, out)?;
        if let Ok(portal) = self.portals.get_mut(name) {
            portal.position = run.position;
        }
        Ok(outcome)
    }

    /// Run one command.
    fn run(
        &mut self,
        command: &Command,
        run: &mut Run<'_>,
        out: &mut dyn Output,
    ) -> Result<PortalRun, PgError> {
        if self.status == TransactionStatus::Failed
            && !matches!(command, Command::Commit | Command::Rollback)
        {
            return Err(aborted());
        }
        let tag = match command {
            Command::Select(n) => return select(*n, run, out),
            Command::Echo(args) => echo(args, run, out)?,
            Command::Error(code, msg) => return Err(PgError::error(*code, msg.clone())),
            Command::Fatal(code, msg) => return Err(PgError::fatal(*code, msg.clone())),
            Command::Panic => panic!("test engine panic"),
            Command::Notice(msg) => {
                out.notice(&PgError::notice(SqlState::parse("00000").unwrap(), msg.clone()))?;
                "DO".to_string()
            }
            Command::Sleep(secs) => {
                self.ctx.interrupts.sleep(Duration::from_secs_f64(*secs))?;
                "SLEEP".to_string()
            }
            Command::Stream => self.stream(out)?,
            Command::Set(name, value) => {
                self.unreported.push((name.clone(), value.clone()));
                "SET".to_string()
            }
            Command::Begin => self.set_status(TransactionStatus::InBlock, "BEGIN"),
            Command::Commit => {
                let tag =
                    if self.status == TransactionStatus::Failed { "ROLLBACK" } else { "COMMIT" };
                self.set_status(TransactionStatus::Idle, tag)
            }
            Command::Rollback => self.set_status(TransactionStatus::Idle, "ROLLBACK"),
            Command::CopyFrom(table) => self.copy_from(table, out)?,
            Command::CopyTo(table) => self.copy_to(table, out)?,
        };
        out.command_complete(&tag)?;
        Ok(PortalRun::Completed)
    }

    /// Change transaction state (portals die with the transaction).
    fn set_status(&mut self, status: TransactionStatus, tag: &str) -> String {
        if status == TransactionStatus::Idle {
            self.portals.clear();
        }
        self.status = status;
        tag.to_string()
    }

    /// STREAM: rows until stopped; the way it stopped is recorded.
    fn stream(&mut self, out: &mut dyn Output) -> Result<String, PgError> {
        out.row_description(&[int4_field("n", Format::Text)])?;
        for i in 0..10_000_000u32 {
            let sent = self
                .ctx
                .interrupts
                .check()
                .and_then(|()| out.data_row(&[Some(i.to_string().as_bytes())]));
            if let Err(e) = sent {
                let cancelled =
                    self.ctx.interrupts.cancel_requested() || e.code == SqlState::QUERY_CANCELED;
                self.shared.event(format!("stream stopped: {} cancelled={cancelled}", e.code));
                return Err(e);
            }
        }
        Ok("STREAM".to_string())
    }

    /// COPY t FROM STDIN.
    fn copy_from(&mut self, table: &str, out: &mut dyn Output) -> Result<String, PgError> {
        let format = CopyFormat { overall: Format::Text, columns: vec![Format::Text] };
        let mut data = Vec::new();
        {
            let mut reader = out.copy_in(&format)?;
            while let Some(chunk) = reader.read_data()? {
                data.extend_from_slice(&chunk);
            }
        }
        // Like PostgreSQL's text COPY parser, a line `\.` marks the end of data.
        if let Some(end) = data.windows(2).position(|w| w == b"\\.") {
            if end == 0 || data[end - 1] == b'\n' {
                data.truncate(end);
            }
        }
        let rows = data.iter().filter(|&&b| b == b'\n').count();
        self.shared.tables.lock().insert(table.to_string(), data);
        Ok(format!("COPY {rows}"))
    }

    /// COPY t TO STDOUT.
    fn copy_to(&mut self, table: &str, out: &mut dyn Output) -> Result<String, PgError> {
        let data = self.shared.tables.lock().get(table).cloned().unwrap_or_default();
        let format = CopyFormat { overall: Format::Text, columns: vec![Format::Text] };
        let mut writer = out.copy_out(&format)?;
        let mut rows = 0;
        for line in data.split_inclusive(|&b| b == b'\n') {
            writer.write_data(line)?;
            rows += 1;
        }
        writer.finish()?;
        Ok(format!("COPY {rows}"))
    }
}

/// The error for commands in a failed transaction block.
fn aborted() -> PgError {
    PgError::error(
        SqlState::parse("25P02").unwrap(),
        "current transaction is aborted, commands ignored until end of transaction block",
    )
}

/// Parse one command line.
fn parse_command(text: &str) -> Result<Command, PgError> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let rest = |from: usize| words.get(from..).unwrap_or_default().join(" ");
    let keyword = words.first().copied().unwrap_or_default().to_ascii_uppercase();
    let command = match (keyword.as_str(), words.len()) {
        ("SELECT", 2) => words[1].parse().ok().map(Command::Select),
        ("ECHO", _) => Some(Command::Echo(words[1..].iter().map(|w| parse_arg(w)).collect())),
        ("ERROR", n) if n >= 2 => SqlState::parse(words[1]).map(|c| Command::Error(c, rest(2))),
        ("FATAL", n) if n >= 2 => SqlState::parse(words[1]).map(|c| Command::Fatal(c, rest(2))),
        ("PANIC", 1) => Some(Command::Panic),
        ("NOTICE", _) => Some(Command::Notice(rest(1))),
        ("SLEEP", 2) => words[1].parse().ok().map(Command::Sleep),
        ("STREAM", 1) => Some(Command::Stream),
        ("SET", 3) => Some(Command::Set(words[1].to_string(), words[2].to_string())),
        ("BEGIN", 1) => Some(Command::Begin),
        ("START", 2) if words[1].eq_ignore_ascii_case("TRANSACTION") => Some(Command::Begin),
        ("COMMIT", 1) => Some(Command::Commit),
        ("ROLLBACK", 1) => Some(Command::Rollback),
        ("COPY", 4) => {
            match (words[2].to_ascii_uppercase().as_str(), words[3].to_ascii_uppercase().as_str()) {
                ("FROM", "STDIN") => Some(Command::CopyFrom(words[1].to_string())),
                ("TO", "STDOUT") => Some(Command::CopyTo(words[1].to_string())),
                _ => None,
            }
        }
        _ => None,
    };
    command.ok_or_else(|| {
        let first = words.first().copied().unwrap_or_default();
        PgError::error(
            SqlState::parse("42601").unwrap(),
            format!("syntax error at or near \"{first}\""),
        )
        .with_position(1)
    })
}

/// `$2::int4` is parameter 2 of type int4; anything else is a literal.
fn parse_arg(word: &str) -> Arg {
    let Some(spec) = word.strip_prefix('$') else { return Arg::Literal(word.to_string()) };
    let (number, ty) = spec.split_once("::").unwrap_or((spec, "text"));
    match (number.parse::<usize>(), ty) {
        (Ok(n), "int4") if n > 0 => Arg::Param(n, INT4),
        (Ok(n), _) if n > 0 => Arg::Param(n, TEXT),
        _ => Arg::Literal(word.to_string()),
    }
}

/// Parameter types declared in a command ($n with optional ::int4).
fn declared_params(command: &Command) -> Vec<u32> {
    let Command::Echo(args) = command else { return Vec::new() };
    let mut types = Vec::new();
    for arg in args {
        if let Arg::Param(n, ty) = arg {
            if types.len() < *n {
                types.resize(*n, TEXT);
            }
            types[n - 1] = *ty;
        }
    }
    types
}

/// The result columns of a command, if it returns rows.
fn fields(
    command: &Command,
    param_types: &[u32],
    formats: Option<&[Format]>,
) -> Option<Vec<FieldDescription>> {
    let format = |i: usize| formats.and_then(|f| f.get(i).copied()).unwrap_or(Format::Text);
    match command {
        Command::Select(_) | Command::Stream => Some(vec![int4_field("n", format(0))]),
        Command::Echo(args) => Some(
            args.iter()
                .enumerate()
                .map(|(i, a)| match a {
                    Arg::Param(n, _) if param_types.get(n - 1) == Some(&INT4) => {
                        int4_field("?column?", format(i))
                    }
                    _ => text_field("?column?", format(i)),
                })
                .collect(),
        ),
        _ => None,
    }
}

/// An int4 column.
fn int4_field(name: &str, format: Format) -> FieldDescription {
    FieldDescription {
        name: name.to_string(),
        table_oid: 0,
        column_number: 0,
        type_oid: INT4,
        type_len: 4,
        type_modifier: -1,
        format,
    }
}

/// A text column.
fn text_field(name: &str, format: Format) -> FieldDescription {
    FieldDescription { type_oid: TEXT, type_len: -1, ..int4_field(name, format) }
}

/// SELECT n, resuming at `run.position`, at most `run.max_rows` rows.
fn select(n: u32, run: &mut Run<'_>, out: &mut dyn Output) -> Result<PortalRun, PgError> {
    let format = run.formats.and_then(|f| f.first().copied()).unwrap_or(Format::Text);
    out.row_description(&[int4_field("n", format)])?;
    let limit = run.max_rows.map_or(u32::MAX, NonZeroU32::get);
    let mut sent = 0;
    while run.position < n {
        if sent == limit {
            return Ok(PortalRun::Suspended);
        }
        run.position += 1;
        sent += 1;
        out.data_row(&[Some(&encode_int4(run.position as i32, format))])?;
    }
    out.command_complete(&format!("SELECT {sent}"))?;
    Ok(PortalRun::Completed)
}

/// ECHO: one row of literals and parameters.
fn echo(args: &[Arg], run: &Run<'_>, out: &mut dyn Output) -> Result<String, PgError> {
    let cols =
        fields(&Command::Echo(args.to_vec()), run.param_types, run.formats).unwrap_or_default();
    out.row_description(&cols)?;
    let mut values = Vec::new();
    for (arg, col) in args.iter().zip(&cols) {
        values.push(match arg {
            Arg::Literal(s) => Some(s.as_bytes().to_vec()),
            Arg::Param(n, _) => param_value(run, *n, col)?,
        });
    }
    let row: Vec<Option<&[u8]>> = values.iter().map(|v| v.as_deref()).collect();
    out.data_row(&row)?;
    Ok("SELECT 1".to_string())
}

/// Parameter `n` converted to column `col`'s type and format.
fn param_value(
    run: &Run<'_>,
    n: usize,
    col: &FieldDescription,
) -> Result<Option<Vec<u8>>, PgError> {
    let Some(param) = run.params.get(n - 1) else {
        return Err(PgError::error(
            SqlState::parse("42P02").unwrap(),
            format!("there is no parameter ${n}"),
        ));
    };
    let Some(bytes) = &param.value else { return Ok(None) };
    if col.type_oid != INT4 {
        return Ok(Some(bytes.clone()));
    }
    let value = match param.format {
        Format::Binary => {
            <[u8; 4]>::try_from(bytes.as_slice()).map(i32::from_be_bytes).map_err(|_| {
                PgError::error(
                    SqlState::parse("22P03").unwrap(),
                    format!("incorrect binary data format in bind parameter {n}"),
                )
            })?
        }
        Format::Text => {
            let text = String::from_utf8_lossy(bytes);
            text.trim().parse().map_err(|_| {
                PgError::error(
                    SqlState::parse("22P02").unwrap(),
                    format!("invalid input syntax for type integer: \"{text}\""),
                )
            })?
        }
    };
    Ok(Some(encode_int4(value, col.format)))
}

/// An int4 in `format`.
fn encode_int4(v: i32, format: Format) -> Vec<u8> {
    match format {
        Format::Text => v.to_string().into_bytes(),
        Format::Binary => v.to_be_bytes().to_vec(),
    }
}
