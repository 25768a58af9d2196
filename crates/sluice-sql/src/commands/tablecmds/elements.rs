//! A CREATE TABLE element list read into columns and constraints
//! (PostgreSQL's transformCreateStmt, transformColumnDefinition and
//! transformTableConstraint in `parser/parse_utilcmd.c`).
//!
//! Column constraints become table constraints on that column: PRIMARY KEY
//! and UNIQUE an index spec, CHECK a check, REFERENCES a foreign key with
//! the column as its key. DEFERRABLE, NOT DEFERRABLE, INITIALLY DEFERRED
//! and INITIALLY IMMEDIATE written after a column constraint belong to it
//! (transformConstraintAttrs); only a foreign key can take them so far.
//! Nothing here touches the catalogs: `create_table` creates what this
//! returns, in PostgreSQL's order.

use super::super::indexcmds::{fillfactor_option, ConstraintKind, NewIndex};
use super::constraints;
use super::like;
use crate::catalog::bootstrap::attribute_row;
use crate::catalog::pg_type::TypeCatalog;
use crate::catalog::relation::{Identity, ATT_GENERATED, ATT_IDENTITY};
use crate::error::position;
use crate::error::{Result, SqlError};
use crate::parser::deparse_expr;
use crate::parser::node_str;
use crate::parser::unsupported::{other_tablespace, refuse};
use pg_query::protobuf::{ColumnDef, ConstrType, Constraint, CreateStmt};
use pg_query::NodeEnum;
use sluice_access::nbtree::ColumnOrder;
use sluice_common::Oid;
use sluice_types::{Datum, SqlType};

/// PostgreSQL's limit on columns per table.
const MAX_COLUMNS: usize = 1600;

/// A column of a table being created.
pub(crate) struct NewColumn {
    pub(crate) name: String,
    pub(crate) ty: SqlType,
    pub(crate) typmod: i32,
    pub(crate) not_null: bool,
    pub(crate) default: Option<String>,
    /// Declared `serial`/`bigserial`/`smallserial`: gets a sequence.
    pub(crate) serial: bool,
    /// PRIMARY KEY / UNIQUE declared on the column.
    pub(crate) constraints: Vec<NewIndex>,
    /// CHECK constraints declared on the column.
    pub(crate) checks: Vec<Constraint>,
    /// REFERENCES declared on the column, as table constraints on it.
    pub(crate) foreign_keys: Vec<Constraint>,
    /// `GENERATED ... AS IDENTITY` and its sequence options: the column
    /// gets a sequence of its own, internally dependent on it.
    pub(crate) identity: Option<(Identity, Vec<pg_query::protobuf::Node>)>,
    /// `GENERATED ALWAYS AS (expr) STORED`: the expression, deparsed; kept
    /// in `pg_attrdef` like a default, checked once the table exists.
    pub(crate) generated: Option<String>,
}

/// refuse_column_clauses -- 0A000 for the parts of a column definition that
/// sluice does not implement; name, type, NOT NULL and the constraint list
/// are read by [`new_column`].
fn refuse_column_clauses(def: &ColumnDef) -> Result<()> {
    refuse(!def.compression.is_empty(), "column compression is not supported yet")?;
    refuse(
        !def.storage_name.is_empty() || !def.storage.is_empty(),
        "column STORAGE is not supported yet",
    )?;
    refuse(def.coll_clause.is_some(), "column collations are not supported yet")?;
    refuse(!def.fdwoptions.is_empty(), "column OPTIONS are not supported yet")?;
    refuse(
        def.raw_default.is_some() || def.cooked_default.is_some(),
        "column defaults outside DEFAULT are not supported yet",
    )?;
    refuse(!def.identity.is_empty(), "identity columns are not supported yet")?;
    refuse(!def.generated.is_empty(), "generated columns are not supported yet")
}

/// The message for a column constraint sluice does not implement.
fn column_constraint_unsupported(kind: ConstrType) -> &'static str {
    match kind {
        ConstrType::ConstrExclusion => "exclusion constraints are not supported yet",
        ConstrType::ConstrAttrDeferrable
        | ConstrType::ConstrAttrNotDeferrable
        | ConstrType::ConstrAttrDeferred
        | ConstrType::ConstrAttrImmediate => "deferrable constraints are not supported yet",
        _ => "column constraints other than NOT NULL, DEFAULT, PRIMARY KEY and UNIQUE are not supported yet",
    }
}

/// refuse_index_constraint_clauses -- 0A000 for the parts of a PRIMARY KEY
/// or UNIQUE constraint that sluice does not implement; the name, keys and
/// fillfactor are read by [`constraint_index`].
fn refuse_index_constraint_clauses(c: &Constraint) -> Result<()> {
    refuse(c.deferrable || c.initdeferred, "deferrable constraints are not supported yet")?;
    refuse(!c.including.is_empty(), "INCLUDE columns are not supported yet")?;
    refuse(c.nulls_not_distinct, "NULLS NOT DISTINCT is not supported yet")?;
    refuse(other_tablespace(&c.indexspace), "tablespaces are not supported yet")?;
    refuse(!c.indexname.is_empty(), "USING INDEX is not supported yet")?;
    refuse(c.without_overlaps, "WITHOUT OVERLAPS is not supported yet")
}

/// constraint_index -- the index a PRIMARY KEY or UNIQUE constraint needs
/// (its columns filled in from `keys`, which a column constraint lacks).
pub(crate) fn constraint_index(c: &Constraint) -> Result<NewIndex> {
    let kind = match ConstrType::try_from(c.contype).unwrap_or(ConstrType::Undefined) {
        ConstrType::ConstrPrimary => ConstraintKind::Primary,
        ConstrType::ConstrUnique => ConstraintKind::Unique,
        _ => {
            return Err(SqlError::unsupported(
                "constraints other than PRIMARY KEY and UNIQUE are not supported yet",
            ))
        }
    };
    refuse_index_constraint_clauses(c)?;
    Ok(NewIndex {
        name: (!c.conname.is_empty()).then(|| c.conname.clone()),
        columns: c.keys.iter().filter_map(node_str).map(|k| (k, ColumnOrder::default())).collect(),
        unique: true,
        constraint: Some(kind),
        predicate: None,
        fillfactor: fillfactor_option(&c.options)?,
        if_not_exists: false,
    })
}

/// Where a PRIMARY KEY constraint is written, if `c` is one.
fn primary_location(c: &Constraint) -> Option<i32> {
    (ConstrType::try_from(c.contype) == Ok(ConstrType::ConstrPrimary)).then_some(c.location)
}

/// What a CREATE TABLE element list defines.
pub(super) struct NewElements {
    pub(super) columns: Vec<NewColumn>,
    /// PRIMARY KEY and UNIQUE constraints (the primary key first).
    pub(super) indexes: Vec<NewIndex>,
    /// CHECK constraints, column ones first.
    pub(super) checks: Vec<Constraint>,
    /// FOREIGN KEY constraints, column ones first.
    pub(super) foreign_keys: Vec<Constraint>,
}

/// The columns and constraints of `stmt`'s element list, with `likes`
/// (what its LIKE clauses copy, in order) spliced in where they stand.
pub(super) fn new_columns(
    stmt: &CreateStmt,
    table: &str,
    likes: Vec<like::LikeCopy>,
    types: &TypeCatalog,
) -> Result<NewElements> {
    let mut columns: Vec<NewColumn> = Vec::new();
    let mut table_constraints = Vec::new();
    let mut checks = Vec::new();
    let mut foreign_keys = Vec::new();
    let mut primary_keys = Vec::new();
    let mut likes = likes.into_iter();
    for element in &stmt.table_elts {
        match element.node.as_ref() {
            Some(NodeEnum::ColumnDef(def)) => {
                primary_keys.extend(def.constraints.iter().filter_map(|n| match n.node.as_ref() {
                    Some(NodeEnum::Constraint(c)) => primary_location(c),
                    _ => None,
                }));
                add_column(&mut columns, new_column(def, table, types)?)?;
            }
            Some(NodeEnum::TableLikeClause(_)) => {
                let copy = likes.next().ok_or_else(|| SqlError::internal("LIKE not expanded"))?;
                for column in copy.columns {
                    add_column(&mut columns, column)?;
                }
                table_constraints.extend(copy.indexes);
                checks.extend(copy.checks);
            }
            Some(NodeEnum::Constraint(c)) if constraints::is_check(c) => checks.push((**c).clone()),
            Some(NodeEnum::Constraint(c)) if is_foreign_key(c) => foreign_keys.push((**c).clone()),
            Some(NodeEnum::Constraint(c)) => {
                table_constraints.push(constraint_index(c)?);
                primary_keys.extend(primary_location(c));
            }
            _ => {
                return Err(SqlError::unsupported("this CREATE TABLE element is not supported yet"))
            }
        }
    }
    if let Some(&location) = primary_keys.get(1) {
        return Err(SqlError::new(
            "42P16",
            format!("multiple primary keys for table \"{table}\" are not allowed"),
        )
        .at(position(location)));
    }
    if columns.len() > MAX_COLUMNS {
        return Err(SqlError::new(
            "54011",
            format!("tables can have at most {MAX_COLUMNS} columns"),
        ));
    }
    // Primary key columns are NOT NULL.
    let mut constraints: Vec<NewIndex> =
        columns.iter_mut().flat_map(|c| std::mem::take(&mut c.constraints)).collect();
    // Column CHECK constraints come first, as PostgreSQL gathers them.
    let column_checks = columns.iter_mut().flat_map(|c| std::mem::take(&mut c.checks));
    let checks: Vec<Constraint> = column_checks.chain(checks).collect();
    let column_keys = columns.iter_mut().flat_map(|c| std::mem::take(&mut c.foreign_keys));
    let foreign_keys: Vec<Constraint> = column_keys.chain(foreign_keys).collect();
    for spec in &table_constraints {
        if spec.constraint != Some(ConstraintKind::Primary) {
            continue;
        }
        for (name, _) in &spec.columns {
            if let Some(c) = columns.iter_mut().find(|c| &c.name == name) {
                c.not_null = true;
            }
        }
    }
    constraints.extend(table_constraints);
    // PostgreSQL builds the primary key's index first.
    constraints.sort_by_key(|c| c.constraint != Some(ConstraintKind::Primary));
    Ok(NewElements { columns, indexes: constraints, checks, foreign_keys })
}

impl NewColumn {
    /// The column's `pg_attribute` row as attribute `attnum` of `relid`.
    pub(super) fn attribute_row(&self, relid: Oid, attnum: i16) -> Vec<Datum> {
        let has_default = self.default.is_some() || self.generated.is_some();
        let (ty, typmod) = (self.ty, self.typmod);
        let mut row =
            attribute_row(relid, &self.name, ty, typmod, attnum, self.not_null, has_default);
        if let Some((identity, _)) = &self.identity {
            row[ATT_IDENTITY] = Datum::Text(identity.letter().into());
        }
        if self.generated.is_some() {
            row[ATT_GENERATED] = Datum::Text("s".into());
        }
        row
    }
}

/// Appends `column`, 42701 if the name is taken.
fn add_column(columns: &mut Vec<NewColumn>, column: NewColumn) -> Result<()> {
    if columns.iter().any(|c| c.name == column.name) {
        return Err(SqlError::new(
            "42701",
            format!("column \"{}\" specified more than once", column.name),
        ));
    }
    columns.push(column);
    Ok(())
}

/// The names of the system columns every table has.
pub(super) const SYSTEM_COLUMNS: [&str; 6] = ["tableoid", "cmax", "xmax", "cmin", "xmin", "ctid"];

/// 42701 for a user column named like a system column (PostgreSQL's
/// CheckAttributeNamesTypes).
pub(crate) fn check_column_name(name: &str) -> Result<()> {
    if SYSTEM_COLUMNS.contains(&name) {
        return Err(SqlError::new(
            "42701",
            format!("column name \"{name}\" conflicts with a system column name"),
        ));
    }
    Ok(())
}

pub(super) fn new_column(def: &ColumnDef, table: &str, types: &TypeCatalog) -> Result<NewColumn> {
    refuse_column_clauses(def)?;
    check_column_name(&def.colname)?;
    let type_name =
        def.type_name.as_ref().ok_or_else(|| SqlError::internal("column without a type"))?;
    let serial = serial_type(type_name);
    let (ty, typmod) = match serial {
        Some(ty) => (ty, -1),
        None => crate::expr::type_from_name_in(type_name, &mut |schema, name| {
            types.by_name(schema, name)
        })?,
    };
    let mut column = NewColumn {
        name: def.colname.clone(),
        ty,
        typmod,
        not_null: def.is_not_null,
        default: None,
        serial: serial.is_some(),
        constraints: Vec::new(),
        checks: Vec::new(),
        foreign_keys: Vec::new(),
        identity: None,
        generated: None,
    };
    let mut generated_at = None;
    for constraint in &def.constraints {
        let Some(NodeEnum::Constraint(c)) = constraint.node.as_ref() else { continue };
        match ConstrType::try_from(c.contype).unwrap_or(ConstrType::Undefined) {
            ConstrType::ConstrNotnull => column.not_null = true,
            ConstrType::ConstrNull if column.serial => {
                return Err(SqlError::syntax(format!(
                    "conflicting NULL/NOT NULL declarations for column \"{}\" of table \"{table}\"",
                    column.name
                )))
            }
            ConstrType::ConstrNull => column.not_null = false,
            ConstrType::ConstrDefault if column.serial => {
                return Err(SqlError::syntax(format!(
                    "multiple default values specified for column \"{}\" of table \"{table}\"",
                    column.name
                )))
            }
            ConstrType::ConstrDefault if column.identity.is_some() => {
                return Err(both_default_and_identity(&column.name, table, c))
            }
            ConstrType::ConstrDefault => {
                let expr = c
                    .raw_expr
                    .as_deref()
                    .ok_or_else(|| SqlError::internal("DEFAULT without expression"))?;
                column.default = Some(deparse_expr(expr)?);
            }
            ConstrType::ConstrPrimary | ConstrType::ConstrUnique => {
                let mut spec = constraint_index(c)?;
                spec.columns = vec![(column.name.clone(), ColumnOrder::default())];
                column.not_null |= spec.constraint == Some(ConstraintKind::Primary);
                column.constraints.push(spec);
            }
            ConstrType::ConstrCheck => column.checks.push((**c).clone()),
            ConstrType::ConstrForeign => {
                let mut key = (**c).clone();
                key.fk_attrs = vec![pg_query::protobuf::Node {
                    node: Some(NodeEnum::String(pg_query::protobuf::String {
                        sval: column.name.clone(),
                    })),
                }];
                column.foreign_keys.push(key);
            }
            kind @ (ConstrType::ConstrAttrDeferrable
            | ConstrType::ConstrAttrNotDeferrable
            | ConstrType::ConstrAttrDeferred
            | ConstrType::ConstrAttrImmediate)
                if last_is_foreign_key(def, c) =>
            {
                let key = column.foreign_keys.last_mut().expect("checked above");
                apply_attribute(key, kind);
            }
            ConstrType::ConstrIdentity => set_identity(&mut column, c, table)?,
            ConstrType::ConstrGenerated => {
                if column.generated.is_some() {
                    return Err(SqlError::syntax(format!(
                        "multiple generation clauses specified for column \"{}\" of table \"{table}\"",
                        column.name
                    ))
                    .at(position(c.location)));
                }
                // PostgreSQL 18's grammar (pg_query's) reads a generated
                // column without STORED as VIRTUAL; PostgreSQL 15 has only
                // STORED.
                if c.generated_kind == "v" {
                    return Err(SqlError::unsupported(
                        "virtual generated columns are not supported yet",
                    )
                    .at(position(c.location)));
                }
                let expr = c
                    .raw_expr
                    .as_deref()
                    .ok_or_else(|| SqlError::internal("GENERATED without expression"))?;
                column.generated = Some(deparse_expr(expr)?);
                generated_at = Some(c.location);
            }
            other => return Err(SqlError::unsupported(column_constraint_unsupported(other))),
        }
    }
    if let Some(location) = generated_at {
        let other = if column.default.is_some() || column.serial {
            Some("default")
        } else {
            column.identity.as_ref().map(|_| "identity")
        };
        if let Some(other) = other {
            return Err(SqlError::syntax(format!(
                "both {other} and generation expression specified for column \"{}\" of table \"{table}\"",
                column.name
            ))
            .at(position(location)));
        }
    }
    if column.identity.is_some() && column.serial {
        return Err(SqlError::syntax(format!(
            "both default and identity specified for column \"{}\" of table \"{table}\"",
            column.name
        )));
    }
    // Serial and identity columns are NOT NULL whatever else they say.
    column.not_null |= column.serial || column.identity.is_some();
    Ok(column)
}

/// 42601 for a column given both a DEFAULT and an identity, at `c`.
fn both_default_and_identity(column: &str, table: &str, c: &Constraint) -> SqlError {
    SqlError::syntax(format!(
        "both default and identity specified for column \"{column}\" of table \"{table}\""
    ))
    .at(position(c.location))
}

/// Records a column's `GENERATED { ALWAYS | BY DEFAULT } AS IDENTITY`.
pub(super) fn set_identity(column: &mut NewColumn, c: &Constraint, table: &str) -> Result<()> {
    if column.identity.is_some() {
        return Err(SqlError::syntax(format!(
            "multiple identity specifications for column \"{}\" of table \"{table}\"",
            column.name
        ))
        .at(position(c.location)));
    }
    if column.default.is_some() {
        return Err(both_default_and_identity(&column.name, table, c));
    }
    if !matches!(column.ty, SqlType::Int2 | SqlType::Int4 | SqlType::Int8) {
        return Err(SqlError::new(
            "22023",
            "identity column type must be smallint, integer, or bigint",
        ));
    }
    let kind = match c.generated_when.as_str() {
        "a" => Identity::Always,
        _ => Identity::ByDefault,
    };
    column.identity = Some((kind, c.options.clone()));
    Ok(())
}

/// The integer type of an unqualified `serial`-family type name (PostgreSQL
/// recognises them only unqualified and without modifiers).
fn serial_type(tn: &pg_query::protobuf::TypeName) -> Option<SqlType> {
    if tn.names.len() != 1 || tn.pct_type || !tn.typmods.is_empty() || !tn.array_bounds.is_empty() {
        return None;
    }
    match node_str(&tn.names[0])?.as_str() {
        "smallserial" | "serial2" => Some(SqlType::Int2),
        "serial" | "serial4" => Some(SqlType::Int4),
        "bigserial" | "serial8" => Some(SqlType::Int8),
        _ => None,
    }
}

/// Whether `c` is a FOREIGN KEY constraint.
pub(crate) fn is_foreign_key(c: &Constraint) -> bool {
    ConstrType::try_from(c.contype) == Ok(ConstrType::ConstrForeign)
}

/// Whether the constraint written before attribute `attr` in the column's
/// list is a foreign key (the only kind that takes DEFERRABLE so far).
fn last_is_foreign_key(def: &ColumnDef, attr: &Constraint) -> bool {
    let before = def.constraints.iter().filter_map(|n| match n.node.as_ref() {
        Some(NodeEnum::Constraint(c)) => Some(c),
        _ => None,
    });
    let mut last_real = None;
    for c in before {
        if std::ptr::eq(&**c, attr) {
            break;
        }
        if !is_attribute(c) {
            last_real = Some(c);
        }
    }
    last_real.is_some_and(|c| is_foreign_key(c))
}

/// Whether `c` is a DEFERRABLE/INITIALLY ... attribute node.
fn is_attribute(c: &Constraint) -> bool {
    matches!(
        ConstrType::try_from(c.contype),
        Ok(ConstrType::ConstrAttrDeferrable
            | ConstrType::ConstrAttrNotDeferrable
            | ConstrType::ConstrAttrDeferred
            | ConstrType::ConstrAttrImmediate)
    )
}

/// Applies a DEFERRABLE/INITIALLY ... attribute to the constraint before it.
fn apply_attribute(key: &mut Constraint, kind: ConstrType) {
    match kind {
        ConstrType::ConstrAttrDeferrable => key.deferrable = true,
        ConstrType::ConstrAttrNotDeferrable => key.deferrable = false,
        ConstrType::ConstrAttrDeferred => key.initdeferred = true,
        _ => key.initdeferred = false,
    }
}
