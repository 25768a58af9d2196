//! System information functions that need nothing but their arguments:
//! `format_type` and `pg_encoding_to_char` (PostgreSQL's `format_type.c`
//! and `encnames.c`). Those that read catalogs are session functions
//! (`executor/functions.rs`).

use sluice_types::{Datum, SqlType};

/// `format_type(type oid, typmod integer)`: a type's SQL spelling, as psql's
/// `\d` shows column types. Not strict: a NULL typmod spells `bpchar` as
/// `character`, while an explicit -1 keeps the internal name `bpchar` (as
/// PostgreSQL 15 does). Unknown OIDs give `???`.
pub(super) fn format_type(args: &[Datum]) -> Datum {
    let Some(oid) = args.first().and_then(oid_value) else { return Datum::Null };
    let Some(ty) = SqlType::from_oid(oid) else { return Datum::Text("???".into()) };
    let text = match args.get(1).and_then(Datum::as_i64) {
        None if ty == SqlType::Bpchar => "character".to_string(),
        None => sluice_types::format_type(ty, -1),
        Some(-1) if ty == SqlType::Bpchar => "bpchar".to_string(),
        Some(typmod) => sluice_types::format_type(ty, typmod as i32),
    };
    Datum::Text(text)
}

/// `pg_encoding_to_char(encoding integer)`: the encoding's name, empty for
/// a number that names none. sluice's databases are UTF8 (or SQL_ASCII).
pub(super) fn encoding_name(args: &[Datum]) -> Datum {
    let name = match args.first().and_then(Datum::as_i64) {
        Some(0) => "SQL_ASCII",
        Some(6) => "UTF8",
        Some(8) => "LATIN1",
        _ => "",
    };
    Datum::Text(name.into())
}

/// An `oid` argument's value.
fn oid_value(d: &Datum) -> Option<u32> {
    match d {
        Datum::Oid(o) => Some(*o),
        _ => None,
    }
}
