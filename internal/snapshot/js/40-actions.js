// ---- actions and reads ---------------------------------------------------
// Every function takes an element id from a snapshot and returns a plain
// object: {ok: true, ...} or {ok: false, err: code, detail}. err is one of
// gone (no such element any more), hidden, disabled, covered, unstable,
// noteditable, notselect, nooption.

// Trusted pointer releases this document has seen. Input to a frame in
// another process arrives there asynchronously: the engine waits for the
// release of a click it sent before it sends anything else (a key press must
// not overtake the click that focuses the field it is meant for).
let upSeq = 0;
const upWaiters = new Set();
addEventListener('mouseup', (e) => {
  if (!e.isTrusted) return;
  upSeq++;
  for (const w of upWaiters) w();
}, true);

// Trusted pointer moves this document has seen: before a click into a
// frame in another process the engine moves the pointer there and waits
// for the move to arrive, which shows the browser routes input at that
// point to this frame (see routeTo in press.go).
let moveSeq = 0;
const moveWaiters = new Set();
addEventListener('mousemove', (e) => {
  if (!e.isTrusted) return;
  moveSeq++;
  for (const w of moveWaiters) w();
}, true);

function moveMark() { return { ok: true, seq: moveSeq }; }

// sawMove resolves true once a trusted move after seq has arrived, false
// after timeoutMs.
function sawMove(seq, timeoutMs) {
  if (moveSeq > seq) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = () => { moveWaiters.delete(w); clearTimeout(timer); resolve(moveSeq > seq); };
    const w = () => { if (moveSeq > seq) done(); };
    const timer = setTimeout(done, timeoutMs);
    moveWaiters.add(w);
  });
}

// Scrolls this document has seen (of itself or of any element in it: a
// capture listener hears the scroll events that do not bubble). A wheel
// turn scrolls asynchronously, on the compositor: the engine marks the
// count before it turns the wheel and waits for the scrolling to end
// after, so that what the next call reads is where the page came to rest.
let scrollSeq = 0;
let lastScrollAt = 0;
addEventListener('scroll', () => { scrollSeq++; lastScrollAt = performance.now(); }, true);

function scrollMark() { return { ok: true, seq: scrollSeq }; }

// scrollSettled resolves once a scroll after seq has happened and none has
// for two frames; when none comes within noneMs (nothing could scroll), or
// after maxMs in all, it resolves anyway.
function scrollSettled(seq, noneMs, maxMs) {
  return new Promise((resolve) => {
    const start = performance.now();
    const tick = () => requestAnimationFrame(() => {
      const now = performance.now();
      const seen = scrollSeq > seq;
      if ((seen && now - lastScrollAt > 32) || (!seen && now - start > noneMs) || now - start > maxMs) {
        resolve({ ok: true, seen });
        return;
      }
      tick();
    });
    tick();
  });
}

// The press guard: a click is aimed at the centre prepare measured, but
// the page may move between that check and the press (a popup still
// animating open). The first trusted press after armPress must land on the
// element, its own widget part or the label that draws it; otherwise that
// press and its release and click are stopped at the window, before the
// page's own handlers (except window capture listeners added earlier), and
// the engine reports where it landed. Only the press is checked: a page
// may re-render the element under the pointer once it is pressed.
let guard = null;
let prepared = null; // {el, via} of the last prepare

function onGuarded(e) {
  const g = guard;
  if (!g || !e.isTrusted) return;
  if (e.type === 'pointerdown' || e.type === 'mousedown') g.pressed = true;
  if (!g.decided) {
    g.decided = true;
    const hit = hitOf(e);
    if (lands(g, hit)) return;
    g.blocked = hit ? describe(hit) : 'nothing';
  }
  if (g.blocked) {
    e.stopImmediatePropagation();
    e.preventDefault();
    return;
  }
  // The release is only noted: where it lands decides whether a click
  // event reaches the element (the browser sends it to what the press and
  // release have in common), and a press on an element that then moved
  // away is no click on it, which the engine tells the caller.
  if (e.type === 'mouseup' && g.pressed && !g.released) {
    g.released = true;
    const hit = hitOf(e);
    if (!lands(g, hit)) g.slipped = hit ? describe(hit) : 'nothing';
  }
}

function hitOf(e) {
  const t = e.composedPath()[0];
  return t && t.nodeType === 1 ? t : t && t.parentElement;
}

// lands reports whether input at hit goes to the guarded element: the
// element, its own widget part, or the label or wrapper that draws it.
function lands(g, hit) {
  return !!hit && (ownPart(g.el, hit) || (g.via && (hit === g.via || flatContains(g.via, hit))));
}

for (const type of ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click']) addEventListener(type, onGuarded, true);

// armPress arms the press guard for a click on the element and returns the
// count of releases seen so far (for afterPress).
function armPress(id) {
  const el = target(id);
  if (!el) return fail('gone');
  guard = { el, via: prepared && prepared.el === el ? prepared.via : null, decided: false, blocked: '', pressed: false, released: false, slipped: '' };
  return { ok: true, seq: upSeq };
}

// afterPress finishes a click in one call: with settleMs (a subframe) it
// waits, at most that long, for a release after seq; it reports where a
// stopped press landed (detail), where the release of a press that
// landed went instead (slipped), or that the press did not reach this
// document (missed: the browser routed it to another frame — the release
// alone may still arrive here, and without its press no click fires),
// and otherwise waits, at most quietMs, for the page to go quiet.
// When neither the press nor its release has arrived by settleMs, the
// wait goes on to lateMs: a loaded machine delays input to a frame in
// another process by seconds, and only a press seen here proves where the
// click went. A release without its press is a misroute, known at once.
async function afterPress(seq, settleMs, lateMs, quietMs) {
  if (settleMs > 0 && !(await awaitInput(seq, settleMs)) && !(guard && guard.pressed)) {
    await awaitInput(seq, lateMs - settleMs);
  }
  const g = guard;
  guard = null;
  const blocked = g && g.decided ? g.blocked : '';
  const missed = settleMs > 0 && !blocked && !(g && g.pressed);
  // A press that arrived with no release after it: no click fired.
  const unreleased = settleMs > 0 && !blocked && !missed && upSeq <= seq;
  if (!blocked && !missed && !unreleased && quietMs > 0) await quiet(quietMs);
  return { ok: true, detail: blocked, missed, unreleased, slipped: !blocked && g ? g.slipped : '' };
}

// quiet resolves once the document has gone one animation frame without
// a DOM mutation (true), or after quietFrames frames that each changed it
// (false), or after maxMs (false), whichever comes first: what a click
// set off (a list opening, a re-render) is then on the page when the
// result is reported. A hidden document gets no frames: it does not wait.
const quietFrames = 8;
function quiet(maxMs) {
  if (document.visibilityState === 'hidden') return Promise.resolve({ ok: true, seen: false });
  return new Promise((resolve) => {
    let changed = false;
    let frames = 0;
    const obs = new MutationObserver(() => { changed = true; });
    obs.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    const done = (v) => { obs.disconnect(); clearTimeout(timer); resolve({ ok: true, seen: v }); };
    const timer = setTimeout(() => done(false), maxMs);
    const tick = () => requestAnimationFrame(() => {
      if (!changed) { done(true); return; }
      if (++frames >= quietFrames) { done(false); return; }
      changed = false;
      tick();
    });
    // The first frame lets the page answer the input at all.
    requestAnimationFrame(tick);
  });
}

// awaitInput resolves true once a release after seq has arrived, or false
// after timeoutMs.
function awaitInput(seq, timeoutMs) {
  if (upSeq > seq) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = () => { upWaiters.delete(w); clearTimeout(timer); resolve(upSeq > seq); };
    const w = () => { if (upSeq > seq) done(); };
    const timer = setTimeout(done, timeoutMs);
    upWaiters.add(w);
  });
}

function target(id) {
  const el = byId(id);
  if (!el || !el.isConnected) return null;
  return el;
}

function fail(err, detail) { return { ok: false, err, detail: detail || '' }; }

// rendered is the element that draws el: el itself, or, for an element
// with no box of its own (display: contents; a <slot> is one by default),
// its first descendant in the flat tree that has a box — through nested
// such wrappers and slots, a bounded number of nodes deep. A ref on a
// wrapper is pointed at, checked and clicked there, so the click lands.
function rendered(el) {
  if (styleOf(el).display !== 'contents') return el;
  const queue = Array.from(childNodes(el));
  for (let i = 0; i < queue.length && i < 256; i++) {
    const c = queue[i];
    if (c.nodeType !== 1) continue;
    if (styleOf(c).display === 'contents') {
      queue.push(...childNodes(c));
      continue;
    }
    const r = c.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) return c;
  }
  return el;
}

function rectOf(el) {
  return rendered(el).getBoundingClientRect();
}

function visibleBox(el) {
  const at = rendered(el);
  if (!at.checkVisibility({ visibilityProperty: true, contentVisibilityAuto: true })) return null;
  const r = at.getBoundingClientRect();
  if (r.width <= 0 || r.height <= 0) return null;
  return r;
}

function inViewport(r) {
  return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
}

// deepElementFromPoint finds the element at a point in the composed (flat)
// tree: it descends open shadow roots. A shadow root's elementFromPoint
// answers with its host when the point is over light-DOM text slotted
// inside; elementsFromPoint lists the slot's shadow ancestors first, so it
// is the one asked.
function deepElementFromPoint(x, y) {
  let e = document.elementFromPoint(x, y);
  while (e && e.shadowRoot) {
    const inner = e.shadowRoot.elementsFromPoint(x, y)[0];
    if (!inner || inner === e) break;
    e = inner;
  }
  return e;
}

// pickAt names what a person pointed at (the dashboard's pick mode): the
// ids that snapshots gave the element at a point of the viewport and its
// ancestors, innermost first, and, when that element is a frame, the point
// inside the frame's content box for the frame's own document to answer.
function pickAt(x, y) {
  const hit = deepElementFromPoint(x, y);
  if (!hit) return fail('gone', 'nothing is at (' + x + ', ' + y + ')');
  const ids = [];
  for (let e = hit; e && e.nodeType === 1; e = flatParent(e)) {
    const id = idOfEl.get(e);
    if (id !== undefined) ids.push(id);
  }
  let frame = null;
  if (hit.localName === 'iframe' || hit.localName === 'frame') {
    const r = hit.getBoundingClientRect();
    const cs = styleOf(hit);
    const left = r.left + hit.clientLeft + (parseFloat(cs.paddingLeft) || 0);
    const top = r.top + hit.clientTop + (parseFloat(cs.paddingTop) || 0);
    frame = { id: idOf(hit), x: x - left, y: y - top };
  }
  return { ok: true, ids, frame };
}

const nextFrame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));

// settleFrames bounds how long an action waits for its element to show or
// be uncovered (about half a second at 60 frames a second): popups animate
// open and overlays fade out; past that the refusal stands.
const settleFrames = 30;

// Roles of a widget a person operates as one thing: the parts drawn inside
// it (a placeholder over the input, an icon, a drawn track) are its own.
const WIDGET_ROLES = new Set(['button', 'checkbox', 'combobox', 'listbox', 'option', 'radio', 'switch', 'slider',
  'spinbutton', 'textbox', 'searchbox', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'link', 'treeitem', 'gridcell']);

// OTHER_CONTROLS are elements that are controls in their own right: a hit
// on one of them is never "part of" another control.
const OTHER_CONTROLS = 'a[href], button, input, select, textarea, [role=button], [role=link], [role=checkbox], [role=switch], [role=option], [role=menuitem], [role=tab]';

// takesText reports a field a person types in or picks a value for: what
// a widget draws over it is its placeholder or value.
function takesText(el) {
  if (el.isContentEditable || el.localName === 'textarea') return true;
  if (el.localName === 'input') return !NOT_TEXT_INPUTS.has(el.type);
  const r = roleOf(el);
  return r === 'combobox' || r === 'textbox' || r === 'searchbox' || r === 'spinbutton';
}

function area(el) {
  const r = el.getBoundingClientRect();
  return r.width * r.height;
}

function labelledBy(el, hit) {
  const ids = el.getAttribute('aria-labelledby');
  if (!ids) return false;
  const root = el.getRootNode();
  for (const id of ids.trim().split(/\s+/)) {
    const l = root.getElementById ? root.getElementById(id) : null;
    if (l && flatContains(l, hit)) return true;
  }
  return false;
}

// ownPart reports whether what a point hit belongs to the target's own
// widget, so that a person clicking there operates the target: content
// slotted into it or its shadow host, its label, or a part drawn inside the
// smallest wrapper that holds both (a labelled control, or a wrapper that
// exists only to draw it: no bigger than a few times the target, holding no
// other control). Anything else on top covers it.
function ownPart(el, hit) {
  if (hit === el || flatContains(el, hit)) return true;
  // The ancestor that takes the clicks of a layer that takes none
  // (39-through.js).
  if (clickedThrough(el, hit)) return true;
  // The invisible control it stands for, lying over it (32-twins.js).
  const tw = twinInput(el);
  if (tw && (hit === tw || flatContains(tw, hit))) return true;
  // A shadow host never covers its own shadow tree.
  if (hit.shadowRoot && flatContains(hit, el)) return true;
  const lbl = hit.closest && hit.closest('label');
  if (lbl && lbl.control === el) return true;
  if (labelledBy(el, hit)) return true;
  const hitCtl = hit.closest && hit.closest(OTHER_CONTROLS);
  if (hitCtl && hitCtl !== el && !flatContains(hitCtl, el)) return false;
  const limit = Math.max(area(el) * 4, 1);
  for (let p = flatParent(el); p && p.nodeType === 1 && p !== document.body && p !== document.documentElement; p = flatParent(p)) {
    if (!flatContains(p, hit)) {
      if (area(p) > limit) return false;
      continue;
    }
    const role = roleOf(p);
    if (WIDGET_ROLES.has(role) || hasLabelAttr(p) || p.localName === 'label') return true;
    // A wrapper that only draws a text field or combobox: the part on top
    // is its drawn text (a placeholder, the current value), not an empty
    // overlay (which may well be there to block input), and not over a
    // button or link (text over those is something else: a promo, a badge).
    return area(p) <= limit && collapse(hit.innerText || '') !== '' && takesText(el);
  }
  return false;
}

// toggleProxy finds where a person clicks a native checkbox, radio or
// switch that is drawn by something else (the input visually hidden): its
// label, or the wrapper that draws it. null when there is none to click.
function toggleProxy(el) {
  if (!(el.localName === 'input' && (el.type === 'checkbox' || el.type === 'radio'))) return null;
  for (const l of el.labels || []) if (visibleBox(l)) return l;
  let p = flatParent(el);
  for (let i = 0; i < 3 && p && p.nodeType === 1 && p !== document.body; i++, p = flatParent(p)) {
    const r = visibleBox(p);
    if (!r || r.width < 4 || r.height < 4) continue;
    // The wrapper must draw this input alone.
    for (const c of p.querySelectorAll(OTHER_CONTROLS)) if (c !== el) return null;
    return p;
  }
  return null;
}

// visiblePart is the part of an element's box a person can see and point
// at: inside the viewport and inside every ancestor that clips it (overflow
// other than visible), or null when nothing of it shows.
function visiblePart(el, r) {
  let left = Math.max(r.left, 0), top = Math.max(r.top, 0);
  let right = Math.min(r.right, innerWidth), bottom = Math.min(r.bottom, innerHeight);
  for (let p = flatParent(el); p && p.nodeType === 1 && p !== document.documentElement && p !== document.body; p = flatParent(p)) {
    const s = getComputedStyle(p);
    if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
    const pr = p.getBoundingClientRect();
    left = Math.max(left, pr.left + p.clientLeft);
    top = Math.max(top, pr.top + p.clientTop);
    right = Math.min(right, pr.left + p.clientLeft + p.clientWidth);
    bottom = Math.min(bottom, pr.top + p.clientTop + p.clientHeight);
  }
  return right - left >= 1 && bottom - top >= 1 ? { left, top, right, bottom } : null;
}

// fits reports a box that the viewport can show whole.
function fits(r) {
  return r.width <= innerWidth && r.height <= innerHeight;
}

function tiny(r) {
  return r.width < 4 || r.height < 4;
}

// prepare makes an element ready for pointer input: attached, visible,
// enabled, scrolled into view, not moving between two animation frames, and
// on top at its centre (or under a part of its own widget, see ownPart). A
// native toggle drawn by something else is operated through its label or
// wrapper (via). It returns the point in this frame's viewport coordinates.
async function prepare(id, o) {
  o = o || {};
  const el = target(id);
  if (!el) return fail('gone');
  let r = visibleBox(el);
  let via = null;
  // A control a person cannot see is pointed at where they would point:
  // its visible counterpart (32-twins.js), a native toggle's label or
  // the wrapper that draws it, or, for one that takes no pointer events
  // where it lies, the widget drawn under it (39-through.js).
  let how = unseenHow(el);
  const twin = how ? twinFor(el) : null;
  let drawn = null;
  if (twin) via = twin;
  else if (o.hit !== false && (!r || tiny(r))) via = toggleProxy(el);
  else if (o.hit !== false && how === 'clear' && noPointer(el)) via = drawn = drawnBy(el);
  // A popup animating open is not visible for a few frames: wait for it,
  // a frame at a time, at most settleFrames.
  for (let i = 0; i < settleFrames && (!r || how === 'tiny') && !via; i++) {
    await nextFrame();
    if (!el.isConnected) return fail('gone');
    r = visibleBox(el);
    how = unseenHow(el);
  }
  // (One pixel or less across is nothing to see or point at either.)
  if (!r && !via) return fail('hidden', describe(el));
  if (how === 'tiny' && !via) return fail('hidden', describe(el) + ', drawn ' + Math.round(r.width) + '×' + Math.round(r.height) + ' px, with no visible counterpart');
  if (o.enabled !== false && isDisabled(el)) return fail('disabled', describe(el));
  if (o.editable && !isEditable(el)) return fail('noteditable', describe(el));
  const box = via || el;
  // Scrolled into view until it shows, and then stable: the same box in two
  // consecutive frames (an element that keeps moving for 30 frames is
  // reported, not chased). A virtualised view (a code editor, a long list)
  // may move what it draws again as it answers the scroll: three tries.
  let vp = null;
  for (let attempt = 0; attempt < 3 && !vp; attempt++) {
    r = rectOf(box);
    // An element bigger than the viewport (an editor's whole content, a
    // long list) is pointed at where it shows, not scrolled to its middle.
    const shown = visiblePart(box, r);
    const whole = shown && shown.left <= r.left + 0.5 && shown.top <= r.top + 0.5 && shown.right >= r.right - 0.5 && shown.bottom >= r.bottom - 0.5;
    if (o.scroll !== false && !whole && (fits(r) || !shown)) {
      box.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    }
    r = rectOf(box);
    let stable = false;
    for (let i = 0; i < 30 && !stable; i++) {
      await nextFrame();
      const r2 = rectOf(box);
      stable = r2.x === r.x && r2.y === r.y && r2.width === r.width && r2.height === r.height;
      r = r2;
    }
    if (!stable) return fail('unstable', describe(box));
    if (!el.isConnected) return fail('gone');
    vp = visiblePart(box, r);
    if (o.scroll === false) break; // a subframe: the protocol scrolled it
  }
  // The centre of what shows of it (all of it, for an element in view).
  if (!vp) {
    if (o.scroll !== false) return fail('hidden', describe(el) + ', still out of view after scrolling to it');
    vp = { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  }
  let x = (vp.left + vp.right) / 2;
  let y = (vp.top + vp.bottom) / 2;
  let part = '', through = '';
  // What covers it may be going away (a closing overlay, a parent that
  // clips it while it expands): the hit test is tried again each frame, at
  // most settleFrames, before the element is called covered.
  for (let i = 0; o.hit !== false; i++) {
    const hit = deepElementFromPoint(x, y);
    let why = '';
    if (!hit) why = 'nothing is at its centre (' + describe(el) + ')';
    else if (via) {
      if (!(hit === via || flatContains(via, hit) || flatContains(hit, el) && hit.shadowRoot)) why = describe(hit) + ' covers ' + describe(via) + ', which draws ' + describe(el);
    } else if (!ownPart(el, hit)) {
      why = flatContains(hit, el) && noPointer(el)
        ? describe(el) + ' takes no pointer events (pointer-events: none): a click at its place goes to ' + describe(hit)
        : describe(hit) + ' covers ' + describe(el);
    } else if (clickedThrough(el, hit)) {
      through = describe(hit);
    } else if (hit !== el && !flatContains(el, hit) && !(hit.shadowRoot && flatContains(hit, el))) {
      const lbl = hit.closest && hit.closest('label');
      if (!(lbl && lbl.control === el)) part = describe(hit);
    }
    if (!why) break;
    if (i >= settleFrames) return fail('covered', why);
    await nextFrame();
    if (!el.isConnected) return fail('gone');
    r = rectOf(box);
    vp = visiblePart(box, r) || vp;
    x = (vp.left + vp.right) / 2;
    y = (vp.top + vp.bottom) / 2;
  }
  prepared = { el, via };
  const out = { ok: true, x, y, w: r.width, h: r.height };
  if (twin) {
    out.via = 'at ' + describe(twin) + ', which shows it (' + describe(el) + ' is not drawn)';
    // The keys of an editor go to an input it hides: a click on that
    // input is the editor taking focus where its caret is.
    if (twinEditor(twin, el)) out.focus = true;
  } else if (drawn) out.via = 'at ' + describe(drawn) + ', the widget drawn under it (' + describe(el) + ' is transparent and takes no pointer events)';
  else if (via) out.via = 'through ' + describe(via) + ' (it draws the input)';
  else if (through) out.via = 'at ' + through + ', which takes the clicks there (' + describe(el) + ' takes no pointer events)';
  else if (part) out.via = 'at ' + part + ' (its own widget part, on top)';
  return out;
}

function isEditable(el) {
  if (el.isContentEditable || el.editContext) return true;
  if (el.localName === 'textarea') return !el.readOnly && !el.disabled;
  if (el.localName === 'input') {
    const t = el.type;
    const textual = ['text', 'search', 'url', 'tel', 'email', 'password', 'number', 'date', 'datetime-local', 'month', 'time', 'week', ''];
    return textual.includes(t) && !el.readOnly && !el.disabled;
  }
  return false;
}

// editingHost is the editable root an element inside a rich-text editor
// belongs to (the element itself when it is the root).
function editingHost(el) {
  let h = el;
  while (h.parentElement && h.parentElement.isContentEditable) h = h.parentElement;
  return h;
}

// focusSelect focuses an editable element and selects all its content, so
// the text an agent inserts next replaces it; without selectAll the caret
// goes to its end. A block inside a rich-text editor (a paragraph ref from
// the snapshot) focuses its editor and puts the selection in that block.
function focusSelect(id, selectAll) {
  const t = target(id);
  if (!t) return fail('gone');
  // The field a visible element stands for, or the one an invisible
  // field's counterpart shows (32-twins.js).
  const reach = reachInput(t);
  if (!reach.ok) return reach;
  const el = reach.input;
  if (isDisabled(el)) return fail('disabled', describe(el));
  if (reach.host && twinEditor(reach.host, el) && (isEditable(el) || el.tabIndex >= 0)) {
    // An editor's hidden input: its text is the editor's, which the
    // editor's own keys select (all, or to its end), sent by the engine.
    el.focus();
    const a = deepActiveElement();
    if (!(a === el || flatContains(el, a))) return fail('unfocusable', describe(el));
    return { ok: true, empty: readValue(el) === '' && collapse(reach.host.innerText || '') === '', keys: selectAll ? 'all' : 'end' };
  }
  if (!isEditable(el)) return fail('noteditable', describe(el));
  const host = el.isContentEditable ? editingHost(el) : el;
  host.focus();
  const a = deepActiveElement();
  if (!(a === host || flatContains(host, a))) return fail('unfocusable', describe(el));
  if (el.isContentEditable) {
    const sel = getSelection();
    if (selectAll) sel.selectAllChildren(el);
    else { sel.selectAllChildren(el); sel.collapseToEnd(); }
  } else if (selectAll) {
    el.select();
  } else {
    try { const n = el.value.length; el.setSelectionRange(n, n); } catch (e) { /* type without selection API */ }
  }
  return { ok: true, empty: readValue(el) === '' };
}

// rangeOf describes a range input for fill — its bounds, step and
// value — after focusing it (its keys then move it); {range: false} for
// any other element.
function rangeOf(id) {
  const t = target(id);
  if (!t) return fail('gone');
  const el = twinInput(t) || t;
  if (el.localName === 'input' && pickerTypes.has(el.type)) return { ok: true, range: false, picker: true };
  if (!(el.localName === 'input' && el.type === 'range')) return { ok: true, range: false };
  const reach = reachInput(t);
  if (!reach.ok) return reach;
  if (isDisabled(el)) return fail('disabled', describe(el));
  const num = (v, d) => (v === '' || isNaN(Number(v)) ? d : Number(v));
  const min = num(el.min, 0), max = num(el.max, 100);
  const step = el.step === 'any' ? 1 : num(el.step, 1) || 1;
  el.focus();
  if (deepActiveElement() !== el) return fail('unfocusable', describe(el));
  return { ok: true, range: true, min, max, step, value: Number(el.value) };
}

// pickerTypes are the inputs whose value a person sets through the
// browser's own picker, not by typing text into them.
const pickerTypes = new Set(['date', 'datetime-local', 'month', 'week', 'time', 'color']);

// setPicked sets such an input's value, as its picker would: the input
// and change events follow (not trusted: the picker is the browser's). A
// value the input does not take (a wrong format) leaves it as it was and
// fails with the format it wants.
function setPicked(id, value) {
  const t = target(id);
  if (!t) return fail('gone');
  const reach = reachInput(t);
  if (!reach.ok) return reach;
  const el = reach.input;
  if (isDisabled(el) || el.readOnly) return fail('disabled', describe(el));
  const before = el.value;
  el.focus();
  el.value = value;
  if (el.value !== value && !(value === '' && el.value === '')) {
    const got = el.value;
    el.value = before;
    const formats = { date: 'YYYY-MM-DD', 'datetime-local': 'YYYY-MM-DDThh:mm', month: 'YYYY-MM', week: 'YYYY-Www', time: 'hh:mm', color: '#rrggbb' };
    return fail('badvalue', describe(el) + ' takes ' + formats[el.type] + (got ? ' (it made ' + got + ' of it)' : ''));
  }
  el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
  return { ok: true, value: el.value };
}

function focus(id) {
  const t = target(id);
  if (!t) return fail('gone');
  // As every verb: what a person cannot see is reached through what they
  // see, or not at all.
  const reach = reachInput(t);
  if (!reach.ok) return reach;
  const el = reach.input;
  el.focus();
  const a = deepActiveElement();
  if (!(a === el || flatContains(el, a))) return fail('unfocusable', describe(el));
  return { ok: true };
}

// isSecret: a field whose text is a secret (a password input).
function isSecret(el) { return !!el && el.localName === 'input' && el.type === 'password'; }

// secret reports whether an element is a field whose text is a secret.
function secret(id) { const el = target(id); return isSecret(el && (twinInput(el) || el)); }

function readValue(el) {
  if ('value' in el && (el.localName === 'input' || el.localName === 'textarea' || el.localName === 'select')) return String(el.value);
  if (el.isContentEditable) return el.innerText;
  return aria(el, 'aria-valuetext') || aria(el, 'aria-valuenow') || '';
}

function read(id, what, arg) {
  const el = target(id);
  if (!el) return fail('gone');
  // What an element that stands for an invisible control says of it is
  // that control's (its value, its state); where it is, its own.
  const input = twinInput(el) || el;
  switch (what) {
    case 'text': return { ok: true, value: el.innerText !== undefined ? el.innerText : el.textContent };
    case 'html': return { ok: true, value: el.outerHTML };
    case 'value': {
      // A password field's value is shown as the snapshot shows it: a
      // mask, never the secret.
      const v = readValue(input);
      return isSecret(input) ? { ok: true, value: v ? '•'.repeat(Math.min(v.length, 8)) : '', secret: true } : { ok: true, value: v };
    }
    case 'attr': return { ok: true, value: el.getAttribute(arg), present: el.hasAttribute(arg) };
    case 'box': {
      const r = rectOf(el);
      return { ok: true, x: r.x, y: r.y, width: r.width, height: r.height, scrollX, scrollY };
    }
    case 'state': {
      const role = roleOf(input);
      const r = visibleBox(el);
      const c = CHECKABLE.has(role) ? checkedState(input, role) : '';
      const a = deepActiveElement();
      return {
        ok: true, role, visible: !!r && unseenHow(el) !== 'tiny', enabled: !isDisabled(input), editable: isEditable(input),
        checked: c === 'true' ? true : c === 'mixed' ? 'mixed' : c === 'false' ? false : null,
        focused: a === el || a === input, inViewport: !!r && inViewport(r), tag: input.localName,
        // Its role or states come from its internals, as of the last
        // answer: the engine asks again (25-internals.js).
        internals: fromInternals(input),
      };
    }
  }
  return fail('bad', what);
}

// selectOptions chooses options of a native <select> by value or label and
// fires input and change as a person's choice would. The native popup is
// not reachable by trusted input in a headless browser.
function selectOptions(id, values) {
  const t = target(id);
  if (!t) return fail('gone');
  const reach = reachInput(t);
  if (!reach.ok) return reach;
  const el = reach.input;
  if (el.localName !== 'select') return fail('notselect', describe(el));
  if (isDisabled(el)) return fail('disabled', describe(el));
  const opts = Array.from(el.options);
  const picked = [];
  for (const v of values) {
    const o = opts.find((x) => x.value === v) || opts.find((x) => collapse(x.label) === collapse(v));
    if (!o) return fail('nooption', JSON.stringify(v) + ' is not one of: ' + opts.map((x) => JSON.stringify(x.label)).join(', '));
    if (o.disabled) return fail('disabled', 'option ' + JSON.stringify(o.label));
    picked.push(o);
  }
  if (!el.multiple && picked.length > 1) return fail('nooption', 'this select takes one value');
  for (const o of opts) o.selected = picked.includes(o);
  el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
  return { ok: true, values: picked.map((o) => o.value) };
}

// deepText is the rendered text of an element or shadow root, including
// the content of open shadow roots inside it.
function deepText(root) {
  let s = root.nodeType === 1 ? (root.innerText || '') : Array.from(root.children).map((c) => c.innerText || '').join('\n');
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (n.shadowRoot) s += '\n' + deepText(n.shadowRoot);
  }
  return s;
}

// waitText resolves when the text appears, following DOM mutations; the
// caller's deadline bounds it, and the observer is dropped after timeoutMs.
function waitText(text, timeoutMs) {
  const has = () => (document.body ? deepText(document.body) : '').includes(text);
  if (has()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const obs = new MutationObserver(() => { if (has()) { obs.disconnect(); resolve(true); } });
    obs.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
    setTimeout(() => { obs.disconnect(); resolve(false); }, timeoutMs);
  });
}

// waitTextGone resolves true once the text is not on the page (at once
// when it is not), false after timeoutMs.
function waitTextGone(text, timeoutMs) {
  const gone = () => !(document.body ? deepText(document.body) : '').includes(text);
  if (gone()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const obs = new MutationObserver(() => { if (gone()) { obs.disconnect(); resolve(true); } });
    obs.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
    setTimeout(() => { obs.disconnect(); resolve(gone()); }, timeoutMs);
  });
}

function waitVisible(id, timeoutMs) {
  const ok = () => { const el = target(id); return !!(el && visibleBox(el)); };
  if (ok()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const obs = new MutationObserver(() => { if (ok()) { obs.disconnect(); resolve(true); } });
    obs.observe(document, { subtree: true, childList: true, attributes: true });
    setTimeout(() => { obs.disconnect(); resolve(false); }, timeoutMs);
  });
}

// waitChange resolves when the document changes (any mutation), or at
// once while it is still loading; false after timeoutMs. A locator that
// matches nothing yet is resolved again after each change (nav.Wait).
function waitChange(timeoutMs) {
  if (document.readyState !== 'complete') return Promise.resolve(true);
  return new Promise((resolve) => {
    const obs = new MutationObserver(() => { obs.disconnect(); resolve(true); });
    obs.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    setTimeout(() => { obs.disconnect(); resolve(false); }, timeoutMs);
  });
}

// waitLoad resolves when the document has loaded.
function waitLoad(timeoutMs) {
  if (document.readyState === 'complete') return Promise.resolve(true);
  return new Promise((resolve) => {
    addEventListener('load', () => resolve(true), { once: true });
    setTimeout(() => resolve(document.readyState === 'complete'), timeoutMs);
  });
}

function pageText() {
  return document.body ? deepText(document.body) : '';
}

// frameOffset moves a point from a child frame's viewport into this
// document's: it adds the content-box origin of the <iframe> (border and
// padding; the iframe's box already reflects this document's scroll). With
// hit, the point is first scrolled into this document's viewport if it lies
// outside (the protocol's scroll-into-view only makes it visible in the
// frame, not always in every ancestor), and must then land on the iframe
// itself, not on something covering it. CSS transforms on the iframe are
// not accounted for.
async function frameOffset(id, x, y, hit) {
  const el = target(id);
  if (!el) return fail('gone');
  const origin = () => {
    const r = visibleBox(el);
    if (!r) return null;
    const cs = styleOf(el);
    return [r.left + el.clientLeft + (parseFloat(cs.paddingLeft) || 0), r.top + el.clientTop + (parseFloat(cs.paddingTop) || 0)];
  };
  let o = origin();
  if (!o) return fail('hidden', 'its frame ' + describe(el) + ' is not visible');
  let X = o[0] + x, Y = o[1] + y;
  if (hit) {
    const out = (v, max) => (v < 0 || v > max);
    if (out(X, innerWidth) || out(Y, innerHeight)) {
      scrollBy({ left: out(X, innerWidth) ? X - innerWidth / 2 : 0, top: out(Y, innerHeight) ? Y - innerHeight / 2 : 0, behavior: 'instant' });
      o = origin();
      if (!o) return fail('hidden', 'its frame ' + describe(el) + ' is not visible');
      X = o[0] + x;
      Y = o[1] + y;
    }
    if (out(X, innerWidth) || out(Y, innerHeight)) return fail('hidden', 'its frame ' + describe(el) + ' cannot be scrolled to show it');
    // Let a frame be drawn first: the browser routes input to an iframe by
    // where it was last drawn, and scrolling into view may just have moved
    // it (here, or through the protocol in the frame).
    await nextFrame();
    await nextFrame();
    o = origin();
    if (!o) return fail('hidden', 'its frame ' + describe(el) + ' is not visible');
    X = o[0] + x;
    Y = o[1] + y;
    const top = deepElementFromPoint(X, Y);
    if (top !== el) return fail('covered', describe(top) + ' covers its frame ' + describe(el));
  }
  return { ok: true, x: X, y: Y };
}

// fileInput checks the element takes files: a file input, or a control
// that stands for one (an upload button that opens the browser's file
// chooser from a hidden file input inside it, or the label of one); i is
// then the file input's id.
function fileInput(id) {
  const t = target(id);
  if (!t) return fail('gone');
  // (A file input is hidden by design: it is reached hidden or not.)
  const el = twinInput(t) || t;
  const isFile = (n) => n && n.localName === 'input' && n.type === 'file';
  let input = isFile(el) ? el : null;
  if (!input && el.localName === 'label' && isFile(el.control)) input = el.control;
  if (!input) {
    const inside = el.querySelectorAll('input[type=file]');
    if (inside.length === 1) input = inside[0];
    else if (inside.length > 1) return fail('notfile', describe(el) + ' holds ' + inside.length + ' file inputs; use the one you mean');
  }
  if (!input) return fail('notfile', describe(el));
  if (isDisabled(input)) return fail('disabled', describe(input));
  const out = { ok: true, multiple: input.multiple };
  if (input !== t) { out.i = idOf(input); out.via = 'through its file input ' + describe(input); }
  return out;
}

// Long tasks of this document (over 50 ms of main-thread work), counted
// by an observer the agent registers as it is installed at the document's
// start (buffered: any before it count too). Diagnostics reads the counts
// and the observer's pending records at once: a wait for a buffered
// delivery was cut short on a loaded machine (none reported).
const longTasks = { count: 0, total: 0, longest: 0, obs: null, waited: false, seen: new Set() };
function countLongTasks(entries) {
  for (const e of entries) {
    // Both observers may hand over the same task: counted once.
    const key = e.startTime + '/' + e.duration;
    if (longTasks.seen.has(key)) continue;
    if (longTasks.seen.size < 1000) longTasks.seen.add(key);
    longTasks.count++;
    longTasks.total += e.duration;
    longTasks.longest = Math.max(longTasks.longest, e.duration);
  }
}
try {
  longTasks.obs = new PerformanceObserver((list) => countLongTasks(list.getEntries()));
  longTasks.obs.observe({ type: 'longtask', buffered: true });
} catch (e) {
  longTasks.obs = null; // no Long Tasks API here: none are counted
}

// timings are the document's navigation timing and its long tasks so far,
// for diagnostics. When the observer registered at the document's start
// has counted none — an agent installed after the document began, or a
// long task the browser did not hand to it (seen on page load) — a second
// observer asks for the buffered entries, which the browser delivers in a
// task of its own: the first such read waits for them, at most 250 ms.
async function timings() {
  const nav = performance.getEntriesByType('navigation')[0];
  const timing = nav ? { ttfb: nav.responseStart, dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd, transfer: nav.transferSize } : null;
  if (longTasks.obs) countLongTasks(longTasks.obs.takeRecords());
  if (longTasks.count === 0 && !longTasks.waited) {
    longTasks.waited = true;
    const buffered = await new Promise((resolve) => {
      let obs = null;
      const done = (entries) => { if (obs) obs.disconnect(); clearTimeout(timer); resolve(entries); };
      const timer = setTimeout(() => done([]), 250);
      try {
        obs = new PerformanceObserver((list) => done(list.getEntries()));
        obs.observe({ type: 'longtask', buffered: true });
      } catch (e) {
        done([]);
      }
    });
    countLongTasks(buffered);
  }
  return { timing, count: longTasks.count, total: longTasks.total, longest: longTasks.longest };
}

// storage reads the document's local and session storage, for a saved
// storage state; setStorage writes entries into them.
function storage() {
  const read = (s) => {
    const out = [];
    for (let i = 0; i < s.length; i++) { const k = s.key(i); out.push({ name: k, value: s.getItem(k) }); }
    return out;
  };
  let local = [], session = [];
  try { local = read(localStorage); } catch (e) { /* storage denied to this document */ }
  try { session = read(sessionStorage); } catch (e) { /* likewise */ }
  return { origin: location.origin, local, session };
}

function setStorage(local, session) {
  try {
    for (const e of local || []) localStorage.setItem(e.name, e.value);
    for (const e of session || []) sessionStorage.setItem(e.name, e.value);
  } catch (e) {
    return fail('storage', String(e));
  }
  return { ok: true };
}

// boxes are the elements' visible boxes in this document's viewport, for
// an annotated screenshot (null for one that is gone or not visible).
function boxes(ids) {
  return ids.map((id) => {
    const el = target(id);
    const r = el && visibleBox(el);
    return r ? { x: r.left, y: r.top, w: r.width, h: r.height } : null;
  });
}

// els returns the elements with the given ids (null where gone), for bulk
// protocol lookups.
function els(ids) {
  return ids.map((id) => target(id));
}

return { quiet, pickAt, scrollMark, scrollSettled, moveMark, sawMove, armPress, afterPress, snapshot, prepare, focusSelect, rangeOf, setPicked, focus, read, selectOptions, waitText, waitTextGone, waitVisible, waitChange, waitLoad, pageText, secret, byId, idOf, frameOffset, boxes, timings, storage, setStorage, els, fileInput, locatorInfo, query, axSet };
