//! One server commits for all the servers of a ledger file.
//!
//! Each stdio MCP client starts its own `cite mcp`, so four agents are four processes on
//! one file. Were each to commit its own adds, every commit would be a turn under the
//! writer lock, two syncs, and a reload of what the others committed since. Instead the
//! first server to write takes the ledger's lead (a lock on the sidecar, `Lead`) and
//! listens on a socket beside the ledger (`LEDGER.sock`); the others send it their adds,
//! and it registers them in its own group commits, each group under the origin of the
//! server that asked (`Writer::start_group`), so the log still names who asked. It
//! answers only once the commit holding them is durable, and the asking server answers
//! its client from that.
//!
//! Nothing relies on the lead for correctness. A server that cannot reach it, whose
//! request fails there, whose ask it does not take within [`TAKEN`], or that gets no
//! answer within its `--wait`, writes its adds itself with the time it has left; an add of URLs another committed meanwhile changes
//! nothing and is answered with the ids on disk. The lead's lock is the kernel's: it goes
//! with its holder, so a killed lead is replaced by the next server that writes, which
//! removes the dead one's socket (only ever a socket) before it listens.
//!
//! Only processes of the same user are served or trusted (the peer's credentials are
//! checked on both ends), and the socket is made private to its owner.
//!
//! Servers of one PostgreSQL ledger on one machine share a lead the same way: they meet
//! in a folder private to their user ([`meeting_point`]), and the lead's commits carry
//! the adds of them all. Each commit takes the database's writer lock on its own, so
//! servers on other machines (with leads of their own) and CLI writers go in between,
//! and a commit of many adds costs the same round trips as one.

use std::collections::HashMap;
use std::fs;
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::{AddRequest, Added, Context};
use cite_store::Location;
use cite_store::lock::Lead;

/// A request or an answer larger than this is refused (a page text is at most the MCP
/// line limit, well below it).
const MAX_FRAME: usize = 64 << 20;

/// The most servers the lead serves at once, a thread each. Another that connects is hung
/// up on and writes alone, as where there is no lead: connections (any process of this
/// user can open them) cannot make the lead hold a thread each.
const MAX_FOLLOWERS: usize = 32;

/// How long the lead keeps a connection that sends no ask; its server, when it writes
/// again, finds that out and connects anew (or writes alone).
const IDLE: Duration = Duration::from_secs(60);

/// How long the lead waits for a server to read its answer.
const READ_BY: Duration = Duration::from_secs(10);

/// What this server is to the other servers of its ledger.
pub(super) enum Role {
    /// Not known yet, or the lead was lost: found out at the next write.
    Unknown,
    /// It commits for the others (held for as long as it does: dropping it lets go).
    Leading(#[allow(dead_code)] Leading),
    /// It sends its adds to the lead, over this connection.
    Following(UnixStream),
    /// It writes its own adds: the ledger is not a local file, or no lead can listen.
    Alone,
    /// It writes its own adds until then: the lead did not take its last ask.
    Apart(Instant),
}

/// Adds of one process, asked of the lead.
#[derive(Serialize, Deserialize)]
struct Ask {
    /// When the asker stops waiting for the answer, on the machine's monotonic clock
    /// (nanoseconds; one clock for every process): the lead gives the write up by then,
    /// and does not start it after.
    until_ns: u64,
    /// Who asked: the origin its adds are written under.
    at_ns: i128,
    pid: u32,
    actor: Option<String>,
    command: Vec<String>,
    adds: Vec<AddRequest>,
}

/// One answer per add asked: `None` for an add the lead did not register (refused, or
/// its commit failed); the asker writes those itself, and gets its own error.
type Answer = Vec<Option<Added>>;

/// What a lead writes its followers' adds with: the server's kept store. A trait, so
/// that the lead (which the kept store elects and asks) does not name it back.
pub(super) trait Commit: Send + Sync {
    /// Registers each request under its own context in durable group commits, before
    /// `deadline`; `None` when the store is closing and wrote none of them.
    fn add_many(
        &self,
        items: Vec<(Context, AddRequest)>,
        deadline: Option<Instant>,
    ) -> Option<Vec<super::Result<Added>>>;
}

/// Where the servers of `location` on this machine meet: the ledger file itself (its
/// sidecar and socket beside it), or for a PostgreSQL ledger a name in a folder only this
/// user may use ([`private_folder`]): `pg-` and a hash of the URL without its password,
/// so that servers of the same database, schema and role meet, and no others. `None`
/// where no such folder can be had (then every server writes alone).
pub(super) fn meeting_point(location: &Location) -> Option<PathBuf> {
    match location {
        Location::File(path) => Some(path.clone()),
        Location::Postgres(target) => {
            let hash = blake3::hash(target.to_string().as_bytes());
            let name = format!("pg-{}", &hash.to_hex()[..32]);
            Some(private_folder()?.join(name))
        }
    }
}

/// `$XDG_RUNTIME_DIR/cite`, else `/tmp/cite-UID`: see [`first_private`].
fn private_folder() -> Option<PathBuf> {
    let uid = rustix::process::geteuid().as_raw();
    let runtime = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|r| r.is_absolute())
        .map(|r| r.join("cite"));
    first_private(
        runtime
            .into_iter()
            .chain([PathBuf::from(format!("/tmp/cite-{uid}"))]),
        uid,
    )
}

/// The first of `folders` that is, or can be made, a folder of user `uid` that no one
/// else may enter (made with mode 0700 when missing; not a link): another user can then
/// neither listen in the lead's place nor remove its socket. A runtime folder that is
/// missing or shared is passed over, not trusted.
fn first_private(folders: impl IntoIterator<Item = PathBuf>, uid: u32) -> Option<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    folders.into_iter().find(|folder| {
        let _ = fs::DirBuilder::new().mode(0o700).create(folder);
        fs::symlink_metadata(folder)
            .is_ok_and(|m| m.is_dir() && m.uid() == uid && m.mode() & 0o077 == 0)
    })
}

/// Finds out what this server is for the ledger met at `ledger` ([`meeting_point`]): the
/// lead if it is free (then it listens for the others), else a follower of the one that
/// holds it. `Unknown` when the lead is held but cannot be reached (it is starting, or has
/// just died).
pub(super) fn elect(ledger: &Path, kept: &Arc<dyn Commit>) -> Role {
    let socket = Lead::socket_path(ledger);
    if let Some(lead) = Lead::try_take(ledger) {
        return match Leading::listen(lead, socket, kept) {
            Some(leading) => Role::Leading(leading),
            None => Role::Alone,
        };
    }
    match at_socket(&socket, |p| UnixStream::connect(p)) {
        Ok(stream) if same_user(&stream) => Role::Following(stream),
        _ => Role::Unknown,
    }
}

/// Sends `items` (all of this process) to the lead and waits for its answer, one entry
/// per item: [`TAKEN`] for the lead to take the ask, and in all at most `wait`. An error
/// leaves the connection unusable.
pub(super) fn ask(
    stream: &UnixStream,
    items: &[(Context, AddRequest)],
    wait: Duration,
) -> Result<Answer, Unanswered> {
    let Some((ctx, _)) = items.first() else {
        return Ok(Vec::new());
    };
    let wait = wait.max(Duration::from_millis(1));
    let deadline = Instant::now() + wait;
    // The lead gives the write up a little before this server stops listening, so that
    // its answer, whatever it is, arrives in time.
    let lead_wait = wait - (wait / 4).min(ANSWERED);
    let ask = Ask {
        until_ns: monotonic_ns()
            .saturating_add(u64::try_from(lead_wait.as_nanos()).unwrap_or(u64::MAX)),
        at_ns: ctx.now.unix_timestamp_nanos(),
        pid: ctx.pid,
        actor: ctx.actor.clone(),
        command: ctx.command.clone(),
        adds: items.iter().map(|(_, a)| a.clone()).collect(),
    };
    let lost = |_| Unanswered::Lost;
    stream.set_write_timeout(Some(wait)).map_err(lost)?;
    let frame = serde_json::to_vec(&ask).map_err(|_| Unanswered::Lost)?;
    write_frame(stream, &frame).map_err(lost)?;
    // A lead that is alive takes the ask at once; one that does not (stopped, or starved)
    // is not waited for.
    stream
        .set_read_timeout(Some(TAKEN.min(wait)))
        .map_err(lost)?;
    let mut taken = [0u8; 1];
    match (&*stream).read_exact(&mut taken) {
        Ok(()) if taken == [TAKEN_BYTE] => {}
        Ok(()) => return Err(Unanswered::Lost),
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            return Err(Unanswered::Unresponsive);
        }
        Err(_) => return Err(Unanswered::Lost),
    }
    // Taken, it is written or given up by `until_ns`, and answered before `deadline`.
    let left = deadline.saturating_duration_since(Instant::now());
    stream
        .set_read_timeout(Some(left.max(Duration::from_millis(1))))
        .map_err(lost)?;
    let answer: Answer = read_frame(stream)
        .ok()
        .and_then(|frame| serde_json::from_slice(&frame).ok())
        .ok_or(Unanswered::Lost)?;
    if answer.len() != items.len() {
        return Err(Unanswered::Lost);
    }
    Ok(answer)
}

/// Why the lead did not answer an ask.
pub(super) enum Unanswered {
    /// It did not take the ask within [`TAKEN`]: it is stopped or starved.
    Unresponsive,
    /// The connection failed, or the lead hung up (it stopped, or died).
    Lost,
}

/// How long a server waits for the lead to take its ask before it writes its adds
/// itself: the lead's listener only reads a socket to take it, so only a lead that is
/// stopped or starved of CPU takes longer.
const TAKEN: Duration = Duration::from_millis(250);

/// The part of its `--wait` (at most a quarter) a server keeps for the lead's answer to
/// reach it: the lead gives the write up that much earlier.
const ANSWERED: Duration = Duration::from_secs(1);

/// The byte a lead sends when it has taken an ask.
const TAKEN_BYTE: u8 = b'+';

/// How long a server whose lead did not take its ask writes alone before it looks for
/// the lead again.
pub(super) const APART: Duration = Duration::from_secs(5);

/// The lead, listening: dropping it stops the listener, closes every follower's
/// connection (they then write alone, or elect another lead), removes the socket and
/// lets go of the lead.
pub(super) struct Leading {
    socket: PathBuf,
    stop: Arc<AtomicBool>,
    followers: Arc<Followers>,
    // Dropped last: the socket is gone before another can take the lead.
    _lead: Lead,
}

impl Leading {
    fn listen(lead: Lead, socket: PathBuf, kept: &Arc<dyn Commit>) -> Option<Leading> {
        // A socket left by a lead that died is removed; anything else at that path is
        // someone's file, and is left alone (then there is no lead).
        match fs::symlink_metadata(&socket) {
            Ok(m) if m.file_type().is_socket() => fs::remove_file(&socket).ok()?,
            Ok(_) => return None,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(_) => return None,
        }
        let listener = at_socket(&socket, |p| UnixListener::bind(p)).ok()?;
        if fs::set_permissions(&socket, fs::Permissions::from_mode(0o600)).is_err() {
            let _ = fs::remove_file(&socket);
            return None;
        }
        let stop = Arc::new(AtomicBool::new(false));
        let followers = Arc::new(Followers::default());
        {
            let (stop, followers, kept) = (stop.clone(), followers.clone(), kept.clone());
            let spawned = thread::Builder::new()
                .name("cite-lead".into())
                .spawn(move || accept(listener, &stop, &followers, &kept));
            if spawned.is_err() {
                let _ = fs::remove_file(&socket);
                return None;
            }
        }
        Some(Leading {
            socket,
            stop,
            followers,
            _lead: lead,
        })
    }
}

impl Drop for Leading {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the listener from `accept`, to see the stop (not waited for: should the
        // socket be gone, it stays blocked, harmlessly, until the process ends).
        let _ = at_socket(&self.socket, |p| UnixStream::connect(p));
        for (_, follower) in self.followers.take_all() {
            let _ = follower.shutdown(std::net::Shutdown::Both);
        }
        if fs::symlink_metadata(&self.socket).is_ok_and(|m| m.file_type().is_socket()) {
            let _ = fs::remove_file(&self.socket);
        }
    }
}

/// The connections of the servers following, so that a lead that stops can hang up on
/// each (they then look for another lead).
#[derive(Default)]
struct Followers {
    open: Mutex<(u64, HashMap<u64, UnixStream>)>,
}

impl Followers {
    /// Keeps a copy of `stream`, unless [`MAX_FOLLOWERS`] are served already.
    fn add(&self, stream: &UnixStream) -> Option<u64> {
        let copy = stream.try_clone().ok()?;
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if open.1.len() >= MAX_FOLLOWERS {
            return None;
        }
        open.0 += 1;
        let key = open.0;
        open.1.insert(key, copy);
        Some(key)
    }

    fn remove(&self, key: u64) {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        open.1.remove(&key);
    }

    fn take_all(&self) -> HashMap<u64, UnixStream> {
        std::mem::take(&mut self.open.lock().unwrap_or_else(|p| p.into_inner()).1)
    }
}

fn accept(
    listener: UnixListener,
    stop: &AtomicBool,
    followers: &Arc<Followers>,
    kept: &Arc<dyn Commit>,
) {
    for stream in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else {
            // Out of descriptors, say: not retried at once, so as not to spin.
            thread::sleep(Duration::from_millis(10));
            continue;
        };
        if !same_user(&stream) {
            continue;
        }
        let Some(key) = followers.add(&stream) else {
            continue;
        };
        let (kept, serving) = (kept.clone(), followers.clone());
        let spawned = thread::Builder::new()
            .name("cite-lead-follower".into())
            .spawn(move || {
                serve(&stream, kept.as_ref());
                serving.remove(key);
                let _ = stream.shutdown(std::net::Shutdown::Both);
            });
        if spawned.is_err() {
            // No thread for it: its copy goes too, so the connection closes and its
            // server writes alone.
            followers.remove(key);
        }
    }
}

/// Answers one follower's asks until it hangs up, sends what is not an ask, or the lead
/// stops.
fn serve(stream: &UnixStream, kept: &dyn Commit) {
    if stream.set_read_timeout(Some(IDLE)).is_err()
        || stream.set_write_timeout(Some(READ_BY)).is_err()
    {
        return;
    }
    while let Ok(frame) = read_frame(stream) {
        let Ok(ask) = serde_json::from_slice::<Ask>(&frame) else {
            return;
        };
        let Ok(now) = OffsetDateTime::from_unix_timestamp_nanos(ask.at_ns) else {
            return;
        };
        let ctx = Context {
            now,
            pid: ask.pid,
            actor: ask.actor,
            command: ask.command,
        };
        if { stream }.write_all(&[TAKEN_BYTE]).is_err() {
            return;
        }
        let n = ask.adds.len();
        let items = ask.adds.into_iter().map(|req| (ctx.clone(), req)).collect();
        let left = Duration::from_nanos(ask.until_ns.saturating_sub(monotonic_ns()));
        let deadline = Instant::now().checked_add(left);
        let (answer, stopping): (Answer, bool) = if left.is_zero() {
            // Taken too late (this lead was stopped, or starved): the asker has written
            // them itself, or reported them failed.
            (vec![None; n], false)
        } else {
            match kept.add_many(items, deadline) {
                Some(results) => (results.into_iter().map(Result::ok).collect(), false),
                None => (vec![None; n], true),
            }
        };
        let Ok(bytes) = serde_json::to_vec(&answer) else {
            return;
        };
        // A lead that is stopping answers what it was asked (nothing registered: the
        // follower writes it) and hangs up, so the follower looks for another.
        if write_frame(stream, &bytes).is_err() || stopping {
            return;
        }
    }
}

fn write_frame(mut stream: impl Write, bytes: &[u8]) -> io::Result<()> {
    if bytes.len() > MAX_FRAME {
        return Err(io::Error::other("a request too large for the lead"));
    }
    let mut out = Vec::with_capacity(4 + bytes.len());
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(bytes);
    stream.write_all(&out)
}

fn read_frame(mut stream: impl Read) -> io::Result<Vec<u8>> {
    let mut len = [0u8; 4];
    stream.read_exact(&mut len)?;
    let len = u32::from_le_bytes(len) as usize;
    if len > MAX_FRAME {
        return Err(io::Error::other("a frame over the limit"));
    }
    let mut bytes = vec![0u8; len];
    stream.read_exact(&mut bytes)?;
    Ok(bytes)
}

/// Runs `f` (a bind or a connect) on the socket path `socket`. A socket address holds at
/// most 107 bytes of path, and a ledger may sit deeper than that: then the path is made
/// short through the folder's descriptor (Linux: `/proc/self/fd/N/NAME` reaches the
/// same file).
fn at_socket<T>(socket: &Path, f: impl FnOnce(&Path) -> io::Result<T>) -> io::Result<T> {
    const ROOM: usize = 100;
    if socket.as_os_str().len() < ROOM {
        return f(socket);
    }
    let (Some(folder), Some(name)) = (socket.parent(), socket.file_name()) else {
        return f(socket);
    };
    let folder = match folder.as_os_str().is_empty() {
        true => Path::new("."),
        false => folder,
    };
    let dir = fs::File::open(folder)?;
    let mut short = PathBuf::from(format!("/proc/self/fd/{}", dir.as_raw_fd()));
    short.push(name);
    f(&short)
}

/// Whether the process at the other end runs as this process's user (Linux: the
/// kernel's record of the peer, `SO_PEERCRED`; elsewhere the socket's mode is all there
/// is). Through rustix, so that no unsafe code is needed.
fn same_user(stream: &UnixStream) -> bool {
    #[cfg(target_os = "linux")]
    {
        rustix::net::sockopt::socket_peercred(stream)
            .is_ok_and(|cred| cred.uid == rustix::process::geteuid())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = stream;
        true
    }
}

/// The machine's monotonic clock (`CLOCK_MONOTONIC`), in nanoseconds: comparable between
/// processes, unlike an `Instant`, and never set back, unlike the wall clock.
fn monotonic_ns() -> u64 {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    (now.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(now.tv_nsec as u64)
}

/// What is left of `wait` since `start`.
pub(super) fn left(wait: Duration, start: Instant) -> Duration {
    wait.saturating_sub(start.elapsed())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_meet_only_in_a_folder_of_their_own_user_that_no_one_else_may_enter() {
        use std::os::unix::fs::PermissionsExt;
        let uid = rustix::process::geteuid().as_raw();
        let tmp = tempfile::tempdir().unwrap();
        let fresh = tmp.path().join("fresh");
        assert_eq!(first_private([fresh.clone()], uid), Some(fresh.clone()));
        let mode = fs::metadata(&fresh).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700, "made private");
        let shared = tmp.path().join("shared");
        fs::create_dir(&shared).unwrap();
        fs::set_permissions(&shared, fs::Permissions::from_mode(0o755)).unwrap();
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&fresh, &link).unwrap();
        let missing_parent = tmp.path().join("no/such/runtime/cite");
        // Each unsafe or unusable one is passed over for the next.
        for bad in [&shared, &link, &missing_parent] {
            assert_eq!(
                first_private([bad.clone(), fresh.clone()], uid),
                Some(fresh.clone()),
                "{}",
                bad.display()
            );
        }
        assert_eq!(first_private([shared.clone()], uid), None);
        // Another user's folder is not this one's.
        assert_eq!(first_private([fresh.clone()], uid + 1), None);
    }

    #[test]
    fn a_postgres_ledger_meets_at_a_hash_of_its_url_without_the_password() {
        let at = |url: &str| {
            let location = Location::parse(std::ffi::OsStr::new(url)).unwrap();
            meeting_point(&location)
                .and_then(|p| p.file_name()?.to_str().map(String::from))
                .unwrap()
        };
        let a = at("postgres://cite:one@db.example/research");
        assert!(a.starts_with("pg-") && a.len() == 35, "{a}");
        assert!(!a.contains("research") && !a.contains("one"), "{a}");
        assert_eq!(a, at("postgres://cite:two@db.example/research"));
        assert_ne!(a, at("postgres://cite@db.example/research?schema=team_a"));
        assert_ne!(a, at("postgres://other@db.example/research"));
    }

    #[test]
    fn a_frame_reads_back_whole_and_one_over_the_limit_is_refused_unread() {
        let mut wire = Vec::new();
        write_frame(&mut wire, b"{\"a\":1}").unwrap();
        assert_eq!(read_frame(&wire[..]).unwrap(), b"{\"a\":1}");
        // A length past the limit is refused before anything is allocated for it.
        let huge = ((MAX_FRAME + 1) as u32).to_le_bytes();
        assert!(read_frame(&huge[..]).is_err());
        // A frame cut short is an error, not a short read.
        assert!(read_frame(&wire[..wire.len() - 1]).is_err());
        assert!(write_frame(&mut Vec::new(), &vec![0u8; MAX_FRAME + 1]).is_err());
    }
}
