//! Utility statements (PostgreSQL's `commands/` and `tcop/utility.c`):
//! transaction control, settings, and table DDL.

pub mod comment;
pub mod copy;
pub mod createas;
pub mod dbcommands;
pub mod dependency;
pub mod explain;
pub mod extension;
pub mod indexcmds;
pub mod matview;
pub mod prepare;
pub mod schemacmds;
pub mod sequence;
pub mod tablecmds;
pub mod trigger;
pub mod truncate;
pub mod typecmds;
pub mod variable;
pub mod view;

pub use crate::executor::maintenance::Maintenance;
