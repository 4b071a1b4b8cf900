// Keyboard reach for the read-only number tables (js_on_load of the teach buttons, with present.js, tour.js):
// each table.nt gets one cell in the Tab order (a roving tabindex, restored after every re-render); the arrow
// keys move between its cells and Enter or Space explains the focused number (watch.js). The editable grids
// have their own keys (grid.js).
import * as page from './page.js';

let started = false;  // (one page, one start: a second hook that imports this finds it running)

export function mount() {
  if (started) return;
  started = true;
  const roam = () => {
    document.querySelectorAll('table.nt').forEach((t) => {
      if (!t.querySelector('td[tabindex="0"]')) t.querySelector('td[data-r]')?.setAttribute('tabindex', '0');
    });
  };
  // a dropdown's open option list scrolls, so Chromium made it a Tab stop of its own: Tab from the preset box
  // landed there, the list closed, and the focus fell to <body> (issue 37). The arrow keys choose in it. (Done in
  // the observer's own callback, before the next key's event, not a frame later: a Tab pressed at once found it.)
  const unstop = () => document.querySelectorAll('ul[role=listbox]:not([tabindex])')
    .forEach((u) => u.setAttribute('tabindex', '-1'));
  let queued = false;
  new MutationObserver(() => {
    unstop();
    nameShown(document.querySelector('#preset input'));
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; roam(); });
  }).observe(document.body, { childList: true, subtree: true });
  roam();
  nameShown(document.querySelector('#preset input'));
  page.provide('roam', roam);  // watch.js, after a view is redrawn in place (no nodes added: no mutation above)
  // A dropdown's option chosen with Enter: gradio applies it as its box loses the focus, and the focus fell to
  // <body>, so the next Tab started from the top of the page (issue 37). The box gets the focus back (its list
  // shows again, the chosen option marked); Tab goes on to the next control.
  let picked = null;
  document.addEventListener('keydown', (e) => {
    picked = e.key === 'Enter' && e.target.matches?.('input[role=combobox]') ? e.target : null;
  }, true);
  document.addEventListener('focusout', (e) => {
    const box = picked;
    if (!box || e.target !== box || e.relatedTarget) return;
    picked = null;
    requestAnimationFrame(() => {
      if (document.activeElement === document.body && box.isConnected) box.focus({ preventScroll: true });
    });
  }, true);
  // (the arrows keep to the numbers of the same tensor: the notebook's KV-cache table holds two, page.nameOf)
  const cell = (td, r, c) => page.cellOf(td.closest('table'), { name: page.nameOf(td), r, c });
  document.addEventListener('keydown', (e) => {
    const td = e.target.closest && e.target.closest('table.nt td[data-r]');
    const d = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[e.key];
    if (!td || !d) return;
    const next = cell(td, +td.dataset.r + d[0], +td.dataset.c + d[1]);
    e.preventDefault();
    e.stopPropagation();
    if (!next) return;
    td.closest('table').querySelectorAll('td[tabindex]').forEach((c) => c.removeAttribute('tabindex'));
    next.setAttribute('tabindex', '0');
    next.focus();
  }, true);
}

// The chosen preset's whole name, in two lines where it needs them (app.css: .picker-name over the picker's input,
// whose one line cut 18 of the 20 names with "…"; issue 37). Gradio writes the chosen name into the input's value
// (a choice, a loaded address, a room's preset), so the input's own value setter also writes it here; while the
// learner types into the box to filter the list, the list shows every name whole.
const VALUE = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value');

function nameShown(input) {
  if (!input || input.dataset.named) return;
  const name = document.createElement('span');
  name.className = 'picker-name';
  name.setAttribute('aria-hidden', 'true');  // (the box itself is read out)
  input.after(name);
  const show = () => {
    name.textContent = VALUE.get.call(input);
    input.title = name.textContent;
  };
  Object.defineProperty(input, 'value', {
    configurable: true,
    get() { return VALUE.get.call(this); },
    set(v) { VALUE.set.call(this, v); show(); },
  });
  input.dataset.named = '1';
  show();
}
