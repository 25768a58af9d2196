//! Catalogs of objects sluice cannot create yet, and of built-in objects it
//! does not list yet: tablespaces beyond the two built-in ones, functions,
//! languages, operators and their classes and families, casts, text
//! search, foreign data, default privileges, conversions, ranges, comments
//! on shared objects, per-database and per-role settings,
//! transforms, event triggers, subscriptions, large objects, initial
//! privileges and security labels.
//!
//! They exist because clients read them. pg_dump's first queries join
//! `pg_tablespace`, `pg_proc`, `pg_operator`, `pg_cast`, `pg_opclass`,
//! `pg_ts_config`, `pg_foreign_server` and the rest, and stops at the first
//! that is missing; psql's `\d` family does the same. Each is a real,
//! per-database (or shared) heap with PostgreSQL 15's columns in its order,
//! so a query over it plans and runs like any other, and a later feature
//! fills its catalog with rows, not with a new table.
//!
//! What they hold now: `pg_tablespace` has `pg_default` and `pg_global`,
//! `pg_language` has `internal` (the language of the built-in functions),
//! every other one is empty. Empty is the truth for the objects no SQL can
//! make yet (a foreign server, a text search dictionary, a default
//! privilege); for the built-in functions, operators, operator classes and
//! casts it is a gap, noted in docs/architecture.md, that the function
//! catalog's issue closes. Columns PostgreSQL types `aclitem[]` are `text[]`
//! and `pg_node_tree` is `text`, as elsewhere in sluice.

use super::schema::CatalogDef;
use sluice_types::types::RegKind;
use sluice_types::SqlType::{self, *};

/// `regproc`, the type of catalog columns naming a function.
const REGPROC: SqlType = Reg(RegKind::Proc);

/// `pg_tablespace` (shared).
pub const PG_TABLESPACE: CatalogDef = CatalogDef {
    oid: 1213,
    name: "pg_tablespace",
    shared: true,
    columns: &[
        ("oid", Oid),
        ("spcname", Name),
        ("spcowner", Oid),
        ("spcacl", SqlType::TEXT_ARRAY),
        ("spcoptions", SqlType::TEXT_ARRAY),
    ],
};

/// `pg_proc`: functions and procedures.
pub const PG_PROC: CatalogDef = CatalogDef {
    oid: 1255,
    name: "pg_proc",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("proname", Name),
        ("pronamespace", Oid),
        ("proowner", Oid),
        ("prolang", Oid),
        ("procost", Float4),
        ("prorows", Float4),
        ("provariadic", Oid),
        ("prosupport", REGPROC),
        ("prokind", Char),
        ("prosecdef", Bool),
        ("proleakproof", Bool),
        ("proisstrict", Bool),
        ("proretset", Bool),
        ("provolatile", Char),
        ("proparallel", Char),
        ("pronargs", Int2),
        ("pronargdefaults", Int2),
        ("prorettype", Oid),
        ("proargtypes", SqlType::OID_VECTOR),
        ("proallargtypes", SqlType::OID_ARRAY),
        ("proargmodes", SqlType::CHAR_ARRAY),
        ("proargnames", SqlType::TEXT_ARRAY),
        ("proargdefaults", Text),
        ("protrftypes", SqlType::OID_ARRAY),
        ("prosrc", Text),
        ("probin", Text),
        ("prosqlbody", Text),
        ("proconfig", SqlType::TEXT_ARRAY),
        ("proacl", SqlType::TEXT_ARRAY),
    ],
};

/// `pg_language`: procedural languages.
pub const PG_LANGUAGE: CatalogDef = CatalogDef {
    oid: 2612,
    name: "pg_language",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("lanname", Name),
        ("lanowner", Oid),
        ("lanispl", Bool),
        ("lanpltrusted", Bool),
        ("lanplcallfoid", Oid),
        ("laninline", Oid),
        ("lanvalidator", Oid),
        ("lanacl", SqlType::TEXT_ARRAY),
    ],
};

/// `pg_operator`.
pub const PG_OPERATOR: CatalogDef = CatalogDef {
    oid: 2617,
    name: "pg_operator",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("oprname", Name),
        ("oprnamespace", Oid),
        ("oprowner", Oid),
        ("oprkind", Char),
        ("oprcanmerge", Bool),
        ("oprcanhash", Bool),
        ("oprleft", Oid),
        ("oprright", Oid),
        ("oprresult", Oid),
        ("oprcom", Oid),
        ("oprnegate", Oid),
        ("oprcode", REGPROC),
        ("oprrest", REGPROC),
        ("oprjoin", REGPROC),
    ],
};

/// `pg_opclass`: operator classes of index access methods.
pub const PG_OPCLASS: CatalogDef = CatalogDef {
    oid: 2616,
    name: "pg_opclass",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("opcmethod", Oid),
        ("opcname", Name),
        ("opcnamespace", Oid),
        ("opcowner", Oid),
        ("opcfamily", Oid),
        ("opcintype", Oid),
        ("opcdefault", Bool),
        ("opckeytype", Oid),
    ],
};

/// `pg_opfamily`: operator families.
pub const PG_OPFAMILY: CatalogDef = CatalogDef {
    oid: 2753,
    name: "pg_opfamily",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("opfmethod", Oid),
        ("opfname", Name),
        ("opfnamespace", Oid),
        ("opfowner", Oid),
    ],
};

/// `pg_amop`: the operators of operator families.
pub const PG_AMOP: CatalogDef = CatalogDef {
    oid: 2602,
    name: "pg_amop",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("amopfamily", Oid),
        ("amoplefttype", Oid),
        ("amoprighttype", Oid),
        ("amopstrategy", Int2),
        ("amoppurpose", Char),
        ("amopopr", Oid),
        ("amopmethod", Oid),
        ("amopsortfamily", Oid),
    ],
};

/// `pg_amproc`: the support functions of operator families.
pub const PG_AMPROC: CatalogDef = CatalogDef {
    oid: 2603,
    name: "pg_amproc",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("amprocfamily", Oid),
        ("amproclefttype", Oid),
        ("amprocrighttype", Oid),
        ("amprocnum", Int2),
        ("amproc", REGPROC),
    ],
};

/// `pg_cast`: casts between types.
pub const PG_CAST: CatalogDef = CatalogDef {
    oid: 2605,
    name: "pg_cast",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("castsource", Oid),
        ("casttarget", Oid),
        ("castfunc", Oid),
        ("castcontext", Char),
        ("castmethod", Char),
    ],
};

/// `pg_range`: range types.
pub const PG_RANGE: CatalogDef = CatalogDef {
    oid: 3541,
    name: "pg_range",
    shared: false,
    columns: &[
        ("rngtypid", Oid),
        ("rngsubtype", Oid),
        ("rngmultitypid", Oid),
        ("rngcollation", Oid),
        ("rngsubopc", Oid),
        ("rngcanonical", REGPROC),
        ("rngsubdiff", REGPROC),
    ],
};

/// `pg_conversion`: encoding conversions.
pub const PG_CONVERSION: CatalogDef = CatalogDef {
    oid: 2607,
    name: "pg_conversion",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("conname", Name),
        ("connamespace", Oid),
        ("conowner", Oid),
        ("conforencoding", Int4),
        ("contoencoding", Int4),
        ("conproc", REGPROC),
        ("condefault", Bool),
    ],
};

/// `pg_transform`: type transforms for procedural languages.
pub const PG_TRANSFORM: CatalogDef = CatalogDef {
    oid: 3576,
    name: "pg_transform",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("trftype", Oid),
        ("trflang", Oid),
        ("trffromsql", REGPROC),
        ("trftosql", REGPROC),
    ],
};

/// `pg_ts_parser`: text search parsers.
pub const PG_TS_PARSER: CatalogDef = CatalogDef {
    oid: 3601,
    name: "pg_ts_parser",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("prsname", Name),
        ("prsnamespace", Oid),
        ("prsstart", REGPROC),
        ("prstoken", REGPROC),
        ("prsend", REGPROC),
        ("prsheadline", REGPROC),
        ("prslextype", REGPROC),
    ],
};

/// `pg_ts_template`: text search templates.
pub const PG_TS_TEMPLATE: CatalogDef = CatalogDef {
    oid: 3764,
    name: "pg_ts_template",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("tmplname", Name),
        ("tmplnamespace", Oid),
        ("tmplinit", REGPROC),
        ("tmpllexize", REGPROC),
    ],
};

/// `pg_ts_dict`: text search dictionaries.
pub const PG_TS_DICT: CatalogDef = CatalogDef {
    oid: 3600,
    name: "pg_ts_dict",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("dictname", Name),
        ("dictnamespace", Oid),
        ("dictowner", Oid),
        ("dicttemplate", Oid),
        ("dictinitoption", Text),
    ],
};

/// `pg_ts_config`: text search configurations.
pub const PG_TS_CONFIG: CatalogDef = CatalogDef {
    oid: 3602,
    name: "pg_ts_config",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("cfgname", Name),
        ("cfgnamespace", Oid),
        ("cfgowner", Oid),
        ("cfgparser", Oid),
    ],
};

/// `pg_foreign_data_wrapper`.
pub const PG_FOREIGN_DATA_WRAPPER: CatalogDef = CatalogDef {
    oid: 2328,
    name: "pg_foreign_data_wrapper",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("fdwname", Name),
        ("fdwowner", Oid),
        ("fdwhandler", Oid),
        ("fdwvalidator", Oid),
        ("fdwacl", SqlType::TEXT_ARRAY),
        ("fdwoptions", SqlType::TEXT_ARRAY),
    ],
};

/// `pg_foreign_server`.
pub const PG_FOREIGN_SERVER: CatalogDef = CatalogDef {
    oid: 1417,
    name: "pg_foreign_server",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("srvname", Name),
        ("srvowner", Oid),
        ("srvfdw", Oid),
        ("srvtype", Text),
        ("srvversion", Text),
        ("srvacl", SqlType::TEXT_ARRAY),
        ("srvoptions", SqlType::TEXT_ARRAY),
    ],
};

/// `pg_foreign_table`.
pub const PG_FOREIGN_TABLE: CatalogDef = CatalogDef {
    oid: 3118,
    name: "pg_foreign_table",
    shared: false,
    columns: &[("ftrelid", Oid), ("ftserver", Oid), ("ftoptions", SqlType::TEXT_ARRAY)],
};

/// `pg_default_acl`: ALTER DEFAULT PRIVILEGES.
pub const PG_DEFAULT_ACL: CatalogDef = CatalogDef {
    oid: 826,
    name: "pg_default_acl",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("defaclrole", Oid),
        ("defaclnamespace", Oid),
        ("defaclobjtype", Char),
        ("defaclacl", SqlType::TEXT_ARRAY),
    ],
};

/// `pg_event_trigger`.
pub const PG_EVENT_TRIGGER: CatalogDef = CatalogDef {
    oid: 3466,
    name: "pg_event_trigger",
    shared: false,
    columns: &[
        ("oid", Oid),
        ("evtname", Name),
        ("evtevent", Name),
        ("evtowner", Oid),
        ("evtfoid", Oid),
        ("evtenabled", Char),
        ("evttags", SqlType::TEXT_ARRAY),
    ],
};

/// `pg_subscription` (shared).
pub const PG_SUBSCRIPTION: CatalogDef = CatalogDef {
    oid: 6100,
    name: "pg_subscription",
    shared: true,
    columns: &[
        ("oid", Oid),
        ("subdbid", Oid),
        ("subskiplsn", PgLsn),
        ("subname", Name),
        ("subowner", Oid),
        ("subenabled", Bool),
        ("subbinary", Bool),
        ("substream", Bool),
        ("subtwophasestate", Char),
        ("subdisableonerr", Bool),
        ("subconninfo", Text),
        ("subslotname", Name),
        ("subsynccommit", Text),
        ("subpublications", SqlType::TEXT_ARRAY),
    ],
};

/// `pg_largeobject_metadata`.
pub const PG_LARGEOBJECT_METADATA: CatalogDef = CatalogDef {
    oid: 2995,
    name: "pg_largeobject_metadata",
    shared: false,
    columns: &[("oid", Oid), ("lomowner", Oid), ("lomacl", SqlType::TEXT_ARRAY)],
};

/// `pg_init_privs`: the privileges objects had when initdb or CREATE
/// EXTENSION made them.
pub const PG_INIT_PRIVS: CatalogDef = CatalogDef {
    oid: 3394,
    name: "pg_init_privs",
    shared: false,
    columns: &[
        ("objoid", Oid),
        ("classoid", Oid),
        ("objsubid", Int4),
        ("privtype", Char),
        ("initprivs", SqlType::TEXT_ARRAY),
    ],
};

/// `pg_seclabel`: SECURITY LABEL on database objects.
pub const PG_SECLABEL: CatalogDef = CatalogDef {
    oid: 3596,
    name: "pg_seclabel",
    shared: false,
    columns: &[
        ("objoid", Oid),
        ("classoid", Oid),
        ("objsubid", Int4),
        ("provider", Text),
        ("label", Text),
    ],
};

/// `pg_shdescription` (shared): comments on shared objects (databases,
/// roles, tablespaces).
pub const PG_SHDESCRIPTION: CatalogDef = CatalogDef {
    oid: 2396,
    name: "pg_shdescription",
    shared: true,
    columns: &[("objoid", Oid), ("classoid", Oid), ("description", Text)],
};

/// `pg_db_role_setting` (shared): ALTER DATABASE / ALTER ROLE ... SET.
pub const PG_DB_ROLE_SETTING: CatalogDef = CatalogDef {
    oid: 2964,
    name: "pg_db_role_setting",
    shared: true,
    columns: &[("setdatabase", Oid), ("setrole", Oid), ("setconfig", SqlType::TEXT_ARRAY)],
};

/// `pg_shseclabel` (shared): SECURITY LABEL on shared objects.
pub const PG_SHSECLABEL: CatalogDef = CatalogDef {
    oid: 3592,
    name: "pg_shseclabel",
    shared: true,
    columns: &[("objoid", Oid), ("classoid", Oid), ("provider", Text), ("label", Text)],
};
