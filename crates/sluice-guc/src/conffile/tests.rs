//! postgresql.conf syntax, compared with PostgreSQL 15's reading of the same
//! files (the errors are what its log showed on `pg_reload_conf()`).

use super::*;

/// Parses `text` as the file `/conf/t.conf` (no includes).
fn parse(text: &str) -> Parsed {
    let mut out = Parsed::default();
    parse_text(text.as_bytes(), "/conf/t.conf", Path::new("/"), 0, &mut out);
    out
}

/// The (name, value, line) of each setting item.
fn settings(parsed: &Parsed) -> Vec<(String, String, u32)> {
    parsed.items.iter().filter_map(|i| Some((i.name.clone()?, i.value.clone()?, i.line))).collect()
}

#[test]
fn values_and_lines() {
    let text = "# comment\n\nwork_mem = 8MB\nshared_buffers 128MB  # trailing\n\
                search_path = 'a''b\\tc'\nlog_line_prefix = '%m [%p] '\n\
                checkpoint_completion_target=.9\nmy.custom = on\nport = -1\n\
                data_directory = '/var/lib/x'\nunix_socket_directories = '\\101\\102'\n\
                foo = 0x1F\nlast = 1";
    let parsed = parse(text);
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    let expected = [
        ("work_mem", "8MB", 3),
        ("shared_buffers", "128MB", 4),
        ("search_path", "a'b\tc", 5),
        ("log_line_prefix", "%m [%p] ", 6),
        ("checkpoint_completion_target", ".9", 7),
        ("my.custom", "on", 8),
        ("port", "-1", 9),
        ("data_directory", "/var/lib/x", 10),
        ("unix_socket_directories", "AB", 11),
    ];
    let got = settings(&parsed);
    for (i, (name, value, line)) in expected.iter().enumerate() {
        assert_eq!(got[i], (name.to_string(), value.to_string(), *line));
    }
    // An unquoted value is one token: "cp true" is an error.
    assert_eq!(parse("archive_command = cp true\n").errors.len(), 1);
    assert!(got.contains(&("foo".to_string(), "0x1F".to_string(), 12)));
    assert!(got.contains(&("last".to_string(), "1".to_string(), 13)));
}

#[test]
fn syntax_errors_match_postgres() {
    let text = "work_mem = 8MB\nfoo bar baz\nstatement_timeout '1s'\nlock_timeout = \n=5\nx.y.z = 1\n\
                search_path = 'a''b\\tc'\nenable_seqscan = 1e5\nwork_mem = '16MB' # again\nmy.custom = \"q\"\n\
                bad = 'unterminated\nlast = 1";
    let parsed = parse(text);
    let messages: Vec<String> = parsed.errors.iter().map(|e| e.to_string()).collect();
    let f = "syntax error in file \"/conf/t.conf\" line";
    assert_eq!(
        messages,
        [
            format!("{f} 2, near token \"baz\""),
            format!("{f} 4, near end of line"),
            format!("{f} 5, near token \"=\""),
            format!("{f} 6, near token \"x.y.z\""),
            format!("{f} 8, near token \"5\""),
            format!("{f} 10, near token \"\"\""),
            format!("{f} 11, near token \"'\""),
        ]
    );
    assert!(parsed.errors.iter().all(|e| e.sqlstate() == "42601"));
    let names: Vec<String> = settings(&parsed).into_iter().map(|(n, _, _)| n).collect();
    assert_eq!(names, ["work_mem", "statement_timeout", "search_path", "work_mem", "last"]);
    // pg_file_settings gets a row per error.
    let rows = parsed.items.iter().filter(|i| i.error.as_deref() == Some("syntax error")).count();
    assert_eq!(rows, 7);
}

#[test]
fn gives_up_after_first_error_when_only_looking() {
    let mut out = Parsed { first_error_only: true, ..Parsed::default() };
    parse_text(b"a = 1\nb c d\ne f g\nh = 2\n", "/conf/t.conf", Path::new("/"), 0, &mut out);
    assert_eq!(out.errors.len(), 1);
    assert_eq!(settings(&out).len(), 1);
}

#[test]
fn too_many_errors_abandon_the_file() {
    let text = "x y z\n".repeat(150);
    let parsed = parse(&text);
    assert_eq!(parsed.errors.len(), 101);
    assert_eq!(
        parsed.errors.last().unwrap().to_string(),
        "too many syntax errors found, abandoning file \"/conf/t.conf\""
    );
}

#[test]
fn includes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir(root.join("conf.d")).unwrap();
    fs::write(root.join("main.conf"), "a = 1\ninclude 'sub.conf'\ninclude_if_exists 'missing.conf'\ninclude_dir 'conf.d'\nz = 26\n").unwrap();
    fs::write(root.join("sub.conf"), "b = 2\n").unwrap();
    fs::write(root.join("conf.d/20-d.conf"), "d = 4\n").unwrap();
    fs::write(root.join("conf.d/10-c.conf"), "c = 3\n").unwrap();
    fs::write(root.join("conf.d/.hidden.conf"), "hidden = 1\n").unwrap();
    fs::write(root.join("conf.d/notes.txt"), "txt = 1\n").unwrap();
    let mut out = Parsed::default();
    let main = root.join("main.conf");
    assert!(parse_file(&main.to_string_lossy(), true, None, root, 0, &mut out));
    let names: Vec<String> = settings(&out).into_iter().map(|(n, _, _)| n).collect();
    assert_eq!(names, ["a", "b", "c", "d", "z"]);
    let b = out.items.iter().find(|i| i.name.as_deref() == Some("b")).unwrap();
    assert_eq!(&*b.file, root.join("sub.conf").to_str().unwrap());
}

#[test]
fn include_errors() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("self.conf"), "include 'self.conf'\n").unwrap();
    fs::write(root.join("missing.conf"), "include 'nowhere.conf'\n").unwrap();
    fs::write(root.join("empty.conf"), "include ''\n").unwrap();
    fs::write(root.join("loop_a.conf"), "include 'loop_b.conf'\n").unwrap();
    fs::write(root.join("loop_b.conf"), "include 'loop_a.conf'\n").unwrap();
    let first_error = |file: &str| {
        let mut out = Parsed::default();
        let path = root.join(file);
        assert!(!parse_file(&path.to_string_lossy(), true, None, root, 0, &mut out));
        (out.errors[0].sqlstate(), out.errors[0].to_string())
    };
    let r = root.display();
    assert_eq!(
        first_error("self.conf"),
        ("22023", format!("configuration file recursion in \"{r}/self.conf\""))
    );
    assert_eq!(
        first_error("missing.conf"),
        (
            "58P01",
            format!(
                "could not open configuration file \"{r}/nowhere.conf\": No such file or directory"
            )
        )
    );
    assert_eq!(
        first_error("empty.conf"),
        ("22023", "empty configuration file name: \"\"".to_string())
    );
    let (code, message) = first_error("loop_a.conf");
    assert_eq!(code, "54000");
    assert!(message.ends_with("maximum nesting depth exceeded"), "{message}");
}
