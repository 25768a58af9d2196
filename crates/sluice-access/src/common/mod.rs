//! The tuple format shared by access methods (PostgreSQL's `access/common`).
//!
//! A *heap tuple* is one version of one row, as it sits in a heap page:
//!
//! ```text
//!  +---------------------------+-------------+---------+------------------------+
//!  | fixed header (31 bytes)   | null bitmap | padding | attributes, aligned    |
//!  | xmin xmax cid ctid masks  | if any NULL | to 8    | in column order        |
//!  +---------------------------+-------------+---------+------------------------+
//!  0                           31                      t_hoff                  t_len
//! ```
//!
//! The header says which transactions created and deleted the version and where
//! its successor is ([`htup`]); the bitmap which columns are NULL; the attributes
//! hold the non-NULL values, each at its type's alignment, varlenas behind a 1- or
//! 4-byte length word ([`heaptuple`]). What the columns are — width, alignment —
//! the tuple does not say: the reader brings a [`TupleDesc`] ([`tupdesc`]).
//!
//! # Why 32 bytes of header, not PostgreSQL's 24
//!
//! sluice's transaction ids are 64 bits, so `t_xmin` and `t_xmax` are 8 bytes
//! each. In exchange, xids never wrap around: no anti-wraparound VACUUM, no
//! mandatory freezing, no shutdown to avoid wraparound. Everything else mirrors
//! PostgreSQL field for field — the same infomask bits with the same values, the
//! same bitmap, the same alignment and varlena rules — so PostgreSQL's reasoning
//! about visibility, HOT and locking carries over unchanged.
//!
//! The cost is 8 bytes per row version, fewer after alignment. For the seed-001
//! row `(bigint, text 'name-N', text 'x'×100)` PostgreSQL uses 145 bytes (152 on
//! the page, MAXALIGNed) and sluice 153 (160): about 5% more heap, within the
//! project's 10% budget.
//!
//! This module only lays out bytes. Placing tuples on pages, choosing xmin and
//! ctid, and deciding visibility belong to the heap access method; TOAST
//! (compression and out-of-line storage of large values) is not implemented, so a
//! row must fit in a page ([`MAX_HEAP_TUPLE_SIZE`]).

mod error;
pub mod heaptuple;
pub mod htup;
pub mod indextuple;
pub mod tupdesc;

pub use error::{Result, TupleError};
pub use heaptuple::{
    check_tuple_size, compute_tuple_size, deform_tuple, for_each_attr, form_tuple, get_attr,
};
pub use htup::{
    HeapTupleHeader, HeapTupleHeaderMut, MAX_HEAP_ATTRIBUTE_NUMBER, MAX_HEAP_TUPLE_SIZE,
    SIZEOF_HEAP_TUPLE_HEADER,
};
pub use indextuple::{form_index_tuple, mark_killed, IndexTuple};
pub use tupdesc::{AttrDesc, TupleDesc};
