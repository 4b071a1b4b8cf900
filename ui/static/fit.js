// Readable from the back of the room (js_on_load of the A− / A+ buttons in the top bar).
// The teacher's text size (--ts on the page, remembered in localStorage) scales every text of the page, and the
// workbench's numbers are fitted: as large as the first screen allows (--nfs on #bench, 12 to 26 px at text size
// 1, then times the text size), so a 3×3 preset fills the room it has and an 11-token one still keeps the inputs
// and the output on the first screen. The fit measures the bench as laid out (a few layouts of a small page, one of a large
// one) only when its shape changes, the window is resized or the text size changes; after an edit it reads one
// rectangle and shrinks the numbers only if the bench no longer fits. Nothing here touches the cells.
import * as page from './page.js';

let started = false;  // (one page, one start: a second hook that imports this finds it running)

const KEY = 'pg-text-size';
const STEPS = [0.85, 1, 1.15, 1.3, 1.5, 1.75, 2];
const PROJECTOR = 1.5;  // present mode's numbers up to 60 px, every other text of it at least 32 px at 1080 p
const LO = 12, HI = 26, PHONE = 14;  // px at text size 1
const root = document.documentElement;
// the page's fit: the teacher's text size, what the last full fit was for (the tables' shapes, the bench's width,
// the text size), the numbers' size it found, whether that was a first-screen fit (not on a phone), and whether the
// first screen stopped them short of the text size
const S = { ts: 1, fitted: '', size: 0, free: true, capped: false };
const bench = () => document.getElementById('bench');
const set = (b, px) => { S.size = px; b.style.setProperty('--nfs', `${px.toFixed(2)}px`); };
const shapes = (b) => Array.from(b.querySelectorAll('table[data-name]'),
  (t) => t.dataset.name + (t.dataset.shape || `${t.rows.length}x${t.rows[0]?.cells.length || 0}`)).join();

// the bench fits when it ends on the first screen and no card has to scroll its numbers
function fits(b) {
  if (b.getBoundingClientRect().bottom + scrollY > innerHeight - 4) return false;
  for (const w of b.querySelectorAll('.card .nt-wrap, .card .grid-wrap')) {
    if (w.scrollWidth > w.clientWidth + 1 || w.scrollHeight > w.clientHeight + 1) return false;
  }
  return true;
}

// the largest size in [lo, hi] that fits (the bench grows with its numbers), to a quarter pixel
function best(b, lo, hi) {
  set(b, hi);
  if (fits(b)) return;
  set(b, lo);
  if (!fits(b)) return;
  while (hi - lo > 0.25) {
    const mid = (lo + hi) / 2;
    set(b, mid);
    if (fits(b)) lo = mid; else hi = mid;
  }
  set(b, lo);
}

// The fit is found at text size 1, then scaled by the teacher's text size: A− smaller; A+ larger as far as the
// bench still ends on the first screen (issue 37: one press pushed the output to y = 974 at 1280×720).
function fit(force) {
  const b = bench();
  if (!b || !b.offsetWidth || document.body.classList.contains('presenting')) return;
  const key = `${shapes(b)}|${b.offsetWidth}|${S.ts}`;
  if (!force && key === S.fitted) {
    // an edit made a number longer: shrink, never grow (nothing jumps while editing); a phone's bench never ends on
    // the first screen, and keeps its size (every first edit shrank it 14 -> 12 px, moving each card below X)
    if (S.ts === 1 && S.free && S.size > LO && !fits(b)) best(b, LO, S.size);
    return;
  }
  S.fitted = key;
  // Gradio's buttons and boxes ease every property (0.15 to 0.2 s): measured while they ease, the page would
  // still have the old text size's layout. Nothing eases while the fit measures, nor when the final size is set.
  root.classList.add('pg-fitting');
  if (S.ts !== 1) root.style.setProperty('--ts', '1');
  const top = b.getBoundingClientRect().top + scrollY;
  const free = !(innerWidth <= 760 || top > innerHeight * 0.6);  // else a phone, or too short: no first-screen fit
  S.free = free;
  if (free) best(b, LO, HI); else set(b, PHONE);
  S.capped = false;
  if (S.ts > 1 && free) {  // A+: larger by the text size while the bench still ends on the first screen, never
    const base = S.size;   // smaller than at 100% (the controls grew too: where the screen ends, the size stops)
    root.style.setProperty('--ts', String(S.ts));
    best(b, base, base * S.ts);
    S.capped = S.size < base * S.ts - 0.25;
  } else if (S.ts !== 1) {  // A−, or no first-screen fit: the numbers follow the text size
    root.style.setProperty('--ts', String(S.ts));
    set(b, S.size * S.ts);
  }
  void b.offsetHeight;  // the final size's style is computed before easing comes back, so nothing eases to it
  root.classList.remove('pg-fitting');
}

export function mount({ element }) {
  if (started) return;
  started = true;
  S.ts = STEPS.includes(+localStorage.getItem(KEY)) ? +localStorage.getItem(KEY) : 1;
  let queued = false;
  const refit = (force) => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; fit(force); limit(element, pressed); pressed = false; });
  };
  let pressed = false;  // (the fit that follows a press of A+ says so when the numbers could not grow)
  let width = 0;  // the bench shown again (a tab), the window resized, the browser zoomed: fit anew
  page.provide('fit', refit);
  new ResizeObserver(() => {
    const b = bench();
    if (b && b.offsetWidth !== width) { width = b.offsetWidth; refit(true); }
  }).observe(document.body);
  addEventListener('resize', () => refit(true));
  document.fonts?.ready.then(() => refit(true));

  const buttons = () => element.querySelectorAll('button[data-ts]');
  function show() {
    root.style.setProperty('--ts', String(S.ts));
    buttons().forEach((btn) => {
      const next = STEPS.indexOf(S.ts) + +btn.dataset.ts;
      btn.disabled = next < 0 || next >= STEPS.length;
    });
    element.querySelector('.ts')?.setAttribute('title', `text size ${Math.round(S.ts * 100)}%`);
    document.dispatchEvent(new CustomEvent('pg-ts', { detail: S.ts }));  // present mode fits again
  }
  function choose(next) {
    S.ts = next;
    localStorage.setItem(KEY, String(S.ts));
    show();
    refit(true);
  }
  const by = (d) => STEPS[Math.max(0, Math.min(STEPS.length - 1, STEPS.indexOf(S.ts) + d))];
  element.addEventListener('click', (e) => {
    const btn = e.target.closest('button[data-ts]');
    if (btn) {
      pressed = +btn.dataset.ts > 0;
      choose(by(+btn.dataset.ts));
      return;
    }
    if (e.target.closest('button.projector')) {  // one press: the projector's size, and present mode
      choose(PROJECTOR);
      document.getElementById('present-btn')?.click();
    }
  });
  document.addEventListener('pg-ts-step', (e) => choose(by(+e.detail)));  // present mode's A− / A+
  show();
}

// A+ at its limit (issue 37): where the first screen ends, the workbench's numbers stop growing (the default preset
// fills 1280×720 at 100% already), while every other text of the page (the tour, explain, the quiz, the labs,
// present mode) still grows with the text size. A+ says so in its title, and a press that found the numbers
// stopped shows a short note under the buttons for a few seconds (over the page, so nothing moves).
const LIMIT = 'numbers at their largest for this screen; the tour, explain, quiz, labs and present mode still grow';
let hideNote = 0;
function limit(element, pressed) {
  const plus = element.querySelector('button[data-ts="1"]');
  if (!plus) return;
  plus.title = S.capped ? `larger text: the workbench's ${LIMIT}` : 'larger text, for a projector';
  let note = element.querySelector('.ts-note');
  if (!note) {
    note = document.createElement('p');
    note.className = 'ts-note';
    note.id = 'ts-note';
    note.setAttribute('role', 'status');
    note.hidden = true;
    element.querySelector('.ts')?.append(note);
  }
  if (S.capped) plus.setAttribute('aria-describedby', note.id); else plus.removeAttribute('aria-describedby');
  note.textContent = S.capped ? `Workbench ${LIMIT}.` : '';
  if (!S.capped) { note.hidden = true; return; }
  if (!pressed) return;
  note.hidden = false;
  clearTimeout(hideNote);
  hideNote = setTimeout(() => { note.hidden = true; }, 6000);
}
