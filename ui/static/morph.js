// Drawing a view's new HTML into the nodes already on the page (live.js drawnView): only what differs is written.

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
// ---- a redraw from the two HTML strings alone: the common case of an edit ----
// Between two values of one shape only the number cells (<td>: class, title, text), the text of torch's
// prints (<pre class='tensor'>) and the heatmaps' canvases' attributes (their bytes and scale: heat.js paints
// them) change. Then the new string is cut at every '<td' as the old one was, and only the cells whose text
// differs are written, without parsing the new HTML into nodes or reading the others (at T=64 parsing and
// walking ~8,000 cells was most of an edit's drawing). Anything else that differs, or a page that does not hold
// as many cells, prints or canvases as the strings say, is left to the walk below.
const ENTITY = { amp: '&', lt: '<', gt: '>', quot: '"', '#x27': "'", '#39': "'" };  // (what html.escape writes)
const NAMES = Object.keys(ENTITY).join('|');
const ESCAPED = new RegExp(`&(${NAMES});`, 'g');
const unescape = (t) => (t.indexOf('&') < 0 ? t : t.replace(ESCAPED, (_, e) => ENTITY[e]));
const ATTR = new RegExp(`\\s+([a-z][\\w-]*)='([^'&]*(?:&(?:${NAMES});[^'&]*)*)'`, 'y');
const PRE = "pre class='tensor'>";
// a text written as it stands only when a parse would give the same: known entities, no CR or NUL (the parser
// changes both), and no newline first (a parser drops one right after <pre>)
const ODD = new RegExp(`&(?!(${NAMES});)|[\\r\\0]`);
const plain = (t) => !ODD.test(t) && t[0] !== '\n';
// a cell's text from its '<td' on: {attrs: [[name, value]...], text, rest} or null when not a plain cell
function cellOf(part) {
  const end = part.indexOf('</td>');
  if (end < 0) return null;
  const tag = part.indexOf('>');
  if (tag < 0 || tag > end || part.lastIndexOf('<', end - 1) >= 0) return null;  // (a tag inside the cell)
  const attrs = [];
  ATTR.lastIndex = 0;
  let m;
  while (ATTR.lastIndex < tag && (m = ATTR.exec(part)) && ATTR.lastIndex <= tag) attrs.push([m[1], unescape(m[2])]);
  if (ATTR.lastIndex !== tag) return null;
  const text = part.slice(tag + 1, end);
  if (!plain(text) || attrs.some(([, v]) => /[\r\0]/.test(v))) return null;
  return { attrs, text: unescape(text), rest: part.slice(end + 5) };
}
// a tag's attributes from ``from`` (the name's end) on: {attrs, rest} or null when not plain attributes
function tagOf(part, from) {
  const tag = part.indexOf('>');
  if (tag < 0) return null;
  const attrs = [];
  ATTR.lastIndex = from;
  let m;
  while (ATTR.lastIndex < tag && (m = ATTR.exec(part)) && ATTR.lastIndex <= tag) attrs.push([m[1], unescape(m[2])]);
  if (ATTR.lastIndex !== tag || attrs.some(([, v]) => /[\r\0]/.test(v))) return null;
  return { attrs, rest: part.slice(tag + 1) };
}
const CANVAS = 'canvas';
const isCanvas = (t) => t.startsWith(CANVAS) && /\s/.test(t[CANVAS.length]);
// the prints whose text differs in two runs of markup ([ordinal, text] into out.texts), and the canvases whose
// attributes differ ([ordinal, attrs] into out.tags); n: the prints and canvases before them. False when
// anything else differs, a canvas's attributes included other than in their values
function prints(was, now, n, out) {
  const a = was.split('<'), b = now.split('<');
  if (a.length !== b.length) return false;
  for (let i = 0; i < b.length; i++) {
    const pre = b[i].startsWith(PRE), cv = isCanvas(b[i]);
    if (a[i] !== b[i]) {
      if (pre && a[i].startsWith(PRE) && plain(b[i].slice(PRE.length))) {
        out.texts.push([n.pres, unescape(b[i].slice(PRE.length))]);
      } else if (cv && isCanvas(a[i])) {
        const x = tagOf(a[i], CANVAS.length), y = tagOf(b[i], CANVAS.length);
        if (!x || !y || x.rest !== y.rest || x.attrs.map((p) => p[0]).join() !== y.attrs.map((p) => p[0]).join()) {
          return false;
        }
        out.tags.push([n.canvases, y.attrs]);
      } else return false;
    }
    if (pre) n.pres++;
    if (cv) n.canvases++;
  }
  return true;
}
function quick(host, html, old) {
  const a = old.split('<td'), b = html.split('<td');
  const tds = host.getElementsByTagName('td');
  if (a.length !== b.length || tds.length !== b.length - 1) return false;
  const cells = [], out = { texts: [], tags: [] }, n = { pres: 0, canvases: 0 };
  for (let i = 0; i < b.length; i++) {
    if (a[i] === b[i]) {  // (prints and canvases unchanged: counted)
      n.pres += b[i].split(`<${PRE}`).length - 1;
      n.canvases += b[i].split(`<${CANVAS}`).length - 1;  // (no other tag starts with it)
      continue;
    }
    let was = a[i], now = b[i];
    if (i > 0) {
      const x = cellOf(was), y = cellOf(now);
      if (!x || !y) return false;
      if (was.length - x.rest.length !== now.length - y.rest.length || was.slice(0, was.length - x.rest.length)
        !== now.slice(0, now.length - y.rest.length)) cells.push([i - 1, x, y]);  // (only what follows it differs)
      was = x.rest;
      now = y.rest;
    }
    if (was !== now || now.includes(PRE) || now.includes(`<${CANVAS}`)) { if (!prints(was, now, n, out)) return false; }
  }
  const printed = host.querySelectorAll('pre.tensor'), canvases = host.getElementsByTagName('canvas');
  if (printed.length !== n.pres || canvases.length !== n.canvases) return false;
  for (const [k, t] of out.texts) {
    const f = printed[k].firstChild;
    if (f && f.nodeType === 3 && !f.nextSibling) { if (f.data !== t) f.data = t; } else printed[k].textContent = t;
  }
  for (const [k, attrs] of out.tags) {
    const cv = canvases[k];
    if (!attrs.some(([name]) => name === 'title')) cv.removeAttribute('title');  // (a hover's, of the old values)
    for (const [name, v] of attrs) {
      if (cv.getAttribute(name) === v) continue;
      if (name === 'width' || name === 'height') delete cv.dataset.painted;  // (a canvas resized is blank)
      cv.setAttribute(name, v);
    }
  }
  for (const [k, x, y] of cells) {
    const td = tds[k];
    for (const [nm, v] of y.attrs) if (td.getAttribute(nm) !== v) td.setAttribute(nm, v);
    for (const [nm] of x.attrs) if (!KEEP.has(nm) && !y.attrs.some((p) => p[0] === nm)) td.removeAttribute(nm);
    const f = td.firstChild;
    if (f && f.nodeType === 3 && !f.nextSibling) { if (f.data !== y.text) f.data = y.text; }
    else if (td.textContent !== y.text) td.textContent = y.text;
  }
  return true;
}
// morph(host, html, old): draws ``html`` into ``host``, in place when the shapes agree; true when it did so.
// ``old``: the HTML last drawn there, when the page still shows it
export function morph(host, html, old) {
  if (old && host.firstChild && quick(host, html, old)) return true;
  const tpl = document.createElement('template');
  tpl.innerHTML = html;
  if (host.firstChild && same(host, tpl.content)) return true;
  host.replaceChildren(tpl.content);
  return false;
}
