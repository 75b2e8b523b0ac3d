//! Any text as JSON tool output → `find_urls`: never a panic, and what it returns keeps
//! the module's promises: every URL found was given as http(s), is canonical, and
//! appears once.

#![no_main]

use std::collections::HashSet;

use cite::ledger::ingest::find_urls;
use cite::ledger::url::canonicalize;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|json: &str| {
    let Ok((found, skipped)) = find_urls(json) else {
        return;
    };
    let mut seen = HashSet::new();
    for f in &found {
        assert!(f.given.starts_with("http://") || f.given.starts_with("https://"));
        assert_eq!(canonicalize(&f.given).as_ref(), Ok(&f.url));
        assert!(seen.insert(&f.url), "{} found twice", f.url);
    }
    for s in &skipped {
        assert!(canonicalize(&s.given).is_err(), "{} was skipped", s.given);
    }
});
