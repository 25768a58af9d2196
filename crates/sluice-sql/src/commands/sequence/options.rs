//! Sequence options: the `CREATE/ALTER SEQUENCE` option list and how it
//! turns into parameters and a counter (PostgreSQL's `init_params`).
//!
//! The rules are PostgreSQL 15's, because users see them: the bounds default
//! from the data type and the direction, START defaults to the bound the
//! sequence starts from, RESTART without a value goes back to START, changing
//! the data type moves bounds that were the old type's limits, and every
//! option that changes what nextval hands out resets `log_cnt` so the next
//! call logs afresh. Errors carry PostgreSQL's SQLSTATEs and texts.

use crate::error::position;
use crate::error::{Result, SqlError};
use crate::parser::node_str;
use pg_query::protobuf::{DefElem, Node};
use pg_query::NodeEnum;
use sluice_access::sequence::{SeqData, SeqParams, SeqState};
use sluice_common::Oid;
use sluice_types::SqlType;

/// The option list of one CREATE/ALTER SEQUENCE, each option at most once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SeqOptions {
    /// `AS type`.
    pub as_type: Option<SqlType>,
    /// `INCREMENT [BY] n`.
    pub increment: Option<i64>,
    /// `[NO] CYCLE`.
    pub cycle: Option<bool>,
    /// `MAXVALUE n` (`Some(None)`: NO MAXVALUE).
    pub max: Option<Option<i64>>,
    /// `MINVALUE n` (`Some(None)`: NO MINVALUE).
    pub min: Option<Option<i64>>,
    /// `START [WITH] n`.
    pub start: Option<i64>,
    /// `RESTART [[WITH] n]` (`Some(None)`: back to START).
    pub restart: Option<Option<i64>>,
    /// `CACHE n`.
    pub cache: Option<i64>,
    /// `OWNED BY table.column` or `OWNED BY NONE` (the name list as written).
    pub owned_by: Option<Vec<String>>,
}

impl SeqOptions {
    /// parse -- the options of `CREATE/ALTER SEQUENCE ... options`.
    pub fn parse(options: &[Node]) -> Result<SeqOptions> {
        let mut o = SeqOptions::default();
        for option in options {
            let Some(NodeEnum::DefElem(def)) = option.node.as_ref() else { continue };
            o.set(def)?;
        }
        Ok(o)
    }

    /// Records one option; a repeated one is 42601.
    fn set(&mut self, def: &DefElem) -> Result<()> {
        let conflict =
            || SqlError::syntax("conflicting or redundant options").at(position(def.location));
        macro_rules! once {
            ($field:expr, $value:expr) => {{
                if $field.is_some() {
                    return Err(conflict());
                }
                $field = Some($value);
            }};
        }
        match def.defname.as_str() {
            "as" => once!(self.as_type, type_arg(def)?),
            "increment" => once!(self.increment, int_arg(def)?),
            "cycle" => once!(self.cycle, bool_arg(def)),
            "maxvalue" => once!(self.max, optional_int_arg(def)?),
            "minvalue" => once!(self.min, optional_int_arg(def)?),
            "start" => once!(self.start, int_arg(def)?),
            "restart" => once!(self.restart, optional_int_arg(def)?),
            "cache" => once!(self.cache, int_arg(def)?),
            "owned_by" => once!(self.owned_by, name_list_arg(def)),
            "sequence_name" => {
                return Err(SqlError::syntax("invalid sequence option SEQUENCE NAME")
                    .at(position(def.location)))
            }
            other => return Err(SqlError::internal(format!("option \"{other}\" not recognized"))),
        }
        Ok(())
    }

    /// Whether the options change the sequence's data (everything but OWNED
    /// BY), which ALTER SEQUENCE applies by writing a new relfilenode.
    pub fn rewrites(&self) -> bool {
        SeqOptions { owned_by: None, ..self.clone() } != SeqOptions::default()
    }
}

fn type_arg(def: &DefElem) -> Result<SqlType> {
    match def.arg.as_deref().and_then(|a| a.node.as_ref()) {
        Some(NodeEnum::TypeName(tn)) => Ok(crate::expr::type_from_name(tn)?.0),
        _ => Err(SqlError::internal("AS without a type")),
    }
}

fn bool_arg(def: &DefElem) -> bool {
    match def.arg.as_deref().and_then(|a| a.node.as_ref()) {
        Some(NodeEnum::Boolean(b)) => b.boolval,
        _ => true,
    }
}

/// An integer option (PostgreSQL's defGetInt64): big values arrive as
/// `Float` text and must still be bigints.
fn int_arg(def: &DefElem) -> Result<i64> {
    let text = def
        .arg
        .as_deref()
        .and_then(node_str)
        .ok_or_else(|| SqlError::syntax(format!("{} requires a numeric value", def.defname)))?;
    text.parse::<i64>().map_err(|_| {
        let integral = text.trim_start_matches(['-', '+']).bytes().all(|b| b.is_ascii_digit());
        if integral {
            SqlError::new("22003", format!("value \"{text}\" is out of range for type bigint"))
        } else {
            SqlError::new("22P02", format!("invalid input syntax for type bigint: \"{text}\""))
        }
    })
}

fn optional_int_arg(def: &DefElem) -> Result<Option<i64>> {
    def.arg.as_ref().map(|_| int_arg(def)).transpose()
}

fn name_list_arg(def: &DefElem) -> Vec<String> {
    match def.arg.as_deref().and_then(|a| a.node.as_ref()) {
        Some(NodeEnum::List(list)) => list.items.iter().filter_map(node_str).collect(),
        _ => Vec::new(),
    }
}

/// The limits of a sequence data type.
fn type_range(typid: Oid) -> (i64, i64) {
    match SqlType::from_oid(typid) {
        Some(SqlType::Int2) => (i16::MIN.into(), i16::MAX.into()),
        Some(SqlType::Int4) => (i32::MIN.into(), i32::MAX.into()),
        _ => (i64::MIN, i64::MAX),
    }
}

/// The SQL name of a sequence data type, for messages.
fn type_display(typid: Oid) -> &'static str {
    match SqlType::from_oid(typid) {
        Some(SqlType::Int2) => "smallint",
        Some(SqlType::Int4) => "integer",
        _ => "bigint",
    }
}

fn invalid(message: String) -> SqlError {
    SqlError::new("22023", message)
}

/// init_params -- applies `o` to `current` (ALTER SEQUENCE) or to nothing
/// (CREATE SEQUENCE) and checks the result, as PostgreSQL's init_params.
pub fn init_params(o: &SeqOptions, current: Option<SeqState>) -> Result<SeqState> {
    let is_init = current.is_none();
    let mut p = current.map_or(
        SeqParams { typid: 0, start: 0, increment: 0, max: 0, min: 0, cache: 0, cycle: false },
        |s| s.params,
    );
    let mut d = current.map_or(SeqData { last_value: 0, log_cnt: 0, is_called: false }, |s| s.data);
    let (mut reset_max, mut reset_min) = (false, false);
    if is_init {
        d.log_cnt = 0;
    }
    match o.as_type {
        Some(ty) => {
            if !matches!(ty, SqlType::Int2 | SqlType::Int4 | SqlType::Int8) {
                return Err(invalid("sequence type must be smallint, integer, or bigint".into()));
            }
            if !is_init {
                // Bounds that were the old type's limits follow the new type.
                let (lo, hi) = type_range(p.typid);
                reset_max = p.max == hi;
                reset_min = p.min == lo;
            }
            p.typid = ty.oid();
        }
        None if is_init => p.typid = SqlType::Int8.oid(),
        None => {}
    }
    if let Some(increment) = o.increment {
        if increment == 0 {
            return Err(invalid("INCREMENT must not be zero".into()));
        }
        p.increment = increment;
        d.log_cnt = 0;
    } else if is_init {
        p.increment = 1;
    }
    if let Some(cycle) = o.cycle {
        p.cycle = cycle;
        d.log_cnt = 0;
    }
    let (lo, hi) = type_range(p.typid);
    if let Some(Some(max)) = o.max {
        p.max = max;
        d.log_cnt = 0;
    } else if is_init || o.max.is_some() || reset_max {
        p.max = if p.increment > 0 || reset_max { hi } else { -1 };
        d.log_cnt = 0;
    }
    if p.max < lo || p.max > hi {
        return Err(invalid(format!(
            "MAXVALUE ({}) is out of range for sequence data type {}",
            p.max,
            type_display(p.typid)
        )));
    }
    if let Some(Some(min)) = o.min {
        p.min = min;
        d.log_cnt = 0;
    } else if is_init || o.min.is_some() || reset_min {
        p.min = if p.increment < 0 || reset_min { lo } else { 1 };
        d.log_cnt = 0;
    }
    if p.min < lo || p.min > hi {
        return Err(invalid(format!(
            "MINVALUE ({}) is out of range for sequence data type {}",
            p.min,
            type_display(p.typid)
        )));
    }
    if p.min >= p.max {
        return Err(invalid(format!(
            "MINVALUE ({}) must be less than MAXVALUE ({})",
            p.min, p.max
        )));
    }
    if let Some(start) = o.start {
        p.start = start;
    } else if is_init {
        p.start = if p.increment > 0 { p.min } else { p.max };
    }
    if p.start < p.min {
        return Err(invalid(format!(
            "START value ({}) cannot be less than MINVALUE ({})",
            p.start, p.min
        )));
    }
    if p.start > p.max {
        return Err(invalid(format!(
            "START value ({}) cannot be greater than MAXVALUE ({})",
            p.start, p.max
        )));
    }
    if let Some(restart) = o.restart {
        d.last_value = restart.unwrap_or(p.start);
        d.is_called = false;
        d.log_cnt = 0;
    } else if is_init {
        d.last_value = p.start;
        d.is_called = false;
    }
    if d.last_value < p.min {
        return Err(invalid(format!(
            "RESTART value ({}) cannot be less than MINVALUE ({})",
            d.last_value, p.min
        )));
    }
    if d.last_value > p.max {
        return Err(invalid(format!(
            "RESTART value ({}) cannot be greater than MAXVALUE ({})",
            d.last_value, p.max
        )));
    }
    if let Some(cache) = o.cache {
        if cache <= 0 {
            return Err(invalid(format!("CACHE ({cache}) must be greater than zero")));
        }
        p.cache = cache;
        d.log_cnt = 0;
    } else if is_init {
        p.cache = 1;
    }
    Ok(SeqState { params: p, data: d })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(sql: &str) -> Result<SeqOptions> {
        let parsed = crate::parser::parse(sql).unwrap();
        match &parsed[0].node {
            NodeEnum::CreateSeqStmt(s) => SeqOptions::parse(&s.options),
            NodeEnum::AlterSeqStmt(s) => SeqOptions::parse(&s.options),
            other => panic!("{other:?}"),
        }
    }

    fn create(sql: &str) -> Result<SeqState> {
        init_params(&opts(sql)?, None)
    }

    #[test]
    fn defaults_follow_type_and_direction() {
        let s = create("CREATE SEQUENCE s").unwrap();
        assert_eq!((s.params.min, s.params.max, s.params.start), (1, i64::MAX, 1));
        assert_eq!((s.params.increment, s.params.cache, s.params.cycle), (1, 1, false));
        assert_eq!((s.data.last_value, s.data.is_called), (1, false));
        let s = create("CREATE SEQUENCE s AS smallint INCREMENT BY -2").unwrap();
        assert_eq!((s.params.min, s.params.max, s.params.start), (-32768, -1, -1));
        let s =
            create("CREATE SEQUENCE s AS integer MINVALUE 10 NO MAXVALUE CYCLE CACHE 5").unwrap();
        assert_eq!((s.params.min, s.params.max, s.params.start), (10, i32::MAX as i64, 10));
        assert!(s.params.cycle);
        let s = create("CREATE SEQUENCE s START WITH 9223372036854775807").unwrap();
        assert_eq!(s.data.last_value, i64::MAX);
    }

    #[test]
    fn bad_options_fail_like_postgres() {
        let message = |sql: &str| create(sql).unwrap_err().message;
        assert_eq!(message("CREATE SEQUENCE s INCREMENT 0"), "INCREMENT must not be zero");
        assert_eq!(
            message("CREATE SEQUENCE s AS text"),
            "sequence type must be smallint, integer, or bigint"
        );
        assert_eq!(
            message("CREATE SEQUENCE s AS smallint MAXVALUE 100000"),
            "MAXVALUE (100000) is out of range for sequence data type smallint"
        );
        assert_eq!(
            message("CREATE SEQUENCE s MINVALUE 5 MAXVALUE 5"),
            "MINVALUE (5) must be less than MAXVALUE (5)"
        );
        assert_eq!(
            message("CREATE SEQUENCE s MINVALUE 5 START 1"),
            "START value (1) cannot be less than MINVALUE (5)"
        );
        assert_eq!(message("CREATE SEQUENCE s CACHE 0"), "CACHE (0) must be greater than zero");
        assert_eq!(
            message("CREATE SEQUENCE s CACHE 2 CACHE 3"),
            "conflicting or redundant options"
        );
        assert_eq!(
            message("CREATE SEQUENCE s START 99999999999999999999"),
            "value \"99999999999999999999\" is out of range for type bigint"
        );
    }

    #[test]
    fn alter_keeps_what_is_not_named_and_moves_type_limits() {
        let s = create("CREATE SEQUENCE s AS integer").unwrap();
        let s = SeqState { data: SeqData { last_value: 7, log_cnt: 20, is_called: true }, ..s };
        let o = opts("ALTER SEQUENCE s AS bigint").unwrap();
        assert!(o.rewrites());
        let a = init_params(&o, Some(s)).unwrap();
        assert_eq!((a.params.max, a.data.last_value, a.data.log_cnt), (i64::MAX, 7, 0));
        let a = init_params(&opts("ALTER SEQUENCE s RESTART").unwrap(), Some(s)).unwrap();
        assert_eq!((a.data.last_value, a.data.is_called), (1, false));
        let a = init_params(&opts("ALTER SEQUENCE s RESTART WITH 40").unwrap(), Some(s)).unwrap();
        assert_eq!(a.data.last_value, 40);
        let o = opts("ALTER SEQUENCE s OWNED BY t.id").unwrap();
        assert!(!o.rewrites());
        assert_eq!(o.owned_by, Some(vec!["t".to_string(), "id".to_string()]));
        let e = init_params(&opts("ALTER SEQUENCE s MAXVALUE 5").unwrap(), Some(s)).unwrap_err();
        assert_eq!(e.message, "RESTART value (7) cannot be greater than MAXVALUE (5)");
    }
}
