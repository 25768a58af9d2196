//! jsonb parse errors against PostgreSQL 15: message, DETAIL and CONTEXT.

use super::parse;

#[test]
fn parse_errors_match_postgres() {
    let mut failures = Vec::new();
    for &(input, message, detail, context) in ERRORS {
        let e = parse(input).expect_err(input);
        let got = (
            format!("{}: {}", e.sqlstate(), e.message),
            e.detail.unwrap_or_default(),
            e.context.unwrap_or_default(),
        );
        let want = (message.to_string(), detail.to_string(), context.to_string());
        if got != want {
            failures.push(format!("{input:?}\n    got:  {got:?}\n    want: {want:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// (input, `SQLSTATE: message`, DETAIL, CONTEXT) as PostgreSQL 15 reports them.
const ERRORS: &[(&str, &str, &str, &str)] = &[
    (
        "{\"a\":\"b\" \"c\"}",
        "22P02: invalid input syntax for type json",
        "Expected \",\" or \"}\", but found \"\"c\"\".",
        "JSON data, line 1: {\"a\":\"b\" \"c\"...",
    ),
    (
        "\"abc",
        "22P02: invalid input syntax for type json",
        "Token \"\"abc\" is invalid.",
        "JSON data, line 1: \"abc",
    ),
    (
        "01",
        "22P02: invalid input syntax for type json",
        "Token \"01\" is invalid.",
        "JSON data, line 1: 01",
    ),
    (
        "[1,2",
        "22P02: invalid input syntax for type json",
        "The input string ended unexpectedly.",
        "JSON data, line 1: [1,2",
    ),
    (
        "{\"a\":1,}",
        "22P02: invalid input syntax for type json",
        "Expected string, but found \"}\".",
        "JSON data, line 1: {\"a\":1,}",
    ),
    (
        "\"\\u0000\"",
        "22P05: unsupported Unicode escape sequence",
        "\\u0000 cannot be converted to text.",
        "JSON data, line 1: \"\\u0000...",
    ),
    (
        "\"\\ud800\"",
        "22P02: invalid input syntax for type json",
        "Unicode low surrogate must follow a high surrogate.",
        "JSON data, line 1: \"\\ud800\"",
    ),
    (
        "\"\\x\"",
        "22P02: invalid input syntax for type json",
        "Escape sequence \"\\x\" is invalid.",
        "JSON data, line 1: \"\\x...",
    ),
    (
        "\"a
b\"",
        "22P02: invalid input syntax for type json",
        "Character with value 0x0a must be escaped.",
        "JSON data, line 1: \"a",
    ),
    (
        "{1:2}",
        "22P02: invalid input syntax for type json",
        "Expected string or \"}\", but found \"1\".",
        "JSON data, line 1: {1...",
    ),
    (
        "[1] x",
        "22P02: invalid input syntax for type json",
        "Token \"x\" is invalid.",
        "JSON data, line 1: [1] x",
    ),
    (
        ".5",
        "22P02: invalid input syntax for type json",
        "Token \".\" is invalid.",
        "JSON data, line 1: ....",
    ),
    (
        "\"\\u12\"",
        "22P02: invalid input syntax for type json",
        "\"\\u\" must be followed by four hexadecimal digits.",
        "JSON data, line 1: \"\\u12\"",
    ),
    (
        "[1,
2,
foo]",
        "22P02: invalid input syntax for type json",
        "Token \"foo\" is invalid.",
        "JSON data, line 3: foo...",
    ),
    (
        "{\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\": x}",
        "22P02: invalid input syntax for type json",
        "Token \"x\" is invalid.",
        "JSON data, line 1: ...aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\": x...",
    ),
    (
        "",
        "22P02: invalid input syntax for type json",
        "The input string ended unexpectedly.",
        "JSON data, line 1: ",
    ),
    (
        "[1,]",
        "22P02: invalid input syntax for type json",
        "Expected JSON value, but found \"]\".",
        "JSON data, line 1: [1,]",
    ),
    (
        ":",
        "22P02: invalid input syntax for type json",
        "Expected JSON value, but found \":\".",
        "JSON data, line 1: :",
    ),
    (
        "{\"a\"}",
        "22P02: invalid input syntax for type json",
        "Expected \":\", but found \"}\".",
        "JSON data, line 1: {\"a\"}",
    ),
    (
        "tru",
        "22P02: invalid input syntax for type json",
        "Token \"tru\" is invalid.",
        "JSON data, line 1: tru",
    ),
    (
        "-",
        "22P02: invalid input syntax for type json",
        "Token \"-\" is invalid.",
        "JSON data, line 1: -",
    ),
    (
        "1.",
        "22P02: invalid input syntax for type json",
        "Token \"1.\" is invalid.",
        "JSON data, line 1: 1.",
    ),
    (
        "1e+",
        "22P02: invalid input syntax for type json",
        "Token \"1e+\" is invalid.",
        "JSON data, line 1: 1e+",
    ),
    (
        "\"\\ud800\\ud800\"",
        "22P02: invalid input syntax for type json",
        "Unicode high surrogate must not follow a high surrogate.",
        "JSON data, line 1: \"\\ud800\\ud800...",
    ),
    (
        "\"\\udc00\"",
        "22P02: invalid input syntax for type json",
        "Unicode low surrogate must follow a high surrogate.",
        "JSON data, line 1: \"\\udc00...",
    ),
    (
        "[]]",
        "22P02: invalid input syntax for type json",
        "Expected end of input, but found \"]\".",
        "JSON data, line 1: []]",
    ),
    (
        "nul",
        "22P02: invalid input syntax for type json",
        "Token \"nul\" is invalid.",
        "JSON data, line 1: nul",
    ),
];
