//! What `render` and `verify` gather from a ledger view: the sources a Sources block
//! lists, and a draft's verification report. The CLI and the MCP server both call these,
//! so they select, check and report the same way.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::draft::{self, CitedEvidence, LedgerFacts, Verification, VerifyOptions};
use crate::render::sources::{self, IdSet, Style};

use crate::ledger::url::canonicalize;
use crate::ledger::{Error, Result, Source, View};

/// What `render` says when the selection is empty.
pub const NOTHING_TO_RENDER: &str = "no sources to render";

/// `render`'s failure when the selection is empty: printed bare, as the reference does
/// (exit 1).
pub fn nothing_to_render() -> super::Failure {
    super::Failure::failed(NOTHING_TO_RENDER).without_prefix()
}

/// The sources a Sources block lists, in id order: those cited in a draft (`cited`, the
/// ids of [`draft::cited_ids`]) when given, else those in `only`, else all; `only`
/// narrows `cited` too. Cited ids missing from the ledger are left out.
///
/// Reads only what is selected: a few ids of a large ledger are a few lookups.
pub fn select(
    view: &View,
    only: Option<&IdSet>,
    cited: Option<&BTreeSet<u64>>,
) -> Result<Vec<Source>> {
    let mut picked: Vec<Source> = Vec::new();
    match (cited, only) {
        (Some(cited), _) => {
            for &id in cited {
                if only.is_none_or(|o| o.contains(id)) {
                    match view.source(id) {
                        Ok(s) => picked.push(s),
                        Err(Error::UnknownSource(_)) => {}
                        Err(e) => return Err(e),
                    }
                }
            }
        }
        (None, Some(only)) => {
            for (lo, hi) in only.ranges() {
                for s in view.sources_between(lo, hi)? {
                    picked.push(s?);
                }
            }
        }
        (None, None) => {
            for s in view.sources()? {
                picked.push(s?);
            }
        }
    }
    Ok(picked)
}

/// The Sources block for the selection of [`select`], in `style`; empty when nothing
/// is selected.
pub fn block(
    view: &View,
    style: Style,
    only: Option<&IdSet>,
    cited: Option<&BTreeSet<u64>>,
) -> Result<(Vec<Source>, String)> {
    let picked = select(view, only, cited)?;
    let block = sources::block(&picked, style);
    Ok((picked, block))
}

/// What verification needs to know of the ledger, read up front for the ids and URLs
/// the draft mentions only: a small draft against a large ledger reads a few rows, not
/// all.
struct Facts {
    /// URL and quote count of each id the draft cites or lists, when it is in the ledger.
    by_id: HashMap<u64, (String, u64)>,
    /// The canonical URLs the draft shows with no id that the ledger has.
    registered: HashSet<String>,
    /// For ids cited but missing: the newest other epoch that has them.
    epochs: HashMap<u64, u64>,
    ranges: Vec<(u64, u64)>,
    quoted: u64,
}

impl LedgerFacts for Facts {
    fn url(&self, id: u64) -> Option<String> {
        self.by_id.get(&id).map(|(u, _)| u.clone())
    }
    fn has_quotes(&self, id: u64) -> bool {
        self.by_id.get(&id).is_some_and(|&(_, q)| q > 0)
    }
    fn id_ranges(&self) -> Vec<(u64, u64)> {
        self.ranges.clone()
    }
    fn quoted_count(&self) -> usize {
        self.quoted as usize
    }
    fn registered(&self, url: &str) -> bool {
        self.registered.contains(url)
    }
    fn epoch_of(&self, id: u64) -> Option<u64> {
        self.epochs.get(&id).copied()
    }
}

/// Checks the draft `text` against `view` with `opts` (SPEC §2, `verify`).
pub fn verify(view: &View, text: &str, opts: &VerifyOptions) -> Result<Verification> {
    let summary = draft::summarize(text);
    // A Sources block can list millions of ids: a sorted list of them costs 8 bytes each.
    let mut listed: Vec<u64> = summary
        .block
        .iter()
        .flat_map(|b| b.entries.iter())
        .chain(&summary.listed)
        .map(|e| e.id)
        .collect();
    listed.sort_unstable();
    listed.dedup();
    let mut by_id = HashMap::new();
    let mut epochs = HashMap::new();
    for id in summary.cited.keys().copied().chain(listed) {
        if by_id.contains_key(&id) {
            continue;
        }
        match view.brief(id)? {
            Some(brief) => {
                by_id.insert(id, brief);
            }
            // Only the first few missing ids are named in the report.
            None if epochs.len() < draft::LIST_AT_MOST && summary.cited.contains_key(&id) => {
                if let Some(epoch) = view.other_epoch_with(id)? {
                    epochs.insert(id, epoch);
                }
            }
            None => {}
        }
    }
    let normalize = |u: &str| canonicalize(u).unwrap_or_else(|_| u.to_string());
    let mut registered = HashSet::new();
    for url in summary.urls.keys() {
        let canonical = normalize(url);
        if view.lookup(&canonical)?.is_some() {
            registered.insert(canonical);
        }
    }
    let facts = Facts {
        by_id,
        registered,
        epochs,
        ranges: view.id_ranges()?,
        quoted: view.quoted_count()?,
    };
    let report = draft::verify_summary(&summary, &facts, opts, &normalize);

    // For each cited source, its quotes: what `--evidence` names.
    let mut evidence = Vec::new();
    if opts.evidence {
        // The summary already holds the cited ids: no second pass over the draft.
        for &id in summary.cited.keys() {
            if facts.has_quotes(id) {
                let quotes = view.source(id)?.quotes.into_iter().map(|q| q.text);
                evidence.push(CitedEvidence {
                    id,
                    quotes: quotes.collect(),
                });
            }
        }
    }
    Ok(Verification {
        report,
        with_evidence: opts.evidence,
        evidence,
    })
}
