//! nextval, currval, setval and lastval (PostgreSQL's `commands/sequence.c`,
//! function half), with the session's sequence state, and
//! pg_get_serial_sequence.
//!
//! # Session state
//!
//! Each session keeps, per sequence it touched, the last value nextval
//! returned (for currval and lastval) and the values it took ahead with
//! `CACHE n` but has not returned yet ([`SeqTable`], PostgreSQL's SeqTable).
//! None of it is transactional: a rolled-back nextval still moved currval.
//! Cached values are forgotten when the sequence gets a new relfilenode
//! (ALTER SEQUENCE), as PostgreSQL does.
//!
//! # Arguments
//!
//! sluice has no `regclass` type yet: a sequence is named by text
//! (`nextval('s')`, `nextval('public."S"')`), parsed like PostgreSQL's
//! regclass input (unquoted parts fold to lower case), or given by OID.
//! Resolving a name reads `pg_class`; the answer is kept for as long as the
//! statement's snapshot stays the same, since the same snapshot sees the same
//! catalogs — a multi-row INSERT into a serial column resolves its sequence once.
//!
//! # Locks and durability
//!
//! Every call takes RowExclusive on the sequence for the rest of the
//! transaction (PostgreSQL takes it once per transaction too), so ALTER and
//! DROP SEQUENCE wait for sessions using it. Functions cannot borrow the
//! transaction, so the lock is taken through the lock manager as the
//! backend's, unlogged by savepoint levels: like PostgreSQL's, which it
//! gives to the top-level transaction's resource owner, it stays until the
//! transaction ends, whatever ROLLBACK TO does. When nextval or setval writes WAL and the transaction
//! has no xid (a plain `SELECT nextval(...)`), nothing at commit would flush
//! that record, so it is flushed before the value is returned: a value a
//! client saw is never handed out again after a crash. Transactions with an
//! xid flush it with their commit record, as in PostgreSQL.

use crate::catalog::depend::{self, DepType, ObjectAddress};
use crate::catalog::namespace::{self, missing_relation};
use crate::catalog::relation::{attnum_as, find_as, find_by_oid_as, RelationId};
use crate::catalog::schema::RelKind;
use crate::error::{Result, SqlError};
use crate::executor::context::BackendEnv;
use crate::executor::host::ExecHost;
use crate::executor::lmgr::acquire_with_settings;
use crate::parser::quote_identifier;
use sluice_access::sequence::{self, Fetched, SeqLimit};
use sluice_common::{Lsn, Oid};
use sluice_guc::Settings;
use sluice_txn::lmgr::{LockMode, LockTag};
use sluice_txn::{Csn, Snapshot};
use sluice_types::Datum;
use std::collections::HashMap;
use std::sync::Arc;

/// PostgreSQL's identifier length limit (NAMEDATALEN - 1), in bytes.
const MAX_IDENTIFIER_LEN: usize = 63;

/// What a session remembers about one sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SeqEntry {
    /// The relfilenode the cached values came from.
    filenode: Oid,
    /// Whether `last` was set by nextval or setval in this session.
    last_valid: bool,
    /// The value last returned.
    last: i64,
    /// The last value taken from the page; `last < cached` (in the
    /// direction of `increment`) means values are cached.
    cached: i64,
    /// The sequence's increment when the values were taken.
    increment: i64,
}

/// Sequences found by name: (`search_path` setting, name) → sequence.
type ResolvedNames = HashMap<(Arc<str>, String), RelationId>;

/// A session's sequence state (see the module doc).
#[derive(Debug, Default)]
pub struct SeqTable {
    entries: HashMap<Oid, SeqEntry>,
    /// The sequence of the last nextval (lastval's).
    last_used: Option<Oid>,
    /// Names resolved under one snapshot, and that snapshot; keyed by the
    /// `search_path` setting and the name, as the setting can change
    /// under one snapshot (REPEATABLE READ).
    resolved: Option<(Snapshot, ResolvedNames)>,
}

impl SeqTable {
    /// entry -- the session's state for `seq`, with cached values dropped
    /// if its relfilenode changed since they were taken.
    fn entry(&mut self, seq: &RelationId) -> &mut SeqEntry {
        let filenode = seq.locator.rel_number;
        let e = self.entries.entry(seq.oid).or_insert(SeqEntry {
            filenode,
            last_valid: false,
            last: 0,
            cached: 0,
            increment: 0,
        });
        if e.filenode != filenode {
            e.filenode = filenode;
            e.cached = e.last;
        }
        e
    }
}

/// nextval(regclass): the sequence's next value.
pub(crate) fn nextval(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    let Some(arg) = args.first().filter(|a| !a.is_null()) else { return Ok(Datum::Null) };
    let seq = open(host, arg)?;
    prevent_read_only(host.env(), "nextval()")?;
    let env = host.env();
    let entry = env.sequences.entry(&seq);
    if entry.last != entry.cached {
        entry.last += entry.increment;
        let value = entry.last;
        env.sequences.last_used = Some(seq.oid);
        return Ok(Datum::Int8(value));
    }
    let fetched = match sequence::nextval(env.engine, seq.locator)? {
        Ok(f) => f,
        Err(limit) => return Err(limit_error(&seq.name, limit)),
    };
    let Fetched { result, last, increment, logged } = fetched;
    *env.sequences.entry(&seq) = SeqEntry {
        filenode: seq.locator.rel_number,
        last_valid: true,
        last: result,
        cached: last,
        increment,
    };
    env.sequences.last_used = Some(seq.oid);
    if let Some(end) = logged {
        make_durable(env, end)?;
    }
    Ok(Datum::Int8(result))
}

/// currval(regclass): what nextval last returned for the sequence in this session.
pub(crate) fn currval(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    let Some(arg) = args.first().filter(|a| !a.is_null()) else { return Ok(Datum::Null) };
    let seq = open(host, arg)?;
    match host.env().sequences.entries.get(&seq.oid) {
        Some(e) if e.last_valid => Ok(Datum::Int8(e.last)),
        _ => Err(SqlError::new(
            "55000",
            format!("currval of sequence \"{}\" is not yet defined in this session", seq.name),
        )),
    }
}

/// lastval(): what the last nextval of this session returned.
pub(crate) fn lastval(host: &mut ExecHost) -> Result<Datum> {
    let undefined = || SqlError::new("55000", "lastval is not yet defined in this session");
    let oid = host.env().sequences.last_used.ok_or_else(undefined)?;
    // The sequence may have been dropped since.
    let seq = open(host, &Datum::Oid(oid)).map_err(|_| undefined())?;
    match host.env().sequences.entries.get(&seq.oid) {
        Some(e) if e.last_valid => Ok(Datum::Int8(e.last)),
        _ => Err(undefined()),
    }
}

/// setval(regclass, bigint [, is_called boolean]): sets the counter.
pub(crate) fn setval(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    let (Some(arg), Some(Datum::Int8(value))) = (args.first(), args.get(1)) else {
        return Ok(Datum::Null);
    };
    let is_called = match args.get(2) {
        None => true,
        Some(Datum::Bool(b)) => *b,
        Some(_) => return Ok(Datum::Null),
    };
    if arg.is_null() {
        return Ok(Datum::Null);
    }
    let seq = open(host, arg)?;
    prevent_read_only(host.env(), "setval()")?;
    let env = host.env();
    let end = match sequence::setval(env.engine, seq.locator, *value, is_called)? {
        Ok(end) => end,
        Err(limit) => return Err(setval_error(*value, &seq.name, limit)),
    };
    let entry = env.sequences.entry(&seq);
    if is_called {
        entry.last = *value;
        entry.last_valid = true;
    }
    entry.cached = entry.last;
    make_durable(env, end)?;
    Ok(Datum::Int8(*value))
}

fn limit_error(name: &str, limit: SeqLimit) -> SqlError {
    let (bound, value) = match limit {
        SeqLimit::Max(v) => ("maximum", v),
        SeqLimit::Min(v) | SeqLimit::OutOfBounds(v, _) => ("minimum", v),
    };
    SqlError::new(
        "2200H",
        format!("nextval: reached {bound} value of sequence \"{name}\" ({value})"),
    )
}

fn setval_error(value: i64, name: &str, limit: SeqLimit) -> SqlError {
    let (min, max) = match limit {
        SeqLimit::OutOfBounds(min, max) => (min, max),
        SeqLimit::Max(v) | SeqLimit::Min(v) => (v, v),
    };
    SqlError::new(
        "22003",
        format!("setval: value {value} is out of bounds for sequence \"{name}\" ({min}..{max})"),
    )
}

/// pg_get_serial_sequence(table, column): the sequence owned by the column
/// (serial or OWNED BY), schema-qualified, or NULL. The table name is parsed
/// like a regclass; the column name is taken as written.
pub(crate) fn serial_sequence(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    let (Some(table), Some(column)) =
        (args.first().and_then(Datum::as_str), args.get(1).and_then(Datum::as_str))
    else {
        return Ok(Datum::Null);
    };
    let table = by_name(host, table)?;
    let ctx = host.visibility().clone();
    let env = host.env();
    let attnum =
        attnum_as(env.engine, env.database, &ctx, table.oid, column)?.ok_or_else(|| {
            SqlError::new(
                "42703",
                format!("column \"{column}\" of relation \"{}\" does not exist", table.name),
            )
        })?;
    let column = ObjectAddress::column(table.oid, attnum);
    let owned = depend::find_as(env.engine, env.database, &ctx, |d| {
        d.referenced == column
            && matches!(d.kind, DepType::Auto | DepType::Internal)
            && d.object.classid == depend::RELATION_CLASS
    })?;
    for (_, dep) in owned {
        if let Some(seq) = find_by_oid_as(env.engine, env.database, &ctx, dep.object.objid)? {
            let schema = namespace::namespace_name(env.engine, env.database, &ctx, seq.namespace)?
                .unwrap_or_default();
            let (schema, name) = (quote_identifier(&schema), quote_identifier(&seq.name));
            return Ok(Datum::Text(format!("{schema}.{name}")));
        }
    }
    Ok(Datum::Null)
}

/// 25006 in a read-only transaction (PostgreSQL's PreventCommandIfReadOnly).
fn prevent_read_only(env: &mut BackendEnv, what: &str) -> Result<()> {
    if env.settings.get_bool("transaction_read_only") {
        return Err(SqlError::new(
            "25006",
            format!("cannot execute {what} in a read-only transaction"),
        ));
    }
    Ok(())
}

/// open -- the sequence `arg` names (text or OID), locked RowExclusive.
fn open(host: &mut ExecHost, arg: &Datum) -> Result<RelationId> {
    let seq = match arg {
        Datum::Oid(oid) => by_oid(host, *oid)?,
        other => match other.as_str() {
            Some(name) => by_name(host, name)?,
            None => {
                return Err(SqlError::internal("sequence argument is neither a name nor an OID"))
            }
        },
    };
    lock(host.env(), &seq)?;
    let seq = as_now_committed(host, seq)?;
    if seq.kind != RelKind::Sequence {
        return Err(not_a_sequence(&seq.name));
    }
    Ok(seq)
}

/// as_now_committed -- the sequence as the latest committed catalogs
/// describe it, once it is locked. Its state is not transactional: the
/// values live in whatever relfilenode is current, so a nextval that
/// waited for (or came just after) an ALTER SEQUENCE that gave the
/// sequence a new file must use the new file and limits even though the
/// statement's snapshot still sees the old `pg_class` row (PostgreSQL's
/// relcache is rebuilt from the invalidation the ALTER sent). Looking the
/// row up again is only needed when a catalog change the snapshot does not
/// see may have committed.
fn as_now_committed(host: &mut ExecHost, seq: RelationId) -> Result<RelationId> {
    let mut ctx = host.visibility().clone();
    let env = host.env();
    if !env.engine.txns().catalog_changes().changed_since(&ctx.snapshot) {
        return Ok(seq);
    }
    ctx.snapshot.csn = Csn::LATEST;
    find_by_oid_as(env.engine, env.database, &ctx, seq.oid)?.ok_or_else(|| {
        SqlError::new("42P01", format!("could not open relation with OID {}", seq.oid))
    })
}

fn by_oid(host: &mut ExecHost, oid: Oid) -> Result<RelationId> {
    let ctx = host.visibility().clone();
    let env = host.env();
    find_by_oid_as(env.engine, env.database, &ctx, oid)?
        .ok_or_else(|| SqlError::internal(format!("could not open relation with OID {oid}")))
}

/// by_name -- resolves a regclass-style name, from the snapshot's cache when
/// this snapshot resolved it before.
fn by_name(host: &mut ExecHost, text: &str) -> Result<RelationId> {
    let ctx = host.visibility().clone();
    let env = host.env();
    let key = (env.settings.get_str("search_path"), text.to_string());
    if let Some((snapshot, names)) = &env.sequences.resolved {
        if *snapshot == ctx.snapshot {
            if let Some(rel) = names.get(&key) {
                return Ok(rel.clone());
            }
        }
    }
    let path = env.search_path(&ctx)?;
    let names = parse_name_list(text)?;
    let in_schema = |schema: &str| namespace::schema_oid(env.engine, env.database, &ctx, schema);
    let (namespaces, relname) = match names.as_slice() {
        [rel] => (path.schemas().to_vec(), rel),
        [schema, rel] => (vec![in_schema(schema)?], rel),
        [db, schema, rel] if db == env.database_name => (vec![in_schema(schema)?], rel),
        [_, _, _] => {
            return Err(SqlError::unsupported(format!(
                "cross-database references are not implemented: {}",
                names.join(".")
            )))
        }
        _ => {
            return Err(SqlError::syntax(format!(
                "improper relation name (too many dotted names): {}",
                names.join(".")
            )))
        }
    };
    let rel = find_as(env.engine, env.database, &ctx, &namespaces, relname)?.ok_or_else(|| {
        let shown =
            if names.len() > 1 { names[names.len() - 2..].join(".") } else { relname.clone() };
        missing_relation(&shown)
    })?;
    let cache = &mut env.sequences.resolved;
    if cache.as_ref().is_none_or(|(s, _)| *s != ctx.snapshot) {
        *cache = Some((ctx.snapshot, HashMap::new()));
    }
    if let Some((_, names)) = cache {
        names.insert(key, rel.clone());
    }
    Ok(rel)
}

/// parse_name_list -- splits `a."B".c` into identifiers as PostgreSQL's
/// regclass input does: unquoted parts fold to lower case, `""` inside quotes
/// is a quote, and anything else is 42602 `invalid name syntax`.
pub(crate) fn parse_name_list(text: &str) -> Result<Vec<String>> {
    let invalid = || SqlError::new("42602", "invalid name syntax");
    let mut names = Vec::new();
    let mut chars = text.trim_start().chars().peekable();
    loop {
        let mut name = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next() {
                    Some('"') if chars.peek() == Some(&'"') => {
                        chars.next();
                        name.push('"');
                    }
                    Some('"') => break,
                    Some(c) => name.push(c),
                    None => return Err(invalid()),
                }
            }
            if name.is_empty() {
                return Err(invalid());
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c == '.' || c.is_whitespace() {
                    break;
                }
                name.push(c.to_ascii_lowercase());
                chars.next();
            }
            if name.is_empty() {
                return Err(invalid());
            }
        }
        names.push(truncate_identifier(name));
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        match chars.next() {
            None => return Ok(names),
            Some('.') => {
                while chars.peek().is_some_and(|c| c.is_whitespace()) {
                    chars.next();
                }
            }
            Some(_) => return Err(invalid()),
        }
    }
}

/// Cuts an identifier to 63 bytes on a character boundary, as PostgreSQL does.
fn truncate_identifier(mut name: String) -> String {
    if name.len() > MAX_IDENTIFIER_LEN {
        let mut end = MAX_IDENTIFIER_LEN;
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        name.truncate(end);
    }
    name
}

/// Takes RowExclusive on `seq` for the rest of the transaction.
fn lock(env: &mut BackendEnv, seq: &RelationId) -> Result<()> {
    let owner = env.lock_owner;
    let tag = LockTag::Relation { database: env.database, relation: seq.oid };
    let locks = env.engine.txns().lock_manager();
    acquire_with_settings(env, false, Some(&seq.name), |params| {
        locks.acquire(owner, tag, LockMode::RowExclusive, params)
    })
}

/// make_durable -- flushes WAL through `end` unless the transaction's
/// commit will (it has an xid); see the module doc.
fn make_durable(env: &mut BackendEnv, end: Lsn) -> Result<()> {
    let pid = env.pid;
    let has_xid = env.engine.txns().proc_states().iter().any(|p| p.pid == pid && p.xid.is_some());
    if !has_xid {
        env.engine.wal().flush(end).map_err(sluice_access::AccessError::from)?;
    }
    Ok(())
}

/// 42809 `"x" is not a sequence`.
pub(crate) fn not_a_sequence(name: &str) -> SqlError {
    SqlError::new("42809", format!("\"{name}\" is not a sequence"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::schema::PUBLIC_NAMESPACE;

    #[test]
    fn names_parse_like_regclass_input() {
        let ok = |t: &str| parse_name_list(t).unwrap();
        assert_eq!(ok("Seq"), ["seq"]);
        assert_eq!(ok(" public . \"My.Seq\" "), ["public", "My.Seq"]);
        assert_eq!(ok("\"a\"\"b\""), ["a\"b"]);
        assert_eq!(ok(&"x".repeat(70)), ["x".repeat(63)]);
        for bad in ["", "a..b", "a.", "\"\"", "\"open", "a b"] {
            assert_eq!(parse_name_list(bad).unwrap_err().code, "42602", "{bad:?}");
        }
    }

    #[test]
    fn a_new_relfilenode_drops_cached_values() {
        let mut table = SeqTable::default();
        let mut seq = RelationId {
            oid: 16400,
            name: "s".into(),
            namespace: PUBLIC_NAMESPACE,
            locator: sluice_common::RelFileLocator { spc_oid: 1663, db_oid: 5, rel_number: 16400 },
            kind: RelKind::Sequence,
        };
        *table.entry(&seq) =
            SeqEntry { filenode: 16400, last_valid: true, last: 3, cached: 10, increment: 1 };
        assert_eq!(table.entry(&seq).cached, 10);
        seq.locator.rel_number = 16401;
        let e = table.entry(&seq);
        assert_eq!((e.last, e.cached, e.last_valid), (3, 3, true));
    }
}
