//! [`Context`]: the session state that some values' meaning depends on.
//!
//! Most of this crate is pure: `2 + 2` needs nothing but its operands. A few
//! operations depend on the session, exactly as in PostgreSQL: reading and
//! printing `timestamptz` uses the `TimeZone` setting, and the input words
//! `now`, `today`, `tomorrow` and `yesterday` (and the functions `now()`,
//! `age(ts)`) use the transaction's start time. The executor passes a
//! `Context` into those functions; nothing here reads a clock or a global.
//!
//! Only the defaults PostgreSQL ships are implemented for the other date/time
//! settings: `DateStyle = ISO, MDY` and `IntervalStyle = postgres`.

use crate::datetime::TimeZone;

/// Session settings and clock readings needed by date/time functions.
#[derive(Clone, Debug, Default)]
pub struct Context {
    /// The session's `TimeZone` setting.
    pub time_zone: TimeZone,
    /// The transaction start time (`now()`), as a `timestamptz` value:
    /// microseconds since 2000-01-01 00:00:00 UTC.
    pub now: i64,
}

impl Context {
    /// A context in time zone `time_zone` at transaction time `now`.
    pub fn new(time_zone: TimeZone, now: i64) -> Context {
        Context { time_zone, now }
    }
}
