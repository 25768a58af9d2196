//! System information functions that need nothing but their arguments:
//! `format_type`'s spelling of a type and `pg_encoding_to_char`
//! (PostgreSQL's `format_type.c` and `encnames.c`). Those that read
//! catalogs are session functions (`executor/functions.rs`).

use sluice_types::{Datum, SqlType};

/// format_type_of -- `format_type(type, typmod)` of a type the caller
/// looked up (`None`: no type has the OID): its SQL spelling, as psql's
/// `\d` shows column types. A NULL typmod spells `bpchar` as `character`,
/// while an explicit -1 keeps the internal name `bpchar` (as PostgreSQL 15
/// does). Unknown OIDs give `???`.
pub fn format_type_of(ty: Option<SqlType>, typmod: Option<i64>) -> Datum {
    let Some(ty) = ty else { return Datum::Text("???".into()) };
    let text = match typmod {
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
