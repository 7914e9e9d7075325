// loupe dashboard. No framework and no build step: state comes from
// /api/state, is read again whenever /api/events pushes news, and every
// change is an operation posted to /api/op. Page strings are only ever
// set as text, never as markup.
'use strict';

const $ = (id) => document.getElementById(id);
const el = (tag, props = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') e.className = v;
    else if (k === 'on') for (const [ev, fn] of Object.entries(v)) e.addEventListener(ev, fn);
    else if (k.startsWith('aria-') || k.startsWith('data-')) e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const kid of kids) if (kid != null) e.append(kid);
  return e;
};

let state = null;          // the last /api/state
let selected = null;       // {session, id} of the tab looked at
let answered = [];         // approvals answered while the page was open
let live = null;           // the EventSource of the live view
let frameMeta = null;      // the last frame's viewport size
let again = false;

async function api(op, session, input, surface) {
  const r = await fetch('/api/op', {
    method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({op, session, surface_id: surface, input}),
  });
  const rep = await r.json().catch(() => ({error: {message: 'HTTP ' + r.status}}));
  if (rep.error) throw rep.error;
  return rep.result;
}

function showError(e) {
  const p = $('op-error');
  if (!e) { p.hidden = true; return; }
  p.textContent = (e.code ? e.code + ': ' : '') + (e.message || String(e)) + (e.hint ? ' (' + e.hint + ')' : '');
  p.hidden = false;
}

// act runs an operation and shows the state after it.
async function act(op, session, input, surface) {
  let out = null;
  try {
    showError(null);
    out = await api(op, session, input, surface);
  } catch (e) {
    showError(e);
  }
  await refresh();
  return out;
}

// refresh reads the state again; news during a read asks for one more.
// It resolves once a read that began after the call has been shown.
let reading = null;
function refresh() {
  again = true;
  if (!reading) {
    reading = (async () => {
      try {
        while (again) {
          again = false;
          const r = await fetch('/api/state');
          if (!r.ok) { $('conn').textContent = 'signed out: open the address loupe dashboard printed'; return; }
          state = await r.json();
          render();
        }
      } finally {
        reading = null;
      }
    })();
  }
  return reading;
}

function tabOf(sel) {
  if (!state || !sel) return null;
  const s = state.sessions.find((x) => x.name === sel.session);
  return s && s.tab_list.find((t) => t.id === sel.id);
}

// Each part of the page is built again only when what it shows changed:
// an element a person (or a program) is about to click stays the same
// element while nothing about it changes.
const shown = {};
function changed(part, ...what) {
  const j = JSON.stringify(what);
  if (shown[part] === j) return false;
  shown[part] = j;
  return true;
}

function render() {
  const sel = selected && {session: selected.session, id: selected.id};
  if (changed('approvals', state.approvals, answered)) renderApprovals();
  if (changed('tabs', state.sessions.map((s) => [s.name, s.browser, s.attached, s.tab_list]), sel)) renderTabs();
  renderView(); // a few text fields and classes; it keeps its elements
  if (changed('ops', state.operations)) renderOps();
  if (changed('downloads', state.sessions.map((s) => s.downloads))) renderDownloads();
  if (changed('settings', state.settings, state.sessions.map((s) => s.name))) renderSettings();
}

// visible escapes what would reorder or break a line of text when shown:
// C0 and C1 controls, bidi overrides and isolates, line and paragraph
// separators (as the CLI's output does).
function visible(s) {
  return String(s).replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g,
    (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

function renderApprovals() {
  const list = $('approval-list');
  list.replaceChildren(...state.approvals.map((a) => el('li', {},
    el('b', {textContent: a.op + (a.target ? ' ' + a.target : '')}),
    el('span', {textContent: ' (' + a.action + ')'}),
    el('div', {class: 'quiet', textContent: 'by ' + visible(a.client || '–') + ' · task ' + (a.task || '–') + ' · session ' + a.session +
      (a.surface_id ? ' · ' + a.surface_id : '') + (a.origin ? ' · ' + visible(a.origin) : '')}),
    a.element || a.locator ? el('div', {textContent: 'element ' + visible([a.element, a.locator].filter(Boolean).join(', '))}) : null,
    a.input ? el('div', {textContent: 'sends ' + visible(JSON.stringify(a.input))}) : null,
    el('div', {class: 'quiet', textContent: 'digest ' + a.digest + ' · ' + a.approval_id}),
    el('img', {src: '/api/approval/' + encodeURIComponent(a.approval_id), alt: 'What ' + a.approval_id + ' acts on'}),
    el('button', {class: 'primary', type: 'button', textContent: 'Approve', 'aria-label': 'Approve ' + a.approval_id,
      on: {click: () => answer(a, true)}}),
    ' ',
    el('button', {class: 'danger', type: 'button', textContent: 'Deny', 'aria-label': 'Deny ' + a.approval_id,
      on: {click: () => answer(a, false)}}),
  )));
  $('approvals-none').hidden = state.approvals.length > 0;
  $('answered-list').replaceChildren(...answered.slice(-8).reverse().map((a) =>
    el('li', {textContent: a.approval_id + ' ' + a.op + ': ' + a.state})));
}

async function answer(a, approve) {
  const out = await act(approve ? 'approve' : 'deny', a.session, {approval_id: a.approval_id});
  if (out) noteAnswer({approval_id: a.approval_id, op: a.op, state: approve ? 'approved' : 'denied'});
}

function noteAnswer(a) {
  if (answered.some((x) => x.approval_id === a.approval_id)) return;
  answered.push(a);
  if (state) render();
}

function marks(t) {
  const m = [];
  if (t.mode === 'human') m.push(['human', 'human']);
  if (t.crashed) m.push(['crashed', 'crashed']);
  if (t.restored) m.push(['', 'restored']);
  if (t.navigating) m.push(['', 'loading']);
  if (t.partition && t.partition !== 'persist') m.push(['', t.partition]);
  return m.map(([c, txt]) => el('span', {class: 'mark ' + c, textContent: txt}));
}

function renderTabs() {
  $('sessions-none').hidden = state.sessions.length > 0;
  $('session-list').replaceChildren(...state.sessions.map((s) => {
    const byTask = new Map();
    for (const t of s.tab_list) {
      const k = t.owner || '';
      if (!byTask.has(k)) byTask.set(k, []);
      byTask.get(k).push(t);
    }
    const groups = [...byTask.entries()].map(([task, tabs]) => el('div', {},
      el('h4', {textContent: task ? 'task ' + task : 'shared'}),
      ...tabs.map((t) => el('button', {
        class: 'tabbtn', type: 'button', title: t.url,
        'aria-current': String(!!selected && selected.session === s.name && selected.id === t.id),
        'aria-label': 'Watch ' + t.id + ' of ' + s.name + ': ' + (t.title || t.url),
        on: {click: () => select(s.name, t.id)},
      }, el('b', {textContent: t.id + ' '}), t.title || t.url || 'about:blank', ...marks(t)))));
    return el('div', {},
      el('h3', {textContent: 'session ' + s.name + ' · ' + s.browser + (s.attached ? ' (attached)' : '')}),
      ...groups,
      el('button', {type: 'button', textContent: '+ New tab', 'aria-label': 'New tab in ' + s.name,
        on: {click: async () => {
          const out = await act('tab new', s.name, {});
          if (out) select(s.name, out.id);
        }}}));
  }));
}

function select(session, id) {
  if (selected && selected.session === session && selected.id === id) return;
  selected = {session, id};
  // A new tab is selected when its creation answers, which may be after
  // the person has begun typing its address: what they typed stays.
  if (document.activeElement !== $('address')) $('address').value = '';
  startLive();
  render();
  loadProblems();
}

// Zoom of the live view: fit to the panel, or the picture's own pixels
// at 100% or 150% (the panel scrolls). Clicks map through the picture's
// drawn box, whatever its size.
function applyZoom() {
  const img = $('frame');
  const z = $('zoom').value;
  img.style.width = z === 'fit' || !img.naturalWidth ? '100%' : Math.round(img.naturalWidth * Number(z)) + 'px';
  img.style.maxWidth = z === 'fit' ? '100%' : 'none';
}

// diagnosticsText is the diagnostics report as the CLI prints it.
function diagnosticsText(d) {
  const lines = ['diagnostics of ' + d.surface_id + ' ' + d.url];
  if (d.timing) lines.push('timing: first byte ' + Math.round(d.timing.ttfb_ms) + ' ms, DOMContentLoaded ' + Math.round(d.timing.dom_content_loaded_ms) + ' ms, load ' + Math.round(d.timing.load_ms) + ' ms');
  lines.push('long tasks: ' + d.long_tasks.count + ' (' + Math.round(d.long_tasks.total_ms) + ' ms in all)');
  lines.push('errors and warnings: ' + d.problem_count);
  for (const r of d.problems || []) lines.push('  ' + r.level + ': ' + r.text);
  lines.push('failed requests: ' + d.failed_count);
  for (const r of d.failed || []) lines.push('  ' + r.method + ' ' + r.url + ': ' + (r.failed || 'HTTP ' + r.status));
  lines.push('slow requests: ' + d.slow_count);
  for (const r of d.slow || []) lines.push('  ' + r.method + ' ' + r.url + ': ' + Math.round(r.duration_ms) + ' ms');
  return lines.map(visible).join('\n');
}

// Recording: the button starts a recording of the tab looked at and
// stops it; while it runs, a timer counts up beside it. The recording
// itself is the daemon's (it ends at its limit or with its tab, also
// when this page is closed).
let recording = null; // {session, id, started, timer}
async function toggleRecording() {
  if (recording) {
    const r = recording;
    clearInterval(r.timer);
    recording = null;
    $('record').textContent = 'Record';
    const out = await act('record', r.session, {action: 'stop', surface_id: r.id});
    if (out) $('record-status').textContent = recordText(out);
    return;
  }
  if (!selected) return;
  const sel = selected;
  const out = await act('record', sel.session, {action: 'start', surface_id: sel.id});
  if (!out) return;
  recording = {session: sel.session, id: sel.id, started: Date.now()};
  $('record').textContent = 'Stop recording';
  const tick = async () => {
    const r = recording;
    if (!r) return;
    $('record-status').textContent = 'Recording ' + r.id + ': ' + ((Date.now() - r.started) / 1000).toFixed(0) + ' s';
    if ((Date.now() - r.started) % 5000 < 1000) {
      // Ended by itself (its limit, its tab)? Ask now and then.
      try {
        const st = await api('record', r.session, {action: 'status', surface_id: r.id});
        if (!st.running && recording === r) {
          clearInterval(r.timer);
          recording = null;
          $('record').textContent = 'Record';
          $('record-status').textContent = recordText(st);
        }
      } catch (e) { /* the next tick asks again */ }
    }
  };
  recording.timer = setInterval(tick, 1000);
  tick();
}

function recordText(r) {
  if (!r.ended) return 'No recording of ' + r.surface_id;
  return 'Recording of ' + r.surface_id + ' ended (' + r.ended + ') after ' + (r.duration_s || 0).toFixed(1) + ' s' +
    (r.kept ? ': ' + r.path : ', not kept: ' + r.why);
}

function renderView() {
  const t = tabOf(selected);
  const screen = $('screen');
  if (!t) {
    if (selected) { selected = null; stopLive(); }
    $('tab-status').textContent = '';
    $('tab-status').title = '';
    $('screen-empty').hidden = false;
    $('frame').removeAttribute('src');
    $('load-error').hidden = true;
    $('control').textContent = 'Take over';
    screen.classList.remove('human');
    return;
  }
  $('screen-empty').hidden = true;
  const human = t.mode === 'human';
  const status = [t.id, t.title || '(no title)', t.url, t.navigating ? 'loading' : 'loaded',
    'task ' + (t.owner || 'shared'), 'mode ' + (human ? 'human' : 'agent'), 'epoch ' + (t.epoch || 0)].join(' · ');
  $('tab-status').textContent = status;
  $('tab-status').title = status;
  if (document.activeElement !== $('address')) $('address').value = t.url;
  const ctl = $('control');
  ctl.textContent = human ? 'Resume' : 'Take over';
  ctl.setAttribute('aria-label', (human ? 'Resume ' : 'Take over ') + t.id);
  ctl.classList.toggle('human', human);
  screen.classList.toggle('human', human);
  screen.setAttribute('aria-label', 'Live view of ' + t.id + (human ? ' (yours: clicks and keys go to the page)' : ''));
  $('screen-hint').hidden = human;
  const failed = t.url.startsWith('chrome-error:');
  $('load-error').hidden = !failed;
  if (failed) $('load-error-text').textContent = 'This page did not load.';
}

function renderOps() {
  const byTask = new Map();
  for (const o of state.operations) {
    const k = o.task || '–';
    if (!byTask.has(k)) byTask.set(k, []);
    byTask.get(k).push(o);
  }
  $('op-list').replaceChildren(...[...byTask.entries()].map(([task, list]) => el('div', {},
    el('h4', {textContent: 'task ' + task}),
    el('ul', {class: 'lines'}, ...list.slice(0, 20).map((o) => {
      const unknown = o.state === 'unknown', acked = !!o.acknowledged;
      return el('li', {class: 'op ' + (unknown ? (acked ? 'unknown acknowledged' : 'unknown') : '')},
        el('b', {textContent: o.op}), ' ', el('span', {textContent: o.state + (o.code ? ' ' + o.code : '')}),
        unknown ? el('span', {class: 'mark unknown', textContent: acked ? 'unknown, seen' : 'unknown: check the page'}) : null,
        el('div', {class: 'quiet', textContent: o.operation_id + ' · ' + o.session + (o.surface_id ? ' · ' + o.surface_id : '') +
          (o.reason ? ' · ' + o.reason : '')}),
        unknown && !acked ? el('button', {type: 'button', textContent: 'Acknowledge', 'aria-label': 'Acknowledge ' + o.operation_id,
          on: {click: () => act('ops ack', o.session, {operation_id: o.operation_id})}}) : null);
    })))));
}

function renderDownloads() {
  const items = [];
  for (const s of state.sessions) {
    for (const d of s.downloads) {
      const pct = d.total ? ' (' + Math.floor(d.bytes * 100 / d.total) + '%)' : '';
      items.push(el('li', {textContent: d.filename + ' · ' + d.state + ' · ' + d.bytes + (d.total ? ' of ' + d.total : '') + ' bytes' + pct}));
    }
  }
  $('download-list').replaceChildren(...(items.length ? items : [el('li', {class: 'quiet', textContent: 'No downloads.'})]));
}

async function loadProblems() {
  const list = $('problem-list');
  if (!selected) { list.replaceChildren(); return; }
  const sel = selected;
  try {
    const [con, net] = await Promise.all([
      api('console', sel.session, {surface_id: sel.id}),
      api('network', sel.session, {surface_id: sel.id}),
    ]);
    if (selected !== sel) return;
    const items = [
      ...con.records.filter((r) => r.level === 'error').map((r) => el('li', {textContent: 'console: ' + r.text})),
      ...net.records.filter((r) => r.state === 'failed' || r.status >= 400).map((r) =>
        el('li', {textContent: r.method + ' ' + (r.status || r.failed) + ' ' + r.url})),
    ];
    list.replaceChildren(...(items.length ? items.slice(-30) : [el('li', {class: 'quiet', textContent: 'None.'})]));
  } catch (e) {
    list.replaceChildren(el('li', {class: 'quiet', textContent: e.message || String(e)}));
  }
}

function renderSettings() {
  const st = state.settings;
  if (!st) return;
  $('settings-file').textContent = 'Kept in ' + st.file;
  for (const k of ['controlEnabled', 'ignoreCertificateErrors']) {
    $(k + '-v').textContent = st[k] ? 'on' : 'off';
    $(k + '-t').textContent = (st[k] ? 'Turn off ' : 'Turn on ') + (k === 'controlEnabled' ? 'browser control' : 'ignoring certificate errors');
  }
  const sel = $('settings-session');
  const names = state.sessions.map((s) => s.name);
  if (!names.includes('default')) names.unshift('default');
  const cur = sel.value;
  sel.replaceChildren(...names.map((n) => el('option', {value: n, textContent: n})));
  if (names.includes(cur)) sel.value = cur;
}

// The live view: frames pushed while the tab is looked at.
function stopLive() {
  if (live) { live.close(); live = null; }
  frameMeta = null;
  $('frame').removeAttribute('src');
}

function startLive() {
  stopLive();
  if (!selected) return;
  const q = new URLSearchParams({session: selected.session, surface_id: selected.id});
  live = new EventSource('/api/live?' + q);
  live.addEventListener('frame', (ev) => {
    const f = JSON.parse(ev.data);
    frameMeta = f;
    $('frame').src = 'data:image/jpeg;base64,' + f.jpeg;
    window.__loupeLastFrame = {seq: f.seq, at: Date.now()};
  });
  live.addEventListener('end', () => stopLive());
}

// A person's input on the picture goes to the page at the same point,
// in order, while the tab is theirs.
let inputChain = Promise.resolve();
function send(input) {
  const t = tabOf(selected);
  if (!t || t.mode !== 'human') return;
  const sel = selected;
  inputChain = inputChain.then(() => api('human-input', sel.session, Object.assign({surface_id: sel.id}, input)).catch(showError));
}

function point(ev) {
  const img = $('frame');
  const r = img.getBoundingClientRect();
  const w = frameMeta ? frameMeta.device_width : img.naturalWidth;
  const h = frameMeta ? frameMeta.device_height : img.naturalHeight;
  const x = Math.max(0, (ev.clientX - r.left) / r.width * w);
  const y = Math.max(0, (ev.clientY - r.top) / r.height * h);
  return {x: Math.round(x * 10) / 10, y: Math.round(y * 10) / 10};
}

function chordOf(ev) {
  const mods = [];
  if (ev.ctrlKey) mods.push('Control');
  if (ev.altKey) mods.push('Alt');
  if (ev.metaKey) mods.push('Meta');
  if (ev.shiftKey && ev.key.length > 1) mods.push('Shift');
  return mods.concat([ev.key === ' ' ? 'Space' : ev.key]).join('+');
}

// Pick mode: the next click on the picture names the element drawn
// there — its snapshot line, ref and stable locator — instead of going to
// the page; the text is shown and copied for the person to paste.
let picking = false;
function setPicking(on) {
  picking = on;
  $('pick').setAttribute('aria-pressed', String(on));
  $('screen').classList.toggle('picking', on);
}

async function pickAt(p) {
  setPicking(false);
  if (!selected) return;
  const sel = selected;
  try {
    showError(null);
    const out = await api('pick', sel.session, p, sel.id);
    const text = out.line + (out.locator ? '\nlocator: ' + out.locator : '');
    $('picked').hidden = false;
    $('picked-text').textContent = text;
    if (navigator.clipboard) navigator.clipboard.writeText(text).catch(() => {});
  } catch (e) {
    showError(e);
  }
}

// Network: capture the tab's traffic and save it as a HAR file in the
// session's files; list the tab's routes (set by an agent or the CLI) and
// clear them.
function routesText(o) {
  if (!o.routes.length) return 'No routes in ' + o.surface_id;
  return o.routes.map((r) => r.pattern + ' ' + r.action + (r.status ? ' ' + r.status : '') + ', ' + r.hits + ' hits').join('\n');
}

async function netRun(f) {
  if (!selected) return;
  const sel = selected;
  try {
    showError(null);
    $('net-text').textContent = await f(sel);
    $('net').hidden = false;
  } catch (e) {
    showError(e);
  }
}

function wireNetwork() {
  $('capture').addEventListener('click', () => netRun(async (sel) => {
    const o = await api('network start', sel.session, {surface_id: sel.id});
    return 'Capturing the traffic of ' + o.surface_id + ': load what you want, then Save HAR.';
  }));
  $('save-har').addEventListener('click', () => netRun(async (sel) => {
    const name = 'traffic-' + sel.id + '-' + new Date().toISOString().replace(/[:.]/g, '-') + '.har';
    const o = await api('network', sel.session, {surface_id: sel.id, har: name});
    return 'HAR of ' + o.har.surface_id + ' (' + o.har.entries + ' requests): ' + o.har.path;
  }));
  $('show-routes').addEventListener('click', () => netRun(async (sel) => routesText(await api('routes', sel.session, {}, sel.id))));
  // Storage state: the tab's partition's cookies and storage as a
  // Playwright storage-state file in the session's files (state save).
  $('save-state').addEventListener('click', () => netRun(async (sel) => {
    const name = 'state-' + sel.id + '-' + new Date().toISOString().replace(/[:.]/g, '-') + '.json';
    const o = await api('state save', sel.session, {path: name}, sel.id);
    return 'Saved ' + o.cookies + ' cookies and the storage of ' + o.origins + ' origins of partition ' + o.partition + ': ' + o.path;
  }));
  // A file chooser the tab's page opened (a click on an upload button)
  // is answered with files the person picks here: read in this page and
  // sent with the upload (upload --chooser; at most the request's 1 MiB).
  $('chooser-files').addEventListener('change', () => netRun(async (sel) => {
    const input = $('chooser-files');
    const contents = [];
    for (const f of input.files) {
      const bytes = new Uint8Array(await f.arrayBuffer());
      let bin = '';
      for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
      contents.push({name: f.name, data: btoa(bin)});
    }
    input.value = '';
    await api('upload', sel.session, {chooser: true, contents}, sel.id);
    return 'Answered the file chooser of ' + sel.id + ' with ' + contents.map((c) => c.name).join(', ');
  }));
  $('clear-routes').addEventListener('click', () => netRun(async (sel) => {
    const o = await api('route clear', sel.session, {}, sel.id);
    await refresh();
    return routesText(o);
  }));
}

// Remote hosts: the broker's registered hosts, their generations and
// when each last called; their sessions' tabs are listed under their
// tasks (remote:HOST#GEN/SESSION) with the other tabs.
function hostsText(o) {
  if (!o.hosts.length) return 'No remote hosts (loupe broker register --host NAME)';
  return o.hosts.map((h) => h.host + ' generation ' + h.generation +
    (h.revoked ? ', revoked' : '') + (h.last_used ? ', last used ' + h.last_used : ', never used')).join('\n');
}

function wire() {
  const screen = $('screen'), img = $('frame');
  wireNetwork();
  $('show-hosts').addEventListener('click', async () => {
    try {
      showError(null);
      $('hosts-text').textContent = hostsText(await api('broker hosts', 'default', {}));
    } catch (e) {
      showError(e);
    }
  });
  img.addEventListener('click', (ev) => {
    screen.focus();
    if (picking) { pickAt(point(ev)); return; }
    send(Object.assign({kind: 'click', clicks: Math.min(ev.detail || 1, 2)}, point(ev)));
  });
  $('pick').addEventListener('click', () => setPicking(!picking));
  // Responsive presets: the tab looked at is laid out at the size (with
  // a device pixel ratio and mobile emulation for tablet and phone), as
  // loupe viewport does; Window resets it to the window's own size.
  $('viewport').addEventListener('change', () => {
    if (!selected) return;
    const [size, scale, mobile] = $('viewport').value.split('/');
    const input = size ? {size, scale: Number(scale || 0), mobile: mobile === 'm'} : {size: 'reset'};
    act('viewport', selected.session, input, selected.id);
  });
  img.addEventListener('wheel', (ev) => {
    const t = tabOf(selected);
    if (!t || t.mode !== 'human') return;
    ev.preventDefault();
    send(Object.assign({kind: 'wheel', dx: ev.deltaX, dy: ev.deltaY}, point(ev)));
  }, {passive: false});
  screen.addEventListener('keydown', (ev) => {
    const t = tabOf(selected);
    if (!t || t.mode !== 'human') return;
    if (['Control', 'Alt', 'Meta', 'Shift'].includes(ev.key)) return;
    ev.preventDefault();
    if (ev.key.length === 1 && !ev.ctrlKey && !ev.metaKey && !ev.altKey) send({kind: 'text', text: ev.key});
    else send({kind: 'key', keys: chordOf(ev)});
  });
  const inTab = (op) => () => selected && act(op, selected.session, {}, selected.id);
  $('back').addEventListener('click', inTab('back'));
  $('forward').addEventListener('click', inTab('forward'));
  $('reload').addEventListener('click', inTab('reload'));
  $('retry').addEventListener('click', inTab('reload'));
  $('toolbar').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const url = $('address').value.trim();
    if (selected && url) act('open', selected.session, {url}, selected.id);
  });
  $('control').addEventListener('click', () => {
    const t = tabOf(selected);
    if (t) act(t.mode === 'human' ? 'resume' : 'takeover', selected.session, {surface_id: t.id});
  });
  $('record').addEventListener('click', () => toggleRecording());
  $('zoom').addEventListener('change', () => applyZoom());
  $('frame').addEventListener('load', () => applyZoom());
  $('diagnose').addEventListener('click', async () => {
    if (!selected) return;
    const sel = selected;
    try {
      const d = await api('diagnostics', sel.session, {}, sel.id);
      $('diagnostics').hidden = false;
      $('diagnostics-text').textContent = diagnosticsText(d);
    } catch (e) {
      showError(e);
    }
  });
  $('close-tab').addEventListener('click', () => {
    if (selected) act('tab close', selected.session, {surface_id: selected.id});
  });
  $('open-settings').addEventListener('click', () => $('settings').showModal());
  for (const k of ['controlEnabled', 'ignoreCertificateErrors']) {
    $(k + '-t').addEventListener('click', () =>
      act('settings set', 'default', {key: k, value: String(!state.settings[k])}));
  }
  const result = (p) => p.then((out) => {
    $('settings-result').textContent = out ? (out.cleared ? 'Cleared ' + out.cleared + '; kept ' + out.kept + '.' :
      'Imported ' + out.imported + ' cookies from ' + out.from + '; skipped ' + (out.skipped_expired + out.skipped_app_bound + out.skipped_undecryptable) + '.') :
      $('op-error').textContent;
  });
  const session = () => $('settings-session').value || 'default';
  $('clear-cache').addEventListener('click', () => result(act('settings clear-cache', session(), {})));
  $('clear-data').addEventListener('click', () => {
    if (confirm('Clear every cookie and all site data of session ' + session() + '?')) result(act('settings clear-data', session(), {}));
  });
  $('import-cookies').addEventListener('click', () => result(act('import-cookies', session(), {})));
}

function listen() {
  const es = new EventSource('/api/events');
  // Read the state once the stream is open: what happened before it
  // is in that read, what happens after comes down the stream.
  es.addEventListener('open', () => { $('conn').textContent = 'live'; refresh(); });
  es.addEventListener('error', () => { $('conn').textContent = 'reconnecting…'; });
  es.addEventListener('event', (ev) => {
    const e = JSON.parse(ev.data);
    if (e.kind === 'approval.answered') noteAnswer({approval_id: e.approval_id, op: e.op, state: e.state});
    if (selected && e.surface_id === selected.id && (e.kind === 'op.settled' || e.kind === 'tab.crashed')) loadProblems();
    refresh();
  });
}

wire();
listen();
