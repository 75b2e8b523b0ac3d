//! What a tool says about a page beside its text — when it was published, the site it is
//! on, its language, its authors — read from the values tools write them in, and from the
//! header an extractor puts at the top of a page's text. Which fields of tool output are
//! read is `ingest`'s rule; this reads the values.
//!
//! A value is kept only where it can be read one way: a publication date is a calendar
//! date written in ISO 8601 (`2023-05-12`, `2023-05-12T09:00:00Z`, `2023-05`, `2023`, or
//! with slashes, `2023/05/12`) or with an English month name (`May 12, 2023`, `12 May
//! 2023`, `Tue, 14 Feb 2023 09:00:00 GMT`, `May 2023`); `03/04/2024` (which day?) and
//! `3 days ago` (since when?) are not kept. The date is the one the page gives, its time
//! and zone dropped, not moved to UTC. A language is a language tag (`en`, `de-AT`,
//! `pt_BR` written `pt-BR`); a site or author name is one line of text, not a URL.

use cite_store::event::PageFact;

/// The longest site name or author name kept, in characters: longer is not a name.
const NAME_MAX: usize = 200;

/// The most authors kept for one page.
const AUTHORS_MAX: usize = 50;

/// `raw` as a publication date (`YYYY-MM-DD`, `YYYY-MM` or `YYYY`), if it reads as one
/// date.
pub fn published(raw: &str) -> Option<String> {
    let t = raw.trim();
    iso_date(t).or_else(|| worded_date(t))
}

/// `2023-05-12`, `2023-05-12T…`, `2023-05-12 09:00`, `2023/05/12`, `2023-05`, `2023`.
fn iso_date(t: &str) -> Option<String> {
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    let year = t.get(..4).filter(|y| digits(y, 4))?;
    let rest = &t[4..];
    if rest.is_empty() {
        return check(year.parse().ok()?, 0, 0);
    }
    let sep = rest.chars().next().filter(|c| matches!(c, '-' | '/'))?;
    let month = rest.get(1..3).filter(|m| digits(m, 2))?;
    let rest = &rest[3..];
    if rest.is_empty() {
        return check(year.parse().ok()?, month.parse().ok()?, 0);
    }
    if !rest.starts_with(sep) {
        return None;
    }
    let day = rest.get(1..3).filter(|d| digits(d, 2))?;
    let after = &rest[3..];
    // A time may follow; anything else makes it some other notation.
    let timed = after.is_empty()
        || after.starts_with('T') && after[1..].starts_with(|c: char| c.is_ascii_digit())
        || after.starts_with(' ') && after[1..].starts_with(|c: char| c.is_ascii_digit());
    if !timed {
        return None;
    }
    check(year.parse().ok()?, month.parse().ok()?, day.parse().ok()?)
}

/// `May 12, 2023`, `May. 12 2023`, `12 May 2023`, `Tue, 14 Feb 2023 09:00:00 GMT`,
/// `May 2023`: English month names, as the tools' English answers write them.
fn worded_date(t: &str) -> Option<String> {
    let words: Vec<&str> = t
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    // A leading weekday (`Tue, 14 Feb 2023`) says nothing more.
    let words = match words.first() {
        Some(w) if weekday(w) => &words[1..],
        _ => &words[..],
    };
    let number = |w: &str| -> Option<u32> {
        (w.len() <= 4 && w.bytes().all(|b| b.is_ascii_digit()))
            .then(|| w.parse().ok())
            .flatten()
    };
    let day = |w: &str| number(w).filter(|d| (1..=31).contains(d));
    let (year, month, day, used) = match words {
        [m, d, y, ..] if month(m).is_some() && day(d).is_some() && y.len() == 4 => {
            (number(y)?, month(m)?, day(d)?, 3)
        }
        [d, m, y, ..] if day(d).is_some() && month(m).is_some() && y.len() == 4 => {
            (number(y)?, month(m)?, day(d)?, 3)
        }
        [m, y, ..] if month(m).is_some() && y.len() == 4 => (number(y)?, month(m)?, 0, 2),
        _ => return None,
    };
    // What follows is a time of day and a zone, or nothing.
    let rest_is_time = words[used..].iter().enumerate().all(|(i, w)| {
        if i == 0 {
            w.contains(':') && w.starts_with(|c: char| c.is_ascii_digit())
        } else {
            w.len() <= 5
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-:".contains(c))
        }
    });
    if !rest_is_time || words.len() > used + 2 {
        return None;
    }
    check(year as i32, month, day as u8)
}

/// The month an English month name or its abbreviation names (`Feb`, `Feb.`, `Sept`).
fn month(w: &str) -> Option<u8> {
    let w = w.trim_end_matches('.').to_ascii_lowercase();
    const NAMES: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    let i = NAMES
        .iter()
        .position(|n| *n == w || (w.len() >= 3 && n.starts_with(w.as_str()) && w.len() <= 4))?;
    Some(i as u8 + 1)
}

fn weekday(w: &str) -> bool {
    let w = w.trim_end_matches('.').to_ascii_lowercase();
    [
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    ]
    .iter()
    .any(|d| *d == w || (w.len() == 3 && d.starts_with(w.as_str())))
}

/// The date as stored, if it is a real one: a day of its month, a month of its year.
fn check(year: i32, month: u8, day: u8) -> Option<String> {
    if !(1000..=9999).contains(&year) {
        return None;
    }
    match (month, day) {
        (0, 0) => Some(format!("{year:04}")),
        (1..=12, 0) => Some(format!("{year:04}-{month:02}")),
        (1..=12, _) => {
            let m = time::Month::try_from(month).ok()?;
            time::Date::from_calendar_date(year, m, day).ok()?;
            Some(format!("{year:04}-{month:02}-{day:02}"))
        }
        _ => None,
    }
}

/// `raw` as a language tag: letters for the language (2 or 3), then subtags of letters
/// and digits, joined by `-` (an `_` is read as `-`).
pub fn language(raw: &str) -> Option<String> {
    let tag = raw.trim().replace('_', "-");
    let mut parts = tag.split('-');
    let primary = parts.next()?;
    let ok = (2..=3).contains(&primary.len())
        && primary.bytes().all(|b| b.is_ascii_alphabetic())
        && parts
            .all(|p| (1..=8).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphanumeric()));
    ok.then_some(tag)
}

/// `raw` as the name of a site, publication or person: one line, not empty, not a URL,
/// not too long to be a name.
pub fn name(raw: &str) -> Option<String> {
    let name = crate::clean_title(raw);
    let url_like = name.starts_with("http://") || name.starts_with("https://");
    (!name.is_empty() && !url_like && name.chars().count() <= NAME_MAX).then_some(name)
}

/// The authors a list of names gives, each once, in order.
pub fn authors<'a>(raw: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for a in raw.into_iter().filter_map(name) {
        if !out.contains(&a) && out.len() < AUTHORS_MAX {
            out.push(a);
        }
    }
    out
}

/// Adds to `facts` those of `more` whose kind `facts` lacks, keeping the kinds in order.
pub fn fill(facts: &mut Vec<PageFact>, more: Vec<PageFact>) {
    for fact in more {
        if !facts.iter().any(|f| f.kind() == fact.kind()) {
            facts.push(fact);
        }
    }
    facts.sort_by_key(PageFact::kind);
}

/// How many lines of a page's text a header may take.
const HEADER_LINES: usize = 40;

/// The facts in the header an extractor writes at the top of a page's text: a YAML
/// front matter block (`---`, then `key: value` lines, then `---`), or Jina Reader's
/// `Title: …` / `URL Source: …` / `Published Time: …` lines before `Markdown Content:`.
pub fn from_header(text: &str) -> Vec<PageFact> {
    let mut lines = text.trim_start_matches('\u{feff}').lines();
    let first = lines.next().unwrap_or("").trim_end();
    let mut fields: Vec<(String, String)> = Vec::new();
    if first == "---" {
        let mut closed = false;
        let mut key_of_list: Option<String> = None;
        for line in lines.by_ref().take(HEADER_LINES) {
            let line = line.trim_end();
            if line == "---" || line == "..." {
                closed = true;
                break;
            }
            // The items of a list under the key before (`author:` then `  - A`).
            if let (Some(key), Some(item)) = (&key_of_list, line.trim_start().strip_prefix("- "))
                && line.starts_with([' ', '-'])
            {
                fields.push((key.clone(), unquote(item).to_string()));
                continue;
            }
            key_of_list = None;
            if line.starts_with([' ', '\t']) {
                continue;
            }
            if let Some((key, value)) = line.split_once(':') {
                let value = value.trim();
                if value.is_empty() {
                    key_of_list = Some(key.trim().to_string());
                } else if let Some(items) =
                    value.strip_prefix('[').and_then(|v| v.strip_suffix(']'))
                {
                    for item in items.split(',') {
                        fields.push((key.trim().to_string(), unquote(item.trim()).to_string()));
                    }
                } else {
                    fields.push((key.trim().to_string(), unquote(value).to_string()));
                }
            }
        }
        if !closed {
            return Vec::new();
        }
    } else if first.starts_with("Title:") || first.starts_with("URL Source:") {
        // Blank lines between the header lines; the first line of another shape ends it.
        for line in std::iter::once(first).chain(lines.take(HEADER_LINES)) {
            if line.trim().is_empty() {
                continue;
            }
            let Some((key, value)) = line.split_once(':') else {
                break;
            };
            if key == "Markdown Content"
                || !key.chars().all(|c| c.is_ascii_alphabetic() || c == ' ')
            {
                break;
            }
            fields.push((key.trim().to_string(), value.trim().to_string()));
        }
    } else {
        return Vec::new();
    }
    fn values<'a>(
        fields: &'a [(String, String)],
        keys: &'a [&'a str],
    ) -> impl Iterator<Item = &'a str> {
        fields
            .iter()
            .filter(|(k, _)| keys.iter().any(|key| k.eq_ignore_ascii_case(key)))
            .map(|(_, v)| v.as_str())
    }
    let value = |keys: &'static [&'static str]| values(&fields, keys);
    let mut facts = Vec::new();
    if let Some(date) = value(&[
        "date",
        "published",
        "publishedTime",
        "published_time",
        "Published Time",
        "datePublished",
        "date_published",
        "publishedDate",
        "published_date",
    ])
    .find_map(published)
    {
        facts.push(PageFact::Published(date));
    }
    if let Some(site) = value(&["site", "site_name", "siteName", "sitename"]).find_map(name) {
        facts.push(PageFact::Site(site));
    }
    if let Some(lang) = value(&["lang", "language"]).find_map(language) {
        facts.push(PageFact::Language(lang));
    }
    let names = authors(value(&["author", "authors"]));
    if !names.is_empty() {
        facts.push(PageFact::Authors(names));
    }
    facts
}

/// A YAML scalar without its quotes.
fn unquote(v: &str) -> &str {
    let v = v.trim();
    for q in ['"', '\''] {
        if let Some(inner) = v.strip_prefix(q).and_then(|v| v.strip_suffix(q)) {
            return inner;
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn publication_dates_read_one_way_only() {
        for (raw, want) in [
            ("2023-05-12", "2023-05-12"),
            ("2021-11-03T00:00:00.000Z", "2021-11-03"),
            ("2023-05-12T23:30:00-05:00", "2023-05-12"),
            ("2023-02-14 09:00:00", "2023-02-14"),
            ("2023/05/12", "2023-05-12"),
            ("2023-05", "2023-05"),
            (" 2019 ", "2019"),
            ("May 14, 2019", "2019-05-14"),
            ("Nov 3, 2021", "2021-11-03"),
            ("Sept. 3, 2021", "2021-09-03"),
            ("February 14, 2023", "2023-02-14"),
            ("14 February 2023", "2023-02-14"),
            ("Tue, 14 Feb 2023 09:00:00 GMT", "2023-02-14"),
            ("May 2023", "2023-05"),
        ] {
            assert_eq!(published(raw).as_deref(), Some(want), "{raw}");
        }
        for raw in [
            "3 days ago",
            "03/04/2024",
            "2023-02-30",
            "2023-13",
            "2023-05-12garbage",
            "12 Mayday 2023",
            "May 12, 2023 and later",
            "yesterday",
            "",
            "0999",
            "20230512",
            "May 0, 2023",
        ] {
            assert_eq!(published(raw), None, "{raw}");
        }
    }

    #[test]
    fn languages_names_and_authors() {
        assert_eq!(language("en").as_deref(), Some("en"));
        assert_eq!(language(" pt_BR ").as_deref(), Some("pt-BR"));
        assert_eq!(language("de-AT").as_deref(), Some("de-AT"));
        for bad in ["english", "e", "en-", "en US", "", "12"] {
            assert_eq!(language(bad), None, "{bad}");
        }
        assert_eq!(name(" Physics\nNotes ").as_deref(), Some("Physics Notes"));
        assert_eq!(name("https://a.example"), None);
        assert_eq!(name(&"x".repeat(201)), None);
        assert_eq!(
            authors(["K. Ito", " ", "R. Roe", "K. Ito"]),
            ["K. Ito", "R. Roe"]
        );
    }

    #[test]
    fn an_extractors_header_gives_facts() {
        let yaml = "---\ntitle: \"Lake ice\"\ndate: 2021-11-03\nsite_name: 'Limnology'\nlang: en\nauthor:\n  - R. Wetzel\n  - A. Roe\n---\n\n# Lake ice\n";
        assert_eq!(
            from_header(yaml),
            [
                PageFact::Published("2021-11-03".into()),
                PageFact::Site("Limnology".into()),
                PageFact::Language("en".into()),
                PageFact::Authors(vec!["R. Wetzel".into(), "A. Roe".into()]),
            ]
        );
        assert_eq!(
            from_header("---\nauthors: [A. Roe, \"B. Poe\"]\n---\n"),
            [PageFact::Authors(vec!["A. Roe".into(), "B. Poe".into()])]
        );
        let jina = "Title: Why lakes freeze\n\nURL Source: https://limnology.example.edu/lake-ice\n\nPublished Time: 2021-11-03T00:00:00.000Z\n\nMarkdown Content:\nA lake freezes…";
        assert_eq!(
            from_header(jina),
            [PageFact::Published("2021-11-03".into())]
        );
        // No header, or one that never closes, or prose that mentions a date.
        assert!(from_header("# Title\n\ndate: 2021-11-03\n").is_empty());
        assert!(from_header("---\ndate: 2021-11-03\n\nText").is_empty());
        assert!(from_header("").is_empty());
    }

    #[test]
    fn filling_keeps_the_first_of_each_kind() {
        let mut facts = vec![PageFact::Language("en".into())];
        fill(
            &mut facts,
            vec![
                PageFact::Language("de".into()),
                PageFact::Published("2020".into()),
            ],
        );
        assert_eq!(
            facts,
            [
                PageFact::Published("2020".into()),
                PageFact::Language("en".into())
            ]
        );
    }
}
