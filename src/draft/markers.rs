//! Bracket markers in a line of prose: the well-formed ones, and the ones that try to be
//! markers and are not.
//!
//! One rule decides what a citation is, everywhere (coverage, the ids `verify` looks up,
//! the ids `render --cited-in` lists): a well-formed `[N]` (1–4 digits). The markers are
//! `[N]`, `[tool:NAME]`, `[policy]`, `[unverified]` — the words in any ASCII case —
//! neither glued to a word character nor to another bracket, and not a link (`[1](…)`)
//! or a reference definition (`[1]: …`). `sources.py` also looked up ids glued to words,
//! so `arr[1]` in a sentence about code counted as a cited source and made the draft
//! need a Sources block; it is indexing, and now nothing at all.
//!
//! "Word character" is a letter, digit or `_`, except CJK characters: unspaced CJK prose
//! has no other place for a marker (`氷は水より軽い[1]。`), while `arr[1]` and `x[1]y` in
//! Latin-script prose are indexing, not citations.
//!
//! A bracket group that is plainly an attempt at a marker but not a well-formed one
//! (`[1, 2]`, `[tool: python]`, `[tool:]`, `[[policy]]`, `[12345]`) gives no provenance
//! either; [`malformed`] names it and the form to write instead, so the writer hears of
//! it. A well-formed marker glued to a word is not one of these: it is read as indexing.

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
        // Well-formed inside: only brackets glued to it make it malformed; glued to a
        // word it is indexing (or a reference definition, `[1]: …`).
        Some(_) => (from < start || to > close + 1).then(|| format!("write [{content}]"))?,
        None => fix_for(content)?,
    };
    Some(Malformed { written, fix })
}

/// What to write instead of a bracket group whose content is not a marker's, when it
/// is plainly trying to be one: ids (`1, 2`, `1-3`, ` 1 `, `12345`), or a marker word
/// with something after it (`tool: x`, `tool bad`, `policy:`, `unverified:x`).
fn fix_for(content: &str) -> Option<String> {
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
    use super::{ISSUE9_MALFORMED, Kind, malformed, markers};

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
        ];
        for (line, written, f) in cases {
            assert_eq!(
                fix(line),
                Some((written.to_string(), f.to_string())),
                "{line}"
            );
        }
    }

    #[test]
    fn every_malformed_marker_of_issue9_is_named() {
        for m in ISSUE9_MALFORMED {
            let line = format!("a claim.{m} b");
            assert_eq!(bad(&line).len(), 1, "{m}");
        }
    }

    #[test]
    fn other_brackets_are_not_malformed_markers() {
        for line in [
            "a.[1] b",
            "arr[1] and [2]junk",
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
}
