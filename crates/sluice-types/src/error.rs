//! The data types' error type.
//!
//! Everything that can go wrong with a value is the user's doing: text that does
//! not parse, a number that does not fit, a division by zero, a cast PostgreSQL
//! does not have. Each such failure carries PostgreSQL's SQLSTATE, its exact
//! one-line message and, where PostgreSQL has them, the DETAIL, HINT and CONTEXT
//! lines — the wire protocol layer forwards them unchanged, so a client sees the
//! same error it would see from PostgreSQL 15.
//!
//! The category ([`ErrorKind`]) is an enum so callers can match on it; the text
//! is a string because PostgreSQL's messages interpolate the offending input.
//! Constructors for the messages used in many places live here so that the exact
//! wording exists once.

use std::fmt;

/// The category of a type error; each maps to one PostgreSQL SQLSTATE.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// 22P02 `invalid_text_representation`: input text that does not parse.
    InvalidTextRepresentation,
    /// 22P03 `invalid_binary_representation`: a malformed binary (wire) value.
    InvalidBinaryRepresentation,
    /// 22003 `numeric_value_out_of_range`: a number that does not fit its type.
    NumericValueOutOfRange,
    /// 22012 `division_by_zero`.
    DivisionByZero,
    /// 22001 `string_data_right_truncation`: a string longer than its typmod.
    StringDataRightTruncation,
    /// 22007 `invalid_datetime_format`: date/time text that does not parse.
    InvalidDatetimeFormat,
    /// 22008 `datetime_field_overflow`: a date/time field or result out of range.
    DatetimeFieldOverflow,
    /// 22015 `interval_field_overflow`.
    IntervalFieldOverflow,
    /// 22009 `invalid_time_zone_displacement_value`.
    InvalidTimeZoneDisplacement,
    /// 22011 `substring_error`: a negative substring length.
    SubstringError,
    /// 22021 `character_not_in_repertoire`: bytes that are not valid UTF-8.
    CharacterNotInRepertoire,
    /// 22023 `invalid_parameter_value`: a bad argument to a function.
    InvalidParameterValue,
    /// 2201E `invalid_argument_for_logarithm`.
    InvalidArgumentForLogarithm,
    /// 2201F `invalid_argument_for_power_function`.
    InvalidArgumentForPowerFunction,
    /// 22P05 `untranslatable_character`: e.g. `\u0000` in jsonb.
    UntranslatableCharacter,
    /// 42846 `cannot_coerce`: a cast PostgreSQL does not have.
    CannotCoerce,
    /// 42883 `undefined_function`: no such operator or function for these types.
    UndefinedFunction,
    /// 0A000 `feature_not_supported`: something PostgreSQL has that sluice lacks.
    FeatureNotSupported,
    /// 55P04 `unsafe_new_enum_value_usage`: an enum label added by the
    /// running transaction, used before it commits.
    UnsafeNewEnumValueUsage,
    /// 54000 `program_limit_exceeded`: a result larger than a value may be.
    ProgramLimitExceeded,
    /// 54001 `statement_too_complex`: nesting beyond the stack depth limit.
    StatementTooComplex,
    /// XX001 `data_corrupted`: stored bytes that cannot be a value of the type.
    DataCorrupted,
    /// 22000 `data_exception`: generic data errors without a finer code.
    DataException,
    /// 2202E `array_subscript_error`: array bounds that make no sense.
    ArraySubscriptError,
    /// 22004 `null_value_not_allowed`: a NULL argument a function refuses.
    NullValueNotAllowed,
    /// 42804 `datatype_mismatch`: e.g. a binary array of another element type.
    DatatypeMismatch,
}

impl ErrorKind {
    /// The five-character SQLSTATE PostgreSQL reports for this category.
    pub fn sqlstate(self) -> &'static str {
        match self {
            ErrorKind::InvalidTextRepresentation => "22P02",
            ErrorKind::InvalidBinaryRepresentation => "22P03",
            ErrorKind::NumericValueOutOfRange => "22003",
            ErrorKind::DivisionByZero => "22012",
            ErrorKind::StringDataRightTruncation => "22001",
            ErrorKind::InvalidDatetimeFormat => "22007",
            ErrorKind::DatetimeFieldOverflow => "22008",
            ErrorKind::IntervalFieldOverflow => "22015",
            ErrorKind::InvalidTimeZoneDisplacement => "22009",
            ErrorKind::SubstringError => "22011",
            ErrorKind::CharacterNotInRepertoire => "22021",
            ErrorKind::InvalidParameterValue => "22023",
            ErrorKind::InvalidArgumentForLogarithm => "2201E",
            ErrorKind::InvalidArgumentForPowerFunction => "2201F",
            ErrorKind::UntranslatableCharacter => "22P05",
            ErrorKind::CannotCoerce => "42846",
            ErrorKind::UndefinedFunction => "42883",
            ErrorKind::FeatureNotSupported => "0A000",
            ErrorKind::UnsafeNewEnumValueUsage => "55P04",
            ErrorKind::ProgramLimitExceeded => "54000",
            ErrorKind::StatementTooComplex => "54001",
            ErrorKind::DataCorrupted => "XX001",
            ErrorKind::DataException => "22000",
            ErrorKind::ArraySubscriptError => "2202E",
            ErrorKind::NullValueNotAllowed => "22004",
            ErrorKind::DatatypeMismatch => "42804",
        }
    }
}

/// A failed operation on a value, with PostgreSQL's SQLSTATE and texts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeError {
    /// The category, which determines the SQLSTATE.
    pub kind: ErrorKind,
    /// The primary message, exactly as PostgreSQL words it.
    pub message: String,
    /// PostgreSQL's DETAIL line, if it has one for this error.
    pub detail: Option<String>,
    /// PostgreSQL's HINT line, if it has one for this error.
    pub hint: Option<String>,
    /// PostgreSQL's CONTEXT line (used by the JSON parser), if any.
    pub context: Option<String>,
}

/// Result alias for everything in this crate.
pub type Result<T> = std::result::Result<T, TypeError>;

impl TypeError {
    /// An error of `kind` with just a message.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> TypeError {
        TypeError { kind, message: message.into(), detail: None, hint: None, context: None }
    }

    /// The same error with a DETAIL line.
    pub fn with_detail(mut self, detail: impl Into<String>) -> TypeError {
        self.detail = Some(detail.into());
        self
    }

    /// The same error with a HINT line.
    pub fn with_hint(mut self, hint: impl Into<String>) -> TypeError {
        self.hint = Some(hint.into());
        self
    }

    /// The same error with a CONTEXT line.
    pub fn with_context(mut self, context: impl Into<String>) -> TypeError {
        self.context = Some(context.into());
        self
    }

    /// The SQLSTATE of this error.
    pub fn sqlstate(&self) -> &'static str {
        self.kind.sqlstate()
    }

    /// `invalid input syntax for type T: "input"` (22P02).
    pub fn invalid_syntax(type_name: &str, input: &str) -> TypeError {
        TypeError::new(
            ErrorKind::InvalidTextRepresentation,
            format!("invalid input syntax for type {type_name}: \"{input}\""),
        )
    }

    /// `value "input" is out of range for type T` (22003), from integer input.
    pub fn value_out_of_range(input: &str, type_name: &str) -> TypeError {
        TypeError::new(
            ErrorKind::NumericValueOutOfRange,
            format!("value \"{input}\" is out of range for type {type_name}"),
        )
    }

    /// `"input" is out of range for type T` (22003), from float input.
    pub fn float_input_out_of_range(input: &str, type_name: &str) -> TypeError {
        TypeError::new(
            ErrorKind::NumericValueOutOfRange,
            format!("\"{input}\" is out of range for type {type_name}"),
        )
    }

    /// A plain 22003 error such as `integer out of range`.
    pub fn out_of_range(message: impl Into<String>) -> TypeError {
        TypeError::new(ErrorKind::NumericValueOutOfRange, message)
    }

    /// `division by zero` (22012).
    pub fn division_by_zero() -> TypeError {
        TypeError::new(ErrorKind::DivisionByZero, "division by zero")
    }

    /// `value overflows numeric format` (22003).
    pub fn numeric_overflow() -> TypeError {
        TypeError::out_of_range("value overflows numeric format")
    }

    /// `invalid parameter value` style errors (22023).
    pub fn invalid_parameter(message: impl Into<String>) -> TypeError {
        TypeError::new(ErrorKind::InvalidParameterValue, message)
    }

    /// `cannot cast type X to Y` (42846).
    pub fn cannot_cast(from: &str, to: &str) -> TypeError {
        TypeError::new(ErrorKind::CannotCoerce, format!("cannot cast type {from} to {to}"))
    }

    /// `incorrect binary data format` (22P03), for wire values of the wrong shape.
    pub fn bad_binary(message: impl Into<String>) -> TypeError {
        TypeError::new(ErrorKind::InvalidBinaryRepresentation, message)
    }

    /// `date/time field value out of range: "input"` (22008).
    pub fn datetime_field_overflow(input: &str) -> TypeError {
        TypeError::new(
            ErrorKind::DatetimeFieldOverflow,
            format!("date/time field value out of range: \"{input}\""),
        )
    }
}

impl fmt::Display for TypeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for TypeError {}
