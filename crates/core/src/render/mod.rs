//! Formatting ledger data for people: the exact lines the commands print.
//!
//! Pure functions from domain values to text; the CLI decides where the text goes.
//! Line formats follow `sources.py` where it has them, since tools match on them.

pub mod report;
pub mod sources;
pub mod verify;

use std::io::{self, Write};

use serde::Serialize;

use crate::model::{
    Attached, EntryOrigin, EventView, LogEntry, LookAlike, Page, PageMeta, PageText, Quote,
    Retitled, Retracted, RouteCount, Source, SourceDetail,
};

/// `[ID] URL` — what `add` and `ingest` print per input URL.
pub fn id_line(s: &Source) -> String {
    format!("[{}] {}", s.id, s.url)
}

/// `[ID] evidence attached (N quote(s))` — what `quote` prints.
pub fn attached_line(a: &Attached) -> String {
    format!("[{}] evidence attached ({} quote(s))", a.id, a.quotes)
}

/// `[ID] quote N retracted ("TEXT"); K quote(s) still count` — what `retract` prints.
pub fn retracted_line(r: &Retracted) -> String {
    format!(
        "[{}] quote {} retracted (\"{}\"); {} quote(s) still count",
        r.id, r.quote, r.text, r.quotes
    )
}

/// `[ID] retitled "NEW" (was "OLD")` — what `retitle` prints.
pub fn retitled_line(r: &Retitled) -> String {
    if r.was == r.title {
        return format!("[{}] already titled \"{}\": nothing changed", r.id, r.title);
    }
    format!("[{}] retitled \"{}\" (was \"{}\")", r.id, r.title, r.was)
}

/// `note: [3] keeps its title — correct one with `cite retitle 3 TITLE``: what `add`
/// says when a title was given for a source that has another (`None` for none).
pub fn titles_kept_note(ids: &[u64], shell: bool) -> Option<String> {
    let first = *ids.first()?;
    let list: Vec<String> = ids.iter().map(|id| format!("[{id}]")).collect();
    let how = if shell {
        format!("`cite retitle {first} TITLE`")
    } else {
        "the `retitle` tool".to_string()
    };
    Some(format!(
        "note: {} kept the title already recorded; a title given later only fills an empty one — to correct a title, use {how}",
        list.join(", ")
    ))
}

/// `note: this page text is also stored for [1], [3]` — what `quote --from` and `add
/// --snapshot` add (on stderr) when other sources of the epoch have the same page text;
/// `None` when none has.
pub fn shared_page_note(ids: &[u64]) -> Option<String> {
    if ids.is_empty() {
        return None;
    }
    let ids: Vec<String> = ids.iter().map(|id| format!("[{id}]")).collect();
    Some(format!(
        "note: this page text is also stored for {}",
        ids.join(", ")
    ))
}

/// `note: [5] looks like [4] URL (the same host and path, another query)` — what `add`
/// says (on stderr; in the MCP tool's text) of a source registered next to a look-alike.
pub fn looks_like_note(l: &LookAlike) -> String {
    format!(
        "note: [{}] looks like [{}] {} (the same host and path, another query)",
        l.id, l.like_id, l.like_url
    )
}

/// `note: page text stored for [2], [5]: HOW` — what `ingest` adds (on stderr; in the
/// MCP tool's text) for the sources whose page text came with its input, `how` saying in
/// the reader's terms how a quote is then checked. `None` when there are none.
pub fn page_text_note(ids: &[u64], how: &str) -> Option<String> {
    if ids.is_empty() {
        return None;
    }
    let ids: Vec<String> = ids.iter().map(|id| format!("[{id}]")).collect();
    Some(format!(
        "note: page text stored for {}: {how}",
        ids.join(", ")
    ))
}

/// `note: the title was ignored: …` — what `add` says (on stderr; in the MCP tool's text)
/// when a title came with more than one URL, which `sources.py` drops without a word:
/// the writer who meant it for one of them should hear that no source got it. `None`
/// otherwise.
pub fn ignored_title_note(title_given: bool, urls: usize) -> Option<String> {
    (title_given && urls > 1).then(|| {
        format!(
            "note: the title was ignored: a title applies only when one URL is given (got {urls}) — add each URL with its own title"
        )
    })
}

/// `list`: `[ID] URL`, then two spaces and the title if any, then two spaces and
/// `(1 quote)` / `(N quotes)` if any.
pub fn list_line(s: &Source) -> String {
    let mut line = id_line(s);
    if !s.title.is_empty() {
        line.push_str("  ");
        line.push_str(&s.title);
    }
    match s.quotes.len() {
        0 => {}
        1 => line.push_str("  (1 quote)"),
        n => line.push_str(&format!("  ({n} quotes)")),
    }
    line
}

/// The line after a page of `list`: `page: N sources of M matching; next: CALL`, or
/// `…; no more pages` on the last one. `next` is the exact call for the next page.
pub fn page_line(page: &Page, next: Option<&str>) -> String {
    let shown = page.sources.len();
    let noun = if shown == 1 { "source" } else { "sources" };
    let head = format!("page: {shown} {noun} of {} matching", page.matched);
    match next {
        Some(call) => format!("{head}; next: {call}"),
        None => format!("{head}; no more pages"),
    }
}

/// `list --by-via`: `ROUTE: N`, `(no route)` for sources registered without one.
pub fn route_line(r: &RouteCount) -> String {
    format!("{}: {}", r.via.as_deref().unwrap_or("(no route)"), r.count)
}

/// What an event did, in a few words.
pub fn describe(event: &EventView) -> String {
    match event {
        EventView::SourceAdded {
            epoch,
            id,
            url,
            title,
            via,
            ..
        } => {
            let mut s = format!("added [{id}] {url}");
            if !title.is_empty() {
                s.push_str(&format!(" \"{title}\""));
            }
            if let Some(v) = via {
                s.push_str(&format!(" via {v}"));
            }
            s.push_str(&format!(" (epoch {epoch})"));
            s
        }
        EventView::TitleSet { epoch, id, title } => {
            format!("titled [{id}] \"{title}\" (epoch {epoch})")
        }
        EventView::Reset { new_epoch } => format!("reset: epoch {new_epoch} begins"),
        EventView::QuoteAttached {
            epoch,
            id,
            text,
            snapshot,
            start,
            end,
            ..
        } => format!(
            "quoted [{id}] \"{text}\" (chars {start}–{end} of snapshot {}) (epoch {epoch})",
            &snapshot[..12.min(snapshot.len())]
        ),
        EventView::Imported {
            epoch,
            from,
            sources,
            quotes,
        } => format!(
            "imported {sources} source(s) and {quotes} quote(s) from {from} (epoch {epoch})"
        ),
        EventView::QuoteImported {
            epoch, id, text, ..
        } => format!("quote imported for [{id}] \"{text}\", without page text (epoch {epoch})"),
        EventView::QuoteRetracted {
            epoch,
            id,
            quote,
            reason,
        } => format!("retracted quote {quote} of [{id}]: {reason} (epoch {epoch})"),
        EventView::TitleCorrected { epoch, id, title } => {
            format!("title of [{id}] corrected to \"{title}\" (epoch {epoch})")
        }
        EventView::QuoteTyped {
            epoch,
            id,
            quote,
            typed,
        } => format!("quote {quote} of [{id}] was typed as \"{typed}\" (epoch {epoch})"),
        EventView::MetadataSet {
            epoch,
            id,
            metadata,
        } => format!(
            "page of [{id}]: {} (epoch {epoch})",
            metadata_lines(metadata)
                .iter()
                .map(|(what, value)| format!("{what} {value}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        EventView::SnapshotStored {
            epoch,
            id,
            snapshot,
        } => format!(
            "stored page text for [{id}] (snapshot {}) (epoch {epoch})",
            &snapshot[..12.min(snapshot.len())]
        ),
    }
}

/// `log`: `#SEQ TIME pid PID[ actor A]  WHAT  <- COMMAND` for the first entry shown of
/// a transaction, `#SEQ (same transaction as #FIRST)  WHAT` for the others. The origin
/// is not repeated: it holds the whole command line, so repeating it made one `add` of
/// k URLs print k² URLs.
pub fn log_line(e: &LogEntry) -> String {
    let what = describe(&e.event);
    match &e.origin {
        EntryOrigin::Shown(o) => {
            let actor = match &o.actor {
                Some(a) => format!(" actor {a}"),
                None => String::new(),
            };
            format!(
                "#{} {} pid {}{}  {}  <- {}",
                e.seq,
                o.time,
                o.pid,
                actor,
                what,
                shell_words(&o.command)
            )
        }
        EntryOrigin::SameTransactionAs {
            same_transaction_as,
        } => format!(
            "#{} (same transaction as #{same_transaction_as})  {what}",
            e.seq
        ),
    }
}

/// A command line as a shell would accept it back, quoting only where needed.
fn shell_words(words: &[String]) -> String {
    words
        .iter()
        .map(|w| {
            let plain = !w.is_empty()
                && w.chars()
                    .all(|c| c.is_alphanumeric() || "-_./:=,@%+".contains(c));
            if plain {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A quote as `show` lists it: its number and text, then where it was checked.
fn quote_lines(q: &Quote) -> [String; 2] {
    let number = match q.number {
        0 => String::new(),
        n => format!("{n}. "),
    };
    let origin = match (&q.snapshot, &q.selector) {
        (Some(hash), Some(sel)) => format!(
            "    checked against snapshot {hash} at chars {}–{}, attached {}",
            sel.start, sel.end, q.added
        ),
        _ => format!(
            "    imported from sources.py without page text (not re-checkable), added {}",
            q.added
        ),
    };
    [format!("  {number}> \"{}\"", q.text), origin]
}

/// What tool output said about a page, as `show` and `log` name each part.
fn metadata_lines(m: &PageMeta) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if let Some(p) = &m.published {
        out.push(("published", p.clone()));
    }
    if let Some(s) = &m.site {
        out.push(("site", format!("\"{s}\"")));
    }
    if let Some(l) = &m.language {
        out.push(("language", l.clone()));
    }
    if !m.authors.is_empty() {
        out.push(("authors", m.authors.join("; ")));
    }
    out
}

/// Where a page text came from: the record that stored it with the source (and its
/// command, from the history), and the quotes checked against it.
fn page_text_origin(d: &SourceDetail, p: &PageText) -> String {
    let mut said = Vec::new();
    if let Some(seq) = p.stored_at {
        let command = d.history.iter().find(|e| e.seq == seq).and_then(|e| {
            let shown = match &e.origin {
                EntryOrigin::Shown(_) => e,
                EntryOrigin::SameTransactionAs {
                    same_transaction_as,
                } => d.history.iter().find(|f| f.seq == *same_transaction_as)?,
            };
            match &shown.origin {
                EntryOrigin::Shown(o) => Some(clip(&shell_words(&command_itself(&o.command)), 80)),
                EntryOrigin::SameTransactionAs { .. } => None,
            }
        });
        said.push(match command {
            Some(c) => format!("stored by #{seq} <- {c}"),
            None => format!("stored by #{seq}"),
        });
    }
    match p.quotes.as_slice() {
        [] => {}
        [n] => said.push(format!("quote {n} checked against it")),
        many => {
            let list: Vec<String> = many.iter().map(u64::to_string).collect();
            said.push(format!("quotes {} checked against it", list.join(", ")));
        }
    }
    if said.is_empty() {
        // An alias's page, stored with the source it is an alias of.
        said.push("stored with the page's first id".to_string());
    }
    said.join("; ")
}

/// A command line as `cite` and the words of the command, without where the program
/// lives and the options that say only where the ledger is and how long to wait for it:
/// the page text's `log` line has them in full.
fn command_itself(words: &[String]) -> Vec<String> {
    let mut out = vec!["cite".to_string()];
    let mut rest = words.iter().skip(1);
    while let Some(w) = rest.next() {
        match w.as_str() {
            "--ledger" | "--wait" => {
                rest.next();
            }
            w if w.starts_with("--ledger=") || w.starts_with("--wait=") => {}
            _ => out.push(w.clone()),
        }
    }
    out
}

/// At most `n` characters of `s`, with `…` where cut.
fn clip(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

/// How a front end words the call for more of a page text: given the page text and the
/// offset to go on from (and, when the source has several, which one it is).
pub type NextPart<'a> = &'a dyn Fn(&PageText, u64, bool) -> String;

/// The page texts `show` was asked for (those with text), each headed by its hash, its
/// size and what stored it, and ended, when cut, by the call for the next part.
pub fn page_texts(d: &SourceDetail, next: NextPart<'_>) -> Vec<String> {
    let n = d.page_texts.len();
    let several = n > 1;
    let mut out = Vec::new();
    for (i, p) in d.page_texts.iter().enumerate() {
        let (Some(text), Some(chars), Some(offset)) = (&p.text, p.chars, p.offset) else {
            continue;
        };
        let shown = text.chars().count() as u64;
        let range = if offset == 0 && p.next_offset.is_none() {
            format!("{chars} characters")
        } else {
            format!(
                "characters {offset}–{} of {chars}",
                (offset + shown).min(chars.max(offset))
            )
        };
        out.push(format!(
            "==> [{}] page text {} of {n}: snapshot {}, {range}; {} <==",
            d.source.id,
            i + 1,
            p.snapshot,
            page_text_origin(d, p)
        ));
        let mut body = text.clone();
        if !body.is_empty() && !body.ends_with('\n') {
            body.push('\n');
        }
        // The text with its own line breaks; the footer on a line of its own.
        if let Some(body) = body.strip_suffix('\n') {
            out.push(body.to_string());
        }
        if let Some(from) = p.next_offset {
            out.push(format!(
                "==> {} more characters: {} <==",
                chars.saturating_sub(from),
                next(p, from, several)
            ));
        }
    }
    out
}

/// `show`: the source, then its history. `read` says, in the front end's words, where the
/// page texts are read (`` read with `cite show 1 --text` ``).
pub fn show(d: &SourceDetail, read: &str) -> Vec<String> {
    let s = &d.source;
    let mut out = vec![list_line(s)];
    out.push(format!("  epoch:     {}", d.epoch));
    if let Some(of) = s.alias_of {
        out.push(format!(
            "  alias of:  [{of}] (the same page, imported under two ids; its quotes are [{of}]'s)"
        ));
    }
    out.push(format!("  given as:  {}", d.url_given));
    out.push(format!("  accessed:  {}", s.accessed));
    if let Some(v) = &s.via {
        out.push(format!("  via:       {v}"));
    }
    for (what, value) in metadata_lines(&s.metadata) {
        out.push(format!("  {:<11}{value}", format!("{what}:")));
    }
    out.push(match d.page_texts.len() {
        0 => "  page text: none — a quote needs the page's text given with it".to_string(),
        n => format!("  page text: {n} stored — {read}"),
    });
    for p in &d.page_texts {
        out.push(format!(
            "  snapshot:  {}  {}",
            p.snapshot,
            page_text_origin(d, p)
        ));
    }
    if !s.quotes.is_empty() {
        out.push("quotes:".to_string());
        for q in &s.quotes {
            out.extend(quote_lines(q));
        }
    }
    if !d.retracted.is_empty() {
        out.push("retracted quotes (they count for nothing):".to_string());
        for r in &d.retracted {
            out.extend(quote_lines(&r.quote));
            out.push(format!("    retracted: {}", r.reason));
        }
    }
    out.push("history:".to_string());
    for e in &d.history {
        out.push(format!("  {}", log_line(e)));
    }
    out
}

/// Writes `items` as a pretty JSON array, one item at a time, so that a million
/// sources never sit in memory at once. Matches `json.dumps(indent=2)` for these shapes.
pub fn json_array<T: Serialize, E: From<io::Error>>(
    out: &mut dyn Write,
    items: impl Iterator<Item = Result<T, E>>,
) -> Result<(), E> {
    let mut first = true;
    for item in items {
        let item = item?;
        out.write_all(if first { b"[\n" } else { b",\n" })?;
        first = false;
        let text = serde_json::to_string_pretty(&item).map_err(io::Error::other)?;
        for (i, line) in text.lines().enumerate() {
            if i > 0 {
                out.write_all(b"\n")?;
            }
            out.write_all(b"  ")?;
            out.write_all(line.as_bytes())?;
        }
    }
    out.write_all(if first { b"[]\n" } else { b"\n]\n" })?;
    Ok(())
}
