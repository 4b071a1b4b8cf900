// The explain card (js_on_load of #explain): it opens beside the number that was clicked, never over it, and
// away from the numbers it came from where the screen allows; it moves with the page, and scrolls inside itself
// when the arithmetic is long. watch.js records the click (page.js pick); the card places itself once the
// explanation has arrived, again for a new pick, and after an edit only if it would cover the number.
import { liveView } from './live.js';
import * as page from './page.js';

export function mount(ctx) {
  const { element, watch } = ctx;
  liveView(ctx, placeSoon);
  watch('value', placeSoon);
  // the card's closed state, mirrored on <body> (app.css: a closed card's number is no longer marked). A rule of
  // body:has(#explain.closed) did it, and made every edit restyle the whole page (77 ms at T=64, d=64, 8 heads)
  const shut = () => document.body.classList.toggle('ex-shut',
    !!document.getElementById('explain')?.classList.contains('closed'));
  new MutationObserver(shut).observe(element.closest('#explain') || document.getElementById('explain') || element,
    { attributes: true, attributeFilter: ['class'] });
  shut();
  element.addEventListener('click', (e) => {
    if (e.target.closest('.ex-close')) document.getElementById('explain').classList.add('closed');
  });
  document.addEventListener('keydown', (e) => {  // Escape closes an open card, as its ✕ does
    const card = document.getElementById('explain');
    if (e.key !== 'Escape' || !card || card.classList.contains('closed') || !card.querySelector('.ex-title')) return;
    if (e.target.closest?.('input, textarea, select, [role=dialog]')) return;  // (an editor's or a sheet's own Escape)
    e.preventDefault();  // this Escape is spent: present mode (present.js) leaves only at the next one
    card.classList.add('closed');
  });
  let placedFor = '';
  function placeSoon() { requestAnimationFrame(place); }
  function place() {
    const card = document.getElementById('explain');
    const pick = page.picked();
    if (!card || !pick || card.classList.contains('closed') || !card.querySelector('.ex-title, .msg-warn')) return;
    const view = document.getElementById(pick.view);
    const cell = page.cellOf(view, pick);
    if (!cell || !cell.getBoundingClientRect().width) return;
    const key = `${pick.view}|${pick.name}|${pick.r}|${pick.c}|${innerWidth}`;
    // a new pick is brought into sight first (a windowed table's button picks a number its card may have scrolled
    // away from); a clicked number already is, and nothing moves
    if (key !== placedFor) cell.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    const c = box(cell.getBoundingClientRect());
    if (key === placedFor && area(box(card.getBoundingClientRect()), c) === 0) return;  // an edit: it stays put
    placedFor = key;
    // the card is absolutely placed in the page (it scrolls with the number); its place is a style rule of its own,
    // not the block's style attribute, which gradio rewrites. Its origin is measured, not assumed.
    rule('left: 0px; top: 0px;');
    const sizes = widths(card);
    const at = spot(c, obstacles(cell, view), sizes);
    rule('left: 0px; top: 0px;');
    const o = card.getBoundingClientRect();
    rule(`left: ${Math.round(at.x - o.left)}px; top: ${Math.round(at.y - o.top)}px; width: ${at.w}px; `
      + `max-height: ${Math.round(at.h)}px;`);
    if (at.dy) scrollBy({ left: 0, top: at.dy, behavior: 'instant' });  // the card needs the page moved to fit whole
  }
}

const box = (r) => ({ l: r.left, t: r.top, r: r.right, b: r.bottom });

const area = (a, b) => Math.max(0, Math.min(a.r, b.r) - Math.max(a.l, b.l)) * Math.max(0, Math.min(a.b, b.b) - Math.max(a.t, b.t));

const union = (rs) => rs.length ? {
  l: Math.min(...rs.map((r) => r.l)), t: Math.min(...rs.map((r) => r.t)),
  r: Math.max(...rs.map((r) => r.r)), b: Math.max(...rs.map((r) => r.b)),
} : null;

const rects = (els) => [...els].map((e) => box(e.getBoundingClientRect())).filter((r) => r.r > r.l);

// what the card should leave in sight, each with how much covering it costs (per px²): the number itself, its row
// and column, the cards the number came from, its own card, the tour's bubble, a windowed table's paging buttons,
// and (a little) any other card
function obstacles(cell, view) {
  const table = cell.closest('table'), r = cell.dataset.r, c = cell.dataset.c;
  const own = cell.closest('.card') || table;
  const used = [...(view?.querySelectorAll('td.used') || [])];
  const from = new Set(used.map((td) => td.closest('.card') || td.closest('table')));
  from.delete(own);
  const out = [{ ...box(cell.getBoundingClientRect()), k: 1e4 }];
  const add = (rect, k) => { if (rect) out.push({ ...rect, k }); };
  add(union(rects(table.querySelectorAll(`td[data-r="${r}"]`))), 100);
  add(union(rects(table.querySelectorAll(`td[data-c="${c}"]`))), 100);
  used.forEach((td) => add(box(td.getBoundingClientRect()), 100));
  from.forEach((el) => add(box(el.getBoundingClientRect()), 30));
  add(box(own.getBoundingClientRect()), 30);
  const note = cell.closest('.nt-win')?.querySelector('.win-note');
  if (note) add(box(note.getBoundingClientRect()), 1000);
  // the page's controls, the top bar's and the toolbar's (a card over them took every click meant for them until it
  // was closed: q[1, 1] at 1280×720 opened over the preset picker, the tabs, mask, heads and scale, with the right
  // half of the screen empty), as much as a number's row: the card goes over them only where nothing else is free
  document.querySelectorAll('#topbar, #toolbar, #tabs [role=tablist]').forEach((el) => add(box(el.getBoundingClientRect()), 100));
  const tour = document.getElementById('tour-pop');
  if (tour && tour.getBoundingClientRect().width) add(box(tour.getBoundingClientRect()), 300);
  document.querySelectorAll('#bench .card').forEach((el) => { if (el !== own && !from.has(el)) add(box(el.getBoundingClientRect()), 1); });
  return out.filter((o) => o.r > o.l && o.b > o.t);
}

// the widths the card may take (its own, then narrower: a narrower card may fit a gap beside the tables) and the
// height its content needs at each
function widths(card) {
  const w0 = card.offsetWidth, out = [];
  for (const f of [1, 0.8, 0.65]) {
    const w = Math.round(w0 * f);
    if (f < 1 && w < 260) break;
    rule(`left: 0px; top: 0px; width: ${w}px; max-height: none;`);
    out.push({ w, need: card.scrollHeight + 4 });
  }
  return out;
}

// where the card goes: the place (among places beside the number and beside each obstacle, at each width) whose card
// covers the least of what should stay in sight, shows its whole content, needs the page moved least and sits
// nearest the number; the number itself is covered only when no other place exists. Viewport coordinates, before
// the page is moved by ``dy``.
function spot(cell, avoid, sizes) {
  const vw = document.documentElement.clientWidth, vh = innerHeight, m = 8, g = 10;
  const room = document.scrollingElement.scrollHeight - vh;
  let best = null;
  for (const { w, need } of sizes) {
    const h = Math.min(need, Math.round(vh * 0.6));
    const xs = new Set([m, vw - w - m, cell.r + g, cell.l - g - w, cell.l - w / 2]);
    const ys = new Set([m, vh - h - m, cell.t - 40, cell.b + g, cell.t - g - h]);
    avoid.forEach((o) => { xs.add(o.r + g); xs.add(o.l - g - w); ys.add(o.b + g); ys.add(o.t - g - h); });
    for (const x0 of xs) {
      const x = Math.round(Math.max(m, Math.min(x0, vw - w - m)));
      for (const y0 of ys) {
        const y = Math.round(y0);
        const dy = y < m ? y - m : Math.max(0, y + h - (vh - m));
        if (dy && (scrollY + dy < 0 || scrollY + dy > room || cell.t - dy < m || cell.b - dy > vh - m)) continue;
        const r = { l: x, t: y, r: x + w, b: y + h };
        const near = Math.max(0, r.l - cell.r, cell.l - r.r) + Math.max(0, r.t - cell.b, cell.t - r.b);
        const score = avoid.reduce((s, o) => s + o.k * area(r, o), 0) + (need - h) * w * 30
          + Math.abs(dy) * 300 + near * 20 + (sizes[0].w - w) * 20;
        if (!best || score < best.score) best = { score, x, y, w, h, dy };
      }
    }
  }
  return best;
}

function rule(css) {
  let sheet = document.getElementById('explain-place');
  if (!sheet) {
    sheet = document.createElement('style');
    sheet.id = 'explain-place';
    document.head.appendChild(sheet);
  }
  sheet.textContent = `#explain {${css.replace(/;/g, ' !important;')}}`;
}
