// ---- snapshot walk -------------------------------------------------------
// The walk emits a tree the Go side turns into text. Text runs are bare
// strings; elements are objects with short keys (r role, n name, nf name
// from content, i element id, s states, v value, u url, c children, fr 1 for
// a frame owner). Inline text-level elements are folded into the running
// text, so "Hello <b>world</b>!" is one run, as a reader sees it.

function isDisabled(el) {
  try { if (el.matches(':disabled')) return true; } catch (e) { /* not a form element */ }
  return !!el.closest('[aria-disabled="true"]');
}

function checkedState(el, role) {
  if (el.localName === 'input' && (el.type === 'checkbox' || el.type === 'radio')) {
    return el.indeterminate ? 'mixed' : el.checked ? 'true' : 'false';
  }
  return el.getAttribute('aria-checked') || '';
}

const CHECKABLE = new Set(['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio']);
const SELECTABLE = new Set(['tab', 'option', 'row', 'gridcell', 'treeitem', 'columnheader', 'rowheader']);
const EDITABLE_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton']);

function statesOf(el, role, active) {
  const s = [];
  if (CHECKABLE.has(role)) {
    const c = checkedState(el, role);
    if (c === 'true') s.push('checked');
    else if (c === 'mixed') s.push('checked=mixed');
  }
  if (isDisabled(el)) s.push('disabled');
  let exp = el.getAttribute('aria-expanded');
  if (el.localName === 'summary' && el.parentElement && el.parentElement.localName === 'details') exp = el.parentElement.open ? 'true' : 'false';
  // A drop-down <select> is reported collapsed: its popup is the browser's
  // own, which a page script cannot see (and which is closed unless a
  // person opens it).
  if (role === 'combobox' && el.localName === 'select') exp = 'false';
  if (exp === 'true') s.push('expanded');
  else if (exp === 'false') s.push('expanded=false');
  if (SELECTABLE.has(role)) {
    if (el.getAttribute('aria-selected') === 'true' || (el.localName === 'option' && el.selected)) s.push('selected');
  }
  const pressed = el.getAttribute('aria-pressed');
  if (pressed === 'true') s.push('pressed');
  else if (pressed === 'mixed') s.push('pressed=mixed');
  if (role === 'heading') {
    const lv = el.getAttribute('aria-level') || (/^h[1-6]$/.test(el.localName) ? el.localName[1] : '2');
    s.push('level=' + lv);
  } else if ((role === 'listitem' || role === 'treeitem' || role === 'row') && el.hasAttribute('aria-level')) {
    s.push('level=' + el.getAttribute('aria-level'));
  }
  if (el.required || el.getAttribute('aria-required') === 'true') s.push('required');
  if (EDITABLE_ROLES.has(role) && (el.readOnly || el.getAttribute('aria-readonly') === 'true')) s.push('readonly');
  const inv = el.getAttribute('aria-invalid');
  if (inv && inv !== 'false') s.push('invalid');
  if (el === active && active !== document.body) s.push('focused');
  return s;
}

function valueOf(el, role) {
  const tag = el.localName;
  switch (role) {
    case 'textbox': case 'searchbox': case 'combobox': case 'spinbutton':
      if (tag === 'input' || tag === 'textarea') {
        if (tag === 'input' && el.type === 'password') return el.value ? '•'.repeat(Math.min(el.value.length, 8)) : '';
        return el.value;
      }
      if (tag === 'select') return Array.from(el.selectedOptions).map((o) => o.label).join(', ');
      return collapse(el.textContent || '');
    case 'slider': case 'progressbar': case 'meter': case 'scrollbar':
      return el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow') || (el.value !== undefined && el.value !== '' ? String(el.value) : '');
  }
  return '';
}

let walkActive = null;
let walkAll = false;
let walkCount = 0;
// Options of one walk: walkCursor gives refs to elements made clickable by
// a pointer cursor or an onclick handler; walkViewport keeps only what
// intersects the viewport.
let walkCursor = false;
let walkViewport = false;

function cursorOf(el) {
  const r = styleRec(el);
  if (r.cursor === undefined) r.cursor = r.s.cursor;
  return r.cursor;
}

// clickable reports an element an agent may click though it has no role
// that says so: an onclick handler, or a pointer cursor it does not just
// inherit. Listeners added with addEventListener cannot be seen from the
// page, so a pointer cursor is the usual evidence.
function clickable(el) {
  if (el.hasAttribute('onclick') || typeof el.onclick === 'function') return true;
  if (cursorOf(el) !== 'pointer') return false;
  const p = flatParent(el);
  return !(p && p.nodeType === 1 && cursorOf(p) === 'pointer');
}

// inViewport reports whether the element's box meets the viewport. Boxes
// of zero size (display:contents, empty wrappers) do not count as out.
function meetsViewport(el) {
  const r = el.getBoundingClientRect();
  if (r.width === 0 && r.height === 0) return true;
  return r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth;
}

function clips(el) {
  const o = styleOf(el).overflow;
  return o !== 'visible' && o !== '';
}

// labelIsName reports whether a <label>'s own text is exactly the name of
// the control it labels. That text is then printed once, as the control's
// name, and not again as a text run beside it.
function labelIsName(el) {
  const c = el.control;
  if (!c || excluded(c) || invisible(c)) return false;
  const own = collapse(contentText(el, { inLabelledBy: false, includeHidden: false, skip: c }));
  return own !== '' && accName(c, roleOf(c))[0] === own;
}

// wantsRef reports whether an element takes a ref. walkAll (snapshot option
// all) gives every emitted element an id as well, without changing which
// elements are emitted.
function wantsRef(el, role) {
  if (ACTION_ROLES.has(role) || SCOPE_ROLES.has(role)) return true;
  if (el.isContentEditable) return true;
  // An element made draggable is something to act on (drag), whatever
  // its role.
  if (el.getAttribute('draggable') === 'true') return true;
  return el.tabIndex >= 0 && el.hasAttribute('tabindex');
}

function flush(st) {
  if (st.buf) {
    const t = collapse(st.buf);
    if (t) st.out.push(t);
    st.buf = '';
  }
}

function walkInto(el, out) {
  const st = { out, buf: '' };
  walkInline(el, st, !invisible(el));
  flush(st);
}

function walkInline(parent, st, visible) {
  const list = childNodes(parent);
  for (let i = 0, n = list.length; i < n; i++) {
    const c = list[i];
    if (c.nodeType === 3) {
      if (visible && !st.mute && !(walkModal && !walkInModal)) st.buf += c.data;
    } else if (c.nodeType === 1) {
      visit(c, st);
    }
  }
}

// Inert content is out of the tree, as in Chromium: an inert subtree, and
// while a modal dialog is open everything outside it. modalPath holds the
// modal's ancestors, which the walk passes through.
let walkModal = null;
let modalPath = null;
let walkInModal = false;

function visit(el, st) {
  if (excluded(el)) return;
  const tag = el.localName;
  if (tag === 'br') { flush(st); return; }
  if (el.hidden === 'until-found') return;
  if (styleOf(el).interactivity === 'inert') return;
  if (walkModal && !walkInModal) {
    if (el === walkModal) {
      walkInModal = true;
      try { visit(el, st); } finally { walkInModal = false; }
      return;
    }
    if (!modalPath.has(el)) return;
  }
  if (invisible(el)) {
    // Hidden itself; visible descendants still render.
    walkInline(el, st, false);
    return;
  }
  if (walkViewport && !meetsViewport(el)) {
    // Out of view: not shown; its descendants may still be in view,
    // unless it clips them.
    if (!clips(el)) walkInline(el, st, false);
    return;
  }
  let role = roleOf(el);
  if (role === 'generic' && el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) role = 'textbox';
  let ref = wantsRef(el, role);
  let cursor = false;
  if (walkCursor && !ref && (role === 'generic' || role === 'presentation' || INLINE_TEXT_ROLES.has(role)) && clickable(el)) {
    ref = cursor = true;
    role = 'generic';
  }
  if (INLINE_TEXT_ROLES.has(role) && !ref && !ariaLabel(el)) {
    if (isInline(el)) {
      if (tag === 'label' && labelIsName(el)) {
        st.mute = (st.mute || 0) + 1;
        walkInline(el, st, true);
        st.mute--;
        return;
      }
      walkInline(el, st, true);
      return;
    }
    flush(st);
    if (tag === 'tbody' || tag === 'thead' || tag === 'tfoot') {
      // A row group with nothing of its own groups nothing a reader
      // needs: its rows belong to the table.
      const s2 = { out: st.out, buf: '' };
      walkInline(el, s2, true);
      flush(s2);
      return;
    }
    const kids = [];
    walkInto(el, kids);
    if (kids.length) st.out.push({ r: 'generic', c: kids });
    return;
  }
  flush(st);
  walkCount++;
  const node = { r: role };
  // A name from content is computed after the children, and only when it
  // is used: for refs, and when the children are all text (the name is then
  // what the text says). A row of cells prints no name of its own.
  let [name, fromContent] = accName(el, role, !ref && !walkAll);
  if (ref || walkAll) node.i = idOf(el);
  const states = statesOf(el, role, walkActive);
  if (cursor) states.push('cursor=pointer');
  if (states.length) node.s = states.join(' ');
  const v = valueOf(el, role);
  if (v) node.v = v;
  if (role === 'link' && el.href) node.u = typeof el.href === 'string' ? el.href : el.href.baseVal;
  if (role === 'iframe') node.fr = 1;
  if (tag === 'select') {
    const kids = [];
    for (const o of el.querySelectorAll('option')) {
      if (excluded(o)) continue;
      const on = { r: 'option', n: collapse(o.label || o.textContent || '') };
      if (walkAll) on.i = idOf(o);
      if (o.selected) on.s = 'selected';
      if (o.matches(':disabled')) on.s = (on.s ? on.s + ' ' : '') + 'disabled';
      kids.push(on);
    }
    if (kids.length) node.c = kids;
  } else if (tag === 'details' && !el.open) {
    const sum = Array.from(el.children).find((c) => c.localName === 'summary');
    if (sum) { const kids = []; const s2 = { out: kids, buf: '' }; visit(sum, s2); flush(s2); if (kids.length) node.c = kids; }
  } else if (!LEAF_ROLES.has(role) && !(role === 'textbox' && el.isContentEditable)) {
    const kids = [];
    walkInto(el, kids);
    if (kids.length) node.c = kids;
  }
  const kidsText = !node.c || node.c.every((k) => typeof k === 'string');
  if (name === null) [name, fromContent] = kidsText ? contentName(el, role) : ['', true];
  if (name) node.n = name;
  if (fromContent) {
    node.nf = 1;
    // Text children that only repeat the name are left out.
    if (node.c && kidsText && collapse(node.c.join(' ')) === name) delete node.c;
  }
  st.out.push(node);
}

// withWalkState runs fn with what a walk needs set up (style and name
// caches, aria-owns, the open modal), and clears it all afterwards so
// nothing of the page is held between calls.
function withWalkState(fn) {
  styleCache = new Map();
  textMemo = new Map();
  pseudoRoots = new Map();
  pseudoAny = rootHasPseudo(document);
  tableMemo = new Map();
  svgMemo = new Map();
  try {
    collectOwns();
    const modals = document.querySelectorAll('dialog:modal');
    if (modals.length) {
      walkModal = modals[modals.length - 1];
      modalPath = new Set();
      for (let p = flatParent(walkModal); p; p = flatParent(p)) modalPath.add(p);
    }
    return fn();
  } finally {
    styleCache = null;
    textMemo = null;
    pseudoRoots = null;
    pseudoAny = true;
    tableMemo = null;
    svgMemo = null;
    ownsMap = null;
    ownedSet = null;
    walkModal = null;
    modalPath = null;
    walkInModal = false;
  }
}

// snapshot walks the document (or the element with the given id) and
// returns the tree as a JSON string: one string crosses the protocol much
// faster than a structured value.
function snapshot(opts) {
  opts = opts || {};
  walkActive = deepActiveElement();
  walkAll = !!opts.all;
  walkCursor = !!opts.cursor;
  walkViewport = !!opts.viewport;
  walkCount = 0;
  try {
    return withWalkState(() => {
      let root = document.body || document.documentElement;
      if (opts.root) {
        root = byId(opts.root);
        if (!root || !root.isConnected) return JSON.stringify({ error: 'stale' });
      }
      const nodes = [];
      if (root) {
        if (opts.root) {
          const st = { out: nodes, buf: '' };
          visit(root, st);
          flush(st);
        } else {
          walkInto(root, nodes);
        }
      }
      return JSON.stringify({ url: location.href, title: document.title, nodes, count: walkCount });
    });
  } finally {
    walkActive = null;
    walkAll = false;
    walkCursor = false;
    walkViewport = false;
  }
}
