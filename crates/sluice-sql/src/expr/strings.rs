//! The text built-ins: `length`, `substr`, `trim`, `lpad`, `concat`, ...
//!
//! Most wrap `sluice_types::funcs::string`; this file adds what works on
//! `bytea` as well (`substr`, `length`, `md5`) and the functions whose
//! behaviour is defined by the argument list (`concat` skips NULLs,
//! `concat_ws` is NULL only for a NULL separator). Values print with their
//! type's output function, so `concat(true)` is `t` (unlike `true || ''`,
//! which casts and gives `true`).

use sluice_types::funcs::string as strings;
use sluice_types::{io, Context, Datum, ErrorKind, TypeError};

use super::builtin::{arg, int, integer, text, Builtin};
use crate::{Result, SqlError};

/// call -- computes a text built-in over non-null arguments.
pub(super) fn call(func: Builtin, args: &[Datum]) -> Result<Datum> {
    use Builtin::*;
    let s = || text(args, 0);
    let text_out = |r: String| Ok(Datum::Text(r));
    match func {
        Length => match arg(args, 0)? {
            Datum::Bytea(b) => Ok(Datum::Int4(b.len() as i32)),
            _ => Ok(Datum::Int4(strings::length(s()?))),
        },
        BpcharLength => Ok(Datum::Int4(strings::length(sluice_types::text::bpchar_trim(s()?)))),
        OctetLength => match arg(args, 0)? {
            Datum::Bytea(b) => Ok(Datum::Int4(b.len() as i32)),
            _ => Ok(Datum::Int4(strings::octet_length(s()?))),
        },
        Lower => text_out(strings::lower(s()?)),
        Upper => text_out(strings::upper(s()?)),
        Initcap => text_out(strings::initcap(s()?)),
        Substr => substr(args),
        Left => text_out(strings::left(s()?, int(args, 1)?)),
        Right => text_out(strings::right(s()?, int(args, 1)?)),
        Strpos => Ok(Datum::Int4(strings::position(s()?, text(args, 1)?))),
        Replace => text_out(strings::replace(s()?, text(args, 1)?, text(args, 2)?)?),
        Trim(side) => text_out(strings::trim(s()?, optional_text(args, 1)?, side)),
        Lpad => text_out(strings::lpad(s()?, int(args, 1)?, optional_text(args, 2)?)?),
        Rpad => text_out(strings::rpad(s()?, int(args, 1)?, optional_text(args, 2)?)?),
        Repeat => text_out(strings::repeat(s()?, int(args, 1)?)?),
        Md5 => match arg(args, 0)? {
            Datum::Bytea(b) => text_out(strings::md5(b)),
            _ => text_out(strings::md5(s()?.as_bytes())),
        },
        Reverse => text_out(strings::reverse(s()?)),
        SplitPart => text_out(strings::split_part(s()?, text(args, 1)?, int(args, 2)?)?),
        Translate => text_out(translate(s()?, text(args, 1)?, text(args, 2)?)),
        Ascii => Ok(Datum::Int4(s()?.chars().next().map_or(0, |c| c as i32))),
        Chr => chr(int(args, 0)?),
        ToHex => match arg(args, 0)? {
            Datum::Int4(v) => text_out(format!("{:x}", *v as u32)),
            other => text_out(format!("{:x}", integer(other)? as u64)),
        },
        other => Err(SqlError::internal(format!("{other:?} is not a string function"))),
    }
}

/// `concat` and `concat_ws`.
pub(super) fn concat(func: Builtin, args: &[Datum], ctx: &Context) -> Result<Datum> {
    if func == Builtin::ConcatAny {
        return Ok(Datum::Text(join(args, "", ctx)));
    }
    Ok(match arg(args, 0)? {
        Datum::Null => Datum::Null,
        sep => Datum::Text(join(&args[1..], &io::output(sep, ctx).unwrap_or_default(), ctx)),
    })
}

/// `substr` of text (characters) or bytea (bytes).
/// `quote_literal(s)`: `s` in single quotes with quotes doubled; with an
/// `E` in front and backslashes doubled too if it has any, so that it reads
/// back the same whatever `standard_conforming_strings` says.
pub(super) fn quote_literal(s: &str) -> String {
    let escaped = s.replace('\\', "\\\\").replace('\'', "''");
    match s.contains('\\') {
        true => format!("E'{escaped}'"),
        false => format!("'{escaped}'"),
    }
}

fn substr(args: &[Datum]) -> Result<Datum> {
    let start = int(args, 1)?;
    let count = if args.len() > 2 { Some(int(args, 2)?) } else { None };
    match arg(args, 0)? {
        Datum::Bytea(b) => {
            let (from, to) = substr_range(start, count, b.len())?;
            Ok(Datum::Bytea(b[from..to].to_vec()))
        }
        _ => Ok(Datum::Text(strings::substr(text(args, 0)?, start, count)?)),
    }
}

/// The byte range of `substr(bytea, start, count)` over `len` bytes.
fn substr_range(start: i64, count: Option<i64>, len: usize) -> Result<(usize, usize)> {
    let end = match count {
        Some(c) if c < 0 => {
            return Err(TypeError::new(
                ErrorKind::SubstringError,
                "negative substring length not allowed",
            )
            .into())
        }
        Some(c) => start.saturating_add(c),
        None => i64::MAX,
    };
    let clamp = |p: i64| usize::try_from(p.saturating_sub(1).max(0)).unwrap_or(usize::MAX).min(len);
    let from = clamp(start.max(1));
    Ok((from, clamp(end).max(from)))
}

/// `translate(s, from, to)`: characters of `from` become the character at
/// the same index of `to`, or disappear if `to` is shorter.
fn translate(s: &str, from: &str, to: &str) -> String {
    let from: Vec<char> = from.chars().collect();
    let to: Vec<char> = to.chars().collect();
    s.chars()
        .filter_map(|c| match from.iter().position(|f| *f == c) {
            Some(i) => to.get(i).copied(),
            None => Some(c),
        })
        .collect()
}

/// `chr(n)`: the character with code point `n`.
fn chr(n: i64) -> Result<Datum> {
    if n == 0 {
        return Err(SqlError::new("54000", "null character not permitted"));
    }
    let c = u32::try_from(n).ok().and_then(char::from_u32).ok_or_else(|| {
        let message = if (0xD800..0xE000).contains(&n) {
            format!("requested character not valid for encoding: {n}")
        } else {
            format!("requested character too large for encoding: {n}")
        };
        SqlError::new("54000", message)
    })?;
    Ok(Datum::Text(c.to_string()))
}

/// The text outputs of the non-null `args`, joined by `sep`.
fn join(args: &[Datum], sep: &str, ctx: &Context) -> String {
    let parts: Vec<String> = args.iter().filter_map(|a| io::output(a, ctx)).collect();
    parts.join(sep)
}

/// Optional string argument `i` (absent when the call has fewer arguments).
fn optional_text(args: &[Datum], i: usize) -> Result<Option<&str>> {
    if i < args.len() {
        text(args, i).map(Some)
    } else {
        Ok(None)
    }
}
