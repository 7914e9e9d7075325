// ---- accessible names ----------------------------------------------------
// Accessible Name and Description Computation 1.2 as Chromium implements it
// (AXNodeObject::TextAlternative): aria-labelledby, aria-label, native
// labels and alternatives, name from content with CSS generated text,
// embedded control values, and title/placeholder fallbacks.

// Content text per element for one walk: names reuse their descendants'.
let textMemo = null;

// Roles whose content never counts toward a name, not even an ancestor's
// (outside aria-labelledby): containers of many things, and controls,
// which contribute their value instead.
const NO_CONTENT_ROLES = new Set(['alert', 'alertdialog', 'application', 'article', 'audio', 'banner', 'blockquote',
  'combobox', 'comment', 'complementary', 'contentinfo', 'dialog', 'document', 'feed', 'figure', 'form', 'grid', 'group',
  'iframe', 'image', 'listbox', 'log', 'main', 'marquee', 'menu', 'menubar', 'meter', 'navigation', 'note', 'progressbar',
  'radiogroup', 'rowgroup', 'scrollbar', 'search', 'searchbox', 'sectionfooter', 'sectionheader', 'separator', 'slider',
  'spinbutton', 'status', 'tablist', 'tabpanel', 'textbox', 'timer', 'toolbar', 'tree', 'treegrid', 'video']);

// Roles on which ARIA prohibits a name: the title attribute does not name
// them (unless they are focusable).
const NAME_PROHIBITED = new Set(['caption', 'code', 'deletion', 'insertion', 'definition', 'emphasis', 'generic', 'mark',
  'presentation', 'paragraph', 'strong', 'suggestion', 'term']);

// contributesContent reports whether an element's content counts toward a
// name computed through it (not through aria-labelledby).
function contributesContent(el, role) {
  if (role === 'row') return true;
  if (role === 'group') return el.localName === 'details';
  if (role === 'math') return el.localName !== 'math';
  return !NO_CONTENT_ROLES.has(role);
}

// ownNameFromContent reports whether an element's own name comes from its
// content.
function ownNameFromContent(el, role) {
  if (role === 'row') return rowInGrid(el);
  if (role === 'math') return el.localName !== 'math';
  return NAME_FROM_CONTENT.has(role);
}

// rowInGrid: a row names itself from its cells only inside a grid.
function rowInGrid(el) {
  for (let p = flatParent(el); p && p.nodeType === 1; p = flatParent(p)) {
    const r = roleOf(p);
    if (r === 'grid' || r === 'treegrid') return true;
    if (r !== 'generic' && r !== 'presentation' && r !== 'group' && r !== 'rowgroup') return false;
  }
  return false;
}

// shown reports whether an element is rendered and not aria-hidden, with
// its ancestors: a hidden aria-labelledby target contributes its hidden
// content, a shown one does not.
function shown(el) {
  if (el.closest('[aria-hidden="true"]')) return false;
  return el.checkVisibility({ visibilityProperty: true });
}

function labelledByText(el, ctx) {
  const ids = el.getAttribute('aria-labelledby');
  if (!ids || ctx.inLabelledBy) return null;
  const root = el.getRootNode();
  const parts = [];
  for (const id of ids.trim().split(/\s+/)) {
    const ref = root.getElementById ? root.getElementById(id) : document.getElementById(id);
    if (!ref) { want(id, el); continue; }
    if (ref === el) {
      // A control labelled by itself contributes its value.
      const v = textValue(el);
      parts.push(v !== null ? v : contentText(el, { inLabelledBy: true, includeHidden: false, skip: null }));
      continue;
    }
    borrow(ref, el);
    parts.push(textAlt(ref, { inLabelledBy: true, includeHidden: !shown(ref), skip: ctx.skip }));
  }
  const t = collapse(parts.join(' '));
  return t || null;
}

// textValue is the value of a text field, or null for anything else.
function textValue(el) {
  if (el.localName === 'textarea') return el.value;
  if (el.localName === 'input' && !NOT_TEXT_INPUTS.has(el.type)) return el.value;
  return null;
}

const NOT_TEXT_INPUTS = new Set(['button', 'submit', 'reset', 'image', 'checkbox', 'radio', 'range', 'color', 'file', 'hidden']);

function ariaLabel(el) {
  const l = aria(el, 'aria-label');
  return l && l.trim() ? collapse(l) : '';
}

// Whether a document or shadow root has any ::before/::after rule, per
// walk: asking every element for its pseudo-element style is the most
// expensive part of a name computation, and most pages have few such rules.
let pseudoRoots = null;
// pseudoAny is set once the document, or a shadow root the walk has
// entered, has such a rule; until then no element is asked.
let pseudoAny = true;

function sheetsHavePseudo(sheets) {
  const scan = (rules) => {
    for (const r of rules) {
      if (r.selectorText !== undefined && /:(before|after)\b/i.test(r.selectorText)) return true;
      if (r.styleSheet) { // @import
        try { if (scan(r.styleSheet.cssRules)) return true; } catch (e) { return true; }
      }
      if (r.cssRules && r.cssRules.length && scan(r.cssRules)) return true;
    }
    return false;
  };
  for (const sh of sheets) {
    let rules;
    try { rules = sh.cssRules; } catch (e) { return true; } // cross-origin sheet: unknown
    if (!rules || scan(rules)) return true;
  }
  return false;
}

function rootHasPseudo(root) {
  let v = pseudoRoots && pseudoRoots.get(root);
  if (v === undefined) {
    v = sheetsHavePseudo(root.styleSheets) || sheetsHavePseudo(root.adoptedStyleSheets || []);
    if (pseudoRoots) pseudoRoots.set(root, v);
  }
  return v;
}

function pseudoText(el, which) {
  if (!pseudoAny) return '';
  const cs = getComputedStyle(el, which);
  const c = cs.content;
  if (!c || c === 'none' || c === 'normal') return '';
  // Hidden generated content names nothing, as in Chromium's tree: UI
  // kits keep a hidden copy of a label in ::after (to reserve its bold
  // width), which would otherwise double the name ("ProfileProfile").
  if (cs.display === 'none' || cs.visibility === 'hidden' || cs.visibility === 'collapse') return '';
  // Only literal strings; counters, attr() and images are left out.
  let out = '';
  const re = /"((?:[^"\\]|\\.)*)"/g;
  let m;
  while ((m = re.exec(c))) out += m[1].replace(/\\([0-9a-fA-F]{1,6}) ?|\\(.)/g, (_, hex, ch) => hex ? String.fromCodePoint(parseInt(hex, 16)) : ch);
  const slash = c.lastIndexOf('" /');
  if (slash >= 0) {
    // content: "x" / "alt text": the alternative replaces the content.
    const alt = c.slice(slash + 3).match(/"((?:[^"\\]|\\.)*)"/);
    return alt ? alt[1] : '';
  }
  return out;
}

// labelsText joins the text of the element's <label>s. A hidden label
// names nothing; the labelled control's own value is left out.
function labelsText(el, ctx) {
  const labels = labelsOf(el);
  if (!labels || !labels.length) return '';
  const parts = [];
  for (const l of labels) borrow(l, el);
  for (const l of labels) parts.push(textAlt(l, { inLabelledBy: ctx.inLabelledBy, includeHidden: ctx.includeHidden, skip: el }));
  return collapse(parts.join(' '));
}

// labelsOf is the element's <label>s. During a walk they come from one map
// per tree scope, made from that scope's labels: the DOM's own el.labels
// searches the whole scope on its first read after any change, for every
// element, which on a page of 100,000 elements with 4,000 buttons took
// 4.5 s of a 6.5 s walk (and would again after each mutation).
let labelMaps = null; // tree scope → Map(control → [label]), during a walk

function labelsOf(el) {
  if (!labelMaps) return el.labels || customLabels(el);
  const root = el.getRootNode();
  let map = labelMaps.get(root);
  if (!map) {
    map = new Map();
    if (root.querySelectorAll) {
      for (const l of root.querySelectorAll('label')) {
        const c = l.control;
        if (!c) continue;
        const list = map.get(c);
        if (list) list.push(l);
        else map.set(c, [l]);
      }
    }
    labelMaps.set(root, map);
  }
  return map.get(el) || null;
}

// customLabels are the <label>s of a form-associated custom element (a
// design system's checkbox or switch: <label><md-checkbox>…): its labels
// live on its ElementInternals, which a page script cannot read, so they
// are found as HTML finds them, by the label's control.
function customLabels(el) {
  // (The element's class is the page's, unseen from this world; a label's
  // control, which the DOM computes, says whether it is labelable.)
  if (!el.localName.includes('-')) return null;
  const out = [];
  const anc = el.parentElement && el.parentElement.closest('label');
  if (anc && anc.control === el) out.push(anc);
  if (el.id && el.getRootNode().querySelectorAll) {
    for (const l of el.getRootNode().querySelectorAll('label[for="' + CSS.escape(el.id) + '"]')) if (l.control === el && !out.includes(l)) out.push(l);
  }
  return out;
}

function firstChild(el, tag) {
  for (const c of el.children) if (c.localName === tag) return c;
  return null;
}

// Value of a control embedded in another element's name, or null when the
// element is no such control.
function embeddedValue(el, role) {
  switch (role) {
    case 'textbox': case 'searchbox':
      return el.localName === 'input' || el.localName === 'textarea' ? el.value : collapse(el.textContent || '');
    case 'combobox': case 'listbox':
      if (el.localName === 'select') return Array.from(el.selectedOptions).map((o) => o.label).join(' ');
      if (el.localName === 'input') return el.value;
      return '';
    case 'slider': case 'spinbutton': case 'progressbar': case 'meter': case 'scrollbar':
      return aria(el, 'aria-valuetext') || aria(el, 'aria-valuenow') || (el.value !== undefined ? String(el.value) : '');
  }
  return null;
}

// fileButtonLabel is the label of the button a file input draws: Chromium
// names an unlabelled file input with it. The page cannot read the
// browser's own (localised) text, so this is Chromium's en-US string.
function fileButtonLabel(el) {
  return el.multiple ? 'Choose Files' : 'Choose File';
}

// withFiles appends the chosen file names, as Chromium does.
function withFiles(el, name) {
  const f = el.files;
  if (!f || !f.length) return name;
  return name + ': ' + (f.length === 1 ? f[0].name : f.length + ' files');
}

// nativeName is HTML's own name source for the element (HTML-AAM), or ''.
// top is false inside another element's name, where labels are not used.
function nativeName(el, role, ctx, top) {
  switch (el.localName) {
    case 'input': {
      const t = (el.getAttribute('type') || '').toLowerCase();
      const labels = top ? labelsText(el, ctx) : '';
      if (t === 'button' || t === 'submit' || t === 'reset') {
        if (labels) return labels;
        if (el.hasAttribute('value')) return collapse(el.value);
        return t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : '';
      }
      if (t === 'image') {
        if (labels) return labels;
        const alt = el.getAttribute('alt');
        if (alt) return collapse(alt);
        if (el.hasAttribute('value')) return collapse(el.value);
        const title = el.getAttribute('title');
        if (title && title.trim()) return collapse(title);
        return 'Submit';
      }
      if (t === 'file') return withFiles(el, labels || fileButtonLabel(el));
      return labels;
    }
    case 'textarea': case 'select': case 'meter': case 'progress': case 'output': case 'button':
      return top ? labelsText(el, ctx) : '';
    case 'img': case 'area':
      return collapse(el.getAttribute('alt') || '');
    case 'fieldset': {
      const l = firstChild(el, 'legend');
      return l ? collapse(textAlt(l, { inLabelledBy: ctx.inLabelledBy, includeHidden: ctx.includeHidden, skip: null })) : '';
    }
    case 'table': {
      const c = el.caption;
      if (c) return collapse(textAlt(c, { inLabelledBy: ctx.inLabelledBy, includeHidden: ctx.includeHidden, skip: null }));
      return collapse(el.getAttribute('summary') || '');
    }
    case 'optgroup': return collapse(el.getAttribute('label') || '');
    case 'option': return el.hasAttribute('label') ? collapse(el.getAttribute('label')) : '';
  }
  if (top && el.localName.includes('-')) {
    const l = labelsText(el, ctx);
    if (l) return l;
  }
  if (el.namespaceURI === SVG_NS) {
    const t = firstChild(el, 'title');
    return t ? collapse(t.textContent || '') : '';
  }
  return '';
}

const SVG_NS = 'http://www.w3.org/2000/svg';

function placeholder(el) {
  const p = el.getAttribute('placeholder');
  if (p && (el.localName === 'input' || el.localName === 'textarea')) return collapse(p);
  const ap = el.getAttribute('aria-placeholder');
  return ap ? collapse(ap) : '';
}

// tooltip is the title attribute as a name: not on a role that prohibits
// a name (unless focusable), and not when it only repeats the content.
function tooltip(el, role, ctx) {
  const title = el.getAttribute('title');
  if (title === null || !title.trim()) return '';
  if (!ctx.inLabelledBy && NAME_PROHIBITED.has(role) && !isFocusable(el) && !el.localName.includes('-')) return '';
  const t = collapse(title);
  if (t === contentText(el, PLAIN)) return '';
  return t;
}

const PLAIN = { inLabelledBy: false, includeHidden: false, skip: null };

// accName returns [name, fromContent] for an element in the tree.
//
// With deferContent, a name that would come from the element's content is
// not computed: accName returns [null, true] and the caller computes it only
// if it needs it (contentName).
function accName(el, role, deferContent) {
  const self = { inLabelledBy: false, includeHidden: false, skip: el };
  const lb = labelledByText(el, self);
  if (lb) return [lb, false];
  const al = ariaLabel(el);
  if (al) return [al, false];
  if (role === 'presentation') return ['', false];
  const nat = nativeName(el, role, self, true);
  if (nat) return [nat, false];
  // An image with alt="" is named by nothing else.
  if ((el.localName === 'img' || el.localName === 'area') && el.getAttribute('alt') === '') return ['', false];
  const editable = role === 'textbox' || role === 'searchbox' || role === 'combobox' || role === 'spinbutton';
  if (editable && el.localName !== 'select') {
    const t = tooltip(el, role, PLAIN);
    if (t) return [t, false];
    const p = placeholder(el);
    if (p) return [p, false];
    return ['', false];
  }
  if (ownNameFromContent(el, role)) {
    if (deferContent) return [null, true];
    const t = contentText(el, PLAIN);
    if (t) return [t, true];
  }
  return [tooltip(el, role, PLAIN), false];
}

// contentName finishes a name accName deferred.
function contentName(el, role) {
  const t = contentText(el, PLAIN);
  return t ? [t, true] : [tooltip(el, role, PLAIN), false];
}

// nameFromAttr is set by textAlt: whether the text it returned came from an
// attribute or a value rather than from content (such text is set off by
// spaces from its neighbours).
let nameFromAttr = false;

function fromAttr(t) {
  nameFromAttr = true;
  return t;
}

function fromContent(t) {
  nameFromAttr = false;
  return t;
}

// textAlt is the text alternative of an element met while computing
// another element's name (accname step 2 for descendants and references).
function textAlt(el, ctx) {
  if (!ctx.includeHidden) {
    if (excluded(el)) return fromContent('');
    if (invisible(el)) {
      // visibility:hidden hides the element's own text, but visible
      // descendants still count.
      let s = '';
      for (const c of childNodes(el)) if (c.nodeType === 1) s += ' ' + textAlt(c, ctx);
      return fromContent(s);
    }
  }
  if (el.localName === 'br') return fromContent(' ');
  const role = roleOf(el);
  if (role === 'presentation') return fromContent(contentRaw(el, ctx));
  if (el !== ctx.skip) {
    // An empty text field says what it is by its own name instead, as in
    // Chromium (a grid's filter input inside a header cell).
    const ev = embeddedValue(el, role);
    if (ev !== null && !(ev === '' && (role === 'textbox' || role === 'searchbox'))) return fromAttr(ev);
  }
  const lb = labelledByText(el, ctx);
  if (lb) return fromAttr(lb);
  const al = ariaLabel(el);
  if (al) return fromAttr(al);
  const nat = nativeName(el, role, ctx, false);
  if (nat) return fromAttr(nat);
  if ((el.localName === 'img' || el.localName === 'area') && el.getAttribute('alt') === '') return fromContent('');
  if (ctx.inLabelledBy || contributesContent(el, role)) {
    const t = contentRaw(el, ctx);
    if (t.trim()) return fromContent(t);
  }
  return fromAttr(tooltip(el, role, ctx));
}

// transformText applies CSS text-transform: names use the rendered text.
function transformText(t, tt) {
  if (!t || !tt || tt === 'none') return t;
  if (tt === 'uppercase') return t.toUpperCase();
  if (tt === 'lowercase') return t.toLowerCase();
  if (tt === 'capitalize') return t.replace(/(^|[\s\p{P}])(\p{Ll})/gu, (_, a, b) => a + b.toUpperCase());
  return t;
}

// contentText joins the text of an element's flat-tree children, with CSS
// generated text, putting spaces around blocks, inline blocks and text
// that came from attributes.
function contentText(el, ctx) {
  return contentRaw(el, ctx).trim();
}

// contentRaw is contentText with white space at its ends kept (one space
// at most): an inline element's edges, and blocks inside it, still set its
// text off from its neighbours ("Pets<small><pre>1.0</pre></small>" is
// "Pets 1.0").
function contentRaw(el, ctx) {
  const memo = textMemo && ctx === PLAIN;
  if (memo) {
    const m = textMemo.get(el);
    if (m !== undefined) return m;
  }
  const tt = styleOf(el).textTransform;
  let s = transformText(pseudoText(el, '::before'), tt);
  const list = childNodes(el);
  for (let i = 0, n = list.length; i < n; i++) {
    const c = list[i];
    if (c.nodeType === 3) {
      s += transformText(c.data, tt);
    } else if (c.nodeType === 1) {
      // ctx.leave: controls inside a leaf-role element that print as
      // children of their own (innerControls), not as its name.
      if (c === ctx.skip || (ctx.leave && ctx.leave.has(c))) { s += ' '; continue; }
      // A line-break opportunity, not a space.
      if (c.localName === 'wbr') continue;
      const t = textAlt(c, ctx);
      // Owned elements sit elsewhere on the page: set them off too.
      s += !nameFromAttr && isInline(c) && !(ownedSet && ownedSet.has(c)) ? t : ' ' + t + ' ';
      nameFromAttr = false;
    }
  }
  s += transformText(pseudoText(el, '::after'), tt);
  s = s.replace(INVISIBLE_CHARS, '').replace(WS, ' ');
  if (memo) textMemo.set(el, s);
  return s;
}
