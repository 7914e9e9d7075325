// A stand-in for Electron's main-process API, loaded into plain Node with
// --require so that TestInspectNode can run the real classification script
// in a real V8/Node inspector. It is NOT Electron: it mimics the documented
// shapes of webContents, BrowserWindow and webContents.debugger, nothing more.
//
// The app it pretends to be:
//   1  a BrowserWindow's own contents                 (type window)
//   2  a WebContentsView in that window               (type window; has the
//      Electron 41+ getOrCreateDevToolsTargetId, so no debugger is attached)
//   3  a <webview> guest hosted by 1, whose debugger the app already attached
//   4  a DevTools front end opened for 1              (type window)
//   5  a legacy BrowserView                           (type browserView)
//   6  contents whose debugger cannot attach
// plus a BaseWindow (no webContents) in BrowserWindow.getAllWindows().
'use strict';
const Module = require('module');

Object.defineProperty(process.versions, 'electron', { value: '33.2.1', enumerable: true });
process.type = 'browser';

const log = [];
const byTarget = new Map();

function makeDebugger(wc, opts) {
  let attached = !!opts.preAttached;
  return {
    isAttached: () => attached,
    attach() {
      if (opts.cannotAttach) throw new Error('Debugger attach failed: target closed');
      if (attached) throw new Error('Another debugger is already attached to this WebContents');
      attached = true;
      log.push('attach ' + wc.id);
    },
    detach() {
      if (!attached) throw new Error('No debugger attached');
      attached = false;
      log.push('detach ' + wc.id);
    },
    sendCommand(method) {
      if (!attached) return Promise.reject(new Error('No target available'));
      if (method !== 'Target.getTargetInfo') return Promise.reject(new Error("'" + method + "' wasn't found"));
      log.push('getTargetInfo ' + wc.id);
      return Promise.resolve({
        targetInfo: { targetId: opts.targetId, type: opts.cdpType || 'page', title: '', url: opts.url, attached: true, canAccessOpener: false },
      });
    },
  };
}

function makeContents(id, type, opts) {
  const wc = {
    id,
    getType: () => type,
    getURL: () => opts.url,
    isDestroyed: () => false,
    hostWebContents: null,
    devToolsWebContents: null,
  };
  wc.debugger = makeDebugger(wc, opts);
  if (opts.modern) {
    wc.getOrCreateDevToolsTargetId = () => {
      log.push('getOrCreateDevToolsTargetId ' + id);
      return opts.targetId;
    };
  }
  byTarget.set(opts.targetId, wc);
  return wc;
}

const win = makeContents(1, 'window', { targetId: 'A1B2C3D4E5F60718293A4B5C6D7E8F90', url: 'file:///app/index.html' });
const view = makeContents(2, 'window', { targetId: 'B2C3D4E5F60718293A4B5C6D7E8F90A1', url: 'https://example.com/sidebar', modern: true });
const guest = makeContents(3, 'webview', { targetId: 'C3D4E5F60718293A4B5C6D7E8F90A1B2', url: 'https://example.org/', preAttached: true, cdpType: 'webview' });
guest.hostWebContents = win;
const devtools = makeContents(4, 'window', { targetId: 'D4E5F60718293A4B5C6D7E8F90A1B2C3', url: 'devtools://devtools/bundled/devtools_app.html' });
win.devToolsWebContents = devtools;
const legacy = makeContents(5, 'browserView', { targetId: 'E5F60718293A4B5C6D7E8F90A1B2C3D4', url: 'https://example.net/' });
const broken = makeContents(6, 'window', { targetId: 'F60718293A4B5C6D7E8F90A1B2C3D4E5', url: 'about:blank', cannotAttach: true });

const all = [win, view, guest, devtools, legacy, broken];

const electron = {
  webContents: {
    getAllWebContents: () => all.slice(),
    fromDevToolsTargetId: (id) => byTarget.get(id),
  },
  BrowserWindow: {
    getAllWindows: () => [{ webContents: win, isDestroyed: () => false }, { isDestroyed: () => false } /* BaseWindow */],
  },
};

globalThis.__fakeElectron = { log };

const load = Module._load;
Module._load = function (request, ...rest) {
  if (request === 'electron') return electron;
  return load.call(this, request, ...rest);
};
