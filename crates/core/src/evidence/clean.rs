//! The page's words for a match (issue 20, item 2): what is stored as the quote. The
//! evidence text of the match read as the keying that found it reads it (links as their
//! label, entities decoded, markers and, in the second view, tags and note markers
//! gone), with the markdown a reader never sees removed and whitespace runs as one space.
//! The page's own characters are kept: its dashes, quotation marks and case.

use super::fold::Nfc;
use super::key::{Keying, is_invisible, read};
use super::markup::is_space;

/// The page's words in `text[start..end]`, as found by `keying`.
pub(super) fn words(text: &str, start: usize, end: usize, keying: Keying) -> String {
    let chars: Vec<char> = read(text, start, keying)
        .take_while(|(_, origin)| origin.at < end)
        .map(|(c, _)| c)
        .collect();
    let mut out = String::with_capacity(end - start);
    let mut space = false;
    // The character after an escaping backslash, which is shown as it is.
    let mut escaped = false;
    for (i, &c) in chars.iter().enumerate() {
        let before = i.checked_sub(1).map(|j| chars[j]);
        let after = chars.get(i + 1).copied();
        let keep = match c {
            _ if std::mem::take(&mut escaped) => true,
            // CommonMark: a backslash before ASCII punctuation shows that character,
            // whatever it would mean as markup (`HLA-B\*27` is `HLA-B*27`).
            '\\' if after.is_some_and(|a| a.is_ascii_punctuation()) => {
                escaped = true;
                false
            }
            '*' | '`' => false,
            // Strike-through markers go; a lone `~` (about) stays.
            '~' => before != Some('~') && after != Some('~'),
            // Emphasis goes; `snake_case` keeps its underscore.
            '_' => {
                let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
                word(before) && word(after)
            }
            // A hard line break; before any other character the backslash is shown.
            '\\' => !matches!(after, Some('\n' | '\r')),
            _ if is_space(c) => {
                space = !out.is_empty();
                false
            }
            _ => !is_invisible(c),
        };
        if keep {
            if std::mem::take(&mut space) {
                out.push(' ');
            }
            out.push(c);
        }
    }
    Nfc::new().compose(&out).into_owned()
}
