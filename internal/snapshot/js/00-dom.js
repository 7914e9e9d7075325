// loupe page agent. The files in this directory are concatenated in name
// order inside one function body and evaluated once per document in an
// isolated world, so the page can neither see nor tamper with it. The last
// file returns the agent object, which is kept as globalThis.__loupe.

// ---- element ids ---------------------------------------------------------
// An element gets a small integer id the first time a snapshot reports it
// and keeps it for the life of the document, so refs stay stable across
// snapshots. Elements are held weakly: a removed, collected element simply
// stops resolving.
const idOfEl = new WeakMap();
const elOfId = new Map();
let nextId = 1;

function idOf(el) {
  let id = idOfEl.get(el);
  if (id === undefined) {
    id = nextId++;
    idOfEl.set(el, id);
    elOfId.set(id, new WeakRef(el));
  }
  return id;
}

// sweep forgets the ids of elements that have left the document (or been
// collected) and returns them, so that the refs bound to them can go too:
// a page that replaces its nodes all the time would otherwise grow both
// tables without end.
function sweep() {
  const gone = [];
  for (const [id, r] of elOfId) {
    const el = r.deref();
    if (el && el.isConnected) continue;
    elOfId.delete(id);
    if (el) idOfEl.delete(el);
    gone.push(id);
  }
  return gone;
}

function byId(id) {
  const r = elOfId.get(id);
  const el = r && r.deref();
  return el || null;
}

// ---- flat tree -----------------------------------------------------------
// Children in rendering order: an open shadow root replaces the host's light
// children, and a slot stands for the nodes assigned to it (or its fallback
// content when nothing is assigned). During a walk, an element another one
// owns (aria-owns) is a child of its owner, after the owner's own children,
// and not of its DOM parent.
function childNodes(node) {
  let list = node.childNodes;
  if (node.nodeType === 1) {
    const el = node;
    if (el.shadowRoot) {
      list = el.shadowRoot.childNodes;
      if (!pseudoAny && rootHasPseudo(el.shadowRoot)) pseudoAny = true;
      watchRoot(el.shadowRoot);
    }
    else if (el.localName === 'slot') {
      const assigned = el.assignedNodes({ flatten: false });
      if (assigned.length) list = assigned;
    }
  }
  if (!ownedSet) return list;
  const own = ownsMap.get(node);
  let moved = false;
  for (const c of list) if (ownedSet.has(c)) { moved = true; break; }
  if (!moved && !own) return list;
  const out = [];
  for (const c of list) if (!ownedSet.has(c)) out.push(c);
  if (own) out.push(...own);
  return out;
}

// ---- aria-owns -------------------------------------------------------------
// ownsMap maps an owner to the elements it owns, ownedSet holds them; both
// exist only during a walk of a document that uses aria-owns. As in
// Chromium, an element has one owner (the first), and an element cannot
// own itself or anything it is owned by.
let ownsMap = null;
let ownedSet = null;

function collectOwns() {
  const owners = document.querySelectorAll('[aria-owns]');
  if (!owners.length) return;
  const map = new Map(), owned = new Set(), ownerOf = new Map();
  const owns = (a, b) => {
    // Whether b is a (possibly owned) ancestor of a.
    for (let x = a; x; x = ownerOf.get(x) || flatParent(x)) if (x === b) return true;
    return false;
  };
  for (const o of owners) {
    const list = [];
    for (const id of o.getAttribute('aria-owns').trim().split(/\s+/)) {
      const t = id ? document.getElementById(id) : null;
      if (!t || owned.has(t) || owns(o, t)) continue;
      owned.add(t);
      ownerOf.set(t, o);
      list.push(t);
    }
    if (list.length) map.set(o, list);
  }
  if (owned.size) { ownsMap = map; ownedSet = owned; }
}

// Parent in the flat tree (slot for assigned nodes, host for shadow roots).
function flatParent(node) {
  if (node.assignedSlot) return node.assignedSlot;
  const p = node.parentNode;
  if (p && p.nodeType === 11 && p.host) return p.host;
  return p;
}

function deepActiveElement() {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return a;
}

// contains() that crosses shadow boundaries and slots, upward from inner.
function flatContains(outer, inner) {
  for (let n = inner; n; n = flatParent(n)) if (n === outer) return true;
  return false;
}

// ---- style ---------------------------------------------------------------
// One walk reads each element's computed style at most once, and the
// properties every element is asked for (display, visibility) once too:
// each read of a computed property is a call into the engine.
let styleCache = null;

function styleRec(el) {
  let r = styleCache && styleCache.get(el);
  if (!r) {
    const s = getComputedStyle(el);
    r = { s, display: s.display, visibility: s.visibility };
    if (styleCache) styleCache.set(el, r);
  }
  return r;
}

function styleOf(el) {
  return styleRec(el).s;
}

const SKIP_TAGS = new Set(['script', 'style', 'template', 'noscript', 'head', 'meta', 'link', 'base', 'title', 'datalist', 'param', 'source', 'track']);

// SVG elements that are never rendered themselves (definitions, metadata).
const SVG_SKIP = new Set(['desc', 'metadata', 'defs', 'symbol', 'clipPath', 'mask', 'pattern', 'marker', 'linearGradient',
  'radialGradient', 'filter']);

// excluded reports whether an element and its whole subtree are absent from
// the accessibility tree: not rendered, or aria-hidden (except while the
// walk prints a visible aria-hidden subtree, see visitAriaHidden).
function excluded(el) {
  if (SKIP_TAGS.has(el.localName)) return true;
  if (SVG_SKIP.has(el.localName) && el.namespaceURI === 'http://www.w3.org/2000/svg') return true;
  if (!inAriaHidden && el.getAttribute('aria-hidden') === 'true') return true;
  if (el.localName === 'input' && el.type === 'hidden') return true;
  return styleRec(el).display === 'none';
}

function invisible(el) {
  const v = styleRec(el).visibility;
  return v === 'hidden' || v === 'collapse';
}

function isInline(el) {
  const d = styleRec(el).display;
  return d === 'inline' || d === 'contents';
}

// collapse trims and collapses white space, and drops what shows nothing
// (zero-width characters, icon-font glyphs: INVISIBLE_CHARS).
const WS = /[ \t\n\r\f]+/g;
function collapse(s) {
  return s.replace(INVISIBLE_CHARS, '').replace(WS, ' ').trim();
}

// describe gives a short, selector-like description of an element for error
// messages ("div#overlay.modal").
function describe(el) {
  if (!el || el.nodeType !== 1) return String(el && el.nodeName || 'nothing');
  let d = el.localName;
  if (el.id) d += '#' + el.id;
  const cls = typeof el.className === 'string' ? el.className.trim().split(/\s+/).filter(Boolean).slice(0, 2) : [];
  if (cls.length) d += '.' + cls.join('.');
  const role = el.getAttribute('role');
  if (role) d += '[role=' + role + ']';
  const text = collapse(el.textContent || '').slice(0, 40);
  if (text) d += ' "' + text + '"';
  return d;
}
