//! `audit` and `rebuild`: the operations that replay the log.
//!
//! The store checks the hash chain and replays the log (see
//! [`store::replay`](cite_store::replay)); this layer adds what needs evidence
//! matching: every quote is found again in its stored snapshot, at the place its
//! selector says, and every snapshot still hashes to its key.

use std::panic::{self, AssertUnwindSafe};

use serde::Serialize;

use cite_core::evidence;
use cite_store::event::{self, Epoch, Hash};
use cite_store::finding::{Finding, Findings};
use cite_store::lock::LockMode;
use cite_store::tables::QuoteRow;
use cite_store::{Location, Reader, Store, StoreError};

use super::{Ledger, Result};

/// What `audit` checked and found. [`AuditReport::ok`] when nothing is wrong.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct AuditReport {
    pub ok: bool,
    /// Records in the log.
    pub records: u64,
    /// Hash of the last record, hex; `None` for an empty log.
    pub head: Option<String>,
    /// Epochs of the ledger (1 to the current one).
    pub epochs: u64,
    /// Sources over all epochs.
    pub sources: u64,
    /// Quotes over all epochs.
    pub quotes: u64,
    /// Quotes found again in their stored snapshots.
    pub quotes_rechecked: u64,
    /// Quotes imported from `sources.py` without page text: not re-checkable, and not
    /// a failure.
    pub quotes_without_snapshot: u64,
    /// Snapshots re-hashed against their keys.
    pub snapshots: u64,
    /// What is wrong, the first problem first.
    pub problems: Vec<Finding>,
    /// Problems found beyond those listed.
    pub problems_omitted: u64,
    /// What the audit did another way than usual, or could not do, and why: a check run
    /// on a copy in memory because no disk had room (left out when there is none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// What `rebuild` recomputed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Rebuilt {
    pub records: u64,
    pub epochs: u64,
    pub sources: u64,
    pub quotes: u64,
}

impl Ledger {
    /// Checks the whole ledger: that redb can verify and write (a copy of) the file, the
    /// hash chain to the stored head, every record, the stored views against a replay of
    /// the log, every quote against its snapshot, and every snapshot against its key.
    /// Writes nothing to the ledger. Fails only when another process keeps it busy past
    /// the wait; a store that cannot be read is a problem of the report, never a panic.
    pub fn audit(&self) -> Result<AuditReport> {
        let mut findings = Findings::default();
        let audited = panic::catch_unwind(AssertUnwindSafe(|| {
            let mut report = AuditReport::default();
            self.audit_into(&mut report, &mut findings).map(|()| report)
        }));
        let mut report = match audited {
            Ok(Ok(report)) => report,
            Ok(Err(busy)) => return Err(busy.into()),
            // redb's own message for an internal failure is a programmer's (an unwrap, an
            // unreachable): what the reader needs is where, and what to do.
            Err(_) => {
                findings.push(Finding::store(
                    "redb could not make sense of its pages: the file is damaged — restore the ledger from a backup",
                ));
                AuditReport::default()
            }
        };
        report.ok = findings.is_empty();
        report.problems = findings.kept;
        report.problems_omitted = findings.omitted;
        Ok(report)
    }

    fn audit_into(
        &self,
        report: &mut AuditReport,
        findings: &mut Findings,
    ) -> Result<(), StoreError> {
        let store = match Store::open_read(&self.location, self.wait) {
            Ok(Some(store)) => store,
            Ok(None) => {
                report.epochs = 1;
                return Ok(());
            }
            // Not the ledger's problem, so no finding of the audit: a wait that gave up, a
            // server out of reach or refusing the login, a database that is no ledger.
            Err(
                e @ (StoreError::Busy { .. }
                | StoreError::StoreBusy { .. }
                | StoreError::PgBusy { .. }
                | StoreError::PgLocked { .. }
                | StoreError::PgPermission { .. }
                | StoreError::PgUnreachable { .. }
                | StoreError::PgLost { .. }
                | StoreError::PgTls { .. }
                | StoreError::PgLogin { .. }
                | StoreError::PgNotALedger { .. }
                | StoreError::PgNewerSchema { .. }
                | StoreError::PgTransactionPooler { .. }),
            ) => return Err(e),
            Err(e) => {
                findings.push(store_problem(e));
                return Ok(());
            }
        };
        let checked = store.check_file()?;
        for f in checked.findings {
            findings.push(f);
        }
        report.notes.extend(checked.notes);
        // Dropped before the store: a read transaction outliving its database fails.
        let reader = match store.read() {
            Ok(r) => r,
            Err(e) => {
                findings.push(store_problem(e));
                return Ok(());
            }
        };
        let log = reader.audit_log();
        let r = log.replayed;
        report.records = r.records;
        report.head = r.head.map(|h| event::hex(&h.hash));
        report.epochs = r.epochs.max(1);
        report.sources = r.sources;
        report.quotes = r.quotes;
        report.notes.extend(log.notes);
        for f in log.findings.kept {
            findings.push(f);
        }
        findings.omitted += log.findings.omitted;
        if let Err(e) = check_evidence(&reader, report, findings) {
            findings.push(store_problem(e));
        }
        Ok(())
    }

    /// Recomputes every materialized table from the log under the exclusive
    /// maintenance lock, in one transaction. A ledger that does not exist yet is left
    /// uncreated.
    pub fn rebuild(&self) -> Result<Rebuilt> {
        match self.location.file().map(std::fs::metadata) {
            None => {}
            Some(Err(e)) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Rebuilt {
                    epochs: 1,
                    ..Rebuilt::default()
                });
            }
            Some(Ok(m)) if m.is_file() && m.len() == 0 => {
                return Ok(Rebuilt {
                    epochs: 1,
                    ..Rebuilt::default()
                });
            }
            Some(_) => {}
        }
        if let Location::Postgres(_) = &self.location
            && Store::open_read(&self.location, self.wait)?.is_none()
        {
            return Ok(Rebuilt {
                epochs: 1,
                ..Rebuilt::default()
            });
        }
        let store = Store::open_write(&self.location, LockMode::Maintenance, self.wait)?;
        let r = store.rebuild(self.wait)?;
        Ok(Rebuilt {
            records: r.records,
            epochs: r.epochs.max(1),
            sources: r.sources,
            quotes: r.quotes,
        })
    }
}

/// A store error as an audit problem, without the advice to run `cite audit`.
fn store_problem(e: StoreError) -> Finding {
    let mut text = e.to_string();
    if let Some(at) = text.find(" — run `cite audit`") {
        text.truncate(at);
    }
    Finding::store(text)
}

/// Re-hashes every snapshot, finds every quote again in its snapshot, and checks that
/// every snapshot a source names is stored.
fn check_evidence(
    reader: &Reader,
    report: &mut AuditReport,
    findings: &mut Findings,
) -> Result<(), StoreError> {
    check_snapshots(reader, report, findings)?;
    check_quotes(reader, report, findings)?;
    check_snapshots_named(reader, findings)
}

/// Each stored page text hashes to its key and is UTF-8.
fn check_snapshots(
    reader: &Reader,
    report: &mut AuditReport,
    findings: &mut Findings,
) -> Result<(), StoreError> {
    for item in reader.snapshot_entries()? {
        let (key, text) = item?;
        report.snapshots += 1;
        let actual = *blake3::hash(&text).as_bytes();
        let key_hex = event::hex_bytes(&key);
        if key.as_slice() != actual.as_slice() {
            findings.push(Finding::entry(
                "snapshots",
                key_hex,
                format!(
                    "its text does not hash to its key (blake3 of the text is {})",
                    event::hex(&actual)
                ),
            ));
        } else if std::str::from_utf8(&text).is_err() {
            findings.push(Finding::entry(
                "snapshots",
                key_hex,
                "its text is not UTF-8",
            ));
        }
    }
    Ok(())
}

/// Each quote is found again in its snapshot, where its selector says it is.
fn check_quotes(
    reader: &Reader,
    report: &mut AuditReport,
    findings: &mut Findings,
) -> Result<(), StoreError> {
    // Quotes of a source usually share its snapshot: keep the last one read.
    let mut page: Option<(Hash, Option<String>)> = None;
    for item in reader.quote_entries()? {
        let ((epoch, id, n), bytes) = item?;
        let at = format!("epoch {epoch}, id {id}, quote {n}");
        let row = match QuoteRow::decode(&bytes) {
            Ok(row) => row,
            Err(reason) => {
                findings.push(Finding::entry("quotes", at, reason));
                continue;
            }
        };
        let Some(hash) = row.snapshot else {
            report.quotes_without_snapshot += 1;
            continue;
        };
        report.quotes_rechecked += 1;
        if page.as_ref().is_none_or(|(h, _)| *h != hash) {
            match reader.snapshot(&hash) {
                Ok(text) => page = Some((hash, text)),
                Err(e) => {
                    findings.push(Finding::entry("quotes", at, store_problem(e).reason));
                    continue;
                }
            }
        }
        let Some((_, Some(text))) = &page else {
            findings.push(Finding::entry(
                "quotes",
                at,
                format!("its snapshot {} is missing", event::hex(&hash)),
            ));
            continue;
        };
        if let Some(reason) = misplaced_quote(&row, text, &hash) {
            findings.push(Finding::entry("quotes", at, reason));
        }
    }
    Ok(())
}

/// Why `row` is not where it says in `text` (its snapshot, `hash`), if it is not.
fn misplaced_quote(row: &QuoteRow, text: &str, hash: &Hash) -> Option<String> {
    let Some(found) = evidence::find(&row.text, text) else {
        return Some(format!(
            "the quote is not found in its snapshot {}",
            event::hex(hash)
        ));
    };
    let (start, end) = (found.start, found.end);
    if row.selector == Some(crate::text_quote(found)) {
        return None;
    }
    let stored = match &row.selector {
        Some(s) => format!("chars {}–{}", s.start, s.end),
        None => "none".to_string(),
    };
    Some(format!(
        "its stored selector ({stored}) is not where the quote sits in its snapshot (chars {start}–{end})"
    ))
}

/// Every page text a source names (`add --snapshot`) is stored.
fn check_snapshots_named(reader: &Reader, findings: &mut Findings) -> Result<(), StoreError> {
    let current = reader.epoch()?;
    for epoch in 1..=current.0 {
        for s in reader.sources(Epoch(epoch))? {
            let s = match s {
                Ok(s) => s,
                // Reported by the comparison with the replay.
                Err(StoreError::CorruptedEntry { .. }) => continue,
                Err(e) => return Err(e),
            };
            for hash in &s.row.snapshots {
                if !reader.has_snapshot(hash)? {
                    findings.push(Finding::entry(
                        "sources",
                        format!("epoch {epoch}, id {}", s.id.0),
                        format!("its snapshot {} is missing", event::hex(hash)),
                    ));
                }
            }
        }
    }
    Ok(())
}
