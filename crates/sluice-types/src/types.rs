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
//! with time zone`) that appear in psql's `\d` and in error messages.

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
}

/// Every supported type, in OID order; handy for tables and tests.
pub const ALL_TYPES: [SqlType; 21] = [
    SqlType::Bool,
    SqlType::Bytea,
    SqlType::Name,
    SqlType::Int8,
    SqlType::Int2,
    SqlType::Int4,
    SqlType::Text,
    SqlType::Oid,
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
    SqlType::Jsonb,
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
    /// `X`: the unknown pseudo-type.
    Unknown,
}

impl SqlType {
    /// The type's OID in `pg_type`.
    pub fn oid(self) -> u32 {
        match self {
            SqlType::Bool => 16,
            SqlType::Bytea => 17,
            SqlType::Name => 19,
            SqlType::Int8 => 20,
            SqlType::Int2 => 21,
            SqlType::Int4 => 23,
            SqlType::Text => 25,
            SqlType::Oid => 26,
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
        }
    }

    /// The type with OID `oid`, if it is one sluice supports.
    pub fn from_oid(oid: u32) -> Option<SqlType> {
        ALL_TYPES.into_iter().find(|t| t.oid() == oid)
    }

    /// The internal name (`pg_type.typname`): `int4`, `varchar`, `timestamptz`.
    pub fn typname(self) -> &'static str {
        match self {
            SqlType::Bool => "bool",
            SqlType::Bytea => "bytea",
            SqlType::Name => "name",
            SqlType::Int8 => "int8",
            SqlType::Int2 => "int2",
            SqlType::Int4 => "int4",
            SqlType::Text => "text",
            SqlType::Oid => "oid",
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
        }
    }

    /// The type named `name` as SQL spells it (`int`, `integer`, `int4`,
    /// `character varying`, `timestamptz`, ...), ignoring ASCII case.
    pub fn from_name(name: &str) -> Option<SqlType> {
        let lower = name.trim().to_ascii_lowercase();
        let t = match lower.as_str() {
            "bool" | "boolean" => SqlType::Bool,
            "bytea" => SqlType::Bytea,
            "name" => SqlType::Name,
            "int8" | "bigint" => SqlType::Int8,
            "int2" | "smallint" => SqlType::Int2,
            "int4" | "int" | "integer" => SqlType::Int4,
            "text" => SqlType::Text,
            "oid" => SqlType::Oid,
            "float4" | "real" => SqlType::Float4,
            "float8" | "float" | "double precision" => SqlType::Float8,
            "unknown" => SqlType::Unknown,
            "bpchar" | "char" | "character" => SqlType::Bpchar,
            "varchar" | "character varying" => SqlType::Varchar,
            "date" => SqlType::Date,
            "time" | "time without time zone" => SqlType::Time,
            "timestamp" | "timestamp without time zone" => SqlType::Timestamp,
            "timestamptz" | "timestamp with time zone" => SqlType::TimestampTz,
            "interval" => SqlType::Interval,
            "numeric" | "decimal" => SqlType::Numeric,
            "uuid" => SqlType::Uuid,
            "jsonb" => SqlType::Jsonb,
            _ => return None,
        };
        Some(t)
    }

    /// `pg_type.typlen`: the fixed byte width, or -1 for varlena types.
    pub fn typlen(self) -> i16 {
        match self {
            SqlType::Bool => 1,
            SqlType::Int2 => 2,
            SqlType::Int4 | SqlType::Oid | SqlType::Float4 | SqlType::Date => 4,
            SqlType::Int8
            | SqlType::Float8
            | SqlType::Time
            | SqlType::Timestamp
            | SqlType::TimestampTz => 8,
            SqlType::Interval | SqlType::Uuid => 16,
            SqlType::Name => 64,
            SqlType::Unknown => -2,
            SqlType::Bytea
            | SqlType::Text
            | SqlType::Bpchar
            | SqlType::Varchar
            | SqlType::Numeric
            | SqlType::Jsonb => -1,
        }
    }

    /// `pg_type.typalign` as a byte count (1, 2, 4 or 8).
    pub fn typalign(self) -> u8 {
        match self {
            SqlType::Bool | SqlType::Name | SqlType::Uuid | SqlType::Unknown => 1,
            SqlType::Int2 => 2,
            SqlType::Int4 | SqlType::Oid | SqlType::Float4 | SqlType::Date => 4,
            SqlType::Int8
            | SqlType::Float8
            | SqlType::Time
            | SqlType::Timestamp
            | SqlType::TimestampTz
            | SqlType::Interval => 8,
            SqlType::Bytea
            | SqlType::Text
            | SqlType::Bpchar
            | SqlType::Varchar
            | SqlType::Numeric
            | SqlType::Jsonb => 4,
        }
    }

    /// `pg_type.typbyval`: whether values travel in a machine word.
    pub fn typbyval(self) -> bool {
        matches!(
            self,
            SqlType::Bool
                | SqlType::Int2
                | SqlType::Int4
                | SqlType::Int8
                | SqlType::Oid
                | SqlType::Float4
                | SqlType::Float8
                | SqlType::Date
                | SqlType::Time
                | SqlType::Timestamp
                | SqlType::TimestampTz
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
            SqlType::Bytea | SqlType::Uuid | SqlType::Jsonb => TypeCategory::User,
            SqlType::Unknown => TypeCategory::Unknown,
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
            SqlType::Time => "time without time zone",
            SqlType::Timestamp => "timestamp without time zone",
            SqlType::TimestampTz => "timestamp with time zone",
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
