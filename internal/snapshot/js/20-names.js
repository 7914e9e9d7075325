// ---- accessible names ----------------------------------------------------
// Accessible Name and Description Computation 1.2, the parts Chromium
// implements that matter on real pages: aria-labelledby, aria-label, native
// labels and alternatives, embedded control values, name from content with
// CSS generated text, and title/placeholder fallbacks.

// Content text per element for one walk: a row's name reuses its cells'.
let textMemo = null;

function labelledByText(el, ctx) {
  const ids = el.getAttribute('aria-labelledby');
  if (!ids || ctx.inLabelledBy) return null;
  const root = el.getRootNode();
  const parts = [];
  for (const id of ids.trim().split(/\s+/)) {
    const ref = root.getElementById ? root.getElementById(id) : document.getElementById(id);
    if (!ref) continue;
    parts.push(textAlt(ref, { inLabelledBy: true, includeHidden: true, skip: ctx.skip }));
  }
  const t = collapse(parts.join(' '));
  return t || null;
}

function ariaLabel(el) {
  const l = el.getAttribute('aria-label');
  return l && l.trim() ? collapse(l) : '';
}

function pseudoText(el, which) {
  const c = getComputedStyle(el, which).content;
  if (!c || c === 'none' || c === 'normal') return '';
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

function labelsText(el, ctx) {
  const labels = el.labels;
  if (!labels || !labels.length) return '';
  const parts = [];
  for (const l of labels) parts.push(contentText(l, { inLabelledBy: ctx.inLabelledBy, includeHidden: ctx.includeHidden, skip: el }));
  return collapse(parts.join(' '));
}

function childText(el, tag) {
  for (const c of el.children) if (c.localName === tag) return collapse(c.textContent || '');
  return '';
}

// Value of a control embedded in another element's name.
function embeddedValue(el, role) {
  switch (role) {
    case 'textbox': case 'searchbox':
      return el.localName === 'input' || el.localName === 'textarea' ? el.value : collapse(el.textContent || '');
    case 'combobox': case 'listbox':
      if (el.localName === 'select') return Array.from(el.selectedOptions).map((o) => o.label).join(' ');
      if (el.localName === 'input') return el.value;
      return '';
    case 'slider': case 'spinbutton': case 'progressbar': case 'meter': case 'scrollbar':
      return el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow') || (el.value !== undefined ? String(el.value) : '');
  }
  return null;
}

function nativeName(el, role, ctx) {
  switch (el.localName) {
    case 'input': {
      const t = (el.getAttribute('type') || '').toLowerCase();
      if (t === 'button' || t === 'submit' || t === 'reset') {
        const labels = labelsText(el, ctx);
        if (labels) return labels;
        if (el.hasAttribute('value')) return collapse(el.value);
        return t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : '';
      }
      if (t === 'image') return collapse(el.getAttribute('alt') || el.value || '') || 'Submit';
      return labelsText(el, ctx);
    }
    case 'textarea': case 'select': case 'meter': case 'progress': case 'output': case 'button':
      return labelsText(el, ctx);
    case 'img': case 'area':
      return collapse(el.getAttribute('alt') || '');
    case 'fieldset': return childText(el, 'legend');
    case 'figure': return childText(el, 'figcaption');
    case 'table': return el.caption ? collapse(el.caption.textContent || '') : '';
    case 'svg': return childText(el, 'title');
    case 'optgroup': return collapse(el.getAttribute('label') || '');
    case 'option': return el.hasAttribute('label') ? collapse(el.getAttribute('label')) : '';
  }
  return '';
}

function placeholder(el) {
  const p = el.getAttribute('placeholder') || el.getAttribute('aria-placeholder');
  return p ? collapse(p) : '';
}

const PLAIN = { inLabelledBy: false, includeHidden: false, skip: null };

// accName returns [name, fromContent] for an element in the tree.
function accName(el, role) {
  const self = { inLabelledBy: false, includeHidden: false, skip: el };
  const lb = labelledByText(el, self);
  if (lb) return [lb, false];
  const al = ariaLabel(el);
  if (al) return [al, false];
  const nat = nativeName(el, role, self);
  if (nat) return [nat, false];
  if (NAME_FROM_CONTENT.has(role)) {
    const t = contentText(el, PLAIN);
    if (t) return [t, true];
  }
  const title = el.getAttribute('title');
  if (title && title.trim()) return [collapse(title), false];
  if (role === 'textbox' || role === 'searchbox' || role === 'combobox') {
    const p = placeholder(el);
    if (p) return [p, false];
  }
  return ['', false];
}

// textAlt is the text alternative of an element met while computing
// another element's name (accname step 2 for descendants and references).
function textAlt(el, ctx) {
  if (!ctx.includeHidden) {
    if (excluded(el)) return '';
    if (invisible(el)) {
      // visibility:hidden hides the element's own text, but visible
      // descendants still count.
      let s = '';
      for (const c of childNodes(el)) if (c.nodeType === 1) s += ' ' + textAlt(c, ctx);
      return s;
    }
  }
  const lb = labelledByText(el, ctx);
  if (lb) return lb;
  const al = ariaLabel(el);
  if (al) return al;
  const role = roleOf(el);
  if (el !== ctx.skip) {
    const ev = embeddedValue(el, role);
    if (ev !== null) return ev;
  }
  const tag = el.localName;
  if (tag === 'img' || tag === 'area' || tag === 'input' || tag === 'svg') {
    const nat = nativeName(el, role, ctx);
    if (nat) return nat;
  }
  return contentText(el, ctx) || collapse(el.getAttribute('title') || '');
}

// contentText joins the text of an element's flat-tree children, with CSS
// generated text, putting spaces around block-level children.
function contentText(el, ctx) {
  const memo = textMemo && ctx === PLAIN;
  if (memo) {
    const m = textMemo.get(el);
    if (m !== undefined) return m;
  }
  let s = pseudoText(el, '::before');
  for (const c of childNodes(el)) {
    if (c.nodeType === 3) {
      s += c.data;
    } else if (c.nodeType === 1) {
      if (c === ctx.skip) continue;
      const t = textAlt(c, ctx);
      s += isInline(c) ? t : ' ' + t + ' ';
    }
  }
  s += pseudoText(el, '::after');
  s = collapse(s);
  if (memo) textMemo.set(el, s);
  return s;
}
