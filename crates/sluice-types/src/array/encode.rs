//! The on-disk encoding of arrays inside heap tuples.
//!
//! An array column is a variable-length value: like the other varlena types
//! ([`crate::storage`]) this file produces only the payload, and the heap
//! adds the length header. The layout follows PostgreSQL's `ArrayType`
//! (dimensions, element type, NULL bitmap, elements without per-element
//! headers where the element has a fixed width), little-endian:
//!
//! ```text
//! u8  ndim             0 for an empty array, else 1 (room for more later)
//! u8  flags            1 if a NULL bitmap follows the dimensions
//! u32 element type OID
//! ndim × (i32 length, i32 lower bound)
//! NULL bitmap          ceil(length / 8) bytes, bit i set if element i is
//!                      not NULL (PostgreSQL's sense), low bit first
//! non-NULL elements    fixed-width types: their `typlen` storage bytes;
//!                      others: u32 byte length, then their storage bytes
//! ```
//!
//! So `int4[]` costs 4 bytes per element plus a 14-byte header, as in
//! PostgreSQL (which has a 20-byte header after its varlena length). There
//! is no alignment padding: values are copied out, never read in place.
//!
//! Decoding trusts nothing: every count, length, flag and the element type
//! are checked, and damage is a `data_corrupted` error, not a panic or a
//! wrong value.

use super::{check_bounds, Array};
use crate::datum::Datum;
use crate::error::{ErrorKind, Result, TypeError};
use crate::storage;
use crate::types::ElemType;

/// Flag bit: a NULL bitmap follows the dimensions.
const HAS_NULLS: u8 = 1;

/// to_storage -- the stored payload of an array.
pub fn to_storage(a: &Array) -> Vec<u8> {
    let elem = a.elem_type().get();
    let has_nulls = a.has_nulls();
    let mut out = vec![u8::from(!a.is_empty()), if has_nulls { HAS_NULLS } else { 0 }];
    out.extend(elem.oid().to_le_bytes());
    if a.is_empty() {
        return out;
    }
    out.extend((a.len() as i32).to_le_bytes());
    out.extend(a.lower_bound().to_le_bytes());
    if has_nulls {
        let mut bitmap = vec![0u8; a.len().div_ceil(8)];
        for (i, e) in a.elements().iter().enumerate() {
            if !e.is_null() {
                bitmap[i / 8] |= 1 << (i % 8);
            }
        }
        out.extend(bitmap);
    }
    for e in a.elements().iter().filter(|e| !e.is_null()) {
        let bytes = storage::to_storage(elem, e);
        if elem.typlen() < 0 {
            out.extend((bytes.len() as u32).to_le_bytes());
        }
        out.extend(bytes);
    }
    out
}

/// from_storage -- decode a stored array whose elements are `elem`.
pub fn from_storage(elem: ElemType, bytes: &[u8]) -> Result<Array> {
    let mut r = Reader { b: bytes, pos: 0 };
    let ndim = r.take(1)?[0];
    let flags = r.take(1)?[0];
    let oid = u32::from_le_bytes(r.array()?);
    if ndim > 1 || flags & !HAS_NULLS != 0 || oid != elem.get().oid() {
        return Err(corrupt());
    }
    if ndim == 0 {
        return if flags == 0 && r.at_end() {
            Ok(Array::new(elem, Vec::new()))
        } else {
            Err(corrupt())
        };
    }
    let len = usize::try_from(i32::from_le_bytes(r.array()?)).map_err(|_| corrupt())?;
    let lower = i32::from_le_bytes(r.array()?);
    if len == 0 {
        return Err(corrupt());
    }
    check_bounds(lower, len).map_err(|_| corrupt())?;
    let bitmap = if flags & HAS_NULLS != 0 { Some(r.take(len.div_ceil(8))?) } else { None };
    // Every non-NULL element takes at least one byte, a NULL one bit.
    let mut elems = Vec::with_capacity(len.min(bytes.len()));
    for i in 0..len {
        let present = bitmap.is_none_or(|m| m[i / 8] & (1 << (i % 8)) != 0);
        elems.push(if present { r.element(elem)? } else { Datum::Null });
    }
    if !r.at_end() {
        return Err(corrupt());
    }
    Array::with_lower_bound(elem, lower, elems)
}

/// A cursor over stored bytes.
struct Reader<'a> {
    /// The whole payload.
    b: &'a [u8],
    /// The next unread byte.
    pos: usize,
}

impl<'a> Reader<'a> {
    /// The next `n` bytes.
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let bytes = self.b.get(self.pos..self.pos.saturating_add(n)).ok_or_else(corrupt)?;
        self.pos += n;
        Ok(bytes)
    }

    /// The next `N` bytes as an array, for integer decoding.
    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        self.take(N)?.try_into().map_err(|_| corrupt())
    }

    /// Whether every byte has been read.
    fn at_end(&self) -> bool {
        self.pos == self.b.len()
    }

    /// The next non-NULL element.
    fn element(&mut self, elem: ElemType) -> Result<Datum> {
        let ty = elem.get();
        let len = match usize::try_from(ty.typlen()) {
            Ok(fixed) => fixed,
            Err(_) => u32::from_le_bytes(self.array()?) as usize,
        };
        storage::from_storage(ty, self.take(len)?)
    }
}

/// The error for stored bytes that cannot be an array.
fn corrupt() -> TypeError {
    TypeError::new(ErrorKind::DataCorrupted, "invalid array storage data")
}
