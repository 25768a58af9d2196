//! The date/time types: `date`, `time`, `timestamp`, `timestamptz`, `interval`.
//!
//! Representations are PostgreSQL's, so the binary wire format and storage
//! are plain integers: `date` is days since 2000-01-01 (`i32`), `time` is
//! microseconds since midnight, `timestamp` and `timestamptz` are
//! microseconds since 2000-01-01 00:00:00 (`i64`, local wall-clock time for
//! `timestamp`, UTC for `timestamptz`), and `interval` keeps months, days and
//! microseconds apart. The extreme values `i32::MIN/MAX` and `i64::MIN/MAX`
//! are `-infinity` and `infinity`.
//!
//! Files:
//! * `calendar.rs` — Julian days, broken-down times, ISO weeks;
//! * `timezone.rs` — the session `TimeZone` and zones named in input;
//! * `lex.rs`, `decode.rs` — free-form input (`ParseDateTime`/`DecodeDateTime`);
//! * `input.rs` — text input of each type, typmod precision rounding;
//! * `format.rs` — ISO text output;
//! * `interval.rs` — the interval type, its input, output and arithmetic;
//! * `arith.rs` — date/timestamp arithmetic and conversions;
//! * `funcs.rs` — `date_trunc`, `extract`/`date_part`, `age`.

pub mod arith;
pub mod calendar;
mod decode;
pub mod format;
pub mod funcs;
pub mod input;
pub mod interval;
mod lex;
mod timezone;

pub use interval::Interval;
pub use timezone::TimeZone;
