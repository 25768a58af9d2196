//! Function calls (PostgreSQL's `ParseFuncOrColumn` in `parse_func.c`).
//!
//! A call is analyzed in PostgreSQL's order: arguments first, then the
//! overload (`proc.rs` catalog, `candidates.rs` rules), then the arguments
//! are coerced to the chosen signature. What the call becomes depends on the
//! entry: a scalar [`Expr::Call`], an aggregate reported to the host (and
//! read back as [`Expr::AggRef`]), or a host-answered session function. A
//! one-argument call of a type's name with no such function is a cast
//! (`text(42)`, `uuid('...')`), as in PostgreSQL.
//!
//! Aggregate rules checked here: no aggregate inside another's argument
//! (42803), and DISTINCT, `*`, ORDER BY or FILTER only on aggregates
//! (42809). FILTER, ordered aggregates, window functions and VARIADIC
//! arrays are not supported (0A000).

use pg_query::protobuf::node::Node as NodeEnum;
use pg_query::protobuf::{FuncCall, Node};
use sluice_types::{AggKind, Datum, RegKind, SqlType};

use super::analyze::Analyzer;
use super::builtin::Builtin;
use super::candidates::{choose, ArgType, Choice};
use super::coerce::{coerce_implicit, coerce_to_target, type_name, CoercionContext};
use super::polymorphic;
use super::proc::{self, Imp, Proc};
use super::tree::{AggClauses, AggOrderKey, Expr};
use super::typename::{position_of, string_of};
use super::AnalyzeHost;
use crate::{Result, SqlError};

/// Functions PostgreSQL has that sluice lacks and that users commonly reach
/// for: a clear 0A000 instead of "does not exist".
const UNSUPPORTED: &[&str] = &[
    "bool_and",
    "bool_or",
    "every",
    "json_agg",
    "jsonb_agg",
    "jsonb_object_agg",
    "stddev",
    "stddev_pop",
    "stddev_samp",
    "variance",
    "var_pop",
    "var_samp",
    "bit_and",
    "bit_or",
    "percentile_cont",
    "percentile_disc",
    "mode",
    "row_number",
    "rank",
    "dense_rank",
    "lag",
    "lead",
    "first_value",
    "last_value",
    "ntile",
    "generate_series",
    "unnest",
    "jsonb_each",
    "jsonb_each_text",
    "jsonb_array_elements",
    "jsonb_array_elements_text",
    "jsonb_object_keys",
    "regexp_replace",
    "regexp_matches",
    "regexp_split_to_table",
    "to_char",
    "to_date",
    "format",
    "overlay",
    "jsonb_build_object",
    "jsonb_build_array",
    "to_jsonb",
];

/// func_call -- analyzes a function call.
pub(super) fn func_call(a: &mut Analyzer, fc: &FuncCall) -> Result<Expr> {
    let location = position_of(fc.location);
    let names: Vec<&str> = fc.funcname.iter().filter_map(string_of).collect();
    let display = names.join(".");
    let name = match names.as_slice() {
        [name] | ["pg_catalog", name] => *name,
        _ => "",
    };
    if fc.over.is_some() {
        return Err(SqlError::unsupported("window functions are not supported").at(location));
    }
    if fc.func_variadic {
        return Err(SqlError::unsupported("VARIADIC arguments are not supported").at(location));
    }
    let args = analyze_args(a, &fc.args)?;
    if name == "pg_typeof" && args.len() == 1 {
        let value = Datum::Text(type_name(args[0].ty()));
        return Ok(Expr::Const { value, ty: SqlType::Text, typmod: -1, location });
    }
    if let Some(func) = super::enums::support_function(name, args.len()) {
        return super::enums::support_call(name, func, args, location);
    }
    if let Some((kind, ty)) = enum_min_max(name, &args) {
        return aggregate(a, fc, kind, ty, args, &[ArgType::Is(ty)], location);
    }
    if let (true, [array]) = (name == "unnest", args.as_slice()) {
        if let Some(element) = array.ty().base().element() {
            reject_aggregate_syntax(fc, name, location)?;
            return Ok(Expr::Call { func: Builtin::Unnest, args, ty: element, location });
        }
    }
    if !proc::exists(name) {
        if let Some(cast) = function_style_cast(a.host, name, &args, location)? {
            return Ok(cast);
        }
        if UNSUPPORTED.contains(&name) {
            return Err(
                SqlError::unsupported(format!("function {name} is not supported")).at(location)
            );
        }
    }
    // A domain argument is matched as its base type (PostgreSQL's
    // func_select_candidate looks through domains).
    let inputs: Vec<SqlType> = args.iter().map(|a| a.ty().base()).collect();
    let candidates: Vec<(&Proc, Vec<ArgType>)> =
        proc::lookup(name).filter_map(|p| p.signature(args.len()).map(|sig| (p, sig))).collect();
    let signatures: Vec<Vec<ArgType>> = candidates.iter().map(|(_, s)| s.clone()).collect();
    let (entry, signature) = match choose(&inputs, &signatures, false) {
        Choice::One(i) => &candidates[i],
        choice => return Err(func_error(choice, &display, &inputs).at(location)),
    };
    let signature = &polymorphic::resolve(&inputs, signature)
        .map_err(|e| e.at(location))?
        .ok_or_else(|| func_error(Choice::NoMatch, &display, &inputs).at(location))?;
    let result = match (entry.array_result, signature.first()) {
        (true, Some(ArgType::Is(array @ SqlType::Array(_)))) => *array,
        (true, Some(ArgType::Is(element))) => SqlType::array_of(*element)
            .ok_or_else(|| func_error(Choice::NoMatch, &display, &inputs).at(location))?,
        _ => entry.result,
    };
    match entry.imp {
        Imp::Agg(_) if entry.name == "string_agg" => string_agg(a, fc, args, location),
        Imp::Agg(kind) => aggregate(a, fc, kind, result, args, signature, location),
        Imp::Call(func) => {
            reject_aggregate_syntax(fc, name, location)?;
            let args = coerce_args(a.host, args, signature)?;
            Ok(Expr::Call { func, args, ty: result, location })
        }
        Imp::Unsupported => {
            Err(SqlError::unsupported(format!("function {name} is not supported")).at(location))
        }
    }
}

/// stat_column -- `(f(rel)).column` for a `pgstattuple` extension function
/// `f` (`executor/functions/pgstattuple.rs`): the one column, computed when
/// evaluated; `None` if `fc` is not such a call. Whether the extension is
/// installed is checked when the call is evaluated (the analysis host
/// cannot read catalogs), so before CREATE EXTENSION the error names the
/// argument as `regclass` where PostgreSQL names its type as written.
pub(super) fn stat_column(a: &mut Analyzer, fc: &FuncCall, column: &str) -> Result<Option<Expr>> {
    let location = position_of(fc.location);
    let names: Vec<&str> = fc.funcname.iter().filter_map(string_of).collect();
    let Some(function) = names.last().and_then(|n| super::StatField::function(n)) else {
        return Ok(None);
    };
    let args = analyze_args(a, &fc.args)?;
    let inputs: Vec<SqlType> = args.iter().map(Expr::ty).collect();
    if args.len() != 1 || !ArgType::RegClass.accepts(inputs[0]) {
        return Err(func_error(Choice::NoMatch, &names.join("."), &inputs).at(location));
    }
    let columns = function.result_columns();
    let Some(i) = columns.iter().position(|(name, _)| *name == column) else {
        return Err(SqlError::new(
            "42703",
            format!("column \"{column}\" not found in data type record"),
        )
        .at(location));
    };
    let args = coerce_args(a.host, args, &[ArgType::RegClass])?;
    let func = Builtin::Session(super::SessionFunction::StatColumn(function.at(i)));
    Ok(Some(Expr::Call { func, args, ty: columns[i].1, location }))
}

/// Analyze the arguments; named arguments are not supported.
fn analyze_args(a: &mut Analyzer, nodes: &[Node]) -> Result<Vec<Expr>> {
    nodes
        .iter()
        .map(|n| match n.node.as_ref() {
            Some(NodeEnum::NamedArgExpr(named)) => {
                Err(SqlError::unsupported("named function arguments are not supported")
                    .at(position_of(named.location)))
            }
            _ => a.expr(n),
        })
        .collect()
}

/// `typename(x)`: an explicit cast when `name` is a type and `x` can be cast.
fn function_style_cast(
    host: &mut dyn AnalyzeHost,
    name: &str,
    args: &[Expr],
    location: Option<u32>,
) -> Result<Option<Expr>> {
    let (Some(ty), [arg]) = (SqlType::from_name(name), args) else { return Ok(None) };
    if ty == SqlType::Unknown {
        return Ok(None);
    }
    coerce_to_target(host, arg.clone(), ty, -1, CoercionContext::Explicit, true, location)
}

/// `min(anyenum)` and `max(anyenum)`: PostgreSQL declares them on the
/// pseudo-type, which the static catalog cannot list for types made later.
fn enum_min_max(name: &str, args: &[Expr]) -> Option<(AggKind, SqlType)> {
    let kind = match name {
        "min" => AggKind::Min,
        "max" => AggKind::Max,
        _ => return None,
    };
    match args {
        [arg] if matches!(arg.ty(), SqlType::Enum(_)) => Some((kind, arg.ty())),
        _ => None,
    }
}

/// An aggregate call: coerce its argument, check nesting, tell the host.
fn aggregate(
    a: &mut Analyzer,
    fc: &FuncCall,
    kind: AggKind,
    result: SqlType,
    args: Vec<Expr>,
    signature: &[ArgType],
    location: Option<u32>,
) -> Result<Expr> {
    if fc.agg_within_group {
        return Err(SqlError::unsupported("ordered-set aggregates are not supported").at(location));
    }
    let order = aggregate_order(a, fc)?;
    let filter = aggregate_filter(a, fc)?;
    let keys = order.iter().map(|k| &k.expr);
    if let Some(inner) = args.iter().chain(keys).chain(&filter).find_map(Expr::find_aggregate) {
        return Err(SqlError::new("42803", "aggregate function calls cannot be nested").at(inner));
    }
    let arg = coerce_args(a.host, args, signature)?.into_iter().next();
    if fc.agg_distinct {
        check_distinct_order(arg.as_ref(), &order, fc)?;
    }
    let index = a
        .host
        .aggregate(kind, arg, fc.agg_distinct, AggClauses { order, filter }, location)
        .map_err(|e| e.at(location))?;
    Ok(Expr::AggRef { index, ty: result, location })
}

/// The `ORDER BY` keys inside an aggregate call.
fn aggregate_order(a: &mut Analyzer, fc: &FuncCall) -> Result<Vec<AggOrderKey>> {
    use pg_query::protobuf::{SortByDir, SortByNulls};
    let mut keys = Vec::with_capacity(fc.agg_order.len());
    for item in &fc.agg_order {
        let Some(NodeEnum::SortBy(sort)) = item.node.as_ref() else {
            return Err(SqlError::internal("aggregate ORDER BY item is not a SortBy"));
        };
        if sort.sortby_dir == SortByDir::SortbyUsing as i32 {
            return Err(SqlError::unsupported("ORDER BY ... USING is not supported yet")
                .at(position_of(sort.location)));
        }
        let node = sort.node.as_deref().ok_or_else(|| SqlError::internal("empty SortBy"))?;
        let expr = a.expr(node)?;
        let descending = sort.sortby_dir == SortByDir::SortbyDesc as i32;
        let nulls_first = match SortByNulls::try_from(sort.sortby_nulls) {
            Ok(SortByNulls::SortbyNullsFirst) => true,
            Ok(SortByNulls::SortbyNullsLast) => false,
            _ => descending,
        };
        keys.push(AggOrderKey { expr, descending, nulls_first });
    }
    Ok(keys)
}

/// `FILTER (WHERE condition)` of an aggregate call, as a boolean.
fn aggregate_filter(a: &mut Analyzer, fc: &FuncCall) -> Result<Option<Expr>> {
    let Some(node) = fc.agg_filter.as_deref() else { return Ok(None) };
    let condition = a.expr(node)?;
    super::coerce::check_boolean_with(a.host, condition, "FILTER").map(Some)
}

/// With DISTINCT, every ORDER BY key must be the argument itself (42P10),
/// as PostgreSQL requires. Expressions are compared as analysed, their
/// positions in the statement aside.
fn check_distinct_order(arg: Option<&Expr>, order: &[AggOrderKey], fc: &FuncCall) -> Result<()> {
    let written = |e: &Expr| without_locations(&format!("{e:?}"));
    let arg = arg.map(written);
    match order.iter().find(|k| Some(written(&k.expr)) != arg) {
        None => Ok(()),
        Some(key) => Err(SqlError::new(
            "42P10",
            "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list",
        )
        .at(key.expr.location().or(position_of(fc.location)))),
    }
}

/// `string_agg(value, delimiter)`: the non-NULL values joined, which is
/// `array_agg(value)` and a final join ([`Builtin::StringAggJoin`]). The
/// delimiter is evaluated once per group, so it may not read the rows
/// (PostgreSQL takes each row's own delimiter).
fn string_agg(
    a: &mut Analyzer,
    fc: &FuncCall,
    args: Vec<Expr>,
    location: Option<u32>,
) -> Result<Expr> {
    let text = [ArgType::Is(SqlType::Text)];
    let mut args = args.into_iter();
    let (Some(value), Some(delimiter)) = (args.next(), args.next()) else {
        return Err(SqlError::internal("string_agg takes two arguments"));
    };
    let delimiter = coerce_args(a.host, vec![delimiter], &text)?.remove(0);
    if delimiter.contains_column() || delimiter.find_aggregate().is_some() {
        return Err(SqlError::unsupported(
            "string_agg with a delimiter that varies by row is not supported",
        )
        .at(delimiter.location()));
    }
    let array = SqlType::TEXT_ARRAY;
    let values = aggregate(a, fc, AggKind::ArrayAgg, array, vec![value], &text, location)?;
    Ok(Expr::Call {
        func: Builtin::StringAggJoin,
        args: vec![values, delimiter],
        ty: SqlType::Text,
        location,
    })
}

/// PostgreSQL's errors for aggregate syntax on a plain function.
fn reject_aggregate_syntax(fc: &FuncCall, name: &str, location: Option<u32>) -> Result<()> {
    let message = if fc.agg_star {
        format!("{name}(*) specified, but {name} is not an aggregate function")
    } else if fc.agg_distinct {
        format!("DISTINCT specified, but {name} is not an aggregate function")
    } else if !fc.agg_order.is_empty() || fc.agg_within_group {
        format!("ORDER BY specified, but {name} is not an aggregate function")
    } else if fc.agg_filter.is_some() {
        format!("FILTER specified, but {name} is not an aggregate function")
    } else {
        return Ok(());
    };
    Err(SqlError::new("42809", message).at(location))
}

/// `function f(T, U) does not exist` / `is not unique`.
fn func_error(choice: Choice, name: &str, inputs: &[SqlType]) -> SqlError {
    let types: Vec<String> = inputs.iter().map(|t| type_name(*t)).collect();
    let sig = format!("{name}({})", types.join(", "));
    match choice {
        Choice::Ambiguous => SqlError::new("42725", format!("function {sig} is not unique"))
            .with_hint("Could not choose a best candidate function. You might need to add explicit type casts."),
        _ => SqlError::new("42883", format!("function {sig} does not exist")).with_hint(
            "No function matches the given name and argument types. You might need to add explicit type casts.",
        ),
    }
}

/// coerce_args -- converts resolved arguments to the declared types
/// (PostgreSQL's `make_fn_arguments`).
pub(super) fn coerce_args(
    host: &mut dyn AnalyzeHost,
    args: Vec<Expr>,
    declared: &[ArgType],
) -> Result<Vec<Expr>> {
    args.into_iter()
        .zip(declared)
        .map(|(arg, decl)| match decl {
            ArgType::Is(t) => coerce_implicit(host, arg, *t),
            ArgType::Any => Ok(arg),
            ArgType::AnyCompatible | ArgType::AnyCompatibleArray => {
                Err(SqlError::internal("polymorphic argument left unresolved"))
            }
            ArgType::AnyAsText => {
                let location = arg.location();
                coerce_to_target(
                    host,
                    arg,
                    SqlType::Text,
                    -1,
                    CoercionContext::Explicit,
                    true,
                    location,
                )?
                .ok_or_else(|| SqlError::internal("no text conversion"))
            }
            ArgType::RegClass => match arg.ty() {
                SqlType::Int2
                | SqlType::Int4
                | SqlType::Int8
                | SqlType::Oid
                | SqlType::Reg(RegKind::Class) => coerce_implicit(host, arg, SqlType::Oid),
                _ => coerce_implicit(host, arg, SqlType::Text),
            },
        })
        .collect()
}

/// An analysed expression's debug text with every `location: Some(n)` made
/// `None`, so that two writings of one expression compare equal.
fn without_locations(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("location: Some(") {
        out.push_str(&rest[..at]);
        out.push_str("location: None");
        let after = &rest[at + "location: Some(".len()..];
        rest = after.find(')').map_or("", |close| &after[close + 1..]);
    }
    out.push_str(rest);
    out
}
