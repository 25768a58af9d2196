//! Loads the seed-001 table `t(id bigint, name text, memo text)` with `rows`
//! rows of `(i, 'name-' || i, repeat('x', 100))` through the storage API in one
//! transaction, then prints throughput, WAL volume per row and the heap size as
//! `key=value` lines for `bench/seed001_load.sh`.
//!
//! Usage: load_seed001 DATA_DIR [ROWS]   (the data directory is created fresh)

use sluice_access::common::{form_tuple, AttrDesc, TupleDesc};
use sluice_access::heap::heapam::heap_insert;
use sluice_access::heap::HeapRelation;
use sluice_access::{Engine, EngineConfig};
use sluice_common::{ForkNumber, RelFileLocator, DEFAULTTABLESPACE_OID};
use sluice_txn::IsolationLevel;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().ok_or("usage: load_seed001 DATA_DIR [ROWS]")?;
    let rows: i64 = args.next().map(|r| r.parse()).transpose()?.unwrap_or(1_000_000);
    let _ = std::fs::remove_dir_all(&dir);
    let engine = Engine::open(std::path::Path::new(&dir), EngineConfig::default())?;
    let rel = HeapRelation::new(RelFileLocator {
        spc_oid: DEFAULTTABLESPACE_OID,
        db_oid: 5,
        rel_number: engine.new_oid()?,
    });
    engine.create_relation_fork(rel.locator, ForkNumber::Main)?;
    let desc = TupleDesc::new(vec![AttrDesc::INT8, AttrDesc::TEXT, AttrDesc::TEXT]);
    let memo = "x".repeat(100);
    let backend = engine.txns().register_backend(std::process::id())?;
    let wal_start = engine.wal().insert_lsn();
    let start = Instant::now();
    let mut txn = backend.begin(IsolationLevel::ReadCommitted);
    for i in 1..=rows {
        let (id, name) = (i.to_le_bytes(), format!("name-{i}"));
        let tuple =
            form_tuple(&desc, &[Some(&id[..]), Some(name.as_bytes()), Some(memo.as_bytes())]);
        heap_insert(&engine, &rel, &mut txn, &tuple)?;
    }
    txn.commit()?;
    let seconds = start.elapsed().as_secs_f64();
    let wal_bytes = engine.wal().insert_lsn().0 - wal_start.0;
    let pages = engine.pool().nblocks(rel.locator, ForkNumber::Main)?;
    println!("rows={rows}");
    println!("seconds={seconds:.3}");
    println!("rows_per_second={:.0}", rows as f64 / seconds);
    println!("wal_bytes={wal_bytes}");
    println!("wal_bytes_per_row={:.1}", wal_bytes as f64 / rows as f64);
    println!("heap_pages={pages}");
    engine.shutdown()?;
    Ok(())
}
