// ---- big pages: walks in slices, walks with a budget -----------------------
// A whole walk of a big page takes hundreds of milliseconds, during which
// the page could not answer its person. Such a walk is made in slices of
// about sliceMs, yielding to the page between them: first the children of
// wide elements (rows, items) are listed, then each is walked on its own,
// recording its output in the memo; a last walk from the top takes them
// from the memo and walks the rest. What changes between slices is seen as between two
// snapshots (the mutation records, the checks at reuse); a change the memo
// cannot follow makes that last walk a full one.
const bigElements = 4000; // a document with more elements is walked in slices
const wideChildren = 16; // an element with as many children has each walked on its own
const sliceMs = 20;
let sliced = null; // the walk in slices under way (a promise)

// A budget walk stops once its output passes the budget: walkSpent counts
// what the walk has made (text, roles, names and values; a reused block
// counts what it made when recorded), which is more than the caller keeps
// of it, so what the caller keeps is what a whole walk gives.
let walkBudget = 0;
let walkSpent = 0;
let walkCut = false;

// bigDocument reports a document to walk in slices: one of more than
// bigElements elements, unless a budget will stop the walk early (a page
// says about fifteen characters an element; a walk whose budget is short
// of that is walked in one go, and stops).
function bigDocument(budget) {
  const n = document.getElementsByTagName('*').length;
  return n > bigElements && !(budget > 0 && budget < 15 * n);
}

// yieldToPage lets the page's own tasks run: the walk goes on in a task
// of its own, posted to a message channel (unlike a timer, never
// throttled in a tab in the background). Not scheduler.yield: its
// continuation runs ahead of the page's tasks, which then waited up to
// 421 ms for a turn during a walk of the 5,000-row page (36-63 ms so).
function yieldToPage() {
  return new Promise((resolve) => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => resolve();
    ch.port2.postMessage(0);
  });
}

// inSlice runs fn as one slice of a walk whose state (begun by
// walkInSlices) lasts across slices: each element's style is read once
// for the whole walk. What changes between slices does not reach an
// element walked later through those caches: a change dirties the element
// and its ancestors, which the slices then skip, and an attribute change
// its subtree, which the last walk walks afresh.
function inSlice(opts, fn) {
  walkActive = deepActiveElement();
  walkAll = !!opts.all;
  walkCount = 0;
  try {
    if (walkModal || ownsMap) return null; // not recorded: see walkFresh
    memoOn = true;
    memoRecord = true;
    return fn();
  } finally {
    walkActive = null;
    walkAll = false;
    pendingCells = [];
    memoOn = false;
    memoRecord = false;
    freshBelow = 0;
  }
}

async function walkInSlices(opts, key, last) {
  // Form controls' states change without a record: compared at the end.
  const before = controlStates();
  memo = new WeakMap();
  borrowers = new Map();
  wanted = new Map();
  sheetRisk = readSheetRisk();
  dirtyAll = false;
  dirtyEls = new Set();
  deepDirty = new Set();
  changes = 0;
  // The custom elements met in every slice are asked about with the
  // last walk's (which takes the slices' output from the memo).
  axNew = [];
  beginWalkState();
  try {
    return await slices(opts, key, last, before);
  } finally {
    endWalkState();
    axNew = null;
  }
}

async function slices(opts, key, last, before) {
  // The elements to walk on their own: the children of every element with
  // many (rows, items, cards), in document order, listed with a tree
  // walker that each slice takes up where the last left it. Cells are
  // walked with their rows. (Shadow trees and what is not below a wide
  // element are left to the last walk.)
  const units = [];
  const tw = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_ELEMENT);
  let listing = true;
  while (listing) {
    const end = performance.now() + sliceMs;
    if (!tw.currentNode.isConnected) break; // the page took it away: list no further
    for (let k = 1; ; k++) {
      const n = tw.nextNode();
      if (!n) { listing = false; break; }
      if (n.childElementCount >= wideChildren) {
        for (let c = n.firstElementChild; c; c = c.nextElementSibling) {
          if (c.localName !== 'td' && c.localName !== 'th') units.push(c);
        }
      }
      if ((k & 255) === 0 && performance.now() > end) break;
    }
    await yieldToPage();
  }
  // Then each, the last first (an inner one before the one holding it),
  // unless it is not rendered.
  let i = units.length - 1;
  while (i >= 0 && !dirtyAll) {
    i = inSlice(opts, () => {
      const end = performance.now() + sliceMs;
      for (; i >= 0; i--) {
        const el = units[i];
        if (el.isConnected && !dirtyEls.has(el) && el.checkVisibility()) visit(el, { out: [], buf: '', carrier: null });
        if ((i & 31) === 0 && performance.now() > end) { i--; break; }
      }
      settleCells();
      return i;
    });
    if (i === null) break;
    await yieldToPage();
  }
  noteRecords(walkObserver.takeRecords());
  const controls = controlStates();
  const stale = i === null || dirtyAll || !sameStates(before, controls);
  endWalkState(); // the last walk reads everything afresh
  return keptWalk(opts, key, controls, last, stale, true);
}
