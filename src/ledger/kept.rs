//! A ledger a server keeps open: one store for the life of the process, and group commit.
//!
//! A CLI command opens the store, writes one transaction and closes it. A server (`cite
//! mcp`) answers many calls, often several at once (an agent's parallel tool calls), so
//! it keeps the store open ([`Store::open_kept`]: no lock held while idle, the writer lock
//! taken per write, so CLI writers and maintenance get in between) and commits the adds
//! that arrive together in one durable transaction: a committer thread takes every add
//! queued while the previous commit was syncing and registers them all in the next. Each
//! caller gets its answer only after the commit that holds it is durable.

use std::fmt;
use std::mem;
use std::ops::Deref;
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::Duration;

use super::{AddRequest, Added, Context, Error, Ledger, Result};
use crate::store::{Location, Store};

/// The store a writer uses for one operation: its own, or the one a server keeps.
pub(super) enum Writable<'a> {
    Own(Store),
    Kept(MutexGuard<'a, Option<Store>>),
}

impl Deref for Writable<'_> {
    type Target = Store;

    fn deref(&self) -> &Store {
        match self {
            Writable::Own(store) => store,
            Writable::Kept(slot) => slot.as_ref().expect("a kept store is open while lent"),
        }
    }
}

/// One add waiting for the next group commit.
struct Waiting {
    ctx: Context,
    req: AddRequest,
    answer: mpsc::Sender<Result<Added>>,
}

#[derive(Default)]
struct Queue {
    waiting: Vec<Waiting>,
    closing: bool,
}

pub(super) struct Kept {
    /// The open store; `None` until the first write, and again after a failure, so that
    /// the next write opens the file afresh.
    store: Mutex<Option<Store>>,
    queue: Mutex<Queue>,
    arrived: Condvar,
    committer: Mutex<Option<thread::JoinHandle<()>>>,
}

impl fmt::Debug for Kept {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Kept { .. }")
    }
}

impl Kept {
    /// The kept store, opened on first use, and again when the path names another file
    /// than the one open (a ledger moved into place: a restored backup).
    pub(super) fn store(&self, at: &Location, wait: Duration) -> Result<Writable<'_>> {
        let mut slot = self.store.lock().unwrap_or_else(|p| p.into_inner());
        if !slot.as_ref().is_some_and(Store::names_open_file) {
            *slot = None;
            *slot = Some(Store::open_kept(at, wait)?);
        }
        Ok(Writable::Kept(slot))
    }

    /// A read snapshot through the kept store, if it is open.
    pub(super) fn read(&self) -> Option<crate::store::Reader> {
        let slot = self.store.lock().unwrap_or_else(|p| p.into_inner());
        slot.as_ref().and_then(|s| s.read().ok())
    }

    /// Queues `req` for the next group commit and waits for its answer; `None` once the
    /// committer has stopped ([`Ledger::close_kept`]): the caller then writes it alone.
    pub(super) fn add(&self, ctx: &Context, req: AddRequest) -> Option<Result<Added>> {
        let (answer, answered) = mpsc::channel();
        {
            let mut queue = self.queue.lock().unwrap_or_else(|p| p.into_inner());
            if queue.closing {
                return None;
            }
            queue.waiting.push(Waiting {
                ctx: ctx.clone(),
                req,
                answer,
            });
        }
        self.arrived.notify_one();
        Some(
            answered
                .recv()
                .unwrap_or_else(|_| Err(Error::CommittedTogether("the committer stopped".into()))),
        )
    }

    /// The committer: waits for adds, takes all that are queued, writes them in one
    /// transaction, answers each. A failed write closes the store, so that the next one
    /// opens the file afresh (it may have been replaced, or repaired).
    fn run(self: Arc<Self>, ledger: Ledger) {
        loop {
            let batch = {
                let mut queue = self.queue.lock().unwrap_or_else(|p| p.into_inner());
                while queue.waiting.is_empty() && !queue.closing {
                    queue = self.arrived.wait(queue).unwrap_or_else(|p| p.into_inner());
                }
                if queue.waiting.is_empty() {
                    return;
                }
                mem::take(&mut queue.waiting)
            };
            let ctx = batch[0].ctx.clone();
            let (answers, reqs): (Vec<_>, Vec<_>) =
                batch.into_iter().map(|w| (w.answer, w.req)).unzip();
            // While another server holds the writer lock, these are offered to it first:
            // whichever commits next commits them too (`spool.rs`). With the lock free
            // there is no one to offer them to, and no file is written.
            let path = ledger.location.file();
            let folder = path.map(super::spool::folder);
            let watch = path.and_then(crate::store::lock::Watch::open);
            let offer = match (&folder, &watch) {
                (Some(folder), Some(watch)) if watch.busy() => {
                    super::spool::offer(folder, &ctx, &reqs)
                }
                _ => None,
            };
            let done = match (&offer, &watch) {
                (Some(offer), Some(watch)) => wait_for_others(&ledger, watch, offer),
                _ => false,
            };
            let on_disk = if done {
                ledger.answers_on_disk(&ctx, &reqs)
            } else {
                None
            };
            let results = on_disk.unwrap_or_else(|| {
                ledger.add_together(&ctx, reqs, folder.as_deref(), offer.as_ref())
            });
            drop(offer);
            if results.iter().any(|r| matches!(r, Err(Error::Store(_)))) {
                *self.store.lock().unwrap_or_else(|p| p.into_inner()) = None;
            }
            for (answer, result) in answers.into_iter().zip(results) {
                let _ = answer.send(result);
            }
        }
    }
}

/// How long a server watches for its offer to be committed by another before it waits
/// for its own turn: a turn is a millisecond or two, and a long hold (a rebuild) is
/// better waited for in the kernel than by polling.
const WATCH: Duration = Duration::from_millis(20);

/// While another process holds the writer lock, waits for it to commit this server's
/// offer; true once it has (the answers are then on disk), false as soon as the lock is
/// free or [`WATCH`] is over (this server then writes its adds itself).
fn wait_for_others(
    ledger: &Ledger,
    watch: &crate::store::lock::Watch,
    offer: &super::spool::Offer,
) -> bool {
    let deadline = std::time::Instant::now() + WATCH.min(ledger.wait);
    let mut pause = Duration::from_micros(20);
    loop {
        if offer.is_done() {
            return true;
        }
        if !watch.busy() || std::time::Instant::now() >= deadline {
            return false;
        }
        thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_micros(100));
    }
}

impl Ledger {
    /// A ledger for a server: the store is kept open between calls, and adds that arrive
    /// together are committed together (see the module comment). Call
    /// [`Ledger::close_kept`] when done, so that the store is closed cleanly.
    pub fn keep_open(&self) -> Ledger {
        let kept = Arc::new(Kept {
            store: Mutex::new(None),
            queue: Mutex::new(Queue::default()),
            arrived: Condvar::new(),
            committer: Mutex::new(None),
        });
        let ledger = Ledger {
            location: self.location.clone(),
            wait: self.wait,
            kept: Some(kept.clone()),
        };
        let committer = ledger.clone();
        let handle = thread::Builder::new()
            .name("cite-commit".into())
            .spawn(move || kept.clone().run(committer))
            .expect("spawn the committer thread");
        if let Some(kept) = &ledger.kept {
            *kept.committer.lock().unwrap_or_else(|p| p.into_inner()) = Some(handle);
        }
        ledger
    }

    /// Answers what is queued, stops the committer and closes the kept store. Later
    /// writes open it again.
    pub fn close_kept(&self) {
        let Some(kept) = &self.kept else { return };
        kept.queue.lock().unwrap_or_else(|p| p.into_inner()).closing = true;
        kept.arrived.notify_all();
        let committer = kept
            .committer
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(committer) = committer {
            let _ = committer.join();
        }
        *kept.store.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}
