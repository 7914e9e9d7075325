// ---- ElementInternals ------------------------------------------------------
// A custom element may say what it is only through its ElementInternals
// (this.attachInternals(); internals.role = 'switch'; internals.ariaChecked
// = 'true'), with no attribute on the element. Those values live on an
// object only the page's own scripts hold: no script, in this world or the
// page's, can read them from the element. Chromium's accessibility tree
// has them, and the engine reads it for the elements a walk asks about
// (internal/engine/capture/internals.go):
//   - a walk lists the defined custom elements it met that it knows nothing
//     about yet (axNew, sent as the page's "ax");
//   - the engine answers, for each, what Chromium says of it in the terms
//     of ARIA attributes: {role, 'aria-label', 'aria-checked', …} (an empty
//     object for an element with nothing of its own), before the next walk
//     (opts.ax) or at once (axSet); for the elements it has answered about,
//     it asks Chromium again before every snapshot, since internals change
//     with no mutation a walk could see;
//   - an answer that differs from the last one re-walks its element (and
//     the ancestors whose output holds it), so an incremental snapshot shows
//     a checkbox the page checked through its internals.
// Attributes on the element still come first, as in ARIA; what Chromium
// said is read where the attribute is missing (aria).

// axInfo maps an element to the engine's last answer about it.
let axInfo = new WeakMap();
// axAny: some answer said something (until then no element is looked up).
let axAny = false;
// axNew collects, during a walk, the ids of the custom elements met that
// axInfo lacks (null outside a walk).
let axNew = null;
// axPlain collects the ids of elements whose answer says nothing their
// attributes do not (an aria-label on the element itself): the engine
// need not ask about them again. Sent with the next reply.
let axPlain = [];

// noteCustom notes a defined custom element the engine has not answered
// about yet. Only an autonomous custom element (a name with a hyphen) can
// have ElementInternals; one not yet defined has none.
function noteCustom(el) {
  if (axNew === null || inAriaHidden || !el.localName.includes('-') || axInfo.has(el)) return;
  if (el.matches(':defined')) axNew.push(idOf(el));
}

// axOf returns what the engine said of the element (undefined: nothing).
function axOf(el) {
  return axAny ? axInfo.get(el) : undefined;
}

// fromInternals reports an element whose semantics Chromium said come
// from its internals (by the last answer).
function fromInternals(el) {
  const ax = axOf(el);
  if (ax) for (const k in ax) return true;
  return false;
}

// aria reads an ARIA attribute of the element, or when the element has
// none, the value its internals give it (null when neither says).
function aria(el, name) {
  const v = el.getAttribute(name);
  if (v !== null || !axAny) return v;
  const ax = axInfo.get(el);
  return ax && ax[name] !== undefined ? ax[name] : null;
}

// internalsRole is the role an element's internals give it, when its
// markup gives none: one loupe knows, and not a plain container.
function internalsRole(el) {
  const ax = axOf(el);
  if (!ax || !ax.role) return '';
  const r = ax.role === 'img' ? 'image' : ax.role;
  return ARIA_ROLES.has(r) && r !== 'generic' && r !== 'none' && r !== 'presentation' ? r : '';
}

// axSet takes the engine's answers ({id: answer}) and re-walks, at the
// next walk, each element whose answer changed. It returns how many did.
function axSet(answers) {
  let changed = 0;
  for (const id in answers) {
    const el = byId(Number(id));
    if (!el) continue;
    const next = answers[id] || {};
    const old = axInfo.get(el);
    const said = !!old && Object.keys(old).length > 0;
    // (One whose internals said something is asked about for as long as
    // it lives: they may say it again.)
    if (!said && ownAttributes(el, next)) axPlain.push(Number(id));
    if (old && sameAnswer(old, next)) continue;
    axInfo.set(el, next);
    const says = Object.keys(next).length > 0;
    if (says) axAny = true;
    // A first answer of nothing changes nothing the walk made.
    if (!old && !says) continue;
    changed++;
    markDeep(el);
  }
  return changed;
}

function sameAnswer(a, b) {
  let n = 0;
  for (const k in a) {
    if (a[k] !== b[k]) return false;
    n++;
  }
  for (const k in b) n--;
  return n === 0;
}

// ownAttributes reports an answer that says only what the element's own
// attributes say (they come first): its internals add nothing.
function ownAttributes(el, answer) {
  for (const k in answer) {
    if (k === 'role' ? !explicitRole(el) : !el.hasAttribute(k)) return false;
  }
  return true;
}

// takePlain returns axPlain and starts a new list.
function takePlain() {
  const out = axPlain;
  axPlain = [];
  return out;
}
