//! One linear pass over a text that finds its figures and dates, read into canonical
//! values, and hands every word to the caller (for names).
//!
//! The same pass reads a sentence and a page, so a figure written the same way is read
//! the same way on both sides. Where the sides differ ([`Side`]), the page is read more
//! generously: every reading of an ambiguous form is indexed, and number words of other
//! languages count; a sentence is read strictly, since what it says is what is checked.
//!
//! What is not a figure: a citation or footnote marker (`[1]`, `[^2]`, `[1, 2]`), a number
//! inside a URL or a link target, glued to the letters before it (`H2O`, `x86`, `v2`), a list number that opens a sentence (`1. `),
//! and the year, month and day of a date, which are read as the date. Local parsers look
//! a few characters either side of each number and word: nothing is buffered, so a page
//! costs its length in time and nothing in memory beyond what the caller keeps.

use super::lexicon::{self, UnitWord};
use super::value::{Class, Date, Dec, Reading, Readings, Val};

/// Which text is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    Sentence,
    Page,
}

/// A figure or date found, with every reading of it and where it is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fact {
    pub readings: Readings,
    /// Byte range of the figure as written, unit included.
    pub start: usize,
    pub end: usize,
    pub date: bool,
}

/// What a scan hands out.
pub(crate) trait Sink {
    fn fact(&mut self, fact: Fact);
    /// A word (letters), at byte `start`; `lead`: it opens the sentence or a clause (after
    /// `.:;!?`, an opening quote or bracket), where a capital says nothing.
    fn word(&mut self, _word: &str, _start: usize, _lead: bool) {}
}

/// Scans `text` as `side`, handing each figure, date and word to `sink` in order.
pub(crate) fn scan(text: &str, side: Side, sink: &mut dyn Sink) {
    let mut s = Scanner {
        t: text,
        side,
        lower: String::new(),
        word: String::new(),
    };
    s.run(sink);
}

struct Scanner<'t> {
    t: &'t str,
    side: Side,
    /// Reused for lower-casing words.
    lower: String,
    /// The word being read, lower-cased ([`Scanner::after_word`]).
    word: String,
}

/// Whether `c` is a letter: the scripts pages are mostly written in decided without
/// Unicode's tables, which a page's every character would otherwise search.
pub(crate) fn letter(c: char) -> bool {
    match c {
        _ if c.is_ascii() => c.is_ascii_alphabetic(),
        // Punctuation: dashes, quotes, spaces, ideographic punctuation.
        '\u{2000}'..='\u{206F}'
        | '\u{3000}'..='\u{3004}'
        | '\u{3008}'..='\u{3020}'
        | '\u{FF01}'..='\u{FF0F}' => false,
        '\u{00C0}'..='\u{00FF}' => c != '×' && c != '÷',
        '\u{0100}'..='\u{024F}'
        | '\u{0391}'..='\u{03A1}'
        | '\u{03A3}'..='\u{03A9}'
        | '\u{03AC}'..='\u{03CE}'
        | '\u{0400}'..='\u{0481}'
        | '\u{048A}'..='\u{04FF}'
        | '\u{0621}'..='\u{064A}'
        | '\u{4E00}'..='\u{9FFF}'
        | '\u{3041}'..='\u{3096}'
        | '\u{30A1}'..='\u{30FA}'
        | '\u{AC00}'..='\u{D7A3}' => true,
        _ => c.is_alphabetic(),
    }
}

/// `c` lower-cased into `out`: Latin-1, Cyrillic and Greek capitals by their offset,
/// the rest by Unicode's tables.
pub(crate) fn push_lower(out: &mut String, c: char) {
    let shifted = match c {
        'A'..='Z' | '\u{00C0}'..='\u{00DE}' if c != '×' => Some(c as u32 + 0x20),
        '\u{0410}'..='\u{042F}' => Some(c as u32 + 0x20),
        '\u{0400}'..='\u{040F}' => Some(c as u32 + 0x50),
        '\u{0391}'..='\u{03A9}' if c != '\u{03A2}' => Some(c as u32 + 0x20),
        'a'..='z' | '\u{00DF}'..='\u{00FF}' | '\u{0430}'..='\u{045F}' | '\u{03AC}'..='\u{03CE}' => {
            Some(c as u32)
        }
        _ => None,
    };
    match shifted.and_then(char::from_u32) {
        Some(l) => out.push(l),
        None => out.extend(c.to_lowercase()),
    }
}

/// The value of a decimal digit in any of the scripts pages use (ASCII, fullwidth,
/// Arabic-Indic, Persian, Devanagari).
pub(crate) fn digit(c: char) -> Option<u8> {
    let base = match c {
        '0'..='9' => '0',
        '０'..='９' => '０',
        '٠'..='٩' => '٠',
        '۰'..='۹' => '۰',
        '०'..='९' => '०',
        _ => return None,
    };
    Some((c as u32 - base as u32) as u8)
}

/// Scripts written without spaces between words: a number glued to them is not part of
/// an identifier.
fn unspaced(c: char) -> bool {
    crate::text::is_cjk(c)
        || matches!(c, '\u{AC00}'..='\u{D7AF}' | '\u{1100}'..='\u{11FF}' | '\u{0E00}'..='\u{0E7F}')
}

fn is_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{200B}'
}

/// Readings of a run of digits and separators.
#[derive(Clone, Copy, Debug)]
struct Number {
    /// Up to two decimal readings (`1.000`: one, or a thousand).
    decs: [Option<Dec>; 2],
    /// Read as written instead (a time, a version, a very long number).
    token: Option<Val>,
    end: usize,
    /// Digits only, no separator, and how many.
    plain: Option<usize>,
}

/// What follows a number: its unit, a scale, a shift (basis points).
#[derive(Clone, Copy, Debug)]
struct Unit {
    class: Class,
    /// Powers of ten of the scale, and a second reading of it.
    scale: Option<(i16, Option<i16>)>,
    /// Added to the exponent whatever the scale: -2 for basis points.
    shift: i16,
    end: usize,
}

impl Unit {
    fn none(end: usize) -> Unit {
        Unit {
            class: Class::Bare,
            scale: None,
            shift: 0,
            end,
        }
    }
}

impl<'t> Scanner<'t> {
    fn next_char(&self, i: usize) -> Option<char> {
        self.t.get(i..)?.chars().next()
    }

    fn prev_char(&self, i: usize) -> Option<char> {
        self.t[..i].chars().next_back()
    }

    /// Past the spaces from `i` (a line break included, two not).
    fn skip_spaces(&self, mut i: usize) -> usize {
        let mut breaks = 0;
        while let Some(c) = self.next_char(i) {
            if !is_space(c) {
                break;
            }
            if c == '\n' {
                breaks += 1;
                if breaks > 1 {
                    break;
                }
            }
            i += c.len_utf8();
        }
        i
    }

    /// The word (letters, with an apostrophe inside) at `i`, and its end.
    fn word_at(&self, i: usize) -> Option<(&'t str, usize)> {
        let t = self.t;
        let b = t.as_bytes();
        // An ASCII word ended by ASCII: most words of most pages.
        if b.get(i).is_some_and(u8::is_ascii_alphabetic) {
            let mut end = i + 1;
            while end < b.len() && b[end].is_ascii_alphabetic() {
                end += 1;
            }
            if b.get(end).is_none_or(|&c| c < 0x80 && c != b'\'') {
                return Some((&t[i..end], end));
            }
        }
        let first = self.next_char(i)?;
        if !letter(first) {
            return None;
        }
        if unspaced(first) {
            // A run of CJK characters: no apostrophes or soft hyphens inside.
            let len: usize = t[i..]
                .chars()
                .take_while(|&c| unspaced(c) && letter(c))
                .map(char::len_utf8)
                .sum();
            return Some((&t[i..i + len], i + len));
        }
        let mut end = i;
        loop {
            // ASCII letters a byte at a time: most words are all of them.
            end += b[end..]
                .iter()
                .take_while(|c| c.is_ascii_alphabetic())
                .count();
            let Some(c) = t[end..].chars().next() else {
                break;
            };
            if c.is_ascii() && c != '\'' {
                break;
            }
            let len = c.len_utf8();
            let inside = match c {
                // An apostrophe inside a word (`Lowe's`), not one closing a quote.
                '\'' | '’' => t[end + len..]
                    .chars()
                    .next()
                    .is_some_and(|n| letter(n) && !unspaced(n)),
                '\u{AD}' => true,
                _ => letter(c) && !unspaced(c),
            };
            if !inside {
                break;
            }
            end += len;
        }
        Some((&t[i..end], end))
    }

    /// `w` lower-cased, in the reused buffer.
    fn lower(&mut self, w: &str) -> &str {
        self.lower.clear();
        if w.is_ascii() {
            self.lower.push_str(w);
            self.lower.make_ascii_lowercase();
        } else {
            for c in w.chars() {
                push_lower(&mut self.lower, c);
            }
        }
        &self.lower
    }

    fn run(&mut self, sink: &mut dyn Sink) {
        let t = self.t;
        let b = t.as_bytes();
        let mut i = 0;
        let mut lead = true;
        if self.side == Side::Sentence {
            i = self.list_number(0);
        }
        while i < b.len() {
            // Spaces and the ASCII punctuation that neither opens a clause nor starts a
            // skipped stretch, a byte at a time.
            match b[i] {
                b' ' | b'\t' | b'\r' | b',' | b'\'' | b')' | b']' | b'-' | b'/' | b'=' | b'_'
                | b'+' | b'&' | b'{' | b'}' | b'~' | b'^' | b'\\' => {
                    i += 1;
                    continue;
                }
                _ => {}
            }
            let c = self.next_char(i).expect("a char boundary");
            let len = c.len_utf8();
            if let Some(end) = self.skipped(i, c) {
                i = end;
                continue;
            }
            if digit(c).is_some() {
                i = self.number(i, sink);
                lead = false;
                continue;
            }
            if letter(c) {
                let (w, end) = self.word_at(i).expect("a letter starts a word");
                sink.word(w, i, lead);
                lead = false;
                i = self.after_word(w, i, end, sink);
                continue;
            }
            if matches!(
                c,
                '.' | '!'
                    | '?'
                    | ':'
                    | ';'
                    | '"'
                    | '“'
                    | '„'
                    | '«'
                    | '‘'
                    | '('
                    | '['
                    | '—'
                    | '–'
                    | '\n'
                    | '|'
                    | '*'
                    | '#'
                    | '>'
                    | '。'
                    | '「'
            ) {
                lead = true;
            }
            i += len;
        }
    }

    /// A list number opening a sentence (`1. `, `2) `): past it.
    fn list_number(&self, i: usize) -> usize {
        let b = self.t.as_bytes();
        let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if (1..=3).contains(&digits)
            && matches!(b.get(i + digits), Some(b'.' | b')'))
            && b.get(i + digits + 1)
                .is_some_and(|c| c.is_ascii_whitespace())
        {
            i + digits + 1
        } else {
            i
        }
    }

    /// Where a stretch that holds no figure ends, if one starts at `i`: a marker group,
    /// a link target, a URL.
    fn skipped(&self, i: usize, c: char) -> Option<usize> {
        let t = self.t;
        let rest = &t[i..];
        match c {
            '[' => {
                let close = rest[1..].find([']', '[', '\n']).map(|k| k + 1)?;
                if rest.as_bytes()[close] != b']' || close > 64 {
                    return None;
                }
                let inner = rest[1..close].trim();
                let lower = inner.to_ascii_lowercase();
                let marker = !inner.is_empty()
                    && (inner.chars().all(|c| {
                        c.is_ascii_digit() || matches!(c, ',' | ' ' | '^' | '-' | '–' | ';')
                    }) || lower.starts_with("tool:")
                        || lower.starts_with("note")
                        || lower.starts_with('^')
                        || matches!(
                            lower.as_str(),
                            "policy" | "unverified" | "citation needed" | "…" | "..."
                        ));
                marker.then_some(i + close + 1)
            }
            '(' if i > 0 && t.as_bytes()[i - 1] == b']' => {
                let close = rest.find([')', '\n'])?;
                Some(i + close + 1)
            }
            'h' | 'H' | 'w' | 'W' => {
                let starts = |p: &str| {
                    rest.as_bytes()
                        .get(..p.len())
                        .is_some_and(|b| b.eq_ignore_ascii_case(p.as_bytes()))
                };
                let url = starts("http://")
                    || starts("https://")
                    || (starts("www.") && !self.prev_char(i).is_some_and(char::is_alphanumeric));
                if !url {
                    return None;
                }
                let end = rest
                    .find(|c: char| {
                        is_space(c)
                            || matches!(c, ')' | ']' | '>' | '"' | '<' | '`' | '”' | '»' | '|')
                    })
                    .unwrap_or(rest.len());
                Some(i + end)
            }
            _ => None,
        }
    }

    /// Reads what starts at the digit at `i`: a date, a figure (with the unit, scale and
    /// sign around it), or an identifier to skip. Returns where reading goes on.
    fn number(&mut self, i: usize, sink: &mut dyn Sink) -> usize {
        let before = self.prev_char(i);
        if let Some(p) = before {
            // Arabic writes `and` as a letter glued to the number (`و1530`).
            let wa = p == 'و'
                && self.t[..i - p.len_utf8()]
                    .chars()
                    .next_back()
                    .is_none_or(is_space);
            let glued =
                (p.is_alphabetic() && !unspaced(p) && !wa) || matches!(p, '_' | '@' | '#' | '\\');
            let after_dot_word = p == '.'
                && self.t[..i - 1]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric());
            if glued || after_dot_word {
                return self.identifier_end(i);
            }
        }
        if let Some((readings, end)) = self.date_at(i) {
            sink.fact(Fact {
                readings,
                start: i,
                end,
                date: true,
            });
            return end;
        }
        let Some(num) = self.read_number(i) else {
            return self.identifier_end(i);
        };
        if let Some(token) = num.token {
            sink.fact(Fact {
                readings: Readings::one(Reading {
                    val: token,
                    class: Class::Bare,
                }),
                start: i,
                end: num.end,
                date: false,
            });
            return num.end;
        }
        // A fraction: `1/3`.
        if let Some((val, end)) = self.fraction(i, &num) {
            sink.fact(Fact {
                readings: Readings::one(Reading {
                    val,
                    class: Class::Bare,
                }),
                start: i,
                end,
                date: false,
            });
            return end;
        }
        let unit = self.unit_after(num.end);
        let (money, neg, start) = self.before(i);
        let class = match unit.class {
            Class::Bare if money => Class::Money,
            c => c,
        };
        let mut unit = Unit { class, ..unit };
        let year_like = num.plain == Some(4)
            && unit.class == Class::Bare
            && unit.scale.is_none()
            && num.decs[0]
                .and_then(Dec::as_int)
                .is_some_and(|y| (1000..=2999).contains(&y));
        // A range or pair: the unit and scale of the second number apply to the first.
        let mut extra_scale = None;
        if let Some(second) = self.range_second(unit.end) {
            if unit.class == Class::Bare && second.class != Class::Bare && !year_like {
                match self.side {
                    Side::Sentence => {
                        unit.class = second.class;
                        unit.shift = second.shift;
                    }
                    Side::Page => extra_scale = Some((second.class, second.shift, None)),
                }
            }
            if unit.scale.is_none() && second.scale.is_some() && !year_like {
                let (class, shift, _) = extra_scale.unwrap_or((unit.class, unit.shift, None));
                extra_scale = Some((class, shift, second.scale));
            }
        }
        let mut readings = readings_of(&num, &unit, neg);
        if let Some((class, shift, scale)) = extra_scale {
            let also = Unit {
                class,
                shift,
                scale: scale.or(unit.scale),
                end: unit.end,
            };
            for r in readings_of(&num, &also, neg).iter() {
                readings.push(r);
            }
        }
        sink.fact(Fact {
            readings,
            start,
            end: unit.end,
            date: false,
        });
        unit.end
    }

    /// Past the identifier whose digit is at `i` (`x86_64`, `v2.0`, `H2O`).
    fn identifier_end(&self, i: usize) -> usize {
        let rest = &self.t[i..];
        i + rest
            .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '/')))
            .unwrap_or(rest.len())
            .max(1)
    }

    /// Past `,` when up to four spaces and line breaks come before it at `at` and
    /// exactly three digits after it: a thousands comma an extraction split off.
    fn spaced_comma(&self, at: usize) -> Option<usize> {
        let b = self.t.as_bytes();
        let spaces = b[at..]
            .iter()
            .take(5)
            .take_while(|c| matches!(c, b' ' | b'\n' | b'\r' | b'\t'))
            .count();
        if spaces == 0 || spaces > 4 || b.get(at + spaces) != Some(&b',') {
            return None;
        }
        let k = at + spaces + 1;
        let digits = b[k..].iter().take_while(|c| c.is_ascii_digit()).count();
        (digits == 3).then_some(k)
    }

    /// The run of digits and separators at `i`, read.
    fn read_number(&self, i: usize) -> Option<Number> {
        // Digits of each group, ASCII, and the separator before each group.
        let mut digits: Vec<u8> = Vec::with_capacity(16);
        let mut groups: [(usize, char); 8] = [(0, ' '); 8];
        let mut n_groups = 0;
        let mut at = i;
        let mut sep_before = ' ';
        loop {
            let mut len = 0;
            while let Some(c) = self.next_char(at) {
                let Some(d) = digit(c) else { break };
                digits.push(b'0' + d);
                len += 1;
                at += c.len_utf8();
            }
            if len == 0 {
                break;
            }
            groups[n_groups] = (len, sep_before);
            n_groups += 1;
            if n_groups == groups.len() {
                break;
            }
            // A separator counts only when a digit follows it. A page's extraction may
            // have put a line break or a space before a thousands comma (`6\n\n,350`,
            // `3 ,946`): read as grouped there, since a page is read generously.
            if self.side == Side::Page
                && n_groups == 1
                && len <= 3
                && let Some(k) = self.spaced_comma(at)
            {
                sep_before = ',';
                at = k;
                continue;
            }
            let Some(sep) = self.next_char(at) else { break };
            let is_sep = matches!(
                sep,
                ',' | '.' | '\'' | '’' | ' ' | '\u{A0}' | '\u{202F}' | '\u{2009}' | '٬' | '٫' | ':'
            );
            let next = at + sep.len_utf8();
            if !is_sep || self.next_char(next).and_then(digit).is_none() {
                break;
            }
            // A space, apostrophe or narrow space groups thousands only: 1-3 digits
            // before, exactly 3 after.
            if matches!(sep, ' ' | '\'' | '’' | '\u{A0}' | '\u{202F}' | '\u{2009}') {
                let after = self.t[next..]
                    .chars()
                    .take_while(|&c| digit(c).is_some())
                    .count();
                if len > 3 || after != 3 || (n_groups > 1 && groups[n_groups - 1].1 != sep) {
                    break;
                }
            }
            sep_before = sep;
            at = next;
        }
        if digits.is_empty() {
            return None;
        }
        let end = at;
        let groups = &groups[..n_groups];
        let written = &self.t[i..end];
        if n_groups == 1 {
            let dec = Dec::from_digits(&digits, 0);
            return Some(Number {
                decs: [dec, None],
                token: dec.is_none().then(|| Val::token(written)),
                end,
                plain: Some(digits.len()),
            });
        }
        let token = |end| {
            Some(Number {
                decs: [None, None],
                token: Some(Val::token(written)),
                end,
                plain: None,
            })
        };
        let seps: Vec<char> = groups[1..].iter().map(|g| g.1).collect();
        if seps.contains(&':') {
            return token(end);
        }
        let lens: Vec<usize> = groups.iter().map(|g| g.0).collect();
        let thousands_ok =
            |from: usize, to: usize| lens[0] <= 3 && lens[from..to].iter().all(|&l| l == 3);
        let dec_of = |frac: usize| Dec::from_digits(&digits, frac);
        let last = *lens.last().expect("two groups");
        let first_sep = seps[0];
        let all_same = seps.iter().all(|&s| s == first_sep);
        let decs: [Option<Dec>; 2] = if all_same {
            match first_sep {
                ',' | '.' | '٬' | '٫' if seps.len() == 1 => {
                    let decimal = dec_of(last);
                    let thousands = (lens[0] <= 3
                        && last == 3
                        && !digits.starts_with(b"0")
                        && first_sep != '٫')
                        .then(|| dec_of(0))
                        .flatten();
                    match first_sep {
                        '٬' => [thousands, None],
                        '٫' => [decimal, None],
                        // A sentence is English: `1,000` is a thousand (and `1.000`
                        // either, since German drafts group with dots).
                        ',' if self.side == Side::Sentence && thousands.is_some() => {
                            [thousands, None]
                        }
                        _ => [decimal, thousands],
                    }
                }
                ',' | '.' | '٬' if thousands_ok(1, lens.len()) => [dec_of(0), None],
                // Indian grouping: 1,00,000.
                ',' if lens[1..lens.len() - 1].iter().all(|&l| l == 2) && last == 3 => {
                    [dec_of(0), None]
                }
                ' ' | '\'' | '’' | '\u{A0}' | '\u{202F}' | '\u{2009}' => [dec_of(0), None],
                _ => return token(end),
            }
        } else {
            // Two kinds: the last is the decimal mark, the others group thousands.
            let mark = *seps.last().expect("seps");
            let grouping = &seps[..seps.len() - 1];
            let g = grouping[0];
            if grouping.iter().any(|&s| s != g) || g == mark || !thousands_ok(1, lens.len() - 1) {
                return token(end);
            }
            if !matches!(mark, '.' | ',' | '٫') {
                // `1 000 000,5` is fine, `1,000 000` is not.
                return token(end);
            }
            [dec_of(last), None]
        };
        if decs[0].is_none() && decs[1].is_none() {
            return token(end);
        }
        Some(Number {
            decs,
            token: None,
            end,
            plain: None,
        })
    }

    /// `n/d` at `i` (with `num` read as `n`), if it is a fraction: plain digits either side.
    fn fraction(&self, i: usize, num: &Number) -> Option<(Val, usize)> {
        // `2021/22` is a span of years, not a fraction.
        if num.plain? > 3 {
            return None;
        }
        let n = num.decs[0]?.as_int()?;
        if self.next_char(num.end) != Some('/') {
            return None;
        }
        let from = num.end + 1;
        let len = self.t[from..]
            .bytes()
            .take_while(u8::is_ascii_digit)
            .count();
        if len == 0 || len > 6 {
            return None;
        }
        let end = from + len;
        // `1/2/3`: not a fraction (a date is read before this).
        if matches!(self.next_char(end), Some('/' | '.' | ','))
            && self.next_char(end + 1).and_then(digit).is_some()
        {
            return None;
        }
        let d: u64 = self.t[from..end].parse().ok()?;
        let _ = i;
        if d == 0 {
            return Some((Val::token(&self.t[i..end]), end));
        }
        Some((Val::ratio(n, d), end))
    }

    /// Whether a currency comes before the number at `i`, whether it is negative, and
    /// where the figure as written starts.
    fn before(&self, i: usize) -> (bool, bool, usize) {
        let t = self.t;
        let mut start = i;
        let mut money = false;
        let mut neg = false;
        let mut j = i;
        // A sign right before the digits: `-4`, `−4`, after a space, a bracket or the
        // start; not a range (`85-90`) or an identifier (`COVID-19`).
        if let Some(c @ ('-' | '−')) = self.prev_char(j) {
            let k = j - c.len_utf8();
            let p = self.prev_char(k);
            if p.is_none_or(|p| is_space(p) || matches!(p, '(' | '[' | ':' | '=' | '/')) {
                neg = true;
                j = k;
                start = k;
            }
        }
        // A currency sign, maybe spaced (`$5`, `€ 5`, `US$5`, `-$5`), or a code
        // (`USD 5`, `Rs. 100`).
        let head = t[..j].trim_end_matches([' ', '\u{A0}']);
        if let Some(c) = head.chars().next_back()
            && lexicon::currency_sign(c)
        {
            money = true;
            start = head.len() - c.len_utf8();
            if !neg && let Some(m @ ('-' | '−')) = self.prev_char(start) {
                let p = self.prev_char(start - m.len_utf8());
                if p.is_none_or(|p| is_space(p) || p == '(') {
                    neg = true;
                    start -= m.len_utf8();
                }
            }
        } else if head.len() < j || head.ends_with('.') {
            let word = head.trim_end_matches('.');
            let from = word
                .char_indices()
                .rev()
                .take_while(|(_, c)| c.is_alphabetic())
                .last()
                .map(|(s, _)| s);
            if let Some(s) = from
                && word.len() - s <= 3
                && lexicon::currency_before(&word[s..].to_ascii_lowercase())
            {
                money = true;
                start = s;
            }
        }
        (money, neg, start)
    }

    /// The unit, scale and shift after a number ending at `p`.
    fn unit_after(&mut self, p: usize) -> Unit {
        let mut u = Unit::none(p);
        match self.next_char(p) {
            Some(c @ ('%' | '٪' | '％')) => {
                u.class = Class::Percent;
                u.end = p + c.len_utf8();
                return u;
            }
            Some(c @ ('°' | '℃' | '℉' | 'º')) => return self.degrees(p, c),
            // Japanese tenths: `7割` is 70%.
            Some('割') => {
                u.class = Class::Percent;
                u.shift = 1;
                u.end = p + '割'.len_utf8();
                return u;
            }
            // `18世紀`: the eighteenth century.
            Some('世' | '세')
                if ["世紀", "世纪", "세기"]
                    .iter()
                    .any(|w| self.t[p..].starts_with(w)) =>
            {
                u.class = Class::Ordinal;
                return u;
            }
            Some(c) if lexicon::cjk_scale(c).is_some() && c != '十' => {
                u.scale = lexicon::cjk_scale(c).map(|s| (s, None));
                u.end = p + c.len_utf8();
                return u;
            }
            Some(c) if c.is_alphabetic() && !unspaced(c) => {
                let (w, end) = self.word_at(p).expect("a letter");
                if lexicon::ordinal_suffix(w) {
                    u.end = end;
                    if lexicon::ordinal_for_certain(self.lower(w)) || self.century_after(end) {
                        u.class = Class::Ordinal;
                    }
                    return u;
                }
                if let Some(scale) = lexicon::scale_suffix(w) {
                    u.scale = Some(scale);
                    u.end = end;
                } else {
                    let lower = self.lower(w).to_string();
                    if let Some(UnitWord::Points(shift)) = lexicon::unit_word(&lower) {
                        u.class = Class::Points;
                        u.shift = shift;
                        u.end = end;
                        return u;
                    }
                    // A measure glued on (`10km`, `50g`): bare, and part of the figure.
                    u.end = end;
                    return u;
                }
            }
            _ => {}
        }
        // `15. Jahrhundert`, `15 века`: a century.
        let after_dot = match self.next_char(p) {
            Some('.') if self.next_char(p + 1).is_some_and(is_space) => p + 1,
            _ => p,
        };
        if self.century_after(after_dot) {
            u.class = Class::Ordinal;
            return u;
        }
        // Spaced (or hyphenated) words: a scale, then a unit.
        let mut q = u.end;
        for _ in 0..3 {
            let mut j = self.skip_spaces(q);
            if j == q && self.next_char(j) == Some('-') {
                j += 1;
            } else if j == q {
                break;
            }
            let Some(c) = self.next_char(j) else { break };
            if matches!(c, '%' | '٪' | '％') {
                u.class = Class::Percent;
                u.end = j + c.len_utf8();
                return u;
            }
            if matches!(c, '°' | '℃' | '℉') {
                let d = self.degrees(j, c);
                return Unit {
                    scale: u.scale,
                    ..d
                };
            }
            if lexicon::currency_sign(c)
                && self.next_char(j + c.len_utf8()).and_then(digit).is_none()
            {
                u.class = Class::Money;
                u.end = j + c.len_utf8();
                return u;
            }
            let Some((w, end)) = self.word_at(j) else {
                break;
            };
            let lower = self.lower(w).to_string();
            if let Some(scale) = lexicon::scale_word(&lower) {
                // `mil` alone is Spanish for a thousand; `mil millones` is 10^9 (a scale
                // word after a thousand multiplies it).
                let scale = match (u.scale, self.side) {
                    (None, Side::Page) => scale,
                    // A sentence is read as written in English: `billion` is 10^9.
                    (None, Side::Sentence) => (scale.0, None),
                    (Some((3, None)), _) => (scale.0 + 3, None),
                    (Some(_), _) => break,
                };
                u.scale = Some(scale);
                u.end = end;
                q = end;
                continue;
            }
            match lexicon::unit_word(&lower) {
                Some(UnitWord::Percent) => {
                    u.class = Class::Percent;
                    u.end = end;
                }
                Some(UnitWord::Per) => {
                    let k = self.skip_spaces(end);
                    if let Some((w2, end2)) = self.word_at(k) {
                        let w2 = self.lower(w2);
                        if matches!(w2, "cent" | "cento" | "ciento" | "centum" | "cents") {
                            u.class = Class::Percent;
                            u.end = end2;
                        }
                    }
                }
                Some(UnitWord::PointsOf(shift)) => {
                    let k = self.skip_spaces(end);
                    let k = if self.next_char(k) == Some('-') {
                        k + 1
                    } else {
                        k
                    };
                    if let Some((w2, end2)) = self.word_at(k) {
                        let w2 = self.lower(w2);
                        if w2.starts_with("point") || w2.starts_with("punt") {
                            u.class = Class::Points;
                            u.shift = shift;
                            u.end = end2;
                        }
                    }
                }
                Some(UnitWord::Points(shift)) => {
                    u.class = Class::Points;
                    u.shift = shift;
                    u.end = end;
                }
                Some(UnitWord::Money) => {
                    u.class = Class::Money;
                    u.end = end;
                }
                Some(UnitWord::Degrees) => {
                    u.class = Class::Degrees;
                    u.end = end;
                    let k = self.skip_spaces(end);
                    if let Some((w2, end2)) = self.word_at(k) {
                        match self.lower(w2) {
                            "celsius" | "c" | "centigrade" => {
                                u.class = Class::Celsius;
                                u.end = end2;
                            }
                            "fahrenheit" | "f" => {
                                u.class = Class::Fahrenheit;
                                u.end = end2;
                            }
                            _ => {}
                        }
                    }
                }
                None => {}
            }
            break;
        }
        u
    }

    /// Whether a word for century follows `at` (after spaces or a hyphen).
    fn century_after(&mut self, at: usize) -> bool {
        let mut j = self.skip_spaces(at);
        if j == at && self.next_char(j) == Some('-') {
            j += 1;
        }
        match self.word_at(j) {
            Some((w, _)) if w.len() <= 24 => lexicon::century_word(self.lower(w)),
            _ => false,
        }
    }

    /// `°C`, `° F`, `℃`, `°` alone.
    fn degrees(&self, p: usize, c: char) -> Unit {
        let mut u = Unit::none(p + c.len_utf8());
        u.class = match c {
            '℃' => Class::Celsius,
            '℉' => Class::Fahrenheit,
            _ => {
                let k = self.skip_spaces(u.end);
                match self.next_char(k) {
                    Some('C' | 'c') if !self.next_char(k + 1).is_some_and(char::is_alphabetic) => {
                        u.end = k + 1;
                        Class::Celsius
                    }
                    Some('F' | 'f') if !self.next_char(k + 1).is_some_and(char::is_alphabetic) => {
                        u.end = k + 1;
                        Class::Fahrenheit
                    }
                    _ => Class::Degrees,
                }
            }
        };
        u
    }

    /// The unit and scale of the second number of a range or pair that starts after
    /// `p` (`85–90°F`, `2 to 3%`, `5 and 10 billion`), if one does.
    fn range_second(&mut self, p: usize) -> Option<Unit> {
        let mut j = self.skip_spaces(p);
        let c = self.next_char(j)?;
        if matches!(c, '-' | '–' | '—' | '~' | '〜' | '～' | '‒') {
            j += c.len_utf8();
        } else {
            let (w, end) = self.word_at(j)?;
            if w.len() > 8 || !lexicon::range_word(self.lower(w)) {
                return None;
            }
            j = end;
        }
        j = self.skip_spaces(j);
        if let Some(c) = self.next_char(j)
            && lexicon::currency_sign(c)
        {
            j += c.len_utf8();
        }
        let c = self.next_char(j)?;
        digit(c)?;
        let num = self.read_number(j)?;
        num.token.is_none().then_some(())?;
        Some(self.unit_after(num.end))
    }

    /// After a word at `start..end`: a date that opens with a month, a number in words,
    /// or nothing. Returns where reading goes on.
    fn after_word(&mut self, w: &str, start: usize, end: usize, sink: &mut dyn Sink) -> usize {
        if w.starts_with(unspaced) {
            // `関東八国`, `近百万`: numbers in CJK numerals, inside a run of characters.
            if self.side == Side::Page {
                cjk_numerals(w, start, sink);
            }
            return end;
        }
        // The words this reads are Latin, Cyrillic or Greek, and short.
        if w.len() > 24
            || !w.starts_with(|c: char| {
                c.is_ascii() || matches!(c, '\u{00C0}'..='\u{052F}' | '\u{1E00}'..='\u{1FFF}')
            })
        {
            return end;
        }
        // Most words of a page open nothing: an ASCII one is let go at a glance, unless
        // it may be a Roman numeral.
        if w.is_ascii()
            && self.side == Side::Page
            && !w.starts_with(['I', 'V', 'X'])
            && !lexicon::may_open_bytes(w.as_bytes()[0].to_ascii_lowercase(), w.len())
        {
            return end;
        }
        let mut lower = std::mem::take(&mut self.word);
        lower.clear();
        if w.is_ascii() {
            lower.push_str(w);
            lower.make_ascii_lowercase();
        } else {
            for c in w.chars() {
                push_lower(&mut lower, c);
            }
        }
        let next = self.after_lowered_word(w, &lower, start, end, sink);
        self.word = lower;
        next
    }

    /// Whether a digit follows `end`, past spaces and a full stop (`March 15`, `Mar.
    /// 15`): what a month needs to open a date.
    fn digit_near(&self, end: usize) -> bool {
        let k = self.skip_spaces(end);
        let k = match self.next_char(k) {
            Some('.') => self.skip_spaces(k + 1),
            _ => k,
        };
        self.next_char(k).and_then(digit).is_some()
    }

    /// [`Scanner::after_word`] with the word lower-cased.
    fn after_lowered_word(
        &mut self,
        w: &str,
        lower: &str,
        start: usize,
        end: usize,
        sink: &mut dyn Sink,
    ) -> usize {
        if self.digit_near(end)
            && let Some(m) = lexicon::month(lower)
            && let Some((readings, date_end)) = self.month_first(m, end)
        {
            sink.fact(Fact {
                readings,
                start,
                end: date_end,
                date: true,
            });
            return date_end;
        }
        if self.side == Side::Page
            && let Some(n) = lexicon::roman(w)
        {
            // `XII secolo`, `XIV век`: a century in Roman numerals, on a page.
            let mut readings = Readings::one(Reading {
                val: Val::Num(Dec::int(n)),
                class: Class::Bare,
            });
            readings.push(Reading {
                val: Val::Num(Dec::int(n)),
                class: Class::Ordinal,
            });
            sink.fact(Fact {
                readings,
                start,
                end,
                date: false,
            });
            return end;
        }
        if self.side == Side::Page
            && let Some(n) = lexicon::ordinal_word(lower)
        {
            sink.fact(Fact {
                readings: Readings::one(Reading {
                    val: Val::Num(Dec::int(n)),
                    class: Class::Ordinal,
                }),
                start,
                end,
                date: false,
            });
            return end;
        }
        if let Some(p) = lexicon::scale_plural(lower) {
            // `millions of people`: a scale with no number (one before it would have
            // taken the word as its scale).
            sink.fact(Fact {
                readings: Readings::one(Reading {
                    val: Val::Scale(p),
                    class: Class::Bare,
                }),
                start,
                end,
                date: false,
            });
            return end;
        }
        if let Some((dec, words_end, alone)) = self.number_words(lower, start, end) {
            let unit = self.unit_after(words_end);
            let fraction = matches!(lower, "half" | "quarter");
            // In a sentence, "one" alone is an article more often than a figure, and
            // "half" counts only as points or percent.
            let counted = match self.side {
                Side::Sentence => {
                    (!alone || dec.as_int().is_none_or(|n| n >= 2) || unit.class != Class::Bare)
                        && (!fraction || unit.class != Class::Bare)
                }
                Side::Page => !fraction || unit.class != Class::Bare,
            };
            if counted {
                let num = Number {
                    decs: [Some(dec), None],
                    token: None,
                    end: words_end,
                    plain: None,
                };
                sink.fact(Fact {
                    readings: readings_of(&num, &unit, false),
                    start,
                    end: unit.end,
                    date: false,
                });
                return unit.end;
            }
            return words_end;
        }
        end
    }

    /// A number in words starting with the word `first` (lower-cased) at `start..end`:
    /// its value, where the words end, and whether it is one word with no multiplier.
    fn number_words(
        &mut self,
        first: &str,
        start: usize,
        end: usize,
    ) -> Option<(Dec, usize, bool)> {
        let _ = start;
        if matches!(first, "half" | "quarter") {
            // `half a percentage point`, `a quarter of a percentage point`.
            let mut k = end;
            // Past `a`, `an` and `of` (`half a`, `quarter of a`), at most three.
            for _ in 0..3 {
                let j = self.skip_spaces(k);
                let j = if self.next_char(j) == Some('-') {
                    j + 1
                } else {
                    j
                };
                match self.word_at(j) {
                    Some((w, e)) if matches!(self.lower(w), "a" | "an" | "of") => k = e,
                    _ => break,
                }
            }
            let v = if first == "half" { 5 } else { 25 };
            let frac = if first == "half" { 1 } else { 2 };
            return Some((Dec::from_digits(format!("{v}").as_bytes(), frac)?, k, false));
        }
        let english = lexicon::english_number(first);
        if english.is_none() && first != "a" {
            return match self.side {
                Side::Page => lexicon::foreign_number(first).map(|n| (Dec::int(n), end, true)),
                Side::Sentence => None,
            };
        }
        let mut total: u64 = 0;
        let mut current: u64 = 0;
        let mut words = 0;
        let mut any_mult = false;
        let mut last_end = end;
        let mut k = start;
        let mut w_end = end;
        let mut word = first.to_string();
        loop {
            if word == "a" && words == 0 {
                // `a hundred`, `a million`.
                let j = self.skip_spaces(w_end);
                match self.word_at(j) {
                    Some((next, e))
                        if lexicon::english_number(self.lower(next)).is_some_and(|(_, m)| m) =>
                    {
                        current = 1;
                        k = j;
                        w_end = e;
                        word = self.lower(next).to_string();
                        continue;
                    }
                    _ => return None,
                }
            }
            let Some((v, mult)) = lexicon::english_number(&word) else {
                break;
            };
            if mult {
                any_mult = true;
                if current == 0 {
                    current = 1;
                }
                if v == 100 {
                    current = current.checked_mul(100)?;
                } else {
                    total = total.checked_add(current.checked_mul(v)?)?;
                    current = 0;
                }
            } else {
                current = current.checked_add(v)?;
            }
            words += 1;
            last_end = w_end;
            let _ = k;
            // The next word: after spaces or one hyphen, `and` between.
            let mut j = self.skip_spaces(w_end);
            if j == w_end && self.next_char(j) == Some('-') {
                j += 1;
            } else if j == w_end {
                break;
            }
            let Some((next, e)) = self.word_at(j) else {
                break;
            };
            let mut next_lower = self.lower(next).to_string();
            let (mut nj, mut ne) = (j, e);
            if next_lower == "and" {
                let j2 = self.skip_spaces(e);
                match self.word_at(j2) {
                    Some((n2, e2)) => {
                        next_lower = self.lower(n2).to_string();
                        nj = j2;
                        ne = e2;
                    }
                    None => break,
                }
            }
            if lexicon::english_number(&next_lower).is_none() {
                break;
            }
            k = nj;
            w_end = ne;
            word = next_lower;
        }
        if words == 0 {
            return None;
        }
        Some((Dec::int(total + current), last_end, words == 1 && !any_mult))
    }

    /// A date at the digit at `i`: numeric (`2024-03-15`, `15.03.2024`, `03/15/2024`),
    /// CJK (`2024年3月15日`), or day first (`15 March 2024`, `15. März`, `4 апреля 1147`).
    fn date_at(&mut self, i: usize) -> Option<(Readings, usize)> {
        let b = self.t.as_bytes();
        let run = |at: usize| {
            b[at.min(b.len())..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count()
        };
        let n1 = run(i);
        if n1 == 0 {
            return None;
        }
        let int =
            |from: usize, len: usize| -> u32 { self.t[from..from + len].parse().unwrap_or(0) };
        let after1 = i + n1;
        // Numeric: three parts with one separator.
        if let Some(&sep) = b.get(after1)
            && matches!(sep, b'-' | b'/' | b'.')
        {
            let n2 = run(after1 + 1);
            let at3 = after1 + 1 + n2;
            if (1..=2).contains(&n2) && b.get(at3) == Some(&sep) {
                let n3 = run(at3 + 1);
                let end = at3 + 1 + n3;
                let more = b.get(end) == Some(&sep) || b.get(end).is_some_and(u8::is_ascii_digit);
                let (a, m, c) = (int(i, n1), int(after1 + 1, n2), int(at3 + 1, n3));
                let mut r = Readings::none();
                if !more && n1 == 4 && (1..=2).contains(&n3) {
                    push_date(&mut r, a, m, c);
                } else if !more && (1..=2).contains(&n1) && n3 == 4 {
                    push_date(&mut r, c, m, a);
                    if sep != b'.' {
                        push_date(&mut r, c, a, m);
                    }
                }
                if !r.is_empty() {
                    return Some((r, end));
                }
            }
            // A month and a year: `03/2024`.
            let n2 = run(after1 + 1);
            let end = after1 + 1 + n2;
            let more = matches!(b.get(end), Some(b'-' | b'/' | b'.'))
                && b.get(end + 1).is_some_and(u8::is_ascii_digit);
            if sep == b'/' && (1..=2).contains(&n1) && n2 == 4 && !more {
                let mut r = Readings::none();
                let y = int(after1 + 1, 4);
                if (1000..=2999).contains(&y) {
                    push_date(&mut r, y, int(i, n1), 0);
                }
                if !r.is_empty() {
                    return Some((r, end));
                }
            }
        }
        // CJK: 2024年3月15日, 3月15日.
        if let Some(found) = self.cjk_date(i, n1) {
            return Some(found);
        }
        // Day first: 15 March 2024, 15th of March, 15. März, 15 de marzo de 2024.
        if (1..=2).contains(&n1) {
            let day = int(i, n1);
            if !(1..=31).contains(&day) {
                return None;
            }
            let mut k = after1;
            if let Some((w, e)) = self.word_at(k)
                && lexicon::ordinal_suffix(w)
            {
                k = e;
            } else if b.get(k) == Some(&b'.') {
                k += 1;
            }
            let mut j = self.skip_spaces(k);
            if j == k && b.get(k).is_some_and(u8::is_ascii_alphabetic) {
                return None;
            }
            let (w, mut end) = self.word_at(j)?;
            let lower = self.lower(w).to_string();
            if matches!(lower.as_str(), "of" | "de" | "di" | "del") {
                j = self.skip_spaces(end);
                let (w2, e2) = self.word_at(j)?;
                end = e2;
                let _ = w2;
                let l2 = self.lower(w2).to_string();
                let m = lexicon::month(&l2)?;
                return Some(self.with_year(day, m, end));
            }
            // `may`, `mar`, `sept`, `set`, `out`, … after a bare number are words as often.
            let m = lexicon::month(&lower)?;
            if w.len() <= 3
                && !self.t[j..].starts_with(|c: char| c.is_uppercase())
                && self.side == Side::Sentence
            {
                return None;
            }
            if b.get(end) == Some(&b'.') {
                end += 1;
            }
            return Some(self.with_year(day, m, end));
        }
        None
    }

    /// Day `d` of month `m`, and a year if one follows `end` (`, 2024`, ` de 2024`,
    /// ` 1147 года`).
    fn with_year(&mut self, d: u32, m: u8, end: usize) -> (Readings, usize) {
        let mut r = Readings::none();
        match self.year_after(end) {
            Some((y, e)) => {
                push_date(&mut r, y, u32::from(m), d);
                (r, e)
            }
            None => {
                push_date(&mut r, 0, u32::from(m), d);
                (r, end)
            }
        }
    }

    /// A year (3 or 4 digits, 100–2999) after `end`, past `,`, `of`, `de`.
    fn year_after(&mut self, end: usize) -> Option<(u32, usize)> {
        let mut j = end;
        if self.next_char(j) == Some(',') {
            j += 1;
        }
        j = self.skip_spaces(j);
        if let Some((w, e)) = self.word_at(j)
            && matches!(self.lower(w), "of" | "de" | "del" | "di")
        {
            j = self.skip_spaces(e);
        }
        let b = self.t.as_bytes();
        let n = b[j..].iter().take_while(|c| c.is_ascii_digit()).count();
        if !(3..=4).contains(&n) {
            return None;
        }
        let e = j + n;
        // Not a number that goes on (`March 15, 2024.5`, `2,400`).
        if matches!(b.get(e), Some(b',' | b'.')) && b.get(e + 1).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        if matches!(b.get(e), Some(b'%')) {
            return None;
        }
        let y: u32 = self.t[j..e].parse().ok()?;
        (100..=2999).contains(&y).then_some((y, e))
    }

    /// A date opening with month `m` whose word ends at `end`: `March 15, 2024`,
    /// `March 15th`, `March 2024`, `Mar. 15`.
    fn month_first(&mut self, m: u8, end: usize) -> Option<(Readings, usize)> {
        let mut j = end;
        if self.next_char(j) == Some('.') {
            j += 1;
        }
        j = self.skip_spaces(j);
        let b = self.t.as_bytes();
        let n = b[j..].iter().take_while(|c| c.is_ascii_digit()).count();
        let e = j + n;
        let mut r = Readings::none();
        if (1..=2).contains(&n) {
            // Not `May 5%` or `March 3.5`.
            if matches!(b.get(e), Some(b'%' | b'.' | b','))
                && b.get(e + 1).is_some_and(u8::is_ascii_digit)
            {
                return None;
            }
            if matches!(b.get(e), Some(b'%')) {
                return None;
            }
            let d: u32 = self.t[j..e].parse().ok()?;
            if !(1..=31).contains(&d) {
                return None;
            }
            let mut k = e;
            if let Some((w, we)) = self.word_at(k)
                && lexicon::ordinal_suffix(w)
            {
                k = we;
            }
            return Some(self.with_year(d, m, k));
        }
        let (y, e) = self.year_after(end)?;
        push_date(&mut r, y, u32::from(m), 0);
        Some((r, e))
    }

    /// `2024年3月15日`, `2024년 3월 15일`, `3月15日`, `2024年3月` at `i` (`n1` digits).
    fn cjk_date(&self, i: usize, n1: usize) -> Option<(Readings, usize)> {
        let b = self.t.as_bytes();
        let mark = |at: usize, set: &[char]| -> Option<usize> {
            let k = self.skip_spaces(at);
            let c = self.next_char(k)?;
            set.contains(&c).then(|| k + c.len_utf8())
        };
        let num = |at: usize| -> Option<(u32, usize)> {
            let k = self.skip_spaces(at);
            let n = b[k..].iter().take_while(|c| c.is_ascii_digit()).count();
            if n == 0 || n > 4 {
                return None;
            }
            Some((self.t[k..k + n].parse().ok()?, k + n))
        };
        let (a, e1) = num(i)?;
        let _ = n1;
        let mut r = Readings::none();
        if let Some(after_year) = mark(e1, &['年', '년']) {
            if !(100..=2999).contains(&a) {
                return None;
            }
            let (m, e2) = num(after_year)?;
            let after_month = mark(e2, &['月', '월'])?;
            if let Some((d, e3)) = num(after_month)
                && let Some(after_day) = mark(e3, &['日', '일'])
            {
                push_date(&mut r, a, m, d);
                return (!r.is_empty()).then_some((r, after_day));
            }
            push_date(&mut r, a, m, 0);
            return (!r.is_empty()).then_some((r, after_month));
        }
        let after_month = mark(e1, &['月', '월'])?;
        let (d, e3) = num(after_month)?;
        let after_day = mark(e3, &['日', '일'])?;
        push_date(&mut r, 0, a, d);
        (!r.is_empty()).then_some((r, after_day))
    }
}

/// Each run of CJK numerals in `w` (at `start` of the text) as a figure: `八` 8, `二十五`
/// 25, `百万` 1,000,000, `三千五百` 3,500.
fn cjk_numerals(w: &str, start: usize, sink: &mut dyn Sink) {
    let mut run: Option<(usize, u64, u64, u64)> = None; // (start, total, section, current)
    let mut flush = |run: &mut Option<(usize, u64, u64, u64)>, end: usize| {
        if let Some((from, total, section, current)) = run.take() {
            let n = total.saturating_add(section).saturating_add(current);
            sink.fact(Fact {
                readings: Readings::one(Reading {
                    val: Val::Num(Dec::int(n)),
                    class: Class::Bare,
                }),
                start: start + from,
                end: start + end,
                date: false,
            });
        }
    };
    for (k, c) in w.char_indices() {
        let Some((v, kind)) = lexicon::cjk_numeral(c) else {
            flush(&mut run, k);
            continue;
        };
        let (_, total, section, current) = run.get_or_insert((k, 0, 0, 0));
        match kind {
            lexicon::Numeral::Digit => *current = v,
            lexicon::Numeral::Small => {
                *section = section.saturating_add((*current).max(1).saturating_mul(v));
                *current = 0;
            }
            lexicon::Numeral::Big => {
                let part = section.saturating_add(*current).max(1);
                *total = total.saturating_add(part.saturating_mul(v));
                *section = 0;
                *current = 0;
            }
        }
    }
    flush(&mut run, w.len());
}

/// Adds the date `y-m-d` (0: not given) if it is one.
fn push_date(r: &mut Readings, y: u32, m: u32, d: u32) {
    let valid = (1..=12).contains(&m) && d <= 31 && y <= 2999 && (y == 0 || y >= 100);
    if valid {
        r.push(Reading {
            val: Val::Date(Date {
                y: y as u16,
                m: m as u8,
                d: d as u8,
            }),
            class: Class::Bare,
        });
    }
}

/// The readings of `num` with `unit`: each decimal reading times each scale reading,
/// shifted, signed, in the unit's class.
fn readings_of(num: &Number, unit: &Unit, neg: bool) -> Readings {
    let mut r = Readings::none();
    let scales: [Option<i16>; 2] = match unit.scale {
        None => [Some(0), None],
        Some((a, b)) => [Some(a), b],
    };
    for dec in num.decs.iter().flatten() {
        for scale in scales.iter().flatten() {
            let mut v = dec.scaled(scale + unit.shift);
            if neg {
                v = v.negated();
            }
            r.push(Reading {
                val: Val::Num(v),
                class: unit.class,
            });
        }
    }
    r
}
