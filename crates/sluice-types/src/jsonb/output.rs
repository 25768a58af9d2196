//! jsonb text output: PostgreSQL's canonical spacing and string escaping.
//!
//! Arrays print as `[1, 2]`, objects as `{"a": 1}` (a space after each comma
//! and colon), numbers as `numeric` prints them, strings with `escape_json`'s
//! escapes: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t` and `\u00XX` for other
//! control characters. Everything else, including non-ASCII, is literal.

use super::JsonbValue;

/// The canonical text of a jsonb value.
pub fn output(v: &JsonbValue) -> String {
    let mut out = String::new();
    write_value(v, &mut out);
    out
}

/// Append `v`'s text to `out`.
fn write_value(v: &JsonbValue, out: &mut String) {
    match v {
        JsonbValue::Null => out.push_str("null"),
        JsonbValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        JsonbValue::Number(n) => out.push_str(&n.to_string()),
        JsonbValue::String(s) => escape_json(s, out),
        JsonbValue::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(item, out);
            }
            out.push(']');
        }
        JsonbValue::Object(pairs) => {
            out.push('{');
            for (i, (k, item)) in pairs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                escape_json(k, out);
                out.push_str(": ");
                write_value(item, out);
            }
            out.push('}');
        }
    }
}

/// PostgreSQL's `escape_json`: a quoted, escaped JSON string.
pub fn escape_json(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}
