//! Splitting date/time input text into fields (PostgreSQL's `ParseDateTime`).
//!
//! Date and time input is free-form: `2024-01-15 10:30:00+02`,
//! `January 15, 2024 10:30 PM EST`, `15-Jan-2024`, `J2460325`, `epoch`. The
//! first step, here, classifies runs of characters into typed fields without
//! deciding what they mean; `decode.rs` then assigns meaning with the field
//! order rules of `DateStyle = ISO, MDY`. Interval input reuses the same
//! fields (`interval.rs`).
//!
//! Only ASCII is meaningful in date/time text; any other character makes the
//! input invalid (the caller reports PostgreSQL's syntax error).

/// One classified field of date/time text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Field {
    /// Digits, possibly with one embedded `.` fraction: `2024`, `12.5`.
    Number(String),
    /// A clock time: `10:30`, `10:30:00.5`.
    Time(String),
    /// A date with embedded delimiters: `2024-01-15`, `1/8/1999`, `15-jan-2024`,
    /// or a zone name with embedded punctuation (`america/new_york`).
    Date(String),
    /// A lower-cased word: `jan`, `pm`, `epoch`, `utc`.
    Word(String),
    /// A signed numeric field: `+05:30`, `-0800`, `-1`, `+2.5`.
    Signed(String),
    /// A signed word: `-infinity`, `+infinity`.
    SignedWord(String),
}

/// Split `input` into fields; `None` if it contains characters that no
/// date/time syntax allows.
pub fn fields(input: &str) -> Option<Vec<Field>> {
    let s = input.as_bytes();
    if !input.is_ascii() {
        return None;
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        if c.is_ascii_digit() {
            i = number_field(s, i, &mut out);
        } else if c == b'.' && s.get(i + 1).is_some_and(u8::is_ascii_digit) {
            let end = run(s, i + 1, |b| b.is_ascii_digit());
            out.push(Field::Number(input[i..end].to_string()));
            i = end;
        } else if c.is_ascii_alphabetic() {
            i = word_field(s, i, &mut out);
        } else if c == b'+' || c == b'-' {
            i = signed_field(s, i, &mut out)?;
        } else if c.is_ascii_whitespace() || c.is_ascii_punctuation() {
            // Whitespace and stray punctuation only delimit fields.
            i += 1;
        } else {
            return None;
        }
    }
    Some(out)
}

/// End of the run of bytes from `i` that satisfy `pred`.
fn run(s: &[u8], mut i: usize, pred: impl Fn(u8) -> bool) -> usize {
    while i < s.len() && pred(s[i]) {
        i += 1;
    }
    i
}

/// Lower-cased text of `s[a..b]`.
fn lower(s: &[u8], a: usize, b: usize) -> String {
    String::from_utf8_lossy(&s[a..b]).to_ascii_lowercase()
}

/// A field starting with a digit: number, time or numeric date.
fn number_field(s: &[u8], start: usize, out: &mut Vec<Field>) -> usize {
    let mut i = run(s, start, |b| b.is_ascii_digit());
    match s.get(i) {
        Some(b':') => {
            i = run(s, i, |b| b.is_ascii_digit() || b == b':' || b == b'.');
            out.push(Field::Time(lower(s, start, i)));
        }
        Some(&delim @ (b'-' | b'/' | b'.')) => {
            let after = i + 1;
            let digits_follow = s.get(after).is_some_and(u8::is_ascii_digit);
            if delim == b'.' && digits_follow {
                // `12.5` is a number; `2024.01.15` is a date.
                let end = run(s, after, |b| b.is_ascii_digit());
                if s.get(end) != Some(&b'.') {
                    out.push(Field::Number(lower(s, start, end)));
                    return end;
                }
            }
            i = if digits_follow {
                run(s, after, |b| b.is_ascii_digit() || b == delim)
            } else {
                run(s, after, |b| b.is_ascii_alphanumeric() || b == delim)
            };
            if i == after {
                // A trailing delimiter with nothing after it: just a number.
                out.push(Field::Number(lower(s, start, after - 1)));
                return after;
            }
            out.push(Field::Date(lower(s, start, i)));
        }
        _ => out.push(Field::Number(lower(s, start, i))),
    }
    i
}

/// A field starting with a letter: a word, a textual date or a zone name.
fn word_field(s: &[u8], start: usize, out: &mut Vec<Field>) -> usize {
    let i = run(s, start, |b| b.is_ascii_alphabetic());
    if matches!(s.get(i), Some(b'-' | b'/' | b'.'))
        && s.get(i + 1).is_some_and(u8::is_ascii_alphanumeric)
    {
        let end = run(s, i, |b| b.is_ascii_alphanumeric() || b"+-/_.:".contains(&b));
        out.push(Field::Date(lower(s, start, end)));
        return end;
    }
    out.push(Field::Word(lower(s, start, i)));
    i
}

/// A field starting with a sign: an offset, signed number or signed word.
fn signed_field(s: &[u8], start: usize, out: &mut Vec<Field>) -> Option<usize> {
    let next = s.get(start + 1).copied()?;
    if next.is_ascii_digit() || next == b'.' {
        let end = run(s, start + 1, |b| b.is_ascii_digit() || b == b':' || b == b'.');
        out.push(Field::Signed(lower(s, start, end)));
        Some(end)
    } else if next.is_ascii_alphabetic() {
        let end = run(s, start + 1, |b| b.is_ascii_alphabetic());
        out.push(Field::SignedWord(lower(s, start, end)));
        Some(end)
    } else if next.is_ascii_whitespace() {
        // A sign separated from its number ("- 1 day") is still a sign.
        let skip = run(s, start + 1, |b| b.is_ascii_whitespace());
        if s.get(skip).is_some_and(u8::is_ascii_digit) {
            let end = run(s, skip, |b| b.is_ascii_digit() || b == b':' || b == b'.');
            let text = format!("{}{}", s[start] as char, lower(s, skip, end));
            out.push(Field::Signed(text));
            return Some(end);
        }
        None
    } else {
        None
    }
}
