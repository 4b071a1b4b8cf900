// Editable number grids (js_on_load of the workbench's inputs), spreadsheet style: cells are plain text and
// one <input> editor appears in the cell being edited, so a 64×64 grid stays light.
// Click, Enter, F2 or typing edits a cell; Enter commits and moves down, Tab/Shift+Tab move along the row,
// the arrow keys move between cells, Escape puts the committed value back. A commit sends only
// {table, row, col, value}; pasting several cells sends the pasted text once. A value that is not a number
// stays as typed, marked, and the server's message names the cell; nothing else changes.
const NUM = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;
const at = (td) => ({ table: td.closest('table').dataset.name, row: +td.dataset.r, col: +td.dataset.c });
const cellAt = (table, r, c) =>
  element.querySelector(`table[data-name="${table}"] td[data-r="${r}"][data-c="${c}"][tabindex]`);
const numberCell = (e) => e.target.closest && e.target.closest('table.grid td[tabindex]');

// Edits go straight to the server (live_edit), one after another in the order made, and its answer goes
// straight to the views (live.js). Should a call fail, time out or find the server busy, that edit and every later
// one go as gradio's queued events instead. Queued workbench events wait for the edits still on their way
// (window.apLiveIdle, playground.on), so a control changed right after an edit applies after it.
let chain = Promise.resolve();
let live = !!(server && server.live_edit);
const LIVE_TIMEOUT_MS = 20000;
window.apLiveIdle = () => chain;
function apply(ans) {
  if (!ans || ans.busy) throw new Error('busy');
  for (const [id, u] of Object.entries(ans.views || {})) window.apViews?.[id]?.(u);
  if (ans.grid) props.value = ans.grid;  // a paste: the grids show the pasted block
}
function send(kind, payload, event) {
  chain = chain.then(() => {
    if (!live) { trigger(event, payload); return; }
    const late = new Promise((_, no) => setTimeout(() => no(new Error('timeout')), LIVE_TIMEOUT_MS));
    return Promise.race([server.live_edit({ kind, ...payload }), late]).then(apply).catch(() => {
      live = false;
      trigger(event, payload);
    });
  });
}

function focusCell(td) {
  element.querySelectorAll('table.grid td[tabindex="0"]').forEach((c) => { if (c !== td) c.tabIndex = -1; });
  td.tabIndex = 0;
  td.focus();
}

function move(td, dr, dc) {
  const { table, row, col } = at(td);
  const next = cellAt(table, row + dr, col + dc);
  if (next) focusCell(next);
  return next;
}

function startEdit(td, text) {
  if (td.querySelector('input')) return;
  const inp = document.createElement('input');
  inp.value = text === undefined ? td.textContent : text;
  inp.dataset.was = td.textContent;
  const tbl = td.closest('table');  // named by its row and column tokens, as the headers read: "X … t2, d1"
  const head = tbl.rows[0].cells[td.cellIndex]?.textContent || `column ${+td.dataset.c + 1}`;
  inp.setAttribute('aria-label', `${tbl.getAttribute('aria-label')} ${td.parentElement.cells[0].textContent}, ${head}`);
  inp.inputMode = 'decimal';
  inp.spellcheck = false;
  td.textContent = '';
  td.appendChild(inp);
  inp.focus();
  if (text === undefined) inp.select();
}

function finish(inp, keep) {
  const td = inp.closest('td');
  if (!td || inp.dataset.done) return td;
  inp.dataset.done = '1';
  const value = keep ? inp.value : inp.dataset.was;
  inp.remove();
  td.textContent = value;
  if (keep && value !== inp.dataset.was) {
    td.classList.toggle('bad', !NUM.test(value) || !isFinite(parseFloat(value)));
    send('cell', { ...at(td), value }, 'edit');
  }
  return td;
}

element.addEventListener('click', (e) => {
  const btn = e.target.closest('button.expand');
  if (btn) {  // an identity matrix shown as one line: show its cells
    const card = btn.closest('.card');
    card.classList.remove('collapsed');
    btn.remove();
    const first = card.querySelector('td[tabindex]');
    if (first) focusCell(first);
    return;
  }
  const td = numberCell(e);
  if (td && !td.querySelector('input')) { focusCell(td); startEdit(td); }
});
element.addEventListener('change', (e) => {
  const box = e.target;
  if (box.type === 'checkbox') send('cell', { ...at(box.closest('td[data-r]')), value: box.checked ? 1 : 0 }, 'edit');
});
element.addEventListener('focusout', (e) => {
  if (e.target.matches('table.grid td input:not([type=checkbox])')) finish(e.target, true);
});
function along(td, dir) {  // Tab order: along the row, then on to the next row
  const { table, row, col } = at(td);
  const width = td.closest('tr').querySelectorAll('td[tabindex]').length;
  return cellAt(table, row, col + dir) || cellAt(table, row + dir, dir > 0 ? 0 : width - 1);
}

element.addEventListener('keydown', (e) => {
  const t = e.target;
  if (t.matches('table.grid td input:not([type=checkbox])')) {  // editing
    if (e.key === 'Escape') { e.preventDefault(); focusCell(finish(t, false)); return; }
    const steps = { Enter: [e.shiftKey ? -1 : 1, 0], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
    if (!(e.key in steps) && e.key !== 'Tab') return;
    e.preventDefault();
    const td = finish(t, true);
    const next = e.key === 'Tab' ? along(td, e.shiftKey ? -1 : 1) : move(td, ...steps[e.key]);
    focusCell(next || td);
    return;
  }
  const td = numberCell(e);
  if (!td) return;
  const arrows = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  if (e.key in arrows) { e.preventDefault(); move(td, ...arrows[e.key]); }
  else if (e.key === 'Tab') { const n = along(td, e.shiftKey ? -1 : 1); if (n) { e.preventDefault(); focusCell(n); } }
  else if (e.key === 'Enter' || e.key === 'F2') { e.preventDefault(); startEdit(td); }
  else if (e.key === 'Backspace' || e.key === 'Delete') { e.preventDefault(); startEdit(td, ''); }
  else if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey) { e.preventDefault(); startEdit(td, e.key); }
});
element.addEventListener('paste', (e) => {
  const td = numberCell(e) || (e.target.closest && e.target.closest('table.grid td'));
  if (!td || !td.dataset.r) return;
  const text = (e.clipboardData || window.clipboardData).getData('text');
  if (!/[\t\n\[]/.test(text.trim()) && !/[ ,;]\s*\S/.test(text.trim())) return;  // one value: a normal paste
  e.preventDefault();
  const inp = td.querySelector('input:not([type=checkbox])');
  if (inp) finish(inp, false);
  send('paste', { ...at(td), text }, 'submit');
});
