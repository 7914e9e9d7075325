package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	cdpproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/loupe-dev/loupe/internal/cdp"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

// Renderer crashes. A page's renderer process can die (a bug, memory, a
// navigation to chrome://crash) while its target lives on, showing the sad
// page until something loads a new document in it. What Chromium 156
// reports then, and when, is measured in docs/crashes.md.
//
// So each session's renderer has incarnations: one lives until its
// session reports the crash (Inspector.targetCrashed, or for a page
// Target.targetCrashed, whichever comes first), and the next starts when
// the session's own frame commits a new document. Every call the engine
// makes through a page's sessions goes through Session.Call, which fails
// at once, or as soon as the crash is reported, with ErrTabCrashed (the
// page's renderer) or ErrFrameCrashed (an OOPIF's), instead of waiting
// for a reply that never comes.

// ErrTabCrashed means the renderer of the tab's page crashed: operations on
// it fail with this error until a new document commits in it (see
// Tab.RecoverCrash).
var ErrTabCrashed = errors.New("tab's renderer crashed")

// ErrFrameCrashed means the renderer of an out-of-process frame crashed
// while the page lived on: the frame's document is gone (it wraps
// ErrDocumentGone), and so are the frame surfaces it hosted.
var ErrFrameCrashed = fmt.Errorf("frame's renderer crashed: %w", ErrDocumentGone)

// incarnation is one life of the renderer behind a session. Guarded by the
// page's mu.
type incarnation struct {
	// gen counts the session's incarnations (0 for the first). It goes
	// into World.ContextID: a new renderer numbers its contexts afresh.
	gen    int64
	ctx    context.Context // cancelled, with the crash error as cause, when it crashes
	cancel context.CancelCauseFunc
	url    string        // the page's last committed top-level URL when it crashed
	next   chan struct{} // closed when the next incarnation starts
	// reloading is set when a crashed page starts loading again
	// (Inspector.targetReloadedAfterCrash): a crash report after it is a
	// new crash of the reload, not the first one reported twice.
	reloading bool
	again     chan struct{} // closed (and replaced) when the reload crashes too
}

func newIncarnation(gen int64) *incarnation {
	ctx, cancel := context.WithCancelCause(context.Background())
	return &incarnation{gen: gen, ctx: ctx, cancel: cancel, next: make(chan struct{}), again: make(chan struct{})}
}

// Session is a protocol session of a page, its own or an out-of-process
// frame's, as the engine hands it out: a cdp.Session whose calls fail fast
// once the renderer behind it has crashed (see Session.Call). Events and
// everything else are the cdp.Session's.
type Session struct {
	*cdp.Session
	p *pageState
}

var _ cdpproto.Session = Session{}

// Call sends a command and waits for its reply, as cdp.Session.Call does,
// unless the session's renderer crashes first: a call made while it is
// crashed, or pending when the crash is reported, returns at once with an
// error wrapping ErrTabCrashed (the page's renderer) or ErrFrameCrashed,
// and a call that needs the page shown brings it forward (front.go).
func (s Session) Call(ctx context.Context, method string, params, result any) error {
	if needsFront(method) {
		s.p.toFront(ctx)
	}
	defer s.p.inputSent(method)()
	if h := s.p.held.Ctx(s.Session, method); h != nil {
		// A held dialog of a flood stops the renderer: fail at once, or as
		// soon as the hold begins (see flood.go).
		if h.Err() != nil {
			return fmt.Errorf("%s: %w", method, ErrPageBlocked)
		}
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		defer cancel(nil)
		defer context.AfterFunc(h, func() { cancel(ErrPageBlocked) })()
	}
	err := s.call(ctx, method, params, result)
	if err != nil && errors.Is(context.Cause(ctx), ErrPageBlocked) {
		return fmt.Errorf("%s: %w", method, ErrPageBlocked)
	}
	return err
}

// call is Call but for held dialogs: a crash of the session's renderer
// ends it.
func (s Session) call(ctx context.Context, method string, params, result any) error {
	inc := s.p.incarnationOf(s.Session)
	if inc == nil {
		return s.Session.Call(ctx, method, params, result)
	}
	if cause := context.Cause(inc.ctx); cause != nil {
		return fmt.Errorf("%s: %w", method, cause)
	}
	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(inc.ctx, func() { cancel(context.Cause(inc.ctx)) })
	defer stop()
	err := s.Session.Call(cctx, method, params, result)
	if err != nil && ctx.Err() == nil {
		// Whatever the reply said (or that none came), a crash explains it.
		if cause := context.Cause(inc.ctx); cause != nil {
			return fmt.Errorf("%s: %w", method, cause)
		}
	}
	return err
}

func (p *pageState) wrap(s *cdp.Session) Session { return Session{Session: s, p: p} }

// incarnationOf is the current incarnation of a session's renderer (nil
// for a session the page has not set up).
func (p *pageState) incarnationOf(s *cdp.Session) *incarnation {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.incs[s]
}

// trackCrashes starts a session's first incarnation and listens for its
// crash reports. It runs before the session is set up, so no report is
// missed.
func (t *Surface) trackCrashes(s *cdp.Session) {
	t.mu.Lock()
	if t.incs[s] == nil {
		t.incs[s] = newIncarnation(0)
	}
	t.mu.Unlock()
	s.Tap(func(ev cdp.Event) {
		switch ev.Method {
		case "Inspector.targetCrashed":
			t.crashed(s)
		case "Inspector.targetReloadedAfterCrash":
			t.mu.Lock()
			if inc := t.incs[s]; inc != nil && inc.ctx.Err() != nil {
				inc.reloading = true
			}
			t.mu.Unlock()
		}
	}, "Inspector.targetCrashed", "Inspector.targetReloadedAfterCrash")
}

// crashed records that the renderer behind s crashed. It runs on the reader
// goroutine (a tap), so the crash is known before any later reply. A page
// crash is reported twice (Inspector and Target): the second is ignored.
func (t *Surface) crashed(s *cdp.Session) {
	t.mu.Lock()
	inc := t.incs[s]
	first := inc != nil && inc.ctx.Err() == nil
	switch {
	case inc == nil:
	case first && s == t.sess:
		f := t.frames[t.TargetID]
		if f != nil && f.url != "" {
			inc.url = f.url
		} else {
			inc.url = t.url
		}
		// Every frame of the page lived in the dead renderer or below
		// it: their surfaces are gone, as after a navigation.
		t.dropDescendants(t.TargetID)
		if f != nil {
			f.navigating = false
		}
		t.dropSessionState(s)
		clear(t.worlds)
		clear(t.owners)
		inc.cancel(ErrTabCrashed)
	case first:
		// An OOPIF's renderer: the frames it hosted are gone, with what
		// hangs below them. The page lives on.
		for id, f := range t.frames {
			if f.sess == s {
				t.dropDescendants(id)
				t.forget(id)
			}
		}
		t.dropSessionState(s)
		inc.cancel(ErrFrameCrashed)
	case inc.reloading:
		// The reload crashed too, before its document committed.
		inc.reloading = false
		close(inc.again)
		inc.again = make(chan struct{})
	}
	t.mu.Unlock()
	if first && s == t.sess {
		t.b.notifyCrash(t.tab)
	}
}

// dropSessionState forgets the execution contexts of a session whose
// renderer died (none is reported destroyed). Caller holds t.mu.
func (t *Surface) dropSessionState(s *cdp.Session) {
	for k := range t.contexts {
		if k.sess == s {
			t.dropContext(s, k.id)
		}
	}
}

// committed starts a new incarnation of s's renderer when s's own frame
// commits a document after a crash. Caller holds t.mu (a frame tap).
func (t *Surface) committed(s *cdp.Session, frameID string) {
	old := t.incs[s]
	if old == nil || old.ctx.Err() == nil || frameID != s.Target().TargetID {
		return
	}
	t.incs[s] = newIncarnation(old.gen + 1)
	close(old.next)
}

// Crashed is closed when the current incarnation of the page's renderer
// crashes. A tab and its frame surfaces share it; once a new document has
// committed in the page (RecoverCrash, or a person reloading it), Crashed
// returns a new channel.
func (t *Surface) Crashed() <-chan struct{} {
	if inc := t.incarnationOf(t.sess); inc != nil {
		return inc.ctx.Done()
	}
	return nil // not set up yet: no crash is tracked
}

// IsCrashed reports whether the page's renderer has crashed and no new
// document has committed since.
func (t *Surface) IsCrashed() bool {
	inc := t.incarnationOf(t.sess)
	return inc != nil && inc.ctx.Err() != nil
}

// RecoverCrash reloads a crashed page at its last safe URL: the last
// top-level URL committed before the crash, or about:blank when that was
// not a web page (chrome://crash, say). It takes the page's lock (in-flight
// operations fail fast on a crash, so it comes free at once), forgets every
// ref of the page, navigates the page's target (a crashed target accepts
// Page.navigate and starts a new renderer), and waits, bounded by ctx, for
// the new document to commit. It returns the URL it loaded. A page that is
// not crashed (or was recovered meanwhile) is left alone: its URL, nil. A
// reload that crashes too is ErrTabCrashed.
func (t *Surface) RecoverCrash(ctx context.Context) (string, error) {
	if !t.IsCrashed() {
		return t.tab.URL(), nil
	}
	return Exclusively(ctx, t, func() (string, error) { return t.recoverCrash(ctx) })
}

func (t *Surface) recoverCrash(ctx context.Context) (string, error) {
	t.mu.Lock()
	inc := t.incs[t.sess]
	if inc == nil || inc.ctx.Err() == nil {
		t.mu.Unlock()
		return t.tab.URL(), nil
	}
	url, next, again := safeURL(inc.url), inc.next, inc.again
	surfaces := []*Surface{t.tab}
	for _, f := range t.frameSurf {
		surfaces = append(surfaces, f)
	}
	t.mu.Unlock()
	for _, s := range surfaces {
		s.refs.Retain(func(snapshot.Doc) bool { return false })
	}
	// The raw session: the crash gate would refuse this call.
	res, err := cdpproto.Call(ctx, t.sess, page.Navigate, page.NavigateParams{URL: url})
	if err == nil && res.LoaderID == "" && url != "about:blank" {
		// Nothing will commit (a download, a 204): a blank page does.
		url = "about:blank"
		res, err = cdpproto.Call(ctx, t.sess, page.Navigate, page.NavigateParams{URL: url})
	}
	if err != nil {
		return "", fmt.Errorf("reloading the crashed tab at %s: %w", url, err)
	}
	select {
	case <-next:
		return url, nil
	case <-again:
		return "", fmt.Errorf("reloading %s: %w again", url, ErrTabCrashed)
	case <-t.closed:
		return "", ErrTabClosed
	case <-ctx.Done():
		return "", fmt.Errorf("reloading the crashed tab at %s: %w", url, ctx.Err())
	}
}

// safeURL is where a crashed page is reloaded: its URL when it was a web
// page (or a local file), about:blank otherwise.
func safeURL(u string) string {
	for _, scheme := range []string{"http://", "https://", "file://"} {
		if len(u) > len(scheme) && strings.EqualFold(u[:len(scheme)], scheme) {
			return u
		}
	}
	return "about:blank"
}

// CrashHandler hears of a page's renderer crash, once per crash, on a
// goroutine of its own. ctx ends when the browser shuts down (which waits
// for the handler to return).
type CrashHandler func(ctx context.Context, t *Surface)

// WithCrashHandler makes the browser call h whenever a tab's renderer
// crashes (after Crashed has closed), e.g. to hand the tab to a person and
// call RecoverCrash.
func WithCrashHandler(h CrashHandler) Option { return func(b *Browser) { b.onCrash = h } }

// notifyCrash runs the crash handler for t on a goroutine of the
// browser's (Go).
func (b *Browser) notifyCrash(t *Surface) {
	if h := b.onCrash; h != nil {
		b.Go(func(ctx context.Context) { h(ctx, t) })
	}
}
