//! How DROP speaks of the objects that depend on what it drops (PostgreSQL's
//! reportDependentObjects and getObjectDescription in
//! `catalog/dependency.c` and `catalog/objectaddress.c`): the 2BP01 error
//! that lists them when the drop is RESTRICT, and the NOTICE that lists
//! what CASCADE takes along ("drop cascades to ..."), with relations named
//! as PostgreSQL names them — qualified only when the search path would
//! not find them.

use crate::catalog::namespace;
use crate::catalog::relation::RelationId;
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::parser::quote_identifier;
use crate::sink::QuerySink;
use sluice_access::heap::visibility::VisibilityContext;

/// 2BP01 `cannot drop <what> because other objects depend on it`, with
/// one DETAIL line per dependency (`<object> depends on <what>`).
pub(crate) fn dependents_error(what: &str, lines: &[String]) -> SqlError {
    SqlError::new("2BP01", format!("cannot drop {what} because other objects depend on it"))
        .with_detail(lines.join("\n"))
        .with_hint("Use DROP ... CASCADE to drop the dependent objects too.")
}

/// report_cascade -- the NOTICE naming what a CASCADE drops along
/// (`descriptions`, in PostgreSQL's order); nothing when it is none.
pub(crate) fn report_cascade(descriptions: &[String], sink: &mut dyn QuerySink) -> Result<()> {
    let notice = match descriptions {
        [] => return Ok(()),
        [one] => SqlError::new("00000", format!("drop cascades to {one}")),
        many => {
            let lines: Vec<String> = many.iter().map(|d| format!("drop cascades to {d}")).collect();
            SqlError::new("00000", format!("drop cascades to {} other objects", many.len()))
                .with_detail(lines.join("\n"))
        }
    };
    sink.notice(&notice)
}

/// relation_name -- relation `rel` as getObjectDescription names it: its
/// bare name if the search path finds it, else schema-qualified.
pub(crate) fn relation_name(cx: &mut dyn BackendContext, rel: &RelationId) -> Result<String> {
    let (engine, db) = (cx.engine().clone(), cx.database());
    let path = cx.search_path()?;
    let ctx = VisibilityContext::for_transaction(cx.txn()?, engine.txns());
    if namespace::is_visible(&engine, db, &ctx, &path, rel)? {
        return Ok(quote_identifier(&rel.name));
    }
    let schema = cx.namespace_name(rel.namespace)?;
    Ok(format!("{}.{}", quote_identifier(&schema), quote_identifier(&rel.name)))
}
