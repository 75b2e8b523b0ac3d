//! Golden byte fixtures of every released event shape (format version 1).
//!
//! Each test builds one fixed [`Record`] and checks its encoding and its chain hash
//! against literals written here, and that the literal bytes decode back to the record.
//! The literals were produced once by the code and pasted in: that is the point. A change
//! of the wire format (field order, integer encoding, variant index, a new field) must
//! fail here, because every stored ledger and every hash in its chain depends on it. When
//! a new event variant is released, add its fixture; never edit an existing one.
//!
//! The four fixtures form a chain (each `prev` is the previous fixture's hash literal),
//! so the chain rule is pinned too.

use cite_store::event::{
    self, DecodeError, Epoch, Event, FORMAT_VERSION, GENESIS, Hash, Origin, PageFact, Provenance,
    Record, SourceAdded, SourceId,
};

/// The title of the first fixture: non-ASCII, so string lengths count bytes.
const TITLE: &str = "Ünïcödé — résumé";

const HASH_ADDED_FULL: &str = "ca15dd45974beeb3ee857914c8cd969ad1458d725fa69bc941f12299fa36e05e";
const HASH_ADDED_BARE: &str = "b1d482e032a577eadf37bc8ebc0d31afcf46c7f717ac502ac4df9befcc8868d8";
const HASH_TITLE_SET: &str = "5a6e674e798f3fd9bbaa53358fe1e9b309a2f5f50acc5e5210e0409bede9263e";
const HASH_RESET: &str = "4eefab139b2fcec790ffd2781b93dbae5f627cff29f42b22ac60fc0c716a1b34";
const HASH_SAME_AS: &str = "5bd78993fda6505a99cad12856234edcfc184ec647b9a6afe4a74eab0f5d9867";
const HASH_IMPORTED: &str = "5d4f9e75d25b616d0efcc1359fb83952fbf620f2aa40b4439ee8d57a59ec1d0e";
const HASH_QUOTE_IMPORTED: &str =
    "a891e354fb329b592ce894538eb100bacabf5eff30a5b07417522c4e869370c1";
const HASH_QUOTE_ATTACHED: &str =
    "4e6eb0e535b71cef584385f1869f92cf046b804051660ae6051060d7ec0f2d6c";
const HASH_QUOTE_RETRACTED: &str =
    "548053b7ed18ca43ca9f113b52e6d9ea350b78249d4f848992a2a586a1c7b153";
const HASH_TITLE_CORRECTED: &str =
    "6fc46ff1dd71aff19e4d9921098fe5c21d1231eda17b20d00792f80553edc942";
const HASH_QUOTE_TYPED: &str = "04ffef8262a24dd0ddcf636f1ec404a532ab50d57d7bf1e3b2347cca94d25b6a";
const HASH_METADATA_SET: &str = "365dc5bd81fda46edd445109689b2ac4d1ccd45f0cde71aa59d89c3104eb460f";
const HASH_SNAPSHOT_STORED: &str =
    "8d876d4c6293224cbf0eab9da78ec9856b83394ae164f40d7c1352e7691f75e4";

/// Joins literal pieces into one fixture; the pieces are laid out field by field.
fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// A hash literal as bytes.
fn unhex(s: &str) -> Hash {
    assert_eq!(s.len(), 64, "a hash literal is 64 hex digits");
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex digit");
    }
    out
}

fn strings(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

/// Index 0, every optional field present.
fn fixture_added_full() -> (Record, Vec<u8>) {
    let record = Record {
        format: FORMAT_VERSION,
        provenance: Provenance::Origin(Origin {
            at_ns: 1_735_689_600_123_456_789,
            pid: 4242,
            actor: Some("agent-7".into()),
            command: strings(&[
                "cite",
                "add",
                "--title",
                TITLE,
                "--via",
                "web",
                "HTTPS://Example.COM/a/#frag",
            ]),
        }),
        prev: GENESIS,
        event: Event::SourceAdded(SourceAdded {
            epoch: Epoch(1),
            id: SourceId(1),
            url_given: "HTTPS://Example.COM/a/#frag".into(),
            url: "https://example.com/a".into(),
            title: TITLE.into(),
            accessed: "2025-01-01".into(),
            via: Some("web".into()),
        }),
    };
    #[rustfmt::skip]
    let bytes = cat(&[
        &[0x01],                                                  // format 1
        &[0x00],                                                  // Provenance::Origin
        &[0xaa, 0xb4, 0x96, 0xfb, 0xd8, 0x9f, 0xb4, 0x96, 0x30],  // at_ns, zigzag varint
        &[0x92, 0x21],                                            // pid 4242
        &[0x01, 0x07], b"agent-7",                                // actor: Some, 7 bytes
        &[0x07],                                                  // command: 7 strings
        &[0x04], b"cite",
        &[0x03], b"add",
        &[0x07], b"--title",
        &[0x18], TITLE.as_bytes(),                                // 24 bytes of UTF-8
        &[0x05], b"--via",
        &[0x03], b"web",
        &[0x1b], b"HTTPS://Example.COM/a/#frag",
        &[0x00; 32],                                              // prev: genesis
        &[0x00],                                                  // Event::SourceAdded
        &[0x01],                                                  // epoch 1
        &[0x01],                                                  // id 1
        &[0x1b], b"HTTPS://Example.COM/a/#frag",                  // url_given
        &[0x15], b"https://example.com/a",                        // url
        &[0x18], TITLE.as_bytes(),                                // title
        &[0x0a], b"2025-01-01",                                   // accessed
        &[0x01, 0x03], b"web",                                    // via: Some
    ]);
    (record, bytes)
}

/// Index 0, no title, no route, no actor; a multi-byte pid and id.
fn fixture_added_bare() -> (Record, Vec<u8>) {
    let record = Record {
        format: FORMAT_VERSION,
        provenance: Provenance::Origin(Origin {
            at_ns: 1_735_689_601_000_000_000,
            pid: 4_000_000,
            actor: None,
            command: strings(&["cite", "add", "doi:10.1000/182"]),
        }),
        prev: unhex(HASH_ADDED_FULL),
        event: Event::SourceAdded(SourceAdded {
            epoch: Epoch(1),
            id: SourceId(300),
            url_given: "doi:10.1000/182".into(),
            url: "https://doi.org/10.1000/182".into(),
            title: String::new(),
            accessed: "2025-01-01".into(),
            via: None,
        }),
    };
    #[rustfmt::skip]
    let bytes = cat(&[
        &[0x01],                                                  // format 1
        &[0x00],                                                  // Provenance::Origin
        &[0x80, 0xa8, 0x8e, 0xbf, 0xdf, 0x9f, 0xb4, 0x96, 0x30],  // at_ns
        &[0x80, 0x92, 0xf4, 0x01],                                // pid 4000000
        &[0x00],                                                  // actor: None
        &[0x03],                                                  // command: 3 strings
        &[0x04], b"cite",
        &[0x03], b"add",
        &[0x0f], b"doi:10.1000/182",
        &[0xca, 0x15, 0xdd, 0x45, 0x97, 0x4b, 0xee, 0xb3,         // prev: hash of added_full
          0xee, 0x85, 0x79, 0x14, 0xc8, 0xcd, 0x96, 0x9a,
          0xd1, 0x45, 0x8d, 0x72, 0x5f, 0xa6, 0x9b, 0xc9,
          0x41, 0xf1, 0x22, 0x99, 0xfa, 0x36, 0xe0, 0x5e],
        &[0x00],                                                  // Event::SourceAdded
        &[0x01],                                                  // epoch 1
        &[0xac, 0x02],                                            // id 300
        &[0x0f], b"doi:10.1000/182",                              // url_given
        &[0x1b], b"https://doi.org/10.1000/182",                  // url
        &[0x00],                                                  // title: empty
        &[0x0a], b"2025-01-01",                                   // accessed
        &[0x00],                                                  // via: None
    ]);
    (record, bytes)
}

/// Index 1.
fn fixture_title_set() -> (Record, Vec<u8>) {
    let record = Record {
        format: FORMAT_VERSION,
        provenance: Provenance::Origin(Origin {
            at_ns: 1_735_689_602_500_000_001,
            pid: 77,
            actor: Some("reviewer".into()),
            command: strings(&["cite", "add", "--title", "A handbook", "doi:10.1000/182"]),
        }),
        prev: unhex(HASH_ADDED_BARE),
        event: Event::TitleSet {
            epoch: Epoch(1),
            id: SourceId(300),
            title: "A handbook".into(),
        },
    };
    #[rustfmt::skip]
    let bytes = cat(&[
        &[0x01],                                                  // format 1
        &[0x00],                                                  // Provenance::Origin
        &[0x82, 0xe4, 0xcf, 0xd5, 0xea, 0x9f, 0xb4, 0x96, 0x30],  // at_ns
        &[0x4d],                                                  // pid 77
        &[0x01, 0x08], b"reviewer",                               // actor: Some
        &[0x05],                                                  // command: 5 strings
        &[0x04], b"cite",
        &[0x03], b"add",
        &[0x07], b"--title",
        &[0x0a], b"A handbook",
        &[0x0f], b"doi:10.1000/182",
        &[0xb1, 0xd4, 0x82, 0xe0, 0x32, 0xa5, 0x77, 0xea,         // prev: hash of added_bare
          0xdf, 0x37, 0xbc, 0x8e, 0xbc, 0x0d, 0x31, 0xaf,
          0xcf, 0x46, 0xc7, 0xf7, 0x17, 0xac, 0x50, 0x2a,
          0xc4, 0xdf, 0x9b, 0xef, 0xcc, 0x88, 0x68, 0xd8],
        &[0x01],                                                  // Event::TitleSet
        &[0x01],                                                  // epoch 1
        &[0xac, 0x02],                                            // id 300
        &[0x0a], b"A handbook",                                   // title
    ]);
    (record, bytes)
}

/// Index 2.
fn fixture_reset() -> (Record, Vec<u8>) {
    let record = Record {
        format: FORMAT_VERSION,
        provenance: Provenance::Origin(Origin {
            at_ns: 1_735_689_603_000_000_000,
            pid: 1,
            actor: None,
            command: vec![],
        }),
        prev: unhex(HASH_TITLE_SET),
        event: Event::Reset {
            new_epoch: Epoch(2),
        },
    };
    #[rustfmt::skip]
    let bytes = cat(&[
        &[0x01],                                                  // format 1
        &[0x00],                                                  // Provenance::Origin
        &[0x80, 0xf8, 0xba, 0xb2, 0xee, 0x9f, 0xb4, 0x96, 0x30],  // at_ns
        &[0x01],                                                  // pid 1
        &[0x00],                                                  // actor: None
        &[0x00],                                                  // command: empty
        &[0x5a, 0x6e, 0x67, 0x4e, 0x79, 0x8f, 0x3f, 0xd9,         // prev: hash of title_set
          0xbb, 0xaa, 0x53, 0x35, 0x8f, 0xe1, 0xe9, 0xb3,
          0x09, 0xa2, 0xf5, 0xf5, 0x0a, 0xcc, 0x5e, 0x52,
          0x10, 0xe0, 0x40, 0x9b, 0xed, 0xe9, 0x26, 0x3e],
        &[0x02],                                                  // Event::Reset
        &[0x02],                                                  // new_epoch 2
    ]);
    (record, bytes)
}

fn fixtures() -> [(&'static str, Record, Vec<u8>, &'static str); 4] {
    let (a, a_bytes) = fixture_added_full();
    let (b, b_bytes) = fixture_added_bare();
    let (t, t_bytes) = fixture_title_set();
    let (r, r_bytes) = fixture_reset();
    [
        ("added_full", a, a_bytes, HASH_ADDED_FULL),
        ("added_bare", b, b_bytes, HASH_ADDED_BARE),
        ("title_set", t, t_bytes, HASH_TITLE_SET),
        ("reset", r, r_bytes, HASH_RESET),
    ]
}

/// Encoding, hash and decoding of one fixture all match the literals.
fn check(record: Record, bytes: &[u8], hash: &str) {
    assert_eq!(record.encode(), bytes, "encoding changed");
    assert_eq!(
        event::hex(&record.hash()),
        hash,
        "hash of the record changed"
    );
    assert_eq!(
        event::hex(&event::hash_bytes(bytes)),
        hash,
        "hash of the bytes"
    );
    assert_eq!(
        Record::decode(bytes),
        Ok(record),
        "decoding the literal bytes"
    );
}

#[test]
fn format_version_is_one() {
    // Every fixture below is a version-1 record; a new version adds fixtures, it does
    // not rewrite these.
    assert_eq!(FORMAT_VERSION, 1);
}

#[test]
fn source_added_with_title_route_and_actor() {
    let (record, bytes) = fixture_added_full();
    check(record, &bytes, HASH_ADDED_FULL);
}

#[test]
fn source_added_without_title_route_or_actor() {
    let (record, bytes) = fixture_added_bare();
    check(record, &bytes, HASH_ADDED_BARE);
}

#[test]
fn title_set() {
    let (record, bytes) = fixture_title_set();
    check(record, &bytes, HASH_TITLE_SET);
}

#[test]
fn reset() {
    let (record, bytes) = fixture_reset();
    check(record, &bytes, HASH_RESET);
}

#[test]
fn decode_rejects_trailing_bytes() {
    for (name, _, mut bytes, _) in fixtures() {
        bytes.push(0x00);
        let err = Record::decode(&bytes).expect_err(name);
        assert_eq!(err, DecodeError::TrailingBytes(1), "{name}");
        assert_eq!(err.to_string(), "record has 1 trailing byte(s)");
    }
}

#[test]
fn decode_rejects_a_future_format_version() {
    for (name, _, mut bytes, _) in fixtures() {
        // The format is the first field, a varint: 0x01 → 0x02 makes a version-2 record.
        assert_eq!(bytes[0], 0x01);
        bytes[0] = 0x02;
        let err = Record::decode(&bytes).expect_err(name);
        assert_eq!(
            err,
            DecodeError::UnsupportedFormat {
                got: 2,
                supports: 1
            }
        );
        assert_eq!(
            err.to_string(),
            "unsupported record format (got 2, supports 1)"
        );
    }
    // The version is checked before the body is read: a version-2 record may have any
    // layout at all, including none.
    let err = Record::decode(&[0x02]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "unsupported record format (got 2, supports 1)"
    );
    // A multi-byte varint version is named as the number it is.
    let err = Record::decode(&[0xac, 0x02, 0x00]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "unsupported record format (got 300, supports 1)"
    );
}

#[test]
fn decode_rejects_every_truncation() {
    for (name, _, bytes, _) in fixtures() {
        for len in 0..bytes.len() {
            assert!(
                matches!(
                    Record::decode(&bytes[..len]),
                    Err(DecodeError::Malformed(_))
                ),
                "{name} cut to {len} bytes must not decode"
            );
        }
    }
}

/// Provenance index 1: a later record of a transaction points at the transaction's first
/// record instead of repeating its origin (an `add` of k URLs stores its command once).
#[test]
fn provenance_same_as() {
    let record = Record {
        format: FORMAT_VERSION,
        provenance: Provenance::SameAs(event::Seq(300)),
        prev: GENESIS,
        event: Event::Reset {
            new_epoch: Epoch(3),
        },
    };
    #[rustfmt::skip]
    let bytes = cat(&[
        &[0x01],                                                  // format 1
        &[0x01],                                                  // Provenance::SameAs
        &[0xac, 0x02],                                            // seq 300
        &[0x00; 32],                                              // prev: genesis
        &[0x02],                                                  // Event::Reset
        &[0x03],                                                  // new_epoch 3
    ]);
    check(record, &bytes, HASH_SAME_AS);
}

/// Index 3: a quote with its snapshot hash and TextQuoteSelector.
#[test]
fn quote_attached() {
    let record = Record {
        format: FORMAT_VERSION,
        provenance: Provenance::SameAs(event::Seq(2)),
        prev: GENESIS,
        event: Event::QuoteAttached(event::QuoteAttached {
            epoch: Epoch(1),
            id: SourceId(2),
            text: "less dense than water".into(),
            snapshot: [0xab; 32],
            selector: event::TextQuote {
                exact: "less *dense* than water".into(),
                prefix: "Ice is ".into(),
                suffix: ".".into(),
                start: 7,
                end: 300,
            },
            added: "2025-01-02".into(),
        }),
    };
    #[rustfmt::skip]
    let bytes = cat(&[
        &[0x01],                                                  // format 1
        &[0x01, 0x02],                                            // Provenance::SameAs(2)
        &[0x00; 32],                                              // prev: genesis
        &[0x03],                                                  // Event::QuoteAttached
        &[0x01],                                                  // epoch 1
        &[0x02],                                                  // id 2
        &[0x15], b"less dense than water",                        // text
        &[0xab; 32],                                              // snapshot hash
        &[0x17], b"less *dense* than water",                      // selector.exact
        &[0x07], b"Ice is ",                                      // selector.prefix
        &[0x01], b".",                                            // selector.suffix
        &[0x07],                                                  // selector.start 7
        &[0xac, 0x02],                                            // selector.end 300
        &[0x0a], b"2025-01-02",                                   // added
    ]);
    check(record, &bytes, HASH_QUOTE_ATTACHED);
}

/// Index 4: page text stored for a source at registration (`add --snapshot`).
#[test]
fn snapshot_stored() {
    let record = Record {
        format: FORMAT_VERSION,
        provenance: Provenance::SameAs(event::Seq(1)),
        prev: GENESIS,
        event: Event::SnapshotStored {
            epoch: Epoch(2),
            id: SourceId(1),
            snapshot: [0x5a; 32],
        },
    };
    #[rustfmt::skip]
    let bytes = cat(&[
        &[0x01],                                                  // format 1
        &[0x01, 0x01],                                            // Provenance::SameAs(1)
        &[0x00; 32],                                              // prev: genesis
        &[0x04],                                                  // Event::SnapshotStored
        &[0x02],                                                  // epoch 2
        &[0x01],                                                  // id 1
        &[0x5a; 32],                                              // snapshot hash
    ]);
    check(record, &bytes, HASH_SNAPSHOT_STORED);
}

/// Index 5: the start of an import of a `sources.py` ledger.
#[test]
fn imported() {
    let record = Record {
        format: FORMAT_VERSION,
        provenance: Provenance::Origin(Origin {
            at_ns: 0,
            pid: 7,
            actor: None,
            command: strings(&["cite", "import", "ledger.json"]),
        }),
        prev: GENESIS,
        event: Event::Imported {
            epoch: Epoch(1),
            from: "ledger.json".into(),
            sources: 2,
            quotes: 1,
        },
    };
    #[rustfmt::skip]
    let bytes = cat(&[
        &[0x01],                                                  // format 1
        &[0x00],                                                  // Provenance::Origin
        &[0x00],                                                  // at_ns 0
        &[0x07],                                                  // pid 7
        &[0x00],                                                  // actor: None
        &[0x03], &[0x04], b"cite", &[0x06], b"import", &[0x0b], b"ledger.json",
        &[0x00; 32],                                              // prev: genesis
        &[0x05],                                                  // Event::Imported
        &[0x01],                                                  // epoch 1
        &[0x0b], b"ledger.json",                                  // from
        &[0x02],                                                  // sources 2
        &[0x01],                                                  // quotes 1
    ]);
    check(record, &bytes, HASH_IMPORTED);
}

/// Index 6: a quote carried over by an import, with no page text.
#[test]
fn quote_imported() {
    let record = Record {
        format: FORMAT_VERSION,
        provenance: Provenance::SameAs(event::Seq(1)),
        prev: GENESIS,
        event: Event::QuoteImported {
            epoch: Epoch(1),
            id: SourceId(2),
            text: "a quote kept by sources.py".into(),
            added: "2025-01-03".into(),
        },
    };
    #[rustfmt::skip]
    let bytes = cat(&[
        &[0x01],                                                  // format 1
        &[0x01, 0x01],                                            // Provenance::SameAs(1)
        &[0x00; 32],                                              // prev: genesis
        &[0x06],                                                  // Event::QuoteImported
        &[0x01],                                                  // epoch 1
        &[0x02],                                                  // id 2
        &[0x1a], b"a quote kept by sources.py",                   // text
        &[0x0a], b"2025-01-03",                                   // added
    ]);
    check(record, &bytes, HASH_QUOTE_IMPORTED);
}

/// Index 7 (issue 20): a quote retracted, with why.
#[test]
fn quote_retracted() {
    let record = Record {
        format: FORMAT_VERSION,
        provenance: Provenance::SameAs(event::Seq(1)),
        prev: GENESIS,
        event: Event::QuoteRetracted {
            epoch: Epoch(1),
            id: SourceId(3),
            quote: 2,
            reason: "wrong".into(),
        },
    };
    #[rustfmt::skip]
    let bytes = cat(&[
        &[0x01],                                                  // format 1
        &[0x01, 0x01],                                            // Provenance::SameAs(1)
        &[0x00; 32],                                              // prev: genesis
        &[0x07],                                                  // Event::QuoteRetracted
        &[0x01],                                                  // epoch 1
        &[0x03],                                                  // id 3
        &[0x02],                                                  // quote 2
        &[0x05], b"wrong",                                        // reason
    ]);
    check(record, &bytes, HASH_QUOTE_RETRACTED);
}

/// Index 8 (issue 20): a title corrected.
#[test]
fn title_corrected() {
    let record = Record {
        format: FORMAT_VERSION,
        provenance: Provenance::SameAs(event::Seq(1)),
        prev: GENESIS,
        event: Event::TitleCorrected {
            epoch: Epoch(1),
            id: SourceId(3),
            title: "Right".into(),
        },
    };
    #[rustfmt::skip]
    let bytes = cat(&[
        &[0x01],                                                  // format 1
        &[0x01, 0x01],                                            // Provenance::SameAs(1)
        &[0x00; 32],                                              // prev: genesis
        &[0x08],                                                  // Event::TitleCorrected
        &[0x01],                                                  // epoch 1
        &[0x03],                                                  // id 3
        &[0x05], b"Right",                                        // title
    ]);
    check(record, &bytes, HASH_TITLE_CORRECTED);
}

/// Index 9 (issue 20): the text a quote was typed as, beside the page's words.
#[test]
fn quote_typed() {
    let record = Record {
        format: FORMAT_VERSION,
        provenance: Provenance::SameAs(event::Seq(1)),
        prev: GENESIS,
        event: Event::QuoteTyped {
            epoch: Epoch(1),
            id: SourceId(3),
            quote: 2,
            typed: "a - b".into(),
        },
    };
    #[rustfmt::skip]
    let bytes = cat(&[
        &[0x01],                                                  // format 1
        &[0x01, 0x01],                                            // Provenance::SameAs(1)
        &[0x00; 32],                                              // prev: genesis
        &[0x09],                                                  // Event::QuoteTyped
        &[0x01],                                                  // epoch 1
        &[0x03],                                                  // id 3
        &[0x02],                                                  // quote 2
        &[0x05], b"a - b",                                        // typed
    ]);
    check(record, &bytes, HASH_QUOTE_TYPED);
}

/// Index 10: what tool output said about a page, one fact of each kind.
#[test]
fn metadata_set() {
    let record = Record {
        format: FORMAT_VERSION,
        provenance: Provenance::SameAs(event::Seq(1)),
        prev: GENESIS,
        event: Event::MetadataSet {
            epoch: Epoch(1),
            id: SourceId(3),
            facts: vec![
                PageFact::Published("2023-05-12".into()),
                PageFact::Site("Physics Notes".into()),
                PageFact::Language("de-AT".into()),
                PageFact::Authors(strings(&["K. Ito", "R. Roe"])),
            ],
        },
    };
    #[rustfmt::skip]
    let bytes = cat(&[
        &[0x01],                                                  // format 1
        &[0x01, 0x01],                                            // Provenance::SameAs(1)
        &[0x00; 32],                                              // prev: genesis
        &[0x0a],                                                  // Event::MetadataSet
        &[0x01],                                                  // epoch 1
        &[0x03],                                                  // id 3
        &[0x04],                                                  // 4 facts
        &[0x00, 0x0a], b"2023-05-12",                             // Published
        &[0x01, 0x0d], b"Physics Notes",                          // Site
        &[0x02, 0x05], b"de-AT",                                  // Language
        &[0x03, 0x02, 0x06], b"K. Ito", &[0x06], b"R. Roe",       // Authors, 2
    ]);
    check(record, &bytes, HASH_METADATA_SET);
}
