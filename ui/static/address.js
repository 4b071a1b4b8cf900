// The address bar follows the page (js_on_load of the top bar's teach buttons, after present.js): the tab shown
// (?tab=scaling), the scaling lab's d_k and seed, the mask lab's boxes, present mode's stage (?present=scores, with the
// KV-cache stage's token &t=3) and the workbench's state (?preset=, ?scenario= or ?s=, and &seed=, as a share link
// has them: after each answer drawn, asked of the server) are written into it with history.replaceState as they change, so a
// reload, a bookmark or a copied address opens the same view; on load they are read back (the state by the server's
// load event, ui/share.py on_open; ?present and &t by present.js; the tab and the labs' settings here).
import * as page from './page.js';

// every answer drawn (a live edit's, a control's or a preset's event, a file: watch.js's pg-updated) brings the
// state's part of the address up to date, the newest ask only; so does the workbench's seed box, whose Enter or blur
// stores a seed and draws no view (ui/workbench.py on_seed: &seed=99, ui/share.py seed_query), once its event has
// landed (pg-stored)
const STATE_KEYS = ['preset', 'scenario', 's', 'head_shown', 'seed'];  // the state's part (ui/share.py state_query)
// the page still this long after an answer drawn: its state is asked for. A large state's ask costs the server
// 0.1-0.3 s of the one process's time, which the learner's next edit would wait behind (T=64, d=64, 8 heads: the
// look ahead of a value being typed answered in 240-400 ms beside it, 50 ms alone), so a key, a press or an input
// while an ask waits puts it off until the page has been still this long again
const STILL_MS = 600;
const BUSY = ['keydown', 'pointerdown', 'input'];
function followState(write) {
  let timer = null;
  let asked = 0;
  let waitMs = null;  // the wait of the ask still to go (null: none)
  const ask = (ms) => {
    clearTimeout(timer);
    waitMs = ms;
    timer = setTimeout(async () => {
      waitMs = null;
      const mine = ++asked;
      const ans = await page.stateQuery().catch(() => null);
      if (mine !== asked || !ans?.address) return;
      write(Object.fromEntries([...STATE_KEYS.map((k) => [k, null]), ...Object.entries(ans.address)]));
    }, ms);
  };
  document.addEventListener('pg-updated', () => ask(STILL_MS));
  document.addEventListener('pg-stored', () => ask(0));  // (ui/assets.py LANDED_STORED: its event has landed)
  for (const type of BUSY) {  // (capture: a grid's editor stops some of its keys)
    document.addEventListener(type, () => { if (waitMs !== null) ask(Math.max(waitMs, STILL_MS)); }, true);
  }
}

// the mask lab's boxes (ui/labs.py): &causal=0 (unticked), &pad=3, &rows=1, kept while its tab is shown
const MASK_BOX = { pad: '#mask-pad textarea, #mask-pad input', rows: '#mask-rows textarea, #mask-rows input' };
const causalBox = () => document.querySelector('#mask-causal input[type=checkbox]');
function maskNow() {
  const text = (k) => document.querySelector(MASK_BOX[k])?.value.trim() || null;
  return { causal: causalBox()?.checked === false ? '0' : null, pad: text('pad'), rows: text('rows') };
}
const MASK_NONE = { causal: null, pad: null, rows: null };
function followMask(write) {
  const ours = (e) => e.target.closest?.('#mask-causal, #mask-pad, #mask-rows');
  document.addEventListener('input', (e) => { if (ours(e)) write(maskNow()); });
  document.addEventListener('change', (e) => { if (ours(e)) write(maskNow()); });
  // a box's Enter, leaving it or the checkbox commits: a refused value is put back to the one the tables use
  // (ui/labs.py on_mask_commit), which fires no event here; once that event has landed (ui/assets.py LANDED_LAB),
  // and its values are drawn (the next frame), the address takes the boxes as they read, so that it never keeps a
  // refused value (a reload would type it again)
  document.addEventListener('pg-lab-kept', () => requestAnimationFrame(() => {
    if (new URLSearchParams(location.search).get('tab') === 'mask') write(maskNow());
  }));
}
// on load, once the lab has drawn its tables (the tab's own event): the asked values set as a learner would (ticked,
// typed), one at a time, each once the lab has answered the one before (the lab's events run side by side, so a
// late answer for an earlier value could otherwise be the last drawn; at most 15 s each: a loaded server took over 3)
// what the lab shows: its tables and its message (a refused value changes only the message), as text: the call's
// number each answer starts with (<!--call N-->, static/newest.js) is no change
const labOut = () => ['#mask-lab-out', '#mask-lab-msg'].map((s) => document.querySelector(s)?.textContent || '').join('|');
const answered = (before) => new Promise((ok) => {
  const since = Date.now();
  const poll = setInterval(() => {
    if (labOut() !== before || Date.now() - since > 15000) { clearInterval(poll); setTimeout(ok, 300); }
  }, 50);
});
async function setMask(asked) {
  const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
  while (!causalBox() || !document.querySelector(MASK_BOX.pad) || !document.querySelector('#mask-lab-out td')) {
    await sleep(100);
  }
  if (asked.get('causal') === '0' && causalBox().checked) {
    const before = labOut();
    causalBox().click();
    await answered(before);
  }
  for (const k of ['pad', 'rows']) {
    const box = document.querySelector(MASK_BOX[k]);
    if (!asked.get(k) || !box) continue;
    const before = labOut();
    box.value = asked.get(k);
    box.dispatchEvent(new Event('input', { bubbles: true }));
    box.dispatchEvent(new Event('change', { bubbles: true }));
    // and committed, as a learner's Enter commits it: a value the lab refuses (pad=9 on 3 keys) goes back to the one
    // its tables use, and the address with it (ui/labs.py on_mask_commit, pg-lab-kept), never kept in the box (a
    // commit is not outdated by the value's own call as typed, whichever the server takes first: ui/labs.py)
    box.dispatchEvent(new KeyboardEvent('keypress', { key: 'Enter', bubbles: true }));
    await answered(before);
  }
}

// the scaling lab's d_k and seed (&d_k=512&lab_seed=3: not the workbench's seed), on load: typed into their boxes
// as a learner would (the value, its Enter), and again (at most every LAB_AGAIN_MS) until the lab's sentence says the
// d_k and, for a seed, has changed (a value set before the lab is ready is lost; each event carries both boxes'
// values). The sentence says its d_k first ("At d_k = 512, …": it also names √d_k and 004's d_k = 6, which a d_k of 8
// or 6 must not be taken for). Done once the sentence has said so for LAB_HOLD_MS (the tab's own first answer, for
// d_k 64, can come after the asked one's); when an answer to the values typed leaves other values in the boxes (the
// server put its own there: a d_k past the slider's end, a seed that is no number); when the learner touches either
// box or a tab (their value wins, and a tab left keeps no lab value in the address); or after LAB_GIVE_UP_MS (a
// server so busy that a lab's answer takes longer still). Only whole numbers are typed.
const LAB_AGAIN_MS = 2100, LAB_HOLD_MS = 3000, LAB_GIVE_UP_MS = 60_000;
const dkBox = () => document.querySelector('#lab-dk input[type=number]');
const seedBox = () => document.querySelector('#lab-seed input');
const seedNow = () => (seedBox()?.value && seedBox().value !== '0' ? seedBox().value : null);
function enter(box, value) {
  box.value = value;
  box.dispatchEvent(new Event('input', { bubbles: true }));
  box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));  // (a slider's box: sliders.js)
  box.dispatchEvent(new KeyboardEvent('keypress', { key: 'Enter', bubbles: true }));  // (a number box's submit)
  box.dispatchEvent(new Event('change', { bubbles: true }));
}
const whole = (text) => (/^\d{1,6}$/.test(text || '') ? String(Number(text)) : null);
function setLab(asked) {
  const want = whole(asked.get('d_k')), seed = whole(asked.get('lab_seed'));
  if (!want && !seed) return;
  const start = Date.now();
  let shown = 0, sent = 0, before = null, typedOn = null;  // typedOn: the sentence as the values were last typed
  const kinds = ['pointerdown', 'keydown', 'input'];
  const touched = (e) => {
    if (e.isTrusted && e.target.closest?.('#lab-dk, #lab-seed, #tabs button[role=tab]')) stop();
  };
  const set = setInterval(() => {
    const box = dkBox(), sbox = seedBox(), words = document.querySelector('#scaling-words')?.textContent.trim() || '';
    const now = Date.now();
    if (now - start > LAB_GIVE_UP_MS) { stop(); return; }
    if (!box || !sbox || !words) return;
    before ??= words;
    const dkOk = !want || new RegExp(`^At d_k = ${want},`).test(words);
    const seedOk = !seed || (sbox.value === seed && (words !== before || seed === '0'));
    if (dkOk && seedOk) {
      shown ||= now;
      if (now - shown >= LAB_HOLD_MS) stop();
      return;
    }
    shown = 0;
    const answered = typedOn !== null && words !== typedOn;
    if (answered && ((want && box.value !== want) || (seed && sbox.value !== seed))) { stop(); return; }
    if (now - sent < LAB_AGAIN_MS) return;  // (the last one's answer may still be on its way)
    sent = now;
    typedOn = words;
    if (seed) enter(sbox, seed);
    if (want) enter(box, want);
  }, 700);
  function stop() {
    clearInterval(set);
    kinds.forEach((k) => document.removeEventListener(k, touched, true));
  }
  kinds.forEach((k) => document.addEventListener(k, touched, true));
}

let started = false;  // (one page, one start: a second hook that imports this finds it running)

export function mount() {
  if (started) return;
  started = true;
  const TABS = { workbench: 'Workbench', mask: 'Mask lab', scaling: 'Scaling lab', sentence: 'Sentence mode',
    real: 'Real model', train: 'Train' };
  const keyOf = (label) => Object.keys(TABS).find((k) => TABS[k] === label);
  // the tab buttons first (gradio also keeps hidden copies it measures), then its overflow menu's, which a narrow
  // window moves some tabs into
  const tabButtons = () => [...document.querySelectorAll('#tabs button[role=tab]'),
    ...document.querySelectorAll('#tabs .overflow-dropdown button, #tabs [class*=overflow] button')];
  function write(changes) {
    const q = new URLSearchParams(location.search);
    for (const [k, v] of Object.entries(changes)) { if (v == null) q.delete(k); else q.set(k, v); }
    const text = q.toString();
    history.replaceState(history.state, '', `${location.pathname}${text ? `?${text}` : ''}${location.hash}`);
  }
  document.addEventListener('click', (e) => {
    const b = e.target.closest && e.target.closest('#tabs button[role=tab]');
    if (!b) return;
    const key = keyOf(b.textContent.trim());
    write({ tab: key === 'workbench' ? null : key, d_k: key === 'scaling' ? dk() : null,
      lab_seed: key === 'scaling' ? seedNow() : null,
      ...(key === 'mask' ? maskNow() : MASK_NONE) });
  });
  const dk = () => dkBox()?.value || null;
  document.addEventListener('change', (e) => { if (e.target.closest?.('#lab-dk')) write({ d_k: dk() }); });
  for (const type of ['input', 'change']) {
    document.addEventListener(type, (e) => { if (e.target.closest?.('#lab-seed')) write({ lab_seed: seedNow() }); });
  }
  document.addEventListener('pointerup', (e) => {
    if (e.target.closest?.('#lab-dk')) setTimeout(() => write({ d_k: dk() }), 0);
  });
  document.addEventListener('pg-present', (e) => write({ present: e.detail.stage, t: e.detail.t ?? null, tab: null }));
  followState(write);
  followMask(write);

  // on load: the tab, then the lab's d_k, set as a learner would (the box's value and its Enter)
  const asked = new URLSearchParams(location.search);
  const tab = TABS[(asked.get('tab') || '').replace(/-lab$/, '')];
  if (!tab || asked.get('present')) return;
  const wait = setInterval(() => {
    const b = tabButtons().find((x) => x.textContent.trim() === tab);
    if (!b || !document.querySelector('#badge .html-container')?.textContent.trim()) return;
    clearInterval(wait);
    b.click();
    if (tab === 'Mask lab') setMask(asked);
    if (tab === 'Scaling lab') setLab(asked);
  }, 100);
}
