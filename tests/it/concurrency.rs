//! Many real processes writing one ledger at once (SPEC §1, §5): 8 concurrent streams of
//! 200 sequential `cite add` processes each, half of every stream's URLs shared with all
//! the others (under different spellings), half its own.
//!
//! Afterwards: every invocation succeeded; the ids are exactly 1..=N for the N distinct
//! URLs, with no gap or repeat; every `[ID] URL` any process printed is what the ledger
//! holds for that id; each URL has exactly one id; and the log is an unbroken chain with
//! exactly one `SourceAdded` per URL, written by a process that printed that id.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use cite_store::Store;
use cite_store::event::{Event, GENESIS};

const PROCS: usize = 8;
const ADDS: usize = 200;

/// The URL stream `p` adds at step `i`, as given and in canonical form. Even steps are
/// shared by all streams, in the same order so that they race on the same new URL; odd
/// streams spell them differently, which must not make a second source.
fn url(p: usize, i: usize) -> (String, String) {
    if i.is_multiple_of(2) {
        let k = i / 2;
        let canonical = format!("https://shared.example/page/{k}");
        let given = if p.is_multiple_of(2) {
            canonical.clone()
        } else {
            format!("HTTPS://Shared.Example:443/page/{k}/#from-{p}")
        };
        (given, canonical)
    } else {
        let u = format!("https://p{p}.example/item/{i}");
        (u.clone(), u)
    }
}

/// What one `cite add` printed, and the pid that printed it.
struct Printed {
    pid: u32,
    id: u64,
    url: String,
}

/// Runs stream `p`: `ADDS` sequential `cite add` processes.
fn stream(ledger: &Path, p: usize) -> Vec<Printed> {
    let bin = assert_cmd::cargo::cargo_bin("cite");
    let mut out = Vec::with_capacity(ADDS);
    for i in 0..ADDS {
        let (given, canonical) = url(p, i);
        let child = Command::new(&bin)
            .arg("--ledger")
            .arg(ledger)
            .args(["--wait", "60", "add", &given])
            .env_remove("CITE_LEDGER")
            .env_remove("HERMES_CITATION_LEDGER")
            .env_remove("CITE_ACTOR")
            .env_remove("XDG_DATA_HOME")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn cite");
        let pid = child.id();
        let o = child.wait_with_output().expect("wait for cite");
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "stream {p} step {i}: `cite add {given}` exited {:?}\nstdout: {stdout}\nstderr: {}",
            o.status.code(),
            String::from_utf8_lossy(&o.stderr)
        );
        let line = stdout.trim_end_matches('\n');
        assert!(!line.contains('\n'), "one line per URL, got {stdout:?}");
        let (id, printed_url) = line
            .strip_prefix('[')
            .and_then(|r| r.split_once("] "))
            .unwrap_or_else(|| panic!("not an `[ID] URL` line: {line:?}"));
        assert_eq!(
            printed_url, canonical,
            "stream {p} step {i} printed another URL"
        );
        out.push(Printed {
            pid,
            id: id.parse().expect("numeric id"),
            url: printed_url.to_string(),
        });
    }
    out
}

#[test]
fn eight_processes_adding_at_once_lose_nothing() {
    let sb = crate::util::Sandbox::new();
    let ledger = sb.ledger.as_path();
    let started = Instant::now();
    let printed: Vec<Printed> = thread::scope(|s| {
        let streams: Vec<_> = (0..PROCS)
            .map(|p| s.spawn(move || stream(ledger, p)))
            .collect();
        streams
            .into_iter()
            .flat_map(|h| h.join().expect("stream thread"))
            .collect()
    });
    let elapsed = started.elapsed();
    eprintln!("{} cite add processes in {elapsed:.1?}", PROCS * ADDS);
    assert_eq!(printed.len(), PROCS * ADDS);

    // What the processes printed is consistent with itself: one id per URL, one URL
    // per id.
    let mut id_of: HashMap<&str, u64> = HashMap::new();
    let mut url_of: HashMap<u64, &str> = HashMap::new();
    for p in &printed {
        let id = *id_of.entry(&p.url).or_insert(p.id);
        assert_eq!(id, p.id, "{} was printed with ids {id} and {}", p.url, p.id);
        let url = *url_of.entry(p.id).or_insert(&p.url);
        assert_eq!(url, p.url, "[{}] was printed for {url} and {}", p.id, p.url);
    }
    let distinct: BTreeSet<String> = (0..PROCS)
        .flat_map(|p| (0..ADDS).map(move |i| url(p, i).1))
        .collect();
    let n = distinct.len() as u64;
    assert_eq!(n, (ADDS / 2 + PROCS * ADDS / 2) as u64);

    // The ledger: ids exactly 1..=N, each printed id still maps to its URL.
    let list = sb.ok(&["list", "--json"]);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&list).expect("list --json");
    let ids: Vec<u64> = rows.iter().map(|r| r["id"].as_u64().expect("id")).collect();
    assert_eq!(
        ids,
        (1..=n).collect::<Vec<_>>(),
        "ids must be 1..=N with no gap or repeat"
    );
    let ledger: BTreeMap<u64, String> = rows
        .iter()
        .map(|r| {
            (
                r["id"].as_u64().unwrap(),
                r["url"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let stored: BTreeSet<String> = ledger.values().cloned().collect();
    assert_eq!(stored.len() as u64, n, "each URL has exactly one id");
    assert_eq!(stored, distinct, "the ledger holds exactly the URLs added");
    for p in &printed {
        assert_eq!(
            ledger.get(&p.id),
            Some(&p.url),
            "pid {} printed [{}] {}",
            p.pid,
            p.id,
            p.url
        );
    }

    // The log: an unbroken chain with one SourceAdded per URL, each written by a process
    // that printed that id (the writer prints what it registered).
    let printers: HashMap<u64, BTreeSet<u32>> = printed.iter().fold(HashMap::new(), |mut m, p| {
        m.entry(p.id).or_default().insert(p.pid);
        m
    });
    let store = Store::open_read(&sb.ledger, Duration::from_secs(5))
        .expect("open")
        .expect("ledger exists");
    let reader = store.read().expect("read");
    let mut prev = GENESIS;
    let mut added = 0u64;
    for item in reader.records_with_origin().expect("records") {
        let (seq, record, hash, origin) = item.expect("record decodes");
        assert_eq!(record.prev, prev, "chain broken at record {}", seq.0);
        let Event::SourceAdded(a) = record.event else {
            panic!("record {} is not a SourceAdded: {:?}", seq.0, record.event);
        };
        added += 1;
        assert_eq!(a.id.0, added, "record {} adds id {}", seq.0, a.id.0);
        assert!(
            printers[&a.id.0].contains(&origin.pid),
            "[{}] was registered by pid {}, which never printed it",
            a.id.0,
            origin.pid
        );
        prev = hash;
    }
    assert_eq!(added, n);
    assert_eq!(reader.head().expect("head").hash, prev);
}
