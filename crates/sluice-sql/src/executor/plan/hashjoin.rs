//! Hash join (PostgreSQL's `nodeHashjoin.c` and `nodeHash.c`), in batches
//! when the inner side does not fit in memory.
//!
//! The first call reads the whole inner input into a table keyed by the
//! hash of its key values (PostgreSQL's Hash node; sluice keeps it inside
//! the join and EXPLAIN prints the `Hash` child). Each outer row then looks
//! up its own keys and is paired with every inner row whose keys are equal;
//! the remaining join condition (`qual`) is checked on the pair. A NULL key
//! never matches (`=` is strict), so such rows are not hashed, but a RIGHT
//! join keeps them to emit NULL-extended at the end, together with every
//! inner row no outer row matched.
//!
//! # Batches
//! While the table stays within `work_mem × hash_mem_multiplier` everything
//! happens in memory, as above, in one batch. When it grows past that, the
//! join doubles its number of batches (a power of two) and a row's batch
//! becomes some bits of its key's hash: rows of the table whose batch is no
//! longer the current one move to that batch's inner file, and later inner
//! rows of other batches go straight to their files. Outer rows of other
//! batches likewise go to outer files while batch 0 is probed. Each later
//! batch then loads its inner file into a fresh table, probes it with its
//! outer file's rows and, for a RIGHT join, emits its unmatched inner rows.
//! Doubling can happen again while a batch loads; a row whose batch changed
//! since it was written is moved on to its new batch's file when its file is
//! read (the batch number only grows). As in PostgreSQL, a doubling that
//! moves no row, or every row, shows the keys are too skewed to split, and
//! the table then grows past the limit instead (`growEnabled`).
//!
//! At most [`MAX_BATCHES`] batches: each has up to two open files, and each
//! file buffers a block, so the files' buffers (16 MB at most) are bounded
//! but not by `work_mem`, as PostgreSQL's per-batch BufFiles are not.
//!
//! Files hold `key ++ row`, so neither side's keys are evaluated twice.
//! With batches, the inner rows with NULL keys of a RIGHT join (unmatched
//! by definition) wait in a tuplestore and come last. An outer row with a
//! NULL key is joined (or, LEFT, NULL-extended) at once, never written.
//!
//! In one batch the output order is the outer side's (each outer row's
//! matches in inner order, then a RIGHT join's unmatched inner rows in
//! inner order); with several it is batch by batch.

use super::instrument::Counter;
use super::join::{hash_key, key_of, keys_equal, JoinSpec};
use super::{ExecHost, JoinKind, Source};
use crate::error::Result;
use crate::executor::spill::tuplestore::{Cursor, TupleStore};
use crate::executor::spill::{row_size, RowReader, TempFile, TempSpace};
use crate::expr::{eval_qual, EvalHost, Expr};
use sluice_types::Datum;
use std::collections::HashMap;
use std::rc::Rc;

/// A row.
type Row = Vec<Datum>;

/// The most batches a join splits into: each may hold two open files.
const MAX_BATCHES: usize = 1024;

/// Bytes a table entry costs beyond its rows (bucket slot, flags).
const ENTRY: usize = 48;

/// One batch's hash table: inner rows with their keys (`None`: a NULL key,
/// RIGHT joins only), whether one matched, and the rows of each hash value.
#[derive(Default)]
struct HashTable {
    rows: Vec<(Option<Row>, Row)>,
    matched: Vec<bool>,
    buckets: HashMap<u64, Vec<usize>>,
    /// Memory held.
    bytes: usize,
}

impl HashTable {
    fn insert(&mut self, key: Option<Row>, row: Row) {
        if let Some(k) = &key {
            self.buckets.entry(hash_key(k)).or_default().push(self.rows.len());
        }
        self.bytes += ENTRY + row_size(&row) + key.as_deref().map_or(0, row_size);
        self.rows.push((key, row));
        self.matched.push(false);
    }

    /// take -- empties the table, returning its rows.
    fn take(&mut self) -> Vec<(Option<Row>, Row)> {
        let rows = std::mem::take(&mut self.rows);
        *self = HashTable::default();
        rows
    }

    /// The rows whose keys equal `key`.
    fn candidates(&self, key: &[Datum]) -> Vec<usize> {
        let Some(bucket) = self.buckets.get(&hash_key(key)) else { return Vec::new() };
        let equal = |&i: &usize| self.rows[i].0.as_deref().is_some_and(|k| keys_equal(k, key));
        bucket.iter().copied().filter(equal).collect()
    }
}

/// The batches of a join that outgrew memory.
struct Batches {
    space: Rc<TempSpace>,
    /// A power of two.
    nbatch: usize,
    /// Per batch, its inner and outer rows not yet joined.
    inner: Vec<Option<TempFile>>,
    outer: Vec<Option<TempFile>>,
    /// Whether doubling may still help (see the module doc).
    grow: bool,
    /// RIGHT joins: inner rows with a NULL key.
    null_keys: TupleStore,
}

impl Batches {
    fn new(space: Rc<TempSpace>) -> Batches {
        let null_keys = TupleStore::new(&space);
        Batches { space, nbatch: 1, inner: vec![None], outer: vec![None], grow: true, null_keys }
    }

    /// The batch of a key: bits of its hash, mixed so that they are not the
    /// bits the table's buckets use.
    fn batch_of(&self, key: &[Datum]) -> usize {
        let mut x = hash_key(key);
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        (x >> 32) as usize & (self.nbatch - 1)
    }

    /// double -- twice the batches; false when at the maximum.
    fn double(&mut self) -> bool {
        if self.nbatch >= MAX_BATCHES {
            return false;
        }
        self.nbatch *= 2;
        self.inner.resize_with(self.nbatch, || None);
        self.outer.resize_with(self.nbatch, || None);
        true
    }

    /// write -- appends `key ++ row` to batch `batch`'s inner or outer file.
    fn write(&mut self, inner: bool, batch: usize, key: &[Datum], row: &[Datum]) -> Result<()> {
        let files = if inner { &mut self.inner } else { &mut self.outer };
        let file = match &mut files[batch] {
            Some(file) => file,
            slot => slot.insert(TempFile::create(&self.space)?),
        };
        let mut stored = Vec::with_capacity(key.len() + row.len());
        stored.extend_from_slice(key);
        stored.extend_from_slice(row);
        file.write_row(&stored)
    }
}

/// Where the join is.
enum Phase {
    /// Joining outer rows with the current batch's table.
    Probe,
    /// RIGHT joins: emitting the table's unmatched rows, from this one.
    Unmatched(usize),
    /// RIGHT joins with batches: emitting the inner rows with NULL keys.
    NullKeys(Cursor),
    Done,
}

/// The outer row being joined, the inner rows it may match, how many of
/// them were tried, and whether one matched.
type Probe = (Row, Vec<usize>, usize, bool);

/// A running hash join.
pub(super) struct HashJoinSource<'e> {
    /// The outer input, until it ends.
    outer: Option<Source<'e>>,
    /// The inner input, until the first table is built.
    inner: Option<Source<'e>>,
    spec: JoinSpec<'e>,
    outer_keys: &'e [Expr],
    inner_keys: &'e [Expr],
    space: Option<Rc<TempSpace>>,
    table: HashTable,
    /// Once the table outgrew memory.
    batches: Option<Batches>,
    /// The batch being joined.
    batch: usize,
    /// After batch 0: the current batch's outer rows.
    outer_file: Option<(TempFile, RowReader)>,
    current: Option<Probe>,
    phase: Phase,
}

impl<'e> HashJoinSource<'e> {
    pub(super) fn new(
        outer: Source<'e>,
        inner: Source<'e>,
        spec: JoinSpec<'e>,
        (outer_keys, inner_keys): (&'e [Expr], &'e [Expr]),
    ) -> HashJoinSource<'e> {
        HashJoinSource {
            outer: Some(outer),
            inner: Some(inner),
            spec,
            outer_keys,
            inner_keys,
            space: None,
            table: HashTable::default(),
            batches: None,
            batch: 0,
            outer_file: None,
            current: None,
            phase: Phase::Probe,
        }
    }

    fn space(&self) -> &Rc<TempSpace> {
        self.space.as_ref().expect("set when the join starts")
    }

    /// build -- reads the inner side into the table or its batch files
    /// (the Hash node).
    fn build(&mut self, mut inner: Source<'e>, host: &mut ExecHost<'e, '_>) -> Result<()> {
        while let Some(row) = inner.next(host)? {
            let key = key_of(self.inner_keys, &row, host)?;
            if key.is_none() && self.spec.kind != JoinKind::Right {
                continue;
            }
            self.add_inner(key, row)?;
        }
        Ok(())
    }

    /// add_inner -- puts an inner row where it belongs: the current table,
    /// another batch's file or (with batches) the NULL-key rows.
    fn add_inner(&mut self, key: Option<Row>, row: Row) -> Result<()> {
        if let Some(batches) = &mut self.batches {
            let Some(k) = &key else { return batches.null_keys.push(row) };
            let batch = batches.batch_of(k);
            if batch != self.batch {
                return batches.write(true, batch, k, &row);
            }
        }
        self.table.insert(key, row);
        let may_grow = self.batches.as_ref().is_none_or(|b| b.grow);
        if may_grow && self.table.bytes > self.space().hash_mem() {
            self.grow()?;
        }
        Ok(())
    }

    /// grow -- doubles the batches and moves the table's rows that now
    /// belong elsewhere out of it.
    fn grow(&mut self) -> Result<()> {
        let space = self.space().clone();
        let batches = self.batches.get_or_insert_with(|| Batches::new(space));
        if !batches.double() {
            batches.grow = false;
            return Ok(());
        }
        let rows = self.table.take();
        let (total, mut moved) = (rows.len(), 0);
        for (key, row) in rows {
            match key {
                None => batches.null_keys.push(row)?,
                Some(k) if batches.batch_of(&k) != self.batch => {
                    batches.write(true, batches.batch_of(&k), &k, &row)?
                }
                Some(k) => {
                    self.table.insert(Some(k), row);
                    continue;
                }
            }
            moved += 1;
        }
        if moved == 0 || moved == total {
            batches.grow = false;
        }
        Ok(())
    }

    /// next_outer -- the next outer row of the current batch and its key
    /// (`None`: NULL), writing rows of other batches to their files.
    fn next_outer(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<(Row, Option<Row>)>> {
        let width = self.outer_keys.len();
        loop {
            let (row, key) = if let Some((file, reader)) = &mut self.outer_file {
                let Some(mut row) = reader.next(file)? else { return Ok(None) };
                let rest = row.split_off(width);
                (rest, Some(row))
            } else {
                let Some(outer) = &mut self.outer else { return Ok(None) };
                let Some(row) = outer.next(host)? else {
                    self.outer = None;
                    return Ok(None);
                };
                let key = key_of(self.outer_keys, &row, host)?;
                (row, key)
            };
            if let (Some(batches), Some(k)) = (&mut self.batches, &key) {
                let batch = batches.batch_of(k);
                if batch != self.batch {
                    batches.write(false, batch, k, &row)?;
                    continue;
                }
            }
            return Ok(Some((row, key)));
        }
    }

    /// next_batch -- moves to the next batch that can produce rows, loading
    /// its table; what comes after the last.
    fn next_batch(&mut self) -> Result<Phase> {
        self.outer_file = None;
        loop {
            let Some(batches) = &mut self.batches else { return Ok(Phase::Done) };
            self.batch += 1;
            if self.batch >= batches.nbatch {
                let right = self.spec.kind == JoinKind::Right && !batches.null_keys.is_empty();
                return Ok(if right { Phase::NullKeys(Cursor::default()) } else { Phase::Done });
            }
            let inner = batches.inner[self.batch].take();
            let outer = batches.outer[self.batch].take();
            // Without outer rows an inner or left join gets nothing from
            // this batch, but rows of later batches may wait in its file.
            let probe = outer.is_some() || self.spec.kind == JoinKind::Right;
            self.table = HashTable::default();
            if let Some(file) = inner {
                self.load(&file, probe)?;
            }
            if probe {
                self.outer_file = outer.map(|f| (f, RowReader::new()));
                return Ok(Phase::Probe);
            }
        }
    }

    /// load -- reads an inner batch file: its rows go to the table (unless
    /// `!keep`) or on to the batch they now belong to.
    fn load(&mut self, file: &TempFile, keep: bool) -> Result<()> {
        let width = self.inner_keys.len();
        let mut reader = RowReader::new();
        while let Some(mut key) = reader.next(file)? {
            let row = key.split_off(width);
            let batches = self.batches.as_mut().expect("batched");
            let batch = batches.batch_of(&key);
            if batch != self.batch {
                batches.write(true, batch, &key, &row)?;
            } else if keep {
                self.add_inner(Some(key), row)?;
            }
        }
        Ok(())
    }

    /// probe -- the next joined row for the current outer row, or (LEFT)
    /// the row NULL-extended; `None` when it has no more.
    fn probe(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Row>> {
        let (outer, candidates, pos, matched) = self.current.as_mut().expect("set");
        while *pos < candidates.len() {
            host.check_interrupts()?;
            let i = candidates[*pos];
            *pos += 1;
            let mut joined = outer.clone();
            joined.extend(self.table.rows[i].1.iter().cloned());
            if self.spec.qual.map_or(Ok(true), |q| eval_qual(q, &joined, host))? {
                *matched = true;
                self.table.matched[i] = true;
                return Ok(Some(joined));
            }
            super::instrument::count(self.spec.key, Counter::JoinRemoved, 1);
        }
        let (mut outer, _, _, matched) = self.current.take().expect("set");
        if self.spec.kind == JoinKind::Left && !matched {
            outer.extend(std::iter::repeat_n(Datum::Null, self.spec.inner_width));
            return Ok(Some(outer));
        }
        Ok(None)
    }

    /// An inner row NULL-extended on the left.
    fn null_extended(&self, inner: &[Datum]) -> Row {
        let mut row = vec![Datum::Null; self.spec.outer_width];
        row.extend(inner.iter().cloned());
        row
    }
}

impl<'e> super::RowSource<'e> for HashJoinSource<'e> {
    fn next(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Row>> {
        if let Some(inner) = self.inner.take() {
            self.space = Some(host.temp_space());
            self.build(inner, host)?;
        }
        loop {
            match &mut self.phase {
                Phase::Probe => {
                    if self.current.is_none() {
                        let Some((row, key)) = self.next_outer(host)? else {
                            self.phase = match self.spec.kind {
                                JoinKind::Right => Phase::Unmatched(0),
                                _ => self.next_batch()?,
                            };
                            continue;
                        };
                        let candidates = key.map(|k| self.table.candidates(&k)).unwrap_or_default();
                        self.current = Some((row, candidates, 0, false));
                    }
                    if let Some(row) = self.probe(host)? {
                        return Ok(Some(row));
                    }
                }
                Phase::Unmatched(pos) => {
                    let found = (*pos..self.table.rows.len()).find(|&i| !self.table.matched[i]);
                    match found {
                        Some(i) => {
                            *pos = i + 1;
                            return Ok(Some(self.null_extended(&self.table.rows[i].1)));
                        }
                        None => self.phase = self.next_batch()?,
                    }
                }
                Phase::NullKeys(cursor) => {
                    let batches = self.batches.as_ref().expect("batched");
                    match batches.null_keys.read(cursor)? {
                        Some(inner) => return Ok(Some(self.null_extended(&inner))),
                        None => self.phase = Phase::Done,
                    }
                }
                Phase::Done => return Ok(None),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::spill::tests::{files, space};

    /// A join over nothing whose table is filled by hand, with a 64kB
    /// work_mem (128kB for hash tables).
    fn join(dir: &std::path::Path) -> HashJoinSource<'static> {
        let none = || -> Source<'static> { Box::new(super::super::Rows::new(Vec::new())) };
        let spec =
            JoinSpec { kind: JoinKind::Inner, qual: None, outer_width: 1, inner_width: 1, key: 0 };
        let mut join = HashJoinSource::new(none(), none(), spec, (&[], &[]));
        join.space = Some(space(dir, 64, None, None));
        join
    }

    #[test]
    fn an_overflowing_table_splits_into_batches_on_disk() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut join = join(dir.path());
        for i in 0..20_000 {
            join.add_inner(Some(vec![Datum::Int4(i)]), vec![Datum::Int4(i)]).expect("add");
        }
        let batches = join.batches.as_ref().expect("batched");
        assert!(batches.nbatch >= 16, "{} batches", batches.nbatch);
        assert!(batches.grow);
        assert!(join.table.bytes <= 2 * 128 * 1024, "the table stays near its limit");
        let written = batches.inner.iter().flatten().count();
        assert!(written > 0 && files(dir.path()) == written);
        // Every row is in the table or in the file of its batch.
        let in_table = join.table.rows.len();
        assert!(join.table.rows.iter().all(|(k, _)| batches.batch_of(k.as_ref().unwrap()) == 0));
        let mut on_disk = 0;
        for (b, file) in batches.inner.iter().enumerate() {
            let Some(file) = file else { continue };
            let mut reader = RowReader::new();
            while let Some(row) = reader.next(file).expect("read") {
                // A row written before a later doubling may now belong to a
                // later batch of the same residue, never an earlier one.
                assert_eq!(batches.batch_of(&row[..1]) % (b + 1).next_power_of_two(), b);
                on_disk += 1;
            }
        }
        assert_eq!(in_table + on_disk, 20_000);
        drop(join);
        assert_eq!(files(dir.path()), 0);
    }

    #[test]
    fn a_single_key_stops_the_doubling_and_stays_in_memory() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut join = join(dir.path());
        for i in 0..20_000 {
            join.add_inner(Some(vec![Datum::Int4(7)]), vec![Datum::Int4(i)]).expect("add");
        }
        let batches = join.batches.as_ref().expect("batched once");
        assert!(!batches.grow, "splitting one key moves nothing or everything");
        assert_eq!(batches.nbatch, 2);
        // All rows share one batch: the table's, or batch 1's file.
        let in_file = batches.inner[1].as_ref().map_or(0, |file| {
            let mut reader = RowReader::new();
            std::iter::from_fn(|| reader.next(file).expect("read")).count()
        });
        assert_eq!(join.table.rows.len() + in_file, 20_000);
        assert!(join.table.rows.is_empty() || in_file == 0);
    }

    #[test]
    fn batches_split_keys_and_only_grow() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut batches = Batches::new(space(dir.path(), 64, None, None));
        let keys: Vec<Row> = (0..1000).map(|i| vec![Datum::Int4(i)]).collect();
        assert!(keys.iter().all(|k| batches.batch_of(k) == 0));
        let mut before: Vec<usize> = keys.iter().map(|k| batches.batch_of(k)).collect();
        for _ in 0..4 {
            assert!(batches.double());
            let after: Vec<usize> = keys.iter().map(|k| batches.batch_of(k)).collect();
            // A key stays in its batch or moves to a later one, never back.
            assert!(before.iter().zip(&after).all(|(b, a)| a == b || *a == b + batches.nbatch / 2));
            before = after;
        }
        let used: std::collections::HashSet<usize> = before.into_iter().collect();
        assert_eq!(used.len(), 16, "1000 keys reach every one of 16 batches");
    }
}
