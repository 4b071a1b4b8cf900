// Drawing a view into the nodes already on the page (live.js drawnView): only what differs is written.
//
// fill(host, cells): a live edit's answer for a view whose skeleton the page shows (ui/render/slots.py: every number
// cell's class, title and text, torch's prints' texts, the heatmaps' bytes and scale, as JSON) is written straight
// into its nodes, without parsing any HTML or touching what did not change.
// morph(host, html): a view's HTML (a new shape, or an event's output) is parsed and walked beside the nodes shown,
// written in place when the shapes agree, else drawn anew.

// attributes the page itself sets on drawn nodes, kept: the Tab stop (a11y.js), a canvas's painted bytes
// (heat.js), a <details> opened by the learner
const KEEP = new Set(['tabindex', 'data-painted', 'open']);
function attrs(x, y) {
  const ya = y.attributes;
  for (let i = 0; i < ya.length; i++) {
    const a = ya[i];
    if (x.getAttribute(a.name) !== a.value) {
      if (x.nodeName === 'CANVAS' && (a.name === 'width' || a.name === 'height')) delete x.dataset.painted;
      x.setAttribute(a.name, a.value);
    }
  }
  const xa = x.attributes;
  if (xa.length === ya.length) return;
  for (let i = xa.length - 1; i >= 0; i--) {
    const n = xa[i].name;
    if (!KEEP.has(n) && !y.hasAttribute(n)) x.removeAttribute(n);
  }
}
// a number cell: its class (colour), title (exact value), row and column are compared by name, and every
// attribute only when it has others (reading every attribute of thousands of cells is what makes gradio's redraw
// slow)
const CELL = ['class', 'title', 'data-r', 'data-c'];
function cell(x, y) {
  let named = 0;
  for (const n of CELL) {
    const v = y.getAttribute(n);
    if (v !== null) named++;
    if (x.getAttribute(n) !== v) { if (v === null) x.removeAttribute(n); else x.setAttribute(n, v); }
  }
  if (named !== y.attributes.length || named !== x.attributes.length - x.hasAttribute('tabindex')) attrs(x, y);
}
// one walk over old and new together (elements and texts): each difference is written as it is met, and the
// first node that differs in kind means another shape (the caller then replaces the whole view)
function same(host, fresh) {
  const a = document.createTreeWalker(host, 5), b = document.createTreeWalker(fresh, 5);
  let x = a.nextNode(), y = b.nextNode();
  while (x && y) {
    if (x.nodeName !== y.nodeName) return false;
    // (equal child counts at every element too: then the same order of names means the same tree)
    if (x.nodeType === 1 && x.childNodes.length !== y.childNodes.length) return false;
    if (x.nodeType === 3) { if (x.data !== y.data) x.data = y.data; }
    else if (x.nodeName === 'TD') cell(x, y);
    else attrs(x, y);
    x = a.nextNode();
    y = b.nextNode();
  }
  return !x && !y;
}
// ---- the slots of a live edit's answer (ui/render/slots.py Drawn.data) ------------------------------------------
// a number cell's class is sent as one character, its index into the answer's palette (slots.PALETTE)
const PALETTE = Array.from({ length: 92 }, (_, i) => String.fromCharCode(35 + i)).filter((ch) => ch !== '\\');
const INDEX = new Map(PALETTE.map((ch, i) => [ch, i]));
// a node's text set as the parser gives it: no text node for an empty text, one for any other
function setText(el, t) {
  const f = el.firstChild;
  if (f && f.nodeType === 3 && !f.nextSibling) {
    if (!t) el.textContent = '';
    else if (f.data !== t) f.data = t;
  } else if (t || f) el.textContent = t;
}
function setAttr(el, name, v) {
  if (el.getAttribute(name) !== v) el.setAttribute(name, v);
}
// the nodes that hold slots, in the order of the HTML (the order the server wrote them in): the number cells of the
// exact-number tables (class 'nt' alone: tables.html_table's; another table's cells are the skeleton's), torch's
// prints, the heatmaps' canvases
function slotsOf(host) {
  const nums = [];
  for (const table of host.getElementsByTagName('table')) {
    if (table.getAttribute('class') !== 'nt') continue;
    for (const td of table.getElementsByTagName('td')) if (td.hasAttribute('data-r')) nums.push(td);
  }
  return { nums, pres: host.querySelectorAll('pre[class="tensor"]'), canvases: host.getElementsByTagName('canvas') };
}
// fill(host, d): true when written; false (nothing written) when the page does not hold as many slots as ``d`` says
export function fill(host, d) {
  const { nums, pres, canvases } = slotsOf(host);
  if (nums.length !== d.cls.length || pres.length !== d.pre.length || canvases.length !== d.canvas.length) return false;
  const titles = d.title.split(' '), texts = d.text.split(' ');
  let t = 0;
  for (let i = 0; i < nums.length; i++) {
    const td = nums[i];
    setAttr(td, 'class', d.pal[INDEX.get(d.cls[i])]);  // (an edit's flash goes with the old class: watch.js)
    if (td.hasAttribute('title')) setAttr(td, 'title', titles[t++]);
    setText(td, texts[i]);
  }
  for (let i = 0; i < pres.length; i++) setText(pres[i], d.pre[i]);
  for (let i = 0; i < canvases.length; i++) {
    const cv = canvases[i], [lo, hi, z] = d.canvas[i];
    if (cv.dataset.lo === lo && cv.dataset.hi === hi && cv.dataset.z === z) continue;
    cv.removeAttribute('title');  // (a hover's, of the old values: heat.js)
    setAttr(cv, 'data-lo', lo);
    setAttr(cv, 'data-hi', hi);
    setAttr(cv, 'data-z', z);  // (heat.js paints it again: its painted mark names the old bytes)
  }
  return true;
}

// morph(host, html): draws ``html`` into ``host``, in place when the shapes agree; true when it did so
export function morph(host, html) {
  const tpl = document.createElement('template');
  tpl.innerHTML = html;
  if (host.firstChild && same(host, tpl.content)) return true;
  host.replaceChildren(tpl.content);
  return false;
}
