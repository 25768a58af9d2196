//! The engine's own WAL records: checkpoints, OID allocation, full-page images
//! (for hint bits, and of pages written whole; resource manager `Xlog`) and
//! relation file creation (resource manager `Smgr`). PostgreSQL: `xlog.c`'s
//! XLOG_CHECKPOINT_*, XLOG_NEXTOID, XLOG_FPI_FOR_HINT, XLOG_FPI, and
//! `storage.c`'s XLOG_SMGR_CREATE.

use crate::error::{AccessError, Result};
use sluice_common::{ForkNumber, Lsn, Oid, RelFileLocator, Xid};

/// A checkpoint written at shutdown (nothing runs after it).
pub const XLOG_CHECKPOINT_SHUTDOWN: u8 = 0x00;
/// A checkpoint written while the server runs.
pub const XLOG_CHECKPOINT_ONLINE: u8 = 0x10;
/// OIDs up to a value may have been handed out.
pub const XLOG_NEXTOID: u8 = 0x30;
/// A full-page image taken because hint bits were set (no other change).
pub const XLOG_FPI_FOR_HINT: u8 = 0xA0;
/// A full-page image of a page written whole (CREATE DATABASE's copy).
pub const XLOG_FPI: u8 = 0xB0;
/// A relation fork was created (resource manager `Smgr`).
pub const XLOG_SMGR_CREATE: u8 = 0x10;
/// A relation fork was truncated (resource manager `Smgr`; VACUUM).
pub const XLOG_SMGR_TRUNCATE: u8 = 0x20;

/// The contents of a checkpoint record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckpointData {
    /// Where redo starts: every change before it is on disk.
    pub redo: Lsn,
    /// No xid at or above this was assigned before the checkpoint.
    pub next_xid: Xid,
    /// No OID at or above this was handed out before the checkpoint.
    pub next_oid: Oid,
    /// Unix time of the checkpoint.
    pub time: u64,
    /// No multixact at or above this was created before the checkpoint.
    pub next_multi: u64,
    /// Nor any multixact member at or above this offset.
    pub next_multi_offset: u64,
}

impl CheckpointData {
    /// Serialises the record's main data.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(44);
        out.extend_from_slice(&self.redo.0.to_le_bytes());
        out.extend_from_slice(&self.next_xid.0.to_le_bytes());
        out.extend_from_slice(&self.next_oid.to_le_bytes());
        out.extend_from_slice(&self.time.to_le_bytes());
        out.extend_from_slice(&self.next_multi.to_le_bytes());
        out.extend_from_slice(&self.next_multi_offset.to_le_bytes());
        out
    }

    /// Parses the record's main data.
    pub fn decode(data: &[u8]) -> Result<CheckpointData> {
        if data.len() < 28 {
            return Err(AccessError::Corrupt("invalid checkpoint record".into()));
        }
        let u64_at = |i: usize| u64::from_le_bytes(data[i..i + 8].try_into().expect("8 bytes"));
        Ok(CheckpointData {
            redo: Lsn(u64_at(0)),
            next_xid: Xid(u64_at(8)),
            next_oid: u32::from_le_bytes(data[16..20].try_into().expect("4 bytes")),
            time: u64_at(20),
            // Checkpoints written before multixacts existed end here.
            next_multi: if data.len() >= 44 { u64_at(28) } else { 1 },
            next_multi_offset: if data.len() >= 44 { u64_at(36) } else { 0 },
        })
    }
}

/// Serialises a NEXTOID record's main data.
pub fn encode_next_oid(oid: Oid) -> Vec<u8> {
    oid.to_le_bytes().to_vec()
}

/// Parses a NEXTOID record's main data.
pub fn decode_next_oid(data: &[u8]) -> Result<Oid> {
    let bytes: [u8; 4] = data
        .get(..4)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| AccessError::Corrupt("invalid NEXTOID record".into()))?;
    Ok(u32::from_le_bytes(bytes))
}

/// Serialises a SMGR_CREATE record's main data.
pub fn encode_smgr_create(rel: RelFileLocator, fork: ForkNumber) -> Vec<u8> {
    let mut out = Vec::with_capacity(13);
    out.extend_from_slice(&rel.spc_oid.to_le_bytes());
    out.extend_from_slice(&rel.db_oid.to_le_bytes());
    out.extend_from_slice(&rel.rel_number.to_le_bytes());
    out.push(fork as u8);
    out
}

/// Parses a SMGR_CREATE record's main data.
pub fn decode_smgr_create(data: &[u8]) -> Result<(RelFileLocator, ForkNumber)> {
    let corrupt = || AccessError::Corrupt("invalid SMGR_CREATE record".into());
    if data.len() < 13 {
        return Err(corrupt());
    }
    let u32_at = |i: usize| u32::from_le_bytes(data[i..i + 4].try_into().expect("4 bytes"));
    let rel = RelFileLocator { spc_oid: u32_at(0), db_oid: u32_at(4), rel_number: u32_at(8) };
    Ok((rel, ForkNumber::from_u8(data[12]).ok_or_else(corrupt)?))
}

/// Serialises a SMGR_TRUNCATE record's main data: the fork and the number
/// of blocks it keeps.
pub fn encode_smgr_truncate(rel: RelFileLocator, fork: ForkNumber, nblocks: u32) -> Vec<u8> {
    let mut out = encode_smgr_create(rel, fork);
    out.extend_from_slice(&nblocks.to_le_bytes());
    out
}

/// Parses a SMGR_TRUNCATE record's main data.
pub fn decode_smgr_truncate(data: &[u8]) -> Result<(RelFileLocator, ForkNumber, u32)> {
    let (rel, fork) = decode_smgr_create(data)?;
    let nblocks = data
        .get(13..17)
        .and_then(|b| b.try_into().ok())
        .map(u32::from_le_bytes)
        .ok_or_else(|| AccessError::Corrupt("invalid SMGR_TRUNCATE record".into()))?;
    Ok((rel, fork, nblocks))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        let c = CheckpointData {
            redo: Lsn(1 << 33),
            next_xid: Xid(77),
            next_oid: 16400,
            time: 9,
            next_multi: 12,
            next_multi_offset: 30,
        };
        assert_eq!(CheckpointData::decode(&c.encode()).unwrap(), c);
        assert_eq!(decode_next_oid(&encode_next_oid(123)).unwrap(), 123);
        let rel = RelFileLocator { spc_oid: 1663, db_oid: 5, rel_number: 16384 };
        assert_eq!(
            decode_smgr_create(&encode_smgr_create(rel, ForkNumber::Fsm)).unwrap(),
            (rel, ForkNumber::Fsm)
        );
        assert_eq!(
            decode_smgr_truncate(&encode_smgr_truncate(rel, ForkNumber::Main, 7)).unwrap(),
            (rel, ForkNumber::Main, 7)
        );
        assert!(decode_smgr_truncate(&encode_smgr_create(rel, ForkNumber::Main)).is_err());
        assert!(CheckpointData::decode(&[0; 3]).is_err());
        assert!(decode_smgr_create(&[0; 12]).is_err());
    }
}
