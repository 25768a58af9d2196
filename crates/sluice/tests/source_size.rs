//! Every Rust source file of the workspace stays under 800 lines, so each
//! one can be read as a whole: a file that grows past it is split along
//! the seams of what it does (a child module per part, as
//! `executor/plan/*.rs` are).
//!
//! Run: `cargo nextest run -p sluice --test source_size`.

use std::path::Path;

const LIMIT: usize = 800;

fn oversized(dir: &Path, out: &mut Vec<(String, usize)>) {
    for entry in std::fs::read_dir(dir).expect("source directory") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            oversized(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let lines = std::fs::read_to_string(&path).expect("source file").lines().count();
            if lines > LIMIT {
                out.push((path.display().to_string(), lines));
            }
        }
    }
}

#[test]
fn no_source_file_is_over_800_lines() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    oversized(&crates, &mut found);
    assert!(found.is_empty(), "files over {LIMIT} lines: {found:?}");
}
