// ---- what changes a snapshot without a mutation ------------------------------
// (See the last walk, 35-cache.js.) Events are seen in the capture phase
// on the window; each marks what the next walk must walk again, or, where
// it cannot say, that the next walk is a full one.

// Form-control states that style sheets select on: a change of one of
// these restyles the control (and, with sibling selectors, what follows).
const FORM_STATES = /:(checked|indeterminate|placeholder-shown|valid|invalid|user-valid|user-invalid|in-range|out-of-range|default|autofill)/;

function startWatching() {
  if (watching) return;
  watching = true;
  watchRoot(document);
  const all = () => { dirtyAll = true; };
  const on = (types, fn) => { for (const t of types) addEventListener(t, fn, { capture: true, passive: true }); };
  on(['resize', 'fullscreenchange', 'visibilitychange', 'hashchange', 'popstate', 'pageshow'], all);
  if (document.fonts) document.fonts.addEventListener('loadingdone', all);
  on(['animationstart', 'animationiteration', 'animationend', 'animationcancel', 'transitionrun', 'transitionstart',
    'transitionend', 'transitioncancel', 'toggle'], (e) => restyled(targetOf(e)));
  on(['scroll'], (e) => { const t = targetOf(e); if (t && t.nodeType === 1 && t !== document.documentElement) restyled(t); });
  on(['load', 'error'], (e) => {
    const t = targetOf(e);
    if (!t || t.nodeType !== 1 || isSheet(t)) dirtyAll = true; // the page itself, or a style sheet
    else restyled(t);
  });
  on(['pointerover', 'pointerout', 'mouseover', 'mouseout'], (e) => {
    if (dirtyAll || !sheetRisk.hover) return; // no :hover rule: the pointer changes nothing by itself
    chainChanged(targetOf(e), e.relatedTarget);
  });
}

// targetOf is the element an event happened on, inside open shadow trees.
function targetOf(e) {
  const p = e.composedPath();
  return p.length ? p[0] : e.target;
}

// restyled marks an element whose own style changed: its subtree shows
// it.
function restyled(el) {
  if (dirtyAll || !el || el.nodeType !== 1) return;
  markDeep(el);
  if (sheetRisk.sibling) markDeep(el.parentElement);
}

// chainChanged marks the elements whose :hover (or :focus-within) state
// changed when the state moved from `from` to `to`: from's ancestors up to
// the one that also holds `to`, each with its subtree.
function chainChanged(from, to) {
  let top = null;
  for (let x = from; x && x.nodeType === 1; x = flatParent(x)) {
    if (to && flatContains(x, to)) break;
    markDeep(x);
    top = x;
  }
  if (top && sheetRisk.sibling) markDeep(flatParent(top));
}

// focusMoved marks what the focus leaving old and reaching now changes:
// the two elements ("focused"), and with :focus rules in the sheets their
// chains (:focus-within).
function focusMoved(old, now) {
  if (dirtyAll) return;
  for (const [a, b] of [[old, now], [now, old]]) {
    if (!a || a.nodeType !== 1 || !a.isConnected) continue;
    if (sheetRisk.focus) chainChanged(a, b);
    else markUp(a);
  }
}

// controlsChanged marks the form controls whose value or state differs
// between two controlStates lists (and the select of an option); lists of
// other controls mean the page changed otherwise, which its mutations say,
// but the pairing is lost: a full walk.
function controlsChanged(a, b) {
  if (a.length !== b.length) { dirtyAll = true; return; }
  for (let i = 0; i < a.length; i += CONTROL_FIELDS) {
    if (a[i] !== b[i]) { dirtyAll = true; return; }
    for (let j = 1; j < CONTROL_FIELDS; j++) {
      if (a[i + j] === b[i + j]) continue;
      const el = b[i];
      if (sheetRisk.form) restyled(el);
      else markUp(el);
      if (el.localName === 'option') {
        const s = el.closest('select');
        if (s) markUp(s);
      }
      break;
    }
  }
}
