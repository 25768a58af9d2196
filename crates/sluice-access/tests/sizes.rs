//! The seed-001 table at full size: `t(id bigint, name text, memo text)` with
//! 1,000,000 rows of `(i, 'name-' || i, repeat('x', 100))`. PostgreSQL 15 stores
//! it in 19,126 heap pages (149 MB); sluice's 32-byte tuple header (64-bit
//! xmin/xmax) and 28-byte page header must stay within 10% of that.

mod support;

use sluice_access::heap::heapam::heap_insert;
use sluice_common::ForkNumber;
use sluice_txn::IsolationLevel::ReadCommitted as RC;
use support::*;

/// PostgreSQL 15's page count for the loaded seed-001 heap.
const POSTGRES_PAGES: f64 = 19_126.0;

#[test]
fn seed_001_heap_is_within_ten_percent_of_postgres() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let rel = relation(16384);
    create(&engine, &rel);
    let be = backend(&engine);
    let mut txn = be.begin(RC);
    for i in 1..=1_000_000 {
        heap_insert(&engine, &rel, &mut txn, &seed_row(i)).unwrap();
    }
    txn.commit().unwrap();
    let pages = engine.pool().nblocks(rel.locator, ForkNumber::Main).unwrap() as f64;
    let ratio = pages / POSTGRES_PAGES;
    println!(
        "seed 001 heap: {pages} pages ({:.1} MB), {ratio:.3} x PostgreSQL",
        pages * 8192.0 / 1048576.0
    );
    assert!(
        (0.9..=1.1).contains(&ratio),
        "{pages} pages is {ratio:.3} x PostgreSQL's {POSTGRES_PAGES}"
    );
    let file_len = std::fs::metadata(dir.path().join("base/5/16384")).unwrap().len();
    assert_eq!(file_len, pages as u64 * 8192, "every page is in the relation file");
}
