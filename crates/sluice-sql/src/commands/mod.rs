//! Utility statements (PostgreSQL's `commands/` and `tcop/utility.c`):
//! transaction control, settings, and table DDL.

pub mod analyze;
pub mod cluster;
pub mod copy;
pub mod dbcommands;
pub mod extension;
pub mod indexcmds;
pub mod sequence;
pub mod tablecmds;
pub mod truncate;
pub mod vacuum;
pub mod variable;
