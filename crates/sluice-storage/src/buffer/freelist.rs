//! Victim selection: the clock sweep, and the small private rings of frames
//! that bulk operations recycle instead of sweeping the whole pool
//! (PostgreSQL's `freelist.c`, without its free list: at startup every frame is
//! unused, so the sweep finds them first anyway).
//!
//! # The clock sweep
//!
//! The hand is an atomic counter; each backend advances it independently, so the
//! sweep itself takes no lock. A frame's usage count (0..=5) is bumped on every pin
//! and decremented each time the hand passes it, so a page survives as many sweeps
//! as it was recently used, up to five.
//!
//! # Rings (buffer access strategies)
//!
//! A sequential scan of a table larger than the pool would, with the sweep alone,
//! push every other page out and then find none of its own pages still there on
//! the next run: each scan reads the whole table again, and whatever else was
//! cached is gone. So a scan of a big table (see `heap::scan` in `sluice-access`)
//! carries a [`BufferAccessStrategy`]: a ring of at most [`BULK_READ_RING`]
//! frames. A page it misses goes into the ring's next frame if that frame is
//! unpinned and nobody else used it since (usage at most 1), and into a frame from
//! the sweep otherwise, which then joins the ring. The scan touches the pool's
//! other frames only through hits, which raise a zero usage count to 1 but no
//! higher, so a big scan neither evicts nor promotes the rest of the cache.
//!
//! A ring frame whose page is dirty with WAL not yet flushed up to its LSN is not
//! reused: writing it would flush WAL once per page (PostgreSQL's
//! StrategyRejectBuffer). It leaves the ring and the sweep supplies another.
//!
//! A strategy is private to one scan and holds no pins; its frames are ordinary
//! frames, found, pinned and evicted by everyone under the usual rules.

use sluice_common::BLCKSZ;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The highest usage count a frame can reach (PostgreSQL's BM_MAX_USAGE_COUNT).
pub(super) const MAX_USAGE_COUNT: u8 = 5;

/// Frames in a bulk-read ring: 256 KB, as PostgreSQL's BAS_BULKREAD, small
/// enough to stay in the CPU's caches while the scan recycles it.
pub const BULK_READ_RING: usize = 256 * 1024 / BLCKSZ;

/// The clock hand.
pub(super) struct ClockHand {
    next: AtomicUsize,
    nbuffers: usize,
}

impl ClockHand {
    /// A hand over `nbuffers` frames.
    pub fn new(nbuffers: usize) -> ClockHand {
        ClockHand { next: AtomicUsize::new(0), nbuffers }
    }

    /// The next frame to look at.
    pub fn tick(&self) -> usize {
        self.next.fetch_add(1, Ordering::Relaxed) % self.nbuffers
    }

    /// How many ticks make a sweep that must have found a victim if one exists:
    /// enough for every usage count to reach zero.
    pub fn give_up_after(&self) -> usize {
        self.nbuffers * (MAX_USAGE_COUNT as usize + 2)
    }
}

/// A private ring of frames for one bulk read (PostgreSQL's
/// BufferAccessStrategy of type BAS_BULKREAD). See the module doc.
#[derive(Debug)]
pub struct BufferAccessStrategy {
    /// Frame indexes; `None` until the sweep has supplied that slot.
    ring: Box<[Option<usize>]>,
    /// The slot the last miss used.
    current: usize,
}

impl BufferAccessStrategy {
    /// A ring for a sequential read of a relation bigger than the pool can
    /// comfortably hold; never more than a quarter of the pool's `nbuffers`.
    pub fn bulk_read(nbuffers: usize) -> BufferAccessStrategy {
        let size = BULK_READ_RING.min(nbuffers / 4).max(1);
        BufferAccessStrategy { ring: vec![None; size].into_boxed_slice(), current: 0 }
    }

    /// Moves to the next slot and returns the frame it holds, if any.
    pub(super) fn advance(&mut self) -> Option<usize> {
        self.current = (self.current + 1) % self.ring.len();
        self.ring[self.current]
    }

    /// Puts `frame` (which the sweep supplied) into the current slot.
    pub(super) fn remember(&mut self, frame: usize) {
        self.ring[self.current] = Some(frame);
    }

    /// Empties the current slot (its frame was rejected).
    pub(super) fn forget(&mut self) {
        self.ring[self.current] = None;
    }
}
