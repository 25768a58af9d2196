//! Buffer descriptors, pinning, reading, eviction and flushing. See the module
//! doc of `buffer` for the rules.

use super::buf_table::BufTable;
use super::freelist::{BufferAccessStrategy, ClockHand, MAX_USAGE_COUNT};
use super::usage;
use crate::error::{Result, StorageError};
use crate::page::{set_checksum, verify_checksum, Page};
use crate::smgr::Smgr;
use parking_lot::{Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};
use sluice_common::{BlockNumber, ForkNumber, RelFileLocator};
use sluice_wal::Wal;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// The identity of a page: which block of which fork of which relation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BufferTag {
    /// The relation's files.
    pub rel: RelFileLocator,
    /// Which fork.
    pub fork: ForkNumber,
    /// Which block of the fork.
    pub block: BlockNumber,
}

impl BufferTag {
    /// The tag of `block` in `fork` of `rel`.
    pub fn new(rel: RelFileLocator, fork: ForkNumber, block: BlockNumber) -> BufferTag {
        BufferTag { rel, fork, block }
    }
}

/// The bookkeeping part of a descriptor, guarded by its header mutex (PostgreSQL
/// keeps these in one atomic word with a spinlock bit; a mutex is simpler and the
/// critical sections are a few instructions).
#[derive(Default)]
struct BufHeader {
    /// The page this frame holds, if any.
    tag: Option<BufferTag>,
    /// Number of pins; a frame with pins is never evicted.
    refcount: u32,
    /// Recent-use counter for clock sweep (0..=MAX_USAGE_COUNT).
    usage: u8,
    /// The page differs from its on-disk copy.
    dirty: bool,
    /// The page bytes are the page named by `tag` (its read completed).
    valid: bool,
}

/// One frame: bookkeeping plus the page under its content lock.
struct BufferDesc {
    header: Mutex<BufHeader>,
    content: RwLock<Page>,
}

/// How [`BufferPool::read_buffer_mode`] fills a frame for a page not in the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadMode {
    /// Read the page from disk and verify it.
    Normal,
    /// Do not read: the caller is about to initialise the page from scratch
    /// (relation extension, redo of a record that re-creates the page).
    Zero,
}

/// Counters for monitoring and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BufferPoolStats {
    /// Lookups satisfied from the pool.
    pub hits: u64,
    /// Pages read from disk.
    pub reads: u64,
    /// Dirty pages written to disk.
    pub writes: u64,
    /// Blocks added to relations.
    pub extends: u64,
}

/// The shared buffer pool. See the module doc.
pub struct BufferPool {
    descs: Box<[BufferDesc]>,
    table: BufTable,
    clock: ClockHand,
    smgr: Arc<Smgr>,
    /// Set once WAL is open for writing; unset during recovery, when every record
    /// that stamped a page was read from the log on disk and needs no flush.
    wal: OnceLock<Arc<Wal>>,
    hits: AtomicU64,
    reads: AtomicU64,
    writes: AtomicU64,
    extends: AtomicU64,
}

/// A pinned page. Dropping it unpins. Lock the content with [`Buffer::read`] or
/// [`Buffer::write`].
pub struct Buffer<'a> {
    pool: &'a BufferPool,
    id: usize,
    tag: BufferTag,
}

/// An exclusive content lock on a pinned page. Changes made through it must be
/// followed by [`BufferWriteGuard::mark_dirty`] before the guard is dropped.
pub struct BufferWriteGuard<'a> {
    guard: RwLockWriteGuard<'a, Page>,
    desc: &'a BufferDesc,
}

impl BufferPool {
    /// A pool of `nbuffers` frames over the relation files of `smgr`.
    pub fn new(smgr: Arc<Smgr>, nbuffers: usize) -> BufferPool {
        let nbuffers = nbuffers.max(16);
        BufferPool {
            descs: (0..nbuffers)
                .map(|_| BufferDesc {
                    header: Mutex::new(BufHeader::default()),
                    content: RwLock::new(Page::default()),
                })
                .collect(),
            table: BufTable::new(nbuffers),
            clock: ClockHand::new(nbuffers),
            smgr,
            wal: OnceLock::new(),
            hits: AtomicU64::new(0),
            reads: AtomicU64::new(0),
            writes: AtomicU64::new(0),
            extends: AtomicU64::new(0),
        }
    }

    /// Enables the WAL-before-data rule: from now on every page write first
    /// flushes WAL up to the page's LSN. Called once recovery has finished.
    pub fn set_wal(&self, wal: Arc<Wal>) {
        let _ = self.wal.set(wal);
    }

    /// The storage manager underneath.
    pub fn smgr(&self) -> &Arc<Smgr> {
        &self.smgr
    }

    /// Number of frames.
    pub fn nbuffers(&self) -> usize {
        self.descs.len()
    }

    /// Counters since start.
    pub fn stats(&self) -> BufferPoolStats {
        BufferPoolStats {
            hits: self.hits.load(Ordering::Relaxed),
            reads: self.reads.load(Ordering::Relaxed),
            writes: self.writes.load(Ordering::Relaxed),
            extends: self.extends.load(Ordering::Relaxed),
        }
    }

    /// read_buffer -- pins the page `tag`, reading it from disk if it is not in
    /// the pool (PostgreSQL's ReadBuffer).
    pub fn read_buffer(&self, tag: BufferTag) -> Result<Buffer<'_>> {
        self.read_buffer_mode(tag, ReadMode::Normal)
    }

    /// read_buffer_mode -- as [`BufferPool::read_buffer`], choosing how a page
    /// not in the pool is filled.
    pub fn read_buffer_mode(&self, tag: BufferTag, mode: ReadMode) -> Result<Buffer<'_>> {
        self.read_buffer_ext(tag, mode, None)
    }

    /// read_buffer_strategy -- as [`BufferPool::read_buffer`], for one page of a
    /// bulk read: a page not in the pool goes into `strategy`'s ring, and a hit
    /// does not make the page look popular (see `freelist.rs`).
    pub fn read_buffer_strategy(
        &self,
        tag: BufferTag,
        strategy: &mut BufferAccessStrategy,
    ) -> Result<Buffer<'_>> {
        self.read_buffer_ext(tag, ReadMode::Normal, Some(strategy))
    }

    /// read_buffer_ext -- pins `tag`, filling a frame for it as `mode` says if it
    /// is not in the pool; with a strategy, as that strategy says (PostgreSQL's
    /// ReadBufferExtended).
    fn read_buffer_ext(
        &self,
        tag: BufferTag,
        mode: ReadMode,
        strategy: Option<&mut BufferAccessStrategy>,
    ) -> Result<Buffer<'_>> {
        let id = self.pin_or_load(tag, strategy)?;
        let buffer = Buffer { pool: self, id, tag };
        self.ensure_valid(id, tag, mode)?;
        Ok(buffer)
    }

    /// extend -- appends a new zero block to the fork and returns it pinned. Two
    /// backends extending at once get different blocks: the fork's extension lock
    /// is held while the block number is chosen and the file grown.
    pub fn extend(&self, rel: RelFileLocator, fork: ForkNumber) -> Result<Buffer<'_>> {
        let relfork = self.smgr.open(rel, fork)?;
        let block = {
            let _extension = relfork.extension.lock();
            let block = relfork.nblocks();
            relfork.extend_to(block + 1)?;
            block
        };
        self.extends.fetch_add(1, Ordering::Relaxed);
        self.read_buffer_mode(BufferTag::new(rel, fork, block), ReadMode::Zero)
    }

    /// Number of blocks in a fork (0 if it does not exist).
    pub fn nblocks(&self, rel: RelFileLocator, fork: ForkNumber) -> Result<BlockNumber> {
        self.smgr.nblocks(rel, fork)
    }

    /// Finds or assigns the frame for `tag` and returns it pinned. The page in it
    /// may not be valid yet; `ensure_valid` takes care of that.
    fn pin_or_load(
        &self,
        tag: BufferTag,
        mut strategy: Option<&mut BufferAccessStrategy>,
    ) -> Result<usize> {
        let partition = BufTable::partition_of(&tag);
        loop {
            if let Some(id) = self.pin_existing(tag, partition, strategy.is_some()) {
                self.hits.fetch_add(1, Ordering::Relaxed);
                usage::count(|u| u.shared_hit += 1);
                return Ok(id);
            }
            let victim = match strategy.as_deref_mut() {
                Some(ring) => self.ring_victim(ring)?,
                None => self.take_victim()?,
            };
            if let Err(e) = self.flush_frame(victim) {
                self.unpin(victim);
                return Err(e);
            }
            if self.retag(victim, tag, partition) {
                if let Some(ring) = strategy.as_deref_mut() {
                    ring.remember(victim);
                }
                return Ok(victim);
            }
            // Someone pinned or dirtied the victim meanwhile, or loaded our page
            // first: give the victim back and look again.
            self.unpin(victim);
        }
    }

    /// Pins the frame holding `tag`, if there is one. A bulk read (`bulk`) only
    /// lifts a zero usage count to one, so that a scan of a big table does not
    /// make all of it look popular.
    fn pin_existing(&self, tag: BufferTag, partition: usize, bulk: bool) -> Option<usize> {
        let map = self.table.lock(partition);
        let id = *map.get(&tag)?;
        let mut header = self.descs[id].header.lock();
        header.refcount += 1;
        header.usage =
            if bulk { header.usage.max(1) } else { (header.usage + 1).min(MAX_USAGE_COUNT) };
        Some(id)
    }

    /// ring_victim -- the next frame of `ring`, pinned once, if nobody pinned or
    /// used it since the ring last did and writing it needs no WAL flush;
    /// otherwise a frame from the clock sweep (which `pin_or_load` then puts in
    /// the ring's slot).
    fn ring_victim(&self, ring: &mut BufferAccessStrategy) -> Result<usize> {
        if let Some(id) = ring.advance() {
            let reusable = {
                let mut header = self.descs[id].header.lock();
                let reusable = header.refcount == 0 && header.usage <= 1;
                if reusable {
                    header.refcount = 1;
                }
                reusable
            };
            if reusable && !self.needs_wal_flush(id) {
                return Ok(id);
            }
            if reusable {
                self.unpin(id);
            }
            ring.forget();
        }
        self.take_victim()
    }

    /// Whether writing the page in pinned frame `id` would first have to flush
    /// WAL: it is dirty, and its LSN is past what is already on disk.
    fn needs_wal_flush(&self, id: usize) -> bool {
        let Some(wal) = self.wal.get() else { return false };
        let desc = &self.descs[id];
        // Header first and released: the content lock is taken before the
        // header's everywhere else, never while holding it.
        let dirty = desc.header.lock().dirty;
        dirty && desc.content.read().lsn() > wal.flushed_lsn()
    }

    /// Runs the clock sweep until it finds an unpinned frame with usage zero, and
    /// returns it pinned once.
    fn take_victim(&self) -> Result<usize> {
        for _ in 0..self.clock.give_up_after() {
            let id = self.clock.tick();
            let mut header = self.descs[id].header.lock();
            if header.refcount > 0 {
                continue;
            }
            if header.usage > 0 {
                header.usage -= 1;
                continue;
            }
            header.refcount = 1;
            return Ok(id);
        }
        Err(StorageError::NoUnpinnedBuffers)
    }

    /// Moves the pinned, clean `victim` from its old tag to `tag`. Fails (false)
    /// if anyone else pinned or dirtied it, or if `tag` got a frame meanwhile.
    fn retag(&self, victim: usize, tag: BufferTag, partition: usize) -> bool {
        let desc = &self.descs[victim];
        let old_tag = desc.header.lock().tag;
        let old_partition = old_tag.as_ref().map(BufTable::partition_of).unwrap_or(partition);
        let mut maps = self.table.lock_two(partition, old_partition);
        if maps.map(partition).contains_key(&tag) {
            return false;
        }
        let mut header = desc.header.lock();
        if header.refcount != 1 || header.dirty || header.tag != old_tag {
            return false;
        }
        if let Some(old) = old_tag {
            maps.map(old_partition).remove(&old);
        }
        maps.map(partition).insert(tag, victim);
        header.tag = Some(tag);
        header.valid = false;
        header.usage = 1;
        true
    }

    /// Makes the page in pinned frame `id` valid, reading it (or zeroing it) under
    /// the exclusive content lock if nobody has yet.
    fn ensure_valid(&self, id: usize, tag: BufferTag, mode: ReadMode) -> Result<()> {
        let desc = &self.descs[id];
        if desc.header.lock().valid {
            return Ok(());
        }
        let mut page = desc.content.write();
        if desc.header.lock().valid {
            return Ok(());
        }
        match mode {
            // PostgreSQL 15 counts a page added by extension as written.
            ReadMode::Zero => {
                page.as_bytes_mut().fill(0);
                usage::count(|u| u.shared_written += 1);
            }
            ReadMode::Normal => {
                self.read_page(tag, &mut page)?;
                usage::count(|u| u.shared_read += 1);
            }
        }
        desc.header.lock().valid = true;
        Ok(())
    }

    /// Reads `tag` from disk into `page` and verifies it.
    fn read_page(&self, tag: BufferTag, page: &mut Page) -> Result<()> {
        self.smgr.open(tag.rel, tag.fork)?.read(tag.block, page.as_bytes_mut())?;
        self.reads.fetch_add(1, Ordering::Relaxed);
        if !verify_checksum(page.as_bytes(), tag.block) || !page.validate_header() {
            return Err(StorageError::Corrupt(format!(
                "invalid page in block {} of relation {}",
                tag.block,
                self.smgr.fork_path(tag.rel, tag.fork).display()
            )));
        }
        Ok(())
    }

    /// flush_frame -- writes the page in pinned frame `id` if it is dirty: WAL first
    /// up to the page LSN, then the page with a fresh checksum, from a private copy
    /// so the content lock is held only for the copy.
    fn flush_frame(&self, id: usize) -> Result<()> {
        let desc = &self.descs[id];
        let (tag, mut copy) = {
            let page = desc.content.read();
            let mut header = desc.header.lock();
            let (Some(tag), true, true) = (header.tag, header.dirty, header.valid) else {
                return Ok(());
            };
            // Writers change the page only under the exclusive lock, so with the
            // shared lock held the copy is exactly what we mark clean.
            header.dirty = false;
            (tag, Box::new(page.clone()))
        };
        let result = self.write_page(tag, &mut copy);
        if result.is_err() {
            desc.header.lock().dirty = true;
        }
        result
    }

    fn write_page(&self, tag: BufferTag, page: &mut Page) -> Result<()> {
        if let Some(wal) = self.wal.get() {
            wal.flush(page.lsn())?;
        }
        set_checksum(page.as_bytes_mut(), tag.block);
        self.smgr.open(tag.rel, tag.fork)?.write(tag.block, page.as_bytes())?;
        self.writes.fetch_add(1, Ordering::Relaxed);
        usage::count(|u| u.shared_written += 1);
        Ok(())
    }

    fn unpin(&self, id: usize) {
        let mut header = self.descs[id].header.lock();
        debug_assert!(header.refcount > 0, "unpin of an unpinned buffer");
        header.refcount -= 1;
    }

    /// flush_all -- writes every dirty page (the checkpoint's buffer sync). Pages
    /// dirtied again while this runs are left for the next checkpoint; their WAL
    /// is after the checkpoint's redo point, so recovery replays them. Returns the
    /// number of pages written.
    pub fn flush_all(&self) -> Result<usize> {
        let mut written = 0;
        for id in 0..self.descs.len() {
            {
                let mut header = self.descs[id].header.lock();
                if !(header.dirty && header.valid) {
                    continue;
                }
                header.refcount += 1;
            }
            let result = self.flush_frame(id);
            self.unpin(id);
            result?;
            written += 1;
        }
        Ok(written)
    }

    /// drop_relation_buffers -- forgets every page of `rel`'s `fork` at or past
    /// block `from`, without writing them (their file is being truncated or
    /// removed). The caller holds a lock that keeps anyone else from using these
    /// pages; a transient pin (a checkpoint writing one) is waited out.
    pub fn drop_relation_buffers(&self, rel: RelFileLocator, fork: ForkNumber, from: BlockNumber) {
        let matches = |t: &Option<BufferTag>| {
            t.is_some_and(|t| t.rel == rel && t.fork == fork && t.block >= from)
        };
        for id in 0..self.descs.len() {
            let desc = &self.descs[id];
            loop {
                let tag = desc.header.lock().tag;
                if !matches(&tag) {
                    break;
                }
                let tag = tag.expect("matched");
                let mut map = self.table.lock(BufTable::partition_of(&tag));
                let mut header = desc.header.lock();
                if header.tag != Some(tag) {
                    continue;
                }
                if header.refcount > 0 {
                    drop(header);
                    drop(map);
                    std::thread::yield_now();
                    continue;
                }
                map.remove(&tag);
                *header = BufHeader::default();
                break;
            }
        }
    }
}

impl<'a> Buffer<'a> {
    /// The page's identity.
    pub fn tag(&self) -> BufferTag {
        self.tag
    }

    /// The page's block number.
    pub fn block(&self) -> BlockNumber {
        self.tag.block
    }

    fn desc(&self) -> &'a BufferDesc {
        &self.pool.descs[self.id]
    }

    /// Takes the content lock shared.
    pub fn read(&self) -> RwLockReadGuard<'_, Page> {
        self.desc().content.read()
    }

    /// Takes the content lock exclusive.
    pub fn write(&self) -> BufferWriteGuard<'_> {
        BufferWriteGuard { guard: self.desc().content.write(), desc: self.desc() }
    }

    /// Takes the content lock exclusive if nobody holds it (for opportunistic work
    /// such as pruning or setting hint bits, which is skipped when busy).
    pub fn try_write(&self) -> Option<BufferWriteGuard<'_>> {
        let guard = self.desc().content.try_write()?;
        Some(BufferWriteGuard { guard, desc: self.desc() })
    }

    /// Whether this is the only pin on the page (with the exclusive lock held, a
    /// "cleanup lock": nobody else can be looking at tuples on it).
    pub fn is_only_pin(&self) -> bool {
        self.desc().header.lock().refcount == 1
    }
}

impl Drop for Buffer<'_> {
    fn drop(&mut self) {
        self.pool.unpin(self.id);
    }
}

impl BufferWriteGuard<'_> {
    /// Records that the page changed and must be written before it is evicted.
    pub fn mark_dirty(&self) {
        let newly_dirty = !std::mem::replace(&mut self.desc.header.lock().dirty, true);
        if newly_dirty {
            usage::count(|u| u.shared_dirtied += 1);
        }
    }
}

impl Deref for BufferWriteGuard<'_> {
    type Target = Page;
    fn deref(&self) -> &Page {
        &self.guard
    }
}

impl DerefMut for BufferWriteGuard<'_> {
    fn deref_mut(&mut self) -> &mut Page {
        &mut self.guard
    }
}
