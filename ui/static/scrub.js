// Scrubbing (grid.js makes one scrubber for its grid: scrubber(g), with what it shares of the grid).
// Press on a number of an input grid and drag sideways: the value follows the pointer and the whole pipeline follows
// the value; release keeps it, Escape puts the old one back. A pixel moves the value by a hundredth of its scale
// (0.01 for 1.16 or 0.23, 0.1 for 23.5; Shift: a tenth of that). Alt+↑/→ and Alt+↓/← step the focused cell by a
// tenth of its scale (Shift: a hundredth). On a touch screen a tap opens a sheet at the bottom of the screen with a
// slider for that cell (Done keeps, Cancel puts back, "Type a value" opens the cell's editor as a click does).
// A press that moves less than SLOP pixels is a click: it edits the cell as before.
// Values made while scrubbing coalesce (sendLatest): one request in flight at most, a newer value replaces the one
// still waiting for its turn, so the views never trail behind the pointer. Those requests ask for the views on the
// first screen only ({scrub: true}: the overview, the badge, the message, the explanation); when the scrub ends, the
// value kept is sent once more as a plain edit, which brings every view (the notebook's too). While a scrub lasts the
// page carries the class ap-scrub: the change flash holds still (watch.js), and once the scrub's last answer is in,
// the event ap-scrub-end flashes, once, every number the whole scrub changed.
// The workbench's temperature box (a gr.Number in the toolbar while the scale is a temperature) scrubs the same
// way; its values go to gradio as typing does, and gradio sends the newest one once the last has answered
// (trigger_mode always_last).

let boxStarted = false;  // the temperature box's listeners are the document's: added once per page

const SLOP = 4;  // px a press may move and still be a click
const MAX_ABS = 1e6;  // the largest |cell| the server takes
const SHEET_STEPS = 300;  // the sheet's slider: ±300 steps of a hundredth of the value's scale
const KEYS_REST_MS = 600;  // Alt+arrow steps closer together than this are one scrub
const BOX = 'input[type=number][aria-label="temperature (divide by)"]';  // gradio names the box by its label

const unitOf = (v) => 10 ** Math.floor(Math.log10(Math.max(Math.abs(v), 1)));  // the value's scale, at least 1
const decimals = (text) => (/\.(\d+)/.exec(String(text).split(/e/i)[0]) || ['', ''])[1].length;

// the grid's scrubbing, for the grid g = {element, send, settled, at, focusCell, cellOf, cellName, startEdit, isNumber}
// (grid.js; settled() is its chain of edits): what grid.js calls back is returned. C holds one scrubber's state:
// its scrubs not yet ended (active), the scrub value waiting for its turn (newest), a press on a number (drag), the
// click that ends a drag (swallow), whether the last press was a finger (touched), a run of Alt+arrows (keys), the
// sheet (sheet) and a drag on the temperature box (box: only the scrubber that listens to the box has one)
export function scrubber(g) {
  const C = { g, active: 0, newest: null, drag: null, swallow: false, touched: false, keys: null, sheet: null, box: null };
  const scrubbable = (td) => isScrubbable(g, td);
  pointer(C);
  if (!boxStarted) {  // once per page
    boxStarted = true;
    temperatureBox(C);
  }
  // (grid.js: a plain edit sent drops the scrub value waiting: it goes after that edit, not before it)
  return { dragged: (e) => dragged(C, e), nudge: (td, key, fine) => nudge(C, td, key, fine),
    openSheet: (td) => openSheet(C, td), scrubbable, touched: () => C.touched,
    dropWaiting: () => { C.newest = null; } };
}

const isScrubbable = (g, td) => !!td && !td.classList.contains('chk') && !td.classList.contains('bad')
  && !td.querySelector('input') && g.isNumber(td.textContent);

// ---- one scrub: its first value, and the value shown now -------------------------------------------------------
// S = {td, text0, v0, unit, acc, text, sent, lo}: ``acc`` counts fine steps (a thousandth of ``unit``) moved so far
function stepped(S, n) {  // S's first value moved by n fine steps, written with the decimals it needs
  if (n === 0) return S.text0;
  const fine = S.unit / 1000;
  const dec = Math.min(10, Math.max(Math.round(-Math.log10(fine)), decimals(S.text0)));
  const v = Math.min(MAX_ABS, Math.max(S.lo ?? -MAX_ABS, S.v0 + n * fine));
  return String(Number(v.toFixed(dec)));
}
function calm(C, on) {  // C.active: scrubs not yet ended (a drag, the keys, the sheet, the temperature box)
  const root = document.documentElement;
  if (on) { C.active += 1; root.classList.add('ap-scrub'); return; }
  C.active = Math.max(0, C.active - 1);
  if (C.active) return;
  root.classList.remove('ap-scrub');
  document.dispatchEvent(new CustomEvent('ap-scrub-end'));  // watch.js: one flash of what the scrub changed
}
function begin(C, td) {
  const text0 = td.textContent.trim();
  const v0 = parseFloat(text0);
  C.g.focusCell(td);
  window.getSelection()?.removeAllRanges();
  td.classList.add('scrub');
  calm(C, true);
  return { td, text0, v0, unit: unitOf(v0), acc: 0, text: text0, sent: false };
}
function show(C, S, text) {  // the cell shows the value at once; the server gets it when its turn comes
  if (text === S.text) return;
  S.text = text;
  S.td.textContent = text;
  sendLatest(C, S);
}
function end(C, S, keep) {
  if (!keep) { S.text = S.text0; S.td.textContent = S.text0; }  // Escape or Cancel: the old value
  S.td.classList.remove('scrub');
  if (C.newest && C.newest.td === S.td) C.newest.skip = true;  // the plain edit below makes it pointless
  if (S.sent) C.g.send('cell', { ...C.g.at(S.td), value: S.text }, 'edit');  // every view, for the value kept
  C.g.settled().then(() => setTimeout(() => calm(C, false), 30));  // once the last answer is drawn
}

// ---- coalescing: one request in flight, the newest value waiting ------------------------------------------------
// C.newest: the scrub value waiting for its turn in grid.js's chain: {td, value, skip}
function sendLatest(C, S) {
  S.sent = true;
  if (C.newest && C.newest.td === S.td) { C.newest.value = S.text; return; }  // replaces the older value, unsent
  const slot = C.newest = { td: S.td, value: S.text, skip: false };
  C.g.send('cell', () => {
    if (C.newest === slot) C.newest = null;  // its turn: later values wait for the next turn
    return slot.skip ? null : { ...C.g.at(slot.td), value: slot.value, scrub: true };
  }, 'edit');
}

// ---- the pointer: press, drag sideways, release (Escape puts the old value back) ---------------------------------
// C.drag: a press on a number, {td, id, x0, x, S}, S once it has moved past SLOP; C.swallow: the click that ends a
// drag is not a click on the cell; C.touched: the last press was a finger (grid.js: a tap opens the sheet)
function dragged(C, e) {
  if (!C.swallow) return false;
  C.swallow = false;
  e.preventDefault();
  return true;
}
function pointer(C) {
  const { element, cellOf } = C.g;
  element.addEventListener('pointerdown', (e) => {
    C.touched = e.pointerType === 'touch';
    C.swallow = false;
    if (C.touched || e.button !== 0 || C.drag) return;  // a finger scrolls the page; a tap opens the sheet
    const td = cellOf(e.target);
    if (isScrubbable(C.g, td)) C.drag = { td, id: e.pointerId, x0: e.clientX, x: e.clientX, S: null };
  });
  element.addEventListener('pointermove', (e) => {
    const drag = C.drag;
    if (!drag || e.pointerId !== drag.id) return;
    if (!drag.S) {
      if (Math.abs(e.clientX - drag.x0) < SLOP) return;
      drag.S = begin(C, drag.td);
      drag.td.setPointerCapture(e.pointerId);  // the drag goes on past the cell's edges
    }
    e.preventDefault();
    drag.S.acc += (e.clientX - drag.x) * (e.shiftKey ? 1 : 10);
    drag.x = e.clientX;
    show(C, drag.S, stepped(drag.S, Math.round(drag.S.acc)));
  });
  function release(e) {
    if (!C.drag || e.pointerId !== C.drag.id) return;
    const S = C.drag.S;
    C.drag = null;
    if (S) { C.swallow = true; end(C, S, true); }
  }
  document.addEventListener('pointerup', release, true);
  document.addEventListener('pointercancel', release, true);
  document.addEventListener('keydown', (e) => {  // Escape during a drag or a run of Alt+arrows: the old value
    if (e.key !== 'Escape' || !(C.drag?.S || C.keys || C.box?.S)) return;
    e.preventDefault();
    e.stopPropagation();  // (not the drawer's Escape, nor the cell's)
    if (C.drag?.S) { const S = C.drag.S; C.drag = null; C.swallow = true; end(C, S, false); }
    if (C.keys) restKeys(C, false);
    if (C.box?.S) endBox(C, false);
  }, true);
}

// ---- the keyboard: Alt+arrows step the focused cell (grid.js calls nudge) ---------------------------------------
// C.keys: {S, timer}: steps on one cell, one scrub until the keys rest
function nudge(C, td, key, fine) {
  if (!isScrubbable(C.g, td)) return;
  if (C.keys && C.keys.S.td !== td) restKeys(C, true);
  if (!C.keys) C.keys = { S: begin(C, td), timer: 0 };
  const keys = C.keys;
  clearTimeout(keys.timer);
  keys.S.acc += (key === 'ArrowUp' || key === 'ArrowRight' ? 1 : -1) * (fine ? 10 : 100);
  show(C, keys.S, stepped(keys.S, keys.S.acc));
  keys.timer = setTimeout(() => restKeys(C, true), KEYS_REST_MS);
}
function restKeys(C, keep) {
  if (!C.keys) return;
  clearTimeout(C.keys.timer);
  const { S } = C.keys;
  C.keys = null;
  end(C, S, keep);
}

// ---- a touch screen: a tap opens a sheet with a slider for the cell ---------------------------------------------
// C.sheet: {el, S}
function openSheet(C, td) {
  closeSheet(C, true);
  const S = begin(C, td);
  const el = sheetElement(C.g.cellName(td));
  const range = el.querySelector('input');
  const out = el.querySelector('output');
  const follow = () => {  // one slider step is a hundredth of the value's scale
    show(C, S, stepped(S, 10 * +range.value));
    out.textContent = S.text;
    range.setAttribute('aria-valuetext', S.text);
  };
  follow();
  range.addEventListener('input', follow);
  el.addEventListener('click', (e) => {
    const b = e.target.closest('button');
    if (!b) return;
    if (b.dataset.step) { range.value = +range.value + +b.dataset.step; follow(); return; }
    closeSheet(C, b.dataset.do !== 'cancel');
    if (b.dataset.do === 'type' && td.isConnected) C.g.startEdit(td);  // the phone's keyboard, as a click gives
  });
  el.addEventListener('keydown', (e) => { if (e.key === 'Escape') { e.preventDefault(); closeSheet(C, false); } });
  document.body.append(el);
  C.sheet = { el, S };
  range.focus({ preventScroll: true });
  // (two frames on: the grid brings its focused cell into view at the next frame)
  requestAnimationFrame(() => requestAnimationFrame(() => fitSheet(el, td)));
}
function sheetElement(name) {  // the sheet for the cell called ``name``: its slider, ± steps, and the buttons
  const el = document.createElement('div');
  el.className = 'scrub-sheet';
  el.setAttribute('role', 'dialog');
  el.innerHTML = "<div class='ss-head'><span class='ss-name'></span> <output class='ss-value'></output></div>"
    + "<div class='ss-row'><button type='button' data-step='-1' aria-label='one step down'>−</button>"
    + `<input type='range' min='-${SHEET_STEPS}' max='${SHEET_STEPS}' step='1' value='0'>`
    + "<button type='button' data-step='1' aria-label='one step up'>+</button></div>"
    + "<div class='ss-buttons'><button type='button' data-do='type'>Type a value</button>"
    + "<button type='button' data-do='cancel'>Cancel</button>"
    + "<button type='button' data-do='done' class='ss-done'>Done</button></div>";
  el.setAttribute('aria-label', `set ${name}`);
  el.querySelector('.ss-name').textContent = `${name} (slide to change)`;
  el.querySelector('input').setAttribute('aria-label', name);
  return el;
}
// what the slide changes, the weights and the output, just above the sheet (the sheet names the cell and shows its
// value); the cell's grid at the top of the screen only when the overview has no such cards
function fitSheet(el, td) {
  const ends = ['weights', 'output'].map((n) => document.querySelector(`#overview [data-card=${n}]`)).filter(Boolean);
  if (!ends.length || !el.isConnected) { td.closest('.card')?.scrollIntoView({ block: 'start' }); return; }
  const bottom = Math.max(...ends.map((e) => e.getBoundingClientRect().bottom));
  const top = Math.min(...ends.map((e) => e.getBoundingClientRect().top));
  const room = el.getBoundingClientRect().top - 8;
  if (bottom > room || top < 0) window.scrollBy(0, bottom - room);
}
function closeSheet(C, keep) {
  if (!C.sheet) return;
  const { el, S } = C.sheet;
  C.sheet = null;
  el.remove();
  end(C, S, keep);
  if (S.td.isConnected) C.g.focusCell(S.td);
}

// ---- the temperature box: drag on it sideways (a click still types in it) ---------------------------------------
// C.box: {el, id, x0, x, S}
function setBox(el, text) {  // as typing and Enter do: gradio's Number reads the value, then its Enter applies it
  el.value = text;
  el.dispatchEvent(new Event('input', { bubbles: true }));
  el.dispatchEvent(new KeyboardEvent('keypress', { key: 'Enter', bubbles: true }));
}
function endBox(C, keep) {
  const { el, S } = C.box;
  C.box = null;
  if (!keep && S.text !== S.text0) setBox(el, S.text0);
  setTimeout(() => calm(C, false), 300);  // (the queued answer's own turn: gradio sends the newest value last)
}
function temperatureBox(C) {
  document.addEventListener('pointerdown', (e) => {
    const el = e.target.closest?.(BOX);
    if (el && e.button === 0 && e.pointerType !== 'touch' && C.g.isNumber(el.value)) {
      C.box = { el, id: e.pointerId, x0: e.clientX, x: e.clientX, S: null };
    }
  }, true);
  document.addEventListener('pointermove', (e) => {
    const box = C.box;
    if (!box || e.pointerId !== box.id) return;
    if (!box.S) {
      if (Math.abs(e.clientX - box.x0) < SLOP) return;
      const v0 = parseFloat(box.el.value);
      box.S = { text0: box.el.value, v0, unit: unitOf(v0), acc: 0, text: box.el.value, lo: unitOf(v0) / 1000 };
      box.el.setPointerCapture(e.pointerId);
      box.el.blur();  // no caret nor selection while dragging
      window.getSelection()?.removeAllRanges();
      calm(C, true);
    }
    e.preventDefault();
    box.S.acc += (e.clientX - box.x) * (e.shiftKey ? 1 : 10);
    box.x = e.clientX;
    const text = stepped(box.S, Math.round(box.S.acc));
    if (text !== box.S.text) { box.S.text = text; setBox(box.el, text); }
  }, true);
  const up = (e) => {
    if (!C.box || e.pointerId !== C.box.id) return;
    if (C.box.S) endBox(C, true); else C.box = null;
  };
  document.addEventListener('pointerup', up, true);
  document.addEventListener('pointercancel', up, true);
}
