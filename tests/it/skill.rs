//! Issue 12, item 2: the skill file `skills/grounded-citations/SKILL.md` is in the Agent
//! Skills format, and every `cite` command it teaches exists with the flags it names —
//! a skill that tells a model to run a flag `cite` refuses is worse than none.

use std::collections::BTreeMap;
use std::path::Path;

use crate::util::Sandbox;

fn skill() -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("skills/grounded-citations/SKILL.md");
    std::fs::read_to_string(p).expect("SKILL.md")
}

#[test]
fn issue12_skill_front_matter_has_a_name_and_a_description() {
    let text = skill();
    let rest = text.strip_prefix("---\n").expect("front matter first");
    let (front, body) = rest.split_once("\n---\n").expect("front matter closed");
    let fields: BTreeMap<&str, &str> = front.lines().filter_map(|l| l.split_once(": ")).collect();
    assert_eq!(
        fields.keys().copied().collect::<Vec<_>>(),
        ["description", "name"]
    );
    // Agent Skills: the name is the folder's, lower case and hyphens, at most 64
    // characters; the description says what and when, at most 1024.
    assert_eq!(fields["name"], "grounded-citations");
    let description = fields["description"];
    assert!(!description.is_empty() && description.chars().count() <= 1024);
    assert!(description.contains("Use for"), "{description}");
    for section in [
        "## With the MCP tools",
        "## With the hook",
        "## Fact-checking mode",
        "## Final check",
    ] {
        assert!(body.contains(section), "{section} missing");
    }
}

/// Every `cite SUBCOMMAND … --flag` in the skill's code: the subcommand exists and its
/// help names each flag.
#[test]
fn issue12_skill_commands_and_flags_exist() {
    let sb = Sandbox::new();
    let text = skill();
    let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
    // Inline code spans and code-block lines that start with `cite `.
    let spans = text
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .chain(text.lines().map(|l| l.trim().to_string()));
    for span in spans {
        let Some(command) = span.strip_prefix("cite ") else {
            continue;
        };
        let words: Vec<&str> = command.split_whitespace().collect();
        let Some(sub) = words
            .first()
            .filter(|w| w.chars().all(|c| c.is_ascii_lowercase()))
        else {
            continue;
        };
        let flags = words
            .iter()
            .filter(|w| w.starts_with("--"))
            .map(|w| w.trim_end_matches(['`', ',', ')', ']']).to_string());
        seen.entry(sub.to_string()).or_default().extend(flags);
    }
    assert!(seen.len() >= 10, "found only {seen:?}");
    for (sub, flags) in &seen {
        let out = sb.run(&[sub, "--help"]);
        assert_eq!(out.code, 0, "`cite {sub}` is not a command: {}", out.stderr);
        for flag in flags {
            let name = flag.split('=').next().unwrap();
            assert!(
                out.stdout.contains(name),
                "`cite {sub} --help` does not name {name}"
            );
        }
    }
}
