//! sluice's built-in SQL data types — PostgreSQL's `utils/adt`.
//!
//! This crate knows what a value *is*: how `'2024-01-15'` becomes a date, how
//! a numeric prints, what `int4 + int8` returns and when it overflows, how a
//! value travels in the wire protocol's binary format and how it is laid out
//! inside a heap tuple. It knows nothing about tables, queries or sessions
//! beyond the few settings passed in a [`Context`].
//!
//! The guiding rule is *PostgreSQL 15, byte for byte*: text output, error
//! messages with their SQLSTATEs, result types and scales of arithmetic, and
//! binary formats are PostgreSQL's, because clients and users see all of
//! them. Where sluice differs, the item's documentation says so.
//!
//! # Map
//! * [`Datum`] — one value; [`SqlType`] — one type (OIDs, names, layout);
//! * [`io`] — text input/output (`typinput`/`typoutput`) for every type;
//! * [`binary`] — wire-protocol binary send/receive;
//! * [`storage`] — the on-disk bytes inside heap tuples; [`rowcodec`] — rows
//!   in the executor's temporary files;
//! * [`compare`] — ordering and hashing (B-tree and hash opclasses);
//! * [`mod@cast`] — `pg_cast`: which casts exist, and converting;
//! * [`ops`] — operators (`+ - * / %`, comparisons, `||`);
//! * [`funcs`] — scalar functions; [`agg`] — `count/sum/avg/min/max/array_agg`
//!   states;
//! * per-type modules: [`int`], [`float`], [`numeric`], [`mod@bool`], [`text`],
//!   [`bytea`], [`uuid`], [`oid`], [`xid`], [`pg_lsn`], [`jsonb`], [`datetime`],
//!   [`mod@array`].
//!
//! # What must never happen
//! No input — malformed text, hostile binary data, corrupt stored bytes,
//! absurd sizes — may panic or allocate without bound: every parser returns a
//! [`TypeError`] instead, with PostgreSQL's message where it has one.

pub mod agg;
pub mod array;
pub mod binary;
pub mod bool;
pub mod bytea;
pub mod cast;
pub mod compare;
mod context;
pub mod datetime;
mod datum;
pub mod domains;
pub mod enums;
pub mod error;
pub mod float;
pub mod funcs;
pub mod int;
mod intern;
pub mod io;
pub mod json;
pub mod jsonb;
pub mod numeric;
pub mod oid;
pub mod ops;
pub mod pg_lsn;
pub mod record;
pub mod rowcodec;
mod scan;
pub mod storage;
pub mod text;
pub mod types;
pub mod uuid;
pub mod xid;

pub use agg::{AggKind, AggState};
pub use array::Array;
pub use cast::{cast, cast_context, CastContext};
pub use context::{Context, DateFormat, DateOrder, DateStyle, IntervalStyle};
pub use datum::Datum;
pub use error::{ErrorKind, Result, TypeError};
pub use numeric::Numeric;
pub use record::{Record, RecordType};
pub use types::{format_type, ElemType, RegKind, SqlType};

#[cfg(test)]
mod tests;
