// Lesson rooms (js_on_load of the room element, ui/room.py). It follows the stage through present mode's handle
// and the explained number through the picked cell (page.js).
//
// Teacher: "Teach this" fires the element's event {kind: 'open'}; its answer (the element's value) carries the code,
// the secret (kept in this closure, sent only as the X-Room-Secret header) and the join card. The teacher's
// tab and present-mode stage are posted to /room/CODE/view; edits publish themselves on the server (ui/room.py).
// Student (?room=CODE): joins (POST /room/CODE/join; its token kept in localStorage, so a reload is the same
// student), reads /room/CODE/events (Server-Sent Events, read with fetch) and, while following, fires
// {kind: 'follow'} when the teacher's state changed, then sets the tab and the stage.
import * as hide from './hide.js';
import * as page from './page.js';

const url = (path) => `${location.pathname.replace(/[^/]*$/, '')}room/${path}`;
const esc = (t) => String(t ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const loaded = () => !!document.querySelector('#badge .html-container')?.textContent.trim();

// R: the room element's state: the element and its event, the teacher's room ({code, secret, join, qr}) once
// open, whether one is being opened, the join card, the explained number last shown (a student's)
export function mount({ element, trigger, props, watch }) {
  const asked = (new URLSearchParams(location.search).get('room') || '').trim().toUpperCase();
  element.innerHTML = `<div class="room-bar">
    <button type="button" class="room-teach" title="open a room: your class follows this page live">Teach this</button>
    <form class="room-join"><label>Join a class <input class="room-code" maxlength="24" autocomplete="off"
      autocapitalize="characters" spellcheck="false" placeholder="CODE" aria-label="room code"></label>
      <button type="submit">Join</button></form>
    <div class="room-status" role="status" aria-live="polite"></div></div>
    <div class="room-teacher" hidden></div><div class="room-student" hidden></div>`;
  const $ = (sel) => element.querySelector(sel);
  const status = (html, kind = '') => { $('.room-status').innerHTML = html; $('.room-status').dataset.kind = kind; };
  const R = { element, trigger, $, status, teacher: null, opening: false, cardEl: null, explained: '' };
  dockBar(element);

  // a button pressed with a mouse or a finger gives the focus back, so that present mode's stage keys step on: a
  // focused button took → and Space, and Space pressed it again (a lecturer's Space asked a new quiz question)
  element.addEventListener('click', (e) => {
    const b = e.target.closest?.('button');
    if (b && e.detail > 0 && document.activeElement === b) b.blur();
  });
  $('.room-teach').addEventListener('click', () => {
    if (R.teacher) { card(R, true); return; }
    R.opening = true;
    status('Opening a room…');
    trigger('click', { kind: 'open' });
  });
  watch('value', () => {
    let v = null;
    try { v = JSON.parse(props.value || 'null'); } catch { return; }
    if (!v) return;
    if (v.error) { status(esc(v.error), 'error'); R.opening = false; return; }
    if (v.role === 'teacher' && R.opening && !R.teacher) { R.opening = false; teach(R, v); }
    if (v.resumed && R.teacher) status(`Teaching room <b class="room-code-now">${esc(R.teacher.code)}</b>`);
  });
  // the teacher's page reloaded: it takes its room back (the secret kept for this tab only, sessionStorage)
  const kept = !asked && JSON.parse(sessionStorage.getItem('ap-teaching') || 'null');
  if (kept) {
    (async () => {
      while (!loaded()) await sleep(100);
      // (at a lesson's stage the page keeps the stage's own state, and the room takes it: lesson.js)
      trigger('click', { kind: 'resume', code: kept.code, secret: kept.secret,
        own: new URLSearchParams(location.search).has('lesson') });
      teach(R, kept, false);
      // "Teaching room CODE" once the room's state is on this page (the resume's answer), not before
      status(`Taking room <b>${esc(kept.code)}</b> back…`, 'resuming');
    })();
  }
  // ---- joining by code ------------------------------------------------------------------------------------------
  $('.room-join').addEventListener('submit', (e) => {
    e.preventDefault();
    const code = $('.room-code').value.trim().toUpperCase().replace(/[\s-]/g, '');
    if (!code) { status('Type the code shown on the teacher\'s screen', 'error'); return; }
    const next = new URL(location.href);
    next.search = `?room=${encodeURIComponent(code)}`;
    location.assign(next.toString());
  });
  // ---- the student ----------------------------------------------------------------------------------------------
  if (asked) follow(R, asked);
}

// ---- reading a room's stream (SSE over fetch, so the teacher's secret goes in a header, not the URL) ----------
// The bar's place in the page's order, not only on screen (room.css puts an idle bar at the end of the page): an idle
// bar follows the tabs, so Tab reaches "Teach this" where it is seen, after the workbench; in a room, or with a
// message, it comes back before them, where room.css shows it
function dockBar(element) {
  let tries = 0;
  const dock = () => {
    const bar = document.getElementById('room-bar'), tabs = document.getElementById('tabs');
    if (!bar || !tabs || bar.parentElement !== tabs.parentElement) {  // (the page not yet whole: again shortly)
      if (tries++ < 50) setTimeout(dock, 100);
      return;
    }
    const idle = !element.querySelector('.room-status')?.innerHTML
      && !element.querySelector('.room-teacher:not([hidden]), .room-student:not([hidden])');
    if (idle && bar.nextElementSibling === tabs) tabs.after(bar);
    else if (!idle && tabs.nextElementSibling === bar) tabs.before(bar);
  };
  new MutationObserver(dock).observe(element, { subtree: true, childList: true, characterData: true, attributes: true,
    attributeFilter: ['hidden'] });
  dock();
}

// The room's line in view, with the page's first screen if that holds it (then ``then``): "Teach this" and "Join a
// class" wait at the page's end, so the lesson started, or a refused code's message came, with the page scrolled to
// where they had been, the room's line far above. It waits until dockBar has brought the bar up before the tabs.
function barInView(then) {
  let tries = 0;
  const go = () => {
    const bar = document.getElementById('room-bar'), tabs = document.getElementById('tabs');
    if (!bar || bar.nextElementSibling !== tabs) {  // (not up yet: dockBar moves it once the status changes)
      if (tries++ < 50) setTimeout(go, 100);
      return;
    }
    const r = bar.getBoundingClientRect();
    const shown = r.top >= 0 && r.bottom <= innerHeight;  // (on screen already: a lecturer's place mid-lesson is kept)
    if (!shown && r.bottom + scrollY <= innerHeight) scrollTo({ top: 0, behavior: 'instant' });
    else if (!shown) bar.scrollIntoView({ block: 'start', behavior: 'instant' });
    then?.();
  };
  go();
}

function listen(path, headers, onData, onRefused) {
  let ctl = null;
  let alive = true;
  (async () => {
    while (alive) {
      ctl = new AbortController();
      try {
        const res = await fetch(url(path), { headers, cache: 'no-store', signal: ctl.signal });
        if (!res.ok) {
          const body = await res.json().catch(() => ({}));
          onRefused(res.status, body.detail || `error ${res.status}`);
          if (res.status !== 429 && res.status < 500) return;
        } else {
          await readEvents(res, onData);
        }
      } catch { /* a dropped connection: connect again */ }
      if (alive) await sleep(1000);
    }
  })();
  // a phone back from sleep may hold a dead connection that has not failed yet: connect again at once
  document.addEventListener('visibilitychange', () => { if (!document.hidden && ctl) ctl.abort(); });
  return { stop: () => { alive = false; if (ctl) ctl.abort(); } };
}
async function readEvents(res, onData) {  // each event's data, parsed, to onData until the stream ends
  const reader = res.body.getReader();
  const text = new TextDecoder();
  let rest = '';
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    const parts = (rest + text.decode(r.value, { stream: true })).split(/\r?\n\r?\n/);
    rest = parts.pop();
    for (const m of parts) {
      const data = m.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim())
        .join('\n');
      if (data) onData(JSON.parse(data));
    }
  }
}
async function post(path, body, headers = {}) {
  const res = await fetch(url(path), {
    method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body || {}),
  });
  const out = await res.json().catch(() => ({}));
  if (!res.ok) throw Object.assign(new Error(out.detail || `error ${res.status}`), { status: res.status });
  return out;
}

// ---- the tab and the stage shown, read and set --------------------------------------------------------------
const tabButtons = () => Array.from(document.querySelectorAll('#tabs [role=tab]'));
const tabNow = () => tabButtons().find((b) => b.getAttribute('aria-selected') === 'true')?.textContent.trim()
  || 'Workbench';
const stageNow = () => document.body.dataset.presentStage || null;
const tNow = () => Number(document.body.dataset.presentT) || null;  // the KV-cache stage's token (present.js)
const partNow = () => document.body.dataset.presentPart || null;  // the Q, K, V stage's projection shown (present.js)
// a lesson's mask lab stage: the fill convention shown (lesson.js fillShown: 1-based, N steps it)
const FILLS = ['-inf', '-1e9', 'additive'];  // (lesson.js's; ui/render/mask_tables.py FILL_TITLES)
const fillNow = () => FILLS[Number(document.body.dataset.fillShown) - 1] || null;
// the overview's number whose explain card is open (watch.js records the pick), or null
const explainNow = () => {
  const card = document.getElementById('explain');
  const p = page.picked();
  if (!card || card.classList.contains('closed') || !p || p.view !== 'overview') return null;
  return { name: String(p.name), r: p.r | 0, c: p.c | 0 };
};
function showExplain(R, ex) {
  const card = document.getElementById('explain');
  if (!ex) {
    if (R.explained) card?.classList.add('closed');
    R.explained = '';
    return;
  }
  const key = JSON.stringify(ex);
  if (key === R.explained && !card?.classList.contains('closed')) return;
  const td = document.querySelector(`#overview table[data-name="${CSS.escape(ex.name)}"] td[data-r="${ex.r | 0}"][data-c="${ex.c | 0}"]`);
  if (td) { td.click(); R.explained = key; }
}
function showTab(name) {
  if (!name || tabNow() === name) return;
  tabButtons().find((b) => b.textContent.trim() === name)?.click();
}
function showStage(key, t, part) {
  const pres = page.present();
  if (!pres) return;
  if (key) pres.goto(key, t, part);
  else {
    pres.goto(null);  // (a stage asked for and not drawn yet is not started later: present.js goto)
    if (pres.stage()) pres.stop();
  }
}
function showFill(fill) {  // the mask lab shows that fill convention's tables only (present.css), or all three
  const n = FILLS.indexOf(fill) + 1;
  if (n) document.body.dataset.fillShown = String(n);
  else delete document.body.dataset.fillShown;
}

// ---- the teacher -----------------------------------------------------------------------------------------
function teach(R, room, fresh = true) {
  R.teacher = room;
  R.off = new AbortController();  // this room's listeners and observers: gone once it closes (a new room, new ones)
  sessionStorage.setItem('ap-teaching', JSON.stringify(room));
  const hdr = { 'X-Room-Secret': room.secret };
  const box = R.$('.room-teacher');
  box.hidden = false;
  R.$('.room-join').hidden = true;
  R.$('.room-teach').textContent = 'Show the join card';
  R.status(`Teaching room <b class="room-code-now">${esc(room.code)}</b>`);
  box.innerHTML = `<span class="room-count" aria-live="polite">${joined(0)}</span>
    <span class="room-cap" role="alert"></span>
    <button type="button" data-ask="predict">Ask: predict this number</button>
    <button type="button" data-ask="token">Ask: which key gets most weight</button>
    <button type="button" data-ask="quiz">Ask: a quiz question</button>
    <button type="button" class="room-end" hidden>Close answers</button>
    <button type="button" class="room-reveal" hidden>Reveal</button>
    <button type="button" class="room-csv">Download results (CSV)</button>
    <button type="button" class="room-close">Close the room</button>
    <div class="room-q" aria-live="polite"></div>`;
  const view = () => post(`${room.code}/view`, { tab: tabNow(), stage: stageNow(), t: tNow(), part: partNow(),
    fill: fillNow(), explain: explainNow() }, hdr)
    .catch(() => {});
  let queued = false;
  const later = () => { if (!queued) { queued = true; setTimeout(() => { queued = false; view(); }, 30); } };
  const observe = (target, options) => {
    const o = new MutationObserver(later);
    o.observe(target, options);
    R.off.signal.addEventListener('abort', () => o.disconnect());
  };
  observe(document.body, { attributes: true, attributeFilter: ['data-present-stage', 'data-present-t',
    'data-present-part', 'data-fill-shown'] });
  const exCard = document.getElementById('explain');  // opened (a new explanation arrives), or closed
  if (exCard) observe(exCard, { attributes: true, attributeFilter: ['class'], childList: true });
  observe(document.getElementById('tabs') || document.body,
    { attributes: true, subtree: true, attributeFilter: ['aria-selected'] });
  const stream = teacherStream(R, room, hdr, box);
  teacherClicks(R, room, hdr, box, stream);
  if (fresh) card(R, true);
  view();
}

// The answers' chart (ui/room.py chart, room.css) is shown while a question of the open room is: it stayed over the
// projected stage after "Close the room", with its show / hide button gone, and into the next room. A new question's
// chart waits for its own figure (the last question's "3 answers" stood over a question nobody had answered yet).
const ASKED = 'room-asked', STALE = 'room-chart-stale';
const chart = { qid: null, fresh: null };  // the question the chart is shown for, and the watch for its figure
const chartTitle = () => document.querySelector('#room-plot .gtitle')?.textContent ?? null;
function chartShown(qid) {
  if (qid === chart.qid) return;
  chart.qid = qid;
  chart.fresh?.disconnect();
  chart.fresh = null;
  const cl = document.body.classList;
  if (qid === null) { cl.remove(ASKED, STALE, 'room-chart-off'); return; }  // (the next room's chart starts shown)
  cl.add(ASKED, STALE);
  const was = chartTitle(), since = Date.now();
  const fresh = new MutationObserver(() => {  // the figure gradio draws for the select event asked just now
    const now = chartTitle();
    if (now !== null && (now !== was || Date.now() - since > 1500)) { cl.remove(STALE); fresh.disconnect(); }
  });
  fresh.observe(document.getElementById('room-bar') || document.body, { childList: true, subtree: true,
    characterData: true });
  chart.fresh = fresh;
}

function teacherStream(R, room, hdr, box) {  // the room's count, refusals and question, as they change
  const q = (sel) => box.querySelector(sel);
  let lastQ = null;
  return listen(`${room.code}/events`, hdr, (p) => {
    if (p.gone || p.closed) {  // (closed from another of the teacher's tabs, or expired: it said "undefined students")
      hide.set('room', null);
      chartShown(null);
      R.status(`Room ${esc(room.code)} is closed.`, 'closed');
      return;
    }
    q('.room-count').textContent = joined(p.students);
    cardCount(R, p.students);
    q('.room-cap').textContent = p.refused ? `${p.refused} join${p.refused === 1 ? '' : 's'} refused: the room is full` : '';
    const qu = p.question;
    q('.room-end').hidden = !qu || qu.closed;
    q('.room-reveal').hidden = !qu || qu.revealed;
    // its number is the room's (the server's question id), as in the results' CSV: a reloaded page goes on counting
    q('.room-q').innerHTML = qu ? `<span class="room-qn">Question ${qu.id + 1}:</span> <b>${esc(qu.prompt)}</b> · <span class="room-answers">${qu.count} answer${qu.count === 1 ? '' : 's'}</span>`
      + (qu.closed && !qu.revealed ? ' · <b class="room-closed-q">answers closed</b>' : '')  // (it only lost a button)
      + (qu.revealed ? ` · right answer: <b class="room-right">${esc(qu.right)}</b>` : ' · right answer hidden until Reveal')
      + ' <button type="button" class="room-chart">chart: show / hide</button>'
      + (qu.moved ? `<p class="room-moved" role="alert">${qu.revealed ? MOVED_REVEALED
        : 'The numbers have changed since you asked: the answer is of the state when asked.'}</p>` : '')
      + headNote(qu) : '';
    headNotes();
    // what answers it, off this (projected) page too; once revealed, the cell it asked about, outlined
    hide.set('room', !qu ? null : qu.revealed ? qu.mark : qu.hide);
    chartShown(qu ? qu.id : null);
    const key = qu ? `${qu.id}:${qu.count}:${(qu.answers || []).join('|')}` : null;
    if (key && key !== lastQ) R.trigger('select', { code: room.code });  // its own event: answers the chart only
    lastQ = key;
  }, (code, detail) => {
    R.status(esc(detail), 'error');
    if (code === 403 || code === 404 || code === 410) sessionStorage.removeItem('ap-teaching');
  });
}

function teacherClicks(R, room, hdr, box, stream) {  // the teacher's buttons, and the cell a question is about
  let asking = null;
  const { signal } = R.off;
  const teaching = () => R.status(`Teaching room <b class="room-code-now">${esc(room.code)}</b>`);
  // a number asked for and not yet clicked is given up by any other button of the room's or by Escape (it stayed
  // armed: a later click on a number, to explain it, asked a question about it over the one open)
  const giveUp = () => { if (asking) { asking = null; teaching(); } };
  box.addEventListener('click', async (e) => {
    const b = e.target.closest('button');
    if (!b) return;
    if (b.dataset.ask !== asking) giveUp();
    try {
      if (b.dataset.ask === 'quiz') {  // the quiz's generator draws it: no cell to pick
        // (no draw index: the server takes the room's question count, which a reload of this page does not restart)
        await post(`${room.code}/ask`, { kind: 'quiz' }, hdr);
      } else if (b.dataset.ask) {
        asking = b.dataset.ask;
        R.status(`${asking === 'predict' ? 'Click the number to ask about, in the overview (scores, scaled, masked, weights or output)'
          : 'Click any number of a query\'s row in the overview\'s weights'} · Esc: no question`, 'pick');
      } else if (b.classList.contains('room-end')) await post(`${room.code}/end`, { reveal: false }, hdr);
      else if (b.classList.contains('room-reveal')) await post(`${room.code}/end`, { reveal: true }, hdr);
      else if (b.classList.contains('room-csv')) await download(room, hdr);
      else if (b.classList.contains('room-chart')) document.body.classList.toggle('room-chart-off');
      else if (b.classList.contains('room-close')) {
        await post(`${room.code}/close`, {}, hdr);
        closedRoom(R, room, hdr, box, stream);
      }
    } catch (err) { R.status(esc(err.message), 'error'); }
  }, { signal });
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape') giveUp(); }, { signal });
  document.addEventListener('click', async (e) => {  // the cell a question is about
    if (!asking) return;
    const td = e.target.closest && e.target.closest('#overview table[data-name] td[data-r][data-c]');
    if (!td) return;
    e.stopPropagation();  // spent on the question: the cell's explanation (its answer) is not opened
    e.preventDefault();
    const kind = asking;
    asking = null;
    const body = { kind, name: td.closest('table').dataset.name, row: +td.dataset.r, col: +td.dataset.c };
    try {
      await post(`${room.code}/ask`, body, hdr);
      teaching();
    } catch (err) { R.status(esc(err.message), 'error'); }
  }, { capture: true, signal });
}

// a closed room: its results stay to download (the server keeps a closed room 10 minutes, rooms.CLOSED_S), its
// question's hidden numbers come back, and "Teach this" opens a new room, without a reload
function closedRoom(R, room, hdr, box, stream) {
  sessionStorage.removeItem('ap-teaching');
  stream.stop();
  R.off.abort();
  R.teacher = null;
  R.count = 0;
  hide.set('room', null);
  chartShown(null);
  if (R.cardEl) { R.cardEl.remove(); R.cardEl = null; }  // (a new room draws its own card)
  R.$('.room-teach').textContent = 'Teach this';
  R.$('.room-join').hidden = false;
  box.innerHTML = '<button type="button" class="room-csv">Download results (CSV)</button>';
  box.querySelector('.room-csv').addEventListener('click',
    () => download(room, hdr).catch((err) => R.status(esc(err.message), 'error')));
  R.status(`Room ${esc(room.code)} is closed. Its results can be downloaded for 10 minutes.`, 'closed');
}

async function download(room, hdr) {
  const res = await fetch(url(`${room.code}/results.csv`), { headers: hdr });
  if (!res.ok) throw new Error(`results: error ${res.status}`);
  const a = document.createElement('a');
  a.href = URL.createObjectURL(await res.blob());
  a.download = `room-${room.code}-results.csv`;
  document.body.appendChild(a);
  a.click();
  a.remove();
}

// the join card, for the projector: the code in huge letters, the QR of the join URL, how many joined
function card(R, show) {
  const teacher = R.teacher;
  if (!R.cardEl && teacher) {
    R.cardEl = document.createElement('section');
    R.cardEl.className = 'room-card';
    R.cardEl.setAttribute('aria-label', 'join card');
    R.cardEl.innerHTML = `<div class="rc-qr">${teacher.qr}</div><div class="rc-text"><p>Join at</p>
      <p class="rc-url">${esc(teacher.join.replace(/\?room=.*/, ''))}</p><p>with the code</p>
      <p class="rc-code">${esc(teacher.code)}</p><p class="rc-count">${joined(R.count || 0)}</p>${localNote(teacher.local)}
      <button type="button" class="rc-hide">Start the lesson</button></div>`;
    R.cardEl.querySelector('.rc-hide').addEventListener('click', () => { card(R, false); barInView(); });
    document.body.appendChild(R.cardEl);
  }
  if (R.cardEl) R.cardEl.hidden = !show;
}
// a join address on this computer's loopback (a plain local run): students' devices cannot reach it, and the card
// says so, with the command that serves the room on the network and the address it would serve at
function localNote(local) {
  if (!local) return '';
  return `<p class="rc-local" role="note">This address opens only on this computer: students' phones and laptops
    cannot reach it. Start the app with <code>${esc(local.command)}</code> to teach on this network${local.lan
    ? `: students then join at <b>${esc(local.lan)}</b>` : ''}.</p>`;
}
// (kept: a card drawn later, as after the lecturer's reload, counts the class too; it said 0 beside the bar's 2)
const joined = (n) => `${n} student${n === 1 ? '' : 's'} joined`;
function cardCount(R, n) {
  R.count = n;
  if (R.cardEl) R.cardEl.querySelector('.rc-count').textContent = joined(n);
}

// ---- the student ----------------------------------------------------------------------------------------------
// S: the student's state: who they are (me), their box, whether they follow the teacher, the last event, the
// teacher's query last applied, their answers by question id, the question shown
async function follow(R, code) {
  R.$('.room-teach').hidden = true;
  R.$('.room-code').value = code;
  const saved = `ap-room-${code}`;
  let me = null;
  try {
    me = await post(`${encodeURIComponent(code)}/join`, { token: localStorage.getItem(saved) });
  } catch (err) {
    R.status(`${esc(err.message)}`, 'error');
    barInView(() => R.$('.room-code').focus({ preventScroll: true }));  // (focus alone scrolled to where it had been)
    return;
  }
  localStorage.setItem(saved, me.token);
  R.$('.room-join').hidden = true;
  const box = R.$('.room-student');
  box.hidden = false;
  box.innerHTML = `<span class="room-me">You are <b>${esc(me.display || me.name)}</b></span>
    <label class="room-name">name (optional) <input maxlength="24" autocomplete="off" value="${esc(me.display)}"></label>
    <button type="button" class="room-try">Try it yourself</button>
    <div class="room-ask" aria-live="polite"></div>`;
  // (their own answers come back from the server: a reload marks them again)
  const S = { me, box, following: true, last: null, applied: '', mine: { ...me.answers }, shownQ: '', closed: false,
    stream: null };
  studentClicks(R, S);
  ownEdits(R, S);
  mode(R, S);
  S.stream = listen(`${me.code}/events?token=${encodeURIComponent(me.token)}`, {}, (p) => {
    S.last = p;
    const qu = p.gone || p.closed ? null : p.question;
    hide.set('room', !qu ? null : qu.revealed ? qu.mark : qu.hide);
    if (p.gone || p.closed) { roomClosed(R, S); return; }
    if (S.following) apply(R, S, p);
    ask(S, p);
  }, (code, detail) => R.status(esc(detail), 'error'));
}
// the room closed (its stream says so, or an answer was refused for it: ``why``, the server's words): no more
// answers are offered
function roomClosed(R, S, why = '') {
  S.closed = true;
  S.stream?.stop();
  hide.set('room', null);
  R.status(`The teacher has closed room <b>${esc(S.me.code)}</b>. What you see now is yours to keep exploring.`, 'closed');
  S.box.querySelector('.room-try').hidden = true;
  if (S.last) ask(S, S.last);
  if (why) said(S, why);
}
function mode(R, S) {
  if (S.closed || (S.last && S.last.closed)) return;
  R.status(S.following ? `Following the teacher · room <b>${esc(S.me.code)}</b>`
    : `Trying it yourself · room <b>${esc(S.me.code)}</b>: your changes are yours alone`, S.following ? 'following' : 'trying');
  S.box.querySelector('.room-try').textContent = S.following ? 'Try it yourself' : 'Back to the teacher';
}
async function apply(R, S, p) {
  const st = p.state || {};
  const query = JSON.stringify(st.query || {});
  if (query !== S.applied) {
    while (!loaded()) await sleep(100);  // the page's own load first: its answer must not come after ours
    S.applied = query;
    R.trigger('click', { kind: 'follow', code: S.me.code });
  }
  showTab(st.tab);
  showStage(st.stage, st.t, st.part);
  showFill(st.fill);
  showExplain(R, st.explain || null);
}
function ask(S, p) {
  const qu = p.question;
  const key = qu ? JSON.stringify([qu.id, qu.closed, qu.revealed, qu.right, qu.moved, S.mine[qu.id], S.closed]) : '';
  if (key === S.shownQ) return;
  S.shownQ = key;
  const el = S.box.querySelector('.room-ask');
  if (!qu) { el.innerHTML = ''; return; }
  const my = S.mine[qu.id];
  let html = `<p class="ra-prompt">${esc(qu.prompt)}</p>${headNote(qu)}`;
  // (under the prompt, where it is read first)
  if (qu.moved && !qu.revealed) html += `<p class="ra-moved" role="status">${MOVED_OPEN}</p>`;
  const open = !qu.closed && !S.closed;
  if (open) {
    html += qu.kind === 'predict'
      ? `<form class="ra-form"><input class="ra-value" inputmode="decimal" maxlength="40" aria-label="your answer"
          value="${esc(my ?? '')}"><button type="submit">Send</button></form>`
      : `<div class="ra-options">${qu.options.map((o) => `<button type="button" class="ra-opt${o === my ? ' chosen' : ''}"
          data-v="${esc(o)}">${esc(o)}</button>`).join('')}</div>`;
  }
  if (my !== undefined) html += `<p class="ra-mine">Your answer: <b>${esc(my)}</b>${open ? ' <span class="ra-can">(you can change it until the teacher closes the question)</span>' : ''}</p>`;
  if (qu.revealed) {
    const ok = my !== undefined && right(qu, my);
    html += `<p class="ra-right">Right answer: <b>${esc(qu.right)}</b>${my === undefined ? '' : ok
      ? ' · <span class="ra-ok">yours is right ✓</span>' : ' · <span class="ra-no">yours is wrong ✗</span>'}</p>`;
    if (qu.moved) html += `<p class="ra-moved">${MOVED_REVEALED}</p>`;
  } else {
    if (S.closed) html += '<p class="ra-closed">The room is closed: no more answers.</p>';
    else if (qu.closed) html += '<p class="ra-closed">Answers are closed; wait for the reveal.</p>';
  }
  el.innerHTML = html;
  headNotes();
}
// the teacher changed the numbers after asking: the answer (and the grading) stays that of the numbers as asked
const MOVED_REVEALED = 'This is the right answer for the numbers as they were when the question was asked. The '
  + 'teacher has changed them since: the numbers on screen now are the new ones, and give another answer.';
// the same, said to a student while the question is open: the numbers shown now are not the ones it asks about
const MOVED_OPEN = 'The numbers have changed since this was asked: it is about them as they were.';
// the head a question is about, said while another head is shown (its row of another head is not the asked one)
const headNote = (qu) => (qu.head ? `<p class="room-head" data-head="${qu.head | 0}" hidden></p>` : '');
function headNotes() {
  if (!document.querySelector('#room .room-head')) return;
  watchHead();  // (from a question about a head on: no page out of a room watches its every change)
  const shown = hide.shownHead();
  document.querySelectorAll('#room .room-head').forEach((p) => {
    const h = Number(p.dataset.head);
    const other = shown !== null && shown + 1 !== h;
    if (p.hidden !== !other) p.hidden = !other;  // (set again, unchanged, it is still a change to every observer)
    const text = other ? `The question is about head ${h}; head ${shown + 1} is shown.` : '';
    if (p.textContent !== text) p.textContent = text;
  });
}
let watching = false;
function watchHead() {  // the head shown changes with the teacher's H (or the student's own): the notes follow it
  if (watching) return;
  watching = true;
  new MutationObserver(headNotes).observe(document.body, { subtree: true, childList: true, attributes: true,
    attributeFilter: ['data-head'] });
}
// graded by the server's rule, its tolerance sent with the revealed question (serving/rooms.py Question.correct):
// math.isclose's |a − r| ≤ max(rel·max(|a|, |r|), abs), so the page and the CSV never disagree
const right = (qu, a) => {
  if (qu.kind !== 'predict') return a === qu.right;
  const x = parseFloat(a), r = parseFloat(qu.right), tol = qu.tol || { rel: 0, abs: 0 };
  return Math.abs(x - r) <= Math.max(tol.rel * Math.max(Math.abs(x), Math.abs(r)), tol.abs);
};
async function send(R, S, value) {
  const qu = S.last && S.last.question;
  if (!qu || S.closed) return;
  try {
    await post(`${S.me.code}/answer`, { token: S.me.token, question: qu.id, answer: value });
    S.mine[qu.id] = value;
    S.shownQ = '';
    ask(S, S.last);
  } catch (err) {
    if (err.status === 410 && err.message.startsWith('room:')) { roomClosed(R, S, err.message); return; }
    said(S, err.message);
  }
}
// the server's refusal under the question, in place of the one before (they piled up, one per Send)
function said(S, text) {
  const el = S.box.querySelector('.room-ask');
  el.querySelectorAll('.ra-error').forEach((p) => p.remove());
  el.insertAdjacentHTML('beforeend', `<p class="ra-error" role="alert">${esc(text)}</p>`);
}
// a following student's own edit makes them try it: the teacher's next state would otherwise overwrite it unseen.
// Caught as it starts (a press on a cell or an option, a key typed into a box, a paste), before it leaves the page.
const EDITS = '#inputs, #toolbar, #more, #modern, #preset, #reload, #upload-btn';
const PRESSED = 'td, li, [role=option], [role=slider], #reload, #upload-btn, input[type=checkbox], input[type=range]';
const LOOKS = new Set(['Tab', 'Shift', 'Control', 'Alt', 'Meta', 'Escape', 'ArrowUp', 'ArrowDown', 'ArrowLeft',
  'ArrowRight', 'Home', 'End', 'PageUp', 'PageDown']);
function ownEdits(R, S) {
  const start = (e) => {
    const t = e.target;
    if (!S.following || !e.isTrusted || !t.closest?.(EDITS) || (t.closest('#share') && !t.closest('#upload-btn'))) return;
    if (e.type === 'pointerdown' && !t.closest(PRESSED)) return;
    if (e.type === 'keydown' && ((LOOKS.has(e.key) && !e.altKey) || !t.closest('input, textarea, td'))) return;
    S.following = false;  // (nothing else to undo: the teacher's stage and tab stay as they are)
    mode(R, S);
  };
  for (const type of ['pointerdown', 'keydown', 'input', 'paste']) document.addEventListener(type, start, true);
}
function studentClicks(R, S) {  // an answer sent, following or trying it, the student's name
  const q = (sel) => S.box.querySelector(sel);
  S.box.addEventListener('submit', (e) => { e.preventDefault(); send(R, S, q('.ra-value').value.trim()); });
  S.box.addEventListener('click', (e) => {
    const opt = e.target.closest('.ra-opt');
    if (opt) send(R, S, opt.dataset.v);
    if (e.target.closest('.room-try')) {
      S.following = !S.following;
      if (S.following && S.last) { S.applied = ''; apply(R, S, S.last); }
      if (!S.following) { showStage(null); showFill(null); }  // trying it: the whole workbench and labs, not the
      // teacher's present stage or fill convention
      mode(R, S);
    }
  });
  q('.room-name input').addEventListener('change', async (e) => {
    try {
      const got = await post(`${S.me.code}/join`, { token: S.me.token, name: e.target.value });
      q('.room-me b').textContent = got.display || got.name;
    } catch (err) { R.status(esc(err.message), 'error'); }
  });
}
