//! The catalogue of built-in types: OIDs, names, physical layout and typmods.
//!
//! A column's type in PostgreSQL is a pair: the type's OID and a *typmod*, an
//! `int4` whose meaning belongs to the type (`varchar(10)` stores 14, the length
//! plus the 4-byte varlena header; `numeric(10,2)` packs precision and scale;
//! `timestamp(3)` stores 3) and which is -1 when the column has none. sluice
//! keeps that pair: [`SqlType`] names the type and carries the `pg_type` facts
//! (OID, `typlen`, `typalign`, `typbyval`, category), and typmods travel beside
//! it as plain `i32`s, so what the catalog stores and what the wire protocol
//! reports (`RowDescription`'s type OID and modifier) are PostgreSQL's numbers.
//!
//! [`format_type`] prints a type the way PostgreSQL's `format_type()` does —
//! the SQL-standard spellings (`integer`, `character varying(10)`, `timestamp
//! with time zone`, `integer[]`) that appear in psql's `\d` and in error messages.
//!
//! # Array types
//! Every scalar type except `unknown` has an array type (`_int4`, OID 1007,
//! printed `integer[]`), written [`SqlType::Array`] with an [`ElemType`]
//! inside. One variant for all arrays, rather than one per element type,
//! keeps `match`es over types short (an array arm usually delegates to the
//! element type) and keeps the array facts in one table, `ARRAY_TYPES`.
//! [`ElemType`] is a reference to that table's row, so `SqlType` stays `Copy`
//! and cannot describe what PostgreSQL has no type for: an array of arrays
//! (a multidimensional array has the same type as a one-dimensional one) or
//! `unknown[]`. The typmod of an array column is its element's
//! (`varchar(10)[]` stores 14), as in PostgreSQL.
//!
//! The catalogs' `int2vector` and `oidvector` are arrays too, as in
//! PostgreSQL: one-dimensional, subscripted from 0 and printed as their
//! elements separated by spaces (`indkey` is `1 2`). Their rows are
//! `VECTOR_TYPES`, marked `vector`, so they are types of their own that
//! cast to and from `int2[]`/`oid[]` like any array of the same elements.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

use crate::domains::DomainType;
use crate::enums::EnumType;
use crate::record::RecordType;

/// Typmod value meaning "no modifier".
pub const NO_TYPMOD: i32 = -1;

/// Size of a varlena header, which PostgreSQL adds to length typmods.
const VARHDRSZ: i32 = 4;

/// A built-in SQL type (one row of `pg_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SqlType {
    /// `boolean`.
    Bool,
    /// `bytea`, a byte string.
    Bytea,
    /// `"char"`, the catalogs' one-byte type (`relkind`, `contype`). Its
    /// values are [`crate::Datum::Text`] in their output form (see
    /// [`crate::text::char_in`]).
    Char,
    /// `name`, the catalogs' 63-byte identifier type.
    Name,
    /// `bigint` (`int8`).
    Int8,
    /// `smallint` (`int2`).
    Int2,
    /// `integer` (`int4`).
    Int4,
    /// `text`.
    Text,
    /// `oid`.
    Oid,
    /// `xid`, a transaction id (64-bit in sluice, see [`crate::xid`]).
    Xid,
    /// `xid8`, a full 64-bit transaction id.
    Xid8,
    /// `real` (`float4`).
    Float4,
    /// `double precision` (`float8`).
    Float8,
    /// `unknown`, the type of an untyped string literal.
    Unknown,
    /// `character(n)` (`bpchar`), blank-padded.
    Bpchar,
    /// `character varying(n)` (`varchar`).
    Varchar,
    /// `date`.
    Date,
    /// `time without time zone`.
    Time,
    /// `timestamp without time zone`.
    Timestamp,
    /// `timestamp with time zone`.
    TimestampTz,
    /// `interval`.
    Interval,
    /// `numeric`, arbitrary precision decimal.
    Numeric,
    /// `uuid`.
    Uuid,
    /// `jsonb`.
    Jsonb,
    /// `json`: JSON text kept as written (see [`crate::json`]).
    Json,
    /// `pg_lsn`, a position in the write-ahead log.
    PgLsn,
    /// An array of the element type (`_int4`, `integer[]`, ...).
    Array(ElemType),
    /// A composite (row) type: `record` or a table's row type, with its
    /// fields (see [`crate::record`]).
    Record(RecordType),
    /// An object-identifier alias type (`regclass`, `regtype`, ...): an OID
    /// held as [`crate::Datum::Oid`] whose text form is the object's name.
    Reg(RegKind),
    /// An enum type made by `CREATE TYPE ... AS ENUM` (see [`crate::enums`]).
    Enum(EnumType),
    /// A domain made by `CREATE DOMAIN`: its base type's values, with
    /// constraints (see [`crate::domains`]).
    Domain(DomainType),
}

/// The object-identifier alias types (PostgreSQL's `regproc.c`): each is an
/// `oid` whose input function looks a name up and whose output function
/// prints the name back. Both need the catalogs, which this crate cannot
/// see, so the SQL layer does the lookups: a cast of a string to one of
/// these types and the output of such a value (text format) are session
/// functions there; here they are plain OIDs, binary-coercible to `oid`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegKind {
    /// `regclass`: a relation.
    Class,
    /// `regtype`: a type.
    Type,
    /// `regnamespace`: a schema.
    Namespace,
    /// `regrole`: a role.
    Role,
    /// `regproc`: a function, by name alone.
    Proc,
    /// `regprocedure`: a function, by name and argument types.
    Procedure,
}

impl RegKind {
    /// Every kind, for tables and tests.
    pub const ALL: [RegKind; 6] = [
        RegKind::Class,
        RegKind::Type,
        RegKind::Namespace,
        RegKind::Role,
        RegKind::Proc,
        RegKind::Procedure,
    ];

    /// The type's name (`pg_type.typname`, also its SQL spelling).
    pub fn typname(self) -> &'static str {
        match self {
            RegKind::Class => "regclass",
            RegKind::Type => "regtype",
            RegKind::Namespace => "regnamespace",
            RegKind::Role => "regrole",
            RegKind::Proc => "regproc",
            RegKind::Procedure => "regprocedure",
        }
    }

    /// The type's OID in `pg_type`.
    fn oid(self) -> u32 {
        match self {
            RegKind::Class => 2205,
            RegKind::Type => 2206,
            RegKind::Namespace => 4089,
            RegKind::Role => 4096,
            RegKind::Proc => 24,
            RegKind::Procedure => 2202,
        }
    }
}

/// The element type of an array type: a scalar type other than `unknown`.
///
/// Only [`ElemType::new`] makes one, so the invariant holds everywhere; it
/// points at the element's row in `ARRAY_TYPES`, which also holds the
/// array type's own `pg_type` facts.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ElemType(&'static ArrayInfo);

/// The `pg_type` facts of one array type.
#[derive(Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct ArrayInfo {
    /// The element type (`typelem`).
    elem: SqlType,
    /// The array type's OID, which is the element type's `typarray`.
    oid: u32,
    /// The array type's `typname`: the element's with a leading underscore.
    typname: &'static str,
    /// `format_type` of the array type without a typmod.
    sql_name: &'static str,
    /// `int2vector`/`oidvector`: subscripts from 0, space-separated text.
    vector: bool,
}

/// Shorthand for the rows of `ARRAY_TYPES`.
const fn array_info(
    elem: SqlType,
    oid: u32,
    typname: &'static str,
    sql_name: &'static str,
) -> ArrayInfo {
    ArrayInfo { elem, oid, typname, sql_name, vector: false }
}

/// The catalogs' vector types: `int2vector` and `oidvector`.
static VECTOR_TYPES: [ArrayInfo; 2] = [
    ArrayInfo {
        elem: SqlType::Int2,
        oid: 22,
        typname: "int2vector",
        sql_name: "int2vector",
        vector: true,
    },
    ArrayInfo {
        elem: SqlType::Oid,
        oid: 30,
        typname: "oidvector",
        sql_name: "oidvector",
        vector: true,
    },
];

/// The array type of every scalar type but `unknown`, with PostgreSQL 15's
/// OIDs (`pg_type.typarray` of the element).
static ARRAY_TYPES: [ArrayInfo; 25] = [
    array_info(SqlType::Bool, 1000, "_bool", "boolean[]"),
    array_info(SqlType::Bytea, 1001, "_bytea", "bytea[]"),
    array_info(SqlType::Char, 1002, "_char", "\"char\"[]"),
    array_info(SqlType::Name, 1003, "_name", "name[]"),
    array_info(SqlType::Int8, 1016, "_int8", "bigint[]"),
    array_info(SqlType::Int2, 1005, "_int2", "smallint[]"),
    array_info(SqlType::Int4, 1007, "_int4", "integer[]"),
    array_info(SqlType::Text, 1009, "_text", "text[]"),
    array_info(SqlType::Oid, 1028, "_oid", "oid[]"),
    array_info(SqlType::Xid, 1011, "_xid", "xid[]"),
    array_info(SqlType::Float4, 1021, "_float4", "real[]"),
    array_info(SqlType::Float8, 1022, "_float8", "double precision[]"),
    array_info(SqlType::Bpchar, 1014, "_bpchar", "bpchar[]"),
    array_info(SqlType::Varchar, 1015, "_varchar", "character varying[]"),
    array_info(SqlType::Date, 1182, "_date", "date[]"),
    array_info(SqlType::Time, 1183, "_time", "time without time zone[]"),
    array_info(SqlType::Timestamp, 1115, "_timestamp", "timestamp without time zone[]"),
    array_info(SqlType::TimestampTz, 1185, "_timestamptz", "timestamp with time zone[]"),
    array_info(SqlType::Interval, 1187, "_interval", "interval[]"),
    array_info(SqlType::Numeric, 1231, "_numeric", "numeric[]"),
    array_info(SqlType::Uuid, 2951, "_uuid", "uuid[]"),
    array_info(SqlType::PgLsn, 3221, "_pg_lsn", "pg_lsn[]"),
    array_info(SqlType::Jsonb, 3807, "_jsonb", "jsonb[]"),
    array_info(SqlType::Xid8, 271, "_xid8", "xid8[]"),
    array_info(SqlType::Json, 199, "_json", "json[]"),
];

impl SqlType {
    /// `integer[]` as a constant, for tables that must be `static` (function
    /// signatures); equal to `SqlType::array_of(SqlType::Int4)`.
    pub const INT4_ARRAY: SqlType = SqlType::Array(ElemType(&ARRAY_TYPES[6]));
    /// `text[]` as a constant (catalog column lists); equal to
    /// `SqlType::array_of(SqlType::Text)`.
    pub const TEXT_ARRAY: SqlType = SqlType::Array(ElemType(&ARRAY_TYPES[7]));
    /// `real[]` as a constant (catalog column lists); equal to
    /// `SqlType::array_of(SqlType::Float4)`.
    pub const FLOAT4_ARRAY: SqlType = SqlType::Array(ElemType(&ARRAY_TYPES[10]));
    /// `"char"[]` (catalog columns such as `pg_statistic_ext.stxkind`).
    pub const CHAR_ARRAY: SqlType = SqlType::Array(ElemType(&ARRAY_TYPES[2]));
    /// `name[]` (what `current_schemas` returns).
    pub const NAME_ARRAY: SqlType = SqlType::Array(ElemType(&ARRAY_TYPES[3]));
    /// `smallint[]` (catalog columns PostgreSQL types `int2vector`).
    pub const INT2_ARRAY: SqlType = SqlType::Array(ElemType(&ARRAY_TYPES[5]));
    /// `oid[]`.
    pub const OID_ARRAY: SqlType = SqlType::Array(ElemType(&ARRAY_TYPES[8]));
    /// `int2vector` (`pg_index.indkey`).
    pub const INT2_VECTOR: SqlType = SqlType::Array(ElemType(&VECTOR_TYPES[0]));
    /// `oidvector` (`pg_proc.proargtypes`).
    pub const OID_VECTOR: SqlType = SqlType::Array(ElemType(&VECTOR_TYPES[1]));
}

impl ElemType {
    /// The element type `elem` as an array element, or `None` for types
    /// PostgreSQL has no array type for (`unknown`, arrays themselves).
    pub fn new(elem: SqlType) -> Option<ElemType> {
        let made = match elem {
            SqlType::Enum(e) => Some((e.desc().array_oid, &e.desc().typname, &e.desc().sql_name)),
            SqlType::Domain(d) => Some((d.desc().array_oid, &d.desc().typname, &d.desc().sql_name)),
            _ => None,
        };
        if let Some((oid, typname, sql_name)) = made {
            return Some(ElemType(dynamic_array_info(elem, oid, typname, sql_name)));
        }
        ARRAY_TYPES.iter().find(|a| a.elem == elem).map(ElemType)
    }

    /// The element type itself.
    pub fn get(self) -> SqlType {
        self.0.elem
    }

    /// Whether the array type is `int2vector` or `oidvector`.
    pub fn is_vector(self) -> bool {
        self.0.vector
    }
}

/// The array facts of the types SQL made (enums, domains) met so far,
/// interned like their descriptors (see [`crate::enums`]).
static DYNAMIC_ARRAYS: OnceLock<Mutex<HashSet<&'static ArrayInfo>>> = OnceLock::new();

/// The array facts of type `elem`, made by SQL: `_mood`, `mood[]`, its
/// `typarray`.
fn dynamic_array_info(
    elem: SqlType,
    oid: u32,
    typname: &str,
    sql_name: &str,
) -> &'static ArrayInfo {
    let registry = DYNAMIC_ARRAYS.get_or_init(|| Mutex::new(HashSet::new()));
    let mut set = registry.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(found) = set.iter().find(|a| a.elem == elem) {
        return found;
    }
    let leaked: &'static ArrayInfo = Box::leak(Box::new(ArrayInfo {
        elem,
        oid,
        typname: Box::leak(format!("_{typname}").into_boxed_str()),
        sql_name: Box::leak(format!("{sql_name}[]").into_boxed_str()),
        vector: false,
    }));
    set.insert(leaked);
    leaked
}

impl std::fmt::Debug for ElemType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.elem.fmt(f)
    }
}

/// Every supported scalar type, in OID order; handy for tables and tests
/// (the array types are [`SqlType::array_types`]).
pub const ALL_TYPES: [SqlType; 26] = [
    SqlType::Bool,
    SqlType::Bytea,
    SqlType::Char,
    SqlType::Name,
    SqlType::Int8,
    SqlType::Int2,
    SqlType::Int4,
    SqlType::Text,
    SqlType::Oid,
    SqlType::Xid,
    SqlType::Float4,
    SqlType::Float8,
    SqlType::Unknown,
    SqlType::Bpchar,
    SqlType::Varchar,
    SqlType::Date,
    SqlType::Time,
    SqlType::Timestamp,
    SqlType::TimestampTz,
    SqlType::Interval,
    SqlType::Numeric,
    SqlType::Uuid,
    SqlType::PgLsn,
    SqlType::Jsonb,
    SqlType::Xid8,
    SqlType::Json,
];

/// PostgreSQL's type categories (`pg_type.typcategory`), used by the analyzer's
/// operator and cast resolution rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeCategory {
    /// `B`: boolean.
    Boolean,
    /// `N`: numeric types (integers, floats, numeric, oid).
    Numeric,
    /// `S`: string types.
    String,
    /// `D`: date/time types.
    DateTime,
    /// `T`: timespan types (interval).
    Timespan,
    /// `U`: user-defined/other (bytea, uuid, jsonb).
    User,
    /// `A`: array types.
    Array,
    /// `C`: composite types.
    Composite,
    /// `E`: enum types.
    Enum,
    /// `X`: the unknown pseudo-type.
    Unknown,
    /// `Z`: internal-use types (`"char"`).
    Internal,
}

impl SqlType {
    /// The type's OID in `pg_type`.
    pub fn oid(self) -> u32 {
        match self {
            SqlType::Bool => 16,
            SqlType::Bytea => 17,
            SqlType::Char => 18,
            SqlType::Name => 19,
            SqlType::Int8 => 20,
            SqlType::Int2 => 21,
            SqlType::Int4 => 23,
            SqlType::Text => 25,
            SqlType::Oid => 26,
            SqlType::Xid => 28,
            SqlType::Xid8 => 5069,
            SqlType::Float4 => 700,
            SqlType::Float8 => 701,
            SqlType::Unknown => 705,
            SqlType::Bpchar => 1042,
            SqlType::Varchar => 1043,
            SqlType::Date => 1082,
            SqlType::Time => 1083,
            SqlType::Timestamp => 1114,
            SqlType::TimestampTz => 1184,
            SqlType::Interval => 1186,
            SqlType::Numeric => 1700,
            SqlType::Uuid => 2950,
            SqlType::Jsonb => 3802,
            SqlType::Json => 114,
            SqlType::PgLsn => 3220,
            SqlType::Array(e) => e.0.oid,
            SqlType::Record(_) => crate::record::RECORD_OID,
            SqlType::Reg(kind) => kind.oid(),
            SqlType::Enum(e) => e.desc().oid,
            SqlType::Domain(d) => d.desc().oid,
        }
    }

    /// The type with OID `oid`, if it is one sluice supports.
    pub fn from_oid(oid: u32) -> Option<SqlType> {
        ALL_TYPES
            .into_iter()
            .chain(RegKind::ALL.map(SqlType::Reg))
            .chain(SqlType::array_types())
            .chain(SqlType::vector_types())
            .find(|t| t.oid() == oid)
    }

    /// Every array type, in the order of their element types' OIDs.
    pub fn array_types() -> impl Iterator<Item = SqlType> {
        ARRAY_TYPES.iter().map(|a| SqlType::Array(ElemType(a)))
    }

    /// `int2vector` and `oidvector`.
    pub fn vector_types() -> impl Iterator<Item = SqlType> {
        VECTOR_TYPES.iter().map(|a| SqlType::Array(ElemType(a)))
    }

    /// The array type whose elements are `elem` (`int4` → `_int4`), if
    /// PostgreSQL has one.
    pub fn array_of(elem: SqlType) -> Option<SqlType> {
        ElemType::new(elem).map(SqlType::Array)
    }

    /// The type under any domain: a domain's base type, every other type
    /// itself (PostgreSQL's getBaseType).
    pub fn base(self) -> SqlType {
        match self {
            SqlType::Domain(d) => d.base(),
            other => other,
        }
    }

    /// The element type of an array type (`pg_type.typelem`), `None` for
    /// scalar types.
    pub fn element(self) -> Option<SqlType> {
        match self {
            SqlType::Array(e) => Some(e.get()),
            _ => None,
        }
    }

    /// `pg_type.typarray`: the OID of this type's array type, `None` (0 in
    /// the catalog) for `unknown` and for array types (the vector types'
    /// arrays among them: sluice has no arrays of arrays).
    pub fn array_oid(self) -> Option<u32> {
        SqlType::array_of(self).map(SqlType::oid)
    }

    /// The internal name (`pg_type.typname`): `int4`, `varchar`, `timestamptz`.
    pub fn typname(self) -> &'static str {
        match self {
            SqlType::Bool => "bool",
            SqlType::Bytea => "bytea",
            SqlType::Char => "char",
            SqlType::Name => "name",
            SqlType::Int8 => "int8",
            SqlType::Int2 => "int2",
            SqlType::Int4 => "int4",
            SqlType::Text => "text",
            SqlType::Oid => "oid",
            SqlType::Xid => "xid",
            SqlType::Xid8 => "xid8",
            SqlType::Float4 => "float4",
            SqlType::Float8 => "float8",
            SqlType::Unknown => "unknown",
            SqlType::Bpchar => "bpchar",
            SqlType::Varchar => "varchar",
            SqlType::Date => "date",
            SqlType::Time => "time",
            SqlType::Timestamp => "timestamp",
            SqlType::TimestampTz => "timestamptz",
            SqlType::Interval => "interval",
            SqlType::Numeric => "numeric",
            SqlType::Uuid => "uuid",
            SqlType::Jsonb => "jsonb",
            SqlType::Json => "json",
            SqlType::PgLsn => "pg_lsn",
            SqlType::Array(e) => e.0.typname,
            SqlType::Record(_) => "record",
            SqlType::Reg(kind) => kind.typname(),
            SqlType::Enum(e) => &e.desc().typname,
            SqlType::Domain(d) => &d.desc().typname,
        }
    }

    /// The type named `name` as SQL spells it (`int`, `integer`, `int4`,
    /// `character varying`, `timestamptz`, ...), ignoring ASCII case. Array
    /// types are any such name followed by `[]` (`int[]`, `integer[][]`: the
    /// brackets say nothing about the number of dimensions) or their
    /// `typname` (`_int4`).
    pub fn from_name(name: &str) -> Option<SqlType> {
        let lower = name.trim().to_ascii_lowercase();
        let elem = lower.trim_end_matches("[]").trim_end();
        if elem.len() < lower.len() {
            return SqlType::array_of(SqlType::from_name(elem)?);
        }
        if let Some(a) = ARRAY_TYPES.iter().chain(&VECTOR_TYPES).find(|a| a.typname == lower) {
            return Some(SqlType::Array(ElemType(a)));
        }
        let t = match lower.as_str() {
            "bool" | "boolean" => SqlType::Bool,
            "bytea" => SqlType::Bytea,
            "name" => SqlType::Name,
            "int8" | "bigint" => SqlType::Int8,
            "int2" | "smallint" => SqlType::Int2,
            "int4" | "int" | "integer" => SqlType::Int4,
            "text" => SqlType::Text,
            "oid" => SqlType::Oid,
            "xid" => SqlType::Xid,
            "xid8" => SqlType::Xid8,
            "float4" | "real" => SqlType::Float4,
            "float8" | "float" | "double precision" => SqlType::Float8,
            "unknown" => SqlType::Unknown,
            "bpchar" | "character" => SqlType::Bpchar,
            // The grammar turns an unquoted `char` into `bpchar`: a type
            // name `char` is the quoted one.
            "char" => SqlType::Char,
            "varchar" | "character varying" => SqlType::Varchar,
            "date" => SqlType::Date,
            "time" | "time without time zone" => SqlType::Time,
            "timestamp" | "timestamp without time zone" => SqlType::Timestamp,
            "timestamptz" | "timestamp with time zone" => SqlType::TimestampTz,
            "interval" => SqlType::Interval,
            "numeric" | "decimal" => SqlType::Numeric,
            "uuid" => SqlType::Uuid,
            "jsonb" => SqlType::Jsonb,
            "json" => SqlType::Json,
            "pg_lsn" => SqlType::PgLsn,
            _ => return None,
        };
        Some(t)
    }

    /// `pg_type.typlen`: the fixed byte width, or -1 for varlena types.
    pub fn typlen(self) -> i16 {
        match self {
            SqlType::Bool | SqlType::Char => 1,
            SqlType::Int2 => 2,
            SqlType::Int4
            | SqlType::Oid
            | SqlType::Reg(_)
            | SqlType::Enum(_)
            | SqlType::Float4
            | SqlType::Date => 4,
            SqlType::Int8
            | SqlType::Xid
            | SqlType::Xid8
            | SqlType::Float8
            | SqlType::Time
            | SqlType::Timestamp
            | SqlType::TimestampTz
            | SqlType::PgLsn => 8,
            SqlType::Interval | SqlType::Uuid => 16,
            SqlType::Name => 64,
            SqlType::Unknown => -2,
            SqlType::Domain(d) => d.base().typlen(),
            SqlType::Bytea
            | SqlType::Text
            | SqlType::Bpchar
            | SqlType::Varchar
            | SqlType::Numeric
            | SqlType::Jsonb
            | SqlType::Json
            | SqlType::Array(_)
            | SqlType::Record(_) => -1,
        }
    }

    /// `pg_type.typalign` as a byte count (1, 2, 4 or 8).
    pub fn typalign(self) -> u8 {
        match self {
            SqlType::Bool | SqlType::Char | SqlType::Name | SqlType::Uuid | SqlType::Unknown => 1,
            SqlType::Int2 => 2,
            SqlType::Int4
            | SqlType::Oid
            | SqlType::Reg(_)
            | SqlType::Enum(_)
            | SqlType::Float4
            | SqlType::Date => 4,
            SqlType::Int8
            | SqlType::Xid
            | SqlType::Xid8
            | SqlType::Float8
            | SqlType::Time
            | SqlType::Timestamp
            | SqlType::TimestampTz
            | SqlType::Interval
            | SqlType::PgLsn => 8,
            SqlType::Bytea
            | SqlType::Text
            | SqlType::Bpchar
            | SqlType::Varchar
            | SqlType::Numeric
            | SqlType::Jsonb
            | SqlType::Json => 4,
            SqlType::Record(_) => 8,
            // An array is aligned for its header's int4s or its elements,
            // whichever is stricter.
            SqlType::Array(e) => e.get().typalign().max(4),
            SqlType::Domain(d) => d.base().typalign(),
        }
    }

    /// `pg_type.typbyval`: whether values travel in a machine word.
    pub fn typbyval(self) -> bool {
        if let SqlType::Domain(d) = self {
            return d.base().typbyval();
        }
        matches!(
            self,
            SqlType::Bool
                | SqlType::Char
                | SqlType::Int2
                | SqlType::Int4
                | SqlType::Int8
                | SqlType::Oid
                | SqlType::Reg(_)
                | SqlType::Enum(_)
                | SqlType::Xid
                | SqlType::Xid8
                | SqlType::Float4
                | SqlType::Float8
                | SqlType::Date
                | SqlType::Time
                | SqlType::Timestamp
                | SqlType::TimestampTz
                | SqlType::PgLsn
        )
    }

    /// `pg_type.typcategory`.
    pub fn category(self) -> TypeCategory {
        match self {
            SqlType::Bool => TypeCategory::Boolean,
            SqlType::Int2
            | SqlType::Int4
            | SqlType::Int8
            | SqlType::Oid
            | SqlType::Reg(_)
            | SqlType::Float4
            | SqlType::Float8
            | SqlType::Numeric => TypeCategory::Numeric,
            SqlType::Text | SqlType::Name | SqlType::Bpchar | SqlType::Varchar => {
                TypeCategory::String
            }
            SqlType::Date | SqlType::Time | SqlType::Timestamp | SqlType::TimestampTz => {
                TypeCategory::DateTime
            }
            SqlType::Interval => TypeCategory::Timespan,
            SqlType::Bytea
            | SqlType::Uuid
            | SqlType::Jsonb
            | SqlType::Json
            | SqlType::PgLsn
            | SqlType::Xid
            | SqlType::Xid8 => TypeCategory::User,
            SqlType::Record(_) => TypeCategory::Composite,
            SqlType::Enum(_) => TypeCategory::Enum,
            SqlType::Domain(d) => d.base().category(),
            SqlType::Unknown => TypeCategory::Unknown,
            SqlType::Char => TypeCategory::Internal,
            SqlType::Array(_) => TypeCategory::Array,
        }
    }

    /// The name used in "invalid input syntax for type ..." messages, which is
    /// PostgreSQL's `format_type` name except for `timestamp` and `time`.
    pub fn input_name(self) -> &'static str {
        match self {
            SqlType::Timestamp => "timestamp",
            SqlType::Time => "time",
            SqlType::Bpchar => "character",
            _ => self.base_name(),
        }
    }

    /// `format_type` without a typmod: `integer`, `character varying`, ...
    fn base_name(self) -> &'static str {
        match self {
            SqlType::Bool => "boolean",
            SqlType::Int8 => "bigint",
            SqlType::Int2 => "smallint",
            SqlType::Int4 => "integer",
            SqlType::Float4 => "real",
            SqlType::Float8 => "double precision",
            SqlType::Varchar => "character varying",
            SqlType::Char => "\"char\"",
            SqlType::Time => "time without time zone",
            SqlType::Timestamp => "timestamp without time zone",
            SqlType::TimestampTz => "timestamp with time zone",
            SqlType::Array(e) => e.0.sql_name,
            SqlType::Enum(e) => &e.desc().sql_name,
            SqlType::Domain(d) => &d.desc().sql_name,
            other => other.typname(),
        }
    }
}

/// `format_type(oid, typmod)`: the SQL spelling of a type and its modifier,
/// e.g. `character varying(10)`, `numeric(10,2)`, `timestamp(3) with time zone`.
pub fn format_type(ty: SqlType, typmod: i32) -> String {
    let base = ty.base_name();
    if typmod < 0 {
        return base.to_string();
    }
    match ty {
        SqlType::Varchar => format!("character varying({})", typmod - VARHDRSZ),
        SqlType::Bpchar => format!("character({})", typmod - VARHDRSZ),
        SqlType::Numeric => {
            let (p, s) = numeric_typmod_parts(typmod);
            format!("numeric({p},{s})")
        }
        SqlType::Time => format!("time({typmod}) without time zone"),
        SqlType::Timestamp => format!("timestamp({typmod}) without time zone"),
        SqlType::TimestampTz => format!("timestamp({typmod}) with time zone"),
        SqlType::Interval => format!("interval({})", typmod & 0xFFFF),
        SqlType::Array(e) => format!("{}[]", format_type(e.get(), typmod)),
        _ => base.to_string(),
    }
}

/// The typmod of `varchar(n)` / `char(n)`: `n` plus the varlena header size.
pub fn char_typmod(n: i32) -> i32 {
    n + VARHDRSZ
}

/// The declared length `n` of a `varchar(n)`/`char(n)` typmod, if any.
pub fn char_typmod_len(typmod: i32) -> Option<usize> {
    (typmod >= VARHDRSZ).then(|| (typmod - VARHDRSZ) as usize)
}

/// The typmod of `numeric(precision, scale)`, PostgreSQL's packing.
pub fn numeric_typmod(precision: i32, scale: i32) -> i32 {
    ((precision << 16) | (scale & 0x7ff)) + VARHDRSZ
}

/// Unpack a numeric typmod into (precision, scale); scale may be negative.
pub fn numeric_typmod_parts(typmod: i32) -> (i32, i32) {
    let raw = typmod - VARHDRSZ;
    let precision = (raw >> 16) & 0xffff;
    // The scale is an 11-bit two's-complement field (PostgreSQL 15 allows
    // scales from -1000 to 1000).
    let scale = ((raw & 0x7ff) ^ 1024) - 1024;
    (precision, scale)
}

/// The typmod of `interval(p)` (all fields, precision `p`).
pub fn interval_typmod(precision: i32) -> i32 {
    (0x7FFF << 16) | (precision & 0xFFFF)
}
