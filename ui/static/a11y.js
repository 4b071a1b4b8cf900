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
  page.provide('roam', roam);  // watch.js, at once after a view is drawn anew (the observer above would a frame later)
  dropdowns();
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

// The dropdowns' lists and the focus (issue 37). Gradio opens a box's list while the box has the focus and closes it
// as the box loses it, but its keydown handler, which waits a tick, opened it again after a Tab had left the box: a
// learner tabbing along the toolbar stacked every list over the pipeline. The box's Tab never reaches gradio (it
// chooses nothing: the browser moves the focus, and gradio's blur closes the list), nor does a key that only
// modifies the next (Shift+Tab's Shift, pressed first, opened the list again once Tab had left).
// A choice, with Enter or with a press on an option, ends in gradio's blur of its box, where gradio applies a
// keyboard choice; the focus fell to <body>, so the next Tab started from the top of the page. The box gets the
// focus back, and Tab goes on to the next control. After Enter its list shows again, the chosen option marked;
// after a press, the list stays shut (a class on the box's wrap, app.css) until the next key or press in the box.
const MODIFIERS = ['Shift', 'Control', 'Alt', 'Meta'];

function dropdowns() {
  const BOX = 'input[role=combobox]';
  let picked = null, pressed = false;
  const shut = (box, on) => {
    const wrap = box.closest('.wrap');
    if (!wrap || wrap.classList.contains('pg-shut') === on) return;
    wrap.classList.toggle('pg-shut', on);
    box.setAttribute('aria-expanded', String(!on));  // (gradio writes it again at its next open or close)
  };
  document.addEventListener('keydown', (e) => {
    const box = e.target.matches?.(BOX) ? e.target : null;
    picked = e.key === 'Enter' && box ? box : null;
    pressed = false;
    if (!box) return;
    if (e.key === 'Tab' || MODIFIERS.includes(e.key)) {
      e.stopPropagation();  // (in the capture phase: gradio's own listeners come later)
      return;
    }
    if (e.key !== 'Escape') shut(box, false);
  }, true);
  document.addEventListener('mousedown', (e) => {
    const list = e.target.closest?.('[role=listbox]');
    const box = list?.id && document.querySelector(`${BOX}[aria-controls="${list.id}"]`);
    if (box) { picked = box; pressed = true; return; }
    if (e.target.matches?.(BOX)) shut(e.target, false);
  }, true);
  document.addEventListener('focusout', (e) => {
    if (e.target.matches?.(BOX)) shut(e.target, false);
    const box = picked, press = pressed;
    if (!box || e.target !== box || e.relatedTarget) return;
    picked = null;
    requestAnimationFrame(() => {
      if (document.activeElement !== document.body || !box.isConnected) return;
      box.focus({ preventScroll: true });
      if (press) shut(box, true);
      shownAnew(box, press);
    });
  }, true);
  // Gradio writes a value the server sets into a box's text only while the box has not the focus, so a refused
  // choice, set back by its answer while the box held the focus again, kept showing the refused one until the box
  // was left: fill −1e9 over views of −inf. When the choice's answer comes as a refusal (the message's error mark,
  // within a few seconds), the box is left and taken again at the next frame, and gradio's blur writes the value in
  // force (its blur also sends the box's value, the stored one, which the server answers with nothing: ui/workbench.py
  // unchanged).
  const shownAnew = (box, press) => {
    const msg = document.getElementById('message');
    if (!msg) return;
    const watch = new MutationObserver(() => {
      if (!msg.querySelector('.mark[aria-label=error]')) return;
      watch.disconnect();
      requestAnimationFrame(() => {
        if (document.activeElement !== box) return;
        box.blur();
        box.focus({ preventScroll: true });
        if (press) shut(box, true);
      });
    });
    watch.observe(msg, { childList: true, subtree: true });
    setTimeout(() => watch.disconnect(), 5000);
  };
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
