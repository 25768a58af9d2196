//! Storage parameters of tables (PostgreSQL's `access/common/reloptions.c`
//! and ATExecSetRelOptions): `CREATE TABLE ... WITH (name = value)` and
//! `ALTER TABLE ... SET | RESET (...)`.
//!
//! They live in `pg_class.reloptions` as PostgreSQL prints them
//! (`{fillfactor=70,autovacuum_enabled=off}`). Only `fillfactor` changes
//! what sluice does today; the autovacuum and TOAST-free parameters
//! PostgreSQL knows are validated and kept, so dumps and tools read back what
//! they set. A `toast.` parameter is refused: there is no TOAST table.

use super::RelationDesc;
use crate::catalog::relation::{oid_of, reloptions_datum};
use crate::catalog::schema::PG_CLASS;
use crate::catalog::statistic::latest_view;
use crate::catalog::{replace, scan_as};
use crate::error::position;
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::parser::def_arg_string;
use pg_query::protobuf::{CreateStmt, Node};
use pg_query::NodeEnum;

/// alter_reloptions -- `ALTER TABLE ... SET (name = value, ...)` or
/// `RESET (name, ...)`: merges the storage parameters into the table's
/// `pg_class.reloptions` (PostgreSQL's ATExecSetRelOptions). Pages already
/// written keep their fill; later inserts use the new fillfactor.
pub(super) fn alter_reloptions(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    list: &Node,
    reset: bool,
) -> Result<()> {
    let Some(NodeEnum::List(list)) = list.node.as_ref() else {
        return Err(SqlError::internal("ALTER TABLE SET without an option list"));
    };
    let mut options: Vec<(String, String)> = table
        .options
        .as_deref()
        .map(|o| o.trim_start_matches('{').trim_end_matches('}'))
        .into_iter()
        .flat_map(|o| o.split(','))
        .filter_map(|kv| kv.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())))
        .collect();
    for item in &list.items {
        let Some(NodeEnum::DefElem(def)) = item.node.as_ref() else { continue };
        refuse_toast_option(def)?;
        options.retain(|(k, _)| *k != def.defname);
        if reset {
            continue;
        }
        let value = def_arg_string(def);
        validate_reloption(&def.defname, &value)?;
        options.push((def.defname.clone(), value));
    }
    let text: Vec<String> = options.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let value = reloptions_datum(Some(&format!("{{{}}}", text.join(","))));
    let parts = cx.parts()?;
    let at = PG_CLASS.columns.iter().position(|c| c.0 == "reloptions");
    let at = at.ok_or_else(|| SqlError::internal("pg_class has no reloptions"))?;
    let (engine, db) = (parts.engine, parts.env.database);
    let ctx = latest_view(parts.txn, engine.txns());
    let rows = scan_as(engine, db, &PG_CLASS, &ctx, |r| oid_of(&r[0]) == table.oid)?;
    let Some((tid, mut values)) = rows.into_iter().next() else { return Ok(()) };
    values[at] = value;
    replace(engine, db, &PG_CLASS, parts.txn, tid, &values)?;
    Ok(())
}

/// `WITH (fillfactor = 70, ...)` as PostgreSQL prints reloptions: `{fillfactor=70}`.
pub(super) fn reloptions(stmt: &CreateStmt) -> Result<Option<String>> {
    let mut items = Vec::new();
    for option in &stmt.options {
        let Some(NodeEnum::DefElem(def)) = option.node.as_ref() else { continue };
        refuse_toast_option(def)?;
        let value = def_arg_string(def);
        validate_reloption(&def.defname, &value)?;
        items.push(format!("{}={}", def.defname, value));
    }
    Ok((!items.is_empty()).then(|| format!("{{{}}}", items.join(","))))
}

/// `toast.name = value` sets an option of the table's TOAST table, which
/// sluice does not have (0A000): storing it as the table's own option
/// would change the table's behaviour instead.
fn refuse_toast_option(def: &pg_query::protobuf::DefElem) -> Result<()> {
    match def.defnamespace.as_str() {
        "" => Ok(()),
        "toast" => Err(SqlError::unsupported(format!(
            "storage parameter \"toast.{}\" is not supported: sluice has no TOAST tables yet",
            def.defname
        ))
        .at(position(def.location))),
        other => {
            Err(SqlError::new("22023", format!("unrecognized parameter namespace \"{other}\"")))
        }
    }
}

fn validate_reloption(name: &str, value: &str) -> Result<()> {
    match name {
        "fillfactor" => match value.parse::<i64>() {
            Ok(v) if (10..=100).contains(&v) => Ok(()),
            Ok(v) => Err(SqlError::new(
                "22023",
                format!("value {v} out of bounds for option \"fillfactor\""),
            )
            .with_detail("Valid values are between \"10\" and \"100\".")),
            Err(_) => Err(SqlError::new(
                "22023",
                format!("invalid value for integer option \"fillfactor\": {value}"),
            )),
        },
        n if n.starts_with("autovacuum_")
            || n.starts_with("toast_")
            || n == "parallel_workers"
            || n == "vacuum_truncate"
            || n == "vacuum_index_cleanup"
            || n == "user_catalog_table"
            || n == "log_autovacuum_min_duration" =>
        {
            Ok(())
        }
        other => Err(SqlError::new("22023", format!("unrecognized parameter \"{other}\""))),
    }
}
