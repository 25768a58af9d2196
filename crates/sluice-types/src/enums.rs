//! Enum types: `CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')`
//! (PostgreSQL's `utils/adt/enum.c`).
//!
//! An enum type is a `pg_type` row plus one `pg_enum` row per label, each
//! with its own OID and a `float4` sort order. A stored value is the label's
//! OID, four bytes, exactly as PostgreSQL stores it: renaming a label
//! rewrites no table, and values compare by the label's sort order, not by
//! its text or its OID. `ALTER TYPE ... ADD VALUE BEFORE/AFTER` gives a new
//! label a sort order between its neighbours' and never changes an existing
//! one, so a value's order never changes while the type lives.
//!
//! The catalogs belong to the SQL layer, so this crate receives an enum type
//! as a descriptor read from them ([`EnumDesc`]), interned like row types
//! ([`crate::record`]): [`EnumType`] is a `'static` reference, `SqlType`
//! stays `Copy`, and each value ([`EnumValue`]) carries its type, so printing
//! and comparing it need no catalog. A descriptor is a snapshot of the
//! catalogs: after ADD VALUE the SQL layer builds another one, and values
//! made under the old one keep comparing correctly, because a label's OID
//! and sort order are the same in both. Interned descriptors are never
//! freed; there is one per state of a type a statement has seen.

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};

use crate::error::{ErrorKind, Result, TypeError};
use crate::intern::Interner;

/// One label of an enum type (one `pg_enum` row).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EnumLabel {
    /// The row's OID: what a stored value holds.
    pub oid: u32,
    /// `enumsortorder`.
    pub sort_order: SortOrder,
    /// `enumlabel`.
    pub label: String,
    /// Added by ALTER TYPE ... ADD VALUE in the reader's own transaction,
    /// which has not committed: unsafe to use yet (see [`parse`]).
    pub uncommitted: bool,
}

/// A label's `enumsortorder` (`float4`), ordered and hashed by its bits so
/// descriptors can be interned. Sort orders are never NaN.
#[derive(Clone, Copy, Debug)]
pub struct SortOrder(pub f32);

impl PartialEq for SortOrder {
    fn eq(&self, other: &SortOrder) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for SortOrder {}

impl Hash for SortOrder {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.to_bits().hash(state);
    }
}

impl PartialOrd for SortOrder {
    fn partial_cmp(&self, other: &SortOrder) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SortOrder {
    fn cmp(&self, other: &SortOrder) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// An enum type as the catalogs describe it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EnumDesc {
    /// The type's OID.
    pub oid: u32,
    /// Its array type's OID (`typarray`).
    pub array_oid: u32,
    /// `typname`.
    pub typname: String,
    /// How `format_type` spells it: the name, quoted if it needs to be and
    /// qualified if its schema is not on the search path.
    pub sql_name: String,
    /// The labels, in sort order.
    pub labels: Vec<EnumLabel>,
}

/// An interned [`EnumDesc`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EnumType(&'static EnumDesc);

impl std::fmt::Debug for EnumType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Enum({})", self.0.typname)
    }
}

/// The interned descriptors.
static REGISTRY: Interner<EnumDesc> = Interner::new();

impl EnumType {
    /// intern -- the enum type for `desc`, registered on first use. The
    /// labels are sorted here, so callers may pass them in any order.
    pub fn intern(mut desc: EnumDesc) -> EnumType {
        desc.labels.sort_by_key(|l| l.sort_order);
        EnumType(REGISTRY.intern(desc))
    }

    /// The descriptor.
    pub fn desc(self) -> &'static EnumDesc {
        self.0
    }

    /// The value whose label is `label`, if the type has one.
    pub fn value_of(self, label: &str) -> Option<EnumValue> {
        let found = self.0.labels.iter().find(|l| l.label == label)?;
        Some(EnumValue { ty: self, label: found.oid })
    }

    /// The value stored as label OID `oid`, if the type has it.
    pub fn value_by_oid(self, oid: u32) -> Option<EnumValue> {
        let found = self.0.labels.iter().any(|l| l.oid == oid);
        found.then_some(EnumValue { ty: self, label: oid })
    }

    /// Every value of the type, in order (what `enum_range` returns).
    pub fn values(self) -> impl Iterator<Item = EnumValue> {
        self.0.labels.iter().map(move |l| EnumValue { ty: self, label: l.oid })
    }

    fn label(self, oid: u32) -> Option<&'static EnumLabel> {
        self.0.labels.iter().find(|l| l.oid == oid)
    }
}

/// One enum value: a label of a type.
#[derive(Clone, Copy, Debug)]
pub struct EnumValue {
    /// The value's type (the descriptor it was read under).
    pub ty: EnumType,
    /// The label's OID (`pg_enum.oid`).
    pub label: u32,
}

impl EnumValue {
    /// The label's text.
    pub fn text(self) -> &'static str {
        self.ty.label(self.label).map_or("", |l| l.label.as_str())
    }

    /// The label's sort order.
    fn sort_order(self) -> SortOrder {
        self.ty.label(self.label).map_or(SortOrder(f32::NAN), |l| l.sort_order)
    }

    /// `enum_cmp`: by sort order (equal labels are the same OID).
    pub fn order(self, other: EnumValue) -> Ordering {
        if self.label == other.label {
            return Ordering::Equal;
        }
        self.sort_order().cmp(&other.sort_order())
    }
}

/// enum_in -- the value of `ty` labelled `input`, or 22P02; 55P04 for a
/// label its own transaction added and has not committed.
pub fn parse(ty: EnumType, input: &str) -> Result<EnumValue> {
    let value = ty.value_of(input).ok_or_else(|| {
        TypeError::new(
            ErrorKind::InvalidTextRepresentation,
            format!("invalid input value for enum {}: \"{input}\"", ty.0.sql_name),
        )
    })?;
    check_safe(value)?;
    Ok(value)
}

/// check_safe -- 55P04 if `value`'s label was added by the running
/// transaction to a type that existed before it (PostgreSQL's
/// check_safe_enum_use): were the value stored in an index and the
/// transaction rolled back, the index would keep a label that no longer
/// exists.
pub fn check_safe(value: EnumValue) -> Result<()> {
    match value.ty.label(value.label) {
        Some(label) if label.uncommitted => Err(TypeError::new(
            ErrorKind::UnsafeNewEnumValueUsage,
            format!(
                "unsafe use of new value \"{}\" of enum type {}",
                label.label, value.ty.0.sql_name
            ),
        )
        .with_hint("New enum values must be committed before they can be used.")),
        _ => Ok(()),
    }
}

/// The value stored as `oid` (on disk or in a temporary file), or 22P03
/// when the type has no such label (`enum_out`'s "invalid internal value").
pub fn from_stored(ty: EnumType, oid: u32) -> Result<EnumValue> {
    ty.value_by_oid(oid).ok_or_else(|| {
        TypeError::new(
            ErrorKind::InvalidBinaryRepresentation,
            format!("invalid internal value for enum: {oid}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mood() -> EnumType {
        let label = |oid, sort, text: &str| EnumLabel {
            oid,
            sort_order: SortOrder(sort),
            label: text.to_string(),
            uncommitted: false,
        };
        EnumType::intern(EnumDesc {
            oid: 90_000,
            array_oid: 90_001,
            typname: "mood".into(),
            sql_name: "mood".into(),
            // Out of order on purpose: intern sorts, and OID order is not
            // label order (a value added BEFORE has a higher OID).
            labels: vec![
                label(90_004, 1.5, "meh"),
                label(90_002, 1.0, "sad"),
                label(90_003, 2.0, "happy"),
            ],
        })
    }

    #[test]
    fn values_compare_by_sort_order_not_oid() {
        let ty = mood();
        let [sad, meh, happy] = ["sad", "meh", "happy"].map(|l| parse(ty, l).unwrap());
        assert_eq!(sad.order(meh), Ordering::Less);
        assert_eq!(meh.order(happy), Ordering::Less);
        assert_eq!(happy.order(happy), Ordering::Equal);
        let order: Vec<_> = ty.values().map(EnumValue::text).collect();
        assert_eq!(order, ["sad", "meh", "happy"]);
    }

    #[test]
    fn interning_gives_the_same_type_for_the_same_catalog_state() {
        assert_eq!(mood(), mood());
    }

    #[test]
    fn unknown_labels_and_oids_are_errors() {
        let ty = mood();
        let err = parse(ty, "angry").unwrap_err();
        assert_eq!(err.to_string(), "invalid input value for enum mood: \"angry\"");
        assert!(from_stored(ty, 1).is_err());
        assert_eq!(from_stored(ty, 90_003).unwrap().text(), "happy");
    }
}
