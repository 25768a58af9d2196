//! Scalar functions grouped by family.
//!
//! * `string.rs` — text functions (`length`, `substr`, `lpad`, `md5`, ...);
//! * `math.rs` — `round`, `trunc`, `sqrt`, `power`, `mod`, `greatest`,
//!   `random`, `gen_random_uuid`;
//! * `size.rs` — `pg_size_pretty`;
//! * `array.rs` — `array_length`, `cardinality`, `array_to_string`,
//!   `array_position`, ..., and `op ANY/ALL (array)`.
//!
//! Date/time functions (`date_trunc`, `extract`, `age`) live with their types
//! in [`crate::datetime::funcs`]; jsonb operators in [`crate::jsonb`].

pub mod array;
pub mod math;
pub mod size;
pub mod string;
