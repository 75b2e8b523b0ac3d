// Opens a `cite report` HTML file in headless Chromium and reports, as one JSON object on
// stdout, what a reader finds: where each citation link lands, whether its preview shows
// on keyboard focus, the sentence statuses, every request the page made, and how much the
// screenshots at desktop and phone widths vary. The Rust test (tests/it/report.rs)
// asserts on it.
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
    JSON.stringify({ url, links: links.length, landings, statuses, requests, cspViolations, shots, overflow, pdfBytes: pdf.length }),
  );
} finally {
  await browser.close();
}
