//! Replays the PostgreSQL 15 golden files through analysis and evaluation.

use super::{run, show, show_type};

/// What one golden line expects.
enum Expected<'a> {
    /// Result type (as `format_type` prints it) and output text.
    Value { ty: &'a str, output: &'a str },
    /// SQLSTATE, optional cursor position, message.
    Error { code: &'a str, position: Option<u32>, message: &'a str },
}

/// Parse `expr => type = output` or `expr => ERROR code [@pos] message`.
fn parse_line(line: &str) -> Option<(&str, Expected<'_>)> {
    let (expr, expected) = line.split_once(" => ")?;
    if let Some(rest) = expected.strip_prefix("ERROR ") {
        let (code, rest) = rest.split_once(' ')?;
        let (position, message) = match rest.strip_prefix('@') {
            Some(r) => {
                let (pos, msg) = r.split_once(' ')?;
                (pos.parse().ok(), msg)
            }
            None => (None, rest),
        };
        return Some((expr, Expected::Error { code, position, message }));
    }
    let (ty, output) = expected.split_once(" = ")?;
    Some((expr, Expected::Value { ty, output }))
}

/// Run every line of a golden file; return the differences.
fn check(file: &str) -> Vec<String> {
    let mut failures = Vec::new();
    for line in file.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
        let Some((expr, expected)) = parse_line(line) else {
            failures.push(format!("unparsable golden line: {line}"));
            continue;
        };
        let got = match run(expr) {
            Ok((e, v)) => format!("{} = {}", show_type(e.ty(), e.typmod()), show(&v)),
            Err(err) => match err.position {
                Some(p) => format!("ERROR {} @{p} {}", err.code, err.message),
                None => format!("ERROR {} {}", err.code, err.message),
            },
        };
        let want = match expected {
            Expected::Value { ty, output } => format!("{ty} = {output}"),
            Expected::Error { code, position: Some(p), message } => {
                format!("ERROR {code} @{p} {message}")
            }
            Expected::Error { code, position: None, message } => format!("ERROR {code} {message}"),
        };
        if got != want {
            failures.push(format!("{expr}\n    want: {want}\n    got:  {got}"));
        }
    }
    failures
}

/// Assert that a golden file replays without differences.
fn assert_golden(name: &str, file: &str) {
    let failures = check(file);
    let total = file.lines().filter(|l| l.contains(" => ")).count();
    assert!(
        failures.is_empty(),
        "{name}: {} of {total} differ from PostgreSQL:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn golden_literals_and_casts() {
    assert_golden("literals", include_str!("golden/literals.txt"));
}

#[test]
fn golden_columns() {
    assert_golden("columns", include_str!("golden/columns.txt"));
}

#[test]
fn golden_operators() {
    assert_golden("operators", include_str!("golden/operators.txt"));
}

#[test]
fn golden_functions() {
    assert_golden("functions", include_str!("golden/functions.txt"));
}

#[test]
fn golden_conditionals() {
    assert_golden("conditional", include_str!("golden/conditional.txt"));
}

#[test]
fn golden_misc() {
    assert_golden("misc", include_str!("golden/misc.txt"));
}

#[test]
fn golden_regex_and_arrays() {
    assert_golden("regex_arrays", include_str!("golden/regex_arrays.txt"));
}
