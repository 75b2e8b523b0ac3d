//! Text measures shared by quote checking and draft analysis, what a terminal must not
//! be sent, and how a command to run is quoted in a message.

use std::borrow::Cow;

/// True for the CJK characters that count as half a word: CJK ideographs
/// (U+3400–U+9FFF), compatibility ideographs (U+F900–U+FAFF) and kana (U+3040–U+30FF).
pub fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}' | '\u{3040}'..='\u{30FF}')
}

/// Whitespace-separated tokens plus half the CJK characters (rounded down): unspaced
/// CJK prose counts two characters as one word, as in `sources.py`.
pub fn word_count(text: &str) -> usize {
    let words = text.split_whitespace().count();
    let cjk = text.chars().filter(|&c| is_cjk(c)).count();
    words + cjk / 2
}

/// True for a character a terminal acts on rather than shows: the C0 controls but tab,
/// line feed and carriage return, DEL, and the C1 controls (U+0080–U+009F; U+009B alone
/// starts an escape sequence on some terminals).
pub fn is_terminal_control(c: char) -> bool {
    c.is_control() && !matches!(c, '\t' | '\n' | '\r')
}

/// `text` as one shell word, for a command a message tells the user to run: as it is
/// when no shell would change it, else in single quotes.
pub fn shell_word(text: &str) -> Cow<'_, str> {
    let safe = |b: u8| b.is_ascii_alphanumeric() || b"/._-:,@%+=".contains(&b);
    if !text.is_empty() && text.bytes().all(safe) {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(format!("'{}'", text.replace('\'', r"'\''")))
    }
}

#[cfg(test)]
mod tests {
    use super::{shell_word, word_count};

    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        assert_eq!(shell_word("drafts/report-1.md"), "drafts/report-1.md");
        assert_eq!(
            shell_word("https://a.org/x?y=1&z"),
            "'https://a.org/x?y=1&z'"
        );
        assert_eq!(shell_word("it's here.md"), r"'it'\''s here.md'");
        assert_eq!(shell_word(""), "''");
    }

    #[test]
    fn counts_words_and_half_the_cjk_characters() {
        assert_eq!(word_count("three little words"), 3);
        assert_eq!(word_count("  spaced\tout \n words  "), 3);
        assert_eq!(word_count("氷は水より軽い"), 1 + 7 / 2);
        assert_eq!(word_count("ひらがな"), 1 + 2);
        assert_eq!(word_count(""), 0);
    }
}
