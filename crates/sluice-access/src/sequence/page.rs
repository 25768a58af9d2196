//! The sequence page: one 8 KB page holding one heap tuple (PostgreSQL's
//! `fill_seq_with_data` / `read_seq_tuple` layout).
//!
//! ```text
//!  +-------------+----+------------------------------+---------------------------+
//!  | page header | lp | ... free ...    | seq tuple  | special: magic + params   |
//!  +-------------+----+------------------------------+---------------------------+
//!                 (0,1): last_value int8, log_cnt int8, is_called bool
//! ```
//!
//! The tuple is an ordinary heap tuple with a frozen xmin, so a sequential scan
//! (`SELECT * FROM seq`) sees it under any snapshot; it is fixed-width, so
//! nextval overwrites it in place. The special area carries the magic number
//! PostgreSQL uses (0x1717) and — unlike PostgreSQL 10+, which reads them from
//! `pg_sequence` through its syscache — a copy of the sequence's parameters, so
//! that nextval needs no catalog read. Both copies are written by the same
//! transaction (ALTER SEQUENCE writes a new relfilenode), so they agree.
//!
//! Nothing here locks: callers hold the buffer's content lock.

use super::{SeqData, SeqParams, SeqState};
use crate::common::htup::{HEAP_XMAX_INVALID, HEAP_XMIN_FROZEN};
use crate::common::{form_tuple, AttrDesc, HeapTupleHeader, TupleDesc};
use crate::error::{AccessError, Result};
use sluice_common::{ItemPointer, Xid, BLCKSZ};
use sluice_storage::page::{Page, FIRST_OFFSET};

/// The magic number in the special area (PostgreSQL's SEQ_MAGIC).
pub const SEQ_MAGIC: u32 = 0x1717;

/// Bytes of the special area: magic, type, five int8 parameters, cycle flag.
const SPECIAL_SIZE: usize = 4 + 4 + 5 * 8 + 8;

/// Encoded [`SeqParams`] (the special area after the magic).
const PARAMS_LEN: usize = 4 + 5 * 8 + 1;

/// Encoded [`SeqData`].
const DATA_LEN: usize = 8 + 8 + 1;

/// Bytes of an encoded [`SeqState`] (WAL block data).
pub const STATE_LEN: usize = PARAMS_LEN + DATA_LEN;

/// The sequence tuple's columns: last_value int8, log_cnt int8, is_called bool.
fn tuple_desc() -> TupleDesc {
    let int8 = AttrDesc { attlen: 8, attalign: 8, attbyval: true };
    let bool = AttrDesc { attlen: 1, attalign: 1, attbyval: true };
    TupleDesc::new(vec![int8, int8, bool])
}

fn i64_at(bytes: &[u8], at: usize) -> i64 {
    i64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

fn corrupt(what: &str) -> AccessError {
    AccessError::Corrupt(format!("sequence page: {what}"))
}

impl SeqParams {
    fn encode_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.typid.to_le_bytes());
        for v in [self.start, self.increment, self.max, self.min, self.cache] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.push(u8::from(self.cycle));
    }

    fn decode(b: &[u8]) -> SeqParams {
        SeqParams {
            typid: u32::from_le_bytes(b[0..4].try_into().expect("4 bytes")),
            start: i64_at(b, 4),
            increment: i64_at(b, 12),
            max: i64_at(b, 20),
            min: i64_at(b, 28),
            cache: i64_at(b, 36),
            cycle: b[44] != 0,
        }
    }
}

impl SeqData {
    /// The tuple's three values in their storage encoding.
    fn tuple(&self) -> Vec<u8> {
        let (last, log, called) =
            (self.last_value.to_le_bytes(), self.log_cnt.to_le_bytes(), [u8::from(self.is_called)]);
        let mut tuple = form_tuple(&tuple_desc(), &[Some(&last), Some(&log), Some(&called)]);
        let mut hdr = HeapTupleHeader::new(&mut tuple[..]).expect("tuple holds its header");
        hdr.set_xmin(Xid::FROZEN);
        hdr.set_infomask(hdr.infomask() | HEAP_XMIN_FROZEN | HEAP_XMAX_INVALID);
        hdr.set_ctid(ItemPointer::new(0, FIRST_OFFSET));
        tuple
    }

    fn encode_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.last_value.to_le_bytes());
        out.extend_from_slice(&self.log_cnt.to_le_bytes());
        out.push(u8::from(self.is_called));
    }

    fn decode(b: &[u8]) -> SeqData {
        SeqData { last_value: i64_at(b, 0), log_cnt: i64_at(b, 8), is_called: b[16] != 0 }
    }
}

impl SeqState {
    /// encode -- the state as WAL block data.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(STATE_LEN);
        self.params.encode_into(&mut out);
        self.data.encode_into(&mut out);
        out
    }

    /// decode -- a state from WAL block data; malformed input is corruption.
    pub fn decode(bytes: &[u8]) -> Result<SeqState> {
        if bytes.len() < STATE_LEN {
            return Err(AccessError::Corrupt("sequence WAL record too short".into()));
        }
        Ok(SeqState {
            params: SeqParams::decode(&bytes[..PARAMS_LEN]),
            data: SeqData::decode(&bytes[PARAMS_LEN..]),
        })
    }
}

/// init_page -- rebuilds `page` to hold `state`: header, special area, tuple.
pub fn init_page(page: &mut Page, state: &SeqState) -> Result<()> {
    page.init(SPECIAL_SIZE);
    let special = page.special();
    let mut params = Vec::with_capacity(PARAMS_LEN);
    state.params.encode_into(&mut params);
    let bytes = page.as_bytes_mut();
    bytes[special..special + 4].copy_from_slice(&SEQ_MAGIC.to_le_bytes());
    bytes[special + 4..special + 4 + PARAMS_LEN].copy_from_slice(&params);
    match page.add_item(&state.data.tuple()) {
        Some(FIRST_OFFSET) => Ok(()),
        _ => Err(corrupt("failed to add the sequence tuple")),
    }
}

/// read_page -- the state stored on `page`, checking its magic number.
pub fn read_page(page: &Page) -> Result<SeqState> {
    let special = page.special();
    if page.is_new() || special + SPECIAL_SIZE != BLCKSZ {
        return Err(corrupt("not initialised"));
    }
    let bytes = page.as_bytes();
    let magic = u32::from_le_bytes(bytes[special..special + 4].try_into().expect("4 bytes"));
    if magic != SEQ_MAGIC {
        return Err(AccessError::Corrupt(format!(
            "bad magic number in sequence page: {magic:08X}"
        )));
    }
    let params = SeqParams::decode(&bytes[special + 4..special + 4 + PARAMS_LEN]);
    let tuple = page.item(FIRST_OFFSET).ok_or_else(|| corrupt("no sequence tuple"))?;
    let hoff = HeapTupleHeader::new(tuple)?.hoff();
    let data = tuple.get(hoff..hoff + DATA_LEN).ok_or_else(|| corrupt("tuple too short"))?;
    Ok(SeqState { params, data: SeqData::decode(data) })
}

/// write_data -- overwrites the tuple's values in place (same width, so the
/// line pointer and everything else stay as they are).
pub fn write_data(page: &mut Page, data: &SeqData) -> Result<()> {
    let tuple = data.tuple();
    let item = page.item_mut(FIRST_OFFSET).ok_or_else(|| corrupt("no sequence tuple"))?;
    if item.len() != tuple.len() {
        return Err(corrupt("sequence tuple changed width"));
    }
    item.copy_from_slice(&tuple);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> SeqState {
        SeqState {
            params: SeqParams {
                typid: 20,
                start: 5,
                increment: -3,
                max: 100,
                min: i64::MIN,
                cache: 7,
                cycle: true,
            },
            data: SeqData { last_value: -42, log_cnt: 31, is_called: true },
        }
    }

    #[test]
    fn states_round_trip_through_wal_data_and_pages() {
        let s = state();
        assert_eq!(s.encode().len(), STATE_LEN);
        assert_eq!(SeqState::decode(&s.encode()).unwrap(), s);
        assert!(SeqState::decode(&[0; 10]).is_err());
        let mut page = Page::new_zeroed();
        assert!(read_page(&page).is_err(), "a zero page is not a sequence");
        init_page(&mut page, &s).unwrap();
        assert_eq!(read_page(&page).unwrap(), s);
        let data = SeqData { last_value: 7, log_cnt: 0, is_called: false };
        write_data(&mut page, &data).unwrap();
        assert_eq!(read_page(&page).unwrap(), SeqState { data, ..s });
    }

    #[test]
    fn the_tuple_is_frozen_and_a_bad_magic_number_is_corruption() {
        let mut page = Page::new_zeroed();
        init_page(&mut page, &state()).unwrap();
        let hdr = HeapTupleHeader::new(page.item(FIRST_OFFSET).unwrap()).unwrap();
        assert!(hdr.xmin_frozen() && hdr.xmax_invalid());
        let special = page.special();
        page.as_bytes_mut()[special] ^= 0xff;
        assert!(read_page(&page).is_err());
    }
}
