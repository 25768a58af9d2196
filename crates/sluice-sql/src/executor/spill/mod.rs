//! Bounded memory for the executor: nodes that must hold many rows keep
//! them in memory only up to `work_mem` and move the rest to temporary files
//! (PostgreSQL's `utils/sort/tuplestore.c`, `tuplesort.c`, `storage/file/
//! buffile.c` and the batching of `nodeHash.c`).
//!
//! * [`tuplestore::TupleStore`] — rows appended and read back in order, by
//!   any number of cursors, any number of times (Material, the inner side of
//!   a nested loop, WITH results, recursive work tables);
//! * [`tuplesort::TupleSort`] — a quicksort in memory, or sorted runs on
//!   disk merged through a binary heap (Sort, sort-based grouping, DISTINCT,
//!   set operations);
//! * the hash join (`plan/hashjoin.rs`) and hash aggregation (`plan.rs`)
//!   use these and [`TempFile`]s directly.
//!
//! # The budget
//! Every node gets its own `work_mem` (hash tables `work_mem ×
//! hash_mem_multiplier`), as in PostgreSQL: a plan with several sorts may
//! use several times `work_mem`. What counts is [`row_size`], an estimate
//! of the memory a `Vec<Datum>` row holds; aggregate states (`array_agg`'s
//! growing array) and the merge join's group of equal-key rows are not
//! bounded, nor are the duplicate set of `WITH RECURSIVE ... UNION` and a
//! hashed `IN (subquery)`'s values (PostgreSQL keeps those in memory too).
//!
//! # Temporary files
//! Files live in `base/pgsql_tmp/` of the data directory, named
//! `pgsql_tmpPID.N` like PostgreSQL's (the server's process id and a
//! process-wide counter). A [`TempFile`] removes its file when dropped, so a
//! file lives exactly as long as the node (or part of a node) that owns it:
//! to the end of the statement at most, and also when the statement fails
//! or is cancelled, since unwinding the plan tree drops its nodes. Files a
//! crashed server left behind are removed when it starts again
//! ([`remove_leftover_temp_files`]).
//!
//! `temp_file_limit` (kB, -1 for none) caps the total size of the temporary
//! files one statement has open at once; going past it fails with 53400,
//! PostgreSQL's message. PostgreSQL counts per backend process, which is
//! the same thing except for cursors kept open across statements.
//!
//! Every loop that reads spilled rows back checks for interrupts, so a
//! cancel or `statement_timeout` reaches a statement busy merging runs.
//!
//! # Locking
//! None: a [`TempSpace`] belongs to one statement's [`ExecHost`], which runs
//! on its session's thread; files are private to it (the `Rc`s and `Cell`s
//! say so to the compiler).
//!
//! [`ExecHost`]: super::host::ExecHost

pub mod file;
pub mod tuplesort;
pub mod tuplestore;

pub use file::{RowReader, TempFile};

use crate::activity::InterruptCheck;
use crate::error::{Result, SqlError};
use sluice_guc::Settings;
use sluice_types::Datum;
use std::cell::Cell;
use std::path::{Path, PathBuf};

/// The directory of temporary files, under the data directory (PostgreSQL's
/// `PG_TEMP_FILES_DIR` inside the default tablespace).
pub const TEMP_DIR: &str = "base/pgsql_tmp";

/// The prefix of every temporary file's name (`PG_TEMP_FILE_PREFIX`).
pub const TEMP_PREFIX: &str = "pgsql_tmp";

/// One statement's memory budget and temporary file space.
pub struct TempSpace {
    /// Where files go.
    dir: PathBuf,
    /// `work_mem`, in bytes.
    work_mem: usize,
    /// `work_mem × hash_mem_multiplier`, in bytes.
    hash_mem: usize,
    /// `temp_file_limit`, in kB (`None` for -1).
    limit_kb: Option<u64>,
    /// Bytes in the statement's temporary files right now.
    used: Cell<u64>,
    /// The session's cancel and timeout check.
    interrupts: InterruptCheck,
}

impl TempSpace {
    /// new -- the space of a statement running under `settings` on the
    /// data directory `data_dir`.
    pub fn new(data_dir: &Path, settings: &impl Settings, interrupts: InterruptCheck) -> TempSpace {
        let work_mem = settings.get_int("work_mem").max(64) as usize * 1024;
        let multiplier = settings.get_real("hash_mem_multiplier").max(1.0);
        let limit = settings.get_int("temp_file_limit");
        TempSpace {
            dir: data_dir.join(TEMP_DIR),
            work_mem,
            hash_mem: (work_mem as f64 * multiplier).min(usize::MAX as f64 / 2.0) as usize,
            limit_kb: u64::try_from(limit).ok(),
            used: Cell::new(0),
            interrupts,
        }
    }

    /// `work_mem` in bytes: what a sort or a tuplestore keeps in memory.
    pub fn work_mem(&self) -> usize {
        self.work_mem
    }

    /// What a hash table keeps in memory (hash join, hash aggregation).
    pub fn hash_mem(&self) -> usize {
        self.hash_mem
    }

    /// The directory temporary files go to.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// check_interrupts -- cancel and timeouts, for loops over spilled rows.
    pub fn check_interrupts(&self) -> Result<()> {
        (self.interrupts)()
    }

    /// reserve -- accounts `bytes` more written to the statement's files;
    /// 53400 if that passes `temp_file_limit`.
    fn reserve(&self, bytes: u64) -> Result<()> {
        let total = self.used.get() + bytes;
        if let Some(limit) = self.limit_kb {
            if total > limit.saturating_mul(1024) {
                return Err(SqlError::new(
                    "53400",
                    format!("temporary file size exceeds temp_file_limit ({limit}kB)"),
                ));
            }
        }
        self.used.set(total);
        Ok(())
    }

    /// release -- a file of `bytes` was removed.
    fn release(&self, bytes: u64) {
        self.used.set(self.used.get().saturating_sub(bytes));
    }
}

/// row_size -- the memory `row` holds: the vector, its slots and what the
/// values own beyond them.
pub fn row_size(row: &[Datum]) -> usize {
    std::mem::size_of::<Vec<Datum>>()
        + std::mem::size_of_val(row)
        + row.iter().map(sluice_types::rowcodec::heap_size).sum::<usize>()
}

/// remove_leftover_temp_files -- at server start: deletes the temporary
/// files in `data_dir` (a crashed server's; a running one's never survive
/// it). Returns how many were removed. Errors are ignored, as PostgreSQL's
/// `RemovePgTempFiles` only logs them: a leftover file costs disk space,
/// not correctness, since names are never reused while a file exists.
pub fn remove_leftover_temp_files(data_dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(data_dir.join(TEMP_DIR)) else { return 0 };
    entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(TEMP_PREFIX))
        .filter(|e| std::fs::remove_file(e.path()).is_ok())
        .count()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::rc::Rc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// A space on a fresh directory with `work_mem` and `temp_file_limit`
    /// in kB; the interrupt check fails once `cancel_after` checks passed.
    pub(crate) fn space(
        dir: &Path,
        work_mem_kb: usize,
        limit_kb: Option<u64>,
        cancel_after: Option<usize>,
    ) -> Rc<TempSpace> {
        let checks = AtomicUsize::new(0);
        Rc::new(TempSpace {
            dir: dir.join(TEMP_DIR),
            work_mem: work_mem_kb * 1024,
            hash_mem: work_mem_kb * 2048,
            limit_kb,
            used: Cell::new(0),
            interrupts: Arc::new(move || {
                let n = checks.fetch_add(1, Ordering::Relaxed);
                match cancel_after {
                    Some(limit) if n >= limit => {
                        Err(SqlError::new("57014", "canceling statement due to user request"))
                    }
                    _ => Ok(()),
                }
            }),
        })
    }

    /// The temporary files in `dir`'s temp directory.
    pub(crate) fn files(dir: &Path) -> usize {
        std::fs::read_dir(dir.join(TEMP_DIR)).map_or(0, |d| d.count())
    }

    #[test]
    fn leftovers_are_removed_and_other_files_kept() {
        let dir = tempfile::tempdir().expect("tempdir");
        let temp = dir.path().join(TEMP_DIR);
        std::fs::create_dir_all(&temp).expect("mkdir");
        std::fs::write(temp.join("pgsql_tmp123.4"), b"x").expect("write");
        std::fs::write(temp.join("pgsql_tmp123.5"), b"x").expect("write");
        std::fs::write(temp.join("keep.me"), b"x").expect("write");
        assert_eq!(remove_leftover_temp_files(dir.path()), 2);
        assert_eq!(files(dir.path()), 1);
        assert_eq!(remove_leftover_temp_files(&dir.path().join("absent")), 0);
    }

    #[test]
    fn row_size_counts_slots_and_buffers() {
        let small = row_size(&[Datum::Int4(1)]);
        assert_eq!(small, 24 + std::mem::size_of::<Datum>());
        assert!(row_size(&[Datum::Text("x".repeat(500))]) >= small + 500);
    }
}
