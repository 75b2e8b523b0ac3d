//! Issue 22, item 1: `cite report DRAFT` — one self-contained HTML page of a draft, every
//! sentence marked by what `verify` found, every citation a link to its source's card,
//! every outside text escaped, nothing loaded from the network; and the same page from
//! the MCP `report` tool. The `chromium` test opens it in Debian's headless Chromium.

use std::collections::BTreeSet;

use crate::util::{Sandbox, missing_tool, runs};

const PAGE: &str = "Water is unusual. Ice is therefore about 9% less dense than the water it \
forms from, so ice floats. In 2024 the survey counted 1,200 lakes.\n";

/// A ledger with a page-backed source (1, quoted), a hostile one (2) and one without page
/// text (3), and a draft with a sentence of every status, hostile text and a link.
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
See [a link](javascript:alert(1)) and <img src=x onerror=alert(1)> and ![i](https://img.example/i.png).\n";
    let path = sb.file("draft.md", draft);
    (sb, path)
}

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
    for s in [
        "supported",
        "cited",
        "tool",
        "policy",
        "unverified",
        "none",
        "failing",
    ] {
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

/// Debian's headless Chromium opens the page from disk, driven by puppeteer-core
/// (tests/browser/check.mjs) as a reader would: every citation link, focused from the
/// keyboard, shows its preview (hidden before), and followed with Enter lands on its
/// source card in view; every sentence status of the showcase is on the page; the page
/// makes no request but for itself and breaks no CSP rule; screenshots at desktop and
/// phone width are not blank; at phone width nothing overflows sideways; it prints to PDF.
#[test]
#[ignore = "needs chromium and node with tests/browser installed"]
fn chromium_shows_the_report() {
    let project = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser");
    if !runs("chromium", &["--version"]) {
        missing_tool("needs chromium (apt-get install chromium)");
    }
    if !(project.join("node_modules/puppeteer-core").is_dir() && runs("node", &["--version"])) {
        missing_tool(
            "node or tests/browser/node_modules is missing — run `npm ci --prefix tests/browser`",
        );
    }
    let (sb, draft) = showcase();
    let out = sb.path().join("report.html");
    sb.ok(&[
        "report",
        draft.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    let run = std::process::Command::new("node")
        .arg(project.join("check.mjs"))
        .arg(&out)
        .arg(sb.path())
        .output()
        .expect("run node");
    assert!(
        run.status.success(),
        "check.mjs failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let seen: serde_json::Value =
        serde_json::from_slice(&run.stdout).expect("check.mjs prints JSON");
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
    for s in [
        "supported",
        "cited",
        "tool",
        "policy",
        "unverified",
        "none",
        "failing",
    ] {
        assert!(statuses.contains(s), "{s} not on the page: {statuses:?}");
    }
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
