//! Values becoming of a domain (PostgreSQL's CoerceToDomain and
//! `utils/adt/domains.c`).
//!
//! Coercion to a domain is coercion to its base type (with the domain's
//! typmod) followed by a test of the domain's constraints: NOT NULL, then
//! each CHECK in name order. The CHECK expressions are stored as SQL text
//! over `VALUE` (`sluice_types::domains`); they are analysed here where a
//! coercion is planned, over a one-column scope named `value`, and
//! evaluated with the tested value as that row. A NULL passes every CHECK,
//! as in SQL; a CHECK that yields false fails with 23514.

use sluice_types::domains::DomainType;
use sluice_types::Datum;

use super::tree::Expr;
use super::{analyze, check_boolean, AnalyzeHost, EvalHost, Scope, ScopeColumn};
use crate::{Result, SqlError};

/// coerce_to_domain -- `arg` (already of `domain`'s base type) as a value
/// of `domain`, its constraints tested at evaluation.
pub(super) fn coerce_to_domain(
    host: &mut dyn AnalyzeHost,
    arg: Expr,
    domain: DomainType,
    location: Option<u32>,
) -> Result<Expr> {
    let checks = analysed_checks(host, domain)?;
    Ok(Expr::CoerceToDomain { arg: Box::new(arg), domain, checks, location })
}

/// The domain's CHECK constraints, each analysed.
fn analysed_checks(host: &mut dyn AnalyzeHost, domain: DomainType) -> Result<Checks> {
    let checks = &domain.desc().checks;
    checks.iter().map(|c| Ok((c.name.clone(), check_expr(host, domain, &c.expr)?))).collect()
}

/// check_expr -- a domain CHECK's text analysed over `VALUE`.
pub(crate) fn check_expr(
    host: &mut dyn AnalyzeHost,
    domain: DomainType,
    text: &str,
) -> Result<Expr> {
    let node = crate::parser::parse_expr(text, "domain check constraint")?;
    let desc = domain.desc();
    analyze_check(&node, desc.base, desc.typmod, host)
}

/// analyze_check -- a domain CHECK expression over `VALUE` (a value of
/// `base(typmod)`), which must be boolean.
pub(crate) fn analyze_check(
    node: &pg_query::protobuf::Node,
    base: sluice_types::SqlType,
    typmod: i32,
    host: &mut dyn AnalyzeHost,
) -> Result<Expr> {
    check_boolean(analyze(node, &value_scope(base, typmod), host)?, "CHECK")
}

/// The scope of a domain CHECK: the tested value, of the domain's base
/// type, as column 0 `value`.
pub(crate) fn value_scope(base: sluice_types::SqlType, typmod: i32) -> Scope {
    Scope {
        columns: vec![ScopeColumn { table: None, name: "value".into(), ty: base, typmod }],
        relations: Vec::new(),
    }
}

/// check_value -- tests `value` against `domain`'s constraints: 23502 for
/// a NULL in a NOT NULL domain, 23514 for a CHECK that fails.
pub(super) fn check_value(
    domain: DomainType,
    checks: &[(String, Expr)],
    value: &Datum,
    host: &mut dyn EvalHost,
) -> Result<()> {
    let name = &domain.desc().sql_name;
    if value.is_null() {
        if domain.desc().not_null {
            return Err(SqlError::new(
                "23502",
                format!("domain {name} does not allow null values"),
            ));
        }
        return Ok(());
    }
    for (constraint, check) in checks {
        if matches!(super::eval(check, std::slice::from_ref(value), host)?, Datum::Bool(false)) {
            return Err(SqlError::new(
                "23514",
                format!("value for domain {name} violates check constraint \"{constraint}\""),
            ));
        }
    }
    Ok(())
}

/// A domain's CHECK constraints, analysed: name and expression.
type Checks = Vec<(String, Expr)>;

/// The domain-typed columns of rows that arrive without expressions
/// (COPY FROM), with their analysed checks.
pub struct DomainColumns(Vec<(usize, DomainType, Checks)>);

impl DomainColumns {
    /// The columns among `columns` whose type in `types` is a domain.
    pub fn of(
        columns: &[usize],
        types: &[sluice_types::SqlType],
        host: &mut dyn AnalyzeHost,
    ) -> Result<DomainColumns> {
        let mut found = Vec::new();
        for &column in columns {
            let Some(sluice_types::SqlType::Domain(domain)) = types.get(column).copied() else {
                continue;
            };
            found.push((column, domain, analysed_checks(host, domain)?));
        }
        Ok(DomainColumns(found))
    }

    /// check_column -- tests `value`, just read for `column`, if that
    /// column is of a domain (PostgreSQL's domain_in, run as each field
    /// is converted).
    pub fn check_column(
        &self,
        column: usize,
        value: &Datum,
        host: &mut dyn EvalHost,
    ) -> Result<()> {
        match self.0.iter().find(|(c, ..)| *c == column) {
            Some((_, domain, checks)) => check_value(*domain, checks, value, host),
            None => Ok(()),
        }
    }
}
