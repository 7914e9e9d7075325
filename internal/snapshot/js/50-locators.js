// ---- locators ------------------------------------------------------------
// Support for stable locators (see internal/snapshot/locator.go): what the
// engine needs to choose a locator for an element, and to find the elements
// one locator step matches in this document.
//
// This file comes after the one that returns the agent object, so it may
// hold only function declarations (hoisted); a top-level const or let here
// would never be initialised.

// locatorInfo returns, for each element id, what a locator could be built
// from, each checked against this document only:
//   t: its data-testid, ts: the selector [data-testid="t"], tu: 1 when ts
//      matches it alone;
//   d: its id, ds: the #id selector, du: 1 when ds matches it alone;
//   p: a CSS path that matches it alone by construction (a chain of
//      tag:nth-of-type steps from the nearest ancestor-or-self with an id
//      that is unique in the document, a: that id, or from :root, a: ''),
//      only for the ids in pathIds, never inside a shadow root.
// A gone element gives null. With probes (selectors), probed[i] is 1 when
// probes[i] matches anything in this document: the engine checks with it
// that another frame's locators do not match here.
// Only the given elements and their ancestors are looked at.
function locatorInfo(ids, pathIds, probes) {
  const want = new Set(pathIds || []);
  const uniq = new Map(); // element -> whether its id is unique
  const sibs = new Map(); // parent -> Map(child -> segment)
  const uniqueId = (el) => {
    let u = uniq.get(el);
    if (u === undefined) {
      const id = el.id;
      u = false;
      if (id && !/\s/.test(id) && el.getRootNode() === document) {
        const all = document.querySelectorAll('#' + CSS.escape(id));
        u = all.length === 1 && all[0] === el;
      }
      uniq.set(el, u);
    }
    return u;
  };
  const segment = (el) => {
    const p = el.parentElement;
    let m = sibs.get(p);
    if (!m) {
      m = new Map();
      const byTag = new Map();
      for (const c of p.children) {
        const list = byTag.get(c.localName);
        if (list) list.push(c); else byTag.set(c.localName, [c]);
      }
      for (const [tag, list] of byTag) {
        const t = CSS.escape(tag);
        if (list.length === 1) m.set(list[0], t);
        else list.forEach((c, i) => m.set(c, t + ':nth-of-type(' + (i + 1) + ')'));
      }
      sibs.set(p, m);
    }
    return m.get(el);
  };
  const path = (el) => {
    if (el.getRootNode() !== document) return null;
    const segs = [];
    for (let n = el; n; n = n.parentElement) {
      if (uniqueId(n)) {
        segs.push('#' + CSS.escape(n.id));
        return { p: segs.reverse().join(' > '), a: n.id };
      }
      if (n === document.documentElement) {
        segs.push(':root');
        return { p: segs.reverse().join(' > '), a: '' };
      }
      if (!n.parentElement) return null;
      segs.push(segment(n));
    }
    return null;
  };
  const els = ids.map((id) => {
    const el = byId(id);
    if (!el || !el.isConnected) return null;
    const o = {};
    const tid = el.getAttribute('data-testid');
    if (tid) {
      o.t = tid;
      o.ts = '[data-testid="' + CSS.escape(tid) + '"]';
      if (el.getRootNode() === document) {
        const all = document.querySelectorAll('[data-testid="' + CSS.escape(tid) + '"]');
        if (all.length === 1 && all[0] === el) o.tu = 1;
      }
    }
    if (el.id && !/\s/.test(el.id)) {
      o.d = el.id;
      o.ds = '#' + CSS.escape(el.id);
      if (uniqueId(el)) o.du = 1;
    }
    if (want.has(id)) {
      const r = path(el);
      if (r) { o.p = r.p; o.a = r.a; }
    }
    return o;
  });
  const out = { els };
  if (probes && probes.length) {
    out.probed = probes.map((sel) => {
      try { return document.querySelector(sel) ? 1 : 0; } catch (e) { return 1; } // unknown: assume it matches
    });
  }
  return out;
}

// query finds the elements one locator step matches in this document:
//   {k: 'role', r: ROLE, n: NAME, hn: true when the name counts}
//   {k: 'testid', v: VALUE}
//   {k: 'css', v: SELECTOR}
// and returns {ok: true, m: [{i: id, r: role, n: name}, ...]} in document
// order (an open shadow root's elements after its host), or {ok: false,
// err: 'badcss', detail} for a selector that does not parse. A role step
// matches exactly the elements a snapshot shows with that role (and name):
// through open shadow roots and slots, never what is excluded (display:none,
// aria-hidden, hidden), visibility:hidden, inert, outside an open modal
// dialog, folded into text, or inside an element whose content is its name
// (see locRoleQuery). testid and css steps match what querySelectorAll
// does in the document (not in shadow roots), hidden or not.
function query(spec) {
  if (spec.k === 'testid' || spec.k === 'css') {
    let list;
    try {
      list = document.querySelectorAll(spec.k === 'css' ? spec.v : '[data-testid="' + CSS.escape(spec.v) + '"]');
    } catch (e) {
      return fail('badcss', String(e && e.message || e));
    }
    const m = [];
    for (const el of list) {
      const [role, name] = locRoleName(el);
      m.push({ i: idOf(el), r: role, n: name });
    }
    return { ok: true, m };
  }
  if (spec.k !== 'role') return fail('bad', 'unknown step kind ' + spec.k);
  const m = [];
  withWalkState(() => locRoleQuery(spec, m));
  return { ok: true, m };
}

// locRoleName is an element's role and name as a snapshot would show them
// if it took a ref.
function locRoleName(el) {
  // (An element that stands for an invisible control shows as it.)
  const h = twinInput(el);
  if (h) el = h;
  let role = roleOf(el);
  if (role === 'generic' && el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) role = 'textbox';
  return [role, accName(el, role, false)[0] || ''];
}

// locRoleQuery finds the elements a snapshot would show with the step's
// role (and name). Instead of walking the whole tree it looks at the
// elements with that role and checks, up their walk ancestors, that the
// walk (visit() in 30-walk.js) would reach and emit them: the same rules,
// asked bottom-up, with each ancestor's answer remembered.
function locRoleQuery(spec, m) {
  const body = document.body || document.documentElement;
  if (!body) return;
  const ownerOf = new Map();
  if (ownsMap) for (const [o, list] of ownsMap) for (const x of list) ownerOf.set(x, o);
  const roles = new Map(); // element -> role as the walk computes it
  const states = new Map(); // element -> 'none' | 'kids' | 'node'
  const reached = new Map(); // element -> whether visit() is called on it
  const inModal = new Map();

  const roleAt = (el) => {
    let r = roles.get(el);
    if (r === undefined) {
      r = roleOf(el);
      if (r === 'generic' && el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) r = 'textbox';
      roles.set(el, r);
    }
    return r;
  };
  // The node whose childNodes() lists n during a walk, or null when no
  // walk lists it (an unslotted light child of a shadow host, a slot's
  // fallback while something is assigned, the root element).
  const walkParent = (n) => {
    if (ownedSet && ownedSet.has(n)) return ownerOf.get(n) || null;
    if (n.assignedSlot) return n.assignedSlot;
    const p = n.parentNode;
    if (!p) return null;
    if (p.nodeType === 11) return p.host || null;
    if (p.nodeType !== 1) return null;
    if (p.shadowRoot) return null;
    if (p.localName === 'slot' && p.assignedNodes({ flatten: false }).length) return null;
    return p;
  };
  const modalOK = (el) => {
    if (!walkModal) return true;
    let v = inModal.get(el);
    if (v === undefined) {
      if (el === walkModal) v = true;
      else { const p = walkParent(el); v = !!p && p !== body && modalOK(p) && inModal.get(p) === true; }
      inModal.set(el, v);
    }
    return v || modalPath.has(el);
  };
  // What visit(el) does: returns early, walks its children as text, or
  // emits a node.
  const state = (el) => {
    let s = states.get(el);
    if (s !== undefined) return s;
    s = 'node';
    if (excluded(el) || el.localName === 'br' || el.hidden === 'until-found' || styleOf(el).interactivity === 'inert') s = 'none';
    else if (!modalOK(el)) s = 'none';
    else if (invisible(el)) s = 'kids';
    else {
      const r = roleAt(el);
      if (INLINE_TEXT_ROLES.has(r) && !isControl(el, r) && !ariaLabel(el) && (r === 'generic' || r === 'presentation' || isInline(el))) s = 'kids';
    }
    states.set(el, s);
    return s;
  };
  // Whether visit(p), having been called, visits its child n.
  const opens = (p, n) => {
    const s = state(p);
    if (s === 'none') return false;
    if (s === 'kids') return true;
    const tag = p.localName;
    if (tag === 'select') return false;
    if (tag === 'details' && !p.open) return Array.from(p.children).find((c) => c.localName === 'summary') === n;
    const r = roleAt(p);
    return !LEAF_ROLES.has(r) || (r === 'textbox' && p.isContentEditable);
  };
  const reach = (n) => {
    let v = reached.get(n);
    if (v !== undefined) return v;
    const p = walkParent(n);
    v = !!p && (p === body || (reach(p) && opens(p, n)));
    reached.set(n, v);
    return v;
  };
  // Found first, named after: names use CSS generated text when the
  // document or any shadow root entered has such rules (pseudoAny, which a
  // walk sets as it enters them).
  const found = [];
  const scan = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.localName === 'option' && spec.r === 'option') {
        const sel = el.closest('select');
        if (sel) {
          // A select lists its options itself, named by their labels.
          if (reach(sel) && state(sel) === 'node' && !excluded(el)) found.push([el, true]);
          continue;
        }
      }
      if (roleAt(el) === spec.r && reach(el) && state(el) === 'node') found.push([el, false]);
      if (el.shadowRoot) {
        if (!pseudoAny && rootHasPseudo(el.shadowRoot)) pseudoAny = true;
        scan(el.shadowRoot);
      }
    }
  };
  scan(document);
  const pushed = new Set();
  for (const [el, option] of found) {
    const name = option ? collapse(el.label || el.textContent || '') : accName(el, spec.r, false)[0] || '';
    if (spec.hn && name !== spec.n) continue;
    // An invisible control the snapshot shows as its visible counterpart
    // is found as that counterpart (32-twins.js), once.
    const v = option ? null : twinShown(el);
    const at = v && seen(v) ? v : el;
    if (pushed.has(at)) continue;
    pushed.add(at);
    m.push({ i: idOf(at), r: spec.r, n: name });
  }
}
