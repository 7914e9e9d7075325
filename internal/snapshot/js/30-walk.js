// ---- snapshot walk -------------------------------------------------------
// The walk emits a tree the Go side turns into text. Text runs are bare
// strings; elements are objects with short keys (r role, n name, nf name
// from content, i element id, s states, v value, u url, c children, fr 1 for
// a frame owner). Inline text-level elements are folded into the running
// text, so "Hello <b>world</b>!" is one run, as a reader sees it.

function isDisabled(el) {
  try { if (el.matches(':disabled')) return true; } catch (e) { /* not a form element */ }
  // (Chromium's answer for a custom element counts a disabled ancestor's.)
  if (axAny && aria(el, 'aria-disabled') === 'true') return true;
  return !!el.closest('[aria-disabled="true"]');
}

function checkedState(el, role) {
  if (el.localName === 'input' && (el.type === 'checkbox' || el.type === 'radio')) {
    return el.indeterminate ? 'mixed' : el.checked ? 'true' : 'false';
  }
  return aria(el, 'aria-checked') || '';
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
  let exp = aria(el, 'aria-expanded');
  if (el.localName === 'summary' && el.parentElement && el.parentElement.localName === 'details') exp = el.parentElement.open ? 'true' : 'false';
  // A combobox says by its role that it opens: only an open one says so
  // (a drop-down <select>'s own popup is the browser's, never seen open).
  if (role === 'combobox' && exp === 'false') exp = null;
  if (exp === 'true') s.push('expanded');
  else if (exp === 'false') s.push('collapsed');
  if (SELECTABLE.has(role)) {
    if (aria(el, 'aria-selected') === 'true' || (el.localName === 'option' && el.selected)) s.push('selected');
  }
  const pressed = aria(el, 'aria-pressed');
  if (pressed === 'true') s.push('pressed');
  else if (pressed === 'mixed') s.push('pressed=mixed');
  // aria-level is a positive integer (ARIA); anything else the page
  // wrote there is ignored, as browsers do, and never printed as is.
  const lv = aria(el, 'aria-level') || '';
  const given = /^\s*[1-9][0-9]{0,2}\s*$/.test(lv) ? String(parseInt(lv, 10)) : '';
  if (role === 'heading') {
    s.push('level=' + (given || (/^h[1-6]$/.test(el.localName) ? el.localName[1] : '2')));
  } else if ((role === 'listitem' || role === 'treeitem' || role === 'row') && given) {
    s.push('level=' + given);
  }
  if (el.required || aria(el, 'aria-required') === 'true') s.push('required');
  // A combobox's readonly input is how select-like widgets are built:
  // Chromium does not call the combobox read-only, and neither does loupe.
  if (EDITABLE_ROLES.has(role) && role !== 'combobox' && (el.readOnly || aria(el, 'aria-readonly') === 'true')) s.push('readonly');
  const inv = aria(el, 'aria-invalid');
  if (inv && inv !== 'false') s.push('invalid');
  if (el === active && active !== document.body) s.push('focused');
  return s;
}

const HOLDS_FIELD = 'input,select,textarea,[role=listbox],[role=option],[role=textbox],[role=searchbox],[contenteditable]';

function valueOf(el, role) {
  const tag = el.localName;
  switch (role) {
    case 'textbox': case 'searchbox': case 'combobox': case 'spinbutton':
      if (tag === 'input' || tag === 'textarea') {
        if (tag === 'input' && el.type === 'password') return el.value ? '•'.repeat(Math.min(el.value.length, 8)) : '';
        return el.value;
      }
      if (tag === 'select') return Array.from(el.selectedOptions).map((o) => o.label).join(', ');
      // A widget that holds its own field or list (a kit's combobox
      // wrapping a hidden <select>, a listbox and a search field) shows
      // them as its children: its text content would say them all again
      // on its own line, run together, options never shown included.
      if (el.querySelector(HOLDS_FIELD)) return '';
      return collapse(el.textContent || '');
    case 'slider': case 'progressbar': case 'meter': case 'scrollbar':
      return aria(el, 'aria-valuetext') || aria(el, 'aria-valuenow') || (el.value !== undefined && el.value !== '' ? String(el.value) : '');
  }
  return '';
}

let walkActive = null;
let walkAll = false;
let walkCount = 0;
// walkViewport keeps only what intersects the viewport.
let walkViewport = false;
// Inside a visible aria-hidden subtree: what it shows is printed, marked.
let inAriaHidden = 0;

function cursorOf(el) {
  const r = styleRec(el);
  if (r.cursor === undefined) r.cursor = r.s.cursor;
  return r.cursor;
}

// ownPointer reports a pointer cursor the element sets itself rather than
// inherits: the usual sign of something made clickable by script.
function ownPointer(el) {
  if (cursorOf(el) !== 'pointer') return false;
  const p = flatParent(el);
  return !(p && p.nodeType === 1 && cursorOf(p) === 'pointer');
}

// hasHandler reports an onclick handler the page can see (attribute or
// property). Listeners added with addEventListener cannot be seen from a
// page script, and are usually delegated to a container anyway; that is
// why every printed element takes a ref, not only these.
function hasHandler(el) {
  return el.hasAttribute('onclick') || typeof el.onclick === 'function';
}

// signal names what makes an element without an interactive role a
// control a person may operate, or '' for none: clickable (a pointer
// cursor of its own, a click handler, or an <a> without href, a widget's
// "Next"), draggable, or focusable (a tabindex).
function signal(el) {
  if (ownPointer(el)) return 'clickable';
  if (hasHandler(el)) return 'clickable';
  if (el.getAttribute('draggable') === 'true') return 'draggable';
  if (el.hasAttribute('tabindex')) return 'focusable';
  if (el.localName === 'a') return 'clickable';
  return '';
}

// INNER_HOSTS are roles whose children are presentational (LEAF_ROLES)
// but whose real widgets put working controls inside: a remove button in
// a chosen option, a close button on a tab, a menu button in a button.
// Such a control prints as a child of its own, with its ref and name, and
// its text is left out of the host's name.
const INNER_HOSTS = new Set(['option', 'tab', 'button', 'menuitemcheckbox', 'menuitemradio']);

// NAMED_ITEMS are roles named by their content whose children print
// anyway: their name leaves out the controls among them.
const NAMED_ITEMS = new Set(['treeitem', 'menuitem']);

// innerControls lists the controls a person can operate inside el (flat
// tree order, not looking inside one found): elements of an action role
// (native buttons, links with href, fields), or with a click handler, a
// pointer cursor or a tabindex >= 0 of their own; visible, with a box.
// null when there are none.
function innerControls(el) {
  let found = null;
  const rec = (p) => {
    for (const c of childNodes(p)) {
      if (c.nodeType !== 1 || excluded(c)) continue;
      const operable = ACTION_ROLES.has(roleOf(c)) || hasHandler(c) || ownPointer(c) || c.tabIndex >= 0 && c.hasAttribute('tabindex');
      if (operable && !invisible(c)) {
        const r = c.getBoundingClientRect();
        if (r.width >= 1 && r.height >= 1) {
          (found || (found = [])).push(c);
          continue;
        }
      }
      rec(c);
    }
  };
  rec(el);
  return found;
}

// Roles that make an element a control in their own right, for the
// interactive-only view and the mark an agent reads. Structural roles a
// person clicks (column headers sort, rows of grids select) count.
const CONTROL_ROLES = new Set(['columnheader', 'rowheader']);

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
  if (!c) return false;
  borrow(c, el);
  if (excluded(c) || invisible(c)) return false;
  const own = collapse(contentText(el, { inLabelledBy: false, includeHidden: false, skip: c }));
  return own !== '' && accName(c, roleOf(c))[0] === own;
}

// isControl reports whether an element is something to operate (the
// interactive-only view keeps these): a role an agent acts on, a container
// to scope to, an editor, or an element with a signal.
function isControl(el, role) {
  if (ACTION_ROLES.has(role) || SCOPE_ROLES.has(role) || CONTROL_ROLES.has(role)) return true;
  if (role === 'row' && rowInGrid(el)) return true;
  if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return true;
  return signal(el) !== '';
}

// Zero-width and invisible formatting characters, and the private use
// area of icon fonts: nothing a reader sees as text.
const INVISIBLE_CHARS = /[\u00ad\u200b-\u200d\u2060\ufeff\ue000-\uf8ff]/g;

// A text buffer collects the running text of a block and the element
// that carries all of it (carrier): the nearest element holding every
// piece, so that a line's ref points at the text itself.
function addText(st, text, at) {
  st.buf += text;
  if (!st.carrier) { st.carrier = at; return; }
  let c = st.carrier;
  while (c && c !== at && !flatContains(c, at)) c = flatParent(c);
  st.carrier = c || st.carrier;
}

function flush(st) {
  if (st.buf) {
    const t = collapse(st.buf);
    if (t) {
      walkSpent += t.length + 4;
      st.out.push(t);
      if (st.texts === undefined) st.texts = 0;
      st.texts++;
      st.lastCarrier = st.texts === 1 ? st.carrier : null;
    }
    st.buf = '';
    st.carrier = null;
  }
}

// walkInto walks an element's children into out and returns the element
// that carries its text when all of it is one run from one element (null
// otherwise), and whether any of it is text.
function walkInto(el, out) {
  const st = { out, buf: '', carrier: null };
  walkInline(el, st, !invisible(el));
  flush(st);
  return st;
}

function walkInline(parent, st, visible) {
  // The usual case, an element's own children, by sibling links: no
  // NodeList to make and index.
  if (!ownedSet && parent.nodeType === 1 && !parent.shadowRoot && parent.localName !== 'slot') {
    for (let c = parent.firstChild; c; c = c.nextSibling) walkChild(parent, c, st, visible);
    return;
  }
  const list = childNodes(parent);
  for (let i = 0, n = list.length; i < n; i++) walkChild(parent, list[i], st, visible);
}

function walkChild(parent, c, st, visible) {
  if (c.nodeType === 3) {
    if (visible && !st.mute && !(walkModal && !walkInModal)) {
      const d = c.data;
      if (st.buf || !/^[ \t\n\r\f]*$/.test(d)) addText(st, d, parent);
    }
  } else if (c.nodeType === 1) {
    visit(c, st);
  }
}

// Inert content is out of the tree, as in Chromium: an inert subtree, and
// while a modal dialog is open everything outside it. modalPath holds the
// modal's ancestors, which the walk passes through.
let walkModal = null;
let modalPath = null;
let walkInModal = false;

// hiddenButShown reports an aria-hidden element a sighted person still
// sees: rendered, not transparent, with a box on the page. Code editors
// draw their text this way.
function hiddenButShown(el) {
  if (el.getAttribute('aria-hidden') !== 'true' || inAriaHidden) return false;
  if (SKIP_TAGS.has(el.localName) || styleRec(el).display === 'none') return false;
  if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
  const r = el.getBoundingClientRect();
  if (r.width < 1 || r.height < 1) return false;
  return r.right + scrollX > 0 && r.bottom + scrollY > 0;
}

// READABLE: text a person reads, not decoration (separators, bullets and
// icon glyphs are left out of aria-hidden content).
const READABLE = /[\p{L}\p{N}]/u;

function hasReadable(nodes) {
  for (const n of nodes) {
    if (typeof n === 'string') { if (READABLE.test(n)) return true; }
    else if (n.c && hasReadable(n.c)) return true;
  }
  return false;
}

// visitAriaHidden prints what a visible aria-hidden subtree shows, under a
// node marked aria-hidden, when any of it is readable text.
function visitAriaHidden(el, st) {
  flush(st);
  const kids = [];
  const s2 = { out: kids, buf: '', carrier: null };
  inAriaHidden++;
  try {
    visit(el, s2);
    flush(s2);
  } finally {
    inAriaHidden--;
  }
  if (!hasReadable(kids)) return;
  if (kids.length === 1 && typeof kids[0] !== 'string') {
    const k = kids[0];
    k.s = k.s ? 'aria-hidden ' + k.s : 'aria-hidden';
    st.out.push(k);
    return;
  }
  st.out.push({ r: 'generic', s: 'aria-hidden', c: kids, i: typeof kids[0] === 'string' && kids.length === 1 ? idOf(el) : undefined });
}

// Cells whose ids wait for their row's decision: [node, element].
let pendingCells = [];

function settleCells() {
  for (const [n, el] of pendingCells) if (!n.x) n.i = idOf(el);
  pendingCells = [];
}

// plainCells returns the texts of a table row's cells when every cell is
// only text (or empty): such a row prints its cells on its own line.
function plainCells(kids) {
  const out = [];
  for (const k of kids) {
    if (typeof k === 'string' || k.r !== 'cell' || k.s || k.v || k.k) return null;
    if (k.c) {
      if (k.c.length !== 1 || typeof k.c[0] !== 'string') return null;
      out.push(k.c[0]);
    } else {
      out.push(k.n || '');
    }
  }
  return out;
}

// onlyText reports nodes that are text, or plain wrappers of text only.
// A wrapper drawn to be clicked (a column header's label with a pointer
// cursor) counts: the node it sits in is the control.
const MARKS = new Set(['clickable', 'focusable']);

function onlyText(nodes) {
  for (const n of nodes) {
    if (typeof n === 'string') continue;
    if (n.r !== 'generic' || n.n || n.v || n.fr || !n.c || !onlyText(n.c)) return false;
    if (n.s && !MARKS.has(n.s)) return false;
  }
  return true;
}

// offPage reports an element placed outside the page (left or above it),
// the usual way to hide text from sight but not from assistive technology.
function offPage(el) {
  const r = el.getBoundingClientRect();
  return (r.width > 0 || r.height > 0) && (r.right + scrollX <= 0 || r.bottom + scrollY <= 0);
}

// visitEl walks one element into st. It returns where in st.out the
// element's own output starts when that output stands apart from the text
// around it (a block, flushed first), so the cache may keep it (see
// visit); undefined when the element is folded into the running text or
// printed in a way that depends on its parent.
function visitEl(el, st) {
  if (hiddenButShown(el)) { visitAriaHidden(el, st); return; }
  // In an aria-hidden subtree only what a sighted person sees is printed.
  if (inAriaHidden && offPage(el)) return;
  if (excluded(el)) return;
  const tag = el.localName;
  if (tag === 'br') { flush(st); return; }
  if (tag === 'wbr') return;
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
  noteCustom(el);
  // A visible element that stands for an invisible control prints as it
  // (32-twins.js).
  const stands = twinHost.size ? twinHost.get(el) : undefined;
  if (stands && twinPromoted(el, stands)) return visitTwin(el, stands, st);
  let role = roleOf(el);
  if (role === 'generic' && el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) role = 'textbox';
  const control = isControl(el, role);
  let mark = '';
  if (INLINE_TEXT_ROLES.has(role)) {
    if (control) {
      mark = signal(el);
      if (role === 'presentation') role = 'generic';
    } else if (!ariaLabel(el) && (role === 'generic' || role === 'presentation' || isInline(el))) {
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
      const at = st.out.length;
      st.spentAt = walkSpent;
      if (tag === 'tbody' || tag === 'thead' || tag === 'tfoot') {
        // A row group with nothing of its own groups nothing a reader
        // needs: its rows belong to the table.
        const s2 = { out: st.out, buf: '', carrier: null };
        walkInline(el, s2, true);
        flush(s2);
        return at;
      }
      // A plain block: a line of its own when it holds text of its own,
      // with the ref of the element that carries that text.
      const kids = [];
      const s2 = walkInto(el, kids);
      if (!kids.length) return at;
      if (role === 'presentation' && !s2.texts) {
        // role=none/presentation takes the element out, not its content.
        st.out.push(...kids);
        return at;
      }
      walkCount++;
      const node = { r: 'generic', c: kids };
      if (s2.texts) node.i = idOf(s2.texts === 1 && s2.lastCarrier && kids.length === 1 ? s2.lastCarrier : el);
      st.out.push(node);
      return at;
    }
  }
  flush(st);
  const at = st.out.length;
  st.spentAt = walkSpent; // what the block itself makes, for a budget (see visit)
  // An invisible control whose visible counterpart prints in its stead.
  if (control && !inAriaHidden && TWIN_ROLES.has(role) && twinFolded(el)) return at;
  if (role === 'rowgroup' && !control && !ariaLabel(el)) {
    // A row group (a table's head, body or foot) groups nothing a reader
    // needs: its rows belong to the table.
    const s2 = { out: st.out, buf: '', carrier: null };
    walkInline(el, s2, true);
    flush(s2);
    return at;
  }
  walkCount++;
  const node = { r: role };
  // The node's children: set on it last, once it is known to keep them
  // (an object that lost a property to delete turns into a hash table,
  // several times its size; the kept walk holds thousands of nodes).
  let c = null;
  // Inside an aria-hidden subtree nothing has an accessible name: what an
  // element shows is printed as its text (a hidden copy's "Save" button is
  // `button: Save`, never `button "Save"`).
  let [name, fromContent] = inAriaHidden ? ['', false] : accName(el, role, false);
  let inner = null;
  // A cell's id waits for its row: a row of plain cells prints them on its
  // own line, and they take no ref.
  // (Its row may also mark it: such a cell's output is its row's to keep.)
  const pending = role === 'cell' && !control;
  if (pending) pendingCells.push([node, el]);
  else node.i = idOf(el);
  // A closed list and its items take no ref (nr; 32-twins.js).
  if (control && !inAriaHidden && TWIN_ROLES.has(role) && refless(el, role)) node.nr = 1;
  else if (control) node.k = 1;
  const states = statesOf(el, role, walkActive);
  if (mark) states.push(mark);
  if (states.length) node.s = states.join(' ');
  const editor = role === 'textbox' && el.isContentEditable;
  // A <select> lists its options, the chosen ones marked: no value.
  const v = editor || tag === 'select' ? '' : valueOf(el, role);
  if (v) node.v = v;
  if (role === 'link' && el.href) node.u = typeof el.href === 'string' ? el.href : el.href.baseVal;
  if (role === 'iframe') node.fr = 1;
  if (tag === 'select') {
    const kids = selectOptionNodes(el);
    if (kids.length) c = kids;
  } else if (tag === 'details' && !el.open) {
    const sum = Array.from(el.children).find((c) => c.localName === 'summary');
    if (sum) { const kids = []; const s2 = { out: kids, buf: '', carrier: null }; visit(sum, s2); flush(s2); if (kids.length) c = kids; }
  } else if (INNER_HOSTS.has(role) && !inAriaHidden && (inner = innerControls(el))) {
    // Controls inside: each a child of its own. The host's name from
    // its content leaves their text out; when nothing else is left, the
    // controls are the host's own content and it stays one line.
    const rest = fromContent ? collapse(contentText(el, { inLabelledBy: false, includeHidden: false, skip: el, leave: new Set(inner) })) : name;
    if (rest) {
      const kids = [];
      const s2 = { out: kids, buf: '', carrier: null };
      for (const c of inner) visit(c, s2);
      flush(s2);
      if (kids.length) {
        c = kids;
        name = rest;
        // The name no longer repeats the children: printed in full on
        // the host's line (a content name beside other children would
        // otherwise be dropped for a button, see render.go).
        fromContent = false;
      }
    }
  } else if (!LEAF_ROLES.has(role) || editor || inAriaHidden) {
    const kids = [];
    walkInto(el, kids);
    if (kids.length) c = kids;
    if (fromContent && NAMED_ITEMS.has(role) && !inAriaHidden && (inner = innerControls(el))) {
      // An item named by its content leaves out the controls inside it
      // (a tree item's "rename" link), which print as its children.
      const rest = collapse(contentText(el, { inLabelledBy: false, includeHidden: false, skip: el, leave: new Set(inner) }));
      if (rest) {
        name = rest;
        // Its text, now its name, need not lead its children too.
        if (typeof kids[0] === 'string' && collapse(kids[0]) === name) kids.shift();
      }
    }
    if (role === 'row' && kids.length && !control && !walkAll) {
      const cells = plainCells(kids);
      if (cells) {
        node.cs = cells;
        for (const k of kids) k.x = 1;
        c = null;
      }
    }
  }
  if (role === 'generic' && !name && !c && !v) {
    // An empty element with nothing to see (a focus trap, a zero-size
    // handle) is no line: a person cannot see or point at it.
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return pending ? undefined : at;
  }
  if (name) node.n = name;
  walkSpent += role.length + name.length + (v ? v.length : 0) + 8;
  if (fromContent && c && onlyText(c)) {
    // Wrappers that only hold the text its name already says (a column
    // header's label inside presentational divs) add nothing.
    c = null;
  }
  if (fromContent) {
    node.nf = 1;
    // Text children that only repeat the name are left out.
    if (c && c.every((k) => typeof k === 'string') && collapse(c.join(' ')) === name) c = null;
  }
  if (c) node.c = c;
  st.out.push(node);
  return pending ? undefined : at;
}

// selectOptionNodes lists a <select>'s options, the chosen ones marked.
function selectOptionNodes(el) {
  const kids = [];
  for (const o of el.querySelectorAll('option')) {
    if (excluded(o)) continue;
    const on = { r: 'option', n: collapse(o.label || o.textContent || '') };
    if (walkAll) on.i = idOf(o);
    if (o.selected) on.s = 'selected';
    if (o.matches(':disabled')) on.s = (on.s ? on.s + ' ' : '') + 'disabled';
    kids.push(on);
  }
  return kids;
}

// withWalkState runs fn with what a walk needs set up (style and name
// caches, aria-owns, the open modal), and clears it all afterwards so
// nothing of the page is held between calls.
function withWalkState(fn) {
  beginWalkState();
  try {
    return fn();
  } finally {
    endWalkState();
  }
}

function beginWalkState() {
  styleCache = new Map();
  textMemo = new Map();
  pseudoRoots = new Map();
  pseudoAny = rootHasPseudo(document);
  svgMemo = new Map();
  labelMaps = new Map();
  collectOwns();
  const modals = document.querySelectorAll('dialog:modal');
  if (modals.length) {
    walkModal = modals[modals.length - 1];
    modalPath = new Set();
    for (let p = flatParent(walkModal); p; p = flatParent(p)) modalPath.add(p);
  }
}

function endWalkState() {
  styleCache = null;
  textMemo = null;
  pseudoRoots = null;
  pseudoAny = true;
  svgMemo = null;
  labelMaps = null;
  ownsMap = null;
  ownedSet = null;
  walkModal = null;
  modalPath = null;
  walkInModal = false;
}
