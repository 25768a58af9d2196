//! Files and segments of relation forks. See the module doc of `smgr`.

use crate::error::{Result, StorageError};
use parking_lot::{Mutex, RwLock};
use rustc_hash::FxBuildHasher;
use sluice_common::{BlockNumber, ForkNumber, RelFileLocator, BLCKSZ, RELSEG_SIZE};
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;

/// The tablespace OID of shared relations, whose files live in `global/`.
const GLOBALTABLESPACE_OID: u32 = 1664;

/// Every open relation fork of a data directory.
pub struct Smgr {
    data_dir: PathBuf,
    /// Read-locked by every `nblocks` and `open` of a fork already open --
    /// each index fetch asks -- and write-locked only to open or forget one.
    forks: RwLock<OpenForks>,
}

type OpenForks = HashMap<(RelFileLocator, ForkNumber), Arc<RelFork>, FxBuildHasher>;

/// One open relation fork: its segment files and cached length.
pub struct RelFork {
    path: PathBuf,
    /// Open segment files, index = segment number. Grows on extension.
    segments: Mutex<Vec<Arc<File>>>,
    /// Number of blocks; exact because only holders of `extension` change it.
    nblocks: AtomicU32,
    /// Written since the last `sync`.
    dirty: AtomicBool,
    /// Serialises extension and truncation (PostgreSQL's relation extension lock).
    pub extension: Mutex<()>,
}

impl Smgr {
    /// A storage manager for the data directory `data_dir`.
    pub fn new(data_dir: &Path) -> Smgr {
        Smgr { data_dir: data_dir.to_path_buf(), forks: RwLock::new(OpenForks::default()) }
    }

    /// The path of a fork's first segment, relative to nothing (absolute).
    pub fn fork_path(&self, rel: RelFileLocator, fork: ForkNumber) -> PathBuf {
        let dir = if rel.spc_oid == GLOBALTABLESPACE_OID {
            self.data_dir.join("global")
        } else {
            self.data_dir.join("base").join(rel.db_oid.to_string())
        };
        dir.join(format!("{}{}", rel.rel_number, fork.file_suffix()))
    }

    /// Whether the fork's first segment exists on disk.
    pub fn exists(&self, rel: RelFileLocator, fork: ForkNumber) -> bool {
        self.forks.read().contains_key(&(rel, fork)) || self.fork_path(rel, fork).exists()
    }

    /// create -- creates an empty fork (and its database directory). Creating a
    /// fork that exists is allowed and leaves it as it is, because redo may
    /// replay a creation whose file survived the crash.
    pub fn create(&self, rel: RelFileLocator, fork: ForkNumber) -> Result<Arc<RelFork>> {
        let path = self.fork_path(rel, fork);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| {
                StorageError::io(format!("could not create directory \"{}\"", dir.display()), e)
            })?;
        }
        OpenOptions::new().create(true).append(true).open(&path).map_err(|e| {
            StorageError::io(format!("could not create file \"{}\"", path.display()), e)
        })?;
        self.open(rel, fork)
    }

    /// open -- the fork, opening its segments on first use. Errors if it does not exist.
    pub fn open(&self, rel: RelFileLocator, fork: ForkNumber) -> Result<Arc<RelFork>> {
        if let Some(f) = self.forks.read().get(&(rel, fork)) {
            return Ok(f.clone());
        }
        let mut forks = self.forks.write();
        if let Some(f) = forks.get(&(rel, fork)) {
            return Ok(f.clone());
        }
        let f = Arc::new(RelFork::open(self.fork_path(rel, fork))?);
        forks.insert((rel, fork), f.clone());
        Ok(f)
    }

    /// Number of blocks in the fork (0 if it does not exist).
    pub fn nblocks(&self, rel: RelFileLocator, fork: ForkNumber) -> Result<BlockNumber> {
        if let Some(f) = self.forks.read().get(&(rel, fork)) {
            return Ok(f.nblocks());
        }
        if !self.fork_path(rel, fork).exists() {
            return Ok(0);
        }
        Ok(self.open(rel, fork)?.nblocks())
    }

    /// unlink -- removes every fork of a relation from disk and forgets them. The
    /// caller has already dropped the relation's buffers.
    pub fn unlink(&self, rel: RelFileLocator) -> Result<()> {
        let mut forks = self.forks.write();
        for fork in ForkNumber::ALL {
            forks.remove(&(rel, fork));
            let first = self.fork_path(rel, fork);
            for segno in 0.. {
                let path = segment_path(&first, segno);
                match std::fs::remove_file(&path) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => break,
                    Err(e) => {
                        return Err(StorageError::io(
                            format!("could not remove file \"{}\"", path.display()),
                            e,
                        ))
                    }
                }
            }
        }
        Ok(())
    }

    /// sync_dirty -- fsyncs every fork written since its last sync (checkpoint work).
    /// Returns how many forks were synced.
    pub fn sync_dirty(&self) -> Result<usize> {
        let forks: Vec<Arc<RelFork>> = self.forks.read().values().cloned().collect();
        let mut synced = 0;
        for fork in forks {
            if fork.dirty.swap(false, Ordering::AcqRel) {
                if let Err(e) = fork.sync() {
                    fork.dirty.store(true, Ordering::Release);
                    return Err(e);
                }
                synced += 1;
            }
        }
        Ok(synced)
    }
}

fn segment_path(first: &Path, segno: usize) -> PathBuf {
    if segno == 0 {
        first.to_path_buf()
    } else {
        let mut name = first.as_os_str().to_os_string();
        name.push(format!(".{segno}"));
        PathBuf::from(name)
    }
}

fn open_segment(path: &Path) -> std::io::Result<File> {
    OpenOptions::new().read(true).write(true).open(path)
}

impl RelFork {
    fn open(path: PathBuf) -> Result<RelFork> {
        let mut segments = Vec::new();
        let mut nblocks: u64 = 0;
        for segno in 0.. {
            let seg_path = segment_path(&path, segno);
            let file = match open_segment(&seg_path) {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && segno > 0 => break,
                Err(e) => {
                    return Err(StorageError::io(
                        format!("could not open file \"{}\"", seg_path.display()),
                        e,
                    ))
                }
            };
            let len = file
                .metadata()
                .map_err(|e| {
                    StorageError::io(format!("could not stat \"{}\"", seg_path.display()), e)
                })?
                .len();
            nblocks += len / BLCKSZ as u64;
            segments.push(Arc::new(file));
            if len < RELSEG_SIZE as u64 * BLCKSZ as u64 {
                break;
            }
        }
        Ok(RelFork {
            path,
            segments: Mutex::new(segments),
            nblocks: AtomicU32::new(nblocks as u32),
            dirty: AtomicBool::new(false),
            extension: Mutex::new(()),
        })
    }

    /// Number of blocks.
    pub fn nblocks(&self) -> BlockNumber {
        self.nblocks.load(Ordering::Acquire)
    }

    fn describe(&self, block: BlockNumber) -> String {
        format!("block {} in file \"{}\"", block, self.path.display())
    }

    /// The segment holding `block` and the block's byte offset in it, opening or
    /// creating the segment file as needed (creation only happens on extension).
    fn segment_for(&self, block: BlockNumber, create: bool) -> Result<(Arc<File>, u64)> {
        let segno = (block / RELSEG_SIZE) as usize;
        let offset = (block % RELSEG_SIZE) as u64 * BLCKSZ as u64;
        let mut segments = self.segments.lock();
        while segments.len() <= segno {
            let path = segment_path(&self.path, segments.len());
            let mut opts = OpenOptions::new();
            opts.read(true).write(true).create(create);
            let file = opts.open(&path).map_err(|e| {
                StorageError::io(format!("could not open file \"{}\"", path.display()), e)
            })?;
            segments.push(Arc::new(file));
        }
        Ok((segments[segno].clone(), offset))
    }

    /// read -- reads `block` into `buf`. Reading past the end is an error.
    pub fn read(&self, block: BlockNumber, buf: &mut [u8; BLCKSZ]) -> Result<()> {
        if block >= self.nblocks() {
            return Err(StorageError::Corrupt(format!(
                "could not read {}: read only 0 of {} bytes",
                self.describe(block),
                BLCKSZ
            )));
        }
        let (file, offset) = self.segment_for(block, false)?;
        file.read_exact_at(buf, offset)
            .map_err(|e| StorageError::io(format!("could not read {}", self.describe(block)), e))
    }

    /// write -- writes `buf` as an existing `block`.
    pub fn write(&self, block: BlockNumber, buf: &[u8; BLCKSZ]) -> Result<()> {
        let (file, offset) = self.segment_for(block, false)?;
        file.write_all_at(buf, offset).map_err(|e| {
            StorageError::io(format!("could not write {}", self.describe(block)), e)
        })?;
        self.dirty.store(true, Ordering::Release);
        Ok(())
    }

    /// extend_to -- grows the fork with zero pages until it has `nblocks` blocks
    /// (no-op if it is already that long). Caller holds `extension`. Redo uses this
    /// to re-create pages that a crash lost.
    pub fn extend_to(&self, nblocks: BlockNumber) -> Result<()> {
        let zero = [0u8; BLCKSZ];
        while self.nblocks() < nblocks {
            let block = self.nblocks();
            let (file, offset) = self.segment_for(block, true)?;
            file.write_all_at(&zero, offset).map_err(|e| {
                StorageError::io(format!("could not extend {}", self.describe(block)), e)
            })?;
            self.dirty.store(true, Ordering::Release);
            self.nblocks.store(block + 1, Ordering::Release);
        }
        Ok(())
    }

    /// truncate -- cuts the fork down to `nblocks` blocks. Caller holds
    /// `extension` and has dropped buffers of the removed blocks.
    pub fn truncate(&self, nblocks: BlockNumber) -> Result<()> {
        if nblocks >= self.nblocks() {
            return Ok(());
        }
        let mut segments = self.segments.lock();
        let keep_segs = (nblocks as usize).div_ceil(RELSEG_SIZE as usize).max(1);
        for (segno, file) in segments.iter().enumerate() {
            let seg_start = segno as u64 * RELSEG_SIZE as u64;
            let len = (nblocks as u64).saturating_sub(seg_start).min(RELSEG_SIZE as u64);
            file.set_len(len * BLCKSZ as u64).map_err(|e| {
                StorageError::io(format!("could not truncate file \"{}\"", self.path.display()), e)
            })?;
        }
        for segno in keep_segs..segments.len() {
            let _ = std::fs::remove_file(segment_path(&self.path, segno));
        }
        segments.truncate(keep_segs);
        self.nblocks.store(nblocks, Ordering::Release);
        self.dirty.store(true, Ordering::Release);
        Ok(())
    }

    fn sync(&self) -> Result<()> {
        let segments: Vec<Arc<File>> = self.segments.lock().clone();
        for file in segments {
            file.sync_data().map_err(|e| {
                StorageError::io(format!("could not fsync file \"{}\"", self.path.display()), e)
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel() -> RelFileLocator {
        RelFileLocator { spc_oid: 1663, db_oid: 5, rel_number: 16384 }
    }

    #[test]
    fn create_extend_read_write_truncate() {
        let dir = tempfile::tempdir().unwrap();
        let smgr = Smgr::new(dir.path());
        let fork = smgr.create(rel(), ForkNumber::Main).unwrap();
        assert_eq!(smgr.fork_path(rel(), ForkNumber::Main), dir.path().join("base/5/16384"));
        assert_eq!(fork.nblocks(), 0);
        fork.extend_to(3).unwrap();
        let mut page = [0u8; BLCKSZ];
        page[0] = 9;
        fork.write(2, &page).unwrap();
        let mut back = [1u8; BLCKSZ];
        fork.read(2, &mut back).unwrap();
        assert_eq!(back[0], 9);
        assert!(fork.read(3, &mut back).is_err(), "past the end");
        assert_eq!(smgr.sync_dirty().unwrap(), 1);
        assert_eq!(smgr.sync_dirty().unwrap(), 0);
        fork.truncate(1).unwrap();
        assert_eq!(fork.nblocks(), 1);
        // A fresh storage manager sees the same length on disk.
        assert_eq!(Smgr::new(dir.path()).nblocks(rel(), ForkNumber::Main).unwrap(), 1);
        assert_eq!(smgr.nblocks(rel(), ForkNumber::Fsm).unwrap(), 0);
        smgr.unlink(rel()).unwrap();
        assert!(!smgr.exists(rel(), ForkNumber::Main));
    }

    #[test]
    fn segments_split_at_one_gigabyte() {
        let first = PathBuf::from("/d/base/1/42");
        assert_eq!(segment_path(&first, 0), PathBuf::from("/d/base/1/42"));
        assert_eq!(segment_path(&first, 2), PathBuf::from("/d/base/1/42.2"));
        let dir = tempfile::tempdir().unwrap();
        let smgr = Smgr::new(dir.path());
        let fork = smgr.create(rel(), ForkNumber::VisibilityMap).unwrap();
        // Writing the first block of segment 1 directly would need 1 GB of zeros;
        // check the mapping instead.
        let (_, off) = fork.segment_for(RELSEG_SIZE + 1, true).unwrap();
        assert_eq!(off, BLCKSZ as u64);
        assert!(dir.path().join("base/5/16384_vm.1").exists());
    }
}
