//! SET, RESET, SHOW and ALTER SYSTEM (PostgreSQL's `commands/variable.c` and
//! the GUC entry points in `guc.c`), on top of `sluice-guc`.

use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::parser::{node_str, quote_identifier};
use crate::sink::{OutputColumn, QuerySink};
use pg_query::protobuf::{AlterSystemStmt, VariableSetKind, VariableSetStmt, VariableShowStmt};
use pg_query::NodeEnum;
use sluice_guc::SetArg;
use sluice_txn::IsolationLevel;
use sluice_types::{Datum, SqlType};

/// SET / RESET.
pub fn set(
    cx: &mut dyn BackendContext,
    stmt: &VariableSetStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let kind = VariableSetKind::try_from(stmt.kind).unwrap_or(VariableSetKind::Undefined);
    match kind {
        VariableSetKind::VarSetValue => set_value(cx, stmt)?,
        VariableSetKind::VarSetDefault | VariableSetKind::VarReset => {
            cx.settings().reset(&stmt.name)?
        }
        VariableSetKind::VarResetAll => cx.settings().reset_all(),
        VariableSetKind::VarSetMulti
            if stmt.name == "TRANSACTION" || stmt.name == "SESSION CHARACTERISTICS" =>
        {
            set_transaction(cx, stmt)?
        }
        _ => return Err(SqlError::unsupported(format!("SET {} is not supported yet", stmt.name))),
    }
    sink.complete(if matches!(kind, VariableSetKind::VarReset | VariableSetKind::VarResetAll) {
        "RESET"
    } else {
        "SET"
    })
}

fn set_value(cx: &mut dyn BackendContext, stmt: &VariableSetStmt) -> Result<()> {
    let value = flattened_value(stmt)?;
    if stmt.is_local {
        cx.settings().set_local(&stmt.name, &value)?;
    } else {
        cx.settings().set(&stmt.name, &value)?;
    }
    Ok(())
}

/// The value list of `SET name = a, b` as one setting string (quoted as
/// PostgreSQL's `flatten_set_variable_args` quotes it).
fn flattened_value(stmt: &VariableSetStmt) -> Result<String> {
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
    Ok(sluice_guc::flatten_set_args(&stmt.name, &args, quote_identifier)?)
}

/// ALTER SYSTEM SET / RESET: rewrites `postgresql.auto.conf`; the change
/// applies after `pg_reload_conf()` (or a restart for server-start settings).
pub fn alter_system(
    cx: &mut dyn BackendContext,
    stmt: &AlterSystemStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    cx.prevent_transaction_block("ALTER SYSTEM")?;
    let Some(set) = &stmt.setstmt else {
        return Err(SqlError::internal("ALTER SYSTEM without SET"));
    };
    let config = cx.instance_config();
    match VariableSetKind::try_from(set.kind).unwrap_or(VariableSetKind::Undefined) {
        VariableSetKind::VarSetValue => {
            config.alter_system(&set.name, Some(&flattened_value(set)?))?
        }
        VariableSetKind::VarSetDefault | VariableSetKind::VarReset => {
            config.alter_system(&set.name, None)?
        }
        VariableSetKind::VarResetAll => config.alter_system_reset_all()?,
        _ => return Err(SqlError::unsupported("this form of ALTER SYSTEM is not supported")),
    }
    sink.complete("ALTER SYSTEM")
}

/// SET TRANSACTION { ISOLATION LEVEL ... | READ ONLY | READ WRITE } (and SET
/// SESSION CHARACTERISTICS AS ..., which sets the defaults).
fn set_transaction(cx: &mut dyn BackendContext, stmt: &VariableSetStmt) -> Result<()> {
    if let Some(read_only) = read_only_option(&stmt.args) {
        let value = on_off(read_only);
        match stmt.name.as_str() {
            // Outside a block there is no transaction to change (PostgreSQL
            // warns and does nothing, as for the isolation level below).
            "TRANSACTION" if cx.in_transaction_block() => {
                cx.settings().set("transaction_read_only", value)?
            }
            "TRANSACTION" => {}
            _ => cx.settings().set("default_transaction_read_only", value)?,
        }
    }
    for arg in &stmt.args {
        let Some(pg_query::NodeEnum::DefElem(def)) = arg.node.as_ref() else { continue };
        if def.defname == "transaction_isolation" {
            let level = def.arg.as_deref().and_then(node_str).unwrap_or_default();
            let parsed = parse_isolation(&level)?;
            if stmt.name == "TRANSACTION" {
                if cx.in_transaction_block() {
                    if !cx.txn()?.set_isolation(parsed) {
                        return Err(SqlError::new(
                            "25001",
                            "SET TRANSACTION ISOLATION LEVEL must be called before any query",
                        ));
                    }
                    cx.settings().set("transaction_isolation", &level)?;
                } else {
                    cx.set_next_isolation(parsed);
                }
            } else {
                cx.settings().set("default_transaction_isolation", &level)?;
            }
        }
    }
    Ok(())
}

/// The columns SHOW returns (for Describe): `name, setting, description` for
/// SHOW ALL, else one text column named after the setting.
pub fn describe_show(
    cx: &mut dyn BackendContext,
    stmt: &VariableShowStmt,
) -> Result<Vec<OutputColumn>> {
    if stmt.name.eq_ignore_ascii_case("all") {
        return Ok(["name", "setting", "description"]
            .map(|n| OutputColumn::computed(n, SqlType::Text, -1))
            .to_vec());
    }
    let (name, _) = cx.settings().show(&stmt.name)?;
    Ok(vec![OutputColumn::computed(name, SqlType::Text, -1)])
}

/// SHOW name / SHOW ALL.
pub fn show(
    cx: &mut dyn BackendContext,
    stmt: &VariableShowStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    if stmt.name.eq_ignore_ascii_case("all") {
        sink.columns(&describe_show(cx, stmt)?)?;
        for row in cx.settings().show_all() {
            sink.row(&[
                Datum::Text(row.name.into()),
                Datum::Text(row.setting),
                Datum::Text(row.description.into()),
            ])?;
        }
        return sink.complete("SHOW");
    }
    let (name, value) = cx.settings().show(&stmt.name)?;
    sink.columns(&[OutputColumn::computed(name, SqlType::Text, -1)])?;
    sink.row(&[Datum::Text(value)])?;
    sink.complete("SHOW")
}

/// read_only_option -- the READ ONLY / READ WRITE mode of BEGIN, START
/// TRANSACTION or SET TRANSACTION, if given (`transaction_read_only`, which
/// the session enforces before every statement that writes). [NOT]
/// DEFERRABLE is accepted: it matters only to a SERIALIZABLE READ ONLY
/// transaction under SSI, and SERIALIZABLE runs as REPEATABLE READ here
/// (see docs/architecture.md).
pub(crate) fn read_only_option(options: &[pg_query::protobuf::Node]) -> Option<bool> {
    options.iter().find_map(|option| {
        let Some(NodeEnum::DefElem(def)) = option.node.as_ref() else { return None };
        (def.defname == "transaction_read_only").then(|| {
            def.arg.as_deref().and_then(node_str).is_some_and(|v| v != "0" && v != "false")
        })
    })
}

/// The `on`/`off` value of a read-only mode.
pub(crate) fn on_off(on: bool) -> &'static str {
    if on {
        "on"
    } else {
        "off"
    }
}

/// The isolation level named `level` (as the grammar spells it).
pub(crate) fn parse_isolation(level: &str) -> Result<IsolationLevel> {
    match level {
        "read uncommitted" | "read committed" => Ok(IsolationLevel::ReadCommitted),
        "repeatable read" | "serializable" => Ok(IsolationLevel::RepeatableRead),
        other => Err(SqlError::new(
            "22023",
            format!("invalid value for parameter \"transaction_isolation\": \"{other}\""),
        )),
    }
}
