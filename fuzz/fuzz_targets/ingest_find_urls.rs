//! Any text as JSON tool output → `find_urls` and `find_urls_in_tool_output`: never a
//! panic, and what they return keeps the module's promises: every URL found was given as
//! http(s), is canonical, and appears once; page text is never blank; the tool-output walk
//! finds every URL the plain one finds. The same text as a hook payload → `hook::read_claude_code`: never a panic.

#![no_main]

use std::collections::HashSet;

use cite_core::url::canonicalize;
use cite_ledger::ingest::{Found, Skipped, find_urls, find_urls_in_tool_output};
use libfuzzer_sys::fuzz_target;

fn check(found: &[Found], skipped: &[Skipped]) {
    let mut seen = HashSet::new();
    for f in found {
        assert!(f.given.starts_with("http://") || f.given.starts_with("https://"));
        assert_eq!(canonicalize(&f.given).as_ref(), Ok(&f.url));
        assert!(seen.insert(&f.url), "{} found twice", f.url);
        assert!(
            f.page.as_ref().is_none_or(|p| !p.trim().is_empty()),
            "blank page text for {}",
            f.url
        );
    }
    for s in skipped {
        assert!(canonicalize(&s.given).is_err(), "{} was skipped", s.given);
    }
}

fuzz_target!(|json: &str| {
    let _ = cite::hook::read_claude_code(json);
    let Ok((found, skipped)) = find_urls(json) else {
        return;
    };
    check(&found, &skipped);
    let (nested, nested_skipped) =
        find_urls_in_tool_output(json).expect("text find_urls parses is tool output");
    check(&nested, &nested_skipped);
    let nested: HashSet<&str> = nested.iter().map(|f| f.url.as_str()).collect();
    for f in &found {
        assert!(nested.contains(f.url.as_str()), "{} missed", f.url);
    }
});
