// ---- roles ---------------------------------------------------------------
// Roles follow WAI-ARIA 1.2 and HTML-AAM as Chromium exposes them. Names are
// ARIA's, except where Chromium has a role ARIA lacks: iframe, canvas,
// video, audio, svg (an unnamed <svg> root). "generic" is a container with
// no meaning of its own; "presentation" removes the element, not its content.

const ARIA_ROLES = new Set(('alert alertdialog application article banner blockquote button caption cell checkbox code columnheader ' +
  'combobox comment complementary contentinfo definition deletion dialog directory document emphasis feed figure form generic ' +
  'grid gridcell group heading img image insertion link list listbox listitem log main mark marquee math menu menubar menuitem ' +
  'menuitemcheckbox menuitemradio meter navigation none note option paragraph presentation progressbar radio radiogroup ' +
  'region row rowgroup rowheader scrollbar search searchbox separator slider spinbutton status strong subscript superscript ' +
  'switch tab table tablist tabpanel term textbox time timer toolbar tooltip tree treegrid treeitem').split(' '));

// Global ARIA attributes: an element with one of them (or focusable) keeps
// its implicit role even when marked role=none/presentation.
const GLOBAL_ARIA = ['aria-label', 'aria-labelledby', 'aria-describedby', 'aria-live', 'aria-controls', 'aria-owns',
  'aria-details', 'aria-keyshortcuts', 'aria-roledescription', 'aria-busy', 'aria-current', 'aria-flowto', 'aria-haspopup'];

function hasGlobalAria(el) {
  for (const a of GLOBAL_ARIA) if (el.hasAttribute(a)) return true;
  return false;
}

function explicitRole(el) {
  const attr = el.getAttribute('role');
  if (!attr) return '';
  for (const t of attr.trim().toLowerCase().split(/\s+/)) {
    if (ARIA_ROLES.has(t)) return t === 'img' ? 'image' : t;
  }
  return '';
}

// Section-like ancestors that turn header/footer into generic containers.
const SECTIONING = new Set(['article', 'aside', 'main', 'nav', 'section']);
const SECTIONING_ROLES = new Set(['article', 'complementary', 'main', 'navigation', 'region']);

function scopedToSection(el) {
  for (let p = flatParent(el); p && p.nodeType === 1; p = flatParent(p)) {
    if (SECTIONING.has(p.localName) || SECTIONING_ROLES.has(p.getAttribute('role') || '')) return true;
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

function implicitRole(el) {
  switch (el.localName) {
    case 'a': case 'area': return el.hasAttribute('href') ? 'link' : 'generic';
    case 'article': return 'article';
    case 'aside': return 'complementary';
    case 'blockquote': return 'blockquote';
    case 'button': return 'button';
    case 'caption': return 'caption';
    case 'code': return 'code';
    case 'dd': return 'definition';
    case 'del': case 's': return 'deletion';
    case 'details': return 'group';
    case 'dfn': case 'dt': return 'term';
    case 'dialog': return 'dialog';
    case 'em': return 'emphasis';
    case 'fieldset': return 'group';
    case 'figure': return 'figure';
    case 'footer': return scopedToSection(el) ? 'generic' : 'contentinfo';
    case 'form': return 'form';
    case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
    case 'header': return scopedToSection(el) ? 'generic' : 'banner';
    case 'hr': return 'separator';
    case 'iframe': case 'frame': return 'iframe';
    case 'img': return el.getAttribute('alt') === '' && !el.hasAttribute('title') && !hasGlobalAria(el) ? 'presentation' : 'image';
    case 'input': return inputRole(el);
    case 'ins': return 'insertion';
    case 'li': return 'listitem';
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
    case 'strong': case 'b': return el.localName === 'strong' ? 'strong' : 'generic';
    case 'sub': return 'subscript';
    case 'sup': return 'superscript';
    case 'summary': return 'button';
    case 'table': return 'table';
    case 'tbody': case 'thead': case 'tfoot': return 'rowgroup';
    case 'td': return cellRole(el);
    case 'th': return headerRole(el);
    case 'textarea': return 'textbox';
    case 'time': return 'time';
    case 'tr': return 'row';
    case 'svg': return 'svg';
    case 'canvas': return 'canvas';
    case 'video': return 'video';
    case 'audio': return 'audio';
    case 'label': return 'label';
    case 'legend': return 'legend';
    case 'figcaption': return 'caption';
    case 'dl': return 'list';
    case 'address': return 'group';
    case 'html': case 'body': return 'generic';
    default: return 'generic';
  }
}

function tableOf(el) {
  const t = el.closest('table');
  return t;
}

function cellRole(el) {
  const t = tableOf(el);
  const r = t && explicitRole(t);
  return r === 'grid' || r === 'treegrid' ? 'gridcell' : 'cell';
}

function headerRole(el) {
  const scope = (el.getAttribute('scope') || '').toLowerCase();
  if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
  if (scope === 'col' || scope === 'colgroup') return 'columnheader';
  // A th in a row with td cells heads that row; otherwise its column.
  const tr = el.parentElement;
  if (tr && tr.localName === 'tr' && tr.querySelector(':scope > td') && !(tr.parentElement && tr.parentElement.localName === 'thead')) return 'rowheader';
  return 'columnheader';
}

// roleOf returns the element's role, resolving role=none/presentation
// conflicts as Chromium does.
function roleOf(el) {
  const ex = explicitRole(el);
  if (ex === 'none' || ex === 'presentation') {
    if (isFocusable(el) || hasGlobalAria(el)) return implicitRole(el);
    return 'presentation';
  }
  if (ex) return ex;
  const im = implicitRole(el);
  if (im === 'region' && !hasLabelAttr(el)) return 'generic';
  if (im === 'form' && !hasLabelAttr(el)) return 'form';
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
  'svg', 'canvas', 'iframe', 'video', 'audio']);

// Roles an agent acts on: they always get a ref.
const ACTION_ROLES = new Set(['button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'switch', 'combobox', 'listbox',
  'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'treeitem', 'slider', 'spinbutton', 'scrollbar',
  'gridcell', 'iframe', 'video', 'audio']);

// Containers worth a ref so an agent can scope to them.
const SCOPE_ROLES = new Set(['navigation', 'main', 'banner', 'contentinfo', 'complementary', 'form', 'search', 'region',
  'dialog', 'alertdialog', 'tabpanel', 'menu', 'menubar', 'toolbar', 'tree', 'grid', 'treegrid', 'listbox', 'tablist']);

// Roles that take their name from their content when nothing else names them.
const NAME_FROM_CONTENT = new Set(['button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link', 'menuitem',
  'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'row', 'rowheader', 'switch', 'tab', 'tooltip', 'treeitem',
  'legend', 'caption', 'label']);

// Text-level roles an agent reads as text: folded into the surrounding text.
const INLINE_TEXT_ROLES = new Set(['generic', 'presentation', 'strong', 'emphasis', 'code', 'mark', 'deletion', 'insertion',
  'subscript', 'superscript', 'time', 'label', 'term', 'definition']);
