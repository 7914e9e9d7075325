// ---- what takes no pointer events ---------------------------------------
// An element styled pointer-events: none is clicked through: a person's
// click at its place goes to whatever lies under it there. Two kinds of
// page are built on that, and a click on such an element lands where a
// person's does (prepare, in 40-actions.js):
//
//   - a layer drawn over the element that handles its clicks: an editor's
//     text layer (its lines) inside the scroller that places the caret
//     from where the click lands. At a line's centre the hit test finds
//     that ancestor, which is no cover: it takes the click for the line
//     (clickedThrough).
//   - a control kept for forms and screen readers, transparent and laid
//     over the widget a library draws for it (a native <select> over a
//     drawn combobox): a click at its place goes to what the widget draws
//     there, and so is aimed at that widget (drawnBy).
//
// Playwright is stricter: its hit target must be the element or inside
// it, so it waits out its timeout on both ("… intercepts pointer
// events"). A control that takes no pointer events itself, with nothing
// drawn for it, is still refused: the page turned it off (a button
// styled inert), and a click at its place is no click on it.

// noPointer reports an element that takes no pointer events.
function noPointer(el) {
  return styleOf(el).pointerEvents === 'none';
}

// clickedThrough reports a hit at el's centre on an ancestor of el that
// takes the click for it: el takes no pointer events and is no control
// (a line of text, a drawn decoration).
function clickedThrough(el, hit) {
  if (!hit || hit === el || !flatContains(hit, el) || !noPointer(el)) return false;
  return !ACTION_ROLES.has(twinRole(el)) && !el.matches(OTHER_CONTROLS);
}

// drawnBy is the widget that draws el, a control a person neither sees
// nor points at where it lies (transparent, taking no pointer events):
// the nearest visible ancestor, a few levels up, that is a widget itself
// (a combobox, a listbox, a button…) and holds el's place; null when
// there is none.
function drawnBy(el) {
  let level = 0;
  for (let p = flatParent(el); p && p.nodeType === 1 && level < 4; p = flatParent(p), level++) {
    if (p === document.body || p === document.documentElement) return null;
    if (!seen(p) || !inBox(p, el)) continue;
    if (WIDGET_ROLES.has(twinRole(p)) && visibleBox(p)) return p;
  }
  return null;
}
