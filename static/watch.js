// Number tables that follow edits (js_on_load of the overview and the notebook steps).
// After each re-render every cell whose exact value changed flashes for a moment, so the path of one edit
// through the pipeline can be seen; a click on a number asks the server to explain it.
const last = new Map();
const FLASH = [{ boxShadow: 'inset 0 0 0 3px #ff9f1c', backgroundColor: '#fff3c4' }, {}];
function snap(flash) {
  const seen = new Map();
  const changed = [];
  element.querySelectorAll('table.nt[data-name]').forEach((t) => {
    const key0 = `${t.dataset.name}|${t.dataset.shape}|`;
    t.querySelectorAll('td[data-r]').forEach((td) => {
      const key = key0 + td.dataset.r + '|' + td.dataset.c;
      const v = td.title || td.textContent;
      const old = last.get(key);
      if (flash && old !== undefined && old !== v) changed.push(td);
      seen.set(key, v);
    });
  });
  last.clear();
  seen.forEach((v, k) => last.set(k, v));
  // marked with a class (what changed) and flashed with the Web Animations API: no forced layout per cell
  for (const td of changed) {
    td.classList.add('chg');
    td.animate(FLASH, { duration: 1600, easing: 'ease-out' }).onfinish = () => td.classList.remove('chg');
  }
}
snap(false);
watch('value', () => {
  snap(true);
  // the overview re-rendered: views that follow the workbench (pin and compare) may ask for their update
  if (element.querySelector('.overview')) document.dispatchEvent(new CustomEvent('pg-updated'));
});
element.addEventListener('click', (e) => {
  const td = e.target.closest('td[data-r]');
  if (!td || !td.closest('table.nt')) return;
  // a new pick reopens a closed explanation (the workbench's, or the Real model tab's)
  for (const id of ['explain', 'rm-explain']) document.getElementById(id)?.classList.remove('closed');
  trigger('click', { name: td.closest('table').dataset.name, row: +td.dataset.r, col: +td.dataset.c });
});
element.addEventListener('keydown', (e) => {
  const td = e.target.closest('td[data-r]');
  if (td && (e.key === 'Enter' || e.key === ' ')) { e.preventDefault(); td.click(); }
});
