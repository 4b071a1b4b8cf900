// The guided tour (js_on_load of the top bar's teach buttons, with present.js): a few steps over the preset that
// is loaded. Each step outlines a real element, says what to look at and often asks for one small action; it
// notices when the action is done (it reads the page: the grids, the overview, the explanation) and moves on.
// A step's texts are templates (ui/present.py's Step): when it begins they are filled from the page as it is
// then (its table names, tokens, sizes, mask, heads), and its variants for that state apply, so the tour speaks of
// the preset on screen and asks only for what can be done there. A small card beside the element, no backdrop:
// the page stays usable, and the card is placed where it covers neither the element nor the control the action
// needs. Leave any time; the Tour button resumes at the same step (kept in localStorage).

let started = false;  // (one page, one start: a second hook that imports this finds it running)

// the tour's state (one page, one tour): its steps, the Tour button and the card; the step shown (-1: none), it
// with its templates filled and its variants applied, what the page showed when it began (a check compares against
// it), the checks passed in this tour, the timer that follows the page, the element outlined
const T = { STEPS: [], btn: null, pop: null, at: -1, cur: null, base: {}, did: new Set(), timer: null, target: null };
const KEY = 'attention-playground-tour';
const $ = (sel) => T.pop.querySelector(sel);

export function mount({ element }) {
  const root = element.querySelector('.teach') || document.querySelector('.teach');
  if (!root || started) return;
  started = true;
  T.STEPS = JSON.parse(root.dataset.tour);
  T.btn = root.querySelector('#tour-btn');
  T.pop = makePop();
  $('.tp-back').addEventListener('click', () => show(Math.max(0, T.at - 1)));
  $('.tp-next').addEventListener('click', next);
  $('.tp-leave').addEventListener('click', () => finish(false));
  T.btn.addEventListener('click', () => (T.at < 0 ? begin() : finish(false)));
  T.pop.addEventListener('keydown', (e) => { if (e.key === 'Escape') { e.preventDefault(); finish(false); } });
  addEventListener('scroll', () => T.at >= 0 && place(), { passive: true });
  label();
}

function makePop() {
  const pop = document.createElement('section');
  pop.id = 'tour-pop';
  pop.setAttribute('role', 'dialog');
  pop.setAttribute('aria-modal', 'false');
  pop.setAttribute('aria-label', 'guided tour');
  pop.hidden = true;
  pop.innerHTML = `<div class="tp-count"></div><p class="tp-look"></p><p class="tp-act"></p>
    <p class="tp-done" aria-live="polite"></p><div class="tp-nav">
    <button type="button" class="tp-back">Back</button><button type="button" class="tp-next">Next</button>
    <button type="button" class="tp-leave">Leave tour</button></div>`;
  document.body.appendChild(pop);
  return pop;
}

// ---- reading the page ----
const $$ = (sel) => Array.from(document.querySelectorAll(sel));
const heads = () => {  // [shown, of]: the overview's Q card says "(head 2 of 3)" when there are several
  const m = (document.querySelector('#overview [data-card=q] .card-title')?.textContent || '').match(/head (\d+) of (\d+)/);
  return m ? [+m[1], +m[2]] : [1, 1];
};
const ops = () => $$('#overview .arrow.op span').map((s) => s.textContent);
const headers = (name, scope) => $$(`#inputs table[data-name=${name}] th[scope=${scope}]`).map((t) => t.textContent.trim());
const row2 = () => Math.min(1, Math.max(0, headers('x', 'row').length - 1));  // t2's row (t1's with one token)
const xCell = () => document.querySelector(`#inputs table[data-name=x] td[data-r="${row2()}"][data-c="0"]`);
const q1 = () => document.querySelector(`#overview table[data-name=q] td[data-r="${row2()}"][data-c="0"]`)?.title;
const exTitle = () => {
  const ex = document.getElementById('explain');
  return ex && !ex.classList.contains('closed') ? ex.querySelector('.ex-title')?.textContent || '' : '';
};

function flags() {
  const mask = ops()[1] || 'no mask';
  return {
    cross: !!document.querySelector('#inputs table[data-name=x_k]'),
    masked: mask !== 'no mask',
    causal: mask.startsWith('causal'),
    scaled: (ops()[0] || '') !== 'no scaling',
    sum: (ops()[2] || '') !== 'softmax',
    multi: heads()[1] > 1,
    edited: T.did.has('x_cell'),
    explained: !!exTitle(),
    combined: !!document.querySelector('#overview [data-card=combine]'),
    grouped: /shared/.test(document.querySelector('#overview [data-card=k] .card-title')?.textContent || ''),
  };
}

function words(f) {  // what the templates' {names} stand for on this page now
  const tokens = headers('x', 'row');
  const keys = f.cross ? headers('x_k', 'row') : tokens;
  const dims = headers('x', 'col');
  const [h, n] = heads();
  const cell = parseFloat(xCell()?.textContent);
  return {
    X: f.cross ? 'x_q' : 'X', x: f.cross ? 'x_q' : 'x', tokens: tokens.join(', '), keys: keys.join(', '),
    dims: dims.join(', '), t1: tokens[0], t2: tokens[row2()], k1: keys[0], d1: dims[0], v: cell === 3 ? '2' : '3',
    mask: (ops()[1] || '').split(' ')[0], Hs: `${n} head${n > 1 ? 's' : ''}`, h_other: String(h === 1 ? 2 : 1),
  };
}

function resolve(i) {  // step i for the page as it is now
  const st = T.STEPS[i];
  const f = flags();
  const out = { target: st.target, look: st.look, act: st.act, check: st.check, also: st.also || '' };
  for (const a of st.alt || []) {
    if (Object.entries(a.when).every(([k, v]) => f[k] === v)) Object.assign(out, a.set);
  }
  const w = words(f);
  const fill = (text) => text.replace(/\{(\w+)\}/g, (m, k) => (w[k] !== undefined ? w[k] : m));
  return { ...out, look: fill(out.look), act: fill(out.act), value: +w.v };
}

const CHECKS = {
  x_cell: () => {
    const td = xCell();
    return !!td && !td.querySelector('input') && parseFloat(td.textContent) === T.base.value && q1() !== T.base.q1;
  },
  explain_open: () => !!exTitle() && exTitle() !== T.base.explained,
  scale_off: () => ops()[0] === 'no scaling',
  scale_on: () => (ops()[0] || '').startsWith('÷√d_k'),
  mask_causal: () => (ops()[1] || '').startsWith('causal'),
  mask_none: () => ops()[1] === 'no mask',
  heads_more: () => heads()[1] > T.base.heads[1],
  head_other: () => heads()[0] !== T.base.heads[0] && heads()[1] === T.base.heads[1],
};


function label() {
  const saved = +localStorage.getItem(KEY);
  T.btn.textContent = T.at < 0 && saved > 0 && saved < T.STEPS.length ? `Resume tour (${saved + 1}/${T.STEPS.length})` : 'Tour';
}

// ---- placing the card: never over the element, nor over the control the action needs ----
const M = 8;  // margin to the viewport's edges
const fixed = (e) => getComputedStyle(e).position === 'fixed';
const grow = (r, m) => ({ left: r.left - m, top: r.top - m, right: r.right + m, bottom: r.bottom + m });
const area = (a, b) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left))
  * Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));

function scene(dy) {  // the rects that matter if the page were scrolled dy further (fixed elements stay)
  const rect = (e) => {
    const r = e.getBoundingClientRect();
    const s = fixed(e) ? 0 : dy;
    return { left: r.left, right: r.right, top: r.top - s, bottom: r.bottom - s, width: r.width };
  };
  const alsoEls = T.cur.also ? $$(T.cur.also) : [];
  const bench = document.getElementById('bench');
  return {
    t: rect(T.target),
    also: alsoEls.map(rect).filter((r) => r.width > 0),
    soft: $$('#bench .card, #topbar, #toolbar').map(rect).filter((r) => r.width > 0),  // best left uncovered too
    under: bench && bench.contains(T.target) ? rect(bench).bottom + 12 : -1,
  };
}

function best(sc, w, h) {  // the card's least bad corner for a scene: [cost, left, top]
  const { t } = sc;
  const cx = Math.max(M, Math.min(t.left, innerWidth - w - M));
  const cy = Math.max(M, Math.min(t.top, innerHeight - h - M));
  const spots = [[cx, t.bottom + 12], [cx, t.top - 12 - h], [t.right + 12, cy], [t.left - 12 - w, cy],
    [innerWidth - w - M, innerHeight - h - M], [M, innerHeight - h - M], [innerWidth - w - M, M], [M, M]];
  if (sc.under >= 0) spots.unshift([cx, sc.under]);
  let win = [Infinity, M, M];
  spots.forEach(([x, y], order) => {
    if (x < M || y < M || x + w > innerWidth - M || y + h > innerHeight - M) return;
    const me = { left: x, top: y, right: x + w, bottom: y + h };
    const cost = 1e9 * area(me, grow(t, 10)) + 1e6 * sc.also.reduce((s, a) => s + area(me, grow(a, 6)), 0)
      + sc.soft.reduce((s, c) => s + area(me, c), 0) + order;
    if (cost < win[0]) win = [cost, x, y];
  });
  return win;
}

function place() {  // follow re-renders and scrolling at the page's current scroll
  document.querySelectorAll('.tour-target').forEach((e) => { if (e !== T.target) e.classList.remove('tour-target'); });
  if (T.target && !T.target.isConnected) T.target = null;
  T.target = T.target || document.querySelector(T.cur.target);
  $$('.tour-also').forEach((e) => { if (!T.cur.also || !e.matches(T.cur.also)) e.classList.remove('tour-also'); });
  if (T.cur.also) $$(T.cur.also).forEach((e) => e.classList.add('tour-also'));
  T.pop.style.width = `${Math.min(380, innerWidth - 2 * M)}px`;
  if (!T.target) return;
  T.target.classList.add('tour-target');
  const [, x, y] = best(scene(0), T.pop.offsetWidth, T.pop.offsetHeight);
  T.pop.style.left = `${x}px`;
  T.pop.style.top = `${y}px`;
}

function settle() {  // when a step begins: the smallest scroll that shows the element (and the control the action
  // needs, when both fit) with room for the card clear of everything
  T.target = document.querySelector(T.cur.target);
  if (!T.target) return;
  T.pop.style.width = `${Math.min(380, innerWidth - 2 * M)}px`;
  const [w, h] = [T.pop.offsetWidth, T.pop.offsetHeight];
  const now = scene(0);
  const keep = (sc) => [sc.t, ...sc.also];
  const top = Math.min(...keep(now).map((r) => r.top));
  const bottom = Math.max(...keep(now).map((r) => r.bottom));
  const room = document.documentElement.scrollHeight - innerHeight;
  const moves = [0, (now.t.top + now.t.bottom - innerHeight) / 2, top - M, bottom - innerHeight + M + h + 12,
    now.under >= 0 ? now.under + h + M - innerHeight : 0].map((d) => Math.round(Math.max(-scrollY, Math.min(room - scrollY, d))));
  const seen = (r) => r.top >= 0 && r.bottom <= innerHeight;
  for (const need of [keep, (sc) => [sc.t]]) {  // the element and the control if they fit together, else the element
    let pick = null;
    for (const d of moves) {
      const sc = scene(d);
      if (!need(sc).every(seen)) continue;
      const cost = best(sc, w, h)[0] + Math.abs(d);
      if (!pick || cost < pick[0]) pick = [cost, d];
    }
    if (pick) { if (pick[1]) window.scrollBy(0, pick[1]); return; }
  }
  T.target.scrollIntoView({ block: 'center', inline: 'nearest' });  // taller than the screen: its middle
}

function show(i) {
  T.at = i;
  localStorage.setItem(KEY, String(i));
  T.cur = resolve(i);
  // past the steps about it, an explanation opened for the tour closes: it stayed over the weights the next
  // steps ask about ("Do the weights become sharper or flatter?")
  if (T.cur.target !== '#explain' && T.cur.check !== 'explain_open') {
    document.getElementById('explain')?.classList.add('closed');
  }
  T.base = { q1: q1(), value: T.cur.value, explained: exTitle(), heads: heads() };
  T.target = null;
  T.pop.dataset.step = String(i);
  $('.tp-count').textContent = `Tour · step ${i + 1} of ${T.STEPS.length}`;
  $('.tp-look').textContent = T.cur.look;
  $('.tp-act').textContent = T.cur.act;
  $('.tp-act').hidden = !T.cur.act;
  $('.tp-done').textContent = '';
  $('.tp-back').disabled = i === 0;
  $('.tp-next').textContent = i === T.STEPS.length - 1 ? 'Finish' : T.cur.check ? 'Skip' : 'Next';
  T.pop.hidden = false;
  settle();
  place();
}

function tick() {  // follow re-renders and scrolling; move on once the asked action is done
  if (T.at < 0) return;
  const check = CHECKS[T.cur.check];
  if (check && !T.pop.dataset.passed && check()) {
    T.pop.dataset.passed = '1';
    T.did.add(T.cur.check);
    $('.tp-done').textContent = 'Done ✓';
    setTimeout(() => { delete T.pop.dataset.passed; if (T.at >= 0) next(); }, 700);
  }
  // once the action is done, the card stays where the learner read it until the next step: the action's own
  // re-render (2 heads: a new card, the numbers fitted again) moved it 18 then 23 px (issue 37)
  if (!T.pop.dataset.passed) place();
}

function next() {
  if (T.at >= T.STEPS.length - 1) { finish(true); return; }
  show(T.at + 1);
}

function finish(completed) {
  if (completed) localStorage.removeItem(KEY);
  T.at = -1;
  clearInterval(T.timer);
  T.timer = null;
  T.pop.hidden = true;
  document.querySelectorAll('.tour-target, .tour-also').forEach((e) => e.classList.remove('tour-target', 'tour-also'));
  document.body.dataset.tour = completed ? 'done' : 'left';
  label();
  T.btn.focus();
}

function begin() {
  const saved = +localStorage.getItem(KEY);
  document.body.dataset.tour = 'on';
  T.did.clear();
  show(saved > 0 && saved < T.STEPS.length ? saved : 0);
  T.timer = T.timer || setInterval(tick, 250);
  $('.tp-next').focus();
}

