//! The SQL layer's modules import one way only, in PostgreSQL's order:
//! utilities (`error`, `sink`, `activity`, `xact`) → `parser` → `catalog` →
//! `expr` → `optimizer` → `executor` → `commands` → `postmaster` → `tcop`.
//!
//! The check reads every source file's `crate::` paths (in `use` lines and
//! in code, grouped imports too) up to its test module, and fails for any
//! path into a module later in the order than the file's own top-level
//! module. The imports not yet moved are listed in [`NOT_YET_MOVED`]; the
//! list may only shrink: a listed import that is gone fails the test too,
//! so the list stays a true account of what is left.
//!
//! Run: `cargo nextest run -p sluice-sql --test module_order`.

use std::collections::BTreeSet;
use std::path::Path;

/// The order; a module may import only modules before it.
const ORDER: &[&str] = &[
    "error",
    "sink",
    "activity",
    "parser",
    "catalog",
    "expr",
    "xact",
    "optimizer",
    "executor",
    "commands",
    "postmaster",
    "tcop",
];

/// Imports that still run backwards: (file under `src/`, module imported).
const NOT_YET_MOVED: &[(&str, &str)] = &[];

/// The top-level modules a source text names through `crate::` paths.
fn imported_modules(source: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let code: String =
        source.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    let mut rest = code.as_str();
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            found.extend(group_heads(group));
        } else {
            found.insert(identifier(rest).to_string());
        }
    }
    found
}

/// The first identifier of every item in a `{...}` import group.
fn group_heads(group: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let (mut depth, mut at_item) = (1, true);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => at_item = true,
            c if depth == 1 && at_item && (c.is_alphanumeric() || c == '_') => {
                heads.push(identifier(&group[i..]).to_string());
                at_item = false;
            }
            _ => {}
        }
    }
    heads
}

fn identifier(text: &str) -> &str {
    let end = text.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(text.len());
    &text[..end]
}

/// Every `.rs` file under `dir`, as paths relative to `root`.
fn sources(root: &Path, dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).expect("source directory") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            sources(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/"));
        }
    }
}

#[test]
fn no_module_imports_one_later_in_the_order() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &root, &mut files);
    let rank = |m: &str| ORDER.iter().position(|o| *o == m);
    let mut backwards = BTreeSet::new();
    for file in &files {
        let own = file.split('/').next().unwrap().trim_end_matches(".rs");
        let Some(own_rank) = rank(own) else { continue };
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        // Test modules may reach anywhere (the crate's `testing` support).
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for module in imported_modules(code) {
            if rank(&module).is_some_and(|r| r > own_rank) {
                backwards.insert((file.clone(), module));
            }
        }
    }
    let listed: BTreeSet<(String, String)> =
        NOT_YET_MOVED.iter().map(|(f, m)| (f.to_string(), m.to_string())).collect();
    let new: Vec<_> = backwards.difference(&listed).collect();
    let gone: Vec<_> = listed.difference(&backwards).collect();
    assert!(new.is_empty(), "imports against the module order: {new:?}");
    assert!(gone.is_empty(), "moved already, remove from NOT_YET_MOVED: {gone:?}");
}

#[test]
fn every_top_level_module_has_a_place_in_the_order() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(root.join("lib.rs")).unwrap();
    for line in lib.lines() {
        let line = line.trim();
        let Some(name) = line.strip_prefix("pub mod ").or_else(|| line.strip_prefix("mod ")) else {
            continue;
        };
        let name = name.trim_end_matches(';');
        assert!(
            ORDER.contains(&name) || name == "testing",
            "module {name} is not in the order: add it to ORDER and docs/architecture.md"
        );
    }
}
