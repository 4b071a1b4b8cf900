// The guided tour (js_on_load of the top bar's teach buttons, with present.js): a few steps over the default
// preset. Each step outlines a real element, says what to look at and often asks for one small action; it
// notices when the action is done (it reads the page: the grids, the overview, the explanation) and moves on.
// A small card beside the element, no backdrop: the page stays usable. Leave any time; the Tour button resumes
// at the same step (kept in localStorage).
(() => {
  const root = element.querySelector('.teach') || document.querySelector('.teach');
  if (!root || window.apTour) return;
  const STEPS = JSON.parse(root.dataset.tour);
  const KEY = 'attention-playground-tour';
  const btn = root.querySelector('#tour-btn');
  let at = -1;
  let base = {};  // what the page showed when the step began (a check compares against it)
  let timer = null;
  let target = null;

  const q1 = () => document.querySelector('#overview table[data-name=q] td[data-r="1"][data-c="0"]')?.title;
  const ops = () => Array.from(document.querySelectorAll('#overview .arrow.op span')).map((s) => s.textContent);
  const CHECKS = {
    x_t2_d1_is_3: () => {
      const td = document.querySelector('#inputs table[data-name=x] td[data-r="1"][data-c="0"]');
      return !!td && !td.querySelector('input') && parseFloat(td.textContent) === 3 && q1() !== base.q1;
    },
    explain_open: () => {
      const ex = document.getElementById('explain');
      return !!ex && !ex.classList.contains('closed') && !!ex.querySelector('.ex-title');
    },
    scale_off: () => ops()[0] === 'no scaling',
    mask_causal: () => (ops()[1] || '').startsWith('causal'),
    two_heads: () => !!document.querySelector('#overview [data-card=combine] td'),
  };

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
  const $ = (sel) => pop.querySelector(sel);

  function label() {
    const saved = +localStorage.getItem(KEY);
    btn.textContent = at < 0 && saved > 0 && saved < STEPS.length ? `Resume tour (${saved + 1}/${STEPS.length})` : 'Tour';
  }

  function place() {  // under the pipeline when the target is in it (so no card is covered), else below or above
    // the target; always inside the viewport
    document.querySelectorAll('.tour-target').forEach((e) => { if (e !== target) e.classList.remove('tour-target'); });
    if (target && !target.isConnected) target = null;
    target = target || document.querySelector(STEPS[at].target);
    if (!target) return;
    target.classList.add('tour-target');
    const r = target.getBoundingClientRect();
    const w = Math.min(380, innerWidth - 16);
    const h = pop.offsetHeight;
    const bench = document.getElementById('bench');
    const under = bench && bench.contains(target) ? bench.getBoundingClientRect().bottom + 10 : -1;
    const fits = (y) => y >= 8 && y + h <= innerHeight - 8;
    const top = [under, r.bottom + 10, r.top - 10 - h].find(fits) ?? Math.max(8, r.top - 10 - h);
    pop.style.width = `${w}px`;
    pop.style.left = `${Math.max(8, Math.min(r.left, innerWidth - w - 8))}px`;
    pop.style.top = `${Math.max(8, Math.min(top, innerHeight - h - 8))}px`;
  }

  function show(i) {
    at = i;
    localStorage.setItem(KEY, String(i));
    const st = STEPS[i];
    base = { q1: q1() };
    target = document.querySelector(st.target);
    if (target) target.scrollIntoView({ block: 'center', inline: 'nearest' });
    pop.dataset.step = String(i);
    $('.tp-count').textContent = `Tour · step ${i + 1} of ${STEPS.length}`;
    $('.tp-look').textContent = st.look;
    $('.tp-act').textContent = st.act;
    $('.tp-act').hidden = !st.act;
    $('.tp-done').textContent = '';
    $('.tp-back').disabled = i === 0;
    $('.tp-next').textContent = i === STEPS.length - 1 ? 'Finish' : st.check ? 'Skip' : 'Next';
    pop.hidden = false;
    place();
  }

  function tick() {  // follow re-renders and scrolling; move on once the asked action is done
    if (at < 0) return;
    place();
    const check = CHECKS[STEPS[at].check];
    if (check && check() && !pop.dataset.passed) {
      pop.dataset.passed = '1';
      $('.tp-done').textContent = 'Done ✓';
      setTimeout(() => { delete pop.dataset.passed; if (at >= 0) next(); }, 700);
    }
  }

  function next() {
    if (at >= STEPS.length - 1) { finish(true); return; }
    show(at + 1);
  }

  function finish(completed) {
    if (completed) localStorage.removeItem(KEY);
    at = -1;
    clearInterval(timer);
    timer = null;
    pop.hidden = true;
    document.querySelectorAll('.tour-target').forEach((e) => e.classList.remove('tour-target'));
    document.body.dataset.tour = completed ? 'done' : 'left';
    label();
    btn.focus();
  }

  function begin() {
    const saved = +localStorage.getItem(KEY);
    document.body.dataset.tour = 'on';
    show(saved > 0 && saved < STEPS.length ? saved : 0);
    timer = timer || setInterval(tick, 250);
    $('.tp-next').focus();
  }

  $('.tp-back').addEventListener('click', () => show(Math.max(0, at - 1)));
  $('.tp-next').addEventListener('click', next);
  $('.tp-leave').addEventListener('click', () => finish(false));
  btn.addEventListener('click', () => (at < 0 ? begin() : finish(false)));
  pop.addEventListener('keydown', (e) => { if (e.key === 'Escape') { e.preventDefault(); finish(false); } });
  addEventListener('scroll', () => at >= 0 && place(), { passive: true });
  window.apTour = { begin, leave: () => finish(false), step: () => at };
  label();
})();
