// Ajisai Playground: the page's script. Plain ES2022, no library, no build step.
//
// Everything that comes from a program or from the server reaches the page through
// textContent / createElement, except the editor's highlight layer, which is built as
// HTML text from escaped pieces only (esc()).

'use strict';

const $ = (id) => document.getElementById(id);
const NF = new Intl.NumberFormat('en-US');

const STORE_SOURCE = 'ajisai-playground:source';
const STORE_ABOUT = 'ajisai-playground:about-seen';
const DEFAULT_SOURCE = '# Two thirds plus one third, exactly: no floating point anywhere.\n2 3 DIV 1 3 DIV ADD\n';
const CHECK_DELAY_MS = 400;
const FRAGMENT_DELAY_MS = 300;
const HIGHLIGHT_LIMIT = 400000; // characters; above it the overlay shows plain text
const FRAGMENT_LIMIT = 1500000; // characters of base64url; above it the URL is not updated
const LONG_VECTOR = 20;
const IS_MAC = /Mac|iPhone|iPad|iPod/.test(navigator.userAgent);

const state = {
  info: null,
  shownSource: null, // the program whose results are shown (null: none yet)
  shownWhole: false, // the results shown came from a Show all (a run whose stack could fill the response limit)
  playgroundLimits: {},
  families: [],
  words: new Map(), // upper-case name -> word
  aliases: new Map(), // alias -> word
  phrasebook: new Map(), // upper-case name -> word
  completionItems: [],
  examples: [],
  // editor
  tokens: [],
  pairs: new Map(),
  lineStarts: [0],
  tokenizedText: null,
  runMark: null, // {line, column}
  checkMarks: [], // [{line, column, kind}]
  bracketSel: null, // {a, b, ok}
  escapeArmed: false,
  // `chosen`: the arrows moved the selection since the list opened (Enter then accepts).
  completion: { open: false, items: [], active: -1, start: 0, end: 0, chosen: false },
  // work
  running: false,
  checkTimer: 0,
  checkSeq: 0,
  checkAbort: null,
  runAbort: null, // the running program's fetch: aborting it stops the run on the server
  checkCount: 0,
  fragmentTimer: 0,
  lastEnvelopeSpec: '',
};

let els = {};

// ---------------------------------------------------------------- small helpers

function esc(s) {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}

function h(tag, attrs, ...children) {
  const e = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
      else if (k === 'dataset') Object.assign(e.dataset, v);
      else e.setAttribute(k, v === true ? '' : String(v));
    }
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function announce(text) {
  const a = els.announcer;
  a.textContent = '';
  // A fresh text node so that repeating the same message is announced again.
  window.setTimeout(() => { a.textContent = text; }, 30);
}

function storageGet(key) {
  try { return window.localStorage.getItem(key); } catch { return null; }
}
function storageSet(key, value) {
  try { window.localStorage.setItem(key, value); } catch { /* storage may be unavailable */ }
}

function splitHint(message) {
  const text = String(message || '');
  const at = text.indexOf('; hint: ');
  if (at < 0) return { main: text, hint: '' };
  return { main: text.slice(0, at), hint: text.slice(at + 8) };
}

function plural(n, one, many) { return `${NF.format(n)} ${n === 1 ? one : many}`; }

function familyLabel(id) {
  const words = id.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

// ---------------------------------------------------------------- limits formatting

const LIMIT_UNITS = {
  executionSteps: ['step', 'steps'],
  materializedElements: ['element', 'elements'],
  nestingDepth: ['level', 'levels'],
  numericLiteralDigits: ['digit', 'digits'],
  bigintBits: ['bit', 'bits'],
  algebraicTerms: ['term', 'terms'],
  concurrentExecutions: ['run at once', 'runs at once'],
  numericWork: ['unit', 'units'],
  collectionWork: ['unit', 'units'],
};

function fmtBytes(v) {
  const units = [['GiB', 2 ** 30], ['MiB', 2 ** 20], ['KiB', 2 ** 10]];
  for (const [name, size] of units) {
    if (v >= size) {
      const x = v / size;
      return `${Number.isInteger(x) ? NF.format(x) : x.toFixed(2).replace(/0+$/, '').replace(/\.$/, '')} ${name}`;
    }
  }
  return plural(v, 'byte', 'bytes');
}

function fmtMs(v) {
  if (v >= 1000) {
    const s = v / 1000;
    return `${Number.isInteger(s) ? NF.format(s) : s.toFixed(3).replace(/0+$/, '')} s`;
  }
  return `${NF.format(v)} ms`;
}

function fmtLimit(name, v) {
  if (typeof v !== 'number') return String(v ?? '—');
  if (/Bytes$/.test(name)) return fmtBytes(v);
  if (/Ms$/.test(name)) return fmtMs(v);
  const u = LIMIT_UNITS[name];
  return u ? plural(v, u[0], u[1]) : NF.format(v);
}

function limitsTable(full) {
  const info = state.info;
  if (!info || !Array.isArray(info.profiles) || info.profiles.length === 0) {
    return h('p', { class: 'muted', text: 'The limits could not be loaded.' });
  }
  const profiles = info.profiles;
  const names = [];
  for (const p of profiles) for (const k of Object.keys(p.limits || {})) if (!names.includes(k)) names.push(k);
  const head = h('tr', null, h('th', { scope: 'col' }, 'Limit'), profiles.map((p) => h('th', { scope: 'col' }, p.name)), full ? h('th', { scope: 'col', class: 'unit-head' }, 'What it counts') : null);
  const rows = names.map((k) => h('tr', null,
    h('th', { scope: 'row' }, h('code', null, k)),
    profiles.map((p) => h('td', { class: 'num' }, fmtLimit(k, p.limits?.[k]))),
    full ? h('td', { class: 'unit' }, info.units?.[k] || '') : null));
  return h('table', { class: 'limits' },
    h('caption', { class: 'vh' }, `Limits of the ${profiles.map((p) => p.name).join(' and ')} profiles`),
    h('thead', null, head), h('tbody', null, rows));
}

function renderLimitTables() {
  for (const slot of document.querySelectorAll('.limits-slot')) {
    slot.replaceChildren(limitsTable(slot.dataset.limits === 'full'));
  }
}

// ---------------------------------------------------------------- the tokenizer

const NUMBER_RE = /^[+-]?[0-9]+(?:\/[0-9]+|(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)$/;
const SPACE_RE = /\s/;
const isSpace = (c) => c !== '\uFEFF' && SPACE_RE.test(c);
const isStop = (c) => c === '[' || c === ']' || c === '{' || c === '}' || c === '(' || c === ')' || c === '#' || isSpace(c);

function wordOf(name) {
  if (state.aliases.has(name)) return state.aliases.get(name);
  return state.words.get(name.toUpperCase()) || null;
}

/** Tokens of `text`: {t: kind, s, e, cls, depth?}; kinds: ws comment dir bracket bad str word. */
function tokenize(text) {
  const toks = [];
  const n = text.length;
  const open = []; // token indices of open brackets
  const pairs = new Map();
  const defined = new Set(); // 'NAME' DEF
  const bound = new Set(); // 'NAME' DEF and 'NAME' BIND
  let i = 0;
  while (i < n) {
    const c = text[i];
    if (isSpace(c)) {
      let j = i + 1;
      while (j < n && isSpace(text[j])) j++;
      toks.push({ t: 'ws', s: i, e: j, cls: '' });
      i = j;
    } else if (c === '#') {
      let j = text.indexOf('\n', i);
      if (j < 0) j = n;
      const directive = text[i + 1] === ':';
      toks.push({ t: 'comment', s: i, e: j, cls: directive ? 't-dir' : 't-comment' });
      i = j;
    } else if (c === '[' || c === '{') {
      open.push(toks.length);
      toks.push({ t: 'bracket', s: i, e: i + 1, cls: 't-br' });
      i++;
    } else if (c === ']' || c === '}') {
      const me = toks.length;
      toks.push({ t: 'bracket', s: i, e: i + 1, cls: 't-br' });
      const want = c === ']' ? '[' : '{';
      if (open.length && text[toks[open[open.length - 1]].s] === want) {
        const o = open.pop();
        pairs.set(o, me);
        pairs.set(me, o);
      }
      i++;
    } else if (c === '(' || c === ')') {
      toks.push({ t: 'bad', s: i, e: i + 1, cls: 't-bad' });
      i++;
    } else if (c === "'") {
      let j = i + 1;
      while (j < n && !(text[j] === "'" && (j + 1 >= n || isStop(text[j + 1])))) j++;
      const closed = j < n;
      if (closed) j++;
      toks.push({ t: 'str', s: i, e: j, cls: closed ? 't-str' : 't-str t-bad' });
      i = j;
    } else {
      let j = i + 1;
      while (j < n && !isStop(text[j])) j++;
      const lex = text.slice(i, j);
      const inVector = open.length > 0 && text[toks[open[open.length - 1]].s] === '[';
      const upper = lex.toUpperCase();
      let cls;
      if (NUMBER_RE.test(lex)) cls = 't-num';
      else if (inVector) cls = (upper === 'TRUE' || upper === 'FALSE' || upper === 'NIL') ? 't-const' : 't-vstr';
      else if (lex === '^' || upper === 'VENT' || lex === '|') cls = 't-vent';
      else if (upper === 'TRUE' || upper === 'FALSE' || upper === 'NIL') cls = 't-const';
      else if (wordOf(lex)) cls = 't-word';
      else if (state.phrasebook.has(upper)) cls = 't-phrase';
      else cls = 't-name';
      toks.push({ t: 'word', s: i, e: j, cls, inVector, upper });
      i = j;
    }
  }
  // Names the program defines itself ('NAME' DEF, 'NAME' BIND).
  let prevStr = null;
  for (const tk of toks) {
    if (tk.t === 'ws' || tk.t === 'comment') continue;
    if (tk.t === 'word' && !tk.inVector && prevStr && (tk.upper === 'DEF' || tk.upper === 'BIND')) {
      const name = text.slice(prevStr.s + 1, prevStr.e - 1);
      if (name && !/\s/.test(name)) {
        bound.add(name.toUpperCase());
        if (tk.upper === 'DEF') defined.add(name.toUpperCase());
      }
    }
    prevStr = tk.t === 'str' && tk.cls === 't-str' ? tk : null;
  }
  for (const tk of toks) {
    if (tk.t === 'word' && (tk.cls === 't-name' || tk.cls === 't-phrase') && bound.has(tk.upper)) tk.cls = 't-user';
  }
  return { toks, pairs, defined, bound };
}

function computeLineStarts(text) {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

function ensureTokens() {
  const text = els.source.value;
  if (state.tokenizedText === text) return;
  const big = text.length > HIGHLIGHT_LIMIT;
  const r = big ? { toks: [], pairs: new Map(), defined: new Set(), bound: new Set() } : tokenize(text);
  state.tokens = r.toks;
  state.pairs = r.pairs;
  state.defined = r.defined;
  state.bound = r.bound;
  state.lineStarts = computeLineStarts(text);
  state.tokenizedText = text;
}

/** UTF-16 offset of a 1-based line and column (column in Unicode scalar values). */
function offsetOf(text, line, column) {
  const starts = state.tokenizedText === text ? state.lineStarts : computeLineStarts(text);
  if (!(line >= 1)) return 0;
  if (line > starts.length) return text.length;
  let off = starts[line - 1];
  for (let c = 1; c < (column || 1) && off < text.length && text[off] !== '\n'; c++) {
    off += text.codePointAt(off) > 0xffff ? 2 : 1;
  }
  return off;
}

/** 1-based line and column of a UTF-16 offset. */
function positionOf(text, offset) {
  const starts = state.tokenizedText === text ? state.lineStarts : computeLineStarts(text);
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid; else hi = mid - 1;
  }
  const column = [...text.slice(starts[lo], offset)].length + 1;
  return { line: lo + 1, column };
}

function tokenIndexAt(offset) {
  const toks = state.tokens;
  let lo = 0;
  let hi = toks.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (toks[mid].e <= offset) lo = mid + 1;
    else if (toks[mid].s > offset) hi = mid - 1;
    else return mid;
  }
  return -1;
}

/** The range a mark at (line, column) covers: the token there, else one character. */
function markRange(text, line, column) {
  const off = offsetOf(text, line, column);
  const ti = tokenIndexAt(off);
  if (ti >= 0 && state.tokens[ti].t !== 'ws') return [state.tokens[ti].s, state.tokens[ti].e];
  if (off >= text.length) return null;
  const len = text.codePointAt(off) > 0xffff ? 2 : 1;
  return [off, off + len];
}

// ---------------------------------------------------------------- highlighting

/** Highlighted DOM for a piece of code (examples, definitions, code blocks). */
function highlightNodes(text) {
  const frag = document.createDocumentFragment();
  if (text.length > HIGHLIGHT_LIMIT) { frag.append(text); return frag; }
  for (const tk of tokenize(text).toks) {
    const piece = text.slice(tk.s, tk.e);
    if (tk.cls) frag.append(h('span', { class: tk.cls }, piece));
    else frag.append(piece);
  }
  return frag;
}

function renderEditor() {
  ensureTokens();
  const text = els.source.value;
  const marks = [];
  const gutterMarks = new Map();
  if (text.length <= HIGHLIGHT_LIMIT) {
    for (const m of state.checkMarks) {
      const r = markRange(text, m.line, m.column);
      if (r) marks.push({ s: r[0], e: r[1], cls: m.kind === 'error' ? 'check-error' : 'check-warning' });
      if (m.line && !gutterMarks.has(m.line)) gutterMarks.set(m.line, m.kind === 'error' ? 'gutter-error' : 'gutter-warning');
    }
    if (state.runMark) {
      const r = markRange(text, state.runMark.line, state.runMark.column);
      if (r) marks.push({ s: r[0], e: r[1], cls: 'error-mark' });
    }
    const b = state.bracketSel;
    if (b) {
      for (const ti of [b.a, b.b]) {
        if (ti === undefined || ti < 0 || !state.tokens[ti]) continue;
        marks.push({ s: state.tokens[ti].s, e: state.tokens[ti].e, cls: b.ok ? 'bracket-match' : 'bracket-unmatched' });
      }
    }
  }
  if (state.runMark && state.runMark.line) gutterMarks.set(state.runMark.line, 'gutter-error');

  let html = '';
  if (text.length > HIGHLIGHT_LIMIT) {
    html = esc(text);
  } else {
    for (const tk of state.tokens) {
      const over = marks.filter((m) => m.s < tk.e && m.e > tk.s);
      if (over.length === 0) {
        const piece = esc(text.slice(tk.s, tk.e));
        html += tk.cls ? `<span class="${tk.cls}">${piece}</span>` : piece;
        continue;
      }
      const cuts = new Set([tk.s, tk.e]);
      for (const m of over) { cuts.add(Math.max(m.s, tk.s)); cuts.add(Math.min(m.e, tk.e)); }
      const points = [...cuts].sort((x, y) => x - y);
      for (let k = 0; k + 1 < points.length; k++) {
        const a = points[k];
        const z = points[k + 1];
        const extra = over.filter((m) => m.s <= a && m.e >= z).map((m) => m.cls);
        const cls = [tk.cls, ...extra].filter(Boolean).join(' ');
        const piece = esc(text.slice(a, z));
        html += cls ? `<span class="${cls}">${piece}</span>` : piece;
      }
    }
  }
  // A trailing newline needs one more line to show the caret's line at the end.
  els.highlightCode.innerHTML = html + '\n ';

  const lines = state.lineStarts.length;
  const gutterKey = `${lines}|${[...gutterMarks].join(';')}`;
  if (gutterKey !== state.gutterKey) {
    state.gutterKey = gutterKey;
    let gutter = '';
    for (let i = 1; i <= lines; i++) {
      const cls = gutterMarks.get(i);
      gutter += cls ? `<div class="${cls}">${i}</div>` : `<div>${i}</div>`;
    }
    els.gutterInner.innerHTML = gutter;
  }
  const rows = Math.min(Math.max(lines + 1, window.innerWidth < 600 ? 8 : 12), window.innerWidth < 600 ? 14 : 24);
  els.editor.style.setProperty('--rows', String(rows));
  syncScroll();
}

function syncScroll() {
  const t = els.source;
  els.highlightCode.style.transform = `translate(${-t.scrollLeft}px, ${-t.scrollTop}px)`;
  els.gutterInner.style.transform = `translateY(${-t.scrollTop}px)`;
}

function updateBracketSelection() {
  const t = els.source;
  let sel = null;
  if (t.selectionStart === t.selectionEnd && t.value.length <= HIGHLIGHT_LIMIT) {
    ensureTokens();
    const pos = t.selectionStart;
    for (const off of [pos - 1, pos]) {
      if (off < 0) continue;
      const ti = tokenIndexAt(off);
      if (ti >= 0 && state.tokens[ti].t === 'bracket') {
        const partner = state.pairs.get(ti);
        sel = partner === undefined ? { a: ti, b: -1, ok: false } : { a: ti, b: partner, ok: true };
        break;
      }
    }
  }
  const old = state.bracketSel;
  const same = (old === null && sel === null) || (old && sel && old.a === sel.a && old.b === sel.b && old.ok === sel.ok);
  if (!same) {
    state.bracketSel = sel;
    renderEditor();
  }
}

// ---------------------------------------------------------------- editing helpers

function insertText(text) {
  const t = els.source;
  t.focus();
  let done = false;
  try {
    done = text === '' ? document.execCommand('delete') : document.execCommand('insertText', false, text);
  } catch { done = false; }
  if (!done) {
    t.setRangeText(text, t.selectionStart, t.selectionEnd, 'end');
    t.dispatchEvent(new Event('input', { bubbles: true }));
  }
}

function indentSelection(outdent) {
  const t = els.source;
  const v = t.value;
  const a = t.selectionStart;
  const b = t.selectionEnd;
  const lineStart = v.lastIndexOf('\n', a - 1) + 1;
  const endAt = b > a && v[b - 1] === '\n' ? b - 1 : b;
  let lineEnd = v.indexOf('\n', endAt);
  if (lineEnd < 0) lineEnd = v.length;
  const multi = v.slice(a, b).includes('\n');
  if (!outdent && !multi) { insertText('  '); return; }
  const block = v.slice(lineStart, lineEnd);
  const lines = block.split('\n');
  const changed = lines.map((l) => {
    if (!outdent) return l.length ? '  ' + l : l;
    if (l.startsWith('  ')) return l.slice(2);
    if (l.startsWith(' ') || l.startsWith('\t')) return l.slice(1);
    return l;
  });
  const next = changed.join('\n');
  if (next === block) return;
  t.setSelectionRange(lineStart, lineEnd);
  insertText(next);
  const firstDelta = changed[0].length - lines[0].length;
  const newA = Math.max(lineStart, a + firstDelta);
  const newB = a === b ? newA : b + (next.length - block.length);
  t.setSelectionRange(newA, Math.max(newA, newB));
}

function setSource(text, { keepHistory = false } = {}) {
  const t = els.source;
  if (keepHistory) {
    t.focus();
    t.select();
    insertText(text);
  } else {
    t.value = text;
    onSourceChanged();
  }
  t.setSelectionRange(0, 0);
  t.scrollTop = 0;
  t.scrollLeft = 0;
  syncScroll();
}

function moveCaretTo(line, column) {
  const t = els.source;
  const off = offsetOf(t.value, line, column);
  t.focus();
  t.setSelectionRange(off, off);
  // Scroll the caret into view.
  const lh = parseFloat(getComputedStyle(t).lineHeight) || 21;
  const top = (line - 1) * lh;
  if (top < t.scrollTop || top > t.scrollTop + t.clientHeight - 2 * lh) t.scrollTop = Math.max(0, top - t.clientHeight / 3);
  const colPx = (column - 1) * charWidth();
  if (colPx < t.scrollLeft || colPx > t.scrollLeft + t.clientWidth - 40) t.scrollLeft = Math.max(0, colPx - t.clientWidth / 3);
  syncScroll();
  updateBracketSelection();
}

let cachedCharWidth = 0;
function charWidth() {
  if (cachedCharWidth) return cachedCharWidth;
  const probe = h('span', { class: 'highlight-probe' }, 'M'.repeat(50));
  els.highlightCode.append(probe);
  cachedCharWidth = probe.getBoundingClientRect().width / 50 || 8.4;
  probe.remove();
  return cachedCharWidth;
}

// ---------------------------------------------------------------- completion

function buildCompletionItems() {
  const items = [];
  for (const fam of state.families) {
    for (const w of fam.words) {
      items.push({ label: w.name, detail: w.summary || '', kind: w.phrasebook ? 'phrasebook' : 'word' });
      for (const a of w.aliases || []) items.push({ label: a, detail: `alias of ${w.name}`, kind: 'alias' });
    }
  }
  items.sort((x, y) => x.label.localeCompare(y.label, 'en'));
  state.completionItems = items;
}

function completionContext() {
  const t = els.source;
  if (t.selectionStart !== t.selectionEnd) return null;
  const v = t.value;
  const pos = t.selectionStart;
  if (pos < v.length && !isStop(v[pos])) return null; // in the middle of a token
  let s = pos;
  while (s > 0 && !isStop(v[s - 1])) s--;
  if (s === pos) return null;
  const prefix = v.slice(s, pos);
  if (prefix.startsWith("'") || /^[+-]?[0-9]/.test(prefix)) return null;
  ensureTokens();
  const ti = tokenIndexAt(s);
  if (ti >= 0) {
    const tk = state.tokens[ti];
    if (tk.t !== 'word' || tk.inVector) return null;
  }
  return { start: s, end: pos, prefix };
}

function updateCompletion() {
  const ctx = completionContext();
  if (!ctx || state.completionItems.length === 0) { closeCompletion(); return; }
  const up = ctx.prefix.toUpperCase();
  const seen = new Set();
  const items = [];
  for (const name of state.bound || []) {
    if (name.startsWith(up) && name !== up) { items.push({ label: name, detail: 'defined in this program', kind: 'user' }); seen.add(name); }
  }
  for (const it of state.completionItems) {
    const match = it.kind === 'alias' ? it.label.startsWith(ctx.prefix) : it.label.toUpperCase().startsWith(up);
    if (match && !seen.has(it.label)) { items.push(it); seen.add(it.label); }
    if (items.length >= 60) break;
  }
  if (items.length === 0 || (items.length === 1 && items[0].label.toUpperCase() === up)) { closeCompletion(); return; }
  const c = state.completion;
  const keep = c.open && c.items[c.active] ? c.items[c.active].label : null;
  if (!c.open) c.chosen = false;
  c.items = items;
  c.start = ctx.start;
  c.end = ctx.end;
  c.active = Math.max(0, keep ? items.findIndex((x) => x.label === keep) : 0);
  c.open = true;
  renderCompletion();
}

function renderCompletion() {
  const c = state.completion;
  const list = els.completion;
  list.replaceChildren(...c.items.map((it, i) => h('li', {
    id: `cmp-${i}`,
    role: 'option',
    'aria-selected': i === c.active ? 'true' : 'false',
    dataset: { index: String(i) },
  }, h('span', { class: 'c-name' }, it.label), h('span', { class: 'c-detail' }, it.kind === 'phrasebook' ? `phrasebook — ${it.detail}` : it.detail))));
  list.hidden = false;
  els.source.setAttribute('aria-activedescendant', `cmp-${c.active}`);
  // Place the list under the caret (fixed, so that the editor's box does not clip it).
  const t = els.source;
  const pos = positionOf(t.value, c.start);
  const cw = charWidth();
  const style = getComputedStyle(t);
  const lh = parseFloat(style.lineHeight) || 21;
  const pad = parseFloat(style.paddingLeft) || 10;
  const box = t.getBoundingClientRect();
  const vw = document.documentElement.clientWidth;
  const vh = window.innerHeight;
  const caretX = box.left + pad + (pos.column - 1) * cw - t.scrollLeft;
  const caretTop = box.top + pad + (pos.line - 1) * lh - t.scrollTop;
  const width = Math.min(list.offsetWidth || 260, vw - 16);
  const height = list.offsetHeight || 200;
  const left = Math.max(8, Math.min(caretX, vw - width - 8));
  let top = caretTop + lh + 2;
  if (top + height > vh - 8 && caretTop - height - 2 > 8) top = caretTop - height - 2;
  list.style.left = `${left}px`;
  list.style.top = `${top}px`;
  const active = list.children[c.active];
  if (active) active.scrollIntoView({ block: 'nearest' });
}

function closeCompletion() {
  const c = state.completion;
  if (!c.open && els.completion.hidden) return;
  c.open = false;
  c.items = [];
  c.active = -1;
  els.completion.hidden = true;
  els.completion.replaceChildren();
  els.source.removeAttribute('aria-activedescendant');
}

function acceptCompletion(index = state.completion.active) {
  const c = state.completion;
  const it = c.items[index];
  if (!it) { closeCompletion(); return; }
  const t = els.source;
  const start = c.start;
  const end = c.end;
  closeCompletion();
  t.setSelectionRange(start, end);
  insertText(it.label);
  closeCompletion();
}

// ---------------------------------------------------------------- editor events

function onSourceChanged() {
  state.runMark = null;
  state.bracketSel = null;
  // The marks of the last check point into the old text: drop them until the next check.
  state.checkMarks = [];
  els.diagnostics.classList.add('stale');
  ensureTokens();
  renderEditor();
  updateBracketSelection();
  scheduleCheck();
  scheduleFragment();
  markStale();
}

/**
 * Results are of one program: the one that ran (`state.shownSource`). While the editor
 * holds anything else they are marked stale (`data-stale="true"` on the regions that show
 * them, and a visible note) until the program in the editor runs.
 */
function markStale() {
  const stale = state.shownSource !== null && els.source.value !== state.shownSource;
  for (const region of [els.stackPanel, els.outputPanel, els.usagePanel]) {
    region.dataset.stale = stale ? 'true' : 'false';
  }
  els.staleNote.hidden = !stale;
}

function onEditorKeydown(e) {
  const c = state.completion;
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) return; // handled at document level
  if (c.open) {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const n = c.items.length;
      c.active = (c.active + (e.key === 'ArrowDown' ? 1 : -1) + n) % n;
      c.chosen = true;
      renderCompletion();
      return;
    }
    // Enter is a new line unless the arrows chose an item; Tab always accepts.
    if (e.key === 'Enter' && !c.chosen) closeCompletion();
    else if ((e.key === 'Enter' || e.key === 'Tab') && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey) {
      const typed = els.source.value.slice(c.start, c.end).toUpperCase();
      if (c.items[c.active] && c.items[c.active].label.toUpperCase() === typed) {
        closeCompletion(); // already complete: Enter and Tab keep their usual meaning
      } else {
        e.preventDefault();
        state.escapeArmed = false;
        acceptCompletion();
        return;
      }
    }
    if (e.key === 'Escape') {
      e.preventDefault();
      closeCompletion();
      return;
    }
    if (e.key === 'PageDown' || e.key === 'PageUp' || e.key === 'Home' || e.key === 'End') closeCompletion();
  }
  if (e.key === 'Escape') {
    state.escapeArmed = true;
    return;
  }
  if (e.key === 'Tab' && !e.ctrlKey && !e.altKey && !e.metaKey) {
    if (state.escapeArmed) { state.escapeArmed = false; return; } // let focus move on
    e.preventDefault();
    indentSelection(e.shiftKey);
    return;
  }
  if (!['Shift', 'Control', 'Alt', 'Meta', 'CapsLock'].includes(e.key)) state.escapeArmed = false;
}

function setupEditor() {
  const t = els.source;
  t.addEventListener('input', (e) => {
    onSourceChanged();
    const typing = e.inputType === 'insertText' || e.inputType === 'deleteContentBackward' || e.inputType === 'insertCompositionText';
    if (typing) updateCompletion(); else closeCompletion();
  });
  t.addEventListener('keydown', onEditorKeydown);
  t.addEventListener('scroll', () => { syncScroll(); if (state.completion.open) renderCompletion(); }, { passive: true });
  t.addEventListener('blur', () => { window.setTimeout(() => { if (document.activeElement !== t) closeCompletion(); }, 120); });
  t.addEventListener('focus', () => { state.escapeArmed = false; });
  t.addEventListener('click', () => { closeCompletion(); updateBracketSelection(); });
  t.addEventListener('keyup', (e) => { if (!['Shift', 'Control', 'Alt', 'Meta'].includes(e.key)) updateBracketSelection(); });
  document.addEventListener('selectionchange', () => { if (document.activeElement === t) updateBracketSelection(); });
  window.addEventListener('scroll', () => { if (state.completion.open) renderCompletion(); }, { passive: true });
  els.completion.addEventListener('mousedown', (e) => e.preventDefault());
  els.completion.addEventListener('click', (e) => {
    const li = e.target.closest('li[data-index]');
    if (li) acceptCompletion(Number(li.dataset.index));
  });
  window.addEventListener('resize', () => {
    cachedCharWidth = 0;
    renderEditor();
    if (state.completion.open) renderCompletion();
    if (!els.examplesMenu.hidden) placePopup(els.examplesButton, els.examplesMenu, false);
    if (!els.badgeTooltip.hidden) placePopup(els.badge, els.badgeTooltip, true);
  });
}

// ---------------------------------------------------------------- requests

function usedPhrasebookWords(text) {
  if (state.phrasebook.size === 0) return [];
  const { toks, defined } = text === state.tokenizedText
    ? { toks: state.tokens, defined: state.defined }
    : tokenize(text);
  const out = [];
  for (const tk of toks) {
    if (tk.t !== 'word' || tk.inVector) continue;
    const w = state.phrasebook.get(tk.upper);
    if (w && !defined.has(tk.upper) && !out.includes(w.name)) out.push(w.name);
  }
  return out;
}

function requestBody(source, whole) {
  const words = usedPhrasebookWords(source);
  const body = words.length ? { source, words } : { source };
  if (whole) body.whole = true; // the page's own member: a large result up to the response limit
  return JSON.stringify(body);
}

async function readJson(res) {
  const text = await res.text();
  try { return JSON.parse(text); } catch { return { message: text.trim().slice(0, 500) || `HTTP ${res.status}` }; }
}

async function post(path, source, signal, whole) {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: requestBody(source, whole),
    signal,
    cache: 'no-store',
    credentials: 'same-origin',
  });
  const data = await readJson(res);
  return { ok: res.ok, status: res.status, data };
}

// ---------------------------------------------------------------- live check

function scheduleCheck() {
  window.clearTimeout(state.checkTimer);
  state.checkSeq++; // whatever is in flight answers for an older text
  if (state.checkAbort) { state.checkAbort.abort(); state.checkAbort = null; }
  state.checkTimer = window.setTimeout(runCheck, CHECK_DELAY_MS);
}

async function runCheck() {
  const source = els.source.value;
  const seq = ++state.checkSeq;
  if (source.trim() === '') { applyCheck(seq, { empty: true }); return; }
  const ac = new AbortController();
  state.checkAbort = ac;
  try {
    const r = await post('/api/check', source, ac.signal);
    if (seq !== state.checkSeq) return;
    applyCheck(seq, r.ok ? { env: r.data } : { refused: r.status, message: r.data?.message });
  } catch (err) {
    if (err && err.name === 'AbortError') return;
    if (seq !== state.checkSeq) return;
    applyCheck(seq, { network: true });
  } finally {
    if (state.checkAbort === ac) state.checkAbort = null;
  }
}

function positionButton(line, column) {
  return h('button', { type: 'button', class: 'linkish goto', onclick: () => moveCaretTo(line, column || 1) }, `line ${line}${column ? `, column ${column}` : ''}`);
}

const NO_PROBLEMS = 'No problems found without running it. Press Run to execute it.';

/**
 * The live check reads the program without running it. When the program in the editor has
 * run and failed, its "no problems" line says that the run found one, instead of standing
 * beside the run's error as if nothing were wrong.
 */
function noteRunInCheck() {
  const item = els.diagnostics.querySelector('.no-problems');
  if (!item) return;
  const failed = state.lastRun && state.lastRun.failed && state.lastRun.source === els.source.value;
  item.className = failed ? 'd-warning no-problems' : 'd-ok no-problems';
  item.textContent = failed
    ? 'Nothing is wrong before it runs, but running it failed: the error is under Output.'
    : NO_PROBLEMS;
}

function applyCheck(seq, result) {
  if (seq !== state.checkSeq) return;
  const items = [];
  const marks = [];
  if (result.empty) {
    items.push(h('li', { class: 'd-ok' }, 'Nothing to check yet: write a program.'));
  } else if (result.network) {
    items.push(h('li', { class: 'd-error' }, h('span', { class: 'd-kind' }, 'Check unavailable: '), 'the Playground server could not be reached.'));
  } else if (result.refused) {
    items.push(h('li', { class: 'd-error' }, h('span', { class: 'd-kind' }, `Check refused (HTTP ${result.refused}): `), result.message || ''));
  } else {
    const env = result.env || {};
    if (env.status === 'hostError') {
      const er = env.error || {};
      items.push(h('li', { class: 'd-error' }, h('span', { class: 'd-kind' }, `Check stopped (${er.code || 'hostError'}): `), er.message || ''));
    } else {
      if (env.status === 'error' && env.error) {
        const er = env.error;
        const { main, hint } = splitHint(env.message);
        if (er.line) marks.push({ line: er.line, column: er.column || 1, kind: 'error' });
        items.push(h('li', { class: 'd-error' },
          h('span', { class: 'd-kind' }, `Error (${er.category})`),
          er.line ? [' at ', positionButton(er.line, er.column)] : null, ': ', renderInline(main, h('span')),
          hint ? renderInline(hint, h('p', { class: 'hint' })) : null));
      }
      for (const f of env.findings || []) {
        const { main, hint } = splitHint(f.message);
        if (f.line) marks.push({ line: f.line, column: f.column || 1, kind: 'warning' });
        items.push(h('li', { class: 'd-warning' },
          h('span', { class: 'd-kind' }, `Warning (${f.trap})`),
          f.line ? [' at ', positionButton(f.line, f.column)] : null, ': ', renderInline(main, h('span')),
          hint ? renderInline(hint, h('p', { class: 'hint' })) : null));
      }
      if (env.findingsOmitted) items.push(h('li', { class: 'd-warning' }, `${plural(env.findingsOmitted, 'more warning', 'more warnings')} not listed.`));
      for (const f of env.contractDecls?.findings || []) {
        items.push(h('li', { class: f.severity === 'error' ? 'd-error' : 'd-ok' }, h('span', { class: 'd-kind' }, `Contract ${f.severity}: `), f.message));
      }
      for (const d of env.contractDecls?.declarations || []) {
        items.push(h('li', { class: d.verdict === 'violated' ? 'd-error' : d.verdict === 'verified' ? 'd-ok' : 'd-warning' },
          h('span', { class: 'd-kind' }, `Contract of ${d.word}: `), d.verdict, d.gap ? ` — ${d.gap}` : ''));
      }
      if (items.length === 0) items.push(h('li', { class: 'd-ok no-problems' }, NO_PROBLEMS));
    }
  }
  state.checkMarks = marks;
  els.diagnostics.replaceChildren(...items);
  els.diagnostics.classList.remove('stale');
  noteRunInCheck();
  renderEditor();
  state.checkCount++;
  els.diagnostics.dataset.checked = String(state.checkCount);
}

// ---------------------------------------------------------------- exact numbers

/** `n/d` as a decimal with `sig` significant digits, rounded half up, with BigInt only. */
function approxDecimal(numerator, denominator, sig = 20) {
  let n = BigInt(numerator);
  let d = BigInt(denominator);
  if (d === 0n) return 'undefined';
  if (d < 0n) { n = -n; d = -d; }
  if (n === 0n) return '0';
  const neg = n < 0n;
  if (neg) n = -n;
  let e = n.toString().length - d.toString().length; // floor(log10(n/d)) or one more
  if (e >= 0 ? n < d * 10n ** BigInt(e) : n * 10n ** BigInt(-e) < d) e -= 1;
  let k = sig - 1 - e;
  const num = k >= 0 ? n * 10n ** BigInt(k) : n;
  const den = k >= 0 ? d : d * 10n ** BigInt(-k);
  let q = num / den;
  if (2n * (num % den) >= den) q += 1n;
  let digits = q.toString();
  if (digits.length > sig) { digits = digits.slice(0, sig); k -= 1; e += 1; }
  let out;
  if (e >= 21 || e <= -7) {
    const mant = (digits[0] + '.' + digits.slice(1)).replace(/0+$/, '').replace(/\.$/, '');
    out = `${mant}e${e >= 0 ? '+' : ''}${e}`;
  } else {
    if (k <= 0) out = digits + '0'.repeat(-k);
    else if (k >= digits.length) out = '0.' + '0'.repeat(k - digits.length) + digits;
    else out = digits.slice(0, digits.length - k) + '.' + digits.slice(digits.length - k);
    if (out.includes('.')) out = out.replace(/0+$/, '').replace(/\.$/, '');
  }
  return (neg ? '-' : '') + out;
}

function formatTerms(terms) {
  let s = '';
  terms.forEach((t, i) => {
    const neg = String(t.numerator).startsWith('-');
    const abs = neg ? String(t.numerator).slice(1) : String(t.numerator);
    let body;
    if (String(t.radicand) === '1') body = `${abs}/${t.denominator}`;
    else if (abs === '1' && String(t.denominator) === '1') body = `sqrt(${t.radicand})`;
    else body = `${abs}/${t.denominator}*sqrt(${t.radicand})`;
    s += i === 0 ? (neg ? '-' : '') + body : (neg ? '-' : '+') + body;
  });
  return s;
}

// ---------------------------------------------------------------- stack rendering

function nodeIsScalar(node) {
  return node && (node.type === 'number' || node.type === 'string' || node.type === 'boolean' || node.type === 'nil') && !node.semantics?.approximate;
}

function scalarText(node) {
  switch (node.type) {
    case 'number': return `${node.value.numerator}/${node.value.denominator}`;
    case 'string': return `'${node.value}'`;
    case 'boolean': return node.value ? 'TRUE' : 'FALSE';
    case 'nil': return 'NIL';
    default: return '?';
  }
}

function renderNode(node, depth) {
  if (!node || typeof node !== 'object') return h('span', null, String(node));
  switch (node.type) {
    case 'number': {
      if (node.semantics?.approximate) {
        const exact = formatTerms(node.semantics.exactTerms || []);
        const approx = approxDecimal(node.value.numerator, node.value.denominator, 12);
        return h('span', { class: 'v-num v-alg' }, exact, h('span', { class: 'approx-inline', title: 'approximation' }, ` (≈${approx})`));
      }
      return h('span', { class: 'v-num' }, `${node.value.numerator}/${node.value.denominator}`);
    }
    case 'string': return h('span', { class: 'v-str' }, `'${node.value}'`);
    case 'boolean': return h('span', { class: 'v-bool' }, node.value ? 'TRUE' : 'FALSE');
    case 'nil': {
      const reason = node.semantics?.absence?.reason;
      return h('span', { class: 'nil-inline', title: reason ? `NIL — ${reason}` : 'NIL' }, 'NIL');
    }
    case 'codeBlock': return h('code', { class: 'codeblock' }, highlightNodes(String(node.value)));
    case 'vector': return renderVector(node.value || [], depth);
    default: return h('span', { class: 'elided' }, `<${node.type}>`);
  }
}

function vectorChildren(items, depth) {
  const out = [];
  items.forEach((child, i) => {
    if (i > 0) out.push(' ');
    out.push(renderNode(child, depth + 1));
  });
  return out;
}

function renderVector(items, depth) {
  const rows = items.length > 1 && items.length <= 200 && items.every((x) => x && x.type === 'vector');
  const full = () => {
    const v = h('span', { class: rows ? 'vec vec-rows' : 'vec' });
    if (items.length === 0) { v.append(h('span', { class: 'br' }, '['), ' ', h('span', { class: 'br' }, ']')); return v; }
    v.append(h('span', { class: 'br' }, '['), ' ');
    if (items.length > 200 && items.every(nodeIsScalar)) v.append(items.map(scalarText).join(' '));
    else v.append(...vectorChildren(items, depth));
    v.append(' ', h('span', { class: 'br' }, ']'));
    return v;
  };
  if (items.length <= LONG_VECTOR) return full();
  const wrap = h('span', { class: 'vec-long' });
  // Collapsed: its first and last elements, and how many lie between them.
  const half = LONG_VECTOR / 2;
  const preview = h('span', { class: 'vec vec-preview' }, h('span', { class: 'br' }, '['), ' ',
    ...vectorChildren(items.slice(0, half), depth),
    h('span', { class: 'gap' }, ` … ${NF.format(items.length - 2 * half)} more … `),
    ...vectorChildren(items.slice(items.length - half), depth), ' ', h('span', { class: 'br' }, ']'));
  const details = h('details', { class: 'more' }, h('summary', null, `show all ${NF.format(items.length)}`));
  details.addEventListener('toggle', () => {
    if (details.open && !details.dataset.filled) {
      details.dataset.filled = '1';
      details.append(full());
    }
  });
  wrap.append(preview, details);
  return wrap;
}

function elidedText(node) {
  const el = node.elided || {};
  const parts = [];
  if (typeof el.elements === 'number') parts.push(plural(el.elements, 'element', 'elements'));
  if (typeof el.algebraicTerms === 'number') parts.push(plural(el.algebraicTerms, 'term', 'terms'));
  if (typeof el.approxBytes === 'number') parts.push(`~${NF.format(el.approxBytes)} bytes`);
  return `elided (${parts.join(', ')})`;
}

// An elided slot: the ends of its value the envelope previews (a Vector's first and last
// elements, a String's first and last characters), then what was not sent and why.
function renderElided(node) {
  const el = node.elided || {};
  const why = h('span', { class: 'elided' }, elidedText(node));
  const more = el.reason !== 'valueStackBudget' ? null
    : state.shownWhole ? h('span', { class: 'elided' }, `Too large for this page even whole: an answer holds at most ${fmtBytes(state.playgroundLimits.responseBytes || 4194304)}.`)
      : h('button', { type: 'button', class: 'linkish show-all', onclick: () => runProgram(true) }, 'Show all (runs the program again)');
  const notes = [why, more];
  if (node.type === 'vector' && (Array.isArray(el.head) || Array.isArray(el.tail))) {
    const head = el.head || [];
    const tail = el.tail || [];
    const between = (el.elements || 0) - head.length - tail.length;
    const parts = [h('span', { class: 'br' }, '['), ' ', ...vectorChildren(head, 0)];
    if (between > 0) parts.push(h('span', { class: 'gap' }, ` … ${NF.format(between)} not sent … `));
    else if (head.length && tail.length) parts.push(' ');
    parts.push(...vectorChildren(tail, 0), ' ', h('span', { class: 'br' }, ']'));
    return h('span', { class: 'elided-slot' }, h('span', { class: 'vec vec-preview' }, ...parts), ...notes);
  }
  if (node.type === 'string' && typeof el.head === 'string') {
    const text = typeof el.tail === 'string'
      ? [`'${el.head}`, h('span', { class: 'gap' }, ' … not sent … '), `${el.tail}'`]
      : [`'${el.head}'`];
    return h('span', { class: 'elided-slot' }, h('span', { class: 'v-str' }, ...text), ...notes);
  }
  return h('span', { class: 'elided-slot' }, ...notes);
}

function renderSlotValue(node, display) {
  if (node && node.type === 'elidedRun') {
    return h('span', { class: 'elided' }, `elided (${plural(node.count, 'slot', 'slots')}, ~${NF.format(node.approxBytes)} bytes)`);
  }
  if (node && node.elided) return renderElided(node);
  if (!node) return h('span', null, display ?? '');
  switch (node.type) {
    case 'number':
      if (node.semantics?.approximate) {
        const exact = display || formatTerms(node.semantics.exactTerms || []);
        return h('span', null,
          h('span', { class: 'exact' }, exact),
          h('span', { class: 'approx' }, `≈ ${approxDecimal(node.value.numerator, node.value.denominator, 20)}`, h('span', { class: 'approx-label' }, 'approximation')));
      }
      return h('span', { class: 'v-num' }, display || `${node.value.numerator}/${node.value.denominator}`);
    case 'nil': {
      const reason = node.semantics?.absence?.reason;
      return h('span', { class: 'nil' }, reason ? `NIL — ${reason}` : 'NIL');
    }
    case 'string': return h('span', { class: 'v-str' }, display || `'${node.value}'`);
    case 'boolean': return h('span', { class: 'v-bool' }, display || (node.value ? 'TRUE' : 'FALSE'));
    case 'codeBlock': return h('code', { class: 'codeblock' }, highlightNodes(String(node.value ?? display)));
    case 'vector': return renderVector(node.value || [], 0);
    default: return h('span', null, display ?? `<${node.type}>`);
  }
}

function renderStack(env) {
  const stack = Array.isArray(env.stack) ? env.stack : [];
  const display = Array.isArray(env.stackDisplay) ? env.stackDisplay : [];
  const body = els.stackBody;
  if (stack.length === 0) {
    body.replaceChildren(h('p', { class: 'muted' }, env.status === 'error' ? 'The stack was empty when the error stopped the program.' : 'The stack is empty.'));
    return;
  }
  const items = [];
  let slotIndex = 0;
  stack.forEach((node, i) => {
    const count = node && node.type === 'elidedRun' ? node.count : 1;
    const label = count > 1 ? `${NF.format(slotIndex)}–${NF.format(slotIndex + count - 1)}` : NF.format(slotIndex);
    const isTop = i === stack.length - 1;
    const type = node?.type === 'elidedRun' ? 'elided' : node?.type || '';
    items.push(h('li', { class: isTop ? 'slot is-top' : 'slot', dataset: { type } },
      h('span', { class: 'slot-index', title: count > 1 ? 'slots' : 'slot' }, label),
      h('div', { class: 'slot-value' }, renderSlotValue(node, display[i])),
      h('span', { class: 'slot-type' }, isTop ? `${type} · top` : type)));
    slotIndex += count;
  });
  const notes = [];
  if (env.stackElided) {
    const se = env.stackElided;
    notes.push(h('p', { class: 'stack-note' }, `Some values were too large to send whole: the stack’s answer holds at most ${fmtBytes(se.budgetBytes || 0)} (${se.reason}). What was not sent is elided, with the first and last elements or characters of each elided value shown while they fit.`));
  }
  body.replaceChildren(
    h('p', { class: 'stack-order', id: 'stack-order' }, `${plural(slotIndex, 'slot', 'slots')}, bottom to top: the last one is the top of the stack.`),
    h('ol', { class: 'stack-list', 'aria-describedby': 'stack-order', start: '0' }, items),
    ...notes);
}

// ---------------------------------------------------------------- output rendering

function hostErrorText(er) {
  const lim = state.playgroundLimits;
  switch (er.code) {
    case 'memoryExhausted':
      return `The program needed more than ${fmtBytes(lim.memoryBytes || 268435456)} of memory (memoryBytes) and was stopped. Build smaller values or keep fewer of them on the stack.`;
    case 'timeout':
      return `The program ran longer than the ${fmtMs(lim.wallTimeMs || 10000)} wall-time limit (wallTimeMs) and was stopped. Do less work per run.`;
    case 'capacityExhausted':
      return 'The Playground is busy; try again in a second.';
    case 'responseTooLarge':
      return `The result does not fit the ${fmtBytes(lim.responseBytes || 4194304)} response limit (responseBytes), even with the stack elided. Print or keep less.`;
    case 'sourceTooLarge':
      return `The program is larger than the ${fmtBytes(lim.sourceBytes || 16777216)} source limit (sourceBytes, counted in UTF-8 bytes).`;
    case 'invalidRequest':
      return 'The server could not accept this request.';
    case 'backendUnavailable':
      return 'The numeric backend of the server failed earlier and no longer runs programs; the server needs a restart.';
    case 'backendFailure':
      return 'The engine failed on this program (an internal fault); the same program will fail again.';
    case 'malformedBackendResponse':
      return 'The result could not be delivered in a form the page can read.';
    default:
      return 'The server stopped this run.';
  }
}

function renderOutput(env) {
  const body = els.outputBody;
  const parts = [];
  const output = Array.isArray(env.output) ? env.output : [];
  if (env.status !== 'hostError') {
    if (output.length) parts.push(h('h3', { class: 'vh' }, 'Printed lines'), h('pre', { class: 'prints', 'aria-label': 'Printed lines' }, output.join('\n')));
    else parts.push(h('p', { class: 'muted' }, 'No PRINT output.'));
  }
  if (env.status === 'error' && env.error) {
    const er = env.error;
    const { main, hint } = splitHint(env.message);
    const box = h('div', { class: 'error-box', role: 'group', 'aria-label': 'Error' },
      h('h3', null, `Error: ${er.category}`),
      renderInline(main, h('p', { class: 'message' })));
    if (hint) box.append(renderInline(hint, h('p', { class: 'hint' })));
    const facts = [];
    if (er.word) facts.push(['Word', h('code', null, er.word)]);
    if (er.line) facts.push(['At', positionButton(er.line, er.column)]);
    if (er.resource) {
      const v = state.playgroundLimits[er.resource];
      facts.push(['Limit', h('span', null, h('code', null, er.resource), v !== undefined ? ` (${fmtLimit(er.resource, v)} here)` : '')]);
    }
    for (const [k, v] of facts) box.append(h('p', null, `${k}: `, v));
    if (Array.isArray(er.trace) && er.trace.length) {
      const list = h('ol', { class: 'trace', 'aria-label': 'Call trace, innermost first' });
      er.trace.forEach((f, i) => {
        const where = f.source === 'phrasebook' ? ' (phrasebook)' : '';
        const li = h('li', null, `in ${f.word}${where}`);
        if (f.line) li.append(' at ', positionButton(f.line, f.column));
        list.append(li);
        if (i === er.trace.length - 2 && er.traceOmitted) list.append(h('li', { class: 'muted' }, `… ${plural(er.traceOmitted, 'call', 'calls')} left out …`));
      });
      box.append(h('p', null, 'Trace, innermost call first:'), list);
    }
    parts.push(box);
  } else if (env.status === 'hostError') {
    const er = env.error || {};
    const box = h('div', { class: 'error-box', role: 'group', 'aria-label': 'Run stopped' },
      h('h3', null, er.code === 'capacityExhausted' ? 'Busy' : 'The run was stopped'),
      h('p', null, hostErrorText(er)));
    box.append(h('p', { class: 'raw' }, 'Code: ', h('code', null, er.code || 'hostError'),
      er.limit ? ['; limit: ', h('code', null, er.limit)] : null,
      er.retryable ? '; retrying may succeed' : '',
      er.retryAfterMs ? ` (after ${fmtMs(er.retryAfterMs)})` : ''));
    if (er.message) box.append(h('p', { class: 'raw' }, `Server message: ${er.message}`));
    parts.push(box);
  }
  const cd = env.contractDecls;
  if (cd && ((cd.declarations || []).length || (cd.findings || []).length)) {
    const list = h('ul', { class: 'contract-list' });
    for (const d of cd.declarations || []) list.append(h('li', null, h('code', null, d.word), `: ${d.verdict}`, d.gap ? ` — ${d.gap}` : ''));
    for (const f of cd.findings || []) list.append(h('li', null, `${f.severity}: ${f.message}`));
    parts.push(h('p', { class: 'small-heading' }, 'Contracts'), list);
  }
  body.replaceChildren(...parts);
}

function renderUsage(env, elapsedMs) {
  const body = els.usageBody;
  const parts = [];
  const ru = env.resourceUsage;
  if (ru) {
    const dl = h('dl', { class: 'usage-list' });
    // People read what a meter counts; the envelope's name stays beside it for the docs.
    const rows = [
      ['executionSteps', 'steps', 'Steps', 'Words run'],
      ['numericWork', 'units', 'Arithmetic', 'work on numbers'],
      ['collectionWork', 'units', 'Collections', 'work on Vectors and Strings'],
    ];
    for (const [key, unit, label, what] of rows) {
      const used = Number(ru[key] || 0);
      const limit = state.playgroundLimits[key];
      const pct = limit ? Math.min(100, (used / limit) * 100) : 0;
      const bar = h('span');
      bar.style.width = `${used > 0 ? Math.max(pct, 0.8) : 0}%`;
      const pctText = limit && used > 0 ? ` (${pct < 0.01 ? '<0.01' : pct < 10 ? pct.toFixed(2) : pct.toFixed(1)} %)` : '';
      const text = limit ? `${NF.format(used)} of ${NF.format(limit)} ${unit}${pctText}` : `${NF.format(used)} ${unit}`;
      dl.append(h('div', { class: 'usage-row' },
        h('dt', null, h('span', { class: 'usage-label' }, label), ' ', h('span', { class: 'usage-what' }, `${what} · `, h('code', null, key))),
        h('dd', null, h('div', { class: 'bar', 'aria-hidden': 'true' }, bar), h('span', { class: 'usage-text' }, text))));
    }
    parts.push(dl);
  } else {
    parts.push(h('p', { class: 'muted' }, 'No usage: the run did not complete.'));
  }
  const meta = h('p', { class: 'usage-meta' });
  const outcome = env.status === 'hostError' ? `hostError:${env.error?.code || ''}` : env.outcome;
  meta.append(h('span', null, 'Outcome: ', h('code', null, outcome || '—')));
  if (env.mcp?.limitProfile) meta.append(h('span', null, 'Profile: ', h('code', null, env.mcp.limitProfile)));
  if (env.mcp?.backend?.library) meta.append(h('span', null, `Backend: ${env.mcp.backend.library}`));
  if (Array.isArray(env.prelude) && env.prelude.length) meta.append(h('span', null, 'Phrasebook: ', env.prelude.map((p) => p.name).join(', ')));
  if (typeof elapsedMs === 'number') meta.append(h('span', null, `Round trip: ${NF.format(Math.round(elapsedMs))} ms`));
  parts.push(meta);
  body.replaceChildren(...parts);
}

function setStatus(text, kind) {
  els.status.textContent = text;
  els.status.className = `outcome${kind ? ` is-${kind}` : ''}`;
}

function renderEnvelope(env, source, elapsedMs) {
  if (!env || typeof env !== 'object') { renderFailure('The server answered something the page cannot read.', 'badAnswer'); return; }
  state.lastRun = { source, failed: env.status !== 'ok' };
  if (env.specificationVersion) state.lastEnvelopeSpec = env.specificationVersion;
  const outcome = env.status === 'hostError' ? `hostError:${env.error?.code || 'unknown'}` : String(env.outcome || env.status);
  setStatus(outcome, env.status === 'ok' ? (outcome.startsWith('nil') ? 'nil' : 'ok') : 'error');
  if (env.status === 'hostError') {
    els.stackBody.replaceChildren(h('p', { class: 'muted' }, 'No stack: the run was stopped before it finished.'));
  } else {
    renderStack(env);
  }
  renderOutput(env);
  renderUsage(env, elapsedMs);
  // Mark the error's position in the editor (only while the text is what ran).
  state.runMark = null;
  if (env.status === 'error' && env.error?.line && els.source.value === source) {
    state.runMark = { line: env.error.line, column: env.error.column || 1 };
  }
  renderEditor();
  // Announce.
  if (env.status === 'ok') {
    const d = env.stackDisplay || [];
    const top = d.length ? d[d.length - 1] : '';
    const shown = top.length > 200 ? `${top.slice(0, 200)}…` : top;
    announce(d.length ? `Result: ${shown}${d.length > 1 ? ` (top of ${plural(d.length, 'value', 'values')})` : ''}` : 'Result: the stack is empty');
  } else if (env.status === 'error') {
    announce(`Error: ${env.error?.category || ''}. ${splitHint(env.message).main}`);
  } else {
    announce(`Run stopped: ${env.error?.code || 'host error'}. ${hostErrorText(env.error || {})}`);
  }
  updateVersions();
}

function renderFailure(message, code, detail) {
  state.lastRun = { source: state.shownSource, failed: true };
  setStatus(code, 'error');
  els.outputBody.replaceChildren(h('div', { class: 'error-box', role: 'group', 'aria-label': 'Run failed' },
    h('h3', null, 'The program did not run'),
    h('p', null, message),
    detail ? h('p', { class: 'raw' }, detail) : null));
  els.stackBody.replaceChildren(h('p', { class: 'muted' }, 'No stack: the program did not run.'));
  els.usageBody.replaceChildren(h('p', { class: 'muted' }, 'No usage: the program did not run.'));
  state.runMark = null;
  renderEditor();
  announce(message);
}

// ---------------------------------------------------------------- run

// The Stop button: the run's request is aborted, its connection closes, and the server
// stops the engine and gives the slot back (server/src/playground/run.rs).
function stopRun() {
  if (state.runAbort) state.runAbort.abort();
}

function renderStopped(elapsedMs) {
  state.lastRun = { source: state.shownSource, failed: false }; // stopped by hand, not failed
  setStatus('stopped', 'error');
  els.outputBody.replaceChildren(h('div', { class: 'error-box', role: 'group', 'aria-label': 'Run stopped' },
    h('h3', null, 'You stopped the run'),
    h('p', null, `It was stopped after ${fmtMs(Math.round(elapsedMs))}; the server has stopped working on it. Change the program, or run it again.`)));
  els.stackBody.replaceChildren(h('p', { class: 'muted' }, 'No stack: the run was stopped before it finished.'));
  els.usageBody.replaceChildren(h('p', { class: 'muted' }, 'No usage: the run was stopped before it finished.'));
  state.runMark = null;
  renderEditor();
  announce('Run stopped.');
}

// `whole`: the Show all of an elided value — the same run, its stack allowed the whole
// response limit before anything is elided.
async function runProgram(whole = false) {
  if (state.running) return;
  const source = els.source.value;
  closeCompletion();
  if (source.trim() === '') {
    renderFailure('Write a program first: the editor is empty.', 'empty');
    state.shownSource = source;
    markStale();
    return;
  }
  state.running = true;
  const abort = new AbortController();
  state.runAbort = abort;
  document.body.dataset.busy = '1';
  els.run.setAttribute('aria-disabled', 'true');
  els.run.classList.add('running');
  els.runLabel.textContent = 'Running…';
  els.stop.hidden = false;
  els.results.setAttribute('aria-busy', 'true');
  const t0 = performance.now();
  // What is shown from here on is this program's (marked stale again if the editor moves on).
  state.shownSource = source;
  markStale();
  try {
    const r = await post('/api/compute', source, abort.signal, whole);
    const elapsed = performance.now() - t0;
    if (r.ok) {
      state.shownWhole = whole;
      renderEnvelope(r.data, source, elapsed);
    } else {
      const msg = r.data?.message || `HTTP ${r.status}`;
      const why = r.status === 503 ? 'The Playground is busy; try again in a second.'
        : r.status === 413 ? 'The program is too large to send.'
          : r.status === 403 ? 'The server refused the request (it did not come from this page’s own address).'
            : r.status === 415 ? 'The server refused the request format.'
              : 'The server refused the request.';
      renderFailure(why, `http:${r.status}`, `HTTP ${r.status}: ${msg}`);
    }
  } catch (err) {
    if (abort.signal.aborted) renderStopped(performance.now() - t0);
    else renderFailure('The Playground server could not be reached (network error). Check that it is still running, then try again.', 'networkError', String(err && err.message ? err.message : err));
  } finally {
    const stopHadFocus = document.activeElement === els.stop;
    state.running = false;
    state.runAbort = null;
    els.stop.hidden = true;
    if (stopHadFocus) els.run.focus();
    els.run.removeAttribute('aria-disabled');
    els.run.classList.remove('running');
    els.runLabel.textContent = 'Run';
    els.results.removeAttribute('aria-busy');
    document.body.dataset.busy = '0';
    markStale();
    noteRunInCheck();
  }
}

// ---------------------------------------------------------------- share

function encodeSource(text) {
  const bytes = new TextEncoder().encode(text);
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function decodeSource(b64) {
  let s = b64.replace(/-/g, '+').replace(/_/g, '/').replace(/\s/g, '');
  while (s.length % 4) s += '=';
  const bin = atob(s);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

/** The fragment's program: a string, null when there is none, undefined when unreadable. */
function fragmentSource() {
  const hash = window.location.hash.replace(/^#/, '');
  if (!hash) return null;
  for (const part of hash.split('&')) {
    if (part.startsWith('src=')) {
      try { return decodeSource(decodeURIComponent(part.slice(4))); } catch { return undefined; }
    }
  }
  return null;
}

function scheduleFragment() {
  window.clearTimeout(state.fragmentTimer);
  state.fragmentTimer = window.setTimeout(updateFragment, FRAGMENT_DELAY_MS);
}

function updateFragment() {
  window.clearTimeout(state.fragmentTimer);
  const text = els.source.value;
  if (text.length <= 2000000) storageSet(STORE_SOURCE, text);
  if (text.length > FRAGMENT_LIMIT) return false; // base64 only grows it
  const enc = encodeSource(text);
  if (enc.length > FRAGMENT_LIMIT) return false;
  const url = new URL(window.location.href);
  url.hash = `src=${enc}`;
  if (url.href !== window.location.href) window.history.replaceState(null, '', url.href);
  return true;
}

async function copyLink() {
  const fits = updateFragment();
  if (!fits) {
    announce('This program is too large to share as a link.');
    flashButton(els.share, 'Too large');
    return;
  }
  const href = window.location.href;
  try {
    if (!navigator.clipboard || !window.isSecureContext) throw new Error('no clipboard');
    await navigator.clipboard.writeText(href);
    announce('Link copied');
    flashButton(els.share, 'Link copied ✓');
  } catch {
    const box = $('copy-fallback');
    const input = $('copy-url');
    input.value = href;
    box.hidden = false;
    input.focus();
    input.select();
    let copied = false;
    try { copied = document.execCommand('copy'); } catch { copied = false; }
    announce(copied ? 'Link copied' : `Press ${IS_MAC ? 'Command' : 'Control'}+C to copy the selected link.`);
    if (copied) flashButton(els.share, 'Link copied ✓');
  }
}

function flashButton(button, text) {
  const old = button.dataset.label || button.textContent;
  button.dataset.label = old;
  button.textContent = text;
  window.clearTimeout(Number(button.dataset.timer || 0));
  button.dataset.timer = String(window.setTimeout(() => { button.textContent = old; }, 2000));
}

// ---------------------------------------------------------------- popups: tooltip, menu

function placePopup(anchor, popup, alignRight) {
  const r = anchor.getBoundingClientRect();
  const vw = document.documentElement.clientWidth;
  const w = Math.min(popup.offsetWidth, vw - 16);
  let left = alignRight ? r.right - w : r.left;
  left = Math.max(8, Math.min(left, vw - w - 8));
  popup.style.left = `${left}px`;
  popup.style.top = `${r.bottom + 6}px`;
  popup.style.maxHeight = `${Math.max(160, window.innerHeight - r.bottom - 16)}px`;
}

const tooltip = { pinned: false, hover: false };

function showTooltip() {
  els.badgeTooltip.hidden = false;
  placePopup(els.badge, els.badgeTooltip, true);
}
function hideTooltip(force) {
  if (!force && (tooltip.pinned || tooltip.hover || document.activeElement === els.badge)) return;
  tooltip.pinned = false;
  els.badgeTooltip.hidden = true;
}

function setupBadge() {
  const wrap = $('badge-wrap');
  wrap.addEventListener('mouseenter', () => { tooltip.hover = true; showTooltip(); });
  wrap.addEventListener('mouseleave', () => { tooltip.hover = false; window.setTimeout(() => hideTooltip(false), 150); });
  els.badge.addEventListener('focus', showTooltip);
  els.badge.addEventListener('blur', () => hideTooltip(false));
  els.badge.addEventListener('click', () => {
    tooltip.pinned = !tooltip.pinned || els.badgeTooltip.hidden;
    if (tooltip.pinned) showTooltip(); else hideTooltip(true);
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && !els.badgeTooltip.hidden) { hideTooltip(true); tooltip.hover = false; }
  });
  document.addEventListener('click', (e) => {
    if (!wrap.contains(e.target) && tooltip.pinned) hideTooltip(true);
  });
}

function menuItems() { return [...els.examplesMenu.querySelectorAll('[role="menuitem"]')]; }

function openMenu(focusLast) {
  if (!state.examples.length) return;
  els.examplesMenu.hidden = false;
  els.examplesButton.setAttribute('aria-expanded', 'true');
  placePopup(els.examplesButton, els.examplesMenu, false);
  const items = menuItems();
  const target = focusLast ? items[items.length - 1] : items[0];
  if (target) target.focus();
}

function closeMenu(returnFocus) {
  if (els.examplesMenu.hidden) return;
  els.examplesMenu.hidden = true;
  els.examplesButton.setAttribute('aria-expanded', 'false');
  if (returnFocus) els.examplesButton.focus();
}

function buildExamplesMenu() {
  const menu = els.examplesMenu;
  // A chapter, then each of its sections once (its examples under it): no title repeated
  // on every item. An item's name is what it shows (program, stated answer): no
  // aria-label that could differ from the visible text.
  const groups = state.examples.map((ch, ci) => {
    const sections = [];
    (ch.examples || []).forEach((ex, ei) => {
      const title = ex.title || ch.title;
      if (!sections.length || sections[sections.length - 1].title !== title) sections.push({ title, items: [] });
      sections[sections.length - 1].items.push(h('button', {
        type: 'button', role: 'menuitem', tabindex: '-1', class: 'menu-item', dataset: { ch: String(ci), ex: String(ei) },
      }, h('code', null, ex.source),
      ex.expect !== undefined ? h('span', { class: 'menu-expect' }, `→ ${ex.expect}`) : null));
    });
    return h('div', { class: 'menu-group', role: 'group', 'aria-label': ch.title },
      h('div', { class: 'menu-group-title', 'aria-hidden': 'true' }, ch.title),
      sections.map((s) => h('div', { class: 'menu-section', role: 'group', 'aria-label': s.title.replace(/`/g, '') },
        s.title !== ch.title ? renderInline(s.title, h('div', { class: 'menu-title', 'aria-hidden': 'true' })) : null,
        s.items)));
  });
  menu.replaceChildren(...groups);
}

function setupMenu() {
  const btn = els.examplesButton;
  const menu = els.examplesMenu;
  btn.addEventListener('click', () => { if (menu.hidden) openMenu(false); else closeMenu(true); });
  btn.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown') { e.preventDefault(); openMenu(false); }
    if (e.key === 'ArrowUp') { e.preventDefault(); openMenu(true); }
  });
  menu.addEventListener('keydown', (e) => {
    const items = menuItems();
    const i = items.indexOf(document.activeElement);
    let next = -1;
    if (e.key === 'ArrowDown') next = (i + 1) % items.length;
    else if (e.key === 'ArrowUp') next = (i - 1 + items.length) % items.length;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = items.length - 1;
    else if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); closeMenu(true); return; }
    else if (e.key === 'Tab') { closeMenu(false); return; }
    else if (e.key.length === 1 && /\S/.test(e.key)) {
      const k = e.key.toLowerCase();
      const order = [...items.slice(i + 1), ...items.slice(0, i + 1)];
      const hit = order.find((it) => (it.closest('.menu-section')?.getAttribute('aria-label') || '').toLowerCase().startsWith(k));
      if (hit) { e.preventDefault(); hit.focus(); }
      return;
    }
    if (next >= 0) { e.preventDefault(); items[next].focus(); }
  });
  menu.addEventListener('click', (e) => {
    const item = e.target.closest('[role="menuitem"]');
    if (!item) return;
    const ex = state.examples[Number(item.dataset.ch)]?.examples?.[Number(item.dataset.ex)];
    closeMenu(false);
    if (ex) loadExample(ex.source, true);
  });
  document.addEventListener('click', (e) => {
    if (!menu.hidden && !menu.contains(e.target) && !btn.contains(e.target)) closeMenu(false);
  });
  window.addEventListener('scroll', () => {
    if (!menu.hidden) placePopup(btn, menu, false);
    if (!els.badgeTooltip.hidden) placePopup(els.badge, els.badgeTooltip, true);
  }, { passive: true });
}

function loadExample(source, run, returnFocus) {
  setSource(source, { keepHistory: true });
  updateFragment();
  if (returnFocus && document.contains(returnFocus)) returnFocus.focus({ preventScroll: true });
  else els.source.focus();
  if (run) runProgram();
}

// ---------------------------------------------------------------- dictionary

function renderInline(text, parent) {
  // `code`, **bold**, *emphasis*; everything else is text.
  const re = /(`+)([\s\S]*?)\1|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*/g;
  let last = 0;
  let m;
  while ((m = re.exec(text))) {
    if (m.index > last) parent.append(text.slice(last, m.index));
    if (m[1]) parent.append(h('code', null, m[2].trim() === '' ? m[2] : m[2].replace(/^ (.*) $/, '$1')));
    else if (m[3]) parent.append(h('strong', null, m[3]));
    else parent.append(h('em', null, m[4]));
    last = re.lastIndex;
  }
  if (last < text.length) parent.append(text.slice(last));
  return parent;
}

function renderMarkdown(md) {
  const root = h('div', { class: 'rules' });
  const lines = String(md).replace(/\r\n/g, '\n').split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === '') { i++; continue; }
    if (line.startsWith('```')) {
      const body = [];
      i++;
      while (i < lines.length && !lines[i].startsWith('```')) body.push(lines[i++]);
      i++;
      root.append(h('pre', null, highlightNodes(body.join('\n'))));
      continue;
    }
    const heading = line.match(/^(#{1,6})\s+(.*)$/);
    if (heading) { root.append(renderInline(heading[2], h('h5'))); i++; continue; }
    if (/^\s*\|/.test(line)) {
      const rows = [];
      while (i < lines.length && /^\s*\|/.test(lines[i])) rows.push(lines[i++]);
      const cells = (r) => r.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim());
      const table = h('table');
      const body = h('tbody');
      rows.forEach((r, ri) => {
        if (/^\s*\|?\s*:?-{2,}/.test(r) && !/[^|\s:-]/.test(r)) return;
        const tr = h('tr', null, cells(r).map((c) => renderInline(c, h(ri === 0 ? 'th' : 'td'))));
        if (ri === 0) table.append(h('thead', null, tr)); else body.append(tr);
      });
      table.append(body);
      root.append(table);
      continue;
    }
    if (/^\s*([-*+]|\d+[.)])\s+/.test(line)) {
      const ordered = /^\s*\d+[.)]\s+/.test(line);
      const list = h(ordered ? 'ol' : 'ul');
      let current = null;
      while (i < lines.length && lines[i].trim() !== '') {
        const item = lines[i].match(/^\s*(?:[-*+]|\d+[.)])\s+(.*)$/);
        if (item) { current = renderInline(item[1], h('li')); list.append(current); } else if (current) { current.append(' '); renderInline(lines[i].trim(), current); }
        i++;
      }
      root.append(list);
      continue;
    }
    if (/^ {4}/.test(line)) {
      const body = [];
      while (i < lines.length && (/^ {4}/.test(lines[i]) || lines[i].trim() === '')) body.push(lines[i++].slice(4));
      root.append(h('pre', null, body.join('\n').replace(/\n+$/, '')));
      continue;
    }
    const para = [];
    while (i < lines.length && lines[i].trim() !== '' && !/^\s*(\||```|[-*+]\s|\d+[.)]\s|#{1,6}\s)/.test(lines[i])) para.push(lines[i++].trim());
    if (para.length === 0) { para.push(lines[i++].trim()); }
    root.append(renderInline(para.join(' '), h('p')));
  }
  return root;
}

/**
 * The hints for a search: those answering a name (DUP, AVERAGE, LOOP, …) the query spells,
 * whole or — from three letters on — its beginning.
 */
function hintsFor(q) {
  const Q = q.toUpperCase();
  if (!Q) return [];
  return (state.hints || []).filter((x) => x.names.some((n) => n.toUpperCase() === Q || (Q.length >= 3 && n.toUpperCase().startsWith(Q))));
}

/** The Words (canonical names) a hint's text names. */
function wordsNamedIn(text) {
  const out = new Set();
  for (const m of text.matchAll(/[A-Z][A-Z0-9?-]*/g)) {
    const name = m[0].replace(/-+$/, '');
    if (state.words.has(name) || state.phrasebook.has(name)) out.add(name);
  }
  return out;
}

function wordMatches(w, q) {
  if (!q) return true;
  if (w.name.toLowerCase().includes(q)) return true;
  if ((w.aliases || []).some((a) => a.toLowerCase().includes(q))) return true;
  return (w.summary || '').toLowerCase().includes(q);
}

function buildDictionary() {
  const list = els.dictList;
  const fams = state.families.map((fam) => {
    const details = h('details', { class: 'family', open: true, dataset: { family: fam.id } },
      h('summary', null, familyLabel(fam.id), ' ', h('span', { class: 'count' }, `(${fam.words.length})`)),
      h('ul', { class: 'word-list' }, fam.words.map((w) => h('li', null,
        h('button', { type: 'button', class: 'word-btn', tabindex: '-1', dataset: { word: w.name }, title: w.summary || '' },
          h('span', { class: 'w-name' }, w.name),
          (w.aliases || []).length ? h('span', { class: 'w-alias' }, w.aliases.join(' ')) : null)))));
    return details;
  });
  list.replaceChildren(...fams, h('p', { class: 'muted dict-empty', hidden: true }, 'No Word matches.'));
  const first = list.querySelector('.word-btn');
  if (first) first.tabIndex = 0;
  list.addEventListener('click', (e) => {
    const b = e.target.closest('.word-btn');
    if (b) selectWord(b.dataset.word, true);
  });
  list.addEventListener('keydown', (e) => {
    const b = e.target.closest('.word-btn');
    if (!b) return;
    const visible = [...list.querySelectorAll('.word-btn')].filter((x) => x.offsetParent !== null);
    const i = visible.indexOf(b);
    let next = -1;
    if (e.key === 'ArrowDown' || e.key === 'ArrowRight') next = Math.min(visible.length - 1, i + 1);
    else if (e.key === 'ArrowUp' || e.key === 'ArrowLeft') next = Math.max(0, i - 1);
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = visible.length - 1;
    if (next >= 0 && visible[next]) {
      e.preventDefault();
      rovingFocus(visible[next]);
    }
  });
}

function rovingFocus(button) {
  for (const x of els.dictList.querySelectorAll('.word-btn[tabindex="0"]')) x.tabIndex = -1;
  button.tabIndex = 0;
  button.focus();
}

function filterDictionary() {
  const q = els.dictSearch.value.trim().toLowerCase();
  // A name from another language finds the language's hint and the Words it names.
  const hints = hintsFor(q);
  const named = new Set(hints.flatMap((x) => [...wordsNamedIn(x.text)]));
  els.dictHints.replaceChildren(...hints.map((x) => h('p', { class: 'dict-hint' },
    h('strong', null, x.names.join(', ')), ': ', renderInline(x.text, h('span')))));
  els.dictHints.hidden = hints.length === 0;
  let total = 0;
  let firstVisible = null;
  for (const fam of state.families) {
    const det = els.dictList.querySelector(`details[data-family="${CSS.escape(fam.id)}"]`);
    if (!det) continue;
    let count = 0;
    for (const w of fam.words) {
      const b = det.querySelector(`.word-btn[data-word="${CSS.escape(w.name)}"]`);
      const ok = wordMatches(w, q) || named.has(w.name.toUpperCase());
      b.parentElement.hidden = !ok;
      if (ok) { count++; if (!firstVisible) firstVisible = b; }
    }
    det.hidden = count === 0;
    if (q && count) det.open = true;
    // A filtered family says how many of its Words match.
    det.querySelector('summary .count').textContent = q ? `(${count} of ${fam.words.length})` : `(${fam.words.length})`;
    total += count;
  }
  els.dictList.querySelector('.dict-empty').hidden = total !== 0;
  // Keep one Word of the list in the tab order.
  const current = els.dictList.querySelector('.word-btn[tabindex="0"]');
  if ((!current || current.closest('li').hidden) && firstVisible) {
    if (current) current.tabIndex = -1;
    firstVisible.tabIndex = 0;
  }
  els.dictCount.textContent = q ? `${plural(total, 'Word matches', 'Words match')} “${q}”.${hints.length ? ` ${hints.map((x) => x.text).join(' ')}` : ''}` : '';
}

function findWord(name) {
  for (const fam of state.families) for (const w of fam.words) if (w.name === name) return w;
  return null;
}

function selectWord(name, focusDetail) {
  const w = findWord(name);
  if (!w) return;
  for (const b of els.dictList.querySelectorAll('.word-btn[aria-current]')) b.removeAttribute('aria-current');
  const btn = els.dictList.querySelector(`.word-btn[data-word="${CSS.escape(name)}"]`);
  if (btn) { btn.setAttribute('aria-current', 'true'); for (const x of els.dictList.querySelectorAll('.word-btn[tabindex="0"]')) x.tabIndex = -1; btn.tabIndex = 0; }
  const d = els.wordDetail;
  const parts = [];
  parts.push(h('h3', null, w.name, (w.aliases || []).length ? h('span', { class: 'aliases' }, ` (${w.aliases.length === 1 ? 'alias' : 'aliases'} ${w.aliases.join(' ')})`) : null));
  parts.push(h('p', { class: 'meta' }, w.phrasebook ? 'Phrasebook Word: a User Word defined for you when a program uses it'
    : `${familyLabel(w.family || '')} family${w.tier ? ` · ${w.tier} tier` : ''}`));
  if (w.summary) parts.push(renderInline(w.summary, h('p', { class: 'summary' })));
  const facts = [];
  if (w.syntax) facts.push(['Syntax', h('code', null, w.syntax)]);
  if (w.stackEffect) facts.push(['Stack effect', h('code', null, w.stackEffect)]);
  if (w.contract) facts.push(['Contract', w.phrasebook ? h('code', null, highlightNodes(w.contract)) : h('span', null, w.contract)]);
  if (Array.isArray(w.errors) && w.errors.length) facts.push(['Errors', h('span', null, w.errors.map((e, i) => [i ? ', ' : '', h('code', null, e)]))]);
  if (facts.length) parts.push(h('dl', { class: 'facts' }, facts.map(([k, v]) => [h('dt', null, k), h('dd', null, v)])));
  if (w.definition) parts.push(h('h4', null, 'Definition'), h('pre', { class: 'definition' }, highlightNodes(w.definition)));
  if (w.rules) parts.push(h('h4', null, 'Rules'), renderMarkdown(w.rules));
  if (Array.isArray(w.examples) && w.examples.length) {
    parts.push(h('h4', null, 'Examples'));
    parts.push(h('ul', { class: 'examples' }, w.examples.map((ex) => h('li', null,
      h('div', { class: 'ex-code' }, highlightNodes(ex.source), ex.expect !== undefined ? h('span', { class: 'ex-expect' }, `  →  ${ex.expect}`) : null),
      h('div', { class: 'ex-buttons' },
        h('button', { type: 'button', class: 'small example-run', 'aria-label': `Run example: ${ex.source}`, onclick: (e) => loadExample(ex.source, true, e.currentTarget) }, 'Run'),
        h('button', { type: 'button', class: 'small example-load', 'aria-label': `Load example into the editor: ${ex.source}`, onclick: (e) => loadExample(ex.source, false, e.currentTarget) }, 'Load')),
      Array.isArray(ex.prints) && ex.prints.length ? h('div', { class: 'ex-prints' }, `prints: ${ex.prints.join(' | ')}`) : null))));
  }
  d.replaceChildren(...parts);
  if (focusDetail) {
    d.focus({ preventScroll: true });
    // On a narrow screen the entry is below the list: bring it into view.
    if (window.matchMedia('(max-width: 700px)').matches) d.scrollIntoView({ block: 'start' });
  }
}

// ---------------------------------------------------------------- about, versions

function setupAbout(sharedProgram) {
  const dlg = els.about;
  $('about-close').addEventListener('click', () => dlg.close());
  $('about-try').addEventListener('click', () => {
    setSource('2 3 DIV 1 3 DIV ADD');
    dlg.close();
  });
  $('about-button').addEventListener('click', () => { if (!dlg.open) dlg.showModal(); });
  dlg.addEventListener('close', () => {
    storageSet(STORE_ABOUT, '1');
    // Back to where the work is: the editor (after the dialog's own focus restoring).
    window.setTimeout(() => els.source.focus(), 0);
  });
  dlg.addEventListener('click', (e) => {
    // A click on the backdrop (outside the dialog's box) closes it too.
    if (e.target !== dlg) return;
    const r = dlg.getBoundingClientRect();
    if (e.clientX < r.left || e.clientX > r.right || e.clientY < r.top || e.clientY > r.bottom) dlg.close();
  });
  if (!sharedProgram && storageGet(STORE_ABOUT) !== '1') dlg.showModal();
}

function updateVersions() {
  const info = state.info;
  if (!info) return;
  const parts = [`Ajisai engine ${info.engineVersion}`, `server ${info.serverVersion}`];
  const spec = info.specificationVersion || state.lastEnvelopeSpec;
  if (spec) parts.push(`specification ${spec}`);
  if (info.backend?.library) parts.push(`${info.backend.library} (${info.backend.origin || info.backend.kind})`);
  parts.push(`profile ${info.profile}`);
  els.versions.textContent = parts.join(' · ');
}

// ---------------------------------------------------------------- start

async function getJson(path) {
  const res = await fetch(path, { cache: 'no-store', credentials: 'same-origin' });
  const data = await readJson(res);
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}: ${data?.message || ''}`);
  return data;
}

function applyInfo(info) {
  state.info = info;
  const mine = (info.profiles || []).find((p) => p.name === info.profile) || (info.profiles || [])[0];
  state.playgroundLimits = mine?.limits || {};
  if (info.profile) {
    els.badge.textContent = info.profile;
    els.badge.setAttribute('aria-label', `Limit profile: ${info.profile}`);
  }
  renderLimitTables();
  updateVersions();
}

function applyWords(doc) {
  state.families = (doc.families || []).filter((f) => Array.isArray(f.words));
  state.hints = (Array.isArray(doc.hints) ? doc.hints : []).filter((x) => Array.isArray(x.names) && typeof x.text === 'string');
  state.words.clear();
  state.aliases.clear();
  state.phrasebook.clear();
  for (const fam of state.families) {
    for (const w of fam.words) {
      if (w.phrasebook || fam.id === 'phrasebook') state.phrasebook.set(w.name.toUpperCase(), w);
      else {
        state.words.set(w.name.toUpperCase(), w);
        for (const a of w.aliases || []) state.aliases.set(a, w);
      }
    }
  }
  buildCompletionItems();
  buildDictionary();
  filterDictionary();
  state.tokenizedText = null; // re-classify names
  renderEditor();
}

function applyExamples(doc) {
  state.examples = (doc.chapters || []).filter((c) => Array.isArray(c.examples) && c.examples.length);
  buildExamplesMenu();
}

async function main() {
  els = {
    source: $('source'), highlightCode: $('highlight-code'), gutterInner: $('gutter-inner'), editor: $('editor'), code: $('code'),
    completion: $('completion'), diagnostics: $('diagnostics'), run: $('run'), stop: $('stop'), share: $('share'), status: $('status'),
    stackBody: $('stack-body'), outputBody: $('output-body'), usageBody: $('usage-body'), results: $('results'),
    badge: $('badge'), badgeTooltip: $('badge-tooltip'), about: $('about'), examplesButton: $('examples-button'),
    examplesMenu: $('examples-menu'), dictSearch: $('dict-search'), dictList: $('dict-list'), wordDetail: $('word-detail'),
    dictCount: $('dict-count'), announcer: $('announcer'), versions: $('versions'),
    stackPanel: $('stack'), outputPanel: $('output'), usagePanel: $('usage'), staleNote: $('stale-note'),
    dictHints: $('dict-hints'),
  };
  els.runLabel = els.run.querySelector('.run-label');
  document.body.dataset.busy = '0';

  const shortcut = IS_MAC ? '⌘ Enter' : 'Ctrl+Enter';
  $('run-shortcut').textContent = shortcut;
  for (const k of document.querySelectorAll('.shortcut-text')) k.textContent = shortcut;
  $('editor-note').textContent = `${shortcut} runs it · Esc then Tab leaves the editor`;
  $('editor-help').textContent = `${shortcut} runs the program. Tab inserts two spaces and Shift+Tab outdents the line; to leave the editor with the keyboard, press Escape, then Tab. Names of Words are completed as you type: Tab accepts the selected name, Up and Down choose another (then Enter accepts it too), Escape closes the list; otherwise Enter starts a new line.`;

  // The program: the shared one in the fragment, else the last one, else a friendly one.
  const shared = fragmentSource();
  let initial = DEFAULT_SOURCE;
  if (typeof shared === 'string') initial = shared;
  else {
    const saved = storageGet(STORE_SOURCE);
    if (saved !== null && saved.trim() !== '') initial = saved;
  }
  els.source.value = initial;
  setupEditor();
  ensureTokens();
  renderEditor();
  if (shared === undefined) announce('The link’s program could not be read; the last program is shown instead.');

  document.querySelector('.skip-link').addEventListener('click', (e) => {
    e.preventDefault(); // the fragment holds the program: do not replace it with #source
    els.source.focus();
    els.source.scrollIntoView({ block: 'nearest' });
  });
  els.run.addEventListener('click', () => { if (!state.running) runProgram(); });
  els.stop.addEventListener('click', stopRun);
  els.share.addEventListener('click', copyLink);
  $('copy-fallback-close').addEventListener('click', () => { $('copy-fallback').hidden = true; els.share.focus(); });
  $('copy-url').addEventListener('keydown', (e) => { if (e.key === 'Escape') { $('copy-fallback').hidden = true; els.share.focus(); } });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && !e.altKey) {
      if (els.about.open) return;
      e.preventDefault();
      closeCompletion();
      runProgram();
    }
  }, true);
  window.addEventListener('hashchange', () => {
    const s = fragmentSource();
    if (typeof s === 'string' && s !== els.source.value) {
      els.source.value = s;
      onSourceChanged();
      announce('Loaded the program from the link.');
    }
  });
  els.dictSearch.addEventListener('input', filterDictionary);
  els.dictSearch.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown') {
      const b = [...els.dictList.querySelectorAll('.word-btn')].find((x) => x.offsetParent !== null);
      if (b) { e.preventDefault(); rovingFocus(b); }
    }
  });
  setupBadge();
  setupMenu();
  setupAbout(typeof shared === 'string');
  updateFragment(); // the address is a permalink from the start

  const [info, words, examples] = await Promise.allSettled([getJson('/api/info'), getJson('/api/words'), getJson('/api/examples')]);
  const problems = [];
  if (info.status === 'fulfilled') applyInfo(info.value); else { problems.push('the limits'); renderLimitTables(); }
  if (words.status === 'fulfilled') applyWords(words.value); else { problems.push('the dictionary'); els.dictList.replaceChildren(h('p', { class: 'muted' }, 'The dictionary could not be loaded.')); }
  if (examples.status === 'fulfilled') applyExamples(examples.value); else problems.push('the examples');
  if (problems.length) {
    const banner = $('load-error');
    banner.textContent = `The page could not load ${problems.join(', ')} from the Playground server (is it still running?). Reload the page to try again; running programs may still work.`;
    banner.hidden = false;
  }
  scheduleCheck();
  document.body.dataset.ready = problems.length ? 'partial' : '1';
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', main);
else main();
