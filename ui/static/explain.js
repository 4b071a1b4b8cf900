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
    const w = card.offsetWidth;
    const h = Math.min(card.scrollHeight + 4, Math.round(innerHeight * 0.6));
    const note = cell.closest('.nt-win')?.querySelector('.win-note');
    const at = spot(c, sources(view), note && box(note.getBoundingClientRect()), w, h);
    const o = card.getBoundingClientRect();
    rule(`left: ${Math.round(at.x - o.left)}px; top: ${Math.round(at.y - o.top)}px; max-height: ${Math.round(at.h)}px;`);
  }
}

const box = (r) => ({ l: r.left, t: r.top, r: r.right, b: r.bottom });

const area = (a, b) => Math.max(0, Math.min(a.r, b.r) - Math.max(a.l, b.l)) * Math.max(0, Math.min(a.b, b.b) - Math.max(a.t, b.t));

// the cells the explained number came from, one rectangle per table (only what is on screen)
function sources(view) {
  const per = new Map();
  view?.querySelectorAll('td.used, td.pick').forEach((td) => {
    const r = td.getBoundingClientRect();
    if (!r.width || r.bottom < 0 || r.top > innerHeight) return;
    const t = td.closest('table');
    const u = per.get(t) || { l: r.left, t: r.top, r: r.right, b: r.bottom };
    per.set(t, { l: Math.min(u.l, r.left), t: Math.min(u.t, r.top), r: Math.max(u.r, r.right), b: Math.max(u.b, r.bottom) });
  });
  return [...per.values()];
}

// where the card goes: beside the number (right, left, below, above), kept on screen; a place that covers the
// number is taken only when no other exists, then one that covers its table's paging buttons (``keep``), and
// among the others the one covering the fewest source cells wins
function spot(cell, used, keep, w, h) {
  const vw = document.documentElement.clientWidth, vh = innerHeight, m = 8, g = 10, least = 140;
  const clampX = (x) => Math.max(m, Math.min(x, vw - w - m));
  const clampY = (y, hh) => Math.max(m, Math.min(y, vh - hh - m));
  const sideY = Math.max(cell.t - 40, keep ? keep.b + g : m);  // beside it: below the paging buttons
  const sideH = Math.min(h, Math.max(vh - m - sideY, least));
  const over = keep ? Math.min(cell.t, keep.t) : cell.t;  // above it: above the paging buttons too
  const overH = Math.min(h, Math.max(over - g - m, least));
  const underH = Math.min(h, Math.max(vh - cell.b - g - m, least));
  const tries = [
    { x: cell.r + g, y: sideY, h: sideH },
    { x: cell.l - g - w, y: sideY, h: sideH },
    { x: clampX(cell.l - w / 2), y: cell.b + g, h: underH },
    { x: clampX(cell.l - w / 2), y: over - g - overH, h: overH },
  ];
  let bestTry = null, bestScore = Infinity;
  tries.forEach((c, i) => {
    const x = clampX(c.x), y = clampY(c.y, c.h);
    const r = { l: x, t: y, r: x + w, b: y + c.h };
    const score = area(r, cell) * 1e6 + (keep ? area(r, keep) * 1e3 : 0) + used.reduce((s, u) => s + area(r, u), 0) + i;
    if (score < bestScore) { bestScore = score; bestTry = { x, y, h: c.h }; }
  });
  return bestTry;
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
