//! Finding source URLs, and the page text beside them, in arbitrary JSON tool output.
//!
//! **URLs.** The base is `sources.py`'s rule, kept exactly so that its ids, order and
//! titles stay the same: a depth-first walk in document order; in each object the URL is
//! the first truthy of `url`, `link`, `source_url` (Python truthiness: a non-empty list
//! there hides a valid `link`), and counts only if it is a string starting with `http://`
//! or `https://`; the title is the first truthy of `title`, `name`, kept only if it is a
//! string; an object's own URL comes before those inside it; duplicates by canonical URL
//! keep the first. Three extensions find what that rule misses, and never change what it
//! finds:
//!
//! - an object where the rule finds no URL takes the first `sourceURL`, `sourceUrl`,
//!   `uri` or `source` that is an http(s) string (Firecrawl's `metadata.sourceURL`,
//!   Gemini's `web.uri`, LangChain's `metadata.source`, an MCP resource's `uri`);
//! - strings that are http(s) URLs count as sources where they are the items of a
//!   top-level array, or of an array under `citations`, `urls` or `sources` (Perplexity's
//!   `citations`). Nowhere else: Tavily's `images` and a scraped page's `links` are
//!   URL strings too, and are not sources;
//! - an empty title is filled: from the `title` of the object's `metadata` (Firecrawl,
//!   LangChain) or of its `content` document (Anthropic's web fetch), and from a later
//!   occurrence of the same URL that has one (a URL string in `citations` titled by the
//!   `search_results` beside it; a fetch's input titled by its result), as a later `add`
//!   or `ingest` of the URL would fill it.
//!
//! **Page text.** A result may carry the page's own text beside its URL: an extract, a
//! scrape, a fetch. That text is kept with the URL ([`Found::page`]) and stored as the
//! source's snapshot, so a quote can be checked against it later. A search snippet, a
//! description or a summary is not the page and is never kept as page text. The rule, in
//! the object that names the URL:
//!
//! - page text is the first non-blank string of `raw_content` (Tavily), `markdown`
//!   (Firecrawl), `page_content` (LangChain), `text` (Exa, an MCP resource), then
//!   `content` (Jina Reader and Search, the skill's `web_extract`) — but `content` only
//!   where the object has no `score` and no `raw_content` key, because a Tavily search
//!   result's `content` is a snippet beside its `score` and `raw_content`;
//! - `content` may instead be a document, `{"type": "document", "source": {"type":
//!   "text", "data": …}}` (Anthropic's web fetch result): its `data` is the page text; a
//!   base64 source (a PDF) is not text;
//! - the object may name its URL in its `metadata` instead (Firecrawl's `{markdown,
//!   metadata: {sourceURL}}`, LangChain's `{page_content, metadata: {source}}`): the text
//!   goes to that URL;
//! - a result that says it failed keeps no page text: a truthy `error`, or a
//!   `statusCode`/`status_code` outside 200–299, on the object or its `metadata` (a 404
//!   page's markdown is not the page asked for); nor does text that is the skill's
//!   `web_extract` saying it could not summarize (`[Failed to process content: …`,
//!   `[Content too large to process: …`) or a summary it cut short;
//! - `snippet`, `description`, `highlights`, `summary`, `cited_text`, `extra_snippets`
//!   and the like are never page text, whatever the object.
//!
//! A later occurrence of a URL gives its page text to the first when the first had none;
//! otherwise the first occurrence's text wins. Only page texts that are found are held,
//! so a 100,000-result search costs what it did.
//!
//! **What a result says about its page.** The object that names the URL (and its
//! `metadata`, which fills the kinds the object leaves out; the object holding a
//! `metadata` that names the URL gives it what it says, as it gives its page text) may
//! say when the page was published (`publishedDate`, `published_date`, `publishedTime`,
//! `datePublished`, `article:published_time`, then `date`, `page_age`, `age`), on which
//! site (`siteName`, `site_name`, `ogSiteName`, `og:site_name`, else a `source` that is a
//! name and no URL or path, else the `name` of Brave's `profile`), in which language
//! (`language`, `lang`) and by whom (`author`, `authors`: a name, or a list of names or of
//! objects with a `name`). Each kind comes from the first of its fields whose value reads
//! as one ([`page_facts`]); a result that says it failed says nothing of the page. Where
//! the fields say nothing of a kind, the header at the top of the page text does
//! ([`page_facts::from_header`]). A later occurrence of a URL fills the kinds the first
//! left out. When the page was crawled (`dateLastCrawled`) or updated (`last_updated`)
//! is not when it was published, and is not read.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use serde::Deserializer;
use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};

use super::page_facts;
use super::url::canonicalize;
use cite_store::event::PageFact;

/// One URL found in tool output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// As it appeared in the input.
    pub given: String,
    pub url: String,
    pub title: String,
    /// The page's own text, when the result carried it (see the module's rule); never a
    /// search snippet.
    pub page: Option<String>,
    /// What the result said about the page (see the module's rule), one of each kind.
    pub facts: Vec<PageFact>,
}

/// A URL-looking string that did not parse as a URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub given: String,
    pub reason: String,
}

/// What [`find_urls`] looks for, for the message when it finds nothing: the keys and
/// shapes it knows, in one line.
pub const LOOKED_FOR: &str = "cite looks in each object for an http(s) URL under url, link or source_url (else sourceURL, sourceUrl, uri or source), and for URL strings in a top-level list or in a citations, urls or sources list, which covers the results of Tavily, Exa, Firecrawl, Jina, Brave, SerpAPI, Google, Bing, Perplexity, OpenAI, Anthropic, Gemini and LangChain (docs/ingest.md)";

/// Parses `json` and returns its URLs in document order, deduplicated, with the page
/// text beside each where there is one, plus the URL-looking strings that were refused.
///
/// The walk runs inside the parser, so no tree of the whole document is built: what
/// stays in memory is the list of URLs found and the page texts, which keeps a
/// 100,000-result ingest small.
pub fn find_urls(json: &str) -> Result<(Vec<Found>, Vec<Skipped>), serde_json::Error> {
    walk(json, 0)
}

/// [`find_urls`] for the result of an agent's tool call, which often carries its JSON as
/// text: an MCP tool answers `[{"type": "text", "text": "{\"results\": …}"}]`. A string
/// that is itself a JSON object or array is walked too, where it stands (so document
/// order holds), as deep as [`NESTED_JSON_LEVELS`] strings inside strings. A string that
/// only looks like JSON is text, and adds nothing. `ingest` does not do this: its input
/// is the JSON itself.
pub fn find_urls_in_tool_output(
    json: &str,
) -> Result<(Vec<Found>, Vec<Skipped>), serde_json::Error> {
    walk(json, NESTED_JSON_LEVELS)
}

/// How many levels of JSON held in a string [`find_urls_in_tool_output`] opens. Each
/// level is a new parser with its own recursion limit, so the bound also bounds the stack.
pub const NESTED_JSON_LEVELS: u8 = 2;

/// A URL as the walk found it, before canonicalization.
struct Raw {
    given: String,
    title: String,
    page: Option<String>,
    facts: Vec<PageFact>,
}

fn walk(json: &str, nested: u8) -> Result<(Vec<Found>, Vec<Skipped>), serde_json::Error> {
    let mut raw = Vec::new();
    let mut de = serde_json::Deserializer::from_str(json);
    Node {
        out: &mut raw,
        nested,
        want: Want::UrlList,
    }
    .deserialize(&mut de)?;
    de.end()?;
    let mut found: Vec<Found> = Vec::new();
    let mut skipped = Vec::new();
    // 128 bits of blake3 per URL instead of a copy of it: a collision is as likely as
    // guessing a random 128-bit key.
    let mut seen: HashMap<[u8; 16], usize> = HashMap::new();
    for Raw {
        given,
        title,
        page,
        facts,
    } in raw
    {
        match canonicalize(&given) {
            Ok(url) => {
                let digest = blake3::hash(url.as_bytes());
                let mut key = [0u8; 16];
                key.copy_from_slice(&digest.as_bytes()[..16]);
                match seen.get(&key) {
                    Some(&first) => {
                        let first = &mut found[first];
                        if first.title.is_empty() {
                            first.title = title;
                        }
                        if first.page.is_none() {
                            first.page = page;
                        }
                        page_facts::fill(&mut first.facts, facts);
                    }
                    None => {
                        seen.insert(key, found.len());
                        found.push(Found {
                            given,
                            url,
                            title,
                            page,
                            facts,
                        });
                    }
                }
            }
            Err(e) => skipped.push(Skipped {
                given,
                reason: e.reason,
            }),
        }
    }
    // What the page's own header says comes after what the result's fields say.
    for f in &mut found {
        if let Some(page) = &f.page {
            page_facts::fill(&mut f.facts, page_facts::from_header(page));
        }
    }
    Ok((found, skipped))
}

/// What an object tells the object holding it.
#[derive(Default)]
struct Obj {
    nonempty: bool,
    /// Where the URL this object named itself sits in its holder's list.
    own: Option<usize>,
    /// Its own title (`title`, else `name`), cleaned; `None` when empty.
    title: Option<String>,
    /// The text it holds as a document: `data` of `{"type": "text"}`, or that of the
    /// `source` of `{"type": "document"}`.
    text: Option<String>,
    /// It says it failed: a truthy `error`, or an HTTP status outside 2xx.
    failed: bool,
    /// What it says about its page (none when it failed).
    facts: Vec<PageFact>,
}

/// What the walk needs to know of a value.
enum Seen {
    /// A string the holder asked to keep ([`Want::Text`]).
    Str(String),
    Num(f64),
    /// The names of a list the holder asked for ([`Want::Names`]).
    List(Vec<String>),
    Truthy,
    Falsy,
    Object(Obj),
}

impl Seen {
    fn truthy(&self) -> bool {
        match self {
            Seen::Str(s) => !s.is_empty(),
            Seen::Num(n) => *n != 0.0,
            Seen::List(l) => !l.is_empty(),
            Seen::Truthy => true,
            Seen::Falsy => false,
            Seen::Object(o) => o.nonempty,
        }
    }
}

/// What the holder of a value wants of it, beyond the URLs inside it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Want {
    /// Its truthiness: a string is not copied.
    Nothing,
    /// A string, kept.
    Text,
    /// A string, or the strings and `name`s of a list's items, kept (authors).
    Names,
    /// An array whose string items are URLs (the top level, `citations`, …).
    UrlList,
    /// An item of such an array: an http(s) string is a URL.
    UrlItem,
}

/// The keys `sources.py` takes an object's URL and title from, in order of preference.
const URL_KEYS: [&str; 3] = ["url", "link", "source_url"];
const TITLE_KEYS: [&str; 2] = ["title", "name"];
/// Where the URL is when `URL_KEYS` name none (only http(s) strings count).
const MORE_URL_KEYS: [&str; 4] = ["sourceURL", "sourceUrl", "uri", "source"];
/// Where the page's own text is, in order of preference; `content` last, with its rule.
const PAGE_KEYS: [&str; 5] = ["raw_content", "markdown", "page_content", "text", "content"];
/// Arrays whose items may be bare URL strings.
const URL_LIST_KEYS: [&str; 3] = ["citations", "urls", "sources"];
/// Where an object says when its page was published, in order of preference: the fields
/// that say "published", then the ones that say only "date" or the page's age.
const PUBLISHED_KEYS: [&str; 8] = [
    "publishedDate",
    "published_date",
    "publishedTime",
    "datePublished",
    "article:published_time",
    "date",
    "page_age",
    "age",
];
/// Where it names its site (else a `source` that is a name, or a `profile`'s name).
const SITE_KEYS: [&str; 4] = ["siteName", "site_name", "ogSiteName", "og:site_name"];
const LANGUAGE_KEYS: [&str; 2] = ["language", "lang"];
const AUTHOR_KEYS: [&str; 2] = ["author", "authors"];

fn want_of(key: &str) -> Want {
    if URL_LIST_KEYS.contains(&key) {
        Want::UrlList
    } else if AUTHOR_KEYS.contains(&key) {
        Want::Names
    } else if URL_KEYS.contains(&key)
        || TITLE_KEYS.contains(&key)
        || MORE_URL_KEYS.contains(&key)
        || PAGE_KEYS.contains(&key)
        || PUBLISHED_KEYS.contains(&key)
        || SITE_KEYS.contains(&key)
        || LANGUAGE_KEYS.contains(&key)
        || matches!(key, "type" | "data")
    {
        Want::Text
    } else {
        Want::Nothing
    }
}

fn is_web(url: &str) -> bool {
    url.starts_with("http://") || url.starts_with("https://")
}

/// Whether `text` can be the page's text: not blank, and not the skill's `web_extract`
/// saying it summarized or failed (hermes-agent `tools/web_tools.py`,
/// `process_content_with_llm`).
fn page_text(text: String) -> Option<String> {
    let t = text.trim();
    let not_the_page = t.is_empty()
        || t.starts_with("[Failed to process content:")
        || t.starts_with("[Content too large to process:")
        || t.ends_with("[... summary truncated for context management ...]");
    (!not_the_page).then_some(text)
}

/// The fields of one object the rules read, as its keys arrive (a later duplicate key
/// wins, as in a Python dict).
#[derive(Default)]
struct Fields {
    urls: [Option<Seen>; 3],
    more_urls: [Option<Seen>; 4],
    titles: [Option<Seen>; 2],
    pages: [Option<Seen>; 5],
    has_score: bool,
    has_raw_content: bool,
    kind: Option<String>,
    data: Option<String>,
    metadata: Option<Obj>,
    /// `content` or `source` as an object: an Anthropic document and its source.
    content: Option<Obj>,
    source: Option<Obj>,
    /// Brave's `profile` of the site a result is on.
    profile: Option<Obj>,
    published: [Option<Seen>; 8],
    sites: [Option<Seen>; 4],
    languages: [Option<Seen>; 2],
    authors: [Option<Seen>; 2],
    failed: bool,
}

impl Fields {
    fn take(&mut self, key: &str, seen: Seen) {
        if let Some(i) = URL_KEYS.iter().position(|k| *k == key) {
            self.urls[i] = Some(seen);
            return;
        }
        if let Some(i) = TITLE_KEYS.iter().position(|k| *k == key) {
            self.titles[i] = Some(seen);
            return;
        }
        if key == "raw_content" {
            self.has_raw_content = true;
        }
        match (key, seen) {
            ("metadata", Seen::Object(o)) => self.metadata = Some(o),
            ("content", Seen::Object(o)) => self.content = Some(o),
            ("source", Seen::Object(o)) => self.source = Some(o),
            ("profile", Seen::Object(o)) => self.profile = Some(o),
            ("score", _) => self.has_score = true,
            ("type", Seen::Str(s)) => self.kind = Some(s),
            ("data", Seen::Str(s)) => self.data = Some(s),
            ("error", seen) => self.failed |= seen.truthy(),
            ("statusCode" | "status_code", Seen::Num(n)) => {
                self.failed |= !(200.0..300.0).contains(&n)
            }
            (key, seen) => {
                let at = |keys: &[&str]| keys.iter().position(|k| *k == key);
                if let Some(i) = at(&PAGE_KEYS) {
                    self.pages[i] = Some(seen);
                } else if let Some(i) = at(&MORE_URL_KEYS) {
                    self.more_urls[i] = Some(seen);
                } else if let Some(i) = at(&PUBLISHED_KEYS) {
                    self.published[i] = Some(seen);
                } else if let Some(i) = at(&SITE_KEYS) {
                    self.sites[i] = Some(seen);
                } else if let Some(i) = at(&LANGUAGE_KEYS) {
                    self.languages[i] = Some(seen);
                } else if let Some(i) = at(&AUTHOR_KEYS) {
                    self.authors[i] = Some(seen);
                }
            }
        }
    }

    /// What the object says about its page, each kind from the first of its keys that
    /// reads as one, then from its `metadata`; nothing when it says it failed. Read
    /// before [`Fields::url`], which takes the strings it passes over.
    fn facts(&mut self) -> Vec<PageFact> {
        if self.failed || self.metadata.as_ref().is_some_and(|m| m.failed) {
            return Vec::new();
        }
        fn text(slot: &Option<Seen>) -> Option<&str> {
            match slot {
                Some(Seen::Str(s)) => Some(s),
                _ => None,
            }
        }
        let mut facts = Vec::new();
        if let Some(d) = self
            .published
            .iter()
            .filter_map(text)
            .find_map(page_facts::published)
        {
            facts.push(PageFact::Published(d));
        }
        // A `source` that is no URL and no path names the site (SerpApi's results).
        let source = text(&self.more_urls[3])
            .filter(|s| !s.contains(['/', '\\']))
            .and_then(page_facts::name);
        let profile = self.profile.as_ref().and_then(|p| p.title.clone());
        if let Some(site) = self
            .sites
            .iter()
            .filter_map(text)
            .find_map(page_facts::name)
            .or(source)
            .or(profile)
        {
            facts.push(PageFact::Site(site));
        }
        if let Some(lang) = self
            .languages
            .iter()
            .filter_map(text)
            .find_map(page_facts::language)
        {
            facts.push(PageFact::Language(lang));
        }
        let authors = self.authors.iter().find_map(|slot| {
            let names = match slot {
                Some(Seen::Str(s)) => page_facts::authors([s.as_str()]),
                Some(Seen::List(l)) => page_facts::authors(l.iter().map(String::as_str)),
                _ => Vec::new(),
            };
            (!names.is_empty()).then_some(names)
        });
        if let Some(names) = authors {
            facts.push(PageFact::Authors(names));
        }
        if let Some(m) = &mut self.metadata {
            page_facts::fill(&mut facts, std::mem::take(&mut m.facts));
        }
        facts
    }

    /// The object's own URL: `sources.py`'s rule, else the first http(s) string of the
    /// keys it does not know.
    fn url(&mut self) -> Option<String> {
        let first = self
            .urls
            .iter_mut()
            .find(|s| s.as_ref().is_some_and(Seen::truthy))
            .and_then(Option::take);
        match first {
            Some(Seen::Str(url)) if is_web(&url) => Some(url),
            Some(_) => None,
            None => self.more_urls.iter_mut().find_map(|s| match s.take() {
                Some(Seen::Str(url)) if is_web(&url) => Some(url),
                _ => None,
            }),
        }
    }

    /// The object's own title: the first truthy of `title`, `name`, if a string.
    fn title(&mut self) -> Option<String> {
        match self
            .titles
            .iter_mut()
            .find(|s| s.as_ref().is_some_and(Seen::truthy))
            .and_then(Option::take)
        {
            Some(Seen::Str(t)) => Some(super::clean_title(&t)).filter(|t| !t.is_empty()),
            _ => None,
        }
    }

    /// The page text the object holds, by the module's rule.
    fn page(&mut self) -> Option<String> {
        if self.failed || self.metadata.as_ref().is_some_and(|m| m.failed) {
            return None;
        }
        let content_is_page = !self.has_score && !self.has_raw_content;
        for (i, slot) in self.pages.iter_mut().enumerate() {
            let is_content = PAGE_KEYS[i] == "content";
            if is_content && !content_is_page {
                continue;
            }
            if let Some(Seen::Str(text)) = slot.take()
                && let Some(text) = page_text(text)
            {
                return Some(text);
            }
        }
        self.content.as_mut().and_then(|c| c.text.take())
    }

    /// The text this object holds as a document, for the object holding it.
    fn document(&mut self) -> Option<String> {
        match self.kind.as_deref() {
            Some("text") => self.data.take(),
            Some("document") => self.source.as_mut().and_then(|s| s.text.take()),
            _ => None,
        }
    }
}

/// Visits one value, appending every URL in it, in the order `sources.py` walks: an
/// object's own URL before those of the values inside it.
struct Node<'a> {
    out: &'a mut Vec<Raw>,
    /// How many more levels of JSON held in strings to open (0: strings are text).
    nested: u8,
    want: Want,
}

impl Node<'_> {
    /// Walks `text` as JSON when it is an object or array and nesting is allowed,
    /// appending what it names only if all of it parses.
    fn open_string(&mut self, text: &str) {
        let t = text.trim();
        let shaped =
            (t.starts_with('{') && t.ends_with('}')) || (t.starts_with('[') && t.ends_with(']'));
        if self.nested == 0 || !shaped {
            return;
        }
        let mut found = Vec::new();
        let mut de = serde_json::Deserializer::from_str(t);
        let walked = Node {
            out: &mut found,
            nested: self.nested - 1,
            want: Want::UrlList,
        }
        .deserialize(&mut de)
        .and_then(|_| de.end());
        if walked.is_ok() {
            self.out.append(&mut found);
        }
    }

    fn string(mut self, v: Cow<'_, str>) -> Seen {
        self.open_string(&v);
        match self.want {
            Want::Text | Want::Names => Seen::Str(v.into_owned()),
            Want::UrlItem if is_web(&v) => {
                let truthy = !v.is_empty();
                self.out.push(Raw {
                    given: v.into_owned(),
                    title: String::new(),
                    page: None,
                    facts: Vec::new(),
                });
                truth(truthy)
            }
            _ => truth(!v.is_empty()),
        }
    }
}

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = Seen;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Seen, D::Error> {
        d.deserialize_any(self)
    }
}

fn truth(b: bool) -> Seen {
    if b { Seen::Truthy } else { Seen::Falsy }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = Seen;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Seen, E> {
        Ok(truth(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Seen, E> {
        Ok(Seen::Num(v as f64))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Seen, E> {
        Ok(Seen::Num(v as f64))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Seen, E> {
        Ok(Seen::Num(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Seen, E> {
        Ok(self.string(Cow::Borrowed(v)))
    }
    fn visit_string<E>(self, v: String) -> Result<Seen, E> {
        Ok(self.string(Cow::Owned(v)))
    }
    fn visit_unit<E>(self) -> Result<Seen, E> {
        Ok(Seen::Falsy)
    }
    fn visit_none<E>(self) -> Result<Seen, E> {
        Ok(Seen::Falsy)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Seen, A::Error> {
        let want = match self.want {
            Want::UrlList => Want::UrlItem,
            Want::Names => Want::Text,
            _ => Want::Nothing,
        };
        let mut n = 0usize;
        let mut names = Vec::new();
        while let Some(seen) = seq.next_element_seed(Node {
            out: self.out,
            nested: self.nested,
            want,
        })? {
            n += 1;
            if self.want == Want::Names {
                match seen {
                    Seen::Str(s) => names.push(s),
                    Seen::Object(o) => names.extend(o.title),
                    _ => {}
                }
            }
        }
        if self.want == Want::Names {
            return Ok(Seen::List(names));
        }
        Ok(truth(n > 0))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Seen, A::Error> {
        let mut fields = Fields::default();
        let mut inner = Vec::new();
        let mut n = 0usize;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            n += 1;
            let seen = map.next_value_seed(Node {
                out: &mut inner,
                nested: self.nested,
                want: want_of(&key),
            })?;
            fields.take(&key, seen);
        }
        let facts = fields.facts();
        let url = fields.url();
        let title = fields.title();
        let page = fields.page();
        let mut own = None;
        match url {
            Some(given) => {
                // An empty title is filled from the metadata or the document beside it.
                let title = title.clone().or_else(|| {
                    [&mut fields.metadata, &mut fields.content]
                        .into_iter()
                        .find_map(|o| o.as_mut().and_then(|o| o.title.take()))
                });
                own = Some(self.out.len());
                self.out.push(Raw {
                    given,
                    title: title.unwrap_or_default(),
                    page,
                    facts: facts.clone(),
                });
            }
            None => {
                // The URL is in the metadata beside the page text and what it says.
                if let Some(i) = fields.metadata.as_ref().and_then(|m| m.own)
                    && let Some(raw) = inner.get_mut(i)
                {
                    if raw.page.is_none() {
                        raw.page = page;
                    }
                    page_facts::fill(&mut raw.facts, facts.clone());
                }
            }
        }
        self.out.append(&mut inner);
        Ok(Seen::Object(Obj {
            nonempty: n > 0,
            own,
            title,
            text: fields.document(),
            failed: fields.failed,
            facts,
        }))
    }
}

impl From<serde_json::Error> for super::Error {
    fn from(e: serde_json::Error) -> Self {
        super::Error::Json(e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn document_order_dedupe_and_truthiness() {
        let v = json!({
            "data": {"web": [
                {"url": "https://a.example/x/", "title": "A"},
                {"link": "https://b.example", "name": "B"},
                {"url": "", "source_url": "http://c.example"},
                {"url": ["hides"], "link": "https://d.example"},
                {"url": "ftp://e.example"},
                {"url": "https://a.example/x#dup", "title": "dup"},
                {"url": "https://", "title": "broken"}
            ]},
            "results": [{"url": "https://f.example", "title": 7}]
        });
        let (found, skipped) = find_urls(&v.to_string()).unwrap();
        let urls: Vec<_> = found
            .iter()
            .map(|f| (f.url.as_str(), f.title.as_str()))
            .collect();
        assert_eq!(
            urls,
            [
                ("https://a.example/x", "A"),
                ("https://b.example", "B"),
                ("http://c.example", ""),
                ("https://f.example", ""),
            ]
        );
        assert_eq!(skipped.len(), 1);
        assert_eq!(skipped[0].given, "https://");
    }

    #[test]
    fn tool_output_opens_json_held_in_strings_in_place() {
        let inner = json!({"results": [{"url": "https://b.example", "title": "B"}]});
        let deeper =
            json!([{"type": "text", "text": json!({"link": "https://d.example"}).to_string()}]);
        let v = json!([
            {"url": "https://a.example"},
            {"type": "text", "text": inner.to_string()},
            {"url": "https://c.example"},
            {"type": "text", "text": "[not json, https://x.example]"},
            {"type": "text", "text": "{\"url\": \"https://half.example\", "},
            {"text": deeper.to_string()}
        ]);
        let urls = |found: Vec<Found>| found.into_iter().map(|f| f.url).collect::<Vec<_>>();
        let (found, _) = find_urls_in_tool_output(&v.to_string()).unwrap();
        assert_eq!(
            urls(found),
            [
                "https://a.example",
                "https://b.example",
                "https://c.example",
                "https://d.example"
            ]
        );
        // `ingest` finds what sources.py finds: no JSON inside strings.
        let (found, _) = find_urls(&v.to_string()).unwrap();
        assert_eq!(urls(found), ["https://a.example", "https://c.example"]);
        // Three levels down is text.
        let third = json!({"t": json!({"t": json!({"t": json!({"url": "https://e.example"}).to_string()}).to_string()}).to_string()});
        let (found, _) = find_urls_in_tool_output(&third.to_string()).unwrap();
        assert!(found.is_empty(), "{found:?}");
    }

    /// `(url, title, page)` of each URL found.
    fn found(v: serde_json::Value) -> Vec<(String, String, Option<String>)> {
        find_urls(&v.to_string())
            .unwrap()
            .0
            .into_iter()
            .map(|f| (f.url, f.title, f.page))
            .collect()
    }

    fn url(u: &str, title: &str, page: Option<&str>) -> (String, String, Option<String>) {
        (u.into(), title.into(), page.map(Into::into))
    }

    #[test]
    fn more_url_keys_only_where_sources_py_finds_none() {
        let v = json!([
            {"sourceURL": "https://a.example", "title": "A"},
            {"metadata": {"uri": "https://b.example"}},
            {"source": "https://c.example", "name": "C"},
            {"source": "Wikipedia", "link": "https://d.example"},
            // sources.py's rule decides: a url that is not http(s) hides sourceURL.
            {"url": "ftp://e.example", "sourceURL": "https://hidden.example"},
            {"url": "https://f.example", "sourceURL": "https://f.example/original"},
            {"source": "notes/file.txt", "uri": "gs://bucket/x"},
            {"sourceUrl": "https://g.example"}
        ]);
        let urls: Vec<String> = found(v).into_iter().map(|f| f.0).collect();
        assert_eq!(
            urls,
            [
                "https://a.example",
                "https://b.example",
                "https://c.example",
                "https://d.example",
                "https://f.example",
                "https://g.example"
            ]
        );
    }

    #[test]
    fn url_strings_count_only_in_url_lists() {
        let v = json!({
            "citations": ["https://a.example", "not a url", 3, {"url": "https://b.example"}],
            "images": ["https://image.example/x.png"],
            "links": ["https://outlink.example"],
            "data": {"urls": ["https://c.example"], "sources": ["https://d.example"],
                     "results": ["https://e.example"]},
            "nested": [["https://f.example"]]
        });
        let urls: Vec<String> = found(v).into_iter().map(|f| f.0).collect();
        assert_eq!(
            urls,
            [
                "https://a.example",
                "https://b.example",
                "https://c.example",
                "https://d.example"
            ]
        );
        let top = json!([
            "https://a.example",
            "https://b.example/",
            ["https://c.example"]
        ]);
        let urls: Vec<String> = found(top).into_iter().map(|f| f.0).collect();
        assert_eq!(urls, ["https://a.example", "https://b.example"]);
        assert!(found(json!("https://alone.example")).is_empty());
    }

    #[test]
    fn an_empty_title_is_filled_from_metadata_a_document_or_a_later_occurrence() {
        let v = json!([
            "https://a.example",
            {"url": "https://b.example", "metadata": {"title": "B from metadata"}},
            {"url": "https://c.example", "content": {"type": "document", "title": "C doc"}},
            {"url": "https://a.example", "title": "A later"},
            {"url": "https://d.example", "title": "D first"},
            {"url": "https://d.example", "title": "D later"},
            {"url": "https://e.example", "title": 5, "metadata": {"title": "E"}}
        ]);
        let titles: Vec<(String, String)> = found(v).into_iter().map(|f| (f.0, f.1)).collect();
        let t = |u: &str, t: &str| (u.to_string(), t.to_string());
        assert_eq!(
            titles,
            [
                t("https://a.example", "A later"),
                t("https://b.example", "B from metadata"),
                t("https://c.example", "C doc"),
                t("https://d.example", "D first"),
                t("https://e.example", "E")
            ]
        );
    }

    #[test]
    fn page_text_keys_and_what_is_never_page_text() {
        let v = json!([
            {"url": "https://raw.example", "raw_content": "raw page", "content": "snippet", "score": 0.9},
            {"url": "https://md.example", "markdown": "md page", "description": "desc"},
            {"url": "https://lc.example", "page_content": "lc page"},
            {"url": "https://exa.example", "text": "exa page", "summary": "sum", "highlights": ["h"]},
            {"url": "https://jina.example", "content": "jina page", "description": "desc"},
            // Tavily search: content beside a score, or beside raw_content, is a snippet.
            {"url": "https://tavily.example", "content": "snippet", "score": 0.5},
            {"url": "https://tavily2.example", "content": "snippet", "raw_content": null},
            {"url": "https://snip.example", "snippet": "s", "description": "d", "summary": "x",
             "cited_text": "c", "extra_snippets": ["e"], "highlights": ["h"]},
            {"url": "https://blank.example", "markdown": "  \n ", "content": "content page"},
            {"url": "https://html.example", "html": "<p>x</p>", "rawHtml": "<p>x</p>"}
        ]);
        assert_eq!(
            found(v),
            [
                url("https://raw.example", "", Some("raw page")),
                url("https://md.example", "", Some("md page")),
                url("https://lc.example", "", Some("lc page")),
                url("https://exa.example", "", Some("exa page")),
                url("https://jina.example", "", Some("jina page")),
                url("https://tavily.example", "", None),
                url("https://tavily2.example", "", None),
                url("https://snip.example", "", None),
                url("https://blank.example", "", Some("content page")),
                url("https://html.example", "", None)
            ]
        );
    }

    #[test]
    fn page_text_beside_a_url_in_metadata_goes_to_it() {
        let v = json!({
            "data": {"markdown": "scraped", "metadata": {"title": "T", "sourceURL": "https://a.example/"}},
            "docs": [
                {"page_content": "doc text", "metadata": {"source": "https://b.example", "title": "B"}},
                {"kwargs": {"page_content": "serialized", "metadata": {"source": "https://c.example"}}},
                {"page_content": "local", "metadata": {"source": "notes.txt"}}
            ],
            // A URL deeper than the metadata is not the page's.
            "other": {"markdown": "orphan", "metadata": {"links": [{"url": "https://d.example"}]}}
        });
        assert_eq!(
            found(v),
            [
                url("https://a.example", "T", Some("scraped")),
                url("https://b.example", "B", Some("doc text")),
                url("https://c.example", "", Some("serialized")),
                url("https://d.example", "", None)
            ]
        );
    }

    #[test]
    fn a_documents_text_is_page_text_and_a_binary_one_is_not() {
        let doc = |source: serde_json::Value| {
            json!({"type": "web_fetch_result", "url": "https://a.example",
                   "content": {"type": "document", "source": source, "title": "A"}})
        };
        let text = json!({"type": "text", "media_type": "text/plain", "data": "the page"});
        assert_eq!(
            found(doc(text)),
            [url("https://a.example", "A", Some("the page"))]
        );
        let pdf = json!({"type": "base64", "media_type": "application/pdf", "data": "JVBERi0x"});
        assert_eq!(found(doc(pdf)), [url("https://a.example", "A", None)]);
        // An MCP embedded resource: its uri and text.
        let resource = json!({"type": "resource",
            "resource": {"uri": "https://r.example", "mimeType": "text/markdown", "text": "res"}});
        assert_eq!(found(resource), [url("https://r.example", "", Some("res"))]);
    }

    #[test]
    fn a_failed_result_keeps_no_page_text() {
        let v = json!([
            {"markdown": "404 page", "metadata": {"sourceURL": "https://a.example", "statusCode": 404}},
            {"markdown": "error page", "metadata": {"sourceURL": "https://b.example", "error": "Not Found"}},
            {"url": "https://c.example", "content": "", "error": "Scrape failed"},
            {"url": "https://d.example", "content": "ok page", "error": null, "status_code": 200},
            {"url": "https://e.example", "content": "[Failed to process content: timeout. Content size: 9,000 chars]"},
            {"url": "https://f.example", "content": "summary\n\n[... summary truncated for context management ...]"}
        ]);
        assert_eq!(
            found(v),
            [
                url("https://a.example", "", None),
                url("https://b.example", "", None),
                url("https://c.example", "", None),
                url("https://d.example", "", Some("ok page")),
                url("https://e.example", "", None),
                url("https://f.example", "", None)
            ]
        );
    }

    #[test]
    fn the_first_page_text_of_a_url_wins_and_a_later_one_fills_none() {
        let v = json!([
            {"url": "https://a.example", "content": "snippet", "score": 1},
            {"url": "https://a.example/", "raw_content": "page of a"},
            {"url": "https://b.example", "markdown": "first"},
            {"url": "https://b.example", "markdown": "second"}
        ]);
        assert_eq!(
            found(v),
            [
                url("https://a.example", "", Some("page of a")),
                url("https://b.example", "", Some("first"))
            ]
        );
    }
}
