//! The statistics file a clean shutdown leaves for the next start
//! (PostgreSQL 15's `pg_stat/pgstat.stat`, written by
//! pgstat_write_statsfile).
//!
//! Format: the magic `SLSTAT01`, then per relation the database OID and the
//! relation OID (u32 each) followed by the counters of
//! [`TableStats`](super::TableStats) as 21 little-endian i64s in field
//! order, a missing time written as `i64::MIN`. It is written to a
//! temporary name and renamed, so a crash mid-write leaves no half file. A
//! file that does not parse is ignored: statistics are advisory, and
//! starting from zero is what a crash gives anyway.

use super::TableStats;
use sluice_common::Oid;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"SLSTAT01";
const FIELDS: usize = 21;
const ENTRY: usize = 8 + FIELDS * 8;

fn file(data_dir: &Path) -> PathBuf {
    data_dir.join("pg_stat").join("pgstat.stat")
}

fn time_out(t: Option<i64>) -> i64 {
    t.unwrap_or(i64::MIN)
}

fn time_in(v: i64) -> Option<i64> {
    (v != i64::MIN).then_some(v)
}

fn fields(s: &TableStats) -> [i64; FIELDS] {
    [
        s.numscans,
        s.tuples_returned,
        s.tuples_fetched,
        s.tuples_inserted,
        s.tuples_updated,
        s.tuples_deleted,
        s.tuples_hot_updated,
        s.live_tuples,
        s.dead_tuples,
        s.mod_since_analyze,
        s.ins_since_vacuum,
        s.blocks_fetched,
        s.blocks_hit,
        time_out(s.last_vacuum),
        time_out(s.last_autovacuum),
        time_out(s.last_analyze),
        time_out(s.last_autoanalyze),
        s.vacuum_count,
        s.autovacuum_count,
        s.analyze_count,
        s.autoanalyze_count,
    ]
}

fn from_fields(f: [i64; FIELDS]) -> TableStats {
    TableStats {
        numscans: f[0],
        tuples_returned: f[1],
        tuples_fetched: f[2],
        tuples_inserted: f[3],
        tuples_updated: f[4],
        tuples_deleted: f[5],
        tuples_hot_updated: f[6],
        live_tuples: f[7],
        dead_tuples: f[8],
        mod_since_analyze: f[9],
        ins_since_vacuum: f[10],
        blocks_fetched: f[11],
        blocks_hit: f[12],
        last_vacuum: time_in(f[13]),
        last_autovacuum: time_in(f[14]),
        last_analyze: time_in(f[15]),
        last_autoanalyze: time_in(f[16]),
        vacuum_count: f[17],
        autovacuum_count: f[18],
        analyze_count: f[19],
        autoanalyze_count: f[20],
    }
}

/// write -- saves `tables` as `pg_stat/pgstat.stat`.
pub(super) fn write(
    data_dir: &Path,
    tables: &HashMap<(Oid, Oid), TableStats>,
) -> std::io::Result<()> {
    let mut bytes = Vec::with_capacity(MAGIC.len() + tables.len() * ENTRY);
    bytes.extend_from_slice(MAGIC);
    for (&(db, oid), stats) in tables {
        bytes.extend_from_slice(&db.to_le_bytes());
        bytes.extend_from_slice(&oid.to_le_bytes());
        for v in fields(stats) {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
    }
    let path = file(data_dir);
    std::fs::create_dir_all(path.parent().expect("pg_stat has a parent"))?;
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(tmp, path)
}

/// read -- the saved table, or an empty one if there is none or it does
/// not parse.
pub(super) fn read(data_dir: &Path) -> HashMap<(Oid, Oid), TableStats> {
    let Ok(bytes) = std::fs::read(file(data_dir)) else { return HashMap::new() };
    parse(&bytes).unwrap_or_default()
}

fn parse(bytes: &[u8]) -> Option<HashMap<(Oid, Oid), TableStats>> {
    let body = bytes.strip_prefix(MAGIC)?;
    if body.len() % ENTRY != 0 {
        return None;
    }
    let mut tables = HashMap::new();
    for entry in body.chunks_exact(ENTRY) {
        let db = u32::from_le_bytes(entry[0..4].try_into().ok()?);
        let oid = u32::from_le_bytes(entry[4..8].try_into().ok()?);
        let mut f = [0i64; FIELDS];
        for (i, chunk) in entry[8..].chunks_exact(8).enumerate() {
            f[i] = i64::from_le_bytes(chunk.try_into().ok()?);
        }
        tables.insert((db, oid), from_fields(f));
    }
    Some(tables)
}

/// discard -- removes the file (after reading it, or after a crash).
pub(super) fn discard(data_dir: &Path) {
    // A file that cannot be removed is read again next time: harmless.
    let _ = std::fs::remove_file(file(data_dir));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let dir = std::env::temp_dir().join(format!("pgstat-{}", std::process::id()));
        let mut tables = HashMap::new();
        let stats = TableStats {
            live_tuples: 5,
            last_vacuum: Some(42),
            vacuum_count: 1,
            ..TableStats::default()
        };
        tables.insert((5, 16384), stats);
        write(&dir, &tables).unwrap();
        assert_eq!(read(&dir), tables);
        discard(&dir);
        assert!(read(&dir).is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
