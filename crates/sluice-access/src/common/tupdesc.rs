//! Tuple descriptors: what the tuple format needs to know about each column.
//!
//! A heap tuple does not describe itself. Its bytes say only how many attributes
//! it has and which are NULL; where each value starts and how long it is follows
//! from the column's type, which the reader must bring. This file is that
//! knowledge, reduced to the three facts the layout depends on (PostgreSQL keeps
//! the same three in `pg_attribute` and in `TupleDesc`, `access/tupdesc.h`):
//!
//! * `attlen` — a positive byte width for fixed-length types, or -1 for a
//!   *varlena*, a value that carries its own length word (`text`, `bytea`, ...);
//! * `attalign` — the boundary the value must start on (1, 2, 4 or 8 bytes,
//!   PostgreSQL's `c`, `s`, `i`, `d`), so that a page can be read in place;
//! * `attbyval` — whether the executor passes the value in a machine word rather
//!   than by pointer. It does not change the on-disk bytes, but the catalog and the
//!   executor want it next to the other two.
//!
//! PostgreSQL's `cstring` (attlen -2) is not a storage type in sluice and is not
//! supported. Column names, defaults and constraints belong to the catalog, not
//! here: a descriptor is exactly what `form_tuple` and `deform_tuple` need.

/// The physical description of one column: width, alignment and passing style.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AttrDesc {
    /// Byte width of a fixed-length type (> 0), or -1 for a varlena.
    pub attlen: i16,
    /// Required start alignment in bytes: 1, 2, 4 or 8.
    pub attalign: u8,
    /// Whether values are passed by value (fixed width of 1, 2, 4 or 8 bytes).
    pub attbyval: bool,
}

impl AttrDesc {
    /// `boolean`: 1 byte, no alignment.
    pub const BOOL: AttrDesc = AttrDesc::fixed(1, 1, true);
    /// `"char"`: PostgreSQL's internal one-byte type.
    pub const CHAR: AttrDesc = AttrDesc::fixed(1, 1, true);
    /// `smallint`.
    pub const INT2: AttrDesc = AttrDesc::fixed(2, 2, true);
    /// `integer`.
    pub const INT4: AttrDesc = AttrDesc::fixed(4, 4, true);
    /// `bigint`.
    pub const INT8: AttrDesc = AttrDesc::fixed(8, 8, true);
    /// `real`.
    pub const FLOAT4: AttrDesc = AttrDesc::fixed(4, 4, true);
    /// `double precision`.
    pub const FLOAT8: AttrDesc = AttrDesc::fixed(8, 8, true);
    /// `oid` (and the `reg*` types, which share its layout).
    pub const OID: AttrDesc = AttrDesc::fixed(4, 4, true);
    /// `xid8`: a full 64-bit transaction id.
    pub const XID8: AttrDesc = AttrDesc::fixed(8, 8, true);
    /// `tid`: a block number and a line pointer, 6 bytes, short-aligned.
    pub const TID: AttrDesc = AttrDesc::fixed(6, 2, false);
    /// `name`: the catalogs' fixed 64-byte identifier.
    pub const NAME: AttrDesc = AttrDesc::fixed(64, 1, false);
    /// `date`: days since 2000-01-01.
    pub const DATE: AttrDesc = AttrDesc::fixed(4, 4, true);
    /// `time`: microseconds since midnight.
    pub const TIME: AttrDesc = AttrDesc::fixed(8, 8, true);
    /// `timestamp`: microseconds since 2000-01-01.
    pub const TIMESTAMP: AttrDesc = AttrDesc::fixed(8, 8, true);
    /// `timestamptz`: the same, in UTC.
    pub const TIMESTAMPTZ: AttrDesc = AttrDesc::fixed(8, 8, true);
    /// `interval`: microseconds, days and months, 16 bytes.
    pub const INTERVAL: AttrDesc = AttrDesc::fixed(16, 8, false);
    /// `uuid`: 16 bytes with no alignment.
    pub const UUID: AttrDesc = AttrDesc::fixed(16, 1, false);
    /// `text`.
    pub const TEXT: AttrDesc = AttrDesc::varlena(4);
    /// `character varying`.
    pub const VARCHAR: AttrDesc = AttrDesc::varlena(4);
    /// `character(n)`.
    pub const BPCHAR: AttrDesc = AttrDesc::varlena(4);
    /// `bytea`.
    pub const BYTEA: AttrDesc = AttrDesc::varlena(4);
    /// `numeric`.
    pub const NUMERIC: AttrDesc = AttrDesc::varlena(4);
    /// `jsonb`.
    pub const JSONB: AttrDesc = AttrDesc::varlena(4);

    /// A fixed-length type of `attlen` bytes aligned to `attalign`.
    ///
    /// Panics (at compile time when used in a const) on a non-positive width or an
    /// alignment other than 1, 2, 4 or 8.
    pub const fn fixed(attlen: i16, attalign: u8, attbyval: bool) -> AttrDesc {
        assert!(attlen > 0, "fixed-length attribute needs a positive attlen");
        assert!(valid_align(attalign), "attalign must be 1, 2, 4 or 8");
        AttrDesc { attlen, attalign, attbyval }
    }

    /// A varlena type whose 4-byte-header form is aligned to `attalign`.
    pub const fn varlena(attalign: u8) -> AttrDesc {
        assert!(valid_align(attalign), "attalign must be 1, 2, 4 or 8");
        AttrDesc { attlen: -1, attalign, attbyval: false }
    }

    /// Whether values carry their own length word (attlen -1).
    pub const fn is_varlena(&self) -> bool {
        self.attlen == -1
    }
}

/// Whether `align` is one of the alignments PostgreSQL knows.
const fn valid_align(align: u8) -> bool {
    matches!(align, 1 | 2 | 4 | 8)
}

/// The physical description of a row: one [`AttrDesc`] per column, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TupleDesc {
    /// The columns, attribute number 1 first.
    pub attrs: Vec<AttrDesc>,
    /// The stored form of the value each column has in tuples written before
    /// the column was added (PostgreSQL's `attmissingval`); `None`, or no
    /// entry at all, reads as NULL.
    pub missing: Vec<Option<Vec<u8>>>,
}

impl TupleDesc {
    /// A descriptor for the given columns.
    pub fn new(attrs: Vec<AttrDesc>) -> TupleDesc {
        TupleDesc { attrs, missing: Vec::new() }
    }

    /// The descriptor with `missing` as the values of columns older tuples lack.
    pub fn with_missing(mut self, missing: Vec<Option<Vec<u8>>>) -> TupleDesc {
        self.missing = missing;
        self
    }

    /// What column `i` holds in a tuple written before it existed.
    pub fn missing(&self, i: usize) -> Option<&[u8]> {
        self.missing.get(i).and_then(|m| m.as_deref())
    }

    /// Number of columns (PostgreSQL's `natts`).
    pub fn natts(&self) -> usize {
        self.attrs.len()
    }
}

impl From<Vec<AttrDesc>> for TupleDesc {
    fn from(attrs: Vec<AttrDesc>) -> TupleDesc {
        TupleDesc::new(attrs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_types_match_pg_type() {
        assert_eq!((AttrDesc::INT8.attlen, AttrDesc::INT8.attalign), (8, 8));
        assert_eq!((AttrDesc::DATE.attlen, AttrDesc::DATE.attalign), (4, 4));
        assert_eq!((AttrDesc::TEXT.attlen, AttrDesc::TEXT.attalign), (-1, 4));
        assert!(AttrDesc::TEXT.is_varlena() && !AttrDesc::TEXT.attbyval);
        assert_eq!((AttrDesc::INT4.attbyval, AttrDesc::NAME.attbyval), (true, false));
        assert_eq!(TupleDesc::from(vec![AttrDesc::BOOL, AttrDesc::INT2]).natts(), 2);
    }

    #[test]
    #[should_panic(expected = "attalign")]
    fn rejects_odd_alignment() {
        let _ = AttrDesc::fixed(4, 3, true);
    }
}
