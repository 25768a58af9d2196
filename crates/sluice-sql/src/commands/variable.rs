//! SET, RESET and SHOW (PostgreSQL's `commands/variable.c` and the GUC entry
//! points in `guc.c`), on top of `sluice-guc`.

use super::node_str;
use crate::error::{Result, SqlError};
use crate::session::Session;
use crate::sink::{OutputColumn, QuerySink};
use pg_query::protobuf::{VariableSetKind, VariableSetStmt, VariableShowStmt};
use sluice_guc::SetArg;
use sluice_types::{Datum, SqlType};

/// SET / RESET.
pub fn set(session: &mut Session, stmt: &VariableSetStmt, sink: &mut dyn QuerySink) -> Result<()> {
    let kind = VariableSetKind::try_from(stmt.kind).unwrap_or(VariableSetKind::Undefined);
    match kind {
        VariableSetKind::VarSetValue => set_value(session, stmt)?,
        VariableSetKind::VarSetDefault | VariableSetKind::VarReset => {
            session.settings().reset(&stmt.name)?
        }
        VariableSetKind::VarResetAll => session.settings().reset_all(),
        VariableSetKind::VarSetMulti
            if stmt.name == "TRANSACTION" || stmt.name == "SESSION CHARACTERISTICS" =>
        {
            set_transaction(session, stmt)?
        }
        _ => return Err(SqlError::unsupported(format!("SET {} is not supported yet", stmt.name))),
    }
    sink.complete(if matches!(kind, VariableSetKind::VarReset | VariableSetKind::VarResetAll) {
        "RESET"
    } else {
        "SET"
    })
}

fn set_value(session: &mut Session, stmt: &VariableSetStmt) -> Result<()> {
    let texts: Vec<(String, bool)> = stmt
        .args
        .iter()
        .map(|a| {
            let numeric = matches!(
                a.node.as_ref(),
                Some(pg_query::NodeEnum::AConst(c)) if matches!(c.val, Some(pg_query::protobuf::a_const::Val::Ival(_)) | Some(pg_query::protobuf::a_const::Val::Fval(_)))
            );
            (node_str(a).unwrap_or_default(), numeric)
        })
        .collect();
    let args: Vec<SetArg> = texts
        .iter()
        .map(|(t, numeric)| if *numeric { SetArg::Number(t) } else { SetArg::String(t) })
        .collect();
    let value = sluice_guc::flatten_set_args(&stmt.name, &args, quote_identifier)?;
    if stmt.is_local {
        session.settings().set_local(&stmt.name, &value)?;
    } else {
        session.settings().set(&stmt.name, &value)?;
    }
    Ok(())
}

/// SET TRANSACTION ISOLATION LEVEL ... (and SET SESSION CHARACTERISTICS AS ...).
fn set_transaction(session: &mut Session, stmt: &VariableSetStmt) -> Result<()> {
    for arg in &stmt.args {
        let Some(pg_query::NodeEnum::DefElem(def)) = arg.node.as_ref() else { continue };
        if def.defname == "transaction_isolation" {
            let level = def.arg.as_deref().and_then(node_str).unwrap_or_default();
            let parsed = super::transaction::parse_isolation(&level)?;
            if stmt.name == "TRANSACTION" {
                session.set_next_isolation(parsed);
            } else {
                session.settings().set("default_transaction_isolation", &level)?;
            }
        }
    }
    Ok(())
}

/// Quotes an identifier for list settings such as search_path.
fn quote_identifier(ident: &str) -> String {
    let plain = ident.chars().next().is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && ident.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if plain {
        ident.to_string()
    } else {
        format!("\"{}\"", ident.replace('"', "\"\""))
    }
}

/// SHOW name / SHOW ALL.
pub fn show(
    session: &mut Session,
    stmt: &VariableShowStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    if stmt.name.eq_ignore_ascii_case("all") {
        let columns = ["name", "setting", "description"]
            .map(|n| OutputColumn::computed(n, SqlType::Text, -1));
        sink.columns(&columns)?;
        for row in session.settings().show_all() {
            sink.row(&[
                Datum::Text(row.name.into()),
                Datum::Text(row.setting),
                Datum::Text(row.description.into()),
            ])?;
        }
        return sink.complete("SHOW");
    }
    let (name, value) = session.settings().show(&stmt.name)?;
    sink.columns(&[OutputColumn::computed(name, SqlType::Text, -1)])?;
    sink.row(&[Datum::Text(value)])?;
    sink.complete("SHOW")
}
