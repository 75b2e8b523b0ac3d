//! What `cite report` gathers from a ledger view (issue 22): the draft's verification,
//! as `verify` makes it, and a card for each id the draft shows — the source, who
//! registered it and when, its quotes in their page's words and its page hashes — read
//! once per cited id, never per citation. The page itself is
//! [`cite_core::render::report`]'s.

use std::collections::BTreeMap;

use cite_core::draft::{self, Verification, VerifyOptions};
use cite_core::evidence;
use cite_core::model::{EntryOrigin, EventView};
use cite_core::render::report::{self, Card, QuoteInPage, Registered, Verdict};

use super::report::verify;
use crate::{Result, View};

/// How many characters of the page a quote is shown with, on each side.
const CONTEXT: usize = 240;

/// What a report is of, and how it is labelled.
pub struct Request<'a> {
    /// What the draft is called (its path, or `-`).
    pub name: &'a str,
    pub text: &'a str,
    /// The checks, as `verify` takes them.
    pub opts: VerifyOptions,
    /// Where the ledger is, as the reader named it.
    pub ledger: &'a str,
    /// When the report is made (RFC 3339).
    pub made: &'a str,
    /// The `verify` command whose verdict it shows.
    pub command: &'a str,
}

/// The report of `req.text` against `view`: the HTML page, the verification it shows,
/// and its verdict as the page counts it.
pub fn html(view: &View, req: &Request<'_>) -> Result<(String, Verification, Verdict)> {
    let verification = verify(view, req.text, &req.opts)?;
    let placed = draft::place(req.text);
    let mut cards: BTreeMap<u64, Card> = BTreeMap::new();
    for id in placed.marks.iter().flat_map(|m| m.kind.ids()) {
        if !cards.contains_key(id) {
            cards.insert(*id, card(view, *id)?);
        }
    }
    let page = report::Page {
        name: req.name,
        draft: req.text,
        placed: &placed,
        verification: &verification,
        cards: &cards,
        ledger: req.ledger,
        epoch: view.epoch().0,
        made: req.made,
        command: req.command,
        strict: req.opts.strict,
    };
    let (html, verdict) = report::html(&page);
    Ok((html, verification, verdict))
}

/// The card of source `id`: one read of the source and its history, and each page text
/// its quotes were found in, once.
fn card(view: &View, id: u64) -> Result<Card> {
    if view.brief(id)?.is_none() {
        return Ok(Card {
            id,
            other_epoch: view.other_epoch_with(id)?,
            ..Card::default()
        });
    }
    let detail = view.detail(id)?;
    let registered = detail
        .history
        .iter()
        .find_map(|e| match (&e.event, &e.origin) {
            (EventView::SourceAdded { .. } | EventView::Imported { .. }, EntryOrigin::Shown(o)) => {
                Some(Registered {
                    time: o.time.clone(),
                    actor: o.actor.clone(),
                    command: o.command.clone(),
                })
            }
            _ => None,
        });
    let mut pages: Vec<String> = detail.snapshots.clone();
    let mut quotes = Vec::with_capacity(detail.source.quotes.len());
    // The page texts read for this card, by hash: a source's quotes mostly share one.
    let mut read: Vec<(String, Option<String>)> = Vec::new();
    for q in &detail.source.quotes {
        let mut shown = QuoteInPage {
            number: q.number,
            added: q.added.clone(),
            exact: q.text.clone(),
            ..QuoteInPage::default()
        };
        if let (Some(hash), Some(sel)) = (&q.snapshot, &q.selector) {
            if !pages.contains(hash) {
                pages.push(hash.clone());
            }
            if !read.iter().any(|(h, _)| h == hash) {
                let text = match parse_hash(hash) {
                    Some(h) => view.snapshot(&h)?,
                    None => None,
                };
                read.push((hash.clone(), text));
            }
            let page = read
                .iter()
                .find(|(h, _)| h == hash)
                .and_then(|(_, t)| t.as_deref());
            if let Some((before, exact, after)) =
                page.and_then(|p| report::in_context(p, sel.start, sel.end, CONTEXT))
            {
                shown.before = before;
                // An elided quote spans the text it leaves out: its parts are shown, with
                // the ellipses, in the context of the passage.
                if !evidence::is_elided(&q.text, sel) {
                    shown.exact = exact;
                }
                shown.after = after;
                shown.page = Some(hash.clone());
            }
        }
        quotes.push(shown);
    }
    Ok(Card {
        id,
        source: Some(detail.source),
        other_epoch: None,
        registered,
        quotes,
        pages,
    })
}

/// A blake3 hash from its hex.
fn parse_hash(hex: &str) -> Option<cite_store::event::Hash> {
    let mut out = [0u8; 32];
    if hex.len() != 64 || !hex.is_ascii() {
        return None;
    }
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}
