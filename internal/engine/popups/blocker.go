package popups

// Script is run in every document of a browser the Guard serves, in the
// page's own world, as the document is made: window.open without a
// person's gesture returns null, as the full browser's popup blocker
// makes it, and no window is created. The Guard alone refuses such a
// window only once it exists, and it exists paused: until loupe closes it
// the renderer it shares with its opener drops trusted input (the browser
// acknowledges clicks no page sees). A page opening a window every 100 ms
// on a loaded machine so made clicks take 10–60 s, most of them lost;
// with the script it opens none. Windows opened otherwise (a link or form with
// a target, clicked or submitted by script) still go through the Guard.
//
// The check is transient user activation, the full browser's criterion;
// the real window.open consumes it, so one gesture opens one window.
// A proxy keeps the function's name and length; its source text reads as
// native code, without the name ("function () { [native code] }").
const Script = `(() => {
  const ua = navigator.userActivation;
  const open = window.open;
  if (!ua || typeof open !== 'function') return;
  window.open = new Proxy(open, {
    apply(target, self, args) {
      if (!ua.isActive) return null;
      return Reflect.apply(target, self, args);
    },
  });
})();`
