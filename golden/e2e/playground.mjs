// The Playground in a real browser: headless Chromium driven by puppeteer-core.
//
//   node playground.mjs <playgroundBaseUrl> <mcpUrlOrDash> <screenshotDir>
//
// Launches the system Chromium (/usr/bin/chromium, or $AJISAI_CHROMIUM), records every
// request (any request to another origin fails the run), every console error or warning
// and every page error (any fails the run), and walks through the page as a person would:
// run, results marked stale after an edit, errors, NIL, square roots, the live check, the dictionary, sharing, the profile
// badge, a limit beyond the MCP profile (also sent to the MCP server when a URL is given),
// a memory bomb, a large result and its Show all, a run stopped by hand, completion, bracket matching, Tab and Escape-then-Tab in the editor, the
// Examples menu by keyboard, landmarks / skip link / focus indicators, a hostile shared
// link, a phrasebook Word, a phone-sized viewport, the dark theme and an axe-core audit. A full-page screenshot is
// taken after each check. Prints one JSON line: {"ok":true,"checks":[…],"screenshots":[…]}
// or {"ok":false,"failed":"<check>","why":"…"}, and exits 0 or 1.

import puppeteer from 'puppeteer-core';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

// axe-core, pinned in package.json, injected into the one page that audits accessibility.
const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

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

/** waitForFunction whose timeout says what was awaited and what the page showed instead. */
async function until(page, fn, what, state, arg) {
  try {
    await page.waitForFunction(fn, { timeout: UI_TIMEOUT }, arg);
  } catch (err) {
    let seen;
    try { seen = JSON.stringify(await state()); } catch { seen = '?'; }
    throw new Error(`${what} did not happen (${String(err && err.message || err).slice(0, 80)}); the page shows ${seen}`);
  }
}

/**
 * The focused element: a label, whether it is shown, and whether it has a visible focus
 * indicator (an outline or a box-shadow); null when nothing in the page has focus.
 */
async function focusStop(page) {
  return page.evaluate(() => {
    const a = document.activeElement;
    if (!a || a === document.body || a === document.documentElement) return null;
    // The editor's textarea is transparent; its frame (.editor:focus-within) shows the focus.
    const target = a.id === 'source' ? document.getElementById('editor') : a;
    const cs = getComputedStyle(target);
    const outline = cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 1 && !/rgba\([^)]*,\s*0\)|transparent/.test(cs.outlineColor);
    const shadow = Boolean(cs.boxShadow && cs.boxShadow !== 'none');
    const r = a.getBoundingClientRect();
    const cls = typeof a.className === 'string' && a.className.trim() ? `.${a.className.trim().split(/\s+/).join('.')}` : '';
    const label = `${a.tagName.toLowerCase()}${a.id ? `#${a.id}` : ''}${cls}${a.dataset.word ? `[${a.dataset.word}]` : ''}`
      + `${a.tagName === 'SUMMARY' ? `(${a.textContent.trim().slice(0, 24)})` : ''}`;
    return {
      label,
      href: a.getAttribute('href'),
      visible: outline || shadow,
      fv: a.matches(':focus-visible'),
      shown: r.width > 0 && r.height > 0,
      top: r.top,
      outline: `${cs.outlineStyle} ${cs.outlineWidth} ${cs.outlineColor}`,
    };
  });
}

/** Press a key with modifiers held, e.g. combo(page, ['Shift'], 'Tab'). */
async function combo(page, mods, key) {
  for (const m of mods) await page.keyboard.down(m);
  await page.keyboard.press(key);
  for (const m of [...mods].reverse()) await page.keyboard.up(m);
}

/** The completion list as the page shows it: open?, labels, the selected label. */
async function completionState(page) {
  return page.evaluate(() => {
    const l = document.getElementById('completion');
    const r = l.getBoundingClientRect();
    const opts = [...l.querySelectorAll('[role="option"]')];
    const sel = opts.find((o) => o.getAttribute('aria-selected') === 'true');
    return {
      open: !l.hidden && getComputedStyle(l).display !== 'none' && r.width > 0 && r.height > 0,
      role: l.getAttribute('role'),
      labels: opts.map((o) => o.querySelector('.c-name')?.textContent),
      selected: sel ? sel.querySelector('.c-name')?.textContent : null,
      selectedId: sel ? sel.id : null,
      activedescendant: document.getElementById('source').getAttribute('aria-activedescendant'),
      controls: document.getElementById('source').getAttribute('aria-controls'),
    };
  });
}

/** The editor's bracket marks: their class, text and offset in the highlighted text. */
async function bracketMarks(page) {
  return page.evaluate(() => {
    const code = document.getElementById('highlight-code');
    return [...code.querySelectorAll('.bracket-match, .bracket-unmatched')].map((m) => {
      const r = document.createRange();
      r.setStart(code, 0);
      r.setEndBefore(m);
      return { cls: m.classList.contains('bracket-match') ? 'match' : 'unmatched', text: m.textContent, at: r.toString().length };
    });
  });
}

async function editorState(page) {
  return page.evaluate(() => {
    const t = document.getElementById('source');
    return { value: t.value, start: t.selectionStart, end: t.selectionEnd, focused: document.activeElement === t };
  });
}

/** What the page holds that a hostile program could have injected. */
async function injected(page) {
  return page.evaluate(() => ({
    xss: window.__xss,
    images: document.images.length,
    scripts: [...document.scripts].map((s) => s.getAttribute('src') || `inline:${s.textContent.slice(0, 40)}`),
    onerror: document.querySelectorAll('[onerror]').length,
  }));
}

/**
 * After a hostile program ran: nothing was injected beside what the page held `before`,
 * and the page still runs a program.
 */
async function assertUntouched(page, before, what, shotName) {
  const after = await injected(page);
  assert(after.xss === undefined && after.images === 0 && after.onerror === 0
    && JSON.stringify(after.scripts) === JSON.stringify(before.scripts), `${what} injected ${JSON.stringify(after)}`);
  await shot(page, shotName);
  await runTyped(page, '1 1 ADD');
  const stack = await text(page, '#stack');
  assert(stack.includes('2/1'), `after ${what}, #stack shows ${JSON.stringify(stack)}`);
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
    // The browser only ever loads the page under test from loopback; CI runs as root or
    // in containers without user namespaces, where Chromium's sandbox cannot start.
    '--no-sandbox',
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
      // Short, with its buttons in sight at 1280×800, and the limits behind a disclosure.
      const fit = await page.evaluate(() => ['about-try', 'about-close'].map((id) => document.getElementById(id).getBoundingClientRect().bottom));
      assert(fit.every((b) => b > 0 && b <= 800), `the dialog's buttons end at ${JSON.stringify(fit)}px, below 800`);
      assert(!(await page.$eval('#about details', (d) => d.open)), 'the limits are not behind their disclosure');
      await page.keyboard.press('Escape');
      await page.waitForFunction(() => !document.getElementById('about').open, { timeout: UI_TIMEOUT });
      await until(page, () => document.activeElement?.id === 'source', 'the focus returning to the editor when the dialog closes',
        () => page.evaluate(() => document.activeElement?.id));
    }],
    ['run', async () => {
      await runTyped(page, '2 3 DIV 1 3 DIV ADD');
      const stack = await text(page, '#stack');
      assert(stack.includes('1/1'), `#stack shows ${JSON.stringify(stack)}`);
      assert((await status(page)) === 'value', `#status is ${JSON.stringify(await status(page))}`);
    }],
    ['stale results', async () => {
      // The results shown are the last run's program's: once the editor holds another
      // program they are marked stale, visibly, until it runs.
      const seen = () => page.evaluate(() => ({
        regions: ['stack', 'output', 'usage'].map((id) => document.getElementById(id).dataset.stale),
        note: !document.getElementById('stale-note').hidden,
      }));
      let now = await seen();
      assert(now.regions.every((r) => r === 'false') && !now.note, `fresh results look stale: ${JSON.stringify(now)}`);
      await page.focus('#source');
      await page.keyboard.press('End');
      await page.keyboard.type(' 5 ADD');
      await until(page, () => ['stack', 'output', 'usage'].every((id) => document.getElementById(id).dataset.stale === 'true'), 'the results marked stale after an edit', seen);
      const visible = await page.$eval('#stale-note', (e) => !e.hidden && e.getBoundingClientRect().height > 0 && e.textContent.includes('earlier program'));
      assert(visible, 'no visible sign that the results are of an earlier program');
      await shot(page, 'stale');
      await armBusy(page);
      await page.keyboard.down('Control');
      await page.keyboard.press('Enter');
      await page.keyboard.up('Control');
      await waitRun(page);
      now = await seen();
      assert(now.regions.every((r) => r === 'false') && !now.note, `the results of the program in the editor look stale: ${JSON.stringify(now)}`);
      assert((await text(page, '#stack')).includes('6/1'), 'the new program did not run');
    }],
    ['a run that fails where the check found nothing', async () => {
      const before = await checkedCount(page);
      await runTyped(page, "'a' 1 +");
      await waitChecked(page, before);
      await until(page, () => (document.getElementById('diagnostics').textContent || '').includes('running it failed'),
        'the live check saying the run failed', () => text(page, '#diagnostics'));
      const said = await text(page, '#diagnostics');
      assert(!said.includes('No problems found'), `the live check says ${JSON.stringify(said)} beside the run's error`);
      assert((await text(page, '#output')).includes('typeMismatch'), 'the run did not fail');
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
      // A filtered family counts what matches; a name from another language finds the
      // language's hint and the Words it names.
      const mapCount = await page.$eval('#dictionary details[data-family="higherOrder"] summary .count', (e) => e.textContent);
      assert(mapCount === '(1 of 5)', `the filtered family says ${JSON.stringify(mapCount)}`);
      const search = async (q) => {
        await page.click('#dict-search');
        await page.keyboard.down('Control');
        await page.keyboard.press('KeyA');
        await page.keyboard.up('Control');
        await page.keyboard.press('Backspace');
        if (q) await page.keyboard.type(q);
      };
      const shown = (name) => page.evaluate((n) => { const b = document.querySelector(`#dictionary [data-word="${n}"]`); return !!b && b.offsetParent !== null; }, name);
      await search('dup');
      await page.waitForFunction(() => !document.getElementById('dict-hints').hidden, { timeout: UI_TIMEOUT });
      const hint = await text(page, '#dict-hints');
      assert(hint.includes('DUP') && hint.includes('BIND'), `the hint for dup: ${JSON.stringify(hint)}`);
      assert(await shown('BIND') && await shown('KEEP'), 'dup does not list BIND and KEEP');
      await search('average');
      await page.waitForFunction(() => (document.getElementById('dict-hints').textContent || '').includes('MEAN'), { timeout: UI_TIMEOUT });
      assert(await shown('MEAN'), 'average does not list MEAN');
      await search('loop');
      await page.waitForFunction(() => (document.getElementById('dict-hints').textContent || '').includes('RANGE'), { timeout: UI_TIMEOUT });
      assert(await shown('FOLD'), 'loop does not list FOLD');
      await search('');
      await page.waitForFunction(() => document.getElementById('dict-hints').hidden, { timeout: UI_TIMEOUT });
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
    ['large result', async () => {
      // Too large for the answer's stack budget: its first and last elements are shown,
      // and Show all runs it again with the whole response limit.
      await runTyped(page, '1 10000 RANGE');
      const before = await text(page, '#stack');
      assert(before.includes('1/1') && before.includes('10000/1') && before.includes('9,990 not sent'), `#stack shows ${JSON.stringify(before.slice(0, 400))}`);
      await shot(page, 'large-result-elided');
      await armBusy(page);
      await page.click('#stack .show-all');
      await waitRun(page);
      const after = await text(page, '#stack');
      assert(!after.includes('not sent') && after.includes('show all 10,000') && after.includes('10000/1'), `after Show all, #stack shows ${JSON.stringify(after.slice(0, 400))}`);
      await shot(page, 'large-result');
    }],
    ['stop', async () => {
      // A run that would go on to the deadline; Stop shows it stopped at once (the server
      // stopping the engine is server/tests/playground.rs's part).
      await typeProgram(page, "{ KEEP 5 < LENGTH [ ] BIND [ ] BIND F } 'F' DEF 0 99999 RANGE F");
      await armBusy(page);
      await combo(page, ['Control'], 'Enter');
      await until(page, () => { const b = document.getElementById('stop'); return b && !b.hidden && b.offsetParent !== null; },
        'the Stop button shown while the program runs', async () => ({ busy: await page.evaluate(() => document.body.dataset.busy) }));
      await new Promise((r) => setTimeout(r, 300));
      const took = await page.evaluate(() => new Promise((resolve) => {
        const t0 = performance.now();
        const done = () => document.getElementById('status').textContent === 'stopped' && document.body.dataset.busy === '0';
        const watch = new MutationObserver(() => { if (done()) { watch.disconnect(); resolve(performance.now() - t0); } });
        watch.observe(document.body, { attributes: true, childList: true, subtree: true, characterData: true });
        document.getElementById('stop').click();
        if (done()) { watch.disconnect(); resolve(performance.now() - t0); }
      }));
      assert(took < 500, `the page showed the run stopped after ${Math.round(took)} ms`);
      const out = await text(page, '#output');
      assert(out.includes('You stopped the run'), `#output says ${JSON.stringify(out)}`);
      assert(await page.$eval('#stop', (b) => b.hidden), 'the Stop button stays after the run');
      await shot(page, 'stopped-by-hand');
      await runTyped(page, '1 1 ADD');
      const stack = await text(page, '#stack');
      assert(stack.includes('2/1'), `after a stop, #stack shows ${JSON.stringify(stack)}`);
    }],
    ['completion', async () => {
      await typeProgram(page, '[ 1 2 3 ] LEN');
      await until(page, () => {
        const l = document.getElementById('completion');
        return !l.hidden && [...l.querySelectorAll('[role="option"] .c-name')].some((n) => n.textContent === 'LENGTH');
      }, 'a completion list offering LENGTH', () => completionState(page));
      let c = await completionState(page);
      assert(c.open && c.role === 'listbox', `the completion list is ${JSON.stringify(c)}`);
      assert(c.controls === 'completion', `the editor's aria-controls is ${c.controls}`);
      assert(c.labels.includes('LENGTH'), `the list offers ${JSON.stringify(c.labels)}`);
      assert(c.activedescendant && c.activedescendant === c.selectedId, `aria-activedescendant is ${c.activedescendant}, the selected option ${c.selectedId}`);
      await shot(page, 'open');
      // ArrowDown moves the selection (wrapping round; with one item it stays), then walks to
      // LENGTH; Enter accepts it.
      const first = c.selected;
      await page.keyboard.press('ArrowDown');
      c = await completionState(page);
      assert(c.open && c.activedescendant === c.selectedId, `after ArrowDown the list is ${JSON.stringify(c)}`);
      assert(c.labels.length === 1 ? c.selected === first : c.selected !== first, `ArrowDown left the selection on ${c.selected} of ${JSON.stringify(c.labels)}`);
      for (let i = 0; i < c.labels.length && c.selected !== 'LENGTH'; i++) {
        await page.keyboard.press('ArrowDown');
        c = await completionState(page);
      }
      assert(c.selected === 'LENGTH', `the arrows never selected LENGTH: ${JSON.stringify(c)}`);
      assert((await editorState(page)).value === '[ 1 2 3 ] LEN', 'the arrows changed the text');
      await page.keyboard.press('Enter');
      await until(page, () => document.getElementById('source').value === '[ 1 2 3 ] LENGTH'
        && document.getElementById('completion').hidden, 'Enter accepting LENGTH', () => editorState(page));
      let ed = await editorState(page);
      assert(ed.focused && ed.start === ed.value.length, `after accepting, the caret is at ${ed.start} (focused ${ed.focused})`);
      await armBusy(page);
      await combo(page, ['Control'], 'Enter');
      await waitRun(page);
      const stack = await text(page, '#stack');
      assert(stack.includes('3/1'), `#stack shows ${JSON.stringify(stack)}`);
      assert((await status(page)) === 'value', `#status is ${await status(page)}`);
      // Enter without choosing with the arrows is a new line, not the completion.
      await typeProgram(page, '[ 1 2 3 ] LEN');
      await until(page, () => !document.getElementById('completion').hidden, 'the completion list opening', () => completionState(page));
      await page.keyboard.press('Enter');
      await until(page, () => document.getElementById('source').value === '[ 1 2 3 ] LEN\n'
        && document.getElementById('completion').hidden, 'Enter starting a new line', () => editorState(page));
      // Escape closes an open list and leaves the text alone; Tab accepts too.
      await typeProgram(page, '[ 4 5 ] LEN');
      await until(page, () => !document.getElementById('completion').hidden, 'the completion list opening', () => completionState(page));
      await page.keyboard.press('Escape');
      await until(page, () => document.getElementById('completion').hidden, 'Escape closing the list', () => completionState(page));
      ed = await editorState(page);
      assert(ed.value === '[ 4 5 ] LEN' && ed.focused, `after Escape the editor holds ${JSON.stringify(ed.value)} (focused ${ed.focused})`);
      c = await completionState(page);
      assert(!c.open && !c.activedescendant, `after Escape the list is ${JSON.stringify(c)}`);
      await page.keyboard.type('G');
      await until(page, () => {
        const l = document.getElementById('completion');
        return !l.hidden && l.querySelector('[aria-selected="true"] .c-name')?.textContent === 'LENGTH';
      }, 'the list reopening on LENGTH', () => completionState(page));
      await page.keyboard.press('Tab');
      await until(page, () => document.getElementById('source').value === '[ 4 5 ] LENGTH'
        && document.getElementById('completion').hidden, 'Tab accepting LENGTH', () => editorState(page));
      assert((await editorState(page)).focused, 'Tab accepting a completion moved focus out of the editor');
    }],
    ['brackets', async () => {
      await typeProgram(page, '[ 1 [ 2 3 ] ]');
      await page.keyboard.press('Home');
      await page.keyboard.press('ArrowRight');
      await until(page, () => document.querySelectorAll('#highlight-code .bracket-match').length === 2,
        'two .bracket-match marks', () => bracketMarks(page));
      let marks = await bracketMarks(page);
      assert(JSON.stringify(marks) === JSON.stringify([{ cls: 'match', text: '[', at: 0 }, { cls: 'match', text: ']', at: 12 }]),
        `the bracket marks are ${JSON.stringify(marks)}`);
      const ed = await editorState(page);
      assert(ed.start === 1 && ed.end === 1, `the caret is at ${ed.start}..${ed.end}`);
      await shot(page, 'match');
      // The inner pair, from the caret before its ].
      await page.keyboard.press('End');
      for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowLeft'); // [ 1 [ 2 3 |] ]
      await until(page, () => {
        const code = document.getElementById('highlight-code');
        return [...code.querySelectorAll('.bracket-match')].map((m) => {
          const r = document.createRange();
          r.setStart(code, 0);
          r.setEndBefore(m);
          return `${m.textContent}${r.toString().length}`;
        }).join(' ') === '[4 ]10';
      }, 'the inner pair [4 ]10 marked', () => bracketMarks(page));
      // An unmatched [.
      await typeProgram(page, '[ 1 2');
      await page.keyboard.press('Home');
      await page.keyboard.press('ArrowRight');
      await until(page, () => document.querySelectorAll('#highlight-code .bracket-unmatched').length === 1,
        'a .bracket-unmatched mark', () => bracketMarks(page));
      marks = await bracketMarks(page);
      assert(JSON.stringify(marks) === JSON.stringify([{ cls: 'unmatched', text: '[', at: 0 }]), `the bracket marks are ${JSON.stringify(marks)}`);
      // Moving away from the bracket clears the mark.
      await page.keyboard.press('End');
      await until(page, () => document.querySelectorAll('#highlight-code .bracket-match, #highlight-code .bracket-unmatched').length === 0,
        'the marks clearing when the caret leaves the bracket', () => bracketMarks(page));
      await page.keyboard.press('Home');
      await page.keyboard.press('ArrowRight');
      await until(page, () => document.querySelectorAll('#highlight-code .bracket-unmatched').length === 1,
        'the unmatched mark coming back', () => bracketMarks(page));
    }],
    ['tab', async () => {
      await typeProgram(page, '1 2 ADD');
      await until(page, () => document.getElementById('completion').hidden, 'no completion list', () => completionState(page));
      await page.keyboard.press('Home');
      await page.keyboard.press('Tab');
      let ed = await editorState(page);
      assert(ed.value === '  1 2 ADD' && ed.start === 2 && ed.end === 2 && ed.focused,
        `after Home, Tab: ${JSON.stringify(ed)}`);
      for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight'); // "  1 2|"
      await page.keyboard.press('Tab');
      ed = await editorState(page);
      assert(ed.value === '  1 2   ADD' && ed.start === 7 && ed.focused, `after a Tab at column 6: ${JSON.stringify(ed)}`);
      await shot(page, 'indented');
      await combo(page, ['Shift'], 'Tab');
      ed = await editorState(page);
      assert(ed.value === '1 2   ADD' && ed.start === 5 && ed.focused, `after Shift+Tab: ${JSON.stringify(ed)}`);
      await combo(page, ['Shift'], 'Tab'); // nothing left to outdent
      ed = await editorState(page);
      assert(ed.value === '1 2   ADD' && ed.focused, `after a second Shift+Tab: ${JSON.stringify(ed)}`);
      // Escape, then Tab: focus leaves the editor and the text stays as it is.
      await page.keyboard.press('Escape');
      await page.keyboard.press('Tab');
      await until(page, () => document.activeElement !== document.getElementById('source'), 'Escape, Tab leaving the editor', () => editorState(page));
      ed = await editorState(page);
      assert(ed.value === '1 2   ADD' && !ed.focused, `after Escape, Tab: ${JSON.stringify(ed)}`);
      const landed = await page.evaluate(() => {
        const a = document.activeElement;
        return a && a !== document.body ? `${a.tagName.toLowerCase()}${a.id ? `#${a.id}` : ''}.${a.className}` : 'body';
      });
      assert(landed !== 'body', 'after Escape, Tab nothing has focus');
      // Shift+Tab (as often as there are controls in between) comes back, and Tab indents
      // again: the Escape is forgotten once focus has left.
      for (let i = 0; i < 20 && !(await editorState(page)).focused; i++) await combo(page, ['Shift'], 'Tab');
      await until(page, () => document.activeElement === document.getElementById('source'), 'Shift+Tab coming back to the editor',
        () => page.evaluate(() => document.activeElement?.outerHTML.slice(0, 120)));
      await page.keyboard.press('Tab');
      ed = await editorState(page);
      assert(ed.focused && ed.value.length === '1 2   ADD'.length + 2, `Tab after coming back: ${JSON.stringify(ed)}`);
    }],
    ['examples', async () => {
      await page.focus('#examples-button');
      await page.keyboard.press('Enter');
      const menuState = () => page.evaluate(() => ({ hidden: document.getElementById('examples-menu').hidden, expanded: document.getElementById('examples-button').getAttribute('aria-expanded'), focus: document.activeElement?.outerHTML.slice(0, 120) }));
      await until(page, () => {
        const m = document.getElementById('examples-menu');
        return !m.hidden && m.getBoundingClientRect().height > 0 && document.activeElement?.getAttribute('role') === 'menuitem';
      }, 'Enter opening the menu with focus on an item', menuState);
      assert(await page.$eval('#examples-button', (b) => b.getAttribute('aria-expanded')) === 'true', 'aria-expanded is not true');
      const chapters = await page.$$eval('#examples-menu [role="group"]', (gs) => gs.map((g) => g.getAttribute('aria-label')));
      assert(chapters.includes('A first program'), `the menu's chapters are ${JSON.stringify(chapters)}`);
      assert(chapters.length >= 3, `only ${chapters.length} chapters`);
      // Each section's title once, above its examples; every item shows its stated answer.
      const layout = await page.evaluate(() => ({
        repeated: [...document.querySelectorAll('#examples-menu .menu-group')].filter((g) => {
          const t = [...g.querySelectorAll(':scope > .menu-section')].map((s) => s.getAttribute('aria-label'));
          return new Set(t).size !== t.length;
        }).map((g) => g.getAttribute('aria-label')),
        titledItems: document.querySelectorAll('#examples-menu [role="menuitem"] .menu-title').length,
        answered: [...document.querySelectorAll('#examples-menu [role="menuitem"]')].filter((b) => b.querySelector('.menu-expect')).length,
        items: document.querySelectorAll('#examples-menu [role="menuitem"]').length,
      }));
      assert(layout.repeated.length === 0 && layout.titledItems === 0, `the menu repeats titles: ${JSON.stringify(layout)}`);
      assert(layout.answered > layout.items / 2, `few items show their answer: ${JSON.stringify(layout)}`);
      const first = await page.$eval('#examples-menu [role="menuitem"]', (b) => ({ code: b.querySelector('code').textContent, focused: document.activeElement === b }));
      assert(first.code === '1 2 ADD' && first.focused, `the first item is ${JSON.stringify(first)}`);
      // Escape closes it and gives focus back to the button.
      await page.keyboard.press('Escape');
      await until(page, () => document.getElementById('examples-menu').hidden
        && document.activeElement === document.getElementById('examples-button'), 'Escape closing the menu onto its button', menuState);
      assert(await page.$eval('#examples-button', (b) => b.getAttribute('aria-expanded')) === 'false', 'aria-expanded is not false');
      // Open again, walk down and back up, and choose the first example with Enter.
      await page.keyboard.press('Enter');
      await until(page, () => document.activeElement?.getAttribute('role') === 'menuitem', 'the menu opening again', menuState);
      await page.keyboard.press('ArrowDown');
      const second = await page.evaluate(() => document.activeElement.querySelector('code')?.textContent);
      assert(second === '1 2 3', `ArrowDown focused ${JSON.stringify(second)}`);
      await page.keyboard.press('ArrowUp');
      const back = await page.evaluate(() => document.activeElement.querySelector('code')?.textContent);
      assert(back === '1 2 ADD', `ArrowUp focused ${JSON.stringify(back)}`);
      await shot(page, 'menu');
      await armBusy(page);
      await page.keyboard.press('Enter');
      await until(page, () => document.getElementById('source').value === '1 2 ADD', 'the first example loading', () => editorState(page));
      assert(await page.$eval('#examples-menu', (m) => m.hidden), 'the menu stayed open');
      assert(await page.$eval('#examples-button', (b) => b.getAttribute('aria-expanded')) === 'false', 'aria-expanded stayed true');
      const ed = await editorState(page);
      assert(ed.focused, 'focus did not go to the editor');
      // The page runs a chosen example at once; were it only to load it, Ctrl+Enter runs it.
      if (!(await page.evaluate(() => window.__busyLog.includes('1')))) await combo(page, ['Control'], 'Enter');
      await waitRun(page);
      const stack = await text(page, '#stack');
      assert(stack.includes('3/1'), `#stack shows ${JSON.stringify(stack)}`);
      assert((await status(page)) === 'value', `#status is ${await status(page)}`);
    }],
    ['landmarks', async () => {
      // Reload, so that the first Tab starts at the top of the document.
      await page.reload({ waitUntil: 'load', timeout: UI_TIMEOUT });
      await waitReady(page);
      assert(!(await page.$eval('#about', (d) => d.open)), 'the about dialog opened on reload');
      const tree = await page.accessibility.snapshot({ interestingOnly: true });
      const found = [];
      (function walk(n) {
        if (!n) return;
        found.push(`${n.role}:${n.name || ''}`);
        for (const c of n.children || []) walk(c);
      }(tree));
      assert(found.filter((x) => x.startsWith('main:')).length === 1, `the main landmarks: ${JSON.stringify(found.filter((x) => x.startsWith('main:')))}`);
      for (const name of ['Editor', 'Stack', 'Output', 'Dictionary']) {
        assert(found.includes(`region:${name}`), `no region named ${name}; regions: ${JSON.stringify(found.filter((x) => x.startsWith('region:')))}`);
      }
      assert(await page.$eval('main', (m) => ['Editor', 'Stack', 'Output', 'Dictionary'].every((n) => m.querySelector(`section[aria-label="${n}"]`))),
        'the named sections are not inside main');
      // The first Tab stop is a skip link to the editor, visible when focused, and it works.
      await page.keyboard.press('Tab');
      const skip = await focusStop(page);
      assert(skip && skip.label === 'a.skip-link' && skip.href === '#source', `the first Tab stop is ${JSON.stringify(skip)}`);
      assert(skip.top >= 0 && skip.shown && skip.visible && skip.fv, `the focused skip link is off screen or shows no focus: ${JSON.stringify(skip)}`);
      await shot(page, 'skip-link');
      const hash = await page.evaluate(() => window.location.hash);
      await page.keyboard.press('Enter');
      await until(page, () => document.activeElement === document.getElementById('source'), 'the skip link focusing the editor',
        () => page.evaluate(() => document.activeElement?.outerHTML.slice(0, 120)));
      assert((await page.evaluate(() => window.location.hash)) === hash, 'the skip link replaced the #src= fragment');
      // Every Tab stop shows a focus indicator: first give the page its dynamic controls
      // (a live-check position link, an error's position link, a long vector's "show all",
      // a Word's example buttons), then Tab from the skip link to the end of the page.
      const before = await checkedCount(page);
      await runTyped(page, '0 40 RANGE FOO');
      await waitChecked(page, before);
      await page.click('#dictionary [data-word="MAP"]');
      await page.waitForSelector('#dictionary .example-run', { timeout: UI_TIMEOUT });
      await page.focus('.skip-link');
      const stops = [];
      for (let i = 0; i < 400; i++) {
        await page.keyboard.press('Tab');
        const s = await focusStop(page);
        if (!s) break;
        stops.push(s);
        if (s.label.startsWith('textarea#source')) await page.keyboard.press('Escape'); // Escape, then Tab leaves the editor
      }
      const labels = stops.map((s) => s.label);
      for (const want of ['button#run', 'button#examples-button', 'button#badge', 'textarea#source', 'input#dict-search']) {
        assert(labels.some((l) => l.startsWith(want)), `Tab never reached ${want}; stops: ${JSON.stringify(labels)}`);
      }
      for (const want of ['button.linkish.goto', 'summary(show all 41)', '.example-run', '.example-load', 'button.word-btn[MAP]']) {
        assert(labels.some((l) => l.includes(want)), `Tab never reached ${want}; stops: ${JSON.stringify(labels)}`);
      }
      assert(labels.filter((l) => l.includes('.goto')).length >= 2, `Tab reached ${labels.filter((l) => l.includes('.goto')).length} position links, not the live check's and the run's`);
      const bad = stops.filter((s) => !s.visible || !s.shown);
      assert(bad.length === 0, `Tab stops without a visible focus indicator: ${JSON.stringify(bad)}`);
      for (const id of ['#run', '#badge']) {
        const fv = stops.find((s) => s.label.startsWith(`button${id}`));
        assert(fv.fv && fv.visible, `${id} on Tab: ${JSON.stringify(fv)}`);
      }
      // The focus ring of the Run button, reached with the keyboard.
      await page.focus('.skip-link');
      await page.keyboard.press('Tab');
      await page.waitForFunction(() => document.activeElement === document.getElementById('run'), { timeout: UI_TIMEOUT });
      await shot(page, 'focus-run');
    }],
    ['hostile-share', async () => {
      const hostile = `<img src=x onerror="window.__xss=1">'</script><script>window.__xss=2</script>`;
      const frag = `#src=${Buffer.from(hostile, 'utf8').toString('base64url')}`;
      const before = await injected(page);
      assert(before.images === 0 && before.onerror === 0, `the page already holds ${JSON.stringify(before)}`);
      const other = await browser.createBrowserContext();
      try {
        const fresh = await other.newPage();
        watch(fresh, 'hostile page');
        await fresh.goto(new URL(frag, base).href, { waitUntil: 'load', timeout: UI_TIMEOUT });
        await waitReady(fresh);
        const value = await fresh.$eval('#source', (e) => e.value);
        assert(value === hostile, `the editor holds ${JSON.stringify(value)}`);
        const shown = await fresh.$eval('#highlight-code', (e) => e.textContent);
        assert(shown.startsWith(hostile), `the highlight layer shows ${JSON.stringify(shown)}`);
        await waitChecked(fresh, 0);
        await armBusy(fresh);
        await fresh.click('#run');
        await waitRun(fresh);
        const st = await status(fresh);
        assert(/^error:(unknownWord|parse|malformed)/i.test(st), `#status is ${JSON.stringify(st)}`);
        const out = await text(fresh, '#output');
        assert(out.includes('unknownWord') && out.includes('<img'), `#output is ${out}`);
        const marks = await fresh.$$eval('#editor .error-mark', (es) => es.map((e) => e.textContent));
        assert(marks.includes('<img'), `the editor's error marks are ${JSON.stringify(marks)}`);
        await assertUntouched(fresh, before, 'the hostile link', 'new-page');
        await fresh.close();
      } finally {
        await other.close();
      }
      // The same link followed inside an open page (hashchange).
      await page.evaluate((f) => { window.location.hash = f; }, frag);
      await until(page, (v) => document.getElementById('source').value === v, 'the hash change loading the program', () => editorState(page), hostile);
      await armBusy(page);
      await page.click('#run');
      await waitRun(page);
      const st = await status(page);
      assert(st.startsWith('error:'), `#status is ${JSON.stringify(st)}`);
      await assertUntouched(page, before, 'the hostile hash', 'hashchange');
    }],
    ['phrasebook', async () => {
      const bodies = [];
      const onRequest = (req) => { if (new URL(req.url()).pathname === '/api/compute') bodies.push(req.postData() || ''); };
      page.on('request', onRequest);
      try {
        await runTyped(page, '[ 1 2 3 4 ] MEAN');
      } finally {
        page.off('request', onRequest);
      }
      const stack = await text(page, '#stack');
      assert(stack.includes('5/2'), `#stack shows ${JSON.stringify(stack)}`);
      assert((await status(page)) === 'value', `#status is ${await status(page)}`);
      const sent = bodies.length ? JSON.parse(bodies[bodies.length - 1]) : null;
      assert(sent && Array.isArray(sent.words) && sent.words.includes('MEAN'), `the run request was ${JSON.stringify(sent)}`);
    }],
    ['mobile', async () => {
      await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
      await waitReady(page);
      await page.evaluate(() => { const d = document.getElementById('about'); if (!d.open) d.showModal(); });
      const phone = await page.evaluate(() => ({
        buttons: ['about-try', 'about-close'].map((id) => document.getElementById(id).getBoundingClientRect().bottom),
        keyboardHint: [...document.querySelectorAll('.kbd-hint')].map((e) => getComputedStyle(e).display).every((d) => d === 'none') ? 'none' : 'shown',
      }));
      assert(phone.buttons.every((b) => b > 0 && b <= 844), `on a phone the dialog's buttons end at ${JSON.stringify(phone.buttons)}px`);
      assert(phone.keyboardHint === 'none', 'the page gives keyboard shortcuts on a touch screen');
      await shot(page, 'about-phone');
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
      // Nothing to tap is smaller than 40 px on a touch screen.
      const small = await page.$$eval('button, .word-btn, summary', (els) => els
        .filter((e) => e.offsetParent !== null)
        .map((e) => ({ what: (e.id || e.textContent || '').trim().slice(0, 30), h: e.getBoundingClientRect().height }))
        .filter((x) => x.h < 39.5));
      assert(small.length === 0, `targets under 40 px on a phone: ${JSON.stringify(small.slice(0, 5))}`);
      // The meters say what they count, in words.
      const labels = await page.$$eval('#usage .usage-label', (ls) => ls.map((l) => l.textContent));
      assert(JSON.stringify(labels) === JSON.stringify(['Steps', 'Arithmetic', 'Collections']), `the meters are labelled ${JSON.stringify(labels)}`);
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
    ['accessibility', async () => {
      // axe-core over the states a visitor sees, in a page of its own. The page's CSP
      // forbids injected script tags, so axe is evaluated by the DevTools protocol, which
      // the policy does not govern; the page keeps its real policy.
      const audit = await context.newPage();
      watch(audit, 'axe');
      await audit.setViewport({ width: 1280, height: 800, deviceScaleFactor: 1 });
      await audit.goto(base.href, { waitUntil: 'load', timeout: UI_TIMEOUT });
      await waitReady(audit);
      const found = [];
      const scan = async (what) => {
        if (!(await audit.evaluate(() => typeof window.axe?.run === 'function'))) await audit.evaluate(AXE_SOURCE);
        const violations = await audit.evaluate(async () => {
          const r = await window.axe.run(document, { resultTypes: ['violations'] });
          return r.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')}`);
        });
        found.push(...violations.map((v) => `${what}: ${v}`));
      };
      await audit.evaluate(() => { const d = document.getElementById('about'); if (!d.open) d.showModal(); });
      await scan('the welcome dialog');
      await audit.evaluate(() => { const d = document.getElementById('about'); if (d.open) d.close(); });
      for (const program of ['2 3 DIV 1 3 DIV ADD', '1 0 DIV', '1 FOO', '2 SQRT 1 10000 RANGE']) {
        await runTyped(audit, program);
        await scan(`after ${program}`);
      }
      await audit.focus('#source');
      await audit.keyboard.press('End');
      await audit.keyboard.type(' 7');
      await audit.waitForFunction(() => document.getElementById('stack').dataset.stale === 'true', { timeout: UI_TIMEOUT });
      await scan('stale results');
      await audit.click('#examples-button');
      await audit.waitForSelector('#examples-menu:not([hidden])', { timeout: UI_TIMEOUT });
      await scan('the examples menu');
      await audit.keyboard.press('Escape');
      await audit.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
      await scan('the dark theme');
      // A touch viewport reloads the page (and with it, axe).
      await audit.setViewport({ width: 390, height: 844, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
      await waitReady(audit);
      await runTyped(audit, '[ 1 2 ] 0 GET 2 SQRT');
      await scan('a phone');
      await audit.close();
      assert(found.length === 0, `axe-core: ${found.join(' | ')}`);
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
