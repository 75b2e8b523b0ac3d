//! Any text → `canonicalize`: never a panic, and its output is a fixed point (the
//! module's promise: the canonical form is the key of the url index, so a canonical URL
//! given again must find the same source). Since issue 19 also: the output holds no
//! credentials, has no tracking parameter left to remove, and its http/https twin is
//! canonical too (the ledger looks the twin up as a key of the url index).

#![no_main]

use cite_core::url::{canonical, canonicalize, twin};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &str| {
    if let Ok(once) = canonicalize(input) {
        match canonical(&once) {
            Ok(twice) => {
                assert_eq!(twice.url, once, "not a fixed point for {input:?}");
                assert_eq!(
                    twice.earlier, None,
                    "{once:?} still has tracking parameters"
                );
            }
            Err(e) => panic!("{input:?} canonicalizes to {once:?}, which is refused: {e}"),
        }
        if let Some((_, rest)) = once.split_once("://") {
            let authority = rest.split(['/', '?']).next().unwrap_or(rest);
            assert!(
                !authority.contains('@'),
                "{input:?} keeps credentials in {once:?}"
            );
        }
        if let Some(t) = twin(&once) {
            assert_eq!(canonicalize(&t).ok().as_ref(), Some(&t), "twin of {once:?}");
        }
    }
});
