//! Names and OIDs of catalog objects for clients' catalog queries:
//! the `reg*` casts (PostgreSQL's `regproc.c`), `pg_get_userbyid`,
//! `pg_table_is_visible` (`namespace.c`) and `pg_relation_is_publishable`.
//!
//! Every lookup reads the catalogs under the statement's snapshot, like the
//! rest of the statement. The search path is sluice's fixed one,
//! `pg_catalog, public` (see `current_schemas`): a relation is *visible*
//! when it is the first of its name along that path, and a visible
//! relation's name is printed unqualified, any other schema-qualified.

use super::ExecHost;
use crate::catalog::namespace::missing_relation;
use crate::catalog::pg_type;
use crate::catalog::relation::{find_as, find_by_oid_as, oid_of, RelationId};
use crate::catalog::scan_as;
use crate::catalog::schema::{CatalogDef, RelKind, PG_AUTHID, PG_CATALOG_NAMESPACE};
use crate::error::{Result, SqlError};
use crate::expr::{
    function_named, function_signature, function_with_args, parse_type_name, parse_type_string,
    type_from_name_in, FunctionNamed, RegKind,
};
use crate::parser::quote_identifier;
use sluice_common::Oid;
use sluice_types::{Datum, SqlType};

/// The namespaces searched for unqualified names, in order.
use crate::catalog::namespace::{self, SearchPath};

/// reg_in -- the OID a `reg*` value stands for: an OID as given, a name
/// looked up (42P01/42704/3F000 if there is no such object).
pub(super) fn reg_in(host: &mut ExecHost, kind: RegKind, arg: &Datum) -> Result<Datum> {
    let name = match arg {
        Datum::Oid(oid) => return Ok(Datum::Oid(*oid)),
        Datum::Text(name) => name.trim(),
        _ => return Ok(Datum::Null),
    };
    // PostgreSQL's input functions also take a number for an OID.
    if let Ok(oid) = name.parse::<Oid>() {
        return Ok(Datum::Oid(oid));
    }
    Ok(Datum::Oid(lookup(host, kind, name)?))
}

/// to_reg -- `to_regclass(text)` and its kin: the OID the name stands
/// for, or NULL where the cast would fail for want of the object (or, for
/// a function name, because it is overloaded). A number is a name here,
/// not an OID, as in PostgreSQL 15.
pub(super) fn to_reg(host: &mut ExecHost, kind: RegKind, arg: &Datum) -> Result<Datum> {
    let Datum::Text(name) = arg else { return Ok(Datum::Null) };
    match lookup(host, kind, name.trim()) {
        Ok(oid) => Ok(Datum::Oid(oid)),
        Err(e) if matches!(e.code, "42P01" | "42704" | "3F000" | "42883" | "42725") => {
            Ok(Datum::Null)
        }
        Err(e) => Err(e),
    }
}

/// The OID of the object of `kind` named `name` (42P01/42704/3F000 if
/// there is none).
fn lookup(host: &mut ExecHost, kind: RegKind, name: &str) -> Result<Oid> {
    let oid = match kind {
        RegKind::Class => relation_oid(host, name)?,
        RegKind::Type => type_named(host, name)?.oid(),
        RegKind::Namespace => {
            namespace_oid(host, &unquote(name))?.ok_or_else(|| namespace::missing_schema(name))?
        }
        RegKind::Role => role_oid(host, &unquote(name))?
            .ok_or_else(|| SqlError::new("42704", format!("role \"{name}\" does not exist")))?,
        RegKind::Proc => function_oid(name)?,
        RegKind::Procedure => procedure_oid(name)?,
    };
    Ok(oid)
}

/// reg_out -- the name a `reg*` OID stands for; `-` for 0 and the number
/// itself when no object has it, as PostgreSQL's output functions print.
pub(super) fn reg_out(host: &mut ExecHost, kind: RegKind, arg: &Datum) -> Result<Datum> {
    let Datum::Oid(oid) = arg else { return Ok(Datum::Null) };
    if *oid == 0 {
        return Ok(Datum::Text("-".into()));
    }
    let name = match kind {
        RegKind::Class => {
            relation(host, *oid)?.map(|r| qualified_if_hidden(host, &r)).transpose()?
        }
        RegKind::Type => type_by_oid(host, *oid)?.map(|t| match t {
            SqlType::Bpchar => "character".to_string(),
            t => sluice_types::format_type(t, -1),
        }),
        RegKind::Namespace => namespace_name(host, *oid)?.map(|n| quote_identifier(&n)),
        RegKind::Role => role_name(host, *oid)?.map(|n| quote_identifier(&n)),
        RegKind::Proc => function_signature(*oid).map(|(name, _)| quote_identifier(name)),
        RegKind::Procedure => function_signature(*oid).map(|(name, args)| {
            let args: Vec<String> = args.iter().map(|a| type_display(a)).collect();
            format!("{}({})", quote_identifier(name), args.join(","))
        }),
    };
    Ok(Datum::Text(name.unwrap_or_else(|| oid.to_string())))
}

/// The columns of a result whose `reg*` values must leave the executor as
/// names: those of a `reg*` type that the receiver reads as text.
/// PostgreSQL's output functions for these types read the catalogs, which
/// the protocol layer cannot, so the names are looked up here, under the
/// statement's snapshot; a column read in binary stays the OID, which is
/// what PostgreSQL's send functions send.
pub(crate) struct RegColumns(Vec<(usize, RegKind)>);

impl RegColumns {
    /// The `reg*` columns among `types` for which `as_text(column)` holds.
    pub(crate) fn of(
        types: impl IntoIterator<Item = SqlType>,
        as_text: impl Fn(usize) -> bool,
    ) -> RegColumns {
        let columns = types.into_iter().enumerate().filter_map(|(i, ty)| match ty {
            SqlType::Reg(kind) if as_text(i) => Some((i, kind)),
            _ => None,
        });
        RegColumns(columns.collect())
    }

    /// Replaces the OIDs of the `reg*` columns of `row` by their names.
    pub(crate) fn name(&self, host: &mut ExecHost, row: &mut [Datum]) -> Result<()> {
        for &(column, kind) in &self.0 {
            if let Some(value) = row.get_mut(column) {
                *value = reg_out(host, kind, value)?;
            }
        }
        Ok(())
    }
}

/// `pg_get_userbyid(oid)`: the role's name, or `unknown (OID=n)`.
pub(super) fn user_by_id(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    let Some(Datum::Oid(oid)) = args.first() else { return Ok(Datum::Null) };
    let name = role_name(host, *oid)?;
    Ok(Datum::Text(name.unwrap_or_else(|| format!("unknown (OID={oid})"))))
}

/// `acldefault(objtype, owner)`: PostgreSQL's built-in default ACL of an
/// object of kind `objtype` owned by `owner` (acldefault in `acl.c`): the
/// owner holds every privilege of the kind; PUBLIC also holds USAGE on
/// types and languages, EXECUTE on functions, and CONNECT and TEMPORARY on
/// databases. Items print as `aclitem` does (`grantee=privs/grantor`, an
/// empty grantee for PUBLIC).
pub(super) fn acl_default(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    let (Some(kind), Some(Datum::Oid(owner))) = (args.first().and_then(Datum::as_str), args.get(1))
    else {
        return Ok(Datum::Null);
    };
    let (public, owner_privileges) = match kind {
        "c" | "r" => ("", "arwdDxt"),
        "s" => ("", "rwU"),
        "d" => ("Tc", "CTc"),
        "f" => ("X", "X"),
        "l" | "T" => ("U", "U"),
        "n" => ("", "UC"),
        "t" => ("", "C"),
        "F" | "S" => ("", "U"),
        "L" => ("", "rw"),
        _ => {
            return Err(SqlError::new(
                "XX000",
                format!("unrecognized objtype abbreviation: {kind}"),
            ))
        }
    };
    let name =
        role_name(host, *owner)?.map(|n| quote_identifier(&n)).unwrap_or_else(|| owner.to_string());
    let mut items = Vec::new();
    if !public.is_empty() {
        items.push(Datum::Text(format!("={public}/{name}")));
    }
    items.push(Datum::Text(format!("{name}={owner_privileges}/{name}")));
    let elem = sluice_types::types::ElemType::new(SqlType::Text).expect("text[] exists");
    Ok(Datum::array(elem, items))
}

/// The name of the role with OID `oid`, if there is one.
fn role_name(host: &mut ExecHost, oid: Oid) -> Result<Option<String>> {
    name_by_oid(host, &PG_AUTHID, oid)
}

/// The OID of the role named `name`, if there is one.
fn role_oid(host: &mut ExecHost, name: &str) -> Result<Option<Oid>> {
    oid_by_name(host, &PG_AUTHID, name)
}

/// The OID of the row named `name` in catalog `def`, whose first columns
/// are the object's OID and name (`pg_namespace`, `pg_authid`).
fn oid_by_name(host: &mut ExecHost, def: &CatalogDef, name: &str) -> Result<Option<Oid>> {
    let (engine, db) = (host.env().engine.clone(), host.env().database);
    let rows = scan_as(&engine, db, def, host.visibility(), |r| r[1].as_str() == Some(name))?;
    Ok(rows.first().map(|(_, r)| oid_of(&r[0])))
}

/// The name of the row with OID `oid` in catalog `def` (as [`oid_by_name`]).
fn name_by_oid(host: &mut ExecHost, def: &CatalogDef, oid: Oid) -> Result<Option<String>> {
    let (engine, db) = (host.env().engine.clone(), host.env().database);
    let rows = scan_as(&engine, db, def, host.visibility(), |r| oid_of(&r[0]) == oid)?;
    Ok(rows.first().and_then(|(_, r)| r[1].as_str().map(str::to_string)))
}

/// `pg_table_is_visible(oid)`: whether the relation is the first of its
/// name along the search path; NULL if there is no such relation.
pub(super) fn table_is_visible(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    let Some(Datum::Oid(oid)) = args.first() else { return Ok(Datum::Null) };
    let Some(rel) = relation(host, *oid)? else { return Ok(Datum::Null) };
    Ok(Datum::Bool(is_visible(host, &rel)?))
}

/// `pg_relation_is_publishable(regclass)`: whether logical replication
/// could publish the relation — an ordinary table outside `pg_catalog`.
pub(super) fn relation_is_publishable(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    let oid = match args.first() {
        Some(arg @ Datum::Text(_)) => reg_in(host, RegKind::Class, arg)?,
        Some(arg) => arg.clone(),
        None => Datum::Null,
    };
    let Datum::Oid(oid) = oid else { return Ok(Datum::Null) };
    let Some(rel) = relation(host, oid)? else { return Ok(Datum::Null) };
    Ok(Datum::Bool(rel.kind == RelKind::Table && rel.namespace != PG_CATALOG_NAMESPACE))
}

/// `pg_partition_ancestors(regclass)` without partitions: the relation
/// itself (see `PartitionAncestors`).
pub(super) fn partition_ancestors(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    match args.first() {
        Some(arg @ Datum::Text(_)) => reg_in(host, RegKind::Class, arg),
        Some(arg) => Ok(arg.clone()),
        None => Ok(Datum::Null),
    }
}

/// The relation with OID `oid`, if the statement can see it.
pub(super) fn relation(host: &mut ExecHost, oid: Oid) -> Result<Option<RelationId>> {
    let (engine, db) = (host.env().engine.clone(), host.env().database);
    find_by_oid_as(&engine, db, host.visibility(), oid)
}

/// A relation's name as SQL must spell it to reach it from the search path.
pub(super) fn qualified_if_hidden(host: &mut ExecHost, rel: &RelationId) -> Result<String> {
    if is_visible(host, rel)? {
        return Ok(quote_identifier(&rel.name));
    }
    qualified_name(host, rel)
}

/// `schema.relation`, each part quoted as needed.
pub(super) fn qualified_name(host: &mut ExecHost, rel: &RelationId) -> Result<String> {
    let schema = namespace_name(host, rel.namespace)?.unwrap_or_default();
    Ok(format!("{}.{}", quote_identifier(&schema), quote_identifier(&rel.name)))
}

/// Whether `rel` is what its bare name finds along the search path.
fn is_visible(host: &mut ExecHost, rel: &RelationId) -> Result<bool> {
    let path = search_path(host)?;
    let (engine, db) = (host.env().engine.clone(), host.env().database);
    namespace::is_visible(&engine, db, host.visibility(), &path, rel)
}

/// The type a string names (`regtype` input), built-in or made by CREATE
/// TYPE, found along the search path.
fn type_named(host: &mut ExecHost, text: &str) -> Result<SqlType> {
    let type_name = parse_type_name(text)?;
    let path = search_path(host)?;
    let (engine, db) = (host.env().engine.clone(), host.env().database);
    let ctx = host.visibility();
    let found = type_from_name_in(&type_name, &mut |schema, name| {
        pg_type::by_name(&engine, db, ctx, &path, schema, name)
    });
    // The positions would point into the made-up statement, not the string.
    found.map(|(ty, _)| ty).map_err(|mut e| {
        e.position = None;
        e
    })
}

/// `format_type(type oid, typmod integer)`, for every type the catalogs
/// hold (see `expr::format_type_of`).
/// A type CREATE TYPE or CREATE DOMAIN made is schema-qualified when the
/// search path does not find it by its name, as PostgreSQL's
/// `format_type_extended` does (pg_dump, running with an empty search
/// path, relies on it).
pub(super) fn format_type(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    let Some(Datum::Oid(oid)) = args.first() else { return Ok(Datum::Null) };
    let ty = type_by_oid(host, *oid)?;
    let text = crate::expr::format_type_of(ty, args.get(1).and_then(Datum::as_i64));
    let Some(user_type) = ty.and_then(made_type_oid) else { return Ok(text) };
    match (hidden_type_schema(host, user_type)?, text) {
        (Some(schema), Datum::Text(name)) => {
            Ok(Datum::Text(format!("{}.{name}", quote_identifier(&schema))))
        }
        (_, text) => Ok(text),
    }
}

/// The OID of the type SQL made behind `ty` (itself, or an array's
/// element), `None` for the built-in types.
fn made_type_oid(ty: SqlType) -> Option<Oid> {
    match ty {
        SqlType::Enum(e) => Some(e.desc().oid),
        SqlType::Domain(d) => Some(d.desc().oid),
        SqlType::Array(e) => made_type_oid(e.get()),
        _ => None,
    }
}

/// The schema of type `oid` if the search path does not find it by name.
fn hidden_type_schema(host: &mut ExecHost, oid: Oid) -> Result<Option<String>> {
    if type_is_visible(host, &[Datum::Oid(oid)])? != Datum::Bool(false) {
        return Ok(None);
    }
    let (engine, db) = (host.env().engine.clone(), host.env().database);
    let key = Datum::Oid(oid);
    let rows = crate::catalog::scan_eq_as(
        &engine,
        db,
        &crate::catalog::schema::PG_TYPE,
        host.visibility(),
        0,
        &key,
        |_| true,
    )?;
    let Some((_, row)) = rows.first() else { return Ok(None) };
    namespace_name(host, oid_of(&row[pg_type::col::NAMESPACE]))
}

/// `pg_type_is_visible(oid)`: whether the type is the first of its name
/// along the search path; NULL if there is no such type.
pub(super) fn type_is_visible(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    let Some(Datum::Oid(oid)) = args.first() else { return Ok(Datum::Null) };
    let path = search_path(host)?;
    let (engine, db) = (host.env().engine.clone(), host.env().database);
    let ctx = host.visibility();
    let key = Datum::Oid(*oid);
    let rows = crate::catalog::scan_eq_as(
        &engine,
        db,
        &crate::catalog::schema::PG_TYPE,
        ctx,
        0,
        &key,
        |_| true,
    )?;
    let Some((_, row)) = rows.first() else { return Ok(Datum::Null) };
    let name = row[pg_type::col::NAME].as_str().unwrap_or_default();
    let first = pg_type::find_row(&engine, db, ctx, &path, None, name)?;
    Ok(Datum::Bool(first.is_some_and(|(_, r)| r[0] == key)))
}

/// The type with OID `oid`, if there is one.
fn type_by_oid(host: &mut ExecHost, oid: Oid) -> Result<Option<SqlType>> {
    let (engine, db) = (host.env().engine.clone(), host.env().database);
    pg_type::sql_type(&engine, db, host.visibility(), oid)
}

/// The session's search path, resolved under the statement's snapshot.
pub(super) fn search_path(host: &mut ExecHost) -> Result<SearchPath> {
    let ctx = host.visibility().clone();
    host.env().search_path(&ctx)
}

/// The OID of the relation a possibly qualified, possibly quoted name
/// (`t`, `public.t`, `"My Table"`) names.
pub(super) fn relation_oid(host: &mut ExecHost, name: &str) -> Result<Oid> {
    let parts = split_qualified(name);
    let (namespaces, relname) = match parts.as_slice() {
        [rel] => (search_path(host)?.schemas().to_vec(), rel.clone()),
        [schema, rel] => {
            let ns =
                namespace_oid(host, schema)?.ok_or_else(|| namespace::missing_schema(schema))?;
            (vec![ns], rel.clone())
        }
        _ => return Err(SqlError::new("42602", format!("invalid name syntax: \"{name}\""))),
    };
    let (engine, db) = (host.env().engine.clone(), host.env().database);
    find_as(&engine, db, host.visibility(), &namespaces, &relname)?
        .map(|r| r.oid)
        .ok_or_else(|| missing_relation(name))
}

/// A schema's OID by name.
fn namespace_oid(host: &mut ExecHost, name: &str) -> Result<Option<Oid>> {
    let (engine, db) = (host.env().engine.clone(), host.env().database);
    namespace::namespace_oid(&engine, db, host.visibility(), name)
}

/// A schema's name by OID.
pub(super) fn namespace_name(host: &mut ExecHost, oid: Oid) -> Result<Option<String>> {
    let (engine, db) = (host.env().engine.clone(), host.env().database);
    namespace::namespace_name(&engine, db, host.visibility(), oid)
}

/// function_oid -- `regproc` input: the one built-in function named `name`
/// (42883 if there is none, 42725 if the name is overloaded).
fn function_oid(name: &str) -> Result<Oid> {
    match function_named(&split_qualified(name).join(".")) {
        FunctionNamed::Unique(oid) => Ok(oid),
        FunctionNamed::Ambiguous => {
            Err(SqlError::new("42725", format!("more than one function named \"{name}\"")))
        }
        FunctionNamed::Missing => {
            Err(SqlError::new("42883", format!("function \"{name}\" does not exist")))
        }
    }
}

/// procedure_oid -- `regprocedure` input: the built-in function that
/// `name(type, ...)` names (42883 if there is none).
fn procedure_oid(text: &str) -> Result<Oid> {
    let invalid = || SqlError::new("42601", "expected a left parenthesis");
    let (name, rest) = text.split_once('(').ok_or_else(invalid)?;
    let args = rest
        .trim_end()
        .strip_suffix(')')
        .ok_or_else(|| SqlError::new("42601", "expected a right parenthesis"))?;
    let names = top_level_items(args).map(|a| arg_typname(a.trim())).collect::<Result<Vec<_>>>()?;
    let name = split_qualified(name.trim()).join(".");
    let wanted: Vec<&str> = names.iter().map(String::as_str).collect();
    function_with_args(&name, &wanted)
        .ok_or_else(|| SqlError::new("42883", format!("function \"{text}\" does not exist")))
}

/// The comma-separated items of `list`, commas inside parentheses
/// (`numeric(10,2)`) kept; none for an empty list.
fn top_level_items(list: &str) -> impl Iterator<Item = &str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in list.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !list.trim().is_empty() {
        items.push(&list[start..]);
    }
    items.into_iter()
}

/// The pseudo-types built-in functions take, which are no `SqlType`.
const PSEUDO_TYPES: [&str; 6] =
    ["any", "anyelement", "anyarray", "anynonarray", "anycompatible", "anycompatiblearray"];

/// The `pg_type.typname` of an argument type as written in `regprocedure`
/// input.
fn arg_typname(arg: &str) -> Result<String> {
    let bare = arg.trim_matches('"').to_ascii_lowercase();
    if PSEUDO_TYPES.contains(&bare.as_str()) {
        return Ok(bare);
    }
    Ok(parse_type_string(arg)?.0.typname().to_string())
}

/// A `pg_type.typname` as `format_type` prints it (`int4` → `integer`;
/// `"any"` keeps its quotes, as PostgreSQL prints that keyword).
fn type_display(typname: &str) -> String {
    match SqlType::from_name(typname) {
        Some(ty) => sluice_types::format_type(ty, -1),
        None if typname == "any" => "\"any\"".to_string(),
        None => typname.to_string(),
    }
}

/// The parts of a dotted name; unquoted parts fold to lower case, quoted
/// ones keep their case and may contain dots (PostgreSQL's
/// `stringToQualifiedNameList`).
fn split_qualified(name: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                current.push('"');
            }
            '"' => quoted = !quoted,
            '.' if !quoted => parts.push(std::mem::take(&mut current)),
            c if quoted => current.push(c),
            c => current.push(c.to_ascii_lowercase()),
        }
    }
    parts.push(current);
    parts
}

/// One name without its quotes (or folded if it had none).
fn unquote(name: &str) -> String {
    split_qualified(name).concat()
}
