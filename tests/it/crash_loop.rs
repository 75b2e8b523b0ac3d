//! Crash safety, shown: a writer that adds URLs in a loop (one URL per `cite add`, and
//! batches of many) is killed with SIGKILL at random moments, again and again. After
//! every kill the ledger opens at once; at the end `cite audit` passes, the ids are dense,
//! and every `[ID] URL` line the writer printed before it died is in the ledger.
//!
//! The delays are random; the seed is printed, and `CITE_CRASH_SEED=N` replays a run.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::audit::audit_ok;
use crate::util::{PATIENCE, SLACK, Sandbox};

/// Kills in one run.
const KILLS: usize = 20;

/// xorshift64*: enough randomness for kill delays, no dependency.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new() -> Rng {
        let seed = std::env::var("CITE_CRASH_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .unwrap()
                    .as_nanos() as u64
            })
            | 1;
        eprintln!("crash_loop seed: CITE_CRASH_SEED={seed}");
        Rng(seed)
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }
}

/// The writer: a shell loop that adds one URL, then a batch of `$3`, forever. `$0` is the
/// binary, `$1` the ledger, `$2` a tag of this writer's, so that every URL is new.
pub(crate) const WRITER: &str = r#"
i=0
while :; do
    i=$((i+1))
    "$0" --ledger "$1" add "https://crash.example/$2/$i" || exit 1
    batch=""
    j=0
    while [ $j -lt "$3" ]; do
        j=$((j+1))
        batch="$batch https://crash.example/$2/$i/$j"
    done
    "$0" --ledger "$1" add $batch || exit 1
done
"#;

/// Starts [`WRITER`] in `dir` on `ledger`, tagged `tag`, adding batches of `batch`, in a
/// process group of its own (so that one signal reaches the shell and its `cite`).
pub(crate) fn spawn_writer(dir: &Path, ledger: &OsStr, tag: &str, batch: u32) -> Child {
    Command::new("sh")
        .current_dir(dir)
        .arg("-c")
        .arg(WRITER)
        .arg(assert_cmd::cargo::cargo_bin("cite"))
        .arg(ledger)
        .arg(tag)
        .arg(batch.to_string())
        .env_remove("CITE_LEDGER")
        .env_remove("HERMES_CITATION_LEDGER")
        .env_remove("CITE_ACTOR")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .expect("spawn a writer")
}

/// SIGKILLs a writer's whole process group.
pub(crate) fn kill_writer(writer: &Child) {
    let killed = Command::new("kill")
        .args(["-s", "KILL", "--", &format!("-{}", writer.id())])
        .status()
        .expect("run kill");
    assert!(killed.success(), "kill failed");
}

/// What a killed writer printed, once it has ended.
pub(crate) fn printed_by(mut writer: Child) -> Vec<(u64, String)> {
    writer.wait().expect("wait for the writer");
    let mut out = String::new();
    writer
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .expect("read what the writer printed");
    printed(&out)
}

/// `[ID] URL` lines complete in `out` (a line cut by the kill is ignored).
pub(crate) fn printed(out: &str) -> Vec<(u64, String)> {
    let complete = match out.rfind('\n') {
        Some(end) => &out[..=end],
        None => "",
    };
    complete
        .lines()
        .map(|line| {
            let rest = line.strip_prefix('[').expect("an id line");
            let (id, url) = rest.split_once("] ").expect("an id line");
            (id.parse().expect("an id"), url.to_string())
        })
        .collect()
}

#[test]
fn writers_killed_at_random_moments_lose_nothing_they_printed() {
    let sb = Sandbox::new();
    let mut rng = Rng::new();
    let mut promised: Vec<(u64, String)> = Vec::new();
    // KILLS rounds, and more while the writers have printed too little to test: on a
    // loaded machine a writer can be killed before its first add, round after round.
    let started = Instant::now();
    let mut round = 0;
    while round < KILLS || (promised.len() <= KILLS && started.elapsed() < PATIENCE) {
        let writer = spawn_writer(sb.path(), sb.ledger.as_os_str(), &format!("r{round}"), 25);
        // The moment of the kill: what the test varies, not something it waits for.
        thread::sleep(Duration::from_millis(5 + rng.below(76)));
        kill_writer(&writer);
        promised.extend(printed_by(writer));

        // The ledger opens at once after every kill: quick repair, not a full one.
        let started = Instant::now();
        sb.ok(&["list"]);
        let took = started.elapsed();
        assert!(took < SLACK, "round {round}: list took {took:?}");
        round += 1;
    }
    assert!(
        promised.len() > KILLS,
        "the writers printed only {} ids: they hardly ran",
        promised.len()
    );

    audit_ok(&sb.ledger);
    let listed: serde_json::Value = serde_json::from_str(&sb.ok(&["list", "--json"])).unwrap();
    let listed: BTreeMap<u64, String> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["id"].as_u64().unwrap(),
                s["url"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    eprintln!(
        "crash_loop: {round} kills, {} ids printed, {} sources in the ledger",
        promised.len(),
        listed.len()
    );
    assert_printed_ids_kept(&listed, &promised);
}

/// Checks a ledger's sources (`listed`, id → URL) against what killed writers printed:
/// ids dense from 1, every printed id there with its URL, every URL there once.
pub(crate) fn assert_printed_ids_kept(listed: &BTreeMap<u64, String>, promised: &[(u64, String)]) {
    let n = listed.len() as u64;
    assert_eq!(
        listed.keys().copied().collect::<Vec<_>>(),
        (1..=n).collect::<Vec<_>>(),
        "ids are not dense"
    );
    for (id, url) in promised {
        assert_eq!(
            listed.get(id),
            Some(url),
            "[{id}] {url} was printed, then lost"
        );
    }
    let urls: std::collections::BTreeSet<&String> = listed.values().collect();
    assert_eq!(urls.len() as u64, n, "a URL has two ids");
}
