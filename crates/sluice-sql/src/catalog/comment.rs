//! Comments on objects in `pg_description` (PostgreSQL's
//! `commands/comment.c` storage half and `obj_description`).
//!
//! One row per commented object: the catalog it lives in (`classoid`), its
//! OID and a column number (0 for the object itself). Setting a comment
//! replaces the row, an empty one deletes it; dropping an object deletes
//! its comments with it.

use super::depend::ObjectAddress;
use super::relation::oid_of;
use super::schema::PG_DESCRIPTION;
use super::{delete, insert, scan, scan_as};
use crate::error::Result;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::Engine;
use sluice_common::Oid;
use sluice_txn::Transaction;
use sluice_types::Datum;

/// Whether description row `r` is about `object`.
fn describes(r: &[Datum], object: &ObjectAddress) -> bool {
    oid_of(&r[0]) == object.objid
        && oid_of(&r[1]) == object.classid
        && r[2] == Datum::Int4(object.objsubid)
}

/// set_comment -- gives `object` the comment `text`, or none when it is
/// empty (COMMENT ON ... IS NULL reaches here as empty, as in PostgreSQL).
pub fn set_comment(
    engine: &Engine,
    db: Oid,
    txn: &mut Transaction,
    object: &ObjectAddress,
    text: &str,
) -> Result<()> {
    for (tid, _) in scan(engine, db, &PG_DESCRIPTION, txn, |r| describes(r, object))? {
        delete(engine, db, &PG_DESCRIPTION, txn, tid)?;
    }
    if !text.is_empty() {
        let row = [
            Datum::Oid(object.objid),
            Datum::Oid(object.classid),
            Datum::Int4(object.objsubid),
            Datum::Text(text.to_string()),
        ];
        insert(engine, db, &PG_DESCRIPTION, txn, &row)?;
    }
    Ok(())
}

/// comment_of -- the comment on `object` (`classid` 0: in any catalog, as
/// the one-argument `obj_description` asks).
pub fn comment_of(
    engine: &Engine,
    db: Oid,
    ctx: &VisibilityContext,
    object: &ObjectAddress,
) -> Result<Option<String>> {
    let rows = scan_as(engine, db, &PG_DESCRIPTION, ctx, |r| {
        oid_of(&r[0]) == object.objid
            && (object.classid == 0 || oid_of(&r[1]) == object.classid)
            && r[2] == Datum::Int4(object.objsubid)
    })?;
    Ok(rows.first().and_then(|(_, r)| r[3].as_str().map(str::to_string)))
}

/// remove_comments -- deletes the comments on object `objid` of catalog
/// `classid` and on its columns (`column`: only that column's).
pub fn remove_comments(
    engine: &Engine,
    db: Oid,
    txn: &mut Transaction,
    classid: Oid,
    objid: Oid,
    column: Option<i32>,
) -> Result<()> {
    let rows = scan(engine, db, &PG_DESCRIPTION, txn, |r| {
        oid_of(&r[0]) == objid
            && oid_of(&r[1]) == classid
            && column.is_none_or(|c| r[2] == Datum::Int4(c))
    })?;
    for (tid, _) in rows {
        delete(engine, db, &PG_DESCRIPTION, txn, tid)?;
    }
    Ok(())
}
