//! Markup a reader never sees, as the page keyings read it (issue 20): HTML entities,
//! link titles, reference-style links, autolinks, blockquote and list markers, and, in
//! the second view only (the `Seen` keying), HTML tags and `[n]`/`[^n]` note
//! markers. Each function looks at the text from one byte offset and says where the
//! construct ends; none looks further than a bounded distance, so a page of unclosed
//! `<` or `&` stays linear.

/// The longest entity looked for, `&` to `;` (the longest HTML5 name is 31 bytes).
const MAX_ENTITY: usize = 40;
/// The longest tag or autolink looked for.
const MAX_TAG: usize = 2048;

/// The HTML entity at `at` (a `&`): where it ends, and the text it names. Only
/// references ending with `;` count, and only those the HTML5 list names.
pub(super) fn entity(text: &str, at: usize) -> Option<(usize, String)> {
    let bytes = text.as_bytes();
    let body = bytes.get(at + 1..)?;
    let len = body
        .iter()
        .take(MAX_ENTITY)
        .position(|&b| !(b.is_ascii_alphanumeric() || b == b'#'))?;
    if len == 0 || body[len] != b';' {
        return None;
    }
    let end = at + len + 2;
    let raw = &text[at..end];
    match html_escape::decode_html_entities(raw) {
        std::borrow::Cow::Owned(decoded) if decoded != raw => Some((end, decoded)),
        _ => None,
    }
}

/// At the start of a line (`at` just past a newline, or the start of the text): where
/// its blockquote markers (`>`, nested or not) and a list bullet (`-`, `*` or `+` then a
/// space) end, if it has any. A numbered item's number is a number: it stays.
pub(super) fn block_marker(text: &str, at: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let blank = |i: usize| matches!(bytes.get(i), Some(b' ' | b'\t'));
    let mut pos = at;
    let mut found = false;
    loop {
        while blank(pos) {
            pos += 1;
        }
        if bytes.get(pos) == Some(&b'>') {
            pos += 1;
            found = true;
            continue;
        }
        break;
    }
    if matches!(bytes.get(pos), Some(b'-' | b'*' | b'+')) && blank(pos + 1) {
        pos += 2;
        found = true;
    }
    found.then_some(pos)
}

/// An autolink at `at` (a `<`): `<scheme:…>` or `<user@host>`; the offset of its `>`.
pub(super) fn autolink(text: &str, at: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let rest = bytes.get(at + 1..)?;
    // An autolink holds no space and no `<`: stop there, so a page of `<` stays linear.
    let close = rest
        .iter()
        .take(MAX_TAG)
        .position(|&b| matches!(b, b'>' | b'<') || b.is_ascii_whitespace())?;
    if rest[close] != b'>' {
        return None;
    }
    let inner = &text[at + 1..at + 1 + close];
    if inner.is_empty() || inner.chars().any(is_space) {
        return None;
    }
    let scheme = inner.split_once(':').is_some_and(|(s, _)| {
        (2..=32).contains(&s.len())
            && s.starts_with(|c: char| c.is_ascii_alphabetic())
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-'))
    });
    let email = inner
        .split_once('@')
        .is_some_and(|(user, host)| !user.is_empty() && host.contains('.') && !host.contains('@'));
    (scheme || email).then_some(at + 1 + close)
}

/// Elements that sit inside a line of text: seeing through them joins what is on either
/// side (`H<sub>2</sub>O` is `H2O`). Every other element parts words, as a browser lays
/// it out.
const INLINE: &[&str] = &[
    "a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "del", "dfn", "em", "font", "i", "ins",
    "kbd", "mark", "q", "s", "samp", "small", "span", "strike", "strong", "sub", "time", "tt", "u",
    "var", "wbr",
];

/// Elements that part words. Only known HTML names count as tags, so that `Vec<String>`
/// or `a <b and c> d` in a page's text stays text. `sup` is one: `10<sup>6</sup>` is
/// not `106`, and a `<sup>[3]</sup>` note marker goes as the marker it holds.
const BLOCK: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "br",
    "caption",
    "center",
    "col",
    "colgroup",
    "dd",
    "details",
    "dialog",
    "div",
    "dl",
    "dt",
    "figcaption",
    "figure",
    "footer",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hr",
    "html",
    "img",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "picture",
    "pre",
    "section",
    "source",
    "summary",
    "sup",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "tr",
    "ul",
    "video",
    "audio",
    "iframe",
    "label",
    "button",
    "input",
    "select",
    "option",
    "textarea",
    "form",
    "fieldset",
    "legend",
    "meta",
    "link",
    "title",
    "script",
    "style",
    "noscript",
    "svg",
    "math",
];

/// Memo of the last search for a comment's end: (searched from, the first `-->` found
/// there). Every `<!--` before one `-->` shares it, so a page of unclosed comments
/// stays linear.
pub(super) type CommentMemo = Option<(usize, Option<usize>)>;

/// An HTML tag or comment at `at` (a `<`): where it ends, and whether it parts words.
pub(super) fn tag(text: &str, at: usize, memo: &mut CommentMemo) -> Option<(usize, bool)> {
    let bytes = text.as_bytes();
    if text[at..].starts_with("<!--") {
        let from = at + 4;
        let found = match *memo {
            Some((searched, found)) if searched <= from && found.is_none_or(|f| f >= from) => found,
            _ => {
                let found = text[from..].find("-->").map(|i| from + i);
                *memo = Some((from, found));
                found
            }
        };
        return Some((found? + 3, false));
    }
    let mut pos = at + 1;
    if bytes.get(pos) == Some(&b'/') {
        pos += 1;
    }
    let name_len = bytes
        .get(pos..)?
        .iter()
        .position(|b| !b.is_ascii_alphanumeric())
        .unwrap_or(bytes.len() - pos);
    let name = text[pos..pos + name_len].to_ascii_lowercase();
    let parts = if INLINE.contains(&name.as_str()) {
        false
    } else if BLOCK.contains(&name.as_str()) {
        true
    } else {
        return None;
    };
    pos += name_len;
    // The name ends the tag, or whitespace or `/` before its attributes does.
    if !matches!(
        bytes.get(pos),
        Some(b'>' | b'/' | b' ' | b'\t' | b'\n' | b'\r')
    ) {
        return None;
    }
    let close = bytes[pos..]
        .iter()
        .take(MAX_TAG)
        .position(|&b| b == b'>' || b == b'<')?;
    (bytes[pos + close] == b'>').then_some((pos + close + 1, parts))
}

/// A note marker at `at` (a `[`): `[12]`, `[^12]` or `[^note]`; where it ends.
pub(super) fn note(text: &str, at: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let rest = bytes.get(at + 1..)?;
    let caret = rest.first() == Some(&b'^');
    let body = &rest[usize::from(caret)..];
    let len = body
        .iter()
        .take(16)
        .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_')))?;
    let ok = len > 0 && body[len] == b']' && (caret || body[..len].iter().all(u8::is_ascii_digit));
    ok.then_some(at + 1 + usize::from(caret) + len + 1)
}

/// The number of a note marker (`[12]`, `[^12]`, `[[12]](…)`, `[12](#…)`), if its label
/// is one: a named note (`[^note]`) has none.
pub(super) fn note_number(marker: &str) -> Option<&str> {
    let label = marker.trim_start_matches(['[', '^']);
    let len = label.bytes().take_while(u8::is_ascii_digit).count();
    (len > 0 && label.as_bytes().get(len) == Some(&b']')).then(|| &label[..len])
}

/// The longest `<sup>…</sup>` read as a note marker.
const MAX_SUP: usize = 256;

/// A note marker as a superscript element at `at` (a `<`): `<sup>12</sup>`, or one
/// holding a bracketed, caret or linked marker (`<sup>[12]</sup>`,
/// `<sup><a href="#n12">12</a></sup>`, `<sup>[[12]](#n12)</sup>`); where it ends, and
/// its number. A superscript of anything else is not a marker.
pub(super) fn sup_marker(text: &str, at: usize) -> Option<(usize, String)> {
    let head = text.get(at..at + 4)?;
    if !head.eq_ignore_ascii_case("<sup") {
        return None;
    }
    let bytes = text.as_bytes();
    if !matches!(bytes.get(at + 4), Some(b'>' | b' ' | b'\t' | b'\n')) {
        return None;
    }
    let open = at
        + 4
        + bytes[at + 4..]
            .iter()
            .take(MAX_TAG)
            .position(|&b| b == b'>')?
        + 1;
    let window = &bytes[open..bytes.len().min(open + MAX_SUP)];
    let close = window
        .windows(6)
        .position(|w| w.eq_ignore_ascii_case(b"</sup>"))?;
    let inner = &text[open..open + close];
    // The marker's characters without the tags and link targets around them.
    let mut number = String::new();
    let mut in_tag = false;
    let mut rest = inner;
    while let Some(c) = rest.chars().next() {
        rest = &rest[c.len_utf8()..];
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            _ if in_tag => {}
            '0'..='9' => number.push(c),
            '[' | ']' | '^' => {}
            // A link's target: `](…)`.
            '(' if inner[..inner.len() - rest.len() - 1].ends_with(']') => {
                rest = &rest[rest.find(')')? + 1..];
            }
            _ if c.is_whitespace() => {}
            _ => return None,
        }
    }
    (!number.is_empty() && number.len() <= 4).then_some((open + close + 6, number))
}

/// A note marker written as a link at `at` (a `[`): `[[12]](target)`, or `[12](#anchor)`
/// pointing into the page's own notes; where it ends.
pub(super) fn note_link(text: &str, at: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let (close, own) = match note(text, at + 1) {
        Some(end) if bytes.get(at + 1) == Some(&b'[') => (end, true),
        _ => (note(text, at)? - 1, false),
    };
    if bytes.get(close) != Some(&b']') || bytes.get(close + 1) != Some(&b'(') {
        return None;
    }
    if !own && bytes.get(close + 2) != Some(&b'#') {
        return None;
    }
    reference_link_tail(text, close).or_else(|| link_tail(text, close))
}

/// The tail of a link at `close` (its label's `]`) that the reference's link pattern
/// does not take: a destination in `<…>`, or one followed by a title (`"…"`, `'…'` or
/// `(…)`), as CommonMark has them; or `[ref]` / `[]` of a reference-style link. Where
/// the tail ends.
pub(super) fn link_tail(text: &str, close: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    match bytes.get(close + 1)? {
        b'(' => titled_tail(text, close + 2),
        b'[' => {
            let len = bytes[close + 2..]
                .iter()
                .take(MAX_TAG)
                .position(|&b| b == b']' || b == b'[' || b == b'\n')?;
            (bytes[close + 2 + len] == b']').then_some(close + 2 + len + 1)
        }
        _ => None,
    }
}

/// `(` already read: destination, optional title, `)`.
fn titled_tail(text: &str, mut pos: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let skip_blank = |mut p: usize| {
        while bytes
            .get(p)
            .is_some_and(|&b| b == b' ' || b == b'\t' || b == b'\n')
        {
            p += 1;
        }
        p
    };
    pos = skip_blank(pos);
    if bytes.get(pos) == Some(&b'<') {
        let len = bytes[pos + 1..]
            .iter()
            .take(MAX_TAG)
            .position(|&b| b == b'>' || b == b'<' || b == b'\n')?;
        if bytes[pos + 1 + len] != b'>' {
            return None;
        }
        pos += len + 2;
    } else {
        // As the reference pattern: one level of `(…)` in a destination, no deeper, so
        // a run of `[x](` costs a step each.
        let start = pos;
        let mut open = false;
        while let Some(&b) = bytes.get(pos) {
            match b {
                b'(' if open => return None,
                b'(' => open = true,
                b')' if !open => break,
                b')' => open = false,
                b' ' | b'\t' | b'\n' | b'\r' if !open => break,
                _ => {}
            }
            pos += 1;
            if pos - start > MAX_TAG {
                return None;
            }
        }
    }
    let before_title = pos;
    pos = skip_blank(pos);
    if pos > before_title
        && let Some(&open) = bytes.get(pos)
        && matches!(open, b'"' | b'\'' | b'(')
    {
        let shut = if open == b'(' { b')' } else { open };
        let len = bytes[pos + 1..]
            .iter()
            .take(MAX_TAG)
            .position(|&b| b == shut)?;
        pos = skip_blank(pos + 1 + len + 1);
    }
    (bytes.get(pos) == Some(&b')')).then_some(pos + 1)
}

/// Python's `str.isspace()`, which is what both `\s` and `str.split()` use: Unicode
/// White_Space plus the four ASCII information separators U+001C–U+001F.
pub(super) fn is_space(c: char) -> bool {
    if c.is_ascii() {
        matches!(c, ' ' | '\t'..='\r' | '\x1c'..='\x1f')
    } else {
        c.is_whitespace()
    }
}

/// Matches `\]\((?:[^()\s]|\([^()]*\))*\)` at `close`, returning where it ends.
pub(super) fn reference_link_tail(text: &str, close: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.get(close + 1) != Some(&b'(') {
        return None;
    }
    let mut pos = close + 2;
    loop {
        let c = text[pos..].chars().next()?;
        match c {
            ')' => return Some(pos + 1),
            '(' => {
                let inner = bytes[pos + 1..]
                    .iter()
                    .position(|&b| b == b'(' || b == b')')?;
                let at = pos + 1 + inner;
                if bytes[at] != b')' {
                    return None;
                }
                pos = at + 1;
            }
            _ if is_space(c) => return None,
            _ => pos += c.len_utf8(),
        }
    }
}
