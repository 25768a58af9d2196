//! A view's options (PostgreSQL's view reloptions in
//! `access/common/reloptions.c` and DefineView's check in
//! `commands/view.c`): `WITH (check_option = ..., security_barrier = ...,
//! security_invoker = ...)` and `WITH [LOCAL | CASCADED] CHECK OPTION`,
//! kept in `pg_class.reloptions` as PostgreSQL prints them.
//!
//! `check_option` is what INSERT and UPDATE through the view test
//! (`optimizer/modify/view_target.rs`). `security_barrier` and
//! `security_invoker` are validated and kept: they change nothing in
//! sluice yet, and lose nothing by it — a security barrier keeps functions
//! that could leak rows from running before the view's own conditions,
//! and sluice has no user-defined functions; `security_invoker` chooses
//! whose privileges the view's relations are checked with, and sluice
//! checks no privileges.

use crate::error::{Result, SqlError};
use crate::optimizer::modify::not_auto_updatable;
use crate::parser::def_arg_string;
use pg_query::protobuf::{SelectStmt, ViewCheckOption, ViewStmt};
use pg_query::NodeEnum;

/// view_options -- the `reloptions` of the view `stmt` makes over `query`.
pub(super) fn view_options(stmt: &ViewStmt, query: &SelectStmt) -> Result<Option<String>> {
    let mut options: Vec<(String, String)> = Vec::new();
    for option in &stmt.options {
        let Some(NodeEnum::DefElem(def)) = option.node.as_ref() else { continue };
        options.push((def.defname.clone(), def_arg_string(def)));
    }
    match ViewCheckOption::try_from(stmt.with_check_option) {
        Ok(ViewCheckOption::LocalCheckOption) => {
            options.push(("check_option".into(), "local".into()))
        }
        Ok(ViewCheckOption::CascadedCheckOption) => {
            options.push(("check_option".into(), "cascaded".into()))
        }
        _ => {}
    }
    for (i, (name, value)) in options.iter().enumerate() {
        if options[..i].iter().any(|(n, _)| n == name) {
            return Err(SqlError::new(
                "22023",
                format!("parameter \"{name}\" specified more than once"),
            ));
        }
        validate(name, value)?;
    }
    if options.iter().any(|(name, _)| name == "check_option") {
        refuse_check_option(query)?;
    }
    let items: Vec<String> = options.iter().map(|(k, v)| format!("{k}={v}")).collect();
    Ok((!items.is_empty()).then(|| format!("{{{}}}", items.join(","))))
}

/// 22023 for an option views do not have or a value it does not take.
fn validate(name: &str, value: &str) -> Result<()> {
    match name {
        "check_option" if matches!(value, "local" | "cascaded") => Ok(()),
        "check_option" => Err(SqlError::new(
            "22023",
            format!("invalid value for enum option \"check_option\": {value}"),
        )
        .with_detail("Valid values are \"local\" and \"cascaded\".")),
        "security_barrier" | "security_invoker" if parses_as_bool(value) => Ok(()),
        "security_barrier" | "security_invoker" => Err(SqlError::new(
            "22023",
            format!("invalid value for boolean option \"{name}\": {value}"),
        )),
        other => Err(SqlError::new("22023", format!("unrecognized parameter \"{other}\""))),
    }
}

/// Whether `value` is a boolean as PostgreSQL's parse_bool reads one.
fn parses_as_bool(value: &str) -> bool {
    sluice_types::bool::parse(value).is_ok()
}

/// 0A000 for a check option on a view that cannot be written through.
fn refuse_check_option(query: &SelectStmt) -> Result<()> {
    let single_relation = matches!(
        query.from_clause.first().and_then(|n| n.node.as_ref()),
        Some(NodeEnum::RangeVar(_))
    );
    let why = not_auto_updatable(query).or((!single_relation).then_some(
        "Views that do not select from a single table or view are not automatically updatable.",
    ));
    match why {
        Some(why) => Err(SqlError::new(
            "0A000",
            "WITH CHECK OPTION is supported only on automatically updatable views",
        )
        .with_hint(why)),
        None => Ok(()),
    }
}
