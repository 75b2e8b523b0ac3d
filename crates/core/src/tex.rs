//! Text for TeX: BibTeX and BibLaTeX field escaping, and URLs as `\url{…}` takes them.
//! Used by the rendered `bibtex` style, the `biblatex` export, and `verify` (which reads
//! a rendered entry's URL back); it knows nothing of the ledger.

/// Escapes text for a BibTeX or BibLaTeX field so that BibTeX, biber, pdfLaTeX and
/// LuaLaTeX all print it as written, whatever it holds.
///
/// - The LaTeX specials become commands. Braces become `\textbraceleft{}` and
///   `\textbraceright{}`, not `\{` and `\}`: BibTeX and biber count every brace,
///   escaped or not, so one unbalanced `\}` made biber drop the whole file and bibtex
///   stop.
/// - `<`, `>`, `|` and `"` become commands too: in the OT1 encoding pdfLaTeX starts
///   with they print as `¡`, `¿`, `—` and `”`.
/// - TeX fonts turn `--`, `---`, ``` `` ```, `''`, `?``, `!``, `<<`, `>>` and `,,` into
///   one glyph (pdfLaTeX's fonts, and LuaLaTeX's `Ligatures=TeX`). An italic correction
///   `\/` between two such characters stops that in both engines, where `{}` does not
///   stop it in LuaLaTeX. Under `Ligatures=TeX` a lone `'`, `` ` `` or `"` still takes
///   its typographic shape (’ ‘ ”): that is a glyph choice, not a lost character.
/// - Control characters (C0, DEL, C1) and noncharacters never reach TeX: lualatex stops
///   on them (`Text line contains an invalid character`). Those that break lines become
///   a space, like the line separators; the others are dropped. U+FFFD, which LuaTeX
///   refuses as input, becomes `?`.
pub fn bibtex_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut after_ligature_char = false;
    for c in text.chars() {
        if c.is_control() || is_noncharacter(c) || matches!(c, '\u{2028}' | '\u{2029}') {
            if matches!(
                c,
                '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}'
            ) {
                out.push(' ');
                after_ligature_char = false;
            }
            continue;
        }
        // LuaTeX reads U+FFFD in its input as a byte that is not UTF-8, and stops
        // ("String contains an invalid utf-8 sequence"); it marks a character lost
        // before the ledger, and a question mark says the same in every engine.
        let c = if c == '\u{fffd}' { '?' } else { c };
        let ligature_char = matches!(c, '-' | '`' | '\'' | '"' | '<' | '>' | ',' | '!' | '?');
        if ligature_char && after_ligature_char {
            out.push_str("\\/");
        }
        after_ligature_char = ligature_char;
        match c {
            '&' | '%' | '$' | '#' | '_' => {
                out.push('\\');
                out.push(c);
            }
            '{' => out.push_str("\\textbraceleft{}"),
            '}' => out.push_str("\\textbraceright{}"),
            '\\' => out.push_str("\\textbackslash{}"),
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            '<' => out.push_str("\\textless{}"),
            '>' => out.push_str("\\textgreater{}"),
            '|' => out.push_str("\\textbar{}"),
            '"' => out.push_str("\\textquotedbl{}"),
            '\'' => out.push_str("\\textquotesingle{}"),
            '`' => out.push_str("\\textasciigrave{}"),
            _ => out.push(c),
        }
    }
    out
}

/// U+FDD0–U+FDEF and the last two code points of every plane: never text, and TeX
/// engines refuse some of them as input.
pub(crate) fn is_noncharacter(c: char) -> bool {
    let n = u32::from(c);
    (0xFDD0..=0xFDEF).contains(&n) || n & 0xFFFE == 0xFFFE
}

/// A URL for `\url{…}` in a BibTeX field, and for biblatex's verbatim `url` field.
///
/// Everything but `{`, `}` and `\` stays as it is. url.sty reads the argument of a
/// `\url` that is not inside another command's argument verbatim (where BibTeX styles
/// write `howpublished`), so `%`, `#`, `_` and `~` print as themselves, while an
/// escaped `\%` printed its backslash under url.sty. Braces must stay balanced for
/// BibTeX, biber and `\url`, and a backslash would start a command, so those three are
/// percent-encoded: a canonical URL has them only in its query, where the encoded form
/// addresses the same thing. [`tex_url_decoded`] turns them back.
pub fn tex_url(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        match c {
            '{' => out.push_str("%7B"),
            '}' => out.push_str("%7D"),
            '\\' => out.push_str("%5C"),
            _ => out.push(c),
        }
    }
    out
}

/// [`tex_url`] undone: `%7B`, `%7D` and `%5C` (either case) back to `{`, `}` and `\`;
/// `None` when there is none. A URL read back from a rendered entry may be either form.
pub fn tex_url_decoded(url: &str) -> Option<String> {
    let mut out = String::with_capacity(url.len());
    let mut rest = url;
    let mut changed = false;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let code = rest.get(at + 1..at + 3).map(str::to_ascii_uppercase);
        let decoded = match code.as_deref() {
            Some("7B") => Some('{'),
            Some("7D") => Some('}'),
            Some("5C") => Some('\\'),
            _ => None,
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[at + 3..];
                changed = true;
            }
            None => {
                out.push('%');
                rest = &rest[at + 1..];
            }
        }
    }
    out.push_str(rest);
    changed.then_some(out)
}
