//! Creating a cluster's catalogs (the part of PostgreSQL's initdb that runs in
//! bootstrap mode).
//!
//! Runs once, on a data directory the engine has just created: it makes the
//! shared catalogs, the superuser role `postgres` (and `pg_database_owner`,
//! which owns `public`), the databases `template1`, `template0` and
//! `postgres`, and in each database the catalogs describing themselves, the
//! built-in types and collations, the access methods and the `pg_catalog`
//! and `public` namespaces.
//! (PostgreSQL's initdb makes template1 and copies the other two from it; the
//! result is the same, and the `pg_database` rows are inserted in the order a
//! fresh PostgreSQL 15 cluster lists them: postgres, template1, template0.)
//! Everything happens in one transaction; `PG_VERSION` is written only after it
//! committed and a checkpoint made it durable, so a directory with a control file
//! but no `PG_VERSION` is an interrupted initdb, which startup refuses.

use super::schema::*;
use super::{catalog_locator, insert};
use crate::error::Result;
use sluice_access::database::write_version_file;
use sluice_access::Engine;
use sluice_common::{ForkNumber, Oid};
use sluice_txn::{IsolationLevel, Transaction};
use sluice_types::types::ALL_TYPES;
use sluice_types::{Datum, SqlType};
use std::path::Path;

/// Whether `data_dir` holds a completely initialised cluster.
pub fn is_initialized(data_dir: &Path) -> bool {
    data_dir.join("PG_VERSION").exists()
}

/// bootstrap_cluster -- fills a brand-new cluster's catalogs (see module doc).
pub fn bootstrap_cluster(engine: &Engine) -> Result<()> {
    let backend = engine.txns().register_backend(0)?;
    let mut txn = backend.begin(IsolationLevel::ReadCommitted);
    for def in ALL_CATALOGS.iter().filter(|d| d.shared) {
        engine.create_relation_fork(catalog_locator(def, 0), ForkNumber::Main)?;
    }
    insert_role(engine, &mut txn)?;
    // `base/` and `global/`, the only tablespaces there are.
    for (oid, name) in [(sluice_common::DEFAULTTABLESPACE_OID, "pg_default"), (1664, "pg_global")] {
        let row = [
            Datum::Oid(oid),
            Datum::Text(name.into()),
            Datum::Oid(BOOTSTRAP_SUPERUSER),
            Datum::Null,
            Datum::Null,
        ];
        insert(engine, 0, &super::unfilled::PG_TABLESPACE, &mut txn, &row)?;
    }
    for (oid, name, template) in [
        (POSTGRES_DATABASE_OID, "postgres", false),
        (TEMPLATE1_OID, "template1", true),
        (TEMPLATE0_OID, "template0", true),
    ] {
        insert_database(engine, &mut txn, oid, name, template)?;
        bootstrap_database(engine, &mut txn, oid)?;
    }
    txn.commit()?;
    engine.checkpoint()?;
    write_version_files(engine.data_dir())
}

fn write_version_files(data_dir: &Path) -> Result<()> {
    for db in [TEMPLATE1_OID, TEMPLATE0_OID, POSTGRES_DATABASE_OID] {
        write_version_file(&data_dir.join("base").join(db.to_string()))?;
    }
    Ok(write_version_file(data_dir)?)
}

fn insert_role(engine: &Engine, txn: &mut Transaction) -> Result<()> {
    let t = Datum::Bool(true);
    let values = [
        Datum::Oid(BOOTSTRAP_SUPERUSER),
        Datum::Text("postgres".into()),
        t.clone(),
        t.clone(),
        t.clone(),
        t.clone(),
        t.clone(),
        t.clone(),
        t,
        Datum::Int4(-1),
    ];
    insert(engine, 0, &PG_AUTHID, txn, &values)?;
    // PostgreSQL 15's predefined role that owns `public` in every database
    // (whoever owns the database acts as it); nobody logs in as it.
    let f = Datum::Bool(false);
    let owner = [
        Datum::Oid(DATABASE_OWNER_ROLE),
        Datum::Text("pg_database_owner".into()),
        f.clone(),
        Datum::Bool(true),
        f.clone(),
        f.clone(),
        f.clone(),
        f.clone(),
        f,
        Datum::Int4(-1),
    ];
    insert(engine, 0, &PG_AUTHID, txn, &owner)?;
    Ok(())
}

fn insert_database(
    engine: &Engine,
    txn: &mut Transaction,
    oid: Oid,
    name: &str,
    template: bool,
) -> Result<()> {
    let row = DatabaseRow {
        oid,
        name,
        owner: BOOTSTRAP_SUPERUSER,
        encoding: 6, // UTF8
        is_template: template,
        allow_connections: oid != TEMPLATE0_OID,
        connection_limit: -1,
        collate: "C",
        ctype: "C",
        // initdb revokes the right to create objects in the templates from
        // PUBLIC, which their ACL records (psql's \l shows it).
        acl: template.then_some(&["=c/postgres", "postgres=CTc/postgres"][..]),
        frozen: FrozenBounds::now(engine)?,
    };
    insert(engine, 0, &PG_DATABASE, txn, &row.values())?;
    Ok(())
}

/// What a `pg_database` row records about a database.
pub struct DatabaseRow<'a> {
    /// `oid`.
    pub oid: Oid,
    /// `datname`.
    pub name: &'a str,
    /// `datdba`.
    pub owner: Oid,
    /// `encoding` (PostgreSQL's encoding number).
    pub encoding: i32,
    /// `datistemplate`.
    pub is_template: bool,
    /// `datallowconn`.
    pub allow_connections: bool,
    /// `datconnlimit`.
    pub connection_limit: i32,
    /// `datcollate`.
    pub collate: &'a str,
    /// `datctype`.
    pub ctype: &'a str,
    /// `datacl`, as text (PostgreSQL's aclitem[]); NULL means the defaults.
    pub acl: Option<&'a [&'a str]>,
    /// `datfrozenxid` and `datminmxid`: a new database's rows are its
    /// template's, so it takes the template's bounds.
    pub frozen: FrozenBounds,
}

impl DatabaseRow<'_> {
    /// values -- the row, in `pg_database`'s column order. The locale
    /// provider is always libc ('c'), so there is no ICU locale.
    pub fn values(&self) -> Vec<Datum> {
        let acl = self.acl.map_or(Datum::Null, text_array);
        vec![
            Datum::Oid(self.oid),
            Datum::Text(self.name.into()),
            Datum::Oid(self.owner),
            Datum::Int4(self.encoding),
            Datum::Bool(self.is_template),
            Datum::Bool(self.allow_connections),
            Datum::Int4(self.connection_limit),
            Datum::Oid(sluice_common::DEFAULTTABLESPACE_OID),
            Datum::Text(self.collate.into()),
            Datum::Text(self.ctype.into()),
            Datum::Text("c".into()),
            Datum::Null,
            acl,
            Datum::Xid(self.frozen.xid),
            Datum::Xid(self.frozen.multi),
            Datum::Null,
        ]
    }
}

/// A `text[]` of `items` (an ACL, as sluice keeps `aclitem[]`).
fn text_array(items: &[&str]) -> Datum {
    let elem = sluice_types::types::ElemType::new(SqlType::Text).expect("text[] exists");
    Datum::array(elem, items.iter().map(|i| Datum::Text((*i).into())).collect())
}

/// Creates database `db`'s own catalogs and their bootstrap rows.
fn bootstrap_database(engine: &Engine, txn: &mut Transaction, db: Oid) -> Result<()> {
    for def in ALL_CATALOGS.iter().filter(|d| !d.shared) {
        engine.create_relation_fork(catalog_locator(def, db), ForkNumber::Main)?;
    }
    // As initdb leaves them: everyone may use the three schemas, and
    // `public` and `pg_catalog` have their standard comments.
    let superuser_acl = ["postgres=UC/postgres", "=U/postgres"];
    let owner_acl = ["pg_database_owner=UC/pg_database_owner", "=U/pg_database_owner"];
    for (oid, name, owner, acl, comment) in [
        (
            PG_CATALOG_NAMESPACE,
            "pg_catalog",
            BOOTSTRAP_SUPERUSER,
            superuser_acl,
            Some("system catalog schema"),
        ),
        (
            PUBLIC_NAMESPACE,
            "public",
            DATABASE_OWNER_ROLE,
            owner_acl,
            Some("standard public schema"),
        ),
        (
            super::information_schema::INFORMATION_SCHEMA_NAMESPACE,
            "information_schema",
            BOOTSTRAP_SUPERUSER,
            superuser_acl,
            None,
        ),
    ] {
        let values =
            [Datum::Oid(oid), Datum::Text(name.into()), Datum::Oid(owner), text_array(&acl)];
        insert(engine, db, &PG_NAMESPACE, txn, &values)?;
        // What initdb granted, which pg_dump compares the ACL with
        // (`information_schema`'s is made later there, and has no row).
        if comment.is_some() {
            let initial = [
                Datum::Oid(oid),
                Datum::Oid(PG_NAMESPACE.oid),
                Datum::Int4(0),
                Datum::Text("i".into()),
                text_array(&acl),
            ];
            insert(engine, db, &super::unfilled::PG_INIT_PRIVS, txn, &initial)?;
        }
        if let Some(comment) = comment {
            let schema =
                super::depend::ObjectAddress { classid: PG_NAMESPACE.oid, objid: oid, objsubid: 0 };
            super::comment::set_comment(engine, db, txn, &schema, comment)?;
        }
    }
    for ty in ALL_TYPES.into_iter().chain(SqlType::array_types()).chain(SqlType::vector_types()) {
        insert(engine, db, &PG_TYPE, txn, &type_row(ty))?;
    }
    // The handlers are heap_tableam_handler and bthandler (`regproc`).
    for (oid, name, handler, kind) in
        [(HEAP_AM_OID, "heap", 3, "t"), (BTREE_AM_OID, "btree", 330, "i")]
    {
        let row = [
            Datum::Oid(oid),
            Datum::Text(name.into()),
            Datum::Oid(handler),
            Datum::Text(kind.into()),
        ];
        insert(engine, db, &PG_AM, txn, &row)?;
    }
    insert_collations(engine, txn, db)?;
    insert(engine, db, &super::unfilled::PG_LANGUAGE, txn, &internal_language())?;
    super::system_views::insert_sql_views(engine, txn, db)?;
    for def in ALL_CATALOGS {
        insert(engine, db, &PG_CLASS, txn, &catalog_class_row(def))?;
        for (i, (name, ty)) in def.columns.iter().enumerate() {
            let not_null = !super::schema::nullable_column(name, *ty);
            insert(
                engine,
                db,
                &PG_ATTRIBUTE,
                txn,
                &attribute_row(def.oid, name, *ty, -1, i as i16 + 1, not_null, false),
            )?;
        }
    }
    Ok(())
}

/// `pg_type.typalign` as PostgreSQL's letter.
pub fn align_letter(ty: SqlType) -> &'static str {
    match ty.typalign() {
        1 => "c",
        2 => "s",
        4 => "i",
        _ => "d",
    }
}

/// `pg_type.typcategory`'s letter for a category.
pub fn category_letter(category: sluice_types::types::TypeCategory) -> &'static str {
    use sluice_types::types::TypeCategory::*;
    match category {
        Boolean => "B",
        Numeric => "N",
        String => "S",
        DateTime => "D",
        Timespan => "T",
        User => "U",
        Unknown => "X",
        Array => "A",
        Composite => "C",
        Enum => "E",
        Internal => "Z",
    }
}

fn type_row(ty: SqlType) -> Vec<Datum> {
    let category = category_letter(ty.category());
    vec![
        Datum::Oid(ty.oid()),
        Datum::Text(ty.typname().into()),
        Datum::Oid(PG_CATALOG_NAMESPACE),
        Datum::Oid(BOOTSTRAP_SUPERUSER),
        Datum::Int2(ty.typlen()),
        Datum::Bool(ty.typbyval()),
        Datum::Text(if ty == SqlType::Unknown { "p" } else { "b" }.into()),
        Datum::Text(category.into()),
        Datum::Oid(0),
        Datum::Text(align_letter(ty).into()),
        Datum::Oid(type_collation(ty)),
        Datum::Oid(ty.element().map_or(0, SqlType::oid)),
        Datum::Oid(ty.array_oid().unwrap_or(0)),
        Datum::Oid(0),
        Datum::Int4(-1),
        Datum::Bool(false),
        Datum::Null,
        Datum::Null,
        Datum::Text(storage_letter(ty).into()),
        Datum::Bool(true),
        Datum::Null,
    ]
}

/// `pg_type.typcollation`: the collation a type's values compare under by
/// default (0 for types without one). `name` is always "C".
pub fn type_collation(ty: SqlType) -> Oid {
    match ty {
        SqlType::Name => C_COLLATION_OID,
        SqlType::Text | SqlType::Varchar | SqlType::Bpchar => DEFAULT_COLLATION_OID,
        SqlType::Array(_) => ty.element().map_or(0, type_collation),
        _ => 0,
    }
}

/// `pg_attribute.attstorage`: PostgreSQL's TOAST strategy letter of the
/// type (plain for fixed-width types, main for numeric, extended otherwise).
pub fn storage_letter(ty: SqlType) -> &'static str {
    match ty {
        SqlType::Numeric => "m",
        _ if ty.typlen() > 0 || ty == SqlType::Unknown => "p",
        _ => "x",
    }
}

/// `pg_language`'s one row: `internal`, the language of the built-in
/// functions (validator `fmgr_internal_validator`).
fn internal_language() -> [Datum; 9] {
    [
        Datum::Oid(12),
        Datum::Text("internal".into()),
        Datum::Oid(BOOTSTRAP_SUPERUSER),
        Datum::Bool(false),
        Datum::Bool(false),
        Datum::Oid(0),
        Datum::Oid(0),
        Datum::Oid(2246),
        Datum::Null,
    ]
}

/// The rows of `pg_collation`: the libc collations of a PostgreSQL 15
/// cluster initialised with `--no-locale`, without the ICU ones.
fn insert_collations(engine: &Engine, txn: &mut Transaction, db: Oid) -> Result<()> {
    let collations = [
        (DEFAULT_COLLATION_OID, "default", "d", -1, None),
        (C_COLLATION_OID, "C", "c", -1, Some("C")),
        (951, "POSIX", "c", -1, Some("POSIX")),
        (12340, "ucs_basic", "c", 6, Some("C")),
    ];
    for (oid, name, provider, encoding, locale) in collations {
        let locale = locale.map_or(Datum::Null, |l: &str| Datum::Text(l.into()));
        let row = [
            Datum::Oid(oid),
            Datum::Text(name.into()),
            Datum::Oid(PG_CATALOG_NAMESPACE),
            Datum::Oid(BOOTSTRAP_SUPERUSER),
            Datum::Text(provider.into()),
            Datum::Bool(true),
            Datum::Int4(encoding),
            locale.clone(),
            locale,
            Datum::Null,
            Datum::Null,
        ];
        insert(engine, db, &PG_COLLATION, txn, &row)?;
    }
    Ok(())
}

fn catalog_class_row(def: &CatalogDef) -> Vec<Datum> {
    let locator = catalog_locator(def, 0);
    ClassRow {
        oid: def.oid,
        name: def.name,
        namespace: PG_CATALOG_NAMESPACE,
        relfilenode: def.oid,
        tablespace: locator.spc_oid,
        shared: def.shared,
        kind: RelKind::Table,
        natts: def.columns.len() as i16,
        options: None,
        frozen: FrozenBounds::default(),
    }
    .values()
}

/// `relfrozenxid` and `relminmxid` of a relation: no xid (multixact) older
/// than these appears in it. sluice never freezes (its xids are 64 bits
/// and do not wrap), so the bounds taken when the relation is created stay
/// true for its life: the oldest xid a running transaction may hold
/// (another may write the new relation once it is committed) and the
/// oldest multixact whose members can still be read (a cached one may be
/// reused). Relations without rows (views, indexes) have 0, as in
/// PostgreSQL; so do the catalogs, made before any transaction.
#[derive(Clone, Copy, Debug, Default)]
pub struct FrozenBounds {
    /// `relfrozenxid`.
    pub xid: u64,
    /// `relminmxid`.
    pub multi: u64,
}

impl FrozenBounds {
    /// The bounds for a relation created now.
    pub fn now(engine: &Engine) -> Result<FrozenBounds> {
        let txns = engine.txns();
        Ok(FrozenBounds { xid: txns.horizon().xmin.0, multi: txns.multixacts()?.oldest().0 })
    }
}

/// What a `pg_class` row records about a relation.
pub struct ClassRow<'a> {
    /// `oid`.
    pub oid: Oid,
    /// `relname`.
    pub name: &'a str,
    /// `relnamespace`.
    pub namespace: Oid,
    /// `relfilenode`.
    pub relfilenode: Oid,
    /// The tablespace (stored as 0 when it is the database's default).
    pub tablespace: Oid,
    /// `relisshared`.
    pub shared: bool,
    /// `relkind`.
    pub kind: RelKind,
    /// `relnatts`.
    pub natts: i16,
    /// `reloptions`, as PostgreSQL prints them.
    pub options: Option<String>,
    /// `relfrozenxid` and `relminmxid` (used for relations with rows).
    pub frozen: FrozenBounds,
}

impl ClassRow<'_> {
    /// values -- the row, in `pg_class`'s column order.
    pub fn values(&self) -> Vec<Datum> {
        // Sequences have no access method, as in PostgreSQL.
        let am = match self.kind {
            RelKind::Table | RelKind::MatView => HEAP_AM_OID,
            RelKind::Index => BTREE_AM_OID,
            RelKind::Sequence | RelKind::View => 0,
        };
        let has_rows = self.kind.has_heap() || self.kind == RelKind::Sequence;
        let tablespace = if self.tablespace == sluice_common::DEFAULTTABLESPACE_OID {
            0
        } else {
            self.tablespace
        };
        vec![
            Datum::Oid(self.oid),
            Datum::Text(self.name.into()),
            Datum::Oid(self.namespace),
            Datum::Oid(0),
            Datum::Oid(BOOTSTRAP_SUPERUSER),
            Datum::Oid(am),
            Datum::Oid(self.relfilenode),
            Datum::Oid(tablespace),
            Datum::Int4(0),
            Datum::Float4(-1.0),
            Datum::Int4(0),
            Datum::Bool(false),
            Datum::Bool(self.shared),
            Datum::Text("p".into()),
            Datum::Text(self.kind.letter().into()),
            Datum::Int2(self.natts),
            super::relation::reloptions_datum(self.options.as_deref()),
            Datum::Oid(0),
            Datum::Oid(0),
            Datum::Int2(0),
            // relhasrules: a view's `_RETURN` rule.
            Datum::Bool(matches!(self.kind, RelKind::View | RelKind::MatView)),
            Datum::Bool(false),
            Datum::Bool(false),
            Datum::Bool(false),
            Datum::Bool(false),
            Datum::Bool(true),
            // Replica identity: "default" for tables and materialized
            // views, "nothing" for the rest.
            Datum::Text(if self.kind.has_heap() { "d" } else { "n" }.into()),
            Datum::Bool(false),
            Datum::Null,
            Datum::Xid(if has_rows { self.frozen.xid } else { 0 }),
            Datum::Xid(if has_rows { self.frozen.multi } else { 0 }),
            Datum::Null,
        ]
    }
}

/// A `pg_attribute` row.
pub fn attribute_row(
    relid: Oid,
    name: &str,
    ty: SqlType,
    typmod: i32,
    attnum: i16,
    not_null: bool,
    has_default: bool,
) -> Vec<Datum> {
    vec![
        Datum::Oid(relid),
        Datum::Text(name.into()),
        Datum::Oid(ty.oid()),
        Datum::Int2(ty.typlen()),
        Datum::Int2(attnum),
        Datum::Int4(typmod),
        Datum::Bool(not_null),
        Datum::Bool(has_default),
        Datum::Bool(false),
        Datum::Text(String::new()),
        Datum::Text(String::new()),
        Datum::Oid(type_collation(ty.element().unwrap_or(ty))),
        Datum::Text(storage_letter(ty).into()),
        Datum::Text(String::new()),
        Datum::Bool(false),
        Datum::Null,
        Datum::Int4(-1),
        Datum::Text(align_letter(ty).into()),
        Datum::Bool(true),
        Datum::Int4(0),
        Datum::Null,
        Datum::Null,
        Datum::Null,
    ]
}
