//! `pg_extension` lookups: whether an extension is installed, for the
//! functions and views an extension brings (pgstattuple's). CREATE and
//! DROP EXTENSION are in `commands/extension.rs`.

use super::schema::PG_EXTENSION;
use crate::error::Result;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::Engine;
use sluice_common::Oid;
use sluice_types::Datum;

/// The pgstattuple extension (its functions are in the executor).
pub const PGSTATTUPLE: &str = "pgstattuple";

/// Column positions in `pg_extension`.
pub(crate) const EXTNAME: usize = 1;

/// installed -- whether extension `name` is installed in database `db` as
/// `ctx` sees the catalogs.
pub fn installed(engine: &Engine, db: Oid, ctx: &VisibilityContext, name: &str) -> Result<bool> {
    let rows = super::scan_as(
        engine,
        db,
        &PG_EXTENSION,
        ctx,
        |row| matches!(&row[EXTNAME], Datum::Text(n) if n == name),
    )?;
    Ok(!rows.is_empty())
}
