// Opens a `flate diff -o html` report in Debian's chromium and checks it.
//
// Usage: node report.test.mjs REPORT.html EXPECT.json
// EXPECT: {
//   "objects": ["env|Kind|namespace/name", ...],  // the tree lists exactly these
//   "hideKind": "Secret",          // unticking this kind hides its objects
//   "search": "text",              // searching keeps only objects matching
//   "searchKeeps": ["env|Kind|ns/name"],
//   "maxOpenMs": 2000,             // page load until the tree is built
//   "screenshot": "path.png"       // optional
// }
// Prints one line per check and `open-ms N`; exits 1 on the first failure.
import { chromium } from "playwright-core";
import { readFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [report, expectPath] = process.argv.slice(2);
if (!report || !expectPath) {
  console.error("usage: node report.test.mjs REPORT.html EXPECT.json");
  process.exit(2);
}
const want = JSON.parse(readFileSync(expectPath, "utf8"));
const profile = mkdtempSync(join(tmpdir(), "flate-chromium-"));
// A fresh profile (--user-data-dir) for every run.
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1400, height: 900 },
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
let failed = false;
const check = (ok, what) => {
  console.log(`${ok ? "ok" : "FAIL"} ${what}`);
  if (!ok) failed = true;
};
try {
  const page = browser.pages()[0] || (await browser.newPage());
  const url = pathToFileURL(resolve(report)).href;
  const outside = [];
  page.on("request", (r) => {
    if (r.url() !== url) outside.push(r.url());
  });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  // What the Content-Security-Policy blocked would never reach the
  // request event: count attempts too.
  await page.addInitScript(() => {
    window.__blocked = [];
    document.addEventListener("securitypolicyviolation", (e) => window.__blocked.push(e.blockedURI + " " + e.violatedDirective));
  });
  const t0 = Date.now();
  await page.goto(url, { waitUntil: "load" });
  await page.waitForSelector("body[data-ready='1']", { timeout: 30000 });
  const openMs = Date.now() - t0;
  console.log(`open-ms ${openMs}`);
  check(openMs < (want.maxOpenMs ?? 2000), `opens in ${openMs} ms (< ${want.maxOpenMs ?? 2000})`);

  // The tree: environment → producer → kind → object.
  const listed = async () =>
    page.$$eval("#tree a.obj", (as) =>
      as
        .filter((a) => !a.hidden)
        .map((a) => {
          const env = a.closest("details[data-level=env]").querySelector("summary").firstChild.textContent.trim();
          return `${env}|${a.dataset.kind}|${a.textContent.slice(1)}`;
        }),
    );
  const all = await listed();
  if (want.objects) {
    const a = [...all].sort(), b = [...want.objects].sort();
    check(JSON.stringify(a) === JSON.stringify(b), `tree lists the expected ${b.length} objects (got ${JSON.stringify(a)})`);
  }
  if (want.count !== undefined) check(all.length === want.count, `tree lists ${want.count} objects (got ${all.length})`);

  // Switching view.
  await page.click("#tree a.obj");
  check((await page.$$("#detail table.diff.uni")).length === 1, "unified view by default");
  await page.click("#view-split");
  check((await page.$$("#detail table.diff.split")).length === 1, "side-by-side view after the switch");
  await page.keyboard.press("v");
  check((await page.$$("#detail table.diff.uni")).length === 1, "v switches back");

  // Keyboard navigation.
  if (all.length > 1) {
    const before = await page.$eval("#detail h2", (h) => h.textContent);
    await page.keyboard.press("j");
    const after = await page.$eval("#detail h2", (h) => h.textContent);
    check(before !== after, "j selects the next object");
  }

  // Kind filter.
  if (want.hideKind) {
    await page.click(`#kinds input[data-kind="${want.hideKind}"]`);
    const left = await listed();
    check(
      left.length > 0 && left.every((o) => o.split("|")[1] !== want.hideKind) &&
        left.length === all.filter((o) => o.split("|")[1] !== want.hideKind).length,
      `unticking ${want.hideKind} hides exactly its objects`,
    );
    await page.click(`#kinds input[data-kind="${want.hideKind}"]`);
    check((await listed()).length === all.length, `ticking ${want.hideKind} again shows them`);
  }

  // Text search.
  if (want.search) {
    await page.keyboard.press("/");
    await page.keyboard.type(want.search);
    const left = await listed();
    check(JSON.stringify([...left].sort()) === JSON.stringify([...want.searchKeeps].sort()), `search "${want.search}" keeps ${JSON.stringify(left)}`);
    await page.fill("#search", "");
    await page.dispatchEvent("#search", "input");
  }

  // Theme.
  await page.click("#theme");
  const theme = await page.evaluate(() => document.documentElement.dataset.theme);
  check(theme === "dark" || theme === "light", `theme toggles (${theme})`);
  await page.click("#theme");

  if (want.screenshot) {
    if (want.screenshotSelect) await page.click(`#tree a.obj[title*="${want.screenshotSelect}"]`);
    await page.screenshot({ path: want.screenshot, fullPage: false });
  }
  const blocked = await page.evaluate(() => window.__blocked);
  check(outside.length === 0 && blocked.length === 0, `no request leaves the page (${JSON.stringify(outside.concat(blocked))})`);
  check(errors.length === 0, `no script errors (${JSON.stringify(errors)})`);
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
