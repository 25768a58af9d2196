//! COPY's options (PostgreSQL's `ProcessCopyOptions` in `commands/copy.c`).
//!
//! Both spellings reach us as a list of `DefElem`s: the parenthesised
//! `WITH (FORMAT csv, HEADER match)` and the old keywords psql and pgbench
//! still send (`WITH CSV HEADER`, `DELIMITER ','`, `BINARY`, `FORCE NOT NULL
//! col`), which the grammar turns into the same names. Options are read in
//! order, so a repeated one fails where it repeats ("conflicting or redundant
//! options", with its position); then the defaults of the chosen format are
//! filled in and the combinations are checked in PostgreSQL's order, because
//! with several mistakes PostgreSQL reports the first of its checks, not the
//! first in the statement.
//!
//! Column lists (FORCE_QUOTE, FORCE_NOT_NULL, FORCE_NULL) stay names here;
//! `copy.rs` resolves them against the columns being copied.

use crate::error::position;
use crate::error::{Result, SqlError};
use pg_query::protobuf::{DefElem, Node};
use pg_query::NodeEnum;

/// The data format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// Tab-separated lines with backslash escapes (the default).
    Text,
    /// Comma-separated values with quoting.
    Csv,
    /// PostgreSQL's binary COPY file format.
    Binary,
}

/// What to do with the first line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Header {
    /// There is none.
    Off,
    /// Skip it (FROM) or write the column names (TO).
    On,
    /// It must name the columns being copied, in order (FROM only).
    Match,
}

/// The character encoding of the data (the database's is UTF8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Encoding {
    /// UTF8, or SQL_ASCII (bytes taken as they are, then checked as UTF8,
    /// which is what PostgreSQL does for SQL_ASCII into a UTF8 database).
    Utf8,
    /// ISO 8859-1: every byte is the character with that code.
    Latin1,
}

/// A column list option: which columns, or all (`FORCE_QUOTE *`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ColumnChoice {
    /// Every column copied.
    All,
    /// These names.
    Named(Vec<String>),
}

/// The options of one COPY statement, defaults filled in and checked.
#[derive(Clone, Debug)]
pub(crate) struct CopyOptions {
    /// Text, CSV or binary.
    pub format: Format,
    /// FREEZE (checked in `copy.rs`; rows are not pre-frozen).
    pub freeze: bool,
    /// Field separator (text and CSV).
    pub delimiter: u8,
    /// The string that stands for NULL (`\N` in text, empty in CSV).
    pub null: String,
    /// The header line.
    pub header: Header,
    /// CSV quote character.
    pub quote: u8,
    /// CSV escape character (inside quotes, before a quote or itself).
    pub escape: u8,
    /// CSV output: always quote these columns' non-NULL values.
    pub force_quote: Option<ColumnChoice>,
    /// CSV input: these columns never read as NULL.
    pub force_not_null: Option<Vec<String>>,
    /// CSV input: these columns read a quoted NULL string as NULL too.
    pub force_null: Option<Vec<String>>,
    /// Encoding of the data.
    pub encoding: Encoding,
}

/// Options as written, before defaults (None: not given).
#[derive(Default)]
struct Given {
    format: Option<Format>,
    freeze: Option<bool>,
    delimiter: Option<String>,
    null: Option<String>,
    header: Option<Header>,
    quote: Option<String>,
    escape: Option<String>,
    force_quote: Option<ColumnChoice>,
    force_not_null: Option<Vec<String>>,
    force_null: Option<Vec<String>>,
    encoding: Option<Encoding>,
}

/// parse_options -- the options of a COPY FROM (`is_from`) or COPY TO.
pub(crate) fn parse_options(options: &[Node], is_from: bool) -> Result<CopyOptions> {
    let mut given = Given::default();
    for node in options {
        let Some(NodeEnum::DefElem(def)) = node.node.as_ref() else { continue };
        read_option(&mut given, def, is_from)?;
    }
    finish(given, is_from)
}

/// read_option -- one `DefElem` into `given`.
fn read_option(given: &mut Given, def: &DefElem, is_from: bool) -> Result<()> {
    match def.defname.as_str() {
        "format" => {
            check_unset(&given.format, def)?;
            let name = option_string(def)?;
            let format = match name.as_str() {
                "text" => Format::Text,
                "csv" => Format::Csv,
                "binary" => Format::Binary,
                _ => {
                    return Err(SqlError::new(
                        "22023",
                        format!("COPY format \"{name}\" not recognized"),
                    )
                    .at(position(def.location)))
                }
            };
            given.format = Some(format);
            Ok(())
        }
        "freeze" => {
            check_unset(&given.freeze, def)?;
            given.freeze = Some(option_boolean(def)?);
            Ok(())
        }
        "delimiter" => {
            check_unset(&given.delimiter, def)?;
            given.delimiter = Some(option_string(def)?);
            Ok(())
        }
        "null" => {
            check_unset(&given.null, def)?;
            given.null = Some(option_string(def)?);
            Ok(())
        }
        "header" => {
            check_unset(&given.header, def)?;
            given.header = Some(header_choice(def, is_from)?);
            Ok(())
        }
        "quote" => {
            check_unset(&given.quote, def)?;
            given.quote = Some(option_string(def)?);
            Ok(())
        }
        "escape" => {
            check_unset(&given.escape, def)?;
            given.escape = Some(option_string(def)?);
            Ok(())
        }
        "force_quote" => {
            check_unset(&given.force_quote, def)?;
            given.force_quote = Some(match def.arg.as_deref().and_then(|a| a.node.as_ref()) {
                Some(NodeEnum::AStar(_)) => ColumnChoice::All,
                _ => ColumnChoice::Named(column_list(def)?),
            });
            Ok(())
        }
        "force_not_null" => {
            check_unset(&given.force_not_null, def)?;
            given.force_not_null = Some(column_list(def)?);
            Ok(())
        }
        "force_null" => {
            check_unset(&given.force_null, def)?;
            given.force_null = Some(column_list(def)?);
            Ok(())
        }
        "encoding" => {
            check_unset(&given.encoding, def)?;
            given.encoding = Some(encoding(def)?);
            Ok(())
        }
        other => Err(SqlError::syntax(format!("option \"{other}\" not recognized"))
            .at(position(def.location))),
    }
}

/// Fails if an option stored in `slot` was already given.
fn check_unset<T>(slot: &Option<T>, def: &DefElem) -> Result<()> {
    if slot.is_some() {
        return Err(SqlError::syntax("conflicting or redundant options").at(position(def.location)));
    }
    Ok(())
}

/// option_string -- the option's value as a string (PostgreSQL's defGetString).
fn option_string(def: &DefElem) -> Result<String> {
    let missing = || SqlError::syntax(format!("{} requires a parameter", def.defname));
    let node = def.arg.as_deref().and_then(|a| a.node.as_ref()).ok_or_else(missing)?;
    Ok(match node {
        NodeEnum::String(s) => s.sval.clone(),
        NodeEnum::Integer(i) => i.ival.to_string(),
        NodeEnum::Float(f) => f.fval.clone(),
        NodeEnum::Boolean(b) => if b.boolval { "true" } else { "false" }.to_string(),
        NodeEnum::AStar(_) => "*".to_string(),
        NodeEnum::List(list) => {
            let names: Vec<String> =
                list.items.iter().filter_map(crate::parser::node_str).collect();
            names.join(".")
        }
        _ => {
            crate::parser::node_str(def.arg.as_deref().ok_or_else(missing)?).ok_or_else(missing)?
        }
    })
}

/// The spellings of a Boolean option value (PostgreSQL's defGetBoolean):
/// none (true), 0/1, and true/false/on/off in any case.
fn boolean_word(def: &DefElem) -> Result<Option<bool>> {
    match def.arg.as_deref().and_then(|a| a.node.as_ref()) {
        None => Ok(Some(true)),
        Some(NodeEnum::Integer(i)) => Ok(match i.ival {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }),
        Some(_) => Ok(match option_string(def)?.to_ascii_lowercase().as_str() {
            "true" | "on" => Some(true),
            "false" | "off" => Some(false),
            _ => None,
        }),
    }
}

/// option_boolean -- a Boolean option's value.
fn option_boolean(def: &DefElem) -> Result<bool> {
    boolean_word(def)?
        .ok_or_else(|| SqlError::syntax(format!("{} requires a Boolean value", def.defname)))
}

/// header_choice -- HEADER's value: a Boolean or `match` (COPY FROM only).
fn header_choice(def: &DefElem, is_from: bool) -> Result<Header> {
    if let Some(on) = boolean_word(def)? {
        return Ok(if on { Header::On } else { Header::Off });
    }
    let integer =
        matches!(def.arg.as_deref().and_then(|a| a.node.as_ref()), Some(NodeEnum::Integer(_)));
    let word = option_string(def)?;
    if !integer && word.eq_ignore_ascii_case("match") {
        if !is_from {
            return Err(SqlError::unsupported(format!(
                "cannot use \"{word}\" with HEADER in COPY TO"
            )));
        }
        return Ok(Header::Match);
    }
    Err(SqlError::syntax(format!("{} requires a Boolean value or \"match\"", def.defname)))
}

/// column_list -- the names of a FORCE_* option.
fn column_list(def: &DefElem) -> Result<Vec<String>> {
    match def.arg.as_deref().and_then(|a| a.node.as_ref()) {
        Some(NodeEnum::List(list)) => {
            Ok(list.items.iter().filter_map(crate::parser::node_str).collect())
        }
        _ => Err(SqlError::new(
            "22023",
            format!("argument to option \"{}\" must be a list of column names", def.defname),
        )
        .at(position(def.location))),
    }
}

/// encoding -- ENCODING's value. UTF8 (and SQL_ASCII) and LATIN1 are read
/// and written; PostgreSQL's other encodings fail like a missing conversion.
fn encoding(def: &DefElem) -> Result<Encoding> {
    let name = option_string(def)?;
    match sluice_guc::canonical_encoding(&name) {
        Some("UTF8" | "SQL_ASCII") => Ok(Encoding::Utf8),
        Some("LATIN1") => Ok(Encoding::Latin1),
        Some(canonical) => Err(SqlError::new(
            "42883",
            format!("default conversion function for encoding \"{canonical}\" to \"UTF8\" does not exist"),
        )),
        None => Err(SqlError::new(
            "22023",
            format!("argument to option \"{}\" must be a valid encoding name", def.defname),
        )
        .at(position(def.location))),
    }
}

/// The single byte of a one-character option, or the error PostgreSQL gives.
fn single_byte(value: &str, what: &str) -> Result<u8> {
    match value.as_bytes() {
        [b] => Ok(*b),
        _ => Err(SqlError::unsupported(format!("COPY {what} must be a single one-byte character"))),
    }
}

/// finish -- fills in the format's defaults and checks the combination, in
/// PostgreSQL's order.
fn finish(given: Given, is_from: bool) -> Result<CopyOptions> {
    let format = given.format.unwrap_or(Format::Text);
    let (csv, binary) = (format == Format::Csv, format == Format::Binary);
    if binary && given.delimiter.is_some() {
        return Err(SqlError::syntax("cannot specify DELIMITER in BINARY mode"));
    }
    if binary && given.null.is_some() {
        return Err(SqlError::syntax("cannot specify NULL in BINARY mode"));
    }
    let delimiter = given.delimiter.unwrap_or_else(|| if csv { "," } else { "\t" }.to_string());
    let null = given.null.unwrap_or_else(|| if csv { "" } else { "\\N" }.to_string());
    let delim = single_byte(&delimiter, "delimiter")?;
    if delim == b'\r' || delim == b'\n' {
        return Err(SqlError::new("22023", "COPY delimiter cannot be newline or carriage return"));
    }
    if null.contains(['\r', '\n']) {
        return Err(SqlError::new(
            "22023",
            "COPY null representation cannot use newline or carriage return",
        ));
    }
    // Backslash and the letters and digits that follow it in escapes would
    // make text-format data ambiguous.
    if !csv && b"\\.abcdefghijklmnopqrstuvwxyz0123456789".contains(&delim) {
        return Err(SqlError::new("22023", format!("COPY delimiter cannot be \"{delimiter}\"")));
    }
    let header = given.header.unwrap_or(Header::Off);
    if binary && header != Header::Off {
        return Err(SqlError::unsupported("cannot specify HEADER in BINARY mode"));
    }
    let quote = csv_character(given.quote, csv, "\"", "quote")?;
    if csv && delim == quote {
        return Err(SqlError::new("22023", "COPY delimiter and quote must be different"));
    }
    let escape = csv_character(given.escape, csv, &(quote as char).to_string(), "escape")?;
    check_csv_list(given.force_quote.is_some(), csv, !is_from, "force quote", "TO")?;
    check_csv_list(given.force_not_null.is_some(), csv, is_from, "force not null", "FROM")?;
    check_csv_list(given.force_null.is_some(), csv, is_from, "force null", "FROM")?;
    if null.as_bytes().contains(&delim) {
        return Err(SqlError::new(
            "22023",
            "COPY delimiter must not appear in the NULL specification",
        ));
    }
    if csv && null.as_bytes().contains(&quote) {
        return Err(SqlError::new(
            "22023",
            "CSV quote character must not appear in the NULL specification",
        ));
    }
    Ok(CopyOptions {
        format,
        freeze: given.freeze.unwrap_or(false),
        delimiter: delim,
        null,
        header,
        quote,
        escape,
        force_quote: given.force_quote,
        force_not_null: given.force_not_null,
        force_null: given.force_null,
        encoding: given.encoding.unwrap_or(Encoding::Utf8),
    })
}

/// QUOTE or ESCAPE: CSV only, one byte, `default` when not given (0 outside CSV).
fn csv_character(value: Option<String>, csv: bool, default: &str, what: &str) -> Result<u8> {
    match (csv, value) {
        (false, Some(_)) => {
            Err(SqlError::unsupported(format!("COPY {what} available only in CSV mode")))
        }
        (false, None) => Ok(0),
        (true, value) => single_byte(value.as_deref().unwrap_or(default), what),
    }
}

/// A FORCE_* option is CSV only, and for one direction only.
fn check_csv_list(given: bool, csv: bool, right_way: bool, what: &str, way: &str) -> Result<()> {
    if given && !csv {
        return Err(SqlError::unsupported(format!("COPY {what} available only in CSV mode")));
    }
    if given && !right_way {
        return Err(SqlError::unsupported(format!("COPY {what} only available using COPY {way}")));
    }
    Ok(())
}
