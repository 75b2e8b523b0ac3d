//! The layering of ARCHITECTURE.md, checked on the source: a module may name only the
//! modules below it (issue 10: `mcp` used the CLI's error type, `ledger::report` and
//! `render` used each other, `draft` and `interop` reached into `render`).

use std::path::{Path, PathBuf};

/// Each module (a folder or a file under src/) and the crate modules it must never name.
const NEVER: &[(&str, &[&str])] = &[
    (
        "store",
        &["ledger", "app", "cli", "mcp", "render", "draft", "interop"],
    ),
    ("ledger", &["app", "cli", "mcp", "render", "interop"]),
    (
        "draft",
        &["store", "ledger", "app", "cli", "mcp", "render", "interop"],
    ),
    (
        "evidence",
        &["store", "ledger", "app", "cli", "mcp", "render"],
    ),
    ("render", &["store", "app", "cli", "mcp", "interop"]),
    ("interop", &["app", "cli", "mcp", "render"]),
    (
        "tex",
        &["store", "ledger", "app", "cli", "mcp", "render", "draft"],
    ),
    ("app", &["cli", "mcp"]),
    // Below `app`, which turns their errors into its failure type.
    (
        "input",
        &["store", "ledger", "app", "cli", "mcp", "render", "draft"],
    ),
    ("rewrite", &["ledger", "app", "cli", "mcp", "render"]),
    ("mcp", &["cli"]),
];

fn sources(module: &str) -> Vec<PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let file = src.join(format!("{module}.rs"));
    if file.is_file() {
        return vec![file];
    }
    let mut out = Vec::new();
    let mut dirs = vec![src.join(module)];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("a module folder") {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out
}

#[test]
fn no_module_names_a_module_above_it() {
    let mut broken = Vec::new();
    for (module, never) in NEVER {
        let files = sources(module);
        assert!(!files.is_empty(), "no source for {module}");
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for (n, line) in text.lines().enumerate() {
                for above in *never {
                    let named = [format!("crate::{above}::"), format!("crate::{above};")];
                    if named.iter().any(|p| line.contains(p.as_str())) {
                        broken.push(format!("{}:{}: {line}", file.display(), n + 1));
                    }
                }
            }
        }
    }
    assert!(broken.is_empty(), "layering broken:\n{}", broken.join("\n"));
}

/// The two backends of the storage seam know nothing of each other (issue 10: the
/// shared rules live above them, in `store/`).
#[test]
fn the_backends_never_name_each_other() {
    let mut broken = Vec::new();
    for (backend, other) in [("store/redbfile", "pg"), ("store/pg", "redbfile")] {
        for file in sources(backend) {
            let text = std::fs::read_to_string(&file).unwrap();
            for (n, line) in text.lines().enumerate() {
                let named = [
                    format!("crate::store::{other}"),
                    format!("super::{other}"),
                    format!("store::{other}::"),
                ];
                if named.iter().any(|p| line.contains(p.as_str())) {
                    broken.push(format!("{}:{}: {line}", file.display(), n + 1));
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "a backend names the other:\n{}",
        broken.join("\n")
    );
}
