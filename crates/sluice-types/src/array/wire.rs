//! Array binary send/receive: PostgreSQL's `array_send`/`array_recv`.
//!
//! The wire format, all integers big-endian:
//!
//! ```text
//! int4 ndim            0 for an empty array, else 1 (PostgreSQL: up to 6)
//! int4 flags           1 if some element is NULL, else 0
//! oid  element type
//! ndim × (int4 length, int4 lower bound)
//! per element: int4 length (-1 for NULL), then the element's binary form
//! ```
//!
//! Receiving checks what PostgreSQL checks, with its messages: the
//! dimension count and flags, the element type (a mismatch between two
//! built-in types is `42804`), sizes and bounds, and every element length
//! against the bytes left. Each element goes through the element type's
//! own receive function with the column's typmod; an element of a
//! fixed-width type with bytes to spare is PostgreSQL's `improper binary
//! format in array element n`. An array of zero elements is empty whatever
//! its declared dimensions.

use super::{check_bounds, multidimensional, too_many_dimensions, Array, MAXDIM, MAX_ARRAY_SIZE};
use crate::binary;
use crate::datum::Datum;
use crate::error::{ErrorKind, Result, TypeError};
use crate::types::{format_type, ElemType, SqlType};

/// OIDs below this are PostgreSQL's built-in objects (`FirstGenbkiObjectId`),
/// stable enough that an element type mismatch is worth reporting.
const FIRST_GENBKI_OBJECT_ID: u32 = 10000;

/// send -- the binary wire form of an array.
pub fn send(a: &Array) -> Vec<u8> {
    let mut out = Vec::with_capacity(20 + 8 * a.len());
    out.extend(i32::from(!a.is_empty()).to_be_bytes());
    out.extend(i32::from(a.has_nulls()).to_be_bytes());
    out.extend(a.elem_type().get().oid().to_be_bytes());
    if !a.is_empty() {
        out.extend((a.len() as i32).to_be_bytes());
        out.extend(a.lower_bound().to_be_bytes());
    }
    for e in a.elements() {
        if e.is_null() {
            out.extend((-1i32).to_be_bytes());
        } else {
            let bytes = binary::send_typed(a.elem_type().get(), e);
            out.extend((bytes.len() as i32).to_be_bytes());
            out.extend(bytes);
        }
    }
    out
}

/// recv -- an array of `elem` from its binary wire form; `typmod` applies to
/// every element.
pub fn recv(elem: ElemType, b: &[u8], typmod: i32) -> Result<Array> {
    let mut r = Reader { b, pos: 0 };
    let ndim = r.int4()?;
    if ndim < 0 {
        return Err(TypeError::bad_binary(format!("invalid number of dimensions: {ndim}")));
    }
    if ndim as usize > MAXDIM {
        return Err(too_many_dimensions(i64::from(ndim)));
    }
    let flags = r.int4()?;
    if flags != 0 && flags != 1 {
        return Err(TypeError::bad_binary("invalid array flags"));
    }
    check_element_type(r.int4()? as u32, elem)?;
    let mut dims = Vec::with_capacity(ndim as usize);
    for _ in 0..ndim {
        dims.push((r.int4()?, r.int4()?));
    }
    let nitems = item_count(&dims)?;
    for &(len, lower) in &dims {
        check_bounds(lower, len as usize)?;
    }
    let Some(&(_, lower)) = dims.first().filter(|_| nitems > 0) else {
        return Ok(Array::new(elem, Vec::new()));
    };
    if dims.len() > 1 {
        return Err(multidimensional());
    }
    // Every element takes at least its four-byte length word.
    let mut elems = Vec::with_capacity(nitems.min(b.len() / 4));
    for i in 0..nitems {
        elems.push(r.element(elem, typmod, i)?);
    }
    if r.pos != b.len() {
        return Err(TypeError::bad_binary("incorrect binary data format"));
    }
    Array::with_lower_bound(elem, lower, elems)
}

/// The element type in the data must be the expected one, when both are
/// built-in types (PostgreSQL ignores the field otherwise).
fn check_element_type(found: u32, elem: ElemType) -> Result<()> {
    let expected = elem.get().oid();
    if found == expected || found >= FIRST_GENBKI_OBJECT_ID {
        return Ok(());
    }
    let name = |oid: u32| SqlType::from_oid(oid).map_or("???".to_string(), |t| format_type(t, -1));
    Err(TypeError::new(
        ErrorKind::DatatypeMismatch,
        format!(
            "binary data has array element type {found} ({}) instead of expected {expected} ({})",
            name(found),
            name(expected)
        ),
    ))
}

/// item_count -- PostgreSQL's `ArrayGetNItems`: the product of the
/// dimensions, refusing negative lengths and more than [`MAX_ARRAY_SIZE`].
fn item_count(dims: &[(i32, i32)]) -> Result<usize> {
    let too_big = || {
        TypeError::new(
            ErrorKind::ProgramLimitExceeded,
            format!("array size exceeds the maximum allowed ({MAX_ARRAY_SIZE})"),
        )
    };
    let mut n: usize = 1;
    for &(len, _) in dims {
        let len = usize::try_from(len).map_err(|_| too_big())?;
        n = n.checked_mul(len).filter(|&n| n <= MAX_ARRAY_SIZE).ok_or_else(too_big)?;
    }
    Ok(if dims.is_empty() { 0 } else { n })
}

/// A cursor over a binary array value.
struct Reader<'a> {
    /// The whole value.
    b: &'a [u8],
    /// The next unread byte.
    pos: usize,
}

impl Reader<'_> {
    /// The next `n` bytes, or PostgreSQL's message for a short value.
    fn take(&mut self, n: usize) -> Result<&[u8]> {
        let bytes = self.b.get(self.pos..self.pos.saturating_add(n)).ok_or_else(short)?;
        self.pos += n;
        Ok(bytes)
    }

    /// The next big-endian `int4`.
    fn int4(&mut self) -> Result<i32> {
        let bytes = self.take(4)?;
        Ok(i32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    /// The next length-prefixed element, the `index`th (from 0).
    fn element(&mut self, elem: ElemType, typmod: i32, index: usize) -> Result<Datum> {
        let len = self.int4()?;
        if len == -1 {
            return Ok(Datum::Null);
        }
        let len = usize::try_from(len).map_err(|_| short())?;
        let bytes = self.take(len)?;
        let ty = elem.get();
        // Fixed-width binary forms are the storage width, except name's and
        // enums' (text) and xid's (PostgreSQL's four bytes, see xid.rs).
        let binary_width = if ty == SqlType::Xid { 4 } else { ty.typlen() };
        let text_form = ty == SqlType::Name || matches!(ty, SqlType::Enum(_));
        if let Some(width) = usize::try_from(binary_width).ok().filter(|_| !text_form) {
            if len > width {
                return Err(TypeError::bad_binary(format!(
                    "improper binary format in array element {}",
                    index + 1
                )));
            }
            if len < width {
                return Err(short());
            }
        }
        binary::recv(ty, bytes, typmod)
    }
}

/// `insufficient data left in message`, PostgreSQL's error for lengths that
/// run past the end of the value.
fn short() -> TypeError {
    TypeError::bad_binary("insufficient data left in message")
}
