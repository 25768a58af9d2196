//! Reading ANALYZE's sample out of a heap (PostgreSQL's `acquire_sample_rows`
//! with `heapam_scan_analyze_next_block`/`_next_tuple`).
//!
//! The block sampler chooses which pages to read; every line pointer of a
//! chosen page is looked at, and each tuple version is judged not by a
//! snapshot but by the fate of its inserter and deleter, because ANALYZE
//! wants the table's state "now", plus counts of what VACUUM would have to
//! clean up:
//!
//! | inserter        | deleter                     | counted as | sampled |
//! |-----------------|-----------------------------|------------|---------|
//! | aborted         | —                           | dead       | no      |
//! | running, other  | —                           | —          | no      |
//! | running, us     | none, or not us             | live       | yes     |
//! | running, us     | us                          | dead       | no      |
//! | committed       | none, aborted, only a lock  | live       | yes     |
//! | committed       | running, other              | live       | yes     |
//! | committed       | running, us                 | dead       | no      |
//! | committed       | committed                   | dead       | no      |
//!
//! A row another transaction is inserting is left out, since it may never
//! appear; one being deleted by another transaction still counts, since the
//! delete may roll back; the own transaction's changes count as done
//! (an ANALYZE right after a bulk load in the same transaction should see
//! the load). Dead line pointers count as dead rows. These are PostgreSQL's
//! rules, so VERBOSE reports the same live and dead counts.
//!
//! Each page is copied under its shared content lock and judged on the copy
//! (as `HeapScan` does, for the same reasons); no hint bits are set. The
//! live rows of all chosen pages stream through the reservoir; the result
//! is sorted back into physical order, which the correlation statistic
//! needs. The table's live rows are then estimated from the density of the
//! pages read — exact when every page was read. (PostgreSQL estimates the
//! dead rows the same way for its statistics collector, which sluice does
//! not have yet.)

use super::sampling::{BlockSampler, Reservoir};
use sluice_access::common::htup::HeapTupleHeader;
use sluice_access::heap::multixact::update_xid;
use sluice_access::{AccessError, Engine};
use sluice_common::{ForkNumber, ItemPointer, RelFileLocator, Xid};
use sluice_sql::error::{Result, SqlError};
use sluice_storage::buffer::{BufferAccessStrategy, BufferTag};
use sluice_storage::page::{Page, FIRST_OFFSET};
use sluice_txn::{TransactionManager, XidStatus};

/// What sampling a table found.
#[derive(Debug)]
pub struct Sample {
    /// The sampled tuple versions (header included), in physical order.
    pub tuples: Vec<Vec<u8>>,
    /// Pages read.
    pub scanned_pages: u32,
    /// Pages in the table.
    pub total_pages: u32,
    /// Live rows in the pages read.
    pub live_rows: f64,
    /// Dead rows (and dead line pointers) in the pages read.
    pub dead_rows: f64,
    /// Estimated live rows in the whole table.
    pub total_rows: f64,
}

/// What ANALYZE makes of one tuple version (see the module doc's table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A live row: counted and offered to the sample.
    Live,
    /// A dead row: counted for VACUUM's sake only.
    Dead,
    /// Being inserted by another transaction: not counted at all.
    Ignore,
}

/// Whether `xid` has finished, and how, with running subtransactions
/// counted as running.
fn fate(mgr: &TransactionManager, xid: Xid) -> Result<XidStatus> {
    Ok(match mgr.xid_status(xid)? {
        XidStatus::SubCommitted => XidStatus::InProgress,
        status => status,
    })
}

/// classify -- the [`Verdict`] on `tuple` for a transaction whose own xid
/// (if it has one) is `own`.
pub fn classify(tuple: &[u8], mgr: &TransactionManager, own: Option<Xid>) -> Result<Verdict> {
    let hdr = HeapTupleHeader::new(tuple).map_err(|e| SqlError::from(AccessError::from(e)))?;
    let is_own = |xid: Xid| own == Some(xid);
    // The deleter: a plain xmax, or a multi's update member (never hinted
    // committed).
    let xmax = update_xid(&hdr, mgr).map_err(SqlError::from)?;
    let no_deleter = !xmax.is_valid();
    if !hdr.xmin_committed() {
        if hdr.xmin_invalid() {
            return Ok(Verdict::Dead);
        }
        let xmin = hdr.xmin();
        if is_own(xmin) {
            // Inserted by us: live unless we deleted it too.
            return Ok(if !no_deleter && is_own(xmax) { Verdict::Dead } else { Verdict::Live });
        }
        match fate(mgr, xmin)? {
            XidStatus::Committed => {}
            XidStatus::Aborted => return Ok(Verdict::Dead),
            _ => return Ok(Verdict::Ignore),
        }
    }
    if no_deleter {
        return Ok(Verdict::Live);
    }
    if (hdr.xmax_committed() && !hdr.xmax_is_multi()) || is_own(xmax) {
        return Ok(Verdict::Dead);
    }
    Ok(match fate(mgr, xmax)? {
        XidStatus::Committed => Verdict::Dead,
        // Aborted deleter, or one still running that may yet roll back.
        _ => Verdict::Live,
    })
}

/// The running counts of a sampling pass.
struct Counts {
    live: f64,
    dead: f64,
}

/// sample_page -- judges every line pointer of `page` (block `block`),
/// counting into `counts` and offering live rows to `reservoir`.
fn sample_page(
    page: &Page,
    block: u32,
    mgr: &TransactionManager,
    own: Option<Xid>,
    counts: &mut Counts,
    reservoir: &mut Reservoir<(ItemPointer, Vec<u8>)>,
) -> Result<()> {
    if page.is_new() {
        return Ok(());
    }
    for offset in FIRST_OFFSET..=page.max_offset() {
        let Some(tuple) = page.item(offset) else {
            // Unused and redirect pointers are nothing; dead ones await VACUUM.
            if page.item_id(offset).is_dead() {
                counts.dead += 1.0;
            }
            continue;
        };
        match classify(tuple, mgr, own)? {
            Verdict::Live => {
                counts.live += 1.0;
                reservoir.offer(|| (ItemPointer::new(block, offset), tuple.to_vec()));
            }
            Verdict::Dead => counts.dead += 1.0,
            Verdict::Ignore => {}
        }
    }
    Ok(())
}

/// What to sample and how.
pub struct SampleParams<'a> {
    /// The heap's files.
    pub locator: RelFileLocator,
    /// The sampling transaction's xid, if it has one.
    pub own_xid: Option<Xid>,
    /// Rows wanted (also the number of pages to read at most).
    pub target_rows: usize,
    /// Seed of the block and row samplers.
    pub seed: u64,
    /// Checked once per page (cancel, timeouts).
    pub interrupts: &'a dyn Fn() -> Result<()>,
}

/// acquire_sample_rows -- reads a random sample of up to
/// `params.target_rows` live rows of the heap, and estimates its live and
/// dead rows (see the module doc). The caller holds a lock that keeps the
/// table from being dropped or rewritten (ANALYZE's ShareUpdateExclusive).
pub fn acquire_sample_rows(engine: &Engine, params: &SampleParams) -> Result<Sample> {
    let pool = engine.pool();
    let total_pages = pool.nblocks(params.locator, ForkNumber::Main)?;
    let wanted = u32::try_from(params.target_rows).unwrap_or(u32::MAX);
    let mut blocks = BlockSampler::new(total_pages, wanted, params.seed);
    let mut reservoir = Reservoir::new(params.target_rows, params.seed.rotate_left(32) ^ 1);
    // Big tables read through a small ring of buffers, like a sequential scan.
    let mut strategy = (total_pages as usize > pool.nbuffers() / 4)
        .then(|| BufferAccessStrategy::bulk_read(pool.nbuffers()));
    let mut page = Page::new_zeroed();
    let mut counts = Counts { live: 0.0, dead: 0.0 };
    let mgr = engine.txns();
    for block in blocks.by_ref() {
        (params.interrupts)()?;
        let tag = BufferTag::new(params.locator, ForkNumber::Main, block);
        let buffer = match &mut strategy {
            Some(strategy) => pool.read_buffer_strategy(tag, strategy)?,
            None => pool.read_buffer(tag)?,
        };
        page.as_bytes_mut().copy_from_slice(buffer.read().as_bytes());
        drop(buffer);
        sample_page(&page, block, mgr, params.own_xid, &mut counts, &mut reservoir)?;
    }
    let scanned_pages = blocks.chosen();
    let mut rows = reservoir.into_items();
    rows.sort_unstable_by_key(|(tid, _)| *tid);
    // Extrapolate the density of the pages read to the whole table.
    let total_rows = if scanned_pages == 0 {
        0.0
    } else {
        (counts.live / f64::from(scanned_pages) * f64::from(total_pages) + 0.5).floor()
    };
    Ok(Sample {
        tuples: rows.into_iter().map(|(_, t)| t).collect(),
        scanned_pages,
        total_pages,
        live_rows: counts.live,
        dead_rows: counts.dead,
        total_rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use sluice_access::common::{deform_tuple, form_tuple, AttrDesc, TupleDesc};
    use sluice_access::heap::heapam::{heap_delete, heap_insert};
    use sluice_access::heap::HeapRelation;
    use sluice_access::EngineConfig;
    use sluice_common::DEFAULTTABLESPACE_OID;
    use sluice_txn::{IsolationLevel, Transaction};
    use std::sync::Arc;

    fn open(dir: &std::path::Path) -> Arc<Engine> {
        let config = EngineConfig { shared_buffers: 4 * 1024 * 1024, ..EngineConfig::default() };
        Engine::open(dir, config).expect("engine opens")
    }

    fn int_desc() -> TupleDesc {
        TupleDesc::new(vec![AttrDesc::INT8])
    }

    fn row(i: i64) -> Vec<u8> {
        form_tuple(&int_desc(), &[Some(&i.to_le_bytes()[..])])
    }

    fn value(tuple: &[u8]) -> i64 {
        let desc = int_desc();
        let values = deform_tuple(&desc, tuple).expect("row");
        i64::from_le_bytes(values[0].expect("not null").try_into().expect("8 bytes"))
    }

    fn table(engine: &Engine) -> HeapRelation {
        let rel = HeapRelation::new(RelFileLocator {
            spc_oid: DEFAULTTABLESPACE_OID,
            db_oid: 5,
            rel_number: 16384,
        });
        engine.create_relation_fork(rel.locator, ForkNumber::Main).expect("create");
        rel
    }

    fn insert(
        engine: &Engine,
        rel: &HeapRelation,
        txn: &mut Transaction,
        values: impl Iterator<Item = i64>,
    ) -> Vec<ItemPointer> {
        values.map(|i| heap_insert(engine, rel, txn, &row(i)).expect("insert")).collect()
    }

    fn sample(
        engine: &Engine,
        rel: &HeapRelation,
        own: Option<Xid>,
        target: usize,
        seed: u64,
    ) -> Sample {
        let ok = || Ok(());
        let params = SampleParams {
            locator: rel.locator,
            own_xid: own,
            target_rows: target,
            seed,
            interrupts: &ok,
        };
        acquire_sample_rows(engine, &params).expect("sample")
    }

    #[test]
    fn verdicts_follow_the_inserter_and_deleter() {
        let dir = tempfile::tempdir().unwrap();
        let engine = open(dir.path());
        let rel = table(&engine);
        let backend = engine.txns().register_backend(1).unwrap();
        // 1..=10 committed, then 3 of them deleted and committed.
        let mut txn = backend.begin(IsolationLevel::ReadCommitted);
        let tids = insert(&engine, &rel, &mut txn, 1..=10);
        txn.commit().unwrap();
        let mut txn = backend.begin(IsolationLevel::ReadCommitted);
        for tid in &tids[..3] {
            heap_delete(&engine, &rel, &mut txn, *tid, &|| false).unwrap().unwrap();
        }
        txn.commit().unwrap();
        // 11..=12 rolled back.
        let mut txn = backend.begin(IsolationLevel::ReadCommitted);
        insert(&engine, &rel, &mut txn, 11..=12);
        txn.rollback();
        // Another session is inserting 13 and deleting 4 (both still running).
        let other = engine.txns().register_backend(2).unwrap();
        let mut running = other.begin(IsolationLevel::ReadCommitted);
        insert(&engine, &rel, &mut running, 13..=13);
        heap_delete(&engine, &rel, &mut running, tids[3], &|| false).unwrap().unwrap();
        // We insert 14 and 15 and delete 15 and 5.
        let mut ours = backend.begin(IsolationLevel::ReadCommitted);
        let mine = insert(&engine, &rel, &mut ours, 14..=15);
        ours.increment_command();
        heap_delete(&engine, &rel, &mut ours, mine[1], &|| false).unwrap().unwrap();
        heap_delete(&engine, &rel, &mut ours, tids[4], &|| false).unwrap().unwrap();

        let s = sample(&engine, &rel, ours.xid(), 30_000, 7);
        // Live: 4 (delete in progress elsewhere), 6..=10, 14. Dead: 1..=3
        // (deleted), 11, 12 (aborted), 15 and 5 (deleted by us). 13: ignored.
        let got: Vec<i64> = s.tuples.iter().map(|t| value(t)).collect();
        assert_eq!(got, vec![4, 6, 7, 8, 9, 10, 14]);
        assert_eq!((s.live_rows, s.dead_rows), (7.0, 7.0));
        assert_eq!((s.scanned_pages, s.total_pages), (1, 1));
        assert_eq!(s.total_rows, 7.0);
        // Seen from the other session, its own insert counts and ours is ignored.
        let s = sample(&engine, &rel, running.xid(), 30_000, 7);
        let got: Vec<i64> = s.tuples.iter().map(|t| value(t)).collect();
        assert_eq!(got, vec![5, 6, 7, 8, 9, 10, 13]);
        running.rollback();
        ours.rollback();
    }

    #[test]
    fn big_tables_are_sampled_in_physical_order_and_extrapolated() {
        let dir = tempfile::tempdir().unwrap();
        let engine = open(dir.path());
        let rel = table(&engine);
        let backend = engine.txns().register_backend(1).unwrap();
        let mut txn = backend.begin(IsolationLevel::ReadCommitted);
        insert(&engine, &rel, &mut txn, 0..20_000);
        txn.commit().unwrap();
        let full = sample(&engine, &rel, None, 30_000, 1);
        assert_eq!(full.tuples.len(), 20_000);
        assert_eq!(full.total_rows, 20_000.0);
        assert!(full.total_pages > 50);
        // 50 rows: 50 pages at most are read, 50 rows kept, in physical order.
        let s = sample(&engine, &rel, None, 50, 1);
        assert_eq!(s.scanned_pages, 50);
        assert_eq!(s.tuples.len(), 50);
        let got: Vec<i64> = s.tuples.iter().map(|t| value(t)).collect();
        assert!(got.windows(2).all(|w| w[0] < w[1]), "{got:?}");
        // Pages are equally full, so the estimate is close to the truth.
        assert!((s.total_rows - 20_000.0).abs() < 400.0, "{}", s.total_rows);
        // The same seed reads the same sample.
        let again = sample(&engine, &rel, None, 50, 1);
        assert_eq!(again.tuples, s.tuples);
    }
}
