//! Units of memory and time, and conversion to and from a setting's base unit.
//!
//! Every integer or real setting with a unit stores its value in one base unit
//! (`work_mem` in kB, `shared_buffers` in 8 kB blocks, `checkpoint_timeout` in
//! seconds). Input may name any unit of the same kind (`'1GB'`, `'5min'`);
//! `SHOW` prints the largest unit that represents the value exactly
//! (`shared_buffers` 16384 → `128MB`, `checkpoint_timeout` 300 → `5min`).
//!
//! The conversion tables are PostgreSQL's: one row per (unit, base unit) pair,
//! greatest unit first, each with the factor from that unit to the base unit.
//! Conversions are never chained, so there is no accumulated rounding; unit
//! names are case-sensitive (`MB`, not `mb`).

/// The base unit of a setting (PostgreSQL's `GUC_UNIT_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Bytes (`B`).
    Bytes,
    /// Kilobytes (`kB`).
    Kb,
    /// Megabytes (`MB`).
    Mb,
    /// 8 kB data blocks (`8kB`).
    Blocks,
    /// 8 kB WAL blocks (`8kB`).
    XBlocks,
    /// Milliseconds (`ms`).
    Ms,
    /// Seconds (`s`).
    S,
    /// Minutes (`min`).
    Min,
}

/// The size of a data block and of a WAL block, in bytes.
pub const BLOCK_SIZE: i64 = 8192;

/// The hint for a memory value with an unknown unit.
pub(crate) const MEMORY_UNITS_HINT: &str =
    "Valid units for this parameter are \"B\", \"kB\", \"MB\", \"GB\", and \"TB\".";

/// The hint for a time value with an unknown unit.
pub(crate) const TIME_UNITS_HINT: &str =
    "Valid units for this parameter are \"us\", \"ms\", \"s\", \"min\", \"h\", and \"d\".";

/// Memory unit names with their size in bytes, greatest first.
const MEMORY_UNITS: [(&str, f64); 5] = [
    ("TB", 1024.0 * 1024.0 * 1024.0 * 1024.0),
    ("GB", 1024.0 * 1024.0 * 1024.0),
    ("MB", 1024.0 * 1024.0),
    ("kB", 1024.0),
    ("B", 1.0),
];

/// Time unit names with their length in microseconds, greatest first.
const TIME_UNITS: [(&str, f64); 6] = [
    ("d", 86_400_000_000.0),
    ("h", 3_600_000_000.0),
    ("min", 60_000_000.0),
    ("s", 1_000_000.0),
    ("ms", 1000.0),
    ("us", 1.0),
];

impl Unit {
    /// The name `pg_settings.unit` shows for the base unit.
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Bytes => "B",
            Unit::Kb => "kB",
            Unit::Mb => "MB",
            Unit::Blocks | Unit::XBlocks => "8kB",
            Unit::Ms => "ms",
            Unit::S => "s",
            Unit::Min => "min",
        }
    }

    /// Whether this is a memory unit (else a time unit).
    pub fn is_memory(self) -> bool {
        matches!(self, Unit::Bytes | Unit::Kb | Unit::Mb | Unit::Blocks | Unit::XBlocks)
    }

    /// The size of one base unit, in bytes (memory) or microseconds (time).
    fn size(self) -> f64 {
        match self {
            Unit::Bytes => 1.0,
            Unit::Kb => 1024.0,
            Unit::Mb => 1024.0 * 1024.0,
            Unit::Blocks | Unit::XBlocks => BLOCK_SIZE as f64,
            Unit::Ms => 1000.0,
            Unit::S => 1_000_000.0,
            Unit::Min => 60_000_000.0,
        }
    }

    /// The hint PostgreSQL gives when a value's unit is not recognized.
    pub(crate) fn hint(self) -> &'static str {
        if self.is_memory() {
            MEMORY_UNITS_HINT
        } else {
            TIME_UNITS_HINT
        }
    }

    /// conversions -- (unit name, factor to this base unit) for every unit of
    /// the same kind, greatest first: PostgreSQL's conversion table rows.
    fn conversions(self) -> impl Iterator<Item = (&'static str, f64)> {
        let table: &'static [(&'static str, f64)] =
            if self.is_memory() { &MEMORY_UNITS } else { &TIME_UNITS };
        let base = self.size();
        // One division per factor, so each is exactly PostgreSQL's table entry
        // (a correctly rounded quotient of the same two exact numbers).
        table.iter().map(move |&(name, size)| (name, size / base))
    }

    /// to_base -- convert `value` given in unit `unit` to this base unit; None
    /// if `unit` is not a unit of this kind.
    ///
    /// A fractional value ("30.1GB") is rounded to a whole number of the next
    /// smaller unit, as PostgreSQL does; the caller rounds to an integer.
    pub(crate) fn to_base(self, value: f64, unit: &str) -> Option<f64> {
        let rows: Vec<(&str, f64)> = self.conversions().collect();
        let pos = rows.iter().position(|&(name, _)| name == unit)?;
        let converted = value * rows[pos].1;
        Some(match rows.get(pos + 1) {
            Some(&(_, smaller)) => (converted / smaller).round_ties_even() * smaller,
            None => converted,
        })
    }

    /// int_from_base -- the greatest unit that represents `base` exactly, and the
    /// value in it (`131072` kB → `128`, `"MB"`). `base` must be positive.
    pub(crate) fn int_from_base(self, base: i64) -> (i64, &'static str) {
        for (name, mult) in self.conversions() {
            if mult <= 1.0 || base % (mult as i64) == 0 {
                return ((base as f64 / mult).round_ties_even() as i64, name);
            }
        }
        unreachable!("every unit table contains its base unit")
    }

    /// real_from_base -- like [`Unit::int_from_base`] for reals: the first unit
    /// in which the value is (within 1e-8) an integer, else the smallest unit.
    pub(crate) fn real_from_base(self, base: f64) -> (f64, &'static str) {
        let mut last = (base, self.as_str());
        for (name, mult) in self.conversions() {
            let value = base / mult;
            last = (value, name);
            if value > 0.0 && ((value.round_ties_even() / value) - 1.0).abs() <= 1e-8 {
                break;
            }
        }
        last
    }

    /// Factor from this base unit to bytes (memory) or milliseconds (time), for
    /// the typed accessors.
    pub(crate) fn to_bytes_or_ms(self) -> f64 {
        if self.is_memory() {
            self.size()
        } else {
            self.size() / 1000.0
        }
    }
}
