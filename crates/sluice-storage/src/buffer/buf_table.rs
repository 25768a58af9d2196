//! The buffer mapping table: tag → frame index, split into partitions with a
//! mutex each (PostgreSQL's `buf_table.c` with NUM_BUFFER_PARTITIONS = 128), so
//! lookups of different pages rarely contend.

use super::bufmgr::BufferTag;
use parking_lot::{Mutex, MutexGuard};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// Number of partitions, as PostgreSQL.
const PARTITIONS: usize = 128;

/// Tag → frame index, partitioned.
pub(super) struct BufTable {
    partitions: Vec<Mutex<HashMap<BufferTag, usize>>>,
}

impl BufTable {
    /// An empty table sized for `nbuffers` entries.
    pub fn new(nbuffers: usize) -> BufTable {
        let per = nbuffers / PARTITIONS + 1;
        BufTable {
            partitions: (0..PARTITIONS).map(|_| Mutex::new(HashMap::with_capacity(per))).collect(),
        }
    }

    /// The partition `tag` belongs to.
    pub fn partition_of(tag: &BufferTag) -> usize {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        tag.hash(&mut h);
        (h.finish() as usize) % PARTITIONS
    }

    /// Locks one partition.
    pub fn lock(&self, partition: usize) -> MutexGuard<'_, HashMap<BufferTag, usize>> {
        self.partitions[partition].lock()
    }

    /// Locks partitions `a` and `b` (once if equal) in index order, which keeps
    /// two evicting backends from deadlocking.
    pub fn lock_two(&self, a: usize, b: usize) -> LockedPartitions<'_> {
        let (lo, hi) = (a.min(b), a.max(b));
        let mut guards = vec![(lo, self.lock(lo))];
        if hi != lo {
            guards.push((hi, self.lock(hi)));
        }
        LockedPartitions { guards }
    }
}

/// One or two locked partitions of the mapping table.
pub(super) struct LockedPartitions<'a> {
    guards: Vec<(usize, MutexGuard<'a, HashMap<BufferTag, usize>>)>,
}

impl LockedPartitions<'_> {
    /// The map of locked partition `p`.
    pub fn map(&mut self, p: usize) -> &mut HashMap<BufferTag, usize> {
        let (_, guard) =
            self.guards.iter_mut().find(|(q, _)| *q == p).expect("partition is locked");
        guard
    }
}
