//! CREATE DATABASE and DROP DATABASE (PostgreSQL's `commands/dbcommands.c`).
//!
//! A database is a `pg_database` row plus a directory of relation files
//! (`sluice_access::database`). CREATE DATABASE copies the template's files
//! as PostgreSQL 15 does by default (`STRATEGY wal_log`): every page of every
//! relation the template's `pg_class` lists goes through the buffer pool into
//! the new directory with a full-page image in WAL, so the new database is as
//! durable as its commit record. DROP DATABASE deletes the row; the directory
//! goes once the transaction commits (logged first, so a crash after the
//! commit finishes the removal in redo).
//!
//! Neither may run inside a transaction block: their file work cannot be
//! rolled back with the rest of a block. Within their own transaction an
//! abort still undoes everything (a failed CREATE removes its directory).
//!
//! Locking: both take ShareUpdateExclusive on `pg_database` itself, which
//! conflicts with itself, so database DDL is serialised — two sessions cannot
//! create the same name, nor drop a database another copies. Sessions are
//! checked against the activity table: a template must have no other
//! sessions while it is copied, a dropped database none at all (waiting up
//! to 5 seconds for them to leave, as PostgreSQL does; WITH (FORCE)
//! terminates them first). Sessions take no lock on their database while
//! connecting, so one that connects during a DROP's last moments is not
//! seen; PostgreSQL closes that gap with a database lock held for the
//! session's life, which sluice's transaction-scoped lock manager cannot
//! hold yet.

use crate::activity::Signal;
use crate::catalog::bootstrap::{DatabaseRow, FrozenBounds};
use crate::catalog::schema::{RelKind, BOOTSTRAP_SUPERUSER, PG_CLASS, PG_DATABASE};
use crate::catalog::{delete, insert, relation::oid_of, scan};
use crate::error::position;
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::executor::lmgr::acquire_with_settings;
use crate::parser::node_str;
use crate::sink::QuerySink;
use pg_query::protobuf::{CreatedbStmt, DefElem, DropdbStmt, Node};
use pg_query::NodeEnum;
use sluice_access::{database, sequence};
use sluice_common::{ItemPointer, Oid, RelFileLocator, DEFAULTTABLESPACE_OID};
use sluice_txn::lmgr::{LockMode, LockTag};
use sluice_types::Datum;
use std::time::{Duration, Instant};

/// The only server encoding sluice stores (PostgreSQL's PG_UTF8).
const UTF8: i32 = 6;

/// PostgreSQL's server encodings, by number (pg_enc), for option checks.
const SERVER_ENCODINGS: &[&str] =
    sluice_guc::ENCODINGS.split_at(sluice_guc::SERVER_ENCODING_COUNT).0;

/// How long DROP DATABASE waits for sessions to go (PostgreSQL: 5 seconds).
const BUSY_WAIT: Duration = Duration::from_secs(5);

/// A `pg_database` row.
#[derive(Clone, Debug)]
struct DbInfo {
    tid: ItemPointer,
    oid: Oid,
    encoding: i32,
    is_template: bool,
    collate: String,
    ctype: String,
    /// `datfrozenxid` and `datminmxid`.
    frozen: FrozenBounds,
}

fn db_info(tid: ItemPointer, row: &[Datum]) -> DbInfo {
    let text = |i: usize| row.get(i).and_then(Datum::as_str).unwrap_or("").to_string();
    let xid = |i: usize| if let Some(Datum::Xid(x)) = row.get(i) { *x } else { 0 };
    DbInfo {
        tid,
        oid: oid_of(&row[0]),
        encoding: if let Datum::Int4(e) = row[3] { e } else { UTF8 },
        is_template: matches!(row[4], Datum::Bool(true)),
        collate: text(8),
        ctype: text(9),
        frozen: FrozenBounds { xid: xid(13), multi: xid(14) },
    }
}

/// The `pg_database` row of `name`, as the statement's snapshot sees it.
fn find_database(cx: &mut dyn BackendContext, name: &str) -> Result<Option<DbInfo>> {
    let engine = cx.engine().clone();
    let rows = scan(&engine, 0, &PG_DATABASE, cx.txn()?, |r| r[1].as_str() == Some(name))?;
    Ok(rows.first().map(|(tid, row)| db_info(*tid, row)))
}

/// Serialises database DDL (see the module doc). Taken before anything is
/// read, so the statement's snapshot sees every committed predecessor.
fn lock_database_ddl(cx: &mut dyn BackendContext) -> Result<()> {
    let tag = LockTag::Relation { database: 0, relation: PG_DATABASE.oid };
    let parts = cx.parts()?;
    let txn = &*parts.txn;
    acquire_with_settings(&parts.env, false, Some("pg_database"), |params| {
        txn.lock(tag, LockMode::ShareUpdateExclusive, params)
    })
}

/// The pids of the other sessions connected to database `db`.
fn other_sessions(cx: &mut dyn BackendContext, db: Oid) -> Result<Vec<u32>> {
    let me = cx.parts()?.env.pid;
    let activity = cx.parts()?.env.activity.snapshot();
    Ok(activity.iter().filter(|a| a.database.0 == db && a.pid != me).map(|a| a.pid).collect())
}

/// PostgreSQL's errdetail_busy_db.
fn busy_detail(n: usize) -> String {
    if n == 1 {
        "There is 1 other session using the database.".to_string()
    } else {
        format!("There are {n} other sessions using the database.")
    }
}

/// The options of CREATE DATABASE, each at most once.
#[derive(Debug, Default)]
struct CreatedbOptions {
    owner: Option<Option<String>>,
    template: Option<Option<String>>,
    encoding: Option<Option<i32>>,
    locale: Option<Option<String>>,
    collate: Option<Option<String>>,
    ctype: Option<Option<String>>,
    tablespace: Option<Option<String>>,
    connlimit: Option<i32>,
    allow_connections: Option<bool>,
    is_template: Option<bool>,
    oid: Option<Oid>,
    strategy: Option<String>,
}

/// The value of an option, `None` for `DEFAULT`.
fn value(def: &DefElem) -> Option<String> {
    def.arg.as_deref().and_then(node_str)
}

fn bool_value(def: &DefElem) -> Result<bool> {
    match value(def).map(|v| v.to_ascii_lowercase()).as_deref() {
        None | Some("true" | "on" | "1") => Ok(true),
        Some("false" | "off" | "0") => Ok(false),
        Some(_) => Err(SqlError::syntax(format!("{} requires a Boolean value", def.defname))),
    }
}

fn int_value<T: std::str::FromStr>(def: &DefElem) -> Result<T> {
    value(def)
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| SqlError::syntax(format!("{} requires an integer value", def.defname)))
}

/// An ENCODING value: a name (any case, punctuation ignored) or a number.
fn encoding_value(def: &DefElem) -> Result<Option<i32>> {
    let Some(arg) = def.arg.as_deref() else { return Ok(None) };
    let at = position(def.location);
    if let Some(NodeEnum::Integer(i)) = arg.node.as_ref() {
        return match usize::try_from(i.ival).ok().filter(|&n| n < SERVER_ENCODINGS.len()) {
            Some(_) => Ok(Some(i.ival)),
            None => {
                Err(SqlError::new("42704", format!("{} is not a valid encoding code", i.ival))
                    .at(at))
            }
        };
    }
    let name = node_str(arg).unwrap_or_default();
    let clean = |s: &str| {
        s.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_ascii_lowercase()
    };
    let wanted = if clean(&name) == "unicode" { "utf8".to_string() } else { clean(&name) };
    SERVER_ENCODINGS.iter().position(|e| clean(e) == wanted).map(|n| Some(n as i32)).ok_or_else(
        || SqlError::new("42704", format!("{name} is not a valid encoding name")).at(at),
    )
}

impl CreatedbOptions {
    fn parse(options: &[Node]) -> Result<CreatedbOptions> {
        let mut o = CreatedbOptions::default();
        for option in options {
            let Some(NodeEnum::DefElem(def)) = option.node.as_ref() else { continue };
            o.set(def)?;
        }
        Ok(o)
    }

    fn set(&mut self, def: &DefElem) -> Result<()> {
        let at = position(def.location);
        let conflict = || SqlError::syntax("conflicting or redundant options").at(at);
        macro_rules! once {
            ($field:expr, $value:expr) => {{
                if $field.is_some() {
                    return Err(conflict());
                }
                $field = Some($value);
            }};
        }
        match def.defname.as_str() {
            "owner" => once!(self.owner, value(def)),
            "template" => once!(self.template, value(def)),
            "encoding" => once!(self.encoding, encoding_value(def)?),
            "locale" => once!(self.locale, value(def)),
            "lc_collate" => once!(self.collate, value(def)),
            "lc_ctype" => once!(self.ctype, value(def)),
            "tablespace" => once!(self.tablespace, value(def)),
            "connection_limit" => once!(self.connlimit, int_value(def)?),
            "allow_connections" => once!(self.allow_connections, bool_value(def)?),
            "is_template" => once!(self.is_template, bool_value(def)?),
            "oid" => once!(self.oid, int_value(def)?),
            "strategy" => once!(self.strategy, value(def).unwrap_or_default()),
            "locale_provider" => match value(def).map(|v| v.to_ascii_lowercase()).as_deref() {
                None | Some("libc") => {}
                Some("icu") => return Err(SqlError::unsupported("ICU locales are not supported")),
                Some(other) => {
                    return Err(SqlError::new(
                        "22023",
                        format!("unrecognized locale provider: {other}"),
                    ))
                }
            },
            "icu_locale" | "collation_version" => {
                return Err(SqlError::unsupported(format!(
                    "option \"{}\" is not supported",
                    def.defname
                ))
                .at(at))
            }
            other => {
                return Err(SqlError::syntax(format!("option \"{other}\" not recognized")).at(at))
            }
        }
        Ok(())
    }

    /// Checks the values that need no catalog (PostgreSQL's order).
    fn check(&self) -> Result<()> {
        if let Some(strategy) = &self.strategy {
            if !matches!(strategy.to_ascii_lowercase().as_str(), "wal_log" | "file_copy") {
                return Err(SqlError::new(
                    "22023",
                    format!("invalid create database strategy \"{strategy}\""),
                )
                .with_hint("Valid strategies are \"wal_log\" and \"file_copy\"."));
            }
        }
        if let Some(limit) = self.connlimit.filter(|&l| l < -1) {
            return Err(SqlError::new("22023", format!("invalid connection limit: {limit}")));
        }
        if self.oid.is_some_and(|o| o < sluice_access::engine::FIRST_NORMAL_OBJECT_ID) {
            return Err(SqlError::new(
                "22023",
                "OIDs less than 16384 are reserved for system objects",
            ));
        }
        Ok(())
    }

    /// The collation and ctype asked for (LOCALE sets both), checked.
    fn locales(&self, template: &DbInfo) -> Result<(String, String)> {
        let pick = |specific: &Option<Option<String>>, inherited: &str| {
            specific
                .clone()
                .flatten()
                .or_else(|| self.locale.clone().flatten())
                .unwrap_or_else(|| inherited.to_string())
        };
        let (collate, ctype) =
            (pick(&self.collate, &template.collate), pick(&self.ctype, &template.ctype));
        for name in [&collate, &ctype] {
            if !matches!(name.as_str(), "C" | "POSIX") {
                return Err(SqlError::new("42809", format!("invalid locale name: \"{name}\"")));
            }
        }
        Ok((collate, ctype))
    }
}

/// The OID of role `name`.
fn role_oid(cx: &mut dyn BackendContext, name: &str) -> Result<Oid> {
    let engine = cx.engine().clone();
    crate::catalog::authid::role_oid(&engine, cx.txn()?, name)
}

/// The encoding of the new database, checked against the template's.
fn check_encoding(wanted: Option<i32>, template_name: &str, template: &DbInfo) -> Result<i32> {
    let encoding = wanted.unwrap_or(template.encoding);
    let name = |e: i32| SERVER_ENCODINGS.get(e as usize).copied().unwrap_or("?");
    if encoding != template.encoding && template_name != "template0" {
        return Err(SqlError::new(
            "22023",
            format!(
                "new encoding ({}) is incompatible with the encoding of the template database ({})",
                name(encoding),
                name(template.encoding)
            ),
        )
        .with_hint(
            "Use the same encoding as in the template database, or use template0 as template.",
        ));
    }
    if encoding != UTF8 {
        return Err(SqlError::unsupported(format!(
            "encoding \"{}\" is not supported",
            name(encoding)
        )));
    }
    Ok(encoding)
}

/// CREATE DATABASE name [WITH] options.
pub fn createdb(
    cx: &mut dyn BackendContext,
    stmt: &CreatedbStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    cx.prevent_transaction_block("CREATE DATABASE")?;
    let options = CreatedbOptions::parse(&stmt.options)?;
    options.check()?;
    lock_database_ddl(cx)?;
    let owner = match options.owner.clone().flatten() {
        Some(name) => role_oid(cx, &name)?,
        None => {
            let user = cx.user().to_string();
            role_oid(cx, &user).unwrap_or(BOOTSTRAP_SUPERUSER)
        }
    };
    let template_name = options.template.clone().flatten().unwrap_or_else(|| "template1".into());
    let template = find_database(cx, &template_name)?.ok_or_else(|| {
        SqlError::new("3D000", format!("template database \"{template_name}\" does not exist"))
    })?;
    let encoding = check_encoding(options.encoding.flatten(), &template_name, &template)?;
    let (collate, ctype) = options.locales(&template)?;
    match options.tablespace.clone().flatten().as_deref() {
        None | Some("pg_default") => {}
        Some(other) => {
            return Err(SqlError::new("42704", format!("tablespace \"{other}\" does not exist")))
        }
    }
    if find_database(cx, &stmt.dbname)?.is_some() {
        return Err(SqlError::new("42P04", format!("database \"{}\" already exists", stmt.dbname)));
    }
    let busy = other_sessions(cx, template.oid)?;
    if !busy.is_empty() {
        return Err(SqlError::new(
            "55006",
            format!("source database \"{template_name}\" is being accessed by other users"),
        )
        .with_detail(busy_detail(busy.len())));
    }
    let engine = cx.engine().clone();
    let oid = match options.oid {
        Some(oid) => oid,
        None => engine.new_oid()?,
    };
    database::create_directory(&engine, DEFAULTTABLESPACE_OID, oid)?;
    cx.xact()?.at_transaction_end(false, move |engine| {
        // Failing to remove a directory only leaves garbage behind.
        let _ = database::drop_directory(engine, DEFAULTTABLESPACE_OID, oid);
    });
    copy_relations(cx, template.oid, oid)?;
    let row = DatabaseRow {
        oid,
        name: &stmt.dbname,
        owner,
        encoding,
        is_template: options.is_template.unwrap_or(false),
        allow_connections: options.allow_connections.unwrap_or(true),
        connection_limit: options.connlimit.unwrap_or(-1),
        collate: &collate,
        ctype: &ctype,
        acl: None,
        frozen: template.frozen,
    };
    insert(&engine, 0, &PG_DATABASE, cx.txn()?, &row.values())?;
    sink.complete("CREATE DATABASE")
}

/// copy_relations -- copies every relation with storage of database
/// `from` (as its `pg_class` says under this statement's snapshot) into `to`.
/// Sequences are rebuilt from their state rather than copied page for page,
/// so that the copy's first nextval logs (see `sequence::create`).
fn copy_relations(cx: &mut dyn BackendContext, from: Oid, to: Oid) -> Result<()> {
    let engine = cx.engine().clone();
    let classes =
        scan(&engine, from, &PG_CLASS, cx.txn()?, |r| !matches!(r[12], Datum::Bool(true)))?;
    let interrupts = cx.interrupts().clone();
    let interrupted = move || interrupts().is_err();
    for (_, class) in classes {
        let rel_number = oid_of(&class[6]);
        let src = RelFileLocator { spc_oid: DEFAULTTABLESPACE_OID, db_oid: from, rel_number };
        let dst = RelFileLocator { db_oid: to, ..src };
        if class[14].as_str() == Some(RelKind::Sequence.letter()) {
            sequence::create(&engine, dst, &sequence::read(&engine, src)?)?;
            continue;
        }
        database::copy_relation(&engine, src, dst, &interrupted).map_err(|e| match e {
            sluice_access::AccessError::Interrupted => match (cx.interrupts())() {
                Err(reason) => reason,
                Ok(()) => SqlError::from(e),
            },
            other => SqlError::from(other),
        })?;
    }
    Ok(())
}

/// ALTER DATABASE name OWNER TO role (3D000 if there is no such database).
pub fn alter_owner(
    cx: &mut dyn BackendContext,
    name: &str,
    owner: Oid,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    lock_database_ddl(cx)?;
    let engine = cx.engine().clone();
    let rows = scan(&engine, 0, &PG_DATABASE, cx.txn()?, |r| r[1].as_str() == Some(name))?;
    let Some((tid, mut row)) = rows.into_iter().next() else {
        return Err(SqlError::new("3D000", format!("database \"{name}\" does not exist")));
    };
    if row[2] != Datum::Oid(owner) {
        row[2] = Datum::Oid(owner);
        crate::catalog::replace(&engine, 0, &PG_DATABASE, cx.txn()?, tid, &row)?;
    }
    sink.complete("ALTER DATABASE")
}

/// DROP DATABASE [IF EXISTS] name [[WITH] (FORCE)].
pub fn dropdb(
    cx: &mut dyn BackendContext,
    stmt: &DropdbStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    cx.prevent_transaction_block("DROP DATABASE")?;
    let mut force = false;
    for option in &stmt.options {
        let Some(NodeEnum::DefElem(def)) = option.node.as_ref() else { continue };
        if def.defname != "force" {
            return Err(SqlError::syntax(format!(
                "unrecognized DROP DATABASE option \"{}\"",
                def.defname
            ))
            .at(position(def.location)));
        }
        force = true;
    }
    lock_database_ddl(cx)?;
    let Some(db) = find_database(cx, &stmt.dbname)? else {
        if stmt.missing_ok {
            sink.notice(&SqlError::new(
                "00000",
                format!("database \"{}\" does not exist, skipping", stmt.dbname),
            ))?;
            return sink.complete("DROP DATABASE");
        }
        return Err(SqlError::new("3D000", format!("database \"{}\" does not exist", stmt.dbname)));
    };
    if db.is_template {
        return Err(SqlError::new("42809", "cannot drop a template database"));
    }
    if db.oid == cx.database() {
        return Err(SqlError::new("55006", "cannot drop the currently open database"));
    }
    if force {
        terminate_sessions(cx, db.oid)?;
    }
    let busy = wait_for_sessions(cx, db.oid)?;
    if busy > 0 {
        return Err(SqlError::new(
            "55006",
            format!("database \"{}\" is being accessed by other users", stmt.dbname),
        )
        .with_detail(busy_detail(busy)));
    }
    let engine = cx.engine().clone();
    delete(&engine, 0, &PG_DATABASE, cx.txn()?, db.tid)?;
    let oid = db.oid;
    cx.xact()?.at_transaction_end(true, move |engine| {
        // The row is gone; a directory that cannot be removed is garbage.
        let _ = database::drop_directory(engine, DEFAULTTABLESPACE_OID, oid);
    });
    sink.complete("DROP DATABASE")
}

/// WITH (FORCE): asks every other session on `db` to end, as
/// pg_terminate_backend does (PostgreSQL's TerminateOtherDBBackends).
fn terminate_sessions(cx: &mut dyn BackendContext, db: Oid) -> Result<()> {
    for pid in other_sessions(cx, db)? {
        cx.parts()?.env.activity.signal(pid, Signal::Terminate);
    }
    Ok(())
}

/// Waits up to 5 seconds for the other sessions on `db` to go (they may be
/// ending); returns how many are left (PostgreSQL's CountOtherDBBackends).
fn wait_for_sessions(cx: &mut dyn BackendContext, db: Oid) -> Result<usize> {
    let start = Instant::now();
    loop {
        let left = other_sessions(cx, db)?.len();
        if left == 0 || start.elapsed() >= BUSY_WAIT {
            return Ok(left);
        }
        (cx.interrupts())()?;
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(sql: &str) -> Result<CreatedbOptions> {
        let parsed = crate::parser::parse(sql).unwrap();
        let NodeEnum::CreatedbStmt(stmt) = &parsed[0].node else { panic!("{sql}") };
        let o = CreatedbOptions::parse(&stmt.options)?;
        o.check()?;
        Ok(o)
    }

    #[test]
    fn options_parse_and_fail_like_postgres() {
        let o = options(
            "CREATE DATABASE d OWNER postgres TEMPLATE template0 ENCODING 'utf-8' \
             CONNECTION LIMIT 5 IS_TEMPLATE false ALLOW_CONNECTIONS true STRATEGY file_copy",
        )
        .unwrap();
        assert_eq!(o.template, Some(Some("template0".into())));
        assert_eq!((o.encoding, o.connlimit), (Some(Some(UTF8)), Some(5)));
        assert_eq!((o.is_template, o.allow_connections), (Some(false), Some(true)));
        assert_eq!(options("CREATE DATABASE d ENCODING 8").unwrap().encoding, Some(Some(8)));
        assert_eq!(options("CREATE DATABASE d TEMPLATE DEFAULT").unwrap().template, Some(None));
        let message = |sql: &str| options(sql).unwrap_err().message;
        assert_eq!(
            message("CREATE DATABASE d ENCODING 'nosuch'"),
            "nosuch is not a valid encoding name"
        );
        assert_eq!(message("CREATE DATABASE d ENCODING 99"), "99 is not a valid encoding code");
        assert_eq!(message("CREATE DATABASE d FOO 1"), "option \"foo\" not recognized");
        assert_eq!(
            message("CREATE DATABASE d OWNER a OWNER b"),
            "conflicting or redundant options"
        );
        assert_eq!(
            message("CREATE DATABASE d STRATEGY x"),
            "invalid create database strategy \"x\""
        );
        assert_eq!(
            message("CREATE DATABASE d CONNECTION LIMIT -2"),
            "invalid connection limit: -2"
        );
        assert_eq!(
            message("CREATE DATABASE d OID 100"),
            "OIDs less than 16384 are reserved for system objects"
        );
    }

    #[test]
    fn encodings_and_locales_follow_the_template() {
        let template = DbInfo {
            tid: ItemPointer::new(0, 1),
            oid: 1,
            encoding: UTF8,
            is_template: true,
            collate: "C".into(),
            ctype: "C".into(),
            frozen: FrozenBounds::default(),
        };
        assert_eq!(check_encoding(None, "template1", &template).unwrap(), UTF8);
        let e = check_encoding(Some(8), "template1", &template).unwrap_err();
        assert_eq!(e.message, "new encoding (LATIN1) is incompatible with the encoding of the template database (UTF8)");
        assert_eq!(check_encoding(Some(8), "template0", &template).unwrap_err().code, "0A000");
        let o = options("CREATE DATABASE d LOCALE 'POSIX'").unwrap();
        assert_eq!(o.locales(&template).unwrap(), ("POSIX".into(), "POSIX".into()));
        let o = options("CREATE DATABASE d LC_CTYPE 'en_US'").unwrap();
        assert_eq!(o.locales(&template).unwrap_err().message, "invalid locale name: \"en_US\"");
    }
}
