// Present mode (js_on_load of the top bar's teach buttons, with tour.js and a11y.js): the overview one stage
// at a time, for a projector. A layer, not a view: the stage lives here and is drawn as classes on the
// overview's cards (p-now, p-done) after every re-render, so editing still works and the stage updates live.
// Next/previous: the panel's buttons, → ← ↓ ↑, Space, PageDown/PageUp; Escape leaves. ?present=1 starts it.
(() => {
  const root = element.querySelector('.teach') || document.querySelector('.teach');
  if (!root || window.apPresent) return;
  const STAGES = JSON.parse(root.dataset.stages);
  let on = false;
  let at = 0;
  let shownKey = '';
  const panel = document.createElement('section');
  panel.id = 'present-panel';
  panel.setAttribute('aria-label', 'present mode');
  panel.hidden = true;
  panel.innerHTML = `<div class="pp-text"><div class="pp-head"><span class="pp-count"></span>
    <h2 class="pp-title"></h2></div><div class="pp-formula"></div><p class="pp-words"></p>
    <p class="pp-live" aria-live="polite"></p></div><div class="pp-nav">
    <button type="button" class="pp-prev" aria-label="previous stage">← Previous</button>
    <button type="button" class="pp-next" aria-label="next stage">Next →</button>
    <button type="button" class="pp-exit" aria-label="leave present mode">Leave (Esc)</button></div>`;
  document.body.appendChild(panel);
  const $ = (sel) => panel.querySelector(sel);

  // the stages this state has: "heads combined" only when there are several heads or W_o
  const stages = () => STAGES.filter((st) => st.key !== 'combine' || document.querySelector('#overview [data-card=combine]'));
  const cardsOf = (st) => st.cards.flatMap((n) => Array.from(document.querySelectorAll(`#bench [data-card="${n}"]`)));
  // a stage's words, with a sentence for each variant of today's attention that is on (present.VARIANT_WORDS)
  const variantOn = (when) => (when === 'window'
    ? opSpans().some((t) => /window/.test(t))
    : !!document.querySelector(`#bench [data-card="${when}"]`));
  const wordsOf = (st) => [st.words, ...(st.extra || []).filter(([when]) => variantOn(when)).map(([, w]) => w)]
    .join(' ');
  const opSpans = () => Array.from(document.querySelectorAll('#overview .arrow.op span')).map((s) => s.textContent);

  function live(key) {  // the live numbers of this stage, read from what the overview shows now
    const [scale, mask, norm] = opSpans();
    const shape = (n) => document.querySelector(`#overview [data-card="${n}"] .shape`)?.textContent || '';
    const head = document.querySelector('#overview [data-card=q] .shape + .shape')?.textContent || '';
    const say = {
      inputs: `X is ${shape('x') || document.querySelector('#inputs [data-card=x] .shape')?.textContent || ''}`,
      qkv: `Q, K, V: ${shape('q')}, ${shape('k')}, ${shape('v')} ${head}`,
      scores: `scores: ${shape('scores')}`,
      scaled: `here: ${scale || ''}`,
      masked: `here: ${mask || ''}`,
      weights: `here: ${norm || ''}`,
      output: `output: ${shape('output')}`,
      combine: `combined: ${shape('combine')}`,
    };
    return say[key] || '';
  }

  function apply() {
    if (!on) return;
    const list = stages();
    at = Math.max(0, Math.min(at, list.length - 1));
    document.querySelectorAll('#bench .p-now, #bench .p-done').forEach((c) => c.classList.remove('p-now', 'p-done'));
    list.forEach((st, i) => {
      if (i <= at) cardsOf(st).forEach((c) => c.classList.add(i === at ? 'p-now' : 'p-done'));
    });
    const st = list[at];
    const now = cardsOf(st);
    now.forEach((c) => {  // numbers as large as the card's width allows: a 3×3 grows more than a 12×12
      const cols = Math.max(1, ...Array.from(c.querySelectorAll('tr'), (tr) => tr.children.length));
      const most = now.length > 3 ? 1.6 : now.length > 1 ? 2 : 2.4;
      c.style.setProperty('--pz', Math.max(1.1, Math.min(most, 14 / cols)).toFixed(2));
    });
    const op = document.querySelector('#overview .arrow.op');
    if (op) op.classList.add(['scaled', 'masked', 'weights'].includes(st.key) ? 'p-now' : at > 4 ? 'p-done' : 'p-later');
    document.body.dataset.presentStage = st.key;
    const words = wordsOf(st);  // (a variant turned on or off at this stage changes its words too)
    if (shownKey !== st.key + words) {  // the text changes with the stage only: focus and reading position stay
      shownKey = st.key + words;
      $('.pp-count').textContent = `${at + 1} / ${list.length}`;
      $('.pp-title').textContent = st.title;
      $('.pp-formula').innerHTML = st.formula;
      $('.pp-words').textContent = words;
      const first = cardsOf(st)[0];
      if (first) first.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    }
    $('.pp-live').textContent = live(st.key);
    $('.pp-prev').disabled = at === 0;
    $('.pp-next').disabled = at === list.length - 1;
  }

  let queued = false;
  const observer = new MutationObserver(() => {  // every re-render of the overview or the inputs
    if (!on || queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; apply(); });
  });
  const bench = () => document.getElementById('bench');
  // a live edit redraws the overview in place (attributes, not nodes): watch.js says so
  document.addEventListener('pg-updated', () => { if (on) apply(); });

  function start(stage) {
    on = true;
    at = stage || 0;
    shownKey = '';
    panel.hidden = false;
    document.body.classList.add('presenting');
    if (bench()) observer.observe(bench(), { childList: true, subtree: true });
    apply();
    $('.pp-next').focus();
  }

  function stop() {
    on = false;
    observer.disconnect();
    panel.hidden = true;
    document.body.classList.remove('presenting');
    delete document.body.dataset.presentStage;
    document.querySelectorAll('#bench .p-now, #bench .p-done, #bench .p-later')
      .forEach((c) => c.classList.remove('p-now', 'p-done', 'p-later'));
    document.getElementById('present-btn')?.focus();
  }

  const step = (d) => { at += d; shownKey = ''; apply(); };
  $('.pp-prev').addEventListener('click', () => step(-1));
  $('.pp-next').addEventListener('click', () => step(1));
  $('.pp-exit').addEventListener('click', stop);
  root.querySelector('#present-btn').addEventListener('click', () => (on ? stop() : start(0)));

  // keys belong to whatever is being edited or chosen; elsewhere they step through the stages
  const busy = (t) => t.closest && t.closest('input, textarea, select, [contenteditable], table.grid, [role=listbox], '
    + 'button:not(#present-panel button), a[href], #explain, #tour-pop');
  document.addEventListener('keydown', (e) => {
    if (!on || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === 'Escape') {
      if (e.target.matches && e.target.matches('table.grid td input')) return;  // the grid puts the value back
      e.preventDefault();
      stop();
      return;
    }
    if (busy(e.target) || (e.key === ' ' && e.target.closest && e.target.closest('button'))) return;
    const d = { ArrowRight: 1, ArrowDown: 1, PageDown: 1, ' ': 1, ArrowLeft: -1, ArrowUp: -1, PageUp: -1 }[e.key];
    if (d === undefined) return;
    e.preventDefault();
    step(e.shiftKey && e.key === ' ' ? -1 : d);
  });

  // goto(key): that stage, starting present mode if needed (a lesson room's followers: room.js)
  const goto = (key) => {
    const i = stages().findIndex((st) => st.key === key);
    if (i < 0) return;
    if (!on) start(i); else if (i !== at) { at = i; shownKey = ''; apply(); }
  };
  window.apPresent = { start, stop, goto, stage: () => (on ? stages()[at].key : null) };
  if (new URLSearchParams(location.search).get('present') === '1') {
    const wait = setInterval(() => {  // once the first overview is drawn
      if (document.querySelector('#overview [data-card=output] td')) { clearInterval(wait); start(0); }
    }, 200);
  }
})();
