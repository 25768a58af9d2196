//! Per-node execution counts for EXPLAIN ANALYZE (PostgreSQL's
//! `executor/instrument.c`).
//!
//! While EXPLAIN ANALYZE runs a plan it installs an [`Instrumentation`] for
//! the session's thread ([`Instrumentation::run`]); every node `plan::open`
//! starts during that time is wrapped so that its rows, its loops (runs
//! that were asked for a row at least once) and, with TIMING, the time
//! spent inside it are added to the counters of its plan node, found by the
//! node's address. Join nodes also count the row pairs their join condition
//! rejected, and every node counts the buffer accesses made while it ran
//! (its own and its inputs', as PostgreSQL's `Buffers:` lines include the
//! nodes below). Outside EXPLAIN ANALYZE nothing is installed and `open` wraps
//! nothing, so ordinary queries pay one thread-local read per node started.
//!
//! A thread-local rather than a parameter of `open`: nodes are started from
//! many places (nested loops, subplans, WITH queries), all of which would
//! otherwise have to pass it along; each session runs on its own thread and
//! runs one statement at a time, and the guard removes it even on error.

use super::{ExecHost, RowSource, Source};
use crate::error::Result;
use sluice_storage::buffer::BufferUsage;
use sluice_types::Datum;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// What one plan node did.
#[derive(Clone, Copy, Debug, Default)]
pub struct NodeStats {
    /// Runs in which a row was asked for.
    pub loops: u64,
    /// Rows returned, over all loops.
    pub rows: u64,
    /// Time to the first row, summed over loops.
    pub startup: Duration,
    /// Time inside the node, summed over loops.
    pub total: Duration,
    /// Row pairs the join condition rejected.
    pub join_removed: u64,
    /// Heap pages a bitmap heap scan read (`Heap Blocks: exact=N`).
    pub exact_blocks: u64,
    /// Heap versions an index-only scan had to visit (`Heap Fetches: N`).
    pub heap_fetches: u64,
    /// Bytes of the sorted runs an external sort wrote (`Sort Method:
    /// external merge  Disk: NkB`); 0 for a sort in memory.
    pub sort_disk: u64,
    /// Pages the node and the nodes below it touched (`Buffers: ...`).
    pub buffers: BufferUsage,
}

/// A counter a node adds to beyond its rows.
#[derive(Clone, Copy, Debug)]
pub enum Counter {
    /// Row pairs the join condition rejected.
    JoinRemoved,
    /// Heap pages a bitmap heap scan read.
    ExactBlocks,
    /// Heap versions an index-only scan visited.
    HeapFetches,
    /// Bytes an external sort wrote in runs.
    SortDisk,
}

/// The counters of one EXPLAIN ANALYZE run, by plan node address.
#[derive(Default)]
pub struct Instrumentation {
    nodes: RefCell<HashMap<usize, NodeStats>>,
    timing: bool,
}

thread_local! {
    static ACTIVE: RefCell<Option<Rc<Instrumentation>>> = const { RefCell::new(None) };
}

/// Removes the installed instrumentation when the run ends, however it ends.
struct Installed;

impl Drop for Installed {
    fn drop(&mut self) {
        ACTIVE.with(|a| a.borrow_mut().take());
    }
}

impl Instrumentation {
    /// run -- calls `f` with a new instrumentation installed (measuring time
    /// if `timing`); returns its result and the counters.
    pub fn run<T>(timing: bool, f: impl FnOnce() -> Result<T>) -> Result<(T, Rc<Instrumentation>)> {
        let inst = Rc::new(Instrumentation { nodes: RefCell::default(), timing });
        ACTIVE.with(|a| *a.borrow_mut() = Some(inst.clone()));
        let _installed = Installed;
        Ok((f()?, inst))
    }

    /// The counters of the node at `key` (zero if it never started).
    pub fn stats(&self, key: usize) -> NodeStats {
        self.nodes.borrow().get(&key).copied().unwrap_or_default()
    }

    fn update(&self, key: usize, f: impl FnOnce(&mut NodeStats)) {
        f(self.nodes.borrow_mut().entry(key).or_default());
    }
}

/// The key of a plan node.
pub fn key_of<T>(node: &T) -> usize {
    node as *const T as usize
}

/// open -- the node `open` starts, counted under `key` if EXPLAIN ANALYZE
/// is running. Pages touched while starting it (an index scan positions
/// itself on its first leaf then) count as the node's, as PostgreSQL starts
/// such work in the node's first call.
pub fn open<'e>(key: usize, open: impl FnOnce() -> Result<Source<'e>>) -> Result<Source<'e>> {
    let Some(inst) = ACTIVE.with(|a| a.borrow().clone()) else { return open() };
    let before = BufferUsage::current();
    let source = open()?;
    let buffers = BufferUsage::current() - before;
    inst.update(key, |s| s.buffers += buffers);
    Ok(Box::new(Counted { key, source, inst, started: false }))
}

/// count -- adds `n` to `counter` of the node at `key` (nothing outside
/// EXPLAIN ANALYZE).
pub fn count(key: usize, counter: Counter, n: u64) {
    ACTIVE.with(|a| {
        if let Some(inst) = a.borrow().as_ref() {
            inst.update(key, |s| match counter {
                Counter::JoinRemoved => s.join_removed += n,
                Counter::ExactBlocks => s.exact_blocks += n,
                Counter::HeapFetches => s.heap_fetches += n,
                Counter::SortDisk => s.sort_disk += n,
            });
        }
    });
}

/// count_run -- records that the node at `key`, which has no running node
/// of its own (a Bitmap Index Scan, done inside its Bitmap Heap Scan), ran
/// once, returned `rows`, took `spent` and touched `buffers` (nothing
/// outside EXPLAIN ANALYZE).
pub fn count_run(key: usize, rows: u64, spent: Duration, buffers: BufferUsage) {
    ACTIVE.with(|a| {
        if let Some(inst) = a.borrow().as_ref() {
            let spent = if inst.timing { spent } else { Duration::ZERO };
            inst.update(key, |s| {
                s.loops += 1;
                s.rows += rows;
                s.startup += spent;
                s.total += spent;
                s.buffers += buffers;
            });
        }
    });
}

/// A node being counted.
struct Counted<'e> {
    key: usize,
    source: Source<'e>,
    inst: Rc<Instrumentation>,
    /// Whether this run has been asked for a row yet.
    started: bool,
}

impl<'e> RowSource<'e> for Counted<'e> {
    fn next(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Vec<Datum>>> {
        let first = !self.started;
        self.started = true;
        let clock = self.inst.timing.then(Instant::now);
        let buffers_before = BufferUsage::current();
        let row = self.source.next(host)?;
        let spent = clock.map(|c| c.elapsed()).unwrap_or_default();
        let buffers = BufferUsage::current() - buffers_before;
        self.inst.update(self.key, |s| {
            s.buffers += buffers;
            if first {
                s.loops += 1;
                s.startup += spent;
            }
            s.total += spent;
            s.rows += u64::from(row.is_some());
        });
        Ok(row)
    }
}
