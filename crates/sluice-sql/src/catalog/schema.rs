//! The system catalogs' definitions (PostgreSQL's `catalog/pg_*.h`).
//!
//! Catalogs are ordinary heap relations, read and written under MVCC like any
//! table, so DDL is transactional. Their relfilenode is their OID (PostgreSQL
//! maps a few through `pg_filenode.map`; sluice never rewrites catalogs yet, so it
//! needs no map). Shared catalogs (`pg_database`, `pg_authid`) live in `global/`,
//! the others once per database in `base/<database oid>/`.
//!
//! Column lists follow PostgreSQL 15's names and order but stop at what sluice
//! uses so far; `"char"` columns are `text` until the type exists (a difference
//! `pg_typeof` would show, noted in docs/architecture.md).

use sluice_common::Oid;
use sluice_types::SqlType::{self, *};

/// A system catalog's shape.
#[derive(Debug)]
pub struct CatalogDef {
    /// OID, also its relfilenode.
    pub oid: Oid,
    /// Name in `pg_catalog`.
    pub name: &'static str,
    /// Shared by all databases.
    pub shared: bool,
    /// Columns (name, type), in attnum order.
    pub columns: &'static [(&'static str, SqlType)],
}

impl CatalogDef {
    /// The column types, in order.
    pub fn types(&self) -> Vec<SqlType> {
        self.columns.iter().map(|c| c.1).collect()
    }
}

/// `pg_type`.
pub const PG_TYPE: CatalogDef = CatalogDef {
    oid: 1247,
    name: "pg_type",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("typname", Name),
        ("typnamespace", Oid),
        ("typowner", Oid),
        ("typlen", Int2),
        ("typbyval", Bool),
        ("typtype", Text),
        ("typcategory", Text),
        ("typrelid", Oid),
        ("typalign", Text),
    ],
};

/// `pg_attribute`.
pub const PG_ATTRIBUTE: CatalogDef = CatalogDef {
    oid: 1249,
    name: "pg_attribute",
    shared: false,
    columns: &[
        ("attrelid", Oid),
        ("attname", Name),
        ("atttypid", Oid),
        ("attlen", Int2),
        ("attnum", Int2),
        ("atttypmod", Int4),
        ("attnotnull", Bool),
        ("atthasdef", Bool),
        ("attisdropped", Bool),
    ],
};

/// `pg_class`.
pub const PG_CLASS: CatalogDef = CatalogDef {
    oid: 1259,
    name: "pg_class",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("relname", Name),
        ("relnamespace", Oid),
        ("reltype", Oid),
        ("relowner", Oid),
        ("relam", Oid),
        ("relfilenode", Oid),
        ("reltablespace", Oid),
        ("relpages", Int4),
        ("reltuples", Float4),
        ("relallvisible", Int4),
        ("relhasindex", Bool),
        ("relisshared", Bool),
        ("relpersistence", Text),
        ("relkind", Text),
        ("relnatts", Int2),
        ("reloptions", Text),
    ],
};

/// `pg_authid` (shared).
pub const PG_AUTHID: CatalogDef = CatalogDef {
    oid: 1260,
    name: "pg_authid",
    shared: true,
    columns: &[
        ("oid", Oid),
        ("rolname", Name),
        ("rolsuper", Bool),
        ("rolinherit", Bool),
        ("rolcreaterole", Bool),
        ("rolcreatedb", Bool),
        ("rolcanlogin", Bool),
        ("rolreplication", Bool),
        ("rolbypassrls", Bool),
        ("rolconnlimit", Int4),
    ],
};

/// `pg_database` (shared).
pub const PG_DATABASE: CatalogDef = CatalogDef {
    oid: 1262,
    name: "pg_database",
    shared: true,
    columns: &[
        ("oid", Oid),
        ("datname", Name),
        ("datdba", Oid),
        ("encoding", Int4),
        ("datistemplate", Bool),
        ("datallowconn", Bool),
        ("datconnlimit", Int4),
        ("dattablespace", Oid),
        ("datcollate", Text),
        ("datctype", Text),
    ],
};

/// `pg_attrdef`: column defaults, as SQL expression text (PostgreSQL stores a
/// node tree; sluice re-parses the text, which `pg_get_expr` then shows as is).
pub const PG_ATTRDEF: CatalogDef = CatalogDef {
    oid: 2604,
    name: "pg_attrdef",
    shared: false,
    columns: &[("oid", Oid), ("adrelid", Oid), ("adnum", Int2), ("adbin", Text)],
};

/// `pg_namespace`.
pub const PG_NAMESPACE: CatalogDef = CatalogDef {
    oid: 2615,
    name: "pg_namespace",
    shared: false,
    columns: &[("oid", Oid), ("nspname", Name), ("nspowner", Oid)],
};

/// `pg_sequence`: a sequence's parameters (its counter lives in its own page).
pub const PG_SEQUENCE: CatalogDef = CatalogDef {
    oid: 2224,
    name: "pg_sequence",
    shared: false,
    columns: &[
        ("seqrelid", Oid),
        ("seqtypid", Oid),
        ("seqstart", Int8),
        ("seqincrement", Int8),
        ("seqmax", Int8),
        ("seqmin", Int8),
        ("seqcache", Int8),
        ("seqcycle", Bool),
    ],
};

/// `pg_depend`: which object depends on which (so far: a sequence owned by a
/// column, and a column default using a sequence).
pub const PG_DEPEND: CatalogDef = CatalogDef {
    oid: 2608,
    name: "pg_depend",
    shared: false,
    columns: &[
        ("classid", Oid),
        ("objid", Oid),
        ("objsubid", Int4),
        ("refclassid", Oid),
        ("refobjid", Oid),
        ("refobjsubid", Int4),
        ("deptype", Text),
    ],
};

/// Every catalog, shared ones first.
pub const ALL_CATALOGS: [&CatalogDef; 9] = [
    &PG_AUTHID,
    &PG_DATABASE,
    &PG_TYPE,
    &PG_ATTRIBUTE,
    &PG_CLASS,
    &PG_ATTRDEF,
    &PG_NAMESPACE,
    &PG_SEQUENCE,
    &PG_DEPEND,
];

/// The catalog with this OID, if it is one.
pub fn catalog_by_oid(oid: Oid) -> Option<&'static CatalogDef> {
    ALL_CATALOGS.iter().copied().find(|c| c.oid == oid)
}

/// `pg_catalog`'s OID.
pub const PG_CATALOG_NAMESPACE: Oid = 11;
/// `public`'s OID.
pub const PUBLIC_NAMESPACE: Oid = 2200;
/// The bootstrap superuser's OID.
pub const BOOTSTRAP_SUPERUSER: Oid = 10;
/// `template1`'s OID.
pub const TEMPLATE1_OID: Oid = 1;
/// `template0`'s OID.
pub const TEMPLATE0_OID: Oid = 4;
/// `postgres`'s OID.
pub const POSTGRES_DATABASE_OID: Oid = 5;
/// The heap access method's OID.
pub const HEAP_AM_OID: Oid = 2;

/// What kind of relation a `pg_class` row describes (`relkind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelKind {
    /// An ordinary table ('r').
    Table,
    /// A sequence ('S').
    Sequence,
}

impl RelKind {
    /// The letter `pg_class.relkind` stores.
    pub fn letter(self) -> &'static str {
        match self {
            RelKind::Table => "r",
            RelKind::Sequence => "S",
        }
    }

    /// The kind a `relkind` letter stands for, if sluice has it.
    pub fn from_letter(letter: &str) -> Option<RelKind> {
        match letter {
            "r" => Some(RelKind::Table),
            "S" => Some(RelKind::Sequence),
            _ => None,
        }
    }
}
