//! Where each sentence and marker of a draft stands (byte offsets in the draft): what a
//! front end that shows the draft itself needs, the HTML report and `cite convert`,
//! read by the same walk as `verify`, so that the report marks exactly the sentences and
//! citations `verify` counts, and a conversion rewrites exactly the markers it reads.

use serde::Serialize;

use super::markers::{Kind, Marker};
use super::{Citation, Sentence, Visit, walk};

/// A draft's sentences and markers, placed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Placed<'a> {
    /// The prose sentences (4+ words) and the table rows that cite, in draft order, each
    /// with its byte offset; a sentence's place in this list is its `index`.
    pub sentences: Vec<(usize, Sentence<'a>)>,
    /// Every well-formed marker in the prose, and every malformed group that still shows
    /// ids, in draft order.
    pub marks: Vec<Mark>,
    /// Where the generated Sources block starts (the draft's length when it has none).
    pub tail: usize,
    /// Where the front matter ends (0 without one).
    pub front_end: usize,
}

/// A marker at `start..end` of the draft (brackets included).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mark {
    pub start: usize,
    pub end: usize,
    pub kind: MarkKind,
    /// Glued to the word before it (`carmakers[7]`).
    pub glued: bool,
}

/// What a [`Mark`] declares.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkKind {
    /// `[N]`, or a pandoc citation (`[@source1; @source2]`) of these ids.
    Cite {
        ids: Vec<u64>,
        pandoc: bool,
    },
    /// A malformed group that still shows these ids (`[1]junk`): checked, no provenance.
    Shown {
        ids: Vec<u64>,
    },
    /// `[tool:NAME]`.
    Tool,
    Policy,
    Unverified,
}

impl MarkKind {
    /// The ids it shows the reader.
    pub fn ids(&self) -> &[u64] {
        match self {
            MarkKind::Cite { ids, .. } | MarkKind::Shown { ids } => ids,
            MarkKind::Tool | MarkKind::Policy | MarkKind::Unverified => &[],
        }
    }
}

/// Reads `draft` for its sentences and markers, with their places.
pub fn place(draft: &str) -> Placed<'_> {
    struct Collect<'a> {
        base: usize,
        sentences: Vec<(usize, Sentence<'a>)>,
        marks: Vec<Mark>,
    }
    impl<'a> Visit<'a> for Collect<'a> {
        fn citation(&mut self, _: Citation) {}
        fn sentence(&mut self, s: Sentence<'a>) {
            // A sentence is a slice of the draft.
            let at = s.text.as_ptr() as usize - self.base;
            self.sentences.push((at, s));
        }
        fn row(&mut self, row: Sentence<'a>) {
            self.sentence(row);
        }
        fn marker(&mut self, line_start: usize, m: &Marker) {
            let kind = match &m.kind {
                Kind::Cite(id) => MarkKind::Cite {
                    ids: vec![*id],
                    pandoc: false,
                },
                Kind::Pandoc(ids) => MarkKind::Cite {
                    ids: ids.clone(),
                    pandoc: true,
                },
                Kind::Tool => MarkKind::Tool,
                Kind::Policy => MarkKind::Policy,
                Kind::Unverified => MarkKind::Unverified,
            };
            self.marks.push(Mark {
                start: line_start + m.start,
                end: line_start + m.end,
                kind,
                glued: m.glued,
            });
        }
        fn shown(&mut self, start: usize, end: usize, ids: &[u64]) {
            self.marks.push(Mark {
                start,
                end,
                kind: MarkKind::Shown { ids: ids.to_vec() },
                glued: false,
            });
        }
    }
    let mut c = Collect {
        base: draft.as_ptr() as usize,
        sentences: Vec::new(),
        marks: Vec::new(),
    };
    let outline = walk(draft, &mut c);
    Placed {
        sentences: c.sentences,
        marks: c.marks,
        tail: outline.tail.offset,
        front_end: outline.front.map_or(0, |f| f.end),
    }
}

#[cfg(test)]
mod tests {
    use super::{MarkKind, place};

    #[test]
    fn sentences_and_marks_carry_their_offsets() {
        let draft = "---\ntitle: T\n---\n# H\n\nIce floats on water.[1] Water expands when frozen [@source2].\n`[3]` x[4]y [policy]\n\n| A | B |\n|---|---|\n| a | 1 [1] |\n| b | 2 |\n\n## Sources\n\n[1] https://a.org\n";
        let p = place(draft);
        let texts: Vec<(&str, &str)> = p
            .sentences
            .iter()
            .map(|(at, s)| (&draft[*at..*at + s.text.len()], s.text))
            .collect();
        assert_eq!(texts.len(), 3);
        let indices: Vec<usize> = p.sentences.iter().map(|(_, s)| s.index).collect();
        assert_eq!(indices, [0, 1, 2]);
        let (_, row) = &p.sentences[2];
        assert_eq!(
            (row.text, row.row, row.header, &row.cited[..]),
            ("| a | 1 [1] |", true, Some("| A | B |"), &[1][..])
        );
        for (placed, text) in &texts {
            assert_eq!(placed, text);
        }
        let shown: Vec<(&str, &MarkKind)> = p
            .marks
            .iter()
            .map(|m| (&draft[m.start..m.end], &m.kind))
            .collect();
        assert_eq!(
            shown,
            [
                (
                    "[1]",
                    &MarkKind::Cite {
                        ids: vec![1],
                        pandoc: false
                    }
                ),
                (
                    "[@source2]",
                    &MarkKind::Cite {
                        ids: vec![2],
                        pandoc: true
                    }
                ),
                ("[4]", &MarkKind::Shown { ids: vec![4] }),
                ("[policy]", &MarkKind::Policy),
                (
                    "[1]",
                    &MarkKind::Cite {
                        ids: vec![1],
                        pandoc: false
                    }
                ),
            ]
        );
        assert_eq!(
            draft[p.tail..].trim_start(),
            "## Sources\n\n[1] https://a.org\n"
        );
        assert_eq!(&draft[..p.front_end], "---\ntitle: T\n---\n");
    }
}
