//! The control file, `global/pg_control`: the one small file that tells a starting
//! server where to begin.
//!
//! It records the last checkpoint (where its record is, and the redo pointer from which
//! recovery must replay), the next transaction id and OID to hand out, and whether the
//! cluster was shut down cleanly. Startup reads it first: state `shut down` means no
//! replay is needed; anything else means the server crashed and must replay WAL from
//! `redo`. PostgreSQL's counterparts are `pg_control.h` and `controldata_utils.c`.
//!
//! # Layout (little-endian, file padded with zeros to 8192 bytes)
//!
//! ```text
//!   0 u32 magic "SLCF"         4 u32 format version
//!   8 u64 system_identifier   16 u32 state     20 u32 reserved
//!  24 u64 checkpoint          32 u64 redo      40 u64 next_xid
//!  48 u32 next_oid            52 u32 reserved  56 u64 time (unix seconds)
//!  64 u32 CRC-32C of bytes [0, 64)
//! ```
//!
//! The meaningful part is far smaller than one disk sector, but sluice does not rely
//! on sector atomicity as PostgreSQL does: [`ControlFile::write`] writes a temporary
//! file, fsyncs it, renames it over `pg_control` and fsyncs the directory, so a crash
//! leaves either the old or the new file, never a mix. The CRC still catches damage
//! from outside. Only the checkpointer and startup write it, so there is no locking here.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Read, Write};
use std::path::Path;

use sluice_common::{Lsn, Oid, Xid};

use crate::error::{Result, WalError};
use crate::record::{le_u32, le_u64};
use crate::segment::fsync_dir;

/// Size of the control file on disk (PostgreSQL's PG_CONTROL_FILE_SIZE).
pub const CONTROL_FILE_SIZE: usize = 8192;
/// "SLCF", so a file from another program is recognised as such.
const MAGIC: u32 = u32::from_le_bytes(*b"SLCF");
/// Bumped whenever the layout changes.
const VERSION: u32 = 1;
/// Bytes covered by the CRC (everything before it).
const CRC_OFFSET: usize = 64;

/// The cluster's state as of the last control file update (PostgreSQL's DBState).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DbState {
    /// initdb or startup has not yet finished.
    Starting,
    /// Cleanly shut down: the last checkpoint is a shutdown checkpoint, nothing to replay.
    ShutDown,
    /// Running normally; if found at startup, the server crashed.
    InProduction,
    /// Replaying WAL after a crash; if found at startup, it crashed during recovery.
    InCrashRecovery,
}

impl DbState {
    /// to_u32 -- the on-disk code.
    fn to_u32(self) -> u32 {
        match self {
            DbState::Starting => 0,
            DbState::ShutDown => 1,
            DbState::InProduction => 2,
            DbState::InCrashRecovery => 3,
        }
    }

    /// from_u32 -- the state with this on-disk code, if any.
    fn from_u32(n: u32) -> Option<DbState> {
        Some(match n {
            0 => DbState::Starting,
            1 => DbState::ShutDown,
            2 => DbState::InProduction,
            3 => DbState::InCrashRecovery,
            _ => return None,
        })
    }
}

impl fmt::Display for DbState {
    /// The words `pg_controldata` prints for "Database cluster state".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DbState::Starting => "starting up",
            DbState::ShutDown => "shut down",
            DbState::InProduction => "in production",
            DbState::InCrashRecovery => "in crash recovery",
        })
    }
}

/// The contents of `global/pg_control`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ControlFile {
    /// Random id chosen by initdb; ties WAL and data files to this cluster.
    pub system_identifier: u64,
    /// Whether the cluster is running, shut down, or recovering.
    pub state: DbState,
    /// Start LSN of the last checkpoint record.
    pub checkpoint: Lsn,
    /// That checkpoint's redo pointer: recovery replays from here.
    pub redo: Lsn,
    /// The next transaction id to assign (a lower bound; the XID counter is also logged).
    pub next_xid: Xid,
    /// The next OID to assign (a lower bound).
    pub next_oid: Oid,
    /// When the file was last updated, seconds since the Unix epoch.
    pub time: u64,
}

impl ControlFile {
    /// read -- load `data_dir/global/pg_control`; `None` if it does not exist.
    ///
    /// A file of the wrong size, magic, version or CRC is [`WalError::Corrupt`].
    pub fn read(data_dir: &Path) -> Result<Option<ControlFile>> {
        let path = data_dir.join("global").join("pg_control");
        let ctx = || format!("read control file {}", path.display());
        let mut file = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(WalError::io(ctx(), e)),
        };
        let mut buf = Vec::with_capacity(CONTROL_FILE_SIZE);
        // Read one byte more than expected so an oversized file is noticed without
        // reading all of it.
        (&mut file)
            .take(CONTROL_FILE_SIZE as u64 + 1)
            .read_to_end(&mut buf)
            .map_err(|e| WalError::io(ctx(), e))?;
        ControlFile::decode(&buf).map(Some)
    }

    /// write -- replace `data_dir/global/pg_control` crash-safely with this content.
    ///
    /// Writes `pg_control.tmp`, fsyncs it, renames it over `pg_control`, fsyncs `global/`.
    pub fn write(&self, data_dir: &Path) -> Result<()> {
        let global = data_dir.join("global");
        if !global.is_dir() {
            std::fs::create_dir_all(&global)
                .map_err(|e| WalError::io(format!("create directory {}", global.display()), e))?;
            fsync_dir(data_dir)?;
        }
        let tmp = global.join("pg_control.tmp");
        let path = global.join("pg_control");
        let ctx = |what: &str| format!("{what} control file {}", tmp.display());
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)
            .map_err(|e| WalError::io(ctx("create"), e))?;
        file.write_all(&self.encode()).map_err(|e| WalError::io(ctx("write"), e))?;
        file.sync_all().map_err(|e| WalError::io(ctx("fsync"), e))?;
        drop(file);
        std::fs::rename(&tmp, &path).map_err(|e| {
            WalError::io(format!("rename {} to {}", tmp.display(), path.display()), e)
        })?;
        fsync_dir(&global)
    }

    /// encode -- the full 8192-byte file image.
    fn encode(&self) -> Vec<u8> {
        let mut buf = vec![0u8; CONTROL_FILE_SIZE];
        let mut put = |off: usize, bytes: &[u8]| buf[off..off + bytes.len()].copy_from_slice(bytes);
        put(0, &MAGIC.to_le_bytes());
        put(4, &VERSION.to_le_bytes());
        put(8, &self.system_identifier.to_le_bytes());
        put(16, &self.state.to_u32().to_le_bytes());
        put(24, &self.checkpoint.0.to_le_bytes());
        put(32, &self.redo.0.to_le_bytes());
        put(40, &self.next_xid.0.to_le_bytes());
        put(48, &self.next_oid.to_le_bytes());
        put(56, &self.time.to_le_bytes());
        let crc = crc32c::crc32c(&buf[..CRC_OFFSET]);
        buf[CRC_OFFSET..CRC_OFFSET + 4].copy_from_slice(&crc.to_le_bytes());
        buf
    }

    /// decode -- parse and verify a file image.
    fn decode(buf: &[u8]) -> Result<ControlFile> {
        let bad = |msg: String| WalError::Corrupt(format!("control file: {msg}"));
        if buf.len() != CONTROL_FILE_SIZE {
            return Err(bad(format!("size is {} bytes, expected {CONTROL_FILE_SIZE}", buf.len())));
        }
        if le_u32(&buf[0..4]) != MAGIC || le_u32(&buf[4..8]) != VERSION {
            return Err(bad("not a sluice control file of this version".into()));
        }
        let stored = le_u32(&buf[CRC_OFFSET..CRC_OFFSET + 4]);
        if crc32c::crc32c(&buf[..CRC_OFFSET]) != stored {
            return Err(bad("incorrect checksum".into()));
        }
        let state = DbState::from_u32(le_u32(&buf[16..20]))
            .ok_or_else(|| bad(format!("invalid state {}", le_u32(&buf[16..20]))))?;
        Ok(ControlFile {
            system_identifier: le_u64(&buf[8..16]),
            state,
            checkpoint: Lsn(le_u64(&buf[24..32])),
            redo: Lsn(le_u64(&buf[32..40])),
            next_xid: Xid(le_u64(&buf[40..48])),
            next_oid: le_u32(&buf[48..52]),
            time: le_u64(&buf[56..64]),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ControlFile {
        ControlFile {
            system_identifier: 0x7123_4567_89AB_CDEF,
            state: DbState::InProduction,
            checkpoint: Lsn(0x0100_0100),
            redo: Lsn(0x0100_0028),
            next_xid: Xid(1234),
            next_oid: 16384,
            time: 1_700_000_000,
        }
    }

    #[test]
    fn control_file_round_trip() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert_eq!(ControlFile::read(dir.path()).expect("read"), None);
        let mut cf = sample();
        cf.write(dir.path()).expect("write");
        assert_eq!(ControlFile::read(dir.path()).expect("read"), Some(cf));
        cf.state = DbState::ShutDown;
        cf.checkpoint = Lsn(0x0200_0000);
        cf.write(dir.path()).expect("rewrite");
        assert_eq!(ControlFile::read(dir.path()).expect("read"), Some(cf));
        let path = dir.path().join("global/pg_control");
        assert_eq!(std::fs::metadata(path).expect("stat").len(), CONTROL_FILE_SIZE as u64);
        assert!(!dir.path().join("global/pg_control.tmp").exists());
        assert_eq!(DbState::InCrashRecovery.to_string(), "in crash recovery");
    }

    #[test]
    fn corrupted_control_file_is_detected() {
        let dir = tempfile::tempdir().expect("tempdir");
        sample().write(dir.path()).expect("write");
        let path = dir.path().join("global/pg_control");
        let good = std::fs::read(&path).expect("read");
        for (off, what) in [(20 + 8, "checkpoint"), (0, "magic"), (CRC_OFFSET, "crc")] {
            let mut bad = good.clone();
            bad[off] ^= 1;
            std::fs::write(&path, &bad).expect("write");
            assert!(
                matches!(ControlFile::read(dir.path()), Err(WalError::Corrupt(_))),
                "flipped {what} not detected"
            );
        }
        std::fs::write(&path, &good[..100]).expect("truncate");
        assert!(matches!(ControlFile::read(dir.path()), Err(WalError::Corrupt(_))));
    }
}
