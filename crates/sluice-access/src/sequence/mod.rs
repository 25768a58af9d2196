//! Sequence storage: the one-page relation behind `nextval` (the storage half of
//! PostgreSQL's `commands/sequence.c`).
//!
//! A sequence is a relation whose main fork holds a single page with a single
//! tuple `(last_value, log_cnt, is_called)` (`page.rs`). Its parameters
//! (increment, bounds, cache, cycle) are transactional catalog data, written
//! once per CREATE/ALTER SEQUENCE into a fresh relfilenode; its counter is not
//! transactional at all: nextval changes the tuple in place under the page's
//! exclusive content lock, and a rolled-back transaction does not give its
//! values back.
//!
//! # Logging ahead
//!
//! Logging every nextval would cost a WAL record per value. Like PostgreSQL,
//! a nextval that must log writes the state as it will be *after*
//! [`SEQ_LOG_VALS`] more values (`last_value` = the last of them, `log_cnt` = 0)
//! and keeps `log_cnt` = 32 on the page; the next 32 calls only count `log_cnt`
//! down. After a crash, redo restores the logged state, so the sequence resumes
//! past every value it may have handed out, skipping at most 32.
//!
//! ```text
//!   page:  last_value=10 log_cnt=0      nextval → 11, logs last_value=43
//!   page:  last_value=11 log_cnt=32     nextval → 12 .. 43 without WAL
//!   crash: redo sets last_value=43      nextval → 44
//! ```
//!
//! A nextval also logs when the page has not been logged since the current
//! checkpoint's redo point: the checkpoint may have written the page with a
//! counter whose WAL record is older than the redo point, and replay starts
//! there. Every record rebuilds the whole page (WILL_INIT), so torn pages need
//! no full-page image.
//!
//! # Durability
//!
//! The WAL record makes a value durable once it is flushed. Callers flush it
//! when their transaction's commit will not (see `sluice-sql`'s sequence
//! functions); [`Fetched::logged`] says where the record ends.
//!
//! # Locking
//!
//! Every function pins block 0 and holds its content lock (exclusive to
//! change, shared to read) only while it works on the page. Which sessions may
//! use the relation at all is decided by heavyweight locks in the SQL layer.

mod page;
pub mod xlog;

use crate::engine::Engine;
use crate::error::{AccessError, Result};
use page::{init_page, read_page, write_data};
use sluice_common::{ForkNumber, Lsn, Oid, RelFileLocator, RmgrId, Xid};
use sluice_storage::buffer::{BufferTag, BufferWriteGuard};
use sluice_wal::{BlockRef, RecordBuilder, BLOCK_WILL_INIT};
use xlog::XLOG_SEQ_LOG;

/// Values pre-logged by one WAL record (PostgreSQL's SEQ_LOG_VALS).
pub const SEQ_LOG_VALS: i64 = 32;

/// A sequence's parameters (`pg_sequence`'s columns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeqParams {
    /// The data type: int2, int4 or int8's OID.
    pub typid: Oid,
    /// START WITH.
    pub start: i64,
    /// INCREMENT BY (never 0).
    pub increment: i64,
    /// MAXVALUE.
    pub max: i64,
    /// MINVALUE (below `max`).
    pub min: i64,
    /// CACHE: values one nextval takes from the page for its session.
    pub cache: i64,
    /// CYCLE: wrap around at the bound instead of failing.
    pub cycle: bool,
}

/// A sequence's counter: the tuple `SELECT * FROM seq` shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeqData {
    /// The last value handed out (or the next one, while `is_called` is false).
    pub last_value: i64,
    /// Values still covered by the last WAL record.
    pub log_cnt: i64,
    /// Whether `last_value` was handed out.
    pub is_called: bool,
}

/// Everything a sequence page holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeqState {
    /// The parameters.
    pub params: SeqParams,
    /// The counter.
    pub data: SeqData,
}

/// What one nextval took from the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fetched {
    /// The value to return.
    pub result: i64,
    /// The last value taken: `result + increment ..= last` are the session's cache.
    pub last: i64,
    /// The sequence's increment.
    pub increment: i64,
    /// The end of the WAL record written, if one was.
    pub logged: Option<Lsn>,
}

/// Why a sequence did not move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeqLimit {
    /// nextval of an ascending sequence without CYCLE passed MAXVALUE (given).
    Max(i64),
    /// nextval of a descending sequence without CYCLE passed MINVALUE (given).
    Min(i64),
    /// setval's value is outside MINVALUE..=MAXVALUE (given).
    OutOfBounds(i64, i64),
}

fn block_zero(locator: RelFileLocator) -> BufferTag {
    BufferTag::new(locator, ForkNumber::Main, 0)
}

/// log_state -- writes an XLOG_SEQ_LOG record of `state` for the locked page
/// and stamps the page with its end.
fn log_state(
    engine: &Engine,
    locator: RelFileLocator,
    page: &mut BufferWriteGuard<'_>,
    state: &SeqState,
) -> Result<Lsn> {
    let block = BlockRef::new(0, locator, ForkNumber::Main, 0)
        .with_flags(BLOCK_WILL_INIT)
        .with_data(state.encode());
    let record = RecordBuilder::new(RmgrId::Sequence, XLOG_SEQ_LOG, Xid::INVALID).with_block(block);
    let end = engine.wal().insert(&record)?;
    page.set_lsn(end);
    Ok(end)
}

/// create -- creates the sequence relation `locator` (its file, WAL-logged)
/// holding `state` (PostgreSQL's fill_seq_with_data). Returns the end of the
/// record that makes it durable.
///
/// `log_cnt` is stored as 0 whatever `state` says: values pre-logged for
/// another file (the relfilenode ALTER SEQUENCE replaces, the template of
/// CREATE DATABASE) are not covered by any record of this one, so its first
/// nextval must log.
pub fn create(engine: &Engine, locator: RelFileLocator, state: &SeqState) -> Result<Lsn> {
    let state = &SeqState { data: SeqData { log_cnt: 0, ..state.data }, ..*state };
    engine.create_relation_fork(locator, ForkNumber::Main)?;
    let buffer = engine.pool().extend(locator, ForkNumber::Main)?;
    if buffer.block() != 0 {
        return Err(AccessError::Internal(format!("sequence file {locator:?} was not empty")));
    }
    let mut page = buffer.write();
    init_page(&mut page, state)?;
    page.mark_dirty();
    log_state(engine, locator, &mut page, state)
}

/// read -- the sequence's current state (PostgreSQL's read_seq_tuple).
pub fn read(engine: &Engine, locator: RelFileLocator) -> Result<SeqState> {
    let buffer = engine.pool().read_buffer(block_zero(locator))?;
    let page = buffer.read();
    read_page(&page)
}

/// nextval -- takes the next `params.cache` values (fewer at a bound) from
/// the page, logging ahead as the module doc describes (PostgreSQL's
/// nextval_internal, below its session cache).
pub fn nextval(
    engine: &Engine,
    locator: RelFileLocator,
) -> Result<std::result::Result<Fetched, SeqLimit>> {
    let buffer = engine.pool().read_buffer(block_zero(locator))?;
    let mut page = buffer.write();
    let state = read_page(&page)?;
    let logged_before_checkpoint = page.lsn() <= engine.wal().redo_ptr();
    let plan = match plan_fetch(&state, logged_before_checkpoint) {
        Ok(plan) => plan,
        Err(limit) => return Ok(Err(limit)),
    };
    page.mark_dirty();
    let mut logged = None;
    if plan.logit {
        let ahead = SeqData { last_value: plan.next, log_cnt: 0, is_called: true };
        logged = Some(log_state(engine, locator, &mut page, &SeqState { data: ahead, ..state })?);
    }
    write_data(&mut page, &SeqData { last_value: plan.last, log_cnt: plan.log, is_called: true })?;
    Ok(Ok(Fetched {
        result: plan.result,
        last: plan.last,
        increment: state.params.increment,
        logged,
    }))
}

/// setval -- sets the counter to `value` (handed out already if `is_called`),
/// logged at once (PostgreSQL's do_setval). Returns the record's end.
pub fn setval(
    engine: &Engine,
    locator: RelFileLocator,
    value: i64,
    is_called: bool,
) -> Result<std::result::Result<Lsn, SeqLimit>> {
    let buffer = engine.pool().read_buffer(block_zero(locator))?;
    let mut page = buffer.write();
    let state = read_page(&page)?;
    let SeqParams { min, max, .. } = state.params;
    if value < min || value > max {
        return Ok(Err(SeqLimit::OutOfBounds(min, max)));
    }
    let data = SeqData { last_value: value, log_cnt: 0, is_called };
    write_data(&mut page, &data)?;
    page.mark_dirty();
    Ok(Ok(log_state(engine, locator, &mut page, &SeqState { data, ..state })?))
}

/// The outcome of stepping a sequence, before the page is touched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FetchPlan {
    /// The value returned.
    result: i64,
    /// The last value taken for the session's cache.
    last: i64,
    /// The value after the pre-logged ones (what a record would log).
    next: i64,
    /// The page's new `log_cnt`.
    log: i64,
    /// Whether a WAL record must be written.
    logit: bool,
}

/// step -- the value after `v`, or `None` past the bound (PostgreSQL's
/// overflow-safe comparisons).
fn step(p: &SeqParams, v: i64) -> Option<i64> {
    let past = if p.increment > 0 {
        (p.max >= 0 && v > p.max - p.increment) || (p.max < 0 && v + p.increment > p.max)
    } else {
        (p.min < 0 && v < p.min - p.increment) || (p.min >= 0 && v + p.increment < p.min)
    };
    (!past).then(|| v + p.increment)
}

/// plan_fetch -- PostgreSQL's fetch loop: takes up to `cache` values for the
/// caller and, when logging, `SEQ_LOG_VALS` more for the record, stopping
/// early at a bound once at least one value was taken.
fn plan_fetch(
    state: &SeqState,
    logged_before_checkpoint: bool,
) -> std::result::Result<FetchPlan, SeqLimit> {
    let p = &state.params;
    let mut next = state.data.last_value;
    let (mut result, mut last) = (next, next);
    let mut fetch = p.cache;
    let mut log = state.data.log_cnt;
    let mut taken = 0;
    if !state.data.is_called {
        // last_value itself is the first value to return.
        taken = 1;
        fetch -= 1;
    }
    let logit = log < fetch || !state.data.is_called || logged_before_checkpoint;
    if logit {
        fetch += SEQ_LOG_VALS;
        log = fetch;
    }
    while fetch > 0 {
        next = match step(p, next) {
            Some(v) => v,
            None if taken > 0 => break,
            None if !p.cycle && p.increment > 0 => return Err(SeqLimit::Max(p.max)),
            None if !p.cycle => return Err(SeqLimit::Min(p.min)),
            None if p.increment > 0 => p.min,
            None => p.max,
        };
        fetch -= 1;
        if taken < p.cache {
            log -= 1;
            taken += 1;
            last = next;
            if taken == 1 {
                result = next;
            }
        }
    }
    Ok(FetchPlan { result, last, next, log: log - fetch, logit })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(increment: i64, min: i64, max: i64, cache: i64, cycle: bool) -> SeqParams {
        SeqParams { typid: 20, start: 1, increment, max, min, cache, cycle }
    }

    fn fresh(p: SeqParams, start: i64) -> SeqState {
        SeqState { params: p, data: SeqData { last_value: start, log_cnt: 0, is_called: false } }
    }

    /// Runs the plan on the state as nextval would and returns the result.
    fn take(s: &mut SeqState, checkpoint: bool) -> std::result::Result<FetchPlan, SeqLimit> {
        let plan = plan_fetch(s, checkpoint)?;
        s.data = SeqData { last_value: plan.last, log_cnt: plan.log, is_called: true };
        Ok(plan)
    }

    #[test]
    fn the_first_call_returns_start_and_logs_ahead() {
        let mut s = fresh(params(1, 1, i64::MAX, 1, false), 1);
        let plan = take(&mut s, false).unwrap();
        assert_eq!((plan.result, plan.last, plan.next, plan.logit), (1, 1, 33, true));
        assert_eq!(s.data.log_cnt, 32);
        for expected in 2..=33 {
            let plan = take(&mut s, false).unwrap();
            assert_eq!(plan.result, expected);
            assert!(!plan.logit, "value {expected} is covered by the first record");
        }
        let plan = take(&mut s, false).unwrap();
        assert_eq!((plan.result, plan.next, plan.logit), (34, 66, true));
    }

    #[test]
    fn a_checkpoint_since_the_last_record_forces_a_new_one() {
        let mut s = fresh(params(1, 1, 100, 1, false), 1);
        take(&mut s, false).unwrap();
        let plan = take(&mut s, true).unwrap();
        assert_eq!((plan.result, plan.next, plan.logit), (2, 34, true));
    }

    #[test]
    fn bounds_fail_or_cycle() {
        let mut s = fresh(params(1, 1, 3, 1, false), 1);
        for v in 1..=3 {
            assert_eq!(take(&mut s, false).unwrap().result, v);
        }
        assert_eq!(take(&mut s, false), Err(SeqLimit::Max(3)));
        let mut s = fresh(params(-1, -2, -1, 1, false), -1);
        assert_eq!(take(&mut s, false).unwrap().result, -1);
        assert_eq!(take(&mut s, false).unwrap().result, -2);
        assert_eq!(take(&mut s, false), Err(SeqLimit::Min(-2)));
        let mut s = fresh(params(2, 1, 5, 1, true), 1);
        let got: Vec<i64> = (0..5).map(|_| take(&mut s, false).unwrap().result).collect();
        assert_eq!(got, [1, 3, 5, 1, 3]);
        // Extremes do not overflow.
        let mut s = fresh(params(i64::MAX, i64::MIN, i64::MAX, 1, false), i64::MAX - 1);
        assert_eq!(take(&mut s, false).unwrap().result, i64::MAX - 1);
        assert_eq!(take(&mut s, false), Err(SeqLimit::Max(i64::MAX)));
        let mut s = fresh(params(i64::MIN + 1, i64::MIN, i64::MAX, 1, false), i64::MIN + 1);
        assert_eq!(take(&mut s, false).unwrap().result, i64::MIN + 1);
        assert_eq!(take(&mut s, false), Err(SeqLimit::Min(i64::MIN)));
    }

    #[test]
    fn a_cache_takes_several_values_and_stops_at_the_bound() {
        let mut s = fresh(params(10, 1, 1000, 5, false), 1);
        let plan = take(&mut s, false).unwrap();
        assert_eq!((plan.result, plan.last), (1, 41));
        let plan = take(&mut s, false).unwrap();
        assert_eq!((plan.result, plan.last), (51, 91));
        let mut s = fresh(params(1, 1, 3, 10, false), 2);
        let plan = take(&mut s, false).unwrap();
        assert_eq!((plan.result, plan.last), (2, 3));
        assert_eq!(take(&mut s, false), Err(SeqLimit::Max(3)));
    }
}
