//! Type names: `varchar(10)`, `numeric(10,2)`, `timestamp(3) with time zone`
//! → a [`SqlType`] and its typmod (PostgreSQL's `parse_type.c` and the
//! types' `typmodin` functions).
//!
//! The grammar has already turned SQL's spellings into internal names
//! (`character varying` is `pg_catalog.varchar`, `float(3)` is `float4`,
//! `char` without a length is `bpchar(1)`, `interval '1' day` carries a
//! field mask), so this file checks the modifiers and packs them the way the
//! catalogs store them. A name PostgreSQL knows but sluice does not support
//! is `0A000`; a name nobody knows is `42704`, as in PostgreSQL.

use pg_query::protobuf::{a_const, node, TypeName};
use sluice_types::types::{char_typmod, numeric_typmod};
use sluice_types::SqlType;

use crate::{Result, SqlError};

/// Longest `varchar(n)`/`char(n)` PostgreSQL accepts.
const MAX_CHAR_LENGTH: i32 = 10_485_760;

/// Largest `numeric` precision (and scale magnitude).
const MAX_NUMERIC_PRECISION: i32 = 1000;

/// Largest fractional-second precision of the date/time types.
const MAX_TIME_PRECISION: i32 = 6;

/// `interval`'s "all fields" range mask and "no precision" value.
pub(super) const INTERVAL_FULL_RANGE: i32 = 0x7FFF;
pub(super) const INTERVAL_FULL_PRECISION: i32 = 0xFFFF;

/// Type names PostgreSQL has that sluice does not implement.
const UNSUPPORTED: &[&str] = &[
    "json",
    "xml",
    "bit",
    "varbit",
    "inet",
    "cidr",
    "macaddr",
    "macaddr8",
    "money",
    "point",
    "line",
    "lseg",
    "box",
    "path",
    "polygon",
    "circle",
    "timetz",
    "tsvector",
    "tsquery",
    "regclass",
    "regtype",
    "regproc",
    "regprocedure",
    "regoper",
    "regnamespace",
    "regrole",
    "xid",
    "xid8",
    "cid",
    "tid",
    "record",
    "void",
    "int4range",
    "int8range",
    "numrange",
    "daterange",
    "tsrange",
    "tstzrange",
    "pg_lsn",
    "txid_snapshot",
    "pg_snapshot",
    "jsonpath",
];

/// Finds a type CREATE TYPE made: `(schema, name)` to the type, `None` if
/// there is none (see `catalog::pg_type::TypeCatalog`).
pub type UserTypes<'a> = dyn FnMut(Option<&str>, &str) -> Result<Option<SqlType>> + 'a;

/// type_from_name -- the type and typmod a parse-tree type name denotes,
/// among the built-in types only.
pub fn type_from_name(tn: &TypeName) -> Result<(SqlType, i32)> {
    type_from_name_in(tn, &mut |_, _| Ok(None))
}

/// type_from_name_in -- the type and typmod a parse-tree type name denotes,
/// looking names that are not built in up in `user_types`.
pub fn type_from_name_in(tn: &TypeName, user_types: &mut UserTypes) -> Result<(SqlType, i32)> {
    let position = position_of(tn.location);
    if tn.pct_type {
        return Err(SqlError::unsupported("%TYPE references are not supported").at(position));
    }
    let names: Vec<&str> = tn.names.iter().filter_map(string_of).collect();
    let ty = lookup(&names, user_types).map_err(|e| e.at(position))?;
    let mods = typmod_values(tn).map_err(|e| e.at(position))?;
    let typmod = typmod_in(ty, &names, &mods).map_err(|e| e.at(position))?;
    if tn.array_bounds.is_empty() {
        return Ok((ty, typmod));
    }
    // `int[]`, `int[3]` and `int[][]` all name the same (one-dimensional in
    // sluice) array type; its typmod is the element's.
    let array = SqlType::array_of(ty).ok_or_else(|| {
        SqlError::new(
            "42704",
            format!("could not find array type for data type {}", ty.input_name()),
        )
        .at(position)
    })?;
    Ok((array, typmod))
}

/// parse_type_string -- the type and typmod a string names, in any
/// spelling a cast accepts (`character varying(10)[]`, `pg_catalog.int4`):
/// `regtype`'s input (PostgreSQL's `parseTypeString`, which parses
/// `SELECT NULL::name` the same way). Anything but a lone type name is
/// 42601 `invalid type name`.
pub fn parse_type_string(text: &str) -> Result<(SqlType, i32)> {
    let type_name = parse_type_name(text)?;
    // The positions would point into the made-up statement, not the string.
    type_from_name(&type_name).map_err(|mut e| {
        e.position = None;
        e
    })
}

/// parse_type_name -- the grammar's TypeName of a type as a cast spells it
/// (what `format_type` prints parses back to the same type).
pub fn parse_type_name(text: &str) -> Result<TypeName> {
    let invalid = || SqlError::syntax(format!("invalid type name \"{text}\""));
    let sql = format!("SELECT NULL::{text}");
    let parsed =
        pg_query::parse(&sql, pg_query::ParserOptions::default()).map_err(|_| invalid())?;
    let [statement] = parsed.protobuf.stmts.as_slice() else { return Err(invalid()) };
    statement
        .stmt
        .as_ref()
        .and_then(|s| s.node.as_ref())
        .and_then(lone_cast_target)
        .cloned()
        .ok_or_else(invalid)
}

/// The type name of `SELECT NULL::name`, if the statement is nothing more.
fn lone_cast_target(statement: &node::Node) -> Option<&TypeName> {
    let node::Node::SelectStmt(select) = statement else { return None };
    let plain = select.from_clause.is_empty()
        && select.where_clause.is_none()
        && select.sort_clause.is_empty()
        && select.limit_count.is_none()
        && select.larg.is_none();
    let [target] = select.target_list.as_slice() else { return None };
    let Some(node::Node::ResTarget(target)) = target.node.as_ref() else { return None };
    let Some(node::Node::TypeCast(cast)) = target.val.as_ref()?.node.as_ref() else { return None };
    (plain && target.name.is_empty()).then_some(cast.type_name.as_ref()?)
}

/// The 1-based position of a parse-tree location (-1 for none).
pub(super) fn position_of(location: i32) -> Option<u32> {
    u32::try_from(location).ok().map(|l| l + 1)
}

/// The text of a `String` node.
pub(super) fn string_of(n: &pg_query::protobuf::Node) -> Option<&str> {
    match n.node.as_ref()? {
        node::Node::String(s) => Some(&s.sval),
        _ => None,
    }
}

/// Resolve a possibly schema-qualified type name.
fn lookup(names: &[&str], user_types: &mut UserTypes) -> Result<SqlType> {
    let (schema, name) = match names {
        [name] => (None, *name),
        [schema, name] => (Some(*schema), *name),
        _ => {
            return Err(SqlError::syntax(format!(
                "improper qualified name (too many dotted names): {}",
                names.join(".")
            )))
        }
    };
    let qualified_ok = schema.is_none_or(|s| s == "pg_catalog");
    match SqlType::from_name(name) {
        Some(ty) if qualified_ok => Ok(ty),
        _ if qualified_ok && UNSUPPORTED.contains(&name) => {
            Err(SqlError::unsupported(format!("type {name} is not supported")))
        }
        _ => user_types(schema, name)?.ok_or_else(|| {
            SqlError::new("42704", format!("type \"{}\" does not exist", names.join(".")))
        }),
    }
}

/// The integer modifiers written after the name.
fn typmod_values(tn: &TypeName) -> Result<Vec<i32>> {
    tn.typmods
        .iter()
        .map(|m| match m.node.as_ref() {
            Some(node::Node::AConst(c)) => match &c.val {
                Some(a_const::Val::Ival(i)) => Ok(i.ival),
                _ => Err(SqlError::new(
                    "22P02",
                    "type modifiers must be simple constants or identifiers",
                )),
            },
            _ => Err(SqlError::new(
                "22P02",
                "type modifiers must be simple constants or identifiers",
            )),
        })
        .collect()
}

/// typmod_in -- check and pack the modifiers of `ty` (the types' `typmodin`).
fn typmod_in(ty: SqlType, names: &[&str], mods: &[i32]) -> Result<i32> {
    if mods.is_empty() {
        return Ok(-1);
    }
    match ty {
        SqlType::Varchar => char_length_typmod("varchar", mods),
        SqlType::Bpchar => char_length_typmod("char", mods),
        SqlType::Numeric => numeric_typmod_in(mods),
        SqlType::Timestamp => time_precision(mods, "TIMESTAMP", ""),
        SqlType::TimestampTz => time_precision(mods, "TIMESTAMP", " WITH TIME ZONE"),
        SqlType::Time => time_precision(mods, "TIME", ""),
        SqlType::Interval => interval_typmod_in(mods),
        _ => Err(SqlError::syntax(format!(
            "type modifier is not allowed for type \"{}\"",
            names.last().copied().unwrap_or_default()
        ))),
    }
}

/// `varchar(n)` / `char(n)`.
fn char_length_typmod(name: &str, mods: &[i32]) -> Result<i32> {
    let [n] = mods else {
        return Err(invalid_modifier(&format!("invalid type modifier for type {name}")));
    };
    if *n < 1 {
        return Err(invalid_modifier(&format!("length for type {name} must be at least 1")));
    }
    if *n > MAX_CHAR_LENGTH {
        return Err(invalid_modifier(&format!(
            "length for type {name} cannot exceed {MAX_CHAR_LENGTH}"
        )));
    }
    Ok(char_typmod(*n))
}

/// `numeric(p)` / `numeric(p, s)`.
fn numeric_typmod_in(mods: &[i32]) -> Result<i32> {
    let (precision, scale) = match mods {
        [p] => (*p, 0),
        [p, s] => (*p, *s),
        _ => return Err(invalid_modifier("invalid NUMERIC type modifier")),
    };
    if !(1..=MAX_NUMERIC_PRECISION).contains(&precision) {
        return Err(invalid_modifier(&format!(
            "NUMERIC precision {precision} must be between 1 and {MAX_NUMERIC_PRECISION}"
        )));
    }
    if !(-MAX_NUMERIC_PRECISION..=MAX_NUMERIC_PRECISION).contains(&scale) {
        return Err(invalid_modifier(&format!(
            "NUMERIC scale {scale} must be between {} and {MAX_NUMERIC_PRECISION}",
            -MAX_NUMERIC_PRECISION
        )));
    }
    Ok(numeric_typmod(precision, scale))
}

/// `time(p)`, `timestamp(p)`, `timestamptz(p)`: PostgreSQL reduces a too
/// large precision to 6 with a warning; sluice reduces it silently.
fn time_precision(mods: &[i32], name: &str, suffix: &str) -> Result<i32> {
    let [p] = mods else {
        return Err(invalid_modifier(&format!("invalid type modifier for type {name}")));
    };
    if *p < 0 {
        return Err(invalid_modifier(&format!(
            "{name}({p}){suffix} precision must not be negative"
        )));
    }
    Ok((*p).min(MAX_TIME_PRECISION))
}

/// `interval [fields] [(p)]`: the field mask in the high half, the
/// precision in the low half.
fn interval_typmod_in(mods: &[i32]) -> Result<i32> {
    let (range, precision) = match mods {
        [range] if *range == INTERVAL_FULL_RANGE => return Ok(-1),
        [range] => (*range, INTERVAL_FULL_PRECISION),
        [range, p] if *p < 0 => {
            return Err(invalid_modifier(&format!("INTERVAL({p}) precision must not be negative")))
        }
        [range, p] => (*range, (*p).min(MAX_TIME_PRECISION)),
        _ => return Err(invalid_modifier("invalid INTERVAL type modifier")),
    };
    if !(0..=INTERVAL_FULL_RANGE).contains(&range) {
        return Err(invalid_modifier("invalid INTERVAL type modifier"));
    }
    Ok((range << 16) | precision)
}

/// 22023 for a bad type modifier.
fn invalid_modifier(message: &str) -> SqlError {
    SqlError::new("22023", message)
}
