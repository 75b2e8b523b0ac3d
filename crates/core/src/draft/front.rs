//! A pandoc YAML metadata block at the start of a draft (its "front matter"): not prose,
//! and where a pandoc document names its bibliography.
//!
//! Pandoc's rule: the draft's first line is `---`, the next is not blank, and a line
//! `---` or `...` closes the block. A draft could open with a thematic break and text
//! that only looks so, so the block must also read as YAML mappings line by line (a
//! `key:` line, an indented or list continuation, a comment or a blank line); anything
//! else leaves the draft as it was, all prose. The YAML is not parsed further: `verify`
//! needs only whether a top-level `bibliography` key is there, and `cite convert` adds
//! its two keys as lines (see `pandoc`).

use super::layout::text_of;

/// The front matter of a draft.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontMatter {
    /// The 1-based line of the closing `---` or `...`.
    pub last_line: usize,
    /// Byte offset of the closing line: where keys are added.
    pub close: usize,
    /// Byte offset just past the closing line and its newline: where the body starts.
    pub end: usize,
    /// The top-level keys, in order.
    pub keys: Vec<Key>,
    /// The line of the top-level `bibliography` key.
    pub bibliography: Option<usize>,
}

/// A top-level key of the front matter and the lines its value runs over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    pub name: String,
    /// 1-based line of the key.
    pub line: usize,
    /// Byte range of the key's line and every continuation line after it.
    pub start: usize,
    pub end: usize,
    /// What follows the `:` on the key's line, trimmed.
    pub inline: String,
}

/// The front matter `draft` opens with, if it opens with one.
pub fn front_matter(draft: &str) -> Option<FrontMatter> {
    let mut pieces = draft.split('\n');
    if text_of(pieces.next()?).trim_end() != "---" {
        return None;
    }
    let mut at = draft.find('\n')? + 1;
    let mut keys: Vec<Key> = Vec::new();
    for (i, raw) in pieces.enumerate() {
        let number = i + 2;
        let text = text_of(raw);
        let next = (at + raw.len() + 1).min(draft.len());
        if number == 2 && text.trim().is_empty() {
            return None;
        }
        if number > 2 && matches!(text.trim_end(), "---" | "...") {
            let bibliography = keys
                .iter()
                .find(|k| k.name == "bibliography")
                .map(|k| k.line);
            return Some(FrontMatter {
                last_line: number,
                close: at,
                end: next,
                keys,
                bibliography,
            });
        }
        if let Some((name, inline)) = key_line(text) {
            keys.push(Key {
                name: name.to_string(),
                line: number,
                start: at,
                end: next,
                inline: inline.trim().to_string(),
            });
        } else if continues(text) {
            if let Some(k) = keys.last_mut() {
                k.end = next;
            }
        } else {
            return None;
        }
        at = next;
    }
    None
}

/// A top-level `key: value` line: its key (quotes dropped) and what follows the colon.
fn key_line(text: &str) -> Option<(&str, &str)> {
    if text.starts_with(char::is_whitespace) || text.starts_with(['#', '-']) {
        return None;
    }
    let colon = text
        .find(": ")
        .or_else(|| text.ends_with(':').then(|| text.len() - 1))?;
    let name = text[..colon].trim().trim_matches(['"', '\'']);
    (!name.is_empty()).then(|| (name, &text[colon + 1..]))
}

/// A line that continues the value of the key before it, or says nothing: indented, a
/// list item, a comment, a blank line.
fn continues(text: &str) -> bool {
    text.trim().is_empty()
        || text.starts_with(char::is_whitespace)
        || text.starts_with('#')
        || text == "-"
        || text.starts_with("- ")
}

#[cfg(test)]
mod tests {
    use super::front_matter;

    #[test]
    fn a_leading_yaml_block_is_front_matter() {
        let draft = "---\ntitle: Ice\nbibliography:\n  - a.json\n- b.json\nlink-citations: true\n...\n\nText.\n";
        let f = front_matter(draft).unwrap();
        assert_eq!(f.last_line, 7);
        assert_eq!(&draft[f.end..], "\nText.\n");
        assert_eq!(&draft[f.close..f.end], "...\n");
        let names: Vec<&str> = f.keys.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["title", "bibliography", "link-citations"]);
        assert_eq!(f.bibliography, Some(3));
        let bib = &f.keys[1];
        assert_eq!(
            &draft[bib.start..bib.end],
            "bibliography:\n  - a.json\n- b.json\n"
        );
        assert_eq!(f.keys[2].inline, "true");
    }

    #[test]
    fn other_openings_are_not_front_matter() {
        for draft in [
            "",
            "---",
            "---\n\ntitle: x\n---\n",
            "---\ntitle: x\n",
            "---\nA sentence that is prose.\n---\n",
            "Text\n---\ntitle: x\n---\n",
            "# T\n",
        ] {
            assert_eq!(front_matter(draft), None, "{draft:?}");
        }
        let f = front_matter("---\r\ntitle: x\r\n---\r\nBody\r\n").unwrap();
        assert_eq!((f.last_line, f.bibliography), (3, None));
    }
}
