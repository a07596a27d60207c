// The Playground in a real browser: headless Chromium driven by puppeteer-core.
//
//   node playground.mjs <playgroundBaseUrl> <mcpUrlOrDash> <screenshotDir>
//
// Launches the system Chromium (/usr/bin/chromium, or $AJISAI_CHROMIUM), records every
// request (any request to another origin fails the run), every console error or warning
// and every page error (any fails the run), and walks through the page as a person would:
// run, errors, NIL, square roots, the live check, the dictionary, sharing, the profile
// badge, a limit beyond the MCP profile (also sent to the MCP server when a URL is given),
// a memory bomb, a phone-sized viewport and the dark theme. A full-page screenshot is
// taken after each check. Prints one JSON line: {"ok":true,"checks":[…],"screenshots":[…]}
// or {"ok":false,"failed":"<check>","why":"…"}, and exits 0 or 1.

import puppeteer from 'puppeteer-core';
import fs from 'node:fs';
import path from 'node:path';

const [baseArg, mcpArg, shotDir] = process.argv.slice(2);
if (!baseArg || !mcpArg || !shotDir) {
  process.stderr.write('usage: node playground.mjs <playgroundBaseUrl> <mcpUrlOrDash> <screenshotDir>\n');
  process.exit(2);
}
const base = new URL(baseArg.endsWith('/') ? baseArg : `${baseArg}/`);
const origin = base.origin;
const chromium = process.env.AJISAI_CHROMIUM || '/usr/bin/chromium';

const RUN_TIMEOUT = 60_000; // debug builds are slow, and the memory bomb takes its time
const UI_TIMEOUT = 20_000;

fs.mkdirSync(shotDir, { recursive: true });

const problems = []; // console errors/warnings, page errors, foreign requests
const checks = [];
const screenshots = [];
let checkNo = 0;

function watch(page, label) {
  page.on('request', (req) => {
    const url = req.url();
    if (url.startsWith('data:') || url.startsWith('about:') || url.startsWith('blob:')) return;
    let o;
    try { o = new URL(url).origin; } catch { o = url; }
    if (o !== origin) problems.push(`${label}: request to another origin: ${url}`);
  });
  page.on('console', (msg) => {
    const t = msg.type();
    if (t === 'error' || t === 'warn' || t === 'warning' || t === 'assert') {
      const loc = msg.location();
      problems.push(`${label}: console ${t}: ${msg.text()}${loc?.url ? ` (${loc.url}:${loc.lineNumber})` : ''}`);
    }
  });
  page.on('pageerror', (err) => problems.push(`${label}: page error: ${err?.message || err}`));
}

/** A full-page screenshot named after the current check: <nn>-<check>[-<extra>].png. */
async function shot(page, extra) {
  const name = extra ? `${current}-${extra}` : current;
  const file = path.join(shotDir, `${String(checkNo).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  screenshots.push(file);
}

function assert(cond, why) {
  if (!cond) throw new Error(why);
}

async function text(page, selector) {
  return page.$eval(selector, (e) => e.textContent.replace(/\s+/g, ' ').trim());
}

async function waitReady(page) {
  await page.waitForFunction(() => document.body.dataset.ready === '1', { timeout: UI_TIMEOUT });
}

/** Replace the editor's text by typing it, as a person would. */
async function typeProgram(page, program) {
  await page.focus('#source');
  await page.keyboard.down('Control');
  await page.keyboard.press('KeyA');
  await page.keyboard.up('Control');
  await page.keyboard.press('Backspace');
  const empty = await page.$eval('#source', (e) => e.value);
  assert(empty === '', `the editor did not clear (still ${JSON.stringify(empty)})`);
  await page.keyboard.type(program);
  const typed = await page.$eval('#source', (e) => e.value);
  assert(typed === program, `typing gave ${JSON.stringify(typed)}, not ${JSON.stringify(program)}`);
}

/** Wait until the live check has answered for the editor's current text. */
async function waitChecked(page, before) {
  await page.waitForFunction((b) => {
    const d = document.getElementById('diagnostics');
    return Number(d.dataset.checked) > b && !d.classList.contains('stale');
  }, { timeout: UI_TIMEOUT }, before);
}

async function checkedCount(page) {
  return page.$eval('#diagnostics', (d) => Number(d.dataset.checked || 0));
}

/** Start observing data-busy, so that a run that is over before we look is still seen. */
async function armBusy(page) {
  await page.evaluate(() => {
    window.__busyLog = [];
    if (!window.__busyObserver) {
      window.__busyObserver = new MutationObserver(() => window.__busyLog.push(document.body.dataset.busy));
      window.__busyObserver.observe(document.body, { attributes: true, attributeFilter: ['data-busy'] });
    }
  });
}

async function waitRun(page) {
  await page.waitForFunction(() => window.__busyLog.includes('1') && document.body.dataset.busy === '0', { timeout: RUN_TIMEOUT });
}

/** Ctrl+Enter in the editor, and wait for the run to finish. */
async function runTyped(page, program) {
  await typeProgram(page, program);
  await armBusy(page);
  await page.keyboard.down('Control');
  await page.keyboard.press('Enter');
  await page.keyboard.up('Control');
  await waitRun(page);
}

async function status(page) {
  return text(page, '#status');
}

async function mcpCompute(url, source) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'compute', arguments: { source } } }),
  });
  const body = await res.text();
  assert(res.ok, `the MCP server answered HTTP ${res.status}: ${body.slice(0, 300)}`);
  let message;
  if ((res.headers.get('content-type') || '').includes('text/event-stream')) {
    for (const line of body.split(/\r?\n/)) {
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (!data) continue;
      try {
        const m = JSON.parse(data);
        if (m.id === 1) message = m;
      } catch { /* not JSON: another event */ }
    }
  } else {
    message = JSON.parse(body);
  }
  assert(message && message.result, `no JSON-RPC result in the MCP answer: ${body.slice(0, 300)}`);
  return message.result.structuredContent;
}

const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  args: [
    ...(typeof process.getuid === 'function' && process.getuid() === 0 ? ['--no-sandbox'] : []),
    '--disable-gpu',
    '--disable-dev-shm-usage',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-default-apps',
    '--disable-extensions',
    '--disable-sync',
    '--no-first-run',
    '--no-default-browser-check',
    '--font-render-hinting=none',
  ],
  defaultViewport: { width: 1280, height: 900, deviceScaleFactor: 1 },
});

let result;
let current = '';
try {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  watch(page, 'page');

  const steps = [
    ['load', async () => {
      const response = await page.goto(base.href, { waitUntil: 'load', timeout: UI_TIMEOUT });
      assert(response && response.ok(), `GET / answered ${response && response.status()}`);
      const headers = response.headers();
      const csp = headers['content-security-policy'] || '';
      assert(csp.includes("frame-ancestors 'none'"), `the CSP lacks frame-ancestors 'none': ${csp}`);
      assert(csp.includes("script-src 'self'"), `the CSP lacks script-src 'self': ${csp}`);
      assert((headers['x-content-type-options'] || '').toLowerCase() === 'nosniff', 'x-content-type-options is not nosniff');
      await waitReady(page);
      const open = await page.$eval('#about', (d) => d.open);
      assert(open, 'the about dialog is not open on the first visit');
      const named = await page.$eval('#about', (d) => d.getAttribute('aria-labelledby') || d.getAttribute('aria-label'));
      assert(named, 'the about dialog has no accessible name');
      await shot(page, 'about-open');
      await page.keyboard.press('Escape');
      await page.waitForFunction(() => !document.getElementById('about').open, { timeout: UI_TIMEOUT });
    }],
    ['run', async () => {
      await runTyped(page, '2 3 DIV 1 3 DIV ADD');
      const stack = await text(page, '#stack');
      assert(stack.includes('1/1'), `#stack shows ${JSON.stringify(stack)}`);
      assert((await status(page)) === 'value', `#status is ${JSON.stringify(await status(page))}`);
    }],
    ['error', async () => {
      await runTyped(page, '1 2 ROT');
      const out = await text(page, '#output');
      assert(out.includes('unknownWord'), `#output lacks the category: ${out}`);
      assert(out.includes('line 1, column 5'), `#output does not name line 1, column 5: ${out}`);
      const hint = await page.$eval('#output .hint', (e) => e.textContent).catch(() => '');
      assert(hint.includes('BIND'), `no .hint mentioning BIND (${JSON.stringify(hint)})`);
      const marks = await page.$$eval('#editor .error-mark', (es) => es.map((e) => e.textContent));
      assert(marks.includes('ROT'), `the editor's error marks are ${JSON.stringify(marks)}`);
      assert((await status(page)) === 'error:unknownWord', `#status is ${await status(page)}`);
    }],
    ['nil', async () => {
      await runTyped(page, '1 0 DIV');
      const stack = await text(page, '#stack');
      assert(stack.includes('NIL') && stack.includes('divisionByZero'), `#stack shows ${JSON.stringify(stack)}`);
      assert((await page.$$('#stack .nil')).length > 0, 'no .nil element');
      assert((await status(page)) === 'nil:divisionByZero', `#status is ${await status(page)}`);
    }],
    ['sqrt', async () => {
      await runTyped(page, '2 SQRT');
      const stack = await text(page, '#stack');
      assert(stack.includes('sqrt(2)'), `#stack shows ${JSON.stringify(stack)}`);
      const approx = await page.$eval('#stack .approx', (e) => e.textContent.trim()).catch(() => '');
      assert(approx.startsWith('≈ 1.41421356237'), `.approx is ${JSON.stringify(approx)}`);
    }],
    ['live-check', async () => {
      const before = await status(page);
      await armBusy(page);
      await typeProgram(page, '1 DUP');
      await page.waitForFunction(
        () => [...document.querySelectorAll('#editor .check-error')].some((e) => e.textContent === 'DUP')
          && document.getElementById('diagnostics').textContent.includes('DUP'),
        { timeout: UI_TIMEOUT },
      );
      const checked = await page.$eval('#diagnostics', (e) => Number(e.dataset.checked));
      assert(checked > 0, 'data-checked did not count the check');
      const ran = await page.evaluate(() => window.__busyLog.includes('1'));
      assert(!ran, 'the live check ran the program');
      assert((await status(page)) === before, `#status changed from ${before} to ${await status(page)}`);
    }],
    ['dictionary', async () => {
      await page.click('#dict-search');
      await page.keyboard.type('MAP');
      await page.waitForFunction(() => {
        const b = document.querySelector('#dictionary [data-word="MAP"]');
        return b && b.offsetParent !== null;
      }, { timeout: UI_TIMEOUT });
      const hiddenOthers = await page.$$eval('#dictionary [data-word]', (bs) => bs.filter((b) => b.offsetParent === null).length);
      assert(hiddenOthers > 0, 'the search filtered nothing');
      await page.click('#dictionary [data-word="MAP"]');
      await page.waitForSelector('#dictionary .example-run', { timeout: UI_TIMEOUT });
      const detail = await text(page, '#word-detail');
      assert(detail.includes('( v code -- w )'), `the MAP entry lacks its stack effect: ${detail.slice(0, 200)}`);
      await armBusy(page);
      await page.click('#dictionary .example-run');
      await waitRun(page);
      const stack = await text(page, '#stack');
      assert(stack.includes('[ 2/1 4/1 6/1 ]'), `#stack shows ${JSON.stringify(stack)}`);
      const src = await page.$eval('#source', (e) => e.value);
      assert(src === '[ 1 2 3 ] { 2 * } MAP', `the editor holds ${JSON.stringify(src)}`);
    }],
    ['share', async () => {
      await typeProgram(page, '7 6 MUL');
      const want = `#src=${Buffer.from('7 6 MUL', 'utf8').toString('base64url')}`;
      await page.waitForFunction((w) => window.location.hash === w, { timeout: UI_TIMEOUT }, want);
      const href = await page.evaluate(() => window.location.href);
      await page.click('#share');
      await page.waitForFunction(() => document.getElementById('announcer').textContent.includes('Link copied')
        || !document.getElementById('copy-fallback').hidden, { timeout: UI_TIMEOUT });
      const said = await text(page, '#announcer');
      const fallback = await page.$eval('#copy-fallback', (e) => !e.hidden);
      assert(said.includes('Link copied') || fallback, `Copy link said ${JSON.stringify(said)}`);
      if (fallback) {
        const shown = await page.$eval('#copy-url', (e) => e.value);
        assert(shown === href, `the fallback shows ${shown}`);
        await page.click('#copy-fallback-close');
      }
      const other = await browser.createBrowserContext();
      try {
        const fresh = await other.newPage();
        watch(fresh, 'shared page');
        await fresh.goto(href, { waitUntil: 'load', timeout: UI_TIMEOUT });
        await waitReady(fresh);
        const value = await fresh.$eval('#source', (e) => e.value);
        assert(value === '7 6 MUL', `the shared page's editor holds ${JSON.stringify(value)}`);
        const open = await fresh.$eval('#about', (d) => d.open);
        assert(!open, 'the about dialog opened over a shared program');
        await shot(fresh, 'new-page');
        await fresh.close();
      } finally {
        await other.close();
      }
    }],
    ['badge', async () => {
      await page.focus('#badge');
      await page.waitForFunction(() => {
        const t = document.getElementById('badge-tooltip');
        const r = t.getBoundingClientRect();
        return !t.hidden && getComputedStyle(t).display !== 'none' && r.width > 0 && r.height > 0;
      }, { timeout: UI_TIMEOUT });
      const described = await page.$eval('#badge', (b) => b.getAttribute('aria-describedby'));
      assert(described === 'badge-tooltip', `#badge aria-describedby is ${described}`);
      const role = await page.$eval('#badge-tooltip', (t) => t.getAttribute('role'));
      assert(role === 'tooltip', `#badge-tooltip role is ${role}`);
      const tip = await text(page, '#badge-tooltip');
      for (const want of ['playground', 'mcp-local-stdio', '12,000,000', '100,000']) {
        assert(tip.includes(want), `the tooltip lacks ${want}: ${tip}`);
      }
      await shot(page, 'tooltip');
      await page.keyboard.press('Escape');
      await page.waitForFunction(() => document.getElementById('badge-tooltip').hidden, { timeout: UI_TIMEOUT });
    }],
    ['beyond-mcp', async () => {
      // RANGE is inclusive: 1..100001 is 100,001 elements, over the MCP profile's 100,000
      // materializedElements and well under the Playground's 1,000,000.
      const program = '1 100001 RANGE LENGTH';
      await runTyped(page, program);
      const stack = await text(page, '#stack');
      assert(stack.includes('100001/1'), `#stack shows ${JSON.stringify(stack)}`);
      if (mcpArg !== '-') {
        const env = await mcpCompute(mcpArg, program);
        assert(env && env.status === 'error', `the MCP server answered status ${env && env.status}`);
        assert(env.error?.category === 'resourceLimitExceeded', `the MCP error category is ${env.error?.category}`);
        assert(env.error?.resource === 'materializedElements', `the MCP error resource is ${env.error?.resource}`);
      }
    }],
    ['memory-bomb', async () => {
      await runTyped(page, '0 999999 RANGE { 0 999 RANGE } MAP');
      const st = await status(page);
      assert(st === 'hostError:memoryExhausted', `#status is ${JSON.stringify(st)}`);
      const out = await text(page, '#output');
      assert(out.includes('256 MiB') && out.includes('memoryBytes'), `#output does not explain it: ${out}`);
      await shot(page, 'stopped');
      await runTyped(page, '1 1 ADD');
      const stack = await text(page, '#stack');
      assert(stack.includes('2/1'), `after the bomb, #stack shows ${JSON.stringify(stack)}`);
      assert((await status(page)) === 'value', `after the bomb, #status is ${await status(page)}`);
    }],
    ['mobile', async () => {
      await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
      await waitReady(page);
      await page.evaluate(() => { const d = document.getElementById('about'); if (d.open) d.close(); });
      const long = `'${'x'.repeat(160)}' PRINT\n0 40 RANGE 2 SQRT 'a string long enough to need wrapping inside its own box on a phone' [ [ 1 2 ] [ 3 4 ] ] { 2 * } 1 0 DIV # ${'a long comment '.repeat(8)}`;
      const before = await checkedCount(page);
      await runTyped(page, long);
      await waitChecked(page, before); // the check's answer may change the layout
      await page.click('#dict-search');
      await page.keyboard.down('Control');
      await page.keyboard.press('KeyA');
      await page.keyboard.up('Control');
      await page.keyboard.press('Backspace');
      await page.keyboard.type('fold');
      await page.waitForFunction(() => { const b = document.querySelector('#dictionary [data-word="FOLD"]'); return b && b.offsetParent !== null; }, { timeout: UI_TIMEOUT });
      await page.click('#dictionary [data-word="FOLD"]');
      await page.waitForFunction(() => document.querySelector('#word-detail h3')?.textContent.startsWith('FOLD'), { timeout: UI_TIMEOUT });
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert(width <= 390, `the page is ${width}px wide at 390px: it scrolls horizontally`);
      const slots = await page.$$eval('#stack .slot', (s) => s.length);
      assert(slots >= 5, `only ${slots} stack slots are shown`);
    }],
    ['dark', async () => {
      const light = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
      await page.waitForFunction((l) => getComputedStyle(document.body).backgroundColor !== l, { timeout: UI_TIMEOUT }, light);
      const dark = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert(dark !== light, `the dark background equals the light one (${light})`);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert(width <= 390, `in the dark theme the page is ${width}px wide`);
    }],
  ];

  for (const [name, fn] of steps) {
    current = name;
    checkNo += 1;
    await fn();
    assert(problems.length === 0, problems.join(' | '));
    await shot(page);
    checks.push(name);
  }
  // A last look at the whole page in the dark theme on a wide screen.
  current = 'dark-desktop';
  await page.setViewport({ width: 1280, height: 900, deviceScaleFactor: 1, isMobile: false, hasTouch: false });
  await waitReady(page);
  await page.evaluate(() => { const d = document.getElementById('about'); if (d.open) d.close(); });
  await armBusy(page);
  await page.click('#run');
  await waitRun(page);
  assert(problems.length === 0, problems.join(' | '));
  await shot(page);
  result = { ok: true, checks, screenshots };
} catch (err) {
  result = { ok: false, failed: current, why: String(err && err.message ? err.message : err).replace(/\s+/g, ' ').slice(0, 2000) };
} finally {
  await browser.close().catch(() => {});
}
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(result.ok ? 0 : 1);
