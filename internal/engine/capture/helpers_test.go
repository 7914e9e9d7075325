package capture_test

import (
	"testing"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
)

// The shared test helpers, by their short names.
var (
	openTab     = enginetest.OpenTab
	gotoPage    = enginetest.Goto
	ctxT        = enginetest.Ctx
	longCtx     = enginetest.LongCtx
	withTimeout = enginetest.WithTimeout
	snap        = enginetest.Snap
	snapWith    = enginetest.SnapWith
	ref         = enginetest.Ref
	wantCode    = enginetest.WantCode
	refsByFrame = enginetest.RefsByFrame
	frameIDs    = enginetest.FrameIDs
	refOfLine   = enginetest.RefOfLine
	startPair   = enginetest.StartPair
)

func status(t *testing.T, tab *engine.Surface) string {
	return enginetest.EvalString(t, tab, "document.getElementById('status').textContent")
}
