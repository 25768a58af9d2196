//! The buffer pool: a bounded set of 8 KB page frames shared by every backend
//! (PostgreSQL's `storage/buffer`).
//!
//! # Shape
//!
//! `shared_buffers / 8 KB` frames, each with a descriptor (`BufferDesc`): the tag
//! naming the page it holds (relation, fork, block), a pin count, a usage count for
//! clock-sweep replacement, dirty and valid flags, and a content lock (a
//! reader-writer lock around the page bytes). A partitioned hash table maps tags to
//! frames (`buf_table.rs`). A page that is not in the pool is read into a victim
//! frame chosen by the clock sweep, or, for a bulk read of a big table, recycled
//! from that scan's small private ring of frames (`freelist.rs`).
//!
//! # Rules (PostgreSQL's `storage/buffer/README`, adapted)
//!
//! * **Pins** keep a frame from being reused. Anyone looking at a page holds a pin
//!   (a [`Buffer`] handle; dropping it unpins). Pins are cheap and may be held
//!   across waits; content locks may not be held across anything that blocks on
//!   another backend.
//! * **Content locks**: shared to read tuples, exclusive to change the page. A
//!   change is: lock exclusive, change, insert the WAL record, stamp the page LSN,
//!   mark dirty, unlock — all before anybody else can see the page.
//! * **WAL before data**: a dirty page is written only after WAL is flushed up to
//!   the page's LSN, so a crash can never leave a page on disk whose change is not
//!   in the log.
//! * **Replacement**: the clock hand skips pinned frames and decrements usage
//!   counts; the first unpinned frame with usage zero is the victim. Its old
//!   mapping is removed and the new one inserted while holding both partition
//!   locks and with the victim's pin count at exactly one (ours), so no backend can
//!   find or pin a frame while its identity changes.
//! * **I/O** happens under the frame's exclusive content lock: a backend that finds a
//!   frame whose page is not valid yet waits for that lock and then sees the page.
//!
//! Lock order: partition lock(s), lower index first → descriptor header, and
//! content lock → descriptor header. The content lock is never taken while
//! holding a partition lock or a descriptor header.

mod buf_table;
mod bufmgr;
mod freelist;
mod usage;

pub use bufmgr::{Buffer, BufferPool, BufferPoolStats, BufferTag, BufferWriteGuard, ReadMode};
pub use freelist::BufferAccessStrategy;
pub use usage::BufferUsage;

#[cfg(test)]
mod tests;
