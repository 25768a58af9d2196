//! The check hooks' parsing rules.

use super::*;

#[test]
fn identifier_lists() {
    let cases: &[(&str, Option<&[&str]>)] = &[
        ("", Some(&[])),
        ("  ", Some(&[])),
        ("a", Some(&["a"])),
        ("A, b", Some(&["a", "b"])),
        ("\"$user\", public", Some(&["$user", "public"])),
        ("\"X \"\"y\"\"\"", Some(&["X \"y\""])),
        ("a,", None),
        (",a", None),
        ("a b", None),
        ("\"open", None),
        ("\"\"", Some(&[""])),
    ];
    for &(text, expected) in cases {
        let got = split_identifier_list(text);
        let expected =
            expected.map(|names| names.iter().map(|n| n.to_string()).collect::<Vec<_>>());
        assert_eq!(got, expected, "{text:?}");
    }
}

#[test]
fn encodings() {
    let cases = [
        ("UTF8", Some("UTF8")),
        ("utf-8", Some("UTF8")),
        ("Unicode", Some("UTF8")),
        ("sql_ascii", Some("SQL_ASCII")),
        ("latin1", Some("LATIN1")),
        ("ISO-8859-1", Some("LATIN1")),
        ("win1252", Some("WIN1252")),
        ("klingon", None),
    ];
    for (name, expected) in cases {
        assert_eq!(canonical_encoding(name), expected, "{name}");
    }
}

#[test]
fn fixed_offset_names() {
    let cases = [
        (-10800, "<+03>-03"),
        (28800, "<-08>+08"),
        (-19800, "<+05:30>-05:30"),
        (0, "<+00>-00"),
        (3661, "<-01:01:01>+01:01:01"),
    ];
    for (seconds_west, expected) in cases {
        assert_eq!(posix_offset_name(seconds_west), expected);
    }
}

#[test]
fn timezone_offsets_out_of_range() {
    let ctx_value = Value::Str("GMT".into());
    let ctx = HookContext { current: &ctx_value, reset: &ctx_value };
    let e = timezone(Value::Str("200".into()), &ctx).unwrap_err();
    assert_eq!(e.detail.as_deref(), Some("UTC timezone offset is out of range."));
    assert_eq!(
        timezone(Value::Str("5.5".into()), &ctx).unwrap(),
        Value::Str("<+05:30>-05:30".into())
    );
}
