//! Database directories across crashes: a copy made page by page through the
//! buffer pool (never written to its files before the crash) comes back whole
//! from WAL, and a dropped database stays dropped although replay passes the
//! records that created its files.

mod support;

use sluice_access::database;
use sluice_access::heap::HeapRelation;
use sluice_common::{RelFileLocator, DEFAULTTABLESPACE_OID};
use support::*;

const NEVER: &dyn Fn() -> bool = &|| false;

fn in_database(db: u32, rel_number: u32) -> HeapRelation {
    HeapRelation::new(RelFileLocator { spc_oid: DEFAULTTABLESPACE_OID, db_oid: db, rel_number })
}

#[test]
fn a_copied_database_survives_a_crash_and_a_dropped_one_stays_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let (template, copy) = (relation(16384), in_database(16500, 16384));
    let copy_dir = dir.path().join("base/16500");
    {
        let engine = open(dir.path());
        create(&engine, &template);
        insert_committed(&engine, &template, 1..=2000);
        database::create_directory(&engine, DEFAULTTABLESPACE_OID, 16500).unwrap();
        database::copy_relation(&engine, template.locator, copy.locator, NEVER).unwrap();
        // Make the copy durable as its commit record would.
        engine.wal().flush(engine.wal().insert_lsn()).unwrap();
        assert_eq!(visible_ids(&engine, &copy).len(), 2000);
    } // crash: the copy's pages were never written
    {
        let engine = open(dir.path());
        assert_eq!(visible_ids(&engine, &copy), (1..=2000).collect::<Vec<_>>());
        assert!(copy_dir.join("PG_VERSION").exists());
        database::drop_directory(&engine, DEFAULTTABLESPACE_OID, 16500).unwrap();
        assert!(!copy_dir.exists());
    } // crash: replay passes the copy's records, then the drop
    let engine = open(dir.path());
    assert!(!copy_dir.exists(), "the dropped database came back");
    assert_eq!(visible_ids(&engine, &template).len(), 2000);
}
