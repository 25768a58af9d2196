//! CREATE TYPE ... AS ENUM, ALTER TYPE and DROP TYPE (PostgreSQL's
//! `commands/typecmds.c`, with `catalog/pg_enum.c`'s placement of labels).
//!
//! An enum type is a `pg_type` row, its array type's row, and a `pg_enum`
//! row per label (see `catalog/pg_type.rs` and `sluice_types::enums`).
//! Labels are ordered by `enumsortorder`, a `float4`: CREATE TYPE numbers
//! them 1, 2, 3, ...; ADD VALUE puts a new label after the last one, or
//! halfway between the two it is placed between. When halving no longer
//! gives a number strictly between them (after some 20 insertions at the
//! same spot), the type's labels are renumbered 1, 2, 3, ... first, as
//! PostgreSQL's RenumberEnumType does. Renumbering keeps the order, so
//! stored values (label OIDs) keep their meaning.
//!
//! # ADD VALUE and transactions
//!
//! ADD VALUE may run inside a transaction block, but the new label cannot
//! be used until the transaction commits (55P04), because an index page
//! may keep a value whose label a rollback removed. Which labels are
//! unsafe is read from the catalog rows' xmin when a statement builds the
//! type (`catalog::pg_type`); labels of a type created in the same
//! transaction are all safe.
//!
//! # Locking
//!
//! A type is locked as a database object (LOCKTAG_OBJECT on `pg_type`):
//! ALTER and DROP TYPE take AccessExclusive. Creating one takes the lock
//! on its name that CREATE TABLE takes (`lmgr::lock_relation_name`),
//! since a table's name and a type's name collide in PostgreSQL (every
//! table has a row type of its name), so two sessions cannot both create
//! `mood` in one schema.

mod alter_domain;
mod domain;
mod rename;

pub use rename::rename_type;

pub use alter_domain::alter_domain;
pub use domain::create_domain;

use super::dependency::{dependents_error, relation_name, report_cascade};
use super::tablecmds::{describe, drop_column, lock_if_still_there, see_committed_catalogs};
use crate::catalog::authid::role_oid;
use crate::catalog::comment::remove_comments;
use crate::catalog::constraint::CON_TYPID;
use crate::catalog::pg_type::{self, col, enum_col, NewType};
use crate::catalog::relation::{self, oid_of};
use crate::catalog::schema::{
    RelKind, PG_ATTRIBUTE, PG_CATALOG_NAMESPACE, PG_CONSTRAINT, PG_ENUM, PG_TYPE,
};
use crate::catalog::{delete, replace, scan};
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::executor::lmgr::{lock_object, lock_relation_name};
use crate::parser::{node_str, quote_identifier};
use crate::sink::{NestedSink, QuerySink};
use pg_query::protobuf::{
    AlterEnumStmt, AlterObjectSchemaStmt, AlterOwnerStmt, CreateEnumStmt, DropBehavior, DropStmt,
    Node, ObjectType, RangeVar,
};
use pg_query::NodeEnum;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_common::{ItemPointer, Oid};
use sluice_txn::lmgr::LockMode;
use sluice_types::enums::{EnumLabel, SortOrder};
use sluice_types::{Datum, SqlType};

/// Longest enum label, in bytes (NAMEDATALEN - 1).
const MAX_LABEL_BYTES: usize = 63;

/// One `pg_type` row, as the commands here need it.
struct TypeRow {
    tid: ItemPointer,
    values: Vec<Datum>,
}

impl TypeRow {
    fn oid(&self) -> Oid {
        oid_of(&self.values[0])
    }

    fn name(&self) -> &str {
        self.values[col::NAME].as_str().unwrap_or_default()
    }

    fn namespace(&self) -> Oid {
        oid_of(&self.values[col::NAMESPACE])
    }

    fn is_enum(&self) -> bool {
        self.values[col::TYPTYPE].as_str() == Some("e")
    }

    fn is_domain(&self) -> bool {
        self.values[col::TYPTYPE].as_str() == Some("d")
    }

    fn array_oid(&self) -> Oid {
        oid_of(&self.values[col::ARRAY])
    }

    fn element(&self) -> Oid {
        oid_of(&self.values[col::ELEM])
    }
}

/// CREATE TYPE name AS ENUM ('label', ...).
pub fn create_enum(
    cx: &mut dyn BackendContext,
    stmt: &CreateEnumStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let (schema, name) = qualified_name(&stmt.type_name)?;
    let labels: Vec<String> = stmt.vals.iter().filter_map(node_str).collect();
    for (i, label) in labels.iter().enumerate() {
        check_label(label)?;
        if labels[..i].contains(label) {
            return Err(SqlError::new(
                "42710",
                format!("enum label \"{label}\" used more than once"),
            ));
        }
    }
    let (namespace, owner) = new_type_home(cx, schema, &name)?;
    let engine = cx.engine().clone();
    let db = cx.database();
    let new_type = NewType {
        oid: engine.new_oid()?,
        name: &name,
        namespace,
        owner,
        typtype: "e",
        category: "E",
        array_oid: engine.new_oid()?,
        layout: SqlType::Int4,
        domain: None,
    };
    pg_type::insert_with_array(&engine, db, cx.txn()?, &new_type)?;
    for (i, label) in labels.into_iter().enumerate() {
        let sort_order = SortOrder(i as f32 + 1.0);
        let label = EnumLabel { oid: engine.new_oid()?, sort_order, label, uncommitted: false };
        pg_type::insert_enum_label(&engine, db, cx.txn()?, new_type.oid, &label)?;
    }
    sink.complete("CREATE TYPE")
}

/// new_type_home -- the schema a new type named `schema.name` (or `name`)
/// goes to, locked as CREATE TABLE locks a new relation's name and checked
/// free (42710), and the session user's OID as its owner.
pub(crate) fn new_type_home(
    cx: &mut dyn BackendContext,
    schema: Option<String>,
    name: &str,
) -> Result<(Oid, Oid)> {
    let rv = RangeVar {
        schemaname: schema.unwrap_or_default(),
        relname: name.to_string(),
        ..Default::default()
    };
    let namespace = cx.creation_namespace(&rv)?;
    lock_relation_name(&mut cx.parts()?, namespace, name)?;
    refuse_taken_name(cx, namespace, name)?;
    let engine = cx.engine().clone();
    let user = cx.user().to_string();
    Ok((namespace, role_oid(&engine, cx.txn()?, &user)?))
}

/// 42710 when `name` is taken in `namespace` by a type or a relation (whose
/// row type has its name, in PostgreSQL).
fn refuse_taken_name(cx: &mut dyn BackendContext, namespace: Oid, name: &str) -> Result<()> {
    let (engine, db) = (cx.engine().clone(), cx.database());
    let taken_by_type = {
        let ctx = VisibilityContext::for_transaction(cx.txn()?, engine.txns());
        let key = Datum::Text(name.to_string());
        !crate::catalog::scan_eq_as(&engine, db, &PG_TYPE, &ctx, col::NAME, &key, |r| {
            oid_of(&r[col::NAMESPACE]) == namespace
        })?
        .is_empty()
    };
    let taken_by_relation = relation::lookup(&engine, db, cx.txn()?, &[namespace], name)?.is_some();
    if taken_by_type || taken_by_relation {
        return Err(SqlError::new("42710", format!("type \"{name}\" already exists")));
    }
    Ok(())
}

/// 42602 for a label longer than a name.
fn check_label(label: &str) -> Result<()> {
    if label.len() > MAX_LABEL_BYTES {
        return Err(SqlError::new("42602", format!("invalid enum label \"{label}\""))
            .with_detail("Labels must be 63 bytes or less."));
    }
    Ok(())
}

/// ALTER TYPE name ADD VALUE [IF NOT EXISTS] 'label' [BEFORE | AFTER
/// 'neighbour'] and ALTER TYPE name RENAME VALUE 'old' TO 'new'.
pub fn alter_enum(
    cx: &mut dyn BackendContext,
    stmt: &AlterEnumStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let (schema, name) = qualified_name(&stmt.type_name)?;
    let ty = locked_type(cx, schema.as_deref(), &name)?;
    if !ty.is_enum() {
        let display = type_display(cx, &ty)?;
        return Err(SqlError::new("42809", format!("{display} is not an enum")));
    }
    if !stmt.old_val.is_empty() {
        rename_label(cx, &ty, &stmt.old_val, &stmt.new_val)?;
    } else {
        add_label(cx, &ty, stmt, sink)?;
    }
    sink.complete("ALTER TYPE")
}

/// ALTER TYPE name OWNER TO role (the array type follows its element).
pub fn alter_owner(
    cx: &mut dyn BackendContext,
    stmt: &AlterOwnerStmt,
    role: &str,
    domain: bool,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let ty = statement_type(cx, stmt.object.as_deref(), domain)?;
    let engine = cx.engine().clone();
    let owner = role_oid(&engine, cx.txn()?, role)?;
    set_with_array(cx, ty, col::OWNER, Datum::Oid(owner))?;
    sink.complete(if domain { "ALTER DOMAIN" } else { "ALTER TYPE" })
}

/// Sets column `column` of the `pg_type` rows of `ty` and of its array
/// type to `value`, where it differs.
fn set_with_array(
    cx: &mut dyn BackendContext,
    ty: TypeRow,
    column: usize,
    value: Datum,
) -> Result<()> {
    let (engine, db) = (cx.engine().clone(), cx.database());
    let array = ty.array_oid();
    let rows = scan(&engine, db, &PG_TYPE, cx.txn()?, |r| oid_of(&r[0]) == array)?;
    for (tid, mut row) in rows.into_iter().chain([(ty.tid, ty.values)]) {
        if row[column] != value {
            row[column] = value.clone();
            replace(&engine, db, &PG_TYPE, cx.txn()?, tid, &row)?;
        }
    }
    Ok(())
}

/// ALTER TYPE | DOMAIN name SET SCHEMA schema (the array type moves too).
/// Moving to the schema it is in does nothing, as in PostgreSQL.
pub fn set_type_schema(
    cx: &mut dyn BackendContext,
    stmt: &AlterObjectSchemaStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let domain = ObjectType::try_from(stmt.object_type) == Ok(ObjectType::ObjectDomain);
    let tag = if domain { "ALTER DOMAIN" } else { "ALTER TYPE" };
    let ty = statement_type(cx, stmt.object.as_deref(), domain)?;
    let name = ty.name().to_string();
    let target = cx.schema_oid(&stmt.newschema)?;
    if target == ty.namespace() {
        return sink.complete(tag);
    }
    lock_relation_name(&mut cx.parts()?, target, &name)?;
    if find_type(cx, Some(&stmt.newschema), &name)?.is_some() {
        return Err(SqlError::new(
            "42710",
            format!("type \"{name}\" already exists in schema \"{}\"", stmt.newschema),
        ));
    }
    set_with_array(cx, ty, col::NAMESPACE, Datum::Oid(target))?;
    sink.complete(tag)
}

/// RENAME VALUE: rewrites the label's text; stored values (its OID) stay.
fn rename_label(cx: &mut dyn BackendContext, ty: &TypeRow, old: &str, new: &str) -> Result<()> {
    check_label(new)?;
    let labels = labels_of(cx, ty.oid())?;
    let Some((tid, label)) = labels.iter().find(|(_, l)| l.label == old) else {
        return Err(not_a_label(old));
    };
    if labels.iter().any(|(_, l)| l.label == new) {
        return Err(SqlError::new("42710", format!("enum label \"{new}\" already exists")));
    }
    let renamed = EnumLabel { label: new.to_string(), ..label.clone() };
    replace_label(cx, *tid, ty.oid(), &renamed).map(|_| ())
}

/// ADD VALUE (a label that exists is skipped with a NOTICE under IF NOT EXISTS).
fn add_label(
    cx: &mut dyn BackendContext,
    ty: &TypeRow,
    stmt: &AlterEnumStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    check_label(&stmt.new_val)?;
    let mut labels = labels_of(cx, ty.oid())?;
    if labels.iter().any(|(_, l)| l.label == stmt.new_val) {
        let exists = format!("enum label \"{}\" already exists", stmt.new_val);
        if stmt.skip_if_new_val_exists {
            return sink.notice(&SqlError::new("00000", format!("{exists}, skipping")));
        }
        return Err(SqlError::new("42710", exists));
    }
    let neighbour = match stmt.new_val_neighbor.as_str() {
        "" => None,
        n => {
            let at = labels.iter().position(|(_, l)| l.label == n).ok_or_else(|| not_a_label(n))?;
            Some((at, stmt.new_val_is_after))
        }
    };
    let sort_order = match sort_order_at(&labels, neighbour) {
        Some(order) => order,
        None => {
            renumber(cx, ty.oid(), &mut labels)?;
            sort_order_at(&labels, neighbour)
                .ok_or_else(|| SqlError::internal("no room for an enum label after renumbering"))?
        }
    };
    let engine = cx.engine().clone();
    let label = EnumLabel {
        oid: engine.new_oid()?,
        sort_order: SortOrder(sort_order),
        label: stmt.new_val.clone(),
        uncommitted: false,
    };
    pg_type::insert_enum_label(&engine, cx.database(), cx.txn()?, ty.oid(), &label)
}

/// The sort order of a label placed at `neighbour` (`(index, after)`, or
/// the end), or `None` when no `float4` lies strictly between its neighbours.
fn sort_order_at(
    labels: &[(ItemPointer, EnumLabel)],
    neighbour: Option<(usize, bool)>,
) -> Option<f32> {
    let order = |i: usize| labels[i].1.sort_order.0;
    let (below, above) = match neighbour {
        None => (labels.last().map(|(_, l)| l.sort_order.0), None),
        Some((at, true)) => (Some(order(at)), (at + 1 < labels.len()).then(|| order(at + 1))),
        Some((at, false)) => (at.checked_sub(1).map(order), Some(order(at))),
    };
    match (below, above) {
        (None, None) => Some(1.0),
        (Some(below), None) => Some(below + 1.0),
        (None, Some(above)) => Some(above - 1.0),
        (Some(below), Some(above)) => {
            let middle = (below + above) / 2.0;
            (middle > below && middle < above).then_some(middle)
        }
    }
}

/// Gives the labels sort orders 1, 2, 3, ... in their present order.
fn renumber(
    cx: &mut dyn BackendContext,
    type_oid: Oid,
    labels: &mut [(ItemPointer, EnumLabel)],
) -> Result<()> {
    for (i, (tid, label)) in labels.iter_mut().enumerate() {
        label.sort_order = SortOrder(i as f32 + 1.0);
        let moved = label.clone();
        *tid = replace_label(cx, *tid, type_oid, &moved)?;
    }
    Ok(())
}

/// Rewrites the `pg_enum` row of `label` at `tid`; its new address.
fn replace_label(
    cx: &mut dyn BackendContext,
    tid: ItemPointer,
    type_oid: Oid,
    label: &EnumLabel,
) -> Result<ItemPointer> {
    let (engine, db) = (cx.engine().clone(), cx.database());
    replace(&engine, db, &PG_ENUM, cx.txn()?, tid, &pg_type::enum_label_row(type_oid, label))
}

/// The labels of enum `type_oid`, in sort order, with their rows.
fn labels_of(cx: &mut dyn BackendContext, type_oid: Oid) -> Result<Vec<(ItemPointer, EnumLabel)>> {
    let (engine, db) = (cx.engine().clone(), cx.database());
    let ctx = VisibilityContext::for_transaction(cx.txn()?, engine.txns());
    let mut labels = pg_type::enum_labels(&engine, db, &ctx, type_oid)?;
    labels.sort_by_key(|(_, l)| l.sort_order);
    Ok(labels)
}

/// 22023 `"x" is not an existing enum label`.
fn not_a_label(label: &str) -> SqlError {
    SqlError::new("22023", format!("\"{label}\" is not an existing enum label"))
}

/// DROP TYPE [IF EXISTS] name, ... [CASCADE | RESTRICT].
pub fn drop_types(
    cx: &mut dyn BackendContext,
    stmt: &DropStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let cascade = DropBehavior::try_from(stmt.behavior) == Ok(DropBehavior::DropCascade);
    let domains = ObjectType::try_from(stmt.remove_type) == Ok(ObjectType::ObjectDomain);
    for object in &stmt.objects {
        let Some(NodeEnum::TypeName(type_name)) = object.node.as_ref() else { continue };
        let (schema, name) = qualified_name(&type_name.names)?;
        let Some(ty) = find_locked(cx, schema.as_deref(), &name)? else {
            if stmt.missing_ok {
                let message =
                    format!("type \"{}\" does not exist, skipping", written(&schema, &name));
                sink.notice(&SqlError::new("00000", message))?;
                continue;
            }
            return Err(missing_type(&schema, &name));
        };
        if domains && !ty.is_domain() {
            let written = written(&schema, &name);
            return Err(SqlError::new("42809", format!("\"{written}\" is not a domain")));
        }
        drop_type(cx, &ty, cascade, sink)?;
    }
    sink.complete(if domains { "DROP DOMAIN" } else { "DROP TYPE" })
}

/// Drops type `ty` and its array type, and with `cascade` the columns of
/// either type; RESTRICT fails with 2BP01 if there are any.
fn drop_type(
    cx: &mut dyn BackendContext,
    ty: &TypeRow,
    cascade: bool,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let display = type_display(cx, ty)?;
    if ty.namespace() == PG_CATALOG_NAMESPACE {
        return Err(SqlError::new(
            "2BP01",
            format!("cannot drop type {display} because it is required by the database system"),
        ));
    }
    if ty.element() != 0 {
        let element = format_type_oid(cx, ty.element())?;
        return Err(SqlError::new(
            "2BP01",
            format!("cannot drop type {display} because type {element} requires it"),
        )
        .with_hint(format!("You can drop type {element} instead.")));
    }
    let mut dependents = Vec::new();
    type_dependents(cx, ty, &display, &mut dependents)?;
    if !cascade && !dependents.is_empty() {
        let lines: Vec<String> = dependents
            .iter()
            .map(|d| format!("{} depends on {}", d.description, d.parent))
            .collect();
        return Err(dependents_error(&format!("type {display}"), &lines));
    }
    let descriptions: Vec<String> = dependents.iter().map(|d| d.description.clone()).collect();
    report_cascade(&descriptions, sink)?;
    for dependent in dependents.into_iter().rev() {
        match dependent.object {
            TypeDependent::Column(table, column) => drop_typed_column(cx, table, &column, sink)?,
            TypeDependent::Domain(domain) => remove_type_rows(cx, &domain)?,
        }
    }
    remove_type_rows(cx, ty)
}

/// What depends on a type being dropped.
enum TypeDependent {
    /// A table column of it.
    Column(Oid, String),
    /// A domain over it.
    Domain(TypeRow),
}

/// One dependent, as the report names it and what it depends on.
struct Dependent {
    object: TypeDependent,
    description: String,
    parent: String,
}

/// type_dependents -- what dropping `ty` (named `display`) takes along,
/// in PostgreSQL's report order: the columns of its array type, then each
/// domain over it followed by that domain's own dependents, then its
/// columns.
fn type_dependents(
    cx: &mut dyn BackendContext,
    ty: &TypeRow,
    display: &str,
    out: &mut Vec<Dependent>,
) -> Result<()> {
    column_dependents(cx, ty.array_oid(), &format!("type {display}[]"), out)?;
    for domain in domains_over(cx, ty)? {
        let name = qualified_type_name(cx, &domain)?;
        let description = format!("type {name}");
        let parent = format!("type {display}");
        let object =
            TypeDependent::Domain(TypeRow { tid: domain.tid, values: domain.values.clone() });
        out.push(Dependent { object, description, parent });
        type_dependents(cx, &domain, &name, out)?;
    }
    column_dependents(cx, ty.oid(), &format!("type {display}"), out)
}

/// Adds the table columns of type `types` to `out`, depending on `parent`.
fn column_dependents(
    cx: &mut dyn BackendContext,
    types: Oid,
    parent: &str,
    out: &mut Vec<Dependent>,
) -> Result<()> {
    for c in typed_columns(cx, types)? {
        let parent = parent.to_string();
        let object = TypeDependent::Column(c.table, c.column);
        out.push(Dependent { object, description: c.description, parent });
    }
    Ok(())
}

/// The domains whose base type is `ty` or its array type.
fn domains_over(cx: &mut dyn BackendContext, ty: &TypeRow) -> Result<Vec<TypeRow>> {
    let (engine, db) = (cx.engine().clone(), cx.database());
    let bases = [ty.oid(), ty.array_oid()];
    let rows = scan(&engine, db, &PG_TYPE, cx.txn()?, |r| {
        r[col::TYPTYPE].as_str() == Some("d") && bases.contains(&oid_of(&r[col::BASE_TYPE]))
    })?;
    Ok(rows.into_iter().map(|(tid, values)| TypeRow { tid, values }).collect())
}

/// A table column of a type being dropped.
pub(crate) struct TypedColumn {
    /// The table's OID.
    pub table: Oid,
    /// The column's name.
    pub column: String,
    /// How reports name it (`column c of table t`).
    pub description: String,
}

/// The columns of `ty` and of its array type, in the order PostgreSQL's
/// report lists them (the array type's first: it goes first, as an
/// internal part of the type).
fn described_columns(cx: &mut dyn BackendContext, ty: &TypeRow) -> Result<Vec<TypedColumn>> {
    let mut columns = typed_columns(cx, ty.array_oid())?;
    columns.extend(typed_columns(cx, ty.oid())?);
    Ok(columns)
}

/// The table columns of type `oid`, as reports name them.
fn typed_columns(cx: &mut dyn BackendContext, oid: Oid) -> Result<Vec<TypedColumn>> {
    let mut described = Vec::new();
    for (table, column) in dependent_columns(cx, &[oid])? {
        let rel = describe(cx, table)?.id();
        let name = relation_name(cx, &rel)?;
        let description = format!("column {} of table {name}", quote_identifier(&column));
        described.push(TypedColumn { table, column, description });
    }
    Ok(described)
}

/// drop_typed_column -- drops a column whose type goes away (DROP TYPE or
/// DROP SCHEMA ... CASCADE), unless its table went first.
pub(crate) fn drop_typed_column(
    cx: &mut dyn BackendContext,
    table: Oid,
    column: &str,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    if !lock_if_still_there(cx, table, LockMode::AccessExclusive)? {
        return Ok(());
    }
    let rel = describe(cx, table)?;
    drop_column(cx, &rel, column, true, true, &mut NestedSink::muted(sink))
}

/// types_in_schema -- the types CREATE TYPE made in schema `namespace`
/// (not their array types, which go with them).
pub(crate) fn types_in_schema(cx: &mut dyn BackendContext, namespace: Oid) -> Result<Vec<Oid>> {
    let (engine, db) = (cx.engine().clone(), cx.database());
    let rows = scan(&engine, db, &PG_TYPE, cx.txn()?, |r| {
        oid_of(&r[col::NAMESPACE]) == namespace && oid_of(&r[col::ELEM]) == 0
    })?;
    Ok(rows.into_iter().map(|(_, r)| oid_of(&r[0])).collect())
}

/// type_and_columns -- how reports name type `oid`, and its columns (as
/// DROP TYPE lists them).
pub(crate) fn type_and_columns(
    cx: &mut dyn BackendContext,
    oid: Oid,
) -> Result<(String, Vec<TypedColumn>)> {
    let ty = type_by_oid(cx, oid)?;
    let name = qualified_type_name(cx, &ty)?;
    Ok((name, described_columns(cx, &ty)?))
}

/// remove_type -- deletes the catalog rows of type `oid` (its columns are
/// gone already).
pub(crate) fn remove_type(cx: &mut dyn BackendContext, oid: Oid) -> Result<()> {
    let ty = type_by_oid(cx, oid)?;
    remove_type_rows(cx, &ty)
}

fn type_by_oid(cx: &mut dyn BackendContext, oid: Oid) -> Result<TypeRow> {
    let (engine, db) = (cx.engine().clone(), cx.database());
    let rows = scan(&engine, db, &PG_TYPE, cx.txn()?, |r| oid_of(&r[0]) == oid)?;
    let (tid, values) = rows
        .into_iter()
        .next()
        .ok_or_else(|| SqlError::internal(format!("cache lookup failed for type {oid}")))?;
    Ok(TypeRow { tid, values })
}

/// The type's name, schema-qualified unless the search path finds it
/// (getObjectDescription's rule).
fn qualified_type_name(cx: &mut dyn BackendContext, ty: &TypeRow) -> Result<String> {
    let visible = find_type(cx, None, ty.name())?.is_some_and(|t| t.oid() == ty.oid());
    if visible {
        return Ok(quote_identifier(ty.name()));
    }
    let schema = cx.namespace_name(ty.namespace())?;
    Ok(format!("{}.{}", quote_identifier(&schema), quote_identifier(ty.name())))
}

/// Deletes the rows of `ty`, its array type, its labels and its comment.
fn remove_type_rows(cx: &mut dyn BackendContext, ty: &TypeRow) -> Result<()> {
    let (engine, db) = (cx.engine().clone(), cx.database());
    let txn = cx.txn()?;
    for (tid, _) in scan(&engine, db, &PG_ENUM, txn, |r| oid_of(&r[enum_col::TYPID]) == ty.oid())? {
        delete(&engine, db, &PG_ENUM, txn, tid)?;
    }
    let of_domain = |r: &[Datum]| oid_of(&r[CON_TYPID]) == ty.oid();
    for (tid, row) in scan(&engine, db, &PG_CONSTRAINT, txn, of_domain)? {
        delete(&engine, db, &PG_CONSTRAINT, txn, tid)?;
        remove_comments(&engine, db, txn, PG_CONSTRAINT.oid, oid_of(&row[0]), None)?;
    }
    let array = ty.array_oid();
    for (tid, _) in scan(&engine, db, &PG_TYPE, txn, |r| oid_of(&r[0]) == array)? {
        delete(&engine, db, &PG_TYPE, txn, tid)?;
    }
    delete(&engine, db, &PG_TYPE, txn, ty.tid)?;
    remove_comments(&engine, db, txn, PG_TYPE.oid, ty.oid(), None)
}

/// The live table columns whose type is one of `types`: (table OID,
/// column name), oldest table first. (An index's or a view's columns
/// depend on the table's, and go or fail with them.)
pub(super) fn dependent_columns(
    cx: &mut dyn BackendContext,
    types: &[Oid],
) -> Result<Vec<(Oid, String)>> {
    let (engine, db) = (cx.engine().clone(), cx.database());
    let rows = scan(&engine, db, &PG_ATTRIBUTE, cx.txn()?, |r| {
        types.contains(&oid_of(&r[2])) && !matches!(r[8], Datum::Bool(true))
    })?;
    let mut columns = Vec::new();
    for (_, row) in rows {
        let table = oid_of(&row[0]);
        let kind = relation::find_by_oid(&engine, db, cx.txn()?, table)?.map(|r| r.kind);
        if kind.is_some_and(RelKind::has_heap) {
            columns.push((table, row[1].as_str().unwrap_or_default().to_string()));
        }
    }
    columns.sort();
    Ok(columns)
}

/// locked_domain -- the domain a grammar name list names, locked for a
/// change: its OID, name, `pg_type` row and the row's address (42704 if
/// there is no such type, 42809 if it is not a domain).
pub(super) fn locked_domain(
    cx: &mut dyn BackendContext,
    names: &[Node],
) -> Result<(Oid, String, Vec<Datum>, ItemPointer)> {
    let (schema, name) = qualified_name(names)?;
    let ty = locked_type(cx, schema.as_deref(), &name)?;
    if !ty.is_domain() {
        let display = type_display(cx, &ty)?;
        return Err(SqlError::new("42809", format!("{display} is not a domain")));
    }
    Ok((ty.oid(), name, ty.values, ty.tid))
}

/// type_for_change -- the OID of the type a grammar name list names,
/// locked for a change to it (42704 if there is none; with `domain`,
/// 42809 if it is not a domain).
pub(crate) fn type_for_change(
    cx: &mut dyn BackendContext,
    names: &[Node],
    domain: bool,
) -> Result<Oid> {
    let (schema, name) = qualified_name(names)?;
    let ty = locked_type(cx, schema.as_deref(), &name)?;
    if domain && !ty.is_domain() {
        let written = written(&schema, &name);
        return Err(SqlError::new("42809", format!("\"{written}\" is not a domain")));
    }
    Ok(ty.oid())
}

/// statement_type -- the type an ALTER statement's object names (a name
/// list or a type name), locked for the change; with `domain` (ALTER
/// DOMAIN), 42809 unless it is a domain.
fn statement_type(
    cx: &mut dyn BackendContext,
    object: Option<&pg_query::protobuf::Node>,
    domain: bool,
) -> Result<TypeRow> {
    let names = match object.and_then(|n| n.node.as_ref()) {
        Some(NodeEnum::List(list)) => list.items.clone(),
        Some(NodeEnum::TypeName(t)) => t.names.clone(),
        _ => return Err(SqlError::internal("ALTER TYPE without a type name")),
    };
    let (schema, name) = qualified_name(&names)?;
    let ty = locked_type(cx, schema.as_deref(), &name)?;
    if domain && !ty.is_domain() {
        let display = type_display(cx, &ty)?;
        return Err(SqlError::new("42809", format!("{display} is not a domain")));
    }
    Ok(ty)
}

/// The type `schema.name` (or `name` along the search path), locked
/// AccessExclusive; 42704 if there is none.
fn locked_type(cx: &mut dyn BackendContext, schema: Option<&str>, name: &str) -> Result<TypeRow> {
    let schema_owned = schema.map(str::to_string);
    find_locked(cx, schema, name)?.ok_or_else(|| missing_type(&schema_owned, name))
}

/// The type `schema.name`, locked AccessExclusive and looked up again once
/// the lock is held (a concurrent DROP may have removed it meanwhile).
fn find_locked(
    cx: &mut dyn BackendContext,
    schema: Option<&str>,
    name: &str,
) -> Result<Option<TypeRow>> {
    let Some(found) = find_type(cx, schema, name)? else { return Ok(None) };
    lock_object(&mut cx.parts()?, PG_TYPE.oid, found.oid(), LockMode::AccessExclusive)?;
    see_committed_catalogs(cx)?;
    Ok(find_type(cx, schema, name)?.filter(|again| again.oid() == found.oid()))
}

fn find_type(
    cx: &mut dyn BackendContext,
    schema: Option<&str>,
    name: &str,
) -> Result<Option<TypeRow>> {
    let (engine, db) = (cx.engine().clone(), cx.database());
    let path = cx.search_path()?;
    let ctx = VisibilityContext::for_transaction(cx.txn()?, engine.txns());
    let row = pg_type::find_row(&engine, db, &ctx, &path, schema, name)?;
    Ok(row.map(|(tid, values)| TypeRow { tid, values }))
}

/// How messages name `ty`: `format_type` of it.
fn type_display(cx: &mut dyn BackendContext, ty: &TypeRow) -> Result<String> {
    match SqlType::from_oid(ty.oid()) {
        Some(builtin) => Ok(sluice_types::format_type(builtin, -1)),
        None if ty.element() != 0 => Ok(format!("{}[]", format_type_oid(cx, ty.element())?)),
        None => Ok(quote_identifier(ty.name())),
    }
}

/// `format_type` of the type with OID `oid`.
fn format_type_oid(cx: &mut dyn BackendContext, oid: Oid) -> Result<String> {
    let (engine, db) = (cx.engine().clone(), cx.database());
    let ctx = VisibilityContext::for_transaction(cx.txn()?, engine.txns());
    Ok(pg_type::sql_type(&engine, db, &ctx, oid)?
        .map_or_else(|| format!("{oid}"), |t| sluice_types::format_type(t, -1)))
}

/// A type name's schema and name from the grammar's list of strings.
pub(crate) fn qualified_name(names: &[Node]) -> Result<(Option<String>, String)> {
    let parts: Vec<String> = names.iter().filter_map(node_str).collect();
    match parts.as_slice() {
        [name] => Ok((None, name.clone())),
        [schema, name] => Ok((Some(schema.clone()), name.clone())),
        _ => Err(SqlError::syntax(format!(
            "improper qualified name (too many dotted names): {}",
            parts.join(".")
        ))),
    }
}

fn written(schema: &Option<String>, name: &str) -> String {
    match schema {
        Some(schema) => format!("{schema}.{name}"),
        None => name.to_string(),
    }
}

/// 42704 `type "x" does not exist`.
fn missing_type(schema: &Option<String>, name: &str) -> SqlError {
    SqlError::new("42704", format!("type \"{}\" does not exist", written(schema, name)))
}
