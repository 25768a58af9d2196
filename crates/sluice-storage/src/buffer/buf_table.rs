//! The buffer mapping table: tag → frame index, split into partitions with a
//! mutex each (PostgreSQL's `buf_table.c` with NUM_BUFFER_PARTITIONS = 128), so
//! lookups of different pages rarely contend.
//!
//! Every page access hashes its tag (twice: once for the partition, once inside
//! the partition's map), so the hash is FxHash rather than the standard
//! library's SipHash: a few multiplications instead of a keyed cryptographic
//! mix. SipHash's protection against chosen-key flooding buys nothing here —
//! tags are block numbers and relation OIDs the server assigns itself.

use super::bufmgr::BufferTag;
use parking_lot::{Mutex, MutexGuard};
use rustc_hash::FxBuildHasher;
use std::collections::HashMap;
use std::hash::BuildHasher;

/// One partition's map.
type Map = HashMap<BufferTag, usize, FxBuildHasher>;

/// Number of partitions, as PostgreSQL.
const PARTITIONS: usize = 128;

/// Tag → frame index, partitioned.
pub(super) struct BufTable {
    partitions: Vec<Mutex<Map>>,
}

impl BufTable {
    /// An empty table sized for `nbuffers` entries.
    pub fn new(nbuffers: usize) -> BufTable {
        let per = nbuffers / PARTITIONS + 1;
        BufTable {
            partitions: (0..PARTITIONS)
                .map(|_| Mutex::new(Map::with_capacity_and_hasher(per, FxBuildHasher)))
                .collect(),
        }
    }

    /// The partition `tag` belongs to.
    pub fn partition_of(tag: &BufferTag) -> usize {
        (FxBuildHasher.hash_one(tag) as usize) % PARTITIONS
    }

    /// Locks one partition.
    pub fn lock(&self, partition: usize) -> MutexGuard<'_, Map> {
        self.partitions[partition].lock()
    }

    /// Locks partitions `a` and `b` (once if equal) in index order, which keeps
    /// two evicting backends from deadlocking.
    pub fn lock_two(&self, a: usize, b: usize) -> LockedPartitions<'_> {
        let (lo, hi) = (a.min(b), a.max(b));
        let first = (lo, self.lock(lo));
        let second = (hi != lo).then(|| (hi, self.lock(hi)));
        LockedPartitions { first, second }
    }
}

/// One or two locked partitions of the mapping table.
pub(super) struct LockedPartitions<'a> {
    first: (usize, MutexGuard<'a, Map>),
    second: Option<(usize, MutexGuard<'a, Map>)>,
}

impl LockedPartitions<'_> {
    /// The map of locked partition `p`.
    pub fn map(&mut self, p: usize) -> &mut Map {
        if self.first.0 == p {
            return &mut self.first.1;
        }
        match &mut self.second {
            Some((q, guard)) if *q == p => guard,
            _ => panic!("partition {p} is not locked"),
        }
    }
}
