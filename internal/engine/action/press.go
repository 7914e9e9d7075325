package action

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/cdp"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/world"
	"github.com/loupe-dev/loupe/internal/input"
)

// clickSettle bounds the wait for a subframe's document to see a click.
// The release of a click that reached it arrives within milliseconds; the
// bound is the rare case where the browser routed it elsewhere (see
// pressCheck), generous because a loaded machine delays delivery too.
const clickSettle = 2 * time.Second

// clickLate bounds the same wait when nothing of the click (neither press
// nor release) has reached the frame by clickSettle: under load, input to
// an out-of-process frame was measured arriving after 2 s (CI, 2 shared
// cores), and reporting a click that did land as misrouted misleads the
// agent into clicking twice. A real misroute costs this bound.
const clickLate = 8 * time.Second

// quietFor bounds the wait after input for the page to stop changing, with
// the page agent's bound of 8 frames (quiet in js/40-actions.js): a page
// that keeps changing costs whichever comes first. Frames alone would let a
// constantly animated page on a loaded machine (slow frames) cost seconds
// a command; time alone cut the wait short there (150 ms was too little).
const quietFor = 500 * time.Millisecond

// pressCheck arms the page agent's press guard for a click on tg (see
// onGuarded and afterPress in js/40-actions.js) — or refuses the click,
// nothing sent, when the element has gone since it was pointed at — and
// returns what to call after the click: one agent call that
//   - in a subframe, waits (at most clickSettle, or clickLate while nothing
//     of the click has arrived) until the frame's document
//     has seen the click's release: input to a frame in another process is
//     delivered asynchronously, and what is sent next (keys for the field
//     the click focused) must not overtake it;
//   - in a subframe, returns an error when the press did not reach the
//     frame's document (its release alone may have: no click then fires): the browser routes input to a frame by what it last
//     drew, and a frame that has just loaded or moved may not be there yet
//     (the press then goes to the frame's embedder). Where it went is not
//     known, so the click counts as executed;
//   - in a top document, the same when neither the press nor its release
//     has reached it once the browser has acknowledged both: the browser
//     acknowledged clicks that no page saw while a window the page had
//     just opened was held paused (a page opening windows in a loop lost
//     2 of 40 clicks so on the full browser, a quarter on the headless
//     shell, on a loaded machine). Such a click costs the same bounds as
//     a subframe's; one whose release has arrived costs nothing;
//   - returns an error when the press landed elsewhere (the page moved
//     under the pointer) and was stopped. The page's handlers did not see
//     it, unless they listen at the window in the capture phase, so the
//     error does not claim the click certainly did not run;
//   - returns, as a note, where the release went when the press landed on
//     the element and the release elsewhere (it moved away as it was
//     pressed): both were sent and the page saw them, but no click event
//     reached the element, which the caller must know;
//   - otherwise, with quiet, waits (at most 8 frames or quietFor) until the document
//     has gone one animation frame without a DOM mutation, so that what the
//     click set off (a list opening, a re-render) is on the page when the
//     result (and a front end's report of what changed) is taken.
func pressCheck(ctx context.Context, t *engine.Surface, tg *target, quiet bool) (func() (string, error), error) {
	var armed agentResult
	if err := tg.World.Call(ctx, "armPress", &armed, tg.Elem); err != nil {
		// The document went away or did not answer: the click goes
		// ahead unguarded, and the result says so.
		unchecked := fmt.Sprintf("clicked; where the click landed in %s's document could not be checked (%v)", tg.Ref, err)
		return func() (string, error) { return unchecked, nil }, nil
	}
	if err := armed.check(tg.Ref); err != nil {
		// The element went away after it was pointed at: nothing is
		// sent, for the point now shows something else.
		return nil, err
	}
	// Every click waits for its release to be seen (at once when it has
	// been); a subframe's may still be on its way, a top document's was
	// dropped.
	settleMs, lateMs, quietMs := clickSettle.Milliseconds(), clickLate.Milliseconds(), int64(0)
	where, lost := "frame", "the browser routed it elsewhere (to what is in front of the frame, or the frame's embedder)"
	if !tg.inSubframe(t) {
		where, lost = "page", "the browser dropped it (as it does while a window the page opened is held), or routed it elsewhere"
	}
	if quiet {
		quietMs = quietFor.Milliseconds()
	}
	return func() (string, error) {
		t.NoteInput(time.Now()) // the click was just sent
		var r agentResult
		if err := tg.World.Call(ctx, "afterPress", &r, armed.Seq, settleMs, lateMs, quietMs); err != nil {
			if documentLeft(err, t.Navigating(tg.Frame)) {
				// The document went away as it answered: the click led
				// somewhere (a link, a submit), which the caller sees.
				return "", nil
			}
			// The click was sent and its document is still there, but
			// whether it reached the element could not be checked: say
			// so rather than report a click that may not have landed as
			// one that did.
			return fmt.Sprintf("clicked; whether the click reached %s could not be checked (%v): take a snapshot to see what it did", tg.Ref, err), nil
		}
		if r.Missed {
			return "", apitype.Errorf(apitype.NotActionable,
				"the click was sent, but %s's %s saw no press: %s, or it may still arrive", tg.Ref, where, lost).
				Fix("take a snapshot ({1}) to see what the click did before trying again", apitype.Step{Op: "snapshot"}).Executed()
		}
		if r.Unreleased {
			return "", apitype.Errorf(apitype.NotActionable,
				"the click was sent, but only its press reached %s's %s: the release did not arrive, so no click fired (the browser dropped it, or it may still arrive)", tg.Ref, where).
				Fix("take a snapshot ({1}) to see what the press did before trying again", apitype.Step{Op: "snapshot"}).Executed()
		}
		if r.Slipped != "" {
			return fmt.Sprintf("pressed %s, but the release landed on %s, so no click reached %s (it moved or was replaced as it was pressed); take a snapshot to see what the press did", tg.Ref, r.Slipped, tg.Ref), nil
		}
		if r.Detail == "" {
			return "", nil
		}
		return "", apitype.Errorf(apitype.NotActionable,
			"%s moved as it was clicked: the press landed on %s and was stopped before the page's handlers saw it", tg.Ref, r.Detail).Executed()
	}, nil
}

// documentLeft reports whether err, from the click's document, says that
// document went away, or navigating (its frame or one above it is
// navigating) says it is on its way out: the click led somewhere.
func documentLeft(err error, navigating bool) bool {
	return navigating || errors.Is(err, engine.ErrDocumentGone) || errors.Is(err, cdp.ErrSessionGone) ||
		strings.Contains(err.Error(), "navigated or closed")
}

// afterInput waits, bounded by 8 frames or quietFor, until the document the input went
// to has gone one animation frame without a DOM mutation (after key
// presses; pressCheck does it for clicks). A page that keeps changing
// costs the bound, no more; a document that went away ends the wait.
func afterInput(ctx context.Context, w *world.World) {
	var r agentResult
	_ = w.Call(ctx, "quiet", &r, quietFor.Milliseconds())
}

// Routing a click into a frame in another process. The browser sends
// input to the frame it last drew at the point; a frame that has just
// loaded or moved may not be drawn there yet, and a press sent then goes
// to what is behind it (the frame's embedder) while the release, a moment
// later, reaches the frame (measured under load: pressCheck then reports
// the click missed). routeTo moves the pointer onto the point first and
// waits until the frame's document sees the move — then the browser
// routes input there — trying again each routeTry, for at most routeWait;
// after that the click goes ahead and pressCheck reports where it went.
// A move costs nothing a person would notice: at worst a hover on the
// embedder.
const (
	routeTry  = 150 * time.Millisecond
	routeWait = 3 * time.Second
)

func routeTo(ctx context.Context, t *engine.Surface, tg *target, x, y float64) {
	deadline := time.Now().Add(routeWait)
	for i := 0; time.Now().Before(deadline) && ctx.Err() == nil; i++ {
		var mark struct {
			OK  bool  `json:"ok"`
			Seq int64 `json:"seq"`
		}
		if err := tg.World.Call(ctx, "moveMark", &mark); err != nil || !mark.OK {
			return
		}
		// Alternately half a pixel either side: a move to where the
		// pointer already is may not reach the page as one.
		dx := 0.5
		if i%2 == 1 {
			dx = -0.5
		}
		if err := input.Move(ctx, t.Session(), x+dx, y, 0); err != nil {
			return
		}
		var seen bool
		if err := tg.World.Call(ctx, "sawMove", &seen, mark.Seq, routeTry.Milliseconds()); err != nil || seen {
			return
		}
	}
}
