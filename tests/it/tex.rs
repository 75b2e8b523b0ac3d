//! Issue 12: the BibTeX and BibLaTeX outputs typeset by real TeX. A corpus of hostile
//! titles and URLs (every LaTeX special, unbalanced braces, ligature sequences, control
//! characters, non-ASCII Latin, CJK, emoji, right-to-left scripts, URLs with `% # _ ~ ;`
//! and braces, a URL longer than BibTeX's 79-column lines) goes through
//!
//! - `export --format biblatex` → lualatex + biblatex + biber, and
//! - `render --style bibtex` → pdflatex + bibtex (`plain.bst`), once under url.sty and
//!   once under hyperref,
//!
//! and every entry's title and URL must be in the PDF's text (pdftotext). What each
//! engine is held to:
//!
//! - Every document compiles without a single error, with every entry present: no title
//!   may break the whole file.
//! - lualatex prints every character of every title (U+FFFD, which it refuses as
//!   input, as `?`), CJK, emoji and right-to-left text
//!   included, through font fallbacks (DejaVu Sans, WenQuanYi Micro Hei, Symbola). The
//!   document sets titles upright because the fallback fonts have no italics, and has no
//!   bidi package, so a right-to-left word is laid out in logical order and pdftotext
//!   hands it back reversed: either order is accepted. Under `Ligatures=TeX` a lone `'`,
//!   `` ` `` or `"` takes its typographic shape (’ ‘ ”), which is read back as the ASCII
//!   character; two of them must still be two characters.
//! - pdflatex without CJK packages or fonts cannot print CJK, emoji, Hebrew or Arabic
//!   at all, and stops on each with "Unicode character … not set up for use with
//!   LaTeX". The document declares those characters silent (as a writer mixing scripts
//!   under pdflatex would have to), and the test asks for the rest of each title, with
//!   those characters left out, and for every URL whole. `plain.bst` changes the case
//!   of titles, so titles compare case-insensitively there.
//!
//! Whitespace is ignored throughout: justified lines and `\url`'s breakpoints put gaps
//! where pdftotext sees spaces. Hyphenation is switched off so that no word is split.
//!
//! The tools are Debian's texlive-latex-base, texlive-latex-recommended,
//! texlive-bibtex-extra, texlive-luatex, biber, poppler-utils, fonts-wqy-microhei and
//! fonts-symbola. The tests are ignored unless asked for (`cargo test -- --ignored`, as
//! CI does), and then a missing tool fails them.

use std::path::Path;

use serde_json::Value;

use crate::util::Sandbox;

/// `(url, title)`: the URL as given to `add`; the ledger canonicalizes it.
const CORPUS: &[(&str, &str)] = &[
    (
        "https://specials.example/a_b",
        r"R&D 100% of $5 for #1 in a_b ~tilde ^caret \backslash {braced} @at",
    ),
    ("https://close.example/", "only } a closing brace"),
    ("https://open.example/", "only { an opening brace"),
    (
        "https://ligatures.example/",
        "dash -- x --- ``y'' ?` !` <<a>> ,,b 'single' \"double\" |bar|",
    ),
    (
        "https://control.example/",
        "bell\u{7} escape\u{1b} delete\u{7f} next\u{85}line",
    ),
    ("https://latin.example/", "Ünïcödé Café façade Ærø"),
    (
        "https://cjk.example/",
        "中文标题 日本語のタイトル 한국어 제목",
    ),
    ("https://emoji.example/", "Party 🎉 time 🚀"),
    (
        "https://rtl.example/",
        "Hebrew שלום עולם Arabic مرحبا بالعالم",
    ),
    (
        "https://url.example/Caf%C3%A9/x_y~z;p?q=1&r=%23&s=a%20b",
        "URL with percent, hash, underscore, tilde and semicolon",
    ),
    (
        "https://braces.example/path?q={a}&r=b}c",
        "URL with braces in its query",
    ),
    (
        "https://long.example/a/very/long/path/that/goes/on/and/on/past/seventy-nine/columns/Caf%C3%A9?x=1",
        "",
    ),
    ("https://bücher.example/straße", "IDN host"),
];

/// A title with raw control characters, NUL included. The ledger stores a control
/// character as U+FFFD, and an argument cannot carry NUL, so this source reaches the
/// outputs through the library, as one from an older or foreign ledger would.
fn raw_control_source() -> cite_ledger::Source {
    cite_ledger::Source {
        id: 99,
        url: "https://raw-control.example/".into(),
        title: "raw\u{0}nul\u{7}bell\u{1b}esc\u{7f}del\u{9f}c1\ttab\u{2028}sep\u{ffff}end".into(),
        accessed: "2024-03-05".into(),
        quotes: vec![],
        via: None,
        alias_of: None,
        page_text: false,
        metadata: Default::default(),
    }
}

/// Fails the test unless the TeX tools are on PATH.
fn tex_tools() {
    let missing: Vec<&str> = [
        ("lualatex", "--version"),
        ("pdflatex", "--version"),
        ("biber", "--version"),
        ("bibtex", "--version"),
        ("pdftotext", "-v"),
    ]
    .into_iter()
    .filter(|(tool, arg)| !crate::util::runs(tool, &[arg]))
    .map(|(tool, _)| tool)
    .collect();
    if !missing.is_empty() {
        crate::util::missing_tool(&format!(
            "{missing:?} not on PATH — install them (Debian: see .ci/run)"
        ));
    }
}

/// A ledger of the corpus; returns each source as the ledger holds it: `(url, title)`.
fn corpus(sb: &Sandbox) -> Vec<(String, String)> {
    for (url, title) in CORPUS {
        let mut args = vec!["add", url, "--accessed", "2024-03-05"];
        if !title.is_empty() {
            args.extend(["--title", title]);
        }
        sb.ok(&args);
    }
    let list: Value = serde_json::from_str(&sb.ok(&["list", "--json"])).unwrap();
    let mut sources: Vec<(String, String)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let url = s["url"].as_str().unwrap().to_string();
            let title = s["title"].as_str().unwrap();
            let title = if title.is_empty() { &url } else { title };
            (url.clone(), title.to_string())
        })
        .collect();
    assert_eq!(sources.len(), CORPUS.len());
    let raw = raw_control_source();
    sources.push((raw.url, raw.title));
    sources
}

/// Typesets `doc.tex` in `dir` with `engine`, `bib` between two runs, and returns the
/// PDF's text.
fn typeset(dir: &Path, engine: &str, bib: &str) -> String {
    let tex = ["-interaction=nonstopmode", "-halt-on-error", "doc.tex"];
    crate::util::run_tool(dir, engine, &tex);
    crate::util::run_tool(dir, bib, &["doc"]);
    crate::util::run_tool(dir, engine, &tex);
    crate::util::run_tool(dir, engine, &tex);
    crate::util::run_tool(
        dir,
        "pdftotext",
        &["-raw", "-enc", "UTF-8", "doc.pdf", "doc.txt"],
    );
    let log = std::fs::read_to_string(dir.join("doc.log")).unwrap_or_default();
    assert!(!log.contains("\n! "), "an error in the log:\n{log}");
    std::fs::read_to_string(dir.join("doc.txt")).unwrap()
}

/// Text as compared: no whitespace, no bidi controls, typographic quotes as ASCII.
fn squash(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_whitespace())
        .filter(|c| !matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'))
        .map(|c| match c {
            '‘' => '`',
            '’' => '\'',
            '“' | '”' => '"',
            c => c,
        })
        .collect()
}

fn is_rtl(c: char) -> bool {
    matches!(c, '\u{0590}'..='\u{08ff}' | '\u{fb1d}'..='\u{fdff}' | '\u{fe70}'..='\u{feff}')
}

/// `text` with every run of right-to-left characters (a word: spaces end a run)
/// reversed: how pdftotext hands back right-to-left words laid out in logical order.
fn rtl_reversed(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        if is_rtl(chars[i]) {
            let end = (i..chars.len())
                .find(|&j| !is_rtl(chars[j]))
                .unwrap_or(chars.len());
            out.extend(chars[i..end].iter().rev());
            i = end;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// The title as a reader sees it printed: control characters gone, the ones that break
/// lines a space.
fn printed(title: &str) -> String {
    title
        .chars()
        .filter_map(|c| match c {
            '\t' | '\n' | '\r' | '\u{85}' | '\u{2028}' => Some(' '),
            c if c.is_control() || c == '\u{ffff}' => None,
            '\u{fffd}' => Some('?'),
            c => Some(c),
        })
        .collect()
}

/// Asserts that every title (through `expect`) and every URL is in `pdf`.
fn assert_all_present(
    pdf: &str,
    sources: &[(String, String)],
    expect: impl Fn(&str) -> String,
    fold: impl Fn(&str) -> String,
) {
    let text = fold(&squash(pdf));
    let mut missing = Vec::new();
    for (url, title) in sources {
        let want = fold(&squash(&expect(title)));
        let reversed = fold(&squash(&rtl_reversed(&expect(title))));
        if !text.contains(&want) && !text.contains(&reversed) {
            missing.push(format!("title {want:?}"));
        }
        let want = squash(&cite_core::tex::tex_url(url));
        if !text.contains(&fold(&want)) {
            missing.push(format!("URL {want:?}"));
        }
    }
    assert!(
        missing.is_empty(),
        "missing from the PDF: {missing:#?}\nPDF text:\n{pdf}"
    );
}

const LUALATEX_DOC: &str = r#"\documentclass{article}
\usepackage{fontspec}
\directlua{luaotfload.add_fallback("citefallback",
  {"DejaVu Sans:mode=harf;", "WenQuanYi Micro Hei:mode=harf;", "Symbola:mode=harf;"})}
\setmainfont{DejaVu Serif}[RawFeature={fallback=citefallback}]
\usepackage[backend=biber,style=numeric]{biblatex}
\DeclareFieldFormat*{title}{#1}
\addbibresource{export.bib}
\usepackage{hyperref}
\hyphenpenalty=10000 \exhyphenpenalty=10000
\begin{document}
\raggedright
\nocite{*}
\printbibliography
\end{document}
"#;

/// Issue 12.
#[test]
#[ignore = "needs TeX (lualatex, pdflatex, biber, bibtex, pdftotext): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn lualatex_biber_typesets_every_title_and_url_of_the_biblatex_export() {
    tex_tools();
    let sb = Sandbox::new();
    let sources = corpus(&sb);
    let bib = sb.path().join("export.bib");
    sb.ok(&[
        "export",
        "--format",
        "biblatex",
        "-o",
        bib.to_str().unwrap(),
    ]);
    let mut text = std::fs::read_to_string(&bib).unwrap();
    text.push('\n');
    text.push_str(&cite_core::interop::biblatex::entry(&raw_control_source()));
    text.push('\n');
    std::fs::write(&bib, text).unwrap();
    sb.file("doc.tex", LUALATEX_DOC);
    let pdf = typeset(sb.path(), "lualatex", "biber");
    assert_all_present(&pdf, &sources, printed, str::to_string);
    // Every entry, and the access date of each.
    assert_eq!(
        squash(&pdf).matches("visitedon03/05/2024").count(),
        sources.len(),
        "{pdf}"
    );
}

/// What pdflatex prints with the default fonts: ASCII and Latin-1.
fn pdflatex_printable(title: &str) -> String {
    printed(title)
        .chars()
        .filter(|&c| c.is_ascii() || ('\u{a0}'..='\u{ff}').contains(&c))
        .collect()
}

fn pdflatex_doc(url_package: &str) -> String {
    format!(
        r"\documentclass{{article}}
\usepackage[T1]{{fontenc}}
\usepackage{{lmodern}}
\usepackage{{{url_package}}}
\makeatletter
\def\UTFviii@undefined@err#1{{}}
\makeatother
\hyphenpenalty=10000 \exhyphenpenalty=10000
\begin{{document}}
\raggedright
\nocite{{*}}
\bibliographystyle{{plain}}
\bibliography{{refs}}
\end{{document}}
"
    )
}

/// Issue 12.
#[test]
#[ignore = "needs TeX (lualatex, pdflatex, biber, bibtex, pdftotext): see CONTRIBUTING.md, run with cargo test -- --ignored"]
fn pdflatex_bibtex_typesets_every_title_and_url_of_render_bibtex() {
    tex_tools();
    for package in ["url", "hyperref"] {
        let sb = Sandbox::new();
        let sources = corpus(&sb);
        let raw = cite_core::render::sources::block(
            &[raw_control_source()],
            cite_core::render::sources::Style::Bibtex,
        );
        let bib = format!("{}{raw}\n", sb.ok(&["render", "--style", "bibtex"]));
        sb.file("refs.bib", &bib);
        sb.file("doc.tex", &pdflatex_doc(package));
        let pdf = typeset(sb.path(), "pdflatex", "bibtex");
        assert_all_present(&pdf, &sources, pdflatex_printable, |t| t.to_lowercase());
        assert_eq!(
            squash(&pdf).matches("Accessed2024-03-05").count(),
            sources.len(),
            "under {package}: {pdf}"
        );
    }
}
