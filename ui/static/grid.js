// Editable number grids (js_on_load of the workbench's inputs), spreadsheet style: cells are plain text and
// one <input> editor appears in the cell being edited, so a 64×64 grid stays light.
// Each grid is one Tab stop (a roving tabindex: one cell of each grid has tabindex 0, kept across re-renders);
// Tab and Shift+Tab from a cell leave the grid. The arrow keys move between cells; click, Enter, F2 or typing
// edits a cell; while editing, Enter commits and moves down, Tab/Shift+Tab commit and move along the row, and
// Escape puts the value back. A commit sends only {table, row, col, value}; pasting several cells sends the
// pasted text once. A value the server refuses stays as typed and marked; while any cell holds one, the message
// names it and the value the views use instead, until it is fixed or put back (Escape). The custom mask's cells
// are checkboxes: click or Space flips one key. A number can also be scrubbed: dragged sideways, stepped with
// Alt+arrows, or set with a slider on a touch screen (scrub.js: this grid's scrubber, made at the end).
//
// mount() makes one grid, g: the hook's {element, trigger, props, server} and the grid's own state (the chain of
// edits, the look ahead, the Tab stops, the scrubber); every function below takes the g it works on.
import * as page from './page.js';
import { scrubber } from './scrub.js';

const NUM = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;
const isNumber = (v) => NUM.test(v) && isFinite(parseFloat(v));
const dtypeOf = (td) => td.closest('table')?.dataset.dtype || 'float32';
const shownOf = (td, value) => shownText(value, dtypeOf(td));
const at = (td) => ({ table: td.closest('table').dataset.name, row: +td.dataset.r, col: +td.dataset.c });
const cellAt = (g, table, r, c) =>
  g.element.querySelector(`table.grid[data-name="${table}"] td[data-r="${r}"][data-c="${c}"]`);
const cellOf = (el) => (el && el.closest ? el.closest('table.grid td[data-r]') : null);
const stopOf = (td) => td.querySelector('input[type=checkbox]') || td;  // what takes the focus in a cell
const EDITOR = 'table.grid td input:not([type=checkbox])';

export function mount({ element, trigger, props, server }) {
  const g = {
    element, trigger, props, server,
    built: props.value,  // the grids the page was built with (see whenLoaded)
    early: true,  // the page's load event has not answered yet
    chain: null,  // the edits on their way, one after another
    live: !!(server && server.live_edit),  // edits go as live edits (else as gradio's queued events)
    unanswered: 0,  // edits sent or waiting in the chain, not yet answered
    epoch: 0,  // edits and queued events so far: a look is drawn only on the values it was computed for
    ahead: null,  // the newest look sent: {key, epoch, answer: Promise of its answer or null, done}
    waiting: null,  // an editor whose newer value waits for the look on its way
    roving: new Map(),  // grid name -> "r|c" of its Tab stop, so a re-render puts it back
    bring: null,  // the focused cell brought into view at the next frame
    watched: null,  // the message element whose changes noteStale observes
    scrub: null,  // this grid's scrubber (scrub.js)
    editing: null,  // the open editor: {inp, table, row, col} (see keepEdits)
    since: new Map(),  // "table|row|col" -> {value, seq} of each cell edit sent since the last queued event left
    reopened: 0,  // editors put back after a redraw (see keepEdits)
  };
  g.chain = whenLoaded(g);  // (the load event itself does not wait for it: wiring.py)
  page.provideEdits({
    idle: (leaving) => {  // (gradio then holds what the views show: live.js)
      g.epoch++;  // a queued event may change the values: no look made before it is drawn ...
      g.since.clear();  // (the event waits for these edits: its answer shows them)
      return g.chain.then(() => { page.tellAll(); leaving?.(); });
    },
    stale: () => { g.epoch++; },  // ... nor one made before its answer is drawn (live.js's drawnView)
    // the state's part of the address, once every edit on its way is stored (ui/share.py state_query)
    address: () => g.chain.then(() => (g.server?.live_edit ? g.server.live_edit({ kind: 'address' }) : null)),
  });
  new MutationObserver((changes) => { keepEdits(g); restore(g); noteStale(g); noteIdentity(changes); })
    .observe(element, { childList: true, subtree: true, attributes: true, attributeFilter: ['tabindex', 'class'] });
  listen(g);
  restore(g);
  // scrubbing (scrub.js): its listeners come after the grid's own, and it sends through the grid's chain of edits
  g.scrub = scrubber({
    element, send: (...a) => send(g, ...a), settled: () => g.chain, at, focusCell: (td) => focusCell(g, td), cellOf,
    cellName, startEdit: (td, text) => startEdit(g, td, text), isNumber,
  });
}

function listen(g) {
  const { element } = g;
  element.addEventListener('focusin', (e) => { const td = cellOf(e.target); if (td) rove(g, td); });
  element.addEventListener('click', (e) => onClick(g, e));
  element.addEventListener('change', (e) => onChange(g, e));
  element.addEventListener('input', (e) => { if (e.target.matches(EDITOR)) look(g, e.target); });
  element.addEventListener('focusout', (e) => {  // (a redraw removing the editor is not a commit: keepEdits)
    const inp = e.target;
    if (!inp.matches(EDITOR)) return;
    const n = g.reopened;
    queueMicrotask(() => { if (inp.isConnected && g.reopened === n) finish(g, inp, true); });
  });
  element.addEventListener('keydown', (e) => onKeydown(g, e));
  element.addEventListener('paste', (e) => onPaste(g, e));
}

// ---- sending edits ----------------------------------------------------------------------------------------------
// Edits go straight to the server (live_edit), one after another in the order made, and its answer goes
// straight to the views (live.js). Should a call fail, time out or find the server busy, that edit and every later
// one go as gradio's queued events instead. Queued workbench events wait for the edits still on their way
// (page.js liveIdle, ui/wiring.py AFTER_LIVE_EDITS), so a control changed right after an edit applies after it.
// Until the page's load event has answered, the server holds no state for this page (a class opening the page at
// once waits in the queue for it): an edit made before then is held, and sent once the badge, which that answer
// fills, shows. The load leaves the grids as built, and the edits typed into them, unless a link opened another
// state: then the grids are drawn again and the edits made on the old ones are dropped, as the screen shows.
const LOAD_WAIT_MS = 30000;
function whenLoaded(g) {
  return new Promise((ok) => {
    const done = () => document.querySelector('#badge .html-container')?.textContent.trim();  // (not its timer)
    const since = Date.now();
    const poll = () => { if (done() || Date.now() - since > LOAD_WAIT_MS) ok(); else setTimeout(poll, 25); };
    poll();  // (past LOAD_WAIT_MS the edit goes anyway, and the server's answer says what it holds)
  }).then(() => { g.early = false; });
}
const LIVE_TIMEOUT_MS = 20000;
function apply(g, ans, seq) {
  if (!ans || ans.busy) throw new Error('busy');
  for (const [id, u] of Object.entries(ans.views || {})) page.views.get(id)?.(u);
  if (ans.grid) {  // a paste: the grids show the pasted block, and every edit sent before it (the server's grids)
    for (const [key, e] of g.since) if (e.seq < seq) g.since.delete(key);  // (before the redraw: see keepEdits)
    g.props.value = ans.grid;
  }
  return ans;
}
// ``answered(refused)`` runs once the server has answered a live edit (not for a queued one). ``payload`` may be a
// function, asked for the payload only when this edit's turn comes (a scrub's newest value: scrub.js). ``looked``:
// this very edit, looked ahead while it was typed (see look): its answer is drawn as soon as it is there (at once,
// in the Enter's own task, when it came while the learner typed), and the commit is told so.
// An edit made while none is on its way is sent at once, in the event that made it: before the page's own work on
// that event (the editor's removal, the focus moving on, the observers that follow), which at T=64 took 5 ms.
const PAINTED_MS = 50;
const painted = () => new Promise((ok) => {
  if (document.hidden) { ok(); return; }  // (no frame comes, and a hidden page's timers wait a second or more)
  requestAnimationFrame(() => setTimeout(ok, 0));
  setTimeout(ok, PAINTED_MS);
});
// the skeletons the drawn views show (page.js drawnKeys): the answer sends those views' cells, not their HTML
const showing = () => Object.fromEntries(page.drawnKeys);
function send(g, kind, payload, event, answered, looked = null) {
  if (typeof payload !== 'function') g.scrub.dropWaiting();  // a scrub's later values go after this edit, not before it
  const mine = ++g.epoch;
  if (kind === 'cell' && typeof payload?.value === 'string' && !g.early) {
    g.since.set(cellKey(payload), { value: payload.value, seq: mine });
  }
  const turn = turnOf(g, { kind, payload, event, answered, looked, before: g.early, mine });
  // the chain idle and no queued event on its way: going now keeps the order of edits and events (page.js)
  const now = !g.unanswered && !g.early && !page.eventsFlying();
  g.unanswered++;
  const done = () => { g.unanswered--; };
  // (now: the turn starts in this task; a throw rejects, as it would in .then)
  const failed = (err) => { console.error(err); done(); };
  const after = () => page.eventsLanded();  // (asked again at its turn: events that left meanwhile go first)
  g.chain = (now ? new Promise((ok) => ok(turn())) : g.chain.then(after).then(turn)).then(done, failed);
}
function turnOf(g, { kind, payload, event, answered, looked, before, mine }) {  // one edit's turn in the chain
  return () => {
    if (typeof payload === 'function') payload = payload();  // (taken even when dropped: scrub.js's slot is freed)
    if (before && g.props.value !== g.built) return;  // made on grids the load has replaced (see whenLoaded)
    if (!payload) return;  // (a scrub value that a later one made pointless)
    if (!g.live) { g.trigger(event, payload); return; }
    const late = new Promise((_, no) => setTimeout(() => no(new Error('timeout')), LIVE_TIMEOUT_MS));
    const call = (shown) => g.server.live_edit({ kind, ...payload, ...(shown ? { seen: true } : { skeletons: showing() }) });
    const go = (shown) => Promise.race([call(shown), late]).then((ans) => (ans?.same && shown ? shown : apply(g, ans, mine)));
    const shown = looked ? looked.answer.then((ans) => (ans && g.epoch === mine ? apply(g, ans, mine) : null)) : null;
    // a look drawn: the commit only stores it, so it leaves after the frame that shows it (its call is work the
    // Enter's task need not do); at most PAINTED_MS later for a page whose frames do not come, at once when hidden
    return (shown ? shown.then((ans) => (ans ? painted().then(() => go(ans)) : go(null))) : go(null)).then(
      (ans) => {  // (never rejects: a rejected chain would hold every later edit back)
        try { answered?.(/msg-error/.test(ans.views?.message?.value || '')); } catch (err) { console.error(err); }
      },
      () => { g.live = false; g.trigger(event, payload); },
    );
  };
}

// ---- looking ahead: the value being typed is computed before the Enter ------------------------------------------
// While a cell's editor holds a number, the server computes the views for it without keeping it (ui/live.py's
// look ahead), one look on its way at a time and the newest value waiting. Committing that value draws the look's
// answer at once, with the Enter; the commit itself then only stores it. A look is used only if no edit or queued
// event came after it was made (epoch), and the server checks that its values are still the ones it looked at.
const LOOK_TIMEOUT_MS = 2000;
const lookKey = (p) => `${p.table}|${p.row}|${p.col}|${p.value}`;
function look(g, inp) {
  const value = inp.value;
  if (!g.live || g.early || g.unanswered || !isNumber(value) || value === inp.dataset.was) return;
  if (g.ahead && !g.ahead.done) { g.waiting = inp; return; }
  const payload = { ...at(inp.closest('td')), value };
  const mine = { key: lookKey(payload), epoch: g.epoch, done: false };
  const late = new Promise((ok) => setTimeout(() => ok(null), LOOK_TIMEOUT_MS));
  const got = g.server.live_edit({ kind: 'cell', ...payload, look: true, skeletons: showing() })
    .then((ans) => (ans && ans.views && !ans.busy ? ans : null), () => null);
  mine.answer = Promise.race([got, late]).then((ans) => {
    mine.done = true;  // (a look that has not come back by now no longer holds the next one back)
    const next = g.waiting;
    g.waiting = null;
    if (next?.isConnected && !next.dataset.done) look(g, next);
    return ans;
  });
  // any answer, even one later than that, is this value's: an Enter after it draws it (a loaded server, CI stop 48)
  got.then((ans) => { if (ans) { mine.answer = Promise.resolve(ans); sayHeld(g, mine); } });
  g.ahead = mine;
  delete g.element.dataset.looked;
}
// the grid says which look's answer it holds, ready for the Enter ("table|row|col|value"; none while a newer look is
// on its way): a look's response seen on the network is not yet in the page's hands (its body, then the client's
// parsing, come in later tasks). (An edit or a queued event since then still makes the Enter ignore it: lookFor.)
function sayHeld(g, mine) { if (g.ahead === mine) g.element.dataset.looked = mine.key; }
function lookFor(g, payload) {  // the look made for this edit, on the values as they are now
  g.waiting = null;
  return g.ahead && g.ahead.key === lookKey(payload) && g.ahead.epoch === g.epoch ? g.ahead : null;
}

// ---- one Tab stop per grid (a roving tabindex) ---------------------------------------------------------------
function rove(g, td) {
  const t = td.closest('table');
  const stop = stopOf(td);
  t.querySelectorAll('[tabindex="0"]').forEach((e) => { if (e !== stop) e.tabIndex = -1; });
  if (stop.tabIndex !== 0) stop.tabIndex = 0;
  g.roving.set(t.dataset.name, `${td.dataset.r}|${td.dataset.c}`);
}
// The focus moves without scrolling (focus() that scrolls lays the page out at once, in the Enter's own task, before
// the views an edit redraws: 8 ms of a T=64 edit); the cell is brought into view, if need be, at the next frame,
// when the page is laid out for it anyway.
function focusCell(g, td) {
  rove(g, td);
  const stop = stopOf(td);
  stop.focus({ preventScroll: true });
  if (!g.bring) {
    requestAnimationFrame(() => {
      if (g.bring.isConnected) g.bring.scrollIntoView({ block: 'nearest', inline: 'nearest' });
      g.bring = null;
    });
  }
  g.bring = stop;
}
function restore(g) {  // after a re-render (gradio resets every tabindex to the server's first cell)
  g.element.querySelectorAll('table.grid[data-name]').forEach((t) => {
    const [r, c] = (g.roving.get(t.dataset.name) || '').split('|');
    const td = (r !== undefined && t.querySelector(`td[data-r="${r}"][data-c="${c}"]`)) || t.querySelector('td[data-r]');
    if (!td) return;
    const zeros = t.querySelectorAll('[tabindex="0"]');
    if (zeros.length !== 1 || zeros[0] !== stopOf(td)) rove(g, td);
  });
}
// An identity W (003, 004) is named as one ("= I (the identity: k = x_k)"); once an edit or a scrub makes it
// something else (the grid is not drawn again for a live edit), the note goes, and comes back if it is put back.
// Only the cards a change touched are read; a cell being edited or holding a refused value counts as the value
// the server holds.
function noteIdentity(changes) {
  const cards = new Set();
  for (const m of changes) {
    const card = (m.target.nodeType === 1 ? m.target : m.target.parentElement)?.closest('.card');
    if (card) cards.add(card);
  }
  for (const card of cards) {
    const note = card.querySelector('.card-title .ident');
    if (!note) continue;
    const rows = [...card.querySelectorAll('table.grid tr')].slice(1);
    const still = rows.every((tr, i) => [...tr.querySelectorAll('td[data-r]')].every((td, j) => {
      const held = td.querySelector('input')?.dataset.was ?? td.dataset.good ?? td.textContent;
      return isNumber(held) && parseFloat(held) === (i === j ? 1 : 0);
    }));
    if (note.hidden === still) note.hidden = !still;
  }
}

function move(g, td, dr, dc) {
  const { table, row, col } = at(td);
  const next = cellAt(g, table, row + dr, col + dc);
  if (next) focusCell(g, next);
  return next;
}
function along(g, td, dir) {  // while editing, Tab moves along the row, then on to the next row
  const { table, row, col } = at(td);
  const width = td.closest('tr').querySelectorAll('td[data-r]').length;
  return cellAt(g, table, row, col + dir) || cellAt(g, table, row + dir, dir > 0 ? 0 : width - 1);
}

// ---- refused values: marked, and named in the message until fixed or put back ---------------------------------
function mark(td, good) {
  if (td.dataset.good === undefined) td.dataset.good = good;
  td.classList.add('bad');
}
function unmark(td) {
  delete td.dataset.good;
  td.classList.remove('bad');
}
function cellName(td) {  // as the server's messages name a cell: "x row 2, column 1", "W_q head 2 row 1, column 3"
  const t = td.closest('table');
  return `${t.dataset.where} row ${+td.dataset.r - +(t.dataset.r0 || 0) + 1}, column ${+td.dataset.c + 1}`;
}
function staleLines(g, said) {  // every refused value on screen that the server's own message does not name
  return [...g.element.querySelectorAll('table.grid td.bad')].filter((td) => !td.querySelector('input')).map((td) => {
    const name = cellName(td);
    if (said.includes(`${name}:`)) return '';
    const typed = td.textContent.length > 30 ? `${td.textContent.slice(0, 30)}…` : td.textContent;
    const good = td.dataset.good;
    return `${name} still holds '${typed}': the views use its last good value ${good} `
      + `(fix it, or press Escape in the cell to put ${good} back).`;
  }).filter(Boolean);
}
function noteStale(g) {  // the note lives in the message, which other updates redraw: kept there by an observer
  const msg = document.getElementById('message');
  if (msg && g.watched !== msg) {
    g.watched = msg;
    new MutationObserver(() => noteStale(g)).observe(msg, { childList: true, subtree: true, characterData: true });
  }
  const host = msg?.querySelector('.html-container > div');
  if (!host) return;
  const old = host.querySelector(':scope > .msg-stale');
  const said = [...host.children].filter((e) => e !== old).map((e) => e.textContent).join(' ');
  const text = staleLines(g, said).join(' ');
  if (!text) { old?.remove(); return; }
  if (old?.dataset.text === text && old === host.lastElementChild) return;
  const note = old || document.createElement('div');
  note.className = 'msg-error msg-stale';
  note.dataset.text = text;
  note.replaceChildren(Object.assign(document.createElement('span'), { className: 'mark', textContent: '✖' }),
    ` ${text}`);
  note.firstChild.setAttribute('role', 'img');
  note.firstChild.setAttribute('aria-label', 'error');
  host.append(note);
}

function unsay(name) {  // the server's message about a value just put back is no longer true: it goes
  const host = document.querySelector('#message .html-container > div');
  const said = host ? [...host.querySelectorAll(':scope > .msg-error:not(.msg-stale)')] : [];
  const gone = said.filter((e) => e.textContent.includes(`${name}:`));
  if (!gone.length || !page.views.has('message')) return;
  gone.forEach((e) => e.remove());
  host.querySelector(':scope > .msg-stale')?.remove();
  page.views.get('message')({ value: host.innerHTML });  // what gradio holds stays what is shown
}

// ---- editing a cell ---------------------------------------------------------------------------------------------
function startEdit(g, td, text) {
  if (td.querySelector('input')) return;
  const inp = document.createElement('input');
  inp.value = text === undefined ? td.textContent : text;
  inp.dataset.was = td.textContent;
  name(inp, td);
  inp.inputMode = 'decimal';
  inp.spellcheck = false;
  td.textContent = '';
  td.appendChild(inp);
  g.editing = { inp, ...at(td) };
  inp.focus();
  if (text === undefined) inp.select();
  else look(g, inp);  // (the key that opened the editor typed its first character: no input event says so)
}

function name(inp, td) {  // an editor is named by its row and column tokens, as the headers read: "X … t2, d1"
  const tbl = td.closest('table');
  const head = tbl.rows[0].cells[td.cellIndex]?.textContent || `column ${+td.dataset.c + 1}`;
  inp.setAttribute('aria-label', `${tbl.getAttribute('aria-label')} ${td.parentElement.cells[0].textContent}, ${head}`);
}

function finish(g, inp, keep) {
  const td = inp.closest('td');
  if (!td || inp.dataset.done) return td;
  inp.dataset.done = '1';
  if (g.editing?.inp === inp) g.editing = null;
  const was = inp.dataset.was;
  const good = td.dataset.good ?? was;  // what the server holds for this cell
  const value = keep ? inp.value : good;  // Escape puts back the last good value, even over a refused one
  const shown = shownOf(td, value);  // (as a redraw writes it: a typed 3 reads 3.0 at once)
  inp.remove();
  td.textContent = shown;
  if (!keep && td.dataset.good !== undefined) { unmark(td); unsay(cellName(td)); g.since.delete(cellKey(at(td))); }
  else if (shown !== was) {
    if (isNumber(value)) unmark(td); else mark(td, good);
    const edit = { ...at(td), value };
    send(g, 'cell', edit, 'edit', answeredFor(g, td, shown, good), isNumber(value) ? lookFor(g, edit) : null);
  }
  noteStale(g);
  return td;
}

function answeredFor(g, td, value, good) {  // a cell edit's answer: the cell marked if the server refused its value
  return (refused) => {
    if (refused) g.since.delete(cellKey(at(td)));  // (the server holds the good value: a redraw shows it)
    if (td.isConnected && td.textContent === value) { if (refused) mark(td, good); else unmark(td); }
  };
}

// ---- a redraw of the grids (an event's answer) keeps the editor and the edits made since the event left ----------
// A queued event that redraws the grids (token labels, a size) was computed on the values it left with: an edit made
// after it left is stored by the server, but the redraw shows the cell's old value, and the event's views are those
// of the old values. Each such cell is written again and its edit sent again (the server takes it as it is, and
// answers every view for what it now holds). An editor open while the grids are redrawn is put back into its cell,
// with what was typed in it and the caret where it was, and keeps the focus it had. The kept edits (one per cell)
// are forgotten when a queued event leaves (it waits for them: page.js liveIdle) and when a paste's answer draws the
// server's grids, which hold every edit sent before it (kept, they were written back over the pasted values).
const cellKey = (p) => `${p.table}|${p.row}|${p.col}`;
function keepEdits(g) {
  const ed = g.editing;
  if (ed && !ed.inp.isConnected && !ed.inp.dataset.done) reopen(g, ed);
  for (const [key, { value }] of g.since) {
    const [table, row, col] = key.split('|');
    const td = cellAt(g, table, row, col);
    const shown = td && shownOf(td, value);
    if (!td || td.querySelector('input') || td.textContent === shown) continue;
    const old = td.textContent;  // (the value the event was computed with)
    td.textContent = shown;
    send(g, 'cell', { table, row: +row, col: +col, value }, 'edit', answeredFor(g, td, shown, old));
  }
}
function reopen(g, ed) {
  const td = cellAt(g, ed.table, ed.row, ed.col);
  if (!td || td.querySelector('input')) { g.editing = null; return; }
  const { inp } = ed;
  const [from, to] = [inp.selectionStart, inp.selectionEnd];
  const focused = !document.activeElement || document.activeElement === document.body;
  inp.dataset.was = td.textContent;  // what the server holds now
  name(inp, td);
  td.textContent = '';
  td.appendChild(inp);
  g.reopened++;
  if (!focused) return;
  inp.focus({ preventScroll: true });
  inp.setSelectionRange(from, to);
}

// ---- a committed number as the server's grids write it ------------------------------------------------------------
// ui/render/tables.py fmt: the shortest text exact in the working dtype, a whole number with its '.0' (3 -> 3.0, the
// float it is), scientific below 1e-4 and from 1e6 in float32 (numpy's str) or 1e-4 and 1e16 in float64 (Python's
// repr, by the shortest digits' exponent), a
// float64 past 10 significant digits rounded to 10 (as '.10g'). A committed value is written so at once, so the cell
// reads the same before and after any redraw (issue 37: a typed 3 read '3', then '3.0' after a preset and back).
// What is sent is what was typed (the server keeps a float64's every digit).
function shownText(text, dtype) {
  const v = isNumber(text) ? (dtype === 'float32' ? Math.fround(parseFloat(text)) : parseFloat(text)) : NaN;
  if (!Number.isFinite(v) || Math.abs(v) > MAX_ABS) return text;  // (a typo or past the range: the server names it)
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  const same = dtype === 'float32' ? (t) => Math.fround(+t) === v : (t) => +t === v;
  let digits = 1;
  while (digits < 17 && !same(v.toPrecision(digits))) digits += 1;
  const g = dtype !== 'float32' && digits > MAX_DIGITS;  // Python's '.10g': trailing zeros dropped, no '.0'
  const [mant, e] = v.toExponential((g ? MAX_DIGITS : digits) - 1).split('e');
  const exp = +e;
  const sign = mant.startsWith('-') ? '-' : '';
  const ds = mant.replace(/[-.]/g, '').replace(/0+$/, '') || '0';
  const sci = dtype === 'float32' ? Math.abs(v) < 1e-4 || Math.abs(v) >= 1e6 : exp < -4 || exp >= (g ? MAX_DIGITS : 16);
  if (sci) {
    const m = ds.length > 1 ? `${ds[0]}.${ds.slice(1)}` : ds;
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  const whole = exp >= 0 ? ds.slice(0, exp + 1).padEnd(exp + 1, '0') : '0';
  const frac = exp >= 0 ? ds.slice(exp + 1) : '0'.repeat(-exp - 1) + ds;
  return `${sign}${whole}${frac ? `.${frac}` : g ? '' : '.0'}`;
}
const MAX_DIGITS = 10;  // significant digits a float64 cell shows at most (tables.py MAX_DIGITS)
const MAX_ABS = 1e6;  // the largest |cell| the server takes (attention_core MAX_ABS)

function onClick(g, e) {
  const btn = e.target.closest('button.expand');
  if (btn) {  // an identity matrix shown as one line: show its cells
    const card = btn.closest('.card');
    card.classList.remove('collapsed');
    btn.remove();
    const first = card.querySelector('td[data-r]');
    if (first) focusCell(g, first);
    return;
  }
  const td = cellOf(e.target);
  if (!td) return;
  if (td.classList.contains('chk')) { if (e.target === td) stopOf(td).click(); return; }  // the whole cell toggles
  if (g.scrub.dragged(e)) return;  // the click that ends a drag (scrub.js): the value is set, no editor
  if (td.querySelector('input')) return;
  focusCell(g, td);
  if (g.scrub.touched() && g.scrub.scrubbable(td)) g.scrub.openSheet(td);  // a finger: the slider sheet, which can also open the editor
  else startEdit(g, td);
}
function onChange(g, e) {
  const box = e.target;
  if (box.type !== 'checkbox' || !cellOf(box)) return;
  const sent = box.checked;
  send(g, 'cell', { ...at(cellOf(box)), value: sent ? 1 : 0 }, 'edit', (refused) => {
    if (refused && box.checked === sent) box.checked = !sent;  // the server kept the old mask: show it
  });
}

function editingKey(g, e, t) {
  if (e.key === 'Escape') { e.preventDefault(); focusCell(g, finish(g, t, false)); return; }
  const steps = { Enter: [e.shiftKey ? -1 : 1, 0], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
  if (!(e.key in steps) && e.key !== 'Tab') return;
  e.preventDefault();
  // the next cell takes the focus before the editor goes: focus() lays the page out first when it is not laid out,
  // and the editor's removal would make it so (3-7 ms of a T=64 edit, laid out again in the frame that follows)
  const td = t.closest('td');
  const { table, row, col } = at(td);
  const next = e.key === 'Tab' ? along(g, td, e.shiftKey ? -1 : 1) : cellAt(g, table, row + steps[e.key][0], col);
  focusCell(g, next || td);
  finish(g, t, true);
}
function onKeydown(g, e) {
  const t = e.target;
  if (t.matches(EDITOR)) { editingKey(g, e, t); return; }
  const td = cellOf(t);
  if (!td) return;  // Tab and Shift+Tab are the browser's: they leave the grid
  const arrows = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  if (e.key in arrows && e.altKey) { e.preventDefault(); g.scrub.nudge(td, e.key, e.shiftKey); return; }  // scrub.js
  if (e.key in arrows) { e.preventDefault(); move(g, td, ...arrows[e.key]); return; }
  if (td.classList.contains('chk')) {  // Space is the checkbox's own; Enter toggles too
    if (e.key === 'Enter') { e.preventDefault(); t.click(); }
    return;
  }
  if (e.key === 'Enter' || e.key === 'F2') { e.preventDefault(); startEdit(g, td); }
  else if (e.key === 'Backspace' || e.key === 'Delete') { e.preventDefault(); startEdit(g, td, ''); }
  else if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey) { e.preventDefault(); startEdit(g, td, e.key); }
}
function onPaste(g, e) {
  const td = cellOf(e.target);
  if (!td) return;
  const text = (e.clipboardData || window.clipboardData).getData('text');
  if (!/[\t\n[]/.test(text.trim()) && !/[ ,;]\s*\S/.test(text.trim())) return;  // one value: a normal paste
  e.preventDefault();
  const inp = td.querySelector('input:not([type=checkbox])');
  if (inp) finish(g, inp, false);
  send(g, 'paste', { ...at(td), text }, 'submit');
}
