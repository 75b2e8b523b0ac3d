//! Issue 22, item 1: `cite report DRAFT` — one self-contained HTML page of a draft, every
//! sentence marked by what `verify` found, every citation a link to its source's card,
//! every outside text escaped, nothing loaded from the network; and the same page from
//! the MCP `report` tool. The `chromium` test opens it in Debian's headless Chromium.

use std::collections::BTreeSet;

use crate::util::{Sandbox, missing_tool, runs};

const PAGE: &str = "Water is unusual. Ice is therefore about 9% less dense than the water it \
forms from, so ice floats. In 2024 the survey counted 1,200 lakes.\n";

/// A ledger with a page-backed source (1, quoted), a hostile one (2) and one without page
/// text (3), and a draft with a sentence of every status (a name no page has, a glued
/// citation), emphasis, code and links in sentences, and hostile text.
fn showcase() -> (Sandbox, std::path::PathBuf) {
    let sb = Sandbox::new();
    let page = sb.file("page.md", PAGE);
    let page = page.to_str().unwrap();
    sb.ok(&[
        "add",
        "https://physics.example.org/ice",
        "--title",
        "Ice & water",
        "--snapshot",
        page,
    ]);
    sb.ok(&[
        "add",
        "https://evil.example.org/x?a=1&b=\"><script>alert(1)</script>",
        "--title",
        "<script>alert('title')</script>",
    ]);
    sb.ok(&["add", "https://chem.example.edu/notes", "--title", "Notes"]);
    sb.ok(&[
        "quote",
        "1",
        "--text",
        "Ice is therefore about 9% less dense",
        "--from",
        page,
    ]);
    let draft = "# Report <b>bold</b>\n\n\
Ice is about 9% less dense than water.[1] The survey counted 1,500 lakes in 2024.[1] \
Hydrogen bonds hold the lattice open.[3] A made-up claim cites a source nobody registered.[9] \
The mean was computed as 4.2 kg.[tool:python] We publish every correction we make.[policy] \
Some say this anomaly is rare among liquids.[unverified] This sentence has no marker at all. \
A hostile source is cited here too.[2] Grouped pandoc citations work as well [@source1; @source3].\n\n\
Ice is *less dense* than water, says Karl Ostrander.[1] The **published densities** put the gap at about 9%[1]. \
Ice floats because of its `lattice` structure, as [the page](https://physics.example.org/ice) says.[1]\n\n\
See [a link](javascript:alert(1)) and <img src=x onerror=alert(1)> and ![i](https://img.example/i.png).\n";
    let path = sb.file("draft.md", draft);
    (sb, path)
}

/// The showcase's sentences as the reader sees them (markers and markup gone), in order
/// (sentence 1 first, as findings name them), with the status each is marked with.
const SHOWCASE_SENTENCES: [(&str, &str); 14] = [
    ("Ice is about 9% less dense than water.", "supported"),
    ("The survey counted 1,500 lakes in 2024.", "failing"),
    ("Hydrogen bonds hold the lattice open.", "unchecked"),
    (
        "A made-up claim cites a source nobody registered.",
        "failing",
    ),
    ("The mean was computed as 4.2 kg.", "tool"),
    ("We publish every correction we make.", "policy"),
    ("Some say this anomaly is rare among liquids.", "unverified"),
    ("This sentence has no marker at all.", "none"),
    ("A hostile source is cited here too.", "unchecked"),
    ("Grouped pandoc citations work as well .", "supported"),
    (
        "Ice is less dense than water, says Karl Ostrander.",
        "warned",
    ),
    ("The published densities put the gap at about 9%.", "warned"),
    (
        "Ice floats because of its lattice structure, as the page says.",
        "supported",
    ),
    ("See a link and <img src=x onerror=alert(1)> and i.", "none"),
];

/// Every status a sentence can have on the page.
const STATES: [&str; 8] = [
    "supported",
    "unchecked",
    "warned",
    "failing",
    "tool",
    "policy",
    "unverified",
    "none",
];

/// The value of every `attr="…"` in `html`.
fn attrs<'h>(html: &'h str, attr: &str) -> Vec<&'h str> {
    let key = format!("{attr}=\"");
    html.match_indices(&key)
        .map(|(at, _)| {
            let rest = &html[at + key.len()..];
            &rest[..rest.find('"').unwrap()]
        })
        .collect()
}

#[test]
fn the_report_marks_every_sentence_and_links_every_citation_to_its_card() {
    let (sb, draft) = showcase();
    let out = sb.path().join("report.html");
    let r = sb.run(&[
        "report",
        draft.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    // verify fails this draft ([9], a figure not on the page): the report is still
    // written, exit 0, and says so.
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("verification failed"), "{}", r.stdout);
    let html = std::fs::read_to_string(&out).unwrap();

    // Every status of the example, on its sentence.
    let statuses: BTreeSet<&str> = attrs(&html, "data-status").into_iter().collect();
    for s in STATES {
        assert!(statuses.contains(s), "no {s} sentence: {statuses:?}");
    }
    // Every citation link lands on a card that exists; every cited id has one.
    let ids: BTreeSet<&str> = attrs(&html, "id").into_iter().collect();
    let targets: Vec<&str> = attrs(&html, "href")
        .into_iter()
        .filter(|h| h.starts_with('#'))
        .collect();
    for t in &targets {
        assert!(
            ids.contains(&t[1..]),
            "a link to {t}, which is not on the page"
        );
    }
    for id in [1, 2, 3, 9] {
        assert!(
            targets.contains(&format!("#source-{id}").as_str()),
            "[{id}] links nowhere"
        );
    }
    assert!(
        html.contains("not in the ledger"),
        "[9]'s card says it is missing"
    );
    // The quote in its page's words, highlighted, and the page's hash.
    assert!(
        html.contains("Water is unusual. <mark>Ice is therefore about 9% less dense</mark> than"),
        "{html}"
    );
    assert!(html.contains("blake3:"));
    // Who registered it (no actor set: the command line and time).
    assert!(html.contains("registered</dt>"));
    // The findings link to their sentences.
    assert!(
        html.contains("figure \"1,500\"")
            || html.contains("figure &quot;1,500&quot;")
            || html.contains("1,500")
    );
}

#[test]
fn the_report_escapes_hostile_text_and_loads_nothing() {
    let (sb, draft) = showcase();
    let html = sb.ok(&["report", draft.to_str().unwrap()]);
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src &#x27;none&#x27;; style-src &#x27;unsafe-inline&#x27;; img-src data:;"
    ), "no CSP");
    // Not one script, event handler, external resource or script URL as a link (the
    // draft's `<img …>` is on the page only as text).
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"));
    let lower = html
        .replace("&lt;img src=x onerror=alert(1)&gt;", "")
        .to_lowercase();
    assert!(!lower.contains("<script"), "a script element");
    assert!(!lower.contains("<img"), "an image element");
    assert!(!lower.contains("<link"), "a link element");
    assert!(!lower.contains(" onerror="), "an event handler");
    assert!(!lower.contains("src="), "a resource reference");
    assert!(!lower.contains("url("), "a CSS resource");
    assert!(!lower.contains("@import"));
    for href in attrs(&html, "href") {
        assert!(
            href.starts_with('#') || href.starts_with("https:") || href.starts_with("http:"),
            "href {href}"
        );
    }
    // The hostile title and URL are shown, as text.
    assert!(html.contains("&lt;script&gt;alert(&#x27;title&#x27;)&lt;&#x2F;script&gt;"));
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"));
    assert!(html.contains("&lt;b&gt;bold&lt;&#x2F;b&gt;"));
}

#[test]
fn report_refuses_a_missing_draft_and_writing_over_the_draft_or_ledger() {
    let (sb, draft) = showcase();
    let r = sb.run(&["report", "no-such.md", "-o", "x.html"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("no such draft: no-such.md"),
        "{}",
        r.stderr
    );
    let d = draft.to_str().unwrap();
    let r = sb.run(&["report", d, "-o", d]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("is the draft itself"), "{}", r.stderr);
    let r = sb.run(&["report", d, "-o", sb.ledger.to_str().unwrap()]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("is the ledger itself"), "{}", r.stderr);
    let r = sb.run(&["report", d, "--min-coverage", "2"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    // The draft was left as it was.
    assert!(
        std::fs::read_to_string(&draft)
            .unwrap()
            .starts_with("# Report")
    );
}

#[test]
fn a_passing_draft_reports_citations_ok_and_its_status() {
    let (sb, _) = showcase();
    let d = sb.file("ok.md", "Ice is about 9% less dense than water.[1]\n");
    sb.ok(&["render", "--replace-in", d.to_str().unwrap()]);
    let r = sb.run(&["report", d.to_str().unwrap(), "-o", "-"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("<strong>citations OK</strong>"));
    assert!(r.stderr.contains("citations OK"), "{}", r.stderr);
    assert_eq!(attrs(&r.stdout, "data-status"), ["supported"]);
}

/// The text of `<span class="s …" data-s="N">` pieces of sentence `n`, tags dropped and
/// the escapes the page writes read back: what a reader sees of the sentence, without
/// its markers.
fn sentence_text(html: &str, n: usize) -> String {
    let key = format!("data-s=\"{n}\">");
    let mut out = String::new();
    for (at, _) in html.match_indices(&key) {
        let open = html[..at].rfind('<').unwrap();
        if !html[open..at].starts_with("<span class=\"s ") {
            continue;
        }
        let rest = &html[at + key.len()..];
        let inner = &rest[..rest.find("</span>").unwrap()];
        let mut text = String::new();
        let mut in_tag = false;
        for c in inner.chars() {
            match c {
                '<' => in_tag = true,
                '>' => in_tag = false,
                c if !in_tag => text.push(c),
                _ => {}
            }
        }
        out.push_str(
            &text
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&#x27;", "'")
                .replace("&#x2F;", "/")
                .replace("&amp;", "&"),
        );
    }
    out
}

/// The status the badge of sentence `n` shows.
fn status_of(html: &str, n: usize) -> &str {
    let id = format!("id=\"s-{n}\" data-status=\"");
    let at = html.find(&id).unwrap_or_else(|| panic!("no sentence {n}")) + id.len();
    &html[at..at + html[at..].find('"').unwrap()]
}

/// Four states a reader tells apart without colour — supported, unchecked (no page text:
/// never the ✔), warned, failing — each with an icon, a word and an underline of its own,
/// the legend counting each as the page marks it; every sentence marked on its own,
/// whatever inline markup it holds.
#[test]
fn the_report_tells_four_states_apart_and_counts_them() {
    let (sb, draft) = showcase();
    let html = sb.ok(&["report", draft.to_str().unwrap()]);
    let statuses = attrs(&html, "data-status");
    for state in STATES {
        let marked = statuses.iter().filter(|s| **s == state).count();
        let key = format!("data-legend-count=\"{state}\">");
        let at = html.find(&key).unwrap() + key.len();
        let counted: usize = html[at..at + html[at..].find('<').unwrap()]
            .parse()
            .unwrap();
        assert_eq!(counted, marked, "{state}: legend {counted}, page {marked}");
        assert!(marked > 0, "no {state} sentence");
    }
    // Each state's badge: its own icon and its word, visible.
    let mut icons = BTreeSet::new();
    for state in ["supported", "unchecked", "warned", "failing"] {
        let key = format!("data-status=\"{state}\"");
        let at = html.find(&key).unwrap();
        let badge = &html[at..at + html[at..].find("</span></span>").unwrap()];
        let icon_at = badge.find("aria-hidden=\"true\">").unwrap() + 19;
        let icon = &badge[icon_at..icon_at + badge[icon_at..].find('<').unwrap()];
        assert!(
            icons.insert(icon.to_string()),
            "{state} shares its icon {icon}"
        );
        assert!(
            badge.contains(&format!("<span class=\"word\">{state}</span>")),
            "{badge}"
        );
    }
    let sentences = SHOWCASE_SENTENCES;
    for (k, (text, status)) in sentences.iter().enumerate() {
        assert_eq!(sentence_text(&html, k + 1), *text, "sentence {}", k + 1);
        assert_eq!(
            status_of(&html, k + 1),
            *status,
            "sentence {}: {text}",
            k + 1
        );
    }
    // An unchecked sentence says why, and never shows the ✔.
    let at = html.find("id=\"s-3\"").unwrap();
    let badge = &html[at..at + html[at..].find("</span></span>").unwrap()];
    assert!(!badge.contains('✔'), "{badge}");
    assert!(badge.contains("no page text is stored for [3]"), "{badge}");
    // A cited sentence whose page was read and has nothing to check says so.
    let at = html.find("id=\"s-13\"").unwrap();
    assert!(
        html[at..].starts_with("id=\"s-13\" data-status=\"supported\"")
            && html[at..at + 400].contains("checked: nothing to check"),
        "{}",
        &html[at..at + 400]
    );
}

/// Every finding about sentences links to each of them (`#s-N`, N as the finding names
/// it), and the sentence there is the one the finding's JSON names.
#[test]
fn every_finding_links_to_its_sentence() {
    let (sb, draft) = showcase();
    let d = draft.to_str().unwrap();
    let html = sb.ok(&["report", d]);
    let out = sb.run(&["verify", d, "--support", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let findings: Vec<&serde_json::Value> = ["errors", "warnings", "info"]
        .iter()
        .flat_map(|k| json[k].as_array().unwrap())
        .collect();
    let items: Vec<&str> = html
        .match_indices("<li data-finding=")
        .map(|(at, _)| &html[at..at + html[at..].find("</li>").unwrap()])
        .collect();
    assert_eq!(items.len(), findings.len());
    let mut linked = 0;
    for (item, f) in items.iter().zip(&findings) {
        let named: Vec<usize> = f["sentences"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|s| s["index"].as_u64().unwrap() as usize + 1)
                    .collect()
            })
            .unwrap_or_default();
        let links: Vec<usize> = attrs(item, "data-sentence")
            .iter()
            .map(|n| n.parse().unwrap())
            .collect();
        assert_eq!(links, named, "{item}");
        for (n, s) in named
            .iter()
            .zip(f["sentences"].as_array().into_iter().flatten())
        {
            assert!(item.contains(&format!("href=\"#s-{n}\"")), "{item}");
            assert!(html.contains(&format!("id=\"s-{n}\"")));
            // The first words the reader sees of it are the sentence's.
            let text = s["text"].as_str().unwrap();
            let first = text.split_whitespace().next().unwrap().trim_matches('*');
            assert!(
                sentence_text(&html, *n).starts_with(first),
                "sentence {n}: {text} / {}",
                sentence_text(&html, *n)
            );
            linked += 1;
        }
    }
    // The figure, the unknown id, the name, the glued citation, the unchecked sentences.
    assert!(linked >= 6, "{linked}");
}

/// Under `--strict`, what fails is failing: the banner counts the sentences marked
/// failing and the failures of the draft as a whole, and these are the page's.
#[test]
fn strict_marks_what_it_fails_and_the_banner_counts_it() {
    let (sb, draft) = showcase();
    let d = draft.to_str().unwrap();
    for strict in [false, true] {
        let mut args = vec!["report", d];
        if strict {
            args.push("--strict");
        }
        let html = sb.ok(&args);
        let failing = attrs(&html, "data-status")
            .iter()
            .filter(|s| **s == "failing")
            .count();
        let count = |key: &str| -> usize {
            let key = format!("data-count=\"{key}\">");
            let at = html.find(&key).unwrap() + key.len();
            html[at..at + html[at..].find('<').unwrap()]
                .parse()
                .unwrap()
        };
        assert_eq!(count("failing-sentences"), failing, "strict {strict}");
        let draft_level = html
            .matches("data-finding=\"fail\" data-scope=\"draft\"")
            .count();
        assert_eq!(count("draft-failures"), draft_level, "strict {strict}");
        // Each failure about sentences names failing ones only.
        for (at, _) in html.match_indices("data-finding=\"fail\" data-scope=\"sentence\"") {
            let item = &html[at..at + html[at..].find("</li>").unwrap()];
            for n in attrs(item, "data-sentence") {
                assert_eq!(status_of(&html, n.parse().unwrap()), "failing", "{item}");
            }
        }
        let warned = attrs(&html, "data-status")
            .iter()
            .filter(|s| **s == "warned" || **s == "unchecked")
            .count();
        if strict {
            assert_eq!(warned, 0, "--strict leaves no sentence warned or unchecked");
            // The two unsupported or unknown, two warned, two unchecked.
            assert_eq!(failing, 6);
        } else {
            assert_eq!(failing, 2);
        }
    }
    // The CLI says what the banner says.
    let out = sb.path().join("strict.html");
    let r = sb.run(&["report", d, "--strict", "-o", out.to_str().unwrap()]);
    assert!(
        r.stdout
            .contains(": verification failed: 6 failing sentence(s) and "),
        "{}",
        r.stdout
    );
}

/// Opens the report `out` in headless Chromium with tests/browser/check.mjs: what a
/// reader finds there, as JSON.
fn in_chromium(sb: &Sandbox, out: &std::path::Path) -> serde_json::Value {
    let project = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser");
    if !runs("chromium", &["--version"]) {
        missing_tool("needs chromium (apt-get install chromium)");
    }
    if !(project.join("node_modules/puppeteer-core").is_dir() && runs("node", &["--version"])) {
        missing_tool(
            "node or tests/browser/node_modules is missing — run `npm ci --prefix tests/browser`",
        );
    }
    let run = std::process::Command::new("node")
        .arg(project.join("check.mjs"))
        .arg(out)
        .arg(sb.path())
        .output()
        .expect("run node");
    assert!(
        run.status.success(),
        "check.mjs failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    serde_json::from_slice(&run.stdout).expect("check.mjs prints JSON")
}

/// Debian's headless Chromium opens the page from disk, driven by puppeteer-core
/// (tests/browser/check.mjs) as a reader would: every citation link, focused from the
/// keyboard, shows its preview (hidden before), and followed with Enter lands on its
/// source card in view; every sentence status of the showcase is on the page, each
/// sentence marked on its own whatever markup it holds (emphasis, a glued citation,
/// code, a link); the four states of a cited sentence differ in icon, word and underline,
/// and the legend counts what the page marks; every finding's link lands on its sentence
/// in view; under `--strict` the banner counts the sentences marked failing and the
/// failures of the draft as a whole. The page makes no request but for itself and breaks
/// no CSP rule; screenshots at desktop and phone width are not blank; at phone width
/// nothing overflows sideways; it prints to PDF.
#[test]
#[ignore = "needs chromium and node with tests/browser installed"]
fn chromium_shows_the_report() {
    let (sb, draft) = showcase();
    let out = sb.path().join("report.html");
    sb.ok(&[
        "report",
        draft.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    let seen = in_chromium(&sb, &out);
    let landings = seen["landings"].as_array().expect("landings");
    assert!(!landings.is_empty(), "no citation links: {seen}");
    let html = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        landings.len(),
        html.matches("<a class=\"cite").count(),
        "every citation link followed"
    );
    for l in landings {
        let href = l["href"].as_str().unwrap();
        assert!(href.starts_with("#source-"), "{l}");
        assert_eq!(l["hash"], href, "the link lands on its target: {l}");
        assert_eq!(l["card"].as_str(), Some(&href[1..]), "{l}");
        assert_eq!(l["inView"], true, "the card is scrolled into view: {l}");
        assert_eq!(l["preview"]["hiddenBefore"], true, "{l}");
        assert_eq!(
            l["preview"]["shown"], true,
            "preview on keyboard focus: {l}"
        );
    }
    let statuses: BTreeSet<&str> = seen["statuses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    for s in STATES {
        assert!(statuses.contains(s), "{s} not on the page: {statuses:?}");
    }
    // Each sentence marked on its own, as the reader sees it.
    let sentences = seen["sentences"].as_array().unwrap();
    let shown: Vec<(&str, &str)> = sentences
        .iter()
        .map(|s| (s["text"].as_str().unwrap(), s["status"].as_str().unwrap()))
        .collect();
    assert_eq!(shown, SHOWCASE_SENTENCES);
    // The four states apart without colour: icon, word and underline each their own.
    for part in ["icon", "word", "underline"] {
        let mut seen_for: std::collections::BTreeMap<&str, &str> = Default::default();
        for s in sentences {
            let state = s["status"].as_str().unwrap();
            if ["supported", "unchecked", "warned", "failing"].contains(&state) {
                seen_for.insert(state, s[part].as_str().unwrap());
            }
        }
        let distinct: BTreeSet<&&str> = seen_for.values().collect();
        assert_eq!(distinct.len(), 4, "{part}: {seen_for:?}");
    }
    for s in sentences.iter().filter(|s| s["status"] == "unchecked") {
        assert!(!s["icon"].as_str().unwrap().contains('✔'), "{s}");
    }
    // The legend counts what the page marks.
    for state in STATES {
        let marked = sentences.iter().filter(|s| s["status"] == state).count();
        assert_eq!(seen["legend"][state], marked, "{state}");
    }
    findings_land_on_their_sentences(&seen);
    assert_eq!(seen["banner"]["failing-sentences"], 2, "{}", seen["banner"]);

    let url = seen["url"].as_str().unwrap();
    for r in seen["requests"].as_array().unwrap() {
        assert_eq!(r.as_str(), Some(url), "a request besides the page itself");
    }
    assert_eq!(seen["cspViolations"].as_array().unwrap().len(), 0, "{seen}");
    for shot in ["desktop.png", "phone.png"] {
        let differing = seen["shots"][shot]["differing"].as_f64().unwrap();
        assert!(differing > 0.02, "{shot} is blank: {differing}");
    }
    assert!(
        seen["overflow"].as_i64().unwrap() <= 0,
        "sideways scroll on a phone: {seen}"
    );
    assert!(seen["pdfBytes"].as_u64().unwrap() > 10_000, "{seen}");

    // Under --strict: what fails is failing, and the banner counts it.
    let strict = sb.path().join("strict.html");
    sb.ok(&[
        "report",
        draft.to_str().unwrap(),
        "--strict",
        "-o",
        strict.to_str().unwrap(),
    ]);
    let seen = in_chromium(&sb, &strict);
    let sentences = seen["sentences"].as_array().unwrap();
    let failing = sentences
        .iter()
        .filter(|s| s["status"] == "failing")
        .count();
    assert_eq!(failing, 6);
    assert!(
        sentences
            .iter()
            .all(|s| s["status"] != "warned" && s["status"] != "unchecked"),
        "{sentences:?}"
    );
    assert_eq!(seen["banner"]["failing-sentences"], failing);
    assert_eq!(seen["legend"]["failing"], failing);
    let html = std::fs::read_to_string(&strict).unwrap();
    assert_eq!(
        seen["banner"]["draft-failures"],
        html.matches("data-finding=\"fail\" data-scope=\"draft\"")
            .count()
    );
    findings_land_on_their_sentences(&seen);
}

/// Every finding's link, followed from the keyboard, lands in view on what it names: a
/// sentence link on that sentence's mark, and a failure's on a sentence marked failing.
fn findings_land_on_their_sentences(seen: &serde_json::Value) {
    let findings = seen["findings"].as_array().unwrap();
    assert!(
        findings.iter().filter(|f| !f["sentence"].is_null()).count() >= 6,
        "{findings:?}"
    );
    for f in findings {
        assert_eq!(f["hash"], f["href"], "{f}");
        assert_eq!(f["inView"], true, "{f}");
        if let Some(n) = f["sentence"].as_str() {
            assert_eq!(f["s"].as_str(), Some(n), "lands on its sentence: {f}");
            if f["kind"] == "fail" && f["scope"] == "sentence" {
                assert_eq!(f["status"], "failing", "{f}");
            }
        }
    }
}

/// The MCP `report` tool gives the page the CLI writes, as text, with the verdict as
/// structured content; a draft it cannot read is a tool error, not a protocol one.
#[test]
fn the_mcp_report_tool_gives_the_page_the_cli_writes() {
    let (sb, draft) = showcase();
    let cli = sb.run(&["report", draft.to_str().unwrap(), "-o", "-"]);
    assert_eq!(cli.code, 0, "{}", cli.stderr);
    let mut srv = crate::mcp::Server::start(&sb.ledger);
    srv.initialize();
    let (html, meta) = srv.ok("report", serde_json::json!({"path": draft}));
    assert!(
        html.starts_with("<!DOCTYPE html>"),
        "{}",
        &html[..80.min(html.len())]
    );
    assert!(html.contains("Content-Security-Policy"));
    // The same statuses and cards as the CLI's page (the draft is named the same way).
    assert_eq!(
        attrs(&html, "data-status"),
        attrs(&cli.stdout, "data-status")
    );
    assert_eq!(attrs(&html, "id"), attrs(&cli.stdout, "id"));
    assert_eq!(meta["mime_type"], "text/html");
    assert_eq!(meta["bytes"], html.len());
    assert_eq!(meta["passed"], false, "{meta}");
    // The verdict the page shows, counted as it marks the draft.
    assert_eq!(meta["failing_sentences"], 2, "{meta}");
    assert_eq!(
        meta["verdict"].as_str().unwrap(),
        format!(
            "verification failed: 2 failing sentence(s) and {} failure(s) of the draft as a whole",
            meta["draft_failures"]
        ),
        "{meta}"
    );
    assert_eq!(
        meta["failing_sentences"],
        attrs(&html, "data-status")
            .iter()
            .filter(|s| **s == "failing")
            .count()
    );
    let text = std::fs::read_to_string(&draft).unwrap();
    let (given, _) = srv.ok("report", serde_json::json!({"draft": text}));
    assert_eq!(attrs(&given, "data-status"), attrs(&html, "data-status"));
    let msg = srv.refused(
        "report",
        serde_json::json!({"path": sb.path().join("missing.md")}),
    );
    assert!(msg.contains("missing.md"), "{msg}");
    let msg = srv.refused("report", serde_json::json!({}));
    assert!(msg.contains("give the draft"), "{msg}");
    assert_eq!(srv.shutdown(), Some(0));
}
