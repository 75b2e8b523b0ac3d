//! Any text → `canonicalize`: never a panic, and its output is a fixed point (the
//! module's promise: the canonical form is the key of the url index, so a canonical URL
//! given again must find the same source).

#![no_main]

use cite_core::url::canonicalize;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &str| {
    if let Ok(once) = canonicalize(input) {
        match canonicalize(&once) {
            Ok(twice) => assert_eq!(twice, once, "not a fixed point for {input:?}"),
            Err(e) => panic!("{input:?} canonicalizes to {once:?}, which is refused: {e}"),
        }
    }
});
