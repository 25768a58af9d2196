//! Arrays (`int4[]`, `text[]`, ...): PostgreSQL's `utils/adt/arrayfuncs.c`.
//!
//! # Representation
//! A PostgreSQL array value is a header — number of dimensions, element type
//! OID, each dimension's length and lower bound, an optional NULL bitmap —
//! followed by the elements. sluice keeps the same facts in [`Array`]: the
//! element type, the lower bound, and a `Vec<Datum>` in which a NULL element
//! is [`Datum::Null`]. The header exists only at the edges, each in its own
//! file: text (`parse.rs`, `output.rs`), the wire protocol (`wire.rs`) and
//! heap tuples (`encode.rs`).
//!
//! The type side is [`SqlType::Array`] with an [`ElemType`] (see
//! [`crate::types`]): one variant for every array type, because nearly
//! everything an array does is "do the element type's thing per element".
//!
//! # What is and is not supported
//! Arrays here have one dimension. Lower bounds other than 1 are kept
//! (`'[0:2]={a,b,c}'` prints back as written and is not equal to `'{a,b,c}'`,
//! as in PostgreSQL) because they cost one field. Multidimensional input,
//! which PostgreSQL accepts, is refused with `0A000` after it has been
//! checked as PostgreSQL checks it, so malformed input still gets
//! PostgreSQL's `22P02` message and DETAIL.
//!
//! # Invariants
//! * every element is `Datum::Null` or a value of the element type (the
//!   constructors trust their caller, as the `Datum` variants do);
//! * an empty array has lower bound 1 — PostgreSQL's empty array has no
//!   dimensions at all, so all empty arrays of a type are equal;
//! * a non-empty array's bounds fit in an `int4` with room for one more
//!   (PostgreSQL's `ArrayCheckBounds`) and it has at most
//!   [`MAX_ARRAY_SIZE`] elements; [`Array::with_lower_bound`] checks both,
//!   [`Array::new`] expects its caller to stay far below them.

mod encode;
mod output;
mod parse;
mod wire;

use std::cmp::Ordering;

use crate::compare::{cmp_typed, hash_typed, Fnv};
use crate::datum::Datum;
use crate::error::{ErrorKind, Result, TypeError};
use crate::types::{ElemType, SqlType};

pub use encode::{from_storage, to_storage};
pub use output::output;
pub use parse::parse;
pub use wire::{recv, send};

/// Most elements an array may have: PostgreSQL's `MaxArraySize`, the
/// number of `Datum`s that fit in its 1 GB allocation limit.
pub const MAX_ARRAY_SIZE: usize = 0x3fff_ffff / 8;

/// Most dimensions PostgreSQL allows (`MAXDIM`); input with more is refused
/// with its `54000` error before sluice's own one-dimension limit applies.
const MAXDIM: usize = 6;

/// A one-dimensional array value.
#[derive(Clone, Debug)]
pub struct Array {
    /// The type of every non-null element.
    elem: ElemType,
    /// The subscript of the first element (1 unless written otherwise).
    lower: i32,
    /// The elements in subscript order; `Datum::Null` for NULL elements.
    elems: Vec<Datum>,
}

impl Array {
    /// An array of `elems` with lower bound 1. The caller keeps below
    /// [`MAX_ARRAY_SIZE`] elements (arrays built from a query's values do).
    pub fn new(elem: ElemType, elems: Vec<Datum>) -> Array {
        Array { elem, lower: first_subscript(elem), elems }
    }

    /// with_lower_bound -- an array whose first subscript is `lower`, with
    /// PostgreSQL's limits on size and bounds (`54000`).
    pub fn with_lower_bound(elem: ElemType, lower: i32, elems: Vec<Datum>) -> Result<Array> {
        check_bounds(lower, elems.len())?;
        let lower =
            if elems.is_empty() || elem.is_vector() { first_subscript(elem) } else { lower };
        Ok(Array { elem, lower, elems })
    }

    /// The element type.
    pub fn elem_type(&self) -> ElemType {
        self.elem
    }

    /// The array's own type (`_int4` for an array of `int4`).
    pub fn array_type(&self) -> SqlType {
        SqlType::Array(self.elem)
    }

    /// The subscript of the first element (`array_lower(a, 1)`).
    pub fn lower_bound(&self) -> i32 {
        self.lower
    }

    /// The subscript of the last element (`array_upper(a, 1)`); `lower - 1`
    /// for an empty array.
    pub fn upper_bound(&self) -> i32 {
        let upper = i64::from(self.lower) + self.elems.len() as i64 - 1;
        i32::try_from(upper).unwrap_or(i32::MAX)
    }

    /// The number of elements, NULLs included (`cardinality`).
    pub fn len(&self) -> usize {
        self.elems.len()
    }

    /// Whether the array has no elements (`'{}'`).
    pub fn is_empty(&self) -> bool {
        self.elems.is_empty()
    }

    /// Whether some element is NULL.
    pub fn has_nulls(&self) -> bool {
        self.elems.iter().any(Datum::is_null)
    }

    /// The elements in subscript order.
    pub fn elements(&self) -> &[Datum] {
        &self.elems
    }

    /// The elements, consuming the array.
    pub fn into_elements(self) -> Vec<Datum> {
        self.elems
    }

    /// The element at `subscript` (`a[i]`), `None` outside the bounds, where
    /// SQL gives NULL.
    pub fn get(&self, subscript: i32) -> Option<&Datum> {
        let offset = i64::from(subscript) - i64::from(self.lower);
        usize::try_from(offset).ok().and_then(|i| self.elems.get(i))
    }
}

/// The lower bound arrays of `elem` have unless written otherwise: 1, or 0
/// for the vector types, whose bound is always 0.
fn first_subscript(elem: ElemType) -> i32 {
    i32::from(!elem.is_vector())
}

/// check_bounds -- PostgreSQL's `ArrayGetNItems` and `ArrayCheckBounds` for
/// one dimension of `len` elements starting at subscript `lower`.
fn check_bounds(lower: i32, len: usize) -> Result<()> {
    if len > MAX_ARRAY_SIZE {
        return Err(TypeError::new(
            ErrorKind::ProgramLimitExceeded,
            format!("array size exceeds the maximum allowed ({MAX_ARRAY_SIZE})"),
        ));
    }
    // The sum of lower bound and length must fit, so the upper bound plus one does.
    if len > 0 && lower.checked_add(len as i32).is_none() {
        return Err(TypeError::new(
            ErrorKind::ProgramLimitExceeded,
            format!("array lower bound is too large: {lower}"),
        ));
    }
    Ok(())
}

/// `number of array dimensions (n) exceeds the maximum allowed (6)` (54000).
fn too_many_dimensions(ndim: i64) -> TypeError {
    TypeError::new(
        ErrorKind::ProgramLimitExceeded,
        format!("number of array dimensions ({ndim}) exceeds the maximum allowed ({MAXDIM})"),
    )
}

/// The `0A000` for the arrays PostgreSQL has and sluice does not.
pub(crate) fn multidimensional() -> TypeError {
    TypeError::new(ErrorKind::FeatureNotSupported, "multidimensional arrays are not supported")
}

/// cmp -- PostgreSQL's `array_cmp`: element by element in the element type's
/// order (a NULL element after every value, two NULLs equal); if one array
/// is a prefix of the other the shorter sorts first, and equal elements with
/// different lower bounds order by lower bound.
pub fn cmp(a: &Array, b: &Array) -> Ordering {
    let elem = a.elem.get();
    a.elems
        .iter()
        .zip(&b.elems)
        .map(|(x, y)| cmp_typed(elem, x, y))
        .find(|o| o.is_ne())
        .unwrap_or_else(|| a.len().cmp(&b.len()).then(a.lower.cmp(&b.lower)))
}

/// hash_into -- mix an array into `h` consistently with [`cmp`] equality:
/// its bounds and each element hashed as its type compares.
pub fn hash_into(a: &Array, h: &mut Fnv) {
    h.write(&a.lower.to_le_bytes());
    h.write(&(a.len() as u64).to_le_bytes());
    for e in &a.elems {
        h.write(&hash_typed(a.elem.get(), e).to_le_bytes());
    }
}
