//! Types that SQL creates: their `pg_type` rows, enum labels in `pg_enum`,
//! and finding them again by name or OID (PostgreSQL's `catalog/pg_type.c`,
//! `catalog/pg_enum.c` and the type half of `parser/parse_type.c`).
//!
//! The built-in types are [`SqlType`]'s own variants, known without the
//! catalogs; their `pg_type` rows are written at initdb for the views'
//! sake. A type made by `CREATE TYPE` exists only in the catalogs, so
//! every place that turns a type OID or name into a [`SqlType`] — a
//! relation descriptor's columns, a type name in DDL or in a cast — asks
//! this module, which reads the rows under the caller's snapshot and builds
//! the type's descriptor (for an enum, its labels in sort order). That
//! makes CREATE TYPE and ALTER TYPE ... ADD VALUE transactional like every
//! other DDL: a statement sees the labels its snapshot sees.
//!
//! An array type is a `pg_type` row of its own (`_mood`, category `A`,
//! `typelem` the element), created with its element type as PostgreSQL
//! does.

use super::constraint::{CON_BIN, CON_TYPE, CON_TYPID};
use super::namespace::{namespace_oid, SearchPath};
use super::relation::oid_of;
use super::rows::tuple_desc;
use super::schema::CatalogDef;
use super::schema::{PG_CONSTRAINT, PG_ENUM, PG_TYPE};
use super::{insert, scan_eq_as};
use crate::error::{Result, SqlError};
use crate::parser::quote_identifier;
use sluice_access::common::htup::HEAP_UPDATED;
use sluice_access::common::{get_attr, HeapTupleHeader};
use sluice_access::heap::scan::HeapScan;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::heap::HeapRelation;
use sluice_access::Engine;
use sluice_common::{ItemPointer, Oid};
use sluice_txn::{ComboCids, OwnXids, Snapshot, Transaction};
use sluice_types::domains::{DomainCheck, DomainDesc, DomainType};
use sluice_types::enums::{EnumDesc, EnumLabel, EnumType, SortOrder};
use sluice_types::SqlType;
use std::sync::{Arc, OnceLock};

/// `pg_type` columns by position.
pub mod col {
    /// `typname`.
    pub const NAME: usize = 1;
    /// `typnamespace`.
    pub const NAMESPACE: usize = 2;
    /// `typowner`.
    pub const OWNER: usize = 3;
    /// `typtype`.
    pub const TYPTYPE: usize = 6;
    /// `typelem`.
    pub const ELEM: usize = 11;
    /// `typarray`.
    pub const ARRAY: usize = 12;
    /// `typbasetype`.
    pub const BASE_TYPE: usize = 13;
    /// `typtypmod`.
    pub const TYPMOD: usize = 14;
    /// `typnotnull`.
    pub const NOT_NULL: usize = 15;
    /// `typdefault`.
    pub const DEFAULT: usize = 16;
}

/// `pg_enum` columns by position.
pub mod enum_col {
    /// `enumtypid`.
    pub const TYPID: usize = 1;
    /// `enumsortorder`.
    pub const SORT_ORDER: usize = 2;
    /// `enumlabel`.
    pub const LABEL: usize = 3;
}

/// The types a statement can see, for looking type names and OIDs up
/// while its catalogs are borrowed elsewhere: the statement's snapshot
/// and search path, owned. Nearly every statement makes one (its stored
/// expressions may name types) and nearly none looks a name up, so the
/// search path is resolved, under the same snapshot, only when a name is.
#[derive(Clone)]
pub struct TypeCatalog {
    engine: Arc<Engine>,
    db: Oid,
    snapshot: Snapshot,
    combocids: Arc<ComboCids>,
    own_subxids: Arc<OwnXids>,
    /// The `search_path` setting and the session user (`$user`).
    setting: Arc<str>,
    user: String,
    path: OnceLock<SearchPath>,
}

impl TypeCatalog {
    /// The types `txn`'s current statement sees, names resolved along the
    /// `search_path` `setting` of a session of `user`.
    pub fn new(
        engine: &Arc<Engine>,
        db: Oid,
        txn: &mut Transaction,
        setting: Arc<str>,
        user: &str,
    ) -> Self {
        let ctx = VisibilityContext::for_transaction(txn, engine.txns());
        TypeCatalog::from_visibility(engine, db, &ctx, setting, user)
    }

    /// The types statement visibility `ctx` sees (see [`TypeCatalog::new`]).
    pub fn from_visibility(
        engine: &Arc<Engine>,
        db: Oid,
        ctx: &VisibilityContext,
        setting: Arc<str>,
        user: &str,
    ) -> Self {
        TypeCatalog {
            engine: engine.clone(),
            db,
            snapshot: ctx.snapshot,
            combocids: ctx.combocids.clone(),
            own_subxids: ctx.own_subxids.clone(),
            setting,
            user: user.to_string(),
            path: OnceLock::new(),
        }
    }

    /// The search path, resolved on first use.
    fn path(&self, ctx: &VisibilityContext) -> Result<&SearchPath> {
        if let Some(path) = self.path.get() {
            return Ok(path);
        }
        let path = SearchPath::resolve(&self.engine, self.db, ctx, &self.setting, &self.user)?;
        Ok(self.path.get_or_init(|| path))
    }

    fn visibility(&self) -> VisibilityContext<'_> {
        VisibilityContext {
            snapshot: self.snapshot,
            mgr: self.engine.txns(),
            combocids: self.combocids.clone(),
            own_subxids: self.own_subxids.clone(),
        }
    }

    /// by_name -- the type `schema.name` (or `name` along the search path)
    /// that CREATE TYPE made, if there is one. Built-in names are the
    /// caller's business (they are not looked up here).
    pub fn by_name(&self, schema: Option<&str>, name: &str) -> Result<Option<SqlType>> {
        let ctx = self.visibility();
        by_name(&self.engine, self.db, &ctx, self.path(&ctx)?, schema, name)
    }
}

/// by_name -- the type `schema.name`, or the first `name` along `path`, as
/// `ctx` sees the catalogs (see [`TypeCatalog::by_name`]).
pub fn by_name(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    path: &SearchPath,
    schema: Option<&str>,
    name: &str,
) -> Result<Option<SqlType>> {
    match find_row(engine, db, ctx, path, schema, name)? {
        Some((_, row)) => from_row(engine, db, ctx, &row),
        None => Ok(None),
    }
}

/// find_row -- the `pg_type` row of `schema.name`, or of the first `name`
/// along `path`; `None` when there is none (or the schema does not exist).
pub fn find_row(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    path: &SearchPath,
    schema: Option<&str>,
    name: &str,
) -> Result<Option<(ItemPointer, Vec<sluice_types::Datum>)>> {
    let key = sluice_types::Datum::Text(name.to_string());
    let rows = scan_eq_as(engine, db, &PG_TYPE, ctx, col::NAME, &key, |_| true)?;
    let namespaces: Vec<Oid> = match schema {
        Some(schema) => namespace_oid(engine, db, ctx, schema)?.into_iter().collect(),
        None => path.schemas().to_vec(),
    };
    Ok(namespaces
        .iter()
        .find_map(|nsp| rows.iter().find(|(_, r)| oid_of(&r[col::NAMESPACE]) == *nsp).cloned()))
}

/// sql_type -- the type with OID `oid`: a built-in one, or one CREATE TYPE
/// made (read under `ctx`); `None` if there is no such type.
pub fn sql_type(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    oid: Oid,
) -> Result<Option<SqlType>> {
    if let Some(builtin) = SqlType::from_oid(oid) {
        return Ok(Some(builtin));
    }
    let rows = scan_eq_as(engine, db, &PG_TYPE, ctx, 0, &sluice_types::Datum::Oid(oid), |_| true)?;
    match rows.first() {
        Some((_, row)) => from_row(engine, db, ctx, row),
        None => Ok(None),
    }
}

/// The type a `pg_type` row describes, if sluice can use it.
fn from_row(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    row: &[sluice_types::Datum],
) -> Result<Option<SqlType>> {
    let elem = oid_of(&row[col::ELEM]);
    if elem != 0 {
        let elem = sql_type(engine, db, ctx, elem)?;
        return Ok(elem.and_then(SqlType::array_of));
    }
    match row[col::TYPTYPE].as_str() {
        Some("e") => Ok(Some(SqlType::Enum(enum_type(engine, db, ctx, row)?))),
        Some("d") => domain_type(engine, db, ctx, row),
        _ => Ok(SqlType::from_oid(oid_of(&row[0]))),
    }
}

/// The domain of `pg_type` row `row` with its CHECK constraints (from
/// `pg_constraint`, by name); a domain over a domain gets the inner one's
/// base type and constraints too, tested first.
fn domain_type(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    row: &[sluice_types::Datum],
) -> Result<Option<SqlType>> {
    let oid = oid_of(&row[0]);
    let Some(base) = sql_type(engine, db, ctx, oid_of(&row[col::BASE_TYPE]))? else {
        return Ok(None);
    };
    let typname = row[col::NAME].as_str().unwrap_or_default().to_string();
    let mut desc = DomainDesc {
        oid,
        array_oid: oid_of(&row[col::ARRAY]),
        sql_name: quote_identifier(&typname),
        typname,
        base,
        typmod: match row[col::TYPMOD] {
            sluice_types::Datum::Int4(m) => m,
            _ => -1,
        },
        not_null: matches!(row[col::NOT_NULL], sluice_types::Datum::Bool(true)),
        default: row[col::DEFAULT].as_str().map(str::to_string),
        checks: domain_checks(engine, db, ctx, oid)?,
    };
    if let SqlType::Domain(inner) = base {
        let inner = inner.desc();
        desc.base = inner.base;
        desc.typmod = if desc.typmod >= 0 { desc.typmod } else { inner.typmod };
        desc.not_null |= inner.not_null;
        desc.default = desc.default.or_else(|| inner.default.clone());
        desc.checks.splice(0..0, inner.checks.iter().cloned());
    }
    Ok(Some(SqlType::Domain(DomainType::intern(desc))))
}

/// domain_checks -- the CHECK constraints of domain `oid`, by name.
pub fn domain_checks(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    oid: Oid,
) -> Result<Vec<DomainCheck>> {
    let key = sluice_types::Datum::Oid(oid);
    let rows = scan_eq_as(engine, db, &PG_CONSTRAINT, ctx, CON_TYPID, &key, |_| true)?;
    let mut checks: Vec<DomainCheck> = rows
        .into_iter()
        .filter(|(_, r)| r[CON_TYPE].as_str() == Some("c"))
        .map(|(_, r)| DomainCheck {
            name: r[1].as_str().unwrap_or_default().to_string(),
            expr: r[CON_BIN].as_str().unwrap_or_default().to_string(),
        })
        .collect();
    checks.sort();
    Ok(checks)
}

/// The enum type of `pg_type` row `row`, with its labels as `ctx` sees them.
fn enum_type(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    row: &[sluice_types::Datum],
) -> Result<EnumType> {
    let oid = oid_of(&row[0]);
    let typname = row[col::NAME].as_str().unwrap_or_default().to_string();
    let mut labels: Vec<EnumLabel> =
        enum_labels(engine, db, ctx, oid)?.into_iter().map(|(_, label)| label).collect();
    mark_uncommitted(engine, db, ctx, oid, &mut labels)?;
    Ok(EnumType::intern(EnumDesc {
        oid,
        array_oid: oid_of(&row[col::ARRAY]),
        sql_name: quote_identifier(&typname),
        typname,
        labels,
    }))
}

/// Flags the labels that ALTER TYPE ... ADD VALUE added in the reader's
/// own, still running transaction to a type that existed before it: rows
/// it inserted, as opposed to rows it rewrote (a label renamed or
/// renumbered is an update, and was usable before). A type created in
/// this transaction has its type row and every label row written by it;
/// its labels are all safe, as PostgreSQL's are when the type is new
/// (sluice also lets labels added to such a type be used, where
/// PostgreSQL 15 refuses them: nothing older can hold them). Only a
/// transaction that wrote catalogs can see rows of its own.
fn mark_uncommitted(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    type_oid: Oid,
    labels: &mut [EnumLabel],
) -> Result<()> {
    if !ctx.snapshot.wrote_catalog {
        return Ok(());
    }
    let own_labels = own_rows(engine, db, &PG_ENUM, ctx, enum_col::TYPID, type_oid)?;
    if own_labels.is_empty() {
        return Ok(());
    }
    let type_is_new = !own_rows(engine, db, &PG_TYPE, ctx, 0, type_oid)?.is_empty()
        && labels.iter().all(|l| own_labels.iter().any(|(oid, _)| *oid == l.oid));
    for label in labels.iter_mut() {
        let inserted = own_labels.iter().any(|&(oid, updated)| oid == label.oid && !updated);
        label.uncommitted = !type_is_new && inserted;
    }
    Ok(())
}

/// The rows of catalog `def` whose OID column `column` holds `key` and
/// which the reader's own transaction wrote: each row's OID and whether it
/// is an updated version of an older row (read from the tuple headers,
/// which the catalog cache does not keep).
fn own_rows(
    engine: &Engine,
    db: Oid,
    def: &CatalogDef,
    ctx: &VisibilityContext,
    column: usize,
    key: Oid,
) -> Result<Vec<(Oid, bool)>> {
    let types = def.types();
    let desc = tuple_desc(&types);
    let heap = HeapRelation::new(super::catalog_locator(def, db));
    let mut scan = HeapScan::begin(engine, &heap, ctx.clone())?;
    let wanted = key.to_le_bytes();
    let mut own = Vec::new();
    let corrupt = |e: sluice_access::common::TupleError| SqlError::new(e.sqlstate(), e.to_string());
    while let Some((_, tuple)) = scan.next_tuple()? {
        if get_attr(&desc, tuple, column).map_err(corrupt)? != Some(&wanted[..]) {
            continue;
        }
        let header = HeapTupleHeader::new(tuple).map_err(corrupt)?;
        if ctx.is_own(header.xmin()) {
            let updated = header.infomask() & HEAP_UPDATED != 0;
            let oid = get_attr(&desc, tuple, 0).map_err(corrupt)?;
            let oid = oid.and_then(|b| b.try_into().ok()).map(u32::from_le_bytes);
            own.extend(oid.map(|oid| (oid, updated)));
        }
    }
    Ok(own)
}

/// enum_labels -- the `pg_enum` rows of enum type `type_oid`, with their
/// addresses, in no particular order.
pub fn enum_labels(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    type_oid: Oid,
) -> Result<Vec<(ItemPointer, EnumLabel)>> {
    let key = sluice_types::Datum::Oid(type_oid);
    let rows = scan_eq_as(engine, db, &PG_ENUM, ctx, enum_col::TYPID, &key, |_| true)?;
    Ok(rows
        .into_iter()
        .map(|(tid, r)| {
            let sort_order = match r[enum_col::SORT_ORDER] {
                sluice_types::Datum::Float4(f) => f,
                _ => 0.0,
            };
            let label = EnumLabel {
                oid: oid_of(&r[0]),
                sort_order: SortOrder(sort_order),
                label: r[enum_col::LABEL].as_str().unwrap_or_default().to_string(),
                uncommitted: false,
            };
            (tid, label)
        })
        .collect())
}

/// The facts of a new `pg_type` row that differ between the kinds of type.
pub struct NewType<'a> {
    /// Its OID.
    pub oid: Oid,
    /// `typname`.
    pub name: &'a str,
    /// `typnamespace`.
    pub namespace: Oid,
    /// `typowner`.
    pub owner: Oid,
    /// `typtype`: `e` for an enum.
    pub typtype: &'a str,
    /// `typcategory`.
    pub category: &'a str,
    /// The array type's OID (`typarray`).
    pub array_oid: Oid,
    /// The type whose physical layout (`typlen`, `typbyval`, `typalign`)
    /// and collation it has: `integer`'s for an enum, the base type's for
    /// a domain.
    pub layout: SqlType,
    /// What makes a domain one.
    pub domain: Option<DomainFacts>,
}

/// The `pg_type` columns of a domain.
pub struct DomainFacts {
    /// `typbasetype`.
    pub base: Oid,
    /// `typtypmod`.
    pub typmod: i32,
    /// `typnotnull`.
    pub not_null: bool,
    /// `typdefault`.
    pub default: Option<String>,
}

/// insert_with_array -- writes the `pg_type` rows of a new type and of its
/// array type `_name` (PostgreSQL names it so, prefixing more underscores
/// only when that name is taken, which sluice does not do yet).
pub fn insert_with_array(
    engine: &Engine,
    db: Oid,
    txn: &mut Transaction,
    t: &NewType,
) -> Result<()> {
    use sluice_types::Datum::{Bool, Int2, Int4, Null, Oid as O, Text};
    let collation = super::bootstrap::type_collation(t.layout.base());
    let align = super::bootstrap::align_letter(t.layout);
    let mut scalar = vec![
        O(t.oid),
        Text(t.name.to_string()),
        O(t.namespace),
        O(t.owner),
        Int2(t.layout.typlen()),
        Bool(t.layout.typbyval()),
        Text(t.typtype.into()),
        Text(t.category.into()),
        O(0),
        Text(align.into()),
        O(collation),
        O(0),
        O(t.array_oid),
    ];
    match &t.domain {
        Some(d) => scalar.extend([
            O(d.base),
            Int4(d.typmod),
            Bool(d.not_null),
            d.default.clone().map_or(Null, Text),
        ]),
        None => scalar.extend([O(0), Int4(-1), Bool(false), Null]),
    }
    let default_bin = t.domain.as_ref().and_then(|d| d.default.clone()).map_or(Null, Text);
    let storage = super::bootstrap::storage_letter(t.layout);
    scalar.extend([Null, Text(storage.into()), Bool(true), default_bin]);
    insert(engine, db, &PG_TYPE, txn, &scalar)?;
    let array_align = if align == "d" { "d" } else { "i" };
    let array = vec![
        O(t.array_oid),
        Text(format!("_{}", t.name)),
        O(t.namespace),
        O(t.owner),
        Int2(-1),
        Bool(false),
        Text("b".into()),
        Text("A".into()),
        O(0),
        Text(array_align.into()),
        O(collation),
        O(t.oid),
        O(0),
        O(0),
        Int4(-1),
        Bool(false),
        Null,
        Null,
        Text("x".into()),
        Bool(true),
        Null,
    ];
    insert(engine, db, &PG_TYPE, txn, &array)?;
    Ok(())
}

/// insert_enum_label -- one `pg_enum` row.
pub fn insert_enum_label(
    engine: &Engine,
    db: Oid,
    txn: &mut Transaction,
    type_oid: Oid,
    label: &EnumLabel,
) -> Result<()> {
    insert(engine, db, &PG_ENUM, txn, &enum_label_row(type_oid, label))?;
    Ok(())
}

/// The `pg_enum` row of `label`, a label of type `type_oid`.
pub fn enum_label_row(type_oid: Oid, label: &EnumLabel) -> [sluice_types::Datum; 4] {
    [
        sluice_types::Datum::Oid(label.oid),
        sluice_types::Datum::Oid(type_oid),
        sluice_types::Datum::Float4(label.sort_order.0),
        sluice_types::Datum::Text(label.label.clone()),
    ]
}
