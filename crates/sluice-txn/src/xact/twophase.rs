//! Two-phase commit: PREPARE TRANSACTION, COMMIT PREPARED, ROLLBACK PREPARED
//! (PostgreSQL's `twophase.c`).
//!
//! # Prepared transactions
//!
//! PREPARE detaches a transaction from its session and keeps it in progress,
//! owned by a *dummy proc*: a proc array slot of its own (the proc array and
//! lock manager have `max_prepared_transactions` slots beyond the backends').
//! The dummy slot publishes the transaction's xid — so other sessions see it
//! running, and xmin horizons stay at or below it — and a snapshot (xmin = its
//! xid, CSN = the CSN current at PREPARE), so VACUUM keeps the rows deleted
//! after it as "recently dead" as PostgreSQL does. Its heavyweight locks move
//! to the dummy slot in one step (`LockManager::transfer_all`), the locks on
//! its xid and subxids among them: waiters keep waiting until COMMIT or
//! ROLLBACK PREPARED, which any session may run; that ends the transaction
//! exactly like a commit or rollback (commit record with its subxids, commit
//! log, one CSN for all its xids), then frees the dummy slot and its locks.
//!
//! # Durability
//!
//! PREPARE flushes WAL to its end (the transaction's changes are durable) and
//! then writes a state file `pg_twophase/<xid in 16 hex digits>` (write to a
//! temporary name, fsync, rename, fsync the directory): gid, xids, owner,
//! database, time and the locks it held. COMMIT/ROLLBACK PREPARED write and
//! flush their WAL record before they remove the file. At startup, after redo,
//! [`TransactionManager::restore_prepared`] reads the files: one whose xid the
//! commit log shows finished was ended just before a crash and is removed;
//! the others come back in progress, with their dummy slots and locks. The
//! CSN log, which otherwise starts at the first xid after the restart, is
//! extended down to the oldest prepared xid and filled from the commit log,
//! so snapshots taken before COMMIT PREPARED never see it committed.
//!
//! Locking: `prepared` (a mutex) guards the list; an entry being finished is
//! marked `busy` so two sessions cannot finish it at once.

use super::{Outcome, Transaction, TransactionManager, XLOG_XACT_ABORT, XLOG_XACT_COMMIT};
use crate::clog::XidStatus;
use crate::csnlog::Csn;
use crate::error::{Result, TxnError};
use crate::lmgr::{LockMode, LockOwner, LockTag, LockWaitParams};
use crate::procarray::ProcId;
use sluice_common::Xid;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A prepared transaction, as `pg_prepared_xacts` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreparedInfo {
    /// Its top-level xid.
    pub xid: Xid,
    /// Its global identifier.
    pub gid: String,
    /// When it was prepared, microseconds since the Unix epoch.
    pub prepared_at: u64,
    /// The user who prepared it.
    pub owner: String,
    /// The database it ran in.
    pub database: u32,
}

/// One prepared transaction.
#[derive(Debug)]
pub(super) struct Prepared {
    info: PreparedInfo,
    subxids: Vec<Xid>,
    locks: Vec<(LockTag, LockMode)>,
    proc: ProcId,
    /// A session is finishing it.
    busy: bool,
}

/// The prepared transactions and the limit on them.
#[derive(Debug, Default)]
pub(super) struct TwoPhase {
    pub(super) max: usize,
    pub(super) dir: Option<PathBuf>,
    pub(super) prepared: parking_lot::Mutex<Vec<Prepared>>,
}

/// A two-phase command refused, worded as PostgreSQL words it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TwoPhaseError {
    /// SQLSTATE.
    pub code: &'static str,
    /// Message.
    pub message: String,
    /// Hint, if any.
    pub hint: Option<String>,
}

impl fmt::Display for TwoPhaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

fn refused(code: &'static str, message: String, hint: Option<String>) -> TwoPhaseError {
    TwoPhaseError { code, message, hint }
}

/// Who prepares: the session's user and database.
pub struct PrepareContext<'a> {
    /// Global transaction identifier.
    pub gid: &'a str,
    /// Session user.
    pub owner: &'a str,
    /// Database OID.
    pub database: u32,
}

fn now_micros() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64)
}

impl TransactionManager {
    /// restore_prepared -- enables PREPARE TRANSACTION for up to `max`
    /// transactions (`max_prepared_transactions`) with state files in
    /// `data_dir/pg_twophase`, and brings back those prepared before the
    /// last shutdown or crash. Runs once at startup, after redo.
    pub fn restore_prepared(&mut self, data_dir: &Path, max: usize) -> Result<()> {
        let dir = data_dir.join("pg_twophase");
        std::fs::create_dir_all(&dir)
            .map_err(|e| io_error("could not create directory", &dir, e))?;
        self.twophase.max = max;
        self.twophase.dir = Some(dir.clone());
        let mut restored = Vec::new();
        for entry in
            std::fs::read_dir(&dir).map_err(|e| io_error("could not open directory", &dir, e))?
        {
            let path = entry.map_err(|e| io_error("could not read directory", &dir, e))?.path();
            if path.extension().is_some() {
                let _ = std::fs::remove_file(&path); // a temporary file of an unfinished PREPARE
                continue;
            }
            let text = std::fs::read_to_string(&path)
                .map_err(|e| io_error("could not read file", &path, e))?;
            let state = decode_state(&text).ok_or_else(|| TxnError::Io {
                context: format!("invalid two-phase state file \"{}\"", path.display()),
                source: std::io::Error::from(std::io::ErrorKind::InvalidData),
            })?;
            if self.clog.status(state.info.xid)? != XidStatus::InProgress {
                let _ = std::fs::remove_file(&path); // ended just before a crash
                continue;
            }
            restored.push(state);
        }
        if let Some(oldest) = restored.iter().map(|p| p.info.xid).min() {
            let prepared: Vec<Xid> = restored
                .iter()
                .flat_map(|p| std::iter::once(p.info.xid).chain(p.subxids.clone()))
                .collect();
            self.csnlog_cover_from(oldest, &prepared)?;
        }
        for mut state in restored {
            state.proc = self.adopt(&state, Csn::FIRST)?;
            let owner = LockOwner { proc: state.proc, pid: 0 };
            for &(tag, mode) in &state.locks {
                let never = || false;
                let params = LockWaitParams { nowait: true, ..LockWaitParams::new(&never) };
                // Nobody else runs yet: every lock is granted.
                let _ = self.locks.acquire(owner, tag, mode, &params);
            }
            self.twophase.prepared.lock().push(state);
        }
        Ok(())
    }

    /// Lets the CSN log answer for ids from `oldest` on (see the module doc):
    /// finished ones from the commit log, `prepared` ones in progress.
    fn csnlog_cover_from(&self, oldest: Xid, prepared: &[Xid]) -> Result<()> {
        let end = self.next_xid();
        // Ids committed before the restart precede every snapshot taken since.
        self.next_csn.fetch_max(Csn::FIRST.0 + 1, std::sync::atomic::Ordering::SeqCst);
        self.csnlog.lower_base(oldest);
        let mut xid = oldest;
        while xid < end {
            self.csnlog.extend(xid);
            let csn = if prepared.contains(&xid) {
                Csn::IN_PROGRESS
            } else if self.clog.status(xid)? == XidStatus::Committed {
                Csn::FIRST
            } else {
                Csn::ABORTED
            };
            self.csnlog.set(xid, csn);
            xid = Xid(xid.0 + 1);
        }
        Ok(())
    }

    /// adopt -- a dummy proc slot publishing prepared transaction `p` as
    /// running, with a snapshot at `csn` that holds the horizon back.
    fn adopt(&self, p: &Prepared, csn: Csn) -> Result<ProcId> {
        let proc = self.procarray.register(0).ok_or(TxnError::TooManyClients)?;
        let _exclusive = self.procarray.exclusive();
        self.procarray.set_xid(proc, p.info.xid);
        self.procarray.set_snapshot(proc, p.info.xid, csn);
        self.procarray.set_subxact_count(proc, p.subxids.len());
        Ok(proc)
    }

    /// The prepared transactions (`pg_prepared_xacts`).
    pub fn prepared_xacts(&self) -> Vec<PreparedInfo> {
        self.twophase.prepared.lock().iter().map(|p| p.info.clone()).collect()
    }

    /// finish_prepared -- COMMIT PREPARED (`commit`) or ROLLBACK PREPARED
    /// `gid`, run from a session in database `database`.
    pub fn finish_prepared(
        &self,
        gid: &str,
        commit: bool,
        database: u32,
    ) -> std::result::Result<Result<()>, TwoPhaseError> {
        let (xid, subxids, proc) = {
            let mut list = self.twophase.prepared.lock();
            let Some(p) = list.iter_mut().find(|p| p.info.gid == gid && !p.busy) else {
                return Err(refused(
                    "42704",
                    format!("prepared transaction with identifier \"{gid}\" does not exist"),
                    None,
                ));
            };
            if p.info.database != database {
                return Err(refused(
                    "0A000",
                    "prepared transaction belongs to another database".into(),
                    Some(
                        "Connect to the database where the transaction was prepared to finish it."
                            .into(),
                    ),
                ));
            }
            p.busy = true;
            (p.info.xid, p.subxids.clone(), p.proc)
        };
        Ok(self.end_prepared(xid, &subxids, proc, commit))
    }

    /// Ends prepared transaction `xid` as a commit or rollback would, then
    /// forgets it.
    fn end_prepared(&self, xid: Xid, subxids: &[Xid], proc: ProcId, commit: bool) -> Result<()> {
        let xids: Vec<Xid> = std::iter::once(xid).chain(subxids.iter().copied()).collect();
        let result = if commit {
            let _barrier = self.commit_barrier.read();
            let logged = self
                .log_end(xid, subxids, XLOG_XACT_COMMIT)
                .and_then(|end| Ok(self.wal.flush(end)?));
            logged.and(self.finish(proc, &xids, Outcome::Committed))
        } else {
            let logged = self
                .log_end(xid, subxids, XLOG_XACT_ABORT)
                .and_then(|end| Ok(self.wal.flush(end)?));
            logged.and(self.finish(proc, &xids, Outcome::Aborted))
        };
        self.procarray.unregister(proc);
        if let Some(dir) = &self.twophase.dir {
            let _ = std::fs::remove_file(dir.join(state_file_name(xid)));
        }
        self.twophase.prepared.lock().retain(|p| p.info.xid != xid);
        result
    }
}

impl Transaction {
    /// prepare -- PREPARE TRANSACTION: the transaction leaves this session and
    /// stays in progress, durable, holding its locks, until COMMIT or
    /// ROLLBACK PREPARED (see the module doc). On refusal the transaction is
    /// handed back for the caller to roll back.
    pub fn prepare(
        mut self,
        cx: &PrepareContext<'_>,
    ) -> std::result::Result<Result<()>, Box<(Transaction, TwoPhaseError)>> {
        let mgr = self.backend.mgr.clone();
        let twophase = &mgr.twophase;
        if twophase.max == 0 {
            let hint = "Set max_prepared_transactions to a nonzero value.".to_string();
            let message = "prepared transactions are disabled".to_string();
            return Err(Box::new((self, refused("55000", message, Some(hint)))));
        }
        if mgr.locks.holds_at_both_levels(self.backend.proc) {
            let message = "cannot PREPARE while holding both session-level and transaction-level \
                           locks on the same object"
                .to_string();
            return Err(Box::new((self, refused("0A000", message, None))));
        }
        let mut list = twophase.prepared.lock();
        if list.iter().any(|p| p.info.gid == cx.gid) {
            let message = format!("transaction identifier \"{}\" is already in use", cx.gid);
            return Err(Box::new((self, refused("42710", message, None))));
        }
        if list.len() >= twophase.max {
            let hint = format!("Increase max_prepared_transactions (currently {}).", twophase.max);
            let message = "maximum number of prepared transactions reached".to_string();
            return Err(Box::new((self, refused("53200", message, Some(hint)))));
        }
        let xid = self.assign_top_xid();
        let mut state = Prepared {
            info: PreparedInfo {
                xid,
                gid: cx.gid.to_string(),
                prepared_at: now_micros(),
                owner: cx.owner.to_string(),
                database: cx.database,
            },
            subxids: self.own_subxids.to_vec(),
            locks: mgr.locks.transaction_locks(self.backend.proc),
            proc: 0,
            busy: false,
        };
        let durable = mgr
            .wal
            .flush(mgr.wal.insert_lsn())
            .map_err(TxnError::from)
            .and_then(|()| mgr.write_state(&state));
        if let Err(e) = durable {
            drop(list);
            self.rollback();
            return Ok(Err(e));
        }
        let csn = self
            .snapshot
            .map_or(Csn(mgr.next_csn.load(std::sync::atomic::Ordering::SeqCst)), |s| s.csn);
        let proc = match mgr.adopt(&state, csn) {
            Ok(proc) => proc,
            Err(e) => return Err(Box::new((self, refused(e.sqlstate(), e.to_string(), None)))),
        };
        mgr.locks.transfer_all(self.backend.proc, LockOwner { proc, pid: 0 });
        {
            let _exclusive = mgr.procarray.exclusive();
            mgr.procarray.clear_xid(self.backend.proc);
            mgr.procarray.set_snapshot(self.backend.proc, Xid::INVALID, Csn(0));
            mgr.procarray.set_subxact_count(self.backend.proc, 0);
        }
        state.proc = proc;
        list.push(state);
        self.ended = true;
        Ok(Ok(()))
    }
}

impl TransactionManager {
    /// write_state -- the state file of `p`, durably (see the module doc).
    fn write_state(&self, p: &Prepared) -> Result<()> {
        let Some(dir) = &self.twophase.dir else { return Ok(()) };
        let path = dir.join(state_file_name(p.info.xid));
        let tmp = path.with_extension("tmp");
        let mut file =
            std::fs::File::create(&tmp).map_err(|e| io_error("could not create file", &tmp, e))?;
        file.write_all(encode_state(p).as_bytes())
            .and_then(|_| file.sync_all())
            .map_err(|e| io_error("could not write file", &tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| io_error("could not rename file", &tmp, e))?;
        std::fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| io_error("could not fsync directory", dir, e))
    }
}

fn io_error(what: &str, path: &Path, source: std::io::Error) -> TxnError {
    TxnError::Io { context: format!("{what} \"{}\"", path.display()), source }
}

fn state_file_name(xid: Xid) -> String {
    format!("{:016X}", xid.0)
}

fn hex(s: &str) -> String {
    s.bytes().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<String> {
    let bytes: Option<Vec<u8>> = (0..s.len())
        .step_by(2)
        .map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
        .collect();
    String::from_utf8(bytes?).ok()
}

/// The state file's text: one `key value...` line per field and lock.
fn encode_state(p: &Prepared) -> String {
    let i = &p.info;
    let subxids: Vec<String> = p.subxids.iter().map(|x| x.0.to_string()).collect();
    let mut out = format!(
        "xid {}\ngid {}\nprepared {}\nowner {}\ndatabase {}\nsubxids {}\n",
        i.xid.0,
        hex(&i.gid),
        i.prepared_at,
        hex(&i.owner),
        i.database,
        subxids.join(",")
    );
    for (tag, mode) in &p.locks {
        let fields = match *tag {
            LockTag::Relation { database, relation } => format!("relation {database} {relation}"),
            LockTag::TransactionId(x) => format!("transactionid {}", x.0),
            LockTag::Tuple { database, relation, block, offset } => {
                format!("tuple {database} {relation} {block} {offset}")
            }
            LockTag::Object { database, classid, objid, objsubid } => {
                format!("object {database} {classid} {objid} {objsubid}")
            }
            LockTag::Advisory { database, key1, key2, form } => {
                format!("advisory {database} {key1} {key2} {form}")
            }
        };
        out.push_str(&format!("lock {} {fields}\n", *mode as u8));
    }
    out
}

fn decode_lock(fields: &[&str]) -> Option<(LockTag, LockMode)> {
    let number: u8 = fields.first()?.parse().ok()?;
    let mode = *LockMode::ALL.iter().find(|m| **m as u8 == number)?;
    let n = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok());
    let tag = match *fields.get(1)? {
        "relation" => LockTag::Relation { database: n(2)? as u32, relation: n(3)? as u32 },
        "transactionid" => LockTag::TransactionId(Xid(n(2)?)),
        "tuple" => LockTag::Tuple {
            database: n(2)? as u32,
            relation: n(3)? as u32,
            block: n(4)? as u32,
            offset: n(5)? as u16,
        },
        "object" => LockTag::Object {
            database: n(2)? as u32,
            classid: n(3)? as u32,
            objid: n(4)? as u32,
            objsubid: fields.get(5)?.parse().ok()?,
        },
        "advisory" => LockTag::Advisory {
            database: n(2)? as u32,
            key1: n(3)? as u32,
            key2: n(4)? as u32,
            form: n(5)? as u16,
        },
        _ => return None,
    };
    Some((tag, mode))
}

fn decode_state(text: &str) -> Option<Prepared> {
    let mut info = PreparedInfo {
        xid: Xid::INVALID,
        gid: String::new(),
        prepared_at: 0,
        owner: String::new(),
        database: 0,
    };
    let (mut subxids, mut locks) = (Vec::new(), Vec::new());
    for line in text.lines() {
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        match key {
            "xid" => info.xid = Xid(rest.parse().ok()?),
            "gid" => info.gid = unhex(rest)?,
            "prepared" => info.prepared_at = rest.parse().ok()?,
            "owner" => info.owner = unhex(rest)?,
            "database" => info.database = rest.parse().ok()?,
            "subxids" => {
                subxids = rest
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(|s| s.parse().ok().map(Xid))
                    .collect::<Option<_>>()?
            }
            "lock" => locks.push(decode_lock(&rest.split(' ').collect::<Vec<_>>())?),
            _ => return None,
        }
    }
    info.xid.is_valid().then_some(Prepared { info, subxids, locks, proc: 0, busy: false })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_files_round_trip() {
        let p = Prepared {
            info: PreparedInfo {
                xid: Xid(77),
                gid: "g 1'x".into(),
                prepared_at: 5,
                owner: "postgres".into(),
                database: 5,
            },
            subxids: vec![Xid(78), Xid(80)],
            locks: vec![
                (LockTag::Relation { database: 5, relation: 16384 }, LockMode::AccessExclusive),
                (LockTag::TransactionId(Xid(77)), LockMode::Exclusive),
                (
                    LockTag::Object { database: 5, classid: 1, objid: 2, objsubid: -1 },
                    LockMode::Share,
                ),
            ],
            proc: 0,
            busy: false,
        };
        let back = decode_state(&encode_state(&p)).unwrap();
        assert_eq!(back.info, p.info);
        assert_eq!(back.subxids, p.subxids);
        assert_eq!(back.locks, p.locks);
        assert!(decode_state("xid x\n").is_none());
    }
}
