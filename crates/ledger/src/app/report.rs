//! What `render` and `verify` gather from a ledger view: the sources a Sources block
//! lists, and a draft's verification report. The CLI and the MCP server both call these,
//! so they select, check and report the same way.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};

use super::Failure;
use cite_core::draft::{self, Advice, CitedEvidence, LedgerFacts, Verification, VerifyOptions};
use cite_core::render::sources::{self, IdSet, Style};
use cite_core::support;

use crate::{Result, Source, View};
use cite_core::url::{canonical, canonicalize, twin};

/// What `render` says when the selection is empty.
pub const NOTHING_TO_RENDER: &str = "no sources to render";

/// `render`'s failure when the selection is empty: printed bare, as the reference does
/// (exit 1).
pub fn nothing_to_render() -> super::Failure {
    super::Failure::failed(NOTHING_TO_RENDER).without_prefix()
}

/// An id list a caller gave (`--only`, `only`), with the name the caller knows it by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Only {
    pub ids: IdSet,
    /// How the caller spells the flag or argument, for messages.
    pub name: &'static str,
}

impl Only {
    /// Parses `spec` (`1,3,5-7`), if given; a list that is not one is the caller's
    /// mistake, named by `name`.
    pub fn parse(
        spec: Option<&str>,
        name: &'static str,
    ) -> std::result::Result<Option<Only>, Failure> {
        spec.map(|spec| {
            IdSet::parse(spec)
                .map(|ids| Only { ids, name })
                .map_err(|e| Failure::usage(format!("{name}: {e}")))
        })
        .transpose()
    }
}

/// The ids a Sources block or an export takes, checked against the ledger: those a
/// draft cites (`cited`, the ids of [`draft::cited_ids`]), narrowed by `only`; else
/// those of `only`; else every id (`None`).
///
/// No id is dropped silently (issue 18): an id `only` names, or a cited one it keeps,
/// that the ledger lacks is a failure naming it, worded for `advice` (`ledger`: where
/// the ledger is). In the chat path (`render --only`, `render --cited-in -`) that is
/// the only check an id gets before the reader sees it.
pub fn selection(
    view: &View,
    only: Option<&Only>,
    cited: Option<&BTreeSet<u64>>,
    advice: Advice,
    ledger: &str,
) -> std::result::Result<Option<Vec<(u64, u64)>>, Failure> {
    let have = view.id_ranges()?;
    let known = |id: u64| {
        let i = have.partition_point(|&(_, hi)| hi < id);
        have.get(i).is_some_and(|&(lo, _)| lo <= id)
    };
    let only_ranges = only.map(|o| o.ids.ranges());
    let picked: Option<Vec<(u64, u64)>> = match (cited, &only_ranges) {
        (Some(cited), _) => Some(
            cited
                .iter()
                .filter(|&&id| only.is_none_or(|o| o.ids.contains(id)))
                .map(|&id| (id, id))
                .collect(),
        ),
        (None, Some(ranges)) => Some(ranges.clone()),
        (None, None) => None,
    };
    let mut problems: Vec<String> = Vec::new();
    let mut hints: Vec<String> = Vec::new();
    if cited.is_some() {
        let lacking: Vec<u64> = picked
            .iter()
            .flatten()
            .map(|&(id, _)| id)
            .filter(|&id| !known(id))
            .collect();
        if !lacking.is_empty() {
            problems.push(format!(
                "the draft cites {}{}, not in the ledger",
                draft::id_list(&lacking[..lacking.len().min(draft::LIST_AT_MOST)]),
                more(lacking.len())
            ));
            hints.push(format!("remove those citations, or {}", advice.register()));
        }
    }
    if let (Some(ranges), Some(Only { name, .. })) = (&only_ranges, only) {
        let lacking = without(ranges, &have);
        if !lacking.is_empty() {
            problems.push(format!(
                "{name} names {}, not in the ledger",
                draft::ranges_shown(&lacking, true)
            ));
            hints.push(format!("the ledger's ids are listed by {}", advice.list()));
        }
    }
    let failure = (!problems.is_empty()).then(|| {
        let mut f = Failure::failed(format!("{} (ledger: {ledger})", problems.join("; ")));
        f.hints = hints;
        f
    });
    match failure {
        Some(f) => Err(f),
        None => Ok(picked),
    }
}

/// ` and N more` past the first [`draft::LIST_AT_MOST`].
fn more(count: usize) -> String {
    if count > draft::LIST_AT_MOST {
        format!(" and {} more", count - draft::LIST_AT_MOST)
    } else {
        String::new()
    }
}

/// The parts of the sorted, merged `ranges` outside the sorted, disjoint `have`.
fn without(ranges: &[(u64, u64)], have: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    for &(lo, hi) in ranges {
        // The first id of `lo..=hi` not yet found in `have` or put in `out`.
        let mut start = lo;
        let mut covered = false;
        for &(a, b) in have {
            if b < start {
                continue;
            }
            if a > hi {
                break;
            }
            if a > start {
                out.push((start, a - 1));
            }
            if b >= hi {
                covered = true;
                break;
            }
            start = b + 1;
        }
        if !covered {
            out.push((start, hi));
        }
    }
    out
}

/// The sources of a [`selection`], in id order: reads only what is selected, so a few
/// ids of a large ledger are a few lookups.
pub fn select(view: &View, picked: Option<&[(u64, u64)]>) -> Result<Vec<Source>> {
    let mut out: Vec<Source> = Vec::new();
    match picked {
        Some(ranges) => {
            for &(lo, hi) in ranges {
                for s in view.sources_between(lo, hi)? {
                    out.push(s?);
                }
            }
        }
        None => {
            for s in view.sources()? {
                out.push(s?);
            }
        }
    }
    Ok(out)
}

/// The Sources block for a [`selection`], in `style`, with the sources it lists; empty
/// when nothing is selected.
pub fn block(
    view: &View,
    style: Style,
    picked: Option<&[(u64, u64)]>,
) -> Result<(Vec<Source>, String)> {
    let picked = select(view, picked)?;
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

/// Ids whose sources `verify` reads ahead at once.
const READ_AHEAD: usize = 1024;

/// Checks the draft `text` against `view` with `opts` (SPEC §2, `verify`).
pub fn verify(view: &View, text: &str, opts: &VerifyOptions) -> Result<Verification> {
    // With `--support`, the cited sentences too (slices of the draft, and their ids).
    let (summary, cited_sentences) = if opts.support {
        draft::summarize_cited(text)
    } else {
        (draft::summarize(text), Vec::new())
    };
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
    let mut ids = summary.cited.keys().copied().chain(listed);
    let mut ahead = 0usize;
    while let Some(id) = ids.next() {
        // Read ahead a chunk of ids at a time: one round trip for a chunk on a ledger
        // across a network, not one per id.
        if ahead == 0 {
            let mut chunk = vec![id];
            chunk.extend(ids.clone().take(READ_AHEAD - 1));
            ahead = chunk.len();
            view.prefetch(&chunk)?;
        }
        ahead -= 1;
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
        // Registered as `add` would find it (issue 19): under its canonical form, the
        // form a ledger written before holds, or the http/https twin of either.
        let Ok(forms) = canonical(url) else {
            continue;
        };
        let mut keys = vec![forms.url.clone()];
        keys.extend(forms.earlier.clone());
        keys.extend(twin(&forms.url));
        keys.extend(forms.earlier.as_deref().and_then(twin));
        let mut found = false;
        for key in &keys {
            if view.lookup(key)?.is_some() {
                found = true;
                break;
            }
        }
        if found {
            registered.insert(forms.url);
        }
    }
    let facts = Facts {
        by_id,
        registered,
        epochs,
        ranges: view.id_ranges()?,
        quoted: view.quoted_count()?,
    };
    let support = if opts.support {
        Some(support(view, &cited_sentences, &facts)?)
    } else {
        None
    };
    let report = draft::verify_with_support(&summary, &facts, opts, &normalize, support);

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

/// A page of a cited source, as the check will read it.
enum Stored {
    /// Page text in the store, read when the check asks for it.
    Snapshot(cite_store::event::Hash),
    /// The text of the source's quotes kept without page text.
    Quotes(String),
}

/// The pages of the cited sources, read from the view one at a time as the check asks
/// for them: a draft citing a hundred pages holds one of them at a time, not all.
struct StoredPages<'v> {
    view: &'v View,
    pages: Vec<Stored>,
    by_id: HashMap<u64, Vec<usize>>,
}

impl support::PageSource for StoredPages<'_> {
    type Error = crate::Error;

    fn pages_of(&self, id: u64) -> &[usize] {
        self.by_id.get(&id).map_or(&[], Vec::as_slice)
    }

    fn text(&mut self, n: usize) -> Result<Cow<'_, str>> {
        match &self.pages[n] {
            Stored::Quotes(text) => Ok(Cow::Borrowed(text)),
            Stored::Snapshot(hash) => {
                let text = self.view.snapshot(hash)?.ok_or_else(|| {
                    cite_store::StoreError::CorruptedEntry {
                        what: format!("snapshot {}", cite_store::event::hex(hash)),
                        reason: "a source names it, and it is missing from the snapshots table"
                            .into(),
                    }
                })?;
                Ok(Cow::Owned(text))
            }
        }
    }
}

/// `--support`: the page texts of the sources the cited sentences cite (each stored
/// text once, however many ids share it), checked by [`support::check`]. An id the
/// ledger lacks is left out: it fails the draft already, and has no page.
fn support(
    view: &View,
    sentences: &[draft::Sentence<'_>],
    facts: &Facts,
) -> Result<support::SupportReport> {
    let mut pages = StoredPages {
        view,
        pages: Vec::new(),
        by_id: HashMap::new(),
    };
    let mut by_hash: HashMap<cite_store::event::Hash, usize> = HashMap::new();
    let mut ids: Vec<Vec<u64>> = Vec::with_capacity(sentences.len());
    for s in sentences {
        let known: Vec<u64> = s
            .cited
            .iter()
            .copied()
            .filter(|&id| facts.by_id.contains_key(&id))
            .collect();
        for &id in &known {
            if pages.by_id.contains_key(&id) {
                continue;
            }
            let mut of = Vec::new();
            if let Some((hashes, quotes)) = view.page_texts(id)? {
                for hash in hashes {
                    let n = *by_hash.entry(hash).or_insert_with(|| {
                        pages.pages.push(Stored::Snapshot(hash));
                        pages.pages.len() - 1
                    });
                    of.push(n);
                }
                if !quotes.is_empty() {
                    pages.pages.push(Stored::Quotes(quotes.join("\n\n")));
                    of.push(pages.pages.len() - 1);
                }
            }
            pages.by_id.insert(id, of);
        }
        ids.push(known);
    }
    let cited: Vec<support::Cited<'_>> = sentences
        .iter()
        .zip(&ids)
        .filter(|(_, ids)| !ids.is_empty())
        .map(|(s, ids)| support::Cited {
            line: s.line,
            index: s.index,
            text: s.text,
            ids,
            header: s.header,
            tool: s.tool,
        })
        .collect();
    support::check(&cited, &mut pages)
}

#[cfg(test)]
mod tests {
    use super::without;

    #[test]
    fn ids_outside_the_ledger_are_found_as_ranges() {
        let have = [(1, 6), (9, 9)];
        assert_eq!(without(&[(5, 7)], &have), [(7, 7)]);
        assert_eq!(without(&[(1, 6)], &have), []);
        assert_eq!(without(&[(1, 12)], &have), [(7, 8), (10, 12)]);
        assert_eq!(without(&[(2, 3), (99, 99)], &have), [(99, 99)]);
        assert_eq!(without(&[(4, 4)], &[]), [(4, 4)]);
        assert_eq!(without(&[(1, u64::MAX)], &[(1, 3)]), [(4, u64::MAX)]);
    }
}
