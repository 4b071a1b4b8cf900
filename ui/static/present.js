// Present mode (js_on_load of the top bar's teach buttons, with tour.js and a11y.js): the overview one stage
// at a time, for a projector. A layer, not a view: the stage lives here and is drawn as classes on the
// overview's cards (p-now: the stage's own cards; p-in: the cards it is computed from; p-done: earlier ones) after
// every re-render, so editing still works and the stage updates live.
// The page's title bar, tabs and toolbar step aside (C brings the toolbar back over the cards' room), and the
// stage's cards and their inputs are fitted into the room above the panel: the largest numbers (up to 40 px times
// the text size) at which every one of their cells is on screen, not under the panel and not scrolled inside its
// card. The fit runs again after every re-render, resize, text size or toolbar change, so nothing slides away.
// Keys: → ← ↓ ↑, Space, PageDown/PageUp step; C the toolbar; F full screen; + and − the text size; Escape leaves
// (an open cell editor takes its own Escape). ?present=1 (or a stage's key or number) starts it; Present resumes
// at the stage last shown.
import * as page from './page.js';
import { stepper } from './stepper.js';

let started = false;  // (one page, one start: a second hook that imports this finds it running)

const KEY = 'pg-present-stage';
const SAY = 'pg-present-words';  // the stage's words shown (W), remembered by the browser
const CAP = 40;  // px of the current numbers at text size 1 (the Projector setting, 1.5: 60 px)
const INPUT = 0.6;  // the inputs' numbers beside the current ones, growing into the room left up to
const INPUT_MAX = 0.7;  // (so the current numbers stay the largest, 1.4× the inputs', unless the floor says more)
const body = document.body;
// present mode's state (one page, one present mode): on or not, the stage shown (its index in stages()), the
// stage whose words are shown, what the last fit was for; STAGES, panel and kv are set by mount
// (part: the Q, K, V stage's projection shown, when it shows one: onePart; fitting, alone: see fit)
const P = { on: false, at: 0, shownKey: '', fitted: '', STAGES: [], panel: null, kv: null, root: null,
  part: 'q', split: false, splitFor: '', fitting: true, alone: '', sized: null, roomBox: null };
const $ = (sel) => P.panel.querySelector(sel);

export function mount({ element }) {
  const root = element.querySelector('.teach') || document.querySelector('.teach');
  if (!root || started) return;
  started = true;
  P.root = root;
  P.STAGES = JSON.parse(root.dataset.stages);
  P.panel = makePanel();
  P.kv = stepper();  // the KV-cache stage steps token t before it steps on
  watchPage();
  wire(root);
  keys({ step, stop, tools, full, size, say, head: nextHead, part: showPart });
  page.provide('present', { start, stop, goto, stage: () => (P.on ? stages()[P.at].key : null) });
  const asked = new URLSearchParams(location.search).get('present');
  const askedT = parseInt(new URLSearchParams(location.search).get('t'), 10);  // the KV-cache stage's token
  if (askedT > 0) P.kv.set(askedT - 1);
  if (asked) {
    const wait = setInterval(() => {  // once the first overview is drawn
      if (document.querySelector('#overview [data-card=output] td')) { clearInterval(wait); if (!P.on) start(asked === '1' ? undefined : asked); }  // (a room may have started it)
    }, 200);
  }
}

function makePanel() {
  const panel = document.createElement('section');
  panel.id = 'present-panel';
  panel.tabIndex = -1;
  panel.setAttribute('aria-label', 'present mode');
  panel.hidden = true;
  // one line of the count, title and formula; one of the live numbers beside the buttons; the words (W) on demand,
  // over the top of the cards' room (present.css), remembered
  panel.innerHTML = `<div class="pp-text"><div class="pp-head"><span class="pp-count"></span>
    <h2 class="pp-title"></h2><span class="pp-formula"></span></div><p class="pp-words"></p></div>
    <div class="pp-row"><p class="pp-live" aria-live="polite"></p><div class="pp-nav">
    <button type="button" class="pp-prev" aria-label="previous stage" title="previous stage (←, PageUp)">←</button>
    <button type="button" class="pp-next" aria-label="next stage" title="next stage (→, Space, PageDown)">→</button>
    <button type="button" class="pp-ts" data-ts="-1" aria-label="smaller text" title="smaller text (−)">A−</button>
    <button type="button" class="pp-ts" data-ts="1" aria-label="larger text" title="larger text (+)">A+</button>
    <button type="button" class="pp-say" aria-pressed="false" aria-label="words"
      title="the stage's words, over the cards (W)">Words</button>
    <button type="button" class="pp-tools" aria-pressed="false" aria-label="controls"
      title="the toolbar's controls (C)">⚙</button>
    <button type="button" class="pp-full" aria-label="full screen" title="full screen (F)">Full</button>
    <button type="button" class="pp-exit" aria-label="leave present mode" title="leave (Esc)">✕</button></div></div>`;
  document.body.appendChild(panel);
  return panel;
}

// the stages this state has: "heads combined" only when there are several heads or W_o; today's (present.py
// MORE_STAGES, "only") only while their cards are drawn (RoPE on, kv heads < heads, a window, decoding, heads > 1)
const named = (names) => names.flatMap((n) => Array.from(document.querySelectorAll(`#bench [data-card="${n}"]`)));
const stages = () => P.STAGES.filter((st) => (st.only ? named(st.cards).length > 0
  : st.key !== 'combine' || document.querySelector('#overview [data-card=combine]')));
const cardsOf = (st) => named(st.cards);
// a stage's words, with a sentence for each variant of today's attention that is on (present.VARIANT_WORDS)
const variantOn = (when) => (when === 'window'
  ? opSpans().some((t) => /window/.test(t))
  : !!document.querySelector(`#bench [data-card="${when}"]`));
const wordsOf = (st) => [st.words, ...(st.extra || []).filter(([when]) => variantOn(when)).map(([, w]) => w)]
  .join(' ');
const opSpans = () => Array.from(document.querySelectorAll('#overview .arrow.op span')).map((s) => s.textContent);

const titleOf = (card) => named([card])[0]?.querySelector('.card-title')?.textContent.trim() || '';
function live(key) {  // the live numbers of this stage, read from what the overview shows now
  const [scale, mask, norm] = opSpans();
  const shape = (n) => document.querySelector(`#overview [data-card="${n}"] .shape`)?.textContent || '';
  const head = document.querySelector('#overview [data-card=q] .shape + .shape')?.textContent || '';
  const h = headShown().of > 1 ? ' H' : '';  // (the keys that work here, said on screen: H the next head)
  const say = {
    inputs: `X is ${shape('x') || document.querySelector('#inputs [data-card=x] .shape')?.textContent || ''}`,
    qkv: P.split ? `${P.part.toUpperCase()} ${head} · keys Q K V${h}`  // (its shape is on its card, beside)
      : `Q, K, V: ${shape('q')}, ${shape('k')}, ${shape('v')} ${head}${h && ' · key H'}`,
    scores: `scores: ${shape('scores')}`,
    scaled: `here: ${scale || ''}`,
    masked: `here: ${mask || ''}`,
    weights: `here: ${norm || ''}`,
    output: `output: ${shape('output')}`,
    combine: `combined: ${shape('combine')}`,
    kv_cache: `token t = ${P.kv.at() + 1} of ${P.kv.count()}`,
    heads: `${named(['head_weights']).length} heads`,
    // today's stages, from their cards' titles (ui/render/stages.py): the pair turned and its θ; the heads' groups;
    // the window's width
    rope: titleOf('rope_pair').replace(/^RoPE, head \d+, (pair \([^)]*\)): θ = (\S+)−2·0\/\d+ = (\S+) rad.*$/,
      '$1: θ = $3 rad (base $2)'),  // (the title's superscript read as text would say 10000−2·0/2)
    kv_heads: titleOf('kv_map').replace(/ \(1 = reads\)$/, ''),
    window: titleOf('window_keep').replace(/: 1 = seen, 0 = hidden$/, ''),
  };
  return say[key] || '';
}

// ---- the fit: the stage's cards and their inputs as large as the room above the panel allows ----------------
const shownCards = () => Array.from(document.querySelectorAll('#bench .card.p-now, #bench .card.p-in'))
  .filter((c) => c.getClientRects().length);
const toolbar = () => document.getElementById('toolbar');
function room() {  // what must be on screen (in page coordinates) and the height it has
  const parts = shownCards();
  if (body.classList.contains('pp-tools') && toolbar()) parts.unshift(toolbar());
  const msg = document.querySelector('#message .msg-error, #message .msg-warn');
  if (msg) parts.unshift(msg);
  // in a lesson room, its bar over the stage: a student's question and answer, a teacher's Ask, Reveal and Close (the
  // fit scrolled them off the top, and a phone following the teacher never saw a question was waiting)
  const inRoom = roomBox();
  if (inRoom) parts.unshift(inRoom);
  // and the room's status line above it: "Teaching room CODE" (read by a latecomer), "Following the teacher", "The
  // teacher has closed the room" were scrolled 6-56 px above every screen
  const said = inRoom && document.querySelector('#room .room-status');
  if (said?.textContent.trim()) parts.unshift(said);
  let top = Infinity, bottom = -Infinity, left = Infinity, right = -Infinity;
  for (const e of parts) {
    const r = e.getBoundingClientRect();
    top = Math.min(top, r.top); bottom = Math.max(bottom, r.bottom);
    left = Math.min(left, r.left); right = Math.max(right, r.right);
  }
  return { top: top + scrollY, height: bottom - top, left, right, cards: parts };
}
const roomBox = () => document.querySelector('#room .room-student:not([hidden]), #room .room-teacher:not([hidden])');
const panelTop = () => P.panel.getBoundingClientRect().top;
// the stage's words (W), when shown, lie over the top of the screen: the cards' room starts under them
const inset = () => (body.classList.contains('pp-say') ? $('.pp-words').getBoundingClientRect().bottom : 0);
// a lesson's answers chart (the teacher's, room.css: fixed at the screen's lower right, over the page) when shown
function chartBox() {
  const c = document.getElementById('room-plot');
  if (!c || body.classList.contains('room-chart-off')) return null;
  const r = c.getBoundingClientRect();
  return r.width > 0 && r.height > 0 ? r : null;
}
// The chart (fixed above the panel, room.css) is made smaller, to half its size at most, so that it starts under the
// room's line once the fit has scrolled that line to the top: at 1280×720 with the Projector a question's line with its
// note of changed numbers ran 340 px down the screen and the chart's 320 px rose over its end; fits() refuses a chart
// over the line at every size, so the stage's numbers went to 6 px and the line was scrolled off the top
const ZOOM = '--pp-chart-zoom';
function chartUnderLine() {
  const b = chartBox(), box = roomBox(), was = body.style.getPropertyValue(ZOOM);
  let zoom = '';
  if (b && box) {
    const height = b.height / (parseFloat(was) || 1);  // (its own size: the box measured is the one zoomed now)
    const foot = box.getBoundingClientRect().bottom + scrollY - room().top + inset() + 4;  // (after fit's scroll)
    const free = panelTop() - foot - 12;
    if (free < height) zoom = Math.max(0.5, free / height).toFixed(3);
  }
  if (zoom !== was) { if (zoom) body.style.setProperty(ZOOM, zoom); else body.style.removeProperty(ZOOM); }
}
// whether the chart lies over anything the stage shows: a card's title or tables (a card's own box may run on,
// empty, under it), the room's bar and line, the toolbar, a message (Projector at 1280×720: head 2's weights lay
// 75% under the chart, every one of its numbers' centres)
function underChart(parts) {
  const b = chartBox();
  if (!b) return false;
  const over = (e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.left < b.right && r.right > b.left && r.top < b.bottom && r.bottom > b.top;
  };
  return parts.some((p) => (p.matches('.card') ? Array.from(p.querySelectorAll('.card-title, table')) : [p]).some(over));
}
function fits() {
  const r = room();
  if (r.height > panelTop() - inset() - 8 || r.left < 0 || r.right > document.documentElement.clientWidth) return false;
  if (underChart(r.cards)) return false;
  return r.cards.every((c) => Array.from(c.querySelectorAll('.nt-wrap, .grid-wrap'))
    .every((w) => w.scrollWidth <= w.clientWidth + 1 && w.scrollHeight <= w.clientHeight + 1));
}
// the inputs at ratio × the current numbers, never under present mode's text size (21.5 px × the text size: 32.25 px
// with the Projector) unless the current numbers are themselves smaller
const FLOOR = 21.5;
const setSize = (px, ratio = INPUT) => {
  body.style.setProperty('--p-now', `${px.toFixed(2)}px`);
  body.style.setProperty('--p-in', `${Math.max(px * ratio, Math.min(px, FLOOR * ts())).toFixed(2)}px`);
};
// the largest value in [lo, hi] for which ok() holds, else lo (and ok(lo) is the last one asked): each ok() lays
// the page out, 0.2 s at T=64, where nothing fits even at lo, so lo is asked second
function largest(ok, lo, hi) {
  if (ok(hi)) return hi;
  if (!ok(lo)) return lo;
  while (hi - lo > 0.01 * hi) {
    const mid = (lo + hi) / 2;
    if (ok(mid)) lo = mid; else hi = mid;
  }
  ok(lo);
  return lo;
}
const ts = () => parseFloat(getComputedStyle(document.documentElement).getPropertyValue('--ts')) || 1;
const chartKey = (b = chartBox()) => (b ? `${Math.round(b.left)},${Math.round(b.top)}` : '');
const fitKey = () => [P.at, shownCards().map((c) => `${c.dataset.card}${c.querySelectorAll('td').length}`).join(),
  innerWidth, innerHeight, ts(), body.classList.contains('pp-tools'), panelTop(), inset(),
  roomBox()?.offsetHeight, chartKey()].join('|');
function sized() {  // the current numbers first, with the inputs at 0.6 of them; then the inputs as large as the
  const px = largest((v) => { setSize(v); return fits(); }, 6, CAP * ts());  // room left allows
  largest((r) => { setSize(px, r); return fits(); }, INPUT, INPUT_MAX);
  return px;
}
// The heads combined stage is laid out two ways, and the fit keeps the one with the larger numbers: the heads'
// output cards with their titles on one line (on a short row the combined card then goes under them: statquest-mha2
// at 1280×720, 57.9 px) or wrapped over their tables (present.css pp-tight), so the combined card keeps beside them
// the room they leave (llama-style's five rows at 1280×720: 45.2 px, where one line left it 40.6 px)
const TIGHT = 'pp-tight';
// With a lesson's answers chart shown, each layout is also tried with the bench ending left of the chart
// (present.css pp-chart: its width kept free on the right), and the larger numbers win: at 1920×1080 the chart
// sits in room the cards leave, at 1280×720 with the Projector they end beside it (36 px, not under it at 56)
const CHART = 'pp-chart';
const aloneKey = () => [stages()[P.at]?.key, innerWidth, innerHeight, ts(), P.part].join('|');
// The fit runs again when what it was for changed, or the stage no longer fits at the size it found; a stage that
// did not fit even at its smallest size (X and the W's at T=64) is not fitted again for the same key (each time
// took 13 layouts of the whole page, 3 s at T=64, and the page's redraws asked for it three times: 10 s to start)
function fit() {
  body.style.setProperty('--pp-inset', `${inset()}px`);  // (room above the cards for the words: present.css)
  body.style.setProperty('--pp-panel', `${Math.max(0, innerHeight - panelTop())}px`);  // (a room's chart sits above it)
  const box = roomBox();  // (joined, or a question's line grown, while presenting: fitted again)
  if (box && box !== P.roomBox) { P.roomBox = box; P.sized?.observe(box); }
  const bar = document.getElementById('room-bar');  // (see watchPage)
  if (bar && bar !== P.bar) { P.bar = bar; P.bars?.observe(bar, { childList: true, subtree: true, attributes: true }); }
  chartUnderLine();
  const chart = chartBox();
  P.chartSeen = chartKey(chart);
  body.style.setProperty('--pp-chart', chart ? `${Math.ceil(innerWidth - chart.left + 20)}px` : '0px');
  const key = fitKey();
  if (key !== P.fitted || (P.fitting && !fits())) {
    P.fitted = key;
    const layouts = [[]];
    if (body.dataset.presentStage === 'combine') layouts.push([TIGHT]);
    if (chart) layouts.push(...layouts.map((l) => [...l, CHART]));
    const layOut = (l) => { body.classList.remove(TIGHT, CHART); body.classList.add(...l); return sized(); };
    let best = null;
    for (const l of layouts) {
      const px = layOut(l);
      if (!best || px > best.px + 0.01) best = { l, px };
    }
    if (best.l !== layouts[layouts.length - 1]) layOut(best.l);
    P.fitting = fits();  // (whether the size found fits: else there is none, and the next fit for this key keeps it)
    if (!P.fitting && P.alone !== aloneKey() && document.querySelector('#bench .card.p-in')) {
      // with its inputs it fits at no size (Q at T=64 beside X and a 512-row W_q: 4-6 px): the stage's own cards
      // alone, as large as they fit, until the stage, screen, text size or projection shown changes
      P.alone = aloneKey();
      document.querySelectorAll('#bench .card.p-in').forEach((c) => c.classList.remove('p-in'));
      P.fitted = fitKey();
      sized();
      P.fitting = fits();
    }
  }
  // a stage that fits at no size shows its own cards first (the Q, K, V stage at T=64: Q lay under the panel)
  const own = P.fitting ? [] : shownCards().filter((c) => c.classList.contains('p-now'));
  const top = own.length ? Math.min(...own.map((c) => c.getBoundingClientRect().top + scrollY)) : room().top;
  scrollTo({ top: Math.max(0, top - inset() - 4), left: 0, behavior: 'instant' });
}

function mark(list) {
  const now = cardsOf(list[P.at]);
  const given = named(list[P.at].uses || []);  // (none drawn: the cards it shows instead, present.py INSTEAD)
  const uses = given.length ? given : named(list[P.at].instead || []);
  document.querySelectorAll('#bench .p-now, #bench .p-done, #bench .p-in')
    .forEach((c) => c.classList.remove('p-now', 'p-done', 'p-in'));
  list.forEach((st, i) => { if (i < P.at) cardsOf(st).forEach((c) => c.classList.add('p-done')); });
  if (P.alone !== aloneKey()) uses.forEach((c) => c.classList.add('p-in'));  // (see fit: alone)
  now.forEach((c) => { c.classList.remove('p-done'); c.classList.add('p-now'); });
}

// ---- the Q, K, V stage: one head's W rows, the W's numbers rounded (H steps the head shown) ----------------
// The W's of a split projection (d_model×d_model, split into heads after projecting) hold every head's rows: at
// the Q, K, V stage only the rows of the head shown (W_q) and of the kv head it reads (W_k, W_v) show, and the W's
// numbers show with two decimals, as X's (present.css: data-shown; the cell itself keeps the exact value, which its
// editor shows, one click away)
const headShown = () => {
  const title = (n) => document.querySelector(`#overview [data-card="${n}"] .card-title`)?.textContent || '';
  const [, h = '1', of = '1'] = /head (\d+) of (\d+)/.exec(title('q')) || [];
  const [, g = h] = /kv head (\d+)/.exec(title('k')) || [];
  return { h: h - 1, of: +of, g: g - 1, E: document.querySelectorAll('#overview table[data-name=q] tr:first-child th')
    .length };
};
function oneHead(on) {
  document.querySelectorAll('#bench .p-off').forEach((tr) => tr.classList.remove('p-off'));
  document.querySelectorAll('#bench td[data-shown]').forEach((td) => delete td.dataset.shown);
  if (!on) return;
  const { h, g, E } = headShown();
  for (const name of ['W_q', 'W_k', 'W_v']) {
    const rows = Array.from(document.querySelectorAll(`#bench .p-in table[data-name=${name}] tr`)).slice(1);
    const at = name === 'W_q' ? h : g;  // (rows = heads × E: a split projection's)
    if (E && rows.length > E && rows.length % E === 0) {
      rows.forEach((tr, i) => { if (Math.floor(i / E) !== at) tr.classList.add('p-off'); });
    }
    for (const tr of rows) {
      for (const td of tr.querySelectorAll('td[data-r]')) {
        const v = Number(td.textContent);
        if (td.textContent && Number.isFinite(v)) td.dataset.shown = v.toFixed(2).replace(/^-0\.00$/, '0.00');
      }
    }
  }
}
// When the whole Q, K, V stage would leave its numbers under present mode's text size (32.25 px with the Projector:
// llama-style at 1280×720, X and three W's wider than the screen), it shows one projection at a time, in one row as
// its formula reads: X, W_q and Q (X·W_q = Q); Q, K and V (the keys) show the other two. Decided once per screen,
// text size and cards (the fit of the whole stage, run once), so the cards do not flip between the two.
const SPLIT = { q: ['q', 'W_q', 'b_q'], k: ['k', 'W_k', 'b_k', 'x_k'], v: ['v', 'W_v', 'b_v', 'x_v'] };
function onePart() {
  const whole = fitKey();
  if (P.splitFor !== whole) {
    P.splitFor = whole;
    P.fitted = '';
    fit();
    P.split = parseFloat(body.style.getPropertyValue('--p-now')) < FLOOR * ts() - 0.01;
  }
  if (!P.split) return;
  for (const [part, names] of Object.entries(SPLIT)) {
    if (part === P.part) continue;
    named(names).forEach((c) => c.classList.remove('p-now', 'p-in'));
  }
  // cross-attention's X is the queries' source only ("x_q: queries"): K's and V's projections show their own (K beside
  // x_q, a lecturer's walk found, read as though x_q gave the keys)
  if (P.part !== 'q' && named(['x_k']).length) named(['x']).forEach((c) => c.classList.remove('p-now', 'p-in'));
}
function showPart(part) {
  if (!P.split || stages()[P.at]?.key !== 'qkv') return false;
  P.part = part;
  apply();
  return true;
}
// H: the next head shown (the toolbar's box, applied as its Enter applies it: the page redraws, the fit follows).
// From the box's head, not the cards': a second H pressed before the redraw went from the head still drawn, so H H
// moved one head, not two. (The box holds the head asked for last, by H or typed; the cards, the head drawn.)
function nextHead() {
  const { h, of } = headShown();
  const box = document.querySelector('#tb-view-head input');
  if (!box || of < 2) return;
  const asked = Number(box.value);
  const from = Number.isInteger(asked) && asked >= 1 && asked <= of ? asked : h + 1;  // (1-based, as the box)
  box.value = String((from % of) + 1);
  box.dispatchEvent(new Event('input', { bubbles: true }));
  box.dispatchEvent(new KeyboardEvent('keypress', { key: 'Enter', bubbles: true }));
  box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
}

function apply() {
  if (!P.on) return;
  const list = stages();
  P.at = Math.max(0, Math.min(P.at, list.length - 1));
  mark(list);
  const st = list[P.at];
  body.dataset.presentStage = st.key;  // (first: present.css keys the stage's own rules on it, which the fit measures)
  oneHead(st.key === 'qkv');
  if (st.key === 'qkv') onePart(); else P.split = false;
  body.classList.toggle('pp-part', P.split);  // (present.css: the projection's title wraps, so the row holds it)
  P.kv.show();
  const t = st.key === 'kv_cache' ? P.kv.at() + 1 : null;  // (1-based, as the card says it; a room follows it)
  if (t) body.dataset.presentT = t; else delete body.dataset.presentT;
  if (P.split) body.dataset.presentPart = P.part; else delete body.dataset.presentPart;  // (a room follows it too)
  sessionStorage.setItem(KEY, st.key);
  const words = wordsOf(st);  // (a variant turned on or off at this stage changes its words too)
  const formula = (st.formulas || []).find(([when]) => variantOn(when))?.[1] || st.formula;  // (and its formula)
  // the count follows the stages the state has (a late joiner's page counted its own state's 7 stages, not the
  // room's 9, until the lecturer stepped: the stage and its words were the same)
  const count = `${P.at + 1} / ${list.length}`;
  if ($('.pp-count').textContent !== count) $('.pp-count').textContent = count;
  if (P.shownKey !== st.key + words + formula) {  // the text changes with the stage only: focus and reading stay
    P.shownKey = st.key + words + formula;
    $('.pp-title').textContent = st.title;
    $('.pp-formula').innerHTML = formula;
    const wf = Object.assign(document.createElement('span'), { className: 'pp-wf', innerHTML: formula });
    $('.pp-words').replaceChildren(wf, words);  // (the formula: on a phone, with the words only)
  }
  $('.pp-live').textContent = live(st.key);
  P.panel.classList.toggle('pp-narrow', innerWidth <= 760);  // (present.css: a phone's panel)
  $('.pp-prev').disabled = P.at === 0;
  $('.pp-next').disabled = P.at === list.length - 1 && (st.key !== 'kv_cache' || P.kv.at() === P.kv.count() - 1);
  fit();
  document.dispatchEvent(new CustomEvent('pg-present', { detail: { stage: st.key, t } }));
}

let queued = false;
const later = () => {  // every re-render of the bench, a resize, a font or text size change: at the next frame
  if (!P.on || queued) return;
  queued = true;
  requestAnimationFrame(() => { queued = false; apply(); });
};
const observer = new MutationObserver(later);
const bench = () => document.getElementById('bench');
function watchPage() {
  // a live edit redraws the overview in place (attributes, not nodes): watch.js says so
  document.addEventListener('pg-updated', later);
  document.addEventListener('pg-ts', later);
  addEventListener('resize', later);
  const sized = new ResizeObserver(later);  // the panel's height (a lesson's bar put into it), the words' height,
  P.sized = sized;  // (and a lesson room's line: fit)
  sized.observe(P.panel);
  sized.observe($('.pp-words'));
  // a lesson's answers chart shown (gradio draws its block anew as it is made visible), moved or gone, and its show /
  // hide button (room.js: body.room-chart-off): fitted again (fitKey holds where the chart is). Only then: the room's
  // line changes as students answer, and room.js writes its head notes again on any change of the page's, so a fit
  // per change of the bar could drive the fit every frame
  P.bars = new MutationObserver(() => { if (chartKey() !== P.chartSeen) later(); });
  // (and room.js's room-asked and room-chart-stale: the chart shown only with a question, and its own figure)
  const CHARTS = ['room-chart-off', 'room-asked', 'room-chart-stale'];
  const says = (cls) => CHARTS.map((c) => cls.includes(c)).join();
  new MutationObserver((changes) => {
    const now = says(Array.from(body.classList));
    if (changes.some((c) => says((c.oldValue || '').split(' ')) !== now)) later();
  }).observe(body, { attributes: true, attributeFilter: ['class'], attributeOldValue: true });
}

const stageIndex = (want) => {
  const i = stages().findIndex((st) => st.key === want);
  return i >= 0 ? i : Math.max(0, (parseInt(want, 10) || 1) - 1);
};
function start(stage) {
  document.querySelector('#tabs button[role=tab]')?.click();  // the workbench's tab (the first)
  P.on = true;
  P.at = stageIndex(stage ?? sessionStorage.getItem(KEY) ?? 'inputs');
  P.shownKey = '';
  P.fitted = '';
  P.panel.hidden = false;
  body.classList.add('presenting');
  say(localStorage.getItem(SAY) === '1');
  if (bench()) observer.observe(bench(), { childList: true, subtree: true });
  apply();
  $('.pp-next').focus({ preventScroll: true });
}

function stop() {
  pending?.disconnect();  // (a stage asked for and not yet drawn: not started after this)
  pending = null;
  P.on = false;
  observer.disconnect();
  P.panel.hidden = true;
  body.classList.remove('presenting', 'pp-tools', 'pp-say', 'pp-part', TIGHT, CHART);
  oneHead(false);
  delete body.dataset.presentStage;
  delete body.dataset.presentT;
  delete body.dataset.presentPart;
  document.querySelectorAll('#bench .p-now, #bench .p-done, #bench .p-in')
    .forEach((c) => c.classList.remove('p-now', 'p-done', 'p-in'));
  if (document.fullscreenElement) document.exitFullscreen?.();
  document.dispatchEvent(new CustomEvent('pg-present', { detail: { stage: null } }));
  document.getElementById('present-btn')?.focus();
  page.fit(true);
}

const step = (d) => {
  const list = stages();
  if (list[P.at]?.key === 'kv_cache' && P.kv.move(d)) { apply(); return; }  // the next token first
  P.at = Math.max(0, Math.min(P.at + d, list.length - 1));
  if (list[P.at]?.key === 'kv_cache') P.kv.enter(d);
  P.part = 'q';  // (the Q, K, V stage, when it shows one projection at a time, starts at Q)
  P.shownKey = '';
  apply();
};
const tools = () => {
  const shown = body.classList.toggle('pp-tools');
  $('.pp-tools').setAttribute('aria-pressed', String(shown));
  later();
};
// the stage's words over the top of the cards' room, or not (shown: as asked, else the other way); remembered
const say = (shown) => {
  const on = body.classList.toggle('pp-say', typeof shown === 'boolean' ? shown : undefined);
  localStorage.setItem(SAY, on ? '1' : '0');
  $('.pp-say').setAttribute('aria-pressed', String(on));
  later();
};
const full = () => (document.fullscreenElement ? document.exitFullscreen() : document.documentElement
  .requestFullscreen?.().catch(() => {}));
const size = (d) => document.dispatchEvent(new CustomEvent('pg-ts-step', { detail: d }));
// goto(key, t, part): that stage (at the KV-cache stage, token t; at the Q, K, V stage, the projection part shown when
// it shows one at a time), starting present mode if needed (a lesson room's followers: room.js)
// A stage this state does not have yet is asked again as the bench redraws, for PENDING_MS: a late joiner's page
// at "heads combined" was still drawing the room's state of several heads, had no such stage, and stayed out of
// present mode until the lecturer's next step.
const PENDING_MS = 15000;
let pending = null;
const goto = (key, t, part) => {
  pending?.disconnect();
  pending = null;
  if (!key) return;  // (goto(null): only the stage waited for is given up, as a room's teacher left present mode)
  const i = stages().findIndex((st) => st.key === key);
  if (i < 0) {
    const again = new MutationObserver(() => { if (stages().some((st) => st.key === key)) goto(key, t, part); });
    again.observe(bench() || body, { childList: true, subtree: true });
    pending = again;
    setTimeout(() => { if (pending === again) { again.disconnect(); pending = null; } }, PENDING_MS);
    return;
  }
  const token = key === 'kv_cache' ? parseInt(t, 10) - 1 : NaN;
  const moved = token >= 0 && token !== P.kv.at();
  if (moved) P.kv.set(token);
  const turned = key === 'qkv' && Object.hasOwn(SPLIT, String(part)) && part !== P.part;
  if (turned) P.part = part;
  if (!P.on) start(key); else if (i !== P.at || moved || turned) { P.at = i; P.shownKey = ''; apply(); }
};

function wire(root) {  // the panel's buttons, the Present button, the KV-cache stepper's own buttons
  document.addEventListener('click', (e) => {  // the stepper's own buttons (then the stage keys work again)
    const b = P.on && e.target.closest && e.target.closest('#bench [data-card=kv_step] .st-nav button');
    if (!b || b.disabled) return;
    if (P.kv.move(b.classList.contains('kv-prev') ? -1 : 1)) apply();
    P.panel.focus({ preventScroll: true });
  });
  $('.pp-prev').addEventListener('click', () => step(-1));
  $('.pp-next').addEventListener('click', () => step(1));
  $('.pp-exit').addEventListener('click', stop);
  $('.pp-tools').addEventListener('click', tools);
  $('.pp-say').addEventListener('click', () => say());
  $('.pp-full').addEventListener('click', full);
  P.panel.querySelectorAll('.pp-ts').forEach((b) => b.addEventListener('click', () => size(+b.dataset.ts)));
  root.querySelector('#present-btn').addEventListener('click', () => (P.on ? stop() : start()));
  document.addEventListener('fullscreenchange', later);
}

// keys belong to whatever is being edited or chosen; elsewhere they step through the stages. An open cell
// editor's Escape and Enter are the grid's (it takes them first and prevents their default): Escape puts the
// value back and present mode stays; after the Enter the focus comes back to the panel, so the stage keys work.
function keys(act) {
  const busy = (t) => t.closest && t.closest('input, textarea, select, [contenteditable], table.grid, '
    + '[role=listbox], button:not(#present-panel button), a[href], #explain, #tour-pop');
  const inGrid = (e) => e.composedPath().some((n) => n.matches?.('table.grid'));
  document.addEventListener('keydown', (e) => {
    if (!P.on || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.defaultPrevented) {
      if (e.key === 'Enter' && inGrid(e) && e.target.tagName === 'INPUT') {
        requestAnimationFrame(() => P.panel.focus({ preventScroll: true }));
      }
      return;
    }
    if (e.key === 'Escape') {
      if (e.target.matches && e.target.matches('table.grid td input')) return;  // the grid puts the value back
      if (document.querySelector('#explain:not(.closed) .ex-title')) return;  // explain.js closes its card (and
      // marks the Escape spent, defaultPrevented above, when its listener runs first)
      e.preventDefault();
      act.stop();
      return;
    }
    if (busy(e.target) || (e.key === ' ' && e.target.closest && e.target.closest('button'))) return;
    const own = { c: act.tools, C: act.tools, w: act.say, W: act.say, f: act.full, F: act.full,
      h: act.head, H: act.head, '+': () => act.size(1), '=': () => act.size(1), '-': () => act.size(-1) }[e.key];
    if (own) { e.preventDefault(); own(); return; }
    if (/^[qkvQKV]$/.test(e.key) && act.part(e.key.toLowerCase())) { e.preventDefault(); return; }
    const d = { ArrowRight: 1, ArrowDown: 1, PageDown: 1, ' ': 1, ArrowLeft: -1, ArrowUp: -1, PageUp: -1 }[e.key];
    if (d === undefined) return;
    e.preventDefault();
    act.step(e.shiftKey && e.key === ' ' ? -1 : d);
  });
}
