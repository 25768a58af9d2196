//! CREATE DOMAIN (PostgreSQL's DefineDomain in `commands/typecmds.c`).
//!
//! A domain is a `pg_type` row (`typtype` `d`) naming its base type and
//! typmod, with NOT NULL and the default in the row itself and each CHECK
//! a `pg_constraint` row (`contypid` the domain) whose expression is kept
//! deparsed over `VALUE`, as `pg_get_constraintdef` prints it. Its array
//! type is made beside it, as for every type. The constraints are tested
//! where values become of the domain (`expr::domains`).

use super::{new_type_home, qualified_name};
use crate::catalog::bootstrap::category_letter;
use crate::catalog::constraint::{insert_constraint, ConstraintType, NewConstraint};
use crate::catalog::pg_type::{self, DomainFacts, NewType, TypeCatalog};
use crate::catalog::schema::PG_CONSTRAINT;
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::expr::{analyze, coerce, type_from_name_in, CoercionContext, Scope};
use crate::optimizer::planhost::PlanHost;
use crate::parser::deparse_expr;
use crate::sink::QuerySink;
use pg_query::protobuf::{ConstrType, Constraint, CreateDomainStmt, Node};
use pg_query::NodeEnum;
use sluice_common::Oid;
use sluice_types::{Datum, SqlType};

/// What a CREATE DOMAIN's constraint list says.
#[derive(Default)]
struct DomainConstraints<'a> {
    not_null: bool,
    null: bool,
    default: Option<&'a Node>,
    checks: Vec<&'a Constraint>,
}

/// CREATE DOMAIN name [AS] type [DEFAULT expr] [[CONSTRAINT name] NOT NULL
/// | NULL | CHECK (expr)] ...
pub fn create_domain(
    cx: &mut dyn BackendContext,
    stmt: &CreateDomainStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let (schema, name) = qualified_name(&stmt.domainname)?;
    if stmt.coll_clause.is_some() {
        return Err(SqlError::unsupported("COLLATE in CREATE DOMAIN is not supported yet"));
    }
    let type_name = stmt
        .type_name
        .as_ref()
        .ok_or_else(|| SqlError::internal("CREATE DOMAIN without a type"))?;
    let types = cx.type_catalog()?;
    let last = type_name.names.last().and_then(crate::parser::node_str).unwrap_or_default();
    if matches!(last.as_str(), "record" | "unknown" | "void" | "anyelement" | "anyarray") {
        return Err(SqlError::new(
            "42804",
            format!("\"{last}\" is not a valid base type for a domain"),
        ));
    }
    let (base, typmod) = type_from_name_in(type_name, &mut |s, n| types.by_name(s, n))?;
    let constraints = domain_constraints(&stmt.constraints)?;
    let default = constraints
        .default
        .map(|raw| cook_default(raw, base, typmod, &types).map_err(without_position))
        .transpose()?;
    let (namespace, owner) = new_type_home(cx, schema, &name)?;
    let engine = cx.engine().clone();
    let db = cx.database();
    let new_type = NewType {
        oid: engine.new_oid()?,
        name: &name,
        namespace,
        owner,
        typtype: "d",
        category: category_letter(base.category()),
        array_oid: engine.new_oid()?,
        layout: base,
        domain: Some(DomainFacts {
            base: base.oid(),
            typmod,
            not_null: constraints.not_null,
            default,
        }),
    };
    pg_type::insert_with_array(&engine, db, cx.txn()?, &new_type)?;
    let mut taken = Vec::new();
    for check in constraints.checks {
        let text = cook_check(check, base, typmod, &types).map_err(without_position)?;
        let conname = check_name(cx, &name, namespace, check, &taken)?;
        let row = NewConstraint {
            name: &conname,
            kind: ConstraintType::Check,
            table: 0,
            namespace,
            domain: new_type.oid,
            index: 0,
            validated: true,
            deferrable: false,
            deferred: false,
            keys: &[],
            expr: Some(&text),
            references: None,
        };
        insert_constraint(&engine, db, cx.txn()?, &row)?;
        taken.push(conname);
    }
    sink.complete("CREATE DOMAIN")
}

/// Sorts the constraint list; refuses what a domain cannot have.
fn domain_constraints(list: &[Node]) -> Result<DomainConstraints<'_>> {
    let mut found = DomainConstraints::default();
    for node in list {
        let Some(NodeEnum::Constraint(c)) = node.node.as_ref() else { continue };
        match ConstrType::try_from(c.contype).unwrap_or(ConstrType::Undefined) {
            ConstrType::ConstrNotnull => found.not_null = true,
            ConstrType::ConstrNull => found.null = true,
            ConstrType::ConstrCheck if c.is_no_inherit => {
                return Err(SqlError::new(
                    "42P17",
                    "check constraints for domains cannot be marked NO INHERIT",
                ))
            }
            ConstrType::ConstrCheck => found.checks.push(c),
            ConstrType::ConstrDefault if found.default.is_some() => {
                return Err(SqlError::syntax("multiple default expressions"))
            }
            ConstrType::ConstrDefault => found.default = c.raw_expr.as_deref(),
            ConstrType::ConstrUnique => return Err(not_possible("unique constraints")),
            ConstrType::ConstrPrimary => return Err(not_possible("primary key constraints")),
            ConstrType::ConstrForeign => return Err(not_possible("foreign key constraints")),
            ConstrType::ConstrExclusion => return Err(not_possible("exclusion constraints")),
            _ => {
                return Err(SqlError::syntax(
                    "specifying constraint deferrability not supported for domains",
                ))
            }
        }
        if found.not_null && found.null {
            return Err(SqlError::syntax("conflicting NULL/NOT NULL constraints"));
        }
    }
    Ok(found)
}

/// PostgreSQL analyses a domain's expressions without the statement's text
/// (DefineDomain's parse state has none), so their errors carry no position.
fn without_position(mut error: SqlError) -> SqlError {
    error.position = None;
    error
}

/// 42601 `<kind> not possible for domains`.
pub(super) fn not_possible(kind: &str) -> SqlError {
    SqlError::syntax(format!("{kind} not possible for domains"))
}

/// The default's text, checked to convert to the base type.
fn cook_default(raw: &Node, base: SqlType, typmod: i32, types: &TypeCatalog) -> Result<String> {
    let mut params = Vec::new();
    let mut host = PlanHost::new(&mut params).with_types(types.clone());
    host.agg_clause = Some("DEFAULT expressions");
    host.sublink_clause = Some("DEFAULT expression");
    let expr = analyze(raw, &Scope::default(), &mut host)?;
    coerce(expr, base, typmod, CoercionContext::Assignment)?;
    deparse_expr(raw)
}

/// A CHECK's expression over `VALUE`, analysed and deparsed.
pub(super) fn cook_check(
    c: &Constraint,
    base: SqlType,
    typmod: i32,
    types: &TypeCatalog,
) -> Result<String> {
    let raw =
        c.raw_expr.as_deref().ok_or_else(|| SqlError::internal("CHECK without expression"))?;
    let mut params = Vec::new();
    let mut host = PlanHost::new(&mut params).with_types(types.clone());
    host.agg_clause = Some("check constraints");
    host.sublink_clause = Some("check constraint");
    let expr = crate::expr::domains::analyze_check(raw, base, typmod, &mut host)?;
    if !params.is_empty() {
        return Err(SqlError::new("42P02", "there is no parameter $1"));
    }
    Ok(crate::expr::deparse::expr(&expr, &["VALUE".to_string()]))
}

/// The CHECK's name: the one written, else `<domain>_check` numbered past
/// the names of the schema's constraints (ChooseConstraintName).
pub(super) fn check_name(
    cx: &mut dyn BackendContext,
    domain: &str,
    namespace: Oid,
    c: &Constraint,
    taken: &[String],
) -> Result<String> {
    if !c.conname.is_empty() {
        if taken.contains(&c.conname) {
            return Err(SqlError::new(
                "42710",
                format!("constraint \"{}\" for domain \"{domain}\" already exists", c.conname),
            ));
        }
        return Ok(c.conname.clone());
    }
    let (engine, db) = (cx.engine().clone(), cx.database());
    let in_schema = Datum::Oid(namespace);
    let existing: Vec<String> =
        crate::catalog::scan(&engine, db, &PG_CONSTRAINT, cx.txn()?, |r| r[2] == in_schema)?
            .into_iter()
            .filter_map(|(_, r)| r[1].as_str().map(str::to_string))
            .collect();
    crate::commands::tablecmds::choose_name(domain, "", "check", |name| {
        Ok(taken.iter().chain(&existing).any(|t| t == name))
    })
}
