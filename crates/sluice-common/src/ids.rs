//! Value types naming WAL positions, transactions, relations and pages.
//!
//! Transaction ids are 64 bits wide and never wrap around: a sluice cluster can
//! run 2^64 write transactions before it would need anything like PostgreSQL's
//! anti-wraparound freezing, which at a million transactions per second is half a
//! million years. Comparisons are therefore plain integer comparisons, unlike
//! PostgreSQL's modulo-2^32 `TransactionIdPrecedes`.

use std::fmt;

/// A position in the write-ahead log: the byte offset of a record from the start
/// of the log. Printed as PostgreSQL prints `pg_lsn` (`16/B374D848`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Lsn(pub u64);

impl Lsn {
    /// The invalid LSN (PostgreSQL's InvalidXLogRecPtr); no record starts at 0.
    pub const INVALID: Lsn = Lsn(0);

    /// Whether this is a real position (non-zero).
    pub fn is_valid(self) -> bool {
        self.0 != 0
    }
}

impl fmt::Display for Lsn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:X}/{:X}", self.0 >> 32, self.0 & 0xFFFF_FFFF)
    }
}

/// A 64-bit transaction id. Assigned lazily, on a transaction's first write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Xid(pub u64);

impl Xid {
    /// No transaction (PostgreSQL's InvalidTransactionId).
    pub const INVALID: Xid = Xid(0);
    /// Rows created by bootstrap, visible to everyone (BootstrapTransactionId).
    pub const BOOTSTRAP: Xid = Xid(1);
    /// Rows frozen: visible to every snapshot (FrozenTransactionId).
    pub const FROZEN: Xid = Xid(2);
    /// The first id handed out to a normal transaction (FirstNormalTransactionId).
    pub const FIRST_NORMAL: Xid = Xid(3);

    /// Whether this names a real transaction.
    pub fn is_valid(self) -> bool {
        self.0 != 0
    }

    /// Whether this is an ordinary, assigned id (not invalid, bootstrap or frozen).
    pub fn is_normal(self) -> bool {
        self >= Xid::FIRST_NORMAL
    }

    /// The next id in sequence.
    pub fn next(self) -> Xid {
        Xid(self.0 + 1)
    }
}

impl fmt::Display for Xid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// An object identifier (tables, databases, types, ...), as in PostgreSQL.
pub type Oid = u32;

/// A page number within one fork of a relation.
pub type BlockNumber = u32;

/// "No block" (PostgreSQL's InvalidBlockNumber).
pub const INVALID_BLOCK: BlockNumber = u32::MAX;

/// Where a relation's files live: tablespace, database and file number
/// (PostgreSQL's RelFileLocator). The file number changes when a relation is
/// rewritten (VACUUM FULL, TRUNCATE), its OID does not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RelFileLocator {
    /// Tablespace OID (1663 = pg_default, 1664 = pg_global).
    pub spc_oid: Oid,
    /// Database OID (0 for shared relations).
    pub db_oid: Oid,
    /// The relation's file number (relfilenode).
    pub rel_number: Oid,
}

/// The default tablespace (pg_default).
pub const DEFAULTTABLESPACE_OID: Oid = 1663;

/// One of a relation's files. Numbers match PostgreSQL's ForkNumber.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum ForkNumber {
    /// The data itself.
    Main = 0,
    /// The free space map.
    Fsm = 1,
    /// The visibility map.
    VisibilityMap = 2,
    /// The init fork of unlogged relations.
    Init = 3,
}

impl ForkNumber {
    /// Every fork, in number order.
    pub const ALL: [ForkNumber; 4] =
        [ForkNumber::Main, ForkNumber::Fsm, ForkNumber::VisibilityMap, ForkNumber::Init];

    /// The fork with this number, if any.
    pub fn from_u8(n: u8) -> Option<ForkNumber> {
        ForkNumber::ALL.get(n as usize).copied()
    }

    /// The suffix of the fork's file name (`""`, `"_fsm"`, `"_vm"`, `"_init"`).
    pub fn file_suffix(self) -> &'static str {
        match self {
            ForkNumber::Main => "",
            ForkNumber::Fsm => "_fsm",
            ForkNumber::VisibilityMap => "_vm",
            ForkNumber::Init => "_init",
        }
    }
}

/// A tuple's address: block and 1-based line pointer number (PostgreSQL's
/// ItemPointerData, shown as `(block,offset)` in `ctid`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ItemPointer {
    /// The heap page.
    pub block: BlockNumber,
    /// The line pointer on that page, starting at 1.
    pub offset: u16,
}

impl ItemPointer {
    /// The address of line pointer `offset` on `block`.
    pub fn new(block: BlockNumber, offset: u16) -> ItemPointer {
        ItemPointer { block, offset }
    }
}

impl fmt::Display for ItemPointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({},{})", self.block, self.offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lsn_prints_like_pg_lsn() {
        assert_eq!(Lsn(0x16_B374_D848).to_string(), "16/B374D848");
        assert_eq!(Lsn(0x0100_0028).to_string(), "0/1000028");
    }

    #[test]
    fn fork_numbers_round_trip() {
        for fork in ForkNumber::ALL {
            assert_eq!(ForkNumber::from_u8(fork as u8), Some(fork));
        }
        assert_eq!(ForkNumber::from_u8(4), None);
    }
}
