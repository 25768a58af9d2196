//! Rows as heap tuples: a list of [`Datum`]s of known column types to and from
//! the heap's tuple format, through the types' storage encodings.

use crate::error::{Result, SqlError};
use sluice_access::common::{for_each_attr, form_tuple, AttrDesc, TupleDesc};
use sluice_types::storage::{from_storage, to_storage};
use sluice_types::types::ElemType;
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
    let mut row = Vec::with_capacity(types.len());
    for_each_attr(desc, tuple, types.len(), |i, v| {
        row.push(datum_of(types[i], v)?);
        Ok::<_, SqlError>(())
    })?;
    Ok(row)
}

/// deform_row_projected -- like [`deform_row`], converting only the columns
/// marked in `needed` (the others read as NULL). The tuple is walked only up
/// to the last needed column, and nothing is decoded for `count(*)`.
pub fn deform_row_projected(
    desc: &TupleDesc,
    types: &[SqlType],
    tuple: &[u8],
    needed: &[bool],
) -> Result<Vec<Datum>> {
    let mut row = Vec::with_capacity(types.len());
    let upto = needed.iter().rposition(|&n| n).map_or(0, |last| last + 1);
    for_each_attr(desc, tuple, upto, |i, v| {
        row.push(if needed[i] { datum_of(types[i], v)? } else { Datum::Null });
        Ok::<_, SqlError>(())
    })?;
    row.resize(types.len(), Datum::Null);
    Ok(row)
}

/// The datum of one stored value of type `ty` (`None` = NULL).
fn datum_of(ty: SqlType, stored: Option<&[u8]>) -> Result<Datum> {
    match stored {
        None => Ok(Datum::Null),
        Some(bytes) => Ok(from_storage(ty, bytes)?),
    }
}

/// An `int2[]` catalog value (`conkey`, `indkey`, ...).
pub fn int2_array(values: impl IntoIterator<Item = i16>) -> Datum {
    let elem = ElemType::new(SqlType::Int2).expect("int2[] exists");
    Datum::array(elem, values.into_iter().map(Datum::Int2).collect())
}

/// The values of an `int2[]` catalog value (NULL or empty: none).
pub fn int2_list(d: &Datum) -> Vec<i16> {
    d.as_array()
        .map(|a| a.elements().iter().filter_map(|e| e.as_i64().map(|v| v as i16)).collect())
        .unwrap_or_default()
}
