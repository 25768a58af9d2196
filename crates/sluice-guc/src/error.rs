//! [`GucError`]: everything that can go wrong with a setting, each with
//! PostgreSQL's SQLSTATE and message text.
//!
//! The messages are PostgreSQL 15's, word for word (clients and tests match
//! on them): `unrecognized configuration parameter "foo"`, `invalid value for
//! parameter "x": "y"`, `1 kB is outside the valid range for parameter
//! "work_mem" (64 .. 2147483647)`... DETAIL and HINT lines are separate
//! ([`GucError::detail`], [`GucError::hint`]) so the protocol layer can send
//! them as the fields they are.

use std::fmt;
use std::io;

/// A setting-related failure.
#[derive(Debug)]
pub enum GucError {
    /// 42704: no setting of that name (and not a valid custom name).
    UnrecognizedParameter {
        /// The name as given.
        name: String,
    },
    /// 42602: a dotted name that is not two or more identifiers.
    InvalidParameterName {
        /// The name as given.
        name: String,
    },
    /// 22023 (or a hook's code): the value does not parse or a hook refused it.
    InvalidValue(Box<InvalidValue>),
    /// 22023: a boolean setting got something that is not a boolean.
    RequiresBoolean {
        /// The setting's canonical name.
        name: String,
    },
    /// 22023: a number outside the setting's range.
    OutOfRange {
        /// The setting's canonical name.
        name: String,
        /// The value, as PostgreSQL prints it (`%d` or `%g`), in the base unit.
        value: String,
        /// The base unit's name, if the setting has one.
        unit: Option<&'static str>,
        /// The minimum, printed likewise.
        min: String,
        /// The maximum, printed likewise.
        max: String,
    },
    /// 55P02: an internal setting.
    CannotBeChanged {
        /// The setting's canonical name.
        name: String,
    },
    /// 55P02: a postmaster setting, outside server start.
    RequiresRestart {
        /// The setting's canonical name.
        name: String,
    },
    /// 55P02: a sighup setting, outside the configuration file.
    CannotChangeNow {
        /// The setting's canonical name.
        name: String,
    },
    /// 55P02: a backend setting, after the connection started.
    AfterConnectionStart {
        /// The setting's canonical name.
        name: String,
    },
    /// 42501: a superuser setting, set by an ordinary user.
    PermissionDenied {
        /// The setting's canonical name.
        name: String,
    },
    /// 42501: a superuser-only setting, read by an ordinary user.
    CannotExamine {
        /// The name as given.
        name: String,
    },
    /// 22023: `SET x = a, b` for a setting that is not a list.
    TakesOneArgument {
        /// The setting's canonical name.
        name: String,
    },
    /// 22023: ALTER SYSTEM with a value containing a newline.
    NewlineInAlterSystem,
    /// 42601: `-c name` without `=value`.
    OptionRequiresValue {
        /// The option as given.
        option: String,
    },
    /// 42601: a configuration file line that does not parse.
    Syntax {
        /// The file (absolute path).
        file: String,
        /// The 1-based line number.
        line: u32,
        /// The offending token; None at the end of the line.
        near: Option<String>,
    },
    /// 54000: a hundred syntax errors in one file.
    TooManySyntaxErrors {
        /// The file.
        file: String,
    },
    /// 42704: a configuration file names an unknown setting.
    UnrecognizedInFile {
        /// The name as written.
        name: String,
        /// The file.
        file: String,
        /// The line.
        line: u32,
    },
    /// 54000: includes nested more than ten deep.
    NestingTooDeep {
        /// The file that could not be opened.
        file: String,
    },
    /// 22023: a file that includes itself.
    Recursion {
        /// The including file.
        file: String,
    },
    /// 22023: `include ''` or `include_dir ''`.
    EmptyFileName {
        /// The name as written.
        name: String,
        /// Whether it was `include_dir`.
        directory: bool,
    },
    /// A file system operation failed (SQLSTATE from the error kind).
    File {
        /// PostgreSQL's wording of the operation: `could not open file`.
        action: &'static str,
        /// The path.
        path: String,
        /// The system error.
        source: io::Error,
    },
    /// F0000: ALTER SYSTEM found `postgresql.auto.conf` unreadable.
    CouldNotParse {
        /// The file.
        file: String,
    },
    /// F0000: a configuration file has errors (the individual errors follow).
    ContainsErrors {
        /// The first file with an error.
        file: String,
        /// What happened to the rest of the file.
        outcome: FileOutcome,
        /// The individual errors, in file order.
        errors: Vec<GucError>,
    },
}

/// The parts of an invalid-value error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidValue {
    /// The setting's canonical name.
    pub name: String,
    /// The value as given.
    pub value: String,
    /// SQLSTATE (22023 unless a hook chose another).
    pub code: &'static str,
    /// A hook's own message replacing the standard one.
    pub message: Option<String>,
    /// DETAIL line.
    pub detail: Option<String>,
    /// HINT line.
    pub hint: Option<String>,
}

/// What became of a configuration file with errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileOutcome {
    /// At server start: the server must not start.
    Fatal,
    /// On reload: the lines without errors were applied.
    UnaffectedApplied,
    /// On reload: nothing was applied (syntax errors or unknown names).
    NoneApplied,
}

/// Result alias for this crate.
pub type Result<T> = std::result::Result<T, GucError>;

impl GucError {
    /// An invalid-value error with no DETAIL or HINT.
    pub(crate) fn invalid_value(name: &str, value: &str, hint: Option<&str>) -> GucError {
        GucError::InvalidValue(Box::new(InvalidValue {
            name: name.to_string(),
            value: value.to_string(),
            code: "22023",
            message: None,
            detail: None,
            hint: hint.map(str::to_string),
        }))
    }

    /// The SQLSTATE PostgreSQL reports for this error.
    pub fn sqlstate(&self) -> &'static str {
        use GucError::*;
        match self {
            UnrecognizedParameter { .. } | UnrecognizedInFile { .. } => "42704",
            InvalidParameterName { .. } => "42602",
            InvalidValue(v) => v.code,
            RequiresBoolean { .. }
            | OutOfRange { .. }
            | TakesOneArgument { .. }
            | NewlineInAlterSystem
            | Recursion { .. }
            | EmptyFileName { .. } => "22023",
            CannotBeChanged { .. }
            | RequiresRestart { .. }
            | CannotChangeNow { .. }
            | AfterConnectionStart { .. } => "55P02",
            PermissionDenied { .. } | CannotExamine { .. } => "42501",
            OptionRequiresValue { .. } | Syntax { .. } => "42601",
            TooManySyntaxErrors { .. } | NestingTooDeep { .. } => "54000",
            File { source, .. } => match source.kind() {
                io::ErrorKind::NotFound => "58P01",
                io::ErrorKind::PermissionDenied => "42501",
                _ => "58030",
            },
            ContainsErrors { .. } | CouldNotParse { .. } => "F0000",
        }
    }

    /// The DETAIL line, if PostgreSQL sends one.
    pub fn detail(&self) -> Option<String> {
        match self {
            GucError::InvalidValue(v) => v.detail.clone(),
            GucError::InvalidParameterName { .. } => Some(
                "Custom parameter names must be two or more simple identifiers separated by dots."
                    .to_string(),
            ),
            _ => None,
        }
    }

    /// The HINT line, if PostgreSQL sends one.
    pub fn hint(&self) -> Option<String> {
        match self {
            GucError::InvalidValue(v) => v.hint.clone(),
            _ => None,
        }
    }
}

impl fmt::Display for GucError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use GucError::*;
        match self {
            UnrecognizedParameter { name } => {
                write!(f, "unrecognized configuration parameter \"{name}\"")
            }
            InvalidParameterName { name } => {
                write!(f, "invalid configuration parameter name \"{name}\"")
            }
            InvalidValue(v) => match &v.message {
                Some(message) => f.write_str(message),
                None => write!(f, "invalid value for parameter \"{}\": \"{}\"", v.name, v.value),
            },
            RequiresBoolean { name } => write!(f, "parameter \"{name}\" requires a Boolean value"),
            OutOfRange { name, value, unit, min, max } => {
                let unit = unit.map(|u| format!(" {u}")).unwrap_or_default();
                write!(f, "{value}{unit} is outside the valid range for parameter \"{name}\" ({min} .. {max})")
            }
            CannotBeChanged { name } => write!(f, "parameter \"{name}\" cannot be changed"),
            RequiresRestart { name } => {
                write!(f, "parameter \"{name}\" cannot be changed without restarting the server")
            }
            CannotChangeNow { name } => write!(f, "parameter \"{name}\" cannot be changed now"),
            AfterConnectionStart { name } => {
                write!(f, "parameter \"{name}\" cannot be set after connection start")
            }
            PermissionDenied { name } => write!(f, "permission denied to set parameter \"{name}\""),
            CannotExamine { name } => write!(
                f,
                "must be superuser or have privileges of pg_read_all_settings to examine \"{name}\""
            ),
            TakesOneArgument { name } => write!(f, "SET {name} takes only one argument"),
            NewlineInAlterSystem => {
                f.write_str("parameter value for ALTER SYSTEM must not contain a newline")
            }
            OptionRequiresValue { option } => write!(f, "-c {option} requires a value"),
            Syntax { file, line, near: Some(token) } => {
                write!(f, "syntax error in file \"{file}\" line {line}, near token \"{token}\"")
            }
            Syntax { file, line, near: None } => {
                write!(f, "syntax error in file \"{file}\" line {line}, near end of line")
            }
            TooManySyntaxErrors { file } => {
                write!(f, "too many syntax errors found, abandoning file \"{file}\"")
            }
            UnrecognizedInFile { name, file, line } => {
                write!(f, "unrecognized configuration parameter \"{name}\" in file \"{file}\" line {line}")
            }
            NestingTooDeep { file } => {
                write!(
                    f,
                    "could not open configuration file \"{file}\": maximum nesting depth exceeded"
                )
            }
            Recursion { file } => write!(f, "configuration file recursion in \"{file}\""),
            EmptyFileName { name, directory: false } => {
                write!(f, "empty configuration file name: \"{name}\"")
            }
            EmptyFileName { name, directory: true } => {
                write!(f, "empty configuration directory name: \"{name}\"")
            }
            File { action, path, source } => write!(f, "{action} \"{path}\": {}", strerror(source)),
            CouldNotParse { file } => write!(f, "could not parse contents of file \"{file}\""),
            ContainsErrors { file, outcome, .. } => match outcome {
                FileOutcome::Fatal => write!(f, "configuration file \"{file}\" contains errors"),
                FileOutcome::UnaffectedApplied => write!(
                    f,
                    "configuration file \"{file}\" contains errors; unaffected changes were applied"
                ),
                FileOutcome::NoneApplied => {
                    write!(
                        f,
                        "configuration file \"{file}\" contains errors; no changes were applied"
                    )
                }
            },
        }
    }
}

impl std::error::Error for GucError {}

/// strerror -- the C library's text for a system error, as PostgreSQL's `%m`
/// prints it: Rust's text without the " (os error N)" suffix.
fn strerror(error: &io::Error) -> String {
    let text = error.to_string();
    match text.rfind(" (os error ") {
        Some(pos) => text[..pos].to_string(),
        None => text,
    }
}
