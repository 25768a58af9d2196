//! The engine: one data directory brought to life — buffer pool, WAL,
//! transaction manager, checkpointer and WAL writer (PostgreSQL's shared memory
//! plus the startup process, checkpointer and walwriter).
//!
//! # Data directory
//!
//! ```text
//!  sluice-data/
//!    global/pg_control       control file: state, last checkpoint, next xid/oid
//!    global/<relfilenode>    shared relations
//!    base/<db oid>/<relfilenode>[_fsm|_vm][.N]   relation forks, 1 GB segments
//!    pg_wal/<24 hex digits>  WAL segments, 16 MB each
//!    pg_xact/<12 hex digits> commit log segments
//!    pg_stat/pgstat.stat     statistics kept by a clean shutdown (`pgstat`)
//! ```
//!
//! # Checkpoints
//!
//! A checkpoint fixes a redo point (the current end of WAL, taken while no
//! commit is between its WAL record and its commit log update), writes every
//! dirty buffer and commit log page, fsyncs the relation files, then logs a
//! checkpoint record and points the control file at it. WAL before the redo point
//! is no longer needed for crash recovery and its segments are removed. From the
//! redo point on, the first change to each page logs a full image of it, so a
//! page torn by a crash mid-write is restored whole.
//!
//! Checkpoints run every `checkpoint_timeout`, when WAL since the last one
//! exceeds about half of `max_wal_size` (PostgreSQL's trigger with the default
//! completion target), on request, at shutdown, and after crash recovery.
//!
//! Locking: `checkpoint_lock` serialises checkpoints; the OID counter has its
//! own mutex; everything else is the layers' own business.

use crate::catcache::CatCache;
use crate::error::Result;
use crate::pgstat::PgStat;
use crate::recovery;
use crate::xlog_records::*;
use parking_lot::{Condvar, Mutex};
use sluice_common::{ForkNumber, Lsn, Oid, RelFileLocator, RmgrId, Xid};
use sluice_storage::buffer::BufferPool;
use sluice_storage::smgr::Smgr;
use sluice_txn::{Clog, MultiXactId, MultiXacts, SynchronousCommit, TransactionManager};
use sluice_wal::{
    ControlFile, DbState, RecordBuilder, Wal, WalOptions, WalWriterHandle, FIRST_LSN,
};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The first OID handed to user objects (PostgreSQL's FirstNormalObjectId).
pub const FIRST_NORMAL_OBJECT_ID: Oid = 16384;

/// OIDs reserved per NEXTOID record (PostgreSQL's VAR_OID_PREFETCH).
const OID_PREFETCH: Oid = 8192;

/// Settings the engine needs (the GUCs of the same names).
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// `shared_buffers`, in bytes.
    pub shared_buffers: usize,
    /// `wal_buffers`, in bytes.
    pub wal_buffers: usize,
    /// Proc array slots (`max_connections` plus background workers).
    pub max_backends: usize,
    /// `checkpoint_timeout`.
    pub checkpoint_timeout: Duration,
    /// `max_wal_size`, in bytes.
    pub max_wal_size: u64,
    /// `wal_writer_delay`.
    pub wal_writer_delay: Duration,
    /// `synchronous_commit`.
    pub synchronous_commit: SynchronousCommit,
    /// `max_prepared_transactions` (each gets a proc array slot too).
    pub max_prepared_transactions: usize,
}

impl Default for EngineConfig {
    fn default() -> EngineConfig {
        EngineConfig {
            shared_buffers: 128 * 1024 * 1024,
            wal_buffers: 16 * 1024 * 1024,
            max_backends: 128,
            checkpoint_timeout: Duration::from_secs(300),
            max_wal_size: 1024 * 1024 * 1024,
            wal_writer_delay: Duration::from_millis(200),
            synchronous_commit: SynchronousCommit::On,
            max_prepared_transactions: 0,
        }
    }
}

/// What a checkpoint did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckpointStats {
    /// Where the checkpoint record starts.
    pub location: Lsn,
    /// Its redo point.
    pub redo: Lsn,
    /// Dirty buffers written.
    pub buffers_written: usize,
    /// WAL segments removed.
    pub segments_removed: usize,
}

/// A running storage engine over one data directory. See the module doc.
pub struct Engine {
    data_dir: PathBuf,
    config: EngineConfig,
    pool: BufferPool,
    wal: Arc<Wal>,
    txns: Arc<TransactionManager>,
    control: Mutex<ControlFile>,
    checkpoint_lock: Mutex<()>,
    /// (next OID to hand out, first OID not yet covered by a NEXTOID record).
    oids: Mutex<(Oid, Oid)>,
    /// Per relation, the page inserts try first (PostgreSQL's rd_targblock).
    target_blocks: Mutex<HashMap<RelFileLocator, u32>>,
    background: Mutex<Option<Background>>,
    /// Records replayed at startup (0 after a clean shutdown).
    recovered_records: u64,
    /// Visible catalog tuples shared by all sessions.
    catcache: CatCache,
    /// Files replaced by a committed transaction (xid) that a snapshot
    /// older than it may still read (see [`Engine::unlink_when_unseen`]).
    unseen_unlinks: Mutex<Vec<(RelFileLocator, Xid)>>,
    /// Cumulative statistics (`pg_stat_*_tables`), kept across clean
    /// shutdowns only.
    stats: PgStat,
}

/// The engine's background threads.
struct Background {
    wal_writer: WalWriterHandle,
    checkpointer: std::thread::JoinHandle<()>,
    stop: Arc<(Mutex<bool>, Condvar)>,
}

fn unix_time() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

fn create_layout(data_dir: &Path) -> Result<()> {
    for sub in ["global", "base", "pg_wal", "pg_xact"] {
        let dir = data_dir.join(sub);
        std::fs::create_dir_all(&dir).map_err(|e| {
            sluice_storage::StorageError::io(
                format!("could not create directory \"{}\"", dir.display()),
                e,
            )
        })?;
    }
    Ok(())
}

/// bootstrap -- writes the first checkpoint and control file of a new cluster
/// (the part of initdb below SQL).
fn bootstrap(data_dir: &Path) -> Result<ControlFile> {
    let wal = Wal::open(
        &data_dir.join("pg_wal"),
        FIRST_LSN,
        Lsn::INVALID,
        FIRST_LSN,
        WalOptions::default(),
    )?;
    let checkpoint = CheckpointData {
        redo: FIRST_LSN,
        next_xid: Xid::FIRST_NORMAL,
        next_oid: FIRST_NORMAL_OBJECT_ID,
        time: unix_time(),
        next_multi: MultiXactId::FIRST.0,
        next_multi_offset: 0,
    };
    let record = RecordBuilder::new(RmgrId::Xlog, XLOG_CHECKPOINT_SHUTDOWN, Xid::INVALID)
        .with_main_data(checkpoint.encode());
    let (start, end) = wal.insert_at(&record)?;
    wal.flush(end)?;
    let nanos =
        SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0);
    let control = ControlFile {
        system_identifier: nanos ^ ((std::process::id() as u64) << 48),
        state: DbState::ShutDown,
        checkpoint: start,
        redo: FIRST_LSN,
        next_xid: Xid::FIRST_NORMAL,
        next_oid: FIRST_NORMAL_OBJECT_ID,
        time: checkpoint.time,
    };
    control.write(data_dir)?;
    Ok(control)
}

impl Engine {
    /// open -- starts the engine on `data_dir`, creating a new cluster there if
    /// it has no control file, and recovering from a crash if it was not shut
    /// down cleanly.
    pub fn open(data_dir: &Path, config: EngineConfig) -> Result<Arc<Engine>> {
        create_layout(data_dir)?;
        let mut control = match ControlFile::read(data_dir)? {
            Some(c) => c,
            None => bootstrap(data_dir)?,
        };
        let crashed = control.state != DbState::ShutDown;
        if crashed {
            control.state = DbState::InCrashRecovery;
            control.write(data_dir)?;
        }
        let smgr = Arc::new(Smgr::new(data_dir));
        let pool = BufferPool::new(smgr, config.shared_buffers / sluice_common::BLCKSZ);
        let clog = Arc::new(Clog::open(data_dir)?);
        let multixacts = Arc::new(MultiXacts::open(data_dir, MultiXactId::FIRST, 0)?);
        let outcome = recovery::replay(data_dir, &control, &pool, &clog, &multixacts)?;
        let wal = Arc::new(Wal::open(
            &data_dir.join("pg_wal"),
            outcome.end_of_log,
            outcome.last_record,
            outcome.redo,
            WalOptions { wal_buffers: config.wal_buffers },
        )?);
        pool.set_wal(wal.clone());
        let mut txns = TransactionManager::new(
            clog,
            wal.clone(),
            outcome.next_xid,
            config.max_backends + config.max_prepared_transactions,
        );
        txns.restore_prepared(data_dir, config.max_prepared_transactions)?;
        txns.attach_multixacts(multixacts);
        let txns = Arc::new(txns);
        txns.set_synchronous_commit(config.synchronous_commit);
        let engine = Arc::new(Engine {
            data_dir: data_dir.to_path_buf(),
            config,
            pool,
            wal,
            txns,
            control: Mutex::new(control),
            checkpoint_lock: Mutex::new(()),
            oids: Mutex::new((outcome.next_oid, outcome.next_oid)),
            target_blocks: Mutex::new(HashMap::new()),
            background: Mutex::new(None),
            recovered_records: outcome.records,
            catcache: CatCache::default(),
            unseen_unlinks: Mutex::new(Vec::new()),
            stats: PgStat::open(data_dir, crashed),
        });
        if crashed || outcome.records > 1 {
            engine.checkpoint()?;
        } else {
            engine.set_state(DbState::InProduction)?;
        }
        engine.start_background()?;
        Ok(engine)
    }

    /// The data directory.
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// The settings the engine runs with.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// The buffer pool.
    pub fn pool(&self) -> &BufferPool {
        &self.pool
    }

    /// The WAL.
    pub fn wal(&self) -> &Arc<Wal> {
        &self.wal
    }

    /// The transaction manager.
    pub fn txns(&self) -> &Arc<TransactionManager> {
        &self.txns
    }

    /// The catalog cache.
    pub fn catcache(&self) -> &CatCache {
        &self.catcache
    }

    /// The cumulative statistics.
    pub fn stats(&self) -> &PgStat {
        &self.stats
    }

    /// Records replayed by crash recovery at startup.
    pub fn recovered_records(&self) -> u64 {
        self.recovered_records
    }

    /// A copy of the control file as last written.
    pub fn control_file(&self) -> ControlFile {
        *self.control.lock()
    }

    fn set_state(&self, state: DbState) -> Result<()> {
        let mut control = self.control.lock();
        control.state = state;
        control.time = unix_time();
        control.write(&self.data_dir)?;
        Ok(())
    }

    /// new_oid -- hands out the next OID, logging a NEXTOID record each time a
    /// new batch is started so that a crash never hands one out twice.
    pub fn new_oid(&self) -> Result<Oid> {
        let mut oids = self.oids.lock();
        if oids.0 < FIRST_NORMAL_OBJECT_ID {
            oids.0 = FIRST_NORMAL_OBJECT_ID;
        }
        if oids.0 >= oids.1 {
            let until = oids.0 + OID_PREFETCH;
            let record = RecordBuilder::new(RmgrId::Xlog, XLOG_NEXTOID, Xid::INVALID)
                .with_main_data(encode_next_oid(until));
            self.wal.insert(&record)?;
            oids.1 = until;
        }
        let oid = oids.0;
        oids.0 += 1;
        Ok(oid)
    }

    /// create_relation_fork -- creates a relation fork's file, WAL-logged so that
    /// recovery re-creates it.
    pub fn create_relation_fork(&self, rel: RelFileLocator, fork: ForkNumber) -> Result<()> {
        let record = RecordBuilder::new(RmgrId::Smgr, XLOG_SMGR_CREATE, Xid::INVALID)
            .with_main_data(encode_smgr_create(rel, fork));
        self.wal.insert(&record)?;
        self.pool.smgr().create(rel, fork)?;
        Ok(())
    }

    /// unlink_when_unseen -- removes `rel`'s files once no snapshot older
    /// than committed transaction `xid` remains. VACUUM FULL, CLUSTER and
    /// REINDEX give a relation a new file whose contents are the old one's
    /// (for every snapshot): a REPEATABLE READ snapshot older than the swap
    /// still reads the old `pg_class` row, and so the old file, until it
    /// ends. A crash forgets the list; the files then only waste space.
    pub fn unlink_when_unseen(&self, rel: RelFileLocator, xid: Xid) {
        self.unseen_unlinks.lock().push((rel, xid));
        self.sweep_unseen();
    }

    /// sweep_unseen -- removes the files [`Engine::unlink_when_unseen`]
    /// kept whose replacing transaction every snapshot now sees committed
    /// (it is older than every snapshot's xmin). Called at transaction end.
    pub fn sweep_unseen(&self) {
        let mut pending = self.unseen_unlinks.lock();
        if pending.is_empty() {
            return;
        }
        let horizon = self.txns.horizon().xmin;
        pending.retain(|&(rel, xid)| {
            if xid >= horizon {
                return true;
            }
            for fork in ForkNumber::ALL {
                self.pool.drop_relation_buffers(rel, fork, 0);
            }
            // A file that cannot be removed only wastes space.
            let _ = self.pool.smgr().unlink(rel);
            false
        });
    }

    /// The page inserts into `rel` should try first, if any.
    pub(crate) fn target_block(&self, rel: RelFileLocator) -> Option<u32> {
        self.target_blocks.lock().get(&rel).copied()
    }

    /// Remembers the page inserts into `rel` should try first.
    pub(crate) fn set_target_block(&self, rel: RelFileLocator, block: Option<u32>) {
        let mut targets = self.target_blocks.lock();
        match block {
            Some(b) => targets.insert(rel, b),
            None => targets.remove(&rel),
        };
    }

    /// checkpoint -- performs a checkpoint now (see the module doc).
    pub fn checkpoint(&self) -> Result<CheckpointStats> {
        self.checkpoint_as(XLOG_CHECKPOINT_ONLINE, DbState::InProduction)
    }

    fn checkpoint_as(&self, info: u8, state: DbState) -> Result<CheckpointStats> {
        let _serialised = self.checkpoint_lock.lock();
        let redo = {
            let _no_commit_in_flight = self.txns.block_commits();
            self.wal.begin_checkpoint()
        };
        let buffers_written = self.pool.flush_all()?;
        self.txns.clog().flush()?;
        // The counters are read before the pages are written: a multi created
        // in between is past the redo point, and its record raises them again.
        let (next_multi, next_multi_offset) = self.txns.multixacts()?.next();
        self.txns.multixacts()?.flush()?;
        self.pool.smgr().sync_dirty()?;
        let data = CheckpointData {
            redo,
            next_xid: self.txns.next_xid(),
            next_oid: self.oids.lock().1.max(FIRST_NORMAL_OBJECT_ID),
            time: unix_time(),
            next_multi: next_multi.0,
            next_multi_offset,
        };
        let record =
            RecordBuilder::new(RmgrId::Xlog, info, Xid::INVALID).with_main_data(data.encode());
        let (location, end) = self.wal.insert_at(&record)?;
        self.wal.flush(end)?;
        {
            let mut control = self.control.lock();
            control.checkpoint = location;
            control.redo = redo;
            control.next_xid = data.next_xid;
            control.next_oid = data.next_oid;
            control.state = state;
            control.time = data.time;
            control.write(&self.data_dir)?;
        }
        let segments_removed = self.wal.remove_segments_before(redo)?;
        Ok(CheckpointStats { location, redo, buffers_written, segments_removed })
    }

    fn start_background(self: &Arc<Self>) -> Result<()> {
        let wal_writer = self.wal.start_background_writer(self.config.wal_writer_delay)?;
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let weak = Arc::downgrade(self);
        let stop_flag = stop.clone();
        let checkpointer = std::thread::Builder::new()
            .name("checkpointer".into())
            .spawn(move || checkpointer_main(weak, stop_flag))
            .map_err(|e| sluice_storage::StorageError::io("could not start the checkpointer", e))?;
        *self.background.lock() = Some(Background { wal_writer, checkpointer, stop });
        Ok(())
    }

    /// Whether the checkpointer and the WAL writer threads are running
    /// (from open until [`Engine::shutdown`]).
    pub fn runs_background_processes(&self) -> bool {
        self.background.lock().is_some()
    }

    /// shutdown -- stops the background threads and writes a shutdown checkpoint,
    /// after which the next start needs no recovery. The caller has ended every
    /// session first.
    pub fn shutdown(&self) -> Result<()> {
        if let Some(bg) = self.background.lock().take() {
            *bg.stop.0.lock() = true;
            bg.stop.1.notify_all();
            let _ = bg.checkpointer.join();
            bg.wal_writer.stop()?;
        }
        // Statistics are advisory: failing to keep them must not stop the
        // shutdown checkpoint (the next start then begins from zero).
        if let Err(e) = self.stats.save(&self.data_dir) {
            eprintln!("LOG:  could not write statistics file: {e}");
        }
        self.checkpoint_as(XLOG_CHECKPOINT_SHUTDOWN, DbState::ShutDown)?;
        Ok(())
    }

    /// Whether enough WAL was written since the last redo point to warrant a
    /// checkpoint (about half of `max_wal_size`, as PostgreSQL with
    /// checkpoint_completion_target 0.9).
    fn wal_volume_due(&self) -> bool {
        let since = self.wal.insert_lsn().0.saturating_sub(self.wal.redo_ptr().0);
        since as f64 >= self.config.max_wal_size as f64 / 1.9
    }
}

/// The checkpointer thread: wakes every second to see whether a checkpoint is
/// due by time or by WAL volume (and to trim the CSN log). Holds only a weak reference, so dropping the
/// engine ends it.
fn checkpointer_main(engine: Weak<Engine>, stop: Arc<(Mutex<bool>, Condvar)>) {
    let mut last = Instant::now();
    loop {
        {
            let mut stopped = stop.0.lock();
            if *stopped {
                return;
            }
            stop.1.wait_for(&mut stopped, Duration::from_secs(1));
            if *stopped {
                return;
            }
        }
        let Some(engine) = engine.upgrade() else { return };
        // Computing the horizon also lets the CSN log drop what no snapshot
        // can ask about any more, keeping it small without a thread of its own.
        engine.txns().horizon();
        if last.elapsed() >= engine.config.checkpoint_timeout || engine.wal_volume_due() {
            // A failed checkpoint is retried at the next tick; the previous one
            // stays valid, so nothing is lost meanwhile.
            let _ = engine.checkpoint();
            last = Instant::now();
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if let Some(bg) = self.background.get_mut().take() {
            *bg.stop.0.lock() = true;
            bg.stop.1.notify_all();
            let _ = bg.wal_writer.stop();
        }
    }
}
