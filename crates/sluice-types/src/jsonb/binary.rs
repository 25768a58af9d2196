//! The storage encoding of jsonb: a compact, self-describing byte tree.
//!
//! Each value starts with a tag byte; strings and numbers carry a 4-byte
//! little-endian length; arrays and objects a 4-byte element count followed by
//! their elements (objects: key bytes with length, then the value). Numbers
//! use the numeric storage format. Decoding validates everything, so a
//! corrupt datum yields an error, never a panic, and depth is bounded like
//! the text parser's.

use super::parse::MAX_DEPTH;
use super::JsonbValue;
use crate::error::{Result, TypeError};

/// Tag bytes.
const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const NUMBER: u8 = 3;
const STRING: u8 = 4;
const ARRAY: u8 = 5;
const OBJECT: u8 = 6;

/// Encode a value for storage.
pub fn encode(v: &JsonbValue) -> Vec<u8> {
    let mut out = Vec::new();
    encode_into(v, &mut out);
    out
}

/// Append `v`'s encoding to `out`.
fn encode_into(v: &JsonbValue, out: &mut Vec<u8>) {
    let put_bytes = |out: &mut Vec<u8>, b: &[u8]| {
        out.extend((b.len() as u32).to_le_bytes());
        out.extend(b);
    };
    match v {
        JsonbValue::Null => out.push(NULL),
        JsonbValue::Bool(false) => out.push(FALSE),
        JsonbValue::Bool(true) => out.push(TRUE),
        JsonbValue::Number(n) => {
            out.push(NUMBER);
            put_bytes(out, &crate::storage::numeric_to_storage(n));
        }
        JsonbValue::String(s) => {
            out.push(STRING);
            put_bytes(out, s.as_bytes());
        }
        JsonbValue::Array(items) => {
            out.push(ARRAY);
            out.extend((items.len() as u32).to_le_bytes());
            items.iter().for_each(|i| encode_into(i, out));
        }
        JsonbValue::Object(pairs) => {
            out.push(OBJECT);
            out.extend((pairs.len() as u32).to_le_bytes());
            for (k, item) in pairs {
                put_bytes(out, k.as_bytes());
                encode_into(item, out);
            }
        }
    }
}

/// Decode a stored jsonb value.
pub fn decode(bytes: &[u8]) -> Result<JsonbValue> {
    let mut r = Reader { b: bytes, pos: 0 };
    let v = r.value(0)?;
    if r.pos != bytes.len() {
        return Err(corrupt());
    }
    Ok(v)
}

/// The error for malformed stored bytes.
fn corrupt() -> TypeError {
    TypeError::bad_binary("invalid jsonb storage data")
}

/// A cursor over stored bytes.
struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    /// Take `n` bytes.
    fn take(&mut self, n: usize) -> Result<&[u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.b.len()).ok_or_else(corrupt)?;
        let s = &self.b[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    /// A little-endian u32.
    fn u32(&mut self) -> Result<usize> {
        let s = self.take(4)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]) as usize)
    }

    /// Length-prefixed UTF-8 text.
    fn string(&mut self) -> Result<String> {
        let n = self.u32()?;
        let s = self.take(n)?;
        String::from_utf8(s.to_vec()).map_err(|_| corrupt())
    }

    /// One value.
    fn value(&mut self, depth: usize) -> Result<JsonbValue> {
        if depth > MAX_DEPTH + 1 {
            return Err(corrupt());
        }
        let tag = self.take(1)?[0];
        Ok(match tag {
            NULL => JsonbValue::Null,
            FALSE => JsonbValue::Bool(false),
            TRUE => JsonbValue::Bool(true),
            NUMBER => {
                let n = self.u32()?;
                let bytes = self.take(n)?;
                JsonbValue::Number(crate::storage::numeric_from_storage(bytes)?)
            }
            STRING => JsonbValue::String(self.string()?),
            ARRAY => {
                let n = self.u32()?;
                let mut items = Vec::with_capacity(n.min(self.b.len()));
                for _ in 0..n {
                    items.push(self.value(depth + 1)?);
                }
                JsonbValue::Array(items)
            }
            OBJECT => {
                let n = self.u32()?;
                let mut pairs = Vec::with_capacity(n.min(self.b.len()));
                for _ in 0..n {
                    let k = self.string()?;
                    pairs.push((k, self.value(depth + 1)?));
                }
                JsonbValue::object(pairs)
            }
            _ => return Err(corrupt()),
        })
    }
}
