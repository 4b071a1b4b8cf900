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

// the grid's scrubbing, for the grid g = {element, send, settled, at, focusCell, cellOf, cellName, startEdit, isNumber}
// (grid.js; settled() is its chain of edits): what grid.js calls back is returned
export function scrubber(g) {
  const { element, send, at, focusCell, cellOf, cellName, startEdit, isNumber } = g;
  const SLOP = 4;  // px a press may move and still be a click
  const MAX_ABS = 1e6;  // the largest |cell| the server takes
  const SHEET_STEPS = 300;  // the sheet's slider: ±300 steps of a hundredth of the value's scale
  const KEYS_REST_MS = 600;  // Alt+arrow steps closer together than this are one scrub
  const BOX = 'input[type=number][aria-label="temperature (divide by)"]';  // gradio names the box by its label

  const scrubbable = (td) => !!td && !td.classList.contains('chk') && !td.classList.contains('bad')
    && !td.querySelector('input') && isNumber(td.textContent);
  const unitOf = (v) => 10 ** Math.floor(Math.log10(Math.max(Math.abs(v), 1)));  // the value's scale, at least 1
  const decimals = (text) => (/\.(\d+)/.exec(String(text).split(/e/i)[0]) || ['', ''])[1].length;

  // ---- one scrub: its first value, and the value shown now -------------------------------------------------------
  // S = {td, text0, v0, unit, acc, text, sent, lo}: ``acc`` counts fine steps (a thousandth of ``unit``) moved so far
  function stepped(S, n) {  // S's first value moved by n fine steps, written with the decimals it needs
    if (n === 0) return S.text0;
    const fine = S.unit / 1000;
    const dec = Math.min(10, Math.max(Math.round(-Math.log10(fine)), decimals(S.text0)));
    const v = Math.min(MAX_ABS, Math.max(S.lo ?? -MAX_ABS, S.v0 + n * fine));
    return String(Number(v.toFixed(dec)));
  }
  let active = 0;  // scrubs not yet ended (a drag, the keys, the sheet, the temperature box)
  function calm(on) {
    const root = document.documentElement;
    if (on) { active += 1; root.classList.add('ap-scrub'); return; }
    active = Math.max(0, active - 1);
    if (active) return;
    root.classList.remove('ap-scrub');
    document.dispatchEvent(new CustomEvent('ap-scrub-end'));  // watch.js: one flash of what the scrub changed
  }
  function begin(td) {
    const text0 = td.textContent.trim();
    const v0 = parseFloat(text0);
    focusCell(td);
    window.getSelection()?.removeAllRanges();
    td.classList.add('scrub');
    calm(true);
    return { td, text0, v0, unit: unitOf(v0), acc: 0, text: text0, sent: false };
  }
  function show(S, text) {  // the cell shows the value at once; the server gets it when its turn comes
    if (text === S.text) return;
    S.text = text;
    S.td.textContent = text;
    sendLatest(S);
  }
  function end(S, keep) {
    if (!keep) { S.text = S.text0; S.td.textContent = S.text0; }  // Escape or Cancel: the old value
    S.td.classList.remove('scrub');
    if (newest && newest.td === S.td) newest.skip = true;  // the plain edit below makes it pointless
    if (S.sent) send('cell', { ...at(S.td), value: S.text }, 'edit');  // every view, for the value kept
    g.settled().then(() => setTimeout(() => calm(false), 30));  // once the last answer is drawn
  }

  // ---- coalescing: one request in flight, the newest value waiting ------------------------------------------------
  let newest = null;  // the scrub value waiting for its turn in grid.js's chain: {td, value, skip}
  function sendLatest(S) {
    S.sent = true;
    if (newest && newest.td === S.td) { newest.value = S.text; return; }  // replaces the older value, unsent
    const slot = newest = { td: S.td, value: S.text, skip: false };
    send('cell', () => {
      if (newest === slot) newest = null;  // its turn: later values wait for the next turn
      return slot.skip ? null : { ...at(slot.td), value: slot.value, scrub: true };
    }, 'edit');
  }

  // ---- the pointer: press, drag sideways, release (Escape puts the old value back) ---------------------------------
  let drag = null;  // a press on a number: {td, id, x0, x, S}; S once it has moved past SLOP
  let swallow = false;  // the click that ends a drag is not a click on the cell
  let touched = false;  // the last press was a finger (grid.js: a tap opens the sheet)
  function dragged(e) {
    if (!swallow) return false;
    swallow = false;
    e.preventDefault();
    return true;
  }
  element.addEventListener('pointerdown', (e) => {
    touched = e.pointerType === 'touch';
    swallow = false;
    if (touched || e.button !== 0 || drag) return;  // a finger scrolls the page; a tap opens the sheet
    const td = cellOf(e.target);
    if (scrubbable(td)) drag = { td, id: e.pointerId, x0: e.clientX, x: e.clientX, S: null };
  });
  element.addEventListener('pointermove', (e) => {
    if (!drag || e.pointerId !== drag.id) return;
    if (!drag.S) {
      if (Math.abs(e.clientX - drag.x0) < SLOP) return;
      drag.S = begin(drag.td);
      drag.td.setPointerCapture(e.pointerId);  // the drag goes on past the cell's edges
    }
    e.preventDefault();
    drag.S.acc += (e.clientX - drag.x) * (e.shiftKey ? 1 : 10);
    drag.x = e.clientX;
    show(drag.S, stepped(drag.S, Math.round(drag.S.acc)));
  });
  function release(e) {
    if (!drag || e.pointerId !== drag.id) return;
    const S = drag.S;
    drag = null;
    if (S) { swallow = true; end(S, true); }
  }
  document.addEventListener('pointerup', release, true);
  document.addEventListener('pointercancel', release, true);
  document.addEventListener('keydown', (e) => {  // Escape during a drag or a run of Alt+arrows: the old value
    if (e.key !== 'Escape' || !(drag?.S || keys || box?.S)) return;
    e.preventDefault();
    e.stopPropagation();  // (not the drawer's Escape, nor the cell's)
    if (drag?.S) { const S = drag.S; drag = null; swallow = true; end(S, false); }
    if (keys) restKeys(false);
    if (box?.S) endBox(false);
  }, true);

  // ---- the keyboard: Alt+arrows step the focused cell (grid.js calls nudge) ---------------------------------------
  let keys = null;  // {S, timer}: steps on one cell, one scrub until the keys rest
  function nudge(td, key, fine) {
    if (!scrubbable(td)) return;
    if (keys && keys.S.td !== td) restKeys(true);
    if (!keys) keys = { S: begin(td), timer: 0 };
    clearTimeout(keys.timer);
    keys.S.acc += (key === 'ArrowUp' || key === 'ArrowRight' ? 1 : -1) * (fine ? 10 : 100);
    show(keys.S, stepped(keys.S, keys.S.acc));
    keys.timer = setTimeout(() => restKeys(true), KEYS_REST_MS);
  }
  function restKeys(keep) {
    if (!keys) return;
    clearTimeout(keys.timer);
    const { S } = keys;
    keys = null;
    end(S, keep);
  }

  // ---- a touch screen: a tap opens a sheet with a slider for the cell ---------------------------------------------
  let sheet = null;  // {el, S}
  function openSheet(td) {
    closeSheet(true);
    const S = begin(td);
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
    const name = cellName(td);
    const range = el.querySelector('input');
    const out = el.querySelector('output');
    el.setAttribute('aria-label', `set ${name}`);
    el.querySelector('.ss-name').textContent = `${name} (slide to change)`;
    range.setAttribute('aria-label', name);
    const follow = () => {  // one slider step is a hundredth of the value's scale
      show(S, stepped(S, 10 * +range.value));
      out.textContent = S.text;
      range.setAttribute('aria-valuetext', S.text);
    };
    follow();
    range.addEventListener('input', follow);
    el.addEventListener('click', (e) => {
      const b = e.target.closest('button');
      if (!b) return;
      if (b.dataset.step) { range.value = +range.value + +b.dataset.step; follow(); return; }
      closeSheet(b.dataset.do !== 'cancel');
      if (b.dataset.do === 'type' && td.isConnected) startEdit(td);  // the phone's keyboard, as a click gives
    });
    el.addEventListener('keydown', (e) => { if (e.key === 'Escape') { e.preventDefault(); closeSheet(false); } });
    document.body.append(el);
    sheet = { el, S };
    range.focus({ preventScroll: true });
    // what the slide changes, the weights and the output, just above the sheet (the sheet names the cell and shows its
    // value); the cell's grid at the top of the screen only when the overview has no such cards
    // (two frames on: the grid brings its focused cell into view at the next frame)
    const fit = () => {
      const ends = ['weights', 'output'].map((n) => document.querySelector(`#overview [data-card=${n}]`)).filter(Boolean);
      if (!ends.length || !el.isConnected) { td.closest('.card')?.scrollIntoView({ block: 'start' }); return; }
      const bottom = Math.max(...ends.map((e) => e.getBoundingClientRect().bottom));
      const top = Math.min(...ends.map((e) => e.getBoundingClientRect().top));
      const room = el.getBoundingClientRect().top - 8;
      if (bottom > room || top < 0) window.scrollBy(0, bottom - room);
    };
    requestAnimationFrame(() => requestAnimationFrame(fit));
  }
  function closeSheet(keep) {
    if (!sheet) return;
    const { el, S } = sheet;
    sheet = null;
    el.remove();
    end(S, keep);
    if (S.td.isConnected) focusCell(S.td);
  }

  // ---- the temperature box: drag on it sideways (a click still types in it) ---------------------------------------
  let box = null;  // {el, id, x0, x, S}
  function setBox(el, text) {  // as typing and Enter do: gradio's Number reads the value, then its Enter applies it
    el.value = text;
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new KeyboardEvent('keypress', { key: 'Enter', bubbles: true }));
  }
  function endBox(keep) {
    const { el, S } = box;
    box = null;
    if (!keep && S.text !== S.text0) setBox(el, S.text0);
    setTimeout(() => calm(false), 300);  // (the queued answer's own turn: gradio sends the newest value last)
  }
  if (!boxStarted) {  // once per page
    boxStarted = true;
    document.addEventListener('pointerdown', (e) => {
      const el = e.target.closest?.(BOX);
      if (el && e.button === 0 && e.pointerType !== 'touch' && isNumber(el.value)) {
        box = { el, id: e.pointerId, x0: e.clientX, x: e.clientX, S: null };
      }
    }, true);
    document.addEventListener('pointermove', (e) => {
      if (!box || e.pointerId !== box.id) return;
      if (!box.S) {
        if (Math.abs(e.clientX - box.x0) < SLOP) return;
        const v0 = parseFloat(box.el.value);
        box.S = { text0: box.el.value, v0, unit: unitOf(v0), acc: 0, text: box.el.value, lo: unitOf(v0) / 1000 };
        box.el.setPointerCapture(e.pointerId);
        box.el.blur();  // no caret nor selection while dragging
        window.getSelection()?.removeAllRanges();
        calm(true);
      }
      e.preventDefault();
      box.S.acc += (e.clientX - box.x) * (e.shiftKey ? 1 : 10);
      box.x = e.clientX;
      const text = stepped(box.S, Math.round(box.S.acc));
      if (text !== box.S.text) { box.S.text = text; setBox(box.el, text); }
    }, true);
    const up = (e) => {
      if (!box || e.pointerId !== box.id) return;
      if (box.S) endBox(true); else box = null;
    };
    document.addEventListener('pointerup', up, true);
    document.addEventListener('pointercancel', up, true);
  }
  // (grid.js: a plain edit sent drops the scrub value waiting: it goes after that edit, not before it)
  return { dragged, nudge, openSheet, scrubbable, touched: () => touched, dropWaiting: () => { newest = null; } };
}
