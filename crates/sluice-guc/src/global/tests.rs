//! Server start, reload and ALTER SYSTEM against files in a temporary data
//! directory; messages as PostgreSQL 15 logs them.

use std::fs;
use std::sync::Arc;

use super::*;
use crate::error::FileOutcome;
use crate::session::SessionSettings;

/// A data directory with `postgresql.conf` holding `conf`.
struct Server {
    /// Keeps the directory alive.
    dir: tempfile::TempDir,
}

impl Server {
    fn new(conf: &str) -> Server {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("postgresql.conf"), conf).unwrap();
        Server { dir }
    }

    fn options(&self, command_line: &[&str]) -> ConfigOptions {
        ConfigOptions {
            identity: ServerIdentity { server_version: "15.0".into(), server_version_num: 150000 },
            data_directory: self.dir.path().to_path_buf(),
            config_file: None,
            defaults: vec![("port".into(), "5433".into())],
            command_line: command_line.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn load(&self, command_line: &[&str]) -> Result<GlobalConfig> {
        GlobalConfig::load(self.options(command_line))
    }

    fn write(&self, conf: &str) {
        fs::write(self.conf(), conf).unwrap();
    }

    fn conf(&self) -> String {
        self.dir.path().join("postgresql.conf").to_string_lossy().into_owned()
    }

    fn auto_conf(&self) -> String {
        fs::read_to_string(self.dir.path().join("postgresql.auto.conf")).unwrap()
    }
}

/// SHOW through a fresh session.
fn show(config: &Arc<GlobalConfig>, name: &str) -> String {
    SessionSettings::new(Arc::clone(config), "postgres", true).show(name).unwrap().1
}

/// The pg_settings row of `name` in a fresh session.
fn row(config: &Arc<GlobalConfig>, name: &str) -> crate::SettingRow {
    let session = SessionSettings::new(Arc::clone(config), "postgres", true);
    session.pg_settings().into_iter().find(|r| r.name == name).unwrap()
}

/// The messages of a reload's errors (the summary last).
fn messages(report: &ReloadReport) -> Vec<String> {
    match &report.error {
        Some(e @ GucError::ContainsErrors { errors, .. }) => {
            errors.iter().map(|e| e.to_string()).chain([e.to_string()]).collect()
        }
        Some(other) => vec![other.to_string()],
        None => vec![],
    }
}

#[test]
fn startup_sources_and_precedence() {
    let server = Server::new("work_mem = 8MB\nshared_buffers = 256MB\nport = 5500\n");
    let config = Arc::new(server.load(&["work-mem=32MB", "statement_timeout=5s"]).unwrap());
    assert_eq!(show(&config, "work_mem"), "32MB", "command line beats the file");
    assert_eq!(show(&config, "shared_buffers"), "256MB");
    assert_eq!(show(&config, "wal_buffers"), "8MB", "1/32 of shared_buffers");
    assert_eq!(show(&config, "port"), "5500", "the file beats the server's defaults");
    assert_eq!(row(&config, "work_mem").source, "command line");
    assert_eq!(row(&config, "wal_buffers").source, "default");
    let data_dir = row(&config, "data_directory");
    assert_eq!(
        (data_dir.source, data_dir.setting.as_str()),
        ("override", server.dir.path().to_str().unwrap())
    );
    let sb = row(&config, "shared_buffers");
    assert_eq!((sb.sourcefile.as_deref(), sb.sourceline), (Some(server.conf().as_str()), Some(2)));
    assert_eq!(config.get_bytes("shared_buffers"), Some(256 << 20));
    assert_eq!(config.get_duration_ms("statement_timeout"), Some(5000));

    let defaults_only = Server::new("");
    let config = Arc::new(defaults_only.load(&[]).unwrap());
    assert_eq!(
        (show(&config, "port"), row(&config, "port").source),
        ("5433".to_string(), "default")
    );
}

#[test]
fn startup_errors_are_fatal() {
    let server = Server::new("work_mem = 8MB\nbogus_setting = 1\n");
    let e = server.load(&[]).unwrap_err();
    assert_eq!(e.to_string(), format!("configuration file \"{}\" contains errors", server.conf()));
    assert_eq!(e.sqlstate(), "F0000");
    let GucError::ContainsErrors { errors, outcome: FileOutcome::Fatal, .. } = e else { panic!() };
    assert_eq!(
        errors[0].to_string(),
        format!(
            "unrecognized configuration parameter \"bogus_setting\" in file \"{}\" line 2",
            server.conf()
        )
    );
    let server = Server::new("ssl = on\n");
    let GucError::ContainsErrors { errors, .. } = server.load(&[]).unwrap_err() else { panic!() };
    assert_eq!(errors[0].to_string(), "SSL is not supported by this build");
    let e = Server::new("").load(&["work_mem"]).unwrap_err();
    assert_eq!(
        (e.sqlstate(), e.to_string()),
        ("42601", "-c work_mem requires a value".to_string())
    );
    let e = Server::new("").load(&["shared_buffers=1kB"]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "0 8kB is outside the valid range for parameter \"shared_buffers\" (16 .. 1073741823)"
    );
}

#[test]
fn reload_applies_sighup_settings_and_defers_postmaster_ones() {
    let server = Server::new(
        "shared_buffers = 128MB\ncheckpoint_timeout = 5min\nwork_mem = 8MB\nmax_connections = 50\n",
    );
    let config = Arc::new(server.load(&[]).unwrap());
    server.write("shared_buffers = 256MB\ncheckpoint_timeout = 10min\n# work_mem removed\n");
    let report = config.reload();
    assert_eq!(report.changed, [("checkpoint_timeout".to_string(), "10min".to_string())]);
    assert_eq!(report.reset_to_default, ["work_mem"]);
    assert_eq!(report.pending_restart, ["max_connections", "shared_buffers"]);
    let conf = server.conf();
    assert_eq!(
        messages(&report),
        [
            "parameter \"max_connections\" cannot be changed without restarting the server"
                .to_string(),
            "parameter \"shared_buffers\" cannot be changed without restarting the server"
                .to_string(),
            format!(
                "configuration file \"{conf}\" contains errors; unaffected changes were applied"
            ),
        ]
    );
    assert_eq!(show(&config, "checkpoint_timeout"), "10min");
    assert_eq!(show(&config, "shared_buffers"), "128MB");
    assert_eq!(show(&config, "work_mem"), "4MB");
    let sb = row(&config, "shared_buffers");
    assert!(sb.pending_restart);
    assert_eq!(sb.sourceline, Some(1), "the line of the value in force");
    // Putting the old value back clears the pending restart.
    server.write("shared_buffers = 128MB\ncheckpoint_timeout = 10min\nmax_connections = 50\n");
    let report = config.reload();
    assert!(report.error.is_none(), "{:?}", messages(&report));
    assert!(report.pending_restart.is_empty());
    assert!(!row(&config, "shared_buffers").pending_restart);
}

#[test]
fn reload_with_unknown_name_applies_nothing() {
    let server = Server::new("work_mem = 8MB\n");
    let config = Arc::new(server.load(&[]).unwrap());
    server.write("work_mem = 16MB\nno_such = 1\n");
    let report = config.reload();
    assert_eq!(show(&config, "work_mem"), "8MB");
    assert_eq!(
        messages(&report).last().unwrap(),
        &format!(
            "configuration file \"{}\" contains errors; no changes were applied",
            server.conf()
        )
    );
    server.write("work_mem = 16MB\nthis is not valid\n");
    let report = config.reload();
    assert_eq!(show(&config, "work_mem"), "8MB");
    assert_eq!(
        messages(&report)[0],
        format!("syntax error in file \"{}\" line 2, near token \"not\"", server.conf())
    );
}

#[test]
fn command_line_beats_alter_system_after_reload() {
    // Seed 002: "-c settings override ALTER SYSTEM even after pg_reload_conf()".
    let server = Server::new("");
    let config =
        Arc::new(server.load(&["autovacuum_naptime=10s", "shared_buffers=256MB"]).unwrap());
    config.alter_system("autovacuum_naptime", Some("30s")).unwrap();
    config.alter_system("work_mem", Some("16MB")).unwrap();
    let report = config.reload();
    assert_eq!(show(&config, "autovacuum_naptime"), "10s");
    assert_eq!(show(&config, "work_mem"), "16MB");
    assert_eq!(row(&config, "autovacuum_naptime").source, "command line");
    assert!(report.error.is_none());
    // As in PostgreSQL, a postmaster setting given on the command line and
    // differently in a file is reported as pending a restart.
    config.alter_system("shared_buffers", Some("128MB")).unwrap();
    let report = config.reload();
    assert_eq!(report.pending_restart, ["shared_buffers"]);
    let items = config.file_settings();
    let sb = items.iter().find(|i| i.name.as_deref() == Some("shared_buffers")).unwrap();
    assert_eq!((sb.applied, sb.error.as_deref()), (false, Some("setting could not be applied")));
    let wm = items.iter().find(|i| i.name.as_deref() == Some("work_mem")).unwrap();
    assert!(wm.applied);
}

#[test]
fn alter_system_writes_postgres_format() {
    let server = Server::new("");
    let config = server.load(&[]).unwrap();
    config.alter_system("work_mem", Some("8MB")).unwrap();
    config.alter_system("search_path", Some("a, \"b c\"")).unwrap();
    config.alter_system("log_line_prefix", Some("it's \\x")).unwrap();
    config.alter_system("timezone", Some("UTC")).unwrap();
    config.alter_system("work_mem", Some("8192")).unwrap();
    // Byte for byte what PostgreSQL 15 wrote for the same statements.
    assert_eq!(
        server.auto_conf(),
        "# Do not edit this file manually!\n# It will be overwritten by the ALTER SYSTEM command.\n\
         search_path = 'a, \"b c\"'\nlog_line_prefix = 'it''s \\\\x'\ntimezone = 'UTC'\nwork_mem = '8192'\n"
    );
    assert!(config.reload().error.is_none());
    assert_eq!(config.get_str("log_line_prefix").as_ref(), "it's \\x");
    assert_eq!(config.get_int("work_mem"), 8192);
    config.alter_system("work_mem", None).unwrap();
    assert!(!server.auto_conf().contains("work_mem"));
    assert!(config.reload().error.is_none());
    assert_eq!(config.get_int("work_mem"), 4096);
    config.alter_system_reset_all().unwrap();
    assert_eq!(server.auto_conf(), HEADER_FOR_TESTS);
    assert!(!server.dir.path().join("postgresql.auto.conf.tmp").exists());
}

/// The header of an empty `postgresql.auto.conf`.
const HEADER_FOR_TESTS: &str =
    "# Do not edit this file manually!\n# It will be overwritten by the ALTER SYSTEM command.\n";

#[test]
fn alter_system_errors_match_postgres() {
    let server = Server::new("");
    let config = server.load(&[]).unwrap();
    let cases: &[(&str, Option<&str>, &str, &str)] = &[
        ("nosuch", Some("1"), "42704", "unrecognized configuration parameter \"nosuch\""),
        ("foo.bar", Some("x"), "42704", "unrecognized configuration parameter \"foo.bar\""),
        ("server_version", Some("1"), "55P02", "parameter \"server_version\" cannot be changed"),
        (
            "transaction_isolation",
            Some("serializable"),
            "55P02",
            "parameter \"transaction_isolation\" cannot be changed",
        ),
        ("data_directory", Some("/tmp"), "55P02", "parameter \"data_directory\" cannot be changed"),
        ("config_file", Some("/tmp"), "55P02", "parameter \"config_file\" cannot be changed"),
        ("work_mem", Some("abc"), "22023", "invalid value for parameter \"work_mem\": \"abc\""),
        (
            "enable_seqscan",
            Some("maybe"),
            "22023",
            "parameter \"enable_seqscan\" requires a Boolean value",
        ),
        (
            "application_name",
            Some("a\nb"),
            "22023",
            "parameter value for ALTER SYSTEM must not contain a newline",
        ),
    ];
    for &(name, value, code, message) in cases {
        let e = config.alter_system(name, value).unwrap_err();
        assert_eq!(
            (e.sqlstate(), e.to_string().as_str()),
            (code, message),
            "ALTER SYSTEM SET {name}"
        );
    }
    assert!(!server.dir.path().join("postgresql.auto.conf").exists());
}

#[test]
fn custom_settings_in_files() {
    let server = Server::new("myapp.mode = 'fast'\n");
    let config = Arc::new(server.load(&[]).unwrap());
    let mut session = SessionSettings::new(Arc::clone(&config), "postgres", true);
    assert_eq!(session.show("myapp.mode").unwrap().1, "fast");
    server.write("myapp.mode = 'slow'\nother.thing = 1\n");
    assert!(config.reload().error.is_none());
    session.sync();
    assert_eq!(session.show("myapp.mode").unwrap().1, "slow");
    assert_eq!(session.show("other.thing").unwrap().1, "1");
    server.write("");
    let report = config.reload();
    assert!(report.reset_to_default.contains(&"myapp.mode".to_string()));
    session.sync();
    assert_eq!(session.show("myapp.mode").unwrap().1, "");
}

#[test]
fn concurrent_readers_during_reload() {
    let server = Server::new("work_mem = 8MB\n");
    let config = Arc::new(server.load(&[]).unwrap());
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let config = Arc::clone(&config);
            std::thread::spawn(move || {
                for _ in 0..200 {
                    let mut s = SessionSettings::new(Arc::clone(&config), "postgres", true);
                    s.sync();
                    let v = config.get_int("work_mem");
                    assert!(v == 8192 || v == 16384);
                }
            })
        })
        .collect();
    for i in 0..20 {
        server.write(if i % 2 == 0 { "work_mem = 16MB\n" } else { "work_mem = 8MB\n" });
        assert!(config.reload().error.is_none());
    }
    readers.into_iter().for_each(|r| r.join().unwrap());
}

#[test]
fn pg_settings_row_from_file_matches_postgres() {
    // PostgreSQL 15's row for the initdb'd `shared_buffers = 128MB` on line 127.
    let conf = format!("{}shared_buffers = 128MB\t\t\t# min 128kB\n", "#\n".repeat(126));
    let server = Server::new(&conf);
    let config = Arc::new(server.load(&[]).unwrap());
    let r = row(&config, "shared_buffers");
    let conf_path = server.conf();
    let got = (
        r.name,
        r.setting.as_str(),
        r.unit,
        r.category,
        r.short_desc,
        r.extra_desc,
        r.context,
        r.vartype,
        r.source,
        (r.min_val.as_deref(), r.max_val.as_deref(), r.enumvals.is_none()),
        (r.boot_val.as_deref(), r.reset_val.as_deref()),
        (r.sourcefile.as_deref(), r.sourceline, r.pending_restart),
    );
    let expected = (
        "shared_buffers",
        "16384",
        Some("8kB"),
        "Resource Usage / Memory",
        "Sets the number of shared memory buffers used by the server.",
        None,
        "postmaster",
        "integer",
        "configuration file",
        (Some("16"), Some("1073741823"), true),
        (Some("16384"), Some("16384")),
        (Some(conf_path.as_str()), Some(127), false),
    );
    assert_eq!(got, expected);
}
