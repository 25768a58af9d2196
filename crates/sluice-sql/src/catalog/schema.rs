//! The system catalogs' definitions (PostgreSQL's `catalog/pg_*.h`).
//!
//! Catalogs are ordinary heap relations, read and written under MVCC like any
//! table, so DDL is transactional. Their relfilenode is their OID (PostgreSQL
//! maps a few through `pg_filenode.map`; sluice never rewrites catalogs yet, so it
//! needs no map). Shared catalogs (`pg_database`, `pg_authid`) live in `global/`,
//! the others once per database in `base/<database oid>/`.
//!
//! Column lists follow PostgreSQL 15's names and order but stop at what sluice
//! uses so far.

use super::unfilled;
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
        ("typtype", Char),
        ("typcategory", Char),
        ("typrelid", Oid),
        ("typalign", Char),
        // Out of PostgreSQL's order (they sit elsewhere there): appended so
        // that code reading rows by position stays valid.
        ("typcollation", Oid),
        ("typelem", Oid),
        ("typarray", Oid),
        ("typbasetype", Oid),
        ("typtypmod", Int4),
        ("typnotnull", Bool),
        ("typdefault", Text),
        ("typacl", SqlType::TEXT_ARRAY),
        // Appended like the columns above: the TOAST strategy, whether the
        // type is defined (not a shell), and a domain default's expression
        // (which `typdefault` also holds, both as SQL text).
        ("typstorage", Char),
        ("typisdefined", Bool),
        ("typdefaultbin", Text),
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
        // PostgreSQL has these between `atthasdef` and `attisdropped` (and
        // `attcollation` later); appended here, in PostgreSQL's relative
        // order, so that code reading rows by position stays valid.
        ("attidentity", Char),
        ("attgenerated", Char),
        ("attcollation", Oid),
        ("attstorage", Char),
        ("attcompression", Char),
        // PostgreSQL's `attmissingval` is an `anyarray` of one element; here
        // it is the value's stored form (see `ColumnDesc::missing`).
        ("atthasmissing", Bool),
        ("attmissingval", Bytea),
        // PostgreSQL's per-column statistics target (-1: the default),
        // which psql's `\d+` shows; appended like the columns above.
        ("attstattarget", Int4),
        // The rest of PostgreSQL's columns that pg_dump reads, appended.
        ("attalign", Char),
        ("attislocal", Bool),
        ("attinhcount", Int4),
        ("attacl", SqlType::TEXT_ARRAY),
        ("attoptions", SqlType::TEXT_ARRAY),
        ("attfdwoptions", SqlType::TEXT_ARRAY),
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
        ("relpersistence", Char),
        ("relkind", Char),
        ("relnatts", Int2),
        ("reloptions", SqlType::TEXT_ARRAY),
        // The columns psql's `\d` reads, appended (in PostgreSQL's relative
        // order) so that code reading rows by position stays valid; their
        // values are constant until the features behind them exist (typed
        // tables, TOAST, rules, triggers, inheritance, row security,
        // partitions), except `relchecks`, which counts CHECK constraints.
        ("reloftype", Oid),
        ("reltoastrelid", Oid),
        ("relchecks", Int2),
        ("relhasrules", Bool),
        ("relhastriggers", Bool),
        ("relhassubclass", Bool),
        ("relrowsecurity", Bool),
        ("relforcerowsecurity", Bool),
        ("relispopulated", Bool),
        ("relreplident", Char),
        ("relispartition", Bool),
        ("relpartbound", Text),
        // What pg_dump reads besides: the lower bounds of the xids and
        // multixacts in the relation (see `ClassRow::frozen`) and its
        // privileges (NULL: the owner's defaults, until GRANT exists).
        ("relfrozenxid", Xid),
        ("relminmxid", Xid),
        ("relacl", SqlType::TEXT_ARRAY),
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
        ("datlocprovider", Char),
        ("daticulocale", Text),
        ("datacl", SqlType::TEXT_ARRAY),
        // Appended: the lower bounds of the xids and multixacts in the
        // database (see `bootstrap::FrozenBounds`) and the collation
        // version (none: the C locale has none), which pg_dump reads.
        ("datfrozenxid", Xid),
        ("datminmxid", Xid),
        ("datcollversion", Text),
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
    columns: &[("oid", Oid), ("nspname", Name), ("nspowner", Oid), ("nspacl", SqlType::TEXT_ARRAY)],
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
/// column or making an identity column's values, a column default using a
/// sequence, a CHECK constraint reading a column).
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
        ("deptype", Char),
    ],
};

/// `pg_am`: access methods. sluice has the heap and the B-tree.
pub const PG_AM: CatalogDef = CatalogDef {
    oid: 2601,
    name: "pg_am",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("amname", Name),
        ("amhandler", Reg(sluice_types::types::RegKind::Proc)),
        ("amtype", Char),
    ],
};

/// `pg_index`: one row per index. `pg_node_tree` columns hold SQL text (the
/// predicate of a partial index as `pg_get_expr` shows it).
pub const PG_INDEX: CatalogDef = CatalogDef {
    oid: 2610,
    name: "pg_index",
    shared: false,
    columns: &[
        ("indexrelid", Oid),
        ("indrelid", Oid),
        ("indnatts", Int2),
        ("indnkeyatts", Int2),
        ("indisunique", Bool),
        ("indnullsnotdistinct", Bool),
        ("indisprimary", Bool),
        ("indisexclusion", Bool),
        ("indimmediate", Bool),
        ("indisclustered", Bool),
        ("indisvalid", Bool),
        ("indcheckxmin", Bool),
        ("indisready", Bool),
        ("indislive", Bool),
        ("indisreplident", Bool),
        ("indkey", SqlType::INT2_VECTOR),
        ("indcollation", SqlType::OID_VECTOR),
        ("indclass", SqlType::OID_VECTOR),
        ("indoption", SqlType::INT2_VECTOR),
        ("indexprs", Text),
        ("indpred", Text),
    ],
};

/// `pg_constraint`: PRIMARY KEY and UNIQUE constraints (enforced through
/// their indexes), CHECK constraints and FOREIGN KEY constraints (see
/// `catalog/constraint.rs` and `catalog/foreign_key.rs`); columns as
/// PostgreSQL 15's, `pg_node_tree` as text. The operator columns
/// (`conpfeqop`, `conppeqop`, `conffeqop`, `conexclop`) are NULL: sluice's
/// operators have no OIDs yet.
pub const PG_CONSTRAINT: CatalogDef = CatalogDef {
    oid: 2606,
    name: "pg_constraint",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("conname", Name),
        ("connamespace", Oid),
        ("contype", Char),
        ("condeferrable", Bool),
        ("condeferred", Bool),
        ("convalidated", Bool),
        ("conrelid", Oid),
        ("contypid", Oid),
        ("conindid", Oid),
        ("conparentid", Oid),
        ("confrelid", Oid),
        ("confupdtype", Char),
        ("confdeltype", Char),
        ("confmatchtype", Char),
        ("conislocal", Bool),
        ("coninhcount", Int4),
        ("connoinherit", Bool),
        ("conkey", SqlType::INT2_ARRAY),
        ("confkey", SqlType::INT2_ARRAY),
        ("conpfeqop", SqlType::OID_ARRAY),
        ("conppeqop", SqlType::OID_ARRAY),
        ("conffeqop", SqlType::OID_ARRAY),
        ("confdelsetcols", SqlType::INT2_ARRAY),
        ("conexclop", SqlType::OID_ARRAY),
        ("conbin", Text),
    ],
};

/// `pg_trigger`: always empty. sluice has no user triggers yet, and it
/// enforces foreign keys without the internal triggers PostgreSQL lists
/// here (`executor/ri_triggers`); clients such as psql read it for every
/// table with `relhastriggers`, which foreign keys set.
pub const PG_TRIGGER: CatalogDef = CatalogDef {
    oid: 2620,
    name: "pg_trigger",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("tgrelid", Oid),
        ("tgparentid", Oid),
        ("tgname", Name),
        ("tgfoid", Oid),
        ("tgtype", Int2),
        ("tgenabled", Char),
        ("tgisinternal", Bool),
        ("tgconstrrelid", Oid),
        ("tgconstrindid", Oid),
        ("tgconstraint", Oid),
        ("tgdeferrable", Bool),
        ("tginitdeferred", Bool),
        ("tgnargs", Int2),
        ("tgattr", SqlType::INT2_VECTOR),
        ("tgargs", Bytea),
        ("tgqual", Text),
        ("tgoldtable", Name),
        ("tgnewtable", Name),
    ],
};

/// `pg_inherits`: table inheritance and partitions (always empty: sluice
/// has neither yet, but clients such as pgbench query it).
pub const PG_INHERITS: CatalogDef = CatalogDef {
    oid: 2611,
    name: "pg_inherits",
    shared: false,
    columns: &[
        ("inhrelid", Oid),
        ("inhparent", Oid),
        ("inhseqno", Int4),
        ("inhdetachpending", Bool),
    ],
};

/// `pg_partitioned_table`: partition keys (always empty, as `pg_inherits`).
/// `pg_node_tree` is `text`, as in the other catalogs.
pub const PG_PARTITIONED_TABLE: CatalogDef = CatalogDef {
    oid: 3350,
    name: "pg_partitioned_table",
    shared: false,
    columns: &[
        ("partrelid", Oid),
        ("partstrat", Char),
        ("partnatts", Int2),
        ("partdefid", Oid),
        ("partattrs", SqlType::INT2_VECTOR),
        ("partclass", SqlType::OID_VECTOR),
        ("partcollation", SqlType::OID_VECTOR),
        ("partexprs", Text),
    ],
};

/// `pg_statistic`: per-column planner statistics written by ANALYZE, five
/// "slots" of (kind, operator, collation, numbers, values) each. PostgreSQL's
/// `stavaluesN` are `anyarray`; sluice has no such type, so they are `text[]`
/// of the values' text forms (see `catalog/statistic.rs`).
pub const PG_STATISTIC: CatalogDef = CatalogDef {
    oid: 2619,
    name: "pg_statistic",
    shared: false,
    columns: &[
        ("starelid", Oid),
        ("staattnum", Int2),
        ("stainherit", Bool),
        ("stanullfrac", Float4),
        ("stawidth", Int4),
        ("stadistinct", Float4),
        ("stakind1", Int2),
        ("stakind2", Int2),
        ("stakind3", Int2),
        ("stakind4", Int2),
        ("stakind5", Int2),
        ("staop1", Oid),
        ("staop2", Oid),
        ("staop3", Oid),
        ("staop4", Oid),
        ("staop5", Oid),
        ("stacoll1", Oid),
        ("stacoll2", Oid),
        ("stacoll3", Oid),
        ("stacoll4", Oid),
        ("stacoll5", Oid),
        ("stanumbers1", SqlType::FLOAT4_ARRAY),
        ("stanumbers2", SqlType::FLOAT4_ARRAY),
        ("stanumbers3", SqlType::FLOAT4_ARRAY),
        ("stanumbers4", SqlType::FLOAT4_ARRAY),
        ("stanumbers5", SqlType::FLOAT4_ARRAY),
        ("stavalues1", SqlType::TEXT_ARRAY),
        ("stavalues2", SqlType::TEXT_ARRAY),
        ("stavalues3", SqlType::TEXT_ARRAY),
        ("stavalues4", SqlType::TEXT_ARRAY),
        ("stavalues5", SqlType::TEXT_ARRAY),
    ],
};

/// `pg_collation`: the collations sluice accepts, all of which compare
/// bytewise (PostgreSQL's built-in libc ones; no ICU).
pub const PG_COLLATION: CatalogDef = CatalogDef {
    oid: 3456,
    name: "pg_collation",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("collname", Name),
        ("collnamespace", Oid),
        ("collowner", Oid),
        ("collprovider", Char),
        ("collisdeterministic", Bool),
        ("collencoding", Int4),
        ("collcollate", Text),
        ("collctype", Text),
        ("colliculocale", Text),
        ("collversion", Text),
    ],
};

/// `pg_policy`: row-security policies (always empty: sluice has no row
/// security yet, but psql's `\d` reads it).
pub const PG_POLICY: CatalogDef = CatalogDef {
    oid: 3256,
    name: "pg_policy",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("polname", Name),
        ("polrelid", Oid),
        ("polcmd", Char),
        ("polpermissive", Bool),
        ("polroles", SqlType::OID_ARRAY),
        ("polqual", Text),
        ("polwithcheck", Text),
    ],
};

/// `pg_statistic_ext`: extended statistics objects (always empty, read by
/// psql's `\d`).
pub const PG_STATISTIC_EXT: CatalogDef = CatalogDef {
    oid: 3381,
    name: "pg_statistic_ext",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("stxrelid", Oid),
        ("stxname", Name),
        ("stxnamespace", Oid),
        ("stxowner", Oid),
        ("stxstattarget", Int4),
        ("stxkeys", SqlType::INT2_VECTOR),
        ("stxkind", SqlType::CHAR_ARRAY),
        ("stxexprs", Text),
    ],
};

/// `pg_publication`: logical replication publications (always empty until
/// logical replication exists; psql's `\d` reads it).
pub const PG_PUBLICATION: CatalogDef = CatalogDef {
    oid: 6104,
    name: "pg_publication",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("pubname", Name),
        ("pubowner", Oid),
        ("puballtables", Bool),
        ("pubinsert", Bool),
        ("pubupdate", Bool),
        ("pubdelete", Bool),
        ("pubtruncate", Bool),
        ("pubviaroot", Bool),
    ],
};

/// `pg_publication_namespace`: schemas in publications (always empty).
pub const PG_PUBLICATION_NAMESPACE: CatalogDef = CatalogDef {
    oid: 6237,
    name: "pg_publication_namespace",
    shared: false,
    columns: &[("oid", Oid), ("pnpubid", Oid), ("pnnspid", Oid)],
};

/// `pg_publication_rel`: tables in publications (always empty).
pub const PG_PUBLICATION_REL: CatalogDef = CatalogDef {
    oid: 6106,
    name: "pg_publication_rel",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("prpubid", Oid),
        ("prrelid", Oid),
        ("prqual", Text),
        ("prattrs", SqlType::INT2_ARRAY),
    ],
};

/// `pg_auth_members` (shared): role memberships (always empty: sluice has
/// no GRANT of roles yet, but psql's `\du` reads it).
pub const PG_AUTH_MEMBERS: CatalogDef = CatalogDef {
    oid: 1261,
    name: "pg_auth_members",
    shared: true,
    columns: &[("roleid", Oid), ("member", Oid), ("grantor", Oid), ("admin_option", Bool)],
};

/// `pg_extension`: the extensions installed in the database
/// (`commands/extension.rs`); `extconfig` and `extcondition` stay NULL, as
/// no built-in extension has configuration tables.
pub const PG_EXTENSION: CatalogDef = CatalogDef {
    oid: 3079,
    name: "pg_extension",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("extname", Name),
        ("extowner", Oid),
        ("extnamespace", Oid),
        ("extrelocatable", Bool),
        ("extversion", Text),
        ("extconfig", SqlType::OID_ARRAY),
        ("extcondition", SqlType::TEXT_ARRAY),
    ],
};

/// `pg_description`: comments on objects (COMMENT ON), by the object's
/// catalog, OID and column number (0 for the whole object).
pub const PG_DESCRIPTION: CatalogDef = CatalogDef {
    oid: 2609,
    name: "pg_description",
    shared: false,
    columns: &[("objoid", Oid), ("classoid", Oid), ("objsubid", Int4), ("description", Text)],
};

/// `pg_rewrite`: a view's `_RETURN` rule. `ev_action` holds the view's
/// query as SQL text with every relation schema-qualified, where
/// PostgreSQL keeps the analyzed query tree (see `commands/view.rs`).
pub const PG_REWRITE: CatalogDef = CatalogDef {
    oid: 2618,
    name: "pg_rewrite",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("rulename", Name),
        ("ev_class", Oid),
        ("ev_type", Char),
        ("ev_enabled", Char),
        ("is_instead", Bool),
        ("ev_qual", Text),
        ("ev_action", Text),
    ],
};

/// `pg_enum`: the labels of enum types, one row each (see
/// `sluice_types::enums`).
pub const PG_ENUM: CatalogDef = CatalogDef {
    oid: 3501,
    name: "pg_enum",
    shared: false,
    columns: &[("oid", Oid), ("enumtypid", Oid), ("enumsortorder", Float4), ("enumlabel", Name)],
};

/// Every catalog, shared ones first.
pub const ALL_CATALOGS: [&CatalogDef; 55] = [
    &PG_AUTHID,
    &PG_DATABASE,
    &PG_AUTH_MEMBERS,
    &unfilled::PG_TABLESPACE,
    &unfilled::PG_SUBSCRIPTION,
    &unfilled::PG_SHSECLABEL,
    &unfilled::PG_SHDESCRIPTION,
    &unfilled::PG_DB_ROLE_SETTING,
    &PG_TYPE,
    &PG_ATTRIBUTE,
    &PG_CLASS,
    &PG_ATTRDEF,
    &PG_NAMESPACE,
    &PG_SEQUENCE,
    &PG_DEPEND,
    &PG_AM,
    &PG_INDEX,
    &PG_CONSTRAINT,
    &PG_INHERITS,
    &PG_TRIGGER,
    &PG_PARTITIONED_TABLE,
    &PG_STATISTIC,
    &PG_COLLATION,
    &PG_POLICY,
    &PG_STATISTIC_EXT,
    &PG_PUBLICATION,
    &PG_PUBLICATION_NAMESPACE,
    &PG_PUBLICATION_REL,
    &PG_EXTENSION,
    &PG_DESCRIPTION,
    &PG_REWRITE,
    &PG_ENUM,
    &unfilled::PG_PROC,
    &unfilled::PG_LANGUAGE,
    &unfilled::PG_OPERATOR,
    &unfilled::PG_OPCLASS,
    &unfilled::PG_OPFAMILY,
    &unfilled::PG_AMOP,
    &unfilled::PG_AMPROC,
    &unfilled::PG_CAST,
    &unfilled::PG_RANGE,
    &unfilled::PG_CONVERSION,
    &unfilled::PG_TRANSFORM,
    &unfilled::PG_TS_PARSER,
    &unfilled::PG_TS_TEMPLATE,
    &unfilled::PG_TS_DICT,
    &unfilled::PG_TS_CONFIG,
    &unfilled::PG_FOREIGN_DATA_WRAPPER,
    &unfilled::PG_FOREIGN_SERVER,
    &unfilled::PG_FOREIGN_TABLE,
    &unfilled::PG_DEFAULT_ACL,
    &unfilled::PG_EVENT_TRIGGER,
    &unfilled::PG_LARGEOBJECT_METADATA,
    &unfilled::PG_INIT_PRIVS,
    &unfilled::PG_SECLABEL,
];

/// The catalog with this OID, if it is one.
pub fn catalog_by_oid(oid: Oid) -> Option<&'static CatalogDef> {
    ALL_CATALOGS.iter().copied().find(|c| c.oid == oid)
}

/// Catalog columns whose text stands for what PostgreSQL keeps as a
/// nullable variable-length value (`pg_node_tree`, a locale, options).
const NULLABLE_TEXT: [&str; 25] = [
    "typdefault",
    "typdefaultbin",
    "relpartbound",
    "daticulocale",
    "datcollversion",
    "indexprs",
    "indpred",
    "conbin",
    "tgqual",
    "partexprs",
    "colliculocale",
    "collversion",
    "collcollate",
    "collctype",
    "polqual",
    "polwithcheck",
    "stxexprs",
    "prqual",
    "ev_qual",
    "proargdefaults",
    "probin",
    "prosqlbody",
    "dictinitoption",
    "srvtype",
    "srvversion",
];

/// nullable_column -- whether catalog column `name` of type `ty` may be
/// NULL: as in PostgreSQL (genbki marks the rest NOT NULL), arrays, the
/// stored values of `bytea` and the nullable text columns above.
pub fn nullable_column(name: &str, ty: SqlType) -> bool {
    matches!(ty, SqlType::Array(_)) || ty == Bytea || (ty == Text && NULLABLE_TEXT.contains(&name))
}

/// `pg_catalog`'s OID.
pub const PG_CATALOG_NAMESPACE: Oid = 11;
/// `public`'s OID.
pub const PUBLIC_NAMESPACE: Oid = 2200;
/// The bootstrap superuser's OID.
pub const BOOTSTRAP_SUPERUSER: Oid = 10;
/// `pg_database_owner`, the predefined role that owns `public`.
pub const DATABASE_OWNER_ROLE: Oid = 6171;
/// `template1`'s OID.
pub const TEMPLATE1_OID: Oid = 1;
/// `template0`'s OID.
pub const TEMPLATE0_OID: Oid = 4;
/// `postgres`'s OID.
pub const POSTGRES_DATABASE_OID: Oid = 5;
/// The heap access method's OID.
pub const HEAP_AM_OID: Oid = 2;
/// The B-tree access method's OID.
pub const BTREE_AM_OID: Oid = 403;
/// The database's default collation (`pg_collation` "default").
pub const DEFAULT_COLLATION_OID: Oid = 100;
/// The "C" collation (`name` columns use it).
pub const C_COLLATION_OID: Oid = 950;

/// What kind of relation a `pg_class` row describes (`relkind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelKind {
    /// An ordinary table ('r').
    Table,
    /// A sequence ('S').
    Sequence,
    /// An index ('i').
    Index,
    /// A view ('v'): no storage, a `pg_rewrite` row holds its query.
    View,
    /// A materialized view ('m'): a heap holding its query's result as of
    /// the last refresh, and the query in a `pg_rewrite` row.
    MatView,
}

impl RelKind {
    /// The letter `pg_class.relkind` stores.
    pub fn letter(self) -> &'static str {
        match self {
            RelKind::Table => "r",
            RelKind::Sequence => "S",
            RelKind::Index => "i",
            RelKind::View => "v",
            RelKind::MatView => "m",
        }
    }

    /// Whether the relation keeps rows in a heap (a table or a
    /// materialized view).
    pub fn has_heap(self) -> bool {
        matches!(self, RelKind::Table | RelKind::MatView)
    }

    /// The kind a `relkind` letter stands for, if sluice has it.
    pub fn from_letter(letter: &str) -> Option<RelKind> {
        match letter {
            "r" => Some(RelKind::Table),
            "S" => Some(RelKind::Sequence),
            "i" => Some(RelKind::Index),
            "v" => Some(RelKind::View),
            "m" => Some(RelKind::MatView),
            _ => None,
        }
    }
}
