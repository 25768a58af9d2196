//! Rows as heap tuples: a list of [`Datum`]s of known column types to and from
//! the heap's tuple format, through the types' storage encodings.

use crate::error::{Result, SqlError};
use sluice_access::common::{deform_tuple, form_tuple, AttrDesc, TupleDesc};
use sluice_types::storage::{from_storage, to_storage};
use sluice_types::{Datum, SqlType};

/// The heap tuple descriptor for columns of `types`.
pub fn tuple_desc(types: &[SqlType]) -> TupleDesc {
    TupleDesc::new(
        types
            .iter()
            .map(|t| AttrDesc {
                attlen: t.typlen(),
                attalign: t.typalign(),
                attbyval: t.typbyval(),
            })
            .collect(),
    )
}

/// form_row -- the heap tuple for `values` (already of the column types).
pub fn form_row(desc: &TupleDesc, types: &[SqlType], values: &[Datum]) -> Vec<u8> {
    let encoded: Vec<Option<Vec<u8>>> =
        values.iter().zip(types).map(|(v, t)| (!v.is_null()).then(|| to_storage(*t, v))).collect();
    let refs: Vec<Option<&[u8]>> = encoded.iter().map(|v| v.as_deref()).collect();
    form_tuple(desc, &refs)
}

/// deform_row -- the values of a heap tuple with columns of `types`.
pub fn deform_row(desc: &TupleDesc, types: &[SqlType], tuple: &[u8]) -> Result<Vec<Datum>> {
    let raw = deform_tuple(desc, tuple).map_err(|e| SqlError::new(e.sqlstate(), e.to_string()))?;
    raw.iter()
        .zip(types)
        .map(|(v, t)| match v {
            None => Ok(Datum::Null),
            Some(bytes) => from_storage(*t, bytes).map_err(SqlError::from),
        })
        .collect()
}

/// deform_row_projected -- like [`deform_row`], converting only the columns
/// marked in `needed` (the others read as NULL).
pub fn deform_row_projected(
    desc: &TupleDesc,
    types: &[SqlType],
    tuple: &[u8],
    needed: &[bool],
) -> Result<Vec<Datum>> {
    if !needed.contains(&true) {
        // count(*) and friends: nothing to decode at all.
        return Ok(vec![Datum::Null; types.len()]);
    }
    let raw = deform_tuple(desc, tuple).map_err(|e| SqlError::new(e.sqlstate(), e.to_string()))?;
    raw.iter()
        .zip(types)
        .enumerate()
        .map(|(i, (v, t))| match v {
            Some(bytes) if needed.get(i).copied().unwrap_or(false) => {
                from_storage(*t, bytes).map_err(SqlError::from)
            }
            _ => Ok(Datum::Null),
        })
        .collect()
}
