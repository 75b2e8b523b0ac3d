// Opens a `cite report` HTML file in headless Chromium and reports, as one JSON object on
// stdout, what a reader finds: where each citation link lands, whether its preview shows
// on keyboard focus, the sentence statuses and what the legend and the banner count,
// where each finding's link lands and the sentence there, the text each sentence's marks
// hold, every request the page made, and how much the screenshots at desktop and phone
// widths vary. The Rust test (tests/it/report.rs) asserts on it.
//
// Usage: node check.mjs REPORT.html OUT_DIR   (env CHROMIUM: the browser, else
// /usr/bin/chromium)
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import puppeteer from "puppeteer-core";

const [report, outDir] = process.argv.slice(2);
const url = pathToFileURL(resolve(report)).href;
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
});
try {
  const page = await browser.newPage();
  const requests = [];
  page.on("request", (r) => requests.push(r.url()));
  const cspViolations = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
  });
  await page.setViewport({ width: 1280, height: 800 });
  await page.goto(url, { waitUntil: "load" });

  const links = await page.$$eval("a.cite", (as) => as.map((a) => a.getAttribute("href")));
  const landings = [];
  for (let i = 0; i < links.length; i++) {
    // Keyboard first: the preview is hidden, focus the link, and it shows.
    const preview = await page.evaluate((i) => {
      const a = document.querySelectorAll("a.cite")[i];
      const pop = a.parentElement.querySelector(".pop");
      if (!pop) return { hiddenBefore: false, shown: false, text: "" };
      const visible = () => {
        const style = getComputedStyle(pop);
        const box = pop.getBoundingClientRect();
        return style.display !== "none" && style.visibility !== "hidden" && box.width > 0 && box.height > 0;
      };
      document.activeElement?.blur();
      const hiddenBefore = !visible();
      a.focus();
      return { hiddenBefore, shown: visible(), text: pop.textContent };
    }, i);
    // Then follow it, as Enter on the focused link does.
    await page.keyboard.press("Enter");
    const landed = await page.evaluate(() => {
      const target = document.querySelector(decodeURIComponent(location.hash) || "#none");
      if (!target) return { hash: location.hash, card: null, inView: false };
      const box = target.getBoundingClientRect();
      return {
        hash: location.hash,
        card: target.id,
        isCard: target.matches(".card, article, section, li, div"),
        inView: box.top < window.innerHeight && box.bottom > 0,
      };
    });
    landings.push({ href: links[i], preview, ...landed });
    await page.evaluate(() => {
      history.replaceState(null, "", location.pathname);
      window.scrollTo(0, 0);
    });
  }
  const statuses = await page.$$eval("[data-status]", (els) => [
    ...new Set(els.map((e) => e.getAttribute("data-status"))),
  ]);

  // Each sentence as the reader sees it: its badge (status, icon and word, computed
  // underline of its text) and the text of every piece marked with its number.
  const sentences = await page.evaluate(() =>
    [...document.querySelectorAll(".badge[data-s]")].map((b) => {
      const n = b.getAttribute("data-s");
      const pieces = [...document.querySelectorAll(`.s[data-s="${n}"]`)];
      const style = pieces.length ? getComputedStyle(pieces[0]) : null;
      return {
        n: Number(n),
        status: b.getAttribute("data-status"),
        icon: b.querySelector("[aria-hidden]").textContent,
        word: b.querySelector(".word")?.textContent ?? "",
        text: pieces.map((p) => p.textContent).join(""),
        underline: style ? style.textDecorationStyle + " " + style.textDecorationLine : "",
      };
    }),
  );
  const legend = await page.$$eval("[data-legend-count]", (els) =>
    Object.fromEntries(els.map((e) => [e.getAttribute("data-legend-count"), Number(e.textContent)])),
  );
  const banner = await page.$$eval("[data-count]", (els) =>
    Object.fromEntries(els.map((e) => [e.getAttribute("data-count"), Number(e.textContent)])),
  );

  // Every finding's link, followed from the keyboard: where it lands, and the sentence
  // there.
  const findingLinks = await page.$$eval("li[data-finding] a", (as) =>
    as.map((a) => ({
      href: a.getAttribute("href"),
      sentence: a.getAttribute("data-sentence"),
      kind: a.closest("li").getAttribute("data-finding"),
      scope: a.closest("li").getAttribute("data-scope"),
    })),
  );
  const findings = [];
  for (let i = 0; i < findingLinks.length; i++) {
    await page.evaluate((i) => document.querySelectorAll("li[data-finding] a")[i].focus(), i);
    await page.keyboard.press("Enter");
    const landed = await page.evaluate(() => {
      const target = document.querySelector(decodeURIComponent(location.hash) || "#none");
      if (!target) return { hash: location.hash, target: null, inView: false };
      const box = target.getBoundingClientRect();
      return {
        hash: location.hash,
        target: target.id,
        s: target.getAttribute("data-s"),
        status: target.getAttribute("data-status"),
        inView: box.top < window.innerHeight && box.bottom > 0,
      };
    });
    findings.push({ ...findingLinks[i], ...landed });
    await page.evaluate(() => {
      history.replaceState(null, "", location.pathname);
      window.scrollTo(0, 0);
    });
  }

  // Screenshots at desktop and phone widths, and the page printed to PDF.
  const shots = {};
  await page.screenshot({ path: join(outDir, "desktop.png"), fullPage: false });
  await page.setViewport({ width: 390, height: 844, isMobile: true, deviceScaleFactor: 2 });
  await page.goto(url, { waitUntil: "load" });
  await page.screenshot({ path: join(outDir, "phone.png"), fullPage: false });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  const pdf = await page.pdf({ format: "A4" });
  writeFileSync(join(outDir, "report.pdf"), pdf);

  // How varied each screenshot is, measured in a blank page of our own (not the report,
  // whose CSP forbids scripts): the share of pixels unlike the first one.
  const blank = await browser.newPage();
  for (const name of ["desktop.png", "phone.png"]) {
    const png = readFileSync(join(outDir, name)).toString("base64");
    shots[name] = await blank.evaluate(async (data) => {
      const img = new Image();
      img.src = "data:image/png;base64," + data;
      await img.decode();
      const c = document.createElement("canvas");
      c.width = img.width;
      c.height = img.height;
      const ctx = c.getContext("2d");
      ctx.drawImage(img, 0, 0);
      const px = ctx.getImageData(0, 0, c.width, c.height).data;
      let differ = 0;
      for (let i = 0; i < px.length; i += 4) {
        if (px[i] !== px[0] || px[i + 1] !== px[1] || px[i + 2] !== px[2]) differ++;
      }
      return { width: c.width, height: c.height, differing: differ / (px.length / 4) };
    }, png);
  }
  process.stdout.write(
    JSON.stringify({
      url,
      links: links.length,
      landings,
      statuses,
      sentences,
      legend,
      banner,
      findings,
      requests,
      cspViolations,
      shots,
      overflow,
      pdfBytes: pdf.length,
    }),
  );
} finally {
  await browser.close();
}
