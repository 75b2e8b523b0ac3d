//! `cite report`: a draft and the chain behind it as one self-contained HTML page
//! (issue 22) — the draft as a reader sees it, each sentence marked by what `verify`
//! found for it, each citation a link to its source's card, and a card per cited source
//! with its quotes shown in their page's words.
//!
//! Pure: the ledger gathers the values ([`Card`], the [`Verification`]) and this turns
//! them into text. The Markdown is read by pulldown-cmark; the sentences and markers are
//! placed by [`draft::place`], the same walk `verify` makes, so the page marks exactly
//! the sentences and citations `verify` counts.
//!
//! Everything that comes from outside (the draft, titles, URLs, quotes, page text) is
//! hostile: all of it is escaped; the draft's own HTML is shown as text; only `http`,
//! `https` and `mailto` URLs become links; images are not loaded (a link to them is
//! shown instead). The page loads nothing: no script, and a Content-Security-Policy that
//! forbids every fetch but inline styles and `data:` images.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use pulldown_cmark::{CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

use crate::draft::{self, About, Finding, MarkKind, Placed, Sentence, Verification};
use crate::model::Source;
use crate::support::SentenceSupport;

/// The page's policy: nothing is fetched, nothing runs.
pub const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/// What a page is made of, gathered by the ledger.
pub struct Page<'a> {
    /// What the draft is called (its path, or `-`).
    pub name: &'a str,
    pub draft: &'a str,
    /// The draft's sentences and markers, placed ([`draft::place`]).
    pub placed: &'a Placed<'a>,
    pub verification: &'a Verification,
    /// A card for each id the draft shows, in id order.
    pub cards: &'a BTreeMap<u64, Card>,
    /// Where the ledger is, and its epoch.
    pub ledger: &'a str,
    pub epoch: u64,
    /// When the page was made (RFC 3339).
    pub made: &'a str,
    /// The `verify` command whose verdict the page shows.
    pub command: &'a str,
    /// Judged as `verify --strict` judges: what fails it is marked failing.
    pub strict: bool,
}

/// One cited source, as its card shows it.
#[derive(Debug, Clone, Default)]
pub struct Card {
    pub id: u64,
    /// `None` when the ledger's epoch has no such id.
    pub source: Option<Source>,
    /// For a missing id: the newest other epoch that has it.
    pub other_epoch: Option<u64>,
    /// Who registered it, and when (the log's record of its `add`).
    pub registered: Option<Registered>,
    /// Its live quotes, each in its page's words.
    pub quotes: Vec<QuoteInPage>,
    /// The blake3 hashes (hex) of its stored page texts.
    pub pages: Vec<String>,
}

/// The origin of the record that registered a source.
#[derive(Debug, Clone, Default)]
pub struct Registered {
    pub time: String,
    pub actor: Option<String>,
    pub command: Vec<String>,
}

/// A quote with the passage around it in the stored page text.
#[derive(Debug, Clone, Default)]
pub struct QuoteInPage {
    pub number: u64,
    pub added: String,
    /// The page's words before the quote (empty when no page text is stored).
    pub before: String,
    /// The quote as the page has it (else as attached).
    pub exact: String,
    pub after: String,
    /// The hash of the page text it was found in, when one is stored.
    pub page: Option<String>,
}

/// What `verify` found for one sentence (or table row that cites), as the page marks
/// it. Each has an icon, a word, a colour and an underline of its own, so that colour is
/// never the only signal; the first four are the states of a cited sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// Cited, its pages read, and every figure, date and quoted phrase in it on one of
    /// them (or none in it to check).
    Supported,
    /// Cited, and nothing of it checked: no cited source has page text, or the report
    /// was made without the support check.
    Unchecked,
    /// A warning concerns it: a name no cited page uses, a citation glued to a word, a
    /// malformed or spaced marker, too many citations.
    Warned,
    /// What fails `verify` is in it: an id the ledger lacks, a figure, date or quoted
    /// phrase none of its pages has; under `--strict`, every warning and every cited
    /// sentence left unchecked too.
    Failing,
    Tool,
    Policy,
    Unverified,
    /// No marker at all.
    None,
}

impl Status {
    pub const ALL: [Status; 8] = [
        Status::Supported,
        Status::Unchecked,
        Status::Warned,
        Status::Failing,
        Status::Tool,
        Status::Policy,
        Status::Unverified,
        Status::None,
    ];

    /// The `data-status` value and CSS class suffix.
    pub fn key(self) -> &'static str {
        match self {
            Status::Supported => "supported",
            Status::Unchecked => "unchecked",
            Status::Warned => "warned",
            Status::Failing => "failing",
            Status::Tool => "tool",
            Status::Policy => "policy",
            Status::Unverified => "unverified",
            Status::None => "none",
        }
    }

    fn icon(self) -> &'static str {
        match self {
            Status::Supported => "✔",
            Status::Unchecked => "☐",
            Status::Warned => "⚠",
            Status::Failing => "✗",
            Status::Tool => "⚙",
            Status::Policy => "§",
            Status::Unverified => "?",
            Status::None => "○",
        }
    }

    /// The word shown with the icon.
    fn label(self) -> &'static str {
        match self {
            Status::Supported => "supported",
            Status::Unchecked => "unchecked",
            Status::Warned => "warned",
            Status::Failing => "failing",
            Status::Tool => "tool",
            Status::Policy => "policy",
            Status::Unverified => "unverified",
            Status::None => "no marker",
        }
    }

    fn meaning(self, strict: bool) -> &'static str {
        match self {
            Status::Supported => {
                "cited, and every figure, date and quoted phrase in it is on a page it cites (\"checked: nothing to check\" when its pages were read and it has none)"
            }
            Status::Unchecked => {
                "cited, but nothing in it was checked: no cited source has page text (or the report was made with --no-support)"
            }
            Status::Warned => {
                "a warning concerns it: a name no cited page uses, a citation glued to a word, a malformed or spaced marker, more than 3 citations"
            }
            Status::Failing if strict => {
                "it fails verify --strict: an id the ledger lacks, a figure, date or quoted phrase none of its pages has, a warning, or no page text to check it against"
            }
            Status::Failing => {
                "it fails verify: an id the ledger lacks, or a figure, date or quoted phrase none of its pages has"
            }
            Status::Tool => "marked [tool:…] only: checked by running a tool",
            Status::Policy => "marked [policy]: a statement of policy, not a factual claim",
            Status::Unverified => "marked [unverified]: from model knowledge, not sourced",
            Status::None => "no marker: the reader cannot tell where it comes from",
        }
    }
}

/// A sentence with its status, the reason shown with it, and its anchor.
struct Marked {
    /// Its number (its `index`).
    index: usize,
    start: usize,
    end: usize,
    status: Status,
    why: String,
    anchor: String,
}

/// The verdict a report shows: whether the draft passes `verify`, and what fails it,
/// counted as the page marks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    pub passed: bool,
    /// Sentences (and table rows) marked failing.
    pub failing_sentences: usize,
    /// Failures about the draft as a whole, no sentence's: a missing Sources block,
    /// coverage, an entry the ledger lacks, and under `--strict` the draft's warnings.
    pub draft_failures: usize,
}

impl std::fmt::Display for Verdict {
    /// `citations OK`, or `verification failed: 5 failing sentence(s) and 2 failure(s)
    /// of the draft as a whole`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.passed {
            return f.write_str("citations OK");
        }
        f.write_str("verification failed: ")?;
        let sentences = format!("{} failing sentence(s)", self.failing_sentences);
        let draft = format!("{} failure(s) of the draft as a whole", self.draft_failures);
        match (self.failing_sentences, self.draft_failures) {
            (_, 0) => f.write_str(&sentences),
            (0, _) => f.write_str(&draft),
            _ => write!(f, "{sentences} and {draft}"),
        }
    }
}

/// Whether `f` is a failure of the draft as a whole, not of sentences it names (which
/// the page marks failing instead).
fn of_the_draft(f: &Finding) -> bool {
    f.sentences.is_empty() || f.about == About::Listed
}

/// The page, as one HTML document, and the verdict it shows.
pub fn html(page: &Page<'_>) -> (String, Verdict) {
    let draft = page.draft;
    let placed = page.placed;
    let marked = mark_sentences(page, &placed.sentences);
    let r = &page.verification.report;
    let verdict = Verdict {
        passed: page.verification.passed(),
        failing_sentences: marked
            .iter()
            .filter(|m| m.status == Status::Failing)
            .count(),
        draft_failures: r.errors.iter().filter(|f| of_the_draft(f)).count(),
    };
    // Where a finding goes: its sentences, else the first sentence on its line.
    let mut by_line: HashMap<usize, &str> = HashMap::new();
    let mut by_index: HashMap<usize, (usize, &str)> = HashMap::new();
    for (m, (_, s)) in marked.iter().zip(&placed.sentences) {
        by_line.entry(s.line).or_insert(&m.anchor);
        by_index.insert(s.index, (s.line, &m.anchor));
    }
    // Where each id is cited, for the card's back links.
    let mut cited_at: BTreeMap<u64, Vec<&str>> = BTreeMap::new();
    {
        let mut si = 0;
        for mark in &placed.marks {
            while si < marked.len() && marked[si].end <= mark.start {
                si += 1;
            }
            let anchor = marked
                .get(si)
                .filter(|m| m.start <= mark.start)
                .or_else(|| si.checked_sub(1).and_then(|i| marked.get(i)))
                .map(|m| m.anchor.as_str());
            for &id in mark.kind.ids() {
                let at = cited_at.entry(id).or_default();
                if let Some(a) = anchor
                    && at.last() != Some(&a)
                {
                    at.push(a);
                }
            }
        }
    }
    let previews: HashMap<u64, String> = page.cards.values().map(|c| (c.id, preview(c))).collect();

    let mut out = String::with_capacity(draft.len() * 2 + 16 * 1024);
    head(&mut out, page);
    summary(&mut out, page, &verdict, &marked, &by_line, &by_index);
    out.push_str("<main>\n<article class=\"draft\" aria-label=\"The draft\">\n");
    let body = &draft[placed.front_end..placed.tail.max(placed.front_end)];
    body_html(
        &mut out,
        body,
        placed.front_end,
        &placed.marks,
        &marked,
        &previews,
        page.cards,
    );
    out.push_str("</article>\n");
    cards(&mut out, page.cards, &cited_at);
    out.push_str("</main>\n");
    let _ = write!(
        out,
        "<footer><p>Made by <code>cite report</code> from the ledger {} (epoch {}) at {}. \
         This file loads nothing from the network (Content-Security-Policy: <code>{}</code>).</p></footer>\n</body>\n</html>\n",
        esc(page.ledger),
        page.epoch,
        esc(page.made),
        esc(CSP)
    );
    (out, verdict)
}

/// What the findings say of each sentence, by its number: whether an error or a warning
/// names it as at fault, and the messages to show with it.
#[derive(Default)]
struct Said<'f> {
    error: bool,
    warning: bool,
    messages: Vec<&'f str>,
}

/// Each sentence's status and the reasons shown with it: its markers, the ledger's ids,
/// the support check's report of it, and the findings that name it.
fn mark_sentences(page: &Page<'_>, sentences: &[(usize, Sentence<'_>)]) -> Vec<Marked> {
    let known = |id: u64| page.cards.get(&id).is_some_and(|c| c.source.is_some());
    let report = &page.verification.report;
    let support: HashMap<usize, &SentenceSupport> = report
        .support
        .iter()
        .flat_map(|s| &s.sentences)
        .map(|s| (s.index, s))
        .collect();
    let mut said: HashMap<usize, Said<'_>> = HashMap::new();
    for (error, findings) in [(true, &report.errors), (false, &report.warnings)] {
        for f in findings.iter().filter(|f| f.about != About::Listed) {
            for s in &f.sentences {
                let at = said.entry(s.index).or_default();
                // What the support check found is worded from its report below, and an
                // unchecked sentence has a state of its own unless --strict fails it.
                let unchecked = support.get(&s.index).is_some_and(|sup| sup.unchecked);
                if error {
                    at.error = true;
                } else if f.about != About::Support || !unchecked {
                    at.warning = true;
                }
                if f.about == About::Fault && !at.messages.contains(&f.message.as_str()) {
                    at.messages.push(&f.message);
                }
            }
        }
    }
    let glued: Vec<usize> = page
        .placed
        .marks
        .iter()
        .filter(|m| m.glued)
        .map(|m| m.start)
        .collect();
    let mut out = Vec::with_capacity(sentences.len());
    for (at, s) in sentences {
        let end = at + s.text.len();
        let mut why = Vec::new();
        let unknown: Vec<u64> = s.cited.iter().copied().filter(|&id| !known(id)).collect();
        if !unknown.is_empty() {
            why.push(format!("{} not in the ledger", ids_shown(&unknown)));
        }
        let sup = support.get(&s.index).copied();
        let nothing = Said::default();
        let findings = said.get(&s.index).unwrap_or(&nothing);
        let mut failing = !unknown.is_empty() || findings.error;
        // A glued citation or a missing name past the findings listed is still a warning.
        let mut warned = findings.warning || glued.iter().any(|g| (*at..end).contains(g));
        let mut unchecked = !s.cited.is_empty() && sup.is_none_or(|sup| sup.unchecked);
        if let Some(sup) = sup {
            for u in &sup.unsupported {
                failing = true;
                let mut line = format!("{} “{}” is on no page it cites", u.kind.noun(), u.written);
                if let Some(c) = &u.closest {
                    let _ = write!(line, " ([{}] has “{}” in “{}”)", c.id, c.written, c.context);
                }
                why.push(line);
            }
            if !sup.names_missing.is_empty() {
                warned = true;
                why.push(format!(
                    "names no cited page uses: {}",
                    sup.names_missing.join(", ")
                ));
            }
            if sup.unchecked {
                why.push(format!(
                    "not checked: no page text is stored for {}",
                    ids_shown(&sup.without_pages)
                ));
            } else if sup.unsupported.is_empty() {
                why.push(if sup.checked == 0 {
                    "checked: nothing to check (no figure, date or quoted phrase)".to_string()
                } else {
                    format!(
                        "{} of {} figure(s), date(s) and quoted phrase(s) found on the cited pages",
                        sup.supported, sup.checked
                    )
                });
            }
            if sup.tool_figures > 0 {
                why.push(format!(
                    "{} figure(s) from the tool it names, not checked",
                    sup.tool_figures
                ));
            }
        } else if unchecked && report.support.is_none() {
            why.push("not checked: the report was made without the support check".into());
        }
        why.extend(findings.messages.iter().map(|m| m.to_string()));
        if page.strict && (warned || sup.is_some_and(|sup| sup.unchecked)) {
            // What --strict fails is failing.
            failing = true;
        }
        if failing {
            (warned, unchecked) = (false, false);
        }
        let status = if failing {
            Status::Failing
        } else if warned {
            Status::Warned
        } else if unchecked {
            Status::Unchecked
        } else if !s.cited.is_empty() {
            Status::Supported
        } else if s.tool {
            Status::Tool
        } else if s.policy {
            Status::Policy
        } else if s.unverified {
            Status::Unverified
        } else {
            Status::None
        };
        out.push(Marked {
            index: s.index,
            start: *at,
            end,
            status,
            why: why.join("; "),
            anchor: anchor(s.index),
        });
    }
    out
}

/// The anchor of the sentence numbered `index`: `s-N`, N counted from 1 as a finding
/// names it (`in sentence N`).
fn anchor(index: usize) -> String {
    format!("s-{}", index + 1)
}

fn ids_shown(ids: &[u64]) -> String {
    let list: Vec<String> = ids.iter().map(|id| format!("[{id}]")).collect();
    list.join(", ")
}

/// The document head, styles and the page's header.
fn head(out: &mut String, page: &Page<'_>) {
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n\
         <meta name=\"color-scheme\" content=\"light dark\">\n\
         <title>Report: {}</title>\n<style>{}</style>\n</head>\n<body>\n\
         <a class=\"skip\" href=\"#draft-start\">Skip to the draft</a>\n",
        esc(CSP),
        esc(page.name),
        STYLE
    );
}

/// The verdict, the counts, the legend and the findings.
fn summary(
    out: &mut String,
    page: &Page<'_>,
    verdict: &Verdict,
    marked: &[Marked],
    by_line: &HashMap<usize, &str>,
    by_index: &HashMap<usize, (usize, &str)>,
) {
    let r = &page.verification.report;
    let (class, icon) = if verdict.passed {
        ("pass", "✔")
    } else {
        ("fail", "✗")
    };
    let counted = if verdict.passed {
        String::new()
    } else {
        format!(
            "<span class=\"tally\">: <span data-count=\"failing-sentences\">{}</span> failing sentence(s), marked ✗ below, and <span data-count=\"draft-failures\">{}</span> failure(s) of the draft as a whole</span>",
            verdict.failing_sentences, verdict.draft_failures
        )
    };
    let _ = write!(
        out,
        "<header>\n<h1>Report: {}</h1>\n<p class=\"verdict {class}\" id=\"verdict\"><span aria-hidden=\"true\">{icon}</span> <strong>{}</strong>{counted} — <code>{}</code></p>\n<p class=\"stats\">{}</p>\n",
        esc(page.name),
        if verdict.passed {
            "citations OK"
        } else {
            "verification failed"
        },
        esc(page.command),
        esc(&r.stats)
    );
    // The count of sentences in each status, with its legend entry.
    let mut counts: BTreeMap<Status, usize> = BTreeMap::new();
    for m in marked {
        *counts.entry(m.status).or_default() += 1;
    }
    out.push_str("<section class=\"legend\" aria-labelledby=\"legend-h\"><h2 id=\"legend-h\">Legend</h2>\n<p>Each sentence, and each table row that cites, is marked by an icon, a word, a colour and an underline:</p>\n<ul>\n");
    for status in Status::ALL {
        let _ = writeln!(
            out,
            "<li class=\"st-{k}\" data-legend=\"{k}\"><span class=\"badge st-{k}\" aria-hidden=\"true\">{}</span> <b>{}</b> (<span data-legend-count=\"{k}\">{}</span>) — <span class=\"s st-{k}\">{}</span></li>",
            status.icon(),
            status.label(),
            counts.get(&status).copied().unwrap_or(0),
            status.meaning(page.strict),
            k = status.key(),
        );
    }
    out.push_str("</ul>\n<p class=\"hint\">Each citation links to its source's card; hover or focus it for a preview. Each finding links to the sentences it is about.</p></section>\n");
    let groups: [(&str, &str, &[Finding]); 3] = [
        ("Failures", "fail", &r.errors),
        ("Warnings", "warn", &r.warnings),
        ("Information", "info", &r.info),
    ];
    out.push_str("<section class=\"findings\" aria-labelledby=\"findings-h\"><h2 id=\"findings-h\">Findings</h2>\n");
    if groups.iter().all(|(_, _, f)| f.is_empty()) {
        out.push_str("<p>None.</p>\n");
    }
    for (title, class, findings) in groups {
        if findings.is_empty() {
            continue;
        }
        let _ = write!(
            out,
            "<h3>{title} ({})</h3>\n<ul class=\"{class}\">\n",
            findings.len()
        );
        for f in findings {
            let mut lines: Vec<usize> = f.lines.clone();
            if lines.is_empty() {
                lines.extend(f.line);
            }
            let scope = if of_the_draft(f) { "draft" } else { "sentence" };
            let _ = write!(
                out,
                "<li data-finding=\"{class}\" data-scope=\"{scope}\">{}",
                esc(&f.message)
            );
            // A finding about sentences links to each; another to its lines.
            let linked: Vec<(usize, usize, &str)> = f
                .sentences
                .iter()
                .filter_map(|s| by_index.get(&s.index).map(|&(l, a)| (s.index, l, a)))
                .collect();
            for &(index, line, anchor) in &linked {
                let _ = write!(
                    out,
                    " <a href=\"#{anchor}\" data-sentence=\"{}\">line {line}, sentence {}</a>",
                    index + 1,
                    index + 1
                );
            }
            if linked.is_empty() {
                for line in lines.iter().take(draft::LIST_AT_MOST) {
                    match by_line.get(line) {
                        Some(anchor) => {
                            let _ = write!(out, " <a href=\"#{anchor}\">line {line}</a>");
                        }
                        None => {
                            let _ = write!(out, " (line {line})");
                        }
                    }
                }
            }
            let shown = if linked.is_empty() {
                draft::LIST_AT_MOST
            } else {
                linked.len()
            };
            if lines.len() > shown {
                let _ = write!(out, " and {} more", lines.len() - shown);
            }
            out.push_str("</li>\n");
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</section>\n</header>\n");
}

/// The draft's Markdown as HTML, with sentence marks and citation links woven in: the
/// parser's events, with the text cut where sentences and markers start and end, go
/// through pulldown-cmark's own HTML writer in one pass.
fn body_html(
    out: &mut String,
    body: &str,
    base: usize,
    marks: &[draft::Mark],
    marked: &[Marked],
    previews: &HashMap<u64, String>,
    cards: &BTreeMap<u64, Card>,
) {
    let mut w = Weave {
        ev: Vec::new(),
        marks,
        marked,
        previews,
        cards,
        mi: 0,
        si: 0,
        badged: 0,
        in_link: 0,
        link_open: Vec::new(),
        image: Vec::new(),
        shown: None,
    };
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    w.html("<span id=\"draft-start\"></span>".into());
    for (event, range) in Parser::new_ext(body, options).into_offset_iter() {
        let range = range.start + base..range.end + base;
        match event {
            Event::Text(t) => w.text(&t, range, body, base),
            Event::Code(c) => {
                w.badges_before(range.end);
                w.wrapped(format!("<code>{}</code>", esc(&c)), range.start);
            }
            // The draft's own HTML is shown, never run.
            Event::Html(h) | Event::InlineHtml(h) => {
                w.badges_before(range.end);
                w.wrapped(esc(&h).into_owned(), range.start);
            }
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                ..
            }) => {
                w.in_link += 1;
                let href = safe_href(&dest_url, link_type);
                w.html(match &href {
                    Some(h) => format!(
                        "<a href=\"{}\" rel=\"noreferrer noopener\"{}>",
                        esc(h),
                        attr_title(&title)
                    ),
                    None => format!(
                        "<span class=\"unsafe-link\" title=\"not a web link: {}\">",
                        esc(&dest_url)
                    ),
                });
                w.link_open.push(href.is_some());
            }
            Event::End(TagEnd::Link) => {
                w.in_link = w.in_link.saturating_sub(1);
                let was = w.link_open.pop().unwrap_or(false);
                w.html(if was { "</a>" } else { "</span>" }.into());
            }
            // An image is not loaded: its description and a link to it instead.
            Event::Start(Tag::Image { dest_url, .. }) => {
                w.in_link += 1;
                w.html("<span class=\"image\">[image: ".into());
                w.image.push(dest_url.to_string());
            }
            Event::End(TagEnd::Image) => {
                w.in_link = w.in_link.saturating_sub(1);
                let url = w.image.pop().unwrap_or_default();
                let shown = match safe_href(&url, LinkType::Inline) {
                    Some(h) => format!(
                        " — <a href=\"{}\" rel=\"noreferrer noopener\">{}</a>]</span>",
                        esc(&h),
                        esc(&url)
                    ),
                    None => format!(" — {}]</span>", esc(&url)),
                };
                w.html(shown);
            }
            // Footnotes, math and metadata are not enabled; the rest is structure.
            other => w.ev.push(other),
        }
    }
    w.badges_before(usize::MAX);
    pulldown_cmark::html::push_html(out, w.ev.into_iter());
}

struct Weave<'w, 'a> {
    ev: Vec<Event<'a>>,
    marks: &'w [draft::Mark],
    marked: &'w [Marked],
    previews: &'w HashMap<u64, String>,
    cards: &'w BTreeMap<u64, Card>,
    mi: usize,
    si: usize,
    /// How many sentences have their badge out.
    badged: usize,
    in_link: usize,
    link_open: Vec<bool>,
    image: Vec<String>,
    /// The last marker put out.
    shown: Option<usize>,
}

impl Weave<'_, '_> {
    fn html(&mut self, s: String) {
        self.ev.push(Event::InlineHtml(s.into()));
    }

    /// Puts out the badges of the sentences that start before `at` and have none yet.
    fn badges_before(&mut self, at: usize) {
        while self.badged < self.marked.len() && self.marked[self.badged].start < at {
            let m = &self.marked[self.badged];
            let focus = if m.why.is_empty() {
                ""
            } else {
                " tabindex=\"0\""
            };
            let badge = format!(
                "<span class=\"badge st-{k}\" id=\"{a}\" data-status=\"{k}\" data-s=\"{n}\"{focus} title=\"{label}{sep}{why}\"><span aria-hidden=\"true\">{icon}</span> <span class=\"word\">{label}</span><span class=\"sr\">{sep}{why}</span></span>",
                k = m.status.key(),
                a = m.anchor,
                n = m.index + 1,
                label = m.status.label(),
                sep = if m.why.is_empty() { "" } else { ": " },
                why = esc(&m.why),
                icon = m.status.icon(),
            );
            self.html(badge);
            self.badged += 1;
        }
    }

    /// A text event: cut where sentences and markers start and end.
    fn text(&mut self, t: &CowStr<'_>, range: std::ops::Range<usize>, body: &str, base: usize) {
        let source = body.get(range.start - base..range.end - base);
        if source != Some(t.as_ref()) {
            // An escape or an entity: the text is not the draft's bytes, so it is put
            // out whole, in the sentence it starts in.
            self.badges_before(range.start + 1);
            self.piece(t, range.start);
            return;
        }
        let mut p = range.start;
        while p < range.end {
            while self.mi < self.marks.len() && self.marks[self.mi].end <= p {
                self.mi += 1;
            }
            if self.in_link == 0
                && let Some(m) = self.marks.get(self.mi)
                && m.start <= p
            {
                self.badges_before(p + 1);
                // The parser cuts `[1]` into `[`, `1`, `]`: the link goes out once.
                if self.shown != Some(self.mi) {
                    self.shown = Some(self.mi);
                    self.mark(self.mi);
                }
                p = m.end.min(range.end);
                if m.end <= range.end {
                    self.mi += 1;
                }
                continue;
            }
            let mut next = range.end;
            if self.in_link == 0
                && let Some(m) = self.marks.get(self.mi)
            {
                next = next.min(m.start.max(p + 1));
            }
            while self.si < self.marked.len() && self.marked[self.si].end <= p {
                self.si += 1;
            }
            if let Some(s) = self.marked.get(self.si) {
                if s.start > p {
                    next = next.min(s.start);
                } else {
                    next = next.min(s.end);
                }
            }
            // Never inside a character.
            while next < range.end && !body.is_char_boundary(next - base) {
                next += 1;
            }
            self.badges_before(p + 1);
            let piece = &body[p - base..next - base];
            self.piece(piece, p);
            p = next;
        }
    }

    /// Text at `at`, in its sentence's span when it is in one.
    fn piece(&mut self, text: &str, at: usize) {
        self.wrapped(esc(text).into_owned(), at);
    }

    /// `html`, the draft's text at `at` as the page shows it, in its sentence's span
    /// when it is in one: each piece of a sentence, whatever inline markup it is in
    /// (emphasis, a link, code), is marked as its sentence, numbered `data-s`.
    fn wrapped(&mut self, html: String, at: usize) {
        // Sentences do not overlap, and are in draft order.
        let i = self.marked.partition_point(|s| s.end <= at);
        match self.marked.get(i).filter(|s| s.start <= at) {
            Some(s) => {
                let span = format!(
                    "<span class=\"s st-{}\" data-s=\"{}\">{html}</span>",
                    s.status.key(),
                    s.index + 1
                );
                self.html(span);
            }
            None => self.html(html),
        }
    }

    /// A marker: its ids as links to their cards, each with its preview.
    fn mark(&mut self, i: usize) {
        let m = &self.marks[i];
        let ids = match &m.kind {
            MarkKind::Cite { ids, .. } | MarkKind::Shown { ids } => ids,
            MarkKind::Tool => return self.tag("tool", "[tool]"),
            MarkKind::Policy => return self.tag("policy", "[policy]"),
            MarkKind::Unverified => return self.tag("unverified", "[unverified]"),
        };
        let class = if matches!(m.kind, MarkKind::Shown { .. }) {
            " shown"
        } else {
            ""
        };
        let mut out = String::from("<span class=\"cites\">[");
        for (k, id) in ids.iter().enumerate() {
            if k > 0 {
                out.push_str(", ");
            }
            let missing = self.cards.get(id).is_none_or(|c| c.source.is_none());
            let _ = write!(
                out,
                "<span class=\"cw\"><a class=\"cite{class}{}\" href=\"#source-{id}\" data-cite=\"{id}\" aria-label=\"source {id}{}\">{id}</a>{}</span>",
                if missing { " missing" } else { "" },
                if missing { ", not in the ledger" } else { "" },
                self.previews.get(id).map_or("", String::as_str)
            );
        }
        out.push_str("]</span>");
        self.html(out);
    }

    fn tag(&mut self, class: &str, text: &str) {
        self.html(format!("<span class=\"marker m-{class}\">{text}</span>"));
    }
}

/// A link's target, when it is one a reader may follow: http(s) and mail only, never a
/// script or a local file.
fn safe_href(dest: &str, link_type: LinkType) -> Option<String> {
    let dest = dest.trim();
    if matches!(link_type, LinkType::Email) {
        let mail = format!("mailto:{dest}");
        return url::Url::parse(&mail).ok().map(|_| mail);
    }
    if dest.starts_with('#') {
        return Some(dest.to_string());
    }
    let u = url::Url::parse(dest).ok()?;
    matches!(u.scheme(), "http" | "https" | "mailto").then(|| u.to_string())
}

fn attr_title(title: &str) -> String {
    if title.is_empty() {
        String::new()
    } else {
        format!(" title=\"{}\"", esc(title))
    }
}

/// A source's link (only when its URL is a web URL) or its URL as text.
fn link(url: &str) -> String {
    match safe_href(url, LinkType::Inline) {
        Some(h) if !h.starts_with('#') && !h.starts_with("mailto:") => format!(
            "<a class=\"url\" href=\"{}\" rel=\"noreferrer noopener\">{}</a>",
            esc(&h),
            esc(url)
        ),
        _ => format!("<span class=\"url\">{}</span>", esc(url)),
    }
}

/// The preview a citation shows on hover and focus: title, URL, the first quotes.
fn preview(c: &Card) -> String {
    let mut out = String::from("<span class=\"pop\" role=\"tooltip\">");
    match &c.source {
        None => {
            let _ = write!(
                out,
                "<b>[{}] is not in the ledger</b>{}",
                c.id,
                c.other_epoch
                    .map(|e| format!(" (epoch {e} has it)"))
                    .unwrap_or_default()
            );
        }
        Some(s) => {
            let _ = write!(
                out,
                "<b>{}</b><span class=\"pop-url\">{}</span>",
                esc(if s.title.is_empty() {
                    "(untitled)"
                } else {
                    &s.title
                }),
                esc(&s.url)
            );
            for q in c.quotes.iter().take(2) {
                let _ = write!(out, "<q>{}</q>", esc(&clip(&q.exact, 200)));
            }
            if c.quotes.len() > 2 {
                let _ = write!(out, "<span>and {} more quote(s)</span>", c.quotes.len() - 2);
            }
            if c.quotes.is_empty() {
                out.push_str("<span>no quote attached</span>");
            }
        }
    }
    out.push_str("</span>");
    out
}

/// The cards of the cited sources.
fn cards(out: &mut String, cards: &BTreeMap<u64, Card>, cited_at: &BTreeMap<u64, Vec<&str>>) {
    let _ = writeln!(
        out,
        "<section class=\"sources\" aria-labelledby=\"sources-h\"><h2 id=\"sources-h\">Sources ({})</h2>",
        cards.len()
    );
    for c in cards.values() {
        let id = c.id;
        let _ = writeln!(
            out,
            "<article class=\"card{}\" id=\"source-{id}\" tabindex=\"-1\" aria-labelledby=\"source-{id}-h\">",
            if c.source.is_none() { " missing" } else { "" }
        );
        match &c.source {
            None => {
                let _ = write!(
                    out,
                    "<h3 id=\"source-{id}-h\"><span class=\"id\">[{id}]</span> <span class=\"badge st-failing\" aria-hidden=\"true\">✗</span> not in the ledger</h3>\n<p>The draft cites [{id}], and the ledger's epoch has no such source{}.</p>\n",
                    c.other_epoch
                        .map(|e| format!(
                            " (epoch {e} has one: was the draft written before a reset?)"
                        ))
                        .unwrap_or_default()
                );
            }
            Some(s) => {
                let title = if s.title.is_empty() {
                    "(untitled)"
                } else {
                    &s.title
                };
                let _ = write!(
                    out,
                    "<h3 id=\"source-{id}-h\"><span class=\"id\">[{id}]</span> {}</h3>\n<p class=\"link\">{}</p>\n<dl>\n<dt>accessed</dt><dd>{}</dd>\n<dt>route</dt><dd>{}</dd>\n",
                    esc(title),
                    link(&s.url),
                    esc(&s.accessed),
                    esc(s.via.as_deref().unwrap_or("(not recorded)"))
                );
                if let Some(of) = s.alias_of {
                    let _ = writeln!(out, "<dt>same page as</dt><dd>[{of}]</dd>");
                }
                if let Some(r) = &c.registered {
                    let _ = writeln!(
                        out,
                        "<dt>registered</dt><dd>{}{} <span class=\"cmd\">{}</span></dd>",
                        esc(&r.time),
                        r.actor
                            .as_deref()
                            .map(|a| format!(" by <b>{}</b>", esc(a)))
                            .unwrap_or_default(),
                        if r.command.is_empty() {
                            String::new()
                        } else {
                            format!(
                                "with <code>{}</code>",
                                esc(&clip(&r.command.join(" "), 300))
                            )
                        }
                    );
                }
                let _ = write!(
                    out,
                    "<dt>page text</dt><dd>{}</dd>\n</dl>\n",
                    if c.pages.is_empty() {
                        "none stored".to_string()
                    } else {
                        c.pages
                            .iter()
                            .map(|h| format!("<code class=\"hash\">blake3:{}</code>", esc(h)))
                            .collect::<Vec<_>>()
                            .join(" ")
                    }
                );
                if c.quotes.is_empty() {
                    out.push_str("<p class=\"noquote\">No quote attached.</p>\n");
                } else {
                    let _ = write!(
                        out,
                        "<h4>Quotes ({})</h4>\n<ol class=\"quotes\">\n",
                        c.quotes.len()
                    );
                    for q in &c.quotes {
                        let _ = writeln!(
                            out,
                            "<li value=\"{}\"><blockquote>{}{}<mark>{}</mark>{}{}</blockquote><p class=\"qmeta\">attached {}{}</p></li>",
                            q.number.max(1),
                            if q.before.is_empty() { "" } else { "…" },
                            esc(&q.before),
                            esc(&q.exact),
                            esc(&q.after),
                            if q.after.is_empty() { "" } else { "…" },
                            esc(&q.added),
                            match &q.page {
                                Some(h) => format!(
                                    ", found in the page text <code class=\"hash\">blake3:{}</code>",
                                    esc(&clip(h, 16))
                                ),
                                None => ", no page text stored: shown as attached".to_string(),
                            }
                        );
                    }
                    out.push_str("</ol>\n");
                }
            }
        }
        if let Some(at) = cited_at.get(&id) {
            out.push_str("<p class=\"back\">Cited in:");
            for (k, anchor) in at.iter().take(20).enumerate() {
                let _ = write!(out, " <a href=\"#{anchor}\">{}</a>", k + 1);
            }
            if at.len() > 20 {
                let _ = write!(out, " and {} more", at.len() - 20);
            }
            out.push_str("</p>\n");
        }
        out.push_str("</article>\n");
    }
    out.push_str("</section>\n");
}

/// At most `n` characters of `s`, with `…` where cut.
fn clip(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

/// Escaped for HTML text and quoted attributes alike.
pub fn esc(s: &str) -> std::borrow::Cow<'_, str> {
    html_escape::encode_safe(s)
}

/// The passage of `page` around the characters `start..end` (char offsets): up to
/// `around` characters each side, cut at a space when there is one near.
pub fn in_context(
    page: &str,
    start: u64,
    end: u64,
    around: usize,
) -> Option<(String, String, String)> {
    let byte_of = |char_at: u64| -> Option<usize> {
        if char_at as usize > page.len() {
            return None;
        }
        page.char_indices()
            .map(|(b, _)| b)
            .chain(std::iter::once(page.len()))
            .nth(char_at as usize)
    };
    let s = byte_of(start)?;
    let e = byte_of(end)?;
    if s > e {
        return None;
    }
    let before = &page[..s];
    let before_start = before
        .char_indices()
        .rev()
        .nth(around)
        .map_or(0, |(b, _)| b);
    let mut before = &before[before_start..];
    if before_start > 0
        && let Some(sp) = before.find(char::is_whitespace)
        && sp < before.len() / 2
    {
        before = &before[sp..];
    }
    let after = &page[e..];
    let after_end = after
        .char_indices()
        .nth(around)
        .map_or(after.len(), |(b, _)| b);
    let mut after = &after[..after_end];
    if after_end < page.len() - e
        && let Some(sp) = after.rfind(char::is_whitespace)
        && sp > after.len() / 2
    {
        after = &after[..sp];
    }
    // On one line, as a passage reads; a space kept where it meets the quote.
    let flat = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut b = flat(before);
    if before.ends_with(char::is_whitespace) && !b.is_empty() {
        b.push(' ');
    }
    let mut a = flat(after);
    if after.starts_with(char::is_whitespace) && !a.is_empty() {
        a.insert(0, ' ');
    }
    Some((b, page[s..e].to_string(), a))
}

const STYLE: &str = r#"
:root{--bg:#fdfdfc;--fg:#1b1b1b;--muted:#5b5b5b;--card:#fff;--line:#d6d6d6;--link:#0b57d0;
--ok:#1a7f37;--okbg:#e6f4ea;--sup:#0a6b5a;--supbg:#dff3ee;--tool:#5a4fcf;--toolbg:#ecebfb;
--pol:#6b5a00;--polbg:#f6f0d0;--unv:#9a5b00;--unvbg:#fdf0dc;--none:#6b6b6b;--nonebg:#eeeeee;
--fail:#b3261e;--failbg:#fbe4e2;--warn:#8a5a00;--warnbg:#fff4d6;--unc:#4a5a7a;--uncbg:#e8edf6;--mark:#fff2a8}
@media (prefers-color-scheme: dark){:root{--bg:#141414;--fg:#e8e8e8;--muted:#a8a8a8;--card:#1e1e1e;
--line:#3a3a3a;--link:#8ab4f8;--ok:#6ccf8a;--okbg:#173322;--sup:#5fd4bd;--supbg:#0f302a;--tool:#b3abff;
--toolbg:#27234a;--pol:#e3cf6a;--polbg:#35300f;--unv:#f0b35e;--unvbg:#3b2a10;--none:#b0b0b0;
--nonebg:#2c2c2c;--fail:#ff8a80;--failbg:#451a17;--warn:#f5c04a;--warnbg:#3a2e0c;--unc:#a9b8d8;--uncbg:#1f2635;--mark:#5c4d00}}
*{box-sizing:border-box}
html{background:var(--bg);color:var(--fg);font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
body{margin:0 auto;max-width:52rem;padding:1rem}
a{color:var(--link)}
a:focus-visible,[tabindex]:focus-visible{outline:3px solid var(--link);outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:var(--card);padding:.5rem}
h1{font-size:1.5rem;margin:.5rem 0}h2{font-size:1.2rem;border-bottom:1px solid var(--line)}
code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em;overflow-wrap:anywhere}
pre{overflow-x:auto;background:var(--card);border:1px solid var(--line);padding:.5rem}
.verdict{font-size:1.1rem;padding:.5rem .75rem;border-left:6px solid}
.verdict.pass{border-color:var(--ok);background:var(--okbg)}.verdict.fail{border-color:var(--fail);background:var(--failbg)}
.stats{color:var(--muted)}
.legend ul,.findings ul{padding-left:1.2rem}
.findings li{margin:.25rem 0;overflow-wrap:anywhere}
.findings .fail li::marker{content:"✗ "}.findings .warn li::marker{content:"⚠ "}.findings .info li::marker{content:"ℹ "}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.badge{display:inline-block;min-width:1.4em;padding:0 .2em;margin-right:.15em;border-radius:.3em;font-size:.75em;
font-weight:700;text-align:center;line-height:1.4;vertical-align:.1em;border:1px solid currentColor}
.st-supported{--c:var(--ok);--cb:var(--okbg)}.st-unchecked{--c:var(--unc);--cb:var(--uncbg)}
.st-warned{--c:var(--warn);--cb:var(--warnbg)}
.st-tool{--c:var(--tool);--cb:var(--toolbg)}.st-policy{--c:var(--pol);--cb:var(--polbg)}
.st-unverified{--c:var(--unv);--cb:var(--unvbg)}.st-none{--c:var(--none);--cb:var(--nonebg)}
.st-failing{--c:var(--fail);--cb:var(--failbg)}
.badge{color:var(--c);background:var(--cb)}
.badge .word{font-weight:600;font-size:.9em}
.s{text-decoration:underline 2px var(--c);text-underline-offset:.22em}
.s.st-unchecked{text-decoration-style:double}.s.st-warned{text-decoration-style:dashed}
.s.st-failing{text-decoration-style:wavy;background:var(--cb)}
.s.st-unverified{text-decoration-style:dotted}.s.st-none{text-decoration:none}
.draft{border-top:1px solid var(--line);margin-top:1rem;overflow-wrap:break-word}
.cites{white-space:nowrap;font-size:.85em;vertical-align:.25em}
.cw{position:relative}
.cite{text-decoration:none;font-weight:600;padding:0 .1em}.cite:hover,.cite:focus{text-decoration:underline}
.cite.missing{color:var(--fail);text-decoration:line-through}
.pop{display:none;position:absolute;z-index:5;left:0;top:1.5em;width:min(24rem,85vw);white-space:normal;
background:var(--card);color:var(--fg);border:1px solid var(--line);border-radius:.4rem;padding:.5rem .6rem;
box-shadow:0 4px 16px rgba(0,0,0,.25);font-size:.85rem;font-weight:400;line-height:1.4}
.cw:hover .pop,.cw:focus-within .pop{display:block}
.pop b{display:block}.pop-url{display:block;color:var(--muted);overflow-wrap:anywhere}
.pop q{display:block;margin-top:.3rem;border-left:3px solid var(--line);padding-left:.4rem}
.marker{font-size:.8em;color:var(--muted)}
[data-status][title]{cursor:help}
.sources{margin-top:2rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:.5rem;padding:.75rem 1rem;margin:1rem 0;scroll-margin-top:1rem}
.card:target{outline:3px solid var(--link)}
.card.missing{border-color:var(--fail)}
.card h3{margin:.2rem 0;font-size:1.05rem;overflow-wrap:anywhere}.card .id{color:var(--muted)}
.card .url{overflow-wrap:anywhere}
.card dl{display:grid;grid-template-columns:max-content 1fr;gap:.1rem .8rem;margin:.5rem 0}
.card dt{color:var(--muted)}.card dd{margin:0;overflow-wrap:anywhere}
.quotes blockquote{margin:.3rem 0;padding-left:.6rem;border-left:3px solid var(--line);overflow-wrap:anywhere}
mark{background:var(--mark);color:inherit;padding:0 .1em}
.qmeta,.back{font-size:.85rem;color:var(--muted)}
.hash{font-size:.8em}
footer{margin-top:2rem;font-size:.85rem;color:var(--muted);border-top:1px solid var(--line)}
table{border-collapse:collapse;display:block;overflow-x:auto}td,th{border:1px solid var(--line);padding:.2rem .4rem}
@media (max-width:40rem){body{padding:.6rem}.card dl{grid-template-columns:1fr}.card dt{font-weight:600}}
@media print{html{background:#fff;color:#000;font-size:11pt}body{max-width:none}.pop,.skip{display:none!important}
.card{break-inside:avoid;border-color:#999}a{color:#000}.card a.url::after{content:" <" attr(href) ">";font-size:.85em}
.s{text-decoration-color:#000}.badge{color:#000;background:#fff}}
"#;

#[cfg(test)]
mod tests {
    use super::{clip, in_context, safe_href};
    use pulldown_cmark::LinkType;

    #[test]
    fn only_web_and_mail_links_are_followed() {
        assert_eq!(
            safe_href("https://a.org/x", LinkType::Inline).as_deref(),
            Some("https://a.org/x")
        );
        assert_eq!(safe_href("javascript:alert(1)", LinkType::Inline), None);
        assert_eq!(safe_href(" JaVaScRiPt:alert(1)", LinkType::Inline), None);
        assert_eq!(safe_href("data:text/html,x", LinkType::Inline), None);
        assert_eq!(safe_href("file:///etc/passwd", LinkType::Inline), None);
        assert_eq!(safe_href("relative/page", LinkType::Inline), None);
    }

    #[test]
    fn a_quote_is_shown_in_its_page_words() {
        let page = "One two three. The quick brown fox jumps. Four five six.";
        let start = page.find("The quick").unwrap() as u64;
        let end = start + "The quick brown fox jumps.".len() as u64;
        let (b, e, a) = in_context(page, start, end, 10).unwrap();
        assert_eq!(e, "The quick brown fox jumps.");
        assert!(b.ends_with("three. "), "{b:?}");
        assert!(a.starts_with(" Four"), "{a:?}");
        assert!(in_context("é", 0, 5, 3).is_none());
        assert_eq!(clip("ééé", 2), "éé…");
    }
}
