//! A sort that spills (PostgreSQL's `utils/sort/tuplesort.c`, without its
//! logical tapes and replacement selection).
//!
//! Rows collect in memory; while their [`row_size`] stays within
//! `work_mem` the sort is one in-memory sort at [`TupleSort::finish`]
//! (EXPLAIN's "quicksort"). Each time memory passes `work_mem` the rows so
//! far are sorted and written out as a *run*, and memory starts over. Runs
//! follow each other in one [`TempFile`] (a run is a byte range of it, as
//! PostgreSQL's runs are tapes of one logical tape set), so a sort holds
//! one file open however many runs it has. At the end the runs are merged
//! (an "external merge"): a binary heap holds the next row of every run,
//! the smallest is returned and replaced by its run's next row.
//!
//! Each run being merged needs a read block in memory, so at most
//! [`merge_order`] runs are merged at once (PostgreSQL's
//! `tuplesort_merge_order`, at least 6); with more, passes merge groups of
//! that many consecutive runs into longer runs, written to a new file that
//! replaces the old one, until few enough remain.
//!
//! The sort is stable: the in-memory sort is, runs hold consecutive stretches
//! of the input, and the heap breaks ties by run number. Rows with equal
//! keys therefore leave in the order they came, as before sorts spilled.

use super::file::BLOCK;
use super::{row_size, RowReader, TempFile, TempSpace};
use crate::error::Result;
use crate::executor::plan::SortKey;
use sluice_types::compare::cmp;
use sluice_types::Datum;
use std::cmp::Ordering;
use std::rc::Rc;

/// A row.
type Row = Vec<Datum>;

/// compare_rows -- the order of two rows on `keys`.
pub fn compare_rows(a: &[Datum], b: &[Datum], keys: &[SortKey]) -> Ordering {
    for key in keys {
        let (x, y) = (&a[key.column], &b[key.column]);
        let ord = match (x.is_null(), y.is_null()) {
            (true, true) => Ordering::Equal,
            (true, false) if key.nulls_first => Ordering::Less,
            (true, false) => Ordering::Greater,
            (false, true) if key.nulls_first => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) if key.descending => cmp(x, y).reverse(),
            (false, false) => cmp(x, y),
        };
        if ord != Ordering::Equal {
            return ord;
        }
    }
    Ordering::Equal
}

/// merge_order -- how many runs one merge reads at once with `work_mem`
/// bytes: a few read blocks each, at least 6 and at most 500 (as
/// PostgreSQL bounds it).
pub fn merge_order(work_mem: usize) -> usize {
    (work_mem / (4 * BLOCK)).clamp(6, 500)
}

/// A byte range of a sort's file holding one sorted run.
type Run = (u64, u64);

/// Sorted runs: the file and where each run lies in it, in input order.
struct Runs {
    file: TempFile,
    runs: Vec<Run>,
}

/// A sort being filled (see the module doc).
pub struct TupleSort {
    space: Rc<TempSpace>,
    keys: Vec<SortKey>,
    /// Rows not yet in a run, and their size.
    rows: Vec<Row>,
    bytes: usize,
    /// Runs written so far.
    runs: Option<Runs>,
}

impl TupleSort {
    /// An empty sort on `keys` with `space`'s `work_mem`.
    pub fn new(space: &Rc<TempSpace>, keys: Vec<SortKey>) -> TupleSort {
        TupleSort { space: space.clone(), keys, rows: Vec::new(), bytes: 0, runs: None }
    }

    /// put -- adds a row, writing a run when memory passes `work_mem`.
    pub fn put(&mut self, row: Row) -> Result<()> {
        self.bytes += row_size(&row);
        self.rows.push(row);
        if self.bytes > self.space.work_mem() {
            self.write_run()?;
        }
        Ok(())
    }

    /// write_run -- sorts the rows in memory and appends them as a run.
    fn write_run(&mut self) -> Result<()> {
        let keys = &self.keys;
        self.rows.sort_by(|a, b| compare_rows(a, b, keys));
        let runs = match &mut self.runs {
            Some(runs) => runs,
            None => {
                self.runs.insert(Runs { file: TempFile::create(&self.space)?, runs: Vec::new() })
            }
        };
        let start = runs.file.len();
        for row in self.rows.drain(..) {
            runs.file.write_row(&row)?;
        }
        runs.runs.push((start, runs.file.len()));
        self.bytes = 0;
        Ok(())
    }

    /// finish -- the rows in order: sorted in memory, or merged from runs
    /// (after merge passes if there are more than [`merge_order`]).
    pub fn finish(mut self) -> Result<Sorted> {
        if self.runs.is_none() {
            let keys = &self.keys;
            self.rows.sort_by(|a, b| compare_rows(a, b, keys));
            return Ok(Sorted { rows: SortedRows::Memory(self.rows.into_iter()), disk: None });
        }
        if !self.rows.is_empty() {
            self.write_run()?;
        }
        let mut runs = self.runs.take().expect("runs were written");
        let disk = runs.file.len();
        let order = merge_order(self.space.work_mem());
        while runs.runs.len() > order {
            runs = merge_pass(runs, order, &self.keys)?;
        }
        let merger = Merger::new(&runs.file, &runs.runs, self.keys)?;
        Ok(Sorted { rows: SortedRows::Merge(runs.file, merger), disk: Some(disk) })
    }
}

/// merge_pass -- merges each group of `order` consecutive runs into one
/// run of a new file; the old file goes when the pass is done.
fn merge_pass(runs: Runs, order: usize, keys: &[SortKey]) -> Result<Runs> {
    let mut out = Runs { file: TempFile::create(runs.file.space())?, runs: Vec::new() };
    for group in runs.runs.chunks(order) {
        let start = out.file.len();
        let mut merger = Merger::new(&runs.file, group, keys.to_vec())?;
        while let Some(row) = merger.next(&runs.file)? {
            out.file.write_row(&row)?;
        }
        out.runs.push((start, out.file.len()));
    }
    Ok(out)
}

/// The rows of a finished sort, in order.
pub struct Sorted {
    rows: SortedRows,
    /// Bytes of the runs, for an external sort.
    disk: Option<u64>,
}

/// Where sorted rows come from.
enum SortedRows {
    Memory(std::vec::IntoIter<Row>),
    Merge(TempFile, Merger),
}

impl Sorted {
    /// The next row, `None` after the last.
    pub fn next(&mut self) -> Result<Option<Row>> {
        match &mut self.rows {
            SortedRows::Memory(rows) => Ok(rows.next()),
            SortedRows::Merge(file, merger) => merger.next(file),
        }
    }

    /// For an external sort, the bytes its runs took on disk.
    pub fn disk_bytes(&self) -> Option<u64> {
        self.disk
    }
}

/// A k-way merge of sorted runs of one file through a binary min-heap of
/// each run's next row, ties going to the earlier run.
struct Merger {
    readers: Vec<RowReader>,
    /// (row, its run), a heap under [`Merger::less`].
    heap: Vec<(Row, usize)>,
    keys: Vec<SortKey>,
}

impl Merger {
    fn new(file: &TempFile, runs: &[Run], keys: Vec<SortKey>) -> Result<Merger> {
        let mut merger = Merger { readers: Vec::with_capacity(runs.len()), heap: Vec::new(), keys };
        for (i, &(start, end)) in runs.iter().enumerate() {
            let mut reader = RowReader::region(start, end);
            if let Some(row) = reader.next(file)? {
                merger.heap.push((row, i));
                merger.sift_up(merger.heap.len() - 1);
            }
            merger.readers.push(reader);
        }
        Ok(merger)
    }

    /// The smallest row left, replaced in the heap by its run's next.
    fn next(&mut self, file: &TempFile) -> Result<Option<Row>> {
        let Some(&(_, run)) = self.heap.first() else { return Ok(None) };
        let row = match self.readers[run].next(file)? {
            Some(next) => std::mem::replace(&mut self.heap[0], (next, run)).0,
            None => self.heap.swap_remove(0).0,
        };
        self.sift_down(0);
        Ok(Some(row))
    }

    fn less(&self, a: usize, b: usize) -> bool {
        let (x, y) = (&self.heap[a], &self.heap[b]);
        compare_rows(&x.0, &y.0, &self.keys).then(x.1.cmp(&y.1)) == Ordering::Less
    }

    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if !self.less(i, parent) {
                break;
            }
            self.heap.swap(i, parent);
            i = parent;
        }
    }

    fn sift_down(&mut self, mut i: usize) {
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut smallest = i;
            if l < self.heap.len() && self.less(l, smallest) {
                smallest = l;
            }
            if r < self.heap.len() && self.less(r, smallest) {
                smallest = r;
            }
            if smallest == i {
                return;
            }
            self.heap.swap(i, smallest);
            i = smallest;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{files, space};
    use super::*;

    fn keys() -> Vec<SortKey> {
        vec![
            SortKey { column: 0, descending: true, nulls_first: true },
            SortKey { column: 1, descending: false, nulls_first: false },
        ]
    }

    /// Rows with many ties and NULLs in both keys; column 2 is the input
    /// position, which only stability orders.
    fn input(n: i64) -> Vec<Row> {
        (0..n)
            .map(|i| {
                let a = if i % 11 == 0 { Datum::Null } else { Datum::Int8((i * 7919) % 13) };
                let b = if i % 5 == 0 {
                    Datum::Null
                } else {
                    Datum::Text(format!("{}", (i * 31) % 17))
                };
                vec![a, b, Datum::Int8(i)]
            })
            .collect()
    }

    fn sort(rows: Vec<Row>, mut sort: TupleSort) -> Vec<Row> {
        rows.into_iter().for_each(|r| sort.put(r).expect("put"));
        let mut sorted = sort.finish().expect("finish");
        std::iter::from_fn(|| sorted.next().expect("next")).collect()
    }

    #[test]
    fn many_runs_merge_to_the_in_memory_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let rows = input(60_000);
        let mut expected = rows.clone();
        expected.sort_by(|a, b| compare_rows(a, b, &keys()));

        let small = space(dir.path(), 64, None, None);
        let mut external = TupleSort::new(&small, keys());
        rows.iter().cloned().for_each(|r| external.put(r).expect("put"));
        let runs = external.runs.as_ref().map_or(0, |r| r.runs.len());
        assert!(runs > merge_order(64 * 1024), "needs merge passes: {runs} runs");
        let mut sorted = external.finish().expect("finish");
        assert!(sorted.disk_bytes().is_some_and(|b| b > 0));
        let got: Vec<Row> = std::iter::from_fn(|| sorted.next().expect("next")).collect();
        assert_eq!(got.len(), expected.len());
        assert!(got.iter().zip(&expected).all(|(g, e)| format!("{g:?}") == format!("{e:?}")));
        drop(sorted);
        assert_eq!(files(dir.path()), 0, "runs are removed");

        let big = space(dir.path(), 1 << 20, None, None);
        let in_memory = sort(rows, TupleSort::new(&big, keys()));
        assert!(in_memory.iter().zip(&expected).all(|(g, e)| format!("{g:?}") == format!("{e:?}")));
        assert_eq!(files(dir.path()), 0, "an in-memory sort writes nothing");
    }

    #[test]
    fn an_empty_sort_and_a_single_run() {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = space(dir.path(), 64, None, None);
        assert!(sort(Vec::new(), TupleSort::new(&s, keys())).is_empty());
        let got = sort(input(3000), TupleSort::new(&s, keys()));
        assert_eq!(got.len(), 3000);
        assert!(got.windows(2).all(|w| compare_rows(&w[0], &w[1], &keys()) != Ordering::Greater));
    }

    #[test]
    fn merging_checks_for_interrupts_and_cleans_up() {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = space(dir.path(), 64, None, Some(20_000));
        let mut external = TupleSort::new(&s, keys());
        input(30_000).into_iter().for_each(|r| external.put(r).expect("put"));
        let result = external.finish().and_then(|mut sorted| {
            while sorted.next()?.is_some() {}
            Ok(())
        });
        assert_eq!(result.expect_err("cancelled").code, "57014");
        assert_eq!(files(dir.path()), 0);
    }

    #[test]
    fn compare_rows_follows_directions_and_null_placement() {
        let asc = [SortKey { column: 0, descending: false, nulls_first: false }];
        let desc_nulls_last = [SortKey { column: 0, descending: true, nulls_first: false }];
        let (one, two, null) = ([Datum::Int4(1)], [Datum::Int4(2)], [Datum::Null]);
        assert_eq!(compare_rows(&one, &two, &asc), Ordering::Less);
        assert_eq!(compare_rows(&null, &two, &asc), Ordering::Greater);
        assert_eq!(compare_rows(&one, &two, &desc_nulls_last), Ordering::Greater);
        assert_eq!(compare_rows(&null, &one, &desc_nulls_last), Ordering::Greater);
        assert_eq!(compare_rows(&null, &null, &asc), Ordering::Equal);
    }
}
