//! The 8 KB page: the unit of every relation file, of the buffer pool and of I/O.
//!
//! Every page, whatever access method owns it, starts with the same header and
//! grows a line pointer array from the front and item data from the back
//! ("slotted page", PostgreSQL's `bufpage.h`):
//!
//! ```text
//!  0        28                 pd_lower        pd_upper       pd_special   8192
//!  +--------+--------+--------+----------------+-------+-------+----------+
//!  | header | lp 1   | lp 2   |  ... free ...  | tup 2 | tup 1 | special  |
//!  +--------+--------+--------+----------------+-------+-------+----------+
//! ```
//!
//! A tuple is addressed by (block, line pointer number), so tuples can move within
//! the page (compaction) without changing their address. Line pointers have
//! PostgreSQL's four states: unused, normal, redirect (a HOT chain's root pointing at
//! the live member) and dead (the tuple is gone but indexes may still point here).
//!
//! The header differs from PostgreSQL's in one field: `pd_prune_xid` is 64 bits
//! because transaction ids are (see `sluice_common::Xid`), which makes the header 28
//! bytes instead of 24.
//!
//! Checksums are computed when a page is written and verified when it is read
//! (`checksum.rs`); a page of all zeros is a valid new page, as in PostgreSQL.

mod bufpage;
mod checksum;
mod itemid;

pub use bufpage::*;
pub use checksum::{page_checksum, set_checksum, verify_checksum};
pub use itemid::{ItemId, LpFlags};
