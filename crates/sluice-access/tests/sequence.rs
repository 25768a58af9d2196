//! Sequence pages across crashes: values handed out (their WAL flushed, as the
//! SQL layer ensures) are never handed out again after recovery, whether the
//! page reached disk or not, with checkpoints in between; setval is durable.

mod support;

use sluice_access::sequence::{self, Fetched, SeqData, SeqParams, SeqState};
use sluice_access::Engine;
use sluice_common::{RelFileLocator, DEFAULTTABLESPACE_OID};
use support::open;

fn locator(rel_number: u32) -> RelFileLocator {
    RelFileLocator { spc_oid: DEFAULTTABLESPACE_OID, db_oid: 5, rel_number }
}

fn new_sequence(engine: &Engine, rel: RelFileLocator, increment: i64) {
    let state = SeqState {
        params: SeqParams {
            typid: 20,
            start: 1,
            increment,
            max: i64::MAX,
            min: -1_000_000,
            cache: 1,
            cycle: false,
        },
        data: SeqData { last_value: 1, log_cnt: 0, is_called: false },
    };
    let end = sequence::create(engine, rel, &state).unwrap();
    engine.wal().flush(end).unwrap();
}

/// nextval, with the record flushed before the value counts as handed out.
fn next(engine: &Engine, rel: RelFileLocator) -> i64 {
    let Fetched { result, logged, .. } = sequence::nextval(engine, rel).unwrap().unwrap();
    if let Some(end) = logged {
        engine.wal().flush(end).unwrap();
    }
    result
}

#[test]
fn values_handed_out_are_never_repeated_after_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let rel = locator(16390);
    let mut highest = 0;
    for round in 0..4 {
        let engine = open(dir.path());
        if round == 0 {
            new_sequence(&engine, rel, 1);
        }
        for i in 0..150 {
            if i == 146 && round % 2 == 1 {
                // The page reaches disk with a counter covered by a record
                // before the redo point; the next values must be logged again.
                engine.checkpoint().unwrap();
            }
            let v = next(&engine, rel);
            assert!(v > highest, "round {round}: {v} handed out again (highest {highest})");
            highest = v;
        }
        drop(engine); // crash: no shutdown checkpoint
    }
    let engine = open(dir.path());
    let state = sequence::read(&engine, rel).unwrap();
    assert!(state.data.last_value >= highest && state.data.is_called);
    assert!(state.data.last_value <= highest + sequence::SEQ_LOG_VALS, "skips at most 32");
}

#[test]
fn setval_and_descending_sequences_survive_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let (up, down) = (locator(16391), locator(16392));
    {
        let engine = open(dir.path());
        new_sequence(&engine, up, 1);
        new_sequence(&engine, down, -5);
        let end = sequence::setval(&engine, up, 1000, true).unwrap().unwrap();
        engine.wal().flush(end).unwrap();
        assert_eq!(next(&engine, down), 1);
        assert_eq!(next(&engine, down), -4);
        assert!(matches!(
            sequence::setval(&engine, up, -2_000_000, false).unwrap(),
            Err(sequence::SeqLimit::OutOfBounds(-1_000_000, i64::MAX))
        ));
    }
    let engine = open(dir.path());
    assert_eq!(next(&engine, up), 1001);
    assert!(next(&engine, down) < -4);
}

#[test]
fn concurrent_nextval_hands_out_each_value_once() {
    let dir = tempfile::tempdir().unwrap();
    let rel = locator(16393);
    let engine = open(dir.path());
    new_sequence(&engine, rel, 1);
    let mut all: Vec<i64> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..4)
            .map(|_| s.spawn(|| (0..500).map(|_| next(&engine, rel)).collect::<Vec<_>>()))
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
    });
    all.sort_unstable();
    assert_eq!(all, (1..=2000).collect::<Vec<_>>());
}
