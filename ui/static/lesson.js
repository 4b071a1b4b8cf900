// Lesson plans (js_on_load of the top bar's teach buttons, after present.js and address.js): an ordered list of
// stages, each an address that opens one view (a preset or scenario, a tab, the scaling lab's d_k, a present
// stage). The shipped plans come from lessons/*.json (present.lesson_plans, in the buttons' data); the lecturer's
// own is prepared from the page ("Add this view"), kept in this browser, saved and loaded as a JSON file.
// ?lesson=<name>&step=<n> opens stage n; the stage keys (→ ← ↓ ↑, Space, PageDown/PageUp) and present mode's
// arrows then step from stage to stage, each opening its own address. A reload stays on the stage.

let started = false;  // (one page, one start: a second hook that imports this finds it running)

const OWN = 'pg-lesson-own';
const KEYS = ['preset', 'scenario', 'head_shown', 'seed', 'tab', 'd_k', 'lab_seed', 'causal', 'pad', 'rows',
  'fill_shown', 'present'];  // present.LESSON_KEYS
const own = () => { try { return JSON.parse(localStorage.getItem(OWN)) || null; } catch { return null; } };
const escape = (t) => String(t).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function mount() {
  const root = document.querySelector('.teach');
  if (!root || started) return;
  started = true;
  const SHIPPED = JSON.parse(root.dataset.lessons || '{}');
  const planOf = (name) => (name === 'own' ? own() : SHIPPED[name]);
  const asked = new URLSearchParams(location.search);
  const name = asked.get('lesson');
  const plan = name ? planOf(name) : null;
  const step = Math.max(1, parseInt(asked.get('step'), 10) || 1);
  menu(root, SHIPPED);
  if (plan) lessonOn({ plan, name, step, asked });
}

// a plan read from a file: {title, stages: [{title, query}]}, each query only the keys above; else the problem
function check(p) {
  if (!p || typeof p !== 'object' || !Array.isArray(p.stages) || !p.stages.length) return 'no list of stages';
  for (const [i, st] of p.stages.entries()) {
    if (!st || typeof st.title !== 'string') return `stage ${i + 1}: no title`;
    if (!st.query || typeof st.query !== 'object') return `stage ${i + 1}: no query`;
    const bad = Object.keys(st.query).filter((k) => !KEYS.includes(k));
    if (bad.length) return `stage ${i + 1}: ${bad.join(', ')} is not one of ${KEYS.join(', ')}`;
  }
  return '';
}

// the Lesson button's menu: the shipped plans, the lecturer's own (add this view, save, load, clear)
function menu(root, SHIPPED) {
  const pop = document.createElement('section');
  pop.id = 'lesson-pop';
  pop.hidden = true;
  pop.setAttribute('aria-label', 'lesson plans');
  document.body.appendChild(pop);
  function draw(note = '') {
    const mine = own();
    const start = (n, p) => `<li><a href="?${new URLSearchParams({ ...p.stages[0].query, lesson: n, step: 1 })}">`
      + `${escape(p.title || n)}</a> (${p.stages.length} stages)</li>`;
    pop.innerHTML = `<h2>Lesson plans</h2><ul>${Object.entries(SHIPPED).map(([n, p]) => start(n, p)).join('')}`
      + `${mine ? start('own', mine) : ''}</ul><p class="lp-own">Your plan: ${mine ? mine.stages.length : 0} stages</p>`
      + '<div class="lp-do"><button type="button" class="lp-add">Add this view as a stage</button>'
      + '<button type="button" class="lp-save">Save your plan (.json)</button>'
      + '<label class="lp-load">Load a plan (.json) <input type="file" accept=".json,application/json"></label>'
      + '<button type="button" class="lp-clear">Clear your plan</button></div>'
      + `<p class="lp-note" role="status">${escape(note)}</p>${classPart()}`;
  }
  function here() {  // the view on screen as a stage: its address's keys and what it shows
    const q = {};
    const now = new URLSearchParams(location.search);
    KEYS.forEach((k) => { if (now.get(k)) q[k] = now.get(k); });
    const stage = document.body.dataset.presentStage;
    if (stage) { q.present = stage; delete q.tab; }
    const what = stage ? document.querySelector('#present-panel .pp-title')?.textContent
      : document.querySelector('#tabs button[role=tab][aria-selected=true]')?.textContent.trim();
    const preset = document.querySelector('#preset input')?.value || q.preset || '';
    return { title: [what, q.tab ? '' : preset].filter(Boolean).join(' · '), query: q };
  }
  pop.addEventListener('click', (e) => {
    const b = e.target.closest('button');
    if (!b) return;
    if (b.matches('.lp-teach, .lp-join')) { toggle(); toClass(b.matches('.lp-teach')); return; }
    const mine = own() || { title: 'My lesson', stages: [] };
    if (b.matches('.lp-add')) {
      mine.stages.push(here());
      localStorage.setItem(OWN, JSON.stringify(mine));
      draw(`Added stage ${mine.stages.length}: ${mine.stages.at(-1).title}`);
    } else if (b.matches('.lp-save')) {
      const a = document.createElement('a');
      a.href = URL.createObjectURL(new Blob([JSON.stringify(mine, null, 1)], { type: 'application/json' }));
      a.download = 'lesson.json';
      a.click();
      URL.revokeObjectURL(a.href);
    } else if (b.matches('.lp-clear')) {
      localStorage.removeItem(OWN);
      draw('Your plan is empty');
    }
  });
  pop.addEventListener('change', async (e) => {
    const file = e.target.files?.[0];
    if (!file) return;
    let p = null;
    try { p = file.size <= 200_000 ? JSON.parse(await file.text()) : null; } catch { p = null; }
    const problem = file.size > 200_000 ? 'larger than 200 KB' : check(p);
    if (problem) { draw(`lesson file ${file.name}: ${problem || 'not JSON'}`); return; }
    localStorage.setItem(OWN, JSON.stringify(p));
    draw(`Loaded ${p.stages.length} stages from ${file.name}`);
  });
  const btn = root.querySelector('#lesson-btn');
  const toggle = () => {
    pop.hidden = !pop.hidden;
    btn.setAttribute('aria-expanded', String(!pop.hidden));
    if (!pop.hidden) draw();
  };
  btn.addEventListener('click', toggle);
  document.addEventListener('keydown', (e) => {  // L: the menu, also in present mode (whose top bar is away)
    if ((e.key === 'l' || e.key === 'L') && !e.ctrlKey && !e.metaKey && !e.altKey
      && !e.target.closest?.('input, textarea, select, [contenteditable], table.grid')) toggle();
  });
}

// the menu's class part, as the room's bar now stands (room.js): what it offers is what the bar offers, so a page
// that follows a room as a student opens none of its own, and a lecturer in a room is offered the join card again
function classPart() {
  const shown = (sel) => { const e = document.querySelector(`#room ${sel}`); return e && !e.hidden ? e : null; };
  const teach = shown('.room-teach'), join = shown('.room-join');
  const again = teach?.textContent.trim() === 'Show the join card';
  const buttons = (teach ? `<button type="button" class="lp-teach">${again ? 'Show the join card'
    : 'Teach this: open a room'}</button>` : '')
    + (join ? '<button type="button" class="lp-join">Join a class by its code</button>' : '');
  const says = buttons ? 'Students follow this page live on their own devices, and answer your questions.'
    : "You are in a class: the room's line is above the tabs.";
  return `<h2>With a class</h2><p class="lp-class">${says}</p>${buttons ? `<div class="lp-do">${buttons}</div>` : ''}`;
}

// a class, from the menu a lecturer opens first: the room's own "Teach this" (its card then shows the code), or
// the code box brought into view and focused (the room's bar waits at the page's end until a room is open: room.js)
function toClass(teach) {
  const room = document.getElementById('room');
  if (teach) { room?.querySelector('.room-teach')?.click(); return; }
  const box = room?.querySelector('.room-code');
  box?.scrollIntoView({ block: 'center', behavior: 'instant' });
  box?.focus({ preventScroll: true });
}

// a lab's stage (a tab of its own, not present mode's): the page shows the lab alone, as present mode shows the
// workbench: the title bar, the tabs and the lab's controls step aside (C brings the controls back, Escape the
// whole page), the lab's words show on demand (W, or the bar's Words button; remembered with present mode's) and
// the lab's charts take the projector's sizes (present.css, charts.js)
const SAY = 'pg-present-words';  // (present.js's)
function labStage(bar) {
  const body = document.body;
  body.classList.add('lab-stage');
  const btn = document.createElement('button');
  btn.type = 'button';
  btn.className = 'lb-say';
  btn.textContent = 'Words';
  btn.title = "the lab's words (W)";
  bar.querySelector('.lb-next').before(btn);
  const say = (on) => {
    body.classList.toggle('lab-say', on);
    btn.setAttribute('aria-pressed', String(on));
    localStorage.setItem(SAY, on ? '1' : '0');
  };
  say(localStorage.getItem(SAY) === '1');
  btn.addEventListener('click', (e) => { e.stopPropagation(); say(!body.classList.contains('lab-say')); });
  document.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented
      || e.target.closest?.('input, textarea, select, [contenteditable], table.grid, #lesson-pop')) return;
    if (e.key === 'c' || e.key === 'C') body.classList.toggle('lab-tools');
    else if (e.key === 'w' || e.key === 'W') say(!body.classList.contains('lab-say'));
    else if (e.key === 'Escape') body.classList.remove('lab-stage', 'lab-tools');
  });
}

// the mask lab's stage shows one fill convention's three tables at a time, under the masks (all thirteen tables
// did not reach 32 px at 1280×720: 16 px): the stage's fill_shown, or -inf; N (or the bar's fill button) steps to
// the next, writes it into the address and, in the lecturer's own plan, into the stage's saved query
const FILLS = ['-inf', '-1e9', 'additive'];  // (ui/render/mask_tables.py FILL_TITLES)
function fillShown(bar, { plan, name, n }) {
  let at = Math.max(0, FILLS.indexOf(new URLSearchParams(location.search).get('fill_shown') || '-inf'));
  const btn = document.createElement('button');
  btn.type = 'button';
  btn.className = 'lb-fill';
  btn.title = 'the next fill convention (N)';
  bar.querySelector('.lb-next').before(btn);
  const mark = () => {  // (on <body>: present.css hides the other columns of every answer the lab draws)
    btn.textContent = `fill: ${FILLS[at]}`;
    document.body.dataset.fillShown = String(at + 1);
  };
  const next = () => {
    at = (at + 1) % FILLS.length;
    const q = new URLSearchParams(location.search);
    q.set('fill_shown', FILLS[at]);
    history.replaceState(history.state, '', `${location.pathname}?${q}${location.hash}`);
    if (name === 'own') {  // (the saved stage keeps it, so the reload and the file open it again)
      plan.stages[n - 1].query.fill_shown = FILLS[at];
      localStorage.setItem(OWN, JSON.stringify(plan));
    }
    mark();
    api.refit();  // (the stage fits again)
  };
  btn.addEventListener('click', (e) => { e.stopPropagation(); next(); });
  document.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented || (e.key !== 'n' && e.key !== 'N')
      || e.target.closest?.('input, textarea, select, [contenteditable], table.grid, #lesson-pop')) return;
    e.preventDefault();
    next();
  });
  const api = { mark, refit: () => {} };
  return api;
}

// the mask lab's stage: its tables (the masks, then one fill convention's scores) as large as the room above the
// lesson's bar allows (--lab-fs, up to 40 px × the text size, as present mode's numbers), fitted again when the lab
// answers, the window or text size changes, or its controls (C) or words (W) come and go
// a lab table's long numbers, shown shorter at the stage in one format a table, as the page writes them (the exact
// value stays the cell's text and its title): four decimals, or, in a table written in scientific notation (-1e9's
// masked scores), two decimals of the mantissa (-1.00e+09, 3.61e-01). Again at every answer: a cell redrawn in place
// keeps its attributes.
const exponent = (t) => t.replace(/e([+-])(\d)$/, 'e$10$2');  // (as python writes it: e+09, not e+9)
function shorten(table) {
  const cells = Array.from(table.querySelectorAll('td[data-r]'));
  const sci = cells.some((td) => /\de[+-]\d/.test(td.textContent));
  for (const td of cells) {
    const v = Number(td.textContent);
    if (Number.isFinite(v) && (sci || td.textContent.length > 7)) {  // (each written only where it differs)
      const shown = sci ? exponent(v.toExponential(2)) : v.toFixed(4);
      if (td.dataset.shown !== shown) td.dataset.shown = shown;
      if (td.title !== td.textContent) td.title = td.textContent;
    } else if (td.dataset.shown) delete td.dataset.shown;
  }
}
function maskStage(fills) {
  const out = () => document.getElementById('mask-lab-out');
  const ts = () => parseFloat(getComputedStyle(document.documentElement).getPropertyValue('--ts')) || 1;
  // the room above the lab's output (the page's padding, its heading), scrolled away once the tables are fitted
  // (not with the controls shown, C: they are above it)
  const top = () => (document.body.classList.contains('lab-tools') ? 0
    : Math.max(0, out().getBoundingClientRect().top + scrollY - 4));
  const set = (px) => document.body.style.setProperty('--lab-fs', `${px.toFixed(2)}px`);
  const fits = () => out().getBoundingClientRect().bottom - top() <= document.getElementById('lesson-bar')
    .getBoundingClientRect().top - 8 && document.documentElement.scrollWidth <= innerWidth
    && Array.from(out().querySelectorAll('table')).every((t) => t.getBoundingClientRect().right <= innerWidth);
  let queued = false, drawn = null;
  const fit = () => {
    queued = false;
    if (!out()?.querySelector('table') || !document.body.classList.contains('lab-stage')) return;
    out().querySelectorAll('table').forEach(shorten);
    scrollTo({ top: 0, behavior: 'instant' });
    const at = top();
    let lo = 8, hi = 40 * ts();
    set(hi);
    if (!fits()) {
      while (hi - lo > 0.25) { const mid = (lo + hi) / 2; set(mid); if (fits()) lo = mid; else hi = mid; }
      set(lo);
    }
    scrollTo({ top: at, behavior: 'instant' });  // (the page's room above the lab scrolled away)
    drawn?.takeRecords();  // (shorten's own writes are no answer)
  };
  const later = () => { if (!queued) { queued = true; requestAnimationFrame(fit); } };
  const wait = setInterval(() => {
    if (!out()) return;
    clearInterval(wait);
    // (the whole body: the lab's answer may replace the output's own element, which an observer of it misses; an
    // answer of the same shape is written into the cells already shown, static/morph.js: their texts, and the
    // shortened numbers' data-shown it removes. Missed, the stage kept its size with the numbers at full length, and
    // the weights ended below the screen, y = 780 of 720: CI)
    drawn = new MutationObserver((records) => {
      if (records.some((r) => r.type === 'childList' || out()?.contains(r.target))) later();
    });
    drawn.observe(document.body, { childList: true, subtree: true, characterData: true, attributeFilter: ['data-shown'] });
    later();
  }, 200);
  new MutationObserver(later).observe(document.body, { attributes: true, attributeFilter: ['class'] });
  addEventListener('resize', later);
  document.addEventListener('pg-ts', later);
  fills.refit = later;
  fills.mark();
}

// ---- a lesson on: its bar (in present mode's panel when present mode is on), the keys step the stages ----------
function lessonOn({ plan, name, step, asked }) {
  const urlFor = (n) => `${location.pathname}?${new URLSearchParams({ ...plan.stages[n - 1].query, lesson: name,
    step: n })}`;
  const n = Math.min(step, plan.stages.length);
  const want = new URLSearchParams(urlFor(n).split('?')[1]);
  // a stage opened (a link, the keys) shows the stage's own state; a reload or Back keeps the address as it is: it
  // followed the lecturer's edits at this stage (address.js), which the stage's state would undo
  const again = ['reload', 'back_forward'].includes(performance.getEntriesByType('navigation')[0]?.type);
  if (!again && KEYS.some((k) => (asked.get(k) || '') !== (want.get(k) || ''))) { location.replace(urlFor(n)); return; }
  const bar = document.createElement('nav');
  bar.id = 'lesson-bar';
  bar.setAttribute('aria-label', 'lesson');
  bar.innerHTML = `<button type="button" class="lb-prev" aria-label="previous lesson stage">←</button>
    <span class="lb-count">Lesson ${n} / ${plan.stages.length}</span> <span class="lb-title"></span>
    <button type="button" class="lb-next" aria-label="next lesson stage">→</button>`;
  bar.querySelector('.lb-title').textContent = plan.stages[n - 1].title;
  bar.querySelector('.lb-title').title = plan.stages[n - 1].title;  // (one line, cut with … where too long)
  bar.querySelector('.lb-prev').disabled = n === 1;
  bar.querySelector('.lb-next').disabled = n === plan.stages.length;
  document.body.appendChild(bar);
  if (plan.stages[n - 1].query.tab && !plan.stages[n - 1].query.present) labStage(bar);
  if (plan.stages[n - 1].query.tab === 'mask' && !plan.stages[n - 1].query.present) {
    maskStage(fillShown(bar, { plan, name, n }));
  }
  const go = (d) => { if (n + d >= 1 && n + d <= plan.stages.length) location.assign(urlFor(n + d)); };
  bar.addEventListener('click', (e) => {
    const b = e.target.closest('.lb-prev, .lb-next');
    if (b) go(b.matches('.lb-next') ? 1 : -1);
  });
  const place = () => {  // inside the panel while presenting, so present mode fits the cards above both
    const panel = document.getElementById('present-panel');
    const into = panel && !panel.hidden ? panel.querySelector('.pp-text') : document.body;
    if (bar.parentElement !== into) into.prepend(bar);
  };
  document.addEventListener('pg-present', place);
  place();
  document.addEventListener('click', (e) => {  // present mode's own arrows step the lesson
    const b = e.target.closest && e.target.closest('#present-panel .pp-next, #present-panel .pp-prev');
    if (!b) return;
    e.stopImmediatePropagation();
    go(b.matches('.pp-next') ? 1 : -1);
  }, true);
  const busy = (t) => t.closest && t.closest('input, textarea, select, [contenteditable], table.grid, '
    + '[role=listbox], a[href], #explain, #tour-pop, #lesson-pop');
  document.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented || busy(e.target)) return;
    const d = { ArrowRight: 1, ArrowDown: 1, PageDown: 1, ' ': 1, ArrowLeft: -1, ArrowUp: -1, PageUp: -1 }[e.key];
    if (d === undefined || (e.key === ' ' && e.target.closest?.('button'))) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    go(e.shiftKey && e.key === ' ' ? -1 : d);
  }, true);
}
