// What answers an open question, off the page until it is answered (issue 37): the workbench quiz's question
// (js_on_load of #quiz-q: its data-hide) and a lesson room's (room.js: set('room', spec)) use this one module.
//
// A spec (ui/learn.py hidden) names cells [table, row, col|null] of the overview and the notebook, the notebook
// steps whose torch print shows them, heatmap cells [figure, row, col|null], and rows [table, row] whose
// explanation would print them. A hidden number is gone from the page, not only painted over: its text is '?', its
// tooltip says it is hidden, its colour class is dropped, a print says it is hidden, a heatmap's bytes are grey
// there and its hover says so; a click on it (or on a row whose explanation would give it) explains nothing, and
// an explain card already open on one closes. What was there is kept in this module (never in the page) and put
// back when no question asks any more. The views redraw themselves at every edit (morph.js writes each number into
// the node shown): a MutationObserver hides again what they wrote, before the browser paints it.
import { paintCanvas } from './heat.js';
import * as page from './page.js';

const MARK = '?';
const NOTE = 'hidden while the question is open';
const MARKED = 'ap-asked';  // a revealed question's cell (learn.css outlines it)
const VIEWS = '#overview, .nb-view';
const specs = new Map();  // source ('quiz', 'room') -> its spec
let shown = new Set();  // the nodes hidden now
const kept = new WeakMap();  // node -> what it held before it was hidden
let observer = null;
let started = false;

export function set(source, spec) {
  if (spec) specs.set(source, spec);
  else specs.delete(source);
  start();
  apply();
}

export function mount({ element }) {  // the quiz's question element: its open question's data-hide
  start();
  const read = () => {
    const q = element.querySelector('.quiz-q[data-hide]');
    let spec = null;
    try { spec = q ? JSON.parse(q.dataset.hide) : null; } catch { spec = null; }
    set('quiz', spec);
  };
  new MutationObserver(read).observe(element, { childList: true, subtree: true, attributes: true });
  read();
}

// the head the overview shows, 0-based (ui/render/overview.py data-head), or null where none is drawn
export function shownHead() {
  const h = document.querySelector('#overview .overview[data-head]')?.dataset.head;
  return h ? Number(h) - 1 : null;
}
// a spec's own head (its ``head``, 0-based; null for one about every head, the heads combined) is ``shown``, or
// unknown (``shown`` null)
const onItsHead = (spec, shown) => spec.head == null || shown === null || shown === spec.head;
// the parts of every spec, each spec's per-head parts only while its head is shown: another head's row of the same
// name is not the asked one (the combined heads' table and a heatmap of one named head are always its own)
const OWN = (key, part) => (['cells', 'explain', 'mark'].includes(key) ? part[0] === 'combine'
  : key === 'heat' ? /^hm-head\d+$/.test(part[0]) : true);
const union = (key) => {
  const shown = shownHead();  // (asked once: the page's observer runs this at every change while a spec is set)
  return [...specs.values()].flatMap((s) => [...(s[key] || []).filter((p) => onItsHead(s, shown) || OWN(key, p)),
    ...(key === 'cells' ? headed(s) : [])]);
};
// present mode's every head, side by side (ui/render/stages.py heads_cards, head_output_cards: weights_h2, output_h2):
// the question's head's own tables, whatever head is shown, and every head's output rows of a hidden combined row
// (the heads' outputs joined are that row; the "Every head" stage showed the asked row of head 2 on every screen)
function headed(spec) {
  const out = [];
  for (const [name, r, c] of spec.cells || []) {
    if (spec.head != null && (name === 'weights' || name === 'output')) out.push([`${name}_h${spec.head + 1}`, r, c]);
    if (name !== 'combine') continue;
    document.querySelectorAll('#overview table[data-name^="output_h"]').forEach((t) => out.push([t.dataset.name, r, null]));
  }
  return out;
}

// whether the number (table name, row, col) is hidden, or its explanation would give a hidden one away
export function refused(name, r, c) {
  return union('cells').some(([n, row, col]) => n === name && row === r && (col === null || col === c))
    || union('explain').some(([n, row]) => n === name && row === r);
}

function start() {
  if (started) return;
  started = true;
  observer = new MutationObserver(apply);
  // a click on a hidden number (or a windowed table's button that brings one in) explains nothing
  document.addEventListener('click', (e) => {
    if (!specs.size || !e.target.closest) return;
    const td = e.target.closest('td[data-r][data-c]');
    const go = e.target.closest('button[data-goto]');
    const table = (td || go)?.closest('.nt-win, .nt-wrap')?.querySelector('table[data-name]');
    if (!table || !table.closest(VIEWS)) return;
    const [r, c] = td ? [+td.dataset.r, +td.dataset.c] : go.dataset.goto.split(',').map(Number);
    if (!refused(table.dataset.name, r, c)) return;
    e.stopPropagation();
    e.preventDefault();
  }, true);
}

// The mask lab's tables are the workbench's scores under the lab's own mask (ui/render/mask_tables.py): with the
// same mask its softmax and weights are the workbench's weights, its masked scores the workbench's. An asked cell is
// hidden there too, under each of the lab's three fills (a quiz's weights[1, 2] read 0.401141100 in the lab's
// "weights shown" while the overview showed '?')
const LAB = { weights: ['lab-raw', 'lab-weights'], scores: ['lab-masked'], scaled: ['lab-masked'],
  masked: ['lab-masked'] };
function wanted() {  // node -> how to hide it
  const out = new Map();
  for (const [name, r, c] of union('cells')) {
    const at = `td[data-r="${r}"]${c === null ? '' : `[data-c="${c}"]`}`;
    const sel = `table[data-name="${CSS.escape(name)}"] ${at}`;
    const lab = (LAB[name] || []).map((n) => `table[data-name^="${n}"] ${at}`);
    document.querySelectorAll([...VIEWS.split(', ').map((v) => `${v} ${sel}`), ...lab].join(', '))
      .forEach((td) => out.set(td, 'td'));
  }
  for (const [name, r, c] of union('mark')) {  // a revealed question's cell, outlined (its head's only)
    document.querySelectorAll(`#overview table[data-name="${CSS.escape(name)}"] td[data-r="${r}"][data-c="${c}"]`)
      .forEach((td) => out.set(td, 'mark'));
  }
  for (const step of union('prints')) {
    const pre = document.querySelector(`#html-${CSS.escape(step)} pre.tensor`);
    if (pre) out.set(pre, 'pre');
  }
  for (const [fig, r, c] of union('heat')) {
    document.querySelectorAll(`figure[data-name="${CSS.escape(fig)}"] canvas[data-z]`).forEach((cv) => {
      const cells = out.get(cv) || [];
      cells.push([r, c]);
      out.set(cv, cells);
    });
  }
  return out;
}

function apply() {
  observer.disconnect();
  const want = wanted();
  for (const n of shown) if (!want.has(n) || want.get(n) === 'mark') restore(n);  // (revealed: shown again)
  want.forEach((how, n) => (how === 'mark' ? n.classList.add(MARKED) : how === 'td' ? hideCell(n)
    : how === 'pre' ? hidePrint(n) : hideHeat(n, how)));
  shown = new Set(want.keys());
  const p = page.picked();
  const card = document.getElementById('explain');
  if (p && card && !card.classList.contains('closed') && refused(p.name, p.r, p.c)) card.classList.add('closed');
  if (specs.size) {
    observer.observe(document.body, { subtree: true, childList: true, characterData: true,
      attributes: true, attributeFilter: ['class', 'title', 'data-z', 'data-head'] });
  }
}

const BUCKET = /^(p\d+|s\d+|m)$/;  // a number's colour class (ui/render/tables.py _bucket): it tells its size
function hideCell(td) {
  const k = kept.get(td) || {};
  if (td.textContent !== MARK) k.text = td.textContent;
  if (td.hasAttribute('title') && td.title !== NOTE) k.title = td.title;
  if (!td.classList.contains('ap-hid')) k.cls = td.className;
  kept.set(td, k);
  if (td.textContent !== MARK) td.textContent = MARK;
  if (td.hasAttribute('title') && td.title !== NOTE) td.title = NOTE;  // (a cell without one gets none: morph.js)
  if (!td.classList.contains('ap-hid')) {
    td.className = [...td.classList].filter((c) => !BUCKET.test(c)).concat('ap-hid').join(' ');
  }
}

function hidePrint(pre) {
  const k = kept.get(pre) || {};
  const note = `tensor(…): ${NOTE}`;
  if (pre.textContent !== note) { k.text = pre.textContent; pre.textContent = note; }
  kept.set(pre, k);
}

function hideHeat(cv, cells) {
  const k = kept.get(cv) || {};
  if (cv.dataset.z !== k.hid) k.z = cv.dataset.z;
  const bytes = Uint8Array.from(atob(k.z), (ch) => ch.charCodeAt(0));
  const w = cv.width;
  for (const [r, c] of cells) {
    for (let j = 0; j < w; j++) if (c === null || c === j) bytes[r * w + j] = 255;  // grey, as a masked cell
  }
  k.hid = btoa(String.fromCharCode(...bytes));
  kept.set(cv, k);
  cv.dataset.hidden = JSON.stringify(cells);  // heat.js's hover names these hidden
  cv.closest('figure')?.classList.add('ap-hid');
  if (cv.dataset.z !== k.hid) { cv.dataset.z = k.hid; paintCanvas(cv); }
}

function restore(n) {
  n.classList?.remove(MARKED);
  const k = kept.get(n);
  kept.delete(n);
  if (!k || !n.isConnected) return;
  if (n.nodeName === 'CANVAS') {
    delete n.dataset.hidden;
    n.closest('figure')?.classList.remove('ap-hid');
    if (n.dataset.z === k.hid) { n.dataset.z = k.z; paintCanvas(n); }
    return;
  }
  if (n.nodeName === 'PRE' ? n.textContent.endsWith(NOTE) : n.textContent === MARK) n.textContent = k.text ?? '';
  if (k.title !== undefined && n.title === NOTE) n.title = k.title;
  if (k.cls !== undefined && n.classList.contains('ap-hid')) n.className = k.cls;
}
