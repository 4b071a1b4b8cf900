// Lesson rooms (js_on_load of the room element, ui/room.py). It follows the stage through present mode's handle
// and the explained number through the picked cell (page.js).
//
// Teacher: "Teach this" fires the element's event {kind: 'open'}; its answer (the element's value) carries the code,
// the secret (kept in this closure, sent only as the X-Room-Secret header) and the join card. The teacher's
// tab and present-mode stage are posted to /room/CODE/view; edits publish themselves on the server (ui/room.py).
// Student (?room=CODE): joins (POST /room/CODE/join; its token kept in localStorage, so a reload is the same
// student), reads /room/CODE/events (Server-Sent Events, read with fetch) and, while following, fires
// {kind: 'follow'} when the teacher's state changed, then sets the tab and the stage.
import * as page from './page.js';

export function mount({ element, trigger, props, watch }) {
  const base = location.pathname.replace(/[^/]*$/, '');
  const url = (path) => `${base}room/${path}`;
  const params = new URLSearchParams(location.search);
  const asked = (params.get('room') || '').trim().toUpperCase();
  const esc = (t) => String(t ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const loaded = () => !!document.querySelector('#badge .html-container')?.textContent.trim();

  element.innerHTML = `<div class="room-bar">
    <button type="button" class="room-teach" title="open a room: your class follows this page live">Teach this</button>
    <form class="room-join"><label>Join a class <input class="room-code" maxlength="8" autocomplete="off"
      autocapitalize="characters" spellcheck="false" placeholder="CODE" aria-label="room code"></label>
      <button type="submit">Join</button></form>
    <div class="room-status" role="status" aria-live="polite"></div></div>
    <div class="room-teacher" hidden></div><div class="room-student" hidden></div>`;
  const $ = (sel) => element.querySelector(sel);
  const status = (html, kind = '') => { $('.room-status').innerHTML = html; $('.room-status').dataset.kind = kind; };

  // ---- reading a room's stream (SSE over fetch, so the teacher's secret goes in a header, not the URL) ----------
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
        } catch { /* a dropped connection: connect again */ }
        if (alive) await sleep(1000);
      }
    })();
    // a phone back from sleep may hold a dead connection that has not failed yet: connect again at once
    document.addEventListener('visibilitychange', () => { if (!document.hidden && ctl) ctl.abort(); });
    return { stop: () => { alive = false; if (ctl) ctl.abort(); } };
  }
  async function post(path, body, headers = {}) {
    const res = await fetch(url(path), {
      method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body || {}),
    });
    const out = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(out.detail || `error ${res.status}`);
    return out;
  }

  // ---- the tab and the stage shown, read and set --------------------------------------------------------------
  const tabButtons = () => Array.from(document.querySelectorAll('#tabs [role=tab]'));
  const tabNow = () => tabButtons().find((b) => b.getAttribute('aria-selected') === 'true')?.textContent.trim()
    || 'Workbench';
  const stageNow = () => document.body.dataset.presentStage || null;
  const tNow = () => Number(document.body.dataset.presentT) || null;  // the KV-cache stage's token (present.js)
  // the overview's number whose explain card is open (watch.js records the pick), or null
  const explainNow = () => {
    const card = document.getElementById('explain');
    const p = page.picked();
    if (!card || card.classList.contains('closed') || !p || p.view !== 'overview') return null;
    return { name: String(p.name), r: p.r | 0, c: p.c | 0 };
  };
  let explained = '';
  function showExplain(ex) {
    const card = document.getElementById('explain');
    if (!ex) {
      if (explained) card?.classList.add('closed');
      explained = '';
      return;
    }
    const key = JSON.stringify(ex);
    if (key === explained && !card?.classList.contains('closed')) return;
    const td = document.querySelector(`#overview table[data-name="${CSS.escape(ex.name)}"] td[data-r="${ex.r | 0}"][data-c="${ex.c | 0}"]`);
    if (td) { td.click(); explained = key; }
  }
  function showTab(name) {
    if (!name || tabNow() === name) return;
    tabButtons().find((b) => b.textContent.trim() === name)?.click();
  }
  function showStage(key, t) {
    const pres = page.present();
    if (!pres) return;
    if (key) pres.goto(key, t);
    else if (pres.stage()) pres.stop();
  }

  // ---- the teacher -----------------------------------------------------------------------------------------
  let teacher = null;  // {code, secret, join, qr}
  let opening = false;
  $('.room-teach').addEventListener('click', () => {
    if (teacher) { card(true); return; }
    opening = true;
    status('Opening a room…');
    trigger('click', { kind: 'open' });
  });
  watch('value', () => {
    let v = null;
    try { v = JSON.parse(props.value || 'null'); } catch { return; }
    if (!v) return;
    if (v.error) { status(esc(v.error), 'error'); opening = false; return; }
    if (v.role === 'teacher' && opening && !teacher) { opening = false; teach(v); }
    if (v.resumed && teacher) status(`Teaching room <b class="room-code-now">${esc(teacher.code)}</b>`);
  });
  // the teacher's page reloaded: it takes its room back (the secret kept for this tab only, sessionStorage)
  const kept = !asked && JSON.parse(sessionStorage.getItem('ap-teaching') || 'null');
  if (kept) {
    (async () => {
      while (!loaded()) await sleep(100);
      trigger('click', { kind: 'resume', code: kept.code, secret: kept.secret });
      teach(kept, false);
      // "Teaching room CODE" once the room's state is on this page (the resume's answer), not before
      status(`Taking room <b>${esc(kept.code)}</b> back…`, 'resuming');
    })();
  }

  function teach(room, fresh = true) {
    teacher = room;
    sessionStorage.setItem('ap-teaching', JSON.stringify(room));
    const hdr = { 'X-Room-Secret': room.secret };
    const box = $('.room-teacher');
    box.hidden = false;
    $('.room-join').hidden = true;
    $('.room-teach').textContent = 'Show the join card';
    status(`Teaching room <b class="room-code-now">${esc(room.code)}</b>`);
    box.innerHTML = `<span class="room-count" aria-live="polite">0 students joined</span>
      <span class="room-cap" role="alert"></span>
      <button type="button" data-ask="predict">Ask: predict this number</button>
      <button type="button" data-ask="token">Ask: which key gets most weight</button>
      <button type="button" data-ask="quiz">Ask: a quiz question</button>
      <button type="button" class="room-end" hidden>Close answers</button>
      <button type="button" class="room-reveal" hidden>Reveal</button>
      <button type="button" class="room-csv">Download results (CSV)</button>
      <button type="button" class="room-close">Close the room</button>
      <div class="room-q" aria-live="polite"></div>`;
    const q = (sel) => box.querySelector(sel);
    let lastQ = null;
    let asking = null;
    let quizzes = 0;
    const view = () => post(`${room.code}/view`, { tab: tabNow(), stage: stageNow(), t: tNow(), explain: explainNow() },
      hdr)
      .catch(() => {});
    let queued = false;
    const later = () => { if (!queued) { queued = true; setTimeout(() => { queued = false; view(); }, 30); } };
    new MutationObserver(later).observe(document.body, { attributes: true, attributeFilter: ['data-present-stage', 'data-present-t'] });
    const exCard = document.getElementById('explain');  // opened (a new explanation arrives), or closed
    if (exCard) new MutationObserver(later).observe(exCard, { attributes: true, attributeFilter: ['class'], childList: true });
    new MutationObserver(later).observe(document.getElementById('tabs') || document.body,
      { attributes: true, subtree: true, attributeFilter: ['aria-selected'] });
    const stream = listen(`${room.code}/events`, hdr, (p) => {
      q('.room-count').textContent = `${p.students} student${p.students === 1 ? '' : 's'} joined`;
      cardCount(p.students);
      q('.room-cap').textContent = p.refused ? `${p.refused} join${p.refused === 1 ? '' : 's'} refused: the room is full` : '';
      const qu = p.question;
      q('.room-end').hidden = !qu || qu.closed;
      q('.room-reveal').hidden = !qu || qu.revealed;
      q('.room-q').innerHTML = qu ? `<b>${esc(qu.prompt)}</b> · <span class="room-answers">${qu.count} answer${qu.count === 1 ? '' : 's'}</span>`
        + (qu.revealed ? ` · right answer: <b class="room-right">${esc(qu.right)}</b>` : ' · right answer hidden until Reveal') : '';
      const key = qu ? `${qu.id}:${qu.count}:${(qu.answers || []).join('|')}` : null;
      if (key && key !== lastQ) trigger('select', { code: room.code });  // its own event: answers the chart only
      lastQ = key;
    }, (code, detail) => {
      status(esc(detail), 'error');
      if (code === 403 || code === 404 || code === 410) sessionStorage.removeItem('ap-teaching');
    });
    box.addEventListener('click', async (e) => {
      const b = e.target.closest('button');
      if (!b) return;
      try {
        if (b.dataset.ask === 'quiz') {  // the quiz's generator draws it: no cell to pick
          await post(`${room.code}/ask`, { kind: 'quiz', index: quizzes++ }, hdr);
        } else if (b.dataset.ask) {
          asking = b.dataset.ask;
          status(asking === 'predict' ? 'Click the number to ask about, in the overview (scores, scaled, masked, weights or output)'
            : 'Click any number of a query\'s row in the overview\'s weights', 'pick');
        } else if (b.classList.contains('room-end')) await post(`${room.code}/end`, { reveal: false }, hdr);
        else if (b.classList.contains('room-reveal')) await post(`${room.code}/end`, { reveal: true }, hdr);
        else if (b.classList.contains('room-csv')) await download(room, hdr);
        else if (b.classList.contains('room-close')) {
          await post(`${room.code}/close`, {}, hdr);
          sessionStorage.removeItem('ap-teaching');
          stream.stop();
          box.hidden = true;
          status(`Room ${esc(room.code)} is closed.`, 'closed');
          card(false);
        }
      } catch (err) { status(esc(err.message), 'error'); }
    });
    document.addEventListener('click', async (e) => {  // the cell a question is about
      if (!asking) return;
      const td = e.target.closest && e.target.closest('#overview table[data-name] td[data-r][data-c]');
      if (!td) return;
      const kind = asking;
      asking = null;
      const body = { kind, name: td.closest('table').dataset.name, row: +td.dataset.r, col: +td.dataset.c };
      try {
        await post(`${room.code}/ask`, body, hdr);
        status(`Teaching room <b class="room-code-now">${esc(room.code)}</b>`);
      } catch (err) { status(esc(err.message), 'error'); }
    }, true);
    if (fresh) card(true);
    view();
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
  let cardEl = null;
  function card(show) {
    if (!cardEl && teacher) {
      cardEl = document.createElement('section');
      cardEl.className = 'room-card';
      cardEl.setAttribute('aria-label', 'join card');
      cardEl.innerHTML = `<div class="rc-qr">${teacher.qr}</div><div class="rc-text"><p>Join at</p>
        <p class="rc-url">${esc(teacher.join.replace(/\?room=.*/, ''))}</p><p>with the code</p>
        <p class="rc-code">${esc(teacher.code)}</p><p class="rc-count">0 students joined</p>
        <button type="button" class="rc-hide">Start the lesson</button></div>`;
      cardEl.querySelector('.rc-hide').addEventListener('click', () => card(false));
      document.body.appendChild(cardEl);
    }
    if (cardEl) cardEl.hidden = !show;
  }
  function cardCount(n) {
    if (cardEl) cardEl.querySelector('.rc-count').textContent = `${n} student${n === 1 ? '' : 's'} joined`;
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
  if (asked) follow(asked);

  async function follow(code) {
    $('.room-teach').hidden = true;
    $('.room-code').value = code;
    const saved = `ap-room-${code}`;
    let me = null;
    try {
      me = await post(`${encodeURIComponent(code)}/join`, { token: localStorage.getItem(saved) });
    } catch (err) {
      status(`${esc(err.message)}`, 'error');
      $('.room-code').focus();
      return;
    }
    localStorage.setItem(saved, me.token);
    $('.room-join').hidden = true;
    const box = $('.room-student');
    box.hidden = false;
    box.innerHTML = `<span class="room-me">You are <b>${esc(me.display || me.name)}</b></span>
      <label class="room-name">name (optional) <input maxlength="24" autocomplete="off" value="${esc(me.display)}"></label>
      <button type="button" class="room-try">Try it yourself</button>
      <div class="room-ask" aria-live="polite"></div>`;
    const q = (sel) => box.querySelector(sel);
    let following = true;
    let last = null;
    let applied = '';
    let mine = {};  // question id -> my answer
    let shownQ = '';
    const mode = () => {
      if (last && last.closed) return;
      status(following ? `Following the teacher · room <b>${esc(me.code)}</b>`
        : `Trying it yourself · room <b>${esc(me.code)}</b>: your changes are yours alone`, following ? 'following' : 'trying');
      q('.room-try').textContent = following ? 'Try it yourself' : 'Back to the teacher';
    };
    async function apply(p) {
      const st = p.state || {};
      const query = JSON.stringify(st.query || {});
      if (query !== applied) {
        while (!loaded()) await sleep(100);  // the page's own load first: its answer must not come after ours
        applied = query;
        trigger('click', { kind: 'follow', code: me.code });
      }
      showTab(st.tab);
      showStage(st.stage, st.t);
      showExplain(st.explain || null);
    }
    function ask(p) {
      const qu = p.question;
      const key = qu ? JSON.stringify([qu.id, qu.closed, qu.revealed, qu.right, mine[qu.id]]) : '';
      if (key === shownQ) return;
      shownQ = key;
      const el = q('.room-ask');
      if (!qu) { el.innerHTML = ''; return; }
      const my = mine[qu.id];
      let html = `<p class="ra-prompt">${esc(qu.prompt)}</p>`;
      if (!qu.closed) {
        html += qu.kind === 'predict'
          ? `<form class="ra-form"><input class="ra-value" inputmode="decimal" maxlength="40" aria-label="your answer"
              value="${esc(my ?? '')}"><button type="submit">Send</button></form>`
          : `<div class="ra-options">${qu.options.map((o) => `<button type="button" class="ra-opt${o === my ? ' chosen' : ''}"
              data-v="${esc(o)}">${esc(o)}</button>`).join('')}</div>`;
      }
      if (my !== undefined) html += `<p class="ra-mine">Your answer: <b>${esc(my)}</b>${qu.closed ? '' : ' (you can change it until the teacher closes the question)'}</p>`;
      if (qu.revealed) {
        const ok = my !== undefined && right(qu, my);
        html += `<p class="ra-right">Right answer: <b>${esc(qu.right)}</b>${my === undefined ? '' : ok
          ? ' · <span class="ra-ok">yours is right ✓</span>' : ' · <span class="ra-no">yours is wrong ✗</span>'}</p>`;
      } else if (qu.closed) html += '<p class="ra-closed">Answers are closed; wait for the reveal.</p>';
      el.innerHTML = html;
    }
    const right = (qu, a) => {
      if (qu.kind !== 'predict') return a === qu.right;
      const x = parseFloat(a), r = parseFloat(qu.right);  // as the server grades: within 1% or 0.01
      return Math.abs(x - r) <= Math.max(0.01, 0.01 * Math.abs(r));
    };
    async function send(value) {
      const qu = last && last.question;
      if (!qu) return;
      try {
        await post(`${me.code}/answer`, { token: me.token, question: qu.id, answer: value });
        mine[qu.id] = value;
        shownQ = '';
        ask(last);
      } catch (err) { q('.room-ask').insertAdjacentHTML('beforeend', `<p class="ra-error" role="alert">${esc(err.message)}</p>`); }
    }
    box.addEventListener('submit', (e) => { e.preventDefault(); send(q('.ra-value').value.trim()); });
    box.addEventListener('click', (e) => {
      const opt = e.target.closest('.ra-opt');
      if (opt) send(opt.dataset.v);
      if (e.target.closest('.room-try')) {
        following = !following;
        if (following && last) { applied = ''; apply(last); }
        if (!following) showStage(null);  // trying it: the whole workbench to edit, not the teacher's present stage
        mode();
      }
    });
    q('.room-name input').addEventListener('change', async (e) => {
      try {
        const got = await post(`${me.code}/join`, { token: me.token, name: e.target.value });
        q('.room-me b').textContent = got.display || got.name;
      } catch (err) { status(esc(err.message), 'error'); }
    });
    mode();
    const stream = listen(`${me.code}/events?token=${encodeURIComponent(me.token)}`, {}, (p) => {
      last = p;
      if (p.gone || p.closed) {
        stream.stop();
        status(`The teacher has closed room <b>${esc(me.code)}</b>. What you see now is yours to keep exploring.`, 'closed');
        q('.room-try').hidden = true;
        return;
      }
      if (following) apply(p);
      ask(p);
    }, (code, detail) => status(esc(detail), 'error'));
  }
}
