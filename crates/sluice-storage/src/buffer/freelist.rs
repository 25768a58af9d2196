//! Clock-sweep victim selection (PostgreSQL's `freelist.c`, without its free
//! list: at startup every frame is unused, so the sweep finds them first anyway).
//!
//! The hand is an atomic counter; each backend advances it independently, so the
//! sweep itself takes no lock. A frame's usage count (0..=5) is bumped on every pin
//! and decremented each time the hand passes it, so a page survives as many sweeps
//! as it was recently used, up to five.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The highest usage count a frame can reach (PostgreSQL's BM_MAX_USAGE_COUNT).
pub(super) const MAX_USAGE_COUNT: u8 = 5;

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
