//! Object definitions as SQL text: `pg_get_indexdef`, `pg_get_constraintdef`
//! and `pg_get_expr` (PostgreSQL's `ruleutils.c`), which psql's `\d` shows.
//!
//! PostgreSQL rebuilds these strings from the catalogs' node trees; sluice's
//! catalogs keep expressions (index predicates, column defaults) as SQL text
//! already in PostgreSQL's non-pretty form — a partial index's predicate
//! with its outer parentheses, `(b > 0)` — so the work here is to assemble
//! the rest of the statement from `pg_index`, `pg_class`, `pg_constraint`
//! and `pg_am`, quoting identifiers as PostgreSQL does, and to drop the
//! outer parentheses in pretty mode (`WHERE b > 0`). Deeper pretty-printing
//! (PostgreSQL also re-spaces and re-parenthesises nested expressions, and
//! labels constants with their types, `'x'::text`) is not done: the stored
//! text is shown as written.
//!
//! Every function answers NULL for an OID that names nothing, as
//! PostgreSQL's do.

use super::regproc::{qualified_if_hidden, qualified_name, relation};
use super::ExecHost;
use crate::catalog::constraint::{
    CON_BIN, CON_DEFERRABLE, CON_DEFERRED, CON_FKEY, CON_FRELID, CON_INDID, CON_KEY, CON_RELID,
    CON_TYPE, CON_VALIDATED,
};
use crate::catalog::relation::{by_oid, oid_of};
use crate::catalog::rows::int2_list;
use crate::catalog::schema::{PG_AM, PG_CLASS, PG_CONSTRAINT, PG_INDEX};
use crate::catalog::{index::INDOPTION_DESC, index::INDOPTION_NULLS_FIRST, scan_as};
use crate::error::{Result, SqlError};
use crate::parser::quote_identifier;
use sluice_common::Oid;
use sluice_types::Datum;

/// `pg_index` columns read here (positions in `catalog/schema.rs`).
const IND_RELID: usize = 1;
const IND_NKEYATTS: usize = 3;
const IND_UNIQUE: usize = 4;
const IND_NULLS_NOT_DISTINCT: usize = 5;
const IND_KEY: usize = 15;
const IND_OPTION: usize = 18;
const IND_PRED: usize = 20;

/// `pg_get_indexdef(index [, column, pretty])`: the whole CREATE INDEX
/// statement, or with a column number > 0 just that column's definition.
pub(super) fn index_def(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    let Some(Datum::Oid(index)) = args.first() else { return Ok(Datum::Null) };
    let column = args.get(1).and_then(Datum::as_i64).unwrap_or(0);
    let pretty = matches!(args.get(2), Some(Datum::Bool(true)));
    let Some(row) = index_row(host, *index)? else { return Ok(Datum::Null) };
    let Some(table) = table_columns(host, oid_of(&row[IND_RELID]))? else { return Ok(Datum::Null) };
    let keys = int2_list(&row[IND_KEY]);
    if column > 0 {
        let name =
            usize::try_from(column - 1).ok().and_then(|i| keys.get(i)).map(|&k| table.column(k));
        return Ok(Datum::Text(name.unwrap_or_default()));
    }
    let Some(rel) = relation(host, *index)? else { return Ok(Datum::Null) };
    let options = int2_list(&row[IND_OPTION]);
    let nkeys = row[IND_NKEYATTS].as_i64().unwrap_or(keys.len() as i64) as usize;
    let key_list: Vec<String> = keys
        .iter()
        .take(nkeys)
        .enumerate()
        .map(|(i, &k)| table.column(k) + order_suffix(options.get(i).copied().unwrap_or(0)))
        .collect();
    let mut def = format!(
        "CREATE {}INDEX {} ON {} USING {} ({})",
        if matches!(row[IND_UNIQUE], Datum::Bool(true)) { "UNIQUE " } else { "" },
        quote_identifier(&rel.name),
        table.qualified,
        access_method(host, *index)?,
        key_list.join(", ")
    );
    if keys.len() > nkeys {
        let included: Vec<String> = keys[nkeys..].iter().map(|&k| table.column(k)).collect();
        def += &format!(" INCLUDE ({})", included.join(", "));
    }
    if matches!(row[IND_NULLS_NOT_DISTINCT], Datum::Bool(true)) {
        def += " NULLS NOT DISTINCT";
    }
    def += &with_clause(host, *index)?;
    if let Some(predicate) = row[IND_PRED].as_str() {
        def += &format!(" WHERE {}", expression(predicate, pretty));
    }
    Ok(Datum::Text(def))
}

/// `pg_get_constraintdef(constraint [, pretty])`: `PRIMARY KEY (id)`,
/// `UNIQUE (a, b)`, with the index's options and the deferrability, or
/// `CHECK ((a > 0))` (`CHECK (a > 0)` in pretty mode).
pub(super) fn constraint_def(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    let Some(Datum::Oid(oid)) = args.first() else { return Ok(Datum::Null) };
    let pretty = matches!(args.get(1), Some(Datum::Bool(true)));
    let engine = host.env().engine.clone();
    let db = host.env().database;
    let rows = scan_as(&engine, db, &PG_CONSTRAINT, host.visibility(), |r| oid_of(&r[0]) == *oid)?;
    let Some((_, row)) = rows.into_iter().next() else { return Ok(Datum::Null) };
    if row[CON_TYPE].as_str() == Some("c") {
        return Ok(Datum::Text(check_def(&row, pretty)));
    }
    if row[CON_TYPE].as_str() == Some("f") {
        return foreign_key_def(host, &row);
    }
    let Some(table) = table_columns(host, oid_of(&row[CON_RELID]))? else { return Ok(Datum::Null) };
    let index = oid_of(&row[CON_INDID]);
    let nulls_not_distinct = index_row(host, index)?
        .is_some_and(|r| matches!(r[IND_NULLS_NOT_DISTINCT], Datum::Bool(true)));
    let kind = match row[CON_TYPE].as_str() {
        Some("p") => "PRIMARY KEY",
        Some("u") if nulls_not_distinct => "UNIQUE NULLS NOT DISTINCT",
        Some("u") => "UNIQUE",
        other => return Err(SqlError::internal(format!("invalid constraint type \"{other:?}\""))),
    };
    let columns: Vec<String> = int2_list(&row[CON_KEY]).iter().map(|&k| table.column(k)).collect();
    let mut def = format!("{kind} ({})", columns.join(", "));
    def += &with_clause(host, index)?;
    if matches!(row[CON_DEFERRABLE], Datum::Bool(true)) {
        def += " DEFERRABLE";
    }
    if matches!(row[CON_DEFERRED], Datum::Bool(true)) {
        def += " INITIALLY DEFERRED";
    }
    Ok(Datum::Text(def))
}

/// A foreign key's definition: `FOREIGN KEY (a) REFERENCES t(b)` with its
/// match type, actions, deferrability and validity, in PostgreSQL's order.
fn foreign_key_def(host: &mut ExecHost, row: &[Datum]) -> Result<Datum> {
    let Some(table) = table_columns(host, oid_of(&row[CON_RELID]))? else { return Ok(Datum::Null) };
    let referenced = oid_of(&row[CON_FRELID]);
    let Some(target) = table_columns(host, referenced)? else { return Ok(Datum::Null) };
    let Some(id) = relation(host, referenced)? else { return Ok(Datum::Null) };
    let names = |t: &TableColumns, d: &Datum| {
        int2_list(d).iter().map(|&k| t.column(k)).collect::<Vec<_>>().join(", ")
    };
    let mut def = format!(
        "FOREIGN KEY ({}) REFERENCES {}({})",
        names(&table, &row[CON_KEY]),
        qualified_if_hidden(host, &id)?,
        names(&target, &row[CON_FKEY])
    );
    let key = crate::catalog::foreign_key::ForeignKey::from_row(row);
    if key.match_full {
        def += " MATCH FULL";
    }
    for (event, action) in [("UPDATE", key.on_update), ("DELETE", key.on_delete)] {
        if let Some(words) = action.words() {
            def += &format!(" ON {event} {words}");
        }
    }
    if key.deferrable {
        def += " DEFERRABLE";
    }
    if key.initially_deferred {
        def += " INITIALLY DEFERRED";
    }
    if !key.validated {
        def += " NOT VALID";
    }
    Ok(Datum::Text(def))
}

/// A CHECK constraint's definition from its `pg_constraint` row.
fn check_def(row: &[Datum], pretty: bool) -> String {
    let text = row[CON_BIN].as_str().unwrap_or_default();
    let mut def = format!("CHECK ({})", expression(text, pretty));
    if !matches!(row[CON_VALIDATED], Datum::Bool(true)) {
        def += " NOT VALID";
    }
    def
}

/// `pg_get_viewdef(view [, pretty])`: the view's stored query (every
/// relation schema-qualified, `*` spelled out; see `commands/view.rs`) as
/// PostgreSQL starts and ends it, with a space and a semicolon. PostgreSQL
/// prints its query tree with its own layout and qualified column names,
/// which sluice's stored text does not reproduce. NULL for a relation that
/// is not a view; 42P01 for a name that finds nothing.
pub(super) fn view_def(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    let oid = match args.first() {
        Some(Datum::Oid(oid)) => *oid,
        Some(Datum::Text(name)) => super::regproc::relation_oid(host, name)?,
        _ => return Ok(Datum::Null),
    };
    let Some(rel) = relation(host, oid)? else { return Ok(Datum::Null) };
    use crate::catalog::schema::RelKind;
    if !matches!(rel.kind, RelKind::View | RelKind::MatView) {
        return Ok(Datum::Null);
    }
    let (engine, db) = (host.env().engine.clone(), host.env().database);
    let text = crate::catalog::rewrite::view_query(&engine, db, host.visibility(), oid)?;
    Ok(Datum::Text(format!(" {text};")))
}

/// `pg_get_ruledef(rule [, pretty])`: the CREATE RULE a view's `_RETURN`
/// rule amounts to, its query the stored text (see [`view_def`]); NULL for
/// an OID that is no rule.
pub(super) fn rule_def(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    let Some(Datum::Oid(oid)) = args.first() else { return Ok(Datum::Null) };
    let (engine, db) = (host.env().engine.clone(), host.env().database);
    let rules = crate::catalog::scan_eq_as(
        &engine,
        db,
        &crate::catalog::schema::PG_REWRITE,
        host.visibility(),
        0,
        &Datum::Oid(*oid),
        |_| true,
    )?;
    let Some((_, rule)) = rules.into_iter().next() else { return Ok(Datum::Null) };
    let view = crate::catalog::relation::oid_of(&rule[crate::catalog::rewrite::EV_CLASS]);
    let Some(rel) = relation(host, view)? else { return Ok(Datum::Null) };
    let name = super::regproc::qualified_name(host, &rel)?;
    let query = rule[crate::catalog::rewrite::EV_ACTION].as_str().unwrap_or_default();
    Ok(Datum::Text(format!(
        "CREATE RULE \"_RETURN\" AS\n    ON SELECT TO {name} DO INSTEAD  {query};"
    )))
}

/// `pg_get_expr(expr, relation [, pretty])`: the stored SQL text, without
/// its outer parentheses in pretty mode, its `'name'::regclass` constants
/// named as regclass output names them.
pub(super) fn get_expr(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    let pretty = matches!(args.get(2), Some(Datum::Bool(true)));
    match args.first() {
        Some(Datum::Text(text)) => {
            Ok(Datum::Text(expression(&regclass_constants(host, text)?, pretty)))
        }
        _ => Ok(Datum::Null),
    }
}

/// regclass_constants -- `text` with each `'name'::regclass` constant
/// spelled as PostgreSQL prints the OID it stands for: qualified only when
/// the search path does not find it (stored defaults qualify their
/// sequences so that they mean the same one under any search path). A name
/// that finds nothing is left as written.
fn regclass_constants(host: &mut ExecHost, text: &str) -> Result<String> {
    const CAST: &str = "::regclass";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('\'') {
        out.push_str(&rest[..start]);
        let literal = &rest[start..];
        let end = crate::parser::quoted_len(literal, b'\'');
        let (quoted, after) = literal.split_at(end);
        let name = quoted[1..quoted.len().saturating_sub(1).max(1)].replace("''", "'");
        match after.starts_with(CAST).then(|| regclass_name(host, &name)).transpose()? {
            Some(Some(shown)) => out.push_str(&format!("'{}'", shown.replace('\'', "''"))),
            _ => out.push_str(quoted),
        }
        rest = after;
    }
    out.push_str(rest);
    Ok(out)
}

/// The relation `name` finds as regclass input, printed as regclass output;
/// None if it finds nothing.
fn regclass_name(host: &mut ExecHost, name: &str) -> Result<Option<String>> {
    match super::regproc::relation_oid(host, name) {
        Ok(oid) => relation(host, oid)?.map(|r| qualified_if_hidden(host, &r)).transpose(),
        Err(_) => Ok(None),
    }
}

/// A stored expression as printed: pretty mode drops parentheses that
/// enclose the whole expression (PostgreSQL's top level needs none) and
/// those around a number or column being cast (`(0)::numeric` is
/// `0::numeric`).
fn expression(text: &str, pretty: bool) -> String {
    if !pretty {
        return text.to_string();
    }
    let inner = if encloses_all(text) { &text[1..text.len() - 1] } else { text };
    unparenthesise_simple_casts(inner)
}

/// `(x)::type` as `x::type` where `x` is a number, a plain name or already
/// parenthesised (`((a + b))::numeric` is `(a + b)::numeric`), outside
/// string literals and quoted identifiers.
fn unparenthesise_simple_casts(text: &str) -> String {
    let simple = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
    let mut out = String::with_capacity(text.len());
    let mut quote = None;
    let mut i = 0;
    while let Some(c) = text[i..].chars().next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(') => {
                let body = &text[i + 1..];
                let len = match body.starts_with('(') {
                    true => closing(body).map_or(0, |end| end + 1),
                    false => body.find(|c: char| !simple(c)).unwrap_or(body.len()),
                };
                if len > 0 && body[len..].starts_with(")::") {
                    out.push_str(&unparenthesise_simple_casts(&body[..len]));
                    i += len + 2;
                    continue;
                }
            }
            _ => {}
        }
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// Where the parenthesis opening `text` closes (string literals and quoted
/// identifiers skipped).
fn closing(text: &str) -> Option<usize> {
    let mut depth = 0;
    let mut quote = None;
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether `text` is `( ... )` with the first parenthesis closing last
/// (string literals and quoted identifiers skipped).
fn encloses_all(text: &str) -> bool {
    text.starts_with('(') && closing(text) == Some(text.len() - 1)
}

/// ` DESC`, ` NULLS FIRST`, ...: what a key's `indoption` bits say beyond
/// the default (ASC NULLS LAST, DESC NULLS FIRST).
fn order_suffix(option: i16) -> &'static str {
    let descending = option & INDOPTION_DESC != 0;
    let nulls_first = option & INDOPTION_NULLS_FIRST != 0;
    match (descending, nulls_first) {
        (true, true) => " DESC",
        (true, false) => " DESC NULLS LAST",
        (false, true) => " NULLS FIRST",
        (false, false) => "",
    }
}

/// ` WITH (name='value', ...)` for an index's storage options, or nothing.
fn with_clause(host: &mut ExecHost, index: Oid) -> Result<String> {
    let (engine, db) = (host.env().engine.clone(), host.env().database);
    let Some(rel) = by_oid(&engine, db, host.visibility(), index)? else {
        return Ok(String::new());
    };
    let Some(options) = rel.options else { return Ok(String::new()) };
    let list: Vec<String> = options
        .trim_start_matches('{')
        .trim_end_matches('}')
        .split(',')
        .filter_map(|o| o.split_once('='))
        .map(|(name, value)| format!("{}='{}'", quote_identifier(name), value.replace('\'', "''")))
        .collect();
    Ok(if list.is_empty() { String::new() } else { format!(" WITH ({})", list.join(", ")) })
}

/// The name of a relation's access method (`pg_class.relam` in `pg_am`).
fn access_method(host: &mut ExecHost, relation: Oid) -> Result<String> {
    let (engine, db) = (host.env().engine.clone(), host.env().database);
    let class = scan_as(&engine, db, &PG_CLASS, host.visibility(), |r| oid_of(&r[0]) == relation)?;
    let am = class.first().map_or(0, |(_, r)| oid_of(&r[5]));
    let rows = scan_as(&engine, db, &PG_AM, host.visibility(), |r| oid_of(&r[0]) == am)?;
    Ok(rows.first().and_then(|(_, r)| r[1].as_str().map(str::to_string)).unwrap_or_default())
}

/// The `pg_index` row of an index.
fn index_row(host: &mut ExecHost, index: Oid) -> Result<Option<Vec<Datum>>> {
    let (engine, db) = (host.env().engine.clone(), host.env().database);
    let rows = scan_as(&engine, db, &PG_INDEX, host.visibility(), |r| oid_of(&r[0]) == index)?;
    Ok(rows.into_iter().next().map(|(_, r)| r))
}

/// What index and constraint definitions need of their table.
struct TableColumns {
    /// `schema.table`, quoted as needed.
    qualified: String,
    /// Column names by attnum - 1.
    names: Vec<String>,
}

impl TableColumns {
    /// Column `attnum`'s name, quoted as needed.
    fn column(&self, attnum: i16) -> String {
        let name = usize::try_from(attnum - 1).ok().and_then(|i| self.names.get(i));
        name.map_or_else(|| attnum.to_string(), |n| quote_identifier(n))
    }
}

/// The table `oid`'s qualified name and column names.
fn table_columns(host: &mut ExecHost, oid: Oid) -> Result<Option<TableColumns>> {
    let (engine, db) = (host.env().engine.clone(), host.env().database);
    let Some(desc) = by_oid(&engine, db, host.visibility(), oid)? else { return Ok(None) };
    let Some(id) = relation(host, oid)? else { return Ok(None) };
    Ok(Some(TableColumns {
        qualified: qualified_name(host, &id)?,
        names: desc.columns.into_iter().map(|c| c.name).collect(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pretty_mode_drops_outer_and_simple_cast_parentheses() {
        let cases = [
            ("(price > (0)::numeric)", "price > 0::numeric"),
            ("((a + b))::numeric", "(a + b)::numeric"),
            ("(s = '(x)::text'::text)", "s = '(x)::text'::text"),
            ("(a > 0) AND (b > 0)", "(a > 0) AND (b > 0)"),
            ("(\"(q)\" = 'a')", "\"(q)\" = 'a'"),
        ];
        for (stored, shown) in cases {
            assert_eq!(expression(stored, true), shown, "{stored}");
            assert_eq!(expression(stored, false), stored);
        }
    }
}
