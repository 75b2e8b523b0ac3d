//! Issue 12, item 2: the skill file `skills/grounded-citations/SKILL.md` is in the Agent
//! Skills format, and every `cite` command it teaches exists with the flags it names —
//! a skill that tells a model to run a flag `cite` refuses is worse than none.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::docs;

fn skill() -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("skills/grounded-citations/SKILL.md");
    std::fs::read_to_string(p).expect("SKILL.md")
}

/// Issue 12.
#[test]
fn skill_front_matter_has_a_name_and_a_description() {
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

/// Issue 12: every `cite SUBCOMMAND … --flag` in the skill's code: the subcommand exists
/// and clap's definition of it has each flag (read as the docs are:
/// `docs::commands_named`).
#[test]
fn skill_commands_and_flags_exist() {
    let named = docs::commands_named(&skill(), &docs::subcommands());
    let seen: BTreeSet<&str> = named.iter().map(|n| n.subcommand.as_str()).collect();
    assert!(seen.len() >= 10, "found only {seen:?}");
    let problems = docs::unknown_in("skills/grounded-citations/SKILL.md", &named);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Issue 21: fact-checking mode ends with the support gate, as its last step.
#[test]
fn fact_checking_mode_ends_with_the_support_gate() {
    let text = skill();
    let mode = text
        .split("## Fact-checking mode")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("a fact-checking mode");
    let last_step = mode.rsplit("\n4. ").next().expect("numbered steps");
    assert!(
        last_step.contains("cite verify report.md --evidence --support --min-coverage 0.5"),
        "{last_step}"
    );
    assert!(
        !mode.contains("\n5. "),
        "the support gate is no longer the last step"
    );
}
