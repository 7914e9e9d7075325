// Package cdp is loupe's connection to a Chrome DevTools Protocol endpoint.
//
// It implements cdproto's [cdp.Session] interface over its own small
// transport instead of chromedp's Browser/Target, for three reasons measured
// on Chromium 156 (see shared/CDP-FACTS.md, section 1):
//
//   - chromedp's router drops messages for sessions it did not create, so it
//     cannot address the flattened child sessions of out-of-process iframes,
//     which loupe needs for snapshots and actions inside them;
//   - its auto-attach is neither paused (waitForDebuggerOnStart) nor
//     recursive, so grandchild frames are never attached;
//   - cancelling a derived context can close the whole tab.
//
// The transport is a pipe (--remote-debugging-pipe, NUL-framed JSON on fds
// 3 and 4) for browsers loupe launches: it was faster than the websocket for
// large replies, has no client-side frame limit, and Chromium exits when the
// pipe closes, so a killed daemon does not orphan its browser. A websocket is
// used only to attach to a browser loupe did not start.
//
// A [Conn] owns one reader goroutine. It routes replies to waiting calls and
// events to per-subscriber unbounded queues that keep wire order, so a slow
// consumer never stalls the reader and the reader never calls back into the
// connection. Sessions form a tree: a session attached by
// Target.attachedToTarget is a child of the session that carried the event,
// and detaching a session ends its descendants too (Chromium does not always
// send detachedFromTarget for grandchildren).
//
// This package holds no business logic: which domains to enable, when to
// resume a paused target and what a frame is belong to the engine.
package cdp
