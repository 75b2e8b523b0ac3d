//! Commits shared between server processes: adds that wait for the writer lock are
//! offered to whichever server commits next.
//!
//! Each stdio MCP client starts its own `cite mcp`, so four agents are four processes,
//! and each commit of each costs a turn under the writer lock and two syncs. Before a
//! server queues for the lock, it writes the adds it is about to commit into the
//! ledger's spool folder (`.NAME.spool/`, beside the ledger file). Whoever holds the lock
//! next registers every add it finds there in its own transaction, each group under the
//! origin of the process that asked (`Writer::start_group`), and removes the files.
//!
//! Nothing relies on the spool for correctness. Every server still runs its own adds
//! under the lock when its turn comes; when another server has committed them already,
//! they are all registered, nothing changes, and the transaction is aborted without a
//! sync, answered with the ids on disk. So a server that dies after taking others' adds
//! and before its commit loses nothing: the others register their own. A spool file that
//! cannot be read or parsed is removed and ignored.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::{AddRequest, Context};

/// A spool file larger than this is not read (a server offers at most one batch).
const MAX_FILE: u64 = 4 << 20;

/// The spool folder of the ledger file at `ledger`.
pub fn folder(ledger: &Path) -> PathBuf {
    let name = ledger.file_name().unwrap_or_default().to_string_lossy();
    let parent = match ledger.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    parent.join(format!(".{name}.spool"))
}

#[derive(Serialize, Deserialize)]
struct Offered {
    at_ns: i128,
    pid: u32,
    actor: Option<String>,
    command: Vec<String>,
    adds: Vec<OfferedAdd>,
}

#[derive(Serialize, Deserialize)]
struct OfferedAdd {
    urls: Vec<String>,
    title: Option<String>,
    accessed: Option<String>,
    via: Option<String>,
}

/// Adds offered by another process: who asked, and what, and the offer's file.
pub struct Group {
    pub ctx: Context,
    pub adds: Vec<AddRequest>,
    pub path: PathBuf,
}

/// An offer of this process's, withdrawn (its file removed) when dropped.
pub struct Offer {
    path: PathBuf,
}

impl Offer {
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn done_marker(&self) -> PathBuf {
        self.path.with_extension("done")
    }

    /// Whether another server has committed this offer (its marker is there).
    pub fn is_done(&self) -> bool {
        self.done_marker().exists()
    }
}

impl Drop for Offer {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
        let _ = fs::remove_file(self.done_marker());
    }
}

/// Marks the offers `taken` (by their paths) as committed, for the servers waiting on
/// them. Called after the commit that holds them returned: a server that sees the mark
/// reads its ids without waiting for its own turn under the lock.
pub fn mark_done(taken: &[PathBuf]) {
    for path in taken {
        let _ = fs::File::create(path.with_extension("done"));
    }
}

/// Offers `adds` (those without page text: a snapshot is stored by its own server) to
/// the next committer. `None` when there is nothing to offer or the folder cannot be
/// written; the adds are committed by this process all the same.
pub fn offer(folder: &Path, ctx: &Context, adds: &[AddRequest]) -> Option<Offer> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let adds: Vec<OfferedAdd> = adds
        .iter()
        .filter(|a| a.snapshot.is_none())
        .map(|a| OfferedAdd {
            urls: a.urls.clone(),
            title: a.title.clone(),
            accessed: a.accessed.clone(),
            via: a.via.clone(),
        })
        .collect();
    if adds.is_empty() {
        return None;
    }
    let offered = Offered {
        at_ns: ctx.now.unix_timestamp_nanos(),
        pid: ctx.pid,
        actor: ctx.actor.clone(),
        command: ctx.command.clone(),
        adds,
    };
    let bytes = serde_json::to_vec(&offered).ok()?;
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let name = format!("{}-{n}", std::process::id());
    let write = || -> io::Result<PathBuf> {
        fs::create_dir_all(folder)?;
        let scratch = folder.join(format!("{name}.tmp"));
        let path = folder.join(format!("{name}.req"));
        let mut f = fs::File::create(&scratch)?;
        f.write_all(&bytes)?;
        // Renamed whole into place, so a committer never reads half an offer.
        fs::rename(&scratch, &path)?;
        Ok(path)
    };
    write().ok().map(|path| Offer { path })
}

/// Takes every offer in `folder` but `own` (which is removed, since this process commits
/// it itself): each file is read, then removed. Called under the writer lock, so no other
/// committer takes the same offer.
pub fn take_others(folder: &Path, own: Option<&Path>) -> Vec<Group> {
    if let Some(own) = own {
        let _ = fs::remove_file(own);
    }
    let Ok(entries) = fs::read_dir(folder) else {
        return Vec::new();
    };
    let all: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    // A mark nobody will read (its server died before withdrawing its offer) is removed.
    for done in all
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x == "done"))
    {
        if offered_by(done).is_some_and(|pid| !alive(pid)) {
            let _ = fs::remove_file(done);
        }
    }
    let mut found: Vec<PathBuf> = all
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "req"))
        .collect();
    found.sort();
    found
        .into_iter()
        .filter_map(|path| {
            let group = read(&path);
            let _ = fs::remove_file(&path);
            group
        })
        .collect()
}

/// The pid an offer's file is named after (`PID-N.req`).
fn offered_by(path: &Path) -> Option<i32> {
    let stem = path.file_stem()?.to_str()?;
    stem.split('-').next()?.parse().ok()
}

/// Whether process `pid` exists (a signal 0 to it is not refused with ESRCH).
fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 sends nothing; it only checks that the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

fn read(path: &Path) -> Option<Group> {
    let mut bytes = Vec::new();
    fs::File::open(path)
        .ok()?
        .take(MAX_FILE)
        .read_to_end(&mut bytes)
        .ok()?;
    let o: Offered = serde_json::from_slice(&bytes).ok()?;
    let now = OffsetDateTime::from_unix_timestamp_nanos(o.at_ns).ok()?;
    Some(Group {
        path: path.to_path_buf(),
        ctx: Context {
            now,
            pid: o.pid,
            actor: o.actor,
            command: o.command,
        },
        adds: o
            .adds
            .into_iter()
            .map(|a| AddRequest {
                urls: a.urls,
                title: a.title,
                accessed: a.accessed,
                via: a.via,
                snapshot: None,
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(pid: u32) -> Context {
        Context {
            now: OffsetDateTime::from_unix_timestamp(1_700_000_000).unwrap(),
            pid,
            actor: Some("a".into()),
            command: vec!["cite".into(), "mcp".into()],
        }
    }

    #[test]
    fn an_offer_is_taken_once_by_another_and_never_by_its_maker() {
        let dir = tempfile::tempdir().unwrap();
        let spool = folder(&dir.path().join("l.redb"));
        assert_eq!(spool, dir.path().join(".l.redb.spool"));
        let req = AddRequest {
            urls: vec!["https://a.example".into()],
            title: Some("A".into()),
            ..Default::default()
        };
        let with_page = AddRequest {
            snapshot: Some("page".into()),
            ..req.clone()
        };
        assert!(offer(&spool, &ctx(7), std::slice::from_ref(&with_page)).is_none());
        let mine = offer(&spool, &ctx(7), &[req.clone(), with_page]).unwrap();
        let theirs = offer(&spool, &ctx(8), &[req]).unwrap();
        let taken = take_others(&spool, Some(theirs.path()));
        assert_eq!(taken.len(), 1);
        assert_eq!(taken[0].ctx.pid, 7);
        assert_eq!(
            taken[0].adds.len(),
            1,
            "the add with page text is not offered"
        );
        assert_eq!(taken[0].adds[0].title.as_deref(), Some("A"));
        assert!(!mine.path().exists() && !theirs.path().exists());
        assert!(take_others(&spool, None).is_empty());
    }

    #[test]
    fn a_spool_file_that_does_not_parse_is_removed_and_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let spool = folder(&dir.path().join("l.redb"));
        fs::create_dir_all(&spool).unwrap();
        fs::write(spool.join("1-0.req"), b"{not json").unwrap();
        assert!(take_others(&spool, None).is_empty());
        assert!(!spool.join("1-0.req").exists());
    }
}
