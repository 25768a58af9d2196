//! Domains: `CREATE DOMAIN posint AS integer CHECK (VALUE > 0)`
//! (PostgreSQL's `commands/typecmds.c` DefineDomain and `utils/adt/domains.c`).
//!
//! A domain is its base type with constraints: NOT NULL, CHECK expressions
//! over `VALUE`, and a default. Its values *are* base-type values — stored,
//! sent, compared and printed as the base type does, and a domain's
//! `RowDescription` column is the base type, as PostgreSQL sends it — so
//! this crate only needs to know which base type, typmod and constraints a
//! domain has; every physical fact of [`crate::SqlType::Domain`] is its
//! base type's. The constraints are checked where a value *becomes* of the
//! domain (a cast, a store into a column: the SQL layer's CoerceToDomain),
//! which needs expression evaluation, so they travel here as the SQL text
//! the catalogs keep.
//!
//! Descriptors are interned like enum types ([`crate::enums`]): one per
//! state of a domain that a statement has seen, never freed.

use crate::intern::Interner;
use crate::types::SqlType;

/// A CHECK constraint of a domain.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DomainCheck {
    /// The constraint's name.
    pub name: String,
    /// Its expression over `VALUE`, as `pg_constraint.conbin` keeps it.
    pub expr: String,
}

/// A domain as the catalogs describe it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DomainDesc {
    /// The domain's OID.
    pub oid: u32,
    /// Its array type's OID (`typarray`).
    pub array_oid: u32,
    /// `typname`.
    pub typname: String,
    /// How `format_type` spells it.
    pub sql_name: String,
    /// The base type (`typbasetype`), itself never a domain here: a domain
    /// over a domain is described with the inner one's constraints added.
    pub base: SqlType,
    /// The base type's modifier (`typtypmod`).
    pub typmod: i32,
    /// `typnotnull`.
    pub not_null: bool,
    /// `typdefault`: the default of columns of the domain that have none.
    pub default: Option<String>,
    /// CHECK constraints, in the order they are tested (by name).
    pub checks: Vec<DomainCheck>,
}

/// An interned [`DomainDesc`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DomainType(&'static DomainDesc);

impl std::fmt::Debug for DomainType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Domain({})", self.0.typname)
    }
}

/// The interned descriptors.
static REGISTRY: Interner<DomainDesc> = Interner::new();

impl DomainType {
    /// intern -- the domain type for `desc`, registered on first use.
    pub fn intern(desc: DomainDesc) -> DomainType {
        DomainType(REGISTRY.intern(desc))
    }

    /// The descriptor.
    pub fn desc(self) -> &'static DomainDesc {
        self.0
    }

    /// The base type.
    pub fn base(self) -> SqlType {
        self.0.base
    }
}
