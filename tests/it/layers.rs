//! The layering of ARCHITECTURE.md. Between crates the compiler keeps it: a crate can
//! only name the crates it depends on, and `cargo metadata` shows the edges, which the
//! first test pins. Inside a crate, the module rules are read off the source here: every
//! path a file names (`crate::a::b`, `use crate::{a, b::c}`, `super::x`, `self::y`) is
//! resolved to a module, and no module may name one the rules forbid, nor may sibling
//! modules name each other in a circle (issue 24: `ledger/kept.rs` ↔ `ledger/lead.rs`,
//! `store/replay.rs` ↔ `store/backend.rs` through `redbfile`; issue 10: `mcp` used the
//! CLI's error type, `render` and `interop` used each other).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The workspace crates: name and source folder.
const CRATES: &[(&str, &str)] = &[
    ("cite", "src"),
    ("cite-ledger", "crates/ledger/src"),
    ("cite-core", "crates/core/src"),
    ("cite-store", "crates/store/src"),
];

/// The normal (not dev) dependencies each workspace crate has on the others.
const CRATE_EDGES: &[(&str, &[&str])] = &[
    ("cite", &["cite-core", "cite-ledger"]),
    ("cite-ledger", &["cite-core", "cite-store"]),
    ("cite-core", &[]),
    ("cite-store", &[]),
];

#[test]
fn the_crates_depend_only_downwards() {
    let out = std::process::Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root())
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ours: BTreeSet<&str> = CRATES.iter().map(|(n, _)| *n).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for p in meta["packages"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap();
        if !ours.contains(name) {
            continue;
        }
        let deps = p["dependencies"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["kind"].is_null())
            .filter_map(|d| d["name"].as_str())
            .filter(|d| ours.contains(d))
            .map(str::to_string)
            .collect();
        edges.insert(name.to_string(), deps);
    }
    let expected: BTreeMap<String, BTreeSet<String>> = CRATE_EDGES
        .iter()
        .map(|(n, deps)| (n.to_string(), deps.iter().map(|d| d.to_string()).collect()))
        .collect();
    assert_eq!(edges, expected);
}

/// A module path inside a crate (`["draft", "verify"]`); the crate root is `[]`.
type Module = Vec<String>;

/// Every `.rs` file of a crate, with the module it is.
fn modules(src: &Path) -> Vec<(PathBuf, Module)> {
    let mut out = Vec::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("a source folder") {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(src).unwrap().with_extension("");
                let mut m: Module = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                if matches!(m.last().map(String::as_str), Some("mod" | "lib" | "main")) {
                    m.pop();
                }
                out.push((path, m));
            }
        }
    }
    out
}

/// The paths a file names that start at `crate::`, `super::` or `self::`, each as the
/// module path it spells from the crate root (`use crate::{a, b::c}` gives `a` and
/// `b::c`). Comments are skipped; paths inside string literals are rare enough here.
fn named_paths(text: &str, module: &Module, is_dir_module: bool) -> Vec<Module> {
    let mut out = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        for (at, _) in code.match_indices("crate::") {
            // `cite_core::…` and the like are other crates; `$crate` is a macro's.
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
                continue;
            }
            out.extend(paths_after(&code[at + "crate::".len()..], Vec::new()));
        }
        for (at, _) in code.match_indices("super::") {
            if code[..at].ends_with("super::") {
                continue;
            }
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let mut rest = &code[at..];
            // A file module's parent is its folder's module; a `mod.rs` is that module.
            let mut base = module.clone();
            if !is_dir_module {
                base.pop();
            }
            let mut first = true;
            while let Some(r) = rest.strip_prefix("super::") {
                if !first || is_dir_module {
                    base.pop();
                }
                first = false;
                rest = r;
            }
            if is_dir_module {
                // `super` of a folder module is the folder above it.
            }
            out.extend(paths_after(rest, base));
        }
    }
    out
}

/// The module paths `text` (what follows `crate::`) names, from `base`: one path, or
/// each item of a `{…}` group, nested groups included.
fn paths_after(text: &str, base: Module) -> Vec<Module> {
    if let Some(group) = text.strip_prefix('{') {
        return top_level_items(group)
            .into_iter()
            .flat_map(|item| paths_after(item.trim(), base.clone()))
            .collect();
    }
    let mut path = base;
    let mut rest = text;
    loop {
        let len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let ident = &rest[..len];
        if ident.is_empty() || ident == "self" {
            return vec![path];
        }
        path.push(ident.to_string());
        match rest[len..].strip_prefix("::") {
            Some(more) if more.starts_with('{') => return paths_after(more, path),
            Some(more) => rest = more,
            None => return vec![path],
        }
    }
}

/// The comma-separated items of a `{…}` group whose `{` is just before `group`, up to
/// its matching `}`: nested groups stay whole.
fn top_level_items(group: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&group[start..i]);
                return items;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&group[start..]);
    items
}

/// The module of `crate_modules` a named path falls in: its longest prefix that is one.
fn resolve(path: &Module, crate_modules: &BTreeSet<Module>) -> Module {
    (0..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|p| crate_modules.contains(p))
        .unwrap_or_default()
}

/// For each crate: (file, its module, the modules it names).
type Graph = Vec<(PathBuf, Module, BTreeSet<Module>)>;

fn graph(src: &str) -> Graph {
    let src = root().join(src);
    let files = modules(&src);
    let all: BTreeSet<Module> = files.iter().map(|(_, m)| m.clone()).collect();
    files
        .into_iter()
        .map(|(path, m)| {
            let text = std::fs::read_to_string(&path).unwrap();
            let name = path.file_name().unwrap().to_string_lossy();
            let dir_module = matches!(name.as_ref(), "mod.rs" | "lib.rs" | "main.rs");
            let named = named_paths(&text, &m, dir_module)
                .iter()
                .map(|p| resolve(p, &all))
                .filter(|p| !p.is_empty() && *p != m && !m.starts_with(p))
                .collect();
            (path, m, named)
        })
        .collect()
}

/// Each crate's top-level modules (or files), and the ones of the same crate they must
/// never name.
const NEVER: &[(&str, &str, &[&str])] = &[
    // The front ends: MCP words its failures with the application's type, not the CLI's.
    ("cite", "mcp", &["cli"]),
    ("cite", "hook", &["cli", "mcp"]),
    // Operations never know the application layer above them.
    ("cite-ledger", "audit", &["app", "rewrite", "input"]),
    ("cite-ledger", "copy", &["app", "rewrite", "input"]),
    ("cite-ledger", "import", &["app", "rewrite"]),
    ("cite-ledger", "ingest", &["app", "rewrite"]),
    ("cite-ledger", "kept", &["app", "rewrite", "input"]),
    ("cite-ledger", "lead", &["app", "rewrite", "input", "kept"]),
    ("cite-ledger", "view", &["app", "rewrite", "input"]),
    (
        "cite-ledger",
        "input",
        &["app", "rewrite", "audit", "import", "view"],
    ),
    (
        "cite-ledger",
        "rewrite",
        &["app", "audit", "import", "view", "kept"],
    ),
    // Drafts and quotes know nothing of how sources are shown or exported.
    ("cite-core", "draft", &["render", "interop", "model"]),
    (
        "cite-core",
        "evidence",
        &["draft", "render", "interop", "model", "url"],
    ),
    (
        "cite-core",
        "url",
        &["draft", "render", "interop", "model", "evidence"],
    ),
    // The support check reads text against text: no draft rules, no rendering.
    (
        "cite-core",
        "support",
        &["draft", "render", "interop", "model", "url"],
    ),
    ("cite-core", "model", &["draft", "render", "interop"]),
    ("cite-core", "render", &["interop"]),
    ("cite-core", "interop", &["render", "draft"]),
    (
        "cite-core",
        "tex",
        &["draft", "evidence", "render", "interop", "model", "url"],
    ),
    (
        "cite-core",
        "text",
        &["draft", "evidence", "render", "interop", "model", "url"],
    ),
    // The log's rules are written once, below the backends; the backends never name each
    // other (the root opens them, the replay audits into a scratch redb file).
    ("cite-store", "redbfile", &["pg", "replay"]),
    ("cite-store", "pg", &["redbfile", "replay"]),
    (
        "cite-store",
        "backend",
        &["redbfile", "pg", "replay", "materialize"],
    ),
    (
        "cite-store",
        "event",
        &["redbfile", "pg", "replay", "backend", "tables"],
    ),
    ("cite-store", "materialize", &["redbfile", "pg", "replay"]),
    ("cite-store", "tally", &["redbfile", "pg", "replay"]),
    ("cite-store", "tables", &["redbfile", "pg", "replay"]),
    (
        "cite-store",
        "finding",
        &["redbfile", "pg", "replay", "backend"],
    ),
];

#[test]
fn no_module_names_one_its_layer_must_not() {
    let mut broken = Vec::new();
    for (krate, src) in CRATES {
        for (path, module, named) in graph(src) {
            let Some(top) = module.first() else { continue };
            for (_, _, never) in NEVER.iter().filter(|(c, m, _)| c == krate && m == top) {
                for target in &named {
                    if never.contains(&target[0].as_str()) {
                        broken.push(format!(
                            "{krate}: {} names {}",
                            path.strip_prefix(root()).unwrap().display(),
                            target.join("::")
                        ));
                    }
                }
            }
        }
        // Every module the rules name exists: a rule about a module that moved away
        // would hold forever.
        let tops: BTreeSet<String> = graph(src)
            .into_iter()
            .filter_map(|(_, m, _)| m.first().cloned())
            .collect();
        for (_, m, never) in NEVER.iter().filter(|(c, _, _)| c == krate) {
            assert!(tops.contains(*m), "{krate} has no module {m}");
            for n in *never {
                assert!(tops.contains(*n), "{krate} has no module {n}");
            }
        }
    }
    assert!(broken.is_empty(), "layering broken:\n{}", broken.join("\n"));
}

#[test]
fn sibling_modules_never_name_each_other_in_a_circle() {
    let mut circles = Vec::new();
    for (krate, src) in CRATES {
        // Edges between siblings: for each folder module, which child names which.
        let mut edges: BTreeMap<Module, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
        for (_, module, named) in graph(src) {
            for target in named {
                // The deepest common folder of the two, and the child of it each is in.
                let common = module
                    .iter()
                    .zip(&target)
                    .take_while(|(a, b)| a == b)
                    .count();
                if common >= module.len() || common >= target.len() {
                    continue;
                }
                let parent = module[..common].to_vec();
                edges
                    .entry(parent)
                    .or_default()
                    .entry(module[common].clone())
                    .or_default()
                    .insert(target[common].clone());
            }
        }
        for (parent, siblings) in &edges {
            if let Some(circle) = find_circle(siblings) {
                circles.push(format!(
                    "{krate}: in {}: {}",
                    if parent.is_empty() {
                        "the crate root".to_string()
                    } else {
                        parent.join("::")
                    },
                    circle.join(" → ")
                ));
            }
        }
    }
    assert!(
        circles.is_empty(),
        "modules in a circle:\n{}",
        circles.join("\n")
    );
}

/// A circle in a directed graph, as the nodes along it (the first repeated at the end).
fn find_circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|n| n == node) {
            let mut circle = stack[at..].to_vec();
            circle.push(node.to_string());
            return Some(circle);
        }
        if done.contains(node) {
            return None;
        }
        stack.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, edges, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|n| visit(n, edges, &mut Vec::new(), &mut done))
}

/// The reader of paths finds what the old grep missed.
#[test]
fn the_path_reader_sees_groups_super_and_nested_paths() {
    let m = |s: &str| -> Module { s.split("::").map(str::to_string).collect() };
    let text = "use crate::{store, draft::verify::{Check, x}};\nuse super::lead::{self, Role};\nlet y = crate::a::b(1); // crate::commented\n";
    let got = named_paths(text, &m("ledger::kept"), false);
    assert!(got.contains(&m("store")), "{got:?}");
    assert!(got.contains(&m("draft::verify::Check")), "{got:?}");
    assert!(got.contains(&m("ledger::lead")), "{got:?}");
    assert!(got.contains(&m("a::b")), "{got:?}");
    assert!(
        !got.iter().any(|p| p.contains(&"commented".to_string())),
        "{got:?}"
    );
    let from_mod = named_paths("use super::x;", &m("a::b"), true);
    assert_eq!(from_mod, [m("a::x")]);
}

/// Issue 24: every `unsafe` block says why it is sound, in a `// SAFETY:` comment on the
/// lines just above it (or the comment that covers a group of calls). The few there are
/// call libc for what no safe crate in the tree offers (byte-range OFD locks).
#[test]
fn every_unsafe_block_has_a_safety_comment() {
    let mut missing = Vec::new();
    let mut dirs = vec![
        root().join("src"),
        root().join("crates"),
        root().join("tests"),
    ];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if !path.ends_with("node_modules") {
                    dirs.push(path);
                }
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            for (i, line) in lines.iter().enumerate() {
                let code = without_strings(line.split("//").next().unwrap_or(""));
                if !code.contains("unsafe {") && !code.contains("unsafe fn") {
                    continue;
                }
                let above = &lines[i.saturating_sub(4)..=i];
                if !above.iter().any(|l| l.contains("SAFETY:")) {
                    missing.push(format!(
                        "{}:{}: {}",
                        path.strip_prefix(root()).unwrap().display(),
                        i + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "unsafe without a SAFETY comment:\n{}",
        missing.join("\n")
    );
}

/// `line` with the text of its string literals dropped (`"…"` kept as `""`).
fn without_strings(line: &str) -> String {
    let mut out = String::new();
    let mut in_string = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (in_string, c) {
            (true, '\\') => {
                chars.next();
            }
            (_, '"') => {
                in_string = !in_string;
                out.push('"');
            }
            (true, _) => {}
            (false, c) => out.push(c),
        }
    }
    out
}
