//! Issue 24, item 4: the documentation a newcomer reads is true to the binary. Every
//! `cite SUBCOMMAND … --flag` that README.md, CONTRIBUTING.md and docs/*.md name exists
//! in clap's definition of the command; every relative link reaches a file and every
//! `#anchor` a heading; the README stays short; the man pages are the ones clap makes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The documents checked, as paths relative to the repository's root.
fn documents() -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|e| e.expect("docs/ entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| p.strip_prefix(root()).unwrap().to_path_buf())
        .collect();
    docs.sort();
    let mut all = vec![PathBuf::from("README.md"), PathBuf::from("CONTRIBUTING.md")];
    all.append(&mut docs);
    all
}

fn read(doc: &Path) -> String {
    std::fs::read_to_string(root().join(doc)).unwrap_or_else(|e| panic!("{}: {e}", doc.display()))
}

/// Lines of a document with their numbers.
type Lines = Vec<(usize, String)>;

/// A Markdown file cut where code starts and ends: what a reader sees as prose (inline
/// code spans kept apart) and what sits in fenced blocks.
#[derive(Default)]
pub(crate) struct Markdown {
    /// Prose lines with their line numbers, fences excluded.
    pub prose: Lines,
    /// Fenced blocks: the info string's first word, and the lines with their numbers.
    pub blocks: Vec<(String, Lines)>,
}

impl Markdown {
    pub fn parse(text: &str) -> Markdown {
        let mut md = Markdown::default();
        // The fence that opened the block we are in: its character and length.
        let mut open: Option<(char, usize)> = None;
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            let trimmed = line.trim_start();
            let fence = ['`', '~'].into_iter().find_map(|c| {
                let run = trimmed.chars().take_while(|&x| x == c).count();
                (run >= 3).then_some((c, run))
            });
            match (open, fence) {
                (None, Some((c, run))) => {
                    let info = trimmed[run..].split_whitespace().next().unwrap_or("");
                    md.blocks.push((info.to_string(), Vec::new()));
                    open = Some((c, run));
                }
                (Some((c, run)), Some((c2, run2)))
                    if c == c2 && run2 >= run && trimmed[run2..].trim().is_empty() =>
                {
                    open = None;
                }
                (Some(_), _) => md.blocks.last_mut().unwrap().1.push((n, line.to_string())),
                (None, None) => md.prose.push((n, line.to_string())),
            }
        }
        md
    }

    /// The inline code spans of the prose (CommonMark: a run of N backticks up to the
    /// next run of exactly N; a span may cross a line break), with the line it starts
    /// on, and the prose with every span blanked out.
    pub fn spans(&self) -> (Lines, Lines) {
        let mut spans = Vec::new();
        let mut blanked = Vec::new();
        // Spans stop at a paragraph's end: blank lines, and gaps where a block was.
        let mut paragraph: Lines = Vec::new();
        let mut flush = |paragraph: &mut Lines| {
            let (found, plain) = code_spans(paragraph);
            spans.extend(found);
            blanked.extend(plain);
            paragraph.clear();
        };
        for (n, line) in &self.prose {
            let follows = paragraph.last().is_some_and(|(m, _)| m + 1 == *n);
            if line.trim().is_empty() || !follows {
                flush(&mut paragraph);
            }
            paragraph.push((*n, line.clone()));
        }
        flush(&mut paragraph);
        (spans, blanked)
    }
}

/// The code spans of one paragraph, and its lines with the spans replaced by spaces.
fn code_spans(lines: &[(usize, String)]) -> (Lines, Lines) {
    let text: Vec<char> = lines
        .iter()
        .flat_map(|(_, l)| l.chars().chain(['\n']))
        .collect();
    let line_at = |pos: usize| {
        let breaks = text[..pos].iter().filter(|&&c| c == '\n').count();
        lines[breaks].0
    };
    let mut spans = Vec::new();
    let mut plain = text.clone();
    let run_at = |i: usize| text[i..].iter().take_while(|&&c| c == '`').count();
    let mut i = 0;
    while i < text.len() {
        if text[i] != '`' {
            i += 1;
            continue;
        }
        let run = run_at(i);
        let mut j = i + run;
        let close = loop {
            match text[j..].iter().position(|&c| c == '`') {
                None => break None,
                Some(k) => {
                    let at = j + k;
                    let r = run_at(at);
                    if r == run {
                        break Some(at);
                    }
                    j = at + r;
                }
            }
        };
        match close {
            Some(end) => {
                let inner: String = text[i + run..end].iter().collect();
                spans.push((line_at(i), inner.replace('\n', " ").trim().to_string()));
                for c in &mut plain[i..end + run] {
                    if *c != '\n' {
                        *c = ' ';
                    }
                }
                i = end + run;
            }
            None => i += run,
        }
    }
    let plain: String = plain.into_iter().collect();
    let blanked = lines
        .iter()
        .zip(plain.split('\n'))
        .map(|((n, _), l)| (*n, l.to_string()))
        .collect();
    (spans, blanked)
}

/// One use of a subcommand in a document: where, which, and the flags given to it.
#[derive(Debug)]
pub(crate) struct Named {
    pub line: usize,
    pub subcommand: String,
    pub flags: Vec<String>,
}

/// Every `cite SUBCOMMAND …` a document shows: inline code spans that start with `cite `
/// (or with a subcommand and a flag, as `add --snapshot FILE`, when `subcommands` are
/// given), and the commands in code blocks — each shell line's commands, the `$ cite`
/// lines of a transcript, and `"cite …"` strings in JSON.
pub(crate) fn commands_named(text: &str, subcommands: &[String]) -> Vec<Named> {
    let md = Markdown::parse(text);
    let mut found = Vec::new();
    let (spans, _) = md.spans();
    for (line, span) in spans {
        let words: Vec<&str> = span.split_whitespace().collect();
        match words.first() {
            Some(&"cite") => found.extend(named(line, &words[1..])),
            Some(w) if subcommands.iter().any(|s| s == w) => {
                let named = named(line, &words);
                found.extend(named.filter(|n| !n.flags.is_empty()));
            }
            _ => {}
        }
    }
    for (info, lines) in &md.blocks {
        for (line, text) in joined(lines) {
            let commands: Vec<String> = match info.as_str() {
                "json" | "jsonc" => quoted_strings(&text),
                "text" | "console" | "output" => text
                    .trim_start()
                    .strip_prefix("$ ")
                    .map(shell_commands)
                    .unwrap_or_default(),
                _ => shell_commands(&text),
            };
            for command in commands {
                let words: Vec<&str> = command.split_whitespace().collect();
                if words.first() == Some(&"cite") {
                    found.extend(named(line, &words[1..]));
                }
            }
        }
    }
    found
}

/// A block's lines with each `\`-continued line joined to the next, numbered by the
/// first.
fn joined(lines: &[(usize, String)]) -> Lines {
    let mut out: Lines = Vec::new();
    let mut continued = false;
    for (n, line) in lines {
        let (text, continues) = match line.trim_end().strip_suffix('\\') {
            Some(head) => (head, true),
            None => (line.as_str(), false),
        };
        match out.last_mut() {
            Some((_, last)) if continued => {
                last.push(' ');
                last.push_str(text);
            }
            _ => out.push((*n, text.to_string())),
        }
        continued = continues;
    }
    out
}

/// `words` after `cite`: a subcommand (lower-case letters; anything else, as in
/// `cite mcp: listening`, is output, not a command) and the flags that follow it.
fn named(line: usize, words: &[&str]) -> Option<Named> {
    let sub = words.first()?;
    if !sub.chars().all(|c| c.is_ascii_lowercase()) {
        return None;
    }
    let flags = words[1..]
        .iter()
        .filter_map(|w| {
            let w = w.trim_start_matches(['[', '(', '`']);
            let w = w
                .split(['=', '[', ']', ')', ',', '`', '…', '\'', '"', '|'])
                .next()?;
            let name = w.strip_prefix("--")?;
            name.starts_with(|c: char| c.is_ascii_lowercase())
                .then(|| w.to_string())
        })
        .collect();
    Some(Named {
        line,
        subcommand: sub.to_string(),
        flags,
    })
}

/// The commands of one shell line: quoted words made opaque, a comment dropped, split at
/// `|`, `&&`, `||`, `;` and `$(`; a command may follow variable assignments, or `--` (as
/// in `claude mcp add cite -- cite mcp`).
fn shell_commands(line: &str) -> Vec<String> {
    let mut plain = String::new();
    let mut quote: Option<char> = None;
    let mut prev = ' ';
    for c in line.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                plain.push_str("STRING");
            }
            None if c == '#' && prev.is_whitespace() => break,
            None => plain.push(c),
        }
        prev = c;
    }
    let plain = plain
        .replace("$(", ";")
        .replace("&&", ";")
        .replace("||", ";");
    plain
        .split([';', '|', ')'])
        .filter_map(|part| {
            let words: Vec<&str> = part.split_whitespace().collect();
            let start = match words.iter().position(|w| *w == "--") {
                Some(dash) if words.get(dash + 1) == Some(&"cite") => dash + 1,
                _ => words.iter().position(|w| !w.contains('='))?,
            };
            Some(words[start..].join(" "))
        })
        .collect()
}

/// The JSON strings on a line (no escapes inside: enough for commands in a config).
fn quoted_strings(line: &str) -> Vec<String> {
    line.split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The command line as clap defines it, built: global flags copied into every
/// subcommand, and `--help` added.
fn clap_command() -> clap::Command {
    let mut cmd = cite::cli::command();
    cmd.build();
    cmd
}

/// The names of the subcommands a user can run.
pub(crate) fn subcommands() -> Vec<String> {
    subcommand_names(&clap_command())
}

fn subcommand_names(cmd: &clap::Command) -> Vec<String> {
    cmd.get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
        .map(|s| s.get_name().to_string())
        .collect()
}

/// What is wrong with `named` in `doc` against clap's definition, if anything.
pub(crate) fn unknown_in(doc: &str, named: &[Named]) -> Vec<String> {
    let cmd = clap_command();
    let global: BTreeSet<String> = cmd
        .get_arguments()
        .filter(|a| a.is_global_set())
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .collect();
    let mut problems = Vec::new();
    for n in named {
        let Some(sub) = cmd.find_subcommand(&n.subcommand) else {
            problems.push(format!(
                "{doc}:{}: `cite {}` is not a subcommand",
                n.line, n.subcommand
            ));
            continue;
        };
        let known: BTreeSet<String> = sub
            .get_arguments()
            .flat_map(|a| {
                let mut longs: Vec<String> = a.get_long().into_iter().map(String::from).collect();
                longs.extend(a.get_all_aliases().into_iter().flatten().map(String::from));
                longs
            })
            .map(|l| format!("--{l}"))
            .chain(global.iter().cloned())
            .collect();
        for flag in &n.flags {
            if !known.contains(flag) {
                problems.push(format!(
                    "{doc}:{}: `cite {}` has no flag {flag}",
                    n.line, n.subcommand
                ));
            }
        }
    }
    problems
}

/// Issue 24.
#[test]
fn every_command_and_flag_the_docs_name_exists() {
    let subcommands = subcommand_names(&clap_command());
    let mut problems = Vec::new();
    let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for doc in documents() {
        let named = commands_named(&read(&doc), &subcommands);
        problems.extend(unknown_in(&doc.display().to_string(), &named));
        for n in named {
            seen.entry(n.subcommand).or_default().extend(n.flags);
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The collector finds what the docs show: every subcommand, and their flags.
    for sub in &subcommands {
        assert!(
            seen.contains_key(sub),
            "no doc names `cite {sub}`: {seen:?}"
        );
    }
    assert!(
        seen.values().map(BTreeSet::len).sum::<usize>() >= 40,
        "{seen:?}"
    );
    // The README's table of commands leaves none out.
    let (spans, _) = Markdown::parse(&read(Path::new("README.md"))).spans();
    let first_words: BTreeSet<&str> = spans
        .iter()
        .filter_map(|(_, s)| s.split_whitespace().next())
        .collect();
    for sub in &subcommands {
        assert!(
            first_words.contains(sub.as_str()),
            "README.md's command table lacks `{sub}`"
        );
    }
}

/// Issue 24: the collector sees commands where a reader does, and nothing else.
#[test]
fn commands_are_read_from_code_not_prose() {
    let subs = subcommand_names(&clap_command());
    let text = "\
Run `cite add URL --snapshot FILE` or `render --replace-in DRAFT`; \
`add` alone and `--via` alone name nothing, nor does cite add --bogus in prose.
A span may cross
a line: `cite verify
--strict`, and ``cite list `--json` `` too.

```sh
CITE_LEDGER=x.redb cite quote 1 --text \"a # b --bogus\" --from p.txt  # a --comment
claude mcp add cite -- cite mcp --http 8377 \\
    --wait 5
cite ingest - --via web
```

```text
$ cite export --format ris
cite registered the sources --bogus
```

```json
{\"command\": \"cite hook claude-code --via web\", \"args\": [\"--bogus\"]}
```
";
    let found: Vec<(usize, String, Vec<String>)> = commands_named(text, &subs)
        .into_iter()
        .map(|n| (n.line, n.subcommand, n.flags))
        .collect();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        found,
        [
            (1, "add".into(), s(&["--snapshot"])),
            (1, "render".into(), s(&["--replace-in"])),
            (3, "verify".into(), s(&["--strict"])),
            (4, "list".into(), s(&["--json"])),
            (7, "quote".into(), s(&["--text", "--from"])),
            (8, "mcp".into(), s(&["--http", "--wait"])),
            (10, "ingest".into(), s(&["--via"])),
            (14, "export".into(), s(&["--format"])),
            (19, "hook".into(), s(&["--via"])),
        ]
    );
    let bad = commands_named("`cite add --bogus` and `cite lsit`", &subs);
    assert_eq!(unknown_in("x.md", &bad).len(), 2, "{bad:?}");
}

/// Issue 24.
#[test]
fn readme_is_under_12_kb() {
    let size = read(Path::new("README.md")).len();
    assert!(
        size < 12_000,
        "README.md is {size} bytes: keep it to what a newcomer needs, the rest in docs/"
    );
}

/// GitHub's anchor for a heading: its text as rendered, lower-cased, spaces to `-`,
/// every character but letters, digits, `-` and `_` dropped.
fn anchor(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    // A link shows its label.
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find("](").map(|c| open + c) else {
            break;
        };
        let Some(end) = rest[close..].find(')').map(|e| close + e) else {
            break;
        };
        text.push_str(&rest[..open]);
        text.push_str(&rest[open + 1..close]);
        rest = &rest[end + 1..];
    }
    text.push_str(rest);
    text.chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c),
            _ => None,
        })
        .flat_map(char::to_lowercase)
        .collect()
}

/// The anchors of a Markdown file's headings, a repeated one numbered as GitHub does.
fn anchors(text: &str) -> BTreeSet<String> {
    let md = Markdown::parse(text);
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut all = BTreeSet::new();
    for (_, line) in &md.prose {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        let Some(title) = line[hashes..].strip_prefix(' ') else {
            continue;
        };
        if !(1..=6).contains(&hashes) {
            continue;
        }
        let base = anchor(title.trim().trim_end_matches('#').trim());
        let n = seen.entry(base.clone()).or_default();
        all.insert(if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        *n += 1;
    }
    all
}

/// The targets of the inline links `[text](target)` in a document's prose (code spans
/// and blocks are not links), with their lines.
fn links(text: &str) -> Lines {
    let (_, prose) = Markdown::parse(text).spans();
    let mut found = Vec::new();
    for (n, line) in prose {
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let mut depth = 0;
            let end = after
                .char_indices()
                .find(|&(_, c)| {
                    match c {
                        '(' => depth += 1,
                        ')' if depth == 0 => return true,
                        ')' => depth -= 1,
                        _ => {}
                    }
                    false
                })
                .map_or(after.len(), |(i, _)| i);
            let inside = &after[..end];
            // `<…>` may hold spaces; otherwise a title may follow the target.
            let target = match inside.strip_prefix('<').and_then(|t| t.split_once('>')) {
                Some((target, _)) => target,
                None => inside.split_whitespace().next().unwrap_or(""),
            };
            found.push((n, target.to_string()));
            rest = &after[end..];
        }
    }
    found
}

/// Issue 24.
#[test]
fn every_relative_link_and_anchor_resolves() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for doc in documents() {
        let text = read(&doc);
        let dir = doc.parent().unwrap();
        for (n, target) in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (path, fragment) = target.split_once('#').unwrap_or((&target, ""));
            let file = if path.is_empty() {
                doc.clone()
            } else {
                dir.join(path)
            };
            let at = format!("{}:{n}: ({target})", doc.display());
            if !root().join(&file).exists() {
                problems.push(format!("{at}: no such file {}", file.display()));
                continue;
            }
            if fragment.is_empty() {
                continue;
            }
            if file.extension().is_none_or(|x| x != "md") {
                problems.push(format!("{at}: an anchor into a file that is not Markdown"));
            } else if !anchors(&read(&file)).contains(fragment) {
                problems.push(format!(
                    "{at}: no heading #{fragment} in {}",
                    file.display()
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(checked >= 30, "only {checked} relative links found");
}

/// Issue 24.
#[test]
fn anchors_follow_githubs_rules() {
    assert_eq!(
        anchor("Agents over MCP: `cite mcp`"),
        "agents-over-mcp-cite-mcp"
    );
    assert_eq!(
        anchor("What it promises, and how"),
        "what-it-promises-and-how"
    );
    assert_eq!(anchor("From `sources.py`"), "from-sourcespy");
    assert_eq!(
        anchor("A [linked](x.md) snake_case-name"),
        "a-linked-snake_case-name"
    );
    let text = "# Top\n\n## Notes\n\n```sh\n# not a heading\n```\n\n## Notes\n";
    assert_eq!(
        anchors(text).into_iter().collect::<Vec<_>>(),
        ["notes", "notes-1", "top"]
    );
    let linked = "[a](b.md#c) `[x](y.md)` [d](<e f.md>)\n\n```\n[g](h.md)\n```\n";
    assert_eq!(
        links(linked),
        [(1, "b.md#c".to_string()), (1, "e f.md".to_string())]
    );
}

/// The man pages `clap_mangen` makes from the command definition: file name → bytes.
fn man_pages() -> BTreeMap<String, Vec<u8>> {
    let dir = tempfile::tempdir().expect("temp dir");
    clap_mangen::generate_to(cite::cli::command(), dir.path()).expect("generate man pages");
    committed_man_pages(dir.path())
}

fn committed_man_pages(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return BTreeMap::new();
    };
    entries
        .map(|e| e.expect("man page").path())
        .filter(|p| p.extension().is_some_and(|x| x == "1"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).expect("read man page"))
        })
        .collect()
}

/// docs/man/ holds what clap makes now; `CITE_WRITE_MAN=1` rewrites it instead.
#[test]
fn man_pages_match_the_command_definitions() {
    let want = man_pages();
    assert!(want.contains_key("cite.1") && want.contains_key("cite-verify.1"));
    let dir = root().join("docs/man");
    if std::env::var("CITE_WRITE_MAN").is_ok_and(|v| v == "1") {
        std::fs::create_dir_all(&dir).expect("docs/man");
        for stale in committed_man_pages(&dir).keys() {
            std::fs::remove_file(dir.join(stale)).expect("remove a stale man page");
        }
        for (name, bytes) in &want {
            std::fs::write(dir.join(name), bytes).expect("write man page");
        }
        return;
    }
    let have = committed_man_pages(&dir);
    let differ: Vec<&String> = want
        .keys()
        .chain(have.keys())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .filter(|name| want.get(*name) != have.get(*name))
        .collect();
    assert!(
        differ.is_empty(),
        "docs/man/ is stale ({differ:?}): rewrite it with \
         CITE_WRITE_MAN=1 cargo test --test tests docs::man"
    );
}
