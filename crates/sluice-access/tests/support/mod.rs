//! Helpers shared by the access layer's integration tests: an engine on a
//! temporary directory, the seed-001 table `t(id bigint, name text, memo text)`,
//! and small wrappers for inserting, updating and reading rows of it.

#![allow(dead_code)] // each test binary uses a different subset

use sluice_access::common::{deform_tuple, form_tuple, AttrDesc, TupleDesc};
use sluice_access::heap::heapam::heap_insert;
use sluice_access::heap::scan::HeapScan;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::heap::HeapRelation;
use sluice_access::nbtree::KeyOrder;
use sluice_access::{Engine, EngineConfig};
use sluice_common::{ForkNumber, ItemPointer, RelFileLocator, DEFAULTTABLESPACE_OID};
use sluice_txn::{Backend, IsolationLevel, Transaction};
use std::cmp::Ordering;
use std::path::Path;
use std::sync::Arc;

/// The descriptor of `t(id bigint, name text, memo text)`.
pub fn seed_desc() -> TupleDesc {
    TupleDesc::new(vec![AttrDesc::INT8, AttrDesc::TEXT, AttrDesc::TEXT])
}

/// The seed-001 row for `i`: `(i, 'name-' || i, repeat('x', 100))`.
pub fn seed_row(i: i64) -> Vec<u8> {
    row(i, &format!("name-{i}"), &"x".repeat(100))
}

/// A row of `t`.
pub fn row(id: i64, name: &str, memo: &str) -> Vec<u8> {
    let id = id.to_le_bytes();
    form_tuple(&seed_desc(), &[Some(&id[..]), Some(name.as_bytes()), Some(memo.as_bytes())])
}

/// (id, name, memo) of a row of `t`.
pub fn decode(tuple: &[u8]) -> (i64, String, String) {
    let desc = seed_desc();
    let values = deform_tuple(&desc, tuple).expect("well-formed row");
    let id = i64::from_le_bytes(values[0].expect("id").try_into().expect("8 bytes"));
    let text = |v: Option<&[u8]>| String::from_utf8(v.expect("not null").to_vec()).expect("utf8");
    (id, text(values[1]), text(values[2]))
}

/// A small-but-real engine configuration for tests.
pub fn test_config() -> EngineConfig {
    EngineConfig { shared_buffers: 4 * 1024 * 1024, ..EngineConfig::default() }
}

/// Opens (creating or recovering) an engine on `dir`.
pub fn open(dir: &Path) -> Arc<Engine> {
    Engine::open(dir, test_config()).expect("engine opens")
}

/// The relation `t` with file number `rel_number` in database 5.
pub fn relation(rel_number: u32) -> HeapRelation {
    HeapRelation::new(RelFileLocator { spc_oid: DEFAULTTABLESPACE_OID, db_oid: 5, rel_number })
}

/// Creates `t`'s main fork.
pub fn create(engine: &Engine, rel: &HeapRelation) {
    engine.create_relation_fork(rel.locator, ForkNumber::Main).expect("create relation");
}

/// A backend with a made-up pid.
pub fn backend(engine: &Engine) -> Arc<Backend> {
    static PID: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1000);
    engine
        .txns()
        .register_backend(PID.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
        .expect("backend slot")
}

/// Inserts rows `ids` in one committed transaction.
pub fn insert_committed(engine: &Engine, rel: &HeapRelation, ids: impl IntoIterator<Item = i64>) {
    let be = backend(engine);
    let mut txn = be.begin(IsolationLevel::ReadCommitted);
    for i in ids {
        heap_insert(engine, rel, &mut txn, &seed_row(i)).expect("insert");
    }
    txn.commit().expect("commit");
}

/// Every row of `t` visible to `txn`'s current snapshot, with addresses, by id.
pub fn scan(
    engine: &Engine,
    rel: &HeapRelation,
    txn: &mut Transaction,
) -> Vec<(ItemPointer, (i64, String, String))> {
    let ctx = VisibilityContext::for_transaction(txn, engine.txns());
    let mut scan = HeapScan::begin(engine, rel, ctx).expect("scan");
    let mut rows = Vec::new();
    while let Some((tid, tuple)) = scan.next_tuple().expect("next") {
        rows.push((tid, decode(tuple)));
    }
    rows.sort_by_key(|(_, r)| r.0);
    rows
}

/// The ids of every row visible to a fresh READ COMMITTED snapshot.
pub fn visible_ids(engine: &Engine, rel: &HeapRelation) -> Vec<i64> {
    let be = backend(engine);
    let mut txn = be.begin(IsolationLevel::ReadCommitted);
    scan(engine, rel, &mut txn).into_iter().map(|(_, r)| r.0).collect()
}

/// bigint index keys in their stored (little-endian) form.
#[derive(Debug)]
pub struct Int8Order;

impl KeyOrder for Int8Order {
    fn compare(&self, _col: usize, a: &[u8], b: &[u8]) -> Ordering {
        int(a).cmp(&int(b))
    }
}

/// A stored bigint.
pub fn int(bytes: &[u8]) -> i64 {
    i64::from_le_bytes(bytes.try_into().expect("8 bytes"))
}
