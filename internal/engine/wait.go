package engine

import (
	"context"
	"errors"
	"strings"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/loupe-dev/loupe/internal/apitype"
)

// WaitOptions name one condition to wait for. The caller's context must
// carry the deadline.
type WaitOptions struct {
	Text string // text that appears anywhere on the page
	Ref  string // an element that becomes visible
	URL  string // a top-level URL: a glob with * or a substring
	Load bool   // the current document's load event
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
func (t *Tab) Wait(ctx context.Context, o WaitOptions) (*WaitResult, error) {
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
		err = t.waitTextAnywhere(ctx, deadline, o.Text)
	case o.Ref != "":
		what = "element " + o.Ref
		err = t.waitRef(ctx, deadline, o.Ref)
	case o.URL != "":
		what = "url " + o.URL
		err = t.waitURL(ctx, o.URL)
	case o.Load:
		what = "load"
		err = t.waitInPage(ctx, deadline, "waitLoad")
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
func (t *Tab) waitTextAnywhere(ctx context.Context, deadline time.Time, text string) error {
	var frames []string
	for level := []string{t.rootFrame()}; len(level) > 0; {
		var next []string
		for _, f := range level {
			next = append(next, t.childFrames(f)...)
		}
		frames = append(frames, next...)
		level = next
	}
	if len(frames) == 0 {
		return t.waitInPage(ctx, deadline, "waitText", text)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the other frames' waits
	res := make(chan error, len(frames)+1)
	go func() { res <- t.waitInPage(ctx, deadline, "waitText", text) }()
	for _, f := range frames {
		go func() { res <- t.waitInFrame(ctx, deadline, f, text) }()
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

// waitInFrame runs the agent's text wait in one frame's current document.
func (t *Tab) waitInFrame(ctx context.Context, deadline time.Time, frame, text string) error {
	t.op.Lock()
	w, err := t.world(ctx, frame)
	t.op.Unlock()
	if err != nil {
		return errWaitTimeout // no document to wait in: this frame cannot answer
	}
	ms := time.Until(deadline).Milliseconds()
	if ms <= 0 {
		return errWaitTimeout
	}
	var ok bool
	if err := t.agentCall(ctx, w, "waitText", &ok, text, ms); err != nil || !ok {
		return errWaitTimeout
	}
	return nil
}

func jsonQuote(s string) string {
	b, _ := jsonv2.Marshal(s)
	return string(b)
}

func (t *Tab) mainWorld(ctx context.Context) (*world, error) {
	t.op.Lock()
	defer t.op.Unlock()
	return t.world(ctx, t.rootFrame())
}

// waitInPage runs an agent wait in the current document, again in the next
// one when the page navigates meanwhile, until the deadline.
func (t *Tab) waitInPage(ctx context.Context, deadline time.Time, fn string, args ...any) error {
	for {
		w, err := t.mainWorld(ctx)
		if err != nil && !errors.Is(err, ErrDocumentGone) {
			return err
		}
		if err == nil {
			ms := time.Until(deadline).Milliseconds()
			if ms <= 0 {
				return errWaitTimeout
			}
			var ok bool
			err = t.agentCall(ctx, w, fn, &ok, append(args, ms)...)
			if err == nil {
				if ok {
					return nil
				}
				return errWaitTimeout
			}
			if !errors.Is(err, ErrDocumentGone) {
				return err
			}
			// The document went away under the wait. Unless the
			// frame table already shows its successor, wait for that
			// to commit, then wait again in it.
			if f, ok := t.frameState(t.rootFrame()); ok && f.loader == w.loader {
				if err := t.awaitCommit(ctx); err != nil {
					return err
				}
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

func (t *Tab) awaitCommit(ctx context.Context) error {
	nw := t.watchNav()
	defer nw.cancel()
	_, _, err := nw.commit(ctx)
	return err
}

func (t *Tab) waitRef(ctx context.Context, deadline time.Time, ref string) error {
	t.op.Lock()
	tg, err := t.resolve(ctx, ref)
	t.op.Unlock()
	if err != nil {
		return err
	}
	ms := time.Until(deadline).Milliseconds()
	if ms <= 0 {
		return errWaitTimeout
	}
	var ok bool
	if err := t.agentCall(ctx, tg.w, "waitVisible", &ok, tg.elem, ms); err != nil {
		return t.docErr(ref, err)
	}
	if !ok {
		return errWaitTimeout
	}
	return nil
}

func (t *Tab) waitURL(ctx context.Context, pattern string) error {
	nw := t.watchNav()
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
