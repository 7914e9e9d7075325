// ---- invisible twins -----------------------------------------------------
// Widgets keep controls a person never sees beside the ones they draw: an
// option list mirrored for screen readers (zero-size, or fully transparent)
// beside the visible list of plain divs, an editor's hidden textarea or
// EditContext element beside the text it draws, a native checkbox clipped
// to one pixel under a drawn box. Such an element has the role and name
// an agent looks for, and an agent that picks it is refused (it is not
// visible) while what a person would click prints elsewhere as a plain
// `generic`. So the snapshot prints the visible counterpart (V) with the
// invisible control's (H) role, name and states, under V's ref, and
// leaves H out; actions on either act where a person would (see
// 40-actions.js: a click goes to V, typing to H).
//
// Cost: only controls are checked (a box and a visibility read each), and
// counterparts are looked for only for the ones found invisible, in one
// batch after the walk (settleTwins). The pairs are kept across walks; a
// walk that finds them changed is followed at once by an incremental walk
// of what they touch, so a snapshot never shows half a pair.

// twinOf maps H to its counterpart V; twinHost maps V back to H. One of
// each per pair. Entries whose elements left the document are dropped at
// the next walk.
let twinOf = new Map();
let twinHost = new Map();
// The invisible controls a walk met (element → how it is unseen), and the
// elements of pairs it met; both are checked by settleTwins after it.
let twinCands = new Map();
let twinSeen = new Set();

// Roles an invisible copy is made of: controls and the lists that hold
// them. Frames and media are never copies.
const TWIN_LISTS = new Set(['listbox', 'menu', 'menubar', 'tablist', 'tree', 'radiogroup', 'grid', 'treegrid']);
const TWIN_ROLES = new Set([...ACTION_ROLES, ...TWIN_LISTS]);
for (const r of ['iframe', 'video', 'audio', 'scrollbar']) TWIN_ROLES.delete(r);
// Roles whose copy is found by its name: items a list draws again as
// plain elements with the same text. A field or a toggle is not (a label
// with the same text would be taken for it).
const NAME_TWINS = new Set(['option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'treeitem', 'gridcell', 'button', 'link']);
// How far a counterpart is looked for: ancestors above the copy, and
// elements read for names in each place looked at.
const twinClimb = 6;
const twinScan = 3000;

// unseenHow says how a person cannot see an element: 'tiny' (no box, or
// one pixel or less across) or 'clear' (fully transparent, itself or an
// ancestor), or '' when they can. The walk asks it of every control, so
// it reads the cheapest layout facts (the offset size, which makes no
// rectangle; a box only for an element without one, such as an SVG link).
function unseenHow(el) {
  const at = styleRec(el).display === 'contents' ? rendered(el) : el;
  if (at.offsetWidth !== undefined) {
    if (at.offsetWidth <= 1 || at.offsetHeight <= 1) return 'tiny';
  } else {
    const r = at.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1) return 'tiny';
  }
  if (!at.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return fading(at) ? '' : 'clear';
  return '';
}

// fading reports an element that is transparent because it (or the
// ancestor that makes it so) is being animated: a popup fading in is
// seen a moment later, and is no copy.
function fading(el) {
  for (let p = el; p && p.nodeType === 1; p = flatParent(p)) {
    if (styleOf(p).opacity !== '0') continue;
    return p.getAnimations().length > 0;
  }
  return false;
}

function seen(el) {
  return !unseenHow(el);
}

// ---- closed lists --------------------------------------------------------
// A dropdown kept in the page while closed (transparent, squashed to no
// height or scaled to nothing) still holds its items, and another list,
// open, may offer the same names (two comboboxes of the same cities). No
// verb reaches an item of a closed list, and an agent that takes the
// first item with the name it wants would take that one: so a closed
// list and what it holds print without refs, there to read (what the
// list offers), not to act on. A list that is only transparent, with a
// box, takes the clicks where it lies and keeps its refs; a native
// <select> is a form's control, hidden or not (its options take no refs
// anyway), and keeps its ref as any control a person cannot see does.

// refless reports a control the walk met (role: its role) that is, or is
// in, a closed list. Only controls a person cannot see are asked about
// (twinFolded noted how), and only their list's box is read.
function refless(el, role) {
  const how = twinCands.get(el);
  if (!how) return false;
  if (TWIN_LISTS.has(role)) return el.localName !== 'select' && closedList(el, how);
  let level = 0;
  for (let p = flatParent(el); p && p.nodeType === 1 && level < 4; p = flatParent(p), level++) {
    if (p === document.body || p === document.documentElement) break;
    if (TWIN_LISTS.has(twinRole(p))) return closedList(p, unseenHow(p));
  }
  return false;
}

// closedList reports a list a person can neither see nor point at: unseen
// (how), and drawn, transforms included, one pixel or less across.
function closedList(el, how) {
  if (how === 'tiny') return true;
  if (!how) return false;
  const r = rendered(el).getBoundingClientRect();
  return r.width <= 1 || r.height <= 1;
}

// twinRole is the role a walk gives the element.
function twinRole(el) {
  const r = roleOf(el);
  return r === 'generic' && el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable) ? 'textbox' : r;
}

// twinFolded is the walk's check of a control it is about to print: an
// invisible one is noted for settleTwins, and one whose counterpart
// prints in its stead is left out (true).
function twinFolded(el) {
  const how = unseenHow(el);
  if (how) twinCands.set(el, how);
  const v = twinOf.get(el);
  if (!v) return false;
  twinSeen.add(el);
  if (!how || !v.isConnected || !seen(v)) return false; // no longer a pair: settleTwins drops it
  // A change of the counterpart re-walks the copy (its pairing may go).
  borrow(v, el);
  return true;
}

// twinPromoted reports whether el prints as the invisible control h: the
// pair holds, and el is not already that control itself.
function twinPromoted(el, h) {
  twinSeen.add(el);
  if (twinOf.get(h) !== el || !h.isConnected || !h.checkVisibility() || !unseenHow(h)) return false;
  if (h.closest('[aria-hidden="true"]')) return false;
  return twinRole(el) !== twinRole(h);
}

// visitTwin prints el, a visible counterpart, as the invisible control h
// it stands for: h's role, name, states and value, el's ref, and h's id
// (tw) for what compares the tree with the browser's. An editor's host
// prints the text it draws as its children; a list its items.
function visitTwin(el, h, st) {
  flush(st);
  const at = st.out.length;
  st.spentAt = walkSpent;
  walkCount++;
  const role = twinRole(h);
  const node = { r: role, i: idOf(el), k: 1, tw: idOf(h) };
  let name = accName(h, role, false)[0];
  const states = statesOf(h, role, walkActive);
  if (el === walkActive && !states.includes('focused')) states.push('focused');
  if (states.length) node.s = states.join(' ');
  const editor = twinEditor(el, h);
  const v = editor || h.localName === 'select' ? '' : valueOf(h, role);
  if (v) node.v = v;
  if (h.localName === 'select') {
    const kids = selectOptionNodes(h);
    if (kids.length) node.c = kids;
  } else if (editor || !LEAF_ROLES.has(role)) {
    const kids = [];
    walkInto(el, kids);
    if (kids.length) node.c = kids;
  }
  if (!name && NAME_FROM_CONTENT.has(role)) name = collapse(contentText(el, { inLabelledBy: false, includeHidden: false, skip: el }));
  if (!name && !node.c && !editor) {
    // A control with no name of its own is named by the text its
    // stand-in shows (a switch's "Dark mode", even where the page hides
    // that text from screen readers): a leaf prints no children to say it.
    const shown = collapse(el.innerText || '');
    if (shown.length <= 200) name = shown;
  }
  if (name) node.n = name;
  walkSpent += role.length + name.length + v.length + 8;
  // A change of the control (its state, its name) re-walks its stand-in.
  borrow(h, el);
  st.out.push(node);
  return at;
}

// twinEditor reports a pair where h takes the text an editor el draws
// (a textarea, an input, an edit-context element inside it).
function twinEditor(el, h) {
  return flatContains(el, h) && textField(h);
}

// textField reports an element a person types text into.
function textField(el) {
  if (el.isContentEditable || el.localName === 'textarea') return true;
  if (el.localName === 'input') return !NOT_TEXT_INPUTS.has(el.type);
  const r = explicitRole(el);
  return r === 'textbox' || r === 'searchbox';
}

// settleTwins matches the invisible controls the walk met with their
// counterparts, in one batch, checks the pairs the walk printed, and
// returns whether any pair changed (their elements are then marked for
// the walk that follows).
function settleTwins() {
  const cands = twinCands, met = twinSeen;
  twinCands = new Map();
  twinSeen = new Set();
  if (!cands.size && !twinOf.size) return false;
  let changed = false;
  const set = (h, v) => {
    const old = twinOf.get(h) || null;
    if (old === v) return;
    changed = true;
    markUp(h);
    if (old) { twinHost.delete(old); markUp(old); }
    twinOf.delete(h);
    if (!v) return;
    const other = twinHost.get(v);
    if (other) { twinOf.delete(other); markUp(other); }
    twinOf.set(h, v);
    twinHost.set(v, h);
    markUp(v);
  };
  for (const [h, v] of twinOf) if (!h.isConnected || !v.isConnected) set(h, null);
  // A pair the walk met whose copy it did not check again (it is inside
  // its counterpart, or in a list that was left out): still a copy?
  for (const x of met) {
    const h = twinOf.has(x) ? x : twinHost.get(x);
    if (h && !cands.has(h) && (!h.isConnected || !h.checkVisibility() || !unseenHow(h))) set(h, null);
  }
  if (cands.size) {
    withWalkState(() => {
      for (const [h, v] of matchTwins(cands)) set(h, v);
    });
  }
  return changed;
}

// matchTwins finds the counterparts of invisible controls (element →
// how unseen), in document order: a Map of each, and of the items of
// each list among them, to its counterpart or null.
function matchTwins(cands) {
  const out = new Map();
  // A counterpart stands for one copy (taken: counterpart → copy): those
  // of pairs not looked at again stay theirs.
  const taken = new Map();
  for (const [h, v] of twinOf) if (!cands.has(h)) taken.set(v, h);
  const ctx = { taken, scopes: new Map() };
  const one = (h, how) => {
    const v = matchOne(h, how, ctx);
    if (v) taken.set(v, h);
    out.set(h, v);
    return v;
  };
  for (const [h, how] of cands) {
    if (out.has(h)) continue;
    const role = twinRole(h);
    if (!TWIN_LISTS.has(role)) { one(h, how); continue; }
    // A list: its items first; it stands where the items' counterparts
    // are gathered (their nearest common ancestor).
    const vs = [];
    for (const k of h.querySelectorAll('*')) {
      if (out.has(k) || !TWIN_ROLES.has(twinRole(k)) || TWIN_LISTS.has(twinRole(k))) continue;
      const kh = cands.get(k) || unseenHow(k);
      if (!kh) continue;
      const kv = one(k, kh);
      if (kv) vs.push(kv);
    }
    let v = null;
    if (vs.length) {
      v = vs.length === 1 ? flatParent(vs[0]) : vs.reduce(commonAncestor);
      if (!usable(v, h, role, taken)) v = null;
    }
    if (v) taken.set(v, h);
    out.set(h, v);
  }
  return out;
}

// usable reports whether v may stand for h: a visible element of the
// page's content, not standing for another copy, not a control of another
// kind (one of the same kind is shown as it is, and h left out), and not
// part of one (the value a combobox shows is no option of its closed
// list, whatever its text).
function usable(v, h, role, taken) {
  if (!v || v.nodeType !== 1 || v === document.body || v === document.documentElement) return false;
  const other = taken.get(v);
  if ((other && other !== h) || v === h || !seen(v)) return false;
  const own = twinRole(v);
  if (own !== role && ACTION_ROLES.has(own)) return false;
  for (let p = flatParent(v); p && p.nodeType === 1 && p !== document.body; p = flatParent(p)) {
    if (p === h || flatContains(p, h)) break; // (h's own wrapper or label)
    const r = twinRole(p);
    if (ACTION_ROLES.has(r) && !TWIN_LISTS.has(r)) return false;
  }
  return true;
}

function commonAncestor(a, b) {
  const up = new Set();
  for (let x = a; x; x = flatParent(x)) up.add(x);
  for (let x = b; x; x = flatParent(x)) if (up.has(x)) return x;
  return null;
}

// matchOne finds the visible counterpart of one invisible control, or
// null: for a checkbox or radio its label, or the wrapper that draws it;
// for a text field the editor that holds it; for an item (option, tab,
// menu item, button, link) the visible element nearby with the same
// text; otherwise the wrapper that draws it.
function matchOne(h, how, ctx) {
  const role = twinRole(h);
  if (CHECKABLE.has(role)) {
    // Whether it lies over or under what draws it, a click on its label
    // or on the wrapper that holds it reaches it.
    for (const l of h.labels || []) if (holdsOnly(l, h, false) && usable(l, h, role, ctx.taken)) return l;
    return wrapper(h, role, ctx, false);
  }
  if (how === 'clear') {
    // Transparent, with a size: it takes the clicks where it lies (a file
    // input or select spread over what draws it) unless it is a copy of
    // items shown elsewhere.
    return NAME_TWINS.has(role) ? byName(h, role, ctx) : null;
  }
  if (textField(h)) return editorOf(h, role, ctx);
  if (NAME_TWINS.has(role)) {
    const v = byName(h, role, ctx);
    if (v) return v;
  }
  return wrapper(h, role, ctx, false);
}

// inBox reports whether h lies in v's box (h's corner: a clipped copy
// keeps its place in the layout).
function inBox(v, h) {
  const a = v.getBoundingClientRect(), b = h.getBoundingClientRect();
  return b.left >= a.left - 2 && b.left <= a.right + 2 && b.top >= a.top - 2 && b.top <= a.bottom + 2;
}

// wrapper is the nearest visible ancestor that draws h where it lies:
// within a few levels, big enough to point at, holding no other control
// (a text field: no other text field), or null.
function wrapper(h, role, ctx, text) {
  let level = 0;
  for (let p = flatParent(h); p && p.nodeType === 1 && level < 4; p = flatParent(p), level++) {
    if (p === document.body || p === document.documentElement) return null;
    if (!seen(p)) continue;
    const r = p.getBoundingClientRect();
    const min = text ? 8 : 4;
    if (r.width < min || r.height < min || !inBox(p, h)) return null;
    return holdsOnly(p, h, text) && usable(p, h, role, ctx.taken) ? p : null;
  }
  return null;
}

// holdsOnly reports whether p holds no control but h (with text, no text
// field but h): a stand-in prints as h alone, and whatever else it held
// would be lost from the snapshot.
function holdsOnly(p, h, text) {
  for (const c of p.querySelectorAll(text ? 'input, textarea, select, [contenteditable]' : OTHER_CONTROLS)) {
    if (c !== h && !flatContains(h, c) && !(text && !textField(c))) return false;
  }
  return true;
}

// editorOf is the editor a hidden text field takes the keys for: an
// editable or textbox ancestor, or the visible element that holds it
// where it lies.
function editorOf(h, role, ctx) {
  let level = 0;
  for (let p = flatParent(h); p && p.nodeType === 1 && level < 4; p = flatParent(p), level++) {
    if (p === document.body) break;
    if ((p.isContentEditable || explicitRole(p) === 'textbox' || explicitRole(p) === 'searchbox') && usable(p, h, role, ctx.taken)) return p;
  }
  return wrapper(h, role, ctx, true);
}

// byName finds, near h, the visible element whose text is h's name: in
// each visible ancestor's subtree in turn (the nearest that has one
// wins), then in what h or its hidden ancestors point at with
// aria-controls or aria-owns. The outermost element with exactly that
// text is the counterpart (an item, not the label inside it).
function byName(h, role, ctx) {
  const name = accName(h, role, false)[0];
  if (!name) return null;
  const scopes = [];
  let level = 0;
  let p = flatParent(h);
  for (; p && p.nodeType === 1 && level < twinClimb; p = flatParent(p), level++) {
    if (p === document.body || p === document.documentElement) break;
    if (seen(p)) scopes.push(p);
  }
  for (let x = h; x && x.nodeType === 1 && x !== p; x = flatParent(x)) {
    for (const a of ['aria-controls', 'aria-owns']) {
      const ids = x.getAttribute(a);
      if (!ids) continue;
      for (const id of ids.trim().split(/\s+/)) {
        const t = id && x.getRootNode().getElementById ? x.getRootNode().getElementById(id) : null;
        if (t && !flatContains(t, h) && seen(t)) scopes.push(t);
      }
    }
  }
  for (const s of scopes) {
    const v = firstSeen(textIndex(s, ctx), name);
    if (v && usable(v, h, role, ctx.taken)) return v;
    if (v) return null;
  }
  return null;
}

// textIndex maps each short text in scope to the elements whose whole
// text it is. It goes by text nodes (the first twinScan of them, light
// DOM) and up from each through the elements whose text stays short, so
// that no long text is ever built more than once.
function textIndex(scope, ctx) {
  let idx = ctx.scopes.get(scope);
  if (idx) return idx;
  idx = new Map();
  ctx.scopes.set(scope, idx);
  const done = new Set();
  const tw = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
  for (let t = tw.nextNode(), n = 0; t && n < twinScan; t = tw.nextNode(), n++) {
    if (!READABLE.test(t.data)) continue;
    for (let e = t.parentElement; e && e !== scope && !done.has(e); e = e.parentElement) {
      done.add(e);
      const raw = e.textContent;
      if (raw.length > 400) break; // (a name is short: nothing above holds one)
      const text = collapse(raw);
      const list = idx.get(text);
      if (list) list.push(e); else idx.set(text, [e]);
    }
  }
  return idx;
}

// firstSeen is the element a person sees with exactly that text, the
// outermost (an item, not the label inside it), or null.
function firstSeen(idx, text) {
  let best = null;
  for (const e of idx.get(text) || []) {
    // (An ancestor precedes what it holds.)
    if (best && !(best.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_PRECEDING)) continue;
    if (seen(e)) best = e;
  }
  return best;
}

// ---- pairs, for actions and locators -----------------------------------
// What actions and locators need of the pairs the last walk made: where
// an element's input goes and where a person points for it.

// twinInput is the invisible control el stands for (el printed in its
// stead), or null.
function twinInput(el) {
  const h = twinHost.get(el);
  // (A control of the same kind is shown as it is: it is its own input.)
  return h && h.isConnected && twinOf.get(h) === el && twinRole(el) !== twinRole(h) ? h : null;
}

// twinShown is the visible counterpart that prints for el, an invisible
// control the last walk left out, or null.
function twinShown(el) {
  const v = twinOf.get(el);
  return v && v.isConnected && twinHost.get(v) === el ? v : null;
}

// twinFor is the counterpart of el when a person cannot see el: the one
// the last walk paired it with, or one found now (el was not walked, or
// only changed since); null when el is seen or has none.
function twinFor(el) {
  const how = unseenHow(el);
  if (!how) return null;
  const v = twinShown(el);
  if (v && seen(v)) return v;
  return withWalkState(() => matchOne(el, how, { taken: new Map(twinHost), scopes: new Map() }) || (how === 'tiny' && textField(el) ? caretHost(el) : null));
}

// caretHost is the editor an invisible text field takes the keys for
// when that editor holds other fields as well (a find panel open inside
// a code editor), so that it stands for the field in no snapshot: the
// nearest visible ancestor, a few levels up, that draws a text surface
// where the field lies (the field sits at the editor's caret). A person
// clicks that surface to type there; an action on the field acts on the
// editor in the same way. A form's hidden field (a honeypot) lies at no
// such place. null when there is none.
function caretHost(h) {
  const r = h.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  let level = 0;
  for (let p = flatParent(h); p && p.nodeType === 1 && level < 4; p = flatParent(p), level++) {
    if (p === document.body || p === document.documentElement) return null;
    if (!seen(p)) continue;
    return visibleBox(p) && textSurfaceAt(p, h, x, y) ? p : null;
  }
  return null;
}

// textSurfaceAt reports whether what p draws at (x, y) — p, or the
// element its children stack there, a few levels down (the last child
// whose box holds the point is the one on top) — is a surface drawn for
// typing (a text cursor) that is no field itself. h is left out.
function textSurfaceAt(p, h, x, y) {
  for (let e = p, depth = 0; e && depth < 8; depth++) {
    if (cursorOf(e) === 'text' && !textField(e)) return true;
    let next = null;
    for (const c of e.children) {
      if (c === h || flatContains(c, h)) continue;
      const b = c.getBoundingClientRect();
      if (x >= b.left && x <= b.right && y >= b.top && y <= b.bottom) next = c;
    }
    e = next;
  }
  return false;
}

// reachInput is how a verb that does not point (fill, type, focus,
// select) reaches the control behind el, with the same idea of what a
// person can see as a click has (prepare): {ok, input, host} where input
// takes the value or keys and host is the visible element that stands
// for it (null when el is seen itself), or a failure. An element that
// stands for an invisible control reaches that control; an invisible
// control its counterpart shows is reached as it is; one drawn one pixel
// or less across, or placed off the page, with no counterpart is refused,
// as a click on it is.
function reachInput(el) {
  const h = twinInput(el);
  if (h) return visibleBox(el) ? { ok: true, input: h, host: el } : fail('hidden', describe(el));
  const how = unseenHow(el);
  if (how) {
    // (A native toggle drawn by a label or wrapper that holds more than
    // it is clicked there too: see toggleProxy.)
    const v = twinFor(el) || toggleProxy(el);
    if (v) return { ok: true, input: el, host: v };
    if (how === 'tiny') return fail('hidden', describe(el) + ', drawn one pixel or less across, with no visible counterpart');
  }
  if (!visibleBox(el)) return fail('hidden', describe(el));
  if (offPage(el)) return fail('hidden', describe(el) + ', placed off the page where nothing scrolls to it');
  return { ok: true, input: el, host: null };
}
