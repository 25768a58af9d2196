//! The one libpg_query call `pg_query`'s Rust API does not expose: the error's
//! cursor position. libpg_query is linked statically by the `pg_query` crate;
//! its C API (`pg_query.h`) is stable across releases, and we use only
//! `pg_query_parse` and `pg_query_free_parse_result` with their documented
//! struct layouts.

use std::ffi::{c_char, c_int, CString};

/// `PgQueryError` from pg_query.h.
#[repr(C)]
struct PgQueryError {
    message: *mut c_char,
    funcname: *mut c_char,
    filename: *mut c_char,
    lineno: c_int,
    cursorpos: c_int,
    context: *mut c_char,
}

/// `PgQueryParseResult` from pg_query.h.
#[repr(C)]
struct PgQueryParseResult {
    parse_tree: *mut c_char,
    stderr_buffer: *mut c_char,
    error: *mut PgQueryError,
}

extern "C" {
    fn pg_query_parse(input: *const c_char) -> PgQueryParseResult;
    fn pg_query_free_parse_result(result: PgQueryParseResult);
}

/// The 1-based character position libpg_query reports for the parse error in
/// `sql`, if any. Only called after a parse already failed.
pub(super) fn error_position(sql: &str) -> Option<u32> {
    let input = CString::new(sql).ok()?;
    // Safety: `input` is a valid NUL-terminated string that outlives the call;
    // the result is read only before it is freed, and freed exactly once with
    // the function libpg_query provides for it.
    unsafe {
        let result = pg_query_parse(input.as_ptr());
        let position =
            (!result.error.is_null()).then(|| (*result.error).cursorpos).filter(|&p| p > 0);
        pg_query_free_parse_result(result);
        // libpg_query counts bytes; PostgreSQL reports characters.
        position
            .map(|p| sql.get(..p as usize - 1).map_or(p as u32, |s| s.chars().count() as u32 + 1))
    }
}
