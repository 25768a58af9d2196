//! A tuplestore (PostgreSQL's `utils/sort/tuplestore.c`): rows appended at
//! the end and read back in order, by any number of independent
//! [`Cursor`]s, each as often as it likes.
//!
//! Rows stay in memory until their [`row_size`] passes `work_mem`; then all
//! of them move to one [`TempFile`] and later rows are appended there. Memory
//! is then one write block plus one read block per cursor that reads.
//!
//! A cursor is a row index plus, once the store is on disk, a reader at
//! that row's offset. A cursor that was reading from memory when the store
//! spilled finds its offset by skipping that many frames, once. Reading
//! while rows are still being appended is allowed: a cursor at the end
//! sees `None` now and the new rows later (a WITH query's readers).

use super::{row_size, RowReader, TempFile, TempSpace};
use crate::error::Result;
use sluice_types::Datum;
use std::rc::Rc;

/// A row.
type Row = Vec<Datum>;

/// Rows kept for reading back (see the module doc).
pub struct TupleStore {
    space: Rc<TempSpace>,
    /// Rows while in memory.
    rows: Vec<Row>,
    /// Their size.
    bytes: usize,
    /// Every row, once spilled.
    file: Option<TempFile>,
    /// The number of rows.
    len: usize,
}

/// A reader's position in a [`TupleStore`].
#[derive(Default)]
pub struct Cursor {
    /// The next row's index.
    index: usize,
    /// Where that row starts in the file (once the store is on disk).
    reader: Option<RowReader>,
}

impl Cursor {
    /// rewind -- back to the first row.
    pub fn rewind(&mut self) {
        *self = Cursor::default();
    }
}

impl TupleStore {
    /// An empty store with `space`'s `work_mem`.
    pub fn new(space: &Rc<TempSpace>) -> TupleStore {
        TupleStore { space: space.clone(), rows: Vec::new(), bytes: 0, file: None, len: 0 }
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// push -- appends `row`, spilling when memory passes `work_mem`.
    pub fn push(&mut self, row: Row) -> Result<()> {
        if let Some(file) = &mut self.file {
            file.write_row(&row)?;
        } else {
            self.bytes += row_size(&row);
            self.rows.push(row);
            if self.bytes > self.space.work_mem() {
                self.spill()?;
            }
        }
        self.len += 1;
        Ok(())
    }

    /// spill -- moves the rows in memory to a new file.
    fn spill(&mut self) -> Result<()> {
        let mut file = TempFile::create(&self.space)?;
        for row in &self.rows {
            file.write_row(row)?;
        }
        self.rows = Vec::new();
        self.bytes = 0;
        self.file = Some(file);
        Ok(())
    }

    /// read -- the row at `cursor`, moving it on; `None` past the last row
    /// (for now: rows pushed later are read next).
    pub fn read(&self, cursor: &mut Cursor) -> Result<Option<Row>> {
        let row = match &self.file {
            None => self.rows.get(cursor.index).cloned(),
            Some(file) => {
                let reader = match &mut cursor.reader {
                    Some(reader) => reader,
                    None => {
                        let mut reader = RowReader::new();
                        for _ in 0..cursor.index {
                            reader.skip(file)?;
                        }
                        cursor.reader.insert(reader)
                    }
                };
                reader.next(file)?
            }
        };
        if row.is_some() {
            cursor.index += 1;
        }
        Ok(row)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{files, space};
    use super::*;

    fn row(i: i32) -> Row {
        vec![Datum::Int4(i), Datum::Text("x".repeat((i % 7) as usize))]
    }

    /// Every row a cursor reads from where it is.
    fn drain(store: &TupleStore, cursor: &mut Cursor) -> Vec<Row> {
        std::iter::from_fn(|| store.read(cursor).expect("read")).collect()
    }

    #[test]
    fn small_stores_stay_in_memory() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = TupleStore::new(&space(dir.path(), 64, None, None));
        (0..100).for_each(|i| store.push(row(i)).expect("push"));
        assert!(store.file.is_none());
        assert_eq!(files(dir.path()), 0);
        assert_eq!(drain(&store, &mut Cursor::default()), (0..100).map(row).collect::<Vec<_>>());
    }

    #[test]
    fn a_spilled_store_reads_back_with_several_cursors_and_rewinds() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = TupleStore::new(&space(dir.path(), 64, None, None));
        let (mut early, mut late) = (Cursor::default(), Cursor::default());
        let mut seen_early = Vec::new();
        for i in 0..20_000 {
            store.push(row(i)).expect("push");
            // One cursor follows the producer row by row, across the spill.
            seen_early.extend(store.read(&mut early).expect("read"));
        }
        assert!(store.file.is_some(), "20 000 rows are far above 64kB");
        assert_eq!(files(dir.path()), 1);
        let all: Vec<Row> = (0..20_000).map(row).collect();
        assert_eq!(seen_early, all);
        assert_eq!(drain(&store, &mut late), all, "a cursor that starts after the spill");
        late.rewind();
        assert_eq!(drain(&store, &mut late), all, "and again after a rewind");
        assert!(store.read(&mut early).expect("read").is_none());
        store.push(row(99_999)).expect("push");
        assert_eq!(store.read(&mut early).expect("read"), Some(row(99_999)));
        assert_eq!(store.len, 20_001);
        drop(store);
        assert_eq!(files(dir.path()), 0);
    }

    #[test]
    fn a_memory_cursor_catches_up_after_the_spill() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = TupleStore::new(&space(dir.path(), 64, None, None));
        let mut cursor = Cursor::default();
        store.push(row(0)).expect("push");
        store.push(row(1)).expect("push");
        assert_eq!(store.read(&mut cursor).expect("read"), Some(row(0)));
        (2..5000).for_each(|i| store.push(row(i)).expect("push"));
        assert!(store.file.is_some());
        assert_eq!(drain(&store, &mut cursor), (1..5000).map(row).collect::<Vec<_>>());
    }

    #[test]
    fn reading_spilled_rows_checks_for_interrupts() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = TupleStore::new(&space(dir.path(), 64, None, Some(100)));
        (0..5000).for_each(|i| store.push(row(i)).expect("push"));
        let mut cursor = Cursor::default();
        let err =
            (0..5000).try_for_each(|_| store.read(&mut cursor).map(drop)).expect_err("cancel");
        assert_eq!(err.code, "57014");
    }
}
