// The page-wide interface: what the page's modules share, and nothing else. Every other module that needs to reach
// another one does it through here (no globals on window). Each name's owner is said beside it.
//
// Modules are served by the app (ui/assets.py ROUTES, at ap/static/<file> beside the page) and evaluated once:
// every component hook that imports this module (ui/assets.py hook) gets the same instance.

// ---- the views live edits update ----------------------------------------------------------------------------
// elem_id -> update({value?, visible?}): registered by live.js (liveView, drawnView), called by grid.js with a live
// edit's answer
export const views = new Map();

// elem_id -> the skeleton key of what a drawn view shows, when a live edit's answer said it (live.js drawnView): sent
// with each edit (grid.js), whose answer then carries only the cells of the views whose skeleton stays (ui/render/slots.py)
export const drawnKeys = new Map();

// the views gradio is still to be told the value they show (live.js drawnView); a queued event first tells them all
export const untold = new Set();
export function tellAll() {
  [...untold].forEach((f) => f());
}

// whether a number is being scrubbed (scrub.js puts the class ap-scrub on the page while one is): watch.js holds its
// flashes, live.js its tellings, until the scrub ends (the event ap-scrub-end)
export const scrubbing = () => document.documentElement.classList.contains('ap-scrub');

// ---- the workbench grid's live edits (grid.js provides them) ---------------------------------------------------
let edits = null;  // {idle: () => Promise (every edit on its way answered and drawn), stale: () => void, address}
export function provideEdits(e) {
  edits = e;
}
// before a queued event leaves the page (ui/wiring.py AFTER_LIVE_EDITS): the live edits on their way go first, and
// gradio is told what the views show. ``leaving`` (eventLeft) runs in that very step, so an edit queued behind the
// same edits already finds the event on its way and waits for it (grid.js send)
export function liveIdle(leaving = null) {
  if (edits) return edits.idle(leaving);
  tellAll();
  leaving?.();
  return Promise.resolve();
}
// the state's part of the page's address ({preset}, {scenario}, {s} or {} for the default preset as it is; {seed}
// beside any when the seed box's is not the state's own), asked of
// the server once the edits on their way are stored: {address} (address.js), or {} when the server holds no state
export function stateQuery() {
  return edits?.address ? edits.address() : Promise.resolve(null);
}
// an event's output is being drawn: a look computed before it is of other values (live.js drawnView)
export function stale() {
  edits?.stale();
}

// ---- queued events on their way (ui/wiring.py on: each one's ``js`` and the ``.then`` after it) ---------------
// A live edit waits for the queued events that have left the page (grid.js send), as they wait for it (liveIdle):
// the server then takes it after them, and its answer, drawn last, shows both. (A box ticked while the fill's event
// was on its way was taken first on a busy server; the event's answer, computed before it, came after the tick's
// and stayed on screen: no warning for the row the tick masked.) gradio runs the ``.then`` after a success and the
// ``.failure`` after an error; an event told of by neither (the page lost its connection) is counted landed after
// EVENT_WAIT_MS, and its own landing, should it come after all, is then not counted again.
const EVENT_WAIT_MS = 30000;
const flying = new Set();  // a timer per event on its way (or about to leave: afterEvents)
let late = 0;  // events counted landed by their timer, not yet told of
let waiting = [];  // what waits for every event to land
let turns = [];  // what waits for every event but one to land (afterEvents), asked again at each landing
function land(t) {
  clearTimeout(t);
  flying.delete(t);
  const asked = turns;
  turns = [];
  asked.forEach((f) => f());
  if (flying.size) return;
  const w = waiting;
  waiting = [];
  w.forEach((f) => f());
}
export function eventLeft() {
  const t = setTimeout(() => { late++; land(t); }, EVENT_WAIT_MS);
  flying.add(t);
}
export function eventLanded() {
  if (late) { late--; return; }
  const [t] = flying;
  if (t !== undefined) land(t);
}
// before an event that reads the stored state leaves (the share link, the exports, a pin: ui/assets.py
// AFTER_EVENTS): the live edits on their way go first, as for any event, and so does every queued event on its way.
// Else the link made right after a box was typed in (its blur an event on its way) could be read on the server
// before the box's value was stored: a link of the state before. It waits by count, not by place (events do not
// land in the order they left, and eventLanded takes the first timer whichever landed): once only one event is on
// its way, that one is this, which has not left yet. (Its own timer runs meanwhile: an event that never lands holds
// it at most EVENT_WAIT_MS.)
export function afterEvents() {
  return liveIdle(eventLeft).then(() => new Promise((ok) => {
    const turn = () => { if (flying.size <= 1) ok(); else turns.push(turn); };
    turn();
  }));
}
// before a streamed event leaves (ui/wiring.py stream: the Train tab's Run N, ui/assets.py AFTER_QUEUED): every
// queued event on its way lands first. (A Reset clicked just before Run, taken by a busy server after the run had
// begun, moved the run's counter: the run stopped unseen and the tab stood at step 0 under a Run just clicked.) It
// does not count itself on its way (flying) as afterEvents does: a run lasts seconds, and the live edits would wait.
export function eventsSettled() {
  const landed = eventsLanded();
  return landed ? landed.then(eventsSettled) : Promise.resolve();
}
export const eventsFlying = () => flying.size > 0;
// null when no event is on its way, else the promise that every one has landed
export const eventsLanded = () => (flying.size ? new Promise((ok) => waiting.push(ok)) : null);

// the Train tab's Run N clicks, counted as each click happens (before any event's js: gradio runs the js of a click
// queued behind a run still going only once that run ends); Run N and Pause send the count (ui/assets.py RUN_COUNTED,
// PAUSE_COUNTED): a Pause stops every Run clicked before it, also one still waiting for the events on their way
let runs = 0;
document.addEventListener('click', (e) => { if (e.target.closest?.('#train-run')) runs++; }, true);
export const runsClicked = () => runs;

// each queued event that asks for it (ui/assets.py STAMPED) numbered as it leaves the page: the server answers only
// the newest of a handler's calls (ui/wiring.py NEWEST), whatever order they reach it in
let stamps = 0;
export const stamp = () => ++stamps;

// ---- answers that set the workbench's controls (ui/wiring.py on(writes=True): a preset loaded, a size changed) ----
// Such an answer sets every control the new state changes. A control changed while one is on its way (a head typed
// while a preset loads) was taken by the server after the preset, and the preset's answer, drawn first, had set the
// box back: the views showed the head typed under a box showing the preset's. A control's call made meanwhile
// waits for those answers (controlLeaves) and then leaves numbered negatively (ui/assets.py control_js): the server
// answers it with its box set to the value it carried (ui/wiring.py on(echo=True)). Writers are counted from the
// moment they are made (before they wait for the live edits), and land by count, as events do (eventLanded): a
// writer told of by neither its ``.then`` nor its ``.failure`` is counted landed after EVENT_WAIT_MS.
let writersMade = 0;
let writersDone = 0;
let writersLate = 0;  // writers counted landed by their timer, not yet told of
const writerTimers = [];
let writersWait = [];  // [count, resolve]: what waits for that many writers to have landed
function writerCounted() {
  writersDone++;
  const due = writersWait.filter(([n]) => writersDone >= n);
  writersWait = writersWait.filter(([n]) => writersDone < n);
  due.forEach(([, ok]) => ok());
}
export function writerMade() {
  writersMade++;
  const t = setTimeout(() => { writerTimers.splice(writerTimers.indexOf(t), 1); writersLate++; writerCounted(); },
    EVENT_WAIT_MS);
  writerTimers.push(t);
}
export function writerLanded() {
  if (writersLate) { writersLate--; return; }
  clearTimeout(writerTimers.shift());
  writerCounted();
}
const writersBefore = (n) => (writersDone >= n ? Promise.resolve() : new Promise((ok) => writersWait.push([n, ok])));

// Each control's calls (by its name, ui/wiring.py on(newest=)): the newest one made, and what waits for the next one
// to land (at most EVENT_WAIT_MS). Calls of one control made while they wait for a writer (a temperature dragged
// while the heads change, each step an Enter) would all leave at once when it lands, and each be computed: the
// newest leaves first, and the others after it has landed, when the server already holds its number and drops them.
// Not a control that is a writer itself (a size: its Enter and blur are all it sends, and the blur, the newer,
// waits for the Enter as for any writer made before it: the Enter waiting for the blur's landing stalled both).
const newestCall = new Map();
const nextLanding = new Map();
export function controlLanded(name) {
  const waiting = nextLanding.get(name) ?? [];
  nextLanding.delete(name);
  waiting.forEach((ok) => ok());
}
const landingOf = (name) => new Promise((ok) => {
  nextLanding.set(name, [...(nextLanding.get(name) ?? []), ok]);
  setTimeout(ok, EVENT_WAIT_MS);
});
// before the control ``name``'s call numbered ``s`` leaves: the writers made before it land first, then the live
// edits go (liveIdle), and the call is counted on its way (a writer itself when ``writes``: a size changes other
// controls). Resolves to whether it waited for a writer, read as the control was changed.
export function controlLeaves(writes, name, s) {
  const before = writersMade;
  const waited = writersDone < before;
  if (writes) writerMade();
  newestCall.set(name, s);
  return writersBefore(before)
    .then(() => (waited && !writes && newestCall.get(name) !== s ? landingOf(name) : null))
    .then(() => liveIdle(eventLeft))
    .then(() => waited);
}

// ---- the number picked for an explanation (watch.js sets it; explain.js places its card beside it; room.js) ----
let pickedCell = null;  // {view: elem_id, name: table, r, c}
export const picked = () => pickedCell;
export function pick(cell) {
  pickedCell = cell;
}
// a number's tensor: its table's, or its own where a table holds two (the notebook's KV cache: a step's weights,
// kv_row, and its count, cache), and the cell a pick names in a view
export const nameOf = (td) => td.dataset.name ?? td.closest('table').dataset.name;
export const cellOf = (view, { name, r, c }) => view?.querySelector(
  `td[data-name="${name}"][data-r="${r}"][data-c="${c}"], `
  + `table[data-name="${name}"] td[data-r="${r}"][data-c="${c}"]:not([data-name])`);

// ---- handles of page-level modules, each provided by its owner once it has started ------------------------------
const handles = {
  fit: null,  // fit.js: fit(force) fits the workbench's numbers to the first screen (force: measure anew)
  roam: null,  // a11y.js: roam() gives each number table its one Tab stop again
  present: null,  // present.js: {start, stop, goto(key), stage()}
};
export function provide(name, handle) {
  if (!(name in handles)) throw new Error(`page.js: no handle named ${name}`);
  handles[name] = handle;
}
export const fit = (force) => handles.fit?.(force);
export const roam = () => handles.roam?.();
export const present = () => handles.present;
