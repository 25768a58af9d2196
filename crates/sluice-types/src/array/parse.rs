//! Array text input: PostgreSQL 15's `array_in`.
//!
//! The grammar is optional dimension decoration, then braces:
//!
//! ```text
//! [ '[' lower ':' upper ']' ... '=' ] '{' element ( ',' element )* '}'
//! ```
//!
//! An element is unquoted text (leading and trailing whitespace dropped,
//! `\` escaping the next character) or a double-quoted string (whitespace
//! kept, `\` escaping `"` and itself); the unquoted word `NULL`, in any case,
//! is a NULL element. Each element's text goes to the element type's input
//! function, so `{x}` as `int4[]` fails with `invalid input syntax for type
//! integer: "x"`.
//!
//! PostgreSQL 15 first checks the whole brace structure with a small state
//! machine (`ArrayCount`) and only then feeds elements to the input
//! function, and its `DETAIL` lines name the state machine's complaint
//! (`Unexpected "}" character.`). [`scan`] runs the same state machine and
//! collects the element texts in the same pass, so errors, their order and
//! their wording are PostgreSQL's. One quirk is kept on purpose: the
//! messages of brace-structure errors quote the input from its first `{`,
//! not the whole string, as PostgreSQL's do.

use super::{check_bounds, multidimensional, too_many_dimensions, Array, MAXDIM};
use crate::context::Context;
use crate::datum::Datum;
use crate::error::{ErrorKind, Result, TypeError};
use crate::io;
use crate::scan::is_space;
use crate::types::ElemType;

/// parse_vector -- an `int2vector` or `oidvector`: elements separated by
/// spaces (`int2vectorin`, `oidvectorin`).
fn parse_vector(elem: ElemType, input: &str, ctx: &Context) -> Result<Array> {
    let elems = input
        .split(|c: char| c.is_ascii() && is_space(c as u8))
        .filter(|item| !item.is_empty())
        .map(|item| crate::io::parse(elem.get(), item, -1, ctx))
        .collect::<Result<Vec<Datum>>>()?;
    Array::with_lower_bound(elem, 0, elems)
}

/// parse -- an array of `elem` from its text form; `typmod` applies to every
/// element, as PostgreSQL's `array_in` passes it to the element input.
pub fn parse(elem: ElemType, input: &str, typmod: i32, ctx: &Context) -> Result<Array> {
    if elem.is_vector() {
        return parse_vector(elem, input, ctx);
    }
    let bytes = input.as_bytes();
    let mut pos = 0;
    let dims = parse_dimensions(input, &mut pos)?;
    if dims.is_empty() {
        if bytes.get(pos) != Some(&b'{') {
            return Err(malformed(
                input,
                "Array value must start with \"{\" or dimension information.",
            ));
        }
    } else {
        if bytes.get(pos) != Some(&b'=') {
            return Err(malformed(input, "Missing \"=\" after array dimensions."));
        }
        pos = skip_space(bytes, pos + 1);
        if bytes.get(pos) != Some(&b'{') {
            return Err(malformed(input, "Array contents must start with \"{\"."));
        }
    }
    let shape = scan(&input[pos..])?;
    if !dims.is_empty() && !dims.iter().map(|d| d.len).eq(shape.dims.iter().copied()) {
        return Err(malformed(input, "Specified array dimensions do not match array contents."));
    }
    let lower = dims.first().map_or(1, |d| d.lower);
    check_bounds(lower, shape.items.len())?;
    let elems = shape
        .items
        .into_iter()
        .map(|item| item.value(elem, typmod, ctx))
        .collect::<Result<Vec<Datum>>>()?;
    // Refused only now, so a bad element reports what PostgreSQL reports.
    if shape.dims.len() > 1 {
        return Err(multidimensional());
    }
    Array::with_lower_bound(elem, lower, elems)
}

/// One `[lower:upper]` decoration.
struct Dimension {
    /// The first subscript.
    lower: i32,
    /// The number of elements, `upper - lower + 1` (wrapping like C's int).
    len: i32,
}

/// parse_dimensions -- the `[m:n]` items before `=`, leaving `pos` on the
/// first character after them (whitespace skipped).
fn parse_dimensions(input: &str, pos: &mut usize) -> Result<Vec<Dimension>> {
    let bytes = input.as_bytes();
    let mut dims = Vec::new();
    loop {
        *pos = skip_space(bytes, *pos);
        if bytes.get(*pos) != Some(&b'[') {
            return Ok(dims);
        }
        if dims.len() >= MAXDIM {
            return Err(too_many_dimensions(dims.len() as i64 + 1));
        }
        let first = bound_digits(bytes, *pos + 1);
        if first.is_empty() {
            return Err(malformed(
                input,
                "\"[\" must introduce explicitly-specified array dimensions.",
            ));
        }
        *pos += 1 + first.len();
        let (lower, upper) = if bytes.get(*pos) == Some(&b':') {
            let second = bound_digits(bytes, *pos + 1);
            if second.is_empty() {
                return Err(malformed(input, "Missing array dimension value."));
            }
            *pos += 1 + second.len();
            (atoi(first), atoi(second))
        } else {
            (1, atoi(first))
        };
        if bytes.get(*pos) != Some(&b']') {
            return Err(malformed(input, "Missing \"]\" after array dimensions."));
        }
        *pos += 1;
        if upper < lower {
            return Err(TypeError::new(
                ErrorKind::ArraySubscriptError,
                "upper bound cannot be less than lower bound",
            ));
        }
        dims.push(Dimension { lower, len: upper.wrapping_sub(lower).wrapping_add(1) });
    }
}

/// The run of digits and signs starting at `from`: what PostgreSQL takes as
/// a bound before handing it to `atoi`.
fn bound_digits(bytes: &[u8], from: usize) -> &[u8] {
    let rest = bytes.get(from..).unwrap_or_default();
    let n = rest.iter().take_while(|c| c.is_ascii_digit() || **c == b'-' || **c == b'+').count();
    &rest[..n]
}

/// C's `atoi` as glibc does it: an optional sign, the digits up to the first
/// non-digit, the `long` result (clamped) truncated to `int`.
fn atoi(s: &[u8]) -> i32 {
    let (negative, digits) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let magnitude = digits
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .fold(0i64, |acc, c| acc.saturating_mul(10).saturating_add(i64::from(c - b'0')));
    let value = if negative { magnitude.saturating_neg() } else { magnitude };
    value as i32
}

/// The first non-whitespace position at or after `pos`.
fn skip_space(bytes: &[u8], mut pos: usize) -> usize {
    while bytes.get(pos).is_some_and(|&c| is_space(c)) {
        pos += 1;
    }
    pos
}

/// `malformed array literal: "s"` (22P02) with PostgreSQL's DETAIL.
fn malformed(s: &str, detail: &str) -> TypeError {
    TypeError::new(
        ErrorKind::InvalidTextRepresentation,
        format!("malformed array literal: \"{s}\""),
    )
    .with_detail(detail)
}

/// `Unexpected "c" character.`
fn unexpected(s: &str, c: u8) -> TypeError {
    malformed(s, &format!("Unexpected \"{}\" character.", char::from(c)))
}

/// Where the state machine is (PostgreSQL's `ArrayParseState`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Before the first `{`.
    NoLevel,
    /// Just after a `{`.
    LevelStarted,
    /// Inside an unquoted element.
    ElemStarted,
    /// Inside a quoted element.
    QuotedElemStarted,
    /// Just after a quoted element's closing quote.
    QuotedElemCompleted,
    /// Just after a `,` that followed an element.
    ElemDelimited,
    /// Just after a `}`.
    LevelCompleted,
    /// Just after a `,` that followed a `}`.
    LevelDelimited,
}

/// What [`scan`] found: the dimensions (none for `{}`) and every element.
struct Shape {
    /// The length of each dimension, outermost first; empty for `{}`.
    dims: Vec<i32>,
    /// The elements in order (innermost level only).
    items: Vec<Item>,
}

/// One element's text with quotes and escapes removed.
struct Item {
    /// The text for the element type's input function.
    text: String,
    /// Whether quotes or backslashes appeared, which makes `NULL` a string.
    quoted: bool,
}

impl Item {
    /// The element's value: NULL for a bare `NULL`, else the input function's.
    fn value(self, elem: ElemType, typmod: i32, ctx: &Context) -> Result<Datum> {
        if !self.quoted && self.text.eq_ignore_ascii_case("NULL") {
            return Ok(Datum::Null);
        }
        io::parse(elem.get(), &self.text, typmod, ctx)
    }
}

/// The element being read, following `ReadArrayStr`'s whitespace rules.
#[derive(Default)]
struct ItemText {
    /// Bytes kept so far, including whitespace that may turn out trailing.
    buf: Vec<u8>,
    /// Length of `buf` up to the last significant byte.
    end: usize,
    /// Whether only whitespace has been seen (leading whitespace is dropped).
    started: bool,
    /// Whether quotes or escapes appeared.
    quoted: bool,
}

impl ItemText {
    /// A byte that counts: unquoted non-space text or an escaped byte.
    fn significant(&mut self, c: u8) {
        self.buf.push(c);
        self.started = true;
        self.end = self.buf.len();
    }

    /// A byte inside quotes: kept; `end` catches up at the closing quote.
    fn quoted_byte(&mut self, c: u8) {
        self.buf.push(c);
    }

    /// Unquoted whitespace: dropped before the element, kept inside it.
    fn space(&mut self, c: u8) {
        if self.started {
            self.buf.push(c);
        }
    }

    /// A double quote opening (`true`) or closing the quoted part.
    fn quote(&mut self, opening: bool) {
        self.quoted = true;
        if opening {
            self.started = true;
        } else {
            self.end = self.buf.len();
        }
    }

    /// The finished element; the reader starts afresh.
    fn take(&mut self) -> Item {
        let done = std::mem::take(self);
        // Only ASCII bytes were dropped, so the text is still UTF-8.
        let text = String::from_utf8_lossy(&done.buf[..done.end]).into_owned();
        Item { text, quoted: done.quoted }
    }
}

/// Per-depth counters of PostgreSQL's `ArrayCount`.
#[derive(Clone, Copy)]
struct Depth {
    /// Sub-arrays or elements counted at this depth in the current parent.
    count: i32,
    /// Elements in the sub-array being read at this depth.
    elems: i32,
    /// Elements in the previous sub-array at this depth (0: none yet).
    elems_last: i32,
}

/// scan -- check the brace structure of `s` (which starts with `{`) as
/// PostgreSQL's `ArrayCount` does and collect the elements.
fn scan(s: &str) -> Result<Shape> {
    let mut scanner = Scanner {
        s,
        state: State::NoLevel,
        in_quotes: false,
        nest: 0,
        ndim: 1,
        depth: [Depth { count: 0, elems: 1, elems_last: 0 }; MAXDIM],
        empty: true,
        item: ItemText::default(),
        items: Vec::new(),
    };
    let bytes = s.as_bytes();
    let mut pos = 0;
    loop {
        let Some(&c) = bytes.get(pos) else {
            return Err(malformed(s, "Unexpected end of input."));
        };
        match c {
            b'\\' => {
                pos += 1;
                scanner.escape(bytes.get(pos).copied())?;
            }
            b'"' => scanner.quote()?,
            _ if scanner.in_quotes => scanner.item.quoted_byte(c),
            b'{' => scanner.open()?,
            b'}' => {
                if scanner.close()? {
                    break;
                }
            }
            b',' => scanner.delimiter()?,
            _ if is_space(c) => scanner.item.space(c),
            _ => scanner.element_byte(c)?,
        }
        scanner.empty &= !matches!(scanner.state, State::ElemStarted | State::QuotedElemStarted);
        pos += 1;
    }
    if !bytes[pos + 1..].iter().all(|&c| is_space(c)) {
        return Err(malformed(s, "Junk after closing right brace."));
    }
    Ok(scanner.finish())
}

/// The state of [`scan`]: PostgreSQL's `ArrayCount` state machine, plus the
/// element being read.
struct Scanner<'a> {
    /// The text scanned, for error messages.
    s: &'a str,
    /// Where in the brace structure the last byte left us.
    state: State,
    /// Whether inside double quotes.
    in_quotes: bool,
    /// Braces open.
    nest: usize,
    /// The deepest nesting so far (at least 1).
    ndim: usize,
    /// Counters per nesting depth.
    depth: [Depth; MAXDIM],
    /// Whether no element has started: `{}` and `{ }` are empty arrays.
    empty: bool,
    /// The element being read.
    item: ItemText,
    /// The elements read so far.
    items: Vec<Item>,
}

impl Scanner<'_> {
    /// Fail unless the state is one of `allowed`.
    fn expect(&self, allowed: &[State], err: impl FnOnce() -> TypeError) -> Result<()> {
        if allowed.contains(&self.state) {
            Ok(())
        } else {
            Err(err())
        }
    }

    /// A backslash, and the byte it escapes (`None` at the end of input).
    fn escape(&mut self, escaped: Option<u8>) -> Result<()> {
        use State::*;
        let allowed = [LevelStarted, ElemStarted, QuotedElemStarted, ElemDelimited];
        self.expect(&allowed, || unexpected(self.s, b'\\'))?;
        if self.state != QuotedElemStarted {
            self.state = ElemStarted;
        }
        let escaped = escaped.ok_or_else(|| malformed(self.s, "Unexpected end of input."))?;
        self.item.quoted = true;
        self.item.significant(escaped);
        Ok(())
    }

    /// A double quote, opening or closing a quoted element.
    fn quote(&mut self) -> Result<()> {
        use State::*;
        let allowed = [LevelStarted, QuotedElemStarted, ElemDelimited];
        self.expect(&allowed, || malformed(self.s, "Unexpected array element."))?;
        self.in_quotes = !self.in_quotes;
        self.state = if self.in_quotes { QuotedElemStarted } else { QuotedElemCompleted };
        self.item.quote(self.in_quotes);
        Ok(())
    }

    /// An unquoted `{`: a new nesting level.
    fn open(&mut self) -> Result<()> {
        use State::*;
        self.expect(&[NoLevel, LevelStarted, LevelDelimited], || unexpected(self.s, b'{'))?;
        self.state = LevelStarted;
        if self.nest >= MAXDIM {
            return Err(too_many_dimensions(self.nest as i64 + 1));
        }
        self.depth[self.nest].count = 0;
        self.nest += 1;
        self.ndim = self.ndim.max(self.nest);
        Ok(())
    }

    /// An unquoted `}`; true when it closes the whole array.
    fn close(&mut self) -> Result<bool> {
        use State::*;
        if !(self.nest == 1 && self.state == LevelStarted) {
            let allowed = [ElemStarted, QuotedElemCompleted, LevelCompleted];
            self.expect(&allowed, || unexpected(self.s, b'}'))?;
        }
        self.state = LevelCompleted;
        let level = self
            .nest
            .checked_sub(1)
            .ok_or_else(|| malformed(self.s, "Unmatched \"}\" character."))?;
        self.nest = level;
        let d = &mut self.depth[level];
        if d.elems_last != 0 && d.elems != d.elems_last {
            return Err(malformed(
                self.s,
                "Multidimensional arrays must have sub-arrays with matching dimensions.",
            ));
        }
        d.elems_last = d.elems;
        d.elems = 1;
        if level == 0 {
            self.end_item();
            return Ok(true);
        }
        self.depth[level - 1].count += 1;
        Ok(false)
    }

    /// An unquoted `,` ending an element or a sub-array.
    fn delimiter(&mut self) -> Result<()> {
        use State::*;
        let allowed = [ElemStarted, QuotedElemCompleted, LevelCompleted];
        self.expect(&allowed, || unexpected(self.s, b','))?;
        self.state = if self.state == LevelCompleted { LevelDelimited } else { ElemDelimited };
        // A `,` is only allowed inside braces, so `nest` is at least 1.
        self.depth[self.nest - 1].elems += 1;
        self.end_item();
        Ok(())
    }

    /// Any other unquoted, non-space byte: part of an unquoted element.
    fn element_byte(&mut self, c: u8) -> Result<()> {
        use State::*;
        let allowed = [LevelStarted, ElemStarted, ElemDelimited];
        self.expect(&allowed, || malformed(self.s, "Unexpected array element."))?;
        self.state = ElemStarted;
        self.item.significant(c);
        Ok(())
    }

    /// An element is complete: count it at the deepest level and keep it.
    fn end_item(&mut self) {
        self.depth[self.ndim - 1].count += 1;
        self.items.push(self.item.take());
    }

    /// The dimensions and elements; none at all for an empty array.
    fn finish(self) -> Shape {
        if self.empty {
            return Shape { dims: Vec::new(), items: Vec::new() };
        }
        Shape { dims: self.depth[..self.ndim].iter().map(|d| d.count).collect(), items: self.items }
    }
}
