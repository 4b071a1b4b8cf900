// Number tables that follow edits (js_on_load of the overview and the notebook steps).
// After each re-render every cell whose exact value changed flashes for a moment, so the path of one edit
// through the pipeline can be seen; a click on a number asks the server to explain it.
// While a number is scrubbed (the page has the class ap-scrub, scrub.js) nothing flashes: a flash for each of dozens
// of repaints a second would strobe. What was shown before the scrub stays the reference, and when the scrub ends
// (ap-scrub-end) every number the whole scrub changed flashes once.
const last = new Map();
const scrubbing = () => document.documentElement.classList.contains('ap-scrub');
function snap(flash) {
  if (flash && scrubbing()) return;
  // a notebook cell far below the screen is not laid out (content-visibility): nothing to flash there, and
  // what it showed before is forgotten, so it never flashes a change from an edit it did not show
  const first = element.querySelector('table.nt');  // (the element itself may have no box: display contents)
  if (first && first.checkVisibility?.({ contentVisibilityAuto: true }) === false) { last.clear(); return; }
  const seen = new Map();
  const changed = [];
  element.querySelectorAll('table.nt[data-name]').forEach((t) => {
    const key0 = `${t.dataset.name}|${t.dataset.shape}|`;
    t.querySelectorAll('td[data-r]').forEach((td) => {
      const key = key0 + td.dataset.r + '|' + td.dataset.c;
      const v = td.title || td.textContent;
      const old = last.get(key);
      if (flash && old !== undefined && old !== v) changed.push(td);
      seen.set(key, v);
    });
  });
  last.clear();
  seen.forEach((v, k) => last.set(k, v));
  // marked with a class that fades in two steps (no per-frame animation: a flash repainted every frame for
  // hundreds of cells cost more than the edit itself)
  for (const td of changed) td.classList.add('chg');
  if (!changed.length) return;
  setTimeout(() => changed.forEach((td) => { td.classList.remove('chg'); td.classList.add('chg2'); }), 700);
  setTimeout(() => changed.forEach((td) => td.classList.remove('chg2')), 1400);
}
// gradio morphs the old tree into the new one node by node in JavaScript; for a large view a fresh native
// copy is far cheaper. A comment before the view's root makes the morph swap the root whole.
// (one root only: gradio pairs old and new top-level nodes by position)
const fresh = () => {
  if (element.childNodes.length === 1 && element.getElementsByTagName('td').length > 300) {
    element.prepend(document.createComment(''));
  }
};
// a swapped root also loses where its scrolled tables were: kept by table name and put back
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
// a swapped root takes the keyboard focus with it: the number that had it gets it back (same table, row, col)
const keyOf = (td) => `${td.closest('table').dataset.name}|${td.dataset.r}|${td.dataset.c}`;
let focused = null;
element.addEventListener('focusin', (e) => { const td = e.target.closest('td[data-r]'); focused = td && keyOf(td); });
element.addEventListener('focusout', (e) => { if (e.relatedTarget) focused = null; });  // moved on, not removed
function refocus() {
  if (!focused || (document.activeElement && document.activeElement !== document.body)) return;
  const [name, r, c] = focused.split('|');
  const td = element.querySelector(`table[data-name="${name}"] td[data-r="${r}"][data-c="${c}"]`);
  if (!td) return;
  td.closest('table').querySelectorAll('td[tabindex]').forEach((x) => x.removeAttribute('tabindex'));
  td.setAttribute('tabindex', '0');
  td.focus({ preventScroll: true });
}
function updated() {
  snap(true);
  rescroll();
  refocus();
  window.apRoam?.();  // each number table keeps one Tab stop (a11y.js)
  fresh();
  // the overview re-rendered: views that follow the workbench (pin and compare) may ask for their update, and
  // the numbers are fitted to the first screen again when the pipeline's shape changed (fit.js)
  if (element.querySelector('.overview')) {
    document.dispatchEvent(new CustomEvent('pg-updated'));
    window.pgFit?.();
  }
}
snap(false);
fresh();
document.addEventListener('ap-scrub-end', () => snap(true));
watch('value', updated);  // an event's output
liveView(updated);  // a live edit's answer (live.js)
const view = element.parentElement?.closest('[id]')?.id;
function pick(name, row, col) {
  // a new pick reopens a closed explanation (the workbench's, or the Real model tab's); the card is placed beside
  // this number once the explanation arrives (explain.js)
  for (const id of ['explain', 'rm-explain']) document.getElementById(id)?.classList.remove('closed');
  window.pgPicked = { view, name, r: row, c: col };
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
  pick(td.closest('table').dataset.name, +td.dataset.r, +td.dataset.c);
});
element.addEventListener('keydown', (e) => {
  const td = e.target.closest('td[data-r]');
  if (td && (e.key === 'Enter' || e.key === ' ')) { e.preventDefault(); td.click(); }
});
