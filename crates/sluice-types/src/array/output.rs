//! Array text output: PostgreSQL 15's `array_out`.
//!
//! Elements are printed by their type's output function, separated by
//! commas, inside braces; NULL elements print as `NULL`. An element is
//! double-quoted, with `"` and `\` backslash-escaped, whenever reading it
//! back unquoted would give something else: when it is empty, is the word
//! `NULL` in any case, or contains a brace, comma, quote, backslash or
//! whitespace. A lower bound other than 1 is printed as a `[lower:upper]=`
//! prefix, which is also how input spells it.

use super::Array;
use crate::context::Context;
use crate::io;
use crate::scan::is_space;

/// output -- the text form of an array, as PostgreSQL 15 prints it.
pub fn output(a: &Array, ctx: &Context) -> String {
    if a.elem_type().is_vector() {
        let items: Vec<String> = a.elements().iter().filter_map(|e| io::output(e, ctx)).collect();
        return items.join(" ");
    }
    let mut out = String::new();
    if a.lower_bound() != 1 {
        out.push_str(&format!("[{}:{}]=", a.lower_bound(), a.upper_bound()));
    }
    out.push('{');
    for (i, e) in a.elements().iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match io::output(e, ctx) {
            Some(text) => push_element(&mut out, &text),
            None => out.push_str("NULL"),
        }
    }
    out.push('}');
    out
}

/// Append one element's text, quoted and escaped if it needs to be.
fn push_element(out: &mut String, text: &str) {
    if !needs_quotes(text) {
        out.push_str(text);
        return;
    }
    out.push('"');
    for c in text.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

/// Whether `text` would not read back as itself without quotes.
fn needs_quotes(text: &str) -> bool {
    text.is_empty()
        || text.eq_ignore_ascii_case("NULL")
        || text.bytes().any(|c| matches!(c, b'{' | b'}' | b',' | b'"' | b'\\') || is_space(c))
}
