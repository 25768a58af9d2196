//! Value syntax: PostgreSQL's boolean words, C's number parsing, unit
//! conversion both ways and `%g`.

use super::*;
use crate::units::Unit;

#[test]
fn booleans() {
    let cases = [
        ("on", Some(true)),
        ("ON", Some(true)),
        ("off", Some(false)),
        ("of", Some(false)),
        ("o", None),
        ("t", Some(true)),
        ("tRu", Some(true)),
        ("true", Some(true)),
        ("truex", None),
        ("f", Some(false)),
        ("y", Some(true)),
        ("yes", Some(true)),
        ("n", Some(false)),
        ("no", Some(false)),
        ("1", Some(true)),
        ("0", Some(false)),
        ("00", None),
        ("", None),
        (" on", None),
        ("maybe", None),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_bool(text), expected, "{text:?}");
    }
}

#[test]
fn integers_with_units() {
    let kb = Some(Unit::Kb);
    let cases: &[(&str, Option<Unit>, std::result::Result<i32, NumberError>)] = &[
        ("4096", kb, Ok(4096)),
        ("4MB", kb, Ok(4096)),
        ("1GB", kb, Ok(1_048_576)),
        ("1TB", kb, Ok(1_073_741_824)),
        ("512B", kb, Ok(0)),
        ("513B", kb, Ok(1)),
        ("0x10", kb, Ok(16)),
        ("010", kb, Ok(8)),
        ("-1", kb, Ok(-1)),
        (" 12 kB ", kb, Ok(12)),
        ("1.5MB", kb, Ok(1536)),
        ("100kB", Some(Unit::Blocks), Ok(12)),
        ("104kB", Some(Unit::Blocks), Ok(13)),
        ("1e3", None, Ok(1000)),
        (".5", None, Ok(0)),
        ("1.5", None, Ok(2)),
        ("2.5", None, Ok(2)),
        ("5min", Some(Unit::S), Ok(300)),
        ("1d", Some(Unit::Min), Ok(1440)),
        ("90s", Some(Unit::Min), Ok(2)),
        ("100us", Some(Unit::Ms), Ok(0)),
        ("abc", kb, Err(None)),
        ("", kb, Err(None)),
        ("12", None, Ok(12)),
        ("12 kB", None, Err(None)),
        ("12 mb", kb, Err(Some(crate::units::MEMORY_UNITS_HINT))),
        ("12 fortnights", Some(Unit::Ms), Err(Some(crate::units::TIME_UNITS_HINT))),
        ("12 M B", kb, Err(Some(crate::units::MEMORY_UNITS_HINT))),
        ("3000000000", None, Err(Some(INTEGER_RANGE_HINT))),
        ("99999999999999999999", None, Err(Some(INTEGER_RANGE_HINT))),
        ("nan", None, Err(None)),
        ("inf", None, Err(None)),
    ];
    for (text, unit, expected) in cases {
        assert_eq!(parse_int(text, *unit), *expected, "{text:?} in {unit:?}");
    }
}

#[test]
fn reals() {
    let cases: &[(&str, Option<Unit>, std::result::Result<f64, NumberError>)] = &[
        ("0.9", None, Ok(0.9)),
        ("1e-7", None, Ok(1e-7)),
        ("  2", None, Ok(2.0)),
        ("0x10", None, Ok(16.0)),
        ("inf", None, Ok(f64::INFINITY)),
        ("-Infinity", None, Ok(f64::NEG_INFINITY)),
        ("nan", None, Err(None)),
        ("1e400", None, Err(None)),
        ("1e-400", None, Err(None)),
        ("1.5", Some(Unit::Ms), Ok(1.5)),
        ("500us", Some(Unit::Ms), Ok(0.5)),
        ("2s", Some(Unit::Ms), Ok(2000.0)),
        ("x", None, Err(None)),
        ("1x", None, Err(None)),
    ];
    for (text, unit, expected) in cases {
        assert_eq!(parse_real(text, *unit), *expected, "{text:?}");
    }
}

#[test]
fn display_picks_the_largest_exact_unit() {
    let cases = [
        (Value::Int(16384), Some(Unit::Blocks), "128MB"),
        (Value::Int(1), Some(Unit::Blocks), "8kB"),
        (Value::Int(300), Some(Unit::S), "5min"),
        (Value::Int(301), Some(Unit::S), "301s"),
        (Value::Int(1440), Some(Unit::Min), "1d"),
        (Value::Int(4096), Some(Unit::Kb), "4MB"),
        (Value::Int(1025), Some(Unit::Kb), "1025kB"),
        (Value::Int(0), Some(Unit::Ms), "0"),
        (Value::Int(-1), Some(Unit::Ms), "-1"),
        (Value::Int(16_777_216), Some(Unit::Bytes), "16MB"),
        (Value::Real(2.0), Some(Unit::Ms), "2ms"),
        (Value::Real(1.5), Some(Unit::Ms), "1500us"),
        (Value::Real(0.0), Some(Unit::Ms), "0"),
        (Value::Real(-1.0), Some(Unit::Ms), "-1"),
        (Value::Real(0.9), None, "0.9"),
        (Value::Bool(true), None, "on"),
        (Value::Enum("remote_apply"), None, "remote_apply"),
    ];
    for (value, unit, expected) in cases {
        assert_eq!(value.display(unit, true), expected, "{value:?} in {unit:?}");
    }
    assert_eq!(Value::Int(16384).display(Some(Unit::Blocks), false), "16384");
}

#[test]
fn format_g_is_c_printf() {
    let cases = [
        (0.0, "0"),
        (1.0, "1"),
        (0.0025, "0.0025"),
        (0.1, "0.1"),
        (100000.0, "100000"),
        (1000000.0, "1e+06"),
        (1234567.0, "1.23457e+06"),
        (1e-7, "1e-07"),
        (0.0001, "0.0001"),
        (0.000123456789, "0.000123457"),
        (f64::MAX, "1.79769e+308"),
        (-2.5, "-2.5"),
        (f64::INFINITY, "Infinity"),
        (f64::NAN, "NaN"),
    ];
    for (x, expected) in cases {
        assert_eq!(format_g(x), expected, "{x}");
    }
}
