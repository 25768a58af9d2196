//! Backends without a client (PostgreSQL's `postmaster/`): background
//! workers, which run utility commands and statements through the same
//! `BackendContext` a client session implements. Autovacuum's launcher and
//! workers are to be built on them.

pub mod bgworker;
