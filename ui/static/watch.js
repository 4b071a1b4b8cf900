// Number tables that follow edits (js_on_load of the overview and the notebook steps).
// After each re-render every cell whose exact value changed flashes for a moment, so the path of one edit
// through the pipeline can be seen; a click on a number asks the server to explain it.
// While a number is scrubbed (the page has the class ap-scrub, scrub.js) nothing flashes: a flash for each of dozens
// of repaints a second would strobe. What was shown before the scrub stays the reference, and when the scrub ends
// (ap-scrub-end) every number the whole scrub changed flashes once.
import { drawnView, viewId } from './live.js';
import * as page from './page.js';

export function mount(ctx) {
  const { element, trigger } = ctx;
  const snap = flasher(element);
  const { rescroll, refocus } = keeper(element);
  let drawn = false;
  function updated(kept) {
    if (!drawn) { drawn = true; snap(false); return; }  // the value the page was built with: nothing to flash
    snap(true);
    // drawn anew (another shape): the scroll and the focus put back, and each number table given its one Tab stop
    // again (a11y.js); drawn into the same nodes, each keeps its own (morph.js keeps tabindex, fill never writes it)
    if (!kept) { rescroll(); refocus(); page.roam(); }
    // the overview re-rendered: views that follow the workbench (pin and compare) may ask for their update, and
    // the numbers are fitted to the first screen again when the pipeline's shape changed (fit.js)
    if (element.querySelector('.overview')) {
      document.dispatchEvent(new CustomEvent('pg-updated'));
      page.fit();
    }
  }
  document.addEventListener('ap-scrub-end', () => snap(true));
  drawnView(ctx, updated);  // the page's value, an event's output, a live edit's answer (live.js)
  picker(element, trigger);
}

// the flash of the numbers an edit changed: snap(flash) reads the numbers shown, and with ``flash`` marks those
// that differ from the last read
function flasher(element) {
  const last = new Map();  // table (name, shape, window) -> its numbers' texts, in order, as last shown
  // a notebook cell far below the screen is not laid out (content-visibility, app.css); the browser says when that
  // changes, so no edit has to ask (asking lays the page out at once). Gradio puts the view's class on its block and
  // on a div inside it: the outer one is the one skipped, and the inner one, never laid out while it is, told only
  // that it was on screen once, as the page loaded (so every off-screen view was read and flashed at every edit)
  let nbCell = element.closest('.nb-view');
  for (let up = nbCell?.parentElement?.closest('.nb-view'); up; up = up.parentElement?.closest('.nb-view')) nbCell = up;
  let skipped = null;
  nbCell?.addEventListener('contentvisibilityautostatechange', (e) => { skipped = e.skipped; });
  function offScreen() {
    if (!nbCell) return false;
    if (skipped === null) {
      const t = element.querySelector('table.nt');  // (the element itself may have no box: display contents)
      if (!t) return false;
      skipped = t.checkVisibility?.({ contentVisibilityAuto: true }) === false;
    }
    return skipped;
  }
  let flashes = 0;
  const flashOf = new WeakMap();  // cell -> the flash that marked it last: an earlier flash's fading leaves it alone
  function snap(flash) {
    if (flash && page.scrubbing()) return;
    // nothing to flash in a cell not laid out, and what it showed before is forgotten, so it never flashes a change
    // from an edit it did not show
    if (offScreen()) { last.clear(); return; }
    const seen = new Map();
    const changed = [];
    for (const t of element.querySelectorAll('table.nt[data-name]')) {
      const tds = t.querySelectorAll('td[data-r]');
      const key = `${t.dataset.name}|${t.dataset.shape}|${tds[0]?.dataset.r}|${tds[0]?.dataset.c}`;
      const old = last.get(key), texts = new Array(tds.length);
      for (let i = 0; i < tds.length; i++) {
        const td = tds[i], v = td.title || td.textContent;
        texts[i] = v;
        if (flash && old && old[i] !== v) changed.push(td);
      }
      seen.set(key, texts);
    }
    last.clear();
    seen.forEach((v, k) => last.set(k, v));
    // marked with a class that fades in two steps (no per-frame animation: a flash repainted every frame for
    // hundreds of cells cost more than the edit itself)
    for (const td of changed) { td.classList.remove('chg2'); td.classList.add('chg'); }
    if (!changed.length) return;
    const n = ++flashes;
    for (const td of changed) flashOf.set(td, n);
    const mine = () => changed.filter((td) => flashOf.get(td) === n);
    setTimeout(() => mine().forEach((td) => { td.classList.remove('chg'); td.classList.add('chg2'); }), 700);
    setTimeout(() => mine().forEach((td) => td.classList.remove('chg2')), 1400);
  }
  return snap;
}

// where the view's tables were scrolled and which number had the focus, put back after the view is drawn anew
function keeper(element) {
  // a view drawn anew (another shape: live.js) loses where its scrolled tables were: kept by table name and put back
  const scrolled = new Map();
  element.addEventListener('scroll', (e) => {
    const t = e.target.querySelector && e.target.querySelector(':scope > table[data-name]');
    if (t) scrolled.set(t.dataset.name, [e.target.scrollLeft, e.target.scrollTop]);
  }, true);
  function rescroll() {
    scrolled.forEach(([x, y], name) => {
      const wrap = element.querySelector(`table[data-name="${name}"]`)?.parentElement;
      if (wrap && (wrap.scrollLeft !== x || wrap.scrollTop !== y)) { wrap.scrollLeft = x; wrap.scrollTop = y; }
    });
  }
  // and takes the keyboard focus with it: the number that had it gets it back (same table, row, col)
  const keyOf = (td) => `${page.nameOf(td)}|${td.dataset.r}|${td.dataset.c}`;
  let focused = null;
  element.addEventListener('focusin', (e) => { const td = e.target.closest('td[data-r]'); focused = td && keyOf(td); });
  element.addEventListener('focusout', (e) => { if (e.relatedTarget) focused = null; });  // moved on, not removed
  function refocus() {
    if (!focused || (document.activeElement && document.activeElement !== document.body)) return;
    const [name, r, c] = focused.split('|');
    const td = page.cellOf(element, { name, r, c });
    if (!td) return;
    td.closest('table').querySelectorAll('td[tabindex]').forEach((x) => x.removeAttribute('tabindex'));
    td.setAttribute('tabindex', '0');
    td.focus({ preventScroll: true });
  }
  return { rescroll, refocus };
}

// a click (or Enter) on a number asks the server to explain it
function picker(element, trigger) {
  const view = viewId(element);
  function pick(name, row, col) {
    // a new pick reopens a closed explanation (the workbench's, or the Real model tab's); the card is placed beside
    // this number once the explanation arrives (explain.js)
    for (const id of ['explain', 'rm-explain']) document.getElementById(id)?.classList.remove('closed');
    page.pick({ view, name, r: row, c: col });
    trigger('click', { name, row, col });
  }
  element.addEventListener('click', (e) => {
    const go = e.target.closest('button[data-goto]');  // a windowed table's button: reach (and explain) a hidden number
    if (go) {
      const [row, col] = go.dataset.goto.split(',').map(Number);
      const name = go.closest('.nt-win')?.querySelector('table[data-name]')?.dataset.name;
      if (name) pick(name, row, col);
      return;
    }
    const td = e.target.closest('td[data-r]');
    if (!td || !td.closest('table.nt')) return;
    pick(page.nameOf(td), +td.dataset.r, +td.dataset.c);
  });
  element.addEventListener('keydown', (e) => {
    const td = e.target.closest('td[data-r]');
    if (td && (e.key === 'Enter' || e.key === ' ')) { e.preventDefault(); td.click(); }
  });
}
