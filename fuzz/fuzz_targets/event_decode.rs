//! Stored record bytes → `Record::decode`: never a panic, whatever is on disk (a record
//! that does not decode is a `Corrupted` error, STYLE §6), and a record has one spelling:
//! the bytes it decodes from are its own encoding, so the hash of the stored bytes (what
//! the chain and `log` use) is the hash of the record (what `show` uses). Postcard reads
//! overlong varints it never writes; `decode` must refuse them.

#![no_main]

use cite_store::event::{Record, hash_bytes};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(record) = Record::decode(data) else {
        return;
    };
    assert_eq!(record.encode(), data, "a second spelling of {record:?}");
    assert_eq!(record.hash(), hash_bytes(data));
});
