// Editable number grids (js_on_load of the workbench's inputs). One <input> per number.
// Enter commits and moves down, Tab/Shift+Tab move along the row (the browser's own order), the arrow keys
// move between cells, Escape puts the last committed value back. A commit sends only {table, row, col, value};
// pasting several cells sends the pasted text once. A value that is not a number stays as typed, marked, and
// the server's message names the cell; nothing else changes.
const NUM = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;
const at = (td) => ({ table: td.closest('table').dataset.name, row: +td.dataset.r, col: +td.dataset.c });
const cell = (table, r, c) =>
  element.querySelector(`table[data-name="${table}"] td[data-r="${r}"][data-c="${c}"] input`);
const committed = new WeakMap();  // input -> the value last sent (or rendered)
const base = (inp) => committed.has(inp) ? committed.get(inp) : inp.defaultValue;

function commit(inp) {
  const td = inp.closest('td[data-r]');
  if (!td || inp.type === 'checkbox') return;
  if (inp.value === base(inp)) return;
  committed.set(inp, inp.value);
  inp.classList.toggle('bad', !NUM.test(inp.value) || !isFinite(parseFloat(inp.value)));
  trigger('edit', { ...at(td), value: inp.value });
}

function move(inp, dr, dc) {
  const { table, row, col } = at(inp.closest('td[data-r]'));
  const next = cell(table, row + dr, col + dc);
  if (next) { next.focus(); next.select(); return true; }
  return false;
}

element.addEventListener('focusin', (e) => { if (e.target.matches('td input:not([type=checkbox])')) e.target.select(); });
element.addEventListener('change', (e) => {
  const inp = e.target;
  if (inp.type === 'checkbox') {
    trigger('edit', { ...at(inp.closest('td[data-r]')), value: inp.checked ? 1 : 0 });
  } else if (inp.matches('td input')) {
    commit(inp);
  }
});
element.addEventListener('keydown', (e) => {
  const inp = e.target;
  if (!inp.matches('td input') || inp.type === 'checkbox') return;
  const all = inp.selectionStart === 0 && inp.selectionEnd === inp.value.length;
  if (e.key === 'Enter') { e.preventDefault(); commit(inp); move(inp, e.shiftKey ? -1 : 1, 0); }
  else if (e.key === 'Escape') { inp.value = base(inp); inp.classList.remove('bad'); inp.select(); }
  else if (e.key === 'ArrowUp' || e.key === 'ArrowDown') {
    if (move(inp, e.key === 'ArrowUp' ? -1 : 1, 0)) { e.preventDefault(); commit(inp); }
  } else if ((e.key === 'ArrowLeft' && (all || inp.selectionStart === 0)) ||
             (e.key === 'ArrowRight' && (all || inp.selectionEnd === inp.value.length))) {
    if (move(inp, 0, e.key === 'ArrowLeft' ? -1 : 1)) { e.preventDefault(); commit(inp); }
  }
});
element.addEventListener('paste', (e) => {
  const inp = e.target;
  if (!inp.matches('td input')) return;
  const text = (e.clipboardData || window.clipboardData).getData('text');
  if (!/[\t\n\[]/.test(text.trim()) && !/[ ,;]\s*\S/.test(text.trim())) return;  // one value: a normal paste
  e.preventDefault();
  trigger('submit', { ...at(inp.closest('td[data-r]')), text });
});
// a re-render (structural change, paste) brings new values: they are the committed ones
watch('value', () => { element.querySelectorAll('td input').forEach((i) => committed.delete(i)); });
element.addEventListener('click', (e) => {
  const btn = e.target.closest('button.expand');
  if (!btn) return;
  const card = btn.closest('.card');
  card.classList.remove('collapsed');
  btn.remove();
  card.querySelector('td input')?.focus();
});
