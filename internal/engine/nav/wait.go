package nav

import (
	"context"
	"errors"
	"strings"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/engine/world"
	"github.com/loupe-dev/loupe/internal/locator"
)

// WaitOptions name one condition to wait for. The caller's context must
// carry the deadline.
type WaitOptions struct {
	Text string // text that appears anywhere on the page
	Ref  string // an element that becomes visible
	URL  string // a top-level URL: a glob with * or a substring
	Load bool   // the current document's load event
	// TextGone is text that is to be gone from the page and every frame
	// below it; For, a plain wait of that long.
	TextGone string
	For      time.Duration
}

// WaitResult says what was seen.
type WaitResult struct {
	Surface string `json:"surface"`
	Matched string `json:"matched"`
	URL     string `json:"url"`
	Waited  string `json:"waited"`
}

// Wait blocks until the condition holds or ctx ends (TIMEOUT). Waits follow
// page events (DOM mutations, navigation and load events); nothing polls on
// a timer. A wait does not hold the tab: other operations proceed meanwhile.
func Wait(ctx context.Context, t *engine.Surface, o WaitOptions) (*WaitResult, error) {
	start := time.Now()
	deadline, ok := ctx.Deadline()
	if !ok {
		return nil, errors.New("engine: Wait needs a deadline")
	}
	var (
		what string
		err  error
	)
	switch {
	case o.Text != "":
		what = "text " + jsonQuote(o.Text)
		err = waitTextAnywhere(ctx, t, deadline, o.Text)
	case o.Ref != "":
		what = "element " + o.Ref
		err = waitRef(ctx, t, deadline, o.Ref)
	case o.URL != "":
		what = "url " + o.URL
		err = waitURL(ctx, t, o.URL)
	case o.Load:
		what = "load"
		err = waitInPage(ctx, t, deadline, "waitLoad")
	case o.TextGone != "":
		what = "text " + jsonQuote(o.TextGone) + " gone"
		err = waitTextGone(ctx, t, deadline, o.TextGone)
	case o.For > 0:
		// Asked for: a time, when nothing on the page tells when it is
		// ready. Bounded by the caller's deadline as well.
		what = "time " + o.For.String()
		timer := time.NewTimer(o.For)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-ctx.Done():
			err = ctx.Err()
		}
	default:
		return nil, apitype.Errorf(apitype.BadInput, "nothing to wait for")
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, errWaitTimeout) {
			return nil, apitype.Errorf(apitype.Timeout, "waited %s for %s", time.Since(start).Round(time.Millisecond), what)
		}
		return nil, err
	}
	return &WaitResult{Surface: t.ID, Matched: what, URL: t.URL(), Waited: time.Since(start).Round(time.Millisecond).String()}, nil
}

var errWaitTimeout = errors.New("wait timed out")

// waitTextAnywhere waits for text in the document or in any frame below it,
// same-process or out-of-process, as the snapshot shows them: the first
// frame that shows it ends the wait. The frames are those present when the
// wait starts; the top document is followed across navigations.
func waitTextAnywhere(ctx context.Context, t *engine.Surface, deadline time.Time, text string) error {
	var frames []string
	for level := []string{t.Root()}; len(level) > 0; {
		var next []string
		for _, f := range level {
			next = append(next, t.ChildFrames(f)...)
		}
		frames = append(frames, next...)
		level = next
	}
	if len(frames) == 0 {
		return waitInPage(ctx, t, deadline, "waitText", text)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the other frames' waits
	res := make(chan error, len(frames)+1)
	go func() { res <- waitInPage(ctx, t, deadline, "waitText", text) }()
	for _, f := range frames {
		go func() { res <- waitInFrame(ctx, t, deadline, f, text) }()
	}
	err := errWaitTimeout
	for range len(frames) + 1 {
		e := <-res
		if e == nil {
			return nil
		}
		// A frame that went away or failed leaves the others to answer;
		// the top document's own error is the one to report.
		if !errors.Is(e, errWaitTimeout) && errors.Is(err, errWaitTimeout) {
			err = e
		}
	}
	return err
}

// waitTextGone waits until text is in no frame of the page: each frame's
// document waits (on its mutations) until the text is not there, and
// once all have answered, one more look at each confirms that it did not
// come back meanwhile in a frame that answered first.
func waitTextGone(ctx context.Context, t *engine.Surface, deadline time.Time, text string) error {
	for {
		frames := []string{t.Root()}
		for level := frames; len(level) > 0; {
			var next []string
			for _, f := range level {
				next = append(next, t.ChildFrames(f)...)
			}
			frames = append(frames, next...)
			level = next
		}
		res := make(chan error, len(frames))
		for _, f := range frames {
			go func() { res <- goneInFrame(ctx, t, deadline, f, text) }()
		}
		var err error
		for range frames {
			if e := <-res; e != nil && err == nil {
				err = e
			}
		}
		if err != nil {
			return err
		}
		still := false
		for _, f := range frames {
			if goneInFrame(ctx, t, time.Now().Add(time.Millisecond), f, text) != nil {
				still = true
			}
		}
		if !still {
			return nil
		}
		if time.Now().After(deadline) {
			return errWaitTimeout
		}
	}
}

// goneInFrame runs the agent's wait for text to go in one frame's
// current document; a frame with no document shows no text.
func goneInFrame(ctx context.Context, t *engine.Surface, deadline time.Time, frame, text string) error {
	w, err := engine.Exclusively(ctx, t, func() (*world.World, error) { return t.World(ctx, frame) })
	if err != nil {
		return nil
	}
	ms := max(time.Until(deadline).Milliseconds(), 1)
	var ok bool
	if err := w.Call(ctx, "waitTextGone", &ok, text, ms); err != nil {
		if errors.Is(err, engine.ErrDocumentGone) {
			return nil
		}
		return err
	}
	if !ok {
		return errWaitTimeout
	}
	return nil
}

// waitInFrame runs the agent's text wait in one frame's current document.
func waitInFrame(ctx context.Context, t *engine.Surface, deadline time.Time, frame, text string) error {
	w, err := engine.Exclusively(ctx, t, func() (*world.World, error) { return t.World(ctx, frame) })
	if err != nil {
		return errWaitTimeout // no document to wait in: this frame cannot answer
	}
	ms := time.Until(deadline).Milliseconds()
	if ms <= 0 {
		return errWaitTimeout
	}
	var ok bool
	if err := w.Call(ctx, "waitText", &ok, text, ms); err != nil || !ok {
		return errWaitTimeout
	}
	return nil
}

func jsonQuote(s string) string {
	b, _ := jsonv2.Marshal(s)
	return string(b)
}

func mainWorld(ctx context.Context, t *engine.Surface) (*world.World, error) {
	return engine.Exclusively(ctx, t, func() (*world.World, error) {
		return t.World(ctx, t.Root())
	})
}

// waitInPage runs an agent wait in the current document, again in the next
// one when the page navigates meanwhile, until the deadline.
func waitInPage(ctx context.Context, t *engine.Surface, deadline time.Time, fn string, args ...any) error {
	for {
		w, err := mainWorld(ctx, t)
		if err != nil && !errors.Is(err, engine.ErrDocumentGone) {
			return err
		}
		if err == nil {
			ms := time.Until(deadline).Milliseconds()
			if ms <= 0 {
				return errWaitTimeout
			}
			var ok bool
			err = w.Call(ctx, fn, &ok, append(args, ms)...)
			if err == nil {
				if ok {
					return nil
				}
				return errWaitTimeout
			}
			if !errors.Is(err, engine.ErrDocumentGone) {
				return err
			}
			// The document went away under the wait. Unless the
			// frame table already shows its successor, wait for that
			// to commit, then wait again in it.
			if f, ok := t.Frame(t.Root()); ok && f.Document == w.Document() {
				if err := awaitCommit(ctx, t); err != nil {
					return err
				}
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

func awaitCommit(ctx context.Context, t *engine.Surface) error {
	nw := watchNav(t)
	defer nw.cancel()
	_, _, err := nw.commit(ctx)
	return err
}

func waitRef(ctx context.Context, t *engine.Surface, deadline time.Time, ref string) error {
	_, refErr := locator.ParseRef(ref)
	for {
		tg, err := resolveWhenThere(ctx, t, deadline, ref)
		if err != nil {
			return err
		}
		// A locator's element may be replaced while it is waited on (a
		// page that renders again): it is looked for again after a
		// bounded wait. A ref names one element for good.
		until := deadline
		if refErr != nil && time.Until(until) > locatorRecheck {
			until = time.Now().Add(locatorRecheck)
		}
		ms := time.Until(until).Milliseconds()
		if ms <= 0 {
			return errWaitTimeout
		}
		var ok bool
		if err := tg.World.Call(ctx, "waitVisible", &ok, tg.Elem, ms); err != nil {
			return capture.StaleIfGone(ref, err)
		}
		if ok {
			return nil
		}
		if refErr == nil || !time.Now().Before(deadline) {
			return errWaitTimeout
		}
	}
}

// locatorRecheck bounds how long a locator that matches nothing waits
// for a change of the top document before it is resolved again: changes
// inside other frames (which a locator may step into) are not seen by
// the top document's observer.
const locatorRecheck = 500 * time.Millisecond

// resolveWhenThere resolves a target; a locator that matches nothing yet
// is resolved again after each change of the page, until the deadline. A
// ref never appears later: it is resolved once.
func resolveWhenThere(ctx context.Context, t *engine.Surface, deadline time.Time, target string) (*capture.Element, error) {
	_, refErr := locator.ParseRef(target)
	for {
		tg, err := engine.Exclusively(ctx, t, func() (*capture.Element, error) { return capture.Resolve(ctx, t, target) })
		if e, ok := apitype.As(err); err == nil || refErr == nil || !ok || e.Code != apitype.RefNotFound {
			return tg, err
		}
		wait := time.Until(deadline)
		if wait <= 0 {
			return nil, errWaitTimeout
		}
		if wait > locatorRecheck {
			wait = locatorRecheck
		}
		if err := waitInPage(ctx, t, time.Now().Add(wait), "waitChange"); err != nil && !errors.Is(err, errWaitTimeout) {
			return nil, err
		}
	}
}

func waitURL(ctx context.Context, t *engine.Surface, pattern string) error {
	nw := watchNav(t)
	defer nw.cancel()
	if MatchURL(pattern, t.URL()) {
		return nil
	}
	for {
		if _, _, err := nw.commit(ctx); err != nil {
			return err
		}
		if MatchURL(pattern, t.URL()) {
			return nil
		}
	}
}

// MatchURL matches a URL against a pattern: with a '*' the pattern is a
// glob over the whole URL ('*' spans any characters, '/' included);
// otherwise it matches when the URL contains it.
func MatchURL(pattern, url string) bool {
	if !strings.Contains(pattern, "*") {
		return strings.Contains(url, pattern)
	}
	// path.Match's '*' stops at '/'; split on '*' and match the pieces in
	// order instead.
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(url, parts[0]) {
		return false
	}
	rest := url[len(parts[0]):]
	for i, p := range parts[1:] {
		last := i == len(parts)-2
		if last {
			return strings.HasSuffix(rest, p) && len(rest) >= len(p)
		}
		j := strings.Index(rest, p)
		if j < 0 {
			return false
		}
		rest = rest[j+len(p):]
	}
	return true
}

// AwaitCommit waits, at most max, while the surface's own frame is on its
// way to a new document (a click on a link, a form's submit): a report of
// what a write did should name the page it led to. It polls every 10 ms,
// because the frame table is kept by event taps that signal no one; it
// returns whether the navigation committed (true when none was under way).
func AwaitCommit(ctx context.Context, t *engine.Surface, max time.Duration) bool {
	deadline := time.Now().Add(max)
	crashed := t.Crashed()
	for t.Navigating(t.Root()) {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-t.Closed():
			return false
		case <-crashed:
			return false
		case <-time.After(10 * time.Millisecond):
		}
	}
	return true
}
