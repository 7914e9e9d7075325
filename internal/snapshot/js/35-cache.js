// ---- the last walk ---------------------------------------------------------
// A snapshot costs what changed since the last one. The agent keeps its
// last walk of the document and, for every block element it walked, that
// element's own output (memo); the next walk re-walks only the elements a
// change touched and their ancestors, and takes every other block's output
// from the memo: same nodes, same ids, so the same text and refs.
//
// What it trusts, and why:
//   - a MutationObserver on the document and on every open shadow root the
//     walks have entered. A change of nodes or text dirties its element and
//     the element's ancestors in the flat tree (their output holds it); a
//     changed attribute (class and style included) dirties the element's
//     whole subtree, since it restyles its descendants; an added element is
//     walked whole (moved elements keep their identity but not their
//     context); a light-DOM change under a shadow host re-walks the host
//     (slots reassign);
//   - what the walk borrowed: a name taken from a <label> or an
//     aria-labelledby target elsewhere is re-read when that source
//     changes, and when a label for the control or an element with an id
//     the name asked for arrives;
//   - the page's style sheets, read at each full walk: when a selector can
//     restyle an element for a change elsewhere — sibling combinators (+,
//     ~), structural pseudo-classes (:nth-child, :first-child, :empty…) —
//     the change's parent is walked whole, and a :has() selector (which
//     restyles ancestors) or a sheet that cannot be read makes every
//     change a full walk;
//   - events and states that change what a snapshot shows without a
//     mutation (37-signals.js): an element's animation or transition, a
//     <details> or popover toggling, an element's own scroll, an element's
//     resource loading re-walk that element's subtree; the pointer moving
//     re-walks the elements whose :hover state changed, and focus moving
//     the old and new focused elements (their chains, when a style sheet
//     has :focus rules); a form control's value or state, read at each
//     snapshot (a script may set it as a property), re-walks that control
//     (and its subtree and parent when sheets style :checked and the
//     like); resizing, full screen, visibility, history moves, the page's
//     load and fonts loading make the next walk a full one. The window's
//     scroll is no signal: a whole-page walk does not depend on it, and
//     reading it would force the page to lay out every change again before
//     the walk even starts;
//   - what a custom element's ElementInternals say (role, name, states),
//     which no mutation reports: the engine asks Chromium again before
//     each snapshot and an answer that changed re-walks its element
//     (25-internals.js);
// A full walk is also made when the walk options change, a modal dialog is
// open (everything outside it is inert), the document uses aria-owns, an
// id, for, aria-owns or aria-labelledby attribute changes (what refers to
// what), a style sheet comes or goes, or more than maxChanges records
// arrived since the last walk (a page rebuilt wholesale is walked
// wholesale).
// What it does not see — a style sheet changed through the CSSOM
// (insertRule), a closed shadow root, a shadow root attached to an element
// already walked with nothing else changing, an empty box elsewhere that
// gains or loses its size from a change's reflow — is rare enough to be
// accepted; a caller who suspects it asks for a fresh walk (noCache).
let lastWalk = null; // { key, seq, url, count, nodes (the tree), view, active, controls }
let walkSeq = 0;
// memo maps an element to its output: its node or, for any other output,
// an array of nodes, with what the walk counted of it under COUNT (nodes)
// and SPENT (see walkBudget): symbols, which no JSON of the node shows,
// and no object more for each of thousands of blocks.
let memo = new WeakMap();
const COUNT = Symbol('count');
const SPENT = Symbol('spent');
let memoOn = false; // the walk takes outputs from the memo
let memoRecord = false; // the walk records outputs in the memo
let freshBelow = 0; // > 0 inside a subtree that must be walked whole
let dirtyAll = true;
let dirtyEls = new Set(); // elements whose own output changed (and their ancestors)
let deepDirty = new Set(); // elements whose whole subtree is walked afresh
let changes = 0; // mutation records since the last walk
let borrowers = new Map(); // element → Set of elements whose names read it
let sheetRisk = { sibling: true, structural: true, has: true, hover: true, focus: true, form: true };
const maxChanges = 1000;
// Attributes that say what refers to what: a change re-reads everything.
const WIDE_ATTRS = new Set(['id', 'for', 'aria-owns', 'aria-labelledby']);

const walkObserver = new MutationObserver((records) => noteRecords(records));
const watchedRoots = new WeakSet();
const shadowRootsSeen = [];
let watching = false;

function watchRoot(root) {
  if (watchedRoots.has(root)) return;
  watchedRoots.add(root);
  if (root !== document) shadowRootsSeen.push(root);
  walkObserver.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
}

// borrow notes that the output of el reads from (a label, a labelling
// element, the control a label names): a change in from re-walks el.
function borrow(from, el) {
  if (!memoRecord || from === el) return;
  let set = borrowers.get(from);
  if (!set) borrowers.set(from, set = new Set());
  set.add(el);
}

// want notes that el's name asks for an element with this id that the
// document does not have: one that comes re-walks el.
let wanted = new Map(); // id → Set of elements

function want(id, el) {
  if (!memoRecord) return;
  let set = wanted.get(id);
  if (!set) wanted.set(id, set = new Set());
  set.add(el);
}

// markNewSources dirties what an added element may now name: the control
// of each label it holds, and whoever asked for an id it holds.
function markNewSources(n) {
  const labels = n.localName === 'label' ? [n] : n.firstElementChild ? n.querySelectorAll('label') : [];
  for (const l of labels) if (l.control) markUp(l.control);
  for (const [id, set] of wanted) {
    if (n.id === id || (n.firstElementChild && n.querySelector('[id="' + CSS.escape(id) + '"]'))) {
      for (const e of set) markUp(e);
    }
  }
}

// markUp dirties node's element and its flat-tree ancestors, and what
// borrowed from any of them. An element already dirty has its ancestors
// dirty too, so the climb stops there.
function markUp(node) {
  for (let x = node; x; x = flatParent(x)) {
    if (x.nodeType !== 1) continue;
    if (dirtyEls.has(x)) return;
    dirtyEls.add(x);
    const b = borrowers.get(x);
    if (b) for (const e of b) markUp(e);
  }
}

function markDeep(el) {
  if (!el || el.nodeType !== 1) return;
  deepDirty.add(el);
  markUp(el);
}

// markSources dirties the borrowers of every source inside el (a change
// of el's attributes may hide or show them).
function markSources(el) {
  for (const [from, set] of borrowers) {
    if (from !== el && !flatContains(el, from)) continue;
    for (const e of set) markUp(e);
  }
}

function isSheet(n) {
  return n.nodeType === 1 && (n.localName === 'style' || (n.localName === 'link' && /stylesheet/i.test(n.rel || '')));
}

// noteRecords turns mutation records into what the next walk re-walks.
function noteRecords(records) {
  for (const r of records) {
    if (r.type === 'characterData') continue;
    if (r.type === 'childList') {
      unswept = true;
      // Text replaced (textContent, a text node added or removed) leaves
      // the elements as they were.
      if (!hasElement(r.addedNodes) && !hasElement(r.removedNodes)) continue;
    }
    structChanged = true;
  }
  if (dirtyAll || !records.length) return;
  changes += records.length;
  if (changes > maxChanges || sheetRisk.has) { dirtyAll = true; return; }
  for (const r of records) {
    const t = r.target;
    if (r.type === 'characterData') {
      if (t.parentNode && isSheet(t.parentNode)) { dirtyAll = true; return; }
      markUp(flatParent(t));
      continue;
    }
    if (r.type === 'attributes') {
      if (WIDE_ATTRS.has(r.attributeName) || isSheet(t)) { dirtyAll = true; return; }
      markDeep(t);
      if (r.attributeName === 'slot' || sheetRisk.sibling) markDeep(t.parentNode && t.parentNode.nodeType === 11 ? t.parentNode.host : t.parentElement);
      if (borrowers.size) markSources(t);
      continue;
    }
    // childList
    const el = t.nodeType === 11 ? t.host : t;
    if (!el || el.nodeType !== 1) { dirtyAll = true; return; }
    for (const list of [r.addedNodes, r.removedNodes]) {
      for (const n of list) {
        if (isSheet(n) || (n.nodeType === 1 && n.querySelector('style,link[rel~="stylesheet" i]'))) { dirtyAll = true; return; }
      }
    }
    if ((el.shadowRoot && t === el) || sheetRisk.sibling || sheetRisk.structural) markDeep(el);
    else markUp(el);
    for (const n of r.addedNodes) {
      markDeep(n);
      if (n.nodeType === 1) markNewSources(n);
    }
    if (borrowers.size) for (const n of r.removedNodes) if (n.nodeType === 1) markSources(n);
  }
}

function hasElement(nodes) {
  for (const n of nodes) if (n.nodeType === 1) return true;
  return false;
}

// readSheetRisk finds which kinds of selector in the page's style sheets
// can restyle an element for a change elsewhere (see above).
function readSheetRisk() {
  const risk = { sibling: false, structural: false, has: false, hover: false, focus: false, form: false };
  const seen = new Set();
  const rules = (list) => {
    for (const rule of list) {
      if (risk.has) return;
      const sel = rule.selectorText;
      if (sel) {
        if (sel.includes(':has(')) risk.has = true;
        if (/[+~]/.test(sel.replace(/\[[^\]]*\]/g, ''))) risk.sibling = true;
        if (/:(nth-|first-|last-|only-|empty)/.test(sel)) risk.structural = true;
        if (/:(hover|active)/.test(sel)) risk.hover = true;
        if (/:focus/.test(sel)) risk.focus = true;
        if (FORM_STATES.test(sel)) risk.form = true;
      }
      if (rule.styleSheet) sheet(rule.styleSheet);
      if (rule.cssRules) rules(rule.cssRules);
    }
  };
  const sheet = (s) => {
    if (!s || seen.has(s)) return;
    seen.add(s);
    let list;
    try { list = s.cssRules; } catch (e) { risk.has = true; return; } // another origin's: unknown
    rules(list);
  };
  for (const root of [document, ...shadowRootsSeen]) {
    for (const s of root.styleSheets) sheet(s);
    for (const s of root.adoptedStyleSheets || []) sheet(s);
  }
  return risk;
}

// visit walks el into st, taking its output from the memo when nothing
// touched it since it was recorded.
function visit(el, st) {
  if (walkBudget && walkSpent > walkBudget) { walkCut = true; return; }
  if (memoOn && !freshBelow && !inAriaHidden && !st.mute && !dirtyEls.has(el)) {
    const m = memo.get(el);
    // (A block the budget would cut inside is walked, to be cut there.)
    if (m && !(walkBudget && walkSpent + m[SPENT] > walkBudget)) {
      flush(st);
      if (Array.isArray(m)) for (const n of m) st.out.push(n);
      else st.out.push(m);
      walkCount += m[COUNT];
      walkSpent += m[SPENT];
      return;
    }
  }
  const deep = deepDirty.has(el);
  if (deep) freshBelow++;
  const count = walkCount;
  try {
    const at = visitEl(el, st);
    if (memoRecord) {
      // An element walked without a record of its own (folded into its
      // parent's text, hidden) must not keep an older one.
      // (Nor one cut short by a budget.)
      if (at !== undefined && !inAriaHidden && !st.mute && !walkCut) {
        // One node, the usual output, is kept as it is (no array each),
        // and keyed for the caller (see deltaJSON).
        const one = st.out.length === at + 1 && typeof st.out[at] === 'object' ? st.out[at] : null;
        if (one && !one.m) one.m = ++memoKey;
        const c = walkCount - count, sp = walkSpent - st.spentAt;
        let m = one;
        if (!one || (one[COUNT] !== undefined && (one[COUNT] !== c || one[SPENT] !== sp))) m = one ? [one] : st.out.slice(at);
        m[COUNT] = c;
        m[SPENT] = sp;
        memo.set(el, m);
      } else {
        memo.delete(el);
      }
    }
  } finally {
    if (deep) freshBelow--;
  }
}

// controlStates is what no event reports of the form controls: their
// values and states as properties, CONTROL_FIELDS entries a control.
const CONTROL_FIELDS = 6;

function controlStates() {
  const out = [];
  // Shadow roots whose host has left the document are let go (their
  // controls show in no walk), so a page that makes and drops components
  // does not grow the list.
  let keep = 0;
  for (const r of shadowRootsSeen) {
    if (r.host && r.host.isConnected) shadowRootsSeen[keep++] = r;
    else watchedRoots.delete(r); // seen again if its host comes back
  }
  shadowRootsSeen.length = keep;
  for (const root of [document, ...shadowRootsSeen]) {
    for (const el of root.querySelectorAll('input,textarea,select,option')) {
      out.push(el, el.value, el.checked, el.indeterminate, el.selected, el.selectedIndex);
    }
  }
  return out;
}

// viewKey is the window's size, which resize events report only at the
// next frame. (Reading it does not lay the page out; scrollX would.)
function viewKey() {
  return innerWidth + ',' + innerHeight;
}

function sameStates(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function pageJSON(count, seq, nodes, cut, ax) {
  const struct = seq && lastWalk ? lastWalk.struct : 0;
  return '{"url":' + JSON.stringify(location.href) + ',"title":' + JSON.stringify(document.title) +
    ',"count":' + count + ',"seq":' + seq + ',"struct":' + struct + ',"gone":' + JSON.stringify(sweepIfMoved()) + (cut ? ',"cut":true' : '') +
    (ax && ax.length ? ',"ax":' + JSON.stringify(ax) : '') + (axPlain.length ? ',"axPlain":' + JSON.stringify(takePlain()) : '') +
    (nodes === null ? ',"same":true' : ',"nodes":' + nodes) + '}';
}

// A kept walk's nodes never change once the walk is done (a changed
// element makes new ones). A block's node gets a key (m) when the memo
// records it; the caller that has walk opts.have keeps the keyed nodes of
// that walk's tree, so a later walk sends a reused node as {"@": key}
// instead of its content. A key the caller lacks (a node kept in the memo
// but missing from that tree) is its cue to ask again without have.
let memoKey = 0;

// The document's structure (its elements and their attributes) changes
// less often than its text: struct numbers the walks after which it did,
// for what depends on nothing else (the caller's locator facts).
let structChanged = true;
// unswept: nodes came or went since the last sweep (without that, no
// element with an id can have left the document, and a sweep of every id
// would find nothing).
let unswept = true;

function sweepIfMoved() {
  if (!unswept) return [];
  unswept = false;
  return sweep();
}

function deltaJSON(list, floor) {
  let out = '[';
  for (let i = 0; i < list.length; i++) {
    if (i) out += ',';
    const n = list[i];
    if (typeof n === 'string') out += JSON.stringify(n);
    else if (n.m && n.m <= floor) out += '{"@":' + n.m + '}';
    else if (n.c) {
      const c = n.c;
      n.c = undefined;
      const j = JSON.stringify(n);
      n.c = c;
      out += (j === '{}' ? '{' : j.slice(0, -1) + ',') + '"c":' + deltaJSON(c, floor) + '}';
    } else out += JSON.stringify(n);
  }
  return out + ']';
}

// snapshot walks the document (or the element with the given id) and
// returns the tree as a JSON string: one string crosses the protocol much
// faster than a structured value. A whole-document walk is numbered (seq);
// when nothing changed since walk opts.have, the reply says only "same".
// A scoped, viewport-only or noCache walk is made afresh and leaves the
// kept walk as it was. A walk with a budget (opts.budget, about the
// characters the caller will keep) stops once it has made that much (see
// 36-slices.js), and is kept as the walk for that budget. A whole walk of
// a big page is made in slices that let the page run between them (the
// reply is then a promise), unless a budget will stop it well before its
// end.
function snapshot(opts) {
  opts = opts || {};
  // A walk in slices is under way: this one follows it.
  if (sliced) return sliced.then(() => snapshot(opts));
  // The invisible controls this snapshot's walks meet (32-twins.js).
  twinCands = new Map();
  twinSeen = new Set();
  startWatching();
  noteRecords(walkObserver.takeRecords());
  // The engine's answers about custom elements (25-internals.js): a
  // changed one re-walks its element.
  if (opts.ax) axSet(opts.ax);
  if (opts.noCache || opts.viewport || opts.root) return pureWalk(opts);
  const key = (opts.all ? 'all' : 'default') + ':' + (opts.budget || 0);
  const last = lastWalk;
  const controls = controlStates();
  if (!last || last.key !== key || last.url !== location.href || last.view !== viewKey()) dirtyAll = true;
  else {
    const active = deepActiveElement();
    if (last.active !== active) focusMoved(last.active, active);
    if (!sameStates(last.controls, controls)) controlsChanged(last.controls, controls);
  }
  if (last && !dirtyAll && !dirtyEls.size) {
    return pageJSON(last.count, last.seq, opts.have === last.seq ? null : JSON.stringify(last.tree), last.cut);
  }
  if (dirtyAll && bigDocument(opts.budget)) {
    sliced = walkInSlices(opts, key, last).finally(() => { sliced = null; });
    return sliced;
  }
  return keptWalk(opts, key, controls, last, dirtyAll, false);
}

// pureWalk walks afresh and keeps nothing of it.
function pureWalk(opts) {
  let w = walkFresh(opts, false, false);
  // Pairs of invisible controls and their counterparts that changed: the
  // walk is made again with them (and the kept walk will re-walk them).
  if (!w.error && settleTwins()) w = walkFresh(opts, false, false);
  return w.error ? JSON.stringify({ error: w.error }) : pageJSON(w.count, 0, JSON.stringify(w.tree), w.cut, w.ax);
}

// keptWalk walks the document, whole (full) or taking what did not change
// from the memo, and keeps the walk. Fresh says no node of it predates
// this walk (it was made in slices), so none is sent by key.
function keptWalk(opts, key, controls, last, full, fresh) {
  // The caller has the last walk's keyed nodes: a walk that reused some
  // sends them by key.
  const floor = !fresh && last && opts.have === last.seq ? last.keyEnd : 0;
  if (full) {
    memo = new WeakMap();
    borrowers = new Map();
    wanted = new Map();
    sheetRisk = readSheetRisk();
  } else {
    // A dirty element not walked this time must not be taken from the
    // memo later: its recorded output is out of date.
    for (const el of dirtyEls) memo.delete(el);
  }
  let w = walkFresh(opts, !full, true);
  // Pairs of invisible controls and their counterparts that the walk
  // found changed are walked again at once, the rest taken from the walk
  // just made (twice at most: a pair that keeps changing is left to the
  // next snapshot).
  for (let i = 0; i < 2 && !w.error && twinsMoved(); i++) w = walkFresh(opts, true, true);
  lastWalk = null;
  dirtyAll = true;
  dirtyEls = new Set();
  deepDirty = new Set();
  changes = 0;
  if (w.error) return JSON.stringify({ error: w.error });
  // Not recorded (a modal was open): nothing is taken from the memo until
  // a walk records it again.
  if (!w.memo) memo = new WeakMap();
  const seq = ++walkSeq;
  lastWalk = { key, seq, url: location.href, count: w.count, tree: w.tree, view: viewKey(), cut: w.cut,
    active: deepActiveElement(), controls, keyEnd: memoKey, struct: structChanged || !last ? seq : last.struct };
  structChanged = false;
  dirtyAll = false;
  // What came before the walk is in it; the walk itself changes nothing.
  walkObserver.takeRecords();
  return pageJSON(w.count, lastWalk.seq, full || !floor ? JSON.stringify(w.tree) : deltaJSON(w.tree, floor), w.cut, w.ax);
}

// twinsMoved settles the pairs of invisible controls after a kept walk
// (settleTwins) and, when they changed, readies the walk of what they
// touched: the elements marked, and their outputs out of the memo.
function twinsMoved() {
  dirtyEls = new Set();
  deepDirty = new Set();
  if (!settleTwins()) return false;
  for (const el of dirtyEls) memo.delete(el);
  return true;
}

// rootText gives text that lies directly in the document's root (the
// body) the root's element id: no element of its own holds it, and an
// agent must still be able to click, read or screenshot it.
function rootText(root, nodes) {
  for (let i = 0; i < nodes.length; i++) {
    if (typeof nodes[i] === 'string') nodes[i] = { r: 'text', n: nodes[i], i: idOf(root) };
  }
}

// walkFresh walks the document (or opts.root) with a new walk state. With
// cache, the walk records its blocks' outputs in the memo and, with reuse
// too, takes the untouched ones from it; neither while a modal dialog is
// open or aria-owns moves elements around.
function walkFresh(opts, reuse, cache) {
  walkActive = deepActiveElement();
  walkAll = !!opts.all;
  walkViewport = !!opts.viewport;
  walkCount = 0;
  walkBudget = opts.budget > 0 ? opts.budget : 0;
  walkSpent = 0;
  walkCut = false;
  // (A walk in slices has begun the list already: see walkInSlices.)
  const ownList = axNew === null;
  if (ownList) axNew = [];
  try {
    return withWalkState(() => {
      const memoOK = cache && !walkModal && !ownsMap;
      memoOn = reuse && memoOK;
      memoRecord = memoOK;
      let root = document.body || document.documentElement;
      if (opts.root) {
        root = byId(opts.root);
        if (!root || !root.isConnected) return { error: 'stale' };
      }
      const nodes = [];
      if (root) {
        if (opts.root) {
          const st = { out: nodes, buf: '', carrier: null };
          visit(root, st);
          flush(st);
        } else {
          walkInto(root, nodes);
          rootText(root, nodes);
        }
      }
      settleCells();
      return { tree: nodes, count: walkCount, memo: memoOK, cut: walkCut, ax: axNew };
    });
  } finally {
    walkActive = null;
    walkAll = false;
    walkViewport = false;
    pendingCells = [];
    memoOn = false;
    memoRecord = false;
    freshBelow = 0;
    walkBudget = 0;
    if (ownList) axNew = null;
  }
}
