//! Access methods: how rows are laid out in pages and found again.
//!
//! `common` holds the tuple format shared by every table access method (PostgreSQL's
//! `access/common`); `heap` the heap access method (PostgreSQL's `access/heap`).

pub mod common;
