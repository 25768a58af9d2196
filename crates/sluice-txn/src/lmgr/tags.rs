//! Lock tags: what a heavyweight lock is a lock *on* (PostgreSQL's LOCKTAG and
//! `lmgr.c`'s `DescribeLockTag`).
//!
//! A tag is a plain value; equal tags name the same lock. Each kind carries the
//! fields `pg_locks` shows for it, and prints itself the way PostgreSQL's
//! deadlock DETAIL lines do ("relation 16384 of database 5", "transaction 567").

use sluice_common::{Oid, Xid};
use std::fmt;

/// The object a heavyweight lock protects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LockTag {
    /// A table, index, sequence or view (LOCKTAG_RELATION). `database` is 0 for
    /// shared catalogs.
    Relation {
        /// OID of the database the relation belongs to.
        database: Oid,
        /// OID of the relation.
        relation: Oid,
    },
    /// A transaction id (LOCKTAG_TRANSACTION). Its transaction holds it
    /// exclusively from xid assignment to its end; waiting for the transaction
    /// means asking for it in `ShareLock` mode.
    TransactionId(Xid),
    /// One tuple slot of a relation (LOCKTAG_TUPLE): row lockers queue on it
    /// so that waiters for the same row are served in order.
    Tuple {
        /// OID of the database the relation belongs to.
        database: Oid,
        /// OID of the relation.
        relation: Oid,
        /// Block number of the tuple.
        block: u32,
        /// Line pointer number of the tuple within its block.
        offset: u16,
    },
    /// A database object other than a relation, for DDL (LOCKTAG_OBJECT).
    Object {
        /// OID of the database, or 0 for shared objects.
        database: Oid,
        /// OID of the catalog holding the object (`pg_class.oid` of it).
        classid: Oid,
        /// OID of the object within that catalog.
        objid: Oid,
        /// Column number for a column, else 0.
        objsubid: i32,
    },
    /// An application-defined lock (LOCKTAG_ADVISORY), taken with the
    /// `pg_advisory_*` functions. Keys are per database. A `bigint` key is
    /// split into its high and low 32 bits with `form` 1; the two-`integer`
    /// form keeps its keys with `form` 2, so `(0, 1)` and `1` differ.
    Advisory {
        /// OID of the database the lock belongs to.
        database: Oid,
        /// High 32 bits of the bigint key, or the first integer key
        /// (`pg_locks.classid`).
        key1: u32,
        /// Low 32 bits of the bigint key, or the second integer key
        /// (`pg_locks.objid`).
        key2: u32,
        /// 1 for the bigint form, 2 for the two-integer form
        /// (`pg_locks.objsubid`).
        form: u16,
    },
}

impl LockTag {
    /// `pg_locks.locktype`.
    pub fn locktype(&self) -> &'static str {
        match self {
            LockTag::Relation { .. } => "relation",
            LockTag::TransactionId(_) => "transactionid",
            LockTag::Tuple { .. } => "tuple",
            LockTag::Object { .. } => "object",
            LockTag::Advisory { .. } => "advisory",
        }
    }

    /// `pg_locks.database`.
    pub fn database(&self) -> Option<Oid> {
        match *self {
            LockTag::Relation { database, .. }
            | LockTag::Tuple { database, .. }
            | LockTag::Object { database, .. }
            | LockTag::Advisory { database, .. } => Some(database),
            LockTag::TransactionId(_) => None,
        }
    }

    /// `pg_locks.relation`.
    pub fn relation(&self) -> Option<Oid> {
        match *self {
            LockTag::Relation { relation, .. } | LockTag::Tuple { relation, .. } => Some(relation),
            _ => None,
        }
    }

    /// `pg_locks.page`.
    pub fn page(&self) -> Option<u32> {
        match *self {
            LockTag::Tuple { block, .. } => Some(block),
            _ => None,
        }
    }

    /// `pg_locks.tuple`.
    pub fn tuple(&self) -> Option<u16> {
        match *self {
            LockTag::Tuple { offset, .. } => Some(offset),
            _ => None,
        }
    }

    /// `pg_locks.transactionid`.
    pub fn transactionid(&self) -> Option<Xid> {
        match *self {
            LockTag::TransactionId(xid) => Some(xid),
            _ => None,
        }
    }

    /// `pg_locks.classid`.
    pub fn classid(&self) -> Option<Oid> {
        match *self {
            LockTag::Object { classid, .. } => Some(classid),
            LockTag::Advisory { key1, .. } => Some(key1),
            _ => None,
        }
    }

    /// `pg_locks.objid`.
    pub fn objid(&self) -> Option<Oid> {
        match *self {
            LockTag::Object { objid, .. } => Some(objid),
            LockTag::Advisory { key2, .. } => Some(key2),
            _ => None,
        }
    }

    /// `pg_locks.objsubid`.
    pub fn objsubid(&self) -> Option<i32> {
        match *self {
            LockTag::Object { objsubid, .. } => Some(objsubid),
            LockTag::Advisory { form, .. } => Some(i32::from(form)),
            _ => None,
        }
    }
}

/// The object as PostgreSQL names it in lock messages (DescribeLockTag).
impl fmt::Display for LockTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LockTag::Relation { database, relation } => {
                write!(f, "relation {relation} of database {database}")
            }
            LockTag::TransactionId(xid) => write!(f, "transaction {xid}"),
            LockTag::Tuple { database, relation, block, offset } => {
                write!(f, "tuple ({block},{offset}) of relation {relation} of database {database}")
            }
            LockTag::Object { database, classid, objid, .. } => {
                write!(f, "object {objid} of class {classid} of database {database}")
            }
            LockTag::Advisory { database, key1, key2, form } => {
                write!(f, "advisory lock [{database},{key1},{key2},{form}]")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_describe_themselves_as_postgresql_does() {
        let rel = LockTag::Relation { database: 5, relation: 16384 };
        assert_eq!(rel.to_string(), "relation 16384 of database 5");
        assert_eq!(LockTag::TransactionId(Xid(567)).to_string(), "transaction 567");
        let tuple = LockTag::Tuple { database: 5, relation: 16384, block: 3, offset: 7 };
        assert_eq!(tuple.to_string(), "tuple (3,7) of relation 16384 of database 5");
        let obj = LockTag::Object { database: 5, classid: 2615, objid: 2200, objsubid: 0 };
        assert_eq!(obj.to_string(), "object 2200 of class 2615 of database 5");
        let advisory = LockTag::Advisory { database: 5, key1: 0, key2: 42, form: 1 };
        assert_eq!(advisory.to_string(), "advisory lock [5,0,42,1]");
    }

    #[test]
    fn tags_fill_the_pg_locks_columns_of_their_kind() {
        let tuple = LockTag::Tuple { database: 5, relation: 16384, block: 3, offset: 7 };
        assert_eq!(tuple.locktype(), "tuple");
        assert_eq!(
            (tuple.database(), tuple.relation(), tuple.page(), tuple.tuple()),
            (Some(5), Some(16384), Some(3), Some(7))
        );
        assert_eq!((tuple.transactionid(), tuple.classid()), (None, None));
        let xid = LockTag::TransactionId(Xid(9));
        assert_eq!(
            (xid.locktype(), xid.transactionid(), xid.database()),
            ("transactionid", Some(Xid(9)), None)
        );
        let obj = LockTag::Object { database: 0, classid: 1262, objid: 5, objsubid: 0 };
        assert_eq!(
            (obj.locktype(), obj.classid(), obj.objid(), obj.objsubid(), obj.relation()),
            ("object", Some(1262), Some(5), Some(0), None)
        );
        let advisory = LockTag::Advisory { database: 5, key1: 1, key2: 2, form: 2 };
        assert_eq!(
            (advisory.locktype(), advisory.database(), advisory.classid(), advisory.objid()),
            ("advisory", Some(5), Some(1), Some(2))
        );
        assert_eq!((advisory.objsubid(), advisory.relation()), (Some(2), None));
    }
}
