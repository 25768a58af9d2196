//! `json`: JSON text kept exactly as the client wrote it.
//!
//! PostgreSQL's `json` type checks its input against the JSON grammar and then
//! stores the text unchanged — whitespace, key order and duplicate keys
//! included — so output gives back the input byte for byte. sluice does the
//! same: a `json` value is a [`Datum::Json`](crate::Datum) holding valid JSON
//! text, checked by the `jsonb` parser in syntax-only mode
//! ([`crate::jsonb::parse::validate`]), so both types report the same errors
//! (`invalid input syntax for type json` with PostgreSQL's DETAIL/CONTEXT).
//!
//! The operators `->` and `->>` work on the text too, like PostgreSQL's
//! `jsonfuncs.c` does for `json`: [`field`] and [`element`] return the slice
//! of the input holding the wanted value, so `'{"a": [1,  2]}' -> 'a'` is
//! `[1,  2]` with its spacing. A key that occurs more than once yields its
//! last value, PostgreSQL's rule for processing functions.
//!
//! Invariant: every function but [`validate`] is only called on text that
//! passed [`validate`]; on anything else they return `None` rather than
//! panic.

use crate::error::Result;
use crate::jsonb::{self, JsonbValue};

/// validate -- the `json` input function: `input` if it is JSON text.
pub fn validate(input: &str) -> Result<()> {
    jsonb::parse::validate(input)
}

/// field -- `json -> text`: the text of member `key` of a top-level object
/// (the last one if the key repeats), `None` if absent or not an object.
pub fn field<'a>(json: &'a str, key: &str) -> Option<&'a str> {
    let mut s = Scanner::new(json);
    s.expect(b'{')?;
    let mut found = None;
    if s.peek()? == b'}' {
        return None;
    }
    loop {
        let name = s.string()?;
        s.expect(b':')?;
        let value = s.value()?;
        if unescape(name)? == key {
            found = Some(value);
        }
        match s.next_byte()? {
            b',' => continue,
            _ => return found,
        }
    }
}

/// element -- `json -> int`: the text of element `index` of a top-level
/// array (negative counts from the end), `None` if out of range.
pub fn element(json: &str, index: i64) -> Option<&str> {
    let mut s = Scanner::new(json);
    s.expect(b'[')?;
    let mut elements = Vec::new();
    if s.peek()? != b']' {
        loop {
            elements.push(s.value()?);
            if s.next_byte()? != b',' {
                break;
            }
        }
    }
    let at = if index < 0 { elements.len() as i64 + index } else { index };
    usize::try_from(at).ok().and_then(|i| elements.get(i).copied())
}

/// as_text -- what `->>` returns for a value's text: a string de-escaped,
/// `null` as SQL NULL, anything else as written.
pub fn as_text(value: &str) -> Option<String> {
    match value.as_bytes().first()? {
        b'"' => unescape(value),
        b'n' => None,
        _ => Some(value.to_string()),
    }
}

/// The contents of a JSON string literal, escapes resolved.
fn unescape(literal: &str) -> Option<String> {
    match jsonb::parse(literal) {
        Ok(JsonbValue::String(s)) => Some(s),
        _ => None,
    }
}

/// A cursor over valid JSON text that skips whole values without building
/// them.
struct Scanner<'a> {
    /// The text.
    src: &'a str,
    /// Byte offset of the next unread byte.
    pos: usize,
}

impl<'a> Scanner<'a> {
    /// A scanner at the start of `src`.
    fn new(src: &'a str) -> Scanner<'a> {
        Scanner { src, pos: 0 }
    }

    /// Skip whitespace.
    fn skip_space(&mut self) {
        let b = self.src.as_bytes();
        while self.pos < b.len() && matches!(b[self.pos], b' ' | b'\t' | b'\n' | b'\r') {
            self.pos += 1;
        }
    }

    /// The next non-space byte, not consumed.
    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.src.as_bytes().get(self.pos).copied()
    }

    /// The next non-space byte, consumed.
    fn next_byte(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.pos += 1;
        Some(c)
    }

    /// Consume `want`, or fail.
    fn expect(&mut self, want: u8) -> Option<()> {
        (self.next_byte()? == want).then_some(())
    }

    /// A string literal's text, quotes included.
    fn string(&mut self) -> Option<&'a str> {
        self.skip_space();
        let start = self.pos;
        let b = self.src.as_bytes();
        if b.get(start) != Some(&b'"') {
            return None;
        }
        let mut i = start + 1;
        while i < b.len() {
            match b[i] {
                b'\\' => i += 2,
                b'"' => {
                    self.pos = i + 1;
                    return self.src.get(start..self.pos);
                }
                _ => i += 1,
            }
        }
        None
    }

    /// One whole value's text (a scalar, or an array/object with everything
    /// up to its matching bracket), without surrounding space.
    fn value(&mut self) -> Option<&'a str> {
        self.skip_space();
        let start = self.pos;
        let b = self.src.as_bytes();
        let mut depth = 0usize;
        loop {
            match *b.get(self.pos)? {
                b'"' => {
                    self.string()?;
                }
                b'[' | b'{' => {
                    depth += 1;
                    self.pos += 1;
                }
                b']' | b'}' if depth > 0 => {
                    depth -= 1;
                    self.pos += 1;
                }
                b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r' if depth == 0 => break,
                _ => self.pos += 1,
            }
            if depth == 0 && matches!(b.get(self.pos - 1), Some(b']' | b'}' | b'"')) {
                break;
            }
        }
        self.src.get(start..self.pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_is_kept_verbatim_but_checked() {
        assert!(validate(r#"{"a": 1,  "a" : [1, 2 ]}"#).is_ok());
        assert!(validate(r#""\u0000""#).is_ok());
        assert!(validate("1e100000").is_ok());
        let err = validate(r#"{"a" 1}"#).unwrap_err();
        assert_eq!(
            (err.sqlstate(), err.message.as_str()),
            ("22P02", "invalid input syntax for type json")
        );
        assert_eq!(err.detail.as_deref(), Some("Expected \":\", but found \"1\"."));
    }

    #[test]
    fn field_returns_the_last_duplicate_as_written() {
        let doc = r#"{ "a" : [1,  {"x": "}"}], "b": "q\"r", "a": 3 }"#;
        assert_eq!(field(doc, "a"), Some("3"));
        assert_eq!(field(r#"{"a": [1,  {"x": "}"}]}"#, "a"), Some(r#"[1,  {"x": "}"}]"#));
        assert_eq!(field(doc, "b").and_then(as_text).as_deref(), Some("q\"r"));
        assert_eq!(field(doc, "c"), None);
        assert_eq!(field("[1]", "a"), None);
        assert_eq!(field("{}", "a"), None);
    }

    #[test]
    fn field_agrees_with_jsonb_on_tricky_documents() {
        let docs = [
            r#"{"\u0061": "é", "a\"b": {"]": "[{"}, "n": -1.5e3, "e": [], "o": {}}"#,
            "{\n\t\"k\" :\r [ \"\\\\\", null , true ]\n}",
            r#"{"a": {"a": {"a": 1}}, "b": "}}]]"}"#,
        ];
        for doc in docs {
            validate(doc).unwrap();
            let JsonbValue::Object(members) = jsonb::parse(doc).unwrap() else { panic!("{doc}") };
            for (key, want) in &members {
                let got = field(doc, key).unwrap_or_else(|| panic!("{key} in {doc}"));
                let got = jsonb::parse(got).unwrap();
                assert!(got.cmp_jsonb(want).is_eq(), "{key} in {doc}: {got:?}");
            }
        }
    }

    #[test]
    fn element_counts_from_either_end() {
        let doc = r#"[10, "x", null, {"k": [1]}]"#;
        assert_eq!(element(doc, 0), Some("10"));
        assert_eq!(element(doc, -1), Some(r#"{"k": [1]}"#));
        assert_eq!(element(doc, 4), None);
        assert_eq!(element(doc, -5), None);
        assert_eq!(element(doc, 2).and_then(as_text), None);
        assert_eq!(element("[]", 0), None);
        assert_eq!(element("{}", 0), None);
    }
}
