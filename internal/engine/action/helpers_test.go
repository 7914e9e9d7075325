package action_test

import (
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
)

// The shared test helpers, by their short names.
var (
	openTab     = enginetest.OpenTab
	ctxT        = enginetest.Ctx
	snap        = enginetest.Snap
	snapWith    = enginetest.SnapWith
	ref         = enginetest.Ref
	wantStep    = enginetest.WantStep
	wantCode    = enginetest.WantCode
	evalString  = enginetest.EvalString
	eventually  = enginetest.Eventually
	refsByFrame = enginetest.RefsByFrame
	frameIDs    = enginetest.FrameIDs
	refOfLine   = enginetest.RefOfLine
	startPair   = enginetest.StartPair
)
