//! The sidecar lock (`LEDGER.lock`): writers one at a time, bounded waits, and maintenance
//! that is never starved.
//!
//! Every process that writes a ledger (or maintains it: rebuild, import, migration, the
//! consistent copy `audit` takes) holds this lock exclusively from before it asks redb for
//! anything until after it has closed the store. So a stopped or slow writer is met here,
//! where every wait has a deadline and the holder can be named, not inside redb's own
//! blocking file locks. Readers take no sidecar lock: redb gives them a snapshot, and
//! every change is one transaction.
//!
//! Two locks live on the one sidecar file, in separate kernel namespaces:
//! - the **writer lock**, an `flock`: exclusive for writers and maintenance alike. The
//!   kernel lists its holder's pid in `/proc/locks`, which is how `ledger busy` names it;
//!   nothing is ever written into the file.
//! - the **turnstile** (Linux), an open-file-description byte-range lock on byte 0: a
//!   maintenance command holds it while it waits, and writers do not start while it is
//!   held. Writers' turns are short but back to back; without it a maintenance command
//!   that polls the writer lock may never find it free.
//!
//! Both are dropped by the kernel when their holder dies, so there is no stale lock and
//! nothing is ever stolen. The file is opened without following a symbolic link, must be a
//! regular file, and is never truncated or written: a lock path that points at someone's
//! file cannot damage it.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

// std's file locks (Rust 1.89): `flock(2)` on Unix, as fs4's were, so a lock taken by an
// older cite excludes a newer one and the other way round.
use std::fs::TryLockError;

use super::StoreError;

pub use crate::LockMode;

/// A held sidecar lock; released when dropped (or when the process dies).
#[derive(Debug)]
pub struct LedgerLock {
    file: File,
    mode: LockMode,
}

impl LedgerLock {
    pub fn mode(&self) -> LockMode {
        self.mode
    }
}

impl Drop for LedgerLock {
    fn drop(&mut self) {
        // Closing the file releases both locks anyway; unlocking first makes the release
        // immediate even if a duplicate descriptor is still open somewhere.
        let _ = self.file.unlock();
        if self.mode == LockMode::Maintenance {
            let _ = turnstile::release(&self.file);
        }
    }
}

/// The sidecar path of a ledger: the ledger's path with `.lock` appended. A ledger path
/// that is a symbolic link is resolved first, so that every spelling of one ledger
/// meets at one lock.
pub fn lock_path(ledger: &Path) -> PathBuf {
    let is_link = std::fs::symlink_metadata(ledger).is_ok_and(|m| m.file_type().is_symlink());
    let resolved = match is_link {
        true => std::fs::canonicalize(ledger).ok(),
        false => None,
    };
    let mut os = resolved.as_deref().unwrap_or(ledger).as_os_str().to_owned();
    os.push(".lock");
    PathBuf::from(os)
}

/// Takes the lock on `ledger`'s sidecar in `mode`, waiting at most `wait`.
pub fn acquire(ledger: &Path, mode: LockMode, wait: Duration) -> Result<LedgerLock, StoreError> {
    let path = lock_path(ledger);
    let file = open_sidecar(ledger, &path)?;
    let deadline = Instant::now() + wait;
    let io_err = |source| StoreError::Io {
        action: "lock",
        path: path.clone(),
        source,
    };
    let busy = |file: &File| StoreError::Busy {
        path: ledger.to_path_buf(),
        holders: holders(file),
        maintenance_waiting: mode == LockMode::Write && turnstile::is_held(file).unwrap_or(false),
        waited: wait,
    };
    if mode == LockMode::Maintenance {
        // One maintenance command at a time passes the turnstile; holding it keeps new
        // writers out while the current one finishes.
        let mut backoff = Backoff::new();
        while !turnstile::try_enter(&file).map_err(io_err)? {
            if !backoff.pause(deadline) {
                return Err(busy(&file));
            }
        }
    } else if turnstile::is_held(&file).map_err(io_err)? {
        // A maintenance command is waiting: let it go first.
        let mut backoff = Backoff::new();
        while turnstile::is_held(&file).map_err(io_err)? {
            if !backoff.pause(deadline) {
                return Err(busy(&file));
            }
        }
    }
    match wait_for_turn(&file, deadline) {
        Ok(true) => Ok(LedgerLock { file, mode }),
        outcome => {
            let err = match outcome {
                Err(source) => io_err(source),
                _ => busy(&file),
            };
            if mode == LockMode::Maintenance {
                let _ = turnstile::release(&file);
            }
            Err(err)
        }
    }
}

/// Takes the writer lock on `file` (an exclusive `flock`), waiting until `deadline`;
/// false when the deadline passed first.
///
/// The wait is the kernel's, not a poll: when the holder lets go, a waiter blocked in
/// `flock` is woken at once, where a poller would sleep out its backoff while the lock
/// sits free (an idle gap once per turn, which many writers pay over and over). `flock`
/// has no timeout, so a helper thread blocks in it, on a duplicate of the descriptor (the
/// lock belongs to the open file both share), and this thread waits for it with the
/// deadline. A helper that gets the lock after its waiter gave up finds no one to hand
/// it to and drops its descriptor, the last one of that open file once the waiter has
/// dropped its own, which releases the lock; one whose holder never lets go stays
/// blocked, harmlessly, until the process ends.
fn wait_for_turn(file: &File, deadline: Instant) -> io::Result<bool> {
    match file.try_lock() {
        Ok(()) => return Ok(true),
        Err(TryLockError::WouldBlock) => {}
        Err(TryLockError::Error(e)) => return Err(e),
    }
    let now = Instant::now();
    if now >= deadline {
        return Ok(false);
    }
    let waiter = file.try_clone()?;
    let (tx, rx) = mpsc::sync_channel(1);
    thread::Builder::new()
        .name("cite-lock-wait".into())
        .spawn(move || {
            let got = waiter.lock();
            // Fails only when the waiter has gone; `waiter` is dropped either way.
            let _ = tx.send(got);
        })?;
    match rx.recv_timeout(deadline - now) {
        Ok(got) => got.map(|()| true),
        // The helper may have taken the lock just as the wait ended: then it is ours.
        Err(_) => Ok(matches!(rx.try_recv(), Ok(Ok(())))),
    }
}

/// Short sleeps between polls, growing to a small cap: a turn is a few milliseconds, and
/// a poller that sleeps long loses every race to those that sleep short.
pub(crate) struct Backoff {
    pause: Duration,
}

impl Backoff {
    const FIRST: Duration = Duration::from_micros(50);
    const CAP: Duration = Duration::from_millis(2);

    pub(crate) fn new() -> Backoff {
        Backoff { pause: Self::FIRST }
    }

    /// Sleeps before the next try; false when `deadline` has passed.
    pub(crate) fn pause(&mut self, deadline: Instant) -> bool {
        let now = Instant::now();
        if now >= deadline {
            return false;
        }
        thread::sleep(self.pause.min(deadline - now));
        self.pause = (self.pause * 2).min(Self::CAP);
        true
    }
}

/// What a path that is not a regular file is, for messages.
pub fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a folder";
    }
    if t.is_symlink() {
        return "a symbolic link";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

/// Opens (creating if needed) the sidecar at `path`: never through a symbolic link, never
/// anything but a regular file, never truncated. Read-only when the file is not writable
/// for this user: a lock needs no write access.
fn open_sidecar(ledger: &Path, path: &Path) -> Result<File, StoreError> {
    let refuse = |kind: &str| StoreError::LockFile {
        path: path.to_path_buf(),
        kind: kind.to_string(),
    };
    // Looked at first so that a FIFO or a device is never even opened.
    match std::fs::symlink_metadata(path) {
        Ok(m) if !m.file_type().is_file() => return Err(refuse(file_kind(&m))),
        _ => {}
    }
    let mut opts = OpenOptions::new();
    opts.read(true).write(true).create(true).truncate(false);
    no_follow(&mut opts);
    // Made for its owner alone, then opened up to those who may write the ledger: never
    // a moment when another user could open it (a descriptor, once open, outlives any
    // later chmod).
    owner_only(&mut opts);
    // Never a read-only descriptor: `flock` takes no notice of how a file was opened, so
    // a lock file anyone may read is a lock anyone may hold.
    let file = match opts.open(path) {
        Ok(f) => f,
        Err(e) if is_symlink_refusal(&e) => return Err(refuse("a symbolic link")),
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied && path.exists() => {
            return Err(StoreError::LockFileNotWritable {
                path: path.to_path_buf(),
            });
        }
        Err(source) => {
            return Err(StoreError::Io {
                action: "open the lock file",
                path: path.to_path_buf(),
                source,
            });
        }
    };
    // Checked again on what was opened: the path may have been swapped meanwhile.
    let meta = file.metadata().map_err(|source| StoreError::Io {
        action: "inspect the lock file",
        path: path.to_path_buf(),
        source,
    })?;
    if !meta.file_type().is_file() {
        return Err(refuse(file_kind(&meta)));
    }
    fit_mode(&file, &meta, ledger);
    Ok(file)
}

/// Gives the lock file read and write for each class of user that may write the ledger
/// (by its mode, or, before it exists, by the mode it will be made with), and nothing for
/// the others. Only its owner can change it; anyone else leaves it as it is.
#[cfg(unix)]
fn fit_mode(file: &File, meta: &std::fs::Metadata, ledger: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let ledger_mode = match std::fs::metadata(ledger) {
        Ok(m) => m.permissions().mode(),
        Err(_) => 0o666 & !umask().unwrap_or(0o077),
    };
    let want = [0o200, 0o020, 0o002]
        .iter()
        .filter(|w| ledger_mode & *w != 0)
        .fold(0o600, |m, w| m | w | (w << 1));
    if meta.permissions().mode() & 0o777 != want {
        // Refused to anyone but the owner (and root): then the owner's next write fits it.
        let _ = file.set_permissions(std::fs::Permissions::from_mode(want));
    }
}

#[cfg(not(unix))]
fn fit_mode(_: &File, _: &std::fs::Metadata, _: &Path) {}

/// This process's umask, as Linux reports it (`Umask:` in `/proc/self/status`), without
/// changing it; `None` where that is not available.
fn umask() -> Option<u32> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix("Umask:"))?;
    u32::from_str_radix(line.trim(), 8).ok()
}

#[cfg(unix)]
fn owner_only(opts: &mut OpenOptions) {
    use std::os::unix::fs::OpenOptionsExt;
    opts.mode(0o600);
}

#[cfg(not(unix))]
fn owner_only(_: &mut OpenOptions) {}

#[cfg(unix)]
fn no_follow(opts: &mut OpenOptions) {
    use std::os::unix::fs::OpenOptionsExt;
    // O_NONBLOCK: a FIFO swapped in after the check above must not block the open.
    opts.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC);
}

#[cfg(not(unix))]
fn no_follow(_: &mut OpenOptions) {}

fn is_symlink_refusal(e: &io::Error) -> bool {
    #[cfg(unix)]
    {
        e.raw_os_error() == Some(libc::ELOOP)
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

/// The pids holding the writer lock on `file`, as the kernel lists them (Linux); empty
/// where that list is not available.
fn holders(file: &File) -> Vec<u32> {
    lock_holders(file, &["FLOCK"])
}

/// The pids holding any lock on the file at `path` whose holder the kernel names
/// (`flock` and POSIX locks; an OFD lock has no pid): who keeps redb from opening it.
pub(crate) fn file_holders(path: &Path) -> Vec<u32> {
    match File::open(path) {
        Ok(file) => lock_holders(&file, &["FLOCK", "POSIX"]),
        Err(_) => Vec::new(),
    }
}

/// The pids of the locks of `kinds` (`/proc/locks`' second field) held on `file`.
fn lock_holders(file: &File, kinds: &[&str]) -> Vec<u32> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::MetadataExt;
        let Ok(meta) = file.metadata() else {
            return Vec::new();
        };
        let Ok(locks) = std::fs::read_to_string("/proc/locks") else {
            return Vec::new();
        };
        let dev = meta.dev();
        // The kernel's own split of a dev_t (glibc's gnu_dev_major/minor).
        let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
        let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
        let want = format!("{major:02x}:{minor:02x}:{}", meta.ino());
        let mut pids: Vec<u32> = locks
            .lines()
            .filter_map(|line| {
                // `1: FLOCK  ADVISORY  WRITE 1234 fe:00:5678 0 EOF`; waiting requests
                // carry `->` and hold nothing.
                let fields: Vec<&str> = line.split_whitespace().collect();
                match fields.as_slice() {
                    [_, kind, _, _, pid, id, ..] if *id == want && kinds.contains(kind) => {
                        pid.parse().ok()
                    }
                    _ => None,
                }
            })
            .collect();
        pids.sort_unstable();
        pids.dedup();
        pids
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (file, kinds);
        Vec::new()
    }
}

/// OFD byte-range locks on single bytes of the sidecar, in a kernel namespace apart from
/// the `flock` writer lock. Byte 0 is the turnstile; byte 1 is the lead (`Lead`). OFD
/// locks belong to the open file, like `flock`, so two stores in one process exclude each
/// other as two processes do.
#[cfg(target_os = "linux")]
mod ofd {
    use std::fs::File;
    use std::io;
    use std::os::fd::AsRawFd;

    fn request(kind: libc::c_int, byte: libc::off_t) -> libc::flock {
        // SAFETY: `flock` is plain data; all-zero is a valid value of it.
        let mut fl: libc::flock = unsafe { std::mem::zeroed() };
        fl.l_type = kind as libc::c_short;
        fl.l_whence = libc::SEEK_SET as libc::c_short;
        fl.l_start = byte;
        fl.l_len = 1;
        fl
    }

    /// Takes byte `byte` exclusively; false when another open file holds it.
    pub fn try_take(file: &File, byte: libc::off_t) -> io::Result<bool> {
        let mut fl = request(libc::F_WRLCK, byte);
        // SAFETY: a valid descriptor and a pointer to a live `flock`.
        let r = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_OFD_SETLK, &mut fl) };
        if r == 0 {
            return Ok(true);
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EAGAIN) | Some(libc::EACCES) => Ok(false),
            _ => Err(e),
        }
    }

    pub fn release(file: &File, byte: libc::off_t) -> io::Result<()> {
        let mut fl = request(libc::F_UNLCK, byte);
        // SAFETY: as above.
        let r = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_OFD_SETLK, &mut fl) };
        if r == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }

    /// Whether another open file holds byte `byte`.
    pub fn is_held(file: &File, byte: libc::off_t) -> io::Result<bool> {
        // A read lock would conflict only with another's write lock.
        let mut fl = request(libc::F_RDLCK, byte);
        // SAFETY: as above; F_OFD_GETLK fills `fl` in.
        let r = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_OFD_GETLK, &mut fl) };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(fl.l_type != libc::F_UNLCK as libc::c_short)
    }
}

/// The turnstile: byte 0. A maintenance command holds it while it waits for the writer
/// lock, and writers do not start while it is held.
mod turnstile {
    use std::fs::File;
    use std::io;

    #[cfg(target_os = "linux")]
    pub fn try_enter(file: &File) -> io::Result<bool> {
        super::ofd::try_take(file, 0)
    }

    #[cfg(target_os = "linux")]
    pub fn release(file: &File) -> io::Result<()> {
        super::ofd::release(file, 0)
    }

    #[cfg(target_os = "linux")]
    pub fn is_held(file: &File) -> io::Result<bool> {
        super::ofd::is_held(file, 0)
    }

    // Without OFD locks there is no turnstile: maintenance competes for the writer lock
    // like any writer.
    #[cfg(not(target_os = "linux"))]
    pub fn try_enter(_: &File) -> io::Result<bool> {
        Ok(true)
    }

    #[cfg(not(target_os = "linux"))]
    pub fn release(_: &File) -> io::Result<()> {
        Ok(())
    }

    #[cfg(not(target_os = "linux"))]
    pub fn is_held(_: &File) -> io::Result<bool> {
        Ok(false)
    }
}

/// The lead of a ledger's servers: byte 1 of the sidecar, held by one `cite mcp` process
/// for as long as it commits for the others (`ledger/lead.rs`). Released when dropped or
/// when the process dies, so a lead is never stale and never taken from its holder.
pub struct Lead {
    // Held, not read: the lock is this open file's, and goes when it is closed.
    _file: File,
}

impl Lead {
    /// The lead, if no other process holds it; `None` also where there are no OFD locks,
    /// or the sidecar cannot be opened for writing (then every server writes alone).
    pub fn try_take(ledger: &Path) -> Option<Lead> {
        #[cfg(target_os = "linux")]
        {
            let file = open_sidecar(ledger, &lock_path(ledger)).ok()?;
            matches!(ofd::try_take(&file, 1), Ok(true)).then_some(Lead { _file: file })
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = ledger;
            None
        }
    }

    /// Where the lead listens for the other servers: the sidecar's path with `.sock` for
    /// `.lock`, so every spelling of one ledger meets at one socket.
    pub fn socket_path(ledger: &Path) -> PathBuf {
        lock_path(ledger).with_extension("sock")
    }
}
