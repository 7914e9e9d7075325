package engine

import (
	"context"
	"strings"

	cdpproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/loupe-dev/loupe/internal/cdp"
)

// Which page of a window is shown. A page another covers in its window
// (a tab a page opened sits in front of its opener) takes trusted input
// slowly once idle and paints no picture: a click took 1.7–2 s against
// 0.05 s in front, a screenshot waited 15 s (Chromium 156). A person acts
// in the tab they see, so a call that needs the page shown brings it
// forward first (Session.Call). Which page is in front is followed per
// opener group (the pages down from one without an opener): a new page
// is, and so is a page loupe activates; none, once that one closes.

// needsFront reports whether a call on a page's session needs it shown.
func needsFront(method string) bool {
	return strings.HasPrefix(method, "Input.") || method == "Page.captureScreenshot" || method == "Page.startScreencast"
}

// groupOf is the root of the page's opener chain among the live pages.
// Caller holds b.mu.
func (b *Browser) groupOf(targetID string) string {
	for range 64 { // a chain is short; bounded all the same
		t := b.byTarget[targetID]
		if t == nil {
			break
		}
		op := t.OpenerTarget()
		if op == "" || b.byTarget[op] == nil {
			break
		}
		targetID = op
	}
	return targetID
}

// toFront brings the page forward unless it is in front; best effort.
func (p *pageState) toFront(ctx context.Context) {
	b := p.b
	b.mu.Lock()
	front := b.front[b.groupOf(p.TargetID)]
	b.mu.Unlock()
	if front != p.TargetID {
		_ = b.Activate(ctx, p.tab)
	}
}

// Activate brings the surface's page to the front of its window.
func (b *Browser) Activate(ctx context.Context, t *Surface) error {
	if _, err := cdpproto.Call(ctx, b.conn.Browser(), target.ActivateTarget, target.ActivateTargetParams{TargetID: target.ID(t.TargetID)}); err != nil {
		return err
	}
	b.mu.Lock()
	b.front[b.groupOf(t.TargetID)] = t.TargetID
	b.mu.Unlock()
	return nil
}

// decidePopup adopts a page another opened, or closes it before it shows
// anything when it was opened without a gesture (package popups). Paused
// at attach, it holds its opener's renderer when they share one, so it is
// resumed and closes itself at once.
func (b *Browser) decidePopup(ctx context.Context, sess *cdp.Session, e targetEvent, allow bool) {
	select {
	case <-sess.Done(): // closed while its word was awaited
	default:
		if allow {
			b.adopt(ctx, sess, e)
			return
		}
		b.mu.Lock()
		defer b.mu.Unlock()
		if !b.closing {
			// One round trip: the opener's renderer waits on it.
			b.wg.Go(func() {
				sess.Batch(b.bg, cdp.Command{Method: "Runtime.runIfWaitingForDebugger"}, cdp.Command{Method: "Page.close"})
			})
		}
	}
}
