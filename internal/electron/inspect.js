// Evaluated by loupe (internal/electron) in an Electron app's MAIN process,
// through its Node inspector: Runtime.evaluate with awaitPromise,
// returnByValue, includeCommandLineAPI and silent. The whole file is one
// expression whose value is a promise of a plain JSON object:
//
//   { electronVersion, processType, electronVia?, contents: [{ id, type,
//     targetId, targetError?, hostId, ownWindow, devTools?, url }], error?,
//     tried? }
//
// It only reads: it lists web contents and asks each for its DevTools target
// id. It never navigates, focuses, or changes any window. A debugger it
// attaches to learn a target id is detached before it returns; one the app
// (or anyone) had already attached is used as it is and left attached.
(async () => {
  const out = {
    electronVersion: String((process.versions && process.versions.electron) || ''),
    processType: String(process.type || ''),
    contents: [],
  };

  // The inspector evaluates in the global scope, where CommonJS's `require`
  // is not defined. Capture what there is before the first await: the
  // command line API's `require` (includeCommandLineAPI) only exists while
  // the synchronous part of this evaluation runs.
  const commandLineRequire = typeof require === 'function' ? require : undefined;
  const ways = [
    ['process.mainModule.require', () => (process.mainModule ? process.mainModule.require('electron') : undefined)],
    ['require', () => (commandLineRequire ? commandLineRequire('electron') : undefined)],
    ['process.getBuiltinModule', () => (typeof process.getBuiltinModule === 'function' ? process.getBuiltinModule('electron') : undefined)],
  ];
  const message = (e) => String((e && e.message) || e).split('\n')[0];
  const tried = [];
  let electron = null;
  for (const [name, get] of ways) {
    let m;
    try {
      m = get();
    } catch (e) {
      tried.push(name + ': ' + message(e));
      continue;
    }
    // Outside Electron, require('electron') may find the npm package, which
    // exports the path of the Electron binary, a string: not the API.
    if (m && typeof m === 'object' && m.webContents && typeof m.webContents.getAllWebContents === 'function' &&
        m.BrowserWindow && typeof m.BrowserWindow.getAllWindows === 'function') {
      electron = m;
      out.electronVia = name;
      break;
    }
    tried.push(name + ': ' + (m === undefined ? 'not available' : 'not the Electron main-process API'));
  }
  if (!electron) {
    out.error = 'no-electron';
    out.tried = tried;
    return out;
  }
  const { webContents, BrowserWindow } = electron;

  // The web contents that are some BrowserWindow's own (win.webContents).
  // Compared by id: BrowserWindow.fromWebContents would also answer for a
  // WebContentsView's contents shown in that window. A BaseWindow has no
  // webContents of its own.
  const own = new Set();
  for (const w of BrowserWindow.getAllWindows()) {
    if (!w || (typeof w.isDestroyed === 'function' && w.isDestroyed())) continue;
    const wc = w.webContents;
    if (wc && typeof wc.id === 'number') own.add(wc.id);
  }

  const all = webContents.getAllWebContents();

  // The DevTools front ends opened for other contents.
  const devTools = new Set();
  for (const wc of all) {
    try {
      const d = wc.devToolsWebContents;
      if (d && typeof d.id === 'number') devTools.add(d.id);
    } catch (e) {
      // destroyed while we look: it is reported below
    }
  }

  const withTimeout = (promise, ms, what) => {
    let timer;
    const expired = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(what + ' did not answer within ' + ms + ' ms')), ms);
    });
    return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
  };

  // The CDP target id of one web contents, asked of that web contents
  // itself, so the mapping is exact by construction.
  const targetIdOf = async (wc) => {
    // Electron 41+: synchronous, and no debugger to attach.
    if (typeof wc.getOrCreateDevToolsTargetId === 'function') {
      const id = wc.getOrCreateDevToolsTargetId();
      if (typeof id === 'string' && id !== '') return id;
    }
    // Otherwise the web contents' own debugger (the way Electron's
    // documentation of webContents.fromDevToolsTargetId finds a target id):
    // Target.getTargetInfo without a targetId describes the attached target.
    const dbg = wc.debugger;
    const attachedHere = !dbg.isAttached();
    if (attachedHere) dbg.attach();
    try {
      const reply = await withTimeout(dbg.sendCommand('Target.getTargetInfo'), 5000, 'Target.getTargetInfo');
      const id = reply && reply.targetInfo && reply.targetInfo.targetId;
      if (typeof id !== 'string' || id === '') throw new Error('Target.getTargetInfo returned no targetId');
      return id;
    } finally {
      if (attachedHere) {
        try {
          if (dbg.isAttached()) dbg.detach();
        } catch (e) {
          // the contents went away: nothing is left attached
        }
      }
    }
  };

  const describe = async (wc) => {
    const c = { id: wc.id, type: '', targetId: '', hostId: 0, ownWindow: own.has(wc.id), url: '' };
    if (devTools.has(wc.id)) c.devTools = true;
    if (typeof wc.isDestroyed === 'function' && wc.isDestroyed()) {
      c.targetError = 'destroyed';
      return c;
    }
    try { c.type = String(wc.getType()); } catch (e) { /* unknown: classified other */ }
    try {
      const host = wc.hostWebContents;
      if (host && typeof host.id === 'number') c.hostId = host.id;
    } catch (e) { /* no host */ }
    try {
      // For display only; a data: URL can be megabytes long.
      const url = String(wc.getURL());
      c.url = url.length > 2048 ? url.slice(0, 2048) + '…' : url;
    } catch (e) { /* no URL */ }
    try {
      c.targetId = await targetIdOf(wc);
    } catch (e) {
      c.targetError = message(e);
      return c;
    }
    // Cross-check with the reverse lookup where Electron has it; a
    // contradiction drops the id rather than mislabel a target.
    if (typeof webContents.fromDevToolsTargetId === 'function') {
      let back;
      try { back = webContents.fromDevToolsTargetId(c.targetId); } catch (e) { back = undefined; }
      if (back && back.id !== wc.id) {
        c.targetError = 'webContents.fromDevToolsTargetId(' + c.targetId + ') is web contents ' + back.id + ', not ' + wc.id;
        c.targetId = '';
      }
    }
    return c;
  };

  out.contents = await Promise.all(all.map(describe));
  return out;
})()
