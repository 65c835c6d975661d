// page.mjs — the explorer's page in Debian's headless Chromium, driven by playwright-core
// (which never downloads a browser here: it is handed /usr/bin/chromium). Checks the DOM
// the page renders from the real daemons' answers; prints one line per check and exits 1
// when one failed. Run by test_explorer.py, which has seeded the daemons:
//
//   node page.mjs <node_modules> <chromium> <explorer URL> <token> <screenshot.png> <profile dir>
import path from "node:path";
import { pathToFileURL } from "node:url";

const [modules, chromiumPath, base, token, screenshot, profile] = process.argv.slice(2);
const { chromium } = await import(pathToFileURL(path.join(modules, "playwright-core/index.mjs")).href);

let failed = 0;
function check(ok, what) {
  console.log((ok ? "ok   " : "FAIL ") + what);
  if (!ok) failed++;
}

const context = await chromium.launchPersistentContext(profile, {
  executablePath: chromiumPath,
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  viewport: { width: 1280, height: 900 },
});
const problems = [];
try {
  const page = context.pages()[0] || (await context.newPage());
  page.setDefaultTimeout(20000);
  page.on("pageerror", (e) => problems.push("page error: " + e.message));
  page.on("console", (m) => { if (m.type() === "error") problems.push("console: " + m.text()); });
  await page.goto(base + "/");
  await page.waitForSelector("body[data-ready='1']");

  // a wrong token: the page says so
  await page.fill("#token", "not-the-token");
  await page.fill("#tenant", "acme");
  await page.fill("#user", "maya");
  await page.click("#load");
  await page.waitForSelector("#error:not([hidden])");
  const error = await page.textContent("#error");
  check(/401/.test(error) && /UNAUTHENTICATED/.test(error), "a wrong token shows the 401: " + JSON.stringify(error));
  const facts0 = await page.locator("#timeline-svg g.fact").count();
  check(facts0 === 0, "and no facts");
  problems.length = 0; // the browser logs the refused fetch (401) as a console error: expected

  // the timeline
  await page.fill("#token", token);
  await page.click("#load");
  await page.waitForSelector("#timeline-svg g.fact");
  check(await page.isHidden("#error"), "the right token clears the error");
  const facts = await page.$$eval("#timeline-svg g.fact", (gs) => gs.map((g) => ({
    relation: g.dataset.relation, object: g.dataset.object, status: g.dataset.status, cls: g.getAttribute("class"),
    title: g.querySelector("title").textContent, label: g.querySelector("text").textContent })));
  const find = (rel, obj) => facts.find((f) => f.relation === rel && f.object === obj);
  const lisbon = find("LIVES_IN", "Lisbon"), london = find("LIVES_IN", "London"), tram = find("COMMUTES_BY", "tram 28");
  check(lisbon && london && tram, "the timeline shows the three facts: " + JSON.stringify(facts.map((f) => f.label)));
  const heard = facts.find((f) => /source: session 2024-11-02-chat/.test(f.title) && f !== london);
  check(heard, "and what the rules read from the conversation, with its source");
  check(lisbon && /\bsuperseded\b/.test(lisbon.cls), "Lisbon is marked superseded");
  check(london && /\bcurrent\b/.test(london.cls), "London is marked current");
  check(tram && /\bstale\b/.test(tram.cls), "the commute is marked potentially stale");
  check(lisbon && /reason: took a job at a Lisbon startup/.test(lisbon.title) && /source: session 2023-03-chat/.test(lisbon.title),
    "Lisbon's reason and source on hover");
  check(tram && /premise changed: LIVES_IN London/.test(tram.title), "the commute's changed premise on hover");
  const dashed = await page.$$eval("#timeline-svg g.fact", (gs) => gs.map((g) =>
    [g.dataset.status, getComputedStyle(g.querySelector("line")).strokeDasharray]));
  check(dashed.some(([st]) => st === "superseded") &&
    dashed.every(([st, d]) => (st === "superseded") === (d !== "none" && d !== "")),
    "the superseded facts, and only they, are drawn dashed: " + JSON.stringify(dashed));

  // a fact's history
  const LISBON = "#timeline-svg g.fact[data-relation='LIVES_IN'][data-object='Lisbon']";
  await page.click(LISBON);
  await page.waitForSelector("#history-list li");
  const chain = await page.$$eval("#history-list li", (lis) => lis.map((li) => ({ cls: li.className, text: li.textContent })));
  check(chain.length === 2 && /Lisbon/.test(chain[0].text) && /London/.test(chain[1].text), "the history lists the chain in order");
  check(chain.length === 2 && chain[0].cls === "superseded" && chain[1].cls === "current" &&
        /reason: took a job/.test(chain[0].text) && /reason: moved for a new job/.test(chain[1].text) &&
        /valid 2023-03-01/.test(chain[0].text), "with statuses, reasons and dates");
  check(/Maya Patel · LIVES_IN/.test(await page.textContent("#history-title")), "titled by subject and relation");

  // the Recall debugger
  await page.fill("#question", "How does Maya Patel get to work?");
  await page.click("#recall-run");
  await page.waitForSelector("#recall-items tbody tr");
  const rows = await page.$$eval("#recall-items tbody tr", (trs) => trs.map((tr) => ({
    kind: tr.dataset.kind, status: tr.dataset.status, text: tr.querySelector("td.text").textContent,
    signals: [...tr.querySelectorAll(".signal")].map((s) => [s.dataset.signal, Number(s.dataset.value)]) })));
  check(rows.some((r) => r.kind === "FACT" && r.status === "POTENTIALLY_STALE" && /tram 28/.test(r.text) &&
    /premise changed: LIVES_IN London/.test(r.text)), "the stale commute with its changed premise");
  const chunk = rows.find((r) => r.kind === "CHUNK" && r.signals.length);
  check(chunk && ["content", "bm25", "recency"].every((s) => chunk.signals.some(([n]) => n === s)) &&
    chunk.signals.some(([, v]) => v > 0), "a chunk with each signal's score: " + JSON.stringify(chunk && chunk.signals));
  check(/tram 28/.test(await page.textContent("#recall-context")), "the context block");
  check(problems.length === 0, "no script errors or blocked resources: " + JSON.stringify(problems));

  await page.click(LISBON);
  await page.screenshot({ path: screenshot, fullPage: true });
} catch (e) {
  check(false, "page: " + e.message);
} finally {
  await context.close();
}
process.exit(failed ? 1 : 0);
