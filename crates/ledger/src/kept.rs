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
use std::time::{Duration, Instant};

use super::lead::{self, Role, Unanswered};
use super::{AddRequest, Added, Context, Error, Ledger, Result};
use cite_store::{Location, Store};

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
    /// When the asker stops waiting (another server's `--wait`): the commit holding this
    /// add gives up by then, so that an add its asker reported failed is never written.
    deadline: Option<Instant>,
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
    /// The store reads go through, for a backend that keeps connections (PostgreSQL): a
    /// read then reuses a connection, no login per call. `None` until the first read that
    /// finds a ledger.
    reads: Mutex<Option<Store>>,
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

    /// A store to read from: a handle on the one kept for reads where the backend keeps
    /// connections, else one opened for this read (`None`: no ledger there yet).
    pub(super) fn read_store(&self, at: &Location, wait: Duration) -> Result<Option<Store>> {
        let mut slot = self.reads.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(shared) = slot.as_ref().and_then(Store::share) {
            return Ok(Some(shared));
        }
        let Some(store) = Store::open_read(at, wait)? else {
            return Ok(None);
        };
        match store.share() {
            Some(shared) => {
                *slot = Some(store);
                Ok(Some(shared))
            }
            None => Ok(Some(store)),
        }
    }

    /// Queues `req` for the next group commit and waits for its answer; `None` once the
    /// committer has stopped ([`Ledger::close_kept`]): the caller then writes it alone.
    pub(super) fn add(&self, ctx: &Context, req: AddRequest) -> Option<Result<Added>> {
        self.add_many_kept(vec![(ctx.clone(), req)], None)
            .and_then(|mut answers| answers.pop())
    }

    /// Queues `items` together (so they go in one commit, given up by `deadline`) and
    /// waits for their answers, one per item; `None` once the committer has stopped.
    fn add_many_kept(
        &self,
        items: Vec<(Context, AddRequest)>,
        deadline: Option<Instant>,
    ) -> Option<Vec<Result<Added>>> {
        let mut answered = Vec::with_capacity(items.len());
        {
            let mut queue = self.queue.lock().unwrap_or_else(|p| p.into_inner());
            if queue.closing {
                return None;
            }
            for (ctx, req) in items {
                let (answer, rx) = mpsc::channel();
                queue.waiting.push(Waiting {
                    ctx,
                    req,
                    deadline,
                    answer,
                });
                answered.push(rx);
            }
        }
        self.arrived.notify_one();
        Some(
            answered
                .into_iter()
                .map(|rx| {
                    rx.recv().unwrap_or_else(|_| {
                        Err(Error::CommittedTogether("the committer stopped".into()))
                    })
                })
                .collect(),
        )
    }

    /// The committer: waits for adds, takes all that are queued, has them written in one
    /// transaction (by this process, or by the lead of the ledger's servers: `lead.rs`),
    /// answers each. A failed write closes the store, so that the next one opens the
    /// file afresh (it may have been replaced, or repaired).
    fn run(self: Arc<Self>, ledger: Ledger) {
        let meets = lead::meeting_point(&ledger.location);
        let mut role = match &meets {
            Some(_) => Role::Unknown,
            None => Role::Alone,
        };
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
            // Given up by the earliest asker's deadline: another server stops waiting then.
            let wait = match batch.iter().filter_map(|w| w.deadline).min() {
                Some(deadline) => ledger
                    .wait
                    .min(deadline.saturating_duration_since(Instant::now())),
                None => ledger.wait,
            };
            let (answers, items): (Vec<_>, Vec<_>) = batch
                .into_iter()
                .map(|w| (w.answer, (w.ctx, w.req)))
                .unzip();
            let this_batch = Ledger {
                wait,
                ..ledger.clone()
            };
            let results = self.commit(&this_batch, meets.as_deref(), &mut role, items);
            if results.iter().any(|r| matches!(r, Err(Error::Store(_)))) {
                *self.store.lock().unwrap_or_else(|p| p.into_inner()) = None;
            }
            for (answer, result) in answers.into_iter().zip(results) {
                let _ = answer.send(result);
            }
        }
    }

    /// Writes `items`: through the lead when another server holds it, else here. What
    /// the lead did not register is written here, within what is left of `--wait`.
    fn commit(
        self: &Arc<Self>,
        ledger: &Ledger,
        meets: Option<&std::path::Path>,
        role: &mut Role,
        items: Vec<(Context, AddRequest)>,
    ) -> Vec<Result<Added>> {
        let start = Instant::now();
        if let Role::Apart(until) = role
            && start >= *until
        {
            *role = Role::Unknown;
        }
        if let (Role::Unknown, Some(path)) = (&role, meets) {
            let commit: Arc<dyn lead::Commit> = self.clone();
            *role = lead::elect(path, &commit);
        }
        let Role::Following(stream) = role else {
            return ledger.add_together(&items);
        };
        // Only this process's own adds are sent: the lead never forwards.
        let answer = match lead::ask(stream, &items, ledger.wait) {
            Ok(answer) => answer,
            Err(unanswered) => {
                *role = match unanswered {
                    Unanswered::Unresponsive => Role::Apart(start + lead::APART),
                    Unanswered::Lost => Role::Unknown,
                };
                vec![None; items.len()]
            }
        };
        let mut results: Vec<Option<Result<Added>>> =
            answer.into_iter().map(|a| a.map(Ok)).collect();
        let rest: Vec<(Context, AddRequest)> = items
            .into_iter()
            .zip(&results)
            .filter(|(_, r)| r.is_none())
            .map(|(item, _)| item)
            .collect();
        if !rest.is_empty() {
            let alone = Ledger {
                wait: lead::left(ledger.wait, start),
                ..ledger.clone()
            };
            let mut written = alone.add_together(&rest).into_iter();
            for slot in results.iter_mut().filter(|r| r.is_none()) {
                *slot = written.next();
            }
        }
        results
            .into_iter()
            .map(|r| r.expect("every add has an answer"))
            .collect()
    }
}

impl Ledger {
    /// A ledger for a server: the store is kept open between calls, and adds that arrive
    /// together are committed together (see the module comment). Call
    /// [`Ledger::close_kept`] when done, so that the store is closed cleanly.
    pub fn keep_open(&self) -> Ledger {
        let kept = Arc::new(Kept {
            store: Mutex::new(None),
            reads: Mutex::new(None),
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

impl lead::Commit for Kept {
    fn add_many(
        &self,
        items: Vec<(Context, AddRequest)>,
        deadline: Option<Instant>,
    ) -> Option<Vec<Result<Added>>> {
        self.add_many_kept(items, deadline)
    }
}
