//! Bracket markers in a line of prose: the permissive citation scan and the strict
//! provenance markers.
//!
//! Two scans on purpose. The ledger checks (unknown ids, Sources-block coverage,
//! evidence) keep `sources.py`'s permissive `\[(\d{1,4})\](?![(:])`, so an id typed in
//! any shape, even `word[99]`, is still looked up and fails closed. Provenance (what a
//! sentence declares about where its claim comes from) counts only well-formed markers:
//! `[N]`, `[tool:NAME]`, `[policy]`, `[unverified]` — the words in any ASCII case —
//! neither glued to a word character nor to another bracket, and not a link (`[1](…)`)
//! or a reference definition (`[1]: …`).
//!
//! "Word character" is a letter, digit or `_`, except CJK characters: unspaced CJK prose
//! has no other place for a marker (`氷は水より軽い[1]。`), while `arr[1]` and `x[1]y` in
//! Latin-script prose are indexing, not citations.

use crate::text::is_cjk;

/// What a well-formed marker declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `[N]`, 1–4 digits.
    Cite(u64),
    /// `[tool:NAME]`: checked by running a tool.
    Tool,
    /// `[policy]`: a statement of policy, not a factual claim.
    Policy,
    /// `[unverified]`: model knowledge, declared as such.
    Unverified,
}

/// A well-formed marker at `start..end` (byte offsets, brackets included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Marker {
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
}

/// Every permissive citation in `text`: byte offset and id, left to right.
pub(crate) fn citations(text: &str) -> impl Iterator<Item = (usize, u64)> + '_ {
    let bytes = text.as_bytes();
    text.match_indices('[').filter_map(move |(at, _)| {
        let digits = bytes[at + 1..]
            .iter()
            .take(5)
            .take_while(|b| b.is_ascii_digit())
            .count();
        let close = at + 1 + digits;
        let ok = (1..=4).contains(&digits)
            && bytes.get(close) == Some(&b']')
            && !matches!(bytes.get(close + 1), Some(b'(' | b':'));
        ok.then(|| (at, text[at + 1..close].parse().unwrap_or(0)))
    })
}

/// How many permissive citations `text` holds.
pub(crate) fn citation_count(text: &str) -> usize {
    citations(text).count()
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
    let glued_before = before.is_some_and(|c| c == '[' || is_word(c));
    let glued_after = after.is_some_and(|c| matches!(c, ']' | '(' | ':') || is_word(c));
    (!glued_before && !glued_after).then_some(Marker {
        start,
        end: close + 1,
        kind,
    })
}

/// The marker a bracket's content spells, if any.
fn classify(content: &str) -> Option<Kind> {
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

/// A character a marker may not touch.
fn is_word(c: char) -> bool {
    (c.is_alphanumeric() || c == '_') && !is_cjk(c)
}

#[cfg(test)]
mod tests {
    use super::{Kind, citation_count, citations, markers};

    fn kinds(line: &str) -> Vec<Kind> {
        markers(line).map(|m| m.kind).collect()
    }

    fn ids(text: &str) -> Vec<u64> {
        citations(text).map(|(_, id)| id).collect()
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
    fn glued_markers_give_no_provenance() {
        assert!(kinds("word[1] here").is_empty());
        assert!(kinds("see [1]junk").is_empty());
        assert!(kinds("x_[1]").is_empty());
        assert!(kinds("2[1]").is_empty());
        assert!(kinds("[[policy]]").is_empty());
        assert!(kinds("a [policy]] b").is_empty());
        assert!(kinds("a [[1] b").is_empty());
        assert!(kinds("é[unverified]").is_empty());
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
    fn permissive_citations_follow_sources_py() {
        assert_eq!(ids("a [1] b [22][333] c [4444]"), [1, 22, 333, 4444]);
        // Glued or not, an id is an id: the ledger checks fail closed.
        assert_eq!(ids("word[99] and [7]junk and [[5]]"), [99, 7, 5]);
        assert!(ids("[12345] [1](x) [2]: y [] [a]").is_empty());
        assert_eq!(ids("[0012]"), [12]);
        assert_eq!(citation_count("x.[1][2][3][4]"), 4);
    }

    #[test]
    fn odd_input_does_not_trip_the_scanners() {
        for line in [
            "[", "]", "[[[[", "[1", "[tool:", "é[", "[é]", "[1]é", "[\u{0}]",
        ] {
            let _ = markers(line);
            let _ = ids(line);
        }
        assert_eq!(kinds("[1]"), [Kind::Cite(1)]);
    }
}
