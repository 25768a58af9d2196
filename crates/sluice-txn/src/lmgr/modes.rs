//! The eight table lock modes and their conflict table (PostgreSQL's
//! `lock.h` modes and `lock.c`'s `LockConflicts`).
//!
//! Two requests conflict when their modes do and they come from different
//! owners; an owner never conflicts with itself. The table is PostgreSQL's
//! (documentation table 13.2, "Conflicting Lock Modes"), so `LOCK TABLE`, DDL
//! and DML interleave exactly as users expect:
//!
//! ```text
//!                         AS  RS  RX  SUX  S  SRX  X  AX
//!  AccessShare             .   .   .   .   .   .   .   X
//!  RowShare                .   .   .   .   .   .   X   X
//!  RowExclusive            .   .   .   .   X   X   X   X
//!  ShareUpdateExclusive    .   .   .   X   X   X   X   X
//!  Share                   .   .   X   X   .   X   X   X
//!  ShareRowExclusive       .   .   X   X   X   X   X   X
//!  Exclusive               .   X   X   X   X   X   X   X
//!  AccessExclusive         X   X   X   X   X   X   X   X
//! ```
//!
//! The same modes serve the other lock tags: a transaction holds
//! `ExclusiveLock` on its own transaction id and waiters ask for `ShareLock`.

use std::fmt;

/// A lock mode, numbered as PostgreSQL numbers them (1 = weakest).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum LockMode {
    /// `SELECT` on a table.
    AccessShare = 1,
    /// `SELECT ... FOR UPDATE/SHARE` on a table.
    RowShare = 2,
    /// `INSERT`, `UPDATE`, `DELETE`, `MERGE` on a table.
    RowExclusive = 3,
    /// `VACUUM`, `ANALYZE`, `CREATE INDEX CONCURRENTLY`, some `ALTER TABLE`s.
    ShareUpdateExclusive = 4,
    /// `CREATE INDEX`; also what a waiter asks for on a transaction id.
    Share = 5,
    /// `CREATE TRIGGER`, some `ALTER TABLE`s.
    ShareRowExclusive = 6,
    /// `REFRESH MATERIALIZED VIEW CONCURRENTLY`; also what a transaction holds on
    /// its own transaction id.
    Exclusive = 7,
    /// `DROP`, `TRUNCATE`, `VACUUM FULL`, most `ALTER TABLE`s, plain `LOCK TABLE`.
    AccessExclusive = 8,
}

impl LockMode {
    /// Every mode, weakest first.
    pub const ALL: [LockMode; 8] = [
        LockMode::AccessShare,
        LockMode::RowShare,
        LockMode::RowExclusive,
        LockMode::ShareUpdateExclusive,
        LockMode::Share,
        LockMode::ShareRowExclusive,
        LockMode::Exclusive,
        LockMode::AccessExclusive,
    ];

    /// The name `pg_locks.mode` and error messages print ("AccessShareLock").
    pub fn name(self) -> &'static str {
        match self {
            LockMode::AccessShare => "AccessShareLock",
            LockMode::RowShare => "RowShareLock",
            LockMode::RowExclusive => "RowExclusiveLock",
            LockMode::ShareUpdateExclusive => "ShareUpdateExclusiveLock",
            LockMode::Share => "ShareLock",
            LockMode::ShareRowExclusive => "ShareRowExclusiveLock",
            LockMode::Exclusive => "ExclusiveLock",
            LockMode::AccessExclusive => "AccessExclusiveLock",
        }
    }

    /// Whether a request for `self` must wait for another owner's `other`.
    pub fn conflicts_with(self, other: LockMode) -> bool {
        self.conflicts().contains(other)
    }

    /// This mode's bit in a [`LockMask`].
    pub(crate) const fn bit(self) -> LockMask {
        LockMask(1 << self as u16)
    }

    /// The modes this one conflicts with (a row of the table in the module doc).
    pub(crate) const fn conflicts(self) -> LockMask {
        use LockMode::*;
        match self {
            AccessShare => LockMask::of(&[AccessExclusive]),
            RowShare => LockMask::of(&[Exclusive, AccessExclusive]),
            RowExclusive => LockMask::of(&[Share, ShareRowExclusive, Exclusive, AccessExclusive]),
            ShareUpdateExclusive => LockMask::of(&[
                ShareUpdateExclusive,
                Share,
                ShareRowExclusive,
                Exclusive,
                AccessExclusive,
            ]),
            Share => LockMask::of(&[
                RowExclusive,
                ShareUpdateExclusive,
                ShareRowExclusive,
                Exclusive,
                AccessExclusive,
            ]),
            ShareRowExclusive => LockMask::of(&[
                RowExclusive,
                ShareUpdateExclusive,
                Share,
                ShareRowExclusive,
                Exclusive,
                AccessExclusive,
            ]),
            Exclusive => LockMask::of(&[
                RowShare,
                RowExclusive,
                ShareUpdateExclusive,
                Share,
                ShareRowExclusive,
                Exclusive,
                AccessExclusive,
            ]),
            AccessExclusive => LockMask::of(&LockMode::ALL),
        }
    }
}

impl fmt::Display for LockMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of lock modes, one bit each (PostgreSQL's LOCKMASK): what an owner
/// holds on a lock, what is granted or awaited on it, what a mode conflicts with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct LockMask(u16);

impl LockMask {
    /// No modes.
    pub(crate) const EMPTY: LockMask = LockMask(0);

    /// The set of `modes`.
    const fn of(modes: &[LockMode]) -> LockMask {
        let mut bits = 0;
        let mut i = 0;
        while i < modes.len() {
            bits |= modes[i].bit().0;
            i += 1;
        }
        LockMask(bits)
    }

    /// Whether `mode` is in the set.
    pub(crate) fn contains(self, mode: LockMode) -> bool {
        self.intersects(mode.bit())
    }

    /// Whether the two sets share a mode.
    pub(crate) fn intersects(self, other: LockMask) -> bool {
        self.0 & other.0 != 0
    }

    /// Whether the set is empty.
    pub(crate) fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The set without `mode`.
    pub(crate) fn without(self, mode: LockMode) -> LockMask {
        LockMask(self.0 & !mode.bit().0)
    }

    /// The modes in the set, weakest first.
    pub(crate) fn modes(self) -> impl Iterator<Item = LockMode> {
        LockMode::ALL.into_iter().filter(move |&m| self.contains(m))
    }
}

impl std::ops::BitOr for LockMask {
    type Output = LockMask;

    fn bitor(self, rhs: LockMask) -> LockMask {
        LockMask(self.0 | rhs.0)
    }
}

impl std::ops::BitOrAssign for LockMask {
    fn bitor_assign(&mut self, rhs: LockMask) {
        self.0 |= rhs.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PostgreSQL's table 13.2, transcribed independently of `conflicts()`:
    /// row = requested mode, column = mode held by another transaction.
    const PG_TABLE: [&str; 8] = [
        ". . . . . . . X", // AccessShare
        ". . . . . . X X", // RowShare
        ". . . . X X X X", // RowExclusive
        ". . . X X X X X", // ShareUpdateExclusive
        ". . X X . X X X", // Share
        ". . X X X X X X", // ShareRowExclusive
        ". X X X X X X X", // Exclusive
        "X X X X X X X X", // AccessExclusive
    ];

    #[test]
    fn conflict_matrix_is_postgresqls() {
        let mut checked = 0;
        for (requested, row) in LockMode::ALL.into_iter().zip(PG_TABLE) {
            let cells: Vec<&str> = row.split(' ').collect();
            for (held, cell) in LockMode::ALL.into_iter().zip(cells) {
                assert_eq!(
                    requested.conflicts_with(held),
                    cell == "X",
                    "{requested} requested while {held} is held"
                );
                assert_eq!(requested.conflicts_with(held), held.conflicts_with(requested));
                checked += 1;
            }
        }
        assert_eq!(checked, 64);
    }

    #[test]
    fn names_are_pg_locks_names() {
        let names: Vec<&str> = LockMode::ALL.iter().map(|m| m.name()).collect();
        assert_eq!(
            names,
            [
                "AccessShareLock",
                "RowShareLock",
                "RowExclusiveLock",
                "ShareUpdateExclusiveLock",
                "ShareLock",
                "ShareRowExclusiveLock",
                "ExclusiveLock",
                "AccessExclusiveLock"
            ]
        );
    }

    #[test]
    fn masks_hold_sets_of_modes() {
        let m = LockMode::Share.bit() | LockMode::AccessShare.bit();
        assert_eq!(m.modes().collect::<Vec<_>>(), [LockMode::AccessShare, LockMode::Share]);
        assert!(m.without(LockMode::Share).without(LockMode::AccessShare).is_empty());
        assert!(!LockMask::EMPTY.intersects(LockMode::AccessExclusive.conflicts()));
    }
}
