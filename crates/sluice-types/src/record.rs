//! Composite values: rows as values (PostgreSQL's `record` and table row
//! types, `utils/adt/rowtypes.c`).
//!
//! A whole-row reference (`SELECT j FROM que_jobs AS j`), a row constructor
//! (`ROW(1, 'a')`) or a subquery returning such a value produce one
//! [`Record`]: the field values plus a [`RecordType`] that says what the
//! fields are. PostgreSQL identifies an anonymous row type by registering
//! its tuple descriptor and handing out a typmod (`assign_record_type_typmod`);
//! sluice interns each distinct descriptor ([`RowType`]) once per server and
//! passes a `'static` reference, so `SqlType::Record` stays `Copy`, compares
//! by content, and every value carries what its output function needs.
//! Like PostgreSQL's registry, interned descriptors are never freed; there
//! is one per distinct shape (table row type or column list), not per row.
//!
//! Text output is `record_out`'s: `(f1,f2,...)`, a NULL field empty, a field
//! quoted when it is empty or holds `"`, `\`, `(`, `)`, `,` or white space,
//! with `"` and `\` doubled inside quotes. Comparison is `record_cmp`'s:
//! field by field, NULL equal to NULL and after every value, then the
//! shorter row first. Binary output is `record_send`'s: the field count, then
//! per field its type OID, its length (-1 for NULL) and its binary value.
//!
//! Table row types have no `pg_type` rows in sluice yet, so a whole-row
//! reference to a table is a `record` too: its OID on the wire is 2249 and
//! messages call it `record` where PostgreSQL names the table's type.

use crate::compare;
use crate::context::Context;
use crate::datum::Datum;
use crate::error::{ErrorKind, Result, TypeError};
use crate::intern::Interner;
use crate::types::SqlType;

/// OID of the pseudo-type `record`.
pub const RECORD_OID: u32 = 2249;

/// One field of a row type.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RowField {
    /// The field (column) name.
    pub name: String,
    /// Its type.
    pub ty: SqlType,
    /// Its type modifier (-1 for none).
    pub typmod: i32,
}

/// A row type's descriptor: its fields.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RowType {
    /// The fields in order.
    pub fields: Vec<RowField>,
}

/// An interned [`RowType`]; equal descriptors are the same reference.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RecordType(&'static RowType);

impl std::fmt::Debug for RecordType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// The interned descriptors.
static REGISTRY: Interner<RowType> = Interner::new();

impl RecordType {
    /// intern -- the record type for `row`, registered on first use.
    pub fn intern(row: RowType) -> RecordType {
        RecordType(REGISTRY.intern(row))
    }

    /// The fields.
    pub fn fields(self) -> &'static [RowField] {
        &self.0.fields
    }
}

/// A composite value: one value (or NULL) per field of its type.
#[derive(Clone, Debug)]
pub struct Record {
    /// The row type.
    pub ty: RecordType,
    /// The field values, as many as the type has fields.
    pub values: Vec<Datum>,
}

/// output -- `record_out`: `(v1,v2,...)` with PostgreSQL's quoting.
pub fn output(r: &Record, ctx: &Context) -> String {
    let mut out = String::from("(");
    for (i, value) in r.values.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if let Some(text) = crate::io::output(value, ctx) {
            push_field(&mut out, &text);
        }
    }
    out.push(')');
    out
}

/// Append one non-null field's text, quoted if `record_in` would misread it.
fn push_field(out: &mut String, text: &str) {
    let needs_quotes = text.is_empty()
        || text.chars().any(|c| {
            matches!(c, '"' | '\\' | '(' | ')' | ',' | ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
        });
    if !needs_quotes {
        out.push_str(text);
        return;
    }
    out.push('"');
    for c in text.chars() {
        if c == '"' || c == '\\' {
            out.push(c);
        }
        out.push(c);
    }
    out.push('"');
}

/// cmp -- `record_cmp`: field by field (NULLs equal, after values), then
/// by field count.
pub fn cmp(a: &Record, b: &Record) -> std::cmp::Ordering {
    a.values
        .iter()
        .zip(&b.values)
        .map(|(x, y)| compare::cmp(x, y))
        .find(|o| o.is_ne())
        .unwrap_or_else(|| a.values.len().cmp(&b.values.len()))
}

/// hash_into -- mixes every field into `h`, consistently with [`cmp`].
pub fn hash_into(r: &Record, h: &mut compare::Fnv) {
    h.write(&(r.values.len() as u64).to_le_bytes());
    for v in &r.values {
        h.write(&compare::hash(v).to_le_bytes());
    }
}

/// send -- `record_send`: field count, then (type OID, length, bytes) per
/// field, length -1 for NULL.
pub fn send(r: &Record) -> Vec<u8> {
    let mut out = (r.values.len() as i32).to_be_bytes().to_vec();
    for (value, field) in r.values.iter().zip(r.ty.fields()) {
        out.extend(field.ty.oid().to_be_bytes());
        if value.is_null() {
            out.extend((-1i32).to_be_bytes());
        } else {
            let bytes = crate::binary::send_typed(field.ty, value);
            out.extend((bytes.len() as i32).to_be_bytes());
            out.extend(bytes);
        }
    }
    out
}

/// decode -- reads [`send`]'s format back as a value of `ty` (how a record
/// is stored in a tuple), checking the count and the field types.
pub fn decode(ty: RecordType, b: &[u8]) -> Result<Record> {
    let mut at = 0usize;
    let count = int(b, &mut at)?;
    if usize::try_from(count).ok() != Some(ty.fields().len()) {
        return Err(bad(format!(
            "wrong number of columns: {count}, expected {}",
            ty.fields().len()
        )));
    }
    let mut values = Vec::with_capacity(ty.fields().len());
    for field in ty.fields() {
        let oid = int(b, &mut at)? as u32;
        if oid != field.ty.oid() {
            return Err(bad(format!("wrong data type: {oid}, expected {}", field.ty.oid())));
        }
        let value = match usize::try_from(int(b, &mut at)?) {
            Ok(len) => crate::binary::recv(field.ty, take(b, &mut at, len)?, field.typmod)?,
            Err(_) => Datum::Null,
        };
        values.push(value);
    }
    Ok(Record { ty, values })
}

/// The next `len` bytes of `b` from `*at`.
fn take<'b>(b: &'b [u8], at: &mut usize, len: usize) -> Result<&'b [u8]> {
    let bytes = b
        .get(*at..at.saturating_add(len))
        .ok_or_else(|| bad("insufficient data left in message"))?;
    *at += len;
    Ok(bytes)
}

/// The next big-endian `int4` of `b` from `*at`.
fn int(b: &[u8], at: &mut usize) -> Result<i32> {
    let bytes = take(b, at, 4)?;
    Ok(i32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}

/// 22P03 for malformed composite bytes.
fn bad(message: impl Into<String>) -> TypeError {
    TypeError::new(ErrorKind::InvalidBinaryRepresentation, message)
}

/// 0A000 `input of anonymous composite types is not implemented`: what
/// PostgreSQL's `record_in`/`record_recv` say for `record`, which is the
/// type every composite value has on the wire in sluice.
pub fn input_not_implemented() -> TypeError {
    TypeError::new(
        ErrorKind::FeatureNotSupported,
        "input of anonymous composite types is not implemented",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair() -> RecordType {
        RecordType::intern(RowType {
            fields: vec![
                RowField { name: "a".into(), ty: SqlType::Int4, typmod: -1 },
                RowField { name: "b".into(), ty: SqlType::Text, typmod: -1 },
            ],
        })
    }

    fn rec(a: Datum, b: Datum) -> Record {
        Record { ty: pair(), values: vec![a, b] }
    }

    #[test]
    fn interning_gives_one_type_per_shape() {
        assert_eq!(pair(), pair());
        assert!(std::ptr::eq(pair().fields(), pair().fields()));
        assert_eq!(SqlType::Record(pair()).typname(), "record");
    }

    #[test]
    fn output_quotes_like_record_out() {
        let ctx = Context::default();
        let show = |b: Datum| output(&rec(Datum::Int4(1), b), &ctx);
        assert_eq!(show(Datum::Text("x".into())), "(1,x)");
        assert_eq!(show(Datum::Null), "(1,)");
        assert_eq!(show(Datum::Text(String::new())), "(1,\"\")");
        assert_eq!(show(Datum::Text("a b".into())), "(1,\"a b\")");
        assert_eq!(show(Datum::Text("say \"hi\"\\".into())), "(1,\"say \"\"hi\"\"\\\\\")");
        assert_eq!(show(Datum::Text("(,)".into())), "(1,\"(,)\")");
    }

    #[test]
    fn comparison_puts_nulls_last() {
        let one = rec(Datum::Int4(1), Datum::Text("b".into()));
        let two = rec(Datum::Int4(2), Datum::Text("a".into()));
        let null = rec(Datum::Null, Datum::Text("a".into()));
        assert!(cmp(&one, &two).is_lt());
        assert!(cmp(&two, &null).is_lt());
        assert!(cmp(&null, &null).is_eq());
    }

    #[test]
    fn send_and_decode_round_trip() {
        let r = rec(Datum::Int4(7), Datum::Null);
        let bytes = send(&r);
        assert_eq!(&bytes[..4], &2i32.to_be_bytes());
        let back = decode(pair(), &bytes).unwrap();
        assert!(cmp(&r, &back).is_eq());
        assert_eq!(
            decode(pair(), &bytes[..6]).unwrap_err().kind,
            ErrorKind::InvalidBinaryRepresentation
        );
    }
}
