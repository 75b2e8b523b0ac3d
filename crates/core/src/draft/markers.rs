//! Bracket markers in a line of prose: the well-formed ones, and the ones that try to be
//! markers and are not.
//!
//! One rule decides what a citation is, everywhere (coverage, the ids `verify` looks up,
//! the ids `render --cited-in` lists): a well-formed `[N]` (1–4 digits). The markers are
//! `[N]`, `[tool:NAME]`, `[policy]`, `[unverified]` — the words in any ASCII case — not
//! glued to another bracket, not followed by a word character, and not a link (`[1](…)`)
//! or a reference definition (`[1]: …`).
//!
//! A marker glued to the word before it (`carmakers[7].`, `a lot[2][3].`, `arr[1]`) is
//! the most common way models write citations, and the reader sees it as one: it is a
//! marker, marked [`Marker::glued`], so that it is rendered, checked against the ledger
//! and counted, and `verify` warns with the form to write (`carmakers.[7]`). Issue 9 had
//! read `arr[1]` as indexing and counted it for nothing, which let `verify` pass a draft
//! whose reader saw `[2]` with no source (issue 18). Code is still code: inline code and
//! fences are never prose.
//!
//! "Word character" is a letter, digit or `_`, except CJK characters: unspaced CJK prose
//! has no other place for a marker (`氷は水より軽い[1]。`), so a marker there is not
//! glued at all. A marker is glued to a figure's sign too (`rose 4%[2].`, `85°[1].`).
//!
//! A bracket group that is plainly an attempt at a marker but not a well-formed one
//! (`[1, 2]`, `[tool: python]`, `[tool:]`, `[[policy]]`, `[12345]`, `[1]junk`) gives no
//! provenance; [`malformed`] names it and the form to write instead, so the writer hears
//! of it. Where such a group still shows the reader one id (`[1]junk`, `[[1]]`),
//! [`shown_ids`] gives it, so that the id is checked and rendered all the same.
//!
//! Pandoc's citations are markers too (issue 22): `[@source3]`, `[@source1; @source2]`,
//! and the forms with a prefix, a locator or a suppressed author (`[see @source3, p. 4]`,
//! `[-@source3]`), the keys `cite convert` and the exports give ledger ids. A reader of
//! the pandoc document sees them as citations, so they cite as `[N]` does, under the same
//! rule for what may stand around them. A bracketed citation of any other key
//! (`[@smith2020]`) cites nothing the ledger can check: it is malformed, and gives no
//! provenance. Pandoc's bare in-text form (`@source3 says`) is not read: a bracketed
//! form is what `cite convert` writes and what a writer is told to write.

use crate::text::is_cjk;

/// What a well-formed marker declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `[N]`, 1–4 digits.
    Cite(u64),
    /// A pandoc citation of ledger ids, `[@source1; see @source2, p. 4]`, in order.
    Pandoc(Vec<u64>),
    /// `[tool:NAME]`: checked by running a tool.
    Tool,
    /// `[policy]`: a statement of policy, not a factual claim.
    Policy,
    /// `[unverified]`: model knowledge, declared as such.
    Unverified,
}

impl Kind {
    /// The ledger ids it cites, in order (none for `[tool:…]`, `[policy]`, `[unverified]`).
    pub(crate) fn ids(&self) -> &[u64] {
        match self {
            Kind::Cite(id) => std::slice::from_ref(id),
            Kind::Pandoc(ids) => ids,
            Kind::Tool | Kind::Policy | Kind::Unverified => &[],
        }
    }
}

/// A well-formed marker at `start..end` (byte offsets, brackets included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Marker {
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
    /// Glued to the word before it (`carmakers[7]`): a marker all the same, written
    /// after the punctuation instead (`carmakers.[7]`).
    pub glued: bool,
}

/// Every well-formed marker in `line`, left to right.
pub(crate) fn markers(line: &str) -> impl Iterator<Item = Marker> + '_ {
    line.match_indices('[')
        .filter_map(move |(start, _)| marker_at(line, start))
}

/// The well-formed marker whose `[` is at byte `start` of `line`, if any. Whether a
/// bracket opens a marker depends only on its surroundings, so this needs no scan from
/// the start of the line.
pub(crate) fn marker_at(line: &str, start: usize) -> Option<Marker> {
    let bytes = line.as_bytes();
    if bytes.get(start) != Some(&b'[') {
        return None;
    }
    // The content runs to the next bracket, which must close it: `[[x]` is no marker at
    // its first bracket (and the second is glued to the first).
    let close = start + 1 + line[start + 1..].find(['[', ']'])?;
    if bytes[close] != b']' {
        return None;
    }
    let kind = classify(&line[start + 1..close])?;
    let before = line[..start].chars().next_back();
    let after = line[close + 1..].chars().next();
    let after_bracket = before == Some('[');
    let glued_after = after.is_some_and(|c| matches!(c, ']' | '(' | ':') || is_word(c));
    (!after_bracket && !glued_after).then_some(Marker {
        start,
        end: close + 1,
        kind,
        glued: before.is_some_and(ends_word),
    })
}

/// The ids a bracket group at byte `start` shows the reader when it is no well-formed
/// marker but plainly cites: `[1]junk`, `x[1]y`, `[[1]]`, `[[1]`, `[1]]`, and the same
/// of a pandoc citation (`[@source1]junk`). Not a link (`[1](…)`), a reference
/// definition (`[1]: …`), a list (`[1, 2]`) or an id of 5+ digits.
pub(crate) fn shown_ids(line: &str, start: usize) -> Option<Vec<u64>> {
    let bytes = line.as_bytes();
    if bytes.get(start) != Some(&b'[') || marker_at(line, start).is_some() {
        return None;
    }
    let content = start + 1;
    let close = content + line[content..].find(['[', ']'])?;
    if bytes[close] != b']' || matches!(bytes.get(close + 1), Some(b'(' | b':')) {
        return None;
    }
    let text = &line[content..close];
    if (1..=4).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse().ok().map(|id| vec![id]);
    }
    match pandoc_keys(text) {
        Some(Ok(ids)) => Some(ids),
        _ => None,
    }
}

/// For a marker glued to the word before it, the text the reader sees (the word, the
/// run of markers, and a punctuation mark right after them) and what to do instead:
/// `carmakers[7].` → `write "carmakers.[7]"`.
pub(crate) fn glued_fix<'a>(line: &'a str, m: &Marker) -> (&'a str, String) {
    let word = line[..m.start]
        .char_indices()
        .rev()
        .take_while(|&(_, c)| ends_word(c))
        .last()
        .map_or(m.start, |(i, _)| i);
    let mut end = m.end;
    while let Some(next) = marker_at(line, end) {
        end = next.end;
    }
    let marks = &line[m.start..end];
    if matches!(m.kind, Kind::Pandoc(_)) {
        // Pandoc's own place for a citation is before the punctuation, after a space:
        // a note style moves it behind the punctuation itself.
        let fix = format!("write \"{} {marks}\"", &line[word..m.start]);
        return (&line[word..end], fix);
    }
    let punct = line[end..]
        .chars()
        .next()
        .filter(|c| matches!(c, '.' | ',' | ';' | ':' | '!' | '?'));
    match punct {
        Some(p) => {
            let written = &line[word..end + p.len_utf8()];
            let fix = format!("write \"{}{p}{marks}\"", &line[word..m.start]);
            (written, fix)
        }
        None => (
            &line[word..end],
            format!("put {marks} right after the punctuation that ends the sentence"),
        ),
    }
}

/// The marker a bracket's content spells, if any.
fn classify(content: &str) -> Option<Kind> {
    if content.contains('@') {
        return pandoc_keys(content)?.ok().map(Kind::Pandoc);
    }
    if (1..=4).contains(&content.len()) && content.bytes().all(|b| b.is_ascii_digit()) {
        return content.parse().ok().map(Kind::Cite);
    }
    if content.eq_ignore_ascii_case("policy") {
        return Some(Kind::Policy);
    }
    if content.eq_ignore_ascii_case("unverified") {
        return Some(Kind::Unverified);
    }
    let name = content
        .get(..5)
        .filter(|p| p.eq_ignore_ascii_case("tool:"))
        .map(|_| &content[5..])?;
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphanumeric());
    let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
    (first_ok && rest_ok).then_some(Kind::Tool)
}

/// The ledger ids of a pandoc citation group's content (`@source1; see @source2, p. 4`):
/// `None` when it is no citation group (an item without a key, or with two: pandoc reads
/// such brackets as text), `Err(key)` naming the first key that is no ledger id.
///
/// Pandoc's rules, as far as they decide which key an item cites: items are separated by
/// `;`; a key follows an `@` (or `-@`, which suppresses the author) that starts the item
/// or follows a space, so `me@x.org` is none; it is `{…}`, or a letter, digit or `_` and
/// then those and internal punctuation (`:.#$%&-+?<>~/` followed by a letter or digit),
/// so `@source3.` cites `source3` and `@source3:x` does not.
fn pandoc_keys(content: &str) -> Option<Result<Vec<u64>, &str>> {
    let mut ids = Vec::new();
    let mut foreign = None;
    for item in content.split(';') {
        let mut keys = item_keys(item);
        let key = keys.next()?;
        if keys.next().is_some() {
            return None;
        }
        match ledger_id(key) {
            Some(id) => ids.push(id),
            None => foreign = foreign.or(Some(key)),
        }
    }
    Some(match foreign {
        Some(key) => Err(key),
        None => Ok(ids),
    })
}

/// The citation keys of one item of a pandoc citation group.
fn item_keys(item: &str) -> impl Iterator<Item = &str> {
    item.match_indices('@').filter_map(move |(at, _)| {
        let before = &item[..at];
        let lead = before.strip_suffix('-').unwrap_or(before);
        if !(lead.is_empty() || lead.ends_with(char::is_whitespace)) {
            return None;
        }
        let rest = &item[at + 1..];
        if let Some(braced) = rest.strip_prefix('{') {
            return braced.find('}').map(|end| &braced[..end]);
        }
        let key_char = |c: char| c.is_alphanumeric() || c == '_';
        let mut end = 0;
        let mut chars = rest.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            let internal = ":.#$%&-+?<>~/".contains(c)
                && end > 0
                && chars.peek().is_some_and(|&(_, n)| key_char(n));
            if !(key_char(c) || internal) {
                break;
            }
            end = i + c.len_utf8();
        }
        (end > 0).then(|| &rest[..end])
    })
}

/// The ledger id a citation key names: `source` and 1–4 digits, as `[N]` takes them and
/// the CSL-JSON export spells them (`source7`, never `source07`).
fn ledger_id(key: &str) -> Option<u64> {
    let digits = key.strip_prefix("source")?;
    let id: u64 = digits.parse().ok()?;
    ((1..=4).contains(&digits.len()) && digits == id.to_string()).then_some(id)
}

/// A bracket group that tries to be a marker and is not one: as written (with any
/// brackets glued to it), and what to write instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Malformed<'a> {
    pub written: &'a str,
    pub fix: String,
}

/// The malformed marker whose content opens with the `[` at byte `start` of `line`.
pub(crate) fn malformed(line: &str, start: usize) -> Option<Malformed<'_>> {
    let bytes = line.as_bytes();
    if bytes.get(start) != Some(&b'[') || marker_at(line, start).is_some() {
        return None;
    }
    let close = start + 1 + line[start + 1..].find(['[', ']'])?;
    if bytes[close] != b']' || bytes.get(close + 1) == Some(&b'(') {
        // Not a group, or the text of a link.
        return None;
    }
    let content = &line[start + 1..close];
    let from = start
        - line[..start]
            .bytes()
            .rev()
            .take_while(|&b| b == b'[')
            .count();
    let to = close + 1 + line[close + 1..].bytes().take_while(|&b| b == b']').count();
    let written = &line[from..to];
    let fix = match classify(content) {
        // Well-formed inside: brackets glued to it, or a word right after it, make it
        // malformed (`[1]: …` is a reference definition).
        Some(_) if from < start || to > close + 1 => format!("write [{content}]"),
        Some(_) if line[to..].starts_with(is_word) => {
            format!("write [{content}] with a space after it")
        }
        Some(_) => return None,
        None => fix_for(content)?,
    };
    Some(Malformed { written, fix })
}

/// What to write instead of a bracket group whose content is not a marker's, when it
/// is plainly trying to be one: ids (`1, 2`, `1-3`, ` 1 `, `12345`), or a marker word
/// with something after it (`tool: x`, `tool bad`, `policy:`, `unverified:x`).
fn fix_for(content: &str) -> Option<String> {
    if let Some(Err(key)) = pandoc_keys(content) {
        return Some(format!(
            "@{key} is no ledger id: cite a ledger source as [@sourceN], N the id `cite add` printed"
        ));
    }
    let t = content.trim();
    if t.starts_with(|c: char| c.is_ascii_digit())
        && t.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, ',' | ';' | ' ' | '-' | '–'))
    {
        return Some(ids_fix(t));
    }
    for word in ["policy", "unverified"] {
        if strip_word(t, word).is_some() {
            return Some(format!("write [{word}]"));
        }
    }
    let name = strip_word(t, "tool")?.trim_start_matches([':', '=']).trim();
    let named = classify(&format!("tool:{name}")).is_some();
    Some(if named {
        format!("write [tool:{name}]")
    } else {
        "write [tool:NAME], NAME the tool you ran".to_string()
    })
}

/// The fix for a group of ids: each in its own brackets, ranges spelled out when short.
fn ids_fix(t: &str) -> String {
    const LONG: &str = "an id in a draft has 1 to 4 digits, so this one cites nothing";
    let mut ids: Vec<u64> = Vec::new();
    for part in t.split([',', ';', ' ']).filter(|p| !p.is_empty()) {
        let (lo, hi) = part.split_once(['-', '–']).unwrap_or((part, part));
        let parse = |s: &str| (1..=4).contains(&s.len()).then(|| s.parse::<u64>().ok())?;
        match (parse(lo), parse(hi)) {
            (Some(lo), Some(hi)) if lo <= hi && hi - lo < 10 => ids.extend(lo..=hi),
            _ if lo.len() > 4 || hi.len() > 4 => return LONG.to_string(),
            _ => return "write each id in its own brackets: [1][2]".to_string(),
        }
    }
    let cited: String = ids.iter().map(|id| format!("[{id}]")).collect();
    format!("write {cited}")
}

/// `text` without its leading `word` (any ASCII case), when no letter, digit or `_`
/// follows the word.
fn strip_word<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let rest = text
        .get(..word.len())
        .filter(|w| w.eq_ignore_ascii_case(word))
        .map(|_| &text[word.len()..])?;
    (!rest.starts_with(|c: char| c.is_alphanumeric() || c == '_')).then_some(rest)
}

/// A character a marker may not touch.
fn is_word(c: char) -> bool {
    (c.is_alphanumeric() || c == '_') && !is_cjk(c)
}

/// A character a marker right after it is glued to: a word's, or a figure's sign
/// (`rose 4%[2].` is `rose 4%.[2]` misplaced, as `carmakers[7].` is).
fn ends_word(c: char) -> bool {
    is_word(c) || matches!(c, '%' | '‰' | '°')
}

/// The malformed markers of issue 9, each of which once glued an unsupported sentence
/// to the supported one after it.
#[cfg(test)]
pub(crate) const ISSUE9_MALFORMED: &[&str] = &[
    "[tool:]",
    "[tool bad]",
    "[tool=bad]",
    "[tool:]]",
    "[[policy]]",
    "[policy]]",
    "[policy:]",
    "[unverified:bad]",
    "[12345]",
    "[1, 2]",
    "[tool: python]",
];

#[cfg(test)]
mod tests {
    use super::{ISSUE9_MALFORMED, Kind, glued_fix, malformed, markers, shown_ids};

    fn kinds(line: &str) -> Vec<Kind> {
        markers(line).map(|m| m.kind).collect()
    }

    /// Each malformed group in `line`: as written, and its fix.
    fn bad(line: &str) -> Vec<(&str, String)> {
        line.match_indices('[')
            .filter_map(|(at, _)| malformed(line, at))
            .map(|m| (m.written, m.fix))
            .collect()
    }

    #[test]
    fn well_formed_markers() {
        assert_eq!(kinds("a claim.[1]"), [Kind::Cite(1)]);
        assert_eq!(kinds("a claim [tool:curl]"), [Kind::Tool]);
        assert_eq!(kinds("x [tool:gh.search-v2_1] y"), [Kind::Tool]);
        assert_eq!(kinds("x.[policy]"), [Kind::Policy]);
        assert_eq!(kinds("x.[unverified]"), [Kind::Unverified]);
        assert_eq!(
            kinds("x.[Unverified] [POLICY] [Tool:x]"),
            [Kind::Unverified, Kind::Policy, Kind::Tool]
        );
        assert_eq!(kinds("[9999]"), [Kind::Cite(9999)]);
    }

    #[test]
    fn adjacent_citations_are_both_markers() {
        assert_eq!(kinds("water.[1][2]"), [Kind::Cite(1), Kind::Cite(2)]);
        assert_eq!(
            kinds("water.[1][unverified]"),
            [Kind::Cite(1), Kind::Unverified]
        );
        let m: Vec<_> = markers("ab.[1][2]").collect();
        assert_eq!((m[0].start, m[0].end, m[1].start, m[1].end), (3, 6, 6, 9));
    }

    #[test]
    fn a_marker_glued_to_the_word_before_is_a_marker_marked_glued() {
        // Issue 18: the reader sees these as citations.
        assert_eq!(kinds("word[1] here"), [Kind::Cite(1)]);
        assert_eq!(kinds("x_[1]"), [Kind::Cite(1)]);
        assert_eq!(kinds("2[1]"), [Kind::Cite(1)]);
        assert_eq!(kinds("é[unverified]"), [Kind::Unverified]);
        assert_eq!(kinds("a lot[2][3]."), [Kind::Cite(2), Kind::Cite(3)]);
        let glued: Vec<bool> = markers("a lot[2][3]. b.[4]").map(|m| m.glued).collect();
        assert_eq!(glued, [true, false, false]);
        let glued: Vec<bool> = markers("rose 4%[2]. at 85°[1], (x)[3]")
            .map(|m| m.glued)
            .collect();
        assert_eq!(glued, [true, true, false]);
        let line = "Prices rose 4%[2]. Next.";
        let m = markers(line).next().unwrap();
        assert_eq!(
            glued_fix(line, &m),
            ("4%[2].", "write \"4%.[2]\"".to_string())
        );
    }

    #[test]
    fn glued_fixes_move_the_marker_after_the_punctuation() {
        let fix = |line: &str| {
            let m = markers(line).next().unwrap();
            let (written, fix) = glued_fix(line, &m);
            (written.to_string(), fix)
        };
        assert_eq!(
            fix("tested by carmakers[7]. Next"),
            ("carmakers[7].".into(), "write \"carmakers.[7]\"".into())
        );
        assert_eq!(
            fix("a lot[2][3]."),
            ("lot[2][3].".into(), "write \"lot.[2][3]\"".into())
        );
        assert_eq!(
            fix("the arr[1] is large"),
            (
                "arr[1]".into(),
                "put [1] right after the punctuation that ends the sentence".into()
            )
        );
        assert_eq!(
            fix("Größe[4], then"),
            ("Größe[4],".into(), "write \"Größe,[4]\"".into())
        );
    }

    #[test]
    fn markers_glued_to_a_bracket_or_followed_by_a_word_give_no_provenance() {
        assert!(kinds("see [1]junk").is_empty());
        assert!(kinds("x[1]y").is_empty());
        assert!(kinds("[[policy]]").is_empty());
        assert!(kinds("a [policy]] b").is_empty());
        assert!(kinds("a [[1] b").is_empty());
    }

    /// The ids the malformed groups of `line` show.
    fn shown(line: &str) -> Vec<u64> {
        line.match_indices('[')
            .filter_map(|(at, _)| shown_ids(line, at))
            .flatten()
            .collect()
    }

    #[test]
    fn a_malformed_group_that_shows_one_id_gives_it() {
        assert_eq!(shown("see [1]junk"), [1]);
        assert_eq!(shown("x[2]y"), [2]);
        assert_eq!(shown("a [[3]] b"), [3]);
        assert_eq!(shown("a [[4] b [5]] c"), [4, 5]);
        // Well-formed ones are markers, not this; links, definitions, lists and long
        // ids show no one id.
        for line in [
            "a.[1]",
            "w[1].",
            "[1](https://a.org)",
            "[1]: https://a.org",
            "[1, 2]",
            "[12345]x",
            "[^1]",
            "[x]",
        ] {
            assert!(shown(line).is_empty(), "{line}");
        }
    }

    #[test]
    fn cjk_characters_do_not_glue() {
        assert_eq!(kinds("氷は水より軽い[1]。"), [Kind::Cite(1)]);
        assert_eq!(kinds("事実です。[2]次"), [Kind::Cite(2)]);
    }

    #[test]
    fn malformed_markers_give_no_provenance() {
        for line in [
            "x [tool:] y",
            "x [tool bad] y",
            "x [tool:-x] y",
            "x [tool:a b] y",
            "x [tool:é] y",
            "x [policy:] y",
            "x [unverified:x] y",
            "x [12345] y",
            "x [] y",
            "x [ 1] y",
            "x [-1] y",
            "x [1.5] y",
        ] {
            assert!(kinds(line).is_empty(), "{line}");
        }
    }

    #[test]
    fn links_and_reference_definitions_are_not_markers() {
        assert!(kinds("see [1](https://x) here").is_empty());
        assert!(kinds("[1]: https://x").is_empty());
        assert!(kinds("see [policy](https://x)").is_empty());
    }

    #[test]
    fn malformed_markers_are_named_with_their_fix() {
        let fix = |line| {
            bad(line)
                .into_iter()
                .next()
                .map(|(w, f)| (w.to_string(), f))
        };
        let cases = [
            ("a.[1, 2] b", "[1, 2]", "write [1][2]"),
            ("a.[1;2] b", "[1;2]", "write [1][2]"),
            ("a.[2-4] b", "[2-4]", "write [2][3][4]"),
            ("a.[ 1 ] b", "[ 1 ]", "write [1]"),
            (
                "a.[12345] b",
                "[12345]",
                "an id in a draft has 1 to 4 digits, so this one cites nothing",
            ),
            (
                "a.[tool: python] b",
                "[tool: python]",
                "write [tool:python]",
            ),
            ("a.[tool bad] b", "[tool bad]", "write [tool:bad]"),
            ("a.[tool=bad] b", "[tool=bad]", "write [tool:bad]"),
            (
                "a.[tool:] b",
                "[tool:]",
                "write [tool:NAME], NAME the tool you ran",
            ),
            (
                "a.[tool:]] b",
                "[tool:]]",
                "write [tool:NAME], NAME the tool you ran",
            ),
            (
                "a.[Tool: a b] b",
                "[Tool: a b]",
                "write [tool:NAME], NAME the tool you ran",
            ),
            ("a.[policy:] b", "[policy:]", "write [policy]"),
            (
                "a.[unverified:bad] b",
                "[unverified:bad]",
                "write [unverified]",
            ),
            ("a.[[policy]] b", "[[policy]]", "write [policy]"),
            ("a.[policy]] b", "[policy]]", "write [policy]"),
            ("a.[[1] b", "[[1]", "write [1]"),
            ("a.[2]junk b", "[2]", "write [2] with a space after it"),
            ("x[3]y", "[3]", "write [3] with a space after it"),
        ];
        for (line, written, f) in cases {
            assert_eq!(
                fix(line),
                Some((written.to_string(), f.to_string())),
                "{line}"
            );
        }
    }

    /// Every malformed marker form issue 9 lists (`ISSUE9_MALFORMED`) is found.
    #[test]
    fn every_malformed_marker_is_named() {
        for m in ISSUE9_MALFORMED {
            let line = format!("a claim.{m} b");
            assert_eq!(bad(&line).len(), 1, "{m}");
        }
    }

    #[test]
    fn other_brackets_are_not_malformed_markers() {
        for line in [
            "a.[1] b",
            "arr[1] and [2]",
            "[sic] [x] [ ] [citation needed] [tools] [policyholder]",
            "[1](https://a.org) [tool: x](https://a.org)",
            "[1]: https://a.org",
            "[^1] [-1] [1.5] []",
            "[",
            "]",
            "[[",
            "[1",
            "[tool:",
        ] {
            assert_eq!(bad(line), [], "{line}");
        }
    }

    #[test]
    fn odd_input_does_not_trip_the_scanners() {
        for line in [
            "[",
            "]",
            "[[[[",
            "[1",
            "[tool:",
            "é[",
            "[é]",
            "[1]é",
            "[\u{0}]",
            "[[é]]",
            "[1-]",
            "[tool:é]",
        ] {
            let _ = markers(line).count();
            let _ = bad(line);
        }
        assert_eq!(kinds("[1]"), [Kind::Cite(1)]);
    }

    #[test]
    fn pandoc_citations_of_ledger_ids_are_markers() {
        assert_eq!(kinds("Ice floats [@source1]."), [Kind::Pandoc(vec![1])]);
        assert_eq!(
            kinds("a [@source1; @source2] b"),
            [Kind::Pandoc(vec![1, 2])]
        );
        assert_eq!(
            kinds("a [see @source3, p. 4; also -@source12, chap. 2] b"),
            [Kind::Pandoc(vec![3, 12])]
        );
        assert_eq!(kinds("a [@{source9}] b"), [Kind::Pandoc(vec![9])]);
        assert_eq!(kinds("a [@source3.] b"), [Kind::Pandoc(vec![3])]);
        assert_eq!(
            kinds("a [@source1][2] b"),
            [Kind::Pandoc(vec![1]), Kind::Cite(2)]
        );
        assert_eq!(Kind::Pandoc(vec![4, 5]).ids(), [4, 5]);
        assert_eq!(Kind::Cite(4).ids(), [4]);
        assert!(Kind::Policy.ids().is_empty());
    }

    #[test]
    fn brackets_with_an_at_sign_that_cite_no_ledger_id_are_not_markers() {
        for line in [
            "a [@smith2020] b",
            "a [@source1; @smith] b",
            "a [@source01] b",
            "a [@source12345] b",
            "a [@source3:x] b",
            "a [@source3a] b",
            "mail [me@source1.org] b",
            "a [@source1 @source2] b",
            "a [@source1; p. 4] b",
            "a [@source1](https://x) b",
            "[@source1]: https://x",
            "a [[@source1]] b",
        ] {
            assert!(kinds(line).is_empty(), "{line}");
        }
    }

    #[test]
    fn a_pandoc_citation_of_another_key_is_malformed_and_named() {
        assert_eq!(
            bad("a [@smith2020] b"),
            [(
                "[@smith2020]",
                "@smith2020 is no ledger id: cite a ledger source as [@sourceN], N the id `cite add` printed".to_string()
            )]
        );
        assert_eq!(
            bad("a [@source2]junk b"),
            [(
                "[@source2]",
                "write [@source2] with a space after it".to_string()
            )]
        );
        assert_eq!(bad("mail [me@x.org] b"), []);
    }

    #[test]
    fn a_glued_pandoc_citation_is_told_to_stand_after_a_space() {
        let line = "tested by carmakers[@source7]. Next";
        let m = markers(line).next().unwrap();
        assert!(m.glued);
        let (written, fix) = glued_fix(line, &m);
        assert_eq!(written, "carmakers[@source7]");
        assert_eq!(fix, "write \"carmakers [@source7]\"");
    }

    #[test]
    fn a_malformed_pandoc_group_shows_its_ids() {
        assert_eq!(shown("a [@source1; @source2]junk"), [1, 2]);
        assert_eq!(shown("a [[@source3]] b"), [3]);
        assert!(shown("a [@smith]junk").is_empty());
    }
}
