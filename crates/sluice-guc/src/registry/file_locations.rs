//! Where the configuration files and the data directory are (`File Locations`).

use super::flags::{DISALLOW_IN_AUTO_FILE, DISALLOW_IN_FILE, SUPERUSER_ONLY};
use super::Category::FileLocations;
use super::Context::{Postmaster, Superuser};
use super::{string, Setting};

/// The settings of this group, by name.
pub(super) static SETTINGS: &[Setting] = &[
    string("config_file", Postmaster, FileLocations, None)
        .flags(DISALLOW_IN_FILE | SUPERUSER_ONLY)
        .describe("Sets the server's main configuration file."),
    string("data_directory", Postmaster, FileLocations, None)
        .flags(DISALLOW_IN_AUTO_FILE | SUPERUSER_ONLY)
        .describe("Sets the server's data directory."),
    string("extension_destdir", Superuser, FileLocations, Some(""))
        .flags(SUPERUSER_ONLY)
        .describe("Path to prepend for extension loading.")
        .extra("This directory is prepended to paths when loading extensions (control and SQL files), and to the '$libdir' directive when loading modules that back functions. The location is made configurable to allow build-time testing of extensions that do not have been installed to their proper location yet."),
    string("external_pid_file", Postmaster, FileLocations, None)
        .flags(SUPERUSER_ONLY)
        .describe("Writes the postmaster PID to the specified file."),
    string("hba_file", Postmaster, FileLocations, None)
        .flags(SUPERUSER_ONLY)
        .describe("Sets the server's \"hba\" configuration file."),
    string("ident_file", Postmaster, FileLocations, None)
        .flags(SUPERUSER_ONLY)
        .describe("Sets the server's \"ident\" configuration file."),
];
