//! Hash and merge joins (PostgreSQL's `nodeHashjoin.c`/`nodeHash.c` and
//! `nodeMergejoin.c`), the join methods that need equality conditions: the
//! merge join and what both share; the hash join is in `hashjoin.rs`.
//!
//! Both produce the joined row as `outer columns ++ inner columns`, like the
//! nested loop, so the planner can swap one join method for another without
//! touching the expressions above.
//!
//! **Hash join** (`hashjoin.rs`): a hash table of the inner rows probed by
//! each outer row, split into batches on disk when the table passes
//! `work_mem × hash_mem_multiplier`.
//!
//! **Merge join.** Both inputs arrive sorted ascending on the key columns,
//! NULLs last (the planner puts Sort nodes below, which spill like any
//! sort). The join walks them in
//! step: inner rows with a smaller key are skipped, the run of inner rows
//! equal to the outer row's key is kept as the current group, and every
//! outer row with that key pairs with the group. Outer keys only grow, so a
//! group is read once and dropped when the outer key passes it. A RIGHT
//! join returns the inner rows no outer row matched — those skipped, those
//! of a dropped group never paired, and those left when the outer side
//! ends — NULL-extended.
//!
//! The merge join's current group lives in memory and is not bounded by
//! `work_mem` (PostgreSQL re-reads it through mark and restore instead); it
//! holds the inner rows of one key value only.

use super::instrument::Counter;
use super::{ExecHost, JoinKind, Source};
use crate::error::Result;
use crate::expr::{eval, eval_qual, EvalHost, Expr};
use sluice_types::compare::{cmp, hash};
use sluice_types::Datum;
use std::cmp::Ordering;

/// What every join node needs besides its inputs.
pub(super) struct JoinSpec<'e> {
    /// Inner, left or right.
    pub kind: JoinKind,
    /// The join condition beyond the key equalities, over the joined row.
    pub qual: Option<&'e Expr>,
    /// Columns of an outer row (for NULL-extending unmatched inner rows).
    pub outer_width: usize,
    /// Columns of an inner row (for NULL-extending unmatched outer rows).
    pub inner_width: usize,
    /// The plan node's key, for counting rejected pairs (EXPLAIN ANALYZE).
    pub key: usize,
}

/// The key values of `row`, or `None` if one is NULL (it can match nothing).
pub(super) fn key_of(
    keys: &[Expr],
    row: &[Datum],
    host: &mut ExecHost,
) -> Result<Option<Vec<Datum>>> {
    let mut values = Vec::with_capacity(keys.len());
    for k in keys {
        let v = eval(k, row, host)?;
        if v.is_null() {
            return Ok(None);
        }
        values.push(v);
    }
    Ok(Some(values))
}

/// The hash of a join key (both sides hash alike).
pub(super) fn hash_key(key: &[Datum]) -> u64 {
    key.iter().fold(0u64, |h, d| h.rotate_left(5) ^ hash(d))
}

/// Whether two join keys are equal.
pub(super) fn keys_equal(a: &[Datum], b: &[Datum]) -> bool {
    a.iter().zip(b).all(|(x, y)| cmp(x, y) == Ordering::Equal)
}

/// A running merge join.
pub(super) struct MergeJoinSource<'e> {
    outer: Source<'e>,
    inner: Source<'e>,
    spec: JoinSpec<'e>,
    keys: &'e [(usize, usize)],
    /// The next inner row not yet in a group, read ahead.
    pending: Option<Vec<Datum>>,
    /// Whether the inner side is exhausted.
    inner_done: bool,
    /// The current group of inner rows sharing one key, and that key.
    group: Vec<Vec<Datum>>,
    group_key: Option<Vec<Datum>>,
    /// Which rows of the group some outer row matched (RIGHT joins).
    group_matched: Vec<bool>,
    /// Inner rows no outer row matched, NULL-extended, waiting to be
    /// returned (RIGHT joins).
    unmatched: std::collections::VecDeque<Vec<Datum>>,
    /// Whether the outer side is exhausted.
    outer_done: bool,
    /// The outer row being joined, the next group row to try, and whether
    /// one matched.
    current: Option<(Vec<Datum>, usize, bool)>,
}

impl<'e> MergeJoinSource<'e> {
    pub(super) fn new(
        outer: Source<'e>,
        inner: Source<'e>,
        spec: JoinSpec<'e>,
        keys: &'e [(usize, usize)],
    ) -> MergeJoinSource<'e> {
        MergeJoinSource {
            outer,
            inner,
            spec,
            keys,
            pending: None,
            inner_done: false,
            group: Vec::new(),
            group_key: None,
            group_matched: Vec::new(),
            unmatched: Default::default(),
            outer_done: false,
            current: None,
        }
    }

    /// The merge key of an outer (`side` 0) or inner (1) row; `None` if a
    /// key column is NULL.
    fn key(&self, row: &[Datum], side: usize) -> Option<Vec<Datum>> {
        let values: Vec<Datum> =
            self.keys.iter().map(|&(o, i)| row[if side == 0 { o } else { i }].clone()).collect();
        (!values.iter().any(Datum::is_null)).then_some(values)
    }

    /// The next inner row, from the read-ahead slot or the input.
    fn next_inner(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Vec<Datum>>> {
        if let Some(row) = self.pending.take() {
            return Ok(Some(row));
        }
        if self.inner_done {
            return Ok(None);
        }
        let row = self.inner.next(host)?;
        self.inner_done = row.is_none();
        Ok(row)
    }

    /// position -- makes the group the inner rows whose key equals `key`
    /// (empty if there are none), skipping inner rows with smaller keys
    /// (which, like the old group's unmatched rows, a RIGHT join returns
    /// NULL-extended).
    fn position(&mut self, key: &[Datum], host: &mut ExecHost<'e, '_>) -> Result<()> {
        if self.group_key.as_deref().is_some_and(|g| keys_equal(g, key)) {
            return Ok(());
        }
        self.drop_group();
        self.group_key = Some(key.to_vec());
        while let Some(row) = self.next_inner(host)? {
            let order = match self.key(&row, 1) {
                Some(k) => k.iter().zip(key).map(|(a, b)| cmp(a, b)).find(|o| o.is_ne()),
                None => Some(Ordering::Greater), // NULLs sort last
            };
            match order.unwrap_or(Ordering::Equal) {
                Ordering::Less => self.unmatched_inner(row),
                Ordering::Equal => self.group.push(row),
                Ordering::Greater => {
                    self.pending = Some(row);
                    break;
                }
            }
        }
        self.group_matched = vec![false; self.group.len()];
        Ok(())
    }

    /// drop_group -- forgets the current group, keeping its unmatched rows
    /// for a RIGHT join.
    fn drop_group(&mut self) {
        let group = std::mem::take(&mut self.group);
        let matched = std::mem::take(&mut self.group_matched);
        for (row, matched) in group.into_iter().zip(matched) {
            if !matched {
                self.unmatched_inner(row);
            }
        }
        self.group_key = None;
    }

    /// Queues an inner row no outer row matched, if the join keeps those.
    fn unmatched_inner(&mut self, row: Vec<Datum>) {
        if self.spec.kind == JoinKind::Right {
            let mut out = vec![Datum::Null; self.spec.outer_width];
            out.extend(row);
            self.unmatched.push_back(out);
        }
    }

    /// finish -- after the last outer row: every inner row left over is
    /// unmatched.
    fn finish(&mut self, host: &mut ExecHost<'e, '_>) -> Result<()> {
        self.outer_done = true;
        self.drop_group();
        if self.spec.kind == JoinKind::Right {
            while let Some(row) = self.next_inner(host)? {
                self.unmatched_inner(row);
            }
        }
        Ok(())
    }
}

impl<'e> super::RowSource<'e> for MergeJoinSource<'e> {
    fn next(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Vec<Datum>>> {
        loop {
            if let Some(row) = self.unmatched.pop_front() {
                return Ok(Some(row));
            }
            if self.outer_done {
                return Ok(None);
            }
            if self.current.is_none() {
                let Some(row) = self.outer.next(host)? else {
                    self.finish(host)?;
                    continue;
                };
                match self.key(&row, 0) {
                    Some(key) => self.position(&key, host)?,
                    None => self.drop_group(),
                }
                self.current = Some((row, 0, false));
            }
            let (outer, pos, matched) = self.current.as_mut().expect("set");
            while *pos < self.group.len() {
                host.check_interrupts()?;
                let mut joined = outer.clone();
                joined.extend(self.group[*pos].iter().cloned());
                *pos += 1;
                if self.spec.qual.map_or(Ok(true), |q| eval_qual(q, &joined, host))? {
                    *matched = true;
                    self.group_matched[*pos - 1] = true;
                    return Ok(Some(joined));
                }
                super::instrument::count(self.spec.key, Counter::JoinRemoved, 1);
            }
            let (mut outer, _, matched) = self.current.take().expect("set");
            if self.spec.kind == JoinKind::Left && !matched {
                outer.extend(std::iter::repeat_n(Datum::Null, self.spec.inner_width));
                return Ok(Some(outer));
            }
        }
    }
}
