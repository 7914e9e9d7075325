// ---- roles ---------------------------------------------------------------
// Roles follow WAI-ARIA 1.2 and HTML-AAM as Chromium exposes them (see
// docs/fidelity.md; internal/engine/capture/axcompare_test.go holds the agent to
// Chromium's own tree). Names are ARIA's, except where Chromium has a role
// ARIA lacks: iframe, canvas, video, audio, legend, label. "generic" is a
// container with no meaning of its own; "presentation" removes the element,
// not its content.

const ARIA_ROLES = new Set(('alert alertdialog application article banner blockquote button caption cell checkbox code columnheader ' +
  'combobox comment complementary contentinfo definition deletion dialog directory document emphasis feed figure form generic ' +
  'grid gridcell group heading img image insertion link list listbox listitem log main mark marquee math menu menubar menuitem ' +
  'menuitemcheckbox menuitemradio meter navigation none note option paragraph presentation progressbar radio radiogroup ' +
  'region row rowgroup rowheader scrollbar search searchbox sectionfooter sectionheader separator slider spinbutton status ' +
  'strong subscript suggestion superscript switch tab table tablist tabpanel term textbox time timer toolbar tooltip tree ' +
  'treegrid treeitem ' +
  // DPUB-ARIA and Graphics ARIA, which Chromium exposes under their own names.
  'doc-abstract doc-acknowledgments doc-afterword doc-appendix doc-backlink doc-biblioentry doc-bibliography doc-biblioref ' +
  'doc-chapter doc-colophon doc-conclusion doc-cover doc-credit doc-credits doc-dedication doc-endnote doc-endnotes ' +
  'doc-epigraph doc-epilogue doc-errata doc-example doc-footnote doc-foreword doc-glossary doc-glossref doc-index ' +
  'doc-introduction doc-noteref doc-notice doc-pagebreak doc-pagefooter doc-pageheader doc-pagelist doc-part doc-preface ' +
  'doc-prologue doc-pullquote doc-qna doc-subtitle doc-tip doc-toc graphics-document graphics-object graphics-symbol').split(' '));

// Global ARIA attributes: an element with one of them (or focusable) keeps
// its implicit role even when marked role=none/presentation.
const GLOBAL_ARIA = ['aria-label', 'aria-labelledby', 'aria-describedby', 'aria-description', 'aria-live', 'aria-controls',
  'aria-owns', 'aria-details', 'aria-keyshortcuts', 'aria-roledescription', 'aria-busy', 'aria-current', 'aria-flowto',
  'aria-haspopup', 'aria-atomic', 'aria-relevant', 'aria-dropeffect', 'aria-grabbed', 'aria-errormessage'];

function hasGlobalAria(el) {
  for (const a of GLOBAL_ARIA) if (el.hasAttribute(a)) return true;
  return false;
}

// hasAnyAria reports whether the element carries any aria-* attribute.
function hasAnyAria(el) {
  const attrs = el.attributes;
  for (let i = 0; i < attrs.length; i++) if (attrs[i].name.startsWith('aria-')) return true;
  return false;
}

// explicitRole returns the first recognised token of the role attribute.
// region and form count only when the element has an author-given name
// (otherwise the next token, or the implicit role, applies).
function explicitRole(el) {
  const attr = el.getAttribute('role');
  if (!attr) return '';
  for (const t of attr.trim().toLowerCase().split(/\s+/)) {
    if (!ARIA_ROLES.has(t)) continue;
    if ((t === 'region' || t === 'form') && !hasLabelAttr(el)) continue;
    if (t === 'img') return 'image';
    if (t === 'directory') return 'list';
    return t;
  }
  return '';
}

// Section-like ancestors that make header/footer section headers and
// footers, and an unnamed aside a plain container.
const SECTIONING = new Set(['article', 'aside', 'main', 'nav', 'section']);
const SECTIONING_ROLES = new Set(['article', 'complementary', 'main', 'navigation', 'region']);

// scopedToSection reports whether a sectioning ancestor (by its resolved
// role: article, complementary, main, navigation or a section) scopes the
// element. exceptMain leaves main out, as for aside.
function scopedToSection(el, exceptMain) {
  for (let p = flatParent(el); p && p.nodeType === 1; p = flatParent(p)) {
    const er = explicitRole(p);
    if (er && !((er === 'none' || er === 'presentation') && !isPresentational(p))) {
      if (SECTIONING_ROLES.has(er) && !(exceptMain && er === 'main')) return true;
      continue;
    }
    const tag = p.localName;
    if (!SECTIONING.has(tag) || (exceptMain && tag === 'main')) continue;
    // A scoped, unnamed aside is a plain container and scopes nothing.
    if (tag === 'aside' && !hasLabelAttr(p) && scopedToSection(p, true)) continue;
    return true;
  }
  return false;
}

function inputRole(el) {
  const t = (el.getAttribute('type') || 'text').toLowerCase();
  switch (t) {
    case 'button': case 'submit': case 'reset': case 'image': return 'button';
    case 'checkbox': return 'checkbox';
    case 'radio': return 'radio';
    case 'range': return 'slider';
    case 'number': return 'spinbutton';
    case 'file': return 'button';
    case 'color': return 'button';
    case 'hidden': return '';
    case 'search': return el.hasAttribute('list') ? 'combobox' : 'searchbox';
    case 'date': case 'datetime-local': case 'month': case 'time': case 'week': return 'textbox';
    default: return el.hasAttribute('list') ? 'combobox' : 'textbox';
  }
}

// A minimum role: a plain element that is a popover, draggable or
// autofocused is a group rather than a bare container.
function genericOrGroup(el) {
  if (el.hasAttribute('popover') || el.hasAttribute('draggable') || el.hasAttribute('autofocus')) return 'group';
  return 'generic';
}

// An <svg> root is an image unless something in it is exposed on its own
// (a link, text, a titled or labelled part, a nested document): then it is
// a container of those ("svg"), as Chromium's SvgRoot.
let svgMemo = null;

function svgRootRole(el) {
  if (svgMemo) {
    let r = svgMemo.get(el);
    if (r === undefined) { r = svgHasContent(el) ? 'svg' : 'image'; svgMemo.set(el, r); }
    return r;
  }
  return svgHasContent(el) ? 'svg' : 'image';
}

function svgHasContent(root) {
  for (const e of root.querySelectorAll('a, [role], [aria-label], [aria-labelledby], [tabindex], text, foreignObject, image, title, desc')) {
    if ((e.localName === 'title' || e.localName === 'desc') && e.parentElement === root) continue;
    let skip = false;
    for (let p = e; p && p !== root; p = p.parentElement) {
      if (SVG_SKIP.has(p.localName) || p.getAttribute('aria-hidden') === 'true') { skip = true; break; }
    }
    if (!skip) return true;
  }
  return false;
}

function implicitRole(el) {
  switch (el.localName) {
    case 'a': case 'area': return el.hasAttribute('href') || el.hasAttribute('onclick') ? 'link' : 'generic';
    case 'article': return 'article';
    case 'aside': return hasLabelAttr(el) || !scopedToSection(el, true) ? 'complementary' : 'generic';
    case 'blockquote': return 'blockquote';
    case 'button': return 'button';
    case 'caption': return 'caption';
    case 'code': return 'code';
    case 'dd': return inheritsPresentation(el) ? 'presentation' : 'definition';
    case 'del': case 's': return 'deletion';
    case 'details': return 'group';
    case 'dfn': return 'term';
    case 'dt': return inheritsPresentation(el) ? 'presentation' : 'term';
    case 'dialog': return 'dialog';
    case 'em': return 'emphasis';
    case 'fieldset': return 'group';
    case 'figure': return 'figure';
    case 'footer': return scopedToSection(el, false) ? 'sectionfooter' : 'contentinfo';
    case 'form': return 'form';
    case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
    case 'header': return scopedToSection(el, false) ? 'sectionheader' : 'banner';
    case 'hgroup': return 'group';
    case 'hr': return 'separator';
    case 'iframe': case 'frame': return 'iframe';
    case 'img': return el.getAttribute('alt') === '' && !el.hasAttribute('title') && !hasGlobalAria(el) ? 'presentation' : 'image';
    case 'input': return inputRole(el);
    case 'ins': return 'insertion';
    case 'li': return listItemIgnored(el) ? 'presentation' : 'listitem';
    case 'main': return 'main';
    case 'mark': return 'mark';
    case 'math': return 'math';
    case 'menu': case 'ol': case 'ul': return 'list';
    case 'meter': return 'meter';
    case 'nav': return 'navigation';
    case 'optgroup': return 'group';
    case 'option': return 'option';
    case 'output': return 'status';
    case 'p': return 'paragraph';
    case 'progress': return 'progressbar';
    case 'search': return 'search';
    case 'section': return 'region';
    case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
    case 'strong': return 'strong';
    case 'sub': return 'subscript';
    case 'sup': return 'superscript';
    case 'summary': return el.parentElement && el.parentElement.localName === 'details' ? 'button' : 'generic';
    case 'table': return tableRole(el);
    case 'tbody': case 'thead': case 'tfoot': return sectionRole(el);
    case 'tr': return rowRole(el);
    case 'td': return cellRole(el);
    case 'th': return headerRole(el);
    case 'textarea': return 'textbox';
    case 'time': return 'time';
    case 'svg': return el.ownerSVGElement ? 'group' : svgRootRole(el);
    case 'canvas': return 'canvas';
    case 'video': return 'video';
    case 'audio': return 'audio';
    case 'label': return 'label';
    case 'legend': return 'legend';
    case 'figcaption': return 'caption';
    case 'dl': return 'list';
    case 'address': return 'group';
    case 'html': case 'body': return 'generic';
    default: return genericOrGroup(el);
  }
}

// ---- tables ----------------------------------------------------------------
// Sections, rows and cells take their roles from the nearest table.

function tableOf(el) {
  return el.closest('table');
}

// tableRole: every rendered <table> is a table. Chromium tells data
// tables from layout tables (its LayoutTable roles), but keeps both in its
// tree with their rows and cells; a reader sees a grid of cells either way,
// and an empty cell keeps its place (docs/fidelity.md).
function tableRole(t) {
  return 'table';
}

// roleOfTable is the role a table's parts take their own from: table,
// grid or treegrid when the parts are table parts, anything else when not.
function roleOfTable(el) {
  const t = tableOf(el);
  if (!t) return '';
  const ex = explicitRole(t);
  if (ex === 'none' || ex === 'presentation') return isFocusable(t) || hasGlobalAria(t) ? tableRole(t) : 'presentation';
  return ex || tableRole(t);
}

const TABLE_LIKE = new Set(['table', 'grid', 'treegrid']);

function sectionRole(el) {
  if (!TABLE_LIKE.has(roleOfTable(el))) return 'generic';
  // Chromium leaves an uninteresting <tbody> out of the tree.
  if (el.localName === 'tbody' && !interesting(el)) return 'generic';
  return 'rowgroup';
}

function rowRole(el) {
  return TABLE_LIKE.has(roleOfTable(el)) ? 'row' : 'generic';
}

function cellRole(el) {
  const r = roleOfTable(el);
  if (!TABLE_LIKE.has(r)) return 'generic';
  return r === 'table' ? 'cell' : 'gridcell';
}

function isNonEmptyTd(n) {
  return !!n && n.nodeType === 1 && n.localName === 'td' && n.hasChildNodes();
}

function isTh(n) {
  return !!n && n.nodeType === 1 && n.localName === 'th';
}

function headerRole(el) {
  if (!TABLE_LIKE.has(roleOfTable(el))) return 'generic';
  const scope = (el.getAttribute('scope') || '').toLowerCase();
  if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
  if (scope === 'col' || scope === 'colgroup') return 'columnheader';
  // Chromium's guess from the neighbours: a header between headers heads a
  // column, one beside a non-empty data cell heads a row.
  const next = el.nextSibling, prev = el.previousSibling;
  if (!next && !prev) return 'columnheader';
  if (isTh(next) && isTh(prev)) return 'columnheader';
  if (isNonEmptyTd(next) || isNonEmptyTd(prev)) return 'rowheader';
  const row = el.parentElement;
  if (!row || row.localName !== 'tr') return 'columnheader';
  const first = row.firstElementChild, last = row.lastElementChild;
  if (isNonEmptyTd(first) || isNonEmptyTd(last)) return 'rowheader';
  if ((first && isNonEmptyTd(first.nextElementSibling)) || (last && isNonEmptyTd(last.previousElementSibling))) return 'rowheader';
  return 'columnheader';
}

// interesting reports whether Chromium keeps an otherwise uninteresting
// element in its tree: it could be an in-page link target, or it carries
// ARIA, a title or focus.
function interesting(el) {
  if (el.id && el.getRootNode() === document) return true;
  return hasAnyAria(el) || el.hasAttribute('title') || isFocusable(el);
}

// ---- role resolution -------------------------------------------------------

// isPresentational reports whether an element's own role=none/presentation
// stands (not overridden by focus or global ARIA attributes).
function isPresentational(el) {
  const ex = explicitRole(el);
  return (ex === 'none' || ex === 'presentation') && !isFocusable(el) && !hasGlobalAria(el);
}

// inheritsPresentation reports whether a term or definition inherits
// role=none from its presentational <dl> (the owned elements of a
// presentational element lose their roles too).
function inheritsPresentation(el) {
  if (isFocusable(el) || hasGlobalAria(el)) return false;
  const p = flatParent(el);
  return !!p && p.nodeType === 1 && p.localName === 'dl' && isPresentational(p);
}

// listItemIgnored reports whether an <li> is no list item: its list
// element has another role (menubar and tablist markup, or none).
function listItemIgnored(el) {
  if (isFocusable(el) || hasGlobalAria(el)) return false;
  const p = flatParent(el);
  if (!p || p.nodeType !== 1) return false;
  const tag = p.localName;
  if (!(tag === 'ul' || tag === 'ol' || tag === 'menu')) return false;
  return roleOf(p) !== 'list';
}

// Roles that need a particular ancestor; without it Chromium exposes a
// plain container. Ancestors that are containers themselves are skipped.
const REQUIRED_CONTEXT = {
  listitem: new Set(['list', 'group']),
  option: new Set(['listbox', 'group']),
  treeitem: new Set(['tree', 'group']),
};

function hasContext(el, wanted) {
  for (let p = flatParent(el); p && p.nodeType === 1; p = flatParent(p)) {
    const r = roleOf(p);
    if (wanted.has(r)) return true;
    if (r !== 'generic' && r !== 'presentation') return false;
  }
  return false;
}

// roleOf returns the element's role, resolving role=none/presentation
// conflicts as Chromium does.
function roleOf(el) {
  const ex = explicitRole(el);
  if (ex === 'none' || ex === 'presentation') {
    if (isFocusable(el) || hasGlobalAria(el)) return implicitOrUnnamed(el);
    return 'presentation';
  }
  if (ex) {
    const ctx = REQUIRED_CONTEXT[ex];
    if (ctx && !hasContext(el, ctx)) return 'generic';
    return ex;
  }
  // A custom element's internals (25-internals.js): Chromium has placed
  // it in its context already.
  return internalsRole(el) || implicitOrUnnamed(el);
}

function implicitOrUnnamed(el) {
  const im = implicitRole(el);
  if (im === 'region' && !hasLabelAttr(el)) return 'generic';
  return im;
}

function hasLabelAttr(el) {
  const l = el.getAttribute('aria-label');
  if (l && l.trim()) return true;
  return el.hasAttribute('aria-labelledby') || el.hasAttribute('title');
}

function isFocusable(el) {
  if (el.hasAttribute('tabindex')) return true;
  if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return true;
  switch (el.localName) {
    case 'a': case 'area': return el.hasAttribute('href');
    case 'button': case 'select': case 'textarea': return !el.disabled;
    case 'input': return el.type !== 'hidden' && !el.disabled;
    case 'iframe': case 'summary': return true;
  }
  return false;
}

// Roles whose children are presentational: their content shows in their
// name, not as child nodes.
const LEAF_ROLES = new Set(['button', 'checkbox', 'image', 'math', 'menuitemcheckbox', 'menuitemradio', 'meter', 'option',
  'progressbar', 'radio', 'scrollbar', 'separator', 'slider', 'switch', 'tab', 'textbox', 'searchbox', 'spinbutton',
  'canvas', 'iframe', 'video', 'audio']);

// Roles an agent acts on: they always get a ref.
const ACTION_ROLES = new Set(['button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'switch', 'combobox', 'listbox',
  'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'treeitem', 'slider', 'spinbutton', 'scrollbar',
  'gridcell', 'iframe', 'video', 'audio']);

// Containers worth a ref so an agent can scope to them.
const SCOPE_ROLES = new Set(['navigation', 'main', 'banner', 'contentinfo', 'complementary', 'form', 'search', 'region',
  'dialog', 'alertdialog', 'tabpanel', 'menu', 'menubar', 'toolbar', 'tree', 'grid', 'treegrid', 'listbox', 'tablist']);

// Roles that take their name from their content when nothing else names
// them (Chromium's SupportsNameFromContents; a row only inside a grid).
const NAME_FROM_CONTENT = new Set(['button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link', 'menuitem',
  'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'rowheader', 'switch', 'tab', 'tooltip', 'treeitem',
  'term', 'doc-backlink', 'doc-biblioref', 'doc-glossref', 'doc-noteref']);

// Text-level roles an agent reads as text: folded into the surrounding text.
const INLINE_TEXT_ROLES = new Set(['generic', 'presentation', 'strong', 'emphasis', 'code', 'mark', 'deletion', 'insertion',
  'subscript', 'superscript', 'time', 'label', 'term', 'definition']);
