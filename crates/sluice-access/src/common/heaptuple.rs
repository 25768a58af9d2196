//! Forming and deforming heap tuples: values in, bytes out, and back
//! (PostgreSQL's `access/common/heaptuple.c`, with the varlena encoding of
//! `varatt.h`).
//!
//! # Values
//!
//! A row is passed as one `Option<&[u8]>` per column: `None` is NULL, and `Some`
//! holds the value's binary form. For a fixed-length column that is exactly
//! `attlen` bytes (the type's little-endian form; what the bytes mean is the type's
//! business, not this module's). For a varlena column it is the payload alone —
//! the length word is the tuple format's business and is added here.
//!
//! # Data layout
//!
//! After the header and null bitmap (see [`super::htup`]) come the non-NULL
//! attributes in column order, each aligned to its type's `attalign` — counted
//! from the start of the tuple, which the page keeps MAXALIGNed, so an aligned
//! offset is an aligned address. NULLs take no space at all. The seed-001 row
//! `(id bigint, name text, memo text)` = `(123456, 'name-123456', 'x' × 100)`:
//!
//! ```text
//!  0        31 32       40            52                       153
//!  | header |p| id (8) |n| name (11)  |m| memo (100)            |
//!             ^ pad     ^ 1-byte varlena headers, not aligned
//! ```
//!
//! 153 bytes, MAXALIGNed to 160 on the page: PostgreSQL stores the same row in
//! 145 → 152, the difference being sluice's 64-bit xmin and xmax.
//!
//! # Varlena headers
//!
//! A varlena's length word comes in two forms, little-endian as in PostgreSQL:
//!
//! * **short** (1 byte): `(total << 1) | 1`, where `total` counts the header byte
//!   too. Used whenever the total is at most 127 bytes (payload ≤ 126), and **not
//!   aligned** — the saving that keeps small strings cheap. A 4-byte header would
//!   cost three more bytes plus up to three of padding for every short `text`.
//! * **4-byte**: `total << 2` (low two bits 00: inline and uncompressed), written
//!   at an `attalign`-aligned offset, for anything longer.
//!
//! Deforming must find out which form it faces *before* knowing whether to skip
//! padding, and PostgreSQL's answer (`att_align_pointer`) works here too: padding
//! bytes are always zero, and a 4-byte header at an aligned offset has low bit 0,
//! so if the byte at the current offset has its low bit set it is a short header,
//! read in place; otherwise the value has a 4-byte header, after alignment. That
//! is why [`form_tuple`] zero-fills, and why deforming rejects nonzero padding.
//!
//! Not yet implemented: TOAST. There is no compression (PostgreSQL's `10` low
//! bits) and no out-of-line storage (a short header of exactly `0x01`); rows
//! bigger than [`MAX_HEAP_TUPLE_SIZE`] are refused by [`check_tuple_size`] with
//! PostgreSQL's "row is too big" error, and deforming reports either form as
//! corruption.
//!
//! # Trust
//!
//! [`form_tuple`] trusts its caller (values match the descriptor) and panics on a
//! mismatch, which is a bug in sluice. [`deform_tuple`] trusts nothing: the bytes
//! come from disk, and every length and offset is checked before use, so a damaged
//! page yields [`TupleError::Corrupt`], never a panic or an out-of-bounds read.

use super::error::{corrupt, Result, TupleError};
use super::htup::{
    bitmap_len, compute_hoff, HeapTupleHeader, HEAP_HASNULL, HEAP_HASVARWIDTH,
    MAX_HEAP_ATTRIBUTE_NUMBER, MAX_HEAP_TUPLE_SIZE, SIZEOF_HEAP_TUPLE_HEADER,
};
use super::tupdesc::{AttrDesc, TupleDesc};
use sluice_common::maxalign;

/// Size of a 4-byte varlena header (PostgreSQL's VARHDRSZ).
const VARHDRSZ: usize = 4;
/// Size of a 1-byte varlena header (VARHDRSZ_SHORT).
const VARHDRSZ_SHORT: usize = 1;
/// Largest total size, header included, a short varlena can express.
const VARATT_SHORT_MAX: usize = 0x7F;
/// Largest total size a 4-byte header can express (PostgreSQL's 1 GB limit).
const VARLENA_MAX: usize = 0x3FFF_FFFF;

/// Rounds `off` up to a multiple of `align` (a power of two).
fn att_align(off: usize, align: u8) -> usize {
    let mask = align as usize - 1;
    (off + mask) & !mask
}

/// Whether a varlena payload of `len` bytes gets a 1-byte header.
fn fits_short(len: usize) -> bool {
    len + VARHDRSZ_SHORT <= VARATT_SHORT_MAX
}

/// place -- where a non-NULL value goes if the previous one ended at `off`:
/// its start (after any alignment) and the bytes it occupies, header included.
///
/// Panics if the value does not match the attribute (see [`form_tuple`]).
fn place(attr: &AttrDesc, value: &[u8], off: usize) -> (usize, usize) {
    if !attr.is_varlena() {
        assert_eq!(value.len(), attr.attlen as usize, "value width differs from attlen");
        return (att_align(off, attr.attalign), value.len());
    }
    if fits_short(value.len()) {
        (off, VARHDRSZ_SHORT + value.len())
    } else {
        assert!(value.len() + VARHDRSZ <= VARLENA_MAX, "varlena value exceeds 1 GB");
        (att_align(off, attr.attalign), VARHDRSZ + value.len())
    }
}

/// Panics unless there is one value per column and the count fits a tuple.
fn check_arity(desc: &TupleDesc, values: &[Option<&[u8]>]) {
    assert_eq!(values.len(), desc.natts(), "one value per attribute required");
    assert!(desc.natts() <= MAX_HEAP_ATTRIBUTE_NUMBER, "too many attributes for a heap tuple");
}

/// compute_tuple_size -- bytes a tuple of `values` occupies: header, null bitmap
/// and data, before the MAXALIGN the page applies (PostgreSQL's `t_len`).
///
/// Panics if `values` does not match `desc` (see [`form_tuple`]).
pub fn compute_tuple_size(desc: &TupleDesc, values: &[Option<&[u8]>]) -> usize {
    check_arity(desc, values);
    let has_nulls = values.iter().any(Option::is_none);
    data_end(desc, values, compute_hoff(desc.natts(), has_nulls))
}

/// data_end -- where a data area holding `values` ends if it starts at `start`
/// (offsets count from the start of the tuple, whose alignment they assume).
/// Shared with index tuples, which lay out their data the same way.
pub(crate) fn data_end(desc: &TupleDesc, values: &[Option<&[u8]>], start: usize) -> usize {
    let mut off = start;
    for (attr, value) in desc.attrs.iter().zip(values) {
        if let Some(value) = value {
            let (start, len) = place(attr, value, off);
            off = start + len;
        }
    }
    off
}

/// form_tuple -- builds a heap tuple holding `values` (PostgreSQL's
/// `heap_form_tuple`).
///
/// The header is zero except the attribute count, `t_hoff` and the
/// `HEAP_HASNULL` / `HEAP_HASVARWIDTH` bits: the heap access method sets xmin,
/// ctid and the rest when it places the tuple. The result is unpadded
/// ([`compute_tuple_size`] bytes); padding between attributes is zero.
///
/// Panics (a caller bug) if `values.len()` differs from `desc.natts()`, if a
/// fixed-length value is not exactly `attlen` bytes, if a varlena exceeds 1 GB or
/// if there are more than [`MAX_HEAP_ATTRIBUTE_NUMBER`] columns.
pub fn form_tuple(desc: &TupleDesc, values: &[Option<&[u8]>]) -> Vec<u8> {
    let mut tuple = vec![0u8; compute_tuple_size(desc, values)];
    let has_nulls = values.iter().any(Option::is_none);
    let hoff = compute_hoff(desc.natts(), has_nulls);
    let mut infomask = if has_nulls { HEAP_HASNULL } else { 0 };
    let bitmap = has_nulls.then_some(SIZEOF_HEAP_TUPLE_HEADER);
    if fill_data(&mut tuple, desc, values, bitmap, hoff) {
        infomask |= HEAP_HASVARWIDTH;
    }
    let mut header = HeapTupleHeader::new(&mut tuple[..]).expect("tuple holds its header");
    header.set_natts(desc.natts());
    header.set_infomask(infomask);
    header.set_hoff(hoff as u8);
    tuple
}

/// fill_data -- writes the non-NULL `values` into the zeroed, correctly sized
/// `tuple` from offset `start` on, setting their bits in the null bitmap at
/// `bitmap` if there is one. Returns whether any value is a varlena (the
/// HASVARWIDTH flags of heap and index tuples).
pub(crate) fn fill_data(
    tuple: &mut [u8],
    desc: &TupleDesc,
    values: &[Option<&[u8]>],
    bitmap: Option<usize>,
    start: usize,
) -> bool {
    let mut varwidth = false;
    let mut off = start;
    for (i, (attr, value)) in desc.attrs.iter().zip(values).enumerate() {
        let Some(value) = value else { continue };
        if let Some(bitmap) = bitmap {
            tuple[bitmap + i / 8] |= 1 << (i % 8);
        }
        varwidth |= attr.is_varlena();
        off = write_attr(tuple, attr, value, off);
    }
    debug_assert!(off <= tuple.len(), "data_end and fill_data disagree");
    varwidth
}

/// data_values -- the first `natts` values of a data area starting at
/// `start`, with the null bitmap `bitmap` (if any): the reading half of
/// [`fill_data`], for index tuples. One at a time, so a caller that stops at
/// the first value that decides (a B-tree comparison) neither reads the rest
/// nor allocates.
pub(crate) fn data_values<'a, 'd>(
    desc: &'d TupleDesc,
    tuple: &'a [u8],
    bitmap: Option<&'a [u8]>,
    start: usize,
    natts: usize,
) -> impl Iterator<Item = Result<Option<&'a [u8]>>> + 'd
where
    'a: 'd,
{
    let natts = natts.min(desc.natts());
    let mut reader = AttrReader { tuple, bitmap, natts, off: start, missing: &[] };
    desc.attrs[..natts].iter().enumerate().map(move |(i, attr)| reader.next(i, attr))
}

/// write_attr -- stores one non-NULL value at or after `off` (varlena header
/// included) and returns where the next attribute may start. `tuple` is zeroed
/// and sized by [`compute_tuple_size`], so padding is already in place.
fn write_attr(tuple: &mut [u8], attr: &AttrDesc, value: &[u8], off: usize) -> usize {
    let (start, len) = place(attr, value, off);
    let header_len = len - value.len();
    match header_len {
        0 => {}
        VARHDRSZ_SHORT => tuple[start] = ((len as u8) << 1) | 1,
        _ => tuple[start..start + VARHDRSZ].copy_from_slice(&((len as u32) << 2).to_le_bytes()),
    }
    tuple[start + header_len..start + len].copy_from_slice(value);
    start + len
}

/// deform_tuple -- splits a tuple into its values (PostgreSQL's
/// `heap_deform_tuple`): one entry per column of `desc`, `None` for NULL,
/// the descriptor's missing value (or `None`) for columns the tuple
/// predates, varlena payloads without their headers. The
/// slices borrow from `tuple`; nothing is copied.
///
/// `tuple` is the tuple's bytes as stored (trailing page padding is allowed).
/// Returns [`TupleError::Corrupt`] if the bytes are inconsistent.
pub fn deform_tuple<'a>(desc: &'a TupleDesc, tuple: &'a [u8]) -> Result<Vec<Option<&'a [u8]>>> {
    let mut values = Vec::with_capacity(desc.natts());
    for_each_attr(desc, tuple, desc.natts(), |_, v| {
        values.push(v);
        Ok::<_, TupleError>(())
    })?;
    Ok(values)
}

/// for_each_attr -- hands the values of the first `upto` columns to `visit`
/// in order, `None` for NULL, without collecting them: a scan that needs
/// only leading columns stops walking the tuple after the last of them
/// (PostgreSQL's `slot_getsomeattrs`). `upto` beyond the descriptor is cut
/// to it.
pub fn for_each_attr<'a, E: From<TupleError>>(
    desc: &'a TupleDesc,
    tuple: &'a [u8],
    upto: usize,
    mut visit: impl FnMut(usize, Option<&'a [u8]>) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    let mut reader = AttrReader::new(desc, tuple)?;
    for (i, attr) in desc.attrs.iter().enumerate().take(upto) {
        visit(i, reader.next(i, attr)?)?;
    }
    Ok(())
}

/// get_attr -- the value of 0-based column `i` alone (PostgreSQL's
/// `heap_getattr`, attnum `i + 1`), `None` if NULL.
///
/// Walks the attributes before `i`, since varlenas and NULLs make offsets
/// row-dependent; PostgreSQL caches fixed offsets (`attcacheoff`), which sluice
/// does not do yet. Panics if `i` is not a column of `desc`.
pub fn get_attr<'a>(desc: &'a TupleDesc, tuple: &'a [u8], i: usize) -> Result<Option<&'a [u8]>> {
    assert!(i < desc.natts(), "attribute {i} out of range");
    let mut reader = AttrReader::new(desc, tuple)?;
    for (j, attr) in desc.attrs[..i].iter().enumerate() {
        reader.next(j, attr)?;
    }
    reader.next(i, &desc.attrs[i])
}

/// check_tuple_size -- refuses a tuple of `len` bytes that, MAXALIGNed, would not
/// fit on an empty heap page, with PostgreSQL's message (SQLSTATE 54000).
pub fn check_tuple_size(len: usize) -> Result<()> {
    let size = maxalign(len);
    if size > MAX_HEAP_TUPLE_SIZE {
        return Err(TupleError::TooBig { size, max: MAX_HEAP_TUPLE_SIZE });
    }
    Ok(())
}

/// A cursor over a tuple's data area, validated header first. Reading attribute
/// `i` requires having read attributes `0..i`, since each starts where the
/// previous ended.
struct AttrReader<'a> {
    /// The whole tuple.
    tuple: &'a [u8],
    /// The null bitmap, if the tuple has one (length checked against `natts`).
    bitmap: Option<&'a [u8]>,
    /// Attributes stored in the tuple; later columns read as their
    /// `missing` value, NULL if they have none.
    natts: usize,
    /// Where the previous non-NULL attribute ended.
    off: usize,
    /// The descriptor's values for columns the tuple predates.
    missing: &'a [Option<Vec<u8>>],
}

impl<'a> AttrReader<'a> {
    /// Checks the header against the tuple length and positions at `t_hoff`.
    fn new(desc: &'a TupleDesc, tuple: &'a [u8]) -> Result<AttrReader<'a>> {
        let header = HeapTupleHeader::new(tuple)?;
        let (natts, hoff) = (header.natts(), header.hoff());
        let expected = compute_hoff(natts, header.has_nulls());
        if hoff != expected {
            return Err(corrupt!("t_hoff {hoff} should be {expected} for {natts} attributes"));
        }
        if hoff > tuple.len() {
            return Err(corrupt!("t_hoff {hoff} beyond tuple length {}", tuple.len()));
        }
        let bitmap = header.has_nulls().then(|| {
            &tuple[SIZEOF_HEAP_TUPLE_HEADER..SIZEOF_HEAP_TUPLE_HEADER + bitmap_len(natts)]
        });
        // PostgreSQL reads min(natts, desc natts) too: extra stored attributes
        // are not the reader's concern.
        let natts = natts.min(desc.natts());
        Ok(AttrReader { tuple, bitmap, natts, off: hoff, missing: &desc.missing })
    }

    /// Whether attribute `i` has no value in this tuple.
    fn is_null(&self, i: usize) -> bool {
        i >= self.natts || self.bitmap.is_some_and(|bits| bits[i / 8] & (1 << (i % 8)) == 0)
    }

    /// next -- reads attribute `i` (described by `attr`) and advances past it.
    fn next(&mut self, i: usize, attr: &AttrDesc) -> Result<Option<&'a [u8]>> {
        if i >= self.natts {
            return Ok(self.missing.get(i).and_then(|m| m.as_deref()));
        }
        if self.is_null(i) {
            return Ok(None);
        }
        let (start, end) = if attr.is_varlena() {
            self.varlena_bounds(i, attr)?
        } else {
            let start = self.align(i, attr.attalign)?;
            (start, start + attr.attlen as usize)
        };
        let value = self.tuple.get(start..end).ok_or_else(|| {
            corrupt!("attribute {i} spans {start}..{end}, past tuple end {}", self.tuple.len())
        })?;
        self.off = end;
        Ok(Some(value))
    }

    /// varlena_bounds -- the payload range of varlena attribute `i`, decoding its
    /// header in whichever form it has (see the module docs for the rule).
    fn varlena_bounds(&self, i: usize, attr: &AttrDesc) -> Result<(usize, usize)> {
        let first = *self.tuple.get(self.off).ok_or_else(|| self.past_end(i))?;
        if first & 1 == 1 {
            if first == 1 {
                return Err(corrupt!("attribute {i} is an external TOAST pointer (unsupported)"));
            }
            let total = (first >> 1) as usize;
            return Ok((self.off + VARHDRSZ_SHORT, self.off + total));
        }
        let start = self.align(i, attr.attalign)?;
        let word = self.tuple.get(start..start + VARHDRSZ).ok_or_else(|| self.past_end(i))?;
        let word = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
        if word & 3 != 0 {
            return Err(corrupt!("attribute {i} is a compressed varlena (unsupported)"));
        }
        let total = (word >> 2) as usize;
        if total < VARHDRSZ {
            return Err(corrupt!("attribute {i} has varlena length {total}"));
        }
        Ok((start + VARHDRSZ, start + total))
    }

    /// Aligns the cursor for attribute `i`, checking the skipped padding exists
    /// and is zero (nonzero padding would make the varlena rule ambiguous).
    fn align(&self, i: usize, align: u8) -> Result<usize> {
        let start = att_align(self.off, align);
        let pad = self.tuple.get(self.off..start).ok_or_else(|| self.past_end(i))?;
        if pad.iter().any(|&b| b != 0) {
            return Err(corrupt!("nonzero padding before attribute {i} at offset {}", self.off));
        }
        Ok(start)
    }

    /// The error for attribute `i` starting beyond the tuple's bytes.
    fn past_end(&self, i: usize) -> TupleError {
        corrupt!("attribute {i} at offset {} is past tuple end {}", self.off, self.tuple.len())
    }
}

#[cfg(test)]
mod tests;
